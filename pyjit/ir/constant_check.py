"""Whether a ``prim::Constant``'s ``value`` attribute can be of the type its output
declares, in the forms torch prints attributes in (what :func:`pyjit.ir.parser.parse_ir`
reads)::

    %a : int = prim::Constant[value=3]()            an int within int64
    %b : bool = prim::Constant[value=1]()           0 or 1 (bools print as ints)
    %c : float = prim::Constant[value=2]()          an int or a float
    %d : str = prim::Constant[value="x"]()          a string
    %e : int[] = prim::Constant[value=[1, 2]]()     a list of what the element takes
    %f : (int, str) = prim::Constant[value=(1, "a")]()   a tuple, element by element
    %g : Tensor = prim::Constant[value={1.5}]()     a tensor literal
    %h : Enum<__torch__.Color> = prim::Constant[value=__torch__.Color.RED]()
                                                    a member of that enum class

so that ``%x : int = prim::Constant[value="abc"]()`` or a ``bool`` holding ``1e308``
is refused where it is written, not run as a wrong value.  Types pyjit gives no
meaning to (``Device``, ``ScalarType``, classes...) take whatever torch printed.
"""

from __future__ import annotations

from typing import Any, Optional

from . import types as T
from .literals import Literal, TensorLiteral
from .printer import format_attr_value

__all__ = ["constant_problem"]

_INT64_MIN = -2 ** 63
_INT64_MAX = 2 ** 63 - 1
_COMPLEX = T.NamedType("complex")


def constant_problem(value: Any, t: T.Type) -> Optional[str]:
    """Why ``value`` (an attribute as the parser read it) cannot be a constant of
    type ``t``, or None when it can.  Containers nest at most 100 deep (the
    parser's limit), which bounds the recursion."""
    shown = "a tensor literal" if isinstance(value, TensorLiteral) else format_attr_value(value)
    if len(shown) > 40:
        shown = shown[:37] + "..."
    what = f"a constant of type {t} cannot hold {shown}"
    if t == T.INT:
        if type(value) is not int:
            return what
        if not _INT64_MIN <= value <= _INT64_MAX:
            return f"{what}: it is outside int64"
        return None
    if t == T.BOOL:
        return None if type(value) is bool or (type(value) is int and value in (0, 1)) else what
    if t == T.FLOAT:
        return None if type(value) in (int, float) else what
    if t == T.STR:
        return None if isinstance(value, str) else what
    if t == T.NONE:
        return None if value is None else what
    if t == T.NUMBER:
        return None if type(value) in (int, float, complex) else what
    if t == _COMPLEX:
        return None if type(value) in (int, float, complex) else what
    if isinstance(t, T.EnumType):
        # torch prints a member by its class's qualified name and its own.
        if type(value) is Literal and value.text.rpartition(".")[0] == t.name:
            return None
        return f"{what}: not a member of {t.name}"
    if type(value) is Literal:
        return None  # text torch printed for what it cannot print ([<Tensors>], an enum)
    if isinstance(t, T.TensorType):
        return None if isinstance(value, TensorLiteral) else what
    if isinstance(t, T.OptionalType):
        return None if value is None else constant_problem(value, t.elem)
    if isinstance(t, T.ListType):
        if not isinstance(value, list):
            return what
        return what if any(constant_problem(v, t.elem) for v in value) else None
    if isinstance(t, T.TupleType):
        if not isinstance(value, tuple) or len(value) != len(t.elems):
            return what
        return what if any(constant_problem(v, e) for v, e in zip(value, t.elems)) else None
    if isinstance(t, T.DictType):
        if not isinstance(value, dict):
            return what
        return what if any(constant_problem(k, t.key) or constant_problem(v, t.value)
                           for k, v in value.items()) else None
    return None
