/*
 * metric.c - stored region aggregates to metric values (see metric.h).
 */
#include <string.h>

#include "analysis/metric.h"
#include "scopedb/err.h"
#include "scopedb/stats.h"

/* The aggregate of g as the metrics need it, with the samples s (NULL:
 * none). */
static void metric_region(struct stats_region *out, const struct store_region_stats *g,
			  const struct metric_samples *s)
{
	memset(out, 0, sizeof(*out));
	out->calls = g->calls;
	out->total = g->total;
	out->min = g->min;
	out->max = g->max;
	out->has_events = g->has_events;
	out->gpu_count = g->gpu_count;
	out->gpu_total = g->gpu_total;
	out->busy_ranks = g->busy_ranks;
	out->busy_max = g->busy_max;
	if (s)
		out->samples = *s;
}

int metric_value(struct stats_val *out, const struct store_region_stats *g,
		 const struct metric_samples *s, enum stats_metric m)
{
	struct stats_region r;

	metric_region(&r, g, s);
	return stats_region_value(out, &r, m);
}

int metric_check_samples(const struct store_region_stats *g, int64_t run_id, size_t n)
{
	if (n == g->calls)
		return 0;
	return err_set(ERR_STORE,
		       "store is inconsistent: region '%s' of run %lld has %llu calls but %zu "
		       "stored durations",
		       g->name, (long long)run_id, (unsigned long long)g->calls, n);
}
