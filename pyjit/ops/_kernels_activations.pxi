"""The float32 activation and softmax kernels in C: see :mod:`pyjit.ops.kernels`.

Each function here has the signature and results of its numpy reference there
(``<name>_numpy``); tests/test_kernels.py runs one suite against both.  The
pointwise ones take the flat input and the flat output (which may be the
input: every element is read before it is written) and run, the GIL released,
a loop of ``_kernels_math.h``: float math that vectorises, compiled for the
CPU's widest vectors.
"""

from libc.math cimport erff

cdef extern from "_kernels_math.h" nogil:
    void pj_gelu_erf_loop(const float* x, float* out, Py_ssize_t n)
    void pj_gelu_tanh_loop(const float* x, float* out, Py_ssize_t n)
    void pj_silu_loop(const float* x, float* out, Py_ssize_t n)
    void pj_sigmoid_loop(const float* x, float* out, Py_ssize_t n)
    void pj_hardswish_loop(const float* x, float* out, Py_ssize_t n)
    void pj_clamp_loop(const float* x, float* out, Py_ssize_t n, float lo, float hi)
    void pj_hardsigmoid_loop(const float* x, float* out, Py_ssize_t n)
    void pj_softmax_rows(const float* x, Py_ssize_t ldx, float* out, Py_ssize_t ldo,
                         Py_ssize_t rows, Py_ssize_t d, int log)

cdef extern from "_kernels_softmax.h" nogil:
    void pj_softmax(const float* x, Py_ssize_t ldx, float* out, Py_ssize_t ldo,
                    Py_ssize_t rows, Py_ssize_t d)


ctypedef void (*_loop)(const float*, float*, Py_ssize_t) noexcept nogil


cdef inline void _run(_loop loop, const float[::1] x, float[::1] out) noexcept:
    cdef Py_ssize_t n = x.shape[0]
    if n == 0:
        return
    with nogil:
        loop(&x[0], &out[0], n)


def gelu(const float[::1] x, float[::1] out, bint tanh_approximation):
    """``x * Phi(x)``, Phi the standard normal's distribution function through
    ``erf``, or torch's tanh approximation of it."""
    _run(pj_gelu_tanh_loop if tanh_approximation else pj_gelu_erf_loop, x, out)


def erf(const float[::1] x, float[::1] out):
    """The error function, elementwise, by libm's ``erff`` (within an ulp: the
    operator ``erf`` itself, where gelu's approximation would be too coarse
    for small ``x``)."""
    cdef Py_ssize_t i, n = x.shape[0]
    with nogil:
        for i in range(n):
            out[i] = erff(x[i])


def silu(const float[::1] x, float[::1] out):
    """``x * sigmoid(x)``."""
    _run(pj_silu_loop, x, out)


def sigmoid(const float[::1] x, float[::1] out):
    """``1 / (1 + exp(-x))``."""
    _run(pj_sigmoid_loop, x, out)


def clamp(const float[::1] x, float[::1] out, float lo, float hi):
    """The larger of ``x`` and ``lo``, then the smaller of that and ``hi``, as
    ``np.minimum(np.maximum(x, lo), hi)`` (a NaN stays NaN): relu (``lo = 0``,
    ``hi = inf``), relu6, hardtanh."""
    cdef Py_ssize_t n = x.shape[0]
    if n == 0:
        return
    with nogil:
        pj_clamp_loop(&x[0], &out[0], n, lo, hi)


def hardsigmoid(const float[::1] x, float[::1] out):
    """``x / 6 + 0.5`` clipped to ``[0, 1]``; a NaN stays NaN."""
    _run(pj_hardsigmoid_loop, x, out)


def hardswish(const float[::1] x, float[::1] out):
    """``x * relu6(x + 3) / 6``; a NaN stays NaN."""
    _run(pj_hardswish_loop, x, out)


def softmax_rows(const float[:, ::1] x, float[:, ::1] out, bint log):
    """Softmax (``log``: log-softmax) of every row: the row's maximum, the sum of
    ``exp(x - max)`` in double, then each element; a row whose maximum is not
    finite is shifted by 0, as torch does."""
    cdef Py_ssize_t rows = x.shape[0], d = x.shape[1]
    if rows == 0 or d == 0:
        return
    if out.shape[0] != rows or out.shape[1] != d:
        raise ValueError(f"softmax_rows: ({rows}, {d}) into ({out.shape[0]}, {out.shape[1]})")
    with nogil:
        if log:
            pj_softmax_rows(&x[0, 0], x.strides[0] // 4, &out[0, 0], out.strides[0] // 4, rows,
                            d, 1)
        else:   # short rows 16 at a time (_kernels_softmax.h)
            pj_softmax(&x[0, 0], x.strides[0] // 4, &out[0, 0], out.strides[0] // 4, rows, d)
