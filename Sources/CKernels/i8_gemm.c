/*
 * CKernels, int8 side: C = A * W^T + bias with W quantised once to int8 (one
 * scale per output row) and each row of A quantised as it comes (one scale per
 * row): the "dynamic int8" of CTranslate2's and ONNX Runtime's CPU paths.
 *
 *   ib_i8_packed_bytes  bytes of a packed [N, K] weight
 *   ib_i8_pack          quantise and pack fp32 W[N, K]: codes, row scales, row sums
 *   ib_i8_pack_codes    pack int8 codes quantised elsewhere (one scale a row)
 *   ib_gemm_i8          C[M, N] = A[M, K] * W^T + bias [, accumulate | GELU]
 *   ib_i16_columns      a weight as 16-bit codes by input (for the outliers' products)
 *   ib_gemm_i8_mixed    the same, with a row's massive activations (|a| > limit x RMS(a))
 *                       set apart and multiplied in fp32, or the whole row in fp32
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
#include "amx.h"
#include "ib_simd.h"

#include <immintrin.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define VNNI __attribute__((target("avx512f,avx512bw,avx512vl,avx512vnni")))
#define AVXVNNI __attribute__((target("avx2,avxvnni")))
#define AMX __attribute__((target("amx-tile,amx-int8,avx512f")))
#define BLOCK 16      /* output rows (columns of C) per packed block */
#define MR 8          /* rows of A per VNNI tile; a tile covers two blocks (32 columns) */
#define MR_YMM 6      /* rows of A per AVX-VNNI tile (one block: 12 accumulators, 2 weights, 1 row) */
#define MR_AVX2 2     /* rows of A per AVX2 tile (one block: 8 accumulators, 4 widened weights) */
#define CHUNK 256     /* rows of A quantised and multiplied at a time */
#define AMX_ROWS 32   /* rows of A per AMX step: two 16-row tiles against two blocks (four int32 tiles) */

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

void ib_i16_columns(const float *W, int N, int K, int16_t *columns, float *scales) {
    for (int n = 0; n < N; n++) {
        const float *w = W + (size_t)n * K;
        float top = 0;
        for (int k = 0; k < K; k++) top = fabsf(w[k]) > top ? fabsf(w[k]) : top;
        scales[n] = top / 32767.0f;
        const float inverse = top > 0 ? 32767.0f / top : 0;
        for (int k = 0; k < K; k++) columns[(size_t)k * N + n] = (int16_t)lrintf(w[k] * inverse);
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
 * asymmetric ones the zero point that puts [min(0, min a), max(0, max a)] on 0..255.
 * One pass over a row gives its min, max and sum of squares; a row whose max |a| is above
 * `limit` times its RMS is not quantised but listed for fp32 (ib_gemm_i8_mixed). The same AVX2
 * code runs on every path, so every path makes the same codes and the same choices. */

static float hmin8(__m256 v) {
    __m128 s = _mm_min_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_min_ps(s, _mm_movehl_ps(s, s));
    return _mm_cvtss_f32(_mm_min_ss(s, _mm_movehdup_ps(s)));
}
static float hmax8(__m256 v) {
    __m128 s = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_max_ps(s, _mm_movehl_ps(s, s));
    return _mm_cvtss_f32(_mm_max_ss(s, _mm_movehdup_ps(s)));
}
static float hsum8(__m256 v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    return _mm_cvtss_f32(_mm_add_ss(s, _mm_movehdup_ps(s)));
}

/* lo = min(0, min a), hi = max(0, max a) (NaNs ignored), squares = sum of a^2. */
static void scan_row(const float *a, int K, float *lo, float *hi, float *squares) {
    __m256 vlo = _mm256_setzero_ps(), vhi = _mm256_setzero_ps(), vsq = _mm256_setzero_ps();
    int k = 0;
    for (; k + 8 <= K; k += 8) {
        const __m256 x = _mm256_loadu_ps(a + k);
        vlo = _mm256_min_ps(x, vlo);              /* a NaN x gives the second operand */
        vhi = _mm256_max_ps(x, vhi);
        vsq = _mm256_fmadd_ps(x, x, vsq);
    }
    float l = hmin8(vlo), h = hmax8(vhi), q = hsum8(vsq);
    for (; k < K; k++) { l = a[k] < l ? a[k] : l; h = a[k] > h ? a[k] : h; q = fmaf(a[k], a[k], q); }
    *lo = l; *hi = h; *squares = q;
}

/* Codes of a row over [lo, hi] (lo <= 0 <= hi, hi > lo): rint(a / step) + zero, clamped to 0..255. */
static void quantize_row_asymmetric(const float *a, int K, float lo, float hi, uint8_t *out, float *scale, int32_t *zero) {
    const float step = (hi - lo) / 255.0f, inverse = 255.0f / (hi - lo);
    const float z = rintf(-lo * inverse);                     /* in [0, 255]: lo <= 0 <= hi */
    const __m256 vinv = _mm256_set1_ps(inverse), vz = _mm256_set1_ps(z);
    const __m256 top = _mm256_set1_ps(255.0f), bottom = _mm256_setzero_ps();
    const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
    int k = 0;
    for (; k + 32 <= K; k += 32) {
        __m256i q[4];
        for (int i = 0; i < 4; i++) {
            const __m256 x = _mm256_loadu_ps(a + k + 8 * i);
            __m256 t = _mm256_add_ps(_mm256_round_ps(_mm256_mul_ps(x, vinv), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC), vz);
            t = _mm256_min_ps(_mm256_max_ps(t, bottom), top);
            t = _mm256_blendv_ps(t, vz, _mm256_cmp_ps(x, x, _CMP_UNORD_Q));   /* a NaN: a zero activation */
            q[i] = _mm256_cvtps_epi32(t);
        }
        const __m256i bytes = _mm256_packus_epi16(_mm256_packus_epi32(q[0], q[1]), _mm256_packus_epi32(q[2], q[3]));
        _mm256_storeu_si256((__m256i *)(out + k), _mm256_permutevar8x32_epi32(bytes, order));
    }
    for (; k < K; k++) {
        float t = rintf(a[k] * inverse) + z;
        t = t > 255.0f ? 255.0f : t;
        t = t < 0.0f ? 0.0f : t;
        t = a[k] == a[k] ? t : z;
        out[k] = (uint8_t)(int)t;
    }
    *scale = step;
    *zero = (int32_t)z;
}

/* The rows of A as the tiles read them: `count` quantised rows (codes K4 apart), row i
 * going to row index[i] of C, with outliers[i] of its values set apart (quantised as zero,
 * their products added in fp32 afterwards: outK/outV, MAX_OUTLIERS a row); `fp32count`
 * rows (fp32[i]) left for an fp32 product. */
#define MAX_OUTLIERS 16
struct i8_rows {
    uint8_t *codes;
    float *scale;
    int32_t *zero;
    int *index, *fp32, *outliers, *outK;
    float *outV, *spare;
    int count, fp32count, withOutliers;
};

/* Quantises row a into slot i of r (codes, scale, zero; padding = the zero point). */
static void quantize_into(struct i8_rows *r, int i, const float *a, int K, int asymmetric, float lo, float hi) {
    uint8_t *out = r->codes + (size_t)i * round4(K);
    if (!asymmetric) {
        ib_quantize_i8(a, K, (int8_t *)out, &r->scale[i]);
        for (int k = 0; k < K; k++) out[k] ^= 0x80;          /* signed code + 128 */
        r->zero[i] = 128;
    } else if (hi - lo > 0) {
        quantize_row_asymmetric(a, K, lo, hi, out, &r->scale[i], &r->zero[i]);
    } else {                                                  /* all zero (or NaN): zero codes */
        memset(out, 0, (size_t)K); r->scale[i] = 0; r->zero[i] = 0;
    }
    for (int k = K; k < round4(K); k++) out[k] = (uint8_t)r->zero[i];   /* a zero activation */
}

/* A row whose max |a| is above rowLimit x RMS (rowLimit > 0) goes to fp32 whole; in the
 * others, with valueLimit > 0, the values above valueLimit x RMS are set apart (at most
 * MAX_OUTLIERS, else the whole row goes to fp32) and the rest quantised over its own range. */
static struct i8_rows quantize_rows(int M, int N, int K, const float *A, int lda, int asymmetric, float rowLimit,
                                    float valueLimit) {
    const int K4 = round4(K);
    struct i8_rows r;
    r.codes = ib_scratch(IB_SCRATCH_I8_CODES, (size_t)(M + AMX_ROWS) * K4);   /* AMX tiles read whole 16-row groups */
    r.scale = ib_scratch(IB_SCRATCH_I8_SCALES, (size_t)M * (5 * sizeof(int32_t) + MAX_OUTLIERS * 2 * sizeof(int32_t))
                                               + (size_t)(K > N ? K : N) * sizeof(float));
    r.zero = (int32_t *)(r.scale + M);
    r.index = (int *)(r.zero + M);
    r.fp32 = r.index + M;
    r.outliers = r.fp32 + M;
    r.outK = r.outliers + M;
    r.outV = (float *)(r.outK + (size_t)M * MAX_OUTLIERS);
    r.spare = r.outV + (size_t)M * MAX_OUTLIERS;
    r.count = r.fp32count = r.withOutliers = 0;
    const float rowLimit2 = rowLimit * rowLimit, valueLimit2 = valueLimit * valueLimit;
    for (int m = 0; m < M; m++) {
        const float *a = A + (size_t)m * lda;
        float lo = 0, hi = 0, squares = 0;
        if (asymmetric || rowLimit > 0 || valueLimit > 0) scan_row(a, K, &lo, &hi, &squares);
        const int i = r.count;
        r.outliers[i] = 0;
        const float peak = hi > -lo ? hi : -lo, meanSquare = squares / (float)K;
        if (rowLimit > 0 && peak * peak > rowLimit2 * meanSquare) { r.fp32[r.fp32count++] = m; continue; }
        if (valueLimit > 0 && peak * peak > valueLimit2 * meanSquare) {
            const float bound = sqrtf(valueLimit2 * meanSquare);
            int n = 0;
            float *rest = r.spare;
            lo = hi = 0;
            for (int k = 0; k < K; k++) {
                const float v = a[k];
                if (fabsf(v) > bound) {
                    if (n < MAX_OUTLIERS) { r.outK[(size_t)i * MAX_OUTLIERS + n] = k; r.outV[(size_t)i * MAX_OUTLIERS + n] = v; }
                    n++;
                    rest[k] = 0;
                } else {
                    rest[k] = v;
                    lo = v < lo ? v : lo; hi = v > hi ? v : hi;
                }
            }
            if (n > MAX_OUTLIERS) { r.fp32[r.fp32count++] = m; continue; }
            r.outliers[i] = n;
            r.withOutliers++;
            a = rest;
        }
        r.index[i] = m;
        r.count++;
        quantize_into(&r, i, a, K, asymmetric, lo, hi);
    }
    return r;
}

/* ---- the tiles: acc[r][c] = sum over k of (code[r][k]) * w[c][k], exact ---- */

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

/* AVX-VNNI (vpdpbusd on ymm): up to MR_YMM rows against one block; a block's 16 x 4 bytes
 * per k are two ymm (columns 0-7, 8-15). Missing rows repeat the last. */
AVXVNNI static void tile_avx_vnni(int rows, int K4, const uint8_t *A, int lda, const int8_t *B,
                                  int32_t acc[MR][2 * BLOCK]) {
    __m256i lo[MR_YMM], hi[MR_YMM];
    const uint8_t *a[MR_YMM];
    for (int r = 0; r < MR_YMM; r++) {
        lo[r] = _mm256_setzero_si256(); hi[r] = _mm256_setzero_si256();
        a[r] = A + (size_t)(r < rows ? r : rows - 1) * lda;
    }
    for (int k = 0; k < K4; k += 4) {
        const __m256i b0 = _mm256_loadu_si256((const __m256i *)(B + (size_t)k * BLOCK));
        const __m256i b1 = _mm256_loadu_si256((const __m256i *)(B + (size_t)k * BLOCK + 32));
        for (int r = 0; r < MR_YMM; r++) {
            int32_t four;
            memcpy(&four, a[r] + k, 4);
            const __m256i ar = _mm256_set1_epi32(four);
            lo[r] = _mm256_dpbusd_avx_epi32(lo[r], ar, b0);
            hi[r] = _mm256_dpbusd_avx_epi32(hi[r], ar, b1);
        }
    }
    for (int r = 0; r < MR_YMM; r++) {
        _mm256_storeu_si256((__m256i *)acc[r], lo[r]);
        _mm256_storeu_si256((__m256i *)(acc[r] + 8), hi[r]);
    }
}

/* AVX2 without VNNI: up to MR_AVX2 rows against one block, with vpmaddwd on codes widened to
 * 16 bits (exact: vpmaddubsw would saturate, 255 x 127 x 2 > 32767). The block's 16 x 4 bytes
 * are four groups of four columns, widened once per k for every row; each group's madd gives
 * every column two partial sums (k0k1, k2k3), folded at the end by vphaddd. */
static void tile_avx2(int rows, int K4, const uint8_t *A, int lda, const int8_t *B, int32_t acc[MR][2 * BLOCK]) {
    __m256i s[MR_AVX2][4];
    const uint8_t *a[MR_AVX2];
    for (int r = 0; r < MR_AVX2; r++) {
        for (int g = 0; g < 4; g++) s[r][g] = _mm256_setzero_si256();
        a[r] = A + (size_t)(r < rows ? r : rows - 1) * lda;
    }
    for (int k = 0; k < K4; k += 4) {
        const int8_t *b = B + (size_t)k * BLOCK;
        __m256i bg[4];
        for (int g = 0; g < 4; g++) bg[g] = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(b + 16 * g)));
        for (int r = 0; r < MR_AVX2; r++) {
            uint32_t four;
            memcpy(&four, a[r] + k, 4);
            const __m256i ak = _mm256_set1_epi64x((long long)_mm_cvtsi128_si64(_mm_cvtepu8_epi16(_mm_cvtsi32_si128((int)four))));
            for (int g = 0; g < 4; g++) s[r][g] = _mm256_add_epi32(s[r][g], _mm256_madd_epi16(ak, bg[g]));
        }
    }
    for (int r = 0; r < MR_AVX2; r++) {
        /* hadd(s0, s1): c0 c1 c4 c5 | c2 c3 c6 c7 -> permute 64-bit lanes 0 2 1 3 */
        const __m256i c07 = _mm256_permute4x64_epi64(_mm256_hadd_epi32(s[r][0], s[r][1]), 0xD8);
        const __m256i c815 = _mm256_permute4x64_epi64(_mm256_hadd_epi32(s[r][2], s[r][3]), 0xD8);
        _mm256_storeu_si256((__m256i *)acc[r], c07);
        _mm256_storeu_si256((__m256i *)(acc[r] + 8), c815);
    }
}

/* AMX (tdpbusd): the packed layout is already a B tile's: 16 groups of four k (64 bytes each:
 * 16 columns x 4 codes) are 16 tile rows of 64 bytes, one block's 64 k. An A tile is 16 rows of
 * 64 codes. Two A tiles against two blocks: four 16 x 16 int32 tiles, stored to acc[32][32]. The
 * tiles read 16 rows of codes whatever `rows` is; the rows past it are never stored. */
AMX static void tile_amx(int rows, int K4, const uint8_t *A, const int8_t *B0, const int8_t *B1,
                         int32_t acc[AMX_ROWS][2 * BLOCK]) {
    _tile_zero(0); _tile_zero(1); _tile_zero(2); _tile_zero(3);
    const int two = rows > 16;
    for (int k = 0; k < K4; k += 64) {
        _tile_loadd(4, A + k, K4);
        _tile_loadd(6, B0 + (size_t)k * BLOCK, 64);
        _tile_dpbusd(0, 4, 6);
        if (B1) { _tile_loadd(7, B1 + (size_t)k * BLOCK, 64); _tile_dpbusd(1, 4, 7); }
        if (two) {
            _tile_loadd(5, A + (size_t)16 * K4 + k, K4);
            _tile_dpbusd(2, 5, 6);
            if (B1) _tile_dpbusd(3, 5, 7);
        }
    }
    _tile_stored(0, acc[0], 2 * BLOCK * 4);
    if (B1) _tile_stored(1, acc[0] + BLOCK, 2 * BLOCK * 4);
    if (two) {
        _tile_stored(2, acc[16], 2 * BLOCK * 4);
        if (B1) _tile_stored(3, acc[16] + BLOCK, 2 * BLOCK * 4);
    }
}

/* ---- back to fp32: one epilogue for every path (the same operations, so the same floats) ----
 * c[n] (+)= (rowScale * scale[n]) * (acc - zero * sum[n]) + bias[n], multiplied then added (as the
 * scalar epilogue before it did: Whisper's int8 tokens stay as they were). */

static void store_row(const int32_t *acc, int n0, int cols, float rowScale, int32_t rowZero, const float *scales,
                      const int32_t *sums, const float *bias, float *c, int flags) {
    const int accumulate = (flags & IB_GEMM_ACCUMULATE) != 0;
    const __m256 rs = _mm256_set1_ps(rowScale);
    const __m256i rz = _mm256_set1_epi32(rowZero);
    int j = 0;
    for (; j + 8 <= cols; j += 8) {
        const int n = n0 + j;
        const __m256i t = _mm256_sub_epi32(_mm256_loadu_si256((const __m256i *)(acc + j)),
                                           _mm256_mullo_epi32(rz, _mm256_loadu_si256((const __m256i *)(sums + n))));
        const __m256 s = _mm256_mul_ps(rs, _mm256_loadu_ps(scales + n));
        __m256 v = _mm256_mul_ps(s, _mm256_cvtepi32_ps(t));
        if (bias) v = _mm256_add_ps(v, _mm256_loadu_ps(bias + n));
        if (accumulate) v = _mm256_add_ps(_mm256_loadu_ps(c + n), v);
        _mm256_storeu_ps(c + n, v);
    }
    for (; j < cols; j++) {
        const int n = n0 + j;
        float v = rowScale * scales[n] * (float)(acc[j] - rowZero * sums[n]);
        if (bias) v += bias[n];                               /* a statement apart: never contracted to an FMA */
        c[n] = accumulate ? c[n] + v : v;
    }
}

/* ---- which tiles run ---- */

enum { PATH_AVX2, PATH_AVX_VNNI, PATH_VNNI512, PATH_AMX };
static int avx_vnni_allowed = 1;

/* IB_KERNELS=avx2 stands for a CPU with AVX2 alone (Zen 3, Haswell to Comet Lake): no
 * AVX-VNNI either; IB_KERNELS=avx-vnni keeps it (kernels.c). */
static int has_avx_vnni(void) {
    static int known = -1;
    if (known < 0) {
        const char *forced = getenv("IB_KERNELS");
        known = __builtin_cpu_supports("avxvnni") && !(forced && strcmp(forced, "avx2") == 0) ? 1 : 0;
    }
    return known;
}

static int i8_path(void) {
    if (ib_cpu_has_vnni() && strcmp(ib_kernels_isa(), "avx512") == 0) return ib_amx_usable() ? PATH_AMX : PATH_VNNI512;
    return avx_vnni_allowed && has_avx_vnni() ? PATH_AVX_VNNI : PATH_AVX2;
}

int ib_i8_uses_vnni(void) { return i8_path() >= PATH_VNNI512; }

const char *ib_i8_path_name(void) {
    switch (i8_path()) {
    case PATH_AMX: return "amx";
    case PATH_VNNI512: return "avx512-vnni";
    case PATH_AVX_VNNI: return "avx-vnni";
    default: return "avx2";
    }
}

int ib_i8_allow_avx_vnni(int allow) {
    avx_vnni_allowed = allow != 0;
    return avx_vnni_allowed && has_avx_vnni();
}

/* The quantised rows' products, written to their rows of C. */
/* AMX over 32 rows at a time (K4 a multiple of 64, at least 16 rows: else the VNNI tiles). */
static void gemm_rows_amx(const struct i8_rows *r, int N, int K4, const int8_t *packed, const float *scales,
                          const int32_t *sums, const float *bias, float *C, int ldc, int flags) {
    const int blocks = blocks_of(N);
    int32_t acc[AMX_ROWS][2 * BLOCK];
    ib_amx_begin();
    for (int m0 = 0; m0 < r->count; m0 += AMX_ROWS) {
        const int rows = r->count - m0 < AMX_ROWS ? r->count - m0 : AMX_ROWS;
        for (int b = 0; b < blocks; b += 2) {
            const int8_t *B0 = packed + (size_t)b * BLOCK * K4;
            const int8_t *B1 = b + 1 < blocks ? B0 + (size_t)BLOCK * K4 : NULL;
            tile_amx(rows, K4, r->codes + (size_t)m0 * K4, B0, B1, acc);
            const int n0 = b * BLOCK, cols = N - n0 < 2 * BLOCK ? N - n0 : 2 * BLOCK;
            for (int i = 0; i < rows; i++)
                store_row(acc[i], n0, cols, r->scale[m0 + i], r->zero[m0 + i], scales, sums, bias,
                          C + (size_t)r->index[m0 + i] * ldc, flags);
        }
    }
    ib_amx_end();
}

static void gemm_rows(const struct i8_rows *r, int N, int K, const int8_t *packed, const float *scales,
                      const int32_t *sums, const float *bias, float *C, int ldc, int flags) {
    const int K4 = round4(K), blocks = blocks_of(N);
    int path = i8_path();
    if (path == PATH_AMX) {
        if (K4 % 64 == 0 && r->count >= 16) { gemm_rows_amx(r, N, K4, packed, scales, sums, bias, C, ldc, flags); return; }
        path = PATH_VNNI512;
    }
    int32_t acc[MR][2 * BLOCK];
    const int step = path == PATH_VNNI512 ? MR : path == PATH_AVX_VNNI ? MR_YMM : MR_AVX2;
    const int width = path == PATH_VNNI512 ? 2 : 1;       /* blocks per tile */
    for (int m0 = 0; m0 < r->count; m0 += step) {
        const int rows = r->count - m0 < step ? r->count - m0 : step;
        const uint8_t *codes = r->codes + (size_t)m0 * K4;
        for (int b = 0; b < blocks; b += width) {
            const int8_t *B0 = packed + (size_t)b * BLOCK * K4;
            if (path == PATH_VNNI512) {
                const int8_t *B1 = b + 1 < blocks ? B0 + (size_t)BLOCK * K4 : NULL;
                if (rows == 1) tile_vnni_one_row(rows, K4, codes, K4, B0, B1, acc);
                else tile_vnni(rows, K4, codes, K4, B0, B1, acc);
            } else if (path == PATH_AVX_VNNI) {
                tile_avx_vnni(rows, K4, codes, K4, B0, acc);
            } else {
                tile_avx2(rows, K4, codes, K4, B0, acc);
            }
            const int n0 = b * BLOCK, cols = N - n0 < width * BLOCK ? N - n0 : width * BLOCK;
            for (int i = 0; i < rows; i++)
                store_row(acc[i], n0, cols, r->scale[m0 + i], r->zero[m0 + i], scales, sums, bias,
                          C + (size_t)r->index[m0 + i] * ldc, flags);
        }
    }
}

/* The set-apart values' products: c[n] += scale[n] * sum over outliers of v * code[n][k], from
 * the weight's 16-bit codes by input (columns[k * ldcol + n]): a massive activation times an
 * 8-bit weight's rounding error would cost more than the int8 activations save. */
static void add_outliers(const struct i8_rows *r, int N, const int16_t *columns, int ldcol, const float *scales,
                         float *C, int ldc) {
    float *sum = r->spare;
    for (int i = 0; i < r->count; i++) {
        if (r->outliers[i] == 0) continue;
        memset(sum, 0, (size_t)N * sizeof(float));
        for (int o = 0; o < r->outliers[i]; o++) {
            const int16_t *col = columns + (size_t)r->outK[(size_t)i * MAX_OUTLIERS + o] * ldcol;
            const float v = r->outV[(size_t)i * MAX_OUTLIERS + o];
            const __m256 vv = _mm256_set1_ps(v);
            int n = 0;
            for (; n + 8 <= N; n += 8) {
                const __m256 w = _mm256_cvtepi32_ps(_mm256_cvtepi16_epi32(_mm_loadu_si128((const __m128i *)(col + n))));
                _mm256_storeu_ps(sum + n, _mm256_fmadd_ps(vv, w, _mm256_loadu_ps(sum + n)));
            }
            for (; n < N; n++) sum[n] = fmaf(v, (float)col[n], sum[n]);
        }
        float *c = C + (size_t)r->index[i] * ldc;
        int n = 0;
        for (; n + 8 <= N; n += 8)
            _mm256_storeu_ps(c + n, _mm256_fmadd_ps(_mm256_loadu_ps(scales + n), _mm256_loadu_ps(sum + n), _mm256_loadu_ps(c + n)));
        for (; n < N; n++) c[n] = fmaf(scales[n], sum[n], c[n]);
    }
}

/* The rows listed for fp32, by the weight's 16-bit codes by input (error ~1e-5 of the row's
 * largest weight: fp32's, for practical purposes, without the fp32 weight): four rows at a
 * time, 16 outputs at a time, c[n] (+)= scale[n] * sum over k of a[k] * code[k][n] + bias[n]. */
static void fp32_rows_by_columns(const struct i8_rows *r, int N, int K, const float *A, int lda, const int16_t *columns,
                                 const float *columnScales, int ldcol, const float *bias, float *C, int ldc, int flags) {
    const int accumulate = (flags & IB_GEMM_ACCUMULATE) != 0;
    for (int i0 = 0; i0 < r->fp32count; i0 += 4) {
        const int rows = r->fp32count - i0 < 4 ? r->fp32count - i0 : 4;
        const float *a[4];
        float *c[4];
        for (int j = 0; j < 4; j++) {
            const int m = r->fp32[i0 + (j < rows ? j : rows - 1)];
            a[j] = A + (size_t)m * lda;
            c[j] = C + (size_t)m * ldc;
        }
        int n0 = 0;
        for (; n0 + 16 <= N; n0 += 16) {
            __m256 s[4][2];
            for (int j = 0; j < 4; j++) s[j][0] = s[j][1] = _mm256_setzero_ps();
            for (int k = 0; k < K; k++) {
                const int16_t *w = columns + (size_t)k * ldcol + n0;
                const __m256 w0 = _mm256_cvtepi32_ps(_mm256_cvtepi16_epi32(_mm_loadu_si128((const __m128i *)w)));
                const __m256 w1 = _mm256_cvtepi32_ps(_mm256_cvtepi16_epi32(_mm_loadu_si128((const __m128i *)(w + 8))));
                for (int j = 0; j < 4; j++) {
                    const __m256 x = _mm256_broadcast_ss(a[j] + k);
                    s[j][0] = _mm256_fmadd_ps(x, w0, s[j][0]);
                    s[j][1] = _mm256_fmadd_ps(x, w1, s[j][1]);
                }
            }
            for (int j = 0; j < rows; j++)
                for (int h = 0; h < 2; h++) {
                    const int n = n0 + 8 * h;
                    __m256 v = _mm256_fmadd_ps(_mm256_loadu_ps(columnScales + n), s[j][h],
                                               bias ? _mm256_loadu_ps(bias + n) : _mm256_setzero_ps());
                    if (accumulate) v = _mm256_add_ps(_mm256_loadu_ps(c[j] + n), v);
                    _mm256_storeu_ps(c[j] + n, v);
                }
        }
        for (; n0 < N; n0++)
            for (int j = 0; j < rows; j++) {
                float sum = 0;
                for (int k = 0; k < K; k++) sum = fmaf(a[j][k], (float)columns[(size_t)k * ldcol + n0], sum);
                const float v = fmaf(columnScales[n0], sum, bias ? bias[n0] : 0.0f);
                c[j][n0] = accumulate ? c[j][n0] + v : v;
            }
        if (flags & IB_GEMM_GELU)
            for (int j = 0; j < rows; j++) ib_gelu(c[j], N);
    }
}

/* The same on AVX-512: eight rows at a time, 32 outputs at a time (16 sums in registers, two
 * widened weight vectors per k for eight rows' FMAs). */
#define AVX512F __attribute__((target("avx512f,avx512bw,avx512vl")))
AVX512F static void fp32_rows_by_columns_avx512(const struct i8_rows *r, int N, int K, const float *A, int lda,
                                               const int16_t *columns, const float *columnScales, int ldcol,
                                               const float *bias, float *C, int ldc, int flags) {
    const int accumulate = (flags & IB_GEMM_ACCUMULATE) != 0;
    for (int i0 = 0; i0 < r->fp32count; i0 += 8) {
        const int rows = r->fp32count - i0 < 8 ? r->fp32count - i0 : 8;
        const float *a[8];
        float *c[8];
        for (int j = 0; j < 8; j++) {
            const int m = r->fp32[i0 + (j < rows ? j : rows - 1)];
            a[j] = A + (size_t)m * lda;
            c[j] = C + (size_t)m * ldc;
        }
        for (int n0 = 0; n0 < N; n0 += 32) {
            const int cols = N - n0 < 32 ? N - n0 : 32;
            const __mmask16 m0 = cols >= 16 ? 0xffff : (__mmask16)((1u << cols) - 1);
            const __mmask16 m1 = cols >= 32 ? 0xffff : cols <= 16 ? 0 : (__mmask16)((1u << (cols - 16)) - 1);
            __m512 s0[8], s1[8];
            for (int j = 0; j < 8; j++) s0[j] = s1[j] = _mm512_setzero_ps();
            for (int k = 0; k < K; k++) {
                const int16_t *w = columns + (size_t)k * ldcol + n0;
                const __m512 w0 = _mm512_cvtepi32_ps(_mm512_cvtepi16_epi32(_mm256_maskz_loadu_epi16(m0, w)));
                const __m512 w1 = _mm512_cvtepi32_ps(_mm512_cvtepi16_epi32(_mm256_maskz_loadu_epi16(m1, w + 16)));
                for (int j = 0; j < 8; j++) {
                    const __m512 x = _mm512_set1_ps(a[j][k]);
                    s0[j] = _mm512_fmadd_ps(x, w0, s0[j]);
                    s1[j] = _mm512_fmadd_ps(x, w1, s1[j]);
                }
            }
            const __m512 scale0 = _mm512_maskz_loadu_ps(m0, columnScales + n0), scale1 = _mm512_maskz_loadu_ps(m1, columnScales + n0 + 16);
            const __m512 bias0 = bias ? _mm512_maskz_loadu_ps(m0, bias + n0) : _mm512_setzero_ps();
            const __m512 bias1 = bias ? _mm512_maskz_loadu_ps(m1, bias + n0 + 16) : _mm512_setzero_ps();
            for (int j = 0; j < rows; j++) {
                __m512 v0 = _mm512_fmadd_ps(scale0, s0[j], bias0), v1 = _mm512_fmadd_ps(scale1, s1[j], bias1);
                if (accumulate) {
                    v0 = _mm512_add_ps(_mm512_maskz_loadu_ps(m0, c[j] + n0), v0);
                    v1 = _mm512_add_ps(_mm512_maskz_loadu_ps(m1, c[j] + n0 + 16), v1);
                }
                _mm512_mask_storeu_ps(c[j] + n0, m0, v0);
                _mm512_mask_storeu_ps(c[j] + n0 + 16, m1, v1);
            }
        }
        if (flags & IB_GEMM_GELU)
            for (int j = 0; j < rows; j++) ib_gelu(c[j], N);
    }
}

/* The rows listed for fp32 without 16-bit codes: gathered, multiplied by W as ib_gemm does, put back. */
static void gemm_fp32_rows(const struct i8_rows *r, int N, int K, const float *A, int lda, const float *W,
                           const float *bias, float *C, int ldc, int flags) {
    const int F = r->fp32count;
    float *a = ib_scratch(IB_SCRATCH_I8_FP32, (size_t)F * (K + N) * sizeof(float)), *c = a + (size_t)F * K;
    for (int i = 0; i < F; i++) {
        memcpy(a + (size_t)i * K, A + (size_t)r->fp32[i] * lda, (size_t)K * sizeof(float));
        if (flags & IB_GEMM_ACCUMULATE) memcpy(c + (size_t)i * N, C + (size_t)r->fp32[i] * ldc, (size_t)N * sizeof(float));
    }
    ib_gemm(F, N, K, a, K, W, K, bias, c, N, flags & (IB_GEMM_ACCUMULATE | IB_GEMM_GELU));
    for (int i = 0; i < F; i++) memcpy(C + (size_t)r->fp32[i] * ldc, c + (size_t)i * N, (size_t)N * sizeof(float));
}

void ib_gemm_i8_mixed(int M, int N, int K, const float *A, int lda, const int8_t *packed, const float *scales,
                      const int32_t *sums, const int16_t *columns, const float *columnScales, int ldcol,
                      const float *W, float rowLimit, float valueLimit, const float *bias, float *C, int ldc, int flags) {
    if (M <= 0 || N <= 0 || K <= 0) return;
    if (!W && !columns) rowLimit = 0;
    if (!columns) valueLimit = 0;
    /* CHUNK rows at a time, so that the codes and the fp32 rows' copies stay small (and in cache) */
    for (int m0 = 0; m0 < M; m0 += CHUNK) {
        const int rows = M - m0 < CHUNK ? M - m0 : CHUNK;
        const float *a = A + (size_t)m0 * lda;
        float *c = C + (size_t)m0 * ldc;
        const struct i8_rows r = quantize_rows(rows, N, K, a, lda, flags & IB_GEMM_I8_ASYMMETRIC, rowLimit, valueLimit);
        gemm_rows(&r, N, K, packed, scales, sums, bias, c, ldc, flags);
        if (r.withOutliers > 0) add_outliers(&r, N, columns, ldcol, columnScales, c, ldc);
        if (flags & IB_GEMM_GELU)
            for (int i = 0; i < r.count; i++) ib_gelu(c + (size_t)r.index[i] * ldc, N);
        if (r.fp32count > 0 && columns) {
            if (strcmp(ib_kernels_isa(), "avx512") == 0)
                fp32_rows_by_columns_avx512(&r, N, K, a, lda, columns, columnScales, ldcol, bias, c, ldc, flags);
            else
                fp32_rows_by_columns(&r, N, K, a, lda, columns, columnScales, ldcol, bias, c, ldc, flags);
        }
        else if (r.fp32count > 0) gemm_fp32_rows(&r, N, K, a, lda, W, bias, c, ldc, flags);
    }
}

void ib_gemm_i8(int M, int N, int K, const float *A, int lda, const int8_t *packed, const float *scales,
                const int32_t *sums, const float *bias, float *C, int ldc, int flags) {
    ib_gemm_i8_mixed(M, N, K, A, lda, packed, scales, sums, NULL, NULL, 0, NULL, 0, 0, bias, C, ldc, flags);
}
