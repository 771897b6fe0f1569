/*
 * read.c - the PostgreSQL backend's queries: runs, metadata, selectors,
 * pins, run filters, and the per-region aggregates and durations of diff,
 * check and show (see postgres.h).
 *
 * The same queries as the SQLite backend's read.c with PostgreSQL's
 * spelling: a rank set is bound as a bigint[] literal, a commit prefix is
 * matched with starts_with(), "no limit" is LIMIT NULL.  Duration blobs and
 * the stored int8/float8 totals are fetched as binary results; everything
 * else as text, which for float8 is exact (extra_float_digits = 3,
 * conn.c) and for the pooled sums (numeric) the only simple form.  Rows
 * become result structures through rows.h (pg_row(), pg_bin_row()).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scopedb/err.h"
#include "scopedb/store.h"
#include "scopedb/util.h"
#include "store/postgres/postgres.h"
#include "store/rows.h"

/* ---- runs and metadata ----------------------------------------------- */

/*
 * Attach the tags of runs[0..n) with one query (ordered by run and tag, so
 * each run's tags arrive sorted), finding each tag's run by binary search
 * over the run ids.
 */
static int attach_tags(struct store_conn *c, struct store_run *runs, size_t n)
{
	struct pg_params p;
	struct rows_run_pos *byid = NULL;
	struct store_run *run;
	PGresult *r = NULL;
	int64_t *ids = NULL;
	char *arr = NULL;
	size_t i;
	int failed, row, ret;

	if (!n)
		return 0;
	byid = rows_run_index(runs, n);
	ids = malloc(n * sizeof(*ids));
	if (!byid || !ids) {
		ret = err_nomem();
		goto out;
	}
	for (i = 0; i < n; i++)
		ids[i] = runs[i].id;
	arr = postgres_array(ids, n, &failed);
	if (failed) {
		ret = err_nomem();
		goto out;
	}
	pp_init(&p);
	pp_text(&p, arr);
	ret = postgres_exec(c, &r,
			    "SELECT run_id, tag FROM run_tags WHERE run_id = ANY($1::bigint[]) "
			    "ORDER BY run_id, tag",
			    &p, 0, "read");
	for (row = 0; !ret && row < PQntuples(r); row++) {
		run = rows_run_find(runs, byid, n, pg_int(r, row, 0));
		if (run)
			ret = rows_add_tag(run, PQgetvalue(r, row, 1));
	}
out:
	PQclear(r);
	free(byid);
	free(ids);
	free(arr);
	return ret;
}

/* One run with its tags (and its metadata, kept for postgres_get_meta())
 * in one round trip, unless the cache has it. */
int postgres_get_run(struct store_conn *c, struct store_run *out, int64_t id)
{
	struct store_meta meta;
	int found, ret;

	if (postgres_cache_take(c, out, NULL, id))
		return 0;
	ret = postgres_fetch_run(c, out, &meta, &found, id);
	if (!ret && !found)
		ret =
		    err_set(ERR_NOTFOUND, "no run %lld in store '%s'", (long long)id, c->location);
	if (!ret)
		postgres_cache_keep(c, id, NULL, &meta);
	return ret;
}

int postgres_get_meta(struct store_conn *c, struct store_meta *out, int64_t run_id)
{
	PGresult *r = NULL;
	size_t rows;
	int i, ret;

	memset(out, 0, sizeof(*out));
	if (postgres_cache_take(c, NULL, out, run_id))
		return 0;
	ret = postgres_exec_id(
	    c, &r, "SELECT key, value FROM run_metadata WHERE run_id = $1 ORDER BY key", run_id, 0);
	if (ret)
		return ret;
	rows = (size_t)PQntuples(r);
	if (rows) {
		out->keys = calloc(rows, sizeof(*out->keys));
		out->values = calloc(rows, sizeof(*out->values));
		if (!out->keys || !out->values) {
			ret = err_nomem();
			goto out;
		}
	}
	for (i = 0; (size_t)i < rows; i++) {
		out->n++;
		if ((ret = pg_text(&out->keys[i], r, i, 0)) ||
		    (ret = pg_text(&out->values[i], r, i, 1)))
			goto out;
	}
out:
	PQclear(r);
	if (ret) {
		if (!out->n) {
			free(out->keys);
			free(out->values);
			memset(out, 0, sizeof(*out));
		}
		store_meta_release(out);
	}
	return ret;
}

/* ---- selectors and pins ------------------------------------------------ */

/*
 * The selectors' queries (rows.h, struct rows_resolve_ops): *out = id of
 * the back-th newest run of kind ($1 = name) recorded before run before
 * (when > 0), or 0; *count = how many runs match when there is none.
 */
static int resolve_nth(struct store_conn *c, int64_t *out, int64_t *count, enum select_kind kind,
		       const char *name, int64_t before, int64_t back)
{
	const char *cond = kind == SELECT_TAG ? "id IN (SELECT run_id FROM run_tags WHERE tag = $1)"
			   : kind == SELECT_BRANCH ? "branch = $1"
			   : kind == SELECT_LABEL  ? "label = $1"
			   : kind == SELECT_COMMIT ? "commit_sha = $1"
						   : "$1::text IS NULL";
	struct pg_params p;
	char from[256], sql[512];
	int ret;

	*count = 0;
	pp_init(&p);
	pp_text(&p, kind == SELECT_LATEST ? NULL : name);
	pp_int(&p, back);
	if (before)
		snprintf(from, sizeof(from),
			 "FROM runs WHERE %s AND (sort_time, id) < (SELECT sort_time, id FROM runs "
			 "WHERE id = %lld)",
			 cond, (long long)before);
	else
		snprintf(from, sizeof(from), "FROM runs WHERE %s", cond);
	snprintf(sql, sizeof(sql), "SELECT id %s" PG_NEWEST_FIRST " LIMIT 1 OFFSET $2", from);
	ret = postgres_query_int(c, out, sql, &p, 1);
	if (ret || *out)
		return ret;
	snprintf(sql, sizeof(sql), "SELECT count(*) %s AND $2::bigint IS NOT NULL", from);
	return postgres_query_int(c, count, sql, &p, 0);
}

/* Inside a read snapshot, the run is read whole for the cache: its
 * store_get_run() and store_get_meta() follow. */
static int resolve_exists(struct store_conn *c, int64_t *out, int64_t id)
{
	struct store_run run;
	struct store_meta meta;
	struct pg_params p;
	int found, ret;

	if (c->reading) {
		*out = 0;
		ret = postgres_fetch_run(c, &run, &meta, &found, id);
		if (!ret && found) {
			*out = id;
			postgres_cache_keep(c, id, &run, &meta);
		}
		return ret;
	}
	pp_init(&p);
	pp_int(&p, id);
	return postgres_query_int(c, out, "SELECT id FROM runs WHERE id = $1", &p, 1);
}

static int resolve_pin(struct store_conn *c, int64_t *out, const char *name)
{
	struct pg_params p;

	pp_init(&p);
	pp_text(&p, name);
	return postgres_query_int(c, out, "SELECT run_id FROM pins WHERE name = $1", &p, 1);
}

/* The distinct commits starting with prefix in any case (git takes BB02
 * for bb02), at most 6: as given, in lower case (as every hex commit is
 * stored), in upper case; three searches of the "C" collation index
 * (PostgreSQL 15 searches it for starts_with()), where lower(commit_sha)
 * would read them all. */
static int resolve_commits(struct store_conn *c, struct buf *out, size_t *n, const char *prefix)
{
	struct pg_params p;
	PGresult *r = NULL;
	int i, ret;

	*n = 0;
	pp_init(&p);
	pp_text(&p, prefix);
	ret =
	    postgres_exec(c, &r,
			  "SELECT DISTINCT commit_sha FROM runs WHERE starts_with(commit_sha, $1) "
			  "OR starts_with(commit_sha, lower($1 COLLATE \"C\")) "
			  "OR starts_with(commit_sha, upper($1 COLLATE \"C\")) "
			  "ORDER BY commit_sha LIMIT 6",
			  &p, 0, "read");
	for (i = 0; !ret && i < PQntuples(r); i++, (*n)++)
		if (buf_add(out, PQgetvalue(r, i, 0), strlen(PQgetvalue(r, i, 0)) + 1))
			ret = ERR_NOMEM;
	PQclear(r);
	return ret;
}

static const char *resolve_location(const struct store_conn *c)
{
	return c->location;
}

int postgres_names(struct store_conn *c, struct buf *out, size_t *n, enum rows_names kind)
{
	PGresult *r = NULL;
	int i, ret;

	*n = 0;
	ret = postgres_exec(c, &r, rows_names_sql(kind), NULL, 0, "read");
	for (i = 0; !ret && i < PQntuples(r); i++, (*n)++)
		if (buf_add(out, PQgetvalue(r, i, 0), strlen(PQgetvalue(r, i, 0)) + 1))
			ret = ERR_NOMEM;
	PQclear(r);
	return ret;
}

static const struct rows_resolve_ops postgres_resolve_ops = {
    .nth = resolve_nth,
    .exists = resolve_exists,
    .pin = resolve_pin,
    .commits = resolve_commits,
    .get_run = postgres_get_run,
    .location = resolve_location,
    .names = postgres_names,
};

int postgres_resolve(struct store_conn *c, int64_t *out, const struct select_spec *sel)
{
	return rows_resolve(c, &postgres_resolve_ops, out, sel);
}

int postgres_list_pins(struct store_conn *c, struct store_pin **out, size_t *n)
{
	struct store_pin *pins = NULL;
	PGresult *r = NULL;
	size_t len = 0;
	int i, ret;

	*out = NULL;
	*n = 0;
	ret = postgres_exec(c, &r, "SELECT name, run_id, pinned_at FROM pins ORDER BY name", NULL,
			    0, "read");
	if (ret)
		return ret;
	if (PQntuples(r)) {
		pins = calloc((size_t)PQntuples(r), sizeof(*pins));
		if (!pins) {
			ret = err_nomem();
			goto out;
		}
	}
	for (i = 0; i < PQntuples(r) && !ret; i++, len++) {
		struct rows_row row = pg_row(r, i);

		ret = rows_pin(&pins[i], &row);
	}
out:
	PQclear(r);
	if (ret) {
		store_pins_free(pins, len);
		return ret;
	}
	*out = pins;
	*n = len;
	return 0;
}

/* ---- per-region aggregates and durations -------------------------------- */

/* One row per region of run $1 pooled over the ranks $2 (see SQLite's
 * REGION_STATS_SQL); the name follows the aggregates. */
static const char REGION_STATS_SQL[] =
    "SELECT g.*, r.name FROM (SELECT t.region_id, " PG_REGION_AGGREGATES " "
    "FROM (SELECT region_id, has_events, calls, total_ns, min_ns, max_ns, gpu_count, "
    "gpu_total_ns, rank = ANY($2::bigint[]) AS sel "
    "FROM timings WHERE run_id = $1) AS t GROUP BY t.region_id) AS g "
    "JOIN regions AS r ON r.id = g.region_id";

/* All ranks: the stored totals, with p50/p95/p99 after the name. */
static const char REGION_STATS_ALL_SQL[] =
    "SELECT g.region_id, " PG_RUN_REGIONS_COLUMNS ", r.name, g.p50_ns, g.p95_ns, g.p99_ns "
    "FROM run_regions AS g JOIN regions AS r ON r.id = g.region_id WHERE g.run_id = $1";

#define NAME_COL (1 + PG_REGION_AGGREGATE_COLUMNS)

int postgres_region_stats(struct store_conn *c, struct store_region_stats **out, size_t *n,
			  int64_t run_id, const int64_t *ranks, size_t nranks,
			  store_region_filter filter, void *ctx)
{
	struct pg_params p;
	struct store_region_stats *regs = NULL;
	PGresult *r = NULL;
	size_t len = 0;
	char *arr;
	int failed, keep, i, ret;

	*out = NULL;
	*n = 0;
	arr = postgres_array(ranks, nranks, &failed);
	if (failed)
		return err_nomem();
	pp_init(&p);
	pp_int(&p, run_id);
	if (arr)
		pp_text(&p, arr);
	/* the stored totals are int8 and float8: binary, read without
	 * parsing; the pooled sums are numeric: text */
	ret = postgres_exec(c, &r, arr ? REGION_STATS_SQL : REGION_STATS_ALL_SQL, &p, !arr, "read");
	if (ret)
		goto out;
	if (PQntuples(r)) {
		regs = calloc((size_t)PQntuples(r), sizeof(*regs));
		if (!regs) {
			ret = err_nomem();
			goto out;
		}
	}
	for (i = 0; i < PQntuples(r); i++) {
		struct rows_row row = arr ? pg_row(r, i) : pg_bin_row(r, i);
		const char *name;

		if ((ret = rows_keep_region(&name, &keep, &row, NAME_COL, filter, ctx)))
			goto out;
		if (!keep)
			continue;
		if ((ret = rows_region(&regs[len++], &row, name, !arr)))
			goto out;
	}
out:
	PQclear(r);
	if (ret) {
		free(arr);
		store_region_stats_free(regs, len);
		return ret;
	}
	rows_sort_regions(regs, len);
	postgres_blobs_expect(c, run_id, arr, regs, len);
	free(arr);
	if (!len) {
		free(regs);
		regs = NULL;
	}
	*out = regs;
	*n = len;
	return 0;
}

int postgres_region_durations(struct store_conn *c, struct i64vec *out, struct i64vec *ends,
			      int64_t run_id, int64_t region_id, const int64_t *ranks,
			      size_t nranks)
{
	struct pg_params p;
	size_t start = out->len, ends_start = ends ? ends->len : 0;
	PGresult *r = NULL;
	char *arr;
	int failed, hit, i, ret;

	arr = postgres_array(ranks, nranks, &failed);
	if (failed)
		return err_nomem();
	ret = postgres_blobs_get(c, &hit, out, ends, run_id, region_id, arr);
	if (hit)
		goto out;
	pp_init(&p);
	pp_int(&p, run_id);
	pp_int(&p, region_id);
	pp_text(&p, arr);
	ret =
	    postgres_exec(c, &r,
			  "SELECT d.data FROM timings AS t JOIN timings_durations AS d "
			  "ON d.timing_id = t.id WHERE t.run_id = $1 AND t.region_id = $2 "
			  "AND ($3::bigint[] IS NULL OR t.rank = ANY($3::bigint[])) ORDER BY t.id",
			  &p, 1, "read");
	for (i = 0; !ret && i < PQntuples(r); i++) {
		struct rows_row row = pg_bin_row(r, i);

		ret = rows_blob_append(out, &row, 0, c->location, run_id);
		if (!ret && ends)
			ret = i64vec_push(ends, (int64_t)out->len);
	}
out:
	PQclear(r);
	free(arr);
	if (ret) {
		out->len = start;
		if (ends)
			ends->len = ends_start;
	}
	return ret;
}

/* ---- run filters and filtered listings ----------------------------------- */

/* Add " AND pre$N[mid$N+1]post" binding v1 (and v2 unless NULL). */
static int where_add(struct buf *sql, struct pg_params *p, const char *pre, const char *v1,
		     const char *mid, const char *v2, const char *post)
{
	int rc;

	if (p->n + 2 > 16)
		return err_set(ERR_USAGE, "too many run filters for one query (at most 12)");
	rc = buf_printf(sql, "%s$%d", pre, p->n + 1);
	pp_text(p, v1);
	if (!rc && v2) {
		rc = buf_printf(sql, "%s$%d", mid, p->n + 1);
		pp_text(p, v2);
	}
	return rc || buf_puts(sql, post) ? ERR_NOMEM : 0;
}

/* " AND " the commit prefix v in any case (as resolve_commits() searches
 * it), bound to the next parameter. */
static int where_add_commit(struct buf *sql, struct pg_params *p, const char *v)
{
	char n[16];
	int rc;

	if (p->n + 2 > 16)
		return err_set(ERR_USAGE, "too many run filters for one query (at most 12)");
	snprintf(n, sizeof(n), "$%d", p->n + 1);
	pp_text(p, v);
	rc = buf_printf(sql,
			" AND (starts_with(runs.commit_sha, %s) OR starts_with(runs.commit_sha, "
			"lower(%s COLLATE \"C\")) OR starts_with(runs.commit_sha, upper(%s COLLATE "
			"\"C\")))",
			n, n, n);
	return rc ? ERR_NOMEM : 0;
}

int postgres_run_where(struct buf *sql, struct pg_params *p, const struct filter *f)
{
	size_t i;
	int ret = 0;

	if (!f)
		return 0;
	for (i = 0; i < f->ntags && !ret; i++)
		ret = where_add(sql, p, " AND runs.id IN (SELECT run_id FROM run_tags WHERE tag = ",
				f->tags[i], NULL, NULL, ")");
	if (!ret && f->branch)
		ret = where_add(sql, p, " AND runs.branch = ", f->branch, NULL, NULL, "");
	if (!ret && f->commit)
		ret = where_add_commit(sql, p, f->commit);
	if (!ret && f->label)
		ret = where_add(sql, p, " AND runs.label = ", f->label, NULL, NULL, "");
	if (!ret && f->since[0])
		ret = where_add(sql, p, " AND runs.sort_time >= ", f->since, NULL, NULL, "");
	if (!ret && f->until[0])
		ret = where_add(sql, p, " AND runs.sort_time <= ", f->until, NULL, NULL, "");
	for (i = 0; i < f->nmeta && !ret; i++)
		ret = where_add(sql, p,
				" AND runs.id IN (SELECT run_id FROM run_metadata WHERE key = ",
				f->meta[i].key, " AND value = ", f->meta[i].value, ")");
	return ret;
}

int postgres_find_runs(struct store_conn *c, struct store_run **out, size_t *n,
		       const struct filter *f)
{
	struct pg_params p;
	struct store_run *runs = NULL;
	struct buf where = BUF_INIT, sql = BUF_INIT;
	PGresult *r = NULL;
	size_t len = 0;
	int own = 0, i, ret;

	*out = NULL;
	*n = 0;
	pp_init(&p);
	if (f && f->limit > 0)
		pp_int(&p, f->limit);
	else
		pp_text(&p, NULL);
	ret = buf_puts(&where, "") ? ERR_NOMEM : postgres_run_where(&where, &p, f);
	if (!ret && buf_printf(&sql,
			       "SELECT " PG_RUN_COLUMNS " FROM runs WHERE true%s" PG_NEWEST_FIRST
			       " LIMIT $1::bigint",
			       where.data))
		ret = ERR_NOMEM;
	if (!ret)
		ret = postgres_snapshot_begin(c, &own);
	if (!ret)
		ret = postgres_exec(c, &r, sql.data, &p, 0, "read");
	if (ret)
		goto out;
	if (PQntuples(r)) {
		runs = calloc((size_t)PQntuples(r), sizeof(*runs));
		if (!runs) {
			ret = err_nomem();
			goto out;
		}
	}
	for (i = 0; i < PQntuples(r) && !ret; i++, len++) {
		struct rows_row row = pg_row(r, i);

		ret = rows_run(&runs[i], &row);
	}
	if (!ret)
		ret = attach_tags(c, runs, len);
out:
	PQclear(r);
	postgres_snapshot_end(c, own);
	buf_release(&where);
	buf_release(&sql);
	if (ret) {
		store_runs_free(runs, len);
		return ret;
	}
	*out = runs;
	*n = len;
	return 0;
}

/* ---- whole rows, for copying a run (store_scan_timings()) ---------------- */

/* The caller's callback of postgres_scan_timings(). */
struct timing_scan {
	int64_t run_id;
	store_timing_fn fn;
	void *ctx;
};

static int timing_row(void *arg, const PGresult *r)
{
	struct timing_scan *x = arg;
	struct rows_row row = pg_bin_row(r, 0);
	struct store_timing t;
	const char *name;
	int ret = rows_timing(&t, &name, &row, x->run_id);

	return ret ? ret : x->fn(x->ctx, &t, name);
}

int postgres_scan_timings(struct store_conn *c, int64_t run_id, store_timing_fn fn, void *ctx)
{
	struct timing_scan x = {run_id, fn, ctx};
	struct pg_params p;

	pp_init(&p);
	pp_int(&p, run_id);
	return postgres_stream(
	    c,
	    "SELECT t.region_id, t.rank, t.has_events, t.calls, t.total_ns, t.min_ns, t.max_ns, "
	    "t.first_ns, t.last_ns, t.start_min_ns, t.end_max_ns, t.mean_ns, t.m2, t.exclusive_ns, "
	    "t.gpu_count, t.gpu_total_ns, t.source_file, t.source_line, t.source_text, t.tags, "
	    "g.name, d.data FROM timings AS t JOIN regions AS g ON g.id = t.region_id "
	    "LEFT JOIN timings_durations AS d ON d.timing_id = t.id WHERE t.run_id = $1 "
	    "ORDER BY t.id",
	    &p, timing_row, &x);
}

/* One binary query for every (region, rank) total of the run (store.h:
 * store_rank_totals()), instead of region_stats per rank. */
int postgres_rank_totals(struct store_conn *c, int64_t run_id, store_rank_total_fn fn, void *ctx)
{
	PGresult *r = NULL;
	int i, ret;

	ret = postgres_exec_id(
	    c, &r,
	    "SELECT r.name, t.rank, t.total_ns FROM timings AS t JOIN regions AS r "
	    "ON r.id = t.region_id WHERE t.run_id = $1",
	    run_id, 1);
	for (i = 0; !ret && i < PQntuples(r); i++)
		ret = fn(ctx, PQgetvalue(r, i, 0), pg_bin_int(r, i, 1), pg_bin_int(r, i, 2));
	PQclear(r);
	return ret;
}
