"""The instruction-table validator: the one check both run loops trust.

``pyjit._core`` runs the table with raw C pointers and no per-instruction bounds
checks, so every fact the loop relies on must be proved here, once, when a
``Program`` is built.  ``pyjit._pure`` calls the same function, so the two loops
accept exactly the same tables and reject the rest with the same message.

What the loop relies on, and so what is checked, in this order:

1. the Python-level arguments: ``register_size`` a non-negative int, ``callbacks``
   a tuple of callables, ``constants`` a tuple, ``future_type`` a class;
2. the nine arrays: 1-D numpy arrays of exactly int32 (``bool_data``: uint8), the
   seven per-instruction columns of one length ``n``;
3. known opcodes; non-negative list sizes; every list handle inside its arena
   (``in``/``out`` in ``int_data``, the input flags in ``bool_data``);
4. every flag 0 or 1, every register number in ``[0, register_size)``;
5. the shape of each opcode (how many inputs and outputs it takes);
6. operands: callback and constant indices in range, jump targets in ``[0, n]``;
7. stack discipline: the value stack is empty between instructions, except
   that a Loop-style ``ASSIGN`` (one input more than outputs) leaves the loop
   condition for the ``JUMPZ``/``JUMPNZ`` with no inputs right after it::

       ASSIGN  out=[a, b]  in=[c, x, y]     # stack: c
       JUMPNZ  in=[]       -> body          # pops c

   Such a jump must be preceded by such an ``ASSIGN`` and may not be a jump
   target (control would arrive with an empty stack).  A ``STACKCALL`` jump is
   only known at run time; the loops check it there.

Every failure is a ``ValueError`` that names the instruction index when there is
one: ``"instruction 4 (JUMPZ): jump target 12 is outside [0, 10]"``.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from pyjit import opcodes as _op

__all__ = ["Table", "validate_table"]

_NAMES = {op.code: op.name for op in _op.OPCODES}

# (min inputs, max inputs, min outputs, max outputs); None means unbounded.
# ASSIGN's in/out relation and the zero-input jumps are checked separately.
_SHAPES: dict[int, tuple[int, int | None, int, int | None]] = {
    _op.CALL: (0, None, 0, None),
    _op.STACKCALL: (0, None, 0, None),
    _op.CONST: (0, 0, 1, 1),
    _op.LOAD: (0, 0, 0, None),
    _op.STORE: (0, None, 0, 0),
    _op.DROP: (0, None, 0, 0),
    _op.ASSIGN: (0, None, 0, None),
    _op.JUMP: (0, 0, 0, 0),
    _op.JUMPZ: (0, 1, 0, 0),
    _op.JUMPNZ: (0, 1, 0, 0),
    _op.WAIT: (1, 1, 1, 1),
}
assert set(_SHAPES) == set(_NAMES), "every opcode needs a shape"

_COLUMNS = ("op", "in_start", "in_size", "flag_start", "out_start", "out_size", "arg")


class Table(NamedTuple):
    """A validated instruction table: private, contiguous, read-only copies.

    The arrays are copies made before any check, so what was validated is
    exactly what the loop runs, whatever the caller does to its own arrays later.
    """

    op: np.ndarray
    in_start: np.ndarray
    in_size: np.ndarray
    flag_start: np.ndarray
    out_start: np.ndarray
    out_size: np.ndarray
    arg: np.ndarray
    int_data: np.ndarray
    bool_data: np.ndarray
    callbacks: tuple
    constants: tuple
    register_size: int
    future_type: type
    #: Slots of value stack the loop needs: the deepest any instruction pushes.
    max_stack: int


def _fail(i: int, op: int, what: str) -> ValueError:
    return ValueError(f"instruction {i} ({_NAMES.get(op, op)}): {what}")


def _copy_array(name: str, a: Any, dtype: type) -> np.ndarray:
    """A private C-contiguous read-only copy of ``a``, which must be 1-D of ``dtype``."""
    want = np.dtype(dtype)
    if not isinstance(a, np.ndarray):
        raise ValueError(f"{name}: expected a 1-D numpy array of {want}, got {type(a).__name__}")
    # dtype equality includes byte order: the loop reads native-order ints.
    if a.dtype != want:
        raise ValueError(f"{name}: expected dtype {want}, got {a.dtype}")
    if a.ndim != 1:
        raise ValueError(f"{name}: expected a 1-D array, got {a.ndim} dimensions")
    # np.ascontiguousarray would return `a` itself when it is already contiguous;
    # the loop must not see later writes by the caller, so always copy.
    c = np.array(a, dtype=want, order="C", copy=True)
    c.setflags(write=False)
    return c


def _gather(start: np.ndarray, size: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Flatten the lists ``arena[start[i]:start[i]+size[i]]`` of all instructions.

    Returns ``(owner, index)``: for every element of every list, the instruction
    it belongs to and its index in the arena, in instruction order.
    """
    owner = np.repeat(np.arange(len(start)), size)
    # Position of each element inside its own list: 0, 1, ..., size[i]-1.
    first = np.repeat(np.cumsum(size) - size, size)
    index = np.repeat(start.astype(np.int64), size) + (np.arange(len(owner)) - first)
    return owner, index


def _first(mask: np.ndarray) -> int | None:
    hit = np.flatnonzero(mask)
    return int(hit[0]) if hit.size else None


def validate_table(op, in_start, in_size, flag_start, out_start, out_size, arg,
                   int_data, bool_data, callbacks, constants, register_size,
                   future_type) -> Table:
    """Check an instruction table completely and return a private copy of it.

    Args: exactly those of ``Program`` (see ``pyjit._pure.Program``).

    Returns:
        A ``Table`` of read-only contiguous copies, plus ``max_stack``.

    Raises:
        ValueError: naming the first problem found (and its instruction index).
    """
    # 1. Python-level arguments.
    if isinstance(register_size, (bool, np.bool_)) or not isinstance(register_size, (int, np.integer)):
        raise ValueError(f"register_size: expected an int, got {type(register_size).__name__}")
    register_size = int(register_size)
    if register_size < 0:
        raise ValueError(f"register_size: must be >= 0, got {register_size}")
    if type(callbacks) is not tuple:
        raise ValueError(f"callbacks: expected a tuple, got {type(callbacks).__name__}")
    for j, f in enumerate(callbacks):
        if not callable(f):
            raise ValueError(f"callbacks[{j}]: {type(f).__name__} object is not callable")
    if type(constants) is not tuple:
        raise ValueError(f"constants: expected a tuple, got {type(constants).__name__}")
    if not isinstance(future_type, type):
        raise ValueError(f"future_type: expected a class, got {type(future_type).__name__}")

    # 2. The arrays: copy first, then check the copies.
    cols = [_copy_array(name, a, np.int32) for name, a in
            zip(_COLUMNS, (op, in_start, in_size, flag_start, out_start, out_size, arg))]
    idata = _copy_array("int_data", int_data, np.int32)
    bdata = _copy_array("bool_data", bool_data, np.uint8)
    n = len(cols[0])
    for name, c in zip(_COLUMNS, cols):
        if len(c) != n:
            raise ValueError(f"{name}: length {len(c)} differs from op's length {n}")
    op, in_start, in_size, flag_start, out_start, out_size, arg = cols
    # Sums below are done in int64 so that a huge start cannot wrap around.
    arg64 = arg.astype(np.int64)

    # 3. Opcodes and list handles.
    i = _first(~np.isin(op, list(_NAMES)))
    if i is not None:
        raise _fail(i, int(op[i]), "unknown opcode")
    for name, size in (("input count", in_size), ("output count", out_size)):
        i = _first(size < 0)
        if i is not None:
            raise _fail(i, int(op[i]), f"{name} {int(size[i])} is negative")
    for name, start, size, arena in (("inputs", in_start, in_size, idata),
                                     ("input flags", flag_start, in_size, bdata),
                                     ("outputs", out_start, out_size, idata)):
        end = start.astype(np.int64) + size
        i = _first((start < 0) | (end > len(arena)))
        if i is not None:
            raise _fail(i, int(op[i]), f"{name} [{int(start[i])}:{int(end[i])}] are outside "
                                       f"their arena of {len(arena)}")

    # 4. Flags and register numbers.
    owner, index = _gather(flag_start, in_size)
    bad = _first(bdata[index] > 1)
    if bad is not None:
        i = int(owner[bad])
        raise _fail(i, int(op[i]), f"input flag {int(bdata[index[bad]])} is not 0 or 1")
    for name, start, size in (("input", in_start, in_size), ("output", out_start, out_size)):
        owner, index = _gather(start, size)
        regs = idata[index]
        bad = _first((regs < 0) | (regs >= register_size))
        if bad is not None:
            i = int(owner[bad])
            raise _fail(i, int(op[i]), f"{name} register {int(regs[bad])} is outside "
                                       f"[0, {register_size})")

    # 5. Shapes.
    for code, (lo_in, hi_in, lo_out, hi_out) in _SHAPES.items():
        mine = op == code
        bad = (in_size < lo_in) | (out_size < lo_out)
        if hi_in is not None:
            bad |= in_size > hi_in
        if hi_out is not None:
            bad |= out_size > hi_out
        i = _first(mine & bad)
        if i is not None:
            want_in = lo_in if lo_in == hi_in else f"{lo_in} or {hi_in}" if hi_in is not None \
                else "any"
            want_out = lo_out if lo_out == hi_out else "any"
            raise _fail(i, code, f"takes {want_in} inputs and {want_out} outputs, "
                                 f"got {int(in_size[i])} and {int(out_size[i])}")
    assign = op == _op.ASSIGN
    i = _first(assign & (in_size != out_size) & (in_size != out_size.astype(np.int64) + 1))
    if i is not None:
        raise _fail(i, _op.ASSIGN, f"needs as many inputs as outputs, or one more (a loop "
                                   f"condition); got {int(in_size[i])} and {int(out_size[i])}")

    # 6. Operands.
    for codes, table, what in (((_op.CALL, _op.STACKCALL), callbacks, "callback"),
                               ((_op.CONST,), constants, "constant")):
        i = _first(np.isin(op, codes) & ((arg < 0) | (arg >= len(table))))
        if i is not None:
            raise _fail(i, int(op[i]), f"{what} index {int(arg[i])} is outside [0, {len(table)})")
    jumps = np.isin(op, (_op.JUMP, _op.JUMPZ, _op.JUMPNZ))
    i = _first(jumps & ((arg64 < 0) | (arg64 > n)))
    if i is not None:
        raise _fail(i, int(op[i]), f"jump target {int(arg[i])} is outside [0, {n}]")

    # 7. Stack discipline.
    carries = assign & (in_size.astype(np.int64) == out_size.astype(np.int64) + 1)
    takes = np.isin(op, (_op.JUMPZ, _op.JUMPNZ)) & (in_size == 0)
    follows = np.zeros(n, dtype=bool)  # follows[i]: instruction i-1 carries a condition
    follows[1:] = carries[:-1]
    i = _first(carries & ~np.append(takes[1:], False))
    if i is not None:
        raise _fail(i, _op.ASSIGN, "leaves a loop condition on the stack, so it must be "
                                   "followed by a JUMPZ or JUMPNZ with no inputs")
    i = _first(takes & ~follows)
    if i is not None:
        raise _fail(i, int(op[i]), "has no input, so it must follow an ASSIGN that leaves "
                                   "the condition (one input more than outputs)")
    target = np.where(jumps, arg64, n)  # n: not a jump, and never a bad target
    lands = np.append(takes, False)[target]
    i = _first(jumps & lands)
    if i is not None:
        raise _fail(i, int(op[i]), f"jumps to {int(arg[i])}, a conditional jump that "
                                   f"expects a condition on the stack")

    # Deepest push: max(inputs, outputs) of one instruction; a zero-input jump
    # pops the one condition its ASSIGN left.
    max_stack = int(max(np.maximum(in_size, out_size).max(initial=0),
                        1 if takes.any() else 0))
    return Table(op, in_start, in_size, flag_start, out_start, out_size, arg, idata, bdata,
                 callbacks, constants, register_size, future_type, max_stack)
