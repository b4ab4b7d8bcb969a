/* A float32 matrix product with a convolution's epilogue, for the GEMMs of
 * pyjit's convolutions: out = clamp((w @ x) * scale + shift, lo, hi), w (M,
 * K) the weight, x (K, N) the image (a 1x1 convolution) or its im2col columns,
 * scale and shift per row of out (a bias, or a batch norm's affine map).
 *
 * Why not numpy's BLAS, which the other GEMMs use: what a convolution does
 * after its sums.  A convolution of a CNN is followed by its bias, its batch
 * norm's affine map and its ReLU; after numpy's matmul each is a pass that
 * reads the output back from memory and writes it again, and in a model,
 * where a MobileNet's 1x1 products are short in K (16-160 terms) and their
 * time is memory's, those passes cost what the product does.  Here they are
 * applied to the accumulators before they are stored: the output is written
 * once (mobilenet_v2_frozen's 1x1 layers: 11-12 -> 8.7-8.9 ms).  A product
 * with nothing after it stays numpy's (OpenBLAS is as fast on it, in a
 * model), as does one longer than OWN_GEMM_MAX_K terms (kernels.py).
 *
 * How: N is walked in panels of 64 columns; a panel of the columns, up to
 * PJ_KC rows of it, is made into a contiguous buffer in L1 (straight from the
 * image, pj_pack_conv: the im2col columns are never written out whole, so a
 * 7x7 stem's are not 147 rows of the whole output) while every block of MR
 * rows of w is multiplied into it, each output value an accumulator register
 * summing its K products in order (one FMA each, as BLAS's kernels sum within
 * a block of K: torch's own float32 error).
 *
 * Two bodies, chosen once by the CPU: AVX-512 (a tile of 6 rows by 64
 * columns, 24 of the 32 vector registers) and AVX2 with FMA (6 rows by 16, 12
 * of 16).  Elsewhere pj_conv2d_gemm returns 0 and the caller uses numpy.
 * Tails in N are masked loads and stores: no element past N is read or
 * written.
 */
#ifndef PYJIT_KERNELS_GEMM_H
#define PYJIT_KERNELS_GEMM_H

#include <Python.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && __GNUC__ >= 9
#define PJ_HAVE_GEMM 1
#include <immintrin.h>
#else
#define PJ_HAVE_GEMM 0
#endif

#define PJ_MR 6          /* rows of w a tile multiplies */
#define PJ_KC 128        /* rows of x a panel holds: 128 x 64 floats = 32 KB */

/* A convolution's image and geometry, for a GEMM whose x is the image's
 * im2col columns (row (c*kh + i)*kw + j, column oy*ow + ox: the input under
 * tap (i, j) of output pixel (oy, ox)), made panel by panel, never whole. */
typedef struct {
    const float* x;                 /* (C, H, W), C-contiguous */
    Py_ssize_t h, w, oh, ow;
    int kh, kw, sh, sw, ph, pw, dh, dw;
} pj_conv_geom;

/* pack[(k - k0) * padded + t] = column n0 + t of row k of the columns, for k
 * in [k0, k0 + kc), t < cols; 0 for t in [cols, padded): rows of the panel as
 * wide as a tile reads them (64 floats for AVX-512, 16 for AVX2).  The same
 * values as im2col2d writes, a row of the panel a few runs of one input row. */
static void pj_pack_conv(const pj_conv_geom* g, Py_ssize_t k0, Py_ssize_t kc, Py_ssize_t n0,
                         Py_ssize_t cols, Py_ssize_t padded, float* pack) {
    Py_ssize_t taps = (Py_ssize_t)g->kh * g->kw;
    Py_ssize_t oy0 = n0 / g->ow, ox0 = n0 % g->ow;
    if (taps == 1 && g->sh == 1 && g->sw == 1 && g->ph == 0 && g->pw == 0) {
        /* a 1x1 convolution: the columns are the image's planes themselves */
        for (Py_ssize_t k = k0; k < k0 + kc; k++) {
            memcpy(pack + padded * (k - k0), g->x + k * g->h * g->w + n0, cols * sizeof(float));
            memset(pack + padded * (k - k0) + cols, 0, (padded - cols) * sizeof(float));
        }
        return;
    }
    for (Py_ssize_t k = k0; k < k0 + kc; k++) {
        Py_ssize_t c = k / taps, r = k % taps, i = r / g->kw, j = r % g->kw;
        const float* plane = g->x + c * g->h * g->w;
        float* d = pack + padded * (k - k0);
        /* the output columns whose input column ox*sw + xoff is inside [0, w) */
        Py_ssize_t xoff = j * g->dw - g->pw;
        Py_ssize_t lo = 0, hi = g->ow;
        while (lo < hi && lo * g->sw + xoff < 0)
            lo++;
        while (hi > lo && (hi - 1) * g->sw + xoff >= g->w)
            hi--;
        Py_ssize_t t = 0, oy = oy0, ox = ox0;
        while (t < cols) {
            Py_ssize_t run = g->ow - ox < cols - t ? g->ow - ox : cols - t;
            Py_ssize_t iy = oy * g->sh - g->ph + i * g->dh;
            if (iy < 0 || iy >= g->h) {
                memset(d + t, 0, run * sizeof(float));
            } else {
                const float* row = plane + iy * g->w;
                Py_ssize_t a = ox < lo ? lo : ox, b = ox + run < hi ? ox + run : hi;
                Py_ssize_t u = ox;
                for (; u < a && u < ox + run; u++)
                    d[t + u - ox] = 0.0f;
                if (g->sw == 1)
                    for (; u < b; u++)
                        d[t + u - ox] = row[u + xoff];
                else
                    for (; u < b; u++)
                        d[t + u - ox] = row[u * g->sw + xoff];
                for (; u < ox + run; u++)
                    d[t + u - ox] = 0.0f;
            }
            t += run;
            ox = 0;
            oy++;
        }
        for (; t < padded; t++)
            d[t] = 0.0f;
    }
}

/* The right operand of a GEMM, x (K, N), as the panels are packed from it:
 * a convolution's image, whose im2col columns it is (conv, not NULL), or a
 * matrix, element (k, n) at b[k * ldk + n * ldn], with ldn == 1 (rows
 * contiguous: numpy's C order) or ldk == 1 (columns contiguous: the
 * transpose of a C-ordered array, a linear layer's weight). */
typedef struct {
    const pj_conv_geom* conv;
    const float* b;
    Py_ssize_t ldk, ldn;
} pj_operand;

#if PJ_HAVE_GEMM
/* r[i] (row i of a 16x16 block, 16 floats) made column i: r[j] holds element
 * j of every row.  Within 128-bit lanes, pairs of 32 bits are interleaved,
 * then pairs of 64; then the 4x4 transpose of the lanes: 64 shuffles. */
__attribute__((target("avx512f"), always_inline)) static inline void
pj_transpose16(__m512* r) {
    __m512 a[16];
    for (int i = 0; i < 16; i += 2) {
        a[i] = _mm512_unpacklo_ps(r[i], r[i + 1]);
        a[i + 1] = _mm512_unpackhi_ps(r[i], r[i + 1]);
    }
    for (int i = 0; i < 16; i += 4) {
        __m512d a0 = _mm512_castps_pd(a[i]), a1 = _mm512_castps_pd(a[i + 1]);
        __m512d a2 = _mm512_castps_pd(a[i + 2]), a3 = _mm512_castps_pd(a[i + 3]);
        r[i] = _mm512_castpd_ps(_mm512_unpacklo_pd(a0, a2));      /* element c = 0 */
        r[i + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(a0, a2));  /* 1 */
        r[i + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(a1, a3));  /* 2 */
        r[i + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(a1, a3));  /* 3 */
    }
    /* r[4g + c], lane L: element 4L + c of rows 4g..4g+3 */
    for (int c = 0; c < 4; c++) {
        __m512 p0 = _mm512_shuffle_f32x4(r[c], r[4 + c], 0x44);
        __m512 p1 = _mm512_shuffle_f32x4(r[c], r[4 + c], 0xEE);
        __m512 p2 = _mm512_shuffle_f32x4(r[8 + c], r[12 + c], 0x44);
        __m512 p3 = _mm512_shuffle_f32x4(r[8 + c], r[12 + c], 0xEE);
        a[c] = _mm512_shuffle_f32x4(p0, p2, 0x88);
        a[4 + c] = _mm512_shuffle_f32x4(p0, p2, 0xDD);
        a[8 + c] = _mm512_shuffle_f32x4(p1, p3, 0x88);
        a[12 + c] = _mm512_shuffle_f32x4(p1, p3, 0xDD);
    }
    for (int i = 0; i < 16; i++)
        r[i] = a[i];
}

/* The lanes t of a load of 16 columns from column a that are inside [0, w):
 * the others lie in a convolution's padding (masked off the load). */
static inline __mmask16 pj_lanes_inside(Py_ssize_t a, Py_ssize_t w) {
    Py_ssize_t first = -a, end = w - a;
    first = first < 0 ? 0 : first > 16 ? 16 : first;
    end = end < 0 ? 0 : end > 16 ? 16 : end;
    return (__mmask16)(((1u << end) - 1) & ~((1u << first) - 1));
}

/* dst[j * ldd + i] = src[i * lds + j] for i < rows, j < cols (at most 16
 * each): a block transposed in registers, each of dst's cols rows written
 * under mask store (a lane i past rows holds 0).  Masked loads read nothing
 * past rows or cols. */
__attribute__((target("avx512f"), always_inline)) static inline void
pj_transpose_block(const float* src, Py_ssize_t lds, int rows, int cols, float* dst,
                   Py_ssize_t ldd, __mmask16 store) {
    __mmask16 in = (__mmask16)((1u << cols) - 1);
    __m512 r[16];
    for (int i = 0; i < 16; i++)
        r[i] = i < rows ? _mm512_maskz_loadu_ps(in, src + i * lds) : _mm512_setzero_ps();
    pj_transpose16(r);
    for (int j = 0; j < cols; j++)
        _mm512_mask_storeu_ps(dst + j * ldd, store, r[j]);
}

/* pack[k * 64 + t] = b[(n0 + t) * ldn + k0 + k] for t < cols, k < kc, with
 * zeros to 64 columns: a panel of a matrix whose columns are contiguous, 16
 * rows by 16 columns at a time transposed in registers.  (A load of each
 * element and a store of it, scalar, was a sixth of the time of a 197-row
 * product; the 64 shuffles of a 16x16 block are a few per cent.) */
__attribute__((target("avx512f"))) static void
pj_pack_columns512(const float* b, Py_ssize_t ldn, Py_ssize_t k0, Py_ssize_t kc,
                   Py_ssize_t n0, Py_ssize_t cols, float* pack) {
    for (Py_ssize_t t0 = 0; t0 < 64; t0 += 16) {
        Py_ssize_t here = cols - t0 < 0 ? 0 : cols - t0 > 16 ? 16 : cols - t0;
        for (Py_ssize_t kk = 0; kk < kc; kk += 16)   /* all 16 lanes: zeros past here */
            pj_transpose_block(b + (n0 + t0) * ldn + k0 + kk, ldn, (int)here,
                               (int)(kc - kk < 16 ? kc - kk : 16), pack + kk * 64 + t0, 64,
                               (__mmask16)0xFFFF);
    }
}
#endif

/* Asks for the panel of the operand at (k0, n0), and for the output's
 * columns under it (when k0 is 0: their first writes), to come into L2
 * while the panel before them is multiplied, this tile's share of the lines
 * (part of parts: asked for all at once, most were dropped).
 *
 * Why: a linear layer's weight is read from memory once a call, its panel 64
 * rows of it a few KB apart (the transpose's columns), and a 1x1
 * convolution's panel is PJ_KC planes of its image, and its output M rows,
 * each a plane apart: more streams than the hardware follows, so their loads
 * waited on memory one line after another (Swin's last stage, 9 MB weights:
 * 120 against 180 GF/s; a MobileNet's expansion in a model: twice its time
 * with the data in cache).  A convolution with taps reads its image row by
 * row, which the hardware follows: only its output is asked for. */
static inline void pj_prefetch_panel(const pj_operand* src, Py_ssize_t M, Py_ssize_t N,
                                     Py_ssize_t K, Py_ssize_t k0, Py_ssize_t n0,
                                     const float* out, Py_ssize_t ldo, Py_ssize_t part,
                                     Py_ssize_t parts) {
    if (k0 >= K || n0 >= N)
        return;
    Py_ssize_t kc = K - k0 < PJ_KC ? K - k0 : PJ_KC, cols = N - n0 < 64 ? N - n0 : 64;
    const pj_conv_geom* g = src->conv;
    int plain = g && g->kh * g->kw == 1 && g->sh == 1 && g->sw == 1 && g->ph == 0 && g->pw == 0;
    /* the operand's lines, numbered along its contiguous runs, then the
     * output's: this part's share of them */
    int rows = g ? 1 : src->ldn == 1;
    const float* b = g ? g->x : src->b;
    Py_ssize_t ldk = g ? g->h * g->w : src->ldk;
    Py_ssize_t runs = g && !plain ? 0 : rows ? kc : cols;
    Py_ssize_t per_run = ((rows ? cols : kc) + 15) / 16, per_out = (cols + 15) / 16;
    Py_ssize_t lines = runs * per_run + (k0 == 0 ? M * per_out : 0);
    Py_ssize_t first = lines * part / parts, last = lines * (part + 1) / parts;
    for (Py_ssize_t l = first; l < last; l++) {
        if (l < runs * per_run) {
            Py_ssize_t run = l / per_run, at = 16 * (l % per_run);
            __builtin_prefetch(rows ? b + (k0 + run) * ldk + n0 + at
                                    : b + (n0 + run) * src->ldn + k0 + at, 0, 2);
        } else {
            Py_ssize_t o = l - runs * per_run, r = o / per_out, at = 16 * (o % per_out);
            __builtin_prefetch(out + r * ldo + n0 + at, 1, 2);
        }
    }
}

/* A panel of the operand: rows k0..k0+kc, columns n0..n0+cols, as pack's
 * rows of padded floats, zero past cols (see pj_pack_conv). */
static void pj_pack(const pj_operand* src, Py_ssize_t k0, Py_ssize_t kc, Py_ssize_t n0,
                    Py_ssize_t cols, Py_ssize_t padded, float* pack) {
    if (src->conv) {
        pj_pack_conv(src->conv, k0, kc, n0, cols, padded, pack);
    } else if (src->ldn == 1) {
        for (Py_ssize_t k = k0; k < k0 + kc; k++) {
            memcpy(pack + padded * (k - k0), src->b + k * src->ldk + n0, cols * sizeof(float));
            memset(pack + padded * (k - k0) + cols, 0, (padded - cols) * sizeof(float));
        }
#if PJ_HAVE_GEMM
    } else if (padded == 64) {
        pj_pack_columns512(src->b, src->ldn, k0, kc, n0, cols, pack);
#endif
    } else {
        for (Py_ssize_t k = k0; k < k0 + kc; k++) {
            float* d = pack + padded * (k - k0);
            for (Py_ssize_t t = 0; t < cols; t++)
                d[t] = src->b[k * src->ldk + (n0 + t) * src->ldn];
            for (Py_ssize_t t = cols; t < padded; t++)
                d[t] = 0.0f;
        }
    }
}

#if PJ_HAVE_GEMM

/* What every AVX-512 tile does with a k: acc[r][v] += W * xv[v], W row r's
 * element k of w (an expression of r and k), for its MR rows of w and NV
 * vectors of x's row k (one broadcast a row). */
#define PJ_TILE_STEP(MR, NV, W)                                                     \
    _Pragma("GCC unroll 6") for (int r = 0; r < MR; r++) {                         \
        __m512 a = _mm512_set1_ps(W);                                               \
        _Pragma("GCC unroll 4") for (int v = 0; v < NV; v++)                        \
            acc[r][v] = _mm512_fmadd_ps(a, xv[v], acc[r][v]);                       \
    }

/* ... and after its last k: on the last block of K the epilogue, then each
 * vector of the rows r < ROWS stored at AT (an expression of r and v) under
 * MASK. */
#define PJ_TILE_STORE(MR, NV, ROWS, AT, MASK)                                       \
    __m512 vlo = _mm512_set1_ps(bounds[0]), vhi = _mm512_set1_ps(bounds[1]);        \
    _Pragma("GCC unroll 6") for (int r = 0; r < MR; r++) {                         \
        if (r >= (ROWS))                                                            \
            break;                                                                  \
        __m512 s = _mm512_set1_ps(last && shift ? shift[r] : 0.0f);                 \
        __m512 f = _mm512_set1_ps(last && scale ? scale[r] : 1.0f);                 \
        _Pragma("GCC unroll 4") for (int v = 0; v < NV; v++) {                      \
            __m512 y = acc[r][v];                                                   \
            if (last) {                                                             \
                /* the value second: max/min give it back when it is NaN */        \
                y = _mm512_min_ps(vhi, _mm512_max_ps(vlo, _mm512_fmadd_ps(y, f, s))); \
            }                                                                       \
            _mm512_mask_storeu_ps(AT, MASK, y);                                     \
        }                                                                           \
    }

/* One tile of the AVX-512 body: MR rows of out by NV vectors of 16 columns,
 * masked by m[], over kc rows of the packed panel (64 floats a row); first:
 * the accumulators start at 0, else at out; last: the epilogue is applied.
 * The clamp's bounds come by pointer, read after the loop: as float
 * arguments they would hold two vector registers through it, and the 24
 * accumulators, 4 columns and a broadcast leave none, so a column vector was
 * spilled to the stack and read back six times a step (20-25% slower). */
#define PJ_TILE512(MR, NV)                                                          \
__attribute__((target("avx512f,fma"), always_inline)) static inline void            \
pj_tile512_##MR##_##NV(Py_ssize_t kc, const float* w, Py_ssize_t ldw,               \
                       const float* x, float* o, Py_ssize_t ldo, const __mmask16* m,\
                       int first, int last, const float* scale, const float* shift,    \
                       const float* bounds, const float* cb) {                      \
    __m512 acc[MR][NV];                                                             \
    _Pragma("GCC unroll 6") for (int r = 0; r < MR; r++)                           \
        _Pragma("GCC unroll 4") for (int v = 0; v < NV; v++)                        \
            acc[r][v] = !first ? _mm512_maskz_loadu_ps(m[v], o + r * ldo + 16 * v)  \
                      : cb ? _mm512_maskz_loadu_ps(m[v], cb + 16 * v)               \
                      : _mm512_setzero_ps();                                        \
    for (Py_ssize_t k = 0; k < kc; k++) {                                           \
        const float* xr = x + k * 64;                                               \
        __m512 xv[NV];                                                              \
        _Pragma("GCC unroll 4") for (int v = 0; v < NV; v++)                        \
            xv[v] = _mm512_load_ps(xr + 16 * v);                                    \
        PJ_TILE_STEP(MR, NV, w[r * ldw + k])                                        \
    }                                                                               \
    PJ_TILE_STORE(MR, NV, MR, o + r * ldo + 16 * v, m[v])                           \
}
/* A tile is up to 6 rows by 4 vectors (24 accumulators).  A last panel of
 * at most 48 columns takes tiles of 6 rows by as many vectors as it fills,
 * not 4 of which some are masked off whole: a 14x14 plane's 196 columns are
 * 13 vectors of work, not 16 (its 1x1 layers 15-20% faster); a tile of fewer
 * rows there keeps 4 vectors (each body costs a wheel about a kilobyte). */
PJ_TILE512(1, 4) PJ_TILE512(2, 4) PJ_TILE512(3, 4) PJ_TILE512(4, 4) PJ_TILE512(5, 4)
PJ_TILE512(6, 4) PJ_TILE512(6, 1) PJ_TILE512(6, 2) PJ_TILE512(6, 3)

typedef void (*pj_tile512_fn)(Py_ssize_t, const float*, Py_ssize_t, const float*, float*,
                              Py_ssize_t, const __mmask16*, int, int, const float*,
                              const float*, const float*, const float*);
static const pj_tile512_fn pj_tiles512[PJ_MR] = {pj_tile512_1_4, pj_tile512_2_4,
    pj_tile512_3_4, pj_tile512_4_4, pj_tile512_5_4, pj_tile512_6_4};
/* full tiles of 6 rows, by the vectors a panel fills */
static const pj_tile512_fn pj_narrow512[4] = {pj_tile512_6_1, pj_tile512_6_2, pj_tile512_6_3,
    pj_tile512_6_4};

/* Columns [n0, n0 + 64) of out, rows of x [k0, k0 + kc): the panel packed,
 * then every tile of rows multiplied into it. */
__attribute__((target("avx512f,fma"), always_inline)) static inline void
pj_panel512(Py_ssize_t M, Py_ssize_t N, Py_ssize_t K, Py_ssize_t n0, Py_ssize_t k0,
            const float* w, Py_ssize_t ldw, const pj_operand* src, float* out,
            Py_ssize_t ldo, const float* scale, const float* shift, const float* colbias,
            float lo, float hi, float* pack, Py_ssize_t next_k0, Py_ssize_t next_n0) {
    Py_ssize_t kc = K - k0 < PJ_KC ? K - k0 : PJ_KC;
    int first = k0 == 0, last = k0 + kc == K;
    Py_ssize_t left = N - n0;
    __mmask16 m[4];
    for (int v = 0; v < 4; v++) {
        Py_ssize_t lanes = left - 16 * v;
        m[v] = lanes >= 16 ? (__mmask16)0xFFFF
             : lanes <= 0 ? (__mmask16)0 : (__mmask16)((1u << lanes) - 1);
    }
    /* the panel, contiguous: rows N floats apart in x would fall in a few of
     * L1's sets and each on a page of its own */
    pj_pack(src, k0, kc, n0, left < 64 ? left : 64, 64, pack);
    int vectors = left >= 64 ? 4 : (int)((left + 15) / 16);
    float bounds[2] = {lo, hi};
    Py_ssize_t tiles = (M + PJ_MR - 1) / PJ_MR;
    for (Py_ssize_t r0 = 0; r0 < M; r0 += PJ_MR) {
        Py_ssize_t rows = M - r0 < PJ_MR ? M - r0 : PJ_MR;
        pj_prefetch_panel(src, M, N, K, next_k0, next_n0, out, ldo, r0 / PJ_MR, tiles);
        (rows == PJ_MR ? pj_narrow512[vectors - 1] : pj_tiles512[rows - 1])(kc, w + r0 * ldw + k0, ldw, pack, out + r0 * ldo + n0, ldo, m,
                              first, last, scale ? scale + r0 : NULL,
                              shift ? shift + r0 : NULL, bounds,
                              colbias ? colbias + n0 : NULL);
    }
}

/* The GEMM of a 3x3 convolution at stride 1, undilated, padded by at most one
 * (resnet18's and SqueezeNet's), with no panel packed: each vector of a panel
 * is a run of at most 16 output pixels of one output row, and the column of
 * tap (c, i, j) for it is the input's row under it, shifted by j, read where
 * it is -- base (that run's input at tap (0, 0)) plus off[k] -- its lanes
 * over the padding masked off the load (m9[i * 3 + j]).  Packing the panel
 * (pj_pack_conv: a copy of each of its K rows, in runs of an output row) was
 * a third of these layers' time.  A tile of MR rows of w by the panel's 4
 * vectors, as PJ_TILE512's, its stores at each vector's own pixels. */
#define PJ_TILE512_3X3(MR)                                                          \
__attribute__((target("avx512f,fma"), always_inline)) static inline void            \
pj_tile3x3_##MR(Py_ssize_t kc, const float* w, Py_ssize_t ldw, int rows,            \
                const Py_ssize_t* off, const unsigned char* ij,                     \
                const __mmask16 (*m9)[4], const float* const* base, float* o,       \
                Py_ssize_t ldo, const Py_ssize_t* at, const __mmask16* ms,          \
                int first, int last, const float* scale, const float* shift,        \
                const float* bounds) {                                              \
    /* fewer rows than MR: w's rows past them are zeros (a copy, see           \
     * pj_conv3x3_512), their sums neither loaded nor stored: one body for      \
     * every tile, not one for each count of rows */                            \
    __m512 acc[MR][4];                                                              \
    _Pragma("GCC unroll 6") for (int r = 0; r < MR; r++)                           \
        _Pragma("GCC unroll 4") for (int v = 0; v < 4; v++)                         \
            acc[r][v] = first || r >= rows ? _mm512_setzero_ps()                    \
                              : _mm512_maskz_loadu_ps(ms[v], o + r * ldo + at[v]);  \
    for (Py_ssize_t k = 0; k < kc; k++) {                                           \
        const __mmask16* mk = m9[ij[k]];                                            \
        Py_ssize_t d = off[k];                                                      \
        __m512 xv[4];                                                               \
        _Pragma("GCC unroll 4") for (int v = 0; v < 4; v++)                         \
            xv[v] = _mm512_maskz_loadu_ps(mk[v], base[v] + d);                      \
        PJ_TILE_STEP(MR, 4, w[r * ldw + k])                                         \
    }                                                                               \
    PJ_TILE_STORE(MR, 4, rows, o + r * ldo + at[v], ms[v])                          \
}
PJ_TILE512_3X3(6)

/* Asks for what the next panel reads first and writes, part of parts of it:
 * the input row entering its taps' window (row iy of every channel) and its
 * pixels [p0, p1) of every output row (C and M streams a plane apart, more
 * than the hardware follows; see pj_prefetch_panel). */
static inline void pj_prefetch_3x3(const pj_conv_geom* g, Py_ssize_t C, Py_ssize_t iy,
                                   Py_ssize_t M, const float* out, Py_ssize_t ldo,
                                   Py_ssize_t p0, Py_ssize_t p1, Py_ssize_t part,
                                   Py_ssize_t parts) {
    Py_ssize_t per_in = iy >= 0 && iy < g->h ? (g->w + 15) / 16 : 0;
    Py_ssize_t first_out = p0 / 16, per_out = p1 > p0 ? (p1 - 1) / 16 - first_out + 1 : 0;
    Py_ssize_t lines = C * per_in + M * per_out;
    Py_ssize_t first = lines * part / parts, last = lines * (part + 1) / parts;
    for (Py_ssize_t l = first; l < last; l++) {
        if (l < C * per_in) {
            Py_ssize_t c = l / per_in, at = 16 * (l % per_in);
            __builtin_prefetch(g->x + (c * g->h + iy) * g->w + at, 0, 2);
        } else {
            Py_ssize_t o = l - C * per_in, r = o / per_out, at = 16 * (first_out + o % per_out);
            __builtin_prefetch(out + r * ldo + at, 1, 2);
        }
    }
}

/* out (M, oh * ow), rows ldo apart = clamp((w @ cols) * scale + shift, lo, hi)
 * by row, cols the im2col columns of g's 3x3 convolution (stride 1, undilated,
 * padding ph, pw at most 1), K = C * 9, without the columns: see
 * PJ_TILE512_3X3.  Panels of 4 runs of output pixels in raster order (a run
 * at most 16 pixels of one output row), every block of PJ_KC taps meeting
 * every tile of rows. */
__attribute__((target("avx512f,fma"))) static void
pj_conv3x3_512(const pj_conv_geom* g, Py_ssize_t M, Py_ssize_t K, const float* w,
               Py_ssize_t ldw, float* out, Py_ssize_t ldo, const float* scale,
               const float* shift, float lo, float hi, Py_ssize_t* off, unsigned char* ij,
               float* tail) {
    Py_ssize_t h = g->h, wd = g->w, oh = g->oh, ow = g->ow;
    /* the last tile's rows of w, if fewer than PJ_MR, padded with zeros */
    Py_ssize_t full = M - M % PJ_MR;
    memset(tail, 0, PJ_MR * K * sizeof(float));
    for (Py_ssize_t r = full; r < M; r++)
        memcpy(tail + (r - full) * K, w + r * ldw, K * sizeof(float));
    /* tap k = (c, i, j): its input is the pixel's own shifted by off[k] */
    for (Py_ssize_t k = 0; k < K; k++) {
        Py_ssize_t c = k / 9, i = (k % 9) / 3, j = k % 3;
        off[k] = c * h * wd + (i - g->ph) * wd + (j - g->pw);
        ij[k] = (unsigned char)(k % 9);
    }
    float bounds[2] = {lo, hi};
    Py_ssize_t oy = 0, ox = 0;
    while (oy < oh) {
        /* the panel's runs */
        const float* base[4];
        Py_ssize_t at[4];
        __mmask16 ms[4], m9[9][4];
        for (int v = 0; v < 4; v++) {
            if (oy >= oh) {   /* past the last pixel: a run of none */
                base[v] = g->x;
                at[v] = 0;
                ms[v] = 0;
                for (int t = 0; t < 9; t++)
                    m9[t][v] = 0;
                continue;
            }
            Py_ssize_t len = ow - ox < 16 ? ow - ox : 16;
            base[v] = g->x + oy * wd + ox;
            at[v] = oy * ow + ox;
            ms[v] = (__mmask16)((1u << len) - 1);
            for (int i = 0; i < 3; i++) {
                Py_ssize_t iy = oy + i - g->ph;
                for (int j = 0; j < 3; j++) {
                    /* lanes t < len whose input column ox + t + j - pw is inside */
                    __mmask16 in = pj_lanes_inside(ox + j - g->pw, wd) & ms[v];
                    m9[i * 3 + j][v] = iy >= 0 && iy < h ? in : 0;
                }
            }
            ox += len;
            if (ox == ow) {
                ox = 0;
                oy++;
            }
        }
        /* the next panel: its first pixel is where this one ended (oy, ox),
         * its last 64 on at most, its new input row the one under its last */
        Py_ssize_t p0 = oy * ow + ox, p1 = p0 + 64 < oh * ow ? p0 + 64 : oh * ow;
        Py_ssize_t next_row = p1 > p0 ? (p1 - 1) / ow + 2 - g->ph : -1;
        Py_ssize_t calls = ((K + PJ_KC - 1) / PJ_KC) * ((M + PJ_MR - 1) / PJ_MR), call = 0;
        for (Py_ssize_t k0 = 0; k0 < K; k0 += PJ_KC) {
            Py_ssize_t kc = K - k0 < PJ_KC ? K - k0 : PJ_KC;
            int first = k0 == 0, last = k0 + kc == K;
            for (Py_ssize_t r0 = 0; r0 < M; r0 += PJ_MR) {
                Py_ssize_t rows = M - r0 < PJ_MR ? M - r0 : PJ_MR;
                pj_prefetch_3x3(g, K / 9, next_row, M, out, ldo, p0, p1, call++, calls);
                int own = r0 < full;
                pj_tile3x3_6(kc, own ? w + r0 * ldw + k0 : tail + k0, own ? ldw : K, (int)rows,
                             off + k0, ij + k0,
                             (const __mmask16 (*)[4])m9, base, out + r0 * ldo, ldo, at, ms,
                             first, last, scale ? scale + r0 : NULL,
                             shift ? shift + r0 : NULL, bounds);
            }
        }
    }
}

/* w bigger than this many bytes is walked in blocks of PJ_KC columns
 * outermost (see pj_sgemm512). */
#define PJ_W_IN_L2 (1 << 20)

__attribute__((noclone, noinline, target("avx512f,fma"))) static void
pj_sgemm512(Py_ssize_t M, Py_ssize_t N, Py_ssize_t K, const float* w, Py_ssize_t ldw,
            const pj_operand* src, float* out, Py_ssize_t ldo, const float* scale,
            const float* shift, const float* colbias, float lo, float hi, float* pack) {
    if ((size_t)M * K * sizeof(float) <= PJ_W_IN_L2) {
        /* w stays in L2 for every panel: each panel's sums stay in registers
         * (its K blocks one after the other) */
        for (Py_ssize_t n0 = 0; n0 < N; n0 += 64)
            for (Py_ssize_t k0 = 0; k0 < K; k0 += PJ_KC)
                pj_panel512(M, N, K, n0, k0, w, ldw, src, out, ldo, scale, shift, colbias,
                            lo, hi, pack, k0 + PJ_KC < K ? k0 + PJ_KC : 0,
                            k0 + PJ_KC < K ? n0 : n0 + 64);
    } else {
        /* a deep layer's w (256 x 2304: 2.4 MB) is not: a block of its
         * columns (M x PJ_KC, 128 KB) stays in L2 while every panel of x
         * meets it, the partial sums waiting in out between blocks */
        for (Py_ssize_t k0 = 0; k0 < K; k0 += PJ_KC)
            for (Py_ssize_t n0 = 0; n0 < N; n0 += 64)
                pj_panel512(M, N, K, n0, k0, w, ldw, src, out, ldo, scale, shift, colbias,
                            lo, hi, pack, n0 + 64 < N ? k0 : k0 + PJ_KC,
                            n0 + 64 < N ? n0 + 64 : 0);
    }
}

/* The AVX2 body: tiles of MR rows by 16 columns (two vectors), the tail's
 * lanes masked by integer masks (maskload reads no lane it leaves out). */
#define PJ_TILE256(MR)                                                              \
__attribute__((target("avx2,fma"), always_inline)) static inline void               \
pj_tile256_##MR(Py_ssize_t kc, const float* w, Py_ssize_t ldw, const float* x,      \
                Py_ssize_t ldx, float* o, Py_ssize_t ldo, __m256i m0, __m256i m1,   \
                int first, int last, const float* scale, const float* shift,        \
                const float* bounds, const float* cb) {                             \
    __m256 acc[MR][2];                                                              \
    _Pragma("GCC unroll 6") for (int r = 0; r < MR; r++) {                          \
        const float* init = first ? cb : o + r * ldo;                               \
        acc[r][0] = init ? _mm256_maskload_ps(init, m0) : _mm256_setzero_ps();      \
        acc[r][1] = init ? _mm256_maskload_ps(init + 8, m1) : _mm256_setzero_ps();  \
    }                                                                               \
    for (Py_ssize_t k = 0; k < kc; k++) {                                           \
        const float* xr = x + k * ldx;                                              \
        __m256 x0 = _mm256_load_ps(xr);                                             \
        __m256 x1 = _mm256_load_ps(xr + 8);                                         \
        _Pragma("GCC unroll 6") for (int r = 0; r < MR; r++) {                      \
            __m256 a = _mm256_broadcast_ss(w + r * ldw + k);                        \
            acc[r][0] = _mm256_fmadd_ps(a, x0, acc[r][0]);                          \
            acc[r][1] = _mm256_fmadd_ps(a, x1, acc[r][1]);                          \
        }                                                                           \
    }                                                                               \
    __m256 vlo = _mm256_set1_ps(bounds[0]), vhi = _mm256_set1_ps(bounds[1]);        \
    _Pragma("GCC unroll 6") for (int r = 0; r < MR; r++) {                          \
        __m256 s = _mm256_set1_ps(last && shift ? shift[r] : 0.0f);                 \
        __m256 f = _mm256_set1_ps(last && scale ? scale[r] : 1.0f);                 \
        __m256 y0 = acc[r][0], y1 = acc[r][1];                                      \
        if (last) {                                                                 \
            y0 = _mm256_min_ps(vhi, _mm256_max_ps(vlo, _mm256_fmadd_ps(y0, f, s)));  \
            y1 = _mm256_min_ps(vhi, _mm256_max_ps(vlo, _mm256_fmadd_ps(y1, f, s)));  \
        }                                                                           \
        _mm256_maskstore_ps(o + r * ldo, m0, y0);                                   \
        _mm256_maskstore_ps(o + r * ldo + 8, m1, y1);                               \
    }                                                                               \
}
PJ_TILE256(1) PJ_TILE256(2) PJ_TILE256(3) PJ_TILE256(4) PJ_TILE256(5) PJ_TILE256(6)

__attribute__((target("avx2,fma"))) static __m256i pj_lanes256(Py_ssize_t lanes) {
    /* lane i is on when i < lanes */
    __m256i index = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    int n = lanes < 0 ? 0 : lanes > 8 ? 8 : (int)lanes;
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), index);
}

__attribute__((noclone, noinline, target("avx2,fma"))) static void
pj_sgemm256(Py_ssize_t M, Py_ssize_t N, Py_ssize_t K, const float* w, Py_ssize_t ldw,
            const pj_operand* src, float* out, Py_ssize_t ldo, const float* scale,
            const float* shift, const float* colbias, float lo, float hi, float* pack) {
    float bounds[2] = {lo, hi};
    for (Py_ssize_t n0 = 0; n0 < N; n0 += 16) {
        __m256i m0 = pj_lanes256(N - n0), m1 = pj_lanes256(N - n0 - 8);
        for (Py_ssize_t k0 = 0; k0 < K; k0 += 2 * PJ_KC) {
            Py_ssize_t kc = K - k0 < 2 * PJ_KC ? K - k0 : 2 * PJ_KC;
            int first = k0 == 0, last = k0 + kc == K;
            pj_pack(src, k0, kc, n0, N - n0 < 16 ? N - n0 : 16, 16, pack);
            const float* cb = colbias ? colbias + n0 : NULL;
            for (Py_ssize_t r0 = 0; r0 < M; r0 += PJ_MR) {
                const float* wt = w + r0 * ldw + k0;
                float* ot = out + r0 * ldo + n0;
                const float* st = shift ? shift + r0 : NULL;
                const float* sc = scale ? scale + r0 : NULL;
                switch (M - r0 < PJ_MR ? M - r0 : PJ_MR) {
                case 6: pj_tile256_6(kc, wt, ldw, pack, 16, ot, ldo, m0, m1, first, last, sc, st, bounds, cb); break;
                case 5: pj_tile256_5(kc, wt, ldw, pack, 16, ot, ldo, m0, m1, first, last, sc, st, bounds, cb); break;
                case 4: pj_tile256_4(kc, wt, ldw, pack, 16, ot, ldo, m0, m1, first, last, sc, st, bounds, cb); break;
                case 3: pj_tile256_3(kc, wt, ldw, pack, 16, ot, ldo, m0, m1, first, last, sc, st, bounds, cb); break;
                case 2: pj_tile256_2(kc, wt, ldw, pack, 16, ot, ldo, m0, m1, first, last, sc, st, bounds, cb); break;
                default: pj_tile256_1(kc, wt, ldw, pack, 16, ot, ldo, m0, m1, first, last, sc, st, bounds, cb); break;
                }
            }
        }
    }
}

#endif  /* PJ_HAVE_GEMM */

/* Whether pj_conv2d_gemm takes a 3x3 convolution at stride 1 without packing
 * its panels where it can (pj_conv3x3_gemm); the tests turn it off to run the
 * packing path. */
static int pj_conv3x3_cap = 1;

/* Which body this CPU runs: 2 AVX-512, 1 AVX2 with FMA, 0 none; at most
 * pj_gemm_cap (the tests lower it to run every body this CPU has). */
static int pj_gemm_cap = 2;

static int pj_gemm_level(void) {
#if PJ_HAVE_GEMM
    static int level = -1;
    if (level < 0) {
        __builtin_cpu_init();
        level = __builtin_cpu_supports("avx512f") ? 2
              : (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) ? 1 : 0;
    }
    return level < pj_gemm_cap ? level : pj_gemm_cap;
#else
    return 0;
#endif
}

/* The GEMM itself, on whichever body this CPU has: out = clamp((w @ x) *
 * scale + shift, lo, hi) by row, x the operand src describes, (K, N); the
 * sums start at colbias (one value per column, NULL: 0).  Returns 0, having
 * written nothing, where there is no body (or no memory for the panel). */
static int pj_gemm_run(Py_ssize_t M, Py_ssize_t N, Py_ssize_t K, const float* w, Py_ssize_t ldw,
                       const pj_operand* src, float* out, Py_ssize_t ldo, const float* scale,
                       const float* shift, const float* colbias, float lo, float hi) {
#if PJ_HAVE_GEMM
    int level = pj_gemm_level();
    if (level == 0)
        return 0;
    /* the panel: PJ_KC rows of 64 floats (AVX2: twice the rows, of 16) */
    float* pack = (float*)aligned_alloc(64, PJ_KC * 64 * sizeof(float));
    if (!pack)
        return 0;
    if (level == 2)
        pj_sgemm512(M, N, K, w, ldw, src, out, ldo, scale, shift, colbias, lo, hi, pack);
    else
        pj_sgemm256(M, N, K, w, ldw, src, out, ldo, scale, shift, colbias, lo, hi, pack);
    free(pack);
    return 1;
#else
    (void)M; (void)N; (void)K; (void)w; (void)ldw; (void)src; (void)out; (void)ldo;
    (void)scale; (void)shift; (void)colbias; (void)lo; (void)hi;
    return 0;
#endif
}

/* out[r, n] = min(hi, max(lo, (sum_k w[r, k] cols[k, n]) * scale[r] + shift[r]))
 * for r < M and the output's pixels n, cols the im2col columns of image g->x
 * (see pj_conv_geom), made a panel at a time in L1, never written out whole:
 * the scaling and shift one FMA (scale NULL: 1, shift NULL: 0; lo, hi: -inf,
 * inf for no clamp), a convolution's bias, or an inference batch norm's
 * affine map, and a ReLU.  Rows of w ldw floats apart, of out ldo.  Returns
 * 0, having written nothing, on a CPU with neither body. */
static int pj_conv3x3_gemm(const pj_conv_geom* g, Py_ssize_t M, Py_ssize_t K, const float* w,
                           Py_ssize_t ldw, float* out, Py_ssize_t ldo, const float* scale,
                           const float* shift, float lo, float hi);

static int pj_conv2d_gemm(const pj_conv_geom* g, Py_ssize_t M, Py_ssize_t K, const float* w,
                          Py_ssize_t ldw, float* out, Py_ssize_t ldo, const float* scale,
                          const float* shift, float lo, float hi) {
    if (pj_conv3x3_cap && pj_conv3x3_gemm(g, M, K, w, ldw, out, ldo, scale, shift, lo, hi))
        return 1;
    pj_operand src = {g, NULL, 0, 0};
    return pj_gemm_run(M, g->oh * g->ow, K, w, ldw, &src, out, ldo, scale, shift, NULL, lo, hi);
}

/* pj_conv2d_gemm for a 3x3 convolution at stride 1, undilated, padded by at
 * most 1, of an output at least 14 pixels wide (narrower rows fill too few
 * lanes of a run), without packing (pj_conv3x3_512); 0, having written
 * nothing, where it does not apply or there is no AVX-512 body. */
static int pj_conv3x3_gemm(const pj_conv_geom* g, Py_ssize_t M, Py_ssize_t K, const float* w,
                           Py_ssize_t ldw, float* out, Py_ssize_t ldo, const float* scale,
                           const float* shift, float lo, float hi) {
#if PJ_HAVE_GEMM
    if (pj_gemm_level() < 2 || g->kh != 3 || g->kw != 3 || g->sh != 1 || g->sw != 1 ||
        g->dh != 1 || g->dw != 1 || g->ph > 1 || g->pw > 1 || g->ow < 14 || K % 9)
        return 0;
    Py_ssize_t* off = (Py_ssize_t*)malloc(K * sizeof(Py_ssize_t));
    unsigned char* ij = (unsigned char*)malloc(K);
    float* tail = (float*)malloc(PJ_MR * K * sizeof(float));
    if (!off || !ij || !tail) {
        free(off);
        free(ij);
        free(tail);
        return 0;
    }
    pj_conv3x3_512(g, M, K, w, ldw, out, ldo, scale, shift, lo, hi, off, ij, tail);
    free(off);
    free(ij);
    free(tail);
    return 1;
#else
    (void)g; (void)M; (void)K; (void)w; (void)ldw; (void)out; (void)ldo; (void)scale;
    (void)shift; (void)lo; (void)hi;
    return 0;
#endif
}

/* out[r, n] = min(hi, max(lo, bias[n] + sum_k a[r, k] b[k, n])), a (M, K)
 * with rows lda floats apart, b (K, N) with element (k, n) at b[k * ldk + n *
 * ldn] (ldn 1 or ldk 1, see pj_operand), bias NULL for none, out's rows ldo
 * apart: a matrix product, as a linear layer's (b its weight's transpose,
 * bias its bias, added first, as torch's addmm adds it).  Returns 0 where
 * there is no body. */
static int pj_matmul(Py_ssize_t M, Py_ssize_t N, Py_ssize_t K, const float* a, Py_ssize_t lda,
                     const float* b, Py_ssize_t ldk, Py_ssize_t ldn, float* out, Py_ssize_t ldo,
                     const float* bias, float lo, float hi) {
    pj_operand src = {NULL, b, ldk, ldn};
    return pj_gemm_run(M, N, K, a, lda, &src, out, ldo, NULL, NULL, bias, lo, hi);
}

/* A recurrent layer's product by its weight, step after step: out[b, j] =
 * bias[j] + sum_k x[b, k] w[j, k] for the n rows of one step, with the weight
 * transposed once a call (pj_transpose_weight: wt[k, j] = w[j, k]), so that a
 * step is K broadcasts of x[b, k], each times a row of wt: 16 vectors of sums
 * at once, in registers, no sums across lanes after.  (On the weight as torch
 * keeps it, pj_rows_times of _kernels_rnn.h, an LSTM of 64 took 0.95 us a
 * step.)  AVX-512 only: the caller asks pj_gemm_level() first. */
#if PJ_HAVE_GEMM
/* wt (K, M), rows M apart = w (M, K) transposed, 16x16 blocks in registers. */
__attribute__((target("avx512f"))) static void
pj_transpose_weight(const float* w, Py_ssize_t M, Py_ssize_t K, float* wt) {
    for (Py_ssize_t j0 = 0; j0 < M; j0 += 16) {
        int rows = M - j0 < 16 ? (int)(M - j0) : 16;
        for (Py_ssize_t k0 = 0; k0 < K; k0 += 16)
            pj_transpose_block(w + j0 * K + k0, K, rows, K - k0 < 16 ? (int)(K - k0) : 16,
                               wt + k0 * M + j0, M, (__mmask16)((1u << rows) - 1));
    }
}

/* out[b, j] = bias[j] + sum_k x[b, k] wt[k, j], for b < n, j < M (bias NULL:
 * 0): 256 columns at a time, the sums started at the bias, k in order. */
__attribute__((target("avx512f,fma"))) static void
pj_rows_times_t512(const float* x, Py_ssize_t n, Py_ssize_t K, const float* wt, Py_ssize_t M,
                   const float* bias, float* out) {
    for (Py_ssize_t b = 0; b < n; b++) {
        const float* xb = x + b * K;
        for (Py_ssize_t j0 = 0; j0 < M; j0 += 256) {
            __mmask16 m[16];
            __m512 acc[16];
            for (int v = 0; v < 16; v++) {
                Py_ssize_t lanes = M - j0 - 16 * v;
                m[v] = lanes >= 16 ? (__mmask16)0xFFFF
                     : lanes <= 0 ? (__mmask16)0 : (__mmask16)((1u << lanes) - 1);
                acc[v] = bias ? _mm512_maskz_loadu_ps(m[v], bias + j0 + 16 * v)
                              : _mm512_setzero_ps();
            }
            for (Py_ssize_t k = 0; k < K; k++) {
                __m512 xv = _mm512_set1_ps(xb[k]);
                const float* row = wt + k * M + j0;
                for (int v = 0; v < 16; v++)
                    acc[v] = _mm512_fmadd_ps(xv, _mm512_maskz_loadu_ps(m[v], row + 16 * v), acc[v]);
            }
            for (int v = 0; v < 16; v++)
                _mm512_mask_storeu_ps(out + b * M + j0 + 16 * v, m[v], acc[v]);
        }
    }
}
#else
static void pj_transpose_weight(const float* w, Py_ssize_t M, Py_ssize_t K, float* wt) {
    (void)w; (void)M; (void)K; (void)wt;
}
static void pj_rows_times_t512(const float* x, Py_ssize_t n, Py_ssize_t K, const float* wt,
                               Py_ssize_t M, const float* bias, float* out) {
    (void)x; (void)n; (void)K; (void)wt; (void)M; (void)bias; (void)out;
}
#endif

#endif  /* PYJIT_KERNELS_GEMM_H */
