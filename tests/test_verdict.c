/*
 * test_verdict.c - the statistical verdicts of src/analysis/verdict.c on
 * values computed by hand: the noise of a history with and without a
 * step, the t interval and p of a log-ratio, Benjamini-Hochberg adjusted
 * p-values, the four calls and runs_needed.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/verdict.h"
#include "util/statdist.h"
#include "testutil.h"

static void near(double got, double want, double tol)
{
	if (!(fabs(got - want) <= tol)) {
		printf("got %.17g, want %.17g (tolerance %g)\n", got, want, tol);
		fail();
	}
}

static void test_noise(void **state)
{
	/* One segment: mean 0.04, ss = 3(0.04^2) + 2(0.06^2) = 0.012, df 4. */
	static const double flat[] = {0, 0.1, 0, 0.1, 0};
	/*
	 * A step of 1.0 after run 4: |d| = .02 x 5 and .98, scale 1.4826 x .02,
	 * .98 > 3.5 scales; segments {0,.02,0,.02} (ss .0004) and {1,1.02,1}
	 * (ss 2.6667e-4): sigma = sqrt(6.6667e-4 / 5), df 7 - 2 = 5.
	 */
	static const double step[] = {0, 0.02, 0, 0.02, 1.0, 1.02, 1.0};
	/* An outlying run: its two differences cut it out as a segment of one. */
	static const double outlier[] = {0, 0.02, 0, 5.0, 0, 0.02, 0};
	struct verdict_noise n;
	double tmp[8];

	(void)state;
	verdict_noise_estimate(&n, flat, 5, tmp);
	near(n.sigma, sqrt(0.003), 1e-15);
	near(n.df, 4.0, 0.0);
	assert_int_equal(n.ntrim, 0);
	assert_int_equal(n.nhist, 5);
	verdict_noise_estimate(&n, step, 7, tmp);
	near(n.sigma, sqrt((0.0004 + 2.0 / 3.0 * 0.0004) / 5.0), 1e-15);
	near(n.df, 5.0, 0.0);
	assert_int_equal(n.ntrim, 1);
	verdict_noise_estimate(&n, outlier, 7, tmp);
	assert_int_equal(n.ntrim, 2);
	near(n.df, 4.0, 0.0);
	/* segments {0,.02,0} and {0,.02,0}: ss 2 x (2/3)(.0004) */
	near(n.sigma, sqrt(4.0 / 3.0 * 0.0004 / 4.0), 1e-15);
	/* Too short: no estimate. */
	verdict_noise_estimate(&n, flat, 2, tmp);
	assert_true(isnan(n.sigma));
	assert_int_equal(n.nhist, 2);
}

static void test_log_mean(void **state)
{
	/* e^2 = 7.389056..., so the mean log of 1 and e^2 is 1 */
	static const double v[] = {1.0, 0.0, 7.38905609893065022723, -1.0, NAN};
	double m;

	(void)state;
	assert_int_equal(verdict_log_mean(&m, v, 5), 2);
	near(m, 1.0, 1e-15);
	assert_int_equal(verdict_log_mean(&m, v + 3, 2), 0);
	assert_true(isnan(m));
}

static void test_region(void **state)
{
	struct verdict_region r;
	double se = 0.03 * sqrt(1.1), y = log(1.2);

	(void)state;
	memset(&r, 0, sizeof(r));
	r.ycand = y;
	r.nbase = 10;
	r.ncand = 1;
	r.noise.sigma = 0.03;
	r.noise.df = 20.0;
	verdict_region(&r);
	near(r.ratio, 1.2, 1e-15);
	/* t_{0.975,20} = 2.086 (Fisher and Yates, table III) */
	near(r.lo, exp(y - 2.086 * se), 2e-5);
	near(r.hi, exp(y + 2.086 * se), 2e-5);
	near(r.lo, 1.12377, 1e-5);
	near(r.p, 2.0 * statdist_t_cdf(-y / se, 20.0), 1e-18);
	assert_true(r.p < 2e-5 && r.p > 5e-6);
	assert_int_equal(r.call, VERDICT_CALL_INCONCLUSIVE);
	/* no noise: inconclusive, ratio only */
	r.noise.sigma = NAN;
	verdict_region(&r);
	assert_int_equal(r.call, VERDICT_CALL_INCONCLUSIVE);
	assert_true(isnan(r.lo) && isnan(r.p));
	near(r.ratio, 1.2, 1e-15);
	/* no candidate value: no verdict */
	r.ncand = 0;
	verdict_region(&r);
	assert_int_equal(r.call, VERDICT_CALL_NONE);
	assert_string_equal(verdict_call_name(VERDICT_CALL_REGRESSED), "regressed");
	assert_string_equal(verdict_call_name(VERDICT_CALL_NONE), "");
	assert_string_equal(verdict_call_name(VERDICT_CALL_UNCHANGED), "unchanged");
	assert_string_equal(verdict_call_name(VERDICT_CALL_IMPROVED), "improved");
	assert_string_equal(verdict_call_name(VERDICT_CALL_INCONCLUSIVE), "inconclusive");
	assert_string_equal(verdict_call_name(VERDICT_CALL_COUNT), "");
}

/* A region whose test outcome is given directly. */
static void given(struct verdict_region *r, double p, double lo, double hi)
{
	memset(r, 0, sizeof(*r));
	r->nbase = r->ncand = 1;
	r->noise.sigma = 0.03;
	r->noise.df = 20.0;
	r->p = p;
	r->lo = lo;
	r->hi = hi;
	r->runs_needed = -1;
	r->call = VERDICT_CALL_INCONCLUSIVE;
}

static void test_decide(void **state)
{
	struct verdict_region r[6];

	(void)state;
	/*
	 * Benjamini-Hochberg over the 4 p-values .001, .02, .015, .5 (m = 4):
	 * sorted .001, .015, .02, .5 -> 4 p_(i) / i = .004, .03, .02667, .5,
	 * then the running minimum from the top: .004, .02667, .02667, .5.
	 */
	given(&r[0], 0.001, 1.10, 1.30);
	given(&r[1], 0.02, 1.06, 1.20);
	given(&r[2], 0.015, 0.80, 0.95);
	given(&r[3], 0.5, 0.90, 1.04);
	given(&r[4], NAN, NAN, NAN);
	given(&r[5], NAN, NAN, NAN);
	r[5].call = VERDICT_CALL_NONE;
	assert_int_equal(verdict_decide(r, 6, 5.0), 0);
	near(r[0].padj, 0.004, 1e-15);
	near(r[1].padj, 0.08 / 3.0, 1e-15);
	near(r[2].padj, 0.08 / 3.0, 1e-15);
	near(r[3].padj, 0.5, 1e-15);
	assert_int_equal(r[0].call, VERDICT_CALL_REGRESSED);
	assert_int_equal(r[1].call, VERDICT_CALL_REGRESSED);
	assert_int_equal(r[2].call, VERDICT_CALL_IMPROVED);
	assert_int_equal(r[3].call, VERDICT_CALL_UNCHANGED);
	assert_int_equal(r[4].call, VERDICT_CALL_INCONCLUSIVE);
	assert_int_equal(r[5].call, VERDICT_CALL_NONE);
	/* Significant but not surely beyond a 10% budget: inconclusive. */
	given(&r[0], 0.001, 1.06, 1.30);
	assert_int_equal(verdict_decide(r, 1, 10.0), 0);
	assert_int_equal(r[0].call, VERDICT_CALL_INCONCLUSIVE);
	assert_true(r[0].runs_needed >= 1);
	/*
	 * runs_needed by hand: ratio 1.02 of 10 baseline runs and 1 candidate,
	 * sigma .03, df 20, budget 5%: d = log 1.05 - log 1.02 = .028988;
	 * 2.085963 x .03 sqrt(.1 + 1/(1+m)) < d  <=>  1/(1+m) < .114582
	 * <=>  m >= 8.
	 */
	memset(&r[0], 0, sizeof(r[0]));
	r[0].ycand = log(1.02);
	r[0].nbase = 10;
	r[0].ncand = 1;
	r[0].noise.sigma = 0.03;
	r[0].noise.df = 20.0;
	verdict_region(&r[0]);
	assert_int_equal(verdict_decide(r, 1, 5.0), 0);
	assert_int_equal(r[0].call, VERDICT_CALL_INCONCLUSIVE);
	assert_int_equal(r[0].runs_needed, 8);
	/* Exactly at the budget: never decided by more runs. */
	r[0].ycand = log(1.05);
	verdict_region(&r[0]);
	assert_int_equal(verdict_decide(r, 1, 5.0), 0);
	assert_int_equal(r[0].runs_needed, VERDICT_MAX_RUNS);
}

TU_MAIN(NULL, NULL,
	{
	    cmocka_unit_test(test_noise),
	    cmocka_unit_test(test_log_mean),
	    cmocka_unit_test(test_region),
	    cmocka_unit_test(test_decide),
	})
