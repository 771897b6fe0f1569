/*
 * cmd.h - the subcommands of the scopedb CLI.  Each lives in its own
 * src/cli/cmd_<name>.c, which holds its usage texts (struct opt_cmd) and
 * its option table beside the code: it parses its options with
 * opt_parse(), calls the core and prints.  CMD_LIST below names them all;
 * main.c makes the command table of it, and help, the man pages and the
 * completion script are generated from that table and from the option
 * tables (cmd_help.c, cmd_completion.c).
 *
 * A command function receives argv with argv[0] = the command name and
 * returns the process exit status (see CLI_EXIT_* in cli/cli.h).
 *
 * Ownership: the command table and the usage texts are static; a command
 * owns what it allocates and frees it before returning.
 */
#ifndef SCOPEDB_CMD_H
#define SCOPEDB_CMD_H

#include <stddef.h>

#include "cli/opt.h"

struct cmd {
	int (*fn)(int argc, char **argv);
	const struct opt_cmd *usage; /* name, synopsis, paragraphs, summary */
	int hidden;		     /* left out of the command list */
};

/* The command table (sorted by name) and its length, from main.c. */
extern const struct cmd cmd_table[];
extern const size_t cmd_count;

/* The entry for name, or NULL. */
const struct cmd *cmd_find(const char *name);

/* Run c with opt_describe(fn, ctx): fn gets c's usage texts and option
 * table; returns what fn returned. */
int cmd_describe(const struct cmd *c, opt_describe_fn fn, void *ctx);

/* "scopedb: 'chek' is not a scopedb command; did you mean 'check'?" (or
 * "see 'scopedb --help'" when no command is close) on stderr; returns
 * CLI_EXIT_ERROR. */
int cmd_unknown(const char *name);

/*
 * The commands, sorted by name, one X(name, hidden) each: the function
 * int cmd_NAME(int argc, char **argv) and its usage texts
 * const struct opt_cmd cmd_NAME_usage, defined in src/cli/cmd_NAME.c (or
 * beside a command sharing its code); hidden 1 leaves it out of the command
 * list, the man pages and the completion of command names.  The command
 * table (main.c), the declarations below, help, man pages and completion
 * come from this list: a new command is its file and one line here.
 */
#define CMD_LIST(X)                                                                                \
	X(changes, 0)                                                                              \
	X(check, 0)                                                                                \
	X(completion, 0)                                                                           \
	X(diff, 0)                                                                                 \
	X(export, 0)                                                                               \
	X(help, 0)                                                                                 \
	X(history, 0)                                                                              \
	X(ingest, 0)                                                                               \
	X(meta, 0)                                                                                 \
	X(pin, 0)                                                                                  \
	X(pins, 0)                                                                                 \
	X(prune, 0)                                                                                \
	X(pull, 0)                                                                                 \
	X(push, 0)                                                                                 \
	X(report, 0)                                                                               \
	X(rm, 0)                                                                                   \
	X(runs, 0)                                                                                 \
	X(show, 0)                                                                                 \
	X(tag, 0)                                                                                  \
	X(unpin, 0)                                                                                \
	X(untag, 0)                                                                                \
	X(vacuum, 0)                                                                               \
	X(version, 0)

#define CMD_DECLARE_(name, hidden)                                                                 \
	extern const struct opt_cmd cmd_##name##_usage;                                            \
	int cmd_##name(int argc, char **argv);
CMD_LIST(CMD_DECLARE_)
#undef CMD_DECLARE_

/* tag (add = 1) and untag (add = 0) share their code; defined in
 * cmd_tag.c. */
int cmd_tag_change(int argc, char **argv, int add);

/* diff (check = 0) and check (check = 1) share their options and output;
 * defined in cmd_diff.c. */
int cmd_compare(int argc, char **argv, int check);

#endif
