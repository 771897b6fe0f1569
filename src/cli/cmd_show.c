/*
 * cmd_show.c - "scopedb show RUN": the per-region summary of one stored run
 * (like scope-profiler's inspect): ranks, calls, total, avg, min, max, std,
 * p50, p95, p99, imbalance and, when the run has GPU data, gpu_total and
 * gpu_avg, pooled over the selected ranks.  The numbers come from
 * summary_run(), which uses the metric code of diff and check.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "cli/cli.h"
#include "scopedb/err.h"
#include "util/json.h"
#include "select/match.h"
#include "render/report.h"
#include "scopedb/select.h"
#include "scopedb/store.h"
#include "scopedb/summary.h"
#include "render/table.h"
#include "scopedb/util.h"

struct show_view {
	const struct store_run *run;
	const struct summary_row *rows;
	size_t nrows;
	const enum summary_col *cols;
	size_t ncols;
	const int64_t *ranks; /* NULL = all */
	size_t nranks;
};

/* "run 7 (label L, commit C, branch B, tags a,b, recorded T, 4 ranks,
 * columnar)". */
static int show_describe(struct buf *out, const struct store_run *r)
{
	size_t k;
	int rc = 0;

	rc |= buf_printf(out, "run %" PRId64 " (", r->id);
	if (r->label)
		rc |= buf_printf(out, "label %s, ", r->label);
	if (r->commit)
		rc |= buf_printf(out, "commit %.12s, ", r->commit);
	if (r->branch)
		rc |= buf_printf(out, "branch %s, ", r->branch);
	for (k = 0; k < r->ntags; k++)
		rc |= buf_printf(out, "%s%s%s", k ? "," : "tags ", r->tags[k],
				 k + 1 == r->ntags ? ", " : "");
	rc |= buf_printf(out, "recorded %s, %" PRId64 " rank%s, %s)",
			 r->recorded_at ? r->recorded_at : r->ingested_at, r->num_ranks,
			 r->num_ranks == 1 ? "" : "s", r->layout);
	return rc ? err_nomem() : 0;
}

static int show_table(const struct show_view *v, FILE *f)
{
	enum table_align align[SUMMARY_NCOLS];
	const char *header[SUMMARY_NCOLS], *cells[SUMMARY_NCOLS];
	char text[SUMMARY_NCOLS][64];
	struct buf head = BUF_INIT, line = BUF_INIT;
	struct table t;
	size_t i, c;
	int rc;

	memset(&t, 0, sizeof(t));
	rc = show_describe(&line, v->run);
	if (!rc)
		rc = buf_puts(&head, "Run: ") || report_plain(&head, line.data) ||
		     buf_putc(&head, '\n');
	if (!rc && v->ranks) {
		rc = buf_puts(&head, "Ranks: ") || match_ranks_format(&head, v->ranks, v->nranks) ||
		     buf_putc(&head, '\n');
	}
	if (rc) {
		rc = err_nomem();
		goto out;
	}
	fputs(head.data, f);
	if (v->nrows == 0) {
		fputs("\nNo regions selected.\n", f);
		goto out;
	}
	fputc('\n', f);
	for (c = 0; c < v->ncols; c++) {
		header[c] = summary_col_name(v->cols[c]);
		align[c] = v->cols[c] == SUMMARY_COL_REGION ? TABLE_LEFT : TABLE_RIGHT;
	}
	rc = table_init(&t, v->ncols, header, align);
	for (i = 0; i < v->nrows && !rc; i++) {
		for (c = 0; c < v->ncols; c++) {
			enum summary_col col = v->cols[c];

			if (col == SUMMARY_COL_REGION) {
				cells[c] = v->rows[i].name;
				continue;
			}
			report_fmt_value(text[c], sizeof(text[c]), v->rows[i].v[col],
					 summary_col_is_count(col));
			cells[c] = text[c];
		}
		rc = table_add_row(&t, cells);
	}
	if (!rc)
		rc = table_print(&t, f, 0);
out:
	table_release(&t);
	buf_release(&head);
	buf_release(&line);
	return rc;
}

static int show_markdown(struct buf *out, const struct show_view *v)
{
	struct buf line = BUF_INIT;
	char text[64];
	size_t i, c;
	int rc;

	rc = show_describe(&line, v->run);
	rc |= buf_puts(out, "- **Run:** ");
	rc |= report_md(out, line.data ? line.data : "");
	rc |= buf_putc(out, '\n');
	if (v->ranks) {
		rc |= buf_puts(out, "- **Ranks:** ");
		rc |= match_ranks_format(out, v->ranks, v->nranks);
		rc |= buf_putc(out, '\n');
	}
	rc |= buf_puts(out, "\n|");
	for (c = 0; c < v->ncols; c++)
		rc |= buf_printf(out, " %s |", summary_col_name(v->cols[c]));
	rc |= buf_puts(out, "\n|");
	for (c = 0; c < v->ncols; c++)
		rc |= buf_puts(out, v->cols[c] == SUMMARY_COL_REGION ? " :--- |" : " ---: |");
	rc |= buf_putc(out, '\n');
	for (i = 0; i < v->nrows; i++) {
		rc |= buf_putc(out, '|');
		for (c = 0; c < v->ncols; c++) {
			enum summary_col col = v->cols[c];

			rc |= buf_putc(out, ' ');
			if (col == SUMMARY_COL_REGION) {
				rc |= report_md(out, v->rows[i].name);
			} else {
				report_fmt_value(text, sizeof(text), v->rows[i].v[col],
						 summary_col_is_count(col));
				rc |= buf_puts(out, text);
			}
			rc |= buf_puts(out, " |");
		}
		rc |= buf_putc(out, '\n');
	}
	buf_release(&line);
	return rc ? err_nomem() : 0;
}

static int show_csv(struct buf *out, const struct show_view *v)
{
	char text[64];
	size_t i, c;
	int rc = 0;

	for (c = 0; c < v->ncols; c++)
		rc |= buf_printf(out, "%s%s", c ? "," : "", summary_col_name(v->cols[c]));
	rc |= buf_putc(out, '\n');
	for (i = 0; i < v->nrows; i++) {
		for (c = 0; c < v->ncols; c++) {
			enum summary_col col = v->cols[c];
			struct stats_val val = v->rows[i].v[col];

			if (c)
				rc |= buf_putc(out, ',');
			if (col == SUMMARY_COL_REGION) {
				rc |= report_csv_field(out, v->rows[i].name);
			} else if (!val.none) {
				report_fmt_number(text, sizeof(text), val.v,
						  summary_col_is_count(col));
				rc |= buf_puts(out, text);
			}
		}
		rc |= buf_putc(out, '\n');
	}
	return rc ? err_nomem() : 0;
}

static int show_json(struct buf *out, const struct show_view *v)
{
	const struct store_run *r = v->run;
	char text[64];
	size_t i, c;
	int rc = 0;

	rc |= buf_printf(out, "{\"run\": {\"id\": %" PRId64 ", \"path\": ", r->id);
	rc |= report_json_str(out, r->source_path);
	rc |= buf_puts(out, ", \"label\": ");
	rc |= report_json_str(out, r->label);
	rc |= buf_puts(out, ", \"commit\": ");
	rc |= report_json_str(out, r->commit);
	rc |= buf_puts(out, ", \"branch\": ");
	rc |= report_json_str(out, r->branch);
	rc |= buf_puts(out, ", \"tags\": ");
	rc |= json_buf_strarray(out, (const char *const *)r->tags, r->ntags);
	rc |= buf_puts(out, ", \"recorded_at\": ");
	rc |= report_json_str(out, r->recorded_at);
	rc |= buf_printf(out, ", \"num_ranks\": %" PRId64 ", \"layout\": ", r->num_ranks);
	rc |= report_json_str(out, r->layout);
	rc |= buf_puts(out, "}, \"ranks\": ");
	if (v->ranks) {
		rc |= buf_putc(out, '[');
		for (i = 0; i < v->nranks; i++)
			rc |= buf_printf(out, "%s%" PRId64, i ? ", " : "", v->ranks[i]);
		rc |= buf_putc(out, ']');
	} else {
		rc |= buf_puts(out, "null");
	}
	rc |= buf_puts(out, ", \"regions\": [");
	for (i = 0; i < v->nrows; i++) {
		rc |= buf_puts(out, i ? ",\n  {" : "\n  {");
		for (c = 0; c < v->ncols; c++) {
			enum summary_col col = v->cols[c];
			struct stats_val val = v->rows[i].v[col];

			if (c)
				rc |= buf_puts(out, ", ");
			if (col == SUMMARY_COL_REGION) {
				rc |= buf_puts(out, "\"name\": ");
				rc |= json_buf_string(out, v->rows[i].name);
				continue;
			}
			rc |= buf_printf(out, "\"%s\": ", summary_col_name(col));
			if (val.none) {
				rc |= buf_puts(out, "null");
			} else {
				report_fmt_number(text, sizeof(text), val.v,
						  summary_col_is_count(col));
				rc |= buf_puts(out, text);
			}
		}
		rc |= buf_putc(out, '}');
	}
	rc |= buf_puts(out, v->nrows ? "\n]}\n" : "]}\n");
	return rc ? err_nomem() : 0;
}

const struct opt_cmd cmd_show_usage = {
    .name = "show",
    .synopsis = "scopedb show RUN [--include P]... [--exclude P]... [--ranks SPEC]...\n"
		"                [--sort COLUMN|name] [--columns LIST] [--format FMT] [--db PATH]",
    .after = "Times in seconds, imbalance in percent, std is the population standard deviation;\n"
	     "gpu_total and gpu_avg are shown by default when the run has GPU data.",
    .summary = "show the per-region summary of one run",
    .max_args = 1,
};

/* --columns LIST: the parsed columns, and the text (NULL: not given). */
struct show_columns {
	enum summary_col v[SUMMARY_NCOLS];
	size_t n;
	const char *text;
};

static int show_opt_columns(const struct opt *opt, const char *arg)
{
	struct show_columns *c = opt->value;

	c->text = arg;
	return summary_parse_columns(c->v, &c->n, arg);
}

/* --sort COLUMN|name (enum summary_col *). */
static int show_opt_sort(const struct opt *opt, const char *arg)
{
	return summary_parse_sort(opt->value, arg);
}

int cmd_show(int argc, char **argv)
{
	const struct opt_cmd *self = &cmd_show_usage;
	struct opt_list inc = OPT_LIST_INIT, exc = OPT_LIST_INIT;
	const char *db = NULL;
	struct show_columns columns = {{SUMMARY_COL_REGION}, 0, NULL};
	enum cli_format fmt = CLI_FORMAT_TABLE;
	enum summary_col sort = SUMMARY_COL_TOTAL, *cols = columns.v;
	struct summary_opts so;
	struct summary_row *rows = NULL;
	struct select_spec sel;
	struct store_run run;
	struct store *st = NULL;
	struct show_view view;
	struct i64vec ranks;
	struct buf out = BUF_INIT;
	size_t nrows = 0, ncols, c;
	int64_t id = 0;
	int started = 0, code = CLI_EXIT_ERROR, nargs, rc;
	const struct opt opts[] = {
	    OPT__DB(&db),
	    OPT__INCLUDE(&inc),
	    OPT__EXCLUDE(&exc),
	    OPT__RANKS(&ranks),
	    OPT_CALLBACK(0, "sort", &sort, "COLUMN",
			 "name, or a column to sort by, largest first (default total)",
			 show_opt_sort, 0),
	    OPT_CALLBACK(0, "columns", &columns, "LIST",
			 "comma-separated columns among ranks calls total avg min max\n"
			 "std p50 p95 p99 imbalance gpu_total gpu_avg",
			 show_opt_columns, 0),
	    OPT__FORMAT(&fmt, "table markdown csv json"),
	    OPT_END(),
	};

	memset(&so, 0, sizeof(so));
	memset(&sel, 0, sizeof(sel));
	memset(&run, 0, sizeof(run));
	i64vec_init(&ranks);
	nargs = opt_parse(self, opts, argc, argv, &code);
	if (nargs < 0)
		goto out;
	if (nargs < 1) {
		code = opt_usage_error(self, opts, "show needs a run SELECTOR");
		goto out;
	}
	if (select_parse(&sel, argv[0])) {
		code = cli_error();
		goto out;
	}
	if (ranks.len) {
		match_ranks_finish(&ranks);
		so.ranks = ranks.v;
		so.nranks = ranks.len;
	}
	so.includes = inc.v;
	so.ninclude = inc.n;
	so.excludes = exc.v;
	so.nexclude = exc.n;
	ncols = columns.n;
	if (!columns.text) {
		for (c = 0; c < SUMMARY_NCOLS; c++)
			cols[ncols++] = (enum summary_col)c;
	}
	for (c = 0; c < ncols; c++)
		so.durations |= cols[c] == SUMMARY_COL_STD || cols[c] == SUMMARY_COL_P50 ||
				cols[c] == SUMMARY_COL_P95 || cols[c] == SUMMARY_COL_P99;
	so.durations |= sort == SUMMARY_COL_STD || sort == SUMMARY_COL_P50 ||
			sort == SUMMARY_COL_P95 || sort == SUMMARY_COL_P99;
	if (store_open(&st, cli_db_path(db), STORE_READONLY) || store_read_begin(st, &started) ||
	    store_resolve(st, &id, &sel) || store_get_run(st, &run, id) ||
	    summary_run(&rows, &nrows, st, id, &so)) {
		code = cli_error();
		goto out;
	}
	/* GPU columns by default only when the run has GPU data. */
	if (!columns.text && !summary_has_gpu(rows, nrows))
		ncols -= 2;
	summary_sort(rows, nrows, sort);
	memset(&view, 0, sizeof(view));
	view.run = &run;
	view.rows = rows;
	view.nrows = nrows;
	view.cols = cols;
	view.ncols = ncols;
	view.ranks = so.ranks;
	view.nranks = so.nranks;
	switch (fmt) {
	case CLI_FORMAT_JSON:
		rc = show_json(&out, &view);
		break;
	case CLI_FORMAT_CSV:
		rc = show_csv(&out, &view);
		break;
	case CLI_FORMAT_MARKDOWN:
		rc = show_markdown(&out, &view);
		break;
	default:
		rc = show_table(&view, stdout);
		break;
	}
	if (rc) {
		code = cli_error();
		goto out;
	}
	fwrite(out.data ? out.data : "", 1, out.len, stdout);
	code = cli_finish(CLI_EXIT_OK);
out:
	if (started)
		store_read_end(st);
	summary_free(rows, nrows);
	store_run_release(&run);
	select_release(&sel);
	store_close(st);
	buf_release(&out);
	i64vec_release(&ranks);
	opt_list_release(&inc);
	opt_list_release(&exc);
	return code;
}
