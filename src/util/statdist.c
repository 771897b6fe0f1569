/*
 * statdist.c - normal and Student t distributions, the regularized
 * incomplete beta function, median, MAD and the Mann-Whitney U test (see
 * statdist.h; methods and references in docs/statistics.md, section
 * "Distributions").
 *
 * The normal quantile is Wichura's algorithm AS 241 (PPND16, about 16
 * digits); the incomplete beta function is its continued fraction
 * (Abramowitz and Stegun 26.5.8) evaluated by the modified Lentz method
 * (Numerical Recipes, 3rd ed., section 6.4); the t distribution follows
 * from it (A&S 26.7.1); the t quantile inverts the cdf by safeguarded
 * Newton steps, and remembers its last few answers per thread.  The
 * digamma function and its derivatives use the recurrence psi(x) =
 * psi(x + 1) - 1/x and the asymptotic series of A&S 6.3.18 and 6.4.11
 * (Bernardo 1976, AS 103; Schneider 1978, AS 121); the trigamma's inverse
 * is Newton's method of Smyth (2004).  The exact Mann-Whitney distribution
 * counts the choices of one sample's positions among the pooled mid-ranks
 * (a subset-sum recurrence), which is Mann and Whitney's (1947) without
 * ties and the permutation distribution conditional on the ties with them
 * (Lehmann 1975).
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/statdist.h"

#define STATDIST_SQRT2 1.41421356237309504880

double statdist_norm_cdf(double z)
{
	return 0.5 * erfc(-z / STATDIST_SQRT2);
}

/* Horner evaluation of the degree-7 polynomial c[0] + c[1] x + ... + c[7] x^7. */
static double statdist_poly7(const double *c, double x)
{
	double r = c[7];
	int i;

	for (i = 6; i >= 0; i--)
		r = r * x + c[i];
	return r;
}

/*
 * Wichura, M. J. (1988), Algorithm AS 241: The percentage points of the
 * normal distribution, Applied Statistics 37(3), 477-484: rational
 * approximations in three ranges of p (PPND16).
 */
double statdist_norm_quantile(double p)
{
	static const double a[8] = {
	    3.3871328727963666080e0,  1.3314166789178437745e+2, 1.9715909503065514427e+3,
	    1.3731693765509461125e+4, 4.5921953931549871457e+4, 6.7265770927008700853e+4,
	    3.3430575583588128105e+4, 2.5090809287301226727e+3,
	};
	static const double b[8] = {
	    1.0,
	    4.2313330701600911252e+1,
	    6.8718700749205790830e+2,
	    5.3941960214247511077e+3,
	    2.1213794301586595867e+4,
	    3.9307895800092710610e+4,
	    2.8729085735721942674e+4,
	    5.2264952788528545610e+3,
	};
	static const double c[8] = {
	    1.42343711074968357734e0,  4.63033784615654529590e0,  5.76949722146069140550e0,
	    3.64784832476320460504e0,  1.27045825245236838258e0,  2.41780725177450611770e-1,
	    2.27238449892691845833e-2, 7.74545014278341407640e-4,
	};
	static const double d[8] = {
	    1.0,
	    2.05319162663775882187e0,
	    1.67638483018380384940e0,
	    6.89767334985100004550e-1,
	    1.48103976427480074590e-1,
	    1.51986665636164571966e-2,
	    5.47593808499534494600e-4,
	    1.05075007164441684324e-9,
	};
	static const double e[8] = {
	    6.65790464350110377720e0,  5.46378491116411436990e0,  1.78482653991729133580e0,
	    2.96560571828504891230e-1, 2.65321895265761230930e-2, 1.24266094738807843860e-3,
	    2.71155556874348757815e-5, 2.01033439929228813265e-7,
	};
	static const double f[8] = {
	    1.0,
	    5.99832206555887937690e-1,
	    1.36929880922735805310e-1,
	    1.48753612908506148525e-2,
	    7.86869131145613259100e-4,
	    1.84631831751005468180e-5,
	    1.42151175831644588870e-7,
	    2.04426310338993978564e-15,
	};
	double q, r, x;

	if (!(p > 0.0 && p < 1.0))
		return NAN;
	q = p - 0.5;
	if (fabs(q) <= 0.425) {
		r = 0.180625 - q * q;
		return q * statdist_poly7(a, r) / statdist_poly7(b, r);
	}
	r = q < 0.0 ? p : 1.0 - p;
	r = sqrt(-log(r));
	if (r <= 5.0) {
		r -= 1.6;
		x = statdist_poly7(c, r) / statdist_poly7(d, r);
	} else {
		r -= 5.0;
		x = statdist_poly7(e, r) / statdist_poly7(f, r);
	}
	return q < 0.0 ? -x : x;
}

/*
 * The continued fraction of I_x(a, b) (A&S 26.5.8), by the modified Lentz
 * method: converges quickly for x < (a + 1) / (a + b + 2).
 */
/*
 * One step of the modified Lentz method with partial numerator aa (and
 * denominator 1): update the running ratios c and d and return the factor
 * the convergent is multiplied by.  Tiny values stand in for zeros
 * (Thompson and Barnett 1986).
 */
static double statdist_lentz(double aa, double *c, double *d)
{
	const double tiny = 1e-300;

	*d = 1.0 + aa * *d;
	if (fabs(*d) < tiny)
		*d = tiny;
	*c = 1.0 + aa / *c;
	if (fabs(*c) < tiny)
		*c = tiny;
	*d = 1.0 / *d;
	return *d * *c;
}

/*
 * The continued fraction of I_x(a, b) (A&S 26.5.8), by the modified Lentz
 * method: converges quickly for x < (a + 1) / (a + b + 2).
 */
static double statdist_betacf(double a, double b, double x)
{
	const double tiny = 1e-300, eps = 1e-15;
	double qab = a + b, qap = a + 1.0, qam = a - 1.0;
	double c = 1.0, d = 1.0 - qab * x / qap, h, del;
	int m, m2;

	if (fabs(d) < tiny)
		d = tiny;
	d = 1.0 / d;
	h = d;
	for (m = 1; m <= 10000; m++) {
		m2 = 2 * m;
		h *= statdist_lentz(m * (b - m) * x / ((qam + m2) * (a + m2)), &c, &d);
		del = statdist_lentz(-(a + m) * (qab + m) * x / ((a + m2) * (qap + m2)), &c, &d);
		h *= del;
		if (fabs(del - 1.0) < eps)
			break;
	}
	return h;
}

double statdist_betainc(double a, double b, double x)
{
	double lfront;

	if (!(a > 0.0 && b > 0.0 && x >= 0.0 && x <= 1.0))
		return NAN;
	if (x == 0.0 || x == 1.0)
		return x;
	lfront = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x);
	if (x < (a + 1.0) / (a + b + 2.0))
		return exp(lfront) * statdist_betacf(a, b, x) / a;
	return 1.0 - exp(lfront) * statdist_betacf(b, a, 1.0 - x) / b;
}

/* P(T <= t) for t <= 0: half of I_{df/(df+t^2)}(df/2, 1/2) (A&S 26.7.1). */
static double statdist_t_lower(double t, double df)
{
	return 0.5 * statdist_betainc(0.5 * df, 0.5, df / (df + t * t));
}

double statdist_t_cdf(double t, double df)
{
	if (!(df > 0.0) || isnan(t))
		return NAN;
	if (isinf(t))
		return t > 0 ? 1.0 : 0.0;
	if (t <= 0.0)
		return statdist_t_lower(t, df);
	return 1.0 - statdist_t_lower(-t, df);
}

/* The density of Student's t with df degrees of freedom at t. */
static double statdist_t_pdf(double t, double df)
{
	double c =
	    lgamma(0.5 * (df + 1.0)) - lgamma(0.5 * df) - 0.5 * log(df * 3.14159265358979323846);

	return exp(c - 0.5 * (df + 1.0) * log1p(t * t / df));
}

/*
 * The t quantile on the lower tail: the root t < 0 of statdist_t_lower(t)
 * = p (p < 1/2) is bracketed by doubling from the Cornish-Fisher
 * expansion of A&S 26.7.5, then found by Newton's method with the
 * density, a step that would leave the bracket being a bisection instead
 * (Press et al. 2007, rtsafe); the upper half follows by symmetry.  The
 * bracket keeps it from diverging for any df, the heavy tails of df < 1
 * included; Newton makes it a few evaluations of the cdf.
 */
static double statdist_t_quantile_solve(double p, double df)
{
	double tail, lo, hi, t, z, z2, f, dx;
	int i;

	tail = p < 0.5 ? p : 1.0 - p;
	z = statdist_norm_quantile(tail);
	z2 = z * z;
	t = z + (z2 + 1.0) * z / (4.0 * df) +
	    ((5.0 * z2 + 16.0) * z2 + 3.0) * z / (96.0 * df * df) +
	    (((3.0 * z2 + 19.0) * z2 + 17.0) * z2 - 15.0) * z / (384.0 * df * df * df);
	if (!(t < 0.0) || !isfinite(t))
		t = -1.0;
	/* the bracket [lo, hi] with F(lo) <= tail <= F(hi), hi <= 0 */
	hi = fmin(0.5 * t, 0.0);
	lo = t;
	while (statdist_t_lower(lo, df) > tail) {
		hi = lo;
		lo *= 2.0;
		if (isinf(lo))
			return p < 0.5 ? -INFINITY : INFINITY;
	}
	while (hi < 0.0 && statdist_t_lower(hi, df) < tail) {
		lo = hi;
		hi *= 0.5;
		if (hi > -1e-300)
			hi = 0.0;
	}
	t = 0.5 * (lo + hi);
	for (i = 0; i < 200; i++) {
		f = statdist_t_lower(t, df) - tail;
		if (f == 0.0)
			break;
		if (f < 0.0)
			lo = t;
		else
			hi = t;
		dx = f / statdist_t_pdf(t, df);
		if (!(t - dx > lo && t - dx < hi) || !isfinite(dx))
			dx = t - 0.5 * (lo + hi); /* bisect */
		t -= dx;
		if (fabs(dx) <= 4.0 * DBL_EPSILON * fabs(t) ||
		    hi - lo <= 4.0 * DBL_EPSILON * fabs(t))
			break;
	}
	return p < 0.5 ? t : -t;
}

/* How many of the last t quantiles statdist_t_quantile() remembers. */
#define STATDIST_TQ_MEMO 4

/*
 * The t quantile, remembered: a check asks it of every region, and the
 * regions of one check share a few (p, df) pairs (the pooled prior's df
 * plus a window's), while each answer costs a dozen evaluations of the
 * incomplete beta function.  The last few answers are kept per thread,
 * keyed by the exact arguments, so the result is the same bits.
 */
double statdist_t_quantile(double p, double df)
{
	static _Thread_local struct {
		double p, df, q;
	} memo[STATDIST_TQ_MEMO];
	static _Thread_local unsigned memo_n, memo_next;
	unsigned i;
	double q;

	if (!(p > 0.0 && p < 1.0) || !(df > 0.0))
		return NAN;
	if (p == 0.5)
		return 0.0;
	for (i = 0; i < memo_n; i++)
		if (memo[i].p == p && memo[i].df == df)
			return memo[i].q;
	q = statdist_t_quantile_solve(p, df);
	memo[memo_next].p = p;
	memo[memo_next].df = df;
	memo[memo_next].q = q;
	memo_next = (memo_next + 1) % STATDIST_TQ_MEMO;
	if (memo_n < STATDIST_TQ_MEMO)
		memo_n++;
	return q;
}

/* Below this, the asymptotic series of the digamma family is not used:
 * the recurrence moves x up to it (the series' terms then shrink below
 * 1e-17 of the sum). */
#define STATDIST_PSI_X 10.0

/*
 * psi(x) for x >= STATDIST_PSI_X: log x - 1/(2x) - sum B_2k / (2k x^2k)
 * (A&S 6.3.18), B_2k the Bernoulli numbers 1/6, -1/30, 1/42, -1/30, 5/66,
 * -691/2730, 7/6.
 */
static double statdist_psi_series(double x)
{
	double r = 1.0 / (x * x);

	return log(x) - 0.5 / x -
	       r * (1.0 / 12 -
		    r * (1.0 / 120 -
			 r * (1.0 / 252 -
			      r * (1.0 / 240 - r * (1.0 / 132 - r * (691.0 / 32760 - r / 12))))));
}

double statdist_digamma(double x)
{
	double acc = 0.0;

	if (!(x > 0.0) || isinf(x))
		return isinf(x) && x > 0 ? INFINITY : NAN;
	for (; x < STATDIST_PSI_X; x += 1.0)
		acc -= 1.0 / x;
	return acc + statdist_psi_series(x);
}

/*
 * psi'(x) for x >= STATDIST_PSI_X: 1/x + 1/(2x^2) + sum B_2k / x^(2k+1)
 * (A&S 6.4.11 with n = 1).
 */
static double statdist_tri_series(double x)
{
	double r = 1.0 / (x * x);

	return 1.0 / x + 0.5 * r +
	       r / x *
		   (1.0 / 6 -
		    r * (1.0 / 30 -
			 r * (1.0 / 42 -
			      r * (1.0 / 30 - r * (5.0 / 66 - r * (691.0 / 2730 - r * 7.0 / 6))))));
}

double statdist_trigamma(double x)
{
	double acc = 0.0;

	if (!(x > 0.0) || isinf(x))
		return isinf(x) && x > 0 ? 0.0 : NAN;
	for (; x < STATDIST_PSI_X; x += 1.0)
		acc += 1.0 / (x * x);
	return acc + statdist_tri_series(x);
}

/*
 * psi''(x) for x >= STATDIST_PSI_X: -1/x^2 - 1/x^3 - sum (2k+1) B_2k /
 * x^(2k+2) (A&S 6.4.11 with n = 2).
 */
static double statdist_tetra_series(double x)
{
	double r = 1.0 / (x * x);

	return -r - r / x -
	       r * r *
		   (0.5 -
		    r * (1.0 / 6 -
			 r * (1.0 / 6 -
			      r * (3.0 / 10 - r * (5.0 / 6 - r * (691.0 / 210 - r * 35.0 / 2))))));
}

double statdist_tetragamma(double x)
{
	double acc = 0.0;

	if (!(x > 0.0) || isinf(x))
		return isinf(x) && x > 0 ? 0.0 : NAN;
	for (; x < STATDIST_PSI_X; x += 1.0)
		acc -= 2.0 / (x * x * x);
	return acc + statdist_tetra_series(x);
}

/*
 * Newton's method on 1/trigamma, which is nearly linear (Smyth 2004, the
 * function trigammaInverse of limma): from y0 = 1/2 + 1/y, each step adds
 * trigamma(x) (1 - trigamma(x) / y) / tetragamma(x) until the relative
 * step is below 1e-12.  Very large or small y by the leading terms of the
 * series (x = 1/sqrt(y), x = 1/y).
 */
double statdist_trigamma_inverse(double y)
{
	double x, tri, dif;
	int i;

	if (!(y > 0.0) || isinf(y))
		return isinf(y) ? 0.0 : NAN;
	if (y > 1e7)
		return 1.0 / sqrt(y);
	if (y < 1e-6)
		return 1.0 / y;
	x = 0.5 + 1.0 / y;
	for (i = 0; i < 100; i++) {
		tri = statdist_trigamma(x);
		dif = tri * (1.0 - tri / y) / statdist_tetragamma(x);
		x += dif;
		if (-dif / x < 1e-12)
			break;
	}
	return x;
}

static int statdist_cmp(const void *pa, const void *pb)
{
	double x = *(const double *)pa, y = *(const double *)pb;

	return (x > y) - (x < y);
}

double statdist_median(double *v, size_t n)
{
	if (n == 0)
		return NAN;
	qsort(v, n, sizeof(*v), statdist_cmp);
	if (n % 2)
		return v[n / 2];
	return 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double statdist_mad(double *v, size_t n)
{
	double med;
	size_t i;

	if (n == 0)
		return NAN;
	med = statdist_median(v, n);
	for (i = 0; i < n; i++)
		v[i] = fabs(v[i] - med);
	return statdist_median(v, n);
}

/*
 * Of three values with median med, the one to leave out, 3 when none.
 * The median of three is one of the two values nearest an outlier's side,
 * so the outlier's distance from it understates how far it lies: the
 * value farthest from the median (none when the two others are as far) is
 * measured from the mean of the other two instead, the extreme deviate of
 * Grubbs (1969) with the scale known, and goes beyond c * scale.  Never
 * more than one: two of three that agree are the set.
 */
static size_t statdist_outlier3(const double *v, double med, double scale, double c)
{
	double d[3];
	size_t i, far = 0;

	for (i = 0; i < 3; i++) {
		d[i] = fabs(v[i] - med);
		if (d[i] > d[far])
			far = i;
	}
	if (d[far] > d[(far + 1) % 3] && d[far] > d[(far + 2) % 3] &&
	    fabs(v[far] - 0.5 * (v[(far + 1) % 3] + v[(far + 2) % 3])) > c * scale)
		return far;
	return 3;
}

double statdist_skipped_mean(const double *v, size_t n, double scale, double c,
			     unsigned char *rejected, size_t *kept, double *tmp)
{
	double med, sum = 0.0;
	size_t i, k = 0, out3 = 3;
	int all;

	if (kept)
		*kept = 0;
	if (n == 0)
		return NAN;
	memcpy(tmp, v, n * sizeof(*v));
	med = statdist_median(tmp, n);
	if (n == 3)
		out3 = statdist_outlier3(v, med, scale, c);
	for (i = 0; n > 3 && i < n; i++)
		k += fabs(v[i] - med) <= c * scale;
	/* None within: an even set whose median lies between its two middle
	 * values, further apart than the scale says values lie (a step in the
	 * middle of a baseline window; or 0.8, 0.8, 1.0 and a wild 30).
	 * Leaving every value out left no location, and a region without a
	 * verdict passed a check.  The set's own spread is the scale then
	 * (1.4826 MAD: the wild value goes, the others stay); a set split in
	 * two levels has every value within it, and keeps them all. */
	if (n > 3 && k == 0) {
		memcpy(tmp, v, n * sizeof(*v));
		scale = fmax(scale, 1.4826 * statdist_mad(tmp, n));
		for (i = 0; i < n; i++)
			k += fabs(v[i] - med) <= c * scale;
	}
	all = k == 0;
	k = 0;
	/* the mean as the median plus the mean deviation from it: equal
	 * values give themselves, with no rounding */
	for (i = 0; i < n; i++) {
		int out = n == 3 ? i == out3 : !all && fabs(v[i] - med) > c * scale;

		if (rejected)
			rejected[i] = (unsigned char)out;
		if (!out) {
			sum += v[i] - med;
			k++;
		}
	}
	if (kept)
		*kept = k;
	return med + sum / (double)k;
}

/*
 * The exact null distribution of the rank sum of m of the N pooled values,
 * ties included: *lo = P(R <= r) and *hi = P(R >= r), where r2[0..N) are
 * the pooled values' mid-ranks doubled (integers: a run of t equal values
 * at positions i..i+t-1 has mid-rank (2i + t + 1)/2) and r the observed sum
 * doubled.  Under the null every choice of m of the N positions is equally
 * likely, the mid-ranks staying as observed (the permutation distribution
 * conditional on the ties: Lehmann 1975, chapter 1), so the
 * number of choices of k positions among the first i with doubled sum s
 * obeys the subset-sum recurrence w(k, s) += w(k - 1, s - r2[i]), one
 * position at a time.  Without ties this is Mann and Whitney's (1947)
 * distribution of U = R - m(m + 1)/2.  -1 when the table cannot be
 * allocated.
 */
static int statdist_mw_exact(const unsigned *r2, size_t N, size_t m, unsigned r, double *lo,
			     double *hi)
{
	size_t smax = (size_t)N * (N + 1), i, k, s, stride = smax + 1;
	size_t *pre; /* pre[j]: the sum of r2[0..j) */
	double *w, total = 0.0, below = 0.0, above = 0.0;

	w = calloc((m + 1) * stride, sizeof(*w));
	pre = malloc((N + 1) * sizeof(*pre));
	if (!w || !pre) {
		free(w);
		free(pre);
		return -1;
	}
	pre[0] = 0;
	for (i = 0; i < N; i++)
		pre[i + 1] = pre[i] + r2[i];
	w[0] = 1.0;
	/* k of the first i + 1 sorted values sum to at least pre[k] and at
	 * most the last k's sum: only that band of row k can change (the
	 * entries outside it stay 0, so the counts are the same bits). */
	for (i = 0; i < N; i++)
		for (k = i + 1 < m ? i + 1 : m; k >= 1; k--)
			for (s = pre[k - 1] + r2[i]; s <= pre[i + 1] - pre[i + 1 - k]; s++)
				w[k * stride + s] += w[(k - 1) * stride + s - r2[i]];
	free(pre);
	for (s = 0; s <= smax; s++) {
		double c = w[m * stride + s];

		total += c;
		if (s <= r)
			below += c;
		if (s >= r)
			above += c;
	}
	free(w);
	*lo = below / total;
	*hi = above / total;
	return 0;
}

/* A value with its sample (0 = a, 1 = b), for ranking the pooled samples. */
struct statdist_obs {
	double x;
	int from_b;
};

static int statdist_obs_cmp(const void *pa, const void *pb)
{
	const struct statdist_obs *a = pa, *b = pb;

	return (a->x > b->x) - (a->x < b->x);
}

double statdist_mannwhitney_p(const double *a, size_t na, const double *b, size_t nb, double *u)
{
	size_t n = na + nb, i, j;
	struct statdist_obs *o;
	unsigned *r2 = NULL, sum2 = 0;
	double ranksum, ties = 0.0, ua, mu, var, z, lo, hi, p;
	int exact = na <= STATDIST_MW_EXACT && nb <= STATDIST_MW_EXACT;

	if (na == 0 || nb == 0)
		return NAN;
	o = malloc(n * sizeof(*o));
	if (exact)
		r2 = malloc(n * sizeof(*r2));
	if (!o || (exact && !r2))
		goto nan;
	for (i = 0; i < na; i++) {
		if (isnan(a[i]))
			goto nan;
		o[i].x = a[i];
		o[i].from_b = 0;
	}
	for (i = 0; i < nb; i++) {
		if (isnan(b[i]))
			goto nan;
		o[na + i].x = b[i];
		o[na + i].from_b = 1;
	}
	qsort(o, n, sizeof(*o), statdist_obs_cmp);
	/* Mid-ranks: a run of t equal values at positions i..j-1 gets
	 * (i+j+1)/2, kept doubled (an integer) for the exact distribution. */
	for (i = 0; i < n; i = j) {
		unsigned rank2;
		double t;
		size_t k;

		for (j = i + 1; j < n && o[j].x == o[i].x; j++)
			;
		rank2 = (unsigned)(i + 1 + j);
		for (k = i; k < j; k++) {
			if (r2)
				r2[k] = rank2;
			if (!o[k].from_b)
				sum2 += rank2;
		}
		t = (double)(j - i);
		ties += t * t * t - t;
	}
	free(o);
	o = NULL;
	ranksum = 0.5 * (double)sum2;
	ua = ranksum - (double)na * (double)(na + 1) / 2.0;
	if (u)
		*u = ua;
	mu = (double)na * (double)nb / 2.0;
	if (exact) {
		int bad = statdist_mw_exact(r2, n, na, sum2, &lo, &hi);

		free(r2);
		if (bad)
			return NAN;
		p = 2.0 * fmin(lo, hi);
		return p > 1.0 ? 1.0 : p;
	}
	var = (double)na * (double)nb / 12.0 *
	      ((double)(n + 1) - ties / ((double)n * (double)(n - 1)));
	if (!(var > 0.0))
		return 1.0;
	z = (fabs(ua - mu) - 0.5) / sqrt(var);
	if (z < 0.0)
		z = 0.0;
	p = erfc(z / STATDIST_SQRT2);
	return p > 1.0 ? 1.0 : p;
nan:
	free(o);
	free(r2);
	return NAN;
}
