/*
 * cmd_pin.c - "scopedb pin NAME SELECTOR": give a stored run a name
 * ("pin:NAME" in selectors), e.g. the baseline CI checks against.  An
 * existing pin is moved, and the output says from which run to which;
 * with --if-missing it stays where it is (the first run of a CI pipeline
 * pins its baseline, later ones leave it).  A pinned run cannot be removed
 * until it is unpinned.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd.h"
#include "cli/cli.h"
#include "scopedb/err.h"
#include "scopedb/select.h"
#include "scopedb/store.h"

const struct opt_cmd cmd_pin_usage = {
    .name = "pin",
    .args = "NAME RUN",
    .after = "NAME is 1 to 64 ASCII letters, digits, '.', '_', '-' or '/'.  RUN is a\n"
	     "selector (42, latest, tag:NAME, ...); an existing pin is moved (with\n"
	     "--if-missing: left as is).  Use it as pin:NAME; a pinned run cannot be\n"
	     "removed.",
    .summary = "name a stored run, e.g. the baseline for check",
    OPT_ARGS_EXACTLY(2, "pin needs a NAME and a run SELECTOR"),
};

int cmd_pin(int argc, char **argv)
{
	const struct opt_cmd *self = &cmd_pin_usage;
	const char *db = NULL, *name, *arg;
	int if_missing = 0;
	int allow_nfs = 0;
	const struct opt opts[] = {
	    OPT__DB(&db),
	    OPT__ALLOW_NETWORK_FS(&allow_nfs),
	    OPT_FLAG(0, "if-missing", &if_missing,
		     "only make the pin: leave an existing one as is"),
	    OPT_END(),
	};
	struct select_spec sel;
	struct store *st = NULL;
	struct buf q = BUF_INIT;
	struct stat sb;
	int64_t run = 0, prev = 0;
	int code = CLI_EXIT_ERROR;

	memset(&sel, 0, sizeof(sel));
	if (opt_parse(self, opts, argc, argv, &code) < 0)
		goto out;
	name = argv[0];
	arg = argv[1];
	if (select_check_pin_name(name)) {
		code = cli_error();
		goto out;
	}
	if (select_parse_stored(&sel, arg)) {
		if (stat(arg, &sb) == 0)
			err_set(ERR_USAGE,
				S_ISREG(sb.st_mode)
				    ? "cannot pin the file '%s': ingest it, then pin its run"
				    : "cannot pin '%s': not a stored run (nor a file)",
				arg);
		code = cli_error();
		goto out;
	}
	/* Pinning never creates a store. */
	cli_warn_network_fs(cli_db_path(db), allow_nfs);
	if (store_open(&st, cli_db_path(db), STORE_EXISTING) || store_resolve(st, &run, &sel) ||
	    (if_missing ? store_pin_add : store_pin_set)(st, &prev, name, run)) {
		code = cli_error();
		goto out;
	}
	name = cli_outq(&q, name);
	if (prev == 0)
		printf("pinned '%s' to run %" PRId64 "\n", name, run);
	else if (prev == run)
		printf("pin '%s' already on run %" PRId64 "\n", name, run);
	else if (if_missing)
		printf("pin '%s' exists (run %" PRId64 "); left as is\n", name, prev);
	else
		printf("moved pin '%s' from run %" PRId64 " to run %" PRId64 "\n", name, prev, run);
	code = cli_finish(CLI_EXIT_OK);
out:
	buf_release(&q);
	select_release(&sel);
	store_close(st);
	return code;
}
