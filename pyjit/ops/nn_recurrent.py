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
                                          h' = (1 - z) n + z h

Packed input runs each step on the first ``batch_sizes[t]`` rows (sequences
sorted longest first), so a shorter sequence's final state is its own last
step's.  Every step's input projection is one GEMM before the recurrence.  A
float32 recurrence computes in float32, as torch's does (an LSTM step's gates in
one pass of :func:`.kernels.lstm_step`); any other in float64, the results in
the input's dtype.  Dropout
between layers applies only in training, which pyjit never runs: ``train``
with a non-zero ``dropout`` is refused.
"""

from __future__ import annotations

from typing import List, Optional, Sequence, Tuple

import numpy as np

from ..registry import library as R
from . import kernels
from .dims import as_array

__all__ = ["rnn", "FAMILY"]


def _sigmoid(x):
    if kernels.is_float32(x):
        return kernels.pointwise("sigmoid", x)
    return 1 / (1 + np.exp(-x))


def _cell(mode: str):
    """The step function ``(gi, gh, h, c) -> (h', c')`` of ``mode``; gates are
    column slices of ``gi + gh`` (one sigmoid over all of an LSTM's)."""
    if mode in ("rnn_tanh", "rnn_relu"):
        act = np.tanh if mode == "rnn_tanh" else (lambda v: np.maximum(v, 0))
        return lambda gi, gh, h, c: (act(gi + gh), None)
    if mode == "lstm":
        def lstm(gi, gh, h, c):
            if kernels.is_float32(gi, gh, c) and c.flags.c_contiguous:
                return kernels.lstm_step(gi, gh, c), c   # c updated in place
            gates = gi + gh
            n = gates.shape[-1] // 4
            s = _sigmoid(gates)   # i, f, o: the g columns are computed and not used
            c2 = s[:, n:2 * n] * c + s[:, :n] * np.tanh(gates[:, 2 * n:3 * n])
            return s[:, 3 * n:] * np.tanh(c2), c2
        return lstm

    def gru(gi, gh, h, c):
        n = gi.shape[-1] // 3
        rz = _sigmoid(gi[:, :2 * n] + gh[:, :2 * n])
        r, z = rz[:, :n], rz[:, n:]
        cand = np.tanh(gi[:, 2 * n:] + r * gh[:, 2 * n:])
        return (1 - z) * cand + z * h, None
    return gru


def _layer(steps: List[np.ndarray], h0, c0, weights: Sequence[np.ndarray], has_biases: bool,
           step, reverse: bool):
    """One direction of one layer over ``steps`` (row counts non-increasing):
    the outputs per step and the final ``h`` and ``c``."""
    w_ih, w_hh = weights[0], weights[1]
    b_ih, b_hh = (weights[2], weights[3]) if has_biases else (0, 0)
    w_hr = weights[4 if has_biases else 2] if len(weights) > (4 if has_biases else 2) else None
    h, c = h0.copy(), None if c0 is None else c0.copy()
    outs: List[Optional[np.ndarray]] = [None] * len(steps)
    order = range(len(steps) - 1, -1, -1) if reverse else range(len(steps))
    # every step's input projection in one GEMM, as torch's kernels make it
    bounds = np.cumsum([0] + [x.shape[0] for x in steps])
    gi_all = np.concatenate(steps) @ w_ih.T + b_ih
    w_hh_t = np.ascontiguousarray(w_hh.T)
    for t in order:
        n = steps[t].shape[0]
        gi = gi_all[bounds[t]:bounds[t + 1]]
        gh = h[:n] @ w_hh_t + b_hh
        hn, cn = step(gi, gh, h[:n], None if c is None else c[:n])
        if w_hr is not None:
            hn = hn @ w_hr.T
        h[:n] = hn
        if c is not None:
            c[:n] = cn
        outs[t] = hn
    return outs, h, c


def _work_dtype(*groups) -> type:
    """float32 when every array is float32 (torch computes float32 recurrences in
    float32), else float64."""
    return np.float32 if all(kernels.is_float32(*g) for g in groups) else np.float64


def rnn(mode: str, steps: List[np.ndarray], hx: List[np.ndarray], params: Sequence[np.ndarray],
        has_biases: bool, num_layers: int, dropout: float, train: bool,
        bidirectional: bool) -> Tuple[List[np.ndarray], List[np.ndarray]]:
    """The stacked, possibly bidirectional recurrence over ``steps`` (arrays of
    the rows of each time step): the top layer's outputs per step, and the
    final states (``[h]``, or ``[h, c]`` for an LSTM)."""
    if train and dropout:
        raise ValueError(f"{mode}: dropout between layers in training mode needs a random "
                         "generator; pyjit runs models in eval mode")
    dirs = 2 if bidirectional else 1
    per = len(params) // (num_layers * dirs)
    step = _cell(mode)
    work = _work_dtype(steps, hx, params)
    steps = [x.astype(work, copy=False) for x in steps]
    h_all = hx[0].astype(work)
    c_all = hx[1].astype(work) if len(hx) > 1 else None
    h_out, c_out = np.empty_like(h_all), None if c_all is None else np.empty_like(c_all)
    for layer in range(num_layers):
        results = []
        for d in range(dirs):
            k = layer * dirs + d
            weights = [p.astype(work, copy=False) for p in params[k * per:(k + 1) * per]]
            outs, h, c = _layer(steps, h_all[k], None if c_all is None else c_all[k], weights,
                                has_biases, step, reverse=d == 1)
            h_out[k] = h
            if c is not None:
                c_out[k] = c
            results.append(outs)
        steps = [np.concatenate([r[t] for r in results], axis=-1) for t in range(len(steps))]
    return steps, [h_out] if c_out is None else [h_out, c_out]


def _padded(mode: str):
    def run(x, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first):
        hx = list(hx) if isinstance(hx, (list, tuple)) else [hx]
        xs = np.swapaxes(x, 0, 1) if batch_first else x
        outs, states = rnn(mode, list(xs), hx, params, has_biases, num_layers, dropout, train,
                           bidirectional)
        out = np.stack(outs)
        out = np.swapaxes(out, 0, 1) if batch_first else out
        return (as_array(out.astype(x.dtype, copy=False)),) + tuple(
            as_array(s.astype(x.dtype, copy=False)) for s in states)
    run.__name__ = mode
    return run


def _packed(mode: str):
    def run(data, batch_sizes, hx, params, has_biases, num_layers, dropout, train,
            bidirectional):
        hx = list(hx) if isinstance(hx, (list, tuple)) else [hx]
        sizes = [int(n) for n in batch_sizes]
        bounds = np.cumsum([0] + sizes)
        steps = [data[a:b] for a, b in zip(bounds[:-1], bounds[1:])]
        outs, states = rnn(mode, steps, hx, params, has_biases, num_layers, dropout, train,
                           bidirectional)
        return (as_array(np.concatenate(outs).astype(data.dtype, copy=False)),) + tuple(
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
    step of ``mode`` (``lstm``'s ``hx`` is ``[h, c]`` and it returns ``(h', c')``);
    an unbatched (1-d) input gives an unbatched result."""
    step = _cell(mode)

    def op(x, hx, w_ih, w_hh, b_ih=None, b_hh=None):
        h, c = (hx[0], hx[1].copy()) if mode == "lstm" else (hx, None)   # the step writes c
        unbatched = x.ndim == 1
        if unbatched:
            x, h = x[None], h[None]
            c = c[None] if c is not None else None
        gi = x @ w_ih.T + (b_ih if b_ih is not None else 0)
        gh = h @ w_hh.T + (b_hh if b_hh is not None else 0)
        h2, c2 = step(np.ascontiguousarray(gi), np.ascontiguousarray(gh), h, c)
        out = [np.asarray(v, dtype=x.dtype)[0] if unbatched else np.asarray(v, dtype=x.dtype)
               for v in ((h2, c2) if mode == "lstm" else (h2,))]
        return tuple(out) if mode == "lstm" else out[0]
    return op


for _mode in ("rnn_tanh", "rnn_relu", "gru", "lstm"):
    R.register(f"aten::{_mode}_cell", cell(_mode),
               types=[_T, _L if _mode == "lstm" else _T, _T, _T, "Tensor?", "Tensor?"])

#: The family's operator names, for ``pyjit info --ops``.
FAMILY = sorted(["rnn_tanh", "rnn_relu", "gru", "lstm", "rnn_tanh_cell", "rnn_relu_cell",
                 "gru_cell", "lstm_cell"])
