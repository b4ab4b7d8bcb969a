/* The loops of the recurrent layers (pyjit/ops/_kernels_recurrent.pxi, a part of
 * _kernels.pyx): one step's matrix product with the recurrent weight and each
 * cell's gate update, in C so that they vectorise (compiled for AVX-512, AVX2
 * and the baseline like the loops of _kernels_math.h).
 *
 * A step of nn.LSTM with 64 hidden units multiplies a (1, 64) state by a
 * (64, 256) matrix: 16 K multiply-adds, well under a microsecond in registers,
 * where calling numpy's matmul (and making its result) costs several.  So the
 * whole recurrence runs here, BLAS kept for the input projection of every step
 * at once (one GEMM before the loop) and for steps too big for these loops. */
#ifndef PYJIT_KERNELS_RNN_H
#define PYJIT_KERNELS_RNN_H

#include "_kernels_math.h"

/* The product's loop is compiled for the x86-64 levels: PJ_GEMM_CLONES
 * (_kernels_math.h). */

/* tanh(x) within about an ulp: below |x| = 0.625 the odd polynomial x + x^3
 * P(x^2), P fitted here to tanh's relative error (0.89 ulp at most in float),
 * above it 1 - 2 / (exp(2|x|) + 1) (1.3 ulp), where nothing cancels: tanh is
 * 0.55 or more there.  Selects only; a NaN fails every comparison and stays
 * NaN, and exp's infinity gives exactly 1. */
static inline float pj_tanhf(float x) {
    float a = x < 0.0f ? -x : x;
    float z = x * x;
    float p = -0.005718812346458435f;
    p = p * z + 0.020652979612350464f;
    p = p * z - 0.0537446103990078f;
    p = p * z + 0.13331511616706848f;
    p = p * z - 0.3333328664302826f;
    float small = x + x * z * p;
    float big = 1.0f - 2.0f / (pj_expf(2.0f * a) + 1.0f);
    big = x < 0.0f ? -big : big;
    return a < 0.625f ? small : big;
}

static inline float pj_sigmoidf(float x) {
    return 1.0f / (1.0f + pj_expf(-x));
}

/* Eight floats, as GCC's and Clang's generic vectors (one AVX register; two
 * SSE ones in the baseline clone); the unaligned, aliasing form reads any float
 * array. */
typedef float pj_v8 __attribute__((vector_size(32)));
typedef float pj_v8u __attribute__((vector_size(32), aligned(4), may_alias));
typedef int pj_v8i __attribute__((vector_size(32)));

/* Lanes of a and b (b's numbered from 8) picked by index. */
#if defined(__clang__)
#define PJ_SHUFFLE(a, b, ...) __builtin_shufflevector(a, b, __VA_ARGS__)
#else
#define PJ_SHUFFLE(a, b, ...) __builtin_shuffle(a, b, (pj_v8i){__VA_ARGS__})
#endif

/* sums[q]: the sum of the eight lanes of a[q], as
 * ((l0 + l1) + (l2 + l3)) + ((l4 + l5) + (l6 + l7)): eight sums in three rounds
 * of shuffles and adds, where summing each vector alone takes seven adds and
 * as many extractions (3x slower for an LSTM of 64). */
static inline void pj_sum_lanes8(const pj_v8* a, float* sums) {
    pj_v8 t[4], u[2];
    for (int i = 0; i < 4; i++)
        t[i] = PJ_SHUFFLE(a[2 * i], a[2 * i + 1], 0, 8, 2, 10, 4, 12, 6, 14) +
               PJ_SHUFFLE(a[2 * i], a[2 * i + 1], 1, 9, 3, 11, 5, 13, 7, 15);
    for (int i = 0; i < 2; i++)
        u[i] = PJ_SHUFFLE(t[2 * i], t[2 * i + 1], 0, 1, 8, 9, 4, 5, 12, 13) +
               PJ_SHUFFLE(t[2 * i], t[2 * i + 1], 2, 3, 10, 11, 6, 7, 14, 15);
    *(pj_v8u*)sums = PJ_SHUFFLE(u[0], u[1], 0, 1, 2, 3, 8, 9, 10, 11) +
                     PJ_SHUFFLE(u[0], u[1], 4, 5, 6, 7, 12, 13, 14, 15);
}

/* out[b, j] = bias[j] + the dot product of x's row b (n, K) with w's row j (M,
 * K): x @ w.T + bias with w as torch keeps it, not transposed (bias NULL: 0).
 * Eight rows of w at a time, their sums vectors of eight lanes (lane l sums the
 * terms k = l mod 8, in order), added up lane by lane in a fixed order at the
 * end: the same sum for any n, as a float32 dot product blocked as BLAS blocks
 * it.  Rows of w outside, rows of x inside: the eight rows of w stay in L1 for
 * every row of x.  (Multiplying by w transposed instead, a column of sums per
 * register, costs a transposed copy of w per call: 18 us for an LSTM of 64.) */
PJ_GEMM_CLONES static void pj_rows_times(const float* restrict x, Py_ssize_t n,
                                         Py_ssize_t K, const float* restrict w,
                                         Py_ssize_t M, const float* restrict bias,
                                         float* restrict out) {
    Py_ssize_t K8 = K - K % 8;
    for (Py_ssize_t j0 = 0; j0 < M; j0 += 8) {
        int rows = M - j0 < 8 ? (int)(M - j0) : 8;
        for (Py_ssize_t b = 0; b < n; b++) {
            const float* xb = x + b * K;
            float* ob = out + b * M + j0;
            if (rows == 8) {
                pj_v8 acc[8];
                for (int q = 0; q < 8; q++)
                    acc[q] = (pj_v8){0};
                for (Py_ssize_t k = 0; k < K8; k += 8) {
                    pj_v8 xv = *(const pj_v8u*)(xb + k);
                    for (int q = 0; q < 8; q++)
                        acc[q] += xv * *(const pj_v8u*)(w + (j0 + q) * K + k);
                }
                float sums[8];
                pj_sum_lanes8(acc, sums);
                for (int q = 0; q < 8; q++) {
                    float s = sums[q];
                    const float* wq = w + (j0 + q) * K;
                    for (Py_ssize_t k = K8; k < K; k++)
                        s += xb[k] * wq[k];
                    ob[q] = (bias ? bias[j0 + q] : 0.0f) + s;
                }
            } else {
                for (int q = 0; q < rows; q++) {
                    const float* wq = w + (j0 + q) * K;
                    pj_v8 a = (pj_v8){0};
                    for (Py_ssize_t k = 0; k < K8; k += 8)
                        a += *(const pj_v8u*)(xb + k) * *(const pj_v8u*)(wq + k);
                    float s = ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]));
                    for (Py_ssize_t k = K8; k < K; k++)
                        s += xb[k] * wq[k];
                    ob[q] = (bias ? bias[j0 + q] : 0.0f) + s;
                }
            }
        }
    }
}

/* The cells, one row each: gi and gh are that row's two projections (input and
 * recurrent, each with its bias), h its state before the step, and the new
 * state goes to out (an LSTM's cell state c is updated in place).  No two of
 * the arrays overlap (restrict): with ten streams to check at run time for
 * overlap, GCC would not vectorise the LSTM's loop at all (3.5x slower).  The
 * arithmetic is torch's, in its order (aten/src/ATen/native/RNN.cpp's cells):
 *   lstm  c' = σ(f) c + σ(i) tanh(g),  h' = σ(o) tanh(c')   (gates i, f, g, o)
 *   gru   r = σ(gi_r + gh_r), z = σ(gi_z + gh_z), n = tanh(gi_n + r gh_n),
 *         h' = (h - n) z + n                                 (gates r, z, n)
 *   rnn   h' = tanh(gi + gh) or relu(gi + gh)  (a NaN stays NaN) */
PJ_CLONES static void pj_lstm_row(const float* restrict gi, const float* restrict gh,
                                  float* restrict c, float* restrict out, Py_ssize_t H) {
    for (Py_ssize_t j = 0; j < H; j++) {
        float i = pj_sigmoidf(gi[j] + gh[j]);
        float f = pj_sigmoidf(gi[H + j] + gh[H + j]);
        float g = pj_tanhf(gi[2 * H + j] + gh[2 * H + j]);
        float o = pj_sigmoidf(gi[3 * H + j] + gh[3 * H + j]);
        float cn = f * c[j] + i * g;
        c[j] = cn;
        out[j] = o * pj_tanhf(cn);
    }
}

PJ_CLONES static void pj_gru_row(const float* restrict gi, const float* restrict gh,
                                 const float* restrict h, float* restrict out, Py_ssize_t H) {
    for (Py_ssize_t j = 0; j < H; j++) {
        float r = pj_sigmoidf(gi[j] + gh[j]);
        float z = pj_sigmoidf(gi[H + j] + gh[H + j]);
        float n = pj_tanhf(gi[2 * H + j] + r * gh[2 * H + j]);
        out[j] = (h[j] - n) * z + n;
    }
}

PJ_CLONES static void pj_rnn_row(const float* restrict gi, const float* restrict gh,
                                 float* restrict out, Py_ssize_t H, int relu) {
    if (relu) {
        for (Py_ssize_t j = 0; j < H; j++) {
            float v = gi[j] + gh[j];
            out[j] = v < 0.0f ? 0.0f : v;
        }
    } else {
        for (Py_ssize_t j = 0; j < H; j++)
            out[j] = pj_tanhf(gi[j] + gh[j]);
    }
}

#endif
