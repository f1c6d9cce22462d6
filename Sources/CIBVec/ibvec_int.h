/*
** ibvec_int.h -- what the parts of ibvec share; private to Sources/CIBVec.
**
** The extension is split by job, one file each:
**   kernels.c    the distance kernels (scalar, AVX2, AVX-512, VNNI) and the
**                choice between them
**   args.c       reading arguments: vectors (float32 blobs or JSON arrays),
**                ibvec_knn's scope object and mode
**   functions.c  the scalar SQL functions
**   knn.c        the ibvec_knn virtual table (its methods and the search
**                sequence); knn_blocks.c, knn_hits.c, knn_exact.c and
**                knn_quant.c hold its parts (see knn.h)
**   parallel.c   the int8 code scan split over the threads a host lends
**   ibvec.c      sqlite3_ibvec_init, the one entry point
** Every file is compiled into the ib executables with SQLITE_CORE, and all
** of them together into the loadable ibvec.so (scripts/build-ibvec).
*/
#ifndef IBVEC_INT_H
#define IBVEC_INT_H

#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3

#include "ibvec.h"

#include <math.h>
#include <stdint.h>

#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
# error "ibvec stores little-endian float32 blobs and assumes a little-endian host"
#endif

/* Internal names stay out of the loadable extension's exported symbols. */
#define IBVEC_PRIVATE __attribute__((visibility("hidden")))

#define IBVEC_MAX_DIM    65536   /* largest accepted vector */
#define IBVEC_MAX_K      10000   /* largest k for ibvec_knn */
#define IBVEC_MAX_BLOCK  65536   /* largest accepted count in one block */
#define IBVEC_MAX_POOL   1000000 /* largest quantised candidate pool */

/* ---- kernels.c ---- */

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

/* The kernel in use (IBVEC_KERNEL or the widest the CPU runs, until
** ibvec_set_kernel chooses another). */
IBVEC_PRIVATE const IbKernel *ibvecKernel(void);

/* ---- parallel.c ---- */

/* K->xI8Batch, split over the threads the host lends (ibvec_set_parallel,
** ibvec_set_scan_threads): the same integers. */
IBVEC_PRIVATE void ibvecI8Batch(const IbKernel *K, const int16_t *q16, const int8_t *V, int nVec, int n,
                                int32_t *dots, int32_t *vvs);

/* Hamming distance between two byte strings (integer, exact). */
IBVEC_PRIVATE sqlite3_int64 ibvecHamming(const uint8_t *a, const uint8_t *b, int n);

/* Non-zero when every value is finite. */
IBVEC_PRIVATE int ibvecAllFinite(const float *x, sqlite3_int64 n);

/* Cosine distance from a.b, |a| and b.b, the same way everywhere.  A zero
** vector has no direction: its distance to anything is 1. */
static inline double ibvecCosDist(float dot, double normA, float bb){
  double den = normA * sqrt((double)bb);
  if( !(den>0.0) ) return 1.0;
  return 1.0 - (double)dot/den;
}

/* ---- args.c ---- */

/* A float32 vector owned by the caller (sqlite3_free). */
typedef struct IbVec IbVec;
struct IbVec {
  float *a;
  int n;
};

/* Reads a vector: a float32 blob or JSON array text.  On error returns
** SQLITE_ERROR or SQLITE_NOMEM and sets *pzErr (sqlite3_mprintf); errors
** name zFunc. */
IBVEC_PRIVATE int ibvecParseValue(const char *zFunc, sqlite3_value *pVal,
                                  IbVec *pOut, char **pzErr);

/* One book of an ibvec_knn scope and the last page it may reach. */
typedef struct KnnScope KnnScope;
struct KnnScope {
  char *zBook;
  sqlite3_int64 maxPage;
};

IBVEC_PRIVATE int knnCmpScope(const void *pa, const void *pb);

/* The scope argument: NULL (every book: *pnScope = -1), or a JSON object
** {"book": max_end_page or null, ...}, sorted by book. */
IBVEC_PRIVATE int knnParseScope(sqlite3_value *pVal, KnnScope **paScope,
                                int *pnScope, char **pzErr);
IBVEC_PRIVATE void knnFreeScope(KnnScope *a, int n);

/* The modes of ibvec_knn. */
enum { KNN_EXACT = 0, KNN_INT8 = 1, KNN_BINARY = 2 };

/* The mode argument: 'exact' | 'int8' | 'binary', optionally ':POOL'.
** *pnPool: the pool size; negative for binary's default (scaled to the
** scope later). */
IBVEC_PRIVATE int knnParseMode(sqlite3_value *pVal, int k, int *peMode,
                               int *pnPool, char **pzErr);

/* ---- functions.c, knn.c ---- */
IBVEC_PRIVATE int ibvecRegisterFunctions(sqlite3 *db);
IBVEC_PRIVATE int ibvecRegisterKnn(sqlite3 *db);

#endif /* IBVEC_INT_H */
