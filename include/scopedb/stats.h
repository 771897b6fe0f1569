/*
 * stats.h - the metrics, diff rows and check verdicts of scope-profiler's
 * diff and check commands, exactly as docs/format.md sections 8 and 9
 * define them.  Pure computation on numbers already pooled over the
 * selected ranks of a region (the store does the pooling in SQL); nothing
 * here reads files or the store.
 *
 * A metric value may be None (struct stats_val.none): absent region, no
 * calls, no GPU data, percentiles of an aggregate-layout run.  Values are in
 * seconds (ns / 1e9), except imbalance (percent) and calls (a count held in
 * a double, exact below 2^53).
 *
 * Ownership: stats_diff() returns a malloc'ed row array (free()); row names
 * point into the caller's input arrays.
 */
#ifndef SCOPEDB_STATS_H
#define SCOPEDB_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "scopedb/model.h"

/* "gpu_total", ..., "calls" (static strings). */
const char *stats_metric_name(enum stats_metric m);

/* Parse a --metric value; ERR_USAGE listing the choices otherwise. */
int stats_metric_parse(enum stats_metric *out, const char *name);

/* The percentile (50, 95, 99) of p50/p95/p99, 0 for other metrics: only
 * those need the per-call durations. */
double stats_metric_quantile(enum stats_metric m);

/* 1 for calls, whose values are printed as integers. */
int stats_metric_is_count(enum stats_metric m);

/*
 * The metric of one region (docs/format.md section 8).  ERR_GENERIC when a
 * percentile is asked for without the sorted durations (a caller bug).
 */
int stats_region_value(struct stats_val *out, const struct stats_region *r, enum stats_metric m);

enum stats_sort { STATS_SORT_DELTA, STATS_SORT_PCT, STATS_SORT_NAME };

/* Parse a --sort value (delta, pct, name); ERR_USAGE otherwise. */
int stats_sort_parse(enum stats_sort *out, const char *name);

/* One side's value of one region. */
struct stats_named {
	const char *name;
	struct stats_val v;
};

struct stats_row {
	const char *name; /* borrowed from the inputs */
	struct stats_val a, b;
	double delta;	      /* (b or 0) - (a or 0) */
	struct stats_val pct; /* delta / a * 100; None when a is None or 0 */
	int violation;	      /* set by stats_check() */
	/* the candidate has the region but no call of it, the baseline has
	 * calls (set by a check with --fail-on-missing, which fails it) */
	int gone;
};

struct stats_diff_opts {
	enum stats_sort sort;
	int has_threshold; /* drop rows with |pct| < threshold (pct None stays) */
	double threshold;
};

/*
 * The diff rows of two sides (docs/format.md section 9): the union of the
 * names (each side's names must be unique: ERR_GENERIC otherwise), rows
 * where both values are None dropped, the threshold applied, sorted
 * alphabetically and then (unless sort is name) stably by descending
 * |delta| or |pct|, None last.  *out is malloc'ed (NULL when *n is 0).
 */
int stats_diff(struct stats_row **out, size_t *n, const struct stats_named *a, size_t na,
	       const struct stats_named *b, size_t nb, const struct stats_diff_opts *opts);

/*
 * Mark the rows that break the budget: pct > max_regression (strictly), or
 * with fail_on_new a None baseline.  Rows whose pct is None (baseline 0 or
 * None) never fail otherwise; disappearing regions have pct -100.  *out =
 * number of violations.  ERR_USAGE when max_regression is negative or not
 * finite.
 */
int stats_check(size_t *out, struct stats_row *rows, size_t n, double max_regression,
		int fail_on_new);

/*
 * The verdict of rows marked by stats_check(): FAIL naming the violating
 * rows (in row order; names borrowed from the rows), else PASS.  Release
 * with verdict_release() (accepts a zeroed verdict).
 */
int stats_verdict(struct verdict *out, const struct stats_row *rows, size_t n);

void verdict_release(struct verdict *v);

/*
 * Parse a percentage option value (--threshold, --max-regression): a
 * finite decimal number, optionally followed by '%' ("5" or "5%"); nonneg
 * also rejects negative values.  ERR_USAGE
 * naming opt otherwise.
 */
int stats_parse_percent(double *out, const char *opt, const char *arg, int nonneg);

#endif
