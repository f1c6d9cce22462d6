/*
** ib_rank: the FTS5 auxiliary function ib_concepts, BM25 over concepts (a
** query word and its synonyms) instead of single terms. See ib_rank.c.
*/
#ifndef IB_RANK_H
#define IB_RANK_H
#include <sqlite3.h>

/* Registers ib_concepts, ib_concepts_top and ib_bm25 with the connection's FTS5. Returns an SQLite code. */
int ib_rank_register(sqlite3 *db);

#endif
