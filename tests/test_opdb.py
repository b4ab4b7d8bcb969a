"""torch's operator database, run by pyjit: every recorded entry on both loops.

``tests/fixtures/opdb`` holds, for every ``op_db`` entry that supports float32,
the graphs torch printed for a call on its first two float32 samples, the inputs
and torch's results (``tools/fixtures/make_opdb.py``).  ``pyjit/ops/opdb.txt``
says which entries pyjit runs; this file holds it to that, in both directions:

* an entry marked ``pass`` must give torch's result (or torch's error) on every
  sample, on both loops;
* an entry marked ``fail: <reason>`` must still fail (``xfail(strict=True)``), so
  one that starts passing fails the suite until the file says so: coverage only
  moves deliberately;
* the file lists exactly the recorded entries, and ``unscriptable`` exactly
  those torch could not script.
"""

from __future__ import annotations

import pytest

from helpers.torch_cases import load, run_case
from pyjit.interpreter import Function
from pyjit.ir.parser import parse_ir
from pyjit.ops.coverage import opdb_coverage

FIXTURES = load("opdb")
COVERAGE = opdb_coverage()
RECORDED = [e for e in FIXTURES.entries if "samples" in e]


def test_the_coverage_file_lists_every_entry():
    assert list(COVERAGE.status) == [e["name"] for e in FIXTURES.entries]
    unscriptable = {e["name"] for e in FIXTURES.entries if "skipped" in e}
    assert {n for n, s in COVERAGE.status.items() if s.startswith("unscriptable")} == \
        unscriptable
    assert len(RECORDED) == COVERAGE.scriptable


def test_coverage_is_at_least_the_target():
    # Issue 15: at least 70% of the entries torch can script pass all their samples.
    assert len(COVERAGE.passing) / COVERAGE.scriptable >= 0.70


def _marked(entry):
    status = COVERAGE.status[entry["name"]]
    if status == "pass":
        return pytest.param(entry, id=entry["name"])
    return pytest.param(entry, id=entry["name"],
                        marks=pytest.mark.xfail(strict=True, reason=status))


@pytest.mark.filterwarnings("ignore::UserWarning")  # torch.nn.functional's deprecations
@pytest.mark.parametrize("entry", [_marked(e) for e in RECORDED])
def test_opdb_entry(entry, loop):
    for i, sample in enumerate(entry["samples"]):
        fn = Function(parse_ir(sample["graph"]), loop=loop)
        run_case(fn, FIXTURES, sample, f"{entry['name']} sample {i}")


def test_info_ops_reports_families_and_measured_coverage(capsys):
    from pyjit.cli import main
    assert main(["info", "--ops"]) == 0
    out = capsys.readouterr().out
    passing, total = len(COVERAGE.passing), COVERAGE.scriptable
    assert (f"torch op_db (torch 2.13, float32, two samples per entry): {passing} of {total} "
            f"entries torch can script pass ({100 * passing / total:.1f}%)") in out
    for name, reason in COVERAGE.failing.items():
        assert f"    {name}" in out and reason in out
    for title in ("pointwise", "reductions and numerics", "shape and indexing", "dtype and device",
                  "creation", "linear algebra", "fft", "neural network", "random"):
        assert f"\n  {title} (" in out


def test_every_family_name_is_a_registered_operator():
    """The family tables ``pyjit info --ops`` prints name operators that exist."""
    from pyjit.ops import FAMILIES, family_operators
    from pyjit.registry import default_registry
    kinds = set(default_registry.kinds())
    for title, modules in FAMILIES:
        for module in modules:
            missing = [n for n in family_operators(module)
                       if not {f"aten::{n}", f"prim::{n}", f"torchvision::{n}", f"torchaudio::{n}",
                                f"pyjit::{n}"} & kinds]
            assert not missing, f"{title} ({module.__name__}) lists unregistered {missing}"



def test_the_readme_states_the_measured_coverage():
    from pathlib import Path
    text = " ".join((Path(__file__).resolve().parent.parent / "README.md").read_text().split())
    passing, total = len(COVERAGE.passing), COVERAGE.scriptable
    assert (f"Today {passing} of the {total} op_db entries torch can script pass "
            f"({100 * passing / total:.1f}%)") in text
