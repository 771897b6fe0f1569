/*
 * reportdata.h - what "scopedb report" shows, gathered from the store in
 * one pass: the check of two runs or run sets (compare_runs(), exactly as
 * "scopedb check" computes it), each selected region's metric over the
 * last N runs of a branch or tag (store_region_history() and
 * history_values(), as "scopedb history", with the change points
 * "scopedb changes" finds, changes_series()), the call-duration summary of
 * both compared runs (the stored min, p50, p95, p99 and max) and the
 * total time of every region on every rank of both runs (the load
 * imbalance).  The HTML page itself is render_html.c's.
 *
 * Ownership: struct reportdata owns everything it points to; release it
 * with reportdata_release() (accepts a zeroed structure).
 */
#ifndef SCOPEDB_ANALYSIS_REPORTDATA_H
#define SCOPEDB_ANALYSIS_REPORTDATA_H

#include <stddef.h>
#include <stdint.h>

#include "scopedb/changepoint.h"
#include "scopedb/compare.h"
#include "scopedb/store.h"

/* One run of a region's trend (oldest first). */
struct reportdata_point {
	int64_t run_id;
	double v;     /* the metric; NaN when None */
	char *time;   /* the run's sort time */
	char *commit; /* NULL when unknown */
};

/* One run's call durations of a region, in seconds (has 0: no per-call
 * data, or the run lacks the region). */
struct reportdata_dist {
	int has;
	uint64_t calls;
	double min, p50, p95, p99, max, mean;
};

struct reportdata_region {
	char *name;
	struct reportdata_point *pts;
	size_t npts;
	/* the last value against the median of the (up to)
	 * REPORTDATA_RECENT values before it, in percent; NaN without both */
	double recent;
	/* the change points of the trend (changes_series(), as "scopedb
	 * changes" finds them): indexes into pts */
	struct changepoint *changes;
	size_t nchanges;
	struct reportdata_dist dist[2]; /* baseline, candidate */
	/* total seconds per rank of each run (NaN: no row on that rank);
	 * NULL when the run is not known */
	double *ranks[2];
};

/* The values the recent change of a trend compares its last value with. */
#define REPORTDATA_RECENT 10

struct reportdata_opts {
	struct compare_opts cmp; /* metric, includes/excludes, check options */
	const char *baseline;	 /* NULL: no comparison (trends only) */
	const char *candidate;
	size_t history;	    /* runs per trend (--history) */
	const char *branch; /* trends of this branch, or */
	const char *tag;    /* of this tag; neither: the candidate's branch */
};

struct reportdata {
	enum stats_metric metric;
	int compared; /* cmp holds a check */
	struct compare_result cmp;
	int64_t run_id[2];		   /* baseline and candidate in the store (0: a file) */
	char *scope;			   /* "branch 'main'", "tag 'nightly'", "all runs" */
	struct reportdata_region *regions; /* sorted by name */
	size_t nregions;
	size_t nranks[2]; /* ranks of each run (0: unknown) */
	char *generated;  /* ISO-8601 UTC */
};

/*
 * Gather everything of a report.  Errors: compare_runs()'s (a check that
 * cannot be made, a selector matching nothing), the store's, ERR_NOTFOUND
 * when no region is selected in any run.
 */
int reportdata_build(struct reportdata *rd, const struct reportdata_opts *o);
void reportdata_release(struct reportdata *rd);

/*
 * The recent change of v[0..n) (NaN for None): the last value against the
 * median of the up to REPORTDATA_RECENT values before it, in percent; NaN
 * when the last value or every earlier one is None, or the median is 0.
 */
double reportdata_recent(const double *v, size_t n);

#endif
