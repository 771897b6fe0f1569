/*
 * cache.c - what the PostgreSQL backend reads ahead inside a read snapshot
 * (see postgres.h), to spare round trips: each query to the server costs a
 * round trip and its parse and plan, which SQLite, in the process, does
 * not pay.
 *
 * Runs: a run is read with its tags and its metadata in one query, when
 * its id is resolved or the run is asked for; the caller then takes the
 * run (store_get_run()) and the metadata (store_get_meta()) from the
 * cache, each once.  A diff of two stored runs makes 2 queries instead of
 * 6.
 *
 * Durations: summary_run() (src/analysis/summary.c) asks
 * store_region_durations() region after region for the regions that
 * store_region_stats() has just returned.  postgres_region_stats()
 * records those regions (postgres_blobs_expect()); then one query fetches
 * the blobs of POSTGRES_BLOB_CHUNK of them in binary, instead of one
 * query per region.  A region asked for out of that plan is read alone,
 * as before, so the cache changes the number of queries, never a result.
 *
 * Both are valid only inside read_begin()'s own REPEATABLE READ snapshot
 * (c->reading), where nothing the connection reads can change; they are
 * dropped when it ends and before any transaction.
 */
#include <stdlib.h>
#include <string.h>

#include "scopedb/err.h"
#include "scopedb/store.h"
#include "scopedb/util.h"
#include "store/postgres/postgres.h"
#include "store/rows.h"

static void blobs_release(struct pg_blob_cache *b)
{
	PQclear(b->r);
	free(b->ranks);
	free(b->order);
	free(b->pos);
	memset(b, 0, sizeof(*b));
}

void postgres_cache_drop(struct store_conn *c)
{
	size_t i;

	for (i = 0; i < c->nruns; i++) {
		store_run_release(&c->runs[i].run);
		store_meta_release(&c->runs[i].meta);
	}
	memset(c->runs, 0, sizeof(c->runs));
	c->nruns = 0;
	blobs_release(&c->blobs);
}

/* ---- runs ---------------------------------------------------------------- */

/*
 * One row per tag and per metadata key (kind 0 and 1, each in "C" order),
 * or one row with a NULL kind: the run with everything store_get_run() and
 * store_get_meta() return.
 */
static const char RUN_ALL_SQL[] =
    "SELECT " PG_RUN_COLUMNS ", x.kind, x.k, x.v FROM runs LEFT JOIN (SELECT 0 AS kind, run_id, "
    "tag AS k, NULL::text AS v FROM run_tags WHERE run_id = $1 UNION ALL SELECT 1, run_id, key, "
    "value FROM run_metadata WHERE run_id = $1) AS x ON x.run_id = runs.id WHERE runs.id = $1 "
    "ORDER BY x.kind, x.k";

#define RUN_ALL_KIND 13

/* Append key = value to m. */
static int meta_add(struct store_meta *m, const char *key, const char *value)
{
	char **k, **v;

	k = realloc(m->keys, (m->n + 1) * sizeof(*k));
	if (!k)
		return err_nomem();
	m->keys = k;
	v = realloc(m->values, (m->n + 1) * sizeof(*v));
	if (!v)
		return err_nomem();
	m->values = v;
	k[m->n] = util_strdup(key);
	v[m->n] = util_strdup(value);
	m->n++;
	return k[m->n - 1] && v[m->n - 1] ? 0 : err_nomem();
}

int postgres_fetch_run(struct store_conn *c, struct store_run *run, struct store_meta *meta,
		       int *found, int64_t id)
{
	struct rows_row row;
	PGresult *r = NULL;
	int i, ret;

	memset(run, 0, sizeof(*run));
	memset(meta, 0, sizeof(*meta));
	*found = 0;
	ret = postgres_exec_id(c, &r, RUN_ALL_SQL, id, 0);
	if (ret || PQntuples(r) == 0)
		goto out;
	*found = 1;
	row = pg_row(r, 0);
	ret = rows_run(run, &row);
	for (i = 0; !ret && i < PQntuples(r); i++) {
		if (PQgetisnull(r, i, RUN_ALL_KIND))
			continue;
		if (pg_int(r, i, RUN_ALL_KIND) == 0)
			ret = rows_add_tag(run, PQgetvalue(r, i, RUN_ALL_KIND + 1));
		else
			ret = meta_add(meta, PQgetvalue(r, i, RUN_ALL_KIND + 1),
				       PQgetvalue(r, i, RUN_ALL_KIND + 2));
	}
out:
	PQclear(r);
	if (ret) {
		store_run_release(run);
		store_meta_release(meta);
	}
	return ret;
}

static struct pg_cached_run *run_find(struct store_conn *c, int64_t id)
{
	size_t i;

	for (i = 0; i < c->nruns; i++)
		if (c->runs[i].id == id)
			return &c->runs[i];
	return NULL;
}

void postgres_cache_keep(struct store_conn *c, int64_t id, struct store_run *run,
			 struct store_meta *meta)
{
	struct pg_cached_run *e = run_find(c, id);

	if (!c->reading || (!run && !meta))
		goto out;
	if (!e) {
		if (c->nruns == POSTGRES_RUN_CACHE) {
			/* the oldest goes */
			store_run_release(&c->runs[0].run);
			store_meta_release(&c->runs[0].meta);
			memmove(c->runs, c->runs + 1, (c->nruns - 1) * sizeof(c->runs[0]));
			c->nruns--;
		}
		e = &c->runs[c->nruns++];
		memset(e, 0, sizeof(*e));
		e->id = id;
	}
	if (run) {
		store_run_release(&e->run);
		e->run = *run;
		e->has_run = 1;
		memset(run, 0, sizeof(*run));
	}
	if (meta) {
		store_meta_release(&e->meta);
		e->meta = *meta;
		e->has_meta = 1;
		memset(meta, 0, sizeof(*meta));
	}
	return;
out:
	store_run_release(run);
	store_meta_release(meta);
}

int postgres_cache_take(struct store_conn *c, struct store_run *run, struct store_meta *meta,
			int64_t id)
{
	struct pg_cached_run *e = c->reading ? run_find(c, id) : NULL;

	if (!e || (run && !e->has_run) || (meta && !e->has_meta))
		return 0;
	if (run) {
		*run = e->run;
		memset(&e->run, 0, sizeof(e->run));
		e->has_run = 0;
	}
	if (meta) {
		*meta = e->meta;
		memset(&e->meta, 0, sizeof(e->meta));
		e->has_meta = 0;
	}
	return 1;
}

/* ---- durations ------------------------------------------------------------ */

static int same_ranks(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

void postgres_blobs_expect(struct store_conn *c, int64_t run_id, const char *ranks,
			   const struct store_region_stats *regs, size_t n)
{
	struct pg_blob_cache *b = &c->blobs;
	size_t i, len = 0;

	blobs_release(b);
	if (!c->reading || !n)
		return;
	b->order = malloc(n * sizeof(*b->order));
	b->pos = malloc(n * sizeof(*b->pos));
	b->ranks = ranks ? util_strdup(ranks) : NULL;
	if (!b->order || !b->pos || (ranks && !b->ranks)) {
		/* only a cache: without it every region is read alone */
		blobs_release(b);
		return;
	}
	/* the regions summary_run() asks durations for */
	for (i = 0; i < n; i++)
		if (regs[i].has_events && regs[i].calls > 0) {
			b->order[len] = regs[i].region_id;
			b->pos[len].id = regs[i].region_id;
			b->pos[len].idx = len;
			len++;
		}
	qsort(b->pos, len, sizeof(*b->pos), rows_series_cmp_key);
	b->n = len;
	b->run_id = run_id;
}

/* The blobs of order[from..from + POSTGRES_BLOB_CHUNK) in one query. */
static int blobs_load(struct store_conn *c, size_t from)
{
	struct pg_blob_cache *b = &c->blobs;
	size_t to = b->n - from > POSTGRES_BLOB_CHUNK ? from + POSTGRES_BLOB_CHUNK : b->n;
	struct pg_params p;
	char *ids;
	int failed, ret;

	PQclear(b->r);
	b->r = NULL;
	b->lo = b->hi = 0;
	ids = postgres_array(b->order + from, to - from, &failed);
	if (failed)
		return err_nomem();
	pp_init(&p);
	pp_int(&p, b->run_id);
	pp_text(&p, ids);
	pp_text(&p, b->ranks);
	/* the blob of each row by its primary key: as a join, the planner
	 * reads the whole durations table once the rows are many (all ranks),
	 * 4x slower; a row without durations has a NULL blob */
	ret = postgres_exec(c, &b->r,
			    "SELECT t.region_id, (SELECT d.data FROM timings_durations AS d WHERE "
			    "d.timing_id = t.id) FROM timings AS t WHERE t.run_id = $1 AND "
			    "t.region_id = ANY($2::bigint[]) AND ($3::bigint[] IS NULL OR t.rank = "
			    "ANY($3::bigint[])) ORDER BY t.region_id, t.id",
			    &p, 1, "read");
	free(ids);
	if (!ret) {
		b->lo = from;
		b->hi = to;
	}
	return ret;
}

/* The first row of b->r of region (rows are by region id), or the number
 * of rows when there is none. */
static int blobs_first_row(const struct pg_blob_cache *b, int64_t region)
{
	int lo = 0, hi = PQntuples(b->r), mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (pg_bin_int(b->r, mid, 0) < region)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int postgres_blobs_get(struct store_conn *c, int *hit, struct i64vec *out, struct i64vec *ends,
		       int64_t run_id, int64_t region_id, const char *ranks)
{
	struct pg_blob_cache *b = &c->blobs;
	size_t idx;
	int row, ret = 0;

	*hit = 0;
	if (!c->reading || !b->n || b->run_id != run_id || !same_ranks(b->ranks, ranks))
		return 0;
	idx = rows_series_find(b->pos, b->n, region_id);
	if (idx == SIZE_MAX)
		return 0;
	*hit = 1;
	if (!b->r || idx < b->lo || idx >= b->hi)
		ret = blobs_load(c, idx);
	for (row = ret ? 0 : blobs_first_row(b, region_id);
	     !ret && row < PQntuples(b->r) && pg_bin_int(b->r, row, 0) == region_id; row++) {
		struct rows_row cur = pg_bin_row(b->r, row);

		if (PQgetisnull(b->r, row, 1))
			continue;
		ret = rows_blob_append(out, &cur, 1, c->location, run_id);
		if (!ret && ends)
			ret = i64vec_push(ends, (int64_t)out->len);
	}
	return ret;
}
