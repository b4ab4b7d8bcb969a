"""The run loop, tested against both backends (``loop`` is ``_pure`` or ``_core``).

Tables are written with ``tests/asm.py``: ``(name, inputs, flags, outputs[, arg])``.
"""

from __future__ import annotations

import collections
import gc
import inspect
import operator
import sys
import threading
import time
import weakref

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pyjit import opcodes

from helpers.asm import asm
from helpers.memory import traced_growth
from helpers.signals import alarm, needs_setitimer


class Future:
    """A minimal future: ``done()`` and ``value()``, as WAIT expects."""

    def __init__(self, value=None, *, done=True, error=None):
        self._value, self._done, self._error = value, done, error

    def done(self):
        return self._done

    def value(self):
        if self._error is not None:
            raise self._error()
        return self._value

    def finish(self, value):
        self._value, self._done = value, True


class Boom(Exception):
    pass


def build(loop, code, **kw):
    return loop.Program(**asm(code, **kw))


def run(loop, code, stack=None, **kw):
    """Build, run once; returns (frame, stack after, run's result)."""
    frame = loop.Frame(build(loop, code, **kw))
    stack = [] if stack is None else stack
    result = frame.run(stack)
    return frame, stack, result


# ---- Each opcode ------------------------------------------------------------------

def test_call_load_store(loop):
    frame, out, res = run(loop, [("LOAD", [], [], [0, 1]),
                                 ("CALL", [0, 1], [1, 1], [2], 0),
                                 ("STORE", [2], [1], [])],
                          [7, 3, 4], callbacks=(operator.sub,))
    assert res is None and out == [7, -1]
    assert frame.finished and not frame.failed and frame.pc == 3
    assert frame.registers() == [None, None, None]


def test_call_zero_outputs_discards_result(loop):
    seen = []
    frame, out, _ = run(loop, [("LOAD", [], [], [0]),
                               ("CALL", [0, 0], [0, 1], [], 0)],
                        ["x"], callbacks=(lambda a, b: seen.append((a, b)) or "ignored",))
    assert seen == [("x", "x")] and out == []
    assert frame.registers() == [None]


def test_call_with_no_inputs(loop):
    _, out, _ = run(loop, [("CALL", [], [], [0], 0), ("STORE", [0], [1], [])],
                    callbacks=(lambda: 42,))
    assert out == [42]


@pytest.mark.parametrize("result", [(1, 2, 3), [1, 2, 3]])
def test_call_several_outputs_unpack_tuple_or_list(loop, result):
    _, out, _ = run(loop, [("CALL", [], [], [2, 0, 1], 0), ("STORE", [0, 1, 2], [1, 1, 1], [])],
                    callbacks=(lambda: result,))
    assert out == [2, 3, 1]


@pytest.mark.parametrize("result, message", [
    ((1, 2, 3), r"^operator F\[0\] returned 3 values, expected 2$"),
    (7, r"^operator F\[0\] returned int, expected a tuple or list of 2 values$"),
])
def test_call_bad_result_count(loop, result, message):
    frame = loop.Frame(build(loop, [("CALL", [], [], [0, 1], 0)], callbacks=(lambda: result,)))
    with pytest.raises(TypeError, match=message):
        frame.run([])
    assert frame.failed and frame.pc == 0


class _LyingList(list):
    """A list whose __len__ disagrees with what it holds."""

    def __len__(self):
        return 3


def test_call_unpacks_a_sequence_subclass_by_what_it_holds(loop):
    # A tuple or list subclass is read through its iterator, once: its own
    # __len__ cannot make the loop read past the values it holds (the compiled
    # loop read the storage, the pure one popped an empty stack).
    frame = loop.Frame(build(loop, [("CALL", [], [], [0, 1, 2], 0)],
                             callbacks=(lambda: _LyingList([1]),)))
    with pytest.raises(TypeError, match=r"^operator F\[0\] returned 1 values, expected 3$"):
        frame.run([])
    assert frame.failed and frame.pc == 0
    Pair = collections.namedtuple("Pair", "a b")
    _, out, _ = run(loop, [("CALL", [], [], [1, 0], 0), ("STORE", [0, 1], [1, 1], [])],
                    callbacks=(lambda: Pair(5, 6),))
    assert out == [6, 5]


class _Acc:
    def __init__(self):
        self.items = []

    def add(self, x, y):
        self.items.append((x, y))
        return len(self.items)


def test_call_bound_methods(loop):
    # Bound methods take the vectorcall offset path (self prepended in place).
    acc, lst = _Acc(), []
    _, out, _ = run(loop, [("LOAD", [], [], [0, 1]),
                           ("CALL", [0, 1], [0, 0], [2], 0),
                           ("CALL", [2], [0], [], 1),
                           ("CALL", [0, 1], [1, 1], [3], 0),
                           ("STORE", [2, 3], [1, 1], [])],
                    ["a", "b"], callbacks=(acc.add, lst.append))
    assert out == [1, 2] and lst == [1] and acc.items == [("a", "b")] * 2


def test_const(loop):
    k = object()
    frame, out, _ = run(loop, [("CONST", [], [], [0], 1), ("STORE", [0], [0], [])],
                        constants=("unused", k))
    assert out == [k] and frame.registers() == [k]


def test_drop_releases(loop):
    x = object()
    base = sys.getrefcount(x)
    frame, _, _ = run(loop, [("LOAD", [], [], [0, 1]), ("DROP", [0, 1], [1, 1], [])],
                      [x, x])
    assert frame.registers() == [None, None]
    assert sys.getrefcount(x) == base


def test_store_appends_in_order(loop):
    _, out, _ = run(loop, [("CONST", [], [], [0], 0), ("CONST", [], [], [1], 1),
                           ("STORE", [1, 0, 1], [0, 0, 0], [])],
                    ["keep"], constants=("a", "b"))
    assert out == ["keep", "b", "a", "b"]


def test_load_takes_the_end_of_the_stack(loop):
    _, out, _ = run(loop, [("LOAD", [], [], [1, 0]), ("STORE", [0, 1], [1, 1], [])],
                    ["x", "y", "z"])
    assert out == ["x", "z", "y"]


def test_load_too_few_values_leaves_stack_untouched(loop):
    frame = loop.Frame(build(loop, [("LOAD", [], [], [0, 1, 2])]))
    stack = ["a", "b"]
    with pytest.raises(TypeError, match=r"^LOAD takes 3 values but the stack holds 2$"):
        frame.run(stack)
    assert stack == ["a", "b"] and frame.failed and frame.pc == 0


def test_moves_and_copies(loop):
    a, b = object(), object()
    ra, rb = sys.getrefcount(a), sys.getrefcount(b)
    stack = [a, b]
    frame = loop.Frame(build(loop, [("LOAD", [], [], [0, 1]),
                                    ("STORE", [0, 1], [1, 0], [])]))
    frame.run(stack)
    assert stack == [a, b]
    assert sys.getrefcount(a) == ra + 1       # the list only: moved out of R0
    assert sys.getrefcount(b) == rb + 2       # the list and R1: copied
    assert frame.registers() == [None, b]
    del frame
    gc.collect()
    assert sys.getrefcount(b) == rb + 1       # the frame released R1


def test_cycle_through_a_register_is_collected(loop):
    class Node:
        pass

    node = Node()
    frame = loop.Frame(build(loop, [("LOAD", [], [], [0])]))
    frame.run([node])
    node.frame = frame           # frame -> R0 -> node -> frame
    alive = weakref.ref(node)
    del node, frame
    gc.collect()
    assert alive() is None


def test_moved_input_is_gone_before_the_call(loop):
    x = object()
    seen = []
    prog = build(loop, [("LOAD", [], [], [0]), ("CALL", [0], [1], [], 0)],
                 callbacks=(lambda v: seen.append(frame.registers()),))
    frame = loop.Frame(prog)
    frame.run([x])
    assert seen == [[None]]


def test_overwriting_a_register_releases_old_value(loop):
    x = object()
    base = sys.getrefcount(x)
    frame, _, _ = run(loop, [("LOAD", [], [], [0]), ("CONST", [], [], [0], 0)], [x],
                      constants=(1,))
    assert frame.registers() == [1] and sys.getrefcount(x) == base


def test_assign_swaps_registers(loop):
    _, out, _ = run(loop, [("LOAD", [], [], [0, 1]),
                           ("ASSIGN", [0, 1], [1, 1], [1, 0]),
                           ("STORE", [0, 1], [1, 1], [])], ["a", "b"])
    assert out == ["b", "a"]


def test_jump(loop):
    _, out, _ = run(loop, [("JUMP", [], [], [], 2), ("CONST", [], [], [0], 0),
                           ("CONST", [], [], [0], 1), ("STORE", [0], [1], [])],
                    constants=("skipped", "taken"))
    assert out == ["taken"]


@pytest.mark.parametrize("cond, expect", [(True, "then"), (False, "else"),
                                          (0, "else"), ([1], "then"), (None, "else")])
def test_if_style_jumpnz_with_one_input(loop, cond, expect):
    # x = if c: "then" else: "else"   (the seed's lowering of If)
    code = [("LOAD", [], [], [0]),
            ("JUMPNZ", [0], [1], [], 5),
            ("CONST", [], [], [1], 1),            # else block
            ("ASSIGN", [1], [1], [2]),
            ("JUMP", [], [], [], 7),
            ("CONST", [], [], [1], 0),            # then block
            ("ASSIGN", [1], [1], [2]),
            ("STORE", [2], [1], [])]
    frame, out, _ = run(loop, code, [cond], constants=("then", "else"))
    assert out == [expect] and frame.registers() == [None, None, None]


@pytest.mark.parametrize("cond", [True, False])
def test_jumpz_with_one_input(loop, cond):
    _, out, _ = run(loop, [("LOAD", [], [], [0]), ("JUMPZ", [0], [1], [], 3),
                           ("CONST", [], [], [1], 0), ("STORE", [], [], [])],
                    [cond], constants=(1,))
    assert out == []


def _countdown_sum(n):
    """sum(range(n + 1)) as a Loop: the seed's lowering with ASSIGN + JUMPZ/JUMPNZ.

    R0 = counter, R1 = acc, R2 = condition; body: acc += counter; counter -= 1.
    """
    gt0, add, dec = 0, 1, 2
    return [("LOAD", [], [], [0]),
            ("CONST", [], [], [1], 0),
            ("CALL", [0], [0], [2], gt0),
            ("ASSIGN", [2, 0, 1], [1, 1, 1], [0, 1]),   # stack: cond
            ("JUMPZ", [], [], [], 10),                   # pops cond
            ("CALL", [1, 0], [1, 0], [1], add),          # body
            ("CALL", [0], [1], [0], dec),
            ("CALL", [0], [0], [2], gt0),
            ("ASSIGN", [2, 0, 1], [1, 1, 1], [0, 1]),
            ("JUMPNZ", [], [], [], 5),
            ("STORE", [1], [1], [])], dict(
        callbacks=(lambda x: x > 0, operator.add, lambda x: x - 1), constants=(0,))


@pytest.mark.parametrize("n", [0, 1, 5, 100])
def test_loop_style_assign_with_condition(loop, n):
    code, kw = _countdown_sum(n)
    frame, out, _ = run(loop, code, [n], **kw)
    assert out == [n * (n + 1) // 2]
    assert frame.registers() == [0, None, None]   # the spent counter; acc was moved
    assert loop.Program(**asm(code, **kw)).max_stack == 3


def test_stackcall_moves_inputs_into_a_list(loop):
    seen = []

    def rev(lst):
        seen.append(list(lst))
        lst.reverse()

    frame, out, _ = run(loop, [("LOAD", [], [], [0, 1, 2]),
                               ("STACKCALL", [0, 1, 2], [1, 0, 1], [3, 4, 5], 0),
                               ("STORE", [3, 4, 5], [1, 1, 1], [])],
                        ["a", "b", "c"], callbacks=(rev,))
    assert seen == [["a", "b", "c"]] and out == ["c", "b", "a"]
    assert frame.registers() == [None, "b", None, None, None, None]


def test_stackcall_relative_jump(loop):
    def skip(lst):
        lst.append(len(lst))
        return 1

    _, out, _ = run(loop, [("CONST", [], [], [0], 0),
                           ("STACKCALL", [0], [1], [0, 1], 0),
                           ("CONST", [], [], [0], 1),     # skipped
                           ("STORE", [0, 1], [1, 1], [])],
                    callbacks=(skip,), constants=("kept", "skipped"))
    assert out == ["kept", 1]


def test_stackcall_backward_jump(loop):
    # A counter loop closed by a STACKCALL jumping back to itself.
    state = {"left": 3}

    def again(lst):
        state["left"] -= 1
        lst.append(state["left"])
        return -1 if state["left"] else None

    _, out, _ = run(loop, [("STACKCALL", [], [], [0], 0), ("STORE", [0], [1], [])],
                    callbacks=(again,))
    assert out == [0] and state["left"] == 0


@pytest.mark.parametrize("off, exc, message", [
    (3, RuntimeError, r"^STACKCALL F\[0\] jumped to 5, outside \[0, 3\]$"),
    (-3, RuntimeError, r"^STACKCALL F\[0\] jumped to -1, outside \[0, 3\]$"),
    (10**30, RuntimeError, r"jumped to 1000000000000000000000000000002, outside"),
    ("1", TypeError, r"cannot be interpreted as an integer"),
])
def test_stackcall_bad_jump(loop, off, exc, message):
    frame = loop.Frame(build(loop, [("CONST", [], [], [0], 0),
                                    ("STACKCALL", [0], [1], [0], 0),
                                    ("STORE", [0], [1], [])],
                             callbacks=(lambda lst: off,), constants=(1,)))
    with pytest.raises(exc, match=message):
        frame.run([])
    assert frame.failed and frame.pc == 1


def test_stackcall_may_not_land_on_a_condition_jump(loop):
    frame = loop.Frame(build(loop, [("STACKCALL", [], [], [], 0),
                                    ("CONST", [], [], [0], 0),
                                    ("ASSIGN", [0], [1], []),
                                    ("JUMPNZ", [], [], [], 4)],
                             callbacks=(lambda lst: 2,), constants=(1,)))
    with pytest.raises(RuntimeError, match=r"jumped to 3, a conditional jump that expects"):
        frame.run([])


def test_stackcall_wrong_count(loop):
    frame = loop.Frame(build(loop, [("STACKCALL", [], [], [0, 1], 0)],
                             callbacks=(lambda lst: lst.append(1),)))
    with pytest.raises(TypeError, match=r"^STACKCALL F\[0\] left 1 values, expected 2$"):
        frame.run([])


def test_wait_on_done_future(loop):
    fut = Future("v")
    frame, out, res = run(loop, [("LOAD", [], [], [0]), ("WAIT", [0], [1], [1]),
                                 ("STORE", [1], [1], [])], [fut], future_type=Future)
    assert res is None and out == ["v"] and frame.registers() == [None, None]


@pytest.mark.parametrize("move", [1, 0])
def test_wait_suspends_and_resumes(loop, move):
    fut = Future(done=False)
    base = sys.getrefcount(fut)
    frame = loop.Frame(build(loop, [("LOAD", [], [], [0]), ("WAIT", [0], [move], [1]),
                                    ("STORE", [1], [1], [])], future_type=Future))
    stack = [fut]
    assert frame.run(stack) is fut
    assert stack == [] and frame.pc == 1 and not frame.finished and not frame.failed
    # Moved or not, the register holds the future while the frame is suspended.
    assert frame.registers() == [fut, None]
    assert sys.getrefcount(fut) == base + 1
    assert frame.run([]) is fut          # still not done: suspends again, no leak
    assert sys.getrefcount(fut) == base + 1
    fut.finish("v")
    out = []
    assert frame.run(out) is None
    assert out == ["v"] and frame.finished
    assert frame.registers() == [None if move else fut, None]


def test_wait_value_error_propagates(loop):
    frame = loop.Frame(build(loop, [("LOAD", [], [], [0]), ("WAIT", [0], [1], [1])],
                             future_type=Future))
    with pytest.raises(Boom):
        frame.run([Future(error=Boom)])
    assert frame.failed and frame.pc == 1 and frame.registers() == [None, None]


def test_wait_requires_a_future(loop):
    frame = loop.Frame(build(loop, [("CONST", [], [], [0], 0), ("WAIT", [0], [1], [1])],
                             constants=(3,), future_type=Future))
    with pytest.raises(TypeError, match=r"^WAIT expects a Future, got int$"):
        frame.run([])
    assert frame.failed and frame.pc == 1


def test_empty_program(loop):
    prog = build(loop, [])
    assert (prog.n_instructions, prog.register_size, prog.max_stack) == (0, 0, 0)
    frame = loop.Frame(prog)
    assert frame.run([1]) is None and frame.finished and frame.registers() == []


def test_finished_frame_runs_nothing(loop):
    frame, out, _ = run(loop, [("CONST", [], [], [0], 0), ("STORE", [0], [0], [])],
                        constants=(1,))
    assert frame.run(out) is None and out == [1]


# ---- Errors ---------------------------------------------------------------------------

def test_callback_error_is_the_original_object(loop):
    err = Boom("no")

    def boom(*args):
        raise err

    a, b = object(), object()
    ra, rb = sys.getrefcount(a), sys.getrefcount(b)
    frame = loop.Frame(build(loop, [("LOAD", [], [], [0, 1]),
                                    ("CALL", [0, 1], [0, 1], [2], 0)], callbacks=(boom,)))
    with pytest.raises(Boom) as info:
        frame.run([a, b])
    assert info.value is err
    assert frame.failed and frame.pc == 1 and not frame.finished
    assert frame.registers() == [None, None, None]
    del info
    err.__traceback__ = None   # drop the frames (and the arguments) it remembers
    assert (sys.getrefcount(a), sys.getrefcount(b)) == (ra, rb)
    with pytest.raises(RuntimeError, match=r"^frame is unusable after an error \(it failed at pc 1\)$"):
        frame.run([])


def test_empty_register_read(loop):
    frame = loop.Frame(build(loop, [("LOAD", [], [], [0]), ("DROP", [0], [1], []),
                                    ("STORE", [0], [0], [])]))
    with pytest.raises(RuntimeError, match=r"^register 0 read at pc 2 is empty$"):
        frame.run(["x"])
    assert frame.failed and frame.pc == 2


def test_moved_then_read_in_same_instruction(loop):
    frame = loop.Frame(build(loop, [("LOAD", [], [], [0]), ("CALL", [0, 0], [1, 0], [], 0)],
                             callbacks=(print,)))
    with pytest.raises(RuntimeError, match="register 0 read at pc 1 is empty"):
        frame.run(["x"])


def test_truth_error_propagates(loop):
    class Bad:
        def __bool__(self):
            raise Boom

    frame = loop.Frame(build(loop, [("LOAD", [], [], [0]), ("JUMPZ", [0], [1], [], 2)]))
    with pytest.raises(Boom):
        frame.run([Bad()])
    assert frame.failed and frame.pc == 1


def test_reentrant_run_is_refused(loop):
    prog = build(loop, [("CALL", [], [], [], 0)], callbacks=(lambda: frame.run([]),))
    frame = loop.Frame(prog)
    with pytest.raises(RuntimeError, match=r"^frame is already running"):
        frame.run([])
    assert frame.failed


def test_run_checks_its_argument(loop):
    frame = loop.Frame(build(loop, [("CONST", [], [], [0], 0)], constants=(1,)))
    for bad in (None, (), "x"):
        with pytest.raises(TypeError, match=r"^run\(\) expects a list, got"):
            frame.run(bad)
    assert not frame.failed and frame.pc == 0
    with pytest.raises(TypeError, match=r"^Frame\(\) expects a Program, got NoneType$"):
        loop.Frame(None)


def _failing_program(loop):
    def boom(*args):
        raise Boom

    return build(loop, [("LOAD", [], [], [0, 1]),
                        ("CONST", [], [], [2], 0),
                        ("CALL", [0, 2], [0, 1], [3], 1),
                        ("CALL", [0, 1, 3], [1, 1, 1], [4], 0)],
                 callbacks=(boom, operator.add), constants=(1,))


def test_error_path_leaks_nothing(loop):
    prog = _failing_program(loop)
    a, b = 10**30, object()
    ra, rb = sys.getrefcount(a), sys.getrefcount(b)
    Frame = loop.Frame

    def many(n):
        for _ in range(n):
            frame = Frame(prog)
            try:
                frame.run([a, b])
            except Boom:
                pass

    many(1000)   # warm the free lists
    gc.collect()
    blocks = sys.getallocatedblocks()
    many(100_000)
    gc.collect()
    # A leak of anything (a value, a register array) would be >= 100,000 blocks.
    assert sys.getallocatedblocks() - blocks < 1000
    assert (sys.getrefcount(a), sys.getrefcount(b)) == (ra, rb)
    # tracemalloc also sees raw allocations, but is slow: fewer runs.
    grown = traced_growth(many, 10_000)
    assert grown < 16 * 1024, grown


# ---- Signals --------------------------------------------------------------------------

class Alarm(Exception):
    pass


ENDLESS = {
    "JUMP": [("JUMP", [], [], [], 0)],
    "JUMPNZ": [("CONST", [], [], [0], 0), ("JUMPNZ", [0], [0], [], 1)],
    "Loop": [("CONST", [], [], [0], 0), ("ASSIGN", [0], [0], []), ("JUMPNZ", [], [], [], 1)],
    "STACKCALL": [("STACKCALL", [], [], [], 0)],
}


@needs_setitimer
@pytest.mark.parametrize("shape", list(ENDLESS))
def test_signal_stops_an_endless_loop(loop, shape):
    frame = loop.Frame(build(loop, ENDLESS[shape], constants=(True,),
                             callbacks=(lambda lst: -1,)))
    start = time.monotonic()
    with alarm(0.05, Alarm), pytest.raises(Alarm):
        frame.run([])
    assert time.monotonic() - start < 1.0
    assert frame.failed and frame.registers() == [None] * len(frame.registers())


# ---- Validation -------------------------------------------------------------------

def _valid():
    return asm([("LOAD", [], [], [0, 1]),
                ("CALL", [0, 1], [0, 0], [2], 0),
                ("CONST", [], [], [3], 0),
                ("ASSIGN", [3, 2], [1, 1], [2]),
                ("JUMPNZ", [], [], [], 6),
                ("DROP", [0], [1], []),
                ("WAIT", [1], [1], [1]),
                ("STORE", [1, 2], [1, 1], []),
                ("JUMP", [], [], [], 9)],
               callbacks=(operator.add,), constants=(True,))


def _with(**changes):
    def make():
        t = _valid()
        for key, value in changes.items():
            if callable(value):
                value(t[key])
            else:
                t[key] = value
        return t
    return make


def _set(i, v):
    def change(a):
        a[i] = v
    return change


def _table(code, **kw):
    return lambda: asm(code, **kw)


VALIDATION = [
    ("register_size type", _with(register_size=2.0), r"^register_size: expected an int, got float$"),
    ("register_size sign", _with(register_size=-1), r"^register_size: must be >= 0, got -1$"),
    ("callbacks type", _with(callbacks=[operator.add]), r"^callbacks: expected a tuple, got list$"),
    ("callback callable", _with(callbacks=(operator.add, 3)), r"^callbacks\[1\]: int object is not callable$"),
    ("constants type", _with(constants=[True]), r"^constants: expected a tuple, got list$"),
    ("future_type", _with(future_type=Future()), r"^future_type: expected a class, got Future$"),
    ("not an array", _with(op=[2, 0]), r"^op: expected a 1-D numpy array of int32, got list$"),
    ("dtype", _with(arg=np.zeros(9, dtype=np.int64)), r"^arg: expected dtype int32, got int64$"),
    ("byte order", _with(arg=np.zeros(9, dtype=">i4")), r"^arg: expected dtype int32, got >i4$"),
    ("bool dtype", _with(bool_data=np.zeros(9, dtype=bool)), r"^bool_data: expected dtype uint8, got bool$"),
    ("ndim", _with(in_size=np.zeros((9, 1), dtype=np.int32)), r"^in_size: expected a 1-D array, got 2"),
    ("lengths", _with(out_size=np.zeros(8, dtype=np.int32)), r"^out_size: length 8 differs from op's length 9$"),
    ("opcode", _with(op=_set(5, 99)), r"^instruction 5 \(99\): unknown opcode$"),
    ("negative size", _with(in_size=_set(1, -1)), r"^instruction 1 \(CALL\): input count -1 is negative$"),
    ("inputs arena", _with(in_start=_set(1, 1000)), r"^instruction 1 \(CALL\): inputs \[1000:1002\] are outside their arena of 14$"),
    ("flags arena", _with(flag_start=_set(1, -1)), r"^instruction 1 \(CALL\): input flags \[-1:1\] are outside their arena"),
    ("outputs arena", _with(out_start=_set(2, 14)), r"^instruction 2 \(CONST\): outputs \[14:15\] are outside"),
    ("flag value", _with(bool_data=_set(0, 2)), r"^instruction 1 \(CALL\): input flag 2 is not 0 or 1$"),
    ("input register", _with(int_data=_set(2, 4)), r"^instruction 1 \(CALL\): input register 4 is outside \[0, 4\)$"),
    ("output register", _with(int_data=_set(4, -1)), r"^instruction 1 \(CALL\): output register -1 is outside"),
    ("CONST shape", _table([("CONST", [], [], [0, 1], 0)], constants=(1,)), r"^instruction 0 \(CONST\): takes 0 inputs and 1 outputs, got 0 and 2$"),
    ("WAIT shape", _table([("WAIT", [0], [0], [])]), r"^instruction 0 \(WAIT\): takes 1 inputs and 1 outputs, got 1 and 0$"),
    ("LOAD shape", _table([("LOAD", [0], [0], [0])]), r"^instruction 0 \(LOAD\): takes 0 inputs and any outputs"),
    ("STORE shape", _table([("STORE", [0], [0], [0])]), r"^instruction 0 \(STORE\): takes any inputs and 0 outputs"),
    ("DROP shape", _table([("DROP", [0], [0], [0])]), r"^instruction 0 \(DROP\): takes any inputs and 0 outputs"),
    ("JUMP shape", _table([("JUMP", [0], [0], [], 0)]), r"^instruction 0 \(JUMP\): takes 0 inputs and 0 outputs"),
    ("JUMPZ inputs", _table([("JUMPZ", [0, 0], [0, 0], [], 0)]), r"^instruction 0 \(JUMPZ\): takes 0 or 1 inputs and 0 outputs, got 2 and 0$"),
    ("JUMPNZ outputs", _table([("JUMPNZ", [0], [0], [0], 0)]), r"^instruction 0 \(JUMPNZ\): takes 0 or 1 inputs and 0 outputs, got 1 and 1$"),
    ("ASSIGN shape", _table([("ASSIGN", [0, 0, 0], [0, 0, 0], [0])]), r"^instruction 0 \(ASSIGN\): needs as many inputs as outputs, or one more"),
    ("callback index", _with(arg=_set(1, 1)), r"^instruction 1 \(CALL\): callback index 1 is outside \[0, 1\)$"),
    ("STACKCALL index", _table([("STACKCALL", [], [], [], -1)]), r"^instruction 0 \(STACKCALL\): callback index -1 is outside \[0, 0\)$"),
    ("constant index", _with(arg=_set(2, 5)), r"^instruction 2 \(CONST\): constant index 5 is outside \[0, 1\)$"),
    ("jump target", _with(arg=_set(8, 10)), r"^instruction 8 \(JUMP\): jump target 10 is outside \[0, 9\]$"),
    ("jump target sign", _with(arg=_set(4, -1)), r"^instruction 4 \(JUMPNZ\): jump target -1 is outside"),
    ("condition not taken", _with(op=_set(4, 7)), r"^instruction 3 \(ASSIGN\): leaves a loop condition on the stack, so it must be followed"),
    ("condition at end", _table([("CONST", [], [], [0], 0), ("ASSIGN", [0], [1], [])], constants=(1,)), r"^instruction 1 \(ASSIGN\): leaves a loop condition"),
    ("condition missing", _table([("JUMPZ", [], [], [], 1)]), r"^instruction 0 \(JUMPZ\): has no input, so it must follow an ASSIGN"),
    ("jump onto condition jump", _with(arg=_set(8, 4)), r"^instruction 8 \(JUMP\): jumps to 4, a conditional jump that expects a condition"),
]


@pytest.mark.parametrize("make, message", [v[1:] for v in VALIDATION],
                         ids=[v[0] for v in VALIDATION])
def test_validation(loop, make, message):
    table = make()
    with pytest.raises(ValueError, match=message):
        loop.Program(**table)


def test_valid_table_is_valid(loop):
    prog = loop.Program(**_valid())
    assert (prog.n_instructions, prog.register_size, prog.max_stack) == (9, 4, 2)


def test_program_copies_its_arrays(loop):
    table = asm([("CONST", [], [], [0], 0), ("STORE", [0], [1], [])], constants=("k",))
    prog = loop.Program(**table)
    table["op"][:] = 99           # the caller's arrays change, the Program's do not
    table["int_data"][:] = 1000
    out = []
    loop.Frame(prog).run(out)
    assert out == ["k"]


def test_program_accepts_strided_arrays(loop):
    table = asm([("CONST", [], [], [0], 0), ("STORE", [0], [1], [])], constants=("k",))
    for key in ("op", "in_start", "in_size", "flag_start", "out_start", "out_size", "arg"):
        table[key] = np.repeat(table[key], 2)[::2]
        assert not table[key].flags.c_contiguous
    out = []
    loop.Frame(loop.Program(**table)).run(out)
    assert out == ["k"]


def test_program_is_immutable(loop):
    prog = loop.Program(**_valid())
    with pytest.raises(AttributeError):
        prog.max_stack = 1


def test_program_shared_by_threads(loop):
    code, kw = _countdown_sum(0)
    prog = loop.Program(**asm(code, **kw))
    results, errors = [], []

    def work(n):
        try:
            for i in range(100):
                stack = [n + i]
                loop.Frame(prog).run(stack)
                results.append(stack[0] == (n + i) * (n + i + 1) // 2)
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(t * 10,)) for t in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(results) == 800 and all(results)


# ---- The twins agree --------------------------------------------------------------------

def _doc(obj) -> str:
    # As a reader sees it: Python 3.13 strips a docstring's indentation when it
    # compiles the pure twin, Cython keeps it in the compiled one.
    return inspect.cleandoc(obj.__doc__ or "")


def test_same_api_and_docstrings(backends):
    pure, core = backends
    for cls in ("Program", "Frame"):
        p, c = getattr(pure, cls), getattr(core, cls)
        assert _doc(p) == _doc(c), cls
        public = {k for k in dir(p) if not k.startswith("_")}
        assert public == {k for k in dir(c) if not k.startswith("_")}, cls
        for name in public:
            assert _doc(getattr(p, name)) == _doc(getattr(c, name)), f"{cls}.{name}"
    assert list(inspect.signature(pure.Frame.run).parameters) == \
        list(inspect.signature(core.Frame.run).parameters)


# Random tables, run on both backends: same outputs, same registers, same errors.

N_DATA = 6      # registers random instructions use; loop counters sit above them
MAX_DEPTH = 2


def _sum(*a):
    return sum(a) % 101


def _div(*a):
    return a[0] // a[-1] if a else 1


def _tup(*a):
    return a


def _rev(*a):
    return list(reversed(a))


def _sc_rev(lst):
    lst.reverse()


def _sc_grow(lst):
    lst.append(len(lst))
    return 0


def _sc_skip(lst):
    return 1


def _sc_far(lst):
    return 1000


CALLBACKS = (_sum, _div, _tup, _rev, _sc_rev, _sc_grow, _sc_skip, _sc_far,
             lambda x: x - 1, lambda x: x > 0)
SUM, DIV, TUP, REV, SC_REV, SC_GROW, SC_SKIP, SC_FAR, DEC, GT0 = range(len(CALLBACKS))
CONSTANTS = (0, 1, 2, 5, True, False, None, Future(3), Future(done=False),
             Future(error=Boom))
INT_CONSTANTS = (0, 1, 2, 3)  # indices of loop trip counts 0, 1, 2, 5

reg = st.integers(0, N_DATA - 1)
move = st.sampled_from([0, 0, 0, 1])


@st.composite
def _uses(draw, lo, hi):
    regs = draw(st.lists(reg, min_size=lo, max_size=hi))
    return regs, [draw(move) for _ in regs]


def _counts(side, most=3):
    """How many operands one side of an instruction may have (its OpDef's
    shape), at most ``most``: the bounds for drawing them."""
    return side.min, min(side.max if side.max is not None else most, most)


@st.composite
def _instruction(draw):
    """One random instruction: [name, ins, flags, outs, arg, safe-to-jump-to]."""
    kind = draw(st.sampled_from(["CALL"] * 4 + ["CONST"] * 2 + [
        "DROP", "ASSIGN", "STACKCALL", "WAIT", "JUMP", "JUMPZ", "JUMPNZ"]))
    if kind == "CALL":
        nout = draw(st.integers(0, 3))
        fn = draw(st.sampled_from([SUM, SUM, DIV, TUP] if nout <= 1 else [TUP, REV, SUM]))
        nin = nout if fn in (TUP, REV) and draw(st.booleans()) else draw(st.integers(0, 3))
        ins, flags = draw(_uses(nin, nin))
        return ["CALL", ins, flags, draw(st.lists(reg, min_size=nout, max_size=nout)), fn, True]
    if kind == "CONST":
        return ["CONST", [], [], [draw(reg)], draw(st.integers(0, len(CONSTANTS) - 1)), True]
    d = opcodes.BY_NAME[kind]
    if kind in ("DROP", "ASSIGN"):
        ins, flags = draw(_uses(*_counts(d.inputs)))
        nout = len(ins) if d.leaves_condition else 0  # a condition: in _loop below
        return [kind, ins, flags, draw(st.lists(reg, min_size=nout, max_size=nout)), 0, True]
    if kind == "STACKCALL":
        fn = draw(st.sampled_from([SC_REV, SC_GROW, SC_SKIP, SC_FAR]))
        ins, flags = draw(_uses(0, 3))
        nout = len(ins) + (fn == SC_GROW) + draw(st.sampled_from([0, 0, 0, 0, 1]))
        return ["STACKCALL", ins, flags, draw(st.lists(reg, min_size=nout, max_size=nout)), fn, True]
    if kind == "WAIT":
        ins, flags = draw(_uses(*_counts(d.inputs)))
        return ["WAIT", ins, flags, draw(st.lists(reg, min_size=d.outputs.min,
                                                  max_size=d.outputs.min)), 0, True]
    # A jump: its condition as an input (JUMPZ's without one is _loop's, after
    # an ASSIGN that leaves it), or none for JUMP.
    ins, flags = draw(_uses(d.inputs.max, d.inputs.max))
    return [kind, ins, flags, [], ("fwd", draw(st.integers(0, 6))), True]


def _shift(items, offset):
    return [it[:4] + [("abs", it[4][1] + offset) if isinstance(it[4], tuple) and it[4][0] == "abs"
                      else it[4], it[5]] for it in items]


@st.composite
def _block(draw, depth):
    items = []
    for _ in range(draw(st.integers(0, 6 if depth == 0 else 4))):
        if depth < MAX_DEPTH and draw(st.integers(0, 5)) == 0:
            items.extend(_shift(draw(_loop(depth)), len(items)))
        else:
            items.append(draw(_instruction()))
    return items


@st.composite
def _loop(draw, depth):
    """A counted Loop, lowered the seed's way; its counter registers are its own.

    Jumps may not land in its tail after the decrement, so every backward jump
    follows a decrement: random tables always terminate.
    """
    c, t = N_DATA + 2 * depth, N_DATA + 2 * depth + 1
    carried = draw(st.lists(reg, max_size=3, unique=True))
    init_in, init_flags = draw(_uses(len(carried), len(carried)))
    next_in, next_flags = draw(_uses(len(carried), len(carried)))
    body = _shift(draw(_block(depth + 1)), 4)
    end = 4 + len(body) + 4
    return ([["CONST", [], [], [c], draw(st.sampled_from(INT_CONSTANTS)), True],
             ["CALL", [c], [0], [t], GT0, True],
             ["ASSIGN", [t] + init_in, [1] + init_flags, carried, 0, True],
             ["JUMPZ", [], [], [], ("abs", end), False]]
            + body
            + [["CALL", [c], [0], [c], DEC, True],
               ["CALL", [c], [0], [t], GT0, False],
               ["ASSIGN", [t] + next_in, [1] + next_flags, carried, 0, False],
               ["JUMPNZ", [], [], [], ("abs", 4), False]])


@st.composite
def _programs(draw):
    nload = draw(st.integers(0, 3))
    store_in, store_flags = draw(_uses(0, 3))
    # Fill every data register first, or most tables would stop at an empty read.
    fill = [["CONST", [], [], [r], draw(st.integers(0, len(CONSTANTS) - 1)), True]
            for r in range(nload, N_DATA)]
    items = ([["LOAD", [], [], list(range(nload)), 0, True]] + fill
             + _shift(draw(_block(0)), 1 + len(fill))
             + [["STORE", store_in, store_flags, [], 0, True]])
    n = len(items)
    safe = [i for i, it in enumerate(items) if it[5]] + [n]
    code = []
    for i, (name, ins, flags, outs, arg, _) in enumerate(items):
        if isinstance(arg, tuple):
            kind, x = arg
            arg = x if kind == "abs" else ([p for p in safe if p > i] + [n])[x] \
                if x < len([p for p in safe if p > i]) else n
        elif name == "STACKCALL" and arg == SC_SKIP and i + 2 not in safe:
            arg = SC_REV  # a skip into a loop tail could jump over the decrement
        code.append((name, ins, flags, outs, arg))
    short = draw(st.sampled_from([0] * 9 + [1]))  # now and then too few for LOAD
    stack = draw(st.lists(st.integers(-3, 9), min_size=max(nload - short, 0), max_size=4))
    return code, stack


def _outcome(mod, code, stack):
    table = asm(code, callbacks=CALLBACKS, constants=CONSTANTS,
                register_size=N_DATA + 2 * MAX_DEPTH, future_type=Future)
    try:
        frame = mod.Frame(mod.Program(**table))
    except ValueError as exc:
        return ("invalid", str(exc))
    stack = list(stack)
    try:
        result = frame.run(stack)
    except Exception as exc:
        result = (type(exc), str(exc))
    return (result, stack, frame.registers(), frame.pc, frame.failed, frame.finished)


@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(_programs())
def test_backends_agree_on_random_tables(backends, program):
    code, stack = program
    pure, core = backends
    assert _outcome(pure, code, stack) == _outcome(core, code, stack)


# ---- Very wide instructions --------------------------------------------------------

def test_instructions_wider_than_the_packed_operand_count(loop):
    """More than 65,535 operands on one instruction: the compiled loop's records
    count operands in 16 bits and take a slower path past that; both loops agree."""
    n = 70_000
    regs = list(range(n))
    moved = list(range(n, 2 * n))
    frame, out, res = run(loop, [
        ("LOAD", [], [], regs),
        ("ASSIGN", regs, [1] * n, moved),                          # a wide parallel move
        ("CALL", moved, [0] * n, [2 * n], 0),                      # a wide call, copies
        ("CALL", [2 * n], [1], moved[:3], 1),                      # several outputs
        ("STORE", moved[:3] + [moved[-1]], [1, 1, 1, 0], []),
        ("DROP", moved[3:], [1] * (n - 3), []),
    ], list(range(n)), callbacks=(lambda *a: sum(a), lambda s: (s, s + 1, s + 2)))
    total = n * (n - 1) // 2
    assert res is None and out == [total, total + 1, total + 2, n - 1]
    assert frame.registers() == [None] * (2 * n + 1)


FRAME_ENDINGS_IR = """\
graph(%x : int, %f : Future(int)):
  %c3 : int = prim::Constant[value=3]()
  %c7 : int = prim::Constant[value=7]()
  %a : int = aten::mul(%x, %c3)
  %b : int = aten::add(%a, %c7)
  %v : int = aten::wait(%f)
  %r : int = aten::floordiv(%b, %v)
  return (%r)
"""


def test_a_frame_starts_as_the_first_did_however_the_last_ended(loop):
    """Frames of one Program all start alike: empty registers, scalar registers at
    their initial values, whether the frame before ended, raised, or was dropped
    while suspended (the compiled loop gives a dropped frame's block to the next
    frame of its Program instead of allocating one)."""
    from pyjit.code import Code
    from pyjit.futures import Future as PyjitFuture
    from pyjit.interpreter import program_of
    from pyjit.ir.parser import parse_ir

    code = Code(parse_ir(FRAME_ENDINGS_IR))
    # At O1: s1 = 3 and s3 = 7 are constants, the scalar registers after s3 start at 0.
    program = program_of(code, loop)
    first = loop.Frame(program)
    start = (first.registers(), first.scalars())
    del first

    def done(value):
        fut = PyjitFuture()
        fut.mark_completed(value)
        return fut

    def ended():
        out = [4, done(2)]
        assert loop.Frame(program).run(out) is None and out == [9]   # (4*3+7)//2

    def raised():
        frame = loop.Frame(program)
        with pytest.raises(ZeroDivisionError):
            frame.run([5, done(0)])
        assert frame.failed

    def dropped():
        pending = PyjitFuture()
        frame = loop.Frame(program)
        assert frame.run([6, pending]) is pending
        assert any(r is not None for r in frame.registers())

    for ending in (ended, raised, dropped, ended, dropped, raised, ended):
        ending()
        gc.collect()
        frame = loop.Frame(program)
        assert (frame.registers(), frame.scalars()) == start, ending.__name__
