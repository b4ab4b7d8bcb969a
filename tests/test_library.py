"""Tensor functions in the style of torchvision.ops and kornia, as torch scripted
them, run by pyjit on both loops.

``tests/fixtures/library`` holds each function's inlined graph and its cases:
arguments with torch's result or torch's error
(``tools/fixtures/make_library.py``, from ``tools/fixtures/library_programs.py``).
A function not in :data:`NOT_YET` must reproduce every case; one in it must still
fail (``xfail(strict=True)``), with the reason written here.
"""

from __future__ import annotations

import pytest

from helpers.torch_cases import load, run_entry
from pyjit.interpreter import Function
from pyjit.ir.parser import parse_ir

FIXTURES = load("library")

#: Functions pyjit does not run yet, and why.
NOT_YET: dict = {}


def test_the_library_fixtures_are_there():
    assert len(FIXTURES.entries) >= 60
    assert set(NOT_YET) <= set(FIXTURES.by_name)
    # Issue 15: at least 90% of the functions run correctly on both loops.
    assert 1 - len(NOT_YET) / len(FIXTURES.entries) >= 0.90


def test_the_readme_states_the_measured_coverage():
    from pathlib import Path
    text = " ".join((Path(__file__).resolve().parent.parent / "README.md").read_text().split())
    total = len(FIXTURES.entries)
    assert f"and {total - len(NOT_YET)} of the {total} library functions" in text


def _marked(entry):
    if entry["name"] in NOT_YET:
        return pytest.param(entry, id=entry["name"],
                            marks=pytest.mark.xfail(strict=True, reason=NOT_YET[entry["name"]]))
    return pytest.param(entry, id=entry["name"])


@pytest.mark.filterwarnings("ignore::UserWarning")  # torch.nn.functional's deprecations
@pytest.mark.parametrize("entry", [_marked(e) for e in FIXTURES.entries])
def test_library_function(entry, loop):
    fn = Function(parse_ir(entry["graph"]), loop=loop)
    run_entry(fn, FIXTURES, entry)
