"""Loss functions and distances.

TorchScript passes a loss's reduction as torch's enum: 0 ``none``, 1 ``mean``, 2
``sum`` (``torch.nn._reduction.get_enum``, inlined into the graph).  Each loss
computes its elementwise terms in double, reduces, and rounds once to the input's
dtype.  Class-index losses (``nll_loss``, ``cross_entropy``) take ``weight``,
``ignore_index`` and (``cross_entropy``) ``label_smoothing`` as torch does: the
mean divides by the summed weights of the targets that count.
"""

from __future__ import annotations

import math

import numpy as np

from ..registry import library as R
from .dims import as_array, broadcast_shapes, shape_list, wrap_dim
from .dtypes import torch_name
from ..fperrors import ignoring

__all__ = ["reduce_loss", "nll_loss", "cross_entropy"]

_F64 = np.float64


def reduce_loss(terms: np.ndarray, reduction: int, dtype) -> np.ndarray:
    """``none`` / ``mean`` / ``sum`` of elementwise loss terms, in ``dtype``."""
    if reduction == 0:
        r = terms
    elif reduction == 1:
        r = terms.mean() if terms.size else np.float64(np.nan)
    elif reduction == 2:
        r = terms.sum()
    else:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return as_array(np.asarray(r).astype(dtype))


def _pair(x, y, name):
    if x.shape != y.shape:
        broadcast_shapes(x.shape, y.shape)
    return x.astype(_F64), y.astype(_F64)


def mse_loss(x, y, reduction=1):
    a, b = _pair(x, y, "mse_loss")
    return reduce_loss((a - b) ** 2, reduction, np.result_type(x.dtype, y.dtype))


def l1_loss(x, y, reduction=1):
    a, b = _pair(x, y, "l1_loss")
    return reduce_loss(np.abs(a - b), reduction, np.result_type(x.dtype, y.dtype))


def smooth_l1_loss(x, y, reduction=1, beta=1.0):
    a, b = _pair(x, y, "smooth_l1_loss")
    d = np.abs(a - b)
    terms = d if beta == 0 else np.where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta)
    return reduce_loss(terms, reduction, x.dtype)


def huber_loss(x, y, reduction=1, delta=1.0):
    a, b = _pair(x, y, "huber_loss")
    d = np.abs(a - b)
    return reduce_loss(np.where(d <= delta, 0.5 * d * d, delta * (d - 0.5 * delta)), reduction,
                       x.dtype)


def binary_cross_entropy(x, y, weight=None, reduction=1):
    if x.shape != y.shape:
        raise ValueError(f"Using a target size ({shape_list(y.shape)}) that is different to "
                         f"the input size ({shape_list(x.shape)}) is deprecated. Please ensure "
                         f"they have the same size.")
    a, t = x.astype(_F64), y.astype(_F64)
    if np.any((a < 0) | (a > 1)):
        raise ValueError("all elements of input should be between 0 and 1")
    with ignoring():
        terms = -(t * np.maximum(np.log(a), -100) + (1 - t) * np.maximum(np.log1p(-a), -100))
    if weight is not None:
        terms = terms * weight
    return reduce_loss(terms, reduction, x.dtype)


def binary_cross_entropy_with_logits(x, y, weight=None, pos_weight=None, reduction=1):
    a, t = x.astype(_F64), y.astype(_F64)
    log_sig_neg = np.log1p(np.exp(-np.abs(a))) + np.maximum(-a, 0)  # -log(sigmoid(a))
    if pos_weight is not None:
        terms = (1 - t) * a + (1 + (pos_weight - 1) * t) * log_sig_neg
    else:
        terms = (1 - t) * a + log_sig_neg
    if weight is not None:
        terms = terms * weight
    return reduce_loss(terms, reduction, x.dtype)


def soft_margin_loss(x, y, reduction=1):
    return reduce_loss(np.log1p(np.exp(-y.astype(_F64) * x)), reduction, x.dtype)


def margin_ranking_loss(x1, x2, y, margin=0.0, reduction=1):
    terms = np.maximum(-y.astype(_F64) * (x1.astype(_F64) - x2) + margin, 0)
    return reduce_loss(terms, reduction, x1.dtype)


def hinge_embedding_loss(x, y, margin=1.0, reduction=1):
    a = x.astype(_F64)
    clamp = np.maximum(margin - a, 0)
    terms = np.where(y != 1, clamp, 0) + np.where(y != -1, a, 0)
    return reduce_loss(terms, reduction, x.dtype)


def cosine_embedding_loss(x1, x2, y, margin=0.0, reduction=1):
    eps = 1e-12
    a, b = x1.astype(_F64), x2.astype(_F64)
    prod = np.sum(a * b, axis=-1)
    mag = np.sqrt((np.sum(a * a, axis=-1) + eps) * (np.sum(b * b, axis=-1) + eps))
    cos = prod / mag
    terms = np.where(y == 1, 1 - cos, 0) + np.where(y == -1, np.maximum(cos - margin, 0), 0)
    return reduce_loss(terms, reduction, x1.dtype)


def poisson_nll_loss(x, y, log_input=True, full=False, eps=1e-8, reduction=1):
    a, t = x.astype(_F64), y.astype(_F64)
    terms = np.exp(a) - t * a if log_input else a - t * np.log(a + eps)
    if full:
        with ignoring():
            stirling = t * np.log(t) - t + 0.5 * np.log(2 * math.pi * t)
        terms = terms + np.where(t > 1, stirling, 0)
    return reduce_loss(terms, reduction, x.dtype)


def kl_div(x, y, reduction=1, log_target=False):
    if x.dtype.kind in "biu" or y.dtype.kind in "biu":
        raise ValueError("kl_div: Integral inputs not supported.")
    a, t = x.astype(_F64), y.astype(_F64)
    if log_target:
        terms = np.exp(t) * (t - a)
    else:
        with ignoring():
            terms = np.where(t > 0, t * np.log(np.where(t > 0, t, 1)), 0) - t * a
    return reduce_loss(terms, reduction, x.dtype)


def _class_dim(x):
    return 1 if x.ndim >= 2 else 0


def _gather_class(logp, target, cdim):
    """``logp`` at each target class (targets of ``ignore_index`` read class 0)."""
    t = np.expand_dims(target, cdim)
    return np.take_along_axis(logp, t, axis=cdim).squeeze(cdim)


def nll_loss(x, target, weight=None, reduction=1, ignore_index=-100):
    cdim = _class_dim(x)
    c = x.shape[cdim]
    if target.dtype.kind not in "iu":
        raise TypeError(f"expected scalar type Long but found {target.dtype}")
    valid = target != ignore_index
    safe = np.where(valid, target, 0)
    if np.any(safe[valid] >= c) or np.any(safe < 0):
        bad = int(safe[valid].max()) if np.any(safe >= c) else int(safe.min())
        raise IndexError(f"Target {bad} is out of bounds.")
    w = np.ones(c) if weight is None else weight.astype(_F64)
    wt = np.where(valid, w[safe], 0.0)
    terms = -_gather_class(x.astype(_F64), safe, cdim) * wt
    if reduction == 1:
        total = wt.sum()
        return as_array(np.asarray(terms.sum() / total if total else np.nan).astype(x.dtype))
    return reduce_loss(terms, reduction, x.dtype)


def nll_loss_forward(x, target, weight, reduction: int, ignore_index: int):
    """``(output, total_weight)``: :func:`nll_loss`, and the weight of the targets
    it averaged over (the sum of their classes' weights; 0 without a reduction)."""
    out = nll_loss(x, target, weight, reduction, ignore_index)
    if reduction == 0:
        return out, np.zeros((), dtype=x.dtype)
    safe = np.where(target != ignore_index, target, 0)
    w = np.ones(x.shape[_class_dim(x)]) if weight is None else weight.astype(_F64)
    total = np.where(target != ignore_index, w[safe], 0.0).sum()
    return out, np.asarray(total, dtype=x.dtype)


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank: int = 0,
             reduction: int = 1, zero_infinity: bool = False):
    """The connectionist temporal classification loss: ``-log p(target | input)``
    per sequence by the forward (alpha) recursion over the target with blanks
    between its labels, in double.  ``log_probs`` is ``(T, N, C)`` (or ``(T, C)``
    unbatched); ``targets`` is ``(N, S)`` padded or the targets one after the
    other; the mean divides each loss by its target's length (at least 1)."""
    unbatched = log_probs.ndim == 2
    lp = (log_probs[:, None] if unbatched else log_probs).astype(np.float64)
    n = lp.shape[1]
    in_len = [int(v) for v in np.asarray(input_lengths).reshape(-1)]
    tg_len = [int(v) for v in np.asarray(target_lengths).reshape(-1)]
    flat = targets.ndim == 1 and not unbatched
    tg = targets[None] if unbatched else targets
    losses = np.zeros(n)
    start = 0
    for b in range(n):
        length = tg_len[b]
        labels = tg[start:start + length] if flat else tg[b, :length]
        start += length if flat else 0
        ext = np.full(2 * length + 1, blank, dtype=np.int64)
        ext[1::2] = labels
        skip = np.zeros(ext.size, bool)      # s may come from s - 2: a label unlike the last
        skip[2:] = (ext[2:] != blank) & (ext[2:] != ext[:-2])
        alpha = np.full(ext.size, -np.inf)
        alpha[0] = lp[0, b, blank]
        if ext.size > 1:
            alpha[1] = lp[0, b, ext[1]]
        for t in range(1, in_len[b]):
            prev = alpha
            terms = [prev, np.concatenate([[-np.inf], prev[:-1]]),
                     np.where(skip, np.concatenate([[-np.inf, -np.inf], prev[:-2]]), -np.inf)]
            with np.errstate(invalid="ignore"):
                alpha = np.logaddexp.reduce(terms, axis=0) + lp[t, b, ext]
        end = np.logaddexp(alpha[-1], alpha[-2]) if ext.size > 1 else alpha[-1]
        losses[b] = -end
    if zero_infinity:
        losses = np.where(np.isinf(losses), 0.0, losses)
    dt = log_probs.dtype
    if reduction == 0:
        return as_array((losses[0] if unbatched else losses).astype(dt))
    if reduction == 2:
        return as_array(np.asarray(losses.sum()).astype(dt))
    return as_array(np.asarray((losses / np.maximum(tg_len, 1)).mean()).astype(dt))


def _log_softmax(x, cdim):
    a = x.astype(_F64)
    m = np.max(a, axis=cdim, keepdims=True)
    return a - m - np.log(np.sum(np.exp(a - m), axis=cdim, keepdims=True))


def cross_entropy(x, target, weight=None, reduction=1, ignore_index=-100,
                  label_smoothing=0.0):
    cdim = _class_dim(x)
    c = x.shape[cdim]
    logp = _log_softmax(x, cdim)
    w = np.ones(c) if weight is None else weight.astype(_F64)
    wshape = [1] * x.ndim
    wshape[cdim] = c
    if target.dtype.kind == "f":  # class probabilities
        t = target.astype(_F64)
        if label_smoothing > 0:
            t = t * (1 - label_smoothing) + label_smoothing / c
        terms = -np.sum(logp * t * w.reshape(wshape), axis=cdim)
        if reduction == 1:
            n = x.size // c
            return as_array(np.asarray(terms.sum() / n).astype(x.dtype))
        return reduce_loss(terms, reduction, x.dtype)
    nll = nll_loss(logp, target, weight, reduction, ignore_index)  # in double: logp is
    if label_smoothing <= 0:
        return as_array(nll.astype(x.dtype))
    valid = target != ignore_index
    smooth = -np.sum(logp * w.reshape(wshape), axis=cdim) * valid
    if reduction == 1:
        safe = np.where(valid, target, 0)
        denom = np.where(valid, w[safe], 0).sum() if weight is not None else valid.sum()
        smooth = smooth.sum() / denom
    elif reduction == 2:
        smooth = smooth.sum()
    out = (1 - label_smoothing) * nll + label_smoothing / c * smooth
    return as_array(np.asarray(out).astype(x.dtype))


def multi_margin_loss(x, target, p=1, margin=1.0, weight=None, reduction=1):
    a = x.astype(_F64)
    xb = a if a.ndim == 2 else a.reshape(1, -1)
    tb = target.reshape(-1)
    c = xb.shape[1]
    xy = xb[np.arange(xb.shape[0]), tb][:, None]
    terms = np.maximum(margin - xy + xb, 0) ** p
    if weight is not None:
        terms = terms * weight.astype(_F64)[tb][:, None]
    terms[np.arange(xb.shape[0]), tb] = 0
    per = terms.sum(axis=1) / c
    if a.ndim < 2:
        per = per.reshape(())
    return reduce_loss(per, reduction, x.dtype)


def _is_target(tb, c: int):
    """Per row of ``tb``, its labels (up to the first negative one) and the mask
    of the ``c`` classes they name."""
    out = []
    for row in tb:
        labels = []
        for t in row:
            if t < 0:
                break
            labels.append(int(t))
        mask = np.zeros(c, bool)
        mask[labels] = True
        out.append((labels, mask))
    return out


def multilabel_margin_loss(x, target, reduction=1):
    return multilabel_margin_loss_forward(x, target, reduction)[0]


def multilabel_margin_loss_forward(x, target, reduction=1):
    """``(loss, is_target)``: the multi-label margin loss, and the mask (in the
    input's dtype, the target's shape) of the classes each row's labels name."""
    a = x.astype(_F64)
    xb, tb = (a, target) if a.ndim == 2 else (a.reshape(1, -1), target.reshape(1, -1))
    n, c = xb.shape
    per = np.zeros(n)
    rows = _is_target(tb, c)
    for i, (labels, is_target) in enumerate(rows):
        for j in labels:
            per[i] += np.sum(np.maximum(1 - (xb[i, j] - xb[i, ~is_target]), 0))
    per = per / c
    if a.ndim < 2:
        per = per.reshape(())
    masks = np.array([m for _, m in rows], dtype=x.dtype).reshape(target.shape)
    return reduce_loss(per, reduction, x.dtype), masks


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    d = x1.astype(_F64) - x2 + eps
    out_ndim = max(x1.ndim, x2.ndim)
    if p == math.inf:
        r = np.max(np.abs(d), axis=-1, keepdims=keepdim)
    elif p == 0:
        r = np.sum(d != 0, axis=-1, keepdims=keepdim).astype(_F64)
    else:
        r = np.sum(np.abs(d) ** p, axis=-1, keepdims=keepdim) ** (1 / p)
    if out_ndim == 0:
        r = np.asarray(r).reshape(())
    return as_array(np.asarray(r).astype(np.result_type(x1.dtype, x2.dtype)))


def triplet_margin_loss(anchor, pos, neg, margin=1.0, p=2.0, eps=1e-6, swap=False,
                        reduction=1):
    d_ap = pairwise_distance(anchor, pos, p, eps).astype(_F64)
    d_an = pairwise_distance(anchor, neg, p, eps).astype(_F64)
    if swap:
        d_an = np.minimum(d_an, pairwise_distance(pos, neg, p, eps).astype(_F64))
    return reduce_loss(np.maximum(margin + d_ap - d_an, 0), reduction, anchor.dtype)


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    shape = broadcast_shapes(x1.shape, x2.shape)
    a = np.broadcast_to(x1.astype(_F64), shape)
    b = np.broadcast_to(x2.astype(_F64), shape)
    d = wrap_dim(dim, len(shape))
    na = np.maximum(np.sqrt(np.sum(a * a, axis=d, keepdims=True)), eps)
    nb = np.maximum(np.sqrt(np.sum(b * b, axis=d, keepdims=True)), eps)
    r = np.sum((a / na) * (b / nb), axis=d)
    return as_array(np.asarray(r).astype(np.result_type(x1.dtype, x2.dtype)))


def pdist(x, p=2.0):
    n = x.shape[0]
    i, j = np.triu_indices(n, 1)
    return pairwise_distance(x[i], x[j], p, 0.0)


def cdist(x1, x2, p=2.0, compute_mode=None):
    # torch's checks, in torch's order and words (ATen's cdist)
    for name, x in (("X1", x1), ("X2", x2)):
        if x.ndim < 2:
            raise RuntimeError(f"cdist only supports at least 2D tensors, {name} got: {x.ndim}D")
    for name, x in (("X1", x1), ("X2", x2)):
        if x.dtype.kind not in "fc":
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: "
                               f"{torch_name(x.dtype)}")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. "
                           f"X1: {x1.shape[-1]} X2: {x2.shape[-1]}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    d = x1.astype(_F64)[..., :, None, :] - x2.astype(_F64)[..., None, :, :]
    if p == math.inf:
        r = np.max(np.abs(d), axis=-1)
    elif p == 0:
        r = np.sum(d != 0, axis=-1).astype(_F64)
    else:
        r = np.sum(np.abs(d) ** p, axis=-1) ** (1 / p)
    return as_array(r.astype(np.result_type(x1.dtype, x2.dtype)))


_T, _O = "Tensor", "Tensor?"
R.implement("aten::mse_loss", mse_loss)
R.implement("aten::l1_loss", l1_loss)
R.implement("aten::smooth_l1_loss", smooth_l1_loss)
R.implement("aten::huber_loss", huber_loss)
R.implement("aten::binary_cross_entropy", binary_cross_entropy)
R.implement("aten::binary_cross_entropy_with_logits", binary_cross_entropy_with_logits)
R.implement("aten::soft_margin_loss", soft_margin_loss)
R.implement("aten::margin_ranking_loss", margin_ranking_loss)
R.implement("aten::hinge_embedding_loss", hinge_embedding_loss)
R.implement("aten::cosine_embedding_loss", cosine_embedding_loss)
R.implement("aten::poisson_nll_loss", poisson_nll_loss)
R.implement("aten::kl_div", kl_div)
for _name in ("nll_loss", "nll_loss_nd", "nll_loss2d"):
    R.implement(f"aten::{_name}", nll_loss)
for _name in ("nll_loss_forward", "nll_loss2d_forward"):
    R.implement(f"aten::{_name}", nll_loss_forward)
R.implement("aten::cross_entropy_loss", cross_entropy)
R.implement("aten::multi_margin_loss", multi_margin_loss)
R.implement("aten::multilabel_margin_loss", multilabel_margin_loss)
R.implement("aten::multilabel_margin_loss_forward", multilabel_margin_loss_forward)
for _lengths in ("int[]", _T):
    R.register("aten::ctc_loss", ctc_loss, types=[_T, _T, _lengths, _lengths, "int", "int", "bool"])
R.implement("aten::triplet_margin_loss", triplet_margin_loss)
R.implement("aten::pairwise_distance", pairwise_distance)
R.implement("aten::cosine_similarity", cosine_similarity)
R.implement("aten::pdist", pdist)
R.implement("aten::cdist", cdist)
