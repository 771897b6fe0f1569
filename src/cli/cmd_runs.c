/*
 * cmd_runs.c - "scopedb runs": list the stored runs, newest first, filtered
 * by tag, branch, commit prefix, label, recorded time and metadata (one
 * store query, store_find_runs()), as an
 * aligned table or a JSON array.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

int cmd_runs(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"db", required_argument, NULL, 'd'},     {"tag", required_argument, NULL, 't'},
	    {"branch", required_argument, NULL, 'b'}, {"commit", required_argument, NULL, 'c'},
	    {"label", required_argument, NULL, 'l'},  {"since", required_argument, NULL, 'S'},
	    {"until", required_argument, NULL, 'U'},  {"meta", required_argument, NULL, 'm'},
	    {"limit", required_argument, NULL, 'n'},  {"format", required_argument, NULL, 'f'},
	    {"help", no_argument, NULL, 'h'},	      {NULL, 0, NULL, 0},
	};
	const struct cmd *self = cmd_find("runs");
	enum cli_format fmt = CLI_FORMAT_TABLE;
	struct store_run *runs = NULL;
	struct store *st = NULL;
	struct buf json = BUF_INIT;
	struct filter f;
	struct filter_meta *meta = NULL;
	const char **tags = NULL, *db = NULL;
	char **meta_copies = NULL;
	size_t n = 0, i;
	long limit;
	int code = CLI_EXIT_ERROR, o, rc;

	memset(&f, 0, sizeof(f));
	tags = calloc((size_t)argc, sizeof(*tags));
	meta = calloc((size_t)argc, sizeof(*meta));
	meta_copies = calloc((size_t)argc, sizeof(*meta_copies));
	if (!tags || !meta || !meta_copies) {
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
		case 't':
			tags[f.ntags++] = optarg;
			break;
		case 'b':
			f.branch = optarg;
			break;
		case 'c':
			f.commit = optarg;
			break;
		case 'l':
			f.label = optarg;
			break;
		case 'S':
			rc = filter_parse_date(f.since, sizeof(f.since), "--since", optarg,
					       (int64_t)time(NULL));
			break;
		case 'U':
			rc = filter_parse_date(f.until, sizeof(f.until), "--until", optarg,
					       (int64_t)time(NULL));
			break;
		case 'm':
			rc = filter_parse_meta(&meta[f.nmeta], &meta_copies[f.nmeta], optarg);
			if (!rc)
				f.nmeta++;
			break;
		case 'n':
			rc = cli_parse_count(&limit, "--limit", optarg);
			f.limit = limit;
			break;
		case 'f':
			rc = cli_parse_format(&fmt, optarg,
					      CLI_FORMAT_TABLE | CLI_FORMAT_JSON | CLI_FORMAT_CSV);
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
	if (optind < argc) {
		code = cli_usage_error(self->usage, "unexpected argument '%s'", argv[optind]);
		goto out;
	}
	f.tags = tags;
	f.meta = meta;
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
	for (i = 0; meta_copies && i < f.nmeta; i++)
		free(meta_copies[i]);
	free(meta_copies);
	free(meta);
	free(tags);
	return code;
}
