/*
 * scratch.h -- per-thread scratch buffers of the kernels (thread_scratch.c):
 * kept between calls, grown on demand, freed when their thread ends.
 */
#ifndef IB_SCRATCH_H
#define IB_SCRATCH_H

#include <stddef.h>

enum {
    IB_SCRATCH_PACK_B,      /* ib_gemm's packed B panels */
    IB_SCRATCH_BF16_A,      /* the bf16 path's operands and its temporary panel */
    IB_SCRATCH_BF16_B,
    IB_SCRATCH_BF16_TMP,
    IB_SCRATCH_I8_CODES,    /* ib_gemm_i8's quantised activation rows and their scales */
    IB_SCRATCH_I8_SCALES,
    IB_SCRATCH_I8_FP32,     /* ib_gemm_i8_mixed's fp32 rows (inputs and outputs) */
    IB_SCRATCH_SLOTS
};

/* At least `bytes` of 64-byte aligned memory for this thread and slot; the
 * contents are kept only until the next call for the same slot grows it. */
void *ib_scratch(int slot, size_t bytes);

#endif
