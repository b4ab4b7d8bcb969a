"""Types in the frontend: annotations to pyjit types, and the types of constants.
Which type accepts which (subtyping, joining two branches, checking a Python
argument) is :mod:`pyjit.ir.type_relation`'s.

The annotations a scripted function may use, and what they become::

    int  float  bool  str  None           int  float  bool  str  NoneType
    np.ndarray (or numpy.typing.NDArray)  Tensor
    a class pyjit.script compiled         its type, __torch__.<module>.<class>
    List[T]  list[T]                      T[]
    Dict[K, V]  dict[K, V]                Dict(K, V)
    Tuple[A, B]  tuple[A, B]              (A, B)
    Optional[T]  Union[T, None]  T | None T?
"""

from __future__ import annotations

import types as _pytypes
import typing
from typing import Any, Optional

import numpy as np

from ..ir import types as T

__all__ = ["type_from_annotation", "type_of_constant", "AnnotationError"]


class AnnotationError(Exception):
    """An annotation outside the supported types; the caller adds the location."""


_SCALARS = {int: T.INT, float: T.FLOAT, bool: T.BOOL, str: T.STR, type(None): T.NONE,
            None: T.NONE}


def type_from_annotation(ann: Any) -> T.Type:
    """The pyjit type of an evaluated annotation (``typing`` objects or builtins).

    Raises :class:`AnnotationError` naming what is not supported.
    """
    if ann in _SCALARS:
        return _SCALARS[ann]
    scripted = vars(ann).get("__pyjit_class__") if isinstance(ann, type) else None
    if scripted is not None:  # a class pyjit.script compiled: its TorchScript type
        return scripted.type
    if ann is np.ndarray:
        return T.TENSOR
    origin = typing.get_origin(ann)
    args = typing.get_args(ann)
    if origin is np.ndarray:  # numpy.typing.NDArray[...]
        return T.TENSOR
    if origin in (list, typing.List):
        if len(args) != 1:
            raise AnnotationError("List needs an element type, e.g. List[int]")
        return T.ListType(type_from_annotation(args[0]))
    if origin in (dict, typing.Dict):
        if len(args) != 2:
            raise AnnotationError("Dict needs a key and a value type, e.g. Dict[str, int]")
        key = type_from_annotation(args[0])
        if key not in (T.INT, T.FLOAT, T.STR, T.BOOL):
            raise AnnotationError(f"dict keys must be int, float, bool or str, not {key}")
        return T.DictType(key, type_from_annotation(args[1]))
    if origin in (tuple, typing.Tuple):
        if len(args) == 2 and args[1] is Ellipsis:
            raise AnnotationError("variable-length tuples (Tuple[T, ...]) are not supported; "
                                  "use a List")
        if args == ((),):
            return T.TupleType(())
        return T.TupleType(type_from_annotation(a) for a in args)
    if origin is typing.Union or (hasattr(_pytypes, "UnionType")
                                  and isinstance(ann, _pytypes.UnionType)):
        rest = [a for a in args if a is not type(None)]
        if len(rest) == 1 and len(args) == 2:
            inner = type_from_annotation(rest[0])
            return inner if isinstance(inner, T.OptionalType) else T.OptionalType(inner)
        raise AnnotationError(f"Union types other than Optional[T] are not supported: {ann}")
    if ann in (list, dict, tuple):
        raise AnnotationError(f"a bare '{ann.__name__}' annotation needs element types, "
                              f"e.g. {ann.__name__.capitalize()}[int]")
    name = getattr(ann, "__name__", None) or repr(ann)
    raise AnnotationError(f"unsupported type annotation '{name}'")


def type_of_constant(value: Any) -> Optional[T.Type]:
    """The type of a Python constant a graph can hold as ``prim::Constant``
    (None for values that need a node to build, such as lists)."""
    if value is None:
        return T.NONE
    if isinstance(value, bool):
        return T.BOOL
    if isinstance(value, int):
        return T.INT if -2**63 <= value < 2**63 else None
    if isinstance(value, float):
        return T.FLOAT
    if isinstance(value, str):
        return T.STR
    return None
