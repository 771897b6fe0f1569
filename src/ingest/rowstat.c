/*
 * rowstat.c - summary of one (rank, region) row of a profile, computed once
 * at ingest (or when reading a file directly) so that summary metrics never
 * need the per-call data again.
 */
#include <string.h>

#include "scopedb/err.h"
#include "ingest/rowstat.h"

/* Add b to *acc, failing on int64 overflow (hostile files). */
static int add_checked(int64_t *acc, int64_t b)
{
	if ((b > 0 && *acc > INT64_MAX - b) || (b < 0 && *acc < INT64_MIN - b))
		return -1;
	*acc += b;
	return 0;
}

/*
 * The exact, per-element-checked summary: used when the fast path below
 * cannot prove that nothing overflows (negative or huge values, which only
 * hostile or damaged files contain).  Welford's update keeps m2 stable.
 */
static int rowstat_checked(struct rowstat *out, const struct h5prof_row *row)
{
	const int64_t *d = row->durations;
	uint64_t i;
	double mean = 0.0, m2 = 0.0;

	for (i = 0; i < row->calls; i++) {
		int64_t v = d[i], end = row->starts[i];
		double delta;

		if (add_checked(&out->total, v) || add_checked(&end, v))
			return -1;
		if (v < out->min)
			out->min = v;
		if (v > out->max)
			out->max = v;
		if (row->starts[i] < out->start_min)
			out->start_min = row->starts[i];
		if (end > out->end_max)
			out->end_max = end;
		delta = (double)v - mean;
		mean += delta / (double)(i + 1);
		m2 += delta * ((double)v - mean);
		if (row->gpu && row->gpu[i] >= 0) {
			out->gpu_count++;
			if (add_checked(&out->gpu_total, row->gpu[i]))
				return -1;
		}
	}
	out->mean = mean;
	out->m2 = m2;
	return 0;
}

/*
 * The fast path (ingest speed, issue 6): branch-free loops the compiler
 * vectorises.  Sums are split into 32-bit halves so that no partial sum can
 * overflow (fewer than 2^32 calls per pass); ends are computed with
 * wrapping adds and are right once start_max + max <= INT64_MAX holds.  m2
 * takes a second pass around the exact mean (two-pass variance, at least as
 * accurate as Welford) with independent accumulators.  Returns 1 when a
 * value is out of the fast path's range and the checked loop must run.
 */
static int rowstat_fast(struct rowstat *out, const struct h5prof_row *row)
{
	const int64_t *d = row->durations, *st = row->starts, *g = row->gpu;
	size_t n = (size_t)row->calls, i, j;
	uint64_t lo = 0, hi = 0, glo = 0, ghi = 0, gcount = 0;
	int64_t mn = INT64_MAX, mx = INT64_MIN, smin = INT64_MAX, smax = INT64_MIN;
	int64_t emax = INT64_MIN;
	double mean, acc[8] = {0, 0, 0, 0, 0, 0, 0, 0}, m2;

	if (row->calls >= ((uint64_t)1 << 32))
		return 1;
	for (i = 0; i < n; i++) {
		int64_t v = d[i], s = st[i];
		int64_t e = (int64_t)((uint64_t)s + (uint64_t)v);

		mn = v < mn ? v : mn;
		mx = v > mx ? v : mx;
		smin = s < smin ? s : smin;
		smax = s > smax ? s : smax;
		emax = e > emax ? e : emax;
		lo += (uint64_t)v & 0xffffffffu;
		hi += (uint64_t)v >> 32;
	}
	if (mn < 0 || (smax > 0 && mx > INT64_MAX - smax))
		return 1;
	if (lo > (uint64_t)INT64_MAX || hi > (uint64_t)INT64_MAX >> 32 ||
	    (hi << 32) > (uint64_t)INT64_MAX - lo)
		return 1;
	if (g) {
		for (i = 0; i < n; i++) {
			uint64_t ok = g[i] >= 0;
			uint64_t v = (uint64_t)g[i] & (0 - ok);

			gcount += ok;
			glo += v & 0xffffffffu;
			ghi += v >> 32;
		}
		if (glo > (uint64_t)INT64_MAX || ghi > (uint64_t)INT64_MAX >> 32 ||
		    (ghi << 32) > (uint64_t)INT64_MAX - glo)
			return 1;
	}
	out->total = (int64_t)((hi << 32) + lo);
	out->min = mn;
	out->max = mx;
	out->start_min = smin;
	out->end_max = emax;
	out->gpu_count = gcount;
	out->gpu_total = (int64_t)((ghi << 32) + glo);
	mean = (double)out->total / (double)n;
	for (i = 0; i + 8 <= n; i += 8)
		for (j = 0; j < 8; j++) {
			double x = (double)d[i + j] - mean;

			acc[j] += x * x;
		}
	for (; i < n; i++) {
		double x = (double)d[i] - mean;

		acc[0] += x * x;
	}
	m2 = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
	out->mean = mean;
	out->m2 = m2;
	return 0;
}

int rowstat_compute(struct rowstat *out, const struct h5prof_row *row, const char *path,
		    const char *region_name)
{
	memset(out, 0, sizeof(*out));
	out->calls = row->calls;
	if (!row->has_events) {
		out->total = row->agg_total;
		out->min = row->agg_min;
		out->max = row->agg_max;
		if (row->calls)
			out->mean = (double)row->agg_total / (double)row->calls;
		return 0;
	}
	if (row->calls == 0)
		return 0;
	out->first = row->durations[0];
	out->last = row->durations[row->calls - 1];
	if (rowstat_fast(out, row) == 0)
		return 0;
	out->total = 0;
	out->gpu_count = 0;
	out->gpu_total = 0;
	out->min = INT64_MAX;
	out->max = INT64_MIN;
	out->start_min = INT64_MAX;
	out->end_max = INT64_MIN;
	if (rowstat_checked(out, row) == 0)
		return 0;
	return err_set(ERR_FORMAT,
		       "cannot read '%s': rank %u, region '%s': times overflow 64-bit nanoseconds",
		       path, row->rank, region_name);
}
