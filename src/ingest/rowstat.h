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

#endif
