/*
 * exec.c - the SQLite backend's statements and rows (see sqlite.h): its
 * errors, the front end's statements run with their values bound
 * (exec()), the timings rows of ingest (write_rows()), and a run's blobs
 * in storage order (scan_blobs()).
 *
 * Each statement of statements.h is prepared once per connection, on
 * first use, and kept (SQLITE_PREPARE_PERSISTENT): diff and check run the
 * same few statements once per side and region, ingest once per row.  SQL
 * put together at run time is prepared for its call only.  A result row
 * goes to the front end through the column getters of rows.h over the
 * statement.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scopedb/err.h"
#include "scopedb/store.h"
#include "scopedb/util.h"
#include "store/rows.h"
#include "store/sqlite/sqlite.h"

/* ---- errors -------------------------------------------------------------- */

int sqlite_err(const struct store_conn *st, int rc, const char *what)
{
	const char *msg = st->db ? sqlite3_errmsg(st->db) : sqlite3_errstr(rc);

	switch (rc & 0xff) {
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return err_set(
		    ERR_BUSY,
		    "cannot %s store '%s': locked by another process (gave up after %d ms)", what,
		    st->path, st->busy_ms);
	case SQLITE_NOMEM:
		return err_nomem();
	case SQLITE_CORRUPT:
		/* a damaged page or schema: say so, whatever was being done */
		return err_set(ERR_STORE, "store '%s' is damaged: %s", st->path, msg);
	case SQLITE_ERROR:
		/* a table or column of the schema gone (sqlite_check_schema()) */
		if (!strncmp(msg, "no such table: ", 15) || !strncmp(msg, "no such column: ", 16))
			return err_set(ERR_STORE, "store '%s' is damaged: %s", st->path, msg);
		return err_set(ERR_STORE, "cannot %s store '%s': %s", what, st->path, msg);
	case SQLITE_CANTOPEN:
		/* the -wal or -shm file of a store on a read-only file system:
		 * SQLite says only "unable to open database file" */
		if (access(st->path, W_OK) && errno == EROFS)
			msg = "read-only file system";
		return err_set(ERR_IO, "cannot %s store '%s': %s", what, st->path, msg);
	case SQLITE_IOERR:
	case SQLITE_FULL:
	case SQLITE_READONLY:
	case SQLITE_PERM:
		return err_set(ERR_IO, "cannot %s store '%s': %s", what, st->path, msg);
	default:
		return err_set(ERR_STORE, "cannot %s store '%s': %s", what, st->path, msg);
	}
}

int sqlite_prepare(struct store_conn *st, sqlite3_stmt **out, const char *sql, unsigned flags,
		   const char *what)
{
	int rc = sqlite3_prepare_v3(st->db, sql, -1, flags, out, NULL);

	if (rc != SQLITE_OK) {
		*out = NULL;
		return sqlite_err(st, rc, what);
	}
	return 0;
}

/* ---- rows ---------------------------------------------------------------- */

/* Blob column i, borrowed until the next step: SQLite returns NULL for an
 * empty blob and for a failed allocation (then the length is not 0). */
static int col_blob(const void **data, size_t *len, sqlite3_stmt *s, int i)
{
	int n;

	*data = sqlite3_column_blob(s, i);
	n = sqlite3_column_bytes(s, i);
	*len = (size_t)n;
	return !*data && n > 0 ? err_nomem() : 0;
}

/* The column getters of rows.h over a statement's current row. */
static int row_null(const struct rows_row *r, int col)
{
	return sqlite3_column_type(r->res, col) == SQLITE_NULL;
}

/* 1 (and the column in r->misread) when column col holds a text or a
 * blob: a number getter's value would be SQLite's conversion of it (0 for
 * "abc"), so the row is refused (sqlite_exec()). */
static int row_not_number(const struct rows_row *r, int col)
{
	int t = sqlite3_column_type(r->res, col);

	if (t != SQLITE_TEXT && t != SQLITE_BLOB)
		return 0;
	if (r->misread && *r->misread < 0)
		*r->misread = col;
	return 1;
}

/* An integer column; 0 for NULL; a real truncated (a column of INTEGER
 * affinity keeps a value that is not whole as a real). */
static int64_t row_i64(const struct rows_row *r, int col)
{
	return row_not_number(r, col) ? 0 : sqlite3_column_int64(r->res, col);
}

static double row_f64(const struct rows_row *r, int col)
{
	return row_not_number(r, col) ? 0.0 : sqlite3_column_double(r->res, col);
}

static const char *row_text(const struct rows_row *r, int col)
{
	return (const char *)sqlite3_column_text(r->res, col);
}

static int row_blob(const struct rows_row *r, int col, const void **data, size_t *len)
{
	return col_blob(data, len, r->res, col);
}

static const struct rows_row_ops sqlite_row_ops = {row_null, row_i64, row_f64, row_text, row_blob};

/* ---- statements ---------------------------------------------------------- */

/* "abc" -> "abc*" with GLOB's special characters bracketed: the pattern of
 * a STORE_PREFIX value, an indexed prefix search (malloc'ed; NULL when
 * memory ran out). */
static char *glob_prefix(const char *prefix)
{
	struct buf b = BUF_INIT;
	int rc = 0;

	for (; *prefix && !rc; prefix++) {
		if (*prefix == '*' || *prefix == '?' || *prefix == '[')
			rc = buf_printf(&b, "[%c]", *prefix);
		else
			rc = buf_putc(&b, *prefix);
	}
	return buf_finish(&b, rc || buf_putc(&b, '*'));
}

/* reals[0..n) as a JSON array (%.17g; null for what JSON cannot say),
 * malloc'ed; NULL when memory ran out. */
static char *real_list(const double *reals, size_t n)
{
	struct buf b = BUF_INIT;
	size_t i;
	int rc = buf_putc(&b, '[');

	for (i = 0; i < n && !rc; i++) {
		if (i)
			rc = buf_putc(&b, ',');
		if (!rc && (reals[i] != reals[i] || reals[i] > 1.7976931348623157e308 ||
			    reals[i] < -1.7976931348623157e308))
			rc = buf_puts(&b, "null");
		else if (!rc)
			rc = buf_printf(&b, "%.17g", reals[i]);
	}
	return buf_finish(&b, rc || buf_putc(&b, ']'));
}

/* Bind value v as parameter i of s: SQLITE_OK, or an SQLite error code
 * (SQLITE_NOMEM when a text could not be made). */
static int bind_value(sqlite3_stmt *s, int i, const struct store_value *v)
{
	char *text;
	int failed = 0;

	switch (v->type) {
	case STORE_INT:
		return sqlite3_bind_int64(s, i, v->i);
	case STORE_REAL:
		return sqlite3_bind_double(s, i, v->d);
	case STORE_TEXT:
		return sqlite3_bind_text(s, i, v->s, -1, SQLITE_STATIC);
	case STORE_IDS:
		text = rows_id_list(v->ids, v->n, '[', ']', &failed);
		break;
	case STORE_REALS:
		text = real_list(v->reals, v->n);
		failed = !text;
		break;
	case STORE_PREFIX:
		text = glob_prefix(v->s);
		failed = !text;
		break;
	default:
		return sqlite3_bind_null(s, i);
	}
	/* SQLite frees the text once the statement is done with it */
	return failed ? SQLITE_NOMEM : sqlite3_bind_text(s, i, text, -1, free);
}

int sqlite_exec(struct store_conn *st, const struct store_stmt *q, store_row_fn fn, void *ctx,
		int64_t *changed)
{
	const char *what = q->flags & SQL_WRITE ? "update" : "read";
	sqlite3_stmt **slot = q->id >= 0 && q->id < SQL_COUNT ? &st->stmts[q->id] : NULL;
	sqlite3_stmt *s = slot ? *slot : NULL;
	struct rows_row row;
	size_t i;
	int own = 0, rc = SQLITE_OK, ret = 0, misread = -1;

	if (slot && !s)
		ret = sqlite_prepare(st, slot, q->sql, SQLITE_PREPARE_PERSISTENT, what);
	s = slot ? *slot : NULL;
	/* a statement in use by a caller up the stack: a copy of it */
	if (!ret && (!s || sqlite3_stmt_busy(s))) {
		ret = sqlite_prepare(st, &s, q->sql, 0, what);
		own = 1;
	}
	if (ret)
		return ret;
	for (i = 0; i < q->n && rc == SQLITE_OK; i++)
		rc = bind_value(s, (int)i + 1, &q->v[i]);
	row = (struct rows_row){&sqlite_row_ops, s, 0, &misread};
	while (rc == SQLITE_OK && (rc = sqlite3_step(s)) == SQLITE_ROW) {
		rc = SQLITE_OK;
		if (fn && (ret = fn(ctx, &row)))
			break;
		if (misread >= 0) {
			ret = rows_misread(st->path, sqlite3_column_name(s, misread),
					   sqlite3_column_type(s, misread) == SQLITE_BLOB ? "blob"
											  : "text");
			break;
		}
	}
	if (!ret && rc != SQLITE_DONE)
		ret = sqlite_err(st, rc, what);
	if (!ret && changed)
		*changed = sqlite3_changes(st->db);
	if (own) {
		sqlite3_finalize(s);
	} else {
		sqlite3_reset(s);
		sqlite3_clear_bindings(s);
	}
	return ret;
}

void sqlite_stmts_release(struct store_conn *st)
{
	size_t i;

	for (i = 0; i < SQL_COUNT; i++) {
		sqlite3_finalize(st->stmts[i]);
		st->stmts[i] = NULL;
	}
	sqlite3_finalize(st->add_timing);
	sqlite3_finalize(st->add_durations);
	sqlite3_finalize(st->add_path);
	sqlite3_finalize(st->add_path_rank);
	sqlite3_finalize(st->add_run_region);
	st->add_timing = st->add_durations = st->add_path = st->add_path_rank = NULL;
	st->add_run_region = NULL;
}

/* ---- timings rows ---------------------------------------------------------- */

/* Bind text, or NULL when text is NULL or "". */
static int bind_text_or_null(sqlite3_stmt *s, int i, const char *text)
{
	if (!text || !*text)
		return sqlite3_bind_null(s, i);
	return sqlite3_bind_text(s, i, text, -1, SQLITE_STATIC);
}

/* Step a fully bound write statement once and reset it: 0, or the error of
 * the failed bind (bind_failed) or step. */
static int step_write(struct store_conn *st, sqlite3_stmt *s, int bind_failed)
{
	int rc = bind_failed ? sqlite3_errcode(st->db) : sqlite3_step(s);

	sqlite3_reset(s);
	return rc == SQLITE_DONE ? 0 : sqlite_err(st, rc, "update");
}

/* The statements of write_rows(), prepared on first use. */
static int prepare_timing(struct store_conn *st)
{
	int ret = 0;

	if (!st->add_timing)
		ret = sqlite_prepare(
		    st, &st->add_timing,
		    "INSERT INTO timings (" SQL_TIMINGS_COLUMNS ") VALUES (?1, ?2, ?3, "
		    "?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, "
		    "?18, ?19, ?20, ?21)",
		    SQLITE_PREPARE_PERSISTENT, "update");
	if (!ret && !st->add_durations)
		ret = sqlite_prepare(
		    st, &st->add_durations,
		    "INSERT INTO timings_durations (timing_id, data) VALUES (?1, ?2)",
		    SQLITE_PREPARE_PERSISTENT, "update");
	return ret;
}

/* Durations longer than this are written into a zeroblob a chunk at a
 * time: bound whole, SQLite builds the row's record in memory, a copy of
 * the blob (100 MB for one region of 100M calls, issue 26). */
#define SQLITE_BLOB_STREAM ((size_t)16 << 20)

static size_t sqlite_blob_stream = SQLITE_BLOB_STREAM; /* testing hook */

void sqlite_set_blob_stream(size_t n)
{
	sqlite_blob_stream = n ? n : SQLITE_BLOB_STREAM;
}

/* Write data[0..len) into the durations row id, inserted as a zeroblob of
 * len bytes. */
static int write_blob(struct store_conn *st, sqlite3_int64 id, const void *data, size_t len)
{
	sqlite3_blob *b = NULL;
	size_t at = 0;
	int rc = sqlite3_blob_open(st->db, "main", "timings_durations", "data", id, 1, &b);

	while (rc == SQLITE_OK && at < len) {
		int k = len - at < ((size_t)1 << 20) ? (int)(len - at) : (1 << 20);

		rc = sqlite3_blob_write(b, (const char *)data + at, k, (int)at);
		at += (size_t)k;
	}
	if (rc != SQLITE_OK) {
		int ret = sqlite_err(st, rc, "update");

		sqlite3_blob_close(b);
		return ret;
	}
	rc = sqlite3_blob_close(b);
	return rc == SQLITE_OK ? 0 : sqlite_err(st, rc, "update");
}

/* A timings row and, when it has durations, its durations row. */
static int add_timing(struct store_conn *st, const struct store_timing *t)
{
	sqlite3_stmt *s = st->add_timing;
	sqlite3_int64 id;
	int bad = 0, ret;

	bad |= sqlite3_bind_int64(s, 1, t->run_id) != SQLITE_OK;
	bad |= sqlite3_bind_int64(s, 2, t->region_id) != SQLITE_OK;
	bad |= sqlite3_bind_int64(s, 3, t->rank) != SQLITE_OK;
	bad |= sqlite3_bind_int(s, 4, t->has_events ? 1 : 0) != SQLITE_OK;
	bad |= sqlite3_bind_int64(s, 5, (int64_t)t->calls) != SQLITE_OK;
	bad |= sqlite3_bind_int64(s, 6, t->total) != SQLITE_OK;
	bad |= sqlite3_bind_int64(s, 7, t->min) != SQLITE_OK;
	bad |= sqlite3_bind_int64(s, 8, t->max) != SQLITE_OK;
	bad |= sqlite3_bind_int64(s, 9, t->first) != SQLITE_OK;
	bad |= sqlite3_bind_int64(s, 10, t->last) != SQLITE_OK;
	bad |= sqlite3_bind_int64(s, 11, t->start_min) != SQLITE_OK;
	bad |= sqlite3_bind_int64(s, 12, t->end_max) != SQLITE_OK;
	bad |= sqlite3_bind_double(s, 13, t->mean) != SQLITE_OK;
	bad |= sqlite3_bind_double(s, 14, t->m2) != SQLITE_OK;
	bad |= (t->exclusive < 0 ? sqlite3_bind_null(s, 15)
				 : sqlite3_bind_int64(s, 15, t->exclusive)) != SQLITE_OK;
	bad |= sqlite3_bind_int64(s, 16, (int64_t)t->gpu_count) != SQLITE_OK;
	bad |= sqlite3_bind_int64(s, 17, t->gpu_total) != SQLITE_OK;
	bad |= bind_text_or_null(s, 18, t->source_file) != SQLITE_OK;
	bad |= (t->source_line < 0 ? sqlite3_bind_null(s, 19)
				   : sqlite3_bind_int64(s, 19, t->source_line)) != SQLITE_OK;
	bad |= bind_text_or_null(s, 20, t->source_text) != SQLITE_OK;
	bad |= bind_text_or_null(
		   s, 21, t->tags_json && strcmp(t->tags_json, "[]") != 0 ? t->tags_json : NULL) !=
	       SQLITE_OK;
	ret = step_write(st, s, bad);
	if (ret || !t->durations)
		return ret;

	s = st->add_durations;
	id = sqlite3_last_insert_rowid(st->db);
	bad |= sqlite3_bind_int64(s, 1, id) != SQLITE_OK;
	if (t->durations_len > sqlite_blob_stream) {
		bad |= sqlite3_bind_zeroblob64(s, 2, (sqlite3_uint64)t->durations_len) != SQLITE_OK;
		ret = step_write(st, s, bad);
		return ret ? ret : write_blob(st, id, t->durations, t->durations_len);
	}
	bad |= sqlite3_bind_blob64(s, 2, t->durations, (sqlite3_uint64)t->durations_len,
				   SQLITE_STATIC) != SQLITE_OK;
	return step_write(st, s, bad);
}

/* A new region: the statement REGION_ADD, prepared once like the others. */
static int add_region(struct store_conn *st, const struct store_region_row *g)
{
	struct store_value v[2] = {sql_int(g->id), sql_str(g->name)};
	struct store_stmt s = {SQL_REGION_ADD, sqlite_sql.text[SQL_REGION_ADD], SQL_WRITE, v, 2};

	return sqlite_exec(st, &s, NULL, NULL, NULL);
}

/* A row of cells (struct store_cells) with s, its statement of as many
 * parameters. */
static int add_cells(struct store_conn *st, sqlite3_stmt *s, const struct store_cells *c)
{
	size_t i;
	int bad = 0, k;

	if (c->n != (size_t)sqlite3_bind_parameter_count(s))
		return err_set(ERR_USAGE, "internal error: a row of %zu values for %d columns",
			       c->n, sqlite3_bind_parameter_count(s));
	for (i = 0; i < c->n; i++) {
		k = (int)i + 1;
		switch (c->v[i].type) {
		case STORE_CELL_NULL:
			bad |= sqlite3_bind_null(s, k) != SQLITE_OK;
			break;
		case STORE_CELL_INT:
		case STORE_CELL_FLAG:
			bad |= sqlite3_bind_int64(s, k, c->v[i].i) != SQLITE_OK;
			break;
		case STORE_CELL_REAL:
			bad |= sqlite3_bind_double(s, k, c->v[i].d) != SQLITE_OK;
			break;
		}
	}
	return step_write(st, s, bad);
}

/* The values of an INSERT of a row of cells (STORE_MAX_CELLS of them). */
#define CELL_VALUES "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)"

/* Prepare *s (once) as sql, an INSERT of CELL_VALUES, then write the n
 * rows of cells. */
static int add_cell_rows(struct store_conn *st, sqlite3_stmt **s, const char *sql,
			 const struct store_cells *rows, size_t n)
{
	size_t i;
	int ret = 0;

	if (!*s)
		ret = sqlite_prepare(st, s, sql, SQLITE_PREPARE_PERSISTENT, "update");
	for (i = 0; !ret && i < n; i++)
		ret = add_cells(st, *s, &rows[i]);
	return ret;
}

/* A path_ranks row. */
static int add_path_rank(struct store_conn *st, const struct store_path_rank *r)
{
	sqlite3_stmt *s = st->add_path_rank;
	int bad = 0;

	bad |= sqlite3_bind_int64(s, 1, r->run_id) != SQLITE_OK;
	bad |= sqlite3_bind_int64(s, 2, r->path_id) != SQLITE_OK;
	bad |= sqlite3_bind_int64(s, 3, r->rank) != SQLITE_OK;
	bad |= sqlite3_bind_int64(s, 4, (int64_t)r->calls) != SQLITE_OK;
	bad |= sqlite3_bind_int64(s, 5, (int64_t)r->nested) != SQLITE_OK;
	bad |= sqlite3_bind_int64(s, 6, r->total) != SQLITE_OK;
	bad |= sqlite3_bind_int64(s, 7, r->self) != SQLITE_OK;
	bad |= sqlite3_bind_int64(s, 8, r->min) != SQLITE_OK;
	bad |= sqlite3_bind_int64(s, 9, r->max) != SQLITE_OK;
	bad |= (r->durations ? sqlite3_bind_blob64(s, 10, r->durations,
						   (sqlite3_uint64)r->durations_len, SQLITE_STATIC)
			     : sqlite3_bind_null(s, 10)) != SQLITE_OK;
	return step_write(st, s, bad);
}

int sqlite_write_rows(struct store_conn *st, enum store_table table, const void *rows, size_t n)
{
	size_t i;
	int ret = 0;

	switch (table) {
	case STORE_TABLE_REGIONS:
		for (i = 0; !ret && i < n; i++)
			ret = add_region(st, (const struct store_region_row *)rows + i);
		return ret;
	case STORE_TABLE_TIMINGS:
		ret = prepare_timing(st);
		for (i = 0; !ret && i < n; i++)
			ret = add_timing(st, (const struct store_timing *)rows + i);
		return ret;
	case STORE_TABLE_PATHS:
		return add_cell_rows(st, &st->add_path,
				     "INSERT INTO paths (" SQL_PATHS_COLUMNS ") " CELL_VALUES, rows,
				     n);
	case STORE_TABLE_PATH_RANKS:
		if (!st->add_path_rank)
			ret = sqlite_prepare(st, &st->add_path_rank,
					     "INSERT INTO path_ranks (" SQL_PATH_RANKS_COLUMNS
					     ") VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
					     SQLITE_PREPARE_PERSISTENT, "update");
		for (i = 0; !ret && i < n; i++)
			ret = add_path_rank(st, (const struct store_path_rank *)rows + i);
		return ret;
	case STORE_TABLE_RUN_REGIONS:
		return add_cell_rows(st, &st->add_run_region,
				     "INSERT INTO run_regions (" SQL_RUN_REGIONS_ROW_COLUMNS
				     ") " CELL_VALUES,
				     rows, n);
	}
	return err_set(ERR_USAGE, "internal error: no such table to write");
}

/* ---- a run's blobs ------------------------------------------------------------ */

/* The duration blobs of run ?1 in the order they were written: the rowids
 * ?2..?3 of the run (one run's rows are contiguous), "+" keeping the
 * planner on that rowid range rather than an index on run_id, which would
 * visit them region by region, all over the file.  (The range joined in
 * as a subquery would have the blobs sorted.) */
static const char SCAN_BLOBS_SQL[] =
    "SELECT t.region_id, t.rank, d.data FROM timings AS t "
    "JOIN timings_durations AS d ON d.timing_id = t.id "
    "WHERE t.id BETWEEN ?2 AND ?3 AND +t.run_id = ?1 ORDER BY t.id";

/* The first and last timings rowid of run_id (hi < lo when none). */
static int run_rowids(struct store_conn *st, int64_t run_id, int64_t *lo, int64_t *hi)
{
	sqlite3_stmt *s = NULL;
	int rc, ret;

	*lo = 0;
	*hi = -1;
	ret = sqlite_prepare(st, &s, "SELECT min(id), max(id) FROM timings WHERE run_id = ?1", 0,
			     "read");
	if (ret)
		return ret;
	rc = sqlite3_bind_int64(s, 1, run_id);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(s);
	if (rc == SQLITE_ROW && sqlite3_column_type(s, 0) != SQLITE_NULL) {
		*lo = sqlite3_column_int64(s, 0);
		*hi = sqlite3_column_int64(s, 1);
	}
	if (rc != SQLITE_ROW)
		ret = sqlite_err(st, rc, "read");
	sqlite3_finalize(s);
	return ret;
}

int sqlite_scan_blobs(struct store_conn *st, int64_t run_id, store_blob_fn fn, void *ctx)
{
	sqlite3_stmt *s = NULL;
	const void *data;
	int64_t lo, hi;
	size_t len;
	int rc, ret;

	ret = run_rowids(st, run_id, &lo, &hi);
	if (!ret)
		ret = sqlite_prepare(st, &s, SCAN_BLOBS_SQL, 0, "read");
	if (ret)
		return ret;
	rc = sqlite3_bind_int64(s, 1, run_id);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_int64(s, 2, lo);
	if (rc == SQLITE_OK)
		rc = sqlite3_bind_int64(s, 3, hi);
	while (rc == SQLITE_OK && (rc = sqlite3_step(s)) == SQLITE_ROW) {
		rc = SQLITE_OK;
		ret = col_blob(&data, &len, s, 2);
		if (!ret)
			ret = fn(ctx, sqlite3_column_int64(s, 0), sqlite3_column_int64(s, 1), data,
				 len);
		if (ret)
			break;
	}
	if (!ret && rc != SQLITE_DONE)
		ret = sqlite_err(st, rc, "read");
	sqlite3_finalize(s);
	return ret;
}
