"""Lists of tensors (``Tensor[]``): where torch compares elements as tensors.

Python compares the items of a list with ``==`` and ``<`` and takes the truth
of the result; numpy's ``==`` gives an array, whose truth numpy refuses with its
own message.  TorchScript does what Python's data model says -- compare, then
``bool()`` -- with tensor operators: ``a.eq(b)`` (or ``a.lt(b)``), broadcast as
any pointwise operator, then ``is_nonzero``, which wants exactly one element::

    [t1, t2] == [t2, t1]    (2x2 tensors)  Boolean value of Tensor with more than
                                           one value is ambiguous
    [zeros(0)] == [zeros(0)]               Boolean value of Tensor with no values
                                           is ambiguous
    [tensor(1)] == [tensor(1.)]            True

and, unlike Python, never takes an element to equal itself without comparing
(``[t] == [t]`` compares ``t`` with itself); only ``sort`` skips comparing an
element with itself, as torch's does.  ``list.index`` of a missing tensor prints
it with ``at::Tensor``'s ``<<`` (``'5\\n[ torch.LongTensor{} ]' is not in list``).

==========================  =========================================================
``aten::eq``/``ne``         element by element, ``is_nonzero(a.eq(b))``
``aten::index``             the first element that ``is_nonzero(x.eq(e))``
``aten::count``             how many elements do
``aten::remove``            removes the first; "list.remove(x): x not in list"
``aten::sort``              ``is_nonzero(a.lt(b))``, reversed by ``reverse``
``aten::sorted``            the same, into a new list
==========================  =========================================================
"""

from __future__ import annotations

from typing import Any, List

from ..registry import library as R
from .conversions import is_nonzero
from .pointwise import function_of
from .tensor_format import format_tensor

__all__ = ["tensor_list_eq", "tensor_list_ne", "tensor_list_index", "tensor_list_count",
           "tensor_list_remove", "tensor_list_sort", "tensor_list_sorted"]

# The graph's own aten::eq and aten::lt of two tensors: promotion, broadcasting and
# their errors as any pointwise comparison.
_eq = function_of("eq")
_lt = function_of("lt")


def _equal(a: Any, b: Any) -> bool:
    return is_nonzero(_eq(a, b))


def tensor_list_eq(a: List[Any], b: List[Any]) -> bool:
    """``aten::eq.Tensor_list``."""
    return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b))


def tensor_list_ne(a: List[Any], b: List[Any]) -> bool:
    """``aten::ne.Tensor_list``: not :func:`tensor_list_eq`."""
    return not tensor_list_eq(a, b)


def tensor_list_index(lst: List[Any], el: Any) -> int:
    """``aten::index.Tensor``."""
    for i, x in enumerate(lst):
        if is_nonzero(_eq(el, x)):
            return i
    raise ValueError(f"'{format_tensor(el, torch_type_name=True)}' is not in list")


def tensor_list_count(lst: List[Any], el: Any) -> int:
    """``aten::count.Tensor``."""
    return sum(1 for x in lst if _equal(x, el))


def tensor_list_remove(lst: List[Any], el: Any) -> None:
    """``aten::remove.Tensor``."""
    for i, x in enumerate(lst):
        if _equal(x, el):
            del lst[i]
            return
    raise ValueError("list.remove(x): x not in list")


class _Ordered:
    """A sort key: ``is_nonzero(a.lt(b))``, flipped by ``reverse``; an element is
    never less than itself, uncompared (torch's comparator says so first)."""

    __slots__ = ("t", "reverse")

    def __init__(self, t: Any, reverse: bool) -> None:
        self.t = t
        self.reverse = reverse

    def __lt__(self, other: "_Ordered") -> bool:
        if self.t is other.t:
            return False
        return is_nonzero(_lt(self.t, other.t)) != self.reverse


def tensor_list_sort(lst: List[Any], reverse: bool = False) -> None:
    """``aten::sort.Tensor``, in place."""
    lst.sort(key=lambda t: _Ordered(t, reverse))


def tensor_list_sorted(lst: List[Any]) -> List[Any]:
    """``aten::sorted.Tensor``: a sorted copy."""
    out = list(lst)
    tensor_list_sort(out)
    return out


_LIST = "Tensor[]"
R.implement("aten::eq.Tensor_list", tensor_list_eq)
R.implement("aten::ne.Tensor_list", tensor_list_ne)
R.implement("aten::index.list_Tensor", tensor_list_index)
R.implement("aten::count.Tensor", tensor_list_count)
R.implement("aten::remove.Tensor", tensor_list_remove)
R.implement("aten::sort.Tensor", tensor_list_sort)
R.register("aten::sort", tensor_list_sort, types=[_LIST])
R.implement("aten::sorted.Tensor", tensor_list_sorted)
