/*
 * conn.c - the PostgreSQL backend's connection: which --db values it takes,
 * connecting, errors, schema migrations, transactions, the COPY buffers of
 * ingest, maintenance, and the backend table (see postgres.h).
 *
 * postgres_open() connects, makes the session's output exact (floats as
 * shortest exact text, notices off), identifies the database (the
 * scopedb_meta table: application and schema_version) and applies the
 * missing migrations of schema/postgres/ under the store's write lock, all
 * of them in one transaction for a new store, one each for an older one,
 * identifying again under the lock because another machine may have
 * created or upgraded the store meanwhile.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scopedb/err.h"
#include "scopedb/store.h"
#include "scopedb/util.h"
#include "store/backend.h"
#include "store/postgres/postgres.h"
#include "store/postgres/schema_sql.h"
#include "store/rows.h"
#include "store/verify.h"

/* Default time to wait for another writer's lock, as SQLite's. */
#define POSTGRES_BUSY_MS 30000

/* ---- which --db values ------------------------------------------------- */

/* The libpq keywords that make a key=value connection string. */
static const char *const postgres_keywords[] = {"host",
						"hostaddr",
						"port",
						"dbname",
						"user",
						"password",
						"service",
						"passfile",
						"sslmode",
						"connect_timeout",
						"options",
						"application_name",
						"target_session_attrs",
						NULL};

/* A URI, or a key=value string whose first word is a libpq keyword. */
static int postgres_accepts(const char *loc)
{
	size_t i, k;

	if (!strncmp(loc, "postgresql://", 13) || !strncmp(loc, "postgres://", 11))
		return 1;
	while (isspace((unsigned char)*loc))
		loc++;
	k = strcspn(loc, "= \t");
	if (loc[k] != '=' && loc[k] != ' ' && loc[k] != '\t')
		return 0;
	for (i = 0; postgres_keywords[i]; i++)
		if (strlen(postgres_keywords[i]) == k && !strncmp(loc, postgres_keywords[i], k)) {
			loc += k;
			while (*loc == ' ' || *loc == '\t')
				loc++;
			return *loc == '=';
		}
	return 0;
}

/* Where the passwords of a --db value are (spans of it), for
 * postgres_scrub(). */
#define PG_SECRETS 32
struct pg_secrets {
	struct {
		const char *p;
		size_t n;
	} v[PG_SECRETS];
	size_t n;
};

static void pg_secret_add(struct pg_secrets *s, const char *p, size_t n)
{
	if (s && n && s->n < PG_SECRETS) {
		s->v[s->n].p = p;
		s->v[s->n++].n = n;
	}
}

/*
 * The password span [colon + 1, at) of a URI is a secret, and so is each
 * piece of it between the '/', '?' and '@' where libpq may cut it: libpq
 * ends user info at the first '@' before the first '/', and quotes the
 * token it chokes on ("pa" of u:pa/ss@h read as a port, "ss@h" of
 * u:p@ss@h read as a host).
 */
static void pg_secret_add_password(struct pg_secrets *s, const char *p, const char *end)
{
	const char *q;

	pg_secret_add(s, p, (size_t)(end - p));
	for (q = p; q < end && !strchr("/?@", *q); q++)
		;
	while (q < end) { /* more than one piece */
		for (q = p; q < end && !strchr("/?@", *q); q++)
			;
		pg_secret_add(s, p, (size_t)(q - p));
		p = q + 1;
	}
}

/*
 * The '@' that ends the user info of the URI authority at p (just after
 * "://"), NULL when there is none.  A password may hold an unescaped '@',
 * '?' or '/' and must not leak its tail: the last '@' before the first
 * '/'; else, when the text before that '/' has a ':' (user:pa/ss@host),
 * the last '@' before the '/' after the first '@' of the path, unless a
 * query parameter ('=') comes first (postgresql://h:1/db?user=a@b).
 */
static const char *pg_uri_at(const char *p)
{
	const char *slash = p + strcspn(p, "/"), *at = NULL, *q;

	for (q = p; q < slash; q++)
		if (*q == '@')
			at = q;
	if (at || !*slash || !memchr(p, ':', (size_t)(slash - p)))
		return at;
	q = slash + strcspn(slash, "@=");
	if (*q != '@')
		return NULL;
	for (slash = q + strcspn(q, "/"); q < slash; q++)
		if (*q == '@')
			at = q;
	return at;
}

/*
 * loc for messages, with its password replaced by "***" (the URI's
 * user:password@ and ?password=... parameter, a password=... word):
 * messages and outputs end up in CI logs.  The passwords' spans in loc go
 * to secrets (NULL: not wanted).
 */
static char *postgres_mask(const char *loc, struct pg_secrets *secrets)
{
	struct buf b = BUF_INIT;
	const char *p, *q, *at, *colon;
	int rc = 0;

	p = strstr(loc, "://");
	if (p) {
		p += 3;
		at = pg_uri_at(p);
		colon = at ? memchr(p, ':', (size_t)(at - p)) : NULL;
		if (colon) {
			rc = buf_add(&b, loc, (size_t)(colon + 1 - loc));
			rc = rc || buf_puts(&b, "***");
			pg_secret_add_password(secrets, colon + 1, at);
			p = at;
		} else {
			rc = buf_add(&b, loc, (size_t)(p - loc));
		}
		/* and the query's password=... parameter */
		for (q = p; *q && !rc;) {
			if ((q[-1] == '?' || q[-1] == '&') && !strncmp(q, "password=", 9)) {
				rc = buf_puts(&b, "password=***");
				pg_secret_add(secrets, q + 9, strcspn(q + 9, "&"));
				q += strcspn(q, "&");
				continue;
			}
			rc = buf_putc(&b, *q++);
		}
		return buf_finish(&b, rc || buf_puts(&b, ""));
	}
	for (p = loc; *p && !rc;) {
		if ((p == loc || isspace((unsigned char)p[-1])) && !strncmp(p, "password", 8) &&
		    p[8 + strspn(p + 8, " \t")] == '=') {
			const char *v = p + 8 + strspn(p + 8, " \t") + 1;

			v += strspn(v, " \t");
			rc = buf_add(&b, p, (size_t)(v - p));
			rc = rc || buf_puts(&b, "***");
			if (*v == '\'') {
				const char *start = ++v;

				for (; *v && *v != '\''; v++)
					if (*v == '\\' && v[1])
						v++;
				pg_secret_add(secrets, start, (size_t)(v - start));
				v += *v == '\'';
			} else {
				/* unquoted: a backslash escapes a blank */
				const char *start = v;

				for (; *v && !isspace((unsigned char)*v); v++)
					if (*v == '\\' && v[1])
						v++;
				pg_secret_add(secrets, start, (size_t)(v - start));
			}
			p = v;
			continue;
		}
		rc = buf_putc(&b, *p++);
	}
	return buf_finish(&b, rc || buf_puts(&b, ""));
}

/*
 * msg[0..len) with the --db value loc in it as masked (postgres_mask())
 * and every other password of secrets as "***", malloc'ed (NULL when
 * memory ran out): libpq quotes a malformed URI whole in its connection
 * errors, and a bad token of it, which may be the password (a short one
 * then stars out more than itself, never less).
 */
static char *postgres_scrub(const char *msg, size_t len, const char *loc, const char *masked,
			    const struct pg_secrets *secrets)
{
	struct buf b = BUF_INIT;
	size_t i = 0, k, n = strlen(loc);
	int rc = 0;

	while (i < len && !rc) {
		if (n <= len - i && !memcmp(msg + i, loc, n)) {
			rc = buf_puts(&b, masked);
			i += n;
			continue;
		}
		for (k = 0; k < secrets->n; k++)
			if (secrets->v[k].n <= len - i &&
			    !memcmp(msg + i, secrets->v[k].p, secrets->v[k].n))
				break;
		if (k < secrets->n) {
			rc = buf_puts(&b, "***");
			i += secrets->v[k].n;
		} else {
			rc = buf_putc(&b, msg[i++]);
		}
	}
	return buf_finish(&b, rc || buf_puts(&b, ""));
}

/* ---- errors, parameters, results --------------------------------------- */

#define PG_FLOAT8OID 701 /* pg_type.oid of float8 */

/* The first line of msg (libpq's messages end in newlines and hints). */
static int first_line(const char *msg)
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
			       c->location, first_line(msg), msg);
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
			       first_line(msg), msg);
	return err_set(ERR_STORE, "cannot %s store '%s': %.*s", what, c->location, first_line(msg),
		       msg);
}

void pp_init(struct pg_params *p)
{
	p->n = 0;
}

void pp_int(struct pg_params *p, int64_t v)
{
	snprintf(p->num[p->n], sizeof(p->num[0]), "%lld", (long long)v);
	p->v[p->n] = p->num[p->n];
	p->n++;
}

/* Shortest round trip is not needed: %.17g reads back as the same double. */
void pp_double(struct pg_params *p, double v)
{
	if (v != v)
		snprintf(p->num[p->n], sizeof(p->num[0]), "NaN");
	else if (v > 1.7976931348623157e308 || v < -1.7976931348623157e308)
		snprintf(p->num[p->n], sizeof(p->num[0]), "%sInfinity", v < 0 ? "-" : "");
	else
		snprintf(p->num[p->n], sizeof(p->num[0]), "%.17g", v);
	p->v[p->n] = p->num[p->n];
	p->n++;
}

void pp_text(struct pg_params *p, const char *s)
{
	p->v[p->n++] = s;
}

void pp_text_or_null(struct pg_params *p, const char *s)
{
	p->v[p->n++] = s && *s ? s : NULL;
}

char *postgres_array(const int64_t *ranks, size_t n, int *failed)
{
	return rows_id_list(ranks, n, '{', '}', failed);
}

int64_t pg_int(const PGresult *r, int row, int col)
{
	return PQgetisnull(r, row, col) ? 0 : strtoll(PQgetvalue(r, row, col), NULL, 10);
}

double pg_double(const PGresult *r, int row, int col)
{
	return PQgetisnull(r, row, col) ? 0.0 : strtod(PQgetvalue(r, row, col), NULL);
}

int pg_text(char **out, const PGresult *r, int row, int col)
{
	*out = NULL;
	if (PQgetisnull(r, row, col))
		return 0;
	*out = util_strdup(PQgetvalue(r, row, col));
	return *out ? 0 : ERR_NOMEM;
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
int64_t pg_bin_int(const PGresult *r, int row, int col)
{
	double d;

	if (PQftype(r, col) != PG_FLOAT8OID)
		return pg_bin_bits(r, row, col);
	d = pg_bin_f8(r, row, col);
	if (d != d)
		return 0;
	return d >= 0x1p63 ? INT64_MAX : d < -0x1p63 ? INT64_MIN : (int64_t)d;
}

/* A binary float8 column; 0 for NULL.  An integer one gives its value. */
double pg_bin_double(const PGresult *r, int row, int col)
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

static int64_t row_i64(const struct rows_row *r, int col)
{
	return pg_int(r->res, r->row, col);
}

static double row_f64(const struct rows_row *r, int col)
{
	return pg_double(r->res, r->row, col);
}

static int64_t row_bin_i64(const struct rows_row *r, int col)
{
	return pg_bin_int(r->res, r->row, col);
}

static double row_bin_f64(const struct rows_row *r, int col)
{
	return pg_bin_double(r->res, r->row, col);
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

struct rows_row pg_row(const PGresult *r, int row)
{
	return (struct rows_row){&pg_row_ops, (void *)r, row};
}

struct rows_row pg_bin_row(const PGresult *r, int row)
{
	return (struct rows_row){&pg_bin_row_ops, (void *)r, row};
}

/*
 * End the read snapshot that postgres_snapshot_end() left open: the next
 * statement commits it first.  Failures of that COMMIT cannot matter: the
 * transaction only read.
 */
static void postgres_settle(struct store_conn *c)
{
	if (!c->commit_due)
		return;
	c->commit_due = 0;
	PQclear(PQexec(c->db, "COMMIT"));
}

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
	static const struct {
		Oid oid;
		int len; /* -1: variable */
		const char *name;
	} types[] = {{20, 8, "bigint"},	    {23, 4, "integer"},
		     {21, 2, "smallint"},   {PG_FLOAT8OID, 8, "double precision"},
		     {17, -1, "bytea"},	    {25, -1, "text"},
		     {1043, -1, "varchar"}, {700, 0, "real"},
		     {1700, 0, "numeric"}};
	int col, row, k, nk = (int)(sizeof(types) / sizeof(types[0]));
	int ret = 0;

	for (col = 0; col < PQnfields(r) && !ret; col++) {
		Oid t = PQftype(r, col);

		for (k = 0; k < nk && types[k].oid != t; k++)
			;
		if (k == nk || !types[k].len) {
			char other[32];

			snprintf(other, sizeof(other), "oid %u", (unsigned)t);
			ret = err_set(
			    ERR_STORE,
			    "store '%s' is damaged: column %s has type %s, expected bigint, "
			    "double precision, bytea or text",
			    c->location, PQfname(r, col), k < nk ? types[k].name : other);
			goto out;
		}
		for (row = 0; types[k].len > 0 && row < PQntuples(r); row++)
			if (!PQgetisnull(r, row, col) && PQgetlength(r, row, col) != types[k].len) {
				ret = err_set(ERR_STORE,
					      "store '%s' is damaged: column %s has a %d-byte %s",
					      c->location, PQfname(r, col),
					      PQgetlength(r, row, col), types[k].name);
				goto out;
			}
	}
out:
	return ret;
}

int postgres_exec(struct store_conn *c, PGresult **res, const char *sql, const struct pg_params *p,
		  int binary, const char *what)
{
	PGresult *r;
	ExecStatusType st;
	int ret;

	if (res)
		*res = NULL;
	ret = postgres_flush(c);
	if (ret)
		return ret;
	r = PQexecParams(c->db, sql, p ? p->n : 0, NULL, p ? p->v : NULL, NULL, NULL, binary);
	st = PQresultStatus(r);
	if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
		ret = r ? postgres_err(c, r, what) : postgres_err(c, NULL, what);
		PQclear(r);
		return ret;
	}
	ret = binary ? pg_bin_check(c, r) : 0;
	if (ret) {
		PQclear(r);
		return ret;
	}
	if (res)
		*res = r;
	else
		PQclear(r);
	return 0;
}

int postgres_exec_id(struct store_conn *c, PGresult **res, const char *sql, int64_t id, int binary)
{
	struct pg_params p;

	pp_init(&p);
	pp_int(&p, id);
	return postgres_exec(c, res, sql, &p, binary, "read");
}

int postgres_stream(struct store_conn *c, const char *sql, const struct pg_params *p,
		    postgres_row_fn fn, void *ctx)
{
	PGresult *r;
	ExecStatusType st;
	int ret = postgres_flush(c);

	if (ret)
		return ret;
	if (!PQsendQueryParams(c->db, sql, p ? p->n : 0, NULL, p ? p->v : NULL, NULL, NULL, 1))
		return postgres_err(c, NULL, "read");
	(void)PQsetSingleRowMode(c->db);
	/* all results are read, also after a failure, so that the
	 * connection is ready for the next statement */
	while ((r = PQgetResult(c->db)) != NULL) {
		st = PQresultStatus(r);
		if (st == PGRES_SINGLE_TUPLE) {
			if (!ret)
				ret = pg_bin_check(c, r);
			if (!ret)
				ret = fn(ctx, r);
		} else if (st != PGRES_TUPLES_OK && !ret) {
			ret = postgres_err(c, r, "read");
		}
		PQclear(r);
	}
	return ret;
}

int postgres_query_int(struct store_conn *c, int64_t *out, const char *sql,
		       const struct pg_params *p, int optional)
{
	PGresult *r;
	int ret;

	*out = 0;
	ret = postgres_exec(c, &r, sql, p, 0, "read");
	if (ret)
		return ret;
	if (PQntuples(r) > 0 && !PQgetisnull(r, 0, 0))
		*out = pg_int(r, 0, 0);
	else if (!optional)
		ret = err_set(ERR_STORE, "cannot read store '%s': no result", c->location);
	PQclear(r);
	return ret;
}

/* Run a statement without parameters or pending COPY rows (transaction
 * control, settings). */
static int postgres_run(struct store_conn *c, const char *sql, const char *what)
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

/* ---- COPY -------------------------------------------------------------- */

/* Send one buffer as COPY table (cols) FROM STDIN and empty it. */
static int copy_send(struct store_conn *c, struct buf *b, const char *sql)
{
	PGresult *r;
	size_t off = 0, n;
	int ret = 0;

	if (!b->len)
		return 0;
	r = PQexec(c->db, sql);
	if (PQresultStatus(r) != PGRES_COPY_IN) {
		ret = postgres_err(c, r, "update");
		PQclear(r);
		b->len = 0;
		return ret;
	}
	PQclear(r);
	while (off < b->len) {
		n = b->len - off > (1u << 20) ? (1u << 20) : b->len - off;
		if (PQputCopyData(c->db, b->data + off, (int)n) != 1)
			break;
		off += n;
	}
	n = b->len;
	b->len = 0;
	if (PQputCopyEnd(c->db, off < n ? "scopedb: send failed" : NULL) != 1)
		ret = postgres_err(c, NULL, "update");
	while ((r = PQgetResult(c->db)) != NULL) {
		if (!ret && PQresultStatus(r) != PGRES_COMMAND_OK)
			ret = postgres_err(c, r, "update");
		PQclear(r);
	}
	return ret;
}

int postgres_flush(struct store_conn *c)
{
	int ret;

	postgres_settle(c);
	/* binary: the trailer (a tuple of -1 fields) ends each buffer's data */
	if ((c->copy_timings.len && buf_add(&c->copy_timings, "\377\377", 2)) ||
	    (c->copy_durations.len && buf_add(&c->copy_durations, "\377\377", 2))) {
		c->copy_timings.len = 0;
		c->copy_durations.len = 0;
		return err_nomem();
	}
	ret = copy_send(c, &c->copy_timings,
			"COPY timings (id, run_id, region_id, rank, has_events, calls, total_ns, "
			"min_ns, max_ns, first_ns, last_ns, start_min_ns, end_max_ns, mean_ns, m2, "
			"exclusive_ns, gpu_count, gpu_total_ns, source_file, source_line, "
			"source_text, tags) FROM STDIN (FORMAT binary)");
	if (ret) {
		c->copy_durations.len = 0;
		return ret;
	}
	return copy_send(c, &c->copy_durations,
			 "COPY timings_durations (timing_id, data) FROM STDIN (FORMAT binary)");
}

/* ---- open / close / migrations ----------------------------------------- */

/*
 * What would run someone else's SQL in our session, as one SELECT column
 * for postgres_identify(): "KIND<tab>NAME" of the first trigger (our
 * foreign keys' are internal), rule, row-level security policy, or view in
 * place of a table on the store's tables, or NULL.  Anyone who may alter
 * the tables of a shared database could add one; scopedb creates none, so
 * a store carrying one is refused.  Riding on the identity query, the
 * check costs no round trip.
 */
#define PG_HAZARD                                                                                  \
	"(WITH t AS (SELECT to_regclass(n) AS oid FROM unnest(ARRAY['scopedb_meta', "              \
	"'run_counter', 'runs', 'run_tags', 'run_metadata', 'regions', 'timings', "                \
	"'timings_durations', 'run_regions', 'pins']) AS n) "                                      \
	"SELECT kind || E'\\t' || name FROM ("                                                     \
	"SELECT 'trigger' AS kind, tgname::text AS name FROM pg_trigger WHERE NOT tgisinternal "   \
	"AND tgrelid IN (SELECT oid FROM t) "                                                      \
	"UNION ALL SELECT 'rule', rulename::text FROM pg_rewrite WHERE rulename <> '_RETURN' "     \
	"AND ev_class IN (SELECT oid FROM t) "                                                     \
	"UNION ALL SELECT 'row-level security policy', polname::text FROM pg_policy "              \
	"WHERE polrelid IN (SELECT oid FROM t) "                                                   \
	"UNION ALL SELECT 'view', relname::text FROM pg_class WHERE relkind NOT IN ('r', 'p') "    \
	"AND oid IN (SELECT oid FROM t)) h LIMIT 1)"

/* The session's settings, as SELECT columns (postgres_identify()). */
#define PG_SESSION_SETTINGS                                                                        \
	"set_config('extra_float_digits', '3', false), "                                           \
	"set_config('client_min_messages', 'warning', false), "                                    \
	"set_config('lock_timeout', '30000', false)"

/*
 * *out = the store's schema version, 0 for a database without a scopedb
 * store.  A database with our tables but no scopedb_meta, or another
 * application's, is refused, and so is a store of a newer scopedb.
 */
static int postgres_identify(struct store_conn *c, int64_t *out)
{
	PGresult *r = NULL;
	char *app = NULL;
	int64_t version = 0;
	int retries = 0, ret;

	*out = 0;
	/* A store's identity and the session's settings (floats as exact
	 * text, no notices, the default lock wait) in one round trip; a
	 * database without scopedb_meta is looked at more closely. */
	postgres_settle(c);
again:
	r = PQexec(
	    c->db,
	    "SELECT (SELECT value FROM scopedb_meta WHERE key = 'application'), "
	    "(SELECT value FROM scopedb_meta WHERE key = 'schema_version'), " PG_SESSION_SETTINGS
	    ", " PG_HAZARD);
	if (PQresultStatus(r) != PGRES_TUPLES_OK) {
		const char *state = PQresultErrorField(r, PG_DIAG_SQLSTATE);

		if (!state || strcmp(state, "42P01") != 0 || postgres_in_txn(c)) {
			ret = postgres_err(c, r, "open");
			goto out;
		}
		PQclear(r);
		/* scopedb_meta may have been committed since, with the other
		 * tables, by a writer creating the store (outside a transaction
		 * each statement sees the newest commits): look again then */
		ret = postgres_exec(
		    c, &r,
		    "SELECT to_regclass('runs') IS NOT NULL, to_regclass('scopedb_meta') "
		    "IS NOT NULL, " PG_SESSION_SETTINGS,
		    NULL, 0, "open");
		if (!ret && strcmp(PQgetvalue(r, 0, 1), "t") == 0 && retries++ < 3) {
			PQclear(r);
			goto again;
		}
		if (!ret && strcmp(PQgetvalue(r, 0, 0), "t") == 0)
			ret = err_set(ERR_STORE, "cannot open store '%s': not a scopedb database",
				      c->location);
		goto out;
	}
	ret = pg_text(&app, r, 0, 0);
	version = pg_int(r, 0, 1);
	if (ret)
		goto out;
	if (!app && version == 0)
		goto out;
	if (!app || strcmp(app, "scopedb") != 0) {
		ret = err_set(ERR_STORE, "cannot open store '%s': not a scopedb database",
			      c->location);
	} else if (version > postgres_schema_sql_count || version < 0) {
		ret = err_set(ERR_STORE,
			      "cannot open store '%s': written by a newer scopedb (schema version "
			      "%lld; this scopedb supports up to %d)",
			      c->location, (long long)version, postgres_schema_sql_count);
	} else if (!PQgetisnull(r, 0, 5)) {
		const char *hazard = PQgetvalue(r, 0, 5);
		const char *tab = strchr(hazard, '\t');

		ret = verify_foreign(c->location, hazard, tab ? (int)(tab - hazard) : 0,
				     tab ? tab + 1 : hazard);
	} else {
		*out = version;
	}
out:
	PQclear(r);
	free(app);
	return ret;
}

/* Apply migration version (to version + 1) inside the caller's transaction
 * and record the new version. */
static int postgres_apply(struct store_conn *c, int64_t version)
{
	struct pg_params p;
	PGresult *r = PQexec(c->db, postgres_schema_sql[version]);
	int ret = 0;

	if (PQresultStatus(r) != PGRES_COMMAND_OK && PQresultStatus(r) != PGRES_TUPLES_OK) {
		const char *msg = PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY);

		ret =
		    PQstatus(c->db) != CONNECTION_OK
			? postgres_err(c, r, "open")
			: err_set(ERR_STORE,
				  "cannot open store '%s': upgrade to schema version %lld failed: "
				  "%s",
				  c->location, (long long)version + 1, msg ? msg : "?");
	}
	PQclear(r);
	if (ret)
		return ret;
	pp_init(&p);
	pp_int(&p, version + 1);
	return postgres_exec(c, NULL,
			     "INSERT INTO scopedb_meta (key, value) VALUES ('application', "
			     "'scopedb'), ('schema_version', $1) ON CONFLICT (key) DO UPDATE SET "
			     "value = excluded.value",
			     &p, 0, "open");
}

static int postgres_migrate(struct store_conn *c)
{
	int64_t version;
	int fresh, ret;

	for (;;) {
		ret =
		    postgres_run(c,
				 "BEGIN; SELECT pg_advisory_xact_lock(" POSTGRES_LOCK_KEY "); "
				 "CREATE TABLE IF NOT EXISTS scopedb_meta (key text COLLATE \"C\" "
				 "PRIMARY KEY, value text NOT NULL)",
				 "open");
		if (ret)
			goto fail;
		ret = postgres_identify(c, &version);
		if (ret)
			goto fail;
		if (version >= postgres_schema_sql_count)
			return postgres_run(c, "COMMIT", "open");
		fresh = version == 0;
		do {
			ret = postgres_apply(c, version++);
			if (ret)
				goto fail;
		} while (fresh && version < postgres_schema_sql_count);
		ret = postgres_run(c, "COMMIT", "open");
		if (ret)
			goto fail;
	}
fail:
	postgres_rollback(c);
	return ret;
}

static void quiet_notices(void *arg, const char *message)
{
	(void)arg;
	(void)message;
}

static void postgres_set_busy_timeout(struct store_conn *c, int ms)
{
	char sql[64];

	c->busy_ms = ms < 0 ? 0 : ms;
	/* lock_timeout 0 would mean "wait forever" */
	snprintf(sql, sizeof(sql), "SET lock_timeout = %d", c->busy_ms ? c->busy_ms : 1);
	if (c->db && !postgres_in_txn(c))
		(void)postgres_run(c, sql, "open");
}

static void postgres_close(struct store_conn *c);

/*
 * Connect to loc for front (store_open() flags); front->conn is set as soon
 * as the connection exists.  A read-only open of an older store upgrades
 * it first (unless STORE_NO_UPGRADE), as SQLite's does.
 */
static int postgres_open(struct store *front, const char *loc, int flags)
{
	struct pg_secrets secrets = {.n = 0};
	struct store_conn *c;
	const char *msg;
	char *clean;
	int64_t version = 0;
	int ret;

	front->conn = NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return err_nomem();
	front->conn = c;
	c->front = front;
	c->readonly = (flags & STORE_READONLY) != 0;
	c->busy_ms = POSTGRES_BUSY_MS;
	strmap_init(&c->names);
	i64vec_init(&c->ids);
	buf_init(&c->copy_timings);
	buf_init(&c->copy_durations);
	c->location = postgres_mask(loc, &secrets);
	if (!c->location) {
		ret = err_nomem();
		goto out;
	}
	ret = pq_load(c->location);
	if (ret)
		goto out;
	c->db = PQconnectdb(loc);
	if (!c->db) {
		ret = err_nomem();
		goto out;
	}
	if (PQstatus(c->db) != CONNECTION_OK) {
		msg = PQerrorMessage(c->db);
		clean = postgres_scrub(msg, (size_t)first_line(msg), loc, c->location, &secrets);
		ret = clean ? err_set(ERR_IO, "cannot open store '%s': %s", c->location, clean)
			    : err_nomem();
		free(clean);
		goto out;
	}
	PQsetNoticeProcessor(c->db, quiet_notices, NULL);
	ret = postgres_identify(c, &version);
	if (ret)
		goto out;
	if (version == 0 && (flags & (STORE_READONLY | STORE_EXISTING))) {
		ret = err_set(ERR_IO,
			      "cannot open store '%s': the database holds no scopedb store yet "
			      "(ingest into it once)",
			      c->location);
		goto out;
	}
	if (version < postgres_schema_sql_count && (flags & STORE_NO_UPGRADE) && c->readonly) {
		ret = err_set(ERR_STORE,
			      "cannot open store '%s': schema version %lld must be upgraded to %d; "
			      "open it for writing once",
			      c->location, (long long)version, postgres_schema_sql_count);
		goto out;
	}
	if (version < postgres_schema_sql_count)
		ret = postgres_migrate(c);
out:
	if (ret) {
		postgres_close(c);
		front->conn = NULL;
	}
	return ret;
}

/* Temporary stores are SQLite's (the front end asks the last backend). */
static int postgres_open_temporary(struct store *front)
{
	front->conn = NULL;
	return err_set(ERR_USAGE, "the postgresql store backend has no temporary stores");
}

static void postgres_close(struct store_conn *c)
{
	if (!c)
		return;
	if (c->db) {
		/* a read snapshot ends with the connection: no COMMIT (one
		 * round trip less per command; the server ends an open
		 * transaction on Terminate, silently) */
		if (!c->commit_due && postgres_in_txn(c))
			PQclear(PQexec(c->db, "ROLLBACK"));
		PQfinish(c->db);
	}
	postgres_cache_clear(c);
	strmap_release(&c->names);
	i64vec_release(&c->ids);
	buf_release(&c->copy_timings);
	buf_release(&c->copy_durations);
	free(c->location);
	free(c);
}

static int postgres_schema_version(void)
{
	return postgres_schema_sql_count;
}

static const char *postgres_location(const struct store_conn *c)
{
	return c->location;
}

/* ---- transactions ------------------------------------------------------ */

int postgres_in_txn(struct store_conn *c)
{
	PGTransactionStatusType t;

	postgres_settle(c);
	t = PQtransactionStatus(c->db);
	return t == PQTRANS_INTRANS || t == PQTRANS_INERROR || t == PQTRANS_ACTIVE;
}

void postgres_cache_clear(struct store_conn *c)
{
	postgres_cache_drop(c);
	c->reading = 0;
	strmap_release(&c->names);
	strmap_init(&c->names);
	c->ids.len = 0;
	c->next_timing = 0;
	c->next_region = 0;
	c->copy_timings.len = 0;
	c->copy_durations.len = 0;
}

int postgres_begin(struct store_conn *c)
{
	int ret;

	if (postgres_in_txn(c))
		return err_set(ERR_USAGE,
			       "cannot begin a transaction on store '%s': one is already open",
			       c->location);
	postgres_cache_clear(c);
	ret = postgres_run(c, "BEGIN", "update");
	if (!ret)
		ret = postgres_run(c, "SELECT pg_advisory_xact_lock(" POSTGRES_LOCK_KEY ")",
				   "update");
	if (ret)
		postgres_rollback(c);
	return ret;
}

int postgres_commit(struct store_conn *c)
{
	PGresult *r;
	int ret = postgres_flush(c);

	if (ret) {
		postgres_rollback(c);
		return ret;
	}
	r = PQexec(c->db, "COMMIT");
	/* COMMIT of a failed transaction reports success and rolls back */
	if (PQresultStatus(r) != PGRES_COMMAND_OK)
		ret = postgres_err(c, r, "update");
	else if (strcmp(PQcmdStatus(r), "COMMIT") != 0)
		ret =
		    err_set(ERR_STORE, "cannot update store '%s': the transaction was rolled back",
			    c->location);
	PQclear(r);
	if (ret)
		postgres_rollback(c);
	c->next_timing = 0;
	c->next_region = 0;
	return ret;
}

void postgres_rollback(struct store_conn *c)
{
	if (!c || !c->db)
		return;
	c->copy_timings.len = 0;
	c->copy_durations.len = 0;
	if (PQstatus(c->db) == CONNECTION_OK && postgres_in_txn(c))
		PQclear(PQexec(c->db, "ROLLBACK"));
	postgres_cache_clear(c);
}

int postgres_snapshot_begin(struct store_conn *c, int *own)
{
	int ret;

	*own = 0;
	if (postgres_in_txn(c))
		return 0;
	ret = postgres_run(c, "BEGIN ISOLATION LEVEL REPEATABLE READ", "read");
	*own = ret == 0;
	return ret;
}

/* The COMMIT waits for the next statement (postgres_settle()), and is not
 * sent at all when the connection is closed first, as it is at the end of
 * every read command. */
void postgres_snapshot_end(struct store_conn *c, int own)
{
	if (own && postgres_in_txn(c))
		c->commit_due = 1;
}

static int postgres_read_begin(struct store_conn *c, int *started)
{
	int ret = postgres_snapshot_begin(c, started);

	postgres_cache_drop(c);
	c->reading = !ret && *started;
	return ret;
}

static void postgres_read_end(struct store_conn *c)
{
	if (!c)
		return;
	postgres_cache_drop(c);
	c->reading = 0;
	if (c->db)
		postgres_snapshot_end(c, 1);
}

/* ---- maintenance ------------------------------------------------------- */

/* The bytes of every scopedb table with its indexes and TOAST. */
static int postgres_size(struct store_conn *c, int64_t *out)
{
	return postgres_query_int(
	    c, out,
	    "SELECT sum(pg_total_relation_size(to_regclass(t))) FROM unnest(ARRAY['scopedb_meta', "
	    "'run_counter', 'runs', 'run_tags', 'run_metadata', 'regions', 'timings', "
	    "'timings_durations', 'run_regions', 'pins']) AS t",
	    NULL, 0);
}

/*
 * The bytes of the rows the current transaction sees in every scopedb
 * table (store_used_bytes()).  Not postgres_size(): PostgreSQL frees the
 * space of deleted rows only at VACUUM, so the relation sizes would not
 * change inside prune's transaction; the live rows' sizes (as stored,
 * compressed) do, and their difference is what the removed runs took.
 * Indexes are not counted.  Reads every row: prune's cost, not a query's.
 */
static int postgres_used_bytes(struct store_conn *c, int64_t *out)
{
	return postgres_query_int(
	    c, out,
	    "SELECT (SELECT coalesce(sum(pg_column_size(t.*)), 0) FROM scopedb_meta t) + "
	    "(SELECT coalesce(sum(pg_column_size(t.*)), 0) FROM run_counter t) + "
	    "(SELECT coalesce(sum(pg_column_size(t.*)), 0) FROM runs t) + "
	    "(SELECT coalesce(sum(pg_column_size(t.*)), 0) FROM run_tags t) + "
	    "(SELECT coalesce(sum(pg_column_size(t.*)), 0) FROM run_metadata t) + "
	    "(SELECT coalesce(sum(pg_column_size(t.*)), 0) FROM regions t) + "
	    "(SELECT coalesce(sum(pg_column_size(t.*)), 0) FROM timings t) + "
	    "(SELECT coalesce(sum(pg_column_size(t.*)), 0) FROM timings_durations t) + "
	    "(SELECT coalesce(sum(pg_column_size(t.*)), 0) FROM run_regions t) + "
	    "(SELECT coalesce(sum(pg_column_size(t.*)), 0) FROM pins t)",
	    NULL, 0);
}

/* Forget unused region names, rewrite the tables (VACUUM FULL gives the
 * space of removed runs back) and refresh the planner's statistics. */
static int postgres_compact(struct store_conn *c, int64_t *before, int64_t *after)
{
	int ret;

	*before = *after = 0;
	if (postgres_in_txn(c))
		return err_set(ERR_USAGE, "internal error: vacuum inside a transaction");
	ret = postgres_size(c, before);
	if (!ret)
		ret = postgres_begin(c);
	if (!ret) {
		ret = postgres_exec(c, NULL,
				    "DELETE FROM regions WHERE id NOT IN (SELECT region_id FROM "
				    "timings) AND id NOT "
				    "IN (SELECT region_id FROM run_regions)",
				    NULL, 0, "update");
		ret = ret ? (postgres_rollback(c), ret) : postgres_commit(c);
	}
	if (!ret)
		ret = postgres_run(c,
				   "VACUUM (FULL, ANALYZE) runs, run_tags, run_metadata, regions, "
				   "timings, timings_durations, run_regions, pins",
				   "vacuum");
	if (!ret)
		ret = postgres_size(c, after);
	return ret;
}

/* ---- the backend table -------------------------------------------------- */

const struct store_backend postgres_store_backend = {
    .version = STORE_BACKEND_VERSION,
    .name = "postgresql",
    .accepts = postgres_accepts,
    .schema_version = postgres_schema_version,
    .open = postgres_open,
    .open_temporary = postgres_open_temporary,
    .close = postgres_close,
    .location = postgres_location,
    .set_busy_timeout = postgres_set_busy_timeout,
    .begin = postgres_begin,
    .commit = postgres_commit,
    .rollback = postgres_rollback,
    .read_begin = postgres_read_begin,
    .read_end = postgres_read_end,
    .find_sha = postgres_find_sha,
    .insert_run = postgres_insert_run,
    .set_run_sha = postgres_set_run_sha,
    .region_id = postgres_region_id,
    .add_timing = postgres_add_timing,
    .put_region_totals = postgres_put_region_totals,
    .percentile_regions = postgres_percentile_regions,
    .scan_blobs = postgres_scan_blobs,
    .put_region_quantiles = postgres_put_region_quantiles,
    .add_tag = postgres_add_tag,
    .remove_tag = postgres_remove_tag,
    .set_meta = postgres_set_meta,
    .get_meta = postgres_get_meta,
    .pin_set = postgres_pin_set,
    .pin_remove = postgres_pin_remove,
    .list_pins = postgres_list_pins,
    .resolve = postgres_resolve,
    .find_runs = postgres_find_runs,
    .get_run = postgres_get_run,
    .region_stats = postgres_region_stats,
    .region_durations = postgres_region_durations,
    .region_history = postgres_region_history,
    .region_series = postgres_region_series,
    .scan_timings = postgres_scan_timings,
    .remove_run = postgres_remove_run,
    .compact = postgres_compact,
    .used_bytes = postgres_used_bytes,
    .rank_totals = postgres_rank_totals,
};
