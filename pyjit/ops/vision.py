"""torchvision's operators (``torch.ops.torchvision``), computed as its CPU kernels
compute them: ``nms``, ``roi_align``, ``roi_pool``, ``ps_roi_align``,
``ps_roi_pool``, ``box_iou_rotated`` and ``deform_conv2d``.

A model scripted with torchvision calls these by name (``ops.torchvision.nms(boxes,
scores, iou_threshold)`` in its serialized code); torchvision's Python wrappers
around them (``torchvision.ops.roi_align`` turning a list of boxes into ``rois``,
``batched_nms``'s coordinate trick...) are scripted into the model, so what is
here is only the C++ kernel.  Each works in the input's own floating dtype,
float32 in float32, with the kernel's order of operations where it decides the
rounding: the sampling positions of ``roi_align`` (``start + ph * bin + (iy +
.5) * bin / grid``), its running sum over the samples of a bin in the kernel's
order, the strict ``>`` of ``nms``'s IoU test against the double threshold.

Rois are ``(K, 5)``: ``(batch index, x1, y1, x2, y2)`` in input coordinates,
scaled by ``spatial_scale``.  The kernels loop over rois; here a loop runs over
the *samples* of a bin (or the cells of a pooling window), vectorised over the
rois that have as many, their channels and their bins::

    roi_align, 2x2 bins, a grid of 2x2 samples each (sampling_ratio=2):

        +-------+-------+        each o is a bilinear sample; a bin's value is
        | o   o | o   o |        the mean of its samples, summed in the kernel's
        |       |       |        order (iy, then ix) with one addition a sample
        | o   o | o   o |
        +-------+-------+        aligned=True shifts the roi by half a pixel
        | o   o | o   o |        (pixel centres at integer + 0.5); aligned=False
        |       |       |        makes a roi at least 1x1
        | o   o | o   o |
        +-------+-------+        sampling_ratio <= 0: ceil(roi size / bins)
                                 samples a side, per roi

The gathers read the input channels-last (``_planes``), a pixel's channels in one
row, and the rois go in chunks of a few MB of temporaries (``_CHUNK``): roi_align of
1000 rois, 256 channels, 7x7 bins and 2x2 samples took about 1 s here, torchvision's
kernel 0.75 s (one thread).  nms runs the kernel's loop a block of boxes at a time,
with the block's IoUs against every later box computed at once (4000 boxes: 0.13 s,
as torchvision's).

``box_iou_rotated`` intersects the two rotated rectangles as torchvision's
``box_iou_rotated_utils.h`` does (the edge intersections and the corners inside,
with its 1e-5 slack), then takes the area of their convex hull, here by sorting
the points by angle around their centroid rather than a Graham scan: the same
polygon, summed in another order, so it agrees with torch to float32's
rounding rather than bit for bit.  ``deform_conv2d`` samples the input at the
offset kernel taps (bilinear, zero outside), scales by the mask, and multiplies
by the weights with one GEMM per group (numpy's BLAS, like torch's).
"""

from __future__ import annotations

import numpy as np

from ..registry import library as R
from .dims import as_array
from .dtypes import torch_name

__all__ = ["nms", "roi_align", "roi_pool", "ps_roi_align", "ps_roi_pool", "box_iou_rotated",
           "deform_conv2d", "SCHEMAS"]

#: torchvision 0.29's schemas of its operators (``torch.ops.torchvision.<op>.default._schema``).
SCHEMAS = {
    "nms": "torchvision::nms(Tensor dets, Tensor scores, float iou_threshold) -> Tensor",
    "roi_align": "torchvision::roi_align(Tensor input, Tensor rois, float spatial_scale, "
                 "SymInt pooled_height, SymInt pooled_width, int sampling_ratio, "
                 "bool aligned) -> Tensor",
    "roi_pool": "torchvision::roi_pool(Tensor input, Tensor rois, float spatial_scale, "
                "SymInt pooled_height, SymInt pooled_width) -> (Tensor, Tensor)",
    "ps_roi_align": "torchvision::ps_roi_align(Tensor input, Tensor rois, float spatial_scale, "
                    "SymInt pooled_height, SymInt pooled_width, int sampling_ratio) "
                    "-> (Tensor, Tensor)",
    "ps_roi_pool": "torchvision::ps_roi_pool(Tensor input, Tensor rois, float spatial_scale, "
                   "SymInt pooled_height, SymInt pooled_width) -> (Tensor, Tensor)",
    "box_iou_rotated": "torchvision::box_iou_rotated(Tensor boxes1, Tensor boxes2) -> Tensor",
    "deform_conv2d": "torchvision::deform_conv2d(Tensor input, Tensor weight, Tensor offset, "
                     "Tensor mask, Tensor bias, SymInt stride_h, SymInt stride_w, "
                     "SymInt pad_h, SymInt pad_w, SymInt dilation_h, SymInt dilation_w, "
                     "SymInt groups, SymInt offset_groups, bool use_mask) -> Tensor",
}

_FLT_MAX = float(np.finfo(np.float32).max)
_NMS_BLOCK = 256         # boxes whose IoUs nms computes at once (a block by all later boxes)
_NMS_PAIRS = 1 << 22     # at most so many IoUs at once (fewer boxes a block when many)
_CHUNK = 1 << 18         # values of (rois, bins, channels) the roi operators make at once   # roi_pool's "nothing pooled yet", in any dtype


# -- the kernels' checks, with their messages ----------------------------------------------

def _size(a: np.ndarray, dim: int) -> int:
    """``Tensor.size(dim)`` with ATen's message for a dimension out of range."""
    n = max(a.ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                         f"but got {dim})")
    return a.shape[dim] if a.ndim else 1


def _same_type(a: np.ndarray, b: np.ndarray, message: str) -> None:
    if a.dtype != b.dtype:
        raise RuntimeError(message)


def _floating(kernel: str, a: np.ndarray) -> None:
    """``AT_DISPATCH_FLOATING_TYPES_AND_HALF``'s refusal of another dtype."""
    if a.dtype not in (np.float32, np.float64, np.float16):
        raise RuntimeError(f'"{kernel}" not implemented for \'{torch_name(a.dtype)}\'')


def _check_rois(kernel: str, x: np.ndarray, rois: np.ndarray, shape_text: str) -> None:
    """The roi kernels' checks, in their order: the rois' shape (``roi_pool``'s kernel
    has none, and reads five numbers a roi whatever it is given: pyjit refuses as
    ``roi_align`` does), the dtypes, a floating dtype, a 4-D input."""
    if _size(rois, 1) != 5:
        raise RuntimeError(shape_text)
    _same_type(x, rois, "input should have the same type as rois")
    _floating(kernel, x)
    if x.ndim != 4:
        _size(x, 3)          # the kernel reads input.size(3): ATen's IndexError
        raise RuntimeError(f"{kernel}: expected a 4-D input (N, C, H, W), got {x.ndim}-D")
    # What torchvision does not check and reads out of bounds for (or converts to int
    # undefined): a roi of another image than the batch's, a coordinate not finite.
    bad = ~np.isfinite(rois).all(axis=1)
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        raise RuntimeError(f"{kernel}: roi {k} is not finite: {rois[k].tolist()}")
    batch = rois[:, 0].astype(np.int64)
    bad = (batch < 0) | (batch >= x.shape[0])
    if bad.any():
        k = int(np.flatnonzero(bad)[0])
        raise RuntimeError(f"{kernel}: roi {k} is of image {batch[k]}, but the input holds "
                           f"{x.shape[0]} images")


_ROIS = "rois must have shape as Tensor[K, 5]"
_PS_ROIS = "Tensor rois should have shape as Tensor[K, 5]"


# -- nms -----------------------------------------------------------------------------------

def _descending_stable(scores: np.ndarray) -> np.ndarray:
    """``scores.sort(stable=True, descending=True)``'s indices: NaN first (torch
    ranks it above everything), equal scores in index order."""
    nan = np.isnan(scores)
    order = np.argsort(-scores, kind="stable")
    return np.concatenate([np.flatnonzero(nan), order[~nan[order]]])


def _cmax(a, b):
    """``std::max(a, b)``: ``a < b ? b : a`` (NaN in ``b`` keeps ``a``)."""
    return np.where(a < b, b, a)


def _cmin(a, b):
    """``std::min(a, b)``: ``b < a ? b : a``."""
    return np.where(b < a, b, a)


def nms(dets: np.ndarray, scores: np.ndarray, iou_threshold: float) -> np.ndarray:
    """The indices of the boxes kept, highest score first: a box is dropped when
    its IoU with a kept box of higher score (earlier in a stable descending
    sort) is greater than ``iou_threshold``."""
    if dets.ndim != 2:
        raise RuntimeError(f"boxes should be a 2d tensor, got {dets.ndim}D")
    if dets.shape[1] != 4:
        raise RuntimeError(f"boxes should have 4 elements in dimension 1, got {dets.shape[1]}")
    if scores.ndim != 1:
        raise RuntimeError(f"scores should be a 1d tensor, got {scores.ndim}D")
    if dets.shape[0] != scores.shape[0]:
        raise RuntimeError("boxes and scores should have same number of elements in dimension "
                           f"0, got {dets.shape[0]} and {scores.shape[0]}")
    _floating("nms_kernel", dets)
    _same_type(dets, scores, "dets should have the same type as scores")
    if dets.shape[0] == 0:
        return as_array(np.zeros(0, np.int64))
    order = _descending_stable(scores)
    x1, y1, x2, y2 = (dets[order, k] for k in range(4))      # in the order of the loop
    areas = (x2 - x1) * (y2 - y1)
    zero = dets.dtype.type(0)
    # std::max and std::min differ from numpy's only on NaN (and the sign of a zero,
    # which no IoU shows): numpy's own where every coordinate is finite.
    hi, lo = (np.maximum, np.minimum) if np.isfinite(dets).all() else (_cmax, _cmin)
    n = len(order)
    suppressed = np.zeros(n, bool)      # by position in ``order``
    keep = []
    # The kernel's loop, a block of boxes at a time: the IoUs of a block's boxes with
    # every later box at once, then the block's boxes in order, each kept one
    # suppressing the later ones it overlaps by more than the threshold.
    step = max(8, min(_NMS_BLOCK, _NMS_PAIRS // n))
    for start in range(0, n, step):
        stop = min(start + step, n)
        i, j = slice(start, stop), slice(start, None)
        with np.errstate(invalid="ignore", divide="ignore"):   # 0 / 0 of empty boxes: NaN
            w = hi(zero, lo(x2[i, None], x2[None, j]) - hi(x1[i, None], x1[None, j]))
            h = hi(zero, lo(y2[i, None], y2[None, j]) - hi(y1[i, None], y1[None, j]))
            inter = w * h
            ovr = inter / (areas[i, None] + areas[None, j] - inter)
        # The kernel compares the box's float IoU with the double threshold.
        over = ovr.astype(np.float64) > iou_threshold
        block = suppressed[i].copy()
        kept = []
        for m in range(stop - start):
            if block[m]:
                continue
            kept.append(m)
            block[m + 1:] |= over[m, m + 1:stop - start]
        suppressed[i] = block
        suppressed[stop:] |= over[kept, stop - start:].any(axis=0)
        keep.extend(order[start + m] for m in kept)
    return as_array(np.asarray(keep, np.int64))


# -- roi_align and ps_roi_align --------------------------------------------------------------

def _grid(size: np.ndarray, bins: int, sampling_ratio: int) -> np.ndarray:
    """Samples a side per roi: ``sampling_ratio``, or ``ceil(size / bins)``."""
    if sampling_ratio > 0:
        return np.full(size.shape, sampling_ratio, np.int64)
    return np.ceil(size / size.dtype.type(bins)).astype(np.int64)


def _sample_axis(start, bin_size, grid: int, bins: int, extent: int, ps: bool):
    """One axis of the bilinear samples of ``k`` rois with ``grid`` samples a bin:
    arrays ``(k, bins, grid)`` of the low and high index, the low and high
    weights, and whether the sample is inside (``-1 <= c <= extent``).

    ``roi_align`` places a sample at ``(start + p * bin) + (i + .5) * bin / grid``,
    ``ps_roi_align`` at ``(p * bin + start) + ...``; equal but for rounding."""
    t = start.dtype.type
    p = np.arange(bins).astype(start.dtype)[None, :, None]
    i = (np.arange(grid) + 0.5).astype(start.dtype)[None, None, :]
    s, b = start[:, None, None], bin_size[:, None, None]
    base = p * b + s if ps else s + p * b
    c = base + i * b / t(grid)
    inside = ~((c < -1.0) | (c > extent))
    c = np.where(c <= 0, t(0), c)
    low = c.astype(np.int64)
    edge = low >= extent - 1
    low = np.where(edge, extent - 1, low)
    high = np.where(edge, low, low + 1)
    c = np.where(edge, low.astype(start.dtype), c)
    lw = c - low.astype(start.dtype)
    return low, high, t(1) - lw, lw, inside


def _planes(x: np.ndarray, pooled_height: int, pooled_width: int, ps: bool) -> np.ndarray:
    """``x`` as ``(N, PH', PW', H, W, C')`` with the channels a bin reads last and
    contiguous, so that one gather fetches a pixel's channels at once: ``(N, 1, 1,
    H, W, C)`` for the roi operators; for the position-sensitive ones ``(N, PH, PW,
    H, W, C_out)``, input channel ``(c * PH + ph) * PW + pw`` at ``[:, ph, pw, ..., c]``."""
    n, c, h, w = x.shape
    if not ps:
        return np.ascontiguousarray(x.transpose(0, 2, 3, 1))[:, None, None]
    grouped = x.reshape(n, c // (pooled_height * pooled_width), pooled_height, pooled_width, h, w)
    return np.ascontiguousarray(grouped.transpose(0, 2, 3, 4, 5, 1))


def _gather(planes: np.ndarray, batch: np.ndarray, h, w) -> np.ndarray:
    """``planes[b, ph, pw, h, w, :]`` for every roi and bin: ``(k, PH, PW, C')``,
    from ``h`` of shape ``(k, PH, 1)`` or ``(k, PH, PW)`` and ``w`` likewise."""
    _, bins_h, bins_w = planes.shape[:3]
    ph = np.arange(bins_h)[None, :, None] if bins_h > 1 else 0
    pw = np.arange(bins_w)[None, None, :] if bins_w > 1 else 0
    return planes[batch[:, None, None], ph, pw, h, w]


def _bilinear_bins(planes, batch, ys, xs, ps: bool):
    """The value at every sample ``(iy, ix)`` in turn, ``(k, PH, PW, C')`` each:
    ``w1 * v1 + w2 * v2 + w3 * v3 + w4 * v4`` as the kernels sum it.  Outside
    samples are 0 (``ps_roi_align``) or weigh 0 at pixel (0, 0) (``roi_align``,
    which keeps a NaN there)."""
    ylo, yhi, yhw, ylw, yin = ys
    xlo, xhi, xhw, xlw, xin = xs
    for iy in range(ylo.shape[2]):
        for ix in range(xlo.shape[2]):
            inside = yin[:, :, None, iy] & xin[:, None, :, ix]          # (k, PH, PW)
            yl, yh = ylo[:, :, None, iy], yhi[:, :, None, iy]
            xl, xh = xlo[:, None, :, ix], xhi[:, None, :, ix]
            hy, ly = yhw[:, :, None, iy], ylw[:, :, None, iy]
            hx, lx = xhw[:, None, :, ix], xlw[:, None, :, ix]
            if not ps:   # the kernel's pre-calculation zeroes an outside sample's weights
                yl, yh, xl, xh = (np.where(inside, v, 0) for v in (yl, yh, xl, xh))
                hy, ly, hx, lx = (np.where(inside, v, v.dtype.type(0))
                                  for v in (hy, ly, hx, lx))
            val = (hy * hx)[..., None] * _gather(planes, batch, yl, xl) \
                + (hy * lx)[..., None] * _gather(planes, batch, yl, xh) \
                + (ly * hx)[..., None] * _gather(planes, batch, yh, xl) \
                + (ly * lx)[..., None] * _gather(planes, batch, yh, xh)
            if ps:
                val = np.where(inside[..., None], val, val.dtype.type(0))
            yield val


def _groups(*keys: np.ndarray, per_roi: int = 1):
    """The rois by equal keys (their sample grids): ``(key values, indices)``, in
    chunks of at most :data:`_CHUNK` values of ``per_roi`` each, so that a chunk's
    temporaries stay a few MB (and in cache) however many rois there are."""
    if keys[0].size == 0:
        return
    table = np.stack(keys, axis=1)
    values, inverse = np.unique(table, axis=0, return_inverse=True)
    size = max(1, _CHUNK // max(per_roi, 1))
    for j, value in enumerate(values):
        idx = np.flatnonzero(inverse.reshape(-1) == j)
        for start in range(0, len(idx), size):
            yield tuple(int(v) for v in value), idx[start:start + size]


def _roi_box(rois: np.ndarray, spatial_scale: float, offset: float):
    t = rois.dtype.type
    scaled = rois[:, 1:5] * t(spatial_scale) - t(offset)
    # C++'s ``int roi_batch_ind = offset_rois[0]`` truncates toward zero.
    return rois[:, 0].astype(np.int64), scaled[:, 0], scaled[:, 1], scaled[:, 2], scaled[:, 3]


def roi_align(x, rois, spatial_scale: float, pooled_height: int, pooled_width: int,
              sampling_ratio: int, aligned: bool):
    """``torchvision.ops.roi_align``'s kernel: ``(K, C, PH, PW)``, each bin the mean
    of ``grid_h * grid_w`` bilinear samples."""
    _check_rois("roi_align_forward_kernel", x, rois, _ROIS)
    c = x.shape[1]
    k = rois.shape[0]
    out = np.zeros((k, c, pooled_height, pooled_width), x.dtype)
    if out.size == 0:
        return as_array(out)
    t = x.dtype.type
    batch, sw, sh, ew, eh = _roi_box(rois, spatial_scale, 0.5 if aligned else 0.0)
    rw, rh = ew - sw, eh - sh
    if not aligned:     # force malformed rois to be 1x1
        rw, rh = _cmax(rw, t(1)), _cmax(rh, t(1))
    _mean_of_samples(x, out, batch, (sh, sw), (rh, rw), sampling_ratio, ps=False)
    return as_array(out)


def _mean_of_samples(x, out, batch, starts, sizes, sampling_ratio: int, ps: bool):
    """Fill ``out`` ``(K, C', PH, PW)``: each bin the sum of its samples, in the
    kernel's order, over their count (``roi_align`` counts at least 1;
    ``ps_roi_align`` divides 0 by 0 for a roi of no samples), the rois of equal
    grids at once."""
    t = x.dtype.type
    (sh, sw), (rh, rw) = starts, sizes
    _, _, pooled_height, pooled_width = out.shape
    planes = _planes(x, pooled_height, pooled_width, ps)
    bh, bw = rh / t(pooled_height), rw / t(pooled_width)
    gh, gw = _grid(rh, pooled_height, sampling_ratio), _grid(rw, pooled_width, sampling_ratio)
    with np.errstate(invalid="ignore", divide="ignore"):
        for (grid_h, grid_w), idx in _groups(gh, gw, per_roi=out[0].size):
            ys = _sample_axis(sh[idx], bh[idx], grid_h, pooled_height, x.shape[2], ps)
            xs = _sample_axis(sw[idx], bw[idx], grid_w, pooled_width, x.shape[3], ps)
            acc = np.zeros((len(idx), pooled_height, pooled_width, out.shape[1]), x.dtype)
            for val in _bilinear_bins(planes, batch[idx], ys, xs, ps):
                acc += val
            count = t(grid_h * grid_w if ps else max(grid_h * grid_w, 1))
            out[idx] = (acc / count).transpose(0, 3, 1, 2)   # out is (K, C', PH, PW)


def _ps_channels(x, pooled_height: int, pooled_width: int) -> int:
    bins = pooled_height * pooled_width
    if x.shape[1] % bins:
        raise RuntimeError("input channels must be a multiple of pooling height * pooling width")
    return x.shape[1] // bins


def _ps_mapping(c_out: int, pooled_height: int, pooled_width: int) -> np.ndarray:
    """``c_in = (c_out * PH + ph) * PW + pw``: the input channel of each output bin,
    ``(1, C_out, PH, PW)``."""
    return np.arange(c_out * pooled_height * pooled_width).reshape(
        1, c_out, pooled_height, pooled_width)


def ps_roi_align(x, rois, spatial_scale: float, pooled_height: int, pooled_width: int,
                 sampling_ratio: int):
    """Position-sensitive roi_align: bin ``(ph, pw)`` of output channel ``c`` samples
    input channel ``(c * PH + ph) * PW + pw``; returns the output and that mapping
    (int32).  Always half-pixel aligned; a roi is not made at least 1x1, and one
    of no size has no samples (``0 / 0``)."""
    _check_rois("ps_roi_align_forward_kernel", x, rois, _PS_ROIS)
    c_out = _ps_channels(x, pooled_height, pooled_width)
    k = rois.shape[0]
    mapping = _ps_mapping(c_out, pooled_height, pooled_width)
    out = np.zeros((k, c_out, pooled_height, pooled_width), x.dtype)
    channel_mapping = np.broadcast_to(mapping, out.shape).astype(np.int32)
    if out.size == 0:
        return as_array(out), as_array(channel_mapping)
    batch, sw, sh, ew, eh = _roi_box(rois, spatial_scale, 0.5)
    _mean_of_samples(x, out, batch, (sh, sw), (eh - sh, ew - sw), sampling_ratio, ps=True)
    return as_array(out), as_array(channel_mapping)


# -- roi_pool and ps_roi_pool ----------------------------------------------------------------

def _round_half_away(v: np.ndarray) -> np.ndarray:
    """C's ``round``: halves away from zero (numpy's ``round`` goes to even)."""
    whole = np.trunc(v)
    return (whole + np.where(np.abs(v - whole) >= 0.5, np.sign(v), 0)).astype(np.int64)


def _pool_windows(rois, spatial_scale, pooled_height, pooled_width, height, width, ps: bool):
    """Every roi's bins as integer windows: ``(hstart, hend)`` of shape ``(K, PH)``
    and ``(wstart, wend)`` of ``(K, PW)``, clipped as the kernel clips them
    (``roi_pool`` to ``[0, size]`` with a roi at least 1 wider than its corners'
    difference; ``ps_roi_pool`` to ``[0, size - 1]``), and the batch indices."""
    t = rois.dtype.type
    batch = rois[:, 0].astype(np.int64)
    corners = _round_half_away(rois[:, 1:5] * t(spatial_scale))
    sw, sh, ew, eh = corners.T
    grow = 0 if ps else 1
    limit_h, limit_w = (height - 1, width - 1) if ps else (height, width)

    def axis(start, end, bins, limit):
        size = np.maximum(end - start + grow, 1)
        bin_size = size.astype(rois.dtype) / t(bins)
        p = np.arange(bins).astype(rois.dtype)
        lo = np.floor(p[None, :] * bin_size[:, None]).astype(np.int64)
        hi = np.ceil((p[None, :] + t(1)) * bin_size[:, None]).astype(np.int64)
        clip = lambda v: np.minimum(np.maximum(v + start[:, None], 0), limit)  # noqa: E731
        return clip(lo), clip(hi)
    return batch, axis(sh, eh, pooled_height, limit_h), axis(sw, ew, pooled_width, limit_w)


def _by_window(hs, he, ws, we, per_roi: int):
    """The rois by the size of their largest window (the cells the loop walks)."""
    tall = (he - hs).max(axis=1, initial=0)
    wide = (we - ws).max(axis=1, initial=0)
    for _, idx in _groups(tall, wide, per_roi=per_roi):
        yield idx


def _channels_first(a: np.ndarray) -> np.ndarray:
    """``(K, PH, PW, C)`` as torch's contiguous ``(K, C, PH, PW)``."""
    return as_array(np.ascontiguousarray(a.transpose(0, 3, 1, 2)))


def _window_cells(hs, he, ws, we):
    """The cells of the rois' windows in the kernels' order (row by row): ``(h, w,
    inside)``, the cell of every bin, ``(k, PH, 1)`` and ``(k, 1, PW)``, clipped
    into the image, and whether it is in its bin's window, ``(k, PH, PW, 1)``."""
    tall = int((he - hs).max(initial=0))
    wide = int((we - ws).max(initial=0))
    for dh in range(tall):
        rows = (hs + dh < he)[:, :, None]
        for dw in range(wide):
            inside = rows & (ws + dw < we)[:, None, :]
            yield (hs + dh)[:, :, None], (ws + dw)[:, None, :], inside[..., None]


def roi_pool(x, rois, spatial_scale: float, pooled_height: int, pooled_width: int):
    """Max pooling of each roi's bins: the output and the argmax (int32, the index
    ``h * W + w`` in the input plane, -1 where nothing was greater than
    ``-FLT_MAX``); an empty bin is 0."""
    _check_rois("roi_pool_forward_kernel", x, rois, _ROIS)
    n, c, height, width = x.shape
    k = rois.shape[0]
    if k * c * pooled_height * pooled_width == 0:
        shape = (k, c, pooled_height, pooled_width)
        return as_array(np.zeros(shape, x.dtype)), as_array(np.full(shape, -1, np.int32))
    batch, (hs, he), (ws, we) = _pool_windows(rois, spatial_scale, pooled_height, pooled_width,
                                              height, width, ps=False)
    empty = (he <= hs)[:, :, None, None] | (we <= ws)[:, None, :, None]
    best = np.where(empty, x.dtype.type(0), x.dtype.type(-_FLT_MAX))
    best = np.broadcast_to(best, (k, pooled_height, pooled_width, c)).copy()
    argmax = np.full(best.shape, -1, np.int32)
    planes = _planes(x, pooled_height, pooled_width, ps=False)
    for idx in _by_window(hs, he, ws, we, best[0].size):
        top, arg = best[idx], argmax[idx]
        for h, w, inside in _window_cells(hs[idx], he[idx], ws[idx], we[idx]):
            h, w = np.minimum(h, height - 1), np.minimum(w, width - 1)
            v = _gather(planes, batch[idx], h, w)
            better = inside & (v > top)
            top = np.where(better, v, top)
            arg = np.where(better, (h * width + w).astype(np.int32)[..., None], arg)
        best[idx], argmax[idx] = top, arg
    return _channels_first(best), _channels_first(argmax)


def ps_roi_pool(x, rois, spatial_scale: float, pooled_height: int, pooled_width: int):
    """Position-sensitive average pooling (the mapping of :func:`ps_roi_align`):
    each bin the sum of its window, row by row, over its area; 0 if empty."""
    _check_rois("ps_roi_pool_forward_kernel", x, rois, _PS_ROIS)
    c_out = _ps_channels(x, pooled_height, pooled_width)
    n, c, height, width = x.shape
    k = rois.shape[0]
    mapping = _ps_mapping(c_out, pooled_height, pooled_width)
    shape = (k, c_out, pooled_height, pooled_width)
    channel_mapping = np.broadcast_to(mapping, shape).astype(np.int32)
    if k == 0:
        return as_array(np.zeros(shape, x.dtype)), as_array(channel_mapping)
    batch, (hs, he), (ws, we) = _pool_windows(rois, spatial_scale, pooled_height, pooled_width,
                                              height, width, ps=True)
    total = np.zeros((k, pooled_height, pooled_width, c_out), x.dtype)
    planes = _planes(x, pooled_height, pooled_width, ps=True)
    for idx in _by_window(hs, he, ws, we, total[0].size):
        part = total[idx]
        for h, w, inside in _window_cells(hs[idx], he[idx], ws[idx], we[idx]):
            v = _gather(planes, batch[idx], np.minimum(h, height - 1), np.minimum(w, width - 1))
            part = np.where(inside, part + v, part)
        total[idx] = part
    area = ((he - hs)[:, :, None] * (we - ws)[:, None, :]).astype(x.dtype)
    empty = (he <= hs)[:, :, None] | (we <= ws)[:, None, :]
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(empty[..., None], x.dtype.type(0), total / area[..., None])
    return _channels_first(out), as_array(channel_mapping)


# -- box_iou_rotated -------------------------------------------------------------------------

def _cross(ax, ay, bx, by):
    return ax * by - bx * ay


def _vertices(cx, cy, w, h, angle):
    """The corners of rotated boxes, ``(..., 4)`` x and y, as
    ``get_rotated_vertices`` computes them (the angle in degrees, its cosine and
    sine in double, halved in the box's dtype)."""
    t = cx.dtype.type
    theta = angle.astype(np.float64) * 0.01745329251
    cos2 = np.cos(theta).astype(cx.dtype) * t(0.5)
    sin2 = np.sin(theta).astype(cx.dtype) * t(0.5)
    x0 = cx + sin2 * h + cos2 * w
    y0 = cy + cos2 * h - sin2 * w
    x1 = cx - sin2 * h + cos2 * w
    y1 = cy - cos2 * h - sin2 * w
    two = t(2)
    return (np.stack([x0, x1, two * cx - x0, two * cx - x1], -1),
            np.stack([y0, y1, two * cy - y0, two * cy - y1], -1))


def _inside(px, py, qx, qy, eps):
    """Which corners ``p`` (``(..., 4)``) lie in the rectangle of corners ``q``
    (its projections on two sides within them, with ``eps`` slack)."""
    abx, aby = qx[..., 1] - qx[..., 0], qy[..., 1] - qy[..., 0]
    dax, day = qx[..., 0] - qx[..., 3], qy[..., 0] - qy[..., 3]
    apx, apy = px - qx[..., :1], py - qy[..., :1]
    ap_ab = apx * abx[..., None] + apy * aby[..., None]
    ap_ad = -(apx * dax[..., None] + apy * day[..., None])
    ab_ab = (abx * abx + aby * aby)[..., None]
    ad_ad = (dax * dax + day * day)[..., None]
    return (ap_ab > -eps) & (ap_ad > -eps) & (ap_ab < ab_ab + eps) & (ap_ad < ad_ad + eps)


def _hull_area(px, py, valid):
    """The area of the convex hull of each row's valid points (fewer than 3: 0):
    the points sorted by angle around their centroid, fanned from it."""
    t = px.dtype.type
    count = valid.sum(-1)
    safe = np.maximum(count, 1).astype(px.dtype)
    cx = np.where(valid, px, t(0)).sum(-1) / safe
    cy = np.where(valid, py, t(0)).sum(-1) / safe
    dx, dy = px - cx[..., None], py - cy[..., None]
    angle = np.where(valid, np.arctan2(dy, dx), np.inf)
    order = np.argsort(angle, axis=-1, kind="stable")
    dx, dy = np.take_along_axis(dx, order, -1), np.take_along_axis(dy, order, -1)
    pos = np.arange(px.shape[-1])
    nxt = np.where(pos[None] + 1 < count[..., None], pos[None] + 1, 0)
    ndx, ndy = np.take_along_axis(dx, nxt, -1), np.take_along_axis(dy, nxt, -1)
    tri = np.where(pos[None] < count[..., None], np.abs(_cross(dx, dy, ndx, ndy)), t(0))
    return np.where(count > 2, tri.sum(-1) / t(2), t(0))


def box_iou_rotated(boxes1, boxes2):
    """The ``(N, M)`` IoU of rotated boxes ``(cx, cy, w, h, angle in degrees)``:
    0 when either has an area below 1e-14.  Computed in the boxes' dtype and
    returned as float32 whatever it is, as torchvision 0.29's kernel does."""
    for name, b in (("boxes1", boxes1), ("boxes2", boxes2)):
        if b.ndim != 2:
            raise RuntimeError(f"{name} should be a 2d tensor, got {b.ndim}D")
        if b.shape[1] != 5:
            raise RuntimeError(f"{name} should have 5 elements in dimension 1, got {b.shape[1]}")
    _same_type(boxes1, boxes2, "boxes1 and boxes2 must have the same dtype")
    _floating("box_iou_rotated", boxes1)
    n, m = boxes1.shape[0], boxes2.shape[0]
    a = np.broadcast_to(boxes1[:, None, :], (n, m, 5)).reshape(-1, 5)
    b = np.broadcast_to(boxes2[None, :, :], (n, m, 5)).reshape(-1, 5)
    iou = np.zeros(n * m, np.float32)
    for start in range(0, n * m, _CHUNK // 64):     # some 60 values a pair at once
        part = slice(start, start + _CHUNK // 64)
        iou[part] = _pair_iou(a[part], b[part])
    return as_array(iou.reshape(n, m))


def _pair_iou(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The IoU of each pair of rotated boxes ``a[i]``, ``b[i]``, in their dtype."""
    dt = a.dtype
    # Centred on the pair's midpoint (in double) for precision, as the kernel does.
    mx = (a[:, 0].astype(np.float64) + b[:, 0]) / 2.0
    my = (a[:, 1].astype(np.float64) + b[:, 1]) / 2.0
    shift = lambda v, mid: (v.astype(np.float64) - mid).astype(dt)  # noqa: E731
    p1x, p1y = _vertices(shift(a[:, 0], mx), shift(a[:, 1], my), a[:, 2], a[:, 3], a[:, 4])
    p2x, p2y = _vertices(shift(b[:, 0], mx), shift(b[:, 1], my), b[:, 2], b[:, 3], b[:, 4])
    area1, area2 = a[:, 2] * a[:, 3], b[:, 2] * b[:, 3]
    eps = 1e-5
    # Every edge of box 1 against every edge of box 2 (16 candidates).
    v1x, v1y = np.roll(p1x, -1, -1) - p1x, np.roll(p1y, -1, -1) - p1y
    v2x, v2y = np.roll(p2x, -1, -1) - p2x, np.roll(p2y, -1, -1) - p2y
    e1x, e1y, q1x, q1y = v1x[:, :, None], v1y[:, :, None], p1x[:, :, None], p1y[:, :, None]
    e2x, e2y, q2x, q2y = v2x[:, None, :], v2y[:, None, :], p2x[:, None, :], p2y[:, None, :]
    det = _cross(e2x, e2y, e1x, e1y)
    ux, uy = q2x - q1x, q2y - q1y
    with np.errstate(invalid="ignore", divide="ignore"):   # parallel edges: det 0
        t1 = _cross(e2x, e2y, ux, uy) / det
        t2 = _cross(e1x, e1y, ux, uy) / det
        hit = (np.abs(det) > 1e-14) & (t1 > -eps) & (t1 < 1 + eps) & (t2 > -eps) & \
            (t2 < 1 + eps)
        ix = (q1x + e1x * t1).reshape(-1, 16)
        iy = (q1y + e1y * t1).reshape(-1, 16)
    px = np.concatenate([ix, p1x, p2x], -1)
    py = np.concatenate([iy, p1y, p2y], -1)
    valid = np.concatenate([hit.reshape(-1, 16), _inside(p1x, p1y, p2x, p2y, eps),
                            _inside(p2x, p2y, p1x, p1y, eps)], -1)
    px, py = np.where(valid, px, dt.type(0)), np.where(valid, py, dt.type(0))
    inter = _hull_area(px, py, valid)
    with np.errstate(invalid="ignore", divide="ignore"):
        iou = inter / (area1 + area2 - inter)
    return np.where((area1 < 1e-14) | (area2 < 1e-14), dt.type(0), iou).astype(np.float32)


# -- deform_conv2d ---------------------------------------------------------------------------

def _deform_checks(x, weight, offset, mask, stride, pad, dilation, groups, offset_groups,
                   use_mask):
    def expect(cond, text):
        # torchvision's check says nothing here (a bare TORCH_CHECK): pyjit says what.
        if not cond:
            raise RuntimeError(f"deform_conv2d: expected {text}")
    expect(x.ndim == 4, f"a 4-D input, got {x.ndim}-D")
    expect(offset.ndim == 4, f"a 4-D offset, got {offset.ndim}-D")
    expect(not use_mask or mask.ndim == 4, f"a 4-D mask, got {mask.ndim}-D")
    expect(weight.ndim == 4, f"a 4-D weight, got {weight.ndim}-D")
    _floating("deformable_im2col", x)
    kh, kw = weight.shape[2:]
    out_h = (x.shape[2] + 2 * pad[0] - (dilation[0] * (kh - 1) + 1)) // stride[0] + 1
    out_w = (x.shape[3] + 2 * pad[1] - (dilation[1] * (kw - 1) + 1)) // stride[1] + 1
    if not (kh > 0 and kw > 0):
        raise RuntimeError(f"weight_h: {kh} weight_w: {kw}")
    if not (stride[0] > 0 and stride[1] > 0):
        raise RuntimeError(f"stride_h: {stride[0]} stride_w: {stride[1]}")
    if not (pad[0] >= 0 and pad[1] >= 0):
        raise RuntimeError(f"pad_h: {pad[0]} pad_w: {pad[1]}")
    if not (dilation[0] > 0 and dilation[1] > 0):
        raise RuntimeError(f"dilation_h: {dilation[0]} dilation_w: {dilation[1]}")
    expect(weight.shape[1] * groups == x.shape[1],
           f"weight.size(1) * groups == input.size(1), got {weight.shape[1]} * {groups} and "
           f"{x.shape[1]}")
    expect(weight.shape[0] % groups == 0,
           f"the output channels ({weight.shape[0]}) a multiple of groups ({groups})")
    taps = kh * kw
    if offset.shape[1] != offset_groups * 2 * taps:
        raise RuntimeError(f"offset.shape[1] is not valid: got: {offset.shape[1]} expected: "
                           f"{offset_groups * 2 * taps}")
    if use_mask and mask.shape[1] != offset_groups * taps:
        raise RuntimeError(f"mask.shape[1] is not valid: got: {mask.shape[1]} expected: "
                           f"{offset_groups * taps}")
    expect(x.shape[1] % offset_groups == 0,
           f"the input channels ({x.shape[1]}) a multiple of offset_groups ({offset_groups})")
    if offset.shape[0] != x.shape[0]:
        raise RuntimeError("invalid batch size of offset")
    if offset.shape[2] != out_h or offset.shape[3] != out_w:
        raise RuntimeError(f"offset output dims: ({offset.shape[2]}, {offset.shape[3]}) - "
                           f"computed output dims: ({out_h}, {out_w})")
    if mask.shape[0] != x.shape[0]:
        raise RuntimeError("invalid batch size of mask")
    if use_mask and (mask.shape[2] != out_h or mask.shape[3] != out_w):
        raise RuntimeError(f"mask output dims: ({mask.shape[2]}, {mask.shape[3]}) - "
                           f"computed output dims: ({out_h}, {out_w})")
    if not (out_h > 0 and out_w > 0):
        raise RuntimeError(f"Calculated output size too small - out_h: {out_h} out_w: {out_w}")
    return out_h, out_w


def deform_conv2d(x, weight, offset, mask, bias, stride_h: int, stride_w: int, pad_h: int,
                  pad_w: int, dilation_h: int, dilation_w: int, groups: int,
                  offset_groups: int, use_mask: bool):
    """Deformable convolution v1 (``use_mask`` False) and v2: tap ``(i, j)`` of output
    ``(y, x)`` reads the input at ``(y * stride - pad + i * dilation + dy, ...)``,
    ``(dy, dx)`` from ``offset`` channels ``2 * (i * kw + j)`` and ``+ 1`` of the
    tap's offset group, bilinearly with zeros outside, times the mask."""
    out_h, out_w = _deform_checks(x, weight, offset, mask, (stride_h, stride_w), (pad_h, pad_w),
                                  (dilation_h, dilation_w), groups, offset_groups, use_mask)
    n, c, height, width = x.shape
    out_c, _, kh, kw = weight.shape
    dt = x.dtype
    t = dt.type
    if n == 0:
        return as_array(np.zeros((0, out_c, out_h, out_w), dt))
    per_group = c // offset_groups
    off = offset.reshape(n, offset_groups, kh, kw, 2, out_h, out_w)
    # The integer part of each tap's position, then the offset added once (as the kernel).
    base_y = (np.arange(kh)[:, None] * dilation_h + np.arange(out_h)[None, :] * stride_h - pad_h)
    base_x = (np.arange(kw)[:, None] * dilation_w + np.arange(out_w)[None, :] * stride_w - pad_w)
    ys = base_y.reshape(1, 1, kh, 1, out_h, 1).astype(dt) + off[:, :, :, :, 0]
    xs = base_x.reshape(1, 1, 1, kw, 1, out_w).astype(dt) + off[:, :, :, :, 1]
    inside = ~((ys <= -1) | (ys >= height) | (xs <= -1) | (xs >= width))
    y0f, x0f = np.floor(ys), np.floor(xs)
    ly, lx = ys - y0f, xs - x0f
    hy, hx = t(1) - ly, t(1) - lx
    y0, x0 = y0f.astype(np.int64), x0f.astype(np.int64)
    # (n, g, 1, kh, kw, oh, ow) against channels (1, g, per_group, 1, 1, 1, 1)
    planes = x.reshape(n, offset_groups, per_group, height * width)

    def corner(yy, xx, ok):
        ok = ok & inside
        flat = np.where(ok, yy * width + xx, 0).reshape(n, offset_groups, 1, -1)
        v = np.take_along_axis(planes, np.broadcast_to(flat, (n, offset_groups, per_group,
                                                              flat.shape[-1])), -1)
        return np.where(ok.reshape(n, offset_groups, 1, -1), v, t(0))

    shape = (n, offset_groups, 1, -1)
    w1, w2 = (hy * hx).reshape(shape), (hy * lx).reshape(shape)
    w3, w4 = (ly * hx).reshape(shape), (ly * lx).reshape(shape)
    val = w1 * corner(y0, x0, (y0 >= 0) & (x0 >= 0)) \
        + w2 * corner(y0, x0 + 1, (y0 >= 0) & (x0 + 1 <= width - 1)) \
        + w3 * corner(y0 + 1, x0, (y0 + 1 <= height - 1) & (x0 >= 0)) \
        + w4 * corner(y0 + 1, x0 + 1, (y0 + 1 <= height - 1) & (x0 + 1 <= width - 1))
    val = np.where(inside.reshape(shape), val, t(0))
    if use_mask:
        val = mask.reshape(shape).astype(dt) * val
    # columns: (n, C * kh * kw, oh * ow), grouped by the weights' groups
    columns = val.reshape(n, groups, (c // groups) * kh * kw, out_h * out_w)
    w = weight.reshape(groups, out_c // groups, -1).astype(dt)
    out = np.matmul(w[None], columns).reshape(n, out_c, out_h, out_w)
    out = out + bias.astype(dt).reshape(1, out_c, 1, 1)
    return as_array(out.astype(dt))


# -- registration ----------------------------------------------------------------------------

for _name, _fn in (("nms", nms), ("roi_align", roi_align), ("roi_pool", roi_pool),
                   ("ps_roi_align", ps_roi_align), ("ps_roi_pool", ps_roi_pool),
                   ("box_iou_rotated", box_iou_rotated), ("deform_conv2d", deform_conv2d)):
    # Sizes are SymInt in the schema, plain ints to a graph; the registry reads the
    # arguments only (its schema pattern takes no tuple of returns).
    _arguments = SCHEMAS[_name].split(" -> ")[0]
    R.register(f"torchvision::{_name}", _fn, schema=_arguments.replace("SymInt", "int"))
