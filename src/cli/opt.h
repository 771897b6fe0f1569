/*
 * opt.h - the option parser of the scopedb commands, in the manner of git's
 * parse-options.h.  A command declares each of its options once, in a
 * table of struct opt (long name, optional short letter, type, destination,
 * argument name, help line), and calls opt_parse(); the usage text, "help
 * CMD", "CMD --help", the man pages and the bash completion are all
 * generated from the same table plus the command's struct opt_cmd (its
 * synopsis, the paragraphs around the options and its one-line summary).
 *
 * Command lines are read as GNU getopt_long read them, which scripts may
 * rely on: "--opt value" and "--opt=value", unambiguous abbreviations of
 * long names ("--met" for "--metric"), clusters of short flags ("-qh"),
 * options anywhere among the positional arguments (unless POSIXLY_CORRECT
 * is set: then the first positional ends the options), "--" ending the
 * options, and "-" as a positional argument.  An OPT_MULTI option also
 * takes the words after its value up to the next one starting with '-'
 * (scope-profiler's "--include solve io").  Every command accepts -h and
 * --help without declaring them.  Values are checked as they are met,
 * left to right; the first problem stops the parse.
 *
 * Errors are reported in one place, in the words the commands always used:
 *   scopedb: unknown option '--bogus'       (+ "usage: ..." on stderr)
 *   scopedb: option '--metric' needs a value (+ usage)
 *   scopedb: invalid --limit 'x': expected a non-negative integer
 * (a value error is whatever the type or callback sets with err_set()).
 *
 * Ownership: tables and struct opt_cmd are the caller's; destinations
 * borrow argv (a STRING destination points into argv, an opt_list holds
 * argv pointers in an array it owns: opt_list_release()).
 */
#ifndef SCOPEDB_OPT_H
#define SCOPEDB_OPT_H

#include <stddef.h>
#include <stdint.h>

struct buf;

enum opt_type {
	OPT_T_END = 0,	/* ends a table */
	OPT_T_FLAG,	/* int *value = 1; takes no value */
	OPT_T_STRING,	/* const char **value = the value; the last one wins */
	OPT_T_LIST,	/* struct opt_list *value: every value, in order */
	OPT_T_COUNT,	/* long *value = a non-negative decimal integer */
	OPT_T_CALLBACK, /* callback(opt, value) stores it (an enum, a percent...) */
};

enum opt_flags {
	OPT_HIDDEN = 1, /* accepted but left out of help, man page and completion */
	/* Takes one or more values, as Python argparse's nargs='+' (the
	 * options scope-profiler's own diff/check share with us): after
	 * "--opt V" the next words are values too, up to the next word that
	 * starts with '-' ("--" included, "-" alone is a value) or the end.
	 * "--opt=V" takes V only.  Each value is applied as a repetition. */
	OPT_MULTI = 2,
	/* With OPT_MULTI: the further values also stop at a word that does not
	 * start with a digit (rank lists: "--ranks 0 1 REGION" keeps REGION
	 * a positional argument). */
	OPT_MULTI_NUM = 4,
};

struct opt;

/* Parse arg into opt->value; 0, or a negative ERR_* code with the message
 * set by err_set() ("invalid --metric 'x': choose from ...").  When arg
 * spells a word of opt->choices in another case ("PCT"), the callback gets
 * that word ("pct") in a copy that lives for the call only: every option
 * with a fixed set of values takes them in any case. */
typedef int (*opt_cb)(const struct opt *opt, const char *arg);

struct opt {
	enum opt_type type;
	int short_name;	       /* a letter, or 0 */
	const char *long_name; /* without the dashes */
	void *value;	       /* destination; its type depends on type */
	const char *argh;      /* value name in help ("PATH"); NULL for a flag */
	/* Help text; '\n' starts a continuation line, and a line longer than
	 * the help column is broken at a space to end by column 80.  NULL
	 * with choices set: "first (default), second or third". */
	const char *help;
	const char *choices; /* space-separated values (completion, man), or NULL */
	opt_cb callback;     /* OPT_T_CALLBACK */
	intptr_t defval;     /* callback data */
	unsigned flags;	     /* enum opt_flags */
};

/* Compile-time check that v has type T (a warning, an error with -Werror,
 * when it has not). */
#define OPT_TYPED(T, v) (1 ? (v) : (T)NULL)

#define OPT_ENTRY(t, s, l, v, a, h, c, cb, d, f)                                                   \
	{                                                                                          \
		(t), (s), (l), (v), (a), (h), (c), (cb), (d), (f)                                  \
	}
#define OPT_END() OPT_ENTRY(OPT_T_END, 0, NULL, NULL, NULL, NULL, NULL, NULL, 0, 0)
#define OPT_FLAG(s, l, v, h)                                                                       \
	OPT_ENTRY(OPT_T_FLAG, s, l, OPT_TYPED(int *, v), NULL, h, NULL, NULL, 0, 0)
#define OPT_STRING(s, l, v, a, h)                                                                  \
	OPT_ENTRY(OPT_T_STRING, s, l, OPT_TYPED(const char **, v), a, h, NULL, NULL, 0, 0)
#define OPT_LIST(s, l, v, a, h)                                                                    \
	OPT_ENTRY(OPT_T_LIST, s, l, OPT_TYPED(struct opt_list *, v), a, h, NULL, NULL, 0, 0)
/* A list taking one or more values per occurrence (OPT_MULTI). */
#define OPT_LIST_MULTI(s, l, v, a, h)                                                              \
	OPT_ENTRY(OPT_T_LIST, s, l, OPT_TYPED(struct opt_list *, v), a, h, NULL, NULL, 0, OPT_MULTI)
#define OPT_COUNT(s, l, v, a, h)                                                                   \
	OPT_ENTRY(OPT_T_COUNT, s, l, OPT_TYPED(long *, v), a, h, NULL, NULL, 0, 0)
#define OPT_CALLBACK(s, l, v, a, h, cb, d) OPT_ENTRY(OPT_T_CALLBACK, s, l, v, a, h, NULL, cb, d, 0)
/* A callback option whose values are the words of choices. */
#define OPT_CHOICE(s, l, v, a, h, choices, cb)                                                     \
	OPT_ENTRY(OPT_T_CALLBACK, s, l, v, a, h, choices, cb, 0, 0)

/* The values of a repeatable option, in command-line order (borrowed). */
struct opt_list {
	const char **v;
	size_t n;
	size_t alloc;
};

#define OPT_LIST_INIT                                                                              \
	{                                                                                          \
		NULL, 0, 0                                                                         \
	}

/*
 * The integer value arg of option o into *out when it is a decimal integer
 * in [min, max]; else ERR_USAGE with the one message of every integer
 * option: "invalid --O 'V': expected a positive integer" ("a
 * non-negative integer", "an integer from MIN to MAX"), then " (HINT)"
 * when hint is not NULL.  OPT_COUNT uses it with 0 and LONG_MAX; callbacks
 * of integer options call it with their range.
 */
int opt_parse_int(long *out, const struct opt *o, const char *arg, long min, long max,
		  const char *hint);

/* Append s (borrowed) to l; ERR_NOMEM. */
int opt_list_push(struct opt_list *l, const char *s);

/* Free the array (not the strings); l is empty afterwards. */
void opt_list_release(struct opt_list *l);

/* max_args of a command whose positional arguments are not counted. */
#define OPT_ARGS_ANY (-1)

/* A command's usage texts besides its options (usage = the synopsis
 * opt_synopsis() makes of name, args and the options, then, each after a
 * blank line, before, the option lines, after), and how many
 * positional arguments it takes: more than max_args is the error too_many,
 * or "unexpected argument 'X'" (X the first one too many) when too_many is
 * NULL; fewer than min_args is the error missing, in the command's words. */
struct opt_cmd {
	const char *name; /* "diff" */
	/* The positional arguments of each form of the command, one form a
	 * line ("A B"; "REGION\n--match P"), or NULL: the command takes none.
	 * An option goes here only when a form requires it ("--to DB"); the
	 * others are "[<options>]", generated. */
	const char *args;
	const char *before;   /* paragraph before the options, or NULL */
	const char *after;    /* paragraph after the options, or NULL */
	const char *summary;  /* one line: the command list, the end of help */
	int max_args;	      /* or OPT_ARGS_ANY; 0 (the default) takes none */
	const char *too_many; /* NULL: "unexpected argument 'X'" */
	int min_args;	      /* 0 (the default): no minimum */
	const char *missing;  /* with min_args: "show needs a run SELECTOR" */
	/* the long name of an OPT_LIST option whose values count as
	 * positional arguments towards min_args ("check BASE
	 * --candidate-files A B"), or NULL */
	const char *args_option;
};

/* The positional-argument count of an opt_cmd, in one line: at least min
 * (fewer: the error missing) and at most most (or OPT_ARGS_ANY) ... */
#define OPT_ARGS(min, most, msg) .min_args = (min), .max_args = (most), .missing = (msg)
/* ... or exactly n, more being "too many arguments". */
#define OPT_ARGS_EXACTLY(n, msg) OPT_ARGS(n, n, msg), .too_many = "too many arguments"

/*
 * Parse argv[1..argc) (argv[0] is the command name) against opts.  On
 * success returns the number n of positional arguments, moved to
 * argv[0..n) in their order (argv[n] = NULL), cmd->min_args <= n <= cmd->max_args.
 * Returns -1 when the
 * command must stop and return *code: after --help (the help is on
 * stdout, *code 0 unless stdout failed) or after an error (reported on
 * stderr, *code 2).  See opt_describe() for the third case.
 */
int opt_parse(const struct opt_cmd *cmd, const struct opt *opts, int argc, char **argv, int *code);

/*
 * Append the synopsis of cmd to out, as git's usage strings: for each form
 * (line of cmd->args) "scopedb NAME ARGS [<options>]" ("[<options>]" when
 * opts has an option that is not hidden), forms separated by sep ("\n" in
 * the man page, "\n       " under "usage: ").  Generated so that it names
 * every option the list below it has.  ERR_NOMEM.
 */
int opt_synopsis(struct buf *out, const struct opt_cmd *cmd, const struct opt *opts,
		 const char *sep);

/* Append the usage text (synopsis, paragraphs, option lines; no "usage: "
 * and no final newline) to out; ERR_NOMEM. */
int opt_usage(struct buf *out, const struct opt_cmd *cmd, const struct opt *opts);

/* Print "scopedb NAME - SUMMARY\n\nusage: TEXT\n" to stdout (help CMD,
 * CMD --help); returns the exit code (cli_finish()). */
int opt_help(const struct opt_cmd *cmd, const struct opt *opts);

/* Print "scopedb: MESSAGE\nusage: TEXT\n" to stderr; returns
 * CLI_EXIT_ERROR.  For the checks of positional arguments. */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
int opt_usage_error(const struct opt_cmd *cmd, const struct opt *opts, const char *fmt, ...);

/*
 * Describing instead of parsing, for the generators (help CMD, the man
 * pages, the completion script): while fn is set, opt_parse() parses
 * nothing and returns -1 with *code = fn(ctx, cmd, opts), so running a
 * command hands its declarations to fn.  A command must therefore call
 * opt_parse() before doing anything else.  opt_describe(NULL, NULL)
 * restores parsing.
 */
typedef int (*opt_describe_fn)(void *ctx, const struct opt_cmd *cmd, const struct opt *opts);
void opt_describe(opt_describe_fn fn, void *ctx);

/* The help text of o (o->help, or the one made from o->choices) appended
 * to out with continuation lines joined by sep; ERR_NOMEM. */
int opt_help_text(struct buf *out, const struct opt *o, const char *sep);

#endif
