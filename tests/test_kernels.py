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
    if op == "hardtanh":
        return _op("aten::hardtanh", 3)(inputs[0], kw["min_val"], kw["max_val"])
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
    # the phase planes' edges: a plane of one row, output past 32 and 256
    # positions (pj_taps_sum's groups, conv2d_direct's blocks), stride 3 and
    # dilation 3, a padding wider than the kernel
    (2, 1, 40, 1, 3, 1, 1, 0, 1, 1, 1),
    (2, 23, 29, 3, 3, 1, 1, 1, 1, 1, 1),
    (3, 17, 16, 3, 5, 3, 2, 1, 2, 3, 1),
    (2, 6, 7, 3, 3, 2, 2, 4, 3, 1, 1),
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
        outs[k.name] = np.full((2 * c, oh, ow), np.nan, np.float32)   # all written
        k.depthwise2d(x, weight, None, outs[k.name], sh, sw, ph, pw, dh, dw)
    np.testing.assert_allclose(outs["compiled"], outs["numpy"], rtol=1e-6, atol=1e-6)
    # a grouped convolution summed directly: two output channels a group of
    # one, then of all c channels, onto a bias
    for groups in sorted({c, 1}):
        w4 = rng.standard_normal((2 * groups, c // groups, kh, kw)).astype(np.float32)
        bias = rng.standard_normal(2 * groups).astype(np.float32)
        direct = {}
        for k in (kernels.COMPILED, kernels.NUMPY):
            direct[k.name] = np.full((2 * groups, oh, ow), np.nan, np.float32)
            k.conv2d_direct(x, w4, bias, direct[k.name], groups, sh, sw, ph, pw, dh, dw)
        np.testing.assert_allclose(direct["compiled"], direct["numpy"], rtol=1e-5, atol=1e-5)
    pooled = {}
    for k in (kernels.COMPILED, kernels.NUMPY):
        pooled[k.name] = np.empty((c, oh, ow), np.float32)
        if ph <= kh // 2 and pw <= kw // 2:
            k.max_pool2d(x, pooled[k.name], kh, kw, sh, sw, ph, pw, dh, dw)
    if ph <= kh // 2 and pw <= kw // 2:
        np.testing.assert_array_equal(pooled["compiled"], pooled["numpy"])


@pytest.fixture(params=[2, 1], ids=["avx512", "avx2"])
def gemm_body(request):
    """Each body of the compiled GEMM this CPU has (``gemm_level``'s cap)."""
    if kernels.COMPILED is None:
        pytest.skip("built without a compiler")
    from pyjit.ops import _kernels
    level = _kernels.gemm_level(request.param)
    try:
        if level != request.param:
            pytest.skip(f"this CPU has no body {request.param} (its best is {level})")
        yield level
    finally:
        _kernels.gemm_level(2)


@pytest.mark.parametrize("g", GEOMETRIES)
def test_the_convolution_gemm_agrees_with_im2col_and_a_product(g, gemm_body):
    # conv2d_gemm makes the columns a panel at a time: the same product as
    # im2col's columns times the weight, its bias and clamp applied, for rows
    # of out past one tile and a K past one block (the channels repeated)
    c, h, w, kh, kw, sh, sw, ph, pw, dh, dw = g
    rng = np.random.default_rng(sum(g) + 1)
    c = c * (300 // (c * kh * kw) + 1) if sum(g) % 2 else c   # K > 256: two blocks
    x = rng.standard_normal((c, h, w)).astype(np.float32)
    oh, ow = _out(h, kh, sh, ph, dh), _out(w, kw, sw, pw, dw)
    o = 13
    weight = rng.standard_normal((o, c * kh * kw)).astype(np.float32)
    shift = rng.standard_normal(o).astype(np.float32)
    scale = rng.uniform(0.5, 2, o).astype(np.float32) if sum(g) % 3 else None
    outs = {}
    for k in (kernels.COMPILED, kernels.NUMPY):
        outs[k.name] = np.full((o, oh * ow + 5), 7.0, np.float32)   # rows apart by 5 more
        assert k.conv2d_gemm(x, weight, outs[k.name][:, :oh * ow], scale, shift, -0.25, 1.5,
                             kh, kw, sh, sw, ph, pw, dh, dw)
    np.testing.assert_allclose(outs["compiled"], outs["numpy"], rtol=1e-5, atol=1e-5)
    assert (outs["compiled"][:, oh * ow:] == 7.0).all()   # nothing past a row written


@pytest.mark.parametrize("m,k,n", [(1, 1, 1), (7, 3, 17), (13, 200, 70), (6, 128, 64),
                                   (25, 129, 65), (12, 300, 1000), (3, 5, 33)])
def test_a_1x1_convolution_gemm_with_its_epilogue_agrees_with_numpy(m, k, n, gemm_body):
    rng = np.random.default_rng(m * k + n)
    w = rng.standard_normal((m, k)).astype(np.float32)
    x = rng.standard_normal((k, 1, n)).astype(np.float32)   # an image of one row
    x[0, 0, : n // 2] = np.nan   # a NaN stays NaN through the clamp
    per_row = rng.standard_normal((2, m)).astype(np.float32)
    for scale, shift, lo, hi in ((None, None, -np.inf, np.inf), (None, per_row[0], 0.0, 6.0),
                                 (per_row[1], per_row[0], -1.0, np.inf)):
        out, ref = np.full((m, n), 7.0, np.float32), np.empty((m, n), np.float32)
        geometry = (1, 1, 1, 1, 0, 0, 1, 1)
        assert kernels.COMPILED.conv2d_gemm(x, w, out, scale, shift, lo, hi, *geometry)
        kernels.NUMPY.conv2d_gemm(x, w, ref, scale, shift, lo, hi, *geometry)
        np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5 * np.sqrt(k))
        np.testing.assert_array_equal(np.isnan(out), np.isnan(ref))


@pytest.mark.skipif(kernels.COMPILED is None, reason="built without a compiler")
@pytest.mark.parametrize("given", ["all", "none", "no conv bias"])
def test_the_batch_norm_map_is_the_same_in_both_sets(given):
    # made in double and rounded once, in the same order: equal to the bit,
    # a zero variance with eps 0 an infinite scale as in numpy
    rng = np.random.default_rng(3)
    c = 37
    weight, bias, mean, conv_bias = (rng.standard_normal(c).astype(np.float32) for _ in range(4))
    var = rng.uniform(0, 2, c).astype(np.float32)
    var[5] = 0
    if given == "none":
        weight = bias = conv_bias = None
    elif given == "no conv bias":
        conv_bias = None
    maps = {}
    for k in (kernels.COMPILED, kernels.NUMPY):
        scale, shift = np.full(c, 7.0, np.float32), np.full(c, 7.0, np.float32)
        with np.errstate(divide="ignore", invalid="ignore"):
            k.bn_affine(weight, bias, mean, var, 0.0 if given == "all" else 1e-5, conv_bias,
                        scale, shift)
        maps[k.name] = (scale, shift)
    for a, b in zip(maps["compiled"], maps["numpy"]):
        np.testing.assert_array_equal(a, b)
    assert np.isinf(maps["compiled"][0][5]) == (given == "all")


#: Max poolings of 3x3 windows at stride 2 for the bodies in registers:
#: (C, H, W, ph, pw, ceil_mode): planes of one block of columns and more, padded by 1
#: or not, windows past the input's end (ceil_mode), a last block of rows
#: overlapping the one before; resnet18's and SqueezeNet's own.
MAX_POOL_PLANES = [(2, 15, 15, 0, 0, False), (2, 14, 14, 0, 0, True), (2, 28, 31, 1, 1, False),
                   (3, 27, 27, 0, 0, True), (2, 16, 70, 1, 0, True), (2, 9, 40, 0, 1, False),
                   (4, 112, 112, 1, 1, False), (2, 111, 111, 0, 0, True)]


@pytest.mark.parametrize("g", MAX_POOL_PLANES)
def test_the_max_pooling_bodies_agree_with_the_reference(g, gemm_body):
    # on AVX-512 these are block by block in registers, on AVX2 tap by tap:
    # the same elements, the same NaNs, -inf only where the window is all -inf
    c, h, w, ph, pw, ceil = g
    rng = np.random.default_rng(sum(g))
    x = rng.standard_normal((c, h, w)).astype(np.float32)
    x[0, h // 2, w // 3] = np.nan
    x[1, :3, :3] = -np.inf
    x[-1, -1, -1] = np.inf

    def out_size(n, p):
        size = (n + 2 * p - 3 + (1 if ceil else 0)) // 2 + 1
        return size - 1 if ceil and (size - 1) * 2 >= n + p else size   # torch's rule
    oh, ow = out_size(h, ph), out_size(w, pw)
    outs = {}
    for k in (kernels.COMPILED, kernels.NUMPY):
        outs[k.name] = np.full((c, oh, ow), 7.0, np.float32)
        k.max_pool2d(x, outs[k.name], 3, 3, 2, 2, ph, pw, 1, 1)
    np.testing.assert_array_equal(outs["compiled"], outs["numpy"])
    assert np.isnan(outs["compiled"][0]).any()


#: Depthwise planes for the bodies summed in registers (_kernels_depthwise.h):
#: (C, H, W, k, stride, ph, pw): 3x3 and 5x5 at strides 1 and 2, planes of one
#: block of 16 columns and of several (a last block of fewer), of fewer rows
#: than a block's 7 (not taken), a last block of rows overlapping the one
#: before, a padding of 0, of more than the kernel's half, and different by
#: axis.
DEPTHWISE_PLANES = [
    (3, 7, 7, 3, 1, 1, 1), (2, 7, 7, 5, 1, 2, 2), (2, 14, 14, 3, 1, 1, 1), (2, 9, 16, 3, 1, 1, 1),
    (2, 10, 17, 5, 1, 2, 2), (2, 6, 33, 3, 1, 1, 1), (3, 11, 40, 5, 1, 2, 2),
    (2, 13, 12, 3, 1, 0, 0), (2, 8, 30, 3, 1, 3, 1), (2, 9, 21, 5, 1, 1, 4),
    (2, 14, 14, 3, 2, 1, 1), (2, 14, 14, 5, 2, 2, 2), (2, 28, 28, 3, 2, 1, 1),
    (2, 15, 35, 5, 2, 2, 2), (2, 17, 66, 3, 2, 1, 1), (2, 16, 31, 3, 2, 0, 2),
    (2, 20, 23, 5, 2, 3, 1), (2, 56, 56, 3, 2, 1, 1), (2, 13, 13, 3, 2, 1, 1),
]


@pytest.mark.parametrize("g", DEPTHWISE_PLANES)
def test_the_depthwise_bodies_agree_with_the_reference(g, gemm_body):
    # on AVX-512 (body 2) these planes are summed in registers from the input
    # itself; on AVX2 (body 1), by pj_taps_sum from the padded copy: the same
    # sums, then the bias, the affine map and the clamp, NaN kept; and with no
    # epilogue every sum unchanged, a -0.0 as well
    c, h, w, kk, s, ph, pw = g
    rng = np.random.default_rng(sum(g))
    x = rng.standard_normal((c, h, w)).astype(np.float32)
    x[0, h // 2, w // 3] = np.nan
    oh, ow = _out(h, kk, s, ph, 1), _out(w, kk, s, pw, 1)
    weight = rng.standard_normal((c, kk, kk)).astype(np.float32)
    bias = rng.standard_normal(c).astype(np.float32)
    scale = rng.uniform(0.5, 2, c).astype(np.float32)
    shift = rng.standard_normal(c).astype(np.float32)
    for extra in [(None, None, -np.inf, np.inf), (scale, shift, 0.0, 6.0), (scale, None, -0.5, np.inf)]:
        outs = {}
        for k in (kernels.COMPILED, kernels.NUMPY):
            outs[k.name] = np.full((c, oh, ow), 7.0, np.float32)
            k.depthwise2d(x, weight, bias, outs[k.name], s, s, ph, pw, 1, 1, *extra)
        np.testing.assert_allclose(outs["compiled"], outs["numpy"], rtol=1e-5, atol=1e-5)
        assert np.isnan(outs["compiled"][0]).sum() == np.isnan(outs["numpy"][0]).sum() > 0
    # -0.0 onto -0.0 products (negative taps on zeros) stays -0.0
    zeros, negative = np.zeros((c, h, w), np.float32), -np.abs(weight)
    out = np.full((c, oh, ow), 7.0, np.float32)
    kernels.COMPILED.depthwise2d(zeros, negative, np.full(c, -0.0, np.float32), out, s, s, ph,
                                 pw, 1, 1)
    assert (out == 0).all() and np.signbit(out).all()


@pytest.mark.parametrize("m,k,n", [(1, 1, 1), (2, 3, 17), (7, 16, 16), (13, 200, 70),
                                   (6, 128, 64), (25, 129, 65), (12, 300, 1000), (197, 40, 33),
                                   (3, 17, 130)])
@pytest.mark.parametrize("layout", ["rows", "columns", "strided"])
def test_the_matrix_gemm_agrees_with_numpy(m, k, n, layout, gemm_body):
    # b with contiguous rows (a C array: memcpy'd panels) or columns (a linear
    # layer's weight.T: transposed 16x16 in registers, tails of k and n masked);
    # the bias first, the clamp keeping a NaN; rows of a and out wider than
    # they are read or written
    rng = np.random.default_rng(m * k + n)
    wide = rng.standard_normal((m, k + 3)).astype(np.float32)
    a = wide[:, :k]
    if layout == "rows":
        b = rng.standard_normal((k, n)).astype(np.float32)
    elif layout == "columns":
        b = rng.standard_normal((n, k)).astype(np.float32).T
    else:   # columns, a row of b's transpose longer than k
        b = rng.standard_normal((n, k + 5)).astype(np.float32)[:, :k].T
    a[0, : k // 2] = np.nan
    bias = rng.standard_normal(n).astype(np.float32)
    for bias_, lo, hi in ((None, -np.inf, np.inf), (bias, 0.0, 6.0), (bias, -1.0, np.inf)):
        out = np.full((m, n + 4), 7.0, np.float32)
        ref = np.empty((m, n), np.float32)
        assert kernels.COMPILED.matmul(a, b, out[:, :n], bias_, lo, hi)
        kernels.NUMPY.matmul(a, b, ref, bias_, lo, hi)
        np.testing.assert_allclose(out[:, :n], ref, rtol=1e-5, atol=1e-5 * np.sqrt(k))
        np.testing.assert_array_equal(np.isnan(out[:, :n]), np.isnan(ref))
        assert (out[:, n:] == 7.0).all()   # nothing past a row written


@pytest.mark.parametrize("shape", [(2, 3, 9, 16, 20), (1, 6, 40, 8, 70), (4, 1, 2, 33, 1)])
def test_a_stack_of_products_read_where_permutes_left_it_agrees_with_numpy(shape, gemm_body):
    # attention's per-head products: q and k as views of one (B, T, 3, H, D)
    # projection (rows H*D*3 apart, k transposed: columns contiguous), the
    # weights times v
    bsz, heads, t, d, s_ = shape
    rng = np.random.default_rng(sum(shape))
    qkv = rng.standard_normal((bsz, t, 3, heads, d)).astype(np.float32).transpose(2, 0, 3, 1, 4)
    q, k = qkv[0], rng.standard_normal((bsz, s_, heads, d)).astype(np.float32).transpose(0, 2, 1, 3)
    w = rng.standard_normal((bsz, heads, t, s_)).astype(np.float32)
    v = rng.standard_normal((bsz, s_, heads, d)).astype(np.float32).transpose(0, 2, 1, 3)
    for a, b in ((q, np.swapaxes(k, -1, -2)), (w, v)):
        out = np.full(a.shape[:3] + (b.shape[3] + 3,), 7.0, np.float32)
        assert kernels.COMPILED.matmul_stack(a, b, out[..., :b.shape[3]])
        ref = np.empty(a.shape[:3] + b.shape[3:], np.float32)
        kernels.NUMPY.matmul_stack(a, b, ref)
        np.testing.assert_allclose(out[..., :b.shape[3]], ref, rtol=1e-5, atol=1e-5 * np.sqrt(d + s_))
        assert (out[..., b.shape[3]:] == 7.0).all()


@pytest.mark.parametrize("own", [True, False])
def test_the_stack_driver_gives_numpys_products(own, monkeypatch):
    monkeypatch.setattr(kernels, "OWN_GEMM_EVERYWHERE", own)
    rng = np.random.default_rng(9)
    for sa, sb in (((5, 4, 6), (5, 6, 3)), ((2, 3, 4, 6), (2, 3, 6, 7)), ((2, 2, 2, 4, 5), (2, 2, 2, 5, 3)),
                   ((3, 4, 6), (6, 2)), ((1, 4, 6), (3, 6, 2)), ((0, 4, 6), (0, 6, 2)),
                   ((2, 1, 6), (2, 6, 2)), ((2, 5, 0), (2, 0, 3))):
        a = rng.standard_normal(sa).astype(np.float32)
        b = rng.standard_normal(sb).astype(np.float32)
        got = kernels.matmul_stack(a, b)
        expected = np.matmul(a.astype(np.float64), b.astype(np.float64))
        assert got.shape == expected.shape and got.dtype == np.float32
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("c,h,w,o,ph,pw", [(3, 224, 224, 32, 1, 1), (3, 17, 23, 13, 1, 1),
                                           (3, 30, 30, 64, 0, 0), (1, 9, 40, 5, 1, 0),
                                           (4, 31, 33, 16, 2, 1), (2, 7, 7, 9, 0, 2)])
def test_the_stem_kernel_agrees_with_the_reference(c, h, w, o, ph, pw, gemm_body):
    # a 3x3 convolution at stride 2 summed in registers, 8 output channels at
    # a time (a last group of fewer), the padding masked, its epilogue applied
    # as it stores, a NaN kept
    if gemm_body != 2:
        pytest.skip("the stem kernel is AVX-512's")
    rng = np.random.default_rng(c * h + o)
    x = rng.standard_normal((c, h, w)).astype(np.float32)
    x[0, 0, 0] = np.nan
    weight = rng.standard_normal((o, c, 3, 3)).astype(np.float32)
    oh, ow = (h + 2 * ph - 3) // 2 + 1, (w + 2 * pw - 3) // 2 + 1
    per = rng.standard_normal((2, o)).astype(np.float32)
    for args in ((None, None, -np.inf, np.inf), (per[0], per[1], 0.0, 6.0),
                 (None, per[1], -np.inf, np.inf)):
        got = np.full((o, oh, ow), 7.0, np.float32)
        ref = np.full((o, oh, ow), 7.0, np.float32)
        assert kernels.COMPILED.conv3x3s2(x, weight, got, ph, pw, *args)
        kernels.NUMPY.conv3x3s2(x, weight, ref, ph, pw, *args)
        np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5)
        np.testing.assert_array_equal(np.isnan(got), np.isnan(ref))


def test_a_stem_convolution_is_the_same_by_every_path(kernel_set, monkeypatch):
    # kernels.conv2d sends a 3x3 stride-2 convolution of few channels to the
    # stem kernel; with STEM_MAX_CHANNELS 0 it takes the general paths
    rng = np.random.default_rng(4)
    x = rng.standard_normal((2, 3, 41, 37)).astype(np.float32)
    weight = rng.standard_normal((24, 3, 3, 3)).astype(np.float32)
    bias = rng.standard_normal(24).astype(np.float32)
    scale, shift = rng.uniform(0.5, 2, 24).astype(np.float32), bias
    outs = []
    for limit in (4, 0):
        monkeypatch.setattr(kernels, "STEM_MAX_CHANNELS", limit)
        outs.append((kernels.conv2d(x, weight, bias, (2, 2), (1, 1), (1, 1), 1, (21, 19),
                                    k=kernel_set),
                     kernels.conv2d(x, weight, None, (2, 2), (1, 1), (1, 1), 1, (21, 19),
                                    k=kernel_set, clamp=(0.0, 6.0), affine=(scale, shift))))
    for a, b in zip(*outs):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("c,h,w,o,ph,pw", [(3, 16, 16, 7, 1, 1), (16, 20, 56, 13, 1, 1),
                                           (15, 9, 30, 64, 0, 1), (2, 31, 14, 6, 1, 0),
                                           (33, 5, 17, 11, 0, 0), (1, 3, 40, 1, 1, 1)])
def test_a_3x3_convolution_gemm_without_panels_agrees_with_the_packing_one(c, h, w, o, ph, pw,
                                                                           gemm_body):
    # pj_conv3x3_gemm reads each tap's column where it is (runs of an output
    # row, the padding masked off): the same sums as the packed panels, K past
    # one block (c * 9 > 128), rows of out past one tile and 5 floats apart more
    from pyjit.ops import _kernels
    rng = np.random.default_rng(c * w + o)
    x = rng.standard_normal((c, h, w)).astype(np.float32)
    x[0, 1, 2] = np.nan
    weight = rng.standard_normal((o, c * 9)).astype(np.float32)
    oh, ow = h + 2 * ph - 2, w + 2 * pw - 2
    shift = rng.standard_normal(o).astype(np.float32)
    scale = rng.uniform(0.5, 2, o).astype(np.float32)
    outs = []
    try:
        for unpacked in (True, False):
            _kernels.conv3x3_unpacked(unpacked)
            out = np.full((o, oh * ow + 5), 7.0, np.float32)
            assert kernels.COMPILED.conv2d_gemm(x, weight, out[:, :oh * ow], scale, shift, -0.5,
                                                3.0, 3, 3, 1, 1, ph, pw, 1, 1)
            outs.append(out)
    finally:
        _kernels.conv3x3_unpacked(True)
    ref = np.empty((o, oh * ow), np.float32)
    kernels.NUMPY.conv2d_gemm(x, weight, ref, scale, shift, -0.5, 3.0, 3, 3, 1, 1, ph, pw, 1, 1)
    for out in outs:
        np.testing.assert_allclose(out[:, :oh * ow], ref, rtol=1e-5, atol=1e-5 * np.sqrt(c * 9))
        np.testing.assert_array_equal(np.isnan(out[:, :oh * ow]), np.isnan(ref))
        assert (out[:, oh * ow:] == 7.0).all()


def test_the_matrix_gemm_refuses_what_does_not_fit():
    k = kernels.COMPILED
    if k is None:
        pytest.skip("built without a compiler")
    a, out = np.ones((4, 3), np.float32), np.empty((4, 5), np.float32)
    with pytest.raises(ValueError, match=r"\(4, 3\) @ \(2, 5\) into \(4, 5\)"):
        k.matmul(a, np.ones((2, 5), np.float32), out, None, -np.inf, np.inf)
    with pytest.raises(ValueError, match="4 biases for 5 rows"):
        k.matmul(a, np.ones((3, 5), np.float32), out, np.ones(4, np.float32), -np.inf, np.inf)
    with pytest.raises(ValueError, match="rows or columns must be contiguous"):
        k.matmul(a, np.ones((6, 10), np.float32)[::2, ::2], out, None, -np.inf, np.inf)
    with pytest.raises(ValueError, match="rows of a and of out must be contiguous"):
        k.matmul(np.ones((3, 4), np.float32).T, np.ones((3, 5), np.float32), out, None,
                 -np.inf, np.inf)
    # no terms: nothing written, the caller's numpy makes the bias
    assert not k.matmul(np.ones((4, 0), np.float32), np.ones((0, 5), np.float32), out, None,
                        -np.inf, np.inf)


@pytest.mark.parametrize("own", [True, False])
def test_the_matmul_driver_gives_the_product_either_way(own, monkeypatch):
    # kernels.matmul: pyjit's GEMM where it takes numpy's products, numpy's
    # otherwise and for one row; a strided a or b copied first, out= honoured
    monkeypatch.setattr(kernels, "OWN_GEMM_EVERYWHERE", own)
    rng = np.random.default_rng(5)
    for m, k, n in ((1, 40, 30), (2, 40, 30), (70, 33, 129), (5, 0, 3)):
        a = rng.standard_normal((m, 2 * k)).astype(np.float32)[:, ::2]
        b = rng.standard_normal((2 * k, n)).astype(np.float32)[::2]
        bias = rng.standard_normal(n).astype(np.float32)
        expected = a.astype(np.float64) @ b.astype(np.float64) + bias
        got = kernels.matmul(a, b, bias)
        assert got.dtype == np.float32 and got.flags.c_contiguous
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5 * np.sqrt(k + 1))
        into = np.empty((m, n + 2), np.float32)[:, :n]
        assert kernels.matmul(a, b, out=into) is into
        np.testing.assert_allclose(into, expected - bias, rtol=1e-5, atol=1e-5 * np.sqrt(k + 1))


def test_the_blas_core_is_read_and_decides_whose_gemm(monkeypatch):
    from pyjit.ops import blas
    name = blas.core_name()
    assert name is None or (isinstance(name, str) and name)
    assert blas.vector_bits() in (None, 256, 512)
    monkeypatch.setattr(blas, "GEMM_CHOICE", "auto")
    for core, level, expected in (("Haswell", 2, True), ("Zen", 2, True), ("SkylakeX", 2, False),
                                  ("SapphireRapids", 2, False), ("Haswell", 1, False),
                                  ("Haswell", 0, False), (None, 2, False)):
        monkeypatch.setattr(blas, "core_name", lambda core=core: core)
        assert blas.prefer_own_gemm(level) is expected, (core, level)
    monkeypatch.setattr(blas, "GEMM_CHOICE", "own")
    assert blas.prefer_own_gemm(1) and not blas.prefer_own_gemm(0)
    monkeypatch.setattr(blas, "GEMM_CHOICE", "blas")
    assert not blas.prefer_own_gemm(2)
    monkeypatch.setenv("PYJIT_GEMM", "fastest")
    with pytest.raises(ValueError, match="PYJIT_GEMM='fastest': expected 'auto', 'own' or 'blas'"):
        blas._choice()


@pytest.mark.skipif(kernels.COMPILED is None, reason="built without a compiler")
def test_the_gemm_kernels_refuse_what_does_not_fit():
    k = kernels.COMPILED
    image = np.ones((2, 4, 4), np.float32)
    with pytest.raises(ValueError, match="2 shifts for 4 rows"):
        k.conv2d_gemm(image, np.ones((4, 2), np.float32), np.empty((4, 16), np.float32), None,
                      np.ones(2, np.float32), 0.0, 1.0, 1, 1, 1, 1, 0, 0, 1, 1)
    with pytest.raises(ValueError, match="3 scales for 4 rows"):
        k.conv2d_gemm(image, np.ones((4, 2), np.float32), np.empty((4, 16), np.float32),
                      np.ones(3, np.float32), None, 0.0, 1.0, 1, 1, 1, 1, 0, 0, 1, 1)
    with pytest.raises(ValueError, match="columns must be contiguous"):
        k.conv2d_gemm(image, np.ones((4, 2), np.float32), np.empty((16, 4), np.float32).T,
                      None, None, 0.0, 1.0, 1, 1, 1, 1, 0, 0, 1, 1)
    image = np.ones((2, 4, 4), np.float32)
    with pytest.raises(ValueError, match="weight \\(4, 9\\) for 2 channels of 3x3 taps"):
        k.conv2d_gemm(image, np.ones((4, 9), np.float32), np.empty((4, 16), np.float32), None,
                      None, 0.0, 1.0, 3, 3, 1, 1, 1, 1, 1, 1)
    with pytest.raises(ValueError, match="15 output columns for a 4x4 output"):
        k.conv2d_gemm(image, np.ones((4, 18), np.float32), np.empty((4, 15), np.float32), None,
                      None, 0.0, 1.0, 3, 3, 1, 1, 1, 1, 1, 1)


def test_a_fused_relu_is_the_convolution_then_relu(kernel_set, gemm_body):
    # pyjit::conv_act applies a clamp as the convolution stores its output:
    # the same values as the two operators (within the GEMMs' rounding)
    from pyjit.ops import fused
    rng = np.random.default_rng(11)
    for shape, kernel, groups in (((1, 24, 10, 10), 1, 1), ((2, 3, 17, 15), 7, 1),
                                  ((1, 8, 9, 9), 3, 8), ((1, 8, 9, 9), 3, 2)):
        x = rng.standard_normal(shape).astype(np.float32)
        w = rng.standard_normal((16, shape[1] // groups, kernel, kernel)).astype(np.float32)
        b = rng.standard_normal(16).astype(np.float32)
        pad = [kernel // 2] * 2
        plain = nn_conv.conv2d(x, w, b, [2, 1], pad, [1, 1], groups)
        for name, ref in (("relu", np.maximum(plain, 0)), ("relu6", np.clip(plain, 0, 6))):
            got = fused.conv_act(x, w, b, [2, 1], pad, [1, 1], groups, 2, name)
            np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5)
            assert got.dtype == np.float32


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
    for name in ("relu", "relu6", "hardsigmoid", "silu"):   # a 0-dim tensor stays 0-dim
        r = _op(f"aten::{name}", 1)(np.array(-2.0, np.float32))
        assert r.shape == () and r.dtype == np.float32, name
    s = _op("aten::softmax", 3)(x, 2, None)
    np.testing.assert_allclose(s.sum(axis=2), 1, rtol=1e-6)


@pytest.mark.skipif(kernels.COMPILED is None, reason="built without a compiler")
def test_batch_norm_and_plane_means_agree_with_the_references():
    rng = np.random.default_rng(8)
    x = rng.standard_normal((6, 45)).astype(np.float32)   # 2 images of 3 channels
    w, b, mean = (rng.standard_normal(3).astype(np.float32) for _ in range(3))
    var = rng.random(3).astype(np.float32) + 0.1
    for weight, bias in ((w, b), (None, None), (w, None)):
        outs = {}
        for k in (kernels.COMPILED, kernels.NUMPY):
            outs[k.name] = np.empty_like(x)
            k.batch_norm_planes(x, weight, bias, mean, var, 1e-5, outs[k.name])
        # the per-channel numbers in double, rounded once: the same bits; the
        # pass x * scale + shift may be fused (one rounding) or not
        np.testing.assert_allclose(outs["compiled"], outs["numpy"], rtol=1e-6, atol=1e-6)
    means = {}
    for k in (kernels.COMPILED, kernels.NUMPY):
        means[k.name] = np.empty(6, np.float32)
        k.plane_means(x, means[k.name], 45.0)
    np.testing.assert_array_equal(means["compiled"], means["numpy"])  # double sums, rounded
    np.testing.assert_array_equal(means["numpy"], (x.astype(np.float64).sum(axis=1) / 45)
                                  .astype(np.float32))


def test_batch_norm_statistics_of_another_length_are_refused(kernel_set):
    x = np.zeros((1, 3, 2, 2), np.float32)
    with pytest.raises(ValueError, match="running_mean should contain 3 elements not 2"):
        nn_norm.batch_norm(x, None, None, np.zeros(2, np.float32), np.ones(3, np.float32),
                           False, 0.1, 1e-5)


CONV2D = [c for c in CASES if c["op"] == "conv2d" and not isinstance(c["kwargs"].get("padding"),
                                                                       str)]


@pytest.mark.parametrize("case", CONV2D, ids=[c["name"] for c in CONV2D])
def test_the_conv2d_operator_takes_the_kernels_straight(case, kernel_set):
    # aten::conv2d's own path (lists of two straight to kernels.conv2d): the
    # same bits as conv's, on every 2-d case, and on a non-contiguous input
    inputs = [ARRAYS[f"{case['name']}/in{i}"] for i in range(case["inputs"])]
    kw = case["kwargs"]
    geometry = [_tuple(kw.get("stride", 1), 2), _tuple(kw.get("padding", 0), 2),
                _tuple(kw.get("dilation", 1), 2), kw.get("groups", 1)]
    bias = inputs[2] if len(inputs) > 2 else None
    op = _op("aten::conv2d", 7)
    for x in (inputs[0], np.asfortranarray(inputs[0])):
        np.testing.assert_array_equal(op(x, inputs[1], bias, *geometry),
                                      nn_conv.conv(x, inputs[1], bias, *geometry, 2))


def test_a_conv_as_torch_refuses_it_is_refused(kernel_set):
    x = np.zeros((1, 3, 2, 2), np.float32)
    with pytest.raises(ValueError, match="Kernel size can't be greater than actual input size"):
        nn_conv.conv(x, np.zeros((4, 3, 3, 3), np.float32), None, [1, 1], [0, 0], [1, 1], 1, 2)
    with pytest.raises(ValueError, match="to have 6 channels, but got 3 channels instead"):
        nn_conv.conv(x, np.zeros((4, 3, 1, 1), np.float32), None, [1, 1], [0, 0], [1, 1], 2, 2)
    op = _op("aten::conv2d", 7)   # its own path says conv's errors
    with pytest.raises(ValueError, match="Kernel size can't be greater than actual input size"):
        op(x, np.zeros((4, 3, 3, 3), np.float32), None, [1, 1], [0, 0], [1, 1], 1)
    with pytest.raises(ValueError, match="to have 6 channels, but got 3 channels instead"):
        op(x, np.zeros((4, 3, 1, 1), np.float32), None, [1, 1], [0, 0], [1, 1], 2)
    with pytest.raises(ValueError, match="expected bias to be 1-dimensional with 4 elements"):
        op(x, np.zeros((4, 3, 1, 1), np.float32), np.zeros(3, np.float32), [1, 1], [0, 0],
           [1, 1], 1)


def test_the_compiled_kernels_are_built_where_the_library_is():
    from pyjit.ops import ufunc_direct
    # one build: the kernels are compiled exactly when the other C operators are
    assert (kernels.COMPILED is not None) == ufunc_direct.COMPILED
    assert kernels.ACTIVE is (kernels.COMPILED or kernels.NUMPY)


@pytest.mark.parametrize("name, params", [("relu", ()), ("relu6", ()), ("hardtanh", (-0.5, 2)),
                                          ("silu", ()), ("hardswish", ()), ("hardsigmoid", ())])
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


def test_a_cell_operator_is_one_step_of_its_layer(kernel_set):
    # aten::lstm_cell (nn.LSTMCell) and the others run the layers' kernel on one
    # step: the same numbers as the layer's first step, batched or not
    from pyjit.ops.nn_recurrent import _padded, cell
    rng = np.random.default_rng(11)
    for mode, gates in (("lstm", 4), ("gru", 3), ("rnn_tanh", 1), ("rnn_relu", 1)):
        x = rng.standard_normal((3, 4)).astype(np.float32) * 2
        h, c = (rng.standard_normal((3, 5)).astype(np.float32) for _ in range(2))
        params = [rng.standard_normal(s).astype(np.float32)
                  for s in [(gates * 5, 4), (gates * 5, 5), (gates * 5,), (gates * 5,)]]
        hx = [h, c] if mode == "lstm" else h
        layer = _padded(mode)(x[None], [h[None], c[None]] if mode == "lstm" else h[None],
                              params, True, 1, 0.0, False, False, False)
        one = cell(mode)(x, hx, *params)
        one = one if mode == "lstm" else (one,)
        np.testing.assert_array_equal(one[0], layer[0][0])
        if mode == "lstm":
            np.testing.assert_array_equal(one[1], layer[2][0])
            np.testing.assert_array_equal(c, hx[1])          # the state given is not written
        unbatched = cell(mode)(x[1], [h[1], c[1]] if mode == "lstm" else h[1], *params)
        unbatched = unbatched if mode == "lstm" else (unbatched,)
        assert unbatched[0].shape == (5,) and unbatched[0].dtype == np.float32
        # the input projection is BLAS's, which sums one row (gemv) unlike three
        np.testing.assert_allclose(unbatched[0], one[0][1], rtol=1e-6, atol=1e-7)


# -- recurrent layers: the whole recurrence per layer and direction --------------------------

RECURRENT = json.loads((FIXTURES / "recurrent.json").read_text())
RECURRENT_ARRAYS = np.load(FIXTURES / "recurrent.npz")


def run_recurrent(case, dtype=np.float32):
    """The case's ``aten::<mode>`` (padded or packed overload) on its inputs in
    ``dtype``, as nn.LSTM, nn.GRU and nn.RNN call it: its outputs."""
    from pyjit.ops.nn_recurrent import _packed, _padded
    name, a = case["name"], RECURRENT_ARRAYS
    x = a[f"{name}/x"].astype(dtype)
    states = [a[f"{name}/hx{j}"].astype(dtype) for j in range(case["states"])]
    hx = states if case["mode"] == "lstm" else states[0]
    params = [a[f"{name}/w{j}"].astype(dtype) for j in range(case["weights"])]
    flags = (case["has_biases"], case["num_layers"], 0.0, False, case["bidirectional"])
    if case["packed"]:
        return _packed(case["mode"])(x, a[f"{name}/batch_sizes"], hx, params, *flags)
    return _padded(case["mode"])(x, hx, params, *flags, case["batch_first"])


@pytest.mark.parametrize("case", RECURRENT, ids=[c["name"] for c in RECURRENT])
def test_recurrent_layer_within_torch_error(case, kernel_set):
    # the sequence and every final state, each as close to torch's float64
    # result as torch's float32 one is
    outs = run_recurrent(case)
    assert len(outs) == case["outputs"]
    for j, out in enumerate(outs):
        check_within_torch_error(np.asarray(out), RECURRENT_ARRAYS[f"{case['name']}/f32_{j}"],
                                 RECURRENT_ARRAYS[f"{case['name']}/f64_{j}"],
                                 f"{case['name']} output {j} ({kernel_set.name})")


@pytest.mark.parametrize("case", RECURRENT, ids=[c["name"] for c in RECURRENT])
def test_recurrent_layer_in_float64_keeps_double(case):
    for j, out in enumerate(run_recurrent(case, np.float64)):
        assert out.dtype == np.float64
        np.testing.assert_allclose(out, RECURRENT_ARRAYS[f"{case['name']}/f64_{j}"],
                                   rtol=1e-12, atol=1e-12)


def test_big_steps_take_blas_and_give_the_reference_results(monkeypatch):
    # a step of more than COMPILED_MAX_ROWS rows whose product with w_hh is over
    # COMPILED_STEP_LIMIT multiply-adds runs on the numpy reference (BLAS's
    # GEMM), with its results exactly
    from pyjit.ops import nn_recurrent
    case = next(c for c in RECURRENT if c["name"] == "lstm_stacked_bidirectional")
    # the input projections the same in both runs (numpy's): the steps are tested
    monkeypatch.setattr(kernels, "OWN_GEMM_EVERYWHERE", False)
    monkeypatch.setattr(kernels, "ACTIVE", kernels.NUMPY)
    reference = run_recurrent(case)
    monkeypatch.setattr(kernels, "ACTIVE", kernels.COMPILED or kernels.NUMPY)
    monkeypatch.setattr(nn_recurrent, "COMPILED_STEP_LIMIT", 0)
    monkeypatch.setattr(nn_recurrent, "COMPILED_MAX_ROWS", 2)   # the case has 3
    for ours, theirs in zip(run_recurrent(case), reference):
        np.testing.assert_array_equal(ours, theirs)


def test_the_recurrence_kernel_checks_its_shapes(kernel_set):
    if kernel_set is kernels.NUMPY:
        pytest.skip("the reference is called only with shapes the operator made")
    k = kernel_set.recurrent_layer
    f = np.zeros
    args = dict(gi=f((3, 16), np.float32), sizes=np.array([2, 2], np.intp),
                w_hh=f((16, 4), np.float32), b_hh=None, w_hr=None, h=f((2, 4), np.float32),
                c=f((2, 4), np.float32), out=f((3, 4), np.float32), reverse=False)
    with pytest.raises(ValueError, match=r"recurrent_layer \(lstm\): the steps have 4 rows, "
                                         r"gi 3"):
        k("lstm", **args)
    args["sizes"] = np.array([1, 2], np.intp)
    with pytest.raises(ValueError, match=r"step 1 has 2 rows \(a batch of 2, the steps' sizes "
                                         r"non-increasing\)"):
        k("lstm", **args)
    with pytest.raises(ValueError, match=r"recurrent_layer \(gru\): shapes do not agree"):
        k("gru", **args)
    with pytest.raises(ValueError, match="no cell 'elman'"):
        k("elman", **args)


def test_recurrent_activations_at_the_ends_of_their_range(kernel_set):
    # one rnn_tanh step and one LSTM step whose pre-activations are 0, tiny,
    # huge and NaN: tanh(1e-6) is 1e-6 (not 0: the polynomial below 0.625),
    # tanh(+-100) is +-1, sigmoid(-100) 0, and a NaN stays NaN
    v = np.array([0.0, 1e-6, -1e-6, 0.3, -0.62, 0.63, 3.0, -9.0, 100.0, -100.0, np.nan],
                 np.float32)
    H = v.size
    out, h = np.empty((1, H), np.float32), np.zeros((1, H), np.float32)
    kernel_set.recurrent_layer("rnn_tanh", v[None].copy(), np.array([1], np.intp),
                               np.zeros((H, H), np.float32), None, None, h, None, out, False)
    expected = np.tanh(v.astype(np.float64))
    np.testing.assert_allclose(out[0], expected, rtol=2e-7, atol=0)
    assert np.isnan(out[0, -1]) and out[0, 1] == np.float32(1e-6)
    gi = np.zeros((1, 4 * H), np.float32)
    gi[0, :H] = v            # input gate: sigmoid(v) * tanh(0) adds nothing but NaN
    gi[0, 3 * H:] = 100.0    # output gate open
    gi[0, 2 * H:3 * H] = 1.0
    c, out = np.ones((1, H), np.float32), np.empty((1, H), np.float32)
    kernel_set.recurrent_layer("lstm", gi, np.array([1], np.intp),
                               np.zeros((4 * H, H), np.float32), None, None,
                               np.zeros((1, H), np.float32), c, out, False)
    sig = 1 / (1 + np.exp(-v.astype(np.float64)))
    c64 = 0.5 + sig * np.tanh(1.0)
    np.testing.assert_allclose(c[0], c64, rtol=3e-7)
    np.testing.assert_allclose(out[0], np.tanh(c64), rtol=3e-7)


# -- linear and attention on stacked inputs ------------------------------------------

def test_linear_of_a_stack_is_one_product_of_its_rows():
    from pyjit.ops.nn_layers import linear
    rng = np.random.default_rng(1)
    w = rng.standard_normal((24, 16)).astype(np.float32)
    b = rng.standard_normal(24).astype(np.float32)
    x = rng.standard_normal((2, 7, 7, 16)).astype(np.float32)
    flat = linear(x.reshape(-1, 16), w, b)
    assert np.array_equal(linear(x, w, b), flat.reshape(2, 7, 7, 24))
    # a non-contiguous stack (Swin's permuted windows) gives the same values
    xt = np.ascontiguousarray(x.transpose(0, 2, 1, 3)).transpose(0, 2, 1, 3)
    assert not xt.flags.c_contiguous
    assert np.array_equal(linear(xt, w, b), flat.reshape(2, 7, 7, 24))
    # a bias of two dimensions broadcasts against the whole output, as torch's
    b2 = rng.standard_normal((7, 24)).astype(np.float32)
    assert np.array_equal(linear(x, w, b2), linear(x, w) + b2)
    assert linear(np.zeros((3, 0, 16), np.float32), w, b).shape == (3, 0, 24)


def test_self_attention_takes_one_packed_projection_with_the_same_values():
    from pyjit.ops.nn_attention import native_multi_head_attention as mha
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 9, 32)).astype(np.float32)
    qkv_w = rng.standard_normal((96, 32)).astype(np.float32) * 0.2
    qkv_b = rng.standard_normal(96).astype(np.float32)
    proj_w = rng.standard_normal((32, 32)).astype(np.float32) * 0.2
    proj_b = rng.standard_normal(32).astype(np.float32)
    packed = mha(x, x, x, 32, 4, qkv_w, qkv_b, proj_w, proj_b, None, True, True)
    apart = mha(x, x.copy(), x.copy(), 32, 4, qkv_w, qkv_b, proj_w, proj_b, None, True, True)
    for a, b in zip(packed, apart):
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-6)


@pytest.mark.skipif(kernels.COMPILED is None, reason="built without a compiler")
@pytest.mark.parametrize("log", [False, True], ids=["softmax", "log_softmax"])
def test_softmax_rows_agree_with_the_reference_at_every_special_position(log):
    # Rows of every length up to 40 (the maximum's two chains of 8, the block of
    # 8 after them, the scalar tail) and 197 (a ViT's), each with a NaN, an inf,
    # a -inf and 200 placed at every position in turn, and a row of -inf alone.
    # (A maximum that missed the 200 would overflow exp: softmax is otherwise
    # the same for any shift.)
    rng = np.random.default_rng(11)
    for d in list(range(1, 41)) + [197]:
        base = rng.standard_normal(d).astype(np.float32) * 4
        rows = [base]
        for special in (np.nan, np.inf, -np.inf, 200.0):
            for p in range(d):
                r = base.copy()
                r[p] = special
                rows.append(r)
        rows.append(np.full(d, -np.inf, np.float32))
        x = np.stack(rows)
        got, want = np.empty_like(x), np.empty_like(x)
        kernels.COMPILED.softmax_rows(x, got, log)
        kernels.NUMPY.softmax_rows(x, want, log)
        nan = np.isnan(want)
        assert (np.isnan(got) == nan).all(), d
        np.testing.assert_allclose(got[~nan], want[~nan], rtol=2e-6, atol=1e-7 if not log else 2e-6,
                                   err_msg=f"rows of {d}")


@pytest.mark.skipif(kernels.COMPILED is None, reason="built without a compiler")
@pytest.mark.parametrize("d", [1, 15, 16, 17, 49, 64, 65])
def test_short_softmax_rows_in_blocks_of_16_agree_with_the_reference(d):
    # 16 rows a lane each (_kernels_softmax.h), the rows past the last block
    # row by row, and in place
    rng = np.random.default_rng(d)
    x = (rng.standard_normal((53, d)) * 6).astype(np.float32)
    want = np.empty(x.shape, np.float32)
    kernels.NUMPY.softmax_rows(x, want, False)
    got = np.full(x.shape, 7.0, np.float32)
    kernels.COMPILED.softmax_rows(x, got, False)
    np.testing.assert_allclose(got, want, rtol=2e-6, atol=1e-7)
    kernels.COMPILED.softmax_rows(x, x, False)
    np.testing.assert_allclose(x, want, rtol=2e-6, atol=1e-7)


def test_a_short_recurrent_projection_is_the_product():
    from pyjit.ops.nn_recurrent import SHORT_PROJECTION, _projection
    rng = np.random.default_rng(12)
    for rows, k in ((32, 64), (1, 5), (SHORT_PROJECTION, SHORT_PROJECTION), (65, 64), (8, 65)):
        x = rng.standard_normal((rows, k)).astype(np.float32)
        w = rng.standard_normal((3 * 16, k)).astype(np.float32)
        got = _projection(x, w)
        assert got.flags.c_contiguous and got.dtype == np.float32
        np.testing.assert_allclose(got, x.astype(np.float64) @ w.T.astype(np.float64),
                                   rtol=1e-5, atol=1e-5)
    x64 = rng.standard_normal((4, 8))
    assert _projection(x64, rng.standard_normal((12, 8))).dtype == np.float64
