"""Tensor semantics numpy gets differently, as torch scripted and ran them.

``tests/fixtures/tensor_semantics`` (``tools/fixtures/tensor_programs.py``): 0-dim
results of indexing and reductions (never numpy scalars), ``torch.tensor``'s
dtype from the graph's types (an empty ``List[int]`` is int64), ``tolist`` and its
checks, torch's messages where numpy's would leak through (``Boolean value of
Tensor with more than one value is ambiguous``, ``Expected sequence of length 2
at dim 1 (got 1)``, ``select(): index 1 out of range for tensor of size [1] at
dimension 0``...), advanced indexing reads and writes, in-place updates through
views, promotion with 0-dim tensors and Python numbers.  Every case on both loops.
"""

from __future__ import annotations

import pytest

from helpers.torch_cases import load, run_case
from pyjit.interpreter import Function
from pyjit.ir.parser import parse_ir

FIXTURES = load("tensor_semantics")


@pytest.mark.parametrize("entry", FIXTURES.entries, ids=[e["name"] for e in FIXTURES.entries])
def test_tensor_semantics(entry, loop):
    fn = Function(parse_ir(entry["graph"]), loop=loop)
    for i, case in enumerate(entry["cases"]):
        run_case(fn, FIXTURES, case, f"{entry['name']} case {i}")


def test_zero_dim_results_stay_arrays(loop):
    """A 0-dim result is an ndarray, not a numpy scalar (``x[i]`` of a vector)."""
    import numpy as np
    entry = FIXTURES.by_name["index_one"]
    out = Function(parse_ir(entry["graph"]), loop=loop)(np.array([1.5, 2.5], np.float32), 1)
    assert type(out) is np.ndarray and out.shape == () and out.dtype == np.float32


def test_aten_warn_is_a_user_warning(loop):
    """``warnings.warn(...)`` in TorchScript (``torch.nn.functional`` warns about
    deprecated arguments this way) is a Python UserWarning, as in torch."""
    graph = parse_ir('graph(%x : Tensor):\n'
                     '  %m : str = prim::Constant[value="size_average is deprecated"]()\n'
                     '  %s : int = prim::Constant[value=2]()\n'
                     '   = aten::warn(%m, %s)\n'
                     '  return (%x)\n')
    with pytest.warns(UserWarning, match="size_average is deprecated"):
        Function(graph, loop=loop)(1)
