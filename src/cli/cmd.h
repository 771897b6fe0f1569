/*
 * cmd.h - the subcommands of the scopedb CLI.  Each lives in its own
 * src/cli/cmd_<name>.c, which holds its usage texts (struct opt_cmd) and
 * its option table beside the code: it parses its options with
 * opt_parse(), calls the core and prints.  main.c holds the sorted command
 * table; help, the man pages and the completion script are generated from
 * it and from the option tables (cmd_help.c, cmd_completion.c).
 *
 * A command function receives argv with argv[0] = the command name and
 * returns the process exit status (see CLI_EXIT_* in cli/cli.h).
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

/* The usage texts, beside each command's options. */
extern const struct opt_cmd cmd_check_usage;
extern const struct opt_cmd cmd_completion_usage;
extern const struct opt_cmd cmd_diff_usage;
extern const struct opt_cmd cmd_changes_usage;
extern const struct opt_cmd cmd_help_usage;
extern const struct opt_cmd cmd_history_usage;
extern const struct opt_cmd cmd_ingest_usage;
extern const struct opt_cmd cmd_meta_usage;
extern const struct opt_cmd cmd_pin_usage;
extern const struct opt_cmd cmd_pins_usage;
extern const struct opt_cmd cmd_report_usage;
extern const struct opt_cmd cmd_prune_usage;
extern const struct opt_cmd cmd_pull_usage;
extern const struct opt_cmd cmd_push_usage;
extern const struct opt_cmd cmd_rm_usage;
extern const struct opt_cmd cmd_runs_usage;
extern const struct opt_cmd cmd_show_usage;
extern const struct opt_cmd cmd_tag_usage;
extern const struct opt_cmd cmd_unpin_usage;
extern const struct opt_cmd cmd_untag_usage;
extern const struct opt_cmd cmd_vacuum_usage;
extern const struct opt_cmd cmd_version_usage;

int cmd_check(int argc, char **argv);
int cmd_completion(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_changes(int argc, char **argv);
int cmd_help(int argc, char **argv);
int cmd_history(int argc, char **argv);
int cmd_ingest(int argc, char **argv);
int cmd_meta(int argc, char **argv);
int cmd_pin(int argc, char **argv);
int cmd_pins(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_prune(int argc, char **argv);
int cmd_pull(int argc, char **argv);
int cmd_push(int argc, char **argv);
int cmd_rm(int argc, char **argv);
int cmd_runs(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_tag(int argc, char **argv);
int cmd_unpin(int argc, char **argv);
int cmd_untag(int argc, char **argv);
int cmd_vacuum(int argc, char **argv);
int cmd_version(int argc, char **argv);

/* tag (add = 1) and untag (add = 0) share their code; defined in
 * cmd_tag.c. */
int cmd_tag_change(int argc, char **argv, int add);

/* diff (check = 0) and check (check = 1) share their options and output;
 * defined in cmd_diff.c. */
int cmd_compare(int argc, char **argv, int check);

/* --baseline-window N, --candidate-window N (size_t *): 1 to 1000 runs;
 * defined in cmd_diff.c, shared with report. */
int cmd_opt_window(const struct opt *opt, const char *arg);

#endif
