/*
 * changepoint.h - the change points of a metric over a history of runs
 * ("scopedb changes", the marks of "scopedb history"): where the typical
 * value of a region moved to another level and stayed there, as opposed
 * to noise and single-run outliers; a slow drift is one change.
 *
 * The method (docs/statistics.md, "Change points"): consecutive runs of
 * the same commit are collapsed into one point (their median); outliers
 * of one or two runs among the log-values of the points are replaced by
 * the medians around them, and the series is segmented exactly by PELT
 * (Killick, Fearnhead and Eckley 2012) with a penalty scaled by a robust
 * noise estimate (from successive differences) and a minimum segment
 * length; a boundary is reported only when the adjacent segments differ
 * by at least the minimum change and one noise unit and a two-sided
 * Mann-Whitney test between them is significant; steps in one direction
 * that one ramp explains as well are one change (a drift); each change
 * names the runs it may lie between (a profile likelihood interval).  A
 * step in the newest one or two points is a provisional change.
 *
 * Ownership: arrays returned in *out are malloc'ed and freed by the
 * caller with free(); inputs are only read during the call.
 */
#ifndef SCOPEDB_CHANGEPOINT_H
#define SCOPEDB_CHANGEPOINT_H

#include <stddef.h>

#include "scopedb/model.h"

/* Defaults of struct changepoint_opts. */
#define CHANGEPOINT_MIN_CHANGE 0.02 /* 2 % */
#define CHANGEPOINT_MIN_SEGMENT 3   /* points (commits) on each side */
#define CHANGEPOINT_ALPHA 0.01	    /* level of the confirming test */

struct changepoint_opts {
	double min_change;  /* smallest |after / before - 1| reported */
	size_t min_segment; /* fewest points in a segment (>= 2) */
	double alpha;	    /* largest p-value of a reported change */
};

/* The defaults above. */
void changepoint_opts_init(struct changepoint_opts *o);

/* One change point of a series. */
struct changepoint {
	size_t before;	    /* index of the last run surely before the change */
	size_t after;	    /* index of the first run surely after it (the
			     * change lies in (before, after]: one run for a
			     * clear step, several for a small one or a drift) */
	size_t at;	    /* the likeliest first run after it */
	double v_before;    /* typical value (median) of the segment before,
			     * less the runs the place leaves open */
	double v_after;	    /* and of the segment after */
	double pct;	    /* (v_after / v_before - 1) * 100 */
	double p;	    /* two-sided Mann-Whitney p between the segments */
	size_t runs_before; /* runs in the segment before */
	size_t runs_after;  /* runs in the segment after */
	int provisional;    /* a step in the newest runs (fewer points after it
			     * than min_segment): a new level or an outlier */
	size_t confirm;	    /* then the points (commits) that would confirm it */
};

/*
 * The change points of the series v[0..n) in recorded order, oldest
 * first; *out (NULL when *nout is 0) is in series order.  Values that are
 * None or not > 0 are left out.  commit[i] (commit may be NULL, and so
 * may any entry) names run i's commit: consecutive runs of the same
 * commit are one point, so before and after are the last and first run
 * of their commits.  0 or ERR_NOMEM; ERR_USAGE when o is invalid.
 */
int changepoint_find(struct changepoint **out, size_t *nout, const struct stats_val *v,
		     const char *const *commit, size_t n, const struct changepoint_opts *o);

#endif
