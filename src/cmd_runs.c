/*
 * cmd_runs.c - "scopedb runs": list the stored runs, newest first, as an
 * aligned table or a JSON array.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "scopedb/cli.h"
#include "scopedb/err.h"
#include "scopedb/json.h"
#include "scopedb/store.h"
#include "scopedb/table.h"
#include "scopedb/util.h"

/* JSON string or null. */
static int json_opt(struct buf *out, const char *s)
{
	return s ? json_buf_string(out, s) : buf_puts(out, "null");
}

static int runs_json(struct buf *out, const struct store_run *runs, size_t n)
{
	size_t i, k;
	int rc = buf_puts(out, "[");

	for (i = 0; i < n && !rc; i++) {
		const struct store_run *r = &runs[i];

		rc |= buf_printf(out, "%s\n  {\"id\": %" PRId64 ", \"recorded_at\": ", i ? "," : "",
				 r->id);
		rc |= json_opt(out, r->recorded_at);
		rc |= buf_puts(out, ", \"ingested_at\": ");
		rc |= json_opt(out, r->ingested_at);
		rc |= buf_puts(out, ", \"label\": ");
		rc |= json_opt(out, r->label);
		rc |= buf_puts(out, ", \"commit\": ");
		rc |= json_opt(out, r->commit);
		rc |= buf_puts(out, ", \"branch\": ");
		rc |= json_opt(out, r->branch);
		rc |= buf_puts(out, ", \"tags\": [");
		for (k = 0; k < r->ntags; k++) {
			rc |= buf_puts(out, k ? ", " : "");
			rc |= json_buf_string(out, r->tags[k]);
		}
		rc |= buf_printf(out,
				 "], \"num_ranks\": %" PRId64 ", \"num_regions\": %" PRId64
				 ", \"num_calls\": %" PRId64 ", \"schema\": %d, \"layout\": ",
				 r->num_ranks, r->num_regions, r->num_calls, r->schema);
		rc |= json_opt(out, r->layout);
		rc |= buf_puts(out, ", \"path\": ");
		rc |= json_opt(out, r->source_path);
		rc |= buf_puts(out, ", \"sha256\": ");
		rc |= json_opt(out, r->sha256);
		rc |= buf_puts(out, "}");
	}
	rc |= buf_puts(out, n ? "\n]\n" : "]\n");
	return rc ? ERR_NOMEM : 0;
}

static int runs_table(const struct store_run *runs, size_t n)
{
	static const char *const header[] = {"id",   "recorded",   "label",
					     "commit", "branch", "tags",
					     "ranks", "regions", "source"};
	static const enum table_align align[] = {TABLE_RIGHT, TABLE_LEFT, TABLE_LEFT,
						 TABLE_LEFT,  TABLE_LEFT, TABLE_LEFT,
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

int cmd_runs(int argc, char **argv)
{
	static const struct option opts[] = {
		{"db", required_argument, NULL, 'd'},
		{"format", required_argument, NULL, 'f'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const struct cmd *self = cmd_find("runs");
	enum cli_format fmt = CLI_FORMAT_TABLE;
	struct store_run *runs = NULL;
	struct store *st = NULL;
	struct buf json = BUF_INIT;
	const char *db = NULL;
	size_t n = 0;
	int code = CLI_EXIT_ERROR, o;

	opterr = 0;
	while ((o = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (o) {
		case 'd':
			db = optarg;
			break;
		case 'f':
			if (cli_parse_format(&fmt, optarg, CLI_FORMAT_TABLE | CLI_FORMAT_JSON)) {
				code = cli_error();
				goto out;
			}
			break;
		case 'h':
			cmd_print_help(self);
			code = cli_finish(CLI_EXIT_OK);
			goto out;
		default:
			code = cli_bad_option(self->usage, o, argv, optind);
			goto out;
		}
	}
	if (optind < argc) {
		code = cli_usage_error(self->usage, "unexpected argument '%s'", argv[optind]);
		goto out;
	}
	if (store_open(&st, cli_db_path(db), STORE_READONLY) ||
	    store_list_runs(st, &runs, &n)) {
		code = cli_error();
		goto out;
	}
	if (fmt == CLI_FORMAT_JSON) {
		if (runs_json(&json, runs, n)) {
			code = cli_error();
			goto out;
		}
		fputs(json.data, stdout);
	} else if (n == 0) {
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
	return code;
}
