/*
** knn_cache.c -- the int8 codes and scales of vector_blocks, kept in memory
** between the searches of one connection.
**
** Exact mode reads every block's int8 codes to bound its vectors (see
** knn_exact.c).  Read through sqlite3_blob_read, each search copies them
** from the file's pages into a scratch buffer before scoring them: over
** 100k vectors of 384 dimensions that copy of 38 MB costs more than the
** scoring.  A connection that searches more than once (ib-mcp's, ib-ask's)
** keeps what it read instead, and scores the kept codes in place from the
** next search on; a one-off search (ib-search) keeps nothing.
**
** The kept codes are the blob's bytes, so the scores, candidates and
** results are the same, bit for bit.  They are used only while the
** database is unchanged: SQLITE_FCNTL_DATA_VERSION (which changes with
** every commit, of this connection or another) must equal the one they
** were read at, and the connection must have no transaction of its own
** open (its uncommitted writes would not change the version).  Anything
** else drops them.  At most KNN_CACHE_MAX bytes are kept; blocks beyond
** are read as before.
*/
#include "knn.h"

#include <string.h>

#define KNN_CACHE_MAX ((sqlite3_int64)256 << 20)  /* ~650k vectors of 384 dimensions */

void knnCacheClear(KnnCache *c){
  int i;
  for(i=0; i<c->n; i++) sqlite3_free(c->a[i].codes);
  sqlite3_free(c->a);
  c->a = 0; c->n = c->nAlloc = 0;
  c->nByte = 0;
  c->bValid = 0;
}

/* Called once a search's blocks are known: whether it may use and add to
** the kept codes (s->pCache), dropping them when the database changed. */
void knnCacheBegin(KnnSearch *s){
  KnnVtab *p = s->pVtab;
  KnnCache *c = &p->cache;
  unsigned int version = 0;
  int searches = p->nSearch++;
  s->pCache = 0;
  if( !sqlite3_get_autocommit(p->db)
   || sqlite3_file_control(p->db, "main", SQLITE_FCNTL_DATA_VERSION, &version)!=SQLITE_OK ){
    knnCacheClear(c);
    return;
  }
  if( c->bValid && (c->version!=version || c->dim!=s->q.dim) ) knnCacheClear(c);
  if( !c->bValid ){
    if( searches==0 ) return;     /* a one-off search keeps nothing */
    c->bValid = 1;
    c->version = version;
    c->dim = s->q.dim;
  }
  s->pCache = c;
}

/* The kept block id, or the place it would go (c->a is sorted by id). */
static int cacheFind(const KnnCache *c, sqlite3_int64 id, int *pAt){
  int lo = 0, hi = c->n;
  while( lo<hi ){
    int mid = (lo+hi)/2;
    if( c->a[mid].id<id ) lo = mid+1; else hi = mid;
  }
  *pAt = lo;
  return lo<c->n && c->a[lo].id==id;
}

/* Reads block b's codes and scales whole into a new entry at position at;
** SQLITE_DONE (and nothing kept) when they would pass the limit. */
static int cacheAdd(KnnSearch *s, KnnCache *c, const KnnBlk *b, int at){
  sqlite3_int64 nCode = (sqlite3_int64)b->count*c->dim, nByte = nCode + 4*(sqlite3_int64)b->count;
  KnnCacheBlk e;
  int rc;
  if( c->nByte + nByte > KNN_CACHE_MAX ) return SQLITE_DONE;
  if( c->n==c->nAlloc ){
    int nNew = c->nAlloc ? c->nAlloc*2 : 64;
    KnnCacheBlk *a = sqlite3_realloc64(c->a, sizeof(KnnCacheBlk)*(sqlite3_uint64)nNew);
    if( a==0 ) return SQLITE_NOMEM;
    c->a = a; c->nAlloc = nNew;
  }
  e.id = b->id;
  e.count = b->count;
  /* one allocation: the scales (4-byte aligned) first, then the codes */
  e.codes = sqlite3_malloc64((sqlite3_uint64)nByte);
  if( e.codes==0 ) return SQLITE_NOMEM;
  e.scales = (float*)e.codes;
  rc = knnRead(s, &s->rd.pScale, "scales", b->id, e.scales, b->count*4, 0);
  if( rc==SQLITE_OK ) rc = knnRead(s, &s->rd.pI8, "vectors_i8", b->id, e.codes + 4*(sqlite3_int64)b->count, (int)nCode, 0);
  if( rc ){ sqlite3_free(e.codes); return rc; }
  memmove(&c->a[at+1], &c->a[at], sizeof(KnnCacheBlk)*(size_t)(c->n-at));
  c->a[at] = e;
  c->n++;
  c->nByte += nByte;
  return SQLITE_OK;
}

int knnCodes(KnnSearch *s, const KnnBlk *b, int first, int nSpan,
             const int8_t **paCode, const float **paScale){
  KnnCache *c = s->pCache;
  int at, rc, dim = s->q.dim;
  if( c ){
    rc = cacheFind(c, b->id, &at) ? SQLITE_OK : cacheAdd(s, c, b, at);
    if( rc==SQLITE_OK ){
      const KnnCacheBlk *e = &c->a[at];
      *paScale = e->scales + first;
      *paCode = (const int8_t*)(e->codes + 4*(sqlite3_int64)e->count) + (sqlite3_int64)first*dim;
      return SQLITE_OK;
    }
    if( rc!=SQLITE_DONE ) return rc;
  }
  rc = knnQBuf(s, (sqlite3_int64)nSpan*dim);
  if( rc==SQLITE_OK ) rc = knnRead(s, &s->rd.pI8, "vectors_i8", b->id, s->sc.aQBuf, nSpan*dim, first*dim);
  if( rc==SQLITE_OK ) rc = knnRead(s, &s->rd.pScale, "scales", b->id, s->sc.aScale, nSpan*4, first*4);
  *paCode = (const int8_t*)s->sc.aQBuf;
  *paScale = s->sc.aScale;
  return rc;
}
