/* A depthwise convolution's plane at stride 1 or 2, for the MobileNets' and
 * EfficientNets' 3x3 and 5x5 layers: out = clamp((bias + taps . window) *
 * scale + shift, lo, hi), one input plane into one output plane.
 *
 * Why not pj_taps_sum, which every other depthwise plane takes: it sums one
 * tap over the whole (zero-padded copy of the) plane at a time, so each
 * partial sum goes through memory once a tap, every unaligned load of the
 * source serves one tap of one output row, and the bias, the batch norm's
 * map and the clamp are a pass of their own.  Here a block of 7 output rows
 * by 16 columns is summed in registers from first tap to last, the taps held
 * in registers too: every load of an input row serves the taps of each row of
 * the block below it, 7 accumulators keep two FMAs a cycle in flight, and
 * the epilogue is applied before the one store.  The input is read where it is, no padded
 * copy made: a tap's lanes over the padding are masked off their load (read
 * as 0, never touched), a row of the padding reads zeros.  The last block of
 * a plane overlaps the one before it, those rows computed twice alike.  On
 * one core of the development machine: mnasnet0_5's 576-channel 7x7 layers,
 * 142 -> 67 ns a channel; a 112x112 plane 9.4 -> 4.3 us (there, the time of
 * reading and writing the planes).  The taps add in order (0, 0), (0, 1), ...
 * onto the bias, as the numpy reference adds them, each by one FMA.
 *
 * A max pooling's 3x3 windows at stride 2 are the same walk with a max for
 * the FMA and -inf for the padding (PJ_DW_MAX): SqueezeNet's three poolings,
 * 1.45 -> 0.3 ms. */
#ifndef PYJIT_KERNELS_DEPTHWISE_H
#define PYJIT_KERNELS_DEPTHWISE_H

#include "_kernels_gemm.h"   /* PJ_HAVE_GEMM, immintrin.h, pj_gemm_level, pj_lanes_inside */

#if PJ_HAVE_GEMM

/* What a body does with the KH x KH window: sums it by the taps (a
 * depthwise convolution), or takes its largest element, NaN winning (a max
 * pooling, whose padding is -inf). */
#define PJ_DW_SUM 0
#define PJ_DW_MAX 1

/* Output rows a block holds: 7 accumulators, each a chain of KH * KH
 * dependent FMAs, keep two FMAs a cycle in flight despite each one's latency
 * (as fast on wide planes as blocks of 4 rows by 32 columns, which have 8,
 * and fewer loads a row). */
#define PJ_DW_ROWS 7

/* acc, or v where v is larger or NaN: torch's max pooling, tap by tap. */
__attribute__((target("avx512f"), always_inline)) static inline __m512
pj_dw_max(__m512 acc, __m512 v) {
    return _mm512_mask_mov_ps(_mm512_max_ps(v, acc), _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q), v);
}

/* A body for KH x KH taps at stride S (1 or 2), blocks of PJ_DW_ROWS rows by
 * 16 columns.  At stride 2 the 16 inputs of a tap are every other one of 32
 * loaded, picked out by one permute; taps j and j + 1 share their loads (the
 * even inputs and the odd ones).  OP PJ_DW_MAX: the same walk over a max
 * pooling's windows (bias -inf, k unread, no epilogue). */
#define PJ_DW512(NAME, OP, KH, S)                                                   \
__attribute__((target("avx512f,fma"))) static void                                  \
pj_dw512_##NAME(const float* x, Py_ssize_t h, Py_ssize_t w, int ph, int pw,         \
                const float* k, Py_ssize_t oh, Py_ssize_t ow, float bias, float scale,   \
                float shift, float lo, float hi, float* out, const float* zeros,    \
                const float* nx, float* nout) {                                     \
    enum { RB = PJ_DW_ROWS, ROWS = S * (RB - 1) + KH, LOADS = S == 1 ? KH : (KH + 1) / 2 }; \
    /* the next plane's input and output, a block's share of their lines      \
     * asked for as each block is summed (see pj_depthwise) */                  \
    Py_ssize_t steps = ((oh + RB - 1) / RB) * ((ow + 15) / 16), step = 0;           \
    Py_ssize_t in_lines = nx ? (h * w + 15) / 16 : 0;                               \
    Py_ssize_t out_lines = nout ? (oh * ow + 15) / 16 : 0;                          \
    Py_ssize_t in_share = (in_lines + steps - 1) / steps;                           \
    Py_ssize_t out_share = (out_lines + steps - 1) / steps;                         \
    __m512 tap[KH][KH];                                                             \
    _Pragma("GCC unroll 5") for (int i = 0; i < KH; i++)                           \
        _Pragma("GCC unroll 5") for (int j = 0; j < KH; j++)                        \
            tap[i][j] = _mm512_set1_ps(OP == PJ_DW_SUM ? k[i * KH + j] : 0.0f);     \
    __m512 pad = _mm512_set1_ps(OP == PJ_DW_SUM ? 0.0f : -INFINITY);                \
    __m512 vb = _mm512_set1_ps(bias), vf = _mm512_set1_ps(scale);                   \
    __m512 vs = _mm512_set1_ps(shift), vlo = _mm512_set1_ps(lo);                    \
    __m512 vhi = _mm512_set1_ps(hi);                                                \
    __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24,  \
                                     26, 28, 30);                                   \
    __m512i odd = _mm512_add_epi32(even, _mm512_set1_epi32(1));                     \
    for (Py_ssize_t oy = 0; oy < oh; oy += RB) {                                    \
        if (oy + RB > oh)                                                           \
            oy = oh - RB;   /* the last block: overlapping the one before */        \
        const float* row[ROWS];   /* a row in the padding: zeros */                 \
        _Pragma("GCC unroll 16") for (int ir = 0; ir < ROWS; ir++) {                \
            Py_ssize_t iy = oy * S + ir - ph;                                       \
            row[ir] = iy >= 0 && iy < h ? x + iy * w : zeros;                       \
        }                                                                           \
        for (Py_ssize_t ox = 0; ox < ow; ox += 16, step++) {                        \
            for (Py_ssize_t l = step * in_share; l < (step + 1) * in_share &&       \
                 l < in_lines; l++)                                                 \
                __builtin_prefetch(nx + 16 * l, 0, 2);                              \
            for (Py_ssize_t l = step * out_share; l < (step + 1) * out_share &&     \
                 l < out_lines; l++)                                                \
                __builtin_prefetch(nout + 16 * l, 1, 2);                            \
            /* load l starts at input column a[l] (at stride 2 a pair of        \
             * loads, the second 16 columns on) */                              \
            Py_ssize_t a[LOADS];                                                    \
            __mmask16 in[LOADS][S];                                                 \
            Py_ssize_t left = ow - ox;                                              \
            __mmask16 m = left >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << left) - 1); \
            _Pragma("GCC unroll 5") for (int l = 0; l < LOADS; l++) {               \
                a[l] = S * ox - pw + S * l;                                         \
                _Pragma("GCC unroll 2") for (int u = 0; u < S; u++)                 \
                    in[l][u] = pj_lanes_inside(a[l] + 16 * u, w);                      \
            }                                                                       \
            __m512 acc[RB];                                                         \
            _Pragma("GCC unroll 8") for (int r = 0; r < RB; r++)                   \
                acc[r] = vb;                                                        \
            /* input row oy*S + ir - ph is tap row ir - S*r of output row oy + r */ \
            _Pragma("GCC unroll 16") for (int ir = 0; ir < ROWS; ir++)              \
                _Pragma("GCC unroll 5") for (int l = 0; l < LOADS; l++) {           \
                    /* masked lanes are neither read nor faulted on */              \
                    const float* s = row[ir] + a[l];                                \
                    __m512 v0 = _mm512_mask_loadu_ps(pad, in[l][0], s), v1 = v0;    \
                    if (S == 2)                                                     \
                        v1 = _mm512_mask_loadu_ps(pad, in[l][S - 1], s + 16);       \
                    _Pragma("GCC unroll 2") for (int u = 0; u < S; u++) {           \
                        int j = S * l + u;                                          \
                        if (j >= KH)                                                \
                            continue;                                               \
                        __m512 v = S == 1 ? v0 : _mm512_permutex2var_ps(            \
                            v0, u ? odd : even, v1);                                \
                        _Pragma("GCC unroll 8") for (int r = 0; r < RB; r++)       \
                            if (ir - S * r >= 0 && ir - S * r < KH)                 \
                                acc[r] = OP == PJ_DW_MAX ? pj_dw_max(acc[r], v)     \
                                    : _mm512_fmadd_ps(tap[ir - S * r][j], v, acc[r]); \
                    }                                                               \
                }                                                                   \
            _Pragma("GCC unroll 8") for (int r = 0; r < RB; r++) {                 \
                /* the value second: max/min give it back when it is NaN */        \
                __m512 y = OP == PJ_DW_MAX ? acc[r] : _mm512_min_ps(vhi,            \
                    _mm512_max_ps(vlo, _mm512_fmadd_ps(acc[r], vf, vs)));            \
                _mm512_mask_storeu_ps(out + (oy + r) * ow + ox, m, y);              \
            }                                                                       \
        }                                                                           \
    }                                                                               \
}
PJ_DW512(3_1, PJ_DW_SUM, 3, 1) PJ_DW512(5_1, PJ_DW_SUM, 5, 1)
PJ_DW512(3_2, PJ_DW_SUM, 3, 2) PJ_DW512(5_2, PJ_DW_SUM, 5, 2)
/* the CNNs' max pooling: 3x3 at stride 2 (resnet18's, SqueezeNet's, ShuffleNet's) */
PJ_DW512(max, PJ_DW_MAX, 3, 2)

typedef void (*pj_dw512_fn)(const float*, Py_ssize_t, Py_ssize_t, int, int, const float*,
                            Py_ssize_t, Py_ssize_t, float, float, float, float, float, float*,
                            const float*, const float*, float*);
/* by [kernel 5][stride 2] */
static const pj_dw512_fn pj_dw512_sums[2][2] = {{pj_dw512_3_1, pj_dw512_3_2},
                                                {pj_dw512_5_1, pj_dw512_5_2}};

/* A CNN's stem: a dense 3x3 convolution at stride 2 of an image of few
 * channels (C * 9 taps an output), out = clamp((sum of the taps in order (c,
 * i, j)) * scale + shift, lo, hi) per output channel.  As a GEMM its panels
 * are a strided gather of 27 taps (half its time), and summed over phase
 * planes (conv2d_direct) every partial sum goes through memory: here a block
 * of 16 output columns of one row is summed for 8 output channels at once in
 * registers, each input vector (a pair of loads, every other element picked
 * by a permute, as the depthwise bodies' stride 2) serving the 8, the weights
 * broadcast from memory, the padding masked off the loads (a row of it read
 * from zeros).  No FMA for an output past O. */
#define PJ_STEM_OC 8

/* One block of pj_conv3x3s2_512: no (at most PJ_STEM_OC) output channels from
 * o0, 16 columns from ox of output row oy.  Inlined with no a constant for
 * full blocks: with a bound known only at run time, GCC kept the
 * accumulators in memory (2.3x slower). */
__attribute__((target("avx512f,fma"), always_inline)) static inline void
pj_stem_block(const float* x, Py_ssize_t C, Py_ssize_t h, Py_ssize_t w, int ph, int pw,
              const float* wt, Py_ssize_t o0, int no, Py_ssize_t oh, Py_ssize_t ow,
              Py_ssize_t oy, Py_ssize_t ox, const float* scale, const float* shift,
              __m512 vlo, __m512 vhi, float* out, const float* zeros) {
    __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
    __m512i odd = _mm512_add_epi32(even, _mm512_set1_epi32(1));
    Py_ssize_t left = ow - ox, a0 = 2 * ox - pw;
    __mmask16 m = left >= 16 ? (__mmask16)0xFFFF : (__mmask16)((1u << left) - 1);
    __mmask16 in0 = pj_lanes_inside(a0, w), in1 = pj_lanes_inside(a0 + 16, w);
    __mmask16 in2 = pj_lanes_inside(a0 + 2, w), in3 = pj_lanes_inside(a0 + 18, w);
    __m512 acc[PJ_STEM_OC];
    for (int q = 0; q < no; q++)
        acc[q] = _mm512_setzero_ps();
    for (Py_ssize_t c = 0; c < C; c++)
        for (int i = 0; i < 3; i++) {
            Py_ssize_t iy = 2 * oy - ph + i;
            const float* row = iy >= 0 && iy < h ? x + (c * h + iy) * w : zeros;
            __m512 v0 = _mm512_maskz_loadu_ps(in0, row + a0);
            __m512 v1 = _mm512_maskz_loadu_ps(in1, row + a0 + 16);
            __m512 u0 = _mm512_maskz_loadu_ps(in2, row + a0 + 2);
            __m512 u1 = _mm512_maskz_loadu_ps(in3, row + a0 + 18);
            /* tap j reads columns a0 + j + 2t */
            __m512 t0 = _mm512_permutex2var_ps(v0, even, v1);
            __m512 t1 = _mm512_permutex2var_ps(v0, odd, v1);
            __m512 t2 = _mm512_permutex2var_ps(u0, even, u1);
            const float* k = wt + ((o0 * C + c) * 3 + i) * 3;
            for (int q = 0; q < no; q++) {
                const float* kq = k + q * C * 9;
                acc[q] = _mm512_fmadd_ps(_mm512_set1_ps(kq[0]), t0, acc[q]);
                acc[q] = _mm512_fmadd_ps(_mm512_set1_ps(kq[1]), t1, acc[q]);
                acc[q] = _mm512_fmadd_ps(_mm512_set1_ps(kq[2]), t2, acc[q]);
            }
        }
    for (int q = 0; q < no; q++) {
        Py_ssize_t o = o0 + q;
        __m512 f = _mm512_set1_ps(scale ? scale[o] : 1.0f);
        __m512 s = _mm512_set1_ps(shift ? shift[o] : -0.0f);
        /* the value second: max/min give it back when it is NaN */
        __m512 y = _mm512_min_ps(vhi, _mm512_max_ps(vlo, _mm512_fmadd_ps(acc[q], f, s)));
        _mm512_mask_storeu_ps(out + (o * oh + oy) * ow + ox, m, y);
    }
}

/* A CNN's stem: a dense 3x3 convolution at stride 2 of an image of few
 * channels (C * 9 taps an output), out = clamp((sum of the taps in order (c,
 * i, j)) * scale + shift, lo, hi) per output channel.  As a GEMM its panels
 * are a strided gather of 27 taps (half its time), and summed over phase
 * planes (conv2d_direct) every partial sum goes through memory: here a block
 * of 16 output columns of one row is summed for 8 output channels at once in
 * registers, each input vector (a pair of loads, every other element picked
 * by a permute, as the depthwise bodies' stride 2) serving the 8, the weights
 * broadcast from memory, the padding masked off the loads (a row of it read
 * from zeros); the output channels 8 at a time outermost, so that 8 planes
 * are written at once. */
__attribute__((target("avx512f,fma"))) static void
pj_conv3x3s2_512(const float* x, Py_ssize_t C, Py_ssize_t h, Py_ssize_t w, int ph, int pw,
                 const float* wt, Py_ssize_t O, Py_ssize_t oh, Py_ssize_t ow, const float* scale,
                 const float* shift, float lo, float hi, float* out, const float* zeros) {
    __m512 vlo = _mm512_set1_ps(lo), vhi = _mm512_set1_ps(hi);
    for (Py_ssize_t o0 = 0; o0 < O; o0 += PJ_STEM_OC) {
        int no = O - o0 < PJ_STEM_OC ? (int)(O - o0) : PJ_STEM_OC;
        for (Py_ssize_t oy = 0; oy < oh; oy++)
            for (Py_ssize_t ox = 0; ox < ow; ox += 16) {
                if (no == PJ_STEM_OC)
                    pj_stem_block(x, C, h, w, ph, pw, wt, o0, PJ_STEM_OC, oh, ow, oy, ox, scale,
                                  shift, vlo, vhi, out, zeros);
                else
                    pj_stem_block(x, C, h, w, ph, pw, wt, o0, no, oh, ow, oy, ox, scale, shift,
                                  vlo, vhi, out, zeros);
            }
    }
}

#endif  /* PJ_HAVE_GEMM */

/* Whether pj_conv3x3s2 has a body on this CPU (AVX-512, not capped by the
 * tests, pj_gemm_cap). */
static int pj_conv3x3s2_takes(void) {
#if PJ_HAVE_GEMM
    return pj_gemm_level() >= 2;
#else
    return 0;
#endif
}

/* See pj_conv3x3s2_512: x (C, h, w), wt (O, C, 3, 3), out (O, oh, ow), zeros
 * w + 32 zeros.  Only where pj_conv3x3s2_takes says so. */
static void pj_conv3x3s2(const float* x, Py_ssize_t C, Py_ssize_t h, Py_ssize_t w, int ph,
                         int pw, const float* wt, Py_ssize_t O, Py_ssize_t oh, Py_ssize_t ow,
                         const float* scale, const float* shift, float lo, float hi, float* out,
                         const float* zeros) {
#if PJ_HAVE_GEMM
    pj_conv3x3s2_512(x, C, h, w, ph, pw, wt, O, oh, ow, scale, shift, lo, hi, out, zeros);
#else
    (void)x; (void)C; (void)h; (void)w; (void)ph; (void)pw; (void)wt; (void)O; (void)oh;
    (void)ow; (void)scale; (void)shift; (void)lo; (void)hi; (void)out; (void)zeros;
#endif
}

/* Whether pj_depthwise takes a kh x kw kernel at stride sh x sw onto an oh x
 * ow plane on this CPU: an AVX-512 one (not capped by the tests,
 * pj_gemm_cap), a 3x3 or 5x5 kernel, the same stride 1 or 2 both ways, a
 * plane of at least the rows of one block (PJ_DW_ROWS). */
static int pj_depthwise_takes(int kh, int kw, int sh, int sw, Py_ssize_t oh, Py_ssize_t ow) {
#if PJ_HAVE_GEMM
    return oh >= PJ_DW_ROWS && ow > 0 && kh == kw && (kh == 3 || kh == 5) &&
           sh == sw && (sh == 1 || sh == 2) && pj_gemm_level() >= 2;
#else
    (void)kh; (void)kw; (void)sh; (void)sw; (void)oh; (void)ow;
    return 0;
#endif
}

/* The output plane out (oh x ow) of the input plane x (h x w) zero-padded by
 * ph rows and pw columns before, for the kh x kh taps k at stride s (see
 * above); zeros: w zeros, the rows of the padding.  Only where
 * pj_depthwise_takes says so.
 *
 * nx and nout, where not NULL, are the next plane's input (h x w) and output
 * (oh x ow): while this plane is summed, their lines are asked for (into L2;
 * the output's to be written), a share at each block.  In a model a plane's
 * input was written layers ago and its output block was last used as long
 * ago: both came from memory, a line at a time as the blocks reached them,
 * and a MobileNet's 56x56 planes took 85 us a layer where they take 31 with
 * the data in cache. */
static void pj_depthwise(const float* x, Py_ssize_t h, Py_ssize_t w, int ph, int pw,
                         const float* k, int kh, int s, Py_ssize_t oh, Py_ssize_t ow,
                         float bias, float scale, float shift, float lo, float hi, float* out,
                         const float* zeros, const float* nx, float* nout) {
#if PJ_HAVE_GEMM
    pj_dw512_sums[kh == 5][s == 2](x, h, w, ph, pw, k, oh, ow, bias, scale, shift, lo, hi, out,
                                   zeros, nx, nout);
#else
    (void)x; (void)h; (void)w; (void)ph; (void)pw; (void)k; (void)kh; (void)s; (void)oh;
    (void)ow; (void)bias; (void)scale; (void)shift; (void)lo; (void)hi; (void)out;
    (void)zeros; (void)nx; (void)nout;
#endif
}

/* Whether pj_max_pool takes a max pooling of kh x kw windows at stride sh x
 * sw, dilation dh x dw, onto an oh x ow plane on this CPU: AVX-512, 3x3
 * windows at stride 2, undilated, a plane of at least one block's rows. */
static int pj_max_pool_takes(int kh, int kw, int sh, int sw, int dh, int dw, Py_ssize_t oh,
                             Py_ssize_t ow) {
#if PJ_HAVE_GEMM
    return kh == 3 && kw == 3 && sh == 2 && sw == 2 && dh == 1 && dw == 1 &&
           oh >= PJ_DW_ROWS && ow > 0 && pj_gemm_level() >= 2;
#else
    (void)kh; (void)kw; (void)sh; (void)sw; (void)dh; (void)dw; (void)oh; (void)ow;
    return 0;
#endif
}

/* The output plane out (oh x ow) of the 3x3 max pooling at stride 2 of the
 * input plane x (h x w), padded by ph rows and pw columns before (-inf, and
 * after: a window past the input, of ceil_mode, holds only what is inside);
 * minus_inf: w floats of -inf, the rows of the padding.  Only where
 * pj_max_pool_takes says so; nx, nout: the next plane's, as pj_depthwise's. */
static void pj_max_pool(const float* x, Py_ssize_t h, Py_ssize_t w, int ph, int pw,
                        Py_ssize_t oh, Py_ssize_t ow, float* out, const float* minus_inf,
                        const float* nx, float* nout) {
#if PJ_HAVE_GEMM
    pj_dw512_max(x, h, w, ph, pw, NULL, oh, ow, -INFINITY, 1.0f, -0.0f, -INFINITY, INFINITY, out,
                 minus_inf, nx, nout);
#else
    (void)x; (void)h; (void)w; (void)ph; (void)pw; (void)oh; (void)ow; (void)out;
    (void)minus_inf; (void)nx; (void)nout;
#endif
}

#endif  /* PYJIT_KERNELS_DEPTHWISE_H */
