/*
 * backend.h - the store backend interface (private to src/store/).
 *
 * In the manner of libgit2's refdb/odb backends: a backend is a constant
 * table of functions, struct store_backend, with a version field.  The
 * front end (store.c) keeps a registry of them (backends.h), picks the
 * first whose accepts() takes the --db value, refuses a table that is not
 * complete or not of STORE_BACKEND_VERSION (store_backend_check()), and
 * then dispatches every public store_* call to it.
 *
 * A backend defines struct store_conn, its connection, in its own private
 * header; the front end only holds a pointer to it.  Each function has the
 * meaning and error contract of the public store_* call of the same name in
 * scopedb/store.h; the backend sets the message (err_set()).  What stays
 * in the front end is backend-independent: releasing result structures,
 * sorting durations, and the percentile finish pipeline (src/ingest/).
 *
 * Adding a backend: its files under src/store/NAME/, a table
 * "const struct store_backend NAME_store_backend" and one STORE_BACKEND(NAME)
 * line in backends.h (before sqlite, which accepts any path).
 *
 * Ownership: the tables are static constants; a connection is created by
 * open() or open_temporary() and freed by close() (which accepts NULL).
 */
#ifndef SCOPEDB_STORE_BACKEND_H
#define SCOPEDB_STORE_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "scopedb/store.h"

/* The version of struct store_backend this scopedb understands. */
#define STORE_BACKEND_VERSION 1

/* A backend's connection, defined by the backend. */
struct store_conn;

/* The front end's handle: the backend and its connection. */
struct store {
	const struct store_backend *be;
	struct store_conn *conn;
};

struct store_backend {
	unsigned version; /* STORE_BACKEND_VERSION */
	const char *name; /* "sqlite": for messages */

	/* 1 when location (a --db value) is this backend's. */
	int (*accepts)(const char *location);
	/* Schema version this build writes. */
	int (*schema_version)(void);

	/* Open location (store_open() flags); set st->conn as soon as the
	 * connection exists, because an upgrade may call back into the front
	 * end (store_finish_run()) with st. */
	int (*open)(struct store *st, const char *location, int flags);
	/* A private store in memory (store_open_temporary()), likewise. */
	int (*open_temporary)(struct store *st);
	void (*close)(struct store_conn *c);
	const char *(*location)(const struct store_conn *c);
	void (*set_busy_timeout)(struct store_conn *c, int ms);

	/* transactions and read snapshots */
	int (*begin)(struct store_conn *c);
	int (*commit)(struct store_conn *c);
	void (*rollback)(struct store_conn *c);
	int (*read_begin)(struct store_conn *c, int *started);
	void (*read_end)(struct store_conn *c);

	/* ingest */
	int (*find_sha)(struct store_conn *c, int64_t *out, const char *sha256);
	int (*insert_run)(struct store_conn *c, int64_t *out, const struct store_run *run);
	int (*set_run_sha)(struct store_conn *c, int64_t run_id, const char *sha256);
	int (*region_id)(struct store_conn *c, int64_t *out, const char *name);
	int (*add_timing)(struct store_conn *c, const struct store_timing *t);

	/* finishing a run (the pipeline itself is the front end's
	 * store_finish_run(), src/store/finish.c) */
	int (*put_region_totals)(struct store_conn *c, int64_t run_id);
	int (*percentile_regions)(struct store_conn *c, struct store_region_calls **out, size_t *n,
				  int64_t run_id);
	int (*scan_blobs)(struct store_conn *c, int64_t run_id, store_blob_fn fn, void *ctx);
	int (*put_region_quantiles)(struct store_conn *c, int64_t run_id, int64_t region_id,
				    const double q[3]);

	/* tags, metadata, pins */
	int (*add_tag)(struct store_conn *c, int *added, int64_t run_id, const char *tag);
	int (*remove_tag)(struct store_conn *c, int *removed, int64_t run_id, const char *tag);
	int (*set_meta)(struct store_conn *c, int64_t run_id, const char *key, const char *value);
	int (*get_meta)(struct store_conn *c, struct store_meta *out, int64_t run_id);
	/* keep: leave an existing pin where it is (*prev says where) */
	int (*pin_set)(struct store_conn *c, int64_t *prev, const char *name, int64_t run_id,
		       int keep);
	int (*pin_remove)(struct store_conn *c, int64_t *prev, const char *name);
	int (*list_pins)(struct store_conn *c, struct store_pin **out, size_t *n);

	/* queries */
	int (*resolve)(struct store_conn *c, int64_t *out, const struct select_spec *sel);
	int (*find_runs)(struct store_conn *c, struct store_run **out, size_t *n,
			 const struct filter *f);
	int (*get_run)(struct store_conn *c, struct store_run *out, int64_t id);
	int (*region_stats)(struct store_conn *c, struct store_region_stats **out, size_t *n,
			    int64_t run_id, const int64_t *ranks, size_t nranks,
			    store_region_filter filter, void *ctx);
	/* The durations of one region appended to out, one ascending run per
	 * stored row, the end of each pushed to ends unless ends is NULL (not
	 * sorted overall: the front end sorts for store_region_durations()). */
	int (*region_durations)(struct store_conn *c, struct i64vec *out, struct i64vec *ends,
				int64_t run_id, int64_t region_id, const int64_t *ranks,
				size_t nranks);
	int (*region_history)(struct store_conn *c, struct store_history_point **out, size_t *n,
			      const struct store_history_query *q);
	/* The front end releases a failed result (store_series_release()). */
	int (*region_series)(struct store_conn *c, struct store_series *out, const struct filter *f,
			     store_region_filter filter, void *ctx);

	/* Every timings row of run_id in write order, with its region name
	 * and durations, to fn (store_scan_timings(): push and pull). */
	int (*scan_timings)(struct store_conn *c, int64_t run_id, store_timing_fn fn, void *ctx);

	/* maintenance */
	int (*remove_run)(struct store_conn *c, char **unpinned, int64_t run_id, int force);
	int (*compact)(struct store_conn *c, int64_t *before, int64_t *after);
	int (*used_bytes)(struct store_conn *c, int64_t *out);

	/* optional (NULL: store_rank_totals() asks region_stats per rank) */
	int (*rank_totals)(struct store_conn *c, int64_t run_id, store_rank_total_fn fn, void *ctx);
};

/*
 * 0 when be can be used: a known version and every function set; else
 * ERR_STORE "store backend 'NAME' ...: ..." naming what is wrong.
 */
int store_backend_check(const struct store_backend *be);

/* The registered backend for location (the first that accepts it; SQLite,
 * registered last, accepts any path).  Never NULL. */
const struct store_backend *store_backend_for(const char *location);

/* Open location with backend be (checked first): store_open() without the
 * registry, for tests and for backends that open a second connection. */
int store_open_with(struct store **out, const struct store_backend *be, const char *location,
		    int flags);

#endif
