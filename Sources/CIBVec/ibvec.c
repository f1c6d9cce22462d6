/*
** ibvec.c -- float32 vector functions and filtered k-nearest-neighbour search
** for SQLite, in one file.
**
** WHAT.  SQL functions over float32 vectors (stored as little-endian float32
** blobs, or given as JSON array text): conversion, dimensions, cosine / L2 /
** dot distances, normalisation, int8 and sign-bit quantisation, Hamming
** distance; writer helpers that build a block's quantised columns; and the
** eponymous table-valued function ibvec_knn, which finds the k nearest
** vectors in the vector_blocks table (layout in ibvec.h and ibvec.7).
**
** WHY.  A reader asks "what does this book say about X, up to the page I have
** read".  Searching first and filtering after returns too few rows (or none)
** and leaks chunks that end past the reader's page.  ibvec_knn therefore
** applies the book scope and the end_page <= limit test INSIDE the scan,
** before a vector is even scored, and always returns k rows when at least k
** vectors pass.  Vectors are stored in contiguous blocks of up to 1024 so the
** scan reads large blobs sequentially instead of one B-tree row per vector;
** a book scope reads only that book's blocks through the book_id index.
**
** READING.  A first pass steps over the rows in scope reading their headers
** only (ids, book, model, dim, count, blob lengths); the blobs are then read
** through incremental blob readers, only the column the mode scores (end
** pages when a page limit applies, keys only for the rows returned).  Exact
** search uses a block's int8 codes, when it has them, to skip the vectors
** that provably cannot be among the k nearest (bounds in knnScorePrune): the
** rows and distances are those of the full float scan, bit for bit.  Binary
** search ranks by the query's int8 codes summed over each vector's sign
** bits, from a histogram of those integer scores.
**
** KERNELS.  The float distance kernels exist in three versions -- scalar,
** AVX2+FMA and AVX-512F -- chosen at run time (__builtin_cpu_supports), or
** forced with SELECT ibvec_set_kernel('scalar'|'avx2'|'avx512'|'auto') or
** the IBVEC_KERNEL environment variable.  All three use the same summation
** order: sixteen lanes, element i accumulated by fused multiply-add into lane
** i % 16, the lanes then added by one fixed pairwise tree (in registers or
** in memory, the same additions in the same order).  Results are therefore
** bit-identical across kernels, not merely close.  int8 and bit kernels are
** integer and exact (the AVX-512 bit kernel uses VNNI when the CPU has it).
**
** BUILD.  Compiled into the ib executables with SQLITE_CORE (call
** sqlite3_ibvec_init directly), or as a loadable extension:
**   cc -shared -fPIC -O3 -march=x86-64-v3 -I/usr/include/json-c ibvec.c \
**      -o ibvec.so -ljson-c
**   sqlite3 library.db '.load ./ibvec' "select vec_json(vec_f32('[1,2]'))"
*/
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT1
#include "ibvec.h"

#include <json-c/json.h>
#include <immintrin.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
# error "ibvec stores little-endian float32 blobs and assumes a little-endian host"
#endif

#define IBVEC_MAX_DIM    65536   /* largest accepted vector */
#define IBVEC_MAX_K      10000   /* largest k for ibvec_knn */
#define IBVEC_MAX_BLOCK  65536   /* largest accepted count in one block */
#define IBVEC_MAX_POOL   1000000 /* largest quantised candidate pool */

/* ======================================================================
** Distance kernels
** ==================================================================== */

/* The one fixed reduction shared by every kernel: pairwise over 16 lanes. */
static float ibvecReduce16(float *acc){
  int w, j;
  for(w=8; w>=1; w/=2){
    for(j=0; j<w; j++) acc[j] = acc[j] + acc[j+w];
  }
  return acc[0];
}

typedef struct IbKernel IbKernel;
struct IbKernel {
  const char *zName;
  float (*xDot)(const float *a, const float *b, int n);
  float (*xL2sq)(const float *a, const float *b, int n);
  /* For nVec vectors V (row-major, n floats each): dots[i] = q.V[i] and
  ** vvs[i] = V[i].V[i], each summed exactly as xDot would. */
  void (*xCosBatch)(const float *q, const float *V, int nVec, int n,
                    float *dots, float *vvs);
  /* Integer dots q.V[i] and V[i].V[i] of nVec int8 vectors (n codes each,
  ** contiguous); q16 is the query's codes widened to int16. */
  void (*xI8Batch)(const int16_t *q16, const int8_t *V, int nVec, int n,
                   int32_t *dots, int32_t *vvs);
  /* For nVec sign-bit vectors B (nByte bytes each, contiguous): out[i] = the
  ** sum of q16[j] over the bits j set in B[i]; q16 holds nByte*8 values
  ** (zero past the dimension) and is padded with zeros to a multiple of 32. */
  void (*xBitBatch)(const int16_t *q16, const uint8_t *B, int nVec, int nByte,
                    int32_t *out);
};

/* ---- scalar ---- */
static float dotScalar(const float *a, const float *b, int n){
  float acc[16] = {0};
  int i, j, n16 = n & ~15;
  for(i=0; i<n16; i+=16){
    for(j=0; j<16; j++) acc[j] = fmaf(a[i+j], b[i+j], acc[j]);
  }
  for(i=n16; i<n; i++) acc[i-n16] = fmaf(a[i], b[i], acc[i-n16]);
  return ibvecReduce16(acc);
}
static float l2sqScalar(const float *a, const float *b, int n){
  float acc[16] = {0};
  int i, j, n16 = n & ~15;
  for(i=0; i<n16; i+=16){
    for(j=0; j<16; j++){ float d = a[i+j]-b[i+j]; acc[j] = fmaf(d, d, acc[j]); }
  }
  for(i=n16; i<n; i++){ float d = a[i]-b[i]; acc[i-n16] = fmaf(d, d, acc[i-n16]); }
  return ibvecReduce16(acc);
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
  int k, i;
  for(k=0; k<nVec; k++){
    const int8_t *v = V + (size_t)k*n;
    int32_t d = 0, vv = 0;
    for(i=0; i<n; i++){ d += q16[i]*(int32_t)v[i]; vv += (int32_t)v[i]*v[i]; }
    dots[k] = d; vvs[k] = vv;
  }
}
static void bitBatchScalar(const int16_t *q16, const uint8_t *B, int nVec,
                           int nByte, int32_t *out){
  int k, i, j;
  for(k=0; k<nVec; k++){
    const uint8_t *b = B + (size_t)k*nByte;
    int32_t sum = 0;
    for(i=0; i<nByte; i++){
      unsigned x = b[i];
      for(j=0; j<8; j++) sum += (int32_t)(-(int32_t)((x>>j)&1u) & q16[i*8+j]);
    }
    out[k] = sum;
  }
}

/* ---- AVX2 + FMA: lanes 0-7 in one register, 8-15 in another ---- */
#define IBVEC_AVX2 __attribute__((target("avx2,fma")))
IBVEC_AVX2 static float dotAvx2(const float *a, const float *b, int n){
  __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
  float acc[16];
  int i, n16 = n & ~15;
  for(i=0; i<n16; i+=16){
    s0 = _mm256_fmadd_ps(_mm256_loadu_ps(a+i), _mm256_loadu_ps(b+i), s0);
    s1 = _mm256_fmadd_ps(_mm256_loadu_ps(a+i+8), _mm256_loadu_ps(b+i+8), s1);
  }
  _mm256_storeu_ps(acc, s0); _mm256_storeu_ps(acc+8, s1);
  for(i=n16; i<n; i++) acc[i-n16] = fmaf(a[i], b[i], acc[i-n16]);
  return ibvecReduce16(acc);
}
IBVEC_AVX2 static float l2sqAvx2(const float *a, const float *b, int n){
  __m256 s0 = _mm256_setzero_ps(), s1 = _mm256_setzero_ps();
  float acc[16];
  int i, n16 = n & ~15;
  for(i=0; i<n16; i+=16){
    __m256 d0 = _mm256_sub_ps(_mm256_loadu_ps(a+i), _mm256_loadu_ps(b+i));
    __m256 d1 = _mm256_sub_ps(_mm256_loadu_ps(a+i+8), _mm256_loadu_ps(b+i+8));
    s0 = _mm256_fmadd_ps(d0, d0, s0);
    s1 = _mm256_fmadd_ps(d1, d1, s1);
  }
  _mm256_storeu_ps(acc, s0); _mm256_storeu_ps(acc+8, s1);
  for(i=n16; i<n; i++){ float d = a[i]-b[i]; acc[i-n16] = fmaf(d, d, acc[i-n16]); }
  return ibvecReduce16(acc);
}
/* ibvecReduce16 of lanes 0-7 in lo and 8-15 in hi, the same adds in the
** same order: acc[j]+acc[j+8], then +4, +2, +1. */
IBVEC_AVX2 static float reduce16Avx2(__m256 lo, __m256 hi){
  __m256 a = _mm256_add_ps(lo, hi);
  __m128 b = _mm_add_ps(_mm256_castps256_ps128(a), _mm256_extractf128_ps(a, 1));
  __m128 c = _mm_add_ps(b, _mm_movehl_ps(b, b));
  return _mm_cvtss_f32(_mm_add_ss(c, _mm_movehdup_ps(c)));
}
IBVEC_AVX2 static void cosBatchAvx2(const float *q, const float *V, int nVec,
                                    int n, float *dots, float *vvs){
  int k = 0, i, n16 = n & ~15;
  float acc[16];
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
    _mm256_storeu_ps(acc, dx0); _mm256_storeu_ps(acc+8, dx1);
    for(i=n16; i<n; i++) acc[i-n16] = fmaf(q[i], x[i], acc[i-n16]);
    dots[k] = ibvecReduce16(acc);
    _mm256_storeu_ps(acc, vx0); _mm256_storeu_ps(acc+8, vx1);
    for(i=n16; i<n; i++) acc[i-n16] = fmaf(x[i], x[i], acc[i-n16]);
    vvs[k] = ibvecReduce16(acc);
    _mm256_storeu_ps(acc, dy0); _mm256_storeu_ps(acc+8, dy1);
    for(i=n16; i<n; i++) acc[i-n16] = fmaf(q[i], y[i], acc[i-n16]);
    dots[k+1] = ibvecReduce16(acc);
    _mm256_storeu_ps(acc, vy0); _mm256_storeu_ps(acc+8, vy1);
    for(i=n16; i<n; i++) acc[i-n16] = fmaf(y[i], y[i], acc[i-n16]);
    vvs[k+1] = ibvecReduce16(acc);
  }
  for(; k<nVec; k++){
    const float *v = V + (size_t)k*n;
    dots[k] = dotAvx2(q, v, n);
    vvs[k] = dotAvx2(v, v, n);
  }
}
IBVEC_AVX2 static void i8BatchAvx2(const int16_t *q16, const int8_t *V, int nVec,
                                   int n, int32_t *dots, int32_t *vvs){
  int k, i, j, n16 = n & ~15;
  int32_t lanes[8];
  for(k=0; k<nVec; k++){
    const int8_t *v = V + (size_t)k*n;
    __m256i sd = _mm256_setzero_si256(), sv = _mm256_setzero_si256();
    int32_t d = 0, vv = 0;
    for(i=0; i<n16; i+=16){
      __m256i x = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i*)(v+i)));
      __m256i y = _mm256_loadu_si256((const __m256i*)(q16+i));
      sd = _mm256_add_epi32(sd, _mm256_madd_epi16(x, y));
      sv = _mm256_add_epi32(sv, _mm256_madd_epi16(x, x));
    }
    _mm256_storeu_si256((__m256i*)lanes, sd);
    for(j=0; j<8; j++) d += lanes[j];
    _mm256_storeu_si256((__m256i*)lanes, sv);
    for(j=0; j<8; j++) vv += lanes[j];
    for(i=n16; i<n; i++){ d += q16[i]*(int32_t)v[i]; vv += (int32_t)v[i]*v[i]; }
    dots[k] = d; vvs[k] = vv;
  }
}

IBVEC_AVX2 static void bitBatchAvx2(const int16_t *q16, const uint8_t *B, int nVec,
                                    int nByte, int32_t *out){
  const __m256i sel = _mm256_setr_epi16(1, 2, 4, 8, 16, 32, 64, 128, 256, 512,
      1024, 2048, 4096, 8192, 16384, (short)0x8000);
  const __m256i ones = _mm256_set1_epi16(1);
  int k, i, j, n2 = nByte & ~1;
  int32_t lanes[8];
  for(k=0; k<nVec; k++){
    const uint8_t *b = B + (size_t)k*nByte;
    __m256i acc = _mm256_setzero_si256(), tot = _mm256_setzero_si256();
    int32_t sum = 0, nAcc = 0;
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
    _mm256_storeu_si256((__m256i*)lanes, tot);
    for(j=0; j<8; j++) sum += lanes[j];
    for(i=n2; i<nByte; i++){
      for(j=0; j<8; j++) sum += (int32_t)(-(int32_t)((b[i]>>j)&1u) & q16[i*8+j]);
    }
    out[k] = sum;
  }
}

/* ---- AVX-512: all sixteen lanes in one register ---- */
#define IBVEC_AVX512 __attribute__((target("avx512f,avx512bw,avx2,fma")))
IBVEC_AVX512 static float dotAvx512(const float *a, const float *b, int n){
  __m512 s = _mm512_setzero_ps();
  float acc[16];
  int i, n16 = n & ~15;
  for(i=0; i<n16; i+=16){
    s = _mm512_fmadd_ps(_mm512_loadu_ps(a+i), _mm512_loadu_ps(b+i), s);
  }
  _mm512_storeu_ps(acc, s);
  for(i=n16; i<n; i++) acc[i-n16] = fmaf(a[i], b[i], acc[i-n16]);
  return ibvecReduce16(acc);
}
IBVEC_AVX512 static float l2sqAvx512(const float *a, const float *b, int n){
  __m512 s = _mm512_setzero_ps();
  float acc[16];
  int i, n16 = n & ~15;
  for(i=0; i<n16; i+=16){
    __m512 d = _mm512_sub_ps(_mm512_loadu_ps(a+i), _mm512_loadu_ps(b+i));
    s = _mm512_fmadd_ps(d, d, s);
  }
  _mm512_storeu_ps(acc, s);
  for(i=n16; i<n; i++){ float d = a[i]-b[i]; acc[i-n16] = fmaf(d, d, acc[i-n16]); }
  return ibvecReduce16(acc);
}
IBVEC_AVX512 static float reduce16Avx512(__m512 z){
  __m256 lo = _mm512_castps512_ps256(z);
  __m256 hi = _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(z), 1));
  return reduce16Avx2(lo, hi);
}
IBVEC_AVX512 static void cosBatchAvx512(const float *q, const float *V,
                                        int nVec, int n, float *dots, float *vvs){
  int k = 0, i, j, n16 = n & ~15;
  float acc[16];
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
      const float *y = x[j];
      _mm512_storeu_ps(acc, d[j]);
      for(i=n16; i<n; i++) acc[i-n16] = fmaf(q[i], y[i], acc[i-n16]);
      dots[k+j] = ibvecReduce16(acc);
      _mm512_storeu_ps(acc, s[j]);
      for(i=n16; i<n; i++) acc[i-n16] = fmaf(y[i], y[i], acc[i-n16]);
      vvs[k+j] = ibvecReduce16(acc);
    }
  }
  for(; k<nVec; k++){
    const float *v = V + (size_t)k*n;
    dots[k] = dotAvx512(q, v, n);
    vvs[k] = dotAvx512(v, v, n);
  }
}
IBVEC_AVX512 static void i8BatchAvx512(const int16_t *q16, const int8_t *V,
                                       int nVec, int n, int32_t *dots, int32_t *vvs){
  int k = 0, i, n32 = n & ~31;
  /* Two vectors per pass; integer sums are exact in any order. */
  for(; k+2<=nVec; k+=2){
    const int8_t *a = V + (size_t)k*n, *b = a + n;
    __m512i da = _mm512_setzero_si512(), va = _mm512_setzero_si512();
    __m512i db = _mm512_setzero_si512(), vb = _mm512_setzero_si512();
    int32_t d0, v0, d1, v1;
    for(i=0; i<n32; i+=32){
      __m512i y = _mm512_loadu_si512((const void*)(q16+i));
      __m512i x0 = _mm512_cvtepi8_epi16(_mm256_loadu_si256((const __m256i*)(a+i)));
      __m512i x1 = _mm512_cvtepi8_epi16(_mm256_loadu_si256((const __m256i*)(b+i)));
      da = _mm512_add_epi32(da, _mm512_madd_epi16(x0, y));
      va = _mm512_add_epi32(va, _mm512_madd_epi16(x0, x0));
      db = _mm512_add_epi32(db, _mm512_madd_epi16(x1, y));
      vb = _mm512_add_epi32(vb, _mm512_madd_epi16(x1, x1));
    }
    d0 = _mm512_reduce_add_epi32(da); v0 = _mm512_reduce_add_epi32(va);
    d1 = _mm512_reduce_add_epi32(db); v1 = _mm512_reduce_add_epi32(vb);
    for(i=n32; i<n; i++){
      d0 += q16[i]*(int32_t)a[i]; v0 += (int32_t)a[i]*a[i];
      d1 += q16[i]*(int32_t)b[i]; v1 += (int32_t)b[i]*b[i];
    }
    dots[k] = d0; vvs[k] = v0; dots[k+1] = d1; vvs[k+1] = v1;
  }
  for(; k<nVec; k++){
    const int8_t *a = V + (size_t)k*n;
    __m512i da = _mm512_setzero_si512(), va = _mm512_setzero_si512();
    int32_t d0, v0;
    for(i=0; i<n32; i+=32){
      __m512i y = _mm512_loadu_si512((const void*)(q16+i));
      __m512i x0 = _mm512_cvtepi8_epi16(_mm256_loadu_si256((const __m256i*)(a+i)));
      da = _mm512_add_epi32(da, _mm512_madd_epi16(x0, y));
      va = _mm512_add_epi32(va, _mm512_madd_epi16(x0, x0));
    }
    d0 = _mm512_reduce_add_epi32(da); v0 = _mm512_reduce_add_epi32(va);
    for(i=n32; i<n; i++){ d0 += q16[i]*(int32_t)a[i]; v0 += (int32_t)a[i]*a[i]; }
    dots[k] = d0; vvs[k] = v0;
  }
}

IBVEC_AVX512 static void bitBatchAvx512(const int16_t *q16, const uint8_t *B,
                                       int nVec, int nByte, int32_t *out){
  const __m512i ones = _mm512_set1_epi16(1);
  const __m512i pick = _mm512_setr_epi32(0, 4, 8, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
  int k = 0, i, j, n4 = nByte & ~3;
  /* Four vectors per pass, their sums reduced together (up to 1024 bytes:
  ** no int16 lane can overflow). */
  if( nByte<=1024 ) for(; k+4<=nVec; k+=4){
    const uint8_t *b = B + (size_t)k*nByte;
    __m512i acc[4], t01, t23, y;
    for(j=0; j<4; j++) acc[j] = _mm512_setzero_si512();
    for(i=0; i<nByte; i+=4){
      __m512i qv = _mm512_loadu_si512((const void*)(q16+i*8));
      for(j=0; j<4; j++){
        uint32_t m = 0;
        if( i<n4 ) memcpy(&m, b + (size_t)j*nByte + i, 4);
        else memcpy(&m, b + (size_t)j*nByte + i, (size_t)(nByte-n4));
        acc[j] = _mm512_mask_add_epi16(acc[j], (__mmask32)m, acc[j], qv);
      }
    }
    for(j=0; j<4; j++) acc[j] = _mm512_madd_epi16(acc[j], ones);
    t01 = _mm512_add_epi32(_mm512_shuffle_i32x4(acc[0], acc[1], 0x44),
                           _mm512_shuffle_i32x4(acc[0], acc[1], 0xEE));
    t23 = _mm512_add_epi32(_mm512_shuffle_i32x4(acc[2], acc[3], 0x44),
                           _mm512_shuffle_i32x4(acc[2], acc[3], 0xEE));
    y = _mm512_add_epi32(_mm512_shuffle_i32x4(t01, t23, 0x88),
                         _mm512_shuffle_i32x4(t01, t23, 0xDD));
    y = _mm512_add_epi32(y, _mm512_shuffle_epi32(y, (_MM_PERM_ENUM)0x4E));
    y = _mm512_add_epi32(y, _mm512_shuffle_epi32(y, (_MM_PERM_ENUM)0xB1));
    _mm_storeu_si128((__m128i*)(out+k),
                     _mm512_castsi512_si128(_mm512_permutexvar_epi32(pick, y)));
  }
  for(; k<nVec; k++){
    const uint8_t *b = B + (size_t)k*nByte;
    __m512i acc = _mm512_setzero_si512(), tot = _mm512_setzero_si512();
    int nAcc = 0;
    for(i=0; i<n4; i+=4){
      uint32_t m;
      memcpy(&m, b+i, 4);
      acc = _mm512_mask_add_epi16(acc, (__mmask32)m, acc,
                                  _mm512_loadu_si512((const void*)(q16+i*8)));
      if( ++nAcc==256 ){  /* 256 x 127 still fits an int16 lane */
        tot = _mm512_add_epi32(tot, _mm512_madd_epi16(acc, ones));
        acc = _mm512_setzero_si512(); nAcc = 0;
      }
    }
    if( n4<nByte ){
      uint32_t m = 0;
      memcpy(&m, b+n4, (size_t)(nByte-n4));
      acc = _mm512_mask_add_epi16(acc, (__mmask32)m, acc,
                                  _mm512_loadu_si512((const void*)(q16+n4*8)));
    }
    tot = _mm512_add_epi32(tot, _mm512_madd_epi16(acc, ones));
    out[k] = _mm512_reduce_add_epi32(tot);
  }
}

/* ---- AVX-512 VNNI: the integer sums with byte dot products ---- */
#define IBVEC_VNNI __attribute__((target("avx512f,avx512bw,avx512vnni,avx2,fma")))
/* int8 dots with byte dot products: u = v XOR 0x80 = v + 128 as an unsigned
** byte, so q.v = dpbusd(u, q) - 128 sum(q) and v.v = dpbusd(u, v) -
** 128 sum(v + 128) + 128*128*N, sum(v + 128) by vpsadbw; N counts the bytes
** read, zeros included (a zero byte adds 128 to sum(v + 128), nothing to
** the dot products).  The same integers as the other kernels. */
IBVEC_VNNI static void i8BatchVnni(const int16_t *q16, const int8_t *V, int nVec,
                                   int n, int32_t *dots, int32_t *vvs){
  const __m512i flip = _mm512_set1_epi8((char)0x80);
  const __m512i pick = _mm512_setr_epi32(0, 4, 8, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
  int k = 0, i, j, n64 = n & ~63, nRead = (n+63) & ~63;
  int32_t qSum = 0;
  int8_t aQ8[4096];
  __mmask64 tail = n64<n ? (((__mmask64)1 << (n-n64)) - 1) : 0;
  if( nRead<=4096 ){
    for(i=0; i<nRead; i++){ aQ8[i] = i<n ? (int8_t)q16[i] : 0; qSum += aQ8[i]; }
    for(; k+4<=nVec; k+=4){
      __m512i dacc[4], vacc[4], sacc[4], t01, t23, yd, yv;
      int32_t od[4], ov[4];
      for(j=0; j<4; j++){
        dacc[j] = _mm512_setzero_si512(); vacc[j] = _mm512_setzero_si512();
        sacc[j] = _mm512_setzero_si512();
      }
      for(i=0; i<nRead; i+=64){
        __m512i qv = _mm512_loadu_si512((const void*)(aQ8+i));
        for(j=0; j<4; j++){
          const int8_t *v = V + (size_t)(k+j)*n + i;
          __m512i x = i<n64 ? _mm512_loadu_si512((const void*)v)
                            : _mm512_maskz_loadu_epi8(tail, (const void*)v);
          __m512i u = _mm512_xor_si512(x, flip);
          dacc[j] = _mm512_dpbusd_epi32(dacc[j], u, qv);
          vacc[j] = _mm512_dpbusd_epi32(vacc[j], u, x);
          sacc[j] = _mm512_add_epi64(sacc[j], _mm512_sad_epu8(u, _mm512_setzero_si512()));
        }
      }
      for(j=0; j<4; j++) vacc[j] = _mm512_sub_epi32(vacc[j], _mm512_slli_epi32(sacc[j], 7));
#define IBVEC_SUM4(a, out) \
      t01 = _mm512_add_epi32(_mm512_shuffle_i32x4(a[0], a[1], 0x44), \
                             _mm512_shuffle_i32x4(a[0], a[1], 0xEE)); \
      t23 = _mm512_add_epi32(_mm512_shuffle_i32x4(a[2], a[3], 0x44), \
                             _mm512_shuffle_i32x4(a[2], a[3], 0xEE)); \
      out = _mm512_add_epi32(_mm512_shuffle_i32x4(t01, t23, 0x88), \
                             _mm512_shuffle_i32x4(t01, t23, 0xDD)); \
      out = _mm512_add_epi32(out, _mm512_shuffle_epi32(out, (_MM_PERM_ENUM)0x4E)); \
      out = _mm512_add_epi32(out, _mm512_shuffle_epi32(out, (_MM_PERM_ENUM)0xB1));
      IBVEC_SUM4(dacc, yd)
      IBVEC_SUM4(vacc, yv)
#undef IBVEC_SUM4
      _mm_storeu_si128((__m128i*)od, _mm512_castsi512_si128(_mm512_permutexvar_epi32(pick, yd)));
      _mm_storeu_si128((__m128i*)ov, _mm512_castsi512_si128(_mm512_permutexvar_epi32(pick, yv)));
      for(j=0; j<4; j++){
        /* unsigned arithmetic: the partial sums may wrap, the results fit */
        dots[k+j] = (int32_t)((uint32_t)od[j] - 128u*(uint32_t)qSum);
        vvs[k+j] = (int32_t)((uint32_t)ov[j] + 16384u*(uint32_t)nRead);
      }
    }
  }
  if( k<nVec ) i8BatchAvx512(q16, V+(size_t)k*n, nVec-k, n, dots+k, vvs+k);
}
IBVEC_VNNI static void bitBatchVnni(const int16_t *q16, const uint8_t *B, int nVec,
                                    int nByte, int32_t *out){
  const __m512i ones = _mm512_set1_epi8(1);
  const __m512i pick = _mm512_setr_epi32(0, 4, 8, 12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
  int k = 0, i, j, nQ = (nByte+7) & ~7, n8 = nByte & ~7;
  int8_t aQ8[512];
  /* the query codes as bytes (they are within [-127, 127]), 64 per register:
  ** sum(q over set bits) = dpbusd(1, q masked by the bits) */
  if( nByte<=64 ){
    for(i=0; i<nQ*8; i++) aQ8[i] = i < nByte*8 ? (int8_t)q16[i] : 0;
    for(; k+4<=nVec; k+=4){
      const uint8_t *b = B + (size_t)k*nByte;
      __m512i acc[4], t01, t23, y;
      for(j=0; j<4; j++) acc[j] = _mm512_setzero_si512();
      for(i=0; i<n8; i+=8){
        __m512i qv = _mm512_loadu_si512((const void*)(aQ8+i*8));
        for(j=0; j<4; j++){
          uint64_t m;
          memcpy(&m, b + (size_t)j*nByte + i, 8);
          acc[j] = _mm512_dpbusd_epi32(acc[j], ones, _mm512_maskz_mov_epi8((__mmask64)m, qv));
        }
      }
      if( n8<nByte ){
        __m512i qv = _mm512_loadu_si512((const void*)(aQ8+n8*8));
        for(j=0; j<4; j++){
          uint64_t m = 0;
          memcpy(&m, b + (size_t)j*nByte + n8, (size_t)(nByte-n8));
          acc[j] = _mm512_dpbusd_epi32(acc[j], ones, _mm512_maskz_mov_epi8((__mmask64)m, qv));
        }
      }
      t01 = _mm512_add_epi32(_mm512_shuffle_i32x4(acc[0], acc[1], 0x44),
                             _mm512_shuffle_i32x4(acc[0], acc[1], 0xEE));
      t23 = _mm512_add_epi32(_mm512_shuffle_i32x4(acc[2], acc[3], 0x44),
                             _mm512_shuffle_i32x4(acc[2], acc[3], 0xEE));
      y = _mm512_add_epi32(_mm512_shuffle_i32x4(t01, t23, 0x88),
                           _mm512_shuffle_i32x4(t01, t23, 0xDD));
      y = _mm512_add_epi32(y, _mm512_shuffle_epi32(y, (_MM_PERM_ENUM)0x4E));
      y = _mm512_add_epi32(y, _mm512_shuffle_epi32(y, (_MM_PERM_ENUM)0xB1));
      _mm_storeu_si128((__m128i*)(out+k),
                       _mm512_castsi512_si128(_mm512_permutexvar_epi32(pick, y)));
    }
  }
  if( k<nVec ) bitBatchAvx512(q16, B+(size_t)k*nByte, nVec-k, nByte, out+k);
}

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

static int ibvecCpuHasAvx2(void){
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}
static int ibvecCpuHasAvx512(void){
  __builtin_cpu_init();
  return ibvecCpuHasAvx2() && __builtin_cpu_supports("avx512f")
      && __builtin_cpu_supports("avx512bw");
}

static const IbKernel *ibvecAvx512Best(void){
  return __builtin_cpu_supports("avx512vnni") ? &ibvecAvx512Vnni : &ibvecAvx512;
}

/* Looks up a kernel by name; "auto" picks the widest the CPU runs. */
static const IbKernel *ibvecKernelByName(const char *z){
  if( z==0 || strcmp(z, "auto")==0 ){
    if( ibvecCpuHasAvx512() ) return ibvecAvx512Best();
    if( ibvecCpuHasAvx2() ) return &ibvecAvx2;
    return &ibvecScalar;
  }
  if( strcmp(z, "scalar")==0 ) return &ibvecScalar;
  if( strcmp(z, "avx2")==0 ) return ibvecCpuHasAvx2() ? &ibvecAvx2 : 0;
  if( strcmp(z, "avx512")==0 ) return ibvecCpuHasAvx512() ? ibvecAvx512Best() : 0;
  return 0;
}

static const IbKernel *ibvecKernel(void){
  const IbKernel *p = __atomic_load_n(&ibvecKernelPtr, __ATOMIC_ACQUIRE);
  if( p==0 ){
    const char *zEnv = getenv("IBVEC_KERNEL");
    p = zEnv ? ibvecKernelByName(zEnv) : 0;
    if( p==0 ) p = ibvecKernelByName("auto");
    __atomic_store_n(&ibvecKernelPtr, p, __ATOMIC_RELEASE);
  }
  return p;
}

const char *ibvec_kernel_name(void){ return ibvecKernel()->zName; }

int ibvec_set_kernel(const char *zName){
  const IbKernel *p = ibvecKernelByName(zName);
  if( p==0 ) return -1;
  __atomic_store_n(&ibvecKernelPtr, p, __ATOMIC_RELEASE);
  return 0;
}

/* Hamming distance between two byte strings (integer, exact). */
static sqlite3_int64 ibvecHamming(const uint8_t *a, const uint8_t *b, int n){
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

/* Cosine distance from the three sums, the same way everywhere. A zero
** vector has no direction: its distance to anything is 1. */
static double ibvecCosDist(float dot, float aa, float bb){
  double den = sqrt((double)aa) * sqrt((double)bb);
  if( !(den>0.0) ) return 1.0;
  return 1.0 - (double)dot/den;
}

/* Non-zero when every value is finite (branch-free: checks exponent bits). */
static int ibvecAllFinite(const float *x, sqlite3_int64 n){
  uint32_t bad = 0;
  sqlite3_int64 i;
  for(i=0; i<n; i++){
    uint32_t u;
    memcpy(&u, x+i, 4);
    bad |= (uint32_t)((u & 0x7f800000u)==0x7f800000u);
  }
  return bad==0;
}

/* max|x_i| / 127: the int8 scale of one vector. */
static float ibvecI8Scale(const float *x, int dim){
  float mx = 0.0f;
  int i;
  for(i=0; i<dim; i++){ float a = fabsf(x[i]); mx = a>mx ? a : mx; }
  return mx / 127.0f;
}

void ibvec_quantize_i8(const float *x, int dim, int8_t *codes, float *scale){
  float mx = 0.0f;
  int i;
  for(i=0; i<dim; i++){ float a = fabsf(x[i]); mx = a>mx ? a : mx; }
  *scale = mx / 127.0f;
  if( !(mx>0.0f) ){
    memset(codes, 0, (size_t)dim);
    *scale = 0.0f;
    return;
  }
  for(i=0; i<dim; i++){
    /* x/mx is in [-1, 1] even when mx is subnormal (127/mx could overflow);
    ** branch-free: clamp, then round half to even */
    float t = x[i]/mx*127.0f;
    t = t>127.0f ? 127.0f : t;
    t = t<-127.0f ? -127.0f : t;
    codes[i] = (int8_t)(int)rintf(t);
  }
}

void ibvec_quantize_bits(const float *x, int dim, uint8_t *bits){
  int i, j, n8 = dim & ~7;
  for(i=0; i<n8; i+=8){
    unsigned b = 0;
    for(j=0; j<8; j++) b |= (unsigned)(x[i+j]>0.0f) << j;
    bits[i>>3] = (uint8_t)b;
  }
  if( n8<dim ){
    unsigned b = 0;
    for(j=0; n8+j<dim; j++) b |= (unsigned)(x[n8+j]>0.0f) << j;
    bits[n8>>3] = (uint8_t)b;
  }
}

/* ======================================================================
** Reading vector arguments
** ==================================================================== */

/* A float32 vector owned by the caller (sqlite3_free). */
typedef struct IbVec IbVec;
struct IbVec {
  float *a;
  int n;
};

/* Parses JSON array text into *pOut.  On error returns SQLITE_ERROR and sets
** *pzErr (sqlite3_mprintf). */
static int ibvecParseJson(const char *zFunc, const char *z, int nz,
                          IbVec *pOut, char **pzErr){
  struct json_tokener *tok;
  json_object *pObj;
  enum json_tokener_error e;
  size_t nArr, i, end;
  int rc = SQLITE_ERROR;

  pOut->a = 0; pOut->n = 0;
  tok = json_tokener_new();
  if( tok==0 ){ *pzErr = sqlite3_mprintf("%s: out of memory", zFunc); return SQLITE_NOMEM; }
  pObj = json_tokener_parse_ex(tok, z, nz);
  e = json_tokener_get_error(tok);
  if( pObj==0 || e!=json_tokener_success ){
    *pzErr = sqlite3_mprintf("%s: malformed JSON vector: %s", zFunc,
        e==json_tokener_continue ? "unexpected end of text"
                                 : json_tokener_error_desc(e));
    goto done;
  }
  end = json_tokener_get_parse_end(tok);
  for(; end<(size_t)nz; end++){
    char c = z[end];
    if( c!=' ' && c!='\t' && c!='\n' && c!='\r' ){
      *pzErr = sqlite3_mprintf("%s: malformed JSON vector: text after the array", zFunc);
      goto done;
    }
  }
  if( !json_object_is_type(pObj, json_type_array) ){
    *pzErr = sqlite3_mprintf("%s: a JSON vector must be an array of numbers", zFunc);
    goto done;
  }
  nArr = json_object_array_length(pObj);
  if( nArr==0 ){
    *pzErr = sqlite3_mprintf("%s: empty vector", zFunc);
    goto done;
  }
  if( nArr>IBVEC_MAX_DIM ){
    *pzErr = sqlite3_mprintf("%s: too many dimensions (%lld > %d)", zFunc,
                             (long long)nArr, IBVEC_MAX_DIM);
    goto done;
  }
  pOut->a = sqlite3_malloc64(sizeof(float)*nArr);
  if( pOut->a==0 ){ *pzErr = sqlite3_mprintf("%s: out of memory", zFunc); rc = SQLITE_NOMEM; goto done; }
  for(i=0; i<nArr; i++){
    json_object *pEl = json_object_array_get_idx(pObj, i);
    float f;
    if( !json_object_is_type(pEl, json_type_double)
     && !json_object_is_type(pEl, json_type_int) ){
      *pzErr = sqlite3_mprintf("%s: element %lld of the JSON vector is not a number",
                               zFunc, (long long)i);
      goto done;
    }
    f = (float)json_object_get_double(pEl);
    if( !isfinite(f) ){
      *pzErr = sqlite3_mprintf("%s: element %lld is NaN, infinite or out of float32 range",
                               zFunc, (long long)i);
      goto done;
    }
    pOut->a[i] = f;
  }
  pOut->n = (int)nArr;
  rc = SQLITE_OK;
done:
  if( pObj ) json_object_put(pObj);
  json_tokener_free(tok);
  if( rc!=SQLITE_OK ){ sqlite3_free(pOut->a); pOut->a = 0; pOut->n = 0; }
  return rc;
}

/* Validates and copies a float32 blob. */
static int ibvecParseBlob(const char *zFunc, const void *p, int nByte,
                          IbVec *pOut, char **pzErr){
  int n, i;
  pOut->a = 0; pOut->n = 0;
  if( nByte<=0 ){ *pzErr = sqlite3_mprintf("%s: empty vector", zFunc); return SQLITE_ERROR; }
  if( nByte%4 ){
    *pzErr = sqlite3_mprintf("%s: blob length %d is not a multiple of 4 (float32)", zFunc, nByte);
    return SQLITE_ERROR;
  }
  n = nByte/4;
  if( n>IBVEC_MAX_DIM ){
    *pzErr = sqlite3_mprintf("%s: too many dimensions (%d > %d)", zFunc, n, IBVEC_MAX_DIM);
    return SQLITE_ERROR;
  }
  pOut->a = sqlite3_malloc64((sqlite3_uint64)nByte);
  if( pOut->a==0 ){ *pzErr = sqlite3_mprintf("%s: out of memory", zFunc); return SQLITE_NOMEM; }
  memcpy(pOut->a, p, (size_t)nByte);
  if( !ibvecAllFinite(pOut->a, n) ) for(i=0; i<n; i++){
    if( !isfinite(pOut->a[i]) ){
      *pzErr = sqlite3_mprintf("%s: element %d is NaN or infinite", zFunc, i);
      sqlite3_free(pOut->a); pOut->a = 0;
      return SQLITE_ERROR;
    }
  }
  pOut->n = n;
  return SQLITE_OK;
}

/* Reads a vector argument: a float32 blob or JSON array text. NULL is an
** error here; the scalar functions check for NULL first. */
static int ibvecParseValue(const char *zFunc, sqlite3_value *pVal,
                           IbVec *pOut, char **pzErr){
  switch( sqlite3_value_type(pVal) ){
    case SQLITE_BLOB: {
      const void *p = sqlite3_value_blob(pVal);
      int n = sqlite3_value_bytes(pVal);
      return ibvecParseBlob(zFunc, p, n, pOut, pzErr);
    }
    case SQLITE_TEXT: {
      const char *z = (const char*)sqlite3_value_text(pVal);
      int n = sqlite3_value_bytes(pVal);
      if( z==0 ){ *pzErr = sqlite3_mprintf("%s: out of memory", zFunc); return SQLITE_NOMEM; }
      return ibvecParseJson(zFunc, z, n, pOut, pzErr);
    }
    case SQLITE_NULL:
      *pzErr = sqlite3_mprintf("%s: the vector is NULL", zFunc);
      return SQLITE_ERROR;
    default:
      *pzErr = sqlite3_mprintf("%s: expected a float32 blob or JSON array text, not a number", zFunc);
      return SQLITE_ERROR;
  }
}

/* Helper for the scalar functions: reads argument i, reporting errors. */
static int ibvecArg(sqlite3_context *ctx, const char *zFunc,
                    sqlite3_value *pVal, IbVec *pOut){
  char *zErr = 0;
  int rc = ibvecParseValue(zFunc, pVal, pOut, &zErr);
  if( rc!=SQLITE_OK ){
    if( rc==SQLITE_NOMEM ) sqlite3_result_error_nomem(ctx);
    else sqlite3_result_error(ctx, zErr ? zErr : "ibvec: error", -1);
    sqlite3_free(zErr);
  }
  return rc;
}

/* True when any argument is NULL: the scalar functions then return NULL. */
static int ibvecAnyNull(int argc, sqlite3_value **argv){
  int i;
  for(i=0; i<argc; i++) if( sqlite3_value_type(argv[i])==SQLITE_NULL ) return 1;
  return 0;
}

/* ======================================================================
** Scalar SQL functions
** ==================================================================== */

/* vec_f32(x): JSON text or float32 blob -> validated float32 blob. */
static void vecF32Func(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  IbVec v;
  (void)argc;
  if( ibvecAnyNull(1, argv) ) return;
  if( ibvecArg(ctx, "vec_f32", argv[0], &v) ) return;
  sqlite3_result_blob(ctx, v.a, v.n*4, sqlite3_free);
}

/* vec_json(x): vector -> JSON array text, each value with the fewest digits
** that read back as the same float32. */
static void vecJsonFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  IbVec v;
  sqlite3_str *pStr;
  int i;
  (void)argc;
  if( ibvecAnyNull(1, argv) ) return;
  if( ibvecArg(ctx, "vec_json", argv[0], &v) ) return;
  pStr = sqlite3_str_new(sqlite3_context_db_handle(ctx));
  sqlite3_str_appendchar(pStr, 1, '[');
  for(i=0; i<v.n; i++){
    char zBuf[48];
    int p;
    for(p=6; p<=9; p++){
      snprintf(zBuf, sizeof(zBuf), "%.*g", p, (double)v.a[i]);
      if( strtof(zBuf, 0)==v.a[i] ) break;
    }
    if( i ) sqlite3_str_appendchar(pStr, 1, ',');
    sqlite3_str_appendall(pStr, zBuf);
  }
  sqlite3_str_appendchar(pStr, 1, ']');
  sqlite3_free(v.a);
  if( sqlite3_str_errcode(pStr) ){
    sqlite3_free(sqlite3_str_finish(pStr));
    sqlite3_result_error_nomem(ctx);
    return;
  }
  sqlite3_result_text(ctx, sqlite3_str_finish(pStr), -1, sqlite3_free);
}

/* vec_dims(x) -> number of dimensions. */
static void vecDimsFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  IbVec v;
  (void)argc;
  if( ibvecAnyNull(1, argv) ) return;
  if( ibvecArg(ctx, "vec_dims", argv[0], &v) ) return;
  sqlite3_result_int(ctx, v.n);
  sqlite3_free(v.a);
}

/* Reads two vectors of equal dimension; returns non-zero on error. */
static int ibvecArgPair(sqlite3_context *ctx, const char *zFunc,
                        sqlite3_value **argv, IbVec *pA, IbVec *pB){
  if( ibvecArg(ctx, zFunc, argv[0], pA) ) return 1;
  if( ibvecArg(ctx, zFunc, argv[1], pB) ){ sqlite3_free(pA->a); return 1; }
  if( pA->n!=pB->n ){
    char *z = sqlite3_mprintf("%s: dimension mismatch (%d vs %d)", zFunc, pA->n, pB->n);
    sqlite3_result_error(ctx, z ? z : "dimension mismatch", -1);
    sqlite3_free(z);
    sqlite3_free(pA->a); sqlite3_free(pB->a);
    return 1;
  }
  return 0;
}

/* vec_distance_cosine(a,b) = 1 - a.b / (|a| |b|); 1 when either is zero. */
static void vecCosineFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  IbVec a, b;
  const IbKernel *K = ibvecKernel();
  float dot, bb, aa;
  (void)argc;
  if( ibvecAnyNull(2, argv) ) return;
  if( ibvecArgPair(ctx, "vec_distance_cosine", argv, &a, &b) ) return;
  K->xCosBatch(a.a, b.a, 1, a.n, &dot, &bb);
  aa = K->xDot(a.a, a.a, a.n);
  sqlite3_result_double(ctx, ibvecCosDist(dot, aa, bb));
  sqlite3_free(a.a); sqlite3_free(b.a);
}

/* vec_distance_l2(a,b) = sqrt(sum (a_i - b_i)^2), the Euclidean distance. */
static void vecL2Func(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  IbVec a, b;
  (void)argc;
  if( ibvecAnyNull(2, argv) ) return;
  if( ibvecArgPair(ctx, "vec_distance_l2", argv, &a, &b) ) return;
  sqlite3_result_double(ctx, sqrt((double)ibvecKernel()->xL2sq(a.a, b.a, a.n)));
  sqlite3_free(a.a); sqlite3_free(b.a);
}

/* vec_distance_dot(a,b) = -(a.b), the negative inner product (smaller is
** nearer, as for the other distances). */
static void vecDotFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  IbVec a, b;
  (void)argc;
  if( ibvecAnyNull(2, argv) ) return;
  if( ibvecArgPair(ctx, "vec_distance_dot", argv, &a, &b) ) return;
  sqlite3_result_double(ctx, -(double)ibvecKernel()->xDot(a.a, b.a, a.n));
  sqlite3_free(a.a); sqlite3_free(b.a);
}

/* vec_normalize(x) -> x / |x| as a float32 blob; a zero vector is an error. */
static void vecNormalizeFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  IbVec v;
  float nn, inv;
  int i;
  (void)argc;
  if( ibvecAnyNull(1, argv) ) return;
  if( ibvecArg(ctx, "vec_normalize", argv[0], &v) ) return;
  nn = ibvecKernel()->xDot(v.a, v.a, v.n);
  if( !(nn>0.0f) || !isfinite(nn) ){
    sqlite3_result_error(ctx, nn>0.0f ? "vec_normalize: the vector's norm overflows float32"
                                      : "vec_normalize: cannot normalise a zero vector", -1);
    sqlite3_free(v.a);
    return;
  }
  inv = (float)(1.0/sqrt((double)nn));
  for(i=0; i<v.n; i++) v.a[i] *= inv;
  sqlite3_result_blob(ctx, v.a, v.n*4, sqlite3_free);
}

/* vec_quantize_i8(x) -> int8 codes (see ibvec_quantize_i8 for the scale). */
static void vecQuantizeI8Func(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  IbVec v;
  int8_t *q;
  float scale;
  (void)argc;
  if( ibvecAnyNull(1, argv) ) return;
  if( ibvecArg(ctx, "vec_quantize_i8", argv[0], &v) ) return;
  q = sqlite3_malloc(v.n);
  if( q==0 ){ sqlite3_free(v.a); sqlite3_result_error_nomem(ctx); return; }
  ibvec_quantize_i8(v.a, v.n, q, &scale);
  sqlite3_result_blob(ctx, q, v.n, sqlite3_free);
  sqlite3_free(v.a);
}

/* vec_quantize_bits(x) -> sign bits, (dims+7)/8 bytes. */
static void vecQuantizeBitsFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  IbVec v;
  uint8_t *b;
  int nb;
  (void)argc;
  if( ibvecAnyNull(1, argv) ) return;
  if( ibvecArg(ctx, "vec_quantize_bits", argv[0], &v) ) return;
  nb = (v.n+7)/8;
  b = sqlite3_malloc(nb);
  if( b==0 ){ sqlite3_free(v.a); sqlite3_result_error_nomem(ctx); return; }
  ibvec_quantize_bits(v.a, v.n, b);
  sqlite3_result_blob(ctx, b, nb, sqlite3_free);
  sqlite3_free(v.a);
}

/* vec_distance_hamming(a,b): differing bits of two equal-length blobs. */
static void vecHammingFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  int na, nb;
  const uint8_t *a, *b;
  (void)argc;
  if( ibvecAnyNull(2, argv) ) return;
  if( sqlite3_value_type(argv[0])!=SQLITE_BLOB || sqlite3_value_type(argv[1])!=SQLITE_BLOB ){
    sqlite3_result_error(ctx, "vec_distance_hamming: both arguments must be bit blobs", -1);
    return;
  }
  a = sqlite3_value_blob(argv[0]); na = sqlite3_value_bytes(argv[0]);
  b = sqlite3_value_blob(argv[1]); nb = sqlite3_value_bytes(argv[1]);
  if( na!=nb ){
    char *z = sqlite3_mprintf("vec_distance_hamming: length mismatch (%d vs %d bytes)", na, nb);
    sqlite3_result_error(ctx, z ? z : "length mismatch", -1);
    sqlite3_free(z);
    return;
  }
  if( na==0 ){
    sqlite3_result_error(ctx, "vec_distance_hamming: empty blob", -1);
    return;
  }
  sqlite3_result_int64(ctx, ibvecHamming(a, b, na));
}

/* The writer helpers: vec_block_i8 / vec_block_scales / vec_block_bits
** (vectors_blob, dim).  The blob holds count vectors of dim float32. */
enum { IBVEC_BLOCK_I8 = 1, IBVEC_BLOCK_SCALES = 2, IBVEC_BLOCK_BITS = 3 };

static void vecBlockFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  int eWhat = (int)(intptr_t)sqlite3_user_data(ctx);
  const char *zFunc = eWhat==IBVEC_BLOCK_I8 ? "vec_block_i8"
                    : eWhat==IBVEC_BLOCK_SCALES ? "vec_block_scales" : "vec_block_bits";
  const unsigned char *p;
  sqlite3_int64 dim, nByte, count, i, j, outBytes, per;
  float *tmp;
  unsigned char *out;
  (void)argc;
  if( ibvecAnyNull(2, argv) ) return;
  if( sqlite3_value_type(argv[0])!=SQLITE_BLOB ){
    char *z = sqlite3_mprintf("%s: the first argument must be a float32 blob", zFunc);
    sqlite3_result_error(ctx, z ? z : zFunc, -1); sqlite3_free(z); return;
  }
  if( sqlite3_value_type(argv[1])!=SQLITE_INTEGER
   || (dim = sqlite3_value_int64(argv[1]))<1 || dim>IBVEC_MAX_DIM ){
    char *z = sqlite3_mprintf("%s: dim must be an integer in 1..%d", zFunc, IBVEC_MAX_DIM);
    sqlite3_result_error(ctx, z ? z : zFunc, -1); sqlite3_free(z); return;
  }
  p = sqlite3_value_blob(argv[0]);
  nByte = sqlite3_value_bytes(argv[0]);
  if( nByte==0 || nByte % (dim*4) ){
    char *z = sqlite3_mprintf("%s: blob length %lld is not a positive multiple of dim*4 (%lld)",
                              zFunc, nByte, dim*4);
    sqlite3_result_error(ctx, z ? z : zFunc, -1); sqlite3_free(z); return;
  }
  count = nByte / (dim*4);
  per = eWhat==IBVEC_BLOCK_I8 ? dim : eWhat==IBVEC_BLOCK_SCALES ? 4 : (dim+7)/8;
  outBytes = per*count;
  tmp = sqlite3_malloc64((sqlite3_uint64)dim*4);
  out = sqlite3_malloc64((sqlite3_uint64)outBytes);
  if( tmp==0 || out==0 ){
    sqlite3_free(tmp); sqlite3_free(out); sqlite3_result_error_nomem(ctx); return;
  }
  for(i=0; i<count; i++){
    float scale;
    memcpy(tmp, p + i*dim*4, (size_t)dim*4);
    if( !ibvecAllFinite(tmp, dim) ) for(j=0; j<dim; j++){
      if( !isfinite(tmp[j]) ){
        char *z = sqlite3_mprintf("%s: vector %lld element %lld is NaN or infinite", zFunc, i, j);
        sqlite3_result_error(ctx, z ? z : zFunc, -1); sqlite3_free(z);
        sqlite3_free(tmp); sqlite3_free(out); return;
      }
    }
    if( eWhat==IBVEC_BLOCK_I8 ){
      ibvec_quantize_i8(tmp, (int)dim, (int8_t*)(out + i*dim), &scale);
    }else if( eWhat==IBVEC_BLOCK_SCALES ){
      scale = ibvecI8Scale(tmp, (int)dim);
      memcpy(out + i*4, &scale, 4);
    }else{
      ibvec_quantize_bits(tmp, (int)dim, out + i*per);
    }
  }
  sqlite3_free(tmp);
  sqlite3_result_blob64(ctx, out, (sqlite3_uint64)outBytes, sqlite3_free);
}

/* ibvec_kernel() -> the active kernel's name. */
static void ibvecKernelFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  (void)argc; (void)argv;
  sqlite3_result_text(ctx, ibvec_kernel_name(), -1, SQLITE_STATIC);
}

/* ibvec_set_kernel(name) -> the kernel now active.  Process-wide. */
static void ibvecSetKernelFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  const char *z;
  (void)argc;
  if( sqlite3_value_type(argv[0])!=SQLITE_TEXT ){
    sqlite3_result_error(ctx, "ibvec_set_kernel: expected 'scalar', 'avx2', 'avx512' or 'auto'", -1);
    return;
  }
  z = (const char*)sqlite3_value_text(argv[0]);
  if( ibvec_set_kernel(z)!=0 ){
    char *zErr = sqlite3_mprintf("ibvec_set_kernel: unknown kernel '%s' or not supported by this CPU "
                                 "(expected 'scalar', 'avx2', 'avx512' or 'auto')", z);
    sqlite3_result_error(ctx, zErr ? zErr : "ibvec_set_kernel: bad kernel", -1);
    sqlite3_free(zErr);
    return;
  }
  sqlite3_result_text(ctx, ibvec_kernel_name(), -1, SQLITE_STATIC);
}

/* ======================================================================
** ibvec_knn: the k-nearest-neighbour table-valued function
** ==================================================================== */

/* Columns of ibvec_knn; the hidden ones are the function arguments. */
#define KNN_BOOK_ID   0
#define KNN_KEY       1
#define KNN_END_PAGE  2
#define KNN_DISTANCE  3
#define KNN_QUERY     4
#define KNN_K         5
#define KNN_SCOPE     6
#define KNN_MODE      7
#define KNN_MODEL     8
#define KNN_NARG      5

enum { KNN_EXACT = 0, KNN_INT8 = 1, KNN_BINARY = 2 };

typedef struct KnnHit KnnHit;
struct KnnHit {
  double dist;            /* distance (approximate while in the pool) */
  sqlite3_int64 blockId;  /* vector_blocks.id */
  sqlite3_int64 key;      /* the chunk index */
  sqlite3_int64 endPage;  /* its end_page */
  int iBook;              /* index into KnnCursor.azBook */
  int idx;                /* position inside the block */
  int iBlk;               /* index into KnnSearch.aBlk */
};

/* A bounded max-heap: keeps the nCap best (smallest) hits. */
typedef struct KnnHeap KnnHeap;
struct KnnHeap {
  KnnHit *a;
  int n, nCap;
};

/* Is x worse (further, or later on a tie) than y? */
static int knnWorse(const KnnHit *x, const KnnHit *y){
  if( x->dist!=y->dist ) return x->dist > y->dist;
  if( x->blockId!=y->blockId ) return x->blockId > y->blockId;
  return x->idx > y->idx;
}

static void knnHeapPush(KnnHeap *h, const KnnHit *hit){
  int i, c;
  if( h->n<h->nCap ){
    i = h->n++;
    while( i>0 ){
      int p = (i-1)/2;
      if( !knnWorse(hit, &h->a[p]) ) break;
      h->a[i] = h->a[p];
      i = p;
    }
    h->a[i] = *hit;
    return;
  }
  if( h->nCap==0 || !knnWorse(&h->a[0], hit) ) return;
  i = 0;
  for(;;){
    c = 2*i+1;
    if( c>=h->n ) break;
    if( c+1<h->n && knnWorse(&h->a[c+1], &h->a[c]) ) c++;
    if( !knnWorse(&h->a[c], hit) ) break;
    h->a[i] = h->a[c];
    i = c;
  }
  h->a[i] = *hit;
}

/* Could a hit at distance d enter the heap?  (A tie may: knnHeapPush then
** decides by block and position, whatever order the blocks come in.) */
static int knnHeapWants(const KnnHeap *h, double d){
  return h->n<h->nCap || d <= h->a[0].dist;
}

static int knnCmpAsc(const void *pa, const void *pb){
  const KnnHit *a = pa, *b = pb;
  if( knnWorse(a, b) ) return 1;
  if( knnWorse(b, a) ) return -1;
  return 0;
}
static int knnCmpBlock(const void *pa, const void *pb){
  const KnnHit *a = pa, *b = pb;
  if( a->blockId!=b->blockId ) return a->blockId < b->blockId ? -1 : 1;
  return a->idx - b->idx;
}

typedef struct KnnScope KnnScope;
struct KnnScope {
  char *zBook;
  sqlite3_int64 maxPage;
};

static int knnCmpScope(const void *pa, const void *pb){
  return strcmp(((const KnnScope*)pa)->zBook, ((const KnnScope*)pb)->zBook);
}

/* A block chosen by the first pass: its rowid, book, page limit, and which
** of its optional columns are usable (lengths checked against count). */
typedef struct KnnBlk KnnBlk;
struct KnnBlk {
  sqlite3_int64 id;
  sqlite3_int64 maxPage;
  int iBook;              /* index into KnnCursor.azBook */
  int count;              /* vectors in the block */
  sqlite3_int64 iFirst;   /* vectors in the blocks before it */
  signed char eI8;        /* vectors_i8: 0 NULL, 1 usable, -1 wrong length */
  signed char eBits;      /* bits: the same */
  unsigned char hasScales;/* scales present with count values */
  unsigned char bScored;  /* binary: its scores are in KnnSearch.aScore */
};

typedef struct KnnVtab KnnVtab;
struct KnnVtab {
  sqlite3_vtab base;
  sqlite3 *db;
  sqlite3_stmt *apStmt[2];  /* first-pass statements, kept: whole table, one book */
};

typedef struct KnnCursor KnnCursor;
struct KnnCursor {
  sqlite3_vtab_cursor base;
  KnnHit *aRow;           /* results, nearest first */
  int nRow, iRow;
  char **azBook;          /* book ids referenced by the blocks searched */
  int nBook, nBookAlloc;
};

/* Everything one search needs. */
typedef struct KnnSearch KnnSearch;
struct KnnSearch {
  KnnVtab *pVtab;
  KnnCursor *pCur;
  const IbKernel *K;
  float *q;               /* the query */
  int dim;
  float qq;               /* q.q */
  double sqq;             /* sqrt(q.q) */
  int k, eMode, nPool;
  const char *zModel;     /* NULL: any model */
  int16_t *q16;           /* the query's int8 codes widened to int16, zero-padded */
  int nQBits;             /* bytes of sign bits per vector */
  int bPrune;             /* exact mode: int8 codes may rule vectors out */
  double pruneNq;         /* |query| in code units: sqrt(q.q) * 127 / max|q_i| */
  double pruneQ1;         /* sum |q16_i| */
  double pruneMargin;     /* float rounding allowance of the exact cosine */
  double *aLow;           /* min-heap of the k largest lower bounds */
  int nLow;
  KnnHit *aCand;          /* pruning: vectors that may be among the k nearest */
  int nCand, nCandAlloc;
  KnnHeap top;            /* the k best, exact distances */
  KnnHeap pool;           /* quantised candidates awaiting re-scoring */
  KnnHit poolBar;         /* the worst of the pool, once compacted */
  int bPoolBar;           /* poolBar is set: only better hits may enter */
  int32_t *aScore;        /* binary: every vector's score, by block (aBlk[].iFirst) */
  int32_t *aHist;         /* binary: how many vectors have each score (+ nHistOff) */
  int nHistOff;           /* the largest |score|: scores run -nHistOff..nHistOff */
  sqlite3_blob *pVecBlob; /* incremental readers of vector_blocks columns */
  sqlite3_blob *pI8Blob;
  sqlite3_blob *pBitBlob;
  sqlite3_blob *pEndBlob;
  sqlite3_blob *pKeyBlob;
  sqlite3_blob *pScaleBlob;
  float *aBuf;            /* scratch: float vectors read from a block */
  float *aDot, *aVV;      /* scratch: kernel outputs */
  unsigned char *aQBuf;   /* scratch: quantised block data */
  sqlite3_int64 nQBufCap; /* capacity of aQBuf (bytes) */
  int nBlockCap;          /* capacity of the per-vector scratch arrays */
  int *aIdx;              /* scratch: indices of the vectors that pass */
  int32_t *aI8Dot, *aI8VV;/* scratch: int8 / bit kernel outputs */
  int32_t *aEnd;          /* scratch: end pages of the block */
  float *aScale;          /* scratch: scales of the block */
  double *aUp;            /* scratch: upper bounds (pruning) */
  KnnBlk *aBlk;           /* blocks to read (phase 1 output) */
  int nBlk, nBlkAlloc;
  char *zErr;
};

#define KNN_CHUNK_BYTES (256*1024)  /* floats read per blob read: L2-sized */

/* Interns a book id; returns its index or -1 (out of memory). */
static int knnInternBook(KnnSearch *s, const char *zBook){
  KnnCursor *c = s->pCur;
  if( c->nBook>0 && strcmp(c->azBook[c->nBook-1], zBook)==0 ) return c->nBook-1;
  if( c->nBook==c->nBookAlloc ){
    int nNew = c->nBookAlloc ? c->nBookAlloc*2 : 16;
    char **az = sqlite3_realloc64(c->azBook, sizeof(char*)*(sqlite3_uint64)nNew);
    if( az==0 ) return -1;
    c->azBook = az; c->nBookAlloc = nNew;
  }
  c->azBook[c->nBook] = sqlite3_mprintf("%s", zBook);
  if( c->azBook[c->nBook]==0 ) return -1;
  return c->nBook++;
}

/* Reads nByte bytes at iOff of column zCol of block id, through the
** incremental blob reader *pp (opened, or moved onto the row, as needed). */
static int knnRead(KnnSearch *s, sqlite3_blob **pp, const char *zCol,
                   sqlite3_int64 id, void *pBuf, int nByte, int iOff){
  int rc = SQLITE_OK;
  if( *pp ){
    rc = sqlite3_blob_reopen(*pp, id);
    if( rc!=SQLITE_OK ){ sqlite3_blob_close(*pp); *pp = 0; }
  }
  if( *pp==0 ){
    rc = sqlite3_blob_open(s->pVtab->db, "main", "vector_blocks", zCol, id, 0, pp);
    if( rc!=SQLITE_OK ){
      s->zErr = sqlite3_mprintf("ibvec_knn: cannot read %s of block %lld: %s",
                                zCol, id, sqlite3_errmsg(s->pVtab->db));
      return rc;
    }
  }
  rc = sqlite3_blob_read(*pp, pBuf, nByte, iOff);
  if( rc!=SQLITE_OK ){
    s->zErr = sqlite3_mprintf("ibvec_knn: reading %s of block %lld: %s", zCol, id,
                              sqlite3_errmsg(s->pVtab->db));
  }
  return rc;
}

/* The same again on the row the reader is already on. */
static int knnReadMore(KnnSearch *s, sqlite3_blob *p, const char *zCol,
                       sqlite3_int64 id, void *pBuf, int nByte, int iOff){
  int rc = sqlite3_blob_read(p, pBuf, nByte, iOff);
  if( rc!=SQLITE_OK ){
    s->zErr = sqlite3_mprintf("ibvec_knn: reading %s of block %lld: %s", zCol, id,
                              sqlite3_errmsg(s->pVtab->db));
  }
  return rc;
}

/* ibvecCosDist with sqrt(a.a) given: the same operations, the same result. */
static double knnCosDist(float dot, double sqq, float bb){
  double den = sqq * sqrt((double)bb);
  if( !(den>0.0) ) return 1.0;
  return 1.0 - (double)dot/den;
}

/* Scores the float vectors aIdx[0..nIdx) of a block exactly into s->top. */
static int knnScoreExact(KnnSearch *s, const KnnBlk *b, const int *aIdx, int nIdx){
  int dim = s->dim, perChunk = KNN_CHUNK_BYTES/(dim*4), i = 0, rc, first = 1;
  if( perChunk<1 ) perChunk = 1;
  while( i<nIdx ){
    /* A run of consecutive passing vectors, at most perChunk long. */
    int start = aIdx[i], n = 1, j;
    while( i+n<nIdx && n<perChunk && aIdx[i+n]==start+n ) n++;
    if( first ){
      rc = knnRead(s, &s->pVecBlob, "vectors", b->id, s->aBuf, n*dim*4, start*dim*4);
      first = 0;
    }else{
      rc = knnReadMore(s, s->pVecBlob, "vectors", b->id, s->aBuf, n*dim*4, start*dim*4);
    }
    if( rc ) return rc;
    s->K->xCosBatch(s->q, s->aBuf, n, dim, s->aDot, s->aVV);
    for(j=0; j<n; j++){
      KnnHit h;
      float dot = s->aDot[j], vv = s->aVV[j];
      /* dot <= 0 gives a distance >= 1: it cannot displace a hit below 1 */
      if( dot<=0.0f && s->top.n==s->top.nCap && s->top.a[0].dist<1.0
       && isfinite(vv) ) continue;
      h.dist = knnCosDist(dot, s->sqq, vv);
      if( isnan(h.dist) || !isfinite(vv) ){
        s->zErr = sqlite3_mprintf("ibvec_knn: block %lld holds a NaN or infinite value", b->id);
        return SQLITE_ERROR;
      }
      if( !knnHeapWants(&s->top, h.dist) ) continue;
      h.blockId = b->id; h.idx = start+j; h.iBook = b->iBook;
      h.iBlk = (int)(b - s->aBlk); h.key = 0; h.endPage = 0;
      knnHeapPush(&s->top, &h);
    }
    i += n;
  }
  return SQLITE_OK;
}

/* Makes the quantised scratch buffer hold at least need bytes. */
static int knnQBuf(KnnSearch *s, sqlite3_int64 need){
  if( need>s->nQBufCap ){
    sqlite3_free(s->aQBuf);
    s->aQBuf = sqlite3_malloc64((sqlite3_uint64)need);
    if( s->aQBuf==0 ){ s->nQBufCap = 0; return SQLITE_NOMEM; }
    s->nQBufCap = need;
  }
  return SQLITE_OK;
}

/* Moves the n-th best hit (0-based, by knnWorse) of a[0..nA) to a[n], the
** better ones before it and the worse after (quickselect). */
static void knnSelect(KnnHit *a, int nA, int n){
  int lo = 0, hi = nA-1;
  while( lo<hi ){
    KnnHit pivot = a[lo + (hi-lo)/2], t;
    int i = lo, j = hi;
    while( i<=j ){
      while( knnWorse(&pivot, &a[i]) ) i++;
      while( knnWorse(&a[j], &pivot) ) j--;
      if( i<=j ){ t = a[i]; a[i] = a[j]; a[j] = t; i++; j--; }
    }
    if( n<=j ) hi = j;
    else if( n>=i ) lo = i;
    else break;
  }
}

/* Quantised candidates are appended to s->pool (room for 2 x nPool); when
** it is full, the nPool best are kept (the same set a bounded heap would
** keep: the order is total) and the worst of them becomes the bar. */
static void knnPoolCompact(KnnSearch *s){
  if( s->pool.n<=s->nPool ) return;
  knnSelect(s->pool.a, s->pool.n, s->nPool-1);
  s->pool.n = s->nPool;
  s->poolBar = s->pool.a[s->nPool-1];
  s->bPoolBar = 1;
}

/* Scores a block's quantised copy (int8 or bits) into the candidate pool. */
static int knnScoreQuant(KnnSearch *s, KnnBlk *b, const int *aIdx, int nIdx){
  int dim = s->dim, i, rc, first = aIdx[0], last = aIdx[nIdx-1];
  int nSpan = last-first+1;
  int per = s->eMode==KNN_INT8 ? dim : s->nQBits;
  /* The quantised column is small: read what spans the passing vectors and
  ** score the whole span in one kernel call (vectors that fail the page
  ** filter inside the span are scored too, and skipped below). */
  rc = knnQBuf(s, (sqlite3_int64)nSpan*per);
  if( rc ) return rc;
  if( s->eMode==KNN_INT8 ){
    rc = knnRead(s, &s->pI8Blob, "vectors_i8", b->id, s->aQBuf, nSpan*per, first*per);
    if( rc ) return rc;
    s->K->xI8Batch(s->q16, (const int8_t*)s->aQBuf, nSpan, dim, s->aI8Dot, s->aI8VV);
  }else{
    rc = knnRead(s, &s->pBitBlob, "bits", b->id, s->aQBuf, nSpan*per, first*per);
    if( rc ) return rc;
    s->K->xBitBatch(s->q16, s->aQBuf, nSpan, per, s->aI8Dot);
    if( s->aScore ){
      /* record the scores (INT32_MIN: filtered out); the pool is taken once
      ** all are known */
      int32_t *aSc = s->aScore + b->iFirst, *aHist = s->aHist + s->nHistOff;
      if( nIdx==b->count ){
        memcpy(aSc, s->aI8Dot, sizeof(int32_t)*(size_t)nIdx);
      }else{
        for(i=0; i<b->count; i++) aSc[i] = INT32_MIN;
        for(i=0; i<nIdx; i++) aSc[aIdx[i]] = s->aI8Dot[aIdx[i]-first];
      }
      for(i=0; i<nIdx; i++) aHist[s->aI8Dot[aIdx[i]-first]]++;
      b->bScored = 1;
      return SQLITE_OK;
    }
  }
  for(i=0; i<nIdx; i++){
    KnnHit h;
    int j = aIdx[i]-first;
    if( s->eMode==KNN_INT8 ){
      float d = (float)s->aI8Dot[j], vv = (float)s->aI8VV[j];
      /* rank by -cos(q8, v8) with q's norm dropped: -d|d|/vv is monotonic
      ** in -d/|v| and needs no square root */
      h.dist = vv>0.0f ? (double)(-d*fabsf(d)/vv) : 0.0;
    }else{
      /* -(q8 . sign(v)) up to a constant: the sum of the query's codes
      ** where v is positive, negated */
      h.dist = -(double)s->aI8Dot[j];
    }
    if( s->bPoolBar && h.dist>s->poolBar.dist ) continue;
    h.blockId = b->id; h.idx = aIdx[i]; h.iBook = b->iBook;
    h.iBlk = (int)(b - s->aBlk); h.key = 0; h.endPage = 0;
    if( s->bPoolBar && !knnWorse(&s->poolBar, &h) ) continue;
    if( s->pool.n==s->pool.nCap ) knnPoolCompact(s);
    s->pool.a[s->pool.n++] = h;
  }
  return SQLITE_OK;
}

/* Binary, second pass: the pool is the nPool best scores; the histogram
** gives the score of the nPool-th, and only vectors at or above it are
** taken (ties at it then settled by block and position, as always). */
static void knnBinaryPool(KnnSearch *s){
  sqlite3_int64 n = 0;
  int thr, i, j;
  for(thr=s->nHistOff; thr>-s->nHistOff; thr--){
    n += s->aHist[thr + s->nHistOff];
    if( n>=s->nPool ) break;
  }
  for(i=0; i<s->nBlk; i++){
    const KnnBlk *b = &s->aBlk[i];
    const int32_t *aSc = s->aScore + b->iFirst;
    if( !b->bScored ) continue;
    for(j=0; j<b->count; j++){
      KnnHit h;
      if( aSc[j]<thr ) continue;  /* also the vectors filtered out: INT32_MIN */
      h.dist = -(double)aSc[j];
      h.blockId = b->id; h.idx = j; h.iBook = b->iBook;
      h.iBlk = i; h.key = 0; h.endPage = 0;
      if( s->bPoolBar && !knnWorse(&s->poolBar, &h) ) continue;
      if( s->pool.n==s->pool.nCap ) knnPoolCompact(s);
      s->pool.a[s->pool.n++] = h;
    }
  }
}

/* Pruning (exact mode): a vector v with int8 codes c (c_i = round(v_i*127/
** max|v|), so v*127/max|v| = c + f with |f_i| <= 1/2) and the query q with
** codes Q (q*127/max|q| = Q + g, |g_i| <= 1/2) have
**   cos(q, v) = (Q+g).(c+f) / (|Q+g| |c+f|),
**   |(Q+g).(c+f) - Q.c| <= (sum|Q_i| + sqrt(dim) |c| + dim/2) / 2,
**   |c| - sqrt(dim)/2 <= |c+f| <= |c| + sqrt(dim)/2,
** and |Q+g| = |q| * 127 / max|q|.  These bound the cosine from above (U)
** and below (L) without reading the float vector.  Once k vectors have
** L >= T, a vector with U < T - margin (margin: the float rounding of the
** exact cosine, far above its worst case) cannot be among the k nearest,
** so it is never read.  The candidates left are scored exactly in float,
** in block order, like every vector of a full scan: the results are the
** same rows with the same distances, bit for bit.  Vectors whose scale is
** outside [1e-16, 1e14] (where float squares could underflow or overflow)
** are always candidates. */
#define KNN_PHI 0.5001  /* 1/2, plus the float rounding of the quantiser */

/* Adds a lower bound to the min-heap of the k largest. */
static void knnLowPush(KnnSearch *s, double x){
  double *a = s->aLow;
  int i, c, n = s->nLow;
  if( n<s->k ){
    i = s->nLow++;
    while( i>0 && a[(i-1)/2]>x ){ a[i] = a[(i-1)/2]; i = (i-1)/2; }
    a[i] = x;
    return;
  }
  if( !(x>a[0]) ) return;
  i = 0;
  for(;;){
    c = 2*i+1;
    if( c>=n ) break;
    if( c+1<n && a[c+1]<a[c] ) c++;
    if( !(a[c]<x) ) break;
    a[i] = a[c]; i = c;
  }
  a[i] = x;
}

/* The pruning threshold: candidates need U >= it. */
static double knnPruneBar(const KnnSearch *s){
  return s->nLow<s->k ? -INFINITY : s->aLow[0] - s->pruneMargin;
}

static int knnScorePrune(KnnSearch *s, const KnnBlk *b, const int *aIdx, int nIdx){
  int dim = s->dim, i, rc, first = aIdx[0], last = aIdx[nIdx-1];
  int nSpan = last-first+1;
  double sqd = sqrt((double)dim), nq = s->pruneNq, bar;
  double e0 = KNN_PHI*s->pruneQ1 + KNN_PHI*KNN_PHI*dim, e1 = KNN_PHI*sqd;
  rc = knnQBuf(s, (sqlite3_int64)nSpan*dim);
  if( rc ) return rc;
  rc = knnRead(s, &s->pI8Blob, "vectors_i8", b->id, s->aQBuf, nSpan*dim, first*dim);
  if( rc ) return rc;
  rc = knnRead(s, &s->pScaleBlob, "scales", b->id, s->aScale, nSpan*4, first*4);
  if( rc ) return rc;
  s->K->xI8Batch(s->q16, (const int8_t*)s->aQBuf, nSpan, dim, s->aI8Dot, s->aI8VV);
  /* upper bounds for the whole span, branch-free (vectorised) */
  {
    const int32_t *restrict aD = s->aI8Dot, *restrict aC = s->aI8VV;
    const float *restrict aS = s->aScale;
    double *restrict aU = s->aUp;
    for(i=0; i<nSpan; i++){
      double cn = sqrt((double)aC[i]);
      double nh = (double)aD[i] + e0 + e1*cn;
      double u = nh / (nq * (cn + (nh>=0.0 ? -e1 : e1)));
      double sc = (double)aS[i];
      /* +inf (always a candidate) when |c| - sqrt(dim)/2 is not positive
      ** or the scale is out of the safe range; selects of constants only */
      double lo = cn>e1 ? -INFINITY : INFINITY;
      lo = sc>=1e-16 ? lo : INFINITY;
      lo = sc<=1e14 ? lo : INFINITY;
      aU[i] = u>lo ? u : lo;
    }
  }
  bar = knnPruneBar(s);
  for(i=0; i<nIdx; i++){
    int j = aIdx[i]-first;
    double u = s->aUp[j], lo;
    KnnHit *h;
    if( u<bar ) continue;
    if( u==INFINITY ){
      lo = -INFINITY;
    }else{
      double cn = sqrt((double)s->aI8VV[j]);
      double nl = (double)s->aI8Dot[j] - e0 - e1*cn;
      lo = nl / (nq * (nl>=0.0 ? cn + e1 : cn - e1));
    }
    knnLowPush(s, lo);
    bar = knnPruneBar(s);
    if( u<bar ) continue;
    if( s->nCand==s->nCandAlloc ){
      /* drop the candidates the bar has passed since, then grow */
      int r, w = 0;
      for(r=0; r<s->nCand; r++) if( s->aCand[r].dist>=bar ) s->aCand[w++] = s->aCand[r];
      s->nCand = w;
      if( w*2>s->nCandAlloc || s->nCandAlloc==0 ){
        int nNew = s->nCandAlloc ? s->nCandAlloc*2 : 1024;
        KnnHit *a = sqlite3_realloc64(s->aCand, sizeof(KnnHit)*(sqlite3_uint64)nNew);
        if( a==0 ) return SQLITE_NOMEM;
        s->aCand = a; s->nCandAlloc = nNew;
      }
    }
    h = &s->aCand[s->nCand++];
    h->dist = u; h->blockId = b->id; h->idx = aIdx[i]; h->iBook = b->iBook;
    h->iBlk = (int)(b - s->aBlk); h->key = 0; h->endPage = 0;
  }
  return SQLITE_OK;
}

/* Scores a[0..n) exactly with the float vectors, into s->top.  The hits
** are grouped by block (a counting sort on the block's place in s->aBlk),
** then by position, and each block's vectors go through one kernel call. */
static int knnRescore(KnnSearch *s, KnnHit *a, int n){
  int i, j, rc, dim = s->dim, perChunk = KNN_CHUNK_BYTES/(dim*4);
  int *aStart;
  KnnHit *aSorted;
  if( n==0 ) return SQLITE_OK;
  if( perChunk<1 ) perChunk = 1;
  aStart = sqlite3_malloc64(sizeof(int)*((sqlite3_uint64)s->nBlk+1));
  aSorted = sqlite3_malloc64(sizeof(KnnHit)*(sqlite3_uint64)n);
  if( aStart==0 || aSorted==0 ){
    sqlite3_free(aStart); sqlite3_free(aSorted); return SQLITE_NOMEM;
  }
  memset(aStart, 0, sizeof(int)*((size_t)s->nBlk+1));
  for(i=0; i<n; i++) aStart[a[i].iBlk+1]++;
  for(i=0; i<s->nBlk; i++) aStart[i+1] += aStart[i];
  for(i=0; i<n; i++) aSorted[aStart[a[i].iBlk]++] = a[i];
  /* aStart[b] is now the end of block b's run; sort each run by position */
  rc = SQLITE_OK;
  for(i=0; i<n && rc==SQLITE_OK; ){
    int end = aStart[aSorted[i].iBlk], m, r;
    sqlite3_int64 id = aSorted[i].blockId;
    for(j=i+1; j<end; j++){
      KnnHit t = aSorted[j];
      int p = j;
      while( p>i && aSorted[p-1].idx>t.idx ){ aSorted[p] = aSorted[p-1]; p--; }
      aSorted[p] = t;
    }
    for(r=i; r<end && rc==SQLITE_OK; r+=m){
      m = end-r < perChunk ? end-r : perChunk;
      for(j=0; j<m && rc==SQLITE_OK; j++){
        float *pDst = s->aBuf + (size_t)j*dim;
        if( r==i && j==0 ){
          rc = knnRead(s, &s->pVecBlob, "vectors", id, pDst, dim*4, aSorted[r+j].idx*dim*4);
        }else{
          rc = knnReadMore(s, s->pVecBlob, "vectors", id, pDst, dim*4, aSorted[r+j].idx*dim*4);
        }
      }
      if( rc ) break;
      s->K->xCosBatch(s->q, s->aBuf, m, dim, s->aDot, s->aVV);
      for(j=0; j<m; j++){
        KnnHit h = aSorted[r+j];
        h.dist = knnCosDist(s->aDot[j], s->sqq, s->aVV[j]);
        if( isnan(h.dist) || !isfinite(s->aVV[j]) ){
          s->zErr = sqlite3_mprintf("ibvec_knn: block %lld holds a NaN or infinite value", id);
          rc = SQLITE_ERROR;
          break;
        }
        if( knnHeapWants(&s->top, h.dist) ) knnHeapPush(&s->top, &h);
      }
    }
    i = end;
  }
  sqlite3_free(aStart); sqlite3_free(aSorted);
  return rc;
}

/* Sizes the per-vector scratch arrays for a block of count vectors. */
static int knnScratch(KnnSearch *s, int count){
  if( count<=s->nBlockCap ) return SQLITE_OK;
  sqlite3_free(s->aIdx); sqlite3_free(s->aEnd); sqlite3_free(s->aScale);
  sqlite3_free(s->aI8Dot); sqlite3_free(s->aI8VV); sqlite3_free(s->aUp);
  s->aIdx = sqlite3_malloc64(sizeof(int)*(sqlite3_uint64)count);
  s->aEnd = sqlite3_malloc64(sizeof(int32_t)*(sqlite3_uint64)count);
  s->aScale = sqlite3_malloc64(sizeof(float)*(sqlite3_uint64)count);
  s->aI8Dot = sqlite3_malloc64(sizeof(int32_t)*(sqlite3_uint64)count);
  s->aI8VV = sqlite3_malloc64(sizeof(int32_t)*(sqlite3_uint64)count);
  s->aUp = sqlite3_malloc64(sizeof(double)*(sqlite3_uint64)count);
  if( !s->aIdx || !s->aEnd || !s->aScale || !s->aI8Dot || !s->aI8VV || !s->aUp ){
    s->nBlockCap = 0; return SQLITE_NOMEM;
  }
  s->nBlockCap = count;
  return SQLITE_OK;
}

/* Phase 2 for one block: the page filter, inside the scan, then scoring. */
static int knnBlock(KnnSearch *s, KnnBlk *b){
  int nIdx = 0, i, rc, count = b->count;
  rc = knnScratch(s, count);
  if( rc ) return rc;
  if( b->maxPage>=INT32_MAX ){
    /* no limit an int32 end page could exceed: every vector passes */
    for(i=0; i<count; i++) s->aIdx[i] = i;
    nIdx = count;
  }else{
    rc = knnRead(s, &s->pEndBlob, "end_pages", b->id, s->aEnd, count*4, 0);
    if( rc ) return rc;
    for(i=0; i<count; i++){
      int32_t e;
      memcpy(&e, &s->aEnd[i], 4);
      if( e<=b->maxPage ) s->aIdx[nIdx++] = i;
    }
  }
  if( nIdx==0 ) return SQLITE_OK;
  if( s->eMode==KNN_INT8 && b->eI8 ){
    if( b->eI8<0 ){
      s->zErr = sqlite3_mprintf("ibvec_knn: block %lld: vectors_i8 has the wrong length", b->id);
      return SQLITE_ERROR;
    }
    return knnScoreQuant(s, b, s->aIdx, nIdx);
  }
  if( s->eMode==KNN_BINARY && b->eBits ){
    if( b->eBits<0 ){
      s->zErr = sqlite3_mprintf("ibvec_knn: block %lld: bits has the wrong length", b->id);
      return SQLITE_ERROR;
    }
    return knnScoreQuant(s, b, s->aIdx, nIdx);
  }
  if( s->bPrune && b->eI8>0 && b->hasScales ) return knnScorePrune(s, b, s->aIdx, nIdx);
  return knnScoreExact(s, b, s->aIdx, nIdx);
}

/* Columns of the first-pass statement. */
enum { BK_ID, BK_BOOK, BK_MODEL, BK_DIM, BK_COUNT, BK_LKEYS, BK_LENDS,
       BK_LVEC, BK_LI8, BK_LSCALES, BK_LBITS };

/* Phase 1: steps the first-pass statement (the row header only: ids, book,
** model, dim, count and the lengths of the blobs, never their content) over
** the candidate blocks, checks each block in scope and records it with its
** page limit in s->aBlk. */
static int knnCollect(KnnSearch *s, sqlite3_stmt *pStmt, sqlite3_int64 maxPage,
                      const KnnScope *aScope, int nScope){
  int rc;
  while( (rc = sqlite3_step(pStmt))==SQLITE_ROW ){
    sqlite3_int64 limit = maxPage, id, dim, count, nI8, nBits;
    const char *zBook = (const char*)sqlite3_column_text(pStmt, BK_BOOK);
    KnnBlk *b;
    if( aScope ){
      KnnScope key, *pHit;
      key.zBook = (char*)zBook;
      if( key.zBook==0 ) continue;
      pHit = bsearch(&key, aScope, (size_t)nScope, sizeof(KnnScope), knnCmpScope);
      if( pHit==0 ) continue;
      limit = pHit->maxPage;
    }
    if( s->zModel ){
      const char *zModel = (const char*)sqlite3_column_text(pStmt, BK_MODEL);
      if( zModel==0 || strcmp(zModel, s->zModel)!=0 ) continue;
    }
    id = sqlite3_column_int64(pStmt, BK_ID);
    dim = sqlite3_column_int64(pStmt, BK_DIM);
    count = sqlite3_column_int64(pStmt, BK_COUNT);
    if( zBook==0 ){
      s->zErr = sqlite3_mprintf("ibvec_knn: block %lld has no book_id", id);
      return SQLITE_ERROR;
    }
    if( dim!=s->dim ){
      s->zErr = sqlite3_mprintf("ibvec_knn: block %lld (book %s) holds %lld-dimensional "
                                "vectors but the query has %d dimensions", id, zBook, dim, s->dim);
      return SQLITE_ERROR;
    }
    if( count<1 || count>IBVEC_MAX_BLOCK
     || sqlite3_column_type(pStmt, BK_LKEYS)!=SQLITE_INTEGER
     || sqlite3_column_int64(pStmt, BK_LKEYS)!=count*8
     || sqlite3_column_int64(pStmt, BK_LENDS)!=count*4
     || sqlite3_column_int64(pStmt, BK_LVEC)!=count*dim*4 ){
      s->zErr = sqlite3_mprintf("ibvec_knn: block %lld is corrupt: count, keys, end_pages "
                                "and vectors disagree", id);
      return SQLITE_ERROR;
    }
    if( s->nBlk==s->nBlkAlloc ){
      int nNew = s->nBlkAlloc ? s->nBlkAlloc*2 : 64;
      KnnBlk *a = sqlite3_realloc64(s->aBlk, sizeof(KnnBlk)*(sqlite3_uint64)nNew);
      if( a==0 ) return SQLITE_NOMEM;
      s->aBlk = a; s->nBlkAlloc = nNew;
    }
    b = &s->aBlk[s->nBlk];
    b->id = id;
    b->maxPage = limit;
    b->count = (int)count;
    b->iFirst = s->nBlk ? s->aBlk[s->nBlk-1].iFirst + s->aBlk[s->nBlk-1].count : 0;
    b->iBook = knnInternBook(s, zBook);
    if( b->iBook<0 ) return SQLITE_NOMEM;
    nI8 = sqlite3_column_int64(pStmt, BK_LI8);
    nBits = sqlite3_column_int64(pStmt, BK_LBITS);
    b->eI8 = sqlite3_column_type(pStmt, BK_LI8)==SQLITE_NULL ? 0 : nI8==count*dim ? 1 : -1;
    b->eBits = sqlite3_column_type(pStmt, BK_LBITS)==SQLITE_NULL ? 0
             : nBits==count*((dim+7)/8) ? 1 : -1;
    b->hasScales = sqlite3_column_type(pStmt, BK_LSCALES)!=SQLITE_NULL
                && sqlite3_column_int64(pStmt, BK_LSCALES)==count*4;
    b->bScored = 0;
    s->nBlk++;
  }
  if( rc!=SQLITE_DONE ){
    s->zErr = sqlite3_mprintf("ibvec_knn: reading vector_blocks: %s",
                              sqlite3_errmsg(s->pVtab->db));
    return rc;
  }
  return SQLITE_OK;
}

/* Phase 2: reads each recorded block through incremental blob readers and
** scores it.  (Reading the blobs while the first-pass statement is still
** open on the same table proved several times slower.) */
static int knnScanBlocks(KnnSearch *s){
  int rc = SQLITE_OK, i;
  for(i=0; i<s->nBlk && rc==SQLITE_OK; i++) rc = knnBlock(s, &s->aBlk[i]);
  return rc;
}

/* Fills in the key and end page of each result from its block. */
static int knnFillHits(KnnSearch *s, KnnHit *a, int n){
  int i, rc;
  sqlite3_int64 cur = -1;
  qsort(a, (size_t)n, sizeof(KnnHit), knnCmpBlock);
  for(i=0; i<n; i++){
    int64_t key;
    int32_t end;
    if( a[i].blockId!=cur ){
      rc = knnRead(s, &s->pKeyBlob, "keys", a[i].blockId, &key, 8, a[i].idx*8);
      if( rc==SQLITE_OK ) rc = knnRead(s, &s->pEndBlob, "end_pages", a[i].blockId, &end, 4, a[i].idx*4);
      cur = a[i].blockId;
    }else{
      rc = knnReadMore(s, s->pKeyBlob, "keys", a[i].blockId, &key, 8, a[i].idx*8);
      if( rc==SQLITE_OK ) rc = knnReadMore(s, s->pEndBlob, "end_pages", a[i].blockId, &end, 4, a[i].idx*4);
    }
    if( rc ) return rc;
    a[i].key = key; a[i].endPage = end;
  }
  return SQLITE_OK;
}

/* Parses the scope argument: NULL (all), or {"book": max_end_page|null}. */
static int knnParseScope(sqlite3_value *pVal, KnnScope **paScope, int *pnScope,
                         char **pzErr){
  const char *z;
  struct json_tokener *tok;
  json_object *pObj;
  int n = 0, rc = SQLITE_ERROR;
  KnnScope *a = 0;

  *paScope = 0; *pnScope = -1;
  if( sqlite3_value_type(pVal)==SQLITE_NULL ) return SQLITE_OK;
  if( sqlite3_value_type(pVal)!=SQLITE_TEXT ){
    *pzErr = sqlite3_mprintf("ibvec_knn: scope must be NULL or a JSON object "
                             "{\"book_id\": max_end_page or null, ...}");
    return SQLITE_ERROR;
  }
  z = (const char*)sqlite3_value_text(pVal);
  if( z==0 ) return SQLITE_NOMEM;
  tok = json_tokener_new();
  if( tok==0 ) return SQLITE_NOMEM;
  pObj = json_tokener_parse_ex(tok, z, sqlite3_value_bytes(pVal));
  if( pObj==0 || json_tokener_get_error(tok)!=json_tokener_success
   || !json_object_is_type(pObj, json_type_object) ){
    *pzErr = sqlite3_mprintf("ibvec_knn: scope must be a JSON object "
                             "{\"book_id\": max_end_page or null, ...}");
    goto done;
  }
  {
    size_t end = json_tokener_get_parse_end(tok), nz = (size_t)sqlite3_value_bytes(pVal);
    for(; end<nz; end++){
      if( z[end]!=' ' && z[end]!='\t' && z[end]!='\n' && z[end]!='\r' ){
        *pzErr = sqlite3_mprintf("ibvec_knn: malformed scope JSON: text after the object");
        goto done;
      }
    }
  }
  a = sqlite3_malloc64(sizeof(KnnScope)*((sqlite3_uint64)json_object_object_length(pObj)+1));
  if( a==0 ){ rc = SQLITE_NOMEM; goto done; }
  {
    json_object_object_foreach(pObj, zKey, pV){
      sqlite3_int64 lim;
      if( pV==0 || json_object_is_type(pV, json_type_null) ){
        lim = INT64_MAX;
      }else if( json_object_is_type(pV, json_type_int) ){
        lim = json_object_get_int64(pV);
      }else{
        *pzErr = sqlite3_mprintf("ibvec_knn: scope value for book \"%s\" must be an "
                                 "integer page or null", zKey);
        goto done;
      }
      a[n].zBook = sqlite3_mprintf("%s", zKey);
      if( a[n].zBook==0 ){ rc = SQLITE_NOMEM; goto done; }
      a[n].maxPage = lim;
      n++;
    }
  }
  qsort(a, (size_t)n, sizeof(KnnScope), knnCmpScope);
  rc = SQLITE_OK;
done:
  if( pObj ) json_object_put(pObj);
  json_tokener_free(tok);
  if( rc!=SQLITE_OK ){
    int i;
    for(i=0; i<n; i++) sqlite3_free(a[i].zBook);
    sqlite3_free(a);
    return rc;
  }
  *paScope = a; *pnScope = n;
  return SQLITE_OK;
}

/* Parses mode: 'exact' | 'int8' | 'binary', optionally ':POOL'. */
static int knnParseMode(sqlite3_value *pVal, int k, int *peMode, int *pnPool,
                        char **pzErr){
  const char *z, *zColon;
  size_t nName;
  *peMode = KNN_EXACT; *pnPool = 0;
  if( pVal==0 || sqlite3_value_type(pVal)==SQLITE_NULL ) return SQLITE_OK;
  if( sqlite3_value_type(pVal)!=SQLITE_TEXT ) goto bad;
  z = (const char*)sqlite3_value_text(pVal);
  if( z==0 ) return SQLITE_NOMEM;
  zColon = strchr(z, ':');
  nName = zColon ? (size_t)(zColon-z) : strlen(z);
  if( nName==5 && strncmp(z, "exact", 5)==0 && !zColon ){ *peMode = KNN_EXACT; return SQLITE_OK; }
  if( nName==4 && strncmp(z, "int8", 4)==0 ){
    *peMode = KNN_INT8;
    *pnPool = k*8 > 64 ? k*8 : 64;
  }else if( nName==6 && strncmp(z, "binary", 6)==0 ){
    *peMode = KNN_BINARY;
    *pnPool = -(k*64 > 1024 ? k*64 : 1024);  /* negative: scaled to the scope */
  }else{
    goto bad;
  }
  if( zColon ){
    char *zEnd = 0;
    long v = strtol(zColon+1, &zEnd, 10);
    if( zColon[1]==0 || *zEnd!=0 || v<k || v>IBVEC_MAX_POOL ){
      *pzErr = sqlite3_mprintf("ibvec_knn: mode '%s': the pool size after ':' must be "
                               "an integer in k..%d", z, IBVEC_MAX_POOL);
      return SQLITE_ERROR;
    }
    *pnPool = (int)v;
  }
  if( *pnPool > IBVEC_MAX_POOL ) *pnPool = IBVEC_MAX_POOL;
  if( *pnPool < -IBVEC_MAX_POOL ) *pnPool = -IBVEC_MAX_POOL;
  return SQLITE_OK;
bad:
  *pzErr = sqlite3_mprintf("ibvec_knn: mode must be 'exact', 'int8' or 'binary' "
                           "(optionally followed by ':POOL')");
  return SQLITE_ERROR;
}

static int knnConnect(sqlite3 *db, void *pAux, int argc, const char *const*argv,
                      sqlite3_vtab **ppVtab, char **pzErr){
  KnnVtab *p;
  int rc;
  (void)pAux; (void)argc; (void)argv; (void)pzErr;
  rc = sqlite3_declare_vtab(db,
      "CREATE TABLE x(book_id TEXT, key INTEGER, end_page INTEGER, distance REAL,"
      " query HIDDEN, k HIDDEN, scope HIDDEN, mode HIDDEN, model HIDDEN)");
  if( rc!=SQLITE_OK ) return rc;
  p = sqlite3_malloc(sizeof(*p));
  if( p==0 ) return SQLITE_NOMEM;
  memset(p, 0, sizeof(*p));
  p->db = db;
  sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS);
  *ppVtab = &p->base;
  return SQLITE_OK;
}

static int knnDisconnect(sqlite3_vtab *pVtab){
  KnnVtab *p = (KnnVtab*)pVtab;
  sqlite3_finalize(p->apStmt[0]);
  sqlite3_finalize(p->apStmt[1]);
  sqlite3_free(pVtab);
  return SQLITE_OK;
}

/* idxNum bit i set: hidden argument i (query, k, scope, mode, model) given. */
static int knnBestIndex(sqlite3_vtab *pVtab, sqlite3_index_info *pInfo){
  int i, aIdx[KNN_NARG], mask = 0, n = 0;
  (void)pVtab;
  for(i=0; i<KNN_NARG; i++) aIdx[i] = -1;
  for(i=0; i<pInfo->nConstraint; i++){
    const struct sqlite3_index_constraint *c = &pInfo->aConstraint[i];
    int arg = c->iColumn - KNN_QUERY;
    if( arg<0 || arg>=KNN_NARG ) continue;
    if( c->op!=SQLITE_INDEX_CONSTRAINT_EQ ) continue;
    if( !c->usable ){
      if( arg==0 ) return SQLITE_CONSTRAINT;  /* the query must be known */
      continue;
    }
    aIdx[arg] = i;
  }
  for(i=0; i<KNN_NARG; i++){
    if( aIdx[i]<0 ) continue;
    mask |= 1<<i;
    pInfo->aConstraintUsage[aIdx[i]].argvIndex = ++n;
    pInfo->aConstraintUsage[aIdx[i]].omit = 1;
  }
  pInfo->idxNum = mask;
  if( mask & 1 ){
    pInfo->estimatedCost = 1000.0;
    pInfo->estimatedRows = 10;
  }else{
    pInfo->estimatedCost = 1e18;
  }
  if( pInfo->nOrderBy==1 && pInfo->aOrderBy[0].iColumn==KNN_DISTANCE
   && !pInfo->aOrderBy[0].desc ){
    pInfo->orderByConsumed = 1;
  }
  return SQLITE_OK;
}

static int knnOpen(sqlite3_vtab *pVtab, sqlite3_vtab_cursor **ppCur){
  KnnCursor *c = sqlite3_malloc(sizeof(*c));
  (void)pVtab;
  if( c==0 ) return SQLITE_NOMEM;
  memset(c, 0, sizeof(*c));
  *ppCur = &c->base;
  return SQLITE_OK;
}

static void knnReset(KnnCursor *c){
  int i;
  for(i=0; i<c->nBook; i++) sqlite3_free(c->azBook[i]);
  sqlite3_free(c->azBook);
  sqlite3_free(c->aRow);
  c->azBook = 0; c->nBook = c->nBookAlloc = 0;
  c->aRow = 0; c->nRow = c->iRow = 0;
}

static int knnClose(sqlite3_vtab_cursor *pCur){
  knnReset((KnnCursor*)pCur);
  sqlite3_free(pCur);
  return SQLITE_OK;
}

static int knnFilter(sqlite3_vtab_cursor *pCursor, int idxNum, const char *idxStr,
                     int argc, sqlite3_value **argv){
  KnnCursor *pCur = (KnnCursor*)pCursor;
  KnnVtab *pVtab = (KnnVtab*)pCursor->pVtab;
  sqlite3_value *aArg[KNN_NARG] = {0, 0, 0, 0, 0};
  KnnSearch s;
  KnnScope *aScope = 0;
  int nScope = -1, rc = SQLITE_OK, i, j = 0;
  sqlite3_stmt *pStmt = 0;
  IbVec qv = {0, 0};
  (void)idxStr;

  knnReset(pCur);
  memset(&s, 0, sizeof(s));
  s.pVtab = pVtab; s.pCur = pCur; s.K = ibvecKernel();
  for(i=0; i<KNN_NARG; i++){
    if( (idxNum & (1<<i)) && j<argc ) aArg[i] = argv[j++];
  }

  /* query */
  if( aArg[0]==0 ){
    s.zErr = sqlite3_mprintf("ibvec_knn: missing query argument: "
                             "use ibvec_knn(query, k, scope, mode, model)");
    rc = SQLITE_ERROR; goto done;
  }
  rc = ibvecParseValue("ibvec_knn", aArg[0], &qv, &s.zErr);
  if( rc ) goto done;
  s.q = qv.a; s.dim = qv.n;
  s.qq = s.K->xDot(s.q, s.q, s.dim);

  /* k */
  s.k = 10;
  if( aArg[1] ){
    sqlite3_int64 k;
    if( sqlite3_value_type(aArg[1])!=SQLITE_INTEGER
     || (k = sqlite3_value_int64(aArg[1]))<1 || k>IBVEC_MAX_K ){
      s.zErr = sqlite3_mprintf("ibvec_knn: k must be an integer in 1..%d", IBVEC_MAX_K);
      rc = SQLITE_ERROR; goto done;
    }
    s.k = (int)k;
  }

  /* scope */
  if( aArg[2] ){
    rc = knnParseScope(aArg[2], &aScope, &nScope, &s.zErr);
    if( rc ) goto done;
  }

  /* mode */
  rc = knnParseMode(aArg[3], s.k, &s.eMode, &s.nPool, &s.zErr);
  if( rc ) goto done;

  /* model */
  if( aArg[4] && sqlite3_value_type(aArg[4])!=SQLITE_NULL ){
    if( sqlite3_value_type(aArg[4])!=SQLITE_TEXT ){
      s.zErr = sqlite3_mprintf("ibvec_knn: model must be NULL or text");
      rc = SQLITE_ERROR; goto done;
    }
    s.zModel = (const char*)sqlite3_value_text(aArg[4]);
  }

  /* buffers */
  {
    int perChunk = KNN_CHUNK_BYTES/(s.dim*4);
    if( perChunk<1 ) perChunk = 1;
    s.aBuf = sqlite3_malloc64((sqlite3_uint64)perChunk*s.dim*4);
    s.aDot = sqlite3_malloc64(sizeof(float)*(sqlite3_uint64)perChunk);
    s.aVV = sqlite3_malloc64(sizeof(float)*(sqlite3_uint64)perChunk);
    s.top.a = sqlite3_malloc64(sizeof(KnnHit)*(sqlite3_uint64)s.k);
    s.top.nCap = s.k;
    if( !s.aBuf || !s.aDot || !s.aVV || !s.top.a ){
      rc = SQLITE_NOMEM; goto done;
    }
    s.sqq = sqrt((double)s.qq);
    /* the query's int8 codes, for int8 and binary scoring and for pruning */
    {
      float mq = 0.0f, scale;
      int8_t *q8;
      int nQ;
      s.nQBits = (s.dim+7)/8;
      nQ = s.nQBits*8 > s.dim ? s.nQBits*8 : s.dim;
      nQ = (nQ+31) & ~31;
      for(i=0; i<s.dim; i++){ float a = fabsf(s.q[i]); mq = a>mq ? a : mq; }
      q8 = sqlite3_malloc(s.dim);
      s.q16 = sqlite3_malloc64(sizeof(int16_t)*(sqlite3_uint64)nQ);
      if( q8==0 || s.q16==0 ){ sqlite3_free(q8); rc = SQLITE_NOMEM; goto done; }
      memset(s.q16, 0, sizeof(int16_t)*(size_t)nQ);
      ibvec_quantize_i8(s.q, s.dim, q8, &scale);
      for(i=0; i<s.dim; i++){ s.q16[i] = q8[i]; s.pruneQ1 += abs(q8[i]); }
      sqlite3_free(q8);
      /* pruning needs a query whose squares neither underflow nor overflow */
      if( s.eMode==KNN_EXACT && mq>=1e-14f && mq<=1e14f ){
        s.bPrune = 1;
        s.pruneNq = s.sqq * 127.0 / (double)mq;
        s.pruneMargin = 1e-4 + 8.0*(s.dim/16 + 8)*ldexp(1.0, -24);
        s.aLow = sqlite3_malloc64(sizeof(double)*(sqlite3_uint64)s.k);
        if( s.aLow==0 ){ rc = SQLITE_NOMEM; goto done; }
      }
    }
  }

  /* the scan: collect the blocks in scope, then read them by rowid */
  {
    int perBook = nScope>=0 && nScope<=256;
    pStmt = pVtab->apStmt[perBook];
    if( pStmt==0 ){
      rc = sqlite3_prepare_v3(pVtab->db, perBook
          ? "SELECT id, book_id, model, dim, count, length(keys), length(end_pages),"
            " length(vectors), length(vectors_i8), length(scales), length(bits)"
            " FROM vector_blocks WHERE book_id=?1 ORDER BY id"
          : "SELECT id, book_id, model, dim, count, length(keys), length(end_pages),"
            " length(vectors), length(vectors_i8), length(scales), length(bits)"
            " FROM vector_blocks ORDER BY id", -1, SQLITE_PREPARE_PERSISTENT, &pStmt, 0);
      if( rc ){
        s.zErr = sqlite3_mprintf("ibvec_knn: cannot read the vector_blocks table: %s",
                                 sqlite3_errmsg(pVtab->db));
        pStmt = 0;
        goto done;
      }
      pVtab->apStmt[perBook] = pStmt;
    }
    if( perBook ){
      for(i=0; i<nScope && rc==SQLITE_OK; i++){
        sqlite3_bind_text(pStmt, 1, aScope[i].zBook, -1, SQLITE_STATIC);
        rc = knnCollect(&s, pStmt, aScope[i].maxPage, 0, 0);
        sqlite3_reset(pStmt);
      }
      sqlite3_clear_bindings(pStmt);
    }else{
      rc = knnCollect(&s, pStmt, INT64_MAX, aScope, nScope);
      sqlite3_reset(pStmt);
    }
    pStmt = 0;
    if( rc ) goto done;
    if( s.eMode!=KNN_EXACT ){
      if( s.nPool<0 ){
        /* binary's default pool grows with the vectors in scope (1/128 of
        ** them), so its recall does not fall as the library grows */
        sqlite3_int64 nVec = 0, nDefault = -s.nPool;
        for(i=0; i<s.nBlk; i++) nVec += s.aBlk[i].count;
        if( nVec/128 > nDefault ) nDefault = nVec/128;
        s.nPool = (int)(nDefault > IBVEC_MAX_POOL ? IBVEC_MAX_POOL : nDefault);
      }
      s.pool.a = sqlite3_malloc64(sizeof(KnnHit)*2*(sqlite3_uint64)s.nPool);
      s.pool.nCap = 2*s.nPool;
      if( s.pool.a==0 ){ rc = SQLITE_NOMEM; goto done; }
    }
    if( s.eMode==KNN_BINARY && s.nBlk>0 && s.pruneQ1<=(1<<20) ){
      /* binary scores are integers in -sum|q_i|..sum|q_i|: two passes over
      ** the scores (a histogram, then the pool) instead of a growing pool */
      const KnnBlk *pLast = &s.aBlk[s.nBlk-1];
      sqlite3_int64 nVec = pLast->iFirst + pLast->count;
      s.nHistOff = (int)s.pruneQ1;
      s.aScore = sqlite3_malloc64(sizeof(int32_t)*(sqlite3_uint64)nVec);
      s.aHist = sqlite3_malloc64(sizeof(int32_t)*(2*(sqlite3_uint64)s.nHistOff+1));
      if( s.aScore==0 || s.aHist==0 ){ rc = SQLITE_NOMEM; goto done; }
      memset(s.aHist, 0, sizeof(int32_t)*(2*(size_t)s.nHistOff+1));
    }
    rc = knnScanBlocks(&s);
    if( rc==SQLITE_OK && s.aScore ) knnBinaryPool(&s);
    if( rc ) goto done;
  }
  if( s.eMode!=KNN_EXACT ){
    knnPoolCompact(&s);
    rc = knnRescore(&s, s.pool.a, s.pool.n);
    if( rc ) goto done;
  }else if( s.nCand>0 ){
    /* the pruning candidates the final bar leaves */
    double bar = knnPruneBar(&s);
    int r, w = 0;
    for(r=0; r<s.nCand; r++) if( s.aCand[r].dist>=bar ) s.aCand[w++] = s.aCand[r];
    rc = knnRescore(&s, s.aCand, w);
    if( rc ) goto done;
  }
  rc = knnFillHits(&s, s.top.a, s.top.n);
  if( rc ) goto done;

  /* the results, nearest first */
  qsort(s.top.a, (size_t)s.top.n, sizeof(KnnHit), knnCmpAsc);
  pCur->aRow = s.top.a; s.top.a = 0;
  pCur->nRow = s.top.n;
  pCur->iRow = 0;

done:
  if( s.pVecBlob ) sqlite3_blob_close(s.pVecBlob);
  if( s.pI8Blob ) sqlite3_blob_close(s.pI8Blob);
  if( s.pBitBlob ) sqlite3_blob_close(s.pBitBlob);
  if( s.pEndBlob ) sqlite3_blob_close(s.pEndBlob);
  if( s.pKeyBlob ) sqlite3_blob_close(s.pKeyBlob);
  if( s.pScaleBlob ) sqlite3_blob_close(s.pScaleBlob);
  if( aScope ){
    for(i=0; i<nScope; i++) sqlite3_free(aScope[i].zBook);
    sqlite3_free(aScope);
  }
  sqlite3_free(qv.a);
  sqlite3_free(s.aBuf); sqlite3_free(s.aDot); sqlite3_free(s.aVV);
  sqlite3_free(s.aIdx); sqlite3_free(s.aEnd); sqlite3_free(s.aScale);
  sqlite3_free(s.aI8Dot); sqlite3_free(s.aI8VV); sqlite3_free(s.aUp);
  sqlite3_free(s.aQBuf); sqlite3_free(s.q16);
  sqlite3_free(s.aLow); sqlite3_free(s.aCand);
  sqlite3_free(s.aScore); sqlite3_free(s.aHist);
  sqlite3_free(s.top.a); sqlite3_free(s.pool.a); sqlite3_free(s.aBlk);
  if( rc!=SQLITE_OK ){
    knnReset(pCur);
    sqlite3_free(pVtab->base.zErrMsg);
    pVtab->base.zErrMsg = s.zErr ? s.zErr : sqlite3_mprintf("ibvec_knn: %s", sqlite3_errstr(rc));
    return rc==SQLITE_NOMEM ? SQLITE_NOMEM : SQLITE_ERROR;
  }
  sqlite3_free(s.zErr);
  return SQLITE_OK;
}

static int knnNext(sqlite3_vtab_cursor *pCur){
  ((KnnCursor*)pCur)->iRow++;
  return SQLITE_OK;
}

static int knnEof(sqlite3_vtab_cursor *pCur){
  KnnCursor *c = (KnnCursor*)pCur;
  return c->iRow>=c->nRow;
}

static int knnColumn(sqlite3_vtab_cursor *pCur, sqlite3_context *ctx, int i){
  KnnCursor *c = (KnnCursor*)pCur;
  const KnnHit *h = &c->aRow[c->iRow];
  switch( i ){
    case KNN_BOOK_ID:  sqlite3_result_text(ctx, c->azBook[h->iBook], -1, SQLITE_TRANSIENT); break;
    case KNN_KEY:      sqlite3_result_int64(ctx, h->key); break;
    case KNN_END_PAGE: sqlite3_result_int64(ctx, h->endPage); break;
    case KNN_DISTANCE: sqlite3_result_double(ctx, h->dist); break;
    default:           sqlite3_result_null(ctx); break;
  }
  return SQLITE_OK;
}

static int knnRowid(sqlite3_vtab_cursor *pCur, sqlite_int64 *pRowid){
  *pRowid = ((KnnCursor*)pCur)->iRow + 1;
  return SQLITE_OK;
}

static sqlite3_module knnModule = {
  0,              /* iVersion */
  0,              /* xCreate: eponymous-only */
  knnConnect,
  knnBestIndex,
  knnDisconnect,
  0,              /* xDestroy */
  knnOpen,
  knnClose,
  knnFilter,
  knnNext,
  knnEof,
  knnColumn,
  knnRowid,
  0, 0, 0, 0, 0, 0, 0  /* xUpdate .. xRename; later members zero */
};

/* ======================================================================
** Registration
** ==================================================================== */

#ifdef _WIN32
__declspec(dllexport)
#endif
int sqlite3_ibvec_init(sqlite3 *db, char **pzErrMsg, const sqlite3_api_routines *pApi){
  static const struct {
    const char *zName;
    int nArg;
    int flags;
    void *pUser;
    void (*xFunc)(sqlite3_context*, int, sqlite3_value**);
  } aFunc[] = {
    { "vec_f32",              1, 0, 0, vecF32Func },
    { "vec_json",             1, 0, 0, vecJsonFunc },
    { "vec_dims",             1, 0, 0, vecDimsFunc },
    { "vec_distance_cosine",  2, 0, 0, vecCosineFunc },
    { "vec_distance_l2",      2, 0, 0, vecL2Func },
    { "vec_distance_dot",     2, 0, 0, vecDotFunc },
    { "vec_normalize",        1, 0, 0, vecNormalizeFunc },
    { "vec_quantize_i8",      1, 0, 0, vecQuantizeI8Func },
    { "vec_quantize_bits",    1, 0, 0, vecQuantizeBitsFunc },
    { "vec_distance_hamming", 2, 0, 0, vecHammingFunc },
    { "vec_block_i8",         2, 0, (void*)(intptr_t)IBVEC_BLOCK_I8, vecBlockFunc },
    { "vec_block_scales",     2, 0, (void*)(intptr_t)IBVEC_BLOCK_SCALES, vecBlockFunc },
    { "vec_block_bits",       2, 0, (void*)(intptr_t)IBVEC_BLOCK_BITS, vecBlockFunc },
    { "ibvec_kernel",         0, 1, 0, ibvecKernelFunc },
    { "ibvec_set_kernel",     1, 2, 0, ibvecSetKernelFunc },
  };
  int rc = SQLITE_OK;
  size_t i;
  SQLITE_EXTENSION_INIT2(pApi);
  (void)pApi;
  if( db==0 ) return SQLITE_MISUSE;
  for(i=0; i<sizeof(aFunc)/sizeof(aFunc[0]) && rc==SQLITE_OK; i++){
    int flags = SQLITE_UTF8;
    if( aFunc[i].flags==0 ) flags |= SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS;
    else if( aFunc[i].flags==1 ) flags |= SQLITE_INNOCUOUS;
    else flags |= SQLITE_DIRECTONLY;
    rc = sqlite3_create_function(db, aFunc[i].zName, aFunc[i].nArg, flags,
                                 aFunc[i].pUser, aFunc[i].xFunc, 0, 0);
  }
  if( rc==SQLITE_OK ) rc = sqlite3_create_module(db, "ibvec_knn", &knnModule, 0);
  if( rc!=SQLITE_OK && pzErrMsg ){
    *pzErrMsg = sqlite3_mprintf("ibvec: registration failed: %s", sqlite3_errmsg(db));
  }
  return rc;
}
