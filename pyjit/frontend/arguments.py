"""Binding a call's arguments to a signature: the one place that knows Python's
calling rules, for every table of callables (:mod:`.signatures`,
:mod:`.numpy_api`) and for calls of scripted functions.

:func:`bind` matches the positional and keyword arguments of an ``ast.Call`` to
the :class:`~.signatures.Param` list and evaluates each argument, in source
order as Python does, through a ``read`` callback that knows what the parameter
wants (``np.sum``'s ``axis=(0, 1)`` is read as an ``int[]``, a list method's
element with the list's element type as the hint)::

    np.sum(e, axis=1, keepdims=True)      a -> %e, axis -> [1], keepdims -> True
    xs.index(x, 0)                        CompileError: int[].index() takes at most
                                          1 arguments, 2 given

An omitted parameter's default becomes a constant only when the emitter asks
for it (:class:`Arguments`), so that constants appear in the order the emitted
node takes them, and none is made for a default the lowering does not use.
"""

from __future__ import annotations

import ast
from typing import Callable, Dict, List, Optional, Sequence

from ..ir import Value
from .builder import GraphBuilder
from .signatures import OPTIONAL, REQUIRED, UNSUPPORTED, Param

__all__ = ["Arguments", "bind", "Reader"]

#: ``read(param, expr)``: the value of the argument ``expr`` passed for ``param``
#: (None when it stands for "no value", such as ``axis=None``).
Reader = Callable[[Param, ast.expr], Optional[Value]]


class Arguments:
    """The arguments of one call, matched to the parameters and evaluated.

    ``args[name]`` is the value passed for ``name``; for an omitted parameter its
    default, made a constant at the first request, or None when it has none
    (:data:`~.signatures.OPTIONAL`).
    """

    __slots__ = ("_b", "_params", "_values", "_at")

    def __init__(self, b: GraphBuilder, params: Sequence[Param],
                 values: Dict[str, Optional[Value]], at: ast.AST) -> None:
        self._b = b
        self._params = {p.name: p for p in params}
        self._values = values
        self._at = at

    def given(self, name: str) -> bool:
        """Whether the call passed an argument for ``name``."""
        return name in self._values

    def __getitem__(self, name: str) -> Optional[Value]:
        if name not in self._values:
            default = self._params[name].default
            self._values[name] = None if default is OPTIONAL else self._b.const(default, self._at)
        return self._values[name]

    def in_order(self) -> List[Optional[Value]]:
        """Every parameter's value, in the signature's order."""
        return [self[name] for name in self._params]


def bind(b: GraphBuilder, params: Sequence[Param], node: ast.Call, what: str, read: Reader,
         receiver: Optional[Value] = None,
         unknown_keyword: str = "{what} has no parameter '{name}'") -> Arguments:
    """Match ``node``'s arguments to ``params`` and evaluate them with ``read``.

    ``receiver`` is the value of the first parameter (a method's object), not
    among the call's arguments.  ``what`` names the callable in messages
    (``"np.sum()"``); ``unknown_keyword`` is the message for a keyword that
    matches no parameter.  Raises :class:`~pyjit.CompileError` for too many
    positional arguments, an unknown or repeated keyword, an argument for an
    unsupported parameter, or a missing argument.
    """
    fail = b.src.fail
    values: Dict[str, Optional[Value]] = {}

    def take(p: Param, a: ast.expr, at: ast.AST) -> None:
        if p.kind == UNSUPPORTED:
            fail(at, f"{what} with {p.name} is not supported")
        values[p.name] = read(p, a)

    rest = list(params)
    if receiver is not None:
        values[rest.pop(0).name] = receiver
    positional = [p for p in rest if p.positional]
    args = node.args
    if not any(p.variadic for p in positional) and len(args) > len(positional):
        fail(node, f"{what} takes at most {len(positional)} arguments, {len(args)} given")
    for i, (p, a) in enumerate(zip(positional, args)):
        if p.variadic:
            group = args[i:]
            take(p, group[0] if len(group) == 1 else ast.copy_location(
                ast.Tuple(list(group), ast.Load()), node), a)
            break
        take(p, a, a)
    by_keyword = {p.name: p for p in rest if p.keyword and not p.variadic}
    for k in node.keywords:
        p = by_keyword.get(k.arg)
        if p is None:
            fail(k, unknown_keyword.format(what=what, name=k.arg))
        if p.name in values:
            fail(k, f"{what} got two values for '{k.arg}'")
        take(p, k.value, k)
    for p in rest:
        if p.default is REQUIRED and p.name not in values:
            fail(node, f"{what} is missing its argument '{p.name}'")
    return Arguments(b, params, values, node)
