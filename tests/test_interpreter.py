"""Running graphs: InterpreterState and Function on both run loops.

Every test takes the ``loop`` fixture (tests/conftest.py): it runs once with the
pure-Python twin ``pyjit._pure`` and once with the compiled ``pyjit._core``.
The operators the tests need beyond the library are registered in the default
registry under the ``tests::`` namespace, as a user would with
``register_operator``.
"""

from __future__ import annotations

import gc
import glob
import operator
import os
import sys
import threading
import time
import tracemalloc
import weakref

import numpy as np
import pytest

import pyjit
from pyjit import cli
from pyjit.benchmarks.walker import GraphInterpreter
from pyjit.code import Code
from pyjit.errors import InterpreterError, JITException
from pyjit.interpreter import Function, InterpreterState
from pyjit.ir.parser import parse_ir
from pyjit.registry import Registry, register_operator

from helpers.code_cases import CASES
from helpers.memory import traced_growth
from helpers.signals import alarm, needs_setitimer

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Boom(Exception):
    pass


def _boom(*args):
    raise Boom("boom")


register_operator("tests::boom", _boom)            # any inputs, raises
register_operator("tests::neg", np.negative)       # a ufunc: no Python frame per call
register_operator("tests::one", lambda x: 1)       # reads a value, returns 1

# Set by the memory tests: the object whose lifetime tests::is_dead observes.
_watched: list = []
register_operator("tests::is_dead", lambda *args: _watched[0]() is None)


def graph(text: str, file: str | None = None):
    return parse_ir(text, file=file)


# -- the seed's contract ------------------------------------------------------------

ADD_MUL = """\
graph(%x : int, %y : int):
  %s : int = aten::add(%x, %y)
  %p : int = aten::mul(%x, %y)
  return (%s, %p)
"""


def test_run_replaces_inputs_by_outputs(loop):
    """``run(stack)``: the inputs are the last items of the stack; afterwards they
    are gone and the outputs follow whatever lay below, which is untouched."""
    below = [object(), "below", 7]
    stack = below + [3, 4]
    InterpreterState(Code(graph(ADD_MUL)), loop=loop).run(stack)
    assert stack == below + [7, 12]
    assert all(a is b for a, b in zip(stack, below))


def test_run_takes_inputs_in_order_last_on_top(loop):
    stack = [10, 3]
    InterpreterState(Code(graph("""\
graph(%x : int, %y : int):
  %d : int = aten::sub(%x, %y)
  return (%d)
""")), loop=loop).run(stack)
    assert stack == [7]


def test_run_with_too_few_inputs(loop):
    state = InterpreterState(Code(graph(ADD_MUL)), loop=loop)
    stack = [1]
    with pytest.raises(InterpreterError, match=r"^TypeError: LOAD takes 2 values but the "
                                                r"stack holds 1\n  while running: "):
        state.run(stack)
    assert stack == [1]


def test_one_code_many_states(loop):
    code = Code(graph(ADD_MUL))
    for x in range(5):
        stack = [x, 10]
        InterpreterState(code, loop=loop).run(stack)
        assert stack == [x + 10, x * 10]


def test_running_a_finished_state_does_nothing(loop):
    """As in the seed: pc is at the end, so no instruction runs."""
    state = InterpreterState(Code(graph(ADD_MUL)), loop=loop)
    state.run([1, 2])
    stack = [5, 6]
    state.run(stack)
    assert stack == [5, 6] and state.pc == len(state.code)


def test_interpreter_state_takes_a_code(loop):
    with pytest.raises(TypeError, match="^InterpreterState\\(\\) takes a Code, not Graph$"):
        InterpreterState(graph(ADD_MUL), loop=loop)


# -- Function -------------------------------------------------------------------------

def test_function_outputs(loop):
    none = Function(graph("graph(%x : int):\n  return ()\n"), loop=loop)
    one = Function(graph("graph(%x : int):\n  %y : int = aten::neg(%x)\n  return (%y)\n"),
                   loop=loop)
    several = Function(graph(ADD_MUL), loop=loop)
    assert none(1) is None
    assert one(5) == -5
    assert several(3, 4) == (7, 12)
    zero_inputs = Function(graph("""\
graph():
  %a : int = prim::Constant[value=2]()
  %b : str = prim::Constant[value="x"]()
  return (%a, %b, %a)
"""), loop=loop)
    assert zero_inputs() == (2, "x", 2)


def test_function_checks_its_arguments(loop):
    f = Function(graph(ADD_MUL), loop=loop)
    with pytest.raises(TypeError) as info:
        f(1, 2, 3)
    assert str(info.value) == ("graph() expected at most 2 argument(s) but received 3 "
                               "argument(s). Declaration: graph(%x : int, %y : int) -> "
                               "(int, int)")
    with pytest.raises(TypeError) as info:
        f(1)
    assert str(info.value) == ("graph() is missing value for argument '%y'. Declaration: "
                               "graph(%x : int, %y : int) -> (int, int)")


def test_function_passes_objects_through(loop):
    """Values are not copied: the same objects come out."""
    f = Function(graph("""\
graph(%a : Any, %b : Any):
  return (%b, %a, %b)
"""), loop=loop)
    a, b = object(), [1]
    out = f(a, b)
    assert out[0] is b and out[1] is a and out[2] is b


@pytest.mark.parametrize("n, expect", [(0, 0), (1, 1), (2, 1), (10, 55), (30, 832040)])
def test_fib(loop, n, expect):
    with open(os.path.join(ROOT, "examples", "fib.ir"), encoding="utf-8") as f:
        fib = Function(parse_ir(f.read()), loop=loop)
    assert fib(n) == expect


# The graphs whose code test_code.py pins, run on inputs that take every branch.
PINNED_INPUTS = {
    "straight_line": [(3, 4), (-2, 5)],
    "unused_outputs": [((1, 2), 3)],
    "used_twice_by_one_node": [(7,)],
    "multiple_outputs": [(9, 4)],
    "several_outputs_node": [((2, 3, 4),)],
    "if_with_outputs": [(True, 5, 3), (False, 5, 3)],
    "last_use_in_one_branch": [(True, 5, 3), (False, 5, 3)],
    "zero_trip_loop": [(3,)],
    "while_loop": [(1, 100), (200, 100)],
    "swap_carried": [(0, 1, 2, 0), (1, 1, 2, 0), (5, 1, 2, 10)],
    "nested_if_in_loop": [(0, 1), (5, 1)],
    "loop_in_if": [(True, 4, 1), (False, 4, 1)],
}


def test_pinned_inputs_cover_the_pinned_graphs():
    assert sorted(PINNED_INPUTS) == sorted(CASES)


@pytest.mark.parametrize("name", sorted(PINNED_INPUTS))
def test_pinned_graphs_agree_with_the_dict_walker(loop, name):
    """The benchmarks' walker runs the user's graph as it is (no passes, no
    instruction table): it shares only the operators with pyjit."""
    g = graph(CASES[name].ir)
    f = Function(g, loop=loop)
    walker = GraphInterpreter(g)
    for args in PINNED_INPUTS[name]:
        assert f(*args) == walker(*args)


@pytest.mark.parametrize("name, args, expect", [
    ("if_with_outputs", (True, 5, 3), 8),
    ("if_with_outputs", (False, 5, 3), 2),
    ("last_use_in_one_branch", (True, 5, 3), 30),
    ("last_use_in_one_branch", (False, 5, 3), 9),
    ("zero_trip_loop", (3,), 3),
    ("while_loop", (1, 100), 128),
    ("while_loop", (200, 100), 200),
    ("swap_carried", (5, 1, 2, 10), (2, 1, 17)),
    ("nested_if_in_loop", (5, 1), 16),   # 1, 1+0, 1+1, 2*2, 4*2, 8*2
    ("loop_in_if", (True, 4, 1), 7),
    ("loop_in_if", (False, 4, 1), 1),
    ("multiple_outputs", (9, 4), (5, 13, 9, 5)),
])
def test_pinned_graphs_values(loop, name, args, expect):
    assert Function(graph(CASES[name].ir), loop=loop)(*args) == expect


# -- errors ----------------------------------------------------------------------

def _source_file(tmp_path):
    path = tmp_path / "model.py"
    path.write_text("def f(x, y):\n"
                    "    s = x + y\n"
                    "    return s // y\n", encoding="utf-8")
    return str(path)


def test_failing_operator_is_located(loop, tmp_path):
    src = _source_file(tmp_path)
    g = parse_ir(f"""\
graph(%x : int, %y : int):
  %s : int = aten::add(%x, %y) # {src}:2:8
  %q : int = aten::floordiv(%s, %y) # {src}:3:11
  return (%q)
""", read_sources=True)
    state = InterpreterState(Code(g), loop=loop)
    with pytest.raises(InterpreterError) as info:
        state.run([1, 0])
    e = info.value
    assert isinstance(e, RuntimeError) and type(e) is InterpreterError
    assert str(e) == (f"ZeroDivisionError: division by 0\n"
                      f"  at {src}:3:11\n"
                      f"        return s // y\n"
                      f"               ^\n"
                      f"  while running: %q : int = aten::floordiv(%s, %y) # {src}:3:11")
    assert type(e.__cause__) is ZeroDivisionError
    assert e.node == f"%q : int = aten::floordiv(%s, %y) # {src}:3:11"
    assert str(e.location) == f"{src}:3:11"
    assert state.code.node_at(state.pc).kind == "aten::floordiv"
    if not state.code.optimize:
        assert state.pc == 2  # the floordiv, after the Load and the add


def test_unreadable_source_gives_the_location_only(loop, tmp_path):
    missing = str(tmp_path / "gone.py")
    f = Function(graph(f"""\
graph(%x : Any):
  %y : int = tests::boom(%x) # {missing}:7:3
  return (%y)
"""), loop=loop)
    with pytest.raises(InterpreterError) as info:
        f(1)
    assert str(info.value) == (f"Boom: boom\n  at {missing}:7:3\n"
                               f"  while running: %y : int = tests::boom(%x) # {missing}:7:3")
    assert type(info.value.__cause__) is Boom


def test_error_without_location(loop):
    f = Function(graph("graph(%x : Any):\n  %y : int = tests::boom(%x, %x)\n  return (%y)\n"),
                 loop=loop)
    with pytest.raises(InterpreterError) as info:
        f(1)
    assert str(info.value) == "Boom: boom\n  while running: %y : int = tests::boom(%x, %x)"
    assert info.value.location is None


def test_error_inside_a_loop_body_names_the_body_node(loop, tmp_path):
    src = _source_file(tmp_path)
    f = Function(graph(f"""\
graph(%n : int, %x : int):
  %t : bool = prim::Constant[value=1]()
  %zero : int = prim::Constant[value=0]()
  %r : int = prim::Loop(%n, %t, %x) # {src}:1:0
    block0(%i : int, %a : int):
      %b : int = aten::sub(%a, %i) # {src}:2:8
      %q : int = aten::floordiv(%b, %a) # {src}:3:11
      -> (%t, %b)
  return (%r)
"""), loop=loop)
    assert f(2, 5) == 4          # 5 - 0, then 5 - 1
    with pytest.raises(InterpreterError) as info:
        f(5, 1)                  # a: 1, 1 - 0, 1 - 1 = 0, then 0 - 2 // 0
    assert "while running: %q : int = aten::floordiv(%b, %a)" in str(info.value)
    assert str(info.value).startswith(f"ZeroDivisionError: division by 0\n  at {src}:3:11\n")


def test_a_location_in_ir_text_reads_no_file_unless_asked(loop, tmp_path):
    # IR text may come from anyone: by default the file a '# file:line:col' names
    # is not read, so a message cannot quote another file's line.
    src = _source_file(tmp_path)
    text = f"""\
graph(%x : int, %y : int):
  %q : int = aten::floordiv(%x, %y) # {src}:3:11
  return (%q)
"""
    with pytest.raises(InterpreterError) as info:
        Function(parse_ir(text), loop=loop)(1, 0)
    assert str(info.value) == (f"ZeroDivisionError: division by 0\n"
                               f"  at {src}:3:11\n"
                               f"  while running: %q : int = aten::floordiv(%x, %y) # {src}:3:11")
    with pytest.raises(InterpreterError) as info:
        Function(parse_ir(text, read_sources=True), loop=loop)(1, 0)
    assert "        return s // y\n" in str(info.value)


def test_raise_exception_is_a_jit_exception(loop, tmp_path):
    src = _source_file(tmp_path)
    f = Function(parse_ir(f"""\
graph(%x : int):
  %m : str = prim::Constant[value="x must be positive"]()
  %c : str = prim::Constant[value="builtins.ValueError"]()
   = prim::RaiseException(%m, %c) # {src}:2:4
  return (%x)
""", read_sources=True), loop=loop)
    with pytest.raises(JITException) as info:
        f(-1)
    e = info.value
    assert isinstance(e, InterpreterError) and isinstance(e, RuntimeError)
    assert e.msg == "x must be positive" and e.python_class == "builtins.ValueError"
    assert str(e) == (f"builtins.ValueError: x must be positive\n"
                      f"  at {src}:2:4\n"
                      f"        s = x + y\n"
                      f"        ^\n"
                      f"  raised by:  = prim::RaiseException(%m, %c) # {src}:2:4")
    assert type(e.__cause__) is JITException and e.__cause__.msg == "x must be positive"


def test_raise_exception_without_class(loop):
    f = Function(graph("""\
graph():
  %m : str = prim::Constant[value="AssertionError: nope"]()
   = prim::RaiseException(%m)
  return ()
"""), loop=loop)
    with pytest.raises(JITException) as info:
        f()
    assert (info.value.msg, info.value.python_class) == ("AssertionError: nope", None)
    assert str(info.value) == ("RuntimeError: AssertionError: nope\n"
                               "  raised by:  = prim::RaiseException(%m)")


def test_state_is_unusable_after_an_error(loop):
    state = InterpreterState(Code(graph("""\
graph(%x : int, %y : int):
  %q : int = aten::floordiv(%x, %y) # m.py:1:2
  return (%q)
"""), optimize=False), loop=loop)
    with pytest.raises(InterpreterError, match="^ZeroDivisionError"):
        state.run([1, 0])
    stack = [4, 2]
    with pytest.raises(InterpreterError) as info:
        state.run(stack)
    assert str(info.value) == ("this InterpreterState is unusable: its run failed at "
                               "instruction 1 (%q : int = aten::floordiv(%x, %y) # m.py:1:2); "
                               "make a new one to run again")
    assert info.value.__cause__ is None
    assert stack == [4, 2]
    # The Code itself is fine.
    stack = [4, 2]
    InterpreterState(state.code, loop=loop).run(stack)
    assert stack == [2]


def test_error_leaves_the_callers_stack_without_the_inputs(loop):
    """LOAD took the inputs before the failure; nothing was pushed back."""
    state = InterpreterState(Code(graph("""\
graph(%x : Any):
  %y : int = tests::boom(%x)
  return (%y)
""")), loop=loop)
    stack = ["below", 1]
    with pytest.raises(InterpreterError):
        state.run(stack)
    assert stack == ["below"]


FAILING = """\
graph(%a : Any, %b : Any):
  %t : (Any, Any) = prim::TupleConstruct(%a, %b)
  %one : int = prim::Constant[value=1]()
  %y : int = tests::boom(%b, %t, %one, %a)
  return (%y, %a)
"""


def test_failing_graph_leaks_nothing(loop):
    """The error path releases every register and stack value: a failing graph run
    many times keeps memory flat and the inputs' reference counts where they were."""
    f = Function(graph(FAILING), loop=loop)
    a, b = 10**30, object()
    ra, rb = sys.getrefcount(a), sys.getrefcount(b)

    def many(n):
        for _ in range(n):
            try:
                f(a, b)
            except InterpreterError:
                pass

    # The pure loop is ~2x slower: fewer runs still show a leak of one per run.
    n = 100_000 if loop.__name__ == "pyjit._core" else 20_000
    many(1000)
    gc.collect()
    blocks = sys.getallocatedblocks()
    many(n)
    gc.collect()
    assert sys.getallocatedblocks() - blocks < 1000
    assert (sys.getrefcount(a), sys.getrefcount(b)) == (ra, rb)
    # tracemalloc also sees raw allocations (not only Python objects) but makes
    # every allocation slow: fewer runs, a leak of 8 bytes a run would still show.
    grown = traced_growth(many, 2000, warmup=100)
    assert grown < 16 * 1024, grown


def test_failing_state_releases_its_values(loop):
    class Obj:
        pass

    state = InterpreterState(Code(graph(FAILING)), loop=loop)
    a, b = Obj(), Obj()
    refs = weakref.ref(a), weakref.ref(b)
    stack = [a, b]
    del a, b
    with pytest.raises(InterpreterError) as info:
        state.run(stack)
    del info  # the traceback holds frames; the values must not be among their locals
    gc.collect()
    assert [r() for r in refs] == [None, None]


# -- memory ------------------------------------------------------------------------

MB8 = 1 << 20  # float64 elements: 8 MB


def _chain(n: int) -> str:
    lines = ["graph(%x0 : Tensor):"]
    lines += [f"  %x{i + 1} : Tensor = tests::neg(%x{i})" for i in range(n)]
    lines.append(f"  return (%x{n})")
    return "\n".join(lines) + "\n"


def test_chain_of_big_arrays_frees_each_intermediate(loop):
    """50 ops over 8 MB arrays, each intermediate used once: moved into the call
    that uses it, so at most the argument and the result of one call are alive."""
    f = Function(graph(_chain(50)), loop=loop)
    x = np.ones(MB8)
    size = x.nbytes
    gc.collect()
    tracemalloc.start()
    try:
        out = f(x)
        current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert np.array_equal(out, x)  # 50 negations
    assert current < 1.5 * size   # the output is all that is left
    assert peak < 3 * size, peak / size


def test_chain_would_keep_every_array_without_moves(loop):
    """The control for the test above: with copies instead of moves (every value
    used once more at the end), all 50 intermediates are alive at once."""
    text = _chain(50).replace("  return (%x50)",
                              "  %all : Tensor[] = prim::ListConstruct("
                              + ", ".join(f"%x{i}" for i in range(1, 51))
                              + ")\n  return (%x50)")
    f = Function(graph(text), loop=loop)
    x = np.ones(MB8 // 16)  # 512 KB each: enough to see
    gc.collect()
    tracemalloc.start()
    try:
        f(x)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak > 45 * x.nbytes


class Watched:
    """A value whose death the graph itself can observe (tests::is_dead)."""


IF_LAST_USE = """\
graph(%x : Any, %c : bool, %k : int):
  %alive : bool = tests::is_dead(%k)
  %r : int = prim::If(%c)
    block0():
      %n : int = tests::one(%x)
      -> (%n)
    block1():
      -> (%k)
  %dead : bool = tests::is_dead(%r)
  return (%alive, %dead, %r)
"""


@pytest.mark.parametrize("cond, r", [(True, 1), (False, 7)])
def test_value_last_used_in_one_branch_is_freed_after_the_if(loop, cond, r):
    """%x's last use is inside the then branch: the Drop right after the If frees
    it whether or not that branch ran, before the node that follows the If."""
    code = Code(graph(IF_LAST_USE))
    assert "   = prim::Drop(%x, %k)\n  %dead" in str(code.graph)
    x = Watched()
    _watched[:] = [weakref.ref(x)]
    stack = [x, cond, 7]
    del x
    try:
        InterpreterState(code, loop=loop).run(stack)
    finally:
        _watched.clear()
    assert stack == [False, True, r]


def test_loop_carried_value_is_freed_at_its_last_use_in_the_body(loop):
    """A carried value dies at its last use in the body (a move), in the first
    iteration, not when the loop ends."""
    g = graph("""\
graph(%n : int, %x : Any):
  %t : bool = prim::Constant[value=1]()
  %f : bool = prim::Constant[value=0]()
  %r : Any, %seen : bool = prim::Loop(%n, %t, %x, %f)
    block0(%i : int, %a : Any, %prev : bool):
      %one : int = tests::one(%a)
      %b : Any = prim::TupleConstruct(%one)
      %d : bool = tests::is_dead(%b)
      -> (%t, %b, %d)
  return (%seen)
""")
    x = Watched()
    _watched[:] = [weakref.ref(x)]
    stack = [1, x]
    del x
    try:
        InterpreterState(Code(g), loop=loop).run(stack)
    finally:
        _watched.clear()
    assert stack == [True]


# -- threads ------------------------------------------------------------------------

COUNT = """\
graph(%n : int, %k : int):
  %t : bool = prim::Constant[value=1]()
  %zero : int = prim::Constant[value=0]()
  %s : int = prim::Loop(%n, %t, %zero)
    block0(%i : int, %acc : int):
      %p : int = aten::mul(%i, %k)
      %acc2 : int = aten::add(%acc, %p)
      -> (%t, %acc2)
  return (%s)
"""


def test_one_code_run_by_eight_threads(loop):
    code = Code(graph(COUNT))   # its Program is made by the threads, at once
    f = Function(graph(COUNT), loop=loop)
    barrier = threading.Barrier(8)
    results: dict = {}
    errors: list = []

    def work(k):
        try:
            barrier.wait()
            got = []
            for n in range(0, 120, 7):
                stack = [n, k]
                InterpreterState(code, loop=loop).run(stack)
                got.append((stack[0], f(n, k)))
            results[k] = got
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    try:
        threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(old)
    assert errors == []
    for k in range(8):
        expect = [k * n * (n - 1) // 2 for n in range(0, 120, 7)]
        assert results[k] == list(zip(expect, expect))


# -- signals ------------------------------------------------------------------------

class _FastInts(Registry):
    """Integer operators that are C functions: a loop calling only these runs no
    Python bytecode, so only the run loop's own signal checks can stop it."""

    def __init__(self):
        super().__init__()
        for kind, fn in [("aten::add", operator.add), ("aten::lt", operator.lt),
                         ("aten::__and__", operator.and_)]:
            self.register(kind, fn)


# Not quite endless: should the loop ignore signals, the run ends by itself
# (after several seconds) and the test fails rather than hangs.
ENDLESS = """\
graph(%x : int):
  %t : bool = prim::Constant[value=1]()
  %one : int = prim::Constant[value=1]()
  %max : int = prim::Constant[value=10000000]()
  %r : int = prim::Loop(%max, %t, %x)
    block0(%i : int, %a : int):
      %b : int = aten::add(%a, %one)
      -> (%t, %b)
  return (%r)
"""


@needs_setitimer
def test_signal_stops_an_endless_graph_loop(loop):
    code = Code(graph(ENDLESS), registry=_FastInts())
    state = InterpreterState(code, loop=loop)
    start = time.monotonic()
    with alarm(0.1, KeyboardInterrupt), pytest.raises(KeyboardInterrupt):
        state.run([0])
    assert time.monotonic() - start < 1.0
    with pytest.raises(InterpreterError, match="is unusable: its run failed at instruction"):
        state.run([0])


@needs_setitimer
def test_exception_from_a_signal_handler_is_located(loop):
    """A handler raising an ordinary exception: it surfaces like an operator's,
    chained, naming where the graph was."""
    code = Code(graph(ENDLESS), registry=_FastInts())
    with alarm(0.1, lambda: Boom("alarm")), \
            pytest.raises(InterpreterError, match=r"^Boom: alarm\n  while running: ") as info:
        InterpreterState(code, loop=loop).run([0])
    assert type(info.value.__cause__) is Boom


# -- the command line -----------------------------------------------------------------

@pytest.fixture
def cli_loop(loop, monkeypatch):
    """Make ``loop`` the backend the CLI's Function runs on."""
    import pyjit.interpreter
    monkeypatch.setattr(pyjit.interpreter, "_default_loop", loop)
    return loop


def test_cli_run_fib(cli_loop, capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    assert cli.main(["run", "examples/fib.ir", "30"]) == 0
    out, err = capsys.readouterr()
    assert (out, err) == ("832040\n", "")


def test_cli_dump_fib(cli_loop, capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    assert cli.main(["dump", "-O0", "examples/fib.ir"]) == 0
    out, err = capsys.readouterr()
    with open(os.path.join(ROOT, "examples", "fib.ir"), encoding="utf-8") as f:
        assert out == str(Code(parse_ir(f.read()), optimize=False))
    assert err == ""
    assert out.endswith("""
 0  0 = prim::Load
 1  1 = prim::Constant[value=1]
 2  2 = prim::Constant[value=0]
 3  3 = prim::Constant[value=1]
 4  4 = prim::Constant[value=0]
 5  5 = aten::lt 4, 0
 6  6 = aten::__and__ move(5), 1
 7  7, 8, 9 = prim::Assign move(6), move(4), move(2), move(3)
 8   = prim::JumpZ -> 16
 9  10 = aten::add move(8), 9
10  11 = prim::Constant[value=1]
11  12 = aten::add move(7), move(11)
12  13 = aten::lt 12, 0
13  14 = aten::__and__ move(13), 1
14  7, 8, 9 = prim::Assign move(14), move(12), move(9), move(10)
15   = prim::JumpNZ -> 9
16   = prim::Drop move(1), move(0)
17   = prim::Drop move(7), move(9)
18   = prim::Store move(8)
""")


def test_cli_dump_fib_optimised(cli_loop, capsys, monkeypatch):
    monkeypatch.chdir(ROOT)
    assert cli.main(["dump", "-O1", "examples/fib.ir"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert out.endswith("""
constants: s1 = 0, s3 = 1, s5 = True
0  0 = prim::Load
1  s0 = UNBOX_I move(0)
2  s2, s4 = MOVE s1, s3
3  s6 = LOOP_ENTER s0, s5 -> 7
4  s7 = ADD_I s2, s4  # aten::add
5  s2, s4 = MOVE s4, s7
6  s6 = LOOP_BACK s6, s0, s5 -> 4
7  1 = BOX_I s2
8   = prim::Store move(1)
""")
    from pyjit.code import default_optimize
    assert cli.main(["dump", "examples/fib.ir"]) == 0
    assert (capsys.readouterr()[0] == out) == default_optimize()


def test_cli_run_reports_a_failing_graph(cli_loop, capsys, tmp_path):
    path = tmp_path / "div.ir"
    path.write_text("graph(%x : int, %y : int):\n"
                    "  %q : int = aten::floordiv(%x, %y) # div.py:1:4\n"
                    "  return (%q)\n", encoding="utf-8")
    assert cli.main(["run", str(path), "1", "0"]) == 1
    out, err = capsys.readouterr()
    assert (out, err) == ("", "pyjit: error: ZeroDivisionError: division by 0 (at div.py:1:4)\n")


@pytest.mark.parametrize("content, why", [
    (b"", "the file is empty"),                     # checked before np.load
    (b"PK\x03\x04junk", "File is not a zip file"),  # zipfile.BadZipFile
])
def test_cli_run_reports_an_unreadable_array(cli_loop, capsys, tmp_path, content, why):
    graph = tmp_path / "id.ir"
    graph.write_text("graph(%x : Tensor):\n  return (%x)\n", encoding="utf-8")
    arr = tmp_path / "x.npy"
    arr.write_bytes(content)
    assert cli.main(["run", str(graph), str(arr)]) == 1
    out, err = capsys.readouterr()
    assert (out, err) == ("", f"pyjit: error: cannot load array {arr}: {why}\n")


@pytest.mark.parametrize("arg", [
    "1" + "+1" * 100_000,   # ast.literal_eval: RecursionError
    "~" * 100_000 + "1",    # the parser's own stack: MemoryError
], ids=["deep-sum", "deep-invert"])
def test_cli_run_reports_a_too_deep_literal(cli_loop, capsys, tmp_path, arg):
    graph = tmp_path / "id.ir"
    graph.write_text("graph(%x : int):\n  return (%x)\n", encoding="utf-8")
    assert cli.main(["run", str(graph), arg]) == 1
    out, err = capsys.readouterr()
    assert (out, err) == ("", f"pyjit: error: argument {arg!r} is not a Python literal "
                              f"or a .npy path\n")


# -- the public names -------------------------------------------------------------

def test_public_api():
    """The names the issue gives the API."""
    assert pyjit.Code is Code
    assert pyjit.InterpreterState is InterpreterState
    assert pyjit.Function is Function
    assert pyjit.register_operator is register_operator


def test_cli_run_refuses_an_npz_archive_named_npy(tmp_path, capsys):
    import numpy as np
    from pyjit.cli import main
    path = tmp_path / "two.npy"
    with open(path, "wb") as f:
        np.savez(f, a=np.zeros(2), b=np.ones(2))
    assert main(["run", "examples/fib.ir", str(path)]) == 1
    err = capsys.readouterr().err
    assert err == f"pyjit: error: {path} holds several arrays (an .npz archive), not one array\n"


@pytest.mark.parametrize("command", ["dump", "run"])
@pytest.mark.parametrize("content, error", [
    ("graph(%x : int" + "[]" * 400 + "):\n  return (%x)\n",
     "{path}:1:214: type nested too deeply"),
    ("graph():\n  %c : int = prim::Constant[value=nan]() # f.py:1:2\n  return (%c)\n",
     "{path}:2:34: a constant of type int cannot hold nan"),
    ("graph():\n  %c : Tensor = prim::Constant[value=<Tensor>]() # f.py:1:2\n  return (%c)\n",
     "bad constant: tensor literal '<Tensor>' carries no values at f.py:1:2"),
    ("graph(%s : str):\n  %d : Dict(str, str) = prim::DictConstruct(%s)\n  return (%d)\n",
     "prim::DictConstruct takes key/value pairs, got 1 inputs"),
    ("graph(%x : int):\n  %b : bool = prim::isinstance[types=[1]](%x)\n  return (%b)\n",
     "prim::isinstance cannot test for type '1'"),
    ("graph(%x : int):\n  %y : int = prim::Load(%x)\n  return (%y)\n",
     "{path}:2:13: prim::Load cannot be written in a graph: the code generator's passes "
     "insert it (see pyjit.passes)"),
    (b"graph():\n  %c : str = prim::Constant[value=\"\xe9\"]()\n  return (%c)\n",
     "cannot read {path}: not UTF-8 text (byte 0xe9 at offset 44)"),
], ids=["deep-type", "int-nan", "tensor", "dict-construct", "isinstance", "load", "latin-1"])
def test_cli_reports_bad_graphs_on_one_line(cli_loop, capsys, tmp_path, command, content, error):
    path = tmp_path / "bad.ir"
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    assert cli.main([command, str(path)]) == 1
    out, err = capsys.readouterr()
    assert (out, err) == ("", f"pyjit: error: {error.format(path=path)}\n")


def test_cli_reads_a_file_with_a_byte_order_mark(cli_loop, capsys, tmp_path):
    path = tmp_path / "bom.ir"
    path.write_bytes("\ufeffgraph(%x : int):\n  return (%x)\n".encode("utf-8"))
    assert cli.main(["run", str(path), "4"]) == 0
    assert capsys.readouterr() == ("4\n", "")


def test_cli_dump_of_mutated_graphs_is_one_line_or_a_listing(capsys, tmp_path):
    """Bad input never escapes `pyjit dump` as a traceback: torch's own texts, cut,
    spliced and salted with tokens that broke it before (deep suffixes, bad
    constants, BOMs, code-generator nodes), each give a listing or one error line."""
    import random
    rng = random.Random(14)
    files = sorted(glob.glob(os.path.join(ROOT, "tests", "fixtures", "corpus", "*.ir")))
    texts = [open(f, encoding="utf-8").read() for f in files]
    salt = ["[]" * 150, "?", "%", "(", ")", "[", "]", "=", ",", "nan", "inf",
            "99999999999999999999", '"', "<Tensor>", "prim::Constant", "aten::wait", "->",
            "\n", "prim::Load", "prim::DictConstruct", "prim::isinstance[types=[1]]", "value=",
            "# f.py:1:2  ", "\ufeff", "é"]
    path = tmp_path / "m.ir"
    deadline = time.monotonic() + 2.0  # dump builds, never runs: one loop is enough
    count = 0
    while time.monotonic() < deadline:
        t = rng.choice(texts)
        for _ in range(rng.randint(1, 3)):
            p, q = rng.randrange(len(t) + 1), rng.randrange(len(t) + 1)
            t = rng.choice([t[:p] + rng.choice(salt) + t[p:], t[:p] + t[p + rng.randint(1, 9):],
                            t[:p] + t[q:q + rng.randint(1, 30)] + t[p:]])
        path.write_text(t, encoding="utf-8")
        status = cli.main(["dump", str(path)])
        out, err = capsys.readouterr()
        assert (status, err == "") == (0, True) or (status == 1 and out == "" and
                                                  err.count("\n") == 1), (t, err)
        count += 1
    assert count >= 20
