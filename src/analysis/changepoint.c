/*
 * changepoint.c - change points of a metric over a history of runs (see
 * scopedb/changepoint.h and docs/statistics.md, "Change points").
 *
 * Five steps over the points (runs of one commit collapsed to their
 * median):
 *   1. noise: sigma of the log-values x from their successive
 *      differences, robust (their median absolute value) and then
 *      sharpened (the SD of the differences within CP_TRIM such scales),
 *      which a few steps or spikes do not move;
 *   2. outliers: a point further than CP_CLIP sigmas from the medians of
 *      the CP_SIDE points on both sides becomes their midpoint (z), so an
 *      outlier of one or two runs weighs no more than noise, while a point
 *      next to a step, close to one side, is kept;
 *   3. PELT (Killick et al. 2012): the exact minimum of the Gaussian
 *      change-in-mean cost sum((z - mean)^2) / sigma^2 plus a penalty of
 *      CP_PENALTY * log(n) per change, over segmentations with at least
 *      min_segment points per segment;
 *   4. confirmation: boundaries whose adjacent segments fail the minimum
 *      change (medians) or the Mann-Whitney test are removed, those below
 *      the minimum change first, then the largest p, until all pass;
 *      those at least CP_EFFECT sigmas high are changes, consecutive ones
 *      in one direction that a ramp explains about as well are one change
 *      (a drift), each placed on the runs its profile likelihood allows
 *      (CP_LOC);
 *   5. the newest points: a step in fewer than min_segment of them is a
 *      provisional change (CP_PROV).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scopedb/changepoint.h"
#include "scopedb/err.h"
#include "scopedb/util.h"
#include "util/statdist.h"

/* A reported step moves the level by at least this many sigmas. */
#define CP_EFFECT 1.0
/* Penalty per change point, in units of sigma^2 * log(n). */
#define CP_PENALTY 4.0
/* Successive differences further than this many robust scales from their
 * median are left out of the noise (steps, outliers). */
#define CP_TRIM 3.5
/* How far from the medians on both sides an outlier lies, in sigmas. */
#define CP_CLIP 3.0
/* Points on each side whose median an outlier is compared with. */
#define CP_SIDE 3
/* A step in the newest k < min_segment points is provisional when each
 * lies further than CP_PROV / sqrt(k) sigmas from the level before them. */
#define CP_PROV 3.0
/* Two steps in one direction are one change (a drift) unless they explain
 * their points better than one ramp by this many sigma^2. */
#define CP_MERGE 6.0
/* The place of a step: the splits within this many sigma^2 of the best
 * (a profile likelihood interval). */
#define CP_LOC 6.0
/* Smallest noise estimate (log units): a perfectly flat series still has
 * a finite penalty. */
#define CP_SIGMA_MIN 1e-4
/* A ramp (a slow drift) rises over at least CP_RAMP_MIN runs; the ramps
 * and the places of a step are looked for within CP_WINDOW points of it. */
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
 * A sharper noise scale than the MAD's (37 % efficient for normal noise):
 * the standard deviation of the successive differences within CP_TRIM
 * robust scales (sd, the differences' own) of their median, corrected for
 * the normal tails that are cut (the variance of a truncated normal; a
 * step or an outlier only costs its large differences), over sqrt 2.
 */
static double cp_refine_sigma(const struct cp_work *w, double sd)
{
	double *d = w->tmp, med, sum = 0.0, ss = 0.0, mean, z = CP_TRIM, keep;
	size_t i, k = 0, m = w->m;

	for (i = 0; i + 1 < m; i++)
		d[i] = w->x[i + 1] - w->x[i];
	med = statdist_median(d, m - 1);
	for (i = 0; i + 1 < m; i++)
		if (fabs(d[i] - med) <= z * sd)
			sum += d[i], k++;
	if (k < 3)
		return sd / sqrt(2.0);
	mean = sum / (double)k;
	for (i = 0; i + 1 < m; i++)
		if (fabs(d[i] - med) <= z * sd)
			ss += (d[i] - mean) * (d[i] - mean);
	/* the variance of a normal cut at +-z is 1 - 2 z phi(z) / (2 Phi(z) - 1) */
	keep = 1.0 - 2.0 * z * exp(-0.5 * z * z) / sqrt(2.0 * 3.14159265358979323846) /
			 (2.0 * statdist_norm_cdf(z) - 1.0);
	return sqrt(ss / (double)(k - 1) / keep / 2.0);
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
		w->tmp[i] = fabs(w->x[i + 1] - w->x[i]);
	w->sigma = m > 2 ? 1.4826 * statdist_median(w->tmp, m - 1) / sqrt(2.0) : 0.0;
	if (!(w->sigma > CP_SIGMA_MIN) && m > 2) {
		/* more than half the differences 0 (quantized values): the
		 * MAD of those that are not, if there are enough of them to
		 * be noise rather than a few steps */
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
	if (w->sigma > CP_SIGMA_MIN && m > 2)
		w->sigma = cp_refine_sigma(w, sqrt(2.0) * w->sigma);
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
 * The residual sum of squares of the best ramp through the clipped points
 * of the window [lo, hi) that rises (or falls) across [b1, b2]: flat at L1
 * up to point r0 < b1, linear, flat at L2 from r1 >= b2 on (r1 - r0 >=
 * CP_RAMP_MIN; r0 before the window or r1 after it make it a straight line
 * at that end), fitted by least squares for every (r0, r1) in O(1) each
 * from prefix sums.
 */
static double cp_ramp_rss(const struct cp_work *w, size_t lo, size_t hi, size_t b1, size_t b2)
{
	double *py = w->tmp, *piy = w->tmp + (hi - lo + 1), n = (double)(hi - lo);
	double sy, syy, best = HUGE_VAL;
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
	for (r0 = nlo - 1; r0 < (long)b1; r0++) {
		for (r1 = r0 + CP_RAMP_MIN; r1 <= nhi; r1++) {
			/* the ramp's interior points r0 < i < r1 within the window */
			long i0 = r0 + 1 > nlo ? r0 + 1 : nlo, i1 = r1 < nhi ? r1 : nhi;
			double R = (double)(r1 - r0), k0 = (double)(i0 - r0),
			       k1 = (double)(i1 - 1 - r0);
			double nin = (double)(i1 - i0), nup = (double)(nhi - i1);
			double sk, skk, sky, sw, sww, swy, vw, cw, rss;

			if (r1 < (long)b2)
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
	return best;
}

/*
 * How much better two steps at b1 < b2 explain the clipped points of
 * [a, c) (at most CP_WINDOW beyond each) than one ramp rising across
 * both, in sigma^2: a drift cut into two steps gives little.
 */
static double cp_two_steps_gain(const struct cp_work *w, size_t a, size_t b1, size_t b2, size_t c)
{
	size_t lo = b1 - a > CP_WINDOW ? b1 - CP_WINDOW : a,
	       hi = c - b2 > CP_WINDOW ? b2 + CP_WINDOW : c;
	double steps = cp_rss(w, lo, b1) + cp_rss(w, b1, b2) + cp_rss(w, b2, hi);

	return (cp_ramp_rss(w, lo, hi, b1, b2) - steps) / (w->sigma * w->sigma);
}

/* sum((x - mean)^2) over the points [s, t) of a window whose prefix sums
 * of x (centred) and x^2 start at p1[0] = p2[0] = 0 for point lo. */
static double cp_rss_x(const double *p1, const double *p2, size_t lo, size_t s, size_t t)
{
	double a = p1[t - lo] - p1[s - lo], r = p2[t - lo] - p2[s - lo] - a * a / (double)(t - s);

	return r > 0.0 ? r : 0.0;
}

/*
 * Where the step at b between [a, b) and [b, c) may lie: the splits k of
 * the points (within CP_WINDOW of b, a < k < c) that explain the values x
 * no worse than the best split by more than CP_LOC sigma^2 (a profile
 * likelihood interval); *best the best split, [*lo, *hi] the interval
 * around it.  An outlier is a value further than CP_CLIP sigmas from both
 * levels, the medians before and after b, and counts as their midpoint
 * (the clipped z of step 2 would not do: a point next to a step in little
 * noise may be far from the medians of its neighbours on both sides, yet
 * close to one level).
 */
static void cp_locate(const struct cp_work *w, size_t a, size_t b, size_t c, size_t *best,
		      size_t *lo, size_t *hi)
{
	size_t wl = b - a > CP_WINDOW ? b - CP_WINDOW : a,
	       wh = c - b > CP_WINDOW ? b + CP_WINDOW : c;
	double *p1 = w->tmp, *p2 = w->tmp + (wh - wl + 1), top = HUGE_VAL, lim, ref = w->x[b];
	double ma, mb, cl = CP_CLIP * w->sigma;
	size_t k;

	memcpy(p1, w->x + wl, (b - wl) * sizeof(double));
	ma = statdist_median(p1, b - wl);
	memcpy(p1, w->x + b, (wh - b) * sizeof(double));
	mb = statdist_median(p1, wh - b);
	p1[0] = p2[0] = 0.0;
	for (k = wl; k < wh; k++) {
		double d = w->x[k];

		if (fabs(d - ma) > cl && fabs(d - mb) > cl)
			d = 0.5 * (ma + mb);
		d -= ref;

		p1[k - wl + 1] = p1[k - wl] + d;
		p2[k - wl + 1] = p2[k - wl] + d * d;
	}
	*best = b;
	for (k = wl + 1; k < wh; k++) {
		double r = cp_rss_x(p1, p2, wl, wl, k) + cp_rss_x(p1, p2, wl, k, wh);

		if (r < top) {
			top = r;
			*best = k;
		}
	}
	lim = top + CP_LOC * w->sigma * w->sigma;
	for (*lo = *best;
	     *lo > wl + 1 &&
	     cp_rss_x(p1, p2, wl, wl, *lo - 1) + cp_rss_x(p1, p2, wl, *lo - 1, wh) <= lim;
	     (*lo)--)
		;
	for (*hi = *best;
	     *hi + 1 < wh &&
	     cp_rss_x(p1, p2, wl, wl, *hi + 1) + cp_rss_x(p1, p2, wl, *hi + 1, wh) <= lim;
	     (*hi)++)
		;
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

/* 1 when the test's change of level is below the smallest change. */
static int cp_small(const struct cp_test *r, const struct changepoint_opts *o)
{
	return fabs(expm1(r->med_b - r->med_a)) < o->min_change * (1.0 - 1e-9);
}

/*
 * Step 4: merge the segments around boundaries of bnd[0..*nb) that are
 * no change of level, those of less than the smallest change first (no
 * test makes them one, while a boundary with too few points after it to
 * test may be one once its neighbour is gone), then the largest p (then
 * the smallest change), until every one is; then mark those that are steps
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
			int small = cp_small(&res[i], o), wsmall = any && cp_small(&res[worst], o);

			if (res[i].level)
				continue;
			if (!any || small > wsmall ||
			    (small == wsmall && (res[i].p > res[worst].p ||
						 (res[i].p == res[worst].p &&
						  fabs(res[i].med_b - res[i].med_a) <
						      fabs(res[worst].med_b - res[worst].med_a)))))
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
	for (i = 0; i < *nb; i++)
		res[i].step = fabs(res[i].med_b - res[i].med_a) >= CP_EFFECT * w->sigma;
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

/* One change to report: from the segment [a, b1) to the segment [b2, c)
 * (b1 == b2 for a step; b1 < b2 when steps of one drift were merged), or
 * a provisional step to the last k points. */
struct cp_item {
	size_t a, b1, b2, c;
	double p;
	int provisional;
	size_t confirm; /* provisional: the points that would confirm it */
};

/* The sign of the change between the medians of r. */
static int cp_sign(const struct cp_test *r)
{
	return r->med_b > r->med_a ? 1 : -1;
}

/*
 * The changes of the confirmed boundaries bnd[0..nb) (res[i]: their
 * tests) into it (*ni of them): each step, consecutive steps in one
 * direction merged into one change when a single ramp explains their
 * segments nearly as well (a drift: CP_MERGE sigma^2).
 */
static void cp_items(const struct cp_work *w, const size_t *bnd, size_t nb,
		     const struct cp_test *res, struct cp_item *it, size_t *ni)
{
	size_t i, j;

	*ni = 0;
	for (i = 0; i < nb; i = j) {
		struct cp_item *x = &it[*ni];

		j = i + 1;
		if (!res[i].step)
			continue;
		x->a = i ? bnd[i - 1] : 0;
		x->b1 = x->b2 = bnd[i];
		x->c = j < nb ? bnd[j] : w->m;
		x->p = res[i].p;
		x->provisional = 0;
		x->confirm = 0;
		while (j < nb && res[j].step && cp_sign(&res[j]) == cp_sign(&res[i]) &&
		       cp_two_steps_gain(w, x->a, x->b2, bnd[j], j + 1 < nb ? bnd[j + 1] : w->m) <
			   CP_MERGE) {
			x->b2 = bnd[j];
			x->c = j + 1 < nb ? bnd[j + 1] : w->m;
			x->p = fmax(x->p, res[j].p);
			j++;
		}
		(*ni)++;
	}
}

/*
 * The fewest points k >= min_segment after a step, with n points before
 * it, from which the confirming test can reach alpha: the smallest p of
 * the Mann-Whitney test of n and k points is that of two samples apart
 * (exactly 2 / C(n + k, k) for small ones), so 6 points before a step
 * need 4 after it and 3 need 9.  CP_TAIL_MAX + 1 when none up to it.
 */
#define CP_TAIL_MAX 64
static size_t cp_confirmable_find(size_t n, size_t min_segment, double alpha)
{
	double xs[CP_TAIL_MAX * 2];
	size_t k, i;

	for (i = 0; i < n + CP_TAIL_MAX; i++)
		xs[i] = (double)i;
	for (k = min_segment; k <= CP_TAIL_MAX; k++)
		if (statdist_mannwhitney_p(xs, n, xs + n, k, NULL) <= alpha)
			return k;
	return CP_TAIL_MAX + 1;
}

/*
 * cp_confirmable_find(), remembered per thread: every series of a check or
 * of "changes" asks it again for each n up to CP_TAIL_MAX with the same
 * min_segment and alpha, and each answer runs up to 60 exact Mann-Whitney
 * tests.  The table is for one (min_segment, alpha) at a time; 0 is an
 * answer not known yet (an answer is at least 1).
 */
static size_t cp_confirmable(size_t n, size_t min_segment, double alpha)
{
	static _Thread_local size_t memo[CP_TAIL_MAX + 1], memo_min_segment;
	static _Thread_local double memo_alpha;

	if (n > CP_TAIL_MAX)
		n = CP_TAIL_MAX; /* more points before only lower the need */
	if (memo_min_segment != min_segment || memo_alpha != alpha) {
		memset(memo, 0, sizeof(memo));
		memo_min_segment = min_segment;
		memo_alpha = alpha;
	}
	if (!memo[n])
		memo[n] = cp_confirmable_find(n, min_segment, alpha);
	return memo[n];
}

/* The sum of absolute deviations of x[a..b) from their median (tmp:
 * scratch for b - a doubles). */
static double cp_sad(const double *x, size_t a, size_t b, double *tmp)
{
	double med, sad = 0.0;
	size_t i;

	memcpy(tmp, x + a, (b - a) * sizeof(double));
	med = statdist_median(tmp, b - a);
	for (i = a; i < b; i++)
		sad += fabs(x[i] - med);
	return sad;
}

/* 1 when the points x[b..s) all lie beyond CP_PROV / sqrt(s - b) sigmas
 * from med on side: a tail of their own, a level, not the old one. */
static int cp_beyond(const struct cp_work *w, size_t b, size_t s, double med, int side)
{
	double lim = CP_PROV * w->sigma / sqrt((double)(s - b));
	size_t i;

	for (i = b; i < s; i++)
		if (side * (w->x[i] - med) <= lim)
			return 0;
	return 1;
}

/*
 * Where the new level of the tail [b, m) of the segment [a, m) begins:
 * the split s in [b, m) into two levels, [a, s) and [s, m), of the least
 * absolute deviations from their medians (first on ties), among those
 * that give back to the old level only points that are no level of their
 * own (not all beyond the tail's limit from med, the old level, on side):
 * not always b, the largest tail, which may take in runs of the old level
 * that noise or a slow drift put high, and never past a step to a spike
 * after it.  Medians, so that a new level of a few points is no outlier.
 */
static size_t cp_tail_split(const struct cp_work *w, size_t a, size_t b, double med, int side)
{
	double top = HUGE_VAL;
	size_t s, best = b;

	for (s = b; s < w->m; s++) {
		double r;

		if (s > b && cp_beyond(w, b, s, med, side))
			continue;
		r = cp_sad(w->x, a, s, w->tmp) + cp_sad(w->x, s, w->m, w->tmp);
		if (r < top * (1.0 - 1e-12)) {
			top = r;
			best = s;
		}
	}
	return best;
}

/* 1 when the tail [s, m) still makes the change: its mean deviation from
 * med on side, by at least min_change. */
static int cp_tail_holds(const struct cp_work *w, size_t s, double med, int side, double min_change)
{
	double mean = 0.0;
	size_t i;

	for (i = s; i < w->m; i++)
		mean += (w->x[i] - med) / (double)(w->m - s);
	return side * mean > 0 && fabs(expm1(mean)) >= min_change * (1.0 - 1e-9);
}

/*
 * A provisional step in the newest points: the last k points (the most
 * that qualify) all further than CP_PROV / sqrt(k) sigmas from the median
 * of the rest of the last segment, on the same side, and by at least the
 * smallest change, where k is too few to confirm a step: fewer than
 * min_segment, or than the confirming test needs after the points before
 * it (cp_confirmable()), so that a step stays provisional until it can be
 * confirmed instead of vanishing in between.  In the newest run a step and
 * a spike look alike: the next runs confirm one or the other.  1 when
 * found, with the item in *x.
 */
static int cp_tail(const struct cp_work *w, size_t last, size_t min_segment, double min_change,
		   double alpha, struct cp_item *x)
{
	size_t k, need, best, kmax = cp_confirmable(min_segment, min_segment, alpha) - 1;

	for (k = kmax; k >= 1; k--) {
		double med, lim = CP_PROV * w->sigma / sqrt((double)k);
		int side;

		if (w->m < last + k + min_segment)
			continue;
		need = cp_confirmable(w->m - k - last, min_segment, alpha);
		if (k >= need)
			continue; /* the segmentation has judged it */
		memcpy(w->tmp, w->x + last, (w->m - k - last) * sizeof(double));
		med = statdist_median(w->tmp, w->m - k - last);
		side = w->x[w->m - 1] > med ? 1 : -1;
		/* the k points a level of their own, by the smallest change; a
		 * level that began before them is no step in the newest runs
		 * (the segmentation has judged it) */
		if (!cp_beyond(w, w->m - k, w->m, med, side) ||
		    side * (w->x[w->m - k - 1] - med) > lim ||
		    !cp_tail_holds(w, w->m - k, med, side, min_change))
			continue;
		/* where the new level begins: not always at the largest k,
		 * which may take in a noise-high point of the old level; a
		 * shorter tail that no longer makes the change is not taken */
		best = cp_tail_split(w, last, w->m - k, med, side);
		if (best > w->m - k && !cp_tail_holds(w, best, med, side, min_change))
			best = w->m - k;
		k = w->m - best;
		need = cp_confirmable(best - last, min_segment, alpha);
		x->a = last;
		x->b1 = x->b2 = best;
		x->c = w->m;
		/* the confirming test's own p: too few points yet to reach
		 * alpha (a normal test of k points gave p = 0 from noise
		 * estimated on a handful of runs) */
		x->p = statdist_mannwhitney_p(w->x + last, best - last, w->x + best, k, NULL);
		x->provisional = 1;
		x->confirm = need > k ? need - k : 1;
		return 1;
	}
	return 0;
}

/* The change point of item x of the points pt into *c. */
static void cp_report(struct changepoint *c, const struct cp_work *w, const struct cp_point *pt,
		      const struct cp_item *x, const struct changepoint_opts *o)
{
	size_t best, lo, hi, best2, lo2, hi2, j, a_end, b_start;

	if (x->provisional) {
		best = lo = hi = x->b1;
	} else {
		cp_locate(w, x->a, x->b1, x->b1 < x->b2 ? x->b2 : x->c, &best, &lo, &hi);
		if (x->b1 < x->b2) {
			/* a drift: from the first step's earliest place to the
			 * last one's latest */
			cp_locate(w, x->b1, x->b2, x->c, &best2, &lo2, &hi2);
			hi = hi2;
		}
	}
	c->before = pt[lo - 1].last;
	c->after = pt[hi].first;
	c->at = pt[best].first;
	/* the levels of the segments the test compared, less the runs the
	 * place leaves open: a run after the last one surely before, or
	 * before the first one surely after, is on neither side (a boundary
	 * a run late would count it as before a change it is after) */
	a_end = lo < x->b1 ? lo : x->b1;
	b_start = hi > x->b2 ? hi : x->b2;
	c->v_before = cp_value_median(pt, x->a, a_end, w->tmp);
	c->v_after = cp_value_median(pt, b_start, x->c, w->tmp);
	c->pct = (c->v_after / c->v_before - 1.0) * 100.0;
	/* the change the test passed is at least the smallest change, and
	 * its levels are of at least min_segment runs each: the segments'
	 * own levels when fewer runs would show less, or be one run (a
	 * spike) on a side of a place left wide open */
	if (!x->provisional && (fabs(c->pct) < o->min_change * 100.0 * (1.0 - 1e-9) ||
				a_end - x->a < o->min_segment || x->c - b_start < o->min_segment)) {
		a_end = x->b1;
		b_start = x->b2;
		c->v_before = cp_value_median(pt, x->a, a_end, w->tmp);
		c->v_after = cp_value_median(pt, b_start, x->c, w->tmp);
		c->pct = (c->v_after / c->v_before - 1.0) * 100.0;
	}
	c->p = x->p;
	c->provisional = x->provisional;
	c->confirm = x->provisional ? x->confirm : 0;
	for (j = x->a; j < a_end; j++)
		c->runs_before += pt[j].runs;
	for (j = b_start; j < x->c; j++)
		c->runs_after += pt[j].runs;
}

int changepoint_find(struct changepoint **out, size_t *nout, const struct stats_val *v,
		     const char *const *commit, size_t n, const struct changepoint_opts *o)
{
	struct cp_point *pt = NULL;
	struct cp_test *res = NULL;
	struct cp_item *it = NULL;
	struct changepoint *cp = NULL;
	struct cp_work w;
	double *dbl = NULL;
	size_t *idx = NULL, nb = 0, ni = 0, i;
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
	it = util_calloc(n + 1, sizeof(*it));
	if (!pt || !dbl || !idx || !res || !it) {
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
	cp_items(&w, idx, nb, res, it, &ni);
	ni += (size_t)cp_tail(&w, nb ? idx[nb - 1] : 0, o->min_segment, o->min_change, o->alpha,
			      &it[ni]);
	if (ni == 0)
		goto out;
	cp = util_calloc(ni, sizeof(*cp));
	if (!cp) {
		ret = err_nomem();
		goto out;
	}
	for (i = 0; i < ni; i++)
		cp_report(&cp[i], &w, pt, &it[i], o);
	/* a step confirmed from a boundary before the newest segment may lie
	 * where the tail found it: one change, reported once, confirmed */
	if (ni >= 2 && cp[ni - 1].provisional && cp[ni - 1].at <= cp[ni - 2].after)
		ni--;
	*out = cp;
	*nout = ni;
out:
	free(pt);
	free(dbl);
	free(idx);
	free(res);
	free(it);
	return ret;
}
