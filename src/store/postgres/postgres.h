/*
 * postgres.h - the PostgreSQL store backend (private to src/store/postgres/).
 *
 * The only code that calls libpq (loaded when first needed: pq.h).  It
 * accepts postgresql:// and postgres:// URIs and libpq key=value connection
 * strings (uri.c), keeps the same tables as the SQLite store
 * (schema/postgres/NNNN_name.sql, embedded by cmake/embed_schema.cmake and
 * applied in order according to scopedb_meta.schema_version), and answers
 * the front end's statements with the same results, so that every command
 * prints the same output on the same data: text that is sorted is in the
 * "C" collation, floats travel as shortest exact text (extra_float_digits
 * = 3) or in binary, run and region ids are assigned as SQLite assigns
 * them.
 *
 * Writers: begin() opens a transaction and takes the store's write lock, a
 * transaction-scoped advisory lock (POSTGRES_LOCK_KEY), so that writers on
 * many machines are serialized as SQLite serializes them and the
 * content-hash dedupe of ingest cannot race (sha256 is also UNIQUE).  The
 * lock wait is bounded by lock_timeout (set_busy_timeout()).  Timings rows
 * are not sent one by one: they are appended to COPY buffers and sent
 * before any other statement, when a buffer is large, and at commit
 * (postgres_flush()).  Read snapshots are REPEATABLE READ transactions.
 * Every value is a bound parameter; SQL text is constant or built from
 * constant pieces.  Each statement costs a round trip, so the backend asks
 * the front end to read ahead (STORE_READ_AHEAD).
 *
 * Split by concern, each file using only those before it: uri.c (which
 * --db values, passwords masked), exec.c (errors, parameters, results,
 * running statements, sending the COPY buffers), copy.c (rows encoded into
 * the COPY buffers: write_rows()), conn.c (connecting, migrations,
 * transactions, upkeep, the table) and sql.c (statements.h in
 * PostgreSQL's spelling).
 *
 * Ownership: struct store_conn is created by postgres_open() and freed by
 * postgres_close(); every PGresult is cleared in the function that got it;
 * text and blobs a row's getters return are borrowed until it is cleared.
 */
#ifndef SCOPEDB_STORE_POSTGRES_H
#define SCOPEDB_STORE_POSTGRES_H

#include <stddef.h>
#include <stdint.h>

#include "scopedb/store.h"
#include "scopedb/util.h"
#include "store/backend.h"
#include "store/postgres/pq.h"
#include "store/sql.h"

/* The key of the store's write lock (pg_advisory_xact_lock), "SCPD". */
#define POSTGRES_LOCK_KEY "1396920388"

/* Send the COPY buffers once one of them holds this many bytes. */
#define POSTGRES_COPY_FLUSH (8u << 20)

/* A durations blob longer than this goes to the server in a COPY of its
 * own, straight from the caller's bytes (postgres_copy_blob()): appended
 * to the buffer, one region of 100M calls held its 100 MB blob twice
 * (issue 26).  A COPY per 256 KiB or more is few round trips per byte. */
#define POSTGRES_BLOB_STREAM ((size_t)256 << 10)

struct store_conn {
	PGconn *db;
	char *location; /* as given, password masked: for messages */
	int readonly;
	int busy_ms;
	struct store *front; /* for upgrades that run the finish pipeline */
	/* the next timings id to give in this transaction (0: ask the store) */
	int64_t next_timing;
	/* a read snapshot ended: COMMIT before the next statement */
	int commit_due;
	/* inside a read snapshot of read_begin() (errors worded as reads) */
	int reading;
	/* pending COPY rows of new regions, timings and timings_durations,
	 * and of the call tree's paths and path_ranks (sent in that order) */
	struct buf copy_regions, copy_timings, copy_durations;
	struct buf copy_paths, copy_path_ranks, copy_run_regions;
};

/* The backend table (conn.c), registered in store/backends.h. */
extern const struct store_backend postgres_store_backend;
/* statements.h in PostgreSQL's spelling (sql.c). */
extern const struct store_sql postgres_sql;

/* ---- exec.c ------------------------------------------------------------- */

/* Record the error of res (or of the connection when res is NULL) as
 * "cannot WHAT store 'LOCATION': REASON" with the matching ERR_* code:
 * ERR_BUSY for a lock timeout, ERR_IO for a lost connection. */
int postgres_err(const struct store_conn *c, const PGresult *res, const char *what);
/* The first line of msg (libpq's messages end in newlines and hints), at
 * most 400 bytes: its length. */
int postgres_first_line(const char *msg);
/* Run sql with the n text parameters v (pending COPY rows sent first):
 * *res = its result (the caller clears it), read in binary when binary
 * (each column checked). */
int postgres_result(struct store_conn *c, PGresult **res, const char *sql, int n,
		    const char *const *v, int binary, const char *what);
/* Integer column col of a text result (0 for NULL). */
int64_t pg_int(const PGresult *r, int row, int col);
/* 1 when the text s is one number from end to end (whole: an integer in
 * decimal) within range; strtoll() alone would read "12abc" as 12. */
int pg_text_number(const char *s, int whole);
/* The front end's statements (backend.h: exec()). */
int postgres_exec(struct store_conn *c, const struct store_stmt *q, store_row_fn fn, void *ctx,
		  int64_t *changed);
/* Run a statement without parameters or pending COPY rows (transaction
 * control, settings). */
int postgres_run(struct store_conn *c, const char *sql, const char *what);
/* *out = the integer of the first column of the one-row query sql (no
 * parameters); no row or NULL is ERR_STORE. */
int postgres_query_int(struct store_conn *c, int64_t *out, const char *sql);
/* Every durations blob of run_id, in the order written (backend.h). */
int postgres_scan_blobs(struct store_conn *c, int64_t run_id, store_blob_fn fn, void *ctx);

/* End the read snapshot read_end() left open (the COMMIT that was due),
 * before the next statement. */
void postgres_settle(struct store_conn *c);
/* Send the pending COPY rows (before any other statement). */
int postgres_flush(struct store_conn *c);
/* Send the pending COPY rows, then one durations row alone: head (the
 * binary COPY header and the tuple up to the blob's length) and the len
 * bytes of data, sent as they lie, without a copy. */
int postgres_copy_blob(struct store_conn *c, const struct buf *head, const void *data, size_t len);

/* ---- copy.c ------------------------------------------------------------- */

/* backend.h: write_rows(): rows encoded into the COPY buffers. */
int postgres_write_rows(struct store_conn *c, enum store_table table, const void *rows, size_t n);

#endif
