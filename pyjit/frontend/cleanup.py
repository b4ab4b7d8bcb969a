"""Tidying an emitted graph: drop the scaffolding nobody reads, pool the constants.

The emitter lowers exits with flag variables that it merges through every If
and Loop on the way, whether or not anything reads them afterwards (a
``continue`` flag is dead at the end of its loop body, a ``return`` flag after
the last statement).  :func:`cleanup` removes

* If outputs without uses (and the matching block outputs),
* loop-carried values whose output and body input are unused (besides carrying
  themselves around),
* constants, ``prim::Uninitialized``, ``prim::unchecked_cast`` and the boolean
  ``__or__``/``__not__`` of flags when nothing uses them, and Ifs left with no
  outputs and two empty blocks,

and then moves every constant to the top of the graph, one node per distinct
value, as torch's ConstantPooling does, so loops do not re-create them.
User computations are never removed, even when unused: they may raise, and
Python would have raised.
"""

from __future__ import annotations

from typing import Dict, List, Tuple

from ..ir import Block, Graph, Node
from ..ir.printer import format_attr_value

__all__ = ["cleanup", "eliminate_dead_scaffolding", "pool_constants"]

_PURE = {"prim::Constant", "prim::Uninitialized", "prim::unchecked_cast"}
_PURE_BOOL = {"aten::__or__", "aten::__not__"}


def cleanup(graph: Graph) -> None:
    eliminate_dead_scaffolding(graph)
    pool_constants(graph)


def eliminate_dead_scaffolding(graph: Graph) -> None:
    while _sweep(graph.block):
        pass


def _removable(node: Node) -> bool:
    if node.kind in _PURE:
        return True
    if node.kind in _PURE_BOOL:
        return all(str(v.type) == "bool" for v in node.inputs)
    return False


def _sweep(block: Block) -> bool:
    """One backwards pass over ``block`` and its nested blocks; True if anything
    changed."""
    changed = False
    for node in list(block.nodes().reverse()):
        if node.kind == "prim::If":
            for i in reversed(range(len(node.outputs))):
                if not node.outputs[i].has_uses():
                    for b in node.blocks:
                        b.erase_output(i)
                    node.erase_output(i)
                    changed = True
        elif node.kind == "prim::Loop":
            changed |= _drop_dead_carried(node)
        for b in node.blocks:
            changed |= _sweep(b)
        if any(v.has_uses() for v in node.outputs):
            continue
        if _removable(node) or (node.kind == "prim::If" and not node.outputs and
                                all(not b.nodes() for b in node.blocks)):
            node.destroy()
            changed = True
    return changed


def _drop_dead_carried(loop: Node) -> bool:
    body = loop.blocks[0]
    changed = False
    for j in reversed(range(len(loop.outputs))):
        out, param = loop.outputs[j], body.inputs[j + 1]
        if out.has_uses():
            continue
        if any(u.user is not body.return_node or u.offset != j + 1 for u in param.uses):
            continue
        body.erase_output(j + 1)
        body.erase_input(j + 1)
        loop.remove_input(j + 2)
        loop.erase_output(j)
        changed = True
    return changed


def pool_constants(graph: Graph) -> None:
    """One ``prim::Constant`` per distinct (type, value) and one
    ``prim::Uninitialized`` per type, all at the top of the graph."""
    first: Dict[Tuple[str, str], Node] = {}
    hoisted: List[Node] = []
    stack = [graph.block]
    found: List[Node] = []
    while stack:
        block = stack.pop()
        for node in block.nodes():
            if node.kind in ("prim::Constant", "prim::Uninitialized"):
                found.append(node)
            stack.extend(reversed(node.blocks))
    for node in found:
        v = node.output()
        # Every attribute: a Function constant's value is its name.
        key = (node.kind + ":" + str(v.type),
               ",".join(f"{k}={type(a).__name__}:{format_attr_value(a)}"
                        for k, a in node.attrs.items()))
        keep = first.get(key)
        if keep is None:
            first[key] = node
            hoisted.append(node)
            continue
        v.replace_all_uses_with(keep.output())
        node.destroy()
    anchor = graph.param_node
    for node in hoisted:
        node.move_after(anchor)
        anchor = node
