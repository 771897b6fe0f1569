/*
 * metric.h - the one mapping from what the store keeps of a region (struct
 * store_region_stats: pooled calls, totals, extremes, GPU time, per-rank
 * busy time, stored percentiles) to metric values (model.h).  diff, check,
 * show and history all go through it, so a metric is defined once:
 * stats_region_value() (stats.c) holds the formulas.
 *
 * Ownership: nothing is kept; pointers are borrowed for the call.
 */
#ifndef SCOPEDB_ANALYSIS_METRIC_H
#define SCOPEDB_ANALYSIS_METRIC_H

#include <stddef.h>
#include <stdint.h>

#include "scopedb/model.h"
#include "scopedb/store.h"

/* Metric m of g with the samples s (NULL: none; p50/p95/p99 then need
 * g's stored quantiles passed in s).  ERR_GENERIC as stats_region_value(). */
int metric_value(struct stats_val *out, const struct store_region_stats *g,
		 const struct metric_samples *s, enum stats_metric m);

/*
 * The resolution of metric m of region g: the smallest difference its
 * value can show, in the metric's unit.  Durations are whole nanoseconds
 * (1e-9 s; an average's is 1e-9 s over the calls it averages), calls
 * count by one; 0 when unknown (imbalance).  The statistical verdicts
 * take a change below it for no change (docs/statistics.md).
 */
double metric_resolution(enum stats_metric m, const struct store_region_stats *g);

/* ERR_STORE "store 'LOCATION' is damaged: ..." unless n durations were
 * found for the g->calls calls of region g in run run_id of the store at
 * location (store_location()). */
int metric_check_samples(const struct store_region_stats *g, int64_t run_id, size_t n,
			 const char *location);

/*
 * The metric m of region (or path) g of run run_id in st, reading its sorted
 * durations on the selected ranks (ranks NULL = all) into the scratch
 * vectors d and ends only when a percentile needs them and none is stored.
 * compare.c (both sides of diff and check) and runset.c (every run of a
 * run set) use it.  Errors: the store's, metric_check_samples()'s.
 */
int metric_stored_value(struct stats_val *out, struct store *st, int64_t run_id,
			const struct store_region_stats *g, const int64_t *ranks, size_t nranks,
			enum stats_metric m, struct i64vec *d, struct i64vec *ends);

struct match;

/*
 * The regions of run_id (by_path 0: store_region_stats()) or its paths
 * (by_path 1: store_path_stats(), each matched by its joined names and its
 * last name: match_path()) that m keeps, pooled over the ranks (NULL:
 * all): what show, diff, check and report list.  Free *out with
 * store_region_stats_free().
 */
int metric_read_stats(struct store_region_stats **out, size_t *n, struct store *st, int64_t run_id,
		      const int64_t *ranks, size_t nranks, int by_path, struct match *m);

#endif
