/*
 * model.h - the domain types every analysis shares, in one place:
 *
 *   metric        enum stats_metric: what is measured of a region (total,
 *                 avg, p95, imbalance, calls, ...)
 *   metric value  struct stats_val: one metric of one region, possibly
 *                 None (no calls, no GPU data, no per-call durations)
 *   sample set    struct metric_samples: a region's per-call durations as
 *                 the percentiles need them (sorted, sorted runs, or the
 *                 stored p50/p95/p99)
 *   region aggregate  struct stats_region: a region pooled over the
 *                 selected ranks (from the store's struct
 *                 store_region_stats, see metric.h) plus its samples
 *   verdict       struct verdict: the outcome of a check and why
 *
 * A stored run is struct store_run (store.h).  Turning a stored aggregate
 * into a metric value is metric_value() (metric.h), used by diff, check,
 * show and history alike.
 *
 * Ownership: plain values; pointers inside are borrowed (see each type).
 */
#ifndef SCOPEDB_MODEL_H
#define SCOPEDB_MODEL_H

#include <stddef.h>
#include <stdint.h>

/*
 * The metrics, one X(ID, name, quantile, count) each, in the order --metric
 * lists them: STATS_ID is the enum value, name the --metric word and the
 * column titles, quantile the percentile of p50/p95/p99 (0 for the others:
 * only those need the per-call durations), count 1 for a metric printed as
 * an integer.  The enum, STATS_NMETRICS, the names, --metric's choices,
 * help and error message and the JSON and CSV keys all come from this
 * list; a new metric is one line here and its formula in
 * stats_region_value() (src/analysis/stats.c).
 */
#define STATS_METRICS(X)                                                                           \
	X(GPU_TOTAL, gpu_total, 0, 0)                                                              \
	X(GPU_AVG, gpu_avg, 0, 0)                                                                  \
	X(TOTAL, total, 0, 0)                                                                      \
	X(SELF, self, 0, 0)                                                                        \
	X(AVG, avg, 0, 0)                                                                          \
	X(MIN, min, 0, 0)                                                                          \
	X(MAX, max, 0, 0)                                                                          \
	X(P50, p50, 50, 0)                                                                         \
	X(P95, p95, 95, 0)                                                                         \
	X(P99, p99, 99, 0)                                                                         \
	X(IMBALANCE, imbalance, 0, 0)                                                              \
	X(CALLS, calls, 0, 1)

#define STATS_METRIC_ENUM_(id, name, q, count) STATS_##id,
enum stats_metric { STATS_METRICS(STATS_METRIC_ENUM_) };
#undef STATS_METRIC_ENUM_

#define STATS_METRIC_ONE_(id, name, q, count) +1
#define STATS_NMETRICS (0 STATS_METRICS(STATS_METRIC_ONE_))

/* A metric value that may be None. */
struct stats_val {
	int none;
	double v;
};

/* A region's per-call durations (ns), borrowed; all NULL when none are
 * needed or known. */
struct metric_samples {
	/* All pooled durations sorted ascending (n == calls), or, when
	 * run_ends != NULL, the concatenation of nruns ascending runs, run i
	 * ending at run_ends[i] (as store_region_duration_runs() returns). */
	const int64_t *sorted;
	size_t nsorted;
	const int64_t *run_ends;
	size_t nruns;
	/* Or the stored p50, p95 and p99 in ns (store_finish_run()). */
	const double *quantiles;
};

/* What the metrics need of one region, pooled over the selected ranks. */
struct stats_region {
	uint64_t calls;
	int64_t total, min, max;       /* ns over the calls (min/max unused if none) */
	int has_events;		       /* 0: aggregate layout (no percentiles, no GPU) */
	uint64_t gpu_count;	       /* calls with GPU time >= 0 */
	int64_t gpu_total;	       /* ns */
	uint64_t busy_ranks;	       /* selected ranks whose total is > 0 */
	int64_t busy_max;	       /* the largest such per-rank total, ns */
	int has_self;		       /* self is known (docs/format.md section 10.5) */
	int64_t self;		       /* self time over the selected ranks, ns */
	struct metric_samples samples; /* needed only by p50/p95/p99 */
};

/*
 * The outcome of a check.  Room for more outcomes (a statistical verdict
 * may say IMPROVED, UNCHANGED or INCONCLUSIVE); PASS and FAIL are what
 * "scopedb check" gives today.  The command layer alone maps a verdict to
 * an exit status.
 */
enum verdict_kind {
	VERDICT_NONE, /* no check was made (diff) */
	VERDICT_PASS,
	VERDICT_FAIL,
	VERDICT_INCONCLUSIVE, /* a statistical check: nothing regressed, some
			       * region suspected (exit 3) */
};

struct verdict {
	enum verdict_kind kind;
	const char **violations; /* regions over the budget, in row order
				  * (malloc'ed array of borrowed names) */
	size_t nviolations;
};

/* "PASS", "FAIL", "INCONCLUSIVE" ("" for VERDICT_NONE). */
const char *verdict_name(enum verdict_kind k);

/*
 * The statistical verdict of one region (check --stat, diff with a window;
 * docs/statistics.md): what compare_stat.verdict holds and every renderer
 * names with verdict_call_name().
 */
enum verdict_call {
	VERDICT_CALL_NONE, /* no verdict: a side has no positive value */
	VERDICT_CALL_UNCHANGED,
	VERDICT_CALL_IMPROVED,
	VERDICT_CALL_REGRESSED,
	VERDICT_CALL_INCONCLUSIVE, /* a sign of a slowdown, not conclusive */
	VERDICT_CALL_NO_EVIDENCE,  /* too little data to rule a regression out,
				    * and no sign of one */
	VERDICT_CALL_COUNT
};

/* "unchanged", "improved", "regressed", "inconclusive", "no evidence" (""
 * for NONE and anything out of range); static strings. */
const char *verdict_call_name(enum verdict_call c);

#endif
