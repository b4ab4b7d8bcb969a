"""pyjit.benchmarks: every system computes the same thing, the generator and the
walker do what they say, and ``pyjit bench`` runs and writes its JSON.

No timing is asserted here: timings live in ``bench/`` (pytest-benchmark) and in
``pyjit bench``.  Workloads run at tiny sizes.
"""

from __future__ import annotations

import io
import json
import tracemalloc

import numpy as np
import pytest

import pyjit
from pyjit import cli
from pyjit.benchmarks import operators, runner
from pyjit.benchmarks import workloads as W
from pyjit.benchmarks.codegen import last_uses, python_code
from pyjit.benchmarks.systems import SYSTEMS, build_systems, natural_python
from pyjit.benchmarks.walker import CountingInterpreter, GraphInterpreter

TINY = {
    "fib": lambda: W.fib(30),
    "collatz": lambda: W.collatz(27, 2),
    "chain": lambda: W.chain(20),
    "numpy-16": lambda: W.numpy_chain(8, 16),
    "numpy-1m": lambda: W.numpy_chain(8, 1000, name="numpy-1m"),
    "memory": lambda: W.memory(6, 1000),
}

# Every system but TorchScript, which needs torch (pyjit's tests never import it).
LOCAL = [k for k in SYSTEMS if k != "torchscript"]


def test_tiny_sizes_cover_every_workload():
    assert list(TINY) == list(W.WORKLOADS)


@pytest.mark.parametrize("name", list(TINY))
def test_every_system_computes_natural_pythons_result(name):
    w = TINY[name]()
    args = w.make_args()
    reference = natural_python(w)(*args)
    systems = build_systems(w, LOCAL)
    assert [s.key for s in systems] == LOCAL
    for s in systems:
        if s.fn is None:  # the compiled core is not built: the note says so
            assert s.key == "pyjit" and s.note.startswith("skipped: the compiled core")
            continue
        result = s.fn(*s.convert_args(args))
        assert w.same(s.convert_result(result), reference), s.key


def test_pinned_results():
    def run(w):
        return natural_python(w)(*w.make_args())

    assert run(W.fib(30)) == 832040
    assert run(W.fib(31)) == 1346269 % 1000003 == 346266
    assert run(W.collatz(27, 2)) == 222       # collatz(27) takes 111 steps
    assert run(W.chain(20)) == 61             # 1 + 20 * 3
    x, y = W.numpy_chain(8, 16).make_args()
    # Each round of + * - / maps x to x + y - 1 (up to rounding).
    np.testing.assert_allclose(run(W.numpy_chain(8, 16)), x + 2 * (y - 1), rtol=1e-12)


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
    assert [W.WORKLOADS[n]().n_ops for n in ("numpy-16", "numpy-1m", "memory")] == [200, 200, 50]
    assert W.WORKLOADS["numpy-1m"]().params == {"n_ops": 200, "size": 1_000_000}


def test_every_system_calls_the_same_operator_callables():
    w = W.chain(3)
    registry = operators.registry()
    (pyjit_fn,) = [s.fn for s in build_systems(w, ["pyjit-pure"], registry)]
    assert pyjit_fn.code.callbacks == (operators.INT_OPS["add"],) * 3
    generated = python_code(w.graph(), registry)
    assert generated.namespace == {"add": operators.INT_OPS["add"]}
    walker = GraphInterpreter(w.graph(), registry)
    assert {target for op, target in walker.plan.values()} == {operators.INT_OPS["add"]}
    assert operators.TENSOR_OPS["div"] is np.divide


# -- the generated Python --------------------------------------------------------

def test_generated_fib_source():
    assert python_code(W.fib().graph(), operators.registry()).source == """\
def forward(n):
    true = True
    a_1 = 0
    b_1 = 1
    m = 1000003
    a_2, b_2 = a_1, b_1
    for i in range(n):
        s = add(a_2, b_2)
        b_3 = remainder(s, m);  s = None
        a_2, b_2 = b_2, b_3
    a, b = a_2, b_2
    n = None;  true = None;  a_1 = None;  b_1 = None;  m = None;  b = None
    return a
"""


def test_generated_straight_line_frees_each_value_after_its_last_use():
    assert python_code(W.numpy_chain(4, 4).graph(), operators.registry()).source == """\
def forward(x_0, y):
    x_1 = add(x_0, y);  x_0 = None
    x_2 = mul(x_1, y);  x_1 = None
    x_3 = sub(x_2, y);  x_2 = None
    x_4 = div(x_3, y);  y = None;  x_3 = None
    return x_4
"""


def test_generated_while_loop_and_if():
    source = python_code(W.collatz(27, 2).graph(), operators.registry()).source
    assert """\
        cond = more
        while cond:
            rem = remainder(y, two)
            even = eq(rem, zero);  rem = None
            if even:
                half = floordiv(y, two)
                y_1 = half
            else:
                t = mul(y, three)
                t_1 = add(t, one);  t = None
                y_1 = t_1
            even = None
            s_1 = add(s, one)
            more_1 = ne(y_1, one)
            cond, s, y = more_1, s_1, y_1
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
            for n, vs in uses.items()} == {"x.1": ["x.0"], "x.2": ["x.1"], "x.3": ["x.2", "y"]}


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

def test_format_workload_table():
    res = {
        "name": "chain", "title": "straight line: 3 additions", "operators_per_call": 3,
        "rounds": 5, "targets": [
            {"system": "walker", "ratio": 60.0, "minimum": 50.0, "met": True, "issue": "6"},
            {"system": "generated", "ratio": 0.9, "minimum": 1.0, "met": False, "issue": "6"}],
        "systems": [
            {"key": "pyjit", "label": "pyjit compiled", "note": "", "ns_per_op": 35.25,
             "ratio": 1.0},
            {"key": "walker", "label": "dict walker (fx.Interpreter)", "note": "",
             "ns_per_op": 2115.0, "ratio": 60.0},
            {"key": "generated", "label": "generated Python (fx)", "note": "",
             "ns_per_op": 31.7, "ratio": 0.9},
            {"key": "numpy-ish", "label": "big", "note": "one note", "ns_per_op": 1234567.0,
             "ratio": 35022.0},
            {"key": "torchscript", "label": "TorchScript", "skipped": True,
             "note": "skipped: torch is not importable (ModuleNotFoundError)"}]}
    assert runner.format_workload(res) == """\
chain: straight line: 3 additions
  3 operators per call, median of 5 rounds
  system                                ns/op     ratio
  pyjit compiled                         35.2     1.00x
  dict walker (fx.Interpreter)         2115.0    60.00x
  generated Python (fx)                  31.7     0.90x
  big                               1,234,567 35022.00x   (one note)
  TorchScript                    skipped: torch is not importable (ModuleNotFoundError)
  targets: dict walker (fx.Interpreter) 60.00x (>= 50: met); generated Python (fx) 0.90x (>= 1: NOT met)"""


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
                       match=r"chain: Python calling the ops computed -11, natural Python 13"):
        runner.run_workload(wrong, runner.QUICK, systems=["python", "python-ops"])


def test_unknown_names_are_errors():
    with pytest.raises(ValueError, match="unknown system 'nope'; choose from pyjit, "):
        build_systems(W.chain(2), ["nope"])
    assert cli.main(["bench", "--only", "nope"]) == 1


def test_bench_quick_only_chain_writes_json(tmp_path, capsys):
    path = tmp_path / "bench.json"
    assert cli.main(["bench", "--quick", "--only", "chain", "--json", str(path)]) == 0
    out, err = capsys.readouterr()
    assert "chain: straight line: 1,000 dependent int additions x = x + y" in out
    assert "  1,000 operators per call, median of " in out
    assert "[1/1] chain: checking the results" in err
    report = json.loads(path.read_text())
    assert report["quick"] is True
    assert set(report["machine"]) == {"cpu", "cpus", "platform", "python", "numpy", "pyjit",
                                      "compiled_core", "torch"}
    (chain,) = report["workloads"]
    assert chain["name"] == "chain" and chain["operators_per_call"] == 1000
    assert chain["straight_line"] is True and chain["rounds"] >= runner.QUICK.min_rounds
    rows = {r["key"]: r for r in chain["systems"]}
    assert list(rows) == list(SYSTEMS)
    base = chain["baseline"]
    assert base in ("pyjit", "pyjit-pure") and rows[base]["ratio"] == 1.0
    for key in LOCAL:
        if rows[key].get("skipped"):
            assert key == "pyjit"
            continue
        row = rows[key]
        assert row["ns_per_op"] > 0 and len(row["samples_ns_per_op"]) == chain["rounds"]
        assert row["ratio"] == pytest.approx(row["ns_per_op"] / rows[base]["ns_per_op"])
    if base == "pyjit":
        assert [t["system"] for t in chain["targets"]] == [
            "walker", "pyjit-pure", "generated", "python-ops"]


def test_without_the_compiled_core_the_pure_twin_is_the_baseline(monkeypatch):
    from pyjit import _backend

    def not_built():
        raise ImportError("No module named 'pyjit._core'")

    monkeypatch.setattr(_backend, "compiled", not_built)
    res = runner.run_workload(W.chain(5), runner.QUICK, systems=["pyjit", "pyjit-pure", "python"])
    pyjit_row, pure_row, python_row = res["systems"]
    assert pyjit_row == {"key": "pyjit", "label": "pyjit compiled", "skipped": True,
                         "note": "skipped: the compiled core is not built "
                                 "(No module named 'pyjit._core')"}
    assert res["baseline"] == "pyjit-pure" and pure_row["ratio"] == 1.0
    assert res["targets"] == []
    assert "  pyjit compiled                 skipped: the compiled core is not built" in \
        runner.format_workload(res)
