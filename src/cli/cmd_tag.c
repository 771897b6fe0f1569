/*
 * cmd_tag.c - "scopedb tag RUN TAG..." and, sharing the code,
 * "scopedb untag RUN TAG..." (cmd_untag.c): add or remove tags of one
 * stored run, all in one transaction.  Tags already present (or already
 * absent) are reported, not errors, so the commands can be repeated.
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
#include "scopedb/util.h"
#include "util/suggest.h"

/*
 * Report "run N: ..." for each tag after the change is committed; a tag
 * untag did not find is followed by the run's nearest tag ("; did you mean
 * 'nightly'?", have: the run's tags now).  0 or ERR_NOMEM.
 */
static int tag_report(int64_t run, char **tags, const int *changed, int n, int add,
		      const struct store_run *have)
{
	struct buf hint = BUF_INIT, q = BUF_INIT, qh = BUF_INIT;
	int i, rc = 0;

	for (i = 0; i < n && !rc; i++) {
		const char *tag = cli_outq(&q, tags[i]);

		if (add) {
			printf(changed[i] ? "run %" PRId64 ": tagged '%s'\n"
					  : "run %" PRId64 ": already tagged '%s'\n",
			       run, tag);
		} else if (changed[i]) {
			printf("run %" PRId64 ": removed tag '%s'\n", run, tag);
		} else {
			hint.len = 0;
			rc = buf_puts(&hint, "")
				 ? err_nomem()
				 : suggest_hint(&hint, tags[i], (const char *const *)have->tags,
						have->ntags);
			printf("run %" PRId64 ": has no tag '%s'%s\n", run, tag,
			       cli_outq(&qh, hint.data));
		}
	}
	buf_release(&hint);
	buf_release(&q);
	buf_release(&qh);
	return rc;
}

/* 1 when run r has every tag of tags[0..n) (add) or none of them (untag):
 * nothing to write. */
static int tag_nothing_to_do(const struct store_run *r, char **tags, int n, int add)
{
	int i;
	size_t k;

	for (i = 0; i < n; i++) {
		for (k = 0; k < r->ntags && strcmp(r->tags[k], tags[i]); k++)
			;
		if ((k < r->ntags) != add)
			return 0;
	}
	return 1;
}

const struct opt_cmd cmd_tag_usage = {
    .name = "tag",
    .args = "RUN TAG...",
    .summary = "add tags to a stored run",
    OPT_ARGS(2, OPT_ARGS_ANY, "tag needs a run SELECTOR and at least one TAG"),
};

const struct opt_cmd cmd_untag_usage = {
    .name = "untag",
    .args = "RUN TAG...",
    .summary = "remove tags from a stored run",
    OPT_ARGS(2, OPT_ARGS_ANY, "untag needs a run SELECTOR and at least one TAG"),
};

int cmd_tag_change(int argc, char **argv, int add)
{
	const struct opt_cmd *self = add ? &cmd_tag_usage : &cmd_untag_usage;
	struct select_spec sel;
	struct store_run now;
	struct store *st = NULL;
	const char *db = NULL;
	int allow_nfs = 0;
	const struct opt opts[] = {OPT__DB(&db), OPT__ALLOW_NETWORK_FS(&allow_nfs), OPT_END()};
	int *changed = NULL;
	int64_t run = 0;
	int nargs, ntags, i, in_txn = 0, code = CLI_EXIT_ERROR, rc = 0;

	memset(&sel, 0, sizeof(sel));
	memset(&now, 0, sizeof(now));
	nargs = opt_parse(self, opts, argc, argv, &code);
	if (nargs < 0)
		goto out;
	ntags = nargs - 1;
	for (i = 0; i < ntags; i++)
		if (!argv[1 + i][0]) {
			code = opt_usage_error(self, opts, "empty tag");
			goto out;
		}
	changed = util_calloc((size_t)ntags, sizeof(*changed));
	if (!changed) {
		code = cli_error();
		goto out;
	}
	if (runarg_parse_stored(&sel, argv[0], self->name)) {
		code = cli_error();
		goto out;
	}
	/* Tagging never creates a store. */
	cli_warn_network_fs(cli_db_path(db), allow_nfs);
	rc = store_open(&st, cli_db_path(db), STORE_EXISTING);
	/* nothing to change: no write, so that a role or a file that may
	 * only be read can repeat it, as ingest of a stored file */
	if (!rc)
		rc = store_resolve(st, &run, &sel);
	if (!rc)
		rc = store_get_run(st, &now, run);
	if (!rc && tag_nothing_to_do(&now, argv + 1, ntags, add)) {
		if (tag_report(run, argv + 1, changed, ntags, add, &now)) {
			code = cli_error();
			goto out;
		}
		code = cli_finish(CLI_EXIT_OK);
		goto out;
	}
	store_run_release(&now);
	if (!rc)
		rc = store_begin(st);
	in_txn = rc == 0;
	if (!rc)
		rc = store_resolve(st, &run, &sel);
	for (i = 0; i < ntags && !rc; i++)
		rc = add ? store_add_tag(st, &changed[i], run, argv[1 + i])
			 : store_remove_tag(st, &changed[i], run, argv[1 + i]);
	if (rc) {
		if (in_txn)
			store_rollback(st);
		code = cli_error();
		goto out;
	}
	in_txn = 0;
	if (store_commit(st)) {
		code = cli_error();
		goto out;
	}
	/* the tags the run has now, for untag's suggestions */
	if (!add && store_get_run(st, &now, run)) {
		code = cli_error();
		goto out;
	}
	if (tag_report(run, argv + 1, changed, ntags, add, &now)) {
		code = cli_error();
		goto out;
	}
	code = cli_finish(CLI_EXIT_OK);
out:
	free(changed);
	store_run_release(&now);
	select_release(&sel);
	store_close(st);
	return code;
}

int cmd_tag(int argc, char **argv)
{
	return cmd_tag_change(argc, argv, 1);
}
