"""``call_context_methods``: a ``with`` statement on an object of a TorchScript
class calls the class's ``__enter__`` and ``__exit__`` (as torch's interpreter
does for ``prim::Enter``/``prim::Exit`` on an object).

Before (``%c : __torch__.m.Context``, whose class the unit holds with both
methods)::

    %m : Tensor = prim::Enter(%c)
    ...
    %e : Tensor = prim::Exit(%c)

After::

    %m : Tensor = prim::CallMethod[name="__enter__"](%c)
    ...
    %n : NoneType = prim::Constant()
    %e : NoneType = prim::CallMethod[name="__exit__"](%c, %n, %n, %n)

(the outputs keep their names; ``%e`` takes ``__exit__``'s type).

``__exit__`` takes the exception's type, value and traceback, all None on the
way out of the block.  An Enter or Exit on anything else (a Python object passed
in, a receiver whose class the unit does not hold) stays, and runs the Python
object's own ``__enter__``/``__exit__`` (:mod:`pyjit.ops.prim`).  torch also calls
``__exit__`` when the block raises; pyjit does not yet.
"""

from __future__ import annotations

from typing import List

from ..ir import Graph, Node
from ..ir import types as T
from ..ir.symbols import prim

__all__ = ["call_context_methods"]

_METHODS = {"prim::Enter": "__enter__", "prim::Exit": "__exit__"}


def call_context_methods(graph: Graph, unit) -> int:
    """Rewrite ``graph``'s ``prim::Enter``/``prim::Exit`` nodes (in nested blocks
    too; fork subgraphs are compiled, and rewritten, on their own) whose receiver
    is of a class ``unit`` holds the method for; returns how many."""
    count = 0
    for node in _context_nodes(graph):
        name = _METHODS[node.kind]
        if len(node.inputs) != 1 or len(node.outputs) != 1:
            continue  # not a with statement's node: the operator reports it
        receiver = node.inputs[0]
        callee = unit.find_method(str(receiver.type), name)
        if callee is None or len(callee.graph.outputs) != 1:
            continue
        with graph.inserting_before(node):
            args = [receiver]
            if name == "__exit__":
                none = graph.insert_constant(None, T.NONE, node.source_location)
                args += [none, none, none]
            call = graph.create(prim.CallMethod, args, num_outputs=1)
            call.attrs = {"name": name}
            call.source_location = node.source_location
            call.scope = node.scope
            call.output().set_type(callee.graph.outputs[0].type)
            graph.insert_node(call)
        old = node.output()
        name = old.debug_name if old.has_debug_name() else None
        old.replace_all_uses_with(call.output())
        node.destroy()
        if name is not None:  # the with statement's target keeps its name
            call.output().set_debug_name(name)
        count += 1
    return count


def _context_nodes(graph: Graph) -> List[Node]:
    found: List[Node] = []
    blocks = [graph.block]
    while blocks:
        for node in blocks.pop().nodes():
            if node.kind in _METHODS:
                found.append(node)
            blocks.extend(node.blocks)
    return found
