"""The instruction set of the pyjit interpreter: the one definition that the code
generator, the validator, both run loops (``pyjit._core`` and ``pyjit._pure``) and
the listing read.  Nothing else may restate an opcode's number, operands, jumps or
meaning.

An instruction has an opcode, an operand ``arg``, a list of input registers (each
with a move flag) and a list of output registers.  There are two register files:

* ``R``, object registers: Python objects.  An input whose move flag is set is
  moved out of its register (the register is empty afterwards), so a value is
  released right after its last use, as in the seed.
* ``S``, scalar registers: 64-bit slots, each holding an int64, a double or a bool
  (0 or 1), as its instructions read it.  No reference counting: a scalar
  register is never moved, never empty, never released.

Each :class:`OpDef` says which file every operand belongs to, with one letter per
operand (its *kind*): ``R`` an object register; ``I``, ``F``, ``B`` a scalar
register read or written as an int64, a double or a bool; ``S`` a scalar register
of any of the three.  A trailing ``*`` repeats the last kind any number of times
(zero included), a trailing ``?`` makes it optional.

Notation: ``R[x]``/``S[x]`` are registers; ``in``/``out`` the instruction's input
and output lists; ``F[arg]`` the callback table and ``K[arg]`` the constant table
of the Code; ``pc := arg`` a jump (targets are absolute instruction indices,
``arg == n`` being the end).

The seed's instructions (opcodes 0-10) follow its protocol: inputs are pushed
from their registers onto the value stack, the instruction acts on the stack, and
outputs are popped back into registers, last output first.  ``Code(graph,
optimize=False)`` emits only these.  The optimising code generator adds the typed
tier (opcodes from 11): scalar instructions read and write ``S`` registers
directly, with no stack and no Python object in between.

Notes:

* ``ASSIGN`` is how If and Loop move block outputs into place.  For a Loop it has
  one input more than outputs: the loop condition, which stays on the stack for
  the ``JUMPZ``/``JUMPNZ`` that follows (exactly the seed's lowering).  Such a
  zero-input jump (``stack_condition``) may not be a jump target: control would
  arrive without a condition.
* ``LOAD`` pops the caller's inputs and ``STORE`` pushes the outputs back, so
  ``InterpreterState.run(stack)`` has the seed's contract.
* ``WAIT`` is the only instruction that can suspend: when the future is not done,
  the frame keeps its pc (and the future, if the input was moved) and returns the
  future to its caller; running the frame again re-executes the ``WAIT``.
* ``STACKCALL``'s callback returns a jump *relative to the next instruction*
  (``None`` or 0: fall through), as in the seed; a target outside ``[0, n]`` is a
  RuntimeError when it happens.
* An *intrinsic* (``implements`` names the library operator) computes exactly
  what that operator computes, on scalar registers.  ``F[arg]`` is the operator
  itself: the pure loop calls it on the registers' values, and the compiled loop
  calls it (on boxed values) wherever its C code would leave the common case --
  a division by zero, an overflow the operator reports -- so both loops raise
  the operator's own error.  The code generator uses an intrinsic only where the
  registry resolves a node to the library operator declared with it
  (:meth:`pyjit.registry.Registry.register`'s ``intrinsic=``).
* ``MOVE`` and ``ASSIGN`` are parallel: every input is read before any output is
  written, so ``a, b := b, a`` swaps.
* ``LOOP_ENTER``/``LOOP_BACK`` keep a Loop's trip counter in a scalar register:
  the seed's desugared ``i + 1``, ``i < n``, ``and`` and jump in one instruction.
* ``INVOKE`` runs another graph's Program without leaving the loop (no Python
  or C recursion per call): it pushes its inputs, and starts the callee in a new
  *activation* (its own registers and value stack) on the frame's stack of
  activations.  The callee's ``LOAD`` takes the inputs off the caller's value
  stack and its ``STORE`` pushes the outputs back; when the callee reaches its
  end the activation is released and ``INVOKE`` pops the outputs into its
  registers.  ``F[arg]`` is a link, not an operator: called with no argument it
  returns the callee's Program (linked when first run, which is what lets a
  graph call itself).  A ``WAIT`` inside a callee suspends every activation; an
  error releases every activation; a call deeper than the loop's limit
  (``set_max_depth``) is a RecursionError.
* The run loops check signals, and the compiled loop may let other threads run
  (it gives up the GIL), at backward jumps and calls: the only ways a run can go
  on for long without calling back into Python.

Everything the loops rely on is checked once per table by :mod:`pyjit.validate`,
from the definitions below.
"""

from __future__ import annotations

import functools
import operator
import re
from typing import Dict, NamedTuple, Optional, Tuple

__all__ = ["OpDef", "OPCODES", "BY_NAME", "BY_CODE", "Operands", "SCALAR_KINDS",
           "JUMPS", "NEGATIONS", "BRANCHES", "BOX", "UNBOX", "PACKED", "INTRINSICS",
           "TESTS", "describe"]

#: Operand kinds that live in the scalar register file.
SCALAR_KINDS = frozenset("IFBS")


class Operands(NamedTuple):
    """One side (inputs or outputs) of an instruction's shape, parsed from its kind
    string: the fixed kinds, then what repeats after them (``*``: any number of
    ``rest``; ``?``: at most one)."""

    fixed: str
    rest: str          # the kind that repeats or is optional; "" if neither
    repeat: bool       # True for ``*``, False for ``?``

    @classmethod
    def parse(cls, kinds: str) -> "Operands":
        if not re.fullmatch(r"[RIFBS]*(?:[RIFBS][*?])?", kinds):
            raise ValueError(f"bad operand kinds {kinds!r}")
        if kinds[-1:] in ("*", "?"):
            return cls(kinds[:-2], kinds[-2], kinds[-1] == "*")
        return cls(kinds, "", False)

    @property
    def min(self) -> int:
        return len(self.fixed)

    @property
    def max(self) -> Optional[int]:
        """The largest count, None for any."""
        if not self.rest:
            return len(self.fixed)
        return None if self.repeat else len(self.fixed) + 1

    def kind(self, j: int) -> str:
        """The kind of operand ``j``."""
        return self.fixed[j] if j < len(self.fixed) else self.rest


class OpDef(NamedTuple):
    """One instruction kind, completely.

    Attributes:
        code: the opcode number (its index in :data:`OPCODES`).
        name: the opcode's name, as the listing prints it.
        ins, outs: operand kinds of the inputs and outputs (see the module
            docstring), e.g. ``"II"`` and ``"I"`` for an int addition.
        transfer: what it does, in register-transfer notation, one line.
        doc: what it is for, or how it differs from the obvious.
        jumps: ``arg`` is a jump target.
        stack_condition: with no inputs, the instruction takes the condition the
            ``ASSIGN`` right before it left on the stack.
        leaves_condition: with one input more than outputs, the instruction leaves
            its first input (a loop condition) on the stack.
        implements: an intrinsic's library operator, as a schema
            (``"aten::add(int, int)"``); ``arg`` is then that operator's index in
            ``F``.
        uses_callback, uses_constant: ``arg`` indexes ``F`` / ``K``.
        stack: follows the seed's protocol (inputs pushed on the value stack,
            outputs popped from it); the typed tier reads registers directly.
        scratch: borrows the value stack, empty between instructions, as
            scratch space (``MOVE``), so the stack must be as deep as its operands.
        negation: the jump taken exactly when this one is not, on the same
            operands, and ``negation_swaps``: with the two operands swapped.
        taken: how a listing labels the jump when it is taken (``"if false"``);
            empty for a compare-and-branch, which its name says.
        boxes: ``BOX_*``/``UNBOX_*``: the scalar kind it moves between the
            register files (boxing when its output is an object register).
        test: a compare-and-branch's comparison of its two inputs, a key of
            :data:`TESTS` (``"<"``, ``"not <="``...).
        branch: a comparison's compare-and-branch: ``(name, swapped)``, the jump
            that is taken exactly when the comparison holds.
        c: the compiled loop's action, for the cases ``setup.py`` generates
            (:mod:`pyjit._loop_cases`): a Cython statement for a scalar
            instruction (``{out0}.i = {in0}.i + {in1}.i``), the condition for a
            jump (``{in0}.i < {in1}.i``; empty for an unconditional one).
            ``{inK}``/``{outK}`` are the operands' scalar registers, ``{arg}``
            the operand.  Empty: the case is hand-written in ``_run_loop.pxi``.
        specialises: a packed form (``CALL1``...): the instruction of the table
            that the compiled loop runs as this one when it packs the table, in
            a shape or with an operand it can do faster; never in a table
            (``arg`` and the operands are the packed record's, see the doc).
        fuses: a packed form that also runs the instruction after it (its
            record stays, stepped over unless the jump is taken).
    """

    code: int
    name: str
    ins: str
    outs: str
    transfer: str
    doc: str
    jumps: bool = False
    stack_condition: bool = False
    leaves_condition: bool = False
    implements: Optional[str] = None
    uses_callback: bool = False
    uses_constant: bool = False
    stack: bool = False
    scratch: bool = False
    negation: str = ""
    negation_swaps: bool = False
    taken: str = ""
    boxes: str = ""
    test: str = ""
    branch: Optional[Tuple[str, bool]] = None
    c: str = ""
    specialises: str = ""
    fuses: str = ""

    @property
    def inputs(self) -> Operands:
        return _operands(self.ins)

    @property
    def outputs(self) -> Operands:
        return _operands(self.outs)

    @property
    def needs_python(self) -> bool:
        """Touches Python objects in its common case.  The others (scalar registers
        only; an intrinsic calls ``F[arg]`` only off its common case) are what the
        compiled loop may run while other threads hold the GIL."""
        return "R" in self.ins + self.outs or self.uses_constant or \
            (self.uses_callback and self.implements is None)

    @property
    def jump_label(self) -> str:
        """The label of the jump when taken (``code_dot``'s edges)."""
        return f"jump {self.taken}".rstrip() if self.taken or not self.ins else \
            f"jump if {self.name}"


# The code generator asks for an instruction's operands once per node: parse each
# kinds string once.
_operands = functools.lru_cache(maxsize=None)(Operands.parse)


def _intrinsic(code: int, name: str, ins: str, outs: str, implements: str,
               transfer: str, doc: str = "", *, c: str = "",
               branch: Optional[Tuple[str, bool]] = None) -> OpDef:
    return OpDef(code, name, ins, outs, transfer, doc or f"the library's {implements}",
                 implements=implements, uses_callback=True, c=c, branch=branch)


#: The comparisons of one scalar kind, in opcode order: (name, the library's
#: operator, the C and Python operator, the compare-and-branch it folds into
#: when its only use is a branch, with its operands swapped or not).
_COMPARISONS = (("LT", "lt", "<", "JLT", False), ("LE", "le", "<=", "JLE", False),
                ("GT", "gt", ">", "JLT", True), ("GE", "ge", ">=", "JLE", True),
                ("EQ", "eq", "==", "JEQ", False), ("NE", "ne", "!=", "JNE", False))


def _comparisons(first: int, kind: str) -> Tuple[OpDef, ...]:
    """The six intrinsic comparisons of scalar ``kind`` (``I`` or ``F``), opcodes
    ``first`` to ``first + 5``: ``LT_I`` is ``S[out0] := S[in0] < S[in1]``, which
    implements ``aten::lt(int, int)`` and folds into ``JLT_I`` (``GT_I`` into
    ``JLT_I`` with its operands swapped: there is no ``JGT_I``)."""
    schema, field = {"I": ("int", "i"), "F": ("float", "f")}[kind]
    return tuple(
        _intrinsic(first + k, f"{name}_{kind}", kind * 2, "B",
                   f"aten::{aten}({schema}, {schema})", f"S[out0] := S[in0] {op} S[in1]",
                   c=f"{{out0}}.i = {{in0}}.{field} {op} {{in1}}.{field}",
                   branch=(f"{jump}_{kind}", swapped))
        for k, (name, aten, op, jump, swapped) in enumerate(_COMPARISONS))


#: A compare-and-branch's test, as the pure loop computes it.
TESTS = {"<": operator.lt, "<=": operator.le, "==": operator.eq, "!=": operator.ne,
         "not <": lambda a, b: not a < b, "not <=": lambda a, b: not a <= b}


def _compare_jump(code: int, name: str, kinds: str, test: str, negation: str,
                  swaps: bool = False, doc: str = "") -> OpDef:
    field = ".i" if kinds == "II" else ".f"
    compare = test.replace("not ", "")
    cond = f"{{in0}}{field} {compare} {{in1}}{field}"
    return OpDef(code, name, kinds, "", f"if S[in0] {test} S[in1]: pc := arg",
                 doc or "a comparison whose only use is a branch, fused with it",
                 jumps=True, negation=negation, negation_swaps=swaps, test=test,
                 c=f"not ({cond})" if test.startswith("not ") else cond)


#: The instruction set, in opcode order.  Nothing else in pyjit may hard-code an
#: opcode number: the loops take them from here (``_core`` through the enum that
#: setup.py generates from this table).
OPCODES: Tuple[OpDef, ...] = (
    # -- the seed's instructions ------------------------------------------------
    OpDef(0, "CALL", "R*", "R*", "R[out...] := F[arg](R[in...])",
          "call an operator with its inputs as positional arguments; a single "
          "output receives the result, several outputs unpack it, none ignore it",
          uses_callback=True, stack=True),
    OpDef(1, "STACKCALL", "R*", "R*", "push R[in...]; pc += F[arg](stack); R[out...] := pop()",
          "call an operator written against the seed's stack protocol; it pops "
          "its inputs, pushes its outputs and may return a relative jump",
          uses_callback=True, stack=True),
    OpDef(2, "CONST", "", "R", "R[out0] := K[arg]", "load a constant", uses_constant=True,
          stack=True),
    OpDef(3, "LOAD", "", "R*", "R[out...] := pop(caller stack)",
          "take the graph's inputs off the caller's stack", stack=True),
    OpDef(4, "STORE", "R*", "", "push(caller stack, R[in...])",
          "push the graph's outputs onto the caller's stack", stack=True),
    OpDef(5, "DROP", "R*", "", "release R[in...]", "free values that have no further use",
          stack=True),
    OpDef(6, "ASSIGN", "R*", "R*", "R[out...] := R[in[-len(out):]]",
          "parallel move; an extra first input (a loop condition) stays on the "
          "stack for the jump that follows", leaves_condition=True, stack=True),
    OpDef(7, "JUMP", "", "", "pc := arg", "jump", jumps=True, stack=True),
    OpDef(8, "JUMPZ", "R?", "", "if not pop(): pc := arg",
          "jump when the condition is false", jumps=True, stack_condition=True, stack=True,
          negation="JUMPNZ", taken="if false"),
    OpDef(9, "JUMPNZ", "R?", "", "if pop(): pc := arg",
          "jump when the condition is true", jumps=True, stack_condition=True, stack=True,
          negation="JUMPZ", taken="if true"),
    OpDef(10, "WAIT", "R", "R", "R[out0] := value(R[in0])",
          "the value of a future, suspending the frame while it is not done", stack=True),

    # -- the typed tier: moves between the register files ----------------------
    OpDef(11, "MOVE", "S*", "S*", "S[out...] := S[in...]",
          "parallel move of scalar registers (block outputs into place)", scratch=True),
    OpDef(12, "BOX_I", "I", "R", "R[out0] := int(S[in0])", "an int as a Python object",
          boxes="I"),
    OpDef(13, "BOX_F", "F", "R", "R[out0] := float(S[in0])", "a float as a Python object",
          boxes="F"),
    OpDef(14, "BOX_B", "B", "R", "R[out0] := bool(S[in0])", "a bool as a Python object",
          boxes="B"),
    OpDef(15, "UNBOX_I", "R", "I", "S[out0] := R[in0] as int64",
          "a Python int (or numpy integer) into a scalar register; TypeError for "
          "anything else, OverflowError outside int64", boxes="I"),
    OpDef(16, "UNBOX_F", "R", "F", "S[out0] := R[in0] as double",
          "a Python float, int or numpy floating into a scalar register", boxes="F"),
    OpDef(17, "UNBOX_B", "R", "B", "S[out0] := R[in0] as bool",
          "a Python bool (or numpy bool) into a scalar register", boxes="B"),

    # -- the typed tier: control flow --------------------------------------------
    OpDef(18, "JT", "B", "", "if S[in0]: pc := arg", "jump when a scalar bool is true",
          jumps=True, negation="JF", taken="if true", c="{in0}.i != 0"),
    OpDef(19, "JF", "B", "", "if not S[in0]: pc := arg",
          "jump when a scalar bool is false", jumps=True, negation="JT", taken="if false",
          c="{in0}.i == 0"),
    # An int comparison fails exactly when its converse holds (a < b: not b <= a);
    # with a NaN both float ones fail, so each float test has its own negation.
    _compare_jump(20, "JLT_I", "II", "<", "JLE_I", swaps=True),
    _compare_jump(21, "JLE_I", "II", "<=", "JLT_I", swaps=True),
    _compare_jump(22, "JEQ_I", "II", "==", "JNE_I"),
    _compare_jump(23, "JNE_I", "II", "!=", "JEQ_I"),
    _compare_jump(24, "JLT_F", "FF", "<", "JNLT_F"),
    _compare_jump(25, "JLE_F", "FF", "<=", "JNLE_F"),
    _compare_jump(26, "JEQ_F", "FF", "==", "JNE_F"),
    _compare_jump(27, "JNE_F", "FF", "!=", "JEQ_F"),
    _compare_jump(28, "JNLT_F", "FF", "not <", "JLT_F",
                  doc="the negation of JLT_F, which with a NaN is not JLE_F swapped"),
    _compare_jump(29, "JNLE_F", "FF", "not <=", "JLE_F", doc="the negation of JLE_F"),
    OpDef(30, "LOOP_ENTER", "IB", "I",
          "S[out0] := 0; if not (0 < S[in0] and S[in1]): pc := arg",
          "enter a Loop: in0 its trip count, in1 its initial condition, out0 the "
          "iteration counter", jumps=True),
    OpDef(31, "LOOP_BACK", "IIB", "I",
          "S[out0] := S[in0] + 1; if S[out0] < S[in1] and S[in2]: pc := arg",
          "end of a Loop's body: count the trip and go round again while the trip "
          "count and the body's condition allow", jumps=True),

    # -- the typed tier: intrinsics (arg: the library operator in F) -------------
    _intrinsic(32, "ADD_I", "II", "I", "aten::add(int, int)", "S[out0] := S[in0] + S[in1]",
               "int64 addition, wrapping around",
               c="{out0}.i = <int64_t>(<uint64_t>{in0}.i + <uint64_t>{in1}.i)"),
    _intrinsic(33, "SUB_I", "II", "I", "aten::sub(int, int)", "S[out0] := S[in0] - S[in1]",
               "int64 subtraction, wrapping around",
               c="{out0}.i = <int64_t>(<uint64_t>{in0}.i - <uint64_t>{in1}.i)"),
    _intrinsic(34, "MUL_I", "II", "I", "aten::mul(int, int)", "S[out0] := S[in0] * S[in1]",
               "int64 multiplication, wrapping around",
               c="{out0}.i = <int64_t>(<uint64_t>{in0}.i * <uint64_t>{in1}.i)"),
    _intrinsic(35, "FLOORDIV_I", "II", "I", "aten::floordiv(int, int)",
               "S[out0] := S[in0] // S[in1]", "Python's floor division; F[arg] raises on 0"),
    _intrinsic(36, "REM_I", "II", "I", "aten::remainder(int, int)",
               "S[out0] := S[in0] % S[in1]", "the sign of the divisor; F[arg] raises on 0"),
    _intrinsic(37, "NEG_I", "I", "I", "aten::neg(int)", "S[out0] := -S[in0]",
               c="{out0}.i = <int64_t>(0 - <uint64_t>{in0}.i)"),
    _intrinsic(38, "ABS_I", "I", "I", "prim::abs(int)", "S[out0] := abs(S[in0])",
               c="{out0}.i = <int64_t>(0 - <uint64_t>{in0}.i) if {in0}.i < 0 else {in0}.i"),
    _intrinsic(39, "MIN_I", "II", "I", "prim::min(int, int)", "S[out0] := min(S[in0], S[in1])",
               c="{out0}.i = {in1}.i if {in1}.i < {in0}.i else {in0}.i"),
    _intrinsic(40, "MAX_I", "II", "I", "prim::max(int, int)", "S[out0] := max(S[in0], S[in1])",
               c="{out0}.i = {in1}.i if {in1}.i > {in0}.i else {in0}.i"),
    _intrinsic(41, "AND_I", "II", "I", "aten::__and__(int, int)", "S[out0] := S[in0] & S[in1]",
               c="{out0}.i = {in0}.i & {in1}.i"),
    _intrinsic(42, "OR_I", "II", "I", "aten::__or__(int, int)", "S[out0] := S[in0] | S[in1]",
               c="{out0}.i = {in0}.i | {in1}.i"),
    _intrinsic(43, "XOR_I", "II", "I", "aten::__xor__(int, int)", "S[out0] := S[in0] ^ S[in1]",
               c="{out0}.i = {in0}.i ^ {in1}.i"),
    _intrinsic(44, "DIV_I", "II", "F", "aten::div(int, int)",
               "S[out0] := double(S[in0]) / double(S[in1])", "true division, IEEE on 0",
               c="{out0}.f = <double>{in0}.i / <double>{in1}.i"),
    *_comparisons(45, "I"),
    _intrinsic(51, "ADD_F", "FF", "F", "aten::add(float, float)", "S[out0] := S[in0] + S[in1]",
               c="{out0}.f = {in0}.f + {in1}.f"),
    _intrinsic(52, "SUB_F", "FF", "F", "aten::sub(float, float)", "S[out0] := S[in0] - S[in1]",
               c="{out0}.f = {in0}.f - {in1}.f"),
    _intrinsic(53, "MUL_F", "FF", "F", "aten::mul(float, float)", "S[out0] := S[in0] * S[in1]",
               c="{out0}.f = {in0}.f * {in1}.f"),
    _intrinsic(54, "DIV_F", "FF", "F", "aten::div(float, float)", "S[out0] := S[in0] / S[in1]",
               "IEEE division: x / 0 is inf or nan",
               c="{out0}.f = {in0}.f / {in1}.f"),
    _intrinsic(55, "FLOORDIV_F", "FF", "F", "aten::floordiv(float, float)",
               "S[out0] := floor(S[in0] / S[in1])"),
    _intrinsic(56, "REM_F", "FF", "F", "aten::remainder(float, float)",
               "S[out0] := S[in0] % S[in1]", "Python's float %: the sign of the divisor"),
    _intrinsic(57, "POW_F", "FF", "F", "aten::pow(float, float)", "S[out0] := S[in0] ** S[in1]"),
    _intrinsic(58, "NEG_F", "F", "F", "aten::neg(float)", "S[out0] := -S[in0]",
               c="{out0}.f = -{in0}.f"),
    _intrinsic(59, "ABS_F", "F", "F", "prim::abs(float)", "S[out0] := abs(S[in0])",
               c="{out0}.f = fabs({in0}.f)"),
    _intrinsic(60, "MIN_F", "FF", "F", "prim::min(float, float)",
               "S[out0] := S[in0] if S[in0] < S[in1] else S[in1]",
               c="{out0}.f = {in0}.f if {in0}.f < {in1}.f else {in1}.f"),
    _intrinsic(61, "MAX_F", "FF", "F", "prim::max(float, float)",
               "S[out0] := S[in0] if S[in0] > S[in1] else S[in1]",
               c="{out0}.f = {in0}.f if {in0}.f > {in1}.f else {in1}.f"),
    *_comparisons(62, "F"),
    _intrinsic(68, "AND_B", "BB", "B", "aten::__and__(bool, bool)",
               "S[out0] := S[in0] and S[in1]",
               c="{out0}.i = {in0}.i & {in1}.i"),
    _intrinsic(69, "OR_B", "BB", "B", "aten::__or__(bool, bool)", "S[out0] := S[in0] or S[in1]",
               c="{out0}.i = {in0}.i | {in1}.i"),
    _intrinsic(70, "XOR_B", "BB", "B", "aten::__xor__(bool, bool)",
               "S[out0] := S[in0] != S[in1]",
               c="{out0}.i = {in0}.i ^ {in1}.i"),
    _intrinsic(71, "NOT_B", "B", "B", "aten::__not__(bool)", "S[out0] := not S[in0]",
               c="{out0}.i = not {in0}.i"),
    _intrinsic(72, "EQ_B", "BB", "B", "aten::eq(bool, bool)", "S[out0] := S[in0] == S[in1]",
               c="{out0}.i = {in0}.i == {in1}.i"),
    _intrinsic(73, "NE_B", "BB", "B", "aten::ne(bool, bool)", "S[out0] := S[in0] != S[in1]",
               c="{out0}.i = {in0}.i != {in1}.i"),
    _intrinsic(74, "I2F", "I", "F", "aten::Float(int)", "S[out0] := double(S[in0])",
               c="{out0}.f = <double>{in0}.i"),
    _intrinsic(75, "F2I", "F", "I", "aten::Int(float)", "S[out0] := int64(S[in0])",
               "truncation; nan, inf and out-of-range values give INT64_MIN, as C++"),
    _intrinsic(76, "B2I", "B", "I", "aten::Int(bool)", "S[out0] := int64(S[in0])",
               c="{out0}.i = {in0}.i"),
    _intrinsic(77, "B2F", "B", "F", "aten::Float(bool)", "S[out0] := double(S[in0])",
               c="{out0}.f = <double>{in0}.i"),
    _intrinsic(78, "I2B", "I", "B", "aten::Bool(int)", "S[out0] := S[in0] != 0",
               c="{out0}.i = {in0}.i != 0"),
    _intrinsic(79, "F2B", "F", "B", "aten::Bool(float)", "S[out0] := S[in0] != 0",
               c="{out0}.i = {in0}.f != 0"),

    # -- calls -------------------------------------------------------------------
    OpDef(80, "INVOKE", "R*", "R*",
          "push R[in...]; run F[arg]() in a new activation; R[out...] := pop()",
          "call a graph: F[arg]() is the callee's Program, run by this loop in a new "
          "activation of the same frame", uses_callback=True, stack=True),

    # -- packed forms: made only by the compiled loop, when it packs a table -----
    # (CPython's habit: a cheap guard, here decided once per table, plus an
    # action; the general instruction stays as it is.)  A listing shows the
    # table's instruction; the profiler counts these under their own names.
    OpDef(81, "CALL1", "R", "R", "R[out0] := F[arg](R[in0])",
          "CALL with one input and one output (neg, not, len, ufuncs...), its "
          "argument read in place", uses_callback=True, specialises="CALL"),
    OpDef(82, "CALL2", "RR", "R", "R[out0] := F[arg](R[in0], R[in1])",
          "CALL with two inputs and one output (add, lt, getitem...)",
          uses_callback=True, specialises="CALL"),
    OpDef(83, "FLOORDIV_POW2", "II", "I", "S[out0] := S[in0] >> arg",
          "FLOORDIV_I by a constant 2**arg: an arithmetic shift rounds down",
          specialises="FLOORDIV_I", c="{out0}.i = {in0}.i >> {arg}"),
    OpDef(84, "REM_POW2", "II", "I", "S[out0] := S[in0] & (2**arg - 1)",
          "REM_I by a constant 2**arg: a mask, the sign of the positive divisor",
          specialises="REM_I", c="{out0}.i = {in0}.i & ((<int64_t>1 << {arg}) - 1)"),
    OpDef(85, "FLOORDIV_K", "II", "I", "S[out0] := S[in0] // D[arg].d",
          "FLOORDIV_I by a constant d > 2 not a power of two: a multiplication by "
          "its 64-bit reciprocal when S[in0] >= 0 (D: the packed table's divisors)",
          specialises="FLOORDIV_I"),
    OpDef(86, "REM_K", "II", "I", "S[out0] := S[in0] % D[arg].d",
          "REM_I by such a constant, from the same quotient", specialises="REM_I"),
    OpDef(87, "REM_POW2_JEQZ", "II", "I",
          "S[out0] := S[in0] & (2**arg - 1); if S[out0] == 0: pc := next.arg",
          "REM_POW2 and the JEQ_I of its result against a constant 0 after it, "
          "``if n % 2 == 0``, in one dispatch (nothing may jump to the JEQ_I)",
          specialises="REM_I", fuses="JEQ_I"),
    OpDef(88, "REM_POW2_JNEZ", "II", "I",
          "S[out0] := S[in0] & (2**arg - 1); if S[out0] != 0: pc := next.arg",
          "the same with JNE_I", specialises="REM_I", fuses="JNE_I"),
)

BY_NAME: Dict[str, OpDef] = {op.name: op for op in OPCODES}
BY_CODE: Dict[int, OpDef] = {op.code: op for op in OPCODES}

#: The opcodes whose ``arg`` is a jump target.
JUMPS = frozenset(op.code for op in OPCODES if op.jumps)
#: The conditional jumps that have an exact negation with the same operands:
#: ``{name: (negated name, operands swapped)}`` (``OpDef.negation``).
NEGATIONS: Dict[str, Tuple[str, bool]] = {
    op.name: (op.negation, op.negation_swaps) for op in OPCODES if op.negation}
#: The comparisons that fold into a compare-and-branch: ``{name: (jump's code,
#: operands swapped)}``, the jump taken when the comparison holds (``OpDef.branch``).
BRANCHES: Dict[str, Tuple[int, bool]] = {
    op.name: (BY_NAME[op.branch[0]].code, op.branch[1]) for op in OPCODES if op.branch}
#: ``BOX_*`` and ``UNBOX_*`` by the scalar kind they convert (``OpDef.boxes``).
BOX: Dict[str, int] = {op.boxes: op.code for op in OPCODES if op.boxes and op.outs == "R"}
UNBOX: Dict[str, int] = {op.boxes: op.code for op in OPCODES if op.boxes and op.ins == "R"}
#: The packed forms (``OpDef.specialises``), which no table may hold.
PACKED = frozenset(op.code for op in OPCODES if op.specialises)

#: Intrinsic opcodes by the schema of the library operator they implement.
INTRINSICS: Dict[str, OpDef] = {op.implements: op for op in OPCODES if op.implements}

# Module-level constants, so that hot code can bind them once: CALL, ADD_I, ...
globals().update({op.name: op.code for op in OPCODES})
__all__ += [op.name for op in OPCODES]

assert [op.code for op in OPCODES] == list(range(len(OPCODES)))
for _op in OPCODES:  # every kind string parses; the stack rules fit the shapes
    assert _op.inputs.max != 0 or not _op.stack_condition, _op
    assert not (_op.stack_condition or _op.leaves_condition) or _op.stack, _op
    # A negation is mutual, a packed form packs an instruction of the table.
    assert not _op.negation or NEGATIONS[_op.negation] == (_op.name, _op.negation_swaps), _op
    assert not _op.specialises or not BY_NAME[_op.specialises].specialises, _op
del _op


def describe() -> str:
    """The instruction set as a table, one line per opcode (``pyjit dump --opcodes``)."""
    width = max(len(op.name) for op in OPCODES)
    shapes = [f"{op.ins or '-'} -> {op.outs or '-'}" for op in OPCODES]
    swidth = max(map(len, shapes))
    twidth = max(len(op.transfer) for op in OPCODES)
    return "\n".join(
        f"{op.code:>2} {op.name:<{width}}  {shape:<{swidth}}  {op.transfer:<{twidth}}  {op.doc}"
        for op, shape in zip(OPCODES, shapes))
