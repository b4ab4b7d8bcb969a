"""``drop_unused``: give every value that is never used a ``prim::Drop`` use."""

from __future__ import annotations

from typing import Iterator, Optional, Sequence

from ..ir.graph import Block, Node, Value
from ..ir.symbols import prim
from ..ir.traversal import walk_blocks

__all__ = ["drop_unused"]


def _drop_if_unused(block: Block, values: Sequence[Value]) -> Optional[Node]:
    """A new (not yet inserted) Drop of the values among ``values`` that have no
    uses, or None when they are all used."""
    to_drop = [v for v in values if v._uses is None]  # not v.has_uses()
    if not to_drop:
        return None
    return block.owning_graph.create(prim.Drop, to_drop, 0)


def drop_unused(block: Block) -> None:
    """Insert ``prim::Drop`` nodes (no outputs) that use every unused value: the
    unused inputs of each block (one Drop prepended to the block) and the unused
    outputs of each node (one Drop right after the node), recursing into nested
    blocks.

    Why: the interpreter frees a register at the last use of its value (a move,
    see :func:`~pyjit.passes.find_last_uses.find_last_uses`).  A value that is
    never used has no last use, so without a dummy use its register would keep the
    object alive until the frame ends -- e.g. the second result of ``a, b = foo()``
    when only ``a`` is returned.  A Drop just pops its inputs, releasing them.

    Before::

        graph(%t : (int, int), %b : int):
          %q : int, %r : int = prim::TupleUnpack(%t)
          return (%q)

    After::

        graph(%t : (int, int), %b : int):
           = prim::Drop(%b)
          %q : int, %r : int = prim::TupleUnpack(%t)
           = prim::Drop(%r)
          return (%q)

    Order, as in the seed: a block's Drop first, then each node in turn gets its
    Drop and then its blocks are visited.  The loop over the nodes also meets the
    Drops it inserted (right after the current node); having no outputs and no
    blocks, they add nothing.

    Nested blocks are visited as the seed's recursion visits them, through
    :func:`~pyjit.ir.traversal.walk_blocks`, so nesting depth is not limited by
    Python's recursion limit.
    """
    walk_blocks(block, _drop_in_block)


def _drop_in_block(block: Block) -> Iterator[Block]:
    drop = _drop_if_unused(block, block.inputs)
    if drop is not None:
        block.prepend_node(drop)
    for n in block.nodes():
        outs = n._outputs
        # (A node whose one output is used, the commonest, needs no look.)
        if outs and (len(outs) > 1 or outs[0]._uses is None):
            drop = _drop_if_unused(block, outs)
            if drop is not None:
                drop.insert_after(n)
        if n._blocks:
            yield from n._blocks
