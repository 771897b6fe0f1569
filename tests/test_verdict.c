/*
 * test_verdict.c - the statistical verdicts of src/analysis/verdict.c on
 * values computed by hand: the noise of a history with and without a
 * step, an outlying run, a constant history (with a clean step), quantized
 * values; the prior pooled over regions (Smyth 2004, computed with
 * mpmath to 30 digits); the skipped mean of a set; the t interval and
 * one-sided p of a log-ratio, a change below the timer's resolution;
 * Benjamini-Hochberg adjusted p-values in each direction, the five calls
 * and runs_needed.
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
	 * (ss 2.6667e-4): s2 = 6.6667e-4 / 5, df 7 - 2 = 5.  (Its 3 runs are
	 * too few for changepoint_find() to confirm the step, and it began
	 * before the newest two: no provisional change either.)
	 */
	static const double step[] = {0, 0.02, 0, 0.02, 1.0, 1.02, 1.0};
	/* An outlying run: its two differences cut it out as a segment of one. */
	static const double outlier[] = {0, 0.02, 0, 5.0, 0, 0.02, 0};
	struct verdict_noise n;
	double tmp[8];

	(void)state;
	assert_int_equal(verdict_noise_estimate(&n, flat, 5, 0.0, tmp), 0);
	near(n.s2, 0.003, 1e-17);
	near(n.df, 4.0, 0.0);
	assert_int_equal(n.nsteps, 0);
	assert_int_equal(n.nhist, 5);
	assert_false(n.constant);
	assert_true(isnan(n.sigma)); /* set by verdict_pool() */
	assert_int_equal(verdict_noise_estimate(&n, step, 7, 0.0, tmp), 0);
	near(n.s2, (0.0004 + 2.0 / 3.0 * 0.0004) / 5.0, 1e-17);
	near(n.df, 5.0, 0.0);
	assert_int_equal(n.nsteps, 1);
	assert_int_equal(verdict_noise_estimate(&n, outlier, 7, 0.0, tmp), 0);
	assert_int_equal(n.nsteps, 2);
	near(n.df, 4.0, 0.0);
	/* segments {0,.02,0} and {0,.02,0}: ss 2 x (2/3)(.0004) */
	near(n.s2, 4.0 / 3.0 * 0.0004 / 4.0, 1e-17);
	/* Too short: no estimate. */
	assert_int_equal(verdict_noise_estimate(&n, flat, 2, 0.0, tmp), 0);
	assert_true(isnan(n.s2));
	near(n.df, 0.0, 0.0);
	assert_int_equal(n.nhist, 2);
}

/* Issue 23, item 5: zero noise and the timer's resolution. */
static void test_noise_constant(void **state)
{
	/* byte-identical runs: constant, s2 0 with n - 1 degrees of freedom */
	static const double same[] = {6.9, 6.9, 6.9, 6.9, 6.9, 6.9, 6.9, 6.9};
	/* a constant series with one clean step: the step is cut although the
	 * robust scale of the differences is 0 */
	static const double clean[] = {1, 1, 1, 1, 1, 2, 2, 2, 2, 2};
	/* quantized: 4 of 9 differences are one unit (1e-3), the rest 0:
	 * noise, not steps (at least 3 and 10 %); mean 3e-4, ss = 3 (7e-4)^2
	 * + 7 (3e-4)^2 = 2.1e-6 over 9 */
	static const double quant[] = {0, 0, 1e-3, 1e-3, 0, 0, 1e-3, 0, 0, 0};
	struct verdict_noise n;
	double tmp[16];

	(void)state;
	assert_int_equal(verdict_noise_estimate(&n, same, 8, 1e-3, tmp), 0);
	assert_true(n.constant);
	near(n.s2, 0.0, 0.0);
	near(n.df, 7.0, 0.0);
	near(n.res, 1e-3, 0.0);
	assert_int_equal(verdict_noise_estimate(&n, clean, 10, 0.0, tmp), 0);
	assert_true(n.constant);
	assert_int_equal(n.nsteps, 1);
	near(n.df, 8.0, 0.0);
	assert_int_equal(verdict_noise_estimate(&n, quant, 10, 1e-3, tmp), 0);
	assert_false(n.constant);
	assert_int_equal(n.nsteps, 0);
	near(n.s2, 2.1e-6 / 9.0, 1e-20);
}

/* A step the differences do not show (3 noise units, spread over runs) is
 * cut at the change point changepoint_find() reports. */
static void test_noise_past_step(void **state)
{
	double v[30], tmp[30], m0 = 0.0, m1 = 0.0, ss = 0.0;
	struct verdict_noise n;
	uint64_t s = 99;
	size_t i;

	(void)state;
	for (i = 0; i < 30; i++) {
		double u1, u2;

		s = s * UINT64_C(6364136223846793005) + UINT64_C(1442695040888963407);
		u1 = ((double)(s >> 11) + 0.5) / 9007199254740992.0;
		s = s * UINT64_C(6364136223846793005) + UINT64_C(1442695040888963407);
		u2 = ((double)(s >> 11) + 0.5) / 9007199254740992.0;
		v[i] = 0.01 * sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2) +
		       (i >= 12 ? 0.05 : 0.0);
	}
	for (i = 0; i < 12; i++)
		m0 += v[i] / 12.0;
	for (i = 12; i < 30; i++)
		m1 += v[i] / 18.0;
	for (i = 0; i < 30; i++)
		ss += (v[i] - (i < 12 ? m0 : m1)) * (v[i] - (i < 12 ? m0 : m1));
	assert_int_equal(verdict_noise_estimate(&n, v, 30, 0.0, tmp), 0);
	assert_int_equal(n.nsteps, 1);
	near(n.df, 28.0, 0.0);
	near(n.s2, ss / 28.0, 1e-15);
}

/* The prior of Smyth (2004) by hand (mpmath, 30 digits): s2 = .01, .02,
 * .04, .03 with 10 df each give evar = 0.14007954201497698 > 0, df0 =
 * 2 trigamma^-1(evar) = 15.254338448219727, s0^2 = 0.022952655207005489;
 * region 1's moderated s2 = (df0 s0^2 + 10 x .01) / (df0 + 10) =
 * 0.017823772011920816, borrowing df0 / (df0 + 10) = 0.60402843176812903. */
static void test_pool(void **state)
{
	static const double s2[] = {0.01, 0.02, 0.04, 0.03};
	static const double want[] = {0.0178237720119208159, 0.0217834876942395256,
				      0.0297029190588769451, 0.0257432033765582354};
	struct verdict_region r[7];
	struct verdict_prior pr;
	size_t i;

	(void)state;
	memset(r, 0, sizeof(r));
	for (i = 0; i < 4; i++) {
		r[i].noise.s2 = s2[i];
		r[i].noise.df = 10.0;
	}
	/* no history of its own: the prior alone */
	r[4].noise.s2 = NAN;
	/* a constant history keeps its own noise, at least its resolution */
	r[5].noise.df = 5.0;
	r[5].noise.constant = 1;
	r[5].noise.res = 1e-3;
	/* a constant history without a known resolution: a part in a billion */
	r[6].noise.df = 5.0;
	r[6].noise.constant = 1;
	assert_int_equal(verdict_pool(r, 7, &pr), 0);
	assert_int_equal(pr.nregions, 4);
	near(pr.df, 15.2543384482197267, 1e-10);
	near(pr.s2, 0.0229526552070054886, 1e-13);
	for (i = 0; i < 4; i++) {
		near(r[i].noise.sigma * r[i].noise.sigma, want[i], 1e-13);
		near(r[i].noise.borrowed, 0.604028431768129028, 1e-11);
		near(r[i].noise.dft, 25.2543384482197267, 1e-10);
	}
	near(r[4].noise.sigma, sqrt(0.0229526552070054886), 1e-12);
	near(r[4].noise.borrowed, 1.0, 0.0);
	near(r[4].noise.dft, pr.df, 0.0);
	near(r[5].noise.sigma, 1e-3, 0.0);
	near(r[5].noise.borrowed, 0.0, 0.0);
	near(r[5].noise.dft, 5.0, 0.0);
	near(r[6].noise.sigma, 1e-9, 0.0);

	/* identical variances: evar < 0, the prior's weight is capped */
	for (i = 0; i < 4; i++)
		r[i].noise.s2 = 0.01;
	assert_int_equal(verdict_pool(r, 4, &pr), 0);
	near(pr.df, VERDICT_PRIOR_DF_MAX, 0.0);
	near(r[0].noise.borrowed, VERDICT_PRIOR_DF_MAX / (VERDICT_PRIOR_DF_MAX + 10.0), 1e-15);

	/* fewer than 3 regions with an estimate: nothing is pooled */
	assert_int_equal(verdict_pool(r, 2, &pr), 0);
	assert_int_equal(pr.nregions, 0);
	near(r[0].noise.sigma, 0.1, 1e-16);
	near(r[0].noise.borrowed, 0.0, 0.0);
	near(r[0].noise.dft, 10.0, 0.0);
	memset(&r[0].noise, 0, sizeof(r[0].noise));
	r[0].noise.s2 = NAN;
	assert_int_equal(verdict_pool(r, 1, &pr), 0);
	assert_true(isnan(r[0].noise.sigma));
}

static void test_location(void **state)
{
	/* two runs as usual and one 2.5x slower: left out (0.906 > 4.5 x .03) */
	double three[] = {0.01, -0.02, log(2.5)};
	double two[] = {0.0, 1.0}, five[] = {1, 2, 3, 4, 100}, tmp[16];
	/* at 15 % noise a 2.05x run 0.72 above two runs at -0.1 and 0.1: 0.62
	 * from the median 0.1 (kept when the median was the centre), 0.72 from
	 * the others' mean 0, beyond 4.5 x 0.15 = 0.675 */
	double high[] = {-0.1, 0.72, 0.1}, even[] = {-1.0, 0.0, 1.0};
	double four[] = {log(3.0), log(1.2), 0.0, log(1.01)};
	double mild[] = {0.0, 0.02, 0.1}, normal[] = {0.0, 0.02, 0.01}, low[] = {0.0, 0.02, -0.1};
	unsigned char rej[8], drop[4] = {1, 0, 0, 0}, all[3] = {1, 1, 1};
	unsigned char drop3[3] = {0, 0, 1}, fast3[3] = {0, 0, 2}, drop2[2] = {0, 1};
	size_t kept;

	(void)state;
	near(verdict_location(three, 3, 0.03, NULL, rej, &kept, tmp), -0.005, 1e-17);
	assert_int_equal(kept, 2);
	assert_true(rej[2] == 1 && rej[0] == 0 && rej[1] == 0);
	/* two values: neither can be told an outlier */
	near(verdict_location(two, 2, 0.01, NULL, rej, &kept, tmp), 0.5, 0.0);
	assert_int_equal(kept, 2);
	/* no noise estimate: the scale is 1.4826 MAD = 1.4826; 100 is 97 away */
	near(verdict_location(five, 5, NAN, NULL, rej, &kept, tmp), 2.5, 0.0);
	assert_int_equal(kept, 4);
	assert_int_equal(rej[4], 1);
	assert_true(isnan(verdict_location(five, 0, 0.1, NULL, rej, &kept, tmp)));
	near(verdict_location(high, 3, 0.15, NULL, rej, &kept, tmp), 0.0, 1e-17);
	assert_int_equal(kept, 2);
	assert_true(rej[1] == 1 && rej[0] == 0 && rej[2] == 0);
	/* the two outer values equally far from the median: neither goes */
	near(verdict_location(even, 3, 0.1, NULL, rej, &kept, tmp), 0.0, 0.0);
	assert_int_equal(kept, 3);
	/* an outlier repetition (slower elsewhere) 0.09 above the others'
	 * median here, beyond 2 x 0.03 (VERDICT_DROP) but within 4.5: left
	 * out; its mark stays in place */
	near(verdict_location(mild, 3, 0.03, drop3, rej, &kept, tmp), 0.01, 1e-17);
	assert_int_equal(kept, 2);
	assert_true(rej[2] == 1 && rej[0] == 0 && rej[1] == 0);
	near(verdict_location(mild, 3, 0.03, NULL, rej, &kept, tmp), 0.04, 1e-17);
	assert_int_equal(kept, 3);
	/* where it lies with the others, it stays: a spike of another
	 * repetition there is then judged among three as usual */
	near(verdict_location(normal, 3, 0.03, drop3, rej, &kept, tmp), 0.01, 1e-17);
	assert_int_equal(kept, 3);
	/* faster elsewhere (2): left out where it lies below */
	near(verdict_location(low, 3, 0.03, fast3, rej, &kept, tmp), 0.01, 1e-17);
	assert_int_equal(kept, 2);
	assert_int_equal(rej[2], 1);
	/* marked slower, it stays where it lies below */
	assert_int_equal((verdict_location(low, 3, 0.03, drop3, rej, &kept, tmp), kept), 3);
	/* 3x dropped of four; of 1.2x, 1x, 1.01x the first is 4.5 sigma off,
	 * but two of four left out is half the set: the three averaged */
	near(verdict_location(four, 4, 0.01, drop, rej, &kept, tmp),
	     (log(1.2) + 0.0 + log(1.01)) / 3.0, 1e-15);
	assert_int_equal(kept, 3);
	assert_true(rej[0] == 1 && !rej[1] && !rej[2] && !rej[3]);
	/* a region where the dropped run is half the values: as without it */
	near(verdict_location(two, 2, 0.01, drop2, rej, &kept, tmp), 0.5, 0.0);
	assert_int_equal(kept, 2);
	/* all three marked: only 2.5x lies to its side of the others */
	near(verdict_location(three, 3, 0.03, all, rej, &kept, tmp), -0.005, 1e-17);
	assert_int_equal(kept, 2);
	assert_true(rej[2] == 1 && rej[0] == 0 && rej[1] == 0);
}

/* A run is an outlier run when left out in at least half of its regions. */
static void test_outlier_run(void **state)
{
	(void)state;
	assert_false(verdict_outlier_run(0, 0));
	assert_false(verdict_outlier_run(0, 5));
	assert_false(verdict_outlier_run(2, 5));
	assert_true(verdict_outlier_run(3, 5));
	assert_true(verdict_outlier_run(1, 2));
	assert_true(verdict_outlier_run(1, 1));
}

/* Repetitions left out of every region: outlier runs in two regions or
 * more, and only a minority of the set. */
static void test_drop_runs(void **state)
{
	unsigned char d[4];
	/* three repetitions, the third out in 3 of 5 regions: dropped, slower */
	const size_t rej3[] = {0, 1, 3}, tested3[] = {5, 5, 5};
	const double dev3[] = {0.0, 0.1, 2.7}, fast[] = {0.0, 0.1, -2.7}, zero[4] = {0};
	/* out in 1 of 2 regions: an outlier run, but one region is no evidence */
	const size_t rej1[] = {0, 0, 1}, tested2[] = {2, 2, 2};
	/* four repetitions, each out in one of two regions (the set spreads
	 * wider than the history's noise): none, a set is not emptied */
	const size_t rej4[] = {2, 2, 2, 2}, tested4[] = {4, 4, 4, 4};
	/* two of four out: not a minority, none */
	const size_t rej22[] = {3, 3, 0, 0};

	(void)state;
	assert_int_equal(verdict_drop_runs(d, rej3, tested3, dev3, 3), 1);
	assert_true(!d[0] && !d[1] && d[2] == 1);
	assert_int_equal(verdict_drop_runs(d, rej3, tested3, fast, 3), 1);
	assert_int_equal(d[2], 2);
	assert_int_equal(verdict_drop_runs(d, rej1, tested2, zero, 3), 0);
	assert_true(!d[0] && !d[1] && !d[2]);
	assert_int_equal(verdict_drop_runs(d, rej4, tested4, zero, 4), 0);
	assert_true(!d[0] && !d[1] && !d[2] && !d[3]);
	assert_int_equal(verdict_drop_runs(d, rej22, tested4, zero, 4), 0);
	assert_true(!d[0] && !d[1]);
	/* two repetitions: neither can be told the outlier */
	assert_int_equal(verdict_drop_runs(d, rej3 + 1, tested3, dev3 + 1, 2), 0);
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
	r.noise.dft = 20.0;
	verdict_region(&r);
	near(r.ratio, 1.2, 1e-15);
	/* t_{0.975,20} = 2.0859634472658648 (mpmath; 2.086 in Fisher and Yates) */
	near(r.lo, exp(y - 2.0859634472658648 * se), 1e-14);
	near(r.hi, exp(y + 2.0859634472658648 * se), 1e-14);
	near(r.lo, 1.12377, 1e-5);
	near(r.p_up, statdist_t_cdf(-y / se, 20.0), 1e-18);
	near(r.p_down, 1.0 - r.p_up, 1e-15);
	assert_true(r.p_up < 1e-5 && r.p_up > 2.5e-6);
	assert_int_equal(r.call, VERDICT_CALL_INCONCLUSIVE);
	/* known noise (infinite df): the normal distribution */
	r.noise.dft = INFINITY;
	verdict_region(&r);
	near(r.p_up, statdist_norm_cdf(-y / se), 1e-18);
	near(r.hi, exp(y + 1.959963984540054 * se), 1e-14);
	/* a change below the resolution (0.5 % of the value, resolution 1 %)
	 * is no change: ratio 1, p 1/2 both ways */
	r.ycand = log(1.005);
	r.noise.res = 0.01;
	verdict_region(&r);
	near(r.ratio, 1.0, 0.0);
	near(r.p_up, 0.5, 1e-16);
	near(r.p_down, 0.5, 1e-16);
	/* the rounding error of two locations of equal values is none */
	r.noise.res = 0.0;
	r.ybase = 6.9;
	r.ycand = 6.9 + 1e-15;
	verdict_region(&r);
	near(r.y, 0.0, 0.0);
	/* no noise: a ratio only */
	r.ycand = y + 6.9;
	r.noise.sigma = NAN;
	verdict_region(&r);
	assert_int_equal(r.call, VERDICT_CALL_INCONCLUSIVE);
	assert_true(isnan(r.lo) && isnan(r.p_up));
	near(r.ratio, 1.2, 1e-14);
	/* no candidate value: no verdict */
	r.ncand = 0;
	verdict_region(&r);
	assert_int_equal(r.call, VERDICT_CALL_NONE);
	assert_string_equal(verdict_call_name(VERDICT_CALL_REGRESSED), "regressed");
	assert_string_equal(verdict_call_name(VERDICT_CALL_NONE), "");
	assert_string_equal(verdict_call_name(VERDICT_CALL_UNCHANGED), "unchanged");
	assert_string_equal(verdict_call_name(VERDICT_CALL_IMPROVED), "improved");
	assert_string_equal(verdict_call_name(VERDICT_CALL_INCONCLUSIVE), "inconclusive");
	assert_string_equal(verdict_call_name(VERDICT_CALL_NO_EVIDENCE), "no evidence");
	assert_string_equal(verdict_call_name(VERDICT_CALL_COUNT), "");
}

/* A region whose test outcome is given directly: log-ratio y, one-sided
 * p of a slowdown, interval [lo, hi] of the ratio. */
static void given(struct verdict_region *r, double y, double p_up, double lo, double hi)
{
	memset(r, 0, sizeof(*r));
	r->nbase = r->ncand = 1;
	r->noise.sigma = 0.03;
	r->noise.dft = 20.0;
	r->y = y;
	r->p_up = p_up;
	r->p_down = 1.0 - p_up;
	r->lo = lo;
	r->hi = hi;
	r->runs_needed = -1;
	r->call = VERDICT_CALL_INCONCLUSIVE;
}

static void test_decide(void **state)
{
	struct verdict_region r[7];

	(void)state;
	/*
	 * Benjamini-Hochberg over the slowdown p-values .001, .0075, .99,
	 * .004, .5 (m = 5): sorted .001, .004, .0075, .5, .99 -> 5 p_(i) / i =
	 * .005, .01, .0125, .625, .99, then the running minimum from the top:
	 * the same.  The speed-ups 1 - p: .999, .9925, .01, .996, .5 -> sorted
	 * .01, .5, .9925, .996, .999 -> .05, 1.25 (1), ...: padj_down of r[2]
	 * = .05.
	 */
	given(&r[0], log(1.2), 0.001, 1.10, 1.30);   /* regressed */
	given(&r[1], log(1.04), 0.0075, 1.02, 1.06); /* slower, not surely beyond 5 % */
	given(&r[2], log(0.8), 0.99, 0.70, 0.90);    /* faster, not significant */
	given(&r[3], log(1.02), 0.004, 1.01, 1.03);  /* slower, within the budget */
	given(&r[4], log(1.01), 0.5, 0.90, 1.10);    /* nothing: no evidence */
	given(&r[5], log(1.2), NAN, NAN, NAN);	     /* no noise, above the budget */
	r[5].noise.sigma = NAN;
	given(&r[6], 0.0, NAN, NAN, NAN);
	r[6].call = VERDICT_CALL_NONE;
	assert_int_equal(verdict_decide(r, 7, 5.0), 0);
	near(r[0].padj_up, 0.005, 1e-15);
	near(r[3].padj_up, 0.01, 1e-15);
	near(r[1].padj_up, 0.0125, 1e-15);
	near(r[4].padj_up, 0.625, 1e-15);
	near(r[2].padj_up, 0.99, 1e-15);
	near(r[2].padj_down, 0.05, 1e-15);
	assert_int_equal(r[0].call, VERDICT_CALL_REGRESSED);
	assert_int_equal(r[1].call, VERDICT_CALL_INCONCLUSIVE);
	assert_int_equal(r[2].call, VERDICT_CALL_UNCHANGED); /* hi .90 <= 1.05 */
	assert_int_equal(r[3].call, VERDICT_CALL_UNCHANGED);
	assert_int_equal(r[4].call, VERDICT_CALL_NO_EVIDENCE);
	assert_int_equal(r[5].call, VERDICT_CALL_INCONCLUSIVE);
	assert_int_equal(r[6].call, VERDICT_CALL_NONE);
	/* the p of a row is its direction's */
	near(r[0].p, 0.001, 0.0);
	near(r[2].p, 0.01, 1e-15);
	near(r[2].padj, 0.05, 1e-15);
	assert_true(r[1].runs_needed >= 1);
	assert_true(r[4].runs_needed >= 1);
	assert_int_equal(r[0].runs_needed, -1);
	assert_int_equal(r[5].runs_needed, -1);

	/* improved: a significant speed-up beyond the budget (hi < 1/1.05) */
	given(&r[0], log(0.8), 0.9999, 0.75, 0.85);
	given(&r[1], 0.0, 0.5, 0.97, 1.03);
	given(&r[2], 0.0, 0.5, 0.97, 1.03);
	assert_int_equal(verdict_decide(r, 3, 5.0), 0);
	assert_int_equal(r[0].call, VERDICT_CALL_IMPROVED);
	/* within the budget on the faster side: unchanged, not improved */
	given(&r[0], log(0.97), 0.9999, 0.96, 0.98);
	assert_int_equal(verdict_decide(r, 3, 5.0), 0);
	assert_int_equal(r[0].call, VERDICT_CALL_UNCHANGED);
	/* no noise, within the budget: no evidence */
	given(&r[0], log(1.02), NAN, NAN, NAN);
	r[0].noise.sigma = NAN;
	assert_int_equal(verdict_decide(r, 1, 5.0), 0);
	assert_int_equal(r[0].call, VERDICT_CALL_NO_EVIDENCE);

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
	r[0].noise.dft = 20.0;
	verdict_region(&r[0]);
	assert_int_equal(verdict_decide(r, 1, 5.0), 0);
	assert_int_equal(r[0].call, VERDICT_CALL_NO_EVIDENCE);
	assert_int_equal(r[0].runs_needed, 8);
	/* Exactly at the budget: never decided by more runs. */
	r[0].ycand = log(1.05);
	verdict_region(&r[0]);
	assert_int_equal(verdict_decide(r, 1, 5.0), 0);
	assert_int_equal(r[0].runs_needed, VERDICT_MAX_RUNS);
}

/* Eight byte-identical runs of 1000 ns and an identical candidate (issue
 * 23, item 5): unchanged, whatever the window, never t = INF. */
static void test_zero_noise(void **state)
{
	double h[8], base[5], tmp[16], y;
	struct verdict_region r[1];
	unsigned char rej[8];
	size_t i, nb;

	(void)state;
	for (i = 0; i < 8; i++)
		h[i] = log(1000e-9);
	memset(r, 0, sizeof(r));
	assert_int_equal(verdict_noise_estimate(&r[0].noise, h, 8, 1e-9 / 1000e-9, tmp), 0);
	assert_int_equal(verdict_pool(r, 1, NULL), 0);
	near(r[0].noise.sigma, 1e-3, 1e-15);
	for (nb = 1; nb <= 5; nb++) {
		for (i = 0; i < nb; i++)
			base[i] = h[i];
		r[0].ybase =
		    verdict_location(base, nb, r[0].noise.sigma, NULL, rej, &r[0].nbase, tmp);
		r[0].ycand = verdict_location(h, 1, r[0].noise.sigma, NULL, rej, &r[0].ncand, tmp);
		verdict_region(&r[0]);
		assert_int_equal(verdict_decide(r, 1, 5.0), 0);
		near(r[0].ratio, 1.0, 0.0);
		assert_int_equal(r[0].call, VERDICT_CALL_UNCHANGED);
		assert_true(isfinite(log(r[0].hi)));
	}
	/* with a zero budget too: below the resolution is within any budget */
	assert_int_equal(verdict_decide(r, 1, 0.0), 0);
	assert_int_equal(r[0].call, VERDICT_CALL_UNCHANGED);
	/* and 10 % slower on a constant series is a regression */
	y = log(1100e-9);
	r[0].ycand = verdict_location(&y, 1, r[0].noise.sigma, NULL, rej, &r[0].ncand, tmp);
	verdict_region(&r[0]);
	assert_int_equal(verdict_decide(r, 1, 5.0), 0);
	assert_int_equal(r[0].call, VERDICT_CALL_REGRESSED);
}

TU_MAIN(NULL, NULL,
	{
	    cmocka_unit_test(test_noise),
	    cmocka_unit_test(test_noise_constant),
	    cmocka_unit_test(test_noise_past_step),
	    cmocka_unit_test(test_pool),
	    cmocka_unit_test(test_location),
	    cmocka_unit_test(test_outlier_run),
	    cmocka_unit_test(test_drop_runs),
	    cmocka_unit_test(test_region),
	    cmocka_unit_test(test_decide),
	    cmocka_unit_test(test_zero_noise),
	})
