/*
 * CKernels, fp16 side: the kernels of the Whisper decoder (IBWhisper).
 *
 *   ib_f16_to_f32       widen IEEE half values to fp32 (exact)
 *   ib_gemv_f16         y = x * W^T + bias for a few rows x, W stored as fp16 [N, K]
 *   ib_weighted_rows    out = sum_j p[j] * V[j, :] (attention's probabilities times values)
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

void ib_gemv_f16(int M, int N, int K, const float *x, int ldx, const uint16_t *W, int ldw,
                 const float *bias, float *y, int ldy, int flags) {
    if (M <= 0 || N <= 0) return;
    const int wide = avx512_selected();
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

void ib_weighted_rows(const float *p, int n, const float *V, int ldv, int dim, float *out) {
    int d = 0;
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
