/*
 * cmd_changes.c - "scopedb changes": the change points of a metric over
 * the stored history, for every region (or those --include/--exclude
 * select): which run, and which commit or range of commits, moved a
 * region's typical value to another level, by how much and how
 * significantly.  Newest first, or the largest first with --sort pct.
 *
 * The core call is changes_find() (src/analysis/changes.c: one store
 * query, the metric values as diff computes them, changepoint_find() per
 * region); this file holds the options and the document.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "cli/cli.h"
#include "cli/hint.h"
#include "cli/output.h"
#include "render/format.h"
#include "render/report.h"
#include "scopedb/changes.h"
#include "scopedb/err.h"
#include "scopedb/filter.h"
#include "scopedb/stats.h"
#include "scopedb/store.h"
#include "scopedb/util.h"
#include "select/match.h"

/* The columns: people see runs, commits and values; CSV every field. */
enum {
	CC_REGION,
	CC_RUNS,
	CC_COMMITS,
	CC_RECORDED,
	CC_BEFORE_RUN,
	CC_BEFORE_COMMIT,
	CC_BEFORE_TIME,
	CC_BEFORE,
	CC_AFTER_RUN,
	CC_AFTER_COMMIT,
	CC_AFTER_TIME,
	CC_AFTER,
	CC_PCT,
	CC_P_HUMAN,
	CC_STATUS,
	CC_P,
	CC_RUNS_BEFORE,
	CC_RUNS_AFTER,
	CC_AT_RUN,
	CC_PROVISIONAL,
	CC_CONFIRM,
	CC_N
};

static const struct doc_col changes_cols[CC_N] = {
    {"region", "region", NULL, DOC_TEXT, DOC_LEFT, DOC_F_HUMAN, 0, 0},
    {"runs", NULL, NULL, DOC_TEXT, DOC_LEFT, DOC_F_HUMAN, DOC_RAW, 0},
    {"commits", NULL, NULL, DOC_TEXT, DOC_LEFT, DOC_F_HUMAN, 0, 0},
    {"recorded", NULL, NULL, DOC_TEXT, DOC_LEFT, DOC_F_HUMAN, 0, 0},
    {NULL, "before_run", NULL, DOC_ID, DOC_RIGHT, 0, 0, 0},
    {NULL, "before_commit", NULL, DOC_TEXT, DOC_LEFT, 0, 0, 0},
    {NULL, "before_recorded_at", NULL, DOC_TEXT, DOC_LEFT, 0, 0, 0},
    {"before", "before_value", NULL, DOC_VALUE, DOC_RIGHT, DOC_F_HUMAN, 0, 0},
    {NULL, "after_run", NULL, DOC_ID, DOC_RIGHT, 0, 0, 0},
    {NULL, "after_commit", NULL, DOC_TEXT, DOC_LEFT, 0, 0, 0},
    {NULL, "after_recorded_at", NULL, DOC_TEXT, DOC_LEFT, 0, 0, 0},
    {"after", "after_value", NULL, DOC_VALUE, DOC_RIGHT, DOC_F_HUMAN, 0, 0},
    {"change", "pct", NULL, DOC_PCT, DOC_RIGHT, DOC_F_HUMAN, 0, 0},
    {"p", NULL, NULL, DOC_TEXT, DOC_RIGHT, DOC_F_HUMAN, DOC_RAW, 0},
    {"status", NULL, NULL, DOC_TEXT, DOC_LEFT, DOC_F_HUMAN, DOC_RAW, 0},
    {NULL, "p", NULL, DOC_TEXT, DOC_RIGHT, 0, 0, 0},
    {NULL, "runs_before", NULL, DOC_ID, DOC_RIGHT, 0, 0, 0},
    {NULL, "runs_after", NULL, DOC_ID, DOC_RIGHT, 0, 0, 0},
    {NULL, "at_run", NULL, DOC_ID, DOC_RIGHT, 0, 0, 0},
    {NULL, "provisional", NULL, DOC_BOOL, DOC_LEFT, 0, 0, 0},
    {NULL, "confirm_runs", NULL, DOC_ID, DOC_RIGHT, 0, 0, 0},
};

/* Commits shown to people: at most this many characters of each. */
#define CHANGES_COMMIT_CUT 12

struct changes_view {
	const struct changes_result *res;
	enum stats_metric metric;
	enum changes_sort sort;
	const struct same *same; /* --same, resolved against the newest run */
	size_t min_runs;	 /* fewest runs with a change point in them */
	int by_path;		 /* rows are paths: JSON adds "path" and "depth" */
};

/* The commit text of a change for people: the range to bisect,
 * "BEFORE..AFTER" (what "git log BEFORE..AFTER" lists), even when the two
 * runs are adjacent in the history: commits nobody measured may lie
 * between them.  The commit after alone when the one before is unknown;
 * NULL when the commit after is unknown. */
static const char *changes_commits(char *out, size_t len, const struct changes_item *it)
{
	const char *b = it->before->commit, *a = it->after->commit;

	if (!a)
		return NULL;
	if (!b || !strcmp(a, b))
		snprintf(out, len, "%.*s", CHANGES_COMMIT_CUT, a);
	else
		snprintf(out, len, "%.*s..%.*s", CHANGES_COMMIT_CUT, b, CHANGES_COMMIT_CUT, a);
	return out;
}

/*
 * A line for people when the runs are of several branches (no --branch):
 * their levels are mixed, so a change point may be where one branch's
 * runs begin, and a step on one branch may be hidden by the other's runs.
 * Names the first three branches (data: escaped by the renderer).
 */
static int changes_branches_note(struct doc *d, const struct store_series *s)
{
	const char **names = malloc((s->nruns ? s->nruns : 1) * sizeof(*names));
	struct doc_block *b;
	size_t i, n = 0, nb = 0;

	if (!names)
		return err_nomem();
	for (i = 0; i < s->nruns; i++)
		if (s->runs[i].branch)
			names[n++] = s->runs[i].branch;
	qsort(names, n, sizeof(*names), util_strptr_cmp);
	for (i = 0; i < n; i++)
		if (!i || strcmp(names[i], names[i - 1]))
			names[nb++] = names[i];
	if (nb > 1) {
		b = doc_line(d, DOC_F_HUMAN);
		doc_spanf(d, b, DOC_RAW, "Note: these runs are of %zu branches (", nb);
		for (i = 0; i < nb && i < 3; i++) {
			doc_span(d, b, i ? ", " : "", DOC_RAW);
			doc_span(d, b, names[i], 0);
		}
		doc_span(d, b,
			 nb > 3 ? ", ...), whose levels mix: --branch NAME follows one."
				: "), whose levels mix: --branch NAME follows one.",
			 DOC_RAW);
		doc_blank(d, DOC_F_HUMAN);
	}
	free(names);
	return 0;
}

/* The JSON of one side of a change: {"run", "commit", "recorded_at",
 * "value"}. */
static void changes_json_side(struct doc *d, struct doc_value *parent, const char *key,
			      const struct store_series_run *p, double value, int count)
{
	struct doc_value *o = doc_json_obj(d, parent, key, JSONW_INLINE);

	doc_json_int(d, o, "run", p->id);
	doc_json_str(d, o, "commit", p->commit);
	doc_json_str(d, o, "recorded_at", p->time);
	doc_json_num(d, o, "value", value, count);
}

/* cli_no_change_points()'s commit of run i of a struct store_series. */
static const char *changes_commit(const void *ctx, size_t i)
{
	return ((const struct store_series *)ctx)->runs[i].commit;
}

/*
 * The document of changes (ctx: a struct changes_view): a line saying
 * what was searched, then one row per change point; JSON {"metric",
 * "enough_history" (false: too few runs for any change point, which the
 * empty table says), "changes": [{"region", "before": {...}, "after": {...}, "pct", "p",
 * "runs_before", "runs_after", "at_run", "provisional", "confirm_runs"}]}
 * ("same" too with --same; by path "path" and "depth" after "region", as
 * every command's rows by path have them).  A change point lies after the
 * run before and at or before the run after: one run apart for a clear
 * step, more for a small one or a drift (at_run: the likeliest).  A
 * provisional one is a step in the newest runs that more runs would
 * confirm (or show to be an outlier).
 */
static int changes_document(struct doc *d, const void *ctx)
{
	const struct changes_view *v = ctx;
	const struct changes_result *r = v->res;
	int count = stats_metric_is_count(v->metric);
	struct doc_col cols[CC_N];
	struct doc_value *arr, *o;
	struct doc_table *t;
	struct doc_block *b;
	char commits[2 * CHANGES_COMMIT_CUT + 3], num[64], note[200];
	size_t i;
	int rc, short_history;

	memcpy(cols, changes_cols, sizeof(cols));
	if (count) {
		cols[CC_BEFORE].type = cols[CC_AFTER].type = DOC_COUNT;
	} else if (!strcmp(report_unit(v->metric), "seconds")) {
		cols[CC_BEFORE].flags |= DOC_SECONDS;
		cols[CC_AFTER].flags |= DOC_SECONDS;
	}
	b = doc_line(d, DOC_F_HUMAN);
	doc_spanf(d, b, DOC_RAW, "Change points of %s (%s) over %zu run%s and %zu region%s, %s:",
		  stats_metric_name(v->metric), report_unit(v->metric), r->series.nruns,
		  r->series.nruns == 1 ? "" : "s", r->series.nregions,
		  r->series.nregions == 1 ? "" : "s",
		  v->sort == CHANGES_SORT_PCT ? "largest first" : "newest first");
	doc_blank(d, DOC_F_HUMAN);
	rc = changes_branches_note(d, &r->series);
	if (rc)
		return rc;
	short_history = cli_no_change_points(note, sizeof(note), r->series.nruns, changes_commit,
					     &r->series, v->min_runs);
	doc_json_root(d, DOC_V_OBJ, JSONW_INLINE);
	doc_json_str(d, d->json, "metric", stats_metric_name(v->metric));
	doc_json_bool(d, d->json, "enough_history", !short_history);
	if (v->same->ncond || v->same->nskipped)
		report_same_doc(d, v->same);
	t = doc_table(d, DOC_F_HUMAN | DOC_F_CSV, cols, CC_N);
	doc_table_empty(t, note);
	arr = doc_json_arr(d, d->json, "changes", JSONW_BLOCK);
	for (i = 0; i < r->n; i++) {
		const struct changes_item *it = &r->items[i];
		unsigned mood = count ? 0 : it->cp.pct > 0 ? DOC_BAD : DOC_GOOD;

		doc_row(t);
		doc_set_text(t, CC_REGION, it->region);
		snprintf(num, sizeof(num), "%" PRId64 " -> %" PRId64, it->before->id,
			 it->after->id);
		doc_set_text(t, CC_RUNS, num);
		doc_set_text(t, CC_COMMITS, changes_commits(commits, sizeof(commits), it));
		doc_set_text(t, CC_RECORDED, it->after->time);
		doc_set_id(t, CC_BEFORE_RUN, it->before->id);
		doc_set_text(t, CC_BEFORE_COMMIT, it->before->commit);
		doc_set_text(t, CC_BEFORE_TIME, it->before->time);
		doc_set_num(t, CC_BEFORE, 0, it->cp.v_before);
		doc_set_id(t, CC_AFTER_RUN, it->after->id);
		doc_set_text(t, CC_AFTER_COMMIT, it->after->commit);
		doc_set_text(t, CC_AFTER_TIME, it->after->time);
		doc_set_num(t, CC_AFTER, 0, it->cp.v_after);
		doc_set_num(t, CC_PCT, 0, it->cp.pct);
		doc_set_flags(t, CC_PCT, mood);
		if (it->cp.p < 0.001)
			snprintf(num, sizeof(num), "<0.001");
		else
			snprintf(num, sizeof(num), "%.3f", it->cp.p);
		doc_set_text(t, CC_P_HUMAN, num);
		format_number(num, sizeof(num), it->cp.p, 0); /* as JSON writes it */
		doc_set_text(t, CC_P, num);
		doc_set_id(t, CC_RUNS_BEFORE, (int64_t)it->cp.runs_before);
		doc_set_id(t, CC_RUNS_AFTER, (int64_t)it->cp.runs_after);
		doc_set_id(t, CC_AT_RUN, it->at->id);
		doc_set_bool(t, CC_PROVISIONAL, it->cp.provisional);
		if (it->cp.provisional) {
			snprintf(num, sizeof(num), "provisional: %zu more run%s", it->cp.confirm,
				 it->cp.confirm == 1 ? "" : "s");
			doc_set_text(t, CC_STATUS, num);
			doc_set_id(t, CC_CONFIRM, (int64_t)it->cp.confirm);
		} else {
			doc_set_text(t, CC_STATUS, "confirmed");
		}
		o = doc_json_obj(d, arr, NULL, JSONW_INLINE);
		doc_json_str(d, o, "region", it->region);
		if (v->by_path) {
			char **names;
			size_t depth;

			if (util_path_split(it->region, &names, &depth))
				return err_nomem();
			doc_json_strs(d, o, "path", (const char *const *)names, depth,
				      JSONW_COMPACT);
			doc_json_int(d, o, "depth", (int64_t)depth);
			free(names);
		}
		changes_json_side(d, o, "before", it->before, it->cp.v_before, count);
		changes_json_side(d, o, "after", it->after, it->cp.v_after, count);
		doc_json_num(d, o, "pct", it->cp.pct, 0);
		doc_json_num(d, o, "p", it->cp.p, 0);
		doc_json_int(d, o, "runs_before", (int64_t)it->cp.runs_before);
		doc_json_int(d, o, "runs_after", (int64_t)it->cp.runs_after);
		doc_json_int(d, o, "at_run", it->at->id);
		doc_json_bool(d, o, "provisional", it->cp.provisional);
		if (it->cp.provisional)
			doc_json_int(d, o, "confirm_runs", (int64_t)it->cp.confirm);
		else
			doc_json_null(d, o, "confirm_runs");
	}
	return 0;
}

/* --sort KEY (enum changes_sort *). */
static int changes_opt_sort(const struct opt *opt, const char *arg)
{
	return changes_sort_parse(opt->value, arg);
}

/* store_region_history() filter: --include/--exclude. */
static int changes_filter(void *ctx, int *keep, const char *name)
{
	return match_name(keep, ctx, name);
}

const struct opt_cmd cmd_changes_usage = {
    .name = "changes",
    .after = "For every region, the runs in recorded order (runs of one commit count as one\n"
	     "point) are cut into segments of a steady level; a change point is where the\n"
	     "level moves by at least --min-change and a Mann-Whitney test between the two\n"
	     "segments is significant (p <= 0.01).  A single slow run and noise are not\n"
	     "change points; a slow drift is one.  Each row names the last run surely before\n"
	     "and the first run surely after (several runs apart when the change is small or\n"
	     "a drift), and the range of commits BEFORE..AFTER to bisect (commits nobody\n"
	     "measured may lie between two runs); 'before' and 'after' are the typical\n"
	     "(median) values of the two segments.  A step in the newest runs, too few yet\n"
	     "for the test (one or two; more after a short history), is provisional: the\n"
	     "status says how many more runs would confirm it (a step and an outlier look\n"
	     "alike until then).  See docs/statistics.md.",
    .summary = "find the runs where a region's metric changed level",
};

int cmd_changes(int argc, char **argv)
{
	const struct opt_cmd *self = &cmd_changes_usage;
	const char *db = NULL, *fmt = "table", *pattern;
	struct opt_list tags = OPT_LIST_INIT;
	struct cli_regions regions = CLI_REGIONS_INIT;
	struct changes_result res = {0};
	struct changepoint_opts co;
	struct changes_view v = {0};
	struct filter f = {0}, fs;
	struct filter_meta *conds = NULL;
	struct cli_same like = {0};
	struct same same = {0};
	struct match *m = NULL;
	struct store *st = NULL;
	struct buf out = BUF_INIT;
	double min_change = CHANGEPOINT_MIN_CHANGE * 100.0;
	int code = CLI_EXIT_ERROR, said = 0, rc, by_path = 0;
	const struct opt opts[] = {
	    OPT__DB(&db),
	    OPT__FILTER_BRANCH(&f.branch),
	    OPT__FILTER_TAG(&tags),
	    OPT__METRIC(&v.metric),
	    OPT__BY(&by_path),
	    OPT__REGIONS(&regions),
	    OPT__SINCE(f.since),
	    OPT__UNTIL(f.until, "only runs recorded at or before DATE"),
	    OPT__SAME(&like, "the newest selected run's"),
	    OPT__PERCENT("min-change", &min_change,
			 "smallest change of level reported, in percent (default 2)", 1),
	    OPT_CHOICE(0, "sort", &v.sort, "KEY",
		       "time (newest first, the default) or pct (largest first)", "time pct",
		       changes_opt_sort),
	    OPT__FORMAT_ALL(&fmt, "table markdown csv json"),
	    OPT__UNITS(),
	    OPT_END(),
	};

	v.metric = STATS_TOTAL;
	v.sort = CHANGES_SORT_TIME;
	if (opt_parse(self, opts, argc, argv, &code) < 0)
		goto out;
	f.tags = tags.v;
	f.ntags = tags.n;
	changepoint_opts_init(&co);
	co.min_change = min_change / 100.0;
	v.min_runs = 2 * co.min_segment; /* changepoint_find()'s fewest points */
	v.by_path = by_path;
	if (regions.include.n || regions.exclude.n) {
		if (match_new(&m, regions.include.v, regions.include.n, regions.exclude.v,
			      regions.exclude.n)) {
			code = cli_error();
			goto out;
		}
	}
	/* the first pattern, for the message */
	pattern = regions.include.n   ? regions.include.v[0]
		  : regions.exclude.n ? regions.exclude.v[0]
				      : NULL;
	v.same = &same;
	if (cli_same_spec(&like) || store_open(&st, cli_db_path(db), STORE_READONLY) ||
	    same_apply(&same, &fs, &conds, st, &f, &like.spec) ||
	    (by_path ? changes_find_paths(&res, st, &fs, m, pattern, v.metric, &co, v.sort)
		     : changes_find(&res, st, &fs, m ? changes_filter : NULL, m, pattern, v.metric,
				    &co, v.sort))) {
		code = cli_error();
		goto out;
	}
	v.res = &res;
	rc = cli_output(&out, changes_document, &v, fmt, 0);
	/* runs of another rank count or platform among those read: said to
	 * people (a check keeps them apart) */
	if (!rc && res.series.nruns &&
	    (cli_format_is(fmt, "table") || cli_format_is(fmt, "markdown"))) {
		int64_t *ids = calloc(res.series.nruns, sizeof(*ids));
		size_t i;

		for (i = 0; ids && i < res.series.nruns; i++)
			ids[i] = res.series.runs[i].id;
		rc = ids ? cli_same_note(st, &fs, ids, res.series.nruns) : err_nomem();
		free(ids);
	}
	if (rc) {
		code = cli_error();
		goto out;
	}
	/* a --tag or --branch no stored run has: said with the nearest one */
	if (res.series.nruns == 0 && hint_filter(&said, st, &f)) {
		code = cli_error();
		goto out;
	}
	if (res.series.nruns == 0 && !said &&
	    (cli_format_is(fmt, "table") || cli_format_is(fmt, "markdown")))
		fprintf(stderr, "scopedb: no run matches the filters\n");
	code = cli_write_stdout(out.data, out.len) ? cli_error() : cli_finish(CLI_EXIT_OK);
out:
	changes_result_release(&res);
	free(conds);
	same_release(&same);
	cli_same_release(&like);
	opt_list_release(&tags);
	cli_regions_release(&regions);
	match_free(m);
	store_close(st);
	buf_release(&out);
	return code;
}
