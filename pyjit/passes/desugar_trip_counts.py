"""``desugar_trip_counts``: turn a Loop's trip count into an ordinary loop-carried int.

A ``prim::Loop`` node carries two pieces of control state the interpreter has no
instruction for: a maximum trip count (its input 0) and an iteration counter (its
body's input 0), which the loop is supposed to bump and compare by itself.  This
pass spells both out as plain operators, so that afterwards a Loop is only "run
the body while the condition holds" and its code is just assignments and jumps.
"""

from __future__ import annotations

from typing import Iterator

from ..ir import types as T
from ..ir.graph import Block, Graph, Value
from ..ir.symbols import aten, prim
from ..ir.traversal import walk_blocks

__all__ = ["desugar_trip_counts"]


def _trip_count_condition(g: Graph, trip_count: Value, max_trip_count: Value,
                          cond: Value) -> Value:
    """Insert ``(trip_count < max_trip_count) and cond`` at the insertion point
    (the seed's ``createTripCountConjunctiveCondition``)."""
    below_max = g.insert_node(
        g.create(aten.lt, [trip_count, max_trip_count])).output().set_type(T.BOOL)
    return g.insert_node(
        g.create(aten.__and__, [below_max, cond])).output().set_type(T.BOOL)


def desugar_trip_counts(block: Block) -> None:
    """Make the iteration counter of every Loop in ``block`` (and in its nested
    blocks) a loop-carried value, and fold the maximum trip count into the loop
    condition.

    For each ``prim::Loop`` node, in the seed's order of creation and insertion:

    * a new output 0 is inserted on the Loop (the counter's final value; typed
      ``int`` here, where the seed leaves it with the default Tensor type);
    * before the Loop: ``i = 0``; the max trip count input is removed and ``i`` is
      inserted as carried input 1; the initial condition becomes
      ``(0 < max_trip_count) and cond`` (``aten::lt`` then ``aten::__and__``);
    * at the end of the body: ``i + 1`` (``aten::add``) becomes block output 1,
      and the body's condition output 0 becomes ``(i + 1 < max_trip_count) and
      cond``.

    Why: the interpreter's loop is only ``JumpZ``/``JumpNZ`` on a condition plus
    assignments of the carried values; after this pass the counter is one more
    carried value and needs nothing special.  A while loop (max trip count
    ``9223372036854775807``) is desugared the same way: the comparison is simply
    always true.

    Before::

        graph(%n : int, %x : int):
          %c : bool = prim::Constant[value=1]()
          %r : int = prim::Loop(%n, %c, %x)
            block0(%i : int, %acc : int):
              %acc.2 : int = aten::add(%acc, %i)
              -> (%c, %acc.2)
          return (%r)

    After::

        graph(%n : int, %x : int):
          %c : bool = prim::Constant[value=1]()
          %8 : int = prim::Constant[value=0]()
          %9 : bool = aten::lt(%8, %n)
          %10 : bool = aten::__and__(%9, %c)
          %7 : int, %r : int = prim::Loop(%10, %8, %x)
            block0(%i : int, %acc : int):
              %acc.2 : int = aten::add(%acc, %i)
              %11 : int = prim::Constant[value=1]()
              %12 : int = aten::add(%i, %11)
              %13 : bool = aten::lt(%12, %n)
              %14 : bool = aten::__and__(%13, %c)
              -> (%14, %12, %acc.2)
          return (%r)

    Nested blocks are visited as the seed's recursion visits them, through
    :func:`~pyjit.ir.traversal.walk_blocks`, so nesting depth is not limited by
    Python's recursion limit.
    """
    walk_blocks(block, _desugar_block)


def _desugar_block(block: Block) -> Iterator[Block]:
    for n in block.nodes():
        if n.kind == prim.Loop:
            g = n.owning_graph
            body = n.blocks[0]
            block_trip_count = body.inputs[0]
            # The counter is a loop-carried dependency: the Loop gets an output for
            # its final value, the body increments it at its end.
            n.insert_output(0, T.INT)
            max_trip_count = n.input(0)
            with g.inserting_before(n):
                initial_trip_count = g.insert_constant(0)
                n.remove_input(0)
                # Input 0 is now the initial condition; carried values start at 1.
                n.insert_input(1, initial_trip_count)
                new_cond = _trip_count_condition(
                    g, initial_trip_count, max_trip_count, n.input(0))
                n.replace_input(0, new_cond)
            with g.inserting_before(body):
                one = g.insert_constant(1)
                next_trip_count = g.insert_node(
                    g.create(aten.add, [block_trip_count, one])).output().set_type(T.INT)
                body.insert_output(1, next_trip_count)
                body_cond = _trip_count_condition(
                    g, next_trip_count, max_trip_count, body.outputs[0])
                body.erase_output(0)
                body.insert_output(0, body_cond)
        yield from n.blocks
