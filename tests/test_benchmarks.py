"""pyjit.benchmarks: every system computes the same thing, each workload's graph
is the one torch and pyjit.script make, the generator and the walker do what
they say, and ``pyjit bench`` runs, prints its tables and targets, and writes
its JSON.

No timing is asserted here: timings live in ``bench/`` (pytest-benchmark) and in
``pyjit bench``.  Workloads run at tiny sizes.
"""

from __future__ import annotations

import io
import json
import re
import tracemalloc

import numpy as np
import pytest

import pyjit
from pyjit import cli, opcodes
from pyjit.benchmarks import operators, report, runner, targets
from pyjit.benchmarks import workloads as W
from pyjit.benchmarks.codegen import last_uses, python_code
from pyjit.benchmarks.systems import LIBRARY, SHARED, SYSTEMS, build_systems, natural_python
from pyjit.benchmarks.walker import CountingInterpreter, GraphInterpreter
from pyjit.ir.constants import constant_value

from helpers.optional import needs_torch

TINY = {
    "fib": lambda: W.fib(30),
    "collatz": lambda: W.collatz(27, 2),
    "chain": lambda: W.chain(20),
    "float-loop": lambda: W.float_loop(3000),
    "numpy-16": lambda: W.numpy_chain(8, 16, dtype=np.float32),
    "numpy-1m": lambda: W.numpy_chain(8, 1000, name="numpy-1m"),
    "memory": lambda: W.memory(6, 1000),
}

# Every system but TorchScript, which needs torch (these tests run without it).
LOCAL = [k for k in SYSTEMS if k != "torchscript"]
# The systems that need the compiled core.
COMPILED = ("pyjit", "pyjit-O0", "pyjit-shared")


def test_tiny_sizes_cover_every_workload():
    assert list(TINY) == list(W.WORKLOADS)


def test_the_systems_are_the_library_ones_the_shared_ones_and_the_alternatives():
    assert list(SYSTEMS) == ["pyjit", "pyjit-O0", "pyjit-pure", "pyjit-shared",
                             "pyjit-pure-shared", "python-ops", "generated", "walker",
                             "python", "numpy", "torchscript"]
    assert LIBRARY == ("pyjit", "pyjit-O0", "pyjit-pure")
    assert SHARED == ("pyjit-shared", "pyjit-pure-shared", "python-ops", "generated", "walker")
    # Every label of the interpreter-only measurement says so, and no other does.
    assert [k for k, label in SYSTEMS.items() if "shared ops" in label] == list(SHARED)


@pytest.mark.parametrize("name", list(TINY))
def test_every_system_computes_natural_pythons_result(name):
    w = TINY[name]()
    args = w.make_args()
    reference = natural_python(w)(*args)
    systems = build_systems(w, LOCAL)
    assert [s.key for s in systems] == LOCAL
    ran = []
    for s in systems:
        if s.fn is None:
            if s.key == "numpy":
                assert not w.tensors and s.note == "skipped: tensor workloads only"
            else:  # the compiled core is not built: the note says so
                assert s.key in COMPILED and s.note.startswith("skipped: the compiled core")
            continue
        result = s.fn(*s.convert_args(args))
        assert w.same(s.convert_result(result), reference), s.key
        ran.append(s.key)
    assert "pyjit-pure" in ran and "pyjit-pure-shared" in ran
    assert ("numpy" in ran) == w.tensors


@pytest.mark.parametrize("name", list(TINY))
def test_pyjit_runs_the_library_optimised_and_the_shared_ops_as_calls(name):
    """``pyjit`` is what users run: the default registry, optimised, so that
    every scalar operator of these graphs is one of the library's intrinsic
    instructions; ``pyjit-O0`` is the seed's table, an operator call per node;
    the shared systems call the shared callables, with no intrinsic."""
    w = TINY[name]()
    shared = set(operators.SCALAR_OPS.values()) | set(operators.TENSOR_OPS.values())
    for s in build_systems(w, list(LIBRARY) + ["pyjit-shared", "pyjit-pure-shared"]):
        if s.fn is None:
            continue
        code = s.fn.code
        ops = [opcodes.BY_CODE[int(c)] for c in code.columns["op"]]
        calls = [code.callbacks[int(a)]
                 for c, a in zip(code.columns["op"], code.columns["arg"]) if c == opcodes.CALL]
        intrinsics = [op.name for op in ops if op.implements]
        assert code.optimize is (s.key != "pyjit-O0"), s.key
        if s.key in ("pyjit", "pyjit-pure"):
            assert (calls == []) is (not w.tensors), s.key
            assert bool(intrinsics) is (not w.tensors), s.key
        else:
            assert calls and not intrinsics, s.key
        if s.key.endswith("-shared"):
            assert set(calls) <= shared, s.key
        else:  # the library's tensor add and sub, not the shared ones
            assert operators.add not in calls and operators.sub not in calls, s.key


def test_pinned_results():
    def run(w):
        return natural_python(w)(*w.make_args())

    assert run(W.fib(30)) == 832040
    assert run(W.fib(31)) == 1346269 % 1000003 == 346266
    assert run(W.collatz(27, 2)) == 222       # collatz(27) takes 111 steps
    assert run(W.chain(20)) == 61             # 1 + 20 * 3
    # torch 2.13's TorchScript computes these very doubles.
    assert run(W.float_loop(3000)) == 750.4499999999616
    assert run(W.float_loop()) == 14.99999999856216
    for dtype, rtol in ((np.float64, 1e-12), (np.float32, 1e-6)):
        w = W.numpy_chain(8, 16, dtype=dtype)
        x, y = w.make_args()
        # Each round of + * - / maps x to x + y - 1 (up to rounding).
        result = run(w)
        assert result.dtype == dtype
        np.testing.assert_allclose(result, x + 2 * (y - 1), rtol=rtol)


@pytest.mark.parametrize("name", list(TINY))
def test_operator_counts_are_the_calls_the_graph_makes(name):
    w = TINY[name]()
    walker = CountingInterpreter(w.graph(), operators.registry())
    walker(*w.make_args())
    assert walker.calls == w.n_ops


def test_operator_counts_at_full_size():
    assert W.fib().n_ops == 200_000
    assert W.collatz_ops(27) == 598 and W.collatz().n_ops == 119_600
    assert W.chain().n_ops == 1000
    # 4 an iteration, and the if taken 125 times (s passes 1000 every ~800).
    assert W.float_loop().n_ops == 400_125 == W.float_loop_ops(1.5, 100_000)
    assert [W.WORKLOADS[n]().n_ops for n in ("numpy-16", "numpy-1m", "memory")] == [200, 200, 50]
    assert W.WORKLOADS["numpy-16"]().params == {"n_ops": 200, "size": 16, "dtype": "float32"}
    assert W.WORKLOADS["numpy-1m"]().params == {"n_ops": 200, "size": 1_000_000,
                                               "dtype": "float64"}


def test_every_shared_system_calls_the_same_operator_callables():
    w = W.chain(3)
    registry = operators.registry()
    (pyjit_fn,) = [s.fn for s in build_systems(w, ["pyjit-pure-shared"], registry)]
    assert pyjit_fn.code.callbacks == (operators.SCALAR_OPS["add"],) * 3
    generated = python_code(w.graph(), registry)
    assert generated.namespace == {"add": operators.SCALAR_OPS["add"]}
    walker = GraphInterpreter(w.graph(), registry)
    assert {target for op, target in walker.plan.values()} == {operators.SCALAR_OPS["add"]}
    t = W.numpy_chain(4, 16)
    assert python_code(t.graph(), registry).namespace == {
        "add": operators.add, "mul": np.multiply, "sub": operators.sub, "div": np.divide}
    assert operators.TENSOR_OPS["div"] is np.divide


def test_shared_tensor_add_and_sub_take_torchs_alpha():
    x, y = np.array([1.0, 2.0]), np.array([10.0, 20.0])
    assert operators.add(x, y, 1).tolist() == [11.0, 22.0]
    assert operators.add(x, y, 2).tolist() == [21.0, 42.0]
    assert operators.sub(x, y, 1).tolist() == [-9.0, -18.0]
    assert operators.sub(x, y, 0.5).tolist() == [-4.0, -8.0]


# -- the graphs are torch's ----------------------------------------------------------

def canonical(graph) -> str:
    """``graph`` up to what does not change what runs: value names (numbered in
    order of definition), where the constants sit (each use shows its type and
    value), and the order of a Loop's carried values (put in the order the body
    first reads them, which torch and pyjit.script choose differently)."""
    names = {}
    lines = []

    def define(values):
        for v in values:
            names[v] = f"%{len(names)}"
        return ", ".join(f"{names[v]} : {v.type}" for v in values)

    def refs(values):
        return ", ".join(f"{v.type} {constant_value(v.node)!r}"
                         if v.node.kind == "prim::Constant" else names[v] for v in values)

    def first_reads(block, seen):
        for node in block.nodes():
            seen.update(dict.fromkeys(node.inputs))
            for sub in node.blocks:
                first_reads(sub, seen)
        seen.update(dict.fromkeys(block.outputs))
        return list(seen)

    def emit(block, indent):
        for node in block.nodes():
            if node.kind == "prim::Constant":
                continue
            ins, outs, perm = list(node.inputs), list(node.outputs), None
            if node.kind == "prim::Loop":
                carried = node.blocks[0].inputs[1:]
                read = first_reads(node.blocks[0], {})
                rank = {v: read.index(v) if v in read else len(read) + i
                        for i, v in enumerate(carried)}
                perm = sorted(range(len(carried)), key=lambda i: rank[carried[i]])
                ins = ins[:2] + [ins[2 + i] for i in perm]
                outs = [outs[i] for i in perm]
            lines.append(f"{indent}{define(outs)} = {node.kind}({refs(ins)})")
            for sub in node.blocks:
                params, results = list(sub.inputs), list(sub.outputs)
                if perm is not None:
                    params = params[:1] + [params[1 + i] for i in perm]
                    results = results[:1] + [results[1 + i] for i in perm]
                lines.append(f"{indent}  block({define(params)}):")
                emit(sub, indent + "    ")
                lines.append(f"{indent}    -> ({refs(results)})")

    lines.append(f"graph({define(graph.inputs)}):")
    emit(graph.block, "  ")
    lines.append(f"  return ({refs(graph.outputs)})")
    return "\n".join(lines)


def test_canonical_form_of_a_graph():
    g = pyjit.parse_ir("""\
graph(%n : int):
  %one : int = prim::Constant[value=1]()
  %t : bool = prim::Constant[value=1]()
  %a : int, %b : int = prim::Loop(%n, %t, %one, %n)
    block0(%i : int, %a.1 : int, %b.1 : int):
      %b.2 : int = aten::add(%b.1, %one)
      %a.2 : int = aten::mul(%a.1, %b.2)
      -> (%t, %a.2, %b.2)
  return (%a)
""")
    # b is read first in the body: it comes first.
    assert canonical(g) == """\
graph(%0 : int):
  %1 : int, %2 : int = prim::Loop(%0, bool True, %0, int 1)
    block(%3 : int, %4 : int, %5 : int):
      %6 : int = aten::add(%4, int 1)
      %7 : int = aten::mul(%5, %6)
      -> (bool True, %6, %7)
  return (%2)"""


@pytest.mark.parametrize("name", list(TINY))
def test_each_graph_is_what_pyjit_script_makes_of_the_natural_python(name):
    w = TINY[name]()
    scripted = pyjit.script(natural_python(w))
    assert canonical(scripted.graph) == canonical(w.graph())


@needs_torch
@pytest.mark.parametrize("name", ["fib", "collatz", "float-loop"])
def test_the_loop_graphs_are_torchs_text(name):
    import torch
    w = W.WORKLOADS[name]()
    assert str(getattr(torch.jit.CompilationUnit(w.python), w.entry).graph) == w.ir


@needs_torch
@pytest.mark.parametrize("w", [W.chain(7), W.numpy_chain(9, 16), W.numpy_chain(1, 4)],
                         ids=["chain", "numpy", "one op"])
def test_the_straight_line_graphs_are_torchs_text(w):
    import torch
    assert getattr(torch.jit.CompilationUnit(w.python), w.entry).graph.str(False) == w.ir


def test_the_torch_form_of_tensor_arithmetic():
    assert W.numpy_chain(5, 16).ir == """\
graph(%x.1 : Tensor,
      %y.1 : Tensor):
  %4 : int = prim::Constant[value=1]()
  %x.5 : Tensor = aten::add(%x.1, %y.1, %4)
  %x.9 : Tensor = aten::mul(%x.5, %y.1)
  %x.13 : Tensor = aten::sub(%x.9, %y.1, %4)
  %x.17 : Tensor = aten::div(%x.13, %y.1)
  %x.21 : Tensor = aten::add(%x.17, %y.1, %4)
  return (%x.21)
"""
    assert W.numpy_chain(2, 16).python_numpy == """\
def chain(x: Tensor, y: Tensor) -> Tensor:
    x = np.add(x, y)
    x = np.multiply(x, y)
    return x
"""
    assert "    x = sub(x, y, 1)\n    x = div(x, y)\n" in W.numpy_chain(4, 16).python_ops


# -- the generated Python --------------------------------------------------------

def test_generated_fib_source():
    assert python_code(W.fib().graph(), operators.registry()).source == """\
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
"""


def test_generated_straight_line_frees_each_value_after_its_last_use():
    assert python_code(W.numpy_chain(4, 4).graph(), operators.registry()).source == """\
def forward(x_1, y_1):
    v4 = 1
    x_5 = add(x_1, y_1, v4);  x_1 = None
    x_9 = mul(x_5, y_1);  x_5 = None
    x_13 = sub(x_9, y_1, v4);  v4 = None;  x_9 = None
    x_17 = div(x_13, y_1);  y_1 = None;  x_13 = None
    return x_17
"""


def test_generated_while_loop_and_if():
    source = python_code(W.collatz(27, 2).graph(), operators.registry()).source
    assert """\
        steps_9, y_31 = total_1, x_1
        cond = v60
        while cond:
            v18 = remainder(y_31, v17)
            v19 = eq(v18, total_1);  v18 = None
            if v19:
                y_9 = floordiv(y_31, v17)
                y_29 = y_9
            else:
                v26 = mul(y_31, v25)
                y_15 = add(v26, v11);  v26 = None
                y_29 = y_15
            v19 = None
            steps_3 = add(steps_9, v11)
            v12 = ne(y_29, v11)
            cond, steps_9, y_31 = v12, steps_3, y_29
        steps, y = steps_9, y_31
""" in source


def test_generated_if_without_else_work():
    source = python_code(W.float_loop().graph(), operators.registry()).source
    assert """\
        v18 = gt(s_5, v17)
        if v18:
            s_13 = sub(s_5, v17)
            s_27 = s_13
        else:
            s_27 = s_5
        s_5 = None;  v18 = None
        s_29 = s_27
""" in source


def test_generated_names_constants_and_outputs():
    g = pyjit.parse_ir("""\
graph(%1 : int, %for : int):
  %k : int = prim::Constant[value=7]()
  %s : str = prim::Constant[value="hi"]()
  %f : float = prim::Constant[value=inf]()
  %c : bool = aten::lt(%1, %for)
  %r : int = prim::If(%c)
    block0():
      -> (%1)
    block1():
      %t : int = aten::add(%for, %k)
      -> (%t)
  %n : int = prim::Loop(%r, %c, %k)
    block0(%i : int, %acc : int):
      %acc.1 : int = aten::add(%acc, %i)
      %go : bool = aten::lt(%acc.1, %r)
      -> (%go, %acc.1)
  return (%n, %s)
""")
    generated = python_code(g, operators.registry())
    assert generated.source == """\
def forward(v1, for_):
    k = 7
    s = 'hi'
    f = _const;  f = None
    c = lt(v1, for_)
    if c:
        r = v1
    else:
        t = add(for_, k)
        r = t
    v1 = None;  for_ = None
    acc = k
    cond = c
    i = 0
    while cond and i < r:
        acc_1 = add(acc, i)
        go = lt(acc_1, r)
        cond, acc = go, acc_1
        i = i + 1
    n = acc
    k = None;  c = None;  r = None
    return (n, s)
"""
    assert generated.namespace["_const"] == float("inf")
    for args in [(1, 5), (5, 1), (0, 0), (2, 9)]:
        assert generated.fn(*args) == pyjit.Function(g, registry=operators.registry())(*args)


def test_last_uses_of_a_block():
    g = W.chain(3).graph()
    uses = last_uses(g.block, g.inputs)
    assert {str(n.outputs[0].debug_name): sorted(v.debug_name for v in vs)
            for n, vs in uses.items()} == {"x.5": ["x.1"], "x.9": ["x.5"],
                                           "x.13": ["x.9", "y.1"]}


# -- the walker ----------------------------------------------------------------------

def test_walker_keeps_no_value_after_a_run_and_drops_them_as_it_goes():
    sizes = []

    class Spy(GraphInterpreter):
        def call_function(self, target, args):
            sizes.append(len(self.env))
            return target(*args)

    walker = Spy(W.chain(5).graph(), operators.registry())
    assert walker(1, 3) == 16
    # x.i and y are in the environment when each add runs, nothing else.
    assert sizes == [2, 2, 2, 2, 2]
    assert walker.env == {}


def test_walker_errors_name_the_node():
    g = pyjit.parse_ir("""\
graph(%a : int, %b : int):
  %c : int = aten::floordiv(%a, %b)
  return (%c)
""")
    with pytest.raises(ZeroDivisionError) as info:
        GraphInterpreter(g, operators.registry())(1, 0)
    assert "While executing" in "".join(info.value.__notes__)
    assert "aten::floordiv" in "".join(info.value.__notes__)


def test_walker_checks_its_arguments():
    with pytest.raises(TypeError, match=r"graph takes 2 argument\(s\) but 1 were given"):
        GraphInterpreter(W.chain(2).graph(), operators.registry())(1)


# -- memory ------------------------------------------------------------------------

def test_memory_workload_peaks_at_a_few_arrays_in_every_freeing_system():
    w = W.memory(10, 100_000)   # 0.8 MB arrays; keeping every intermediate: 8 MB
    args = w.make_args()
    array = args[0].nbytes
    for s in build_systems(w, LOCAL):
        if s.fn is None:
            continue
        tracemalloc.start()
        try:
            tracemalloc.reset_peak()
            base = tracemalloc.get_traced_memory()[0]
            result = s.fn(*args)
            peak = tracemalloc.get_traced_memory()[1] - base
        finally:
            tracemalloc.stop()
        del result
        # The result and the one being computed, plus small change.
        assert 2 * array <= peak < 2.5 * array, (s.key, peak / array)


# -- the runner and the command ------------------------------------------------------

def _row(key, s_per_call, ratio, n_ops=3, note=""):
    return {"key": key, "label": SYSTEMS[key], "note": note, "s_per_call": s_per_call,
            "ns_per_op": s_per_call * 1e9 / n_ops, "ratio": ratio}


def _skipped(key, note):
    return {"key": key, "label": SYSTEMS[key], "note": note, "skipped": True}


CHAIN_RESULT = {
    "name": "chain", "title": "straight line: 3 additions", "operators_per_call": 3,
    "straight_line": True, "rounds": 5, "baseline": "pyjit", "systems": [
        _row("pyjit", 30e-9, 1.0),
        _row("pyjit-shared", 105.75e-9, 3.525),
        _row("walker", 6.345e-6, 211.5),
        _row("generated", 95.1e-9, 3.17),
        _row("python", 0.0037, 123333.3, note="one note"),
        _skipped("numpy", "skipped: tensor workloads only"),
        _skipped("torchscript", "skipped: torch is not importable (ModuleNotFoundError)")]}

FIB_RESULT = {
    "name": "fib", "title": "fib", "operators_per_call": 200, "straight_line": False,
    "rounds": 5, "baseline": "pyjit", "systems": [
        _row("pyjit", 2.5e-3, 1.0, 200), _row("pyjit-pure", 1.25, 500.0, 200),
        _row("python", 12.5e-3, 5.0, 200)]}


def test_format_workload_table():
    assert report.format_workload(CHAIN_RESULT) == """\
chain: straight line: 3 additions
  3 operators per call, median of 5 rounds
  system                                      per call        ns/op     ratio
  pyjit                                        30.0 ns         10.0     1.00x
  pyjit, shared ops                             106 ns         35.2     3.52x
  dict walker (fx.Interpreter), shared ops     6.35 us       2115.0   211.50x
  generated Python (fx), shared ops            95.1 ns         31.7     3.17x
  Python, natural                              3.70 ms    1,233,333 123333.30x   (one note)
  bare numpy calls                          skipped: tensor workloads only
  TorchScript                               skipped: torch is not importable (ModuleNotFoundError)"""


def test_format_time():
    assert [report.format_time(t) for t in (812e-9, 45.64e-6, 1.234e-3, 2.5, 123.4)] == [
        "812 ns", "45.6 us", "1.23 ms", "2.50 s", "123 s"]


def test_format_summary_lists_every_workload_side_by_side():
    assert report.format_summary([CHAIN_RESULT, FIB_RESULT]) == """\
summary: time per call over pyjit's (higher is slower; 'shared ops': the interpreter-only measurement)
                                                 chain        fib
  pyjit, per call                              30.0 ns    2.50 ms
  pyjit, ns per operator                          10.0     12,500
  pyjit                                          1.00x      1.00x
  pyjit pure twin                                    -    500.00x
  pyjit, shared ops                              3.52x          -
  generated Python (fx), shared ops              3.17x          -
  dict walker (fx.Interpreter), shared ops     211.50x          -
  Python, natural                           123333.30x      5.00x"""


def test_targets_are_checked_both_ways_and_say_what_was_not_measured():
    medians = {"pyjit": 1.0, "python": 5.0, "pyjit-pure": 19.0}
    skipped = {"torchscript": "skipped: torch is not importable (ModuleNotFoundError)"}
    checks = targets.check("fib", False, medians, skipped)
    assert [(c["issue"], c["ratio_of"], c["ratio"], c["bound"], c["met"], c["note"])
            for c in checks] == [
        ("issue 11", "pyjit / Python, natural", 0.2, 0.25, True, ""),
        ("issue 11", "pyjit / TorchScript", None, 0.25, None,
         "not measured: torch is not importable (ModuleNotFoundError)"),
        ("issue 11", "pyjit pure twin / pyjit", 19.0, 20.0, False, ""),
        ("issue 6", "dict walker (fx.Interpreter), shared ops / pyjit, shared ops", None,
         50.0, None, "not measured: pyjit, shared ops did not run"),
        ("issue 6", "pyjit pure twin, shared ops / pyjit, shared ops", None, 3.0, None,
         "not measured: pyjit, shared ops did not run")]
    # numpy-16 has the bare-numpy target, and the straight-line ones of issues 3 and 6.
    numpy16 = targets.check("numpy-16", True, {"pyjit": 1.2, "numpy": 1.0}, {})
    assert [(c["issue"], c["other"]) for c in numpy16] == [
        ("issue 11", "numpy"), ("issue 6", "walker"), ("issue 6", "pyjit-pure-shared"),
        ("issue 6", "generated"), ("issue 3", "python-ops")]
    assert numpy16[0]["ratio"] == pytest.approx(1.2) and numpy16[0]["met"] is False
    assert targets.check("memory", False, {}, {})[0]["issue"] == "issue 6"


def test_issue_11s_targets():
    eleven = [(t.other, t.kind, t.bound, t.workloads) for t in targets.TARGETS
              if t.issue == "issue 11"]
    scalar = ("fib", "collatz", "chain", "float-loop")
    assert eleven == [("python", "at most", 0.25, scalar), ("torchscript", "at most", 0.25, scalar),
                      ("numpy", "at most", 1.15, ("numpy-16",)),
                      ("pyjit-pure", "faster", 20.0, scalar)]
    assert {t.base for t in targets.TARGETS if t.issue == "issue 11"} == {"pyjit"}
    assert {t.base for t in targets.TARGETS if t.issue != "issue 11"} == {"pyjit-shared"}


def test_format_targets():
    checks = (targets.check("fib", False, {"pyjit": 1.0, "python": 5.0, "pyjit-pure": 19.0,
                                           "torchscript": 3.0, "pyjit-shared": 2.0,
                                           "walker": 150.0, "pyjit-pure-shared": 40.0}, {})
              + targets.check("numpy-16", True, {"pyjit": 1.1, "numpy": 1.0}, {})[:1])
    assert report.format_targets(checks) == """\
targets, issue 11: pyjit as users run it
  fib       pyjit / Python, natural                                         0.20x  <= 0.25x  met
  fib       pyjit / TorchScript                                             0.33x  <= 0.25x  NOT met
  fib       pyjit pure twin / pyjit                                        19.00x  >= 20x    NOT met
  numpy-16  pyjit / bare numpy calls                                        1.10x  <= 1.15x  met
targets, issues 3 and 6: the interpreter alone, shared ops
  fib       dict walker (fx.Interpreter), shared ops / pyjit, shared ops   75.00x  >= 50x    met
  fib       pyjit pure twin, shared ops / pyjit, shared ops                20.00x  >= 3x     met"""
    assert report.format_targets([]) == "targets: none applies to the workloads run"


def test_progress_on_a_log_writes_a_line_per_phase():
    out = io.StringIO()
    say = runner.Progress(out)
    for text in ["[1/2] fib: checking the results, pyjit", "[1/2] fib: checking the results, walker",
                 "[1/2] fib: round 1/3, pyjit", "[1/2] fib: round 1/3, walker",
                 "[1/2] fib: round 2/3, pyjit"]:
        say(text)
    say.done()
    assert out.getvalue() == ("[1/2] fib: checking the results\n[1/2] fib: round 1/3\n"
                              "[1/2] fib: round 2/3\n")


def test_a_system_that_disagrees_stops_the_run():
    w = W.chain(4)
    wrong = W.Workload(w.name, w.title, w.ir, w.python, w.python_ops.replace("add(", "sub("),
                       w.entry, w.make_args, w.n_ops, w.straight_line)
    with pytest.raises(runner.BenchmarkError,
                       match=r"chain: Python calling shared ops computed -11, natural Python 13"):
        runner.run_workload(wrong, runner.QUICK, systems=["python", "python-ops"])


def test_unknown_names_are_errors():
    with pytest.raises(ValueError, match="unknown system 'nope'; choose from pyjit, pyjit-O0, "):
        build_systems(W.chain(2), ["nope"])
    assert cli.main(["bench", "--only", "nope"]) == 1


def _check_report(report_, name, n_ops):
    assert report_["quick"] is True
    assert set(report_["machine"]) == {"cpu", "cpus", "platform", "python", "numpy", "pyjit",
                                       "compiled_core", "torch"}
    (res,) = report_["workloads"]
    assert res["name"] == name and res["operators_per_call"] == n_ops
    assert res["rounds"] >= runner.QUICK.min_rounds
    rows = {r["key"]: r for r in res["systems"]}
    assert list(rows) == list(SYSTEMS)
    base = res["baseline"]
    assert base in ("pyjit", "pyjit-pure") and rows[base]["ratio"] == 1.0
    for key in LOCAL:
        row = rows[key]
        if row.get("skipped"):
            assert key in COMPILED or key == "numpy"
            continue
        assert row["s_per_call"] > 0 and len(row["samples_ns_per_op"]) == res["rounds"]
        assert row["ns_per_op"] == pytest.approx(row["s_per_call"] * 1e9 / n_ops)
        assert row["ratio"] == pytest.approx(row["s_per_call"] / rows[base]["s_per_call"])
    assert report_["targets"] == res["targets"]
    return res


def test_bench_quick_only_fib_json_prints_json_and_the_tables_on_stderr(monkeypatch, capsys):
    """``pyjit bench --quick --only fib --json``, on a fib of 300 iterations so
    that the test takes a second, not the full workload's ten."""
    monkeypatch.setitem(W.WORKLOADS, "fib", lambda: W.fib(300))
    assert cli.main(["bench", "--quick", "--only", "fib", "--json"]) == 0
    out, err = capsys.readouterr()
    res = _check_report(json.loads(out), "fib", 600)
    assert "fib: fib loop: a, b = b, (a + b) % 1000003; n = 300" in err
    assert "  600 operators per call, median of " in err
    assert "[1/1] fib: checking the results" in err
    assert "\nsummary: time per call over " in err
    assert err.index("\nsummary:") < err.index("\ntargets, issue 11: pyjit as users run it\n") \
        < err.index("\ntargets, issues 3 and 6: the interpreter alone, shared ops\n")
    assert {(c["issue"], c["other"]) for c in res["targets"]} == {("issue 11", "python"), ("issue 11", "torchscript"),
                           ("issue 11", "pyjit-pure"), ("issue 6", "walker"),
                           ("issue 6", "pyjit-pure-shared")}
    for c in res["targets"]:
        if c["met"] is not None:
            assert re.search(rf"\n  fib +{re.escape(c['ratio_of'])} +\d", err)
            assert c["ratio"] > 0


def test_bench_json_file(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(W.WORKLOADS, "chain", lambda: W.chain(50))
    path = tmp_path / "bench.json"
    assert cli.main(["bench", "--quick", "--only", "chain", "--json", str(path)]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("pyjit bench --quick: ") and "\ntargets, issue 11" in out
    res = _check_report(json.loads(path.read_text()), "chain", 50)
    assert res["straight_line"] is True


def test_without_the_compiled_core_the_pure_twin_is_the_baseline(monkeypatch):
    from pyjit import _backend

    def not_built():
        raise ImportError("No module named 'pyjit._core'")

    monkeypatch.setattr(_backend, "compiled", not_built)
    res = runner.run_workload(W.chain(5), runner.QUICK, systems=["pyjit", "pyjit-pure", "python"])
    pyjit_row, pure_row, python_row = res["systems"]
    assert pyjit_row == {"key": "pyjit", "label": "pyjit", "skipped": True,
                         "note": "skipped: the compiled core is not built "
                                 "(No module named 'pyjit._core')"}
    assert res["baseline"] == "pyjit-pure" and pure_row["ratio"] == 1.0
    assert {c["note"] for c in res["targets"] if c["base"] == "pyjit"} == {
        "not measured: the compiled core is not built (No module named 'pyjit._core')"}
    assert "  pyjit                                     skipped: the compiled core is not built" \
        in report.format_workload(res)
