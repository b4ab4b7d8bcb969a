"""``Graph.lint()``: the invariants every pass must preserve.

The mutators of :mod:`pyjit.ir.graph` keep these by themselves; lint is for
finding the pass (or the hand-made graph) that broke one.  It checks, with the
first violation raised as an :class:`IRError` naming the node:

=================  ==========================================================
ownership          a block's param/return nodes point back at it; a nested
                   block names the node that holds it (the top block none);
                   every node in a block says so and belongs to this graph
links              ``prev``/``next`` agree along each block's list, which closes
                   at the return node (so the walk ends: a node reached twice
                   would need two different ``prev`` nodes)
kinds              ``prim::Param``/``prim::Return`` nodes only as a block's own
                   (never in its node list); a param node has no inputs, a
                   return node no outputs, a ``prim::Constant`` no inputs (as
                   torch's ``Node::lint``)
outputs            each output records its node and offset; ids are unique and
                   below the graph's next id
scoping            each input is a value of this graph defined before its use,
                   in the same block or an enclosing one (a node's outputs are
                   not in scope in its own blocks)
use lists          a value's use list names each node as often as the node
                   has it among its inputs, and names no other node
names              the graph's name table holds exactly the named values
subgraphs          graph-valued attributes are linted too
=================  ==========================================================

The walk keeps its own stack, so deep nesting cannot hit the recursion limit,
and every check costs O(1) per node, input or use, so linting is linear in the
size of the graph whatever its shape: one set holds the values in scope (a
block's leave it when the block ends), long use and input lists are counted
once rather than searched once per input, and the use lists as a whole are
checked by their total length (every input slot of a live node accounts for
exactly one entry, so any other entry makes the total too large).
"""

from __future__ import annotations

from collections import Counter
from typing import Dict, List, Set
from .graph import Graph, IRError, Node, Value, _users

__all__ = ["lint_graph"]

# Lists up to this long are searched; longer ones are counted once.
_SHORT = 8

# The kinds check_node looks at more closely (see checked_at_once).
_NOT_ORDINARY = frozenset(("prim::Param", "prim::Return", "prim::Constant"))


def _where(node: Node) -> str:
    from .printer import node_header
    return node_header(node).lstrip()


def lint_graph(graph: Graph) -> None:
    """Check ``graph``; raise :class:`IRError` describing the first violation."""
    _Linter(graph).run()


class _Linter:
    def __init__(self, graph: Graph) -> None:
        self.graph = graph
        self.uniques: Dict[int, Value] = {}
        self.n_named = 0                    # live values with a debug name
        self.users: Set[Node] = set()       # live nodes, return nodes included
        self.visible: Set[Value] = set()    # the values in scope
        self.scope: List[List[Value]] = []  # per open block, the values it defined
        self.use_counts: Dict[Value, Counter] = {}  # for long use lists
        self.slots = 0                      # input slots of live nodes
        self.subgraphs: List[Graph] = []

    # -- values ------------------------------------------------------------------
    def define(self, node: Node) -> None:
        local = self.scope[-1]
        for i, v in enumerate(node._outputs):
            if v._node is not node or v._offset != i:
                raise IRError(f"output {i} of {_where(node)} records node/offset "
                              f"{v._node.kind}/{v._offset}")
            if v._unique in self.uniques:
                raise IRError(f"value id {v._unique} is used twice (%{v.debug_name})")
            if v._unique >= self.graph._next_unique:
                raise IRError(f"value id {v._unique} of %{v.debug_name} is not below the "
                              f"graph's next id {self.graph._next_unique}")
            self.uniques[v._unique] = v
            local.append(v)
            self.visible.add(v)
            if v._name is not None:
                self.n_named += 1

    def check_inputs(self, node: Node) -> None:
        ins = node._inputs
        held = Counter(ins) if len(ins) > _SHORT else None
        graph, visible = self.graph, self.visible
        for i, v in enumerate(ins):
            if v._node._graph is not graph:
                raise IRError(f"input {i} of {_where(node)} belongs to another graph")
            if v not in visible:
                raise IRError(f"input %{v.debug_name} of {_where(node)} is not defined "
                              f"before this use in an enclosing scope")
            if v._uses is node and len(ins) == 1:
                continue  # the commonest case: its only use, by a one-input node
            if self.recorded(v, node) != (ins.count(v) if held is None else held[v]):
                raise IRError(f"use list of %{v.debug_name} does not record its use as "
                              f"input {i} of {_where(node)} exactly once")
        self.slots += len(ins)
        self.users.add(node)

    def recorded(self, v: Value, node: Node) -> int:
        """How often ``v``'s use list names ``node``."""
        uses = _users(v)
        if len(uses) <= _SHORT:
            return uses.count(node)
        counts = self.use_counts.get(v)
        if counts is None:
            try:
                counts = self.use_counts[v] = Counter(uses)
            except TypeError:  # an unhashable entry: not a node at all
                return uses.count(node)
        return counts[node]

    # -- nodes and blocks --------------------------------------------------------
    def check_node(self, node: Node, block) -> None:
        if node._block is not block:
            raise IRError(f"{_where(node)} is listed in a block it does not own")
        if node._graph is not self.graph:
            raise IRError(f"{_where(node)} belongs to another graph")
        if node is block._param or node is block._return or node._kind in (
                "prim::Param", "prim::Return"):
            raise IRError(f"a {node._kind} node is listed among a block's nodes")
        if node._kind == "prim::Constant" and node._inputs:
            raise IRError(f"{_where(node)}: a constant has no inputs")
        if node._attrs:
            for value in node._attrs.values():
                if isinstance(value, Graph):
                    self.subgraphs.append(value)
        self.check_inputs(node)

    def checked_at_once(self, node: Node, block, local: List[Value]) -> bool:
        """check_node and define for the commonest node, in one step: one
        output, at most one input (its only use), no attributes, of an ordinary
        kind.  Returns False, having changed nothing, for any other node, or for
        one that is not all right: the two methods then check it at length and
        say what is wrong.  A graph of a million nodes is mostly these."""
        outs = node._outputs
        ins = node._inputs
        if (len(outs) != 1 or len(ins) > 1 or node._attrs or node._block is not block
                or node._graph is not self.graph or node._kind in _NOT_ORDINARY):
            return False
        out = outs[0]
        u = out._unique
        if (out._node is not node or out._offset != 0 or u in self.uniques
                or u >= self.graph._next_unique):
            return False
        visible = self.visible
        if ins:
            v = ins[0]
            if v._uses is not node or v not in visible or v._node._graph is not self.graph:
                return False
            self.slots += 1
        self.users.add(node)
        self.uniques[u] = out
        local.append(out)
        visible.add(out)
        if out._name is not None:
            self.n_named += 1
        return True

    def enter(self, block, owner) -> list:
        if block._owning_node is not owner:
            where = f"a block of {_where(owner)}" if owner is not None else "the top block"
            raise IRError(f"{where} names another owning node")
        param, ret = block._param, block._return
        if param._block is not block or ret._block is not block:
            raise IRError("a block's param/return node does not point back at it")
        if param._kind != "prim::Param" or ret._kind != "prim::Return":
            raise IRError("a block's param/return nodes have the wrong kinds")
        if param._inputs:
            raise IRError("a block's param node has inputs")
        if ret._outputs:
            raise IRError("a block's return node has outputs")
        self.scope.append([])
        self.define(param)
        # Frame: the block, the last node checked, and the node whose blocks are
        # being visited (its outputs come into scope once they are done).
        return [block, ret, None]

    def run(self) -> None:
        frames = [self.enter(self.graph._block, None)]
        pending: List[list] = [[]]  # per frame: blocks of its current node to visit
        while frames:
            frame = frames[-1]
            block, prev, current = frame
            todo = pending[-1]
            if todo:
                frames.append(self.enter(todo.pop(0), current))
                pending.append([])
                continue
            if current is not None:
                self.define(current)   # its blocks are done: outputs in scope now
                frame[2] = None
            # The block's nodes up to the next one with blocks, in one go.
            ret = block._return
            local = self.scope[-1]
            while True:
                node = prev._next
                if node is None or node._prev is not prev:
                    where = ("at the start of a block" if prev is ret
                             else f"after {_where(prev)}")
                    raise IRError(f"broken node links {where}")
                if node is ret or node._blocks:
                    break
                if not self.checked_at_once(node, block, local):
                    self.check_node(node, block)
                    self.define(node)
                prev = node
            frame[1] = prev
            if node is ret:
                self.check_inputs(node)
                self.visible.difference_update(self.scope.pop())
                frames.pop()
                pending.pop()
                continue
            self.check_node(node, block)
            frame[1] = node
            frame[2] = node
            todo.extend(node._blocks)
        self.check_uses()
        for sub in self.subgraphs:
            lint_graph(sub)

    # -- whole graph ---------------------------------------------------------------
    def check_uses(self) -> None:
        # Every input slot of a live node matched its entries (check_inputs), so
        # the use lists hold exactly those entries if their lengths add up to
        # the number of slots.  Only if not are they searched for the culprit.
        recorded = 0
        for v in self.uniques.values():  # len(_users(v)), without a list per value
            u = v._uses
            if u is not None:
                recorded += len(u) if type(u) is list else 1
        if recorded != self.slots:
            for v in self.uniques.values():
                for user in _users(v):
                    if user not in self.users:
                        raise IRError(f"%{v.debug_name} records a use by a {user.kind} "
                                      f"node that is not in the graph")
                    if not any(x is v for x in user._inputs):
                        raise IRError(f"%{v.debug_name} records a use by {_where(user)}, "
                                      f"which does not use it")
        # The table holds exactly the named live values if each entry is a live
        # value under its own name (a value has one name, so no two entries are
        # one value) and there are as many entries as such values.  Its entries
        # are read in order, not looked up: a million random lookups in a big
        # dict cost a cache miss each.
        names, uniques = self.graph._names, self.uniques
        if len(names) != self.n_named or any(
                v._name != k or uniques.get(v._unique) is not v for k, v in names.items()):
            named = {v._name: v for v in uniques.values() if v._name is not None}
            extra = sorted(k for k, v in names.items() if named.get(k) is not v)
            missing = sorted(k for k, v in named.items() if names.get(k) is not v)
            raise IRError("the graph's name table does not match its values' names"
                          + (f"; names of no live value: {extra}" if extra else "")
                          + (f"; names not in the table: {missing}" if missing else ""))
