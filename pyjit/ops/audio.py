"""torchaudio's operators (``torch.ops.torchaudio``) that its scripted functions
call: ``_overdrive_core_loop``.

torchaudio writes the sample-by-sample recurrences of its effects twice, as a
Python loop and as a C++ kernel, and its functions call the kernel when the
extension is built (``torchaudio.functional.overdrive`` scripts to
``torchaudio::_overdrive_core_loop(waveform, temp, last_in, last_out, output)``,
which fills ``output`` and leaves the filter's state in ``last_in``/``last_out``).
What is here is the kernel, with its rounding: the state is kept in the
waveform's dtype between samples, and each step computes in double where the
kernel's double constants (``0.995``, ``0.5``, ``0.75``) promote it::

    last_out = (temp[c, i] - last_in)  +  0.995 * last_out      (float, then double)
    last_in  = temp[c, i]
    out[c, i] = waveform[c, i] * 0.5 + last_out * 0.75          (double, stored as float)

The loop runs over the samples, vectorised over the channels, as the kernel's
channels are independent (it runs them in parallel).

torchaudio's IIR filter (``lfilter``, and every biquad built on it) reaches its
kernel through a Python ``torch.autograd.Function``, which a graph records as a
call back into Python (``^DifferentiableIIR()``), not as this operator: see
``prim::PythonOp`` in :mod:`pyjit.ir.parser`.
"""

from __future__ import annotations

import numpy as np

from ..registry import library as R
from .dtypes import FLOAT64, torch_name

__all__ = ["overdrive_core_loop", "SCHEMAS"]

#: torchaudio 2.9's schemas of its operators (``torch.ops.torchaudio.<op>.default._schema``).
SCHEMAS = {
    "_overdrive_core_loop": "torchaudio::_overdrive_core_loop(Tensor _0, Tensor _1, Tensor _2, "
                            "Tensor _3, Tensor _4) -> ()",
}


def overdrive_core_loop(waveform, temp, last_in, last_out, output):
    """``torchaudio::_overdrive_core_loop``: ``output``, ``last_in`` and
    ``last_out`` written in place, for ``(channel, time)`` float tensors."""
    if waveform.dtype.kind != "f":
        raise TypeError(f'"overdrive_cpu" not implemented for \'{torch_name(waveform.dtype)}\'')
    dt = waveform.dtype
    prev_in, prev_out = last_in.copy(), last_out.copy()
    for i in range(waveform.shape[-1]):
        t = temp[:, i]
        prev_out = ((t - prev_in).astype(FLOAT64) + 0.995 * prev_out.astype(FLOAT64)).astype(dt)
        prev_in = t.copy()
        output[:, i] = waveform[:, i].astype(FLOAT64) * 0.5 + prev_out.astype(FLOAT64) * 0.75
    last_in[...] = prev_in
    last_out[...] = prev_out
    return None


R.register("torchaudio::_overdrive_core_loop", overdrive_core_loop,
           schema=SCHEMAS["_overdrive_core_loop"].split(" -> ")[0])
