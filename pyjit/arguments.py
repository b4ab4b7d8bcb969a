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

What a type accepts (torch's conversions from Python):

* ``int``: a Python int within int64 (not a bool; numpy integers are converted),
  ``float``: a float, or an int or numpy number (converted), ``bool``: a bool or
  ``numpy.bool_``, ``str``, ``NoneType``: None, ``Scalar``: an int or a float,
  ``complex``; a tensor type: a ``numpy.ndarray`` (its dtype and shape are not
  checked, as pyjit does not keep shapes);
* ``T[]``: a list whose elements are ``T``; ``(A, B)``: a tuple of that length;
  ``Dict(K, V)``: a dict; ``T?``: None or ``T``; ``Union(...)``: any member;
  ``Future[T]``: a :class:`pyjit.Future`.  Elements are checked, never converted:
  the graph gets the caller's own list and may change it, as Python would;
* anything else (``Any``, ``Device``, classes such as ``__torch__.M``...) is
  passed as it is: pyjit has no Python counterpart to check it against.

The check is cheap where it matters: :class:`Signature` compiles one small
function per signature whose fast path is one class test per argument
(``x.__class__ is int`` and a range test for an int); containers and anything
unusual take the general path below.
"""

from __future__ import annotations

import functools
import reprlib
from typing import Any, Callable, List, Optional, Sequence

import numpy as np

from .ir import types as T

__all__ = ["Signature", "check_argument", "describe_python_type"]

_INT64_MIN = -2 ** 63
_INT64_MAX = 2 ** 63 - 1
_COMPLEX = T.NamedType("complex")
_short = reprlib.Repr()
_short.maxstring = _short.maxother = 40
_short.maxlist = _short.maxtuple = _short.maxdict = 6


class _Mismatch(Exception):
    """``value`` does not fit; ``reason`` says more than its type when it can."""

    def __init__(self, reason: str = "") -> None:
        super().__init__(reason)
        self.reason = reason


def describe_python_type(value: Any) -> str:
    """A short description of a Python value's type for error messages
    (``list[int]`` rather than ``list``)."""
    if isinstance(value, list):
        inner = sorted({type(v).__name__ for v in value})
        return f"list[{' | '.join(inner)}]" if inner else "list (empty)"
    if isinstance(value, tuple):
        return "tuple[" + ", ".join(type(v).__name__ for v in value) + "]"
    if isinstance(value, np.ndarray):
        return f"numpy.ndarray of {value.dtype}"
    return type(value).__name__


def _shown(value: Any) -> str:
    """The value itself, short and on one line, for error messages."""
    if isinstance(value, np.ndarray):
        return f"shape {list(value.shape)}"
    return _short.repr(value).replace("\n", " ")


def check_argument(value: Any, t: T.Type) -> Any:
    """``value`` checked against ``t``, converted where the graph needs it (see the
    module docstring): a top-level int passed for a ``float`` becomes a float, a
    numpy integer for an ``int`` an int.

    Raises ``TypeError`` (``expected T, got list[str]``; the caller names the
    parameter).
    """
    try:
        return _checker(t, True)(value)
    except _Mismatch as m:
        detail = f" ({m.reason})" if m.reason else ""
        raise TypeError(f"expected {t}, got {describe_python_type(value)}{detail}") from None


# -- the general path: one checker per type, made once ------------------------------------
#
# A checker returns the value as the run gets it, or raises _Mismatch.  ``convert``
# is False inside containers, whose elements are never replaced.  Comparing types
# is slow (they compare structurally), so it happens here, once per signature, not
# once per element of every argument.

Checker = Callable[[Any], Any]


def _accept(value: Any) -> Any:
    return value


def _mismatch(value: Any) -> Any:
    raise _Mismatch


def _out_of_int64(value: int) -> _Mismatch:
    return _Mismatch(f"{value} is outside int64")


def _is_int(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _check_int(value: Any) -> int:
    if value.__class__ is int:
        if _INT64_MIN <= value <= _INT64_MAX:
            return value
        raise _out_of_int64(value)
    raise _Mismatch


def _convert_int(value: Any) -> int:
    if value.__class__ is not int and _is_int(value):
        value = int(value)
    return _check_int(value)


def _convert_float(value: Any) -> float:
    if value.__class__ is float:
        return value
    if _is_int(value) or isinstance(value, np.floating):
        return float(value)
    raise _Mismatch


def _convert_bool(value: Any) -> bool:
    if value.__class__ is bool:
        return value
    if isinstance(value, np.bool_):
        return bool(value)
    raise _Mismatch


def _exact(cls: type) -> Checker:
    def check(value: Any) -> Any:
        if value.__class__ is cls:
            return value
        raise _Mismatch
    return check


def _instance(cls: type) -> Checker:
    def check(value: Any) -> Any:
        if isinstance(value, cls):
            return value
        raise _Mismatch
    return check


def _check_none(value: Any) -> None:
    if value is None:
        return None
    raise _Mismatch


def _check_number(value: Any, convert: bool) -> Any:
    if value.__class__ is float:
        return value
    if value.__class__ is int or (convert and _is_int(value)):
        return _check_int(int(value))
    if convert and isinstance(value, np.floating):
        return float(value)
    raise _Mismatch


def _list_of(elem: T.Type) -> Checker:
    """A list of ``elem``.  Lists of scalars are checked by C loops (``map``,
    ``min``/``max``), the rest element by element."""
    scalar = {T.INT: int, T.FLOAT: float, T.BOOL: bool, T.STR: str}.get(elem)
    if scalar is not None:
        only = {scalar}

        def check(value: Any) -> Any:
            if not isinstance(value, list):
                raise _Mismatch
            if value and set(map(type, value)) != only:
                raise _Mismatch
            if scalar is int and value and (min(value) < _INT64_MIN or max(value) > _INT64_MAX):
                raise _out_of_int64(next(v for v in value
                                         if not _INT64_MIN <= v <= _INT64_MAX))
            return value
        return check
    each = _checker(elem, False)

    def check_each(value: Any) -> Any:
        if not isinstance(value, list):
            raise _Mismatch
        if each is not _accept:
            for v in value:
                each(v)
        return value
    return check_each


def _tuple_of(elems: Sequence[T.Type], convert: bool) -> Checker:
    each = [_checker(e, convert) for e in elems]
    n = len(each)

    def check(value: Any) -> Any:
        if not isinstance(value, tuple) or len(value) != n:
            raise _Mismatch
        return tuple(c(v) for c, v in zip(each, value))
    return check


def _dict_of(key: T.Type, val: T.Type) -> Checker:
    check_key, check_value = _checker(key, False), _checker(val, False)

    def check(value: Any) -> Any:
        if not isinstance(value, dict):
            raise _Mismatch
        for k, v in value.items():
            check_key(k)
            check_value(v)
        return value
    return check


def _union_of(members: Sequence[T.Type], convert: bool) -> Checker:
    """The first member that takes the value as it is, else the first that takes
    it converted (an int for ``Union(str, float)`` becomes a float)."""
    passes = [[_checker(m, False) for m in members]]
    if convert:
        passes.append([_checker(m, True) for m in members])

    def check(value: Any) -> Any:
        reason = ""
        for checkers in passes:
            for c in checkers:
                try:
                    return c(value)
                except _Mismatch as m:
                    reason = reason or m.reason
        raise _Mismatch(reason)
    return check


def _optional(inner: Checker) -> Checker:
    def check(value: Any) -> Any:
        return None if value is None else inner(value)
    return check


def _checker(t: T.Type, convert: bool) -> Checker:
    """The checker of type ``t`` (see the module docstring for what each takes)."""
    if t == T.INT:
        return _convert_int if convert else _check_int
    if t == T.FLOAT:
        return _convert_float if convert else _exact(float)
    if t == T.BOOL:
        return _convert_bool if convert else _exact(bool)
    if t == T.STR:
        return _instance(str)
    if t == T.NONE:
        return _check_none
    if isinstance(t, T.TensorType):
        return _instance(np.ndarray)
    if isinstance(t, T.OptionalType):
        inner = _checker(t.elem, convert)
        return _accept if inner is _accept else _optional(inner)
    if isinstance(t, T.ListType):
        return _list_of(t.elem)
    if isinstance(t, T.TupleType):
        return _tuple_of(t.elems, convert)
    if isinstance(t, T.DictType):
        return _dict_of(t.key, t.value)
    if isinstance(t, T.UnionType):
        return _union_of(t.elems, convert)
    if t == T.NUMBER:
        return functools.partial(_check_number, convert=convert)
    if t == _COMPLEX:
        return _instance(complex)
    if isinstance(t, T.GenericType) and t.name == "Future":
        from .futures import Future
        return _instance(Future)
    return _accept  # Any, and types pyjit cannot check (Device, classes...)


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
    if t == T.ANY or (isinstance(t, T.NamedType) and t not in (T.NUMBER, _COMPLEX)):
        return None
    return "True"  # containers, unions...: the general path every time


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
        self._checkers = tuple(_checker(t, True) for t in self.types)
        self.check: Callable[..., List[Any]] = self._compile()

    @classmethod
    def of_graph(cls, graph, name: str = "graph") -> "Signature":
        """The signature of ``graph``: its inputs, named by their debug names."""
        outs = [str(v.type) for v in graph.outputs]
        returns = outs[0] if len(outs) == 1 else "(" + ", ".join(outs) + ")"
        return cls(name, [f"%{v.debug_name}" for v in graph.inputs],
                   [v.type for v in graph.inputs], returns)

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
        except _Mismatch as m:
            raise TypeError(self.type_message(i, value, m.reason)) from None

    def type_message(self, i: int, value: Any, reason: str = "") -> str:
        """torch's words for a wrong argument, and what was given."""
        return (f"{self.name}() Expected a value of type '{self.types[i]}' for argument "
                f"'{self.names[i]}' but instead found type '{describe_python_type(value)}' "
                f"({reason or _shown(value)})")

    def declaration(self) -> str:
        """``graph(%n : int, %xs : float[]) -> float``."""
        params = ", ".join(f"{n} : {t}" for n, t in zip(self.names, self.types))
        return f"{self.name}({params}) -> {self.returns}"

    def arity_error(self, given: int) -> TypeError:
        """The error for a call with ``given`` arguments (torch's words)."""
        n = len(self.types)
        if given < n:
            missing = ", ".join(f"'{name}'" for name in self.names[given:])
            what = "argument" if n - given == 1 else "arguments"
            text = f"{self.name}() is missing value for {what} {missing}"
        else:
            text = (f"{self.name}() expected at most {n} argument(s) but received {given} "
                    "argument(s)")
        return TypeError(f"{text}. Declaration: {self.declaration()}")

    def __repr__(self) -> str:
        return f"<pyjit Signature {self.declaration()}>"
