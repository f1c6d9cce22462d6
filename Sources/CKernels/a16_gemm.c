/*
 * CKernels, the int8 path of CPUs with AVX2 but no VNNI (Zen 3, Haswell to
 * Comet Lake): C = A * W^T + bias with W quantised once to small integer codes
 * (|code| <= wmax, one scale per output row) and each row of A quantised as it
 * comes to 16-bit codes (one scale per row), exact int32 sums by vpmaddwd.
 *
 *   ib_w16_pairs_bytes  bytes of a packed [N, K] weight
 *   ib_w16_pack_pairs   quantise and pack fp32 W[N, K]: codes and row scales
 *   ib_a16_limit        the largest activation code for K inputs and wmax
 *   ib_gemm_a16         C[M, N] = A[M, K] * W^T + bias [, accumulate | GELU]
 *
 * Why: without VNNI, int8 products run on vpmaddwd, which multiplies 16-bit
 * values (vpmaddubsw saturates with 8-bit codes on both sides), so codes of
 * 8 bits cost as much as codes of 16. Both sides may as well keep more bits for
 * the same multiply-adds, as far as exact int32 sums allow: per-token error
 * then hardly matters, the massive activations of [CLS], [SEP] and punctuation
 * need no fp32 rows or set-apart values, and every linear (ffn-down too) runs
 * so at parity, where 8-bit codes must leave ffn-down and some tokens in fp32.
 * (Measured: 8-bit weights with 16-bit activations are not enough; a massive
 * activation multiplies its weights' rounding errors.)
 *
 * Exact: activation codes are at most ib_a16_limit(K, wmax) = min(32767,
 * (2^31 - 1) / (K2 x wmax)) in magnitude (K2: K rounded up to even), so no
 * int32 sum can overflow.
 *
 * Packed layout: column blocks of 16 output rows; in a block, for every pair of
 * consecutive k, 32 int16: columns 0-7 then 8-15, each column's two codes side
 * by side, the pairs vpmaddwd multiplies by a broadcast pair of activation
 * codes. K is padded to even and N to a multiple of 16 with zero codes.
 */
#include "ib_kernels.h"
#include "scratch.h"
#include "ib_simd.h"

#include <immintrin.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK 16      /* output rows (columns of C) per packed block */
#define MR 6          /* rows of A per tile: 12 accumulators, 2 weight vectors, 1 broadcast */
#define CHUNK 48      /* rows of A quantised at a time (a multiple of MR; ~150 KB of codes for K = 1536) */

static int even(int k) { return (k + 1) & ~1; }
static int blocks_of(int n) { return (n + BLOCK - 1) / BLOCK; }

size_t ib_w16_pairs_bytes(int N, int K) {
    if (N <= 0 || K <= 0) return 0;
    return (size_t)blocks_of(N) * BLOCK * (size_t)even(K) * sizeof(int16_t);
}

int ib_a16_limit(int K, int wmax) {
    const long long bound = 2147483647LL / ((long long)even(K > 0 ? K : 1) * (wmax > 0 ? wmax : 1));
    return bound > 32767 ? 32767 : (int)bound;
}

/* Row n: scales[n] = max|w| / wmax, code = round half to even of w / max|w| x wmax (NaN: 0). */
void ib_w16_pack_pairs(const float *W, int N, int K, int wmax, int16_t *packed, float *scales) {
    if (N <= 0 || K <= 0) return;
    const int K2 = even(K);
    memset(packed, 0, ib_w16_pairs_bytes(N, K));
    for (int n = 0; n < N; n++) {
        const float *w = W + (size_t)n * K;
        float top = 0;
        for (int k = 0; k < K; k++) top = fabsf(w[k]) > top ? fabsf(w[k]) : top;
        scales[n] = top > 0 ? top / (float)wmax : 0.0f;
        int16_t *block = packed + (size_t)(n / BLOCK) * BLOCK * K2;
        const int j = n % BLOCK;
        for (int k = 0; k < K && top > 0; k++) {
            const float t = w[k] / top * (float)wmax;
            block[(size_t)(k / 2) * 2 * BLOCK + (j / 8) * BLOCK + (j % 8) * 2 + k % 2] = t == t ? (int16_t)lrintf(t) : 0;
        }
    }
}

/* ---- activations: codes = rint(a / scale) with scale = max|a| / limit; NaN: 0; padding: 0 ---- */

static void quantize_row(const float *a, int K, int limit, int16_t *out, float *scale) {
    const __m256 sign = _mm256_set1_ps(-0.0f);
    __m256 vmax = _mm256_setzero_ps();
    int k = 0;
    for (; k + 8 <= K; k += 8) vmax = _mm256_max_ps(_mm256_andnot_ps(sign, _mm256_loadu_ps(a + k)), vmax);  /* NaN: kept vmax */
    __m128 s = _mm_max_ps(_mm256_castps256_ps128(vmax), _mm256_extractf128_ps(vmax, 1));
    s = _mm_max_ps(s, _mm_movehl_ps(s, s));
    float top = _mm_cvtss_f32(_mm_max_ss(s, _mm_movehdup_ps(s)));
    for (; k < K; k++) top = fabsf(a[k]) > top ? fabsf(a[k]) : top;
    const float inverse = top > 0 && top <= 3.0e38f ? (float)limit / top : 0.0f;
    *scale = top > 0 && top <= 3.0e38f ? top / (float)limit : 0.0f;
    const __m256 vinv = _mm256_set1_ps(inverse), zero = _mm256_setzero_ps();
    k = 0;
    for (; k + 16 <= K; k += 16) {
        __m256 x0 = _mm256_mul_ps(_mm256_loadu_ps(a + k), vinv), x1 = _mm256_mul_ps(_mm256_loadu_ps(a + k + 8), vinv);
        x0 = _mm256_blendv_ps(x0, zero, _mm256_cmp_ps(x0, x0, _CMP_UNORD_Q));
        x1 = _mm256_blendv_ps(x1, zero, _mm256_cmp_ps(x1, x1, _CMP_UNORD_Q));
        const __m256i q = _mm256_packs_epi32(_mm256_cvtps_epi32(x0), _mm256_cvtps_epi32(x1));   /* round to nearest even */
        _mm256_storeu_si256((__m256i *)(out + k), _mm256_permute4x64_epi64(q, 0xD8));
    }
    for (; k < K; k++) {
        const float t = a[k] * inverse;
        out[k] = t == t ? (int16_t)lrintf(t) : 0;
    }
    if (K % 2) out[K] = 0;
}

/* ---- the tile: acc[r][c] = sum over k of code[r][k] * w[c][k], exact ---- */

/* ROWS rows of A against one block. The rows come as a panel: for each pair of k, MR 32-bit
 * pairs of codes side by side (row r's at r), so every broadcast is one fixed offset from one
 * pointer; two pairs of k a step (K2 / 2 steps of one pair when K2 / 2 is odd). */
#define TILE_A16(NAME, ROWS)                                                                           \
static void NAME(int K2, const int32_t *panel, const int16_t *B, int32_t acc[MR][BLOCK]) {             \
    __m256i lo[ROWS], hi[ROWS];                                                                        \
    for (int r = 0; r < ROWS; r++) lo[r] = hi[r] = _mm256_setzero_si256();                             \
    const int pairs = K2 / 2;                                                                          \
    int p = 0;                                                                                         \
    for (; p + 2 <= pairs; p += 2) {                                                                   \
        for (int u = 0; u < 2; u++) {                                                                  \
            const int16_t *b = B + (size_t)(p + u) * 2 * BLOCK;                                        \
            const __m256i b0 = _mm256_loadu_si256((const __m256i *)b);                                 \
            const __m256i b1 = _mm256_loadu_si256((const __m256i *)(b + 16));                          \
            for (int r = 0; r < ROWS; r++) {                                                           \
                const __m256i ar = _mm256_set1_epi32(panel[(size_t)(p + u) * MR + r]);                 \
                lo[r] = _mm256_add_epi32(lo[r], _mm256_madd_epi16(ar, b0));                            \
                hi[r] = _mm256_add_epi32(hi[r], _mm256_madd_epi16(ar, b1));                            \
            }                                                                                          \
        }                                                                                              \
    }                                                                                                  \
    for (; p < pairs; p++) {                                                                           \
        const int16_t *b = B + (size_t)p * 2 * BLOCK;                                                  \
        const __m256i b0 = _mm256_loadu_si256((const __m256i *)b);                                     \
        const __m256i b1 = _mm256_loadu_si256((const __m256i *)(b + 16));                              \
        for (int r = 0; r < ROWS; r++) {                                                               \
            const __m256i ar = _mm256_set1_epi32(panel[(size_t)p * MR + r]);                           \
            lo[r] = _mm256_add_epi32(lo[r], _mm256_madd_epi16(ar, b0));                                \
            hi[r] = _mm256_add_epi32(hi[r], _mm256_madd_epi16(ar, b1));                                \
        }                                                                                              \
    }                                                                                                  \
    for (int r = 0; r < ROWS; r++) {                                                                   \
        _mm256_storeu_si256((__m256i *)acc[r], lo[r]);                                                 \
        _mm256_storeu_si256((__m256i *)(acc[r] + 8), hi[r]);                                           \
    }                                                                                                  \
}
TILE_A16(tile6, 6)
TILE_A16(tile5, 5)
TILE_A16(tile4, 4)
TILE_A16(tile3, 3)
TILE_A16(tile2, 2)
TILE_A16(tile1, 1)

typedef void (*tile_fn)(int, const int32_t *, const int16_t *, int32_t[MR][BLOCK]);
static const tile_fn tiles[MR + 1] = {NULL, tile1, tile2, tile3, tile4, tile5, tile6};

/* Row r (< MR) of a panel from its row of codes: pair p to panel[p * MR + r]. */
static void to_panel(const int16_t *codes, int K2, int32_t *panel, int r) {
    for (int p = 0; p < K2 / 2; p++) memcpy(&panel[(size_t)p * MR + r], codes + 2 * p, 4);
}

/* c[n0 + j] (+)= (rowScale * scales[n0 + j]) * acc[j] + bias[n0 + j] for j < cols. */
static void store_row(const int32_t *acc, int n0, int cols, float rowScale, const float *scales, const float *bias,
                      float *c, int accumulate) {
    const __m256 rs = _mm256_set1_ps(rowScale);
    int j = 0;
    for (; j + 8 <= cols; j += 8) {
        const int n = n0 + j;
        __m256 v = _mm256_mul_ps(_mm256_mul_ps(rs, _mm256_loadu_ps(scales + n)),
                                 _mm256_cvtepi32_ps(_mm256_loadu_si256((const __m256i *)(acc + j))));
        if (bias) v = _mm256_add_ps(v, _mm256_loadu_ps(bias + n));
        if (accumulate) v = _mm256_add_ps(_mm256_loadu_ps(c + n), v);
        _mm256_storeu_ps(c + n, v);
    }
    for (; j < cols; j++) {
        const int n = n0 + j;
        float v = rowScale * scales[n] * (float)acc[j];
        if (bias) v += bias[n];                               /* a statement apart: never contracted to an FMA */
        c[n] = accumulate ? c[n] + v : v;
    }
}

void ib_gemm_a16(int M, int N, int K, const float *A, int lda, const int16_t *packed, const float *scales, int wmax,
                 const float *bias, float *C, int ldc, int flags) {
    if (M <= 0 || N <= 0 || K <= 0) return;
    const int K2 = even(K), blocks = blocks_of(N), limit = ib_a16_limit(K, wmax);
    const int accumulate = (flags & IB_GEMM_ACCUMULATE) != 0;
    /* the chunk's codes as panels of MR rows (K2 / 2 x MR pairs each), then one row's codes */
    int32_t *panels = ib_scratch(IB_SCRATCH_I8_CODES, (size_t)CHUNK * K2 * sizeof(int16_t) + (size_t)K2 * sizeof(int16_t));
    int16_t *row = (int16_t *)(panels + (size_t)CHUNK * K2 / 2);
    float *rowScales = ib_scratch(IB_SCRATCH_I8_SCALES, CHUNK * sizeof(float));
    int32_t acc[MR][BLOCK];
    for (int m0 = 0; m0 < M; m0 += CHUNK) {
        const int rows = M - m0 < CHUNK ? M - m0 : CHUNK;
        for (int i = 0; i < rows; i++) {
            quantize_row(A + (size_t)(m0 + i) * lda, K, limit, row, &rowScales[i]);
            to_panel(row, K2, panels + (size_t)(i / MR) * MR * (K2 / 2), i % MR);
        }
        /* a block's weights (K2 x 32 bytes) stay near while every row of the chunk passes */
        for (int b = 0; b < blocks; b++) {
            const int16_t *B = packed + (size_t)b * BLOCK * K2;
            const int n0 = b * BLOCK, cols = N - n0 < BLOCK ? N - n0 : BLOCK;
            for (int t = 0; t < rows; t += MR) {
                const int r = rows - t < MR ? rows - t : MR;
                tiles[r](K2, panels + (size_t)(t / MR) * MR * (K2 / 2), B, acc);
                for (int i = 0; i < r; i++)
                    store_row(acc[i], n0, cols, rowScales[t + i], scales, bias, C + (size_t)(m0 + t + i) * ldc, accumulate);
            }
        }
        if (flags & IB_GEMM_GELU)
            for (int i = 0; i < rows; i++) ib_gelu(C + (size_t)(m0 + i) * ldc, N);
    }
}
