"""The JIT-suite corpus: programs from PyTorch's own JIT tests, run as torch printed them.

``tests/fixtures/jit_suite/<group>/<name>.json`` holds a program taken from
PyTorch's test suite (``test/jit/test_list_dict.py``, ``test_string_formatting.py``,
``test_union.py``...), the inputs that test uses and what torch 2.13 returned or
raised; ``<name>.ir`` is its inlined graph (``tools/jit_suite/make_suite.py`` made
them all).  Every program runs on both loops and must do what torch did
(:func:`corpus_check.check_case`), except the ones :data:`NOT_YET` lists: each of
those must still fail, with the symptom its entry names, so the list stays exact
-- a program that starts working, or fails for another reason, fails this test
until the list says so.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Dict, NamedTuple

import pytest

from helpers.corpus_check import check_case
from pyjit.compilation_unit import CompilationUnit
from pyjit.interpreter import Function
from pyjit.ir.parser import parse_ir
from helpers.values import decode_module, enum_classes

SUITE = Path(__file__).parent / "fixtures" / "jit_suite"
NAMES = sorted(p.relative_to(SUITE).with_suffix("").as_posix() for p in SUITE.glob("*/*.json"))
GRAPHS = sorted(p.relative_to(SUITE).as_posix() for p in SUITE.glob("*/*.ir"))


class Pending(NamedTuple):
    """Why a program does not run yet, and a regular expression its failure must
    match (where a program lacks two things, which one a level meets first
    varies)."""

    reason: str
    symptom: str


#: Programs that do not run yet, each with why and how it fails (none now).
NOT_YET: Dict[str, Pending] = {}

#: Programs with a ``.deep.ir`` (fork and awaitable subgraphs inlined too) whose
#: deep graph does not run yet.
DEEP_NOT_YET: Dict[str, Pending] = {}
DEEP = sorted(p.relative_to(SUITE).as_posix()[:-len(".deep.ir")]
              for p in SUITE.glob("*/*.deep.ir"))
#: Programs that call other functions (and modules' forward): their graph as
#: torch stored it, with prim::CallFunction/prim::CallMethod.
PRINTED = sorted(p.relative_to(SUITE).as_posix()[:-len(".graph.ir")]
                 for p in SUITE.glob("*/*.graph.ir"))


def _meta(name: str) -> dict:
    return json.loads((SUITE / f"{name}.json").read_text(encoding="utf-8"))


def _function(name: str, meta: dict, loop, suffix: str, enums: Dict[str, type]):
    """The program as a callable: its graph alone, or, when it calls other
    functions, is a module's method, makes objects of TorchScript classes or uses
    enums, in a CompilationUnit with the graphs torch printed for its callees
    (``<name>.callee.<f>.ir``), the methods of its module
    (``<name>.method.<m>.ir``) and classes (``<name>.class.<C>.<m>.ir``), and its
    enum classes."""
    graph = parse_ir((SUITE / f"{name}{suffix}").read_text(encoding="utf-8"))
    callees = {c: (SUITE / f"{name}.callee.{c}.ir").read_text(encoding="utf-8")
               for c in meta.get("callees", ())
               if (SUITE / f"{name}.callee.{c}.ir").exists()}
    methods: Dict[str, Dict[str, str]] = {}
    stem = Path(name).name
    for kind in ("method", "class"):
        for path in sorted(SUITE.glob(f"{name}.{kind}.*.ir")):
            text = path.read_text(encoding="utf-8")
            # <name>.class.<C>.<m>.ir, <name>.method.<path.to.submodule>.<m>.ir: the
            # method's class is its self's type; submodules of one class share it.
            method = path.name[:-len(".ir")].rpartition(".")[2]
            cls = str(parse_ir(text).inputs[0].type)
            methods.setdefault(cls, {}).setdefault(method, text)
    if not callees and not methods and not enums:
        return Function(graph, loop=loop)
    unit = CompilationUnit({name: graph, **callees}, methods=methods, enums=enums.values())
    return unit.function(name, loop=loop)


def _run(name: str, loop, capsys, suffix: str = ".ir") -> None:
    meta = _meta(name)
    enums = enum_classes(meta.get("enums"))
    fn = _function(name, meta, loop, suffix, enums)
    self_arg = decode_module(meta["module"], enums) if "module" in meta else None
    assert meta["cases"], f"{name} has no cases"
    for i, case in enumerate(meta["cases"]):
        check_case(fn, case, f"{name} case {i} args={case['args']!r}", capsys, self_arg,
                   enums)


def test_the_suite_is_there():
    assert len(NAMES) >= 400, f"expected the recorded suite in {SUITE}, found {len(NAMES)}"
    for name in NAMES:
        assert (SUITE / f"{name}.ir").exists(), f"{name}.json has no {name}.ir"
    assert not set(NOT_YET) - set(NAMES), "NOT_YET names programs that do not exist"
    assert not set(DEEP_NOT_YET) - set(DEEP), "DEEP_NOT_YET names programs without .deep.ir"


@pytest.mark.parametrize("graph", GRAPHS)
def test_graph_round_trip(graph):
    """Every graph torch printed parses, and prints back byte for byte."""
    text = (SUITE / graph).read_text(encoding="utf-8")
    assert str(parse_ir(text)) == text


def _check(name: str, pending, loop, capsys, suffix: str = ".ir") -> None:
    if pending is None:
        _run(name, loop, capsys, suffix)
        return
    with pytest.raises(Exception) as info:
        _run(name, loop, capsys, suffix)
    assert re.search(pending.symptom, str(info.value)), \
        f"{name} ({pending.reason}) fails otherwise than expected: {info.value}"


@pytest.mark.parametrize("name", NAMES)
def test_program(name, loop, capsys):
    _check(name, NOT_YET.get(name), loop, capsys)


@pytest.mark.parametrize("name", DEEP)
def test_deep_inlined_program(name, loop, capsys):
    """A program whose forks or awaitables call functions, with those calls inlined
    too: what the forks and awaitables do, until calls run as torch printed them."""
    _check(name, DEEP_NOT_YET.get(name), loop, capsys, ".deep.ir")


@pytest.mark.parametrize("name", PRINTED)
def test_program_with_calls(name, loop, capsys):
    """A program that calls other functions (or a module's forward) as torch
    stored it, its callees' and methods' graphs given: what inlining gives."""
    _check(name, NOT_YET.get(name), loop, capsys, ".graph.ir")
