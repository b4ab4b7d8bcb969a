"""Walking nested blocks without recursion.

The seed's passes and its code generator are recursive: a function handles a
block, and calls itself for the blocks of the If/Loop nodes it meets, finishing
each before going on.  In Python that costs a frame or two per nesting level, so
a graph nested a few hundred levels deep would hit the recursion limit.

:func:`walk_blocks` keeps the recursive shape and drops the recursion: write the
per-block work as a generator that *yields* a nested block where the recursive
version would call itself; the walker runs that block's generator to its end
before resuming the one that yielded it.  The order of all work is exactly the
recursive order, and the generators read a block's nodes lazily, so nodes
inserted while walking are seen (or not) just as they would be recursively::

    def scan(block):                      # recursive:  def scan(block):
        for n in block.nodes():           #               for n in block.nodes():
            visit(n)                      #                 visit(n)
            for b in n.blocks:            #                 for b in n.blocks:
                yield b                   #                   scan(b)

    walk_blocks(graph.block, scan)

:func:`nodes_depth_first` is the same order as a flat stream of nodes, for a
graph of pyjit's or anything nested like one (torch's own graphs, which the
torch bridge compares against pyjit's node by node).
"""

from __future__ import annotations

from typing import Callable, Iterable, Iterator, Sequence, TypeVar

__all__ = ["walk_blocks", "nodes_depth_first"]

B = TypeVar("B")  # a Block, or anything nested the same way (a Code and its forks' Codes)
N = TypeVar("N")  # a Node, or anything that holds blocks the same way


def walk_blocks(block: B, scan: Callable[[B], Iterator[B]]) -> None:
    """Run ``scan(block)``, and ``scan(b)`` for every block ``b`` it yields, each to
    completion before the generator that yielded it resumes."""
    stack = [scan(block)]
    while stack:
        nested = next(stack[-1], None)
        if nested is None:
            stack.pop()
        else:
            stack.append(scan(nested))


def nodes_depth_first(block: B, nodes: Callable[[B], Iterable[N]],
                      blocks: Callable[[N], Sequence[B]]) -> Iterator[N]:
    """Every node under ``block``, nested ones included, depth first in program
    order: a node, then the nodes of its blocks (``blocks(node)``, each block's
    ``nodes(block)`` in turn), then the next node.

    Walks with an explicit stack of node iterators, so nesting depth is not
    limited by Python's recursion limit, and each block's nodes are read lazily:
    a node inserted after the one being visited is still met.
    """
    stack = [iter(nodes(block))]
    while stack:
        n = next(stack[-1], None)
        if n is None:
            stack.pop()
            continue
        yield n
        stack.extend(iter(nodes(b)) for b in reversed(blocks(n)))
