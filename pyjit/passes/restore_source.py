"""``restore_source``: undo :func:`~pyjit.passes.preprocess`, giving back a graph the
user could have written, from which ``Code`` builds the same table again.

A :class:`~pyjit.code.Code` keeps only its preprocessed graph (keeping the
original too would cost a graph's memory for every Code, and printing it at build
time nearly half the build).  Pickling a Code (:mod:`pyjit.pickling`) needs a
graph to send, and the preprocessed one will not do as it is: the parser refuses
a Loop whose trip count was desugared, and compiling it again would add a
second counter.  Each pass is undone instead, in the reverse order:

1. every ``prim::Drop`` goes (``drop_unused`` and ``find_last_uses`` put them in;
   no other pass and no parsed graph has one, since the parser refuses them);
2. ``prim::Store``'s inputs become the graph's outputs again and ``prim::Load``'s
   outputs its inputs, keeping their debug names (``flatten_io``);
3. with ``desugared`` (a Code built at O0), each Loop's counter goes back into
   the Loop (``desugar_trip_counts``)::

        %8 : int = prim::Constant[value=0]()
        %9 : bool = aten::lt(%8, %n)
        %10 : bool = aten::__and__(%9, %c)           %r : int = prim::Loop(%n, %c, %x)
        %7 : int, %r : int = prim::Loop(%10, %8, %x)   block0(%i : int, %acc : int):
          block0(%i : int, %acc : int):       ->       %acc.2 : int = aten::add(%acc, %i)
            %acc.2 : int = aten::add(%acc, %i)         -> (%c, %acc.2)
            %11 : int = prim::Constant[value=1]()
            %12 : int = aten::add(%i, %11)
            %13 : bool = aten::lt(%12, %n)
            %14 : bool = aten::__and__(%13, %c)
            -> (%14, %12, %acc.2)

The rewrite assumes the graph is exactly what ``preprocess`` made (the Code's
own ``graph``); it works on a copy.  ``call_context_methods``, which only a unit's
Codes run, is not undone: those Codes pickle as their unit (the unit keeps its
graphs), never through here.  Nor are the inference passes of O1
(:mod:`.inference`: folded constants, fused nodes): the graph given back is the
one they made, the graph the table was built from, and building it again runs
them again, finding nothing more to rewrite.
"""

from __future__ import annotations

from typing import Iterator, List

from ..ir.graph import Block, Graph, Node, replace_all_uses
from ..ir.symbols import prim
from ..ir.traversal import walk_blocks

__all__ = ["restore_source"]


def restore_source(graph: Graph, *, desugared: bool) -> Graph:
    """The graph ``preprocess`` was given, rebuilt from its result ``graph`` (which
    is not changed): the same nodes, types, names and source locations, in the
    same order.  ``desugared``: the Loops' trip counts were desugared (O0)."""
    g = graph.copy()
    drops: List[Node] = []
    loops: List[Node] = []

    def scan(block: Block) -> Iterator[Block]:
        for n in block.nodes():
            if n.kind == prim.Drop:
                drops.append(n)
            elif n.kind == prim.Loop:
                loops.append(n)
            yield from n.blocks

    walk_blocks(g.block, scan)
    for n in drops:
        n.destroy()
    _restore_io(g)
    if desugared:
        for n in loops:
            _fold_counter(n)
    return g


def _restore_io(g: Graph) -> None:
    load, store = g.nodes().front(), g.nodes().back()
    if load.kind != prim.Load or store.kind != prim.Store:
        raise ValueError("restore_source takes a preprocessed graph: it starts with a "
                         "prim::Load and ends with a prim::Store")
    for v in store.inputs:
        g.register_output(v)
    store.destroy()
    replacements = []
    for v in load.outputs:
        name = v.debug_name if v.has_debug_name() else None
        v.set_debug_name(None)   # so the input takes the name itself, not name.1
        replacements.append((v, g.add_input(name, v.type)))
    replace_all_uses(replacements)
    load.destroy()


def _fold_counter(loop: Node) -> None:
    """Undo ``desugar_trip_counts`` on one Loop (see the module docstring)."""
    body = loop.blocks[0]
    # Before the Loop: cond' = (0 < max) and cond, the counter starting at 0.
    entry_and = loop.input(0).node
    entry_lt = entry_and.input(0).node
    max_trip_count, cond = entry_lt.input(1), entry_and.input(1)
    zero = loop.input(1).node
    loop.remove_input(1)
    loop.replace_input(0, cond)
    loop.insert_input(0, max_trip_count)
    # At the end of the body: cond' = (i + 1 < max) and cond, i + 1 carried.
    exit_and = body.outputs[0].node
    exit_lt = exit_and.input(0).node
    bump = body.outputs[1].node
    one = bump.input(1).node
    body_cond = exit_and.input(1)
    body.erase_output(0)
    body.erase_output(0)
    body.insert_output(0, body_cond)
    loop.erase_output(0)
    for n in (entry_and, entry_lt, exit_and, exit_lt, bump):
        n.destroy()
    for n in (zero, one):
        if not n.output().has_uses():
            n.destroy()
