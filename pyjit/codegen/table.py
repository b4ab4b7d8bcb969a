"""The instruction table while it is being emitted: columns, arenas, tables.

Both lowerings (:mod:`.seed` and :mod:`.typed`) emit through a
:class:`TableBuilder`; it knows registers only as numbers, and nothing of graphs
but the node each instruction came from (for the listing and for errors).
"""

from __future__ import annotations

from typing import Any, List, Optional, Sequence

from ..ir import Node
from ..ir.printer import format_attr_value
from ..ir.symbols import prim

__all__ = ["TableBuilder", "COLUMNS", "listing_name"]

#: The per-instruction columns, in the order ``Program`` takes them.
COLUMNS = ("op", "in_start", "in_size", "flag_start", "out_start", "out_size", "arg")


# Kinds whose attributes say what their instruction does: the listing shows them.
_NAMED_BY_ATTRIBUTES = frozenset({prim.Constant, prim.GetAttr, prim.SetAttr})


def listing_name(node: Node, callee: Optional[str] = None) -> str:
    """What the listing prints for ``node``'s instruction: its kind, with the
    attributes that say what it does (``prim::Constant[value=3]``,
    ``prim::GetAttr[name="w"]``), or the graph a call runs
    (``prim::CallFunction[helper]``)."""
    if callee is not None:
        return f"{node.kind}[{callee}]"
    if node.kind in _NAMED_BY_ATTRIBUTES and node.attrs:
        return node.kind + "[" + ", ".join(f"{k}={format_attr_value(v)}"
                                           for k, v in node.attrs.items()) + "]"
    return node.kind


class TableBuilder:
    """The struct-of-arrays table of the seed's ``CodeImpl``, filled one
    instruction at a time: one list per column, the two arenas (``int_data`` for
    register numbers, ``bool_data`` for move flags), the callback and constant
    tables, and per instruction the name the listing prints and its node."""

    def __init__(self) -> None:
        self.op: List[int] = []
        self.in_start: List[int] = []
        self.in_size: List[int] = []
        self.flag_start: List[int] = []
        self.out_start: List[int] = []
        self.out_size: List[int] = []
        self.arg: List[int] = []
        self.names: List[str] = []
        self.nodes: List[Node] = []
        self.int_data: List[int] = []
        self.bool_data: List[int] = []
        self.callbacks: List[Any] = []
        self.constants: List[Any] = []

    def __len__(self) -> int:
        return len(self.op)

    def emit(self, opcode: int, name: str, node: Node, inputs: Sequence[int],
             flags: Sequence[bool], outputs: Sequence[int], arg: int = 0) -> int:
        """Append one instruction; returns its index (to patch a jump later)."""
        if len(flags) != len(inputs):
            raise AssertionError(f"{name}: {len(inputs)} inputs but {len(flags)} move flags")
        self.op.append(opcode)
        self.names.append(name)
        self.nodes.append(node)
        self.arg.append(arg)
        self.in_start.append(len(self.int_data))
        self.in_size.append(len(inputs))
        self.int_data.extend(inputs)
        self.flag_start.append(len(self.bool_data))
        self.bool_data.extend(1 if f else 0 for f in flags)
        self.out_start.append(len(self.int_data))
        self.out_size.append(len(outputs))
        self.int_data.extend(outputs)
        return len(self.op) - 1

    def callback(self, fn: Any) -> int:
        """Add ``fn`` to ``F``; returns its index.  Every node gets its own slot (the
        compiled loop resolves each distinct callable once)."""
        self.callbacks.append(fn)
        return len(self.callbacks) - 1

    def constant(self, value: Any) -> int:
        """Add ``value`` to ``K``; returns its index."""
        self.constants.append(value)
        return len(self.constants) - 1
