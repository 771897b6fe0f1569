/*
 * cmd_tag.c - "scopedb tag RUN TAG..." and, sharing the code,
 * "scopedb untag RUN TAG..." (cmd_untag.c): add or remove tags of one
 * stored run, all in one transaction.  Tags already present (or already
 * absent) are reported, not errors, so the commands can be repeated.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cmd.h"
#include "cli/cli.h"
#include "scopedb/err.h"
#include "scopedb/select.h"
#include "scopedb/store.h"

/* Report "run N: ..." for each tag after the change is committed. */
static void tag_report(int64_t run, char **tags, const int *changed, int n, int add)
{
	int i;

	for (i = 0; i < n; i++) {
		if (add)
			printf(changed[i] ? "run %" PRId64 ": tagged '%s'\n"
					  : "run %" PRId64 ": already tagged '%s'\n",
			       run, tags[i]);
		else
			printf(changed[i] ? "run %" PRId64 ": removed tag '%s'\n"
					  : "run %" PRId64 ": has no tag '%s'\n",
			       run, tags[i]);
	}
}

int cmd_tag_change(int argc, char **argv, int add)
{
	static const struct option opts[] = {
	    {"db", required_argument, NULL, 'd'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const struct cmd *self = cmd_find(add ? "tag" : "untag");
	struct select_spec sel;
	struct store *st = NULL;
	const char *db = NULL;
	int *changed = NULL;
	int64_t run = 0;
	int ntags, i, in_txn = 0, code = CLI_EXIT_ERROR, o, rc = 0;

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
	if (argc - optind < 2) {
		code = cli_usage_error(self->usage, "%s needs a run SELECTOR and at least one TAG",
				       self->name);
		goto out;
	}
	ntags = argc - optind - 1;
	for (i = 0; i < ntags; i++)
		if (!argv[optind + 1 + i][0]) {
			code = cli_usage_error(self->usage, "empty tag");
			goto out;
		}
	changed = calloc((size_t)ntags, sizeof(*changed));
	if (!changed) {
		err_nomem();
		code = cli_error();
		goto out;
	}
	if (select_parse(&sel, argv[optind])) {
		code = cli_error();
		goto out;
	}
	/* Tagging never creates a store. */
	rc = store_open(&st, cli_db_path(db), STORE_EXISTING);
	if (!rc)
		rc = store_begin(st);
	in_txn = rc == 0;
	if (!rc)
		rc = store_resolve(st, &run, &sel);
	for (i = 0; i < ntags && !rc; i++)
		rc = add ? store_add_tag(st, &changed[i], run, argv[optind + 1 + i])
			 : store_remove_tag(st, &changed[i], run, argv[optind + 1 + i]);
	if (rc) {
		if (in_txn)
			store_rollback(st);
		code = cli_error();
		goto out;
	}
	in_txn = 0;
	if (store_commit(st)) {
		code = cli_error();
		goto out;
	}
	tag_report(run, argv + optind + 1, changed, ntags, add);
	code = cli_finish(CLI_EXIT_OK);
out:
	free(changed);
	select_release(&sel);
	store_close(st);
	return code;
}

int cmd_tag(int argc, char **argv)
{
	return cmd_tag_change(argc, argv, 1);
}
