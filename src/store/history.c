/*
 * history.c - regions across runs: store_region_history() and
 * store_region_series(), in the front end over any backend (see
 * front.h).
 *
 * History: one statement over the stored all-ranks totals (or the timings
 * rows of the ranks) gives one row per (region, run), numbered newest
 * first per region for the --limit; with a rank set and durations asked
 * for, one more decodes the duration blobs of all those rows.
 *
 * Series (for "changes"): the selected runs, the region names and then
 * the stored totals of those runs, one pass each; the cells are matched to
 * their run and region by id and grouped in memory, with no join, no sort
 * and no string per (region, run).  Both in one read snapshot, and every
 * point checked (verify_stats()).
 */
#include <stdlib.h>
#include <string.h>

#include "scopedb/err.h"
#include "scopedb/store.h"
#include "scopedb/util.h"
#include "store/front.h"
#include "store/rows.h"
#include "store/verify.h"

/* The ids of the regions a history query selects, as they come. */
struct region_ids {
	struct i64vec ids;
	const struct store_history_query *q;
};

static int region_id_row(void *ctx, const struct rows_row *r)
{
	struct region_ids *x = ctx;
	const char *name;
	int keep, ret;

	ret = rows_keep_region(&name, &keep, r, 1, x->q->region ? NULL : x->q->filter, x->q->ctx);
	if (ret || !keep)
		return ret;
	return i64vec_push(&x->ids, r->ops->i64(r, 0));
}

/* The regions q selects into ids; ERR_NOTFOUND when there is none. */
static int history_regions(struct store *st, struct i64vec *ids,
			   const struct store_history_query *q)
{
	struct region_ids x = {{NULL, 0, 0}, q};
	struct store_value v = sql_str(q->region);
	int ret;

	ret = store_sql_run(st, q->region ? SQL_HISTORY_REGION : SQL_HISTORY_REGIONS, &v,
			    q->region ? 1 : 0, region_id_row, &x, NULL);
	*ids = x.ids;
	if (!ret && ids->len == 0) /* a mistyped name: the nearest stored one */
		ret = rows_no_region(store_names_ctx(st), store_names, q->region, q->pattern,
				     st->location);
	return ret;
}

/*
 * The run window of a limited history (--limit N, --history N): the points
 * are each region's newest N among the runs the filter selects, so they
 * all lie in the newest runs of the filter as soon as every region has N
 * of them there.  The window starts at the newest N runs and grows (x4)
 * while a region has fewer points in it and older runs remain, counting
 * only those regions in the runs it adds.  A region present in each run
 * costs N runs; one that is not, a look further back for it alone.
 */

/* A selected region's id and its points in the window so far. */
struct window_count {
	int64_t id, n;
};

static int window_count_cmp(const void *a, const void *b)
{
	const struct window_count *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* The regions still short of points, and what the window has of them. */
struct window_read {
	struct window_count *short_of;
	size_t n;
};

static int window_id_row(void *ctx, const struct rows_row *r)
{
	return i64vec_push(ctx, r->ops->i64(r, 0));
}

static int window_count_row(void *ctx, const struct rows_row *r)
{
	struct window_read *x = ctx;
	struct window_count key = {r->ops->i64(r, 0), 0}, *hit;

	hit = bsearch(&key, x->short_of, x->n, sizeof(key), window_count_cmp);
	if (hit)
		hit->n += r->ops->i64(r, 1);
	return 0;
}

/* The newest limit runs of f into win (newest first). */
static int window_runs(struct store *st, struct i64vec *win, const struct filter *f, int64_t limit)
{
	struct filter g = *f;
	struct store_query sql;
	int ret;

	g.limit = limit;
	win->len = 0;
	store_query_init(&sql);
	store_query_filtered(st, &sql, SQL_HISTORY_WINDOW_HEAD, &g, SQL_RUN_FIND_TAIL);
	ret = store_query_run(st, &sql, 0, window_id_row, win);
	store_query_release(&sql);
	return ret;
}

/* The window of the history of the regions ids over the runs of f (limit
 * > 0) into win, newest first; *all = 1 (win empty) when it takes every
 * run of f. */
static int history_window(struct store *st, struct i64vec *win, int *all, const struct i64vec *ids,
			  const struct filter *f)
{
	struct window_read x = {NULL, ids->len};
	struct store_value v[2];
	int64_t limit = f->limit, *unsat = NULL;
	size_t i, k, done = 0;
	int ret;

	*all = 0;
	x.short_of = util_calloc(ids->len ? ids->len : 1, sizeof(*x.short_of));
	unsat = util_calloc(ids->len ? ids->len : 1, sizeof(*unsat));
	if (!x.short_of || !unsat) {
		ret = err_nomem();
		goto out;
	}
	for (i = 0; i < ids->len; i++)
		x.short_of[i].id = ids->v[i];
	qsort(x.short_of, x.n, sizeof(*x.short_of), window_count_cmp);
	for (;;) {
		ret = window_runs(st, win, f, limit);
		if (ret || win->len == done)
			break;
		for (i = 0; i < x.n; i++)
			unsat[i] = x.short_of[i].id;
		v[0] = sql_ids(win->v + done, win->len - done);
		v[1] = sql_ids(unsat, x.n);
		ret = store_sql_run(st, SQL_HISTORY_COUNTS, v, 2, window_count_row, &x, NULL);
		if (ret)
			break;
		/* keep the regions still short, in id order */
		for (i = k = 0; i < x.n; i++)
			if (x.short_of[i].n < f->limit)
				x.short_of[k++] = x.short_of[i];
		x.n = k;
		if (!x.n || win->len < (size_t)limit)
			break;
		done = win->len;
		limit = limit > INT64_MAX / 4 ? INT64_MAX : limit * 4;
	}
	/* every run of f: no list of them */
	if (!ret && x.n && win->len < (size_t)limit) {
		*all = 1;
		win->len = 0;
	}
out:
	free(x.short_of);
	free(unsat);
	return ret;
}

/* Append the window win (not all) to a run condition of sql. */
static void window_where(struct store *st, struct store_query *sql, const struct i64vec *win,
			 int all)
{
	if (all)
		return;
	store_query_put(st, sql, SQL_W_IDS);
	store_query_param(st, sql, sql_ids(win->v, win->len));
	store_query_put(st, sql, SQL_W_IDS_END);
}

/* The blobs of the points, matched to them through an index. */
struct point_blobs {
	struct store_history_point **index;
	size_t n;
	const char *location;
};

static int point_blob_row(void *ctx, const struct rows_row *r)
{
	struct point_blobs *x = ctx;
	struct store_history_point *hit;

	hit = rows_point_find(x->index, x->n, r->ops->i64(r, 0), r->ops->i64(r, 1));
	if (!hit)
		return 0; /* a run beyond the limit */
	return rows_blob_append(&hit->durations, r, 2, x->location, hit->run_id);
}

/* Decode the duration blobs of the points pts[0..n) (one statement over
 * all regions and runs), each point's sorted. */
static int history_durations(struct store *st, struct store_history_point *pts, size_t n,
			     const struct i64vec *ids, const struct store_history_query *q,
			     const struct i64vec *win, int all)
{
	struct point_blobs x = {NULL, n, st->location};
	struct store_query sql;
	size_t i;
	int ret;

	x.index = rows_point_index(pts, n);
	if (!x.index)
		return ERR_NOMEM;
	store_query_init(&sql);
	store_query_value(&sql, sql_ids(ids->v, ids->len));
	store_query_value(&sql, sql_ids(q->ranks, q->nranks));
	store_query_put(st, &sql, SQL_HISTORY_BLOBS_HEAD);
	store_where(st, &sql, q->runs);
	window_where(st, &sql, win, all);
	store_query_put(st, &sql, SQL_W_END);
	ret = store_query_run(st, &sql, SQL_BINARY, point_blob_row, &x);
	for (i = 0; !ret && i < n; i++)
		util_sort_i64(pts[i].durations.v, pts[i].durations.len);
	store_query_release(&sql);
	free(x.index);
	return ret;
}

/* A row of the history statement into a point (store_rows); ctx: whether
 * it has the stored percentiles. */
static int point_decode(void *ctx, void *elem, const struct rows_row *r)
{
	return rows_history_point(elem, r, *(const int *)ctx);
}

int store_region_history(struct store *st, struct store_history_point **out, size_t *n,
			 const struct store_history_query *q)
{
	int quantiles = !q->ranks;
	struct store_rows x = STORE_ROWS(struct store_history_point, point_decode, &quantiles);
	struct store_query sql;
	struct i64vec ids, win;
	size_t i;
	int own = 0, all = 1, ret;

	*out = NULL;
	*n = 0;
	i64vec_init(&ids);
	i64vec_init(&win);
	store_query_init(&sql);
	/* one snapshot for the region list, the points and the blobs */
	ret = store_snapshot_begin(st, &own);
	if (!ret)
		ret = history_regions(st, &ids, q);
	if (!ret && q->runs && q->runs->limit > 0)
		ret = history_window(st, &win, &all, &ids, q->runs);
	if (!ret) {
		store_query_value(&sql, sql_ids(ids.v, ids.len));
		store_query_value(&sql, sql_ids(q->ranks, q->nranks));
		store_query_value(&sql, sql_int(q->runs ? q->runs->limit : 0));
		store_query_put(st, &sql, SQL_HISTORY_HEAD);
		store_where(st, &sql, q->runs);
		window_where(st, &sql, &win, all);
		store_query_put(st, &sql, SQL_HISTORY_MID);
		store_query_put(st, &sql, q->ranks ? SQL_HISTORY_RANKS : SQL_HISTORY_ALL);
		store_query_put(st, &sql, SQL_HISTORY_TAIL);
		ret = store_query_run(st, &sql, 0, store_rows_push, &x);
	}
	/* all ranks: the percentiles are stored; no blob is read */
	if (!ret && q->durations && x.n && q->ranks)
		ret = history_durations(st, x.v, x.n, &ids, q, &win, all);
	store_snapshot_end(st, own);
	for (i = 0; !ret && i < x.n; i++)
		ret = verify_stats(&((struct store_history_point *)x.v)[i].stats,
				   ((struct store_history_point *)x.v)[i].run_id, st->location);
	store_query_release(&sql);
	i64vec_release(&ids);
	i64vec_release(&win);
	if (ret) {
		store_history_free(x.v, x.n);
		return ret;
	}
	*out = x.v;
	*n = x.n;
	return 0;
}

/* ---- the series of every region (store_region_series()) ------------------ */

/* The series being read: its runs and regions by id. */
struct series_read {
	struct store_series *out;
	struct rows_series_key *runs, *regions;
	size_t cap, kcap;
	store_region_filter filter;
	void *ctx;
};

static int series_run_decode(void *ctx, void *elem, const struct rows_row *r)
{
	(void)ctx;
	return rows_series_run(elem, r);
}

/* The runs f selects, oldest first (the newest f->limit of them), into
 * out->runs; x->runs = (id, index) sorted by id. */
static int series_runs(struct store *st, struct series_read *x, const struct filter *f)
{
	struct store_rows runs = STORE_ROWS(struct store_series_run, series_run_decode, NULL);
	struct store_series *out = x->out;
	struct store_series_run tmp;
	struct store_query sql;
	size_t i, n;
	int ret;

	store_query_init(&sql);
	store_query_filtered(st, &sql, SQL_SERIES_RUNS_HEAD, f, SQL_SERIES_RUNS_TAIL);
	ret = store_query_run(st, &sql, 0, store_rows_push, &runs);
	store_query_release(&sql);
	out->runs = runs.v;
	n = out->nruns = runs.n;
	/* newest first from the store: oldest first in the series */
	for (i = 0; i < n / 2; i++) {
		tmp = out->runs[i];
		out->runs[i] = out->runs[n - 1 - i];
		out->runs[n - 1 - i] = tmp;
	}
	if (!ret && !(x->runs = util_calloc(n ? n : 1, sizeof(*x->runs))))
		ret = ERR_NOMEM;
	for (i = 0; !ret && i < n; i++)
		x->runs[i] = (struct rows_series_key){out->runs[i].id, i};
	if (!ret)
		qsort(x->runs, n, sizeof(*x->runs), rows_series_cmp_key);
	return ret;
}

static int series_region_row(void *ctx, const struct rows_row *r)
{
	struct series_read *x = ctx;
	struct store_series *out = x->out;
	struct rows_series_key *k;
	const char *name;
	char **slot;
	size_t nkeys = out->nregions;
	int keep, ret;

	ret = rows_keep_region(&name, &keep, r, 1, x->filter, x->ctx);
	if (ret || !keep)
		return ret;
	k = util_push(&x->regions, &x->kcap, &nkeys, sizeof(*k));
	slot = k ? util_push(&out->names, &x->cap, &out->nregions, sizeof(*slot)) : NULL;
	if (!slot)
		return ERR_NOMEM;
	k->id = r->ops->i64(r, 0);
	k->idx = out->nregions - 1;
	*slot = util_strdup(name);
	if (!*slot) {
		out->nregions--;
		return ERR_NOMEM;
	}
	return 0;
}

static int series_cell_row(void *ctx, const struct rows_row *r)
{
	struct series_read *x = ctx;
	struct store_series *out = x->out;
	size_t run = rows_series_find(x->runs, out->nruns, r->ops->i64(r, 0));
	size_t reg = rows_series_find(x->regions, out->nregions, r->ops->i64(r, 1));
	struct store_series_cell *c;

	if (run == SIZE_MAX || reg == SIZE_MAX)
		return 0; /* a region the filter left out */
	c = util_push(&out->cells, &x->cap, &out->ncells, sizeof(*c));
	if (!c)
		return ERR_NOMEM;
	rows_series_cell(c, run, reg, r);
	return 0;
}

int store_region_series(struct store *st, struct store_series *out, const struct filter *f,
			store_region_filter filter, void *ctx)
{
	struct series_read x = {out, NULL, NULL, 0, 0, filter, ctx};
	struct store_value v;
	int64_t *ids = NULL;
	size_t i;
	int own = 0, ret;

	memset(out, 0, sizeof(*out));
	ret = store_snapshot_begin(st, &own);
	if (!ret)
		ret = series_runs(st, &x, f);
	if (!ret)
		ret = store_sql_run(st, SQL_SERIES_REGIONS, NULL, 0, series_region_row, &x, NULL);
	if (!ret && out->nregions)
		qsort(x.regions, out->nregions, sizeof(*x.regions), rows_series_cmp_key);
	out->nselected = out->nregions;
	if (!ret && !(ids = util_calloc(out->nruns ? out->nruns : 1, sizeof(*ids))))
		ret = ERR_NOMEM;
	for (i = 0; !ret && i < out->nruns; i++)
		ids[i] = out->runs[i].id;
	v = sql_ids(ids, out->nruns);
	x.cap = 0;
	if (!ret)
		ret = store_sql_run(st, SQL_SERIES_CELLS, &v, 1, series_cell_row, &x, NULL);
	if (!ret)
		ret = rows_series_group(out);
	store_snapshot_end(st, own);
	for (i = 0; !ret && i < out->ncells; i++)
		ret = out->cells[i].run < out->nruns && out->cells[i].region < out->nregions
			  ? verify_stats(&out->cells[i].stats, out->runs[out->cells[i].run].id,
					 st->location)
			  : err_set(ERR_STORE, "internal error: a series cell out of range");
	free(ids);
	free(x.runs);
	free(x.regions);
	if (ret)
		store_series_release(out);
	return ret;
}
