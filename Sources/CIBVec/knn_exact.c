/*
** knn_exact.c -- ibvec_knn's exact mode: the float scan, skipping the
** vectors that the int8 codes prove cannot be among the k nearest.
**
** A vector v with int8 codes c (c_i = round(v_i*127/max|v|), so v*127/max|v|
** = c + f with |f_i| <= 1/2) and the query q with codes Q (q*127/max|q| =
** Q + g, |g_i| <= 1/2) have
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
** are always candidates, and blocks without codes and scales are scanned
** in full.
*/
#include "knn.h"

#include <string.h>

#define KNN_PHI 0.5001  /* 1/2, plus the float rounding of the quantiser */

/* Adds a lower bound to the min-heap of the k largest. */
static void lowPush(KnnExact *e, int k, double x){
  double *a = e->aLow;
  int i = 0, c, n = e->nLow;
  if( n<k ){
    i = e->nLow++;
    while( i>0 && a[(i-1)/2]>x ){ a[i] = a[(i-1)/2]; i = (i-1)/2; }
    a[i] = x;
    return;
  }
  if( !(x>a[0]) ) return;
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
static double pruneBar(const KnnSearch *s){
  const KnnExact *e = &s->m.exact;
  return e->nLow<s->k ? -INFINITY : e->aLow[0] - e->margin;
}

/* The error terms of the bounds: e0 + e1*|c|. */
static void boundTerms(const KnnSearch *s, double *pE0, double *pE1){
  *pE0 = KNN_PHI*s->q.sumAbs8 + KNN_PHI*KNN_PHI*s->q.dim;
  *pE1 = KNN_PHI*sqrt((double)s->q.dim);
}

/* Upper bounds U for the nSpan vectors whose codes were scored (their
** scales aS), into s->sc.aUp; branch-free, so that it vectorises. */
static void upperBounds(KnnSearch *s, int nSpan, const float *restrict aS){
  const int32_t *restrict aD = s->sc.aI8Dot, *restrict aC = s->sc.aI8VV;
  double *restrict aU = s->sc.aUp;
  double nq = s->m.exact.nq, e0, e1;
  int i;
  boundTerms(s, &e0, &e1);
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

/* The lower bound L of the vector at j in the span (U is finite). */
static double lowerBound(const KnnSearch *s, int j){
  double e0, e1, cn, nl;
  boundTerms(s, &e0, &e1);
  cn = sqrt((double)s->sc.aI8VV[j]);
  nl = (double)s->sc.aI8Dot[j] - e0 - e1*cn;
  return nl / (s->m.exact.nq * (nl>=0.0 ? cn + e1 : cn - e1));
}

/* Keeps the candidates whose bound reaches bar. */
static void dropBelow(KnnExact *e, double bar){
  int r, w = 0;
  for(r=0; r<e->nCand; r++) if( e->aCand[r].dist>=bar ) e->aCand[w++] = e->aCand[r];
  e->nCand = w;
}

/* Room for one more candidate: drop those the bar has passed, then grow. */
static int candRoom(KnnSearch *s, double bar){
  KnnExact *e = &s->m.exact;
  if( e->nCand<e->nCandAlloc ) return SQLITE_OK;
  dropBelow(e, bar);
  if( e->nCand*2>e->nCandAlloc || e->nCandAlloc==0 ){
    int nNew = e->nCandAlloc ? e->nCandAlloc*2 : 1024;
    KnnHit *a = sqlite3_realloc64(e->aCand, sizeof(KnnHit)*(sqlite3_uint64)nNew);
    if( a==0 ) return SQLITE_NOMEM;
    e->aCand = a; e->nCandAlloc = nNew;
  }
  return SQLITE_OK;
}

/* Bounds the passing vectors of a block from its codes; those that may be
** among the k nearest become candidates. */
static int scorePrune(KnnSearch *s, KnnBlk *b, const int *aIdx, int nIdx){
  KnnExact *e = &s->m.exact;
  int dim = s->q.dim, i, rc, first = aIdx[0], nSpan = aIdx[nIdx-1]-first+1;
  double bar;
  const int8_t *aCode;
  const float *aScale;
  rc = knnCodes(s, b, first, nSpan, &aCode, &aScale);
  if( rc ) return rc;
  ibvecI8Batch(s->K, s->q.q16, aCode, nSpan, dim, s->sc.aI8Dot, s->sc.aI8VV);
  upperBounds(s, nSpan, aScale);
  bar = pruneBar(s);
  for(i=0; i<nIdx; i++){
    int j = aIdx[i]-first;
    double u = s->sc.aUp[j];
    if( u<bar ) continue;
    lowPush(e, s->k, u==INFINITY ? -INFINITY : lowerBound(s, j));
    bar = pruneBar(s);
    if( u<bar ) continue;
    if( candRoom(s, bar) ) return SQLITE_NOMEM;
    knnHitAt(&e->aCand[e->nCand++], s, b, aIdx[i], u);
  }
  return SQLITE_OK;
}

/* Pruning needs a query whose squares neither underflow nor overflow. */
static int exactInit(KnnSearch *s){
  KnnExact *e = &s->m.exact;
  if( !(s->q.maxAbs>=1e-14f && s->q.maxAbs<=1e14f) ) return SQLITE_OK;
  e->bPrune = 1;
  e->nq = s->q.norm * 127.0 / (double)s->q.maxAbs;
  e->margin = 1e-4 + 8.0*(s->q.dim/16 + 8)*ldexp(1.0, -24);
  e->aLow = sqlite3_malloc64(sizeof(double)*(sqlite3_uint64)s->k);
  return e->aLow ? SQLITE_OK : SQLITE_NOMEM;
}

static int exactPrepare(KnnSearch *s){
  (void)s;
  return SQLITE_OK;
}

static int exactBlock(KnnSearch *s, KnnBlk *b, const int *aIdx, int nIdx){
  if( s->m.exact.bPrune && b->eI8>0 && b->hasScales ) return scorePrune(s, b, aIdx, nIdx);
  return knnScoreExact(s, b, aIdx, nIdx);
}

/* The candidates the final bar leaves, scored in float. */
static int exactFinish(KnnSearch *s){
  KnnExact *e = &s->m.exact;
  if( e->nCand==0 ) return SQLITE_OK;
  dropBelow(e, pruneBar(s));
  return knnRescore(s, e->aCand, e->nCand);
}

static void exactFree(KnnSearch *s){
  sqlite3_free(s->m.exact.aLow);
  sqlite3_free(s->m.exact.aCand);
}

const KnnMode knnExactMode = {
  exactInit, exactPrepare, exactBlock, exactFinish, exactFree
};
