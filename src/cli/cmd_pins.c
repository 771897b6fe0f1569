/*
 * cmd_pins.c - "scopedb pins": list the pins with the runs they name, as an
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
#include "util/json.h"
#include "scopedb/store.h"
#include "render/table.h"
#include "scopedb/util.h"

/* runs[i] describes pins[i]. */
static int pins_json(struct buf *out, const struct store_pin *pins, const struct store_run *runs,
		     size_t n)
{
	size_t i;
	int rc = buf_puts(out, "[");

	for (i = 0; i < n; i++) {
		const struct store_run *r = &runs[i];

		rc |= buf_puts(out, i ? ",\n  {\"name\": " : "\n  {\"name\": ");
		rc |= json_buf_string(out, pins[i].name);
		rc |= buf_printf(out, ", \"run\": %" PRId64 ", \"pinned_at\": ", pins[i].run_id);
		rc |= report_json_str(out, pins[i].pinned_at);
		rc |= buf_puts(out, ", \"recorded_at\": ");
		rc |= report_json_str(out, r->recorded_at);
		rc |= buf_puts(out, ", \"label\": ");
		rc |= report_json_str(out, r->label);
		rc |= buf_puts(out, ", \"commit\": ");
		rc |= report_json_str(out, r->commit);
		rc |= buf_puts(out, ", \"branch\": ");
		rc |= report_json_str(out, r->branch);
		rc |= buf_puts(out, ", \"tags\": ");
		rc |= json_buf_strarray(out, (const char *const *)r->tags, r->ntags);
		rc |= buf_putc(out, '}');
	}
	rc |= buf_puts(out, n ? "\n]\n" : "]\n");
	return rc ? ERR_NOMEM : 0;
}

static int pins_table(const struct store_pin *pins, const struct store_run *runs, size_t n)
{
	static const char *const header[] = {"pin",    "run",	 "recorded", "label",
					     "commit", "branch", "pinned"};
	static const enum table_align align[] = {TABLE_LEFT, TABLE_RIGHT, TABLE_LEFT, TABLE_LEFT,
						 TABLE_LEFT, TABLE_LEFT,  TABLE_LEFT};
	struct table t;
	size_t i;
	int rc;

	rc = table_init(&t, 7, header, align);
	for (i = 0; i < n && !rc; i++) {
		const struct store_run *r = &runs[i];
		char id[24], commit[13] = "-";
		const char *cells[7];

		snprintf(id, sizeof(id), "%" PRId64, pins[i].run_id);
		if (r->commit)
			snprintf(commit, sizeof(commit), "%s", r->commit);
		cells[0] = pins[i].name;
		cells[1] = id;
		cells[2] = r->recorded_at ? r->recorded_at : r->ingested_at;
		cells[3] = r->label ? r->label : "-";
		cells[4] = commit;
		cells[5] = r->branch ? r->branch : "-";
		cells[6] = pins[i].pinned_at;
		rc = table_add_row(&t, cells);
	}
	if (!rc)
		rc = table_print(&t, stdout, 0);
	table_release(&t);
	return rc;
}

const struct opt_cmd cmd_pins_usage = {
    .name = "pins",
    .synopsis = "scopedb pins [--db PATH] [--format table|json]",
    .summary = "list the pins",
    .max_args = 0,
};

int cmd_pins(int argc, char **argv)
{
	const struct opt_cmd *self = &cmd_pins_usage;
	enum cli_format fmt = CLI_FORMAT_TABLE;
	struct store_pin *pins = NULL;
	struct store_run *runs = NULL;
	struct store *st = NULL;
	struct buf json = BUF_INIT;
	const char *db = NULL;
	const struct opt opts[] = {OPT__DB(&db), OPT__FORMAT(&fmt, "table json"), OPT_END()};
	size_t n = 0, i;
	int code = CLI_EXIT_ERROR;

	if (opt_parse(self, opts, argc, argv, &code) < 0)
		goto out;
	if (store_open(&st, cli_db_path(db), STORE_READONLY) || store_list_pins(st, &pins, &n)) {
		code = cli_error();
		goto out;
	}
	runs = calloc(n ? n : 1, sizeof(*runs));
	if (!runs) {
		err_nomem();
		code = cli_error();
		goto out;
	}
	for (i = 0; i < n; i++)
		if (store_get_run(st, &runs[i], pins[i].run_id)) {
			code = cli_error();
			goto out;
		}
	if (fmt == CLI_FORMAT_JSON) {
		if (pins_json(&json, pins, runs, n)) {
			code = cli_error();
			goto out;
		}
		fputs(json.data, stdout);
	} else if (n == 0) {
		fprintf(stderr, "scopedb: no pins in store '%s'\n", cli_db_path(db));
	} else if (pins_table(pins, runs, n)) {
		code = cli_error();
		goto out;
	}
	code = cli_finish(CLI_EXIT_OK);
out:
	if (runs)
		store_runs_free(runs, n);
	store_pins_free(pins, n);
	store_close(st);
	buf_release(&json);
	return code;
}
