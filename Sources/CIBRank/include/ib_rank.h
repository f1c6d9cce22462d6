/*
** ib_rank: the FTS5 auxiliary function ib_concepts, BM25 over concepts (a
** query word and its synonyms) instead of single terms. See ib_rank.c.
*/
#ifndef IB_RANK_H
#define IB_RANK_H
#include <sqlite3.h>
#include <stddef.h>

/* Registers ib_concepts, ib_concepts_top, ib_bm25 and ib_instances with the connection's FTS5. Returns an SQLite code. */
int ib_rank_register(sqlite3 *db);

/* One query for ib_rank_postings: an OR of `phrases` phrases, each with its
 * postings in memory (rows ascending, the phrase's frequency in each). */
typedef struct IBPostingsQuery {
    int phrases;
    const sqlite3_int64 *const *rows;   /* each phrase's rows */
    const int *const *tf;               /* each phrase's frequency in those rows */
    const int *counts;                  /* each phrase's number of rows */
    int plain;                          /* 1: bm25()'s ranking; 0: ib_concepts()' */
    const int *concept;                 /* ib_concepts: each phrase's concept */
    const double *weight;               /* ib_concepts: each phrase's weight */
    const double *documents;            /* each phrase's document count for its IDF, < 0: its number of rows */
    sqlite3_int64 tableRows;            /* the FTS table's rows and tokens (the average length) */
    sqlite3_int64 tableTokens;
    sqlite3_int64 scopeRows;            /* ib_concepts: the rows the IDF counts against (0: tableRows) */
    sqlite3_int64 base, span;           /* rows base ..< base + span are described below */
    const int *length;                  /* each row's length in tokens, at row - base */
    /* The filter, or rowBook NULL for none: rows low...high whose book's limit is
     * not INT32_MIN and whose end page is at most that limit. */
    const int *rowBook, *rowEndPage, *bookLimit;
    int books;
    sqlite3_int64 low, high;
    int k;
    struct IBPostingsWork *work;        /* NULL, or memory kept from one ranking to the next */
} IBPostingsQuery;

/* The k best rows of the query, best first, as ORDER BY bm25() (or
 * -ib_concepts()), rowid LIMIT k orders them: rows into outRows and their
 * scores (higher is better: -bm25()) into outScores, each of room k. Returns
 * how many, or -1 when out of memory. */
int ib_rank_postings(const IBPostingsQuery *q, sqlite3_int64 *outRows, double *outScores);

/* What ib_rank_postings allocates for a query (a slot for every row of the
 * span, each matched row's frequencies), kept for the next query of the same
 * connection instead of allocated, cleared and freed every time: at 100k rows
 * that was 400 KB zeroed and faulted in per search. The frequencies and rows
 * are let go after a ranking that grew them past keptBytes (0: after every
 * ranking). Not for two rankings at once. ib_postings_work_new returns NULL
 * when out of memory (rank without). */
typedef struct IBPostingsWork IBPostingsWork;
IBPostingsWork *ib_postings_work_new(size_t keptBytes);
void ib_postings_work_free(IBPostingsWork *work);

#endif
