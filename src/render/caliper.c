/*
 * caliper.c - the Caliper JSON-split document of one exported run
 * (caliper.h).  Every string from data goes through the JSON writer
 * (jsonw.c), which escapes it.  A metadata key that would take the place of
 * one of the document's own keys ("data", "nodes", "commit", ...) is
 * written as "metadata.KEY", so that no profile can change the document's
 * structure or the run's description.
 */
#include <stdint.h>
#include <string.h>

#include "render/caliper.h"
#include "scopedb/err.h"
#include "render/jsonw.h"

/* The document's own top-level keys, which metadata keys must not take. */
static const char *const caliper_own[] = {
    "data",	 "columns", "column_metadata", "nodes",	      "scopedb.run", "commit", "branch",
    "label",	 "tags",    "recorded_at",     "ingested_at", "source_path", "sha256", "layout",
    "num_ranks", "tree",
};

static int caliper_is_own(const char *key)
{
	size_t i;

	for (i = 0; i < sizeof(caliper_own) / sizeof(caliper_own[0]); i++)
		if (!strcmp(key, caliper_own[i]))
			return 1;
	return !strncmp(key, "metadata.", 9);
}

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

	jsonw_key(w, "data");
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

static void caliper_columns(struct jsonw *w)
{
	static const char *const cols[] = {
	    "path",
	    "mpi.rank",
	    "count",
	    "sum#time.duration",
	    "inclusive#sum#time.duration",
	    "min#time.duration",
	    "max#time.duration",
	};
	size_t i;

	jsonw_key(w, "columns");
	jsonw_begin_array(w, JSONW_INLINE);
	for (i = 0; i < sizeof(cols) / sizeof(cols[0]); i++)
		jsonw_string(w, cols[i]);
	jsonw_end(w);
	jsonw_key(w, "column_metadata");
	jsonw_begin_array(w, JSONW_INLINE);
	for (i = 0; i < sizeof(cols) / sizeof(cols[0]); i++) {
		jsonw_begin_object(w, JSONW_INLINE);
		jsonw_key(w, "is_value");
		jsonw_bool(w, i >= 2);
		jsonw_end(w);
	}
	jsonw_end(w);
}

static void caliper_nodes(struct jsonw *w, const struct export_run *r)
{
	size_t i;

	jsonw_key(w, "nodes");
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

/* The run's description, then its metadata, as top-level keys. */
static int caliper_globals(struct jsonw *w, const struct export_run *r)
{
	const struct store_run *run = &r->run;
	const struct {
		const char *key, *value;
	} strs[] = {
	    {"commit", run->commit},
	    {"branch", run->branch},
	    {"label", run->label},
	    {"recorded_at", run->recorded_at},
	    {"ingested_at", run->ingested_at},
	    {"source_path", run->source_path},
	    {"sha256", run->sha256},
	    {"layout", run->layout},
	};
	struct buf key = BUF_INIT;
	size_t i;
	int rc = 0;

	jsonw_key(w, "scopedb.run");
	jsonw_int(w, run->id);
	for (i = 0; i < sizeof(strs) / sizeof(strs[0]); i++) {
		jsonw_key(w, strs[i].key);
		jsonw_string(w, strs[i].value);
	}
	jsonw_key(w, "tags");
	jsonw_begin_array(w, JSONW_INLINE);
	for (i = 0; i < run->ntags; i++)
		jsonw_string(w, run->tags[i]);
	jsonw_end(w);
	jsonw_key(w, "num_ranks");
	jsonw_int(w, run->num_ranks);
	jsonw_key(w, "tree");
	jsonw_bool(w, r->tree);
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
	caliper_rows(&w, r);
	caliper_columns(&w);
	caliper_nodes(&w, r);
	rc = caliper_globals(&w, r);
	jsonw_end(&w);
	if (!rc)
		rc = jsonw_finish(&w);
	return rc ? rc : (buf_putc(out, '\n') ? ERR_NOMEM : 0);
}
