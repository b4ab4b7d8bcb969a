"""The instruction set as one table: what pyjit/opcodes.py derives, the compiled
loop's cases generated from it (pyjit/_loop_cases.py), and the packed forms the
compiled loop runs, named in the listing of the instruction set and by the
profiler."""

import math
import os
import re

import pytest

import pyjit
from pyjit import _loop_cases, opcodes
from pyjit.interpreter import Function, program_of
from pyjit.ir.parser import parse_ir

from helpers.asm import asm
from helpers.backends import import_backend

PACKAGE = os.path.dirname(os.path.abspath(opcodes.__file__))


def _template() -> str:
    with open(os.path.join(PACKAGE, _loop_cases.TEMPLATE)) as f:
        return f.read()


# -- the generated files ----------------------------------------------------------

def test_the_compiled_loop_was_built_from_todays_table_and_template():
    core = import_backend("compiled")
    expanded = _loop_cases.expand_loop(_template(), opcodes)
    assert core._LOOP_DIGEST == _loop_cases.loop_digest(expanded), (
        "pyjit._core was built from another _run_loop.pxi or opcodes.py: rebuild it")
    for name, text in ((_loop_cases.EXPANDED, expanded),
                       (_loop_cases.ENUM, _loop_cases.opcode_enum(opcodes, expanded))):
        path = os.path.join(PACKAGE, name)
        if not os.path.exists(path):
            continue    # an installed pyjit: the build's tree, and what it generated, is gone
        with open(path) as f:
            assert f.read() == text, f"{name} is stale: run python setup.py build_ext --inplace"


def test_every_instruction_has_exactly_one_case_in_the_loop():
    expanded = _loop_cases.expand_loop(_template(), opcodes)
    tested = re.findall(r"^ {12}(?:if|elif) (opc == OP_\w+(?: or opc == OP_\w+)*):$",
                        expanded, re.M)
    top = [name for case in tested for name in re.findall(r"OP_(\w+)", case)]
    # The seed's protocol shares one case (push, act, pop) and tests inside it.
    seed = set(re.findall(r"opc == OP_(\w+)", expanded.split("# ---- the seed's protocol")[1]))
    assert len(top) == len(set(top))
    assert set(top) | seed == {d.name for d in opcodes.OPCODES}
    assert not set(top) & (seed - {"CALL"})


def test_the_generated_cases_are_the_declared_actions():
    expanded = _loop_cases.expand_loop(_template(), opcodes)
    assert ("            elif opc == OP_AND_I or opc == OP_AND_B:\n"
            "                S[words[2]].i = S[words[0] >> 1].i & S[words[1] >> 1].i\n") in expanded
    assert ("            elif opc == OP_JNLT_F:\n"
            "                if not (S[words[0] >> 1].f < S[words[1] >> 1].f):\n"
            "                    target = _jump(code, ins, &ticks)\n") in expanded
    assert ("S[words[2]].i = S[words[0] >> 1].i & ((<int64_t>1 << ins.arg) - 1)"
            in expanded)  # REM_POW2: {arg} is the packed record's operand
    # The hand-written source keeps no case that the table declares, and no copy
    # of the jump-and-tick tail: that is written once, in _loop_cases.
    template = _template()
    for d in opcodes.OPCODES:
        if d.c:
            assert not re.search(rf"opc == OP_{d.name}\b", template), d.name
    assert "_jump(code, ins, &ticks)" not in template
    assert expanded.count("_jump(code, ins, &ticks)") == 1 + sum(
        1 for d in opcodes.OPCODES if d.jumps and (d.c or not d.ins and not d.stack_condition))


def test_the_spans_of_a_group_must_cover_it():
    with pytest.raises(ValueError, match=r"no marker of 'scalar' covers MUL_I, NEG_I, "):
        _loop_cases.expand_loop("            # @cases if scalar ADD_I-SUB_I\n", opcodes)
    text = _loop_cases.expand_loop("            # @cases if scalar ADD_I-MUL_I\n"
                                   "            # @cases elif scalar FLOORDIV_I-F2B\n"
                                   "            # @cases elif scalar CALL1-REM_POW2_JNEZ\n",
                                   opcodes)
    # A case two instructions share stands at the first: AND_B with AND_I.
    assert text.index("opc == OP_AND_I or opc == OP_AND_B:") < text.index("opc == OP_ADD_F:")
    assert text.index("opc == OP_MUL_I:") < text.index("opc == OP_NEG_I:")


def test_a_malformed_marker_is_an_error():
    with pytest.raises(ValueError, match=r"_run_loop.pxi:2: malformed marker '# @case scalar'"):
        _loop_cases.expand_loop("x = 1\n    # @case scalar\n", opcodes)
    with pytest.raises(ValueError, match="unknown group of cases 'tensor'"):
        _loop_cases.expand_loop("    # @cases elif tensor\n", opcodes)


# -- the small tables derived from the one table ------------------------------------

VALUES = {"I": [-3, 0, 2, 7], "F": [-1.5, 0.0, 2.0, math.nan, math.inf],
          "B": [False, True]}


def _jump_taken(d, a, b=None):
    if d.test:
        return opcodes.TESTS[d.test](a, b)
    return bool(a) if d.name in ("JT", "JUMPNZ") else not a


@pytest.mark.parametrize("name", sorted(opcodes.NEGATIONS))
def test_a_negation_is_taken_exactly_when_the_jump_is_not(name):
    d = opcodes.BY_NAME[name]
    neg_name, swapped = opcodes.NEGATIONS[name]
    neg = opcodes.BY_NAME[neg_name]
    assert opcodes.NEGATIONS[neg_name] == (name, swapped)
    kinds = d.ins.rstrip("?") if d.ins != "R?" else "B"
    for a in VALUES[kinds[0]]:
        for b in (VALUES[kinds[1]] if len(kinds) == 2 else [None]):
            x, y = (b, a) if swapped else (a, b)
            assert _jump_taken(neg, x, y) == (not _jump_taken(d, a, b)), (name, a, b)


@pytest.mark.parametrize("name", sorted(opcodes.BRANCHES))
def test_a_comparison_folds_into_the_jump_that_it_holds_for(name):
    d = opcodes.BY_NAME[name]
    code, swapped = opcodes.BRANCHES[name]
    jump = opcodes.BY_CODE[code]
    assert jump.ins == d.ins and d.outs == "B"
    compare = {"<": "lt", "<=": "le", ">": "gt", ">=": "ge", "==": "eq", "!=": "ne"}
    fn = getattr(__import__("operator"), compare[d.transfer.split()[3]])
    for a in VALUES[d.ins[0]]:
        for b in VALUES[d.ins[1]]:
            x, y = (b, a) if swapped else (a, b)
            assert _jump_taken(jump, x, y) == fn(a, b), (name, a, b)


def test_boxes_and_unboxes_by_kind():
    assert {k: opcodes.BY_CODE[c].name for k, c in opcodes.BOX.items()} == {
        "I": "BOX_I", "F": "BOX_F", "B": "BOX_B"}
    assert {k: opcodes.BY_CODE[c].name for k, c in opcodes.UNBOX.items()} == {
        "I": "UNBOX_I", "F": "UNBOX_F", "B": "UNBOX_B"}


def test_jump_labels():
    labels = {d.name: d.jump_label for d in opcodes.OPCODES if d.jumps}
    assert labels["JUMP"] == "jump" and labels["JF"] == labels["JUMPZ"] == "jump if false"
    assert labels["JT"] == labels["JUMPNZ"] == "jump if true"
    assert labels["JLT_I"] == "jump if JLT_I" and labels["LOOP_BACK"] == "jump if LOOP_BACK"


# -- the packed forms ------------------------------------------------------------------

PACKED = ["CALL1", "CALL2", "FLOORDIV_POW2", "REM_POW2", "FLOORDIV_K", "REM_K",
          "REM_POW2_JEQZ", "REM_POW2_JNEZ"]


def test_every_packed_form_is_in_the_table_and_its_listing():
    assert sorted(opcodes.BY_CODE[c].name for c in opcodes.PACKED) == sorted(PACKED)
    listing = opcodes.describe()
    for name in PACKED:
        d = opcodes.BY_NAME[name]
        assert d.specialises in ("CALL", "FLOORDIV_I", "REM_I")
        assert re.search(rf"^{d.code} {name} ", listing, re.M), name
        assert not d.jumps  # the fused jump is the next record's
    assert opcodes.BY_NAME["REM_POW2_JEQZ"].fuses == "JEQ_I"


@pytest.mark.parametrize("name", PACKED)
def test_no_table_may_hold_a_packed_form(name, loop):
    table = asm([(name, [0, 1], [0, 0], [2])], callbacks=(max,))
    with pytest.raises(ValueError, match=rf"^instruction 0 \({name}\): is a packed form of "):
        loop.Program(**table)


PACKS = """\
graph(%n : int, %x : Tensor):
  %zero : int = prim::Constant[value=0]()
  %two : int = prim::Constant[value=2]()
  %four : int = prim::Constant[value=4]()
  %seven : int = prim::Constant[value=7]()
  %t : bool = prim::Constant[value=1]()
  %s : int = prim::Loop(%n, %t, %zero)
    block0(%i : int, %acc : int):
      %r : int = aten::remainder(%i, %two)
      %c : bool = aten::eq(%r, %zero)
      %acc2 : int = prim::If(%c)
        block0():
          %q : int = aten::floordiv(%i, %four)
          -> (%q)
        block1():
          %k : int = aten::remainder(%i, %seven)
          -> (%k)
      %acc3 : int = aten::add(%acc, %acc2)
      -> (%t, %acc3)
  %y : Tensor = aten::neg(%x)
  return (%s, %y)
"""


def test_the_profiler_counts_the_packed_forms_under_their_own_names(loop):
    import numpy as np
    f = Function(parse_ir(PACKS), loop=loop)
    with pyjit.profile() as prof:
        s, _ = f(10, np.ones(2))
    assert s == sum(i // 4 if i % 2 == 0 else i % 7 for i in range(10))
    kinds = {name: count for name, (count, _) in prof.instructions().items()}
    if loop.__name__ == "pyjit._pure":  # the pure loop runs its table as it is
        assert not set(kinds) & set(PACKED) and kinds["CALL"] >= 1
    else:
        assert kinds["CALL1"] == 1 and "CALL" not in kinds  # every call here is packed
    if loop.__name__ == "pyjit._core" and pyjit.code.default_optimize():
        assert kinds["REM_POW2_JEQZ"] == 10 and kinds["JEQ_I"] == 10
        assert kinds["FLOORDIV_POW2"] == 5 and kinds["REM_K"] == 5
        assert "REM_I" not in kinds and "FLOORDIV_I" not in kinds
    assert prof.to_json()["instructions"] == {k: list(v) for k, v in prof.instructions().items()}
    program = program_of(f.code, loop)
    assert len(program.packed_opcodes()) == program.n_instructions
