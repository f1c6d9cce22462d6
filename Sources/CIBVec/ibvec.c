/*
** ibvec.c -- float32 vector functions and filtered k-nearest-neighbour
** search for SQLite: the entry point.
**
** WHAT.  SQL functions over float32 vectors (functions.c) and the
** eponymous table-valued function ibvec_knn (knn.c), which finds the k
** nearest vectors in the vector_blocks table with the book scope and page
** limit applied inside the scan.  Layout and contract: include/ibvec.h;
** reference: man/man7/ibvec.7; the parts: ibvec_int.h.
**
** BUILD.  Compiled into the ib executables with SQLITE_CORE (call
** sqlite3_ibvec_init directly), or with the rest of Sources/CIBVec and
** Sources/CIBSimd as a loadable extension (scripts/build-ibvec):
**   sqlite3 library.db '.load ./ibvec' "select vec_json(vec_f32('[1,2]'))"
*/
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT1
#include "ibvec_int.h"

#ifdef _WIN32
__declspec(dllexport)
#endif
int sqlite3_ibvec_init(sqlite3 *db, char **pzErrMsg, const sqlite3_api_routines *pApi){
  int rc;
  SQLITE_EXTENSION_INIT2(pApi);
  (void)pApi;
  if( db==0 ) return SQLITE_MISUSE;
  rc = ibvecRegisterFunctions(db);
  if( rc==SQLITE_OK ) rc = ibvecRegisterKnn(db);
  if( rc!=SQLITE_OK && pzErrMsg ){
    *pzErrMsg = sqlite3_mprintf("ibvec: registration failed: %s", sqlite3_errmsg(db));
  }
  return rc;
}
