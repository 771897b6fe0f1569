/*
 * test_statdist.c - the distributions and rank statistics of
 * src/util/statdist.c against published tables (normal and Student t
 * quantiles, Mann-Whitney critical values) and values computed by hand
 * from closed forms (the t distribution with 1 and 2 degrees of freedom,
 * integer incomplete beta functions, the tie-corrected U statistic, the
 * digamma family at 1 and 1/2), values computed with mpmath to 30 digits
 * (t quantiles in the far tails, digamma and trigamma at 7.25 and 30, the
 * trigamma's inverse) and the skipped mean by hand.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "util/statdist.h"
#include "testutil.h"

#define PI 3.14159265358979323846

static void near(double got, double want, double tol)
{
	if (!(fabs(got - want) <= tol)) {
		printf("got %.17g, want %.17g (tolerance %g)\n", got, want, tol);
		fail();
	}
}

static void test_norm(void **state)
{
	double p;

	(void)state;
	near(statdist_norm_cdf(0.0), 0.5, 1e-16);
	/* Phi(-1) = erfc(1/sqrt 2)/2 = 0.158655253931457 (A&S table 26.1). */
	near(statdist_norm_cdf(-1.0), 0.15865525393145707, 1e-15);
	near(statdist_norm_cdf(1.959963984540054), 0.975, 1e-15);
	/* Quantiles to the digits of A&S table 26.5 and Wichura's paper. */
	near(statdist_norm_quantile(0.975), 1.959964, 5e-7);
	near(statdist_norm_quantile(0.975), 1.959963984540054, 1e-14);
	near(statdist_norm_quantile(0.95), 1.6448536269514722, 1e-14);
	near(statdist_norm_quantile(0.995), 2.5758293035489004, 1e-14);
	near(statdist_norm_quantile(0.025), -1.959963984540054, 1e-14);
	near(statdist_norm_quantile(0.5), 0.0, 1e-16);
	/* The tails of AS 241 (r > 5): z_{1e-10} = -6.361340902404056. */
	near(statdist_norm_quantile(1e-10), -6.361340902404056, 1e-12);
	/* Every range of the approximation inverts the cdf. */
	for (p = 1e-12; p < 1.0; p = p < 0.01 ? p * 10.0 : p + 0.01)
		near(statdist_norm_cdf(statdist_norm_quantile(p)), p, 1e-14 + 1e-12 * p);
	assert_true(isnan(statdist_norm_quantile(0.0)));
	assert_true(isnan(statdist_norm_quantile(1.0)));
	assert_true(isnan(statdist_norm_quantile(NAN)));
}

static void test_betainc(void **state)
{
	double x;

	(void)state;
	for (x = 0.0; x <= 1.0; x += 0.125) {
		near(statdist_betainc(1.0, 1.0, x), x, 1e-14);
		near(statdist_betainc(3.0, 1.0, x), x * x * x, 1e-14);
		near(statdist_betainc(1.0, 4.0, x), 1.0 - pow(1.0 - x, 4.0), 1e-14);
	}
	/* Symmetry: I_{1/2}(a, a) = 1/2. */
	near(statdist_betainc(7.5, 7.5, 0.5), 0.5, 1e-14);
	/*
	 * Integer a, b: I_x(a, b) = sum_{j=a}^{a+b-1} C(a+b-1, j) x^j (1-x)^(a+b-1-j);
	 * I_0.4(2, 3) = 6(.16)(.36) + 4(.064)(.6) + .0256 = 0.5248.
	 */
	near(statdist_betainc(2.0, 3.0, 0.4), 0.5248, 1e-14);
	near(statdist_betainc(3.0, 2.0, 0.6), 1.0 - 0.5248, 1e-14);
	/* I_x(1/2, 1/2) = (2/pi) asin(sqrt x). */
	near(statdist_betainc(0.5, 0.5, 0.3), 2.0 / PI * asin(sqrt(0.3)), 1e-14);
	assert_true(isnan(statdist_betainc(0.0, 1.0, 0.5)));
	assert_true(isnan(statdist_betainc(1.0, 1.0, 1.5)));
}

static void test_t(void **state)
{
	/* Published two-sided 5% and 1% points (e.g. Fisher and Yates, table III). */
	static const struct {
		double p, df, t;
	} table[] = {
	    {0.975, 1, 12.706}, {0.975, 2, 4.303},   {0.975, 5, 2.571}, {0.975, 10, 2.228},
	    {0.975, 30, 2.042}, {0.975, 120, 1.980}, {0.95, 1, 6.314},	{0.95, 10, 1.812},
	    {0.995, 10, 3.169}, {0.995, 4, 4.604},   {0.9, 20, 1.325},
	};
	double t, p;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
		near(statdist_t_quantile(table[i].p, table[i].df), table[i].t, 5e-4);
		near(statdist_t_quantile(1.0 - table[i].p, table[i].df), -table[i].t, 5e-4);
		near(statdist_t_cdf(table[i].t, table[i].df), table[i].p, 1e-4);
	}
	/* df = 1 is Cauchy: F(t) = 1/2 + atan(t)/pi, t_p = tan(pi (p - 1/2)). */
	for (t = -30.0; t <= 30.0; t += 2.5)
		near(statdist_t_cdf(t, 1.0), 0.5 + atan(t) / PI, 1e-14);
	near(statdist_t_quantile(0.975, 1.0), tan(PI * 0.475), 1e-10);
	/* df = 2: F(t) = 1/2 + t / (2 sqrt(2 + t^2)), t_p = (2p - 1) / sqrt(2p(1 - p)). */
	for (t = -10.0; t <= 10.0; t += 0.5)
		near(statdist_t_cdf(t, 2.0), 0.5 + t / (2.0 * sqrt(2.0 + t * t)), 1e-14);
	for (p = 0.01; p < 1.0; p += 0.07)
		near(statdist_t_quantile(p, 2.0), (2 * p - 1) / sqrt(2 * p * (1 - p)), 1e-10);
	/* Large df tends to the normal. */
	near(statdist_t_quantile(0.975, 1e7), statdist_norm_quantile(0.975), 1e-6);
	/* Real (non-integer) degrees of freedom lie between their neighbours. */
	t = statdist_t_quantile(0.975, 7.5);
	assert_true(t < statdist_t_quantile(0.975, 7.0) && t > statdist_t_quantile(0.975, 8.0));
	near(statdist_t_cdf(0.0, 3.0), 0.5, 1e-16);
	near(statdist_t_quantile(0.5, 3.0), 0.0, 0.0);
	assert_true(isnan(statdist_t_quantile(0.975, 0.0)));
	assert_true(isnan(statdist_t_cdf(1.0, -1.0)));
	/* mpmath (30 digits), the quantiles the verdicts use */
	near(statdist_t_quantile(0.975, 20.0), 2.0859634472658648427, 1e-13);
	near(statdist_t_quantile(0.9995, 58.0), 3.4663287949310111083, 1e-12);
	near(statdist_t_quantile(0.999, 3.5), 8.3155676045161173359, 1e-11);
	near(statdist_t_quantile(0.99999, 1000.0), 4.2854376826529578605, 1e-11);
	near(statdist_t_quantile(1e-5, 1000.0), -4.2854376826529578605, 1e-11);
}

/* statdist_t_quantile() remembers its last answers: asked again, in any
 * order and past what it remembers, each (p, df) gets its own quantile. */
static void test_t_quantile_memo(void **state)
{
	static const double ps[] = {0.975, 0.025, 0.9995}, dfs[] = {3.0, 3.5, 20.0, 58.0, 1000.0};
	double q[3][5];
	size_t i, j, round;

	(void)state;
	for (i = 0; i < 3; i++)
		for (j = 0; j < 5; j++) {
			q[i][j] = statdist_t_quantile(ps[i], dfs[j]);
			near(statdist_t_cdf(q[i][j], dfs[j]), ps[i], 1e-12);
		}
	for (round = 0; round < 3; round++)
		for (i = 3; i-- > 0;)
			for (j = 5; j-- > 0;) {
				assert_true(statdist_t_quantile(ps[i], dfs[j]) == q[i][j]);
				assert_true(statdist_t_quantile(ps[i], dfs[(j + round) % 5]) ==
					    q[i][(j + round) % 5]);
			}
	near(statdist_t_quantile(0.975, 20.0), -statdist_t_quantile(0.025, 20.0), 1e-12);
}

/* The digamma family: psi(1) = -gamma, psi(1/2) = -gamma - 2 ln 2,
 * psi'(1) = pi^2/6, psi'(1/2) = pi^2/2, psi''(1) = -2 zeta(3) (A&S 6.3.2,
 * 6.3.3, 6.4.2, 6.4.4); other points and the inverse from mpmath. */
static void test_digamma(void **state)
{
	(void)state;
	near(statdist_digamma(1.0), -0.57721566490153286061, 1e-15);
	near(statdist_digamma(0.5), -1.9635100260214234794, 1e-15);
	near(statdist_trigamma(1.0), PI * PI / 6.0, 1e-15);
	near(statdist_trigamma(0.5), PI * PI / 2.0, 1e-14);
	near(statdist_tetragamma(1.0), -2.4041138063191885708, 1e-14);
	near(statdist_digamma(7.25), 1.9104535268837360284, 1e-15);
	near(statdist_trigamma(7.25), 0.14787923315893216965, 1e-16);
	near(statdist_tetragamma(7.25), -0.021828952295197739222, 1e-16);
	near(statdist_digamma(30.0), 3.3844381326855248766, 1e-15);
	near(statdist_trigamma(30.0), 0.033895060357739944214, 1e-16);
	/* the recurrence psi(x + 1) = psi(x) + 1/x across the switch to the series */
	near(statdist_digamma(10.5) - statdist_digamma(9.5), 1.0 / 9.5, 1e-15);
	near(statdist_trigamma(0.5), statdist_trigamma(1.5) + 4.0, 1e-14);
	near(statdist_trigamma_inverse(0.5), 2.4599529483523074137, 1e-12);
	near(statdist_trigamma_inverse(10.0), 0.33508104437803564513, 1e-12);
	near(statdist_trigamma_inverse(0.01), 100.49916668194319134, 1e-9);
	near(statdist_trigamma(statdist_trigamma_inverse(0.14)), 0.14, 1e-14);
	assert_true(isnan(statdist_digamma(0.0)));
	assert_true(isnan(statdist_trigamma(-1.0)));
	assert_true(isnan(statdist_trigamma_inverse(0.0)));
}

/* The skipped mean by hand: {1, 2, 3, 4, 100} around the median 3 with
 * scale 1 and c = 4.5 leaves 100 out (97 away): mean 2.5; with c = 200
 * none: 22; two values are never judged. */
static void test_skipped_mean(void **state)
{
	static const double v[] = {4, 100, 2, 3, 1};
	double tmp[10];
	unsigned char rej[10];
	size_t kept;

	(void)state;
	near(statdist_skipped_mean(v, 5, 1.0, 4.5, rej, &kept, tmp), 2.5, 0.0);
	assert_int_equal(kept, 4);
	assert_true(rej[1] == 1 && !rej[0] && !rej[2] && !rej[3] && !rej[4]);
	near(statdist_skipped_mean(v, 5, 1.0, 200.0, rej, &kept, tmp), 22.0, 0.0);
	assert_int_equal(kept, 5);
	/* 1 and 2 lie 1 and 0.5 below the median 2.5 of {1, 2, 3, 4}: with
	 * scale 0.2 and c = 4, only values beyond 0.8 go: 1 and 4 */
	near(statdist_skipped_mean((double[]){1, 2, 3, 4}, 4, 0.2, 4.0, rej, &kept, tmp), 2.5, 0.0);
	assert_int_equal(kept, 2);
	/* with c = 2, beyond 0.4: every value, none within; none goes */
	near(statdist_skipped_mean((double[]){1, 2, 3, 4}, 4, 0.2, 2.0, rej, &kept, tmp), 2.5, 0.0);
	assert_int_equal(kept, 4);
	/* five values at 0 and five at 1 (a step in the middle of a window):
	 * each lies 0.5 from the median, every one beyond 4.5 x 0.01, and
	 * leaving all out gave no location (NaN); the set's own scale, 1.4826
	 * x 0.5, has them all within: none goes, the mean 0.5 */
	near(statdist_skipped_mean((double[]){0, 1, 0, 1, 0, 1, 0, 1, 0, 1}, 10, 0.01, 4.5, rej,
				   &kept, tmp),
	     0.5, 0.0);
	assert_int_equal(kept, 10);
	/* -1, -1, 0 and a wild 30 (in logs: 0.8, 0.8, 1.0 and a 30x run):
	 * none within 4.5 x 0.01 of the median -0.5, so the set's own scale
	 * 1.4826 MAD = 0.7413 rejects 30 alone: the mean of the others.
	 * Keeping all (the even split's rule) made one bad repetition a
	 * confident regression */
	near(statdist_skipped_mean((double[]){-1, 30, -1, 0}, 4, 0.01, 4.5, rej, &kept, tmp),
	     -2.0 / 3.0, 1e-15);
	assert_int_equal(kept, 3);
	assert_true(rej[1] && !rej[0] && !rej[2] && !rej[3]);
	/* six at 0 and four at 1: the four are left out */
	near(statdist_skipped_mean((double[]){0, 1, 0, 1, 0, 1, 0, 1, 0, 0}, 10, 0.01, 4.5, rej,
				   &kept, tmp),
	     0.0, 0.0);
	assert_int_equal(kept, 6);
	assert_true(rej[1] && rej[3] && rej[5] && rej[7] && !rej[0] && !rej[8]);
	/* three values: 7 lies 5 from the median 2 but 6.5 from the others'
	 * mean 0.5 (Grubbs' deviate): beyond 6, left out; within 7, kept */
	near(statdist_skipped_mean((double[]){2, 7, -1}, 3, 1.0, 6.0, rej, &kept, tmp), 0.5, 0.0);
	assert_int_equal(kept, 2);
	assert_true(rej[1] && !rej[0] && !rej[2]);
	near(statdist_skipped_mean((double[]){2, 7, -1}, 3, 1.0, 7.0, rej, &kept, tmp), 8.0 / 3.0,
	     1e-15);
	assert_int_equal(kept, 3);
	/* only the farthest from the median may go: -1 is 3.5 from the mean
	 * of 2 and 5 but 3 from the median, while 5 is as far */
	near(statdist_skipped_mean((double[]){-1, 2, 5}, 3, 1.0, 3.2, rej, &kept, tmp), 2.0, 0.0);
	assert_int_equal(kept, 3);
	near(statdist_skipped_mean((double[]){0, 50}, 2, 1.0, 1.0, rej, &kept, tmp), 25.0, 0.0);
	assert_int_equal(kept, 2);
	assert_true(isnan(statdist_skipped_mean(v, 0, 1.0, 1.0, rej, &kept, tmp)));
	assert_int_equal(kept, 0);
}

static void test_median_mad(void **state)
{
	double odd[] = {5, 1, 4, 2, 3}, even[] = {4, 1, 3, 2};
	/* The example of Wikipedia's "Median absolute deviation": MAD = 1. */
	double mad[] = {1, 1, 2, 2, 4, 6, 9};
	double one[] = {7};

	(void)state;
	near(statdist_median(odd, 5), 3.0, 0.0);
	assert_true(odd[0] == 1 && odd[4] == 5);
	near(statdist_median(even, 4), 2.5, 0.0);
	near(statdist_mad(mad, 7), 1.0, 0.0);
	near(statdist_mad(one, 1), 0.0, 0.0);
	assert_true(isnan(statdist_median(one, 0)));
}

/*
 * Samples of sizes na, nb without ties whose U of a is u: b = 1..nb and
 * a_i = c_i + 0.5 + i/100, where c_i (how many b lie below a_i) sums to u.
 */
static void mw_samples(double *a, size_t na, double *b, size_t nb, size_t u)
{
	size_t i, c;

	for (i = 0; i < nb; i++)
		b[i] = (double)(i + 1);
	for (i = 0; i < na; i++) {
		c = u > nb ? nb : u;
		u -= c;
		a[i] = (double)c + 0.5 + (double)i / 100.0;
	}
	assert_int_equal(u, 0);
}

static void test_mannwhitney(void **state)
{
	/* R's ?wilcox.test example (Hollander and Wolfe 1973, p. 69): W = 35, one-sided p = 0.1272.
	 */
	static const double x[] = {0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46};
	static const double y[] = {1.15, 0.88, 0.90, 0.74, 1.21};
	/*
	 * Published critical values of U, two-sided alpha = 0.05 (e.g. Siegel
	 * and Castellan 1988, table J): reject when U <= crit.
	 */
	static const struct {
		size_t na, nb, crit;
	} crit[] = {{5, 5, 2}, {8, 8, 13}, {10, 10, 23}, {20, 20, 127}, {6, 10, 11}};
	double a[40], b[40], u, p;
	size_t i;

	(void)state;
	/* Complete separation of 3 and 3: P(U = 0) = 1/C(6,3) = 1/20, two-sided 0.1. */
	a[0] = 1, a[1] = 2, a[2] = 3, b[0] = 4, b[1] = 5, b[2] = 6;
	near(statdist_mannwhitney_p(a, 3, b, 3, &u), 0.1, 1e-15);
	near(u, 0.0, 0.0);
	near(statdist_mannwhitney_p(b, 3, a, 3, &u), 0.1, 1e-15);
	near(u, 9.0, 0.0);
	/* a = {1,2,4}, b = {3,5,6}: U = 1, P(U <= 1) = 2/20, two-sided 0.2. */
	a[2] = 4, b[0] = 3;
	near(statdist_mannwhitney_p(a, 3, b, 3, &u), 0.2, 1e-15);
	near(u, 1.0, 0.0);
	/* 4 against 4 separated: 2/C(8,4) = 2/70. */
	near(statdist_mannwhitney_p((double[]){1, 2, 3, 4}, 4, (double[]){5, 6, 7, 8}, 4, NULL),
	     2.0 / 70.0, 1e-15);
	p = statdist_mannwhitney_p(x, 10, y, 5, &u);
	near(u, 35.0, 0.0);
	near(p / 2.0, 0.1272, 5e-5);
	for (i = 0; i < sizeof(crit) / sizeof(crit[0]); i++) {
		mw_samples(a, crit[i].na, b, crit[i].nb, crit[i].crit);
		p = statdist_mannwhitney_p(a, crit[i].na, b, crit[i].nb, &u);
		near(u, (double)crit[i].crit, 0.0);
		assert_true(p <= 0.05);
		mw_samples(a, crit[i].na, b, crit[i].nb, crit[i].crit + 1);
		assert_true(statdist_mannwhitney_p(a, crit[i].na, b, crit[i].nb, NULL) > 0.05);
	}
	/*
	 * Ties, exact (the permutation distribution given the mid-ranks), by
	 * hand: a = {1,2,2}, b = {2,3,3}; mid-ranks 1, 3, 3 | 3, 5.5, 5.5,
	 * R_a = 7, U = 1.  Of the C(6,3) = 20 choices of three mid-ranks, only
	 * {1,3,3} (3 ways) sums to 7 or less: p = 2 * 3/20 = 0.3.  (The normal
	 * approximation said erfc(1) = 0.157, twice the evidence there is.)
	 */
	p = statdist_mannwhitney_p((double[]){1, 2, 2}, 3, (double[]){2, 3, 3}, 3, &u);
	near(u, 1.0, 0.0);
	near(p, 0.3, 1e-15);
	/*
	 * A quantized history: 5 runs at 100 and 5 at 101 against 3 at 115.
	 * Only the choice of the three top mid-ranks reaches R_b = 36:
	 * p = 2/C(13,3) = 1/143, as for distinct values.
	 */
	p = statdist_mannwhitney_p((double[]){100, 100, 100, 100, 100, 101, 101, 101, 101, 101}, 10,
				   (double[]){115, 115, 115}, 3, &u);
	near(u, 0.0, 0.0);
	near(p, 1.0 / 143.0, 1e-15);
	/*
	 * a = {1,2,2,3}, b = {3,3,4,5,5}: mid-ranks 1, 2.5, 2.5, 5 | 5, 5, 7,
	 * 8.5, 8.5, R_a = 11.  Of the C(9,4) = 126 choices, the sums of 11 or
	 * less are {1,2.5,2.5,5} in 3 ways (R = 11): p = 2 * 3/126 = 1/21.
	 */
	p = statdist_mannwhitney_p((double[]){1, 2, 2, 3}, 4, (double[]){3, 3, 4, 5, 5}, 5, &u);
	near(u, 1.0, 0.0);
	near(p, 1.0 / 21.0, 1e-15);
	/*
	 * Ties past the exact sizes, normal approximation by hand: 21 values
	 * of 1 against 21 of 2; U = 0, mu = 220.5, tie sum 2 (21^3 - 21) =
	 * 18480, var = 441/12 (43 - 18480/1722), z = (220.5 - 0.5)/sqrt(var).
	 */
	for (i = 0; i < 21; i++)
		a[i] = 1.0, b[i] = 2.0;
	p = statdist_mannwhitney_p(a, 21, b, 21, &u);
	near(u, 0.0, 0.0);
	near(p, erfc(220.0 / sqrt(441.0 / 12.0 * (43.0 - 18480.0 / 1722.0)) / sqrt(2.0)), 1e-25);
	/* All equal: no evidence at all. */
	near(statdist_mannwhitney_p((double[]){1, 1}, 2, (double[]){1, 1, 1}, 3, &u), 1.0, 0.0);
	near(u, 3.0, 0.0);
	/*
	 * 21 against 21 separated, normal approximation without ties: mu = 220.5,
	 * var = 21*21*43/12 = 1580.25, z = 220/sqrt(1580.25) = 5.5343.
	 */
	for (i = 0; i < 21; i++)
		a[i] = (double)i, b[i] = (double)(i + 21);
	p = statdist_mannwhitney_p(a, 21, b, 21, &u);
	near(u, 0.0, 0.0);
	near(p, 2.0 * statdist_norm_cdf(-220.0 / sqrt(1580.25)), 1e-20);
	assert_true(p > 3.12e-8 && p < 3.13e-8);
	assert_true(isnan(statdist_mannwhitney_p(a, 0, b, 3, NULL)));
	b[0] = NAN;
	assert_true(isnan(statdist_mannwhitney_p(a, 3, b, 3, NULL)));
}

TU_MAIN(NULL, NULL,
	{
	    cmocka_unit_test(test_norm),
	    cmocka_unit_test(test_betainc),
	    cmocka_unit_test(test_t),
	    cmocka_unit_test(test_t_quantile_memo),
	    cmocka_unit_test(test_digamma),
	    cmocka_unit_test(test_skipped_mean),
	    cmocka_unit_test(test_median_mad),
	    cmocka_unit_test(test_mannwhitney),
	})
