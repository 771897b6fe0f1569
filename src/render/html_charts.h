/*
 * html_charts.h - what the two halves of the report page share: the
 * writer of render_html.c (sticky: once an allocation failed, every call
 * does nothing and h->rc holds ERR_NOMEM) and the chart sections of
 * html_charts.c, each appending one <section> of the page.
 *
 * Ownership: struct html borrows out; nothing is kept.
 */
#ifndef SCOPEDB_HTML_CHARTS_H
#define SCOPEDB_HTML_CHARTS_H

#include <stddef.h>

#include "analysis/reportdata.h"
#include "scopedb/stats.h"
#include "scopedb/util.h"

/* The writer: out and the first failure. */
struct html {
	struct buf *out;
	int rc;
	enum stats_metric metric;
};

void html_puts(struct html *h, const char *s);
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
void html_printf(struct html *h, const char *fmt, ...);
/* Untrusted text, escaped. */
void html_text(struct html *h, const char *s);
/* A metric value for people: a duration with its own unit, a percent
 * (imbalance) or a count; "-" for NaN. */
void html_value(char *s, size_t len, enum stats_metric m, double v);
/* A duration in seconds for people. */
void html_secs(char *s, size_t len, double v);

/* The trend charts (nhistory: the most points of a region). */
void html_trends(struct html *h, const struct reportdata *rd, size_t nhistory);
/* The box plots of both runs' call durations. */
void html_dists(struct html *h, const struct reportdata *rd);
/* The region x rank heatmaps. */
void html_ranks(struct html *h, const struct reportdata *rd);
/* The call tree of the compared paths (report --by path; html_tree.c):
 * nothing unless co->by_path and rd compared two runs. */
void html_tree(struct html *h, const struct reportdata *rd, const struct compare_opts *co);

#endif
