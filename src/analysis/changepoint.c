/*
 * changepoint.c - change points of a metric over a history of runs (see
 * scopedb/changepoint.h and docs/statistics.md, "Change points").
 *
 * Four steps over the points (runs of one commit collapsed to their
 * median):
 *   1. noise: sigma = 1.4826 * MAD(x[i+1] - x[i]) / sqrt(2) of the
 *      log-values x, which a few steps or spikes do not move;
 *   2. outliers: a point further than CP_CLIP sigmas from the medians of
 *      the CP_SIDE points on both sides becomes their midpoint (z), so an
 *      outlier of one or two runs weighs no more than noise, while a point
 *      next to a step, close to one side, is kept;
 *   3. PELT (Killick et al. 2012): the exact minimum of the Gaussian
 *      change-in-mean cost sum((z - mean)^2) / sigma^2 plus a penalty of
 *      CP_PENALTY * log(n) per change, over segmentations with at least
 *      min_segment points per segment;
 *   4. confirmation: boundaries whose adjacent segments fail the minimum
 *      change (medians) or the Mann-Whitney test are removed, the worst
 *      first, until all pass; of the others, those at least CP_EFFECT
 *      sigmas high that a step explains better than a ramp (a drift) are
 *      the change points.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scopedb/changepoint.h"
#include "scopedb/err.h"
#include "scopedb/util.h"
#include "util/statdist.h"

/* A reported step moves the level by at least this many sigmas: a
 * smaller one cannot be placed on one run. */
#define CP_EFFECT 2.0
/* Penalty per change point, in units of sigma^2 * log(n). */
#define CP_PENALTY 3.0
/* How far from the medians on both sides an outlier lies, in sigmas. */
#define CP_CLIP 3.0
/* Points on each side whose median an outlier is compared with. */
#define CP_SIDE 3
/* Smallest noise estimate (log units): a perfectly flat series still has
 * a finite penalty. */
#define CP_SIGMA_MIN 1e-4
/* A step must explain the points around it (CP_WINDOW on each side) no
 * worse than the best ramp of at least CP_RAMP_MIN runs (a slow drift),
 * up to -CP_RAMP sigma^2. */
#define CP_RAMP -2.0
#define CP_RAMP_MIN 8
#define CP_WINDOW 64

void changepoint_opts_init(struct changepoint_opts *o)
{
	o->min_change = CHANGEPOINT_MIN_CHANGE;
	o->min_segment = CHANGEPOINT_MIN_SEGMENT;
	o->alpha = CHANGEPOINT_ALPHA;
}

/* One point: the runs [first, last] of one commit and their median. */
struct cp_point {
	size_t first, last, runs;
	double value;
};

/* The working arrays of one series of m points. */
struct cp_work {
	size_t m;
	double *x;	 /* log-values of the points */
	double *z;	 /* clipped */
	double *s1, *s2; /* prefix sums of z - mean(z) and its square */
	double zmean;
	double *tmp; /* scratch of 2 * (m + 1) doubles */
	double sigma;
};

/* 1 when runs i and j are the same known commit. */
static int cp_same_commit(const char *const *commit, size_t i, size_t j)
{
	return commit && commit[i] && commit[j] && !strcmp(commit[i], commit[j]);
}

/*
 * The points of v[0..n): consecutive valid runs of one commit collapsed
 * into their median; x[k] = its log.  *m = the number of points.
 */
static void cp_points(struct cp_point *pt, double *x, double *tmp, size_t *m,
		      const struct stats_val *v, const char *const *commit, size_t n)
{
	size_t i, k = 0, prev = n, nt = 0;

	for (i = 0; i <= n; i++) {
		int valid = i < n && !v[i].none && v[i].v > 0.0 && isfinite(v[i].v);

		if (i < n && !valid)
			continue;
		if (i < n && prev < n && cp_same_commit(commit, prev, i)) {
			tmp[nt++] = v[i].v;
			pt[k - 1].last = i;
			pt[k - 1].runs++;
			prev = i;
			continue;
		}
		if (k) {
			pt[k - 1].value = statdist_median(tmp, nt);
			x[k - 1] = log(pt[k - 1].value);
		}
		if (i == n)
			break;
		pt[k].first = pt[k].last = i;
		pt[k].runs = 1;
		k++;
		nt = 0;
		tmp[nt++] = v[i].v;
		prev = i;
	}
	*m = k;
}

/* The median of the x[lo, hi) (hi > lo), through tmp. */
static double cp_median(const struct cp_work *w, size_t lo, size_t hi, double *tmp)
{
	memcpy(tmp, w->x + lo, (hi - lo) * sizeof(double));
	return statdist_median(tmp, hi - lo);
}

/*
 * Robust noise (step 1) and the clipped series with its prefix sums
 * (step 2): a point further than CP_CLIP sigmas from the median of the
 * CP_SIDE points before it and from that of the CP_SIDE points after it
 * is an outlier of one or two runs: it becomes the midpoint of the two
 * medians (at the ends, where there is one side, it is clamped to
 * CP_CLIP sigmas of its median).  A point next to a step is close to one
 * side, so steps are left alone.
 */
static void cp_prepare(struct cp_work *w)
{
	size_t i, m = w->m;
	double mean = 0.0, c, left, right, *tmp = w->tmp;

	for (i = 0; i + 1 < m; i++)
		w->tmp[i] = w->x[i + 1] - w->x[i];
	w->sigma = m > 2 ? 1.4826 * statdist_mad(w->tmp, m - 1) / sqrt(2.0) : 0.0;
	if (!(w->sigma > CP_SIGMA_MIN) && m > 2) {
		/* more than half the differences equal (quantized values):
		 * the MAD of those that are not, if there are enough of them
		 * to be noise rather than a few steps */
		double med;
		size_t k = 0;

		for (i = 0; i + 1 < m; i++)
			w->tmp[i] = w->x[i + 1] - w->x[i];
		med = statdist_median(w->tmp, m - 1);
		for (i = 0; i + 1 < m; i++)
			if (fabs(w->tmp[i] - med) > 1e-12)
				w->tmp[k++] = fabs(w->tmp[i] - med);
		if (k >= 3 && k >= (m - 1) / 10)
			w->sigma = 1.4826 * statdist_median(w->tmp, k) / sqrt(2.0);
	}
	if (!(w->sigma > CP_SIGMA_MIN))
		w->sigma = CP_SIGMA_MIN;
	c = CP_CLIP * w->sigma;
	for (i = 0; i < m; i++) {
		left = i ? cp_median(w, i > CP_SIDE ? i - CP_SIDE : 0, i, tmp) : NAN;
		right = i + 1 < m
			    ? cp_median(w, i + 1, i + 1 + CP_SIDE < m ? i + 1 + CP_SIDE : m, tmp)
			    : NAN;
		w->z[i] = w->x[i];
		if (isnan(left) && isnan(right))
			;
		else if (isnan(left) || isnan(right))
			w->z[i] = fmin(fmax(w->x[i], (isnan(left) ? right : left) - c),
				       (isnan(left) ? right : left) + c);
		else if (fabs(w->x[i] - left) > c && fabs(w->x[i] - right) > c)
			w->z[i] = (left + right) / 2.0;
		mean += w->z[i];
	}
	mean /= (double)m;
	w->zmean = mean;
	w->s1[0] = w->s2[0] = 0.0;
	for (i = 0; i < m; i++) {
		double d = w->z[i] - mean;

		w->s1[i + 1] = w->s1[i] + d;
		w->s2[i + 1] = w->s2[i] + d * d;
	}
}

/* sum((z - mean)^2) over the points [s, t), t > s. */
static double cp_rss(const struct cp_work *w, size_t s, size_t t)
{
	double a = w->s1[t] - w->s1[s], r = w->s2[t] - w->s2[s] - a * a / (double)(t - s);

	return r > 0.0 ? r : 0.0;
}

/*
 * Step 3: PELT over the m points with at least L per segment; the
 * boundaries (index of the first point of each segment but the first)
 * into bnd, ascending, *nb of them.  cand and prev are scratch arrays of
 * m + 1 entries, f, cost and inv of m + 1 doubles.  Without change points
 * nothing is pruned (the cost is quadratic in m: about 0.5 ms for 1,000
 * points), so the inner loop is kept to a few operations per candidate.
 */
static void cp_pelt(const struct cp_work *w, size_t L, size_t *bnd, size_t *nb, size_t *cand,
		    size_t *prev, double *f, double *cost, double *inv)
{
	double beta = CP_PENALTY * log((double)w->m), q = 1.0 / (w->sigma * w->sigma);
	double best, a1, a2, d;
	size_t m = w->m, t, s, i, k, nc = 0, arg;

	*nb = 0;
	if (m < 2 * L)
		return;
	f[0] = -beta;
	inv[0] = 0.0;
	for (t = 1; t <= m; t++) {
		f[t] = HUGE_VAL;
		inv[t] = 1.0 / (double)t;
	}
	for (t = L; t <= m; t++) {
		s = t - L;
		if (s == 0 || s >= L)
			cand[nc++] = s;
		best = HUGE_VAL;
		arg = 0;
		a1 = w->s1[t];
		a2 = w->s2[t];
		for (i = 0; i < nc; i++) {
			s = cand[i];
			d = a1 - w->s1[s];
			cost[i] = f[s] + (a2 - w->s2[s] - d * d * inv[t - s]) * q;
			if (cost[i] < best) {
				best = cost[i];
				arg = s;
			}
		}
		f[t] = best + beta;
		prev[t] = arg;
		for (i = k = 0; i < nc; i++)
			if (cost[i] <= f[t])
				cand[k++] = cand[i];
		nc = k;
	}
	for (t = m; t > 0; t = prev[t])
		if (prev[t] > 0)
			bnd[(*nb)++] = prev[t];
	for (i = 0; i < *nb / 2; i++) {
		s = bnd[i];
		bnd[i] = bnd[*nb - 1 - i];
		bnd[*nb - 1 - i] = s;
	}
}

/*
 * How much better a step at b explains the clipped points around b than
 * the best ramp, in sigma^2: (RSS of the ramp - RSS of the two means) /
 * sigma^2, over the window [lo, hi) of at most CP_WINDOW points each side
 * within [a, c).  A ramp is flat at L1 up to point r0, rises linearly and
 * is flat at L2 from r1 on (r1 - r0 >= CP_RAMP_MIN; r0 before the window
 * or r1 after it make it a straight line at that end), fitted by least
 * squares for every (r0, r1) around b in O(1) each from prefix sums.  A
 * drift cut into segments gives about 0 or less; a step gives at least
 * about CP_RAMP_MIN / 12 step^2.
 */
static double cp_step_gain(const struct cp_work *w, size_t a, size_t b, size_t c)
{
	size_t lo = b - a > CP_WINDOW ? b - CP_WINDOW : a,
	       hi = c - b > CP_WINDOW ? b + CP_WINDOW : c;
	double *py = w->tmp, *piy = w->tmp + (hi - lo + 1), n = (double)(hi - lo);
	double sy, syy, best = HUGE_VAL, step;
	long r0, r1, nlo = (long)lo, nhi = (long)hi;
	size_t i;

	py[0] = piy[0] = 0.0;
	for (i = lo; i < hi; i++) {
		double d = w->z[i] - w->zmean; /* centred: no cancellation */

		py[i - lo + 1] = py[i - lo] + d;
		piy[i - lo + 1] = piy[i - lo] + (double)i * d;
	}
	sy = py[hi - lo];
	syy = w->s2[hi] - w->s2[lo];
	for (r0 = nlo - 1; r0 < (long)b; r0++) {
		for (r1 = r0 + CP_RAMP_MIN; r1 <= nhi; r1++) {
			/* the ramp's interior points r0 < i < r1 within the window */
			long i0 = r0 + 1 > nlo ? r0 + 1 : nlo, i1 = r1 < nhi ? r1 : nhi;
			double R = (double)(r1 - r0), k0 = (double)(i0 - r0),
			       k1 = (double)(i1 - 1 - r0);
			double nin = (double)(i1 - i0), nup = (double)(nhi - i1);
			double sk, skk, sky, sw, sww, swy, vw, cw, rss;

			if (r1 < (long)b)
				continue;
			/* sums of k = i - r0 over the interior, k0..k1 */
			sk = nin > 0 ? (k0 + k1) * nin / 2.0 : 0.0;
			skk = nin > 0
				  ? (k1 * (k1 + 1) * (2 * k1 + 1) - (k0 - 1) * k0 * (2 * k0 - 1)) /
					6.0
				  : 0.0;
			sky = nin > 0 ? (piy[i1 - nlo] - piy[i0 - nlo]) -
					    (double)r0 * (py[i1 - nlo] - py[i0 - nlo])
				      : 0.0;
			sw = nup + sk / R;
			sww = nup + skk / (R * R);
			swy = (py[nhi - nlo] - py[i1 - nlo]) + sky / R;
			vw = sww - sw * sw / n;
			cw = swy - sw * sy / n;
			rss = syy - sy * sy / n - (vw > 1e-12 ? cw * cw / vw : 0.0);
			if (rss < best)
				best = rss;
		}
	}
	/* the best step within two points of b */
	step = HUGE_VAL;
	for (i = b > lo + 2 ? b - 2 : lo + 1; i <= b + 2 && i < hi; i++)
		step = fmin(step, cp_rss(w, lo, i) + cp_rss(w, i, hi));
	return (best - step) / (w->sigma * w->sigma);
}

/* The verdict on boundary b between segments [a, b) and [b, c). */
struct cp_test {
	double med_a, med_b; /* medians of the log-values */
	double p;
	int level; /* a change of level: large enough and significant */
	int step;  /* and a step: not within the noise, not a ramp */
};

static void cp_test(struct cp_test *r, const struct cp_work *w, size_t a, size_t b, size_t c,
		    const struct changepoint_opts *o)
{
	double change;

	memcpy(w->tmp, w->x + a, (b - a) * sizeof(double));
	r->med_a = statdist_median(w->tmp, b - a);
	memcpy(w->tmp, w->x + b, (c - b) * sizeof(double));
	r->med_b = statdist_median(w->tmp, c - b);
	r->p = statdist_mannwhitney_p(w->x + a, b - a, w->x + b, c - b, NULL);
	change = fabs(expm1(r->med_b - r->med_a));
	r->level = change >= o->min_change * (1.0 - 1e-9) && r->p <= o->alpha;
	r->step = 0;
}

/*
 * Step 4: merge the segments around boundaries of bnd[0..*nb) that are
 * no change of level, the one with the largest p first (then the
 * smallest change), until every one is; then mark those that are steps
 * (res[i] = the test of the surviving bnd[i]).  Boundaries that change
 * the level without being a step (a drift cut into segments) stay, so
 * that the segments around the others remain level.
 */
static void cp_confirm(const struct cp_work *w, size_t *bnd, size_t *nb, struct cp_test *res,
		       const struct changepoint_opts *o)
{
	size_t i, worst;
	int any;

	for (i = 0; i < *nb; i++)
		cp_test(&res[i], w, i ? bnd[i - 1] : 0, bnd[i], i + 1 < *nb ? bnd[i + 1] : w->m, o);
	for (;;) {
		any = 0;
		worst = 0;
		for (i = 0; i < *nb; i++) {
			if (res[i].level)
				continue;
			if (!any || res[i].p > res[worst].p ||
			    (res[i].p == res[worst].p &&
			     fabs(res[i].med_b - res[i].med_a) <
				 fabs(res[worst].med_b - res[worst].med_a)))
				worst = i;
			any = 1;
		}
		if (!any)
			break;
		memmove(bnd + worst, bnd + worst + 1, (*nb - worst - 1) * sizeof(*bnd));
		memmove(res + worst, res + worst + 1, (*nb - worst - 1) * sizeof(*res));
		(*nb)--;
		/* only the two boundaries next to the merged segment change */
		for (i = worst ? worst - 1 : 0; i <= worst && i < *nb; i++)
			cp_test(&res[i], w, i ? bnd[i - 1] : 0, bnd[i],
				i + 1 < *nb ? bnd[i + 1] : w->m, o);
	}
	for (i = 0; i < *nb; i++) {
		size_t a = i ? bnd[i - 1] : 0, c = i + 1 < *nb ? bnd[i + 1] : w->m;

		res[i].step = fabs(res[i].med_b - res[i].med_a) >= CP_EFFECT * w->sigma &&
			      cp_step_gain(w, a, bnd[i], c) >= CP_RAMP;
	}
}

/* The median value of the points [a, b), through tmp: the typical value
 * of a segment, in the metric's unit. */
static double cp_value_median(const struct cp_point *pt, size_t a, size_t b, double *tmp)
{
	size_t i;

	for (i = a; i < b; i++)
		tmp[i - a] = pt[i].value;
	return statdist_median(tmp, b - a);
}

int changepoint_find(struct changepoint **out, size_t *nout, const struct stats_val *v,
		     const char *const *commit, size_t n, const struct changepoint_opts *o)
{
	struct cp_point *pt = NULL;
	struct cp_test *res = NULL;
	struct changepoint *cp = NULL;
	struct cp_work w;
	double *dbl = NULL;
	size_t *idx = NULL, nb = 0, i, j, k;
	int ret = 0;

	*out = NULL;
	*nout = 0;
	if (!(o->min_segment >= 2) || !(o->min_change >= 0.0) ||
	    !(o->alpha > 0.0 && o->alpha <= 1.0))
		return err_set(ERR_USAGE, "invalid change point options");
	if (n == 0)
		return 0;
	memset(&w, 0, sizeof(w));
	pt = util_calloc(n, sizeof(*pt));
	dbl = util_calloc(9 * (n + 1), sizeof(*dbl));
	idx = util_calloc(3 * (n + 1), sizeof(*idx));
	res = util_calloc(n, sizeof(*res));
	if (!pt || !dbl || !idx || !res) {
		ret = err_nomem();
		goto out;
	}
	w.x = dbl;
	w.z = dbl + (n + 1);
	w.s1 = dbl + 2 * (n + 1);
	w.s2 = dbl + 3 * (n + 1);
	w.tmp = dbl + 4 * (n + 1); /* 2 * (n + 1) */
	cp_points(pt, w.x, w.tmp, &w.m, v, commit, n);
	if (w.m < 2 * o->min_segment)
		goto out;
	cp_prepare(&w);
	cp_pelt(&w, o->min_segment, idx, &nb, idx + (n + 1), idx + 2 * (n + 1), dbl + 6 * (n + 1),
		dbl + 7 * (n + 1), dbl + 8 * (n + 1));
	cp_confirm(&w, idx, &nb, res, o);
	for (i = k = 0; i < nb; i++)
		k += res[i].step ? 1 : 0;
	if (k == 0)
		goto out;
	cp = util_calloc(k, sizeof(*cp));
	if (!cp) {
		ret = err_nomem();
		goto out;
	}
	for (i = k = 0; i < nb; i++) {
		size_t a = i ? idx[i - 1] : 0, b = idx[i], c = i + 1 < nb ? idx[i + 1] : w.m;

		if (!res[i].step)
			continue;
		cp[k].before = pt[b - 1].last;
		cp[k].after = pt[b].first;
		cp[k].v_before = cp_value_median(pt, a, b, w.tmp);
		cp[k].v_after = cp_value_median(pt, b, c, w.tmp);
		cp[k].pct = (cp[k].v_after / cp[k].v_before - 1.0) * 100.0;
		cp[k].p = res[i].p;
		for (j = a; j < b; j++)
			cp[k].runs_before += pt[j].runs;
		for (j = b; j < c; j++)
			cp[k].runs_after += pt[j].runs;
		k++;
	}
	*out = cp;
	*nout = k;
out:
	free(pt);
	free(dbl);
	free(idx);
	free(res);
	return ret;
}
