/*
 * CKernels, int8 side: C = A * W^T + bias with W quantised once to int8 (one
 * scale per output row) and each row of A quantised as it comes (one scale per
 * row): the "dynamic int8" of CTranslate2's and ONNX Runtime's CPU paths.
 *
 *   ib_i8_packed_bytes  bytes of a packed [N, K] weight
 *   ib_i8_pack          quantise and pack fp32 W[N, K]: codes, row scales, row sums
 *   ib_i8_pack_codes    pack int8 codes quantised elsewhere (one scale a row)
 *   ib_gemm_i8          C[M, N] = A[M, K] * W^T + bias [, accumulate | GELU]
 *
 * Why: a Whisper window is 1,500 positions through GEMMs that are bound by
 * arithmetic, and AVX-512 VNNI does 64 int8 multiply-adds per instruction
 * where fp32 FMA does 16. Activations become unsigned (code + 128) because
 * vpdpbusd multiplies unsigned by signed bytes; the 128 * sum(w) this adds is
 * taken off again with each row's precomputed sum. All integer sums are exact
 * (|sum| <= K * 255 * 127 < 2^31 for K < 66,000), so the AVX2 path, which
 * does the same products with vpmaddwd, gives bit-identical results; the
 * scaling back to fp32 is one shared scalar epilogue.
 *
 * Rows of A may instead be quantised asymmetrically (IB_GEMM_I8_ASYMMETRIC):
 * codes 0..255 with the row's own integer zero point z in place of 128, so
 * the correction is z * sum(w), just as exact.
 *
 * Packed layout: column blocks of 16 output rows; in a block, for every 4
 * consecutive k, 16 x 4 bytes (row j's four codes at 4j): one 512-bit load
 * is the B operand of one vpdpbusd. K is padded to a multiple of 4 and N to a
 * multiple of 16 with zeros (zero codes, zero scales).
 */
#include "ib_kernels.h"
#include "scratch.h"
#include "ib_simd.h"

#include <immintrin.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define VNNI __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni")))
#define BLOCK 16      /* output rows (columns of C) per packed block */
#define MR 8          /* rows of A per VNNI tile; a tile covers two blocks (32 columns) */

static int round4(int k) { return (k + 3) & ~3; }
static int blocks_of(int n) { return (n + BLOCK - 1) / BLOCK; }

size_t ib_i8_packed_bytes(int N, int K) {
    if (N <= 0 || K <= 0) return 0;
    return (size_t)blocks_of(N) * BLOCK * (size_t)round4(K);
}

void ib_i8_pack_codes(const int8_t *codes, int N, int K, int8_t *packed, int32_t *sums) {
    if (N <= 0 || K <= 0) return;
    const int K4 = round4(K);
    memset(packed, 0, ib_i8_packed_bytes(N, K));
    for (int n = 0; n < N; n++) {
        const int8_t *row = codes + (size_t)n * K;
        int8_t *block = packed + (size_t)(n / BLOCK) * BLOCK * K4;
        int32_t sum = 0;
        for (int k = 0; k < K; k++) {
            block[(size_t)(k / 4) * BLOCK * 4 + (n % BLOCK) * 4 + k % 4] = row[k];
            sum += row[k];
        }
        sums[n] = sum;
    }
}

void ib_i8_pack(const float *W, int N, int K, int8_t *packed, float *scales, int32_t *sums) {
    if (N <= 0 || K <= 0) return;
    int8_t *codes = malloc((size_t)N * K);
    if (!codes) abort();
    for (int n = 0; n < N; n++) ib_quantize_i8(W + (size_t)n * K, K, codes + (size_t)n * K, &scales[n]);
    ib_i8_pack_codes(codes, N, K, packed, sums);
    free(codes);
}

/* ---- activations: one scale and one zero point per row, codes as bytes, padding = the zero point ----
 * A row value a is scale * (code - zero): symmetric rows have zero 128 (code = signed code + 128),
 * asymmetric ones the zero point that puts [min(0, min a), max(0, max a)] on 0..255. */

static void quantize_row_asymmetric(const float *a, int K, uint8_t *out, float *scale, int32_t *zero) {
    float lo = 0, hi = 0;
    for (int k = 0; k < K; k++) { lo = a[k] < lo ? a[k] : lo; hi = a[k] > hi ? a[k] : hi; }
    if (!(hi - lo > 0)) {                                     /* all zero (or NaN): zero codes */
        memset(out, 0, (size_t)K); *scale = 0; *zero = 0; return;
    }
    const float step = (hi - lo) / 255.0f, inverse = 255.0f / (hi - lo);
    const float z = rintf(-lo * inverse);                     /* in [0, 255]: lo <= 0 <= hi */
    for (int k = 0; k < K; k++) {
        float t = rintf(a[k] * inverse) + z;
        t = t > 255.0f ? 255.0f : t;
        t = t < 0.0f ? 0.0f : t;
        t = t == t ? t : z;                                   /* a NaN becomes a zero activation */
        out[k] = (uint8_t)(int)t;
    }
    *scale = step;
    *zero = (int32_t)z;
}

static void quantize_rows(int M, int K, const float *A, int lda, int asymmetric,
                          uint8_t **codes, float **scales, int32_t **zeros) {
    const int K4 = round4(K);
    uint8_t *row_codes = ib_scratch(IB_SCRATCH_I8_CODES, (size_t)M * K4);
    float *row_scales = ib_scratch(IB_SCRATCH_I8_SCALES, (size_t)M * (sizeof(float) + sizeof(int32_t)));
    int32_t *row_zeros = (int32_t *)(row_scales + M);
    for (int m = 0; m < M; m++) {
        uint8_t *out = row_codes + (size_t)m * K4;
        if (asymmetric) {
            quantize_row_asymmetric(A + (size_t)m * lda, K, out, &row_scales[m], &row_zeros[m]);
        } else {
            ib_quantize_i8(A + (size_t)m * lda, K, (int8_t *)out, &row_scales[m]);
            for (int k = 0; k < K; k++) out[k] ^= 0x80;      /* signed code + 128 */
            row_zeros[m] = 128;
        }
        for (int k = K; k < K4; k++) out[k] = (uint8_t)row_zeros[m];   /* a zero activation */
    }
    *codes = row_codes;
    *scales = row_scales;
    *zeros = row_zeros;
}

/* ---- the tiles: acc[r][c] = sum over k of (code[r][k] + 128) * w[c][k], exact ---- */

/* ROWS rows of A against two blocks (32 columns); missing rows repeat the last. */
#define TILE_VNNI(NAME, ROWS)                                                                          \
VNNI static void NAME(int rows, int K4, const uint8_t *A, int lda, const int8_t *B0, const int8_t *B1,  \
                      int32_t acc[MR][2 * BLOCK]) {                                                     \
    __m512i c0[ROWS], c1[ROWS];                                                                         \
    const uint8_t *a[ROWS];                                                                             \
    for (int r = 0; r < ROWS; r++) {                                                                    \
        c0[r] = _mm512_setzero_si512(); c1[r] = _mm512_setzero_si512();                                 \
        a[r] = A + (size_t)(r < rows ? r : rows - 1) * lda;                                             \
    }                                                                                                   \
    for (int k = 0; k < K4; k += 4) {                                                                   \
        const __m512i b0 = _mm512_loadu_si512(B0 + (size_t)k * BLOCK);                                  \
        const __m512i b1 = B1 ? _mm512_loadu_si512(B1 + (size_t)k * BLOCK) : _mm512_setzero_si512();    \
        for (int r = 0; r < ROWS; r++) {                                                                \
            int32_t four;                                                                               \
            memcpy(&four, a[r] + k, 4);                                                                 \
            const __m512i ar = _mm512_set1_epi32(four);                                                 \
            c0[r] = _mm512_dpbusd_epi32(c0[r], ar, b0);                                                 \
            c1[r] = _mm512_dpbusd_epi32(c1[r], ar, b1);                                                 \
        }                                                                                               \
    }                                                                                                   \
    for (int r = 0; r < ROWS; r++) {                                                                    \
        _mm512_storeu_si512(acc[r], c0[r]);                                                             \
        _mm512_storeu_si512(acc[r] + BLOCK, c1[r]);                                                     \
    }                                                                                                   \
}
TILE_VNNI(tile_vnni, MR)
TILE_VNNI(tile_vnni_one_row, 1)    /* a decoding step: one row, bound by reading the weights */

/* One row against one block, with vpmaddwd: the 16 x 4 bytes are four groups of
 * four columns; each group's madd gives every column two partial sums (k0k1, k2k3). */
static void tile_avx2_row(int K4, const uint8_t *a, const int8_t *B, int32_t out[BLOCK]) {
    __m256i s[4];
    for (int g = 0; g < 4; g++) s[g] = _mm256_setzero_si256();
    for (int k = 0; k < K4; k += 4) {
        const __m256i ak = _mm256_set1_epi64x((long long)a[k] | (long long)a[k + 1] << 16 |
                                              (long long)a[k + 2] << 32 | (long long)a[k + 3] << 48);
        const int8_t *b = B + (size_t)k * BLOCK;
        for (int g = 0; g < 4; g++) {
            const __m256i bg = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(b + 16 * g)));
            s[g] = _mm256_add_epi32(s[g], _mm256_madd_epi16(ak, bg));
        }
    }
    for (int g = 0; g < 4; g++) {
        int32_t pairs[8];
        _mm256_storeu_si256((__m256i *)pairs, s[g]);
        for (int j = 0; j < 4; j++) out[4 * g + j] = pairs[2 * j] + pairs[2 * j + 1];
    }
}

/* ---- back to fp32: one scalar epilogue for both paths ---- */

static void store_row(const int32_t *acc, int n0, int cols, float rowScale, int32_t rowZero, const float *scales,
                      const int32_t *sums, const float *bias, float *c, int flags) {
    for (int j = 0; j < cols; j++) {
        const int n = n0 + j;
        float v = rowScale * scales[n] * (float)(acc[j] - rowZero * sums[n]);
        if (bias) v += bias[n];
        c[n] = (flags & IB_GEMM_ACCUMULATE) ? c[n] + v : v;
    }
}

int ib_i8_uses_vnni(void) {
    return ib_cpu_has_vnni() && strcmp(ib_kernels_isa(), "avx512") == 0;
}

void ib_gemm_i8(int M, int N, int K, const float *A, int lda, const int8_t *packed, const float *scales,
                const int32_t *sums, const float *bias, float *C, int ldc, int flags) {
    if (M <= 0 || N <= 0 || K <= 0) return;
    const int K4 = round4(K), blocks = blocks_of(N);
    uint8_t *codes; float *rowScales; int32_t *rowZeros;
    quantize_rows(M, K, A, lda, flags & IB_GEMM_I8_ASYMMETRIC, &codes, &rowScales, &rowZeros);
    if (ib_i8_uses_vnni()) {
        int32_t acc[MR][2 * BLOCK];
        for (int m0 = 0; m0 < M; m0 += MR) {
            const int rows = M - m0 < MR ? M - m0 : MR;
            for (int b = 0; b < blocks; b += 2) {
                const int8_t *B0 = packed + (size_t)b * BLOCK * K4;
                const int8_t *B1 = b + 1 < blocks ? B0 + (size_t)BLOCK * K4 : NULL;
                if (rows == 1) tile_vnni_one_row(rows, K4, codes + (size_t)m0 * K4, K4, B0, B1, acc);
                else tile_vnni(rows, K4, codes + (size_t)m0 * K4, K4, B0, B1, acc);
                const int n0 = b * BLOCK, cols = (N - n0 < 2 * BLOCK ? N - n0 : 2 * BLOCK);
                for (int r = 0; r < rows; r++)
                    store_row(acc[r], n0, cols, rowScales[m0 + r], rowZeros[m0 + r], scales, sums, bias, C + (size_t)(m0 + r) * ldc, flags);
            }
        }
    } else {
        int32_t acc[BLOCK];
        for (int m = 0; m < M; m++) {
            for (int b = 0; b < blocks; b++) {
                tile_avx2_row(K4, codes + (size_t)m * K4, packed + (size_t)b * BLOCK * K4, acc);
                const int n0 = b * BLOCK, cols = N - n0 < BLOCK ? N - n0 : BLOCK;
                store_row(acc, n0, cols, rowScales[m], rowZeros[m], scales, sums, bias, C + (size_t)m * ldc, flags);
            }
        }
    }
    if (flags & IB_GEMM_GELU)
        for (int m = 0; m < M; m++) ib_gelu(C + (size_t)m * ldc, N);
}
