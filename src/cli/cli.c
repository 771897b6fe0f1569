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

int cli_parse_format(const char **out, const char *arg, const char *allowed)
{
	const struct renderer *r;
	struct buf choices = BUF_INIT;
	size_t i;
	int rc;

	for (i = 0; (r = render_at(i)) != NULL; i++) {
		if (!cli_word_in(allowed, r->name))
			continue;
		if (!strcmp(arg, r->name)) {
			*out = r->name;
			buf_release(&choices);
			return 0;
		}
		if (buf_printf(&choices, "%s%s", choices.len ? ", " : "", r->name)) {
			buf_release(&choices);
			return err_nomem();
		}
	}
	rc = err_set(ERR_USAGE, "invalid --format '%s': choose from %s", arg,
		     choices.data ? choices.data : "");
	buf_release(&choices);
	return rc;
}

const char *cli_formats_all(const char *fmts, unsigned kinds)
{
	/* One list per (fmts, kinds): commands pass a handful of distinct
	 * literals; past CLI_FORMAT_LISTS of them, fmts alone is offered. */
	enum { CLI_FORMAT_LISTS = 8, CLI_FORMAT_LIST_LEN = 256 };
	static struct {
		const char *fmts;
		unsigned kinds;
		char all[CLI_FORMAT_LIST_LEN];
	} lists[CLI_FORMAT_LISTS];
	const struct renderer *r;
	size_t i, k, len;

	for (k = 0; k < CLI_FORMAT_LISTS && lists[k].fmts; k++)
		if (lists[k].kinds == kinds && !strcmp(lists[k].fmts, fmts))
			return lists[k].all;
	if (k == CLI_FORMAT_LISTS || strlen(fmts) >= CLI_FORMAT_LIST_LEN)
		return fmts;
	lists[k].fmts = fmts;
	lists[k].kinds = kinds;
	len = strlen(fmts);
	memcpy(lists[k].all, fmts, len + 1);
	for (i = 0; (r = render_at(i)) != NULL; i++) {
		size_t n = strlen(r->name);

		if ((r->needs & ~kinds) || cli_word_in(fmts, r->name))
			continue;
		if (len + 1 + n >= CLI_FORMAT_LIST_LEN)
			break;
		lists[k].all[len++] = ' ';
		memcpy(lists[k].all + len, r->name, n + 1);
		len += n;
	}
	return lists[k].all;
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

int cli_error(void)
{
	fprintf(stderr, "scopedb: %s\n", err_msg());
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
