/*
 * bf16_amx.c -- C = A * W^T + bias with W in bf16 and A rounded to bf16 as it
 * comes, on Intel AMX (tdpbf16ps: 16 x 16 x 32 products a tile, fp32 sums).
 * For the products int8 cannot take at parity (MiniLM's feed-forward down-
 * projections under --precision int8): about seven times the fp32 kernels'
 * rate, with bf16's rounding (the error of ib_gemm's IB_GEMM_BF16).
 *
 * Packed layout: blocks of 16 output rows; in a block, for every pair of k,
 * 16 x 2 bf16 (row j's pair at 2j): 16 pairs are one B tile (16 rows of 64
 * bytes). K is padded to a multiple of 32 and N to a multiple of 16 with zeros.
 */
#include "ib_kernels.h"
#include "scratch.h"
#include "amx.h"
#include "ib_simd.h"

#include <immintrin.h>
#include <string.h>

#define AMX_BF16 __attribute__((target("amx-tile,amx-bf16,avx512f,avx512bf16,avx512vl")))
#define BLOCK 16
#define ROWS 32     /* rows of A per step: two 16-row tiles against two blocks (four fp32 tiles) */

static int round32(int k) { return (k + 31) & ~31; }
static int blocks_of(int n) { return (n + BLOCK - 1) / BLOCK; }

/* fp32 -> bf16, round to nearest even (NaN stays NaN). */
static uint16_t to_bf16(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    if ((u & 0x7fffffff) > 0x7f800000) return (uint16_t)((u >> 16) | 0x40);
    return (uint16_t)((u + 0x7fff + ((u >> 16) & 1)) >> 16);
}

int ib_bf16_amx_usable(void) {
    return ib_amx_usable() && ib_cpu_has_bf16();
}

size_t ib_bf16_amx_packed_bytes(int N, int K) {
    if (N <= 0 || K <= 0) return 0;
    return (size_t)blocks_of(N) * BLOCK * (size_t)round32(K) * 2;
}

void ib_bf16_amx_pack(const float *W, int N, int K, uint16_t *packed) {
    if (N <= 0 || K <= 0) return;
    const int K2 = round32(K);
    memset(packed, 0, ib_bf16_amx_packed_bytes(N, K));
    for (int n = 0; n < N; n++)
        for (int k = 0; k < K; k++)
            packed[(size_t)(n / BLOCK) * BLOCK * K2 + (size_t)(k / 2) * BLOCK * 2 + (n % BLOCK) * 2 + k % 2] =
                to_bf16(W[(size_t)n * K + k]);
}

/* Rows of A in bf16, K2 apart, zero-padded (vcvtneps2bf16 rounds to nearest even as to_bf16). */
AMX_BF16 static void rows_to_bf16(const float *A, int lda, int M, int K, int K2, uint16_t *out) {
    for (int m = 0; m < M; m++) {
        const float *a = A + (size_t)m * lda;
        uint16_t *o = out + (size_t)m * K2;
        int k = 0;
        for (; k + 16 <= K; k += 16)
            _mm256_storeu_si256((__m256i *)(o + k), (__m256i)_mm512_cvtneps_pbh(_mm512_loadu_ps(a + k)));
        for (; k < K; k++) o[k] = to_bf16(a[k]);
        for (; k < K2; k++) o[k] = 0;
    }
}

AMX_BF16 static void tile_bf16(int rows, int K2, const uint16_t *A, const uint16_t *B0, const uint16_t *B1,
                               float acc[ROWS][2 * BLOCK]) {
    _tile_zero(0); _tile_zero(1); _tile_zero(2); _tile_zero(3);
    const int two = rows > 16;
    for (int k = 0; k < K2; k += 32) {
        _tile_loadd(4, A + k, K2 * 2);
        _tile_loadd(6, B0 + (size_t)k * BLOCK, 64);
        _tile_dpbf16ps(0, 4, 6);
        if (B1) { _tile_loadd(7, B1 + (size_t)k * BLOCK, 64); _tile_dpbf16ps(1, 4, 7); }
        if (two) {
            _tile_loadd(5, A + (size_t)16 * K2 + k, K2 * 2);
            _tile_dpbf16ps(2, 5, 6);
            if (B1) _tile_dpbf16ps(3, 5, 7);
        }
    }
    _tile_stored(0, acc[0], 2 * BLOCK * 4);
    if (B1) _tile_stored(1, acc[0] + BLOCK, 2 * BLOCK * 4);
    if (two) {
        _tile_stored(2, acc[16], 2 * BLOCK * 4);
        if (B1) _tile_stored(3, acc[16] + BLOCK, 2 * BLOCK * 4);
    }
}

int ib_gemm_bf16_amx(int M, int N, int K, const float *A, int lda, const uint16_t *packed, const float *bias,
                     float *C, int ldc, int flags) {
    if (!ib_bf16_amx_usable()) return 0;
    if (M <= 0 || N <= 0 || K <= 0) return 1;
    const int K2 = round32(K), blocks = blocks_of(N);
    /* ROWS rows at a time in bf16 (the tiles read whole 16-row groups: rows past M are zeros) */
    uint16_t *a = ib_scratch(IB_SCRATCH_BF16_A, (size_t)ROWS * K2 * 2);
    float acc[ROWS][2 * BLOCK];
    const int accumulate = (flags & IB_GEMM_ACCUMULATE) != 0;
    ib_amx_begin();
    for (int m0 = 0; m0 < M; m0 += ROWS) {
        const int rows = M - m0 < ROWS ? M - m0 : ROWS;
        rows_to_bf16(A + (size_t)m0 * lda, lda, rows, K, K2, a);
        if (rows < ROWS) memset(a + (size_t)rows * K2, 0, (size_t)(ROWS - rows) * K2 * 2);
        for (int b = 0; b < blocks; b += 2) {
            const uint16_t *B0 = packed + (size_t)b * BLOCK * K2;
            const uint16_t *B1 = b + 1 < blocks ? B0 + (size_t)BLOCK * K2 : NULL;
            tile_bf16(rows, K2, a, B0, B1, acc);
            const int n0 = b * BLOCK, cols = N - n0 < 2 * BLOCK ? N - n0 : 2 * BLOCK;
            for (int i = 0; i < rows; i++) {
                float *c = C + (size_t)(m0 + i) * ldc + n0;
                for (int j = 0; j < cols; j++) {
                    const float v = acc[i][j] + (bias ? bias[n0 + j] : 0.0f);
                    c[j] = accumulate ? c[j] + v : v;
                }
            }
        }
    }
    ib_amx_end();
    if (flags & IB_GEMM_GELU)
        for (int m = 0; m < M; m++) ib_gelu(C + (size_t)m * ldc, N);
    return 1;
}
