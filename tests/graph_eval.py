"""A direct tree-walking evaluator of graphs: the oracle for differential tests.

It runs the *original* graph (no passes, no instruction table, no registers):
values live in a dict, If picks a block, Loop iterates its body while
``i < max_trip_count and cond``.  Operators come from the same registry as the
interpreter's, so a disagreement points at the passes, the code generator or a
loop, never at an operator.
"""

from __future__ import annotations

from typing import Any, Dict, List, Sequence

from pyjit.ir import Graph, Value
from pyjit.ir.symbols import prim
from pyjit.registry import Registry, default_registry


def evaluate(graph: Graph, args: Sequence[Any], registry: Registry = None) -> List[Any]:
    """The graph's outputs, as a list, for ``args``."""
    import pyjit.ops  # noqa: F401  (fills the default registry)
    from pyjit.ops.constants import constant_value

    registry = registry or default_registry
    env: Dict[Value, Any] = dict(zip(graph.inputs, args))

    def run_block(block, inputs: Sequence[Any]) -> List[Any]:
        for v, x in zip(block.inputs, inputs):
            env[v] = x
        for node in block.nodes():
            ins = [env[v] for v in node.inputs]
            if node.kind == prim.Constant:
                outs = [constant_value(node)]
            elif node.kind == prim.If:
                outs = run_block(node.blocks[0 if ins[0] else 1], ())
            elif node.kind == prim.Loop:
                max_trip, cond, carried = ins[0], ins[1], ins[2:]
                i = 0
                while i < max_trip and cond:
                    res = run_block(node.blocks[0], [i, *carried])
                    cond, carried = res[0], res[1:]
                    i += 1
                outs = list(carried)
            else:
                result = registry.lookup(node).fn(*ins)
                n = len(node.outputs)
                outs = [] if n == 0 else [result] if n == 1 else list(result)
            for v, x in zip(node.outputs, outs):
                env[v] = x
        return [env[v] for v in block.outputs]

    return run_block(graph.block, args)
