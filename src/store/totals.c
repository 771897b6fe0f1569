/*
 * totals.c - a run's all-ranks region totals (run_regions), held by the
 * store's front end while the run's timings rows are written and written
 * once, with their percentiles, when the run is finished (finish.c); see
 * front.h.
 *
 * Each timings row added (store_add_timing()) is added up into its
 * region's totals as SQL's sum(), min(), max() and count() over the rows
 * would have them (a total past INT64_MAX is refused, as SQL refuses it).
 * The run_regions rows used to be an INSERT ... SELECT over the timings
 * rows just written and their percentiles an UPDATE of those rows, a
 * third of PostgreSQL's time for a 10,000-region file.  A run whose rows
 * were not added in this transaction (a schema upgrade finishing the
 * runs stored before run_regions) has its totals read back by the same
 * sums in SQL (SQL_TOTALS_GET).
 */
#include <stdlib.h>
#include <string.h>

#include "scopedb/err.h"
#include "scopedb/store.h"
#include "scopedb/util.h"
#include "store/front.h"
#include "store/rows.h"

/* The slot of region_id in the held totals' hash table (a power of 2 long):
 * its index + 1 there, or the empty slot (0) where it goes. */
static size_t totals_slot(const struct store *st, int64_t region_id)
{
	size_t mask = st->ntotslots - 1;
	size_t i = (size_t)(((uint64_t)region_id * 0x9e3779b97f4a7c15ull) >> 32) & mask;

	while (st->totslots[i] && st->tots[st->totslots[i] - 1].region_id != region_id)
		i = (i + 1) & mask;
	return i;
}

/* Room for one more region in the held totals, the hash table at most half
 * full. */
static int totals_grow(struct store *st)
{
	size_t n = st->ntotslots ? st->ntotslots : 64, i;

	if (util_grow(&st->tots, &st->captots, st->ntots + 1, sizeof(*st->tots), 64))
		return err_nomem();
	if (2 * (st->ntots + 1) <= st->ntotslots)
		return 0;
	while (2 * (st->ntots + 1) > n)
		n *= 2;
	free(st->totslots);
	st->totslots = calloc(n, sizeof(*st->totslots));
	st->ntotslots = st->totslots ? n : 0;
	if (!st->totslots)
		return err_nomem();
	for (i = 0; i < st->ntots; i++)
		st->totslots[totals_slot(st, st->tots[i].region_id)] = (uint32_t)i + 1;
	return 0;
}

void store_totals_forget(struct store *st)
{
	st->ntots = 0;
	st->tots_run = -1;
	if (st->totslots)
		memset(st->totslots, 0, st->ntotslots * sizeof(*st->totslots));
}

/* The totals of region_id of the held run, new (zero, one more region)
 * when it has none yet; NULL after an error. */
static struct store_region_total *totals_of(struct store *st, int64_t run_id, int64_t region_id)
{
	struct store_region_total *g;
	size_t slot;

	if (st->ntotslots) {
		slot = totals_slot(st, region_id);
		if (st->totslots[slot])
			return &st->tots[st->totslots[slot] - 1];
	}
	/* a new region: room for it first (which may move every slot) */
	if (st->ntots >= UINT32_MAX - 1) {
		err_set(ERR_USAGE, "cannot update store '%s': run %lld has too many regions",
			st->location, (long long)run_id);
		return NULL;
	}
	if (totals_grow(st))
		return NULL;
	slot = totals_slot(st, region_id);
	g = &st->tots[st->ntots++];
	st->totslots[slot] = (uint32_t)st->ntots;
	memset(g, 0, sizeof(*g));
	g->run_id = run_id;
	g->region_id = region_id;
	g->has_events = 1;
	return g;
}

int store_sums_add(struct store_sums *s, int64_t calls, int64_t total, int64_t min, int64_t max,
		   int64_t self)
{
	int64_t c = s->calls, t = s->total, x = s->self;

	if (__builtin_add_overflow(c, calls, &c) || __builtin_add_overflow(t, total, &t) ||
	    (self >= 0 && __builtin_add_overflow(x, self, &x)))
		return -1;
	s->calls = c;
	s->total = t;
	s->self = x;
	if (self < 0)
		s->self_unknown = 1;
	if (calls > 0) {
		if (!s->called || min < s->min)
			s->min = min;
		if (!s->called || max > s->max)
			s->max = max;
		s->called++;
	}
	if (total > 0) {
		if (!s->busy_ranks || total > s->busy_max)
			s->busy_max = total;
		s->busy_ranks++;
	}
	s->nranks++;
	return 0;
}

int store_totals_add(struct store *st, const struct store_timing *t)
{
	struct store_region_total *g;
	int64_t gpu_count, gpu_total;

	if (t->run_id != st->tots_run) {
		/* another run: this one's totals start here */
		store_totals_forget(st);
		st->tots_run = t->run_id;
	}
	g = totals_of(st, t->run_id, t->region_id);
	if (!g)
		return err_code();
	gpu_count = g->gpu_count;
	gpu_total = g->gpu_total;
	/* the profile's numbers, not the store, are past what a store keeps:
	 * ERR_FORMAT, which ingest words with the file's and region's names */
	if (__builtin_add_overflow(gpu_count, (int64_t)t->gpu_count, &gpu_count) ||
	    __builtin_add_overflow(gpu_total, t->gpu_total, &gpu_total))
		return err_set(ERR_FORMAT,
			       "a region's GPU times summed over its ranks pass 2^63 ns "
			       "(292 years), more than a store keeps");
	if (store_sums_add(&g->s, (int64_t)t->calls, t->total, t->min, t->max, t->exclusive))
		return err_set(ERR_FORMAT,
			       "a region's times summed over its ranks pass 2^63 ns (292 "
			       "years), more than a store keeps");
	g->gpu_count = gpu_count;
	g->gpu_total = gpu_total;
	if (!t->has_events)
		g->has_events = 0;
	return 0;
}

/* A row of SQL_TOTALS_GET into the held totals. */
static int totals_row(void *ctx, const struct rows_row *r)
{
	struct store *st = ctx;
	struct store_region_total *g = totals_of(st, st->tots_run, r->ops->i64(r, 0));

	if (!g)
		return err_code();
	g->has_events = r->ops->i64(r, 1) != 0;
	g->s.calls = r->ops->i64(r, 2);
	g->s.total = r->ops->i64(r, 3);
	g->s.called = r->ops->i64(r, 4);
	g->s.min = g->s.called ? r->ops->i64(r, 5) : 0;
	g->s.max = g->s.called ? r->ops->i64(r, 6) : 0;
	g->gpu_count = r->ops->i64(r, 7);
	g->gpu_total = r->ops->i64(r, 8);
	g->s.busy_ranks = r->ops->i64(r, 9);
	g->s.busy_max = g->s.busy_ranks ? r->ops->i64(r, 10) : 0;
	g->s.nranks = r->ops->i64(r, 11);
	g->s.self_unknown = r->ops->i64(r, 12) != 0;
	g->s.self = g->s.self_unknown ? 0 : r->ops->i64(r, 13);
	return 0;
}

/* qsort() by region id. */
static int cmp_total(const void *a, const void *b)
{
	int64_t x = ((const struct store_region_total *)a)->region_id;
	int64_t y = ((const struct store_region_total *)b)->region_id;

	return (x > y) - (x < y);
}

int store_totals_get(struct store *st, int64_t run_id, struct store_region_total **out, size_t *n)
{
	struct store_value v = sql_int(run_id);
	int ret = 0;

	if (st->tots_run != run_id) {
		/* not added in this transaction: the same sums, by SQL, in place
		 * of any stored (a run finished again) */
		store_totals_forget(st);
		st->tots_run = run_id;
		ret = store_sql_run(st, SQL_TOTALS_CLEAR, &v, 1, NULL, NULL, NULL);
		if (!ret)
			ret = store_sql_run(st, SQL_TOTALS_GET, &v, 1, totals_row, st, NULL);
	}
	if (ret) {
		store_totals_forget(st);
		return ret;
	}
	/* by region id, as finish.c looks them up; the hash table is done */
	if (st->ntots)
		qsort(st->tots, st->ntots, sizeof(*st->tots), cmp_total);
	if (st->totslots)
		memset(st->totslots, 0, st->ntotslots * sizeof(*st->totslots));
	st->tots_run = -2; /* no more rows can be added to these */
	*out = st->tots;
	*n = st->ntots;
	return 0;
}

/* A run_regions row in the order of SQL_RUN_REGIONS_ROW_COLUMNS. */
static void total_cells(struct store_cells *c, const void *row)
{
	const struct store_region_total *g = row;

	store_cell_int(c, g->run_id);
	store_cell_int(c, g->region_id);
	store_cell_flag(c, g->has_events);
	store_cell_int(c, g->gpu_count);
	store_cell_int(c, g->gpu_total);
	store_cell_sums(c, &g->s);
	store_cell_quantiles(c, g->q, g->has_q);
}

int store_totals_put(struct store *st, int64_t run_id)
{
	struct store_value v[3];
	int64_t calls = 0, changed = 0;
	size_t i;
	int ret = 0;

	for (i = 0; i < st->ntots; i++)
		if (__builtin_add_overflow(calls, st->tots[i].s.calls, &calls))
			return err_set(ERR_USAGE,
				       "cannot update store '%s': the calls of run %lld are out of "
				       "range",
				       st->location, (long long)run_id);
	ret = store_write_cells(st, STORE_TABLE_RUN_REGIONS, st->tots, sizeof(*st->tots), st->ntots,
				total_cells);
	v[0] = sql_int(run_id);
	v[1] = sql_int((int64_t)st->ntots);
	v[2] = sql_int(calls);
	if (!ret)
		ret = store_sql_run(st, SQL_TOTALS_COUNTS, v, 3, NULL, NULL, &changed);
	if (!ret && changed == 0)
		ret = err_set(ERR_NOTFOUND, "cannot update store '%s': no run %lld", st->location,
			      (long long)run_id);
	store_totals_forget(st);
	return ret;
}

/* ---- rows of cells ----------------------------------------------------------- */

/* The next cell of c; past STORE_MAX_CELLS one that is counted but not
 * kept, so that a backend refuses the row rather than write past v[]. */
static struct store_cell *cell_next(struct store_cells *c)
{
	size_t i = c->n++;

	return &c->v[i < STORE_MAX_CELLS ? i : STORE_MAX_CELLS];
}

void store_cell_int_or_null(struct store_cells *c, int64_t v, int null)
{
	struct store_cell *x = cell_next(c);

	x->type = null ? STORE_CELL_NULL : STORE_CELL_INT;
	x->i = v;
}

void store_cell_flag(struct store_cells *c, int v)
{
	struct store_cell *x = cell_next(c);

	x->type = STORE_CELL_FLAG;
	x->i = v ? 1 : 0;
}

void store_cell_int(struct store_cells *c, int64_t v)
{
	store_cell_int_or_null(c, v, 0);
}

void store_cell_quantiles(struct store_cells *c, const double q[3], int has_q)
{
	int k;

	for (k = 0; k < 3; k++) {
		struct store_cell *x = cell_next(c);

		x->type = has_q ? STORE_CELL_REAL : STORE_CELL_NULL;
		x->d = q[k];
	}
}

void store_cell_sums(struct store_cells *c, const struct store_sums *s)
{
	int none = s->nranks == 0;

	store_cell_int_or_null(c, s->calls, none);
	store_cell_int_or_null(c, s->total, none);
	store_cell_int_or_null(c, s->min, none || !s->called);
	store_cell_int_or_null(c, s->max, none || !s->called);
	store_cell_int_or_null(c, s->busy_ranks, none);
	store_cell_int_or_null(c, s->busy_max, none || !s->busy_ranks);
	store_cell_int(c, s->nranks);
	store_cell_int_or_null(c, s->self, none || s->self_unknown);
}

/* Rows turned into cells at once by store_write_cells(). */
#define CELLS_CHUNK 256

int store_write_cells(struct store *st, enum store_table table, const void *rows, size_t size,
		      size_t n, void (*fill)(struct store_cells *c, const void *row))
{
	struct store_cells *c;
	size_t i, k, m;
	int ret = 0;

	if (!n)
		return 0;
	c = malloc((n < CELLS_CHUNK ? n : CELLS_CHUNK) * sizeof(*c));
	if (!c)
		return err_nomem();
	for (i = 0; !ret && i < n; i += m) {
		m = n - i < CELLS_CHUNK ? n - i : CELLS_CHUNK;
		for (k = 0; k < m; k++) {
			c[k].n = 0;
			fill(&c[k], (const char *)rows + (i + k) * size);
		}
		ret = st->be->write_rows(st->conn, table, c, m);
	}
	free(c);
	return ret;
}
