"""``Graph.lint()``: the invariants every pass must preserve."""

from __future__ import annotations

from typing import Dict, List, Set

from .graph import Graph, IRError, Use

__all__ = ["lint_graph"]


def _where(node) -> str:
    from .printer import node_header
    return node_header(node)


def lint_graph(graph: Graph) -> None:
    """Check ``graph``; raise :class:`IRError` describing the first violation."""
    uniques: Dict[int, object] = {}
    all_values: Set[int] = set()   # ids of live Value objects
    named: Dict[str, object] = {}

    def define(v, node, offset) -> None:
        if v._node is not node or v._offset != offset:
            raise IRError(f"output {offset} of {_where(node)} records node/offset "
                          f"{v._node.kind}/{v._offset}")
        if v._unique in uniques:
            raise IRError(f"value id {v._unique} is used twice (%{v.debug_name})")
        uniques[v._unique] = v
        all_values.add(id(v))
        if v._name is not None:
            named[v._name] = v

    def check_inputs(node, scope: List[Set[int]]) -> None:
        for i, v in enumerate(node._inputs):
            if v._node._graph is not graph:
                raise IRError(f"input {i} of {_where(node)} belongs to another graph")
            if not any(id(v) in s for s in scope):
                raise IRError(f"input %{v.debug_name} of {_where(node)} is not defined "
                              f"before this use in an enclosing scope")
            if v._uses.count(Use(node, i)) != 1:
                raise IRError(f"use list of %{v.debug_name} does not record its use as "
                              f"input {i} of {_where(node)} exactly once")

    # Depth-first walk with an explicit stack (deep nesting must not recurse).
    # Each frame is [block, node iterator, values defined so far in the block,
    # blocks of the current node still to visit, the current node, previous node].
    users: List = []
    scope: List[Set[int]] = []

    def enter(block) -> list:
        if block._param._block is not block or block._return._block is not block:
            raise IRError("a block's param/return node does not point back at it")
        local: Set[int] = set()
        scope.append(local)
        for i, v in enumerate(block._param._outputs):
            define(v, block._param, i)
            local.add(id(v))
        return [block, iter(block.nodes()), local, [], None, block._return]

    frames = [enter(graph.block)]
    while frames:
        frame = frames[-1]
        block, nodes, local, todo, current, prev = frame
        if todo:
            b = todo.pop(0)
            if b._owning_node is not current:
                raise IRError(f"a block of {_where(current)} names another owner")
            frames.append(enter(b))
            continue
        if current is not None:
            # The node's blocks are done: its outputs are defined from here on.
            for i, v in enumerate(current._outputs):
                define(v, current, i)
                local.add(id(v))
            frame[4] = None
        node = next(nodes, None)
        if node is None:
            if block._return._prev is not prev:
                raise IRError("broken node links at the end of a block")
            check_inputs(block._return, scope)
            users.append(block._return)
            scope.pop()
            frames.pop()
            continue
        if node._block is not block:
            raise IRError(f"{_where(node)} is listed in a block it does not own")
        if node._prev is not prev:
            raise IRError(f"broken node links before {_where(node)}")
        if node._graph is not graph:
            raise IRError(f"{_where(node)} belongs to another graph")
        check_inputs(node, scope)
        users.append(node)
        frame[3] = list(node._blocks)
        frame[4] = node
        frame[5] = node
    # Every recorded use must be a real input of a live node.
    live_users = {id(n) for n in users}
    for v in uniques.values():
        for user, offset in v._uses:
            if id(user) not in live_users:
                raise IRError(f"%{v.debug_name} records a use by a {user.kind} node that is "
                              f"not in the graph")
            if offset >= len(user._inputs) or user._inputs[offset] is not v:
                raise IRError(f"%{v.debug_name} records a use as input {offset} of "
                              f"{_where(user)}, which is not that value")
    if named.keys() != graph._names.keys() or any(
            graph._names[k] is not v for k, v in named.items()):
        raise IRError("the graph's name table does not match its values' names")
    if uniques and max(uniques) >= graph._next_unique:
        raise IRError("a value id is not below the graph's next unique id")
