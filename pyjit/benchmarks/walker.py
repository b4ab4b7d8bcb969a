"""A dictionary-environment graph walker, the way ``torch.fx.Interpreter`` runs a
graph: the baseline an interpreter in Python starts from.

For every node, in order: one Python method call (``run_node``), which reads
the node's inputs out of a ``dict`` keyed by value (``fetch_args``), dispatches
on the node's kind with ``getattr`` and calls the operator with the arguments
unpacked; the outputs go back into the dict, and the values whose last use this
was are deleted from it (fx's ``garbage_collect_values``), so memory behaves
like pyjit's move flags.  Loops and conditionals run their blocks through the
same method, one level of Python recursion per nesting level.

This is fx's ``Interpreter.run``/``run_node`` without the parts fx needs for its
own graphs (the ``_set_current_node`` context manager around every node, kwargs,
``map_arg`` over nested argument structures), so it is somewhat *faster* than
fx's interpreter would be on the same graph: the ratios the benchmarks report
against it are, if anything, on the low side.

It is also the test suite's oracle (``tests/test_random_graphs.py``,
``tests/test_interpreter.py``): it runs the user's graph as it is, with none of
pyjit's passes, code generator or loops, so where it and pyjit disagree the fault
is in those, not in an operator they share.  Its value release follows its own
:func:`~pyjit.benchmarks.codegen.last_uses`, not pyjit's ``find_last_uses``, and
a value released too early is a ``KeyError``, never a wrong result.  One walker
serves both, so the loop and conditional semantics the benchmarks time are the
ones the tests check.
"""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Optional, Tuple

from ..ir import Block, Graph, Node, Value
from ..ir.symbols import prim
from ..ir.constants import constant_value
from ..registry import Registry, default_registry
from .codegen import last_uses

__all__ = ["GraphInterpreter", "CountingInterpreter"]


class GraphInterpreter:
    """Run a graph node by node, keeping values in a dictionary.

    Args:
        graph: the graph to run (not modified).
        registry: where operators are looked up (pyjit's default registry unless
            given): the walker calls exactly what pyjit would.

    ``GraphInterpreter(graph)(*args)`` returns the graph's output, a tuple for
    several, None for none, like :class:`pyjit.Function`.
    """

    def __init__(self, graph: Graph, registry: Optional[Registry] = None) -> None:
        if registry is None:
            registry = default_registry
        self.graph = graph
        self.env: Dict[Value, Any] = {}
        # What run_node does for each node: (method name, its target), like an fx
        # node's (op, target).
        self.plan: Dict[Node, Tuple[str, Any]] = {}
        # Per node, the values to drop from the environment after it ran.
        self.last_uses: Dict[Node, List[Value]] = {}
        self._prepare(graph.block, registry, graph.inputs)

    def _prepare(self, block: Block, registry: Registry, owned=()) -> None:
        self.last_uses.update(last_uses(block, owned))
        for node in block.nodes():
            if node.kind == prim.Constant:
                self.plan[node] = ("constant", constant_value(node))
            elif node.kind == prim.Loop:
                self.plan[node] = ("loop", node)
            elif node.kind == prim.If:
                self.plan[node] = ("if_", node)
            else:
                resolved = registry.lookup(node)
                if resolved.stack:
                    raise ValueError(f"{node.kind} uses the stack protocol, "
                                     "which a dictionary walker does not run")
                self.plan[node] = ("call_function", resolved.fn)
            for sub in node.blocks:
                self._prepare(sub, registry)

    # -- running -------------------------------------------------------------------
    def __call__(self, *args: Any) -> Any:
        return self.run(*args)

    def run(self, *args: Any) -> Any:
        """Run the graph on ``args``."""
        graph = self.graph
        if len(args) != len(graph.inputs):
            raise TypeError(f"graph takes {len(graph.inputs)} argument(s) but "
                            f"{len(args)} were given")
        self.env = dict(zip(graph.inputs, args))
        try:
            for v in self.last_uses.get(graph.block.param_node, ()):
                del self.env[v]
            outs = self.run_block(graph.block)
        finally:
            self.env = {}
        if len(outs) == 1:
            return outs[0]
        return tuple(outs) if outs else None

    def run_block(self, block: Block) -> List[Any]:
        """Run the nodes of ``block``; return the values of its outputs."""
        env = self.env
        last_uses = self.last_uses
        for node in block.nodes():
            try:
                result = self.run_node(node)
            except Exception as exc:
                exc.add_note(f"While executing {node!r}")
                raise
            outs = node.outputs
            if len(outs) == 1:
                env[outs[0]] = result
            elif outs:
                for v, r in zip(outs, result):
                    env[v] = r
            for v in last_uses.get(node, ()):
                del env[v]
        return [env[v] for v in block.outputs]

    def run_node(self, node: Node) -> Any:
        """Run one node: fetch its inputs, then dispatch on what it is."""
        args = self.fetch_args(node)
        op, target = self.plan[node]
        return getattr(self, op)(target, args)

    def fetch_args(self, node: Node) -> Tuple[Any, ...]:
        env = self.env
        return tuple(env[v] for v in node.inputs)

    # -- what a node can be --------------------------------------------------------------
    def call_function(self, target: Callable, args: Tuple[Any, ...]) -> Any:
        return target(*args)

    def constant(self, target: Any, args: Tuple[Any, ...]) -> Any:
        return target

    def loop(self, node: Node, args: Tuple[Any, ...]) -> Any:
        """``prim::Loop(max_trip_count, condition, *initial)``: run the body while
        ``trip < max_trip_count and condition``."""
        max_trips, cond, *values = args
        (body,) = node.blocks
        counter, *carried = body.inputs
        env = self.env
        trip = 0
        while cond and trip < max_trips:
            env[counter] = trip
            for v, x in zip(carried, values):
                env[v] = x
            cond, *values = self.run_block(body)
            trip += 1
        for v in body.inputs:
            env.pop(v, None)
        return _result(node, values)

    def if_(self, node: Node, args: Tuple[Any, ...]) -> Any:
        then_block, else_block = node.blocks
        return _result(node, self.run_block(then_block if args[0] else else_block))


class CountingInterpreter(GraphInterpreter):
    """A :class:`GraphInterpreter` that counts the operator calls it makes
    (``calls``): how the benchmarks check their operator counts."""

    calls = 0

    def call_function(self, target: Callable, args: Tuple[Any, ...]) -> Any:
        self.calls += 1
        return target(*args)


def _result(node: Node, values: List[Any]) -> Any:
    if len(node.outputs) == 1:
        return values[0]
    return tuple(values)
