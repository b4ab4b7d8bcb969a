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
===========================  =================================================

``Scalar`` (torch's ``NumberType``) is ``int``, ``float`` or ``complex``, never
``bool``: torch converts a bool passed where a ``Scalar`` is expected with
``aten::Int`` first, and so do the graphs it prints.
"""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from . import types as T

__all__ = ["is_subtype", "unify", "fits", "matches", "is_type_var", "concreteness",
           "check_value", "exact_type", "describe_value"]

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
      invariant (``int[]`` is neither ``Scalar[]`` nor ``Any[]``).
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
    element by element against variables (``t[]`` takes ``int[]``)."""
    if is_type_var(pattern) or pattern == T.ANY:
        return True
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

class _Mismatch(Exception):
    pass


def check_value(value: Any, t: T.Type) -> Any:
    """``value`` checked against ``t``, converted where a graph needs it: a top-level
    int (or numpy scalar) passed for a ``float`` becomes a float, a numpy integer for
    an ``int`` an int.  Elements of lists and dicts are checked but never converted,
    so the graph gets the caller's own container (and may mutate it, as the
    Python function would).

    Raises:
        TypeError: ``expected <t>, got <what>`` (the caller names the parameter).
    """
    try:
        return _check(value, t, True)
    except _Mismatch:
        raise TypeError(f"expected {t}, got {describe_value(value)}") from None


def exact_type(t: T.Type) -> Optional[type]:
    """The Python class whose exact instances :func:`check_value` passes unchanged
    for ``t`` (``int`` for ``int``, ``numpy.ndarray`` for a tensor), or None where
    there is none to test by identity: callers check ``type(v) is exact_type(t)``
    first, and call :func:`check_value` only when that fails."""
    if isinstance(t, T.TensorType):
        return np.ndarray
    return _EXACT.get(t)


_EXACT = {T.INT: int, T.FLOAT: float, T.BOOL: bool, T.STR: str, T.NONE: type(None)}


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


def _is_int(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _check(value: Any, t: T.Type, convert: bool) -> Any:
    if t == T.INT:
        if type(value) is int:
            return value
        if convert and _is_int(value):
            return int(value)
        raise _Mismatch
    if t == T.FLOAT:
        if type(value) is float:
            return value
        if convert and (_is_int(value) or isinstance(value, np.floating)):
            return float(value)
        raise _Mismatch
    if t == T.BOOL:
        if type(value) is bool:
            return value
        if convert and isinstance(value, np.bool_):
            return bool(value)
        raise _Mismatch
    if t == T.STR:
        if isinstance(value, str):
            return value
        raise _Mismatch
    if t == T.NONE:
        if value is None:
            return None
        raise _Mismatch
    if isinstance(t, T.TensorType):
        if isinstance(value, np.ndarray):
            return value
        raise _Mismatch
    if isinstance(t, T.OptionalType):
        return None if value is None else _check(value, t.elem, convert)
    if isinstance(t, T.ListType):
        if not isinstance(value, list):
            raise _Mismatch
        for v in value:
            _check(v, t.elem, False)
        return value
    if isinstance(t, T.TupleType):
        if not isinstance(value, tuple) or len(value) != len(t.elems):
            raise _Mismatch
        return tuple(_check(v, e, convert) for v, e in zip(value, t.elems))
    if isinstance(t, T.DictType):
        if not isinstance(value, dict):
            raise _Mismatch
        for k, v in value.items():
            _check(k, t.key, False)
            _check(v, t.value, False)
        return value
    if t == T.ANY:
        return value
    raise _Mismatch
