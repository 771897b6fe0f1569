/*
 * cmd_help.c - "scopedb help [COMMAND]" and "scopedb help --man
 * [COMMAND]": the command list is generated from the table in main.c, a
 * command's help and its man page from its usage texts and option table
 * (handed over by the command itself under opt_describe()).
 *
 * The man pages are roff (man(7)) on stdout, as git's are named:
 * scopedb(1) for the tool, scopedb-diff(1) for "scopedb diff"; read one
 * with "scopedb help --man diff | man -l -".
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "render/escape.h"
#include "cli/cli.h"
#include "scopedb/err.h"
#include "scopedb/util.h"

#define HELP_TITLE                                                                                 \
	"Keep the performance history of scope-profiler runs in an SQLite or PostgreSQL store."

const struct opt_cmd cmd_help_usage = {
    .name = "help",
    .args = "[--man] [COMMAND]",
    .summary = "show the commands, or one command's usage",
    .after = "--man prints the man page of COMMAND, or of scopedb, as roff; read it with\n"
	     "    scopedb help --man diff | man -l -",
    .max_args = OPT_ARGS_ANY,
};

/* help has no options of its own: its arguments are command names. */
static const struct opt help_opts[] = {OPT_END()};

const struct cmd *cmd_find(const char *name)
{
	size_t i;

	for (i = 0; i < cmd_count; i++)
		if (!strcmp(cmd_table[i].usage->name, name))
			return &cmd_table[i];
	return NULL;
}

int cmd_describe(const struct cmd *c, opt_describe_fn fn, void *ctx)
{
	char name[64], *argv[2];
	int code;

	if (c->fn == cmd_help)
		return fn(ctx, c->usage, help_opts);
	snprintf(name, sizeof(name), "%s", c->usage->name);
	argv[0] = name;
	argv[1] = NULL;
	opt_describe(fn, ctx);
	code = c->fn(1, argv);
	opt_describe(NULL, NULL);
	return code;
}

/* opt_describe_fn printing the help. */
static int help_print(void *ctx, const struct opt_cmd *cmd, const struct opt *opts)
{
	(void)ctx;
	return opt_help(cmd, opts);
}

/* ".TH", NAME and SYNOPSIS of page (upper-cased title from name). */
static int help_man_head(struct buf *out, const char *name, const char *summary,
			 const char *synopsis)
{
	const char *p;
	int rc = buf_puts(out, ".TH ");

	for (p = name; *p && !rc; p++)
		rc = *p == '-' ? buf_puts(out, "\\-")
			       : buf_putc(out, (char)toupper((unsigned char)*p));
	rc |= buf_printf(out, " 1 \"\" \"scopedb %s\" \"scopedb manual\"\n.SH NAME\n",
			 SCOPEDB_VERSION);
	rc |= escape_roff(out, name);
	rc |= buf_puts(out, " \\- ");
	rc |= escape_roff(out, summary);
	rc |= buf_puts(out, "\n.SH SYNOPSIS\n.nf\n");
	rc |= escape_roff(out, synopsis);
	rc |= buf_puts(out, "\n.fi\n");
	return rc ? err_nomem() : 0;
}

static const char help_man_exit[] =
    ".SH EXIT STATUS\n"
    "0 on success, 1 when \\fBscopedb check\\fR finds a regression, 2 on any error (bad\n"
    "option, bad file, unknown run, store problem), 3 when a statistical check is\n"
    "INCONCLUSIVE (unless \\fB\\-\\-inconclusive\\fR says pass or fail).\n";

/* text (a command's before or after text) as roff: its indented lines (a
 * list, a command to type) as no-fill blocks, so they keep their lines. */
static int help_man_text(struct buf *out, const char *text)
{
	struct buf line = BUF_INIT;
	int nf = 0, rc = 0;

	while (*text && !rc) {
		size_t n = strcspn(text, "\n");
		int indented = text[0] == ' ';

		if (indented != nf)
			rc |= buf_puts(out, indented ? ".nf\n" : ".fi\n");
		nf = indented;
		line.len = 0;
		rc |= buf_add(&line, text, n);
		rc |= escape_roff(out, line.data ? line.data : "");
		rc |= buf_putc(out, '\n');
		text += n + (text[n] == '\n');
	}
	if (nf)
		rc |= buf_puts(out, ".fi\n");
	buf_release(&line);
	return rc ? err_nomem() : 0;
}

/* opt_describe_fn appending the man page of a command to ctx (struct buf). */
static int help_man_cmd(void *ctx, const struct opt_cmd *cmd, const struct opt *opts)
{
	struct buf *out = ctx, page = BUF_INIT, synopsis = BUF_INIT;
	const struct opt *o;
	int rc, first = 1;

	rc = buf_printf(&page, "scopedb-%s", cmd->name) ? err_nomem() : 0;
	if (!rc)
		rc = opt_synopsis(&synopsis, cmd, opts, "\n");
	if (!rc)
		rc = help_man_head(out, page.data, cmd->summary, synopsis.data);
	buf_release(&page);
	buf_release(&synopsis);
	/* The summary as a sentence. */
	rc |= buf_printf(out, ".SH DESCRIPTION\n%c", toupper((unsigned char)cmd->summary[0]));
	rc |= escape_roff(out, cmd->summary + 1);
	rc |= buf_puts(out, ".\n");
	if (cmd->before) {
		rc |= buf_puts(out, ".PP\n");
		rc |= help_man_text(out, cmd->before);
	}
	for (o = opts; o->type != OPT_T_END && !rc; o++) {
		struct buf help = BUF_INIT;

		if (o->flags & OPT_HIDDEN)
			continue;
		rc |= buf_puts(out, first ? ".SH OPTIONS\n.TP\n" : ".TP\n");
		first = 0;
		if (o->short_name)
			rc |= buf_printf(out, "\\fB\\-%c\\fR, ", o->short_name);
		rc |= buf_puts(out, "\\fB\\-\\-");
		rc |= escape_roff(out, o->long_name);
		rc |= buf_puts(out, "\\fR");
		if (o->argh) {
			rc |= buf_puts(out, " \\fI");
			rc |= escape_roff(out, o->argh);
			rc |= buf_puts(out, "\\fR");
		}
		rc |= buf_putc(out, '\n');
		if (!rc)
			rc = opt_help_text(&help, o, " ");
		if (!rc)
			rc = escape_roff(out, help.data ? help.data : "");
		rc |= buf_putc(out, '\n');
		buf_release(&help);
	}
	if (cmd == &cmd_help_usage) {
		/* help reads its arguments itself: --man is no table entry */
		rc |=
		    buf_puts(out, ".SH OPTIONS\n.TP\n\\fB\\-\\-man\\fR [\\fICOMMAND\\fR]\n"
				  "print the man page of COMMAND, or of scopedb, as roff; read it "
				  "with\n\\fBscopedb help \\-\\-man diff | man \\-l \\-\\fR\n");
	} else {
		rc |= buf_puts(out, first ? ".SH OPTIONS\n.TP\n" : ".TP\n");
		rc |= buf_puts(out, "\\fB\\-h\\fR, \\fB\\-\\-help\\fR\nshow the usage and exit\n");
	}
	if (cmd->after) {
		rc |= buf_puts(out, ".SH NOTES\n");
		rc |= help_man_text(out, cmd->after);
	}
	rc |= buf_puts(out, help_man_exit);
	rc |= buf_puts(out, ".SH SEE ALSO\n\\fBscopedb\\fR(1)\n");
	return rc ? (rc == ERR_NOMEM ? rc : err_nomem()) : 0;
}

/* The page of the tool: the commands with their summaries. */
static int help_man_main(struct buf *out)
{
	size_t i;
	int rc;

	rc = help_man_head(out, "scopedb", "keep the performance history of scope-profiler runs",
			   "scopedb [--help] [-V | --version] COMMAND [ARGS]");
	rc |= buf_puts(out, ".SH DESCRIPTION\n" HELP_TITLE "\n"
			    ".PP\n"
			    "Every command of a store takes \\fB\\-\\-db\\fR \\fIPATH\\fR; "
			    "without it the store is\n"
			    "$SCOPEDB_DB, else \\&./scopedb.sqlite, which the first ingest (or\n"
			    "pull) creates.  Data goes to stdout, diagnostics to stderr.\n"
			    ".SH COMMANDS\n");
	for (i = 0; i < cmd_count && !rc; i++) {
		const struct opt_cmd *u = cmd_table[i].usage;

		if (cmd_table[i].hidden)
			continue;
		rc |= buf_printf(out, ".TP\n\\fBscopedb\\-%s\\fR(1)\n", u->name);
		rc |= escape_roff(out, u->summary);
		rc |= buf_putc(out, '\n');
	}
	rc |= buf_puts(
	    out,
	    ".SH ENVIRONMENT\n"
	    ".TP\n.B SCOPEDB_DB\nthe store when \\fB\\-\\-db\\fR is not given\n"
	    ".TP\n.B NO_COLOR\nno colour on a terminal when set and not empty\n"
	    ".TP\n.B TMPDIR\nwhere \\fBingest\\fR spools a row of more calls than a call tree\n"
	    "holds (2^24), 9 bytes a call, in an unlinked file, and a JSON profile's\n"
	    "long lists of such a row, 8 bytes a value; else /tmp\n");
	rc |= buf_puts(out, help_man_exit);
	return rc ? err_nomem() : 0;
}

/* "help --man [COMMAND]". */
static int help_man(const char *name)
{
	const struct cmd *c = name ? cmd_find(name) : NULL;
	struct buf out = BUF_INIT;
	int rc;

	if (name && !c)
		return cmd_unknown(name);
	rc = c ? cmd_describe(c, help_man_cmd, &out) : help_man_main(&out);
	if (rc) {
		buf_release(&out);
		return cli_error();
	}
	(void)cli_write_stdout(out.data, out.len);
	buf_release(&out);
	return cli_finish(CLI_EXIT_OK);
}

int cmd_help(int argc, char **argv)
{
	const struct cmd *c;
	size_t i;

	if (argc >= 2 && !strcmp(argv[1], "--man")) {
		if (argc > 3)
			return opt_usage_error(&cmd_help_usage, help_opts, "too many arguments");
		return help_man(argc == 3 ? argv[2] : NULL);
	}
	if (argc > 2)
		return opt_usage_error(&cmd_help_usage, help_opts, "too many arguments");
	if (argc == 2 && strcmp(argv[1], "--help") && strcmp(argv[1], "-h")) {
		c = cmd_find(argv[1]);
		if (!c)
			return cmd_unknown(argv[1]);
		return cmd_describe(c, help_print, NULL);
	}
	printf("usage: scopedb [--help] [-V | --version] COMMAND [ARGS]\n\n" HELP_TITLE "\n\n"
	       "Commands:\n");
	for (i = 0; i < cmd_count; i++)
		if (!cmd_table[i].hidden)
			printf("   %-10s %s\n", cmd_table[i].usage->name,
			       cmd_table[i].usage->summary);
	printf("\nSee 'scopedb help COMMAND' for the options of a command.\n");
	return cli_finish(CLI_EXIT_OK);
}
