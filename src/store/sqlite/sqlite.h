/*
 * sqlite.h - the SQLite store backend (private to src/store/sqlite/).
 *
 * The only code that calls SQLite.  The schema lives in
 * schema/NNNN_name.sql, compiled into the binary (schema_sql.h) and applied
 * in order by sqlite_open() according to PRAGMA user_version;
 * application_id is stamped so that scopedb refuses foreign databases.
 * Connections run with foreign_keys=ON, WAL journaling and a busy timeout.
 * Writers' transactions are BEGIN IMMEDIATE.
 *
 * The backend is split by concern: conn.c (connection, migrations,
 * transactions, maintenance and the backend table), write.c (the ingest
 * statements, tags, pins, removal, and the storage side of finishing a
 * run), read.c (runs, selectors, filters, per-region aggregates and
 * durations) and history.c (a region across runs).  Each function named
 * after a store_* call has its meaning (scopedb/store.h).
 *
 * Ownership: struct store_conn is created by sqlite_open() and freed by
 * sqlite_close(); text read from SQLite is always copied (util_strdup)
 * before the statement moves on.
 */
#ifndef SCOPEDB_STORE_SQLITE_H
#define SCOPEDB_STORE_SQLITE_H

#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "scopedb/store.h"
#include "scopedb/util.h"
#include "store/backend.h"
#include "store/rows.h"

/* application_id stamped in every store ("SCPD"). */
#define SQLITE_APPLICATION_ID 0x53435044

/* One region cache entry; name == NULL marks a free slot. */
struct region_slot {
	char *name;
	uint64_t hash;
	int64_t id;
};

struct store_conn {
	sqlite3 *db;
	char *path;
	int readonly;
	int busy_ms;
	struct store *front; /* for the schema 2 upgrade (finish pipeline) */
	/* cached statements of the ingest hot path, prepared on first use */
	sqlite3_stmt *add_timing;
	sqlite3_stmt *add_durations;
	sqlite3_stmt *region_find;
	sqlite3_stmt *region_add;
	sqlite3_stmt *put_quantiles;
	/* cached statements of diff/check, run once per side and region */
	sqlite3_stmt *region_stats;	/* with a rank list */
	sqlite3_stmt *region_stats_all; /* all ranks */
	sqlite3_stmt *region_durations;
	/* region name -> id; nslots is 0 or a power of two */
	struct region_slot *slots;
	size_t nslots;
	size_t nused;
	/* the timings rowids of run span_run (sqlite_put_region_totals()),
	 * span_run 0 when unknown */
	int64_t span_run, span_lo, span_hi;
};

/* Columns of runs read by run_from_row() (read.c), in that order. */
#define RUN_COLUMNS                                                                                \
	"id, sha256, source_path, ingested_at, recorded_at, label, commit_sha, branch, "           \
	"schema_version, layout, num_ranks, num_regions, num_calls"

/* The ORDER BY of every "newest first" selector (store.h, select.h). */
#define NEWEST_FIRST " ORDER BY sort_time DESC, id DESC"

/*
 * The pooled aggregates of one region over rows t of a subquery that has a
 * boolean column sel ("the row's rank is selected"), shared by
 * sqlite_region_stats() and sqlite_region_history() so that diff, check,
 * show and history pool identically; read back by
 * rows_stats().
 */
#define REGION_AGGREGATES                                                                          \
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
#define REGION_AGGREGATE_COLUMNS 10

/*
 * The same over all ranks, without the per-row rank test: what
 * sqlite_put_region_totals() writes into run_regions once per run (issue
 * 6: a medium run has 16,384 timings rows but 256 regions).
 */
#define ALL_RANKS_AGGREGATES                                                                       \
	"min(has_events), sum(calls), sum(total_ns), "                                             \
	"min(CASE WHEN calls > 0 THEN min_ns END), max(CASE WHEN calls > 0 THEN max_ns END), "     \
	"sum(gpu_count), sum(gpu_total_ns), sum(total_ns > 0), "                                   \
	"max(CASE WHEN total_ns > 0 THEN total_ns END), count(*)"

/* The REGION_AGGREGATES columns as stored in run_regions. */
#define RUN_REGIONS_COLUMNS                                                                        \
	"has_events, calls, total_ns, min_ns, max_ns, gpu_count, gpu_total_ns, busy_ranks, "       \
	"busy_max_ns, nranks"

/* The backend table (conn.c), registered in store/backends.h. */
extern const struct store_backend sqlite_store_backend;

/* ---- helpers (conn.c, write.c, read.c) -------------------------------- */

/* Map SQLite result code rc (the message is in the connection) to an ERR_*
 * code and record "cannot WHAT store 'PATH': REASON". */
int sqlite_err(const struct store_conn *st, int rc, const char *what);
/* The stored names of kind, for rows_hint() and the messages of rows.h
 * (rows_names_fn, read.c). */
int sqlite_names(struct store_conn *st, struct buf *out, size_t *n, enum rows_names kind);
/* Prepare sql into *out (NULL on failure, with the message set). */
int sqlite_prepare(struct store_conn *st, sqlite3_stmt **out, const char *sql, unsigned flags,
		   const char *what);
/* Run a transaction-control statement, retrying on SQLITE_BUSY. */
int sqlite_exec_retry(struct store_conn *st, const char *sql, const char *what);
/* Empty the region cache (and forget the cached rowid span). */
void sqlite_cache_clear(struct store_conn *st);
/* Bind text, or NULL when text is NULL or "". */
int sqlite_bind_text_or_null(sqlite3_stmt *s, int i, const char *text);
/* *out = the integer of the one-row query sql (?1 = text1 unless NULL);
 * with optional, no row is not an error and leaves *out = 0. */
int sqlite_query_int(struct store_conn *st, int64_t *out, const char *sql, const char *text1,
		     int optional);
/*
 * The row loop of a read statement: while (sqlite_row(s, &rc)) { ... }.
 * rc starts as the bind status; 1 on each row (rc back to SQLITE_OK), then
 * 0 with rc = the last step (or the failed bind) code, for
 * sqlite_rows_done() / sqlite_rows_end().  Inline: it runs once a row.
 */
static inline int sqlite_row(sqlite3_stmt *s, int *rc)
{
	if (*rc != SQLITE_OK)
		return 0;
	*rc = sqlite3_step(s);
	if (*rc != SQLITE_ROW)
		return 0;
	*rc = SQLITE_OK;
	return 1;
}

/* Step a fully bound write statement once (no reset, no finalize): 0, or
 * the error of the failed bind (bind_failed) or step.  Inline: the ingest
 * path runs it once a row. */
static inline int sqlite_step_write(struct store_conn *st, sqlite3_stmt *s, int bind_failed)
{
	int rc;

	if (bind_failed)
		return sqlite_err(st, sqlite3_errcode(st->db), "update");
	rc = sqlite3_step(s);
	return rc == SQLITE_DONE ? 0 : sqlite_err(st, rc, "update");
}

/* Finish a row loop: see write.c. */
int sqlite_rows_end(struct store_conn *st, sqlite3_stmt **s, int rc);
int sqlite_rows_done(struct store_conn *st, int rc);
int sqlite_cached(struct store_conn *st, sqlite3_stmt **s, sqlite3_stmt **slot, const char *sql);
int sqlite_snapshot_begin(struct store_conn *st, int *own_txn);
void sqlite_snapshot_end(struct store_conn *st, int own_txn, int failed);
void sqlite_rewind(sqlite3_stmt *s);
/* Decode the durations blob of column col and append it to out; a blob
 * that does not decode is ERR_STORE "store 'PATH' is damaged" naming run_id. */
int sqlite_blob_append(struct store_conn *st, struct i64vec *out, sqlite3_stmt *s, int col,
		       int64_t run_id);
int sqlite_col_blob(const void **data, size_t *len, sqlite3_stmt *s, int i);
/* The current row of s for the decoders of rows.h (rows_run(), ...). */
struct rows_row sqlite_row_of(sqlite3_stmt *s);
/* ranks[0..n) as a JSON array for json_each(), or NULL (all ranks) when
 * ranks is NULL; *failed = 1 on allocation failure. */
char *sqlite_ranks_json(const int64_t *ranks, size_t n, int *failed);

/*
 * The WHERE conditions of a run filter on table runs (alias "runs"), with
 * the values to bind in order as ?first, ?first+1, ...  The commit prefix
 * becomes an indexed GLOB pattern (owned in glob).
 */
struct run_where {
	struct buf sql;	   /* " AND cond" for each condition; "" for none */
	const char **vals; /* the bound texts, in parameter order */
	size_t n;
	char *glob[3]; /* the commit prefix's patterns (sqlite_commit_globs()) */
};

int sqlite_run_where_build(struct run_where *w, const struct filter *f, int first);
int sqlite_run_where_bind(sqlite3_stmt *s, const struct run_where *w, int first);
void sqlite_run_where_release(struct run_where *w);

/* ---- conn.c ----------------------------------------------------------- */

int sqlite_begin(struct store_conn *st);
int sqlite_commit(struct store_conn *st);
void sqlite_rollback(struct store_conn *st);

/* ---- write.c ---------------------------------------------------------- */

int sqlite_find_sha(struct store_conn *st, int64_t *out, const char *sha256);
int sqlite_insert_run(struct store_conn *st, int64_t *out, const struct store_run *run);
int sqlite_set_run_sha(struct store_conn *st, int64_t run_id, const char *sha256);
int sqlite_region_id(struct store_conn *st, int64_t *out, const char *name);
int sqlite_add_timing(struct store_conn *st, const struct store_timing *t);
int sqlite_put_region_totals(struct store_conn *st, int64_t run_id);
int sqlite_percentile_regions(struct store_conn *st, struct store_region_calls **out, size_t *n,
			      int64_t run_id);
int sqlite_scan_blobs(struct store_conn *st, int64_t run_id, store_blob_fn fn, void *ctx);
int sqlite_put_region_quantiles(struct store_conn *st, int64_t run_id, int64_t region_id,
				const double q[3]);
int sqlite_add_tag(struct store_conn *st, int *added, int64_t run_id, const char *tag);
int sqlite_remove_tag(struct store_conn *st, int *removed, int64_t run_id, const char *tag);
int sqlite_set_meta(struct store_conn *st, int64_t run_id, const char *key, const char *value);
int sqlite_pin_set(struct store_conn *st, int64_t *prev, const char *name, int64_t run_id,
		   int keep);
int sqlite_pin_remove(struct store_conn *st, int64_t *prev, const char *name);
int sqlite_remove_run(struct store_conn *st, char **unpinned, int64_t run_id, int force);

/* ---- read.c ----------------------------------------------------------- */

int sqlite_get_meta(struct store_conn *st, struct store_meta *out, int64_t run_id);
int sqlite_list_pins(struct store_conn *st, struct store_pin **out, size_t *n);
int sqlite_resolve(struct store_conn *st, int64_t *out, const struct select_spec *sel);
int sqlite_find_runs(struct store_conn *st, struct store_run **out, size_t *n,
		     const struct filter *f);
int sqlite_get_run(struct store_conn *st, struct store_run *out, int64_t id);
int sqlite_region_stats(struct store_conn *st, struct store_region_stats **out, size_t *n,
			int64_t run_id, const int64_t *ranks, size_t nranks,
			store_region_filter filter, void *ctx);
int sqlite_region_durations(struct store_conn *st, struct i64vec *out, struct i64vec *ends,
			    int64_t run_id, int64_t region_id, const int64_t *ranks, size_t nranks);
int sqlite_scan_timings(struct store_conn *st, int64_t run_id, store_timing_fn fn, void *ctx);
int sqlite_rank_totals(struct store_conn *st, int64_t run_id, store_rank_total_fn fn, void *ctx);

/* ---- history.c -------------------------------------------------------- */

int sqlite_region_history(struct store_conn *st, struct store_history_point **out, size_t *n,
			  const struct store_history_query *q);
int sqlite_region_series(struct store_conn *st, struct store_series *out, const struct filter *f,
			 store_region_filter filter, void *ctx);

#endif
