/*
** libFuzzer target for ibvec (built and run by scripts/fuzz/ibvec).
**
** The input drives one SQL call on an in-memory database that holds a small
** vector_blocks table: the first byte picks the function (and the kernel),
** the rest is split at the first 0xFF byte into two arguments, each passed as
** a blob or as text.  Besides crashes and sanitizer reports it checks two
** invariants and traps when they fail:
**   - the float distance functions give bit-identical results with the
**     scalar, AVX2 and AVX-512 kernels;
**   - ibvec_knn returns at most k rows, in ascending distance order, and
**     never a vector past the page limit of its book;
**   - exact ibvec_knn over blocks with int8 codes (which prune) returns the
**     same rows and distance bits as over the same blocks without them.
** Some inputs are also inserted as a raw block row (inside a savepoint that
** is rolled back) so the block validation in ibvec_knn is fuzzed too.
*/
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "ibvec.h"

static sqlite3 *db;
static const char *azKernel[] = { "scalar", "avx2", "avx512" };
static int nKernel = 1;

static void setupOnce(void){
  int i;
  if( db ) return;
  if( sqlite3_open(":memory:", &db) ) abort();
  if( sqlite3_ibvec_init(db, 0, 0) ) abort();
  if( sqlite3_exec(db,
      "CREATE TABLE vector_blocks (id INTEGER PRIMARY KEY, book_id TEXT NOT NULL,"
      " model TEXT NOT NULL, dim INTEGER NOT NULL, count INTEGER NOT NULL,"
      " keys BLOB NOT NULL, end_pages BLOB NOT NULL, vectors BLOB NOT NULL,"
      " vectors_i8 BLOB, scales BLOB, bits BLOB);"
      "CREATE INDEX vector_blocks_book ON vector_blocks(book_id);", 0, 0, 0) ) abort();
  /* Two books of 4-dimensional vectors, page i%7+1. */
  for(i=0; i<2; i++){
    float v[40*4];
    int64_t keys[40];
    int32_t ends[40];
    sqlite3_stmt *p;
    int j;
    for(j=0; j<40*4; j++) v[j] = (float)((j*37 + i*11) % 19) - 9.0f;
    for(j=0; j<40; j++){ keys[j] = j; ends[j] = j%7 + 1; }
    if( sqlite3_prepare_v2(db, "INSERT INTO vector_blocks(book_id,model,dim,count,keys,"
        "end_pages,vectors,vectors_i8,scales,bits) VALUES(?1,'m',4,40,?2,?3,?4,"
        "vec_block_i8(?4,4),vec_block_scales(?4,4),vec_block_bits(?4,4))", -1, &p, 0) ) abort();
    sqlite3_bind_text(p, 1, i ? "b" : "a", -1, SQLITE_STATIC);
    sqlite3_bind_blob(p, 2, keys, sizeof(keys), SQLITE_STATIC);
    sqlite3_bind_blob(p, 3, ends, sizeof(ends), SQLITE_STATIC);
    sqlite3_bind_blob(p, 4, v, sizeof(v), SQLITE_STATIC);
    if( sqlite3_step(p)!=SQLITE_DONE ) abort();
    sqlite3_finalize(p);
  }
  nKernel = ibvec_set_kernel("avx512")==0 ? 3 : ibvec_set_kernel("avx2")==0 ? 2 : 1;
}

static void bindArg(sqlite3_stmt *p, int i, const uint8_t *z, size_t n, int asText){
  if( asText ) sqlite3_bind_text(p, i, (const char*)z, (int)n, SQLITE_TRANSIENT);
  else sqlite3_bind_blob(p, i, z, (int)n, SQLITE_TRANSIENT);
}

/* Runs sql with the two arguments; returns the first column of the first row
** as a blob of *pn bytes (malloc'd copy), or NULL. */
static void *runOne(const char *zSql, const uint8_t *a, size_t na, int ta,
                    const uint8_t *b, size_t nb, int tb, int *pn){
  sqlite3_stmt *p = 0;
  void *out = 0;
  *pn = -1;
  if( sqlite3_prepare_v2(db, zSql, -1, &p, 0) ) return 0;
  if( sqlite3_bind_parameter_count(p)>=1 ) bindArg(p, 1, a, na, ta);
  if( sqlite3_bind_parameter_count(p)>=2 ) bindArg(p, 2, b, nb, tb);
  if( sqlite3_step(p)==SQLITE_ROW ){
    int n = sqlite3_column_bytes(p, 0);
    const void *z = sqlite3_column_type(p, 0)==SQLITE_FLOAT ? 0 : sqlite3_column_blob(p, 0);
    if( sqlite3_column_type(p, 0)==SQLITE_FLOAT ){
      double d = sqlite3_column_double(p, 0);
      out = malloc(sizeof(d)); memcpy(out, &d, sizeof(d)); *pn = sizeof(d);
    }else{
      out = malloc(n>0 ? (size_t)n : 1);
      if( n>0 && z ) memcpy(out, z, (size_t)n);
      *pn = n;
    }
    while( sqlite3_step(p)==SQLITE_ROW ){}
  }
  sqlite3_finalize(p);
  return out;
}

/* The rows of an exact search as one string (NULL on error). */
static char *exactRows(const uint8_t *a, size_t na, int ta, const uint8_t *b, size_t nb, int k){
  sqlite3_stmt *p = 0;
  sqlite3_str *pStr = sqlite3_str_new(db);
  int rc;
  if( sqlite3_prepare_v2(db, "SELECT book_id, key, end_page, distance FROM "
      "ibvec_knn(?1, ?2, ?3)", -1, &p, 0) ) abort();
  bindArg(p, 1, a, na, ta);
  sqlite3_bind_int(p, 2, k);
  if( nb ) sqlite3_bind_text(p, 3, (const char*)b, (int)nb, SQLITE_TRANSIENT);
  while( (rc = sqlite3_step(p))==SQLITE_ROW ){
    double d = sqlite3_column_double(p, 3);
    uint64_t u;
    memcpy(&u, &d, 8);
    sqlite3_str_appendf(pStr, "%s/%lld/%lld/%llx;", sqlite3_column_text(p, 0),
        sqlite3_column_int64(p, 1), sqlite3_column_int64(p, 2), (unsigned long long)u);
  }
  sqlite3_finalize(p);
  if( rc!=SQLITE_DONE ){ sqlite3_free(sqlite3_str_finish(pStr)); return 0; }
  return sqlite3_str_finish(pStr);
}

static void checkKnn(const uint8_t *a, size_t na, int ta, const uint8_t *b, size_t nb, int k,
                     int bPrune){
  static const char *azMode[] = { "exact", "int8", "binary", "int8:40" };
  sqlite3_stmt *p = 0;
  int m;
  if( bPrune ){
    /* the built-in blocks' int8 codes are genuine: pruning must change nothing */
    char *z1 = exactRows(a, na, ta, b, nb, k), *z2;
    sqlite3_exec(db, "SAVEPOINT p; UPDATE vector_blocks SET vectors_i8 = NULL", 0, 0, 0);
    z2 = exactRows(a, na, ta, b, nb, k);
    sqlite3_exec(db, "ROLLBACK TO p; RELEASE p", 0, 0, 0);
    if( (z1==0)!=(z2==0) || (z1 && strcmp(z1, z2)!=0) ) __builtin_trap();
    sqlite3_free(z1); sqlite3_free(z2);
  }
  for(m=0; m<4; m++){
    double last = -1e300;
    int n = 0;
    if( sqlite3_prepare_v2(db, "SELECT book_id, key, end_page, distance FROM "
        "ibvec_knn(?1, ?2, ?3, ?4)", -1, &p, 0) ) abort();
    bindArg(p, 1, a, na, ta);
    sqlite3_bind_int(p, 2, k);
    if( nb ) sqlite3_bind_text(p, 3, (const char*)b, (int)nb, SQLITE_TRANSIENT);
    sqlite3_bind_text(p, 4, azMode[m], -1, SQLITE_STATIC);
    while( sqlite3_step(p)==SQLITE_ROW ){
      double d = sqlite3_column_double(p, 3);
      const char *book = (const char*)sqlite3_column_text(p, 0);
      int end = sqlite3_column_int(p, 2);
      if( d<last ) __builtin_trap();           /* not ascending */
      last = d;
      if( ++n>k ) __builtin_trap();            /* more than k rows */
      /* the built-in blocks: book "a" under scope {"a":3} must stop at page 3 */
      if( nb==8 && memcmp(b, "{\"a\":3}", 7)==0 && (strcmp(book, "a")!=0 || end>3) ) __builtin_trap();
    }
    sqlite3_finalize(p);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size){
  static const char *azFunc[] = {
    "SELECT vec_f32(?1)", "SELECT vec_json(?1)", "SELECT vec_dims(?1)",
    "SELECT vec_distance_cosine(?1, ?2)", "SELECT vec_distance_l2(?1, ?2)",
    "SELECT vec_distance_dot(?1, ?2)", "SELECT vec_normalize(?1)",
    "SELECT vec_quantize_i8(?1)", "SELECT vec_quantize_bits(?1)",
    "SELECT vec_distance_hamming(?1, ?2)", "SELECT vec_block_i8(?1, 4)",
    "SELECT vec_block_scales(?1, 3)", "SELECT vec_block_bits(?1, 5)",
    "SELECT vec_json(vec_f32(vec_json(?1)))",
  };
  const int nFunc = (int)(sizeof(azFunc)/sizeof(azFunc[0]));
  const uint8_t *a, *b, *sep;
  size_t na, nb;
  int op, ta, tb;

  setupOnce();
  if( size<1 ) return 0;
  op = data[0];
  ta = (op>>5)&1; tb = (op>>6)&1;
  a = data+1; na = size-1;
  sep = memchr(a, 0xFF, na);
  if( sep ){ b = sep+1; nb = na-(size_t)(sep-a)-1; na = (size_t)(sep-a); }
  else { b = a; nb = 0; }

  if( (op&0x1F) < nFunc ){
    const char *zSql = azFunc[op&0x1F];
    int ref = -1, i;
    void *r0 = 0;
    for(i=0; i<nKernel; i++){
      int n;
      void *r;
      ibvec_set_kernel(azKernel[i]);
      r = runOne(zSql, a, na, ta, b, nb, tb, &n);
      if( i==0 ){ r0 = r; ref = n; continue; }
      /* every kernel must give the same bytes */
      if( n!=ref || (n>0 && memcmp(r, r0, (size_t)n)!=0) ) __builtin_trap();
      free(r);
    }
    free(r0);
    ibvec_set_kernel("auto");
  }else if( (op&0x1F) < 24 ){
    checkKnn(a, na, ta, b, nb, (op&7)+1, 1);
  }else{
    /* a raw block row from the input, then a search over it */
    sqlite3_stmt *p = 0;
    int count = (op&3)+1, dim = ((op>>2)&3)+1;
    sqlite3_exec(db, "SAVEPOINT f", 0, 0, 0);
    if( sqlite3_prepare_v2(db, "INSERT INTO vector_blocks(book_id,model,dim,count,keys,"
        "end_pages,vectors,vectors_i8,scales,bits) VALUES('z','m',?3,?4,substr(?1,1,?4*8),"
        "substr(?1,1,?4*4),?1,?2,substr(?2,1,?4*4),?2)", -1, &p, 0)==SQLITE_OK ){
      sqlite3_bind_blob(p, 1, a, (int)na, SQLITE_TRANSIENT);
      sqlite3_bind_blob(p, 2, b, (int)nb, SQLITE_TRANSIENT);
      sqlite3_bind_int(p, 3, dim);
      sqlite3_bind_int(p, 4, count);
      sqlite3_step(p);
      sqlite3_finalize(p);
    }
    {
      static const float q[4] = {1, -2, 3, 0.5f};
      checkKnn((const uint8_t*)q, (size_t)dim*4, 0, (const uint8_t*)"{\"z\":5}", 7, 3, 0);
    }
    sqlite3_exec(db, "ROLLBACK TO f; RELEASE f", 0, 0, 0);
  }
  return 0;
}
