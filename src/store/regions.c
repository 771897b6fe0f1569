/*
 * regions.c - regions and their rows: region ids, timings rows, the
 * per-region aggregates and durations of diff, check and show, the
 * per-rank totals, whole rows for copying a run, and the storage side of
 * finishing a run, in the front end over any backend (see front.h).
 *
 * Region ids are cached for the write transaction (emptied by every
 * begin, commit and rollback, so no id of a rolled-back row survives);
 * where each statement costs a round trip (STORE_READ_AHEAD), the first
 * lookup reads every stored region into that cache, so that an ingest
 * asks the store once, not once per region.  New regions, timings rows
 * and their blobs go to the backend's bulk writer.  Every aggregate, per-rank
 * total and timings row read is checked (verify.h) before the caller sees
 * it, and every blob as it decodes.  The durations of a region come
 * from the blobs the read snapshot read ahead when the backend asks for
 * that (ahead.c), else from one statement per region.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "scopedb/err.h"
#include "scopedb/store.h"
#include "scopedb/util.h"
#include "store/front.h"
#include "store/rows.h"
#include "store/verify.h"

/* ---- writing a run ------------------------------------------------------- */

/* Cache name -> id in the write transaction. */
static int region_cache(struct store *st, const char *name, int64_t id)
{
	size_t k;
	int ret = strmap_intern(&k, &st->names, name);

	if (!ret && k == st->ids.len)
		ret = i64vec_push(&st->ids, id);
	return ret;
}

static int region_all_row(void *ctx, const struct rows_row *r)
{
	const char *name = r->ops->text(r, 1);

	return name ? region_cache(ctx, name, r->ops->i64(r, 0)) : 0;
}

/* Every stored region into the cache of the write transaction. */
static int region_read_all(struct store *st)
{
	int ret = store_sql_run(st, SQL_REGION_ALL, NULL, 0, region_all_row, st, NULL);

	st->all_regions = !ret;
	return ret;
}

int store_region_id(struct store *st, int64_t *out, const char *name)
{
	struct store_value v = sql_str(name);
	struct store_region_row g;
	size_t k = st->writing ? strmap_find(&st->names, name) : STRMAP_NONE;
	int found = 0, ret;

	if (k == STRMAP_NONE && (ret = verify_text("region name", name)) != 0)
		return ret;
	if (k == STRMAP_NONE && st->writing && !st->all_regions &&
	    (st->be->caps & STORE_READ_AHEAD)) {
		ret = region_read_all(st);
		if (ret)
			return ret;
		k = strmap_find(&st->names, name);
	}
	if (k != STRMAP_NONE && k < st->ids.len) {
		*out = st->ids.v[k];
		return 0;
	}
	ret = st->all_regions ? 0 : store_sql_int(st, out, &found, SQL_REGION_FIND, &v, 1);
	if (!ret && !found && !st->next_region)
		ret = store_sql_int(st, &st->next_region, NULL, SQL_REGION_NEXT, NULL, 0);
	if (!ret && !found) {
		g.id = st->next_region;
		g.name = name;
		ret = st->be->write_rows(st->conn, STORE_TABLE_REGIONS, &g, 1);
		*out = st->next_region;
		/* counted on only inside the transaction */
		st->next_region = st->writing && !ret ? st->next_region + 1 : 0;
	}
	if (!ret && st->writing)
		ret = region_cache(st, name, *out);
	if (ret)
		*out = 0;
	return ret;
}

int store_check_add(const struct store *st, const char *what, uint64_t a, uint64_t b)
{
	if (!st->writing)
		return err_set(ERR_USAGE, "cannot update store '%s': %s need a transaction",
			       st->location, what);
	if (a > (uint64_t)INT64_MAX || b > (uint64_t)INT64_MAX)
		return err_set(ERR_USAGE, "cannot update store '%s': call count out of range",
			       st->location);
	return 0;
}

int store_add_timing(struct store *st, const struct store_timing *t)
{
	int ret = store_check_add(st, "timings", t->calls, t->gpu_count);

	if (!ret)
		ret = verify_timing_text(t);
	if (!ret)
		ret = st->be->write_rows(st->conn, STORE_TABLE_TIMINGS, t, 1);
	/* its region's totals over all ranks (totals.c) */
	return ret ? ret : store_totals_add(st, t);
}

/* ---- finishing a run (finish.c) ------------------------------------------- */

int store_scan_blobs(struct store *st, int64_t run_id, store_blob_fn fn, void *ctx)
{
	return st->be->scan_blobs(st->conn, run_id, fn, ctx);
}

/* Where a statement costs a round trip, one (PATH_QUANTILES_MANY) for all
 * n paths ids[i]; elsewhere (SQLite) one (PATH_QUANTILES_PUT) per path,
 * prepared once, which costs less than an UPDATE ... FROM a list. */
int store_put_path_quantiles(struct store *st, int64_t run_id, const int64_t *ids, const double *q,
			     size_t n)
{
	struct store_value v[5];
	double *cols = NULL;
	size_t i;
	int ret = 0;

	if (!(st->be->caps & STORE_READ_AHEAD) || n < 2) {
		for (i = 0; !ret && i < n; i++) {
			v[0] = sql_int(run_id);
			v[1] = sql_int(ids[i]);
			v[2] = sql_real(q[3 * i]);
			v[3] = sql_real(q[3 * i + 1]);
			v[4] = sql_real(q[3 * i + 2]);
			ret = store_sql_run(st, SQL_PATH_QUANTILES_PUT, v, 5, NULL, NULL, NULL);
		}
		return ret;
	}
	cols = malloc(3 * n * sizeof(*cols));
	if (!cols)
		return err_nomem();
	for (i = 0; i < n; i++) {
		cols[i] = q[3 * i];
		cols[n + i] = q[3 * i + 1];
		cols[2 * n + i] = q[3 * i + 2];
	}
	v[0] = sql_int(run_id);
	v[1] = sql_ids(ids, n);
	v[2] = sql_reals(cols, n);
	v[3] = sql_reals(cols + n, n);
	v[4] = sql_reals(cols + 2 * n, n);
	ret = store_sql_run(st, SQL_PATH_QUANTILES_MANY, v, 5, NULL, NULL, NULL);
	free(cols);
	return ret;
}

/* ---- per-region aggregates and durations ----------------------------------- */

/* Which regions store_region_stats() keeps, and how it reads them. */
struct stats_read {
	store_region_filter filter;
	void *ctx;
	int quantiles; /* all ranks: p50/p95/p99 follow the name */
};

static int stats_decode(void *ctx, void *elem, const struct rows_row *r)
{
	struct stats_read *x = ctx;
	const char *name;
	int keep, ret;

	/* the self time sits between the aggregates and the name */
	int self_col = 1 + SQL_REGION_AGGREGATE_COLUMNS;
	struct store_region_stats *g = elem;

	ret = rows_keep_region(&name, &keep, r, self_col + 1, x->filter, x->ctx);
	if (ret || !keep)
		return ret ? ret : STORE_ROW_SKIP;
	ret = rows_region(g, r, name, x->quantiles);
	g->parent_id = -1;
	g->has_self = !r->ops->null(r, self_col);
	g->self = g->has_self ? r->ops->i64(r, self_col) : 0;
	return ret;
}

int store_region_stats(struct store *st, struct store_region_stats **out, size_t *n, int64_t run_id,
		       const int64_t *ranks, size_t nranks, store_region_filter filter, void *ctx)
{
	struct stats_read how = {filter, ctx, !ranks};
	struct store_rows x = STORE_ROWS(struct store_region_stats, stats_decode, &how);
	struct store_value v[] = {sql_int(run_id), sql_ids(ranks, nranks)};
	struct store_region_stats *regs;
	size_t i;
	int ret;

	ret = store_sql_run(st, ranks ? SQL_REGION_STATS : SQL_REGION_STATS_ALL, v, ranks ? 2 : 1,
			    store_rows_push, &x, NULL);
	regs = x.v;
	/* sorted here rather than by SQL: no temporary b-tree per query */
	if (!ret)
		rows_sort_regions(regs, x.n);
	for (i = 0; !ret && i < x.n; i++)
		ret = verify_stats(&regs[i], run_id, st->location);
	if (ret) {
		store_region_stats_free(regs, x.n);
		regs = NULL;
		x.n = 0;
	} else if (st->be->caps & STORE_READ_AHEAD) {
		ahead_blobs_expect(st, run_id, ranks, nranks, regs, x.n);
	}
	*out = regs;
	*n = x.n;
	return ret;
}

int store_region_duration_runs(struct store *st, struct i64vec *out, struct i64vec *ends,
			       int64_t run_id, int64_t region_id, const int64_t *ranks,
			       size_t nranks)
{
	struct rows_blob_list x = {out, ends, st->location, run_id};
	struct store_value v[] = {sql_int(run_id), sql_int(region_id), sql_ids(ranks, nranks)};
	size_t start = out->len, ends_start = ends ? ends->len : 0;
	int hit, ret;

	ret = ahead_blobs_get(st, &hit, out, ends, run_id, region_id, ranks, nranks);
	if (!hit)
		ret = store_sql_run(st, SQL_REGION_DURATIONS, v, 3, rows_blob_list_row, &x, NULL);
	if (ret) {
		out->len = start;
		if (ends)
			ends->len = ends_start;
	}
	return ret;
}

int store_region_durations(struct store *st, struct i64vec *out, int64_t run_id, int64_t region_id,
			   const int64_t *ranks, size_t nranks)
{
	size_t start = out->len;
	int ret;

	/* the rows' ascending runs, sorted together here */
	ret = store_region_duration_runs(st, out, NULL, run_id, region_id, ranks, nranks);
	if (!ret)
		util_sort_i64(out->v + start, out->len - start);
	return ret;
}

/* ---- per-rank totals and whole rows, checked row by row -------------------- */

/* A caller's fn and what its rows are checked against. */
struct row_check {
	store_rank_total_fn rank_fn; /* one of these */
	store_timing_fn timing_fn;
	void *ctx;
	int64_t run_id, num_ranks;
	const char *location;
};

/* The rank count of run_id into check (checked: ERR_NOTFOUND when the
 * run is gone). */
static int row_check_init(struct store *st, struct row_check *check, int64_t run_id)
{
	struct store_run run;
	int ret = store_get_run(st, &run, run_id);

	check->run_id = run_id;
	check->num_ranks = ret ? 0 : run.num_ranks;
	check->location = st->location;
	store_run_release(&run);
	return ret;
}

/* store_rank_totals(): each row checked against the run's rank count
 * before the caller's fn sees it. */
static int rank_checked(void *ctx, const char *region, int64_t rank, int64_t total_ns)
{
	struct row_check *c = ctx;
	int ret = verify_rank_total(rank, total_ns, region, c->run_id, c->num_ranks, c->location);

	return ret ? ret : c->rank_fn(c->ctx, region, rank, total_ns);
}

static int rank_row(void *ctx, const struct rows_row *r)
{
	const char *name = r->ops->text(r, 0);

	return name ? rank_checked(ctx, name, r->ops->i64(r, 1), r->ops->i64(r, 2)) : err_nomem();
}

int store_rank_totals(struct store *st, int64_t run_id, store_rank_total_fn fn, void *ctx)
{
	struct row_check check = {fn, NULL, ctx, 0, 0, NULL};
	struct store_value v = sql_int(run_id);
	int ret = row_check_init(st, &check, run_id);

	if (ret)
		return ret;
	if (st->be->rank_totals)
		return st->be->rank_totals(st->conn, run_id, rank_checked, &check);
	return store_sql_run(st, SQL_RANK_TOTALS, &v, 1, rank_row, &check, NULL);
}

/* store_region_sources(): one region's location to the caller's fn. */
struct source_ctx {
	store_source_fn fn;
	void *ctx;
};

static int source_row(void *ctx, const struct rows_row *r)
{
	const struct source_ctx *c = ctx;
	const char *name = r->ops->text(r, 0), *file = r->ops->text(r, 1);
	int64_t line = r->ops->null(r, 2) ? -1 : r->ops->i64(r, 2);

	if (!name || !file)
		return err_nomem();
	return c->fn(c->ctx, name, file, line < 0 ? -1 : line);
}

int store_region_sources(struct store *st, int64_t run_id, store_source_fn fn, void *ctx)
{
	struct source_ctx c = {fn, ctx};
	struct store_value v = sql_int(run_id);

	return store_sql_run(st, SQL_REGION_SOURCES, &v, 1, source_row, &c, NULL);
}

/* store_scan_timings(): each row checked before the caller's fn sees it. */
static int timing_row(void *ctx, const struct rows_row *r)
{
	struct row_check *c = ctx;
	struct store_timing t;
	const char *name;
	int ret = rows_timing(&t, &name, r, c->run_id);

	if (!ret)
		ret = verify_timing(&t, name, c->num_ranks, c->location);
	return ret ? ret : c->timing_fn(c->ctx, &t, name);
}

int store_scan_timings(struct store *st, int64_t run_id, store_timing_fn fn, void *ctx)
{
	struct row_check check = {NULL, fn, ctx, 0, 0, NULL};
	struct store_value v = sql_int(run_id);
	int ret = row_check_init(st, &check, run_id);

	return ret ? ret : store_sql_run(st, SQL_SCAN_TIMINGS, &v, 1, timing_row, &check, NULL);
}
