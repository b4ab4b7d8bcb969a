"""Stress: a thousand forks from one graph, a hundred concurrent runs, flat memory.

On both loops (the ``loop`` fixture).  Every forked subgraph waits on a future
that one shared "I/O thread" completes in batches, so runs really suspend and
resume (on the work queue) instead of finding their futures done.  The main
thread only waits with timeouts: a deadlock fails the test instead of hanging.
"""

from __future__ import annotations

import gc
import queue
import threading
import time
import tracemalloc

import pytest

from pyjit.code import Code
from pyjit.futures import Future
from pyjit.interpreter import InterpreterState
from pyjit.ir.parser import parse_ir
from pyjit.registry import register_operator
from pyjit.workqueue import WorkQueue

TIMEOUT = 30.0  # far more than any test needs: only a hang reaches it


class IOThread:
    """One daemon thread completing requested futures, a batch at a time."""

    def __init__(self) -> None:
        self._requests: queue.SimpleQueue = queue.SimpleQueue()
        threading.Thread(target=self._serve, name="stress-io", daemon=True).start()

    def request(self, value):
        fut = Future()
        self._requests.put((fut, value))
        return fut

    def _serve(self) -> None:
        while True:
            batch = [self._requests.get()]
            time.sleep(0.0005)  # let a batch build up, as a real device would
            while True:
                try:
                    batch.append(self._requests.get_nowait())
                except queue.Empty:
                    break
            for fut, value in batch:
                fut.mark_completed(value)
            batch = fut = value = None  # hold nothing while idle


_io = IOThread()
register_operator("stress::io", _io.request, types=["int"])

FAN = """\
graph(%x : int, %n : int):
  %true : bool = prim::Constant[value=1]()
  %zero : int = prim::Constant[value=0]()
  %futs : Future[int][] = prim::ListConstruct()
   = prim::Loop(%n, %true)
    block0(%i : int):
      %f : Future[int] = prim::fork_0(%x, %i)
      %l : Future[int][] = aten::append(%futs, %f)
      -> (%true)
  %k : int = aten::len(%futs)
  %total : int = prim::Loop(%k, %true, %zero)
    block0(%j : int, %acc : int):
      %g : Future[int] = aten::__getitem__(%futs, %j)
      %v : int = aten::wait(%g)
      %acc2 : int = aten::add(%acc, %v)
      -> (%true, %acc2)
  return (%total)
with prim::fork_0 = graph(%x : int, %i : int):
  %r : Future[int] = stress::io(%i)
  %w : int = aten::wait(%r)
  %m : int = aten::mul(%x, %w)
  return (%m)
"""

_code = Code(parse_ir(FAN))


def expected(x, n):
    return x * n * (n - 1) // 2


@pytest.mark.parametrize("workers", [1, 4])
def test_a_thousand_forks_from_one_graph(loop, workers):
    ex = WorkQueue(workers)
    out = InterpreterState(_code, loop=loop, executor=ex).run_async([3, 1000])
    assert out.wait(TIMEOUT) == expected(3, 1000)
    ex.shutdown()


def test_a_hundred_concurrent_runs(loop):
    """Fifty runs started with run_async from this thread, fifty blocking runs from
    ten threads, all at once on the default queue; every result right."""
    results = {}
    errors = []

    def blocking(xs):
        try:
            for x in xs:
                stack = [x, 20]
                InterpreterState(_code, loop=loop).run(stack)
                results[x] = stack
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=blocking, args=(range(100 + 5 * t, 105 + 5 * t),),
                                daemon=True) for t in range(10)]
    for t in threads:
        t.start()
    futures = {x: InterpreterState(_code, loop=loop).run_async([x, 20]) for x in range(50)}
    for x, fut in futures.items():
        assert fut.wait(TIMEOUT) == expected(x, 20)
    deadline = time.monotonic() + TIMEOUT
    for t in threads:
        t.join(max(0.0, deadline - time.monotonic()))
        assert not t.is_alive(), "a blocking run did not finish: deadlock"
    assert errors == []
    assert results == {x: [expected(x, 20)] for x in range(100, 150)}


def _live(cls):
    gc.collect()
    return sum(1 for o in gc.get_objects() if type(o) is cls)


def test_memory_is_flat_over_repeated_runs(loop):
    """After a warm-up round, more rounds leave no Future, InterpreterState or
    Frame behind, and the traced memory does not grow."""
    ex = WorkQueue(2)

    def round_():
        outs = [InterpreterState(_code, loop=loop, executor=ex).run_async([x, 100])
                for x in range(4)]
        assert [o.wait(TIMEOUT) for o in outs] == [expected(x, 100) for x in range(4)]
        del outs
        # The workers may still be unwinding the frames that completed the futures.
        deadline = time.monotonic() + TIMEOUT
        while ex.stats()["queued"] and time.monotonic() < deadline:
            time.sleep(0.001)
        time.sleep(0.01)
        gc.collect()

    round_()
    counts = (_live(Future), _live(InterpreterState), _live(loop.Frame))
    tracemalloc.start()
    try:
        round_()
        base = tracemalloc.get_traced_memory()[0]
        for _ in range(4):
            round_()
        grown = tracemalloc.get_traced_memory()[0] - base
    finally:
        tracemalloc.stop()
    assert (_live(Future), _live(InterpreterState), _live(loop.Frame)) == counts
    assert grown < 32 * 1024, f"memory grew by {grown} bytes over 4 rounds"
    ex.shutdown()
