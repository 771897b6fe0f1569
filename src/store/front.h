/*
 * front.h - the store front end's own state and helpers (private to the
 * front end's files in src/store/: store.c, runs.c, regions.c, history.c,
 * resolve.c, ahead.c).
 *
 * struct store is the handle of scopedb/store.h: the backend, its
 * connection, and what the front end keeps per connection (the
 * transaction it began, the region ids of that transaction, the read
 * snapshot's read-ahead).  Statements run through store_sql_*() with
 * their values in a struct store_args.
 *
 * Ownership: struct store is created by store_open() and freed by
 * store_close(); the args own only their own array (store_args_release());
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
	int writing;	      /* inside store_begin() .. store_commit()/store_rollback() */
	int reading;	      /* inside the read snapshot store_read_begin() started */
	/* region name -> id in this write transaction (strmap id -> ids.v[]) */
	struct strmap names;
	struct i64vec ids;
	/* inside the read snapshot of a STORE_READ_AHEAD backend (ahead.c) */
	struct ahead_run runs[AHEAD_RUNS];
	size_t nruns;
	struct ahead_blobs blobs;
};

/* ---- statements (store.c) ------------------------------------------------ */

/* The values of one statement, in parameter order. */
#define STORE_ARGS_INLINE 8
struct store_args {
	struct store_value *v;
	size_t n, cap;
	int nomem; /* an append failed: running the statement fails */
	struct store_value inl[STORE_ARGS_INLINE];
};

void store_args_init(struct store_args *a);
void store_args_release(struct store_args *a);
void store_arg_null(struct store_args *a);
void store_arg_int(struct store_args *a, int64_t v);
void store_arg_real(struct store_args *a, double v);
/* NULL stays NULL. */
void store_arg_text(struct store_args *a, const char *s);
/* NULL when s is NULL or "" (the store keeps no empty strings). */
void store_arg_text_or_null(struct store_args *a, const char *s);
/* ids[0..n), NULL when ids is NULL ("all"). */
void store_arg_ids(struct store_args *a, const int64_t *ids, size_t n);
void store_arg_prefix(struct store_args *a, const char *s);

/* Run the named statement with a's values (NULL: none); rows to fn,
 * *changed the rows a write changed (both optional). */
int store_sql_run(struct store *st, enum sql_id id, const struct store_args *a, store_row_fn fn,
		  void *ctx, int64_t *changed);
/* The same for SQL put together at run time (flags: SQL_*). */
int store_sql_text(struct store *st, const char *sql, unsigned flags, const struct store_args *a,
		   store_row_fn fn, void *ctx);
/* *out = column 0 of the first row of the named statement as an integer;
 * *found = 0 (and *out = 0) when there is no row or it is NULL. */
int store_sql_int(struct store *st, int64_t *out, int *found, enum sql_id id,
		  const struct store_args *a);
/* A store_row_fn: *(int64_t *)ctx = column 0 of the row (0 for NULL). */
int store_row_int(void *ctx, const struct rows_row *r);
/* Append the named piece, or the placeholder of parameter n, to sql. */
int store_sql_put(struct store *st, struct buf *sql, enum sql_id id);
int store_sql_param(struct store *st, struct buf *sql, size_t n);

/* One snapshot for the statements of one call when no transaction is open
 * (*own = 1 then; end it with store_snapshot_end()); the caller's read
 * snapshot and its read-ahead stay as they are. */
int store_snapshot_begin(struct store *st, int *own);
void store_snapshot_end(struct store *st, int own);

/* Append the conditions of run filter f (NULL: none) on table runs to sql,
 * " AND ..." each, and their values to a, as the next parameters. */
int store_where(struct store *st, struct buf *sql, struct store_args *a, const struct filter *f);

/* ---- runs (runs.c) -------------------------------------------------------- */

/* store_get_run() without the checks of verify_run(). */
int store_read_run(struct store *st, struct store_run *out, int64_t id);

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
