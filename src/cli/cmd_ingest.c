/*
 * cmd_ingest.c - "scopedb ingest FILE...": import profiles into the store,
 * one transaction per file.  A failing file is reported and skipped; the
 * exit status is 2 if any file failed.  On a terminal a progress line is
 * drawn on stderr for ingests that take more than half a second.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd.h"
#include "cli/cli.h"
#include "scopedb/err.h"
#include "scopedb/ingest.h"
#include "util/json.h"
#include "scopedb/store.h"
#include "scopedb/util.h"

struct progress {
	const char *path;
	double start;
	double last;
	int shown;
};

static double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Redraw the progress line at most ten times a second, starting only once
 * the ingest has run for half a second (small files print nothing). */
static void progress_cb(void *ctx, uint64_t done, uint64_t total)
{
	struct progress *p = ctx;
	double t = now_seconds(), el = t - p->start;

	if (el < 0.5 || t - p->last < 0.1)
		return;
	p->last = t;
	p->shown = 1;
	fprintf(stderr, "\r\033[K%s: %3.0f%% of events, %.0f calls/s", p->path,
		total ? 100.0 * (double)done / (double)total : 100.0, (double)done / el);
	fflush(stderr);
}

static void progress_clear(struct progress *p)
{
	if (p->shown)
		fputs("\r\033[K", stderr);
	p->shown = 0;
}

/* Append {"run":..,"path":..,"status":..,"error":..} to out. */
static int json_result(struct buf *out, const char *path, const struct ingest_result *r,
		       const char *error)
{
	int rc = 0;

	rc |= buf_puts(out, out->len > 1 ? ",\n  {" : "\n  {");
	if (error || !r->run_id)
		rc |= buf_puts(out, "\"run\": null");
	else
		rc |= buf_printf(out, "\"run\": %" PRId64, r->run_id);
	rc |= buf_puts(out, ", \"path\": ");
	rc |= json_buf_string(out, path);
	rc |= buf_printf(out, ", \"status\": \"%s\"",
			 error		? "error"
			 : r->duplicate ? "duplicate"
					: "stored");
	if (error) {
		rc |= buf_puts(out, ", \"error\": ");
		rc |= json_buf_string(out, error);
	} else {
		rc |= buf_printf(
		    out, ", \"ranks\": %" PRId64 ", \"regions\": %" PRId64 ", \"calls\": %" PRIu64,
		    r->num_ranks, r->num_regions, r->num_calls);
	}
	rc |= buf_putc(out, '}');
	return rc ? ERR_NOMEM : 0;
}

const struct opt_cmd cmd_ingest_usage = {
    .name = "ingest",
    .synopsis =
	"scopedb ingest FILE... [--db PATH] [--tag T]... [--label L] [--commit SHA]\n"
	"                [--branch NAME] [--meta KEY=VALUE]... [--format table|json] [--quiet]",
    .summary = "import scope-profiler HDF5 profiles into the store",
    .max_args = OPT_ARGS_ANY,
};

/* --meta KEY=VALUE (struct opt_list *), checked as it is met. */
static int ingest_opt_meta(const struct opt *opt, const char *arg)
{
	int rc = ingest_meta_check(arg);

	return rc ? rc : opt_list_push(opt->value, arg);
}

int cmd_ingest(int argc, char **argv)
{
	const struct opt_cmd *self = &cmd_ingest_usage;
	const char *db = NULL, *env_commit, *env_branch;
	struct opt_list tags = OPT_LIST_INIT, meta = OPT_LIST_INIT;
	struct ingest_opts io;
	enum cli_format fmt = CLI_FORMAT_TABLE;
	struct store *st = NULL;
	struct buf json = BUF_INIT;
	int quiet = 0, failed = 0, code = CLI_EXIT_ERROR, nargs, i;
	const struct opt opts[] = {
	    OPT__DB(&db),
	    OPT_LIST(0, "tag", &tags, "T",
		     "tag the run (repeatable; also added to an already stored run)"),
	    OPT_STRING(0, "label", &io.label, "L",
		       "label of the run (default: the file's metadata label)"),
	    OPT_STRING(0, "commit", &io.commit, "SHA",
		       "commit (default: $GITHUB_SHA, $CI_COMMIT_SHA or $GIT_COMMIT)"),
	    OPT_STRING(0, "branch", &io.branch, "NAME",
		       "branch (default: $GITHUB_REF_NAME, $CI_COMMIT_REF_NAME or\n"
		       "$GIT_BRANCH)"),
	    OPT_CALLBACK(0, "meta", &meta, "KEY=VALUE",
			 "extra metadata (repeatable; overrides the file's)", ingest_opt_meta, 0),
	    OPT__FORMAT(&fmt, "table json"),
	    OPT_FLAG('q', "quiet", &quiet, "no progress display"),
	    OPT_END(),
	};

	memset(&io, 0, sizeof(io));
	nargs = opt_parse(self, opts, argc, argv, &code);
	if (nargs < 0)
		goto out;
	if (nargs == 0) {
		code = opt_usage_error(self, opts, "no file to ingest");
		goto out;
	}
	io.tags = tags.v;
	io.ntags = tags.n;
	io.meta = meta.v;
	io.nmeta = meta.n;
	ingest_ci_env(&env_commit, &env_branch);
	if (!io.commit)
		io.commit = env_commit;
	if (!io.branch)
		io.branch = env_branch;
	if (store_open(&st, cli_db_path(db), 0)) {
		code = cli_error();
		goto out;
	}
	buf_puts(&json, "[");
	for (i = 0; i < nargs; i++) {
		struct progress prog = {argv[i], now_seconds(), 0.0, 0};
		struct ingest_result r;
		int rc;

		io.progress =
		    (!quiet && fmt == CLI_FORMAT_TABLE && cli_isatty(stderr)) ? progress_cb : NULL;
		io.progress_ctx = &prog;
		err_clear();
		rc = ingest_file(&r, st, argv[i], &io);
		progress_clear(&prog);
		if (rc) {
			failed = 1;
			fprintf(stderr, "scopedb: %s\n", err_msg());
		}
		if (fmt == CLI_FORMAT_JSON) {
			if (json_result(&json, argv[i], &r, rc ? err_msg() : NULL)) {
				code = cli_error();
				goto out;
			}
		} else if (!rc && r.duplicate) {
			printf("%s: already stored as run %" PRId64 "%s\n", argv[i], r.run_id,
			       r.tags_added ? " (tags added)" : "");
		} else if (!rc) {
			printf("run %" PRId64 ": %s: %" PRId64 " rank%s, %" PRId64
			       " region%s, %" PRIu64 " call%s\n",
			       r.run_id, argv[i], r.num_ranks, r.num_ranks == 1 ? "" : "s",
			       r.num_regions, r.num_regions == 1 ? "" : "s", r.num_calls,
			       r.num_calls == 1 ? "" : "s");
		}
		fflush(stdout);
	}
	if (fmt == CLI_FORMAT_JSON)
		printf("%s\n]\n", json.data);
	code = cli_finish(failed ? CLI_EXIT_ERROR : CLI_EXIT_OK);
out:
	store_close(st);
	buf_release(&json);
	opt_list_release(&tags);
	opt_list_release(&meta);
	return code;
}
