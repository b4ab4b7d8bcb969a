"""A fork running a long int loop does not starve the other threads (issue 14, item 1).

The fork runs the fib loop ``a, b = b, (a + b) % 1000003``: at ``O1`` its body is
scalar intrinsics (``ADD_I``, ``REM_I``, ``LOOP_BACK``), at ``O0`` calls of C
callables (``int_add``, ``int_remainder``, ``operator.lt``...).  Either way no
Python bytecode runs in the compiled loop, so only the loop itself can give the
GIL up.  While it runs, the main thread must

* keep a 10 ms heartbeat (``time.sleep(0.01)`` in a loop): at least 80% of the
  ``elapsed / 0.01`` beats run;
* get ``TimeoutError`` from ``Future.wait(timeout=0.2)`` within 0.3 s;
* get ``KeyboardInterrupt`` within a second of a SIGINT while it waits.

The figures are the issue's.  They are timing measurements on a shared machine,
so each is taken again once when the first try falls short (:func:`twice`); the
figures themselves are never loosened.  Iterations are sized per loop and level
(the pure loop is ~100x slower) so a run lasts half a second or so; the wait
and the signal tests run twice as long, so the fork is still running when the
main thread's wait ends.

Where the heartbeat figure cannot hold.  A thread that waits for the GIL asks
its holder to give it up only after ``sys.getswitchinterval()`` (5 ms); a holder
that runs Python (the pure loop; the compiled loop at ``O0``, which runs a
little Python every ``TICK`` back edges, as CPython's own loop would) hands the
GIL over then, so every 10 ms beat takes 15 ms: 67% at best, exactly what a
thread running the same loop as plain Python gets.  Only a loop that runs
without the GIL (the compiled loop's scalar tier) leaves the main thread all its
beats; those cases are marked ``xfail(strict=True)`` with the measured reason,
so they fail the suite the day they start to pass.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time

import pytest

from pyjit.code import Code
from pyjit.interpreter import InterpreterState
from pyjit.ir.parser import parse_ir

TIMEOUT = 60.0   # only a hang reaches it
BEAT = 0.01

FORKED_LOOP = """\
graph(%n : int):
  %f : Future[int] = prim::fork_0(%n)
  return (%f)
with prim::fork_0 = graph(%n : int):
  %t : bool = prim::Constant[value=1]()
  %a0 : int = prim::Constant[value=0]()
  %b0 : int = prim::Constant[value=1]()
  %m : int = prim::Constant[value=1000003]()
  %a : int, %b : int = prim::Loop(%n, %t, %a0, %b0)
    block0(%i : int, %x : int, %y : int):
      %s : int = aten::add(%x, %y)
      %r : int = aten::remainder(%s, %m)
      -> (%t, %y, %r)
  return (%a)
"""

#: Iterations at least, by (loop module, optimised) (the compiled loop at O1
#: runs the issue's 20M), and the fib value (mod 1000003) each count ends with,
#: computed by CPython: :func:`_iterations` makes a run last RUN_S on the
#: machine at hand (on a Zen 5, 40M of the compiled loop's took 0.2 s, and a
#: wait of 0.2 s saw the fork end), :func:`fib_mod` gives its value.
ITERATIONS = {("pyjit._core", True): 20_000_000, ("pyjit._core", False): 2_000_000,
              ("pyjit._pure", True): 100_000, ("pyjit._pure", False): 60_000}
RUN_S = 0.5
LONG = 2   # the wait and signal tests' runs, in _iterations
FIB = {20_000_000: 506612, 2_000_000: 999982, 100_000: 345, 60_000: 911800,
       40_000_000: 991919, 4_000_000: 999016, 200_000: 219151, 120_000: 605171}
M = 1000003


def fib_mod(n: int) -> int:
    """The loop's result after ``n`` iterations, F(n) mod M, by fast doubling:
    F(2k) = F(k) (2 F(k+1) - F(k)), F(2k+1) = F(k)**2 + F(k+1)**2."""
    def pair(k):
        if k == 0:
            return 0, 1
        a, b = pair(k >> 1)
        c, d = a * ((2 * b - a) % M) % M, (a * a + b * b) % M
        return (d, (c + d) % M) if k & 1 else (c, d)
    return pair(n)[0]


def _code() -> Code:
    return Code(parse_ir(FORKED_LOOP))   # at the level the `loop` fixture set


_sized = {}


def _iterations(loop, code: Code) -> int:
    """Iterations for a run of RUN_S or so of this loop at this level on this
    machine: ITERATIONS's count, timed once, scaled up (never down)."""
    key = loop.__name__, code.optimize
    if key not in _sized:
        base = ITERATIONS[key]
        start = time.monotonic()
        assert _start(loop, code, base).wait(TIMEOUT) == fib_mod(base)
        took = time.monotonic() - start
        _sized[key] = max(base, int(base * RUN_S / max(took, 1e-3)))
    return _sized[key]


def test_the_loops_result_is_fib_mod():
    assert all(fib_mod(n) == v for n, v in FIB.items())


def _start(loop, code: Code, n: int):
    """The future of a fork running the loop ``n`` times, on a worker thread."""
    stack = [n]
    InterpreterState(code, loop=loop).run(stack)
    return stack[0]


def _finish(fut, n: int) -> None:
    assert fut.wait(TIMEOUT) == fib_mod(n)


def twice(measure, good):
    """``measure()``, taken again once if ``good`` rejects the first result: a
    loaded machine can delay one thread for reasons of its own.  The second
    result stands, so a real starvation still fails."""
    first = measure()
    return first if good(first) else measure()


def _starves_by_design(request, loop, code: Code) -> None:
    if loop.__name__ == "pyjit._core" and code.optimize:
        return
    request.node.add_marker(pytest.mark.xfail(strict=True, reason=(
        "the loop holds the GIL and hands it over when a waiter asks, after the 5 ms "
        "switch interval, as CPython's own loop does: a 10 ms beat takes 15 ms "
        "(measured 52-67%, the same as a plain Python thread running this loop)")))


def test_the_main_thread_keeps_its_heartbeat_while_a_fork_loops(loop, request):
    code = _code()
    _starves_by_design(request, loop, code)
    n = _iterations(loop, code)

    def measure():
        fut = _start(loop, code, n)
        beats, start = 0, time.monotonic()
        while not fut.done():
            time.sleep(BEAT)
            beats += 1
        elapsed = time.monotonic() - start
        _finish(fut, n)
        return beats / (elapsed / BEAT), elapsed

    share, elapsed = twice(measure, lambda r: r[0] >= 0.8)
    assert elapsed > 10 * BEAT, "the run is too short to measure anything"
    assert share >= 0.8, f"{share:.0%} of the heartbeats in {elapsed:.2f} s"


def test_wait_with_a_timeout_returns_in_time_while_a_fork_loops(loop):
    code = _code()
    n = LONG * _iterations(loop, code)

    def measure():
        fut = _start(loop, code, n)
        time.sleep(0.02)   # the worker has the run going
        start = time.monotonic()
        with pytest.raises(TimeoutError, match="future not completed within the timeout"):
            fut.wait(timeout=0.2)
        latency = time.monotonic() - start
        running = not fut.done()
        _finish(fut, n)
        return latency, running

    latency, running = twice(measure, lambda r: r[0] < 0.3)
    assert running, "the fork ended before the timeout: nothing was measured"
    assert 0.2 <= latency < 0.3, latency


@pytest.mark.skipif(sys.platform == "win32", reason="os.kill(pid, SIGINT) ends the process")
def test_sigint_interrupts_the_main_thread_waiting_for_a_looping_fork(loop):
    code = _code()
    n = LONG * _iterations(loop, code)

    def measure():
        fut = _start(loop, code, n)
        sent = []

        def interrupt():   # Ctrl-C: a signal to the process, from another thread
            sent.append(time.monotonic())
            os.kill(os.getpid(), signal.SIGINT)

        timer = threading.Timer(0.05, interrupt)
        old = signal.signal(signal.SIGINT, signal.default_int_handler)
        try:
            timer.start()
            with pytest.raises(KeyboardInterrupt):
                fut.wait(TIMEOUT)
            latency = time.monotonic() - sent[0]
            running = not fut.done()
        finally:
            timer.cancel()
            signal.signal(signal.SIGINT, old)
            _finish(fut, n)
        return latency, running

    latency, running = twice(measure, lambda r: r[0] < 1.0)
    assert running, "the fork ended before the signal: nothing was measured"
    assert latency < 1.0, latency
