/*
 * history.h - one region's metric across runs, as "scopedb history" shows
 * it: per run (oldest first) the value, the change against the previous
 * run (absolute and percent), the change points of the series
 * (changepoint.h), and a bar proportional to the value for the terminal.
 *
 * The values themselves come from the store's per-run aggregates
 * (store_region_history()) through metric_value(), exactly as diff
 * computes them; this module also does the arithmetic between consecutive
 * runs and draws the bars.
 *
 * Ownership: none; the caller owns the arrays.
 */
#ifndef SCOPEDB_HISTORY_H
#define SCOPEDB_HISTORY_H

#include <stddef.h>

#include "scopedb/changepoint.h"
#include "scopedb/stats.h"
#include "scopedb/util.h"

/* One run of the series. */
struct history_step {
	struct stats_val v;	/* the metric (input) */
	struct stats_val delta; /* v - previous v; None for the first run or
				 * when either value is None */
	struct stats_val pct;	/* delta / previous * 100; None also when the
				 * previous value is 0 */
	int change;		/* a change point: the (likeliest) first run of a
				 * new level (history_mark()) */
	double change_pct;	/* then the change of level in percent */
	int provisional;	/* a provisional change (changepoint.h) */
	size_t confirm;		/* then the runs that would confirm it */
};

struct store_history_point;

/*
 * The metric m of the points p[0..n) (one region, as
 * store_region_history() returns them) into s[i].v, through
 * metric_value() as diff computes them.  ERR_STORE "store 'LOCATION' is
 * damaged" when a point lacks durations a percentile needs (location:
 * the store's store_location()).
 */
int history_values(struct history_step *s, const struct store_history_point *p, size_t n,
		   enum stats_metric m, const char *location);

/*
 * Fill delta and pct of s[0..n) from the values (the previous value is
 * that of the preceding run, even when it is None).
 */
void history_compute(struct history_step *s, size_t n);

/*
 * Mark the change points of the values of s[0..n) (the points p[0..n) of
 * one region, for their commits) with the options o: change and
 * change_pct of the first run after each.  *nchanges = how many.  0 or
 * ERR_NOMEM.
 */
int history_mark(struct history_step *s, const struct store_history_point *p, size_t n,
		 const struct changepoint_opts *o, size_t *nchanges);

/* The largest non-None value of s[0..n), 0.0 when there is none. */
double history_max(const struct history_step *s, size_t n);

/* The smallest non-None value of s[0..n), 0.0 when there is none. */
double history_min(const struct history_step *s, size_t n);

/*
 * Append a bar for v on the scale min..max of its column: one cell at min,
 * width cells at max (all of them when max == min), so a 5% step between
 * two runs is a bar a fifth of the width longer.  With utf8, full blocks
 * and an eighth-block remainder (U+2588..U+258F); else '#' characters
 * (rounded).  Nothing for None.
 */
int history_bar(struct buf *out, struct stats_val v, double min, double max, size_t width,
		int utf8);

#endif
