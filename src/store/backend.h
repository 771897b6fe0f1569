/*
 * backend.h - the store backend interface (private to src/store/).
 *
 * In the manner of libgit2's odb/refdb backends: a backend is a constant
 * table of primitives, struct store_backend, with a version field.  The
 * front end (store.c and the files beside it) keeps a registry of them
 * (backends.h), picks the first whose accepts() takes the --db value,
 * refuses a table that is not complete or not of STORE_BACKEND_VERSION
 * (store_backend_check()), and implements every public store_* call on
 * these primitives: it holds the statements (statements.h, run through
 * exec() in the backend's SQL spelling, .sql), the selectors' rules and
 * messages (resolve.c), the run filters (store_where()), the region id
 * cache, what a read snapshot reads ahead (ahead.c), the checks of the
 * rows that carry numbers (verify.c) and the finish pipeline (finish.c).
 * A backend connects, runs transactions and statements, writes and scans
 * rows in bulk, and keeps its store in shape; it computes nothing.
 *
 * A backend defines struct store_conn, its connection, in its own private
 * header; the front end only holds a pointer to it.  Errors: a backend
 * sets the message (err_set()) naming the store by the location it gave
 * store_set_conn(), with the meaning of the store.h call it serves.
 *
 * Adding a backend: ARCHITECTURE.md, "A store backend".
 *
 * Ownership: the tables are static constants; a connection is created by
 * open() and freed by close() (which accepts NULL); the location a
 * backend gives store_set_conn() belongs to its connection.
 */
#ifndef SCOPEDB_STORE_BACKEND_H
#define SCOPEDB_STORE_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "scopedb/store.h"
#include "store/sql.h"

/* The version of struct store_backend this scopedb understands. */
#define STORE_BACKEND_VERSION 1

/* A backend's connection, defined by the backend. */
struct store_conn;

/* What a backend can do beyond the primitives (struct store_backend's caps). */
#define STORE_CAN_TEMPORARY                                                                        \
	1u /* open(location NULL): a private store in memory                                       \
	    * (store_open_temporary() uses the first such backend) */
#define STORE_READ_AHEAD                                                                           \
	2u /* each statement costs a round trip: inside a read snapshot,                           \
	    * the front end reads a run with its tags and metadata in one                          \
	    * statement and the durations of many regions per statement                            \
	    * (ahead.c) */

/* The tables a backend writes in bulk (write_rows()), with their row types. */
enum store_table {
	STORE_TABLE_TIMINGS,	 /* struct store_timing: the timings row and, when it has
				  * durations, its timings_durations row */
	STORE_TABLE_REGIONS,	 /* struct store_region_row: a new region */
	STORE_TABLE_PATHS,	 /* struct store_cells: a paths row, SQL_PATHS_COLUMNS */
	STORE_TABLE_PATH_RANKS,	 /* struct store_path_rank: a path_ranks row */
	STORE_TABLE_RUN_REGIONS, /* struct store_cells: a run_regions row,
				  * SQL_RUN_REGIONS_ROW_COLUMNS */
};

/* A new region of STORE_TABLE_REGIONS: its id (the front end numbers them)
 * and its name (checked text, the caller's). */
struct store_region_row {
	int64_t id;
	const char *name;
};

/* One column's value in a row of numbers the front end has put together,
 * its NULL rules applied: a bigint, a 0/1 smallint flag, a float8. */
enum store_cell_type { STORE_CELL_NULL, STORE_CELL_INT, STORE_CELL_FLAG, STORE_CELL_REAL };
struct store_cell {
	enum store_cell_type type;
	int64_t i; /* INT, FLAG */
	double d;  /* REAL */
};

/* A row of STORE_TABLE_PATHS or STORE_TABLE_RUN_REGIONS: n cells, one per
 * column of the table's list (sql.h), in its order, v[0..n).  n is at most
 * STORE_MAX_CELLS in a row a backend may write: a larger n (the front end's
 * mistake, v[STORE_MAX_CELLS] its spill) is refused. */
#define STORE_MAX_CELLS 16
struct store_cells {
	size_t n;
	struct store_cell v[STORE_MAX_CELLS + 1];
};

struct store_backend {
	unsigned version;	     /* STORE_BACKEND_VERSION */
	const char *name;	     /* "sqlite": for messages */
	unsigned caps;		     /* STORE_CAN_TEMPORARY, STORE_READ_AHEAD */
	const struct store_sql *sql; /* statements.h in its spelling */

	/* ---- connection ---- */

	/* 1 when location (a --db value) is this backend's. */
	int (*accepts)(const char *location);
	/* Schema version this build writes. */
	int (*schema_version)(void);
	/* Open location (store_open() flags; NULL: a temporary store, with
	 * STORE_CAN_TEMPORARY) and hand the connection to st with
	 * store_set_conn() as soon as it exists, because an upgrade may call
	 * back into the front end (store_finish_run()) with st. */
	int (*open)(struct store *st, const char *location, int flags);
	void (*close)(struct store_conn *c);
	/* store_set_busy_timeout() */
	void (*set_busy_timeout)(struct store_conn *c, int ms);

	/* ---- transactions: store_begin() ... store_read_end() ---- */

	/* A write transaction holding the store's write lock. */
	int (*begin)(struct store_conn *c);
	int (*commit)(struct store_conn *c);
	void (*rollback)(struct store_conn *c);
	/* A read snapshot when no transaction is open (*started = 1). */
	int (*read_begin)(struct store_conn *c, int *started);
	void (*read_end)(struct store_conn *c);

	/* ---- statements and rows ---- */

	/* Run s (sql.h) with its values bound in order, each result row to fn
	 * (NULL: none wanted) through the getters of rows.h; *changed (unless
	 * NULL) = the rows a write changed.  Errors say "cannot read" or, for
	 * SQL_WRITE, "cannot update"; a damaged store's, "is damaged". */
	int (*exec)(struct store_conn *c, const struct store_stmt *s, store_row_fn fn, void *ctx,
		    int64_t *changed);
	/* Write n rows of table (enum store_table) inside a write transaction,
	 * as the backend writes fastest (prepared inserts, COPY); they must be
	 * visible to the next statement. */
	int (*write_rows)(struct store_conn *c, enum store_table table, const void *rows, size_t n);
	/* Every durations blob of run_id with its region, in the order they
	 * lie in the store, in one pass (store_scan_blobs()). */
	int (*scan_blobs)(struct store_conn *c, int64_t run_id, store_blob_fn fn, void *ctx);

	/* ---- upkeep ---- */

	/* store_vacuum(), never inside a transaction */
	int (*compact)(struct store_conn *c, int64_t *before, int64_t *after);
	/* store_used_bytes() */
	int (*used_bytes)(struct store_conn *c, int64_t *out);

	/* ---- optional (NULL: the front end's way) ---- */

	/* store_rank_totals() by the backend's own means (NULL: the front end
	 * runs SQL_RANK_TOTALS); each row is checked by the front end. */
	int (*rank_totals)(struct store_conn *c, int64_t run_id, store_rank_total_fn fn, void *ctx);
};

/*
 * The mandatory primitives, by name: X(p, NAME) for each (the fields of
 * struct store_backend above without "optional", in its order), for
 * store_backend_check() and STORE_BACKEND_TABLE().
 */
#define STORE_PRIMITIVES(X, p)                                                                     \
	X(p, accepts)                                                                              \
	X(p, schema_version)                                                                       \
	X(p, open)                                                                                 \
	X(p, close)                                                                                \
	X(p, set_busy_timeout)                                                                     \
	X(p, begin)                                                                                \
	X(p, commit)                                                                               \
	X(p, rollback)                                                                             \
	X(p, read_begin)                                                                           \
	X(p, read_end)                                                                             \
	X(p, exec)                                                                                 \
	X(p, write_rows)                                                                           \
	X(p, scan_blobs)                                                                           \
	X(p, compact)                                                                              \
	X(p, used_bytes)

/*
 * The table of backend PREFIX: every primitive PREFIX_NAME (static or
 * not, defined above this line), its statements PREFIX_sql, its --db
 * values' label and its capabilities, e.g.
 * STORE_BACKEND_TABLE(sqlite, "sqlite", STORE_CAN_TEMPORARY).
 */
#define STORE_BACKEND_FIELD(p, name) .name = p##_##name,
#define STORE_BACKEND_TABLE(p, label, capabilities)                                                \
	const struct store_backend p##_store_backend = {.version = STORE_BACKEND_VERSION,          \
							.name = label,                             \
							.caps = capabilities,                      \
							.sql = &p##_sql,                           \
							STORE_PRIMITIVES(STORE_BACKEND_FIELD, p)}

/* A backend's schema migrations, for store_migrate(). */
struct store_migration {
	int64_t count;	  /* the schema version this build writes */
	const char *lock; /* SQL beginning a transaction that holds the store's write lock */
	/* run sql ("COMMIT", lock) as opening the store does */
	int (*run)(struct store_conn *c, const char *sql);
	/* *version = the store's schema version (0: a new store) */
	int (*identify)(struct store_conn *c, int64_t *version);
	/* migration version to version + 1, inside the transaction */
	int (*apply)(struct store_conn *c, int64_t version);
	/* roll back what is open, if anything */
	void (*abort)(struct store_conn *c);
};

/*
 * Bring c's store up to m->count: all the migrations in one transaction
 * for a new store (so that a store is either empty or complete), one
 * transaction each for an older one, identifying the store again under
 * the lock each time, because another process or machine may have
 * created or upgraded it since it was opened.
 */
int store_migrate(struct store_conn *c, const struct store_migration *m);

/* Hand the front end the connection (NULL: none) and the location its
 * messages name the store by (owned by c). */
void store_set_conn(struct store *st, struct store_conn *c, const char *location);

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
