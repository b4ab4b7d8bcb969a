"""The type relation: which types, and which Python values, a place accepts.

Every question of the form "may this go there?" is answered here, and nowhere
else.  The one relation is torch's ``isSubtypeOf`` (:func:`is_subtype`); the other
functions are named variants of it, each for one purpose, each documented by how
it differs:

===========================  =================================================
:func:`is_subtype`           torch's subtyping, exactly (the frontend's checks)
:func:`unify`                the type of a variable joined from two paths
:func:`fits`                 a block hands a value to a node output (the
                             parser's check): any tensor fits any tensor, and
                             classes pyjit does not model fit what they may be
:func:`matches`              an input type against an operator's pattern (the
                             registry): type variables, ``Any``
:func:`check_value`          a Python value against a type, at the boundary
                             where callers hand values to a graph
                             (:func:`value_checker`: the same, made once)
===========================  =================================================

``Scalar`` (torch's ``NumberType``) is ``int``, ``float`` or ``complex``, never
``bool``: torch converts a bool passed where a ``Scalar`` is expected with
``aten::Int`` first, and so do the graphs it prints.
"""

from __future__ import annotations

import enum
import functools
from typing import Any, Callable, Optional, Sequence

import numpy as np

from . import types as T

__all__ = ["is_subtype", "unify", "fits", "matches", "is_type_var", "concreteness",
           "check_value", "value_checker", "ValueMismatch", "describe_value", "is_member_of"]

# Generic types whose parameter is covariant (torch: Future[int] is a
# Future[Scalar]; an RRef[int] is no RRef[Scalar]).
_COVARIANT = {"Future", "Await"}
_NUMBERS = (T.INT, T.FLOAT, T.COMPLEX)


def is_subtype(sub: T.Type, sup: T.Type) -> bool:
    """Whether a value of type ``sub`` may be used where ``sup`` is expected, with
    torch's ``isSubtypeOf`` rules:

    * every type is a subtype of itself and of ``Any``;
    * a refined tensor (``Float(2, 3)``) is a ``Tensor``, not the other way round;
    * ``int``, ``float`` and ``complex`` are ``Scalar`` (:data:`~pyjit.ir.types.NUMBER`);
      ``bool`` is neither a ``Scalar`` nor an ``int``;
    * ``T`` and ``NoneType`` are ``T?``; a union is a subtype of whatever all its
      members are (so ``Union(int, NoneType)`` is ``int?``, and ``int?`` is
      ``Union(int, NoneType, str)``); a type is a subtype of a union if it is a
      subtype of one member;
    * tuples and ``Future``/``Await`` are covariant; lists, dicts and ``RRef`` are
      invariant (``int[]`` is neither ``Scalar[]`` nor ``Any[]``);
    * an enum type (``Enum<__torch__.Color>``) is only itself (and ``Any``).
    """
    if sub == sup or sup == T.ANY:
        return True
    if isinstance(sub, T.UnionType):
        return all(is_subtype(e, sup) for e in sub.elems)
    if isinstance(sub, T.OptionalType):  # T? is Union(T, NoneType)
        return is_subtype(T.NONE, sup) and is_subtype(sub.elem, sup)
    if isinstance(sup, T.OptionalType):
        return sub == T.NONE or is_subtype(sub, sup.elem)
    if isinstance(sup, T.UnionType):
        return any(is_subtype(sub, e) for e in sup.elems)
    if sup == T.TENSOR:
        return isinstance(sub, T.TensorType)
    if sup == T.NUMBER:
        return sub in _NUMBERS
    if isinstance(sup, T.TupleType) and isinstance(sub, T.TupleType):
        return len(sub.elems) == len(sup.elems) and all(
            is_subtype(a, b) for a, b in zip(sub.elems, sup.elems))
    if (isinstance(sup, T.GenericType) and isinstance(sub, T.GenericType)
            and sub.name == sup.name and sup.name in _COVARIANT):
        return len(sub.args) == len(sup.args) and all(
            is_subtype(a, b) for a, b in zip(sub.args, sup.args))
    return False


def unify(a: T.Type, b: T.Type) -> Optional[T.Type]:
    """The type of a variable that is ``a`` on one path and ``b`` on another, or
    None when no type holds both (torch's ``unifyTypes``): equal types, ``None`` and
    ``T`` (giving ``T?``), ``T`` and ``T?``, any two tensors (``Tensor``), and
    element-wise tuples."""
    if a == b:
        return a
    if isinstance(a, T.TensorType) and isinstance(b, T.TensorType):
        return T.TENSOR
    if a == T.NONE:
        return b if isinstance(b, T.OptionalType) else T.OptionalType(b)
    if b == T.NONE:
        return a if isinstance(a, T.OptionalType) else T.OptionalType(a)
    if isinstance(a, T.OptionalType) and is_subtype(b, a):
        return a
    if isinstance(b, T.OptionalType) and is_subtype(a, b):
        return b
    if isinstance(a, T.TupleType) and isinstance(b, T.TupleType) and len(a.elems) == len(b.elems):
        elems = [unify(x, y) for x, y in zip(a.elems, b.elems)]
        if all(e is not None for e in elems):
            return T.TupleType(elems)  # type: ignore[arg-type]
    return None


def fits(sub: T.Type, sup: T.Type) -> bool:
    """Whether a block may hand a value of type ``sub`` to a node output of type
    ``sup``: :func:`is_subtype`, made as lenient as torch's own graphs need.  pyjit
    keeps tensor shapes as text and does not compare them, so any tensor type fits
    any other; named types pyjit does not model (``NamedTuple(...)``, classes) fit
    any tuple or named type; containers compare element by element."""
    if is_subtype(sub, sup):
        return True
    if isinstance(sub, T.TensorType) and isinstance(sup, T.TensorType):
        return True
    if isinstance(sup, T.OptionalType):
        return sub == T.NONE or fits(sub, sup.elem) or (
            isinstance(sub, T.OptionalType) and fits(sub.elem, sup.elem))
    if isinstance(sup, T.UnionType):
        if isinstance(sub, T.UnionType):
            return all(fits(s, sup) for s in sub.elems)
        if isinstance(sub, T.OptionalType):
            return fits(sub.elem, sup) and fits(T.NONE, sup)
        return any(fits(sub, e) for e in sup.elems)
    opaque = (T.NamedType, T.TupleType)
    if isinstance(sub, opaque) and isinstance(sup, opaque) and (
            _is_class(sub) or _is_class(sup)):
        return True
    if type(sub) is type(sup) and isinstance(sub, (T.ListType, T.TupleType, T.DictType,
                                                    T.GenericType)):
        if isinstance(sub, T.GenericType) and sub.name != sup.name:  # type: ignore[attr-defined]
            return False
        a, b = sub.contained(), sup.contained()
        return len(a) == len(b) and all(fits(x, y) for x, y in zip(a, b))
    return False


def _is_class(t: T.Type) -> bool:
    """A named type torch prints for a class or named tuple (``__torch__.M``,
    ``NamedTuple(x : int)``), as opposed to a builtin such as ``int``."""
    return isinstance(t, T.NamedType) and ("." in t.name or t.name.startswith("NamedTuple("))


# -- operator patterns --------------------------------------------------------------

def is_type_var(t: T.Type) -> bool:
    """A lower-case single letter (``t``, ``k``) in an operator pattern: any type."""
    return isinstance(t, T.NamedType) and len(t.name) == 1 and t.name.islower()


def concreteness(t: T.Type) -> int:
    """How specific a pattern is, to rank overloads: 0 for a type variable or
    ``Any``, 1 for ``Scalar``, 2 plus the parts of anything else."""
    if is_type_var(t) or t == T.ANY:
        return 0
    if t == T.NUMBER:
        return 1
    return 2 + sum(concreteness(c) for c in t.contained())


def matches(actual: T.Type, pattern: T.Type) -> bool:
    """Whether a node input of type ``actual`` may be passed to an operator whose
    schema declares ``pattern``: :func:`is_subtype`, where a type variable or
    ``Any`` takes anything, any tensor type is a ``Tensor``, and containers match
    element by element against variables (``t[]`` takes ``int[]``), and
    ``AnyEnumType`` takes any enum type."""
    if is_type_var(pattern) or pattern == T.ANY:
        return True
    if pattern == T.ANY_ENUM:  # torch's AnyEnumType: a member of any enum class
        return isinstance(actual, T.EnumType)
    if isinstance(pattern, T.TensorType):
        return isinstance(actual, T.TensorType)
    if isinstance(pattern, T.OptionalType):
        if actual == T.NONE:
            return True
        if isinstance(actual, T.OptionalType):
            return matches(actual.elem, pattern.elem)
        return matches(actual, pattern.elem)
    if type(pattern) is type(actual) and isinstance(pattern, (T.ListType, T.DictType, T.TupleType,
                                                                  T.GenericType, T.UnionType)):
        pc, ac = pattern.contained(), actual.contained()
        if isinstance(pattern, T.GenericType) and pattern.name != actual.name:  # type: ignore[attr-defined]
            return False
        return len(pc) == len(ac) and all(matches(a, p) for a, p in zip(ac, pc))
    return is_subtype(actual, pattern)


# -- Python values --------------------------------------------------------------------

_INT64_MIN = -2 ** 63
_INT64_MAX = 2 ** 63 - 1


class ValueMismatch(Exception):
    """``value`` does not fit; ``reason`` says more than its type when it can."""

    def __init__(self, reason: str = "") -> None:
        super().__init__(reason)
        self.reason = reason


def describe_value(value: Any) -> str:
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


def check_value(value: Any, t: T.Type) -> Any:
    """``value`` checked against ``t``, converted where a graph needs it: a top-level
    int (or numpy scalar) passed for a ``float`` becomes a float, a numpy integer for
    an ``int`` an int.  Elements of lists and dicts are checked but never converted,
    so the graph gets the caller's own container (and may mutate it, as the
    Python function would).  What each type takes is :func:`value_checker`'s.

    Raises:
        TypeError: ``expected <t>, got <what>`` (the caller names the parameter).
    """
    try:
        return value_checker(t)(value)
    except ValueMismatch as m:
        detail = f" ({m.reason})" if m.reason else ""
        raise TypeError(f"expected {t}, got {describe_value(value)}{detail}") from None


Checker = Callable[[Any], Any]
#: ``named(t)``: the checker of a named type, or None (see :func:`value_checker`).
NamedChecks = Callable[[T.NamedType], Optional[Checker]]


def value_checker(t: T.Type, *, items: bool = True,
                  named: Optional[NamedChecks] = None) -> Checker:
    """A function that returns a value as a graph with an input of type ``t`` gets it
    (converted at the top level only), or raises :class:`ValueMismatch`.  What each
    type takes (torch's conversions from Python):

    * ``int``: a Python int within int64 (not a bool; numpy integers are
      converted); ``float``: a float, or an int or numpy number (converted);
      ``bool``: a bool or ``numpy.bool_``; ``str``; ``NoneType``: None;
      ``Scalar``: an int or a float; ``complex``; a tensor type: a
      ``numpy.ndarray`` (dtype and shape are not checked: pyjit keeps no shapes);
      ``Enum<C>``: a member of the Python ``enum.Enum`` class torch names ``C``;
    * ``T[]``: a list of ``T``; ``(A, B)``: a tuple of that length; ``Dict(K, V)``:
      a dict; ``T?``: None or ``T``; ``Union(...)``: any member; ``Future[T]``:
      a future (``done()`` and ``value()``, as ``pyjit.Future``).  Elements are checked, never converted;
    * anything else (``Any``, ``Device``, classes such as ``__torch__.M``...)
      passes as it is: pyjit has no Python counterpart to check it against.

    Comparing types is slow (they compare structurally), so it happens here, once,
    and not once per element of every argument: keep the checker.

    ``items=False`` checks a container's own class (and a tuple's length) but not
    what it holds: for a value the graph itself reads, as a module's attribute.

    ``named`` gives the checks of the named types a caller knows how to check
    (``named(t)`` for a :class:`~pyjit.ir.types.NamedType`: a checker, or None to
    pass the value as it is): a loaded archive checks its classes' objects, and
    its ``Device`` attributes, this way (:mod:`pyjit.archive.records`).
    """
    if not items:
        shallow = _container_checker(t)
        if shallow is not None:
            return shallow
    return _checker(t, True, named)


def _container_checker(t: T.Type) -> Optional[Checker]:
    """The check of ``t``'s own class only, for a list, tuple, dict (or an optional
    one); None for any other type."""
    if isinstance(t, T.OptionalType):
        inner = _container_checker(t.elem)
        return None if inner is None else _optional(inner)
    if isinstance(t, T.ListType):
        return _instance(list)
    if isinstance(t, T.DictType):
        return _instance(dict)
    if isinstance(t, T.TupleType):
        n = len(t.elems)

        def check(value: Any) -> Any:
            if not isinstance(value, tuple) or len(value) != n:
                raise ValueMismatch
            return value
        return check
    return None


# A checker returns the value as the run gets it, or raises ValueMismatch.  ``convert``
# is False inside containers, whose elements are never replaced.


def _accept(value: Any) -> Any:
    return value


def _mismatch(value: Any) -> Any:
    raise ValueMismatch


def _out_of_int64(value: int) -> ValueMismatch:
    return ValueMismatch(f"{value} is outside int64")


def _is_int(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _check_int(value: Any) -> int:
    if value.__class__ is int:
        if _INT64_MIN <= value <= _INT64_MAX:
            return value
        raise _out_of_int64(value)
    raise ValueMismatch


def _convert_int(value: Any) -> int:
    if value.__class__ is not int and _is_int(value):
        value = int(value)
    return _check_int(value)


def _convert_float(value: Any) -> float:
    if value.__class__ is float:
        return value
    if _is_int(value) or isinstance(value, np.floating):
        return float(value)
    raise ValueMismatch


def _convert_bool(value: Any) -> bool:
    if value.__class__ is bool:
        return value
    if isinstance(value, np.bool_):
        return bool(value)
    raise ValueMismatch


def _exact(cls: type) -> Checker:
    def check(value: Any) -> Any:
        if value.__class__ is cls:
            return value
        raise ValueMismatch
    return check


def _instance(cls: type) -> Checker:
    def check(value: Any) -> Any:
        if isinstance(value, cls):
            return value
        raise ValueMismatch
    return check


def _check_none(value: Any) -> None:
    if value is None:
        return None
    raise ValueMismatch


def _check_number(value: Any, convert: bool) -> Any:
    if value.__class__ is float:
        return value
    if value.__class__ is int or (convert and _is_int(value)):
        return _check_int(int(value))
    if convert and isinstance(value, np.floating):
        return float(value)
    raise ValueMismatch


def _list_of(elem: T.Type, named: Optional[NamedChecks] = None) -> Checker:
    """A list of ``elem``: lists of scalars by an exact class test per element
    (faster than ``set(map(type, ...))`` on CPython 3.11), the rest by the
    element's checker."""
    if elem == T.INT:
        def check_ints(value: Any) -> Any:
            if not isinstance(value, list):
                raise ValueMismatch
            for v in value:
                if v.__class__ is not int:
                    raise ValueMismatch
                if not _INT64_MIN <= v <= _INT64_MAX:
                    raise _out_of_int64(v)
            return value
        return check_ints
    exact = {T.FLOAT: float, T.BOOL: bool}.get(elem)
    if exact is not None:
        def check_exact(value: Any) -> Any:
            if not isinstance(value, list):
                raise ValueMismatch
            for v in value:
                if v.__class__ is not exact:
                    raise ValueMismatch
            return value
        return check_exact
    each = _checker(elem, False, named)

    def check_each(value: Any) -> Any:
        if not isinstance(value, list):
            raise ValueMismatch
        if each is not _accept:
            for v in value:
                each(v)
        return value
    return check_each


def _tuple_of(elems: Sequence[T.Type], convert: bool,
              named: Optional[NamedChecks] = None) -> Checker:
    each = [_checker(e, convert, named) for e in elems]
    n = len(each)

    def check(value: Any) -> Any:
        if not isinstance(value, tuple) or len(value) != n:
            raise ValueMismatch
        return tuple(c(v) for c, v in zip(each, value))
    return check


def _dict_of(key: T.Type, val: T.Type, named: Optional[NamedChecks] = None) -> Checker:
    check_key, check_value = _checker(key, False, named), _checker(val, False, named)

    def check(value: Any) -> Any:
        if not isinstance(value, dict):
            raise ValueMismatch
        for k, v in value.items():
            check_key(k)
            check_value(v)
        return value
    return check


def _union_of(members: Sequence[T.Type], convert: bool,
              named: Optional[NamedChecks] = None) -> Checker:
    """The first member that takes the value as it is, else the first that takes
    it converted (an int for ``Union(str, float)`` becomes a float)."""
    passes = [[_checker(m, False, named) for m in members]]
    if convert:
        passes.append([_checker(m, True, named) for m in members])

    def check(value: Any) -> Any:
        reason = ""
        for checkers in passes:
            for c in checkers:
                try:
                    return c(value)
                except ValueMismatch as m:
                    reason = reason or m.reason
        raise ValueMismatch(reason)
    return check


def is_member_of(value: Any, t: T.EnumType) -> bool:
    """Whether ``value`` is a member of the enum class of type ``t``: a Python
    ``enum.Enum`` member whose class torch names ``t.name``
    (:func:`~pyjit.ir.types.class_type_name`)."""
    return isinstance(value, enum.Enum) and T.class_type_name(type(value)) == t.name


def _enum_member(t: T.EnumType) -> Checker:
    def check(value: Any) -> Any:
        if is_member_of(value, t):
            return value
        raise ValueMismatch
    return check


def _future_like(value: Any) -> Any:
    if callable(getattr(value, "done", None)) and callable(getattr(value, "value", None)):
        return value
    raise ValueMismatch


def _optional(inner: Checker) -> Checker:
    def check(value: Any) -> Any:
        return None if value is None else inner(value)
    return check


def _checker(t: T.Type, convert: bool, named: Optional[NamedChecks] = None) -> Checker:
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
        inner = _checker(t.elem, convert, named)
        return _accept if inner is _accept else _optional(inner)
    if isinstance(t, T.ListType):
        return _list_of(t.elem, named)
    if isinstance(t, T.TupleType):
        return _tuple_of(t.elems, convert, named)
    if isinstance(t, T.DictType):
        return _dict_of(t.key, t.value, named)
    if isinstance(t, T.UnionType):
        return _union_of(t.elems, convert, named)
    if t == T.NUMBER:
        return functools.partial(_check_number, convert=convert)
    if t == T.COMPLEX:
        return _instance(complex)
    if isinstance(t, T.EnumType):
        return _enum_member(t)
    if isinstance(t, T.GenericType) and t.name == "Future":
        return _future_like  # the IR knows no runtime class: what aten::wait calls
    if named is not None and isinstance(t, T.NamedType):
        check = named(t)
        if check is not None:
            return check
    return _accept  # Any, and types pyjit cannot check (Device, classes...)
