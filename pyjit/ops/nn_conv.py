"""Convolutions and pooling on numpy: ``conv1d``/``conv2d``/``conv3d`` (groups,
stride, padding, dilation), their transposes, max/avg/adaptive pooling, and
``im2col``/``col2im``.

A float32 convolution or pooling is computed in float32 by :mod:`.kernels`
(as torch does: GEMMs, im2col, direct depthwise loops).  For every other dtype,
one N-dimensional implementation serves 1, 2 and 3 spatial dimensions: a
convolution pads its input, takes every kernel-sized window as a strided view
(``sliding_window_view``, dilation and stride as steps over it) and contracts
windows with the weight per group, the sums accumulated in double and rounded
once to the input's dtype.
Inputs may be batched ``(N, C, *spatial)`` or not ``(C, *spatial)``, as torch
accepts both.

Pooling windows follow torch's output-size rule (``ceil_mode`` adds a last window
only if it starts inside the input or its left padding), max pooling pads with
-inf and returns flat spatial indices, average pooling divides as torch does
(``count_include_pad``, ``divisor_override``), and adaptive pooling uses windows
``[floor(i*L/out), ceil((i+1)*L/out))``.
"""

from __future__ import annotations

import itertools

import math
from typing import List, Sequence

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ..registry import library as R
from . import kernels
from .dtypes import meta_name, torch_name

__all__ = ["conv", "conv2d", "conv_transpose", "max_pool", "avg_pool", "adaptive_avg_pool"]


def _tuple(v, n: int) -> List[int]:
    v = list(v) if isinstance(v, (list, tuple)) else [v]
    return v * n if len(v) == 1 else v


def _batched(x: np.ndarray, nd: int, name: str):
    if x.ndim == nd + 1:
        return x[None], True
    if x.ndim != nd + 2:
        raise ValueError(f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to "
                         f"{name}, but got input of size: {list(x.shape)}")
    return x, False


def _windows(x: np.ndarray, kernel: Sequence[int], stride: Sequence[int],
             dilation: Sequence[int]) -> np.ndarray:
    """``(N, C, *out, *kernel)`` windows of a padded ``(N, C, *spatial)`` input."""
    nd = len(kernel)
    extent = [d * (k - 1) + 1 for k, d in zip(kernel, dilation)]
    w = sliding_window_view(x, extent, axis=tuple(range(2, 2 + nd)))
    index = (slice(None), slice(None)) + tuple(slice(None, None, s) for s in stride) + \
        tuple(slice(None, None, d) for d in dilation)
    return w[index]


def _letters(nd: int):
    return "xyz"[:nd], "klm"[:nd]


def conv(x, weight, bias, stride, padding, dilation, groups: int, nd: int):
    """``aten::conv{nd}d``; ``padding`` is a list or ``"same"``/``"valid"``."""
    if groups <= 0:
        raise ValueError("non-positive groups is not supported")
    x, unbatched = _batched(x, nd, f"conv{nd}d")
    stride, dilation = _tuple(stride, nd), _tuple(dilation, nd)
    kernel = weight.shape[2:]
    if x.shape[1] != weight.shape[1] * groups:
        raise ValueError(f"Given groups={groups}, weight of size {list(weight.shape)}, expected "
                         f"input{list(x.shape)} to have {weight.shape[1] * groups} channels, but "
                         f"got {x.shape[1]} channels instead")
    if bias is not None and bias.dtype != x.dtype:
        raise TypeError(f"Input type ({meta_name(x.dtype)}) and bias type "
                        f"({meta_name(bias.dtype)}) should be the same")
    if weight.dtype != x.dtype:  # torch's CPU kernel, dispatched on the input's dtype
        raise TypeError(f"expected scalar type {torch_name(x.dtype)} but found "
                        f"{torch_name(weight.dtype)}")
    if isinstance(padding, str):
        if padding == "valid":
            pads = [(0, 0)] * nd
        else:
            total = [d * (k - 1) for k, d in zip(kernel, dilation)]
            pads = [(t // 2, t - t // 2) for t in total]
    else:
        pads = [(p, p) for p in _tuple(padding, nd)]
    padded = [x.shape[2 + i] + lo + hi for i, (lo, hi) in enumerate(pads)]
    for i, k in enumerate(kernel):
        if padded[i] < dilation[i] * (k - 1) + 1:
            raise ValueError(f"Calculated padded input size per channel: "
                             f"({' x '.join(map(str, padded))}). Kernel size: "
                             f"({' x '.join(map(str, kernel))}). Kernel size can't be greater "
                             f"than actual input size")
    if kernels.is_float32(x, weight, bias) and x.size and weight.size:
        out = _conv_float32(x, weight, bias, stride, [lo for lo, _ in pads], dilation, groups,
                            [(p - d * (k - 1) - 1) // s + 1
                             for p, d, k, s in zip(padded, dilation, kernel, stride)])
        return out[0] if unbatched else out
    xp = np.pad(x, [(0, 0), (0, 0)] + pads)
    win = _windows(xp, kernel, stride, dilation)
    n, c = x.shape[:2]
    out_sp = win.shape[2:2 + nd]
    g = groups
    win = win.reshape((n, g, c // g) + out_sp + tuple(kernel))
    w = weight.reshape((g, weight.shape[0] // g) + weight.shape[1:])
    sp, ks = _letters(nd)
    out = np.einsum(f"ngc{sp}{ks},goc{ks}->ngo{sp}", win.astype(np.float64),
                    w.astype(np.float64), optimize=True)
    out = out.reshape((n, weight.shape[0]) + out_sp)
    if bias is not None:
        out = out + bias.reshape((1, -1) + (1,) * nd)
    out = out.astype(np.result_type(x.dtype, weight.dtype))
    return out[0] if unbatched else out


def _conv_float32(x, weight, bias, stride, padding, dilation, groups, out_size):
    """A float32 convolution by :mod:`.kernels`: 2-d by the 2-d kernels, 1-d as a
    2-d one of height 1, 3-d by :func:`kernels.conv_nd`."""
    if len(out_size) == 2:
        return kernels.conv2d(x, weight, bias, stride, padding, dilation, groups, out_size)
    if len(out_size) == 1:
        out = kernels.conv2d(x[:, :, None], weight[:, :, None], bias, (1, stride[0]),
                             (0, padding[0]), (1, dilation[0]), groups, (1, out_size[0]))
        return out[:, :, 0]
    return kernels.conv_nd(x, weight, bias, stride, padding, dilation, groups, out_size)


def conv_transpose(x, weight, bias, stride, padding, output_padding, groups: int, dilation,
                   nd: int):
    """``aten::conv_transpose{nd}d``: the gradient of a convolution, computed by
    scattering each input position's contribution into the output."""
    x, unbatched = _batched(x, nd, f"conv_transpose{nd}d")
    stride, padding = _tuple(stride, nd), _tuple(padding, nd)
    output_padding, dilation = _tuple(output_padding, nd), _tuple(dilation, nd)
    n, c = x.shape[:2]
    g = groups
    kernel = weight.shape[2:]
    oc = weight.shape[1] * g
    in_sp = x.shape[2:]
    full = [(i - 1) * s + d * (k - 1) + 1 + op
            for i, s, d, k, op in zip(in_sp, stride, dilation, kernel, output_padding)]
    out = np.zeros((n, oc) + tuple(full), np.float64)
    xg = x.reshape((n, g, c // g) + in_sp).astype(np.float64)
    wg = weight.reshape((g, c // g, weight.shape[1]) + kernel).astype(np.float64)
    sp, _ = _letters(nd)
    for offs in np.ndindex(*kernel):
        contrib = np.einsum(f"ngc{sp},gco->ngo{sp}", xg, wg[(slice(None),) * 3 + offs])
        contrib = contrib.reshape((n, oc) + in_sp)
        index = (slice(None), slice(None)) + tuple(
            slice(o * d, o * d + (i - 1) * s + 1, s)
            for o, d, i, s in zip(offs, dilation, in_sp, stride))
        out[index] += contrib
    crop = (slice(None), slice(None)) + tuple(
        slice(p, f - p) for p, f in zip(padding, full))
    out = out[crop]
    if bias is not None:
        out = out + bias.reshape((1, -1) + (1,) * nd)
    out = out.astype(x.dtype)
    return out[0] if unbatched else out


# -- pooling ------------------------------------------------------------------------------

def _pool_size(length: int, k: int, s: int, p: int, d: int, ceil_mode: bool) -> int:
    num = length + 2 * p - d * (k - 1) - 1
    out = (-(-num // s) if ceil_mode else num // s) + 1
    if ceil_mode and (out - 1) * s >= length + p:
        out -= 1
    return out


def _pool_args(kernel, stride, padding, dilation, nd):
    kernel = _tuple(kernel, nd)
    stride = _tuple(stride, nd) if stride else kernel
    return kernel, stride, _tuple(padding, nd), _tuple(dilation, nd)


def _pad_for_windows(x, kernel, stride, padding, dilation, ceil_mode, fill):
    nd = len(kernel)
    outs = [_pool_size(x.shape[2 + i], kernel[i], stride[i], padding[i], dilation[i], ceil_mode)
            for i in range(nd)]
    pads = []
    for i in range(nd):
        need = (outs[i] - 1) * stride[i] + dilation[i] * (kernel[i] - 1) + 1
        right = max(need - x.shape[2 + i] - padding[i], 0)
        pads.append((padding[i], right))
    xp = np.pad(x, [(0, 0), (0, 0)] + pads, constant_values=fill)
    return xp, outs


def _pool_float32(x, kind, kernel, stride, padding, dilation, outs, count_include_pad=True,
                  divisor_override=None):
    """Float32 max or average pooling by :mod:`.kernels`, 1-d as 2-d of height 1."""
    if len(outs) == 1:
        geometry = [(1, g[0]) for g in (kernel, stride, padding, dilation, outs)]
        geometry[2] = (0, padding[0])
        return kernels.pool2d(x[:, :, None], kind, *geometry, count_include_pad,
                              divisor_override)[:, :, 0]
    return kernels.pool2d(x, kind, kernel, stride, padding, dilation, outs, count_include_pad,
                          divisor_override)


def max_pool(x, kernel, stride, padding, dilation, ceil_mode, nd: int,
             with_indices: bool = False):
    x, unbatched = _batched(x, nd, f"max_pool{nd}d")
    kernel, stride, padding, dilation = _pool_args(kernel, stride, padding, dilation, nd)
    for k, p in zip(kernel, padding):
        if p > k // 2:
            raise ValueError(f"pad should be at most half of effective kernel size, but got "
                             f"pad={p}, kernel_size={k} and dilation={dilation[0]}")
    if not with_indices and nd <= 2 and kernels.is_float32(x) and x.size:
        outs = [_pool_size(x.shape[2 + i], kernel[i], stride[i], padding[i], dilation[i],
                           ceil_mode) for i in range(nd)]
        values = _pool_float32(x, "max", kernel, stride, padding, dilation, outs)
        return values[0] if unbatched else values
    fill = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
    xp, outs = _pad_for_windows(x, kernel, stride, padding, dilation, ceil_mode, fill)
    win = _windows(xp, kernel, stride, dilation)
    win = win[(slice(None), slice(None)) + tuple(slice(0, o) for o in outs)]
    # the window's size, not -1, which numpy cannot infer for an empty batch
    flat = win.reshape(win.shape[:2 + nd] + (math.prod(win.shape[2 + nd:]),))
    if x.dtype.kind == "f":
        # a NaN wins, as in torch: make it the argmax
        keyed = np.where(np.isnan(flat), np.inf, flat)
        arg = np.argmax(keyed, axis=-1)
    else:
        arg = np.argmax(flat, axis=-1)
    values = np.take_along_axis(flat, arg[..., None], axis=-1)[..., 0]
    values = values.astype(x.dtype)
    if not with_indices:
        return values[0] if unbatched else values
    # flat index of the chosen element in the unpadded input's spatial dims
    offs = np.unravel_index(arg, kernel)
    grids = np.meshgrid(*[np.arange(o) for o in outs], indexing="ij")
    coords = [g * s - p + o * d for g, s, p, o, d in zip(grids, stride, padding, offs, dilation)]
    idx = np.zeros(arg.shape, np.int64)
    for i, c in enumerate(coords):
        idx = idx * x.shape[2 + i] + c
    if unbatched:
        return values[0], idx[0]
    return values, idx


def avg_pool(x, kernel, stride, padding, ceil_mode, count_include_pad, divisor_override,
             nd: int):
    x, unbatched = _batched(x, nd, f"avg_pool{nd}d")
    kernel, stride, padding, _ = _pool_args(kernel, stride, padding, 1, nd)
    for k, p in zip(kernel, padding):
        if p > k // 2:
            raise ValueError(f"pad should be at most half of kernel size, but got pad={p} and "
                             f"kernel_size={k}")
    outs = [_pool_size(x.shape[2 + i], kernel[i], stride[i], padding[i], 1, ceil_mode)
            for i in range(nd)]
    if nd <= 2 and kernels.is_float32(x) and x.size:
        out = _pool_float32(x, "avg", kernel, stride, padding, [1] * nd, outs,
                            count_include_pad, divisor_override)
        return out[0] if unbatched else out
    out = np.zeros(x.shape[:2] + tuple(outs), np.float64)
    xd = x.astype(np.float64)
    for pos in np.ndindex(*outs):
        starts = [o * s - p for o, s, p in zip(pos, stride, padding)]
        ends = [min(st + k, x.shape[2 + i] + padding[i])
                for i, (st, k) in enumerate(zip(starts, kernel))]
        pool_size = math.prod(e - s for s, e in zip(starts, ends))
        cs = [max(s, 0) for s in starts]
        ce = [min(e, x.shape[2 + i]) for i, e in enumerate(ends)]
        region = xd[(slice(None), slice(None)) + tuple(slice(a, b) for a, b in zip(cs, ce))]
        total = region.sum(axis=tuple(range(2, 2 + nd)))
        if divisor_override:
            divide = divisor_override
        elif count_include_pad:
            divide = pool_size
        else:
            divide = math.prod(b - a for a, b in zip(cs, ce))
        out[(slice(None), slice(None)) + pos] = total / divide
    out = out.astype(x.dtype)
    return out[0] if unbatched else out


def _adaptive_bounds(length: int, out: int):
    return [(math.floor(i * length / out), math.ceil((i + 1) * length / out)) for i in range(out)]


def adaptive_avg_pool(x, output_size, nd: int):
    if nd == 2 and output_size in ([1, 1], [1], 1) and x.ndim == 4 and x.size and \
            kernels.is_float32(x):
        # global average pooling (every squeeze-excitation block's): straight to
        # the kernel, a quarter of this operator's time on a small map is the rest
        return kernels.global_avg_pool2d(x)
    x, unbatched = _batched(x, nd, f"adaptive_avg_pool{nd}d")
    sizes = [x.shape[2 + i] if o is None else o for i, o in enumerate(_tuple(output_size, nd))]
    if x.dtype.kind in "biu":
        # torch pools floating types only; an output of 1 per dimension is its mean
        if nd == 2 and all(o == 1 for o in sizes):
            raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either "
                               "a floating point or complex dtype. Got: "
                               f"{torch_name(x.dtype)}")
        kernel = "adaptive_avg_pool2d" if nd == 2 else f"adaptive_avg_pool{nd}d_cpu"
        raise RuntimeError(f'"{kernel}" not implemented for \'{torch_name(x.dtype)}\'')
    if nd <= 2 and kernels.is_float32(x) and x.size and \
            all(sizes[i] and x.shape[2 + i] % sizes[i] == 0 for i in range(nd)):
        # even windows: an average pooling with kernel = stride = length / size
        steps = [x.shape[2 + i] // sizes[i] for i in range(nd)]
        out = _pool_float32(x, "avg", steps, steps, [0] * nd, [1] * nd, sizes)
        return out[0] if unbatched else out
    bounds = [_adaptive_bounds(x.shape[2 + i], sizes[i]) for i in range(nd)]
    out = np.zeros(x.shape[:2] + tuple(sizes), x.dtype)
    for pos in np.ndindex(*sizes):
        region = x[(slice(None), slice(None)) + tuple(slice(*bounds[i][p])
                                                      for i, p in enumerate(pos))]
        out[(slice(None), slice(None)) + pos] = region.mean(axis=tuple(range(2, 2 + nd)),
                                                            dtype=np.float64)
    return out[0] if unbatched else out


def adaptive_max_pool(x, output_size, nd: int):
    x, unbatched = _batched(x, nd, f"adaptive_max_pool{nd}d")
    if x.dtype.kind in "biu" and nd == 2:
        raise RuntimeError(f'"adaptive_max_pool2d" not implemented for \'{torch_name(x.dtype)}\'')
    sizes = [x.shape[2 + i] if o is None else o for i, o in enumerate(_tuple(output_size, nd))]
    bounds = [_adaptive_bounds(x.shape[2 + i], sizes[i]) for i in range(nd)]
    values = np.zeros(x.shape[:2] + tuple(sizes), x.dtype)
    idx = np.zeros(x.shape[:2] + tuple(sizes), np.int64)
    for pos in np.ndindex(*sizes):
        sl = tuple(slice(*bounds[i][p]) for i, p in enumerate(pos))
        region = x[(slice(None), slice(None)) + sl]
        flat = region.reshape(region.shape[:2] + (-1,))
        keyed = np.where(np.isnan(flat), np.inf, flat) if x.dtype.kind == "f" else flat
        arg = np.argmax(keyed, axis=-1)
        values[(slice(None), slice(None)) + pos] = np.take_along_axis(flat, arg[..., None],
                                                                      -1)[..., 0]
        local = np.unravel_index(arg, region.shape[2:])
        flat_idx = np.zeros(arg.shape, np.int64)
        for i, c in enumerate(local):
            flat_idx = flat_idx * x.shape[2 + i] + (c + sl[i].start)
        idx[(slice(None), slice(None)) + pos] = flat_idx
    if unbatched:
        return values[0], idx[0]
    return values, idx


def im2col(x, kernel, dilation, padding, stride):
    """``F.unfold``: ``(N, C*kh*kw, L)`` columns of 2-D windows."""
    batched = x.ndim == 4
    xb = x if batched else x[None]
    kernel, dilation = _tuple(kernel, 2), _tuple(dilation, 2)
    padding, stride = _tuple(padding, 2), _tuple(stride, 2)
    xp = np.pad(xb, [(0, 0), (0, 0)] + [(p, p) for p in padding])
    win = _windows(xp, kernel, stride, dilation)
    n, c, oh, ow, kh, kw = win.shape
    cols = win.transpose(0, 1, 4, 5, 2, 3).reshape(n, c * kh * kw, oh * ow)
    return cols if batched else cols[0]


def col2im(cols, output_size, kernel, dilation, padding, stride):
    """``F.fold``: the sum of columns back into an image."""
    batched = cols.ndim == 3
    cb = cols if batched else cols[None]
    kernel, dilation = _tuple(kernel, 2), _tuple(dilation, 2)
    padding, stride = _tuple(padding, 2), _tuple(stride, 2)
    h, w = output_size
    n = cb.shape[0]
    c = cb.shape[1] // (kernel[0] * kernel[1])
    oh = (h + 2 * padding[0] - dilation[0] * (kernel[0] - 1) - 1) // stride[0] + 1
    ow = (w + 2 * padding[1] - dilation[1] * (kernel[1] - 1) - 1) // stride[1] + 1
    out = np.zeros((n, c, h + 2 * padding[0], w + 2 * padding[1]), cb.dtype)
    blocks = cb.reshape(n, c, kernel[0], kernel[1], oh, ow)
    for i in range(kernel[0]):
        for j in range(kernel[1]):
            out[:, :, i * dilation[0]:i * dilation[0] + stride[0] * (oh - 1) + 1:stride[0],
                j * dilation[1]:j * dilation[1] + stride[1] * (ow - 1) + 1:stride[1]] += \
                blocks[:, :, i, j]
    out = out[:, :, padding[0]:padding[0] + h, padding[1]:padding[1] + w]
    return out if batched else out[0]


def max_unpool(x, indices, output_size, nd: int):
    batched = x.ndim == nd + 2
    xb, ib = (x, indices) if batched else (x[None], indices[None])
    n, c = xb.shape[:2]
    size = int(np.prod(output_size))
    out = np.zeros((n, c, size), x.dtype)
    flat_idx = ib.reshape(n, c, -1)
    if flat_idx.size and (flat_idx.max() >= size or flat_idx.min() < 0):
        raise IndexError(f"Found an invalid max index: {int(flat_idx.max())} (output volumes "
                         f"are of size {'x'.join(map(str, output_size))}")
    np.put_along_axis(out, flat_idx, xb.reshape(n, c, -1), axis=-1)
    out = out.reshape((n, c) + tuple(output_size))
    return out if batched else out[0]


# -- registration ------------------------------------------------------------------------

def _pair(v) -> bool:
    return type(v) is list and len(v) == 2 and type(v[0]) is int and type(v[1]) is int


def conv2d(x, w, b=None, s=1, p=0, d=1, g=1):
    """``aten::conv2d``: a batched float32 convolution whose geometry is given as
    lists of two (every CNN layer's) straight to :func:`kernels.conv2d`; the
    rest, and every error, by :func:`conv`.  The checks :func:`conv` makes in
    Python took twice a small layer's GEMM (a 1x1 convolution of a
    squeeze-excitation block: 8 of 12 us)."""
    out = direct_conv2d(x, w, b, s, p, d, g)
    return conv(x, w, b, s, p, d, g, 2) if out is None else out


def direct_conv2d(x, w, b, s, p, d, g, clamp=None, affine=None):
    """:func:`kernels.conv2d` of a batched float32 convolution given as lists of
    two, its output mapped by ``affine`` (``(scale, shift)`` per channel: a fused
    batch norm) and clamped to ``clamp`` (``(lo, hi)``: a fused ReLU) if given;
    None for any other (for :func:`conv`, which checks and reports)."""
    size = kernels.is_float32(x, w, b) and direct_size(x, w, s, p, d, g)
    if size:
        return kernels.conv2d(x, w, b, s, p, d, g, size, clamp=clamp, affine=affine)
    return None


def direct_size(x, w, s, p, d, g):
    """The output's ``(oh, ow)`` when arrays ``x`` and ``w`` make a batched 2-d
    convolution of geometry ``s``, ``p``, ``d`` given as lists of two and ``g``
    groups, each dimension at least 1, that :func:`kernels.conv2d` takes as it
    is (its dtypes aside); else None."""
    if type(x) is np.ndarray and x.ndim == 4 and type(w) is np.ndarray and w.ndim == 4 and \
            _pair(s) and _pair(p) and _pair(d) and type(g) is int and g > 0 and \
            x.shape[1] == w.shape[1] * g and w.shape[0] % g == 0 and x.size and w.size and \
            s[0] > 0 and s[1] > 0 and d[0] > 0 and d[1] > 0 and p[0] >= 0 and p[1] >= 0:
        oh = (x.shape[2] + 2 * p[0] - d[0] * (w.shape[2] - 1) - 1) // s[0] + 1
        ow = (x.shape[3] + 2 * p[1] - d[1] * (w.shape[3] - 1) - 1) // s[1] + 1
        if oh > 0 and ow > 0:
            return oh, ow
    return None


_T, _L = "Tensor", "int[]"
for _nd in (1, 2, 3):
    _c = (lambda n: lambda x, w, b=None, s=1, p=0, d=1, g=1: conv(x, w, b, s, p, d, g, n))(_nd)
    R.implement(f"aten::conv{_nd}d", conv2d if _nd == 2 else _c)
    R.implement(f"aten::conv{_nd}d.padding", _c)
    R.register(f"aten::conv_transpose{_nd}d",
               (lambda n: lambda x, w, b=None, s=1, p=0, op=0, g=1, d=1:
                conv_transpose(x, w, b, s, p, op, g, d, n))(_nd),
               types=[_T, _T, "Tensor?", _L, _L, _L, "int", _L])
    _mp = (lambda n: lambda x, k, s, p, d, c: max_pool(x, k, s, p, d, c, n))(_nd)
    R.implement(f"aten::max_pool{_nd}d", _mp)
    R.implement(f"aten::max_pool{_nd}d_with_indices",
                (lambda n: lambda x, k, s, p, d, c: max_pool(x, k, s, p, d, c, n, True))(_nd))
    R.implement(f"aten::adaptive_avg_pool{_nd}d",
                (lambda n: lambda x, size: adaptive_avg_pool(x, size, n))(_nd))
    R.implement(f"aten::adaptive_max_pool{_nd}d",
                (lambda n: lambda x, size: adaptive_max_pool(x, size, n))(_nd))
R.implement("aten::avg_pool1d", lambda x, k, s, p, c, inc: avg_pool(x, k, s, p, c, inc, None, 1))
for _nd in (2, 3):
    R.implement(f"aten::avg_pool{_nd}d",
                (lambda n: lambda x, k, s, p, c, inc, div=None: avg_pool(x, k, s, p, c, inc, div,
                                                                        n))(_nd))
R.implement("aten::_adaptive_avg_pool2d", lambda x, size: adaptive_avg_pool(x, size, 2))
R.implement("aten::im2col", im2col)
R.implement("aten::col2im", col2im)
R.implement("aten::max_unpool2d", lambda x, i, size: max_unpool(x, i, size, 2))
R.implement("aten::max_unpool3d", lambda x, i, size, stride, pad: max_unpool(x, i, size, 3))


# torch's general convolution, and the kernels it dispatches to on the CPU, which
# TorchScript code may call by name: each is conv or conv_transpose above.
def convolution(x, w, b, stride, padding, dilation, transposed: bool, output_padding, groups):
    """``aten::convolution``: of as many dimensions as the weight has beyond two."""
    nd = w.ndim - 2
    if transposed:
        return conv_transpose(x, w, b, stride, padding, output_padding, groups, dilation, nd)
    return conv(x, w, b, stride, padding, dilation, groups, nd)


def conv_tbc(x, w, b, pad: int = 0):
    """``aten::conv_tbc``: a 1-d convolution of (time, batch, channel) input with a
    (width, in, out) weight, its result (time, batch, out)."""
    if x.ndim != 3:
        raise ValueError("Input must have 3 dims: time, batch, in_channel")
    if w.ndim != 3:
        raise ValueError("Weight tensor must have 3 dims: kernel_width, in_channels, "
                         "out_channels.")
    if b.ndim != 1:
        raise ValueError("Bias must be 1-D")
    if x.shape[2] != w.shape[1]:
        raise ValueError("Input dim 2 (input channels) is not == dim 1 in the weight tensor")
    if w.shape[2] != b.shape[0]:
        raise ValueError("Bias size must equal dim 2 in the weight tensor (output channels).")
    out = conv(x.transpose(1, 2, 0), w.transpose(2, 1, 0), b, [1], [pad], [1], 1, 1)
    return np.ascontiguousarray(out.transpose(2, 0, 1))


def _intervals(sample, n_in: int, n_out: int, pool: int, dt) -> List[int]:
    """torch's ``generate_intervals``: where each of ``n_out`` windows of
    ``pool`` starts, spread pseudo-randomly by ``sample`` in [0, 1), computed in
    the input's floating type as torch computes it; the last ends the input."""
    seq = [0] * n_out
    if n_out > 1:
        alpha = dt.type(n_in - pool) / dt.type(n_out - 1)
        base = int(dt.type(sample) * alpha)
        for i in range(n_out - 1):
            seq[i] = int((dt.type(i) + dt.type(sample)) * alpha) - base
    if n_out > 0:
        seq[-1] = n_in - pool
    return seq


def fractional_max_pool(x, kernel, output_size, samples, nd: int):
    """``fractional_max_pool{nd}d(x, kernel, output_size, random_samples)``:
    ``(values, indices)``, each window's maximum (NaN wins, as in torch) and its
    index in the flattened plane; the windows start where the per-plane samples
    say (``random_samples[n, c]``: width then height in 2-d, depth, height,
    width in 3-d, as torch reads them)."""
    batched = x.ndim == nd + 2
    xb = x if batched else x[None]
    n, c = xb.shape[:2]
    sizes = xb.shape[2:]
    out = np.empty((n, c) + tuple(output_size), dtype=x.dtype)
    idx = np.empty((n, c) + tuple(output_size), dtype=np.int64)
    strides = [int(np.prod(sizes[d + 1:])) for d in range(nd)]
    for b in range(n):
        for ch in range(c):
            s = samples[b, ch]
            # torch's order of the samples: (w, h) in 2-d, (t, h, w) in 3-d
            which = [1, 0] if nd == 2 else [0, 1, 2]
            starts = [_intervals(s[which[d]], sizes[d], output_size[d], kernel[d], x.dtype)
                      for d in range(nd)]
            plane = xb[b, ch]
            for pos in itertools.product(*[range(o) for o in output_size]):
                box = tuple(slice(starts[d][pos[d]], starts[d][pos[d]] + kernel[d])
                            for d in range(nd))
                win = plane[box]
                flat = win.reshape(-1)
                nan = np.flatnonzero(np.isnan(flat))
                k = int(nan[-1]) if nan.size else int(np.argmax(flat))
                local = np.unravel_index(k, win.shape)
                out[(b, ch) + pos] = flat[k]
                idx[(b, ch) + pos] = sum((starts[d][pos[d]] + local[d]) * strides[d]
                                         for d in range(nd))
    return (out, idx) if batched else (out[0], idx[0])


for _nd in (2, 3):
    R.implement(f"aten::fractional_max_pool{_nd}d",
                (lambda n: lambda x, k, size, samples: fractional_max_pool(x, k, size, samples,
                                                                           n))(_nd))
R.implement("aten::convolution", convolution)
R.implement("aten::conv_tbc", conv_tbc)
for _nd, _names in ((2, ("thnn_conv2d",)), (3, ("slow_conv3d", "slow_conv3d_forward"))):
    for _name in _names:
        R.implement(f"aten::{_name}", (lambda n: lambda x, w, k, b=None, s=1, p=0:
                                       conv(x, w, b, s, p, 1, 1, n))(_nd))
for _nd in (2, 3):
    R.implement(f"aten::slow_conv_dilated{_nd}d", (lambda n: lambda x, w, k, b=None, s=1, p=0, d=1:
                                                   conv(x, w, b, s, p, d, 1, n))(_nd))
    R.implement(f"aten::slow_conv_transpose{_nd}d",
                (lambda n: lambda x, w, k, b=None, s=1, p=0, op=0, d=1:
                 conv_transpose(x, w, b, s, p, op, 1, d, n))(_nd))
