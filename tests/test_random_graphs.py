"""Differential test: random well-formed graphs, run three ways.

Hypothesis builds graphs through the IR API (:mod:`helpers.random_graphs`: ints
and bools, their operators, constants, ``prim::If`` and ``prim::Loop`` nested in
each other).

Each graph must give the same outputs with the pure loop, the compiled loop and
the benchmarks' dict walker (``pyjit.benchmarks.walker``: it runs the original
graph, sharing only the operators with pyjit), and its preprocessed copy must
pass lint.  Shrunk counterexamples print the graph.
"""

from __future__ import annotations

from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from pyjit.benchmarks.walker import GraphInterpreter
from pyjit.code import Code
from pyjit.interpreter import InterpreterState
from pyjit.passes import preprocess

from helpers.random_graphs import graphs


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(graph=graphs(), args=st.lists(st.integers(-20, 20), min_size=3, max_size=3))
def test_loops_and_dict_walker_agree(backends, graph, args):
    graph.lint()
    text = str(graph)
    note(text)  # a failure shows the graph
    args = args[:len(graph.inputs)]
    result = GraphInterpreter(graph)(*args)  # None, one value or a tuple, as Function returns
    expect = [result] if len(graph.outputs) == 1 else list(result or ())
    preprocess(graph).graph.lint()
    code = Code(graph)
    code.graph.lint()
    assert str(graph) == text  # neither preprocess nor Code touched it
    for loop in backends:
        stack = list(args)
        InterpreterState(code, loop=loop).run(stack)
        assert stack == expect, loop.__name__
        assert [type(v) for v in stack] == [type(v) for v in expect]


def test_generator_makes_the_shapes_it_promises():
    """The strategy reaches nested control flow, values used twice by one node and
    values used only in nested blocks (not only trivial graphs)."""
    seen = set()

    @settings(max_examples=200, deadline=None, database=None, derandomize=True)
    @given(graph=graphs())
    def look(graph):
        for n in graph.all_nodes():
            if n.kind in ("prim::If", "prim::Loop"):
                b = n.owning_block
                if b.owning_node is not None:
                    seen.add(f"{b.owning_node.kind} > {n.kind}")
            if len(set(n.inputs)) < len(n.inputs):
                seen.add("twice by one node")
        for v in graph.inputs:
            if v.uses and all(u.user.owning_block is not graph.block for u in v.uses):
                seen.add("only nested uses")
            if not v.uses:
                seen.add("unused")

    look()
    assert {"prim::If > prim::If", "prim::If > prim::Loop", "prim::Loop > prim::If",
            "prim::Loop > prim::Loop", "twice by one node", "only nested uses",
            "unused"} <= seen, seen
