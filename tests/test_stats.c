/*
 * test_stats.c - metric values (numpy percentiles, imbalance, None rules),
 * diff rows (union, dropped rows, delta/pct, threshold, every sort order)
 * and check verdicts, against values worked out by hand from the format
 * doc's definitions.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scopedb/err.h"
#include "scopedb/stats.h"
#include "testutil.h"
#include "testutil_stats.h"
#include "util/percentile.h"

static void assert_close(double got, double want)
{
	double tol = 1e-12 * fmax(1.0, fabs(want));

	if (fabs(got - want) > tol)
		fail_msg("got %.17g, want %.17g", got, want);
}

static void test_percentile(void **state)
{
	/* Hand-computed numpy.percentile(d, q) (method "linear"). */
	static const int64_t d1[] = {1, 2, 3, 4};
	static const int64_t d2[] = {5, 13, 15};
	static const int64_t d3[] = {1, 10, 100, 1000, 10000};
	static const int64_t d4[] = {42};
	static const int64_t d5[] = {7, 7, 7, 9};

	(void)state;
	assert_close(percentile_sorted(d1, 4, 50), 2.5);
	assert_close(percentile_sorted(d1, 4, 95), 3.85);
	assert_close(percentile_sorted(d1, 4, 99), 3.97);
	assert_close(percentile_sorted(d1, 4, 0), 1);
	assert_close(percentile_sorted(d1, 4, 100), 4);
	assert_close(percentile_sorted(d2, 3, 50), 13);
	assert_close(percentile_sorted(d2, 3, 95), 14.8);
	assert_close(percentile_sorted(d2, 3, 99), 14.96);
	assert_close(percentile_sorted(d3, 5, 50), 100);
	assert_close(percentile_sorted(d3, 5, 95), 8200);
	assert_close(percentile_sorted(d3, 5, 99), 9640);
	assert_close(percentile_sorted(d3, 5, 25), 10);
	assert_close(percentile_sorted(d4, 1, 99), 42);
	assert_close(percentile_sorted(d5, 4, 50), 7);
	assert_close(percentile_sorted(d5, 4, 95), 8.7);
}

static void test_metric_names(void **state)
{
	static const char *names[] = {"gpu_total", "gpu_avg", "total",	   "self",
				      "avg",	   "min",     "max",	   "p50",
				      "p95",	   "p99",     "imbalance", "calls"};
	enum stats_metric m;
	enum stats_sort s;
	int i;

	(void)state;
	for (i = 0; i < STATS_NMETRICS; i++) {
		assert_int_equal(stats_metric_parse(&m, names[i]), 0);
		assert_int_equal(m, i);
		assert_string_equal(stats_metric_name(m), names[i]);
	}
	assert_int_equal(stats_metric_parse(&m, "p90"), ERR_USAGE);
	assert_string_equal(err_msg(),
			    "invalid --metric 'p90': choose from gpu_total, gpu_avg, "
			    "total, self, avg, min, max, p50, p95, p99, imbalance, calls; did "
			    "you mean 'p50'?");
	/* any case; no suggestion when nothing is close */
	assert_int_equal(stats_metric_parse(&m, "GPU_Total"), 0);
	assert_int_equal(m, STATS_GPU_TOTAL);
	assert_int_equal(stats_metric_parse(&m, "latency"), ERR_USAGE);
	assert_string_equal(err_msg(),
			    "invalid --metric 'latency': choose from gpu_total, "
			    "gpu_avg, total, self, avg, min, max, p50, p95, p99, imbalance, calls");
	assert_int_equal(stats_sort_parse(&s, "dleta"), ERR_USAGE);
	assert_string_equal(
	    err_msg(),
	    "invalid --sort 'dleta': choose from delta, pct, name; did you mean 'delta'?");
	assert_true(stats_metric_quantile(STATS_P95) == 95.0);
	assert_true(stats_metric_quantile(STATS_TOTAL) == 0.0);
	assert_true(stats_metric_is_count(STATS_CALLS));
	assert_false(stats_metric_is_count(STATS_TOTAL));
	assert_int_equal(stats_sort_parse(&s, "pct"), 0);
	assert_int_equal(s, STATS_SORT_PCT);
	assert_int_equal(stats_sort_parse(&s, "name"), 0);
	assert_int_equal(s, STATS_SORT_NAME);
	assert_int_equal(stats_sort_parse(&s, "delta"), 0);
	assert_int_equal(s, STATS_SORT_DELTA);
	assert_int_equal(stats_sort_parse(&s, "abs"), ERR_USAGE);
	assert_string_equal(err_msg(), "invalid --sort 'abs': choose from delta, pct, name");
}

static struct stats_val value(const struct stats_region *r, enum stats_metric m)
{
	struct stats_val v;

	assert_int_equal(stats_region_value(&v, r, m), 0);
	return v;
}

static void test_region_values(void **state)
{
	/* Two ranks: rank 0 calls 5,13,15 ns (GPU 2 and 4 on two calls), rank
	 * 1 calls 1 and 2 ns. */
	static const int64_t sorted[] = {1, 2, 5, 13, 15};
	struct stats_region r;
	struct stats_val v;

	(void)state;
	memset(&r, 0, sizeof(r));
	r.calls = 5;
	r.total = 36;
	r.min = 1;
	r.max = 15;
	r.has_events = 1;
	r.gpu_count = 2;
	r.gpu_total = 6;
	r.busy_ranks = 2;
	r.busy_max = 33;
	r.samples.sorted = sorted;
	r.samples.nsorted = 5;
	assert_close(value(&r, STATS_TOTAL).v, 36e-9);
	assert_close(value(&r, STATS_AVG).v, 7.2e-9);
	assert_close(value(&r, STATS_MIN).v, 1e-9);
	assert_close(value(&r, STATS_MAX).v, 15e-9);
	assert_close(value(&r, STATS_CALLS).v, 5);
	assert_close(value(&r, STATS_GPU_TOTAL).v, 6e-9);
	assert_close(value(&r, STATS_GPU_AVG).v, 3e-9);
	assert_close(value(&r, STATS_P50).v, 5e-9);
	assert_close(value(&r, STATS_P95).v, 14.6e-9); /* pos 3.8: 13 + 2*0.8 */
	assert_close(value(&r, STATS_P99).v, 14.92e-9);
	/* totals 33 and 3: max / mean - 1 = 33/18 - 1 */
	assert_close(value(&r, STATS_IMBALANCE).v, (33.0 / 18.0 - 1.0) * 100.0);
	assert_false(value(&r, STATS_IMBALANCE).none);

	/* Percentiles without the durations: a caller bug, reported. */
	r.samples.sorted = NULL;
	assert_int_equal(stats_region_value(&v, &r, STATS_P50), ERR_GENERIC);

	/* No GPU values: gpu metrics None, others unaffected. */
	r.gpu_count = 0;
	r.gpu_total = 0;
	assert_true(value(&r, STATS_GPU_TOTAL).none);
	assert_true(value(&r, STATS_GPU_AVG).none);
	assert_false(value(&r, STATS_TOTAL).none);

	/* One busy rank (or none): imbalance 0.0. */
	r.busy_ranks = 1;
	r.busy_max = 36;
	assert_false(value(&r, STATS_IMBALANCE).none);
	assert_true(value(&r, STATS_IMBALANCE).v == 0.0);
	/* Balanced ranks: exactly 0. */
	r.busy_ranks = 3;
	r.busy_max = 12;
	assert_true(value(&r, STATS_IMBALANCE).v == 0.0);
	/* Nearly balanced: 1e9+1 and 1e9 ns, exact (1/(2e9+1)) * 100. */
	r.total = 2000000001;
	r.busy_ranks = 2;
	r.busy_max = 1000000001;
	assert_close(value(&r, STATS_IMBALANCE).v / (1.0 / 2000000001.0 * 100.0), 1.0);

	/* Aggregate layout: counts, totals, extremes; no percentiles or GPU. */
	r.has_events = 0;
	r.total = 36;
	r.gpu_count = 2;
	r.gpu_total = 6;
	assert_true(value(&r, STATS_P50).none);
	assert_true(value(&r, STATS_P99).none);
	assert_true(value(&r, STATS_GPU_TOTAL).none);
	assert_true(value(&r, STATS_GPU_AVG).none);
	assert_close(value(&r, STATS_TOTAL).v, 36e-9);
	assert_close(value(&r, STATS_MAX).v, 15e-9);

	/* No calls on the selected ranks: calls 0, imbalance 0.0, rest None. */
	memset(&r, 0, sizeof(r));
	r.has_events = 1;
	assert_false(value(&r, STATS_CALLS).none);
	assert_true(value(&r, STATS_CALLS).v == 0.0);
	assert_false(value(&r, STATS_IMBALANCE).none);
	assert_true(value(&r, STATS_IMBALANCE).v == 0.0);
	assert_true(value(&r, STATS_TOTAL).none);
	assert_true(value(&r, STATS_AVG).none);
	assert_true(value(&r, STATS_MIN).none);
	assert_true(value(&r, STATS_MAX).none);
	assert_true(value(&r, STATS_P50).none); /* no durations needed */
	assert_true(value(&r, STATS_GPU_TOTAL).none);
}

/* The example used by the diff tests (see the table in test_diff_rows). */
static const struct stats_named side_a[] = {
    {"solve", TU_V(1.0)}, {"io", TU_V(2.0)},  {"gone", TU_V(3.0)},
    {"zero", TU_V(0.0)},  {"anone", TU_NONE}, {"bothnone", TU_NONE},
};
static const struct stats_named side_b[] = {
    {"zero", TU_V(1.0)},  {"new", TU_V(4.0)},	 {"io", TU_V(1.0)},	  {"solve", TU_V(1.5)},
    {"anone", TU_V(2.0)}, {"bothnone", TU_NONE}, {"onlyb_none", TU_NONE},
};

struct want_row {
	const char *name;
	struct stats_val a, b;
	double delta;
	struct stats_val pct;
};

static const struct want_row W_ANONE = {"anone", TU_NONE, TU_V(2.0), 2.0, TU_NONE};
static const struct want_row W_GONE = {"gone", TU_V(3.0), TU_NONE, -3.0, TU_V(-100.0)};
static const struct want_row W_IO = {"io", TU_V(2.0), TU_V(1.0), -1.0, TU_V(-50.0)};
static const struct want_row W_NEW = {"new", TU_NONE, TU_V(4.0), 4.0, TU_NONE};
static const struct want_row W_SOLVE = {"solve", TU_V(1.0), TU_V(1.5), 0.5, TU_V(50.0)};
static const struct want_row W_ZERO = {"zero", TU_V(0.0), TU_V(1.0), 1.0, TU_NONE};

static void assert_val(struct stats_val got, struct stats_val want)
{
	assert_int_equal(got.none, want.none);
	if (!want.none)
		assert_close(got.v, want.v);
}

static void expect_rows(enum stats_sort sort, int has_threshold, double threshold,
			const struct want_row *const *want, size_t n)
{
	struct stats_diff_opts o = {sort, has_threshold, threshold};
	struct stats_row *rows = NULL;
	size_t nr = 99, i;

	assert_int_equal(stats_diff(&rows, &nr, side_a, 6, side_b, 7, &o), 0);
	assert_int_equal(nr, n);
	for (i = 0; i < n; i++) {
		assert_string_equal(rows[i].name, want[i]->name);
		assert_val(rows[i].a, want[i]->a);
		assert_val(rows[i].b, want[i]->b);
		assert_close(rows[i].delta, want[i]->delta);
		assert_val(rows[i].pct, want[i]->pct);
		assert_int_equal(rows[i].violation, 0);
	}
	free(rows);
}

static void test_diff_rows(void **state)
{
	/*
	 *   name      a     b     delta  pct
	 *   anone     None  2     +2     None
	 *   bothnone  None  None  (dropped)
	 *   gone      3     None  -3     -100
	 *   io        2     1     -1     -50
	 *   new       None  4     +4     None
	 *   onlyb_none (None on its only side: dropped)
	 *   solve     1     1.5   +0.5   +50
	 *   zero      0     1     +1     None (baseline 0)
	 */
	const struct want_row *by_name[] = {&W_ANONE, &W_GONE, &W_IO, &W_NEW, &W_SOLVE, &W_ZERO};
	/* |delta| 4, 3, 2, 1, 1, 0.5: io before zero (tie, alphabetical). */
	const struct want_row *by_delta_all[] = {&W_NEW, &W_GONE, &W_ANONE,
						 &W_IO,	 &W_ZERO, &W_SOLVE};
	/* |pct| 100, 50, 50, then the None rows alphabetically. */
	const struct want_row *by_pct[] = {&W_GONE, &W_IO, &W_SOLVE, &W_ANONE, &W_NEW, &W_ZERO};
	const struct want_row *thr60[] = {&W_ANONE, &W_GONE, &W_NEW, &W_ZERO};
	const struct want_row *thr50[] = {&W_ANONE, &W_GONE, &W_IO, &W_NEW, &W_SOLVE, &W_ZERO};
	const struct want_row *thr_big[] = {&W_NEW, &W_ANONE, &W_ZERO};

	(void)state;
	expect_rows(STATS_SORT_NAME, 0, 0, by_name, 6);
	expect_rows(STATS_SORT_DELTA, 0, 0, by_delta_all, 6);
	expect_rows(STATS_SORT_PCT, 0, 0, by_pct, 6);
	/* Threshold: |pct| < 60 dropped, None kept; |pct| == 50 kept at 50. */
	expect_rows(STATS_SORT_NAME, 1, 60.0, thr60, 4);
	expect_rows(STATS_SORT_NAME, 1, 50.0, thr50, 6);
	/* Above every |pct|: only the None rows stay, sorted by |delta|. */
	expect_rows(STATS_SORT_DELTA, 1, 100.0000001, thr_big, 3);
}

static void test_diff_edge_cases(void **state)
{
	struct stats_diff_opts o = {STATS_SORT_DELTA, 0, 0.0};
	static const struct stats_named dup[] = {{"x", TU_V(1.0)}, {"x", TU_V(2.0)}};
	static const struct stats_named one[] = {{"x", TU_V(1.0)}};
	static const struct stats_named z[] = {{"b", TU_V(0.0)}, {"a", TU_V(0.0)}};
	struct stats_row *rows = (struct stats_row *)1;
	size_t n = 5;

	(void)state;
	/* Nothing on either side. */
	assert_int_equal(stats_diff(&rows, &n, NULL, 0, NULL, 0, &o), 0);
	assert_null(rows);
	assert_int_equal(n, 0);
	/* Duplicate names are a caller bug. */
	assert_int_equal(stats_diff(&rows, &n, dup, 2, one, 1, &o), ERR_GENERIC);
	assert_null(rows);
	/* Equal keys keep alphabetical order; +0 delta, pct None for a = 0. */
	assert_int_equal(stats_diff(&rows, &n, z, 2, z, 2, &o), 0);
	assert_int_equal(n, 2);
	assert_string_equal(rows[0].name, "a");
	assert_string_equal(rows[1].name, "b");
	assert_true(rows[0].delta == 0.0 && !signbit(rows[0].delta));
	assert_true(rows[0].pct.none);
	free(rows);
	/* Byte order for non-ASCII names (Python sorts by code point). */
	{
		static const struct stats_named u[] = {
		    {"\xc3\xa9", TU_V(1.0)}, {"z", TU_V(1.0)}, {"Z", TU_V(1.0)}, {"_", TU_V(1.0)}};

		o.sort = STATS_SORT_NAME;
		assert_int_equal(stats_diff(&rows, &n, u, 4, NULL, 0, &o), 0);
		assert_int_equal(n, 4);
		assert_string_equal(rows[0].name, "Z");
		assert_string_equal(rows[1].name, "_");
		assert_string_equal(rows[2].name, "z");
		assert_string_equal(rows[3].name, "\xc3\xa9");
		free(rows);
	}
}

/* Violations (by name, in row order) of a check with the given budget. */
static void expect_verdict(double budget, int fail_on_new, const char *const *want, size_t n)
{
	struct stats_diff_opts o = {STATS_SORT_PCT, 0, 0.0};
	struct stats_row *rows = NULL;
	size_t nr = 0, nv = 99, i, k = 0;

	assert_int_equal(stats_diff(&rows, &nr, side_a, 6, side_b, 7, &o), 0);
	assert_int_equal(stats_check(&nv, rows, nr, budget, fail_on_new), 0);
	assert_int_equal(nv, n);
	for (i = 0; i < nr; i++)
		if (rows[i].violation) {
			assert_true(k < n);
			assert_string_equal(rows[i].name, want[k++]);
		}
	assert_int_equal(k, n);
	free(rows);
}

static void test_check(void **state)
{
	static const char *solve[] = {"solve"};
	/* Row order by pct: gone, io, solve, anone, new, zero. */
	static const char *solve_new[] = {"solve", "anone", "new"};
	static const char *news[] = {"anone", "new"};
	struct stats_row row;
	size_t nv;

	(void)state;
	/* Default budget 0: only solve (+50%); gone (-100%) and zero (baseline
	 * 0) never fail; new regions pass without --fail-on-new. */
	expect_verdict(0.0, 0, solve, 1);
	expect_verdict(49.999, 0, solve, 1);
	/* Strictly greater: +50% within a 50% budget. */
	expect_verdict(50.0, 0, NULL, 0);
	expect_verdict(0.0, 1, solve_new, 3);
	expect_verdict(50.0, 1, news, 2);
	/* Negative or non-finite budgets are errors. */
	memset(&row, 0, sizeof(row));
	assert_int_equal(stats_check(&nv, &row, 1, -1.0, 0), ERR_USAGE);
	assert_int_equal(stats_check(&nv, &row, 1, NAN, 0), ERR_USAGE);
}

static void test_parse_percent(void **state)
{
	double v = 0;

	(void)state;
	assert_int_equal(stats_parse_percent(&v, "--max-regression", "5", 1), 0);
	assert_true(v == 5.0);
	assert_int_equal(stats_parse_percent(&v, "--max-regression", "2.5e0", 1), 0);
	assert_true(v == 2.5);
	assert_int_equal(stats_parse_percent(&v, "--threshold", "-1", 0), 0);
	assert_true(v == -1.0);
	assert_int_equal(stats_parse_percent(&v, "--max-regression", "-1", 1), ERR_USAGE);
	assert_string_equal(err_msg(), "invalid --max-regression '-1': must not be negative");
	/* a trailing '%' is allowed, once, after a number */
	assert_int_equal(stats_parse_percent(&v, "--threshold", "5%", 0), 0);
	assert_true(v == 5.0);
	assert_int_equal(stats_parse_percent(&v, "--max-regression", "2.5%", 1), 0);
	assert_true(v == 2.5);
	assert_int_equal(stats_parse_percent(&v, "--threshold", "5%%", 0), ERR_USAGE);
	assert_string_equal(err_msg(), "invalid --threshold '5%%': expected a number (percent)");
	assert_int_equal(stats_parse_percent(&v, "--threshold", "%", 0), ERR_USAGE);
	assert_int_equal(stats_parse_percent(&v, "--threshold", "5 %", 0), ERR_USAGE);
	assert_int_equal(stats_parse_percent(&v, "--threshold", "", 0), ERR_USAGE);
	assert_int_equal(stats_parse_percent(&v, "--threshold", "nan", 0), ERR_USAGE);
	assert_int_equal(stats_parse_percent(&v, "--threshold", "inf", 0), ERR_USAGE);
	assert_int_equal(stats_parse_percent(&v, "--threshold", "1e999", 0), ERR_USAGE);
	/* decimal only: strtod() alone reads "0x10" as 16 */
	assert_int_equal(stats_parse_percent(&v, "--max-regression", "0x10", 1), ERR_USAGE);
	assert_string_equal(err_msg(),
			    "invalid --max-regression '0x10': expected a number (percent)");
	assert_int_equal(stats_parse_percent(&v, "--threshold", "0X1p3", 0), ERR_USAGE);
	/* blanks before as after: refused (strtod() skips leading ones) */
	assert_int_equal(stats_parse_percent(&v, "--max-regression", " 5", 1), ERR_USAGE);
	assert_int_equal(stats_parse_percent(&v, "--max-regression", "\t5", 1), ERR_USAGE);
	/* -0 is 0, not a budget printed as "-0%" */
	assert_int_equal(stats_parse_percent(&v, "--max-regression", "-0", 1), 0);
	assert_false(signbit(v));
}

TU_MAIN(NULL, NULL,
	{
	    cmocka_unit_test(test_percentile),
	    cmocka_unit_test(test_metric_names),
	    cmocka_unit_test(test_region_values),
	    cmocka_unit_test(test_diff_rows),
	    cmocka_unit_test(test_diff_edge_cases),
	    cmocka_unit_test(test_check),
	    cmocka_unit_test(test_parse_percent),
	})
