/*
 * percentile.h - exact percentiles of int64 values as numpy.percentile()
 * computes them with its default method "linear" (private to the core:
 * the metrics of src/analysis/stats.c and the stored percentiles of
 * src/store/finish.c).
 *
 * Pure computation on the caller's arrays, which are only read; safe on
 * any thread.  Values are returned in the unit of the input.
 *
 * Ownership: nothing is allocated or kept.
 */
#ifndef SCOPEDB_UTIL_PERCENTILE_H
#define SCOPEDB_UTIL_PERCENTILE_H

#include <stddef.h>
#include <stdint.h>

/*
 * The plan of numpy's linear q-th percentile of n > 0 values: the order
 * statistic lo (0-based) and, when lo < n - 1, its neighbour lo + 1, with
 * the fraction between them.  For callers that find order statistics
 * their own way (a merge of encoded runs, store/blob.c), so that every
 * path computes the same double.
 */
void percentile_ranks(uint64_t n, double q, uint64_t *lo, double *frac);

/* The percentile from percentile_ranks()'s plan: a = the lo-th smallest
 * value, b = the next one (any value when lo >= n - 1). */
double percentile_at(int64_t a, int64_t b, uint64_t lo, uint64_t n, double frac);

/*
 * The q-th percentile of sorted[0..n), n > 0, q in [0, 100]:
 * pos = q/100 * (n-1), interpolating between the neighbours.
 */
double percentile_sorted(const int64_t *sorted, size_t n, double q);

/*
 * The same percentile of the union of nruns ascending runs v[0..ends[0]),
 * v[ends[0]..ends[1]), ... (ends[nruns-1] = n > 0 values in all), without
 * merging them: the two order statistics needed are found by a binary
 * search over the value domain, counting with a binary search per run.
 * Exactly percentile_sorted() of the merged array.
 */
double percentile_runs(const int64_t *v, const int64_t *ends, size_t nruns, double q);

/* out = the p50, p95 and p99 of those runs (percentile_runs()): the three
 * percentiles a store keeps per region and per path, in the order of
 * struct store_region_stats.quantiles. */
void percentile_runs_stored(double out[3], const int64_t *v, const int64_t *ends, size_t nruns);

#endif
