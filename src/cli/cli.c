/*
 * cli.c - shared command-line plumbing: store path resolution, --format
 * parsing, terminal and NO_COLOR handling, error printing, checking that
 * stdout was really written before exiting, and the callbacks of the
 * options several commands share (cli.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "render/escape.h"
#include "render/render.h"
#include "scopedb/err.h"
#include "scopedb/filter.h"
#include "scopedb/stats.h"
#include "scopedb/util.h"
#include "select/match.h"

const char *cli_db_path(const char *flag)
{
	const char *env;

	if (flag)
		return flag;
	env = getenv("SCOPEDB_DB");
	if (env && *env)
		return env;
	return "scopedb.sqlite";
}

int cli_format_is(const char *fmt, const char *name)
{
	return fmt && !strcmp(fmt, name);
}

/* 1 if name is one of the space-separated words of list. */
static int cli_word_in(const char *list, const char *name)
{
	size_t len = strlen(name), k;

	while (list && *list) {
		k = strcspn(list, " ");
		if (k == len && !strncmp(list, name, len))
			return 1;
		list += k;
		list += *list == ' ';
	}
	return 0;
}

int cli_format_choices(struct buf *out, const char *allowed)
{
	const struct renderer *r;
	size_t i;
	int first = 1;

	for (i = 0; (r = render_at(i)) != NULL; i++) {
		if (!cli_word_in(allowed, r->name))
			continue;
		if (buf_printf(out, "%s%s", first ? "" : ", ", r->name))
			return err_nomem();
		first = 0;
	}
	return 0;
}

int cli_parse_format(const char **out, const char *arg, const char *allowed)
{
	const struct renderer *r;
	struct buf choices = BUF_INIT;
	size_t i;
	int rc;

	for (i = 0; (r = render_at(i)) != NULL; i++) {
		if (cli_word_in(allowed, r->name) && !strcmp(arg, r->name)) {
			*out = r->name;
			return 0;
		}
	}
	rc = cli_format_choices(&choices, allowed);
	if (!rc)
		rc = err_set(ERR_USAGE, "invalid --format '%s': choose from %s", arg,
			     choices.data ? choices.data : "");
	buf_release(&choices);
	return rc;
}

/* One list of cli_formats_all(), kept for the process. */
struct cli_format_list {
	struct cli_format_list *next;
	const char *fmts;
	unsigned kinds;
	char *all;
};

const char *cli_formats_all(const char *fmts, unsigned kinds)
{
	/* One list per (fmts, kinds), built on first use: commands pass a
	 * handful of distinct literals.  Reachable from lists until exit. */
	static struct cli_format_list *lists;
	struct cli_format_list *l;
	struct buf all = BUF_INIT;
	const struct renderer *r;
	size_t i;
	int rc;

	for (l = lists; l; l = l->next)
		if (l->kinds == kinds && !strcmp(l->fmts, fmts))
			return l->all;
	l = malloc(sizeof(*l));
	rc = !l || buf_printf(&all, "%s", fmts);
	for (i = 0; !rc && (r = render_at(i)) != NULL; i++) {
		if ((r->needs & ~kinds) || cli_word_in(fmts, r->name))
			continue;
		rc = buf_printf(&all, " %s", r->name);
	}
	if (rc) {
		/* out of memory: offer fmts alone rather than fail */
		free(l);
		buf_release(&all);
		return fmts;
	}
	l->all = buf_detach(&all);
	if (!l->all) {
		free(l);
		return fmts;
	}
	l->fmts = fmts;
	l->kinds = kinds;
	l->next = lists;
	lists = l;
	return l->all;
}

int cli_isatty(FILE *f)
{
	return isatty(fileno(f));
}

int cli_use_color(FILE *f)
{
	const char *nc = getenv("NO_COLOR"), *term = getenv("TERM");

	if (nc && *nc)
		return 0;
	if (term && !strcmp(term, "dumb"))
		return 0;
	return cli_isatty(f);
}

const char *cli_msgq(struct buf *b, const char *s)
{
	b->len = 0;
	if (b->data)
		b->data[0] = '\0';
	if (escape_msg(b, s ? s : ""))
		return "?";
	return b->len ? b->data : "";
}

void cli_print_error(const char *msg)
{
	struct buf b = BUF_INIT;

	fprintf(stderr, "scopedb: %s\n", cli_msgq(&b, msg));
	buf_release(&b);
}

int cli_error(void)
{
	cli_print_error(err_msg());
	return CLI_EXIT_ERROR;
}

int cli_finish(int code)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "scopedb: cannot write to standard output: %s\n", strerror(errno));
		return CLI_EXIT_ERROR;
	}
	return code;
}

int cli_opt_format(const struct opt *opt, const char *arg)
{
	return cli_parse_format(opt->value, arg, opt->choices);
}

int cli_opt_metric(const struct opt *opt, const char *arg)
{
	return stats_metric_parse(opt->value, arg);
}

int cli_opt_ranks(const struct opt *opt, const char *arg)
{
	return match_ranks_parse(opt->value, arg);
}

int cli_opt_date(const struct opt *opt, const char *arg)
{
	char name[64];

	snprintf(name, sizeof(name), "--%s", opt->long_name);
	return filter_parse_date(opt->value, (size_t)opt->defval, name, arg, (int64_t)time(NULL));
}

int cli_opt_percent(const struct opt *opt, const char *arg)
{
	char name[64];

	snprintf(name, sizeof(name), "--%s", opt->long_name);
	return stats_parse_percent(opt->value, name, arg, (int)opt->defval);
}
