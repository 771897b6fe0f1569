/*
 * verdict.c - statistical verdicts of regions from run sets (see
 * verdict.h; the methods and their references are in docs/statistics.md,
 * section "Verdicts").
 *
 * Everything is on the log scale, where multiplicative run-to-run noise is
 * additive and a ratio is a difference.  The noise of a region is the
 * between-run standard deviation of its log value within the step-free
 * segments of its history, moderated towards a prior fitted to all the
 * regions of the check (Smyth 2004) and never below the timer's
 * resolution; each set's location is the mean of its values after those
 * further than 4.5 noise scales from the set's median are left out
 * (Hampel 1985's skipped mean); the comparison is Student's t on the
 * difference of the locations with the noise's degrees of freedom, one
 * test for a slowdown and one for a speed-up, each direction's false
 * discoveries across regions controlled by Benjamini and Hochberg's
 * step-up procedure.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/verdict.h"
#include "scopedb/changepoint.h"
#include "scopedb/err.h"
#include "util/statdist.h"

/* The one name table of the statistical verdicts (model.h). */
static const char *const verdict_call_names[VERDICT_CALL_COUNT] = {
    [VERDICT_CALL_NONE] = "",
    [VERDICT_CALL_UNCHANGED] = "unchanged",
    [VERDICT_CALL_IMPROVED] = "improved",
    [VERDICT_CALL_REGRESSED] = "regressed",
    [VERDICT_CALL_INCONCLUSIVE] = "inconclusive",
    [VERDICT_CALL_NO_EVIDENCE] = "no evidence",
};

const char *verdict_call_name(enum verdict_call c)
{
	return (unsigned)c < VERDICT_CALL_COUNT ? verdict_call_names[c] : "";
}

/* Degrees of freedom beyond which Student's t is the normal distribution
 * to double precision in the tails used here. */
#define VERDICT_DF_NORMAL 1e7

/* P(T <= t) with df degrees of freedom, df possibly infinite. */
static double verdict_t_cdf(double t, double df)
{
	return df > VERDICT_DF_NORMAL ? statdist_norm_cdf(t) : statdist_t_cdf(t, df);
}

/* The p-quantile of T with df degrees of freedom, df possibly infinite. */
static double verdict_t_quantile(double p, double df)
{
	return df > VERDICT_DF_NORMAL ? statdist_norm_quantile(p) : statdist_t_quantile(p, df);
}

/*
 * Mark in cut[1..n) the change points of the history logv[0..n) as
 * changepoint_find() finds them (the method of "scopedb changes", with no
 * smallest change): cut[i] = 1 when run i starts a new level.  ERR_NOMEM.
 */
static int verdict_cut_changes(unsigned char *cut, const double *logv, size_t n)
{
	struct changepoint_opts o;
	struct changepoint *cp = NULL;
	struct stats_val *v = malloc(n * sizeof(*v));
	size_t i, ncp = 0;
	int rc;

	if (!v)
		return err_nomem();
	for (i = 0; i < n; i++) {
		v[i].none = 0;
		v[i].v = exp(logv[i]);
	}
	changepoint_opts_init(&o);
	o.min_change = 0.0;
	rc = changepoint_find(&cp, &ncp, v, NULL, n, &o);
	for (i = 0; !rc && i < ncp; i++)
		cut[cp[i].after] = 1;
	free(cp);
	free(v);
	return rc;
}

int verdict_noise_estimate(struct verdict_noise *out, const double *logv, size_t n, double res,
			   double *tmp)
{
	double scale, half, ss = 0.0, mean = 0.0;
	size_t i, len = 0, nseg = 0, k;
	unsigned char *cut = NULL;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	out->nhist = n;
	out->s2 = NAN;
	out->sigma = NAN;
	out->res = res > 0.0 && isfinite(res) ? res : 0.0;
	half = 0.5 * out->res;
	if (n < VERDICT_MIN_HISTORY)
		return 0;
	/* 1.4826 median |d| estimates the SD of d = sqrt 2 sigma (normal). */
	for (i = 1; i < n; i++)
		tmp[i - 1] = fabs(logv[i] - logv[i - 1]);
	scale = 1.4826 * statdist_median(tmp, n - 1);
	if (!(scale > half)) {
		/* most differences below the resolution (tmp is sorted): the
		 * others are quantized noise when there are enough of them,
		 * else steps of a constant history */
		for (k = n - 1; k > 0 && tmp[k - 1] > half; k--)
			;
		scale = n - 1 - k >= 3 && 10 * (n - 1 - k) >= n - 1
			    ? 1.4826 * statdist_median(tmp + k, n - 1 - k)
			    : 0.0;
	}
	cut = calloc(n, 1);
	if (!cut)
		return err_nomem();
	if (scale > 0.0)
		rc = verdict_cut_changes(cut, logv, n);
	/* Segments between steps; Welford's running mean and sum of squares. */
	for (i = 0; i < n && !rc; i++) {
		double d, step = i ? fabs(logv[i] - logv[i - 1]) : 0.0;

		if (i && (cut[i] || (scale > 0.0 ? step > 3.5 * scale : step > half))) {
			out->nsteps++;
			len = 0;
		}
		if (len++ == 0) {
			nseg++;
			mean = logv[i];
			continue;
		}
		d = logv[i] - mean;
		mean += d / (double)len;
		ss += d * (logv[i] - mean);
	}
	free(cut);
	if (rc || n <= nseg)
		return rc;
	out->df = (double)(n - nseg);
	out->s2 = ss > 0.0 ? ss / out->df : 0.0;
	out->constant = !(ss > 0.0);
	return 0;
}

int verdict_pool(struct verdict_region *r, size_t n, struct verdict_prior *prior)
{
	double *e = malloc(2 * (n ? n : 1) * sizeof(*e)), *tri, em = 0.0, ev = 0.0, tm = 0.0;
	double d0 = 0.0, s0 = NAN;
	size_t i, k = 0;

	if (!e)
		return err_nomem();
	tri = e + n;
	for (i = 0; i < n; i++) {
		const struct verdict_noise *z = &r[i].noise;

		if (!(z->df > 0.0) || z->constant || !(z->s2 > 0.0) || !isfinite(z->s2))
			continue;
		/* log s2 centred by its expectation under a chi-square (Smyth
		 * 2004, section 6.2) */
		e[k] = log(z->s2) - statdist_digamma(z->df / 2.0) + log(z->df / 2.0);
		tri[k] = statdist_trigamma(z->df / 2.0);
		em += e[k];
		tm += tri[k];
		k++;
	}
	if (k >= 3) {
		em /= (double)k;
		tm /= (double)k;
		for (i = 0; i < k; i++)
			ev += (e[i] - em) * (e[i] - em);
		ev = ev / (double)(k - 1) - tm;
		d0 = ev > 0.0 ? 2.0 * statdist_trigamma_inverse(ev) : INFINITY;
		if (!(d0 <= VERDICT_PRIOR_DF_MAX))
			d0 = VERDICT_PRIOR_DF_MAX;
		s0 = exp(em + statdist_digamma(d0 / 2.0) - log(d0 / 2.0));
	}
	free(e);
	if (prior) {
		prior->nregions = k >= 3 ? k : 0;
		prior->s2 = s0;
		prior->df = d0;
	}
	for (i = 0; i < n; i++) {
		struct verdict_noise *z = &r[i].noise;
		double s2 = NAN;

		z->borrowed = 0.0;
		z->dft = 0.0;
		if (z->df > 0.0 && z->constant) {
			s2 = 0.0;
			z->dft = z->df;
		} else if (z->df > 0.0 && d0 > 0.0) {
			s2 = (d0 * s0 + z->df * z->s2) / (d0 + z->df);
			z->dft = d0 + z->df;
			z->borrowed = d0 / (d0 + z->df);
		} else if (z->df > 0.0) {
			s2 = z->s2;
			z->dft = z->df;
		} else if (d0 > 0.0) {
			s2 = s0;
			z->dft = d0;
			z->borrowed = 1.0;
		}
		z->sigma = isnan(s2) ? NAN : fmax(sqrt(s2), z->res);
		/* never exactly 0: a constant series without a known resolution
		 * is known to a part in a billion */
		if (z->sigma < 1e-9)
			z->sigma = 1e-9;
	}
	return 0;
}

/* Whether v[i] lies to side dir (1 above, 2 below) of every other value,
 * and of their median by more than VERDICT_DROP scales: its own, not a
 * slowdown others share.  tmp: n doubles. */
static int verdict_drop_here(const double *v, size_t n, size_t i, unsigned char dir, double scale,
			     double *tmp)
{
	size_t j, k = 0;
	double dev;

	for (j = 0; j < n; j++)
		if (j != i) {
			if ((dir == 2 ? v[i] - v[j] : v[j] - v[i]) >= 0.0)
				return 0;
			tmp[k++] = v[j];
		}
	if (!k || !(scale >= 0.0))
		return 0;
	dev = v[i] - statdist_median(tmp, k);
	return (dir == 2 ? -dev : dev) > VERDICT_DROP * scale;
}

double verdict_location(const double *v, size_t n, double sigma, const unsigned char *drop,
			unsigned char *rejected, size_t *kept, double *tmp)
{
	double scale = sigma, *w = tmp + n, *out = tmp + 2 * n, y;
	size_t i, m = 0, d, k;

	if (isnan(scale) && n >= 3) {
		memcpy(tmp, v, n * sizeof(*v));
		scale = 1.4826 * statdist_mad(tmp, n);
	}
	/* an outlier repetition goes where it lies to its side here too */
	for (i = 0; i < n; i++)
		out[i] = drop && drop[i] && verdict_drop_here(v, n, i, drop[i], scale, tmp);
	for (i = 0; i < n; i++)
		if (out[i] == 0.0)
			w[m++] = v[i];
	/* only as a minority of this region's values, or not at all (a region
	 * only they have, or half of whose values they are: judged alone) */
	d = n - m;
	if (2 * d >= n && d) {
		memcpy(w, v, n * sizeof(*v));
		m = n;
		d = 0;
	}
	if (isnan(sigma) && m >= 3) {
		memcpy(tmp, w, m * sizeof(*w));
		scale = 1.4826 * statdist_mad(tmp, m);
	}
	/* where an outlier repetition went, the others are averaged whole: a
	 * slowdown it shares with some of them is theirs (leaving one more
	 * out made a slowdown of three repetitions of five one of two) */
	y = statdist_skipped_mean(w, m, scale, d ? INFINITY : VERDICT_REJECT, rejected, &k, tmp);
	if (kept)
		*kept = k;
	/* the set's marks back in v's places: w[j] is the j-th value kept */
	for (i = n; rejected && d && i-- > 0;)
		rejected[i] = out[i] != 0.0 ? 1 : rejected[--m];
	return y;
}

int verdict_outlier_run(size_t rejected, size_t tested)
{
	return rejected > 0 && 2 * rejected >= tested;
}

size_t verdict_drop_runs(unsigned char *drop, const size_t *rejected, const size_t *tested,
			 const double *dev, size_t n)
{
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		int is = rejected[i] >= 2 && verdict_outlier_run(rejected[i], tested[i]);

		drop[i] = (unsigned char)(is ? (dev[i] >= 0.0 ? 1 : 2) : 0);
		k += is != 0;
	}
	if (2 * k < n)
		return k;
	memset(drop, 0, n);
	return 0;
}

/* The standard error of the log-ratio of r. */
static double verdict_se(const struct verdict_region *r, double nbase, double ncand)
{
	return r->noise.sigma * sqrt(1.0 / nbase + 1.0 / ncand);
}

void verdict_region(struct verdict_region *r)
{
	double se, t, tq;

	r->lo = r->hi = NAN;
	r->p = r->padj = r->p_up = r->p_down = r->padj_up = r->padj_down = NAN;
	r->ratio = r->y = NAN;
	r->runs_needed = -1;
	r->call = VERDICT_CALL_NONE;
	if (!r->nbase || !r->ncand)
		return;
	r->y = r->ycand - r->ybase;
	/* a change below the timer's resolution is no change (nor is the
	 * rounding error of two locations of equal values) */
	if (fabs(expm1(r->y)) < r->noise.res || fabs(r->y) < 1e-12)
		r->y = 0.0;
	r->ratio = exp(r->y);
	r->call = VERDICT_CALL_INCONCLUSIVE;
	if (isnan(r->noise.sigma))
		return;
	se = verdict_se(r, (double)r->nbase, (double)r->ncand);
	t = r->y / se;
	r->p_up = verdict_t_cdf(-t, r->noise.dft);
	r->p_down = verdict_t_cdf(t, r->noise.dft);
	/* a constant history knows the value to its resolution: the interval
	 * is the estimate give or take that (the floor of sigma) */
	tq = verdict_t_quantile(0.975, r->noise.dft);
	if (r->noise.constant)
		se = r->noise.sigma, tq = 1.0;
	r->lo = exp(r->y - tq * se);
	r->hi = exp(r->y + tq * se);
}

/* A p-value and its region, to sort the p-values ascending. */
struct verdict_rank {
	double p;
	size_t i;
};

static int verdict_rank_cmp(const void *pa, const void *pb)
{
	const struct verdict_rank *a = pa, *b = pb;

	if (a->p != b->p)
		return a->p < b->p ? -1 : 1;
	return (a->i > b->i) - (a->i < b->i);
}

/*
 * Benjamini-Hochberg adjusted p-values of one direction (up: p_up into
 * padj_up, else p_down into padj_down) over the regions with a p-value:
 * padj_(i) = min over j >= i of m p_(j) / j, at most 1 (Benjamini and
 * Hochberg 1995; the adjusted form of Yekutieli and Benjamini 1999).
 */
static int verdict_bh(struct verdict_region *r, size_t n, int up)
{
	struct verdict_rank *k = malloc((n ? n : 1) * sizeof(*k));
	size_t m = 0, i;
	double run = 1.0;

	if (!k)
		return err_nomem();
	for (i = 0; i < n; i++) {
		double p = up ? r[i].p_up : r[i].p_down;

		if (!isnan(p))
			k[m].p = p, k[m++].i = i;
	}
	qsort(k, m, sizeof(*k), verdict_rank_cmp);
	for (i = m; i-- > 0;) {
		double a = k[i].p * (double)m / (double)(i + 1);

		if (a < run)
			run = a;
		if (up)
			r[k[i].i].padj_up = run;
		else
			r[k[i].i].padj_down = run;
	}
	free(k);
	return 0;
}

/*
 * About how many more candidate runs would decide r at its observed noise
 * and effect: the smallest m with t sigma sqrt(1/nb + 1/(nc + m)) below the
 * distance of the log-ratio from the budget; when the baseline alone is
 * too short for that, m more runs on both sides.  Capped at
 * VERDICT_MAX_RUNS.
 */
static int verdict_runs_needed(const struct verdict_region *r, double lbudget)
{
	double d = fabs(r->y - lbudget);
	double tq = verdict_t_quantile(0.975, r->noise.dft);
	double nb = (double)r->nbase, nc = (double)r->ncand;
	int m;

	for (m = 1; m < VERDICT_MAX_RUNS; m++)
		if (tq * verdict_se(r, nb, nc + m) < d)
			return m;
	for (m = 1; m < VERDICT_MAX_RUNS; m++)
		if (tq * verdict_se(r, nb + m, nc + m) < d)
			return m;
	return VERDICT_MAX_RUNS;
}

int verdict_decide(struct verdict_region *r, size_t n, double budget)
{
	double lb = log1p(budget / 100.0);
	size_t i;
	int rc = verdict_bh(r, n, 1);

	if (!rc)
		rc = verdict_bh(r, n, 0);
	if (rc)
		return rc;
	for (i = 0; i < n; i++) {
		struct verdict_region *x = &r[i];
		int up = x->padj_up <= VERDICT_ALPHA, down = x->padj_down <= VERDICT_ALPHA;
		double lo = log(x->lo), hi = log(x->hi);

		if (x->call == VERDICT_CALL_NONE)
			continue;
		if (isnan(x->noise.sigma)) {
			/* nothing to test with: only the estimate itself */
			x->call = x->y > lb ? VERDICT_CALL_INCONCLUSIVE : VERDICT_CALL_NO_EVIDENCE;
			continue;
		}
		x->p = x->y >= 0.0 ? x->p_up : x->p_down;
		x->padj = x->y >= 0.0 ? x->padj_up : x->padj_down;
		if (up && lo > lb)
			x->call = VERDICT_CALL_REGRESSED;
		else if (down && hi < -lb)
			x->call = VERDICT_CALL_IMPROVED;
		else if (hi <= lb + x->noise.res + 1e-12)
			x->call = VERDICT_CALL_UNCHANGED;
		else if (up)
			x->call = VERDICT_CALL_INCONCLUSIVE;
		else
			x->call = VERDICT_CALL_NO_EVIDENCE;
		if (x->call == VERDICT_CALL_INCONCLUSIVE || x->call == VERDICT_CALL_NO_EVIDENCE)
			x->runs_needed = verdict_runs_needed(x, lb);
	}
	return 0;
}
