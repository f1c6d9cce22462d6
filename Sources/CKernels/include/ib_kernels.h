/*
 * CKernels: the numeric kernels of the sentence encoder (IBModel).
 *
 * Everything is fp32, row-major. The hot part is ib_gemm; the rest are the
 * small per-token passes of a BERT layer. The AVX-512 code paths are chosen
 * at run time (the baseline build is x86-64-v3: AVX2 + FMA). Setting
 * IB_KERNELS=avx2 in the environment forces the AVX2 path, int8 without
 * AVX-VNNI too (a CPU with AVX2 alone, for testing and measuring);
 * IB_KERNELS=avx-vnni forces AVX2 but keeps AVX-VNNI where the CPU has it.
 */
#ifndef IB_KERNELS_H
#define IB_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Which instruction set the kernels use: "avx512" or "avx2". */
const char *ib_kernels_isa(void);

/* Chooses the AVX-512 kernels (when the CPU has them) or the AVX2 ones; returns
 * whether AVX-512 is now in use. For tests; call before any kernel runs. */
int ib_kernels_select(int avx512);

/* Whether the CPU can run the bf16 path (AVX-512 BF16, and AVX-512 selected). */
int ib_kernels_have_bf16(void);

/* ib_gemm flags */
enum {
    IB_GEMM_B_KN = 1,        /* B is [K, N] (row k holds N values); default: B is [N, K] like a weight [out, in] */
    IB_GEMM_ACCUMULATE = 2,  /* C += A*B (+ bias); default: C = A*B (+ bias) */
    IB_GEMM_GELU = 4,        /* apply GELU (exact, erf) to the result before storing; not with ACCUMULATE */
    IB_GEMM_BF16 = 8,        /* round A and B to bfloat16, accumulate in fp32 (AVX-512 BF16 CPUs; else ignored) */
    IB_GEMM_I8_ASYMMETRIC = 16, /* ib_gemm_i8 only: each row of A over its own [min, max] in 255 steps (see there) */
};

/*
 * C[M,N] = A[M,K] * op(B) + bias[N], then optionally GELU.
 * op(B) is B^T when B is [N, K] (a weight matrix as stored: out x in), or B itself
 * when IB_GEMM_B_KN is set. Leading dimensions are in floats. bias may be NULL.
 * Uses a per-thread packing buffer; safe to call from several threads at once.
 */
void ib_gemm(int M, int N, int K,
             const float *A, int lda,
             const float *B, int ldb,
             const float *bias,
             float *C, int ldc, int flags);

/*
 * A weight matrix B ([N, K], as stored) packed once for the fp32 path, so that
 * a caller multiplying by it many times (a resident model) skips the packing
 * ib_gemm does on every call: ib_gemm_packed_floats(N, K) floats, 64-byte
 * aligned (else ib_gemm_packed packs per call, as ib_gemm does), filled by
 * ib_gemm_pack, valid with the kernels selected when it was packed (AVX-512
 * and AVX2 panels differ in width). The results are ib_gemm's, bit for bit;
 * B is still read by the paths that do not pack (few rows, bf16).
 */
size_t ib_gemm_packed_floats(int N, int K);
/* What ib_gemm_pack's layout depends on, as one number (the layout's version,
 * the panel width of the kernels selected now, the K block): packed weights kept
 * in a file are valid only where this number is the same. */
unsigned ib_gemm_pack_layout(void);
void ib_gemm_pack(int N, int K, const float *B, int ldb, float *out);
void ib_gemm_packed(int M, int N, int K, const float *A, int lda, const float *B, const float *packed, int ldb,
                    const float *bias, float *C, int ldc, int flags);
/* Part `part` of `parts` of ib_gemm_packed: only the columns of a contiguous
 * share of B's packed panels, so that threads can split one product by its
 * outputs, each reading only its share of the weights (a few rows' product is
 * bound by reading B). Together the parts write what ib_gemm_packed writes,
 * bit for bit. When the product cannot be split (few rows, bf16, B not
 * packed), part 0 computes all of it and the other parts nothing. */
void ib_gemm_packed_part(int M, int N, int K, const float *A, int lda, const float *B, const float *packed, int ldb,
                         const float *bias, float *C, int ldc, int flags, int part, int parts);

/* x[rows, dim] (row stride ld) = LayerNorm(x) * gamma + beta, in place. */
void ib_layernorm(float *x, int rows, int dim, int ld, const float *gamma, const float *beta, float eps);

/* Each row of S[rows, cols] (stride ld) becomes softmax(scale * row). When
 * inverseSums is not NULL, rows are left unnormalised (exp(scale * (s - max)))
 * and 1/sum of each row is written there instead: scale the product later. */
void ib_softmax_rows(float *S, int rows, int cols, int ld, float scale, float *inverseSums);

/* log(sum of exp(x[i])) over the finite x[i] of x[0..<n]; -inf when there is none. */
double ib_log_sum_exp(const float *x, int n);

/* x[r, 0..<cols] *= scales[r] (row stride ld). */
void ib_scale_rows(float *x, int rows, int cols, int ld, const float *scales);

/* out[i, :] = word[ids[i], :] + position[positions[i], :] + type[0, :] for i < n. */
void ib_embed_tokens(const int32_t *ids, const int32_t *positions, int n, int dim,
                     const float *word, const float *position, const float *type, float *out);

/* out[dim] = mean of x[0..<rows, :] (stride ld), then scaled to unit L2 norm when normalize != 0. */
void ib_mean_pool(const float *x, int rows, int dim, int ld, int normalize, float *out);

/* out[w] = cosine of query[dim] (unit length) and window w of codes[count * dim]
 * (int8 codes of one window per dim values; a window of all zeros scores -1).
 * Search scans a scope's window vectors with it (window_cosine.c). */
void ib_int8_cosines(const int8_t *codes, int count, int dim, const float *query, float *out);

/* Exact GELU on n values in place (for tests and small paths). */
void ib_gelu(float *x, int n);

/* ---- fp16 side, for the Whisper decoder (f16_kernels.c) ---- */

/* dst[i] = the IEEE half src[i] as fp32 (exact). */
void ib_f16_to_f32(const uint16_t *src, float *dst, size_t n);

/* y[M, N] = x[M, K] * W^T + bias[N] with W fp16 [N, K] (row stride ldw), widened
 * in registers: the products are those of an fp32 copy of W. For a few rows
 * (one decoding step). flags: IB_GEMM_ACCUMULATE, IB_GEMM_GELU. bias may be NULL. */
void ib_gemv_f16(int M, int N, int K, const float *x, int ldx, const uint16_t *W, int ldw,
                 const float *bias, float *y, int ldy, int flags);

/* Per row r of the fp16 matrix W[rows, dim]: scales[r] = max |w| / 127 and
 * codes[r, k] = round(w[r, k] / scales[r]). */
void ib_quantize_rows_f16_i8(const uint16_t *W, int rows, int dim, int8_t *codes, float *scales);

/* out[j] = x[0..<dim] . V[j, 0..<dim] for j < n (row stride ldv): one query's attention scores. */
void ib_dot_rows(const float *x, const float *V, int ldv, int n, int dim, float *out);

/* out[dim] = sum over j < n of p[j] * V[j, 0..<dim] (row stride ldv). */
void ib_weighted_rows(const float *p, int n, const float *V, int ldv, int dim, float *out);

/* ib_weighted_rows with int8 V: out[dim] = sum over j < n of p[j] * V[j, 0..<dim]. */
void ib_weighted_rows_i8(const float *p, int n, const int8_t *V, int ldv, int dim, float *out);

/* ---- int8 side (i8_gemm.c): dynamic int8, for Whisper's --compute int8 ---- */

/* Bytes of the packed int8 form of a weight W[N, K]. */
size_t ib_i8_packed_bytes(int N, int K);

/* Quantises fp32 W[N, K] (a weight as stored: out x in) one row at a time
 * (ib_quantize_i8: scales[n] = max|w| / 127) and packs the codes for
 * ib_gemm_i8 (packed: ib_i8_packed_bytes(N, K)); sums[n] = the row's codes summed. */
void ib_i8_pack(const float *W, int N, int K, int8_t *packed, float *scales, int32_t *sums);

/* The same packing for codes already quantised one scale a row (codes[N, K]). */
void ib_i8_pack_codes(const int8_t *codes, int N, int K, int8_t *packed, int32_t *sums);

/* C[M, N] = A[M, K] * W^T + bias[N], W packed by ib_i8_pack; each row of A is
 * quantised to int8 with its own scale, products are summed exactly in int32
 * (AVX-512 VNNI when the CPU has it, else AVX2 with identical results), then
 * scaled back. flags: IB_GEMM_ACCUMULATE or IB_GEMM_GELU. bias may be NULL.
 * With IB_GEMM_I8_ASYMMETRIC a row of A is quantised over [min(0, min a), max(0, max a)]
 * in 255 steps with an integer zero point instead of over [-max|a|, max|a|] in 254:
 * about half the step for rows that are mostly of one sign (GELU outputs).
 * Uses per-thread buffers; safe to call from several threads at once. */
void ib_gemm_i8(int M, int N, int K, const float *A, int lda, const int8_t *packed, const float *scales,
                const int32_t *sums, const float *bias, float *C, int ldc, int flags);

/* W[N, K] as 16-bit codes by input: columns[k * N + n] * scales[n] ~ W[n, k] (scales[n] =
 * max |W[n, :]| / 32767), for ib_gemm_i8_mixed's outliers. */
void ib_i16_columns(const float *W, int N, int K, int16_t *columns, float *scales);

/* ib_gemm_i8 for activations with a few massive values ([CLS], [SEP] and punctuation in
 * BERT), which would leave a per-row int8 scale a few levels for every other value. A row
 * whose max |a| is above rowLimit times its RMS (sqrt(sum a^2 / K)) is multiplied in fp32.
 * In the other rows, the values above valueLimit times the RMS are set apart: the rest is
 * quantised over its own range, the set-apart values multiplied in fp32 and added; a row
 * with more than 16 of them goes to fp32 whole. fp32 products use the weight's 16-bit codes
 * (`columns` and `columnScales`, from ib_i16_columns, row stride ldcol) when given, else
 * W[N, K] (the weight as stored, row stride K) as ib_gemm would. A limit <= 0: none
 * (valueLimit needs columns, rowLimit columns or W). Rows are taken 256 at a time. */
void ib_gemm_i8_mixed(int M, int N, int K, const float *A, int lda, const int8_t *packed, const float *scales,
                      const int32_t *sums, const int16_t *columns, const float *columnScales, int ldcol,
                      const float *W, float rowLimit, float valueLimit, const float *bias, float *C, int ldc, int flags);

/* ---- the int8 path without VNNI (a16_gemm.c): vpmaddwd on 16-bit codes ----
 * W[N, K] quantised per row to codes |c| <= wmax (scales[n] = max|w| / wmax; code = round half
 * to even of w / max|w| x wmax) and packed in pairs of k (ib_w16_pairs_bytes); each row of A
 * quantised to 16-bit codes |c| <= ib_a16_limit(K, wmax) = min(32767, (2^31 - 1) / (K2 x wmax)),
 * K2 = K rounded up to even (exact int32 sums), scale max|a| / limit, code = round half to even
 * of a x (limit / max|a|), NaN 0. Then C[M, N] (+)= (rowScale x scales[n]) x sum + bias[n]
 * [, GELU]. Per-thread buffers; safe from several threads at once. */
size_t ib_w16_pairs_bytes(int N, int K);
void ib_w16_pack_pairs(const float *W, int N, int K, int wmax, int16_t *packed, float *scales);
int ib_a16_limit(int K, int wmax);
void ib_gemm_a16(int M, int N, int K, const float *A, int lda, const int16_t *packed, const float *scales, int wmax,
                 const float *bias, float *C, int ldc, int flags);

/* Whether ib_gemm_i8 runs the AVX-512 VNNI tiles (else AVX-VNNI or AVX2 ones). */
int ib_i8_uses_vnni(void);

/* The int8 tiles in use: "amx" (tdpbusd, AVX-512 VNNI for fewer than 16 rows), "avx512-vnni",
 * "avx-vnni" (vpdpbusd on ymm) or "avx2" (vpmaddwd). All give the same integer sums, so the
 * same floats. */
const char *ib_i8_path_name(void);

/* Whether the kernels may use Intel AMX where the CPU has it and the AVX-512 kernels are
 * selected (default yes; tests turn it off to run the VNNI tiles). Returns whether AMX is
 * now in use. */
int ib_allow_amx(int allow);

/* bf16 products on AMX (bf16_amx.c), for linears int8 cannot take at parity. W[N, K] is
 * packed once (ib_bf16_amx_pack, ib_bf16_amx_packed_bytes); each call rounds A to bf16 and
 * sums in fp32: C[M, N] (+)= A W^T + bias [, GELU] (flags IB_GEMM_ACCUMULATE, IB_GEMM_GELU).
 * Returns 0, computing nothing, where AMX is not usable (ib_bf16_amx_usable). */
int ib_bf16_amx_usable(void);
size_t ib_bf16_amx_packed_bytes(int N, int K);
void ib_bf16_amx_pack(const float *W, int N, int K, uint16_t *packed);
int ib_gemm_bf16_amx(int M, int N, int K, const float *A, int lda, const uint16_t *packed, const float *bias,
                     float *C, int ldc, int flags);

/* Whether the non-AVX-512 path may use AVX-VNNI (default yes; tests turn it off to run the
 * vpmaddwd tiles). Returns whether AVX-VNNI is now in use off AVX-512. */
int ib_i8_allow_avx_vnni(int allow);

/* Runs fn(ctx, part) for part 0..<parts on the calling thread and up to threads - 1
 * resident workers (started on first use, kept for the process; pool.c), and returns
 * when every part is done. For steps too short for a kernel wake-up: idle workers spin
 * briefly before they sleep. Nested calls, and calls while another thread's job runs,
 * run their parts serially on the calling thread. */
typedef void (*ib_pool_fn)(void *ctx, int part);
void ib_pool_run(int threads, int parts, ib_pool_fn fn, void *ctx);

#ifdef __cplusplus
}
#endif
#endif
