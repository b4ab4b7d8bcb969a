"""Attention: ``scaled_dot_product_attention``, and the fused kernels torch's
``nn.MultiheadAttention`` and ``nn.TransformerEncoderLayer`` call on their fast path
(``_native_multi_head_attention``, ``_transformer_encoder_layer_fwd``), which
their scripted ``forward`` chooses in eval mode when no input requires a
gradient -- always, for numpy arrays.

Each computes what torch's kernel computes: float32 inputs in float32, as
torch does (float32 matrix products, the softmax of :mod:`.kernels`), other
dtypes with the matrix products and the softmax in float64 first; the fused
layer is exactly the slow path's composition::

    x = src (+ self-attention of norm1(src) when norm_first)
    x = norm1(src + attention(src))          # post-norm, the default
    x = norm2(x + linear2(act(linear1(x))))

A mask is added to the attention scores: ``mask_type`` 0 is a ``(T, T)``
attention mask, 1 a ``(B, T)`` key padding mask, 2 one of the full
``(B, H, T, T)`` shape (torch's ``merge_masks`` has made it a float mask with
``-inf`` where attention is not allowed).  A query whose every key is masked
gets weights 0 (its attention output is 0, before the output projection), as in
torch's CPU kernels, fused or ``scaled_dot_product_attention``.
"""

from __future__ import annotations

import math

import numpy as np

from ..registry import library as R
from . import kernels
from .activations import _gelu, softmax
from .dims import as_array
from .nn_layers import linear
from .nn_norm import layer_norm

__all__ = ["scaled_dot_product_attention", "native_multi_head_attention",
           "transformer_encoder_layer_fwd"]


def _product(a, b):
    """``a @ b`` per head: float32 by :func:`.kernels.matmul_stack`, other dtypes
    by numpy."""
    if kernels.is_float32(a, b):
        return kernels.matmul_stack(a, b)
    return np.matmul(a, b)


def _attend(q, k, v, mask=None, scale=None, is_causal=False):
    """``softmax(q @ kᵀ * scale + mask) @ v`` over the last two dimensions, and
    the attention weights; a query that may attend to nothing gets weights 0
    rather than NaN, as torch's CPU kernels give it."""
    work = np.float32 if kernels.is_float32(q, k, v) and (
        mask is None or mask.dtype in (np.bool_, np.float32)) else np.float64
    qd, kd, vd = (t.astype(work, copy=False) for t in (q, k, v))
    scale = 1 / math.sqrt(q.shape[-1]) if scale is None else scale
    scores = _product(qd, np.swapaxes(kd, -1, -2))
    scores *= work(scale)
    if is_causal:
        t, s = scores.shape[-2:]
        scores = np.where(np.tril(np.ones((t, s), bool)), scores, -np.inf)
    if mask is not None:
        scores = np.where(mask, scores, -np.inf) if mask.dtype == np.bool_ else scores + mask
    weights = softmax(scores, -1)
    if mask is not None or is_causal:
        weights = np.where(np.isneginf(scores).all(axis=-1, keepdims=True), 0.0, weights)
    return _product(weights, vd), weights


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None, enable_gqa=False):
    """``aten::scaled_dot_product_attention`` (dropout is only applied in training,
    which pyjit never is: ``dropout_p`` must be 0)."""
    if dropout_p:
        raise ValueError("scaled_dot_product_attention: dropout_p > 0 needs a random "
                         "generator in training mode; pyjit runs models in eval mode")
    out, _ = _attend(query, key, value, attn_mask, scale, is_causal)
    return as_array(out.astype(query.dtype, copy=False))


def _heads(x, n_heads):
    b, t, e = x.shape
    return x.reshape(b, t, n_heads, e // n_heads).transpose(0, 2, 1, 3)


def _mask_for(mask, mask_type, b, t):
    if mask is None:
        return None
    if mask_type == 1 or (mask_type is None and mask.ndim == 2 and mask.shape == (b, t)
                          and b != t):
        return mask.reshape(b, 1, 1, -1)
    return mask


def native_multi_head_attention(query, key, value, embed_dim: int, num_head: int, qkv_weight,
                                qkv_bias, proj_weight, proj_bias, mask=None,
                                need_weights=True, average_attn_weights=True, mask_type=None):
    """``aten::_native_multi_head_attention`` on ``(B, T, E)`` inputs: the packed input
    projection, attention per head, the output projection; and the attention
    weights (averaged over the heads) when ``need_weights``."""
    if query.ndim != 3:
        raise ValueError(f"expected query to be 3-D (batch, sequence, embedding), got "
                         f"{query.ndim}-D")
    e = embed_dim
    if query is key and key is value and mask is None and not need_weights and \
            kernels.is_float32(query, qkv_weight, qkv_bias, proj_weight, proj_bias) and \
            e % num_head == 0 and query.shape[-1] == e:
        return as_array(_self_attention(query, num_head, qkv_weight, qkv_bias, proj_weight,
                                        proj_bias)), np.empty((0,), query.dtype)
    if query is key and key is value:
        # self-attention: one packed projection, then its three thirds, as
        # torch's kernel makes it (each output is the same dot product)
        q, k, v = np.split(linear(query, qkv_weight, qkv_bias), 3, axis=-1)
    else:
        wq, wk, wv = np.split(qkv_weight, 3)
        bq, bk, bv = np.split(qkv_bias, 3)
        q, k, v = linear(query, wq, bq), linear(key, wk, bk), linear(value, wv, bv)
    b, t, _ = q.shape
    out, weights = _attend(_heads(q, num_head), _heads(k, num_head), _heads(v, num_head),
                           _mask_for(mask, mask_type, b, k.shape[1]))
    out = out.transpose(0, 2, 1, 3).reshape(b, t, e).astype(query.dtype, copy=False)
    out = linear(out, proj_weight, proj_bias)
    if not need_weights:
        return as_array(out), np.empty((0,), query.dtype)
    w = weights.mean(axis=1) if average_attn_weights else weights
    return as_array(out), as_array(w.astype(query.dtype))


def _self_attention(x, num_head: int, qkv_weight, qkv_bias, proj_weight, proj_bias):
    """float32 self-attention with no mask, the values of the general path
    (the same products, scaling and softmax, in the same order) by fewer numpy
    calls: the packed projection viewed as (q, k, v) by head, the softmax in
    place over the scores' rows.  Its Python was a sixth of a 49-token
    MultiheadAttention (189 -> 159 us)."""
    b, t, e = x.shape
    d = e // num_head
    qkv = linear(x, qkv_weight, qkv_bias).reshape(b, t, 3, num_head, d).transpose(2, 0, 3, 1, 4)
    scores = _product(qkv[0], np.swapaxes(qkv[1], -1, -2))
    scores *= np.float32(1 / math.sqrt(d))
    rows = scores.reshape(-1, t)
    kernels.ACTIVE.softmax_rows(rows, rows, False)
    out = _product(scores, qkv[2]).transpose(0, 2, 1, 3).reshape(b, t, e)
    return linear(out, proj_weight, proj_bias)


def transformer_encoder_layer_fwd(src, embed_dim: int, num_heads: int, qkv_weight, qkv_bias,
                                  proj_weight, proj_bias, use_gelu: bool, norm_first: bool,
                                  eps: float, norm_weight_1, norm_bias_1, norm_weight_2,
                                  norm_bias_2, ffn_weight_1, ffn_bias_1, ffn_weight_2,
                                  ffn_bias_2, mask=None, mask_type=None):
    """``aten::_transformer_encoder_layer_fwd``: a whole encoder layer in eval mode."""
    shape = [embed_dim]
    x = layer_norm(src, shape, norm_weight_1, norm_bias_1, eps) if norm_first else src
    x = native_multi_head_attention(x, x, x, embed_dim, num_heads, qkv_weight, qkv_bias,
                                    proj_weight, proj_bias, mask, False, True, mask_type)[0]
    x = x + src
    if not norm_first:
        x = layer_norm(x, shape, norm_weight_1, norm_bias_1, eps)
    residual = x
    if norm_first:
        x = layer_norm(x, shape, norm_weight_2, norm_bias_2, eps)
    h = linear(x, ffn_weight_1, ffn_bias_1)
    h = _gelu(h) if use_gelu else np.maximum(h, 0).astype(h.dtype)
    x = linear(h, ffn_weight_2, ffn_bias_2) + residual
    if not norm_first:
        x = layer_norm(x, shape, norm_weight_2, norm_bias_2, eps)
    return as_array(x)


_T, _OT = "Tensor", "Tensor?"
R.implement("aten::scaled_dot_product_attention", scaled_dot_product_attention)
R.implement("aten::_native_multi_head_attention", native_multi_head_attention)
R.register("aten::_transformer_encoder_layer_fwd", transformer_encoder_layer_fwd,
           types=[_T, "int", "int"] + [_T] * 4 + ["bool", "bool", "float"] + [_T] * 8 +
           [_OT, "int?"])
