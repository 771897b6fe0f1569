/*
 * metric.c - stored region aggregates to metric values (see metric.h).
 */
#include <string.h>

#include "analysis/metric.h"
#include "scopedb/err.h"
#include "scopedb/stats.h"
#include "select/match.h"

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
	out->has_self = g->has_self;
	out->self = g->self;
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

double metric_resolution(enum stats_metric m, const struct store_region_stats *g)
{
	switch (m) {
	case STATS_CALLS:
		return 1.0;
	case STATS_AVG:
		return g->calls ? 1e-9 / (double)g->calls : 0.0;
	case STATS_GPU_AVG:
		return g->gpu_count ? 1e-9 / (double)g->gpu_count : 0.0;
	case STATS_IMBALANCE:
		return 0.0;
	default:
		return 1e-9;
	}
}

int metric_check_samples(const struct store_region_stats *g, int64_t run_id, size_t n,
			 const char *location)
{
	if (n == g->calls)
		return 0;
	return err_set(ERR_STORE,
		       "store '%s' is damaged: region '%s' of run %lld has %llu calls but %zu "
		       "stored durations",
		       location, g->name, (long long)run_id, (unsigned long long)g->calls, n);
}

int metric_stored_value(struct stats_val *out, struct store *st, int64_t run_id,
			const struct store_region_stats *g, const int64_t *ranks, size_t nranks,
			enum stats_metric m, struct i64vec *d, struct i64vec *ends)
{
	struct metric_samples smp;
	int need = stats_metric_quantile(m) > 0.0, rc;

	memset(&smp, 0, sizeof(smp));
	if (need && g->has_quantiles) {
		smp.quantiles = g->quantiles;
	} else if (need && g->has_events && g->calls > 0) {
		/* Each rank's blob is sorted already: the percentile is
		 * selected across those runs, never sorting them all. */
		d->len = 0;
		ends->len = 0;
		rc = g->depth > 0
			 ? store_path_duration_runs(st, d, ends, run_id, g->path_id, ranks, nranks)
			 : store_region_duration_runs(st, d, ends, run_id, g->region_id, ranks,
						      nranks);
		if (!rc)
			rc = metric_check_samples(g, run_id, d->len, store_location(st));
		if (rc)
			return rc;
		smp.sorted = d->v;
		smp.nsorted = d->len;
		smp.run_ends = ends->v;
		smp.nruns = ends->len;
	}
	return metric_value(out, g, &smp, m);
}

/* store_region_stats() filter: the --include/--exclude patterns. */
static int metric_filter_name(void *ctx, int *keep, const char *name)
{
	return match_name(keep, ctx, name);
}

/* store_path_stats() filter: the same, on the joined and the last name. */
static int metric_filter_path(void *ctx, int *keep, const char *joined, const char *const *names,
			      size_t depth)
{
	return match_path(keep, ctx, joined, names[depth - 1]);
}

int metric_read_stats(struct store_region_stats **out, size_t *n, struct store *st, int64_t run_id,
		      const int64_t *ranks, size_t nranks, int by_path, struct match *m)
{
	if (by_path)
		return store_path_stats(st, out, n, run_id, ranks, nranks, metric_filter_path, m);
	return store_region_stats(st, out, n, run_id, ranks, nranks, metric_filter_name, m);
}
