"""Calls to other scripted functions are inlined: the callee's graph is copied in at
the call site, its inputs replaced by the arguments (what torch's Inline pass
does to ``prim::CallFunction``).  The copied nodes keep the callee's source
locations, so an error inside the callee points into the callee's code."""

from __future__ import annotations

from typing import Dict, List, Optional, Sequence

from ..ir import Block, Graph, Node, Value

__all__ = ["inline_graph"]


def inline_graph(graph: Graph, callee: Graph, inputs: Sequence[Value]) -> List[Value]:
    """Insert a copy of ``callee``'s nodes at ``graph``'s insertion point with its
    inputs bound to ``inputs``; returns the values of its outputs."""
    if len(inputs) != len(callee.inputs):
        raise ValueError(f"the callee takes {len(callee.inputs)} inputs, {len(inputs)} given")
    env: Dict[Value, Value] = dict(zip(callee.inputs, inputs))
    for node in callee.nodes():
        _clone(graph, node, env, None)
    return [env[v] for v in callee.outputs]


def _clone(graph: Graph, node: Node, env: Dict[Value, Value], dest: Optional[Block]) -> None:
    m = graph.create(node.kind, [env[v] for v in node.inputs], num_outputs=len(node.outputs))
    for old, new in zip(node.outputs, m.outputs):
        new.set_type(old.type)
        if old.has_debug_name():
            new.set_debug_name(old.debug_name.split(".")[0])
        env[old] = new
    m.attrs = dict(node.attrs)
    m.source_location = node.source_location
    m.scope = node.scope
    if dest is None:
        graph.insert_node(m)
    else:
        dest.append_node(m)
    for b in node.blocks:
        nb = m.add_block()
        for v in b.inputs:
            env[v] = nb.add_input(v.debug_name.split(".")[0] if v.has_debug_name() else None,
                                  v.type)
        for inner in b.nodes():
            _clone(graph, inner, env, nb)
        for v in b.outputs:
            nb.register_output(env[v])
