/*
 * cmd_transfer.c - "scopedb push --to DB [RUN...]" and "scopedb pull --from
 * DB [RUN...]": copy runs (every run, or the ones the selectors name in the
 * source) with their tags, metadata and timings, and with --pins the pins
 * naming them, from the --db store to another one or back, across
 * backends (a local SQLite file and a team PostgreSQL store, say).  The
 * core is transfer_runs() (scopedb/transfer.h); runs the destination has
 * already (same content) are skipped, so both commands can be repeated.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "cli/cli.h"
#include "scopedb/err.h"
#include "scopedb/runarg.h"
#include "scopedb/select.h"
#include "scopedb/store.h"
#include "scopedb/transfer.h"

const struct opt_cmd cmd_push_usage = {
    .name = "push",
    .args = "--to DB [RUN...]",
    .before = "Copy runs of the --db store (all of them, or the ones the selectors name) to the\n"
	      "store DB, e.g. a team store: --to postgresql://user@host/dbname.  Runs DB has\n"
	      "already (same file content) are skipped, so pushing again copies only what is\n"
	      "new.",
    .summary = "copy runs to another store",
    OPT_ARGS(0, OPT_ARGS_ANY, ""),
};

const struct opt_cmd cmd_pull_usage = {
    .name = "pull",
    .args = "--from DB [RUN...]",
    .before = "Copy runs of the store DB (all of them, or the ones the selectors name there)\n"
	      "into the --db store.  Runs the --db store has already are skipped.",
    .summary = "copy runs from another store",
    OPT_ARGS(0, OPT_ARGS_ANY, ""),
};

/* The warning for a run skipped as the destination had it with another
 * commit, branch or label (or none): the destination keeps its own, as
 * ingest does, and says which. */
static void transfer_warn_kept(const struct transfer_run *t)
{
	static const char *const names[TRANSFER_KEPT_N] = TRANSFER_KEPT_NAMES;
	struct buf q = BUF_INIT, who = BUF_INIT;

	if (buf_printf(&who, "run %" PRId64 " (%s)", t->src_id, cli_msgq(&q, t->source_path)))
		cli_print_error("out of memory");
	else
		cli_warn_kept(who.data, t->dst_id, names, (const char *const *)t->kept_value,
			      (const char *const *)t->given_value, TRANSFER_KEPT_N, t->kept);
	buf_release(&q);
	buf_release(&who);
}

/* What was done with run t, said as soon as it is done (transfer_runs_each()):
 * a line on stdout, flushed (a log of a job killed mid-push shows what it
 * committed); a run not copied on stderr, and so is a run skipped whose
 * stored commit, branch or label differ. */
static void transfer_say_run(void *ctx, const struct transfer_run *t)
{
	struct buf q = BUF_INIT;

	(void)ctx;
	if (t->error) {
		fflush(stdout);
		cli_print_error(t->error);
	} else if (t->copied) {
		printf("copied run %" PRId64 " (%s) as run %" PRId64 "\n", t->src_id,
		       cli_outq(&q, t->source_path), t->dst_id);
	} else {
		printf("skipped run %" PRId64 " (%s): already stored as run %" PRId64 "\n",
		       t->src_id, cli_outq(&q, t->source_path), t->dst_id);
		if (t->kept)
			transfer_warn_kept(t);
	}
	fflush(stdout);
	buf_release(&q);
}

/* After the runs (said as they were done): one line per pin, then the
 * totals. */
static void transfer_report(const struct transfer_result *r, int push, const char *other)
{
	struct buf q = BUF_INIT;
	size_t i, copied = 0, total;
	int stopped;

	for (i = 0; i < r->nruns; i++)
		copied += r->runs[i].copied != 0;
	for (i = 0; i < r->npins; i++) {
		const struct transfer_pin *p = &r->pins[i];
		const char *name = cli_outq(&q, p->name);

		if (p->state == TRANSFER_PIN_SET)
			printf("pinned '%s' to run %" PRId64 "\n", name, p->dst_id);
		else if (p->state == TRANSFER_PIN_SAME)
			printf("pin '%s' already names run %" PRId64 "\n", name, p->dst_id);
		else
			printf("pin '%s' names run %" PRId64 ", left as is (not run %" PRId64 ")\n",
			       name, p->other, p->dst_id);
	}
	/* the runs an error of a store left untried (some may be there
	 * already: their batch was rolled back before it could tell) */
	total = r->nselected > r->nruns ? r->nselected : r->nruns;
	stopped = total > r->nruns; /* by an error: not "pushed 12 runs" */
	printf("%s %zu run%s %s '%s'%s: %zu copied, %zu already there",
	       stopped ? (push ? "push of" : "pull of") : (push ? "pushed" : "pulled"), total,
	       total == 1 ? "" : "s", push ? "to" : "from", cli_outq(&q, other),
	       stopped ? " stopped" : "", copied, r->nruns - copied - r->nfailed);
	if (r->nfailed)
		printf(", %zu not copied", r->nfailed);
	if (stopped)
		printf(", %zu left untried", total - r->nruns);
	printf("\n");
	buf_release(&q);
}

/* The source ids the selectors argv[0..n) name (NULL for none: all runs). */
static int transfer_resolve(int64_t **out, struct store *src, int n, char **argv)
{
	struct select_spec sel;
	int64_t *ids;
	int i, ret = 0;

	*out = NULL;
	if (!n)
		return 0;
	ids = util_calloc((size_t)n, sizeof(*ids));
	if (!ids)
		return ERR_NOMEM;
	for (i = 0; i < n && !ret; i++) {
		ret = select_parse(&sel, argv[i]);
		if (!ret)
			ret = store_resolve(src, &ids[i], &sel);
		select_release(&sel);
	}
	if (ret) {
		free(ids);
		return ret;
	}
	*out = ids;
	return 0;
}

static int cmd_transfer(int argc, char **argv, int push)
{
	const struct opt_cmd *self = push ? &cmd_push_usage : &cmd_pull_usage;
	struct transfer_result res;
	struct select_spec sel;
	struct store *local = NULL, *other = NULL, *src, *dst;
	const char *db = NULL, *to = NULL, *from = NULL, *other_db, *dst_db;
	int64_t *ids = NULL;
	struct buf q = BUF_INIT, q2 = BUF_INIT;
	size_t ntocopy = 0;
	int n, i, pins = 0, allow_nfs = 0, code = CLI_EXIT_ERROR, rc;
	/* push and pull differ only in the other store's option: --to or --from */
	const struct opt opts[] = {
	    OPT_STRING(0, push ? "to" : "from", push ? &to : &from, "DB",
		       push ? "the store to copy the runs to" : "the store to copy the runs from"),
	    OPT_FLAG(0, "pins", &pins, "also copy the pins naming the runs (never moves a pin)"),
	    OPT__DB(&db),
	    OPT__ALLOW_NETWORK_FS(&allow_nfs),
	    OPT_END(),
	};

	memset(&res, 0, sizeof(res));
	memset(&sel, 0, sizeof(sel));
	n = opt_parse(self, opts, argc, argv, &code);
	if (n < 0)
		return code;
	other_db = push ? to : from;
	if (push ? from != NULL : to != NULL)
		return opt_usage_error(self, opts,
				       push ? "push takes --to, not --from"
					    : "pull takes --from, not --to");
	if (!other_db)
		return opt_usage_error(
		    self, opts,
		    push ? "push needs --to DB, the store to copy the runs to"
			 : "pull needs --from DB, the store to copy the runs from");
	if (store_check_location(other_db, push ? "--to" : "--from"))
		return cli_error();
	/* Check every selector before touching a store. */
	for (i = 0; i < n; i++) {
		if (runarg_parse_stored(&sel, argv[i], self->name))
			return cli_error();
		select_release(&sel);
	}
	/* The source first: a selector it does not know creates nothing.
	 * pull's source is someone else's file: read-only, never upgraded. */
	rc = store_open(push ? &local : &other, push ? cli_db_path(db) : other_db,
			STORE_READONLY | (push ? 0 : STORE_NO_UPGRADE));
	src = push ? local : other;
	dst_db = push ? other_db : cli_db_path(db);
	if (!rc)
		rc = transfer_resolve(&ids, src, n, argv);
	if (!rc)
		cli_warn_network_fs(dst_db, allow_nfs);
	/* A missing destination is created (with its directories, as ingest
	 * does) only once the first run to copy has been read and checked: a
	 * damaged source creates nothing (and no store file is ever removed,
	 * as another process may use it by now). */
	if (!rc && store_file_missing(dst_db)) {
		rc = transfer_check(src, ids, (size_t)n, &ntocopy);
		if (!rc && !ntocopy) {
			/* nothing to copy: nothing to create either */
			/* (a missing destination is a file; the source, open,
			 * by its masked location: a URI's password starred) */
			printf("%s 0 runs %s '%s': nothing to copy, '%s' not created\n",
			       push ? "pushed" : "pulled", push ? "to" : "from",
			       cli_outq(&q, push ? dst_db : store_location(src)),
			       cli_outq(&q2, dst_db));
			code = cli_finish(CLI_EXIT_OK);
			goto out;
		}
		if (!rc)
			rc = cli_store_mkdirs(dst_db);
	}
	if (!rc)
		rc = store_open(push ? &other : &local, dst_db, 0);
	dst = push ? other : local;
	if (!rc)
		rc = transfer_runs_each(&res, dst, src, ids, (size_t)n, pins, transfer_say_run,
					NULL);
	if (other && (res.nruns || res.nselected || !rc))
		transfer_report(&res, push, store_location(other));
	/* a run not copied has been said: the exit status says it too */
	code = rc ? cli_error() : cli_finish(res.nfailed ? CLI_EXIT_ERROR : CLI_EXIT_OK);
out:
	buf_release(&q);
	buf_release(&q2);
	transfer_result_release(&res);
	free(ids);
	store_close(other);
	store_close(local);
	return code;
}

int cmd_push(int argc, char **argv)
{
	return cmd_transfer(argc, argv, 1);
}

int cmd_pull(int argc, char **argv)
{
	return cmd_transfer(argc, argv, 0);
}
