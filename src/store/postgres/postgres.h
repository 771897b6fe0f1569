/*
 * postgres.h - the PostgreSQL store backend (private to src/store/postgres/).
 *
 * The only code that calls libpq (loaded when first needed: pq.h).  It accepts postgresql:// and
 * postgres:// URIs and libpq key=value connection strings (postgres_accepts()), keeps the same
 * tables as the SQLite store (schema/postgres/NNNN_name.sql, embedded by cmake/embed_schema.cmake
 * and applied in order according to scopedb_meta.schema_version), and answers every store_* call
 * with the same result, so that every command prints the same output on the same data: text that is
 * sorted is in the "C" collation, floats travel as shortest exact text (extra_float_digits = 3) or
 * in binary, run and region ids are assigned as SQLite assigns them.
 *
 * Writers: store_begin() opens a transaction and takes the store's write
 * lock, a transaction-scoped advisory lock (POSTGRES_LOCK_KEY), so that
 * writers on many machines are serialized as SQLite serializes them and
 * the content-hash dedupe of ingest cannot race (sha256 is also UNIQUE).
 * The lock wait is bounded by lock_timeout (store_set_busy_timeout()).
 * Timings rows are not sent one by one: they are appended to COPY buffers
 * (text format, bytea as hex) and sent before any other statement, when
 * a buffer is large, and at commit (postgres_flush()).  Readers that need
 * one snapshot use REPEATABLE READ transactions.  Every value is a bound
 * parameter; SQL text is constant or built from constant fragments.
 *
 * Split by concern like the SQLite backend: conn.c (connection, errors,
 * migrations, transactions, maintenance, the table), write.c (ingest,
 * tags, metadata, pins, removal, finishing a run), read.c (runs,
 * selectors, filters, per-region aggregates and durations), history.c,
 * and cache.c (what a read snapshot reads ahead, to spare round trips).
 *
 * Ownership: struct store_conn is created by postgres_open() and freed by
 * postgres_close(); every PGresult is cleared in the function that got it;
 * text read from a result is copied (util_strdup) before it is cleared.
 */
#ifndef SCOPEDB_STORE_POSTGRES_H
#define SCOPEDB_STORE_POSTGRES_H

#include <stddef.h>
#include <stdint.h>

#include "scopedb/store.h"
#include "scopedb/util.h"
#include "store/backend.h"
#include "store/postgres/pq.h"
#include "store/rows.h"
#include "util/strmap.h"

/* The key of the store's write lock (pg_advisory_xact_lock), "SCPD". */
#define POSTGRES_LOCK_KEY "1396920388"

/* Send the COPY buffers once one of them holds this many bytes. */
#define POSTGRES_COPY_FLUSH (8u << 20)

/* Runs kept by the read snapshot's cache (cache.c). */
#define POSTGRES_RUN_CACHE 4
/* Regions whose durations one query of the cache fetches (cache.c). */
#define POSTGRES_BLOB_CHUNK 32

/* A run read with its tags and metadata in one query, until the caller
 * takes each (cache.c). */
struct pg_cached_run {
	int64_t id;
	int has_run, has_meta;
	struct store_run run;
	struct store_meta meta;
};

/* The duration blobs the caller is expected to ask for, region after
 * region, and the chunk of them fetched (cache.c). */
struct pg_blob_cache {
	int64_t run_id;
	char *ranks;		     /* postgres_array() of the rank set, NULL: all */
	int64_t *order;		     /* region ids in the order they will be asked */
	struct rows_series_key *pos; /* region id -> index in order, by id */
	size_t n;
	size_t lo, hi; /* order[lo..hi) are in r */
	PGresult *r;   /* region_id, data (binary; NULL: none), by region id */
};

struct store_conn {
	PGconn *db;
	char *location; /* as given, password masked: for messages */
	int readonly;
	int busy_ms;
	struct store *front; /* for upgrades that run the finish pipeline */
	/* region name -> id of this transaction (strmap id -> ids.v[]) */
	struct strmap names;
	struct i64vec ids;
	/* the next timings and region ids to give (0: ask the store) */
	int64_t next_timing, next_region;
	/* a read snapshot ended: COMMIT before the next statement */
	int commit_due;
	/* pending COPY rows of timings and timings_durations */
	struct buf copy_timings, copy_durations;
	/* inside the snapshot of read_begin(): the caches below are valid */
	int reading;
	struct pg_cached_run runs[POSTGRES_RUN_CACHE];
	size_t nruns;
	struct pg_blob_cache blobs;
};

/* Up to 16 text parameters of one statement (NULL values are SQL NULL). */
struct pg_params {
	const char *v[16];
	char num[16][32];
	int n;
};

/* The backend table (conn.c), registered in store/backends.h. */
extern const struct store_backend postgres_store_backend;

/* ---- conn.c ----------------------------------------------------------- */

/* Record the error of res (or of the connection when res is NULL) as
 * "cannot WHAT store 'LOCATION': REASON" with the matching ERR_* code:
 * ERR_BUSY for a lock timeout, ERR_IO for a lost connection. */
int postgres_err(const struct store_conn *c, const PGresult *res, const char *what);
/* Send the pending COPY rows (before any other statement). */
int postgres_flush(struct store_conn *c);
/* Run sql with the parameters p (NULL: none); *res (if not NULL) gets the
 * result, which the caller clears; binary asks for binary result columns.
 * Pending COPY rows are sent first. */
int postgres_exec(struct store_conn *c, PGresult **res, const char *sql, const struct pg_params *p,
		  int binary, const char *what);
/* postgres_exec() of a read with the one parameter $1 = id. */
int postgres_exec_id(struct store_conn *c, PGresult **res, const char *sql, int64_t id, int binary);
/* Called by postgres_stream() with each row (r holds that one row). */
typedef int (*postgres_row_fn)(void *ctx, const PGresult *r);
/* Run sql with binary results and hand the rows to fn one at a time as
 * they arrive (libpq's single-row mode: one pass, bounded memory); a
 * non-zero return of fn stops the calls and is returned. */
int postgres_stream(struct store_conn *c, const char *sql, const struct pg_params *p,
		    postgres_row_fn fn, void *ctx);
/* *out = the integer of the first column of the one-row query (0 and not
 * an error for no row or NULL when optional). */
int postgres_query_int(struct store_conn *c, int64_t *out, const char *sql,
		       const struct pg_params *p, int optional);
/* 1 when a transaction is open on c. */
int postgres_in_txn(struct store_conn *c);
int postgres_begin(struct store_conn *c);
int postgres_commit(struct store_conn *c);
void postgres_rollback(struct store_conn *c);
/* One snapshot for several reads (REPEATABLE READ) when no transaction is
 * open (*own = 1 then); postgres_snapshot_end() ends it. */
int postgres_snapshot_begin(struct store_conn *c, int *own);
void postgres_snapshot_end(struct store_conn *c, int own);
/* Forget the region ids and the next ids of the transaction, and the read
 * snapshot's cache (cache.c). */
void postgres_cache_clear(struct store_conn *c);

/* Parameters: pp_init(), then one pp_* per parameter in order. */
void pp_init(struct pg_params *p);
void pp_int(struct pg_params *p, int64_t v);
void pp_double(struct pg_params *p, double v);
void pp_text(struct pg_params *p, const char *s);
/* NULL when s is NULL or "". */
void pp_text_or_null(struct pg_params *p, const char *s);
/* ranks[0..n) as an array literal "{1,2}" (NULL for ranks NULL), malloc'ed;
 * *failed = 1 when memory ran out. */
char *postgres_array(const int64_t *ranks, size_t n, int *failed);

/* Result accessors: integer (0 for NULL), double, copied text (NULL stays
 * NULL), binary int8. */
int64_t pg_int(const PGresult *r, int row, int col);
double pg_double(const PGresult *r, int row, int col);
int pg_text(char **out, const PGresult *r, int row, int col);
int64_t pg_bin_int(const PGresult *r, int row, int col);
double pg_bin_double(const PGresult *r, int row, int col);
/* Row row of r for the decoders of rows.h (rows_run(), ...): a result of
 * text columns, or (pg_bin_row()) of binary ones. */
struct rows_row pg_row(const PGresult *r, int row);
struct rows_row pg_bin_row(const PGresult *r, int row);

/* ---- write.c ---------------------------------------------------------- */

int postgres_find_sha(struct store_conn *c, int64_t *out, const char *sha256);
int postgres_insert_run(struct store_conn *c, int64_t *out, const struct store_run *run);
int postgres_set_run_sha(struct store_conn *c, int64_t run_id, const char *sha256);
int postgres_region_id(struct store_conn *c, int64_t *out, const char *name);
int postgres_add_timing(struct store_conn *c, const struct store_timing *t);
int postgres_put_region_totals(struct store_conn *c, int64_t run_id);
int postgres_percentile_regions(struct store_conn *c, struct store_region_calls **out, size_t *n,
				int64_t run_id);
int postgres_scan_blobs(struct store_conn *c, int64_t run_id, store_blob_fn fn, void *ctx);
int postgres_put_region_quantiles(struct store_conn *c, int64_t run_id, int64_t region_id,
				  const double q[3]);
int postgres_add_tag(struct store_conn *c, int *added, int64_t run_id, const char *tag);
int postgres_remove_tag(struct store_conn *c, int *removed, int64_t run_id, const char *tag);
int postgres_set_meta(struct store_conn *c, int64_t run_id, const char *key, const char *value);
int postgres_pin_set(struct store_conn *c, int64_t *prev, const char *name, int64_t run_id,
		     int keep);
int postgres_pin_remove(struct store_conn *c, int64_t *prev, const char *name);
int postgres_remove_run(struct store_conn *c, char **unpinned, int64_t run_id, int force);

/* ---- read.c ----------------------------------------------------------- */

/*
 * The WHERE conditions of a run filter on table runs, as " AND cond" text
 * with the values bound as $first, $first+1, ... (added to p).
 */
int postgres_run_where(struct buf *sql, struct pg_params *p, const struct filter *f);
int postgres_get_meta(struct store_conn *c, struct store_meta *out, int64_t run_id);
int postgres_list_pins(struct store_conn *c, struct store_pin **out, size_t *n);
int postgres_resolve(struct store_conn *c, int64_t *out, const struct select_spec *sel);
/* The stored names of kind, for rows_hint() and the messages of rows.h
 * (rows_names_fn). */
int postgres_names(struct store_conn *c, struct buf *out, size_t *n, enum rows_names kind);
int postgres_find_runs(struct store_conn *c, struct store_run **out, size_t *n,
		       const struct filter *f);
int postgres_get_run(struct store_conn *c, struct store_run *out, int64_t id);
int postgres_region_stats(struct store_conn *c, struct store_region_stats **out, size_t *n,
			  int64_t run_id, const int64_t *ranks, size_t nranks,
			  store_region_filter filter, void *ctx);
int postgres_region_durations(struct store_conn *c, struct i64vec *out, struct i64vec *ends,
			      int64_t run_id, int64_t region_id, const int64_t *ranks,
			      size_t nranks);

int postgres_scan_timings(struct store_conn *c, int64_t run_id, store_timing_fn fn, void *ctx);
int postgres_rank_totals(struct store_conn *c, int64_t run_id, store_rank_total_fn fn, void *ctx);

/* ---- cache.c (reading ahead inside a read snapshot) -------------------- */

/* Forget what the read snapshot's cache holds. */
void postgres_cache_drop(struct store_conn *c);
/* Run id with its tags into *run and its metadata into *meta, in one
 * query; *found = 0 (and nothing filled) when there is no such run. */
int postgres_fetch_run(struct store_conn *c, struct store_run *run, struct store_meta *meta,
		       int *found, int64_t id);
/* Keep run and meta of run id (either may be NULL) for the takers below,
 * inside a read snapshot (else release them); they are moved, and left
 * zeroed. */
void postgres_cache_keep(struct store_conn *c, int64_t id, struct store_run *run,
			 struct store_meta *meta);
/* 1 when the cache held run id (run not NULL) or its metadata (meta not
 * NULL) and *run or *meta took it. */
int postgres_cache_take(struct store_conn *c, struct store_run *run, struct store_meta *meta,
			int64_t id);
/* The regions of regs[0..n) with calls will have their durations of run
 * run_id over ranks (postgres_array() text, NULL: all) asked for, in that
 * order. */
void postgres_blobs_expect(struct store_conn *c, int64_t run_id, const char *ranks,
			   const struct store_region_stats *regs, size_t n);
/* store_region_durations() from the expected blobs: *hit = 0 (nothing
 * done) for a region out of the plan. */
int postgres_blobs_get(struct store_conn *c, int *hit, struct i64vec *out, struct i64vec *ends,
		       int64_t run_id, int64_t region_id, const char *ranks);

/* ---- history.c -------------------------------------------------------- */

int postgres_region_history(struct store_conn *c, struct store_history_point **out, size_t *n,
			    const struct store_history_query *q);
int postgres_region_series(struct store_conn *c, struct store_series *out, const struct filter *f,
			   store_region_filter filter, void *ctx);

/* The pooled aggregates of SQLite's REGION_AGGREGATES (sqlite.h), over rows
 * t with a boolean column sel. */
#define PG_REGION_AGGREGATES                                                                       \
	"min(t.has_events), "                                                                      \
	"sum(CASE WHEN t.sel THEN t.calls ELSE 0 END), "                                           \
	"sum(CASE WHEN t.sel THEN t.total_ns ELSE 0 END), "                                        \
	"min(CASE WHEN t.sel AND t.calls > 0 THEN t.min_ns END), "                                 \
	"max(CASE WHEN t.sel AND t.calls > 0 THEN t.max_ns END), "                                 \
	"sum(CASE WHEN t.sel THEN t.gpu_count ELSE 0 END), "                                       \
	"sum(CASE WHEN t.sel THEN t.gpu_total_ns ELSE 0 END), "                                    \
	"sum(CASE WHEN t.sel AND t.total_ns > 0 THEN 1 ELSE 0 END), "                              \
	"max(CASE WHEN t.sel AND t.total_ns > 0 THEN t.total_ns END), "                            \
	"sum(CASE WHEN t.sel THEN 1 ELSE 0 END)"
#define PG_REGION_AGGREGATE_COLUMNS 10
#define PG_RUN_REGIONS_COLUMNS                                                                     \
	"has_events, calls, total_ns, min_ns, max_ns, gpu_count, gpu_total_ns, busy_ranks, "       \
	"busy_max_ns, nranks"
#define PG_RUN_COLUMNS                                                                             \
	"id, sha256, source_path, ingested_at, recorded_at, label, commit_sha, branch, "           \
	"schema_version, layout, num_ranks, num_regions, num_calls"
#define PG_NEWEST_FIRST " ORDER BY sort_time DESC, id DESC"

#endif
