/*
 * cmd_runs.c - "scopedb runs": list the stored runs, newest first, filtered
 * by tag, branch, commit prefix, label, recorded time and metadata (one
 * store query, store_find_runs()), as an
 * aligned table or a JSON array.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "cli/cli.h"
#include "render/report.h"
#include "scopedb/err.h"
#include "scopedb/filter.h"
#include "util/json.h"
#include "scopedb/store.h"
#include "render/table.h"
#include "scopedb/util.h"

static int runs_json(struct buf *out, const struct store_run *runs, size_t n)
{
	size_t i, k;
	int rc = buf_puts(out, "[");

	for (i = 0; i < n && !rc; i++) {
		const struct store_run *r = &runs[i];

		rc |= buf_printf(out, "%s\n  {\"id\": %" PRId64 ", \"recorded_at\": ", i ? "," : "",
				 r->id);
		rc |= report_json_str(out, r->recorded_at);
		rc |= buf_puts(out, ", \"ingested_at\": ");
		rc |= report_json_str(out, r->ingested_at);
		rc |= buf_puts(out, ", \"label\": ");
		rc |= report_json_str(out, r->label);
		rc |= buf_puts(out, ", \"commit\": ");
		rc |= report_json_str(out, r->commit);
		rc |= buf_puts(out, ", \"branch\": ");
		rc |= report_json_str(out, r->branch);
		rc |= buf_puts(out, ", \"tags\": [");
		for (k = 0; k < r->ntags; k++) {
			rc |= buf_puts(out, k ? ", " : "");
			rc |= json_buf_string(out, r->tags[k]);
		}
		rc |= buf_printf(out,
				 "], \"num_ranks\": %" PRId64 ", \"num_regions\": %" PRId64
				 ", \"num_calls\": %" PRId64 ", \"schema\": %d, \"layout\": ",
				 r->num_ranks, r->num_regions, r->num_calls, r->schema);
		rc |= report_json_str(out, r->layout);
		rc |= buf_puts(out, ", \"path\": ");
		rc |= report_json_str(out, r->source_path);
		rc |= buf_puts(out, ", \"sha256\": ");
		rc |= report_json_str(out, r->sha256);
		rc |= buf_puts(out, "}");
	}
	rc |= buf_puts(out, n ? "\n]\n" : "]\n");
	return rc ? ERR_NOMEM : 0;
}

static int runs_table(const struct store_run *runs, size_t n)
{
	static const char *const header[] = {"id",   "recorded", "label",   "commit", "branch",
					     "tags", "ranks",	 "regions", "source"};
	static const enum table_align align[] = {TABLE_RIGHT, TABLE_LEFT,  TABLE_LEFT,
						 TABLE_LEFT,  TABLE_LEFT,  TABLE_LEFT,
						 TABLE_RIGHT, TABLE_RIGHT, TABLE_LEFT};
	struct table t;
	size_t i, k;
	int rc;

	rc = table_init(&t, 9, header, align);
	for (i = 0; i < n && !rc; i++) {
		const struct store_run *r = &runs[i];
		char id[24], ranks[24], regions[24], commit[13] = "";
		struct buf tags = BUF_INIT;
		const char *cells[9];

		snprintf(id, sizeof(id), "%" PRId64, r->id);
		snprintf(ranks, sizeof(ranks), "%" PRId64, r->num_ranks);
		snprintf(regions, sizeof(regions), "%" PRId64, r->num_regions);
		if (r->commit)
			snprintf(commit, sizeof(commit), "%s", r->commit);
		for (k = 0; k < r->ntags; k++)
			rc |= buf_printf(&tags, "%s%s", k ? "," : "", r->tags[k]);
		cells[0] = id;
		cells[1] = r->recorded_at ? r->recorded_at : r->ingested_at;
		cells[2] = r->label ? r->label : "-";
		cells[3] = r->commit ? commit : "-";
		cells[4] = r->branch ? r->branch : "-";
		cells[5] = tags.len ? tags.data : "-";
		cells[6] = ranks;
		cells[7] = regions;
		cells[8] = r->source_path;
		if (!rc)
			rc = table_add_row(&t, cells);
		buf_release(&tags);
	}
	if (!rc)
		rc = table_print(&t, stdout, 0);
	table_release(&t);
	return rc;
}

/* CSV: one line per run; tags joined by ';'. */
static int runs_csv(struct buf *out, const struct store_run *runs, size_t n)
{
	size_t i, k;
	int rc = buf_puts(out, "id,recorded_at,ingested_at,label,commit,branch,tags,ranks,regions,"
			       "calls,path\n");

	for (i = 0; i < n && !rc; i++) {
		const struct store_run *r = &runs[i];
		struct buf tags = BUF_INIT;

		for (k = 0; k < r->ntags; k++)
			rc |= buf_printf(&tags, "%s%s", k ? ";" : "", r->tags[k]);
		rc |= buf_printf(out, "%" PRId64 ",", r->id);
		rc |= report_csv_field(out, r->recorded_at);
		rc |= buf_putc(out, ',');
		rc |= report_csv_field(out, r->ingested_at);
		rc |= buf_putc(out, ',');
		rc |= report_csv_field(out, r->label);
		rc |= buf_putc(out, ',');
		rc |= report_csv_field(out, r->commit);
		rc |= buf_putc(out, ',');
		rc |= report_csv_field(out, r->branch);
		rc |= buf_putc(out, ',');
		rc |= report_csv_field(out, tags.data);
		rc |= buf_printf(out, ",%" PRId64 ",%" PRId64 ",%" PRId64 ",", r->num_ranks,
				 r->num_regions, r->num_calls);
		rc |= report_csv_field(out, r->source_path);
		rc |= buf_putc(out, '\n');
		buf_release(&tags);
	}
	return rc ? err_nomem() : 0;
}

/* 1 when f restricts the listing at all. */
static int runs_filtered(const struct filter *f)
{
	return f->ntags || f->branch || f->commit || f->label || f->since[0] || f->until[0] ||
	       f->nmeta || f->limit;
}

const struct opt_cmd cmd_runs_usage = {
    .name = "runs",
    .synopsis =
	"scopedb runs [--tag T]... [--branch B] [--commit PREFIX] [--label L] [--since DATE]\n"
	"                [--until DATE] [--meta KEY=VALUE]... [--limit N] [--format FMT]\n"
	"                [--db PATH]",
    .summary = "list the stored runs, newest first",
    .max_args = 0,
};

/* The --meta KEY=VALUE conditions (arrays of argc entries). */
struct runs_meta {
	struct filter_meta *v;
	char **copies; /* what filter_parse_meta() allocated */
	size_t n;
};

static int runs_opt_meta(const struct opt *opt, const char *arg)
{
	struct runs_meta *m = opt->value;
	int rc = filter_parse_meta(&m->v[m->n], &m->copies[m->n], arg);

	if (!rc)
		m->n++;
	return rc;
}

int cmd_runs(int argc, char **argv)
{
	const struct opt_cmd *self = &cmd_runs_usage;
	enum cli_format fmt = CLI_FORMAT_TABLE;
	struct store_run *runs = NULL;
	struct store *st = NULL;
	struct buf json = BUF_INIT;
	struct filter f;
	struct opt_list tags = OPT_LIST_INIT;
	struct runs_meta meta = {NULL, NULL, 0};
	const char *db = NULL;
	size_t n = 0, i;
	long limit = 0;
	int code = CLI_EXIT_ERROR;
	const struct opt opts[] = {
	    OPT__DB(&db),
	    OPT__FILTER_TAG(&tags),
	    OPT__FILTER_BRANCH(&f.branch),
	    OPT_STRING(0, "commit", &f.commit, "PREFIX",
		       "only runs whose commit starts with PREFIX"),
	    OPT_STRING(0, "label", &f.label, "L", "only runs labelled L"),
	    OPT__SINCE(f.since),
	    OPT__UNTIL(f.until, "only runs recorded at or before DATE (a bare date includes\n"
				"that whole day)"),
	    OPT_CALLBACK(0, "meta", &meta, "KEY=VALUE",
			 "only runs whose metadata KEY is VALUE (repeatable)", runs_opt_meta, 0),
	    OPT_COUNT(0, "limit", &limit, "N", "only the newest N matching runs"),
	    OPT__FORMAT(&fmt, "table json csv"),
	    OPT_END(),
	};

	memset(&f, 0, sizeof(f));
	meta.v = calloc((size_t)argc, sizeof(*meta.v));
	meta.copies = calloc((size_t)argc, sizeof(*meta.copies));
	if (!meta.v || !meta.copies) {
		err_nomem();
		code = cli_error();
		goto out;
	}
	if (opt_parse(self, opts, argc, argv, &code) < 0)
		goto out;
	f.tags = tags.v;
	f.ntags = tags.n;
	f.meta = meta.v;
	f.nmeta = meta.n;
	f.limit = limit;
	if (store_open(&st, cli_db_path(db), STORE_READONLY) ||
	    store_find_runs(st, &runs, &n, &f)) {
		code = cli_error();
		goto out;
	}
	if (fmt == CLI_FORMAT_JSON || fmt == CLI_FORMAT_CSV) {
		if (fmt == CLI_FORMAT_JSON ? runs_json(&json, runs, n) : runs_csv(&json, runs, n)) {
			code = cli_error();
			goto out;
		}
		fputs(json.data, stdout);
	} else if (n == 0) {
		if (runs_filtered(&f))
			fprintf(stderr, "scopedb: no run matches the filters\n");
		else
			fprintf(stderr, "scopedb: no runs stored in '%s'\n", cli_db_path(db));
	} else if (runs_table(runs, n)) {
		code = cli_error();
		goto out;
	}
	code = cli_finish(CLI_EXIT_OK);
out:
	store_runs_free(runs, n);
	store_close(st);
	buf_release(&json);
	for (i = 0; meta.copies && i < meta.n; i++)
		free(meta.copies[i]);
	free(meta.copies);
	free(meta.v);
	opt_list_release(&tags);
	return code;
}
