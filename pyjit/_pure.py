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

The instruction set itself is defined in ``pyjit.opcodes``; tables are checked
once by ``pyjit.validate``, so the loop below does not re-check them.
"""

from __future__ import annotations

from operator import index as _index
from typing import Any

from pyjit import opcodes as _op
from pyjit.validate import validate_table

__all__ = ["Program", "Frame"]

# Bound once: the loop compares against locals, not module attributes.
_CALL, _STACKCALL, _CONST, _LOAD, _STORE, _DROP = (
    _op.CALL, _op.STACKCALL, _op.CONST, _op.LOAD, _op.STORE, _op.DROP)
_ASSIGN, _JUMP, _JUMPZ, _JUMPNZ, _WAIT = _op.ASSIGN, _op.JUMP, _op.JUMPZ, _op.JUMPNZ, _op.WAIT


class _Empty:
    """The marker of an empty register (the compiled loop's NULL)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<empty>"


_EMPTY = _Empty()


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
    instead of copied, so it is freed as early as possible.

    Args:
        op, in_start, in_size, flag_start, out_start, out_size, arg: 1-D numpy
            int32 arrays of length n, the instruction columns.
        int_data: 1-D numpy int32 array, the register-number arena.
        bool_data: 1-D numpy uint8 array, the free-flag arena (0 or 1).
        callbacks: tuple of callables ``F``, for CALL and STACKCALL.
        constants: tuple ``K``, for CONST.
        register_size: number of registers a Frame allocates.
        future_type: the class of futures WAIT accepts; it must have ``done()``
            and ``value()`` (which returns the result or raises the stored error).

    The arrays are copied (so later changes by the caller have no effect) and the
    whole table is validated once, by ``pyjit.validate.validate_table``.

    Raises:
        ValueError: the table is invalid; the message names the instruction.
    """

    __slots__ = ("_n", "_register_size", "_max_stack", "_future_type", "_callbacks",
                 "_constants", "_code", "_takes_condition")

    def __init__(self, op, in_start, in_size, flag_start, out_start, out_size, arg,
                 int_data, bool_data, callbacks, constants, register_size, future_type):
        t = validate_table(op, in_start, in_size, flag_start, out_start, out_size, arg,
                           int_data, bool_data, callbacks, constants, register_size,
                           future_type)
        self._n = len(t.op)
        self._register_size = t.register_size
        self._max_stack = t.max_stack
        self._future_type = t.future_type
        self._callbacks = t.callbacks
        self._constants = t.constants
        # The table's columns, bound once as lists, read by the loop as one
        # record per instruction: (opcode, arg, inputs, outputs), with the inputs
        # as (register, move) pairs and the outputs last-first, as they are popped.
        ops, ints = t.op.tolist(), t.int_data.tolist()
        flags = [bool(f) for f in t.bool_data.tolist()]
        inputs = [tuple(zip(ints[s:s + k], flags[f:f + k])) for s, f, k in
                  zip(t.in_start.tolist(), t.flag_start.tolist(), t.in_size.tolist())]
        outputs = [tuple(reversed(ints[s:s + k])) for s, k in
                   zip(t.out_start.tolist(), t.out_size.tolist())]
        self._code = list(zip(ops, t.arg.tolist(), inputs, outputs))
        # A JUMPZ/JUMPNZ without inputs pops the condition its ASSIGN left;
        # a STACKCALL may not jump onto one (the stack would be empty).
        self._takes_condition = [o in (_JUMPZ, _JUMPNZ) and not ins
                                 for o, ins in zip(ops, inputs)]

    @property
    def n_instructions(self) -> int:
        """Number of instructions n; pc runs over [0, n], n meaning finished."""
        return self._n

    @property
    def register_size(self) -> int:
        """Number of registers in each Frame's register file."""
        return self._register_size

    @property
    def max_stack(self) -> int:
        """Value-stack slots a run needs (the deepest push of any instruction)."""
        return self._max_stack

    def __repr__(self) -> str:
        return (f"<Program n_instructions={self._n} register_size={self._register_size} "
                f"max_stack={self._max_stack}>")


class Frame:
    """The register file and value stack of one run of a Program.

    A Frame runs once, from pc 0 to the end; it may suspend at a WAIT and be
    resumed any number of times.  After an error it is unusable.  Frames are
    cheap: make one per run.  A Frame is not meant to be shared between threads
    (its Program is).

    Args:
        program: the Program to run.
    """

    __slots__ = ("_program", "_registers", "_pc", "_failed", "_running")

    def __init__(self, program: Program):
        if not isinstance(program, Program):
            raise TypeError(f"Frame() expects a Program, got {type(program).__name__}")
        self._program = program
        self._registers = [_EMPTY] * program._register_size
        self._pc = 0
        self._failed = False
        self._running = False

    @property
    def pc(self) -> int:
        """The next instruction to run: a suspended WAIT, the failed instruction, or n."""
        return self._pc

    @property
    def failed(self) -> bool:
        """True once a run raised; the frame has released everything and cannot run."""
        return self._failed

    @property
    def finished(self) -> bool:
        """True once the run reached the end (pc == n)."""
        return self._pc >= self._program._n

    @property
    def program(self) -> Program:
        """The Program this frame runs."""
        return self._program

    def registers(self) -> list:
        """A copy of the register file, None for an empty register (for debugging)."""
        return [None if v is _EMPTY else v for v in self._registers]

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
        if type(stack) is not list:
            raise TypeError(f"run() expects a list, got {type(stack).__name__}")
        if self._failed:
            raise RuntimeError(f"frame is unusable after an error (it failed at pc {self._pc})")
        if self._running:
            raise RuntimeError("frame is already running (run() called from one of its callbacks)")
        self._running = True
        try:
            return self._execute(stack)
        finally:
            self._running = False

    def _execute(self, caller: list) -> Any:
        prog = self._program
        n = prog._n
        code, F, K = prog._code, prog._callbacks, prog._constants
        regs = self._registers
        EMPTY = _EMPTY
        # Opcodes as locals: the comparisons below are the loop's dispatch.
        CALL, STACKCALL, CONST, LOAD, STORE, DROP = (
            _CALL, _STACKCALL, _CONST, _LOAD, _STORE, _DROP)
        ASSIGN, JUMP, JUMPZ, JUMPNZ, WAIT = _ASSIGN, _JUMP, _JUMPZ, _JUMPNZ, _WAIT
        vs: list = []  # the value stack; empty between instructions but for a condition
        push, pop = vs.append, vs.pop
        pc = self._pc
        v = None  # the one temporary that may hold a value when an error unwinds
        try:
            while pc < n:
                opc, arg, inputs, outputs = code[pc]
                for r, move in inputs:
                    v = regs[r]
                    if v is EMPTY:
                        raise RuntimeError(f"register {r} read at pc {pc} is empty")
                    if move:
                        regs[r] = EMPTY
                    push(v)
                v = None
                new_pc = pc + 1
                if opc == CALL:
                    v = F[arg](*vs)
                    vs.clear()
                    if len(outputs) == 1:
                        push(v)
                    elif outputs:
                        _unpack(v, len(outputs), arg, vs)
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
                    new_pc = _stackcall(prog, pc, vs, len(outputs))
                elif opc == WAIT:
                    v = pop()
                    if not isinstance(v, prog._future_type):
                        raise TypeError(f"WAIT expects a {prog._future_type.__name__}, "
                                        f"got {type(v).__name__}")
                    if not v.done():
                        (r, move), = inputs
                        if move:  # keep the future in its register for the resume
                            regs[r] = v
                        self._pc = pc
                        return v
                    push(v.value())
                    v = None
                elif opc == LOAD:
                    k = len(outputs)
                    if len(caller) < k:
                        raise TypeError(f"LOAD takes {k} values but the stack holds "
                                        f"{len(caller)}")
                    if k:
                        vs.extend(caller[-k:])
                        del caller[-k:]
                elif opc == STORE:
                    caller.extend(vs)
                    vs.clear()
                for r in outputs:
                    regs[r] = pop()
                pc = new_pc
        except BaseException:
            # The traceback keeps this Python frame, and so its locals, alive:
            # clear them here, or the values would outlive the error.
            v = None
            vs.clear()
            regs[:] = [EMPTY] * len(regs)
            self._pc = pc
            self._failed = True
            raise
        self._pc = pc
        return None


def _unpack(result: Any, nout: int, arg: int, vs: list) -> None:
    """Push the ``nout`` values of an operator's tuple or list result."""
    if not isinstance(result, (tuple, list)):
        raise TypeError(f"operator F[{arg}] returned {type(result).__name__}, "
                        f"expected a tuple or list of {nout} values")
    if type(result) is not tuple and type(result) is not list:
        result = tuple(result)  # a subclass's __len__ may not count what it holds
    if len(result) != nout:
        raise TypeError(f"operator F[{arg}] returned {len(result)} values, expected {nout}")
    vs.extend(result)


def _stackcall(prog: Program, pc: int, vs: list, nout: int) -> int:
    """Run a STACKCALL: move the inputs into a list, call, return the new pc."""
    arg = prog._code[pc][1]
    lst = vs.copy()
    vs.clear()
    try:
        off = prog._callbacks[arg](lst)
        target = pc + 1 + (0 if off is None else _index(off))
        if not 0 <= target <= prog._n:
            raise RuntimeError(f"STACKCALL F[{arg}] jumped to {target}, outside [0, {prog._n}]")
        if target < prog._n and prog._takes_condition[target]:
            raise RuntimeError(f"STACKCALL F[{arg}] jumped to {target}, a conditional jump "
                               f"that expects a condition on the stack")
        if len(lst) != nout:
            raise TypeError(f"STACKCALL F[{arg}] left {len(lst)} values, expected {nout}")
    except BaseException:
        lst.clear()  # the callback may keep the list: its values are ours to free
        raise
    vs.extend(lst)
    return target
