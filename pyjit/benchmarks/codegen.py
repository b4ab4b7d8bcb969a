"""Python source made from a graph, one statement per node, as torch.fx makes it.

This is the "generated straight-line Python" system of the benchmarks: what a
user gets by turning a graph into a Python function instead of interpreting it.
It follows ``torch.fx.Graph.python_code``:

* every node becomes one statement, ``out = op(in0, in1)``, calling the very
  callable pyjit's registry resolves for that node (bound as a global of the
  generated module, named after the operator);
* a value is released right after its last use by appending ``;  x = None`` to
  that statement (fx's ``delete_unused_values``), so memory behaves like
  pyjit's move flags; a value nobody uses is released where it is made;
* constants are literals when Python can spell them, globals otherwise.

fx has no control flow; this generator prints ``prim::Loop`` and ``prim::If``
as Python loops and conditionals, the way torch's own Python printer does:
a Loop whose conditions are the constant ``True`` is ``for i in range(n):``, a
Loop with the maximum trip count ``INT64_MAX`` is ``while cond:``, anything else
keeps both tests.  For the fib workload's graph
(:func:`pyjit.benchmarks.workloads.fib`)::

    def forward(n_1):
        v7 = True
        a_1 = 0
        b_1 = 1
        v16 = 1000003
        a_11, b_13 = a_1, b_1
        for v8 in range(n_1):
            v15 = add(a_11, b_13)
            b_9 = remainder(v15, v16);  v15 = None
            a_11, b_13 = b_13, b_9
        a, b = a_11, b_13
        n_1 = None;  v7 = None;  a_1 = None;  b_1 = None;  v16 = None;  b = None
        return a

Names are the graph's debug names made into identifiers.  The package keeps this
generator, rather than ``bench/``, so that
``pyjit bench`` can use it from an installed pyjit.
"""

from __future__ import annotations

import keyword
import math
import re
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Sequence, Set

from ..ir import Block, Graph, Node, Value
from ..ir.symbols import prim
from ..ir.constants import constant_value
from ..registry import Registry, default_registry

__all__ = ["GeneratedPython", "python_code", "last_uses"]

_INT64_MAX = 2 ** 63 - 1


class GeneratedPython(NamedTuple):
    """What :func:`python_code` returns."""

    #: The module source: one ``def`` holding the graph.
    source: str
    #: The globals the source refers to: operator callables and constants.
    namespace: Dict[str, Any]
    #: The compiled function.
    fn: Callable


def _used_inside(block: Block, out: Dict[Value, None]) -> None:
    """Every value read anywhere in ``block`` (its nodes' inputs, recursively, and
    its outputs), added to the ordered set ``out``."""
    for node in block.nodes():
        out.update(dict.fromkeys(node.inputs))
        for sub in node.blocks:
            _used_inside(sub, out)
    out.update(dict.fromkeys(block.outputs))


def last_uses(block: Block, owned: Sequence[Value] = ()) -> Dict[Node, List[Value]]:
    """For each node of ``block``, the values whose last use in ``block`` it is.

    Only values the block owns are listed: the outputs of its own nodes, plus
    ``owned`` (the graph's inputs, for the top block).  A use inside a nested
    block counts as a use by the node that holds the block, so a value read by a
    loop body is kept until the whole loop is done.  The block's own outputs are
    never listed (they are read after the last node); a value with no use at all
    is listed at the node that makes it, and an unused ``owned`` value at the
    block's param node.  Each list is in the order the values were defined.
    This is ``torch.fx``'s ``user_to_last_uses`` for blocks.
    """
    order: Dict[Value, int] = {v: i for i, v in enumerate(owned)}
    last: Dict[Value, Node] = {v: block.param_node for v in owned}
    for node in block.nodes():
        used: Dict[Value, None] = dict.fromkeys(node.inputs)
        for sub in node.blocks:
            _used_inside(sub, used)
        for v in used:
            if v in order:
                last[v] = node
        for v in node.outputs:
            order[v] = len(order)
            last[v] = node  # moved on by a later use, if there is one
    keep = set(block.outputs)
    result: Dict[Node, List[Value]] = {}
    for v in sorted(last, key=order.__getitem__):
        if v not in keep:
            result.setdefault(last[v], []).append(v)
    return result


def _identifier(text: str) -> str:
    name = re.sub(r"\W", "_", text)
    if not name or name[0].isdigit():
        name = "v" + name
    if keyword.iskeyword(name):
        name += "_"
    return name


class _Names:
    """Unique Python identifiers for values, callables and constants."""

    def __init__(self) -> None:
        self.taken: Set[str] = set()
        self.of_value: Dict[Value, str] = {}

    def fresh(self, base: str) -> str:
        base = _identifier(base)
        name, k = base, 1
        while name in self.taken:
            k += 1
            name = f"{base}_{k}"
        self.taken.add(name)
        return name

    def value(self, v: Value) -> str:
        name = self.of_value.get(v)
        if name is None:
            name = self.of_value[v] = self.fresh(v.debug_name)
        return name


def _literal(value: Any) -> Optional[str]:
    """Python source for ``value`` when it has an exact literal, else None."""
    if value is None or isinstance(value, (bool, int, str)):
        return repr(value)
    if isinstance(value, float) and math.isfinite(value):
        return repr(value)
    return None


def _is_constant(v: Value, expected: Any) -> bool:
    node = v.node
    if node.kind != prim.Constant:
        return False
    value = constant_value(node)
    return type(value) is type(expected) and value == expected


class _Generator:
    def __init__(self, registry: Registry) -> None:
        self.registry = registry
        self.names = _Names()
        self.namespace: Dict[str, Any] = {}
        self.callable_names: Dict[int, str] = {}
        self.lines: List[str] = []

    # -- globals ----------------------------------------------------------------
    def callable_name(self, node: Node) -> str:
        resolved = self.registry.lookup(node)
        if resolved.stack:
            raise ValueError(f"{node.kind} uses the stack protocol: no Python call to print")
        fn = resolved.fn
        name = self.callable_names.get(id(fn))
        if name is None:
            name = self.names.fresh(node.kind.split("::")[-1])
            self.callable_names[id(fn)] = name
            self.namespace[name] = fn
        return name

    def constant(self, node: Node) -> str:
        value = constant_value(node)
        text = _literal(value)
        if text is None:
            text = self.names.fresh("_const")
            self.namespace[text] = value
        return text

    # -- statements ---------------------------------------------------------------
    def emit(self, indent: int, text: str) -> None:
        self.lines.append("    " * indent + text)

    def values(self, vs: Sequence[Value]) -> str:
        return ", ".join(self.names.value(v) for v in vs)

    def assign(self, indent: int, targets: Sequence[Value], sources: Sequence[Value]) -> None:
        if targets:
            self.emit(indent, f"{self.values(targets)} = {self.values(sources)}")

    def block(self, block: Block, indent: int, owned: Sequence[Value] = ()) -> None:
        frees = last_uses(block, owned)
        if block.param_node in frees:  # an unused input: released on entry, as fx does
            self.emit(indent, ";  ".join(f"{self.names.value(v)} = None"
                                         for v in frees[block.param_node]))
        for node in block.nodes():
            dead = [f"{self.names.value(v)} = None" for v in frees.get(node, ())]
            if node.kind in (prim.Loop, prim.If):
                self.loop(node, indent) if node.kind == prim.Loop else self.if_(node, indent)
                if dead:
                    self.emit(indent, ";  ".join(dead))
            else:
                self.node(node, indent)
                if dead:
                    self.lines[-1] += "".join(";  " + d for d in dead)

    def node(self, node: Node, indent: int) -> None:
        outs = self.values(node.outputs)
        if node.kind == prim.Constant:
            self.emit(indent, f"{outs} = {self.constant(node)}")
            return
        call = f"{self.callable_name(node)}({self.values(node.inputs)})"
        self.emit(indent, f"{outs} = {call}" if outs else call)

    def if_(self, node: Node, indent: int) -> None:
        then_block, else_block = node.blocks
        self.emit(indent, f"if {self.names.value(node.inputs[0])}:")
        for sub in (then_block, else_block):
            start = len(self.lines)
            self.block(sub, indent + 1)
            self.assign(indent + 1, node.outputs, sub.outputs)
            if len(self.lines) == start:
                self.emit(indent + 1, "pass")
            if sub is then_block:
                self.emit(indent, "else:")

    def loop(self, node: Node, indent: int) -> None:
        max_trips, cond, *initial = node.inputs
        (body,) = node.blocks
        counter, *carried = body.inputs
        next_cond, *next_values = body.outputs
        is_for = _is_constant(cond, True) and _is_constant(next_cond, True)
        is_while = _is_constant(max_trips, _INT64_MAX)
        counter_used = bool(counter.uses)
        self.assign(indent, carried, initial)
        i = self.names.value(counter)
        if is_for:
            self.emit(indent, f"for {i} in range({self.names.value(max_trips)}):")
        else:
            c = self.names.fresh("cond")
            self.emit(indent, f"{c} = {self.names.value(cond)}")
            if is_while and not counter_used:
                self.emit(indent, f"while {c}:")
            else:
                self.emit(indent, f"{i} = 0")
                test = c if is_while else f"{c} and {i} < {self.names.value(max_trips)}"
                self.emit(indent, f"while {test}:")
        start = len(self.lines)
        self.block(body, indent + 1)
        if is_for:
            self.assign(indent + 1, carried, next_values)
        else:
            # Python evaluates the right-hand side first: a parallel assignment.
            targets = [c] + [self.names.value(v) for v in carried]
            sources = [self.names.value(v) for v in [next_cond] + next_values]
            self.emit(indent + 1, f"{', '.join(targets)} = {', '.join(sources)}")
            if not (is_while and not counter_used):
                self.emit(indent + 1, f"{i} = {i} + 1")
        if len(self.lines) == start:
            self.emit(indent + 1, "pass")
        self.assign(indent, node.outputs, carried)


def python_code(graph: Graph, registry: Optional[Registry] = None, *,
                name: str = "forward") -> GeneratedPython:
    """Generate and compile a Python function equivalent to ``graph``.

    Args:
        graph: the graph (not modified).  Its operators must be plain callables.
        registry: where operators are looked up (pyjit's default registry unless
            given); the generated code calls exactly what pyjit would.
        name: the function's name.

    Returns:
        the source, its globals and the compiled function, which takes the
        graph's inputs and returns its output (a tuple for several, None for
        none), like :class:`pyjit.Function`.
    """
    if registry is None:
        registry = default_registry
    gen = _Generator(registry)
    # Globals first, so that no value name can shadow an operator.
    for node in _all_nodes(graph.block):
        if node.kind not in (prim.Constant, prim.Loop, prim.If):
            gen.callable_name(node)
    params = gen.values(graph.inputs)
    gen.emit(0, f"def {name}({params}):")
    gen.block(graph.block, 1, owned=graph.inputs)
    outs = graph.outputs
    if len(outs) == 1:
        gen.emit(1, f"return {gen.names.value(outs[0])}")
    else:
        gen.emit(1, f"return ({gen.values(outs)})" if outs else "return None")
    source = "\n".join(gen.lines) + "\n"
    module = dict(gen.namespace)
    exec(compile(source, f"<pyjit generated {name}>", "exec"), module)
    return GeneratedPython(source, dict(gen.namespace), module[name])


def _all_nodes(block: Block):
    for node in block.nodes():
        yield node
        for sub in node.blocks:
            yield from _all_nodes(sub)
