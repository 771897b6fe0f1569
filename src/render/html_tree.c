/*
 * html_tree.c - the call tree section of the report page (report --by
 * path; docs/calltree.md): the compared paths as an indented tree, each
 * path right under its parent (pathtree.h), siblings by the candidate's
 * value, largest first; per node its last name, a bar of each side's
 * value against the largest value of the tree (A above, B below, inline
 * SVG), both values and the change, marked when the node broke the budget
 * or is only on one side.  Every name is untrusted text and goes through
 * html_text() (escape.c); the full path is the row's tooltip.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/pathtree.h"
#include "render/format.h"
#include "render/html_charts.h"
#include "scopedb/compare.h"
#include "scopedb/err.h"

/* The bar's width in the SVG's units. */
#define TREE_BAR 200.0
/* Levels beyond this are indented as this one (CSS classes lv0..lv12). */
#define TREE_MAX_LEVEL 12

/* A row as the siblings' sort sees it. */
struct tree_key {
	double v; /* the candidate's value (None: the baseline's) */
	const char *name;
	size_t row;
};

/* Siblings' order: the value descending, then the name. */
static int tree_cmp(const void *x, const void *y)
{
	const struct tree_key *a = x, *b = y;

	if (a->v != b->v)
		return a->v > b->v ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* One side's bar at y (height 5) of value v against the largest, hi. */
static void tree_bar(struct html *h, const struct stats_val *v, double hi, int y, int side)
{
	double w = !v->none && hi > 0 && v->v > 0 ? TREE_BAR * v->v / hi : 0;

	html_printf(h, "<rect class=\"%s\" x=\"0\" y=\"%d\" width=\"%.1f\" height=\"5\"/>",
		    side ? "tb" : "ta", y, w > 0 && w < 1 ? 1.0 : w);
}

/* One node: row r at level lv (its path p, NULL when unknown). */
static void tree_node(struct html *h, const struct compare_result *cr, const struct stats_row *r,
		      size_t lv, double hi)
{
	const struct compare_path *p = compare_find_path(cr, r->name);
	char a[64], b[64], pct[64];
	const char *mark = r->a.none ? "only in B" : r->b.none ? "only in A" : NULL;

	html_value(a, sizeof(a), h->metric, r->a.none ? NAN : r->a.v);
	html_value(b, sizeof(b), h->metric, r->b.none ? NAN : r->b.v);
	format_pct(pct, sizeof(pct), r->pct.none, r->pct.v);
	html_printf(h, "<tr%s><td class=\"txt lv%zu\" title=\"",
		    r->violation ? " class=\"bad\"" : "",
		    lv > TREE_MAX_LEVEL ? (size_t)TREE_MAX_LEVEL : lv);
	html_text(h, r->name);
	html_puts(h, "\">");
	html_text(h, p && p->depth ? p->path[p->depth - 1] : r->name);
	html_puts(h, "</td><td><svg class=\"chart bars\" viewBox=\"0 0 200 12\"><title>");
	html_text(h, r->name);
	html_printf(h, ": A %s, B %s</title>", a, b);
	tree_bar(h, &r->a, hi, 1, 0);
	tree_bar(h, &r->b, hi, 6, 1);
	html_printf(h,
		    "</svg></td><td class=\"num\">%s</td><td class=\"num\">%s</td>"
		    "<td class=\"num%s\">%s</td><td class=\"txt\">%s</td></tr>\n",
		    a, b, r->violation ? " bad" : "", pct,
		    mark	   ? mark
		    : r->violation ? "over the budget"
				   : "");
}

void html_tree(struct html *h, const struct reportdata *rd, const struct compare_opts *co)
{
	const struct compare_result *cr = &rd->cmp;
	size_t n = cr->nrows, i, *order = NULL, *level = NULL;
	struct tree_key *idx = NULL;
	const char **names = NULL, **lasts = NULL;
	double hi = 0;

	if (!co->by_path || !rd->compared)
		return;
	html_puts(h, "<section id=\"tree\"><h2>Call tree</h2>\n");
	if (!n) {
		html_puts(h, "<p>No paths to compare.</p></section>\n");
		return;
	}
	idx = malloc(n * sizeof(*idx));
	order = malloc(n * sizeof(*order));
	level = malloc(n * sizeof(*level));
	names = malloc(n * sizeof(*names));
	lasts = malloc(n * sizeof(*lasts));
	if (!idx || !order || !level || !names || !lasts) {
		h->rc = ERR_NOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		const struct stats_row *r = &cr->rows[i];

		idx[i].v = r->b.none ? (r->a.none ? -INFINITY : r->a.v) : r->b.v;
		idx[i].name = r->name;
		idx[i].row = i;
	}
	qsort(idx, n, sizeof(*idx), tree_cmp);
	for (i = 0; i < n; i++) {
		const struct stats_row *r = &cr->rows[idx[i].row];
		const struct compare_path *p = compare_find_path(cr, r->name);

		names[i] = r->name;
		lasts[i] = p && p->depth ? p->path[p->depth - 1] : r->name;
		if (!r->a.none && r->a.v > hi)
			hi = r->a.v;
		if (!r->b.none && r->b.v > hi)
			hi = r->b.v;
	}
	if (pathtree_order(order, level, names, lasts, n)) {
		h->rc = ERR_NOMEM;
		goto out;
	}
	html_printf(h,
		    "<p>The compared paths, each under its parent, siblings by the candidate's "
		    "%s, largest first. The bars are the baseline (<span class=\"ka\">A</span>, "
		    "above) and the candidate (<span class=\"kb\">B</span>, below) against the "
		    "largest value; hover a name for its whole path.</p>\n"
		    "<table class=\"tree\"><thead><tr><th>path</th><th>A | B</th>"
		    "<th class=\"num\">A</th><th class=\"num\">B</th><th class=\"num\">change</th>"
		    "<th></th></tr></thead><tbody>\n",
		    stats_metric_name(h->metric));
	for (i = 0; i < n && !h->rc; i++)
		tree_node(h, cr, &cr->rows[idx[order[i]].row], level[order[i]], hi);
	html_puts(h, "</tbody></table></section>\n");
out:
	free(idx);
	free(order);
	free(level);
	free(names);
	free(lasts);
}
