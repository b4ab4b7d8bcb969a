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

Both dialects of the emitter core bind calls here: the Python dialect's tables
and scripted functions, and the archive's calls of its methods, functions and
NamedTuples; :func:`typed_arguments` then converts each value for its
parameter's type by the dialect's rule (Python's int-to-float, torch's implicit
conversions for an archive) and checks it.
"""

from __future__ import annotations

import ast
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Sequence

from ..ir import Value
from ..ir import types as T
from ..ir.type_relation import Conversion, is_subtype
from .builder import GraphBuilder

__all__ = ["Arguments", "OPTIONAL", "Param", "REQUIRED", "Reader", "UNSUPPORTED", "bind",
           "typed_arguments"]

#: The default of a parameter that must be given.
REQUIRED = object()
#: The default of a parameter that may be omitted and then has no value at all:
#: the node gets no input for it (``d.get(k)``), or the lowering decides
#: (``np.sum(x)`` without an axis reduces the whole array).
OPTIONAL = object()
#: The kind of a parameter the callable has but pyjit does not support (numpy's
#: ``out=``): passing it is a CompileError naming it.
UNSUPPORTED = "unsupported"


class Param(NamedTuple):
    """One parameter of a callable: of the tables of those scripted code may
    call, of a scripted function, or of a method or function of an archive.

    Attributes:
        name: as Python spells it (keyword arguments bind by it).
        default: :data:`REQUIRED`, :data:`OPTIONAL`, or the Python constant the
            node receives when the argument is omitted.
        kind: how the argument is read (``"value"``: evaluated as it is; the
            numpy table's kinds are in :mod:`.numpy_api`), or
            :data:`UNSUPPORTED`.
        positional, keyword: whether it may be passed by position, by keyword.
        variadic: it takes the remaining positional arguments (numpy's
            ``x.reshape(2, 3)``); a single one is passed as it is.
    """

    name: str
    default: Any = REQUIRED
    kind: str = "value"
    positional: bool = True
    keyword: bool = True
    variadic: bool = False


#: ``read(param, expr)``: the value of the argument ``expr`` passed for ``param``
#: (None when it stands for "no value", such as ``axis=None``).
Reader = Callable[[Param, ast.expr], Optional[Value]]

#: ``default(param, at)``: the value of an omitted parameter's default.
Default = Callable[[Param, ast.AST], Value]


class Arguments:
    """The arguments of one call, matched to the parameters and evaluated.

    ``args[name]`` is the value passed for ``name``; for an omitted parameter its
    default, made a constant at the first request, or None when it has none
    (:data:`~.signatures.OPTIONAL`).
    """

    __slots__ = ("_b", "_params", "_values", "_at", "_default")

    def __init__(self, b: GraphBuilder, params: Sequence[Param],
                 values: Dict[str, Optional[Value]], at: ast.AST,
                 default: Optional[Default] = None) -> None:
        self._b = b
        self._params = {p.name: p for p in params}
        self._values = values
        self._at = at
        self._default = default

    def given(self, name: str) -> bool:
        """Whether the call passed an argument for ``name``."""
        return name in self._values

    def __getitem__(self, name: str) -> Optional[Value]:
        if name not in self._values:
            p = self._params[name]
            self._values[name] = None if p.default is OPTIONAL else \
                self._default(p, self._at) if self._default is not None else \
                self._b.const(p.default, self._at)
        return self._values[name]

    def in_order(self) -> List[Optional[Value]]:
        """Every parameter's value, in the signature's order."""
        return [self[name] for name in self._params]


def bind(b: GraphBuilder, params: Sequence[Param], node: ast.Call, what: str, read: Reader,
         receiver: Optional[Value] = None,
         unknown_keyword: str = "{what} has no parameter '{name}'",
         default: Optional[Default] = None) -> Arguments:
    """Match ``node``'s arguments to ``params`` and evaluate them with ``read``.

    ``receiver`` is the value of the first parameter (a method's object), not
    among the call's arguments.  ``what`` names the callable in messages
    (``"np.sum()"``); ``unknown_keyword`` is the message for a keyword that
    matches no parameter; ``default`` makes an omitted parameter's default
    (a constant of it when not given).  Raises :class:`~pyjit.CompileError` for too many
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
    return Arguments(b, params, values, node, default)


def typed_arguments(b: GraphBuilder, params: Sequence[Param], values: Sequence[Value],
                    types: Sequence[T.Type], what: str, at: ast.AST,
                    convert: Callable[[T.Type, T.Type], Optional[Conversion]]) -> List[Value]:
    """``values`` (bound to ``params``, in order) as their parameters' ``types``:
    each converted where it is no subtype and ``convert(actual, declared)`` gives
    the dialect's conversion (a ``Conversion`` node), then checked.  Raises
    :class:`~pyjit.CompileError` naming the argument that does not fit."""
    out: List[Value] = []
    for p, v, want in zip(params, values, types):
        conversion = None if is_subtype(v.type, want) else convert(v.type, want)
        if conversion is not None:
            v = b.emit1(conversion.kind, [v], conversion.type, at)
        if not is_subtype(v.type, want):
            b.src.fail(at, f"argument '{p.name}' of {what} must be {want}, not {v.type}")
        out.append(v)
    return out
