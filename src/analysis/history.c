/*
 * history.c - one region's values across runs, the changes between
 * consecutive runs, the change points and the bars of "scopedb history"
 * (see history.h).
 */
#include <math.h>

#include <stdlib.h>
#include <string.h>

#include "analysis/metric.h"
#include "scopedb/changes.h"
#include "scopedb/err.h"
#include "scopedb/history.h"
#include "scopedb/store.h"

int history_values(struct history_step *s, const struct store_history_point *p, size_t n,
		   enum stats_metric m, const char *location)
{
	size_t i;
	int rc;

	for (i = 0; i < n; i++) {
		const struct store_region_stats *g = &p[i].stats;
		struct metric_samples smp;

		memset(&smp, 0, sizeof(smp));
		smp.sorted = p[i].durations.v;
		smp.nsorted = p[i].durations.len;
		if (g->has_quantiles) {
			smp.quantiles = g->quantiles;
		} else if (stats_metric_quantile(m) > 0.0 && g->has_events && g->calls > 0) {
			rc = metric_check_samples(g, p[i].run_id, smp.nsorted, location);
			if (rc)
				return rc;
		}
		rc = metric_value(&s[i].v, g, &smp, m);
		if (rc)
			return rc;
	}
	return 0;
}

void history_compute(struct history_step *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		const struct stats_val *prev = i ? &s[i - 1].v : NULL;

		s[i].delta.none = s[i].pct.none = 1;
		s[i].delta.v = s[i].pct.v = 0.0;
		if (!prev || prev->none || s[i].v.none)
			continue;
		s[i].delta.none = 0;
		s[i].delta.v = s[i].v.v - prev->v;
		if (prev->v != 0.0) {
			s[i].pct.none = 0;
			s[i].pct.v = s[i].delta.v / prev->v * 100.0;
		}
	}
}

int history_mark(struct history_step *s, const struct store_history_point *p, size_t n,
		 const struct changepoint_opts *o, size_t *nchanges)
{
	struct stats_val *v = util_calloc(n ? n : 1, sizeof(*v));
	struct changepoint *cp = NULL;
	size_t i, ncp = 0;
	int rc;

	*nchanges = 0;
	if (!v)
		return err_nomem();
	for (i = 0; i < n; i++) {
		v[i] = s[i].v;
		s[i].change = 0;
		s[i].change_pct = 0.0;
		s[i].provisional = 0;
		s[i].confirm = 0;
	}
	rc = changes_series(&cp, &ncp, p, v, n, o);
	for (i = 0; !rc && i < ncp; i++) {
		s[cp[i].at].change = 1;
		s[cp[i].at].change_pct = cp[i].pct;
		s[cp[i].at].provisional = cp[i].provisional;
		s[cp[i].at].confirm = cp[i].confirm;
	}
	if (!rc)
		*nchanges = ncp;
	free(cp);
	free(v);
	return rc;
}

double history_max(const struct history_step *s, size_t n)
{
	double m = 0.0;
	size_t i;

	for (i = 0; i < n; i++)
		if (!s[i].v.none && s[i].v.v > m)
			m = s[i].v.v;
	return m;
}

double history_min(const struct history_step *s, size_t n)
{
	double m = 0.0;
	size_t i;
	int seen = 0;

	for (i = 0; i < n; i++)
		if (!s[i].v.none && (!seen++ || s[i].v.v < m))
			m = s[i].v.v;
	return m;
}

int history_bar(struct buf *out, struct stats_val v, double min, double max, size_t width, int utf8)
{
	/* U+2589 .. U+258F: seven eighths down to one eighth. */
	static const char *const part[8] = {"",	      "\u258f", "\u258e", "\u258d",
					    "\u258c", "\u258b", "\u258a", "\u2589"};
	double cells;
	size_t units, i;
	int rc = 0;

	if (v.none || width == 0 || !isfinite(v.v))
		return 0;
	/* min gets one cell, max the whole width: a small step between runs
	 * stays visible however large the values are */
	cells = max > min ? 1.0 + (double)(width - 1) * (v.v - min) / (max - min) : (double)width;
	if (cells > (double)width)
		cells = (double)width;
	if (cells < 1.0)
		cells = 1.0;
	if (!utf8) {
		units = (size_t)floor(cells + 0.5);
		for (i = 0; i < units && !rc; i++)
			rc = buf_putc(out, '#');
		return rc ? err_nomem() : 0;
	}
	units = (size_t)floor(cells * 8.0 + 0.5);
	for (i = 0; i < units / 8 && !rc; i++)
		rc = buf_puts(out, "\u2588");
	if (!rc)
		rc = buf_puts(out, part[units % 8]);
	return rc ? err_nomem() : 0;
}
