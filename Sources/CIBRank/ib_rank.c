/*
 * ib_rank.c: ib_concepts, an FTS5 auxiliary function that ranks rows by BM25
 * over concepts rather than single terms.
 *
 * ib-search ORs each query word with its synonyms ("tresses" OR "hair" OR
 * "braid"). FTS5's bm25() would then count a passage that has a word and two
 * of its synonyms three times, and a rare synonym would outweigh the word the
 * reader typed. ib_concepts groups the phrases of the MATCH expression into
 * concepts, each phrase with a weight, and scores a row by the sum over the
 * concepts of the best weighted term in it:
 *
 *   score = sum over concepts g of  max over phrases i in g of
 *           w_i * idf_i * tf_i * (k1 + 1) / (tf_i + k1 * (1 - b + b * |D| / avgdl))
 *
 * with k1 = 1.2, b = 0.75 and idf_i = max(1e-6, ln((N - n_i + 0.5) / (n_i + 0.5))),
 * the constants and IDF of FTS5's bm25(). With one phrase per concept and
 * weight 1 the score is -bm25(). Higher is better.
 *
 *   SELECT rowid FROM chunks_fts
 *   WHERE chunks_fts MATCH '"tress"* OR "hair" OR "forbearanc"* OR "patienc"*'
 *   ORDER BY ib_concepts(chunks_fts, '0:1 0:0.7 1:1 1:0.7') DESC LIMIT 40;
 *
 * The second argument gives each phrase's concept and weight, "concept:weight"
 * separated by spaces, in the order the phrases appear in the expression; it
 * must name every phrase. A third field, "concept:weight:documents", gives n_i
 * when the caller knows it (ib-search reads it from an fts5vocab table), which
 * saves a pass over the phrase's postings; otherwise it is counted as bm25()
 * counts it. An optional third argument gives N, the number of rows the IDF
 * counts against: with the documents counted inside a scope (one book), the
 * IDF is the scope's own, so a name on every page of that book weighs little
 * there however rare it is in the library. The statistics are computed once
 * per query and kept as auxiliary data.
 */
#include "ib_rank.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define K1 1.2
#define B 0.75

typedef struct Concepts {
    int phrases;
    int *concept;       /* concept of each phrase */
    double *weight;     /* weight of each phrase */
    double *idf;        /* idf of each phrase */
    double *documents;  /* n_i from the argument, or -1 to count it */
    int concepts;       /* 1 + the largest concept number */
    double avgdl;
    double *tf;         /* scratch: term frequency of each phrase in the row */
    double *best;       /* scratch: best term score of each concept */
} Concepts;

static void concepts_free(void *p) {
    Concepts *c = (Concepts *)p;
    if (!c) return;
    free(c->concept); free(c->weight); free(c->idf); free(c->documents); free(c->tf); free(c->best);
    free(c);
}

/* xQueryPhrase callback: counts the rows that hold the phrase. */
static int count_row(const Fts5ExtensionApi *api, Fts5Context *fts, void *user) {
    (void)api; (void)fts;
    (*(sqlite3_int64 *)user)++;
    return SQLITE_OK;
}

/* Parses "c:w c:w ..." into c->concept / c->weight; returns 0 unless it names exactly c->phrases phrases. */
static int parse_spec(Concepts *c, const char *spec) {
    const char *p = spec;
    int i = 0;
    while (*p) {
        while (*p == ' ') p++;
        if (!*p) break;
        if (i >= c->phrases) return 0;
        char *end;
        long group = strtol(p, &end, 10);
        if (end == p || *end != ':' || group < 0 || group > 100000) return 0;
        p = end + 1;
        double w = strtod(p, &end);
        if (end == p || !(w >= 0.0) || w > 1000.0) return 0;
        p = end;
        c->documents[i] = -1.0;
        if (*p == ':') {
            double n = strtod(p + 1, &end);
            if (end == p + 1 || !(n >= 0.0)) return 0;
            c->documents[i] = n;
            p = end;
        }
        if (*p && *p != ' ') return 0;
        c->concept[i] = (int)group;
        c->weight[i] = w;
        if ((int)group + 1 > c->concepts) c->concepts = (int)group + 1;
        i++;
    }
    return i == c->phrases;
}

/* A phrase's IDF over `rows` rows of which `hits` hold it (ib_concepts). */
static double concepts_idf(sqlite3_int64 rows, double hits) {
    if (hits > (double)rows) hits = (double)rows;
    double idf = log(((double)rows - hits + 0.5) / (hits + 0.5));
    return idf > 1e-6 ? idf : 1e-6;
}

/* The per-query statistics, made, or NULL after setting an error on ctx. */
static Concepts *concepts_make(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *ctx, const char *spec,
                               sqlite3_int64 scopeRows) {
    Concepts *c = (Concepts *)calloc(1, sizeof(Concepts));
    if (!c) { sqlite3_result_error_nomem(ctx); return NULL; }
    c->phrases = api->xPhraseCount(fts);
    int n = c->phrases > 0 ? c->phrases : 1;
    c->concept = (int *)calloc((size_t)n, sizeof(int));
    c->weight = (double *)calloc((size_t)n, sizeof(double));
    c->idf = (double *)calloc((size_t)n, sizeof(double));
    c->tf = (double *)calloc((size_t)n, sizeof(double));
    c->documents = (double *)calloc((size_t)n, sizeof(double));
    if (!c->concept || !c->weight || !c->idf || !c->tf || !c->documents) { concepts_free(c); sqlite3_result_error_nomem(ctx); return NULL; }
    if (!parse_spec(c, spec)) {
        concepts_free(c);
        sqlite3_result_error(ctx, "ib_concepts: the second argument must give 'concept:weight' for each phrase of the MATCH expression", -1);
        return NULL;
    }
    c->best = (double *)calloc((size_t)(c->concepts > 0 ? c->concepts : 1), sizeof(double));
    if (!c->best) { concepts_free(c); sqlite3_result_error_nomem(ctx); return NULL; }
    sqlite3_int64 rows = 0, tokens = 0;
    int rc = api->xRowCount(fts, &rows);
    if (rc == SQLITE_OK) rc = api->xColumnTotalSize(fts, -1, &tokens);
    /* The average length stays the table's (chunks are about equally long in every book). */
    c->avgdl = rows > 0 ? (double)tokens / (double)rows : 1.0;
    if (scopeRows > 0) rows = scopeRows;
    for (int i = 0; rc == SQLITE_OK && i < c->phrases; i++) {
        double hits = c->documents[i];
        if (hits < 0) {
            sqlite3_int64 counted = 0;
            rc = api->xQueryPhrase(fts, i, &counted, count_row);
            hits = (double)counted;
        }
        c->idf[i] = concepts_idf(rows, hits);
    }
    if (rc != SQLITE_OK) { concepts_free(c); sqlite3_result_error_code(ctx, rc); return NULL; }
    return c;
}

/* The per-query statistics, kept as the query's auxiliary data, or NULL after setting an error on ctx. */
static Concepts *concepts_for(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *ctx, const char *spec,
                              sqlite3_int64 scopeRows) {
    Concepts *c = (Concepts *)api->xGetAuxdata(fts, 0);
    if (c) return c;
    c = concepts_make(api, fts, ctx, spec, scopeRows);
    if (!c) return NULL;
    int rc = api->xSetAuxdata(fts, c, concepts_free);
    if (rc != SQLITE_OK) { sqlite3_result_error_code(ctx, rc); return NULL; }   /* xSetAuxdata freed c */
    return c;
}

/* The row's frequency of each phrase into c->tf; *last: the offset of its last instance (-1: none). */
static int concepts_tf(const Fts5ExtensionApi *api, Fts5Context *fts, Concepts *c, int *last) {
    for (int i = 0; i < c->phrases; i++) c->tf[i] = 0.0;
    *last = -1;
    int instances = 0;
    int rc = api->xInstCount(fts, &instances);
    for (int i = 0; rc == SQLITE_OK && i < instances; i++) {
        int phrase, column, offset;
        rc = api->xInst(fts, i, &phrase, &column, &offset);
        if (rc == SQLITE_OK && phrase >= 0 && phrase < c->phrases) c->tf[phrase] += 1.0;
        if (rc == SQLITE_OK && offset > *last) *last = offset;
    }
    return rc;
}

/* The score of a row with c->tf at `length` tokens (it only falls as the length grows). */
static double concepts_score(Concepts *c, double length) {
    for (int g = 0; g < c->concepts; g++) c->best[g] = 0.0;
    double norm = K1 * (1.0 - B + B * length / c->avgdl);
    for (int i = 0; i < c->phrases; i++) {
        if (c->tf[i] == 0.0) continue;
        double s = c->weight[i] * c->idf[i] * c->tf[i] * (K1 + 1.0) / (c->tf[i] + norm);
        if (s > c->best[c->concept[i]]) c->best[c->concept[i]] = s;
    }
    double score = 0.0;
    for (int g = 0; g < c->concepts; g++) score += c->best[g];
    return score;
}

static void ib_concepts(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *ctx,
                        int argc, sqlite3_value **argv) {
    if (argc < 1 || argc > 2 || sqlite3_value_type(argv[0]) != SQLITE_TEXT
        || (argc == 2 && (sqlite3_value_type(argv[1]) != SQLITE_INTEGER || sqlite3_value_int64(argv[1]) < 1))) {
        sqlite3_result_error(ctx, "ib_concepts: usage ib_concepts(fts_table, 'concept:weight ...' [, rows >= 1])", -1);
        return;
    }
    Concepts *c = concepts_for(api, fts, ctx, (const char *)sqlite3_value_text(argv[0]), argc == 2 ? sqlite3_value_int64(argv[1]) : 0);
    if (!c) return;
    int last, length = 0;
    int rc = concepts_tf(api, fts, c, &last);
    if (rc == SQLITE_OK) rc = api->xColumnSize(fts, -1, &length);
    if (rc != SQLITE_OK) { sqlite3_result_error_code(ctx, rc); return; }
    sqlite3_result_double(ctx, concepts_score(c, (double)length));
}

/* ======================================================================
 * ib_concepts_top(fts_table, spec, k [, rows]): -ib_concepts() for a query
 * ordered by it with LIMIT k, skipping the row-length lookup of rows that
 * cannot be among the k best, as ib_bm25 does for bm25() (see there): a
 * row's score only falls as its length grows, and the row is at least as
 * long as its last instance's offset + 1 and its most frequent phrase's
 * count. Rows that cannot rank get 1.0 (real values are <= 0); every other
 * row gets exactly -ib_concepts(), by the same function. So
 *
 *   SELECT rowid, ib_concepts_top(chunks_fts, ?spec, 40) AS s FROM chunks_fts
 *   WHERE chunks_fts MATCH ? ORDER BY s, rowid LIMIT 40
 *
 * returns the rows and scores of ORDER BY -ib_concepts(chunks_fts, ?spec),
 * bit for bit. Only for such a query: a WHERE term outside the MATCH, or
 * another LIMIT, would make the skipped rows wrong.
 */

/* The k best exact scores of a top-k query so far (ib_concepts_top, ib_bm25). */
typedef struct TopK {
    int k;
    int kept;           /* exact scores in best (at most k) */
    double *best;       /* the k best exact scores (higher is better) */
    int worst;          /* where the lowest of them is, once k are kept */
    sqlite3_int64 lastRow;
    int hasLast;
} TopK;

/* 0 when out of memory. */
static int topk_init(TopK *t, int k) {
    t->k = k;
    t->best = (double *)calloc((size_t)k, sizeof(double));
    return t->best != NULL;
}

/* Whether a row whose score can be at most `bound` cannot be among the k best
 * (a rounding margin kept: such a row's exact score could only be lower). */
static int topk_out_of_reach(const TopK *t, double bound) {
    return t->kept == t->k && bound * (1.0 + 1e-9) + 1e-12 < t->best[t->worst];
}

/* Keeps the row's exact score among the k best; once k are kept, best[worst]
 * is the k-th best (k is a LIMIT, and only rows that may rank get here: a
 * scan for the new worst costs less than keeping a heap). A row evaluated
 * twice (it never is in the queries above) is counted once. */
static void topk_keep(TopK *t, sqlite3_int64 row, double x) {
    int again = t->hasLast && row == t->lastRow;
    t->lastRow = row; t->hasLast = 1;
    if (again) return;
    if (t->kept < t->k) {
        t->best[t->kept++] = x;
    } else if (x > t->best[t->worst]) {
        t->best[t->worst] = x;
    } else {
        return;
    }
    if (t->kept < t->k) return;
    int worst = 0;
    for (int i = 1; i < t->k; i++) if (t->best[i] < t->best[worst]) worst = i;
    t->worst = worst;
}

typedef struct TopConcepts {
    Concepts *c;        /* the query's statistics */
    TopK top;
} TopConcepts;

static void top_concepts_free(void *p) {
    TopConcepts *t = (TopConcepts *)p;
    if (!t) return;
    concepts_free(t->c);
    free(t->top.best);
    free(t);
}

/* The query's statistics and k best so far, kept as its auxiliary data, or NULL after setting an error. */
static TopConcepts *top_concepts_for(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *ctx, const char *spec,
                                     int k, sqlite3_int64 scopeRows) {
    TopConcepts *t = (TopConcepts *)api->xGetAuxdata(fts, 0);
    if (t) return t;
    t = (TopConcepts *)calloc(1, sizeof(TopConcepts));
    if (!t || !topk_init(&t->top, k)) { top_concepts_free(t); sqlite3_result_error_nomem(ctx); return NULL; }
    t->c = concepts_make(api, fts, ctx, spec, scopeRows);
    if (!t->c) { top_concepts_free(t); return NULL; }
    int rc = api->xSetAuxdata(fts, t, top_concepts_free);
    if (rc != SQLITE_OK) { sqlite3_result_error_code(ctx, rc); return NULL; }   /* xSetAuxdata freed t */
    return t;
}

static void ib_concepts_top(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *ctx,
                            int argc, sqlite3_value **argv) {
    if (argc < 2 || argc > 3 || sqlite3_value_type(argv[0]) != SQLITE_TEXT
        || sqlite3_value_type(argv[1]) != SQLITE_INTEGER || sqlite3_value_int64(argv[1]) < 1 || sqlite3_value_int64(argv[1]) > 1000000
        || (argc == 3 && (sqlite3_value_type(argv[2]) != SQLITE_INTEGER || sqlite3_value_int64(argv[2]) < 1))) {
        sqlite3_result_error(ctx, "ib_concepts_top: usage ib_concepts_top(fts_table, 'concept:weight ...', k [, rows >= 1]), k the query's LIMIT (1..1000000)", -1);
        return;
    }
    TopConcepts *t = top_concepts_for(api, fts, ctx, (const char *)sqlite3_value_text(argv[0]), (int)sqlite3_value_int64(argv[1]),
                                      argc == 3 ? sqlite3_value_int64(argv[2]) : 0);
    if (!t) return;
    Concepts *c = t->c;
    int last, length = 0;
    int rc = concepts_tf(api, fts, c, &last);
    if (rc != SQLITE_OK) { sqlite3_result_error_code(ctx, rc); return; }
    if (t->top.kept == t->top.k) {
        double shortest = (double)last + 1.0;
        for (int i = 0; i < c->phrases; i++) if (c->tf[i] > shortest) shortest = c->tf[i];
        if (topk_out_of_reach(&t->top, concepts_score(c, shortest))) { sqlite3_result_double(ctx, 1.0); return; }
    }
    rc = api->xColumnSize(fts, -1, &length);
    if (rc != SQLITE_OK) { sqlite3_result_error_code(ctx, rc); return; }
    double score = concepts_score(c, (double)length);
    topk_keep(&t->top, api->xRowid(fts), score);
    sqlite3_result_double(ctx, -score);
}

/* ======================================================================
 * ib_bm25(fts_table, k): bm25() for a query ordered by it with LIMIT k, that
 * skips the row-length lookup of rows that cannot be among the k best.
 *
 * bm25() reads each matching row's length (a lookup in the table's docsize
 * b-tree, a nested statement per row): over the whole library a common word
 * matches tens of thousands of rows, and that lookup is most of the time of
 * the query. A row's score only falls as its length grows, and the row is at
 * least as long as its most frequent phrase occurs; so its score is bounded
 * from above by its score at that length. Once k rows have their exact score,
 * a row whose bound is below the k-th best (by more than a rounding margin)
 * cannot be among the k best: it gets 1.0 (bm25() values are <= 0, lower is
 * better) without the lookup. Every other row gets exactly bm25()'s value,
 * computed by the same operations in the same order (the IDF, average length,
 * constants and sum of sqlite3's fts5_aux.c), so
 *
 *   SELECT rowid, ib_bm25(chunks_fts, 40) AS s FROM chunks_fts WHERE chunks_fts MATCH ?
 *   ORDER BY s, rowid LIMIT 40
 *
 * returns the same rows with the same scores, bit for bit, as the query with
 * bm25(chunks_fts). Only for such a query: a WHERE term outside the MATCH, or
 * another LIMIT, would make the skipped rows wrong.
 *
 * An optional third argument, "n1 n2 ...", gives each phrase's number of
 * matching rows ("-" for one to count), which bm25() counts with a pass over
 * the phrase's postings before the query's own pass: ib-search gives the
 * count of a plain word from the fts5vocab table, one index lookup. They
 * must be the counts bm25() would find (`SELECT count(*) ... MATCH 'phrase'`).
 */

/* Floating-point contraction would round differently from sqlite3's build. */
#pragma STDC FP_CONTRACT OFF

typedef struct TopBM25 {
    int phrases;
    double *idf;
    double *freq;       /* scratch: each phrase's frequency in the row */
    double avgdl;
    TopK top;           /* the k best exact scores (-bm25) */
} TopBM25;

static void top_free(void *p) {
    TopBM25 *t = (TopBM25 *)p;
    if (!t) return;
    free(t->idf); free(t->freq); free(t->top.best);
    free(t);
}

/* Each phrase's document count from "n1 n2 ..." into hits ("-": -1, to be
 * counted); 0 unless it gives exactly `phrases`. */
static int parse_counts(const char *text, int phrases, sqlite3_int64 *hits) {
    const char *p = text;
    int i = 0;
    while (*p) {
        while (*p == ' ') p++;
        if (!*p) break;
        if (i >= phrases) return 0;
        if (*p == '-' && (p[1] == ' ' || p[1] == 0)) { hits[i++] = -1; p++; continue; }
        if (*p < '0' || *p > '9') return 0;
        char *end;
        long long n = strtoll(p, &end, 10);
        if (end == p || n < 0 || (*end && *end != ' ')) return 0;
        hits[i++] = (sqlite3_int64)n;
        p = end;
    }
    return i == phrases;
}

/* A phrase's IDF as bm25() computes it. */
static double bm25_idf(sqlite3_int64 nRow, sqlite3_int64 nHit) {
    double idf = log((nRow - nHit + 0.5) / (nHit + 0.5));
    if (idf <= 0.0) idf = 1e-6;
    return idf;
}

/* The per-query statistics, as bm25() computes them, or NULL after setting an error.
 * `counts`: each phrase's document count when the caller knows it (NULL: counted). */
static TopBM25 *top_for(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *ctx, int k, const char *counts) {
    TopBM25 *t = (TopBM25 *)api->xGetAuxdata(fts, 0);
    if (t) return t;
    t = (TopBM25 *)calloc(1, sizeof(TopBM25));
    if (!t) { sqlite3_result_error_nomem(ctx); return NULL; }
    t->phrases = api->xPhraseCount(fts);
    int n = t->phrases > 0 ? t->phrases : 1;
    t->idf = (double *)calloc((size_t)n, sizeof(double));
    t->freq = (double *)calloc((size_t)n, sizeof(double));
    if (!t->idf || !t->freq || !topk_init(&t->top, k)) { top_free(t); sqlite3_result_error_nomem(ctx); return NULL; }
    sqlite3_int64 nRow = 0, nToken = 0;
    int rc = api->xRowCount(fts, &nRow);
    if (rc == SQLITE_OK) rc = api->xColumnTotalSize(fts, -1, &nToken);
    if (rc == SQLITE_OK) t->avgdl = (double)nToken / (double)nRow;
    sqlite3_int64 *known = NULL;
    if (rc == SQLITE_OK && counts) {
        known = (sqlite3_int64 *)calloc((size_t)n, sizeof(sqlite3_int64));
        if (!known) { top_free(t); sqlite3_result_error_nomem(ctx); return NULL; }
        if (!parse_counts(counts, t->phrases, known)) {
            free(known); top_free(t);
            sqlite3_result_error(ctx, "ib_bm25: the third argument must give one document count for each phrase of the MATCH expression", -1);
            return NULL;
        }
    }
    for (int i = 0; rc == SQLITE_OK && i < t->phrases; i++) {
        sqlite3_int64 nHit = 0;
        if (known && known[i] >= 0) nHit = known[i]; else rc = api->xQueryPhrase(fts, i, &nHit, count_row);
        if (rc == SQLITE_OK) t->idf[i] = bm25_idf(nRow, nHit);
    }
    free(known);
    if (rc != SQLITE_OK) { top_free(t); sqlite3_result_error_code(ctx, rc); return NULL; }
    rc = api->xSetAuxdata(fts, t, top_free);
    if (rc != SQLITE_OK) { sqlite3_result_error_code(ctx, rc); return NULL; }   /* xSetAuxdata freed t */
    return t;
}

/* bm25()'s sum for the row's frequencies at length D (positive: higher is better). */
static double top_score(const TopBM25 *t, double D) {
    const double k1 = 1.2;
    const double b = 0.75;
    double score = 0.0;
    for (int i = 0; i < t->phrases; i++) {
        score += t->idf[i] * ((t->freq[i] * (k1 + 1.0)) / (t->freq[i] + k1 * (1 - b + b * D / t->avgdl)));
    }
    return score;
}

static void ib_bm25(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *ctx,
                    int argc, sqlite3_value **argv) {
    if (argc < 1 || argc > 2 || sqlite3_value_type(argv[0]) != SQLITE_INTEGER || sqlite3_value_int64(argv[0]) < 1
        || sqlite3_value_int64(argv[0]) > 1000000 || (argc == 2 && sqlite3_value_type(argv[1]) != SQLITE_TEXT)) {
        sqlite3_result_error(ctx, "ib_bm25: usage ib_bm25(fts_table, k [, 'documents of each phrase']), k the query's LIMIT (1..1000000)", -1);
        return;
    }
    TopBM25 *t = top_for(api, fts, ctx, (int)sqlite3_value_int64(argv[0]), argc == 2 ? (const char *)sqlite3_value_text(argv[1]) : NULL);
    if (!t) return;
    for (int i = 0; i < t->phrases; i++) t->freq[i] = 0.0;
    int nInst = 0, last = -1;
    int rc = api->xInstCount(fts, &nInst);
    for (int i = 0; rc == SQLITE_OK && i < nInst; i++) {
        int ip, ic, io;
        rc = api->xInst(fts, i, &ip, &ic, &io);
        if (rc == SQLITE_OK) { t->freq[ip] += 1.0; if (io > last) last = io; }
    }
    if (rc != SQLITE_OK) { sqlite3_result_error_code(ctx, rc); return; }
    if (t->top.kept == t->top.k) {
        /* The row holds at least as many tokens as the offset of its last
         * instance + 1 (offsets count tokens from 0 in the row's one column)
         * and as its most frequent phrase's instances. */
        double shortest = (double)last + 1.0;
        for (int i = 0; i < t->phrases; i++) if (t->freq[i] > shortest) shortest = t->freq[i];
        if (topk_out_of_reach(&t->top, top_score(t, shortest))) { sqlite3_result_double(ctx, 1.0); return; }
    }
    int nTok = 0;
    rc = api->xColumnSize(fts, -1, &nTok);
    if (rc != SQLITE_OK) { sqlite3_result_error_code(ctx, rc); return; }
    double score = top_score(t, (double)nTok);
    topk_keep(&t->top, api->xRowid(fts), score);
    sqlite3_result_double(ctx, -1.0 * score);
}

/* ======================================================================
 * ib_instances(fts_table): how many instances of the MATCH expression's
 * phrases the row holds. With one phrase, that phrase's frequency in the
 * row: what a connection that keeps postings in memory (ib_rank_postings)
 * reads, once per phrase, with
 *
 *   SELECT rowid, ib_instances(chunks_fts) FROM chunks_fts WHERE chunks_fts MATCH '"whal"*'
 */
static void ib_instances(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *ctx,
                         int argc, sqlite3_value **argv) {
    (void)argv;
    if (argc != 0) { sqlite3_result_error(ctx, "ib_instances: usage ib_instances(fts_table)", -1); return; }
    int n = 0;
    int rc = api->xInstCount(fts, &n);
    if (rc != SQLITE_OK) { sqlite3_result_error_code(ctx, rc); return; }
    sqlite3_result_int(ctx, n);
}

/* ======================================================================
 * ib_rank_postings: the k best rows of an OR of phrases, ranked as bm25()
 * or ib_concepts() rank them, from postings held in memory instead of
 * FTS5's index. A server that searches many times (ib-mcp) keeps each
 * phrase's rows and frequencies once read (IBStore's PostingsMemo), and the
 * rows' lengths; ranking a query is then a pass over its phrases' postings,
 * where FTS5 decodes every position list of every matching row again.
 * The scores are the same, bit for bit: the same IDF, average length and
 * per-row functions (concepts_score, top_score) as the FTS5 functions above.
 */

/* Whether a is ranked after b: a lower score, or the same and a later row. */
static int rank_after(double as, sqlite3_int64 ar, double bs, sqlite3_int64 br) {
    return as < bs || (as == bs && ar > br);
}

/* Sifts heap entry i down: the root is the entry ranked last. */
static void heap_down(double *score, sqlite3_int64 *row, int n, int i) {
    for (;;) {
        int l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && rank_after(score[l], row[l], score[m], row[m])) m = l;
        if (r < n && rank_after(score[r], row[r], score[m], row[m])) m = r;
        if (m == i) return;
        double s = score[i]; score[i] = score[m]; score[m] = s;
        sqlite3_int64 w = row[i]; row[i] = row[m]; row[m] = w;
        i = m;
    }
}

static void heap_up(double *score, sqlite3_int64 *row, int i) {
    while (i > 0) {
        int p = (i - 1) / 2;
        if (!rank_after(score[i], row[i], score[p], row[p])) return;
        double s = score[i]; score[i] = score[p]; score[p] = s;
        sqlite3_int64 w = row[i]; row[i] = row[p]; row[p] = w;
        i = p;
    }
}

/* Whether the row passes the query's filter (a rowid range, and per row its
 * book's page limit: INT32_MIN for a book outside the scope). */
static int postings_allowed(const IBPostingsQuery *q, sqlite3_int64 row) {
    if (!q->rowBook) return 1;
    if (row < q->low || row > q->high) return 0;
    sqlite3_int64 at = row - q->base;
    int book = q->rowBook[at];
    if (book < 0 || book >= q->books) return 0;
    int limit = q->bookLimit[book];
    return limit != INT32_MIN && q->rowEndPage[at] <= limit;
}

/* Kept between rankings: slot[] holds -1 for every row of its span on entry and
 * on return (only the rows a ranking matched are set back); tf and docs grow,
 * and are let go after a ranking that grew them past keptBytes (a query of
 * common words over a large library: tens of MB nobody counts). */
struct IBPostingsWork {
    size_t keptBytes;
    int *slot;
    sqlite3_int64 slotSpan;
    double *tf;
    sqlite3_int64 *docs;
    size_t tfCapacity;     /* doubles in tf */
    int docsCapacity;      /* rows in docs */
};

IBPostingsWork *ib_postings_work_new(size_t keptBytes) {
    IBPostingsWork *work = (IBPostingsWork *)calloc(1, sizeof(IBPostingsWork));
    if (work) work->keptBytes = keptBytes;
    return work;
}

void ib_postings_work_free(IBPostingsWork *work) {
    if (!work) return;
    free(work->slot); free(work->tf); free(work->docs); free(work);
}

int ib_rank_postings(const IBPostingsQuery *q, sqlite3_int64 *outRows, double *outScores) {
    if (!q || q->phrases < 1 || q->k < 1 || q->span < 1 || q->tableRows < 1) return 0;
    int P = q->phrases;
    int result = -1;
    IBPostingsWork *work = q->work;
    int *slot = NULL;
    double *tf = NULL;
    sqlite3_int64 *docs = NULL;
    int ndocs = 0, capacity = 0;
    double *heapScore = NULL;
    sqlite3_int64 *heapRow = NULL;
    Concepts c; memset(&c, 0, sizeof c);
    TopBM25 t; memset(&t, 0, sizeof t);
    double *idf = (double *)calloc((size_t)P, sizeof(double));
    double *best = NULL;
    if (work && work->slotSpan != q->span) {
        free(work->slot);
        work->slot = (int *)malloc((size_t)q->span * sizeof(int));
        work->slotSpan = work->slot ? q->span : 0;
        if (work->slot) memset(work->slot, 0xff, (size_t)q->span * sizeof(int));
    }
    if (work && work->slot) {
        slot = work->slot;
        tf = work->tf; docs = work->docs;
        /* the room for rows is whatever both arrays hold for P phrases */
        capacity = work->docsCapacity;
        if ((size_t)capacity * (size_t)P > work->tfCapacity) capacity = (int)(work->tfCapacity / (size_t)P);
    } else {
        work = NULL;
        slot = (int *)malloc((size_t)q->span * sizeof(int));
        if (slot) memset(slot, 0xff, (size_t)q->span * sizeof(int));
    }
    if (!slot || !idf) goto done;

    /* The statistics, as the FTS5 functions compute them. */
    double avgdl = (double)q->tableTokens / (double)q->tableRows;
    for (int i = 0; i < P; i++) {
        if (q->plain) {
            sqlite3_int64 hits = q->documents[i] >= 0 ? (sqlite3_int64)q->documents[i] : q->counts[i];
            idf[i] = bm25_idf(q->tableRows, hits);
        } else {
            double hits = q->documents[i] >= 0 ? q->documents[i] : (double)q->counts[i];
            idf[i] = concepts_idf(q->scopeRows > 0 ? q->scopeRows : q->tableRows, hits);
        }
    }
    if (q->plain) {
        t.phrases = P; t.idf = idf; t.avgdl = avgdl;
    } else {
        c.phrases = P; c.concept = (int *)q->concept; c.weight = (double *)q->weight; c.idf = idf;
        c.avgdl = avgdl;
        for (int i = 0; i < P; i++) if (q->concept[i] + 1 > c.concepts) c.concepts = q->concept[i] + 1;
        best = (double *)calloc((size_t)(c.concepts > 0 ? c.concepts : 1), sizeof(double));
        if (!best) goto done;
        c.best = best;
    }

    /* Each allowed row's frequency of each phrase. */
    for (int i = 0; i < P; i++) {
        for (int j = 0; j < q->counts[i]; j++) {
            sqlite3_int64 row = q->rows[i][j];
            if (row < q->base || row - q->base >= q->span || !postings_allowed(q, row)) continue;
            sqlite3_int64 at = row - q->base;
            if (slot[at] < 0) {
                if (ndocs == capacity) {
                    int grown = capacity ? capacity * 2 : 1024;
                    double *moreTf = (double *)realloc(tf, (size_t)grown * (size_t)P * sizeof(double));
                    if (!moreTf) goto done;
                    tf = moreTf;
                    if (work) { work->tf = tf; work->tfCapacity = (size_t)grown * (size_t)P; }
                    sqlite3_int64 *moreDocs = (sqlite3_int64 *)realloc(docs, (size_t)grown * sizeof(sqlite3_int64));
                    if (!moreDocs) goto done;
                    docs = moreDocs;
                    if (work) { work->docs = docs; work->docsCapacity = grown; }
                    capacity = grown;
                }
                memset(tf + (size_t)ndocs * (size_t)P, 0, (size_t)P * sizeof(double));
                docs[ndocs] = row;
                slot[at] = ndocs++;
            }
            tf[(size_t)slot[at] * (size_t)P + (size_t)i] = (double)q->tf[i][j];
        }
    }

    /* The k best by score, then row. */
    int k = q->k < ndocs ? q->k : ndocs;
    heapScore = (double *)malloc((size_t)(k > 0 ? k : 1) * sizeof(double));
    heapRow = (sqlite3_int64 *)malloc((size_t)(k > 0 ? k : 1) * sizeof(sqlite3_int64));
    if (!heapScore || !heapRow) goto done;
    int kept = 0;
    for (int d = 0; d < ndocs; d++) {
        sqlite3_int64 row = docs[d];
        double length = (double)q->length[row - q->base];
        double score;
        if (q->plain) { t.freq = tf + (size_t)d * (size_t)P; score = top_score(&t, length); }
        else { c.tf = tf + (size_t)d * (size_t)P; score = concepts_score(&c, length); }
        if (kept < k) {
            heapScore[kept] = score; heapRow[kept] = row;
            heap_up(heapScore, heapRow, kept++);
        } else if (k > 0 && rank_after(heapScore[0], heapRow[0], score, row)) {
            heapScore[0] = score; heapRow[0] = row;
            heap_down(heapScore, heapRow, k, 0);
        }
    }
    /* Best first: pop the last-ranked into the end. */
    for (int n = kept; n > 0; n--) {
        outScores[n - 1] = heapScore[0]; outRows[n - 1] = heapRow[0];
        heapScore[0] = heapScore[n - 1]; heapRow[0] = heapRow[n - 1];
        heap_down(heapScore, heapRow, n - 1, 0);
    }
    result = kept;
done:
    if (work) {
        /* every slot back to -1 for the next ranking; the arrays stay */
        for (int d = 0; d < ndocs; d++) slot[docs[d] - q->base] = -1;
        if (work->tfCapacity * sizeof(double) + (size_t)work->docsCapacity * sizeof(sqlite3_int64) > work->keptBytes) {
            free(work->tf); free(work->docs);
            work->tf = NULL; work->docs = NULL; work->tfCapacity = 0; work->docsCapacity = 0;
        }
    } else {
        free(slot); free(tf); free(docs);
    }
    free(heapScore); free(heapRow); free(idf); free(best);
    return result;
}

int ib_rank_register(sqlite3 *db) {
    if (!db) return SQLITE_MISUSE;
    fts5_api *api = 0;
    sqlite3_stmt *statement = 0;
    int rc = sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &statement, 0);
    if (rc != SQLITE_OK) return rc;
    sqlite3_bind_pointer(statement, 1, (void *)&api, "fts5_api_ptr", 0);
    sqlite3_step(statement);
    rc = sqlite3_finalize(statement);
    if (rc != SQLITE_OK) return rc;
    if (!api || api->iVersion < 2) return SQLITE_ERROR;
    rc = api->xCreateFunction(api, "ib_concepts", 0, ib_concepts, 0);
    if (rc == SQLITE_OK) rc = api->xCreateFunction(api, "ib_concepts_top", 0, ib_concepts_top, 0);
    if (rc == SQLITE_OK) rc = api->xCreateFunction(api, "ib_bm25", 0, ib_bm25, 0);
    if (rc == SQLITE_OK) rc = api->xCreateFunction(api, "ib_instances", 0, ib_instances, 0);
    return rc;
}
