"""Normalization layers: batch, instance, layer, group and RMS normalization.

A float32 tensor is computed in float32 by :mod:`.kernels` (statistics summed
in double, inference batch norm one pass ``x * scale + shift``); other dtypes
have their statistics computed in double and the result rounded once to the
input's dtype.  Variances are biased (divided by n), as torch's normalizations use them.
``batch_norm`` with ``training=False`` and running statistics is inference;
with ``training=True`` it normalizes by the batch statistics and, like torch,
updates the running statistics in place (``momentum``, the running variance
unbiased).  The ``native_*`` forms also return the saved mean and inverse
standard deviation torch returns.
"""

from __future__ import annotations

import math

from typing import Optional, Sequence

import numpy as np

from ..registry import library as R
from . import kernels
from .dims import as_array

__all__ = ["batch_norm", "layer_norm", "group_norm"]


def _channel_shape(x: np.ndarray) -> tuple:
    return (1, -1) + (1,) * (x.ndim - 2)


def _affine(y: np.ndarray, x: np.ndarray, weight, bias, shape) -> np.ndarray:
    if weight is not None:
        y = y * weight.reshape(shape)
    if bias is not None:
        y = y + bias.reshape(shape)
    return as_array(y.astype(x.dtype))


def _batch_stats(x, running_mean, running_var, training, momentum, eps):
    axes = (0,) + tuple(range(2, x.ndim))
    xd = x.astype(np.float64)
    if training or running_mean is None:
        n = x.size // x.shape[1]
        if n <= 1 and training:
            raise ValueError(f"Expected more than 1 value per channel when training, got input "
                             f"size {list(x.shape)}")
        mean = xd.mean(axis=axes)
        var = xd.var(axis=axes)
        if training and running_mean is not None:
            running_mean[...] = (1 - momentum) * running_mean + momentum * mean
        if training and running_var is not None:
            running_var[...] = (1 - momentum) * running_var + momentum * var * n / max(n - 1, 1)
        return mean, var, True
    return running_mean.astype(np.float64), running_var.astype(np.float64), False


def batch_norm(x, weight, bias, running_mean, running_var, training, momentum, eps,
               cudnn_enabled=True):
    if x.ndim < 2:
        raise ValueError(f"batch_norm: expected at least 2D input (got {x.ndim}D input)")
    if not training and running_mean is not None and x.size and \
            kernels.is_float32(x, weight, bias, running_mean, running_var):
        return kernels.batch_norm_inference(x, weight, bias, running_mean, running_var, eps)
    mean, var, _ = _batch_stats(x, running_mean, running_var, training, momentum, eps)
    shape = _channel_shape(x)
    y = (x.astype(np.float64) - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + eps)
    return _affine(y, x, weight, bias, shape)


def native_batch_norm(x, weight, bias, running_mean, running_var, training, momentum, eps):
    mean, var, batch = _batch_stats(x, running_mean, running_var, training, momentum, eps)
    out = batch_norm(x, weight, bias, None if batch else running_mean,
                     None if batch else running_var, False, momentum, eps)
    if training:
        return out, as_array(mean.astype(x.dtype)), as_array((1 / np.sqrt(var + eps)).astype(
            x.dtype))
    return out, np.zeros(0, x.dtype), np.zeros(0, x.dtype)


def instance_norm(x, weight, bias, running_mean, running_var, use_input_stats, momentum, eps,
                  cudnn_enabled=True):
    axes = tuple(range(2, x.ndim))
    xd = x.astype(np.float64)
    if use_input_stats or running_mean is None:
        mean = xd.mean(axis=axes, keepdims=True)
        var = xd.var(axis=axes, keepdims=True)
    else:
        mean = running_mean.astype(np.float64).reshape(_channel_shape(x))
        var = running_var.astype(np.float64).reshape(_channel_shape(x))
    y = (xd - mean) / np.sqrt(var + eps)
    return _affine(y, x, weight, bias, _channel_shape(x))


def _layer_axes(x, normalized_shape: Sequence[int], name="layer_norm"):
    n = len(normalized_shape)
    if tuple(x.shape[x.ndim - n:]) != tuple(normalized_shape) or n > x.ndim:
        raise ValueError(f"Given normalized_shape={list(normalized_shape)}, expected input with "
                         f"shape [*, {', '.join(map(str, normalized_shape))}], but got input of "
                         f"size{list(x.shape)}")
    return tuple(range(x.ndim - n, x.ndim))


def layer_norm(x, normalized_shape, weight=None, bias=None, eps=1e-5, cudnn_enable=True):
    if x.size and kernels.is_float32(x, weight, bias):
        # (the float32 kernel's output alone: no statistics to round and shape)
        _layer_axes(x, normalized_shape)
        return kernels.layer_norm(x, math.prod(normalized_shape), weight, bias, eps)[0]
    return native_layer_norm(x, normalized_shape, weight, bias, eps)[0]


def native_layer_norm(x, normalized_shape, weight, bias, eps):
    axes = _layer_axes(x, normalized_shape)
    if x.size and kernels.is_float32(x, weight, bias):
        y, mean, rstd = kernels.layer_norm(x, math.prod(normalized_shape), weight, bias, eps)
        stats = x.shape[:x.ndim - len(axes)] + (1,) * len(axes)
        return (y, as_array(mean.astype(x.dtype).reshape(stats)),
                as_array(rstd.astype(x.dtype).reshape(stats)))
    xd = x.astype(np.float64)
    mean = xd.mean(axis=axes, keepdims=True)
    var = xd.var(axis=axes, keepdims=True)
    rstd = 1 / np.sqrt(var + eps)
    y = (xd - mean) * rstd
    shape = tuple(normalized_shape)
    if weight is not None:
        y = y * weight.reshape(shape)
    if bias is not None:
        y = y + bias.reshape(shape)
    return (as_array(y.astype(x.dtype)), as_array(mean.astype(x.dtype)),
            as_array(rstd.astype(x.dtype)))


def native_group_norm(x, weight, bias, n: int, c: int, hw: int, groups: int, eps: float):
    if c % groups:
        raise ValueError(f"Expected number of channels in input to be divisible by num_groups, "
                         f"but got input of shape {list(x.shape)} and num_groups={groups}")
    if x.size and kernels.is_float32(x, weight, bias):
        out, mean, rstd = kernels.group_norm(x, groups, weight, bias, eps)
        return out, as_array(mean.astype(x.dtype)), as_array(rstd.astype(x.dtype))
    # the group's size, not -1, which numpy cannot infer for an empty batch (a
    # head's GroupNorm on the regions of an image with no detections)
    xd = x.astype(np.float64).reshape(n, groups, (c // groups) * hw)
    mean = xd.mean(axis=-1, keepdims=True)
    var = xd.var(axis=-1, keepdims=True)
    rstd = 1 / np.sqrt(var + eps)
    y = ((xd - mean) * rstd).reshape(x.shape)
    out = _affine(y, x, weight, bias, _channel_shape(x))
    return (out, as_array(mean.reshape(n, groups).astype(x.dtype)),
            as_array(rstd.reshape(n, groups).astype(x.dtype)))


def group_norm(x, groups: int, weight=None, bias=None, eps=1e-5, cudnn_enabled=True):
    n, c = x.shape[:2]
    return native_group_norm(x, weight, bias, n, c, int(np.prod(x.shape[2:])), groups, eps)[0]


def rms_norm(x, normalized_shape, weight=None, eps: Optional[float] = None):
    axes = _layer_axes(x, normalized_shape, "rms_norm")
    if eps is None:
        eps = float(np.finfo(x.dtype).eps)
    xd = x.astype(np.float64)
    y = xd / np.sqrt(np.mean(xd * xd, axis=axes, keepdims=True) + eps)
    if weight is not None:
        y = y * weight
    return as_array(y.astype(x.dtype))


_T, _O = "Tensor", "Tensor?"
R.implement("aten::batch_norm", batch_norm)
R.implement("aten::native_batch_norm", native_batch_norm)
R.implement("aten::_native_batch_norm_legit", native_batch_norm)
R.implement("aten::_native_batch_norm_legit.no_stats",
            lambda x, w, b, training, momentum, eps: native_batch_norm(x, w, b, None, None,
                                                                       True, momentum, eps))
R.implement("aten::instance_norm", instance_norm)
R.implement("aten::layer_norm", layer_norm)
R.implement("aten::native_layer_norm", native_layer_norm)
R.implement("aten::group_norm", group_norm)
R.implement("aten::native_group_norm", native_group_norm)
R.implement("aten::rms_norm", rms_norm)


def batch_norm_update_stats(x, running_mean, running_var, momentum: float):
    """``(mean, var)`` of each channel (dimension 1) of ``x``, the variance biased,
    and the running statistics moved towards them in place (the variance's
    unbiased estimate), as batch norm in training does."""
    axes = tuple(d for d in range(x.ndim) if d != 1)
    x64 = x.astype(np.float64)
    mean = x64.mean(axis=axes)
    var = x64.var(axis=axes)
    n = x.size // x.shape[1] if x.shape[1] else 0
    if running_mean is not None:
        running_mean[...] = (1 - momentum) * running_mean + momentum * mean
    if running_var is not None:
        unbiased = var * n / (n - 1) if n > 1 else np.full_like(var, np.nan)
        running_var[...] = (1 - momentum) * running_var + momentum * unbiased
    return as_array(mean.astype(x.dtype)), as_array(var.astype(x.dtype))


R.implement("aten::batch_norm_update_stats", batch_norm_update_stats)
