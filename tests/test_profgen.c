/*
 * test_profgen.c - the random profile generator of the differential test
 * (tools/profgen.c, issue 24): its profiles are valid by construction, and
 * these cases hold it to that, seed by seed:
 *   - names are distinct (and group names in schema 1), (rank, region)
 *     rows are distinct, ranks below the run's count, schema 1 has no row
 *     of no calls, every call has end >= start;
 *   - per rank and lane the calls nest as upstream rebuilds nesting from
 *     containment (the nesting section of the format contract: sorted by
 *     start, then end descending, a stack of open calls, no partial
 *     overlap), and where
 *     call ids are written they are unique per rank, a parent's below its
 *     children's, and the parent ids are the containment's parents;
 *   - the same seed gives the same profile; a variant the same structure
 *     with other times;
 *   - a written file reads back (h5prof) as the model: rows, calls,
 *     durations, GPU times, the rank count;
 *   - the reference numbers of a small hand-checked profile.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "testutil_h5.h"

#include "profgen.h"
#include "scopedb/util.h"

#define SEEDS 400

/* One call of a lane, for the containment check. */
struct call {
	int64_t start, end, id, parent_id;
	int64_t thread, task;
};

static int call_cmp(const void *a, const void *b)
{
	const struct call *x = a, *y = b;

	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	if (x->task != y->task)
		return x->task < y->task ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->end != y->end)
		return x->end > y->end ? -1 : 1;
	return (x->id > y->id) - (x->id < y->id);
}

/* Upstream's containment on calls[0..n) of one rank, lane by lane: no
 * partial overlap; with ids, the parents are the recorded ones and no two
 * calls share a start and an end (that would make the order ambiguous). */
static void check_nesting(struct call *calls, size_t n, int ids, uint64_t seed)
{
	size_t *stack = malloc((n + 1) * sizeof(*stack)), top = 0, i;

	assert_non_null(stack);
	qsort(calls, n, sizeof(*calls), call_cmp);
	for (i = 0; i < n; i++) {
		struct call *c = &calls[i];

		if (i > 0 && (calls[i - 1].thread != c->thread || calls[i - 1].task != c->task))
			top = 0; /* a new lane */
		/* a call that ends before this one ends is closed: it must
		 * end before this one starts (else the two overlap) */
		while (top > 0 && calls[stack[top - 1]].end < c->end) {
			if (calls[stack[top - 1]].end > c->start) {
				print_error(
				    "seed %llu: calls [%lld, %lld] and [%lld, %lld] overlap\n",
				    (unsigned long long)seed,
				    (long long)calls[stack[top - 1]].start,
				    (long long)calls[stack[top - 1]].end, (long long)c->start,
				    (long long)c->end);
				fail();
			}
			top--;
		}
		if (i > 0 && calls[i - 1].start == c->start && calls[i - 1].end == c->end &&
		    calls[i - 1].thread == c->thread && calls[i - 1].task == c->task) {
			print_error("seed %llu: two calls of one interval\n",
				    (unsigned long long)seed);
			fail();
		}
		if (ids) {
			int64_t want = top > 0 ? calls[stack[top - 1]].id : -1;

			if (c->parent_id != want) {
				print_error(
				    "seed %llu: call %lld has parent %lld, containment says "
				    "%lld\n",
				    (unsigned long long)seed, (long long)c->id,
				    (long long)c->parent_id, (long long)want);
				fail();
			}
			if (top > 0)
				assert_true(c->parent_id < c->id);
		}
		stack[top++] = i;
	}
	free(stack);
}

static int id_cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* Everything the model promises, for one profile. */
static void check_model(const struct profgen *g)
{
	size_t r, k, i, j;
	uint32_t rank;

	assert_true(g->schema >= 1 && g->schema <= 3);
	assert_true(g->nnames >= 1 && g->nnames <= 2000);
	assert_true(g->num_ranks >= 1 && g->num_ranks <= 1024 + 12);
	assert_true(g->nrows >= 1);
	for (i = 0; i < g->nnames; i++) {
		assert_true(g->names[i][0] != '\0');
		assert_null(util_utf8_bad(g->names[i]));
		if (g->schema == 1)
			assert_null(strchr(g->names[i], '/'));
		for (j = 0; j < i; j++)
			assert_string_not_equal(g->names[i], g->names[j]);
	}
	for (r = 0; r < g->nrows; r++) {
		const struct profgen_row *row = &g->rows[r];

		assert_true(row->rank < g->num_ranks);
		assert_true(row->region < g->nnames);
		if (g->schema == 1)
			assert_true(row->ncalls > 0);
		for (k = 0; k < row->ncalls; k++)
			assert_true(row->ends[k] >= row->starts[k]);
		for (j = 0; j < r; j++)
			assert_false(g->rows[j].rank == row->rank &&
				     g->rows[j].region == row->region);
		assert_true((row->call_ids != NULL) == (g->ids != 0));
		assert_true((row->thread_ids != NULL) == (g->lanes != 0));
	}
	/* per rank: nesting by lane, ids unique */
	for (rank = 0; rank < g->num_ranks; rank++) {
		struct call *calls;
		int64_t *idv;
		size_t n = 0;

		for (r = 0; r < g->nrows; r++)
			if (g->rows[r].rank == rank)
				n += g->rows[r].ncalls;
		if (!n)
			continue;
		calls = calloc(n, sizeof(*calls));
		idv = calloc(n, sizeof(*idv));
		assert_non_null(calls);
		assert_non_null(idv);
		n = 0;
		for (r = 0; r < g->nrows; r++) {
			const struct profgen_row *row = &g->rows[r];

			if (row->rank != rank)
				continue;
			for (k = 0; k < row->ncalls; k++, n++) {
				calls[n].start = row->starts[k];
				calls[n].end = row->ends[k];
				calls[n].id = row->call_ids ? row->call_ids[k] : (int64_t)n;
				calls[n].parent_id = row->parent_ids ? row->parent_ids[k] : -1;
				calls[n].thread = row->thread_ids ? row->thread_ids[k] : -1;
				calls[n].task = row->task_ids ? row->task_ids[k] : -1;
				idv[n] = calls[n].id;
			}
		}
		qsort(idv, n, sizeof(*idv), id_cmp);
		for (k = 1; k < n; k++)
			assert_true(idv[k] != idv[k - 1]);
		check_nesting(calls, n, g->ids, g->seed);
		free(calls);
		free(idv);
	}
	assert_non_null(g->describe);
	assert_non_null(g->sel_spec);
	assert_true(g->nsel >= 1);
}

static void test_models(void **state)
{
	uint64_t seed;
	unsigned seen[4] = {0}, agg = 0, fixed = 0, zero = 0, ids = 0, lanes = 0, wide = 0,
		 tall = 0;

	(void)state;
	for (seed = 1; seed <= SEEDS; seed++) {
		struct profgen *g = NULL;
		size_t r;

		assert_int_equal(profgen_new(&g, seed, 0), 0);
		check_model(g);
		seen[g->schema]++;
		agg += g->aggregate != 0;
		fixed += g->fixed_strings != 0;
		ids += g->ids != 0;
		lanes += g->lanes != 0;
		wide += g->num_ranks >= 32;
		tall += g->nnames >= 300;
		for (r = 0; r < g->nrows; r++)
			zero += g->rows[r].ncalls == 0;
		profgen_free(g);
	}
	/* the format space is covered */
	assert_true(seen[1] > 0 && seen[2] > 0 && seen[3] > 0);
	assert_true(agg > 0 && fixed > 0 && ids > 0 && lanes > 0 && zero > 0);
	assert_true(wide > 0 && tall > 0);
}

/* The same seed, the same profile; its variant: the same structure. */
static void test_repeatable(void **state)
{
	uint64_t seed;

	(void)state;
	for (seed = 1; seed <= 60; seed++) {
		struct profgen *a = NULL, *b = NULL, *v = NULL;
		size_t r;
		int moved = 0;

		assert_int_equal(profgen_new(&a, seed, 0), 0);
		assert_int_equal(profgen_new(&b, seed, 0), 0);
		assert_int_equal(profgen_new(&v, seed, 1), 0);
		check_model(v);
		assert_string_equal(a->describe, b->describe);
		assert_int_equal(a->nrows, v->nrows);
		assert_int_equal(a->nnames, v->nnames);
		assert_int_equal(a->nmeta, v->nmeta);
		for (r = 0; r < a->nrows; r++) {
			size_t n = a->rows[r].ncalls;

			assert_int_equal(n, b->rows[r].ncalls);
			assert_int_equal(n, v->rows[r].ncalls);
			assert_int_equal(a->rows[r].region, v->rows[r].region);
			assert_int_equal(a->rows[r].rank, v->rows[r].rank);
			if (n) {
				assert_memory_equal(a->rows[r].starts, b->rows[r].starts,
						    n * sizeof(int64_t));
				assert_memory_equal(a->rows[r].ends, b->rows[r].ends,
						    n * sizeof(int64_t));
				moved |= memcmp(a->rows[r].ends, v->rows[r].ends,
						n * sizeof(int64_t)) != 0;
			}
		}
		assert_true(moved || a->ncalls == 0);
		profgen_free(a);
		profgen_free(b);
		profgen_free(v);
	}
}

/* The file reads back as the model (h5prof, every layout). */
static void test_written(void **state)
{
	uint64_t seed;

	(void)state;
	for (seed = 1; seed <= 40; seed++) {
		struct profgen *g = NULL;
		struct tu_h5_loaded l;
		const char *path = tu_path("random.h5");
		size_t r, k, rows = 0;

		assert_int_equal(profgen_new(&g, seed, 0), 0);
		assert_int_equal(profgen_write_h5(g, path), 0);
		assert_int_equal(tu_h5_load(&l, path), 0);
		assert_int_equal(l.schema, g->schema);
		assert_int_equal(l.num_ranks, g->num_ranks);
		for (r = 0; r < g->nrows; r++) {
			const struct profgen_row *m = &g->rows[r];
			const struct tu_h5_row *t = tu_h5_find(&l, m->rank, g->names[m->region]);

			assert_non_null(t);
			rows++;
			assert_int_equal(t->calls, m->ncalls);
			if (g->aggregate) {
				int64_t tot = 0;

				for (k = 0; k < m->ncalls; k++)
					tot += m->ends[k] - m->starts[k];
				assert_int_equal(t->agg_total, tot);
				continue;
			}
			for (k = 0; k < m->ncalls; k++) {
				assert_int_equal(t->starts[k], m->starts[k]);
				assert_int_equal(t->durations[k], m->ends[k] - m->starts[k]);
				if (m->gpu)
					assert_int_equal(t->gpu[k], m->gpu[k]);
				else if (t->gpu)
					assert_true(t->gpu[k] < 0);
			}
		}
		assert_int_equal(l.nrows, rows);
		tu_h5_loaded_free(&l);
		profgen_free(g);
	}
}

/* The first number after "KEY": in json is want, to 1e-12 relative. */
static void near(const char *json, const char *key, double want)
{
	char pat[64];
	const char *p;
	double v;

	snprintf(pat, sizeof(pat), "\"%s\": ", key);
	p = strstr(json, pat);
	assert_non_null(p);
	v = strtod(p + strlen(pat), NULL);
	if (fabs(v - want) > 1e-12 * fabs(want)) {
		print_error("%s: %.17g, want %.17g\n", key, v, want);
		fail();
	}
}

/* The reference of a two-rank profile worked by hand. */
static void test_reference(void **state)
{
	int64_t s0[] = {0, 100, 200}, e0[] = {10, 130, 260}, s1[] = {5}, e1[] = {25};
	int64_t g0[] = {4, -1, 6};
	char *names[] = {(char *)"solve", (char *)"idle"};
	struct profgen_row rows[3];
	struct profgen g;
	struct buf b = BUF_INIT;
	const int64_t only1[] = {1};

	(void)state;
	memset(&g, 0, sizeof(g));
	memset(rows, 0, sizeof(rows));
	rows[0] = (struct profgen_row){
	    .rank = 0, .region = 0, .ncalls = 3, .starts = s0, .ends = e0, .gpu = g0};
	rows[1] =
	    (struct profgen_row){.rank = 1, .region = 0, .ncalls = 1, .starts = s1, .ends = e1};
	rows[2] = (struct profgen_row){.rank = 1, .region = 1, .ncalls = 0};
	g.schema = 3;
	g.names = names;
	g.nnames = 2;
	g.rows = rows;
	g.nrows = 3;
	g.ncalls = 4;
	/* durations 10, 30, 60 (rank 0), 20 (rank 1): total 120 ns, sorted
	 * 10 20 30 60; p50 = 25, p95 = 30 + 30 * 0.85 = 55.5, p99 = 59.1;
	 * std: mean 30, squares 400 100 0 900 -> sqrt(350); imbalance: rank
	 * totals 100 and 20, (100 / 60 - 1) * 100; GPU 4 + 6 of 2 calls */
	assert_int_equal(profgen_reference(&b, &g, NULL, 0), 0);
	assert_non_null(strstr(b.data, "[\n{\"name\": \"solve\", \"ranks\": 2, \"calls\": 4, "));
	near(b.data, "total", 120e-9);
	near(b.data, "avg", 30e-9);
	near(b.data, "min", 10e-9);
	near(b.data, "max", 60e-9);
	near(b.data, "std", sqrt(350.0) * 1e-9);
	near(b.data, "p50", 25e-9);
	near(b.data, "p95", 55.5e-9);
	near(b.data, "p99", 59.1e-9);
	near(b.data, "imbalance", (100.0 / 60.0 - 1) * 100);
	near(b.data, "gpu_total", 10e-9);
	near(b.data, "gpu_avg", 5e-9);
	assert_non_null(strstr(b.data,
			       "{\"name\": \"idle\", \"ranks\": 1, \"calls\": 0, \"total\": "
			       "null, \"avg\": null, \"min\": null, \"max\": null, \"std\": "
			       "null, \"p50\": null, \"p95\": null, \"p99\": null, "
			       "\"imbalance\": 0, \"gpu_total\": null, \"gpu_avg\": null}"));
	/* rank 1 alone: 20 ns, one busy rank */
	b.len = 0;
	assert_int_equal(profgen_reference(&b, &g, only1, 1), 0);
	assert_non_null(strstr(b.data, "\"ranks\": 1, \"calls\": 1, \"total\": 2e-08"));
	assert_non_null(strstr(b.data, "\"imbalance\": 0, \"gpu_total\": null"));
	buf_release(&b);
}

TU_MAIN(NULL, NULL,
	{
	    cmocka_unit_test(test_models),
	    cmocka_unit_test(test_repeatable),
	    cmocka_unit_test(test_written),
	    cmocka_unit_test(test_reference),
	})
