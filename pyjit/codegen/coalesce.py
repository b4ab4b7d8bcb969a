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

# The If branches a block lies in: None at the top, else (If node, branch index,
# the path of the block holding the If, how many branches deep).  Linked, so a
# block's path is one tuple however deep it is nested (a tuple of all of them per
# block would make n nested Ifs cost n * n), and blocks in one branch share it.
Path = Optional[Tuple[Node, int, "Path", int]]

# A place in the code: its position on the line, and the If branches it lies in.
Place = Tuple[int, Path]


class _Places:
    """The place of every node and of every block's end."""

    def __init__(self, graph: Graph) -> None:
        # A node's branch path is its block's: per node only its position is
        # kept (a million nodes would otherwise hold a million tuples).
        self.node: Dict[Node, int] = {}
        self.path: Dict[Block, Path] = {graph.block: None}
        self.end: Dict[Block, Place] = {}
        counter = 0
        # Iterative pre-order: each entry a block, its branch path and where its
        # walk is; a node's blocks are walked before the node's successors.
        stack: List[Tuple[Block, Path, Iterator[Node]]] = [
            (graph.block, None, iter(graph.block.nodes()))]
        while stack:
            block, path, nodes = stack[-1]
            node = next(nodes, None)
            if node is None:
                stack.pop()
                self.end[block] = (counter, path)
                counter += 1
                continue
            self.node[node] = counter
            counter += 1
            blocks = node._blocks
            for k in range(len(blocks) - 1, -1, -1):
                sub = ((node, k, path, 1 + (path[3] if path else 0))
                       if node._kind == prim.If else path)
                self.path[blocks[k]] = sub
                stack.append((blocks[k], sub, iter(blocks[k].nodes())))

    def at(self, node: Node) -> Place:
        """The place of ``node``."""
        return self.node[node], self.path[node.owning_block]

    def of_use(self, user: Node) -> Place:
        """Where a use by ``user`` reads: a block's return hands values on at the
        block's end."""
        owner = user.owning_block
        if user is owner.return_node:
            return self.end[owner]
        return self.at(user)


def _exclusive(a: Place, b: Place) -> bool:
    """Places in different branches of one If: never both in one pass.  That is
    decided where their paths part, outermost first: in two branches of one If,
    or in two different Ifs (not exclusive), or nowhere (one place lies inside
    the other's branches: not exclusive)."""
    pa, pb = a[1], b[1]
    if pa is None or pb is None:
        return False
    while pa[3] > pb[3]:  # to the same depth: the part below cannot decide
        pa = pa[2]
    while pb[3] > pa[3]:
        pb = pb[2]
    if pa is pb:
        return False
    # Each (If, branch) has one path entry, shared by all inside it: climb to
    # the entries whose outer paths are one.
    while pa[2] is not pb[2]:
        pa, pb = pa[2], pb[2]
    return pa[0] is pb[0] and pa[1] != pb[1]


def coalesce(graph: Graph, homes: Homes) -> Dict[Value, Value]:
    """``{value: other}``: scalar values that live in the register of ``other``
    (itself possibly mapped on), chosen as the module docstring says."""
    if not homes.control_flow:
        return {}  # no block hands a value on: nothing to share
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
                plan.append(places.at(x.node))
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
    before_ifs: List[Value] = []
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
                    before_ifs.append(w)

    # A share made later can add writes to a register whose values were checked
    # before it (an inner If's value computed in place, inside the range of an
    # outer one's): check each value computed before its If again, against every
    # write its register now has after its definition, and let those that
    # conflict keep their MOVE.  Undoing a share only moves one write later
    # within the same branch, so it never makes another check fail.
    for w in before_ifs:
        top = share[w]                  # an If output; its If's output, if shared...
        while top in share and share[top].node.kind == prim.If:
            top = share[top]
        # An If's output is written where its branches end.
        start = (max(places.end[b][0] for b in w.node.blocks) if w.node.kind == prim.If
                 else places.at(w.node)[0])
        plan = writes(top, _CHECK_BUDGET // len(w.uses))
        if plan is None or not fits(w, [p for p in plan if p[0] > start]):
            del share[w]

    # Then the values a Loop's body hands round to its inputs.
    for node in places.node:
        if node.kind != prim.Loop:
            continue
        body = node.blocks[0]
        for p, v in zip(body.inputs[1:], body.outputs[1:]):
            if (v.node.owning_block is not body or list(body.outputs).count(v) != 1
                    or v in share):
                continue  # handed on from outside, or twice, or computed elsewhere
            if computable(v, p) and fits(p, writes(v)):
                share[v] = p
    return share
