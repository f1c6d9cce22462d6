/*
** ib_simd.h -- what the C kernels of ib share: one CPU-feature dispatcher
** and the one int8 quantiser.
**
** WHAT.  ib_cpu_*: which instruction sets the CPU runs (detected once, with
** __builtin_cpu_supports) and the names "scalar", "avx2", "avx512", "auto"
** by which a kernel set is chosen or forced.  ib_quantize_i8: one vector to
** int8 codes with one symmetric scale.
**
** WHY.  The encoder's kernels (CKernels) and the vector extension (CIBVec)
** each chose their instruction set with their own tests of the CPU; the
** window codes (IBModel, Swift) and ibvec's vectors_i8 each had their own
** rounding.  One place for each means one answer for each.
**
** Both CKernels and CIBVec depend on this target; scripts/build-ibvec
** compiles it into the loadable ibvec.so as well.
*/
#ifndef IB_SIMD_H
#define IB_SIMD_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Instruction-set levels, narrowest first.  AVX2 means AVX2 + FMA;
** AVX-512 means F, DQ, BW and VL (with AVX2 + FMA). */
enum { IB_ISA_SCALAR = 0, IB_ISA_AVX2 = 1, IB_ISA_AVX512 = 2 };

/* The widest level the CPU runs. */
int ib_cpu_isa(void);

/* Whether the CPU has AVX-512 VNNI / AVX-512 BF16 (besides AVX-512). */
int ib_cpu_has_vnni(void);
int ib_cpu_has_bf16(void);

/* The level named z: "scalar", "avx2", "avx512", or "auto" (and NULL) for
** ib_cpu_isa().  -1 when the name is unknown or the CPU cannot run it. */
int ib_cpu_isa_named(const char *z);

/* "scalar", "avx2" or "avx512". */
const char *ib_cpu_isa_name(int isa);

/* Quantises dim floats to int8 codes with one symmetric scale:
**   code = round-half-even(x / max|x| * 127),  scale = max|x| / 127,
** so x ~= code * scale.  A zero vector gets scale 0 and all-zero codes.
** Ties go to even: the IEEE default, one instruction (rint), and unbiased.
** scale may be NULL. */
void ib_quantize_i8(const float *x, int dim, int8_t *codes, float *scale);

/* The scale alone: max|x| / 127 (0 for a zero vector). */
float ib_scale_i8(const float *x, int dim);

#ifdef __cplusplus
}
#endif

#endif /* IB_SIMD_H */
