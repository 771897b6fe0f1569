/*
 * cmd_runs.c - "scopedb runs": list the stored runs, newest first, filtered
 * by tag, branch, commit prefix, label, recorded time and metadata (one
 * store query, store_find_runs()), as an
 * aligned table, CSV or a JSON array.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "cli/cli.h"
#include "cli/hint.h"
#include "cli/output.h"
#include "scopedb/err.h"
#include "scopedb/filter.h"
#include "scopedb/store.h"
#include "scopedb/util.h"

/* The columns of runs: the terminal, CSV and JSON each show their own. */
enum {
	RC_ID,
	RC_RECORDED,
	RC_RECORDED_AT,
	RC_INGESTED_AT,
	RC_LABEL,
	RC_COMMIT,
	RC_BRANCH,
	RC_TAGS,
	RC_RANKS,
	RC_REGIONS,
	RC_CALLS,
	RC_SCHEMA,
	RC_LAYOUT,
	RC_PATH,
	RC_SHA,
	RC_N
};

static const struct doc_col runs_cols[RC_N] = {
    {"id", "id", "id", DOC_ID, DOC_RIGHT, DOC_F_TEXT, 0, 0},
    {"recorded", NULL, NULL, DOC_TEXT, DOC_LEFT, DOC_F_TEXT, 0, 0},
    {NULL, "recorded_at", "recorded_at", DOC_TEXT, DOC_LEFT, 0, 0, 0},
    {NULL, "ingested_at", "ingested_at", DOC_TEXT, DOC_LEFT, 0, 0, 0},
    {"label", "label", "label", DOC_TEXT, DOC_LEFT, DOC_F_TEXT, 0, 0},
    {"commit", "commit", "commit", DOC_TEXT, DOC_LEFT, DOC_F_TEXT, 0, 12},
    {"branch", "branch", "branch", DOC_TEXT, DOC_LEFT, DOC_F_TEXT, 0, 0},
    {"tags", "tags", "tags", DOC_LIST, DOC_LEFT, DOC_F_TEXT, 0, 0},
    /* counts, grouped for people like every count (CSV and JSON: plain) */
    {"ranks", "ranks", "num_ranks", DOC_COUNT, DOC_RIGHT, DOC_F_TEXT, 0, 0},
    {"regions", "regions", "num_regions", DOC_COUNT, DOC_RIGHT, DOC_F_TEXT, 0, 0},
    {NULL, "calls", "num_calls", DOC_ID, DOC_RIGHT, 0, 0, 0},
    {NULL, NULL, "schema", DOC_ID, DOC_RIGHT, 0, 0, 0},
    {NULL, NULL, "layout", DOC_TEXT, DOC_LEFT, 0, 0, 0},
    {"source", "path", "path", DOC_TEXT, DOC_LEFT, DOC_F_TEXT, 0, 0},
    {NULL, NULL, "sha256", DOC_TEXT, DOC_LEFT, 0, 0, 0},
};

struct runs_view {
	const struct store_run *runs;
	size_t n;
};

/* The document of runs (ctx: a struct runs_view): one row per run (JSON:
 * the array of rows). */
static int runs_document(struct doc *d, const void *ctx)
{
	const struct runs_view *v = ctx;
	struct doc_table *t = doc_table(d, DOC_F_TEXT | DOC_F_CSV, runs_cols, RC_N);
	size_t i;

	for (i = 0; i < v->n; i++) {
		const struct store_run *r = &v->runs[i];

		doc_row(t);
		doc_set_id(t, RC_ID, r->id);
		doc_set_text(t, RC_RECORDED, r->recorded_at ? r->recorded_at : r->ingested_at);
		doc_set_text(t, RC_RECORDED_AT, r->recorded_at);
		doc_set_text(t, RC_INGESTED_AT, r->ingested_at);
		doc_set_text(t, RC_LABEL, r->label);
		doc_set_text(t, RC_COMMIT, r->commit);
		doc_set_text(t, RC_BRANCH, r->branch);
		doc_set_list(t, RC_TAGS, (const char *const *)r->tags, r->ntags);
		doc_set_num(t, RC_RANKS, 0, (double)r->num_ranks);
		doc_set_num(t, RC_REGIONS, 0, (double)r->num_regions);
		doc_set_id(t, RC_CALLS, r->num_calls);
		doc_set_id(t, RC_SCHEMA, r->schema);
		doc_set_text(t, RC_LAYOUT, r->layout);
		doc_set_text(t, RC_PATH, r->source_path);
		doc_set_text(t, RC_SHA, r->sha256);
	}
	doc_json_root_table(d, t);
	return 0;
}

/* 1 when f restricts the listing at all. */
static int runs_filtered(const struct filter *f)
{
	return f->ntags || f->branch || f->commit || f->label || f->since[0] || f->until[0] ||
	       f->nmeta || f->limit;
}

const struct opt_cmd cmd_runs_usage = {
    .name = "runs",
    .summary = "list the stored runs, newest first",
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
	const char *fmt = "table";
	struct store_run *runs = NULL;
	struct store *st = NULL;
	struct buf json = BUF_INIT;
	struct filter f;
	struct opt_list tags = OPT_LIST_INIT;
	struct runs_meta meta = {NULL, NULL, 0};
	const char *db = NULL;
	size_t n = 0, i;
	long limit = 0;
	int code = CLI_EXIT_ERROR, rc;
	const struct opt opts[] = {
	    OPT__DB(&db),
	    OPT__FILTER_TAG(&tags),
	    OPT__FILTER_BRANCH(&f.branch),
	    OPT_STRING(0, "commit", &f.commit, "PREFIX",
		       "only runs whose commit starts with PREFIX"),
	    OPT_STRING(0, "label", &f.label, "L", "only runs labelled L"),
	    OPT__SINCE(f.since),
	    OPT__UNTIL(f.until, "only runs recorded at or before DATE (a bare date\n"
				"includes that whole day)"),
	    OPT_CALLBACK(0, "meta", &meta, "KEY=VALUE",
			 "only runs whose metadata KEY is VALUE (repeatable)", runs_opt_meta, 0),
	    /* 0 is refused rather than read as "no limit" or "nothing" */
	    OPT_CALLBACK(0, "limit", OPT_TYPED(long *, &limit), "N",
			 "only the newest N matching runs (N >= 1)", cli_opt_positive,
			 (intptr_t) "without --limit, every run is listed"),
	    OPT__FORMAT(&fmt, "table json csv"),
	    OPT_END(),
	};

	memset(&f, 0, sizeof(f));
	meta.v = util_calloc((size_t)argc, sizeof(*meta.v));
	meta.copies = meta.v ? util_calloc((size_t)argc, sizeof(*meta.copies)) : NULL;
	if (!meta.copies) {
		code = cli_error();
		goto out;
	}
	if (opt_parse(self, opts, argc, argv, &code) < 0)
		goto out;
	if (f.commit && !*f.commit) {
		err_set(ERR_USAGE, "invalid --commit '': an empty prefix matches every commit "
				   "(leave the option out to list every run)");
		code = cli_error();
		goto out;
	}
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
	{
		const struct runs_view v = {runs, n};

		rc = n == 0 ? hint_none(st, &f, runs_filtered(&f)) : 0;
		if (!rc && !(cli_format_is(fmt, "table") && n == 0))
			rc = cli_output(&json, runs_document, &v, fmt, 0);
	}
	if (rc) {
		code = cli_error();
		goto out;
	}
	(void)cli_write_stdout(json.data, json.len);
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
