"""The float32 recurrence kernel in C: see :mod:`pyjit.ops.kernels`
(``recurrent_layer_numpy`` is its reference, with the same signature and
results; tests/test_kernels.py runs one suite against both).

One call runs one direction of one layer over every step, the GIL released:
the step's product with the recurrent weight (on AVX-512, the weight transposed
once a call and each step ``_kernels_gemm.h``'s ``pj_rows_times_t512``:
an LSTM of 64, 30 -> 20 us a layer of 32 steps, a GRU 25 -> 15; elsewhere
``_kernels_rnn.h``'s ``pj_rows_times``, on the weight as torch keeps it) and
each row's cell,
written straight into the output rows.  Nothing is allocated
per step, and no Python runs between steps.
"""

from libc.stdlib cimport free, malloc
from libc.string cimport memcpy

cdef extern from "_kernels_rnn.h" nogil:
    void pj_rows_times(const float* x, Py_ssize_t n, Py_ssize_t K, const float* w,
                       Py_ssize_t M, const float* bias, float* out)
    void pj_lstm_row(const float* gi, const float* gh, float* c, float* out, Py_ssize_t H)
    void pj_gru_row(const float* gi, const float* gh, const float* h, float* out, Py_ssize_t H)
    void pj_rnn_row(const float* gi, const float* gh, float* out, Py_ssize_t H, int relu)

cdef extern from "_kernels_gemm.h" nogil:
    void pj_transpose_weight(const float* w, Py_ssize_t M, Py_ssize_t K, float* wt)
    void pj_rows_times_t512(const float* x, Py_ssize_t n, Py_ssize_t K, const float* wt,
                            Py_ssize_t M, const float* bias, float* out)

#: A recurrent weight of at most this many floats is transposed once a call and
#: multiplied as such (pj_rows_times_t512) where the CPU has AVX-512: the 256 KB
#: of a 4 x 128 x 128 LSTM's, an L2's share.
cdef Py_ssize_t _TRANSPOSED_MAX = 1 << 16

#: The cells by name: (code, gates per hidden unit).
_RNN_CELLS = {"rnn_tanh": (0, 1), "rnn_relu": (1, 1), "lstm": (2, 4), "gru": (3, 3)}


def recurrent_layer(str mode, const float[:, ::1] gi, const Py_ssize_t[::1] sizes,
                    const float[:, ::1] w_hh, const float[::1] b_hh, const float[:, ::1] w_hr,
                    float[:, ::1] h, float[:, ::1] c, float[:, ::1] out, bint reverse):
    """One direction of one layer of ``mode`` (``rnn_tanh``, ``rnn_relu``,
    ``lstm``, ``gru``) over its steps: ``gi`` ``(R, G*H)`` holds every step's
    input projection (with ``b_ih``), the ``sizes[t]`` rows of step ``t`` after
    those of the steps before it (non-increasing sizes: packed sequences, longest
    first); ``w_hh`` ``(G*H, P)``, ``b_hh`` ``(G*H,)`` or None, ``w_hr`` an
    LSTM's projection ``(P, H)`` or None (then ``P == H``).  The state ``h``
    ``(B, P)`` (and an LSTM's ``c`` ``(B, H)``) is updated in place to the
    final one, the first ``sizes[t]`` rows at step ``t``; every step's new
    ``h`` goes to its rows of ``out`` ``(R, P)``.  ``reverse``: the steps from
    the last to the first."""
    if mode not in _RNN_CELLS:
        raise ValueError(f"recurrent_layer: no cell {mode!r}")
    cdef int code = _RNN_CELLS[mode][0], gates = _RNN_CELLS[mode][1]
    cdef Py_ssize_t R = gi.shape[0], GH = gi.shape[1], H = GH // gates
    cdef Py_ssize_t B = h.shape[0], P = h.shape[1], T = sizes.shape[0]
    cdef bint proj = w_hr is not None
    if GH != H * gates or w_hh.shape[0] != GH or w_hh.shape[1] != P or \
            out.shape[0] != R or out.shape[1] != P or \
            (b_hh is not None and b_hh.shape[0] != GH) or \
            (proj and (code != 2 or w_hr.shape[0] != P or w_hr.shape[1] != H)) or \
            (not proj and P != H) or \
            (code == 2 and (c is None or c.shape[0] != B or c.shape[1] != H)):
        raise ValueError(f"recurrent_layer ({mode}): shapes do not agree: gi "
                         f"({gi.shape[0]}, {gi.shape[1]}), w_hh ({w_hh.shape[0]}, "
                         f"{w_hh.shape[1]}), h ({B}, {P}), out ({out.shape[0]}, "
                         f"{out.shape[1]})")
    cdef Py_ssize_t t, s, b, n, total = 0
    for t in range(T):
        if sizes[t] < 0 or sizes[t] > B or (t and sizes[t] > sizes[t - 1]):
            raise ValueError(f"recurrent_layer ({mode}): step {t} has {sizes[t]} rows "
                             f"(a batch of {B}, the steps' sizes non-increasing)")
        total += sizes[t]
    if total != R:
        raise ValueError(f"recurrent_layer ({mode}): the steps have {total} rows, gi {R}")
    if R == 0 or H == 0 or P == 0:
        return
    cdef float* gh = <float*>malloc(B * GH * sizeof(float))
    cdef float* hc = <float*>malloc(B * H * sizeof(float)) if proj else NULL
    cdef Py_ssize_t* first = <Py_ssize_t*>malloc(T * sizeof(Py_ssize_t))
    cdef const float* bias = &b_hh[0] if b_hh is not None else NULL
    cdef float* dst
    cdef float* wt = NULL
    if pj_gemm_level() == 2 and GH * P <= _TRANSPOSED_MAX:
        wt = <float*>malloc(GH * P * sizeof(float))
    try:
        if gh == NULL or first == NULL or (proj and hc == NULL):
            raise MemoryError()
        with nogil:
            for t in range(T):
                first[t] = 0 if t == 0 else first[t - 1] + sizes[t - 1]
            if wt != NULL:
                pj_transpose_weight(&w_hh[0, 0], GH, P, wt)
            for s in range(T):
                t = T - 1 - s if reverse else s
                n = sizes[t]
                if n == 0:
                    continue
                if wt != NULL:
                    pj_rows_times_t512(&h[0, 0], n, P, wt, GH, bias, gh)
                else:
                    pj_rows_times(&h[0, 0], n, P, &w_hh[0, 0], GH, bias, gh)
                dst = hc if proj else &out[first[t], 0]
                for b in range(n):
                    if code == 2:
                        pj_lstm_row(&gi[first[t] + b, 0], gh + b * GH, &c[b, 0], dst + b * H, H)
                    elif code == 3:
                        pj_gru_row(&gi[first[t] + b, 0], gh + b * GH, &h[b, 0], dst + b * H, H)
                    else:
                        pj_rnn_row(&gi[first[t] + b, 0], gh + b * GH, dst + b * H, H, code)
                if proj:
                    pj_rows_times(hc, n, H, &w_hr[0, 0], P, NULL, &out[first[t], 0])
                memcpy(&h[0, 0], &out[first[t], 0], n * P * sizeof(float))
    finally:
        free(gh)
        free(hc)
        free(first)
        free(wt)
