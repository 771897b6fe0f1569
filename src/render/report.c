/*
 * report.c - the document of diff and check (see report.h): the two runs,
 * the metric or the budget and verdict, the metadata differences, the rows
 * and the regions only one side has; and the run and metadata pieces that
 * show and meta reuse.  The pieces of a statistical comparison (check
 * --stat) are report_stat.c (report_int.h).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/verdict.h"
#include "render/format.h"
#include "analysis/pathtree.h"
#include "render/report.h"
#include "render/report_int.h"
#include "scopedb/err.h"
#include "select/match.h"
#include "util/statdist.h"

const char *report_unit(enum stats_metric m)
{
	if (m == STATS_CALLS)
		return "calls";
	if (m == STATS_IMBALANCE)
		return "percent";
	return "seconds";
}

/*
 * One-line description of a run: "run 7 (label L, commit C, branch B,
 * tags t1,t2, recorded T, 4 ranks)" or "PATH (file, ..., 4 ranks)", with
 * the flags of report_run_field().  The commit is cut to 12 characters as
 * in "scopedb runs".
 */
static int report_run_text(struct buf *out, const struct store_run *r, int is_file, unsigned flags)
{
	const char *when = r->recorded_at;
	struct buf d = BUF_INIT;
	char ranks[32];
	size_t k;
	int rc = 0;

	if (!when && (flags & REPORT_RUN_INGESTED))
		when = r->ingested_at;
	if (is_file) {
		rc |= buf_puts(out, r->source_path);
		rc |= buf_puts(&d, "file");
	} else {
		rc |= buf_printf(out, "run %" PRId64, r->id);
	}
	if (r->label)
		rc |= buf_printf(&d, "%slabel %s", d.len ? ", " : "", r->label);
	if (r->commit)
		rc |= buf_printf(&d, "%scommit %.12s", d.len ? ", " : "", r->commit);
	if (r->branch)
		rc |= buf_printf(&d, "%sbranch %s", d.len ? ", " : "", r->branch);
	for (k = 0; k < r->ntags; k++)
		rc |= buf_printf(&d, "%s%s", k ? "," : d.len ? ", tags " : "tags ", r->tags[k]);
	if (when)
		rc |= buf_printf(&d, "%srecorded %s", d.len ? ", " : "", when);
	format_group(ranks, sizeof(ranks), (long long)r->num_ranks, 0);
	rc |= buf_printf(&d, "%s%s rank%s", d.len ? ", " : "", ranks, r->num_ranks == 1 ? "" : "s");
	if (flags & REPORT_RUN_LAYOUT)
		rc |= buf_printf(&d, ", %s", r->layout);
	rc |= buf_printf(out, " (%s)", d.data);
	buf_release(&d);
	return rc ? ERR_NOMEM : 0;
}

void report_run_field(struct doc *d, const char *key, const struct store_run *run, int is_file,
		      unsigned flags)
{
	struct buf t = BUF_INIT;

	if (report_run_text(&t, run, is_file, flags))
		d->failed = 1;
	else
		doc_span(d, doc_field(d, DOC_F_HUMAN, key), t.data, 0);
	buf_release(&t);
}

void report_ranks_field(struct doc *d, unsigned fmts, const int64_t *ranks, size_t n)
{
	struct buf t = BUF_INIT;

	if (match_ranks_format(&t, ranks, n))
		d->failed = 1;
	else
		doc_span(d, doc_field(d, fmts, "Ranks"), t.data ? t.data : "", DOC_RAW);
	buf_release(&t);
}

/* Names on one such line at most: the table above has every row, and the
 * JSON every name (a check by path of 8,192 paths printed a line of 570 KB). */
#define REPORT_NAMES_MAX 20

/* "a, b, c" (names escaped) onto b, "... and N more" past
 * REPORT_NAMES_MAX names. */
static void report_names(struct doc *d, struct doc_block *b, const char *const *names, size_t n)
{
	size_t shown = n > REPORT_NAMES_MAX ? REPORT_NAMES_MAX : n;

	doc_spans_join(d, b, names, shown, ", ", 0);
	if (shown < n)
		doc_spanf(d, b, DOC_RAW, " and %zu more", n - shown);
}

/* A line "prefix: a, b, c" (report_names()); nothing when n == 0. */
static void report_names_line(struct doc *d, unsigned fmts, const char *prefix,
			      const char *const *names, size_t n)
{
	struct doc_block *b;

	if (n == 0)
		return;
	b = doc_line(d, fmts);
	doc_span(d, b, prefix, DOC_RAW);
	report_names(d, b, names, n);
}

/* Changes within this many percent are noise for diff's colours when no
 * --threshold is given. */
#define REPORT_NOISE_PCT 2.0

/*
 * The colour of a row's change: red (DOC_BAD) only beyond the budget (a
 * check's violation) or diff's --threshold (default REPORT_NOISE_PCT),
 * green (DOC_GOOD) only for an improvement beyond it; none within it.
 */
static unsigned report_tint(const struct stats_row *row, const struct compare_opts *o)
{
	double lim = o->check		? o->max_regression
		     : o->has_threshold ? o->threshold
					: REPORT_NOISE_PCT;

	if (o->check ? row->violation : !row->pct.none && row->pct.v > lim)
		return DOC_BAD;
	if (!row->pct.none && row->pct.v < -lim)
		return DOC_GOOD;
	return 0;
}

/* The edge a percent change is shown beside (format_pct_edge()): a
 * check's budget; none (NaN) in a diff. */
static double report_edge(const struct compare_opts *o)
{
	return o->check ? o->max_regression : NAN;
}

/* The titles of the value columns c[1], c[2] for people: "baseline" and
 * "candidate" in a check; in a diff the runs' labels when both have one
 * and they differ, else "a" and "b" (the fields above say which is
 * which).  The labels are borrowed from r, which outlives the document. */
static void report_side_titles(struct doc_col *c, const struct compare_result *r,
			       const struct compare_opts *o)
{
	const char *la = r->a.run.label, *lb = r->b.run.label;

	if (o->check) {
		c[1].title = "baseline";
		c[2].title = "candidate";
	} else if (la && lb && *la && *lb && strcmp(la, lb)) {
		c[1].title = la;
		c[2].title = lb;
		c[1].flags |= DOC_TITLE_TEXT;
		c[2].flags |= DOC_TITLE_TEXT;
	}
}

/* "95% from main > timestep > halo_exchange (+1.78 s self)": at's largest
 * cause, appended to b (the attribution line's end, a finding's). */
static int report_attr_cause(struct buf *b, const struct compare_attr *at)
{
	char share[32], self[48];
	const struct compare_cause *c = &at->causes[0];

	format_sig(share, sizeof(share), c->share * 100.0, 3, 0);
	format_duration(self, sizeof(self), c->delta_self, format_unit_pick(c->delta_self), 1, 1);
	return buf_printf(b, "%s%% from %s (%s self)", share, c->path->name, self);
}

/* What at decomposes when it is not the row's value, and its growth,
 * appended to b: "total +141 ms: ", "mean total over the 3 files +1.2 ms: ",
 * "total of its outermost calls +91.9 us: " (the share that follows is of
 * that growth). */
static int report_attr_what(struct buf *b, const struct compare_attr *at)
{
	char delta[48];

	format_duration(delta, sizeof(delta), at->delta, format_unit_pick(at->delta), 1, 1);
	if (at->files > 1)
		return buf_printf(b,
				  "mean %s over the %zu files %s: ", stats_metric_name(at->metric),
				  at->files, delta);
	return buf_printf(b, "%s %s: ",
			  at->covers		     ? stats_metric_name(at->metric)
			  : at->metric == STATS_SELF ? "self of its paths"
						     : "total of its outermost calls",
			  delta);
}

/* "main +110%: 95% from main > timestep > halo_exchange (+1.78 s self)":
 * the row's growth and its largest cause (docs/calltree.md), into b.
 * When what is decomposed is not the row's value, it is said after the
 * row's metric: "solve p95 +52.6%, total +141 ms: 100% from ...". */
static int report_attr_line(struct buf *b, const struct stats_row *row, enum stats_metric m,
			    const struct compare_attr *at, double edge)
{
	char pct[32];
	int rc;

	format_pct_edge(pct, sizeof(pct), row->pct.none, row->pct.v, edge);
	b->len = 0;
	if (at->same)
		return buf_printf(b, "%s %s: ", row->name, pct) | report_attr_cause(b, at);
	rc = buf_printf(b, "%s %s %s, ", row->name, stats_metric_name(m), pct);
	return rc | report_attr_what(b, at) | report_attr_cause(b, at);
}

/* A row's "attribution" object: its region, what is decomposed and its
 * growth, and the causes. */
static void report_attr_json(struct doc *d, struct doc_value *o, const struct stats_row *row,
			     const struct compare_attr *at)
{
	struct doc_value *a = doc_json_obj(d, o, "attribution", JSONW_INLINE), *arr, *c;
	size_t i;

	doc_json_str(d, a, "region", row->name);
	doc_json_str(d, a, "metric", stats_metric_name(at->metric));
	doc_json_num(d, a, "delta", at->delta, 0);
	if (at->files > 1) /* b: the mean over the candidate's files */
		doc_json_int(d, a, "files", (int64_t)at->files);
	arr = doc_json_arr(d, a, "causes", JSONW_INLINE);
	for (i = 0; i < at->n; i++) {
		const struct compare_cause *x = &at->causes[i];

		c = doc_json_obj(d, arr, NULL, JSONW_INLINE);
		doc_json_strs(d, c, "path", (const char *const *)x->path->path, x->path->depth,
			      JSONW_COMPACT);
		doc_json_num(d, c, "delta_self", x->delta_self, 0);
		doc_json_num(d, c, "share", x->share, 0);
	}
	if (at->left_out)
		doc_json_int(d, a, "causes_left_out", (int64_t)at->left_out);
}

void report_row_values_json(struct doc *d, struct doc_value *obj, const struct stats_row *row,
			    int cnt)
{
	if (row->a.none)
		doc_json_null(d, obj, "a");
	else
		doc_json_num(d, obj, "a", row->a.v, cnt);
	if (row->b.none)
		doc_json_null(d, obj, "b");
	else
		doc_json_num(d, obj, "b", row->b.v, cnt);
	doc_json_num(d, obj, "delta", row->delta, cnt);
	if (row->pct.none)
		doc_json_null(d, obj, "pct");
	else
		doc_json_num(d, obj, "pct", row->pct.v, 0);
}

/* The JSON rows of a comparison with attribution: the table's
 * keys, then "attribution" on the rows that have one. */
static void report_rows_json(struct doc *d, const struct compare_result *r,
			     const struct compare_opts *o, const size_t *order)
{
	struct doc_value *arr = doc_json_arr(d, d->json, "rows", JSONW_BLOCK), *obj;
	int cnt = stats_metric_is_count(o->metric);
	size_t k, i;

	for (k = 0; k < r->nrows; k++) {
		const struct stats_row *row = &r->rows[i = order ? order[k] : k];
		const struct compare_path *p = compare_find_path(r, row->name);

		obj = doc_json_obj(d, arr, NULL, JSONW_INLINE);
		doc_json_str(d, obj, "name", row->name);
		report_row_values_json(d, obj, row, cnt);
		if (p) {
			doc_json_strs(d, obj, "path", (const char *const *)p->path, p->depth,
				      JSONW_COMPACT);
			doc_json_int(d, obj, "depth", (int64_t)p->depth);
		}
		if (r->attr[i].n)
			report_attr_json(d, obj, row, &r->attr[i]);
	}
}

/* One line per violation with attribution, under the verdict (its
 * percent shown on its side of the budget: edge). */
static void report_attr_lines(struct doc *d, unsigned fmts, const struct compare_result *r,
			      enum stats_metric m, double edge)
{
	struct buf b = BUF_INIT;
	size_t i;

	for (i = 0; r->attr && i < r->nrows; i++) {
		if (!r->rows[i].violation || !r->attr[i].n)
			continue;
		if (report_attr_line(&b, &r->rows[i], m, &r->attr[i], edge))
			d->failed = 1;
		else /* markdown: a list, or its lines would join into one paragraph */
			doc_span(d, fmts == DOC_F_MD ? doc_item(d, fmts) : doc_line(d, fmts),
				 b.data, 0);
	}
	buf_release(&b);
}

/* --tree: the order of r's rows as a tree of paths (siblings in row
 * order) and each row's level; left NULL when memory runs out (the rows
 * keep their order then). */
static void report_tree_order(size_t **order, size_t **level, const struct compare_result *r)
{
	const char **names = malloc((r->nrows ? r->nrows : 1) * sizeof(*names));
	const char **lasts = malloc((r->nrows ? r->nrows : 1) * sizeof(*lasts));
	size_t i;

	*order = malloc((r->nrows ? r->nrows : 1) * sizeof(**order));
	*level = malloc((r->nrows ? r->nrows : 1) * sizeof(**level));
	if (names && lasts && *order && *level) {
		for (i = 0; i < r->nrows; i++) {
			const struct compare_path *p = compare_find_path(r, r->rows[i].name);

			names[i] = r->rows[i].name;
			lasts[i] = p && p->depth ? p->path[p->depth - 1] : r->rows[i].name;
		}
		if (!pathtree_order(*order, *level, names, lasts, r->nrows)) {
			free(names);
			free(lasts);
			return;
		}
	}
	free(names);
	free(lasts);
	free(*order);
	free(*level);
	*order = *level = NULL;
}

/* The rows table: region, a, b, delta, delta %; a statistical comparison
 * adds verdict (markdown: with an icon), ratio [95% CI], p and runs
 * needed, and for CSV their numbers. */
static void report_rows(struct doc *d, const struct compare_result *r, const struct compare_opts *o)
{
	static const struct doc_col cols[] = {
	    {"region", "region", "name", DOC_TEXT, DOC_LEFT, DOC_F_HUMAN, 0, 0},
	    {"a", "a", "a", DOC_VALUE, DOC_RIGHT, DOC_F_HUMAN, 0, 0},
	    {"b", "b", "b", DOC_VALUE, DOC_RIGHT, DOC_F_HUMAN, 0, 0},
	    {"delta", "delta", "delta", DOC_DELTA, DOC_RIGHT, DOC_F_HUMAN, 0, 0},
	    {"delta %", "pct", "pct", DOC_PCT, DOC_RIGHT, DOC_F_HUMAN, 0, 0},
	};
	static const struct doc_col stat_cols[] = {
	    {"verdict", "verdict", NULL, DOC_TEXT, DOC_LEFT, DOC_F_TEXT, DOC_RAW, 0},
	    {"verdict", NULL, NULL, DOC_TEXT, DOC_LEFT, DOC_F_MD, DOC_RAW, 0},
	    {"ratio [95% CI]", NULL, NULL, DOC_TEXT, DOC_RIGHT, DOC_F_HUMAN, DOC_RAW, 0},
	    {"p adj.", NULL, NULL, DOC_TEXT, DOC_RIGHT, DOC_F_HUMAN, DOC_RAW, 0},
	    {"runs needed", NULL, NULL, DOC_TEXT, DOC_RIGHT, DOC_F_HUMAN, DOC_RAW, 0},
	    {NULL, "ratio", NULL, DOC_VALUE, DOC_RIGHT, 0, 0, 0},
	    {NULL, "ci_low", NULL, DOC_VALUE, DOC_RIGHT, 0, 0, 0},
	    {NULL, "ci_high", NULL, DOC_VALUE, DOC_RIGHT, 0, 0, 0},
	    {NULL, "p", NULL, DOC_VALUE, DOC_RIGHT, 0, 0, 0},
	    {NULL, "runs_needed", NULL, DOC_COUNT, DOC_RIGHT, 0, 0, 0},
	};
	/* by path, JSON only: the row's names as an array, and their number */
	static const struct doc_col path_cols[] = {
	    {NULL, NULL, "path", DOC_LIST, DOC_LEFT, 0, DOC_COMPACT, 0},
	    {NULL, NULL, "depth", DOC_COUNT, DOC_RIGHT, 0, 0, 0},
	};
	/* check, CSV only (JSON has the list "violations"): whether the row
	 * broke the budget, 0 or 1 */
	static const struct doc_col viol_col = {NULL,	  "violation", NULL, DOC_BOOL,
						DOC_LEFT, 0,	       0,    0};
	/* JUnit's failure message only (it reads titled columns): a
	 * violation's attribution line */
	static const struct doc_col attr_col = {"attribution", NULL, NULL, DOC_TEXT,
						DOC_LEFT,      0,    0,	   0};
	/* --tree: the joined name for machines (first), a mark for people */
	static const struct doc_col tree_name = {NULL,	   "region", "name", DOC_TEXT,
						 DOC_LEFT, 0,	     0,	     0};
	static const struct doc_col tree_mark = {"",	   NULL,	NULL,	 DOC_TEXT,
						 DOC_LEFT, DOC_F_HUMAN, DOC_RAW, 0};
	struct doc_col c[24]; /* at most 1 + 15 + 1 + 2 + 1 + 1 */
	struct doc_table *t;
	size_t *order = NULL, *level = NULL;
	size_t i, k, off = o->tree ? 1 : 0, nc = off + (r->stat ? 15 : 5), pc, mc = 0, ac = 0,
		     vc = 0;
	struct buf tn = BUF_INIT;

	if (off)
		c[0] = tree_name;
	memcpy(c + off, cols, sizeof(cols));
	memcpy(c + off + 5, stat_cols, sizeof(stat_cols));
	if (off)
		c[off].csv = c[off].json = NULL;
	if (o->tree)
		c[mc = nc++] = tree_mark;
	pc = nc;
	if (o->by_path) {
		memcpy(c + nc, path_cols, sizeof(path_cols));
		nc += 2;
	}
	if (o->check)
		c[vc = nc++] = viol_col;
	if (r->attr && o->check)
		c[ac = nc++] = attr_col;
	if (stats_metric_is_count(o->metric)) {
		c[off + 1].type = c[off + 2].type = DOC_COUNT;
		c[off + 3].type = DOC_COUNT_DELTA;
	} else if (!strcmp(report_unit(o->metric), "seconds")) {
		c[off + 1].flags = c[off + 2].flags = c[off + 3].flags = DOC_SECONDS;
	}
	report_side_titles(c + off, r, o);
	if (o->tree)
		report_tree_order(&order, &level, r);
	t = doc_table(d, DOC_F_HUMAN | DOC_F_CSV, c, nc);
	doc_table_empty(t, "No regions to compare.");
	if (t && o->tree)
		t->flags |= DOC_TABLE_TRIM; /* the mark is mostly empty */
	for (k = 0; k < r->nrows; k++) {
		const struct stats_row *row = &r->rows[i = order ? order[k] : k];
		unsigned tint = report_tint(row, o);
		const struct compare_path *p = o->by_path ? compare_find_path(r, row->name) : NULL;

		doc_row(t);
		if (off)
			doc_set_text(t, 0, row->name);
		if (order) {
			size_t j;

			tn.len = 0;
			for (j = 0; j < level[i]; j++)
				buf_puts(&tn, "  ");
			buf_puts(&tn,
				 level[i] && p && p->depth ? p->path[p->depth - 1] : row->name);
			doc_set_text(t, off, tn.data ? tn.data : "");
			doc_set_text(t, mc,
				     row->a.none && !row->b.none   ? "only in b"
				     : row->b.none && !row->a.none ? "only in a"
								   : "");
		} else {
			doc_set_text(t, off, row->name);
		}
		doc_set_num(t, off + 1, row->a.none, row->a.v);
		doc_set_num(t, off + 2, row->b.none, row->b.v);
		doc_set_num(t, off + 3, 0, row->delta);
		doc_set_num(t, off + 4, row->pct.none, row->pct.v);
		doc_set_edge(t, off + 4, report_edge(o));
		doc_set_flags(t, off + 3, tint);
		doc_set_flags(t, off + 4, tint);
		if (row->violation || (o->inconclusive_fails && r->stat &&
				       r->stat[i].verdict == VERDICT_CALL_INCONCLUSIVE))
			doc_set_flags(t, off, DOC_STRONG | DOC_BAD);
		if (r->stat)
			report_stat_cells(t, off + 5, &r->stat[i]);
		if (o->by_path) {
			doc_set_list(t, pc, p ? (const char *const *)p->path : NULL,
				     p ? p->depth : 0);
			doc_set_num(t, pc + 1, !p, p ? (double)p->depth : 0.0);
		}
		if (vc)
			doc_set_bool(t, vc, row->violation);
		if (ac && row->violation && r->attr[i].n &&
		    !report_attr_line(&tn, row, o->metric, &r->attr[i], report_edge(o)))
			doc_set_text(t, ac, tn.data);
	}
	buf_release(&tn);
	/* JSON rows in the table's order (the tree's with --tree) */
	if (d->json && r->stat) {
		struct doc_value *arr = doc_json_arr(d, d->json, "rows", JSONW_BLOCK);

		for (k = 0; k < r->nrows; k++) {
			i = order ? order[k] : k;
			report_stat_json(d, arr, r, i, stats_metric_is_count(o->metric),
					 o->by_path ? compare_find_path(r, r->rows[i].name) : NULL);
		}
	} else if (d->json && r->attr) {
		report_rows_json(d, r, o, order);
	} else if (d->json) {
		doc_json_table(d, d->json, "rows", t);
	}
	free(order);
	free(level);
	/* the regions of one side only, by name: also those without a value */
	doc_json_strs(d, d->json, "missing", r->only_a, r->nonly_a, JSONW_INLINE);
	doc_json_strs(d, d->json, "new", r->only_b, r->nonly_b, JSONW_INLINE);
}

/* A value of metric m for a one-line message: "18.7 ms", "1,200",
 * "12.5" (imbalance, percent), "none". */
static void report_value_text(char *s, size_t len, enum stats_metric m, const struct stats_val *v)
{
	if (v->none)
		snprintf(s, len, "none");
	else if (!strcmp(report_unit(m), "seconds"))
		format_duration(s, len, v->v, format_unit_pick(fabs(v->v)), 0, 1);
	else
		format_value(s, len, 0, v->v, stats_metric_is_count(m));
}

/*
 * One finding of row i (report_findings()): its title and message, which
 * ends with the row's largest cause when the check attributed it.  The
 * region name goes in as data; the renderer escapes it.
 */
static int report_finding_text(struct buf *title, struct buf *msg, const struct compare_result *r,
			       size_t i, const struct compare_opts *o)
{
	const struct stats_row *row = &r->rows[i];
	const char *metric = stats_metric_name(o->metric);
	char a[64], b[64], pct[32];
	int rc = 0;

	report_value_text(a, sizeof(a), o->metric, &row->a);
	report_value_text(b, sizeof(b), o->metric, &row->b);
	format_pct_edge(pct, sizeof(pct), row->pct.none, row->pct.v, report_edge(o));
	rc |= buf_printf(title, "scopedb: %s ", row->name);
	if (row->a.none)
		rc |= buf_puts(title, "is new");
	else if (row->b.none || row->gone)
		rc |= buf_puts(title, "is missing");
	else
		rc |= buf_puts(title, pct);
	rc |= buf_printf(msg, "%s: %s %s -> %s", row->name, metric, a, b);
	if (!row->pct.none)
		rc |= buf_printf(msg, " (%s)", pct);
	if (r->stat && r->stat[i].verdict != VERDICT_CALL_NONE) {
		const struct compare_stat *c = &r->stat[i];
		char ratio[96], p[32];

		report_stat_ratio(ratio, sizeof(ratio), c);
		report_stat_p(p, sizeof(p), c->padj);
		rc |= buf_printf(msg, "; %s: ratio %s, p adj. %s", verdict_call_name(c->verdict),
				 ratio, p);
		if (c->runs_needed >= VERDICT_MAX_RUNS)
			rc |= buf_puts(msg, "; more than 999 more candidate runs would be needed");
		else if (c->runs_needed > 0)
			rc |= buf_printf(msg, "; about %d more candidate run%s would decide",
					 c->runs_needed, c->runs_needed == 1 ? "" : "s");
	} else if (row->violation && row->a.none) {
		rc |= buf_puts(msg, "; new region (--fail-on-new)");
	} else if (row->violation && row->gone) {
		rc |= buf_puts(msg, "; no call in the candidate (--fail-on-missing)");
	} else if (row->violation && row->b.none) {
		rc |= buf_puts(msg, "; missing from the candidate (--fail-on-missing)");
	} else if (row->violation) {
		rc |= buf_printf(msg, "; over the budget of %+g%%", o->max_regression);
	}
	/* its largest cause, as the table's line under the verdict says it
	 * (and of what growth, when that is not the row's value's) */
	if (row->violation && r->attr && r->attr[i].n) {
		rc |= buf_puts(msg, "; ");
		if (!r->attr[i].same)
			rc |= report_attr_what(msg, &r->attr[i]);
		rc |= report_attr_cause(msg, &r->attr[i]);
	}
	return rc;
}

/*
 * The findings of a check (doc.findings): each violation an error, and
 * with statistics each undecided region a warning, in the rows' order
 * (worst first), with the location compare_opts.locations found.
 */
static void report_findings(struct doc *d, const struct compare_result *r,
			    const struct compare_opts *o)
{
	struct doc_table *t = doc_table(d, 0, doc_finding_cols, DOC_FINDING_NCOLS);
	struct buf title = BUF_INIT, msg = BUF_INIT, key = BUF_INIT;
	size_t i;

	d->findings = t;
	for (i = 0; t && i < r->nrows; i++) {
		int warn = !r->rows[i].violation && r->stat &&
			   r->stat[i].verdict == VERDICT_CALL_INCONCLUSIVE;

		if (!r->rows[i].violation && !warn)
			continue;
		title.len = msg.len = key.len = 0;
		if (buf_puts(&title, "") || buf_puts(&msg, "") ||
		    buf_printf(&key, "scopedb.check.%s\n%s", stats_metric_name(o->metric),
			       r->rows[i].name) ||
		    report_finding_text(&title, &msg, r, i, o)) {
			d->failed = 1;
			break;
		}
		doc_row(t);
		doc_set_text(t, DOC_FINDING_LEVEL, warn ? "warning" : "error");
		doc_set_text(t, DOC_FINDING_REGION, r->rows[i].name);
		if (r->locs && r->locs[i].file) {
			doc_set_text(t, DOC_FINDING_FILE, r->locs[i].file);
			/* line 0 is no line (a module's own code): the file's */
			if (r->locs[i].line > 0)
				doc_set_id(t, DOC_FINDING_LINE, r->locs[i].line);
		}
		doc_set_text(t, DOC_FINDING_TITLE, title.data);
		doc_set_text(t, DOC_FINDING_MESSAGE, msg.data);
		doc_set_text(t, DOC_FINDING_KEY, key.data);
	}
	buf_release(&title);
	buf_release(&msg);
	buf_release(&key);
}

void report_doc(struct doc *d, const struct compare_result *r, const struct compare_opts *o)
{
	const struct verdict *v = &r->verdict;
	const char *metric = stats_metric_name(o->metric);
	int fail = v->kind == VERDICT_FAIL;
	struct doc_block *b;

	d->name = o->check ? "scopedb.check" : "scopedb.diff";
	d->subject = metric;
	doc_json_root(d, DOC_V_OBJ, JSONW_INLINE);
	doc_json_str(d, d->json, "metric", metric);
	report_run_json(d, d->json, "a", &r->a.run, r->a.is_file, 0);
	report_run_json(d, d->json, "b", &r->b.run, r->b.is_file, 0);
	if (o->check) {
		/* markdown puts the verdict on top */
		doc_spanf(d, doc_heading(d, DOC_F_MD, 3), DOC_RAW, "Regression check: %s",
			  verdict_name(v->kind));
		doc_blank(d, DOC_F_MD);
		b = doc_line(d, DOC_F_MD);
		doc_spanf(d, b, DOC_RAW, "Budget: %+g%% (%s)", o->max_regression, metric);
		if (v->nviolations)
			doc_span(d, b, "; budget violations: ", DOC_RAW);
		report_names(d, b, v->violations, v->nviolations);
		doc_blank(d, DOC_F_MD);
		if (r->attr && v->nviolations) {
			report_attr_lines(d, DOC_F_MD, r, o->metric, report_edge(o));
			doc_blank(d, DOC_F_MD);
		}
	}
	report_run_field(d, o->check ? "Baseline" : "a", &r->a.run, r->a.is_file, 0);
	if (r->baseline_from) {
		/* which commit git chose, and how far back */
		b = doc_field(d, DOC_F_HUMAN, o->check ? "Baseline from" : "a from");
		doc_span(d, b, r->a.arg, 0);
		doc_span(d, b, ": ", DOC_RAW);
		doc_span(d, b, r->baseline_from, 0);
		doc_json_str(d, d->json, "baseline_from", r->baseline_from);
	}
	report_run_field(d, o->check ? "Candidate" : "b", &r->b.run, r->b.is_file, 0);
	if (o->ncand_files) {
		/* the candidate's repetitions, files (docs/ci.md) */
		struct doc_value *arr = doc_json_arr(d, d->json, "candidate_files", JSONW_COMPACT);
		size_t i;

		b = doc_field(d, DOC_F_HUMAN, "Repetitions");
		doc_spanf(d, b, DOC_RAW, "%zu files: ", o->ncand_files + 1);
		doc_span(d, b, r->b.arg, 0);
		doc_json_str(d, arr, NULL, r->b.arg);
		for (i = 0; i < o->ncand_files; i++) {
			doc_span(d, b, ", ", DOC_RAW);
			doc_span(d, b, o->cand_files[i], 0);
			doc_json_str(d, arr, NULL, o->cand_files[i]);
		}
		doc_span(d, b,
			 r->stat ? " (the candidate set)" : " (each region's median over them)",
			 DOC_RAW);
	}
	if (o->ranks)
		report_ranks_field(d, DOC_F_TEXT, o->ranks, o->nranks);
	if (o->check) {
		doc_spanf(d, doc_field(d, DOC_F_TEXT, "Regression budget"), DOC_RAW, "%+g%% (%s)",
			  o->max_regression, metric);
		doc_span(d, doc_field(d, DOC_F_TEXT, "Regression check"), verdict_name(v->kind),
			 DOC_RAW | DOC_STRONG |
			     (fail			? DOC_BAD
			      : v->kind == VERDICT_PASS ? DOC_GOOD
							: 0));
	}
	doc_spanf(d, doc_field(d, o->check ? DOC_F_MD : DOC_F_HUMAN, "Metric"), DOC_RAW, "%s (%s)",
		  metric, report_unit(o->metric));
	if (r->stat)
		report_stat_header(d, r, o);
	if (o->ranks)
		report_ranks_field(d, DOC_F_MD, o->ranks, o->nranks);
	if (r->nmeta_changes) {
		doc_span(d, doc_line(d, DOC_F_TEXT), "Metadata differences (a -> b):", DOC_RAW);
		report_meta_text(d, r->meta_changes, r->nmeta_changes, "  ", 60);
		doc_blank(d, DOC_F_MD);
		doc_span(d, doc_line(d, DOC_F_MD),
			 "Metadata differences (a → b):", DOC_RAW | DOC_STRONG);
		doc_blank(d, DOC_F_MD);
		report_meta_md(d, r->meta_changes, r->nmeta_changes, 60);
	}
	doc_blank(d, DOC_F_HUMAN);
	report_rows(d, r, o);
	if (r->nonly_a || r->nonly_b || v->nviolations)
		doc_blank(d, DOC_F_TEXT);
	if (r->nonly_a)
		doc_blank(d, DOC_F_MD);
	report_names_line(d, DOC_F_HUMAN, "Only in a: ", r->only_a, r->nonly_a);
	if (r->nonly_b)
		doc_blank(d, DOC_F_MD);
	report_names_line(d, DOC_F_HUMAN, "Only in b: ", r->only_b, r->nonly_b);
	report_names_line(d, DOC_F_TEXT, "Budget violations: ", v->violations, v->nviolations);
	report_attr_lines(d, DOC_F_TEXT, r, o->metric, report_edge(o));
	if (o->check)
		report_findings(d, r, o);
	if (o->check) {
		doc_json_num(d, d->json, "max_regression", o->max_regression, 0);
		doc_json_bool(d, d->json, "fail_on_new", o->fail_on_new);
		doc_json_bool(d, d->json, "fail_on_missing", o->fail_on_missing);
		doc_json_str(d, d->json, "status", verdict_name(v->kind));
		doc_json_strs(d, d->json, "violations", v->violations, v->nviolations,
			      JSONW_INLINE);
	}
	/* always present, [] when the runs are like for like */
	report_meta_json(d, d->json, "metadata_changes", r->meta_changes, r->nmeta_changes);
}

void report_run_json(struct doc *d, struct doc_value *parent, const char *key,
		     const struct store_run *run, int no_id, int layout)
{
	struct doc_value *o = doc_json_obj(d, parent, key, JSONW_INLINE);

	if (no_id)
		doc_json_null(d, o, "id");
	else
		doc_json_int(d, o, "id", run->id);
	doc_json_str(d, o, "path", run->source_path);
	doc_json_str(d, o, "label", run->label);
	doc_json_str(d, o, "commit", run->commit);
	doc_json_str(d, o, "branch", run->branch);
	doc_json_strs(d, o, "tags", (const char *const *)run->tags, run->ntags, JSONW_COMPACT);
	doc_json_str(d, o, "recorded_at", run->recorded_at);
	doc_json_int(d, o, "num_ranks", run->num_ranks);
	if (layout)
		doc_json_str(d, o, "layout", run->layout);
}

/* s cut after maxw code points (0: no limit), then "..."; "(unset)" for
 * NULL.  Unescaped: the renderer escapes. */
static int report_cut(struct buf *out, const char *s, size_t maxw)
{
	size_t w = 0;
	int rc = 0;

	if (!s)
		return buf_puts(out, "(unset)");
	for (; *s && !rc; s++) {
		if (((unsigned char)*s & 0xc0) != 0x80 && maxw && w++ == maxw)
			return buf_puts(out, "...");
		rc = buf_putc(out, *s);
	}
	return rc;
}

/* "a<arrow>b" of a change, each side cut. */
static int report_change(struct buf *out, const struct metadiff_change *c, const char *arrow,
			 size_t maxw)
{
	return report_cut(out, c->a, maxw) || buf_puts(out, arrow) || report_cut(out, c->b, maxw);
}

void report_meta_text(struct doc *d, const struct metadiff_change *c, size_t n, const char *indent,
		      size_t maxw)
{
	static const struct doc_col cols[] = {
	    {"key", NULL, NULL, DOC_TEXT, DOC_LEFT, DOC_F_TEXT, 0, 0},
	    {"change", NULL, NULL, DOC_TEXT, DOC_LEFT, DOC_F_TEXT, 0, 0},
	};
	struct doc_table *t = doc_table(d, DOC_F_TEXT, cols, 2);
	struct buf s = BUF_INIT;
	size_t i;

	if (t) {
		t->flags |= DOC_TABLE_NOHEADER;
		t->indent = indent;
	}
	for (i = 0; i < n; i++) {
		s.len = 0;
		if (buf_puts(&s, "") || report_change(&s, &c[i], " -> ", maxw))
			d->failed = 1;
		doc_row(t);
		doc_set_text(t, 0, c[i].key);
		doc_set_text(t, 1, s.data);
	}
	buf_release(&s);
}

void report_meta_md(struct doc *d, const struct metadiff_change *c, size_t n, size_t maxw)
{
	struct buf s = BUF_INIT;
	struct doc_block *b;
	size_t i;

	for (i = 0; i < n; i++) {
		s.len = 0;
		if (buf_puts(&s, "") || report_change(&s, &c[i], " → ", maxw))
			d->failed = 1;
		b = doc_item(d, DOC_F_MD);
		doc_span(d, b, c[i].key, 0);
		doc_span(d, b, ": ", DOC_RAW);
		doc_span(d, b, s.data, 0);
	}
	buf_release(&s);
}

void report_meta_json(struct doc *d, struct doc_value *parent, const char *key,
		      const struct metadiff_change *c, size_t n)
{
	static const struct doc_col cols[] = {
	    {NULL, NULL, "key", DOC_TEXT, DOC_LEFT, 0, 0, 0},
	    {NULL, NULL, "a", DOC_TEXT, DOC_LEFT, 0, 0, 0},
	    {NULL, NULL, "b", DOC_TEXT, DOC_LEFT, 0, 0, 0},
	};
	struct doc_table *t = doc_table(d, 0, cols, 3);
	size_t i;

	if (t)
		t->layout = JSONW_INLINE;
	for (i = 0; i < n; i++) {
		doc_row(t);
		doc_set_text(t, 0, c[i].key);
		doc_set_text(t, 1, c[i].a);
		doc_set_text(t, 2, c[i].b);
	}
	doc_json_table(d, parent, key, t);
}
