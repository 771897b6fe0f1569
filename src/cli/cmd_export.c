/*
 * cmd_export.c - "scopedb export": stored runs out to the tools scope-
 * profiler's users already have (issue 25, docs/export.md).  The runs are
 * the selectors given, or else every run the filters keep (all runs
 * without any), newest first.  --format csv: one long table of (run,
 * node, rank) rows for pandas, to stdout or -o FILE; --format caliper: one
 * Caliper JSON-split file per run (DIR/run-ID.json) for Hatchet and
 * Thicket, written into a fresh directory beside the others and moved
 * into DIR only once every run was written, so that a failure leaves DIR
 * as it was.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd.h"
#include "cli/cli.h"
#include "cli/hint.h"
#include "cli/output.h"
#include "render/caliper.h"
#include "render/spjson.h"
#include "scopedb/err.h"
#include "scopedb/export.h"
#include "scopedb/filter.h"
#include "scopedb/runarg.h"
#include "scopedb/select.h"
#include "scopedb/store.h"
#include "scopedb/util.h"
#include "util/gzip.h"
#include "util/json.h"

/* The columns of --format csv (times in seconds). */
enum {
	EC_RUN,
	EC_COMMIT,
	EC_BRANCH,
	EC_LABEL,
	EC_RECORDED,
	EC_PATH,
	EC_RANK,
	EC_CALLS,
	EC_TOTAL,
	EC_SELF,
	EC_MIN,
	EC_MAX,
	EC_P50,
	EC_P95,
	EC_P99,
	EC_N
};

static const struct doc_col export_cols[EC_N] = {
    {NULL, "run", NULL, DOC_ID, DOC_RIGHT, 0, 0, 0},
    {NULL, "commit", NULL, DOC_TEXT, DOC_LEFT, 0, 0, 0},
    {NULL, "branch", NULL, DOC_TEXT, DOC_LEFT, 0, 0, 0},
    {NULL, "label", NULL, DOC_TEXT, DOC_LEFT, 0, 0, 0},
    {NULL, "recorded", NULL, DOC_TEXT, DOC_LEFT, 0, 0, 0},
    {NULL, "path", NULL, DOC_TEXT, DOC_LEFT, 0, 0, 0},
    {NULL, "rank", NULL, DOC_ID, DOC_RIGHT, 0, 0, 0},
    {NULL, "calls", NULL, DOC_ID, DOC_RIGHT, 0, 0, 0},
    {NULL, "total", NULL, DOC_VALUE, DOC_RIGHT, 0, 0, 0},
    {NULL, "self", NULL, DOC_VALUE, DOC_RIGHT, 0, 0, 0},
    {NULL, "min", NULL, DOC_VALUE, DOC_RIGHT, 0, 0, 0},
    {NULL, "max", NULL, DOC_VALUE, DOC_RIGHT, 0, 0, 0},
    {NULL, "p50", NULL, DOC_VALUE, DOC_RIGHT, 0, 0, 0},
    {NULL, "p95", NULL, DOC_VALUE, DOC_RIGHT, 0, 0, 0},
    {NULL, "p99", NULL, DOC_VALUE, DOC_RIGHT, 0, 0, 0},
};

struct export_view {
	const struct export_run *runs;
	size_t n;
	size_t from, to; /* of one run (n == 1): its rows [from, to) only */
};

/* Rows of one run a CSV document holds at most: a document is about a
 * kilobyte a row, so a run of 4,096 ranks x 256 regions in one took
 * 1.6 GB (bench/wide). */
#define EXPORT_CHUNK_ROWS ((size_t)1 << 15)

/* A time in ns as seconds; -1 (unknown) and NaN as None. */
static void export_set_seconds(struct doc_table *t, size_t col, double ns)
{
	doc_set_num(t, col, ns < 0 || isnan(ns), ns / 1e9);
}

/* The document of --format csv (ctx: a struct export_view). */
static int export_document(struct doc *d, const void *ctx)
{
	const struct export_view *v = ctx;
	struct doc_table *t = doc_table(d, DOC_F_CSV, export_cols, EC_N);
	size_t i, k;

	for (i = 0; i < v->n; i++) {
		const struct export_run *r = &v->runs[i];
		size_t end = v->n == 1 && v->to < r->nrows ? v->to : r->nrows;

		for (k = v->n == 1 ? v->from : 0; k < end; k++) {
			const struct export_row *x = &r->rows[k];

			doc_row(t);
			doc_set_id(t, EC_RUN, r->run.id);
			doc_set_text(t, EC_COMMIT, r->run.commit);
			doc_set_text(t, EC_BRANCH, r->run.branch);
			doc_set_text(t, EC_LABEL, r->run.label);
			doc_set_text(t, EC_RECORDED,
				     r->run.recorded_at ? r->run.recorded_at : r->run.ingested_at);
			doc_set_text(t, EC_PATH, r->nodes[x->node].path);
			doc_set_id(t, EC_RANK, x->rank);
			doc_set_id(t, EC_CALLS, (int64_t)x->calls);
			export_set_seconds(t, EC_TOTAL, (double)x->total);
			export_set_seconds(t, EC_SELF, (double)x->self);
			export_set_seconds(t, EC_MIN, (double)x->min);
			export_set_seconds(t, EC_MAX, (double)x->max);
			export_set_seconds(t, EC_P50, x->has_quantiles ? x->q[0] : NAN);
			export_set_seconds(t, EC_P95, x->has_quantiles ? x->q[1] : NAN);
			export_set_seconds(t, EC_P99, x->has_quantiles ? x->q[2] : NAN);
		}
	}
	return 0;
}

/* --format csv|caliper|scope-profiler-json (const char **: its name). */
static int export_opt_format(const struct opt *opt, const char *arg)
{
	static const char *const names[] = {"csv", "caliper", "scope-profiler-json"};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!strcasecmp(arg, names[i])) {
			*(const char **)opt->value = names[i];
			return 0;
		}
	}
	return err_set(ERR_USAGE,
		       "invalid --format '%s': choose from csv, caliper or scope-profiler-json",
		       arg);
}

const struct opt_cmd cmd_export_usage = {
    .name = "export",
    .args = "[RUN...]",
    .after = "The runs are the selectors given, or else every run the filters keep\n"
	     "(every stored run without a filter), newest first.\n"
	     "--format csv: one row per (run, region or call path, rank), times in\n"
	     "seconds, to stdout or -o FILE.\n"
	     "--format caliper: one Caliper JSON-split file per run, -o DIR/run-ID.json,\n"
	     "for Hatchet (GraphFrame.from_caliper) and Thicket (Thicket.from_caliper).\n"
	     "--format scope-profiler-json: one run as upstream's JSON profile, for\n"
	     "scope-profiler's own diff and check.",
    .summary = "export stored runs for pandas, Hatchet and Thicket",
    OPT_ARGS(0, OPT_ARGS_ANY, NULL),
};

/* The ids of the runs to export: argv's selectors (each once, in order),
 * or the runs filter f keeps.  None kept: an error when one run is needed,
 * else said on stderr, *n = 0 (an empty export, as "runs" lists nothing). */
static int export_ids(int64_t **ids, size_t *n, struct store *st, char **argv, int nargs,
		      const struct filter *f, int need_one)
{
	int filtered = f->ntags || f->branch || f->since[0] || f->until[0];
	struct store_run *runs = NULL;
	size_t nruns = 0, i, j;
	int rc = 0;

	*ids = util_calloc((size_t)(nargs > 0 ? nargs : 1), sizeof(**ids));
	if (!*ids)
		return err_nomem();
	*n = 0;
	for (i = 0; i < (size_t)nargs && !rc; i++) {
		struct select_spec sel;
		int64_t id = 0;

		memset(&sel, 0, sizeof(sel));
		rc = runarg_parse_stored(&sel, argv[i], "export");
		if (!rc)
			rc = store_resolve(st, &id, &sel);
		select_release(&sel);
		for (j = 0; !rc && j < *n && (*ids)[j] != id; j++)
			;
		if (!rc && j == *n)
			(*ids)[(*n)++] = id;
	}
	if (rc || nargs > 0)
		return rc;
	rc = store_find_runs(st, &runs, &nruns, f);
	if (!rc && nruns) {
		free(*ids);
		*ids = util_calloc(nruns, sizeof(**ids));
		if (!*ids)
			rc = err_nomem();
		for (i = 0; !rc && i < nruns; i++)
			(*ids)[(*n)++] = runs[i].id;
	}
	if (!rc && !nruns && !need_one)
		rc = hint_none(st, f, filtered);
	else if (!rc && !nruns)
		rc = filtered ? hint_filter_error(st, f, "no stored run matches the filters")
			      : err_set(ERR_NOTFOUND, "no runs stored in '%s'", store_location(st));
	store_runs_free(runs, nruns);
	return rc;
}

/* Remove the files names[0..n) of directory dir, then dir. */
static void export_remove_dir(const char *dir, char **names, size_t n)
{
	struct buf p = BUF_INIT;
	size_t i;

	for (i = 0; i < n; i++) {
		p.len = 0;
		if (!buf_printf(&p, "%s/%s", dir, names[i]))
			unlink(p.data);
	}
	buf_release(&p);
	rmdir(dir);
}

/*
 * --format caliper: one file per run into dir (created when missing):
 * written into a fresh directory dir/.scopedb-export-XXXXXX, then each
 * moved to dir/run-ID.json, so that dir gets every file or none.
 */
static int export_caliper(struct store *st, const int64_t *ids, size_t n, const char *dir)
{
	struct buf tmp = BUF_INIT, path = BUF_INIT, to = BUF_INIT, doc = BUF_INIT;
	char **names = util_calloc(n ? n : 1, sizeof(*names));
	size_t i, written = 0;
	int rc = 0, made = 0;

	if (!names)
		return err_nomem();
	if (mkdir(dir, 0777) == 0)
		made = 1;
	else if (errno != EEXIST)
		rc = err_set(ERR_IO, "cannot create directory '%s': %s", dir,
			     util_strerror_lc(errno));
	if (!rc && buf_printf(&tmp, "%s/.scopedb-export-XXXXXX", dir))
		rc = err_nomem();
	if (!rc && !mkdtemp(tmp.data))
		rc = err_set(ERR_IO, "cannot write in directory '%s': %s", dir,
			     util_strerror_lc(errno));
	for (i = 0; !rc && i < n; i++) {
		struct export_run r;

		rc = export_read_run(&r, st, ids[i]);
		doc.len = 0;
		if (!rc)
			rc = caliper_write(&doc, &r);
		export_run_release(&r);
		path.len = 0;
		if (!rc && buf_printf(&path, "%s/run-%" PRId64 ".json", tmp.data, ids[i]))
			rc = err_nomem();
		if (!rc)
			rc = cli_write_file(path.data, &doc, store_location(st));
		if (!rc) {
			names[written] = util_strdup(path.data + tmp.len + 1);
			if (!names[written])
				rc = err_nomem();
			else
				written++;
		}
	}
	for (i = 0; !rc && i < written; i++) {
		path.len = to.len = 0;
		if (buf_printf(&path, "%s/%s", tmp.data, names[i]) ||
		    buf_printf(&to, "%s/%s", dir, names[i]))
			rc = err_nomem();
		else if (rename(path.data, to.data))
			rc = err_set(ERR_IO, "cannot write '%s': %s", to.data,
				     util_strerror_lc(errno));
	}
	if (tmp.data && !strstr(tmp.data, "XXXXXX"))
		export_remove_dir(tmp.data, names, written);
	if (rc && made)
		rmdir(dir);
	for (i = 0; i < written; i++)
		free(names[i]);
	free(names);
	buf_release(&tmp);
	buf_release(&path);
	buf_release(&to);
	buf_release(&doc);
	return rc;
}

/* doc to out (NULL: stdout), gzip-compressed when its name ends in .gz in
 * any case (pandas and gzip -d read it by that name). */
static int export_write(const char *out, const struct buf *doc, const char *location)
{
	struct buf gz = BUF_INIT;
	size_t len = out ? strlen(out) : 0;
	int rc = 0;

	if (len > 3 && !strcasecmp(out + len - 3, ".gz"))
		rc = gzip_buf(&gz, doc->data, doc->len);
	if (!rc)
		rc = cli_write_file(out, gz.data ? &gz : doc, location);
	buf_release(&gz);
	return rc;
}

/* --format csv: every run's rows in one table, to out (NULL: stdout).  A
 * run at a time is read, and rendered EXPORT_CHUNK_ROWS rows at a time
 * (the header kept for the first only), so that memory holds one run's
 * rows, one chunk's document and the text. */
static int export_csv(struct store *st, const int64_t *ids, size_t n, const char *out)
{
	struct buf csv = BUF_INIT, one = BUF_INIT;
	size_t i, k;
	int rc = 0;

	if (n == 0) {
		/* no run: the header alone, as pandas reads an empty table */
		const struct export_view none = {NULL, 0, 0, 0};

		rc = cli_output(&csv, export_document, &none, "csv", 0);
	}
	for (i = 0; !rc && i < n; i++) {
		struct export_run r;

		rc = export_read_run(&r, st, ids[i]);
		k = 0;
		do { /* once for a run without rows: the first has the header */
			const struct export_view v = {&r, 1, k, k + EXPORT_CHUNK_ROWS};
			const char *body;

			one.len = 0;
			if (rc || (rc = cli_output(&one, export_document, &v, "csv", 0)) ||
			    !one.data)
				break;
			body = one.data;
			if (i > 0 || k > 0) {
				body = strchr(one.data, '\n');
				body = body ? body + 1 : one.data + one.len;
			}
			if (buf_add(&csv, body, one.len - (size_t)(body - one.data)))
				rc = err_nomem();
			k += EXPORT_CHUNK_ROWS;
		} while (!rc && k < r.nrows);
		export_run_release(&r);
	}
	if (!rc)
		rc = export_write(out, &csv, store_location(st));
	buf_release(&csv);
	buf_release(&one);
	return rc;
}

struct export_sp {
	struct spjson w;
	struct i64vec d;
	const char *location;
};

/* store_scan_timings() callback: one row into the JSON profile. */
static int export_sp_row(void *ctx, const struct store_timing *t, const char *region)
{
	struct export_sp *x = ctx;
	char **tags = NULL;
	size_t ntags = 0;
	int rc = 0;

	x->d.len = 0;
	if (t->has_events && t->durations)
		rc = store_decode_durations(&x->d, t->durations, t->durations_len);
	if (!rc && t->tags_json && *t->tags_json)
		rc = json_parse_strarray(&tags, &ntags, t->tags_json);
	if (rc == ERR_FORMAT) {
		char why[256]; /* err_msg()'s buffer is the one err_set() writes */

		snprintf(why, sizeof(why), "%s", err_msg());
		return err_set(ERR_STORE, "store '%s' is damaged: region '%s' rank %" PRId64 ": %s",
			       x->location, region, t->rank, why);
	}
	if (rc)
		return rc;
	spjson_row(&x->w, t, region, x->d.v, x->d.len, (const char *const *)tags, ntags);
	json_strarray_free(tags, ntags);
	return x->w.rc;
}

/* --format scope-profiler-json: run id as upstream's JSON profile, to out
 * (NULL: stdout; a name ending in .gz: gzip-compressed). */
static int export_spjson(struct store *st, int64_t id, const char *out)
{
	struct store_run run;
	struct store_meta meta;
	struct export_sp x;
	struct buf doc = BUF_INIT;
	int rc;

	memset(&run, 0, sizeof(run));
	memset(&meta, 0, sizeof(meta));
	memset(&x, 0, sizeof(x));
	i64vec_init(&x.d);
	x.location = store_location(st);
	rc = store_get_run(st, &run, id);
	if (!rc)
		rc = store_get_meta(st, &meta, id);
	if (!rc) {
		spjson_begin(&x.w, &doc, &run, &meta);
		rc = store_scan_timings(st, id, export_sp_row, &x);
		rc = rc ? (spjson_abort(&x.w), rc) : spjson_end(&x.w);
	}
	if (!rc)
		rc = export_write(out, &doc, store_location(st));
	store_run_release(&run);
	store_meta_release(&meta);
	i64vec_release(&x.d);
	buf_release(&doc);
	return rc;
}

int cmd_export(int argc, char **argv)
{
	const struct opt_cmd *self = &cmd_export_usage;
	const char *fmt = "csv", *db = NULL, *out = NULL;
	struct opt_list tags = OPT_LIST_INIT;
	struct buf q = BUF_INIT;
	struct store *st = NULL;
	int64_t *ids = NULL;
	struct filter f;
	size_t n = 0;
	long limit = 0;
	int nargs, rc, started = 0, code = CLI_EXIT_ERROR;
	const struct opt opts[] = {
	    OPT__DB(&db),
	    OPT_CHOICE(0, "format", OPT_TYPED(const char **, &fmt), "FMT",
		       "csv: one table for pandas; caliper: a Caliper JSON-split\n"
		       "file per run for Hatchet and Thicket; scope-profiler-json:\n"
		       "one run as upstream's JSON profile",
		       "csv caliper scope-profiler-json", export_opt_format),
	    OPT_STRING('o', "output", &out, "PATH",
		       "csv, scope-profiler-json: the file (default stdout;\n"
		       "a name ending in .gz: compressed); caliper: the directory\n"
		       "(created when missing; required)"),
	    OPT__FILTER_TAG(&tags),
	    OPT__FILTER_BRANCH(&f.branch),
	    OPT__SINCE(f.since),
	    OPT__UNTIL(f.until, "only runs recorded at or before DATE (a bare date\n"
				"includes that whole day)"),
	    OPT_CALLBACK(0, "limit", OPT_TYPED(long *, &limit), "N",
			 "only the newest N matching runs (N >= 1)", cli_opt_positive, 0),
	    OPT_END(),
	};

	memset(&f, 0, sizeof(f));
	nargs = opt_parse(self, opts, argc, argv, &code);
	if (nargs < 0)
		goto out;
	f.tags = tags.v;
	f.ntags = tags.n;
	f.limit = limit;
	if (nargs > 0 && (f.ntags || f.branch || f.since[0] || f.until[0] || f.limit)) {
		cli_print_error("export takes run selectors or filters, not both");
		code = CLI_EXIT_ERROR;
		goto out;
	}
	if (!strcmp(fmt, "caliper") && (!out || !*out || !strcmp(out, "-"))) {
		cli_print_error(
		    out && !strcmp(out, "-")
			? "export --format caliper writes one file per run into a "
			  "directory, not to stdout (-o -): give -o DIR"
			: "export --format caliper needs -o DIR: it writes one file per run");
		code = CLI_EXIT_ERROR;
		goto out;
	}
	rc = store_open(&st, cli_db_path(db), STORE_READONLY);
	if (!rc)
		rc = store_read_begin(st, &started);
	if (!rc)
		rc = export_ids(&ids, &n, st, argv, nargs, &f, !strcmp(fmt, "scope-profiler-json"));
	if (!rc && !strcmp(fmt, "scope-profiler-json") && n != 1)
		rc =
		    err_set(ERR_USAGE,
			    "export --format scope-profiler-json writes one run, not %zu: give one "
			    "selector",
			    n);
	if (!rc && !strcmp(fmt, "caliper"))
		rc = export_caliper(st, ids, n, out);
	else if (!rc && !strcmp(fmt, "csv"))
		rc = export_csv(st, ids, n, out);
	else if (!rc)
		rc = export_spjson(st, ids[0], out);
	if (rc) {
		code = cli_error();
		goto out;
	}
	if (!strcmp(fmt, "caliper"))
		printf("exported %zu run%s to '%s'\n", n, n == 1 ? "" : "s", cli_outq(&q, out));
	code = cli_finish(CLI_EXIT_OK);
out:
	free(ids);
	if (started)
		store_read_end(st);
	store_close(st);
	opt_list_release(&tags);
	buf_release(&q);
	return code;
}
