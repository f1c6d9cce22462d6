/*
** parallel.c -- the int8 code scan shared over threads the host lends.
**
** Exact kNN spends most of its time in one loop: the integer dots of the
** query's codes with every vector's codes (xI8Batch), 38 MB at 100k vectors
** of 384 dimensions. A block of up to 1024 vectors splits into contiguous
** parts, each part's dots written to its own slots, so the results are the
** same integers, bit for bit, however many threads compute them.
**
** ibvec has no threads of its own: a host that has a pool (the ib
** executables: CKernels' resident workers) installs it with
** ibvec_set_parallel, and says before each search how many threads it may
** use (ibvec_set_scan_threads; a hybrid search lends the full-text half's
** core once that half is done). Without a pool, or with 1 thread (the
** default, and always in the loadable extension), the scan is one call.
*/
#include "ibvec_int.h"

#include <stdatomic.h>

/* Vectors a part takes at least (192 KB of codes at 384 dimensions). */
#define PART_VECTORS 256

static _Atomic(ibvec_parallel_fn) gRun = 0;
static atomic_int gThreads = 1;

void ibvec_set_parallel(ibvec_parallel_fn run){
  atomic_store(&gRun, run);
}

void ibvec_set_scan_threads(int threads){
  atomic_store(&gThreads, threads<1 ? 1 : threads>64 ? 64 : threads);
}

typedef struct I8Split {
  const IbKernel *K;
  const int16_t *q16;
  const int8_t *V;
  int nVec, n, parts;
  int32_t *dots, *vvs;
} I8Split;

static void i8Part(void *ctx, int part){
  const I8Split *p = (const I8Split*)ctx;
  int lo = (int)((sqlite3_int64)p->nVec*part/p->parts);
  int hi = (int)((sqlite3_int64)p->nVec*(part+1)/p->parts);
  if( hi>lo ){
    p->K->xI8Batch(p->q16, p->V + (sqlite3_int64)lo*p->n, hi-lo, p->n, p->dots+lo, p->vvs+lo);
  }
}

void ibvecI8Batch(const IbKernel *K, const int16_t *q16, const int8_t *V, int nVec, int n,
                  int32_t *dots, int32_t *vvs){
  ibvec_parallel_fn run = atomic_load(&gRun);
  int threads = atomic_load(&gThreads);
  int parts = nVec/PART_VECTORS;
  if( parts>threads ) parts = threads;
  if( run==0 || parts<2 ){
    K->xI8Batch(q16, V, nVec, n, dots, vvs);
    return;
  }
  I8Split split = { K, q16, V, nVec, n, parts, dots, vvs };
  run(threads, parts, i8Part, &split);
}
