/*
 * cmd_unpin.c - "scopedb unpin NAME": remove a pin (the run itself stays,
 * and may be removed once no pin refers to it).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "cli/cli.h"
#include "scopedb/err.h"
#include "scopedb/store.h"

const struct opt_cmd cmd_unpin_usage = {
    .name = "unpin",
    .args = "NAME",
    .summary = "remove a pin",
    OPT_ARGS_EXACTLY(1, "unpin needs a pin NAME"),
};

int cmd_unpin(int argc, char **argv)
{
	const struct opt_cmd *self = &cmd_unpin_usage;
	const char *db = NULL;
	int allow_nfs = 0;
	const struct opt opts[] = {OPT__DB(&db), OPT__ALLOW_NETWORK_FS(&allow_nfs), OPT_END()};
	struct store *st = NULL;
	struct buf q = BUF_INIT;
	int64_t prev = 0;
	int code = CLI_EXIT_ERROR;

	if (opt_parse(self, opts, argc, argv, &code) < 0)
		goto out;
	cli_warn_network_fs(cli_db_path(db), allow_nfs);
	if (store_open(&st, cli_db_path(db), STORE_EXISTING) ||
	    store_pin_remove(st, &prev, argv[0])) {
		code = cli_error();
		goto out;
	}
	printf("unpinned '%s' (was run %" PRId64 ")\n", cli_outq(&q, argv[0]), prev);
	code = cli_finish(CLI_EXIT_OK);
out:
	buf_release(&q);
	store_close(st);
	return code;
}
