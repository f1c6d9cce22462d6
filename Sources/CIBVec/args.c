/*
** args.c -- reading ibvec's arguments.
**
** WHAT.  Vectors, given as little-endian float32 blobs or as JSON array
** text, checked and copied into an IbVec; ibvec_knn's scope (a JSON object
** {"book_id": max_end_page or null, ...}) and its mode ('exact', 'int8' or
** 'binary', optionally ':POOL').
**
** WHY HERE.  Every function and ibvec_knn read their arguments the same way
** and word their errors the same way; json-c is used in this file only.
** json-c stays (rather than a small parser of our own) because its syntax
** and its error texts ("malformed JSON vector: <json-c's reason>") are part
** of what the SQL functions answer, and a parser written to match them
** would be longer than what it replaces.
*/
#include "ibvec_int.h"

#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

/* Non-zero when only JSON white space follows the parsed value. */
static int jsonRestIsBlank(struct json_tokener *tok, const char *z, size_t nz){
  size_t end = json_tokener_get_parse_end(tok);
  for(; end<nz; end++){
    char c = z[end];
    if( c!=' ' && c!='\t' && c!='\n' && c!='\r' ) return 0;
  }
  return 1;
}

/* Parses z[0..nz) as one JSON value into *ppObj: NULL on a syntax error,
** with *pzWhy set to json-c's reason.  *pbMore: non-blank text follows the
** value.  Returns SQLITE_NOMEM when json-c cannot start, else SQLITE_OK. */
static int jsonParse(const char *z, int nz, json_object **ppObj,
                     const char **pzWhy, int *pbMore){
  struct json_tokener *tok = json_tokener_new();
  enum json_tokener_error e;
  if( tok==0 ) return SQLITE_NOMEM;
  *ppObj = json_tokener_parse_ex(tok, z, nz);
  e = json_tokener_get_error(tok);
  if( *ppObj==0 || e!=json_tokener_success ){
    *pzWhy = e==json_tokener_continue ? "unexpected end of text"
                                      : json_tokener_error_desc(e);
    if( *ppObj ) json_object_put(*ppObj);
    *ppObj = 0;
  }else{
    *pbMore = !jsonRestIsBlank(tok, z, (size_t)nz);
  }
  json_tokener_free(tok);
  return SQLITE_OK;
}

/* Copies the numbers of a JSON array into pOut->a (allocated by the
** caller, nArr floats). */
static int jsonFloats(const char *zFunc, json_object *pArr, size_t nArr,
                      IbVec *pOut, char **pzErr){
  size_t i;
  for(i=0; i<nArr; i++){
    json_object *pEl = json_object_array_get_idx(pArr, i);
    float f;
    if( !json_object_is_type(pEl, json_type_double)
     && !json_object_is_type(pEl, json_type_int) ){
      *pzErr = sqlite3_mprintf("%s: element %lld of the JSON vector is not a number",
                               zFunc, (long long)i);
      return SQLITE_ERROR;
    }
    f = (float)json_object_get_double(pEl);
    if( !isfinite(f) ){
      *pzErr = sqlite3_mprintf("%s: element %lld is NaN, infinite or out of float32 range",
                               zFunc, (long long)i);
      return SQLITE_ERROR;
    }
    pOut->a[i] = f;
  }
  pOut->n = (int)nArr;
  return SQLITE_OK;
}

/* Checks that pObj is a non-empty array of at most IBVEC_MAX_DIM values
** and reads it into *pOut. */
static int jsonVector(const char *zFunc, json_object *pObj, IbVec *pOut,
                      char **pzErr){
  size_t nArr;
  if( !json_object_is_type(pObj, json_type_array) ){
    *pzErr = sqlite3_mprintf("%s: a JSON vector must be an array of numbers", zFunc);
    return SQLITE_ERROR;
  }
  nArr = json_object_array_length(pObj);
  if( nArr==0 ){
    *pzErr = sqlite3_mprintf("%s: empty vector", zFunc);
    return SQLITE_ERROR;
  }
  if( nArr>IBVEC_MAX_DIM ){
    *pzErr = sqlite3_mprintf("%s: too many dimensions (%lld > %d)", zFunc,
                             (long long)nArr, IBVEC_MAX_DIM);
    return SQLITE_ERROR;
  }
  pOut->a = sqlite3_malloc64(sizeof(float)*nArr);
  if( pOut->a==0 ){
    *pzErr = sqlite3_mprintf("%s: out of memory", zFunc);
    return SQLITE_NOMEM;
  }
  return jsonFloats(zFunc, pObj, nArr, pOut, pzErr);
}

/* Parses JSON array text into *pOut. */
static int parseJsonVector(const char *zFunc, const char *z, int nz,
                           IbVec *pOut, char **pzErr){
  json_object *pObj = 0;
  const char *zWhy = "";
  int rc, bMore = 0;
  if( jsonParse(z, nz, &pObj, &zWhy, &bMore) ){
    *pzErr = sqlite3_mprintf("%s: out of memory", zFunc);
    return SQLITE_NOMEM;
  }
  if( pObj==0 ){
    *pzErr = sqlite3_mprintf("%s: malformed JSON vector: %s", zFunc, zWhy);
    return SQLITE_ERROR;
  }
  if( bMore ){
    *pzErr = sqlite3_mprintf("%s: malformed JSON vector: text after the array", zFunc);
    rc = SQLITE_ERROR;
  }else{
    rc = jsonVector(zFunc, pObj, pOut, pzErr);
  }
  json_object_put(pObj);
  return rc;
}

/* Validates and copies a float32 blob. */
static int parseBlobVector(const char *zFunc, const void *p, int nByte,
                           IbVec *pOut, char **pzErr){
  int n, i;
  if( nByte<=0 ){ *pzErr = sqlite3_mprintf("%s: empty vector", zFunc); return SQLITE_ERROR; }
  if( nByte%4 ){
    *pzErr = sqlite3_mprintf("%s: blob length %d is not a multiple of 4 (float32)", zFunc, nByte);
    return SQLITE_ERROR;
  }
  n = nByte/4;
  if( n>IBVEC_MAX_DIM ){
    *pzErr = sqlite3_mprintf("%s: too many dimensions (%d > %d)", zFunc, n, IBVEC_MAX_DIM);
    return SQLITE_ERROR;
  }
  pOut->a = sqlite3_malloc64((sqlite3_uint64)nByte);
  if( pOut->a==0 ){ *pzErr = sqlite3_mprintf("%s: out of memory", zFunc); return SQLITE_NOMEM; }
  memcpy(pOut->a, p, (size_t)nByte);
  if( !ibvecAllFinite(pOut->a, n) ) for(i=0; i<n; i++){
    if( !isfinite(pOut->a[i]) ){
      *pzErr = sqlite3_mprintf("%s: element %d is NaN or infinite", zFunc, i);
      return SQLITE_ERROR;
    }
  }
  pOut->n = n;
  return SQLITE_OK;
}

int ibvecParseValue(const char *zFunc, sqlite3_value *pVal, IbVec *pOut,
                    char **pzErr){
  int rc;
  pOut->a = 0; pOut->n = 0;
  switch( sqlite3_value_type(pVal) ){
    case SQLITE_BLOB: {
      const void *p = sqlite3_value_blob(pVal);
      rc = parseBlobVector(zFunc, p, sqlite3_value_bytes(pVal), pOut, pzErr);
      break;
    }
    case SQLITE_TEXT: {
      const char *z = (const char*)sqlite3_value_text(pVal);
      if( z==0 ){ *pzErr = sqlite3_mprintf("%s: out of memory", zFunc); return SQLITE_NOMEM; }
      rc = parseJsonVector(zFunc, z, sqlite3_value_bytes(pVal), pOut, pzErr);
      break;
    }
    case SQLITE_NULL:
      *pzErr = sqlite3_mprintf("%s: the vector is NULL", zFunc);
      return SQLITE_ERROR;
    default:
      *pzErr = sqlite3_mprintf("%s: expected a float32 blob or JSON array text, not a number", zFunc);
      return SQLITE_ERROR;
  }
  if( rc!=SQLITE_OK ){ sqlite3_free(pOut->a); pOut->a = 0; pOut->n = 0; }
  return rc;
}

/* ======================================================================
** ibvec_knn's scope and mode
** ==================================================================== */

int knnCmpScope(const void *pa, const void *pb){
  return strcmp(((const KnnScope*)pa)->zBook, ((const KnnScope*)pb)->zBook);
}

void knnFreeScope(KnnScope *a, int n){
  int i;
  for(i=0; i<n; i++) sqlite3_free(a[i].zBook);
  sqlite3_free(a);
}

/* Reads the members of a scope object into a (room for all of them);
** *pn counts the entries made, also on error. */
static int scopeMembers(json_object *pObj, KnnScope *a, int *pn, char **pzErr){
  json_object_object_foreach(pObj, zKey, pV){
    sqlite3_int64 lim;
    if( pV==0 || json_object_is_type(pV, json_type_null) ){
      lim = INT64_MAX;
    }else if( json_object_is_type(pV, json_type_int) ){
      lim = json_object_get_int64(pV);
    }else{
      *pzErr = sqlite3_mprintf("ibvec_knn: scope value for book \"%s\" must be an "
                               "integer page or null", zKey);
      return SQLITE_ERROR;
    }
    a[*pn].zBook = sqlite3_mprintf("%s", zKey);
    if( a[*pn].zBook==0 ) return SQLITE_NOMEM;
    a[*pn].maxPage = lim;
    (*pn)++;
  }
  return SQLITE_OK;
}

/* The scope object pObj as a sorted array. */
static int scopeFromJson(json_object *pObj, KnnScope **paScope, int *pnScope,
                         char **pzErr){
  int n = 0, rc;
  KnnScope *a = sqlite3_malloc64(sizeof(KnnScope)*((sqlite3_uint64)json_object_object_length(pObj)+1));
  if( a==0 ) return SQLITE_NOMEM;
  rc = scopeMembers(pObj, a, &n, pzErr);
  if( rc!=SQLITE_OK ){ knnFreeScope(a, n); return rc; }
  qsort(a, (size_t)n, sizeof(KnnScope), knnCmpScope);
  *paScope = a; *pnScope = n;
  return SQLITE_OK;
}

int knnParseScope(sqlite3_value *pVal, KnnScope **paScope, int *pnScope,
                  char **pzErr){
  const char *z, *zWhy = "";
  json_object *pObj = 0;
  int rc, bMore = 0;
  int bText = sqlite3_value_type(pVal)==SQLITE_TEXT;
  *paScope = 0; *pnScope = -1;
  if( sqlite3_value_type(pVal)==SQLITE_NULL ) return SQLITE_OK;
  if( bText ){
    z = (const char*)sqlite3_value_text(pVal);
    if( z==0 || jsonParse(z, sqlite3_value_bytes(pVal), &pObj, &zWhy, &bMore) ){
      return SQLITE_NOMEM;
    }
  }
  if( pObj==0 || !json_object_is_type(pObj, json_type_object) ){
    *pzErr = sqlite3_mprintf("ibvec_knn: scope must be %sa JSON object "
                             "{\"book_id\": max_end_page or null, ...}",
                             bText ? "" : "NULL or ");
    rc = SQLITE_ERROR;
  }else if( bMore ){
    *pzErr = sqlite3_mprintf("ibvec_knn: malformed scope JSON: text after the object");
    rc = SQLITE_ERROR;
  }else{
    rc = scopeFromJson(pObj, paScope, pnScope, pzErr);
  }
  if( pObj ) json_object_put(pObj);
  return rc;
}

/* The pool size after ':' in the mode text z. */
static int modePool(const char *z, const char *zColon, int k, int *pnPool,
                    char **pzErr){
  char *zEnd = 0;
  long v = strtol(zColon+1, &zEnd, 10);
  if( zColon[1]==0 || *zEnd!=0 || v<k || v>IBVEC_MAX_POOL ){
    *pzErr = sqlite3_mprintf("ibvec_knn: mode '%s': the pool size after ':' must be "
                             "an integer in k..%d", z, IBVEC_MAX_POOL);
    return SQLITE_ERROR;
  }
  *pnPool = (int)v;
  return SQLITE_OK;
}

int knnParseMode(sqlite3_value *pVal, int k, int *peMode, int *pnPool,
                 char **pzErr){
  const char *z, *zColon;
  size_t nName;
  *peMode = KNN_EXACT; *pnPool = 0;
  if( pVal==0 || sqlite3_value_type(pVal)==SQLITE_NULL ) return SQLITE_OK;
  if( sqlite3_value_type(pVal)!=SQLITE_TEXT ) goto bad;
  z = (const char*)sqlite3_value_text(pVal);
  if( z==0 ) return SQLITE_NOMEM;
  zColon = strchr(z, ':');
  nName = zColon ? (size_t)(zColon-z) : strlen(z);
  if( nName==5 && strncmp(z, "exact", 5)==0 && !zColon ) return SQLITE_OK;
  if( nName==4 && strncmp(z, "int8", 4)==0 ){
    *peMode = KNN_INT8;
    *pnPool = k*8 > 64 ? k*8 : 64;
  }else if( nName==6 && strncmp(z, "binary", 6)==0 ){
    *peMode = KNN_BINARY;
    *pnPool = -(k*64 > 1024 ? k*64 : 1024);  /* negative: scaled to the scope */
  }else{
    goto bad;
  }
  if( zColon && modePool(z, zColon, k, pnPool, pzErr) ) return SQLITE_ERROR;
  if( *pnPool > IBVEC_MAX_POOL ) *pnPool = IBVEC_MAX_POOL;
  if( *pnPool < -IBVEC_MAX_POOL ) *pnPool = -IBVEC_MAX_POOL;
  return SQLITE_OK;
bad:
  *pzErr = sqlite3_mprintf("ibvec_knn: mode must be 'exact', 'int8' or 'binary' "
                           "(optionally followed by ':POOL')");
  return SQLITE_ERROR;
}
