/*
 * render_html.h - the page of "scopedb report": one self-contained HTML
 * file (inline CSS, inline SVG charts drawn here, a small inline script
 * for sorting and filtering only; no URL of any kind) with the verdict of
 * the check (report_doc()'s document, as "scopedb check" prints it), a
 * trend chart per region in a grid sorted by the largest recent change,
 * both runs' call-duration box plots and the region x rank heatmaps.
 *
 * Charts are downsampled so the page stays small (issue 16: under 1 MB
 * for 256 regions x 1,000 runs): a trend's line keeps the smallest and
 * largest value of at most HTML_LINE_BUCKETS buckets, its hover points
 * (SVG <title>: run, commit, date, value) one run per bucket of at most
 * html_hover_points(); the heatmaps show the HTML_HEAT_ROWS regions with
 * the most time on at most HTML_HEAT_COLS rank columns.
 *
 * Every string from a profile or the store is escaped by escape_html().
 * Ownership: nothing is kept; the page is appended to out.
 */
#ifndef SCOPEDB_RENDER_HTML_H
#define SCOPEDB_RENDER_HTML_H

#include "analysis/reportdata.h"
#include "scopedb/util.h"

#define HTML_LINE_BUCKETS 40
#define HTML_HEAT_ROWS 32
#define HTML_HEAT_COLS 64

/* Hover points per trend chart for a page of nregions charts. */
size_t html_hover_points(size_t nregions);

/* Append the report page of rd (co: the check options it was made with,
 * for the verdict's document) to out.  ERR_NOMEM. */
int render_html_report(struct buf *out, const struct reportdata *rd, const struct compare_opts *co);

#endif
