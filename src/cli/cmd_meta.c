/*
 * cmd_meta.c - "scopedb meta RUN": the /metadata attributes of a stored
 * run (plus any --meta given at ingest); "scopedb meta A B": only the keys
 * whose values differ between two runs (metadiff.h), the same list diff
 * and check print under their header.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "cli/cli.h"
#include "scopedb/err.h"
#include "util/json.h"
#include "scopedb/metadiff.h"
#include "scopedb/select.h"
#include "scopedb/store.h"
#include "render/table.h"
#include "scopedb/util.h"

/* Resolve the selector text to a run id in st. */
static int meta_resolve(struct store *st, int64_t *out, const char *text)
{
	struct select_spec sel;
	int rc = select_parse(&sel, text);

	if (!rc)
		rc = store_resolve(st, out, &sel);
	select_release(&sel);
	return rc;
}

/* One run: an aligned key/value table or a JSON object. */
static int meta_one(struct buf *out, const struct store_meta *m, int64_t id, int json)
{
	static const char *const header[] = {"key", "value"};
	struct table t;
	size_t i;
	int rc = 0;

	if (json) {
		rc |= buf_printf(out, "{\"run\": %" PRId64 ", \"metadata\": {", id);
		for (i = 0; i < m->n; i++) {
			rc |= buf_puts(out, i ? ",\n  " : "\n  ");
			rc |= json_buf_string(out, m->keys[i]);
			rc |= buf_puts(out, ": ");
			rc |= json_buf_string(out, m->values[i]);
		}
		rc |= buf_puts(out, m->n ? "\n}}\n" : "}}\n");
		return rc ? err_nomem() : 0;
	}
	if (m->n == 0) {
		fprintf(stdout, "run %" PRId64 " has no metadata\n", id);
		return 0;
	}
	rc = table_init(&t, 2, header, NULL);
	for (i = 0; i < m->n && !rc; i++) {
		const char *cells[2] = {m->keys[i], m->values[i]};

		rc = table_add_row(&t, cells);
	}
	if (!rc)
		rc = table_print(&t, stdout, 0);
	table_release(&t);
	return rc;
}

/* Two runs: the differing keys as text lines or JSON. */
static int meta_two(struct buf *out, const struct store_meta *a, const struct store_meta *b,
		    int64_t ia, int64_t ib, int all, int json)
{
	struct metadiff_change *ch = NULL;
	size_t n = 0;
	int rc;

	rc = metadiff_compute(&ch, &n, a, b, all);
	if (rc)
		return rc;
	if (json) {
		rc = buf_printf(
		    out, "{\"a\": %" PRId64 ", \"b\": %" PRId64 ", \"metadata_changes\": ", ia, ib);
		if (!rc)
			rc = metadiff_json(out, ch, n);
		if (!rc)
			rc = buf_puts(out, "}\n");
	} else {
		rc = buf_printf(out, "a: run %" PRId64 "\nb: run %" PRId64 "\n\n", ia, ib);
		if (!rc && n == 0)
			rc = buf_puts(out, all ? "No metadata differences.\n"
					       : "No metadata differences (use --all to include "
						 "timestamps and job ids).\n");
		else if (!rc)
			rc = buf_puts(out, "Metadata differences (a -> b):\n");
		if (!rc)
			rc = metadiff_text(out, ch, n, "  ", 0);
	}
	metadiff_free(ch, n);
	return rc ? (rc == ERR_NOMEM ? rc : err_nomem()) : 0;
}

const struct opt_cmd cmd_meta_usage = {
    .name = "meta",
    .synopsis = "scopedb meta RUN [--db PATH] [--format table|json]\n"
		"       scopedb meta A B [--all] [--db PATH] [--format table|json]",
    .after = "With one run, its metadata; with two, only the keys whose values differ.",
    .summary = "show a run's metadata, or what differs between two runs",
    .max_args = 2,
};

int cmd_meta(int argc, char **argv)
{
	const struct opt_cmd *self = &cmd_meta_usage;
	enum cli_format fmt = CLI_FORMAT_TABLE;
	struct store_meta ma, mb;
	struct store *st = NULL;
	struct buf out = BUF_INIT;
	const char *db = NULL;
	int64_t ia = 0, ib = 0;
	int all = 0, started = 0, nargs, code = CLI_EXIT_ERROR, rc;
	const struct opt opts[] = {
	    OPT__DB(&db),
	    OPT_FLAG(0, "all", &all, "with two runs, also compare timestamps, labels and job ids"),
	    OPT__FORMAT(&fmt, "table json"),
	    OPT_END(),
	};

	memset(&ma, 0, sizeof(ma));
	memset(&mb, 0, sizeof(mb));
	nargs = opt_parse(self, opts, argc, argv, &code);
	if (nargs < 0)
		goto out;
	if (nargs < 1) {
		code = opt_usage_error(self, opts, "meta needs one or two run selectors");
		goto out;
	}
	if (store_open(&st, cli_db_path(db), STORE_READONLY) || store_read_begin(st, &started) ||
	    meta_resolve(st, &ia, argv[0]) || (nargs == 2 && meta_resolve(st, &ib, argv[1])) ||
	    store_get_meta(st, &ma, ia) || (nargs == 2 && store_get_meta(st, &mb, ib))) {
		code = cli_error();
		goto out;
	}
	rc = nargs == 1 ? meta_one(&out, &ma, ia, fmt == CLI_FORMAT_JSON)
			: meta_two(&out, &ma, &mb, ia, ib, all, fmt == CLI_FORMAT_JSON);
	if (rc) {
		code = cli_error();
		goto out;
	}
	fwrite(out.data ? out.data : "", 1, out.len, stdout);
	code = cli_finish(CLI_EXIT_OK);
out:
	if (started)
		store_read_end(st);
	store_meta_release(&ma);
	store_meta_release(&mb);
	store_close(st);
	buf_release(&out);
	return code;
}
