"""Differential test: random well-formed graphs, run three ways.

Hypothesis builds graphs through the IR API (int inputs; ``aten::add/sub/mul``
on ints; comparisons giving bools; ``__and__``/``__or__`` on bools; constants;
``prim::If`` with outputs and ``prim::Loop`` with small constant trip counts and
carried values, nested in each other).  Values are picked at random from those in
scope, so some are never used, some are used many times (twice by one node too),
and some are used only inside nested blocks.

Each graph must give the same outputs with the pure loop, the compiled loop and
the benchmarks' dict walker (``pyjit.benchmarks.walker``: it runs the original
graph, sharing only the operators with pyjit), and its preprocessed copy must
pass lint.  Shrunk counterexamples print the graph.
"""

from __future__ import annotations

from typing import List

from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from pyjit.benchmarks.walker import GraphInterpreter
from pyjit.code import Code
from pyjit.interpreter import InterpreterState
from pyjit.ir import Graph
from pyjit.ir import types as T
from pyjit.passes import preprocess

INT_OPS = ("aten::add", "aten::sub", "aten::mul")
COMPARISONS = ("aten::lt", "aten::le", "aten::gt", "aten::ge", "aten::eq", "aten::ne")
BOOL_OPS = ("aten::__and__", "aten::__or__")
MAX_DEPTH = 3


class _Builder:
    """Builds a graph node by node from a string of bytes, each byte one choice.

    Hypothesis draws the bytes in one go (``st.binary``): a draw per choice made
    generation cost more than running the graphs.  It shrinks them towards fewer
    and smaller bytes, and byte 0 always means the least (no more nodes, the first
    candidate), so a shrunk graph is a small one.  ``scope`` holds the values
    visible at the end of the block being filled: its enclosing blocks' values,
    then its own.
    """

    def __init__(self, choices: bytes) -> None:
        self.choices = choices
        self.pos = 0
        self.g = Graph()
        self.budget = 40  # nodes in all, so graphs stay small

    def choice(self, k: int) -> int:
        """A number in [0, k), 0 once the bytes run out."""
        if self.pos >= len(self.choices):
            return 0
        self.pos += 1
        return self.choices[self.pos - 1] % k

    def integer(self, lo: int, hi: int) -> int:
        return lo + self.choice(hi - lo + 1)

    def one_of(self, items):
        return items[self.choice(len(items))]

    def pick(self, scope: list, typ: T.Type):
        values = [v for v in scope if v.type == typ]
        if not values:
            return None
        # The most recent value first: long use chains, not only uses of inputs.
        return values[len(values) - 1 - self.choice(len(values))]

    def node(self, block, kind: str, inputs, out_types) -> list:
        n = self.g.create(kind, list(inputs), len(out_types))
        for v, t in zip(n.outputs, out_types):
            v.set_type(t)
        block.append_node(n)
        return n

    def constant(self, block, scope: list, value) -> object:
        n = self.node(block, "prim::Constant", (), [T.BOOL if isinstance(value, bool) else T.INT])
        n.attrs["value"] = int(value)
        scope.append(n.output())
        return n.output()

    def any_bool(self, block, scope: list):
        b = self.pick(scope, T.BOOL)
        if b is None or self.choice(2):
            x, y = self.pick(scope, T.INT), self.pick(scope, T.INT)
            n = self.node(block, self.one_of(COMPARISONS), (x, y), [T.BOOL])
            b = n.output()
            scope.append(b)
        return b

    def fill(self, block, scope: list, depth: int) -> None:
        for _ in range(self.integer(0, 5)):
            if self.budget <= 0:
                return
            self.budget -= 1
            choices = ["int", "int", "compare", "bool", "const"]
            if depth < MAX_DEPTH:
                choices += ["if", "loop"]
            what = self.one_of(choices)
            if what == "int":
                x, y = self.pick(scope, T.INT), self.pick(scope, T.INT)
                n = self.node(block, self.one_of(INT_OPS), (x, y), [T.INT])
                scope.append(n.output())
            elif what == "compare":
                x, y = self.pick(scope, T.INT), self.pick(scope, T.INT)
                n = self.node(block, self.one_of(COMPARISONS), (x, y), [T.BOOL])
                scope.append(n.output())
            elif what == "bool":
                a, b = self.any_bool(block, scope), self.any_bool(block, scope)
                n = self.node(block, self.one_of(BOOL_OPS), (a, b), [T.BOOL])
                scope.append(n.output())
            elif what == "const":
                self.constant(block, scope, self.one_of((0, 1, -1, 2, 3, -3, True, False)))
            elif what == "if":
                self.make_if(block, scope, depth)
            else:
                self.make_loop(block, scope, depth)

    def types(self) -> List[T.Type]:
        return [self.one_of((T.INT, T.INT, T.BOOL)) for _ in range(self.choice(4))]

    def make_if(self, block, scope: list, depth: int) -> None:
        cond = self.any_bool(block, scope)
        out_types = self.types()
        n = self.node(block, "prim::If", (cond,), out_types)
        for _ in range(2):
            b = n.add_block()
            inner = list(scope)
            self.fill(b, inner, depth + 1)
            for t in out_types:
                v = self.pick(inner, t) if t == T.INT else self.any_bool(b, inner)
                b.register_output(v)
        scope.extend(n.outputs)

    def make_loop(self, block, scope: list, depth: int) -> None:
        trips = self.constant(block, [], self.integer(0, 3))
        cond = self.constant(block, [], True) if self.choice(2) else self.any_bool(block, scope)
        carried_types = self.types()
        carried = [self.pick(scope, t) if t == T.INT else self.any_bool(block, scope)
                   for t in carried_types]
        n = self.node(block, "prim::Loop", (trips, cond, *carried), carried_types)
        body = n.add_block()
        inner = list(scope)
        inner.append(body.add_input(type=T.INT))           # the iteration number
        inner.extend(body.add_input(type=t) for t in carried_types)
        self.fill(body, inner, depth + 1)
        body.register_output(self.any_bool(body, inner))
        for t in carried_types:
            body.register_output(self.pick(inner, t) if t == T.INT
                                 else self.any_bool(body, inner))
        scope.extend(n.outputs)

    def build(self) -> Graph:
        scope = [self.g.add_input(type=T.INT) for _ in range(self.integer(1, 3))]
        self.fill(self.g.block, scope, 0)
        while self.budget > 0 and self.choice(2):  # a longer top level
            self.fill(self.g.block, scope, 0)
        for _ in range(self.integer(1, 3)):
            self.g.register_output(self.one_of(scope))
        return self.g


def graphs():
    """Random well-formed graphs (see :class:`_Builder`)."""
    return st.binary(min_size=100, max_size=400).map(lambda b: _Builder(b).build())


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
