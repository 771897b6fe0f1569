/*
 * cmd_history.c - "scopedb history REGION": one region's metric across the
 * stored runs, oldest first, with the change against the previous run; on
 * a terminal the table ends each row with a bar scaled between the
 * column's smallest and largest value, and marks the change points
 * (changepoint.h; --changes-only lists just them).  --match PATTERN
 * follows every region the pattern selects, one block per region.
 *
 * --by path follows the paths of the call tree instead (REGION: a joined
 * path or a last name; --match: on either), read per run (pathhist.h).
 *
 * The data is one store query (store_region_history()); history_values()
 * turns it into values through metric_value() exactly as diff does,
 * history_compute() does the steps and history_mark() the change points.  The output is a document
 * (doc.h).
 */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "cli/cli.h"
#include "cli/hint.h"
#include "cli/output.h"
#include "analysis/pathhist.h"
#include "scopedb/err.h"
#include "scopedb/filter.h"
#include "scopedb/history.h"
#include "scopedb/runarg.h"
#include "select/match.h"
#include "render/format.h"
#include "render/report.h"
#include "scopedb/stats.h"
#include "scopedb/store.h"
#include "scopedb/util.h"

/* Width of the bars in cells. */
#define HISTORY_BAR_WIDTH 20

/* What every renderer needs. */
struct hist_ctx {
	enum stats_metric metric;
	int count;	    /* the metric is a count (calls) */
	int utf8;	    /* block characters for bars */
	int bars;	    /* the terminal: a bar column */
	int changes_only;   /* only the runs that start a new level */
	int skip_unchanged; /* and no region without any (--match) */
	/* --limit N: each region's newest N runs are shown; one more is read,
	 * for the change of the oldest shown (0: every run) */
	size_t limit;
	const struct same *same; /* --same, resolved against the newest run */
	struct buf *out;
};

/* The columns of a region's table (value, change: the metric's type). */
enum {
	HC_REGION,
	HC_RUN,
	HC_TIME,
	HC_COMMIT,
	HC_LABEL,
	HC_VALUE,
	HC_DELTA,
	HC_PCT,
	HC_BAR,
	HC_MARK,
	HC_CHANGE,
	HC_PROVISIONAL,
	HC_N
};

static const struct doc_col history_cols[HC_N] = {
    {NULL, "region", NULL, DOC_TEXT, DOC_LEFT, 0, 0, 0},
    {"run", "run", "id", DOC_ID, DOC_RIGHT, DOC_F_HUMAN, DOC_RAW, 0},
    {"recorded", "recorded_at", "recorded_at", DOC_TEXT, DOC_LEFT, DOC_F_HUMAN, DOC_RAW, 0},
    {"commit", "commit", "commit", DOC_TEXT, DOC_LEFT, DOC_F_HUMAN, DOC_RAW, 12},
    {"label", "label", "label", DOC_TEXT, DOC_LEFT, DOC_F_HUMAN, 0, 0},
    {NULL, "value", "value", DOC_VALUE, DOC_RIGHT, DOC_F_HUMAN, DOC_RAW, 0},
    {"change", "delta", "delta", DOC_DELTA, DOC_RIGHT, DOC_F_HUMAN, DOC_RAW, 0},
    {"change %", "pct", "pct", DOC_PCT, DOC_RIGHT, DOC_F_HUMAN, DOC_RAW, 0},
    {"", NULL, NULL, DOC_TEXT, DOC_LEFT, DOC_F_TEXT, 0, 0},
    {"", NULL, NULL, DOC_TEXT, DOC_LEFT, DOC_F_TEXT, 0, 0},
    {NULL, "change_point", "change_point", DOC_BOOL, DOC_LEFT, 0, 0, 0},
    {NULL, "provisional", "provisional", DOC_BOOL, DOC_LEFT, 0, 0, 0},
};

/* A change's pct in the row's mark, to one decimal ("+25.0%"); a drop
 * short of all that would read "-100.0%", which is a region gone, with
 * the digits it takes not to (format_pct(), as the change column). */
static void history_pct(char *s, size_t n, double pct)
{
	snprintf(s, n, "%+.1f%%", pct);
	if (pct != -100.0 && !strcmp(s, "-100.0%"))
		format_pct(s, n, 0, pct);
}

/* A region's table: one row per run, or per change point (the terminal
 * adds a bar and marks the change points in a column; markdown in bold). */
static struct doc_table *history_table(struct doc *d, const struct hist_ctx *h,
				       const struct store_history_point *p,
				       const struct history_step *s, size_t n)
{
	struct doc_col cols[HC_N];
	struct doc_table *t;
	struct buf bar = BUF_INIT;
	double max = history_max(s, n), min = history_min(s, n);
	size_t i;

	memcpy(cols, history_cols, sizeof(cols));
	cols[HC_VALUE].title = stats_metric_name(h->metric);
	if (!h->bars)
		cols[HC_BAR].fmts = 0;
	if (h->count) {
		cols[HC_VALUE].type = DOC_COUNT;
		cols[HC_DELTA].type = DOC_COUNT_DELTA;
	} else if (!strcmp(report_unit(h->metric), "seconds")) {
		cols[HC_VALUE].flags |= DOC_SECONDS;
		cols[HC_DELTA].flags |= DOC_SECONDS;
	}
	t = doc_table(d, DOC_F_HUMAN | DOC_F_CSV, cols, HC_N);
	if (t)
		t->flags |= DOC_TABLE_TRIM;
	for (i = 0; i < n; i++) {
		char mark[96], pct[40];

		if (h->changes_only && !s[i].change)
			continue;
		history_pct(pct, sizeof(pct), s[i].change_pct);
		if (s[i].provisional)
			snprintf(mark, sizeof(mark), "<- provisional change %s (%zu more run%s)",
				 pct, s[i].confirm, s[i].confirm == 1 ? "" : "s");
		else
			snprintf(mark, sizeof(mark), "<- change point %s", pct);
		bar.len = 0;
		if (buf_puts(&bar, "") ||
		    (h->bars && history_bar(&bar, s[i].v, min, max, HISTORY_BAR_WIDTH, h->utf8)))
			d->failed = 1;
		doc_row(t);
		doc_set_text(t, HC_REGION, p[i].stats.name);
		doc_set_id(t, HC_RUN, p[i].run_id);
		doc_set_text(t, HC_TIME, p[i].time);
		doc_set_text(t, HC_COMMIT, p[i].commit);
		doc_set_text(t, HC_LABEL, p[i].label);
		doc_set_num(t, HC_VALUE, s[i].v.none, s[i].v.v);
		doc_set_num(t, HC_DELTA, s[i].delta.none, s[i].delta.v);
		doc_set_num(t, HC_PCT, s[i].pct.none, s[i].pct.v);
		doc_set_text(t, HC_BAR, bar.data);
		doc_set_text(t, HC_MARK, s[i].change ? mark : "");
		doc_set_bool(t, HC_CHANGE, s[i].change);
		doc_set_bool(t, HC_PROVISIONAL, s[i].provisional);
		if (s[i].change) {
			doc_set_flags(t, HC_DELTA, DOC_STRONG);
			doc_set_flags(t, HC_PCT, DOC_STRONG);
			doc_set_note(t, HC_PCT, mark + 3);
		}
	}
	buf_release(&bar);
	return t;
}

/* The first point of a region's points [i, j) that is listed: with
 * --limit N its newest N (the one before is read only for its change). */
static size_t history_first_listed(size_t i, size_t j, size_t limit)
{
	return limit && j - i > limit ? j - limit : i;
}

/* The end of the region whose points start at p[i] (grouped by region). */
static size_t history_group_end(const struct store_history_point *p, size_t n, size_t i)
{
	size_t j;

	/* by name, unique per region; by path, the joined path */
	for (j = i + 1; j < n && !strcmp(p[j].stats.name, p[i].stats.name); j++)
		;
	return j;
}

/* "NAME (metric, unit)" as b's text, the name escaped; "NAME (calls)" when
 * the two are one word. */
static void history_title(struct doc *d, struct doc_block *b, const struct hist_ctx *h,
			  const char *name)
{
	const char *metric = stats_metric_name(h->metric), *unit = report_unit(h->metric);

	doc_span(d, b, name, 0);
	if (!strcmp(metric, unit))
		doc_spanf(d, b, DOC_RAW, " (%s)", metric);
	else
		doc_spanf(d, b, DOC_RAW, " (%s, %s)", metric, unit);
}

/* cli_no_change_points()'s commit of point i (a store_history_point
 * array). */
static const char *history_commit(const void *ctx, size_t i)
{
	return ((const struct store_history_point *)ctx)[i].commit;
}

/*
 * The document of history: per region a heading and its table (CSV: one
 * table over all regions); JSON {"metric", "regions": [{"name",
 * "enough_history", "runs"}]}, by path {"name", "path", "depth",
 * "enough_history", "runs"} (enough_history false: too few runs for the
 * change points the table marks).
 * The points are grouped by region.
 */
static void history_document(struct doc *d, const struct hist_ctx *h,
			     const struct store_history_point *p, const struct history_step *s,
			     size_t n)
{
	struct doc_value *regions, *r;
	struct doc_table *t;
	struct changepoint_opts o;
	char note[200];
	size_t i, i0, j, k, shown = 0;
	int short_history;

	doc_json_root(d, DOC_V_OBJ, JSONW_INLINE);
	doc_json_str(d, d->json, "metric", stats_metric_name(h->metric));
	if (h->same->ncond || h->same->nskipped)
		report_same_doc(d, h->same);
	regions = doc_json_arr(d, d->json, "regions", JSONW_BLOCK);
	changepoint_opts_init(&o);
	for (i = 0; i < n; i = j) {
		j = history_group_end(p, n, i);
		i0 = i;
		/* the run read before the newest N only for its change */
		i = history_first_listed(i, j, h->limit);
		for (k = i; h->skip_unchanged && k < j && !s[k].change; k++)
			;
		if (h->skip_unchanged && k == j)
			continue; /* --match --changes-only: a region without any */
		if (shown++)
			doc_blank(d, DOC_F_HUMAN);
		history_title(d, doc_field(d, DOC_F_TEXT, "Region"), h, p[i].stats.name);
		history_title(d, doc_heading(d, DOC_F_MD, 3), h, p[i].stats.name);
		doc_blank(d, DOC_F_HUMAN);
		t = history_table(d, h, p + i, s + i, j - i);
		/* over the runs read (with --limit, the N shown and the one
		 * before, as history_mark() was) */
		short_history = cli_no_change_points(note, sizeof(note), j - i0, history_commit,
						     p + i0, 2 * o.min_segment);
		if (h->changes_only)
			doc_table_empty(t, note);
		r = doc_json_obj(d, regions, NULL, JSONW_INLINE);
		doc_json_str(d, r, "name", p[i].stats.name);
		if (p[i].stats.path) { /* by path, as diff's and show's rows */
			doc_json_strs(d, r, "path", (const char *const *)p[i].stats.path,
				      (size_t)p[i].stats.depth, JSONW_COMPACT);
			doc_json_int(d, r, "depth", p[i].stats.depth);
		}
		doc_json_bool(d, r, "enough_history", !short_history);
		doc_json_table(d, r, "runs", t);
	}
	if (shown == 0) /* the CSV header alone */
		doc_table(d, DOC_F_CSV, history_cols, HC_N);
}

/* The values, steps and change points of every region (grouped points)
 * into s; location is the store's, for messages. */
static int history_series(struct history_step *s, const struct store_history_point *p, size_t n,
			  enum stats_metric m, const char *location)
{
	struct changepoint_opts o;
	size_t i, j, nchanges;
	int rc = 0;

	changepoint_opts_init(&o);
	for (i = 0; i < n && !rc; i = j) {
		j = history_group_end(p, n, i);
		rc = history_values(s + i, p + i, j - i, m, location);
		if (!rc) {
			history_compute(s + i, j - i);
			rc = history_mark(s + i, p + i, j - i, &o, &nchanges);
		}
	}
	return rc;
}

struct history_view {
	const struct hist_ctx *h;
	const struct store_history_point *p;
	struct history_step *s; /* filled here */
	size_t n;
	const char *location; /* the store's, for messages */
};

/* history's document (ctx: a struct history_view), once the values and
 * steps of every region are computed. */
static int history_build(struct doc *d, const void *ctx)
{
	const struct history_view *v = ctx;
	int rc = history_series(v->s, v->p, v->n, v->h->metric, v->location);

	if (!rc)
		history_document(d, v->h, v->p, v->s, v->n);
	return rc;
}

/* store_region_history() filter: the --match pattern. */
static int history_filter(void *ctx, int *keep, const char *name)
{
	return match_name(keep, ctx, name);
}

const struct opt_cmd cmd_history_usage = {
    .name = "history",
    .args = "REGION\n"
	    "--match P",
    .after = "One row per run, oldest first: run, recorded time, commit, label, the metric and\n"
	     "its change against the previous run; the table marks the change points, the\n"
	     "runs where the metric moved to another level (as 'scopedb changes' finds them).",
    .summary = "follow one region's metric across runs",
    .max_args = OPT_ARGS_ANY,
};

int cmd_history(int argc, char **argv)
{
	const struct opt_cmd *self = &cmd_history_usage;
	const char *db = NULL, *pattern = NULL;
	struct opt_list tags = OPT_LIST_INIT;
	const char *fmt = "table";
	struct store_history_point *pts = NULL;
	struct store_history_query q = {0};
	struct history_step *steps = NULL;
	struct filter f = {0}, fs;
	struct filter_meta *conds = NULL;
	struct cli_same like = {0};
	struct same same = {0};
	struct hist_ctx h = {0};
	struct match *m = NULL;
	struct store *st = NULL;
	struct i64vec ranks, read;
	struct buf out = BUF_INIT;
	size_t n = 0, i, j, k;
	long limit = 0;
	int code = CLI_EXIT_ERROR, nargs, rc, said = 0, by_path = 0;
	const struct opt opts[] = {
	    OPT__DB(&db),
	    OPT__METRIC(&h.metric),
	    OPT__BY(&by_path),
	    OPT_STRING(0, "match", &pattern, "P",
		       "every region matching the Python regex P at the start of\n"
		       "its name, one block per region (instead of REGION)"),
	    OPT__FILTER_TAG(&tags),
	    OPT__FILTER_BRANCH(&f.branch),
	    OPT__SINCE(f.since),
	    OPT__UNTIL(f.until, "only runs recorded at or before DATE"),
	    OPT_CALLBACK(0, "limit", OPT_TYPED(long *, &limit), "N",
			 "only the newest N runs that have the region (N >= 1)", cli_opt_positive,
			 (intptr_t) "without --limit, every run is listed"),
	    OPT__RANKS(&ranks),
	    OPT__SAME(&like, "the newest selected run's"),
	    OPT_FLAG(0, "changes-only", &h.changes_only,
		     "only the change points (with --match, only the regions\nthat have some)"),
	    OPT__FORMAT_ALL(&fmt, "table markdown csv json"),
	    OPT__UNITS(),
	    OPT_END(),
	};

	h.metric = STATS_TOTAL;
	h.out = &out;
	i64vec_init(&ranks);
	i64vec_init(&read);
	nargs = opt_parse(self, opts, argc, argv, &code);
	if (nargs < 0)
		goto out;
	if (nargs > (pattern ? 0 : 1)) {
		code =
		    opt_usage_error(self, opts, "unexpected argument '%s'", argv[pattern ? 0 : 1]);
		goto out;
	}
	if (!pattern && nargs < 1) {
		code =
		    opt_usage_error(self, opts, "history needs a REGION name (or --match PATTERN)");
		goto out;
	}
	f.tags = tags.v;
	f.ntags = tags.n;
	/* one more: the change of the oldest shown (LONG_MAX: every run already) */
	f.limit = limit && limit < LONG_MAX ? limit + 1 : limit;
	h.limit = (size_t)limit;
	if (pattern) {
		if (match_new_option(&m, "--match", pattern)) {
			code = cli_error();
			goto out;
		}
		q.filter = history_filter;
		q.ctx = m;
		q.pattern = pattern;
	} else {
		q.region = argv[0];
	}
	if (ranks.len) {
		match_ranks_finish(&ranks);
		q.ranks = ranks.v;
		q.nranks = ranks.len;
	}
	q.runs = &fs;
	h.same = &same;
	q.durations = stats_metric_quantile(h.metric) > 0.0;
	h.count = stats_metric_is_count(h.metric);
	h.skip_unchanged = h.changes_only && pattern;
	/* bars on a terminal only, never in a pipe or a file */
	h.bars = cli_format_is(fmt, "table") && cli_isatty(stdout);
	h.utf8 = h.bars && cli_utf8();
	if (cli_same_spec(&like) || store_open(&st, cli_db_path(db), STORE_READONLY) ||
	    same_apply(&same, &fs, &conds, st, &f, &like.spec) ||
	    (by_path ? pathhist_points(st, &pts, &n, &q)
		     : store_region_history(st, &pts, &n, &q)) ||
	    !(steps = util_calloc(n, sizeof(*steps)))) {
		/* "main > solve" by name: the path was meant */
		if (!by_path && q.region && err_code() == ERR_NOTFOUND && strstr(q.region, " > ")) {
			char *was = util_strdup(err_msg());

			if (was)
				err_set(ERR_NOTFOUND, "%s; for a call path, add --by path", was);
			free(was);
		}
		code = cli_error();
		goto out;
	}
	/* the runs read (each once), for what --same left out among them
	 * (--limit counts runs that have the region) and the note below */
	rc = 0;
	for (i = 0; i < n && !rc; i++)
		rc = i64vec_push(&read, pts[i].run_id);
	if (!rc)
		i64vec_unique(&read);
	/* (history reads limit + 1 runs of a region: fewer, nothing was cut) */
	if (!rc && limit && same.ncond && read.len)
		rc = same_left_out_listed(&same, st, &f, &fs, read.v, read.len,
					  (int64_t)read.len < f.limit);
	if (!rc) {
		const struct history_view v = {&h, pts, steps, n, store_location(st)};

		rc = cli_output(h.out, history_build, &v, fmt, 0);
	}
	/* runs of another rank count or platform among those listed: said to
	 * people (a check keeps them apart); not the run read before each
	 * region's newest N only for its change */
	if (!rc && n && (cli_format_is(fmt, "table") || cli_format_is(fmt, "markdown"))) {
		read.len = 0;
		for (i = 0; i < n && !rc; i = j) {
			j = history_group_end(pts, n, i);
			for (k = history_first_listed(i, j, h.limit); k < j && !rc; k++)
				rc = i64vec_push(&read, pts[k].run_id);
		}
		if (!rc)
			i64vec_unique(&read);
		if (!rc)
			rc = cli_same_note(st, &fs, read.v, read.len);
	}
	if (rc) {
		code = cli_error();
		goto out;
	}
	/* a --tag, --branch or --label no stored run has: said with the
	 * nearest stored one */
	if (n == 0 && (hint_filter(&said, st, &f) || runarg_any_run(st))) {
		code = cli_error();
		goto out;
	}
	if (n == 0 && !said && (cli_format_is(fmt, "table") || cli_format_is(fmt, "markdown")))
		cli_print_errorf(
		    "no selected run has %s '%s'%s", pattern ? "a region matching" : "region",
		    pattern ? pattern : q.region, ranks.len ? " on the --ranks given" : "");
	code = cli_write_stdout(out.data, out.len) ? cli_error() : cli_finish(CLI_EXIT_OK);
out:
	store_history_free(pts, n);
	free(steps);
	free(conds);
	same_release(&same);
	cli_same_release(&like);
	opt_list_release(&tags);
	match_free(m);
	store_close(st);
	buf_release(&out);
	i64vec_release(&ranks);
	i64vec_release(&read);
	return code;
}
