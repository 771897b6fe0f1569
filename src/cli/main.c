/*
 * main.c - the scopedb entry point: the command table and the dispatch to
 * src/cli/cmd_<name>.c.  Global --help, --version and -V are handled here; the
 * command list is generated from the table (cmd_help.c).
 */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "cli/cli.h"
#include "util/suggest.h"

/* The commands of CMD_LIST (cmd.h); their usage texts and options are in
 * each cmd_<name>.c. */
#define MAIN_ENTRY_(name, hidden) {cmd_##name, &cmd_##name##_usage, hidden},
const struct cmd cmd_table[] = {CMD_LIST(MAIN_ENTRY_)};
const size_t cmd_count = sizeof(cmd_table) / sizeof(cmd_table[0]);

int cmd_unknown(const char *name)
{
	const char *v[sizeof(cmd_table) / sizeof(cmd_table[0])];
	const char *best;
	size_t i, n = 0;

	for (i = 0; i < cmd_count; i++)
		if (!cmd_table[i].hidden)
			v[n++] = cmd_table[i].usage->name;
	best = suggest_best(name, v, n);
	if (best)
		cli_print_errorf("'%s' is not a scopedb command; did you mean '%s'?", name, best);
	else
		cli_print_errorf("'%s' is not a scopedb command; see 'scopedb --help'", name);
	return CLI_EXIT_ERROR;
}

int main(int argc, char **argv)
{
	const struct cmd *c;

	if (argc < 2) {
		cmd_help(1, argv);
		return CLI_EXIT_ERROR;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		return cmd_help(1, argv + 1);
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V"))
		return cmd_version(1, argv + 1);
	if (argv[1][0] == '-') {
		/* --vers: the nearest of scopedb's own; --db x runs: a command's
		 * options go after it */
		static const char *const own[] = {"--help", "--version"};
		struct buf hint = BUF_INIT;

		if (!argv[1][1] || !strcmp(argv[1], "--"))
			cli_print_errorf("unknown option '%s'", argv[1]);
		else if (suggest_hint(&hint, argv[1], own, 2) || !hint.data)
			cli_print_errorf("unknown option '%s' (scopedb's own are --help and "
					 "--version; a command's go after it: scopedb COMMAND %s)",
					 argv[1], argv[1]);
		else
			cli_print_errorf("unknown option '%s'%s", argv[1], hint.data);
		buf_release(&hint);
		fprintf(stderr, "usage: scopedb [--help] [-V | --version] COMMAND [ARGS]\n");
		return CLI_EXIT_ERROR;
	}
	c = cmd_find(argv[1]);
	if (!c)
		return cmd_unknown(argv[1]);
	return c->fn(argc - 1, argv + 1);
}
