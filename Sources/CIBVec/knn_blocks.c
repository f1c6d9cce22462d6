/*
** knn_blocks.c -- how ibvec_knn reads vector_blocks.
**
** Phase 1 steps over the rows in scope reading their headers only (id,
** book, model, dim, count and the lengths of the blobs, never their
** content), checks each, and records it with its page limit.  A scope of a
** few books reads only their rows, through the book_id index.
**
** Phase 2 reads the recorded blocks by rowid through incremental blob
** readers, one per column, moved from row to row: the end pages first
** (only when a page limit applies: the filter is applied inside the scan,
** before a vector is scored), then whatever the mode scores.  Reading the
** blobs while the phase-1 statement is still open on the same table proved
** several times slower, hence the two phases.
*/
#include "knn.h"

#include <stdlib.h>
#include <string.h>

/* Columns of the phase-1 statement. */
enum { BK_ID, BK_BOOK, BK_MODEL, BK_DIM, BK_COUNT, BK_LKEYS, BK_LENDS,
       BK_LVEC, BK_LI8, BK_LSCALES, BK_LBITS };

#define BK_SELECT "SELECT id, book_id, model, dim, count, length(keys), length(end_pages)," \
                  " length(vectors), length(vectors_i8), length(scales), length(bits)" \
                  " FROM vector_blocks"

/* Interns a book id; returns its index or -1 (out of memory). */
static int internBook(KnnCursor *c, const char *zBook){
  if( c->nBook>0 && strcmp(c->azBook[c->nBook-1], zBook)==0 ) return c->nBook-1;
  if( c->nBook==c->nBookAlloc ){
    int nNew = c->nBookAlloc ? c->nBookAlloc*2 : 16;
    char **az = sqlite3_realloc64(c->azBook, sizeof(char*)*(sqlite3_uint64)nNew);
    if( az==0 ) return -1;
    c->azBook = az; c->nBookAlloc = nNew;
  }
  c->azBook[c->nBook] = sqlite3_mprintf("%s", zBook);
  if( c->azBook[c->nBook]==0 ) return -1;
  return c->nBook++;
}

/* Is the row in scope (book and model)?  *pLimit: its page limit. */
static int rowInScope(const KnnSearch *s, sqlite3_stmt *pStmt, const KnnScope *aScope,
                      int nScope, sqlite3_int64 *pLimit){
  if( aScope ){
    KnnScope key, *pHit;
    key.zBook = (char*)sqlite3_column_text(pStmt, BK_BOOK);
    if( key.zBook==0 ) return 0;
    pHit = bsearch(&key, aScope, (size_t)nScope, sizeof(KnnScope), knnCmpScope);
    if( pHit==0 ) return 0;
    *pLimit = pHit->maxPage;
  }
  if( s->zModel ){
    const char *zModel = (const char*)sqlite3_column_text(pStmt, BK_MODEL);
    if( zModel==0 || strcmp(zModel, s->zModel)!=0 ) return 0;
  }
  return 1;
}

/* Checks a row in scope: a book, the query's dimension, and a count that
** the keys, end pages and vectors agree with. */
static int rowCheck(KnnSearch *s, sqlite3_stmt *pStmt){
  sqlite3_int64 id = sqlite3_column_int64(pStmt, BK_ID);
  sqlite3_int64 dim = sqlite3_column_int64(pStmt, BK_DIM);
  sqlite3_int64 count = sqlite3_column_int64(pStmt, BK_COUNT);
  const char *zBook = (const char*)sqlite3_column_text(pStmt, BK_BOOK);
  if( zBook==0 ){
    s->zErr = sqlite3_mprintf("ibvec_knn: block %lld has no book_id", id);
    return SQLITE_ERROR;
  }
  if( dim!=s->q.dim ){
    s->zErr = sqlite3_mprintf("ibvec_knn: block %lld (book %s) holds %lld-dimensional "
                              "vectors but the query has %d dimensions", id, zBook, dim, s->q.dim);
    return SQLITE_ERROR;
  }
  if( count<1 || count>IBVEC_MAX_BLOCK
   || sqlite3_column_type(pStmt, BK_LKEYS)!=SQLITE_INTEGER
   || sqlite3_column_int64(pStmt, BK_LKEYS)!=count*8
   || sqlite3_column_int64(pStmt, BK_LENDS)!=count*4
   || sqlite3_column_int64(pStmt, BK_LVEC)!=count*dim*4 ){
    s->zErr = sqlite3_mprintf("ibvec_knn: block %lld is corrupt: count, keys, end_pages "
                              "and vectors disagree", id);
    return SQLITE_ERROR;
  }
  return SQLITE_OK;
}

/* An optional column: 0 NULL, 1 of length want, -1 of another length. */
static signed char optColumn(sqlite3_stmt *pStmt, int iCol, sqlite3_int64 want){
  if( sqlite3_column_type(pStmt, iCol)==SQLITE_NULL ) return 0;
  return sqlite3_column_int64(pStmt, iCol)==want ? 1 : -1;
}

/* Records a checked row as the next block, with its page limit. */
static int rowRecord(KnnSearch *s, sqlite3_stmt *pStmt, sqlite3_int64 limit){
  sqlite3_int64 count = sqlite3_column_int64(pStmt, BK_COUNT), dim = s->q.dim;
  KnnBlk *b;
  if( s->nBlk==s->nBlkAlloc ){
    int nNew = s->nBlkAlloc ? s->nBlkAlloc*2 : 64;
    KnnBlk *a = sqlite3_realloc64(s->aBlk, sizeof(KnnBlk)*(sqlite3_uint64)nNew);
    if( a==0 ) return SQLITE_NOMEM;
    s->aBlk = a; s->nBlkAlloc = nNew;
  }
  b = &s->aBlk[s->nBlk];
  b->id = sqlite3_column_int64(pStmt, BK_ID);
  b->maxPage = limit;
  b->count = (int)count;
  b->iFirst = s->nBlk ? s->aBlk[s->nBlk-1].iFirst + s->aBlk[s->nBlk-1].count : 0;
  b->iBook = internBook(s->pCur, (const char*)sqlite3_column_text(pStmt, BK_BOOK));
  if( b->iBook<0 ) return SQLITE_NOMEM;
  b->eI8 = optColumn(pStmt, BK_LI8, count*dim);
  b->eBits = optColumn(pStmt, BK_LBITS, count*((dim+7)/8));
  b->hasScales = optColumn(pStmt, BK_LSCALES, count*4)>0;
  b->bScored = 0;
  s->nBlk++;
  return SQLITE_OK;
}

/* Steps the phase-1 statement over its rows, recording those in scope. */
static int collectRows(KnnSearch *s, sqlite3_stmt *pStmt, sqlite3_int64 maxPage,
                       const KnnScope *aScope, int nScope){
  int rc;
  while( (rc = sqlite3_step(pStmt))==SQLITE_ROW ){
    sqlite3_int64 limit = maxPage;
    if( !rowInScope(s, pStmt, aScope, nScope, &limit) ) continue;
    rc = rowCheck(s, pStmt);
    if( rc==SQLITE_OK ) rc = rowRecord(s, pStmt, limit);
    if( rc ) return rc;
  }
  if( rc!=SQLITE_DONE ){
    s->zErr = sqlite3_mprintf("ibvec_knn: reading vector_blocks: %s",
                              sqlite3_errmsg(s->pVtab->db));
    return rc;
  }
  return SQLITE_OK;
}

/* The phase-1 statement, prepared once per connection: per book or whole. */
static sqlite3_stmt *collectStmt(KnnSearch *s, int perBook){
  KnnVtab *p = s->pVtab;
  if( p->apStmt[perBook]==0 ){
    int rc = sqlite3_prepare_v3(p->db, perBook
        ? BK_SELECT " WHERE book_id=?1 ORDER BY id" : BK_SELECT " ORDER BY id",
        -1, SQLITE_PREPARE_PERSISTENT, &p->apStmt[perBook], 0);
    if( rc ){
      s->zErr = sqlite3_mprintf("ibvec_knn: cannot read the vector_blocks table: %s",
                                sqlite3_errmsg(p->db));
      p->apStmt[perBook] = 0;
    }
  }
  return p->apStmt[perBook];
}

int knnCollectScope(KnnSearch *s, const KnnScope *aScope, int nScope){
  int perBook = nScope>=0 && nScope<=256, rc = SQLITE_OK, i;
  sqlite3_stmt *pStmt = collectStmt(s, perBook);
  if( pStmt==0 ) return SQLITE_ERROR;
  if( perBook ){
    for(i=0; i<nScope && rc==SQLITE_OK; i++){
      sqlite3_bind_text(pStmt, 1, aScope[i].zBook, -1, SQLITE_STATIC);
      rc = collectRows(s, pStmt, aScope[i].maxPage, 0, 0);
      sqlite3_reset(pStmt);
    }
    sqlite3_clear_bindings(pStmt);
  }else{
    rc = collectRows(s, pStmt, INT64_MAX, aScope, nScope);
    sqlite3_reset(pStmt);
  }
  return rc;
}

/* ======================================================================
** Phase 2
** ==================================================================== */

/* An error reading column zCol of block id. */
static int readError(KnnSearch *s, int rc, const char *zVerb, const char *zCol,
                     sqlite3_int64 id){
  s->zErr = sqlite3_mprintf("ibvec_knn: %s %s of block %lld: %s", zVerb, zCol, id,
                            sqlite3_errmsg(s->pVtab->db));
  return rc;
}

int knnRead(KnnSearch *s, sqlite3_blob **pp, const char *zCol,
            sqlite3_int64 id, void *pBuf, int nByte, int iOff){
  int rc = SQLITE_OK;
  if( *pp ){
    rc = sqlite3_blob_reopen(*pp, id);
    if( rc!=SQLITE_OK ){ sqlite3_blob_close(*pp); *pp = 0; }
  }
  if( *pp==0 ){
    rc = sqlite3_blob_open(s->pVtab->db, "main", "vector_blocks", zCol, id, 0, pp);
    if( rc!=SQLITE_OK ) return readError(s, rc, "cannot read", zCol, id);
  }
  return knnReadMore(s, *pp, zCol, id, pBuf, nByte, iOff);
}

int knnReadMore(KnnSearch *s, sqlite3_blob *p, const char *zCol,
                sqlite3_int64 id, void *pBuf, int nByte, int iOff){
  int rc = sqlite3_blob_read(p, pBuf, nByte, iOff);
  if( rc!=SQLITE_OK ) return readError(s, rc, "reading", zCol, id);
  return SQLITE_OK;
}

int knnQBuf(KnnSearch *s, sqlite3_int64 need){
  KnnScratch *sc = &s->sc;
  if( need>sc->nQBufCap ){
    sqlite3_free(sc->aQBuf);
    sc->aQBuf = sqlite3_malloc64((sqlite3_uint64)need);
    if( sc->aQBuf==0 ){ sc->nQBufCap = 0; return SQLITE_NOMEM; }
    sc->nQBufCap = need;
  }
  return SQLITE_OK;
}

static void freeBlockScratch(KnnScratch *sc){
  sqlite3_free(sc->aIdx); sqlite3_free(sc->aEnd); sqlite3_free(sc->aScale);
  sqlite3_free(sc->aI8Dot); sqlite3_free(sc->aI8VV); sqlite3_free(sc->aUp);
}

/* Sizes the per-vector scratch arrays for a block of count vectors. */
static int blockScratch(KnnScratch *sc, int count){
  sqlite3_uint64 n = (sqlite3_uint64)count;
  if( count<=sc->nBlockCap ) return SQLITE_OK;
  freeBlockScratch(sc);
  sc->aIdx = sqlite3_malloc64(sizeof(int)*n);
  sc->aEnd = sqlite3_malloc64(sizeof(int32_t)*n);
  sc->aScale = sqlite3_malloc64(sizeof(float)*n);
  sc->aI8Dot = sqlite3_malloc64(sizeof(int32_t)*n);
  sc->aI8VV = sqlite3_malloc64(sizeof(int32_t)*n);
  sc->aUp = sqlite3_malloc64(sizeof(double)*n);
  if( !sc->aIdx || !sc->aEnd || !sc->aScale || !sc->aI8Dot || !sc->aI8VV || !sc->aUp ){
    sc->nBlockCap = 0; return SQLITE_NOMEM;
  }
  sc->nBlockCap = count;
  return SQLITE_OK;
}

/* The page filter, inside the scan: the positions of the vectors of block
** b that end by its page limit, into s->sc.aIdx; *pn counts them. */
static int pageFilter(KnnSearch *s, const KnnBlk *b, int *pn){
  int i, rc, n = 0;
  if( b->maxPage>=INT32_MAX ){
    /* no limit an int32 end page could exceed: every vector passes */
    for(i=0; i<b->count; i++) s->sc.aIdx[i] = i;
    *pn = b->count;
    return SQLITE_OK;
  }
  rc = knnRead(s, &s->rd.pEnd, "end_pages", b->id, s->sc.aEnd, b->count*4, 0);
  if( rc ) return rc;
  for(i=0; i<b->count; i++){
    int32_t e;
    memcpy(&e, &s->sc.aEnd[i], 4);
    if( e<=b->maxPage ) s->sc.aIdx[n++] = i;
  }
  *pn = n;
  return SQLITE_OK;
}

int knnScanBlocks(KnnSearch *s){
  int rc = SQLITE_OK, i, nIdx = 0;
  for(i=0; i<s->nBlk && rc==SQLITE_OK; i++){
    KnnBlk *b = &s->aBlk[i];
    rc = blockScratch(&s->sc, b->count);
    if( rc==SQLITE_OK ) rc = pageFilter(s, b, &nIdx);
    if( rc==SQLITE_OK && nIdx>0 ) rc = s->pMode->xBlock(s, b, s->sc.aIdx, nIdx);
  }
  return rc;
}

static int cmpBlockOrder(const void *pa, const void *pb){
  const KnnHit *a = pa, *b = pb;
  if( a->blockId!=b->blockId ) return a->blockId < b->blockId ? -1 : 1;
  return a->idx - b->idx;
}

/* Reads the key and end page of one hit; bSame: the readers are on its row. */
static int fillHit(KnnSearch *s, KnnHit *h, int bSame){
  int64_t key;
  int32_t end;
  int rc;
  if( !bSame ){
    rc = knnRead(s, &s->rd.pKey, "keys", h->blockId, &key, 8, h->idx*8);
    if( rc==SQLITE_OK ) rc = knnRead(s, &s->rd.pEnd, "end_pages", h->blockId, &end, 4, h->idx*4);
  }else{
    rc = knnReadMore(s, s->rd.pKey, "keys", h->blockId, &key, 8, h->idx*8);
    if( rc==SQLITE_OK ) rc = knnReadMore(s, s->rd.pEnd, "end_pages", h->blockId, &end, 4, h->idx*4);
  }
  if( rc ) return rc;
  h->key = key; h->endPage = end;
  return SQLITE_OK;
}

int knnFillHits(KnnSearch *s, KnnHit *a, int n){
  int i, rc = SQLITE_OK;
  qsort(a, (size_t)n, sizeof(KnnHit), cmpBlockOrder);
  for(i=0; i<n && rc==SQLITE_OK; i++){
    rc = fillHit(s, &a[i], i>0 && a[i].blockId==a[i-1].blockId);
  }
  return rc;
}

void knnFreeBlocks(KnnSearch *s){
  sqlite3_blob *ap[] = { s->rd.pVec, s->rd.pI8, s->rd.pBits,
                         s->rd.pEnd, s->rd.pKey, s->rd.pScale };
  size_t i;
  for(i=0; i<sizeof(ap)/sizeof(ap[0]); i++) if( ap[i] ) sqlite3_blob_close(ap[i]);
  memset(&s->rd, 0, sizeof(s->rd));
  freeBlockScratch(&s->sc);
  sqlite3_free(s->sc.aBuf); sqlite3_free(s->sc.aDot); sqlite3_free(s->sc.aVV);
  sqlite3_free(s->sc.aQBuf);
  memset(&s->sc, 0, sizeof(s->sc));
  sqlite3_free(s->aBlk);
  s->aBlk = 0; s->nBlk = s->nBlkAlloc = 0;
}
