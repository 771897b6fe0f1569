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

int cli_parse_format(enum cli_format *out, const char *arg, unsigned allowed)
{
	static const struct {
		const char *name;
		enum cli_format fmt;
	} names[] = {
	    {"table", CLI_FORMAT_TABLE},
	    {"json", CLI_FORMAT_JSON},
	    {"csv", CLI_FORMAT_CSV},
	    {"markdown", CLI_FORMAT_MARKDOWN},
	};
	char choices[64] = "";
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!(allowed & (unsigned)names[i].fmt))
			continue;
		if (!strcmp(arg, names[i].name)) {
			*out = names[i].fmt;
			return 0;
		}
		if (choices[0])
			strcat(choices, ", ");
		strcat(choices, names[i].name);
	}
	return err_set(ERR_USAGE, "invalid --format '%s': choose from %s", arg, choices);
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

/* The mask of the format names in the space-separated list. */
static unsigned cli_format_mask(const char *list)
{
	enum cli_format fmt;
	unsigned mask = 0;
	char name[16];
	size_t len;

	while (list && *list) {
		len = strcspn(list, " ");
		snprintf(name, sizeof(name), "%.*s", (int)len, list);
		if (!cli_parse_format(&fmt, name, ~0u))
			mask |= (unsigned)fmt;
		list += len;
		list += *list == ' ';
	}
	return mask;
}

int cli_opt_format(const struct opt *opt, const char *arg)
{
	return cli_parse_format(opt->value, arg, cli_format_mask(opt->choices));
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
