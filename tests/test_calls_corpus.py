"""torch's own programs that call other functions, and torch's scripted modules, run
by pyjit as torch printed them: every graph a program reaches, in a
:class:`pyjit.CompilationUnit`, on both loops at both levels.

``tests/fixtures/calls/`` is made by ``tools/fixtures/make_calls.py`` with torch
2.13 (its docstring says what each file holds):

* a function program gives torch's result (or torch's error, with the frames of
  torch's traceback: each function's name and the line it was at) run with
  calls, run as torch's inlined graph, and scripted by ``pyjit.script`` from the
  same source;
* a module runs with a plain Python object holding the module's attributes
  (numpy arrays for tensors, nested objects for submodules, a list for a
  ``ModuleList``) as ``self``: each call gives torch's result and leaves the
  object's attributes as torch left the module's, with the methods' graphs as
  torch stored them and with torch's inlined ``forward``.
"""

from __future__ import annotations

import copy
import json
import re
import types
from pathlib import Path

import pytest

from pyjit import CompilationUnit, InterpreterError, JITException
from pyjit.frontend import script
from pyjit.interpreter import Function
from pyjit.ir.parser import parse_ir

from helpers.source_files import load_function
from helpers.values import assert_same, decode

CALLS = Path(__file__).parent / "fixtures" / "calls"
DOCS = {p.stem: json.loads(p.read_text()) for p in sorted(CALLS.glob("*.json"))}
FUNCTIONS = sorted(n for n, d in DOCS.items() if "functions" in d)
MODULES = sorted(n for n, d in DOCS.items() if "methods" in d)

# The programs whose source pyjit.script compiles as it is (the others fork with
# torch.jit.fork or take tensors, which pyjit's frontend spells with numpy).
SCRIPTABLE = ["call_chain", "call_error", "call_in_branches", "call_mutates", "call_optional",
              "call_raises", "call_strings", "call_tuple"]

# torch's traceback: one 'File "...", line N, in name' per frame, outermost first.
_FRAME = re.compile(r'File "[^"]+", line (\d+), in (\w+)')


def test_the_fixtures_are_there():
    assert len(FUNCTIONS) >= 10 and len(MODULES) >= 2
    assert set(SCRIPTABLE) <= set(FUNCTIONS)


def _check_case(run, case, where):
    args = [decode(a) for a in case["args"]]
    if "expected" in case:
        assert_same(run(*copy.deepcopy(args)), decode(case["expected"]), where)
        return None
    err = case["error"]
    with pytest.raises(InterpreterError) as info:
        run(*copy.deepcopy(args))
    last = err["message"].strip().splitlines()[-1]
    assert last.split(": ", 1)[1] in str(info.value), where
    if err["type"] == "torch.jit.Error":
        assert isinstance(info.value, JITException), where
    return info.value


@pytest.mark.parametrize("name", FUNCTIONS)
def test_torch_programs_with_calls(name, loop):
    doc = DOCS[name]
    unit = CompilationUnit(doc["functions"])
    assert set(doc["functions"]) == {c.name for c in _reachable(unit.code(doc["entry"]))}
    called = unit.function(doc["entry"], loop=loop)
    inlined = Function(parse_ir(doc["inlined"]), loop=loop)
    for i, case in enumerate(doc["cases"]):
        where = f"{name} case {i}"
        err = _check_case(called, case, where)
        if err is not None:
            # torch's traceback has a frame per call it did not inline (its
            # executor inlines small callees as it optimises, keeping their lines
            # but not their frames); pyjit's has a frame per call.  So: the same
            # outermost frame, the same failing line, torch's functions in order.
            torch_frames = [(fn, int(line)) for line, fn in _FRAME.findall(
                case["error"]["message"])]
            ours = [(f.function, f.location.line) for f in err.frames]
            assert ours[0] == torch_frames[0] and ours[-1][1] == torch_frames[-1][1], where
            names = iter(fn for fn, _ in ours)
            assert all(fn in names for fn, _ in torch_frames), (where, ours, torch_frames)
        _check_case(inlined, case, where + " (inlined)")


@pytest.mark.parametrize("name", SCRIPTABLE)
def test_pyjit_script_compiles_them_into_the_same_calls(name, tmp_path):
    doc = DOCS[name]
    fn = load_function("from typing import List, Optional, Tuple\n\n" + doc["source"],
                       tmp_path, doc["entry"])
    sf = script(fn)
    assert set(sf.functions) == set(doc["functions"])   # torch's unit, function for function
    for i, case in enumerate(doc["cases"]):
        _check_case(sf, case, f"{name} case {i} (pyjit.script)")
        _check_case(Function(sf.inlined_graph), case, f"{name} case {i} (inlined)")


def _reachable(code):
    seen, todo = [], [code]
    while todo:
        c = todo.pop()
        if c not in seen:
            seen.append(c)
            todo.extend(c.callees())
            todo.extend(c.subcodes())
    return [c for c in seen if c.name is not None]


def module_object(state):
    """A Python object with a module's attributes: ``{"module": {...}}`` becomes a
    namespace, a list of modules a list, anything else its value."""
    if isinstance(state, dict) and "module" in state:
        return types.SimpleNamespace(**{k: module_object(v) for k, v in state["module"].items()})
    if isinstance(state, list) and state and all(isinstance(s, dict) and "module" in s
                                                 for s in state):
        return [module_object(s) for s in state]
    return decode(state)


def assert_same_state(obj, state, where):
    if isinstance(state, dict) and "module" in state:
        assert list(vars(obj)) == list(state["module"]), where
        for k, v in state["module"].items():
            assert_same_state(getattr(obj, k), v, f"{where}.{k}")
    elif isinstance(state, list) and state and isinstance(state[0], dict) and "module" in state[0]:
        for i, (o, s) in enumerate(zip(obj, state)):
            assert_same_state(o, s, f"{where}[{i}]")
    else:
        assert_same(obj, decode(state), where)


@pytest.mark.parametrize("form", ["methods", "inlined"])
@pytest.mark.parametrize("name", MODULES)
def test_torch_modules_run_with_a_python_object_as_self(name, form, loop):
    doc = DOCS[name]
    cls = doc["class"]
    methods = doc["methods"] if form == "methods" else {cls: {"forward": doc["inlined"]}}
    forward = CompilationUnit(methods=methods).method(cls, "forward", loop=loop)
    obj = module_object(doc["state"])
    for i, call in enumerate(doc["calls"]):
        where = f"{name} call {i}"
        assert_same(forward(obj, *decode(call["args"])), decode(call["expected"]), where)
        assert_same_state(obj, call["state"], where + " self")


def test_a_module_graph_reads_what_the_object_holds(loop):
    """The attributes are read when the graph runs: change the object, change the
    result (nothing was frozen into the graph)."""
    doc = DOCS["Accumulator"]
    forward = CompilationUnit(methods=doc["methods"]).method(doc["class"], "forward", loop=loop)
    obj = module_object(doc["state"])
    assert forward(obj, [1.5, 2.5]) == (4.0, 0)      # below the limit of 10.0
    obj = module_object(doc["state"])
    obj.limit = 2.0
    assert forward(obj, [1.5, 2.5]) == (4.0, 1)
    assert obj.history == [1.5, 4.0]
