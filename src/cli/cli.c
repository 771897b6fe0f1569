/*
 * cli.c - shared command-line plumbing: store path resolution, --format
 * parsing, terminal and NO_COLOR handling, error printing, and checking
 * that stdout was really written before exiting.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "scopedb/err.h"

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

int cli_parse_count(long *out, const char *opt, const char *arg)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < 0)
		return err_set(ERR_USAGE, "invalid %s '%s': expected a non-negative integer", opt,
			       arg);
	*out = v;
	return 0;
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

int cli_usage_error(const char *usage, const char *fmt, ...)
{
	va_list ap;

	fputs("scopedb: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nusage: %s\n", usage);
	return CLI_EXIT_ERROR;
}

int cli_bad_option(const char *usage, int opt, char **argv, int optind_now)
{
	const char *arg = argv[optind_now - 1];

	if (opt == ':')
		return cli_usage_error(usage, "option '%s' needs a value", arg);
	return cli_usage_error(usage, "unknown option '%s'", arg);
}

int cli_finish(int code)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "scopedb: cannot write to standard output: %s\n", strerror(errno));
		return CLI_EXIT_ERROR;
	}
	return code;
}
