/*
 * CKernels, fp16 side: the kernels of the Whisper decoder (IBWhisper).
 *
 *   ib_f16_to_f32       widen IEEE half values to fp32 (exact)
 *   ib_gemv_f16         y = x * W^T + bias for a few rows x, W stored as fp16 [N, K]
 *   ib_weighted_rows    out = sum_j p[j] * V[j, :] (attention's probabilities times values)
 *   ib_quantize_rows_f16_i8
 *                       int8 codes of fp16 rows (one scale a row): the output projection's
 *                       codes for the decoder's first, approximate pass (ib_gemm_i8)
 *   ib_weighted_rows_i8 ib_weighted_rows over int8 rows (--compute int8's cross-attention)
 *
 * Why fp16: the decoder runs one token at a time, so each step reads every
 * weight once and the step is bound by memory, not arithmetic. CTranslate2
 * stores Whisper's weights as fp16; widening them in registers (F16C) gives
 * the very products an fp32 copy would give, from half the bytes.
 * AVX-512 paths are chosen at run time like the rest of CKernels
 * (IB_KERNELS=avx2 forces the AVX2 + F16C baseline).
 */
#include "ib_kernels.h"

#include <immintrin.h>
#include <math.h>
#include <string.h>

#define AVX512 __attribute__((target("avx512f,avx512dq,avx512bw,avx512vl")))

static int avx512_selected(void) { return strcmp(ib_kernels_isa(), "avx512") == 0; }

static inline float hsum256(__m256 v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

void ib_f16_to_f32(const uint16_t *src, float *dst, size_t n) {
    size_t i = 0;
    for (; i + 8 <= n; i += 8) _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(src + i))));
    for (; i < n; i++) dst[i] = _cvtsh_ss(src[i]);
}

/* Rows r0..r0+3 of x (missing rows repeat the last) against one weight row. */
static void dot4_avx2(int K, const float *const a[4], const uint16_t *w, float out[4]) {
    __m256 s0 = _mm256_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
    int k = 0;
    for (; k + 8 <= K; k += 8) {
        __m256 wk = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(w + k)));
        s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a[0] + k), wk, s0);
        s1 = _mm256_fmadd_ps(_mm256_loadu_ps(a[1] + k), wk, s1);
        s2 = _mm256_fmadd_ps(_mm256_loadu_ps(a[2] + k), wk, s2);
        s3 = _mm256_fmadd_ps(_mm256_loadu_ps(a[3] + k), wk, s3);
    }
    out[0] = hsum256(s0); out[1] = hsum256(s1); out[2] = hsum256(s2); out[3] = hsum256(s3);
    for (; k < K; k++) {
        float wk = _cvtsh_ss(w[k]);
        for (int r = 0; r < 4; r++) out[r] += a[r][k] * wk;
    }
}

AVX512 static void dot4_avx512(int K, const float *const a[4], const uint16_t *w, float out[4]) {
    __m512 s0 = _mm512_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
    int k = 0;
    for (; k + 16 <= K; k += 16) {
        __m512 wk = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(w + k)));
        s0 = _mm512_fmadd_ps(_mm512_loadu_ps(a[0] + k), wk, s0);
        s1 = _mm512_fmadd_ps(_mm512_loadu_ps(a[1] + k), wk, s1);
        s2 = _mm512_fmadd_ps(_mm512_loadu_ps(a[2] + k), wk, s2);
        s3 = _mm512_fmadd_ps(_mm512_loadu_ps(a[3] + k), wk, s3);
    }
    out[0] = _mm512_reduce_add_ps(s0); out[1] = _mm512_reduce_add_ps(s1);
    out[2] = _mm512_reduce_add_ps(s2); out[3] = _mm512_reduce_add_ps(s3);
    for (; k < K; k++) {
        float wk = _cvtsh_ss(w[k]);
        for (int r = 0; r < 4; r++) out[r] += a[r][k] * wk;
    }
}

/* One row x against four weight rows at a time (each x load shared by four rows). */
AVX512 static void gemv1_avx512(int N, int K, const float *x, const uint16_t *W, int ldw, const float *bias, float *y, int accumulate) {
    int j = 0;
    for (; j + 4 <= N && K % 16 == 0; j += 4) {
        const uint16_t *w0 = W + (size_t)j * ldw, *w1 = w0 + ldw, *w2 = w1 + ldw, *w3 = w2 + ldw;
        __m512 s0 = _mm512_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
        for (int k = 0; k < K; k += 16) {
            __m512 xk = _mm512_loadu_ps(x + k);
            s0 = _mm512_fmadd_ps(xk, _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(w0 + k))), s0);
            s1 = _mm512_fmadd_ps(xk, _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(w1 + k))), s1);
            s2 = _mm512_fmadd_ps(xk, _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(w2 + k))), s2);
            s3 = _mm512_fmadd_ps(xk, _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(w3 + k))), s3);
        }
        float sums[4] = {_mm512_reduce_add_ps(s0), _mm512_reduce_add_ps(s1), _mm512_reduce_add_ps(s2), _mm512_reduce_add_ps(s3)};
        for (int r = 0; r < 4; r++) {
            float v = sums[r] + (bias ? bias[j + r] : 0.0f);
            y[j + r] = accumulate ? y[j + r] + v : v;
        }
    }
    for (; j < N; j++) {
        const float *a[4] = {x, x, x, x};
        float sums[4];
        dot4_avx512(K, a, W + (size_t)j * ldw, sums);
        float v = sums[0] + (bias ? bias[j] : 0.0f);
        y[j] = accumulate ? y[j] + v : v;
    }
}

/* Eight rows of x (missing rows repeat the last) against one weight row: beam search's hypotheses. */
AVX512 static void dot8_avx512(int K, const float *const a[8], const uint16_t *w, float out[8]) {
    __m512 s[8];
    for (int r = 0; r < 8; r++) s[r] = _mm512_setzero_ps();
    int k = 0;
    for (; k + 16 <= K; k += 16) {
        __m512 wk = _mm512_cvtph_ps(_mm256_loadu_si256((const __m256i *)(w + k)));
        for (int r = 0; r < 8; r++) s[r] = _mm512_fmadd_ps(_mm512_loadu_ps(a[r] + k), wk, s[r]);
    }
    for (int r = 0; r < 8; r++) out[r] = _mm512_reduce_add_ps(s[r]);
    for (; k < K; k++) {
        float wk = _cvtsh_ss(w[k]);
        for (int r = 0; r < 8; r++) out[r] += a[r][k] * wk;
    }
}

AVX512 static void gemv8_avx512(int M, int N, int K, const float *x, int ldx, const uint16_t *W, int ldw,
                                const float *bias, float *y, int ldy, int accumulate) {
    for (int i = 0; i < M; i += 8) {
        const float *a[8];
        for (int r = 0; r < 8; r++) a[r] = x + (size_t)(i + r < M ? i + r : M - 1) * ldx;
        for (int j = 0; j < N; j++) {
            float sums[8];
            dot8_avx512(K, a, W + (size_t)j * ldw, sums);
            for (int r = 0; r < 8 && i + r < M; r++) {
                float v = sums[r] + (bias ? bias[j] : 0.0f);
                float *c = y + (size_t)(i + r) * ldy + j;
                *c = accumulate ? *c + v : v;
            }
        }
    }
}

void ib_gemv_f16(int M, int N, int K, const float *x, int ldx, const uint16_t *W, int ldw,
                 const float *bias, float *y, int ldy, int flags) {
    if (M <= 0 || N <= 0) return;
    const int wide = avx512_selected();
    if (M > 4 && wide) {
        gemv8_avx512(M, N, K, x, ldx, W, ldw, bias, y, ldy, (flags & IB_GEMM_ACCUMULATE) != 0);
        if (flags & IB_GEMM_GELU) for (int i = 0; i < M; i++) ib_gelu(y + (size_t)i * ldy, N);
        return;
    }
    if (M == 1 && wide) {
        gemv1_avx512(N, K, x, W, ldw, bias, y, (flags & IB_GEMM_ACCUMULATE) != 0);
        if (flags & IB_GEMM_GELU) ib_gelu(y, N);
        return;
    }
    for (int i = 0; i < M; i += 4) {
        const float *a[4];
        for (int r = 0; r < 4; r++) a[r] = x + (size_t)(i + r < M ? i + r : M - 1) * ldx;
        for (int j = 0; j < N; j++) {
            float sums[4];
            if (wide) dot4_avx512(K, a, W + (size_t)j * ldw, sums); else dot4_avx2(K, a, W + (size_t)j * ldw, sums);
            for (int r = 0; r < 4 && i + r < M; r++) {
                float v = sums[r] + (bias ? bias[j] : 0.0f);
                float *c = y + (size_t)(i + r) * ldy + j;
                *c = (flags & IB_GEMM_ACCUMULATE) ? *c + v : v;
            }
        }
    }
    if (flags & IB_GEMM_GELU) for (int i = 0; i < M; i++) ib_gelu(y + (size_t)i * ldy, N);
}

AVX512 static int weighted_rows_avx512(const float *p, int n, const float *V, int ldv, int dim, float *out) {
    int d = 0;
    for (; d + 64 <= dim; d += 64) {
        __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
        for (int j = 0; j < n; j++) {
            const float *v = V + (size_t)j * ldv + d;
            __m512 pj = _mm512_set1_ps(p[j]);
            a0 = _mm512_fmadd_ps(pj, _mm512_loadu_ps(v), a0);
            a1 = _mm512_fmadd_ps(pj, _mm512_loadu_ps(v + 16), a1);
            a2 = _mm512_fmadd_ps(pj, _mm512_loadu_ps(v + 32), a2);
            a3 = _mm512_fmadd_ps(pj, _mm512_loadu_ps(v + 48), a3);
        }
        _mm512_storeu_ps(out + d, a0); _mm512_storeu_ps(out + d + 16, a1);
        _mm512_storeu_ps(out + d + 32, a2); _mm512_storeu_ps(out + d + 48, a3);
    }
    for (; d + 16 <= dim; d += 16) {
        __m512 acc = _mm512_setzero_ps();
        for (int j = 0; j < n; j++) acc = _mm512_fmadd_ps(_mm512_set1_ps(p[j]), _mm512_loadu_ps(V + (size_t)j * ldv + d), acc);
        _mm512_storeu_ps(out + d, acc);
    }
    return d;
}

void ib_weighted_rows(const float *p, int n, const float *V, int ldv, int dim, float *out) {
    int d = avx512_selected() ? weighted_rows_avx512(p, n, V, ldv, dim, out) : 0;
    for (; d + 8 <= dim; d += 8) {
        __m256 acc = _mm256_setzero_ps();
        for (int j = 0; j < n; j++) acc = _mm256_fmadd_ps(_mm256_set1_ps(p[j]), _mm256_loadu_ps(V + (size_t)j * ldv + d), acc);
        _mm256_storeu_ps(out + d, acc);
    }
    for (; d < dim; d++) {
        float acc = 0;
        for (int j = 0; j < n; j++) acc += p[j] * V[(size_t)j * ldv + d];
        out[d] = acc;
    }
}

void ib_quantize_rows_f16_i8(const uint16_t *W, int rows, int dim, int8_t *codes, float *scales) {
    for (int r = 0; r < rows; r++) {
        const uint16_t *w = W + (size_t)r * dim;
        float top = 0;
        for (int k = 0; k < dim; k++) { float v = fabsf(_cvtsh_ss(w[k])); if (v > top) top = v; }
        const float scale = top > 0 ? top / 127.0f : 1.0f, inverse = 1.0f / scale;
        scales[r] = scale;
        for (int k = 0; k < dim; k++) codes[(size_t)r * dim + k] = (int8_t)lrintf(_cvtsh_ss(w[k]) * inverse);
    }
}

AVX512 static int dot_rows_avx512(const float *x, const float *V, int ldv, int n, int dim, float *out) {
    if (dim % 16) return 0;
    int j = 0;
    for (; j + 4 <= n; j += 4) {
        const float *v0 = V + (size_t)j * ldv, *v1 = v0 + ldv, *v2 = v1 + ldv, *v3 = v2 + ldv;
        __m512 s0 = _mm512_setzero_ps(), s1 = s0, s2 = s0, s3 = s0;
        for (int d = 0; d < dim; d += 16) {
            __m512 xd = _mm512_loadu_ps(x + d);
            s0 = _mm512_fmadd_ps(xd, _mm512_loadu_ps(v0 + d), s0);
            s1 = _mm512_fmadd_ps(xd, _mm512_loadu_ps(v1 + d), s1);
            s2 = _mm512_fmadd_ps(xd, _mm512_loadu_ps(v2 + d), s2);
            s3 = _mm512_fmadd_ps(xd, _mm512_loadu_ps(v3 + d), s3);
        }
        out[j] = _mm512_reduce_add_ps(s0); out[j + 1] = _mm512_reduce_add_ps(s1);
        out[j + 2] = _mm512_reduce_add_ps(s2); out[j + 3] = _mm512_reduce_add_ps(s3);
    }
    return j;
}

void ib_dot_rows(const float *x, const float *V, int ldv, int n, int dim, float *out) {
    int j = avx512_selected() ? dot_rows_avx512(x, V, ldv, n, dim, out) : 0;
    for (; j < n; j++) {
        const float *v = V + (size_t)j * ldv;
        __m256 acc = _mm256_setzero_ps();
        int d = 0;
        for (; d + 8 <= dim; d += 8) acc = _mm256_fmadd_ps(_mm256_loadu_ps(x + d), _mm256_loadu_ps(v + d), acc);
        float sum = hsum256(acc);
        for (; d < dim; d++) sum += x[d] * v[d];
        out[j] = sum;
    }
}

/* ib_weighted_rows over int8 rows: the decoder's cross-attention keys and
 * values under --compute int8, a quarter of the fp32 bytes per step. */
AVX512 static int weighted_rows_i8_avx512(const float *p, int n, const int8_t *V, int ldv, int dim, float *out) {
    int d = 0;
    for (; d + 64 <= dim; d += 64) {
        __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
        for (int j = 0; j < n; j++) {
            const int8_t *v = V + (size_t)j * ldv + d;
            const __m512 pj = _mm512_set1_ps(p[j]);
            a0 = _mm512_fmadd_ps(pj, _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)v))), a0);
            a1 = _mm512_fmadd_ps(pj, _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)(v + 16)))), a1);
            a2 = _mm512_fmadd_ps(pj, _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)(v + 32)))), a2);
            a3 = _mm512_fmadd_ps(pj, _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)(v + 48)))), a3);
        }
        _mm512_storeu_ps(out + d, a0); _mm512_storeu_ps(out + d + 16, a1);
        _mm512_storeu_ps(out + d + 32, a2); _mm512_storeu_ps(out + d + 48, a3);
    }
    for (; d + 16 <= dim; d += 16) {
        __m512 acc = _mm512_setzero_ps();
        for (int j = 0; j < n; j++)
            acc = _mm512_fmadd_ps(_mm512_set1_ps(p[j]),
                                  _mm512_cvtepi32_ps(_mm512_cvtepi8_epi32(_mm_loadu_si128((const __m128i *)(V + (size_t)j * ldv + d)))), acc);
        _mm512_storeu_ps(out + d, acc);
    }
    return d;
}

void ib_weighted_rows_i8(const float *p, int n, const int8_t *V, int ldv, int dim, float *out) {
    int d = avx512_selected() ? weighted_rows_i8_avx512(p, n, V, ldv, dim, out) : 0;
    for (; d + 8 <= dim; d += 8) {
        __m256 acc = _mm256_setzero_ps();
        for (int j = 0; j < n; j++) {
            const __m128i v = _mm_loadl_epi64((const __m128i *)(V + (size_t)j * ldv + d));
            acc = _mm256_fmadd_ps(_mm256_set1_ps(p[j]), _mm256_cvtepi32_ps(_mm256_cvtepi8_epi32(v)), acc);
        }
        _mm256_storeu_ps(out + d, acc);
    }
    for (; d < dim; d++) {
        float acc = 0;
        for (int j = 0; j < n; j++) acc += p[j] * (float)V[(size_t)j * ldv + d];
        out[d] = acc;
    }
}
