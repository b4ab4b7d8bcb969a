"""The operators issue 24 adds, as torch scripted and ran them
(``tests/fixtures/surface``, from ``tools/fixtures/surface_programs.py``): device
comparisons, in-place views, introspection, autocast and TorchScript queries,
conjugate transposes, windows, Python's builtins on numbers, the rest of the
public surface, and the random operators' shapes, dtypes and errors.  Every case
on both loops, with torch's values and torch's messages."""

from __future__ import annotations

import numpy as np
import pytest

from helpers.torch_cases import load, run_case
from pyjit.interpreter import Function
from pyjit.ir.parser import parse_ir

FIXTURES = load("surface")


@pytest.mark.parametrize("entry", FIXTURES.entries, ids=[e["name"] for e in FIXTURES.entries])
def test_surface_operator(entry, loop):
    fn = Function(parse_ir(entry["graph"]), loop=loop)
    for i, case in enumerate(entry["cases"]):
        run_case(fn, FIXTURES, case, f"{entry['name']} case {i}")


def _run(text: str, loop, *args):
    return Function(parse_ir(text), loop=loop)(*args)


def test_pin_memory_is_refused_as_on_a_machine_without_an_accelerator(loop):
    """torch 2.13's CPU build (the fixtures' torch is a CUDA build, which names
    the missing driver instead)."""
    text = ("graph(%x : Tensor):\n  %none : NoneType = prim::Constant()\n"
            "  %y : Tensor = aten::pin_memory(%x, %none)\n  return (%y)\n")
    with pytest.raises(RuntimeError, match="^RuntimeError: Cannot access accelerator device when "
                                           "none is available.\n"):
        _run(text, loop, np.ones(2, np.float32))


GENERATOR = """graph(%seed : int, %again : int):
  %none : NoneType = prim::Constant()
  %g : Generator = aten::Generator(%none, %seed)
  %first : int = aten::initial_seed(%g)
  %two : int = prim::Constant[value=2]()
  %size : int[] = prim::ListConstruct(%two, %two)
  %a : Tensor = aten::rand(%size, %g, %none, %none, %none, %none)
  %g2 : Generator = aten::manual_seed(%g, %again)
  %b : Tensor = aten::rand(%size, %g2, %none, %none, %none, %none)
  %second : int = aten::initial_seed(%g2)
  %rate : float = prim::Constant[value=2.]()
  %x : Tensor = aten::exponential_(%b, %rate, %g)
  return (%first, %a, %second, %x)
"""


def test_a_generator_of_the_graph_draws_for_the_operators_given_it(loop):
    first, a, second, x = _run(GENERATOR, loop, 7, 7)
    assert (first, second) == (7, 7)
    assert a.dtype == np.float32 and a.shape == (2, 2) and ((a >= 0) & (a < 1)).all()
    # the same seed, the same draws
    np.testing.assert_array_equal(_run(GENERATOR, loop, 7, 8)[1], a)
    assert not np.array_equal(_run(GENERATOR, loop, 8, 8)[1], a)
    assert x.shape == (2, 2) and (x >= 0).all()


def test_the_process_seed_repeats_the_draws(loop):
    text = ("graph(%s : int):\n  %none : NoneType = prim::Constant()\n"
            "   = aten::manual_seed(%s)\n  %n : int = prim::Constant[value=3]()\n"
            "  %size : int[] = prim::ListConstruct(%n)\n"
            "  %r : Tensor = aten::randn(%size, %none, %none, %none, %none)\n  return (%r)\n")
    np.testing.assert_array_equal(_run(text, loop, 5), _run(text, loop, 5))


def test_torchscript_answers_for_itself(loop):
    text = ("graph(%x : Tensor, %i : int):\n"
            "  %h : bool = aten::has_torch_function(%x, %i)\n"
            "  %s : bool = aten::is_scripting()\n  return (%h, %s)\n")
    assert _run(text, loop, np.ones(1), 3) == (False, True)


def test_an_in_place_view_cannot_move_the_first_element(loop):
    text = ("graph(%x : Tensor):\n  %s : int[] = prim::Constant[value=[2]]()\n"
            "  %st : int[] = prim::Constant[value=[1]]()\n"
            "  %o : int = prim::Constant[value=1]()\n"
            "  %y : Tensor = aten::as_strided_(%x, %s, %st, %o)\n  return (%y)\n")
    with pytest.raises(RuntimeError, match=r"pyjit cannot move a tensor's storage offset in place "
                                           r"\(from 0 to 1\)"):
        _run(text, loop, np.arange(2.0))


def test_embedding_bag_offsets_start_at_zero(loop):
    text = ("graph(%w : Tensor, %i : Tensor, %o : Tensor):\n"
            "  %f : bool = prim::Constant[value=0]()\n  %m : int = prim::Constant[value=0]()\n"
            "  %none : NoneType = prim::Constant()\n"
            "  %a : Tensor, %b : Tensor, %c : Tensor, %d : Tensor = aten::embedding_bag(%w, %i, "
            "%o, %f, %m, %f, %none, %f, %none)\n  return (%a)\n")
    with pytest.raises(RuntimeError, match=r"offsets\[0\] has to be 0, i.e., the first sequence "
                                           r"in the mini-batch has to start from position 0. "
                                           r"However, got 2"):
        _run(text, loop, np.ones((4, 3), np.float32), np.array([0, 1]), np.array([2]))


def test_a_seeded_generator_repeats_the_generator_overloads(loop):
    """``seeded_draws``: torch's graph of the ``generator=`` overloads (randint,
    randperm, rand_like, randn_like, randint_like, normal, bernoulli.Tensor),
    run with pyjit's numbers: the same seed draws the same, another seed
    otherwise, each in torch's shape, dtype and range."""
    (entry,) = [e for e in FIXTURES.entries if e["name"] == "seeded_draws"]
    fn = Function(parse_ir(entry["graph"]), loop=loop)
    x = np.zeros((2, 3), np.float32)
    first, again, other = fn(x, 5), fn(x, 5), fn(x, 6)
    for a, b in zip(first, again):
        np.testing.assert_array_equal(a, b)
    assert any(not np.array_equal(a, b) for a, b in zip(first, other))
    ints, perm, uniform, normal, like, sized, coin = first
    assert [(a.shape, a.dtype) for a in first] == [
        ((5,), np.int64), ((8,), np.int64), ((2, 3), np.float32), ((2, 3), np.float32),
        ((2, 3), np.float32), ((4,), np.float32), ((2, 3), np.float32)]
    assert ((ints >= 0) & (ints < 10)).all() and sorted(perm) == list(range(8))
    assert ((uniform >= 0) & (uniform < 1)).all() and ((like >= 2) & (like < 9)).all()
    assert (like == np.floor(like)).all() and set(np.unique(coin)) <= {0.0, 1.0}
