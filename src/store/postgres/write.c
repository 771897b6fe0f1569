/*
 * write.c - the PostgreSQL backend's writes: ingest, tags, metadata, pins,
 * removal, and the storage side of finishing a run (see postgres.h).
 *
 * Ingest runs under the store's write lock (postgres_begin()), so ids can
 * be given as SQLite gives them: a run takes run_counter + 1 (never
 * reused), a region max + 1, a timings row the next number after the
 * largest stored one (asked once per transaction).  Timings rows and
 * their duration blobs are appended to the connection's COPY buffers in
 * COPY's text format and sent in bulk (conn.c); every statement sends
 * them first, so reads in the same transaction see them.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scopedb/err.h"
#include "scopedb/store.h"
#include "scopedb/util.h"
#include "store/postgres/postgres.h"

int postgres_find_sha(struct store_conn *c, int64_t *out, const char *sha256)
{
	struct pg_params p;

	pp_init(&p);
	pp_text(&p, sha256);
	return postgres_query_int(c, out, "SELECT id FROM runs WHERE sha256 = $1", &p, 1);
}

int postgres_insert_run(struct store_conn *c, int64_t *out, const struct store_run *run)
{
	struct pg_params p;
	char now[32];

	*out = 0;
	if (!run->ingested_at)
		util_now_iso(now, sizeof(now));
	pp_init(&p);
	pp_text(&p, run->sha256);
	pp_text(&p, run->source_path);
	pp_text(&p, run->ingested_at ? run->ingested_at : now);
	pp_text_or_null(&p, run->recorded_at);
	pp_text_or_null(&p, run->label);
	pp_text_or_null(&p, run->commit);
	pp_text_or_null(&p, run->branch);
	pp_int(&p, run->schema);
	pp_text(&p, run->layout);
	pp_int(&p, run->num_ranks);
	return postgres_query_int(
	    c, out,
	    "WITH n AS (UPDATE run_counter SET last_id = last_id + 1 RETURNING last_id) "
	    "INSERT INTO runs (id, sha256, source_path, ingested_at, recorded_at, label, "
	    "commit_sha, branch, schema_version, layout, num_ranks) "
	    "SELECT n.last_id, $1::text, $2::text, $3::text, $4::text, $5::text, $6::text, "
	    "$7::text, $8::integer, $9::text, $10::bigint FROM n RETURNING id",
	    &p, 0);
}

/* 0 when the statement changed a row, else ERR_NOTFOUND naming run_id. */
static int changed(struct store_conn *c, PGresult *r, int64_t run_id)
{
	int ret = 0;

	if (!strcmp(PQcmdTuples(r), "0"))
		ret = err_set(ERR_NOTFOUND, "cannot update store '%s': no run %lld", c->location,
			      (long long)run_id);
	PQclear(r);
	return ret;
}

int postgres_set_run_sha(struct store_conn *c, int64_t run_id, const char *sha256)
{
	struct pg_params p;
	PGresult *r;
	int ret;

	pp_init(&p);
	pp_int(&p, run_id);
	pp_text(&p, sha256);
	ret = postgres_exec(c, &r, "UPDATE runs SET sha256 = $2 WHERE id = $1", &p, 0, "update");
	return ret ? ret : changed(c, r, run_id);
}

/* Run a write of (run_id, text) and set *n to the rows it changed. */
static int write_rows(struct store_conn *c, int *n, const char *sql, int64_t run_id,
		      const char *text)
{
	struct pg_params p;
	PGresult *r;
	int ret;

	if (n)
		*n = 0;
	pp_init(&p);
	pp_int(&p, run_id);
	pp_text(&p, text);
	ret = postgres_exec(c, &r, sql, &p, 0, "update");
	if (ret)
		return ret;
	if (n)
		*n = strcmp(PQcmdTuples(r), "0") != 0;
	PQclear(r);
	return 0;
}

int postgres_add_tag(struct store_conn *c, int *added, int64_t run_id, const char *tag)
{
	return write_rows(
	    c, added, "INSERT INTO run_tags (run_id, tag) VALUES ($1, $2) ON CONFLICT DO NOTHING",
	    run_id, tag);
}

int postgres_remove_tag(struct store_conn *c, int *removed, int64_t run_id, const char *tag)
{
	return write_rows(c, removed, "DELETE FROM run_tags WHERE run_id = $1 AND tag = $2", run_id,
			  tag);
}

int postgres_set_meta(struct store_conn *c, int64_t run_id, const char *key, const char *value)
{
	struct pg_params p;

	pp_init(&p);
	pp_int(&p, run_id);
	pp_text(&p, key);
	pp_text(&p, value);
	return postgres_exec(c, NULL,
			     "INSERT INTO run_metadata (run_id, key, value) VALUES ($1, $2, $3) "
			     "ON CONFLICT (run_id, key) DO UPDATE SET value = excluded.value",
			     &p, 0, "update");
}

/*
 * The id of region name, from the transaction's cache, the store, or a new
 * row numbered max + 1 (as SQLite numbers it; writers hold the lock).
 */
int postgres_region_id(struct store_conn *c, int64_t *out, const char *name)
{
	struct pg_params p;
	size_t k = strmap_find(&c->names, name);
	int64_t id = 0;
	int ret;

	if (k != STRMAP_NONE && k < c->ids.len) {
		*out = c->ids.v[k];
		return 0;
	}
	*out = 0;
	pp_init(&p);
	pp_text(&p, name);
	ret = postgres_query_int(c, &id, "SELECT id FROM regions WHERE name = $1", &p, 1);
	if (!ret && !id) {
		if (!c->next_region)
			ret = postgres_query_int(c, &c->next_region,
						 "SELECT coalesce(max(id), 0) + 1 FROM regions",
						 NULL, 0);
		pp_init(&p);
		pp_int(&p, c->next_region);
		pp_text(&p, name);
		if (!ret)
			ret =
			    postgres_exec(c, NULL, "INSERT INTO regions (id, name) VALUES ($1, $2)",
					  &p, 0, "update");
		if (!ret)
			id = c->next_region++;
	}
	if (!ret && postgres_in_txn(c)) {
		ret = strmap_intern(&k, &c->names, name);
		if (!ret && k == c->ids.len)
			ret = i64vec_push(&c->ids, id);
	}
	if (!ret)
		*out = id;
	return ret;
}

/*
 * Rows go to the server in COPY's binary format (a header, then per row
 * the number of fields and each field as a 32-bit length, -1 for NULL,
 * and its bytes in network order; the trailer is added by
 * postgres_flush()): nothing to escape or parse as text, and the duration
 * blobs (most of an ingest's bytes) as they are rather than as hex.
 */
static const char copy_header[19] = "PGCOPY\n\377\r\n\0\0\0\0\0\0\0\0\0";

/* Append the n low bytes of v, big-endian, at b's end (room reserved). */
static void put_be(struct buf *b, uint64_t v, int n)
{
	char *p = b->data + b->len;
	int i;

	for (i = n - 1; i >= 0; i--) {
		p[i] = (char)(v & 0xff);
		v >>= 8;
	}
	b->len += (size_t)n;
}

/* A field of n bytes with value v (an int8, int2 or float8's bits). */
static void put_field(struct buf *b, uint64_t v, int n)
{
	put_be(b, (uint64_t)n, 4);
	put_be(b, v, n);
}

static void put_null(struct buf *b)
{
	put_be(b, 0xffffffffu, 4);
}

static void put_double(struct buf *b, double d)
{
	uint64_t bits;

	memcpy(&bits, &d, sizeof(bits));
	put_field(b, bits, 8);
}

/* A text field, NULL when s is NULL or "" (room reserved). */
static void put_text(struct buf *b, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (!n) {
		put_null(b);
		return;
	}
	put_be(b, n, 4);
	memcpy(b->data + b->len, s, n);
	b->len += n;
}

static size_t text_len(const char *s)
{
	return s ? strlen(s) : 0;
}

/* The binary COPY tuple of a timings row with id, in the column order of
 * postgres_flush(). */
static int copy_timing(struct buf *b, int64_t id, const struct store_timing *t)
{
	const char *tags = t->tags_json && strcmp(t->tags_json, "[]") != 0 ? t->tags_json : NULL;
	size_t need =
	    2 + 22 * 12 + text_len(t->source_file) + text_len(t->source_text) + text_len(tags);

	if ((!b->len && buf_add(b, copy_header, sizeof(copy_header))) || buf_grow(b, need + 1))
		return ERR_NOMEM;
	put_be(b, 22, 2);
	put_field(b, (uint64_t)id, 8);
	put_field(b, (uint64_t)t->run_id, 8);
	put_field(b, (uint64_t)t->region_id, 8);
	put_field(b, (uint64_t)t->rank, 8);
	put_field(b, t->has_events ? 1 : 0, 2);
	put_field(b, t->calls, 8);
	put_field(b, (uint64_t)t->total, 8);
	put_field(b, (uint64_t)t->min, 8);
	put_field(b, (uint64_t)t->max, 8);
	put_field(b, (uint64_t)t->first, 8);
	put_field(b, (uint64_t)t->last, 8);
	put_field(b, (uint64_t)t->start_min, 8);
	put_field(b, (uint64_t)t->end_max, 8);
	put_double(b, t->mean);
	put_double(b, t->m2);
	if (t->exclusive < 0)
		put_null(b);
	else
		put_field(b, (uint64_t)t->exclusive, 8);
	put_field(b, t->gpu_count, 8);
	put_field(b, (uint64_t)t->gpu_total, 8);
	put_text(b, t->source_file);
	if (t->source_line < 0)
		put_null(b);
	else
		put_field(b, (uint64_t)t->source_line, 8);
	put_text(b, t->source_text);
	put_text(b, tags);
	b->data[b->len] = 0;
	return 0;
}

/* The binary COPY tuple of a durations row: the id and the blob. */
static int copy_durations(struct buf *b, int64_t id, const struct store_timing *t)
{
	if (t->durations_len > INT32_MAX)
		return err_set(ERR_USAGE, "call durations of one row too large for PostgreSQL");
	if ((!b->len && buf_add(b, copy_header, sizeof(copy_header))) ||
	    buf_grow(b, 2 + 12 + 4 + t->durations_len + 1))
		return ERR_NOMEM;
	put_be(b, 2, 2);
	put_field(b, (uint64_t)id, 8);
	put_be(b, t->durations_len, 4);
	memcpy(b->data + b->len, t->durations, t->durations_len);
	b->len += t->durations_len;
	b->data[b->len] = 0;
	return 0;
}

int postgres_add_timing(struct store_conn *c, const struct store_timing *t)
{
	int ret;

	if (!postgres_in_txn(c))
		return err_set(ERR_USAGE, "cannot update store '%s': timings need a transaction",
			       c->location);
	if (t->calls > (uint64_t)INT64_MAX || t->gpu_count > (uint64_t)INT64_MAX)
		return err_set(ERR_USAGE, "cannot update store '%s': call count out of range",
			       c->location);
	if (!c->next_timing) {
		ret = postgres_query_int(c, &c->next_timing,
					 "SELECT coalesce(max(id), 0) + 1 FROM timings", NULL, 0);
		if (ret)
			return ret;
	}
	ret = copy_timing(&c->copy_timings, c->next_timing, t);
	if (!ret && t->durations)
		ret = copy_durations(&c->copy_durations, c->next_timing, t);
	if (ret)
		return ret;
	c->next_timing++;
	if (c->copy_timings.len + c->copy_durations.len >= POSTGRES_COPY_FLUSH)
		return postgres_flush(c);
	return 0;
}

int postgres_pin_set(struct store_conn *c, int64_t *prev, const char *name, int64_t run_id,
		     int keep)
{
	struct pg_params p;
	char now[32];
	int64_t found = 0;
	int ret;

	*prev = 0;
	ret = postgres_begin(c);
	if (ret)
		return ret;
	pp_init(&p);
	pp_text(&p, name);
	ret = postgres_query_int(c, prev, "SELECT run_id FROM pins WHERE name = $1", &p, 1);
	if (ret || *prev == run_id || (keep && *prev))
		goto out;
	pp_init(&p);
	pp_int(&p, run_id);
	ret = postgres_query_int(c, &found, "SELECT 1 FROM runs WHERE id = $1", &p, 1);
	if (!ret && !found)
		ret = err_set(ERR_NOTFOUND, "no run with id %lld", (long long)run_id);
	if (ret)
		goto out;
	util_now_iso(now, sizeof(now));
	pp_init(&p);
	pp_text(&p, name);
	pp_int(&p, run_id);
	pp_text(&p, now);
	ret = postgres_exec(c, NULL,
			    "INSERT INTO pins (name, run_id, pinned_at) VALUES ($1, $2, $3) "
			    "ON CONFLICT (name) DO UPDATE SET run_id = excluded.run_id, "
			    "pinned_at = excluded.pinned_at",
			    &p, 0, "update");
out:
	if (ret) {
		postgres_rollback(c);
		*prev = 0;
		return ret;
	}
	return postgres_commit(c);
}

int postgres_pin_remove(struct store_conn *c, int64_t *prev, const char *name)
{
	struct pg_params p;
	int ret;

	pp_init(&p);
	pp_text(&p, name);
	ret =
	    postgres_query_int(c, prev, "DELETE FROM pins WHERE name = $1 RETURNING run_id", &p, 1);
	if (!ret && *prev == 0)
		ret = rows_no_pin(c, postgres_names, name); /* with the nearest pin */
	if (ret)
		*prev = 0;
	return ret;
}

int postgres_remove_run(struct store_conn *c, char **unpinned, int64_t run_id, int force)
{
	struct pg_params p;
	struct buf names = BUF_INIT;
	PGresult *r = NULL;
	int i, ret;

	*unpinned = NULL;
	if (!postgres_in_txn(c))
		return err_set(ERR_USAGE, "internal error: removing a run outside a transaction");
	pp_init(&p);
	pp_int(&p, run_id);
	ret = postgres_exec(c, &r, "SELECT name FROM pins WHERE run_id = $1 ORDER BY name", &p, 0,
			    "read");
	if (ret)
		goto out;
	for (i = 0; i < PQntuples(r); i++)
		if (buf_printf(&names, "%s%s", names.len ? ", " : "", PQgetvalue(r, i, 0))) {
			ret = ERR_NOMEM;
			goto out;
		}
	if (names.len && !force) {
		ret = err_set(ERR_USAGE, "run %lld is pinned as '%s': unpin it or use --force",
			      (long long)run_id, names.data);
		goto out;
	}
	if (names.len)
		ret = postgres_exec(c, NULL, "DELETE FROM pins WHERE run_id = $1", &p, 0, "update");
	if (ret)
		goto out;
	PQclear(r);
	r = NULL;
	/* the bulk tables have no foreign keys (schema); run_tags and
	 * run_metadata cascade */
	ret = postgres_exec(c, NULL,
			    "DELETE FROM timings_durations WHERE timing_id IN "
			    "(SELECT id FROM timings WHERE run_id = $1)",
			    &p, 0, "update");
	if (!ret)
		ret = postgres_exec(c, NULL, "DELETE FROM timings WHERE run_id = $1", &p, 0,
				    "update");
	if (!ret)
		ret = postgres_exec(c, NULL, "DELETE FROM run_regions WHERE run_id = $1", &p, 0,
				    "update");
	if (!ret)
		ret = postgres_exec(c, &r, "DELETE FROM runs WHERE id = $1", &p, 0, "update");
	if (ret)
		goto out;
	if (!strcmp(PQcmdTuples(r), "0"))
		ret = err_set(ERR_NOTFOUND, "no run with id %lld", (long long)run_id);
	if (!ret && names.len)
		*unpinned = buf_detach(&names);
out:
	PQclear(r);
	buf_release(&names);
	return ret;
}

/* ---- finishing a run: the storage side of src/store/finish.c ---------- */

int postgres_put_region_totals(struct store_conn *c, int64_t run_id)
{
	struct pg_params p;
	PGresult *r;
	int ret;

	pp_init(&p);
	pp_int(&p, run_id);
	ret = postgres_exec(c, NULL, "DELETE FROM run_regions WHERE run_id = $1", &p, 0, "update");
	if (!ret)
		ret = postgres_exec(
		    c, NULL,
		    "INSERT INTO run_regions (run_id, region_id, " PG_RUN_REGIONS_COLUMNS ") "
		    "SELECT $1, region_id, min(has_events), sum(calls), sum(total_ns), "
		    "min(CASE WHEN calls > 0 THEN min_ns END), max(CASE WHEN calls > 0 THEN "
		    "max_ns END), sum(gpu_count), sum(gpu_total_ns), "
		    "sum(CASE WHEN total_ns > 0 THEN 1 ELSE 0 END), "
		    "max(CASE WHEN total_ns > 0 THEN total_ns END), count(*) FROM timings "
		    "WHERE run_id = $1 GROUP BY region_id",
		    &p, 0, "update");
	if (ret)
		return ret;
	ret = postgres_exec(c, &r,
			    "UPDATE runs SET "
			    "num_regions = (SELECT count(*) FROM run_regions WHERE run_id = $1), "
			    "num_calls = (SELECT coalesce(sum(calls), 0) FROM run_regions WHERE "
			    "run_id = $1) WHERE id = $1",
			    &p, 0, "update");
	return ret ? ret : changed(c, r, run_id);
}

int postgres_percentile_regions(struct store_conn *c, struct store_region_calls **out, size_t *n,
				int64_t run_id)
{
	struct store_region_calls *v = NULL;
	PGresult *r;
	int i, rows, ret;

	*out = NULL;
	*n = 0;
	ret = postgres_exec_id(c, &r,
			       "SELECT region_id, calls, nranks FROM run_regions WHERE run_id = $1 "
			       "AND has_events = 1 AND calls > 0 ORDER BY region_id",
			       run_id, 0);
	if (ret)
		return ret;
	rows = PQntuples(r);
	if (rows) {
		v = calloc((size_t)rows, sizeof(*v));
		if (!v) {
			PQclear(r);
			return err_nomem();
		}
	}
	for (i = 0; i < rows; i++) {
		v[i].region_id = pg_int(r, i, 0);
		v[i].calls = (uint64_t)pg_int(r, i, 1);
		v[i].rows = (uint64_t)pg_int(r, i, 2);
	}
	PQclear(r);
	*out = v;
	*n = (size_t)rows;
	return 0;
}

/* The caller's callback of postgres_scan_blobs(). */
struct blob_scan {
	store_blob_fn fn;
	void *ctx;
};

static int blob_row(void *arg, const PGresult *r)
{
	struct blob_scan *b = arg;

	return b->fn(b->ctx, pg_bin_int(r, 0, 0), PQgetvalue(r, 0, 1),
		     (size_t)PQgetlength(r, 0, 1));
}

/* The blobs in the order they were written (timings id), in one pass. */
int postgres_scan_blobs(struct store_conn *c, int64_t run_id, store_blob_fn fn, void *ctx)
{
	struct blob_scan b = {fn, ctx};
	struct pg_params p;

	pp_init(&p);
	pp_int(&p, run_id);
	return postgres_stream(c,
			       "SELECT t.region_id, d.data FROM timings AS t "
			       "JOIN timings_durations AS d ON d.timing_id = t.id "
			       "WHERE t.run_id = $1 ORDER BY t.id",
			       &p, blob_row, &b);
}

int postgres_put_region_quantiles(struct store_conn *c, int64_t run_id, int64_t region_id,
				  const double q[3])
{
	struct pg_params p;

	pp_init(&p);
	pp_int(&p, run_id);
	pp_int(&p, region_id);
	pp_double(&p, q[0]);
	pp_double(&p, q[1]);
	pp_double(&p, q[2]);
	return postgres_exec(c, NULL,
			     "UPDATE run_regions SET p50_ns = $3, p95_ns = $4, p99_ns = $5 "
			     "WHERE run_id = $1 AND region_id = $2",
			     &p, 0, "update");
}
