/*
 * cmd_vacuum.c - "scopedb vacuum": give back the space of removed runs
 * (forget unused region names, VACUUM, truncate the WAL) and refresh the
 * query planner's statistics (PRAGMA optimize).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "cli/cli.h"
#include "scopedb/err.h"
#include "scopedb/store.h"

const struct opt_cmd cmd_vacuum_usage = {
    .name = "vacuum",
    .after = "Gives back the space of removed runs and refreshes the query planner statistics.",
    .summary = "compact the store",
};

int cmd_vacuum(int argc, char **argv)
{
	const struct opt_cmd *self = &cmd_vacuum_usage;
	struct store *st = NULL;
	const char *db = NULL;
	int allow_nfs = 0;
	const struct opt opts[] = {OPT__DB(&db), OPT__ALLOW_NETWORK_FS(&allow_nfs), OPT_END()};
	struct buf q = BUF_INIT;
	char a[32], b[32];
	int64_t before = 0, after = 0;
	int code = CLI_EXIT_ERROR;

	if (opt_parse(self, opts, argc, argv, &code) < 0)
		goto out;
	cli_warn_network_fs(cli_db_path(db), allow_nfs);
	if (store_open(&st, cli_db_path(db), STORE_EXISTING) || store_vacuum(st, &before, &after)) {
		code = cli_error();
		goto out;
	}
	cli_bytes(a, sizeof(a), before);
	cli_bytes(b, sizeof(b), after);
	printf("vacuumed '%s': %s -> %s\n", cli_outq(&q, store_location(st)), a, b);
	code = cli_finish(CLI_EXIT_OK);
out:
	buf_release(&q);
	store_close(st);
	return code;
}
