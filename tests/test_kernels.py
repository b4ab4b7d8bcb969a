"""The float32 kernels (pyjit/ops/kernels.py): one suite for the compiled set and
the numpy references, against torch's float32 results and float64 references.

``tests/fixtures/kernels`` holds, per case, float32 inputs, torch's float32
result and torch's result on the same inputs in float64
(``tools/fixtures/make_kernels.py``).  A result must

* have torch's dtype, shape, NaNs and infinities;
* be as close to the float64 reference as torch's own float32 result is: its
  largest error at most twice torch's largest, plus two ulps of the result's
  magnitude (so an exact result of torch's asks an exact-or-rounded one here).

Every case runs through the operator (:mod:`pyjit.ops.nn_conv` and the rest)
with :data:`pyjit.ops.kernels.ACTIVE` set to each kernel set in turn; the CNN
block of ``graph.ir`` runs on both loops.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from pyjit.interpreter import Function
from pyjit.ir.parser import parse_ir
from pyjit.ops import kernels, nn_conv, nn_norm
from pyjit.registry import default_registry as R

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "kernels"
CASES = json.loads((FIXTURES / "cases.json").read_text())
ARRAYS = np.load(FIXTURES / "arrays.npz")

SETS = ["compiled", "numpy"]


@pytest.fixture(params=SETS)
def kernel_set(request, monkeypatch):
    """Each kernel set in turn, made the one the operators use."""
    chosen = kernels.COMPILED if request.param == "compiled" else kernels.NUMPY
    if chosen is None:
        pytest.skip("pyjit was built without a compiler: no compiled kernels")
    monkeypatch.setattr(kernels, "ACTIVE", chosen)
    return chosen


def _op(kind: str, arity: int):
    return next(o.fn for o in R.overloads(kind) if o.types is not None and len(o.types) == arity
                and str(o.types[0]) == "Tensor")


def _tuple(v, nd):
    return list(v) if isinstance(v, (list, tuple)) else [v] * nd


def run(op: str, kw: dict, inputs):
    """The case's operator on ``inputs``, called as TorchScript calls it."""
    if op.startswith("conv"):
        nd = int(op[4])
        x, w = inputs[:2]
        b = inputs[2] if len(inputs) > 2 else None
        padding = kw.get("padding", 0)
        return nn_conv.conv(x, w, b, _tuple(kw.get("stride", 1), nd),
                            padding if isinstance(padding, str) else _tuple(padding, nd),
                            _tuple(kw.get("dilation", 1), nd), kw.get("groups", 1), nd)
    if op.startswith("max_pool"):
        nd = int(op[8])
        k = kw["kernel_size"]
        return nn_conv.max_pool(inputs[0], k, kw.get("stride", k), kw.get("padding", 0),
                                kw.get("dilation", 1), kw.get("ceil_mode", False), nd)
    if op.startswith("avg_pool"):
        nd = int(op[8])
        k = kw["kernel_size"]
        return nn_conv.avg_pool(inputs[0], k, kw.get("stride", k), kw.get("padding", 0),
                                kw.get("ceil_mode", False), kw.get("count_include_pad", True),
                                kw.get("divisor_override"), nd)
    if op == "adaptive_avg_pool2d":
        return nn_conv.adaptive_avg_pool(inputs[0], kw["output_size"], 2)
    if op == "batch_norm":
        x, w, b, mean, var = inputs
        return nn_norm.batch_norm(x, w, b, mean, var, False, 0.1, kw["eps"])
    if op == "layer_norm":
        w, b = (inputs[1], inputs[2]) if len(inputs) > 1 else (None, None)
        return nn_norm.layer_norm(inputs[0], kw["normalized_shape"], w, b, kw.get("eps", 1e-5))
    if op == "group_norm":
        return nn_norm.group_norm(inputs[0], kw["num_groups"], inputs[1], inputs[2])
    if op == "gelu":
        return _op("aten::gelu", 2)(inputs[0], kw.get("approximate", "none"))
    if op in ("softmax", "log_softmax"):
        return _op(f"aten::{op}", 3)(inputs[0], kw["dim"], None)
    return _op(f"aten::{op}", 1)(inputs[0])


def check_within_torch_error(actual, torch_f32, f64, where: str):
    assert actual.dtype == np.float32, where
    assert actual.shape == torch_f32.shape, where
    # Where torch's float32 and float64 results disagree on a NaN or an infinity
    # (gelu(inf) is NaN in float32, inf in float64), either is torch's answer.
    special = ~np.isfinite(torch_f32) | ~np.isfinite(f64)
    as_f32 = (actual == torch_f32) | (np.isnan(actual) & np.isnan(torch_f32))
    as_f64 = (actual == f64) | (np.isnan(actual) & np.isnan(f64))
    bad = special & ~as_f32 & ~as_f64
    assert not bad.any(), f"{where}: {actual[bad]} where torch gives {torch_f32[bad]} " \
                          f"(float64: {f64[bad]}), inputs at {np.argwhere(bad)[:5].tolist()}"
    finite = ~special
    a, t, ref = actual[finite].astype(np.float64), torch_f32[finite].astype(np.float64), \
        f64[finite]
    if not ref.size:
        return
    ours, torchs = np.abs(a - ref).max(), np.abs(t - ref).max()
    ulp = float(np.spacing(np.float32(np.abs(ref).max())))
    assert ours <= 2 * torchs + 2 * ulp, \
        f"{where}: error {ours:.3g} against float64, torch's {torchs:.3g} (ulp {ulp:.3g})"


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_kernel_within_torch_error(case, kernel_set):
    name = case["name"]
    inputs = [ARRAYS[f"{name}/in{i}"] for i in range(case["inputs"])]
    out = run(case["op"], case["kwargs"], inputs)
    check_within_torch_error(np.asarray(out), ARRAYS[f"{name}/f32"], ARRAYS[f"{name}/f64"],
                             f"{name} ({kernel_set.name})")


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_other_dtypes_keep_the_reference_path(case):
    # float64 inputs: the generic path, in double, close to torch's float64 result
    name = case["name"]
    inputs = [ARRAYS[f"{name}/in{i}"].astype(np.float64) for i in range(case["inputs"])]
    out = np.asarray(run(case["op"], case["kwargs"], inputs))
    expected = ARRAYS[f"{name}/f64"]
    assert out.dtype == np.float64
    np.testing.assert_allclose(out, expected, rtol=1e-10, atol=1e-10 * max(
        1.0, float(np.nanmax(np.abs(np.where(np.isfinite(expected), expected, 0))))))


def test_the_cnn_block_runs_on_both_loops(loop, kernel_set):
    graph = parse_ir((FIXTURES / "graph.ir").read_text())
    data = np.load(FIXTURES / "graph.npz")
    inputs = [data[f"in{i}"] for i in range(7)]
    out = Function(graph, loop=loop)(*inputs)
    np.testing.assert_allclose(out, data["expected"], rtol=1e-5, atol=1e-5)
    assert out.dtype == np.float32


# -- the two sets against each other, on geometries the fixtures do not hold --------------

GEOMETRIES = [  # (C, H, W, kh, kw, sh, sw, ph, pw, dh, dw)
    (3, 7, 9, 3, 3, 1, 1, 1, 1, 1, 1),
    (2, 5, 5, 3, 2, 2, 3, 1, 0, 1, 2),
    (4, 11, 6, 5, 5, 2, 1, 2, 2, 2, 1),
    (1, 3, 3, 3, 3, 1, 1, 2, 2, 1, 1),
    (2, 8, 8, 1, 1, 3, 3, 0, 0, 1, 1),
]


def _out(h, k, s, p, d):
    return (h + 2 * p - d * (k - 1) - 1) // s + 1


@pytest.mark.skipif(kernels.COMPILED is None, reason="built without a compiler")
@pytest.mark.parametrize("g", GEOMETRIES)
def test_im2col_and_depthwise_agree(g):
    c, h, w, kh, kw, sh, sw, ph, pw, dh, dw = g
    rng = np.random.default_rng(sum(g))
    x = rng.standard_normal((c, h, w)).astype(np.float32)
    oh, ow = _out(h, kh, sh, ph, dh), _out(w, kw, sw, pw, dw)
    cols = {}
    for k in (kernels.COMPILED, kernels.NUMPY):
        cols[k.name] = np.full((c * kh * kw, oh, ow), np.nan, np.float32)
        k.im2col2d(x, cols[k.name], kh, kw, sh, sw, ph, pw, dh, dw)
    np.testing.assert_array_equal(cols["compiled"], cols["numpy"])   # a copy: exactly
    weight = rng.standard_normal((2 * c, kh, kw)).astype(np.float32)
    outs = {}
    for k in (kernels.COMPILED, kernels.NUMPY):
        outs[k.name] = np.zeros((2 * c, oh, ow), np.float32)
        k.depthwise2d(x, weight, outs[k.name], sh, sw, ph, pw, dh, dw)
    np.testing.assert_allclose(outs["compiled"], outs["numpy"], rtol=1e-6, atol=1e-6)
    pooled = {}
    for k in (kernels.COMPILED, kernels.NUMPY):
        pooled[k.name] = np.empty((c, oh, ow), np.float32)
        if ph <= kh // 2 and pw <= kw // 2:
            k.max_pool2d(x, pooled[k.name], kh, kw, sh, sw, ph, pw, dh, dw)
    if ph <= kh // 2 and pw <= kw // 2:
        np.testing.assert_array_equal(pooled["compiled"], pooled["numpy"])


def test_non_contiguous_and_empty_inputs(kernel_set):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((1, 4, 9, 9)).astype(np.float32).transpose(0, 1, 3, 2)
    w = rng.standard_normal((6, 4, 3, 3)).astype(np.float32)
    # the float64 reference takes both operands in float64: torch refuses mixed dtypes
    expected = nn_conv.conv(x.astype(np.float64), w.astype(np.float64), None, [1, 1], [1, 1],
                            [1, 1], 1, 2)
    got = nn_conv.conv(x, w, None, [1, 1], [1, 1], [1, 1], 1, 2)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)
    empty = np.zeros((0, 4, 9, 9), np.float32)
    assert nn_conv.conv(empty, w, None, [1, 1], [1, 1], [1, 1], 1, 2).shape == (0, 6, 9, 9)
    assert _op("aten::gelu", 2)(np.zeros((0, 3), np.float32), "none").shape == (0, 3)
    s = _op("aten::softmax", 3)(x, 2, None)
    np.testing.assert_allclose(s.sum(axis=2), 1, rtol=1e-6)


def test_a_conv_as_torch_refuses_it_is_refused(kernel_set):
    x = np.zeros((1, 3, 2, 2), np.float32)
    with pytest.raises(ValueError, match="Kernel size can't be greater than actual input size"):
        nn_conv.conv(x, np.zeros((4, 3, 3, 3), np.float32), None, [1, 1], [0, 0], [1, 1], 1, 2)
    with pytest.raises(ValueError, match="to have 6 channels, but got 3 channels instead"):
        nn_conv.conv(x, np.zeros((4, 3, 1, 1), np.float32), None, [1, 1], [0, 0], [1, 1], 2, 2)


def test_the_compiled_kernels_are_built_where_the_library_is():
    from pyjit.ops import ufunc_direct
    # one build: the kernels are compiled exactly when the other C operators are
    assert (kernels.COMPILED is not None) == ufunc_direct.COMPILED
    assert kernels.ACTIVE is (kernels.COMPILED or kernels.NUMPY)


@pytest.mark.parametrize("name, params", [("relu", ()), ("relu6", ()), ("hardtanh", (-0.5, 2)),
                                          ("silu", ()), ("hardswish", ())])
def test_in_place_activations_write_into_their_input(name, params, kernel_set):
    rng = np.random.default_rng(5)
    x = (rng.standard_normal((2, 3, 5, 4)) * 4).astype(np.float32)
    x.reshape(-1)[:3] = [np.nan, np.inf, -np.inf]
    functional = _op(f"aten::{name}", 1 + len(params))(x, *params)
    in_place = _op(f"aten::{name}_", 1 + len(params))
    a = x.copy()
    assert in_place(a, *params) is a
    np.testing.assert_array_equal(a, functional)
    # a transposed view: the generic in-place path, the same values
    t = x.copy().transpose(0, 1, 3, 2)
    assert in_place(t, *params) is t
    np.testing.assert_array_equal(t, functional.transpose(0, 1, 3, 2))


def test_an_lstm_step_is_the_float64_step_rounded(kernel_set):
    rng = np.random.default_rng(11)
    gi, gh = (rng.standard_normal((3, 4 * 5)).astype(np.float32) * 3 for _ in range(2))
    c = rng.standard_normal((3, 5)).astype(np.float32)
    g = gi.astype(np.float64) + gh

    def sig(v):
        return 1 / (1 + np.exp(-v))
    c64 = sig(g[:, 5:10]) * c + sig(g[:, :5]) * np.tanh(g[:, 10:15])
    h64 = sig(g[:, 15:]) * np.tanh(c64)
    h = kernels.lstm_step(gi, gh, c)          # c updated in place
    assert h.dtype == c.dtype == np.float32
    np.testing.assert_allclose(c, c64, rtol=2e-6, atol=2e-7)
    np.testing.assert_allclose(h, h64, rtol=2e-6, atol=2e-7)
