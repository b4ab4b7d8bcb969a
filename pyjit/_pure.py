"""The run loop in pure Python: the reference that ``pyjit._core`` is tested against.

This module and the compiled ``pyjit._core`` are two renderings of one design
(cytoolz style): same names, signatures, docstrings and semantics, one test suite
(``tests/test_loop.py``) run against both.  Read this one to learn what the loop
does; read ``_core.pyx`` to see how it is made fast.

The design is the seed's ``InterpreterStateImpl::runImpl``::

    while pc < n:
        push the inputs of instruction pc onto the value stack
            (moved out of their register when the input's free flag is set)
        act (call an operator, load a constant, jump, ...)
        pop the outputs into their registers, last output first
        pc = new_pc

for the seed's instructions; the typed tier's read and write their registers
directly.  The instruction set itself is defined in ``pyjit.opcodes``; tables are
checked once by ``pyjit.validate``, so the loop below does not re-check them, and
the rare paths are ``pyjit._slowpath``'s, shared with the compiled loop.

Scalar registers hold the Python value of their kind here (an int within int64, a
float, a bool); an intrinsic calls the library operator ``F[arg]`` on them, which
is what makes this loop the reference for the compiled one's C arithmetic.

Calls between graphs (``INVOKE``) do not recurse: a Frame keeps a stack of
*activations*, one per Program being run (its registers, value stack and pc),
and the loop below switches to the callee's activation at an ``INVOKE`` and back
to the caller's when the callee ends::

    caller  ... INVOKE r1, r2 -> r3 ...         push r1, r2; activation of the callee
    callee  LOAD -> a, b  ...  STORE c          takes r1, r2; gives c
    caller  r3 := pop(); go on after the INVOKE

A WAIT suspends them all (``run([])`` resumes the innermost), an error releases
them all (``Frame.pcs`` says where each was).

While a profile is on (``set_profile``; :mod:`pyjit.profiler` is the interface),
a run counts and times every instruction.  That is a second loop, not a test in
this one: ``_execute`` is compiled twice from its source, with its ``if
PROFILED:`` blocks and without them (``_specialise``).
"""

from __future__ import annotations

import ast
import inspect
import operator
import struct
import textwrap
import time
from typing import Any, Optional

from pyjit import _slowpath as _slow
from pyjit import opcodes as _op
from pyjit.validate import validate_table

__all__ = ["Program", "Frame", "set_max_depth", "get_max_depth", "set_profile",
           "get_profile"]

# Bound once: the loop compares against locals, not module attributes.
_CALL, _STACKCALL, _CONST, _LOAD, _STORE, _DROP = (
    _op.CALL, _op.STACKCALL, _op.CONST, _op.LOAD, _op.STORE, _op.DROP)
_ASSIGN, _JUMP, _JUMPZ, _JUMPNZ, _WAIT, _INVOKE = (
    _op.ASSIGN, _op.JUMP, _op.JUMPZ, _op.JUMPNZ, _op.WAIT, _op.INVOKE)
_INTRINSICS = frozenset(d.code for d in _op.OPCODES if d.implements)
# The rest of the typed tier: moves, jumps, boxes (see _typed).
_TYPED = frozenset(d.code for d in _op.OPCODES if not d.stack) - _INTRINSICS - _op.PACKED
_BOXES = frozenset(_op.BOX.values())
_UNBOX = {_op.UNBOX[kind]: fn for kind, fn in
          (("I", _slow.unbox_int), ("F", _slow.unbox_float), ("B", _slow.unbox_bool))}
# The fused compare-and-branch instructions: jump when test(S[in0], S[in1]).
_COMPARE_JUMPS = {d.code: _op.TESTS[d.test] for d in _op.OPCODES if d.test}


class _Empty:
    """The marker of an empty register (the compiled loop's NULL)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<empty>"


_EMPTY = _Empty()


def _scalar_value(bits: int, kind: str) -> Any:
    """A scalar register's initial value, from its int64 bits, as its kind reads it."""
    if kind == "F":  # the int64 holds the double's bits
        return struct.unpack("<d", struct.pack("<q", bits))[0]
    if kind == "B":
        return bits != 0
    return bits


class Program:
    """An immutable, validated instruction table, shared by any number of Frames.

    The table is a struct of arrays, one entry per instruction ``i``: ``op[i]`` (an
    opcode from ``pyjit.opcodes``), ``arg[i]`` (its operand: a callback, constant or
    jump target), and three list handles into two arenas, as in the seed's
    ``CodeImpl``::

        inputs   int_data [in_start[i]   : in_start[i]   + in_size[i]]   registers
        flags    bool_data[flag_start[i] : flag_start[i] + in_size[i]]   1 = move
        outputs  int_data [out_start[i]  : out_start[i]  + out_size[i]]  registers

    A set flag marks the input's last use: the value is moved out of its register
    instead of copied, so it is freed as early as possible.  Which register file an
    operand's number refers to (objects or scalars) is its opcode's to say.

    Args:
        op, in_start, in_size, flag_start, out_start, out_size, arg: 1-D numpy
            int32 arrays of length n, the instruction columns.
        int_data: 1-D numpy int32 array, the register-number arena.
        bool_data: 1-D numpy uint8 array, the free-flag arena (0 or 1).
        callbacks: tuple of callables ``F``, for CALL, STACKCALL and intrinsics.
        constants: tuple ``K``, for CONST.
        register_size: number of object registers a Frame allocates.
        future_type: the class of futures WAIT accepts; it must have ``done()``
            and ``value()`` (which returns the result or raises the stored error).
        scalar_kinds: one letter per scalar register a Frame allocates, what it
            holds: ``I`` an int64, ``F`` a double, ``B`` a bool.
        scalar_init: 1-D numpy int64 array, the scalar registers' values when a run
            starts (a double's bits for a float register); zeros by default.
        preload: ``(register, value)`` pairs: object registers that hold ``value``
            when a run starts (the constants of an optimised Code).

    The arrays are copied (so later changes by the caller have no effect) and the
    whole table is validated once, by ``pyjit.validate.validate_table``.

    Raises:
        ValueError: the table is invalid; the message names the instruction.
    """

    __slots__ = ("_n", "_register_size", "_max_stack", "_future_type", "_callbacks",
                 "_constants", "_code", "_takes_condition", "_scalar_size",
                 "_scalar_init", "_preload", "_linked")

    def __init__(self, op, in_start, in_size, flag_start, out_start, out_size, arg,
                 int_data, bool_data, callbacks, constants, register_size, future_type,
                 scalar_kinds="", scalar_init=None, preload=()):
        t = validate_table(op, in_start, in_size, flag_start, out_start, out_size, arg,
                           int_data, bool_data, callbacks, constants, register_size,
                           future_type, scalar_kinds, scalar_init, preload)
        self._n = len(t.op)
        self._register_size = t.register_size
        self._max_stack = t.max_stack
        self._future_type = t.future_type
        self._callbacks = t.callbacks
        self._constants = t.constants
        self._scalar_size = len(t.scalar_kinds)
        self._scalar_init = [_scalar_value(b, k)
                             for b, k in zip(t.scalar_init.tolist(), t.scalar_kinds)]
        self._preload = t.preload
        # INVOKE's callees by arg, linked the first time each runs.
        self._linked = [None] * len(t.callbacks)
        # The table's columns, bound once as lists, read by the loop as one
        # record per instruction: (opcode, arg, inputs, outputs), with the inputs
        # as (register, move) pairs, and the outputs last-first for the seed's
        # instructions (they are popped) and in order for the typed tier.
        ops, ints = t.op.tolist(), t.int_data.tolist()
        flags = [bool(f) for f in t.bool_data.tolist()]
        inputs = [tuple(zip(ints[s:s + k], flags[f:f + k])) for s, f, k in
                  zip(t.in_start.tolist(), t.flag_start.tolist(), t.in_size.tolist())]
        outputs = [tuple(ints[s:s + k]) for s, k in
                   zip(t.out_start.tolist(), t.out_size.tolist())]
        outputs = [outs[::-1] if _op.BY_CODE[o].stack else outs
                   for o, outs in zip(ops, outputs)]
        self._code = list(zip(ops, t.arg.tolist(), inputs, outputs))
        # A JUMPZ/JUMPNZ without inputs pops the condition its ASSIGN left;
        # a STACKCALL may not jump onto one (the stack would be empty).
        self._takes_condition = [_op.BY_CODE[o].stack_condition and not ins
                                 for o, ins in zip(ops, inputs)]

    def _takes_condition_at(self, i: int) -> bool:
        return self._takes_condition[i]

    def packed_opcodes(self) -> list:
        """The opcode each instruction runs as: the table's, or the packed form
        (``CALL1``, ``REM_POW2``... of :mod:`pyjit.opcodes`) that the loop runs
        in its place.  A list of n ints."""
        return [opc for opc, _, _, _ in self._code]  # this loop packs nothing

    # The table's sizes, read-only (ints).
    n_instructions = property(
        operator.attrgetter("_n"),
        doc="Number of instructions n; pc runs over [0, n], n meaning finished.")
    register_size = property(
        operator.attrgetter("_register_size"),
        doc="Number of object registers in each Frame's register file.")
    scalar_size = property(operator.attrgetter("_scalar_size"),
                           doc="Number of scalar registers in each Frame.")
    max_stack = property(
        operator.attrgetter("_max_stack"),
        doc="Value-stack slots a run needs (the deepest push of any instruction).")

    def __repr__(self) -> str:
        return (f"<Program n_instructions={self._n} register_size={self._register_size} "
                f"scalar_size={self._scalar_size} max_stack={self._max_stack}>")


class _Activation:
    """One run of one Program inside a Frame: its registers, scalar registers and
    value stack, and its pc (while a callee runs: the INVOKE that called it)."""

    __slots__ = ("program", "registers", "scalars", "values", "pc")

    def __init__(self, program: Program) -> None:
        self.program = program
        self.registers = [_EMPTY] * program._register_size
        for r, value in program._preload:
            self.registers[r] = value
        self.scalars = list(program._scalar_init)
        self.values: list = []
        self.pc = 0

    def release(self) -> None:
        """Let go of every value it holds (its pc stays, for the traceback)."""
        self.values.clear()
        self.registers[:] = [_EMPTY] * len(self.registers)


# How deep calls may nest: activations a Frame may hold at once.
_max_depth = _slow.DEFAULT_MAX_DEPTH


def set_max_depth(n: int) -> None:
    """Set how many activations a Frame may hold at once: one for the run, plus one
    per INVOKE in progress.  An INVOKE beyond it raises RecursionError."""
    global _max_depth
    _max_depth = _slow.check_max_depth(n)


def get_max_depth() -> int:
    """How many activations a Frame may hold at once (see ``set_max_depth``)."""
    return _max_depth


#: Python frames a run must find left under ``sys.getrecursionlimit()`` to start:
#: enough for the loop's own frames and for locating and reporting an error.
RECURSION_MARGIN = 40


def _recurse(n: int) -> None:
    """Nest ``n`` calls deep: RecursionError if fewer frames than that are left."""
    if n:
        _recurse(n - 1)


# The tallies of the profile in progress (see set_profile), or None.
_profile: Optional[dict] = None


def set_profile(tallies: Optional[dict]) -> None:
    """Profile the runs that start (or resume) from now on into ``tallies``, a dict
    the loop fills with ``{program: (counts, times)}``: per instruction ``pc`` of
    ``program``, ``counts[pc]`` its executions and ``times[pc]`` the nanoseconds
    from its start to the next instruction's start (``perf_counter_ns``), and at
    ``[n_instructions]`` the time between activations (a run's start and resumes,
    calls and returns).  ``None`` stops profiling.  :mod:`pyjit.profiler` is the
    interface; a run that is not profiled runs the loop with no profiling in it."""
    global _profile
    _profile = _slow.check_profile(tallies)


def get_profile() -> Optional[dict]:
    """The tallies runs are profiled into (see ``set_profile``), or None."""
    return _profile


def _tally(tallies: dict, prog: "Program") -> tuple:
    """``prog``'s ``(counts, times)`` in ``tallies``, made on its first run."""
    pair = tallies.get(prog)
    if pair is None:
        pair = tallies[prog] = ([0] * (prog._n + 1), [0] * (prog._n + 1))
    return pair


class Frame:
    """The register file and value stack of one run of a Program.

    A Frame runs once, from pc 0 to the end; it may suspend at a WAIT and be
    resumed any number of times.  After an error it is unusable.  Frames are
    cheap: make one per run.  A Frame is not meant to be shared between threads
    (its Program is).

    An INVOKE runs its callee in a new *activation* of the same frame: its own
    registers and value stack, on a stack of activations that the loop walks
    without recursing.  The run's own activation is the outermost.

    Args:
        program: the Program to run.
    """

    __slots__ = ("_program", "_acts", "_failed", "_running")

    def __init__(self, program: Program):
        if not isinstance(program, Program):
            raise TypeError(f"Frame() expects a Program, got {type(program).__name__}")
        self._program = program
        self._acts = [_Activation(program)]
        self._failed = False
        self._running = False

    @property
    def pc(self) -> int:
        """The next instruction of the outermost activation: a suspended WAIT (or the
        INVOKE whose callee is suspended), the failed instruction (or the INVOKE
        whose callee failed), or n."""
        return self._acts[0].pc

    @property
    def pcs(self) -> tuple:
        """The pc of every activation, outermost first: each caller's is the INVOKE
        that runs the next one.  After an error, the activations it unwound."""
        return tuple(a.pc for a in self._acts)

    @property
    def depth(self) -> int:
        """How many activations the frame holds: 1, plus one per call in progress
        (while suspended, or unwound by the error that failed the frame)."""
        return len(self._acts)

    @property
    def failed(self) -> bool:
        """True once a run raised; the frame has released everything and cannot run."""
        return self._failed

    @property
    def finished(self) -> bool:
        """True once the run reached the end (pc == n)."""
        return self._acts[0].pc >= self._program._n

    @property
    def program(self) -> Program:
        """The Program this frame runs."""
        return self._program

    def registers(self) -> list:
        """A copy of the outermost activation's object registers, None for an empty
        register (for debugging)."""
        return [None if v is _EMPTY else v for v in self._acts[0].registers]

    def scalars(self) -> list:
        """A copy of the outermost activation's scalar registers, each as its kind
        reads it (for debugging)."""
        return list(self._acts[0].scalars)

    def run(self, stack: list) -> Any:
        """Run from ``self.pc`` until the end or until a WAIT meets a pending future.

        LOAD pops the graph's inputs off the end of ``stack``; STORE appends its
        outputs: inputs on the list before, outputs on it after (the seed's
        contract).  Running a finished frame does nothing.

        Args:
            stack: the caller's value list, changed in place.

        Returns:
            None when the run reached the end; otherwise the future a WAIT found
            not done.  The frame then keeps its pc at the WAIT: once the future is
            done, call ``run([])`` again to resume.

        Raises:
            Exception: whatever an instruction raised, the original object.  The
                frame's pc stays at the failing instruction, every register and
                stack value is released, and the frame is marked failed.
            RuntimeError: the frame failed earlier, or is already running (a
                callback called ``run`` on its own frame).
            TypeError: ``stack`` is not a list.
        """
        if type(stack) is not list or self._failed or self._running:
            _slow.refuse_run(stack, self._failed, self._running, self.pc)
        # Here the compiled loop checks its C stack; this one keeps Python frames
        # in hand instead, so that re-entry through an operator fails here, with
        # room left to report it, not deep inside a run or its error's report.
        try:
            _recurse(RECURSION_MARGIN)
        except RecursionError:
            raise _slow.stack_used_up("Python's recursion limit") from None
        self._running = True
        tallies = _profile  # read once: the profile may end while the run goes on
        try:
            if tallies is None:
                return self._execute(stack, None)
            return self._execute_profiled(stack, tallies)
        except BaseException as exc:
            if not self._failed:
                self._fail_escaped(exc)
            raise
        finally:
            self._running = False

    def _fail_escaped(self, exc: BaseException) -> None:
        """Mark the frame failed for an exception that skipped ``_execute``'s own
        except clause: CPython 3.11 to 3.13 can look the handler up for the wrong
        instruction when a signal handler raises at a loop's backward jump
        (CPython issues 108214 and 130279).  Does what that clause does: records
        the failing pc (read from the traceback) and releases every value."""
        tb = exc.__traceback__
        while tb is not None and tb.tb_frame.f_code not in _EXECUTE_CODES:
            tb = tb.tb_next
        if tb is not None:
            frame_locals = tb.tb_frame.f_locals
            act = frame_locals.get("act")
            if act is not None:
                act.pc = frame_locals.get("pc", act.pc)
            tb.tb_frame.clear()  # its locals (the value stacks) would outlive the error
        for a in self._acts:
            a.release()
        self._failed = True

    # _execute is compiled twice (see _specialise): with PROFILED false, the
    # normal loop, where the `if PROFILED:` blocks do not exist at all; with it
    # true, _execute_profiled, which times every instruction into `tallies`.
    def _execute(self, top: list, tallies: Optional[dict]) -> Any:
        acts = self._acts
        EMPTY = _EMPTY
        # Opcodes as locals: the comparisons below are the loop's dispatch.
        CALL, STACKCALL, CONST, LOAD, STORE, DROP = (
            _CALL, _STACKCALL, _CONST, _LOAD, _STORE, _DROP)
        ASSIGN, JUMP, JUMPZ, JUMPNZ, WAIT, INVOKE = (
            _ASSIGN, _JUMP, _JUMPZ, _JUMPNZ, _WAIT, _INVOKE)
        INTRINSICS, COMPARE_JUMPS, TYPED = _INTRINSICS, _COMPARE_JUMPS, _TYPED
        returning = False  # an activation just ended: its INVOKE takes the outputs
        act = acts[-1]
        pc = act.pc
        v = None  # the one temporary that may hold a value when an error unwinds
        if PROFILED:
            # Each instruction's time runs from its start to the next one's:
            # `last` is the slot the clock is running for, `t` when it started.
            clock = time.perf_counter_ns
            t = clock()
            counts, times = _tally(tallies, act.program)
            last = act.program._n
        try:
            while True:
                # (Re)enter the innermost activation: at the start, after an
                # INVOKE, after a callee's end.  The caller's value stack is where
                # LOAD and STORE take and give values.
                act = acts[-1]
                prog = act.program
                n = prog._n
                if PROFILED:
                    now = clock()
                    times[last] += now - t
                    t = now
                    counts, times = _tally(tallies, prog)
                    last = n  # the call, return or resume, until an instruction starts
                code, F, K = prog._code, prog._callbacks, prog._constants
                regs, S = act.registers, act.scalars
                vs = act.values  # empty between instructions but for a condition
                push, pop = vs.append, vs.pop
                caller = acts[-2].values if len(acts) > 1 else top
                pc = act.pc
                if returning:
                    returning = False
                    outputs = code[pc][3]
                    if len(vs) != len(outputs):
                        raise _slow.bad_return(code[pc][1], len(vs), len(outputs))
                    for r in outputs:
                        regs[r] = pop()
                    pc += 1
                # Not `while pc < n`: on Python 3.13 an exception a signal handler
                # raises at the backward jump of a loop whose test is its
                # condition skips this function's except clause (CPython issue
                # 130279), and the frame would not be marked failed.  A test
                # inside the body is safe.
                while True:
                    if PROFILED:
                        now = clock()
                        times[last] += now - t
                        t = now
                        last = pc
                        if pc < n:
                            counts[pc] += 1
                        else:
                            last = n
                    if pc >= n:
                        # The activation reached its end.
                        act.pc = pc
                        if len(acts) == 1:
                            return None
                        acts.pop().release()   # what the callee left: its constants
                        returning = True
                        break
                    opc, arg, inputs, outputs = code[pc]
                    new_pc = pc + 1

                    # -- the typed tier: registers read and written directly ----
                    if opc in INTRINSICS:
                        S[outputs[0]] = F[arg](*[S[r] for r, _ in inputs])
                        pc = new_pc
                        continue
                    if opc in COMPARE_JUMPS:
                        (a, _), (b, _) = inputs
                        if COMPARE_JUMPS[opc](S[a], S[b]):
                            new_pc = arg
                        pc = new_pc
                        continue
                    if opc in TYPED:
                        pc = _typed(opc, arg, inputs, outputs, pc, regs, S)
                        continue

                    # -- the seed's instructions: through the value stack --------
                    for r, move in inputs:
                        v = regs[r]
                        if v is EMPTY:
                            raise _slow.empty_register(r, pc)
                        if move:
                            regs[r] = EMPTY
                        push(v)
                    v = None
                    if opc == CALL:
                        v = F[arg](*vs)
                        vs.clear()
                        if len(outputs) == 1:
                            push(v)
                        elif outputs:
                            vs.extend(_slow.unpack(v, len(outputs), arg))
                        v = None
                    elif opc == CONST:
                        push(K[arg])
                    elif opc == DROP:
                        vs.clear()
                    elif opc == ASSIGN:
                        pass  # the pops below do the parallel move; a condition stays
                    elif opc == JUMPNZ:
                        if pop():
                            new_pc = arg
                    elif opc == JUMPZ:
                        if not pop():
                            new_pc = arg
                    elif opc == JUMP:
                        new_pc = arg
                    elif opc == STACKCALL:
                        lst = vs.copy()
                        vs.clear()
                        new_pc = _slow.stackcall(F[arg], arg, lst, pc, n,
                                                 prog._takes_condition_at, len(outputs))
                        vs.extend(lst)
                    elif opc == WAIT:
                        v = pop()
                        if not isinstance(v, prog._future_type):
                            raise _slow.not_a_future(prog._future_type, v)
                        if not v.done():
                            (r, move), = inputs
                            if move:  # keep the future in its register for the resume
                                regs[r] = v
                            act.pc = pc
                            if PROFILED:  # the resume runs the WAIT again: count it once
                                times[last] += clock() - t
                                counts[pc] -= 1
                            return v
                        push(v.value())
                        v = None
                    elif opc == INVOKE:
                        # The inputs stay on this activation's stack for the
                        # callee's LOAD; the outputs are popped when it ends.
                        callee = prog._linked[arg]
                        if callee is None:  # F[arg]() is called once per Program
                            callee = prog._linked[arg] = _slow.link(F[arg], Program, arg)
                        if len(acts) >= _max_depth:
                            raise _slow.too_deep(_max_depth)
                        act.pc = pc
                        acts.append(_Activation(callee))
                        break
                    elif opc == LOAD:
                        k = len(outputs)
                        if len(caller) < k:
                            raise _slow.load_short(k, len(caller))
                        if len(acts) > 1 and len(caller) != k:  # a callee takes them all
                            raise _slow.load_mismatch(k, len(caller))
                        if k:
                            vs.extend(caller[-k:])
                            del caller[-k:]
                    elif opc == STORE:
                        if len(acts) > 1:  # no more than the INVOKE takes
                            room = len(acts[-2].program._code[acts[-2].pc][3]) - len(caller)
                            if len(vs) > room:
                                raise _slow.store_too_many(len(vs), room)
                        caller.extend(vs)
                        vs.clear()
                    for r in outputs:
                        regs[r] = pop()
                    pc = new_pc
        except BaseException:
            if PROFILED:
                times[last] += clock() - t
            # The traceback keeps this Python frame, and so its locals, alive:
            # clear them here, or the values would outlive the error.
            v = None
            act.pc = pc
            for a in acts:
                a.release()
            self._failed = True
            raise


class _Flags(ast.NodeTransformer):
    """Replaces each name in ``flags`` by its constant."""

    def __init__(self, flags: dict) -> None:
        self.flags = flags

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id in self.flags:
            return ast.copy_location(ast.Constant(self.flags[node.id]), node)
        return node


def _specialise(fn, **flags):
    """``fn`` compiled again from its source with each name in ``flags`` a
    constant: the pure loop's counterpart of a Cython compile-time flag.  CPython
    drops an ``if False:`` block when it compiles, so the variant with a flag off
    holds not even a test of it.  Line numbers and file stay the source's, for
    tracebacks and coverage."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    ast.increment_lineno(tree, fn.__code__.co_firstlineno - 1)
    tree.body[0].decorator_list = []
    tree = ast.fix_missing_locations(_Flags(flags).visit(tree))
    namespace: dict = {}
    exec(compile(tree, fn.__code__.co_filename, "exec"), fn.__globals__, namespace)
    return namespace[fn.__name__]


Frame._execute_profiled = _specialise(Frame._execute, PROFILED=True)
Frame._execute = _specialise(Frame._execute, PROFILED=False)
_EXECUTE_CODES = (Frame._execute.__code__, Frame._execute_profiled.__code__)


def _typed(opc: int, arg: int, inputs, outputs, pc: int, regs: list, S: list) -> int:
    """Instruction ``pc`` of the typed tier, a move or a jump (intrinsics and
    compare-and-branch are in the loop itself); returns the next pc."""
    if opc == _op.MOVE:
        values = [S[r] for r, _ in inputs]
        for r, x in zip(outputs, values):
            S[r] = x
    elif opc == _op.LOOP_BACK:
        (i, _), (n, _), (c, _) = inputs
        S[outputs[0]] = count = S[i] + 1
        if count < S[n] and S[c]:
            return arg
    elif opc == _op.LOOP_ENTER:
        (n, _), (c, _) = inputs
        S[outputs[0]] = 0
        if not (0 < S[n] and S[c]):
            return arg
    elif opc == _op.JT:
        if S[inputs[0][0]]:
            return arg
    elif opc == _op.JF:
        if not S[inputs[0][0]]:
            return arg
    elif opc in _BOXES:
        regs[outputs[0]] = S[inputs[0][0]]
    else:  # an UNBOX
        (r, move), = inputs
        v = regs[r]
        if v is _EMPTY:
            raise _slow.empty_register(r, pc)
        if move:
            regs[r] = _EMPTY
        S[outputs[0]] = _UNBOX[opc](v)
    return pc + 1
