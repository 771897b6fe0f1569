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

/*
 * The columns of show, one X(ID, name, metric) each, in their default
 * order: SUMMARY_COL_ID, the word of --columns and --sort and the title,
 * and the metric of STATS_METRICS (model.h) the column shows, or -1 for
 * the columns summary.c computes itself (region, ranks, std).  The enum,
 * SUMMARY_NCOLS, the names, the choices of --columns and --sort and their
 * messages come from this list: a metric is shown by show with one line
 * here.
 */
#define SUMMARY_COLS(X)                                                                            \
	X(REGION, region, -1)                                                                      \
	X(RANKS, ranks, -1)                                                                        \
	X(CALLS, calls, STATS_CALLS)                                                               \
	X(NESTED, nested, -1)                                                                      \
	X(TOTAL, total, STATS_TOTAL)                                                               \
	X(SELF, self, STATS_SELF)                                                                  \
	X(AVG, avg, STATS_AVG)                                                                     \
	X(MIN, min, STATS_MIN)                                                                     \
	X(MAX, max, STATS_MAX)                                                                     \
	X(STD, std, -1)                                                                            \
	X(P50, p50, STATS_P50)                                                                     \
	X(P95, p95, STATS_P95)                                                                     \
	X(P99, p99, STATS_P99)                                                                     \
	X(IMBALANCE, imbalance, STATS_IMBALANCE)                                                   \
	X(GPU_TOTAL, gpu_total, STATS_GPU_TOTAL)                                                   \
	X(GPU_AVG, gpu_avg, STATS_GPU_AVG)

#define SUMMARY_COL_ENUM_(id, name, metric) SUMMARY_COL_##id,
enum summary_col { SUMMARY_COLS(SUMMARY_COL_ENUM_) };
#undef SUMMARY_COL_ENUM_

#define SUMMARY_COL_ONE_(id, name, metric) +1
#define SUMMARY_NCOLS (0 SUMMARY_COLS(SUMMARY_COL_ONE_))

/* "region", "ranks", ... (static strings). */
const char *summary_col_name(enum summary_col c);

/* The words of the columns but region, space-separated ("ranks calls
 * total ... gpu_avg"): the help of --columns.  Static. */
const char *summary_col_words(void);

/* 1 for the columns that need the per-call durations (std, p50, p95,
 * p99): summary_opts.durations. */
int summary_col_needs_durations(enum summary_col c);

/* 1 for the GPU columns, shown by default only for a run with GPU data. */
int summary_col_is_gpu(enum summary_col c);

/* 1 for the integer columns (ranks, calls, nested). */
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
	/* by path: the names from the root down (depth of them, one block);
	 * NULL by name */
	char **path;
	size_t depth;
	/* v[c] for every column but SUMMARY_COL_REGION; ranks = selected ranks
	 * that have a row for the region; nested (by path only: None by name)
	 * = calls nested in a call of the same path, a recursion that calls
	 * counts once. */
	struct stats_val v[SUMMARY_NCOLS];
};

struct summary_opts {
	const char *const *includes; /* --include/--exclude (match.h) */
	size_t ninclude;
	const char *const *excludes;
	size_t nexclude;
	const int64_t *ranks; /* sorted, unique; NULL = all ranks */
	size_t nranks;
	int durations;	    /* compute std/p50/p95/p99 (reads the durations) */
	int quantiles_only; /* of those, the percentiles only (no std): read
			       from the run's stored ones where it has them
			       (all ranks), not from the durations */
	int by_path;	    /* rows are paths (--by path), not region names */
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

/* 1 when some row is a path that recursed (nested > 0). */
int summary_has_nested(const struct summary_row *rows, size_t n);

void summary_free(struct summary_row *rows, size_t n);

#endif
