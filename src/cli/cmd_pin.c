/*
 * cmd_pin.c - "scopedb pin NAME SELECTOR": give a stored run a name
 * ("pin:NAME" in selectors), e.g. the baseline CI checks against.  An
 * existing pin is moved, and the output says from which run to which.  A
 * pinned run cannot be removed until it is unpinned.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd.h"
#include "cli/cli.h"
#include "scopedb/err.h"
#include "scopedb/select.h"
#include "scopedb/store.h"

int cmd_pin(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"db", required_argument, NULL, 'd'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const struct cmd *self = cmd_find("pin");
	const char *db = NULL, *name, *arg;
	struct select_spec sel;
	struct store *st = NULL;
	struct stat sb;
	int64_t run = 0, prev = 0;
	int code = CLI_EXIT_ERROR, o;

	memset(&sel, 0, sizeof(sel));
	opterr = 0;
	while ((o = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (o) {
		case 'd':
			db = optarg;
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
	if (argc - optind != 2) {
		code = cli_usage_error(self->usage, argc - optind < 2
							? "pin needs a NAME and a run SELECTOR"
							: "too many arguments");
		goto out;
	}
	name = argv[optind];
	arg = argv[optind + 1];
	if (select_check_pin_name(name)) {
		code = cli_error();
		goto out;
	}
	if (select_parse(&sel, arg)) {
		if (stat(arg, &sb) == 0 && S_ISREG(sb.st_mode))
			err_set(ERR_USAGE, "cannot pin the file '%s': ingest it, then pin its run",
				arg);
		code = cli_error();
		goto out;
	}
	/* Pinning never creates a store. */
	if (store_open(&st, cli_db_path(db), STORE_EXISTING) || store_resolve(st, &run, &sel) ||
	    store_pin_set(st, &prev, name, run)) {
		code = cli_error();
		goto out;
	}
	if (prev == 0)
		printf("pinned '%s' to run %" PRId64 "\n", name, run);
	else if (prev == run)
		printf("pin '%s' already on run %" PRId64 "\n", name, run);
	else
		printf("moved pin '%s' from run %" PRId64 " to run %" PRId64 "\n", name, prev, run);
	code = cli_finish(CLI_EXIT_OK);
out:
	select_release(&sel);
	store_close(st);
	return code;
}
