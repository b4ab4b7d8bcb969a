/* Softmax of short rows, 16 rows at a time with a row in each lane.
 *
 * Why: attention's rows are as short as its sequence (49 tokens of a Swin
 * window or a small MultiheadAttention), and a row's softmax is a chain --
 * its maximum, the exp of each element, their sum, one division, the
 * scaling -- whose latency, 20-25 ns a row, was most of the time: 392 rows of
 * 49 took 20.7 us, 1.07 ns an element, where long rows take 0.46.  Here a
 * block of 16 rows is transposed in registers (pj_transpose16), 16 columns at
 * a time, into a buffer whose vector j holds element j of every row; then
 * each step of the chain is one vector operation for all 16 rows, and the
 * block is transposed back.  The arithmetic is the row-wise kernel's
 * (pj_softmax_rows of _kernels_math.h), element for element: pj_expf of x -
 * max, the sum in double in eight running sums by j % 8 combined in the same
 * order, 1 / sum rounded to float, one multiply; a block with a row whose
 * maximum is not finite is left to the row-wise kernel. */
#ifndef PYJIT_KERNELS_SOFTMAX_H
#define PYJIT_KERNELS_SOFTMAX_H

#include "_kernels_math.h"
#include "_kernels_gemm.h"   /* PJ_HAVE_GEMM, immintrin.h, pj_transpose16, pj_gemm_level */

/* Rows at most this long take the blocks of 16 (the buffer: 16 x 64 floats). */
#define PJ_SOFTMAX_SHORT 64

#if PJ_HAVE_GEMM
/* One block: rows x[0..16) (ldx apart) of d <= PJ_SOFTMAX_SHORT floats into
 * out's (ldo apart; out may be x).  Returns 0, having written nothing, when a
 * row's maximum is not finite. */
__attribute__((target("avx512f"))) static int
pj_softmax_block16(const float* x, Py_ssize_t ldx, float* out, Py_ssize_t ldo, Py_ssize_t d) {
    float buf[PJ_SOFTMAX_SHORT][16] __attribute__((aligned(64)));
    for (Py_ssize_t c0 = 0; c0 < d; c0 += 16) {
        Py_ssize_t n = d - c0 < 16 ? d - c0 : 16;
        __mmask16 m = (__mmask16)((1u << n) - 1);
        __m512 r[16];
        for (int i = 0; i < 16; i++)
            r[i] = _mm512_maskz_loadu_ps(m, x + i * ldx + c0);
        pj_transpose16(r);
        for (Py_ssize_t j = 0; j < n; j++)
            _mm512_store_ps(buf[c0 + j], r[j]);
    }
    /* each row's maximum, a NaN kept (as pj_max_nan's lanes) */
    __m512 mx = _mm512_set1_ps(-INFINITY);
    for (Py_ssize_t j = 0; j < d; j++) {
        __m512 v = _mm512_load_ps(buf[j]);
        __mmask16 take = _mm512_cmp_ps_mask(v, mx, _CMP_GT_OQ) |
                         _mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q);
        mx = _mm512_mask_mov_ps(mx, take, v);
    }
    /* finite: m - m is 0 (a NaN or an infinity makes it NaN) */
    if (_mm512_cmp_ps_mask(_mm512_sub_ps(mx, mx), _mm512_setzero_ps(), _CMP_EQ_OQ) != 0xFFFF)
        return 0;
    float shift[16] __attribute__((aligned(64)));
    _mm512_store_ps(shift, mx);
    for (Py_ssize_t j = 0; j < d; j++)
        for (int l = 0; l < 16; l++)   /* (one vector of exps) */
            buf[j][l] = pj_expf(buf[j][l] - shift[l]);
    /* the sums in double, element j into sum j % 8: 8 x 2 vectors of 8 */
    __m512d lo[8], hi[8];
    for (int k = 0; k < 8; k++)
        lo[k] = hi[k] = _mm512_setzero_pd();
    for (Py_ssize_t j0 = 0; j0 < d; j0 += 8)
        for (int k = 0; k < 8; k++) {   /* k a constant once unrolled */
            if (j0 + k >= d)
                break;
            __m512 e = _mm512_load_ps(buf[j0 + k]);
            lo[k] = _mm512_add_pd(lo[k], _mm512_cvtps_pd(_mm512_castps512_ps256(e)));
            hi[k] = _mm512_add_pd(hi[k], _mm512_cvtps_pd(_mm256_castpd_ps(
                        _mm512_extractf64x4_pd(_mm512_castps_pd(e), 1))));
        }
    __m512d tl = _mm512_add_pd(_mm512_add_pd(_mm512_add_pd(lo[0], lo[1]),
                                             _mm512_add_pd(lo[2], lo[3])),
                               _mm512_add_pd(_mm512_add_pd(lo[4], lo[5]),
                                             _mm512_add_pd(lo[6], lo[7])));
    __m512d th = _mm512_add_pd(_mm512_add_pd(_mm512_add_pd(hi[0], hi[1]),
                                             _mm512_add_pd(hi[2], hi[3])),
                               _mm512_add_pd(_mm512_add_pd(hi[4], hi[5]),
                                             _mm512_add_pd(hi[6], hi[7])));
    __m512d one = _mm512_set1_pd(1.0);
    __m256 sl = _mm512_cvtpd_ps(_mm512_div_pd(one, tl)), sh = _mm512_cvtpd_ps(_mm512_div_pd(one, th));
    __m512 scale = _mm512_castpd_ps(_mm512_insertf64x4(_mm512_castpd256_pd512(_mm256_castps_pd(sl)),
                                                       _mm256_castps_pd(sh), 1));
    for (Py_ssize_t j = 0; j < d; j++)
        _mm512_store_ps(buf[j], _mm512_mul_ps(_mm512_load_ps(buf[j]), scale));
    for (Py_ssize_t c0 = 0; c0 < d; c0 += 16) {
        Py_ssize_t n = d - c0 < 16 ? d - c0 : 16;
        __mmask16 m = (__mmask16)((1u << n) - 1);
        __m512 r[16];
        for (int j = 0; j < 16; j++)
            r[j] = j < n ? _mm512_load_ps(buf[c0 + j]) : _mm512_setzero_ps();
        pj_transpose16(r);
        for (int i = 0; i < 16; i++)
            _mm512_mask_storeu_ps(out + i * ldo + c0, m, r[i]);
    }
    return 1;
}
#endif

/* Softmax of rows rows of d floats (x's ldx apart, out's ldo; out may be x):
 * blocks of 16 rows where the rows are short and the CPU has AVX-512, the
 * rest (and a block with a row whose maximum is not finite) row by row. */
static void pj_softmax(const float* x, Py_ssize_t ldx, float* out, Py_ssize_t ldo,
                       Py_ssize_t rows, Py_ssize_t d) {
    Py_ssize_t r = 0;
#if PJ_HAVE_GEMM
    if (d <= PJ_SOFTMAX_SHORT && d > 0 && pj_gemm_level() >= 2)
        for (; r + 16 <= rows; r += 16)
            if (!pj_softmax_block16(x + r * ldx, ldx, out + r * ldo, ldo, d))
                pj_softmax_rows(x + r * ldx, ldx, out + r * ldo, ldo, 16, d, 0);
#endif
    if (r < rows)
        pj_softmax_rows(x + r * ldx, ldx, out + r * ldo, ldo, rows - r, d, 0);
}

#endif  /* PYJIT_KERNELS_SOFTMAX_H */
