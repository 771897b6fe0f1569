/*
 * test_changes.c - store_region_series() and changes_find() on a store
 * built through the store API: 120 runs x 200 regions of aggregate rows
 * (enough cells for the second thread of changes_find()), inserted newest
 * first so that the order of the runs by time is the reverse of their ids.
 * Region r007 gets 30 % slower at the 60th run in time, r008 50 % slower
 * and is missing from the two runs before; runs 100 and 101 (in time)
 * share a commit; the other regions are steady with 1 % of seeded noise.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scopedb/changes.h"
#include "scopedb/err.h"
#include "scopedb/store.h"
#include "testutil.h"

#define NRUNS 120
#define NREG 200

static struct store *st;

/* Deterministic noise in [-0.01, 0.01]. */
static double noise(uint64_t *s)
{
	*s = *s * UINT64_C(6364136223846793005) + UINT64_C(1442695040888963407);
	return ((double)(*s >> 11) / 9007199254740992.0 - 0.5) * 0.02;
}

/* The run at place k in time (0 = oldest); inserted newest first. */
static int setup(void **state)
{
	int64_t rid[NREG], run;
	char name[32], sha[32], time[32], commit[32];
	uint64_t seed = 1;
	int k, r;

	(void)state;
	if (store_open_temporary(&st) || store_begin(st))
		return -1;
	for (r = 0; r < NREG; r++) {
		snprintf(name, sizeof(name), "r%03d", r);
		if (store_region_id(st, &rid[r], name))
			return -1;
	}
	for (k = NRUNS - 1; k >= 0; k--) {
		struct store_run run_row;

		snprintf(sha, sizeof(sha), "sha%d", k);
		snprintf(time, sizeof(time), "2026-01-01T%02d:%02d:00Z", k / 60, k % 60);
		snprintf(commit, sizeof(commit), "c%03d", k == 101 ? 100 : k);
		memset(&run_row, 0, sizeof(run_row));
		run_row.sha256 = sha;
		run_row.source_path = (char *)"/data/p.h5";
		run_row.recorded_at = time;
		run_row.commit = commit;
		run_row.branch = (char *)(k < 110 ? "main" : "dev");
		run_row.schema = 3;
		run_row.layout = (char *)"aggregate";
		run_row.num_ranks = 1;
		if (store_insert_run(st, &run, &run_row))
			return -1;
		for (r = 0; r < NREG; r++) {
			double v = 1e6 * (1.0 + r) * (1.0 + noise(&seed));
			struct store_timing t;

			if (r == 8 && (k == 58 || k == 59))
				continue;
			if (k >= 60 && r == 7)
				v *= 1.3;
			if (k >= 60 && r == 8)
				v *= 1.5;
			memset(&t, 0, sizeof(t));
			t.run_id = run;
			t.region_id = rid[r];
			t.calls = 10;
			t.total = (int64_t)v;
			t.min = t.max = (int64_t)(v / 10);
			t.exclusive = -1;
			t.source_line = -1;
			if (store_add_timing(st, &t))
				return -1;
		}
		if (store_finish_run(st, run))
			return -1;
	}
	return store_commit(st) ? -1 : 0;
}

static int teardown(void **state)
{
	(void)state;
	store_close(st);
	return 0;
}

static int keep_r00(void *ctx, int *keep, const char *name)
{
	(void)ctx;
	*keep = !strncmp(name, "r00", 3);
	return 0;
}

static int keep_none(void *ctx, int *keep, const char *name)
{
	(void)ctx;
	(void)name;
	*keep = 0;
	return 0;
}

static void test_series(void **state)
{
	struct store_series s;
	struct filter f;
	size_t i;

	(void)state;
	assert_int_equal(store_region_series(st, &s, NULL, NULL, NULL), 0);
	assert_int_equal(s.nruns, NRUNS);
	assert_int_equal(s.nregions, NREG);
	assert_int_equal(s.nselected, NREG);
	assert_int_equal(s.ncells, NRUNS * NREG - 2);
	/* oldest first: the last inserted run (the highest id) */
	assert_int_equal(s.runs[0].id, NRUNS);
	assert_string_equal(s.runs[0].time, "2026-01-01T00:00:00Z");
	assert_string_equal(s.runs[101].commit, "c100");
	assert_string_equal(s.names[7], "r007");
	for (i = 0; i < s.ncells; i++) {
		assert_string_equal(s.cells[i].stats.name, s.names[s.cells[i].region]);
		if (i && s.cells[i].region == s.cells[i - 1].region)
			assert_true(s.cells[i].run > s.cells[i - 1].run);
		else if (i)
			assert_true(s.cells[i].region == s.cells[i - 1].region + 1);
	}
	assert_int_equal(s.cells[NRUNS].region, 1); /* r000 has every run */
	store_series_release(&s);

	/* filters: regions r000..r009, branch main, the newest 50 of them */
	memset(&f, 0, sizeof(f));
	f.branch = "main";
	f.limit = 50;
	assert_int_equal(store_region_series(st, &s, &f, keep_r00, NULL), 0);
	assert_int_equal(s.nruns, 50);
	assert_string_equal(s.runs[49].time, "2026-01-01T01:49:00Z");
	assert_int_equal(s.nregions, 10);
	assert_int_equal(s.ncells, 500);
	store_series_release(&s);
	assert_int_equal(store_region_series(st, &s, &f, keep_none, NULL), 0);
	assert_int_equal(s.nselected, 0);
	assert_int_equal(s.ncells, 0);
	store_series_release(&s);
}

static void test_changes(void **state)
{
	struct changepoint_opts o;
	struct changes_result r;
	struct filter f;

	(void)state;
	changepoint_opts_init(&o);
	assert_int_equal(
	    changes_find(&r, st, NULL, NULL, NULL, NULL, STATS_TOTAL, &o, CHANGES_SORT_TIME), 0);
	assert_int_equal(r.n, 2);
	/* the same run after: by region name */
	assert_string_equal(r.items[0].region, "r007");
	assert_string_equal(r.items[1].region, "r008");
	assert_string_equal(r.items[0].after->time, "2026-01-01T01:00:00Z");
	assert_string_equal(r.items[0].before->time, "2026-01-01T00:59:00Z");
	assert_true(fabs(r.items[0].cp.pct - 30.0) < 1.5);
	assert_int_equal(r.items[0].cp.runs_before, 60);
	assert_int_equal(r.items[0].cp.runs_after, 60);
	/* r008: runs 58 and 59 lack it, so the run before is 57 */
	assert_string_equal(r.items[1].before->time, "2026-01-01T00:57:00Z");
	assert_true(fabs(r.items[1].cp.pct - 50.0) < 2.0);
	changes_result_release(&r);

	assert_int_equal(
	    changes_find(&r, st, NULL, NULL, NULL, NULL, STATS_TOTAL, &o, CHANGES_SORT_PCT), 0);
	assert_int_equal(r.n, 2);
	assert_string_equal(r.items[0].region, "r008");
	changes_result_release(&r);

	/* --min-change 60 %: none; the newest 50 runs: none */
	o.min_change = 0.6;
	assert_int_equal(
	    changes_find(&r, st, NULL, NULL, NULL, NULL, STATS_TOTAL, &o, CHANGES_SORT_TIME), 0);
	assert_int_equal(r.n, 0);
	changes_result_release(&r);
	changepoint_opts_init(&o);
	memset(&f, 0, sizeof(f));
	f.limit = 50;
	assert_int_equal(
	    changes_find(&r, st, &f, keep_r00, NULL, "r00", STATS_TOTAL, &o, CHANGES_SORT_TIME), 0);
	assert_int_equal(r.n, 0);
	assert_int_equal(r.series.nregions, 10);
	changes_result_release(&r);

	assert_int_equal(
	    changes_find(&r, st, NULL, keep_none, NULL, "zzz", STATS_TOTAL, &o, CHANGES_SORT_TIME),
	    ERR_NOTFOUND);
	assert_non_null(strstr(err_msg(), "no region matches 'zzz' in store"));
	assert_int_equal(changes_sort_parse(&(enum changes_sort){0}, "size"), ERR_USAGE);
}

TU_MAIN(setup, teardown,
	{
	    cmocka_unit_test(test_series),
	    cmocka_unit_test(test_changes),
	})
