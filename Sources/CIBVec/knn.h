/*
** knn.h -- the parts of ibvec_knn; private to Sources/CIBVec.
**
** One search runs as a sequence (knn.c, knnFilter):
**   init           read the arguments, prepare the query (its float norm
**                  and int8 codes) and the mode's own state;
**   collect        phase 1: the rows in scope, headers only (knn_blocks.c);
**   prepare        the mode sizes what depends on the scope;
**   scan           phase 2: each block's page filter, then the mode scores
**                  the vectors that pass;
**   finish         the mode leaves the k best, exactly scored, in s->top;
**   free           everything but the rows handed to the cursor.
** The modes (exact, int8, binary) are KnnMode tables of those steps, each
** with one small struct of its own state (KnnExact, KnnInt8, KnnBinary).
*/
#ifndef IBVEC_KNN_H
#define IBVEC_KNN_H

#include "ibvec_int.h"

#define KNN_CHUNK_BYTES (256*1024)  /* floats read per blob read: L2-sized */

typedef struct KnnHit KnnHit;
struct KnnHit {
  double dist;            /* distance (approximate while in a pool) */
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

/* A block chosen by phase 1: its rowid, book, page limit, and which of its
** optional columns are usable (lengths checked against count). */
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
  unsigned char bScored;  /* binary: its scores are in KnnBinary.aScore */
};

/* A block's int8 codes and scales, kept in memory (knn_cache.c). */
typedef struct KnnCacheBlk KnnCacheBlk;
struct KnnCacheBlk {
  sqlite3_int64 id;       /* vector_blocks.id */
  int count;
  float *scales;          /* count scales, then count x dim codes: one allocation */
  unsigned char *codes;   /* the allocation */
};

typedef struct KnnCache KnnCache;
struct KnnCache {
  int bValid;             /* the entries hold the database at version */
  unsigned int version;   /* SQLITE_FCNTL_DATA_VERSION when they were read */
  int dim;
  KnnCacheBlk *a;         /* sorted by id */
  int n, nAlloc;
  sqlite3_int64 nByte;
};

typedef struct KnnVtab KnnVtab;
struct KnnVtab {
  sqlite3_vtab base;
  sqlite3 *db;
  sqlite3_stmt *apStmt[2];  /* phase-1 statements, kept: whole table, one book */
  int nSearch;              /* searches run on this connection */
  KnnCache cache;           /* codes kept between them (knn_cache.c) */
};

typedef struct KnnCursor KnnCursor;
struct KnnCursor {
  sqlite3_vtab_cursor base;
  KnnHit *aRow;           /* results, nearest first */
  int nRow, iRow;
  char **azBook;          /* book ids referenced by the blocks searched */
  int nBook, nBookAlloc;
};

/* The query. */
typedef struct KnnQuery KnnQuery;
struct KnnQuery {
  float *a;               /* the query vector */
  int dim;
  double norm;            /* sqrt(q.q), q.q summed by the kernel */
  float maxAbs;           /* max |q_i| */
  int16_t *q16;           /* its int8 codes widened to int16, zero-padded */
  int nQBits;             /* bytes of sign bits per vector */
  double sumAbs8;         /* sum |q16_i| */
};

/* The incremental blob readers, one per vector_blocks column. */
typedef struct KnnReaders KnnReaders;
struct KnnReaders {
  sqlite3_blob *pVec, *pI8, *pBits, *pEnd, *pKey, *pScale;
};

/* Scratch buffers, reused from block to block. */
typedef struct KnnScratch KnnScratch;
struct KnnScratch {
  int perChunk;           /* float vectors per read */
  float *aBuf;            /* float vectors read from a block (perChunk) */
  float *aDot, *aVV;      /* float kernel outputs (perChunk) */
  unsigned char *aQBuf;   /* quantised block data */
  sqlite3_int64 nQBufCap; /* its capacity in bytes */
  int nBlockCap;          /* capacity of the per-vector arrays below */
  int *aIdx;              /* the vectors that pass the page filter */
  int32_t *aI8Dot, *aI8VV;/* int8 / bit kernel outputs */
  int32_t *aEnd;          /* end pages of the block */
  float *aScale;          /* scales of the block */
  double *aUp;            /* upper bounds (pruning) */
};

/* Exact mode: the float scan, skipping what the int8 codes rule out. */
typedef struct KnnExact KnnExact;
struct KnnExact {
  int bPrune;             /* the int8 codes may rule vectors out */
  double nq;              /* |query| in code units: |q| * 127 / max|q_i| */
  double margin;          /* float rounding allowance of the exact cosine */
  double *aLow;           /* min-heap of the k largest lower bounds */
  int nLow;
  KnnHit *aCand;          /* vectors that may be among the k nearest */
  int nCand, nCandAlloc;
};

/* int8 and binary: quantised scores choose a pool, rescored in float. */
typedef struct KnnPool KnnPool;
struct KnnPool {
  KnnHeap h;              /* candidates (room for 2 x nPool) */
  int nPool;              /* how many to rescore; negative: binary's default */
  KnnHit bar;             /* the worst of the pool, once compacted */
  int bBar;               /* bar is set: only better hits may enter */
};

typedef struct KnnInt8 KnnInt8;
struct KnnInt8 {
  KnnPool pool;
};

typedef struct KnnBinary KnnBinary;
struct KnnBinary {
  KnnPool pool;
  int32_t *aScore;        /* every vector's score, by block (aBlk[].iFirst) */
  int32_t *aHist;         /* how many vectors have each score (+ nHistOff) */
  int nHistOff;           /* the largest |score|: scores run -nHistOff..nHistOff */
};

typedef struct KnnSearch KnnSearch;
typedef struct KnnMode KnnMode;
struct KnnMode {
  int (*xInit)(KnnSearch*);     /* the mode's state, once the query is known */
  int (*xPrepare)(KnnSearch*);  /* what depends on the blocks in scope */
  int (*xBlock)(KnnSearch*, KnnBlk*, const int *aIdx, int nIdx);
  int (*xFinish)(KnnSearch*);   /* the k best into s->top */
  void (*xFree)(KnnSearch*);
};

/* Everything one search needs. */
struct KnnSearch {
  KnnVtab *pVtab;
  KnnCursor *pCur;
  const IbKernel *K;
  const KnnMode *pMode;
  KnnQuery q;
  int k;
  const char *zModel;     /* NULL: any model */
  KnnBlk *aBlk;           /* blocks to read (phase 1 output) */
  int nBlk, nBlkAlloc;
  KnnReaders rd;
  KnnScratch sc;
  KnnHeap top;            /* the k best, exact distances */
  KnnCache *pCache;       /* the kept codes this search may use, or NULL */
  union {
    KnnExact exact;
    KnnInt8 i8;
    KnnBinary bin;
  } m;
  char *zErr;
};

IBVEC_PRIVATE extern const KnnMode knnExactMode, knnInt8Mode, knnBinaryMode;

/* ---- knn_hits.c: ordering, heaps and float scoring ---- */
IBVEC_PRIVATE int knnWorse(const KnnHit *x, const KnnHit *y);
IBVEC_PRIVATE int knnCmpAsc(const void *pa, const void *pb);
IBVEC_PRIVATE void knnHeapPush(KnnHeap *h, const KnnHit *hit);
IBVEC_PRIVATE int knnHeapWants(const KnnHeap *h, double d);
IBVEC_PRIVATE void knnSelect(KnnHit *a, int nA, int n);
IBVEC_PRIVATE void knnHitAt(KnnHit *h, const KnnSearch *s, const KnnBlk *b, int idx, double dist);
IBVEC_PRIVATE int knnScoreExact(KnnSearch *s, KnnBlk *b, const int *aIdx, int nIdx);
IBVEC_PRIVATE int knnRescore(KnnSearch *s, KnnHit *a, int n);

/* ---- knn_blocks.c: phase 1, reading blobs, phase 2's loop ---- */
IBVEC_PRIVATE int knnCollectScope(KnnSearch *s, const KnnScope *aScope, int nScope);
IBVEC_PRIVATE int knnRead(KnnSearch *s, sqlite3_blob **pp, const char *zCol,
                          sqlite3_int64 id, void *pBuf, int nByte, int iOff);
IBVEC_PRIVATE int knnReadMore(KnnSearch *s, sqlite3_blob *p, const char *zCol,
                              sqlite3_int64 id, void *pBuf, int nByte, int iOff);
IBVEC_PRIVATE int knnQBuf(KnnSearch *s, sqlite3_int64 need);
IBVEC_PRIVATE int knnScanBlocks(KnnSearch *s);
IBVEC_PRIVATE int knnFillHits(KnnSearch *s, KnnHit *a, int n);
IBVEC_PRIVATE void knnFreeBlocks(KnnSearch *s);

/* ---- knn_cache.c: int8 codes kept between searches ---- */
IBVEC_PRIVATE void knnCacheBegin(KnnSearch *s);
IBVEC_PRIVATE void knnCacheClear(KnnCache *c);
/* Block b's int8 codes and scales from vector first on (nSpan vectors):
** kept ones in place, else read into the scratch buffers. */
IBVEC_PRIVATE int knnCodes(KnnSearch *s, const KnnBlk *b, int first, int nSpan,
                           const int8_t **paCode, const float **paScale);

#endif /* IBVEC_KNN_H */
