"""Padding and resampling: ``F.pad`` (constant, reflect, replicate, circular),
``F.interpolate`` (nearest, nearest-exact, linear, bilinear, bicubic, trilinear,
and antialiased bilinear, bicubic and lanczos) and ``F.grid_sample``.

``F.pad``'s list names the last dimension first, ``(left, right, top, bottom,
...)``; a negative amount crops (constant mode).  Interpolation computes each
output position's source coordinate as torch's kernels do
(``area_pixel_compute_source_index``): with ``align_corners`` the corners map to
corners, ``src = dst * (in - 1) / (out - 1)``; without it pixel centres map to
centres, ``src = (dst + 0.5) * scale - 0.5`` clamped at 0 for linear modes, where
``scale`` is ``1 / scale_factor`` when the caller gave one and ``in / out``
otherwise.  Nearest takes ``floor(dst * scale)``, nearest-exact ``floor((dst +
0.5) * scale)``; bicubic uses torch's cubic convolution (A = -0.75) with clamped
neighbours.  Weights are computed in the input's float dtype, like torch's.
"""

from __future__ import annotations

import math
from typing import Optional, Sequence

import numpy as np

from ..registry import library as R
from .dims import as_array
from .dtypes import torch_name

__all__ = ["pad", "upsample", "grid_sampler"]


# -- pad --------------------------------------------------------------------------------

def _pad_pairs(x: np.ndarray, pads: Sequence[int]):
    if len(pads) % 2:
        raise ValueError("Padding length must be divisible by 2")
    if len(pads) // 2 > x.ndim:
        raise ValueError("Padding length should be less than or equal to two times the input "
                         "dimension but got padding length {} and input of dimension {}"
                         .format(len(pads), x.ndim))
    pairs = [(0, 0)] * x.ndim
    for i in range(len(pads) // 2):
        pairs[x.ndim - 1 - i] = (pads[2 * i], pads[2 * i + 1])
    return pairs


def constant_pad(x, pads, value=0.0):
    pairs = _pad_pairs(x, pads)
    grow = [(max(a, 0), max(b, 0)) for a, b in pairs]
    out = np.pad(x, grow, constant_values=x.dtype.type(value) if value is not None else 0)
    crop = tuple(slice(-a if a < 0 else 0, out.shape[i] + b if b < 0 else None)
                 for i, (a, b) in enumerate(pairs))
    return out[crop]


_NP_MODES = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}


def pad(x, pads, mode: str = "constant", value: Optional[float] = None):
    if mode == "constant":
        return constant_pad(x, pads, 0.0 if value is None else value)
    if mode not in _NP_MODES:
        raise ValueError(f"Unrecognised padding mode {mode}")
    if value is not None and value != 0:
        raise ValueError(f"Padding mode \"{mode}\" doesn't take in value argument")
    pairs = _pad_pairs(x, pads)
    n_spatial = len(pads) // 2
    if n_spatial not in (1, 2, 3) or x.ndim not in (n_spatial + 1, n_spatial + 2):
        raise ValueError(f"Padding size {len(pads)} is not supported for {x.ndim}D input tensor.\n"
                         "Supported combinations for non-constant padding:\n"
                         "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
                         "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
                         "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")
    if mode != "circular" and x.ndim in (n_spatial + 1, n_spatial + 2) and \
            0 in (x.shape[1:] if x.ndim == n_spatial + 2 else x.shape):
        # reflection and replication pad non-empty inputs (the batch may be empty)
        raise ValueError(f"Expected {n_spatial + 1}D or {n_spatial + 2}D (batch mode) tensor with "
                         f"possibly 0 batch size and other non-zero dimensions for input, but "
                         f"got: {list(x.shape)}")
    if mode == "reflect":
        for i, (a, b) in enumerate(pairs):
            if a >= x.shape[i] and a or b >= x.shape[i] and b:
                raise ValueError(f"Argument #4: Padding size should be less than the "
                                 f"corresponding input dimension, but got: padding ({a}, {b}) "
                                 f"at dimension {i} of input {list(x.shape)}")
    grow = [(max(a, 0), max(b, 0)) for a, b in pairs]
    out = np.pad(x, grow, mode=_NP_MODES[mode])
    crop = tuple(slice(-a if a < 0 else 0, out.shape[i] + b if b < 0 else None)
                 for i, (a, b) in enumerate(pairs))
    return out[crop]


# -- interpolate ----------------------------------------------------------------------------

def _non_empty(x, sizes) -> None:
    """torch's checks of a resampling's sizes (``upsample_*_common_check``): every
    spatial size of the input and the output positive, then the input empty only
    in its batch."""
    spatial = x.shape[x.ndim - len(sizes):]   # (1-d's message says "and output")
    if min(spatial, default=1) <= 0 or min(sizes, default=1) <= 0:
        names = "DHW"[3 - len(sizes):]
        raise ValueError("Input and output sizes should be greater than 0, but got input ("
                         + ", ".join(f"{c}: {v}" for c, v in zip(names, spatial))
                         + (") and output (" if len(sizes) == 1 else ") output (")
                         + ", ".join(f"{c}: {v}" for c, v in zip(names, sizes)) + ")")
    if x.size == 0 and 0 in x.shape[1:]:
        raise ValueError(f"Non-empty {x.ndim}D data tensor expected but got a tensor with sizes "
                         f"{list(x.shape)}")


def _refuse_integers(kernel: str, x) -> None:
    """torch's refusal of an integer (or bool) tensor by a kernel dispatched on
    floating types only, in its words: ``"<kernel>" not implemented for 'Long'``."""
    if x.dtype.kind in "biu":
        raise RuntimeError(f'"{kernel}" not implemented for \'{torch_name(x.dtype)}\'')


def _output_sizes(x, nd, output_size, scales):
    in_sizes = x.shape[-nd:]
    if output_size is not None:
        return list(output_size), [None] * nd
    if scales is None:
        raise ValueError("Must specify exactly one of output_size and scale_factors")
    scales = list(scales) * (nd if len(scales) == 1 else 1)
    return [int(math.floor(n * s)) for n, s in zip(in_sizes, scales)], scales


def _scale(in_size: int, out_size: int, align_corners: bool, scale: Optional[float]) -> float:
    """torch's ``area_pixel_compute_scale``."""
    if align_corners:
        return (in_size - 1) / (out_size - 1) if out_size > 1 else 0.0
    if scale is not None and scale > 0:
        return 1.0 / scale
    return in_size / out_size


def _nearest_index(in_size, out_size, scale, exact):
    s = in_size / out_size if scale is None or scale <= 0 else 1.0 / scale
    dst = np.arange(out_size, dtype=np.float32)
    src = np.floor((dst + 0.5) * np.float32(s)) if exact else np.floor(dst * np.float32(s))
    return np.minimum(src.astype(np.int64), in_size - 1)


def _linear_weights(in_size, out_size, align_corners, scale, dtype):
    s = dtype.type(_scale(in_size, out_size, align_corners, scale))
    dst = np.arange(out_size).astype(dtype)
    if align_corners:
        src = dst * s
    else:
        src = np.maximum((dst + dtype.type(0.5)) * s - dtype.type(0.5), dtype.type(0))
    i0 = np.minimum(np.floor(src).astype(np.int64), in_size - 1)
    i1 = np.minimum(i0 + 1, in_size - 1)
    lam = (src - i0.astype(dtype)).astype(dtype)
    return i0, i1, lam


def _cubic_weights(t, a=-0.75):
    def near(x):  # |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):  # 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


_DIMS = {"nearest1d": 1, "nearest2d": 2, "nearest3d": 3, "nearest_exact1d": 1,
         "nearest_exact2d": 2, "nearest_exact3d": 3, "linear1d": 1, "bilinear2d": 2,
         "trilinear3d": 3, "bicubic2d": 2}


def _fixed_point(mat):
    """A resampling matrix as torch's uint8 kernels hold it: int16 weights scaled
    by ``2**precision``, the largest precision (up to 22) at which the largest
    weight, doubled, stays below ``2**15``; each weight rounded half away from
    zero."""
    top = float(mat.max()) if mat.size else 0.0
    precision = 0
    while precision < 22 and int(0.5 + top * (1 << (precision + 1))) < (1 << 15):
        precision += 1
    scaled = mat * (1 << precision)
    rounded = np.where(scaled < 0, scaled - 0.5, scaled + 0.5).astype(np.int16)
    return rounded.astype(np.int64), precision


def _interp_weights(in_size, out_size, align_corners, scale, filt, taps):
    """The resampling matrix ``(out, in)`` of torch's uint8 bilinear (``taps`` 2)
    and bicubic (4) kernels without antialiasing (``_compute_indices_min_size_weights``,
    in float64): the source index and its fraction as the float kernels compute
    them, the filter's weights at the ``taps`` neighbours, those that fall outside
    the input added to the first or last one inside."""
    s = _scale(in_size, out_size, align_corners, scale)
    half = taps // 2
    mat = np.zeros((out_size, in_size))
    for i in range(out_size):
        real = s * i if align_corners else s * (i + 0.5) - 0.5
        if taps == 2 and not align_corners:
            real = max(real, 0.0)
        index = min(int(math.floor(real)), in_size - 1)
        lam = min(max(real - index, 0.0), 1.0)
        first = index - half + 1
        lo = max(first, 0)
        size = min(max(min(index + half + 1, in_size) - lo, 0), taps)
        k = 0
        for j in range(taps):
            w = float(filt(np.float64(j + 1 - half) - lam))
            if first + j <= 0:
                k = 0
            elif first + j >= in_size - 1:
                k = size - 1
            mat[i, lo + k] += w
            k += 1
    return mat


def _separable_uint8(x, mats):
    """torch's uint8 resampling (``separable_upsample_generic_Nd_kernel_impl``):
    one dimension at a time, the last (horizontal) first, each a fixed-point sum
    ``(2**(p-1) + sum(src * w)) >> p`` clamped to 0..255 and stored as uint8 before
    the next; a dimension whose size does not change is not resampled.
    ``mats[k]`` resamples dimension ``k`` of the spatial ones, or is None."""
    out = x
    nd = len(mats)
    for k in reversed(range(nd)):
        mat = mats[k]
        if mat is None:
            continue
        weights, precision = _fixed_point(mat)
        axis = x.ndim - nd + k
        acc = np.tensordot(out.astype(np.int64), weights, axes=([axis], [1]))
        acc = np.moveaxis(acc, -1, axis) + (1 << (precision - 1) if precision else 0)
        out = np.clip(acc >> precision, 0, 255).astype(np.uint8)
    return as_array(out)


def upsample(x, output_size, scales, mode: str, align_corners: bool = False, size_scales=None):
    """``aten::upsample_*``: resample the last 1-3 dimensions of ``x``, to
    ``output_size`` or by ``scales`` (the ``.vec`` overloads: exactly one of
    them).  ``size_scales``, with an ``output_size``, are the scale factors that
    produced it, one a dimension (None where unknown), which the source
    coordinates then use as torch's non-``.vec`` overloads do
    (``upsample_bilinear2d(x, [5, 7], False, 2.5, 3.5)``)."""
    nd = _DIMS[mode]
    sizes, per_dim = _output_sizes(x, nd, output_size, scales)
    if size_scales is not None:
        per_dim = list(size_scales)
    _non_empty(x, sizes)
    if mode in ("linear1d", "trilinear3d"):
        _refuse_integers("compute_indices_weights_linear", x)
    elif mode == "bicubic2d" and x.dtype != np.uint8:
        _refuse_integers("compute_indices_weights_cubic", x)
    if x.dtype == np.uint8 and mode in ("bilinear2d", "bicubic2d"):
        # torch resamples uint8 with its separable fixed-point kernels
        filt, taps = (_triangle, 2) if mode == "bilinear2d" else (_cubic_keys75, 4)
        return _separable_uint8(x, [None if x.shape[x.ndim - nd + k] == sizes[k] else
                                    _interp_weights(x.shape[x.ndim - nd + k], sizes[k],
                                                    align_corners, per_dim[k], filt, taps)
                                    for k in range(nd)])
    out = x
    for k in range(nd):
        axis = x.ndim - nd + k
        n_in, n_out, sc = x.shape[axis], sizes[k], per_dim[k]
        if mode.startswith("nearest"):
            idx = _nearest_index(n_in, n_out, sc, mode.startswith("nearest_exact"))
            out = np.take(out, idx, axis=axis)
        elif mode == "bicubic2d":
            s = _scale(n_in, n_out, align_corners, sc)
            dst = np.arange(n_out, dtype=np.float64)
            src = dst * s if align_corners else (dst + 0.5) * s - 0.5
            base = np.floor(src).astype(np.int64)
            t = (src - base).astype(x.dtype)
            acc = 0
            for j, w in enumerate(_cubic_weights(t)):
                idx = np.clip(base - 1 + j, 0, n_in - 1)
                shape = [1] * out.ndim
                shape[axis] = n_out
                acc = acc + np.take(out, idx, axis=axis) * w.reshape(shape)
            out = acc
        else:
            i0, i1, lam = _linear_weights(n_in, n_out, align_corners, sc, x.dtype)
            shape = [1] * out.ndim
            shape[axis] = n_out
            lam = lam.reshape(shape)
            out = np.take(out, i0, axis=axis) * (x.dtype.type(1) - lam) + \
                np.take(out, i1, axis=axis) * lam
    return as_array(np.asarray(out).astype(x.dtype))


# -- torch's legacy interpolation builtins: __interpolate, __upsample* ----------------------

#: The resampling of each ``mode`` by the input's dimensions (3, 4 or 5: one to three
#: spatial ones), and whether it takes ``align_corners``.
_LEGACY_MODES = {"nearest": ("nearest1d", "nearest2d", "nearest3d"),
                 "linear": ("linear1d", None, None),
                 "bilinear": (None, "bilinear2d", None),
                 "bicubic": (None, "bicubic2d", None),
                 "trilinear": (None, None, "trilinear3d"),
                 "area": ("area", "area", "area")}
_NEEDS = {"linear": 3, "bilinear": 4, "bicubic": 4, "trilinear": 5}


def interpolate(x, size=None, scale_factor=None, mode: str = "nearest", align_corners=None,
                recompute_scale_factor=None, antialias: bool = False):
    """``aten::__interpolate`` (and ``__upsample``): what TorchScript once ran for
    ``F.interpolate``, with torch's C++ rules: ``size`` (an int repeats for each
    spatial dimension) or else ``scale_factor`` (a float repeats) gives the
    output size, ``floor(in * scale)``; the scales reach the kernel only when
    ``recompute_scale_factor`` is False (otherwise it recomputes them from the
    sizes); ``area`` is adaptive average pooling; a missing ``align_corners`` of
    an interpolating mode is False."""
    if antialias:
        raise ValueError("Antialias is not yet supported")
    if mode in ("nearest", "area"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating "
                             "modes: linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    if x.ndim not in (3, 4, 5) or mode not in _LEGACY_MODES:
        raise ValueError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got "
                         f"{x.ndim}D) for the modes: nearest | linear | bilinear | trilinear "
                         f"(got {mode}) ")
    nd = x.ndim - 2
    kernel = _LEGACY_MODES[mode][nd - 1]
    if kernel is None:
        raise ValueError(f"Got {x.ndim}D input, but {mode} mode needs {_NEEDS[mode]}D input")
    if size is not None:
        sizes = [size] * nd if isinstance(size, int) else list(size)
    elif scale_factor is None:
        raise ValueError("isDoubleList() INTERNAL ASSERT FAILED: Expected DoubleList but got "
                         "None")
    else:
        scales = [scale_factor] * nd if isinstance(scale_factor, (int, float)) else \
            list(scale_factor)
        if len(scales) < nd:
            raise ValueError(f"scale_factor has {len(scales)} values for {nd} spatial "
                             f"dimensions")
        sizes = [int(math.floor(n * float(sc))) for n, sc in zip(x.shape[2:], scales)]
    if kernel == "area":
        from .nn_conv import adaptive_avg_pool     # (declared after this family)
        return adaptive_avg_pool(x, sizes, nd)
    given = None
    if recompute_scale_factor is False and scale_factor is not None:
        given = [float(scale_factor)] * nd if isinstance(scale_factor, (int, float)) else \
            [float(v) for v in list(scale_factor)[:nd]]
    return upsample(x, sizes, None, kernel, bool(align_corners), given)


def legacy_upsample(x, size=None, scale_factor=None, mode: str = "nearest",
                    align_corners=None):
    """``aten::__upsample`` (``F.upsample``): :func:`interpolate` with an int
    scale factor (or a list of them)."""
    return interpolate(x, size, scale_factor, mode, align_corners)


# -- antialiased interpolation ---------------------------------------------------------------

def _triangle(x):
    x = np.abs(x)
    return np.where(x < 1, 1 - x, 0)


def _cubic_aa(x, a=-0.5):
    x = np.abs(x)
    return np.where(x < 1, ((a + 2) * x - (a + 3)) * x * x + 1,
                    np.where(x < 2, ((a * x - 5 * a) * x + 8 * a) * x - 4 * a, 0))


def _cubic_keys75(x):
    """The cubic convolution of non-antialiased bicubic (A = -0.75)."""
    return _cubic_aa(x, -0.75)


def _lanczos(x, a=3):
    x = np.abs(x)
    return np.where(x < a, np.sinc(x) * np.sinc(x / a), 0.0)


#: antialiased modes: (filter, support at scale 1)
_AA_FILTERS = {"bilinear2d_aa": (_triangle, 1.0), "bicubic2d_aa": (_cubic_aa, 2.0),
               "lanczos2d_aa": (_lanczos, 3.0)}


def _aa_weights(in_size, out_size, align_corners, scale, filt, support, dtype=np.float64):
    """The resampling matrix ``(out, in)`` of torch's antialiased kernels
    (``_compute_indices_min_size_weights_aa``, PIL's method): output ``i`` is
    centred at ``scale * (i + 0.5)`` and averages the inputs under the filter,
    stretched by the downscaling factor, its weights normalised to sum 1.
    ``support`` is the filter's at scale 1; the centre and the tap range are
    computed in ``dtype`` (the input's float type, float64 for uint8) and
    truncated as C++ casts truncate, so a tap falls where torch's does."""
    t = dtype.type if isinstance(dtype, np.dtype) else np.dtype(dtype).type
    s = t(_scale(in_size, out_size, align_corners, scale))
    width = t(support) * s if s >= 1 else t(support)
    taps = int(math.ceil(width)) * 2 + 1
    inv = t(1) / s if s >= 1 else t(1)
    mat = np.zeros((out_size, in_size))
    for i in range(out_size):
        center = s * (t(i) + t(0.5))
        lo = max(int(center - width + t(0.5)), 0)
        size = min(max(min(int(center + width + t(0.5)), in_size) - lo, 0), taps)
        j = np.arange(lo, lo + size)
        w = np.asarray(filt(((j - center).astype(t(0).dtype) + t(0.5)) * inv), dtype=t(0).dtype)
        total = w.sum(dtype=t(0).dtype)
        mat[i, lo:lo + size] = w / total if total != 0 else w
    return mat


def upsample_aa(x, output_size, align_corners, scales, mode: str):
    filt, support = _AA_FILTERS[mode]
    sizes, per_dim = _output_sizes(x, 2, output_size, scales)
    _non_empty(x, sizes)
    if x.dtype != np.uint8 and (x.dtype.kind in "biu" or x.dtype == np.float16):
        # torch's antialiased kernels take uint8 and float32/float64 only
        raise RuntimeError(f'"compute_index_ranges_weights" not implemented for '
                           f"'{torch_name(x.dtype)}'")
    if x.dtype == np.uint8 and mode != "lanczos2d_aa":
        return _separable_uint8(x, [None if x.shape[x.ndim - 2 + k] == sizes[k] else
                                    _aa_weights(x.shape[x.ndim - 2 + k], sizes[k], align_corners,
                                                per_dim[k], filt, support)
                                    for k in range(2)])
    out = x.astype(np.float64)
    for k in range(2):
        axis = x.ndim - 2 + k
        mat = _aa_weights(x.shape[axis], sizes[k], align_corners, per_dim[k], filt, support,
                          dtype=x.dtype)
        out = np.moveaxis(np.tensordot(out, mat, axes=([axis], [1])), -1, axis)
    return as_array(out.astype(x.dtype))


# -- grid_sample ---------------------------------------------------------------------------

def _unnormalize(coord, size, align_corners):
    if align_corners:
        return (coord + 1) / 2 * (size - 1)
    return ((coord + 1) * size - 1) / 2


def _reflect(coord, lo2, hi2):
    """torch's ``reflect_coordinates`` over ``[lo2 / 2, hi2 / 2]``."""
    if lo2 == hi2:
        return np.zeros_like(coord)
    mn = lo2 / 2
    span = (hi2 - lo2) / 2
    c = np.abs(coord - mn)
    extra = np.fmod(c, span)
    flips = np.floor(c / span)
    return np.where(flips % 2 == 0, extra + mn, span - extra + mn)


def _source_index(coord, size, padding_mode, align_corners):
    c = _unnormalize(coord, size, align_corners)
    if padding_mode == 1:  # border
        c = np.clip(c, 0, size - 1)
    elif padding_mode == 2:  # reflection
        c = _reflect(c, 0, 2 * (size - 1)) if align_corners else \
            _reflect(c, -1, 2 * size - 1)
        c = np.clip(c, 0, size - 1)
    return c


def _fma_f32(a, b, c):
    """``a * b + c`` rounded once to float32, as an FMA instruction does (a float32
    product is exact in float64)."""
    return (a.astype(np.float64) * b.astype(np.float64) + c).astype(np.float32)


def _source_index_f32(coord, size, padding_mode, align_corners):
    """The source coordinate of the vectorised float32 kernel
    (``ComputeLocation``): ``(g + 1) * (size - 1) / 2`` with align_corners, else
    ``(g + 1) * size / 2 - 0.5`` fused into one rounding; then the padding."""
    one = np.float32(1)
    shifted = (coord + one).astype(np.float32)
    if align_corners:
        c = (shifted * np.float32((size - 1) / 2)).astype(np.float32)
    else:
        c = _fma_f32(shifted, np.float32(size / 2), -0.5)
    if padding_mode == 1:  # border
        c = np.clip(c, np.float32(0), np.float32(size - 1))
    elif padding_mode == 2:  # reflection
        c64 = c.astype(np.float64)
        c64 = _reflect(c64, 0, 2 * (size - 1)) if align_corners else _reflect(c64, -1, 2 * size - 1)
        c = np.clip(c64, 0, size - 1).astype(np.float32)
    return c


def _bilinear_f32(coords, gather):
    """Bilinear sampling as the vectorised float32 kernel computes it: each
    corner's weight the product of the distances to the opposite sides, and
    ``nw * v + ne * v + sw * v + se * v`` accumulated by fused multiply-adds."""
    iy, ix = coords
    y0, x0 = np.floor(iy), np.floor(ix)
    w = (ix - x0).astype(np.float32)
    e = (np.float32(1) - w).astype(np.float32)
    n = (iy - y0).astype(np.float32)
    s = (np.float32(1) - n).astype(np.float32)
    y0, x0 = y0.astype(np.int64), x0.astype(np.int64)
    corners = [((y0, x0), s * e), ((y0, x0 + 1), s * w), ((y0 + 1, x0), n * e),
               ((y0 + 1, x0 + 1), n * w)]
    acc = None
    for index, weight in corners:
        values = gather(list(index)).astype(np.float32)
        weight = weight.astype(np.float32)[:, None]
        acc = (values * weight).astype(np.float32) if acc is None else \
            _fma_f32(values, weight, acc.astype(np.float64))
    return acc


def grid_sampler(x, grid, mode: int, padding_mode: int, align_corners: bool):
    """``F.grid_sample`` on 4-D ``(N, C, H, W)`` or 5-D ``(N, C, D, H, W)`` input:
    bilinear/trilinear (mode 0) or nearest (1) sampling, zeros (0), border (1) or
    reflection (2) padding.  ``grid[..., 0]`` is x (the last dimension)."""
    nd = x.ndim - 2
    if x.shape[0] != grid.shape[0]:
        raise ValueError(f"grid_sampler(): expected grid and input to have same batch size, but "
                         f"got input with sizes {list(x.shape)} and grid with sizes "
                         f"{list(grid.shape)}")
    if grid.shape[-1] != nd:
        raise ValueError(f"grid_sampler(): expected grid to have size {nd} in last dimension, "
                         f"but got grid with sizes {list(grid.shape)}")
    if nd not in (2, 3):
        raise ValueError(f"grid_sampler(): expected 4D or 5D input and a grid of matching "
                         f"dimension, but got input of shape {list(x.shape)} and grid of "
                         f"shape {list(grid.shape)}")
    if mode not in (0, 1):
        raise ValueError("pyjit's grid_sampler supports bilinear and nearest modes only")
    _refuse_integers("grid_sampler_2d_cpu_kernel_impl" if nd == 2 else "grid_sampler3d_cpu", x)
    n, c = x.shape[:2]
    sizes = x.shape[2:]                       # (H, W) or (D, H, W)
    # source coordinate per spatial dim, in the input's dim order
    # nearest rounds the source coordinate, so it is computed in the grid's own
    # dtype, as torch does (in float64 a float32 grid's x.5 may fall the other side)
    precision = grid.dtype if mode == 1 and grid.dtype.kind == "f" else np.float64
    if nd == 2 and x.dtype == np.float32 and grid.dtype == np.float32:
        # torch's vectorised 2-d kernel, in float32 and fused where it fuses
        coords = [_source_index_f32(grid[..., 1 - k], sizes[k], padding_mode, align_corners)
                  for k in range(2)]
    else:
        coords = [_source_index(grid[..., nd - 1 - k].astype(precision), sizes[k], padding_mode,
                                align_corners) for k in range(nd)]
    out_shape = grid.shape[1:-1]
    batch = np.arange(n).reshape((n,) + (1,) * nd)

    def gather(index):
        valid = np.ones(index[0].shape, bool)
        clipped = []
        for k, ix in enumerate(index):
            valid &= (ix >= 0) & (ix < sizes[k])
            clipped.append(np.clip(ix, 0, sizes[k] - 1))
        channels_last = x.transpose((0,) + tuple(range(2, 2 + nd)) + (1,))
        vals = channels_last[(batch,) + tuple(clipped)]       # (N, *out, C)
        return np.moveaxis(vals, -1, 1) * valid[:, None]

    if mode == 1:
        return as_array(gather([np.rint(ck).astype(np.int64) for ck in coords]).astype(x.dtype))
    if nd == 2 and coords[0].dtype == np.float32:
        return as_array(_bilinear_f32(coords, gather))
    lows = [np.floor(ck).astype(np.int64) for ck in coords]
    fracs = [ck - lo for ck, lo in zip(coords, lows)]
    out = np.zeros((n, c) + out_shape, np.float64)
    for corner in np.ndindex(*(2,) * nd):
        weight = np.ones(lows[0].shape)
        for k, bit in enumerate(corner):
            weight = weight * (fracs[k] if bit else 1 - fracs[k])
        out = out + gather([lo + bit for lo, bit in zip(lows, corner)]) * weight[:, None]
    return as_array(out.astype(x.dtype))


def affine_grid(theta, size, align_corners: bool):
    n, _, h, w = size

    def base(k):
        if k == 1:
            return np.zeros(1)
        v = np.linspace(-1, 1, k)
        return v if align_corners else v * (k - 1) / k
    xs, ys = base(w), base(h)
    grid = np.stack(list(np.meshgrid(xs, ys, indexing="xy")) + [np.ones((h, w))], axis=-1)
    out = grid.reshape(1, h * w, 3) @ np.swapaxes(theta.astype(np.float64), 1, 2)
    return as_array(out.reshape(n, h, w, 2).astype(theta.dtype))


# -- registration ---------------------------------------------------------------------------

_T = "Tensor"
R.implement("aten::pad", pad)
R.implement("aten::constant_pad_nd", constant_pad)
for _n in (1, 2, 3):
    R.implement(f"aten::reflection_pad{_n}d", lambda x, p: pad(x, p, "reflect"))
    R.implement(f"aten::replication_pad{_n}d", lambda x, p: pad(x, p, "replicate"))
R.implement("aten::_pad_circular", lambda x, p: pad(x, p, "circular"))
for _mode in ("nearest1d", "nearest2d", "nearest3d"):
    R.implement(f"aten::upsample_{_mode}.vec",
                (lambda m: lambda x, size, scales: upsample(x, size, scales, m))(_mode))
    R.implement(f"aten::_upsample_{_mode.replace('nearest', 'nearest_exact')}.vec",
                (lambda m: lambda x, size, scales: upsample(x, size, scales, m))(
                    _mode.replace("nearest", "nearest_exact")))
for _mode in ("linear1d", "bilinear2d", "trilinear3d", "bicubic2d"):
    R.implement(f"aten::upsample_{_mode}.vec",
                (lambda m: lambda x, size, align, scales: upsample(x, size, scales, m, align))(
                    _mode))
# The overloads without .vec: an output size always, and the scale of each dimension
# that made it, if known (what torch's own decompositions pass)
for _mode, _n in _DIMS.items():
    if _mode.startswith("nearest_exact"):
        continue
    _kind = f"aten::upsample_{_mode}"
    if _mode.startswith("nearest"):
        R.register(_kind, (lambda m: lambda x, size, *sc: upsample(x, size, None, m, False, sc))(
            _mode), types=[_T, "int[]"] + ["float?"] * _n)
    else:
        R.register(_kind, (lambda m: lambda x, size, align, *sc: upsample(
            x, size, None, m, align, sc))(_mode), types=[_T, "int[]", "bool"] + ["float?"] * _n)
# The legacy builtins: an int or int[] size, a scale factor (float or int, or a list)
for _size in ("int?", "int[]?"):
    for _factor in ("float?", "float[]?"):
        R.register("aten::__interpolate", interpolate,
                   types=[_T, _size, _factor, "str", "bool?", "bool?", "bool"])
    R.register("aten::__upsample", legacy_upsample, types=[_T, _size, "int?", "str", "bool?"])
    R.register("aten::__upsample_nearest", lambda x, size=None, scale=None:
               interpolate(x, size, scale, "nearest"), types=[_T, _size, "int?"])
    for _factor in ("int?", "int[]?"):
        # F.upsample_bilinear: align_corners=True; its scale may be a list
        R.register("aten::__upsample_bilinear", lambda x, size=None, scale=None:
                   interpolate(x, size, scale, "bilinear", True), types=[_T, _size, _factor])
for _mode in _AA_FILTERS:
    R.implement(f"aten::_upsample_{_mode}.vec",
                (lambda m: lambda x, size, align, scales: upsample_aa(x, size, align, scales, m))(
                    _mode))
for _name in ("grid_sampler", "grid_sampler_2d", "grid_sampler_3d"):
    R.implement(f"aten::{_name}", grid_sampler)
R.implement("aten::affine_grid_generator", affine_grid)
