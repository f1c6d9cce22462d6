/*
 * CKernels: fp32 kernels for the BERT encoder in IBModel.
 *
 *   ib_gemm          C = A * op(B) + bias [, GELU]   (packed, register-blocked FMA)
 *   ib_layernorm     per-row LayerNorm
 *   ib_softmax_rows  per-row softmax with a scale
 *   ib_embed_tokens  word + position + token-type embedding gather
 *   ib_mean_pool     mean over rows, L2 normalisation
 *
 * The baseline build targets x86-64-v3 (AVX2 + FMA). Functions marked
 * AVX512 are compiled for AVX-512F and only called when the CPU has it
 * (the CPU is asked once, through CIBSimd's ib_cpu_isa; IB_KERNELS=avx2
 * forces AVX2).
 *
 * GEMM layout (BLIS style): for each block of KC along K, pack op(B) into
 * panels of NR columns ([k][NR], zero-padded); A is read in place, MR rows at
 * a time (a block of MC rows stays in L2 while every panel passes over it).
 * The micro-kernel keeps an MR x NR tile of C in registers and does one FMA
 * per (row, vector) per k. The epilogue adds C (accumulate), the bias, GELU.
 */
#include "ib_kernels.h"
#include "ib_simd.h"
#include "scratch.h"

#include <immintrin.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define AVX512 __attribute__((target("avx512f,avx512dq,avx512bw,avx512vl")))
#define INLINE static inline __attribute__((always_inline))

/* ------------------------------------------------------------------------ */
/* Instruction set selection: the CPU is asked through CIBSimd (ib_simd.h),  */
/* the one dispatcher CKernels shares with the vector extension.             */

static int use_avx512 = -1;

static void choose_isa(void) {
    const char *forced = getenv("IB_KERNELS");
    if (forced && (strcmp(forced, "avx2") == 0 || strcmp(forced, "avx-vnni") == 0)) { use_avx512 = 0; return; }
    use_avx512 = ib_cpu_isa() == IB_ISA_AVX512;
}

static pthread_once_t isa_once = PTHREAD_ONCE_INIT;

static int has_avx512(void) {
    if (use_avx512 < 0) pthread_once(&isa_once, choose_isa);
    return use_avx512;
}

int ib_kernels_select(int avx512) {
    pthread_once(&isa_once, choose_isa);
    use_avx512 = avx512 && ib_cpu_isa() == IB_ISA_AVX512;
    return use_avx512;
}

const char *ib_kernels_isa(void) { return has_avx512() ? "avx512" : "avx2"; }

/* ------------------------------------------------------------------------ */
/* exp and GELU, vectorised                                                   */
#define EXP_HI 88.3762626647949f
#define EXP_LO -87.3365447504019f
#define LOG2E 1.44269504088896341f
#define LN2_HI 0.693359375f
#define LN2_LO -2.12194440e-4f
static const float exp_p[6] = {
    1.9875691500e-4f, 1.3981999507e-3f, 8.3334519073e-3f, 4.1665795894e-2f, 1.6666665459e-1f, 5.0000001201e-1f,
};
static const float erf_p[7] = {
    -2.72614225801306e-10f, 2.77068142495902e-08f, -2.10102402082508e-06f, -5.69250639462346e-05f,
    -7.34990630326855e-04f, -2.95459980854025e-03f, -1.60960333262415e-02f,
};
static const float erf_q[5] = {
    -1.45660718464996e-05f, -2.13374055278905e-04f, -1.68282697438203e-03f,
    -7.37332916720468e-03f, -1.42647390514189e-02f,
};
#define INV_SQRT2 0.70710678118654752f

/* 2^n by the exponent bits (AVX2 has no scalef); 1/q by rcp_ps (12 bits) and two Newton steps. */
static inline __m256 pow2_256(__m256 p, __m256 n) {
    __m256i e = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
    return _mm256_mul_ps(p, _mm256_castsi256_ps(e));
}
static inline __m256 recip256(__m256 q) {
    __m256 r = _mm256_rcp_ps(q);
    r = _mm256_mul_ps(r, _mm256_fnmadd_ps(q, r, _mm256_set1_ps(2.0f)));
    return _mm256_mul_ps(r, _mm256_fnmadd_ps(q, r, _mm256_set1_ps(2.0f)));
}
/* 1/q by rcp14 and one Newton step (~23 bits). */
AVX512 static inline __m512 recip512(__m512 q) {
    __m512 r = _mm512_rcp14_ps(q);
    return _mm512_mul_ps(r, _mm512_fnmadd_ps(q, r, _mm512_set1_ps(2.0f)));
}

#define VF __m256
#define VFN(name) name##256
#define VATTR
#define V_SET1 _mm256_set1_ps
#define V_MIN _mm256_min_ps
#define V_MAX _mm256_max_ps
#define V_MUL _mm256_mul_ps
#define V_ADD _mm256_add_ps
#define V_FMADD _mm256_fmadd_ps
#define V_FNMADD _mm256_fnmadd_ps
#define V_FMSUB _mm256_fmsub_ps
#define V_LOADU _mm256_loadu_ps
#define V_STOREU _mm256_storeu_ps
#define V_WIDTH 8
#define V_ROUND(x) _mm256_round_ps(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)
#define V_POW2 pow2_256
#define V_RECIP recip256
#include "vmath_body.h"
#undef VF
#undef VFN
#undef VATTR
#undef V_SET1
#undef V_MIN
#undef V_MAX
#undef V_MUL
#undef V_ADD
#undef V_FMADD
#undef V_FNMADD
#undef V_FMSUB
#undef V_LOADU
#undef V_STOREU
#undef V_WIDTH
#undef V_ROUND
#undef V_POW2
#undef V_RECIP

#define VF __m512
#define VFN(name) name##512
#define VATTR AVX512
#define V_SET1 _mm512_set1_ps
#define V_MIN _mm512_min_ps
#define V_MAX _mm512_max_ps
#define V_MUL _mm512_mul_ps
#define V_ADD _mm512_add_ps
#define V_FMADD _mm512_fmadd_ps
#define V_FNMADD _mm512_fnmadd_ps
#define V_FMSUB _mm512_fmsub_ps
#define V_LOADU _mm512_loadu_ps
#define V_STOREU _mm512_storeu_ps
#define V_WIDTH 16
#define V_ROUND(x) _mm512_roundscale_ps(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)
#define V_POW2 _mm512_scalef_ps
#define V_RECIP recip512
#include "vmath_body.h"

static void gelu_avx2(float *x, int n) {
    int i = 0;
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(x + i, gelu256(_mm256_loadu_ps(x + i)));
    if (i < n) {
        float tmp[8] = {0};
        memcpy(tmp, x + i, (size_t)(n - i) * sizeof(float));
        _mm256_storeu_ps(tmp, gelu256(_mm256_loadu_ps(tmp)));
        memcpy(x + i, tmp, (size_t)(n - i) * sizeof(float));
    }
}

AVX512 static void gelu_avx512(float *x, int n) {
    int i = 0;
    for (; i + 16 <= n; i += 16) _mm512_storeu_ps(x + i, gelu512(_mm512_loadu_ps(x + i)));
    if (i < n) {
        __mmask16 m = (__mmask16)((1u << (n - i)) - 1);
        _mm512_mask_storeu_ps(x + i, m, gelu512(_mm512_maskz_loadu_ps(m, x + i)));
    }
}

void ib_gelu(float *x, int n) {
    if (has_avx512()) gelu_avx512(x, n); else gelu_avx2(x, n);
}

static inline float hsum256(__m256 v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

/* ------------------------------------------------------------------------ */
/* GEMM                                                                       */

#define KC 1536          /* K block: a B panel of KC x NR stays in L2 (1536: no K split for MiniLM) */
#define MC 72            /* M block: MC rows of A stay in L2 while the panels pass */

/* dst[c][r] = src[r][c] for an 8 x 8 block (row strides in floats). */
static inline void transpose8x8(const float *src, int lds, float *dst, int ldd) {
    __m256 r0 = _mm256_loadu_ps(src), r1 = _mm256_loadu_ps(src + lds);
    __m256 r2 = _mm256_loadu_ps(src + 2 * (size_t)lds), r3 = _mm256_loadu_ps(src + 3 * (size_t)lds);
    __m256 r4 = _mm256_loadu_ps(src + 4 * (size_t)lds), r5 = _mm256_loadu_ps(src + 5 * (size_t)lds);
    __m256 r6 = _mm256_loadu_ps(src + 6 * (size_t)lds), r7 = _mm256_loadu_ps(src + 7 * (size_t)lds);
    __m256 t0 = _mm256_unpacklo_ps(r0, r1), t1 = _mm256_unpackhi_ps(r0, r1);
    __m256 t2 = _mm256_unpacklo_ps(r2, r3), t3 = _mm256_unpackhi_ps(r2, r3);
    __m256 t4 = _mm256_unpacklo_ps(r4, r5), t5 = _mm256_unpackhi_ps(r4, r5);
    __m256 t6 = _mm256_unpacklo_ps(r6, r7), t7 = _mm256_unpackhi_ps(r6, r7);
    __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xEE);
    __m256 u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xEE);
    __m256 u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xEE);
    __m256 u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xEE);
    _mm256_storeu_ps(dst, _mm256_permute2f128_ps(u0, u4, 0x20));
    _mm256_storeu_ps(dst + ldd, _mm256_permute2f128_ps(u1, u5, 0x20));
    _mm256_storeu_ps(dst + 2 * (size_t)ldd, _mm256_permute2f128_ps(u2, u6, 0x20));
    _mm256_storeu_ps(dst + 3 * (size_t)ldd, _mm256_permute2f128_ps(u3, u7, 0x20));
    _mm256_storeu_ps(dst + 4 * (size_t)ldd, _mm256_permute2f128_ps(u0, u4, 0x31));
    _mm256_storeu_ps(dst + 5 * (size_t)ldd, _mm256_permute2f128_ps(u1, u5, 0x31));
    _mm256_storeu_ps(dst + 6 * (size_t)ldd, _mm256_permute2f128_ps(u2, u6, 0x31));
    _mm256_storeu_ps(dst + 7 * (size_t)ldd, _mm256_permute2f128_ps(u3, u7, 0x31));
}

/* Packs op(B)[k0:k0+kc, n0:n0+cols] as [k][NR], zero-padding to NR columns. */
static void pack_b(const float *B, int ldb, int kn, int n0, int cols, int k0, int kc, int NR, float *out) {
    if (kn) {  /* B is [K, N] */
        for (int k = 0; k < kc; k++) {
            const float *src = B + (size_t)(k0 + k) * ldb + n0;
            float *dst = out + (size_t)k * NR;
            memcpy(dst, src, (size_t)cols * sizeof(float));
            for (int j = cols; j < NR; j++) dst[j] = 0.0f;
        }
    } else {   /* B is [N, K]: a transpose, 8 x 8 blocks at a time */
        int j = 0;
        for (; j + 8 <= cols; j += 8) {
            const float *src = B + (size_t)(n0 + j) * ldb + k0;
            int k = 0;
            for (; k + 8 <= kc; k += 8) transpose8x8(src + k, ldb, out + (size_t)k * NR + j, NR);
            for (; k < kc; k++)
                for (int jj = 0; jj < 8; jj++) out[(size_t)k * NR + j + jj] = src[(size_t)jj * ldb + k];
        }
        for (; j < cols; j++) {
            const float *src = B + (size_t)(n0 + j) * ldb + k0;
            for (int k = 0; k < kc; k++) out[(size_t)k * NR + j] = src[k];
        }
        for (j = cols; j < NR; j++)
            for (int k = 0; k < kc; k++) out[(size_t)k * NR + j] = 0.0f;
    }
}

/*
 * Micro-kernel contract: tile = A[MR rows][kc] x Bp[kc][NR] (all MR x NR values, in
 * registers; A read in place with row stride lda), then the epilogue writes `rows` x `cols` of it to C:
 * C (+)= tile (+ bias) [GELU when last].
 */
typedef void (*microkernel_t)(int kc, const float *A, int lda, const float *Bp, const float *prefetch, int toL2, float *C, int ldc,
                              int rows, int cols, const float *bias, int accumulate, int gelu);

#ifndef MR512
#define MR512 8
#endif
/* The epilogue of a tile: C (+)= tile (+ bias), GELU when asked, masked to rows x cols. */
AVX512 static inline __attribute__((always_inline))
void store_tile_avx512(__m512 c[MR512][2], float *C, int ldc, int rows, int cols,
                       const float *bias, int accumulate, int gelu) {
    __mmask16 m0 = cols >= 16 ? 0xFFFF : (__mmask16)((1u << cols) - 1);
    __mmask16 m1 = cols >= 32 ? 0xFFFF : cols <= 16 ? 0 : (__mmask16)((1u << (cols - 16)) - 1);
    __m512 bias0 = bias ? _mm512_maskz_loadu_ps(m0, bias) : _mm512_setzero_ps();
    __m512 bias1 = bias ? _mm512_maskz_loadu_ps(m1, bias + 16) : _mm512_setzero_ps();
    for (int r = 0; r < MR512; r++) {
        if (r >= rows) break;
        float *row = C + (size_t)r * ldc;
        __m512 v0 = _mm512_add_ps(c[r][0], bias0), v1 = _mm512_add_ps(c[r][1], bias1);
        if (accumulate) {
            v0 = _mm512_add_ps(v0, _mm512_maskz_loadu_ps(m0, row));
            v1 = _mm512_add_ps(v1, _mm512_maskz_loadu_ps(m1, row + 16));
        }
        if (gelu) { v0 = gelu512(v0); v1 = gelu512(v1); }
        _mm512_mask_storeu_ps(row, m0, v0);
        _mm512_mask_storeu_ps(row + 16, m1, v1);
    }
}

/* AVX-512: MR512 x 32 (2 * MR512 zmm accumulators; 8 rows keep every row pointer in a register). A is read in place: rows past
 * `rows` repeat the last row (computed, never stored). `prefetch` moves along with Bp, into L1, or L2 when `toL2` (see fp32_tile). */
AVX512 static void microkernel_avx512(int kc, const float *A, int lda, const float *Bp, const float *prefetch, int toL2, float *C, int ldc,
                                      int rows, int cols, const float *bias, int accumulate, int gelu) {
    const float *a[MR512];
    for (int r = 0; r < MR512; r++) a[r] = A + (size_t)(r < rows ? r : rows - 1) * lda;
    __m512 c[MR512][2];
    for (int r = 0; r < MR512; r++) { c[r][0] = _mm512_setzero_ps(); c[r][1] = _mm512_setzero_ps(); }
    for (int k = 0; k < kc; k++) {
        if (toL2) {
            _mm_prefetch((const char *)prefetch, _MM_HINT_T1);
            _mm_prefetch((const char *)(prefetch + 16), _MM_HINT_T1);
        } else {
            _mm_prefetch((const char *)prefetch, _MM_HINT_T0);
            _mm_prefetch((const char *)(prefetch + 16), _MM_HINT_T0);
        }
        __m512 b0 = _mm512_load_ps(Bp), b1 = _mm512_load_ps(Bp + 16);
        for (int r = 0; r < MR512; r++) {
            __m512 x = _mm512_set1_ps(a[r][k]);
            c[r][0] = _mm512_fmadd_ps(x, b0, c[r][0]);
            c[r][1] = _mm512_fmadd_ps(x, b1, c[r][1]);
        }
        Bp += 32;
        prefetch += 32;
    }
    store_tile_avx512(c, C, ldc, rows, cols, bias, accumulate, gelu);
}

/* AVX2: 6 x 16 (12 ymm accumulators). */
static void microkernel_avx2(int kc, const float *A, int lda, const float *Bp, const float *prefetch, int toL2, float *C, int ldc,
                             int rows, int cols, const float *bias, int accumulate, int gelu) {
    (void)prefetch; (void)toL2;
    const float *a[6];
    for (int r = 0; r < 6; r++) a[r] = A + (size_t)(r < rows ? r : rows - 1) * lda;
    __m256 c[6][2];
    for (int r = 0; r < 6; r++) { c[r][0] = _mm256_setzero_ps(); c[r][1] = _mm256_setzero_ps(); }
    for (int k = 0; k < kc; k++) {
        __m256 b0 = _mm256_load_ps(Bp), b1 = _mm256_load_ps(Bp + 8);
        for (int r = 0; r < 6; r++) {
            __m256 x = _mm256_broadcast_ss(a[r] + k);
            c[r][0] = _mm256_fmadd_ps(x, b0, c[r][0]);
            c[r][1] = _mm256_fmadd_ps(x, b1, c[r][1]);
        }
        Bp += 16;
    }
    float tile[6][16];
    for (int r = 0; r < 6; r++) { _mm256_storeu_ps(tile[r], c[r][0]); _mm256_storeu_ps(tile[r] + 8, c[r][1]); }
    for (int r = 0; r < rows; r++) {
        float *row = C + (size_t)r * ldc;
        if (cols == 16) {
            __m256 v0 = _mm256_loadu_ps(tile[r]), v1 = _mm256_loadu_ps(tile[r] + 8);
            if (bias) { v0 = _mm256_add_ps(v0, _mm256_loadu_ps(bias)); v1 = _mm256_add_ps(v1, _mm256_loadu_ps(bias + 8)); }
            if (accumulate) { v0 = _mm256_add_ps(v0, _mm256_loadu_ps(row)); v1 = _mm256_add_ps(v1, _mm256_loadu_ps(row + 8)); }
            if (gelu) { v0 = gelu256(v0); v1 = gelu256(v1); }
            _mm256_storeu_ps(row, v0); _mm256_storeu_ps(row + 8, v1);
        } else {
            for (int j = 0; j < cols; j++) {
                float v = tile[r][j] + (bias ? bias[j] : 0.0f);
                row[j] = accumulate ? row[j] + v : v;
            }
            if (gelu) gelu_avx2(row, cols);
        }
    }
}

/*
 * Few rows (a query of a handful of tokens): packing all of B would cost more
 * than the product, so each output is a dot product of an A row and a B row,
 * read in place. B must be [N, K].
 */
static void gemm_few_rows(int M, int N, int K, const float *A, int lda, const float *B, int ldb,
                          const float *bias, float *C, int ldc, int flags) {
    for (int j = 0; j < N; j++) {
        const float *w = B + (size_t)j * ldb;
        for (int i = 0; i < M; i += 4) {
            /* four rows at a time share each load of w; missing rows repeat the last one */
            const float *a0 = A + (size_t)i * lda;
            const float *a1 = A + (size_t)(i + 1 < M ? i + 1 : M - 1) * lda;
            const float *a2 = A + (size_t)(i + 2 < M ? i + 2 : M - 1) * lda;
            const float *a3 = A + (size_t)(i + 3 < M ? i + 3 : M - 1) * lda;
            __m256 s0 = _mm256_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
            int k = 0;
            for (; k + 8 <= K; k += 8) {
                __m256 wk = _mm256_loadu_ps(w + k);
                s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a0 + k), wk, s0);
                s1 = _mm256_fmadd_ps(_mm256_loadu_ps(a1 + k), wk, s1);
                s2 = _mm256_fmadd_ps(_mm256_loadu_ps(a2 + k), wk, s2);
                s3 = _mm256_fmadd_ps(_mm256_loadu_ps(a3 + k), wk, s3);
            }
            float sums[4] = {hsum256(s0), hsum256(s1), hsum256(s2), hsum256(s3)};
            for (; k < K; k++) {
                sums[0] += a0[k] * w[k]; sums[1] += a1[k] * w[k]; sums[2] += a2[k] * w[k]; sums[3] += a3[k] * w[k];
            }
            for (int r = 0; r < 4 && i + r < M; r++) {
                float v = sums[r] + (bias ? bias[j] : 0.0f);
                float *c = C + (size_t)(i + r) * ldc + j;
                *c = (flags & IB_GEMM_ACCUMULATE) ? *c + v : v;
            }
        }
    }
    if (flags & IB_GEMM_GELU) for (int i = 0; i < M; i++) ib_gelu(C + (size_t)i * ldc, N);
}

/* ------------------------------------------------------------------------ */
/* bf16 GEMM (opt-in, IB_GEMM_BF16): AVX-512 BF16 dot products of pairs       */
/*
 * A and B are rounded to bfloat16 (8-bit mantissa) and multiplied with
 * vdpbf16ps, which adds the products of a pair (k, k+1) into fp32
 * accumulators: twice the work per instruction of fp32 FMA. B is packed as
 * [k/2][NR][2]; A is converted row by row to [M][K2] (K2: K rounded up to 16).
 */
#define BF16 __attribute__((target("avx512f,avx512dq,avx512bw,avx512vl,avx512bf16")))

int ib_kernels_have_bf16(void) {
    return ib_cpu_has_bf16() && has_avx512();
}

/* rows x K floats (stride ld) -> rows x K2 bf16, zero-padded; rows up to `padRows` are zero. */
BF16 static void rows_to_bf16(const float *X, int ld, int rows, int padRows, int K, int K2, uint16_t *out) {
    for (int i = 0; i < padRows; i++) {
        uint16_t *o = out + (size_t)i * K2;
        if (i >= rows) { memset(o, 0, (size_t)K2 * 2); continue; }
        const float *x = X + (size_t)i * ld;
        for (int k = 0; k < K2; k += 32) {
            int n = K - k;
            __mmask16 mlo = n >= 16 ? 0xFFFF : n <= 0 ? 0 : (__mmask16)((1u << n) - 1);
            __mmask16 mhi = n >= 32 ? 0xFFFF : n <= 16 ? 0 : (__mmask16)((1u << (n - 16)) - 1);
            __m512 lo = _mm512_maskz_loadu_ps(mlo, x + k), hi = _mm512_maskz_loadu_ps(mhi, x + k + 16);
            __m512bh v = _mm512_cvtne2ps_pbh(hi, lo);
            int m = K2 - k;
            __mmask32 ms = m >= 32 ? 0xFFFFFFFFu : (__mmask32)((1u << m) - 1);
            _mm512_mask_storeu_epi16(o + k, ms, (__m512i)v);
        }
    }
}

/*
 * The tiles of C in the order that keeps A's rows and B's panels in cache: MC
 * rows at a time, each NR-column panel across them, MR rows at a time. Both
 * GEMM paths (fp32 and bf16) walk C this way; `tile` does one tile.
 */
typedef void (*tile_fn)(const void *job, int row, int rows, int panel, int n0, int cols);

static void for_panel_tiles(int M, int N, int MR, int NR, int pLo, int pHi, tile_fn tile, const void *job) {
    for (int m0 = 0; m0 < M; m0 += MC) {
        const int mc = M - m0 < MC ? M - m0 : MC;
        for (int p = pLo; p < pHi; p++) {
            const int n0 = p * NR, cols = N - n0 < NR ? N - n0 : NR;
            for (int i = 0; i < mc; i += MR) tile(job, m0 + i, mc - i < MR ? mc - i : MR, p, n0, cols);
        }
    }
}

/* Every tile of C, row block by row block, panel by panel. */
static void for_each_tile(int M, int N, int MR, int NR, tile_fn tile, const void *job) {
    for_panel_tiles(M, N, MR, NR, 0, (N + NR - 1) / NR, tile, job);
}

/* One K block of C += A * B^T over packed panels, and what each tile needs of it. */
struct gemm_job {
    const void *A, *panels;     /* float or bf16 (uint16_t), by path */
    float *C;
    const float *bias;
    int lda, ldc, accumulate, gelu;
    int depth;                  /* what the microkernel steps over: kc floats, or K2/2 bf16 pairs */
    size_t panelSize;           /* elements (floats or bf16 values) in one packed panel */
    microkernel_t kernel;       /* fp32 only */
};

/* A few rows (a query's tokens) make the product as slow as reading B from
 * memory, and the hardware prefetcher alone reads it at half the speed it
 * could: the first tile of a panel prefetches 2 KB ahead in it, a later one
 * (its panel now in cache) the next panel, into L2. The arithmetic is
 * unchanged. (A 15-token query through MiniLM's linears: ~6.4 -> ~4.5 ms.) */
#define PREFETCH_AHEAD 512
static void fp32_tile(const void *j, int row, int rows, int p, int n0, int cols) {
    const struct gemm_job *job = j;
    const float *panel = (const float *)job->panels + (size_t)p * job->panelSize;
    const int first = row % MC == 0;
    job->kernel(job->depth, (const float *)job->A + (size_t)row * job->lda, job->lda,
                panel, first ? panel + PREFETCH_AHEAD : panel + job->panelSize, !first, job->C + (size_t)row * job->ldc + n0, job->ldc,
                rows, cols, job->bias ? job->bias + n0 : NULL, job->accumulate, job->gelu);
}

BF16 static void microkernel_bf16(int pairs, const uint16_t *A, int lda, const uint16_t *Bp, float *C, int ldc,
                                  int rows, int cols, const float *bias, int accumulate, int gelu) {
    const uint32_t *a[MR512];
    for (int r = 0; r < MR512; r++) a[r] = (const uint32_t *)(A + (size_t)(r < rows ? r : rows - 1) * lda);
    __m512 c[MR512][2];
    for (int r = 0; r < MR512; r++) { c[r][0] = _mm512_setzero_ps(); c[r][1] = _mm512_setzero_ps(); }
    for (int kk = 0; kk < pairs; kk++) {
        __m512bh b0 = (__m512bh)_mm512_load_si512(Bp), b1 = (__m512bh)_mm512_load_si512(Bp + 32);
        for (int r = 0; r < MR512; r++) {
            __m512bh x = (__m512bh)_mm512_set1_epi32((int)a[r][kk]);
            c[r][0] = _mm512_dpbf16_ps(c[r][0], x, b0);
            c[r][1] = _mm512_dpbf16_ps(c[r][1], x, b1);
        }
        Bp += 64;
    }
    store_tile_avx512(c, C, ldc, rows, cols, bias, accumulate, gelu);
}

BF16 static void bf16_tile(const void *j, int row, int rows, int p, int n0, int cols) {
    const struct gemm_job *job = j;
    microkernel_bf16(job->depth, (const uint16_t *)job->A + (size_t)row * job->lda, job->lda,
                     (const uint16_t *)job->panels + (size_t)p * job->panelSize, job->C + (size_t)row * job->ldc + n0,
                     job->ldc, rows, cols, job->bias ? job->bias + n0 : NULL, job->accumulate, job->gelu);
}

/* C = A * B^T (+ bias) [GELU], B [N, K]; returns 0 when this path cannot run. */
BF16 static int gemm_bf16(int M, int N, int K, const float *A, int lda, const float *B, int ldb,
                          const float *bias, float *C, int ldc, int flags) {
    const int NR = 32, MR = MR512;
    const int K2 = (K + 15) & ~15, pairs = K2 / 2, panels = (N + NR - 1) / NR;
    uint16_t *Ab = (uint16_t *)ib_scratch(IB_SCRATCH_BF16_A, (size_t)M * K2 * 2 + 2);
    uint16_t *Bb = (uint16_t *)ib_scratch(IB_SCRATCH_BF16_B, (size_t)panels * NR * K2 * 2);
    uint16_t *tmp = (uint16_t *)ib_scratch(IB_SCRATCH_BF16_TMP, (size_t)NR * K2 * 2);
    rows_to_bf16(A, lda, M, M, K, K2, Ab);
    for (int p = 0; p < panels; p++) {
        const int n0 = p * NR, cols = N - n0 < NR ? N - n0 : NR;
        /* rows of B -> bf16, then transpose 32-bit pairs: out[kk][j] = tmp[j][kk] */
        rows_to_bf16(B + (size_t)n0 * ldb, ldb, cols, NR, K, K2, tmp);
        float *out = (float *)(Bb + (size_t)p * NR * K2);
        const float *in = (const float *)tmp;
        for (int j = 0; j < NR; j += 8)
            for (int kk = 0; kk < pairs; kk += 8) transpose8x8(in + (size_t)j * pairs + kk, pairs, out + (size_t)kk * NR + j, NR);
    }
    const struct gemm_job job = { Ab, Bb, C, bias, K2, ldc, (flags & IB_GEMM_ACCUMULATE) != 0, (flags & IB_GEMM_GELU) != 0,
                                  pairs, (size_t)NR * K2, NULL };
    for_each_tile(M, N, MR, NR, bf16_tile, &job);
    return 1;
}

/* The panel width of the fp32 path on this CPU (the microkernel's). */
static int gemm_nr(void) { return has_avx512() ? 32 : 16; }

/*
 * The fp32 path: B ([N, K], or [K, N] with IB_GEMM_B_KN) packed K block by K
 * block into panels of NR columns, each block then multiplied tile by tile.
 * `packed`, when given, already holds every block (ib_gemm_pack's layout:
 * block k0 at panels * NR * k0), so nothing is packed here.
 */
static void gemm_fp32_panels(int M, int N, int K, const float *A, int lda, const float *B, int ldb, const float *packed,
                             const float *bias, float *C, int ldc, int flags, int part, int parts);

static void gemm_fp32(int M, int N, int K, const float *A, int lda, const float *B, int ldb, const float *packed,
                      const float *bias, float *C, int ldc, int flags) {
    gemm_fp32_panels(M, N, K, A, lda, B, ldb, packed, bias, C, ldc, flags, 0, 1);
}

/* gemm_fp32 for part `part` of `parts` of the panels (all of them when B is not packed). */
static void gemm_fp32_panels(int M, int N, int K, const float *A, int lda, const float *B, int ldb, const float *packed,
                             const float *bias, float *C, int ldc, int flags, int part, int parts) {
    const int avx512 = has_avx512();
    const int MR = avx512 ? MR512 : 6, NR = gemm_nr();
    const microkernel_t kernel = avx512 ? microkernel_avx512 : microkernel_avx2;
    const int kn = (flags & IB_GEMM_B_KN) != 0;
    const int panels = (N + NR - 1) / NR;
    /* One block of rows (a query's tokens): each panel is packed just before its tiles,
     * into one panel's room that stays in cache, instead of all of B first (written out
     * and read back: twice the memory traffic of the product). The tiles run in
     * for_each_tile's order either way, so the sums are the same, bit for bit. */
    const int panelByPanel = !packed && M <= MC;
    float *Bp = packed ? NULL : (float *)ib_scratch(IB_SCRATCH_PACK_B,
                                                    (size_t)(panelByPanel ? 1 : panels) * NR * (K < KC ? K : KC) * sizeof(float));

    for (int k0 = 0; k0 < K; k0 += KC) {
        const int kc = K - k0 < KC ? K - k0 : KC;
        const int first = k0 == 0, last = k0 + kc == K;
        const int accumulate = !first || (flags & IB_GEMM_ACCUMULATE);
        const float *blockBias = last ? bias : NULL;
        const int gelu = last && (flags & IB_GEMM_GELU);
        if (panelByPanel) {
            /* panelSize 0: the one buffer is panel 0, and a later tile's look-ahead stays in it */
            const struct gemm_job job = { A + k0, Bp, C, blockBias, lda, ldc, accumulate, gelu, kc, 0, kernel };
            for (int p = 0; p < panels; p++) {
                const int n0 = p * NR, cols = N - n0 < NR ? N - n0 : NR;
                pack_b(B, ldb, kn, n0, cols, k0, kc, NR, Bp);
                for (int i = 0; i < M; i += MR) fp32_tile(&job, i, M - i < MR ? M - i : MR, 0, n0, cols);
            }
            continue;
        }
        const float *block = packed ? packed + (size_t)panels * NR * k0 : Bp;
        if (!packed) {
            for (int p = 0; p < panels; p++) {
                int n0 = p * NR, cols = N - n0 < NR ? N - n0 : NR;
                pack_b(B, ldb, kn, n0, cols, k0, kc, NR, Bp + (size_t)p * NR * kc);
            }
        }
        const struct gemm_job job = { A + k0, block, C, blockBias, lda, ldc, accumulate, gelu, kc, (size_t)NR * kc, kernel };
        /* A part's panels: each C column belongs to one panel, so parts never meet. */
        const int pLo = packed ? (int)((long long)panels * part / parts) : 0;
        const int pHi = packed ? (int)((long long)panels * (part + 1) / parts) : panels;
        for_panel_tiles(M, N, MR, NR, pLo, pHi, fp32_tile, &job);
    }
}

/* What every path does first: nothing, few rows, bf16 or an empty K. 1: done. */
static int gemm_special(int M, int N, int K, const float *A, int lda, const float *B, int ldb,
                        const float *bias, float *C, int ldc, int flags) {
    if (M <= 0 || N <= 0) return 1;
    if (M < 4 && !(flags & IB_GEMM_B_KN) && K > 0) { gemm_few_rows(M, N, K, A, lda, B, ldb, bias, C, ldc, flags); return 1; }
    if ((flags & IB_GEMM_BF16) && !(flags & IB_GEMM_B_KN) && K > 0 && K <= 8192 && ib_kernels_have_bf16()
        && gemm_bf16(M, N, K, A, lda, B, ldb, bias, C, ldc, flags)) return 1;
    if (K <= 0) {  /* C = bias (or C += bias) */
        for (int i = 0; i < M; i++)
            for (int j = 0; j < N; j++) {
                float v = bias ? bias[j] : 0.0f;
                C[(size_t)i * ldc + j] = (flags & IB_GEMM_ACCUMULATE) ? C[(size_t)i * ldc + j] + v : v;
            }
        if (flags & IB_GEMM_GELU) for (int i = 0; i < M; i++) ib_gelu(C + (size_t)i * ldc, N);
        return 1;
    }
    return 0;
}

void ib_gemm(int M, int N, int K, const float *A, int lda, const float *B, int ldb,
             const float *bias, float *C, int ldc, int flags) {
    if (gemm_special(M, N, K, A, lda, B, ldb, bias, C, ldc, flags)) return;
    gemm_fp32(M, N, K, A, lda, B, ldb, NULL, bias, C, ldc, flags);
}

size_t ib_gemm_packed_floats(int N, int K) {
    const int NR = gemm_nr();
    if (N <= 0 || K <= 0) return 0;
    return (size_t)((N + NR - 1) / NR) * NR * (size_t)K;
}

unsigned ib_gemm_pack_layout(void) {
    return (1u << 24) | ((unsigned)gemm_nr() << 16) | KC;
}

void ib_gemm_pack(int N, int K, const float *B, int ldb, float *out) {
    const int NR = gemm_nr(), panels = (N + NR - 1) / NR;
    for (int k0 = 0; k0 < K; k0 += KC) {
        const int kc = K - k0 < KC ? K - k0 : KC;
        float *block = out + (size_t)panels * NR * k0;
        for (int p = 0; p < panels; p++) {
            int n0 = p * NR, cols = N - n0 < NR ? N - n0 : NR;
            pack_b(B, ldb, 0, n0, cols, k0, kc, NR, block + (size_t)p * NR * kc);
        }
    }
}

void ib_gemm_packed(int M, int N, int K, const float *A, int lda, const float *B, const float *packed, int ldb,
                    const float *bias, float *C, int ldc, int flags) {
    flags &= ~IB_GEMM_B_KN;
    if (gemm_special(M, N, K, A, lda, B, ldb, bias, C, ldc, flags)) return;
    /* the microkernels read panels with aligned loads: a misaligned copy is not used */
    gemm_fp32(M, N, K, A, lda, B, ldb, ((uintptr_t)packed & 63) ? NULL : packed, bias, C, ldc, flags);
}

void ib_gemm_packed_part(int M, int N, int K, const float *A, int lda, const float *B, const float *packed, int ldb,
                         const float *bias, float *C, int ldc, int flags, int part, int parts) {
    flags &= ~IB_GEMM_B_KN;
    if (parts < 1 || part < 0 || part >= parts) return;
    const int splits = packed && !((uintptr_t)packed & 63) && M >= 4 && !(flags & IB_GEMM_BF16) && K > 0 && N > 0;
    if (!splits) {
        if (part == 0) ib_gemm_packed(M, N, K, A, lda, B, packed, ldb, bias, C, ldc, flags);
        return;
    }
    gemm_fp32_panels(M, N, K, A, lda, B, ldb, packed, bias, C, ldc, flags, part, parts);
}

/* ------------------------------------------------------------------------ */
/* LayerNorm, softmax, embeddings, pooling                                    */

static inline float hmax256(__m256 v) {
    __m128 s = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_max_ps(s, _mm_movehl_ps(s, s));
    s = _mm_max_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

void ib_layernorm(float *x, int rows, int dim, int ld, const float *gamma, const float *beta, float eps) {
    for (int r = 0; r < rows; r++) {
        float *v = x + (size_t)r * ld;
        int j = 0;
        __m256 acc = _mm256_setzero_ps();
        for (; j + 8 <= dim; j += 8) acc = _mm256_add_ps(acc, _mm256_loadu_ps(v + j));
        float sum = hsum256(acc);
        for (; j < dim; j++) sum += v[j];
        const float mean = sum / (float)dim;
        __m256 vm = _mm256_set1_ps(mean);
        acc = _mm256_setzero_ps();
        for (j = 0; j + 8 <= dim; j += 8) {
            __m256 d = _mm256_sub_ps(_mm256_loadu_ps(v + j), vm);
            acc = _mm256_fmadd_ps(d, d, acc);
        }
        float var = hsum256(acc);
        for (; j < dim; j++) var += (v[j] - mean) * (v[j] - mean);
        var /= (float)dim;
        const float inv = 1.0f / sqrtf(var + eps);
        __m256 vi = _mm256_set1_ps(inv);
        for (j = 0; j + 8 <= dim; j += 8) {
            __m256 d = _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(v + j), vm), vi);
            _mm256_storeu_ps(v + j, _mm256_fmadd_ps(d, _mm256_loadu_ps(gamma + j), _mm256_loadu_ps(beta + j)));
        }
        for (; j < dim; j++) v[j] = (v[j] - mean) * inv * gamma[j] + beta[j];
    }
}

static float softmax_row_avx2(float *s, int n, float scale, int normalize) {
    int j = 0;
    __m256 vmax = _mm256_set1_ps(-INFINITY);
    for (; j + 8 <= n; j += 8) vmax = _mm256_max_ps(vmax, _mm256_loadu_ps(s + j));
    float max = hmax256(vmax);
    for (; j < n; j++) if (s[j] > max) max = s[j];
    __m256 acc = _mm256_setzero_ps();
    j = exp_row256(s, n, _mm256_set1_ps(scale), _mm256_set1_ps(max * scale), &acc);
    float sum = hsum256(acc);
    for (; j < n; j++) { s[j] = expf(s[j] * scale - max * scale); sum += s[j]; }
    if (!normalize) return 1.0f / sum;
    const __m256 inv = _mm256_set1_ps(1.0f / sum);
    for (j = 0; j + 8 <= n; j += 8) _mm256_storeu_ps(s + j, _mm256_mul_ps(_mm256_loadu_ps(s + j), inv));
    for (; j < n; j++) s[j] *= 1.0f / sum;
    return 1.0f;
}

AVX512 static float softmax_row_avx512(float *s, int n, float scale, int normalize) {
    __m512 vmax = _mm512_set1_ps(-INFINITY);
    int j = 0;
    for (; j + 16 <= n; j += 16) vmax = _mm512_max_ps(vmax, _mm512_loadu_ps(s + j));
    __mmask16 tail = (__mmask16)((1u << (n - j)) - 1);
    if (n > j) vmax = _mm512_mask_max_ps(vmax, tail, vmax, _mm512_maskz_loadu_ps(tail, s + j));
    const float max = _mm512_reduce_max_ps(vmax);
    __m512 vs = _mm512_set1_ps(scale), vms = _mm512_set1_ps(max * scale);
    __m512 acc = _mm512_setzero_ps();
    j = exp_row512(s, n, vs, vms, &acc);
    if (n > j) {
        __m512 e = exp512(_mm512_fmsub_ps(_mm512_maskz_loadu_ps(tail, s + j), vs, vms));
        e = _mm512_maskz_mov_ps(tail, e);
        _mm512_mask_storeu_ps(s + j, tail, e);
        acc = _mm512_add_ps(acc, e);
    }
    const float invSum = 1.0f / _mm512_reduce_add_ps(acc);
    if (!normalize) return invSum;
    const __m512 inv = _mm512_set1_ps(invSum);
    for (j = 0; j + 16 <= n; j += 16) _mm512_storeu_ps(s + j, _mm512_mul_ps(_mm512_loadu_ps(s + j), inv));
    if (n > j) _mm512_mask_storeu_ps(s + j, tail, _mm512_mul_ps(_mm512_maskz_loadu_ps(tail, s + j), inv));
    return 1.0f;
}

void ib_softmax_rows(float *S, int rows, int cols, int ld, float scale, float *inverseSums) {
    const int avx512 = has_avx512(), normalize = inverseSums == NULL;
    for (int r = 0; r < rows; r++) {
        float inv = avx512 ? softmax_row_avx512(S + (size_t)r * ld, cols, scale, normalize)
                           : softmax_row_avx2(S + (size_t)r * ld, cols, scale, normalize);
        if (inverseSums) inverseSums[r] = inv;
    }
}

/* log(sum of exp(x[i])) over the finite x[i] (a -inf, a masked token, adds nothing),
** -inf when none is: the normaliser of a decoder's log-probabilities. exp in float
** (about 1 ulp), the sum in double, as the Swift loop it replaces summed. */
double ib_log_sum_exp(const float *x, int n) {
    int j = 0;
    __m256 vmax = _mm256_set1_ps(-INFINITY);
    for (; j + 8 <= n; j += 8) vmax = _mm256_max_ps(vmax, _mm256_loadu_ps(x + j));
    float max = hmax256(vmax);
    for (; j < n; j++) if (x[j] > max) max = x[j];
    if (!(max > -INFINITY)) return -INFINITY;
    const __m256 shift = _mm256_set1_ps(max), minusInfinity = _mm256_set1_ps(-INFINITY);
    __m256d lo = _mm256_setzero_pd(), hi = _mm256_setzero_pd();
    for (j = 0; j + 8 <= n; j += 8) {
        __m256 v = _mm256_loadu_ps(x + j);
        __m256 e = _mm256_and_ps(exp256(_mm256_sub_ps(v, shift)), _mm256_cmp_ps(v, minusInfinity, _CMP_GT_OQ));
        lo = _mm256_add_pd(lo, _mm256_cvtps_pd(_mm256_castps256_ps128(e)));
        hi = _mm256_add_pd(hi, _mm256_cvtps_pd(_mm256_extractf128_ps(e, 1)));
    }
    double lanes[4], sum = 0.0;
    _mm256_storeu_pd(lanes, _mm256_add_pd(lo, hi));
    for (int i = 0; i < 4; i++) sum += lanes[i];
    for (; j < n; j++) if (x[j] > -INFINITY) sum += (double)expf(x[j] - max);
    return (double)max + log(sum);
}

void ib_scale_rows(float *x, int rows, int cols, int ld, const float *scales) {
    for (int r = 0; r < rows; r++) {
        float *v = x + (size_t)r * ld;
        const __m256 s = _mm256_set1_ps(scales[r]);
        int j = 0;
        for (; j + 8 <= cols; j += 8) _mm256_storeu_ps(v + j, _mm256_mul_ps(_mm256_loadu_ps(v + j), s));
        for (; j < cols; j++) v[j] *= scales[r];
    }
}

void ib_embed_tokens(const int32_t *ids, const int32_t *positions, int n, int dim,
                     const float *word, const float *position, const float *type, float *out) {
    for (int i = 0; i < n; i++) {
        const float *w = word + (size_t)ids[i] * dim, *p = position + (size_t)positions[i] * dim;
        float *o = out + (size_t)i * dim;
        /* as BERT does it: (word + token type) + position */
        for (int j = 0; j < dim; j++) o[j] = (w[j] + type[j]) + p[j];
    }
}

void ib_mean_pool(const float *x, int rows, int dim, int ld, int normalize, float *out) {
    for (int j = 0; j < dim; j++) out[j] = 0.0f;
    for (int r = 0; r < rows; r++) {
        const float *v = x + (size_t)r * ld;
        for (int j = 0; j < dim; j++) out[j] += v[j];
    }
    const float inv = rows > 0 ? 1.0f / (float)rows : 0.0f;
    double norm = 0.0;
    for (int j = 0; j < dim; j++) { out[j] *= inv; norm += (double)out[j] * out[j]; }
    if (normalize) {
        /* sentence-transformers: x / max(||x||, 1e-12) */
        double n = sqrt(norm);
        float scale = (float)(1.0 / (n > 1e-12 ? n : 1e-12));
        for (int j = 0; j < dim; j++) out[j] *= scale;
    }
}
