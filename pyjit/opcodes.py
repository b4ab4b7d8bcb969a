"""The instruction set of the pyjit interpreter: the one definition that the code
generator, both run loops (``pyjit._core`` and ``pyjit._pure``) and the listing read.

Every instruction follows the seed's protocol: its inputs are pushed from registers
onto the value stack (moved out of the register when the input's free flag is set,
copied otherwise), the instruction acts on the top of the stack, and its outputs are
popped back into registers, last output first.  The opcodes below only differ in
the action taken between the push and the pop.

Notation: ``R[x]`` is register ``x``; ``in``/``out`` are the instruction's input and
output register lists (slices of the int arena); ``arg`` is the instruction's
operand; ``F[arg]`` is the callback table and ``K[arg]`` the constant table of the
Code.

Notes:

* ``ASSIGN`` is how If and Loop move block outputs into place.  For a Loop it has
  one input more than outputs: the loop condition, which stays on the stack for the
  ``JUMPZ``/``JUMPNZ`` that follows (exactly the seed's lowering).
* ``LOAD`` pops the caller's inputs and ``STORE`` pushes the outputs back, so
  ``InterpreterState.run(stack)`` has the seed's contract: inputs on the stack
  before, outputs on the stack after.
* ``WAIT`` is the only instruction that can suspend: when the future is not done,
  the frame keeps its pc (and the future, if the input was moved) and returns the
  future to its caller; running the frame again re-executes the ``WAIT``.
* Jump targets are absolute instruction indices, stored in ``arg``; the seed stored
  relative offsets in the callback, which the listing shows as ``-> target``.
  ``arg == n`` (one past the last instruction) is a jump to the end.
* ``JUMPZ``/``JUMPNZ`` take their condition either as one input (If: ``JUMPNZ c``)
  or, with no inputs, from the ``ASSIGN`` right before them (Loop).  A jump may
  not target such a zero-input jump: control would arrive without a condition.
* ``STACKCALL``'s callback returns a jump *relative to the next instruction*
  (``None`` or 0: fall through), as in the seed; a target outside ``[0, n]`` is
  a RuntimeError when it happens.
* The operand counts each opcode accepts (CONST 0 in/1 out, WAIT 1/1, ...) and
  everything else the loops rely on are checked once per table, by
  ``pyjit.validate``.
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["OpDef", "OPCODES", "BY_NAME", "BY_CODE"]


class OpDef(NamedTuple):
    """One instruction kind: its number, its name and what it does."""

    code: int
    name: str
    transfer: str  # register-transfer notation, one line
    doc: str


#: The instruction set, in opcode order.  Nothing else in pyjit may hard-code an
#: opcode number: both run loops take them from here.
OPCODES: tuple[OpDef, ...] = (
    OpDef(0, "CALL", "R[out...] := F[arg](R[in...])",
          "call an operator with its inputs as positional arguments; a single "
          "output receives the result, several outputs unpack it, none ignore it"),
    OpDef(1, "STACKCALL", "push R[in...]; pc += F[arg](stack); R[out...] := pop()",
          "call an operator written against the seed's stack protocol; it pops "
          "its inputs, pushes its outputs and may return a relative jump"),
    OpDef(2, "CONST", "R[out0] := K[arg]", "load a constant"),
    OpDef(3, "LOAD", "R[out...] := pop(caller stack)",
          "take the graph's inputs off the caller's stack"),
    OpDef(4, "STORE", "push(caller stack, R[in...])",
          "push the graph's outputs onto the caller's stack"),
    OpDef(5, "DROP", "release R[in...]", "free values that have no further use"),
    OpDef(6, "ASSIGN", "R[out...] := R[in[-len(out):]]",
          "parallel move; an extra first input (a loop condition) stays on the "
          "stack for the jump that follows"),
    OpDef(7, "JUMP", "pc := arg", "jump"),
    OpDef(8, "JUMPZ", "if not pop(): pc := arg", "jump when the condition is false"),
    OpDef(9, "JUMPNZ", "if pop(): pc := arg", "jump when the condition is true"),
    OpDef(10, "WAIT", "R[out0] := value(R[in0])",
          "the value of a future, suspending the frame while it is not done"),
)

BY_NAME: dict[str, OpDef] = {op.name: op for op in OPCODES}
BY_CODE: dict[int, OpDef] = {op.code: op for op in OPCODES}

# Module-level constants so that hot code can bind them once.
CALL = BY_NAME["CALL"].code
STACKCALL = BY_NAME["STACKCALL"].code
CONST = BY_NAME["CONST"].code
LOAD = BY_NAME["LOAD"].code
STORE = BY_NAME["STORE"].code
DROP = BY_NAME["DROP"].code
ASSIGN = BY_NAME["ASSIGN"].code
JUMP = BY_NAME["JUMP"].code
JUMPZ = BY_NAME["JUMPZ"].code
JUMPNZ = BY_NAME["JUMPNZ"].code
WAIT = BY_NAME["WAIT"].code

assert [op.code for op in OPCODES] == list(range(len(OPCODES)))


def describe() -> str:
    """The instruction set as a table, one line per opcode (shown by ``pyjit dump``)."""
    width = max(len(op.name) for op in OPCODES)
    twidth = max(len(op.transfer) for op in OPCODES)
    return "\n".join(
        f"{op.code:>2} {op.name:<{width}}  {op.transfer:<{twidth}}  {op.doc}"
        for op in OPCODES)
