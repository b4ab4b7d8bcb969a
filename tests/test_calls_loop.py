"""INVOKE in the run loop, tested against both backends: calls between Programs in
new activations of the same Frame (``loop`` is ``_pure`` or ``_core``).

Tables are written with ``helpers/asm.py``; a callee is linked by a callable that
returns its Program (``F[arg]()``), which is how a Program can call itself.
"""

from __future__ import annotations

import gc
import operator
import sys
import threading
import time
import weakref

import pytest

from helpers.asm import asm
from helpers.memory import traced_growth
from helpers.signals import alarm, needs_setitimer


class Future:
    """A minimal future: ``done()`` and ``value()``, as WAIT expects."""

    def __init__(self, value=None, *, done=True):
        self._value, self._done = value, done

    def done(self):
        return self._done

    def value(self):
        return self._value

    def finish(self, value):
        self._value, self._done = value, True


class Boom(Exception):
    pass


class Linker:
    """``F[arg]`` of an INVOKE: returns the Program set later (so that a Program can
    be its own callee), counting how often the loop asked."""

    def __init__(self, program=None):
        self.program = program
        self.calls = 0

    def __call__(self):
        self.calls += 1
        return self.program


def program(loop, code, **kw):
    return loop.Program(**asm(code, **kw))


@pytest.fixture
def depth_limit(loop):
    """Restores the loop's call depth limit after a test that changes it."""
    saved = loop.get_max_depth()
    yield
    loop.set_max_depth(saved)


# A function of n, recursively: n <= 1 -> 1, else n * fact(n - 1).
def fact(loop, mul=operator.mul):
    link = Linker()
    p = program(loop, [("LOAD", [], [], [0]),
                       ("CALL", [0], [0], [1], 0),             # n <= 1
                       ("JUMPNZ", [1], [1], [], 7),
                       ("CALL", [0], [0], [2], 1),             # n - 1
                       ("INVOKE", [2], [1], [3], 2),           # fact(n - 1)
                       ("CALL", [0, 3], [1, 1], [4], 3),       # n * ...
                       ("JUMP", [], [], [], 9),
                       ("DROP", [0], [1], []),
                       ("CONST", [], [], [4], 0),              # 1
                       ("STORE", [4], [1], [])],
                callbacks=(lambda n: n <= 1, lambda n: n - 1, link, mul), constants=(1,))
    link.program = p
    return p, link


def test_invoke_passes_inputs_and_outputs(loop):
    callee = program(loop, [("LOAD", [], [], [0, 1]),
                            ("CALL", [0, 1], [1, 1], [2], 0),
                            ("CALL", [2], [0], [3], 1),
                            ("STORE", [2, 3], [1, 1], [])],
                     callbacks=(operator.sub, operator.neg))
    caller = program(loop, [("LOAD", [], [], [0, 1]),
                            ("INVOKE", [0, 1], [1, 0], [2, 3], 0),  # in order, out in order
                            ("STORE", [3, 2, 1], [1, 1, 1], [])],
                     callbacks=(Linker(callee),))
    frame = loop.Frame(caller)
    stack = ["below", 10, 3]
    assert frame.run(stack) is None
    assert stack == ["below", -7, 7, 3]
    assert frame.finished and frame.depth == 1 and frame.pcs == (3,)
    assert frame.registers() == [None, None, None, None]


def test_recursion_computes_and_links_once(loop):
    p, link = fact(loop)
    for n, want in [(1, 1), (5, 120), (20, 2432902008176640000), (30, 265252859812191058636308480000000)]:
        stack = [n]
        assert loop.Frame(p).run(stack) is None and stack == [want]
    assert link.calls == 1   # F[arg]() is asked once per Program, then kept


def test_deep_recursion_runs_without_python_recursion(loop, depth_limit):
    p, _ = fact(loop, mul=lambda a, b: (a + b) % 1000003)
    loop.set_max_depth(50_001)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(100)  # no Python frame per call: far below the depth
    try:
        stack = [50_000]
        assert loop.Frame(p).run(stack) is None
    finally:
        sys.setrecursionlimit(limit)
    assert stack == [(sum(range(2, 50_001)) + 1) % 1000003]


def test_the_depth_limit_is_a_recursion_error(loop, depth_limit):
    p, _ = fact(loop)
    assert loop.get_max_depth() == 1000
    stack = [1000]  # 1000 activations: the run's own and 999 calls
    loop.Frame(p).run(stack)
    assert stack[0] > 0
    frame = loop.Frame(p)
    with pytest.raises(RecursionError) as info:
        frame.run([1001])
    assert str(info.value) == (
        "maximum recursion depth exceeded: a run may hold 1000 activations (its own and "
        "one per call in progress); pyjit.set_recursion_limit() changes the limit")
    # Every activation is unwound, and where each was is kept: all at the INVOKE.
    assert frame.failed and frame.depth == 1000 and frame.pcs == (4,) * 1000
    assert frame.pc == 4 and frame.registers() == [None] * 5
    loop.set_max_depth(3)
    with pytest.raises(RecursionError, match="may hold 3 activations"):
        loop.Frame(p).run([4])
    stack = [3]
    loop.Frame(p).run(stack)
    assert stack == [6]


@pytest.mark.parametrize("bad, exc", [(0, ValueError), (-5, ValueError), (2**31, ValueError),
                                      (True, TypeError), (10.0, TypeError)])
def test_the_depth_limit_must_be_a_positive_int(loop, depth_limit, bad, exc):
    with pytest.raises(exc, match="call depth limit"):
        loop.set_max_depth(bad)
    assert loop.get_max_depth() == 1000


def test_error_in_a_callee_unwinds_every_activation(loop):
    witness = []

    class Held:
        pass

    def boom(*args):
        raise Boom

    inner = program(loop, [("LOAD", [], [], [0]),
                           ("CONST", [], [], [1], 0),
                           ("CALL", [0, 1], [0, 0], [2], 0),
                           ("STORE", [2], [1], [])],
                    callbacks=(boom,), constants=("k",))
    middle = program(loop, [("LOAD", [], [], [0, 1]),
                            ("INVOKE", [1], [0], [2], 0),
                            ("STORE", [0, 1, 2], [1, 1, 1], [])],
                     callbacks=(Linker(inner),))
    outer = program(loop, [("LOAD", [], [], [0, 1]),
                           ("INVOKE", [0, 1], [0, 0], [2], 0),
                           ("STORE", [2], [1], [])],
                    callbacks=(Linker(middle),))
    held = [Held(), Held()]
    refs = [weakref.ref(h) for h in held]
    frame = loop.Frame(outer)
    stack = held
    held = None
    with pytest.raises(Boom):
        frame.run(stack)
    del stack
    gc.collect()
    assert [r() for r in refs] == [None, None]   # released from every activation
    assert frame.failed and frame.depth == 3 and frame.pcs == (1, 1, 2)
    with pytest.raises(RuntimeError, match="unusable after an error"):
        frame.run([])


def test_a_callee_error_path_leaks_nothing(loop):
    def boom(*args):
        raise Boom

    inner = program(loop, [("LOAD", [], [], [0]), ("CALL", [0], [1], [1], 0)],
                    callbacks=(boom,))
    outer = program(loop, [("LOAD", [], [], [0, 1]),
                           ("INVOKE", [0], [0], [], 0),
                           ("STORE", [0, 1], [1, 1], [])],
                    callbacks=(Linker(inner),))
    a, b = 10**30, object()
    ra, rb = sys.getrefcount(a), sys.getrefcount(b)

    def many(n):
        for _ in range(n):
            try:
                loop.Frame(outer).run([a, b])
            except Boom:
                pass

    many(1000)
    assert (sys.getrefcount(a), sys.getrefcount(b)) == (ra, rb)
    assert traced_growth(many, 2000, warmup=100) < 16 * 1024


def test_calls_leak_nothing(loop):
    p, _ = fact(loop)

    def many(n):
        for _ in range(n):
            loop.Frame(p).run([12])

    assert traced_growth(many, 300, warmup=20) < 16 * 1024


def test_wait_in_a_callee_suspends_every_activation(loop):
    fut = Future(done=False)
    inner = program(loop, [("LOAD", [], [], [0, 1]),
                           ("WAIT", [1], [1], [2]),
                           ("CALL", [0, 2], [1, 1], [3], 0),
                           ("STORE", [3], [1], [])],
                    callbacks=(operator.add,), future_type=Future)
    outer = program(loop, [("LOAD", [], [], [0, 1]),
                           ("CONST", [], [], [2], 0),
                           ("INVOKE", [2, 1], [1, 1], [3], 0),   # inner(100, fut)
                           ("CALL", [0, 3], [1, 1], [4], 1),
                           ("STORE", [4], [1], [])],
                    callbacks=(Linker(inner), operator.mul), constants=(100,),
                    future_type=Future)
    frame = loop.Frame(outer)
    stack = [3, fut]
    assert frame.run(stack) is fut
    assert stack == [] and frame.depth == 2 and frame.pcs == (2, 1) and frame.pc == 2
    assert not frame.finished and not frame.failed
    assert frame.registers() == [3, None, None, None, None]  # the caller waits at INVOKE
    assert frame.run([]) is fut     # still pending: suspends again where it was
    assert frame.pcs == (2, 1)
    fut.finish(7)
    out = []
    assert frame.run(out) is None
    assert out == [3 * (100 + 7)] and frame.finished and frame.depth == 1


def test_a_suspended_callee_in_a_cycle_is_collected(loop):
    class Node:
        pass

    node = Node()
    fut = Future(done=False)
    inner = program(loop, [("LOAD", [], [], [0, 1]), ("WAIT", [1], [1], [2]),
                           ("STORE", [0, 2], [1, 1], [])], future_type=Future)
    outer = program(loop, [("LOAD", [], [], [0, 1]), ("INVOKE", [0, 1], [1, 1], [2, 3], 0),
                           ("STORE", [2], [1], [])],
                    callbacks=(Linker(inner),), future_type=Future)
    frame = loop.Frame(outer)
    assert frame.run([node, fut]) is fut
    node.frame = frame     # frame -> the callee's register -> node -> frame
    alive = weakref.ref(node)
    del node, frame
    gc.collect()
    assert alive() is None


def test_link_must_give_a_program_of_the_loop(loop, backends):
    other = backends[0] if loop is backends[1] else backends[1]
    table = [("INVOKE", [], [], [], 0)]
    callee = other.Program(**asm([("LOAD", [], [], [])]))
    for target, name in [(Linker(3), "int"), (Linker(callee), "Program")]:
        frame = loop.Frame(program(loop, table, callbacks=(target,)))
        with pytest.raises(TypeError, match=rf"^INVOKE F\[0\]\(\) returned {name}, not a "
                                            rf"{loop.__name__}\.Program$"):
            frame.run([])
        assert frame.failed


@pytest.mark.parametrize("callee_code, message", [
    ([("LOAD", [], [], [0, 1, 2])], "^LOAD takes 3 values but the stack holds 2$"),
    ([("LOAD", [], [], [0, 1]), ("STORE", [0, 1, 1], [0, 0, 0], [])],
     "^STORE gives 3 values but the INVOKE that called it takes 1$"),
    ([("LOAD", [], [], [0, 1])], r"^INVOKE F\[0\]: the callee gave 0 values, expected 1$"),
    ([("LOAD", [], [], [0])], "^LOAD takes 1 values but the INVOKE that called it gives 2$"),
])
def test_a_callee_that_does_not_fit_its_call_is_refused(loop, callee_code, message):
    witness = object()
    callee = program(loop, callee_code)
    frame = loop.Frame(program(loop, [("LOAD", [], [], [0, 1]),
                                      ("INVOKE", [0, 1], [1, 1], [2], 0),
                                      ("STORE", [2], [1], [])],
                               callbacks=(Linker(callee),)))
    base = sys.getrefcount(witness)
    with pytest.raises(TypeError, match=message):
        frame.run([witness, witness])
    assert frame.failed and sys.getrefcount(witness) == base


def test_calls_run_in_many_threads(loop):
    p, _ = fact(loop)
    results, errors = [], []

    def work(k):
        try:
            for i in range(50):
                stack = [k + i % 7]
                loop.Frame(p).run(stack)
                results.append(stack[0])
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(results) == 300
    from math import factorial
    assert sorted(results) == sorted(factorial(max(k + i % 7, 1)) for k in range(6)
                                     for i in range(50))


# A tree of calls with no backward jump at all: node(n) calls node(n - 1) twice,
# with C operators only, so nothing but the loop itself can look at signals.
def call_tree(loop):
    link = Linker()
    p = program(loop, [("LOAD", [], [], [0]),
                       ("CONST", [], [], [1], 0),
                       ("CALL", [0, 1], [0, 1], [2], 0),      # n > 0
                       ("JUMPZ", [2], [1], [], 9),
                       ("CONST", [], [], [3], 1),
                       ("CALL", [0, 3], [1, 1], [4], 1),      # n - 1
                       ("INVOKE", [4], [0], [], 2),
                       ("INVOKE", [4], [1], [], 2),
                       ("JUMP", [], [], [], 10),
                       ("DROP", [0], [1], []),
                       ("STORE", [], [], [])],
                callbacks=(operator.gt, operator.sub, link), constants=(0, 1))
    link.program = p
    return p


class Alarm(Exception):
    pass


@needs_setitimer
def test_a_signal_stops_a_run_made_only_of_calls(loop):
    # 2**25 calls, 25 deep at most: seconds, where the alarm comes after 50 ms
    frame = loop.Frame(call_tree(loop))
    start = time.monotonic()
    with alarm(0.05, Alarm), pytest.raises(Alarm):
        frame.run([24])
    assert time.monotonic() - start < 1.0
    assert frame.failed and 1 < frame.depth <= 25


def test_other_threads_run_during_a_run_made_only_of_calls(loop):
    """The compiled loop gives up the GIL at calls as at backward jumps."""
    p = call_tree(loop)
    loop.Frame(p).run([1])  # linked now: the run below calls no Python code at all
    ticks = []
    stop = threading.Event()

    def other():
        while not stop.is_set():
            ticks.append(time.monotonic())
            time.sleep(0.001)

    t = threading.Thread(target=other)
    t.start()
    time.sleep(0.01)
    try:
        start = time.monotonic()
        # 2**19 calls compiled, 2**15 pure: a tenth of a second or more
        loop.Frame(p).run([18 if loop.__name__ == "pyjit._core" else 14])
        end = time.monotonic()
    finally:
        stop.set()
        t.join()
    # One look in could come at the Python call that starts the run; without the
    # calls' ticks there is no other.
    assert sum(start < tick < end for tick in ticks) >= 3, (end - start, len(ticks))
