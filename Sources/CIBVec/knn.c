/*
** knn.c -- ibvec_knn, the k-nearest-neighbour table-valued function.
**
**   SELECT book_id, key, end_page, distance
**     FROM ibvec_knn(query, k, scope, mode, model);
**
** WHY.  A reader asks "what does this book say about X, up to the page I
** have read".  Searching first and filtering after returns too few rows (or
** none) and leaks chunks that end past the reader's page.  ibvec_knn
** therefore applies the book scope and the end_page <= limit test INSIDE
** the scan, before a vector is even scored, and always returns k rows when
** at least k vectors pass.  Vectors are stored in contiguous blocks of up
** to 1024 (layout in ibvec.h) so the scan reads large blobs sequentially.
**
** This file holds the virtual-table methods and the search sequence (see
** knn.h); the blocks are read in knn_blocks.c, hits kept in knn_hits.c,
** and the modes are knn_exact.c and knn_quant.c.
*/
#include "knn.h"
#include "ib_simd.h"

#include <stdlib.h>
#include <string.h>

/* Columns of ibvec_knn; the hidden ones are the function arguments. */
#define KNN_BOOK_ID   0
#define KNN_KEY       1
#define KNN_END_PAGE  2
#define KNN_DISTANCE  3
#define KNN_QUERY     4
#define KNN_NARG      5   /* query, k, scope, mode, model */

/* The arguments of one search, as given. */
typedef struct KnnArgs KnnArgs;
struct KnnArgs {
  sqlite3_value *apArg[KNN_NARG];
  KnnScope *aScope;       /* NULL: every book */
  int nScope;
  IbVec query;
};

/* k: an integer in 1..IBVEC_MAX_K, 10 when not given. */
static int argK(KnnSearch *s, sqlite3_value *pVal){
  sqlite3_int64 k;
  s->k = 10;
  if( pVal==0 ) return SQLITE_OK;
  if( sqlite3_value_type(pVal)!=SQLITE_INTEGER
   || (k = sqlite3_value_int64(pVal))<1 || k>IBVEC_MAX_K ){
    s->zErr = sqlite3_mprintf("ibvec_knn: k must be an integer in 1..%d", IBVEC_MAX_K);
    return SQLITE_ERROR;
  }
  s->k = (int)k;
  return SQLITE_OK;
}

/* model: NULL (any) or text. */
static int argModel(KnnSearch *s, sqlite3_value *pVal){
  if( pVal==0 || sqlite3_value_type(pVal)==SQLITE_NULL ) return SQLITE_OK;
  if( sqlite3_value_type(pVal)!=SQLITE_TEXT ){
    s->zErr = sqlite3_mprintf("ibvec_knn: model must be NULL or text");
    return SQLITE_ERROR;
  }
  s->zModel = (const char*)sqlite3_value_text(pVal);
  return SQLITE_OK;
}

/* Reads every argument, in order: query, k, scope, mode, model. */
static int readArgs(KnnSearch *s, KnnArgs *p){
  static const KnnMode *const apMode[] = { &knnExactMode, &knnInt8Mode, &knnBinaryMode };
  int rc, eMode, nPool;
  if( p->apArg[0]==0 ){
    s->zErr = sqlite3_mprintf("ibvec_knn: missing query argument: "
                              "use ibvec_knn(query, k, scope, mode, model)");
    return SQLITE_ERROR;
  }
  rc = ibvecParseValue("ibvec_knn", p->apArg[0], &p->query, &s->zErr);
  if( rc==SQLITE_OK ) rc = argK(s, p->apArg[1]);
  if( rc==SQLITE_OK && p->apArg[2] ){
    rc = knnParseScope(p->apArg[2], &p->aScope, &p->nScope, &s->zErr);
  }
  if( rc==SQLITE_OK ) rc = knnParseMode(p->apArg[3], s->k, &eMode, &nPool, &s->zErr);
  if( rc==SQLITE_OK ) rc = argModel(s, p->apArg[4]);
  if( rc ) return rc;
  s->pMode = apMode[eMode];
  if( eMode==KNN_INT8 ) s->m.i8.pool.nPool = nPool;
  if( eMode==KNN_BINARY ) s->m.bin.pool.nPool = nPool;
  return SQLITE_OK;
}

/* The query's norm, and its int8 codes (for int8 and binary scoring and
** for pruning), widened to int16 and zero-padded for the kernels. */
static int prepareQuery(KnnSearch *s, const IbVec *v){
  KnnQuery *q = &s->q;
  int i, nQ;
  int8_t *q8;
  q->a = v->a; q->dim = v->n;
  q->norm = sqrt((double)s->K->xDot(q->a, q->a, q->dim));
  q->nQBits = (q->dim+7)/8;
  nQ = q->nQBits*8 > q->dim ? q->nQBits*8 : q->dim;
  nQ = (nQ+31) & ~31;
  q8 = sqlite3_malloc(q->dim);
  q->q16 = sqlite3_malloc64(sizeof(int16_t)*(sqlite3_uint64)nQ);
  if( q8==0 || q->q16==0 ){ sqlite3_free(q8); return SQLITE_NOMEM; }
  memset(q->q16, 0, sizeof(int16_t)*(size_t)nQ);
  ib_quantize_i8(q->a, q->dim, q8, 0);
  for(i=0; i<q->dim; i++){
    float a = fabsf(q->a[i]);
    q->maxAbs = a>q->maxAbs ? a : q->maxAbs;
    q->q16[i] = q8[i];
    q->sumAbs8 += abs(q8[i]);
  }
  sqlite3_free(q8);
  return SQLITE_OK;
}

/* The buffers every mode uses: a chunk of float vectors, the kernel's
** outputs for it, and the heap of the k best. */
static int prepareBuffers(KnnSearch *s){
  KnnScratch *sc = &s->sc;
  sc->perChunk = KNN_CHUNK_BYTES/(s->q.dim*4);
  if( sc->perChunk<1 ) sc->perChunk = 1;
  sc->aBuf = sqlite3_malloc64((sqlite3_uint64)sc->perChunk*s->q.dim*4);
  sc->aDot = sqlite3_malloc64(sizeof(float)*(sqlite3_uint64)sc->perChunk);
  sc->aVV = sqlite3_malloc64(sizeof(float)*(sqlite3_uint64)sc->perChunk);
  s->top.a = sqlite3_malloc64(sizeof(KnnHit)*(sqlite3_uint64)s->k);
  s->top.nCap = s->k;
  if( !sc->aBuf || !sc->aDot || !sc->aVV || !s->top.a ) return SQLITE_NOMEM;
  return SQLITE_OK;
}

/* The search, from the arguments to the k best in s->top, nearest first. */
static int knnRun(KnnSearch *s, KnnArgs *p){
  int rc = readArgs(s, p);
  if( rc==SQLITE_OK ) rc = prepareQuery(s, &p->query);
  if( rc==SQLITE_OK ) rc = prepareBuffers(s);
  if( rc==SQLITE_OK ) rc = s->pMode->xInit(s);
  if( rc==SQLITE_OK ) rc = knnCollectScope(s, p->aScope, p->nScope);
  if( rc==SQLITE_OK ) knnCacheBegin(s);
  if( rc==SQLITE_OK ) rc = s->pMode->xPrepare(s);
  if( rc==SQLITE_OK ) rc = knnScanBlocks(s);
  if( rc==SQLITE_OK ) rc = s->pMode->xFinish(s);
  if( rc==SQLITE_OK ) rc = knnFillHits(s, s->top.a, s->top.n);
  if( rc==SQLITE_OK ) qsort(s->top.a, (size_t)s->top.n, sizeof(KnnHit), knnCmpAsc);
  return rc;
}

/* Frees what the search holds (the mode's state too, once it has one). */
static void knnFree(KnnSearch *s, KnnArgs *p){
  if( s->pMode ) s->pMode->xFree(s);
  knnFreeBlocks(s);
  knnFreeScope(p->aScope, p->nScope);
  sqlite3_free(p->query.a);
  sqlite3_free(s->q.q16);
  sqlite3_free(s->top.a);
}

/* ======================================================================
** The virtual table
** ==================================================================== */

static int knnConnect(sqlite3 *db, void *pAux, int argc, const char *const*argv,
                      sqlite3_vtab **ppVtab, char **pzErr){
  KnnVtab *p;
  int rc;
  (void)pAux; (void)argc; (void)argv; (void)pzErr;
  rc = sqlite3_declare_vtab(db,
      "CREATE TABLE x(book_id TEXT, key INTEGER, end_page INTEGER, distance REAL,"
      " query HIDDEN, k HIDDEN, scope HIDDEN, mode HIDDEN, model HIDDEN)");
  if( rc!=SQLITE_OK ) return rc;
  p = sqlite3_malloc(sizeof(*p));
  if( p==0 ) return SQLITE_NOMEM;
  memset(p, 0, sizeof(*p));
  p->db = db;
  sqlite3_vtab_config(db, SQLITE_VTAB_INNOCUOUS);
  *ppVtab = &p->base;
  return SQLITE_OK;
}

static int knnDisconnect(sqlite3_vtab *pVtab){
  KnnVtab *p = (KnnVtab*)pVtab;
  knnCacheClear(&p->cache);
  sqlite3_finalize(p->apStmt[0]);
  sqlite3_finalize(p->apStmt[1]);
  sqlite3_free(pVtab);
  return SQLITE_OK;
}

/* idxNum bit i set: hidden argument i (query, k, scope, mode, model) given. */
static int knnBestIndex(sqlite3_vtab *pVtab, sqlite3_index_info *pInfo){
  int i, aIdx[KNN_NARG], mask = 0, n = 0;
  (void)pVtab;
  for(i=0; i<KNN_NARG; i++) aIdx[i] = -1;
  for(i=0; i<pInfo->nConstraint; i++){
    const struct sqlite3_index_constraint *c = &pInfo->aConstraint[i];
    int arg = c->iColumn - KNN_QUERY;
    if( arg<0 || arg>=KNN_NARG ) continue;
    if( c->op!=SQLITE_INDEX_CONSTRAINT_EQ ) continue;
    if( !c->usable ){
      if( arg==0 ) return SQLITE_CONSTRAINT;  /* the query must be known */
      continue;
    }
    aIdx[arg] = i;
  }
  for(i=0; i<KNN_NARG; i++){
    if( aIdx[i]<0 ) continue;
    mask |= 1<<i;
    pInfo->aConstraintUsage[aIdx[i]].argvIndex = ++n;
    pInfo->aConstraintUsage[aIdx[i]].omit = 1;
  }
  pInfo->idxNum = mask;
  pInfo->estimatedCost = (mask & 1) ? 1000.0 : 1e18;
  if( mask & 1 ) pInfo->estimatedRows = 10;
  if( pInfo->nOrderBy==1 && pInfo->aOrderBy[0].iColumn==KNN_DISTANCE
   && !pInfo->aOrderBy[0].desc ){
    pInfo->orderByConsumed = 1;
  }
  return SQLITE_OK;
}

static int knnOpen(sqlite3_vtab *pVtab, sqlite3_vtab_cursor **ppCur){
  KnnCursor *c = sqlite3_malloc(sizeof(*c));
  (void)pVtab;
  if( c==0 ) return SQLITE_NOMEM;
  memset(c, 0, sizeof(*c));
  *ppCur = &c->base;
  return SQLITE_OK;
}

static void knnReset(KnnCursor *c){
  int i;
  for(i=0; i<c->nBook; i++) sqlite3_free(c->azBook[i]);
  sqlite3_free(c->azBook);
  sqlite3_free(c->aRow);
  c->azBook = 0; c->nBook = c->nBookAlloc = 0;
  c->aRow = 0; c->nRow = c->iRow = 0;
}

static int knnClose(sqlite3_vtab_cursor *pCur){
  knnReset((KnnCursor*)pCur);
  sqlite3_free(pCur);
  return SQLITE_OK;
}

static int knnFilter(sqlite3_vtab_cursor *pCursor, int idxNum, const char *idxStr,
                     int argc, sqlite3_value **argv){
  KnnCursor *pCur = (KnnCursor*)pCursor;
  KnnVtab *pVtab = (KnnVtab*)pCursor->pVtab;
  KnnSearch s;
  KnnArgs args;
  int rc, i, j = 0;
  (void)idxStr;
  knnReset(pCur);
  memset(&s, 0, sizeof(s));
  memset(&args, 0, sizeof(args));
  args.nScope = -1;
  s.pVtab = pVtab; s.pCur = pCur; s.K = ibvecKernel();
  for(i=0; i<KNN_NARG; i++){
    if( (idxNum & (1<<i)) && j<argc ) args.apArg[i] = argv[j++];
  }
  rc = knnRun(&s, &args);
  if( rc==SQLITE_OK ){
    pCur->aRow = s.top.a; s.top.a = 0;
    pCur->nRow = s.top.n;
  }
  knnFree(&s, &args);
  if( rc!=SQLITE_OK ){
    knnReset(pCur);
    sqlite3_free(pVtab->base.zErrMsg);
    pVtab->base.zErrMsg = s.zErr ? s.zErr : sqlite3_mprintf("ibvec_knn: %s", sqlite3_errstr(rc));
    return rc==SQLITE_NOMEM ? SQLITE_NOMEM : SQLITE_ERROR;
  }
  sqlite3_free(s.zErr);
  return SQLITE_OK;
}

static int knnNext(sqlite3_vtab_cursor *pCur){
  ((KnnCursor*)pCur)->iRow++;
  return SQLITE_OK;
}

static int knnEof(sqlite3_vtab_cursor *pCur){
  KnnCursor *c = (KnnCursor*)pCur;
  return c->iRow>=c->nRow;
}

static int knnColumn(sqlite3_vtab_cursor *pCur, sqlite3_context *ctx, int i){
  KnnCursor *c = (KnnCursor*)pCur;
  const KnnHit *h = &c->aRow[c->iRow];
  switch( i ){
    case KNN_BOOK_ID:  sqlite3_result_text(ctx, c->azBook[h->iBook], -1, SQLITE_TRANSIENT); break;
    case KNN_KEY:      sqlite3_result_int64(ctx, h->key); break;
    case KNN_END_PAGE: sqlite3_result_int64(ctx, h->endPage); break;
    case KNN_DISTANCE: sqlite3_result_double(ctx, h->dist); break;
    default:           sqlite3_result_null(ctx); break;
  }
  return SQLITE_OK;
}

static int knnRowid(sqlite3_vtab_cursor *pCur, sqlite_int64 *pRowid){
  *pRowid = ((KnnCursor*)pCur)->iRow + 1;
  return SQLITE_OK;
}

static sqlite3_module knnModule = {
  0,              /* iVersion */
  0,              /* xCreate: eponymous-only */
  knnConnect,
  knnBestIndex,
  knnDisconnect,
  0,              /* xDestroy */
  knnOpen,
  knnClose,
  knnFilter,
  knnNext,
  knnEof,
  knnColumn,
  knnRowid,
  0, 0, 0, 0, 0, 0, 0  /* xUpdate .. xRename; later members zero */
};

int ibvecRegisterKnn(sqlite3 *db){
  return sqlite3_create_module(db, "ibvec_knn", &knnModule, 0);
}
