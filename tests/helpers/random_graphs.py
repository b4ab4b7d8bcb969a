"""Random well-formed graphs for the differential tests, built through the IR API
from a string of bytes (see :class:`RandomGraph`), and random compilation units
of such graphs calling one another (:func:`units`).

The graphs have int inputs; ``aten::add/sub/mul`` on ints; comparisons giving
bools; ``__and__``/``__or__`` on bools; constants; ``prim::If`` with outputs and
``prim::Loop`` with small constant trip counts and carried values, nested in
each other; and, in a unit, ``prim::CallFunction`` of the unit's later
functions.  Values are picked at random from those in scope, so some are never
used, some are used many times (twice by one node too), and some are used only
inside nested blocks.
"""

from __future__ import annotations

from typing import Dict, List, Sequence, Tuple

from hypothesis import strategies as st

from pyjit.ir import Graph
from pyjit.ir import types as T

__all__ = ["RandomGraph", "graphs", "units"]

INT_OPS = ("aten::add", "aten::sub", "aten::mul")
COMPARISONS = ("aten::lt", "aten::le", "aten::gt", "aten::ge", "aten::eq", "aten::ne")
BOOL_OPS = ("aten::__and__", "aten::__or__")
MAX_DEPTH = 3


class RandomGraph:
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
            choices = ["int", "int", "compare", "bool", "const"] + self.extra_choices()
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
            elif what == "loop":
                self.make_loop(block, scope, depth)
            else:
                self.make_extra(what, block, scope, depth)

    def extra_choices(self) -> List[str]:
        """More kinds of node a subclass adds to the choice (none here)."""
        return []

    def make_extra(self, what: str, block, scope: list, depth: int) -> None:
        raise AssertionError(what)  # pragma: no cover - no extra choices here

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




#: A function a graph may call: its name, input types and output types.
Signature = Tuple[str, Sequence[T.Type], Sequence[T.Type]]


class RandomCaller(RandomGraph):
    """A :class:`RandomGraph` that may also call ``callees`` (``prim::CallFunction``
    on a ``Function`` constant naming the callee, as torch prints a call)."""

    def __init__(self, choices: bytes, callees: Sequence[Signature]) -> None:
        super().__init__(choices)
        self.callees = list(callees)

    def extra_choices(self) -> List[str]:
        return ["call", "call"] if self.callees else []

    def make_extra(self, what: str, block, scope: list, depth: int) -> None:
        name, ins, outs = self.one_of(self.callees)
        args = [self.pick(scope, t) if t == T.INT else self.any_bool(block, scope) for t in ins]
        fn = self.node(block, "prim::Constant", (), [T.FUNCTION])
        fn.attrs["name"] = name
        scope.extend(self.node(block, "prim::CallFunction", (fn.output(), *args), outs).outputs)


def build_unit(blobs: Sequence[bytes]) -> Dict[str, Graph]:
    """``{"f0": graph, "f1": ...}``: one graph per blob, ``f<i>`` calling only
    functions ``f<j>``, ``j > i`` (so no recursion: the unit can be inlined)."""
    graphs: Dict[str, Graph] = {}
    signatures: List[Signature] = []
    for i in reversed(range(len(blobs))):
        g = RandomCaller(blobs[i], signatures).build()
        name = f"f{i}"
        graphs[name] = g
        signatures.append((name, [v.type for v in g.inputs], [v.type for v in g.outputs]))
    return dict(sorted(graphs.items()))


def graphs():
    """Random well-formed graphs (see :class:`RandomGraph`)."""
    return st.binary(min_size=100, max_size=400).map(lambda b: RandomGraph(b).build())


def units():
    """Random units of 1 to 4 functions calling one another (see :func:`build_unit`)."""
    return st.lists(st.binary(min_size=40, max_size=200), min_size=1,
                    max_size=4).map(build_unit)
