/*
 * cli.h - what every command needs around the core: the store path
 * (--db, $SCOPEDB_DB, ./scopedb.sqlite), output format names, terminal and
 * colour detection, and the final check that stdout was written.
 *
 * The command layer prints errors as "scopedb: MESSAGE" and exits with
 * CLI_EXIT_ERROR (2) on any error; check uses CLI_EXIT_FAIL (1) for a
 * regression.
 */
#ifndef SCOPEDB_CLI_H
#define SCOPEDB_CLI_H

#include <stdio.h>

enum {
	CLI_EXIT_OK = 0,
	CLI_EXIT_FAIL = 1,  /* check found a regression */
	CLI_EXIT_ERROR = 2, /* bad usage, bad input, store problem */
};

enum cli_format {
	CLI_FORMAT_TABLE = 1,
	CLI_FORMAT_JSON = 2,
	CLI_FORMAT_CSV = 4,
	CLI_FORMAT_MARKDOWN = 8,
};

/* The store path: flag if non-NULL, else $SCOPEDB_DB, else
 * "scopedb.sqlite". */
const char *cli_db_path(const char *flag);

/* Parse a --format value among the allowed (mask of enum cli_format);
 * ERR_USAGE naming the value and the choices otherwise. */
int cli_parse_format(enum cli_format *out, const char *arg, unsigned allowed);

/* Parse a non-negative integer option value (ERR_USAGE naming opt). */
int cli_parse_count(long *out, const char *opt, const char *arg);

/* 1 if f is a terminal. */
int cli_isatty(FILE *f);

/* 1 if ANSI colour may be used on f: a terminal, NO_COLOR unset or empty,
 * TERM not "dumb". */
int cli_use_color(FILE *f);

/* Print "scopedb: " + err_msg() to stderr and return CLI_EXIT_ERROR. */
int cli_error(void);

/* Print "scopedb: " + message, then "usage: ..." to stderr; returns
 * CLI_EXIT_ERROR.  usage is the command's usage text. */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
int cli_usage_error(const char *usage, const char *fmt, ...);

/* Report the option getopt_long() rejected ('?' unknown, ':' missing value)
 * with the usage text; returns CLI_EXIT_ERROR. */
int cli_bad_option(const char *usage, int opt, char **argv, int optind_now);

/* Flush stdout and report a write error (full disk, closed pipe) as an
 * error exit; returns the exit code to use given the command's own. */
int cli_finish(int code);

#endif
