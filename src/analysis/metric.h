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

/* ERR_STORE ("store is inconsistent") unless n durations were found for
 * the g->calls calls of region g in run run_id. */
int metric_check_samples(const struct store_region_stats *g, int64_t run_id, size_t n);

#endif
