"""The corpus (``tests/frontend_programs.py``): every program, scripted, gives what
CPython gives, on both run loops, and again after a round trip through the text
format (``parse_ir(str(f.graph))``, in a unit with the texts of the functions it
calls) and inlined."""

from __future__ import annotations

import copy

import numpy as np
import pytest

from pyjit import CompilationUnit, JITException
from pyjit.frontend import script
from pyjit.interpreter import Function
from pyjit.ir.parser import parse_ir

from helpers.frontend_programs import CASES


FUNCTIONS = [pytest.param(fn, arg_sets, id=fn.__name__) for fn, arg_sets in CASES]

_scripted = {}


def scripted(fn):
    if fn not in _scripted:
        _scripted[fn] = script(fn)
    return _scripted[fn]


def run_python(fn, args):
    try:
        return fn(*copy.deepcopy(args)), None
    except Exception as exc:  # the graph must raise too
        return None, exc


def assert_same(got, want):
    if isinstance(want, np.ndarray):
        assert isinstance(got, np.ndarray) and got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
        return
    assert got == want
    assert type(got) is type(want)
    if isinstance(want, (list, tuple)):
        for g, w in zip(got, want):
            assert_same(g, w)
    if isinstance(want, dict):
        assert list(got) == list(want)  # insertion order too


def test_the_corpus_is_big_enough():
    assert len(CASES) >= 40
    assert sum(len(a) for _, a in CASES) >= 100


@pytest.mark.parametrize("fn, arg_sets", FUNCTIONS)
def test_scripted_equals_python(fn, arg_sets, loop):
    f = scripted(fn).unit.function(fn.__name__, loop=loop)
    for args in arg_sets:
        want, error = run_python(fn, args)
        if error is not None:
            with pytest.raises(JITException) as info:
                f(*copy.deepcopy(args))
            assert str(error) in info.value.msg
            continue
        assert_same(f(*copy.deepcopy(args)), want)


@pytest.mark.parametrize("fn, arg_sets", FUNCTIONS)
def test_script_function_call(fn, arg_sets):
    """``f(*args)`` checks the arguments and runs on the active backend."""
    for args in arg_sets:
        want, error = run_python(fn, args)
        if error is None:
            assert_same(scripted(fn)(*copy.deepcopy(args)), want)


@pytest.mark.parametrize("fn, arg_sets", FUNCTIONS)
def test_round_trip_through_text(fn, arg_sets):
    f = scripted(fn)
    texts = {name: str(sf.graph) for name, sf in f.functions.items()}
    for text in texts.values():
        assert str(parse_ir(text)) == text
    run = CompilationUnit(texts).function(fn.__name__)
    inlined = Function(parse_ir(str(f.inlined_graph)))
    for args in arg_sets:
        want, error = run_python(fn, args)
        if error is None:
            assert_same(run(*copy.deepcopy(args)), want)
            assert_same(inlined(*copy.deepcopy(args)), want)
