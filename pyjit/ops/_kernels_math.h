/* The innermost loops of the kernels (pyjit/ops/_kernels_activations.pxi,
 * _kernels_conv.pxi and _kernels_norm.pxi, parts of _kernels.pyx), in C so
 * that they vectorise: the element functions make no calls and take no
 * branches (selects only, float constants only; libm's expf and erff are
 * calls, which GCC leaves scalar), and each loop is compiled
 * for AVX-512, AVX2 and the baseline, the one the CPU has chosen when the
 * module loads (target_clones).  On the AVX-512
 * machine this was written on, silu ran at 0.38 ns an element against 1.5 ns
 * with SSE2 alone, as fast as numpy's own exp. */
#ifndef PYJIT_KERNELS_MATH_H
#define PYJIT_KERNELS_MATH_H

#include <math.h>
#include <stdint.h>
#include <string.h>
#include <Python.h>  /* Py_ssize_t */

/* exp(x) = 2**n * exp(r), n the integer nearest x / ln 2 and |r| <= ln(2)/2,
 * exp(r) its Taylor polynomial to degree 7 (relative error below 2e-8, under
 * the float rounding that follows).  Exact at the ends: inf above 88.73, 0
 * below -104, a NaN stays NaN (every select is written so that a NaN passes
 * it); only a result under 2.3e-38 (a denormal, x below -86.6) is that
 * instead. */
static inline float pj_expf(float x) {
    float c = x > 88.72f ? 88.72f : x;
    c = c < -86.6f ? -86.6f : c;
    float t = c * 1.44269504088896340736f;
    /* t rounded to the nearest integer by 1.5*2**23: |t| < 2**22 after the clamp */
    float nf = (t + 12582912.0f) - 12582912.0f;
    int32_t n = (int32_t)nf;
    /* ln 2 in two parts, the first exact in float: r loses nothing */
    float r = (c - nf * 0.693145751953125f) - nf * 1.42860682030941723212e-6f;
    float p = 1.0f / 5040.0f;
    p = p * r + 1.0f / 720.0f;
    p = p * r + 1.0f / 120.0f;
    p = p * r + 1.0f / 24.0f;
    p = p * r + 1.0f / 6.0f;
    p = p * r + 0.5f;
    p = p * r + 1.0f;
    p = p * r + 1.0f;
    int32_t bits = (n + 126) << 23;   /* 2**(n-1): n reaches 128 at the top */
    float scale;
    memcpy(&scale, &bits, sizeof scale);
    p = p * scale * 2.0f;
    p = x > 88.73f ? INFINITY : p;
    return x < -104.0f ? 0.0f : p;
}

/* erf(x) by Abramowitz and Stegun 7.1.26 (|error| < 1.5e-7), the
 * approximation torch's vectorised float erf makes too. */
static inline float pj_erff(float x) {
    float a = x < 0.0f ? -x : x;
    float t = 1.0f / (1.0f + 0.3275911f * a);
    float poly = ((((1.061405429f * t - 1.453152027f) * t + 1.421413741f) * t - 0.284496736f)
                  * t + 0.254829592f) * t;
    float r = 1.0f - poly * pj_expf(-a * a);
    return x < 0.0f ? -r : r;
}

/* tanh(x) = 1 - 2 / (exp(2x) + 1): absolute error a few 1e-8, meant for
 * 1 + tanh as in gelu's approximation. */
static inline float pj_tanh_for_gelu(float x) {
    return 1.0f - 2.0f / (pj_expf(2.0f * x) + 1.0f);
}

/* (unused: each module including this uses some of the loops) */
#if defined(__GNUC__) && defined(__x86_64__) && defined(__linux__)
#define PJ_CLONES __attribute__((target_clones("avx512f", "avx2", "default"), unused))
#elif defined(__GNUC__)
#define PJ_CLONES __attribute__((unused))
#else
#define PJ_CLONES
#endif

/* The multiply-add loops (the recurrent product, a convolution's taps) are
 * compiled for the x86-64 levels (v4: AVX-512 with its 256-bit forms, v3: AVX2
 * and FMA) rather than "avx512f"/"avx2", which leave out FMA on 256-bit
 * vectors: a multiply and an add for each, half the speed. */
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12 && defined(__x86_64__) && \
    defined(__linux__)   /* the levels' clones are GCC 12's */
#define PJ_GEMM_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", \
                                                    "default"), unused))
#else
#define PJ_GEMM_CLONES PJ_CLONES
#endif

#define PJ_SQRT1_2 0.70710678118654752440f
#define PJ_SQRT_2_OVER_PI 0.79788456080286535588f

/* Each loop reads x[i] before it writes out[i]: out may be x. */

PJ_CLONES static void pj_gelu_erf_loop(const float* x, float* out, Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++) {
        float v = x[i];
        out[i] = 0.5f * v * (1.0f + pj_erff(v * PJ_SQRT1_2));
    }
}

PJ_CLONES static void pj_gelu_tanh_loop(const float* x, float* out, Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++) {
        float v = x[i];
        out[i] = 0.5f * v * (1.0f + pj_tanh_for_gelu(PJ_SQRT_2_OVER_PI *
                                                      (v + 0.044715f * v * v * v)));
    }
}

PJ_CLONES static void pj_silu_loop(const float* x, float* out, Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++)
        out[i] = x[i] / (1.0f + pj_expf(-x[i]));
}

PJ_CLONES static void pj_sigmoid_loop(const float* x, float* out, Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++)
        out[i] = 1.0f / (1.0f + pj_expf(-x[i]));
}

/* x * relu6(x + 3) / 6: selects, not fmaxf, which would not vectorise; a NaN
 * fails both comparisons and the factor v keeps it. */
PJ_CLONES static void pj_hardswish_loop(const float* x, float* out, Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++) {
        float v = x[i], t = v + 3.0f;
        t = t < 0.0f ? 0.0f : t;
        t = t > 6.0f ? 6.0f : t;
        out[i] = v * t / 6.0f;
    }
}

/* The larger of x and lo, then the smaller of that and hi, as numpy's
 * maximum and minimum (and so np.clip) give them: a NaN stays NaN (it fails
 * both comparisons), -0.0 against 0 stays -0.0.  relu is lo = 0, hi = inf;
 * relu6 and hardtanh their bounds.  numpy's own maximum of a float32 array and
 * a scalar ran at 0.7 ns an element here, four times a copy's time. */
PJ_CLONES static void pj_clamp_loop(const float* x, float* out, Py_ssize_t n, float lo,
                                    float hi) {
    for (Py_ssize_t i = 0; i < n; i++) {
        float v = x[i];
        v = v < lo ? lo : v;
        out[i] = v > hi ? hi : v;
    }
}

/* hardsigmoid as the generic path computes it: x / 6 + 0.5 (each rounded to
 * float), clipped to [0, 1]. */
PJ_CLONES static void pj_hardsigmoid_loop(const float* x, float* out, Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++) {
        float v = x[i] / 6.0f + 0.5f;
        v = v < 0.0f ? 0.0f : v;
        out[i] = v > 1.0f ? 1.0f : v;
    }
}

/* out[i] = x[i] * a + b: one plane of an inference batch norm. */
PJ_CLONES static void pj_affine_loop(const float* x, float a, float b, float* out,
                                     Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++)
        out[i] = x[i] * a + b;
}

/* out[i] = x[i] * a + b clamped to [lo, hi], a NaN staying NaN: a plane of a
 * batch norm fused with its convolution and ReLU. */
PJ_CLONES static void pj_affine_clamp_loop(const float* x, float a, float b, float lo,
                                           float hi, float* out, Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++) {
        float v = x[i] * a + b;
        v = v < lo ? lo : v;
        out[i] = v > hi ? hi : v;
    }
}

/* The sum of x[0..n) in double, in eight running sums (element i into sum
 * i % 8; the tail into the first ones), added at the end in a fixed order:
 * independent chains, so that the loop vectorises without reassociating, and
 * the same result on every CPU. */
#define PJ_INLINE static inline __attribute__((always_inline, unused))

PJ_INLINE double pj_sum_double_in(const float* x, Py_ssize_t n) {
    double s[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    Py_ssize_t i = 0;
    for (; i + 8 <= n; i += 8)
        for (int j = 0; j < 8; j++)
            s[j] += x[i + j];
    for (int j = 0; i < n; i++, j++)
        s[j] += x[i];
    return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
}

/* (The body is always inlined into pj_plane_means, which sums plane after
 * plane in one call of its own: a call through the clones' dispatch costs
 * more than a short plane.) */
PJ_CLONES static double pj_sum_double(const float* x, Py_ssize_t n) {
    return pj_sum_double_in(x, n);
}

/* out[p] = (float)(sum of x[p * n .. p * n + n) in double / divisor), every
 * plane in one call: a squeeze-excitation block's 1152 planes of 7x7 took a
 * call through the clones' dispatch each, a third of their time. */
PJ_CLONES static void pj_plane_means(const float* x, Py_ssize_t planes, Py_ssize_t n,
                                     double divisor, float* out) {
    for (Py_ssize_t p = 0; p < planes; p++)
        out[p] = (float)((n ? pj_sum_double_in(x + p * n, n) : 0.0) / divisor);
}

/* The sum of (x[i] - m)**2 in double, by eight running sums as pj_sum_double:
 * a row's variance about its mean (layer and group norm).  One running sum
 * waits on its own latency at every element: with it and the mean's, a layer
 * norm over Swin's 3136 rows of 96 took 878 us, with these 243 us. */
PJ_CLONES static double pj_sumsq_dev_double(const float* x, double m, Py_ssize_t n) {
    double s[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    Py_ssize_t i = 0;
    for (; i + 8 <= n; i += 8)
        for (int j = 0; j < 8; j++) {
            double d = x[i + j] - m;
            s[j] += d * d;
        }
    for (int j = 0; i < n; i++, j++) {
        double d = x[i] - m;
        s[j] += d * d;
    }
    return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
}

/* One row of a layer norm: out[i] = (x[i] - m) * s * w[i] + b[i], w or b NULL
 * for none (the branch is taken once, outside each loop). */
PJ_CLONES static void pj_norm_row(const float* x, float m, float s, const float* w,
                                  const float* b, float* out, Py_ssize_t n) {
    if (w && b)
        for (Py_ssize_t i = 0; i < n; i++)
            out[i] = (x[i] - m) * s * w[i] + b[i];
    else if (w)
        for (Py_ssize_t i = 0; i < n; i++)
            out[i] = (x[i] - m) * s * w[i];
    else if (b)
        for (Py_ssize_t i = 0; i < n; i++)
            out[i] = (x[i] - m) * s + b[i];
    else
        for (Py_ssize_t i = 0; i < n; i++)
            out[i] = (x[i] - m) * s;
}

/* Eight floats as GCC's and Clang's generic vectors, and the unaligned,
 * aliasing form that reads any float array (pj_max_nan's lanes). */
typedef float pj_f8 __attribute__((vector_size(32)));
typedef float pj_f8u __attribute__((vector_size(32), aligned(4), may_alias));
typedef int pj_i8m __attribute__((vector_size(32)));

/* m = v lane by lane where v > m or v is a NaN: pj_max_nan's step (a macro:
 * a function taking vectors by value is an ABI of its own in the baseline
 * clone). */
#define PJ_MAX_NAN8(m, v)                                                     \
    do {                                                                      \
        pj_f8 v_ = (v);                                                       \
        pj_i8m take_ = (v_ > (m)) | (v_ != v_);                               \
        (m) = (pj_f8)(((pj_i8m)v_ & take_) | ((pj_i8m)(m) & ~take_));         \
    } while (0)

/* The largest of x[:n] (-inf if n is 0), or a NaN if x holds one: lanes of
 * selects, where a scalar loop's early return for a NaN keeps it from
 * vectorising.  The lanes are vector registers, written as such: as an array
 * of eight, GCC kept them in memory and each step waited for the last one's
 * stores; two chains, since each select waits for the one before (a 197-long
 * row 205 -> 46 ns).  A lane keeps a NaN once it has one (v > NaN is false),
 * and the lanes are combined by the same rule. */
PJ_CLONES static float pj_max_nan(const float* x, Py_ssize_t n) {
    pj_f8 mv = {-INFINITY, -INFINITY, -INFINITY, -INFINITY,
                -INFINITY, -INFINITY, -INFINITY, -INFINITY};
    pj_f8 mw = mv;
    Py_ssize_t i = 0;
    for (; i + 16 <= n; i += 16) {
        PJ_MAX_NAN8(mv, *(const pj_f8u*)(x + i));
        PJ_MAX_NAN8(mw, *(const pj_f8u*)(x + i + 8));
    }
    for (; i + 8 <= n; i += 8)
        PJ_MAX_NAN8(mv, *(const pj_f8u*)(x + i));
    PJ_MAX_NAN8(mv, mw);
    float m[8];
    memcpy(m, &mv, sizeof m);
    for (int j = 0; i < n; i++, j++) {
        float v = x[i];
        m[j] = (v > m[j] || v != v) ? v : m[j];
    }
    float r = m[0];
    for (int j = 1; j < 8; j++)
        r = (m[j] > r || m[j] != m[j]) ? m[j] : r;
    return r;
}

/* x[i] *= k: softmax's last pass. */
PJ_CLONES static void pj_scale_loop(float* x, float k, Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++)
        x[i] = x[i] * k;
}

/* out[i] = exp(x[i] - shift): softmax's middle pass. */
PJ_CLONES static void pj_exp_shifted_loop(const float* x, float shift, float* out,
                                          Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++)
        out[i] = pj_expf(x[i] - shift);
}

/* Softmax (log: log-softmax) of each of rows rows of d floats, x's rows ldx
 * floats apart and out's ldo (out may be x): the row's maximum, the sum of
 * exp(x - max) in double, then each element; a row whose maximum is not finite is shifted by 0, as
 * torch does (libm's expf then, exact where x has infinities); each pass one
 * call of its clones (the short rows of attention take _kernels_softmax.h's
 * blocks of 16 instead). */
static void pj_softmax_rows(const float* x, Py_ssize_t ldx, float* out, Py_ssize_t ldo,
                            Py_ssize_t rows, Py_ssize_t d, int log) {
    for (Py_ssize_t r = 0; r < rows; r++) {
        const float* src = x + r * ldx;
        float* dst = out + r * ldo;
        float m = pj_max_nan(src, d);
        if (m - m == 0) {
            pj_exp_shifted_loop(src, m, dst, d);
        } else {   /* an infinite or NaN maximum (m - m is NaN) */
            m = 0;
            for (Py_ssize_t j = 0; j < d; j++)
                dst[j] = expf(src[j]);
        }
        double total = pj_sum_double(dst, d);
        if (log) {
            float scale = logf((float)total);
            for (Py_ssize_t j = 0; j < d; j++)
                dst[j] = (src[j] - m) - scale;
        } else {
            pj_scale_loop(dst, (float)(1 / total), d);
        }
    }
}

/* Along one output row of a convolution or pooling tap: o[i] += k * x[i*stride]
 * (depthwise convolution), and o[i] = the larger of o[i] and x[i*stride], a NaN
 * winning and staying (max pooling, as torch's: (v > o) || isnan(v)). */
PJ_CLONES static void pj_axpy_row(float k, const float* x, Py_ssize_t stride, float* o,
                                  Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++)
        o[i] += k * x[i * stride];
}

/* d[i] = x[i * stride], i < n: a row of a convolution's phase plane.  Stride 2
 * (every stride-2 layer's) is its own loop, which GCC vectorises with
 * shuffles; a copy of a stride-2 plane was otherwise the larger part of a
 * stride-2 depthwise layer's time. */
PJ_CLONES static void pj_strided_copy(const float* x, Py_ssize_t stride, float* d,
                                      Py_ssize_t n) {
    if (stride == 2) {
        for (Py_ssize_t i = 0; i < n; i++)
            d[i] = x[2 * i];
    } else {
        for (Py_ssize_t i = 0; i < n; i++)
            d[i] = x[i * stride];
    }
}

/* A depthwise convolution's taps over one output plane laid out with row pitch
 * wq (the columns past the output's width are computed and ignored): acc[q] +=
 * k[t] * src[offs[t] + q] for every tap t in order, q < n.  src holds the input
 * plane padded (its phases, for a stride above 1), so that every tap is one
 * contiguous run with no bounds to test.  The plane is walked 32 outputs at a
 * time, kept in registers (two zmm with AVX-512, four ymm with AVX2) while
 * every tap is added to them: one load and one multiply-add per vector and
 * tap, acc read and written once.
 * The last group of 32 reads and writes past n: acc must hold n rounded up to
 * 32, and src 32 floats past its last tap's run (their results are
 * ignored). */
#define PJ_TAP_GROUP 32
#if defined(__GNUC__)
/* 8 floats: a ymm register with AVX2 and AVX-512 (a loop over a plain array
 * here, GCC 12 unrolls by two taps and leaves scalar; 16-float vectors it
 * lowers for AVX2 through the stack) */
typedef float pj_v8 __attribute__((vector_size(32), aligned(4), may_alias));
PJ_GEMM_CLONES static void pj_taps_sum(const float* src, const Py_ssize_t* offs,
                                       const float* k, Py_ssize_t ntaps, float* acc,
                                       Py_ssize_t n) {
    for (Py_ssize_t q = 0; q < n; q += PJ_TAP_GROUP) {
        pj_v8* a = (pj_v8*)(acc + q);
        pj_v8 a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3];
        for (Py_ssize_t t = 0; t < ntaps; t++) {
            const pj_v8* s = (const pj_v8*)(src + offs[t] + q);
            float kt = k[t];
            pj_v8 kv = {kt, kt, kt, kt, kt, kt, kt, kt};
            a0 += kv * s[0];
            a1 += kv * s[1];
            a2 += kv * s[2];
            a3 += kv * s[3];
        }
        a[0] = a0;
        a[1] = a1;
        a[2] = a2;
        a[3] = a3;
    }
}
/* pj_taps_sum for two output planes at once, over the same src and taps
 * (weights k0 and k1): each source vector is loaded once for both, 8
 * accumulators; a convolution over few input channels (a stem's 3) is
 * otherwise bound by its loads. */
PJ_GEMM_CLONES static void pj_taps_sum2(const float* src, const Py_ssize_t* offs,
                                        const float* k0, const float* k1, Py_ssize_t ntaps,
                                        float* acc0, float* acc1, Py_ssize_t n) {
    for (Py_ssize_t q = 0; q < n; q += PJ_TAP_GROUP) {
        pj_v8* a = (pj_v8*)(acc0 + q);
        pj_v8* b = (pj_v8*)(acc1 + q);
        pj_v8 a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3];
        pj_v8 b0 = b[0], b1 = b[1], b2 = b[2], b3 = b[3];
        for (Py_ssize_t t = 0; t < ntaps; t++) {
            const pj_v8* s = (const pj_v8*)(src + offs[t] + q);
            float kt = k0[t], lt = k1[t];
            pj_v8 kv = {kt, kt, kt, kt, kt, kt, kt, kt};
            pj_v8 lv = {lt, lt, lt, lt, lt, lt, lt, lt};
            pj_v8 s0 = s[0], s1 = s[1], s2 = s[2], s3 = s[3];
            a0 += kv * s0;
            a1 += kv * s1;
            a2 += kv * s2;
            a3 += kv * s3;
            b0 += lv * s0;
            b1 += lv * s1;
            b2 += lv * s2;
            b3 += lv * s3;
        }
        a[0] = a0;
        a[1] = a1;
        a[2] = a2;
        a[3] = a3;
        b[0] = b0;
        b[1] = b1;
        b[2] = b2;
        b[3] = b3;
    }
}
#else
static void pj_taps_sum(const float* src, const Py_ssize_t* offs, const float* k,
                        Py_ssize_t ntaps, float* acc, Py_ssize_t n) {
    for (Py_ssize_t t = 0; t < ntaps; t++)
        for (Py_ssize_t q = 0; q < n; q++)
            acc[q] += k[t] * src[offs[t] + q];
}
static void pj_taps_sum2(const float* src, const Py_ssize_t* offs, const float* k0,
                         const float* k1, Py_ssize_t ntaps, float* acc0, float* acc1,
                         Py_ssize_t n) {
    pj_taps_sum(src, offs, k0, ntaps, acc0, n);
    pj_taps_sum(src, offs, k1, ntaps, acc1, n);
}
#endif

PJ_CLONES static void pj_max_row(const float* x, Py_ssize_t stride, float* o, Py_ssize_t n) {
    for (Py_ssize_t i = 0; i < n; i++) {
        float v = x[i * stride], c = o[i];
        o[i] = ((v > c) | (v != v)) ? v : c;
    }
}

#endif
