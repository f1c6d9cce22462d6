/*
** knn_quant.c -- ibvec_knn's int8 and binary modes.
**
** Both rank every passing vector by a cheap integer score from the
** block's quantised column, keep a pool of the best (by default the
** larger of 8k and 64 for int8; for binary the largest of 64k, 1024 and
** 1/128 of the vectors in scope; 'mode:POOL' sets it), then rescore the
** pool exactly in float: the answer is the k nearest of the pool.
**
**   int8    -cos(q8, v8) with q's norm dropped: -d|d|/(v8.v8), monotonic in
**           -d/|v8| and without a square root (d = q8.v8).
**   binary  -(sum of the query's int8 codes where v is positive).  The
**           scores are integers in -sum|q8|..sum|q8|: when that range is
**           small, every score is kept with a histogram of them, and the
**           pool is taken in a second pass at the score the histogram
**           gives for the pool's size.
**
** A block without the mode's column is scanned exactly in float instead.
*/
#include "knn.h"

#include <string.h>

/* Candidates are appended to the pool (room for 2 x nPool); when it is
** full, the nPool best are kept (the same set a bounded heap would keep:
** the order is total) and the worst of them becomes the bar. */
static void poolCompact(KnnPool *p){
  if( p->h.n<=p->nPool ) return;
  knnSelect(p->h.a, p->h.n, p->nPool-1);
  p->h.n = p->nPool;
  p->bar = p->h.a[p->nPool-1];
  p->bBar = 1;
}

/* Offers vector idx of block b at approximate distance dist to the pool. */
static void poolOffer(KnnSearch *s, KnnPool *p, const KnnBlk *b, int idx, double dist){
  KnnHit h;
  if( p->bBar && dist>p->bar.dist ) return;
  knnHitAt(&h, s, b, idx, dist);
  if( p->bBar && !knnWorse(&p->bar, &h) ) return;
  if( p->h.n==p->h.nCap ) poolCompact(p);
  p->h.a[p->h.n++] = h;
}

/* Reads the quantised column zCol spanning the passing vectors aIdx of a
** block (per bytes a vector) into the scratch buffer.  Vectors that fail
** the page filter inside the span are read and scored too, then skipped. */
static int readSpan(KnnSearch *s, sqlite3_blob **pp, const char *zCol,
                    const KnnBlk *b, const int *aIdx, int nIdx, int per){
  int first = aIdx[0], nSpan = aIdx[nIdx-1]-first+1;
  int rc = knnQBuf(s, (sqlite3_int64)nSpan*per);
  if( rc ) return rc;
  return knnRead(s, pp, zCol, b->id, s->sc.aQBuf, nSpan*per, first*per);
}

/* Scores the mode's quantised column (sign bits when bBits, else int8
** codes) over the span of the passing vectors aIdx into s->sc.aI8Dot (and
** aI8VV).  A block without the column is scanned exactly in float
** instead, and *pbDone set. */
static int scoreSpan(KnnSearch *s, KnnBlk *b, const int *aIdx, int nIdx,
                     int bBits, int *pbDone){
  const char *zCol = bBits ? "bits" : "vectors_i8";
  int rc, dim = s->q.dim, per = bBits ? s->q.nQBits : dim;
  int nSpan = aIdx[nIdx-1]-aIdx[0]+1;
  signed char e = bBits ? b->eBits : b->eI8;
  *pbDone = e<=0;
  if( e==0 ) return knnScoreExact(s, b, aIdx, nIdx);
  if( e<0 ){
    s->zErr = sqlite3_mprintf("ibvec_knn: block %lld: %s has the wrong length", b->id, zCol);
    return SQLITE_ERROR;
  }
  rc = readSpan(s, bBits ? &s->rd.pBits : &s->rd.pI8, zCol, b, aIdx, nIdx, per);
  if( rc ) return rc;
  if( bBits ){
    s->K->xBitBatch(s->q.q16, s->sc.aQBuf, nSpan, per, s->sc.aI8Dot);
  }else{
    s->K->xI8Batch(s->q.q16, (const int8_t*)s->sc.aQBuf, nSpan, dim, s->sc.aI8Dot, s->sc.aI8VV);
  }
  return SQLITE_OK;
}

/* Pool sizes: binary's default (negative) grows with the vectors in scope
** (1/128 of them), so its recall does not fall as the library grows. */
static int poolPrepare(KnnSearch *s, KnnPool *p){
  if( p->nPool<0 ){
    sqlite3_int64 nVec = 0, nDefault = -p->nPool;
    int i;
    for(i=0; i<s->nBlk; i++) nVec += s->aBlk[i].count;
    if( nVec/128 > nDefault ) nDefault = nVec/128;
    p->nPool = (int)(nDefault > IBVEC_MAX_POOL ? IBVEC_MAX_POOL : nDefault);
  }
  p->h.a = sqlite3_malloc64(sizeof(KnnHit)*2*(sqlite3_uint64)p->nPool);
  p->h.nCap = 2*p->nPool;
  return p->h.a ? SQLITE_OK : SQLITE_NOMEM;
}

/* The pool, rescored in float into s->top. */
static int poolFinish(KnnSearch *s, KnnPool *p){
  poolCompact(p);
  return knnRescore(s, p->h.a, p->h.n);
}

/* ======================================================================
** int8
** ==================================================================== */

static int int8Init(KnnSearch *s){
  (void)s;
  return SQLITE_OK;
}

static int int8Prepare(KnnSearch *s){
  return poolPrepare(s, &s->m.i8.pool);
}

static int int8Block(KnnSearch *s, KnnBlk *b, const int *aIdx, int nIdx){
  int i, bDone, rc = scoreSpan(s, b, aIdx, nIdx, 0, &bDone);
  if( rc || bDone ) return rc;
  for(i=0; i<nIdx; i++){
    int j = aIdx[i]-aIdx[0];
    float d = (float)s->sc.aI8Dot[j], vv = (float)s->sc.aI8VV[j];
    poolOffer(s, &s->m.i8.pool, b, aIdx[i], vv>0.0f ? (double)(-d*fabsf(d)/vv) : 0.0);
  }
  return SQLITE_OK;
}

static int int8Finish(KnnSearch *s){
  return poolFinish(s, &s->m.i8.pool);
}

static void int8Free(KnnSearch *s){
  sqlite3_free(s->m.i8.pool.h.a);
}

const KnnMode knnInt8Mode = {
  int8Init, int8Prepare, int8Block, int8Finish, int8Free
};

/* ======================================================================
** binary
** ==================================================================== */

static int binaryInit(KnnSearch *s){
  (void)s;
  return SQLITE_OK;
}

/* The pool; and the score histogram when the score range is small. */
static int binaryPrepare(KnnSearch *s){
  KnnBinary *p = &s->m.bin;
  int rc = poolPrepare(s, &p->pool);
  if( rc==SQLITE_OK && s->nBlk>0 && s->q.sumAbs8<=(1<<20) ){
    const KnnBlk *pLast = &s->aBlk[s->nBlk-1];
    sqlite3_int64 nVec = pLast->iFirst + pLast->count;
    p->nHistOff = (int)s->q.sumAbs8;
    p->aScore = sqlite3_malloc64(sizeof(int32_t)*(sqlite3_uint64)nVec);
    p->aHist = sqlite3_malloc64(sizeof(int32_t)*(2*(sqlite3_uint64)p->nHistOff+1));
    if( p->aScore==0 || p->aHist==0 ) return SQLITE_NOMEM;
    memset(p->aHist, 0, sizeof(int32_t)*(2*(size_t)p->nHistOff+1));
  }
  return rc;
}

/* Records the scores of a block's passing vectors (INT32_MIN: filtered
** out) and counts them in the histogram; aSpan: the scores of the span. */
static void binaryRecord(KnnSearch *s, KnnBlk *b, const int *aIdx, int nIdx,
                         const int32_t *aSpan){
  KnnBinary *p = &s->m.bin;
  int32_t *aSc = p->aScore + b->iFirst, *aHist = p->aHist + p->nHistOff;
  int i;
  if( nIdx==b->count ){
    memcpy(aSc, aSpan, sizeof(int32_t)*(size_t)nIdx);
  }else{
    for(i=0; i<b->count; i++) aSc[i] = INT32_MIN;
    for(i=0; i<nIdx; i++) aSc[aIdx[i]] = aSpan[aIdx[i]-aIdx[0]];
  }
  for(i=0; i<nIdx; i++) aHist[aSpan[aIdx[i]-aIdx[0]]]++;
  b->bScored = 1;
}

static int binaryBlock(KnnSearch *s, KnnBlk *b, const int *aIdx, int nIdx){
  int i, bDone, rc = scoreSpan(s, b, aIdx, nIdx, 1, &bDone);
  if( rc || bDone ) return rc;
  if( s->m.bin.aScore ){
    binaryRecord(s, b, aIdx, nIdx, s->sc.aI8Dot);
    return SQLITE_OK;
  }
  for(i=0; i<nIdx; i++){
    poolOffer(s, &s->m.bin.pool, b, aIdx[i], -(double)s->sc.aI8Dot[aIdx[i]-aIdx[0]]);
  }
  return SQLITE_OK;
}

/* The score of the nPool-th best, from the histogram. */
static int binaryThreshold(const KnnBinary *p){
  sqlite3_int64 n = 0;
  int thr;
  for(thr=p->nHistOff; thr>-p->nHistOff; thr--){
    n += p->aHist[thr + p->nHistOff];
    if( n>=p->pool.nPool ) break;
  }
  return thr;
}

/* The second pass: only the vectors scoring at or above the threshold
** enter the pool (ties at it then settled by block and position). */
static int binaryFinish(KnnSearch *s){
  KnnBinary *p = &s->m.bin;
  int thr, i, j;
  if( p->aScore ){
    thr = binaryThreshold(p);
    for(i=0; i<s->nBlk; i++){
      const KnnBlk *b = &s->aBlk[i];
      const int32_t *aSc = p->aScore + b->iFirst;
      if( !b->bScored ) continue;
      for(j=0; j<b->count; j++){
        /* also skips the vectors filtered out: INT32_MIN */
        if( aSc[j]>=thr ) poolOffer(s, &p->pool, b, j, -(double)aSc[j]);
      }
    }
  }
  return poolFinish(s, &p->pool);
}

static void binaryFree(KnnSearch *s){
  sqlite3_free(s->m.bin.pool.h.a);
  sqlite3_free(s->m.bin.aScore);
  sqlite3_free(s->m.bin.aHist);
}

const KnnMode knnBinaryMode = {
  binaryInit, binaryPrepare, binaryBlock, binaryFinish, binaryFree
};
