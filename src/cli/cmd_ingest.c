/*
 * cmd_ingest.c - "scopedb ingest FILE...": import profiles into the store,
 * one transaction per file.  A failing file is reported and skipped; the
 * exit status is 2 if any file failed.  On a terminal a progress line is
 * drawn on stderr for ingests that take more than half a second.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd.h"
#include "cli/cli.h"
#include "cli/output.h"
#include "scopedb/err.h"
#include "scopedb/ingest.h"
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

/* {"run", "path", "status", "error" or "ranks", "regions", "calls"} of a
 * file under list. */
static void ingest_json(struct doc *d, struct doc_value *list, const char *path,
			const struct ingest_result *r, const char *error)
{
	struct doc_value *o = doc_json_obj(d, list, NULL, JSONW_INLINE);

	if (error || !r->run_id)
		doc_json_null(d, o, "run");
	else
		doc_json_int(d, o, "run", r->run_id);
	doc_json_str(d, o, "path", path);
	doc_json_str(d, o, "status", error ? "error" : r->duplicate ? "duplicate" : "stored");
	if (error) {
		doc_json_str(d, o, "error", error);
	} else {
		doc_json_int(d, o, "ranks", r->num_ranks);
		doc_json_int(d, o, "regions", r->num_regions);
		doc_json_int(d, o, "calls", (int64_t)r->num_calls);
	}
}

struct ingest_view {
	const char *path;
	const struct ingest_result *r;
};

/* The terminal's line of a stored file (ctx: a struct ingest_view). */
static int ingest_line(struct doc *d, const void *ctx)
{
	const struct ingest_view *v = ctx;
	const struct ingest_result *r = v->r;
	struct doc_block *b = doc_line(d, DOC_F_TEXT);

	/* the path is printed as given (DOC_RAW), as it always was */
	if (r->duplicate)
		doc_spanf(d, b, DOC_RAW, "%s: already stored as run %" PRId64 "%s", v->path,
			  r->run_id, r->tags_added ? " (tags added)" : "");
	else
		doc_spanf(d, b, DOC_RAW,
			  "run %" PRId64 ": %s: %" PRId64 " rank%s, %" PRId64 " region%s, %" PRIu64
			  " call%s",
			  r->run_id, v->path, r->num_ranks, r->num_ranks == 1 ? "" : "s",
			  r->num_regions, r->num_regions == 1 ? "" : "s", r->num_calls,
			  r->num_calls == 1 ? "" : "s");
	return 0;
}

/*
 * Ingest files[0..n) one by one; the terminal gets a line per stored file
 * as it is done, JSON one array at the end (rendered into json).  *failed
 * is set when some file failed.  0, or an error of the output itself.
 */
static int ingest_files(struct buf *json, struct store *st, struct ingest_opts *io, char **files,
			int n, enum cli_format fmt, int quiet, int *failed)
{
	struct buf line = BUF_INIT;
	struct doc d;
	struct doc_value *list;
	int i, rc = 0;

	doc_init(&d);
	list = doc_json_root(&d, DOC_V_ARR, JSONW_BLOCK);
	for (i = 0; i < n && !rc; i++) {
		struct progress prog = {files[i], now_seconds(), 0.0, 0};
		struct ingest_result r;
		int e;

		io->progress =
		    (!quiet && fmt == CLI_FORMAT_TABLE && cli_isatty(stderr)) ? progress_cb : NULL;
		io->progress_ctx = &prog;
		err_clear();
		e = ingest_file(&r, st, files[i], io);
		progress_clear(&prog);
		if (e) {
			*failed = 1;
			fprintf(stderr, "scopedb: %s\n", err_msg());
		}
		if (fmt == CLI_FORMAT_JSON) {
			ingest_json(&d, list, files[i], &r, e ? err_msg() : NULL);
		} else if (!e) {
			const struct ingest_view v = {files[i], &r};

			line.len = 0;
			rc = cli_output(&line, ingest_line, &v, fmt, 0);
			fputs(line.len ? line.data : "", stdout);
		}
		fflush(stdout);
	}
	if (!rc && fmt == CLI_FORMAT_JSON)
		rc = cli_render(json, &d, fmt, 0);
	doc_release(&d);
	buf_release(&line);
	return rc;
}

int cmd_ingest(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"db", required_argument, NULL, 'd'},     {"tag", required_argument, NULL, 't'},
	    {"label", required_argument, NULL, 'l'},  {"commit", required_argument, NULL, 'c'},
	    {"branch", required_argument, NULL, 'b'}, {"meta", required_argument, NULL, 'm'},
	    {"format", required_argument, NULL, 'f'}, {"quiet", no_argument, NULL, 'q'},
	    {"help", no_argument, NULL, 'h'},	      {NULL, 0, NULL, 0},
	};
	const struct cmd *self = cmd_find("ingest");
	const char *db = NULL, *env_commit, *env_branch;
	const char **tags = NULL, **meta = NULL;
	struct ingest_opts io;
	enum cli_format fmt = CLI_FORMAT_TABLE;
	struct store *st = NULL;
	struct buf json = BUF_INIT;
	int quiet = 0, failed = 0, code = CLI_EXIT_ERROR, o;

	memset(&io, 0, sizeof(io));
	tags = calloc((size_t)argc, sizeof(*tags));
	meta = calloc((size_t)argc, sizeof(*meta));
	if (!tags || !meta) {
		err_nomem();
		code = cli_error();
		goto out;
	}
	opterr = 0;
	while ((o = getopt_long(argc, argv, ":qh", opts, NULL)) != -1) {
		switch (o) {
		case 'd':
			db = optarg;
			break;
		case 't':
			tags[io.ntags++] = optarg;
			break;
		case 'l':
			io.label = optarg;
			break;
		case 'c':
			io.commit = optarg;
			break;
		case 'b':
			io.branch = optarg;
			break;
		case 'm':
			if (ingest_meta_check(optarg)) {
				code = cli_error();
				goto out;
			}
			meta[io.nmeta++] = optarg;
			break;
		case 'f':
			if (cli_parse_format(&fmt, optarg, CLI_FORMAT_TABLE | CLI_FORMAT_JSON)) {
				code = cli_error();
				goto out;
			}
			break;
		case 'q':
			quiet = 1;
			break;
		case 'h':
			cmd_print_help(self);
			code = cli_finish(CLI_EXIT_OK);
			goto out;
		default:
			code = cli_bad_option(self->usage, o, argv, optind);
			goto out;
		}
	}
	if (optind >= argc) {
		code = cli_usage_error(self->usage, "no file to ingest");
		goto out;
	}
	io.tags = tags;
	io.meta = meta;
	ingest_ci_env(&env_commit, &env_branch);
	if (!io.commit)
		io.commit = env_commit;
	if (!io.branch)
		io.branch = env_branch;
	if (store_open(&st, cli_db_path(db), 0)) {
		code = cli_error();
		goto out;
	}
	if (ingest_files(&json, st, &io, argv + optind, argc - optind, fmt, quiet, &failed)) {
		code = cli_error();
		goto out;
	}
	fputs(json.data ? json.data : "", stdout);
	code = cli_finish(failed ? CLI_EXIT_ERROR : CLI_EXIT_OK);
out:
	store_close(st);
	buf_release(&json);
	free(tags);
	free(meta);
	return code;
}
