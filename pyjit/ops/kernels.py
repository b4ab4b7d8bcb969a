"""float32 tensor kernels: computed in float32, as torch computes them.

The operator families (:mod:`.nn_conv`, :mod:`.nn_norm`, :mod:`.activations`)
compute a float32 tensor here and every other dtype on their own generic path,
which sums in double.  A kernel is one of two renderings of one function:

* C, compiled from ``_kernels.pyx`` (its parts ``_kernels_conv.pxi``,
  ``_kernels_norm.pxi``, ``_kernels_activations.pxi`` and
  ``_kernels_recurrent.pxi``): typed memoryview loops that release the GIL;
* numpy, the ``<name>_numpy`` functions below: the reference, with the same
  signature and results, and what a build without a compiler uses.

Both write into an output array the caller gives (``out``), C-contiguous
float32 like their inputs.  :data:`COMPILED` and :data:`NUMPY` hold the two
sets and :data:`ACTIVE` the one the operators use; the drivers here
(:func:`conv2d`, :func:`batch_norm_inference`, ...) take the set as their last
argument so that tests/test_kernels.py runs one suite against both.

A convolution is as torch's CPU convolution is: a 1x1 convolution is one
float32 GEMM over the image (``W (O, C) @ x (C, H*W)``); a general one copies
the windows into columns (im2col, into a buffer each thread reuses) and makes
one GEMM per image and group; a depthwise one (a group per input channel), and
one of few taps an output (:data:`DIRECT_MAX_TAPS`), is summed directly, tap by
tap over the whole output plane, from the input's zero-padded phase planes
(``depthwise2d``, ``conv2d_direct``).  The GEMMs are numpy's float32 ``matmul``
(its BLAS, which releases the GIL), so sums are blocked as torch's are and
results are within torch's own float32 error of the exact value.
"""

from __future__ import annotations

import contextlib
import math
import os
import threading
from types import SimpleNamespace
from typing import Optional, Sequence, Tuple

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from .. import fperrors
from . import blas

__all__ = ["COMPILED", "NUMPY", "ACTIVE", "is_float32", "disabled", "conv2d", "conv_nd",
           "pool2d", "global_avg_pool2d", "batch_norm_inference", "layer_norm", "group_norm",
           "softmax", "pointwise", "writes_in_place"]

F32 = np.dtype(np.float32)


_enabled = True


def is_float32(*arrays) -> bool:
    """Whether every array given (None skipped) is a float32 ndarray: the
    tensors these kernels compute (none inside :func:`disabled`)."""
    if not _enabled:
        return False
    for a in arrays:   # a loop, not all() over a generator: called twice a layer
        if a is not None and (type(a) is not np.ndarray or
                              (a.dtype is not F32 and a.dtype != F32)):
            return False
    return True


@contextlib.contextmanager
def disabled():
    """Within it, every operator takes its generic float64 path, as before these
    kernels: what ``pyjit bench --models`` measures as ``pyjit-float64``.  For
    measurement only: it holds for every thread."""
    global _enabled
    saved, _enabled = _enabled, False
    try:
        yield
    finally:
        _enabled = saved


def _c(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a, F32)


# -- numpy references ---------------------------------------------------------------------

def _windows(xp: np.ndarray, kernel, stride, dilation, out_size) -> np.ndarray:
    """``(C, *out, *kernel)``: the windows of a padded ``(C, *spatial)`` input,
    a strided view."""
    nd = len(kernel)
    extent = [d * (k - 1) + 1 for k, d in zip(kernel, dilation)]
    w = sliding_window_view(xp, extent, axis=tuple(range(1, 1 + nd)))
    index = (slice(None),) + tuple(slice(0, o * s, s) for o, s in zip(out_size, stride)) + \
        tuple(slice(None, None, d) for d in dilation)
    return w[index]


def _padded(x: np.ndarray, kernel, stride, padding, dilation, out_size, fill=0.0):
    """``x`` (``(C, *spatial)``) padded by ``padding`` before and as much after as
    the last window needs."""
    pads = [(0, 0)]
    for i, (k, s, p, d, o) in enumerate(zip(kernel, stride, padding, dilation, out_size)):
        need = (o - 1) * s + d * (k - 1) + 1
        pads.append((p, max(need - x.shape[1 + i] - p, 0)))
    return np.pad(x, pads, constant_values=fill)


def im2col_numpy(x, cols, kernel, stride, padding, dilation):
    """The N-d form of :func:`im2col2d_numpy`: ``cols`` is ``(C*prod(kernel),
    *out)``."""
    out_size = cols.shape[1:]
    win = _windows(_padded(x, kernel, stride, padding, dilation, out_size), kernel, stride,
                   dilation, out_size)
    nd = len(kernel)
    # (C, *out, *kernel) -> (C, *kernel, *out)
    order = (0,) + tuple(range(1 + nd, 1 + 2 * nd)) + tuple(range(1, 1 + nd))
    np.copyto(cols.reshape((x.shape[0],) + tuple(kernel) + tuple(out_size)),
              win.transpose(order))


def im2col2d_numpy(x, cols, kh, kw, sh, sw, ph, pw, dh, dw):
    """Fill ``cols`` (``(C*kh*kw, oh, ow)``) with the windows of ``x`` (``(C, H,
    W)``): ``cols[(c*kh + i)*kw + j, oy, ox]`` is the input under kernel tap
    ``(i, j)`` of the window at ``(oy*sh - ph, ox*sw - pw)``, 0 in the padding."""
    im2col_numpy(x, cols, (kh, kw), (sh, sw), (ph, pw), (dh, dw))


def depthwise2d_numpy(x, weight, bias, out, sh, sw, ph, pw, dh, dw, scale=None, shift=None,
                      lo=-math.inf, hi=math.inf):
    """``out[o] = bias[o] + sum over taps (i, j) of weight[o, i, j] * x[o // m]``
    shifted by the tap, for ``m = out channels / x channels``: a convolution
    whose every group is one input channel (``bias`` None: 0).  Then ``*
    scale[o] + shift[o]`` (None: 1, 0) and clamped to ``[lo, hi]``, if any is
    given."""
    _depthwise_sums_numpy(x, weight, bias, out, sh, sw, ph, pw, dh, dw)
    if scale is not None or shift is not None or lo != -math.inf or hi != math.inf:
        _epilogue_numpy(out.reshape(out.shape[0], -1), scale, shift, lo, hi)


def _depthwise_sums_numpy(x, weight, bias, out, sh, sw, ph, pw, dh, dw):
    oc, oh, ow = out.shape
    out[...] = 0 if bias is None else bias[:, None, None]
    kh, kw = weight.shape[1:]
    m = oc // x.shape[0]
    xp = _padded(x, (kh, kw), (sh, sw), (ph, pw), (dh, dw), (oh, ow))
    if m > 1:
        xp = np.repeat(xp, m, axis=0)
    for i in range(kh):
        for j in range(kw):
            tap = xp[:, i * dh:i * dh + (oh - 1) * sh + 1:sh, j * dw:j * dw + (ow - 1) * sw + 1:sw]
            out += weight[:, i, j, None, None] * tap


def conv2d_direct_numpy(x, weight, bias, out, groups, sh, sw, ph, pw, dh, dw):
    """``out[o] = bias[o] + sum over channels c of o's group and taps (i, j) of
    weight[o, c, i, j] * x[g*cg + c]`` shifted by the tap (``cg =
    weight.shape[1]`` channels a group; ``bias`` None: 0), the taps in order
    ``(c, i, j)``: a convolution summed directly."""
    oc, oh, ow = out.shape
    out[...] = 0 if bias is None else bias[:, None, None]
    cg, kh, kw = weight.shape[1:]
    og = oc // groups
    xp = _padded(x, (kh, kw), (sh, sw), (ph, pw), (dh, dw), (oh, ow))
    # each output channel's group's input channels, (O, cg, H', W')
    xg = xp.reshape((groups, cg) + xp.shape[1:]).repeat(og, axis=0)
    for c in range(cg):
        for i in range(kh):
            for j in range(kw):
                tap = xg[:, c, i * dh:i * dh + (oh - 1) * sh + 1:sh,
                         j * dw:j * dw + (ow - 1) * sw + 1:sw]
                out += weight[:, c, i, j, None, None] * tap


def conv3x3s2_numpy(x, weight, out, ph, pw, scale, shift, lo, hi):
    """``out[o] = clip(sums[o] * scale[o] + shift[o], lo, hi)`` (None: 1, 0),
    ``sums`` the 3x3 convolution of ``x`` at stride 2 with ``weight``, the taps
    in order ``(c, i, j)``: the reference of the compiled stem kernel."""
    conv2d_direct_numpy(x, weight, None, out, 1, 2, 2, ph, pw, 1, 1)
    _epilogue_numpy(out.reshape(out.shape[0], -1), scale, shift, lo, hi)
    return True


def max_pool2d_numpy(x, out, kh, kw, sh, sw, ph, pw, dh, dw):
    """``out[p, oy, ox]``: the largest element of ``x[p]`` under the window at
    ``(oy*sh - ph, ox*sw - pw)`` (taps ``dh``/``dw`` apart, those outside ``x``
    skipped), or NaN if the window holds one, as torch's max pooling says."""
    oh, ow = out.shape[1:]
    xp = _padded(x, (kh, kw), (sh, sw), (ph, pw), (dh, dw), (oh, ow), fill=-np.inf)
    out[...] = -np.inf
    for i in range(kh):
        for j in range(kw):
            tap = xp[:, i * dh:i * dh + (oh - 1) * sh + 1:sh, j * dw:j * dw + (ow - 1) * sw + 1:sw]
            np.maximum(out, tap, out=out)  # np.maximum propagates a NaN, as torch does


def avg_pool2d_numpy(x, out, kh, kw, sh, sw, ph, pw, count_include_pad, divisor_override):
    """``out[p, oy, ox]``: the mean of ``x[p]`` under the window at ``(oy*sh -
    ph, ox*sw - pw)``, summed in double and divided as torch does: by
    ``divisor_override`` if not 0, else by the window's size clipped to the
    padded input (``count_include_pad``) or to the input."""
    oh, ow = out.shape[1:]
    h, w = x.shape[1:]
    xp = _padded(x.astype(np.float64), (kh, kw), (sh, sw), (ph, pw), (1, 1), (oh, ow))
    total = np.zeros(out.shape, np.float64)
    for i in range(kh):
        for j in range(kw):
            total += xp[:, i:i + (oh - 1) * sh + 1:sh, j:j + (ow - 1) * sw + 1:sw]
    if divisor_override:
        divide = np.float64(divisor_override)
    else:
        y0 = np.arange(oh) * sh - ph
        x0 = np.arange(ow) * sw - pw
        y1, x1 = np.minimum(y0 + kh, h + ph), np.minimum(x0 + kw, w + pw)
        if not count_include_pad:
            y0, x0 = np.maximum(y0, 0), np.maximum(x0, 0)
            y1, x1 = np.minimum(y1, h), np.minimum(x1, w)
        divide = ((y1 - y0)[:, None] * (x1 - x0)[None, :]).astype(np.float64)
    np.divide(total, divide, out=out, casting="same_kind")


def plane_means_numpy(x, out, divisor):
    """``out[p]``: the sum of plane ``x[p]`` in double, divided by ``divisor``
    (the plane's size, or an average pooling's ``divisor_override``) and rounded
    once: global average pooling, every squeeze-excitation block's."""
    np.divide(x.sum(axis=1, dtype=np.float64), divisor, out=out, casting="same_kind")


# Abramowitz and Stegun 7.1.26 (|error| < 1.5e-7), the approximation torch's
# vectorised float erf makes too.
_AS_P = np.float32(0.3275911)
_AS_A = [np.float32(v) for v in (1.061405429, -1.453152027, 1.421413741, -0.284496736,
                                 0.254829592)]


def _erf_as(x: np.ndarray) -> np.ndarray:
    """erf by Abramowitz and Stegun 7.1.26 in float32 (|error| < 1.5e-7), the
    approximation torch's vectorised float erf makes too: gelu's."""
    a = np.abs(x)
    t = np.float32(1) / (np.float32(1) + _AS_P * a)
    poly = np.full_like(t, _AS_A[0])
    for c in _AS_A[1:]:
        poly *= t
        poly += c
    poly *= t
    return np.copysign(np.float32(1) - poly * np.exp(-a * a), x)


def erf_numpy(x, out):
    """The error function, elementwise, by libm's ``erff`` (within an ulp: the
    operator ``erf`` itself, where gelu's approximation would be too coarse
    for small ``x``)."""
    from .special import erf
    np.copyto(out, erf(x), casting="same_kind")


def gelu_numpy(x, out, tanh_approximation):
    """``x * Phi(x)``, Phi the standard normal's distribution function through
    ``erf``, or torch's tanh approximation of it."""
    if tanh_approximation:
        inner = np.float32(math.sqrt(2 / math.pi)) * (x + np.float32(0.044715) * x * x * x)
        np.multiply(np.float32(0.5) * x, np.float32(1) + np.tanh(inner), out=out)
    else:
        cdf = _erf_as(x * np.float32(math.sqrt(0.5)))
        cdf += np.float32(1)
        np.multiply(np.float32(0.5) * x, cdf, out=out)


def silu_numpy(x, out):
    """``x * sigmoid(x)``."""
    np.divide(x, np.float32(1) + np.exp(-x), out=out)


def sigmoid_numpy(x, out):
    """``1 / (1 + exp(-x))``."""
    np.divide(np.float32(1), np.float32(1) + np.exp(-x), out=out)


def hardswish_numpy(x, out):
    """``x * relu6(x + 3) / 6``; a NaN stays NaN."""
    np.multiply(x, np.clip(x + np.float32(3), np.float32(0), np.float32(6)) / np.float32(6),
                out=out)


def _epilogue_numpy(out, scale, shift, lo, hi):
    """``out`` (``(rows, n)``) scaled and shifted by row and clamped, in place,
    in double rounded once as one FMA rounds (the compiled epilogue's)."""
    if scale is not None:
        y = out * scale.astype(np.float64).reshape(-1, 1)
        if shift is not None:
            y += shift.astype(np.float64).reshape(-1, 1)
        out[...] = y
    elif shift is not None:
        out += shift.reshape(-1, 1)
    if lo != -math.inf or hi != math.inf:
        clamp_numpy(out, out, lo, hi)


def conv2d_gemm_numpy(x, w, out, scale, shift, lo, hi, kh, kw, sh, sw, ph, pw, dh, dw):
    """``out = clip((w @ cols) * scale + shift, lo, hi)`` by row (``scale``/``shift``
    None: 1/0; ``lo``/``hi`` infinite: no clamp), ``cols`` the columns
    :func:`im2col2d_numpy` makes of ``x`` (``(C, H, W)``) for the output whose
    pixels are ``out``'s columns: a convolution as one GEMM, its bias or batch
    norm and its ReLU.  Returns True (done)."""
    h, wd = x.shape[1:]
    oh = (h + 2 * ph - dh * (kh - 1) - 1) // sh + 1
    ow = (wd + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    cols = np.empty((x.shape[0] * kh * kw, oh, ow), F32)
    im2col2d_numpy(x, cols, kh, kw, sh, sw, ph, pw, dh, dw)
    np.matmul(w, cols.reshape(-1, oh * ow), out=out)
    _epilogue_numpy(out, scale, shift, lo, hi)
    return True


def matmul_numpy(a, b, out, bias, lo, hi):
    """``out = clip(a @ b + bias, lo, hi)`` (``bias`` per column, None: 0), a
    NaN kept: the reference of the compiled ``matmul``."""
    np.matmul(a, b, out=out)
    if bias is not None:
        out += bias
    if lo != -math.inf or hi != math.inf:
        clamp_numpy(out, out, lo, hi)
    return True


def matmul_stack_numpy(a, b, out):
    """``out[i, j] = a[i, j] @ b[i, j]``: the reference of the compiled
    ``matmul_stack``."""
    np.matmul(a, b, out=out)
    return True


def clamp_numpy(x, out, lo, hi):
    """The larger of ``x`` and ``lo``, then the smaller of that and ``hi``, as
    ``np.minimum(np.maximum(x, lo), hi)`` (a NaN stays NaN): relu (``lo = 0``,
    ``hi = inf``), relu6, hardtanh."""
    np.minimum(np.maximum(x, np.float32(lo)), np.float32(hi), out=out)


def hardsigmoid_numpy(x, out):
    """``x / 6 + 0.5`` clipped to ``[0, 1]``; a NaN stays NaN."""
    np.clip(x / np.float32(6) + np.float32(0.5), np.float32(0), np.float32(1), out=out)


def softmax_rows_numpy(x, out, log):
    """Softmax (``log``: log-softmax) of every row: the row's maximum, the sum of
    ``exp(x - max)`` in double, then each element; a row whose maximum is not
    finite is shifted by 0, as torch does."""
    m = np.max(x, axis=1, keepdims=True) if x.shape[1] else np.zeros((x.shape[0], 1), F32)
    m[~np.isfinite(m)] = 0
    shifted = x - m
    e = np.exp(shifted)
    total = np.sum(e, axis=1, keepdims=True, dtype=np.float64)
    if log:
        np.subtract(shifted, np.log(total.astype(F32)), out=out)
    else:
        np.multiply(e, (1 / total).astype(F32), out=out)


def plane_affine_numpy(x, scale, shift, out, lo=-math.inf, hi=math.inf):
    """``out[p] = x[p] * scale[p % len(scale)] + shift[...]`` for every plane
    ``p`` of ``x`` (``(N*C, spatial)``): inference batch norm in one pass;
    clamped to ``[lo, hi]`` (a NaN stays NaN) if they are finite."""
    reps = x.shape[0] // max(scale.shape[0], 1)
    np.multiply(x, np.tile(scale, reps)[:, None], out=out)
    out += np.tile(shift, reps)[:, None]
    if lo != -math.inf or hi != math.inf:
        clamp_numpy(out, out, lo, hi)


def batch_norm_affine(weight, bias, mean, var, eps: float) -> Tuple[np.ndarray, np.ndarray]:
    """An inference batch norm's map per channel, ``y * scale + shift``: ``scale
    = weight / sqrt(var + eps)`` and ``shift = bias - mean * scale``, in double
    (``weight``, ``bias`` None: 1 and 0), as ``batch_norm_planes`` makes them."""
    scale = 1 / np.sqrt(var.astype(np.float64) + eps)
    if weight is not None:
        scale = scale * weight
    shift = -mean.astype(np.float64) * scale
    if bias is not None:
        shift = shift + bias
    return scale, shift


def bn_affine_numpy(weight, bias, mean, var, eps, conv_bias, scale, shift):
    """:func:`batch_norm_affine` into the float32 ``scale`` and ``shift``, the
    bias of the convolution before the batch norm (``conv_bias``, or None)
    folded in: ``shift + conv_bias * scale``, in double, rounded once."""
    a, b = batch_norm_affine(weight, bias, mean, var, eps)
    if conv_bias is not None:
        b = b + conv_bias.astype(np.float64) * a
    scale[...] = a
    shift[...] = b


def batch_norm_planes_numpy(x, weight, bias, mean, var, eps, out):
    """Inference batch norm of ``x`` (``(N*C, spatial)``, plane ``p`` of channel
    ``p % C``) by running statistics: ``out[p] = x[p] * scale + shift``, the map
    of :func:`batch_norm_affine` rounded once to float32."""
    scale, shift = batch_norm_affine(weight, bias, mean, var, eps)
    plane_affine_numpy(x, _c(scale), _c(shift), out)


def row_stats_numpy(x, eps, mean, rstd):
    """Each row's mean and ``1/sqrt(var + eps)``, the variance biased (divided by
    the row's length) and summed about the mean in a second pass."""
    xd = x.astype(np.float64)
    mean[...] = xd.mean(axis=1) if x.shape[1] else 0
    var = ((xd - mean[:, None]) ** 2).mean(axis=1) if x.shape[1] else 0
    rstd[...] = 1 / np.sqrt(var + eps)


def layer_norm_rows_numpy(x, weight, bias, eps, out, mean, rstd):
    """``(x - mean) * rstd * weight + bias`` along every row (``weight`` and
    ``bias`` of the row's length, or None), the rows' statistics left in
    ``mean`` and ``rstd``."""
    row_stats_numpy(x, eps, mean, rstd)
    np.multiply(x - mean[:, None].astype(F32), rstd[:, None].astype(F32), out=out)
    if weight is not None:
        out *= weight
    if bias is not None:
        out += bias


def recurrent_layer_numpy(mode, gi, sizes, w_hh, b_hh, w_hr, h, c, out, reverse):
    """One direction of one layer of ``mode`` (``rnn_tanh``, ``rnn_relu``,
    ``lstm``, ``gru``) over its steps: ``gi`` ``(R, G*H)`` holds every step's
    input projection (with ``b_ih``), the ``sizes[t]`` rows of step ``t`` after
    those of the steps before it (sizes non-increasing: packed sequences,
    longest first); ``w_hh`` ``(G*H, P)``, ``b_hh`` ``(G*H,)`` or None,
    ``w_hr`` an LSTM's projection ``(P, H)`` or None (then ``P == H``).  The
    state ``h`` ``(B, P)`` (an LSTM's ``c`` ``(B, H)`` too) is updated in place
    to the final one, its first ``sizes[t]`` rows at step ``t``; each step's new
    ``h`` goes to its rows of ``out`` ``(R, P)``.  ``reverse``: from the last
    step to the first.  The cells' arithmetic is torch's, in its order::

        lstm  c' = σ(f) c + σ(i) tanh(g),  h' = σ(o) tanh(c')   (@ w_hr.T)
        gru   r, z = σ(gi + gh),  n = tanh(gi_n + r gh_n),  h' = (h - n) z + n
        rnn   h' = tanh(gi + gh)  (relu for rnn_relu)

    with ``gh = h @ w_hh.T + b_hh``, in the arrays' dtype (float32; the recurrent
    operators run float64 here too)."""
    gates = {"rnn_tanh": 1, "rnn_relu": 1, "lstm": 4, "gru": 3}[mode]
    H = gi.shape[1] // gates
    first = np.concatenate([[0], np.cumsum(sizes)]).astype(int)
    w_t = w_hh.T
    order = range(len(sizes) - 1, -1, -1) if reverse else range(len(sizes))
    for t in order:
        n, a = int(sizes[t]), int(first[t])
        if n == 0:
            continue
        g, hp = gi[a:a + n], h[:n]
        q = hp @ w_t
        if b_hh is not None:
            q += b_hh
        if mode == "lstm":
            s = g + q
            sg = np.empty_like(s)
            sigmoid_numpy(s.reshape(-1), sg.reshape(-1))   # the g columns are not used
            cn = sg[:, H:2 * H] * c[:n] + sg[:, :H] * np.tanh(s[:, 2 * H:3 * H])
            c[:n] = cn
            hn = sg[:, 3 * H:] * np.tanh(cn)
            if w_hr is not None:
                hn = hn @ w_hr.T
        elif mode == "gru":
            rz = np.empty((n, 2 * H), g.dtype)
            sigmoid_numpy((g[:, :2 * H] + q[:, :2 * H]).reshape(-1), rz.reshape(-1))
            r, z = rz[:, :H], rz[:, H:]
            cand = np.tanh(g[:, 2 * H:] + r * q[:, 2 * H:])
            hn = (hp - cand) * z + cand
        elif mode == "rnn_tanh":
            hn = np.tanh(g + q)
        else:
            v = g + q
            hn = np.where(v < 0, np.float32(0), v)
        out[a:a + n] = hn
        h[:n] = hn


_NAMES = ("im2col2d", "conv2d_gemm", "depthwise2d", "conv2d_direct", "conv3x3s2", "max_pool2d",
          "avg_pool2d", "plane_means", "erf", "gelu", "silu", "sigmoid", "hardswish", "clamp",
          "hardsigmoid", "softmax_rows", "plane_affine", "bn_affine", "batch_norm_planes",
          "row_stats", "layer_norm_rows", "recurrent_layer", "matmul", "matmul_stack")

#: The numpy references, by the kernels' names.
NUMPY = SimpleNamespace(name="numpy", **{n: globals()[f"{n}_numpy"] for n in _NAMES})


def _compiled() -> Optional[SimpleNamespace]:
    try:
        from . import _kernels
    except ImportError:  # built without a compiler (PYJIT_PUREPYTHON=1)
        return None
    return SimpleNamespace(name="compiled", **{n: getattr(_kernels, n) for n in _NAMES})


#: The compiled kernels, or None in a build without a compiler.
COMPILED = _compiled()

#: How many MB of freed array blocks the run arena keeps for the next arrays
#: of their size (``PYJIT_RUN_ARENA_MB``; 0 turns the arena off).
RUN_ARENA_MB = int(os.environ.get("PYJIT_RUN_ARENA_MB", "256") or 0)


def _link_run_arena() -> bool:
    """Give :mod:`pyjit.fperrors` the run arena of the compiled kernels
    (``_kernels_arena.h``) as the data allocator of runs on tensors, once it is
    checked that numpy takes it; False where there is none (a build without a
    compiler, ``PYJIT_RUN_ARENA_MB=0``, a numpy without NEP 49's handlers)."""
    if COMPILED is None or RUN_ARENA_MB <= 0:
        return False
    from . import _kernels
    try:
        from numpy._core import _multiarray_umath, multiarray
        _kernels.link_numpy_handler(_multiarray_umath._ARRAY_API)
        previous = _kernels.set_data_handler(_kernels.ARENA_HANDLER)
        try:
            probe = np.empty(1 << 17, np.uint8)
            took = multiarray.get_handler_name(probe) == "pyjit_arena"
            del probe
        finally:
            _kernels.set_data_handler(previous)
    except (ImportError, AttributeError, RuntimeError, ValueError):
        return False
    if not took:
        return False
    _kernels.set_arena_limit(RUN_ARENA_MB << 20)
    fperrors.use_run_arena(_kernels.ARENA_HANDLER, _kernels.set_data_handler)
    return True


#: Whether runs on tensors allocate from the run arena (:func:`_link_run_arena`).
RUN_ARENA = _link_run_arena()

#: The kernels the operators use: the compiled ones where built.
ACTIVE = COMPILED if COMPILED is not None else NUMPY


def _own_gemm_everywhere() -> bool:
    if COMPILED is None:
        return False
    from . import _kernels
    return blas.prefer_own_gemm(_kernels.gemm_level())


#: Whether pyjit's own float32 GEMM (the compiled ``conv2d_gemm`` and
#: ``matmul``) takes the products numpy's BLAS would otherwise make, long or
#: with nothing to apply after them: where numpy's OpenBLAS runs narrower
#: vectors than the CPU has (:func:`.blas.prefer_own_gemm`; on a Zen 5, its
#: Haswell kernels: 100-110 GFLOP/s on one thread against 185-205 for pyjit's).
OWN_GEMM_EVERYWHERE = _own_gemm_everywhere()

#: ... but for a product of fewer rows than this: one row is a matrix-vector
#: product, which OpenBLAS's gemv makes reading the matrix once, where the GEMM
#: packs its transposed panels (1 x 1280 @ 1280 x 1000: 63 against 124 us;
#: with 2 rows, 339 against 187).
OWN_MATMUL_MIN_ROWS = 2


# -- drivers ------------------------------------------------------------------------------

_buffers = threading.local()


def _scratch(shape: Tuple[int, ...]) -> np.ndarray:
    """A float32 array of ``shape`` over this thread's reused buffer (grown as
    needed): the im2col columns, dead once their GEMM is made."""
    size = math.prod(shape)
    buf = getattr(_buffers, "cols", None)
    if buf is None or buf.size < size:
        buf = _buffers.cols = np.empty(max(size, 1), F32)
    return buf[:size].reshape(shape)


#: A convolution (not 1x1) whose output values take at most this many taps
#: each (``C/groups * kh * kw``: RegNet's groups of 8 channels, 72; a
#: 3-channel 3x3 stem, 27) is summed directly (``conv2d_direct``): im2col
#: would copy the input ``kh*kw`` times for a GEMM of few rows or a short
#: ``K`` (1.3-2.6x on RegNet's grouped layers, 1.6-1.9x on the MobileNets'
#: stems) ...
DIRECT_MAX_TAPS = 80
#: ... if grouped, or if its output (which conv2d_direct sums block by block
#: of every channel at once) is at most this many floats, 2 MB: a stem of 64
#: channels (SqueezeNet's, 3.2 MB) is faster as a GEMM.
DIRECT_MAX_OUTPUTS = 1 << 19


#: A dense 3x3 convolution at stride 2 of at most this many input channels (a
#: CNN's stem) is summed in registers, 8 output channels at a time
#: (``conv3x3s2``): 2.5-3x conv2d_direct's phase planes, whose partial sums go
#: through memory, and the GEMM's strided gather of its 27 taps.
STEM_MAX_CHANNELS = 4


#: A convolution's GEMM of at most this many terms a sum (``C/groups * kh *
#: kw``) is the compiled ``conv2d_gemm``, which packs nothing but a panel of
#: the columns and applies the bias, batch norm and clamp before it stores
#: (1.2-1.4x numpy's OpenBLAS on a MobileNet's 1x1 layers, 1.3x on resnet18's
#: 7x7 stem and its 64-channel 3x3 layers, 576 terms); a longer one, numpy's
#: BLAS, whose packed weight serves deep layers better (resnet18 with every
#: 3x3 layer pyjit's, 1152 to 4608 terms too: 39.1 against 36.4 ms; with 640,
#: squeezenet1_1 8.8 -> 8.2 ms, resnet18 39.3 -> 37.1 ms).
OWN_GEMM_MAX_K = 640
#: ... and of at least this many output pixels (``oh * ow``): its tiles are 64
#: columns wide (16 on AVX2), so a squeeze-and-excitation block's 1x1
#: convolutions of one pixel would compute 64 times their sums (576 x 144 on
#: one pixel: 80 us against numpy's 7 us); numpy's BLAS is faster up to ~30.
OWN_GEMM_MIN_N = 32


def conv2d(x, weight, bias, stride: Sequence[int], padding: Sequence[int],
           dilation: Sequence[int], groups: int, out_size: Sequence[int], k=None,
           clamp: Optional[Tuple[float, float]] = None,
           affine: Optional[Tuple[np.ndarray, Optional[np.ndarray]]] = None) -> np.ndarray:
    """A float32 convolution of ``x`` (``(N, C, H, W)``) with ``weight`` (``(O,
    C/groups, kh, kw)``) and ``bias`` (``(O,)`` or None), ``padding`` the
    padding before each spatial dimension, ``out_size`` the output's ``(oh,
    ow)`` (the padding after is what they imply).  ``k``: the kernel set
    (:data:`ACTIVE` if None).

    What follows the sums, applied as the GEMM stores them where there is a
    GEMM of pyjit's own (:data:`OWN_GEMM_MAX_K`), else in one pass each after:
    ``affine``, ``(scale, shift)`` float32 per output channel, makes the output
    ``sums * scale + shift`` (an inference batch norm; ``bias`` must then be
    None, folded into ``shift`` by the caller); ``clamp``, ``(lo, hi)``, clamps
    it as :func:`clamp_numpy` does (a fused ReLU: ``(0, inf)``)."""
    k = ACTIVE if k is None else k
    if not x.flags.c_contiguous:
        x = _c(x)
    if not weight.flags.c_contiguous:
        weight = _c(weight)
    n, c, h, w = x.shape
    o, cg, kh, kw = weight.shape
    (sh, sw), (ph, pw), (dh, dw), (oh, ow) = stride, padding, dilation, out_size
    out = np.empty((n, o, oh, ow), F32)
    b = None if bias is None else _c(bias)
    if b is not None and b.shape != (o,):   # the kernels read o of it
        raise ValueError(f"Given weight of size {list(weight.shape)}, expected bias to be "
                         f"1-dimensional with {o} elements, but got bias of size "
                         f"{list(b.shape)} instead")
    scale, shift = (None, b) if affine is None else affine
    if affine is not None and (b is not None or scale.shape != (o,) or
                               (shift is not None and shift.shape != (o,))):
        raise ValueError(f"conv2d: an affine map of {scale.shape} and a bias for {o} channels")
    lo, hi = clamp if clamp is not None else (-math.inf, math.inf)
    og = o // groups
    pointwise = kh == kw == sh == sw == 1 and ph == pw == 0
    if groups == c and cg == 1:
        w3 = weight.reshape(o, kh, kw)
        for i in range(n):   # the affine map and clamp as it stores each row
            k.depthwise2d(x[i], w3, b, out[i], sh, sw, ph, pw, dh, dw, scale,
                          None if affine is None else shift, lo, hi)
        return out
    elif groups == 1 and kh == kw == 3 and sh == sw == 2 and dh == dw == 1 and \
            c <= STEM_MAX_CHANNELS and k.conv3x3s2(x[0], weight, out[0], ph, pw, scale, shift,
                                                   lo, hi):
        for i in range(1, n):   # (a body for this CPU: the first image says so)
            k.conv3x3s2(x[i], weight, out[i], ph, pw, scale, shift, lo, hi)
        return out
    elif not pointwise and cg * kh * kw <= DIRECT_MAX_TAPS and \
            (groups > 1 or o * oh * ow <= DIRECT_MAX_OUTPUTS):
        for i in range(n):
            k.conv2d_direct(x[i], weight, b, out[i], groups, sh, sw, ph, pw, dh, dw)
    else:
        w_mats = weight.reshape(groups, og, cg * kh * kw)
        for i in range(n):
            for g in range(groups):
                if groups == 1:   # no slices: a small layer's time is its Python
                    xg, dst, gs, gb = x[i], out[i].reshape(o, oh * ow), scale, shift
                else:
                    xg = x[i, g * cg:(g + 1) * cg]
                    dst = out[i, g * og:(g + 1) * og].reshape(og, oh * ow)
                    rows = slice(g * og, (g + 1) * og)
                    gs = None if scale is None else scale[rows]
                    gb = None if shift is None else shift[rows]
                if pointwise:
                    _gemm(k, w_mats[g], xg, dst, gs, gb, lo, hi)
                elif _blas_takes(cg * kh * kw, oh * ow) or \
                        not k.conv2d_gemm(xg, w_mats[g], dst, gs, gb, lo, hi, kh, kw, sh, sw,
                                          ph, pw, dh, dw):
                    cols = _scratch((cg * kh * kw, oh, ow))
                    k.im2col2d(xg, cols, kh, kw, sh, sw, ph, pw, dh, dw)
                    np.matmul(w_mats[g], cols.reshape(cg * kh * kw, oh * ow), out=dst)
                    _finish(k, dst, gs, gb, lo, hi)
        return out
    # the direct kernels added the bias; what is left, in place (an affine map
    # over every image's planes)
    _finish(k, out.reshape(n * o, oh * ow), scale, None if affine is None else shift, lo, hi)
    return out


def _blas_takes(terms: int, pixels: int) -> bool:
    """Whether a convolution's GEMM of ``terms`` a sum over ``pixels`` output
    pixels is numpy's BLAS's, not pyjit's (:data:`OWN_GEMM_MAX_K`,
    :data:`OWN_GEMM_MIN_N`, :data:`OWN_GEMM_EVERYWHERE`)."""
    return (terms > OWN_GEMM_MAX_K and not OWN_GEMM_EVERYWHERE) or pixels < OWN_GEMM_MIN_N


def _gemm(k, w, image, out, scale, shift, lo, hi) -> None:
    """``out = clip((w @ image) * scale + shift, lo, hi)`` by row, ``image``
    ``(C, H, W)`` taken as ``(C, H*W)``: a 1x1 convolution, by the set's
    ``conv2d_gemm`` for a product of at most :data:`OWN_GEMM_MAX_K` terms with
    something to apply after it, else (or where the compiled one has no body
    for this CPU, or fewer than :data:`OWN_GEMM_MIN_N` pixels) numpy's BLAS and
    :func:`_finish`."""
    plain = scale is None and shift is None and lo == -math.inf and hi == math.inf
    if (plain and not OWN_GEMM_EVERYWHERE) or _blas_takes(w.shape[1], out.shape[1]) or \
            not k.conv2d_gemm(image, w, out, scale, shift, lo, hi, 1, 1, 1, 1, 0, 0, 1, 1):
        np.matmul(w, image.reshape(image.shape[0], -1), out=out)
        _finish(k, out, scale, shift, lo, hi)


def _finish(k, out, scale, shift, lo, hi) -> None:
    """``out`` (``(rows, n)``, C-contiguous) made ``clip(out * scale + shift,
    lo, hi)`` by row, in place, by the set's kernels (``scale``/``shift`` None:
    1/0; with ``scale``, its rows may be planes of several images, row ``r``
    channel ``r % len(scale)``)."""
    if scale is not None:   # one pass
        k.plane_affine(out, scale, shift if shift is not None else np.zeros_like(scale), out,
                       lo, hi)
        return
    if shift is not None:
        out += shift.reshape(-1, 1)
    if lo != -math.inf or hi != math.inf:
        flat = out.reshape(-1)
        k.clamp(flat, flat, lo, hi)


def matmul(a: np.ndarray, b: np.ndarray, bias: Optional[np.ndarray] = None,
           out: Optional[np.ndarray] = None, k=None) -> np.ndarray:
    """``a @ b + bias``, float32 ``a`` ``(M, K)`` and ``b`` ``(K, N)``, ``bias``
    ``(N,)`` float32 or None, into ``out`` (``(M, N)`` float32 with contiguous
    rows) or a new C-ordered array: by pyjit's GEMM where it takes numpy's
    products (:data:`OWN_GEMM_EVERYWHERE`; the bias added first, as torch's
    ``addmm`` adds it), else numpy's ``matmul`` and then the bias.  ``b`` may
    be a transpose (a linear layer's ``weight.T``): the GEMM packs its columns
    as they are."""
    k = ACTIVE if k is None else k
    m, n = a.shape[0], b.shape[1]
    if out is None:
        out = np.empty((m, n), F32)
    if OWN_GEMM_EVERYWHERE and k is COMPILED and m >= OWN_MATMUL_MIN_ROWS and a.shape[1]:
        if a.strides[1] != 4:
            a = _c(a)
        if b.strides[1] != 4 and b.strides[0] != 4:
            b = _c(b)
        if k.matmul(a, b, out, bias, -math.inf, math.inf):
            return out
    np.matmul(a, b, out=out)
    if bias is not None:
        out += bias
    return out


def matmul_stack(a: np.ndarray, b: np.ndarray, k=None) -> np.ndarray:
    """``a @ b`` of float32 ``a`` ``(..., M, K)`` and ``b`` ``(..., K, N)``, as
    numpy's ``matmul`` makes it: a product per leading index (attention's per
    head), by pyjit's GEMM where it takes numpy's products
    (:data:`OWN_GEMM_EVERYWHERE`) and the leading shapes are the same, else by
    numpy.  ``b`` may be a transpose of its last two dimensions (``k.T`` per
    head): the GEMM packs its columns as they are."""
    k = ACTIVE if k is None else k
    if a.ndim == b.ndim == 2:
        return matmul(a, b, k=k)
    lead, (m, kk), n = a.shape[:-2], a.shape[-2:], b.shape[-1]
    if not (OWN_GEMM_EVERYWHERE and k is COMPILED and a.ndim >= 3 and
            b.shape[:-2] == lead and b.shape[-2] == kk and m >= OWN_MATMUL_MIN_ROWS and kk and
            n and math.prod(lead)):
        return np.matmul(a, b)
    # two leading dimensions, as attention's (batch, head) are: views of any
    # strides; more are merged into the first (a copy where they cannot be)
    shape4 = (1,) + lead if len(lead) == 1 else (-1, lead[-1])
    a4, b4 = a.reshape(shape4 + (m, kk)), b.reshape(shape4 + (kk, n))
    if a4.strides[3] != 4:
        a4 = _c(a4)
    if b4.strides[3] != 4 and b4.strides[2] != 4:
        b4 = _c(b4)
    out = np.empty(lead + (m, n), F32)
    if k.matmul_stack(a4, b4, out.reshape(a4.shape[:2] + (m, n))):
        return out
    return np.matmul(a, b)


def conv_nd(x, weight, bias, stride, padding, dilation, groups: int, out_size,
            k=None) -> np.ndarray:
    """A float32 convolution in any number of spatial dimensions (the arguments
    as :func:`conv2d`'s): per image and group, the windows as columns and one
    GEMM.  A 3-d one undilated in depth takes its columns plane by plane
    (:func:`_conv3d_planes`); any other, the numpy im2col."""
    k = ACTIVE if k is None else k
    x, weight = _c(x), _c(weight)
    n, c = x.shape[:2]
    o, cg = weight.shape[:2]
    kernel = weight.shape[2:]
    og = o // groups
    rows = cg * math.prod(kernel)
    length = math.prod(out_size)
    out = np.empty((n, o) + tuple(out_size), F32)
    for g in range(groups):
        wg = weight[g * og:(g + 1) * og]
        for i in range(n):
            xg, og_out = x[i, g * cg:(g + 1) * cg], out[i, g * og:(g + 1) * og]
            if len(kernel) == 3 and dilation[0] == 1:
                _conv3d_planes(xg, wg, og_out, stride, padding, dilation, k)
                continue
            cols = _scratch((rows,) + tuple(out_size))
            im2col_numpy(xg, cols, kernel, stride, padding, dilation)
            np.matmul(wg.reshape(og, rows), cols.reshape(rows, length),
                      out=og_out.reshape(og, length))
    if bias is not None:
        out += _c(bias).reshape((o,) + (1,) * len(kernel))
    return out


def _conv3d_planes(x, weight, out, stride, padding, dilation, k) -> None:
    """``out`` (``(O, ot, oh, ow)``) = the 3-d convolution of ``x`` (``(C, T, H,
    W)``) with ``weight`` (``(O, C, kt, kh, kw)``), undilated in depth.

    The 2-d columns of every input plane are made once (``im2col2d``) and stacked
    in depth: the columns of output depth ``q`` are then consecutive planes, one
    contiguous ``(taps*C*kh*kw, oh*ow)`` block that its GEMM reads in place, with
    the weight's rows of those depth taps in (tap, channel) order (the weight
    permuted once a call).  A plane's columns serve every output depth whose
    window covers it (``kt`` of them at stride 1), where a 3-d im2col would copy
    the input ``kt*kh*kw`` times (r3d_18's 64-channel layers: 72 MB of columns,
    not 173); a depth tap in the padding is left out, of the GEMM and of the
    permuted weight, not multiplied by zeros (r3d_18's last layers, 1 frame
    deep: a third of the work)."""
    c, t = x.shape[:2]
    o, _, kt, kh, kw = weight.shape
    st, sh, sw = stride
    pt, ph, pw = padding
    _, dh, dw = dilation
    nq, oh, ow = out.shape[1:]
    rows2d = c * kh * kw
    # [lo, hi): the depth taps of output depth q inside the input
    taps = [(max(0, pt - q * st), min(kt, t + pt - q * st)) for q in range(nq)]
    used = [(lo, hi) for lo, hi in taps if lo < hi]
    if not used:
        out[...] = 0
        return
    first_tap, last_tap = min(lo for lo, _ in used), max(hi for _, hi in used)
    wm = np.ascontiguousarray(weight[:, :, first_tap:last_tap].transpose(0, 2, 1, 3, 4))
    wm = wm.reshape(o, (last_tap - first_tap) * rows2d)
    cols = _scratch((t, rows2d, oh * ow))
    by_depth = np.ascontiguousarray(x.transpose(1, 0, 2, 3))   # each plane contiguous
    for it in range(t):
        k.im2col2d(by_depth[it], cols[it].reshape(rows2d, oh, ow), kh, kw, sh, sw, ph, pw,
                   dh, dw)
    for q, (lo, hi) in enumerate(taps):
        dst = out[:, q].reshape(o, oh * ow)
        if hi <= lo:
            dst[...] = 0
            continue
        first = q * st - pt + lo
        block = cols[first:first + hi - lo].reshape((hi - lo) * rows2d, oh * ow)
        matmul(wm[:, (lo - first_tap) * rows2d:(hi - first_tap) * rows2d], block, out=dst, k=k)


def _planes(x: np.ndarray, planes: int) -> np.ndarray:
    return x.reshape(planes, -1)


def pool2d(x, kind: str, kernel, stride, padding, dilation, out_size, count_include_pad=True,
           divisor_override=0, k=None) -> np.ndarray:
    """Max (``kind="max"``) or average pooling of ``x`` (``(N, C, H, W)``)
    float32, the windows' geometry as torch gives it and ``out_size`` the
    output's ``(oh, ow)``.  ``k``: the kernel set (:data:`ACTIVE` if None)."""
    k = ACTIVE if k is None else k
    x = _c(x)
    n, c, h, w = x.shape
    out = np.empty((n, c) + tuple(out_size), F32)
    x3, o3 = x.reshape(n * c, h, w), out.reshape((n * c,) + tuple(out_size))
    (kh, kw), (sh, sw), (ph, pw) = kernel, stride, padding
    if kind == "avg" and (kh, kw) == (h, w) and tuple(out_size) == (1, 1) and ph == pw == 0:
        # global average pooling (every SE block's): each plane summed in
        # double by eight running sums that vectorise, a window loop's
        # accuracy at a tenth of its time
        k.plane_means(x3.reshape(n * c, -1), o3.reshape(-1), float(divisor_override or h * w))
    elif kind == "max":
        dh, dw = dilation
        k.max_pool2d(x3, o3, kh, kw, sh, sw, ph, pw, dh, dw)
    else:
        k.avg_pool2d(x3, o3, kh, kw, sh, sw, ph, pw, bool(count_include_pad),
                     int(divisor_override or 0))
    return out


def global_avg_pool2d(x, k=None) -> np.ndarray:
    """The mean of every plane of a float32 ``x`` (``(N, C, H, W)``, not empty):
    ``(N, C, 1, 1)``, each summed in double (``plane_means``).  ``k``: the kernel
    set (:data:`ACTIVE` if None)."""
    k = ACTIVE if k is None else k
    n, c, h, w = x.shape
    if not x.flags.c_contiguous:
        x = _c(x)
    out = np.empty((n, c, 1, 1), F32)
    k.plane_means(x.reshape(n * c, h * w), out.reshape(n * c), float(h * w))
    return out


def batch_norm_inference(x, weight, bias, mean, var, eps: float, k=None) -> np.ndarray:
    """Inference batch norm of a float32 ``x`` (``(N, C, *spatial)``) by running
    statistics: ``x * scale + shift`` per channel in one pass, ``scale = weight
    / sqrt(var + eps)`` and ``shift = bias - mean * scale`` made in double and
    rounded once to float32 (by the kernel, ``batch_norm_planes``).  ``k``: the
    kernel set (:data:`ACTIVE` if None)."""
    k = ACTIVE if k is None else k
    if not x.flags.c_contiguous:
        x = _c(x)
    c = x.shape[1]
    for name, a in (("weight", weight), ("bias", bias), ("running_mean", mean),
                    ("running_var", var)):
        if a is not None and a.size != c:   # the kernel reads c of each
            raise ValueError(f"{name} should contain {c} elements not {a.size}")
    out = np.empty_like(x)
    planes = x.shape[0] * c
    if not planes:
        return out
    k.batch_norm_planes(x.reshape(planes, -1), None if weight is None else _c(weight),
                        None if bias is None else _c(bias), _c(mean), _c(var), float(eps),
                        out.reshape(planes, -1))
    return out


def layer_norm(x, rows_shape: int, weight, bias, eps: float, k=None):
    """Layer norm of a float32 ``x`` over its last dimensions, ``rows_shape``
    elements long: ``(out, mean, rstd)``, the statistics float64 of shape
    ``(x.size // rows_shape,)``.  ``k``: the kernel set (:data:`ACTIVE` if
    None)."""
    k = ACTIVE if k is None else k
    x = _c(x)
    rows = x.size // rows_shape if rows_shape else 0
    out = np.empty_like(x)
    mean, rstd = np.empty(rows), np.empty(rows)
    w = None if weight is None else _c(weight).reshape(-1)
    b = None if bias is None else _c(bias).reshape(-1)
    k.layer_norm_rows(x.reshape(rows, rows_shape), w, b, float(eps),
                      out.reshape(rows, rows_shape), mean, rstd)
    return out, mean, rstd


def group_norm(x, groups: int, weight, bias, eps: float, k=None):
    """Group norm of a float32 ``x`` (``(N, C, *spatial)``): ``(out, mean,
    rstd)``, the statistics float64 of shape ``(N, groups)``: the groups'
    statistics, then one per-channel pass ``x * scale + shift``."""
    k = ACTIVE if k is None else k
    x = _c(x)
    n, c = x.shape[:2]
    mean, rstd = np.empty(n * groups), np.empty(n * groups)
    k.row_stats(x.reshape(n * groups, -1), float(eps), mean, rstd)
    scale = np.repeat(rstd.reshape(n, groups), c // groups, axis=1)  # (N, C)
    if weight is not None:
        scale = scale * weight
    shift = -np.repeat(mean.reshape(n, groups), c // groups, axis=1) * scale
    if bias is not None:
        shift = shift + bias
    out = np.empty_like(x)
    k.plane_affine(_planes(x, n * c), _c(scale.reshape(-1)), _c(shift.reshape(-1)),
                   _planes(out, n * c))
    return out, mean.reshape(n, groups), rstd.reshape(n, groups)


def softmax(x, dim: int, log: bool, k=None) -> np.ndarray:
    """Softmax or log-softmax of a float32 ``x`` over ``dim`` (already wrapped):
    over rows when ``dim`` is the last, else on a transposed copy."""
    k = ACTIVE if k is None else k
    last = dim == x.ndim - 1
    xt = _c(x if last else np.moveaxis(x, dim, -1))
    out = np.empty_like(xt)
    d = xt.shape[-1]
    rows = xt.size // d if d else 0
    k.softmax_rows(xt.reshape(rows, d), out.reshape(rows, d), bool(log))
    return out if last else np.moveaxis(out, -1, dim)


def pointwise(name: str, x, *args, k=None, out=None) -> np.ndarray:
    """The pointwise kernel ``name`` (``gelu``, ``erf``, ``silu``, ``sigmoid``,
    ``hardswish``, ``hardsigmoid``, ``clamp``) of a float32 ``x``, of its shape:
    into ``out`` if given (a C-contiguous float32 array of that shape, which
    may be ``x``: an in-place operator writes no second array)."""
    k = ACTIVE if k is None else k
    # (not _c: np.ascontiguousarray makes a 0-dim array 1-dim)
    xc = x if x.flags.c_contiguous else np.asarray(x, F32, order="C")
    if out is None:
        out = np.empty_like(xc)
    getattr(k, name)(xc.reshape(-1), out.reshape(-1), *args)
    return out


def writes_in_place(a) -> bool:
    """Whether an in-place operator's kernel may write straight into ``a``: a
    float32, C-contiguous, writeable array (anything else takes the generic
    in-place path, which also says torch's errors)."""
    return is_float32(a) and a.flags.c_contiguous and a.flags.writeable
