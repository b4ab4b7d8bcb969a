"""``inline_calls``: replace calls by copies of the graphs they call (torch's
``Inline`` pass).

Before (``helper`` in the unit is ``graph(%a : int): %b = aten::mul(%a, %a) ...``)::

    graph(%x : int):
      %f : Function = prim::Constant[name="helper"]()
      %y : int = prim::CallFunction(%f, %x)
      return (%y)

After::

    graph(%x : int):
      %b : int = aten::mul(%x, %x)        # the callee's node, its location kept
      return (%b)

Calls in the copied nodes are inlined in turn, calls inside ``prim::fork``
subgraphs too (torch's pass leaves those); a ``Function`` constant nothing uses
any more is removed.  Interpretation never needs it -- a call runs as an
``INVOKE`` -- but an inlined graph is one graph, which a tool that reads graphs
(or a unit-less :class:`~pyjit.Function`) can take on its own.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Tuple

from ..ir import Block, Graph, Node, Value
from ..ir.calls import CALL_KINDS, call_arguments, call_target, describe_target
from ..ir.graph import IRError, copy_attribute
from ..ir.symbols import prim
from ..ir.traversal import walk_blocks

__all__ = ["inline_calls", "inline_graph"]


def inline_calls(graph: Graph, unit) -> int:
    """Inline every call in ``graph`` (in place), looking callees up in ``unit`` (a
    :class:`~pyjit.CompilationUnit`, or anything with its ``find_function`` and
    ``find_method``); returns how many calls were inlined.

    Raises:
        IRError: a callee the unit does not hold, a call that does not name its
            callee, a callee whose inputs or outputs the call does not match, or
            a recursive call (inlining it would never end); the message names
            the call and the chain of callees.
    """
    count = 0
    # Each call to inline, with the callees it was copied out of (outermost first).
    todo: List[Tuple[Node, Tuple[str, ...]]] = [(n, ()) for n in _calls(graph)]
    while todo:
        node, chain = todo.pop()
        try:
            target = call_target(node)
        except ValueError as exc:
            raise IRError(f"cannot inline {node!r}: {exc}") from None
        cls, name = target
        callee = unit.find_function(name) if cls is None else unit.find_method(cls, name)
        what = describe_target(target)
        if callee is None:
            raise IRError(f"cannot inline the call of {what}: the unit does not hold it")
        if callee.qualified_name in chain:
            path = " -> ".join(chain + (callee.qualified_name,))
            raise IRError(f"cannot inline the call of {what}: it is recursive ({path})")
        args = call_arguments(node)
        g = callee.graph
        if len(args) != len(g.inputs) or len(node.outputs) != len(g.outputs):
            raise IRError(f"cannot inline the call of {what}: it passes {len(args)} "
                          f"arguments and takes {len(node.outputs)} results, but the "
                          f"callee takes {len(g.inputs)} and returns {len(g.outputs)}")
        owner = node.owning_graph
        with owner.inserting_before(node):
            outputs, copied = inline_graph(owner, g, args)
        for old, new in zip(node.outputs, outputs):
            old.replace_all_uses_with(new)
        fn = node.inputs[0] if node.kind == prim.CallFunction else None
        node.destroy()
        if fn is not None and not fn.has_uses():
            fn.node.destroy()
        inner = chain + (callee.qualified_name,)
        todo.extend((n, inner) for n in copied if n.kind in CALL_KINDS)
        todo.extend((c, inner) for m in copied for sub in _subgraphs(m) for c in _calls(sub))
        count += 1
    return count


def inline_graph(graph: Graph, callee: Graph,
                 inputs: Sequence[Value]) -> Tuple[List[Value], List[Node]]:
    """Insert a copy of ``callee``'s nodes at ``graph``'s insertion point, its inputs
    bound to ``inputs``.  Returns the values of its outputs and the nodes copied
    (nested blocks' included).  The copies keep the callee's source locations, so
    an error in them points into the callee's code; graph-valued attributes (fork
    subgraphs) are copied, never shared with the callee."""
    if len(inputs) != len(callee.inputs):
        raise ValueError(f"the callee takes {len(callee.inputs)} inputs, {len(inputs)} given")
    env: Dict[Value, Value] = dict(zip(callee.inputs, inputs))
    copied: List[Node] = []

    def scan(pair: Tuple[Block, Optional[Block]]):
        src, dest = pair
        for node in src.nodes():
            m = graph.create(node.kind, [env[v] for v in node.inputs],
                             num_outputs=len(node.outputs))
            for old, new in zip(node.outputs, m.outputs):
                new.set_type(old.type)
                if old.has_debug_name():
                    new.set_debug_name(_base_name(old.debug_name))
                env[old] = new
            m.attrs = {k: copy_attribute(a) for k, a in node.attrs.items()}
            m.source_location = node.source_location
            m.scope = node.scope
            if dest is None:
                graph.insert_node(m)
            else:
                dest.append_node(m)
            copied.append(m)
            for b in node.blocks:
                nb = m.add_block()
                for v in b.inputs:
                    env[v] = nb.add_input(_base_name(v.debug_name) if v.has_debug_name()
                                          else None, v.type)
                yield (b, nb)
        if dest is not None:
            for v in src.outputs:
                dest.register_output(env[v])

    walk_blocks((callee.block, None), scan)
    return [env[v] for v in callee.outputs], copied


def _base_name(name: str) -> str:
    """``x.3`` -> ``x``: the graph adds its own suffix if the name is taken."""
    return name.split(".")[0]


def _subgraphs(node: Node) -> List[Graph]:
    return [a for a in node.attrs.values() if isinstance(a, Graph)] if node.attrs else []


def _calls(graph: Graph) -> List[Node]:
    """The call nodes of ``graph``, in nested blocks and fork subgraphs too."""
    found: List[Node] = []
    graphs = [graph]
    while graphs:
        blocks = [graphs.pop().block]
        while blocks:
            for node in blocks.pop().nodes():
                if node.kind in CALL_KINDS:
                    found.append(node)
                blocks.extend(node.blocks)
                graphs.extend(_subgraphs(node))
    return found
