/*
 * statdist.h - the distributions and rank statistics behind scopedb's
 * statistical verdicts (src/analysis/verdict.c) and change points: the
 * normal and Student t distributions, the regularized incomplete beta
 * function, the digamma and trigamma functions (and the trigamma's
 * inverse), the median, the median absolute deviation, the skipped mean
 * and the Mann-Whitney U test.  The methods and their references are in
 * docs/statistics.md, section "Distributions".
 *
 * Pure computation with libm, no allocation except the scratch table of
 * the exact Mann-Whitney distribution (freed before returning); safe on
 * any thread.  Arrays passed as const are only read; statdist_median()
 * and statdist_mad() reorder (and statdist_mad() overwrites) the caller's
 * array.  Out-of-domain arguments return NaN.
 *
 * Ownership: nothing returned needs freeing; nothing is kept.
 */
#ifndef SCOPEDB_UTIL_STATDIST_H
#define SCOPEDB_UTIL_STATDIST_H

#include <stddef.h>

/* P(Z <= z) for a standard normal Z. */
double statdist_norm_cdf(double z);

/* The p-quantile of the standard normal, p in (0, 1): Wichura's AS 241. */
double statdist_norm_quantile(double p);

/*
 * The regularized incomplete beta function I_x(a, b), a > 0, b > 0,
 * x in [0, 1]: its continued fraction evaluated by the modified Lentz
 * method.
 */
double statdist_betainc(double a, double b, double x);

/* P(T <= t) for Student's t with df > 0 (real) degrees of freedom. */
double statdist_t_cdf(double t, double df);

/* The p-quantile of Student's t with df > 0 degrees of freedom, p in (0, 1). */
double statdist_t_quantile(double p, double df);

/*
 * The digamma function psi(x) = d/dx log Gamma(x) and its first two
 * derivatives, trigamma psi'(x) and tetragamma psi''(x), for x > 0: the
 * recurrence up to x >= 10, then their asymptotic series.  NaN for
 * x <= 0 or NaN.
 */
double statdist_digamma(double x);
double statdist_trigamma(double x);
double statdist_tetragamma(double x);

/* The x > 0 with trigamma(x) = y, y > 0, by Newton's method (Smyth 2004). */
double statdist_trigamma_inverse(double y);

/* The median of v[0..n), n > 0; sorts v in place. */
double statdist_median(double *v, size_t n);

/*
 * The raw (unscaled) median absolute deviation of v[0..n), n > 0:
 * median(|v_i - median(v)|).  Multiply by 1.4826 for a consistent
 * estimate of a normal sigma.  Sorts and overwrites v.
 */
double statdist_mad(double *v, size_t n);

/*
 * The skipped mean of v[0..n) (Hampel 1985): the values further than
 * c * scale from the median of v are rejected, the estimate is the mean of
 * the others.  scale > 0 is the SD of one value (e.g. the noise of the
 * history); with n <= 2 nothing is rejected (no value can be told an
 * outlier).  Of three values, whose median is the one nearest an
 * outlier, only the farthest from the median can be rejected, when it
 * lies further than c * scale from the mean of the other two.  When no
 * value lies within (an even set whose median lies between two values far
 * apart), the scale is the set's own, 1.4826 MAD, if that is larger; none
 * is rejected when still none lies within.  When rejected is not NULL,
 * rejected[i] = 1 for a rejected v[i], else 0.  *kept (if not NULL) = the
 * values averaged.  v is only read; tmp is scratch for n doubles.  NaN
 * when n is 0.
 */
double statdist_skipped_mean(const double *v, size_t n, double scale, double c,
			     unsigned char *rejected, size_t *kept, double *tmp);

/* Sample sizes up to which the Mann-Whitney test is exact. */
#define STATDIST_MW_EXACT 20

/*
 * Mann-Whitney U test of a[0..na) against b[0..nb), both non-empty: the
 * two-sided p-value.  Exact when na and nb are at most STATDIST_MW_EXACT:
 * the null distribution of the mid-rank sum counted over all choices of na
 * of the pooled positions, so that ties (runs of equal values, as of a
 * quantized timer or a count) keep the test exact; else the normal
 * approximation with the tie correction of the variance and a continuity
 * correction of 0.5.  *u (if not NULL) receives U of a: the
 * number of pairs (a_i, b_j) with a_i > b_j, plus one half per tie.
 * NaN when a value is NaN or the scratch table cannot be allocated.
 */
double statdist_mannwhitney_p(const double *a, size_t na, const double *b, size_t nb, double *u);

#endif
