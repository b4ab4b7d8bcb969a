"""The type relation: which types, and which Python values, a place accepts.

Every question of the form "may this go there?" is answered here, and nowhere
else.  The one relation is torch's ``isSubtypeOf`` (:func:`is_subtype`); the other
functions are named variants of it, each for one purpose, each documented by how
it differs:

============================  ================================================
:func:`is_subtype`            torch's subtyping, exactly (the frontend's checks)
:func:`unify`                 the type of a variable joined from two paths, and
                              of a type variable bound twice
:func:`fits`                  a block hands a value to a node output (the
                              parser's check): any tensor fits any tensor, and
                              classes pyjit does not model fit what they may be
:func:`match_argument`        an argument against a declared parameter type:
                              type variables bound (:func:`bind`,
                              :func:`substitute`), then :func:`accepts`, then,
                              if asked, torch's :data:`CONVERSIONS`.  The
                              registry (:func:`matches`), the archive's choice
                              among torch's schemas and the frontend's returns
:func:`implicit_conversion`   the one table of conversions torch inserts
                              (``bool`` for ``int`` is ``aten::Int``; ``int``
                              for ``float`` is none of them)
:func:`widens`                ``int`` read as ``float``: the run time's
                              widening (arguments from Python, intrinsics)
:func:`check_value`           a Python value against a type, at the boundary
                              where callers hand values to a graph
                              (:func:`value_checker`: the same, made once)
:func:`instance_check`        ``prim::isinstance``: the same check of values,
                              without conversions
============================  ================================================

``Scalar`` (torch's ``NumberType``) is ``int``, ``float`` or ``complex``, never
``bool``, for types and for values: torch passes a bool where a ``Scalar`` is
declared through ``aten::Int`` (:data:`CONVERSIONS`), and its
``prim::isinstance[types=[Scalar]]`` is False for ``True`` (torch 2.14; pinned
in ``tests/test_types.py``).
"""

from __future__ import annotations

import enum
import functools
import re
from typing import Any, Callable, Dict, NamedTuple, Optional, Sequence, Tuple

import numpy as np

from . import types as T

__all__ = ["is_subtype", "unify", "fits", "matches", "accepts", "is_type_var", "has_type_vars",
           "concreteness", "bind", "substitute", "Bindings", "match_argument", "NO_MATCH",
           "Conversion", "CONVERSIONS", "implicit_conversion", "widens",
           "check_value", "value_checker", "ValueMismatch", "describe_value", "is_member_of",
           "instance_check", "TENSOR_VALUES"]

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
    None when no type holds both (torch's ``unifyTypes``, without its unions):
    the wider of two types one of which is a subtype of the other (``int`` and
    ``int?`` give ``int?``, ``int`` and ``Any`` give ``Any``), any two tensors
    (``Tensor``), ``None`` and ``T`` (``T?``), ``T?`` and what unifies with ``T``,
    element-wise tuples and ``Future`` types, and containers equal but for the
    shapes of their tensors (``Tensor[]``).  ``int`` and ``float`` do not unify:
    torch does not join them into ``Scalar``."""
    if a == b or is_subtype(b, a):
        return a
    if is_subtype(a, b):
        return b
    if isinstance(a, T.TensorType) and isinstance(b, T.TensorType):
        return T.TENSOR
    if a == T.NONE:
        return T.OptionalType(b)
    if b == T.NONE:
        return T.OptionalType(a)
    for opt, other in ((a, b), (b, a)):
        if isinstance(opt, T.OptionalType):
            elem = unify(opt.elem, other)
            return None if elem is None else T.OptionalType(elem)
    if isinstance(a, T.TupleType) and isinstance(b, T.TupleType) and len(a.elems) == len(b.elems):
        elems = [unify(x, y) for x, y in zip(a.elems, b.elems)]
        if all(e is not None for e in elems):
            return T.TupleType(elems)  # type: ignore[arg-type]
        return None
    if (isinstance(a, T.GenericType) and isinstance(b, T.GenericType)
            and a.name == b.name == "Future"):
        elem = unify(a.args[0], b.args[0])
        return None if elem is None else T.FutureType(elem)
    ua, ub = _unshaped(a), _unshaped(b)
    if is_subtype(ua, ub):
        return ub
    if is_subtype(ub, ua):
        return ua
    return None


def _unshaped(t: T.Type) -> T.Type:
    """``t`` with every refined tensor type inside it made ``Tensor`` (torch's
    ``unshapedType``)."""
    if isinstance(t, T.TensorType):
        return T.TENSOR
    if not t.contained():
        return t
    return _rebuild(t, [_unshaped(c) for c in t.contained()])


def _rebuild(t: T.Type, parts: Sequence[T.Type]) -> T.Type:
    """A type of ``t``'s kind made of ``parts`` instead of ``t.contained()``."""
    if isinstance(t, T.ListType):
        return T.ListType(parts[0])
    if isinstance(t, T.OptionalType):
        return T.OptionalType(parts[0])
    if isinstance(t, T.DictType):
        return T.DictType(parts[0], parts[1])
    if isinstance(t, T.TupleType):
        return T.TupleType(parts)
    if isinstance(t, T.UnionType):
        return T.UnionType(parts)
    if isinstance(t, T.GenericType):
        return T.GenericType(t.name, parts)
    return t


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


# -- operator patterns: type variables -------------------------------------------------

_TYPE_VAR = re.compile(r"[a-z]\d?|[a-z]+[A-Z]\w*")

#: What the type variables of one call's pattern are bound to so far, by name.
Bindings = Dict[str, T.Type]


def is_type_var(t: T.Type) -> bool:
    """A type variable of an operator pattern or schema: a lower-case letter,
    perhaps with a digit (``t``, ``k``, ``t1``), or a camel-case name that starts
    lower-case (``tVal``, of ``aten::dict.str((str, tVal)[] inputs)``, the
    ``OrderedDict(pairs)`` of torchvision's FeaturePyramidNetwork); it stands for
    one type per call.  torch's schema parser takes any lower-case name that is not
    a builtin type for a variable; no builtin (``int``, ``str``...) is camel-case."""
    return isinstance(t, T.NamedType) and _TYPE_VAR.fullmatch(t.name) is not None


def has_type_vars(t: T.Type) -> bool:
    """Whether ``t`` is or contains a type variable (``t``, ``Dict(k, v)``, ``Future(t)``)."""
    return is_type_var(t) or any(has_type_vars(c) for c in t.contained())


def concreteness(t: T.Type) -> int:
    """How specific a pattern is, to rank overloads: 0 for a type variable or
    ``Any``, 1 for ``Scalar``, 2 plus the parts of anything else."""
    if is_type_var(t) or t == T.ANY:
        return 0
    if t == T.NUMBER:
        return 1
    return 2 + sum(concreteness(c) for c in t.contained())


def bind(pattern: T.Type, actual: T.Type, env: Bindings) -> bool:
    """Bind the type variables of ``pattern`` to the parts of ``actual`` that stand
    where they do, in ``env``; False if a variable already bound does not unify
    with its new part (torch's ``matchTypeVariables``).  A variable bound twice is
    bound to the :func:`unify` of the two (``t`` is ``Tensor`` for two tensors of
    other shapes, ``int?`` for ``int`` and ``None``); ``int`` and ``float`` do not
    unify, so ``aten::add(t[], t[])`` does not take ``int[]`` and ``float[]``.

    Only the variables are decided here: whether ``actual`` is then acceptable
    for the pattern with its variables replaced (:func:`substitute`) is
    :func:`accepts`' question, and :func:`match_argument` asks both."""
    if is_type_var(pattern):
        have = env.get(pattern.name)  # type: ignore[attr-defined]
        joined = actual if have is None else unify(have, actual)
        if joined is None:
            return False
        env[pattern.name] = joined  # type: ignore[attr-defined]
        return True
    if not has_type_vars(pattern):
        return True
    if isinstance(pattern, T.OptionalType):
        if isinstance(actual, T.OptionalType):
            return bind(pattern.elem, actual.elem, env)
        # None says nothing of T: a variable it leaves unbound is Any (substitute)
        return actual == T.NONE or bind(pattern.elem, actual, env)
    if isinstance(pattern, T.GenericType):
        same = isinstance(actual, T.GenericType) and actual.name == pattern.name
    else:
        same = type(actual) is type(pattern)
    if not same or len(actual.contained()) != len(pattern.contained()):
        return False
    return all(bind(p, a, env) for p, a in zip(pattern.contained(), actual.contained()))


def substitute(t: T.Type, env: Bindings) -> T.Type:
    """``t`` with its type variables replaced by what ``env`` binds them to (an
    unbound one, as a ``t?`` given ``None`` leaves it, is ``Any``): the declared
    type of an argument once the call's variables are known, and the type of a
    schema's result (``t[]`` of ``aten::list`` on an ``int[]`` is ``int[]``)."""
    if is_type_var(t):
        return env.get(t.name, T.ANY)  # type: ignore[attr-defined]
    parts = t.contained()
    if not parts:
        return t
    return _rebuild(t, [substitute(c, env) for c in parts])


def accepts(actual: T.Type, declared: T.Type) -> bool:
    """Whether a node input of type ``actual`` may be passed where an operator
    declares ``declared`` (its type variables already substituted, or any where
    a variable stands): :func:`is_subtype`, but any tensor type is a
    ``Tensor`` (pyjit does not compare shapes), ``Any`` and a type variable take
    anything, ``AnyEnumType`` takes any enum type, ``AnyClassType`` any class
    (``__torch__.M``), a ``T?`` takes a ``T?`` of what
    ``T`` takes, and containers are compared element by element (``Tensor?[]``
    takes the ``Tensor[]`` torch's own graphs pass to ``aten::index``)."""
    if is_type_var(declared) or declared == T.ANY:
        return True
    if declared == T.ANY_ENUM:  # torch's AnyEnumType: a member of any enum class
        return isinstance(actual, T.EnumType)
    if declared == T.ANY_CLASS:  # torch's AnyClassType: an object of any class
        return isinstance(actual, T.NamedType) and "." in actual.name
    if isinstance(declared, T.TensorType):
        return isinstance(actual, T.TensorType)
    if isinstance(declared, T.OptionalType):
        if actual == T.NONE:
            return True
        if isinstance(actual, T.OptionalType):
            return accepts(actual.elem, declared.elem)
        return accepts(actual, declared.elem)
    if type(declared) is type(actual) and isinstance(declared, (T.ListType, T.DictType, T.TupleType,
                                                                    T.GenericType, T.UnionType)):
        pc, ac = declared.contained(), actual.contained()
        if isinstance(declared, T.GenericType) and declared.name != actual.name:  # type: ignore[attr-defined]
            return False
        return len(pc) == len(ac) and all(accepts(a, p) for a, p in zip(ac, pc))
    return is_subtype(actual, declared)


def matches(actual: T.Type, pattern: T.Type, env: Optional[Bindings] = None) -> bool:
    """Whether a node input of type ``actual`` may be passed to an operator whose
    schema declares ``pattern``, binding its type variables in ``env`` (the call's
    bindings, shared by its arguments; a fresh one if not given): :func:`bind`,
    then :func:`accepts`.  No conversion: the registry's question."""
    return match_argument(actual, pattern, {} if env is None else env) is not NO_MATCH


# -- implicit conversions ---------------------------------------------------------------

class Conversion(NamedTuple):
    """The node torch inserts to pass a value where another type is declared: its
    kind, and the type of its output."""

    kind: str
    type: T.Type


_DEVICE = T.NamedType("Device")

#: torch's implicit conversions (``tryConvertToType`` with ``allow_conversions``,
#: torch 2.14), by the type converted and the type declared.  What is *not* here
#: is refused, as torch refuses it: an ``int`` where a ``float`` is declared
#: (``torch.dropout(x, 1, False)`` does not compile), and any conversion into a
#: container.  ``bool`` for ``Scalar`` is ``aten::Int``, so a bool is never a
#: ``Scalar`` itself.
CONVERSIONS: Dict[Tuple[str, T.Type], Conversion] = {
    ("Tensor", T.FLOAT): Conversion("aten::FloatImplicit", T.FLOAT),
    ("Tensor", T.COMPLEX): Conversion("aten::ComplexImplicit", T.COMPLEX),
    ("Tensor", T.INT): Conversion("aten::IntImplicit", T.INT),
    ("Tensor", T.NUMBER): Conversion("aten::ScalarImplicit", T.NUMBER),
    ("Scalar", T.FLOAT): Conversion("aten::Float", T.FLOAT),
    ("Scalar", T.COMPLEX): Conversion("aten::Complex", T.COMPLEX),
    ("Scalar", T.INT): Conversion("aten::Int", T.INT),
    ("bool", T.FLOAT): Conversion("aten::Float", T.FLOAT),
    ("bool", T.INT): Conversion("aten::Int", T.INT),
    ("bool", T.NUMBER): Conversion("aten::Int", T.INT),
    ("str", _DEVICE): Conversion("aten::device", _DEVICE),
}


def implicit_conversion(actual: T.Type, declared: T.Type) -> Optional[Conversion]:
    """The conversion torch inserts to pass a value of type ``actual`` where
    ``declared`` is expected and ``actual`` is no subtype of it (:data:`CONVERSIONS`),
    or None.  A ``T?`` declared is a ``T`` for a value that is neither None nor
    optional.  torch applies these to an operator's arguments when no overload
    takes the call as it is (the second round of :func:`match_argument`), to the
    arguments of a call of a TorchScript function, and to a returned value; an
    annotated assignment, an attribute and a container's element get none."""
    if (isinstance(declared, T.OptionalType) and actual != T.NONE
            and not isinstance(actual, T.OptionalType)):
        declared = declared.elem
    source = "Tensor" if isinstance(actual, T.TensorType) else str(actual)
    return CONVERSIONS.get((source, declared))


def widens(actual: T.Type, declared: T.Type) -> bool:
    """Numeric widening, an ``int`` read as a ``float``: not a conversion torch's
    schema matching makes (see :data:`CONVERSIONS`), but one its runtime does
    where a value is read as a number: a Python ``int`` passed for a ``float``
    parameter (:func:`check_value`), and the mixed arithmetic of
    ``aten::add.int_float`` and its kin, which an intrinsic reading floats computes
    after converting the int (``I2F``, :meth:`pyjit.registry.Registry.register`)."""
    return actual == T.INT and declared == T.FLOAT


class _NoMatch:
    __slots__ = ()

    def __repr__(self) -> str:
        return "NO_MATCH"


#: What :func:`match_argument` returns for an argument the declaration refuses.
NO_MATCH: Any = _NoMatch()


def match_argument(actual: T.Type, declared: T.Type, env: Bindings, *,
                   conversions: bool = False) -> Optional[Conversion]:
    """How an argument of type ``actual`` is passed for a parameter declared
    ``declared`` (torch's ``tryMatchArgument``): None if as it is, a
    :class:`Conversion` if through one (only with ``conversions``), or
    :data:`NO_MATCH`.  The declaration's type variables are bound in ``env``
    (:func:`bind`) first, then substituted, and what is left is
    :func:`accepts`' question or, refused, :func:`implicit_conversion`'s.  The
    one relation of operator matching: the registry (no conversions), the
    archive's choice among torch's schemas (exactly, then with conversions) and
    the calls of TorchScript functions use it."""
    if not bind(declared, actual, env):
        return NO_MATCH
    concrete = substitute(declared, env) if has_type_vars(declared) else declared
    if accepts(actual, concrete):
        return None
    if conversions:
        conv = implicit_conversion(actual, concrete)
        if conv is not None:
            return conv
    return NO_MATCH


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
      converted); ``float``: a float, or an int (:func:`widens`) or numpy number
      (converted);
      ``bool``: a bool or ``numpy.bool_``; ``str``; ``NoneType``: None;
      ``Scalar``: an int, a float or a complex (never a bool: torch's ``isinstance(True,
      Scalar)`` is False); ``complex``; a tensor type: a ``numpy.ndarray`` or a
      numpy scalar (:data:`TENSOR_VALUES`; dtype and shape are not checked:
      pyjit keeps no shapes);
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


def _when(test: Callable[[Any], bool]) -> Checker:
    """The checker that passes what ``test`` holds for, as it is."""
    def check(value: Any) -> Any:
        if test(value):
            return value
        raise ValueMismatch
    return check


def _instance(cls: Any) -> Checker:
    return _when(lambda value: isinstance(value, cls))


#: What a tensor is at run time: an array, or the numpy scalar that numpy (and so
#: pyjit's operators) make of a 0-d result.
TENSOR_VALUES = (np.ndarray, np.generic)


def _check_none(value: Any) -> None:
    if value is None:
        return None
    raise ValueMismatch


def _check_number(value: Any, convert: bool) -> Any:
    if value.__class__ is float or value.__class__ is complex:
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
    exact = {T.INT: int, T.FLOAT: float, T.BOOL: bool}.get(elem)
    if exact is not None:
        bounded = exact is int

        def check_exact(value: Any) -> Any:
            if not isinstance(value, list):
                raise ValueMismatch
            for v in value:
                if v.__class__ is not exact:
                    raise ValueMismatch
            # min and max in C, rather than a comparison per element in Python
            if bounded and value and not (_INT64_MIN <= min(value) and max(value) <= _INT64_MAX):
                raise _out_of_int64(next(v for v in value
                                         if not _INT64_MIN <= v <= _INT64_MAX))
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
    return _when(lambda value: is_member_of(value, t))


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
        return _instance(TENSOR_VALUES)
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


# -- prim::isinstance ---------------------------------------------------------------------

#: ``isinstance(x, list)`` in TorchScript tests the container, whatever its
#: elements: torch prints it ``prim::isinstance[types=[list]]`` (and the like for
#: ``tuple`` and ``dict``, which only the IR can write: torch's frontend refuses a
#: bare ``dict``).
_BARE_CONTAINERS = {"list": list, "tuple": tuple, "dict": dict}

def instance_check(t: T.Type, named: Optional[NamedChecks] = None) -> Callable[[Any], bool]:
    """The test of ``prim::isinstance[types=[t]]``: whether a run-time value is of
    type ``t``.  It is :func:`value_checker`'s check without its conversions (an
    int is no ``float``, a bool no ``int`` and no ``Scalar``: torch 2.14's
    ``isinstance`` on an ``Any`` holding ``True`` is true for ``bool`` only), and
    with elements looked into, since pyjit's lists and dicts do not carry their
    element types as torch's do (``[1, 2]`` is an ``int[]``, not a ``Tensor[]``;
    an empty one is of every element type).  ``Any`` holds everything; a type
    with no run-time test (``Device``, a class) is refused when the test is made.

    Raises:
        TypeError: ``prim::isinstance cannot test for type '<t>'``.
    """
    def untestable(n: T.NamedType) -> Optional[Checker]:
        check = named(n) if named is not None else None
        if check is not None:
            return check
        if n == T.ANY:
            return _accept
        if n.name == "number":  # the annotation's name for Scalar
            return _checker(T.NUMBER, False)
        if n.name in _BARE_CONTAINERS:  # torch's ``types=[list]``: any list
            return _instance(_BARE_CONTAINERS[n.name])
        raise TypeError(f"prim::isinstance cannot test for type {str(n)!r}")

    check = _checker(t, False, untestable)

    def test(value: Any) -> bool:
        try:
            check(value)
        except ValueMismatch:
            return False
        return True
    return test
