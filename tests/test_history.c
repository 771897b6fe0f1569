/*
 * test_history.c - "scopedb history" and the store queries behind the
 * history workflow: the steps, change points and bars of history.c, and,
 * on a store of generated runs, store_region_history() (ordering, tag,
 * branch and date filters, --limit, rank subsets, --match, durations for
 * percentiles), store_find_runs() with every filter, tags, and
 * store_remove_run() with pins (refused unless forced, one transaction).
 *
 * Each generated run has region "solve" on ranks 0 and 1 with calls
 * lasting base, 2 base, 3 base ... ns (rank 1: twice as long), so its
 * total, p50 and calls are known in closed form; "ïo" (a UTF-8 name) only
 * in some runs.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scopedb/err.h"
#include "h5write.h"
#include "scopedb/history.h"
#include "scopedb/ingest.h"
#include "select/match.h"
#include "scopedb/store.h"
#include "testutil.h"
#include "testutil_store.h"

/* ---- history.c ----------------------------------------------------------- */

static struct stats_val val(double v)
{
	struct stats_val s = {0, v};

	return s;
}

static void test_steps(void **state)
{
	struct history_step s[6];

	(void)state;
	memset(s, 0, sizeof(s));
	s[0].v = val(2.0);
	s[1].v = val(3.0); /* +1, +50% */
	s[2].v.none = 1;   /* None: no step */
	s[3].v = val(1.0); /* previous None: no step */
	s[4].v = val(0.0); /* -1, -100% */
	s[5].v = val(4.0); /* +4, pct None (previous 0) */
	history_compute(s, 6);
	assert_true(s[0].delta.none && s[0].pct.none);
	assert_false(s[1].delta.none);
	assert_true(s[1].delta.v == 1.0 && s[1].pct.v == 50.0);
	assert_true(s[2].delta.none && s[3].delta.none);
	assert_true(s[4].delta.v == -1.0 && s[4].pct.v == -100.0);
	assert_false(s[5].delta.none);
	assert_true(s[5].pct.none);
	assert_true(history_max(s, 6) == 4.0);
	assert_true(history_min(s, 6) == 0.0);
	assert_true(history_min(s + 1, 3) == 1.0); /* 3, None, 1 */
}

/* history_mark(): the change points of a series of points, repetitions of
 * a commit counted once. */
static void test_mark(void **state)
{
	struct changepoint_opts o;
	struct store_history_point p[24];
	struct history_step s[24];
	char commits[24][8];
	size_t i, n;

	(void)state;
	memset(p, 0, sizeof(p));
	memset(s, 0, sizeof(s));
	for (i = 0; i < 24; i++) {
		snprintf(commits[i], sizeof(commits[i]), "c%zu", i < 20 ? i : 20);
		p[i].commit = commits[i];
		/* a step of +30 % at run 10; runs 20..23 are one commit */
		s[i].v = val((i < 10 ? 1.0 : 1.3) * (1.0 + 0.003 * (double)(i % 3)));
	}
	s[15].v = val(5.0); /* a single slow run */
	changepoint_opts_init(&o);
	assert_int_equal(history_mark(s, p, 24, &o, &n), 0);
	assert_int_equal(n, 1);
	for (i = 0; i < 24; i++)
		assert_int_equal(s[i].change, i == 10);
	assert_true(fabs(s[10].change_pct - 30.0) < 1.0);
	assert_int_equal(s[10].provisional, 0);
	/* runs 11..23 of one commit: the new level has 2 points (runs 10 and
	 * 11..23), fewer than a segment needs: a provisional change that one
	 * more point would confirm */
	for (i = 0; i < 24; i++)
		p[i].commit = i >= 11 ? commits[20] : commits[i];
	assert_int_equal(history_mark(s, p, 24, &o, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(s[10].change, 1);
	assert_int_equal(s[10].provisional, 1);
	assert_int_equal(s[10].confirm, 1);
}

static void bar(const char *want, double v, double min, double max, size_t width, int utf8)
{
	struct buf b = BUF_INIT;

	assert_int_equal(buf_puts(&b, ""), 0);
	assert_int_equal(history_bar(&b, val(v), min, max, width, utf8), 0);
	assert_string_equal(b.data, want);
	buf_release(&b);
}

static void test_bars(void **state)
{
	struct buf b = BUF_INIT;
	struct stats_val none = {1, 0.0};

	(void)state;
	/* the scale is the column's min..max: min one cell, max the width */
	bar("##########", 1.0, 0.5, 1.0, 10, 0);
	bar("#", 0.5, 0.5, 1.0, 10, 0);
	bar("######", 0.75, 0.5, 1.0, 10, 0); /* 1 + 9 * 0.5 = 5.5 cells */
	/* a 5% step: 1 cell against 20 */
	bar("#", 1.00, 1.00, 1.05, 20, 0);
	bar("####################", 1.05, 1.00, 1.05, 20, 0);
	bar("\u2588", 1.00, 1.00, 1.05, 20, 1);
	bar("\u2588\u2588\u2588\u2588\u2588\u2588\u2588\u2588\u2588\u2588"
	    "\u2588\u2588\u2588\u2588\u2588\u2588\u2588\u2588\u2588\u2588",
	    1.05, 1.00, 1.05, 20, 1);
	bar("\u2588\u258c", 0.25, 0.0, 1.0, 3, 1); /* 1 + 2 * 0.25: 1.5 cells */
	bar("\u2588\u2588\u2588\u2588\u2588", 0.5, 0.0, 1.0, 9, 1);
	bar("\u2588\u2588", 5.0, 0.0, 1.0, 2, 1);	/* capped at the width */
	bar("\u2588\u2588\u2588", 2.0, 2.0, 2.0, 3, 1); /* all equal: full */
	bar("###", 2.0, 2.0, 2.0, 3, 0);
	bar("", 1.0, 0.0, 1.0, 0, 1);
	assert_int_equal(buf_puts(&b, ""), 0);
	assert_int_equal(history_bar(&b, none, 0.0, 1.0, 10, 1), 0);
	assert_string_equal(b.data, "");
	buf_release(&b);
}

/* ---- the store ----------------------------------------------------------- */

#define CALLS 5

static struct store *st;
static int64_t ids[6];

/* Write and ingest a run: solve with durations k*base (k = 1..CALLS) on
 * rank 0 and 2*k*base on rank 1, "ïo" when with_io, recorded at ts. */
static int64_t add_run(int n, int64_t base, int with_io, const char *ts, const char *tag,
		       const char *branch, const char *commit, const char *label)
{
	static int64_t starts[3][CALLS], ends[3][CALLS];
	struct h5write_row rows[3];
	struct h5write_meta meta[2];
	struct h5write_profile prof;
	struct h5write_opts wo;
	struct ingest_opts io;
	struct ingest_result res;
	const char *tags[1] = {tag};
	char name[32];
	int r, c;

	memset(rows, 0, sizeof(rows));
	memset(meta, 0, sizeof(meta));
	memset(&prof, 0, sizeof(prof));
	memset(&wo, 0, sizeof(wo));
	memset(&io, 0, sizeof(io));
	for (r = 0; r < 3; r++) {
		for (c = 0; c < CALLS; c++) {
			starts[r][c] = 1000000 * c;
			ends[r][c] = starts[r][c] + (r == 1 ? 2 : 1) * (c + 1) * base;
		}
		rows[r].rank = r == 1 ? 1 : 0;
		rows[r].region = r < 2 ? "solve" : "ïo";
		rows[r].calls = CALLS;
		rows[r].starts = starts[r];
		rows[r].ends = ends[r];
		rows[r].source_line = -1;
	}
	meta[0].key = "timestamp";
	meta[0].kind = H5WRITE_META_STR;
	meta[0].str = ts;
	meta[1].key = "mpi_size";
	meta[1].kind = H5WRITE_META_INT;
	meta[1].i = n % 2 ? 2 : 4;
	prof.rows = rows;
	prof.nrows = with_io ? 3 : 2;
	prof.meta = meta;
	prof.nmeta = 2;
	wo.schema = 3;
	snprintf(name, sizeof(name), "run%d.h5", n);
	if (h5write_file(tu_path(name), &prof, &wo))
		fail_msg("h5write: %s", err_msg());
	io.tags = tags;
	io.ntags = tag ? 1 : 0;
	io.branch = branch;
	io.commit = commit;
	io.label = label;
	if (ingest_file(&res, st, tu_path(name), &io))
		fail_msg("ingest: %s", err_msg());
	return res.run_id;
}

static int setup(void **state)
{
	if (tu_store_open(state, &st, tu_path("h.sqlite")))
		return -1;
	/* ingested out of chronological order on purpose */
	ids[2] = add_run(2, 300, 1, "2026-03-01T00:00:00Z", "nightly", "main", "bbb222", NULL);
	ids[0] = add_run(0, 100, 1, "2026-01-01T00:00:00Z", "nightly", "main", "aaa111", "base");
	ids[1] = add_run(1, 200, 0, "2026-02-01T00:00:00Z", NULL, "dev", NULL, NULL);
	ids[3] = add_run(3, 250, 1, "2026-04-01T00:00:00Z", "nightly", "main", "ccc333", "ünï");
	return 0;
}

/* Total of solve in a run of the given base: (1+..+CALLS)*base*(1+2). */
static int64_t solve_total(int64_t base)
{
	return 15 * base * 3;
}

static void test_history_query(void **state)
{
	struct store_history_query q = {.region = "solve"};
	struct store_history_point *p = NULL;
	struct filter f;
	const char *tags[] = {"nightly"};
	int64_t r0[] = {0};
	size_t n = 0;

	(void)state;
	assert_int_equal(store_region_history(st, &p, &n, &q), 0);
	assert_int_equal(n, 4);
	/* oldest first by recorded time, not by id */
	assert_int_equal(p[0].run_id, ids[0]);
	assert_int_equal(p[1].run_id, ids[1]);
	assert_int_equal(p[2].run_id, ids[2]);
	assert_int_equal(p[3].run_id, ids[3]);
	assert_string_equal(p[0].time, "2026-01-01T00:00:00Z");
	assert_string_equal(p[0].commit, "aaa111");
	assert_string_equal(p[0].label, "base");
	assert_null(p[1].commit);
	assert_null(p[1].label);
	assert_int_equal(p[2].stats.total, solve_total(300));
	assert_int_equal(p[2].stats.calls, 2 * CALLS);
	assert_int_equal(p[2].stats.nranks, 2);
	assert_int_equal(p[2].durations.len, 0); /* not asked for */
	store_history_free(p, n);

	/* tag + branch + limit: the newest 2 nightly main runs, oldest first */
	f = (struct filter){.tags = tags, .ntags = 1, .branch = "main", .limit = 2};
	q = (struct store_history_query){
	    .region = "solve", .runs = &f, .ranks = r0, .nranks = 1, .durations = 1};
	assert_int_equal(store_region_history(st, &p, &n, &q), 0);
	assert_int_equal(n, 2);
	assert_int_equal(p[0].run_id, ids[2]);
	assert_int_equal(p[1].run_id, ids[3]);
	assert_int_equal(p[1].stats.total, 15 * 250);
	assert_int_equal(p[1].durations.len, CALLS);
	assert_int_equal(p[1].durations.v[0], 250);
	assert_int_equal(p[1].durations.v[4], 1250);
	store_history_free(p, n);

	/* dates */
	f = (struct filter){.since = "2026-02-01T00:00:00Z", .until = "2026-03-01T00:00:00Z"};
	q.ranks = NULL;
	q.durations = 0;
	assert_int_equal(store_region_history(st, &p, &n, &q), 0);
	assert_int_equal(n, 2);
	assert_int_equal(p[0].run_id, ids[1]);
	store_history_free(p, n);

	/* a filter nothing passes: empty, not an error */
	f.branch = "nope";
	assert_int_equal(store_region_history(st, &p, &n, &q), 0);
	assert_int_equal(n, 0);
	store_history_free(p, n);

	/* an unknown region is an error */
	q.runs = NULL;
	q.region = "nope";
	assert_int_equal(store_region_history(st, &p, &n, &q), ERR_NOTFOUND);
	assert_non_null(strstr(err_msg(), "no region 'nope' in store"));
}

static int filter_match(void *ctx, int *keep, const char *name)
{
	return match_name(keep, ctx, name);
}

static void test_history_match(void **state)
{
	static const char *const pats[] = {"[ïs]"}, *const none[] = {"zz"};
	struct store_history_query q;
	struct store_history_point *p = NULL;
	struct match *m = NULL;
	struct filter f;
	int64_t r0[] = {0};
	size_t n = 0;

	(void)state;
	assert_int_equal(match_new(&m, pats, 1, NULL, 0), 0);
	memset(&q, 0, sizeof(q));
	q.filter = filter_match;
	q.ctx = m;
	q.pattern = pats[0];
	assert_int_equal(store_region_history(st, &p, &n, &q), 0);
	/* "solve" (4 runs) sorts before "ïo" (3 runs) in byte order */
	assert_int_equal(n, 7);
	assert_string_equal(p[0].stats.name, "solve");
	assert_string_equal(p[4].stats.name, "ïo");
	assert_int_equal(p[4].run_id, ids[0]);
	assert_int_equal(p[5].run_id, ids[2]);
	assert_int_equal(p[5].stats.total, 15 * 300);
	store_history_free(p, n);

	/* --limit 3: the newest 3 runs lack "ïo" once, so its 3 points reach
	 * back to the oldest run (the run window grows past the newest 3) */
	memset(&f, 0, sizeof(f));
	f.limit = 3;
	q.runs = &f;
	assert_int_equal(store_region_history(st, &p, &n, &q), 0);
	assert_int_equal(n, 6);
	assert_string_equal(p[0].stats.name, "solve");
	assert_int_equal(p[0].run_id, ids[1]);
	assert_int_equal(p[2].run_id, ids[3]);
	assert_string_equal(p[3].stats.name, "ïo");
	assert_int_equal(p[3].run_id, ids[0]);
	assert_int_equal(p[4].run_id, ids[2]);
	assert_int_equal(p[5].run_id, ids[3]);
	store_history_free(p, n);
	/* the same over rank 0 with the durations */
	q.ranks = r0;
	q.nranks = 1;
	q.durations = 1;
	assert_int_equal(store_region_history(st, &p, &n, &q), 0);
	assert_int_equal(n, 6);
	assert_int_equal(p[3].run_id, ids[0]);
	assert_int_equal(p[3].durations.len, CALLS);
	assert_int_equal(p[3].durations.v[0], 100);
	assert_int_equal(p[5].durations.v[4], 5 * 250);
	store_history_free(p, n);
	/* --limit 1 up to February: the newest run lacks "ïo" */
	q.ranks = NULL;
	q.nranks = 0;
	q.durations = 0;
	f.limit = 1;
	strcpy(f.until, "2026-02-15T00:00:00Z");
	assert_int_equal(store_region_history(st, &p, &n, &q), 0);
	assert_int_equal(n, 2);
	assert_int_equal(p[0].run_id, ids[1]);
	assert_int_equal(p[1].run_id, ids[0]);
	assert_string_equal(p[1].stats.name, "ïo");
	store_history_free(p, n);
	q.runs = NULL;
	match_free(m);
	assert_int_equal(match_new(&m, none, 1, NULL, 0), 0);
	q.ctx = m;
	q.pattern = none[0];
	assert_int_equal(store_region_history(st, &p, &n, &q), ERR_NOTFOUND);
	assert_non_null(strstr(err_msg(), "no region matches 'zz'"));
	match_free(m);
}

static void find(const struct filter *f, size_t want_n, const int64_t *want)
{
	struct store_run *runs = NULL;
	size_t n = 0, i;

	if (store_find_runs(st, &runs, &n, f))
		fail_msg("store_find_runs: %s", err_msg());
	assert_int_equal(n, want_n);
	for (i = 0; i < n; i++)
		assert_int_equal(runs[i].id, want[i]);
	store_runs_free(runs, n);
}

static void test_find_runs(void **state)
{
	const char *tags[] = {"nightly", "extra"};
	struct filter_meta meta[] = {{"mpi_size", "4", 0}};
	struct filter f;
	int64_t all[4] = {ids[3], ids[2], ids[1], ids[0]};
	int64_t nightly[3] = {ids[3], ids[2], ids[0]};
	int64_t m4[2] = {ids[2], ids[0]};
	int added = 0, removed = 0;

	(void)state;
	find(NULL, 4, all);
	memset(&f, 0, sizeof(f));
	find(&f, 4, all);
	f.limit = 2;
	find(&f, 2, all);
	f.limit = 0;
	f.tags = tags;
	f.ntags = 1;
	find(&f, 3, nightly);
	f.ntags = 2; /* every tag must be present */
	find(&f, 0, NULL);
	assert_int_equal(store_add_tag(st, &added, ids[2], "extra"), 0);
	assert_int_equal(added, 1);
	find(&f, 1, &ids[2]);
	assert_int_equal(store_remove_tag(st, &removed, ids[2], "extra"), 0);
	assert_int_equal(removed, 1);
	assert_int_equal(store_remove_tag(st, &removed, ids[2], "extra"), 0);
	assert_int_equal(removed, 0);
	find(&f, 0, NULL);
	memset(&f, 0, sizeof(f));
	f.commit = "bb";
	find(&f, 1, &ids[2]);
	f.commit = "b*"; /* GLOB characters are literal */
	find(&f, 0, NULL);
	f.commit = NULL;
	f.label = "ünï";
	find(&f, 1, &ids[3]);
	f.label = NULL;
	f.branch = "dev";
	find(&f, 1, &ids[1]);
	f.branch = NULL;
	strcpy(f.since, "2026-03-01T00:00:00Z");
	find(&f, 2, all);
	strcpy(f.until, "2026-03-31T23:59:59Z");
	find(&f, 1, &ids[2]);
	memset(&f, 0, sizeof(f));
	f.meta = meta;
	f.nmeta = 1;
	find(&f, 2, m4);
}

static void test_remove(void **state)
{
	struct store_run *runs = NULL;
	char *unpinned = NULL;
	int64_t prev = 0;
	size_t n = 0;
	int64_t left[3] = {ids[3], ids[1], ids[0]};

	(void)state;
	/* outside a transaction: refused */
	assert_int_equal(store_remove_run(st, &unpinned, ids[2], 0), ERR_USAGE);
	assert_int_equal(store_pin_set(st, &prev, "base", ids[2]), 0);
	assert_int_equal(store_pin_set(st, &prev, "also", ids[2]), 0);
	/* pinned: refused and the whole transaction rolled back */
	assert_int_equal(store_begin(st), 0);
	assert_int_equal(store_remove_run(st, &unpinned, ids[1], 0), 0);
	assert_null(unpinned);
	assert_int_equal(store_remove_run(st, &unpinned, ids[2], 0), ERR_USAGE);
	assert_string_equal(err_msg(),
			    "run 1 is pinned as 'also' and 'base': unpin it or use --force");
	store_rollback(st);
	find(NULL, 4, (int64_t[]){ids[3], ids[2], ids[1], ids[0]});
	/* forced: the pins go too */
	assert_int_equal(store_begin(st), 0);
	assert_int_equal(store_remove_run(st, &unpinned, ids[2], 1), 0);
	assert_string_equal(unpinned, "also, base");
	free(unpinned);
	assert_int_equal(store_remove_run(st, &unpinned, 999, 0), ERR_NOTFOUND);
	store_rollback(st);
	assert_int_equal(store_begin(st), 0);
	assert_int_equal(store_remove_run(st, &unpinned, ids[2], 1), 0);
	free(unpinned);
	assert_int_equal(store_commit(st), 0);
	find(NULL, 3, left);
	assert_int_equal(store_list_pins(st, (struct store_pin **)&runs, &n), 0);
	assert_int_equal(n, 0);
	store_pins_free((struct store_pin *)runs, n);
	{
		int64_t before = 0, after = 0;

		assert_int_equal(store_vacuum(st, &before, &after), 0);
		assert_true(before > 0 && after > 0 && after <= before);
	}
}

TU_MAIN(setup, tu_store_teardown,
	{
	    cmocka_unit_test(test_steps),
	    cmocka_unit_test(test_mark),
	    cmocka_unit_test(test_bars),
	    cmocka_unit_test(test_history_query),
	    cmocka_unit_test(test_history_match),
	    cmocka_unit_test(test_find_runs),
	    cmocka_unit_test(test_remove),
	})
