/*
** simd.c -- the CPU-feature dispatcher and the int8 quantiser shared by
** CKernels and CIBVec (see include/ib_simd.h).
**
** The CPU is asked once; the answer is a small bit set kept in an atomic
** (a second thread asking at the same time computes the same bits).
*/
#include "ib_simd.h"

#include <math.h>
#include <string.h>
#ifdef __AVX2__
# include <immintrin.h>
#endif

#if defined(__x86_64__) || defined(__i386__)
# define IB_X86 1
#endif

enum { CPU_KNOWN = 1, CPU_AVX2 = 2, CPU_AVX512 = 4, CPU_VNNI = 8, CPU_BF16 = 16 };

static int cpuBits = 0;

/* Asks the CPU (x86 only; elsewhere only the scalar level exists). */
static int cpuDetect(void){
  int bits = CPU_KNOWN;
#ifdef IB_X86
  __builtin_cpu_init();
  if( __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ){
    bits |= CPU_AVX2;
    if( __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512dq")
     && __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") ){
      bits |= CPU_AVX512;
      if( __builtin_cpu_supports("avx512vnni") ) bits |= CPU_VNNI;
      if( __builtin_cpu_supports("avx512bf16") ) bits |= CPU_BF16;
    }
  }
#endif
  return bits;
}

static int cpuFeatures(void){
  int bits = __atomic_load_n(&cpuBits, __ATOMIC_ACQUIRE);
  if( bits==0 ){
    bits = cpuDetect();
    __atomic_store_n(&cpuBits, bits, __ATOMIC_RELEASE);
  }
  return bits;
}

int ib_cpu_isa(void){
  int bits = cpuFeatures();
  if( bits & CPU_AVX512 ) return IB_ISA_AVX512;
  if( bits & CPU_AVX2 ) return IB_ISA_AVX2;
  return IB_ISA_SCALAR;
}

int ib_cpu_has_vnni(void){ return (cpuFeatures() & CPU_VNNI)!=0; }
int ib_cpu_has_bf16(void){ return (cpuFeatures() & CPU_BF16)!=0; }

int ib_cpu_isa_named(const char *z){
  int isa;
  if( z==0 || strcmp(z, "auto")==0 ) return ib_cpu_isa();
  if( strcmp(z, "scalar")==0 ) isa = IB_ISA_SCALAR;
  else if( strcmp(z, "avx2")==0 ) isa = IB_ISA_AVX2;
  else if( strcmp(z, "avx512")==0 ) isa = IB_ISA_AVX512;
  else return -1;
  return isa<=ib_cpu_isa() ? isa : -1;
}

const char *ib_cpu_isa_name(int isa){
  return isa==IB_ISA_AVX512 ? "avx512" : isa==IB_ISA_AVX2 ? "avx2" : "scalar";
}

/* The largest |x[i]|, NaNs ignored. vmaxps(a, m) is "a>m ? a : m" lane by lane,
** the scalar rule, and a maximum does not depend on the order it is taken in,
** so the eight lanes give the scalar loop's answer bit for bit (the compiler
** will not vectorise that loop itself: it cannot reorder float compares). */
static float maxAbs(const float *x, int dim){
  float mx = 0.0f;
  int i = 0;
#ifdef __AVX2__
  if( dim>=8 ){
    const __m256 sign = _mm256_set1_ps(-0.0f);
    __m256 m0 = _mm256_setzero_ps(), m1 = _mm256_setzero_ps();
    for(; i+16<=dim; i+=16){
      m0 = _mm256_max_ps(_mm256_andnot_ps(sign, _mm256_loadu_ps(x+i)), m0);
      m1 = _mm256_max_ps(_mm256_andnot_ps(sign, _mm256_loadu_ps(x+i+8)), m1);
    }
    for(; i+8<=dim; i+=8) m0 = _mm256_max_ps(_mm256_andnot_ps(sign, _mm256_loadu_ps(x+i)), m0);
    {
      float lanes[8];
      int j;
      _mm256_storeu_ps(lanes, _mm256_max_ps(m0, m1));
      for(j=0; j<8; j++) mx = lanes[j]>mx ? lanes[j] : mx;
    }
  }
#endif
  for(; i<dim; i++){ float a = fabsf(x[i]); mx = a>mx ? a : mx; }
  return mx;
}

float ib_scale_i8(const float *x, int dim){
  return maxAbs(x, dim) / 127.0f;
}

void ib_quantize_i8(const float *x, int dim, int8_t *codes, float *scale){
  float mx = maxAbs(x, dim);
  int i;
  if( scale ) *scale = mx / 127.0f;
  if( !(mx>0.0f) ){
    if( dim>0 ) memset(codes, 0, (size_t)dim);
    if( scale ) *scale = 0.0f;
    return;
  }
  for(i=0; i<dim; i++){
    /* x/mx is in [-1, 1] even when mx is subnormal (127/mx could overflow);
    ** branch-free: clamp, then round half to even */
    float t = x[i]/mx*127.0f;
    t = t>127.0f ? 127.0f : t;
    t = t<-127.0f ? -127.0f : t;
    t = t==t ? t : 0.0f;             /* a NaN (callers check, but rintf(NaN) to int is undefined) */
    codes[i] = (int8_t)(int)rintf(t);
  }
}
