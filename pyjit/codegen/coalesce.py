"""Which scalar values can share a register, so that a block's outputs need no MOVE.

A scalar value that a block hands on -- to an If's output, or round a Loop to its
body input -- is copied there by a ``MOVE`` at the end of the block.  The copy is
unnecessary when the value can be computed straight into the register it is
copied to::

    body(n, steps):                              body(n, steps):
      m = If c:                                    If c:
            h = FLOORDIV_I n, 2     -> (h)               n = FLOORDIV_I n, 2
          else: t = MUL_I 3, n                         else: t = MUL_I 3, n
                u = ADD_I t, 1      -> (u)                   n = ADD_I t, 1
      s = ADD_I steps, 1                           steps = ADD_I steps, 1
      -> (m, s)           [MOVE n, steps := m, s]  -> ()                [no MOVE]

That is allowed when the register's old value is not needed any more where the
new one is written: every use of the body input (``n``) comes at or before each
write (an intrinsic reads its inputs before it writes its output, so
``n = FLOORDIV_I n, 2`` is fine), or lies in the other branch of an If, which
cannot run in the same pass.  Uses are placed on one line, the order the code is
emitted in; a use that hands the input on (a block output, the back edge's
condition) is at the end of its block.

Only scalar values are coalesced: object registers carry move flags and
reference counts, which the seed's lowering keeps exactly.
"""

from __future__ import annotations

from collections import Counter
from typing import Dict, Iterator, List, Optional, Tuple

from ..ir import Block, Graph, Node, Value
from ..ir.symbols import prim
from .homes import Homes, is_constant

__all__ = ["coalesce"]

# How many (use, write) pairs the check of one value computed into an If's output
# register may compare.
_CHECK_BUDGET = 256

# A place in the code: its position on the line, and the If branches it lies in
# (If node, branch index), outermost first.
Place = Tuple[int, Tuple[Tuple[Node, int], ...]]


class _Places:
    """The place of every node and of every block's end."""

    def __init__(self, graph: Graph) -> None:
        self.node: Dict[Node, Place] = {}
        self.end: Dict[Block, Place] = {}
        counter = 0
        # Iterative pre-order: each entry a block, its branch path and where its
        # walk is; a node's blocks are walked before the node's successors.
        stack: List[Tuple[Block, Tuple[Tuple[Node, int], ...], Iterator[Node]]] = [
            (graph.block, (), iter(graph.block.nodes()))]
        while stack:
            block, path, nodes = stack[-1]
            node = next(nodes, None)
            if node is None:
                stack.pop()
                self.end[block] = (counter, path)
                counter += 1
                continue
            self.node[node] = (counter, path)
            counter += 1
            for k in range(len(node.blocks) - 1, -1, -1):
                sub = path + ((node, k),) if node.kind == prim.If else path
                stack.append((node.blocks[k], sub, iter(node.blocks[k].nodes())))

    def of_use(self, user: Node) -> Place:
        """Where a use by ``user`` reads: a block's return hands values on at the
        block's end."""
        owner = user.owning_block
        if user is owner.return_node:
            return self.end[owner]
        return self.node[user]


def _exclusive(a: Place, b: Place) -> bool:
    """Places in different branches of one If: never both in one pass."""
    for (na, ka), (nb, kb) in zip(a[1], b[1]):
        if na is not nb:
            return False
        if ka != kb:
            return True
    return False


def coalesce(graph: Graph, homes: Homes) -> Dict[Value, Value]:
    """``{value: other}``: scalar values that live in the register of ``other``
    (itself possibly mapped on), chosen as the module docstring says."""
    places = _Places(graph)
    share: Dict[Value, Value] = {}

    def computable(v: Value, into: Value) -> bool:
        """``v`` is written by one instruction of its own (not a block input, a
        constant or a Loop's output, which live elsewhere)."""
        kind = homes.kind(v)
        return (kind is not None and kind == homes.kind(into) and not is_constant(v)
                and v.node in places.node and v.node.kind != prim.Loop)

    # If outputs first: a value a branch computes only to hand it to the If is
    # computed in the If output's register (nothing reads that register before).
    for node in places.node:
        if node.kind != prim.If:
            continue
        for k, out in enumerate(node.outputs):
            for block in node.blocks:
                w = block.outputs[k]
                if (w.node.owning_block is block and len(w.uses) == 1
                        and computable(w, out)):
                    share[w] = out

    def writes(v: Value, limit: Optional[int] = None) -> Optional[List[Place]]:
        """Where the register of ``v`` is written, following the If outputs computed
        in place above: the instruction of each value that shares it, or the MOVE
        at the end of a branch that does not.  None when there are more than
        ``limit``."""
        plan: List[Place] = []
        stack = [v]
        while stack:
            if limit is not None and len(plan) > limit:
                return None
            x = stack.pop()
            if x.node.kind == prim.If:
                for block in x.node.blocks:
                    w = block.outputs[x.offset]
                    if share.get(w) is x:
                        stack.append(w)
                    else:
                        plan.append(places.end[block])
            else:
                plan.append(places.node[x.node])
        return plan

    def fits(p: Value, plan: List[Place]) -> bool:
        """No use of ``p`` (the register's old value) comes after a write in
        ``plan`` that can run in the same pass."""
        for use in p.uses:
            if use.user.kind == prim.Drop:
                continue  # a scalar has nothing to release
            at = places.of_use(use.user)
            for w in plan:
                if w[0] < at[0] and not _exclusive(w, at):
                    return False
        return True

    # Then a value computed before an If that one branch hands on unchanged
    # (``if s > k: s = s - k`` keeps ``s`` in the other branch): computed in the
    # If output's register, it needs no MOVE, when every use of it comes before
    # the other branches overwrite that register.
    # Checking costs uses x writes: a value used or written more widely than
    # _CHECK_BUDGET allows keeps its MOVE, so that the build stays linear.
    for node in places.node:
        if node.kind != prim.If:
            continue
        outer = node.owning_block
        handed = Counter(w for block in node.blocks for w in block.outputs)
        for k, out in enumerate(node.outputs):
            for block in node.blocks:
                w = block.outputs[k]
                if (w in share or w.node.owning_block is not outer or handed[w] != 1
                        or len(w.uses) > _CHECK_BUDGET or not computable(w, out)):
                    continue
                plan = writes(out, _CHECK_BUDGET // len(w.uses))
                if plan is not None and fits(w, plan):
                    share[w] = out

    # Then the values a Loop's body hands round to its inputs.
    for node in places.node:
        if node.kind != prim.Loop:
            continue
        body = node.blocks[0]
        for p, v in zip(body.inputs[1:], body.outputs[1:]):
            if v.node.owning_block is not body or list(body.outputs).count(v) != 1:
                continue  # handed on from outside, or twice
            if computable(v, p) and fits(p, writes(v)):
                share[v] = p
    return share
