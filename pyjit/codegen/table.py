"""The instruction table while it is being emitted: columns, arenas, tables.

Both lowerings (:mod:`.seed` and :mod:`.typed`) emit through a
:class:`TableBuilder`; it knows registers only as numbers, and nothing of graphs
but the node each instruction came from (for the listing and for errors).
"""

from __future__ import annotations

from array import array
from typing import Any, Dict, List, Optional, Sequence

import numpy as np

from .. import opcodes as op
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
    instruction at a time: one array per column, the two arenas (``int_data`` for
    register numbers, ``bool_data`` for move flags), the callback and constant
    tables, and per instruction the name the listing prints and its node.

    The columns and arenas are C arrays (``array("i")`` refuses a number beyond
    int32 with OverflowError), not lists of Python ints, which on a graph of a
    million nodes would take hundreds of megabytes.  The start columns are not
    stored: each instruction's operands follow the previous one's, so they are
    running sums of the sizes (:attr:`in_start`, :attr:`flag_start`,
    :attr:`out_start`)."""

    def __init__(self) -> None:
        self.op = array("i")
        self.in_size = array("i")
        self.out_size = array("i")
        self.arg = array("i")
        self.names: List[str] = []
        self.nodes: List[Node] = []
        # Instructions that also carry out a node other than their own: a
        # comparison folded into its branch (pc -> the comparison).
        self.absorbed: Dict[int, Node] = {}
        self.int_data = array("i")
        self.bool_data = bytearray()
        self.callbacks: List[Any] = []
        self.constants: List[Any] = []

    @property
    def in_start(self) -> np.ndarray:
        """Where each instruction's inputs start in ``int_data``."""
        return _running_sum(self.in_size, self.out_size)

    @property
    def out_start(self) -> np.ndarray:
        """Where each instruction's outputs start in ``int_data``."""
        return self.in_start + np.frombuffer(self.in_size, dtype=np.int32)

    @property
    def flag_start(self) -> np.ndarray:
        """Where each instruction's move flags start in ``bool_data``."""
        return _running_sum(self.in_size)

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
        self.in_size.append(len(inputs))
        self.out_size.append(len(outputs))
        ints = self.int_data
        # fromlist is much faster than extend, which takes any iterable.
        ints.fromlist(inputs if type(inputs) is list else list(inputs))
        ints.fromlist(outputs if type(outputs) is list else list(outputs))
        self.bool_data.extend(map(bool, flags))
        return len(self.op) - 1

    def emit_scalar(self, opcode: int, name: str, node: Node, inputs: List[int],
                    output: int, arg: int) -> None:
        """``emit(opcode, name, node, inputs, [False] * len(inputs), [output],
        arg)``, the instruction of a typed intrinsic: scalar registers in, one out,
        nothing moved.  The same records, without the lists the general form
        takes: a big graph is mostly these."""
        self.op.append(opcode)
        self.names.append(name)
        self.nodes.append(node)
        self.arg.append(arg)
        n = len(inputs)
        self.in_size.append(n)
        self.out_size.append(1)
        ints = self.int_data
        ints.fromlist(inputs)
        ints.append(output)
        self.bool_data += bytes(n)

    def negate_last(self) -> None:
        """Turn the last instruction, a conditional jump, into its negation
        (:data:`pyjit.opcodes.NEGATIONS`), its operands swapped where that says."""
        d = op.BY_CODE[self.op[-1]]
        name, swap = op.NEGATIONS[d.name]
        self.op[-1] = op.BY_NAME[name].code
        if self.names[-1] == d.name:
            self.names[-1] = name
        else:  # the seed's jumps are named by their node's kind
            self.names[-1] = {"JUMPZ": prim.JumpZ, "JUMPNZ": prim.JumpNZ}[name]
        if swap:
            assert self.in_size[-1] == 2 and self.out_size[-1] == 0, d.name
            self.int_data[-2], self.int_data[-1] = self.int_data[-1], self.int_data[-2]
            self.bool_data[-2], self.bool_data[-1] = self.bool_data[-1], self.bool_data[-2]

    def drop_last(self) -> None:
        """Remove the last instruction (a jump that turned out to go to the next
        one).  Its callback slot, if any, stays: slots are never renumbered."""
        n_in, n_out = self.in_size.pop(), self.out_size.pop()
        del self.int_data[len(self.int_data) - n_in - n_out:]
        del self.bool_data[len(self.bool_data) - n_in:]
        for column in (self.op, self.arg, self.names, self.nodes):
            column.pop()
        self.absorbed.pop(len(self.op), None)

    def callback(self, fn: Any) -> int:
        """Add ``fn`` to ``F``; returns its index.  Every node gets its own slot (the
        compiled loop resolves each distinct callable once)."""
        self.callbacks.append(fn)
        return len(self.callbacks) - 1

    def constant(self, value: Any) -> int:
        """Add ``value`` to ``K``; returns its index."""
        self.constants.append(value)
        return len(self.constants) - 1


def _running_sum(*sizes: "array[int]") -> np.ndarray:
    """Per instruction, the sum of ``sizes`` over the instructions before it."""
    total = np.zeros(len(sizes[0]), dtype=np.int64)
    for column in sizes:
        total += np.frombuffer(column, dtype=np.int32)
    return np.cumsum(total) - total
