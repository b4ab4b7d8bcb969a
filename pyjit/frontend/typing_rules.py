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
from ..ir.type_grammar import ANNOTATION_NAMES, annotation_type

__all__ = ["type_from_annotation", "type_of_constant", "AnnotationError"]


class AnnotationError(Exception):
    """An annotation outside the supported types; the caller adds the location."""


#: The Python objects a scripted function's annotations name, by the name
#: :data:`~pyjit.ir.type_grammar.ANNOTATION_NAMES` gives their types.
_NAMES = {int: "int", float: "float", bool: "bool", str: "str", type(None): "NoneType",
          None: "None"}

#: The generic forms, by what ``typing.get_origin`` gives.
_HEADS = {list: "List", dict: "Dict", tuple: "Tuple", typing.Union: "Union",
          typing.Final: "Final"}


def type_from_annotation(ann: Any) -> T.Type:
    """The pyjit type of an evaluated annotation (``typing`` objects or builtins).

    This dialect's name lookup (the objects above, ``numpy.ndarray`` and the
    classes ``pyjit.script`` compiled); the generic forms are read as
    serialized TorchScript's are (:func:`pyjit.ir.type_grammar.annotation_type`).

    Raises :class:`AnnotationError` naming what is not supported.
    """
    if isinstance(ann, tuple) and not ann:  # Tuple[()] before Python 3.11
        return T.TupleType(())
    name = next((n for obj, n in _NAMES.items() if ann is obj), None)
    if name is not None:
        return ANNOTATION_NAMES[name]
    scripted = vars(ann).get("__pyjit_class__") if isinstance(ann, type) else None
    if scripted is not None:  # a class pyjit.script compiled: its TorchScript type
        return scripted.type
    if ann is np.ndarray:
        return T.TENSOR
    origin = typing.get_origin(ann)
    if origin is np.ndarray:  # numpy.typing.NDArray[...]
        return T.TENSOR
    if hasattr(_pytypes, "UnionType") and isinstance(ann, _pytypes.UnionType):
        origin = typing.Union  # int | None
    head = _HEADS.get(origin) if origin is not None else None
    if head is not None:
        args = [... if a is Ellipsis else type_from_annotation(a) for a in typing.get_args(ann)]
        try:
            return annotation_type(head, args, str(ann), unions=False)
        except ValueError as exc:
            raise AnnotationError(str(exc)) from None
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
