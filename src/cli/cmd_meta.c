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
#include "cli/output.h"
#include "scopedb/err.h"
#include "render/report.h"
#include "scopedb/metadiff.h"
#include "scopedb/select.h"
#include "scopedb/store.h"
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

/* One run: an aligned key/value table, or {"run", "metadata": {...}}. */
static void meta_one(struct doc *d, const struct store_meta *m, int64_t id)
{
	static const struct doc_col cols[] = {
	    {"key", NULL, NULL, DOC_TEXT, DOC_LEFT, DOC_F_TEXT, 0, 0},
	    {"value", NULL, NULL, DOC_TEXT, DOC_LEFT, DOC_F_TEXT, 0, 0},
	};
	struct doc_table *t = doc_table(d, DOC_F_TEXT, cols, 2);
	struct doc_value *o;
	char empty[64];
	size_t i;

	snprintf(empty, sizeof(empty), "run %" PRId64 " has no metadata", id);
	doc_table_empty(t, empty);
	doc_json_root(d, DOC_V_OBJ, JSONW_INLINE);
	doc_json_int(d, d->json, "run", id);
	o = doc_json_obj(d, d->json, "metadata", JSONW_BLOCK);
	for (i = 0; i < m->n; i++) {
		doc_row(t);
		doc_set_text(t, 0, m->keys[i]);
		doc_set_text(t, 1, m->values[i]);
		doc_json_str(d, o, m->keys[i], m->values[i]);
	}
}

/* Two runs: the differing keys as text lines, or {"a", "b",
 * "metadata_changes"}. */
static int meta_two(struct doc *d, const struct store_meta *a, const struct store_meta *b,
		    int64_t ia, int64_t ib, int all)
{
	struct metadiff_change *ch = NULL;
	size_t n = 0;
	int rc;

	rc = metadiff_compute(&ch, &n, a, b, all);
	if (rc)
		return rc;
	doc_spanf(d, doc_field(d, DOC_F_TEXT, "a"), DOC_RAW, "run %" PRId64, ia);
	doc_spanf(d, doc_field(d, DOC_F_TEXT, "b"), DOC_RAW, "run %" PRId64, ib);
	doc_blank(d, DOC_F_TEXT);
	doc_span(d, doc_line(d, DOC_F_TEXT),
		 n     ? "Metadata differences (a -> b):"
		 : all ? "No metadata differences."
		       : "No metadata differences (use --all to include timestamps and job ids).",
		 DOC_RAW);
	report_meta_text(d, ch, n, "  ", 0);
	doc_json_root(d, DOC_V_OBJ, JSONW_INLINE);
	doc_json_int(d, d->json, "a", ia);
	doc_json_int(d, d->json, "b", ib);
	report_meta_json(d, d->json, "metadata_changes", ch, n);
	metadiff_free(ch, n);
	return 0;
}

struct meta_view {
	const struct store_meta *ma, *mb; /* mb: NULL for one run */
	int64_t ia, ib;
	int all;
};

/* meta's document (ctx: a struct meta_view): one run, or the differences
 * of two. */
static int meta_document(struct doc *d, const void *ctx)
{
	const struct meta_view *v = ctx;

	if (v->mb)
		return meta_two(d, v->ma, v->mb, v->ia, v->ib, v->all);
	meta_one(d, v->ma, v->ia);
	return 0;
}

const struct opt_cmd cmd_meta_usage = {
    .name = "meta",
    .synopsis = "scopedb meta RUN [--db PATH] [--format table|json]\n"
		"       scopedb meta A B [--all] [--db PATH] [--format table|json]",
    .after = "With one run, its metadata; with two, only the keys whose values differ.",
    .summary = "show a run's metadata, or what differs between two runs",
    OPT_ARGS(1, 2, "meta needs one or two run selectors"),
};

int cmd_meta(int argc, char **argv)
{
	const struct opt_cmd *self = &cmd_meta_usage;
	const char *fmt = "table";
	struct store_meta ma, mb;
	struct store *st = NULL;
	const char *db = NULL;
	int64_t ia = 0, ib = 0;
	int all = 0, started = 0, nargs, code = CLI_EXIT_ERROR;
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
	if (store_open(&st, cli_db_path(db), STORE_READONLY) || store_read_begin(st, &started) ||
	    meta_resolve(st, &ia, argv[0]) || (nargs == 2 && meta_resolve(st, &ib, argv[1])) ||
	    store_get_meta(st, &ma, ia) || (nargs == 2 && store_get_meta(st, &mb, ib))) {
		code = cli_error();
		goto out;
	}
	{
		const struct meta_view v = {&ma, nargs == 2 ? &mb : NULL, ia, ib, all};

		code = cli_print_doc(meta_document, &v, fmt, 0, CLI_EXIT_OK);
	}
out:
	if (started)
		store_read_end(st);
	store_meta_release(&ma);
	store_meta_release(&mb);
	store_close(st);
	return code;
}
