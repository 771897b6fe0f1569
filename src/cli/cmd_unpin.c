/*
 * cmd_unpin.c - "scopedb unpin NAME": remove a pin (the run itself stays,
 * and may be removed once no pin refers to it).
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd.h"
#include "cli/cli.h"
#include "scopedb/err.h"
#include "scopedb/store.h"

int cmd_unpin(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"db", required_argument, NULL, 'd'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const struct cmd *self = cmd_find("unpin");
	const char *db = NULL;
	struct store *st = NULL;
	int64_t prev = 0;
	int code = CLI_EXIT_ERROR, o;

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
	if (argc - optind != 1) {
		code = cli_usage_error(self->usage, argc - optind < 1 ? "unpin needs a pin NAME"
								      : "too many arguments");
		goto out;
	}
	if (store_open(&st, cli_db_path(db), STORE_EXISTING) ||
	    store_pin_remove(st, &prev, argv[optind])) {
		code = cli_error();
		goto out;
	}
	printf("unpinned '%s' (was run %" PRId64 ")\n", argv[optind], prev);
	code = cli_finish(CLI_EXIT_OK);
out:
	store_close(st);
	return code;
}
