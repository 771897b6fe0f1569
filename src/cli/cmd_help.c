/*
 * cmd_help.c - "scopedb help [COMMAND]" and the shared help printer: the
 * command list is generated from the table in main.c.
 */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "cli/cli.h"

const struct cmd *cmd_find(const char *name)
{
	size_t i;

	for (i = 0; i < cmd_count; i++)
		if (!strcmp(cmd_table[i].name, name))
			return &cmd_table[i];
	return NULL;
}

void cmd_print_help(const struct cmd *c)
{
	printf("usage: %s\n\n%s\n", c->usage, c->summary);
}

int cmd_help(int argc, char **argv)
{
	const struct cmd *c;
	size_t i;

	if (argc > 2) {
		fprintf(stderr, "scopedb: too many arguments\nusage: scopedb help [COMMAND]\n");
		return CLI_EXIT_ERROR;
	}
	if (argc == 2 && strcmp(argv[1], "--help") && strcmp(argv[1], "-h")) {
		c = cmd_find(argv[1]);
		if (!c) {
			fprintf(stderr, "scopedb: '%s' is not a scopedb command\n", argv[1]);
			return CLI_EXIT_ERROR;
		}
		cmd_print_help(c);
		return cli_finish(CLI_EXIT_OK);
	}
	printf("usage: scopedb [--help] [--version] COMMAND [ARGS]\n\n"
	       "Keep the performance history of scope-profiler runs in an SQLite store.\n\n"
	       "Commands:\n");
	for (i = 0; i < cmd_count; i++)
		printf("   %-10s %s\n", cmd_table[i].name, cmd_table[i].summary);
	printf("\nSee 'scopedb help COMMAND' for the options of a command.\n");
	return cli_finish(CLI_EXIT_OK);
}
