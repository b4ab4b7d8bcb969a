"""``flatten_io``: replace a graph's inputs and outputs by ``prim::Load``/``prim::Store``."""

from __future__ import annotations

from ..ir.graph import Graph, replace_all_uses
from ..ir.symbols import prim

__all__ = ["flatten_io"]


def flatten_io(graph: Graph) -> None:
    """Turn the graph's inputs into the outputs of a ``prim::Load`` node at its start
    and its outputs into the inputs of a ``prim::Store`` node at its end; the graph
    is left with no inputs and no outputs.

    Why: the code generator then needs no special case for the boundary of the
    graph.  Loading the arguments is an instruction whose outputs are registers
    (the arguments come off the stack), and storing the results is an instruction
    whose inputs are registers (with move flags like any other use, so the last
    use of a result moves it onto the stack).

    Before::

        graph(%x : int, %y : int):
          %z : int = aten::add(%x, %y)
          return (%z, %x)

    After::

        graph():
          %x : int, %y : int = prim::Load()
          %z : int = aten::add(%x, %y)
           = prim::Store(%z, %x)
          return ()

    Debug names: as in the seed, each Load output is a new value (a fresh unique
    id) with the input's type, and all uses of the input are redirected to it.  The
    seed leaves the new values unnamed; here, for readable listings, the input's
    debug name moves to its Load output: the input's name is cleared first, so the
    name is never held twice (no ``.1`` renaming) and, after the inputs are erased,
    each name exists exactly once.  An unnamed input gives an unnamed output.
    """
    load = graph.prepend_node(graph.create(prim.Load, [], 0))
    replacements = []
    for old_input in graph.inputs:
        new_value = load.add_output(old_input.type)
        replacements.append((old_input, new_value))
        if old_input.has_debug_name():
            name = old_input.debug_name
            old_input.set_debug_name(None)
            new_value.set_debug_name(name)
    # All at once: a node using many of the inputs has its inputs rewritten once.
    replace_all_uses(replacements)
    graph.append_node(graph.create(prim.Store, graph.outputs, 0))

    # From the last, so that no input or output is renumbered.
    for i in reversed(range(len(graph.inputs))):
        graph.erase_input(i)
    for i in reversed(range(len(graph.outputs))):
        graph.erase_output(i)
