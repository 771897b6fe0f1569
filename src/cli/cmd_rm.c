/*
 * cmd_rm.c - "scopedb rm RUN...": remove stored runs with everything of
 * theirs (tags, metadata, timings, durations).  All selectors are resolved
 * and all runs removed in one transaction: if one fails (unknown selector,
 * a pinned run without --force), nothing is removed.  --force also removes
 * the pins of a pinned run.  The space is given back by "scopedb vacuum".
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

const struct opt_cmd cmd_rm_usage = {
    .name = "rm",
    .args = "RUN...",
    .after = "All runs are removed in one transaction, or none.  'scopedb vacuum' gives the\n"
	     "space back.",
    .summary = "remove stored runs",
    OPT_ARGS(1, OPT_ARGS_ANY, "rm needs at least one run SELECTOR"),
};

int cmd_rm(int argc, char **argv)
{
	const struct opt_cmd *self = &cmd_rm_usage;
	struct select_spec sel;
	struct store *st = NULL;
	struct buf q = BUF_INIT;
	const char *db = NULL;
	int64_t *ids = NULL;
	char **unpinned = NULL;
	int n = 0, nids = 0, i, j, force = 0, in_txn = 0, code = CLI_EXIT_ERROR, rc = 0;
	int allow_nfs = 0;
	const struct opt opts[] = {
	    OPT__DB(&db),
	    OPT__ALLOW_NETWORK_FS(&allow_nfs),
	    OPT_FLAG('f', "force", &force, "also remove pinned runs (and their pins)"),
	    OPT_END(),
	};

	memset(&sel, 0, sizeof(sel));
	n = opt_parse(self, opts, argc, argv, &code);
	if (n < 0) {
		n = 0;
		goto out;
	}
	ids = util_calloc((size_t)n, sizeof(*ids));
	unpinned = ids ? util_calloc((size_t)n, sizeof(*unpinned)) : NULL;
	if (!unpinned) {
		code = cli_error();
		goto out;
	}
	/* Check every selector before touching the store. */
	for (i = 0; i < n; i++) {
		if (runarg_parse_stored(&sel, argv[i], "rm")) {
			code = cli_error();
			goto out;
		}
		select_release(&sel);
	}
	cli_warn_network_fs(cli_db_path(db), allow_nfs);
	rc = store_open(&st, cli_db_path(db), STORE_EXISTING);
	if (!rc)
		rc = store_begin(st);
	in_txn = rc == 0;
	/* Resolve all selectors first: "latest latest~1" names two runs even
	 * though removing the first would shift the second. */
	for (i = 0; i < n && !rc; i++) {
		int64_t id = 0;

		rc = select_parse(&sel, argv[i]);
		if (!rc)
			rc = store_resolve(st, &id, &sel);
		select_release(&sel);
		for (j = 0; j < nids && !rc; j++)
			if (ids[j] == id)
				break;
		if (!rc && j == nids)
			ids[nids++] = id;
	}
	for (i = 0; i < nids && !rc; i++)
		rc = store_remove_run(st, &unpinned[i], ids[i], force);
	if (rc) {
		if (in_txn)
			store_rollback(st);
		code = cli_error();
		goto out;
	}
	if (store_commit(st)) {
		code = cli_error();
		goto out;
	}
	for (i = 0; i < nids; i++) {
		if (unpinned[i])
			printf("removed run %" PRId64 " (and its pin%s %s)\n", ids[i],
			       strchr(unpinned[i], ',') ? "s" : "", cli_outq(&q, unpinned[i]));
		else
			printf("removed run %" PRId64 "\n", ids[i]);
	}
	code = cli_finish(CLI_EXIT_OK);
out:
	for (i = 0; unpinned && i < n; i++)
		free(unpinned[i]);
	free(unpinned);
	free(ids);
	buf_release(&q);
	select_release(&sel);
	store_close(st);
	return code;
}
