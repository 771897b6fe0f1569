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
 * The backend is split by concern, each file using only those before it:
 * exec.c (errors; running the front end's statements, with a prepared
 * statement kept per statement of statements.h; writing timings rows;
 * scanning a run's blobs), conn.c (connection, migrations, transactions,
 * upkeep and the backend table) and sql.c (statements.h in SQLite's
 * spelling).
 *
 * Ownership: struct store_conn is created by sqlite_open() and freed by
 * sqlite_close(), with every statement it keeps; text and blobs read from
 * SQLite are borrowed until the statement moves on.
 */
#ifndef SCOPEDB_STORE_SQLITE_H
#define SCOPEDB_STORE_SQLITE_H

#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

#include "scopedb/store.h"
#include "store/backend.h"
#include "store/sql.h"

/* Testing hook: durations blobs longer than n bytes are written into
 * their row a chunk at a time (0: the default, 16 MiB). */
void sqlite_set_blob_stream(size_t n);

/* application_id stamped in every store ("SCPD"). */
#define SQLITE_APPLICATION_ID 0x53435044

struct store_conn {
	sqlite3 *db;
	char *path;
	int readonly;
	int busy_ms;
	struct store *front; /* for the schema 2 upgrade (finish pipeline) */
	/* the statements of statements.h, prepared on first use */
	sqlite3_stmt *stmts[SQL_COUNT];
	/* write_rows(): the timings row and its durations row */
	sqlite3_stmt *add_timing;
	sqlite3_stmt *add_durations;
	sqlite3_stmt *add_path, *add_path_rank; /* the call tree's rows */
	sqlite3_stmt *add_run_region;		/* a run's region totals */
};

/* The backend table (conn.c), registered in store/backends.h. */
extern const struct store_backend sqlite_store_backend;
/* statements.h in SQLite's spelling (sql.c). */
extern const struct store_sql sqlite_sql;

/* ---- exec.c ------------------------------------------------------------- */

/* Map SQLite result code rc (the message is in the connection) to an ERR_*
 * code and record "cannot WHAT store 'PATH': REASON". */
int sqlite_err(const struct store_conn *st, int rc, const char *what);
/* Prepare sql into *out (NULL on failure, with the message set). */
int sqlite_prepare(struct store_conn *st, sqlite3_stmt **out, const char *sql, unsigned flags,
		   const char *what);

/* The primitives exec, write_rows and scan_blobs (backend.h). */
int sqlite_exec(struct store_conn *st, const struct store_stmt *q, store_row_fn fn, void *ctx,
		int64_t *changed);
int sqlite_write_rows(struct store_conn *st, enum store_table table, const void *rows, size_t n);
int sqlite_scan_blobs(struct store_conn *st, int64_t run_id, store_blob_fn fn, void *ctx);
/* Finalize every statement st keeps. */
void sqlite_stmts_release(struct store_conn *st);

#endif
