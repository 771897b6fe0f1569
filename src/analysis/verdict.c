/*
 * verdict.c - statistical verdicts of regions from run sets (see
 * verdict.h; the methods and their references are in docs/statistics.md,
 * section "Verdicts").
 *
 * Everything is on the log scale, where multiplicative run-to-run noise is
 * additive and a ratio is a difference: the noise is the between-run
 * standard deviation of a region's log value in its history, robust to
 * steps (past regressions) and outlying runs; the comparison is Welch-free
 * (one pooled sigma) Student t on the difference of the two sets' mean
 * logs, which for one candidate run is the prediction interval of that run
 * from the baseline runs.  False discoveries across regions are controlled
 * with Benjamini and Hochberg's step-up procedure.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/verdict.h"
#include "scopedb/err.h"
#include "util/statdist.h"

/* The one name table of the statistical verdicts (model.h). */
static const char *const verdict_call_names[VERDICT_CALL_COUNT] = {
    [VERDICT_CALL_NONE] = "",
    [VERDICT_CALL_UNCHANGED] = "unchanged",
    [VERDICT_CALL_IMPROVED] = "improved",
    [VERDICT_CALL_REGRESSED] = "regressed",
    [VERDICT_CALL_INCONCLUSIVE] = "inconclusive",
};

const char *verdict_call_name(enum verdict_call c)
{
	return (unsigned)c < VERDICT_CALL_COUNT ? verdict_call_names[c] : "";
}

void verdict_noise_estimate(struct verdict_noise *out, const double *logv, size_t n, double *tmp)
{
	double scale, ss = 0.0, mean = 0.0;
	size_t i, len = 0, nseg = 0;

	memset(out, 0, sizeof(*out));
	out->nhist = n;
	out->sigma = NAN;
	out->df = NAN;
	if (n < VERDICT_MIN_HISTORY)
		return;
	/* 1.4826 median |d| estimates the SD of d = sqrt 2 sigma (normal). */
	for (i = 1; i < n; i++)
		tmp[i - 1] = fabs(logv[i] - logv[i - 1]);
	scale = 1.4826 * statdist_median(tmp, n - 1);
	/* Segments between steps; Welford's running mean and sum of squares. */
	for (i = 0; i < n; i++) {
		double d;

		if (i && scale > 0.0 && fabs(logv[i] - logv[i - 1]) > 3.5 * scale) {
			out->ntrim++;
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
	if (n <= nseg)
		return;
	out->df = (double)(n - nseg);
	out->sigma = sqrt(ss / out->df);
}

size_t verdict_log_mean(double *mean, const double *v, size_t n)
{
	double s = 0.0;
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		if (v[i] > 0.0 && isfinite(v[i])) {
			s += log(v[i]);
			k++;
		}
	}
	*mean = k ? s / (double)k : NAN;
	return k;
}

/* The standard error of the log-ratio of r. */
static double verdict_se(const struct verdict_region *r, double nbase, double ncand)
{
	return r->noise.sigma * sqrt(1.0 / nbase + 1.0 / ncand);
}

void verdict_region(struct verdict_region *r)
{
	double y, se, t, tq;

	r->lo = r->hi = r->p = r->padj = NAN;
	r->ratio = NAN;
	r->runs_needed = -1;
	r->call = VERDICT_CALL_NONE;
	if (!r->nbase || !r->ncand)
		return;
	y = r->ycand - r->ybase;
	r->ratio = exp(y);
	r->call = VERDICT_CALL_INCONCLUSIVE;
	if (isnan(r->noise.sigma))
		return;
	se = verdict_se(r, (double)r->nbase, (double)r->ncand);
	tq = statdist_t_quantile(0.975, r->noise.df);
	r->lo = exp(y - tq * se);
	r->hi = exp(y + tq * se);
	if (se > 0.0)
		t = fabs(y) / se;
	else
		t = y != 0.0 ? INFINITY : 0.0;
	r->p = 2.0 * statdist_t_cdf(-t, r->noise.df);
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
 * Benjamini-Hochberg adjusted p-values of the regions with a p-value:
 * padj_(i) = min over j >= i of m p_(j) / j, at most 1 (Benjamini and
 * Hochberg 1995; the adjusted form of Yekutieli and Benjamini 1999).
 */
static int verdict_bh(struct verdict_region *r, size_t n)
{
	struct verdict_rank *k = malloc((n ? n : 1) * sizeof(*k));
	size_t m = 0, i;
	double run = 1.0;

	if (!k)
		return err_nomem();
	for (i = 0; i < n; i++)
		if (!isnan(r[i].p))
			k[m].p = r[i].p, k[m++].i = i;
	qsort(k, m, sizeof(*k), verdict_rank_cmp);
	for (i = m; i-- > 0;) {
		double a = k[i].p * (double)m / (double)(i + 1);

		if (a < run)
			run = a;
		r[k[i].i].padj = run;
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
	double d = fabs(r->ycand - r->ybase - lbudget);
	double tq = statdist_t_quantile(0.975, r->noise.df);
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
	double lim = 1.0 + budget / 100.0;
	size_t i;
	int rc = verdict_bh(r, n);

	if (rc)
		return rc;
	for (i = 0; i < n; i++) {
		struct verdict_region *x = &r[i];
		int sig = x->padj <= VERDICT_ALPHA;

		if (x->call == VERDICT_CALL_NONE || isnan(x->p))
			continue;
		if (sig && x->lo > lim)
			x->call = VERDICT_CALL_REGRESSED;
		else if (sig && x->hi < 1.0)
			x->call = VERDICT_CALL_IMPROVED;
		else if (x->hi <= lim)
			x->call = VERDICT_CALL_UNCHANGED;
		else
			x->call = VERDICT_CALL_INCONCLUSIVE;
		if (x->call == VERDICT_CALL_INCONCLUSIVE)
			x->runs_needed = verdict_runs_needed(x, log(lim));
	}
	return 0;
}
