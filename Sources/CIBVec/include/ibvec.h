/*
** ibvec: float32 vector functions and in-scan filtered k-nearest-neighbour
** search for SQLite.  The sources are Sources/CIBVec (ibvec_int.h lists the
** parts) and Sources/CIBSimd; man/man7/ibvec.7 is the full reference.
**
** The extension is compiled two ways:
**   - into the ib executables with SQLITE_CORE defined; call
**     sqlite3_ibvec_init(db, 0, 0) on each connection, or register it once with
**     sqlite3_auto_extension((void(*)(void))sqlite3_ibvec_init);
**   - as a loadable extension (scripts/build-ibvec makes ibvec.so):
**       sqlite3 library.db '.load ./ibvec' 'select vec_dims(vec_f32(''[1,2,3]''))'
**
** Storage contract.  ibvec_knn reads vectors stored contiguously, up to 1024 per
** row, in this table (created by the library's migrations, not by ibvec):
**
**   CREATE TABLE vector_blocks (
**     id INTEGER PRIMARY KEY,
**     book_id TEXT NOT NULL,
**     model TEXT NOT NULL,
**     dim INTEGER NOT NULL,
**     count INTEGER NOT NULL,          -- vectors in this block (<= 1024)
**     keys BLOB NOT NULL,              -- int64 LE x count: the chunk index within the book
**     end_pages BLOB NOT NULL,         -- int32 LE x count: each chunk's end_page
**     scales BLOB,                     -- optional float32 x count, per-vector scales for vectors_i8
**     bits BLOB,                       -- optional sign bits (count x dim/8), for binary search with float re-scoring
**     vectors_i8 BLOB,                 -- optional int8 quantised copy (count x dim), for the opt-in quantised index
**     vectors BLOB NOT NULL            -- float32 LE x count x dim, row-major
**   );
**   CREATE INDEX vector_blocks_book ON vector_blocks(book_id);
**
** The quantised columns are made from the float block by the SQL functions
** vec_block_i8(vectors, dim), vec_block_scales(vectors, dim) and
** vec_block_bits(vectors, dim), or by the C helpers below.
**
** Columns are read by name, in any order; the small ones first and the float
** vectors last is fastest (SQLite reaches a column by walking the row's
** overflow-page chain from its start).  Recommended connection settings for
** large libraries: create the database with PRAGMA page_size=65536 and open
** it with a large PRAGMA mmap_size (for example 4294967296).
*/
#ifndef IBVEC_H
#define IBVEC_H

#include <stdint.h>
#include <sqlite3.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Registers every ibvec SQL function and the ibvec_knn table-valued function
** on db.  Returns SQLITE_OK or an error code (with *pzErrMsg set when
** pzErrMsg is not NULL).  pApi may be NULL when compiled with SQLITE_CORE. */
int sqlite3_ibvec_init(sqlite3 *db, char **pzErrMsg, const sqlite3_api_routines *pApi);

/* Threads for exact kNN's int8 code scan, lent by the host (parallel.c): run
** calls fn(ctx, part) for part 0..<parts on up to `threads` threads, the
** caller's among them, and returns when all are done (the signature of the
** ib executables' ib_pool_run). NULL (the default): one thread. */
typedef void (*ibvec_parallel_fn)(int threads, int parts, void (*fn)(void *ctx, int part), void *ctx);
void ibvec_set_parallel(ibvec_parallel_fn run);
/* How many threads the next scans may use (1 to 64; the default 1). Process-wide. */
void ibvec_set_scan_threads(int threads);

/* The distance kernel in use: "scalar", "avx2" or "avx512". */
const char *ibvec_kernel_name(void);

/* Forces a kernel: "scalar", "avx2", "avx512" or "auto".  Returns 0 on
** success, -1 when the name is unknown or the CPU lacks the instructions. */
int ibvec_set_kernel(const char *name);

/* Quantises one vector of dim floats to int8 codes with one symmetric scale:
** scale = max|x| / 127, code = round-half-even(x / max|x| * 127); so
** x ~= code * scale.  A zero vector gets scale 0 and all-zero codes.  (The
** same function as CIBSimd's ib_quantize_i8, which ib-embed's window codes
** use: one rounding rule.) */
void ibvec_quantize_i8(const float *x, int dim, int8_t *codes, float *scale);

/* Sign bits of one vector: bit i (byte i/8, bit i%8, least significant bit
** first) is 1 when x[i] > 0.  Writes (dim + 7) / 8 bytes. */
void ibvec_quantize_bits(const float *x, int dim, uint8_t *bits);

#ifdef __cplusplus
}
#endif

#endif /* IBVEC_H */
