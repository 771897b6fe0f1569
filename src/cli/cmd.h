/*
 * cmd.h - the subcommands of the scopedb CLI.  Each lives in its own
 * src/cmd_<name>.c, parses its options, calls the core and prints; main.c
 * holds the sorted command table from which help is generated.
 *
 * A command function receives argv with argv[0] = the command name and
 * returns the process exit status (see CLI_EXIT_* in scopedb/cli.h).
 */
#ifndef SCOPEDB_CMD_H
#define SCOPEDB_CMD_H

#include <stddef.h>

struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *usage;   /* synopsis line(s) followed by option lines */
	const char *summary; /* one line for the command list */
};

/* The command table (sorted by name) and its length, from main.c. */
extern const struct cmd cmd_table[];
extern const size_t cmd_count;

/* The entry for name, or NULL. */
const struct cmd *cmd_find(const char *name);

/* Print "usage: ..." and the summary of c to stdout. */
void cmd_print_help(const struct cmd *c);

int cmd_check(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_help(int argc, char **argv);
int cmd_history(int argc, char **argv);
int cmd_ingest(int argc, char **argv);
int cmd_meta(int argc, char **argv);
int cmd_pin(int argc, char **argv);
int cmd_pins(int argc, char **argv);
int cmd_rm(int argc, char **argv);
int cmd_runs(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_tag(int argc, char **argv);
int cmd_unpin(int argc, char **argv);
int cmd_untag(int argc, char **argv);
int cmd_vacuum(int argc, char **argv);

/* tag (add = 1) and untag (add = 0) share their code; defined in
 * cmd_tag.c. */
int cmd_tag_change(int argc, char **argv, int add);

/* diff (check = 0) and check (check = 1) share their options and output;
 * defined in cmd_diff.c. */
int cmd_compare(int argc, char **argv, int check);

#endif
