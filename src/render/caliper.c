/*
 * caliper.c - the Caliper JSON-split document of one exported run
 * (caliper.h).  Every string from data goes through the JSON writer
 * (jsonw.c), which escapes it.  A metadata key that would take the place of
 * one of the document's own keys ("data", "nodes", "commit", ...) is
 * written as "metadata.KEY", so that no profile can change the document's
 * structure or the run's description.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "render/caliper.h"
#include "scopedb/err.h"
#include "render/jsonw.h"

/* A time in ns as seconds, or null (-1: unknown). */
static void caliper_seconds(struct jsonw *w, int64_t ns)
{
	if (ns < 0)
		jsonw_null(w);
	else
		jsonw_number(w, (double)ns / 1e9, 0);
}

static void caliper_rows(struct jsonw *w, const struct export_run *r)
{
	size_t i;

	jsonw_begin_array(w, JSONW_BLOCK);
	for (i = 0; i < r->nrows; i++) {
		const struct export_row *x = &r->rows[i];

		jsonw_begin_array(w, JSONW_COMPACT);
		jsonw_int(w, (int64_t)x->node);
		jsonw_int(w, x->rank);
		jsonw_int(w, (int64_t)x->calls);
		caliper_seconds(w, x->self);
		caliper_seconds(w, x->total);
		caliper_seconds(w, x->min);
		caliper_seconds(w, x->max);
		jsonw_end(w);
	}
	jsonw_end(w);
}

/* The columns of the "data" rows.  All but path hold values: Hatchet's
 * reader looks every other non-value column up in "nodes" (a rank marked
 * so would become a node's label), and Caliper writes mpi.rank as a
 * value. */
static const char *const caliper_cols[] = {
    "path",
    "mpi.rank",
    "count",
    "sum#time.duration",
    "inclusive#sum#time.duration",
    "min#time.duration",
    "max#time.duration",
};

static void caliper_columns(struct jsonw *w, const struct export_run *r)
{
	size_t i;

	(void)r;
	jsonw_begin_array(w, JSONW_INLINE);
	for (i = 0; i < sizeof(caliper_cols) / sizeof(caliper_cols[0]); i++)
		jsonw_string(w, caliper_cols[i]);
	jsonw_end(w);
}

static void caliper_column_metadata(struct jsonw *w, const struct export_run *r)
{
	size_t i;

	(void)r;
	jsonw_begin_array(w, JSONW_INLINE);
	for (i = 0; i < sizeof(caliper_cols) / sizeof(caliper_cols[0]); i++) {
		jsonw_begin_object(w, JSONW_INLINE);
		jsonw_key(w, "is_value");
		jsonw_bool(w, i >= 1);
		jsonw_end(w);
	}
	jsonw_end(w);
}

static void caliper_nodes(struct jsonw *w, const struct export_run *r)
{
	size_t i;

	jsonw_begin_array(w, JSONW_BLOCK);
	for (i = 0; i < r->nnodes; i++) {
		jsonw_begin_object(w, JSONW_INLINE);
		jsonw_key(w, "label");
		jsonw_string(w, r->nodes[i].name);
		jsonw_key(w, "column");
		jsonw_string(w, "path");
		if (r->nodes[i].parent >= 0) {
			jsonw_key(w, "parent");
			jsonw_int(w, r->nodes[i].parent);
		}
		jsonw_end(w);
	}
	jsonw_end(w);
}

static void caliper_id(struct jsonw *w, const struct export_run *r)
{
	jsonw_int(w, r->run.id);
}

static void caliper_tags(struct jsonw *w, const struct export_run *r)
{
	size_t i;

	jsonw_begin_array(w, JSONW_INLINE);
	for (i = 0; i < r->run.ntags; i++)
		jsonw_string(w, r->run.tags[i]);
	jsonw_end(w);
}

static void caliper_num_ranks(struct jsonw *w, const struct export_run *r)
{
	jsonw_int(w, r->run.num_ranks);
}

static void caliper_tree(struct jsonw *w, const struct export_run *r)
{
	jsonw_bool(w, r->tree);
}

/*
 * The document's own top-level keys, in the order they are written: each
 * with its writer, or (write NULL) the store_run string member at text.
 * Metadata keys must not take any of them.
 */
static const struct caliper_key {
	const char *key;
	void (*write)(struct jsonw *w, const struct export_run *r);
	size_t text;
} caliper_keys[] = {
    {"data", caliper_rows, 0},
    {"columns", caliper_columns, 0},
    {"column_metadata", caliper_column_metadata, 0},
    {"nodes", caliper_nodes, 0},
    {"scopedb.run", caliper_id, 0},
    {"commit", NULL, offsetof(struct store_run, commit)},
    {"branch", NULL, offsetof(struct store_run, branch)},
    {"label", NULL, offsetof(struct store_run, label)},
    {"recorded_at", NULL, offsetof(struct store_run, recorded_at)},
    {"ingested_at", NULL, offsetof(struct store_run, ingested_at)},
    {"source_path", NULL, offsetof(struct store_run, source_path)},
    {"sha256", NULL, offsetof(struct store_run, sha256)},
    {"layout", NULL, offsetof(struct store_run, layout)},
    {"tags", caliper_tags, 0},
    {"num_ranks", caliper_num_ranks, 0},
    {"tree", caliper_tree, 0},
};

static int caliper_is_own(const char *key)
{
	size_t i;

	for (i = 0; i < sizeof(caliper_keys) / sizeof(caliper_keys[0]); i++)
		if (!strcmp(key, caliper_keys[i].key))
			return 1;
	return !strncmp(key, "metadata.", 9);
}

/* The document's own keys, then the run's metadata, as top-level keys. */
static int caliper_globals(struct jsonw *w, const struct export_run *r)
{
	const struct caliper_key *k;
	struct buf key = BUF_INIT;
	size_t i;
	int rc = 0;

	for (i = 0; i < sizeof(caliper_keys) / sizeof(caliper_keys[0]); i++) {
		k = &caliper_keys[i];
		jsonw_key(w, k->key);
		if (k->write)
			k->write(w, r);
		else
			jsonw_string(w, *(char *const *)((const char *)&r->run + k->text));
	}
	for (i = 0; i < r->meta.n && !rc; i++) {
		key.len = 0;
		rc = caliper_is_own(r->meta.keys[i])
			 ? buf_printf(&key, "metadata.%s", r->meta.keys[i])
			 : buf_puts(&key, r->meta.keys[i]);
		if (rc)
			break;
		jsonw_key(w, key.data);
		jsonw_string(w, r->meta.values[i]);
	}
	buf_release(&key);
	return rc ? ERR_NOMEM : 0;
}

int caliper_write(struct buf *out, const struct export_run *r)
{
	struct jsonw w;
	int rc;

	jsonw_init(&w, out);
	jsonw_begin_object(&w, JSONW_BLOCK);
	rc = caliper_globals(&w, r);
	jsonw_end(&w);
	if (!rc)
		rc = jsonw_finish(&w);
	return rc ? rc : (buf_putc(out, '\n') ? ERR_NOMEM : 0);
}
