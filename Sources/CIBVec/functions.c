/*
** functions.c -- ibvec's scalar SQL functions.
**
**   vec_f32(x)                JSON text or float32 blob -> checked float32 blob
**   vec_json(x)               vector -> JSON array text (shortest exact digits)
**   vec_dims(x)               number of dimensions
**   vec_distance_cosine(a,b)  1 - a.b/(|a||b|); 1 when either is zero
**   vec_distance_l2(a,b)      Euclidean distance
**   vec_distance_dot(a,b)     -(a.b)
**   vec_normalize(x)          x/|x| as a float32 blob
**   vec_quantize_i8(x)        int8 codes (ib_quantize_i8: ties to even)
**   vec_quantize_bits(x)      sign bits, least significant first
**   vec_distance_hamming(a,b) differing bits of two equal-length blobs
**   vec_block_i8 / vec_block_scales / vec_block_bits(vectors, dim)
**                             a vector_blocks row's quantised columns
**   ibvec_kernel(), ibvec_set_kernel(name)
**
** Every function returns NULL when an argument is NULL (ibvec_set_kernel
** excepted), and reports bad input through sqlite3_result_error with the
** function's name first.  Distances use the kernel in use (kernels.c).
*/
#include "ibvec_int.h"
#include "ib_simd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reports an error from zErr (NULL: out of memory) and frees it. */
static void resultError(sqlite3_context *ctx, int rc, char *zErr){
  if( rc==SQLITE_NOMEM || zErr==0 ) sqlite3_result_error_nomem(ctx);
  else sqlite3_result_error(ctx, zErr, -1);
  sqlite3_free(zErr);
}

/* Reads a vector argument, reporting errors; non-zero on error. */
static int vecArg(sqlite3_context *ctx, const char *zFunc, sqlite3_value *pVal,
                  IbVec *pOut){
  char *zErr = 0;
  int rc = ibvecParseValue(zFunc, pVal, pOut, &zErr);
  if( rc==SQLITE_ERROR && zErr==0 ) zErr = sqlite3_mprintf("ibvec: error");
  if( rc!=SQLITE_OK ) resultError(ctx, rc, zErr);
  return rc;
}

/* True when any argument is NULL: the functions then return NULL. */
static int anyNull(int argc, sqlite3_value **argv){
  int i;
  for(i=0; i<argc; i++) if( sqlite3_value_type(argv[i])==SQLITE_NULL ) return 1;
  return 0;
}

/* vec_f32(x), vec_dims(x): user data 0 for the blob, 1 for the count. */
static void vecF32Func(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  int bDims = sqlite3_user_data(ctx)!=0;
  IbVec v;
  if( anyNull(argc, argv) ) return;
  if( vecArg(ctx, bDims ? "vec_dims" : "vec_f32", argv[0], &v) ) return;
  if( bDims ){
    sqlite3_result_int(ctx, v.n);
    sqlite3_free(v.a);
  }else{
    sqlite3_result_blob(ctx, v.a, v.n*4, sqlite3_free);
  }
}

/* vec_json(x): each value with the fewest digits that read back as the
** same float32. */
static void vecJsonFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  IbVec v;
  sqlite3_str *pStr;
  int i;
  if( anyNull(argc, argv) ) return;
  if( vecArg(ctx, "vec_json", argv[0], &v) ) return;
  pStr = sqlite3_str_new(sqlite3_context_db_handle(ctx));
  sqlite3_str_appendchar(pStr, 1, '[');
  for(i=0; i<v.n; i++){
    char zBuf[48];
    int p;
    for(p=6; p<=9; p++){
      snprintf(zBuf, sizeof(zBuf), "%.*g", p, (double)v.a[i]);
      if( strtof(zBuf, 0)==v.a[i] ) break;
    }
    if( i ) sqlite3_str_appendchar(pStr, 1, ',');
    sqlite3_str_appendall(pStr, zBuf);
  }
  sqlite3_str_appendchar(pStr, 1, ']');
  sqlite3_free(v.a);
  if( sqlite3_str_errcode(pStr) ){
    sqlite3_free(sqlite3_str_finish(pStr));
    sqlite3_result_error_nomem(ctx);
    return;
  }
  sqlite3_result_text(ctx, sqlite3_str_finish(pStr), -1, sqlite3_free);
}

/* The three float distances, by user data. */
enum { DIST_COSINE = 0, DIST_L2 = 1, DIST_DOT = 2 };
static const char *const azDistName[] = {
  "vec_distance_cosine", "vec_distance_l2", "vec_distance_dot"
};

/* vec_distance_cosine / _l2 / _dot (a, b): two vectors of one dimension. */
static void vecDistanceFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  int eDist = (int)(intptr_t)sqlite3_user_data(ctx);
  const char *zFunc = azDistName[eDist];
  const IbKernel *K = ibvecKernel();
  IbVec a, b = {0, 0};
  if( anyNull(argc, argv) ) return;
  if( vecArg(ctx, zFunc, argv[0], &a) ) return;
  if( vecArg(ctx, zFunc, argv[1], &b)==SQLITE_OK && a.n!=b.n ){
    resultError(ctx, SQLITE_ERROR, sqlite3_mprintf("%s: dimension mismatch (%d vs %d)",
                                                   zFunc, a.n, b.n));
  }else if( b.a && eDist==DIST_COSINE ){
    float dot, bb, aa = K->xDot(a.a, a.a, a.n);
    K->xCosBatch(a.a, b.a, 1, a.n, &dot, &bb);
    sqlite3_result_double(ctx, ibvecCosDist(dot, sqrt((double)aa), bb));
  }else if( b.a && eDist==DIST_L2 ){
    sqlite3_result_double(ctx, sqrt((double)K->xL2sq(a.a, b.a, a.n)));
  }else if( b.a ){
    sqlite3_result_double(ctx, -(double)K->xDot(a.a, b.a, a.n));
  }
  sqlite3_free(a.a); sqlite3_free(b.a);
}

/* vec_normalize(x): a zero vector (or one whose norm overflows) is an error. */
static void vecNormalizeFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  IbVec v;
  float nn, inv;
  int i;
  if( anyNull(argc, argv) ) return;
  if( vecArg(ctx, "vec_normalize", argv[0], &v) ) return;
  nn = ibvecKernel()->xDot(v.a, v.a, v.n);
  if( !(nn>0.0f) || !isfinite(nn) ){
    sqlite3_result_error(ctx, nn>0.0f ? "vec_normalize: the vector's norm overflows float32"
                                      : "vec_normalize: cannot normalise a zero vector", -1);
    sqlite3_free(v.a);
    return;
  }
  inv = (float)(1.0/sqrt((double)nn));
  for(i=0; i<v.n; i++) v.a[i] *= inv;
  sqlite3_result_blob(ctx, v.a, v.n*4, sqlite3_free);
}

/* What a quantiser makes of one vector (the per-vector functions and the
** block helpers). */
enum { QUANT_I8 = 1, QUANT_SCALES = 2, QUANT_BITS = 3 };

/* Bytes per vector of dim dimensions. */
static sqlite3_int64 quantBytes(int eWhat, sqlite3_int64 dim){
  return eWhat==QUANT_I8 ? dim : eWhat==QUANT_SCALES ? 4 : (dim+7)/8;
}

/* Quantises one vector x of dim floats into out (quantBytes bytes). */
static void quantOne(int eWhat, const float *x, int dim, unsigned char *out){
  float scale;
  if( eWhat==QUANT_I8 ){
    ib_quantize_i8(x, dim, (int8_t*)out, &scale);
  }else if( eWhat==QUANT_SCALES ){
    scale = ib_scale_i8(x, dim);
    memcpy(out, &scale, 4);
  }else{
    ibvec_quantize_bits(x, dim, out);
  }
}

/* vec_quantize_i8(x), vec_quantize_bits(x): one vector's codes or bits. */
static void vecQuantizeFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  int eWhat = (int)(intptr_t)sqlite3_user_data(ctx);
  IbVec v;
  unsigned char *out;
  int nOut;
  if( anyNull(argc, argv) ) return;
  if( vecArg(ctx, eWhat==QUANT_I8 ? "vec_quantize_i8" : "vec_quantize_bits",
             argv[0], &v) ) return;
  nOut = (int)quantBytes(eWhat, v.n);
  out = sqlite3_malloc(nOut);
  if( out==0 ){ sqlite3_free(v.a); sqlite3_result_error_nomem(ctx); return; }
  quantOne(eWhat, v.a, v.n, out);
  sqlite3_result_blob(ctx, out, nOut, sqlite3_free);
  sqlite3_free(v.a);
}

/* vec_distance_hamming(a,b): differing bits of two equal-length blobs. */
static void vecHammingFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  int na, nb;
  if( anyNull(argc, argv) ) return;
  if( sqlite3_value_type(argv[0])!=SQLITE_BLOB || sqlite3_value_type(argv[1])!=SQLITE_BLOB ){
    sqlite3_result_error(ctx, "vec_distance_hamming: both arguments must be bit blobs", -1);
    return;
  }
  na = sqlite3_value_bytes(argv[0]);
  nb = sqlite3_value_bytes(argv[1]);
  if( na!=nb ){
    resultError(ctx, SQLITE_ERROR, sqlite3_mprintf(
        "vec_distance_hamming: length mismatch (%d vs %d bytes)", na, nb));
    return;
  }
  if( na==0 ){
    sqlite3_result_error(ctx, "vec_distance_hamming: empty blob", -1);
    return;
  }
  sqlite3_result_int64(ctx, ibvecHamming(sqlite3_value_blob(argv[0]),
                                         sqlite3_value_blob(argv[1]), na));
}

/* Checks the arguments of a block helper: a float32 blob and a dim that
** divides it.  Returns the number of vectors, or 0 after reporting. */
static sqlite3_int64 blockArgs(sqlite3_context *ctx, const char *zFunc,
                               sqlite3_value **argv, sqlite3_int64 *pDim){
  sqlite3_int64 dim, nByte;
  if( sqlite3_value_type(argv[0])!=SQLITE_BLOB ){
    resultError(ctx, SQLITE_ERROR, sqlite3_mprintf(
        "%s: the first argument must be a float32 blob", zFunc));
    return 0;
  }
  if( sqlite3_value_type(argv[1])!=SQLITE_INTEGER
   || (dim = sqlite3_value_int64(argv[1]))<1 || dim>IBVEC_MAX_DIM ){
    resultError(ctx, SQLITE_ERROR, sqlite3_mprintf(
        "%s: dim must be an integer in 1..%d", zFunc, IBVEC_MAX_DIM));
    return 0;
  }
  nByte = sqlite3_value_bytes(argv[0]);
  if( nByte==0 || nByte % (dim*4) ){
    resultError(ctx, SQLITE_ERROR, sqlite3_mprintf(
        "%s: blob length %lld is not a positive multiple of dim*4 (%lld)",
        zFunc, nByte, dim*4));
    return 0;
  }
  *pDim = dim;
  return nByte / (dim*4);
}

/* Quantises count vectors of dim floats at p into out; 0, or the index of
** the first vector with a NaN or infinite value, plus one (*pj: which). */
static sqlite3_int64 quantBlock(int eWhat, const unsigned char *p, sqlite3_int64 count,
                                sqlite3_int64 dim, float *tmp, unsigned char *out,
                                sqlite3_int64 *pj){
  sqlite3_int64 i, j, per = quantBytes(eWhat, dim);
  for(i=0; i<count; i++){
    memcpy(tmp, p + i*dim*4, (size_t)dim*4);
    if( !ibvecAllFinite(tmp, dim) ){
      for(j=0; isfinite(tmp[j]); j++){}
      *pj = j;
      return i+1;
    }
    quantOne(eWhat, tmp, (int)dim, out + i*per);
  }
  return 0;
}

/* vec_block_i8 / vec_block_scales / vec_block_bits (vectors_blob, dim): a
** block's quantised column, from its count vectors of dim float32. */
static void vecBlockFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  int eWhat = (int)(intptr_t)sqlite3_user_data(ctx);
  const char *zFunc = eWhat==QUANT_I8 ? "vec_block_i8"
                    : eWhat==QUANT_SCALES ? "vec_block_scales" : "vec_block_bits";
  sqlite3_int64 dim = 0, count, outBytes, bad, j = 0;
  float *tmp;
  unsigned char *out;
  if( anyNull(argc, argv) ) return;
  count = blockArgs(ctx, zFunc, argv, &dim);
  if( count==0 ) return;
  outBytes = quantBytes(eWhat, dim)*count;
  tmp = sqlite3_malloc64((sqlite3_uint64)dim*4);
  out = sqlite3_malloc64((sqlite3_uint64)outBytes);
  if( tmp==0 || out==0 ){
    sqlite3_free(tmp); sqlite3_free(out); sqlite3_result_error_nomem(ctx); return;
  }
  bad = quantBlock(eWhat, sqlite3_value_blob(argv[0]), count, dim, tmp, out, &j);
  sqlite3_free(tmp);
  if( bad ){
    sqlite3_free(out);
    resultError(ctx, SQLITE_ERROR, sqlite3_mprintf(
        "%s: vector %lld element %lld is NaN or infinite", zFunc, bad-1, j));
    return;
  }
  sqlite3_result_blob64(ctx, out, (sqlite3_uint64)outBytes, sqlite3_free);
}

/* ibvec_kernel() -> the active kernel's name. */
static void kernelFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  (void)argc; (void)argv;
  sqlite3_result_text(ctx, ibvec_kernel_name(), -1, SQLITE_STATIC);
}

/* ibvec_set_kernel(name) -> the kernel now active.  Process-wide. */
static void setKernelFunc(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  const char *z;
  (void)argc;
  if( sqlite3_value_type(argv[0])!=SQLITE_TEXT ){
    sqlite3_result_error(ctx, "ibvec_set_kernel: expected 'scalar', 'avx2', 'avx512' or 'auto'", -1);
    return;
  }
  z = (const char*)sqlite3_value_text(argv[0]);
  if( ibvec_set_kernel(z)!=0 ){
    resultError(ctx, SQLITE_ERROR, sqlite3_mprintf(
        "ibvec_set_kernel: unknown kernel '%s' or not supported by this CPU "
        "(expected 'scalar', 'avx2', 'avx512' or 'auto')", z));
    return;
  }
  sqlite3_result_text(ctx, ibvec_kernel_name(), -1, SQLITE_STATIC);
}

int ibvecRegisterFunctions(sqlite3 *db){
  enum { PURE = SQLITE_UTF8|SQLITE_DETERMINISTIC|SQLITE_INNOCUOUS,
         STATE = SQLITE_UTF8|SQLITE_INNOCUOUS, DIRECT = SQLITE_UTF8|SQLITE_DIRECTONLY };
  static const struct {
    const char *zName;
    int nArg, flags, eUser;
    void (*xFunc)(sqlite3_context*, int, sqlite3_value**);
  } aFunc[] = {
    { "vec_f32",              1, PURE, 0, vecF32Func },
    { "vec_json",             1, PURE, 0, vecJsonFunc },
    { "vec_dims",             1, PURE, 1, vecF32Func },
    { "vec_distance_cosine",  2, PURE, DIST_COSINE, vecDistanceFunc },
    { "vec_distance_l2",      2, PURE, DIST_L2, vecDistanceFunc },
    { "vec_distance_dot",     2, PURE, DIST_DOT, vecDistanceFunc },
    { "vec_normalize",        1, PURE, 0, vecNormalizeFunc },
    { "vec_quantize_i8",      1, PURE, QUANT_I8, vecQuantizeFunc },
    { "vec_quantize_bits",    1, PURE, QUANT_BITS, vecQuantizeFunc },
    { "vec_distance_hamming", 2, PURE, 0, vecHammingFunc },
    { "vec_block_i8",         2, PURE, QUANT_I8, vecBlockFunc },
    { "vec_block_scales",     2, PURE, QUANT_SCALES, vecBlockFunc },
    { "vec_block_bits",       2, PURE, QUANT_BITS, vecBlockFunc },
    { "ibvec_kernel",         0, STATE, 0, kernelFunc },
    { "ibvec_set_kernel",     1, DIRECT, 0, setKernelFunc },
  };
  int rc = SQLITE_OK;
  size_t i;
  for(i=0; i<sizeof(aFunc)/sizeof(aFunc[0]) && rc==SQLITE_OK; i++){
    rc = sqlite3_create_function(db, aFunc[i].zName, aFunc[i].nArg, aFunc[i].flags,
                                 (void*)(intptr_t)aFunc[i].eUser, aFunc[i].xFunc, 0, 0);
  }
  return rc;
}
