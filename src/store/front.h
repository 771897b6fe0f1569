/*
 * front.h - the store front end's own state and helpers (private to the
 * front end's files in src/store/: store.c, runs.c, regions.c, totals.c,
 * paths.c, finish.c, history.c, resolve.c, ahead.c).
 *
 * struct store is the handle of scopedb/store.h: the backend, its
 * connection, and what the front end keeps per connection (the
 * transaction it began, the region ids of that transaction, the run's
 * region totals and paths until the run is finished, the read snapshot's
 * read-ahead).  Statements run through store_sql_*(), or
 * store_query_*() for SQL put together at run time.
 *
 * Ownership: struct store is created by store_open() and freed by
 * store_close(); a struct store_query owns its text, its value array and
 * the folded commit prefix of its filter (store_query_release()); other
 * text values point at the caller's strings.
 */
#ifndef SCOPEDB_STORE_FRONT_H
#define SCOPEDB_STORE_FRONT_H

#include <stddef.h>
#include <stdint.h>

#include "scopedb/filter.h"
#include "scopedb/store.h"
#include "scopedb/util.h"
#include "store/backend.h"
#include "store/sql.h"
#include "util/strmap.h"

/* A run read whole (ahead.c), kept until the caller takes each part. */
struct ahead_run {
	int64_t id;
	int has_run, has_meta;
	struct store_run run;
	struct store_meta meta;
};

/* One row of the durations read ahead: its region and its blob in the
 * arena (absent: a row without durations). */
struct ahead_blob {
	int64_t region_id;
	size_t off, len;
	int absent;
};

/* The durations the caller is expected to ask for, region after region,
 * and the chunk of them read (ahead.c). */
struct ahead_blobs {
	int64_t run_id;
	int64_t *ranks; /* the rank set (NULL: all), nranks of them */
	size_t nranks;
	int64_t *order;		     /* region ids in the order they will be asked */
	struct rows_series_key *pos; /* region id -> index in order, by id */
	size_t n;
	size_t lo, hi;		 /* order[lo..hi) are read */
	struct ahead_blob *rows; /* their rows, by region id then storage order */
	size_t nrows, caprows;
	struct buf arena;
};

/* Runs kept by the read-ahead; regions whose durations one statement reads. */
#define AHEAD_RUNS 4
#define AHEAD_BLOB_CHUNK 32

struct store {
	const struct store_backend *be;
	struct store_conn *conn;
	const char *location; /* the backend's, for messages */
	int temporary;	      /* store_open_temporary()'s: a profile file's run, read */
	char *file_note;      /* temporary: why its file's ranks have no tree, or NULL */
	int writing;	      /* inside store_begin() .. store_commit()/store_rollback() */
	int reading;	      /* inside the read snapshot store_read_begin() started */
	/* region name -> id in this write transaction (strmap id -> ids.v[]),
	 * and the id of its next new region (0: ask the store) */
	struct strmap names;
	struct i64vec ids;
	int64_t next_region;
	/* names holds every stored region (a STORE_READ_AHEAD backend reads
	 * them all at the first lookup of a write transaction) */
	int all_regions;
	/* inside the read snapshot of a STORE_READ_AHEAD backend (ahead.c) */
	struct ahead_run runs[AHEAD_RUNS];
	size_t nruns;
	struct ahead_blobs blobs;
	/* the paths of the run being written, held until the run is finished
	 * and written with the totals of their path_ranks rows (paths.c) and
	 * their percentiles (finish.c) */
	struct store_path_row *paths;
	size_t npaths, cappaths;
	/* the region totals of run tots_run (-1: none), added up from its
	 * timings rows as they are written (totals.c): tots[], and region id
	 * -> index + 1 in the hash table totslots[ntotslots] (0: empty) */
	struct store_region_total *tots;
	size_t ntots, captots;
	uint32_t *totslots;
	size_t ntotslots;
	int64_t tots_run;
};

/* ---- a run's totals (totals.c, paths.c) ------------------------------------ */

/* Timings or (path, rank) rows added up as SQL's sum(), min(), max() and
 * count() would have them (nranks rows; store_sums_add()).  NULL rules when
 * written (store_sums_cells()): with no rows every sum is NULL; min and max
 * without a row with calls (called == 0), busy_max without a busy row,
 * self when a row's self time is unknown. */
struct store_sums {
	int64_t calls, total, min, max, busy_ranks, busy_max, nranks, self;
	int64_t called; /* rows with calls */
	int self_unknown;
};
/* Add a row of calls, total, min, max (meaningful when calls > 0) and
 * self (< 0: unknown) to s; -1 (s unchanged) when a sum would pass
 * INT64_MAX. */
int store_sums_add(struct store_sums *s, int64_t calls, int64_t total, int64_t min, int64_t max,
		   int64_t self);

/* A paths row held until the run is finished: the path, its all-ranks
 * totals over its path_ranks rows, and its p50, p95 and p99 q[] (NULL
 * unless has_q: finish.c). */
struct store_path_row {
	struct store_path p;
	struct store_sums s;
	int has_q;
	double q[3];
};

/* A run_regions row: a region's timings rows of one run over all ranks,
 * added up as they are written (totals.c), with its p50, p95 and p99 q[]
 * (NULL unless has_q) and GPU sums. */
struct store_region_total {
	int64_t run_id, region_id;
	int has_events; /* every row's */
	int has_q;
	struct store_sums s;
	int64_t gpu_count, gpu_total;
	double q[3];
};

/* Write n rows of table (STORE_TABLE_PATHS, STORE_TABLE_RUN_REGIONS), each
 * of size bytes at rows, turned into cells by fill(), a chunk at a time. */
int store_write_cells(struct store *st, enum store_table table, const void *rows, size_t size,
		      size_t n, void (*fill)(struct store_cells *c, const void *row));
/* Append cells to c: an integer, an integer or NULL, a 0/1 flag, three
 * reals or NULLs, and s's totals in the order of SQL_SUMS_COLUMNS. */
void store_cell_int(struct store_cells *c, int64_t v);
void store_cell_int_or_null(struct store_cells *c, int64_t v, int null);
void store_cell_flag(struct store_cells *c, int v);
void store_cell_quantiles(struct store_cells *c, const double q[3], int has_q);
void store_cell_sums(struct store_cells *c, const struct store_sums *s);

/* 0 when st is inside a write transaction and the counts a and b fit
 * SQL's INTEGER; else a usage error: outside a transaction it names what
 * (plural) was being added, else "call count out of range". */
int store_check_add(const struct store *st, const char *what, uint64_t a, uint64_t b);

/* Add timings row t to its region's totals (store_add_timing()); a row of
 * another run than the held one starts that run's. */
int store_totals_add(struct store *st, const struct store_timing *t);
/* The totals of every region of run_id, sorted by region id, in *out (the
 * store's, valid until store_totals_put()): those added up in this
 * transaction, or (a run written before) summed by the store.  No rows can
 * be added to them after this. */
int store_totals_get(struct store *st, int64_t run_id, struct store_region_total **out, size_t *n);
/* Write the totals store_totals_get() gave (their percentiles set by the
 * caller) as the run's run_regions rows, and its region and call counts;
 * ERR_NOTFOUND when there is no such run.  The held totals are dropped. */
int store_totals_put(struct store *st, int64_t run_id);
/* Drop the held totals (a new transaction, or one rolled back). */
void store_totals_forget(struct store *st);

/* The held paths of run_id (NULL, 0: none), for their percentiles. */
struct store_path_row *store_held_paths(struct store *st, int64_t run_id, size_t *n);
/* Write the held paths as they are now (their percentiles, if set, too)
 * and drop them. */
int store_put_held_paths(struct store *st);

/* ---- statements (store.c) ------------------------------------------------ */

/* Run the named statement with its n values v (sql.h: sql_int() ...);
 * rows to fn, *changed the rows a write changed (both optional). */
int store_sql_run(struct store *st, enum sql_id id, const struct store_value *v, size_t n,
		  store_row_fn fn, void *ctx, int64_t *changed);
/* *out = column 0 of the first row of the named statement as an integer;
 * *found = 0 (and *out = 0) when there is no row or it is NULL. */
int store_sql_int(struct store *st, int64_t *out, int *found, enum sql_id id,
		  const struct store_value *v, size_t n);
/* A store_row_fn: *(int64_t *)ctx = column 0 of the row (0 for NULL). */
int store_row_int(void *ctx, const struct rows_row *r);

/* The rows of a statement decoded into a growing array: store_rows_push()
 * as the store_row_fn, with decode() filling each new (zeroed) element
 * and returning 0, STORE_ROW_SKIP to drop it, or an error.  The caller
 * frees the n elements of v (also after an error: each is zeroed or
 * decoded). */
struct store_rows {
	void *v;
	size_t n, cap, size;
	int (*decode)(void *ctx, void *elem, const struct rows_row *r);
	void *ctx;
};
#define STORE_ROW_SKIP 1
#define STORE_ROWS(type, decode, ctx)                                                              \
	{                                                                                          \
		NULL, 0, 0, sizeof(type), decode, ctx                                              \
	}
int store_rows_push(void *rows, const struct rows_row *r);

/* SQL put together at run time: pieces of statements.h, the conditions of
 * a run filter, and the values of its parameters in order. */
struct store_query {
	struct buf sql;
	struct store_value *v;
	size_t n, cap;
	char *folded[2]; /* the commit prefix of store_where() in lower and upper case */
	int nomem;	 /* an append failed: running it fails */
};

void store_query_init(struct store_query *q);
void store_query_release(struct store_query *q);
/* Append the named piece to q's text. */
void store_query_put(struct store *st, struct store_query *q, enum sql_id piece);
/* Append the value of the next parameter: as the pieces name it (P(n)),
 * or with its placeholder appended to the text (store_query_param()). */
void store_query_value(struct store_query *q, struct store_value v);
void store_query_param(struct store *st, struct store_query *q, struct store_value v);
/*
 * A commit prefix in any case (git takes BB02 for bb02): into folded[0]
 * and folded[1] (malloc'ed) the prefix with its ASCII letters in lower
 * case (as every hex commit is stored) and in upper case; searched with
 * the prefix as given too (as an older scopedb or a program may have
 * stored a commit), each form an index search where lower(commit_sha)
 * would read every row.  0 or ERR_NOMEM (both NULL then).
 */
int store_fold_prefix(char *folded[2], const char *prefix);

/* Append the conditions of run filter f (NULL: none) on table runs,
 * " AND ..." each, with their values; at most once per query. */
void store_where(struct store *st, struct store_query *q, const struct filter *f);
/* head, the conditions of f from the next parameter on, tail: a listing
 * of runs whose first parameter is f's limit (NULL: none). */
void store_query_filtered(struct store *st, struct store_query *q, enum sql_id head,
			  const struct filter *f, enum sql_id tail);
/* Run q (flags: SQL_*). */
int store_query_run(struct store *st, const struct store_query *q, unsigned flags, store_row_fn fn,
		    void *ctx);

/* One snapshot for the statements of one call when no transaction is open
 * (*own = 1 then; end it with store_snapshot_end()); the caller's read
 * snapshot and its read-ahead stay as they are. */
int store_snapshot_begin(struct store *st, int *own);
void store_snapshot_end(struct store *st, int own);

/* ---- runs (runs.c) -------------------------------------------------------- */

/* store_get_run() without the checks of verify_run(). */
int store_read_run(struct store *st, struct store_run *out, int64_t id);
/* Append key = value (copies) to m. */
int store_meta_add(struct store_meta *m, const char *key, const char *value);
/* Append the key and value of columns col and col + 1 of r (NULL as "")
 * to m. */
int store_meta_row(struct store_meta *m, const struct rows_row *r, int col);

/* ---- read-ahead (ahead.c) ------------------------------------------------ */

/* Forget what the read snapshot read ahead. */
void ahead_drop(struct store *st);
/* Run id with its tags into *run and its metadata into *meta, in one
 * statement; *found = 0 (and nothing filled) when there is no such run. */
int ahead_fetch_run(struct store *st, struct store_run *run, struct store_meta *meta, int *found,
		    int64_t id);
/* Keep run and meta of run id (either may be NULL) inside a read
 * snapshot, else release them; they are moved, and left zeroed. */
void ahead_keep(struct store *st, int64_t id, struct store_run *run, struct store_meta *meta);
/* 1 when the read-ahead held run id (run not NULL) or its metadata (meta
 * not NULL) and *run or *meta took it. */
int ahead_take(struct store *st, struct store_run *run, struct store_meta *meta, int64_t id);
/* The regions of regs[0..n) with calls will have their durations of run
 * run_id over ranks (NULL: all) asked for, in that order. */
void ahead_blobs_expect(struct store *st, int64_t run_id, const int64_t *ranks, size_t nranks,
			const struct store_region_stats *regs, size_t n);
/* store_region_duration_runs() from the blobs read ahead: *hit = 0
 * (nothing done) for a region out of the plan. */
int ahead_blobs_get(struct store *st, int *hit, struct i64vec *out, struct i64vec *ends,
		    int64_t run_id, int64_t region_id, const int64_t *ranks, size_t nranks);

/* ---- selectors' messages (resolve.c) ------------------------------------- */

/* The stored names of kind, for rows_hint(): c is the front end's struct
 * store (rows.h lets the caller choose what names() receives). */
int store_names(struct store_conn *c, struct buf *out, size_t *n, enum rows_names kind);
/* rows_hint()'s context for st. */
struct store_conn *store_names_ctx(struct store *st);

#endif
