/*
 * rowstat.h - the per-(rank, region) summary computed once at ingest and
 * stored in the timings table: counts, sums, extremes, first/last call,
 * moments for the standard deviation and GPU totals.
 *
 * Everything is exact integer nanoseconds except mean/m2 (Welford), which
 * are combined across rows with Chan's parallel formula when a metric needs
 * the pooled standard deviation.
 *
 * Ownership: struct rowstat is a plain value filled by rowstat_compute()
 * (no pointers kept to the row); nothing to free.
 */
#ifndef SCOPEDB_ROWSTAT_H
#define SCOPEDB_ROWSTAT_H

#include <stddef.h>
#include <stdint.h>

#include "scopedb/h5prof.h"

struct rowstat {
	uint64_t calls;
	int64_t total;	    /* sum of durations */
	int64_t min, max;   /* 0 when calls == 0 */
	int64_t first;	    /* duration of the first call in call order */
	int64_t last;	    /* duration of the last call */
	int64_t start_min;  /* earliest start */
	int64_t end_max;    /* latest end */
	double mean;	    /* mean duration, ns */
	double m2;	    /* sum of squared deviations from the mean, ns^2 */
	uint64_t gpu_count; /* calls with GPU time >= 0 */
	int64_t gpu_total;  /* sum of those GPU times */
};

/*
 * Summarize one row.  For the aggregate layout only calls/total/min/max are
 * filled from the aggregates (the rest 0).  Fails with ERR_FORMAT (message
 * naming path and region_name) when a sum overflows int64.
 */
int rowstat_compute(struct rowstat *out, const struct h5prof_row *row, const char *path,
		    const char *region_name);

/*
 * The same summary of a row handed out in pieces (ingest_big.c), bit for
 * bit: rowstat_scan_add() over every piece in call order, then
 * rowstat_scan_end() (ERR_FORMAT as rowstat_compute() when a sum
 * overflows), then the durations again in call order, in stretches of any
 * size, through rowstat_spread_add(), and rowstat_spread_end() for the
 * mean and m2.  Plain values: nothing to free.
 */
struct rowstat_scan {
	uint64_t n, lo, hi, glo, ghi, gcount; /* the fast path's sums */
	int64_t mn, mx, smin, smax, emax;
	int64_t first, last, total, gtotal; /* total, gtotal: exact unless overflow */
	int overflow;			    /* a checked sum or an end overflowed */
};

/* The second pass: the fast path's accumulators, or Welford's. */
struct rowstat_spread {
	int welford;
	double mean, m2, acc[8];
	uint64_t i, n8;
};

void rowstat_scan_init(struct rowstat_scan *s);
void rowstat_scan_add(struct rowstat_scan *s, const int64_t *durations, const int64_t *starts,
		      const int64_t *gpu, size_t k);
int rowstat_scan_end(struct rowstat *out, struct rowstat_spread *m, const struct rowstat_scan *s,
		     const char *path, uint32_t rank, const char *region_name);
void rowstat_spread_add(struct rowstat_spread *m, const int64_t *durations, size_t k);
void rowstat_spread_end(struct rowstat *out, const struct rowstat_spread *m);

#endif
