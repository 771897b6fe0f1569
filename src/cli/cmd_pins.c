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
#include "cli/output.h"
#include "scopedb/err.h"
#include "scopedb/store.h"
#include "scopedb/util.h"

/* The columns of pins: the terminal and JSON each show their own. */
enum {
	PC_NAME,
	PC_RUN,
	PC_PINNED_AT,
	PC_RECORDED,
	PC_RECORDED_AT,
	PC_LABEL,
	PC_COMMIT,
	PC_BRANCH,
	PC_TAGS,
	PC_PINNED,
	PC_N
};

static const struct doc_col pins_cols[PC_N] = {
    {"pin", NULL, "name", DOC_TEXT, DOC_LEFT, DOC_F_TEXT, 0, 0},
    {"run", NULL, "run", DOC_ID, DOC_RIGHT, DOC_F_TEXT, 0, 0},
    {NULL, NULL, "pinned_at", DOC_TEXT, DOC_LEFT, 0, 0, 0},
    {"recorded", NULL, NULL, DOC_TEXT, DOC_LEFT, DOC_F_TEXT, 0, 0},
    {NULL, NULL, "recorded_at", DOC_TEXT, DOC_LEFT, 0, 0, 0},
    {"label", NULL, "label", DOC_TEXT, DOC_LEFT, DOC_F_TEXT, 0, 0},
    {"commit", NULL, "commit", DOC_TEXT, DOC_LEFT, DOC_F_TEXT, 0, 12},
    {"branch", NULL, "branch", DOC_TEXT, DOC_LEFT, DOC_F_TEXT, 0, 0},
    {NULL, NULL, "tags", DOC_LIST, DOC_LEFT, 0, DOC_COMPACT, 0},
    {"pinned", NULL, NULL, DOC_TEXT, DOC_LEFT, DOC_F_TEXT, 0, 0},
};

struct pins_view {
	const struct store_pin *pins;
	const struct store_run *runs; /* runs[i] describes pins[i] */
	size_t n;
};

/* The document of pins (ctx: a struct pins_view). */
static int pins_document(struct doc *d, const void *ctx)
{
	const struct pins_view *v = ctx;
	const struct store_pin *pins = v->pins;
	struct doc_table *t = doc_table(d, DOC_F_TEXT, pins_cols, PC_N);
	size_t i;

	for (i = 0; i < v->n; i++) {
		const struct store_run *r = &v->runs[i];

		doc_row(t);
		doc_set_text(t, PC_NAME, pins[i].name);
		doc_set_id(t, PC_RUN, pins[i].run_id);
		doc_set_text(t, PC_PINNED_AT, pins[i].pinned_at);
		doc_set_text(t, PC_RECORDED, r->recorded_at ? r->recorded_at : r->ingested_at);
		doc_set_text(t, PC_RECORDED_AT, r->recorded_at);
		doc_set_text(t, PC_LABEL, r->label);
		doc_set_text(t, PC_COMMIT, r->commit);
		doc_set_text(t, PC_BRANCH, r->branch);
		doc_set_list(t, PC_TAGS, (const char *const *)r->tags, r->ntags);
		doc_set_text(t, PC_PINNED, pins[i].pinned_at);
	}
	doc_json_root_table(d, t);
	return 0;
}

const struct opt_cmd cmd_pins_usage = {
    .name = "pins",
    .summary = "list the pins",
};

int cmd_pins(int argc, char **argv)
{
	const struct opt_cmd *self = &cmd_pins_usage;
	const char *fmt = "table";
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
	if (store_open(&st, cli_db_path(db), STORE_READONLY) || store_list_pins(st, &pins, &n) ||
	    !(runs = util_calloc(n, sizeof(*runs)))) {
		code = cli_error();
		goto out;
	}
	for (i = 0; i < n; i++)
		if (store_get_run(st, &runs[i], pins[i].run_id)) {
			code = cli_error();
			goto out;
		}
	if (cli_format_is(fmt, "table") && n == 0) {
		cli_print_errorf("no pins in store '%s'", store_location(st));
	} else {
		const struct pins_view v = {pins, runs, n};

		if (cli_output(&json, pins_document, &v, fmt, 0)) {
			code = cli_error();
			goto out;
		}
		(void)cli_write_stdout(json.data, json.len);
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
