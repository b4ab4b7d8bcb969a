"""Calls both dialects emit the same way: ``isinstance`` and ``Tensor.tolist()``.

A Python function and an archive's serialized code spell them alike, and torch
gives them one meaning, so the core holds it once and each dialect only finds
the arguments (the Python dialect from live objects and annotations, the
archive's from its type syntax).

``isinstance(x, T)`` is decided when the graph is built whenever the static
type of ``x`` decides it, as torch does: a constant True when ``x``'s type is
one of the types, False when it can be none of them; otherwise (an ``Any``, a
Union, an Optional) the value is tested when it runs, by
``prim::isinstance[types=[...]]``.  The types may be the bare containers
``list``, ``tuple`` and ``dict`` (the IR's named types of those names, as torch
prints them: ``types=[list]``), which any list, tuple or dict is.

``t.tolist()`` is ``prim::tolist(t, dims, elem)``, whose result type only the
annotation of the place it goes gives (``List[List[float]]``: dims 2, element
code 1), as in torch, which refuses it without one.
"""

from __future__ import annotations

import ast
from typing import Callable, List, NoReturn, Optional, Sequence

from ..ir import Value
from ..ir import types as T
from ..ir.type_relation import fits, is_subtype
from .builder import GraphBuilder

__all__ = ["BARE_CONTAINERS", "isinstance_value", "static_isinstance", "is_tolist", "tolist_value",
           "refined_type"]

#: ``list``, ``tuple`` and ``dict`` as isinstance's types: any list, tuple, dict.
BARE_CONTAINERS = {"list": T.ListType, "tuple": T.TupleType, "dict": T.DictType}

#: prim::tolist's element type codes (ops.conversions reads them back).
_TOLIST_CODES = {T.INT: 0, T.FLOAT: 1, T.BOOL: 2}

Fail = Callable[[ast.AST, str], NoReturn]


def _members(t: T.Type) -> List[T.Type]:
    """The types a value of type ``t`` may have: the members of an Optional or a
    Union, else ``t``."""
    if isinstance(t, T.OptionalType):
        return _members(t.elem) + [T.NONE]
    if isinstance(t, T.UnionType):
        return [m for e in t.elems for m in _members(e)]
    return [t]


def _is_a(t: T.Type, want: T.Type) -> bool:
    """Every value of type ``t`` is a ``want``."""
    bare = BARE_CONTAINERS.get(want.name) if isinstance(want, T.NamedType) else None
    if bare is not None:
        return isinstance(t, bare)
    return fits(t, want)


def _may_be(t: T.Type, want: T.Type) -> bool:
    """Some value of the (non-union) type ``t`` may be a ``want``."""
    if t == T.ANY or _is_a(t, want):
        return True
    bare = BARE_CONTAINERS.get(want.name) if isinstance(want, T.NamedType) else None
    return bare is None and is_subtype(want, t)


def static_isinstance(t: T.Type, wants: Sequence[T.Type]) -> Optional[bool]:
    """Whether a value of static type ``t`` is one of ``wants``: True or False
    when ``t`` decides it, None when only the value can."""
    if any(_is_a(t, w) for w in wants):
        return True
    if any(_may_be(m, w) for m in _members(t) for w in wants):
        return None
    return False


def refined_type(t: T.Type, wants: Sequence[T.Type], held: bool = True) -> Optional[T.Type]:
    """What ``x: t`` is known to be where ``isinstance(x, wants)`` held (or, with
    ``held`` False, did not): the members of ``t`` that are (are not) one of
    ``wants``; None if that says nothing new."""
    kept = [m for m in _members(t) if any(_is_a(m, w) for w in wants) == held]
    if not kept or len(kept) == len(_members(t)):
        return None
    if len(kept) == 1:
        return kept[0]
    if T.NONE in kept and len(kept) == 2:
        return T.OptionalType(next(m for m in kept if m != T.NONE))
    return T.UnionType(kept)


def isinstance_value(b: GraphBuilder, v: Value, wants: Sequence[T.Type], at: ast.AST) -> Value:
    """``isinstance(v, wants)``: a constant where the static type decides, else
    ``prim::isinstance[types=wants]``."""
    known = static_isinstance(v.type, wants)
    if known is not None:
        return b.const(known, at)
    node = b.emit("prim::isinstance", [v], [T.BOOL], at)
    node.attrs["types"] = list(wants)
    return node.output()


def is_tolist(receiver: Value, name: str, call: ast.Call) -> bool:
    """Whether ``receiver.name(...)`` is ``Tensor.tolist()``, which both dialects
    emit with :func:`tolist_value` rather than as a method of the tensor."""
    return isinstance(receiver.type, T.TensorType) and name == "tolist" and \
        not call.args and not call.keywords


def tolist_value(b: GraphBuilder, v: Value, expected: Optional[T.Type], at: ast.AST,
                 fail: Fail) -> Value:
    """``v.tolist()`` for a Tensor ``v``, typed by ``expected`` (the annotation
    of where it goes): nested lists of int, float or bool."""
    dims, elem = 0, expected
    while isinstance(elem, T.ListType):
        dims, elem = dims + 1, elem.elem
    code = _TOLIST_CODES.get(elem) if dims else None
    if code is None:
        fail(at, "tolist() needs the type of its result from an annotation, a list of "
                 f"int, float or bool nested once per dimension (e.g. 'xs: "
                 f"List[List[float]] = t.tolist()'){'' if expected is None else f', not {expected}'}")
    return b.emit1("prim::tolist", [v, b.const(dims, at), b.const(code, at)], expected, at)
