/*
 * cmd_ingest.c - "scopedb ingest FILE...": import profiles into the store,
 * one transaction per file.  A failing file is reported and skipped; the
 * exit status is 2 if any file failed.  On a terminal a progress line is
 * drawn on stderr for ingests that take more than half a second.  Warnings
 * (stderr, exit status unchanged): a CI commit variable that is no commit,
 * the runs stored without a commit (once, at the end), and a file already
 * stored under another --commit/--branch/--label than the one given.  A
 * new store (and its missing directories) is created at the first file
 * that is a profile, never for a command that stores nothing.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>

#include "cmd.h"
#include "cli/cli.h"
#include "cli/output.h"
#include "render/format.h"
#include "scopedb/err.h"
#include "scopedb/identity.h"
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
	char rate[64];
	struct buf q = BUF_INIT;

	if (el < 0.5 || t - p->last < 0.1)
		return;
	p->last = t;
	p->shown = 1;
	format_group(rate, sizeof(rate), (long long)((double)done / el), 0);
	fprintf(stderr, "\r\033[K%s: %3.0f%% of events, %s calls/s", cli_msgq(&q, p->path),
		total ? 100.0 * (double)done / (double)total : 100.0, rate);
	fflush(stderr);
	buf_release(&q);
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
	char ranks[64], regions[64], calls[64];

	/* the path is the user's (or a shell glob's): escaped by the
	 * renderer like every name in a table (a span without DOC_RAW); counts
	 * with thousands separators */
	format_group(ranks, sizeof(ranks), (long long)r->num_ranks, 0);
	format_group(regions, sizeof(regions), (long long)r->num_regions, 0);
	format_group(calls, sizeof(calls), (long long)r->num_calls, 0);
	if (r->duplicate) {
		doc_span(d, b, v->path, 0);
		doc_spanf(d, b, DOC_RAW, ": already stored as run %" PRId64 "%s", r->run_id,
			  r->tags_added ? " (tags added)" : "");
	} else {
		doc_spanf(d, b, DOC_RAW, "run %" PRId64 ": ", r->run_id);
		doc_span(d, b, v->path, 0);
		doc_spanf(d, b, DOC_RAW, ": %s rank%s, %s region%s, %s call%s", ranks,
			  r->num_ranks == 1 ? "" : "s", regions, r->num_regions == 1 ? "" : "s",
			  calls, r->num_calls == 1 ? "" : "s");
	}
	return 0;
}

/*
 * The warning for a file already stored as a run whose commit, branch or
 * label differ from the ones given: the run keeps its own.  Only the fields
 * asked for on the command line (mask: INGEST_KEPT_* of --commit, --branch,
 * --label) are named, with the value not applied; a commit or branch from
 * the CI or git is not the user's request, and the stored run says it.
 */
static void ingest_warn_kept(const char *path, const struct ingest_result *r,
			     const struct ingest_opts *io, unsigned mask)
{
	/* (INGEST_KEPT_COMMIT, _BRANCH, _LABEL and _META are bits 0 to 3) */
	struct buf q = BUF_INIT, qk = BUF_INIT, who = BUF_INIT, meta = BUF_INIT;
	const char *names[] = {"commit", "branch", "label", NULL};
	const char *const stored[] = {r->kept_commit, r->kept_branch, r->kept_label, r->kept_meta};
	const char *const given[] = {io->commit, io->branch, io->label, r->kept_meta_given};

	if (!(r->kept & mask))
		return;
	/* "metadata KEY" (the key as --meta gave it) */
	if (buf_printf(&who, "'%s'", cli_msgq(&q, path)) ||
	    ((r->kept & INGEST_KEPT_META) &&
	     buf_printf(&meta, "metadata %s",
			cli_msgq(&qk, r->kept_meta_key ? r->kept_meta_key : ""))))
		cli_print_error("out of memory");
	else {
		names[3] = meta.data;
		cli_warn_kept(who.data, r->run_id, names, stored, given, 4, r->kept & mask);
	}
	buf_release(&q);
	buf_release(&qk);
	buf_release(&who);
	buf_release(&meta);
}

/* The warning, once a command, for the runs it stored without a commit
 * (n of them, first to last): the fix is --commit, or the CI variable that
 * was ignored (id->ignored_from), or a repository git can read
 * (id->git_error), or a git work tree. */
static void ingest_warn_no_commit(int64_t first, int64_t last, int n, const struct identity *id)
{
	struct buf q = BUF_INIT;

	if (n == 1)
		fprintf(stderr, "scopedb: warning: run %" PRId64 " stored", first);
	else /* another writer's runs may lie between them */
		fprintf(stderr, "scopedb: warning: %d runs (%" PRId64 " to %" PRId64 "%s) stored",
			n, first, last, last - first + 1 == n ? "" : ", not every run between");
	fputs(" without a commit: pass --commit or ", stderr);
	if (id->ignored_from)
		fprintf(stderr, "set %s to a commit\n", id->ignored_from);
	else if (identity_commit_var(id->branch_from))
		/* a CI's branch without its commit: git is not asked in a CI */
		fprintf(stderr, "set %s beside %s\n", identity_commit_var(id->branch_from),
			id->branch_from);
	else if (id->git_error)
		fprintf(stderr, "let git read the repository (git says: %s)\n",
			cli_msgq(&q, id->git_error));
	else
		fputs("run inside a git work tree\n", stderr);
	buf_release(&q);
}

/*
 * Ingest file into the store of the command, which is opened at the first
 * file (*st NULL until then).  A store that does not exist yet is created
 * (with the directories it needs) only after the file has been read
 * (ingest_read()), so a command that stores nothing leaves no new empty
 * store behind, and the file is still opened once.  With q, the file is
 * files[i] of the queue that reads ahead, taken from it already read.
 * *file_err: the file's own error (reported like an ingest error); the
 * return value: an error of the store itself, which ends the command.
 */
static int ingest_one(struct ingest_result *r, struct store **st, const char *db, const char *file,
		      const struct ingest_opts *io, struct ingest_queue *q, int i, int *file_err)
{
	struct ingest_pending *p = NULL;
	int rc = 0;

	*file_err = 0;
	if (q) {
		*file_err = ingest_queue_next(q, i, &p, io->progress, io->progress_ctx);
		if (*file_err)
			goto out;
	}
	/* a connection string names a server's database: nothing to stat or create */
	if (!*st && store_file_missing(db)) {
		if (!p)
			*file_err = ingest_read(&p, NULL, file, io);
		/* a name the new store would refuse: no store made for it */
		if (!*file_err)
			*file_err = ingest_pending_names(p, io);
		if (*file_err)
			goto out;
		rc = cli_store_mkdirs(db);
		if (rc)
			goto out;
	}
	if (!*st) {
		rc = store_open(st, db, 0);
		if (rc)
			goto out;
	}
	*file_err = p ? ingest_write(r, *st, p) : ingest_file(r, *st, file, io);
out:
	ingest_pending_free(p);
	return rc;
}

/* 1 when the error is the store's own ("cannot update store 'X': ...",
 * "store 'X' is damaged: ..."), not the file's ("cannot read 'F': ..."). */
static int ingest_store_failed(void)
{
	const char *m = err_msg(), *sp;

	if (!strncmp(m, "store '", 7))
		return 1;
	sp = !strncmp(m, "cannot ", 7) ? strchr(m + 7, ' ') : NULL;
	return sp && !strncmp(sp, " store '", 8);
}

/*
 * Ingest files[0..n) one by one; the terminal gets a line per stored file
 * as it is done, JSON one array at the end (rendered into json).  *failed
 * is set when some file failed.  asked: INGEST_KEPT_* of the identity
 * fields given on the command line; id: the commit and branch found (for
 * the warnings: a CI variable that was no commit, git's error).  *st is opened (at db) by
 * ingest_one() at the first file.  0, or an error of the output or of
 * the store itself.
 */
static int ingest_files(struct buf *json, struct store **st, const char *db, struct ingest_opts *io,
			unsigned asked, const struct identity *id, char **files, int n,
			const char *fmt, int quiet, int *failed)
{
	struct buf line = BUF_INIT, wq = BUF_INIT;
	struct doc d;
	struct doc_value *list;
	struct ingest_queue *q = NULL;
	int i, rc = 0, no_commit = 0;
	int64_t no_commit_first = 0, no_commit_last = 0;

	doc_init(&d);
	list = doc_json_root(&d, DOC_V_ARR, JSONW_BLOCK);
	/* Many files: read ahead while storing (ingest_queue.c).  A store
	 * that exists is opened first, so that its errors come before any
	 * read, as for one file. */
	if (n > 1 && !store_file_missing(db))
		rc = store_open(st, db, 0);
	if (n > 1 && !rc)
		rc = ingest_queue_start(&q, files, n, io, st);
	for (i = 0; i < n && !rc; i++) {
		struct progress prog = {files[i], now_seconds(), 0.0, 0};
		struct ingest_result r;
		int e;

		io->progress = (!quiet && cli_format_is(fmt, "table") && cli_isatty(stderr))
				   ? progress_cb
				   : NULL;
		io->progress_ctx = &prog;
		err_clear();
		memset(&r, 0, sizeof(r));
		rc = ingest_one(&r, st, db, files[i], io, q, i, &e);
		if (rc)
			break;
		progress_clear(&prog);
		if (e) {
			*failed = 1;
			/* a store's own failure (locked, connection lost) does
			 * not name the file it could not store: said first */
			if (ingest_store_failed())
				cli_print_errorf("'%s' not stored: %s", files[i], err_msg());
			else
				cli_print_error(err_msg());
		} else if (r.duplicate) {
			ingest_warn_kept(files[i], &r, io, asked);
		} else if (!io->commit) {
			/* said once, of them all, at the end */
			if (!no_commit++)
				no_commit_first = r.run_id;
			no_commit_last = r.run_id;
		}
		/* (their text quotes the file: through escape_msg()) */
		if (!e && r.time_warning[0])
			fprintf(stderr, "scopedb: warning: %s\n", cli_msgq(&wq, r.time_warning));
		if (!e && r.warning[0])
			fprintf(stderr, "scopedb: warning: %s\n", cli_msgq(&wq, r.warning));
		if (cli_format_is(fmt, "json")) {
			ingest_json(&d, list, files[i], &r, e ? err_msg() : NULL);
		} else if (!e) {
			const struct ingest_view v = {files[i], &r};

			line.len = 0;
			rc = cli_output(&line, ingest_line, &v, fmt, 0);
			/* a failure is kept for cli_finish() to name (ENOSPC) */
			(void)cli_write_stdout(line.data, line.len);
		}
		fflush(stdout);
		ingest_result_release(&r);
	}
	ingest_queue_free(q);
	if (no_commit)
		ingest_warn_no_commit(no_commit_first, no_commit_last, no_commit, id);
	if (!rc && cli_format_is(fmt, "json"))
		rc = cli_render(json, &d, fmt, 0);
	doc_release(&d);
	buf_release(&line);
	buf_release(&wq);
	return rc;
}

const struct opt_cmd cmd_ingest_usage = {
    .name = "ingest",
    .args = "FILE...",
    .summary = "import scope-profiler profiles (HDF5 or JSON) into the store",
    OPT_ARGS(1, OPT_ARGS_ANY, "no file to ingest"),
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
	const char *db = NULL, *commit = NULL, *branch = NULL;
	struct identity id;
	struct opt_list tags = OPT_LIST_INIT, meta = OPT_LIST_INIT;
	struct ingest_opts io;
	const char *fmt = "table";
	struct store *st = NULL;
	struct buf json = BUF_INIT;
	int quiet = 0, failed = 0, code = CLI_EXIT_ERROR, nargs;
	unsigned asked;
	int allow_nfs = 0;
	const struct opt opts[] = {
	    OPT__DB(&db),
	    OPT__ALLOW_NETWORK_FS(&allow_nfs),
	    OPT_LIST(0, "tag", &tags, "T",
		     "tag the run (repeatable; also added to an already\nstored run)"),
	    OPT_STRING(0, "label", &io.label, "L",
		       "label of the run (default: the file's metadata label)"),
	    OPT_STRING(0, "commit", &commit, "SHA",
		       "commit: a sha, or a ref git resolves (HEAD, a branch,\n"
		       "a tag; default: the CI's variable, else the git work\n"
		       "tree's HEAD)"),
	    OPT_STRING(0, "branch", &branch, "NAME",
		       "branch (default: the CI's variable, else the work tree's)"),
	    OPT_CALLBACK(0, "meta", &meta, "KEY=VALUE",
			 "extra metadata (repeatable; overrides the file's)", ingest_opt_meta, 0),
	    OPT__FORMAT(&fmt, "table json"),
	    OPT_FLAG('q', "quiet", &quiet, "no progress display"),
	    OPT__FILE_LIMITS(),
	    OPT_END(),
	};

	memset(&io, 0, sizeof(io));
	identity_init(&id);
	nargs = opt_parse(self, opts, argc, argv, &code);
	if (nargs < 0)
		goto out;
	io.tags = tags.v;
	io.ntags = tags.n;
	io.meta = meta.v;
	io.nmeta = meta.n;
	if (identity_resolve(&id, commit, branch)) {
		code = cli_error();
		goto out;
	}
	if (id.ignored_from) {
		struct buf q = BUF_INIT;

		fprintf(stderr, "scopedb: warning: %s '%s' is not a commit; ignored\n",
			id.ignored_from, cli_msgq(&q, id.ignored_value));
		buf_release(&q);
	}
	/* a branch the CI or git names that a store cannot hold (not UTF-8,
	 * too long) is left unset, as a CI commit that is none: said, and
	 * the run stored; --branch's own is refused by ingest_opts_check() */
	if (id.branch && strcmp(id.branch_from, "--branch") != 0 &&
	    (util_utf8_bad(id.branch) || strlen(id.branch) > STORE_NAME_MAX)) {
		struct buf q = BUF_INIT;
		char shown[160];

		/* quoted to 120 bytes */
		fprintf(stderr,
			"scopedb: warning: branch '%s' (from %s) is %s; the run is stored "
			"without a branch (give one with --branch)\n",
			cli_msgq(&q, util_quote_msg_buf(shown, sizeof(shown), 120, id.branch)),
			id.branch_from,
			util_utf8_bad(id.branch) ? "not valid UTF-8" : "too long for a store");
		buf_release(&q);
		free(id.branch);
		id.branch = NULL;
		id.branch_from = NULL;
	}
	io.commit = id.commit;
	io.branch = id.branch;
	if (ingest_opts_check(&io)) {
		code = cli_error();
		goto out;
	}
	cli_warn_network_fs(cli_db_path(db), allow_nfs);
	asked = (commit ? INGEST_KEPT_COMMIT : 0) | (branch ? INGEST_KEPT_BRANCH : 0) |
		(io.label ? INGEST_KEPT_LABEL : 0) | (io.nmeta ? INGEST_KEPT_META : 0);
	if (ingest_files(&json, &st, cli_db_path(db), &io, asked, &id, argv, nargs, fmt, quiet,
			 &failed)) {
		code = cli_error();
		goto out;
	}
	(void)cli_write_stdout(json.data, json.len);
	code = cli_finish(failed ? CLI_EXIT_ERROR : CLI_EXIT_OK);
out:
	store_close(st);
	identity_release(&id);
	buf_release(&json);
	opt_list_release(&tags);
	opt_list_release(&meta);
	return code;
}
