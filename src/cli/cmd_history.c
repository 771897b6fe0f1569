/*
 * cmd_history.c - "scopedb history REGION": one region's metric across the
 * stored runs, oldest first, with the change against the previous run; the
 * terminal table ends each row with a bar proportional to the value and
 * marks the largest step.  --match PATTERN follows every region the
 * pattern selects, one block per region.
 *
 * The data is one store query (store_region_history()); history_values()
 * turns it into values through metric_value() exactly as diff does, and
 * history_compute() does the steps.  The output is a document (doc.h).
 */
#include <getopt.h>
#include <inttypes.h>
#include <langinfo.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd.h"
#include "cli/cli.h"
#include "cli/output.h"
#include "scopedb/err.h"
#include "scopedb/filter.h"
#include "scopedb/history.h"
#include "select/match.h"
#include "render/report.h"
#include "scopedb/stats.h"
#include "scopedb/store.h"
#include "scopedb/util.h"

/* Width of the bars in cells. */
#define HISTORY_BAR_WIDTH 20

/* What every renderer needs. */
struct hist_ctx {
	enum stats_metric metric;
	int count; /* the metric is a count (calls) */
	int utf8;  /* block characters for bars */
	struct buf *out;
};

/* 1 when the terminal's character set (locale) is UTF-8. */
static int history_utf8(void)
{
	const char *cs;

	if (!setlocale(LC_CTYPE, ""))
		return 0;
	cs = nl_langinfo(CODESET);
	return cs && (!strcmp(cs, "UTF-8") || !strcmp(cs, "utf8"));
}

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
	HC_LARGEST,
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
    {NULL, "largest", "largest", DOC_BOOL, DOC_LEFT, 0, 0, 0},
};

/* A region's table: one row per run (the terminal adds a bar and marks the
 * largest change in a column; markdown in bold). */
static struct doc_table *history_table(struct doc *d, const struct hist_ctx *h,
				       const struct store_history_point *p,
				       const struct history_step *s, size_t n)
{
	struct doc_col cols[HC_N];
	struct doc_table *t;
	struct buf bar = BUF_INIT;
	double max = history_max(s, n);
	size_t i;

	memcpy(cols, history_cols, sizeof(cols));
	cols[HC_VALUE].title = stats_metric_name(h->metric);
	if (h->count) {
		cols[HC_VALUE].type = DOC_COUNT;
		cols[HC_DELTA].type = DOC_COUNT_DELTA;
	}
	t = doc_table(d, DOC_F_HUMAN | DOC_F_CSV, cols, HC_N);
	if (t)
		t->flags |= DOC_TABLE_TRIM;
	for (i = 0; i < n; i++) {
		bar.len = 0;
		if (buf_puts(&bar, "") ||
		    history_bar(&bar, s[i].v, max, HISTORY_BAR_WIDTH, h->utf8))
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
		doc_set_text(t, HC_MARK, s[i].largest ? "<- largest change" : "");
		doc_set_bool(t, HC_LARGEST, s[i].largest);
		if (s[i].largest) {
			doc_set_flags(t, HC_DELTA, DOC_STRONG);
			doc_set_flags(t, HC_PCT, DOC_STRONG);
			doc_set_note(t, HC_PCT, "largest change");
		}
	}
	buf_release(&bar);
	return t;
}

/* The end of the region whose points start at p[i] (grouped by region). */
static size_t history_group_end(const struct store_history_point *p, size_t n, size_t i)
{
	size_t j;

	for (j = i + 1; j < n && p[j].stats.region_id == p[i].stats.region_id; j++)
		;
	return j;
}

/* "NAME (metric, unit)" as b's text, the name escaped. */
static void history_title(struct doc *d, struct doc_block *b, const struct hist_ctx *h,
			  const char *name)
{
	doc_span(d, b, name, 0);
	doc_spanf(d, b, DOC_RAW, " (%s, %s)", stats_metric_name(h->metric), report_unit(h->metric));
}

/*
 * The document of history: per region a heading and its table (CSV: one
 * table over all regions); JSON {"metric", "regions": [{"name", "runs"}]}.
 * The points are grouped by region.
 */
static void history_document(struct doc *d, const struct hist_ctx *h,
			     const struct store_history_point *p, const struct history_step *s,
			     size_t n)
{
	struct doc_value *regions, *r;
	struct doc_table *t;
	size_t i, j;

	doc_json_root(d, DOC_V_OBJ, JSONW_INLINE);
	doc_json_str(d, d->json, "metric", stats_metric_name(h->metric));
	regions = doc_json_arr(d, d->json, "regions", JSONW_BLOCK);
	for (i = 0; i < n; i = j) {
		j = history_group_end(p, n, i);
		if (i)
			doc_blank(d, DOC_F_HUMAN);
		history_title(d, doc_field(d, DOC_F_TEXT, "Region"), h, p[i].stats.name);
		history_title(d, doc_heading(d, DOC_F_MD, 3), h, p[i].stats.name);
		doc_blank(d, DOC_F_HUMAN);
		t = history_table(d, h, p + i, s + i, j - i);
		r = doc_json_obj(d, regions, NULL, JSONW_INLINE);
		doc_json_str(d, r, "name", p[i].stats.name);
		doc_json_table(d, r, "runs", t);
	}
	if (n == 0) /* the CSV header alone */
		doc_table(d, DOC_F_CSV, history_cols, HC_N);
}

/* The values and steps of every region (grouped points) into s. */
static int history_series(struct history_step *s, const struct store_history_point *p, size_t n,
			  enum stats_metric m)
{
	size_t i, j, largest;
	int rc = 0;

	for (i = 0; i < n && !rc; i = j) {
		j = history_group_end(p, n, i);
		rc = history_values(s + i, p + i, j - i, m);
		if (!rc)
			history_compute(s + i, j - i, &largest);
	}
	return rc;
}

struct history_view {
	const struct hist_ctx *h;
	const struct store_history_point *p;
	struct history_step *s; /* filled here */
	size_t n;
};

/* history's document (ctx: a struct history_view), once the values and
 * steps of every region are computed. */
static int history_build(struct doc *d, const void *ctx)
{
	const struct history_view *v = ctx;
	int rc = history_series(v->s, v->p, v->n, v->h->metric);

	if (!rc)
		history_document(d, v->h, v->p, v->s, v->n);
	return rc;
}

/* store_region_history() filter: the --match pattern. */
static int history_filter(void *ctx, int *keep, const char *name)
{
	return match_name(keep, ctx, name);
}

int cmd_history(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"db", required_argument, NULL, 'd'},     {"metric", required_argument, NULL, 'm'},
	    {"match", required_argument, NULL, 'M'},  {"tag", required_argument, NULL, 't'},
	    {"branch", required_argument, NULL, 'b'}, {"since", required_argument, NULL, 'S'},
	    {"until", required_argument, NULL, 'U'},  {"limit", required_argument, NULL, 'n'},
	    {"ranks", required_argument, NULL, 'r'},  {"format", required_argument, NULL, 'f'},
	    {"help", no_argument, NULL, 'h'},	      {NULL, 0, NULL, 0},
	};
	const struct cmd *self = cmd_find("history");
	const char **tags = NULL, *db = NULL, *pattern = NULL;
	enum cli_format fmt = CLI_FORMAT_TABLE;
	struct store_history_point *pts = NULL;
	struct store_history_query q;
	struct history_step *steps = NULL;
	struct filter f;
	struct hist_ctx h;
	struct match *m = NULL;
	struct store *st = NULL;
	struct i64vec ranks;
	struct buf out = BUF_INIT;
	size_t n = 0;
	long limit;
	int have_ranks = 0, code = CLI_EXIT_ERROR, o, rc;

	memset(&q, 0, sizeof(q));
	memset(&f, 0, sizeof(f));
	memset(&h, 0, sizeof(h));
	h.metric = STATS_TOTAL;
	h.out = &out;
	i64vec_init(&ranks);
	tags = calloc((size_t)argc, sizeof(*tags));
	if (!tags) {
		err_nomem();
		code = cli_error();
		goto out;
	}
	opterr = 0;
	while ((o = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		rc = 0;
		switch (o) {
		case 'd':
			db = optarg;
			break;
		case 'm':
			rc = stats_metric_parse(&h.metric, optarg);
			break;
		case 'M':
			pattern = optarg;
			break;
		case 't':
			tags[f.ntags++] = optarg;
			break;
		case 'b':
			f.branch = optarg;
			break;
		case 'S':
			rc = filter_parse_date(f.since, sizeof(f.since), "--since", optarg,
					       (int64_t)time(NULL));
			break;
		case 'U':
			rc = filter_parse_date(f.until, sizeof(f.until), "--until", optarg,
					       (int64_t)time(NULL));
			break;
		case 'n':
			rc = cli_parse_count(&limit, "--limit", optarg);
			f.limit = limit;
			break;
		case 'r':
			rc = match_ranks_parse(&ranks, optarg);
			have_ranks = 1;
			break;
		case 'f':
			rc = cli_parse_format(&fmt, optarg,
					      CLI_FORMAT_TABLE | CLI_FORMAT_MARKDOWN |
						  CLI_FORMAT_CSV | CLI_FORMAT_JSON);
			break;
		case 'h':
			cmd_print_help(self);
			code = cli_finish(CLI_EXIT_OK);
			goto out;
		default:
			code = cli_bad_option(self->usage, o, argv, optind);
			goto out;
		}
		if (rc) {
			code = cli_error();
			goto out;
		}
	}
	if (argc - optind > (pattern ? 0 : 1)) {
		code = cli_usage_error(self->usage, "unexpected argument '%s'",
				       argv[optind + (pattern ? 0 : 1)]);
		goto out;
	}
	if (!pattern && argc - optind < 1) {
		code = cli_usage_error(self->usage,
				       "history needs a REGION name (or --match PATTERN)");
		goto out;
	}
	f.tags = tags;
	if (pattern) {
		if (match_new(&m, &pattern, 1, NULL, 0)) {
			code = cli_error();
			goto out;
		}
		q.filter = history_filter;
		q.ctx = m;
		q.pattern = pattern;
	} else {
		q.region = argv[optind];
	}
	if (have_ranks) {
		match_ranks_finish(&ranks);
		q.ranks = ranks.v;
		q.nranks = ranks.len;
	}
	q.runs = &f;
	q.durations = stats_metric_quantile(h.metric) > 0.0;
	h.count = stats_metric_is_count(h.metric);
	h.utf8 = fmt == CLI_FORMAT_TABLE && history_utf8();
	if (store_open(&st, cli_db_path(db), STORE_READONLY) ||
	    store_region_history(st, &pts, &n, &q)) {
		code = cli_error();
		goto out;
	}
	steps = calloc(n ? n : 1, sizeof(*steps));
	if (!steps) {
		err_nomem();
		code = cli_error();
		goto out;
	}
	{
		const struct history_view v = {&h, pts, steps, n};

		rc = cli_output(h.out, history_build, &v, fmt, 0);
	}
	if (rc) {
		code = cli_error();
		goto out;
	}
	if (n == 0 && (fmt == CLI_FORMAT_TABLE || fmt == CLI_FORMAT_MARKDOWN))
		fprintf(stderr, "scopedb: no selected run has %s '%s'\n",
			pattern ? "a region matching" : "region", pattern ? pattern : q.region);
	fwrite(out.data ? out.data : "", 1, out.len, stdout);
	code = cli_finish(CLI_EXIT_OK);
out:
	store_history_free(pts, n);
	free(steps);
	free(tags);
	match_free(m);
	store_close(st);
	buf_release(&out);
	i64vec_release(&ranks);
	return code;
}
