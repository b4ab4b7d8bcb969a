"""Asynchronous execution: Future, the work queue, fork/wait, suspend and resume.

Graph-level tests are written as IR text and run on both loops (the ``loop``
fixture).  Nothing here may hang CI: the main thread only ever waits with a
timeout (``Future.wait(timeout)``, ``Thread.join(timeout)``), so a deadlock fails
a test instead of blocking the run.  The operators the graphs need are
registered in the default registry under ``async_tests::``, except where a test
shows a private Registry.
"""

from __future__ import annotations

import concurrent.futures
import contextvars
import gc
import operator
import os
import sys
import threading
import time
import weakref

import numpy as np
import pytest

import pyjit
from pyjit import workqueue
from pyjit.code import Code
from pyjit.errors import InterpreterError, JITException
from pyjit.futures import Future
from pyjit.interpreter import Function, InterpreterState
from pyjit.ir.parser import parse_ir
from pyjit.code import ForkSite
from pyjit.interpreter import Fork, program_of
from pyjit.registry import Registry, register_operator
from pyjit.workqueue import WorkQueue

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TIMEOUT = 10.0  # seconds; far more than any test needs, so only a hang reaches it


# -- helpers --------------------------------------------------------------------------

def eventually(check, timeout=TIMEOUT):
    """Poll ``check()`` until true.  A worker may still be unwinding the frame that
    completed a future when the waiter wakes, so "released" is observed, not assumed."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.002)
    return True


def run_blocking(state, stack, timeout=TIMEOUT):
    """``state.run(stack)`` on a thread, so a deadlock fails instead of hanging."""
    box = {}

    def target():
        try:
            state.run(stack)
        except BaseException as exc:  # handed to the test thread
            box["error"] = exc

    t = threading.Thread(target=target, daemon=True)
    t.start()
    t.join(timeout)
    assert not t.is_alive(), "run() did not finish: deadlock"
    if "error" in box:
        raise box["error"]
    return stack


def later(value, delay=0.01):
    """A Future that another thread completes after ``delay`` seconds."""
    fut = Future()
    timer = threading.Timer(delay, fut.mark_completed, (value,))
    timer.daemon = True
    timer.start()
    return fut


class Obj:
    """A value whose lifetime the memory tests watch."""

    def __init__(self, i):
        self.i = i


class Recorder:
    """An executor that counts what it is given and runs it on a thread pool."""

    def __init__(self, workers=4):
        self.pool = concurrent.futures.ThreadPoolExecutor(workers)
        self.count = 0
        self._lock = threading.Lock()

    def submit(self, fn, *args):
        with self._lock:
            self.count += 1
        return self.pool.submit(fn, *args)


REQUEST = contextvars.ContextVar("request", default="unset")
# (id of the x it was made for, weakref) for every Obj made by async_tests::make.
# Keyed by x: a fork left running by an earlier test may still be making objects.
_made: list = []


def _make(i, x=None):
    o = Obj(i)
    _made.append((id(x), weakref.ref(o)))
    return o


def _made_for(box):
    """Weakrefs to the objects made for ``box[0]``."""
    return [r for owner, r in _made if owner == id(box[0])]


register_operator("async_tests::later", lambda x, delay: later(x, delay))
register_operator("async_tests::make", _make)
register_operator("async_tests::weigh", lambda o: o.i)
register_operator("async_tests::ctx_get", lambda: REQUEST.get())
register_operator("async_tests::ctx_set", lambda v: REQUEST.set(v) and None)
register_operator("async_tests::thread", lambda: threading.current_thread().name)


def code_of(text, **kw):
    return Code(parse_ir(text), **kw)


# -- Future ---------------------------------------------------------------------------

def test_future_value_and_done():
    f = Future()
    assert not f.done() and repr(f) == "<pyjit.Future pending>"
    with pytest.raises(RuntimeError, match="^future is not completed yet$"):
        f.value()
    f.mark_completed(5)
    assert f.done() and f.value() == 5 and f.wait() == 5 and f.error() is None
    assert repr(f) == "<pyjit.Future done: 5>"
    with pytest.raises(RuntimeError, match="^this future is already completed$"):
        f.mark_completed(6)
    with pytest.raises(RuntimeError, match="^this future is already completed$"):
        f.set_error(ValueError("late"))
    assert f.value() == 5


def test_future_error():
    f = Future()
    err = ValueError("bad")
    f.set_error(err)
    assert f.done() and f.error() is err and f.join() is True
    assert repr(f) == "<pyjit.Future failed: ValueError('bad')>"
    for call in (f.value, f.wait):
        with pytest.raises(ValueError) as info:
            call()
        assert info.value is err
    with pytest.raises(TypeError, match="^set_error takes an exception, not str$"):
        Future().set_error("bad")


def test_future_error_traceback_does_not_grow():
    """Every raise starts from the traceback the error had when it was set."""
    f = Future()
    try:
        raise KeyError("k")
    except KeyError as exc:
        f.set_error(exc)

    def depth():
        try:
            f.value()
        except KeyError as exc:
            n, tb = 0, exc.__traceback__
            while tb is not None:
                n, tb = n + 1, tb.tb_next
            return n

    assert {depth() for _ in range(50)} == {depth()}


def test_future_wait_timeout_and_join():
    f = Future()
    assert f.join(0.01) is False
    with pytest.raises(TimeoutError, match="^future not completed within the timeout$"):
        f.wait(0.01)
    threading.Timer(0.02, f.mark_completed, ("x",)).start()
    assert f.wait(TIMEOUT) == "x"


def test_future_many_waiters():
    f = Future()
    got = []

    def waiter():
        got.append(f.wait(TIMEOUT))

    threads = [threading.Thread(target=waiter) for _ in range(8)]
    for t in threads:
        t.start()
    f.mark_completed(42)
    for t in threads:
        t.join(TIMEOUT)
    assert got == [42] * 8


def test_callback_runs_at_once_when_done_and_once_otherwise():
    calls = []
    f = Future()
    f.add_callback(lambda fut: calls.append(("first", fut.value())))
    assert calls == []
    f.mark_completed(1)
    assert calls == [("first", 1)]
    f.add_callback(lambda fut: calls.append(("late", fut.value())))
    assert calls == [("first", 1), ("late", 1)]


def test_raising_callback_does_not_break_the_others(monkeypatch):
    reported = []
    monkeypatch.setattr(sys, "unraisablehook", reported.append)
    calls = []
    f = Future()

    def bad(fut):
        raise ZeroDivisionError("in callback")

    f.add_callback(lambda fut: calls.append(1))
    f.add_callback(bad)
    f.add_callback(lambda fut: calls.append(3))
    f.mark_completed(None)
    assert calls == [1, 3]
    (hook,) = reported
    assert (hook.exc_type, str(hook.exc_value), hook.err_msg, hook.object) == (
        ZeroDivisionError, "in callback", "Exception ignored in pyjit.Future callback", bad)
    f.add_callback(bad)  # also when the future is already done
    assert len(reported) == 2 and calls == [1, 3]


def test_callback_added_while_completing_runs_exactly_once():
    """add_callback racing mark_completed: never lost, never twice."""
    counts = [0] * 300
    futures = [Future() for _ in counts]
    start = threading.Barrier(2)

    def add():
        start.wait()
        for i, f in enumerate(futures):
            f.add_callback(lambda fut, i=i: counts.__setitem__(i, counts[i] + 1))

    def complete():
        start.wait()
        for f in futures:
            f.mark_completed(0)

    threads = [threading.Thread(target=add), threading.Thread(target=complete)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(TIMEOUT)
    assert counts == [1] * 300


# -- the work queue ---------------------------------------------------------------------

def test_work_queue_runs_tasks_in_order_on_its_threads():
    q = WorkQueue(1, name="wq-order")
    out, done = [], Future()
    for i in range(5):
        q.submit(out.append, i)
    q.submit(lambda: done.mark_completed(threading.current_thread().name))
    assert done.wait(TIMEOUT) == "wq-order-1"
    assert out == [0, 1, 2, 3, 4]
    assert q.workers == 1 and q.stats()["threads"] == 1
    q.shutdown()
    with pytest.raises(RuntimeError, match="^cannot submit to a WorkQueue that was shut down$"):
        q.submit(print)
    assert eventually(lambda: q.stats()["threads"] == 0)


def test_work_queue_reports_a_failing_task_and_goes_on(monkeypatch):
    reported = []
    monkeypatch.setattr(sys, "unraisablehook", reported.append)
    q = WorkQueue(1)
    done = Future()

    def bad():
        raise KeyError("task")

    q.submit(bad)
    q.submit(done.mark_completed, "after")
    assert done.wait(TIMEOUT) == "after"
    (hook,) = reported
    assert (hook.exc_type, hook.err_msg, hook.object) == (
        KeyError, "Exception ignored in a pyjit WorkQueue task", bad)
    q.shutdown()


def test_work_queue_checks_its_size():
    with pytest.raises(ValueError, match="^workers must be at least 1, got 0$"):
        WorkQueue(0)
    with pytest.raises(TypeError, match="^workers must be an int, not float$"):
        WorkQueue(2.0)
    with pytest.raises(TypeError, match="^workers must be an int, not bool$"):
        workqueue.set_default_workers(True)


def test_default_queue_size_is_configurable():
    before = workqueue.default_workers()
    try:
        workqueue.set_default_workers(3)
        assert workqueue.default_workers() == 3 and workqueue.default_queue().workers == 3
    finally:
        workqueue.set_default_workers(before)
    assert workqueue.default_queue().workers == before


def test_a_blocked_worker_lets_the_queue_start_another():
    """One worker blocks on a future that only a task queued behind it completes:
    the queue runs that task on a second thread instead of deadlocking."""
    q = WorkQueue(1)
    gate, result = Future(), Future()
    q.submit(lambda: result.mark_completed(("waited", gate.wait(TIMEOUT))))
    q.submit(gate.mark_completed, "opened")
    assert result.wait(TIMEOUT) == ("waited", "opened")
    # Back to one thread once the queue is idle again.
    assert eventually(lambda: q.stats() == {"workers": 1, "threads": 1, "queued": 0,
                                            "blocked": 0})
    q.shutdown()


def test_resize_starts_threads_for_queued_work_and_trims_idle_ones():
    q = WorkQueue(1)
    hold, started = threading.Event(), []
    for i in range(3):
        q.submit(lambda i=i: (started.append(i), hold.wait(TIMEOUT)))
    assert eventually(lambda: started == [0])
    q.resize(3)
    assert eventually(lambda: sorted(started) == [0, 1, 2])
    hold.set()
    q.resize(1)
    assert eventually(lambda: q.stats()["threads"] == 1)
    q.shutdown()


# -- fork and wait ------------------------------------------------------------------------

FORK = """\
graph(%x : int):
  %f : Future[int] = prim::fork_0(%x) # main.py:2:6
  %y : int = aten::wait(%f) # main.py:3:6
  %z : int = aten::mul(%y, %x)
  return (%z)
with prim::fork_0 = graph(%a : int):
  %one : int = prim::Constant[value=1]()
  %b : int = aten::add(%a, %one)
  return (%b)
"""


def test_fork_and_wait(loop):
    code = code_of(FORK)
    assert run_blocking(InterpreterState(code, loop=loop), [6]) == [42]
    assert InterpreterState(code, loop=loop).run_async([6]).wait(TIMEOUT) == 42
    assert Function(parse_ir(FORK), loop=loop)(6) == 42


def test_the_subgraph_is_compiled_once_per_code(loop, monkeypatch):
    code = code_of(FORK)
    (sub,) = code.subcodes()
    assert isinstance(sub, Code) and (sub.n_inputs, sub.n_outputs) == (1, 1)
    (site,) = [cb for cb in code.callbacks if isinstance(cb, ForkSite)]
    assert site.code is sub
    # The runtime links the site to a Fork when it builds the loop's Program.
    program_of(code, loop)
    fork_op = Fork(sub)
    assert fork_op.code is sub and repr(fork_op) == f"<prim::fork of {sub!r}>"
    built = []
    init = Code.__init__
    monkeypatch.setattr(Code, "__init__", lambda self, *a, **k: (built.append(1),
                                                                  init(self, *a, **k))[1])
    for x in range(20):
        assert InterpreterState(code, loop=loop).run_async([x]).wait(TIMEOUT) == (x + 1) * x
    assert built == [] and code.subcodes() == (sub,)


def test_code_without_forks_has_no_subcodes():
    assert code_of("graph(%x : int):\n  return (%x)\n").subcodes() == ()


def test_a_suspended_run_keeps_its_pc_at_the_wait(loop):
    """The seed's Suspend: pc stays at the WAIT, the moved future stays in its
    register, and the run goes on when the future is completed."""
    fut = Future()
    register_operator("async_tests::given", lambda: fut)
    code = code_of("""\
graph(%x : int):
  %f : Future[int] = async_tests::given()
  %y : int = aten::wait(%f)
  %z : int = aten::add(%y, %x)
  return (%z)
""")
    state = InterpreterState(code, loop=loop)
    stack = [1]
    out = state.run_async(stack)
    assert not out.done() and stack == []
    assert code.instruction(state.pc) == "2 = aten::wait move(1)"
    assert fut in state._frame.registers()
    fut.mark_completed(41)
    assert out.wait(TIMEOUT) == 42
    assert state.pc == len(code)


def test_many_forks_waited_in_reverse_order(loop):
    n = 12
    lines = ["graph(%x : int):"]
    for i in range(n):
        lines.append(f"  %k{i} : int = prim::Constant[value={i}]()")
        lines.append(f"  %f{i} : Future[int] = prim::fork_{i}(%x, %k{i})")
    for i in reversed(range(n)):
        lines.append(f"  %w{i} : int = aten::wait(%f{i})")
    lines.append("  %t : (" + ", ".join(["int"] * n) + ") = prim::TupleConstruct("
                 + ", ".join(f"%w{i}" for i in range(n)) + ")")
    lines.append("  return (%t)")
    for i in range(n):  # torch prints one section per fork node
        lines.append(f"""\
with prim::fork_{i} = graph(%a : int, %k : int):
  %d : float = prim::Constant[value=0.001]()
  %l : Future[int] = async_tests::later(%k, %d)
  %v : int = aten::wait(%l)
  %m : int = aten::mul(%a, %v)
  return (%m)""")
    code = code_of("\n".join(lines) + "\n")
    assert InterpreterState(code, loop=loop).run_async([3]).wait(TIMEOUT) == tuple(
        3 * i for i in range(n))
    assert run_blocking(InterpreterState(code, loop=loop), [2]) == [tuple(2 * i for i in range(n))]


def test_wait_on_a_future_completed_by_another_thread(loop):
    """A Python operator, on a private registry, returns a Future that an I/O
    thread completes; the graph suspends and resumes on the given executor."""
    reg = Registry()
    threads = []

    def fetch(x):
        fut = Future()

        def io():
            time.sleep(0.02)
            threads.append(threading.current_thread().name)
            fut.mark_completed(x * 10)

        threading.Thread(target=io, name="io-thread").start()
        return fut

    reg.register("io::fetch", fetch, types=["int"])
    reg.register("aten::add", operator.add, types=["int", "int"])
    reg.register("io::thread", lambda: threading.current_thread().name)
    code = code_of("""\
graph(%x : int):
  %f : Future[int] = io::fetch(%x)
  %y : int = aten::wait(%f)
  %z : int = aten::add(%y, %x)
  %t : str = io::thread()
  return (%z, %t)
""", registry=reg)
    ex = WorkQueue(1, name="resumer")
    out = InterpreterState(code, loop=loop, executor=ex).run_async([4])
    assert out.wait(TIMEOUT) == (44, "resumer-1") and threads == ["io-thread"]
    # A blocking run resumes inline, in the thread that waits.
    stack = run_blocking(InterpreterState(code, loop=loop, executor=ex), [5])
    assert stack[0] == 55 and stack[1].startswith("Thread-")
    ex.shutdown()


NESTED = """\
graph(%x : int):
  %f : Future[int] = prim::fork_0(%x)
  %y : int = aten::wait(%f)
  return (%y)
with prim::fork_0 = graph(%a : int):
  %two : int = prim::Constant[value=2]()
  %g : Future[int] = prim::fork_0(%a, %two)
  %h : Future[int] = prim::fork_1(%a)
  %u : int = aten::wait(%h)
  %v : int = aten::wait(%g)
  %w : int = aten::sub(%u, %v)
  return (%w)
with prim::fork_0 = graph(%p : int, %q : int):
  %d : float = prim::Constant[value=0.005]()
  %l : Future[int] = async_tests::later(%q, %d)
  %m : int = aten::wait(%l)
  %r : int = aten::mul(%p, %m)
  return (%r)
with prim::fork_1 = graph(%p : int):
  %r : int = aten::mul(%p, %p)
  return (%r)
"""


def test_nested_fork_inside_a_forked_subgraph(loop):
    code = code_of(NESTED)
    (mid,) = code.subcodes()
    assert [c.n_inputs for c in mid.subcodes()] == [2, 1]
    for x in (0, 3, 10):
        assert InterpreterState(code, loop=loop).run_async([x]).wait(TIMEOUT) == x * x - 2 * x
    assert run_blocking(InterpreterState(code, loop=loop), [7]) == [35]


def test_forks_inherit_the_executor(loop):
    ex = Recorder()
    out = InterpreterState(code_of(NESTED), loop=loop, executor=ex).run_async([3])
    assert out.wait(TIMEOUT) == 3
    # Three forks, plus the continuations of the runs that suspended (at least the
    # innermost fork waits on a timer, so its parents suspend too).
    assert ex.count >= 4
    ex.pool.shutdown()


def test_forks_run_on_the_forking_runs_loop(loop):
    """The fork's state uses the parent's loop module: seen from the operator's caller."""
    callers = []

    def who():
        frame = sys._getframe(1)
        callers.append(frame.f_globals.get("__name__") if frame.f_code.co_name ==
                       "_execute" else "compiled")
        return 0

    reg = Registry()
    reg.register("async_tests::who", who)
    code = code_of("""\
graph():
  %f : Future[int] = prim::fork_0()
  %y : int = aten::wait(%f)
  return (%y)
with prim::fork_0 = graph():
  %z : int = async_tests::who()
  return (%z)
""", registry=reg)
    assert InterpreterState(code, loop=loop).run_async([]).wait(TIMEOUT) == 0
    assert callers == (["pyjit._pure"] if loop.__name__ == "pyjit._pure" else ["compiled"])


# -- errors ---------------------------------------------------------------------------------

FAILING = """\
graph(%x : int):
  %f : Future[int] = prim::fork_0(%x) # main.py:2:6
  %y : int = aten::wait(%f) # main.py:3:6
  return (%y)
with prim::fork_0 = graph(%a : int):
  %z : int = prim::Constant[value=0]()
  %q : int = aten::floordiv(%a, %z) # sub.py:7:9
  return (%q)
"""

FAILING_TEXT = ("ZeroDivisionError: division by 0\n"
                "  at sub.py:7:9\n"
                "  while running: %q : int = aten::floordiv(%a, %z) # sub.py:7:9\n"
                "  while running: %y : int = aten::wait(%f) # main.py:3:6\n"
                "  at main.py:3:6")


def test_error_in_the_subgraph_names_both_sites(loop):
    code = code_of(FAILING)
    state = InterpreterState(code, loop=loop)
    with pytest.raises(InterpreterError) as info:
        run_blocking(state, [3])
    err = info.value
    assert str(err) == FAILING_TEXT
    assert err.node == "%y : int = aten::wait(%f) # main.py:3:6"
    inner = err.__cause__
    assert type(inner) is InterpreterError and inner.node == (
        "%q : int = aten::floordiv(%a, %z) # sub.py:7:9")
    assert type(inner.__cause__) is ZeroDivisionError
    # The waiting frame failed at the WAIT and let go of everything.
    assert code.instruction(state.pc) == "2 = aten::wait move(1)" and state._frame.failed
    assert state._frame.registers() == [None] * code.register_size


def test_error_in_the_subgraph_fails_the_async_run(loop):
    out = InterpreterState(code_of(FAILING), loop=loop).run_async([3])
    assert out.join(TIMEOUT)
    assert type(out.error()) is InterpreterError and str(out.error()) == FAILING_TEXT
    with pytest.raises(InterpreterError, match="^ZeroDivisionError: division by 0\n"):
        out.wait()


def test_raise_in_the_subgraph_is_a_jit_exception_at_the_wait(loop):
    code = code_of("""\
graph(%x : str):
  %f : Future[int] = prim::fork_0(%x) # main.py:2:6
  %y : int = aten::wait(%f) # main.py:3:6
  return (%y)
with prim::fork_0 = graph(%a : str):
  %c : str = prim::Constant[value="builtins.ValueError"]()
   = prim::RaiseException(%a, %c) # sub.py:7:9
  %q : int = prim::Constant[value=1]()
  return (%q)
""")
    with pytest.raises(JITException) as info:
        run_blocking(InterpreterState(code, loop=loop), ["bad input"])
    assert str(info.value) == ("builtins.ValueError: bad input\n"
                               "  at sub.py:7:9\n"
                               "  raised by:  = prim::RaiseException(%a, %c) # sub.py:7:9\n"
                               "  while running: %y : int = aten::wait(%f) # main.py:3:6\n"
                               "  at main.py:3:6")
    assert (info.value.msg, info.value.python_class) == ("bad input", "builtins.ValueError")


def test_an_unwaited_failing_fork_keeps_its_error_in_its_future(loop):
    code = code_of("""\
graph(%x : int):
  %f : Future[int] = prim::fork_0(%x)
  return (%f)
with prim::fork_0 = graph(%a : int):
  %z : int = prim::Constant[value=0]()
  %q : int = aten::floordiv(%a, %z) # sub.py:7:9
  return (%q)
""")
    (fut,) = run_blocking(InterpreterState(code, loop=loop), [1])
    assert fut.join(TIMEOUT)
    assert str(fut.error()) == ("ZeroDivisionError: division by 0\n  at sub.py:7:9\n"
                                "  while running: %q : int = aten::floordiv(%a, %z) # sub.py:7:9")


def test_a_failing_run_fails_its_future(loop):
    code = code_of("""\
graph(%x : int, %y : int):
  %q : int = aten::floordiv(%x, %y) # m.py:1:2
  return (%q)
""")
    state = InterpreterState(code, loop=loop)
    fut = state.get_future()
    with pytest.raises(InterpreterError) as info:
        state.run([1, 0])
    assert fut.error() is info.value
    # run_async never raises: the error is in the future.
    out = InterpreterState(code, loop=loop).run_async([1, 0])
    assert out.done() and str(out.error()).startswith("ZeroDivisionError: division by 0")


def test_a_refused_fork_is_located(loop):
    ex = WorkQueue(1)
    ex.shutdown()
    with pytest.raises(InterpreterError) as info:
        run_blocking(InterpreterState(code_of(FORK), loop=loop, executor=ex), [1])
    assert str(info.value) == ("RuntimeError: cannot submit to a WorkQueue that was shut down\n"
                               "  at main.py:2:6\n"
                               "  while running: %f : Future[int] = "
                               "prim::fork[Subgraph=<Graph>](%x) # main.py:2:6")


def test_a_refused_continuation_fails_the_run(loop):
    ex = WorkQueue(1)
    fut = Future()
    register_operator("async_tests::given2", lambda: fut)
    code = code_of("""\
graph():
  %f : Future[int] = async_tests::given2()
  %y : int = aten::wait(%f)
  return (%y)
""")
    out = InterpreterState(code, loop=loop, executor=ex).run_async([])
    ex.shutdown()
    fut.mark_completed(1)
    assert out.done() and type(out.error()) is RuntimeError
    assert str(out.error()) == "cannot submit to a WorkQueue that was shut down"


# -- the state's contract ----------------------------------------------------------------

def test_run_async_without_a_wait_completes_at_once(loop):
    one = code_of("graph(%x : int, %y : int):\n  %z : int = aten::add(%x, %y)\n  return (%z)\n")
    stack = [1, 2]
    out = InterpreterState(one, loop=loop).run_async(stack)
    assert out.done() and out.value() == 3 and stack == [3]
    two = code_of("graph(%x : int, %y : int):\n  return (%y, %x)\n")
    stack = [1, 2]
    out = InterpreterState(two, loop=loop).run_async(stack)
    assert out.done() and out.value() == (2, 1) and stack == [2, 1]
    none = code_of("graph(%x : int):\n  return ()\n")
    out = InterpreterState(none, loop=loop).run_async([1])
    assert out.done() and out.value() == ()


def test_run_pushes_each_output(loop):
    code = code_of("""\
graph(%x : int):
  %f : Future[int] = prim::fork_0(%x)
  %y : int = aten::wait(%f)
  %s : str = prim::Constant[value="s"]()
  return (%y, %s, %x)
with prim::fork_0 = graph(%a : int):
  %d : float = prim::Constant[value=0.005]()
  %l : Future[int] = async_tests::later(%a, %d)
  %v : int = aten::wait(%l)
  return (%v)
""")
    below = object()
    stack = run_blocking(InterpreterState(code, loop=loop), [below, 9])
    assert stack == [below, 9, "s", 9]
    state = InterpreterState(code, loop=loop)
    fut = state.get_future()
    assert run_blocking(state, [4]) == [4, "s", 4] and fut.value() == (4, "s", 4)


def test_get_future_is_one_future(loop):
    state = InterpreterState(code_of(FORK), loop=loop)
    f = state.get_future()
    assert state.get_future() is f and not f.done()
    assert state.run_async([2]) is f and f.wait(TIMEOUT) == 6
    assert state.run_async([2]) is f  # finished: the same, completed, future


def test_get_future_after_the_end_is_an_error(loop):
    state = InterpreterState(code_of(FORK), loop=loop)
    run_blocking(state, [1])
    with pytest.raises(RuntimeError, match=r"^the run already finished; call get_future\(\) "
                                           r"before the run ends$"):
        state.get_future()


def test_a_running_async_state_refuses_to_run_again(loop):
    fut = Future()
    register_operator("async_tests::given3", lambda: fut)
    state = InterpreterState(code_of("""\
graph():
  %f : Future[int] = async_tests::given3()
  %y : int = aten::wait(%f)
  return (%y)
"""), loop=loop)
    out = state.run_async([])
    msg = r"^this InterpreterState is running asynchronously; wait on get_future\(\) instead$"
    with pytest.raises(RuntimeError, match=msg):
        state.run([])
    with pytest.raises(RuntimeError, match=msg):
        state.run_async([])
    fut.mark_completed(8)
    assert out.wait(TIMEOUT) == 8


def test_executor_must_have_submit(loop):
    with pytest.raises(TypeError, match=r"^executor must have a submit\(fn, \*args\) method; "
                                        r"int has none$"):
        InterpreterState(code_of(FORK), loop=loop, executor=3)


# -- contextvars ------------------------------------------------------------------------------

CTX = """\
graph(%v : str):
  %before : str = async_tests::ctx_get()
  %n : NoneType = async_tests::ctx_set(%v)
  %one : int = prim::Constant[value=1]()
  %d : float = prim::Constant[value=0.25]()
  %l : Future[int] = async_tests::later(%one, %d)
  %w : int = aten::wait(%l)
  %after : str = async_tests::ctx_get()
  %t : str = async_tests::thread()
  %f : Future[str] = prim::fork_0()
  %forked : str = aten::wait(%f)
  %again : str = async_tests::ctx_get()
  return (%before, %after, %forked, %again, %t)
with prim::fork_0 = graph():
  %seen : str = async_tests::ctx_get()
  %x : str = prim::Constant[value="set by the fork"]()
  %n : NoneType = async_tests::ctx_set(%x)
  return (%seen)
"""


def test_context_variables_are_seen_after_resuming(loop):
    """A context variable set before the run, or by an operator before the wait, is
    seen after the run resumed on a worker thread; a fork sees its parent's value
    and its own changes stay its own (it runs in a copy, as an asyncio task)."""
    code = code_of(CTX)
    ex = WorkQueue(1, name="ctx-worker")

    def start():
        REQUEST.set("from the caller")
        state = InterpreterState(code, loop=loop, executor=ex)
        return state, state.run_async(["set by an operator"])

    # The future completes 0.25 s later, long after the run reached its wait even
    # on a loaded machine (10 ms was not always enough): the run resumes on the
    # worker.
    state, out = contextvars.copy_context().run(start)
    before, after, forked, again, thread = out.wait(TIMEOUT)
    assert (before, after, forked, again) == ("from the caller", "set by an operator",
                                              "set by an operator", "set by an operator")
    assert thread == "ctx-worker-1"
    assert REQUEST.get() == "unset"  # the test's own context was never touched
    ex.shutdown()


def test_a_blocking_run_sees_its_own_context(loop):
    code = code_of(CTX)

    def go():
        REQUEST.set("caller")
        stack = ["op"]
        InterpreterState(code, loop=loop).run(stack)
        return stack, REQUEST.get()

    box = []
    t = threading.Thread(target=lambda: box.append(contextvars.copy_context().run(go)))
    t.start()
    t.join(TIMEOUT)
    (stack, after_run), = box
    assert stack[:4] == ["caller", "op", "op", "op"]
    # The operator set it in the caller's context, as any call would.
    assert after_run == "op"


# -- memory: move flags and drops release every value exactly once -------------------------

LOOP_WAIT = """\
graph(%n : int, %x : Any):
  %true : bool = prim::Constant[value=1]()
  %zero : int = prim::Constant[value=0]()
  %acc : int = prim::Loop(%n, %true, %zero)
    block0(%i : int, %a : int):
      %f : Future[Any] = prim::fork_0(%i, %x)
      %o : Any = aten::wait(%f)
      %v : int = async_tests::weigh(%o)
      %a2 : int = aten::add(%a, %v)
      -> (%true, %a2)
  return (%acc)
with prim::fork_0 = graph(%i : int, %x : Any):
  %d : float = prim::Constant[value=0.001]()
  %l : Future[int] = async_tests::later(%i, %d)
  %j : int = aten::wait(%l)
  %o : Any = async_tests::make(%j, %x)
  return (%o)
"""

IF_WAIT = """\
graph(%c : bool, %x : Any):
  %one : int = prim::Constant[value=1]()
  %f : Future[Any] = prim::fork_0(%one, %x)
  %r : int = prim::If(%c)
    block0():
      %o : Any = aten::wait(%f)
      %v : int = async_tests::weigh(%o)
      -> (%v)
    block1():
      %z : int = prim::Constant[value=-1]()
      -> (%z)
  return (%r)
""" + LOOP_WAIT[LOOP_WAIT.index("with prim::fork_0"):]


def _refs(box):
    """References to ``box[0]``, counted the same way from anywhere."""
    return sys.getrefcount(box[0])


def _released(box, refs_before):
    gc.collect()
    return all(r() is None for r in _made_for(box)) and _refs(box) == refs_before


def test_wait_inside_a_loop_body_releases_every_value(loop):
    code = code_of(LOOP_WAIT)
    x = [Obj(-1)]
    refs = _refs(x)
    _made.clear()
    out = InterpreterState(code, loop=loop).run_async([8, x[0]])
    assert out.wait(TIMEOUT) == sum(range(8))
    assert len(_made_for(x)) == 8
    assert eventually(lambda: _released(x, refs))
    _made.clear()
    assert run_blocking(InterpreterState(code, loop=loop), [5, x[0]]) == [10]
    assert eventually(lambda: _released(x, refs))


@pytest.mark.parametrize("cond, expect", [(True, 1), (False, -1)])
def test_wait_inside_an_if_branch_releases_every_value(loop, cond, expect):
    """Taken or not, the branch leaves nothing behind: the WAIT moves the future in
    the then-branch; after the If a Drop releases it when the else-branch ran."""
    code = code_of(IF_WAIT)
    x = [Obj(-1)]
    refs = _refs(x)
    _made.clear()
    assert InterpreterState(code, loop=loop).run_async([cond, x[0]]).wait(TIMEOUT) == expect
    assert eventually(lambda: len(_made_for(x)) == 1)
    assert eventually(lambda: _released(x, refs))
    assert run_blocking(InterpreterState(code, loop=loop), [cond, x[0]]) == [expect]
    assert eventually(lambda: _released(x, refs))


def test_a_suspended_run_that_is_never_resumed_is_collected(loop):
    """A state waiting on a future nobody completes: the future's callback holds the
    state, the state's register holds the future.  Dropping both frees them."""
    fut = Future()
    register_operator("async_tests::given4", lambda: fut)
    code = code_of("""\
graph(%x : Any):
  %f : Future[int] = async_tests::given4()
  %y : int = aten::wait(%f)
  return (%x)
""")
    x = Obj(0)
    out = InterpreterState(code, loop=loop).run_async([x])
    watched = weakref.ref(x)
    fw = weakref.ref(fut)
    del x, fut
    register_operator("async_tests::given4", lambda: None)  # the registry forgets it too
    gc.collect()
    assert not out.done()
    assert watched() is None and fw() is None


# -- blocking inside the pool: no deadlock -------------------------------------------------

def test_blocking_run_inside_a_forked_subgraph_on_a_one_thread_queue(loop):
    """An operator in a forked subgraph runs another graph that forks, blocking its
    worker: the queue starts a second thread for the inner fork."""
    inner = code_of(FORK)

    def run_inner(x):
        stack = [x]
        InterpreterState(inner, loop=loop).run(stack)  # inherits the executor
        return stack[0]

    reg = Registry()
    reg.register("async_tests::run_inner", run_inner)
    code = code_of("""\
graph(%x : int):
  %f : Future[int] = prim::fork_0(%x)
  %y : int = aten::wait(%f)
  return (%y)
with prim::fork_0 = graph(%a : int):
  %b : int = async_tests::run_inner(%a)
  return (%b)
""", registry=reg)
    ex = WorkQueue(1)
    assert InterpreterState(code, loop=loop, executor=ex).run_async([6]).wait(TIMEOUT) == 42
    assert eventually(lambda: ex.stats()["threads"] == 1)
    ex.shutdown()


def test_operator_blocking_on_a_later_fork_on_a_one_thread_queue(loop):
    """The first fork blocks (a Python wait) on a future only the second fork
    completes, and one worker is configured: the queue compensates."""
    reg = Registry()
    reg.register("io::pending", lambda: Future())
    reg.register("io::block", lambda f: f.wait(TIMEOUT))
    reg.register("io::complete", lambda f, v: f.mark_completed(v) or v)
    reg.register("prim::TupleConstruct", lambda *a: a)
    code = code_of("""\
graph(%v : int):
  %p : Future[int] = io::pending()
  %a : Future[int] = prim::fork_0(%p)
  %b : Future[int] = prim::fork_1(%p, %v)
  %x : int = aten::wait(%a)
  %y : int = aten::wait(%b)
  %t : (int, int) = prim::TupleConstruct(%x, %y)
  return (%t)
with prim::fork_0 = graph(%p : Future[int]):
  %r : int = io::block(%p)
  return (%r)
with prim::fork_1 = graph(%p : Future[int], %v : int):
  %r : int = io::complete(%p, %v)
  return (%r)
""", registry=reg)
    ex = WorkQueue(1)
    assert InterpreterState(code, loop=loop, executor=ex).run_async([5]).wait(TIMEOUT) == (5, 5)
    ex.shutdown()


# -- the fixtures torch made ------------------------------------------------------------------

FIXTURES = {
    # name: (inputs, expected) with x = [0, 1, 2] as float32
    "script_fork_basic": ([], [1.0, 3.0, 7.0]),        # (x + 1) + x * x
    "script_fork_two": ([], [0.0, 1.0, 0.0]),          # 2x - x * x
    "script_fork_nested": ([], [0.0, 10.0, 30.0]),     # (2x + 3x) * (x + 1)
    "script_fork_list": ([4], [0.0, 6.0, 12.0]),       # sum of x * i, i < 4
}


@pytest.mark.parametrize("name", sorted(FIXTURES))
def test_torch_fork_fixtures_run(loop, name):
    with open(os.path.join(ROOT, "tests", "fixtures", "graphs", f"{name}.ir")) as f:
        code = Code(parse_ir(f.read()))
    extra, expect = FIXTURES[name]
    x = np.arange(3, dtype=np.float32)
    out = InterpreterState(code, loop=loop).run_async([x] + extra).wait(TIMEOUT)
    assert out.dtype == np.float32 and out.tolist() == expect
    (blocking,) = run_blocking(InterpreterState(code, loop=loop), [x] + extra)
    assert blocking.tolist() == expect


def test_torch_fixture_returning_a_future(loop):
    with open(os.path.join(ROOT, "tests/fixtures/graphs/script_fork_returns_future.ir")) as f:
        code = Code(parse_ir(f.read()))
    (fut,) = run_blocking(InterpreterState(code, loop=loop), [np.arange(3, dtype=np.float32)])
    assert isinstance(fut, pyjit.Future) and fut.wait(TIMEOUT).tolist() == [1.0, 2.0, 3.0]


def test_public_names():
    assert pyjit.Future is Future
    assert pyjit.workqueue.WorkQueue is WorkQueue


# -- stopping a run: executors that drop it, Future.cancel ---------------------------------

GATED = """\
graph(%x : Tensor):
  %f : Future[int] = async_tests::gate()
  %y : int = aten::wait(%f)
  return (%x, %y)
"""
_gates: dict = {}
register_operator("async_tests::gate", lambda: _gates["gate"])


def _gated_run(loop, executor=None):
    """A run suspended on a fresh gate, holding a tensor only it references.
    Returns (state, future, gate, weakref to the tensor)."""
    gate = _gates["gate"] = Future()
    x = np.arange(4.0)
    watched = weakref.ref(x)
    state = InterpreterState(code_of(GATED), loop=loop, executor=executor)
    out = state.run_async([x])
    del x
    assert not out.done() and watched() is not None
    return state, out, gate, watched


def _blocked_pool():
    """A one-thread pool whose thread waits for the returned event."""
    pool = concurrent.futures.ThreadPoolExecutor(1)
    release = threading.Event()
    pool.submit(release.wait, TIMEOUT)
    return pool, release


def test_an_executor_that_cancels_the_next_step_fails_the_run(loop):
    """shutdown(cancel_futures=True) drops the queued continuation: the run's future
    fails at once, saying so, and the run's values are released."""
    pool, release = _blocked_pool()
    state, out, gate, watched = _gated_run(loop, pool)
    gate.mark_completed(1)          # the continuation queues behind the blocker
    assert not out.done()
    pool.shutdown(wait=False, cancel_futures=True)
    assert out.join(TIMEOUT) and type(out.error()) is RuntimeError
    assert str(out.error()) == ("the executor cancelled the run's next step before it ran (was "
                                "it shut down with cancel_futures=True?); the run cannot go on")
    assert eventually(lambda: watched() is None)
    release.set()
    with pytest.raises(InterpreterError, match=r"^this InterpreterState is unusable: its run "
                                               r"was stopped at instruction 2 \(the executor "):
        state.run([])


def test_an_executor_that_cancels_a_forks_start_fails_the_fork(loop):
    pool, release = _blocked_pool()
    try:
        state = InterpreterState(code_of(FORK), loop=loop, executor=pool)
        out = state.run_async([2])  # the fork's start queues behind the blocker
        pool.shutdown(wait=False, cancel_futures=True)
        # The fork failed; the forking run could not resume on the shut pool.
        assert out.join(TIMEOUT)
        assert str(out.error()) == "cannot schedule new futures after shutdown"
    finally:
        release.set()


def test_cancel_stops_a_suspended_run_and_releases_its_values(loop):
    state, out, gate, watched = _gated_run(loop)
    assert out.cancel() is True
    assert watched() is None                      # released at once, no gc needed
    assert out.done() and out.cancelled()
    assert type(out.error()) is concurrent.futures.CancelledError
    assert out.cancel() is False                  # done already
    gate.mark_completed(1)                        # nothing resumes
    assert out.cancelled() and state.pc == 2
    with pytest.raises(InterpreterError, match=r"stopped at instruction 2 \(its future was "
                                               r"cancelled\)"):
        state.run([])


def test_cancel_stops_a_run_queued_to_resume(loop):
    pool, release = _blocked_pool()
    try:
        state, out, gate, watched = _gated_run(loop, pool)
        gate.mark_completed(1)
        assert out.cancel() and watched() is None
    finally:
        release.set()
    pool.shutdown(wait=True)                      # the queued step ran, and did nothing
    assert out.cancelled()


def test_cancel_during_a_step_drops_its_outputs(loop):
    box = []
    register_operator("async_tests::cancel_own", lambda x: box[0].cancel() and x)
    state = InterpreterState(code_of("""\
graph(%x : int):
  %y : int = async_tests::cancel_own(%x)
  return (%y)
"""), loop=loop)
    box.append(state.get_future())
    out = state.run_async([True])
    assert out.cancelled()


def test_a_cancelled_fork_fails_its_waiter(loop):
    pool, release = _blocked_pool()
    try:
        forked = []
        register_operator("async_tests::cancel_fut", lambda f: forked.append(f) or f.cancel())
        code = code_of("""\
graph(%x : int):
  %f : Future[int] = prim::fork_0(%x)
  %c : bool = async_tests::cancel_fut(%f)
  %y : int = aten::wait(%f) # w.py:3:4
  return (%y)
with prim::fork_0 = graph(%a : int):
  return (%a)
""")
        with pytest.raises(InterpreterError) as info:
            InterpreterState(code, loop=loop, executor=pool).run([1])
        assert str(info.value).splitlines()[0] == "CancelledError: the future was cancelled"
    finally:
        release.set()


def test_a_state_run_from_two_threads_says_so(loop):
    started, release = threading.Event(), threading.Event()
    register_operator("async_tests::hold", lambda x: (started.set(), release.wait(TIMEOUT))[1] and x)
    state = InterpreterState(code_of("""\
graph(%x : int):
  %y : int = async_tests::hold(%x)
  return (%y)
"""), loop=loop)
    t = threading.Thread(target=state.run, args=([5],), name="first-runner", daemon=True)
    t.start()
    try:
        assert started.wait(TIMEOUT)
        for start in (state.run, state.run_async):
            with pytest.raises(RuntimeError) as info:
                start([6])
            assert str(info.value) == (
                "this InterpreterState is already running in another thread (first-runner); "
                "a state is one run at a time: make one InterpreterState per concurrent run "
                "(they may share the Code)")
    finally:
        release.set()
        t.join(TIMEOUT)
    assert not state._frame.failed  # the refused caller did not disturb the run


def test_a_state_run_from_its_own_operator_says_so(loop):
    box = []
    register_operator("async_tests::rerun", lambda x: box[0].run([x]))
    state = InterpreterState(code_of("""\
graph(%x : int):
  %y : int = async_tests::rerun(%x)
  return (%y)
"""), loop=loop)
    box.append(state)
    with pytest.raises(InterpreterError) as info:
        state.run([1])
    assert str(info.value).splitlines()[0] == (
        "RuntimeError: this InterpreterState is already running: run() was called from one "
        "of its own operators")
