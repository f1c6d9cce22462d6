/*
** knn_hits.c -- ibvec_knn's hits: their order, the bounded heap of the k
** best, and exact (float) scoring into it.
**
** The order is total: distance, then block id, then position in the block.
** Ties are therefore settled the same way whatever order blocks are read
** in, and every mode's final answer is the k first hits in this order
** among the vectors it scores in float.
*/
#include "knn.h"

#include <stdlib.h>
#include <string.h>

/* Is x worse (further, or later on a tie) than y? */
int knnWorse(const KnnHit *x, const KnnHit *y){
  if( x->dist!=y->dist ) return x->dist > y->dist;
  if( x->blockId!=y->blockId ) return x->blockId > y->blockId;
  return x->idx > y->idx;
}

int knnCmpAsc(const void *pa, const void *pb){
  const KnnHit *a = pa, *b = pb;
  if( knnWorse(a, b) ) return 1;
  if( knnWorse(b, a) ) return -1;
  return 0;
}

/* Moves hit into a heap slot from i upwards (the heap has room at i). */
static void heapSiftUp(KnnHeap *h, int i, const KnnHit *hit){
  while( i>0 ){
    int p = (i-1)/2;
    if( !knnWorse(hit, &h->a[p]) ) break;
    h->a[i] = h->a[p];
    i = p;
  }
  h->a[i] = *hit;
}

void knnHeapPush(KnnHeap *h, const KnnHit *hit){
  int i = 0, c;
  if( h->n<h->nCap ){
    heapSiftUp(h, h->n++, hit);
    return;
  }
  if( h->nCap==0 || !knnWorse(&h->a[0], hit) ) return;
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
int knnHeapWants(const KnnHeap *h, double d){
  return h->n<h->nCap || d <= h->a[0].dist;
}

/* Moves the n-th best hit (0-based, by knnWorse) of a[0..nA) to a[n], the
** better ones before it and the worse after (quickselect). */
void knnSelect(KnnHit *a, int nA, int n){
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

void knnHitAt(KnnHit *h, const KnnSearch *s, const KnnBlk *b, int idx, double dist){
  h->dist = dist;
  h->blockId = b->id;
  h->idx = idx;
  h->iBook = b->iBook;
  h->iBlk = (int)(b - s->aBlk);
  h->key = 0;
  h->endPage = 0;
}

/* The exact distance of a scored vector; an error for NaN or infinity. */
static int exactDist(KnnSearch *s, sqlite3_int64 id, float dot, float vv, double *pDist){
  *pDist = ibvecCosDist(dot, s->q.norm, vv);
  if( isnan(*pDist) || !isfinite(vv) ){
    s->zErr = sqlite3_mprintf("ibvec_knn: block %lld holds a NaN or infinite value", id);
    return SQLITE_ERROR;
  }
  return SQLITE_OK;
}

/* Scores n float vectors at aIdx[0..n) of block b (read into the scratch
** buffer) into s->top. */
static int scoreRun(KnnSearch *s, const KnnBlk *b, int start, int n){
  int j;
  s->K->xCosBatch(s->q.a, s->sc.aBuf, n, s->q.dim, s->sc.aDot, s->sc.aVV);
  for(j=0; j<n; j++){
    KnnHit h;
    float dot = s->sc.aDot[j], vv = s->sc.aVV[j];
    double d;
    /* dot <= 0 gives a distance >= 1: it cannot displace a hit below 1 */
    if( dot<=0.0f && s->top.n==s->top.nCap && s->top.a[0].dist<1.0
     && isfinite(vv) ) continue;
    if( exactDist(s, b->id, dot, vv, &d) ) return SQLITE_ERROR;
    if( !knnHeapWants(&s->top, d) ) continue;
    knnHitAt(&h, s, b, start+j, d);
    knnHeapPush(&s->top, &h);
  }
  return SQLITE_OK;
}

int knnScoreExact(KnnSearch *s, KnnBlk *b, const int *aIdx, int nIdx){
  int dim = s->q.dim, i = 0, rc, first = 1;
  while( i<nIdx ){
    /* A run of consecutive passing vectors, at most perChunk long. */
    int start = aIdx[i], n = 1;
    while( i+n<nIdx && n<s->sc.perChunk && aIdx[i+n]==start+n ) n++;
    if( first ){
      rc = knnRead(s, &s->rd.pVec, "vectors", b->id, s->sc.aBuf, n*dim*4, start*dim*4);
      first = 0;
    }else{
      rc = knnReadMore(s, s->rd.pVec, "vectors", b->id, s->sc.aBuf, n*dim*4, start*dim*4);
    }
    if( rc==SQLITE_OK ) rc = scoreRun(s, b, start, n);
    if( rc ) return rc;
    i += n;
  }
  return SQLITE_OK;
}

/* Sorts the hits a[0..n) into aSorted by block (a counting sort on the
** block's place in s->aBlk), then by position; aEnd[iBlk] is then the end
** of block iBlk's run. */
static void groupByBlock(const KnnSearch *s, const KnnHit *a, int n,
                         KnnHit *aSorted, int *aEnd){
  int i, j;
  memset(aEnd, 0, sizeof(int)*((size_t)s->nBlk+1));
  for(i=0; i<n; i++) aEnd[a[i].iBlk+1]++;
  for(i=0; i<s->nBlk; i++) aEnd[i+1] += aEnd[i];
  for(i=0; i<n; i++) aSorted[aEnd[a[i].iBlk]++] = a[i];
  for(i=0; i<n; i=aEnd[aSorted[i].iBlk]){
    for(j=i+1; j<aEnd[aSorted[i].iBlk]; j++){
      KnnHit t = aSorted[j];
      int p = j;
      while( p>i && aSorted[p-1].idx>t.idx ){ aSorted[p] = aSorted[p-1]; p--; }
      aSorted[p] = t;
    }
  }
}

/* Rescores m hits of one block (a[0..m), by position) in one kernel call.
** bFirst: the first read of this block. */
static int rescoreRun(KnnSearch *s, const KnnHit *a, int m, int bFirst){
  int j, rc = SQLITE_OK, dim = s->q.dim;
  sqlite3_int64 id = a[0].blockId;
  for(j=0; j<m && rc==SQLITE_OK; j++){
    float *pDst = s->sc.aBuf + (size_t)j*dim;
    if( bFirst && j==0 ){
      rc = knnRead(s, &s->rd.pVec, "vectors", id, pDst, dim*4, a[j].idx*dim*4);
    }else{
      rc = knnReadMore(s, s->rd.pVec, "vectors", id, pDst, dim*4, a[j].idx*dim*4);
    }
  }
  if( rc ) return rc;
  s->K->xCosBatch(s->q.a, s->sc.aBuf, m, dim, s->sc.aDot, s->sc.aVV);
  for(j=0; j<m; j++){
    KnnHit h = a[j];
    if( exactDist(s, id, s->sc.aDot[j], s->sc.aVV[j], &h.dist) ) return SQLITE_ERROR;
    if( knnHeapWants(&s->top, h.dist) ) knnHeapPush(&s->top, &h);
  }
  return SQLITE_OK;
}

int knnRescore(KnnSearch *s, KnnHit *a, int n){
  int i, r, m, rc = SQLITE_OK;
  int *aEnd;
  KnnHit *aSorted;
  if( n==0 ) return SQLITE_OK;
  aEnd = sqlite3_malloc64(sizeof(int)*((sqlite3_uint64)s->nBlk+1));
  aSorted = sqlite3_malloc64(sizeof(KnnHit)*(sqlite3_uint64)n);
  if( aEnd==0 || aSorted==0 ){
    sqlite3_free(aEnd); sqlite3_free(aSorted); return SQLITE_NOMEM;
  }
  groupByBlock(s, a, n, aSorted, aEnd);
  for(i=0; i<n && rc==SQLITE_OK; i=aEnd[aSorted[i].iBlk]){
    int end = aEnd[aSorted[i].iBlk];
    for(r=i; r<end && rc==SQLITE_OK; r+=m){
      m = end-r < s->sc.perChunk ? end-r : s->sc.perChunk;
      rc = rescoreRun(s, aSorted+r, m, r==i);
    }
  }
  sqlite3_free(aEnd); sqlite3_free(aSorted);
  return rc;
}
