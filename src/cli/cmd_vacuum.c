/*
 * cmd_vacuum.c - "scopedb vacuum": give back the space of removed runs
 * (forget unused region names, VACUUM, truncate the WAL) and refresh the
 * query planner's statistics (PRAGMA optimize).
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

/* Bytes as "812 KiB", "3.4 MiB". */
static void vacuum_size(char *s, size_t len, int64_t bytes)
{
	if (bytes < 1024)
		snprintf(s, len, "%" PRId64 " bytes", bytes);
	else if (bytes < 1024 * 1024)
		snprintf(s, len, "%.1f KiB", (double)bytes / 1024.0);
	else
		snprintf(s, len, "%.1f MiB", (double)bytes / (1024.0 * 1024.0));
}

int cmd_vacuum(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"db", required_argument, NULL, 'd'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const struct cmd *self = cmd_find("vacuum");
	struct store *st = NULL;
	const char *db = NULL;
	char a[32], b[32];
	int64_t before = 0, after = 0;
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
	if (optind < argc) {
		code = cli_usage_error(self->usage, "unexpected argument '%s'", argv[optind]);
		goto out;
	}
	if (store_open(&st, cli_db_path(db), STORE_EXISTING) || store_vacuum(st, &before, &after)) {
		code = cli_error();
		goto out;
	}
	vacuum_size(a, sizeof(a), before);
	vacuum_size(b, sizeof(b), after);
	printf("vacuumed '%s': %s -> %s\n", cli_db_path(db), a, b);
	code = cli_finish(CLI_EXIT_OK);
out:
	store_close(st);
	return code;
}
