"""Property tests for the IR parser (hypothesis).

1. Random well-formed graphs built through the IR API (nested If/Loop, forks with
   subgraphs, random names, attribute values and types): print -> parse -> print
   is the identity, and the parsed graph lints.
2. Fixture texts with random edits (characters or lines deleted, inserted,
   duplicated, swapped) either parse, into a graph that lints and prints stably, or
   raise ParseError: never another exception.
3. Random garbage: the same.
"""

import glob
import math
import os
import random

from hypothesis import HealthCheck, given, settings, strategies as st

from pyjit.errors import ParseError
from pyjit.ir import Graph, SourceLocation, types as T
from pyjit.ir.constant_check import constant_problem
from pyjit.ir.literals import Literal, TensorLiteral
from pyjit.ir.parser import parse_ir

HERE = os.path.dirname(__file__)
FIXTURE_TEXTS = [open(p, encoding="utf-8").read()
                 for p in sorted(glob.glob(os.path.join(HERE, "fixtures", "graphs", "*.ir")))]

FUZZ = settings(max_examples=150, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def test_there_are_fixtures_to_mutate():
    assert len(FIXTURE_TEXTS) >= 100


# -- strategies ------------------------------------------------------------------------------

BASE_TYPES = st.sampled_from([
    T.INT, T.FLOAT, T.BOOL, T.STR, T.NONE, T.TENSOR, T.ANY, T.NUMBER, T.FUNCTION,
    T.NamedType("Device"), T.NamedType("complex"), T.NamedType("__torch__.foo.Bar"),
    T.NamedType("NamedTuple(x : int, y : float)"), T.EnumType("__torch__.Color"),
    T.TensorType("Float", "2, 3, strides=[3, 1], requires_grad=0, device=cpu"),
    T.TensorType("Long", "requires_grad=0, device=cpu"), T.TensorType(None, "2, *"),
])
TYPES = st.recursive(BASE_TYPES, lambda inner: st.one_of(
    inner.map(T.ListType),
    inner.map(T.OptionalType),
    st.lists(inner, max_size=3).map(T.TupleType),
    st.tuples(inner, inner).map(lambda kv: T.DictType(*kv)),
    st.lists(inner, min_size=1, max_size=3).map(T.UnionType),
    st.tuples(st.sampled_from(["Future", "Await", "RRef"]), inner).map(
        lambda a: T.GenericType(a[0], [a[1]])),
), max_leaves=5)

TRICKY_FLOATS = st.sampled_from([
    0.0, -0.0, 3.0, -2.0, 1e10, -1e10, 9999999999.0, 1e16, 2.0 ** 53, 1e20, 1e-05, 0.1,
    5e-324, 1.7976931348623157e308, math.inf, -math.inf, math.nan, -math.nan, 1000000000.5,
])
FLOATS = st.one_of(TRICKY_FLOATS, st.floats())
STRINGS = st.text(st.characters(blacklist_categories=("Cs",)), max_size=8)
SCALARS = st.one_of(
    st.integers(), st.integers(min_value=-10 ** 30, max_value=10 ** 30), FLOATS, STRINGS,
    st.booleans(), st.builds(complex, FLOATS, FLOATS))
NESTED = st.recursive(st.one_of(SCALARS, st.none()), lambda inner: st.one_of(
    st.lists(inner, max_size=3),
    st.lists(inner, min_size=1, max_size=3).map(tuple),
    st.dictionaries(st.one_of(STRINGS, st.integers()), inner, max_size=2),
), max_leaves=6)
LITERALS = st.sampled_from([
    TensorLiteral("{1.5}"), TensorLiteral("{(1,2)}"), TensorLiteral("<Tensor>"),
    TensorLiteral(" 1  2 [ CPULongType{2} ]"), TensorLiteral("[ CPUFloatType{0} ]"),
    TensorLiteral("(1,.,.) =   0  0   0  0  (2,.,.) =   0  0   0  0 [ CPUFloatType{2,2,2} ]"),
    Literal("__torch__.Color.RED"), Literal("<Graph>"), Literal("[<Types>]"),
])
ATTR_VALUES = st.one_of(SCALARS, NESTED, TYPES, st.lists(TYPES, max_size=3), LITERALS, st.none())
FILES = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r"),
                max_size=10)


# -- random graphs through the IR API -------------------------------------------------------

NAME_POOL = ["x", "a", "_t", "self", "input", "y_2", "é", "x1", "a.1", "a.2", "x.10", "b.1.2"]
KIND_POOL = ["aten::add", "aten::mul", "prim::TupleConstruct", "prim::ListConstruct",
             "aten::__getitem__", "prim::Uninitialized", "my_ops::warp", "x::y.z", "prim::fork"]
ATTR_NAME_POOL = ["value", "name", "a", "_b2", "types", "seen_none", "Z"]
SCOPE_POOL = ["__module.fc1", "__module.seq/__module.seq.0", "a b", "m"]


class _Builder:
    """A random well-formed graph: nodes use only values in scope, If and Loop blocks
    return values of exactly the node's output types.

    Hypothesis draws the pools of types, attribute values and file names and a
    seed; the seeded ``random.Random`` picks the structure from them (drawing each
    choice through hypothesis would make every example ten times slower).
    """

    def __init__(self, data) -> None:
        self.rng = random.Random(data.draw(st.integers(0, 2 ** 32 - 1), label="seed"))
        self.types = data.draw(st.lists(TYPES, min_size=1, max_size=6), label="types")
        self.values = data.draw(st.lists(ATTR_VALUES, min_size=1, max_size=6), label="values")
        self.files = data.draw(st.lists(FILES, min_size=1, max_size=3), label="files")

    def pick(self, items, most=None):
        """One item, or (with ``most``) a list of up to ``most`` of them."""
        if most is None:
            return self.rng.choice(items)
        return [self.rng.choice(items) for _ in range(self.rng.randint(0, most))] if items else []

    def name(self, v):
        if self.rng.random() < 0.6:
            v.set_debug_name(self.pick(NAME_POOL))
        return v

    def graph(self, depth: int) -> Graph:
        g = Graph()
        scope = [self.name(g.add_input(type=self.pick(self.types)))
                 for _ in range(self.rng.randint(0, 3))]
        scope = self.block(g, g.block, scope, depth)
        for v in self.pick(scope, 2):
            g.register_output(v)
        return g

    def value_of(self, g, block, scope, t):
        """A value of type ``t`` in scope, or a new node's output at the end of ``block``."""
        same = [v for v in scope if v.type == t]
        if same and self.rng.random() < 0.5:
            return self.pick(same)
        n = g.create(self.pick(KIND_POOL), [], 0)
        v = self.name(n.add_output(t))
        block.append_node(n)
        return v

    def block(self, g, block, scope, depth):
        """Fill ``block``; returns the values in scope at its end."""
        scope = list(scope)
        choices = ["op", "op", "constant", "raise"] + (["if", "loop", "fork"] if depth else [])
        for _ in range(self.rng.randint(0, 4)):
            what = self.pick(choices)
            if what in ("if", "loop") and not scope:
                what = "op"
            if what == "op":
                n = g.create(self.pick(KIND_POOL), self.pick(scope, 3), 0)
                for _ in range(self.rng.randint(0, 2)):
                    self.name(n.add_output(self.pick(self.types)))
                for key in self.pick(ATTR_NAME_POOL, 3):
                    n.attrs[key] = self.pick(self.values)
            elif what == "constant":
                n = g.create("prim::Constant", [], 0)
                value, t = self.pick(self.values), self.pick(self.types)
                # The parser refuses a constant its type cannot hold: Any holds all.
                self.name(n.add_output(t if constant_problem(value, t) is None else T.ANY))
                n.attrs["value"] = value
            elif what == "raise":
                n = g.create("prim::RaiseException", self.pick(scope, 2), 0)
            elif what == "fork":
                n = g.create("prim::fork", self.pick(scope, 2), 0)
                self.name(n.add_output(T.GenericType("Future", [self.pick(self.types)])))
                n.attrs["Subgraph"] = self.graph(depth - 1)
            elif what == "if":
                n = g.create("prim::If", [self.pick(scope)], 0)
                types = self.pick(self.types, 2)
                for t in types:
                    self.name(n.add_output(t))
                block.append_node(n)
                for _ in range(2):
                    b = n.add_block()
                    inner = self.block(g, b, scope, depth - 1)
                    for t in types:
                        b.register_output(self.value_of(g, b, inner, t))
            else:  # loop
                inits = self.pick(scope, 2)
                n = g.create("prim::Loop", [self.pick(scope), self.pick(scope), *inits], 0)
                for v in inits:
                    self.name(n.add_output(v.type))
                block.append_node(n)
                body = n.add_block()
                carried = [self.name(body.add_input(type=T.INT))]
                carried += [self.name(body.add_input(type=v.type)) for v in inits]
                inner = self.block(g, body, scope + carried, depth - 1)
                body.register_output(self.pick(inner))
                for v in inits:
                    body.register_output(self.value_of(g, body, inner, v.type))
            if not n.is_inserted():
                block.append_node(n)
            if self.rng.random() < 0.5:
                n.source_location = SourceLocation(self.pick(self.files),
                                                   self.rng.randint(0, 10 ** 6),
                                                   self.rng.randint(0, 500))
            if self.rng.random() < 0.25:
                n.scope = self.pick(SCOPE_POOL)
            scope.extend(n.outputs)
        return scope


@FUZZ
@given(st.data())
def test_printed_random_graphs_parse_back_identically(data):
    g = _Builder(data).graph(depth=3)
    g.lint()
    text = str(g)
    parsed = parse_ir(text)
    assert str(parsed) == text
    parsed.lint()


# -- mutated and random texts -----------------------------------------------------------------

PIECES = st.one_of(
    st.sampled_from(list("%()[]{}<>=:,.#\"\\\n -_?0123456789abxyz\t")),
    st.sampled_from(["block0(", "block1():", "-> (", "-> ()", "return (", "prim::If(",
                     "prim::Loop(",
                     "prim::fork_0(", "prim::fork_1(", "with prim::fork_0 = graph(", "graph(",
                     "%x : int", " = ", "[value=", "\\0)+", "\\377", "[ CPUFloatType{2} ]",
                     "Float(2, ", "Dict(", "Union(", "Future[", "NamedTuple(", "Enum<", "int[]?",
                     "# a.py:1:2", ", scope: m", "\n  ", "inf", "-nan", "1.+2.j", "{1.5}"]),
)


def _mutate(data, text: str) -> str:
    for _ in range(data.draw(st.integers(1, 3))):
        op = data.draw(st.sampled_from(["delete", "insert", "duplicate", "swap", "replace",
                                        "delete_line", "duplicate_line", "swap_lines"]))
        lines = text.split("\n")
        if op.endswith("line") or op == "swap_lines":
            i = data.draw(st.integers(0, len(lines) - 1))
            j = data.draw(st.integers(0, len(lines) - 1))
            if op == "delete_line":
                del lines[i]
            elif op == "duplicate_line":
                lines.insert(j, lines[i])
            else:
                lines[i], lines[j] = lines[j], lines[i]
            text = "\n".join(lines)
            continue
        i = data.draw(st.integers(0, len(text)))
        j = min(len(text), i + data.draw(st.integers(0, 8)))
        if op == "delete":
            text = text[:i] + text[j:]
        elif op == "insert":
            text = text[:i] + data.draw(PIECES) + text[i:]
        elif op == "duplicate":
            text = text[:j] + text[i:j] + text[j:]
        elif op == "swap" and j - i >= 2:
            text = text[:i] + text[j - 1] + text[i + 1:j - 1] + text[i] + text[j:]
        elif op == "replace":
            text = text[:i] + data.draw(PIECES) + text[j:]
    return text


def _parse_or_parse_error(text: str) -> None:
    """``text`` parses into a graph that lints and prints stably, or raises ParseError."""
    try:
        g = parse_ir(text)
    except ParseError:
        return
    g.lint()
    printed = str(g)
    again = parse_ir(printed)
    assert str(again) == printed


@FUZZ
@given(st.data())
def test_mutated_fixtures_parse_or_raise_parse_error(data):
    text = data.draw(st.sampled_from(FIXTURE_TEXTS))
    _parse_or_parse_error(_mutate(data, text))


@settings(max_examples=200, deadline=None)
@given(st.one_of(st.text(max_size=60),
                 st.lists(PIECES, max_size=30).map("".join),
                 st.lists(PIECES, max_size=30).map(lambda p: "graph(%x : int):\n" + "".join(p))))
def test_garbage_parses_or_raises_parse_error(text):
    _parse_or_parse_error(text)
