"""The instruction-table validator: the one check both run loops trust.

``pyjit._core`` runs the table with raw C pointers and no per-instruction bounds
checks, so every fact the loop relies on must be proved here, once, when a
``Program`` is built.  ``pyjit._pure`` calls the same function, so the two loops
accept exactly the same tables and reject the rest with the same message.  Every
rule about an opcode is read from its definition in :mod:`pyjit.opcodes`.

What the loop relies on, and so what is checked, in this order:

1. the Python-level arguments: ``register_size`` a non-negative int,
   ``callbacks`` a tuple of callables, ``constants`` a tuple, ``future_type`` a
   class, ``scalar_kinds`` a string of ``I``/``F``/``B`` (one per scalar
   register), ``scalar_init`` one int64 per scalar register, ``preload``
   ``(register, value)`` pairs for distinct object registers;
2. the nine arrays: 1-D numpy arrays of exactly int32 (``bool_data``: uint8), the
   seven per-instruction columns of one length ``n``;
3. known opcodes, none a packed form (``OpDef.specialises``: the compiled loop
   makes those from the table); non-negative list sizes; every list handle inside its arena
   (``in``/``out`` in ``int_data``, the input flags in ``bool_data``);
4. every flag 0 or 1, and 0 for a scalar input (a scalar is never moved); every
   register number inside its file: ``[0, register_size)`` for an object
   operand, ``[0, len(scalar_kinds))`` for a scalar one;
5. the shape of each opcode (how many inputs and outputs it takes), and that a
   scalar register is read and written only as its declared kind (a ``MOVE``
   between registers of one kind);
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

from typing import Any, Callable, List, NamedTuple, Optional, Tuple

import numpy as np

from pyjit import opcodes as _op

__all__ = ["Table", "validate_table"]

_NAMES = {op.code: op.name for op in _op.OPCODES}

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
    #: One letter per scalar register: ``I`` int64, ``F`` double, ``B`` bool.
    scalar_kinds: str
    #: One int64 per scalar register: its value when a run starts (a double's bits
    #: for a float register).
    scalar_init: np.ndarray
    #: ``(register, value)`` pairs: object registers filled when a run starts.
    preload: Tuple[Tuple[int, Any], ...]
    #: Per input operand, in instruction order: 1 where it is a scalar register.
    scalar_input: np.ndarray
    #: Per scalar register: 1 where some instruction writes it (0: it keeps its
    #: ``scalar_init`` value, a constant, for the whole run).
    scalar_written: np.ndarray


def _fail(i: int, op: int, what: str) -> ValueError:
    return ValueError(f"instruction {i} ({_NAMES.get(op, op)}): {what}")


def _refuse_operand(bad: Optional[int], owner: np.ndarray, op: np.ndarray,
                    what: Callable[[int], str]) -> None:
    """If ``bad`` is an operand (an index into ``owner``, each operand's
    instruction), fail naming its instruction, with ``what(bad)`` saying why."""
    if bad is not None:
        i = int(owner[bad])
        raise _fail(i, int(op[i]), what(bad))


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


def _size(name: str, value: Any) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name}: expected an int, got {type(value).__name__}")
    if value < 0:
        raise ValueError(f"{name}: must be >= 0, got {int(value)}")
    return int(value)


def _gather(start: np.ndarray, size: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """Flatten the lists ``arena[start[i]:start[i]+size[i]]`` of all instructions.

    Returns ``(owner, index)``: for every element of every list, the instruction
    it belongs to and its index in the arena, in instruction order.
    """
    owner = np.repeat(np.arange(len(start)), size)
    # Position of each element inside its own list: 0, 1, ..., size[i]-1.
    first = np.repeat(np.cumsum(size) - size, size)
    index = np.repeat(start.astype(np.int64), size) + (np.arange(len(owner)) - first)
    return owner, index


def _first(mask: np.ndarray) -> Optional[int]:
    hit = np.flatnonzero(mask)
    return int(hit[0]) if hit.size else None


# Per opcode and side: the kind letter of each operand position, as a lookup
# table (opcode, position) -> kind code, positions past the fixed ones taking the
# repeated kind.  Kind codes: 0 object, 1 int, 2 float, 3 bool, 4 any scalar.
_KIND_CODES = {"R": 0, "I": 1, "F": 2, "B": 3, "S": 4}
_KIND_NAMES = {1: "an int", 2: "a float", 3: "a bool"}


def _kind_table(side: str) -> np.ndarray:
    """``table[opcode, min(position, width)]``: the kind code of an operand, read
    from the opcodes' definitions (past the fixed kinds, the repeated one)."""
    width = max(len(getattr(d, side).fixed) for d in _op.OPCODES)
    table = np.zeros((len(_op.OPCODES), width + 1), dtype=np.int8)
    for d in _op.OPCODES:
        operands = getattr(d, side)
        for j in range(width + 1):
            if j < len(operands.fixed) or operands.rest:
                table[d.code, j] = _KIND_CODES[operands.kind(j)]
    return table


_KIND_TABLES = {side: _kind_table(side) for side in ("inputs", "outputs")}


def _kinds(owner: np.ndarray, position: np.ndarray, op: np.ndarray, side: str) -> np.ndarray:
    """The kind code of each operand (instruction ``owner``, index ``position`` in
    its list); the shapes are checked already, so every position exists."""
    table = _KIND_TABLES[side]
    return table[op[owner], np.minimum(position, table.shape[1] - 1)]


def _by_code(value, dtype=bool) -> np.ndarray:
    """``table[code]``: ``value(opdef)`` for every opcode (0 where none is defined)."""
    table = np.zeros(max(d.code for d in _op.OPCODES) + 1, dtype=dtype)
    for d in _op.OPCODES:
        table[d.code] = value(d)
    return table


# Per opcode, what the checks below ask of it, as arrays indexed by the opcode:
# one lookup per check over the whole table, not one pass per opcode (a table
# of a few dozen instructions took as long to check as to build).
_BIG = np.iinfo(np.int32).max
_KNOWN = _by_code(lambda d: True)
_IS_PACKED = _by_code(lambda d: d.code in _op.PACKED)
_IN_MIN = _by_code(lambda d: d.inputs.min, np.int64)
_IN_MAX = _by_code(lambda d: _BIG if d.inputs.max is None else d.inputs.max, np.int64)
_OUT_MIN = _by_code(lambda d: d.outputs.min, np.int64)
_OUT_MAX = _by_code(lambda d: _BIG if d.outputs.max is None else d.outputs.max, np.int64)
_LEAVES = _by_code(lambda d: d.leaves_condition)
_MOVES = _by_code(lambda d: d.inputs.rest == "S")
_USES = {"uses_callback": _by_code(lambda d: d.uses_callback),
         "uses_constant": _by_code(lambda d: d.uses_constant)}
_JUMPS = _by_code(lambda d: d.code in _op.JUMPS)
_TAKES = _by_code(lambda d: d.stack_condition)
_STACKED = _by_code(lambda d: d.stack or d.scratch)


def _positions(size: np.ndarray) -> np.ndarray:
    """0, 1, ..., size[i]-1 for every instruction, concatenated."""
    return np.arange(int(size.sum())) - np.repeat(np.cumsum(size) - size, size)


def validate_table(op, in_start, in_size, flag_start, out_start, out_size, arg,
                   int_data, bool_data, callbacks, constants, register_size,
                   future_type, scalar_kinds="", scalar_init=None, preload=()) -> Table:
    """Check an instruction table completely and return a private copy of it.

    Args: exactly those of ``Program`` (see ``pyjit._pure.Program``).

    Returns:
        A ``Table`` of read-only contiguous copies, plus ``max_stack`` and the
        kind of every input operand.

    Raises:
        ValueError: naming the first problem found (and its instruction index).
    """
    # 1. Python-level arguments.
    register_size = _size("register_size", register_size)
    if type(scalar_kinds) is not str or scalar_kinds.strip("IFB"):
        raise ValueError(f"scalar_kinds: expected a str of I, F and B, got {scalar_kinds!r:.40}")
    scalar_size = len(scalar_kinds)
    if type(callbacks) is not tuple:
        raise ValueError(f"callbacks: expected a tuple, got {type(callbacks).__name__}")
    for j, f in enumerate(callbacks):
        if not callable(f):
            raise ValueError(f"callbacks[{j}]: {type(f).__name__} object is not callable")
    if type(constants) is not tuple:
        raise ValueError(f"constants: expected a tuple, got {type(constants).__name__}")
    if not isinstance(future_type, type):
        raise ValueError(f"future_type: expected a class, got {type(future_type).__name__}")
    if scalar_init is None:
        scalar_init = np.zeros(scalar_size, dtype=np.int64)
    sinit = _copy_array("scalar_init", scalar_init, np.int64)
    if len(sinit) != scalar_size:
        raise ValueError(f"scalar_init: length {len(sinit)} differs from the "
                         f"{scalar_size} scalar registers")
    preload = _check_preload(preload, register_size)

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
    known = (op >= 0) & (op < len(_KNOWN))
    known[known] = _KNOWN[op[known]]
    i = _first(~known)
    if i is not None:
        raise _fail(i, int(op[i]), "unknown opcode")
    i = _first(_IS_PACKED[op])
    if i is not None:
        raise _fail(i, int(op[i]), f"is a packed form of {_op.BY_CODE[int(op[i])].specialises}, "
                                   "which only the compiled loop makes: a table holds "
                                   "the instruction it packs")
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

    # 5a. Shapes (before the registers: an operand's kind depends on its position).
    i = _first((in_size < _IN_MIN[op]) | (out_size < _OUT_MIN[op]) | (in_size > _IN_MAX[op]) |
               (out_size > _OUT_MAX[op]))
    if i is not None:
        d = _op.BY_CODE[int(op[i])]
        ins, outs = d.inputs, d.outputs
        raise _fail(i, d.code, f"takes {_count(ins.min, ins.max)} inputs and "
                               f"{_count(outs.min, outs.max)} outputs, got "
                               f"{int(in_size[i])} and {int(out_size[i])}")
    leaves = _LEAVES[op]
    i = _first(leaves & (in_size != out_size) & (in_size != out_size.astype(np.int64) + 1))
    if i is not None:
        raise _fail(i, int(op[i]), f"needs as many inputs as outputs, or one more (a loop "
                                   f"condition); got {int(in_size[i])} and {int(out_size[i])}")
    moves = _MOVES[op]
    i = _first(moves & (in_size != out_size))
    if i is not None:
        raise _fail(i, int(op[i]), f"needs as many inputs as outputs; got {int(in_size[i])} "
                                   f"and {int(out_size[i])}")

    # 4. Flags and register numbers, each in its own file.
    in_owner, in_index = _gather(in_start, in_size)
    in_kind = _kinds(in_owner, _positions(in_size), op, "inputs")
    out_owner, out_index = _gather(out_start, out_size)
    out_kind = _kinds(out_owner, _positions(out_size), op, "outputs")
    _, flag_index = _gather(flag_start, in_size)
    flags = bdata[flag_index]
    _refuse_operand(_first(flags > 1), in_owner, op,
                    lambda j: f"input flag {int(flags[j])} is not 0 or 1")
    _refuse_operand(_first((flags != 0) & (in_kind != 0)), in_owner, op,
                    lambda j: "a scalar input cannot be moved (its flag must be 0)")
    for name, owner, index, kind in (("input", in_owner, in_index, in_kind),
                                     ("output", out_owner, out_index, out_kind)):
        regs = idata[index]
        limit = np.where(kind == 0, register_size, scalar_size)
        _refuse_operand(_first((regs < 0) | (regs >= limit)), owner, op,
                        lambda j: f"{name} {'' if kind[j] == 0 else 'scalar '}register "
                                  f"{int(regs[j])} is outside [0, {int(limit[j])})")

    # 5b. A scalar register is used as its declared kind; a MOVE keeps the kind.
    declared = np.array([_KIND_CODES[k] for k in scalar_kinds], dtype=np.int8)
    for name, owner, index, kind in (("input", in_owner, in_index, in_kind),
                                     ("output", out_owner, out_index, out_kind)):
        typed = np.flatnonzero((kind >= 1) & (kind <= 3))
        regs = idata[index][typed]
        _refuse_operand(_first(declared[regs] != kind[typed]), owner[typed], op,
                        lambda j: f"scalar register {int(regs[j])} holds "
                                  f"{_KIND_NAMES[declared[regs[j]]]}, read as "
                                  f"{_KIND_NAMES[kind[typed[j]]]}")
    anykind_in = np.flatnonzero(in_kind == 4)
    anykind_out = np.flatnonzero(out_kind == 4)
    if len(anykind_in):  # the S-operand instructions take as many inputs as outputs
        src, dst = idata[in_index][anykind_in], idata[out_index][anykind_out]
        _refuse_operand(_first(declared[src] != declared[dst]), in_owner[anykind_in], op,
                        lambda j: f"moves scalar register {int(src[j])} "
                                  f"({_KIND_NAMES[declared[src[j]]]}) into "
                                  f"{int(dst[j])} ({_KIND_NAMES[declared[dst[j]]]})")

    # 6. Operands.
    for uses, table, what in (("uses_callback", callbacks, "callback"),
                              ("uses_constant", constants, "constant")):
        i = _first(_USES[uses][op] & ((arg < 0) | (arg >= len(table))))
        if i is not None:
            raise _fail(i, int(op[i]), f"{what} index {int(arg[i])} is outside [0, {len(table)})")
    jumps = _JUMPS[op]
    i = _first(jumps & ((arg64 < 0) | (arg64 > n)))
    if i is not None:
        raise _fail(i, int(op[i]), f"jump target {int(arg[i])} is outside [0, {n}]")

    # 7. Stack discipline.
    carries = leaves & (in_size.astype(np.int64) == out_size.astype(np.int64) + 1)
    takes = _TAKES[op] & (in_size == 0)
    follows = np.zeros(n, dtype=bool)  # follows[i]: instruction i-1 carries a condition
    follows[1:] = carries[:-1]
    i = _first(carries & ~np.append(takes[1:], False))
    if i is not None:
        raise _fail(i, int(op[i]), "leaves a loop condition on the stack, so it must be "
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

    # Deepest push: max(inputs, outputs) of one instruction that uses the stack
    # (or borrows it, empty between instructions, as scratch: OpDef.scratch); a
    # zero-input jump pops the one condition its ASSIGN left.
    stacked = _STACKED[op]
    max_stack = int(max(np.where(stacked, np.maximum(in_size, out_size), 0).max(initial=0),
                        1 if takes.any() else 0))
    scalar_input = (in_kind != 0).astype(np.uint8)
    scalar_input.setflags(write=False)
    written = np.zeros(scalar_size, dtype=np.uint8)
    written[idata[out_index][out_kind != 0]] = 1
    written.setflags(write=False)
    return Table(op, in_start, in_size, flag_start, out_start, out_size, arg, idata, bdata,
                 callbacks, constants, register_size, future_type, max_stack,
                 scalar_kinds, sinit, preload, scalar_input, written)


def _count(lo: int, hi: Optional[int]) -> str:
    if hi is None:
        return "any"
    return str(lo) if lo == hi else f"{lo} or {hi}"


def _check_preload(preload: Any, register_size: int) -> Tuple[Tuple[int, Any], ...]:
    if type(preload) is not tuple:
        raise ValueError(f"preload: expected a tuple, got {type(preload).__name__}")
    seen: List[int] = []
    for j, item in enumerate(preload):
        if type(item) is not tuple or len(item) != 2:
            raise ValueError(f"preload[{j}]: expected a (register, value) pair")
        reg = item[0]
        if isinstance(reg, bool) or not isinstance(reg, int) or not 0 <= reg < register_size:
            raise ValueError(f"preload[{j}]: register {reg!r} is outside [0, {register_size})")
        if reg in seen:
            raise ValueError(f"preload[{j}]: register {reg} is preloaded twice")
        seen.append(reg)
    return preload
