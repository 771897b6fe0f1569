/*
 * cmd_meta.c - "scopedb meta RUN": the /metadata attributes of a stored
 * run or a profile file (plus any --meta given at ingest); "scopedb meta A B": only the keys
 * whose values differ between two runs (metadiff.h), the same list diff
 * and check print under their header.
 */
#include <inttypes.h>
#include <stdio.h>

#include "cmd.h"
#include "cli/cli.h"
#include "cli/output.h"
#include "scopedb/err.h"
#include "render/report.h"
#include "scopedb/metadiff.h"
#include "scopedb/runarg.h"
#include "scopedb/store.h"
#include "scopedb/util.h"

/* A run named by meta: a stored run's id, or a file as given. */
struct meta_side {
	int64_t id;
	const char *file; /* NULL for a stored run */
};

/* "run 7" or "run.h5 (file)" for the text headers. */
static void meta_text_side(struct doc *d, const char *key, const struct meta_side *r)
{
	if (r->file)
		doc_spanf(d, doc_field(d, DOC_F_TEXT, key), DOC_RAW, "%s (file)", r->file);
	else
		doc_spanf(d, doc_field(d, DOC_F_TEXT, key), DOC_RAW, "run %" PRId64, r->id);
}

/* key: the run id, or for a file null and key_path: the file. */
static void meta_json_side(struct doc *d, const char *key, const struct meta_side *r)
{
	char path_key[32];

	if (!r->file) {
		doc_json_int(d, d->json, key, r->id);
		return;
	}
	doc_json_null(d, d->json, key);
	snprintf(path_key, sizeof(path_key), "%s_path", key);
	doc_json_str(d, d->json, path_key, r->file);
}

/* One run: an aligned key/value table, or {"run", "metadata": {...}}. */
static void meta_one(struct doc *d, const struct store_meta *m, const struct meta_side *r)
{
	static const struct doc_col cols[] = {
	    {"key", NULL, NULL, DOC_TEXT, DOC_LEFT, DOC_F_TEXT, 0, 0},
	    {"value", NULL, NULL, DOC_TEXT, DOC_LEFT, DOC_F_TEXT, 0, 0},
	};
	struct doc_table *t = doc_table(d, DOC_F_TEXT, cols, 2);
	struct doc_value *o;
	char empty[64];
	size_t i;

	if (r->file)
		snprintf(empty, sizeof(empty), "%.40s has no metadata", r->file);
	else
		snprintf(empty, sizeof(empty), "run %" PRId64 " has no metadata", r->id);
	doc_table_empty(t, empty);
	doc_json_root(d, DOC_V_OBJ, JSONW_INLINE);
	meta_json_side(d, "run", r);
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
		    const struct meta_side *ia, const struct meta_side *ib, int all)
{
	struct metadiff_change *ch = NULL;
	size_t n = 0;
	int rc;

	rc = metadiff_compute(&ch, &n, a, b, all);
	if (rc)
		return rc;
	meta_text_side(d, "a", ia);
	meta_text_side(d, "b", ib);
	doc_blank(d, DOC_F_TEXT);
	doc_span(d, doc_line(d, DOC_F_TEXT),
		 n     ? "Metadata differences (a -> b):"
		 : all ? "No metadata differences."
		       : "No metadata differences (use --all to include timestamps and job ids).",
		 DOC_RAW);
	report_meta_text(d, ch, n, "  ", 0);
	doc_json_root(d, DOC_V_OBJ, JSONW_INLINE);
	meta_json_side(d, "a", ia);
	meta_json_side(d, "b", ib);
	report_meta_json(d, d->json, "metadata_changes", ch, n);
	metadiff_free(ch, n);
	return 0;
}

struct meta_view {
	const struct store_meta *ma, *mb; /* mb: NULL for one run */
	struct meta_side ia, ib;
	int all;
};

/* meta's document (ctx: a struct meta_view): one run, or the differences
 * of two. */
static int meta_document(struct doc *d, const void *ctx)
{
	const struct meta_view *v = ctx;

	if (v->mb)
		return meta_two(d, v->ma, v->mb, &v->ia, &v->ib, v->all);
	meta_one(d, v->ma, &v->ia);
	return 0;
}

const struct opt_cmd cmd_meta_usage = {
    .name = "meta",
    .args = "RUN\n"
	    "A B",
    .after = "With one run, its metadata; with two, only the keys whose values differ.\n"
	     "RUN, A and B are stored runs (selectors) or profile files.",
    .summary = "show a run's metadata, or what differs between two runs",
    OPT_ARGS(1, 2, "meta needs one or two run selectors"),
};

/* Resolve the i-th run argument text into a (selector or file) and
 * *side, and read its metadata into m. */
static int meta_read(struct runarg *a, struct meta_side *side, struct store_meta *m,
		     struct runarg_db *db, const char *text)
{
	int rc = runarg_resolve(a, db, text);

	if (rc)
		return rc;
	side->id = a->run_id;
	side->file = a->is_file ? text : NULL;
	return store_get_meta(a->st, m, a->run_id);
}

int cmd_meta(int argc, char **argv)
{
	const struct opt_cmd *self = &cmd_meta_usage;
	const char *fmt = "table";
	struct store_meta ma = {0}, mb = {0};
	struct runarg ra = {0}, rb = {0};
	struct runarg_db rdb;
	struct meta_view v = {0};
	const char *db = NULL;
	int all = 0, nargs, code = CLI_EXIT_ERROR;
	const struct opt opts[] = {
	    OPT__DB(&db),
	    OPT_FLAG(0, "all", &all,
		     "with two runs, also compare the keys that differ by\nnature: the profiles' "
		     "timestamp, label and job ids"),
	    OPT__FORMAT(&fmt, "table json"),
	    OPT__FILE_LIMITS(),
	    OPT_END(),
	};

	runarg_db_init(&rdb, NULL, NULL);
	nargs = opt_parse(self, opts, argc, argv, &code);
	if (nargs < 0)
		goto out;
	rdb.path = cli_db_path(db);
	if (meta_read(&ra, &v.ia, &ma, &rdb, argv[0]) ||
	    (nargs == 2 && meta_read(&rb, &v.ib, &mb, &rdb, argv[1]))) {
		code = cli_error();
		goto out;
	}
	v.ma = &ma;
	v.mb = nargs == 2 ? &mb : NULL;
	v.all = all;
	code = cli_print_doc(meta_document, &v, fmt, 0, CLI_EXIT_OK);
out:
	store_meta_release(&ma);
	store_meta_release(&mb);
	runarg_release(&ra);
	runarg_release(&rb);
	runarg_db_release(&rdb);
	return code;
}
