/*
 * test_summary.c - "scopedb show"'s per-region summary (summary.c) on the
 * standard test profile (testutil_h5.h) ingested into a store, for all
 * ranks and a rank subset, with an include/exclude filter, the GPU
 * columns, and an aggregate-layout copy (std and percentiles None).
 *
 * The expected values are computed here from the profile's definition
 * (durations (37 i + 11 rank + 5 region) mod 23 ns), pooling, sorting and
 * interpolating independently of stats.c and the store; they must agree
 * to a relative 1e-12.  Also covered: --columns and --sort parsing and the
 * sort order.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scopedb/err.h"
#include "scopedb/ingest.h"
#include "scopedb/store.h"
#include "scopedb/summary.h"
#include "testutil.h"
#include "testutil_h5.h"
#include "testutil_store.h"

/* The standard profile's rows: rank, region (0 solve, 1 größe_λ, 2 io,
 * 3 idle), calls. */
static const struct {
	int64_t rank;
	int region;
	int calls;
} spec[] = {
    {0, 0, 5}, {0, 1, 3}, {0, 2, 2}, {0, 3, 0},	 {1, 0, 4},  {1, 1, 1},	 {1, 2, 3},
    {1, 3, 0}, {2, 0, 2}, {2, 1, 2}, {10, 0, 3}, {10, 2, 1}, {10, 1, 8},
};
static const char *const names[] = {"solve", "größe_λ", "io", "idle"};

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double pct(const double *d, int n, double q)
{
	double pos = q / 100.0 * (n - 1);
	int lo = (int)floor(pos);

	if (lo >= n - 1)
		return d[n - 1];
	return d[lo] + (d[lo + 1] - d[lo]) * (pos - lo);
}

/* Reference summary of region reg over ranks (NULL = all). */
static void reference(double *v, int reg, const int64_t *ranks, size_t nranks, int aggregate)
{
	double d[64], rank_tot[8], gpu = 0.0, sum = 0.0, mean, ss = 0.0, mx = 0.0;
	int n = 0, nr = 0, nrows = 0, ngpu = 0, busy = 0;
	size_t i, k;
	int c;

	for (i = 0; i < sizeof(spec) / sizeof(spec[0]); i++) {
		int sel = ranks == NULL;

		if (spec[i].region != reg)
			continue;
		for (k = 0; k < nranks; k++)
			sel |= ranks[k] == spec[i].rank;
		if (!sel)
			continue;
		nrows++;
		rank_tot[nr] = 0.0;
		for (c = 0; c < spec[i].calls; c++) {
			int64_t dur = (37 * c + 11 * spec[i].rank + 5 * reg) % 23;

			d[n++] = (double)dur;
			rank_tot[nr] += (double)dur;
			if (reg == 0 && c % 2 == 0) {
				gpu += (double)(2 * dur + 1);
				ngpu++;
			}
		}
		nr++;
	}
	for (c = 0; c < SUMMARY_NCOLS; c++)
		v[c] = NAN;
	v[SUMMARY_COL_RANKS] = nrows;
	v[SUMMARY_COL_CALLS] = n;
	v[SUMMARY_COL_IMBALANCE] = 0.0;
	if (n == 0)
		return;
	qsort(d, (size_t)n, sizeof(d[0]), cmp_dbl);
	for (c = 0; c < n; c++)
		sum += d[c];
	mean = sum / n;
	for (c = 0; c < n; c++)
		ss += (d[c] - mean) * (d[c] - mean);
	v[SUMMARY_COL_TOTAL] = sum / 1e9;
	v[SUMMARY_COL_AVG] = sum / n / 1e9;
	v[SUMMARY_COL_MIN] = d[0] / 1e9;
	v[SUMMARY_COL_MAX] = d[n - 1] / 1e9;
	if (!aggregate) {
		v[SUMMARY_COL_STD] = sqrt(ss / n) / 1e9;
		v[SUMMARY_COL_P50] = pct(d, n, 50) / 1e9;
		v[SUMMARY_COL_P95] = pct(d, n, 95) / 1e9;
		v[SUMMARY_COL_P99] = pct(d, n, 99) / 1e9;
		if (ngpu) {
			v[SUMMARY_COL_GPU_TOTAL] = gpu / 1e9;
			v[SUMMARY_COL_GPU_AVG] = gpu / 1e9 / ngpu;
		}
	}
	sum = 0.0;
	for (c = 0; c < nr; c++)
		if (rank_tot[c] > 0) {
			busy++;
			sum += rank_tot[c];
			if (rank_tot[c] > mx)
				mx = rank_tot[c];
		}
	if (busy >= 2)
		v[SUMMARY_COL_IMBALANCE] = (mx / (sum / busy) - 1.0) * 100.0;
}

static void check_row(const struct summary_row *row, int reg, const int64_t *ranks, size_t nranks,
		      int aggregate)
{
	double want[SUMMARY_NCOLS];
	int c;

	reference(want, reg, ranks, nranks, aggregate);
	for (c = 1; c < SUMMARY_NCOLS; c++) {
		/* self needs the call tree: checked against a reference in
		 * test_diff.c (ref_self()) and on the real files in test_paths.c */
		if (c == SUMMARY_COL_SELF)
			continue;
		if (isnan(want[c])) {
			if (!row->v[c].none)
				fail_msg("%s %s: got %.17g, want None", row->name,
					 summary_col_name((enum summary_col)c), row->v[c].v);
			continue;
		}
		if (row->v[c].none)
			fail_msg("%s %s: got None, want %.17g", row->name,
				 summary_col_name((enum summary_col)c), want[c]);
		if (fabs(row->v[c].v - want[c]) > 1e-12 * fabs(want[c]))
			fail_msg("%s %s: got %.17g, want %.17g", row->name,
				 summary_col_name((enum summary_col)c), row->v[c].v, want[c]);
	}
}

static struct store *st;
static int64_t run_events, run_aggregate;

static int setup(void **state)
{
	struct h5write_opts wo;
	struct ingest_opts io;
	struct ingest_result res;

	memset(&wo, 0, sizeof(wo));
	memset(&io, 0, sizeof(io));
	if (tu_store_open(state, &st, tu_path("s.sqlite")))
		return -1;
	wo.schema = 3;
	wo.gpu = 1;
	if (ingest_file(&res, st, tu_h5_write_standard("ev.h5", &wo), &io))
		return -1;
	run_events = res.run_id;
	wo.aggregate = 1;
	wo.gpu = 0;
	if (ingest_file(&res, st, tu_h5_write_standard("agg.h5", &wo), &io))
		return -1;
	run_aggregate = res.run_id;
	return 0;
}

/* Index of the region name in names[], or -1. */
static int region_index(const char *name)
{
	int i;

	for (i = 0; i < 4; i++)
		if (!strcmp(names[i], name))
			return i;
	return -1;
}

static void run_case(int64_t run, const int64_t *ranks, size_t nranks, int aggregate,
		     size_t want_rows)
{
	const struct summary_opts o = {.ranks = ranks, .nranks = nranks, .durations = 1};
	struct summary_row *rows = NULL;
	size_t n = 0, i;

	if (summary_run(&rows, &n, st, run, &o))
		fail_msg("summary_run: %s", err_msg());
	assert_int_equal(n, want_rows);
	for (i = 0; i < n; i++) {
		int reg = region_index(rows[i].name);

		assert_true(reg >= 0);
		if (i)
			assert_true(strcmp(rows[i - 1].name, rows[i].name) < 0);
		check_row(&rows[i], reg, ranks, nranks, aggregate);
	}
	summary_free(rows, n);
}

static void test_all_ranks(void **state)
{
	(void)state;
	run_case(run_events, NULL, 0, 0, 4);
}

/* The percentiles alone (show --columns without std): over all ranks
 * read from those stored at ingest, the same doubles the durations give,
 * std not computed; over some ranks (nothing stored) from the durations. */
static void test_quantiles_only(void **state)
{
	static const int64_t r01[] = {0, 1};
	struct summary_opts o = {.durations = 1};
	struct summary_row *full = NULL, *rows = NULL;
	size_t nfull = 0, n = 0, i, k, pass;
	static const int qcols[] = {SUMMARY_COL_P50, SUMMARY_COL_P95, SUMMARY_COL_P99};

	(void)state;
	for (pass = 0; pass < 2; pass++) {
		o.ranks = pass ? r01 : NULL;
		o.nranks = pass ? 2 : 0;
		o.quantiles_only = 0;
		assert_int_equal(summary_run(&full, &nfull, st, run_events, &o), 0);
		o.quantiles_only = 1;
		assert_int_equal(summary_run(&rows, &n, st, run_events, &o), 0);
		assert_int_equal(n, nfull);
		for (i = 0; i < n; i++) {
			assert_string_equal(rows[i].name, full[i].name);
			for (k = 0; k < 3; k++) {
				assert_int_equal(rows[i].v[qcols[k]].none,
						 full[i].v[qcols[k]].none);
				if (!full[i].v[qcols[k]].none &&
				    rows[i].v[qcols[k]].v != full[i].v[qcols[k]].v)
					fail_msg("%s %s: %.17g stored, %.17g from the durations",
						 rows[i].name,
						 summary_col_name((enum summary_col)qcols[k]),
						 rows[i].v[qcols[k]].v, full[i].v[qcols[k]].v);
			}
			/* std: not computed from the stored numbers, computed
			 * with the durations read for some ranks */
			if (!full[i].v[SUMMARY_COL_STD].none)
				assert_int_equal(rows[i].v[SUMMARY_COL_STD].none, !pass);
		}
		summary_free(full, nfull);
		summary_free(rows, n);
	}
}

static void test_rank_subset(void **state)
{
	static const int64_t r01[] = {0, 1}, r2[] = {2}, r10[] = {10, 11};

	(void)state;
	run_case(run_events, r01, 2, 0, 4);
	run_case(run_events, r2, 1, 0, 4); /* idle and io: rows elsewhere, calls 0 */
	run_case(run_events, r10, 2, 0, 4);
}

static void test_aggregate(void **state)
{
	static const int64_t r1[] = {1};

	(void)state;
	run_case(run_aggregate, r1, 1, 1, 4);
	run_case(run_aggregate, NULL, 0, 1, 4);
}

static void test_filter_and_no_durations(void **state)
{
	static const char *const inc[] = {"s", "i"}, *const exc[] = {"id"};
	struct summary_opts o;
	struct summary_row *rows = NULL;
	size_t n = 0;

	(void)state;
	memset(&o, 0, sizeof(o));
	o.includes = inc;
	o.ninclude = 2;
	o.excludes = exc;
	o.nexclude = 1;
	assert_int_equal(summary_run(&rows, &n, st, run_events, &o), 0);
	assert_int_equal(n, 2);
	assert_string_equal(rows[0].name, "io");
	assert_string_equal(rows[1].name, "solve");
	/* without durations: std and percentiles None, the rest present */
	assert_true(rows[1].v[SUMMARY_COL_P95].none);
	assert_true(rows[1].v[SUMMARY_COL_STD].none);
	assert_false(rows[1].v[SUMMARY_COL_TOTAL].none);
	assert_true(summary_has_gpu(rows, n));
	summary_sort(rows, n, SUMMARY_COL_CALLS);
	assert_string_equal(rows[0].name, "solve"); /* 14 calls vs 6 */
	summary_sort(rows, n, SUMMARY_COL_REGION);
	assert_string_equal(rows[0].name, "io");
	summary_free(rows, n);
	/* a bad pattern */
	{
		static const char *const bad[] = {"("};

		o.includes = bad;
		o.ninclude = 1;
		assert_int_equal(summary_run(&rows, &n, st, run_events, &o), ERR_USAGE);
	}
}

static void test_sort_none_last(void **state)
{
	struct summary_row rows[3];

	(void)state;
	memset(rows, 0, sizeof(rows));
	rows[0].name = (char *)"b";
	rows[0].v[SUMMARY_COL_P95].none = 1;
	rows[1].name = (char *)"c";
	rows[1].v[SUMMARY_COL_P95].v = 1.0;
	rows[2].name = (char *)"a";
	rows[2].v[SUMMARY_COL_P95].v = 2.0;
	summary_sort(rows, 3, SUMMARY_COL_P95);
	assert_string_equal(rows[0].name, "a");
	assert_string_equal(rows[1].name, "c");
	assert_string_equal(rows[2].name, "b");
}

static void test_parse(void **state)
{
	static const struct {
		const char *word;
		enum summary_col col;
	} any_case[] = {{"NAME", SUMMARY_COL_REGION}, {"P95", SUMMARY_COL_P95}};
	enum summary_col cols[SUMMARY_NCOLS], c;
	size_t n = 0, i;

	(void)state;
	assert_int_equal(summary_parse_columns(cols, &n, "p95,calls,p95"), 0);
	assert_int_equal(n, 3);
	assert_int_equal(cols[0], SUMMARY_COL_REGION);
	assert_int_equal(cols[1], SUMMARY_COL_P95);
	assert_int_equal(cols[2], SUMMARY_COL_CALLS);
	assert_int_equal(summary_parse_columns(cols, &n, "total,region,std"), 0);
	assert_int_equal(n, 3);
	assert_int_equal(summary_parse_columns(cols, &n, "total,bogus"), ERR_USAGE);
	assert_non_null(strstr(err_msg(), "unknown column 'bogus'"));
	assert_int_equal(summary_parse_columns(cols, &n, ""), ERR_USAGE);
	assert_int_equal(summary_parse_sort(&c, "name"), 0);
	assert_int_equal(c, SUMMARY_COL_REGION);
	assert_int_equal(summary_parse_sort(&c, "gpu_avg"), 0);
	assert_int_equal(c, SUMMARY_COL_GPU_AVG);
	/* any case, as every option's fixed values */
	for (i = 0; i < sizeof(any_case) / sizeof(any_case[0]); i++) {
		assert_int_equal(summary_parse_sort(&c, any_case[i].word), 0);
		assert_int_equal(c, any_case[i].col);
	}
	assert_int_equal(summary_parse_columns(cols, &n, "Calls,GPU_Total"), 0);
	assert_int_equal(n, 3);
	assert_int_equal(cols[1], SUMMARY_COL_CALLS);
	assert_int_equal(cols[2], SUMMARY_COL_GPU_TOTAL);
	assert_int_equal(summary_parse_sort(&c, "delta"), ERR_USAGE);
	assert_string_equal(err_msg(),
			    "invalid --sort 'delta': choose from name, region, ranks, calls, "
			    "nested, total, self, avg, min, max, std, p50, p95, p99, imbalance, "
			    "gpu_total, gpu_avg");
}

TU_MAIN(setup, tu_store_teardown,
	{
	    cmocka_unit_test(test_all_ranks),
	    cmocka_unit_test(test_quantiles_only),
	    cmocka_unit_test(test_rank_subset),
	    cmocka_unit_test(test_aggregate),
	    cmocka_unit_test(test_filter_and_no_durations),
	    cmocka_unit_test(test_sort_none_last),
	    cmocka_unit_test(test_parse),
	})
