"""The call boundary: the values a caller passes, checked against a graph's
parameter types before the graph runs.

A graph's operators were chosen for its declared types when its Code was built
(``aten::add(int, int)`` is int64 addition), so a run must only ever see values
of those types: an ``int`` parameter given ``'a'`` would otherwise return
``'aa'``, and given ``3.5`` print ``3``.  :class:`Signature` checks each argument
once per call, as torch does when Python calls a scripted function::

    sig = Signature.of_graph(graph)        # graph(%n : int, %xs : float[]) -> float
    sig.check(3, [1.5])                    # [3, [1.5]]: what the run's stack gets
    sig.check(3.5, [1.5])
    # TypeError: graph() Expected a value of type 'int' for argument '%n' but
    #            instead found type 'float' (3.5)

Who checks what:

==========================  ============================================================
``Function(graph)(...)``    arity and every argument (the graph's input names)
``@pyjit.script`` calls     the same check, naming the Python parameters
``pyjit run``               the same check, via ``Function``
``InterpreterState.run``    nothing: its contract is the seed's raw stack, the
                            inputs as the caller pushed them (the run's LOAD
                            counts them); check first with ``Signature.check``
==========================  ============================================================

What a type accepts (torch's conversions from Python: an int for a ``float``
becomes a float, an int must fit in int64...) is
:func:`pyjit.ir.type_relation.value_checker`'s, the one definition the frontend
uses too.

The check is cheap where it matters: :class:`Signature` compiles one small
function per signature whose fast path is one class test per argument
(``x.__class__ is int`` and a range test for an int); containers and anything
unusual take the general path, the type's ``value_checker``.
"""

from __future__ import annotations

import reprlib
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from .ir import types as T
from .ir.type_relation import ValueMismatch, describe_value, value_checker

__all__ = ["Signature"]

_INT64_MIN = -2 ** 63
_INT64_MAX = 2 ** 63 - 1
_short = reprlib.Repr()
_short.maxstring = _short.maxother = 40
_short.maxlist = _short.maxtuple = _short.maxdict = 6


def _shown(value: Any) -> str:
    """The value itself, short and on one line, for error messages."""
    if isinstance(value, np.ndarray):
        return f"shape {list(value.shape)}"
    return _short.repr(value).replace("\n", " ")


# -- the compiled fast path -------------------------------------------------------------

def _needs_slow_path(t: T.Type, a: str) -> Optional[str]:
    """A Python condition on the argument named ``a`` that is false exactly when the
    fast path may pass it unchanged; None when the type accepts anything."""
    if t == T.INT:
        return f"{a}.__class__ is not int or not {_INT64_MIN} <= {a} <= {_INT64_MAX}"
    exact = {T.FLOAT: "float", T.BOOL: "bool", T.STR: "str"}.get(t)
    if exact is not None:
        return f"{a}.__class__ is not {exact}"
    if isinstance(t, T.TensorType):
        return f"{a}.__class__ is not _ndarray"
    if t == T.NONE:
        return f"{a} is not None"
    if isinstance(t, T.OptionalType):
        inner = _needs_slow_path(t.elem, a)
        return None if inner is None else f"{a} is not None and ({inner})"
    if t == T.ANY or (isinstance(t, T.NamedType) and t not in (T.NUMBER, T.COMPLEX)):
        return None
    return "True"  # containers, unions...: the general path every time


#: A parameter that :meth:`Signature.bind` has no value for yet.
_MISSING = object()


class Signature:
    """The parameters of a graph (or a scripted function) as a caller sees them.

    Args:
        name: what error messages call the callee (``graph``, a function's name).
        names: one name per parameter (``%x`` for a graph input, ``x`` for a Python
            parameter).
        types: one :class:`~pyjit.ir.types.Type` per parameter.
        returns: the result's type as the declaration prints it (``int``, ``(int, str)``).

    ``check(*args)`` returns the run's inputs as a new list, or raises ``TypeError``
    naming the parameter, its type and what was given; :meth:`arity_error` is the
    error for a wrong number of arguments.
    """

    __slots__ = ("name", "names", "types", "returns", "check", "_checkers")

    def __init__(self, name: str, names: Sequence[str], types: Sequence[T.Type],
                 returns: str) -> None:
        if len(names) != len(types):
            raise ValueError(f"{len(names)} parameter names for {len(types)} types")
        self.name = name
        self.names = tuple(names)
        self.types = tuple(types)
        self.returns = returns
        self._checkers = tuple(value_checker(t) for t in self.types)
        self.check: Callable[..., List[Any]] = self._compile()

    @classmethod
    def of_graph(cls, graph, name: str = "graph") -> "Signature":
        """The signature of ``graph``: its inputs, named by their debug names."""
        return cls._of([v.debug_name for v in graph.inputs], [v.type for v in graph.inputs],
                       [v.type for v in graph.outputs], name)

    @classmethod
    def of_code(cls, code, name: str = "graph") -> "Signature":
        """The signature of the graph a :class:`~pyjit.code.Code` was built from."""
        return cls._of(code.input_names, code.input_types, code.output_types, name)

    @classmethod
    def _of(cls, names, types, outputs, name: str) -> "Signature":
        outs = [str(t) for t in outputs]
        returns = outs[0] if len(outs) == 1 else "(" + ", ".join(outs) + ")"
        return cls(name, [f"%{n}" for n in names], types, returns)

    def _compile(self) -> Callable[..., List[Any]]:
        """``def check(a0, a1, ...)``: one guard per parameter, then the list.

        Generated once per signature (as ``collections.namedtuple`` and
        ``dataclasses`` generate their methods): a call of a Python closure per
        argument would cost more than running a small graph."""
        args = [f"a{i}" for i in range(len(self.types))]
        lines = [f"def check({', '.join(args)}):"]
        for i, (a, t) in enumerate(zip(args, self.types)):
            cond = _needs_slow_path(t, a)
            if cond is not None:
                lines.append(f"    if {cond}: {a} = _slow({i}, {a})")
        lines.append(f"    return [{', '.join(args)}]")
        namespace = {"_ndarray": np.ndarray, "_slow": self._slow}
        exec("\n".join(lines), namespace)  # noqa: S102 - our own text, see above
        return namespace["check"]

    def _slow(self, i: int, value: Any) -> Any:
        try:
            return self._checkers[i](value)
        except ValueMismatch as m:
            raise TypeError(self.type_message(i, value, m.reason)) from None

    def type_message(self, i: int, value: Any, reason: str = "") -> str:
        """torch's words for a wrong argument, and what was given."""
        return (f"{self.name}() Expected a value of type '{self.types[i]}' for argument "
                f"'{self.names[i]}' but instead found type '{describe_value(value)}' "
                f"({reason or _shown(value)})")

    def declaration(self) -> str:
        """``graph(%n : int, %xs : float[]) -> float``."""
        params = ", ".join(f"{n} : {t}" for n, t in zip(self.names, self.types))
        return f"{self.name}({params}) -> {self.returns}"

    def bind(self, args: Sequence[Any], kwargs: Dict[str, Any]) -> Tuple[Any, ...]:
        """``args`` then ``kwargs`` as one positional tuple, in the parameters'
        order.  A keyword is a parameter's name without its ``%``: a graph input
        ``%x.1`` is ``x.1``, or ``x`` where no other input's name is ``x`` with a
        ``.N`` suffix (the Python name torch's frontend numbered).  An unknown
        keyword, one naming a parameter given already, or a parameter left out
        is a ``TypeError`` in torch's words."""
        names = [name.lstrip("%") for name in self.names]
        index = {name: i for i, name in enumerate(names)}
        bases: Dict[str, List[int]] = {}
        for i, name in enumerate(names):
            base, dot, suffix = name.rpartition(".")
            if dot and base and suffix.isdigit():
                bases.setdefault(base, []).append(i)
        for base, found in bases.items():
            if len(found) == 1 and base not in index:
                index[base] = found[0]
        if len(args) > len(names):
            raise self.arity_error(len(args) + len(kwargs))
        bound: List[Any] = list(args) + [_MISSING] * (len(names) - len(args))
        for key, value in kwargs.items():
            i = index.get(key)
            if i is None:
                raise TypeError(f"{self.name}() got an unexpected keyword argument {key!r}. "
                                f"Declaration: {self.declaration()}")
            if bound[i] is not _MISSING:
                raise TypeError(f"{self.name}() got multiple values for argument "
                                f"'{self.names[i]}'. Declaration: {self.declaration()}")
            bound[i] = value
        missing = [self.names[i] for i, v in enumerate(bound) if v is _MISSING]
        if missing:
            raise self._missing_error(missing)
        return tuple(bound)

    def arity_error(self, given: int) -> TypeError:
        """The error for a call with ``given`` arguments (torch's words)."""
        n = len(self.types)
        if given < n:
            return self._missing_error(self.names[given:])
        return TypeError(f"{self.name}() expected at most {n} argument(s) but received "
                         f"{given} argument(s). Declaration: {self.declaration()}")

    def _missing_error(self, names: Sequence[str]) -> TypeError:
        what = "argument" if len(names) == 1 else "arguments"
        listed = ", ".join(f"'{name}'" for name in names)
        return TypeError(f"{self.name}() is missing value for {what} {listed}. "
                         f"Declaration: {self.declaration()}")

    def __repr__(self) -> str:
        return f"<pyjit Signature {self.declaration()}>"
