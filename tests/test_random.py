"""Random sampling: torch's shapes, dtypes and distributions, pyjit's own draws.

No library reproduces another's random numbers, so these tests pin what every
draw must satisfy (shape, dtype, range, the mean of many draws within a bound
that fails once in billions of runs), that ``manual_seed`` makes runs repeat,
and that library code drawing only in training mode (torchvision's
``stochastic_depth``, recorded in tests/fixtures/library) samples as specified.
"""

from __future__ import annotations

import numpy as np
import pytest

from helpers.torch_cases import load
from pyjit.interpreter import Function
from pyjit.ir.parser import parse_ir
from pyjit.ops import random as pyjit_random

GRAPH = """graph(%x : Tensor, %p : float, %train : bool):
  %none : NoneType = prim::Constant()
  %four : int = prim::Constant[value=4]()
  %hundred : int = prim::Constant[value=100]()
  %size : int[] = prim::ListConstruct(%hundred, %four)
  %u : Tensor = aten::rand(%size, %none, %none, %none, %none)
  %n : Tensor = aten::randn(%size, %none, %none, %none, %none)
  %zero : int = prim::Constant[value=0]()
  %ten : int = prim::Constant[value=10]()
  %i : Tensor = aten::randint(%zero, %ten, %size, %none, %none, %none, %none)
  %perm : Tensor = aten::randperm(%ten, %four, %none, %none, %none)
  %b : Tensor = aten::bernoulli(%x, %p, %none)
  %d : Tensor = aten::dropout(%x, %p, %train)
  return (%u, %n, %i, %perm, %b, %d)
"""


def _run(loop, seed):
    pyjit_random.manual_seed(seed)
    x = np.ones((100, 4), np.float32)
    return Function(parse_ir(GRAPH), loop=loop)(x, 0.25, True)


def test_draws_have_torchs_shapes_dtypes_and_ranges(loop):
    u, n, i, perm, b, d = _run(loop, 0)
    assert u.shape == n.shape == i.shape == (100, 4)
    assert (u.dtype, n.dtype, i.dtype, perm.dtype) == (np.float32, np.float32, np.int64, np.int64)
    assert 0 <= u.min() and u.max() < 1
    assert 0 <= i.min() and i.max() < 10
    assert sorted(perm.tolist()) == list(range(10))
    assert set(np.unique(b).tolist()) <= {0.0, 1.0} and b.dtype == np.float32
    # dropout keeps each element with probability 0.75, scaled by 1 / 0.75
    assert set(np.unique(d).tolist()) <= {0.0, np.float32(1 / 0.75)}
    # means of 400 draws, bounds at about 6 standard deviations
    assert abs(u.mean() - 0.5) < 0.09 and abs(n.mean()) < 0.3
    assert abs(b.mean() - 0.25) < 0.13 and abs((d != 0).mean() - 0.75) < 0.13


def test_manual_seed_repeats_a_run(loop):
    first, second = _run(loop, 7), _run(loop, 7)
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(_run(loop, 8)[0], first[0])


def test_dropout_in_evaluation_is_the_identity(loop):
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    *_, d = Function(parse_ir(GRAPH), loop=loop)(x, 0.5, False)
    assert d is x


def test_a_generator_argument_is_pyjits_own(loop):
    """A graph's Generator is a pyjit Generator, which the operator draws from;
    anything else passed for one is refused."""
    g = parse_ir("graph(%x : Tensor, %gen : Generator):\n"
                 "  %p : float = prim::Constant[value=0.5]()\n"
                 "  %b : Tensor = aten::bernoulli(%x, %p, %gen)\n"
                 "  return (%b)\n")
    fn = Function(g, loop=loop)
    x = np.ones(64, np.float32)
    np.testing.assert_array_equal(fn(x, pyjit_random.Generator(3)),
                                  fn(x, pyjit_random.Generator(3)))
    with pytest.raises(RuntimeError, match="expected a pyjit Generator or None, got object"):
        fn(x, object())


def test_stochastic_depth_samples_rows_in_training(loop):
    """torchvision's stochastic_depth (the recorded graph) in training mode: every
    row is either zeroed or scaled by 1 / (1 - p)."""
    entry = load("library").by_name["stochastic_depth"]
    fn = Function(parse_ir(entry["graph"]), loop=loop)
    pyjit_random.manual_seed(3)
    x = np.ones((200, 2, 2), np.float32)
    out = fn(x, 0.2, "row", True)
    rows = out.reshape(200, -1)
    assert np.all((rows == 0).all(axis=1) | np.isclose(rows, 1 / 0.8).all(axis=1))
    assert 0.05 < (rows[:, 0] == 0).mean() < 0.35
