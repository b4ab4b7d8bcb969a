"""``find_last_uses``: decide, for every use of a value, whether it may move the value."""

from __future__ import annotations

import itertools
from typing import Dict, Iterator, List, Optional, Sequence, Set, Tuple

from ..ir.graph import Block, Graph, Node, Value
from ..ir.symbols import prim
from ..ir.traversal import walk_blocks

__all__ = ["find_last_uses", "MoveFlags"]


Flags = Tuple[bool, ...]

# n -> (True,) * n, made once per n.
_ALL_MOVED: Dict[int, Flags] = {}


class MoveFlags(Dict[Node, Flags]):
    """``{node: (move flag per input)}``, the result of :func:`find_last_uses`, in
    which a node that moves every input has no entry: looking it up gives
    ``(True,) * len(node.inputs)`` all the same.  Most nodes of a big graph are
    such (each value used once), and an entry per node would be ~50 bytes of
    them; iterating the mapping gives the nodes that copy some input."""

    __slots__ = ()

    def __missing__(self, node: Node) -> Flags:
        n = len(node._inputs)
        flags = _ALL_MOVED.get(n)
        if flags is None:
            flags = _ALL_MOVED.setdefault(n, (True,) * n)
        return flags


_COPIED: Flags = (False,)


class _FindLastUses:
    """The seed's ``FindLastUses``: one backward scan, sharing its tables."""

    def __init__(self, graph: Graph) -> None:
        self.graph = graph
        # Values met so far.  The scan runs backwards, so the first use met is the
        # last use executed.
        self.seen: Set[Value] = set()
        self.move_flags = MoveFlags()
        # Each distinct flags tuple once: the nodes that copy an input have a
        # handful of patterns ((False,), (False, True)...), so sharing them saves
        # a tuple per node.  They are immutable, so sharing is safe.
        self.patterns: Dict[Flags, Flags] = {}
        # If/Loop node -> the Drop right after it that releases the values whose
        # last use is inside its blocks; created on demand, with the values it
        # has (a set, so that adding one is O(1)) and their flags so far.
        self.drop_for_node: Dict[Node, Node] = {}
        self.dropped: Dict[Node, Set[Value]] = {}
        self.drop_flags: Dict[Node, List[bool]] = {}
        # Where the scan is: path[d] is the node at nesting depth d whose block
        # holds the node being scanned (path[-1] that node itself), and depth_of
        # maps each block on that path to its depth.  With them the node that
        # stands for a nested use at its value's depth is found in O(1), not by
        # walking out of the nesting use by use.
        self.path: List[Node] = []
        self.depth_of: Dict[Block, int] = {}
        walk_blocks(graph.block, self.scan_block)
        for drop, flags in self.drop_flags.items():
            self.record(drop, flags)

    def record(self, node: Node, flags: Sequence[bool]) -> None:
        """``node``'s flags, unless they are all True (see MoveFlags)."""
        if not all(flags):
            t = tuple(flags)
            self.move_flags[node] = self.patterns.setdefault(t, t)

    # The seed's scanBlock and scanNode recurse into nested blocks; here the
    # recursion is a generator that yields each nested block to walk_blocks,
    # which scans it completely before resuming -- the same order, at any depth.
    def scan_block(self, block: Block) -> Iterator[Block]:
        path = self.path
        self.depth_of[block] = len(path)
        path.append(block.return_node)
        move_flags, scan_use = self.move_flags, self.scan_use
        for n in itertools.chain((block.return_node,), reversed(block.nodes())):
            path[-1] = n
            # A node's blocks run after its inputs are read, so backwards they
            # come first.
            if n._blocks:
                yield from n._blocks
            inputs = n._inputs
            if len(inputs) == 1:  # scan_node's commonest case, written out
                if not scan_use(n, inputs[0]):
                    move_flags[n] = _COPIED
            else:
                self.scan_node(n)
        path.pop()
        del self.depth_of[block]

    def scan_node(self, n: Node) -> None:
        """Every input of ``n``, last first (scan_block does a one-input node
        itself)."""
        inputs = n._inputs
        flags = [False] * len(inputs)
        # Backwards again, so that of two uses of a value by one node only the
        # last position moves.
        for i in reversed(range(len(inputs))):
            flags[i] = self.scan_use(n, inputs[i])
        self.record(n, flags)

    def scan_use(self, n: Node, v: Value) -> bool:
        """Whether this use of ``v`` by ``n`` moves it."""
        if v in self.seen:
            return False
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
        depth = self.depth_of.get(v._node._block)  # type: ignore[arg-type]
        # None means v is not in scope at n: lint the graph.
        assert depth is not None, f"%{v.debug_name} is not in scope at {n!r}"
        same_depth_node = self.path[depth]
        if same_depth_node is n:
            return True
        self.add_to_drop_if_not_exists(self.find_or_create_drop_for(same_depth_node), v)
        return False

    def find_or_create_drop_for(self, n: Node) -> Node:
        drop = self.drop_for_node.get(n)
        if drop is None:
            # Inserted after n, which the backward scan of n's block has passed:
            # the Drop is never scanned, its flags are filled in here.
            drop = self.graph.create(prim.Drop, [], 0)
            drop.insert_after(n)
            self.drop_for_node[n] = drop
            self.dropped[drop] = set()
            self.drop_flags[drop] = []
        return drop

    def add_to_drop_if_not_exists(self, drop: Node, v: Value) -> None:
        if v in self.dropped[drop]:
            return  # this use is already accounted for
        self.dropped[drop].add(v)
        drop.add_input(v)
        self.drop_flags[drop].append(True)


def find_last_uses(graph: Graph) -> MoveFlags:
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

    Every scanned node has flags, including each block's return node (the code
    generator reads a block's output flags from its return node) and the Drops of
    :func:`~pyjit.passes.drop_unused.drop_unused`; the Drops created here get
    their flags as values are added.  A node that moves every input has them
    without an entry of its own (:class:`MoveFlags`).

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
        ``{node: (move flag per input)}``, keyed by the Node objects, entries
        only for the nodes that copy some input (:class:`MoveFlags`).  The
        flags are tuples, and nodes with the same flags share one: a graph of a
        million nodes holds a few tuples, not a million lists.

    The scan is linear in the graph whatever its shape: each value is handled
    at its first (last executed) use, and the node standing for that use at the
    value's depth is read off the path of nodes the scan is inside.
    """
    return _FindLastUses(graph).move_flags
