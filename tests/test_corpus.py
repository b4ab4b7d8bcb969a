"""The torch-recorded corpus: every program's graph, run by pyjit, gives torch's answer.

Each ``tests/fixtures/corpus/<name>.ir`` is the inlined graph torch printed for a
scripted function, and ``<name>.json`` its cases (see tests/fixtures/README.md):
arguments with the value torch returned, or the error torch raised.  pyjit parses
the graph, builds a Function and runs every case, on each backend:

* a value must be identical in type and value (tensors: dtype, shape, and values
  within float32 rounding; see :mod:`values`);
* an error must be a ``RuntimeError`` subclass (a ``JITException`` for the
  program's own ``raise``/``assert``) whose message holds torch's message and the
  ``file:line:`` of the failing statement that torch's traceback points at.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers.corpus_check import check_case
from pyjit.interpreter import Function
from pyjit.ir.parser import parse_ir

CORPUS = Path(__file__).parent / "fixtures" / "corpus"
NAMES = sorted(p.stem for p in CORPUS.glob("*.ir"))


def test_the_corpus_is_there():
    assert len(NAMES) >= 60, f"expected the recorded corpus in {CORPUS}, found {len(NAMES)}"
    for name in NAMES:
        assert (CORPUS / f"{name}.json").exists(), f"{name}.ir has no {name}.json"


def _program(name: str):
    meta = json.loads((CORPUS / f"{name}.json").read_text())
    text = (CORPUS / f"{name}.ir").read_text()
    return meta, text


@pytest.mark.parametrize("name", NAMES)
def test_corpus_program(name, loop):
    meta, text = _program(name)
    fn = Function(parse_ir(text), loop=loop)
    assert meta["cases"], f"{name} has no cases"
    for i, case in enumerate(meta["cases"]):
        check_case(fn, case, f"{name} case {i} args={case['args']!r}")
