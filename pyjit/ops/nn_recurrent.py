"""Recurrent layers: ``rnn_tanh``, ``rnn_relu``, ``gru`` and ``lstm``, the kernels
``nn.RNN``, ``nn.GRU`` and ``nn.LSTM`` call, on padded input (``.input``: a
``(T, B, F)`` tensor, ``(B, T, F)`` when ``batch_first``) or packed input
(``.data``: the rows of a ``PackedSequence`` and its batch sizes).

``params`` holds, for each layer and direction, ``w_ih, w_hh`` (and ``b_ih,
b_hh`` when ``has_biases``; and an LSTM's projection ``w_hr`` when it has one),
as torch's ``_flat_weights`` lists them; ``hx`` is ``(layers * directions, B,
H)`` (for an LSTM the pair ``[h0, c0]``).  One step of each cell, with
``gi = x @ w_ih.T + b_ih`` and ``gh = h @ w_hh.T + b_hh``::

    rnn:   h' = tanh(gi + gh)             (relu for rnn_relu)
    lstm:  i, f, g, o = gi + gh           c' = σ(f) c + σ(i) tanh(g)
                                          h' = σ(o) tanh(c')   (@ w_hr.T if projected)
    gru:   r = σ(gi_r + gh_r)  z = σ(gi_z + gh_z)  n = tanh(gi_n + r gh_n)
                                          h' = (h - n) z + n

Packed input runs each step on the first ``batch_sizes[t]`` rows (sequences
sorted longest first), so a shorter sequence's final state is its own last
step's.  Either form is, to the kernels, the rows of every step one after the
other and the steps' row counts.  Every step's input projection is one GEMM
(BLAS) before the recurrence; the recurrence itself, one direction of one
layer at a time, is :func:`.kernels.recurrent_layer_numpy` or its compiled
twin, which runs every step in C with no Python between steps (the step's
product with ``w_hh``, then each row's gates in one vectorised pass: the
LSTM of ``pyjit bench --models`` went from 3.0x torch eager's time to 0.7x).
A float32 recurrence computes in float32, as torch's does; any other in
float64 (on the numpy reference), the results in the input's dtype.  Dropout
between layers applies only in training, which pyjit never runs: ``train``
with a non-zero ``dropout`` is refused.
"""

from __future__ import annotations

from typing import List, Sequence, Tuple

import numpy as np

from ..registry import library as R
from . import kernels
from .dims import as_array

__all__ = ["rnn"]


#: Which steps the compiled recurrence takes: those of at most COMPILED_MAX_ROWS
#: rows (sequences), or of at most COMPILED_STEP_LIMIT multiply-adds in their
#: product with the recurrent weight (rows x P x gates x H).  Its product reads
#: each row of the weight once per step for all the rows, so it keeps up with
#: BLAS while the rows are few (one thread, 16 steps: an LSTM of 1024 units on
#: 2 rows in 0.16x the time of the numpy reference, of 256 on 32 rows 0.73x);
#: with many, BLAS's register blocking wins (128 rows of 64: 1.28x, 64 of 512:
#: 1.5x), and the reference's GEMM per step is numpy's.
COMPILED_MAX_ROWS = 32
COMPILED_STEP_LIMIT = 1 << 20


def _layer(mode: str, x, sizes, h0, c0, weights: Sequence[np.ndarray], has_biases: bool,
           reverse: bool):
    """One direction of one layer over the rows ``x`` (``(R, F)``, the ``sizes[t]``
    rows of each step in turn, non-increasing): its output rows ``(R, P)`` and
    final ``h`` and ``c``, in ``x``'s dtype (float32 or float64)."""
    w_ih, w_hh = weights[0], weights[1]
    b_ih, b_hh = (weights[2], weights[3]) if has_biases else (None, None)
    w_hr = weights[4 if has_biases else 2] if len(weights) > (4 if has_biases else 2) else None
    # every step's input projection in one GEMM, as torch's kernels make it
    gi = _projection(x, w_ih, b_ih)
    h = np.array(h0, order="C")
    c = None if c0 is None else np.array(c0, order="C")
    out = np.empty((x.shape[0], h.shape[1]), x.dtype)
    c_ = np.ascontiguousarray
    _kernels_for(x, h.shape[0], w_hh).recurrent_layer(
        mode, c_(gi), sizes, c_(w_hh), None if b_hh is None else c_(b_hh),
        None if w_hr is None else c_(w_hr), h, c, out, reverse)
    return out, h, c


#: A float32 input projection of at most this many rows and terms is made as
#: ``(w_ih @ x.T).T``, written into a C-ordered result: OpenBLAS multiplies by
#: a transposed weight slowly when K is short (one thread, the 32 steps of an
#: LSTM of 64: 18.0 -> 10.9 us, of a GRU 14.0 -> 8.4; 128 rows or 256 terms:
#: no gain).
SHORT_PROJECTION = 64


def _projection(x, w_ih, b_ih=None):
    """``x @ w_ih.T + b_ih``: every step's input projection, ``(R, G*H)``,
    C-ordered (``b_ih`` None: none)."""
    if x.ndim == 2 and w_ih.ndim == 2 and kernels.is_float32(x, w_ih, b_ih):
        if kernels.OWN_GEMM_EVERYWHERE:   # the bias the sums' start (kernels.matmul)
            return kernels.matmul(x, w_ih.T, b_ih)
        if x.shape[0] <= SHORT_PROJECTION and x.shape[1] <= SHORT_PROJECTION:
            out = np.empty((x.shape[0], w_ih.shape[0]), np.float32)
            np.matmul(w_ih, np.ascontiguousarray(x.T), out=out.T)
            return out if b_ih is None else np.add(out, b_ih, out=out)
    out = x @ w_ih.T
    return out if b_ih is None else np.add(out, b_ih, out=out)


def _kernels_for(x, rows: int, w_hh):
    """The kernel set whose ``recurrent_layer`` runs steps of ``rows`` rows of
    ``x``'s dtype: the active set for float32 within the limits above, else the
    numpy reference."""
    if kernels.is_float32(x) and kernels.ACTIVE is not kernels.NUMPY and (
            rows <= COMPILED_MAX_ROWS or
            rows * w_hh.shape[0] * w_hh.shape[1] <= COMPILED_STEP_LIMIT):
        return kernels.ACTIVE
    return kernels.NUMPY


def _work_dtype(*groups) -> type:
    """float32 when every array is float32 (torch computes float32 recurrences in
    float32), else float64."""
    return np.float32 if all(kernels.is_float32(*g) for g in groups) else np.float64


def rnn(mode: str, x: np.ndarray, sizes: np.ndarray, hx: List[np.ndarray],
        params: Sequence[np.ndarray], has_biases: bool, num_layers: int, dropout: float,
        train: bool, bidirectional: bool) -> Tuple[np.ndarray, List[np.ndarray]]:
    """The stacked, possibly bidirectional recurrence over the rows ``x``
    (``(R, F)``: the ``sizes[t]`` rows of step ``t`` after those of the steps
    before it): the top layer's output rows (``(R, directions * P)``), and the
    final states (``[h]``, or ``[h, c]`` for an LSTM)."""
    if train and dropout:
        raise ValueError(f"{mode}: dropout between layers in training mode needs a random "
                         "generator; pyjit runs models in eval mode")
    dirs = 2 if bidirectional else 1
    per = len(params) // (num_layers * dirs)
    work = _work_dtype([x], hx, params)
    x = x.astype(work, copy=False)
    sizes = np.asarray(sizes, np.intp)
    h_all = hx[0].astype(work)
    c_all = hx[1].astype(work) if len(hx) > 1 else None
    h_out, c_out = np.empty_like(h_all), None if c_all is None else np.empty_like(c_all)
    for layer in range(num_layers):
        results = []
        for d in range(dirs):
            k = layer * dirs + d
            weights = [p.astype(work, copy=False) for p in params[k * per:(k + 1) * per]]
            out, h, c = _layer(mode, x, sizes, h_all[k], None if c_all is None else c_all[k],
                               weights, has_biases, reverse=d == 1)
            h_out[k] = h
            if c is not None:
                c_out[k] = c
            results.append(out)
        x = results[0] if dirs == 1 else np.concatenate(results, axis=1)
    return x, [h_out] if c_out is None else [h_out, c_out]


def _padded(mode: str):
    def run(x, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first):
        hx = list(hx) if isinstance(hx, (list, tuple)) else [hx]
        xs = np.swapaxes(x, 0, 1) if batch_first else x      # (T, B, F)
        steps, batch = xs.shape[0], xs.shape[1]
        rows, states = rnn(mode, np.reshape(xs, (steps * batch, xs.shape[2])),
                           np.full(steps, batch, np.intp), hx, params, has_biases, num_layers,
                           dropout, train, bidirectional)
        out = rows.reshape(steps, batch, rows.shape[1])
        out = np.swapaxes(out, 0, 1) if batch_first else out
        return (as_array(out.astype(x.dtype, copy=False)),) + tuple(
            as_array(s.astype(x.dtype, copy=False)) for s in states)
    run.__name__ = mode
    return run


def _packed(mode: str):
    def run(data, batch_sizes, hx, params, has_biases, num_layers, dropout, train,
            bidirectional):
        hx = list(hx) if isinstance(hx, (list, tuple)) else [hx]
        sizes = np.array([int(n) for n in batch_sizes], np.intp)
        rows, states = rnn(mode, data, sizes, hx, params, has_biases, num_layers, dropout,
                           train, bidirectional)
        return (as_array(rows.astype(data.dtype, copy=False)),) + tuple(
            as_array(s.astype(data.dtype, copy=False)) for s in states)
    run.__name__ = f"{mode}_packed"
    return run


_T, _L = "Tensor", "Tensor[]"
_FLAGS = ["bool", "int", "float", "bool", "bool"]
for _mode in ("rnn_tanh", "rnn_relu", "gru", "lstm"):
    _h = _L if _mode == "lstm" else _T
    R.register(f"aten::{_mode}", _padded(_mode), types=[_T, _h, _L] + _FLAGS + ["bool"])
    R.register(f"aten::{_mode}", _packed(_mode), types=[_T, _T, _h, _L] + _FLAGS)


def cell(mode: str):
    """``aten::<mode>_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None)``: one
    step of ``mode`` (``lstm``'s ``hx`` is ``[h, c]`` and it returns ``(h', c')``),
    as :func:`rnn` makes it: a recurrence of one step, on the same kernels; an
    unbatched (1-d) input gives an unbatched result."""
    def op(x, hx, w_ih, w_hh, b_ih=None, b_hh=None):
        h, c = (hx[0], hx[1]) if mode == "lstm" else (hx, None)
        unbatched = x.ndim == 1
        if unbatched:
            x, h = x[None], h[None]
            c = c[None] if c is not None else None
        dtype, work = x.dtype, _work_dtype([x, h, c, w_ih, w_hh, b_ih, b_hh])
        x, w_ih, w_hh = (a.astype(work, copy=False) for a in (x, w_ih, w_hh))
        gi = _projection(x, w_ih, None if b_ih is None else b_ih.astype(work, copy=False))
        h2 = np.array(h, work, order="C")            # the kernel updates the state
        c2 = None if c is None else np.array(c, work, order="C")
        out = np.empty_like(h2)
        c_ = np.ascontiguousarray
        _kernels_for(gi, h2.shape[0], w_hh).recurrent_layer(
            mode, c_(gi), np.array([h2.shape[0]], np.intp), c_(w_hh),
            None if b_hh is None else c_(b_hh.astype(work, copy=False)), None, h2, c2, out,
            False)
        results = [np.asarray(v, dtype=dtype) for v in ((out, c2) if mode == "lstm" else (out,))]
        if unbatched:
            results = [v[0] for v in results]
        return tuple(results) if mode == "lstm" else results[0]
    return op


for _mode in ("rnn_tanh", "rnn_relu", "gru", "lstm"):
    R.implement(f"aten::{_mode}_cell", cell(_mode))
