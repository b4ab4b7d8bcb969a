"""The compiled loop's generated parts, made from :mod:`pyjit.opcodes` at build time.

CPython writes each instruction once, in ``bytecodes.c``, and generates its eval
loop's cases from it; pyjit does the same for the cases that are data.  The
instructions whose action is one line of C -- the scalar intrinsics, the packed
shift-and-mask forms, the compare-and-branch jumps -- declare it in their
``OpDef`` (``c=``), and ``setup.py`` calls :func:`generate` before it compiles:

* ``pyjit/_opcodes.pxi``: the opcode numbers as a C enum, with the table they
  came from (``_core`` and ``_timed`` refuse to import if it changed since) and
  the digest of the loop below (``_LOOP_DIGEST``, which a test compares);
* ``pyjit/_run_loop_expanded.pxi``: ``pyjit/_run_loop.pxi``, the hand-written
  loop, with its markers replaced.  A marker is a comment line of its own:

  ``# @cases if scalar`` / ``# @cases elif scalar`` (``... scalar NEG_I-DIV_F``)
      one case per distinct ``c`` of the instructions that do not jump
      (instructions with the same action share a case: ``AND_I`` and ``AND_B``),
      or of those from one opcode to another, so that the generated cases can
      stand where the hand-written ones around them had them (the C compiler
      lays the cases out in that order); ``if`` when the marker opens the
      dispatch chain;
  ``# @cases elif jumps``
      one case per jump that has a condition in ``c`` (``JT``, ``JLT_I``...), and
      the unconditional ``JUMP``: when the condition holds, the jump is taken;
  ``# @jump``
      the one way a jump is taken: go to ``arg``, a backward jump counting
      towards the next look at signals and at the GIL (``_tick``).

Everything else in the loop -- the seed's stack protocol, activations, the GIL
and the ticks, reference counting, suspension -- is design, not data, and stays
hand-written in ``_run_loop.pxi``.  In a ``c`` template ``{inK}`` is input K's
scalar register, ``{outK}`` output K's, ``{arg}`` the instruction's operand.

This module is read by path from ``setup.py`` (before the package is built), so it
imports nothing of pyjit: the opcodes module is passed in.
"""

from __future__ import annotations

import hashlib
import os
import re
from typing import Dict, List

__all__ = ["opcode_enum", "expand_loop", "loop_digest", "generate", "TEMPLATE",
           "EXPANDED", "ENUM"]

#: The hand-written loop, the file generated from it and the enum, relative to
#: the ``pyjit`` package directory.
TEMPLATE = "_run_loop.pxi"
EXPANDED = "_run_loop_expanded.pxi"
ENUM = "_opcodes.pxi"

_MARKER = re.compile(r"^(?P<indent>[ ]*)# @(?:cases (?P<kw>if|elif) (?P<group>\w+)"
                     r"(?: (?P<first>\w+)-(?P<last>\w+))?|(?P<jump>jump))[ ]*$")

# A jump taken.  _jump stays small, so that the C compiler inlines it at every
# jump of the loop; _tick is out of line.
_TAKE_JUMP = """\
target = _jump(code, ins, &ticks)
if ticks == 0:
    ticks = TICK
    _tick(&released, &last_signals, ins.gil_free)
ins = target
continue"""


def _operands(text: str, n_in: int) -> str:
    """A ``c`` template with its operands as the loop reads them: input K is
    ``S[words[K] >> 1]`` (an input word is its register and a move bit), output
    K ``S[words[n_in + K]]``."""
    text = re.sub(r"\{in(\d)\}", lambda m: f"S[words[{m.group(1)}] >> 1]", text)
    text = re.sub(r"\{out(\d)\}", lambda m: f"S[words[{n_in + int(m.group(1))}]]", text)
    return text.replace("{arg}", "ins.arg")


def _indented(text: str, indent: str) -> List[str]:
    return [indent + line for line in text.splitlines()]


def _group(opcodes, group: str) -> list:
    """The instructions of a group, in opcode order."""
    if group == "scalar":
        return [d for d in opcodes.OPCODES if d.c and not d.jumps]
    if group == "jumps":
        return [d for d in opcodes.OPCODES
                if d.jumps and (d.c or not d.ins and not d.stack_condition)]
    raise ValueError(f"{TEMPLATE}: unknown group of cases {group!r} in a marker "
                     "(expected 'scalar' or 'jumps')")


def _cases(opcodes, group: str, keyword: str, indent: str, span=None) -> List[str]:
    """The cases of one marker, in opcode order: the whole group's, or those from
    ``span``'s first to its last opcode (a case shared by instructions of the
    same action is emitted at the first of them)."""
    members = _group(opcodes, group)
    chosen = members
    if span is not None:
        lo, hi = (opcodes.BY_NAME[name].code for name in span)
        chosen = [d for d in members if lo <= d.code <= hi]
    actions = {d.c for d in chosen}
    first = {}
    for d in members:
        first.setdefault(d.c, d)
    by_action: Dict[str, list] = {}
    for d in members:
        if d.c in actions and first[d.c] in chosen:
            by_action.setdefault(d.c, []).append(d)
    lines: List[str] = []
    body = indent + " " * 4
    for action, defs in by_action.items():
        if len({d.inputs.min for d in defs}) != 1:
            raise ValueError(f"{', '.join(d.name for d in defs)} share an action but not "
                             "their number of inputs")
        test = " or ".join(f"opc == OP_{d.name}" for d in defs)
        lines.append(f"{indent}{keyword} {test}:")
        keyword = "elif"
        if group == "scalar":
            lines += _indented(_operands(action, defs[0].inputs.min), body)
        elif action:
            lines.append(f"{body}if {_operands(action, defs[0].inputs.min)}:")
            lines += _indented(_TAKE_JUMP, body + " " * 4)
        else:
            lines += _indented(_TAKE_JUMP, body)
    return lines


def expand_loop(template: str, opcodes) -> str:
    """``_run_loop.pxi``'s text with its markers replaced (see the module
    docstring), headed by a line saying it is generated."""
    out = [f"# Generated by setup.py from pyjit/{TEMPLATE} and pyjit/opcodes.py "
           "(pyjit/_loop_cases.py): do not edit.", ""]
    groups = set()
    for number, line in enumerate(template.splitlines(), 1):
        m = _MARKER.match(line)
        if m is None:
            if "# @" in line and line.lstrip().startswith("# @"):
                raise ValueError(f"{TEMPLATE}:{number}: malformed marker {line.strip()!r}")
            out.append(line)
        elif m.group("jump"):
            out += _indented(_TAKE_JUMP, m.group("indent"))
        else:
            span = (m.group("first"), m.group("last")) if m.group("first") else None
            out += _cases(opcodes, m.group("group"), m.group("kw"), m.group("indent"), span)
            groups.add(m.group("group"))
    text = "\n".join(out) + "\n"
    for group in sorted(groups):  # the spans of a group must leave none of it out
        missing = [d.name for d in _group(opcodes, group) if f"opc == OP_{d.name}:" not in text
                   and f"opc == OP_{d.name} or" not in text]
        if missing:
            raise ValueError(f"{TEMPLATE}: no marker of {group!r} covers {', '.join(missing)}")
    return text


def loop_digest(expanded: str) -> str:
    """What ``_core._LOOP_DIGEST`` holds when ``_core`` was built from ``expanded``."""
    return hashlib.sha256(expanded.encode()).hexdigest()[:16]


def opcode_enum(opcodes, expanded: str) -> str:
    """``_opcodes.pxi``'s text."""
    lines = ["# Generated by setup.py from pyjit/opcodes.py (pyjit/_loop_cases.py): "
             "do not edit.", "", "cdef enum:"]
    lines += [f"    OP_{d.name} = {d.code}" for d in opcodes.OPCODES]
    lines += ["", "# What the enum was generated from, checked when _core is imported.",
              "_GENERATED_FROM = {" + ", ".join(f"{d.name!r}: {d.code}"
                                                for d in opcodes.OPCODES) + "}",
              f"# The digest of {EXPANDED}, compared by tests/test_loop_cases.py.",
              f"_LOOP_DIGEST = {loop_digest(expanded)!r}", ""]
    return "\n".join(lines)


def generate(package_dir: str, opcodes) -> List[str]:
    """Write ``_opcodes.pxi`` and ``_run_loop_expanded.pxi`` in ``package_dir``
    where their text changed (an unchanged file keeps its time stamp: no needless
    rebuild); returns the paths written."""
    with open(os.path.join(package_dir, TEMPLATE)) as f:
        expanded = expand_loop(f.read(), opcodes)
    written = []
    for name, text in ((EXPANDED, expanded), (ENUM, opcode_enum(opcodes, expanded))):
        path = os.path.join(package_dir, name)
        old = None
        if os.path.exists(path):
            with open(path) as f:
                old = f.read()
        if old != text:
            with open(path, "w") as f:
                f.write(text)
            written.append(path)
    return written
