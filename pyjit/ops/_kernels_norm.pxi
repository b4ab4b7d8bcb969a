"""The float32 normalization kernels in C: see :mod:`pyjit.ops.kernels`.

Each function here has the signature and results of its numpy reference there
(``<name>_numpy``); tests/test_kernels.py runs one suite against both.  They
run with the GIL released; statistics are summed in double.
"""

from libc.math cimport sqrt

from libc.math cimport INFINITY

cdef extern from "_kernels_math.h" nogil:
    void pj_affine_loop(const float* x, float a, float b, float* out, Py_ssize_t n)
    void pj_affine_clamp_loop(const float* x, float a, float b, float lo, float hi, float* out,
                              Py_ssize_t n)
    double pj_sum_double(const float* x, Py_ssize_t n)
    double pj_sumsq_dev_double(const float* x, double m, Py_ssize_t n)
    void pj_norm_row(const float* x, float m, float s, const float* w, const float* b,
                     float* out, Py_ssize_t n)


def bn_affine(const float[::1] weight, const float[::1] bias, const float[::1] mean,
              const float[::1] var, double eps, const float[::1] conv_bias, float[::1] scale,
              float[::1] shift):
    """An inference batch norm's map per channel into ``scale`` and ``shift``:
    ``scale = weight / sqrt(var + eps)``, ``shift = bias - mean * scale +
    conv_bias * scale`` (the bias of the convolution before it, folded in),
    made in double and rounded once to float32 (``weight``, ``bias``,
    ``conv_bias`` None: 1, 0, 0).  Here rather than six numpy calls, which
    took half of the time a fused convolution of a 7x7 plane spent outside
    its kernel."""
    cdef Py_ssize_t c, n = mean.shape[0]
    cdef bint has_w = weight is not None, has_b = bias is not None
    cdef bint has_cb = conv_bias is not None
    cdef double a, b
    with nogil:
        for c in range(n):
            a = 1 / sqrt(<double>var[c] + eps)
            if has_w:
                a = a * weight[c]
            b = -(<double>mean[c]) * a
            if has_b:
                b = b + bias[c]
            if has_cb:
                b = b + <double>conv_bias[c] * a
            scale[c] = <float>a
            shift[c] = <float>b


def plane_affine(const float[:, ::1] x, const float[::1] scale, const float[::1] shift,
                 float[:, ::1] out, float lo=-INFINITY, float hi=INFINITY):
    """``out[p] = x[p] * scale[p % len(scale)] + shift[...]`` for every plane
    ``p`` of ``x`` (``(N*C, spatial)``): inference batch norm in one pass;
    clamped to ``[lo, hi]`` (a NaN stays NaN) if they are finite."""
    cdef Py_ssize_t p, j, planes = x.shape[0], size = x.shape[1], c = scale.shape[0]
    cdef float a, b
    cdef bint clamp = lo != -INFINITY or hi != INFINITY
    with nogil:
        for p in range(planes):
            a = scale[p % c]
            b = shift[p % c]
            if clamp and size:
                pj_affine_clamp_loop(&x[p, 0], a, b, lo, hi, &out[p, 0], size)
            else:
                for j in range(size):
                    out[p, j] = x[p, j] * a + b


def batch_norm_planes(const float[:, ::1] x, const float[::1] weight, const float[::1] bias,
                      const float[::1] mean, const float[::1] var, double eps,
                      float[:, ::1] out):
    """Inference batch norm of ``x`` (``(N*C, spatial)``, plane ``p`` of channel
    ``p % C``) by running statistics: ``out[p] = x[p] * scale + shift``, ``scale
    = weight / sqrt(var + eps)`` and ``shift = bias - mean * scale`` made in
    double and rounded once to float32 (``weight``, ``bias`` None: 1 and 0).
    The per-channel numbers are made here rather than by six numpy calls,
    which took most of the time of a batch norm of a small map."""
    cdef Py_ssize_t p, c, planes = x.shape[0], size = x.shape[1], channels = mean.shape[0]
    cdef bint has_w = weight is not None, has_b = bias is not None
    cdef double scale, shift
    if channels == 0 or planes == 0:
        return
    with nogil:
        for p in range(planes):
            c = p % channels
            scale = 1 / sqrt(<double>var[c] + eps)
            if has_w:
                scale = scale * weight[c]
            shift = -(<double>mean[c]) * scale
            if has_b:
                shift = shift + bias[c]
            if size:
                pj_affine_loop(&x[p, 0], <float>scale, <float>shift, &out[p, 0], size)


def row_stats(const float[:, ::1] x, double eps, double[::1] mean, double[::1] rstd):
    """Each row's mean and ``1/sqrt(var + eps)``, the variance biased (divided by
    the row's length) and summed about the mean in a second pass, both sums in
    double by eight running sums."""
    cdef Py_ssize_t r, rows = x.shape[0], d = x.shape[1]
    cdef double m
    with nogil:
        for r in range(rows):
            if d == 0:
                mean[r] = 0
                rstd[r] = 1 / sqrt(eps)
                continue
            m = pj_sum_double(&x[r, 0], d) / d
            mean[r] = m
            rstd[r] = 1 / sqrt(pj_sumsq_dev_double(&x[r, 0], m, d) / d + eps)


def layer_norm_rows(const float[:, ::1] x, const float[::1] weight, const float[::1] bias,
                    double eps, float[:, ::1] out, double[::1] mean, double[::1] rstd):
    """``(x - mean) * rstd * weight + bias`` along every row (``weight`` and
    ``bias`` of the row's length, or None), the rows' statistics left in
    ``mean`` and ``rstd``."""
    row_stats(x, eps, mean, rstd)
    cdef Py_ssize_t r, rows = x.shape[0], d = x.shape[1]
    cdef const float* w = NULL
    cdef const float* b = NULL
    if d == 0:
        return
    if weight is not None:
        w = &weight[0]
    if bias is not None:
        b = &bias[0]
    with nogil:
        for r in range(rows):
            pj_norm_row(&x[r, 0], <float>mean[r], <float>rstd[r], w, b, &out[r, 0], d)
