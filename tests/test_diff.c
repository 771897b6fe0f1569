/*
 * test_diff.c - diff and check end to end through the core: multi-rank
 * profiles generated with h5write (GPU data, zero-call regions, regions
 * present on one side only, an all-zero baseline, an aggregate-layout run
 * and a schema-1 copy), ingested into a store, then compare_runs() on the
 * stored runs (selectors) and on the files directly, for every metric, sort,
 * threshold, rank subset, include/exclude pattern and check budget.
 *
 * The expected rows come from a small reference implementation in this file
 * that works on the generated arrays directly (pooling durations, numpy's
 * percentile, the diff/check rules of docs/format.md sections 8 and 9); it shares no code
 * with stats.c or the store's SQL.  Values must agree to a relative 1e-9.
 * Also covered: selector resolution, pins, and the error messages.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scopedb/compare.h"
#include "scopedb/err.h"
#include "h5write.h"
#include "scopedb/ingest.h"
#include "scopedb/select.h"
#include "scopedb/store.h"
#include "testutil.h"
#include "testutil_store.h"

/* ---- generated profiles ------------------------------------------------ */

#define MAXC 24
#define MAXROWS 32

struct gen_row {
	uint32_t rank;
	const char *region;
	size_t calls;
	int64_t starts[MAXC], ends[MAXC], gpu[MAXC];
	int has_gpu;
};

struct gen_prof {
	struct gen_row rows[MAXROWS];
	size_t n;
	int aggregate; /* written as the aggregate layout */
	int schema1;   /* written as schema 1: zero-call rows are not stored */
};

static uint32_t gen_state;

static uint32_t gen_rand(void)
{
	gen_state = gen_state * 1103515245u + 12345u;
	return (gen_state >> 8) & 0xffffff;
}

/* kind: 0 random durations (some 0), 1 all zero, 2 every call lasts fixed */
static void gen_add(struct gen_prof *p, uint32_t rank, const char *region, size_t calls, int gpu,
		    int kind, int64_t fixed)
{
	struct gen_row *r = &p->rows[p->n++];
	int64_t t = 1000000 * (int64_t)(rank + 1);
	size_t c;

	assert_true(p->n <= MAXROWS && calls <= MAXC);
	memset(r, 0, sizeof(*r));
	r->rank = rank;
	r->region = region;
	r->calls = calls;
	r->has_gpu = gpu;
	for (c = 0; c < calls; c++) {
		int64_t d = kind == 1 ? 0 : kind == 2 ? fixed : (int64_t)(gen_rand() % 50000);

		if (kind == 0 && c % 7 == 5)
			d = 0;
		t += (int64_t)(gen_rand() % 1000) + 1;
		r->starts[c] = t;
		r->ends[c] = t + d;
		t += d;
		r->gpu[c] = gpu && c % 3 != 1 ? (int64_t)(gen_rand() % 20000) : -1;
	}
}

static struct gen_prof prof_a, prof_b, prof_c, prof_a1;

static void gen_profiles(void)
{
	uint32_t r;

	memset(&prof_a, 0, sizeof(prof_a));
	memset(&prof_b, 0, sizeof(prof_b));
	gen_state = 12345;
	for (r = 0; r < 4; r++)
		gen_add(&prof_a, r, "solve", 5 + 3 * r, 1, 0, 0);
	gen_add(&prof_a, 0, "solver_setup", 3, 0, 0, 0);
	gen_add(&prof_a, 1, "solver_setup", 4, 0, 0, 0);
	gen_add(&prof_a, 2, "solver_setup", 0, 0, 0, 0); /* 0 calls next to calls */
	gen_add(&prof_a, 0, "io", 4, 0, 0, 0);
	gen_add(&prof_a, 2, "io", 6, 0, 0, 0);
	gen_add(&prof_a, 0, "idle", 0, 0, 0, 0);
	gen_add(&prof_a, 1, "idle", 0, 0, 0, 0);
	gen_add(&prof_a, 1, "gone", 6, 1, 0, 0);
	gen_add(&prof_a, 0, "zero_base", 2, 0, 1, 0);
	gen_add(&prof_a, 1, "zero_base", 3, 0, 1, 0);
	gen_add(&prof_a, 0, "balanced", 2, 0, 2, 1500);
	gen_add(&prof_a, 3, "balanced", 3, 0, 2, 1000);
	gen_add(&prof_a, 2, "gpu_only_a", 5, 1, 0, 0);

	gen_state = 777;
	for (r = 0; r < 4; r++)
		gen_add(&prof_b, r, "solve", 6 + r, 1, 0, 0);
	gen_add(&prof_b, 0, "solver_setup", 3, 0, 0, 0);
	gen_add(&prof_b, 1, "solver_setup", 2, 0, 0, 0);
	gen_add(&prof_b, 3, "solver_setup", 5, 0, 0, 0);
	for (r = 0; r < 4; r++)
		gen_add(&prof_b, r, "io", 4, 0, 0, 0);
	gen_add(&prof_b, 0, "idle", 0, 0, 0, 0);
	gen_add(&prof_b, 1, "idle", 0, 0, 0, 0);
	gen_add(&prof_b, 1, "new", 0, 1, 0, 0);
	gen_add(&prof_b, 2, "new", 5, 1, 0, 0);
	gen_add(&prof_b, 3, "new", 2, 1, 0, 0);
	gen_add(&prof_b, 0, "zero_base", 2, 0, 0, 0);
	gen_add(&prof_b, 1, "zero_base", 3, 0, 0, 0);
	gen_add(&prof_b, 0, "balanced", 1, 0, 2, 3000);
	gen_add(&prof_b, 3, "balanced", 2, 0, 2, 1000);
	gen_add(&prof_b, 2, "gpu_only_a", 5, 0, 0, 0);

	prof_c = prof_b;
	prof_c.aggregate = 1;
	prof_a1 = prof_a;
	prof_a1.schema1 = 1;
}

/* Write p to tu_path(name) with metadata label and timestamp. */
static const char *gen_write(const struct gen_prof *p, const char *name, int schema,
			     const char *label, const char *timestamp)
{
	struct h5write_row rows[MAXROWS];
	struct h5write_meta meta[2];
	struct h5write_profile prof;
	struct h5write_opts o;
	const char *path = tu_path(name);
	size_t i;

	memset(rows, 0, sizeof(rows));
	for (i = 0; i < p->n; i++) {
		rows[i].rank = p->rows[i].rank;
		rows[i].region = p->rows[i].region;
		rows[i].calls = p->rows[i].calls;
		rows[i].starts = p->rows[i].starts;
		rows[i].ends = p->rows[i].ends;
		rows[i].gpu = p->rows[i].has_gpu ? p->rows[i].gpu : NULL;
		rows[i].source_line = -1;
	}
	memset(meta, 0, sizeof(meta));
	meta[0].key = "label";
	meta[0].kind = H5WRITE_META_STR;
	meta[0].str = label;
	meta[1].key = "timestamp";
	meta[1].kind = H5WRITE_META_STR;
	meta[1].str = timestamp;
	prof.rows = rows;
	prof.nrows = p->n;
	prof.meta = meta;
	prof.nmeta = 2;
	memset(&o, 0, sizeof(o));
	o.schema = schema;
	o.aggregate = p->aggregate;
	o.gpu = !p->aggregate;
	o.gzip = schema == 2;
	o.mpi_size = 4;
	if (h5write_file(path, &prof, &o))
		fail_msg("h5write_file(%s): %s", path, err_msg());
	return path;
}

/* ---- the reference implementation ------------------------------------- */

struct ref_val {
	int none;
	double v;
};

struct ref_row {
	const char *name;
	struct ref_val a, b, pct;
	double delta;
	int violation;
};

static int ref_rank_selected(uint32_t rank, const int64_t *ranks, size_t nranks)
{
	size_t i;

	if (!ranks)
		return 1;
	for (i = 0; i < nranks; i++)
		if (ranks[i] == (int64_t)rank)
			return 1;
	return 0;
}

static int ref_cmp_i64(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;

	return (a > b) - (a < b);
}

/* 1 when region has a row in the stored file (schema 1 drops 0-call rows). */
static int ref_present(const struct gen_prof *p, const char *region)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		if (!strcmp(p->rows[i].region, region) && (!p->schema1 || p->rows[i].calls))
			return 1;
	return 0;
}

/* One call of a rank for ref_self(): its interval, row and index. */
struct ref_call {
	int64_t s, e;
	size_t row, idx;
};

static int ref_cmp_call(const void *x, const void *y)
{
	const struct ref_call *a = x, *b = y;

	if (a->s != b->s)
		return a->s < b->s ? -1 : 1;
	if (a->e != b->e)
		return a->e > b->e ? -1 : 1;
	if (a->row != b->row)
		return a->row < b->row ? -1 : 1;
	return (a->idx > b->idx) - (a->idx < b->idx);
}

/* The self time of region on p over the selected ranks, straight from
 * docs/format.md sections 10.3 and 10.5: per rank the calls' tree by
 * containment; none when a selected rank with a row of region has no tree
 * (its calls overlap; these files have no exclusive totals). */
static struct ref_val ref_self(const struct gen_prof *p, const char *region, const int64_t *ranks,
			       size_t nranks)
{
	static struct ref_call calls[MAXROWS * MAXC];
	size_t stack[MAXROWS * MAXC];
	int64_t child[MAXROWS * MAXC];
	struct ref_val out = {0, 0.0};
	uint32_t rank;
	size_t i, c, n, top;

	if (p->aggregate)
		return (struct ref_val){1, 0.0};
	for (rank = 0; rank < 8; rank++) {
		int has = 0, overlap = 0;

		for (i = 0; i < p->n; i++)
			has |= p->rows[i].rank == rank && !strcmp(p->rows[i].region, region) &&
			       (!p->schema1 || p->rows[i].calls);
		if (!has || !ref_rank_selected(rank, ranks, nranks))
			continue;
		n = 0;
		for (i = 0; i < p->n; i++)
			for (c = 0; p->rows[i].rank == rank && c < p->rows[i].calls; c++)
				calls[n++] = (struct ref_call){p->rows[i].starts[c],
							       p->rows[i].ends[c], i, c};
		qsort(calls, n, sizeof(calls[0]), ref_cmp_call);
		top = 0;
		for (i = 0; i < n; i++) {
			child[i] = 0;
			while (top) {
				const struct ref_call *t = &calls[stack[top - 1]];

				/* upstream's rule: off when it ends before the new
				 * call ends (at its start: unless it is of zero
				 * length) */
				if (t->e < calls[i].s ||
				    (t->e == calls[i].s && calls[i].e > calls[i].s))
					top--;
				else
					break;
			}
			if (top && calls[i].e > calls[stack[top - 1]].e)
				overlap = 1;
			if (top)
				child[stack[top - 1]] += calls[i].e - calls[i].s;
			stack[top++] = i;
		}
		if (overlap)
			return (struct ref_val){1, 0.0};
		for (i = 0; i < n; i++)
			if (!strcmp(p->rows[calls[i].row].region, region))
				out.v += (double)(calls[i].e - calls[i].s - child[i]) / 1e9;
	}
	return out;
}

/* The metric of region on p over the selected ranks, straight from the
 * definitions of docs/format.md section 8. */
static struct ref_val ref_metric(const struct gen_prof *p, const char *region, enum stats_metric m,
				 const int64_t *ranks, size_t nranks)
{
	int64_t d[MAXROWS * MAXC], totals[MAXROWS];
	size_t nd = 0, nt = 0, ngpu = 0, i, c;
	double gpu_sum = 0, sum = 0, tmax = 0, tsum = 0;
	struct ref_val out = {0, 0.0};

	for (i = 0; i < p->n; i++) {
		const struct gen_row *r = &p->rows[i];
		int64_t rt = 0;

		if (strcmp(r->region, region) || !ref_rank_selected(r->rank, ranks, nranks))
			continue;
		for (c = 0; c < r->calls; c++) {
			d[nd++] = r->ends[c] - r->starts[c];
			rt += r->ends[c] - r->starts[c];
			if (r->has_gpu && r->gpu[c] >= 0) {
				gpu_sum += (double)r->gpu[c] / 1e9;
				ngpu++;
			}
		}
		if (rt > 0)
			totals[nt++] = rt;
	}
	if (m == STATS_CALLS) {
		out.v = (double)nd;
		return out;
	}
	if (nd == 0) {
		out.none = m != STATS_IMBALANCE;
		return out;
	}
	if (m == STATS_SELF)
		return ref_self(p, region, ranks, nranks);
	qsort(d, nd, sizeof(d[0]), ref_cmp_i64);
	for (i = 0; i < nd; i++)
		sum += (double)d[i] / 1e9;
	switch (m) {
	case STATS_TOTAL:
		out.v = sum;
		break;
	case STATS_AVG:
		out.v = sum / (double)nd;
		break;
	case STATS_MIN:
		out.v = (double)d[0] / 1e9;
		break;
	case STATS_MAX:
		out.v = (double)d[nd - 1] / 1e9;
		break;
	case STATS_P50:
	case STATS_P95:
	case STATS_P99: {
		double q = m == STATS_P50 ? 0.50 : m == STATS_P95 ? 0.95 : 0.99;
		double pos = q * (double)(nd - 1);
		size_t lo = (size_t)pos;

		if (p->aggregate) {
			out.none = 1;
			break;
		}
		out.v = lo + 1 < nd ? (double)d[lo] / 1e9 + ((double)d[lo + 1] - (double)d[lo]) /
								1e9 * (pos - (double)lo)
				    : (double)d[lo] / 1e9;
		break;
	}
	case STATS_IMBALANCE:
		for (i = 0; i < nt; i++) {
			double t = (double)totals[i] / 1e9;

			tsum += t;
			tmax = t > tmax ? t : tmax;
		}
		out.v = nt < 2 ? 0.0 : (tmax / (tsum / (double)nt) - 1.0) * 100.0;
		break;
	case STATS_GPU_TOTAL:
	case STATS_GPU_AVG:
		if (p->aggregate || ngpu == 0) {
			out.none = 1;
			break;
		}
		out.v = m == STATS_GPU_TOTAL ? gpu_sum : gpu_sum / (double)ngpu;
		break;
	case STATS_CALLS:
	case STATS_SELF:
		break;
	}
	return out;
}

/* Every region name of a and b, sorted, unique. */
static size_t ref_names(const char **out, const struct gen_prof *a, const struct gen_prof *b)
{
	const struct gen_prof *ps[2] = {a, b};
	size_t n = 0, i, j, k;

	for (k = 0; k < 2; k++)
		for (i = 0; i < ps[k]->n; i++) {
			for (j = 0; j < n; j++)
				if (!strcmp(out[j], ps[k]->rows[i].region))
					break;
			if (j == n)
				out[n++] = ps[k]->rows[i].region;
		}
	/* insertion sort by strcmp */
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && strcmp(out[j - 1], out[j]) > 0; j--) {
			const char *t = out[j];

			out[j] = out[j - 1];
			out[j - 1] = t;
		}
	return n;
}

/* One test case: options plus the hand-written set of regions the
 * include/exclude patterns must select (NULL = all).  Fields left out of
 * a case are 0: sort by delta, no threshold, all ranks, no patterns, diff. */
struct tcase {
	const char *title;
	enum stats_sort sort;
	int has_threshold;
	double threshold;
	const int64_t *ranks;
	size_t nranks;
	const char *inc[2]; /* up to two patterns; the unused ones NULL */
	const char *exc[2];
	const char *const *selected; /* NULL-terminated, or NULL */
	int check;
	double budget;
	int fail_on_new;
};

/* How many of the (at most two) patterns p holds. */
static size_t npatterns(const char *const *p)
{
	return p[0] ? p[1] ? 2 : 1 : 0;
}

static int ref_selected(const struct tcase *t, const char *name)
{
	size_t i;

	if (!t->selected)
		return 1;
	for (i = 0; t->selected[i]; i++)
		if (!strcmp(t->selected[i], name))
			return 1;
	return 0;
}

static double ref_key(const struct ref_row *r, enum stats_sort s, int *none)
{
	*none = s == STATS_SORT_PCT && r->pct.none;
	return s == STATS_SORT_DELTA ? fabs(r->delta) : r->pct.none ? 0.0 : fabs(r->pct.v);
}

/* The expected rows of a case (stable insertion sort, None last). */
static size_t ref_diff(struct ref_row *rows, const struct gen_prof *a, const struct gen_prof *b,
		       enum stats_metric m, const struct tcase *t)
{
	const char *names[2 * MAXROWS];
	size_t nn = ref_names(names, a, b), n = 0, i, j;
	enum stats_sort sort = t->check ? STATS_SORT_PCT : t->sort;

	for (i = 0; i < nn; i++) {
		struct ref_row r;

		if (!ref_selected(t, names[i]))
			continue;
		memset(&r, 0, sizeof(r));
		r.name = names[i];
		r.a.none = r.b.none = 1;
		if (ref_present(a, names[i]))
			r.a = ref_metric(a, names[i], m, t->ranks, t->nranks);
		if (ref_present(b, names[i]))
			r.b = ref_metric(b, names[i], m, t->ranks, t->nranks);
		if (r.a.none && r.b.none)
			continue;
		r.delta = (r.b.none ? 0.0 : r.b.v) - (r.a.none ? 0.0 : r.a.v);
		r.pct.none = r.a.none || r.a.v == 0.0;
		r.pct.v = r.pct.none ? 0.0 : r.delta / r.a.v * 100.0;
		if (!t->check && t->has_threshold && !r.pct.none && fabs(r.pct.v) < t->threshold)
			continue;
		if (t->check)
			r.violation =
			    (!r.pct.none && r.pct.v > t->budget) || (t->fail_on_new && r.a.none);
		rows[n++] = r;
	}
	if (sort != STATS_SORT_NAME)
		for (i = 1; i < n; i++)
			for (j = i; j > 0; j--) {
				int n0, n1;
				double k0 = ref_key(&rows[j - 1], sort, &n0);
				double k1 = ref_key(&rows[j], sort, &n1);
				struct ref_row tmp;

				if (!(n0 && !n1) && !(!n0 && !n1 && k1 > k0))
					break;
				tmp = rows[j];
				rows[j] = rows[j - 1];
				rows[j - 1] = tmp;
			}
	return n;
}

/* ---- comparing the core with the reference ------------------------------- */

static void check_val(const char *what, const char *name, struct stats_val got, struct ref_val want)
{
	if (got.none != want.none)
		fail_msg("%s of '%s': got %s, want %s", what, name, got.none ? "None" : "a value",
			 want.none ? "None" : "a value");
	if (!want.none && fabs(got.v - want.v) > 1e-9 * fabs(want.v) + 1e-15)
		fail_msg("%s of '%s': got %.17g, want %.17g", what, name, got.v, want.v);
}

static const char *db_path;
/* When set, compare_runs() uses this open store instead of opening db_path
 * (both ways are exercised; reusing keeps the test fast). */
static struct store *shared_st;
static char path_a[512], path_b[512], path_c[512], path_a1[512];

static void run_case(const char *arg_a, const char *arg_b, const struct gen_prof *a,
		     const struct gen_prof *b, enum stats_metric m, const struct tcase *t)
{
	struct ref_row want[2 * MAXROWS];
	struct compare_result r;
	struct compare_opts o;
	size_t n, i, nviol = 0;

	n = ref_diff(want, a, b, m, t);
	memset(&o, 0, sizeof(o));
	o.db_path = db_path;
	o.store = shared_st;
	o.includes = t->inc;
	o.ninclude = npatterns(t->inc);
	o.excludes = t->exc;
	o.nexclude = npatterns(t->exc);
	o.ranks = t->ranks;
	o.nranks = t->nranks;
	o.metric = m;
	o.sort = t->sort;
	o.has_threshold = t->has_threshold;
	o.threshold = t->threshold;
	o.check = t->check;
	o.max_regression = t->budget;
	o.fail_on_new = t->fail_on_new;
	if (compare_runs(&r, arg_a, arg_b, &o))
		fail_msg("%s, %s: compare_runs(%s, %s): %s", t->title, stats_metric_name(m), arg_a,
			 arg_b, err_msg());
	if (r.nrows != n) {
		for (i = 0; i < r.nrows; i++)
			print_message("got row %s\n", r.rows[i].name);
		for (i = 0; i < n; i++)
			print_message("want row %s\n", want[i].name);
		fail_msg("%s, %s, %s vs %s: %zu rows, want %zu", t->title, stats_metric_name(m),
			 arg_a, arg_b, r.nrows, n);
	}
	for (i = 0; i < n; i++) {
		const struct stats_row *g = &r.rows[i];

		if (strcmp(g->name, want[i].name))
			fail_msg("%s, %s: row %zu is '%s', want '%s'", t->title,
				 stats_metric_name(m), i, g->name, want[i].name);
		check_val("a", g->name, g->a, want[i].a);
		check_val("b", g->name, g->b, want[i].b);
		check_val("pct", g->name, g->pct, want[i].pct);
		if (fabs(g->delta - want[i].delta) > 1e-9 * fabs(want[i].delta) + 1e-15)
			fail_msg("delta of '%s': got %.17g, want %.17g", g->name, g->delta,
				 want[i].delta);
		if (g->violation != want[i].violation)
			fail_msg("%s, %s: violation of '%s' is %d, want %d", t->title,
				 stats_metric_name(m), g->name, g->violation, want[i].violation);
		nviol += (size_t)want[i].violation;
	}
	assert_int_equal(r.verdict.nviolations, t->check ? nviol : 0);
	assert_int_equal(r.verdict.kind, !t->check ? VERDICT_NONE
					 : nviol   ? VERDICT_FAIL
						   : VERDICT_PASS);
	/* Only in a / b: selected regions present on one side. */
	{
		const char *names[2 * MAXROWS];
		size_t nn = ref_names(names, a, b), ka = 0, kb = 0;

		for (i = 0; i < nn; i++) {
			int pa = ref_present(a, names[i]), pb = ref_present(b, names[i]);

			if (!ref_selected(t, names[i]) || pa == pb)
				continue;
			if (pa) {
				assert_true(ka < r.nonly_a);
				assert_string_equal(r.only_a[ka++], names[i]);
			} else {
				assert_true(kb < r.nonly_b);
				assert_string_equal(r.only_b[kb++], names[i]);
			}
		}
		assert_int_equal(ka, r.nonly_a);
		assert_int_equal(kb, r.nonly_b);
	}
	compare_release(&r);
}

static const int64_t ranks_02[] = {0, 2};
static const int64_t ranks_3[] = {3};
static const int64_t ranks_123[] = {1, 2, 3};
static const char *const sel_solve[] = {"solve", "solver_setup", NULL};
static const char *const sel_io_new_bal[] = {"io", "new", "balanced", NULL};
static const char *const sel_solve_only[] = {"solve", NULL};
static const char *const sel_not_idle_gone[] = {"solve",    "solver_setup", "io",  "zero_base",
						"balanced", "gpu_only_a",   "new", NULL};

static const struct tcase cases[] = {
    {.title = "default"},
    {.title = "sort pct", .sort = STATS_SORT_PCT},
    {.title = "sort name", .sort = STATS_SORT_NAME},
    {.title = "threshold 10", .has_threshold = 1, .threshold = 10.0},
    {.title = "threshold 60 by name",
     .sort = STATS_SORT_NAME,
     .has_threshold = 1,
     .threshold = 60.0},
    {.title = "ranks 0,2", .ranks = ranks_02, .nranks = 2},
    {.title = "ranks 3", .sort = STATS_SORT_PCT, .ranks = ranks_3, .nranks = 1},
    {.title = "include solve", .inc = {"solve"}, .selected = sel_solve},
    {.title = "include io|new, bal",
     .sort = STATS_SORT_NAME,
     .inc = {"io|new", "bal"},
     .selected = sel_io_new_bal},
    {.title = "include solve exclude solver_",
     .inc = {"solve"},
     .exc = {"solver_"},
     .selected = sel_solve_only},
    {.title = "exclude idle|gone",
     .ranks = ranks_123,
     .nranks = 3,
     .exc = {"idle", "gone"},
     .selected = sel_not_idle_gone},
    {.title = "check 0", .check = 1, .budget = 0.0},
    {.title = "check 5 fail-on-new", .check = 1, .budget = 5.0, .fail_on_new = 1},
    {.title = "check 20 ranks 1-3", .ranks = ranks_123, .nranks = 3, .check = 1, .budget = 20.0},
    {.title = "check include solve fail-on-new",
     .inc = {"solve"},
     .selected = sel_solve,
     .check = 1,
     .budget = 0.0,
     .fail_on_new = 1},
    /* check sorts by pct and has no threshold, whatever the options say */
    {.title = "check ignores sort and threshold",
     .sort = STATS_SORT_NAME,
     .has_threshold = 1,
     .threshold = 60.0,
     .check = 1,
     .budget = 10.0},
};

#define NCASES (sizeof(cases) / sizeof(cases[0]))

/* ---- setup -------------------------------------------------------------- */

static void ingest(struct store *st, const char *path, const char *tag, const char *commit,
		   const char *branch, int64_t want_id)
{
	const char *tags[] = {tag};
	struct ingest_opts io;
	struct ingest_result res;

	memset(&io, 0, sizeof(io));
	io.tags = tags;
	io.ntags = 1;
	io.commit = commit;
	io.branch = branch;
	if (ingest_file(&res, st, path, &io))
		fail_msg("ingest %s: %s", path, err_msg());
	assert_int_equal(res.run_id, want_id);
}

static int setup(void **state)
{
	struct store *st = NULL;

	*state = &shared_st; /* closed by tu_store_teardown() */
	gen_profiles();
	snprintf(path_a, sizeof(path_a), "%s",
		 gen_write(&prof_a, "a.h5", 3, "A", "2024-03-01T00:00:00Z"));
	snprintf(path_b, sizeof(path_b), "%s",
		 gen_write(&prof_b, "b.h5", 2, "B", "2024-03-02T00:00:00Z"));
	snprintf(path_c, sizeof(path_c), "%s",
		 gen_write(&prof_c, "c.h5", 3, "C", "2024-03-03T00:00:00Z"));
	snprintf(path_a1, sizeof(path_a1), "%s",
		 gen_write(&prof_a1, "a1.h5", 1, "A", "2024-02-01T00:00:00Z"));
	db_path = tu_path("store.db");
	if (store_open(&st, db_path, 0))
		fail_msg("store_open: %s", err_msg());
	ingest(st, path_a, "base", "aaaa1111", "main", 1);
	ingest(st, path_b, "nightly", "bbbb2222", "main", 2);
	ingest(st, path_c, "nightly", "bbbb3333", "dev", 3);
	ingest(st, path_a1, "old", "aaaa1111", "main", 4);
	store_close(st);
	return 0;
}

static void use_shared_store(int on)
{
	store_close(shared_st);
	shared_st = NULL;
	if (on && store_open(&shared_st, db_path, STORE_READONLY))
		fail_msg("store_open: %s", err_msg());
}

/* ---- tests -------------------------------------------------------------- */

/* The cases listed in which (-1 terminated; NULL = all), each for the
 * metrics listed in metrics (-1 terminated; NULL = all). */
static void all_cases(const char *arg_a, const char *arg_b, const struct gen_prof *a,
		      const struct gen_prof *b, const int *which, const int *metrics)
{
	size_t k, j;

	for (k = 0; which ? which[k] >= 0 : k < NCASES; k++)
		for (j = 0; metrics ? metrics[j] >= 0 : j < STATS_NMETRICS; j++)
			run_case(arg_a, arg_b, a, b,
				 (enum stats_metric)(metrics ? metrics[j] : (int)j),
				 &cases[which ? (size_t)which[k] : k]);
}

/* Subsets for the slower paths (files are ingested on every call). */
static const int some_cases[] = {0, 5, 7, 12, -1};
static const int default_case[] = {0, -1};
static const int agg_cases[] = {0, 1, 3, 5, 8, 11, 12, -1};
/* one metric of each kind: GPU, percentile, imbalance */
static const int some_metrics[] = {STATS_GPU_AVG, STATS_P95, STATS_IMBALANCE, -1};

static void test_stored_runs(void **state)
{
	(void)state;
	use_shared_store(1);
	all_cases("1", "2", &prof_a, &prof_b, NULL, NULL);
	all_cases("tag:nightly~1", "tag:base", &prof_b, &prof_a, some_cases, NULL);
	/* The same through compare_runs() opening the store itself. */
	use_shared_store(0);
	all_cases("1", "2", &prof_a, &prof_b, default_case, NULL);
	all_cases("2", "1", &prof_b, &prof_a, some_cases + 3, some_metrics);
}

static void test_files(void **state)
{
	(void)state;
	use_shared_store(0);
	all_cases(path_a, path_b, &prof_a, &prof_b, default_case, NULL);
	all_cases(path_a, path_b, &prof_a, &prof_b, some_cases + 1, some_metrics);
	/* a file against a stored run */
	use_shared_store(1);
	all_cases(path_b, "1", &prof_b, &prof_a, default_case, some_metrics);
}

static void test_aggregate_run(void **state)
{
	(void)state;
	/* Percentiles and GPU metrics are None on the aggregate side. */
	use_shared_store(1);
	all_cases("2", "3", &prof_b, &prof_c, agg_cases, NULL);
	all_cases("3", "1", &prof_c, &prof_a, some_cases, NULL);
	all_cases(path_c, path_a, &prof_c, &prof_a, some_cases + 3, some_metrics);
}

static void test_schema1_run(void **state)
{
	(void)state;
	/* Zero-call rows are not stored in schema 1: "idle" only in a. */
	use_shared_store(1);
	all_cases("1", "label:A~1", &prof_a, &prof_a1, some_cases, NULL);
	all_cases(path_a1, "commit:bbbb2", &prof_a1, &prof_b, default_case, some_metrics);
}

static void test_sides(void **state)
{
	struct compare_result r;
	struct compare_opts o;

	(void)state;
	use_shared_store(0);
	memset(&o, 0, sizeof(o));
	o.db_path = db_path;
	o.metric = STATS_TOTAL;
	assert_int_equal(compare_runs(&r, "tag:base", path_b, &o), 0);
	assert_false(r.a.is_file);
	assert_int_equal(r.a.run.id, 1);
	assert_string_equal(r.a.run.source_path, path_a);
	assert_string_equal(r.a.run.label, "A");
	assert_string_equal(r.a.run.commit, "aaaa1111");
	assert_string_equal(r.a.run.branch, "main");
	assert_string_equal(r.a.run.recorded_at, "2024-03-01T00:00:00Z");
	assert_int_equal(r.a.run.ntags, 1);
	assert_string_equal(r.a.run.tags[0], "base");
	assert_int_equal(r.a.run.num_ranks, 4);
	assert_true(r.b.is_file);
	assert_int_equal(r.b.run.id, 0);
	assert_string_equal(r.b.run.source_path, path_b);
	assert_string_equal(r.b.run.label, "B");
	assert_null(r.b.run.commit);
	assert_null(r.b.run.branch);
	assert_int_equal(r.b.run.ntags, 0);
	assert_string_equal(r.b.run.recorded_at, "2024-03-02T00:00:00Z");
	compare_release(&r);
	/* Files need no store at all. */
	o.db_path = tu_path("no-such-store.db");
	assert_int_equal(compare_runs(&r, path_a, path_b, &o), 0);
	compare_release(&r);
}

static void expect_resolve(const char *text, int64_t want)
{
	struct select_spec sel;
	struct store *st = NULL;
	int64_t id = -1;

	assert_int_equal(store_open(&st, db_path, STORE_READONLY), 0);
	assert_int_equal(select_parse(&sel, text), 0);
	if (store_resolve(st, &id, &sel))
		fail_msg("resolve %s: %s", text, err_msg());
	assert_int_equal(id, want);
	select_release(&sel);
	store_close(st);
}

static void expect_resolve_error(const char *text, int code, const char *msg)
{
	struct select_spec sel;
	struct store *st = NULL;
	int64_t id = -1;

	assert_int_equal(store_open(&st, db_path, STORE_READONLY), 0);
	assert_int_equal(select_parse(&sel, text), 0);
	assert_int_equal(store_resolve(st, &id, &sel), code);
	assert_string_equal(err_msg(), msg);
	assert_int_equal(id, 0);
	select_release(&sel);
	store_close(st);
}

static void test_resolve(void **state)
{
	(void)state;
	/* Recorded times: a1 (4) Feb 1, a (1) Mar 1, b (2) Mar 2, c (3) Mar 3. */
	expect_resolve("2", 2);
	expect_resolve("latest", 3);
	expect_resolve("latest~1", 2);
	expect_resolve("latest~3", 4);
	expect_resolve("tag:nightly", 3);
	expect_resolve("tag:nightly~1", 2);
	expect_resolve("branch:main", 2);
	expect_resolve("branch:main~2", 4);
	expect_resolve("branch:dev", 3);
	expect_resolve("label:A", 1);
	expect_resolve("label:A~1", 4);
	expect_resolve("commit:aaaa", 1); /* newest run of that commit */
	expect_resolve("commit:aaaa1111", 1);
	expect_resolve("commit:bbbb3", 3);
	expect_resolve_error("9", ERR_NOTFOUND, "no run with id 9");
	expect_resolve_error("latest~4", ERR_NOTFOUND, "no run 'latest~4': only 4 runs stored");
	expect_resolve_error("tag:weekly", ERR_NOTFOUND, "no run has tag 'weekly'");
	expect_resolve_error("tag:base~1", ERR_NOTFOUND,
			     "no run 'tag:base~1': only 1 run has tag 'base'");
	expect_resolve_error("branch:main~3", ERR_NOTFOUND,
			     "no run 'branch:main~3': only 3 runs have branch 'main'");
	expect_resolve_error("label:Z", ERR_NOTFOUND, "no run has label 'Z'");
	expect_resolve_error("commit:bbbb", ERR_NOTFOUND,
			     "commit prefix 'bbbb' matches several commits: bbbb2222, bbbb3333");
	expect_resolve_error("commit:c", ERR_NOTFOUND, "no run has a commit starting with 'c'");
	expect_resolve_error("commit:a*", ERR_NOTFOUND, "no run has a commit starting with 'a*'");
	expect_resolve_error("pin:release", ERR_NOTFOUND, "no pin named 'release'");
	/* git's ancestry suffixes; for one run (id, commit, pin): the runs
	 * recorded before it on its branch (main: 4, 1, 2; dev: 3) */
	expect_resolve("latest^", 2);
	expect_resolve("tag:nightly^", 2);
	expect_resolve("branch:main^^", 4);
	expect_resolve("2~1", 1);
	expect_resolve("2^^", 4);
	/* a commit counts back from its first run (4): its other run is not
	 * "before" it */
	expect_resolve_error("commit:aaaa^", ERR_NOTFOUND,
			     "no run 'commit:aaaa^': run 4 is the first run of branch main");
	/* so do a run id and a pin: run 1 is the commit aaaa of run 4 again */
	expect_resolve_error("1~1", ERR_NOTFOUND,
			     "no run '1~1': run 4 is the first run of branch main");
	expect_resolve("bbbb2", 2); /* a bare hash */
	expect_resolve("bbbb2~1", 1);
	expect_resolve_error("commit:bbbb3~1", ERR_NOTFOUND,
			     "no run 'commit:bbbb3~1': run 3 is the first run of branch dev");
	expect_resolve_error("2~3", ERR_NOTFOUND,
			     "no run '2~3': only 2 runs recorded before run 2 on branch main");
	expect_resolve_error("abcd", ERR_NOTFOUND, "no run has a commit starting with 'abcd'");
}

/* The pooled aggregates themselves, for one region of run 1 (prof_a). */
static void test_region_stats(void **state)
{
	static const int64_t ranks[] = {1, 2, 3};
	struct store_region_stats *regs = NULL;
	struct store *st = NULL;
	struct i64vec d;
	size_t n = 0, i;

	(void)state;
	i64vec_init(&d);
	assert_int_equal(store_open(&st, db_path, STORE_READONLY), 0);
	assert_int_equal(store_region_stats(st, &regs, &n, 1, ranks, 3, NULL, NULL), 0);
	for (i = 1; i < n; i++)
		assert_true(strcmp(regs[i - 1].name, regs[i].name) < 0);
	for (i = 0; i < n && strcmp(regs[i].name, "solver_setup"); i++)
		;
	assert_true(i < n);
	/* rows on ranks 0 (3 calls), 1 (4 calls), 2 (0 calls); 1 and 2 selected */
	assert_int_equal(regs[i].nranks, 2);
	assert_int_equal(regs[i].calls, 4);
	assert_int_equal(regs[i].busy_ranks, 1);
	assert_int_equal(regs[i].has_events, 1);
	assert_int_equal(store_region_durations(st, &d, 1, regs[i].region_id, ranks, 3), 0);
	assert_int_equal(d.len, 4);
	for (i = 1; i < d.len; i++)
		assert_true(d.v[i - 1] <= d.v[i]);
	store_region_stats_free(regs, n);
	i64vec_release(&d);
	store_close(st);
}

/* A commit that is a prefix of another is still selectable exactly. */
static void test_resolve_commit_prefix(void **state)
{
	const char *saved = db_path;
	struct store *st = NULL;

	(void)state;
	use_shared_store(0);
	db_path = tu_path("prefix.db");
	assert_int_equal(store_open(&st, db_path, 0), 0);
	ingest(st, path_a, "x", "abc", NULL, 1);
	ingest(st, path_b, "x", "abcdef", NULL, 2);
	store_close(st);
	expect_resolve("commit:abc", 1);
	expect_resolve("commit:abcd", 2);
	expect_resolve_error("commit:ab", ERR_NOTFOUND,
			     "commit prefix 'ab' matches several commits: abc, abcdef");
	db_path = saved;
}

static void test_pins(void **state)
{
	struct store *st = NULL;
	struct store_pin *pins = NULL;
	size_t n = 0;
	int64_t prev = -1;

	(void)state;
	assert_int_equal(store_open(&st, db_path, 0), 0);
	assert_int_equal(store_pin_set(st, &prev, "release", 2), 0);
	assert_int_equal(prev, 0);
	assert_int_equal(store_pin_set(st, &prev, "release", 2), 0);
	assert_int_equal(prev, 2);
	assert_int_equal(store_pin_set(st, &prev, "release", 1), 0);
	assert_int_equal(prev, 2);
	assert_int_equal(store_pin_set(st, &prev, "base", 3), 0);
	assert_int_equal(prev, 0);
	assert_int_equal(store_pin_set(st, &prev, "x", 99), ERR_NOTFOUND);
	assert_string_equal(err_msg(), "no run with id 99");
	assert_int_equal(store_list_pins(st, &pins, &n), 0);
	assert_int_equal(n, 2);
	assert_string_equal(pins[0].name, "base");
	assert_int_equal(pins[0].run_id, 3);
	assert_string_equal(pins[1].name, "release");
	assert_int_equal(pins[1].run_id, 1);
	assert_int_equal(strlen(pins[1].pinned_at), 20);
	store_pins_free(pins, n);
	store_close(st);

	expect_resolve("pin:release", 1);
	expect_resolve("pin:base", 3);
	/* Check against a pin, with a stored candidate. */
	{
		const struct tcase *t = &cases[12];

		run_case("pin:release", "latest~1", &prof_a, &prof_b, STATS_TOTAL, t);
		run_case("pin:release", "latest~1", &prof_a, &prof_b, STATS_P99, t);
	}

	assert_int_equal(store_open(&st, db_path, 0), 0);
	assert_int_equal(store_pin_remove(st, &prev, "base"), 0);
	assert_int_equal(prev, 3);
	assert_int_equal(store_pin_remove(st, &prev, "base"), ERR_NOTFOUND);
	assert_string_equal(err_msg(), "no pin named 'base'");
	assert_int_equal(store_pin_remove(st, &prev, "release"), 0);
	assert_int_equal(store_list_pins(st, &pins, &n), 0);
	assert_int_equal(n, 0);
	assert_null(pins);
	store_close(st);
}

static void expect_error(const char *a, const char *b, const struct compare_opts *o, int code,
			 const char *msg)
{
	struct compare_result r;

	assert_int_equal(compare_runs(&r, a, b, o), code);
	assert_string_equal(err_msg(), msg);
	assert_null(r.rows);
	assert_null(r.a.arg);
	compare_release(&r);
}

static void test_errors(void **state)
{
	struct compare_opts o;
	const char *bad[] = {"("};
	char msg[600];

	(void)state;
	memset(&o, 0, sizeof(o));
	o.db_path = db_path;
	o.metric = STATS_TOTAL;
	expect_error("1", "tag:weekly", &o, ERR_NOTFOUND, "no run has tag 'weekly'");
	expect_error(
	    "nightly", "1", &o, ERR_USAGE,
	    "invalid run selector 'nightly': expected ID, latest, tag:NAME, commit:PREFIX, "
	    "a commit hash, branch:NAME, label:NAME or pin:NAME (each may end in ~N or ^), "
	    "base:REF, or the path of an existing file");
	expect_error("1", "missing.h5", &o, ERR_IO, "cannot read 'missing.h5': no such file");
	snprintf(msg, sizeof(msg), "cannot read '%s': is a directory", tu_tmpdir());
	expect_error(tu_tmpdir(), "1", &o, ERR_IO, msg);
	o.includes = bad;
	o.ninclude = 1;
	expect_error("1", "2", &o, ERR_USAGE,
		     "invalid --include pattern '(': missing closing parenthesis at offset 1");
	o.ninclude = 0;
	o.check = 1;
	o.max_regression = -1;
	expect_error("1", "2", &o, ERR_USAGE, "invalid --max-regression -1: must not be negative");
	/* A selector needs the store. */
	o.check = 0;
	o.db_path = tu_path("absent.db");
	{
		struct compare_result r;

		assert_int_not_equal(compare_runs(&r, "latest", path_a, &o), 0);
		assert_non_null(strstr(err_msg(), "absent.db"));
	}
	/* A file that is not a profile. */
	o.db_path = db_path;
	{
		struct compare_result r;

		assert_int_equal(compare_runs(&r, db_path, "1", &o), ERR_FORMAT);
		assert_non_null(strstr(err_msg(), "store.db"));
	}
}

TU_MAIN(setup, tu_store_teardown,
	{
	    cmocka_unit_test(test_stored_runs),
	    cmocka_unit_test(test_files),
	    cmocka_unit_test(test_aggregate_run),
	    cmocka_unit_test(test_schema1_run),
	    cmocka_unit_test(test_sides),
	    cmocka_unit_test(test_resolve),
	    cmocka_unit_test(test_resolve_commit_prefix),
	    cmocka_unit_test(test_region_stats),
	    cmocka_unit_test(test_pins),
	    cmocka_unit_test(test_errors),
	})
