"""The profiler (pyjit.profile, pyjit run --profile): exact counts per node on both
loops at both levels, times that add up, and the table's and JSON's shape."""

import inspect
import gc
import json
import os
import runpy
import subprocess
import sys
import threading

import pytest

import pyjit
from pyjit import cli
from pyjit.futures import Future
from pyjit.interpreter import Function
from pyjit.ir.parser import parse_ir
from pyjit.profiler import INTERPRETER, NodeRecord

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIB = "examples/fib.ir"  # its nodes' locations are relative to the checkout: run there


@pytest.fixture(autouse=True)
def in_checkout(monkeypatch):
    monkeypatch.chdir(ROOT)

IF_IN_LOOP = """\
graph(%n : int):
  %zero : int = prim::Constant[value=0]() # p.py:1:0
  %one : int = prim::Constant[value=1]() # p.py:1:0
  %three : int = prim::Constant[value=3]() # p.py:1:0
  %t : bool = prim::Constant[value=1]() # p.py:2:4
  %s : int = prim::Loop(%n, %t, %zero) # p.py:2:4
    block0(%i : int, %acc : int):
      %r : int = aten::remainder(%i, %three) # p.py:3:11
      %c : bool = aten::eq(%r, %zero) # p.py:3:11
      %acc2 : int = prim::If(%c) # p.py:3:8
        block0():
          %a : int = aten::add(%acc, %i) # p.py:4:18
          -> (%a)
        block1():
          %b : int = aten::sub(%acc, %one) # p.py:6:18
          -> (%b)
      -> (%t, %acc2)
  return (%s)
"""

CALLS = {
    "double": """graph(%x : int):
  %two : int = prim::Constant[value=2]()
  %y : int = aten::mul(%x, %two) # d.py:2:11
  return (%y)
""",
    "f": """graph(%n : int):
  %d : Function = prim::Constant[name="double"]()
  %t : bool = prim::Constant[value=1]()
  %zero : int = prim::Constant[value=0]()
  %s : int = prim::Loop(%n, %t, %zero) # f.py:2:4
    block0(%i : int, %acc : int):
      %y : int = prim::CallFunction(%d, %i) # f.py:3:15
      %acc2 : int = aten::add(%acc, %y) # f.py:3:8
      -> (%t, %acc2)
  return (%s)
"""}

FORK = """\
graph(%x : int):
  %f : Future[int] = prim::fork_0(%x) # main.py:2:6
  %y : int = aten::wait(%f) # main.py:3:6
  %z : int = aten::mul(%y, %x) # main.py:4:6
  return (%z)
with prim::fork_0 = graph(%a : int):
  %one : int = prim::Constant[value=1]()
  %b : int = aten::add(%a, %one) # sub.py:1:4
  return (%b)
"""


def counts(prof, graph=None):
    """``{(kind, line): count}`` of the rows that ran, the interpreter's left out."""
    out = {}
    for r in prof.records():
        if r.kind != INTERPRETER and (graph is None or r.graph == graph):
            key = (r.kind, r.where.rsplit(":", 1)[-1])
            out[key] = out.get(key, 0) + r.count
    return out


def body_counts(prof):
    """The counts of the rows with a location (the graph's own nodes, not the
    desugared or interface ones), by kind and line."""
    return {k: v for k, v in counts(prof).items() if k[1] != "-"}


def load(path, loop):
    with open(path) as f:
        return Function(parse_ir(f.read(), file=path, read_sources=True), loop=loop)


def test_fib_counts_are_exact(loop):
    fib = load(FIB, loop)
    with pyjit.profile() as prof:
        assert fib(25) == 75025
    c = counts(prof)
    assert c[("aten::add", "9")] == 25          # the loop body: n times
    assert c[("prim::Loop", "8")] >= 1
    assert c[("prim::Load", "-")] == 1 and c[("prim::Store", "-")] == 1
    records = prof.records()
    assert all(isinstance(r, NodeRecord) for r in records)
    (loop_row,) = [r for r in records if r.kind == "prim::Loop"]
    assert loop_row.count == 1 and loop_row.source == "for _ in range(n):"
    assert loop_row.location == "examples/fib.py:8:4"
    if not pyjit.code.default_optimize():
        # The seed's desugared trip count: i + 1, i < n and `and` once per trip,
        # with the Loop's line; and the test to enter, before the Loop.
        assert c[("aten::add", "8")] == 25
        assert c[("aten::lt", "8")] == 25 and c[("aten::__and__", "8")] == 25
        assert c[("aten::lt", "-")] == 1 and c[("aten::__and__", "-")] == 1


def test_times_add_up_to_the_wall_time(loop):
    """Within 10%: what is outside the loop (the call's argument check, the
    frame) is a few microseconds.  On a shared machine another process may take
    the processor just then, or the collector run: the best of three, without
    the collector."""
    fib = load(FIB, loop)
    fib(10)  # compiled and linked before the profile
    gc.disable()
    try:
        for _ in range(3):
            with pyjit.profile() as prof:
                fib(20000)
            total = sum(r.total_ns for r in prof.records())
            assert total <= prof.wall_ns
            if total >= 0.9 * prof.wall_ns:
                break
    finally:
        gc.enable()
    assert 0.9 * prof.wall_ns <= total == prof.total_ns
    assert abs(sum(r.share for r in prof.records()) - 1) < 1e-9
    add = [r for r in prof.records() if r.kind == "aten::add" and r.count == 20000]
    assert add and add[0].mean_ns == add[0].total_ns / 20000


def test_if_in_a_loop_counts_each_branch(loop):
    f = Function(parse_ir(IF_IN_LOOP), loop=loop)
    with pyjit.profile() as prof:
        assert f(10) == (0 + 3 + 6 + 9) - 6
    c = body_counts(prof)
    assert c[("aten::remainder", "3")] == 10
    assert c[("aten::eq", "3")] == 10          # folded into JNE_I at O1: counted still
    assert c[("prim::If", "3")] == 10
    assert c[("aten::add", "4")] == 4 and c[("aten::sub", "6")] == 6
    assert c[("prim::Loop", "2")] == 1


def test_a_profile_adds_up_over_runs_and_can_be_turned_on_again(loop):
    f = Function(parse_ir(IF_IN_LOOP), loop=loop)
    prof = pyjit.profile()
    assert prof.call(f, 3) == 0 - 1 - 1
    with prof:
        f(3)
    f(3)  # not profiled
    assert body_counts(prof)[("aten::remainder", "3")] == 6


def test_calls_count_the_callee_in_its_own_rows(loop):
    unit = pyjit.CompilationUnit(CALLS)
    with pyjit.profile() as prof:
        assert unit.f(5) == 2 * (0 + 1 + 2 + 3 + 4)
    assert counts(prof, "f")[("prim::CallFunction", "3")] == 5
    assert counts(prof, "f")[("aten::add", "3")] == 5
    assert counts(prof, "double")[("aten::mul", "2")] == 5
    assert counts(prof, "double")[("prim::Load", "-")] == 5


def test_a_fork_is_profiled_in_its_subgraph_rows(loop):
    f = Function(parse_ir(FORK), loop=loop)
    with pyjit.profile() as prof:
        assert f(6) == 42
        assert f(2) == 6
    c = body_counts(prof)
    assert c[("prim::fork", "2")] == 2 and c[("aten::wait", "3")] == 2
    assert c[("aten::mul", "4")] == 2 and c[("aten::add", "1")] == 2


def test_a_suspended_wait_counts_once(loop):
    fut = Future()
    pyjit.register_operator("profile_tests::later", lambda: fut)
    f = Function(parse_ir("""\
graph(%x : int):
  %f : Future[int] = profile_tests::later() # w.py:1:0
  %y : int = aten::wait(%f) # w.py:2:0
  %z : int = aten::add(%y, %x) # w.py:3:0
  return (%z)
"""), loop=loop)
    threading.Timer(0.05, fut.mark_completed, (40,)).start()
    with pyjit.profile() as prof:
        assert f(2) == 42
    c = body_counts(prof)
    assert c[("aten::wait", "2")] == 1 and c[("aten::add", "3")] == 1


def test_a_run_that_raises_keeps_what_ran(loop):
    f = Function(parse_ir("""\
graph(%n : int):
  %t : bool = prim::Constant[value=1]()
  %zero : int = prim::Constant[value=0]()
  %s : int = prim::Loop(%n, %t, %zero) # r.py:1:0
    block0(%i : int, %acc : int):
      %k : int = aten::sub(%i, %n) # r.py:2:0
      %q : int = aten::floordiv(%acc, %k) # r.py:3:0
      %acc2 : int = aten::add(%q, %i) # r.py:4:0
      -> (%t, %acc2)
  return (%s)
"""), loop=loop)
    with pyjit.profile() as prof:
        assert f(3) == 0 // -3 + 1 // -2 + 2
    with pyjit.profile() as prof3, pytest.raises(pyjit.InterpreterError, match="by 0"):
        Function(parse_ir("""\
graph(%a : int, %b : int):
  %q : int = aten::floordiv(%a, %b) # z.py:1:0
  %r : int = aten::add(%q, %a) # z.py:2:0
  return (%r)
"""), loop=loop)(1, 0)
    c = body_counts(prof3)
    assert c == {("aten::floordiv", "1"): 1}
    assert pyjit.Profile().records() == []
    assert sum(r.total_ns for r in prof3.records()) <= prof3.wall_ns
    assert body_counts(prof)[("aten::floordiv", "3")] == 3


def test_one_profile_at_a_time_and_none_after():
    with pyjit.profile():
        with pytest.raises(RuntimeError, match="a pyjit profile is on already"):
            pyjit.profile().enable()


def test_no_profile_is_left_on(loop):
    with pyjit.profile() as prof:
        assert loop.get_profile() is prof._tallies
    assert loop.get_profile() is None
    with pytest.raises(TypeError, match="set_profile"):
        loop.set_profile([])


def test_the_normal_loop_has_no_profiling_in_it(backends):
    """The pure loop's two variants: the flag is gone from the plain one."""
    import dis
    Frame = backends[0].Frame
    plain = {i.argval for i in dis.get_instructions(Frame._execute)}
    profiled = {i.argval for i in dis.get_instructions(Frame._execute_profiled)}
    assert "PROFILED" not in plain | profiled
    assert "perf_counter_ns" in profiled and "perf_counter_ns" not in plain
    assert "_tally" in profiled and "_tally" not in plain



def test_the_compiled_timed_loop_is_a_module_of_its_own(backends, tmp_path):
    """_core compiles its loop without the timing; the timed copy is pyjit._timed,
    loaded when a profile first starts, so a program that never profiles never
    has it in memory."""
    script = "\n".join([
        "import sys",
        "from pyjit import _backend",
        "from pyjit.interpreter import Function",
        "from pyjit.ir.parser import parse_ir",
        "import pyjit",
        "assert _backend.loop.__name__ == 'pyjit._core', _backend.loop",
        f"f = Function(parse_ir(open({os.path.join(ROOT, FIB)!r}).read()))",
        "assert f(20) == 6765",
        "assert 'pyjit._timed' not in sys.modules, 'loaded without a profile'",
        "with pyjit.profile() as prof:",
        "    assert f(20) == 6765",
        "assert 'pyjit._timed' in sys.modules",
        "assert f(20) == 6765 and prof.records()",
    ])
    # The pyjit these tests run, not one a checkout in the working directory
    # would put first on the path (an unpacked sdist's has no compiled loop).
    env = {k: v for k, v in os.environ.items() if k != "PYJIT_PUREPYTHON"}
    env["PYTHONPATH"] = os.path.dirname(os.path.dirname(pyjit.__file__))
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env,
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr

def test_cli_table(capsys):
    assert cli.main(["run", "--profile", "--sources", "-O1", FIB, "30"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "832040" and out[1] == ""
    assert out[2].startswith("pyjit profile: ") and " ms wall (" in out[2]
    assert out[3].split() == ["count", "total", "ms", "mean", "ns", "share", "file:line",
                              "node", "source"]
    rows = {line.split()[5]: line.split() for line in out[4:]}
    assert set(rows) == {"prim::Loop", "aten::add", "prim::Load", "prim::Store", INTERPRETER}
    assert rows["aten::add"][0] == "30" and rows["aten::add"][4].endswith("fib.py:9")
    assert rows["aten::add"][6:] == ["a,", "b", "=", "b,", "a", "+", "b"]
    assert rows["prim::Loop"][0] == "1" and rows[INTERPRETER][0] == "-"
    assert [r[3][-1] for r in rows.values()] == ["%"] * 5


def test_cli_json(capsys):
    assert cli.main(["run", "--json", "-O0", FIB, "7"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data) == {"loop", "wall_ns", "total_ns", "records", "instructions", "outputs"}
    assert data["outputs"] == ["13"]
    assert data["loop"] == pyjit._backend.loop.__name__
    assert data["total_ns"] == sum(r["total_ns"] for r in data["records"])
    for r in data["records"]:
        assert set(r) == set(NodeRecord._fields)
    add = [r for r in data["records"] if r["kind"] == "aten::add"
           and r["location"].endswith("fib.py:9:18")]
    assert [r["count"] for r in add] == [7]
    assert add[0]["node"] == "%b.7 : int = aten::add(%a.9, %b.11)"


def test_cli_profile_of_a_failing_run(tmp_path, capsys):
    path = tmp_path / "z.ir"
    path.write_text("""\
graph(%a : int, %b : int):
  %q : int = aten::floordiv(%a, %b) # z.py:1:0
  return (%q)
""")
    assert cli.main(["run", "--profile", str(path), "1", "0"]) == 1
    captured = capsys.readouterr()
    assert captured.out.startswith("pyjit profile: ")
    assert "aten::floordiv" in captured.out
    assert captured.err.startswith("pyjit: error: ")


def _readme():
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
        return f.read()


def test_the_readme_shows_a_real_profile(capsys):
    """The Profiling section's table is pyjit's: the same rows with the same
    counts as a run now (times differ from run to run)."""
    section = _readme().split("## Profiling", 1)[1]
    block = section.split("```\n", 2)[1]
    command, *shown = block.splitlines()
    assert command == "$ pyjit run --profile --sources examples/fib.ir 100000"
    assert cli.main(command.split()[2:]) == 0
    out = capsys.readouterr().out.splitlines()

    def rows(lines):
        return sorted((cells[0], cells[4], cells[5]) for cells in map(str.split, lines[4:]))
    assert shown[:2] == out[:2] and shown[3].split() == out[3].split()
    assert rows(shown) == rows(out)


def test_the_readme_python_example_runs(tmp_path, capsys):
    section = _readme().split("## Profiling", 1)[1]
    example = tmp_path / "example.py"  # @pyjit.script reads the function's source
    example.write_text(section.split("```python\n", 1)[1].split("```", 1)[0])
    runpy.run_path(str(example))
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("pyjit profile: ")
    steps = [line.split() for line in out if line.endswith("steps += 1")]
    assert [(cells[0], cells[4]) for cells in steps] == [("111", f"{example}:8")]
    # n % 2 == 0 is one REM_POW2 and one compare-and-branch, which the compiled
    # loop runs in one dispatch: still a count for each of the three nodes.
    line7 = {cells[5]: cells[0] for cells in map(str.split, out[2:])
             if cells[4] == f"{example}:7"}
    assert {k: line7[k] for k in ("prim::If", "aten::remainder", "aten::eq")} == \
        {"prim::If": "111", "aten::remainder": "111", "aten::eq": "111"}


def test_the_twins_say_the_same(backends):
    pure, core = backends
    for name in ("set_profile", "get_profile"):
        # cleandoc: Python 3.13 strips a docstring's indentation when it compiles
        # it, Cython does not.
        assert (inspect.cleandoc(getattr(pure, name).__doc__)
                == inspect.cleandoc(getattr(core, name).__doc__)), name


def test_an_if_whose_else_branch_comes_to_nothing(loop):
    """At O1 the branch is negated to jump over the then branch (no JUMP): the
    If still counts once per trip, its then branch once per taken trip."""
    f = Function(parse_ir("""\
graph(%n : int):
  %zero : int = prim::Constant[value=0]()
  %two : int = prim::Constant[value=2]()
  %t : bool = prim::Constant[value=1]()
  %s : int = prim::Loop(%n, %t, %zero) # e.py:1:0
    block0(%i : int, %x : int):
      %c : bool = aten::lt(%i, %two) # e.py:2:7
      %x2 : int = prim::If(%c) # e.py:2:4
        block0():
          %y : int = aten::sub(%x, %i) # e.py:3:12
          -> (%y)
        block1():
          -> (%x)
      -> (%t, %x2)
  return (%s)
"""), loop=loop)
    with pyjit.profile() as prof:
        assert f(5) == -1
    c = body_counts(prof)
    assert c[("prim::If", "2")] == 5 and c[("aten::lt", "2")] == 5
    assert c[("aten::sub", "3")] == 2
