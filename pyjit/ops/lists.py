"""Operators on lists (``t[]``), with TorchScript's semantics and messages.

Lists are Python lists, mutated in place as in TorchScript.  Python's own methods
are registered where they behave as torch's (``list.insert``, ``list.extend``,
``list.clear``, ``list.count``, ``operator.getitem``, ``operator.add`` for ``+``,
``builtins.min``/``max``/``sum``...).  Wrappers cover the differences:

==========================  =========================================================
``aten::append``            returns the list (its schema's output)
``aten::_set_item``         returns the list; out of range is "list index out of range"
``aten::pop``               an index out of range is "list index out of range"
``aten::Delete``            ``del lst[i]``: pop's messages
``aten::index``             "'5' is not in list" (torch quotes the value)
``aten::sort``              takes ``reverse`` positionally
``aten::slice``             torch's bounds (:func:`torch_slice`)
``prim::ListUnpack``        "Expected 2 elements in a list but found 3"
``prim::min``/``max``       of an empty list: "min() arg is an empty sequence" (torch's
                            text, which Python's own said until 3.12)
==========================  =========================================================

Also registered: ``__getitem__ len copy list slice reverse remove __contains__``,
``aten::mul(t[], int)``, ``sorted``, ``sum``/``any``/``all`` of lists, and
``prim::min``/``max`` of one list or of two lists (element-wise comparison as
Python's, which is torch's lexicographic order).
"""

from __future__ import annotations

import operator
from typing import Any, List, Optional

from ..registry import library as R
from .scalars import int_add
from .slicing import torch_slice

__all__ = ["append", "set_item", "pop", "delete", "index", "sort", "list_slice", "torch_slice", "list_unpack",
           "list_min", "list_max"]



def int_list_sum(xs: List[int]) -> int:
    """``aten::sum(int[])``: the sum wrapped to int64, as every int op wraps.

    torch 2.13 differs here by a bug: it accumulates in a 32-bit C int
    (``sum([2**40])`` is 0 there); pyjit keeps TorchScript's int64 semantics."""
    return int_add(sum(xs), 0)

def append(lst: List[Any], el: Any) -> List[Any]:
    """``aten::append``: appends and returns the list."""
    lst.append(el)
    return lst


def set_item(lst: List[Any], i: int, el: Any) -> List[Any]:
    """``aten::_set_item`` on a list: ``lst[i] = el``, returning the list."""
    try:
        lst[i] = el
    except IndexError:
        raise IndexError("list index out of range") from None
    return lst


def pop(lst: List[Any], i: int = -1) -> Any:
    try:
        return lst.pop(i)
    except IndexError:
        raise IndexError("pop from empty list" if not lst else "list index out of range") \
            from None


def delete(lst: List[Any], i: int) -> None:
    """``del lst[i]`` (``aten::Delete``); torch's message is ``pop``'s for an
    empty list."""
    if not lst:
        raise IndexError("pop index out of range")
    try:
        del lst[i]
    except IndexError:
        raise IndexError("list index out of range") from None


def index(lst: List[Any], el: Any) -> int:
    try:
        return lst.index(el)
    except ValueError:
        from .formatting import torch_str
        raise ValueError(f"'{torch_str(el)}' is not in list") from None


def remove(lst: List[Any], el: Any) -> None:
    try:
        lst.remove(el)
    except ValueError:
        raise ValueError("list.remove(x): x not in list") from None


def sort(lst: List[Any], reverse: bool = False) -> None:
    lst.sort(reverse=reverse)


def list_slice(lst: List[Any], start: Optional[int], end: Optional[int], step: int) -> List[Any]:
    return lst[torch_slice(start, end, step)]


def _set_item_factory(node):
    # With the list output unused and dropped by the graph, Python's own
    # setitem would do, but its message differs; keep the one wrapper.
    return set_item


def _append_factory(node):
    # Without an output, list.append itself (C) does the whole job.
    return append if node.outputs else list.append


def list_unpack(n: int):
    """The ``prim::ListUnpack`` operator for ``n`` outputs."""
    def unpack(lst):
        if len(lst) != n:
            raise ValueError(f"Expected {n} elements in a list but found {len(lst)}")
        return lst if n != 1 else lst[0]
    unpack.__name__ = f"list_unpack_{n}"
    return unpack


def list_construct(n: int):
    """The ``prim::ListConstruct`` operator for ``n`` inputs."""
    if n == 0:
        return list  # list() is a new empty list, from C
    def construct(*items):
        return list(items)
    construct.__name__ = "list_construct"
    return construct


# -- registrations -------------------------------------------------------------

R.register("prim::ListConstruct", factory=lambda node: list_construct(len(node.inputs)))
R.register("prim::ListUnpack", factory=lambda node: list_unpack(len(node.outputs)),
           types=["t[]"])
R.implement("aten::__getitem__.t", operator.getitem)
R.implement("aten::select.t", operator.getitem)
R.implement("aten::_set_item.t", factory=_set_item_factory)
R.implement("aten::append.t", factory=_append_factory)
R.implement("aten::insert.t", list.insert)
R.implement("aten::pop.t", pop)
R.register("aten::pop", pop, types=["t[]"])
R.implement("aten::Delete.t", delete)
R.implement("aten::copy.t", list.copy)
R.implement("aten::list.t", list)
R.implement("aten::extend.t", list.extend)
R.implement("aten::clear.t", list.clear)
R.implement("aten::reverse.t", list.reverse)
R.implement("aten::sort.any", sort)
R.register("aten::sort", sort, types=["t[]"])
R.implement("aten::sorted.any", sorted)
R.register("aten::index", index, types=["t[]", "t"])
R.register("aten::count", list.count, types=["t[]", "t"])
def list_min(a: List[Any]) -> Any:
    """``prim::min`` of a list.  An empty one is torch's error, in torch's words:
    Python 3.13's ``min([])`` says "min() iterable argument is empty"."""
    if not a:
        raise ValueError("min() arg is an empty sequence")
    return min(a)


def rangelist(n: int) -> List[int]:
    """``prim::rangelist(n)``: ``[0, 1, ..., n - 1]``; a negative ``n`` fails as
    torch's ``std::vector::reserve`` of it does."""
    if n < 0:
        raise RuntimeError("vector::reserve")
    return list(range(n))


def list_max(a: List[Any]) -> Any:
    """``prim::max`` of a list, as :func:`list_min`."""
    if not a:
        raise ValueError("max() arg is an empty sequence")
    return max(a)


R.register("aten::remove", remove, types=["t[]", "t"])
R.implement("aten::len.t", len)
R.implement("aten::add.t", operator.add)
R.implement("aten::add_.t", operator.iadd)
R.implement("aten::mul.left_t", operator.mul)
R.implement("aten::mul.right_", operator.mul)
R.implement("aten::mul_.t", operator.imul)
R.implement("aten::slice.t", list_slice)
R.register("aten::__contains__", operator.contains, types=["t[]", "t"])
for _name in ("eq", "ne", "lt", "le", "gt", "ge"):
    R.register(f"aten::{_name}", getattr(operator, _name), types=["t[]", "t[]"])
R.implement("aten::sum.int", int_list_sum)
R.implement("aten::sum.float", sum)
R.implement("aten::sum.bool", sum)
R.implement("aten::sum.complex", lambda a: sum(a, 0j))   # [] sums to 0j
R.implement("prim::rangelist", rangelist)
R.register("aten::any", any, types=["t[]"])
R.register("aten::all", all, types=["t[]"])
R.register("prim::min", list_min, types=["t[]"])
R.register("prim::max", list_max, types=["t[]"])
R.register("prim::min", min, types=["t[]", "t[]"])
R.register("prim::max", max, types=["t[]", "t[]"])
