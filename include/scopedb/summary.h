/*
 * summary.h - the per-region summary of one stored run shown by "scopedb
 * show" (like scope-profiler's inspect): for every selected region the
 * number of ranks, calls, total, avg, min, max, std, p50, p95, p99,
 * imbalance, gpu_total and gpu_avg, pooled over the selected ranks.
 *
 * The values are those of diff and check: the same aggregate query
 * (store_region_stats()), the same stored durations
 * (store_region_durations()) and the same metric code (metric_value(),
 * src/analysis/metric.h).  std, which diff does not offer, is the
 * population standard deviation of the pooled durations (None when there
 * are no calls or no per-call data, like the percentiles).
 *
 * Ownership: summary_run() returns a malloc'ed array of rows owning their
 * names, freed with summary_free() (accepts NULL).
 */
#ifndef SCOPEDB_SUMMARY_H
#define SCOPEDB_SUMMARY_H

#include <stddef.h>
#include <stdint.h>

#include "scopedb/stats.h"

struct store;

/* The columns of show, in default order. */
enum summary_col {
	SUMMARY_COL_REGION,
	SUMMARY_COL_RANKS,
	SUMMARY_COL_CALLS,
	SUMMARY_COL_TOTAL,
	SUMMARY_COL_AVG,
	SUMMARY_COL_MIN,
	SUMMARY_COL_MAX,
	SUMMARY_COL_STD,
	SUMMARY_COL_P50,
	SUMMARY_COL_P95,
	SUMMARY_COL_P99,
	SUMMARY_COL_IMBALANCE,
	SUMMARY_COL_GPU_TOTAL,
	SUMMARY_COL_GPU_AVG,
};

#define SUMMARY_NCOLS 14

/* "region", "ranks", ... (static strings). */
const char *summary_col_name(enum summary_col c);

/* 1 for the integer columns (ranks, calls). */
int summary_col_is_count(enum summary_col c);

/*
 * Parse a --columns list ("total,p95,calls"): *out receives the columns in
 * the given order, region first (added when not listed), duplicates
 * dropped; *n their number (out has room for SUMMARY_NCOLS).  ERR_USAGE
 * naming an unknown column and listing the choices.
 */
int summary_parse_columns(enum summary_col *out, size_t *n, const char *list);

/* Parse a --sort key: a column name other than ranks... any column
 * ("name" is accepted for region).  ERR_USAGE listing the choices. */
int summary_parse_sort(enum summary_col *out, const char *name);

struct summary_row {
	char *name;
	/* v[c] for every column but SUMMARY_COL_REGION; ranks = selected ranks
	 * that have a row for the region. */
	struct stats_val v[SUMMARY_NCOLS];
};

struct summary_opts {
	const char *const *includes; /* --include/--exclude (match.h) */
	size_t ninclude;
	const char *const *excludes;
	size_t nexclude;
	const int64_t *ranks; /* sorted, unique; NULL = all ranks */
	size_t nranks;
	int durations; /* compute std/p50/p95/p99 (reads the durations) */
};

/*
 * The summary of every selected region of run_id, by name (byte order).
 * Without o->durations, std and the percentiles are None.  Errors:
 * ERR_USAGE for a bad pattern, ERR_STORE for store problems.
 */
int summary_run(struct summary_row **out, size_t *n, struct store *st, int64_t run_id,
		const struct summary_opts *o);

/* Sort rows by key: region ascending, any other column descending with
 * None last, ties by name. */
void summary_sort(struct summary_row *rows, size_t n, enum summary_col key);

/* 1 when some row has a GPU value (gpu_total not None). */
int summary_has_gpu(const struct summary_row *rows, size_t n);

void summary_free(struct summary_row *rows, size_t n);

#endif
