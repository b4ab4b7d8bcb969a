"""``find_last_uses``: decide, for every use of a value, whether it may move the value."""

from __future__ import annotations

import itertools
from typing import Dict, Iterator, List, Optional, Set

from ..ir.graph import Block, Graph, Node, Value
from ..ir.symbols import prim
from ..ir.traversal import walk_blocks

__all__ = ["find_last_uses"]


class _FindLastUses:
    """The seed's ``FindLastUses``: one backward scan, sharing its tables."""

    def __init__(self, graph: Graph) -> None:
        self.graph = graph
        # Values met so far.  The scan runs backwards, so the first use met is the
        # last use executed.
        self.seen: Set[Value] = set()
        self.move_flags: Dict[Node, List[bool]] = {}
        # If/Loop node -> the Drop right after it that releases the values whose
        # last use is inside its blocks; created on demand.
        self.drop_for_node: Dict[Node, Node] = {}
        walk_blocks(graph.block, self.scan_block)

    # The seed's scanBlock and scanNode recurse into nested blocks; here the
    # recursion is a generator that yields each nested block to walk_blocks,
    # which scans it completely before resuming -- the same order, at any depth.
    def scan_block(self, block: Block) -> Iterator[Block]:
        for n in itertools.chain((block.return_node,), reversed(block.nodes())):
            # A node's blocks run after its inputs are read, so backwards they
            # come first.
            yield from n.blocks
            self.scan_node(n)

    def scan_node(self, n: Node) -> None:
        self.move_flags[n] = [False] * len(n.inputs)
        # Backwards again, so that of two uses of a value by one node only the
        # last position moves.
        for i in reversed(range(len(n.inputs))):
            self.scan_use(n, i)

    def scan_use(self, n: Node, i: int) -> None:
        flags = self.move_flags[n]
        v = n.input(i)
        if v in self.seen:
            flags[i] = False
            return
        self.seen.add(v)

        # The last use of v may be nested in a block of an If or Loop.  Then the
        # node at the depth of v's definition that contains the use stands for the
        # last use: a nested use may run many times (a loop body) or not at all
        # (the other branch of an If), so v is dropped after that node, where
        # control flow has reconverged.  E.g.
        #   a = 4
        #   while <...>:
        #     y = a + a
        #   drop(a)
        # In other words: the first program point that post-dominates the
        # definition of v gets the drop.
        same_depth_node = _find_owner_in_block(n, v.node.owning_block)
        # None means v is not in scope at n: lint the graph.
        assert same_depth_node is not None, f"%{v.debug_name} is not in scope at {n!r}"

        if same_depth_node is n:
            flags[i] = True
            return
        flags[i] = False
        self.add_to_drop_if_not_exists(self.find_or_create_drop_for(same_depth_node), v)

    def find_or_create_drop_for(self, n: Node) -> Node:
        drop = self.drop_for_node.get(n)
        if drop is None:
            # Inserted after n, which the backward scan of n's block has passed:
            # the Drop is never scanned, its flags are filled in here.
            drop = self.graph.create(prim.Drop, [], 0)
            drop.insert_after(n)
            self.drop_for_node[n] = drop
        return drop

    def add_to_drop_if_not_exists(self, drop: Node, v: Value) -> None:
        if any(i is v for i in drop.inputs):
            return  # this use is already accounted for
        drop.add_input(v)
        self.move_flags.setdefault(drop, []).append(True)


def _find_owner_in_block(n: Optional[Node], block: Block) -> Optional[Node]:
    """The node of ``block`` that is ``n`` or contains ``n`` in a nested block, or
    None if there is none.  E.g.::

        n0: a = 4
        n1: if <cond>:
        n2:    b = a + a

    ``_find_owner_in_block(n2, n0.owning_block) is n1``.
    """
    while n is not None and n.owning_block is not block:
        n = n.owning_block.owning_node
    return n


def find_last_uses(graph: Graph) -> Dict[Node, List[bool]]:
    """Compute move flags: for every node, one bool per input, True where that use
    is the value's last, so the interpreter moves the value out of its register
    instead of copying it.  Inserts ``prim::Drop`` nodes where a value's last use
    is inside an If/Loop block.

    Why: the interpreter frees every object as early as it can.  Copying a register
    onto the stack keeps a reference; moving it gives the reference away, so
    tensors die right after their last use.

    The scan goes backwards through each block: the block's return node first,
    then its nodes in reverse; for each node its blocks first, then its inputs from
    last to first.  The first use met of a value is its last use executed:

    * in the block of the value's definition, that use moves (flag True);
    * nested in a block of an If/Loop node ``N`` of the definition's block, it does
      not move (the branch may not run, the body may run again); instead the value
      goes into a single ``prim::Drop`` created right after ``N`` (one per ``N``,
      each value once, flag True), which frees it once control flow reconverges.

    Every scanned node has an entry, including each block's return node (the code
    generator reads a block's output flags from its return node) and the Drops of
    :func:`~pyjit.passes.drop_unused.drop_unused`; the Drops created here get
    their flags as values are added.

    Before (flags shown as ``M`` = move, ``c`` = copy, after each input)::

        graph():
          %a : int, %c : bool = prim::Load()
          %r : int = prim::If(%c)
            block0():
              %s : int = aten::add(%a, %a)
              -> (%s)
            block1():
              -> (%a)
           = prim::Store(%r)
          return ()

    After::

        graph():
          %a : int, %c : bool = prim::Load()
          %r : int = prim::If(%c)           # %c M
            block0():
              %s : int = aten::add(%a, %a)  # %a c, %a c
              -> (%s)                       # %s M
            block1():
              -> (%a)                       # %a c
           = prim::Drop(%a)                 # %a M
           = prim::Store(%r)                # %r M
          return ()

    Args:
        graph: the graph to scan and to add Drops to; normally already through
            :func:`~pyjit.passes.flatten_io.flatten_io` and
            :func:`~pyjit.passes.drop_unused.drop_unused` (graph inputs would
            work too: their definition is the top block's param node).

    Returns:
        ``{node: [move flag per input]}``, keyed by the Node objects.
    """
    return _FindLastUses(graph).move_flags
