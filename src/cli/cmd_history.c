/*
 * cmd_history.c - "scopedb history REGION": one region's metric across the
 * stored runs, oldest first, with the change against the previous run; the
 * terminal table ends each row with a bar proportional to the value and
 * marks the largest step.  --match PATTERN follows every region the
 * pattern selects, one block per region.
 *
 * The data is one store query (store_region_history()); values go through
 * stats_region_value() exactly as in diff, and history_compute() does the
 * steps.
 */
#include <inttypes.h>
#include <langinfo.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "cli/cli.h"
#include "scopedb/err.h"
#include "scopedb/filter.h"
#include "scopedb/history.h"
#include "util/json.h"
#include "select/match.h"
#include "render/report.h"
#include "scopedb/stats.h"
#include "scopedb/store.h"
#include "render/table.h"
#include "scopedb/util.h"

/* Width of the bars in cells. */
#define HISTORY_BAR_WIDTH 20

/* What every renderer needs. */
struct hist_ctx {
	enum stats_metric metric;
	int count; /* the metric is a count (calls) */
	int utf8;  /* block characters for bars */
	struct buf *out;
	size_t blocks; /* regions printed so far */
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

/* Unit of a metric, for headers. */
static const char *history_unit(enum stats_metric m)
{
	return m == STATS_CALLS ? "calls" : m == STATS_IMBALANCE ? "percent" : "seconds";
}

/* The three formatted numbers of a step (table and markdown). */
static void history_cells(const struct hist_ctx *h, const struct history_step *s, char *v, char *d,
			  char *p, size_t len)
{
	report_fmt_value(v, len, s->v, h->count);
	if (s->delta.none)
		snprintf(d, len, "-");
	else
		report_fmt_delta(d, len, s->delta.v, h->count);
	report_fmt_pct(p, len, s->pct);
}

static int history_table(struct hist_ctx *h, const struct store_history_point *p,
			 const struct history_step *s, size_t n)
{
	static const enum table_align align[] = {TABLE_RIGHT, TABLE_LEFT,  TABLE_LEFT,
						 TABLE_LEFT,  TABLE_RIGHT, TABLE_RIGHT,
						 TABLE_RIGHT, TABLE_LEFT,  TABLE_LEFT};
	const char *header[] = {"run",	  "recorded", "commit", "label", NULL,
				"change", "change %", "",	""};
	double max = history_max(s, n);
	struct table t;
	struct buf bar = BUF_INIT;
	char *text = NULL;
	size_t i, tlen = 0;
	FILE *mem = NULL;
	int rc = 0;

	memset(&t, 0, sizeof(t));
	header[4] = stats_metric_name(h->metric);
	rc |= buf_puts(h->out, h->blocks++ ? "\nRegion: " : "Region: ");
	rc |= report_plain(h->out, p[0].stats.name);
	rc |= buf_printf(h->out, " (%s, %s)\n\n", stats_metric_name(h->metric),
			 history_unit(h->metric));
	if (rc)
		return err_nomem();
	rc = table_init(&t, 9, header, align);
	for (i = 0; i < n && !rc; i++) {
		char id[24], commit[16], v[64], d[64], pc[64];
		const char *cells[9];

		snprintf(id, sizeof(id), "%" PRId64, p[i].run_id);
		snprintf(commit, sizeof(commit), "%.12s", p[i].commit ? p[i].commit : "-");
		history_cells(h, &s[i], v, d, pc, sizeof(v));
		bar.len = 0;
		rc = buf_puts(&bar, "");
		if (!rc)
			rc = history_bar(&bar, s[i].v, max, HISTORY_BAR_WIDTH, h->utf8);
		cells[0] = id;
		cells[1] = p[i].time;
		cells[2] = commit;
		cells[3] = p[i].label ? p[i].label : "-";
		cells[4] = v;
		cells[5] = d;
		cells[6] = pc;
		cells[7] = bar.data;
		cells[8] = s[i].largest ? "<- largest change" : "";
		if (!rc)
			rc = table_add_row(&t, cells);
	}
	/* table.h prints to a FILE: render into memory. */
	if (!rc) {
		mem = open_memstream(&text, &tlen);
		if (!mem)
			rc = err_nomem();
	}
	if (!rc)
		rc = table_print(&t, mem, 0);
	if (mem && fclose(mem) && !rc)
		rc = err_nomem();
	if (!rc) {
		/* Drop the padding the empty last columns leave at line ends. */
		char *line = text, *nl;

		while (!rc && line && *line) {
			size_t k;

			nl = strchr(line, '\n');
			k = nl ? (size_t)(nl - line) : strlen(line);
			while (k > 0 && line[k - 1] == ' ')
				k--;
			rc = buf_add(h->out, line, k) || buf_putc(h->out, '\n');
			line = nl ? nl + 1 : NULL;
		}
		if (rc)
			rc = err_nomem();
	}
	free(text);
	buf_release(&bar);
	table_release(&t);
	return rc;
}

static int history_markdown(struct hist_ctx *h, const struct store_history_point *p,
			    const struct history_step *s, size_t n)
{
	size_t i;
	int rc = 0;

	rc |= buf_puts(h->out, h->blocks++ ? "\n### " : "### ");
	rc |= report_md(h->out, p[0].stats.name);
	rc |= buf_printf(
	    h->out,
	    " (%s, %s)\n\n| run | recorded | commit | label | %s | change | change %% |\n"
	    "| ---: | :--- | :--- | :--- | ---: | ---: | ---: |\n",
	    stats_metric_name(h->metric), history_unit(h->metric), stats_metric_name(h->metric));
	for (i = 0; i < n; i++) {
		char v[64], d[64], pc[64];

		history_cells(h, &s[i], v, d, pc, sizeof(v));
		rc |= buf_printf(h->out, "| %" PRId64 " | %s | ", p[i].run_id, p[i].time);
		rc |=
		    p[i].commit ? buf_printf(h->out, "%.12s", p[i].commit) : buf_puts(h->out, "-");
		rc |= buf_puts(h->out, " | ");
		rc |= report_md(h->out, p[i].label ? p[i].label : "-");
		if (s[i].largest)
			rc |= buf_printf(h->out, " | %s | **%s** | **%s** (largest change) |\n", v,
					 d, pc);
		else
			rc |= buf_printf(h->out, " | %s | %s | %s |\n", v, d, pc);
	}
	return rc ? err_nomem() : 0;
}

/* A number for CSV/JSON: unrounded, or none_text for None. */
static int history_num(struct buf *out, struct stats_val v, int count, const char *none_text)
{
	char s[64];

	if (v.none)
		return buf_puts(out, none_text);
	report_fmt_number(s, sizeof(s), v.v, count);
	return buf_puts(out, s);
}

static int history_csv(struct hist_ctx *h, const struct store_history_point *p,
		       const struct history_step *s, size_t n)
{
	size_t i;
	int rc = 0;

	if (h->blocks++ == 0)
		rc |= buf_puts(h->out,
			       "region,run,recorded_at,commit,label,value,delta,pct,largest\n");
	for (i = 0; i < n; i++) {
		rc |= report_csv_field(h->out, p[i].stats.name);
		rc |= buf_printf(h->out, ",%" PRId64 ",%s,", p[i].run_id, p[i].time);
		rc |= report_csv_field(h->out, p[i].commit);
		rc |= buf_putc(h->out, ',');
		rc |= report_csv_field(h->out, p[i].label);
		rc |= buf_putc(h->out, ',');
		rc |= history_num(h->out, s[i].v, h->count, "");
		rc |= buf_putc(h->out, ',');
		rc |= history_num(h->out, s[i].delta, h->count, "");
		rc |= buf_putc(h->out, ',');
		rc |= history_num(h->out, s[i].pct, 0, "");
		rc |= buf_printf(h->out, ",%d\n", s[i].largest);
	}
	return rc ? err_nomem() : 0;
}

static int history_json(struct hist_ctx *h, const struct store_history_point *p,
			const struct history_step *s, size_t n)
{
	size_t i;
	int rc = 0;

	rc |= buf_puts(h->out, h->blocks++ ? ",\n  {\"name\": " : "\n  {\"name\": ");
	rc |= json_buf_string(h->out, p[0].stats.name);
	rc |= buf_puts(h->out, ", \"runs\": [");
	for (i = 0; i < n; i++) {
		rc |= buf_printf(h->out,
				 "%s\n    {\"id\": %" PRId64 ", \"recorded_at\": ", i ? "," : "",
				 p[i].run_id);
		rc |= report_json_str(h->out, p[i].time);
		rc |= buf_puts(h->out, ", \"commit\": ");
		rc |= report_json_str(h->out, p[i].commit);
		rc |= buf_puts(h->out, ", \"label\": ");
		rc |= report_json_str(h->out, p[i].label);
		rc |= buf_puts(h->out, ", \"value\": ");
		rc |= history_num(h->out, s[i].v, h->count, "null");
		rc |= buf_puts(h->out, ", \"delta\": ");
		rc |= history_num(h->out, s[i].delta, h->count, "null");
		rc |= buf_puts(h->out, ", \"pct\": ");
		rc |= history_num(h->out, s[i].pct, 0, "null");
		rc |= buf_printf(h->out, ", \"largest\": %s}", s[i].largest ? "true" : "false");
	}
	rc |= buf_puts(h->out, n ? "\n  ]}" : "]}");
	return rc ? err_nomem() : 0;
}

/* The metric values of points p[0..n) (one region) into s. */
static int history_values(struct history_step *s, const struct store_history_point *p, size_t n,
			  enum stats_metric m)
{
	size_t i;
	int rc;

	for (i = 0; i < n; i++) {
		const struct store_region_stats *g = &p[i].stats;
		struct stats_region r;

		memset(&r, 0, sizeof(r));
		r.calls = g->calls;
		r.total = g->total;
		r.min = g->min;
		r.max = g->max;
		r.has_events = g->has_events;
		r.gpu_count = g->gpu_count;
		r.gpu_total = g->gpu_total;
		r.busy_ranks = g->busy_ranks;
		r.busy_max = g->busy_max;
		r.sorted = p[i].durations.v;
		r.nsorted = p[i].durations.len;
		if (g->has_quantiles)
			r.quantiles = g->quantiles;
		else if (stats_metric_quantile(m) > 0.0 && g->has_events && g->calls > 0 &&
			 r.nsorted != g->calls)
			return err_set(ERR_STORE,
				       "store is inconsistent: region '%s' of run %lld has %llu "
				       "calls but %zu stored durations",
				       g->name, (long long)p[i].run_id,
				       (unsigned long long)g->calls, r.nsorted);
		rc = stats_region_value(&s[i].v, &r, m);
		if (rc)
			return rc;
	}
	return 0;
}

/* store_region_history() filter: the --match pattern. */
static int history_filter(void *ctx, int *keep, const char *name)
{
	return match_name(keep, ctx, name);
}

const struct opt_cmd cmd_history_usage = {
    .name = "history",
    .synopsis =
	"scopedb history REGION [--metric M] [--tag T]... [--branch B] [--since DATE]\n"
	"                [--until DATE] [--limit N] [--ranks SPEC]... [--format FMT] [--db PATH]\n"
	"       scopedb history --match PATTERN [options]",
    .after = "One row per run, oldest first: run, recorded time, commit, label, the metric and\n"
	     "its change against the previous run; the table marks the largest change.",
    .summary = "follow one region's metric across runs",
    .max_args = OPT_ARGS_ANY,
};

int cmd_history(int argc, char **argv)
{
	const struct opt_cmd *self = &cmd_history_usage;
	const char *db = NULL, *pattern = NULL;
	struct opt_list tags = OPT_LIST_INIT;
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
	size_t n = 0, i, j, largest;
	long limit = 0;
	int code = CLI_EXIT_ERROR, nargs, rc;
	const struct opt opts[] = {
	    OPT__DB(&db),
	    OPT__METRIC(&h.metric),
	    OPT_STRING(0, "match", &pattern, "P",
		       "every region matching the Python regex P at the start of its\n"
		       "name, one block per region (instead of REGION)"),
	    OPT__FILTER_TAG(&tags),
	    OPT__FILTER_BRANCH(&f.branch),
	    OPT__SINCE(f.since),
	    OPT__UNTIL(f.until, "only runs recorded at or before DATE"),
	    OPT_COUNT(0, "limit", &limit, "N", "only the newest N runs that have the region"),
	    OPT__RANKS(&ranks),
	    OPT__FORMAT(&fmt, "table markdown csv json"),
	    OPT_END(),
	};

	memset(&q, 0, sizeof(q));
	memset(&f, 0, sizeof(f));
	memset(&h, 0, sizeof(h));
	h.metric = STATS_TOTAL;
	h.out = &out;
	i64vec_init(&ranks);
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
	f.limit = limit;
	if (pattern) {
		if (match_new(&m, &pattern, 1, NULL, 0)) {
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
	if (fmt == CLI_FORMAT_JSON)
		rc = buf_printf(&out, "{\"metric\": \"%s\", \"regions\": [",
				stats_metric_name(h.metric));
	else
		rc = buf_puts(&out, "");
	/* One block per region: the points are grouped by region name. */
	for (i = 0; i < n && !rc; i = j) {
		for (j = i + 1; j < n && pts[j].stats.region_id == pts[i].stats.region_id; j++)
			;
		rc = history_values(steps + i, pts + i, j - i, h.metric);
		if (rc)
			break;
		history_compute(steps + i, j - i, &largest);
		switch (fmt) {
		case CLI_FORMAT_JSON:
			rc = history_json(&h, pts + i, steps + i, j - i);
			break;
		case CLI_FORMAT_CSV:
			rc = history_csv(&h, pts + i, steps + i, j - i);
			break;
		case CLI_FORMAT_MARKDOWN:
			rc = history_markdown(&h, pts + i, steps + i, j - i);
			break;
		default:
			rc = history_table(&h, pts + i, steps + i, j - i);
			break;
		}
	}
	if (!rc && fmt == CLI_FORMAT_JSON)
		rc = buf_puts(&out, n ? "\n]}\n" : "]}\n") ? err_nomem() : 0;
	if (!rc && fmt == CLI_FORMAT_CSV && n == 0)
		rc = buf_puts(&out, "region,run,recorded_at,commit,label,value,delta,pct,largest\n")
			 ? err_nomem()
			 : 0;
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
	opt_list_release(&tags);
	match_free(m);
	store_close(st);
	buf_release(&out);
	i64vec_release(&ranks);
	return code;
}
