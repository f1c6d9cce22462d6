/*
** kernels.c -- ibvec's distance kernels and the choice between them.
**
** WHAT.  Float dot products, squared L2 distances and batched cosine sums;
** integer dot products of int8 codes; sums of query codes over sign bits;
** the Hamming distance.  Each exists as scalar C, AVX2+FMA and AVX-512
** (the int8 and bit sums also with AVX-512 VNNI), gathered in one IbKernel
** table per instruction set.
**
** WHY THE SAME BITS.  Every float kernel uses one summation order: sixteen
** lanes, element i accumulated by fused multiply-add into lane i % 16, the
** lanes then added by one fixed pairwise tree (in registers or in memory,
** the same additions in the same order).  Results are therefore identical
** across kernels, not merely close, and forcing a kernel changes speed,
** never a ranking.  The integer kernels are exact in any order.
**
** CHOICE.  The widest set the CPU runs (asked once, through CIBSimd's
** dispatcher, shared with the encoder's kernels), or one forced with the
** IBVEC_KERNEL environment variable or ibvec_set_kernel().  Sets the CPU
** cannot run are still compiled (target attributes); scalar and avx2 can be
** forced on any x86-64-v3 CPU, and IBVEC_VNNI=0 keeps avx512 off VNNI,
** which is how the tests cover every kernel on one machine.
*/
#include "ibvec_int.h"
#include "ib_simd.h"

#include <immintrin.h>
#include <stdlib.h>
#include <string.h>

#define TARGET_AVX2  __attribute__((target("avx2,fma")))
#define TARGET_AVX512 __attribute__((target("avx512f,avx512bw,avx2,fma")))
#define TARGET_VNNI  __attribute__((target("avx512f,avx512bw,avx512vnni,avx2,fma")))

/* ======================================================================
** Shared pieces: the lane tree and the scalar tails
** ==================================================================== */

/* The one fixed reduction shared by every kernel: pairwise over 16 lanes. */
static float reduce16(float *acc){
  int w, j;
  for(w=8; w>=1; w/=2){
    for(j=0; j<w; j++) acc[j] = acc[j] + acc[j+w];
  }
  return acc[0];
}

/* Adds a[i]*b[i] for i in n16..n into lanes acc[i-n16], then reduces. */
static float finishDot(float *acc, const float *a, const float *b, int n16, int n){
  int i;
  for(i=n16; i<n; i++) acc[i-n16] = fmaf(a[i], b[i], acc[i-n16]);
  return reduce16(acc);
}

/* The same for (a[i]-b[i])^2. */
static float finishL2(float *acc, const float *a, const float *b, int n16, int n){
  int i;
  for(i=n16; i<n; i++){ float d = a[i]-b[i]; acc[i-n16] = fmaf(d, d, acc[i-n16]); }
  return reduce16(acc);
}

/* Integer sums q.v and v.v over codes from..n, added to *pD and *pVV. */
static void i8Tail(const int16_t *q16, const int8_t *v, int from, int n,
                   int32_t *pD, int32_t *pVV){
  int32_t d = 0, vv = 0;
  int i;
  for(i=from; i<n; i++){ d += q16[i]*(int32_t)v[i]; vv += (int32_t)v[i]*v[i]; }
  *pD += d; *pVV += vv;
}

/* Sum of q16[j] over the bits j set in bytes from..to of b. */
static int32_t bitTail(const int16_t *q16, const uint8_t *b, int from, int to){
  int32_t sum = 0;
  int i, j;
  for(i=from; i<to; i++){
    for(j=0; j<8; j++) sum += (int32_t)(-(int32_t)((b[i]>>j)&1u) & q16[i*8+j]);
  }
  return sum;
}

/* ======================================================================
** Scalar
** ==================================================================== */

static float dotScalar(const float *a, const float *b, int n){
  float acc[16] = {0};
  int i, j, n16 = n & ~15;
  for(i=0; i<n16; i+=16){
    for(j=0; j<16; j++) acc[j] = fmaf(a[i+j], b[i+j], acc[j]);
  }
  return finishDot(acc, a, b, n16, n);
}

static float l2sqScalar(const float *a, const float *b, int n){
  float acc[16] = {0};
  int i, j, n16 = n & ~15;
  for(i=0; i<n16; i+=16){
    for(j=0; j<16; j++){ float d = a[i+j]-b[i+j]; acc[j] = fmaf(d, d, acc[j]); }
  }
  return finishL2(acc, a, b, n16, n);
}

static void cosBatchScalar(const float *q, const float *V, int nVec, int n,
                           float *dots, float *vvs){
  int k;
  for(k=0; k<nVec; k++){
    const float *v = V + (size_t)k*n;
    dots[k] = dotScalar(q, v, n);
    vvs[k] = dotScalar(v, v, n);
  }
}

static void i8BatchScalar(const int16_t *q16, const int8_t *V, int nVec, int n,
                          int32_t *dots, int32_t *vvs){
  int k;
  for(k=0; k<nVec; k++){
    dots[k] = 0; vvs[k] = 0;
    i8Tail(q16, V + (size_t)k*n, 0, n, &dots[k], &vvs[k]);
  }
}

static void bitBatchScalar(const int16_t *q16, const uint8_t *B, int nVec,
                           int nByte, int32_t *out){
  int k;
  for(k=0; k<nVec; k++) out[k] = bitTail(q16, B + (size_t)k*nByte, 0, nByte);
}

/* ======================================================================
** AVX2 + FMA: lanes 0-7 in one register, 8-15 in another
** ==================================================================== */

TARGET_AVX2 static void store16Avx2(float *acc, __m256 lo, __m256 hi){
  _mm256_storeu_ps(acc, lo); _mm256_storeu_ps(acc+8, hi);
}

TARGET_AVX2 static float dotAvx2(const float *a, const float *b, int n){
  __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
  float acc[16];
  int i, n16 = n & ~15;
  for(i=0; i<n16; i+=16){
    s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a+i), _mm256_loadu_ps(b+i), s0);
    s1 = _mm256_fmadd_ps(_mm256_loadu_ps(a+i+8), _mm256_loadu_ps(b+i+8), s1);
  }
  store16Avx2(acc, s0, s1);
  return finishDot(acc, a, b, n16, n);
}

TARGET_AVX2 static float l2sqAvx2(const float *a, const float *b, int n){
  __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
  float acc[16];
  int i, n16 = n & ~15;
  for(i=0; i<n16; i+=16){
    __m256 d0 = _mm256_sub_ps(_mm256_loadu_ps(a+i), _mm256_loadu_ps(b+i));
    __m256 d1 = _mm256_sub_ps(_mm256_loadu_ps(a+i+8), _mm256_loadu_ps(b+i+8));
    s0 = _mm256_fmadd_ps(d0, d0, s0);
    s1 = _mm256_fmadd_ps(d1, d1, s1);
  }
  store16Avx2(acc, s0, s1);
  return finishL2(acc, a, b, n16, n);
}

/* reduce16 of lanes 0-7 in lo and 8-15 in hi, the same adds in the same
** order: acc[j]+acc[j+8], then +4, +2, +1. */
TARGET_AVX2 static float reduce16Avx2(__m256 lo, __m256 hi){
  __m256 a = _mm256_add_ps(lo, hi);
  __m128 b = _mm_add_ps(_mm256_castps256_ps128(a), _mm256_extractf128_ps(a, 1));
  __m128 c = _mm_add_ps(b, _mm_movehl_ps(b, b));
  return _mm_cvtss_f32(_mm_add_ss(c, _mm_movehdup_ps(c)));
}

/* A sum whose length is not a multiple of 16: the lanes through memory,
** then the tail. */
TARGET_AVX2 static float tailAvx2(__m256 lo, __m256 hi, const float *a,
                                 const float *b, int n16, int n){
  float acc[16];
  store16Avx2(acc, lo, hi);
  return finishDot(acc, a, b, n16, n);
}

TARGET_AVX2 static void cosBatchAvx2(const float *q, const float *V, int nVec,
                                    int n, float *dots, float *vvs){
  int k = 0, i, n16 = n & ~15;
  /* Two vectors per pass: eight independent accumulator chains. */
  for(; k+2<=nVec; k+=2){
    const float *x = V + (size_t)k*n, *y = x + n;
    __m256 dx0 = _mm256_setzero_ps(), dx1 = _mm256_setzero_ps();
    __m256 vx0 = _mm256_setzero_ps(), vx1 = _mm256_setzero_ps();
    __m256 dy0 = _mm256_setzero_ps(), dy1 = _mm256_setzero_ps();
    __m256 vy0 = _mm256_setzero_ps(), vy1 = _mm256_setzero_ps();
    for(i=0; i<n16; i+=16){
      __m256 q0 = _mm256_loadu_ps(q+i), q1 = _mm256_loadu_ps(q+i+8);
      __m256 x0 = _mm256_loadu_ps(x+i), x1 = _mm256_loadu_ps(x+i+8);
      __m256 y0 = _mm256_loadu_ps(y+i), y1 = _mm256_loadu_ps(y+i+8);
      dx0 = _mm256_fmadd_ps(q0, x0, dx0); dx1 = _mm256_fmadd_ps(q1, x1, dx1);
      vx0 = _mm256_fmadd_ps(x0, x0, vx0); vx1 = _mm256_fmadd_ps(x1, x1, vx1);
      dy0 = _mm256_fmadd_ps(q0, y0, dy0); dy1 = _mm256_fmadd_ps(q1, y1, dy1);
      vy0 = _mm256_fmadd_ps(y0, y0, vy0); vy1 = _mm256_fmadd_ps(y1, y1, vy1);
    }
    if( n16==n ){
      dots[k] = reduce16Avx2(dx0, dx1); vvs[k] = reduce16Avx2(vx0, vx1);
      dots[k+1] = reduce16Avx2(dy0, dy1); vvs[k+1] = reduce16Avx2(vy0, vy1);
      continue;
    }
    dots[k] = tailAvx2(dx0, dx1, q, x, n16, n);
    vvs[k] = tailAvx2(vx0, vx1, x, x, n16, n);
    dots[k+1] = tailAvx2(dy0, dy1, q, y, n16, n);
    vvs[k+1] = tailAvx2(vy0, vy1, y, y, n16, n);
  }
  for(; k<nVec; k++){
    const float *v = V + (size_t)k*n;
    dots[k] = dotAvx2(q, v, n);
    vvs[k] = dotAvx2(v, v, n);
  }
}

/* Sum of the eight int32 lanes of x. */
TARGET_AVX2 static int32_t sum8Avx2(__m256i x){
  __m128i a = _mm_add_epi32(_mm256_castsi256_si128(x), _mm256_extracti128_si256(x, 1));
  a = _mm_add_epi32(a, _mm_shuffle_epi32(a, 0x4E));
  a = _mm_add_epi32(a, _mm_shuffle_epi32(a, 0xB1));
  return _mm_cvtsi128_si32(a);
}

TARGET_AVX2 static void i8BatchAvx2(const int16_t *q16, const int8_t *V, int nVec,
                                   int n, int32_t *dots, int32_t *vvs){
  int k, i, n16 = n & ~15;
  for(k=0; k<nVec; k++){
    const int8_t *v = V + (size_t)k*n;
    __m256i sd = _mm256_setzero_si256(), sv = _mm256_setzero_si256();
    for(i=0; i<n16; i+=16){
      __m256i x = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i*)(v+i)));
      __m256i y = _mm256_loadu_si256((const __m256i*)(q16+i));
      sd = _mm256_add_epi32(sd, _mm256_madd_epi16(x, y));
      sv = _mm256_add_epi32(sv, _mm256_madd_epi16(x, x));
    }
    dots[k] = sum8Avx2(sd); vvs[k] = sum8Avx2(sv);
    i8Tail(q16, v, n16, n, &dots[k], &vvs[k]);
  }
}

TARGET_AVX2 static void bitBatchAvx2(const int16_t *q16, const uint8_t *B, int nVec,
                                    int nByte, int32_t *out){
  const __m256i sel = _mm256_setr_epi16(1, 2, 4, 8, 16, 32, 64, 128, 256, 512,
      1024, 2048, 4096, 8192, 16384, (short)0x8000);
  const __m256i ones = _mm256_set1_epi16(1);
  int k, i, n2 = nByte & ~1;
  for(k=0; k<nVec; k++){
    const uint8_t *b = B + (size_t)k*nByte;
    __m256i acc = _mm256_setzero_si256(), tot = _mm256_setzero_si256();
    int nAcc = 0;
    for(i=0; i<n2; i+=2){
      __m256i m = _mm256_set1_epi16((short)(b[i] | (b[i+1]<<8)));
      m = _mm256_cmpeq_epi16(_mm256_and_si256(m, sel), sel);
      acc = _mm256_add_epi16(acc, _mm256_and_si256(m, _mm256_loadu_si256((const __m256i*)(q16+i*8))));
      if( ++nAcc==256 ){  /* 256 x 127 still fits an int16 lane */
        tot = _mm256_add_epi32(tot, _mm256_madd_epi16(acc, ones));
        acc = _mm256_setzero_si256(); nAcc = 0;
      }
    }
    tot = _mm256_add_epi32(tot, _mm256_madd_epi16(acc, ones));
    out[k] = sum8Avx2(tot) + bitTail(q16, b, n2, nByte);
  }
}

/* ======================================================================
** AVX-512: all sixteen lanes in one register
** ==================================================================== */

TARGET_AVX512 static float dotAvx512(const float *a, const float *b, int n){
  __m512 s = _mm512_setzero_ps();
  float acc[16];
  int i, n16 = n & ~15;
  for(i=0; i<n16; i+=16){
    s = _mm512_fmadd_ps(_mm512_loadu_ps(a+i), _mm512_loadu_ps(b+i), s);
  }
  _mm512_storeu_ps(acc, s);
  return finishDot(acc, a, b, n16, n);
}

TARGET_AVX512 static float l2sqAvx512(const float *a, const float *b, int n){
  __m512 s = _mm512_setzero_ps();
  float acc[16];
  int i, n16 = n & ~15;
  for(i=0; i<n16; i+=16){
    __m512 d = _mm512_sub_ps(_mm512_loadu_ps(a+i), _mm512_loadu_ps(b+i));
    s = _mm512_fmadd_ps(d, d, s);
  }
  _mm512_storeu_ps(acc, s);
  return finishL2(acc, a, b, n16, n);
}

/* reduce16 of the sixteen lanes of z, in registers. */
TARGET_AVX512 static float reduce16Avx512(__m512 z){
  __m256 lo = _mm512_castps512_ps256(z);
  __m256 hi = _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(z), 1));
  return reduce16Avx2(lo, hi);
}

/* A sum whose length is not a multiple of 16 (see tailAvx2). */
TARGET_AVX512 static float tailAvx512(__m512 z, const float *a, const float *b,
                                     int n16, int n){
  float acc[16];
  _mm512_storeu_ps(acc, z);
  return finishDot(acc, a, b, n16, n);
}

TARGET_AVX512 static void cosBatchAvx512(const float *q, const float *V,
                                        int nVec, int n, float *dots, float *vvs){
  int k = 0, i, j, n16 = n & ~15;
  /* Four vectors per pass: eight independent accumulator chains. */
  for(; k+4<=nVec; k+=4){
    const float *x[4];
    __m512 d[4], s[4];
    for(j=0; j<4; j++){
      x[j] = V + (size_t)(k+j)*n;
      d[j] = _mm512_setzero_ps(); s[j] = _mm512_setzero_ps();
    }
    for(i=0; i<n16; i+=16){
      __m512 qv = _mm512_loadu_ps(q+i);
      __m512 a0 = _mm512_loadu_ps(x[0]+i), a1 = _mm512_loadu_ps(x[1]+i);
      __m512 a2 = _mm512_loadu_ps(x[2]+i), a3 = _mm512_loadu_ps(x[3]+i);
      d[0] = _mm512_fmadd_ps(qv, a0, d[0]); s[0] = _mm512_fmadd_ps(a0, a0, s[0]);
      d[1] = _mm512_fmadd_ps(qv, a1, d[1]); s[1] = _mm512_fmadd_ps(a1, a1, s[1]);
      d[2] = _mm512_fmadd_ps(qv, a2, d[2]); s[2] = _mm512_fmadd_ps(a2, a2, s[2]);
      d[3] = _mm512_fmadd_ps(qv, a3, d[3]); s[3] = _mm512_fmadd_ps(a3, a3, s[3]);
    }
    if( n16==n ){
      for(j=0; j<4; j++){
        dots[k+j] = reduce16Avx512(d[j]); vvs[k+j] = reduce16Avx512(s[j]);
      }
      continue;
    }
    for(j=0; j<4; j++){
      dots[k+j] = tailAvx512(d[j], q, x[j], n16, n);
      vvs[k+j] = tailAvx512(s[j], x[j], x[j], n16, n);
    }
  }
  for(; k<nVec; k++){
    const float *v = V + (size_t)k*n;
    dots[k] = dotAvx512(q, v, n);
    vvs[k] = dotAvx512(v, v, n);
  }
}

/* The lane sums of four int32 registers, in out[0..4). */
TARGET_AVX512 static void sum4Avx512(const __m512i *a, int32_t *out){
  const __m512i pick = _mm512_setr_epi32(0, 4, 8, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
  __m512i t01 = _mm512_add_epi32(_mm512_shuffle_i32x4(a[0], a[1], 0x44),
                                 _mm512_shuffle_i32x4(a[0], a[1], 0xEE));
  __m512i t23 = _mm512_add_epi32(_mm512_shuffle_i32x4(a[2], a[3], 0x44),
                                 _mm512_shuffle_i32x4(a[2], a[3], 0xEE));
  __m512i y = _mm512_add_epi32(_mm512_shuffle_i32x4(t01, t23, 0x88),
                               _mm512_shuffle_i32x4(t01, t23, 0xDD));
  y = _mm512_add_epi32(y, _mm512_shuffle_epi32(y, (_MM_PERM_ENUM)0x4E));
  y = _mm512_add_epi32(y, _mm512_shuffle_epi32(y, (_MM_PERM_ENUM)0xB1));
  _mm_storeu_si128((__m128i*)out, _mm512_castsi512_si128(_mm512_permutexvar_epi32(pick, y)));
}

/* q.v and v.v of nV (1 or 2: a constant once inlined) int8 vectors at V,
** n codes each. */
TARGET_AVX512 static inline __attribute__((always_inline))
void i8SomeAvx512(const int16_t *q16, const int8_t *V, int nV, int n,
                  int32_t *dots, int32_t *vvs){
  __m512i d[2], s[2];
  int i, j, n32 = n & ~31;
  for(j=0; j<nV; j++){ d[j] = _mm512_setzero_si512(); s[j] = _mm512_setzero_si512(); }
  for(i=0; i<n32; i+=32){
    __m512i y = _mm512_loadu_si512((const void*)(q16+i));
    for(j=0; j<nV; j++){
      __m512i x = _mm512_cvtepi8_epi16(_mm256_loadu_si256((const __m256i*)(V+(size_t)j*n+i)));
      d[j] = _mm512_add_epi32(d[j], _mm512_madd_epi16(x, y));
      s[j] = _mm512_add_epi32(s[j], _mm512_madd_epi16(x, x));
    }
  }
  for(j=0; j<nV; j++){
    dots[j] = _mm512_reduce_add_epi32(d[j]); vvs[j] = _mm512_reduce_add_epi32(s[j]);
    i8Tail(q16, V+(size_t)j*n, n32, n, &dots[j], &vvs[j]);
  }
}

TARGET_AVX512 static void i8BatchAvx512(const int16_t *q16, const int8_t *V,
                                       int nVec, int n, int32_t *dots, int32_t *vvs){
  int k = 0;
  /* Two vectors per pass; integer sums are exact in any order. */
  for(; k+2<=nVec; k+=2) i8SomeAvx512(q16, V+(size_t)k*n, 2, n, dots+k, vvs+k);
  if( k<nVec ) i8SomeAvx512(q16, V+(size_t)k*n, 1, n, dots+k, vvs+k);
}

/* The 32 (or 64) bits of b at byte i, zero-filled past nByte. */
static inline uint32_t bits32(const uint8_t *b, int i, int nByte){
  uint32_t m = 0;
  if( i+4<=nByte ) memcpy(&m, b+i, 4);
  else memcpy(&m, b+i, (size_t)(nByte-i));
  return m;
}
static inline uint64_t bits64(const uint8_t *b, int i, int nByte){
  uint64_t m = 0;
  if( i+8<=nByte ) memcpy(&m, b+i, 8);
  else memcpy(&m, b+i, (size_t)(nByte-i));
  return m;
}

/* The bit sum of one vector, 32 dimensions per step. */
TARGET_AVX512 static int32_t bitOneAvx512(const int16_t *q16, const uint8_t *b, int nByte){
  const __m512i ones = _mm512_set1_epi16(1);
  __m512i acc = _mm512_setzero_si512(), tot = _mm512_setzero_si512();
  int i, nAcc = 0;
  for(i=0; i<nByte; i+=4){
    acc = _mm512_mask_add_epi16(acc, (__mmask32)bits32(b, i, nByte), acc,
                                _mm512_loadu_si512((const void*)(q16+i*8)));
    if( ++nAcc==256 ){  /* 256 x 127 still fits an int16 lane */
      tot = _mm512_add_epi32(tot, _mm512_madd_epi16(acc, ones));
      acc = _mm512_setzero_si512(); nAcc = 0;
    }
  }
  tot = _mm512_add_epi32(tot, _mm512_madd_epi16(acc, ones));
  return _mm512_reduce_add_epi32(tot);
}

TARGET_AVX512 static void bitBatchAvx512(const int16_t *q16, const uint8_t *B,
                                       int nVec, int nByte, int32_t *out){
  const __m512i ones = _mm512_set1_epi16(1);
  int k = 0, i, j;
  /* Four vectors per pass, their sums reduced together (up to 1024 bytes:
  ** no int16 lane can overflow). */
  if( nByte<=1024 ) for(; k+4<=nVec; k+=4){
    const uint8_t *b = B + (size_t)k*nByte;
    __m512i acc[4];
    for(j=0; j<4; j++) acc[j] = _mm512_setzero_si512();
    for(i=0; i<nByte; i+=4){
      __m512i qv = _mm512_loadu_si512((const void*)(q16+i*8));
      for(j=0; j<4; j++){
        __mmask32 m = (__mmask32)bits32(b + (size_t)j*nByte, i, nByte);
        acc[j] = _mm512_mask_add_epi16(acc[j], m, acc[j], qv);
      }
    }
    for(j=0; j<4; j++) acc[j] = _mm512_madd_epi16(acc[j], ones);
    sum4Avx512(acc, out+k);
  }
  for(; k<nVec; k++) out[k] = bitOneAvx512(q16, B + (size_t)k*nByte, nByte);
}

/* ======================================================================
** AVX-512 VNNI: the integer sums with byte dot products
** ==================================================================== */

/* int8 dots with byte dot products: u = v XOR 0x80 = v + 128 as an unsigned
** byte, so q.v = dpbusd(u, q) - 128 sum(q) and v.v = dpbusd(u, v) -
** 128 sum(v + 128) + 128*128*N, sum(v + 128) by vpsadbw; N counts the bytes
** read, zeros included (a zero byte adds 128 to sum(v + 128), nothing to
** the dot products).  The same integers as the other kernels.  Four vectors
** at V; aQ8 holds the query codes as bytes, zero-padded to nRead. */
/* How far ahead (bytes) the scan asks for codes: it reads them from memory
** (a search reads every block's, 38 MB over 100k vectors of 384) faster
** than the hardware prefetcher alone brings them. */
#define I8_PREFETCH 4096

TARGET_VNNI static void i8FourVnni(const int8_t *aQ8, int32_t qSum, const int8_t *V,
                                  int n, int nRead, int32_t *dots, int32_t *vvs){
  const __m512i flip = _mm512_set1_epi8((char)0x80);
  int i, j, n64 = n & ~63;
  __mmask64 tail = n64<n ? (((__mmask64)1 << (n-n64)) - 1) : 0;
  __m512i dacc[4], vacc[4], sacc[4];
  int32_t od[4], ov[4];
  for(j=0; j<4; j++){
    dacc[j] = _mm512_setzero_si512(); vacc[j] = _mm512_setzero_si512();
    sacc[j] = _mm512_setzero_si512();
  }
  for(i=0; i<nRead; i+=64){
    __m512i qv = _mm512_loadu_si512((const void*)(aQ8+i));
    for(j=0; j<4; j++){
      const int8_t *v = V + (size_t)j*n + i;
      _mm_prefetch((const char*)v + I8_PREFETCH, _MM_HINT_T0);
      __m512i x = i<n64 ? _mm512_loadu_si512((const void*)v)
                        : _mm512_maskz_loadu_epi8(tail, (const void*)v);
      __m512i u = _mm512_xor_si512(x, flip);
      dacc[j] = _mm512_dpbusd_epi32(dacc[j], u, qv);
      vacc[j] = _mm512_dpbusd_epi32(vacc[j], u, x);
      sacc[j] = _mm512_add_epi64(sacc[j], _mm512_sad_epu8(u, _mm512_setzero_si512()));
    }
  }
  for(j=0; j<4; j++) vacc[j] = _mm512_sub_epi32(vacc[j], _mm512_slli_epi32(sacc[j], 7));
  sum4Avx512(dacc, od);
  sum4Avx512(vacc, ov);
  for(j=0; j<4; j++){
    /* unsigned arithmetic: the partial sums may wrap, the results fit */
    dots[j] = (int32_t)((uint32_t)od[j] - 128u*(uint32_t)qSum);
    vvs[j] = (int32_t)((uint32_t)ov[j] + 16384u*(uint32_t)nRead);
  }
}

TARGET_VNNI static void i8BatchVnni(const int16_t *q16, const int8_t *V, int nVec,
                                   int n, int32_t *dots, int32_t *vvs){
  int k = 0, i, nRead = (n+63) & ~63;
  int32_t qSum = 0;
  int8_t aQ8[4096];
  if( nRead<=4096 ){
    for(i=0; i<nRead; i++){ aQ8[i] = i<n ? (int8_t)q16[i] : 0; qSum += aQ8[i]; }
    for(; k+4<=nVec; k+=4){
      i8FourVnni(aQ8, qSum, V+(size_t)k*n, n, nRead, dots+k, vvs+k);
    }
  }
  if( k<nVec ) i8BatchAvx512(q16, V+(size_t)k*n, nVec-k, n, dots+k, vvs+k);
}

/* The bit sums of four vectors at b (nByte <= 64 bytes each) with byte dot
** products: sum(q over set bits) = dpbusd(1, q masked by the bits); aQ8
** holds the query codes as bytes (they are within [-127, 127]). */
TARGET_VNNI static void bitFourVnni(const int8_t *aQ8, const uint8_t *b, int nByte,
                                   int32_t *out){
  const __m512i ones = _mm512_set1_epi8(1);
  const uint8_t *ap[4] = { b, b + nByte, b + 2*nByte, b + 3*nByte };
  __m512i acc[4], qv;
  int i, j, n8 = nByte & ~7;
  for(j=0; j<4; j++) acc[j] = _mm512_setzero_si512();
  for(i=0; i<n8; i+=8){
    qv = _mm512_loadu_si512((const void*)(aQ8+i*8));
    for(j=0; j<4; j++){
      uint64_t m;
      memcpy(&m, ap[j]+i, 8);
      acc[j] = _mm512_dpbusd_epi32(acc[j], ones, _mm512_maskz_mov_epi8(m, qv));
    }
  }
  if( n8<nByte ){
    qv = _mm512_loadu_si512((const void*)(aQ8+n8*8));
    for(j=0; j<4; j++){
      __mmask64 m = bits64(ap[j], n8, nByte);
      acc[j] = _mm512_dpbusd_epi32(acc[j], ones, _mm512_maskz_mov_epi8(m, qv));
    }
  }
  sum4Avx512(acc, out);
}

TARGET_VNNI static void bitBatchVnni(const int16_t *q16, const uint8_t *B, int nVec,
                                    int nByte, int32_t *out){
  int k = 0, i, nQ = (nByte+7) & ~7;
  int8_t aQ8[512];
  if( nByte<=64 ){
    for(i=0; i<nQ*8; i++) aQ8[i] = i < nByte*8 ? (int8_t)q16[i] : 0;
    for(; k+4<=nVec; k+=4) bitFourVnni(aQ8, B + (size_t)k*nByte, nByte, out+k);
  }
  if( k<nVec ) bitBatchAvx512(q16, B+(size_t)k*nByte, nVec-k, nByte, out+k);
}

/* ======================================================================
** The kernel tables and the choice
** ==================================================================== */

static const IbKernel ibvecScalar = {
  "scalar", dotScalar, l2sqScalar, cosBatchScalar, i8BatchScalar, bitBatchScalar
};
static const IbKernel ibvecAvx2 = {
  "avx2", dotAvx2, l2sqAvx2, cosBatchAvx2, i8BatchAvx2, bitBatchAvx2
};
static const IbKernel ibvecAvx512 = {
  "avx512", dotAvx512, l2sqAvx512, cosBatchAvx512, i8BatchAvx512, bitBatchAvx512
};
/* The same, with VNNI for the int8 and sign-bit kernels (the same sums,
** fewer instructions). */
static const IbKernel ibvecAvx512Vnni = {
  "avx512", dotAvx512, l2sqAvx512, cosBatchAvx512, i8BatchVnni, bitBatchVnni
};

static const IbKernel *ibvecKernelPtr = 0;

/* The AVX-512 set: with VNNI when the CPU has it, unless the environment
** says IBVEC_VNNI=0.  (Tests set it to run the plain AVX-512 int8 and bit
** kernels on CPUs that have VNNI; the results are the same integers.) */
static const IbKernel *avx512Kernel(void){
  const char *z = getenv("IBVEC_VNNI");
  if( z && strcmp(z, "0")==0 ) return &ibvecAvx512;
  return ib_cpu_has_vnni() ? &ibvecAvx512Vnni : &ibvecAvx512;
}

/* The kernel set named z ("auto" or NULL: the widest the CPU runs); NULL
** when the name is unknown or the CPU cannot run it. */
static const IbKernel *kernelByName(const char *z){
  switch( ib_cpu_isa_named(z) ){
    case IB_ISA_AVX512: return avx512Kernel();
    case IB_ISA_AVX2:   return &ibvecAvx2;
    case IB_ISA_SCALAR: return &ibvecScalar;
    default:            return 0;
  }
}

const IbKernel *ibvecKernel(void){
  const IbKernel *p = __atomic_load_n(&ibvecKernelPtr, __ATOMIC_ACQUIRE);
  if( p==0 ){
    const char *zEnv = getenv("IBVEC_KERNEL");
    p = zEnv ? kernelByName(zEnv) : 0;
    if( p==0 ) p = kernelByName("auto");
    __atomic_store_n(&ibvecKernelPtr, p, __ATOMIC_RELEASE);
  }
  return p;
}

const char *ibvec_kernel_name(void){ return ibvecKernel()->zName; }

int ibvec_set_kernel(const char *zName){
  const IbKernel *p = kernelByName(zName);
  if( p==0 ) return -1;
  __atomic_store_n(&ibvecKernelPtr, p, __ATOMIC_RELEASE);
  return 0;
}

sqlite3_int64 ibvecHamming(const uint8_t *a, const uint8_t *b, int n){
  sqlite3_int64 h = 0;
  int i = 0;
  for(; i+8<=n; i+=8){
    uint64_t x, y;
    memcpy(&x, a+i, 8); memcpy(&y, b+i, 8);
    h += __builtin_popcountll(x ^ y);
  }
  for(; i<n; i++) h += __builtin_popcount((unsigned)(a[i] ^ b[i]));
  return h;
}

/* Branch-free: checks the exponent bits of every value. */
int ibvecAllFinite(const float *x, sqlite3_int64 n){
  uint32_t bad = 0;
  sqlite3_int64 i;
  for(i=0; i<n; i++){
    uint32_t u;
    memcpy(&u, x+i, 4);
    bad |= (uint32_t)((u & 0x7f800000u)==0x7f800000u);
  }
  return bad==0;
}

void ibvec_quantize_i8(const float *x, int dim, int8_t *codes, float *scale){
  ib_quantize_i8(x, dim, codes, scale);
}

void ibvec_quantize_bits(const float *x, int dim, uint8_t *bits){
  int i, j;
  for(i=0; i<dim; i+=8){
    unsigned b = 0;
    for(j=0; j<8 && i+j<dim; j++) b |= (unsigned)(x[i+j]>0.0f) << j;
    bits[i>>3] = (uint8_t)b;
  }
}
