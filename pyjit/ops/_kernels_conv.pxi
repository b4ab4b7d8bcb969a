"""The float32 convolution and pooling kernels in C: see :mod:`pyjit.ops.kernels`.

Each function here has the signature, the arguments' meaning and the results of
its numpy reference there (``<name>_numpy``), which a build without a compiler
uses; tests/test_kernels.py runs one suite against both.  Every loop runs with
the GIL released, on one image (``(C, H, W)``, C-contiguous): the caller loops
over the batch and the groups, and gives the GEMMs to numpy's float32 BLAS.
"""

from libc.math cimport INFINITY
from libc.stdlib cimport calloc, malloc, free
from libc.string cimport memset

cdef extern from "_kernels_math.h" nogil:
    void pj_axpy_row(float k, const float* x, Py_ssize_t stride, float* o, Py_ssize_t n)
    void pj_affine_clamp_loop(const float* x, float a, float b, float lo, float hi, float* out,
                              Py_ssize_t n)
    void pj_max_row(const float* x, Py_ssize_t stride, float* o, Py_ssize_t n)
    void pj_plane_means(const float* x, Py_ssize_t planes, Py_ssize_t n, double divisor,
                        float* out)
    void pj_strided_copy(const float* x, Py_ssize_t stride, float* d, Py_ssize_t n)
    void pj_taps_sum(const float* src, const Py_ssize_t* offs, const float* k, Py_ssize_t ntaps,
                     float* acc, Py_ssize_t n)
    void pj_taps_sum2(const float* src, const Py_ssize_t* offs, const float* k0,
                      const float* k1, Py_ssize_t ntaps, float* acc0, float* acc1,
                      Py_ssize_t n)

cdef extern from "_kernels_depthwise.h" nogil:
    int pj_depthwise_takes(int kh, int kw, int sh, int sw, Py_ssize_t oh, Py_ssize_t ow)
    void pj_depthwise(const float* x, Py_ssize_t h, Py_ssize_t w, int ph, int pw,
                      const float* k, int kh, int s, Py_ssize_t oh, Py_ssize_t ow, float bias,
                      float scale, float shift, float lo, float hi, float* out,
                      const float* zeros, const float* nx, float* nout)
    int pj_max_pool_takes(int kh, int kw, int sh, int sw, int dh, int dw, Py_ssize_t oh,
                          Py_ssize_t ow)
    int pj_conv3x3s2_takes()
    void pj_conv3x3s2(const float* x, Py_ssize_t C, Py_ssize_t h, Py_ssize_t w, int ph, int pw,
                      const float* wt, Py_ssize_t O, Py_ssize_t oh, Py_ssize_t ow,
                      const float* scale, const float* shift, float lo, float hi, float* out,
                      const float* zeros)
    void pj_max_pool(const float* x, Py_ssize_t h, Py_ssize_t w, int ph, int pw, Py_ssize_t oh,
                     Py_ssize_t ow, float* out, const float* minus_inf, const float* nx,
                     float* nout)

cdef extern from "_kernels_gemm.h" nogil:
    int pj_gemm_level()
    int pj_gemm_cap
    int pj_conv3x3_cap
    ctypedef struct pj_conv_geom:
        const float* x
        Py_ssize_t h, w, oh, ow
        int kh, kw, sh, sw, ph, pw, dh, dw
    int pj_conv2d_gemm(const pj_conv_geom* g, Py_ssize_t M, Py_ssize_t K, const float* w,
                       Py_ssize_t ldw, float* out, Py_ssize_t ldo, const float* scale,
                       const float* shift, float lo, float hi)
    int pj_matmul(Py_ssize_t M, Py_ssize_t N, Py_ssize_t K, const float* a, Py_ssize_t lda,
                  const float* b, Py_ssize_t ldk, Py_ssize_t ldn, float* out, Py_ssize_t ldo,
                  const float* bias, float lo, float hi)


def conv3x3_unpacked(on=None):
    """Whether the convolutions' GEMM takes a 3x3 convolution at stride 1
    without packing its panels where it can (``_kernels_gemm.h``'s
    ``pj_conv3x3_gemm``); ``on``: first set it (for tests, which run both)."""
    global pj_conv3x3_cap
    if on is not None:
        pj_conv3x3_cap = 1 if on else 0
    return pj_conv3x3_cap != 0


def gemm_level(cap=None):
    """Which body of the convolutions' GEMM this CPU runs: 2 AVX-512, 1 AVX2
    with FMA, 0 none (numpy's BLAS then).  ``cap``: first make it at most that
    (for tests, which run each body the CPU has; 2 restores the CPU's own)."""
    global pj_gemm_cap
    if cap is not None:
        pj_gemm_cap = cap
    return pj_gemm_level()


cdef int _per_row(const float[::1] v, Py_ssize_t m, str what, str name) except -1:
    if v is not None and v.shape[0] != m:
        raise ValueError(f"{name}: {v.shape[0]} {what} for {m} rows")
    return 0


def conv2d_gemm(const float[:, :, ::1] x, const float[:, ::1] w, float[:, :] out,
                const float[::1] scale, const float[::1] shift, float lo, float hi, int kh,
                int kw, int sh, int sw, int ph, int pw, int dh, int dw):
    """``out = clip((w @ cols) * scale + shift, lo, hi)`` (per row; None: 1, 0),
    ``cols`` the columns
    ``im2col2d`` makes of ``x`` (``(C, H, W)``) for an ``(oh, ow)`` output,
    ``out`` ``(O, oh*ow)``, ``w`` ``(O, C*kh*kw)``: the convolution as one GEMM
    whose columns are made a panel at a time, never whole (``_kernels_gemm.h``).
    Returns False, having written nothing, on a CPU the kernel has no body
    for."""
    cdef Py_ssize_t m = w.shape[0], kk = w.shape[1]
    cdef pj_conv_geom g
    g.h, g.w = x.shape[1], x.shape[2]
    g.kh, g.kw, g.sh, g.sw, g.ph, g.pw, g.dh, g.dw = kh, kw, sh, sw, ph, pw, dh, dw
    g.oh = (g.h + 2 * ph - dh * (kh - 1) - 1) // sh + 1 if kh > 0 and sh > 0 else 0
    if kk != x.shape[0] * kh * kw or out.shape[0] != m or kh <= 0 or kw <= 0 or sh <= 0 or \
            sw <= 0 or dh <= 0 or dw <= 0 or ph < 0 or pw < 0:
        raise ValueError(f"conv2d_gemm: weight ({m}, {kk}) for {x.shape[0]} channels of "
                         f"{kh}x{kw} taps, into ({out.shape[0]}, {out.shape[1]})")
    if out.shape[1] == 0 or m == 0:
        return True
    _per_row(scale, m, "scales", "conv2d_gemm")
    _per_row(shift, m, "shifts", "conv2d_gemm")
    if out.strides[1] != 4 and out.shape[1] > 1:
        raise ValueError("conv2d_gemm: the output's columns must be contiguous")
    # the output's width: what its columns hold over its height's rows
    g.ow = (g.w + 2 * pw - dw * (kw - 1) - 1) // sw + 1
    if g.oh <= 0 or g.ow <= 0 or g.oh * g.ow != out.shape[1]:
        raise ValueError(f"conv2d_gemm: {out.shape[1]} output columns for a "
                         f"{g.oh}x{g.ow} output")
    g.x = &x[0, 0, 0]
    cdef const float* sp = &shift[0] if shift is not None else NULL
    cdef const float* fp = &scale[0] if scale is not None else NULL
    cdef int done
    with nogil:
        done = pj_conv2d_gemm(&g, m, kk, &w[0, 0], kk, &out[0, 0], out.strides[0] // 4, fp,
                              sp, lo, hi)
    return done != 0


def matmul(const float[:, :] a, const float[:, :] b, float[:, :] out, const float[::1] bias,
           float lo, float hi):
    """``out = clip(a @ b + bias, lo, hi)`` (``bias`` per column, None: 0),
    by the convolutions' GEMM (``_kernels_gemm.h``), the bias added first, as
    torch's ``addmm`` adds it.  ``a`` ``(M, K)`` and ``out`` ``(M, N)`` with
    contiguous rows; ``b`` ``(K, N)`` with contiguous rows or columns (a C-ordered
    array or the transpose of one: a linear layer's ``weight.T``).  Returns
    False, having written nothing, on a CPU the kernel has no body for."""
    cdef Py_ssize_t m = a.shape[0], kk = a.shape[1], n = b.shape[1]
    cdef Py_ssize_t ldk, ldn
    if b.shape[0] != kk or out.shape[0] != m or out.shape[1] != n:
        raise ValueError(f"matmul: ({m}, {kk}) @ ({b.shape[0]}, {n}) into "
                         f"({out.shape[0]}, {out.shape[1]})")
    _per_row(bias, n, "biases", "matmul")
    if m == 0 or n == 0:
        return True
    if kk == 0:
        return False   # no sums to start from the bias: the caller's numpy
    if (a.strides[1] != 4 and kk > 1) or (out.strides[1] != 4 and n > 1):
        raise ValueError("matmul: the rows of a and of out must be contiguous")
    if b.strides[1] == 4 or n == 1:
        ldk, ldn = b.strides[0] // 4, 1
    elif b.strides[0] == 4 or kk == 1:
        ldk, ldn = 1, b.strides[1] // 4
    else:
        raise ValueError("matmul: b's rows or columns must be contiguous")
    cdef const float* bp = &bias[0] if bias is not None else NULL
    cdef int done
    with nogil:
        done = pj_matmul(m, n, kk, &a[0, 0], a.strides[0] // 4, &b[0, 0], ldk, ldn,
                         &out[0, 0], out.strides[0] // 4, bp, lo, hi)
    return done != 0


def matmul_stack(const float[:, :, :, :] a, const float[:, :, :, :] b, float[:, :, :, :] out):
    """``out[i, j] = a[i, j] @ b[i, j]`` for every ``(i, j)`` of a stack two deep
    (attention's products per batch and head, ``q @ k.T`` and ``weights @ v``,
    read where the heads' permutes left them), each as :func:`matmul` makes
    it, with the same layouts (a ``b[i, j]`` with contiguous rows or columns).
    Returns False, having written nothing, on a CPU the kernel has no body
    for."""
    cdef Py_ssize_t c0 = a.shape[0], c1 = a.shape[1], m = a.shape[2], kk = a.shape[3]
    cdef Py_ssize_t n = b.shape[3], i, j, ldk, ldn
    cdef int done = 1
    if b.shape[0] != c0 or b.shape[1] != c1 or out.shape[0] != c0 or out.shape[1] != c1 or \
            b.shape[2] != kk or out.shape[2] != m or out.shape[3] != n:
        raise ValueError(f"matmul_stack: {[a.shape[d] for d in range(4)]} @ "
                         f"{[b.shape[d] for d in range(4)]} into "
                         f"{[out.shape[d] for d in range(4)]}")
    if c0 == 0 or c1 == 0 or m == 0 or n == 0:
        return True
    if kk == 0:
        return False
    if (a.strides[3] != 4 and kk > 1) or (out.strides[3] != 4 and n > 1):
        raise ValueError("matmul_stack: the rows of a and of out must be contiguous")
    if b.strides[3] == 4 or n == 1:
        ldk, ldn = b.strides[2] // 4, 1
    elif b.strides[2] == 4 or kk == 1:
        ldk, ldn = 1, b.strides[3] // 4
    else:
        raise ValueError("matmul_stack: b's rows or columns must be contiguous")
    with nogil:
        for i in range(c0):
            for j in range(c1):
                done = pj_matmul(m, n, kk, &a[i, j, 0, 0], a.strides[2] // 4, &b[i, j, 0, 0],
                                 ldk, ldn, &out[i, j, 0, 0], out.strides[2] // 4, NULL,
                                 -INFINITY, INFINITY)
                if not done:   # no body: nothing was written (the first call says so)
                    break
            if not done:
                break
    return done != 0


# A row shorter than this is summed inline: the vectorised loops of
# _kernels_math.h are reached through the CPU dispatch of target_clones, a call
# that costs more than a 7-wide row of a late MobileNet layer.
cdef Py_ssize_t _LONG_ROW = 16


cdef inline void _inside(Py_ssize_t n, Py_ssize_t stride, Py_ssize_t offset, Py_ssize_t length,
                         Py_ssize_t* lo, Py_ssize_t* hi) noexcept nogil:
    """``[lo, hi)``: the outputs ``o < n`` whose input ``o*stride + offset`` is
    inside ``[0, length)`` (a tap's columns or rows outside it read the padding)."""
    lo[0] = 0
    while lo[0] < n and lo[0] * stride + offset < 0:
        lo[0] += 1
    hi[0] = n
    while hi[0] > lo[0] and (hi[0] - 1) * stride + offset >= length:
        hi[0] -= 1


def im2col2d(const float[:, :, ::1] x, float[:, :, ::1] cols, int kh, int kw, int sh, int sw,
             int ph, int pw, int dh, int dw):
    """Fill ``cols`` (``(C*kh*kw, oh, ow)``) with the windows of ``x`` (``(C, H,
    W)``): ``cols[(c*kh + i)*kw + j, oy, ox]`` is the input under kernel tap
    ``(i, j)`` of the window at ``(oy*sh - ph, ox*sw - pw)``, 0 in the padding."""
    cdef Py_ssize_t c_n = x.shape[0], h = x.shape[1], w = x.shape[2]
    cdef Py_ssize_t oh = cols.shape[1], ow = cols.shape[2]
    cdef Py_ssize_t c, i, j, oy, ox, iy, ix, row, lo, hi
    with nogil:
        for c in range(c_n):
            for i in range(kh):
                for j in range(kw):
                    row = (c * kh + i) * kw + j
                    _inside(ow, sw, j * dw - pw, w, &lo, &hi)
                    for oy in range(oh):
                        iy = oy * sh - ph + i * dh
                        if iy < 0 or iy >= h:
                            for ox in range(ow):
                                cols[row, oy, ox] = 0
                            continue
                        for ox in range(lo):
                            cols[row, oy, ox] = 0
                        ix = lo * sw - pw + j * dw
                        if sw == 1:
                            for ox in range(lo, hi):
                                cols[row, oy, ox] = x[c, iy, ix + ox - lo]
                        else:
                            for ox in range(lo, hi):
                                cols[row, oy, ox] = x[c, iy, ix + (ox - lo) * sw]
                        for ox in range(hi, ow):
                            cols[row, oy, ox] = 0


cdef inline void _tap(const float* x, Py_ssize_t h, Py_ssize_t w, float* out, Py_ssize_t oh,
                      Py_ssize_t ow, Py_ssize_t i, Py_ssize_t j, int sh, int sw, int ph, int pw,
                      int dh, int dw, float k, bint take_max) noexcept nogil:
    """Kernel tap ``(i, j)`` over a whole output plane: ``out`` (``oh x ow``)
    from the input plane ``x`` (``h x w``), both C-contiguous.  Every output
    whose input under the tap, ``x[oy*sh - ph + i*dh, ox*sw - pw + j*dw]``, is
    inside ``x`` takes ``out += k * input``, or with ``take_max`` the larger of
    the two (NaN winning); the others (the tap reads the padding) are left,
    and so is all of ``out`` when a plane is empty (neither is then read).
    Row by row: ``pj_axpy_row``/``pj_max_row`` (vectorised) for a long row."""
    cdef Py_ssize_t oy, ox, lo, hi, top, bottom, ix0 = j * dw - pw
    cdef const float* row
    cdef float* o
    cdef float v, c
    _inside(ow, sw, ix0, w, &lo, &hi)
    _inside(oh, sh, i * dh - ph, h, &top, &bottom)   # the rows, as the columns
    if lo >= hi:
        return
    for oy in range(top, bottom):
        row = x + (oy * sh - ph + i * dh) * w + ix0
        o = out + oy * ow
        if take_max:
            if hi - lo >= _LONG_ROW:
                pj_max_row(row + lo * sw, sw, o + lo, hi - lo)
            else:
                for ox in range(lo, hi):   # a select, not a branch: data decide it
                    v = row[ox * sw]
                    c = o[ox]
                    o[ox] = v if (v > c) | (v != v) else c
        elif hi - lo >= _LONG_ROW:
            pj_axpy_row(k, row + lo * sw, sw, o + lo, hi - lo)
        else:
            for ox in range(lo, hi):
                o[ox] += k * row[ox * sw]


cdef inline void _copy(const float* x, float* d, Py_ssize_t n) noexcept nogil:
    """``d[:n] = x[:n]``, inline: the rows here are 7 to 112 floats, for which a
    call of memcpy costs as much as the copy."""
    cdef Py_ssize_t i
    for i in range(n):
        d[i] = x[i]


cdef void _phase_planes(const float* x, Py_ssize_t h, Py_ssize_t w, float* dst, Py_ssize_t hq,
                        Py_ssize_t wq, int sh, int sw, int ph, int pw) noexcept nogil:
    """Into the ``sh * sw`` phase planes at ``dst`` (``hq x wq`` each, one after
    the other), the input plane ``x`` (``h x w``) as zero-padded by ``ph``/``pw``:
    plane ``(a, b)`` holds the padded input's rows ``a, a + sh, ...`` and
    columns ``b, b + sw, ...``.  Only the elements inside ``x`` are written:
    the padding's are zero already (the caller zeroes the planes once, and
    they are the same elements for every channel)."""
    cdef Py_ssize_t a, b, r, iy, lo, hi
    cdef float* d
    for a in range(sh):
        for b in range(sw):
            d = dst + (a * sw + b) * hq * wq
            # the plane's column q reads input column q*sw + b - pw
            _inside(wq, sw, b - pw, w, &lo, &hi)
            if hi <= lo:
                continue
            for r in range(hq):
                iy = r * sh + a - ph
                if iy < 0 or iy >= h:
                    continue
                if sw == 1:
                    _copy(x + iy * w + lo + b - pw, d + r * wq + lo, hi - lo)
                else:
                    pj_strided_copy(x + iy * w + lo * sw + b - pw, sw, d + r * wq + lo,
                                    hi - lo)


def depthwise2d(const float[:, :, ::1] x, const float[:, :, ::1] weight, const float[::1] bias,
                float[:, :, ::1] out, int sh, int sw, int ph, int pw, int dh, int dw,
                const float[::1] scale=None, const float[::1] shift=None, float lo=-INFINITY,
                float hi=INFINITY):
    """``out[o] = bias[o] + sum over taps (i, j) of weight[o, i, j] * x[o // m]``
    shifted by the tap, for ``m = out channels / x channels``: a convolution
    whose every group is one input channel (``bias`` None: 0).  Then, as each
    output row is stored, ``* scale[o] + shift[o]`` (None: 1, 0; a fused batch
    norm) and clamped to ``[lo, hi]`` (a fused ReLU), if any is given.

    Each input channel is first copied, zero-padded, into ``sh * sw`` phase
    planes (plane ``(a, b)`` holds the padded input's rows ``a, a + sh, ...`` and
    columns ``b, b + sw, ...``): in them a tap of any stride and dilation reads
    a window of stride 1, and with the output laid out in rows as wide as a
    plane's (``wq``), the whole output plane is one contiguous run per tap, the
    same offset everywhere (``pj_taps_sum``, vectorised, no bounds inside).  So
    a 7x7 plane costs ~7 vector operations a tap rather than 7 rows of 7
    scalar ones.  The taps add in order ``(0, 0), (0, 1), ...`` onto the bias,
    as the numpy reference adds them."""
    cdef Py_ssize_t c_n = x.shape[0], h = x.shape[1], w = x.shape[2]
    cdef Py_ssize_t oc = out.shape[0], oh = out.shape[1], ow = out.shape[2]
    cdef Py_ssize_t kh = weight.shape[1], kw = weight.shape[2], ntaps = kh * kw
    if oc == 0 or oh <= 0 or ow <= 0 or c_n == 0:
        return
    cdef Py_ssize_t m = oc // c_n
    # a phase plane: the rows and columns every tap's window reaches
    cdef Py_ssize_t hq = oh + ((kh - 1) * dh) // sh, wq = ow + ((kw - 1) * dw) // sw
    cdef Py_ssize_t plane = hq * wq, phases = <Py_ssize_t>sh * sw
    cdef Py_ssize_t n = (oh - 1) * wq + ow
    cdef Py_ssize_t c, o, i, j, t, oy, q
    cdef bint has_bias = bias is not None
    cdef bint epilogue = scale is not None or shift is not None or lo != -INFINITY or \
        hi != INFINITY
    if (scale is not None and scale.shape[0] != oc) or (shift is not None and shift.shape[0] != oc):
        raise ValueError(f"depthwise2d: an affine map for {oc} channels of "
                         f"{scale.shape[0] if scale is not None else shift.shape[0]}")
    cdef float b, fa, fb
    # pj_taps_sum works in groups of 32: acc rounded up, and 32 floats after
    # the planes that the last group's taps may read (zeros, results ignored)
    cdef Py_ssize_t n_up = (n + 31) // 32 * 32
    cdef float* src = <float*>malloc((phases * plane + 32 + n_up + ntaps) * sizeof(float))
    cdef Py_ssize_t* offs = <Py_ssize_t*>malloc(ntaps * sizeof(Py_ssize_t))
    if src == NULL or offs == NULL:
        free(src)
        free(offs)
        raise MemoryError("depthwise2d: no memory for the padded input plane")
    cdef float* acc = src + phases * plane + 32
    cdef float* taps = acc + n_up
    cdef float* orow
    # a 3x3 or 5x5 kernel at stride 1 or 2, undilated, one output channel an
    # input channel: summed in registers, block by block, from the input
    # itself (_kernels_depthwise.h), where this CPU has the body
    cdef bint fast = m == 1 and dh == dw == 1 and pj_depthwise_takes(kh, kw, sh, sw, oh, ow)
    with nogil:
        # the fast one reads no planes, only a row of zeros (w of them) for
        # the rows of the padding
        memset(src, 0, (w if fast else phases * plane + 32 + n_up) * sizeof(float))
        for i in range(kh):
            for j in range(kw):
                offs[i * kw + j] = (((i * dh) % sh) * sw + (j * dw) % sw) * plane + \
                    ((i * dh) // sh) * wq + (j * dw) // sw
        for c in range(c_n):
            if not fast:
                _phase_planes(&x[c, 0, 0], h, w, src, hq, wq, sh, sw, ph, pw)
            for o in range(c * m, (c + 1) * m):
                for i in range(kh):
                    for j in range(kw):
                        taps[i * kw + j] = weight[o, i, j]
                b = bias[o] if has_bias else 0
                orow = &out[o, 0, 0]
                # no epilogue: * 1 + -0, which gives every sum back, -0 too
                fa = scale[o] if scale is not None else 1
                fb = shift[o] if shift is not None else (0 if epilogue else -0.0)
                if fast:
                    pj_depthwise(&x[c, 0, 0], h, w, ph, pw, taps, kh, sh, oh, ow, b, fa, fb, lo,
                                 hi, orow, src, &x[c + 1, 0, 0] if c + 1 < c_n else NULL,
                                 &out[c + 1, 0, 0] if c + 1 < c_n else NULL)
                    continue
                for q in range(n):
                    acc[q] = b
                pj_taps_sum(src, offs, taps, ntaps, acc, n)
                if epilogue:
                    for oy in range(oh):
                        pj_affine_clamp_loop(acc + oy * wq, fa, fb, lo, hi, orow + oy * ow, ow)
                else:
                    for oy in range(oh):
                        _copy(acc + oy * wq, orow + oy * ow, ow)
    free(src)
    free(offs)


#: conv2d_direct's block of output positions: every output channel of a group
#: sums its taps over one block before the next, so that the block's inputs
#: (a 3-channel stem's 12 phase planes, ~18 KB of them) stay in L1.
cdef Py_ssize_t _DIRECT_BLOCK = 256


def conv3x3s2(const float[:, :, ::1] x, const float[:, :, :, ::1] weight, float[:, :, ::1] out,
              int ph, int pw, const float[::1] scale, const float[::1] shift, float lo, float hi):
    """``out[o] = clip((sum over c, i, j of weight[o, c, i, j] * x[c]`` under tap
    ``(i, j)``) ``* scale[o] + shift[o], lo, hi)`` (None: 1, 0): a dense 3x3
    convolution at stride 2, padded by ``ph`` rows and ``pw`` columns before
    (and after, as far as ``out`` reaches), a CNN's stem, summed in registers
    (``_kernels_depthwise.h``).  Returns False, having written nothing, on a
    CPU the kernel has no body for."""
    cdef Py_ssize_t c_n = x.shape[0], h = x.shape[1], w = x.shape[2]
    cdef Py_ssize_t oc = out.shape[0], oh = out.shape[1], ow = out.shape[2]
    if weight.shape[0] != oc or weight.shape[1] != c_n or weight.shape[2] != 3 or \
            weight.shape[3] != 3 or ph < 0 or pw < 0:
        raise ValueError(f"conv3x3s2: weight ({weight.shape[0]}, {weight.shape[1]}, "
                         f"{weight.shape[2]}, {weight.shape[3]}) for {c_n} channels into "
                         f"({oc}, {oh}, {ow}), padding ({ph}, {pw})")
    _per_row(scale, oc, "scales", "conv3x3s2")
    _per_row(shift, oc, "shifts", "conv3x3s2")
    if not pj_conv3x3s2_takes():
        return False
    if oc == 0 or oh == 0 or ow == 0:
        return True
    cdef float* zeros = <float*>calloc(w + 32, sizeof(float))
    if zeros == NULL:
        raise MemoryError("conv3x3s2: no memory for a row of zeros")
    cdef const float* fp = &scale[0] if scale is not None else NULL
    cdef const float* sp = &shift[0] if shift is not None else NULL
    with nogil:
        pj_conv3x3s2(&x[0, 0, 0], c_n, h, w, ph, pw, &weight[0, 0, 0, 0], oc, oh, ow, fp, sp,
                     lo, hi, &out[0, 0, 0], zeros)
    free(zeros)
    return True


def conv2d_direct(const float[:, :, ::1] x, const float[:, :, :, ::1] weight,
                  const float[::1] bias, float[:, :, ::1] out, int groups, int sh, int sw,
                  int ph, int pw, int dh, int dw):
    """``out[o] = bias[o] + sum over channels c of o's group and taps (i, j) of
    weight[o, c, i, j] * x[g*cg + c]`` shifted by the tap (``cg = weight.shape[1]``
    channels a group; ``bias`` None: 0): a convolution summed directly, for few
    taps an output (a group of 8 channels), where im2col would write every
    input ``kh*kw`` times for a GEMM too thin to pay for it.  The taps add in
    order ``(c, i, j)``.

    As :func:`depthwise2d`: every input channel copied into its zero-padded
    phase planes once, then ``pj_taps_sum`` over all of an output's ``cg*kh*kw``
    taps, 32 output values at a time held in registers, block by block of the
    plane (``_DIRECT_BLOCK``) with every output channel of the group inside a
    block."""
    cdef Py_ssize_t c_n = x.shape[0], h = x.shape[1], w = x.shape[2]
    cdef Py_ssize_t oc = out.shape[0], oh = out.shape[1], ow = out.shape[2]
    cdef Py_ssize_t cg = weight.shape[1], kh = weight.shape[2], kw = weight.shape[3]
    cdef Py_ssize_t ntaps = cg * kh * kw
    if oc == 0 or oh <= 0 or ow <= 0 or c_n == 0 or ntaps == 0:
        return
    cdef Py_ssize_t og = oc // groups
    cdef Py_ssize_t hq = oh + ((kh - 1) * dh) // sh, wq = ow + ((kw - 1) * dw) // sw
    cdef Py_ssize_t plane = hq * wq, phases = <Py_ssize_t>sh * sw, chan = phases * plane
    cdef Py_ssize_t n = (oh - 1) * wq + ow
    cdef Py_ssize_t n_up = (n + 31) // 32 * 32
    cdef Py_ssize_t c, o, i, j, oy, q, q0, length
    cdef bint has_bias = bias is not None
    cdef float b
    # the planes of every channel, 32 floats the last group of 32 may read,
    # every output channel's plane (pitch n_up) and its weights
    cdef float* src = <float*>malloc((c_n * chan + 32 + oc * (n_up + ntaps)) * sizeof(float))
    cdef Py_ssize_t* offs = <Py_ssize_t*>malloc(ntaps * sizeof(Py_ssize_t))
    if src == NULL or offs == NULL:
        free(src)
        free(offs)
        raise MemoryError("conv2d_direct: no memory for the padded input planes")
    cdef float* accs = src + c_n * chan + 32
    cdef float* taps = accs + oc * n_up
    cdef float* acc
    cdef float* orow
    with nogil:
        memset(src, 0, (c_n * chan + 32) * sizeof(float))
        for c in range(cg):
            for i in range(kh):
                for j in range(kw):
                    offs[(c * kh + i) * kw + j] = c * chan + \
                        (((i * dh) % sh) * sw + (j * dw) % sw) * plane + \
                        ((i * dh) // sh) * wq + (j * dw) // sw
        for c in range(c_n):
            _phase_planes(&x[c, 0, 0], h, w, src + c * chan, hq, wq, sh, sw, ph, pw)
        for o in range(oc):
            for c in range(cg):
                for i in range(kh):
                    for j in range(kw):
                        taps[o * ntaps + (c * kh + i) * kw + j] = weight[o, c, i, j]
            acc = accs + o * n_up
            b = bias[o] if has_bias else 0
            for q in range(n_up):
                acc[q] = b
        q0 = 0
        while q0 < n:
            length = min(_DIRECT_BLOCK, n - q0)
            o = 0
            while o < oc:
                if o + 1 < oc and (o + 1) // og == o // og:   # two of one group
                    pj_taps_sum2(src + (o // og) * cg * chan + q0, offs, taps + o * ntaps,
                                 taps + (o + 1) * ntaps, ntaps, accs + o * n_up + q0,
                                 accs + (o + 1) * n_up + q0, length)
                    o += 2
                else:
                    pj_taps_sum(src + (o // og) * cg * chan + q0, offs, taps + o * ntaps,
                                ntaps, accs + o * n_up + q0, length)
                    o += 1
            q0 += _DIRECT_BLOCK
        for o in range(oc):
            acc = accs + o * n_up
            orow = &out[o, 0, 0]
            for oy in range(oh):
                _copy(acc + oy * wq, orow + oy * ow, ow)
    free(src)
    free(offs)


def max_pool2d(const float[:, :, ::1] x, float[:, :, ::1] out, int kh, int kw, int sh, int sw,
               int ph, int pw, int dh, int dw):
    """``out[p, oy, ox]``: the largest element of ``x[p]`` under the window at
    ``(oy*sh - ph, ox*sw - pw)`` (taps ``dh``/``dw`` apart, those outside ``x``
    skipped), or NaN if the window holds one, as torch's max pooling says.  A
    3x3 window at stride 2 (the CNNs'), on AVX-512: block by block of the plane
    in registers, as :func:`depthwise2d`'s bodies (``pj_max_pool``); any other,
    tap by tap over whole output rows (``pj_max_row``, a loop of selects that
    vectorises)."""
    cdef Py_ssize_t planes = x.shape[0], h = x.shape[1], w = x.shape[2]
    cdef Py_ssize_t oh = out.shape[1], ow = out.shape[2]
    cdef Py_ssize_t p, oy, ox, i, j
    cdef float* minus_inf
    if planes and pj_max_pool_takes(kh, kw, sh, sw, dh, dw, oh, ow):
        minus_inf = <float*>malloc(max(w, 1) * sizeof(float))
        if minus_inf == NULL:
            raise MemoryError("max_pool2d: no memory for a row of the padding")
        with nogil:
            for i in range(w):
                minus_inf[i] = -INFINITY
            for p in range(planes):
                pj_max_pool(&x[p, 0, 0], h, w, ph, pw, oh, ow, &out[p, 0, 0], minus_inf,
                            &x[p + 1, 0, 0] if p + 1 < planes else NULL,
                            &out[p + 1, 0, 0] if p + 1 < planes else NULL)
        free(minus_inf)
        return
    with nogil:
        for p in range(planes):
            for oy in range(oh):
                for ox in range(ow):
                    out[p, oy, ox] = -INFINITY
            for i in range(kh):
                for j in range(kw):
                    _tap(&x[p, 0, 0], h, w, &out[p, 0, 0], oh, ow, i, j,
                         sh, sw, ph, pw, dh, dw, 0, True)


def avg_pool2d(const float[:, :, ::1] x, float[:, :, ::1] out, int kh, int kw, int sh, int sw,
               int ph, int pw, bint count_include_pad, long divisor_override):
    """``out[p, oy, ox]``: the mean of ``x[p]`` under the window at ``(oy*sh -
    ph, ox*sw - pw)``, summed in double and divided as torch does: by
    ``divisor_override`` if not 0, else by the window's size clipped to the
    padded input (``count_include_pad``) or to the input."""
    cdef Py_ssize_t planes = x.shape[0], h = x.shape[1], w = x.shape[2]
    cdef Py_ssize_t oh = out.shape[1], ow = out.shape[2]
    cdef Py_ssize_t p, oy, ox, iy, ix, y0, y1, x0, x1, divide
    cdef double total
    with nogil:
        for p in range(planes):
            for oy in range(oh):
                y0 = oy * sh - ph
                y1 = min(y0 + kh, h + ph)
                for ox in range(ow):
                    x0 = ox * sw - pw
                    x1 = min(x0 + kw, w + pw)
                    divide = (y1 - y0) * (x1 - x0)
                    total = 0
                    for iy in range(max(y0, 0), min(y1, h)):
                        for ix in range(max(x0, 0), min(x1, w)):
                            total += x[p, iy, ix]
                    if divisor_override:
                        divide = divisor_override
                    elif not count_include_pad:
                        divide = (min(y1, h) - max(y0, 0)) * (min(x1, w) - max(x0, 0))
                    out[p, oy, ox] = <float>(total / divide)


def plane_means(const float[:, ::1] x, float[::1] out, double divisor):
    """``out[p]``: the sum of plane ``x[p]`` in double, divided by ``divisor``
    (the plane's size, or an average pooling's ``divisor_override``) and rounded
    once: global average pooling, every squeeze-excitation block's."""
    cdef Py_ssize_t planes = x.shape[0], size = x.shape[1]
    if out.shape[0] != planes:
        raise ValueError(f"plane_means: {planes} planes into {out.shape[0]}")
    if planes == 0:
        return
    with nogil:
        pj_plane_means(&x[0, 0], planes, size, divisor, &out[0])
