/*
 * rowstat.c - summary of one (rank, region) row of a profile, computed once
 * at ingest (or when reading a file directly) so that summary metrics never
 * need the per-call data again.
 */
#include <string.h>

#include "scopedb/err.h"
#include "scopedb/rowstat.h"

/* Add b to *acc, failing on int64 overflow (hostile files). */
static int add_checked(int64_t *acc, int64_t b)
{
	if ((b > 0 && *acc > INT64_MAX - b) || (b < 0 && *acc < INT64_MIN - b))
		return -1;
	*acc += b;
	return 0;
}

int rowstat_compute(struct rowstat *out, const struct h5prof_row *row, const char *path,
		    const char *region_name)
{
	const int64_t *d = row->durations;
	uint64_t i;
	double mean = 0.0, m2 = 0.0;

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
	out->min = INT64_MAX;
	out->max = INT64_MIN;
	out->start_min = INT64_MAX;
	out->end_max = INT64_MIN;
	out->first = d[0];
	out->last = d[row->calls - 1];
	for (i = 0; i < row->calls; i++) {
		int64_t v = d[i], end = row->starts[i];
		double delta;

		if (add_checked(&out->total, v) || add_checked(&end, v))
			goto overflow;
		if (v < out->min)
			out->min = v;
		if (v > out->max)
			out->max = v;
		if (row->starts[i] < out->start_min)
			out->start_min = row->starts[i];
		if (end > out->end_max)
			out->end_max = end;
		/* Welford's update: numerically stable for the pooled std. */
		delta = (double)v - mean;
		mean += delta / (double)(i + 1);
		m2 += delta * ((double)v - mean);
		if (row->gpu && row->gpu[i] >= 0) {
			out->gpu_count++;
			if (add_checked(&out->gpu_total, row->gpu[i]))
				goto overflow;
		}
	}
	out->mean = mean;
	out->m2 = m2;
	return 0;
overflow:
	return err_set(ERR_FORMAT,
		       "cannot read '%s': rank %u, region '%s': times overflow 64-bit nanoseconds",
		       path, row->rank, region_name);
}

void rowstat_merge(struct rowstat *out, const struct rowstat *other)
{
	double n1 = (double)out->calls, n2 = (double)other->calls, n, delta;

	if (other->calls == 0)
		return;
	if (out->calls == 0) {
		*out = *other;
		return;
	}
	n = n1 + n2;
	delta = other->mean - out->mean;
	out->m2 = out->m2 + other->m2 + delta * delta * n1 * n2 / n;
	out->mean = out->mean + delta * n2 / n;
	out->calls += other->calls;
	out->total += other->total;
	if (other->min < out->min)
		out->min = other->min;
	if (other->max > out->max)
		out->max = other->max;
	if (other->start_min < out->start_min)
		out->start_min = other->start_min;
	if (other->end_max > out->end_max)
		out->end_max = other->end_max;
	out->last = other->last;
	out->gpu_count += other->gpu_count;
	out->gpu_total += other->gpu_total;
}
