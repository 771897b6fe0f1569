/*
 * html_charts.c - the SVG charts of the report page (render_html.c): a
 * trend chart per region, sorted by the largest recent change; both runs'
 * call-duration box plots; the region x rank heatmaps.  Each is drawn in
 * viewBox units, downsampled as render_html.h says, with a text beside
 * every colour (signed percentages, "A"/"B" marks, row titles) and every
 * string from data escaped through html_text().
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/format.h"
#include "render/html_charts.h"
#include "render/render_html.h"
#include "render/report.h"
#include "scopedb/err.h"
#include "scopedb/stats.h"

/* ---- trends ------------------------------------------------------------- */

/* Trend chart geometry (viewBox units). */
#define TW 240.0
#define TH 70.0
#define TPAD 6.0

struct trend_scale {
	double lo, hi;
	size_t n;
};

static double trend_x(const struct trend_scale *s, size_t i)
{
	return s->n > 1 ? TPAD + (TW - 2 * TPAD) * (double)i / (double)(s->n - 1) : TW / 2;
}

static double trend_y(const struct trend_scale *s, double v)
{
	double f = s->hi > s->lo ? (v - s->lo) / (s->hi - s->lo) : 0.5;

	return TH - TPAD - (TH - 2 * TPAD) * f;
}

/* The hover text of point p: run, commit, date, value. */
static void trend_title(struct html *h, const struct reportdata_point *p, const char *prefix)
{
	char v[64], date[11];

	html_value(v, sizeof(v), h->metric, p->v);
	html_printf(h, "<title>%srun %lld", prefix, (long long)p->run_id);
	if (p->commit) {
		html_puts(h, ", commit ");
		html_text(h, p->commit);
	}
	/* the date (the time of day adds bytes, not information): text from
	 * the store like any other, escaped */
	snprintf(date, sizeof(date), "%.10s", p->time ? p->time : "");
	html_puts(h, ", ");
	html_text(h, date);
	html_printf(h, ": %s</title>", v);
}

/* The line through the smallest and largest value of each bucket (a gap
 * where a run has no value). */
static void trend_line(struct html *h, const struct reportdata_region *r,
		       const struct trend_scale *s)
{
	size_t nb = r->npts < HTML_LINE_BUCKETS ? r->npts : HTML_LINE_BUCKETS, b, i;
	int pen = 0;

	html_puts(h, "<path class=\"line\" d=\"");
	for (b = 0; b < nb; b++) {
		size_t from = b * r->npts / nb, to = (b + 1) * r->npts / nb, imin = from,
		       imax = from;
		int any = 0;

		for (i = from; i < to; i++) {
			if (isnan(r->pts[i].v))
				continue;
			if (!any || r->pts[i].v < r->pts[imin].v)
				imin = i;
			if (!any || r->pts[i].v > r->pts[imax].v)
				imax = i;
			any = 1;
		}
		if (!any) {
			pen = 0;
			continue;
		}
		for (i = 0; i < (imin == imax ? 1u : 2u); i++) {
			size_t k =
			    i == 0 ? (imin < imax ? imin : imax) : (imin < imax ? imax : imin);

			html_printf(h, "%c%.0f %.0f", pen ? 'L' : 'M', trend_x(s, k),
				    trend_y(s, r->pts[k].v));
			pen = 1;
		}
	}
	html_puts(h, "\"/>");
}

/* The marker of the compared run side (0 baseline "A", 1 candidate "B")
 * at point k. */
static void trend_mark(struct html *h, const struct reportdata_region *r,
		       const struct trend_scale *s, size_t k, int side)
{
	double x = trend_x(s, k);

	html_printf(h,
		    "<g class=\"mark %s\"><line x1=\"%.1f\" y1=\"%.0f\" x2=\"%.1f\" y2=\"%.0f\"/>",
		    side ? "mb" : "ma", x, TPAD, x, TH - TPAD);
	if (!isnan(r->pts[k].v))
		html_printf(h, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\">", x,
			    trend_y(s, r->pts[k].v));
	else
		html_printf(h, "<circle cx=\"%.1f\" cy=\"%.0f\" r=\"3\">", x, TH - TPAD);
	trend_title(h, &r->pts[k], side ? "candidate (B): " : "baseline (A): ");
	html_printf(h, "</circle><text x=\"%.1f\" y=\"%.0f\">%s</text></g>",
		    x + (x > TW - 20 ? -9.0 : 3.0), TPAD + 6, side ? "B" : "A");
}

/* A change point (changes_series(), as "scopedb changes" reports it): a
 * line between the last run before and the first run after, and the
 * change in text. */
static void trend_change(struct html *h, const struct reportdata_region *r,
			 const struct trend_scale *s, const struct changepoint *c)
{
	const struct reportdata_point *a = &r->pts[c->before], *b = &r->pts[c->after];
	double x = (trend_x(s, c->before) + trend_x(s, c->after)) / 2;
	char pct[64], va[64], vb[64];

	format_pct(pct, sizeof(pct), 0, c->pct);
	html_value(va, sizeof(va), h->metric, c->v_before);
	html_value(vb, sizeof(vb), h->metric, c->v_after);
	/* a provisional one (a step in the newest runs: a new level or an
	 * outlier, as scopedb changes says) dashed, its label with a '?' */
	html_printf(h,
		    "<g class=\"cp%s\"><line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" "
		    "y2=\"%.0f\"/>",
		    c->provisional ? " prov" : "", x, TPAD, x, TH - TPAD);
	html_printf(h,
		    "<text x=\"%.0f\" y=\"%.0f\">%s%s</text><title>%schange point %s: %s to %s, "
		    "run %lld",
		    x + (x > TW - 40 ? -34.0 : 2.0), TH - TPAD - 2, pct, c->provisional ? "?" : "",
		    c->provisional ? "provisional (too few runs after it to confirm) " : "", pct,
		    va, vb, (long long)a->run_id);
	if (a->commit) {
		html_puts(h, " (");
		html_text(h, a->commit);
		html_puts(h, ")");
	}
	html_printf(h, " to run %lld", (long long)b->run_id);
	if (b->commit) {
		html_puts(h, " (");
		html_text(h, b->commit);
		html_puts(h, ")");
	}
	html_printf(h, ", p %.2g</title></g>", c->p);
}

/* Under a chart with points, the compared stored runs it has no mark for
 * (older than its --history runs, or of another scope): "A (run 3) is
 * not among these runs". */
static void trend_unmarked(struct html *h, const struct reportdata *rd,
			   const struct reportdata_region *r)
{
	int has[2] = {0, 0}, side;
	size_t i;

	for (i = 0; i < r->npts; i++)
		for (side = 0; side < 2; side++)
			has[side] |= rd->run_id[side] && r->pts[i].run_id == rd->run_id[side];
	for (side = 0; rd->compared && r->npts && side < 2; side++)
		if (rd->run_id[side] && !has[side])
			html_printf(h,
				    "<p class=\"none\">%s (run %lld) is not among these runs</p>",
				    side ? "B" : "A", (long long)rd->run_id[side]);
}

static void trend_chart(struct html *h, const struct reportdata *rd,
			const struct reportdata_region *r, size_t hover)
{
	struct trend_scale s = {0, 0, r->npts};
	size_t i, nb, b;
	int seen = 0;
	char lo[64], hi[64];

	for (i = 0; i < r->npts; i++) {
		double v = r->pts[i].v;

		if (isnan(v))
			continue;
		if (!seen++ || v < s.lo)
			s.lo = v;
		if (seen == 1 || v > s.hi)
			s.hi = v;
	}
	html_value(lo, sizeof(lo), h->metric, seen ? s.lo : NAN);
	html_value(hi, sizeof(hi), h->metric, seen ? s.hi : NAN);
	html_printf(h,
		    "<svg class=\"chart trend\" viewBox=\"0 0 %.0f %.0f\" role=\"img\" "
		    "aria-label=\"%zu runs, %s to %s\">",
		    TW, TH + 12, r->npts, lo, hi);
	html_printf(h, "<rect class=\"frame\" x=\"0.5\" y=\"0.5\" width=\"%.0f\" height=\"%.0f\"/>",
		    TW - 1, TH - 1);
	if (seen)
		trend_line(h, r, &s);
	/* hover points: the largest value of each bucket */
	nb = r->npts < hover ? r->npts : hover;
	html_puts(h, "<g class=\"pts\">");
	for (b = 0; b < nb; b++) {
		size_t from = b * r->npts / nb, to = (b + 1) * r->npts / nb, k = from;
		char prefix[64] = "";

		for (i = from; i < to; i++)
			if (!isnan(r->pts[i].v) &&
			    (isnan(r->pts[k].v) || r->pts[i].v > r->pts[k].v))
				k = i;
		if (isnan(r->pts[k].v))
			continue;
		if (to - from > 1)
			snprintf(prefix, sizeof(prefix), "max of %zu: ", to - from);
		html_printf(h, "<circle cx=\"%.0f\" cy=\"%.0f\" r=\"2\">", trend_x(&s, k),
			    trend_y(&s, r->pts[k].v));
		trend_title(h, &r->pts[k], prefix);
		html_puts(h, "</circle>");
	}
	html_puts(h, "</g>");
	for (i = 0; i < r->nchanges; i++)
		trend_change(h, r, &s, &r->changes[i]);
	for (i = 0; i < r->npts; i++) {
		if (rd->run_id[0] && r->pts[i].run_id == rd->run_id[0])
			trend_mark(h, r, &s, i, 0);
		if (rd->run_id[1] && r->pts[i].run_id == rd->run_id[1])
			trend_mark(h, r, &s, i, 1);
	}
	html_printf(h, "<text class=\"ax\" x=\"2\" y=\"%.0f\">%s - %s</text></svg>", TH + 10, lo,
		    hi);
}

static int trend_order_cmp(const void *a, const void *b)
{
	const struct reportdata_region *x = *(const struct reportdata_region *const *)a;
	const struct reportdata_region *y = *(const struct reportdata_region *const *)b;
	double dx = isnan(x->recent) ? -1.0 : fabs(x->recent);
	double dy = isnan(y->recent) ? -1.0 : fabs(y->recent);

	if (dx != dy)
		return dx < dy ? 1 : -1;
	return strcmp(x->name, y->name);
}

void html_trends(struct html *h, const struct reportdata *rd, size_t nhistory)
{
	const struct reportdata_region **order = util_calloc(rd->nregions, sizeof(*order));
	size_t hover = html_hover_points(rd->nregions), i;

	if (!order) {
		h->rc = ERR_NOMEM;
		return;
	}
	for (i = 0; i < rd->nregions; i++)
		order[i] = &rd->regions[i];
	qsort(order, rd->nregions, sizeof(*order), trend_order_cmp);
	html_printf(h, "<section id=\"trends\"><h2>Trends</h2>\n<p>%s over the last %zu runs of ",
		    stats_metric_name(h->metric), nhistory);
	html_text(h, rd->scope);
	html_printf(h,
		    " that have the region, oldest on the left and evenly spaced (a run without "
		    "the region leaves no gap); one chart per region, sorted by the largest recent "
		    "change (the last run against the median of the %d before it). "
		    "<span class=\"ka\">A</span> marks the baseline, <span class=\"kb\">B</span> "
		    "the candidate, <span class=\"kp\">a labelled line</span> a change point (as "
		    "scopedb changes finds them; dashed, its label ending in '?', a provisional "
		    "one: too few runs after it to tell a new level from an outlier); hover a "
		    "point for its run, commit and date.</p>\n"
		    "<div class=\"grid\">\n",
		    REPORTDATA_RECENT);
	for (i = 0; i < rd->nregions && !h->rc; i++) {
		const struct reportdata_region *r = order[i];
		char pct[64];

		if (isnan(r->recent))
			snprintf(pct, sizeof(pct), "no recent change");
		else
			format_pct(pct, sizeof(pct), 0, r->recent);
		html_puts(h, "<figure class=\"trend region\"><figcaption><span class=\"rn\">");
		html_text(h, r->name);
		html_printf(h, "</span> <span class=\"chg%s\">%s</span></figcaption>",
			    isnan(r->recent)   ? ""
			    : r->recent > 5.0  ? " bad"
			    : r->recent < -5.0 ? " good"
					       : "",
			    pct);
		if (r->npts)
			trend_chart(h, rd, r, hover);
		else
			html_puts(h, "<p class=\"none\">no stored run of this scope has it</p>");
		trend_unmarked(h, rd, r);
		html_puts(h, "</figure>\n");
	}
	html_puts(h, "</div></section>\n");
	free(order);
}

/* ---- distributions -------------------------------------------------------- */

#define DW 260.0
#define DLEFT 18.0

/* The x of duration v on the log axis lo..hi (lo > 0); v is clamped to
 * the axis first: a 0 ns call (log: -inf), a NaN, never an "-inf" or
 * "nan" coordinate that a browser drops. */
static double dist_x(double v, double lo, double hi)
{
	double f;

	if (!(v > lo)) /* also NaN */
		v = lo;
	if (v > hi)
		v = hi;
	f = hi > lo ? (log(v) - log(lo)) / (log(hi) - log(lo)) : 0.5;

	return DLEFT + (DW - DLEFT - 4) * f;
}

/* One side's box: whisker min..max, box p50..p95, tick at p99, dot at
 * the mean, on a log scale from lo to hi. */
static void dist_box(struct html *h, const struct reportdata_dist *d, double lo, double hi,
		     double y, int side)
{
	char a[64], b[64], c[64], e[64], f[64], g[64];

	html_printf(h, "<g class=\"box %s\"><text x=\"2\" y=\"%.0f\">%s</text>", side ? "mb" : "ma",
		    y + 4, side ? "B" : "A");
	if (!d->has) {
		html_puts(h, "</g>");
		return;
	}
	html_secs(a, sizeof(a), d->min);
	html_secs(b, sizeof(b), d->p50);
	html_secs(c, sizeof(c), d->p95);
	html_secs(e, sizeof(e), d->p99);
	html_secs(f, sizeof(f), d->max);
	html_secs(g, sizeof(g), d->mean);
	html_printf(
	    h, "<title>%s: %llu calls; min %s, p50 %s, p95 %s, p99 %s, max %s, mean %s</title>",
	    side ? "B" : "A", (unsigned long long)d->calls, a, b, c, e, f, g);
	html_printf(h, "<line x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\"/>",
		    dist_x(d->min, lo, hi), y, dist_x(d->max, lo, hi), y);
	html_printf(h, "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"8\"/>",
		    dist_x(d->p50, lo, hi), y - 4,
		    fmax(dist_x(d->p95, lo, hi) - dist_x(d->p50, lo, hi), 1.0));
	html_printf(h, "<line class=\"p99\" x1=\"%.0f\" y1=\"%.0f\" x2=\"%.0f\" y2=\"%.0f\"/>",
		    dist_x(d->p99, lo, hi), y - 5, dist_x(d->p99, lo, hi), y + 5);
	html_printf(h, "<circle cx=\"%.0f\" cy=\"%.0f\" r=\"2\"/></g>", dist_x(d->mean, lo, hi), y);
}

/* A number cell of the distributions' table: text as shown ("-" when it
 * has no value), the value itself as data-v for sorting. */
static void dist_cell(struct html *h, int has, double v, const char *text)
{
	if (has && isfinite(v))
		html_printf(h, "<td class=\"num\" data-v=\"%.17g\">%s</td>", v, text);
	else
		html_puts(h, "<td class=\"num\">-</td>");
}

void html_dists(struct html *h, const struct reportdata *rd)
{
	size_t i, shown = 0;

	html_puts(h, "<section id=\"distributions\"><h2>Distributions</h2>\n");
	if (!rd->compared) {
		html_puts(h, "<p>The call durations of both runs are shown when BASELINE and "
			     "CANDIDATE are given.</p></section>\n");
		return;
	}
	html_puts(h,
		  "<p>Each region's call durations in the baseline (A) and the candidate (B), "
		  "log scale: the line spans min to max, the box p50 to p95, the tick is p99, "
		  "the dot the mean.</p>\n<table class=\"sortable dist\"><thead><tr><th>region</th>"
		  "<th>durations</th><th class=\"num\">p50 A</th><th class=\"num\">p50 B</th>"
		  "<th class=\"num\">p95 A</th><th class=\"num\">p95 B</th>"
		  "<th class=\"num\">p95 change</th></tr></thead><tbody>\n");
	for (i = 0; i < rd->nregions && !h->rc; i++) {
		const struct reportdata_region *r = &rd->regions[i];
		const struct reportdata_dist *a = &r->dist[0], *b = &r->dist[1];
		double lo = INFINITY, hi = 0;
		char s[4][64], pct[64];
		int k;

		if (!a->has && !b->has)
			continue;
		for (k = 0; k < 2; k++) {
			const struct reportdata_dist *d = &r->dist[k];

			if (!d->has)
				continue;
			lo = fmin(lo, fmax(d->min, 1e-9));
			hi = fmax(hi, fmax(d->max, 1e-9));
		}
		html_puts(h, "<tr class=\"region\"><td class=\"txt rn\">");
		html_text(h, r->name);
		html_puts(h, "</td><td><svg class=\"chart dist\" viewBox=\"0 0 260 34\">");
		dist_box(h, a, lo, hi, 9, 0);
		dist_box(h, b, lo, hi, 25, 1);
		html_puts(h, "</svg></td>");
		html_secs(s[0], 64, a->p50);
		html_secs(s[1], 64, b->p50);
		html_secs(s[2], 64, a->p95);
		html_secs(s[3], 64, b->p95);
		format_pct(pct, sizeof(pct), !a->has || !b->has || a->p95 <= 0,
			   a->p95 > 0 ? (b->p95 / a->p95 - 1) * 100 : 0);
		/* each cell in its own unit: data-v, in seconds, is what sorts */
		dist_cell(h, a->has, a->p50, s[0]);
		dist_cell(h, b->has, b->p50, s[1]);
		dist_cell(h, a->has, a->p95, s[2]);
		dist_cell(h, b->has, b->p95, s[3]);
		dist_cell(h, a->has && b->has && a->p95 > 0, (b->p95 / a->p95 - 1) * 100, pct);
		html_puts(h, "</tr>\n");
		shown++;
	}
	html_puts(h, "</tbody></table>\n");
	if (!shown)
		html_puts(h, "<p>Neither run keeps its call durations (the aggregate layout keeps "
			     "totals only): no distribution to show.</p>\n");
	html_puts(h, "</section>\n");
}

/* ---- ranks ---------------------------------------------------------------- */

/* The colour class (0..6, 3 neutral) of a relative difference f. */
static int heat_class(double f)
{
	static const double edge[6] = {-0.2, -0.1, -0.03, 0.03, 0.1, 0.2};
	int c = 0;

	while (c < 6 && f >= edge[c])
		c++;
	return c;
}

/* The mean of the ranks v[0..n) with time, as the imbalance metric takes
 * it (docs/format.md 8.4: a rank of no time is not counted; NAN: none). */
static double heat_mean(const double *v, size_t n)
{
	size_t i, k = 0;
	double s = 0;

	for (i = 0; i < n; i++)
		if (v[i] > 0)
			s += v[i], k++;
	return k ? s / (double)k : NAN;
}

/* A region of the heatmaps and its time on the candidate's ranks. */
struct heat_row {
	const struct reportdata_region *r;
	double total;
};

static int heat_order_cmp(const void *a, const void *b)
{
	const struct heat_row *x = a, *y = b;

	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	return strcmp(x->r->name, y->r->name);
}

/* Rank k's relative difference in the heatmap of r: against mean (change
 * 0) or against the same rank of the baseline (change 1; base: whether
 * the baseline has as many ranks); NAN where there is none. */
static double heat_rank(const struct reportdata_region *r, size_t k, int change, int base,
			double mean)
{
	double v = r->ranks[1][k];

	if (isnan(v))
		return NAN;
	if (change)
		return base && r->ranks[0][k] > 0 ? v / r->ranks[0][k] - 1 : NAN;
	/* a rank of no time has no imbalance, as in show (a blank) */
	return mean > 0 && v > 0 ? v / mean - 1 : NAN;
}

/* One heatmap of the rows order[0..n): change 0 is each rank against the
 * region's mean over ranks in the candidate, change 1 each rank of the
 * candidate against the same rank of the baseline.  A column of several
 * ranks takes the colour of its rank farthest from 0, so that one slow
 * rank among many shows; the extremes at the right are single ranks. */
static void heat_map(struct html *h, const struct reportdata *rd,
		     const struct reportdata_region **order, size_t n, int change)
{
	size_t nr = rd->nranks[1], nb = nr < HTML_HEAT_COLS ? nr : HTML_HEAT_COLS, i, b, k;
	const double cw = nb ? fmin(24.0, fmax(6.0, 480.0 / (double)nb)) : 6.0, ch = 14, left = 200;
	double width = left + cw * (double)nb + 290, height = ch * (double)n + 16;
	int base = rd->nranks[0] == nr;

	html_printf(h,
		    "<svg class=\"chart heat\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f "
		    "%.0f\" role=\"img\" aria-label=\"%s\">",
		    width, height, width, height,
		    change ? "candidate against baseline per rank" : "rank against region mean");
	html_printf(h, "<text class=\"ax\" x=\"%.0f\" y=\"10\">ranks 0-%zu</text>", left,
		    nr ? nr - 1 : 0);
	for (i = 0; i < n && !h->rc; i++) {
		const struct reportdata_region *r = order[i];
		double mean = heat_mean(r->ranks[1], nr), y = 14 + ch * (double)i;
		double fmax_ = -INFINITY, fmin_ = INFINITY;
		size_t kmax = 0, kmin = 0;

		html_puts(h, "<g><title>");
		html_text(h, r->name);
		html_printf(h, "</title><text x=\"%.0f\" y=\"%.0f\" text-anchor=\"end\">", left - 4,
			    y + 10);
		{
			/* a long name's last 25 bytes or fewer, from a character's
			 * first byte (half a character read '?') */
			const char *tail = r->name;
			char cut[40];

			if (strlen(tail) > 28)
				for (tail += strlen(tail) - 25; (*tail & 0xc0) == 0x80; tail++)
					;
			snprintf(cut, sizeof(cut), "%s%s", tail != r->name ? "..." : "", tail);
			html_text(h, cut);
		}
		html_puts(h, "</text>");
		for (b = 0; b < nb; b++) {
			double f = NAN;

			for (k = b * nr / nb; k < (b + 1) * nr / nb; k++) {
				double g = heat_rank(r, k, change, base, mean);

				if (isnan(g))
					continue;
				if (isnan(f) || fabs(g) > fabs(f))
					f = g;
				if (g > fmax_)
					fmax_ = g, kmax = k;
				if (g < fmin_)
					fmin_ = g, kmin = k;
			}
			if (isnan(f))
				continue;
			html_printf(h,
				    "<rect class=\"h%d\" x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" "
				    "height=\"%.0f\"/>",
				    heat_class(f), left + cw * (double)b, y, cw, ch - 1);
		}
		if (isfinite(fmax_)) {
			char a[64], c[64];

			format_pct(a, sizeof(a), 0, fmax_ * 100);
			format_pct(c, sizeof(c), 0, fmin_ * 100);
			html_printf(h,
				    "<text x=\"%.0f\" y=\"%.0f\">max %s (rank %zu), min %s (rank "
				    "%zu)</text>",
				    left + cw * (double)nb + 4, y + 10, a, kmax, c, kmin);
		}
		html_puts(h, "</g>");
	}
	html_puts(h, "</svg>\n");
}

void html_ranks(struct html *h, const struct reportdata *rd)
{
	const struct reportdata_region **order = NULL;
	struct heat_row *rows;
	size_t i, k, n = 0;

	html_puts(h, "<section id=\"ranks\"><h2>Ranks</h2>\n");
	if (!rd->compared || !rd->nranks[1]) {
		html_puts(h, "<p>The per-rank totals of the candidate are shown when BASELINE and "
			     "CANDIDATE are given.</p></section>\n");
		return;
	}
	order = util_calloc(rd->nregions, sizeof(*order));
	rows = util_calloc(rd->nregions, sizeof(*rows));
	if (!order || !rows) {
		free(order);
		free(rows);
		h->rc = ERR_NOMEM;
		return;
	}
	/* the regions with time on the candidate's ranks, the most first (by
	 * the ranks' totals: an aggregate-layout run has no mean duration) */
	for (i = 0; i < rd->nregions; i++) {
		double total = 0;

		for (k = 0; rd->regions[i].ranks[1] && k < rd->nranks[1]; k++)
			if (rd->regions[i].ranks[1][k] > 0)
				total += rd->regions[i].ranks[1][k];
		if (total > 0) {
			rows[n].r = &rd->regions[i];
			rows[n++].total = total;
		}
	}
	qsort(rows, n, sizeof(*rows), heat_order_cmp);
	if (n > HTML_HEAT_ROWS)
		n = HTML_HEAT_ROWS;
	for (i = 0; i < n; i++)
		order[i] = rows[i].r;
	free(rows);
	html_printf(h,
		    "<p>Total time of each region on each rank of the candidate (%zu ranks%s), the "
		    "%zu regions with the most time. Colour: <span class=\"kc\">blue</span> below, "
		    "<span class=\"kd\">orange</span> above%s; the text at the right gives the "
		    "extremes, each a rank. A rank without time is blank against the mean, which "
		    "counts the ranks with time, as the imbalance does.</p>\n<div "
		    "class=\"legend\">",
		    rd->nranks[1], rd->nranks[1] > HTML_HEAT_COLS ? ", grouped into columns" : "",
		    n,
		    rd->nranks[1] > HTML_HEAT_COLS
			? " (a column of several ranks: the colour of its rank that differs most)"
			: "");
	{
		static const char *const lab[7] = {"< -20%",   "-20..-10%", "-10..-3%", "+-3%",
						   "+3..+10%", "+10..+20%", "> +20%"};

		for (i = 0; i < 7; i++)
			html_printf(h,
				    "<span><svg class=\"sw\" viewBox=\"0 0 10 10\"><rect "
				    "class=\"h%zu\" width=\"10\" height=\"10\"/></svg> %s</span>",
				    i, lab[i]);
	}
	html_puts(h, "</div>\n<h3>Candidate: each rank against the region's mean over ranks "
		     "(load imbalance)</h3>\n");
	heat_map(h, rd, order, n, 0);
	if (rd->nranks[0] == rd->nranks[1]) {
		html_puts(h, "<h3>Change: each rank of the candidate against the same rank of the "
			     "baseline</h3>\n");
		heat_map(h, rd, order, n, 1);
	} else {
		html_printf(h, "<p>The baseline has %zu ranks: no per-rank change.</p>\n",
			    rd->nranks[0]);
	}
	html_puts(h, "</section>\n");
	free(order);
}
