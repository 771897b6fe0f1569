/*
 * exec.c - the PostgreSQL backend's statements (see postgres.h): errors,
 * parameters, results read through the column getters of rows.h, running
 * the front end's statements, whole or (SQL_STREAM) a row at a time, and
 * what goes to the server before each statement: the COMMIT of a read
 * snapshot that ended, and the COPY buffers write_rows() filled (copy.c).
 *
 * Parameters travel as text (integers in decimal, floats as %.17g, id
 * lists as bigint[] literals); results as text, which for float8 is exact
 * (extra_float_digits = 3, conn.c) and for the pooled sums (numeric) the
 * only simple form, or, for the statements flagged SQL_BINARY (duration
 * blobs, the stored int8/float8 totals), in binary, checked column by
 * column (pg_bin_check()).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scopedb/err.h"
#include "scopedb/store.h"
#include "scopedb/util.h"
#include "store/postgres/postgres.h"
#include "store/rows.h"

/* pg_type.oid of the types scopedb reads */
#define PG_INT8OID 20
#define PG_INT2OID 21
#define PG_INT4OID 23
#define PG_BYTEAOID 17
#define PG_TEXTOID 25
#define PG_FLOAT8OID 701
#define PG_VARCHAROID 1043
#define PG_NUMERICOID 1700 /* sum() of bigints, in text results */

/* The types a result column may have: name and fixed length (-1:
 * variable; 0: a type scopedb never reads in binary). */
static const struct {
	Oid oid;
	int len;
	const char *name;
} pg_types[] = {{PG_INT8OID, 8, "bigint"},	{PG_INT4OID, 4, "integer"},
		{PG_INT2OID, 2, "smallint"},	{PG_FLOAT8OID, 8, "double precision"},
		{PG_BYTEAOID, -1, "bytea"},	{PG_TEXTOID, -1, "text"},
		{PG_VARCHAROID, -1, "varchar"}, {700, 0, "real"},
		{PG_NUMERICOID, 0, "numeric"}};
#define PG_NTYPES ((int)(sizeof(pg_types) / sizeof(pg_types[0])))

/* The index of type t in pg_types, or PG_NTYPES; its name in buf. */
static int pg_type(Oid t, char *buf, size_t size)
{
	int k;

	for (k = 0; k < PG_NTYPES && pg_types[k].oid != t; k++)
		;
	if (k < PG_NTYPES)
		snprintf(buf, size, "%s", pg_types[k].name);
	else
		snprintf(buf, size, "oid %u", (unsigned)t);
	return k;
}

static int pg_is_int(Oid t)
{
	return t == PG_INT8OID || t == PG_INT4OID || t == PG_INT2OID;
}

/* A type a number getter reads (numeric only in text results). */
static int pg_is_number(Oid t)
{
	return pg_is_int(t) || t == PG_FLOAT8OID || t == PG_NUMERICOID;
}

int postgres_first_line(const char *msg)
{
	size_t n = strcspn(msg ? msg : "", "\n");

	return n > 400 ? 400 : (int)n;
}

int postgres_err(const struct store_conn *c, const PGresult *res, const char *what)
{
	const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
	const char *msg = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : NULL;
	PGTransactionStatusType t = c->db ? PQtransactionStatus(c->db) : PQTRANS_UNKNOWN;

	/* a lookup inside a write transaction (a region's id, a run's hash)
	 * fails an update: not worded as a read (issue 24) */
	if (!strcmp(what, "read") && !c->reading && !c->commit_due &&
	    (t == PQTRANS_INTRANS || t == PQTRANS_INERROR))
		what = "update";
	if (!c->db || PQstatus(c->db) != CONNECTION_OK) {
		msg = c->db ? PQerrorMessage(c->db) : "out of memory";
		return err_set(ERR_IO, "cannot %s store '%s': connection lost: %.*s", what,
			       c->location, postgres_first_line(msg), msg);
	}
	if (!msg)
		msg = res ? PQresultErrorMessage(res) : PQerrorMessage(c->db);
	if (state &&
	    (!strcmp(state, "55P03") || !strcmp(state, "40P01") || !strcmp(state, "40001")))
		return err_set(ERR_BUSY,
			       "cannot %s store '%s': locked by another process (gave up after %d "
			       "ms)",
			       what, c->location, c->busy_ms);
	if (state && (!strncmp(state, "53", 2) || !strncmp(state, "08", 2) ||
		      !strncmp(state, "57", 2) || !strncmp(state, "58", 2)))
		return err_set(ERR_IO, "cannot %s store '%s': %.*s", what, c->location,
			       postgres_first_line(msg), msg);
	/* 3F000: the search_path names no schema that exists (options=
	 * -csearch_path=perf before CREATE SCHEMA perf) */
	return err_set(ERR_STORE, "cannot %s store '%s': %.*s%s", what, c->location,
		       postgres_first_line(msg), msg,
		       state && !strcmp(state, "3F000")
			   ? " (the search_path of the URI names no schema that exists: create it "
			     "first with CREATE SCHEMA, docs/team-store.md)"
			   : "");
}

/* ---- results ------------------------------------------------------------- */

int64_t pg_int(const PGresult *r, int row, int col)
{
	return PQgetisnull(r, row, col) ? 0 : strtoll(PQgetvalue(r, row, col), NULL, 10);
}

static double pg_double(const PGresult *r, int row, int col)
{
	return PQgetisnull(r, row, col) ? 0.0 : strtod(PQgetvalue(r, row, col), NULL);
}

int pg_text_number(const char *s, int whole)
{
	char *end;

	errno = 0;
	if (whole)
		(void)strtoll(s, &end, 10);
	else
		(void)strtod(s, &end);
	return *s && !*end && errno != ERANGE;
}

/* d truncated to an integer, clamped; 0 for NaN. */
static int64_t pg_trunc(double d)
{
	if (d != d)
		return 0;
	return d >= 0x1p63 ? INT64_MAX : d < -0x1p63 ? INT64_MIN : (int64_t)d;
}

/* The bits of a binary int8, int4 or int2 value (big-endian), sign
 * extended; 0 for NULL. */
static int64_t pg_bin_bits(const PGresult *r, int row, int col)
{
	const unsigned char *p = (const unsigned char *)PQgetvalue(r, row, col);
	int len = PQgetlength(r, row, col), i;
	uint64_t v = 0;

	if (PQgetisnull(r, row, col))
		return 0;
	for (i = 0; i < len; i++)
		v = v << 8 | p[i];
	if (len == 4)
		return (int32_t)(uint32_t)v;
	if (len == 2)
		return (int16_t)(uint16_t)v;
	return (int64_t)v;
}

/* The float8 (IEEE 754) of the bits of a binary float8 value. */
static double pg_bin_f8(const PGresult *r, int row, int col)
{
	uint64_t bits = (uint64_t)pg_bin_bits(r, row, col);
	double d;

	memcpy(&d, &bits, sizeof(d));
	return d;
}

/*
 * A binary int8, int4 or int2 column; 0 for NULL.  A float8 one (an
 * integer column ALTERed to float8 holds the same whole numbers) gives
 * its value truncated, never its bits; pg_bin_check() refused any other
 * type.
 */
static int64_t pg_bin_int(const PGresult *r, int row, int col)
{
	double d;

	if (PQftype(r, col) != PG_FLOAT8OID)
		return pg_bin_bits(r, row, col);
	d = pg_bin_f8(r, row, col);
	return pg_trunc(d);
}

/* A binary float8 column; 0 for NULL.  An integer one gives its value. */
static double pg_bin_double(const PGresult *r, int row, int col)
{
	if (PQftype(r, col) != PG_FLOAT8OID)
		return (double)pg_bin_bits(r, row, col);
	return pg_bin_f8(r, row, col);
}

/* The column getters of rows.h over row r->row of a result, with text
 * columns or (pg_bin_row()) binary ones. */
static int row_null(const struct rows_row *r, int col)
{
	return PQgetisnull(r->res, r->row, col);
}

/* 0, or 1 (and the column in r->misread, so that the row is refused) when
 * column col of a number getter is not a number: a column of another type
 * (a text, in a store ALTERed by hand), or, in a text result, a value that
 * is not one number from end to end (strtoll() would read "12abc" as 12). */
static int row_not_number(const struct rows_row *r, int col, int binary)
{
	Oid t = PQftype(r->res, col);
	int number = pg_is_number(t) && (!binary || t != PG_NUMERICOID);

	if (number && !binary && !PQgetisnull(r->res, r->row, col))
		number = pg_text_number(PQgetvalue(r->res, r->row, col), pg_is_int(t));
	if (number)
		return 0;
	if (r->misread && *r->misread < 0)
		*r->misread = col;
	return 1;
}

static int64_t row_i64(const struct rows_row *r, int col)
{
	if (row_not_number(r, col, 0))
		return 0;
	if (pg_is_int(PQftype(r->res, col)))
		return pg_int(r->res, r->row, col);
	/* a float or numeric (a sum): its value truncated, as pg_bin_int() */
	return pg_trunc(pg_double(r->res, r->row, col));
}

static double row_f64(const struct rows_row *r, int col)
{
	return row_not_number(r, col, 0) ? 0.0 : pg_double(r->res, r->row, col);
}

static int64_t row_bin_i64(const struct rows_row *r, int col)
{
	return row_not_number(r, col, 1) ? 0 : pg_bin_int(r->res, r->row, col);
}

static double row_bin_f64(const struct rows_row *r, int col)
{
	return row_not_number(r, col, 1) ? 0.0 : pg_bin_double(r->res, r->row, col);
}

/* The store's error for a row whose misread a getter set: a column of
 * another type, or a value of a number type that does not read as one. */
static int row_refuse(const struct store_conn *c, const PGresult *r, int col)
{
	Oid t = PQftype(r, col);
	char name[32];

	(void)pg_type(t, name, sizeof(name));
	return rows_misread(c->location, PQfname(r, col), pg_is_number(t) ? "malformed" : name);
}

static const char *row_text(const struct rows_row *r, int col)
{
	return PQgetisnull(r->res, r->row, col) ? NULL : PQgetvalue(r->res, r->row, col);
}

/* bytea, binary results only */
static int row_blob(const struct rows_row *r, int col, const void **data, size_t *len)
{
	*data = PQgetvalue(r->res, r->row, col);
	*len = (size_t)PQgetlength(r->res, r->row, col);
	return 0;
}

static const struct rows_row_ops pg_row_ops = {row_null, row_i64, row_f64, row_text, row_blob};
static const struct rows_row_ops pg_bin_row_ops = {row_null, row_bin_i64, row_bin_f64, row_text,
						   row_blob};

/*
 * A binary result's columns are decoded by their width alone (pg_bin_int(),
 * pg_bin_double()): a column whose type was ALTERed (a float4 or numeric
 * p95_ns) would give silent garbage.  Every column must have one of the
 * types scopedb's tables and queries use, and each fixed-width value its
 * type's length; else ERR_STORE "store 'X' is damaged: column C has type
 * T, ...".
 */
static int pg_bin_check(const struct store_conn *c, const PGresult *r)
{
	int col, row, k;
	int ret = 0;

	for (col = 0; col < PQnfields(r) && !ret; col++) {
		char name[32];

		k = pg_type(PQftype(r, col), name, sizeof(name));
		if (k == PG_NTYPES || !pg_types[k].len) {
			ret = err_set(
			    ERR_STORE,
			    "store '%s' is damaged: column %s has type %s, expected bigint, "
			    "double precision, bytea or text",
			    c->location, PQfname(r, col), name);
			goto out;
		}
		for (row = 0; pg_types[k].len > 0 && row < PQntuples(r); row++)
			if (!PQgetisnull(r, row, col) &&
			    PQgetlength(r, row, col) != pg_types[k].len) {
				ret = err_set(
				    ERR_STORE, "store '%s' is damaged: column %s has a %d-byte %s",
				    c->location, PQfname(r, col), PQgetlength(r, row, col), name);
				goto out;
			}
	}
out:
	return ret;
}

/* ---- parameters ------------------------------------------------------------ */

/* The text of each value of a statement: v[i] (NULL: SQL NULL), the
 * caller's string or, for numbers and id lists, written into text at
 * off[i] (a NUL after each). */
struct pg_args {
	const char **v;
	size_t *off; /* SIZE_MAX: not in text */
	struct buf text;
};

static void pg_args_release(struct pg_args *p)
{
	free(p->v);
	free(p->off);
	buf_release(&p->text);
}

/* Append the text of double d to b (as float8 reads it). */
static int pg_real_text(struct buf *b, double d)
{
	if (d != d)
		return buf_puts(b, "NaN");
	if (d > 1.7976931348623157e308 || d < -1.7976931348623157e308)
		return buf_puts(b, d < 0 ? "-Infinity" : "Infinity");
	return buf_printf(b, "%.17g", d); /* reads back as the same double */
}

/* Append the text of number, id list or number list x and a NUL to b; 0
 * or non-zero when memory ran out. */
static int pg_arg_text(struct buf *b, const struct store_value *x)
{
	size_t i;
	int rc;

	if (x->type == STORE_INT)
		rc = buf_printf(b, "%lld", (long long)x->i);
	else if (x->type == STORE_REAL)
		rc = pg_real_text(b, x->d);
	else if (x->type == STORE_REALS) /* a float8[] literal */
		for (i = 0, rc = buf_putc(b, '{'); i < x->n && !rc; i++)
			rc = (i && buf_putc(b, ',')) || pg_real_text(b, x->reals[i]);
	else /* an id list, as a bigint[] literal */
		for (i = 0, rc = buf_putc(b, '{'); i < x->n && !rc; i++)
			rc = buf_printf(b, "%s%lld", i ? "," : "", (long long)x->ids[i]);
	return rc || ((x->type == STORE_IDS || x->type == STORE_REALS) && buf_putc(b, '}')) ||
	       buf_add(b, "", 1);
}

static int pg_args_make(struct pg_args *p, const struct store_stmt *q)
{
	const struct store_value *x;
	size_t i;
	int rc = 0;

	memset(p, 0, sizeof(*p));
	buf_init(&p->text);
	p->v = calloc(q->n ? q->n : 1, sizeof(*p->v));
	p->off = calloc(q->n ? q->n : 1, sizeof(*p->off));
	rc = !p->v || !p->off;
	for (i = 0; i < q->n && !rc; i++) {
		x = &q->v[i];
		p->off[i] = SIZE_MAX;
		if (x->type == STORE_TEXT || x->type == STORE_PREFIX) {
			p->v[i] = x->s;
		} else if (x->type != STORE_NULL) {
			p->off[i] = p->text.len;
			rc = pg_arg_text(&p->text, x);
		}
	}
	for (i = 0; i < q->n && !rc; i++)
		if (p->off[i] != SIZE_MAX)
			p->v[i] = p->text.data + p->off[i];
	if (rc) {
		pg_args_release(p);
		return err_nomem();
	}
	return 0;
}

/* ---- statements ------------------------------------------------------------- */

int postgres_result(struct store_conn *c, PGresult **res, const char *sql, int n,
		    const char *const *v, int binary, const char *what)
{
	ExecStatusType st;
	PGresult *r;
	int ret = postgres_flush(c);

	*res = NULL;
	if (ret)
		return ret;
	r = PQexecParams(c->db, sql, n, NULL, v, NULL, NULL, binary);
	st = PQresultStatus(r);
	if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK)
		ret = postgres_err(c, r, what);
	else if (binary)
		ret = pg_bin_check(c, r);
	if (ret)
		PQclear(r);
	else
		*res = r;
	return ret;
}

/* A whole statement: the result read once complete. */
static int exec_whole(struct store_conn *c, const struct store_stmt *q, const struct pg_args *p,
		      store_row_fn fn, void *ctx, int64_t *changed)
{
	int binary = (q->flags & SQL_BINARY) != 0;
	struct rows_row row;
	PGresult *r;
	int i, ret, misread = -1;

	ret = postgres_result(c, &r, q->sql, (int)q->n, p->v, binary,
			      q->flags & SQL_WRITE ? "update" : "read");
	for (i = 0; !ret && fn && i < PQntuples(r); i++) {
		row = (struct rows_row){binary ? &pg_bin_row_ops : &pg_row_ops, r, i, &misread};
		ret = fn(ctx, &row);
		if (!ret && misread >= 0)
			ret = row_refuse(c, r, misread);
	}
	if (!ret && changed)
		*changed = strtoll(PQcmdTuples(r), NULL, 10);
	PQclear(r);
	return ret;
}

/* A scan: binary rows handed to fn one at a time as they arrive (libpq's
 * single-row mode: one pass, bounded memory). */
static int exec_stream(struct store_conn *c, const struct store_stmt *q, const struct pg_args *p,
		       store_row_fn fn, void *ctx)
{
	struct rows_row row;
	ExecStatusType st;
	PGresult *r;
	int ret = 0, misread = -1;

	if (!PQsendQueryParams(c->db, q->sql, (int)q->n, NULL, p->v, NULL, NULL, 1))
		return postgres_err(c, NULL, "read");
	(void)PQsetSingleRowMode(c->db);
	/* all results are read, also after a failure, so that the
	 * connection is ready for the next statement */
	while ((r = PQgetResult(c->db)) != NULL) {
		st = PQresultStatus(r);
		if (st == PGRES_SINGLE_TUPLE) {
			if (!ret)
				ret = pg_bin_check(c, r);
			row = (struct rows_row){&pg_bin_row_ops, r, 0, &misread};
			if (!ret && fn)
				ret = fn(ctx, &row);
			if (!ret && misread >= 0)
				ret = row_refuse(c, r, misread);
		} else if (st != PGRES_TUPLES_OK && !ret) {
			ret = postgres_err(c, r, "read");
		}
		PQclear(r);
	}
	return ret;
}

int postgres_exec(struct store_conn *c, const struct store_stmt *q, store_row_fn fn, void *ctx,
		  int64_t *changed)
{
	struct pg_args p;
	int ret = pg_args_make(&p, q);

	if (ret)
		return ret;
	if (q->flags & SQL_STREAM)
		ret = postgres_flush(c);
	if (!ret)
		ret = q->flags & SQL_STREAM ? exec_stream(c, q, &p, fn, ctx)
					    : exec_whole(c, q, &p, fn, ctx, changed);
	pg_args_release(&p);
	return ret;
}

int postgres_query_int(struct store_conn *c, int64_t *out, const char *sql)
{
	PGresult *r;
	int ret = postgres_result(c, &r, sql, 0, NULL, 0, "read");

	*out = 0;
	if (ret)
		return ret;
	if (PQntuples(r) > 0 && !PQgetisnull(r, 0, 0))
		*out = pg_int(r, 0, 0);
	else
		ret = err_set(ERR_STORE, "cannot read store '%s': no result", c->location);
	PQclear(r);
	return ret;
}

int postgres_run(struct store_conn *c, const char *sql, const char *what)
{
	PGresult *r;
	ExecStatusType st;
	int ret = 0;

	postgres_settle(c);
	r = PQexec(c->db, sql);
	st = PQresultStatus(r);
	if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK)
		ret = postgres_err(c, r, what);
	PQclear(r);
	return ret;
}

/* ---- before each statement: the due COMMIT, the COPY buffers ------------------ */

/*
 * End the read snapshot that read_end() left open (conn.c): the next
 * statement commits it first.  Failures of that COMMIT cannot matter: the
 * transaction only read.
 */
void postgres_settle(struct store_conn *c)
{
	if (!c->commit_due)
		return;
	c->commit_due = 0;
	PQclear(PQexec(c->db, "COMMIT"));
}

/* The COPY of the durations rows (postgres_flush(), postgres_copy_blob()). */
#define COPY_DURATIONS "COPY timings_durations (timing_id, data) FROM STDIN (FORMAT binary)"

/* Start COPY sql ... FROM STDIN: 0, or the server's error. */
static int copy_begin(struct store_conn *c, const char *sql)
{
	PGresult *r = PQexec(c->db, sql);
	int ret = 0;

	if (PQresultStatus(r) != PGRES_COPY_IN)
		ret = postgres_err(c, r, "update");
	PQclear(r);
	return ret;
}

/* Send len bytes of a started COPY's data, a MiB at a time: 0, or -1
 * when libpq could not (copy_end() then aborts the COPY and says why). */
static int copy_put(struct store_conn *c, const void *data, size_t len)
{
	size_t off = 0, n;

	while (off < len) {
		n = len - off > (1u << 20) ? (1u << 20) : len - off;
		if (PQputCopyData(c->db, (const char *)data + off, (int)n) != 1)
			return -1;
		off += n;
	}
	return 0;
}

/* End a started COPY (failed: abort it) and read its results: 0, or the
 * error. */
static int copy_end(struct store_conn *c, int failed)
{
	PGresult *r;
	int ret = 0;

	if (PQputCopyEnd(c->db, failed ? "scopedb: send failed" : NULL) != 1)
		ret = postgres_err(c, NULL, "update");
	while ((r = PQgetResult(c->db)) != NULL) {
		if (!ret && PQresultStatus(r) != PGRES_COMMAND_OK)
			ret = postgres_err(c, r, "update");
		PQclear(r);
	}
	return ret;
}

/* Send one buffer as COPY table (cols) FROM STDIN and empty it. */
static int copy_send(struct store_conn *c, struct buf *b, const char *sql)
{
	int ret, failed;

	if (!b->len)
		return 0;
	ret = copy_begin(c, sql);
	failed = ret ? 0 : copy_put(c, b->data, b->len);
	b->len = 0;
	return ret ? ret : copy_end(c, failed);
}

int postgres_flush(struct store_conn *c)
{
	struct {
		struct buf *b;
		const char *sql;
	} copies[] = {
	    {&c->copy_regions, "COPY regions (id, name) FROM STDIN (FORMAT binary)"},
	    {&c->copy_timings,
	     "COPY timings (id, " SQL_TIMINGS_COLUMNS ") FROM STDIN (FORMAT binary)"},
	    {&c->copy_durations, COPY_DURATIONS},
	    {&c->copy_paths, "COPY paths (" SQL_PATHS_COLUMNS ") FROM STDIN (FORMAT binary)"},
	    {&c->copy_path_ranks,
	     "COPY path_ranks (" SQL_PATH_RANKS_COLUMNS ") FROM STDIN (FORMAT binary)"},
	    {&c->copy_run_regions,
	     "COPY run_regions (" SQL_RUN_REGIONS_ROW_COLUMNS ") FROM STDIN (FORMAT binary)"},
	};
	size_t i, n = sizeof(copies) / sizeof(copies[0]);
	int ret = 0;

	postgres_settle(c);
	/* binary: the trailer (a tuple of -1 fields) ends each buffer's data */
	for (i = 0; !ret && i < n; i++)
		if (copies[i].b->len && buf_add(copies[i].b, "\377\377", 2))
			ret = err_nomem();
	for (i = 0; !ret && i < n; i++)
		ret = copy_send(c, copies[i].b, copies[i].sql);
	if (ret)
		for (i = 0; i < n; i++)
			copies[i].b->len = 0;
	return ret;
}

int postgres_copy_blob(struct store_conn *c, const struct buf *head, const void *data, size_t len)
{
	int ret = postgres_flush(c), failed;

	if (!ret)
		ret = copy_begin(c, COPY_DURATIONS);
	if (ret)
		return ret;
	/* the trailer: a tuple of -1 fields */
	failed = copy_put(c, head->data, head->len) || copy_put(c, data, len) ||
		 copy_put(c, "\377\377", 2);
	return copy_end(c, failed);
}

/* ---- a run's blobs -------------------------------------------------------------- */

/* The caller's callback of postgres_scan_blobs(). */
struct blob_scan {
	store_blob_fn fn;
	void *ctx;
};

static int blob_row(void *arg, const struct rows_row *r)
{
	struct blob_scan *b = arg;
	const void *data;
	size_t len;

	if (r->ops->null(r, 2)) /* a row without durations */
		return 0;
	r->ops->blob(r, 2, &data, &len);
	return b->fn(b->ctx, r->ops->i64(r, 0), r->ops->i64(r, 1), data, len);
}

int postgres_scan_blobs(struct store_conn *c, int64_t run_id, store_blob_fn fn, void *ctx)
{
	struct blob_scan b = {fn, ctx};
	struct store_value v = {.type = STORE_INT, .i = run_id};
	/* each blob by its primary key: as a join, the planner hashes the
	 * run's rows and reads the whole durations table once the store is
	 * large (a push of 1,000 runs spent most of its last runs there) */
	struct store_stmt q = {
	    -1,
	    "SELECT t.region_id, t.rank, (SELECT d.data FROM timings_durations AS d "
	    "WHERE d.timing_id = t.id) FROM timings AS t "
	    "WHERE t.run_id = $1 ORDER BY t.id",
	    SQL_BINARY | SQL_STREAM, &v, 1};

	return postgres_exec(c, &q, blob_row, &b, NULL);
}
