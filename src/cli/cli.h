/*
 * cli.h - what every command needs around the core: the store path
 * (--db, $SCOPEDB_DB, ./scopedb.sqlite), output format names, terminal and
 * colour detection, the final check that stdout was written, and the
 * options several commands share (OPT__DB, OPT__FORMAT, ...: declared once
 * here with their help lines, used in the commands' option tables).
 *
 * The command layer prints errors as "scopedb: MESSAGE" and exits with
 * CLI_EXIT_ERROR (2) on any error; check uses CLI_EXIT_FAIL (1) for a
 * regression and CLI_EXIT_INCONCLUSIVE (3) for an undecided statistical
 * check.
 *
 * Ownership: the strings returned (cli_db_path(), the format lists,
 * cli_metric_words(), cli_msgq()'s) are static, kept for the process, or
 * the caller's buffer; option callbacks write into the destination the
 * table names, and lists borrow argv.
 */
#ifndef SCOPEDB_CLI_H
#define SCOPEDB_CLI_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

#include "cli/opt.h"
#include "render/render.h"
#include "scopedb/same.h"

enum {
	CLI_EXIT_OK = 0,
	CLI_EXIT_FAIL = 1,	   /* check found a regression */
	CLI_EXIT_ERROR = 2,	   /* bad usage, bad input, store problem */
	CLI_EXIT_INCONCLUSIVE = 3, /* a statistical check could not decide */
};

/*
 * An output format is the name of a renderer (src/render/render.c):
 * "table", "json", "csv", "markdown", ...  Commands hold it as a string
 * (const char *, default "table"); the --format option only accepts the
 * names of registered renderers.
 */

/* 1 if fmt is the format name. */
int cli_format_is(const char *fmt, const char *name);

/* Every registered format a command's documents can be rendered in: first
 * the words of fmts (the command's own order for its help), then the other
 * renderers in registry order whose needs (RENDER_NEEDS_*) are all in
 * kinds: 0 for a command whose documents are generic, or
 * RENDER_NEEDS_COMPARISON for diff and check.  The result is built once
 * per (fmts, kinds) and kept for the process (never freed; on out of
 * memory, fmts itself is returned). */
const char *cli_formats_all(const char *fmts, unsigned kinds);

/* The store path: flag if non-NULL, else $SCOPEDB_DB, else
 * "scopedb.sqlite". */
const char *cli_db_path(const char *flag);

/* Set *out to arg if it is a registered format among the space-separated
 * allowed names; ERR_USAGE naming the value and the choices (in registry
 * order) otherwise. */
int cli_parse_format(const char **out, const char *arg, const char *allowed);

/* Append to out the registered formats among the space-separated allowed
 * names, in registry order, comma-separated ("table, json, csv"): the
 * choices of cli_parse_format()'s message.  0 or ERR_NOMEM. */
int cli_format_choices(struct buf *out, const char *allowed);

/* 1 if f is a terminal. */
int cli_isatty(FILE *f);

/* 1 if ANSI colour may be used on f: --color always/never decides; else
 * (auto) NO_COLOR set and not empty disables, FORCE_COLOR or
 * CLICOLOR_FORCE set to anything but "" or "0" enables, else f must be a
 * terminal and TERM not "dumb". */
int cli_use_color(FILE *f);

/* Before writing the store db: warn on stderr, unless allow, when it is an
 * SQLite file on a network file system (scopedb/netfs.h). */
void cli_warn_network_fs(const char *db, int allow);

/* 1 when the locale's character set (LC_ALL, LC_CTYPE, LANG) is UTF-8:
 * "µs" and block bars may be printed; else ASCII ("us", '#'). */
int cli_utf8(void);

/* The --units value (FORMAT_UNIT_AUTO unless given). */
enum format_unit cli_units(void);

/* A size in bytes as vacuum and prune print it: "512 bytes", "812.0 KiB",
 * "3.4 MiB". */
void cli_bytes(char *s, size_t len, int64_t bytes);

/* Print "scopedb: " + err_msg() to stderr and return CLI_EXIT_ERROR. */
int cli_error(void);
/* Print "scopedb: " + msg to stderr with control characters escaped
 * (escape_msg): error text may quote region names and paths. */
void cli_print_error(const char *msg);
/* cli_print_error() of a printf-style message (a note or a warning that
 * quotes a path, a name or a value from the store or the user). */
#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
void cli_print_errorf(const char *fmt, ...);
/* cli_print_errorf() of a va_list (opt_usage_error()'s message). */
#if defined(__GNUC__)
__attribute__((format(printf, 1, 0)))
#endif
void cli_print_errorv(const char *fmt, va_list ap);
/* Create the missing directories of the parent of a store's file path, as
 * "mkdir -p" does (ingest and push create the store they write to). */
int cli_store_mkdirs(const char *path);
/* s escaped for a diagnostic line (escape_msg), in b (reset first; the
 * caller releases it); "?" on out of memory. */
const char *cli_msgq(struct buf *b, const char *s);
/* The warning for a run already stored whose commit, branch or label
 * (names[i], i < n, where mask has bit i) differ from those the command
 * would have given it (given[i]; stored[i] NULL: none): "scopedb: warning:
 * WHO already stored as run ID with commit A, not B, no label, not C;
 * keeping it".  who is said as it is (its caller quotes what came from
 * data); ingest's and push's. */
void cli_warn_kept(const char *who, int64_t run_id, const char *const *names,
		   const char *const *stored, const char *const *given, size_t n, unsigned mask);
/* s escaped for a line of text on stdout (escape_plain, as tables show
 * it): a command's confirmation line ("copied run 2 (PATH) as run 5")
 * quotes paths, names and tags through it.  In b as cli_msgq(). */
const char *cli_outq(struct buf *b, const char *s);

/* Flush stdout and report a write error (full disk, closed pipe) as an
 * error exit ("cannot write to standard output: no space left on device",
 * the cause of the first failed write); returns the exit code to use
 * given the command's own. */
int cli_finish(int code);

/* Write len bytes of data to stdout and flush it: 0, or ERR_IO with the
 * message "cannot write to standard output: CAUSE" (the cause kept for
 * cli_finish()). */
int cli_write_stdout(const void *data, size_t len);

/*
 * Option callbacks (opt.h) behind the shared options below; each parses
 * the value into opt->value with the core's parser, so the messages are
 * the core's ("invalid --metric 'x': choose from ...").
 *   cli_opt_format   const char * (a renderer name); allowed: opt->choices
 *   cli_opt_metric   enum stats_metric *
 *   cli_opt_ranks    struct i64vec * (appends; match_ranks_finish() after)
 *   cli_opt_date     char[opt->defval] (filter_parse_date(), now = time())
 *   cli_opt_percent  double *; opt->defval 1 = must not be negative
 */
int cli_opt_format(const struct opt *opt, const char *arg);
int cli_opt_metric(const struct opt *opt, const char *arg);
int cli_opt_ranks(const struct opt *opt, const char *arg);
int cli_opt_date(const struct opt *opt, const char *arg);
int cli_opt_percent(const struct opt *opt, const char *arg);
int cli_opt_units(const struct opt *opt, const char *arg);
int cli_opt_color(const struct opt *opt, const char *arg);

/* --units U: the unit of durations in table and markdown output (kept by
 * cli.c for cli_render(); CSV and JSON keep seconds). */
#define OPT__UNITS()                                                                               \
	OPT_CHOICE(0, "units", NULL, "U",                                                          \
		   "unit of durations in tables: auto (the default: one per\n"                     \
		   "column), s, ms, us or ns",                                                     \
		   FORMAT_UNIT_WORDS, cli_opt_units)

/* --color WHEN: auto (the default), always or never (cli_use_color()). */
#define OPT__COLOR() OPT_CHOICE(0, "color", NULL, "WHEN", NULL, "auto always never", cli_opt_color)

/*   cli_opt_positive long *, an integer >= 1; opt->defval NULL or a
 *                    (const char *) hint added to the error in parentheses */
int cli_opt_positive(const struct opt *opt, const char *arg);

/*   cli_opt_limit    no value: sets ingest_default_limits() (ingest.h),
 *                    opt->defval 0 = its timeout, 1 = its memory */
int cli_opt_limit(const struct opt *opt, const char *arg);

/* --allow-network-fs (int *) of the commands that write a store: no
 * warning for an SQLite store on a network file system. */
#define OPT__ALLOW_NETWORK_FS(v)                                                                   \
	OPT_FLAG(0, "allow-network-fs", v,                                                         \
		 "no warning for an SQLite store on a network file system")

/* --db PATH (const char **; NULL = cli_db_path()'s default). */
#define OPT__DB(v)                                                                                 \
	OPT_STRING(                                                                                \
	    0, "db", v, "PATH",                                                                    \
	    "store: a file, or a postgresql:// URI\n(default $SCOPEDB_DB, else ./scopedb.sqlite)")

/* --format FMT among fmts, e.g. "table json": the first is the default and
 * the help line lists them in this order. */
#define OPT__FORMAT(v, fmts)                                                                       \
	OPT_CHOICE(0, "format", OPT_TYPED(const char **, v), "FMT", NULL, fmts, cli_opt_format)

/* --format FMT for a command whose document may be rendered in any format:
 * fmts first (the default first), then every other registered renderer
 * that renders any document, so a new renderer is offered without touching
 * the command. */
#define OPT__FORMAT_ALL(v, fmts) OPT__FORMAT(v, cli_formats_all(fmts, 0))

/* --format FMT for diff and check: OPT__FORMAT_ALL's formats, and those
 * that need a comparison (junit). */
#define OPT__FORMAT_COMPARISON(v, fmts)                                                            \
	OPT__FORMAT(v, cli_formats_all(fmts, RENDER_NEEDS_COMPARISON))

/* --metric M (enum stats_metric *): its choices and help are the
 * metrics of STATS_METRICS (model.h), cli_metric_words(). */
#define OPT__METRIC(v)                                                                             \
	OPT_CHOICE(0, "metric", v, "M", cli_metric_words(1), cli_metric_words(0), cli_opt_metric)

/* --by name|path (int *: 1 for path): rows are region names, as upstream's
 * (the default), or the paths of the call tree (docs/format.md section
 * 10.4). */
#define OPT__BY(v)                                                                                 \
	OPT_CHOICE(0, "by", v, "KEY",                                                              \
		   "rows by region name (the default, as upstream's) or\n"                         \
		   "by call path (main > solve)",                                                  \
		   "name path", cli_opt_by)
int cli_opt_by(const struct opt *opt, const char *arg);

/* After parsing --by into *by_path (set to -1 before: not given) and
 * --tree: --tree implies --by path, and refuses --by name (a usage error
 * into *code, returning -1) rather than ignore it; *by_path ends 0 or 1. */
int cli_tree_by(const struct opt_cmd *self, const struct opt *opts, int *by_path, int tree,
		int *code);

/* "gpu_total gpu_avg ... calls", the names of the metrics in their order,
 * and with help set "... (default total)": built once, static. */
const char *cli_metric_words(int help);

/* --include P... / --exclude P... (struct opt_list *), region name
 * patterns; like --ranks SPEC... (struct i64vec *) they take one or more
 * values, as scope-profiler's own diff/check do (OPT_MULTI), and may be
 * repeated; the values of --ranks also end at a word that is not a number
 * ("--ranks 0 1 latest"). */
#define OPT__INCLUDE(v)                                                                            \
	OPT_LIST_MULTI(0, "include", v, "P...",                                                    \
		       "only regions matching a Python regex P at the start of\n"                  \
		       "the name (one or more, repeatable, OR-ed)")
#define OPT__EXCLUDE(v)                                                                            \
	OPT_LIST_MULTI(0, "exclude", v, "P...",                                                    \
		       "drop regions matching P (one or more, repeatable; after\n"                 \
		       "--include)")
#define OPT__RANKS(v)                                                                              \
	OPT_ENTRY(OPT_T_CALLBACK, 0, "ranks", OPT_TYPED(struct i64vec *, v), "SPEC...",            \
		  "only these ranks, e.g. 0-3,8 or 0 1 4-7 (one or more,\n"                        \
		  "repeatable, unioned)",                                                          \
		  NULL, cli_opt_ranks, 0, OPT_MULTI | OPT_MULTI_NUM)

/*
 * The options of every command that lists regions by name (diff, check,
 * show, changes, report): --include and --exclude, in a struct
 * cli_regions.  An option all of them take is a field here and a row of
 * OPT__REGIONS: their help, man pages and completion list it, and it is
 * parsed into the field; each command hands the fields to its core.
 * Ownership: the lists borrow argv (cli_regions_release() frees them).
 */
struct cli_regions {
	struct opt_list include, exclude;
};
#define CLI_REGIONS_INIT                                                                           \
	{                                                                                          \
		OPT_LIST_INIT, OPT_LIST_INIT                                                       \
	}
#define OPT__REGIONS(r) OPT__INCLUDE(&(r)->include), OPT__EXCLUDE(&(r)->exclude)
void cli_regions_release(struct cli_regions *r);

/* The run filters of runs and history (struct filter, filter.h):
 * --tag T (struct opt_list *), --branch B (const char **), --since DATE
 * and --until DATE (the char arrays of struct filter). */
#define OPT__FILTER_TAG(v)                                                                         \
	OPT_LIST(0, "tag", v, "T", "only runs with tag T (repeatable: all of them)")
#define OPT__FILTER_BRANCH(v) OPT_STRING(0, "branch", v, "B", "only runs of branch B")
#define OPT__SINCE(buf)                                                                            \
	OPT_CALLBACK(0, "since", buf, "DATE",                                                      \
		     "only runs recorded at or after DATE (2026-11-30,\n"                          \
		     "2026-11-30T02:00:00Z, or an age: 30m, 24h, 7d, 2w)",                         \
		     cli_opt_date, (intptr_t)sizeof(buf))
#define OPT__UNTIL(buf, help)                                                                      \
	OPT_CALLBACK(0, "until", buf, "DATE", help, cli_opt_date, (intptr_t)sizeof(buf))

/* --file-timeout S and --file-memory MIB: the limits of the process that
 * reads each profile file (ingest.h), for every file of the command. */
#define OPT__FILE_LIMITS()                                                                         \
	OPT_CALLBACK(0, "file-timeout", NULL, "S",                                                 \
		     "give up reading a file after S seconds (default 600;\n"                      \
		     "0 = no limit)",                                                              \
		     cli_opt_limit, 0),                                                            \
	    OPT_CALLBACK(0, "file-memory", NULL, "MIB",                                            \
			 "memory the reader of a file may use, in MiB (default\n"                  \
			 "4096; 0 = no limit)",                                                    \
			 cli_opt_limit, 1)

/*
 * --same KEY (repeatable) and --no-same: like with like (scopedb/same.h).
 * c is a struct cli_same *; whose says whose value the runs must have
 * ("the baseline's", "the newest run's").  cli_same_spec() turns them
 * into the spec: the --same keys, else those of $SCOPEDB_SAME unless
 * --no-same.
 */
struct cli_same {
	struct opt_list keys; /* --same */
	int no;		      /* --no-same */
	char **env;	      /* the keys of $SCOPEDB_SAME (owned) */
	size_t nenv;
	struct same_spec spec;
};
#define OPT__SAME(c, whose)                                                                        \
	OPT_LIST(0, "same", &(c)->keys, "KEY",                                                     \
		 "only runs whose metadata KEY equals\n" whose " (repeatable;\ndefault: "          \
		 "$SCOPEDB_SAME)"),                                                                \
	    OPT_FLAG(0, "no-same", &(c)->no, "ignore $SCOPEDB_SAME")
/* The spec of c into c->spec (ERR_USAGE for an empty key). */
int cli_same_spec(struct cli_same *c);
void cli_same_release(struct cli_same *c);
/* history and changes (in people's formats): a note on stderr when some
 * of the runs shown, listed[0..n) (of those fs selects), have another
 * mpi_size or platform than the newest of them (compare_same_keys, which
 * a check keeps like with like): a trend across them may be theirs.
 * Store errors. */
int cli_same_note(struct store *st, const struct filter *fs, const int64_t *listed, size_t n);

/*
 * The empty table's text of change points (changes, history
 * --changes-only) over nruns runs whose commits are commit(ctx, i) (NULL:
 * unknown, a point of its own), into out: "no change points", or when the
 * runs make fewer than min_runs points (runs of one commit count once:
 * repetitions of one measurement) "no change points: 5 runs, too few (a
 * change point needs 6 commits, 3 on each side of it)", so that a short
 * history does not read as "nothing changed".  Returns 1 when the history
 * is that short (JSON's "enough_history": false), else 0.
 */
int cli_no_change_points(char *out, size_t len, size_t nruns,
			 const char *(*commit)(const void *ctx, size_t i), const void *ctx,
			 size_t min_runs);

/* The statistical verdicts of diff, check and report (struct compare_opts
 * *co, docs/statistics.md): --stat, and the run sets --baseline-window N
 * and --candidate-window N (1 to 1000 runs), which imply --stat
 * (cli_opt_window(), opt->defval 0 the baseline's, 1 the candidate's). */
int cli_opt_window(const struct opt *opt, const char *arg);
#define OPT__STAT(co)                                                                              \
	OPT_FLAG(0, "stat", &(co)->stat,                                                           \
		 "statistical verdicts from run sets and the noise of\nthe first run's history"),  \
	    OPT_CALLBACK(0, "baseline-window", OPT_TYPED(struct compare_opts *, co), "N",          \
			 "the first set: the N newest runs ending at the first\nrun (its branch, " \
			 "its tag for tag:NAME, the first-parent\nancestry for base:REF); "        \
			 "implies --stat",                                                         \
			 cli_opt_window, 0),                                                       \
	    OPT_CALLBACK(0, "candidate-window", OPT_TYPED(struct compare_opts *, co), "N",         \
			 "the second set: likewise (default: the second run and\nthe runs of its " \
			 "commit); implies --stat",                                                \
			 cli_opt_window, 1)

/* --allow-different KEY (struct opt_list *) of check and report. */
#define OPT__ALLOW_DIFFERENT(v)                                                                    \
	OPT_LIST(0, "allow-different", v, "KEY",                                                   \
		 "compare runs whose metadata KEY differs (repeatable)")

/* A percentage (double *), e.g. --max-regression PCT. */
#define OPT__PERCENT(l, v, h, nonneg)                                                              \
	OPT_CALLBACK(0, l, OPT_TYPED(double *, v), "PCT", h, cli_opt_percent, nonneg)

#endif
