/*
 * test_opt.c - the option parser of the CLI (src/cli/opt.c): each type
 * (flag, string, repeatable list, count, callback), "--opt=value" and
 * "--opt value", short options and clusters, abbreviations, a missing
 * value, an unknown option, permutation of positionals, POSIXLY_CORRECT,
 * "--", -h/--help, the describe hook, and the usage text generated for a
 * small declared command (column, continuation lines, hidden options,
 * help made from choices).  stdout and stderr are captured in files of
 * the test directory.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/opt.h"
#include "render/render.h"
#include "scopedb/err.h"
#include "scopedb/stats.h"
#include "scopedb/util.h"
#include "testutil.h"

/* What a parse of the test command stored. */
struct dest {
	int flag, quiet;
	const char *db;
	struct opt_list tags;
	long limit;
	double pct;
	const char *fmt;
	int seen_cb;
};

static const struct opt_cmd test_cmd = {
    .name = "frob",
    .args = "FILE...",
    .before = "FILE is anything.",
    .after = "The end.",
    .summary = "frobnicate the files",
    .max_args = OPT_ARGS_ANY,
};

/* A callback counting its calls and refusing "bad". */
static int test_cb(const struct opt *opt, const char *arg)
{
	struct dest *d = opt->value;

	if (!strcmp(arg, "bad"))
		return err_set(ERR_USAGE, "invalid --frob '%s': not good", arg);
	d->seen_cb += (int)opt->defval;
	return 0;
}

#define TEST_OPTS(d)                                                                               \
	{                                                                                          \
		OPT__DB(&(d).db), OPT_FLAG(0, "flag", &(d).flag, "a flag"),                        \
		    OPT_LIST(0, "tag", &(d).tags, "T", "tag (repeatable)\nsecond line"),           \
		    OPT_COUNT(0, "limit", &(d).limit, "N", "at most N"),                           \
		    OPT_FLAG('q', "quiet", &(d).quiet, "quiet"),                                   \
		    OPT__PERCENT("max-regression", &(d).pct, "a long name", 1),                    \
		    OPT__FORMAT(&(d).fmt, "table csv json"),                                       \
		    OPT_CALLBACK(0, "frob", &(d), "X", "callback", test_cb, 2),                    \
		    OPT_ENTRY(OPT_T_FLAG, 0, "secret", &(d).flag, NULL, "hidden", NULL, NULL, 0,   \
			      OPT_HIDDEN),                                                         \
		    OPT_END(),                                                                     \
	}

/* Captured output of the last parse. */
static char out_text[8192], err_text[8192];

static void slurp(const char *path, char *text, size_t len)
{
	FILE *f = fopen(path, "r");
	size_t n = f ? fread(text, 1, len - 1, f) : 0;

	text[n] = '\0';
	if (f)
		fclose(f);
}

/* Parse argv (NULL-terminated; argv[0] the command name) against cmd and
 * opts with stdout and stderr captured in out_text and err_text; returns
 * opt_parse()'s result, *code its code. */
static int parse_with(const struct opt_cmd *cmd, const struct opt *opts, const char **args,
		      int *code)
{
	char **argv = (char **)args; /* opt_parse() moves the pointers only */
	int argc = 0, saved_out, saved_err, n;

	while (argv[argc])
		argc++;
	fflush(stdout);
	fflush(stderr);
	saved_out = dup(1);
	saved_err = dup(2);
	assert_non_null(freopen(tu_path("out"), "w", stdout));
	assert_non_null(freopen(tu_path("err"), "w", stderr));
	*code = -99;
	n = opt_parse(cmd, opts, argc, argv, code);
	fflush(stdout);
	fflush(stderr);
	dup2(saved_out, 1);
	dup2(saved_err, 2);
	close(saved_out);
	close(saved_err);
	slurp(tu_path("out"), out_text, sizeof(out_text));
	slurp(tu_path("err"), err_text, sizeof(err_text));
	return n;
}

/* parse_with() the test command into d. */
static int parse(struct dest *d, const char **args, int *code)
{
	const struct opt opts[] = TEST_OPTS(*d);

	return parse_with(&test_cmd, opts, args, code);
}

static void dest_init(struct dest *d)
{
	memset(d, 0, sizeof(*d));
	d->fmt = "table";
}

/* The first line of the captured stderr. */
static const char *err_line(void)
{
	static char line[512];
	size_t k = strcspn(err_text, "\n");

	snprintf(line, sizeof(line), "%.*s", (int)k, err_text);
	return line;
}

static void test_types(void **state)
{
	const char *argv[] = {"frob",
			      "--db",
			      "x.sqlite",
			      "--flag",
			      "--tag",
			      "a",
			      "--tag=b",
			      "--limit",
			      "7",
			      "-q",
			      "--max-regression=2.5",
			      "--format",
			      "csv",
			      "--frob=ok",
			      "--frob",
			      "ok",
			      NULL};
	struct dest d;
	int code, n;

	(void)state;
	dest_init(&d);
	n = parse(&d, argv, &code);
	assert_int_equal(n, 0);
	assert_string_equal(d.db, "x.sqlite");
	assert_int_equal(d.flag, 1);
	assert_int_equal(d.quiet, 1);
	assert_int_equal(d.tags.n, 2);
	assert_string_equal(d.tags.v[0], "a");
	assert_string_equal(d.tags.v[1], "b");
	assert_int_equal(d.limit, 7);
	assert_true(d.pct == 2.5);
	assert_string_equal(d.fmt, "csv");
	assert_int_equal(d.seen_cb, 4);
	assert_string_equal(err_text, "");
	assert_string_equal(out_text, "");
	opt_list_release(&d.tags);
}

static void test_positionals(void **state)
{
	const char *argv[] = {"frob",	"one", "--db",	"x",  "two", "-",
			      "--flag", "--",  "--tag", "-q", NULL};
	struct dest d;
	int code, n;

	(void)state;
	dest_init(&d);
	n = parse(&d, argv, &code);
	assert_int_equal(n, 5);
	assert_string_equal(argv[0], "one");
	assert_string_equal(argv[1], "two");
	assert_string_equal(argv[2], "-");
	assert_string_equal(argv[3], "--tag");
	assert_string_equal(argv[4], "-q");
	assert_null(argv[5]);
	assert_string_equal(d.db, "x");
	assert_int_equal(d.flag, 1);
	assert_int_equal(d.quiet, 0);
	assert_int_equal(d.tags.n, 0);
}

/* A command with the OPT_MULTI options of diff: two runs A and B. */
static const struct opt_cmd multi_cmd = {
    .name = "cmp",
    .args = "A B",
    .summary = "compare",
    OPT_ARGS(2, 2, "cmp needs two runs"),
};

struct multi_dest {
	struct opt_list inc, exc;
	struct i64vec ranks;
	const char *fmt;
};

/* parse_with() multi_cmd into d (released by multi_release()). */
static int parse_multi(struct multi_dest *d, const char **args, int *code)
{
	const struct opt opts[] = {
	    OPT__INCLUDE(&d->inc),
	    OPT__EXCLUDE(&d->exc),
	    OPT__RANKS(&d->ranks),
	    OPT__FORMAT(&d->fmt, "table csv"),
	    OPT_END(),
	};

	memset(d, 0, sizeof(*d));
	d->fmt = "table";
	i64vec_init(&d->ranks);
	return parse_with(&multi_cmd, opts, args, code);
}

static void multi_release(struct multi_dest *d)
{
	opt_list_release(&d->inc);
	opt_list_release(&d->exc);
	i64vec_release(&d->ranks);
}

/* scope-profiler's nargs='+' options: values up to the next option; the
 * runs before, after "--", or after another option; --x=V takes V only;
 * --ranks also stops at a word that is not a number. */
static void test_multi_values(void **state)
{
	const char *a1[] = {"cmp", "A",		"B",	    "--include", "solve",
			    "io",  "--exclude", "^mpi",	    "--ranks",	 "0",
			    "1",   "4-7",	"--format", "csv",	 NULL};
	const char *a2[] = {"cmp", "--include", "solve", "io", "--", "A", "B", NULL};
	const char *a3[] = {"cmp", "--include=solve", "A", "--ranks", "0", "1", "B", NULL};
	const char *a4[] = {"cmp", "--include", "solve", "-", "--format", "csv", "A", "B", NULL};
	struct multi_dest d;
	int code, n;

	(void)state;
	n = parse_multi(&d, a1, &code);
	assert_int_equal(n, 2);
	assert_string_equal(a1[0], "A");
	assert_string_equal(a1[1], "B");
	assert_int_equal(d.inc.n, 2);
	assert_string_equal(d.inc.v[0], "solve");
	assert_string_equal(d.inc.v[1], "io");
	assert_int_equal(d.exc.n, 1);
	assert_int_equal(d.ranks.len, 6); /* 0, 1, 4, 5, 6, 7 */
	assert_string_equal(d.fmt, "csv");
	multi_release(&d);

	n = parse_multi(&d, a2, &code);
	assert_int_equal(n, 2);
	assert_int_equal(d.inc.n, 2);
	multi_release(&d);

	n = parse_multi(&d, a3, &code);
	assert_int_equal(n, 2);
	assert_string_equal(a3[0], "A");
	assert_string_equal(a3[1], "B");
	assert_int_equal(d.inc.n, 1);
	assert_int_equal(d.ranks.len, 2);
	multi_release(&d);

	/* "-" alone is a value */
	n = parse_multi(&d, a4, &code);
	assert_int_equal(n, 2);
	assert_int_equal(d.inc.n, 2);
	assert_string_equal(d.inc.v[1], "-");
	multi_release(&d);
}

/* The values took the runs: the hint names the option and what it took. */
static void test_multi_missing(void **state)
{
	const char *a1[] = {"cmp", "--include", "solve", "io", "A", "B", NULL};
	const char *a2[] = {"cmp", "A", "--ranks", "0", "1", "3-1", NULL};
	const char *a3[] = {"cmp", "A", NULL};
	struct multi_dest d;
	int code;

	(void)state;
	assert_int_equal(parse_multi(&d, a1, &code), -1);
	assert_int_equal(code, 2);
	assert_string_equal(
	    err_line(), "scopedb: cmp needs two runs; --include took 'solve io A B' (its values "
			"run until the next option): put the arguments before it or end its "
			"values with --");
	multi_release(&d);
	assert_int_equal(parse_multi(&d, a2, &code), -1);
	assert_string_equal(err_line(), "scopedb: invalid --ranks '3-1': range 3-1 ends before it "
					"starts (the values of --ranks run until the next option: "
					"end them with --)");
	multi_release(&d);
	/* no OPT_MULTI option took several words: the plain message */
	assert_int_equal(parse_multi(&d, a3, &code), -1);
	assert_string_equal(err_line(), "scopedb: cmp needs two runs");
	multi_release(&d);
}

static void test_posixly_correct(void **state)
{
	const char *argv[] = {"frob", "--flag", "one", "--quiet", NULL};
	struct dest d;
	int code, n;

	(void)state;
	dest_init(&d);
	setenv("POSIXLY_CORRECT", "1", 1);
	n = parse(&d, argv, &code);
	unsetenv("POSIXLY_CORRECT");
	assert_int_equal(n, 2);
	assert_string_equal(argv[0], "one");
	assert_string_equal(argv[1], "--quiet");
	assert_int_equal(d.flag, 1);
	assert_int_equal(d.quiet, 0);
}

static void test_abbreviations(void **state)
{
	const char *ok[] = {"frob", "--li=3", "--fl", "--ma", "1", "--fo", "json", NULL};
	const char *ambiguous[] = {"frob", "--f", "x", NULL};
	struct dest d;
	int code;

	(void)state;
	dest_init(&d);
	assert_int_equal(parse(&d, ok, &code), 0);
	assert_int_equal(d.limit, 3);
	assert_int_equal(d.flag, 1);
	assert_true(d.pct == 1.0);
	assert_string_equal(d.fmt, "json");
	/* flag, format, frob */
	dest_init(&d);
	assert_int_equal(parse(&d, ambiguous, &code), -1);
	assert_int_equal(code, CLI_EXIT_ERROR);
	assert_string_equal(err_line(),
			    "scopedb: option '--f' is ambiguous: --flag, --format, --frob");
}

static void test_unknown(void **state)
{
	static const struct {
		const char *argv[5];
		const char *msg;
	} cases[] = {
	    {{"frob", "--bogus", "x", NULL}, "scopedb: unknown option '--bogus'"},
	    {{"frob", "--bogus=1", NULL}, "scopedb: unknown option '--bogus=1'"},
	    {{"frob", "--flag=1", NULL}, "scopedb: option '--flag' takes no value"},
	    {{"frob", "--help=1", NULL}, "scopedb: option '--help' takes no value"},
	    {{"frob", "--=1", NULL}, "scopedb: unknown option '--=1'"},
	    {{"frob", "-x", NULL}, "scopedb: unknown option '-x'"},
	    /* in a cluster, the letter and the word (getopt_long's way, kept
	     * until a stranger's review, named the word before the cluster:
	     * "runs -zz" said "unknown option 'runs'") */
	    {{"frob", "-qx", NULL}, "scopedb: unknown option '-x' in '-qx'"},
	    {{"frob", "-xq", NULL}, "scopedb: unknown option '-x' in '-xq'"},
	    {{"frob", "a", "--tag", "t", "-xq"}, "scopedb: unknown option '-x' in '-xq'"},
	    {{"frob", "--tag", "t", "-xq", NULL}, "scopedb: unknown option '-x' in '-xq'"},
	    /* not an ASCII letter or digit: the word (half a UTF-8 character
	     * printed alone broke the line's UTF-8; '-' read as "--") */
	    {{"frob", "-\xc3\xa9", NULL}, "scopedb: unknown option '-\xc3\xa9'"},
	    {{"frob", "-q-", NULL}, "scopedb: unknown option '-q-'"},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *argv[6] = {NULL};
		struct dest d;
		int code, k;

		for (k = 0; k < 5 && cases[i].argv[k]; k++)
			argv[k] = cases[i].argv[k];
		dest_init(&d);
		assert_int_equal(parse(&d, argv, &code), -1);
		assert_int_equal(code, CLI_EXIT_ERROR);
		assert_string_equal(err_line(), cases[i].msg);
		assert_non_null(strstr(err_text, "\nusage: scopedb frob FILE..."));
		opt_list_release(&d.tags);
	}
}

static void test_max_args(void **state)
{
	const struct opt_cmd two = {.name = "two", .args = "A B", .max_args = 2};
	const struct opt_cmd none = {
	    .name = "none",
	};
	const struct opt opts[] = {OPT_END()};
	const char *argv2[] = {"two", "a", "b", NULL}, *argv3[] = {"two", "a", "b", "c", NULL};
	const char *argv1[] = {"none", "x", NULL};
	int code;

	(void)state;
	assert_int_equal(parse_with(&two, opts, argv2, &code), 2);
	assert_int_equal(parse_with(&two, opts, argv3, &code), -1);
	assert_int_equal(code, CLI_EXIT_ERROR);
	assert_string_equal(err_text, "scopedb: unexpected argument 'c'\nusage: scopedb two A B\n");
	assert_int_equal(parse_with(&none, opts, argv1, &code), -1);
	assert_string_equal(err_text, "scopedb: unexpected argument 'x'\nusage: scopedb none\n");
}

static void test_missing_value(void **state)
{
	const char *argv[] = {"frob", "x", "--limit", NULL};
	const char *taken[] = {"frob", "--db", "--flag", NULL};
	struct dest d;
	int code;

	(void)state;
	dest_init(&d);
	assert_int_equal(parse(&d, argv, &code), -1);
	assert_int_equal(code, CLI_EXIT_ERROR);
	assert_string_equal(err_line(), "scopedb: option '--limit' needs a value");
	/* a value that looks like an option is still the value */
	dest_init(&d);
	assert_int_equal(parse(&d, taken, &code), 0);
	assert_string_equal(d.db, "--flag");
	assert_int_equal(d.flag, 0);
}

static void test_bad_values(void **state)
{
	const char *count[] = {"frob", "--limit", "-1", NULL};
	const char *fmt[] = {"frob", "--format=markdown", NULL};
	const char *cb[] = {"frob", "--frob", "bad", "--bogus", NULL};
	const char *order[] = {"frob", "--bogus", "--frob", "bad", NULL};
	struct dest d;
	int code;

	(void)state;
	dest_init(&d);
	assert_int_equal(parse(&d, count, &code), -1);
	assert_string_equal(err_text,
			    "scopedb: invalid --limit '-1': expected a non-negative integer\n");
	dest_init(&d);
	assert_int_equal(parse(&d, fmt, &code), -1);
	assert_string_equal(err_text,
			    "scopedb: invalid --format 'markdown': choose from table, json, csv\n");
	/* values are checked left to right: the first problem wins */
	dest_init(&d);
	assert_int_equal(parse(&d, cb, &code), -1);
	assert_int_equal(code, CLI_EXIT_ERROR);
	assert_string_equal(err_text, "scopedb: invalid --frob 'bad': not good\n");
	dest_init(&d);
	assert_int_equal(parse(&d, order, &code), -1);
	assert_string_equal(err_line(), "scopedb: unknown option '--bogus'");
}

static const char test_usage[] =
    "usage: scopedb frob FILE... [<options>]\n"
    "\n"
    "FILE is anything.\n"
    "\n"
    "    --db PATH          store: a file, or a postgresql:// URI\n"
    "                       (default $SCOPEDB_DB, else ./scopedb.sqlite)\n"
    "    --flag             a flag\n"
    "    --tag T            tag (repeatable)\n"
    "                       second line\n"
    "    --limit N          at most N\n"
    "    -q, --quiet        quiet\n"
    "    --max-regression PCT\n"
    "                       a long name\n"
    "    --format FMT       table (default), csv or json\n"
    "    --frob X           callback\n"
    "\n"
    "The end.\n";

/* opt_parse_int(): the one integer parser, its range and its message. */
static void test_parse_int(void **state)
{
	const struct opt o = OPT_COUNT(0, "n", NULL, "N", "n");
	static const char *const bad[] = {"",
					  "-",
					  "x",
					  "1x",
					  " 1",
					  "+1",
					  "0x10",
					  "1.0",
					  "99999999999999999999",
					  "-99999999999999999999"};
	char want[160];
	size_t i;
	long v = 7;

	(void)state;
	assert_int_equal(opt_parse_int(&v, &o, "0", 0, LONG_MAX, NULL), 0);
	assert_int_equal(v, 0);
	assert_int_equal(opt_parse_int(&v, &o, "1000", 1, 1000, NULL), 0);
	assert_int_equal(v, 1000);
	assert_int_equal(opt_parse_int(&v, &o, "-5", -10, 10, NULL), 0);
	assert_int_equal(v, -5);
	assert_int_equal(opt_parse_int(&v, &o, "9223372036854775807", 0, LONG_MAX, NULL), 0);
	assert_true(v == LONG_MAX);
	assert_int_equal(opt_parse_int(&v, &o, "-9223372036854775808", LONG_MIN, 0, NULL), 0);
	assert_true(v == LONG_MIN);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = 7;
		assert_int_equal(opt_parse_int(&v, &o, bad[i], 0, LONG_MAX, NULL), ERR_USAGE);
		assert_int_equal(v, 7);
		snprintf(want, sizeof(want), "invalid --n '%s': expected a non-negative integer",
			 bad[i]);
		assert_string_equal(err_msg(), want);
	}
	assert_int_equal(opt_parse_int(&v, &o, "0", 1, LONG_MAX, "hint"), ERR_USAGE);
	assert_string_equal(err_msg(), "invalid --n '0': expected a positive integer (hint)");
	assert_int_equal(opt_parse_int(&v, &o, "1001", 1, 1000, "runs"), ERR_USAGE);
	assert_string_equal(err_msg(),
			    "invalid --n '1001': expected an integer from 1 to 1000 (runs)");
	assert_int_equal(opt_parse_int(&v, &o, "-1", 0, 4294967295L, NULL), ERR_USAGE);
	assert_string_equal(err_msg(),
			    "invalid --n '-1': expected an integer from 0 to 4294967295");
	assert_int_equal(v, 7);
}

static void test_help(void **state)
{
	const char *help[] = {"frob", "--flag", "--help", "--bogus", NULL};
	const char *cluster[] = {"frob", "-qh", NULL};
	const char *abbrev[] = {"frob", "--he", NULL};
	char expect[sizeof(test_usage) + 64];
	struct dest d;
	int code;

	(void)state;
	/* the summary first, then the usage; a name too wide for the help
	 * column has its help on the next line, aligned */
	snprintf(expect, sizeof(expect), "scopedb frob - frobnicate the files\n\n%s", test_usage);
	dest_init(&d);
	assert_int_equal(parse(&d, help, &code), -1);
	assert_int_equal(code, CLI_EXIT_OK);
	assert_string_equal(out_text, expect);
	assert_string_equal(err_text, "");
	dest_init(&d);
	assert_int_equal(parse(&d, cluster, &code), -1);
	assert_int_equal(code, CLI_EXIT_OK);
	assert_int_equal(d.quiet, 1);
	assert_string_equal(out_text, expect);
	dest_init(&d);
	assert_int_equal(parse(&d, abbrev, &code), -1);
	assert_string_equal(out_text, expect);
}

static void test_usage_text(void **state)
{
	struct dest d;
	const struct opt opts[] = TEST_OPTS(d);
	const struct opt none[] = {OPT_END()};
	const struct opt_cmd bare = {.name = "bare", .summary = "x"};
	struct buf b = BUF_INIT;

	(void)state;
	assert_int_equal(opt_usage(&b, &test_cmd, opts), 0);
	/* the text of "usage: TEXT\n" */
	assert_int_equal(b.len, strlen(test_usage) - strlen("usage: ") - 1);
	assert_memory_equal(b.data, test_usage + strlen("usage: "), b.len);
	b.len = 0;
	assert_int_equal(opt_usage(&b, &bare, none), 0);
	assert_string_equal(b.data, "scopedb bare");
	buf_release(&b);
}

/* A help line longer than the help column (a generated list of choices)
 * is broken at the last space that keeps it within 80 columns; a declared
 * line break stays where it is; a word wider than the column is left
 * whole. */
static void test_help_wrap(void **state)
{
	int flag = 0;
	const struct opt opts[] = {
	    OPT_FLAG(0, "long", &flag,
		     "one two three four five six seven eight nine ten eleven twelve thirteen "
		     "fourteen\nshort line"),
	    OPT_FLAG(0, "word", &flag,
		     "x123456789012345678901234567890123456789012345678901234567890 y"),
	    OPT_END(),
	};
	const struct opt_cmd cmd = {.name = "wrap", .summary = "x"};
	struct buf b = BUF_INIT;

	(void)state;
	assert_int_equal(opt_usage(&b, &cmd, opts), 0);
	assert_string_equal(
	    b.data,
	    "scopedb wrap [<options>]\n\n"
	    "    --long             one two three four five six seven eight nine ten eleven\n"
	    "                       twelve thirteen fourteen\n"
	    "                       short line\n"
	    "    --word             "
	    "x123456789012345678901234567890123456789012345678901234567890\n"
	    "                       y");
	buf_release(&b);
}

/* opt_synopsis(): one line per form, "[<options>]" only when some option
 * shows in the help. */
static void test_synopsis(void **state)
{
	struct dest d;
	const struct opt opts[] = TEST_OPTS(d);
	const struct opt hidden[] = {
	    OPT_ENTRY(OPT_T_FLAG, 0, "secret", &d.flag, NULL, "x", NULL, NULL, 0, OPT_HIDDEN),
	    OPT_END()};
	const struct opt_cmd forms = {.name = "two", .args = "A B\n--match P\n", .summary = "x"};
	const struct opt_cmd bare = {.name = "bare", .summary = "x"};
	struct buf b = BUF_INIT;

	(void)state;
	assert_int_equal(opt_synopsis(&b, &forms, opts, "\n  "), 0);
	assert_string_equal(b.data, "scopedb two A B [<options>]\n"
				    "  scopedb two --match P [<options>]\n"
				    "  scopedb two [<options>]");
	b.len = 0;
	assert_int_equal(opt_synopsis(&b, &bare, opts, "\n"), 0);
	assert_string_equal(b.data, "scopedb bare [<options>]");
	b.len = 0;
	assert_int_equal(opt_synopsis(&b, &bare, hidden, "\n"), 0);
	assert_string_equal(b.data, "scopedb bare");
	buf_release(&b);
}

/* opt_describe_fn recording what it was given. */
static int test_describe_fn(void *ctx, const struct opt_cmd *cmd, const struct opt *opts)
{
	const struct opt **seen = ctx;

	assert_ptr_equal(cmd, &test_cmd);
	*seen = opts;
	return 7;
}

static void test_describe(void **state)
{
	const char *argv[] = {"frob", "--bogus", NULL};
	const struct opt *seen = NULL;
	struct dest d;
	int code;

	(void)state;
	dest_init(&d);
	opt_describe(test_describe_fn, &seen);
	assert_int_equal(parse(&d, argv, &code), -1);
	opt_describe(NULL, NULL);
	assert_int_equal(code, 7);
	assert_non_null(seen);
	assert_string_equal(err_text, "");
}

/* The values completion offers for --metric are the metrics, in order. */
static void test_metric_choices(void **state)
{
	enum stats_metric m = STATS_TOTAL;
	const struct opt opts[] = {OPT__METRIC(&m), OPT_END()};
	char word[32];
	const char *p = opts[0].choices;
	int i;

	(void)state;
	for (i = 0; i < STATS_NMETRICS; i++) {
		size_t len = strcspn(p, " ");

		snprintf(word, sizeof(word), "%.*s", (int)len, p);
		assert_string_equal(word, stats_metric_name((enum stats_metric)i));
		assert_int_equal(cli_opt_metric(&opts[0], word), 0);
		assert_int_equal(m, i);
		p += len + (p[len] == ' ');
	}
	assert_string_equal(p, "");
}

/* A choice callback that compares with strcmp() only, keeping what it
 * was given. */
static char choice_got[64];

static int choice_cb(const struct opt *opt, const char *arg)
{
	(void)opt;
	snprintf(choice_got, sizeof(choice_got), "%s", arg);
	if (strcmp(arg, "time") && strcmp(arg, "pct") && strcmp(arg, "is-long"))
		return err_set(ERR_USAGE, "invalid --sort '%s': choose from time, pct", arg);
	return 0;
}

/* An option with choices takes them in any case, whatever its callback
 * compares with: "PCT" reaches it as "pct"; other words as they are. */
static void test_choices_any_case(void **state)
{
	int dummy = 0, code;
	const struct opt opts[] = {
	    OPT_CHOICE(0, "sort", &dummy, "KEY", NULL, "time pct is-long", choice_cb), OPT_END()};
	const char *cases[][3] = {
	    {"pct", "pct", "0"},	 {"PCT", "pct", "0"}, {"Time", "time", "0"},
	    {"IS-LONG", "is-long", "0"}, {"pc", "pc", "2"},   {"PCTX", "PCTX", "2"},
	    {"tImE ", "tImE ", "2"},	 {"", "", "2"},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const char *args[] = {"frob", "--sort", cases[i][0], NULL};
		int n = parse_with(&test_cmd, opts, args, &code);

		assert_string_equal(choice_got, cases[i][1]);
		if (cases[i][2][0] == '0') {
			assert_int_equal(n, 0);
		} else {
			assert_true(n < 0);
			assert_int_equal(code, 2);
		}
	}
}

/* Whether the words of list include name. */
static int has_word(const char *list, const char *name)
{
	size_t len = strlen(name);
	const char *p;

	for (p = strstr(list, name); p; p = strstr(p + 1, name))
		if ((p == list || p[-1] == ' ') && (p[len] == ' ' || p[len] == '\0'))
			return 1;
	return 0;
}

/* --format takes the names of the registered renderers: check offers
 * every renderer, diff those of a comparison (not github, codequality:
 * a check's findings), a command with generic documents every renderer
 * that needs no comparison (not junit); the command's own order first. */
static void test_format_choices(void **state)
{
	const char *all = cli_formats_all("table markdown csv json",
					  RENDER_NEEDS_COMPARISON | RENDER_NEEDS_FINDINGS);
	const char *cmp = cli_formats_all("table markdown csv json", RENDER_NEEDS_COMPARISON);
	const char *any = cli_formats_all("table markdown csv json", 0), *fmt = NULL;
	const struct renderer *r;
	size_t i;

	(void)state;
	assert_true(!strncmp(cmp, "table markdown csv json", 23));
	assert_true(!strncmp(any, "table markdown csv json", 23));
	for (i = 0; (r = render_at(i)) != NULL; i++) {
		assert_true(has_word(all, r->name));
		assert_int_equal(has_word(cmp, r->name), !(r->needs & RENDER_NEEDS_FINDINGS));
		assert_int_equal(has_word(any, r->name), r->needs == 0);
		assert_int_equal(cli_parse_format(&fmt, r->name, all), 0);
		assert_string_equal(fmt, r->name);
	}
	assert_int_equal(i, 7); /* table json csv markdown junit github codequality */
	assert_true(has_word(cmp, "junit"));
	assert_false(has_word(cmp, "github"));
	assert_true(has_word(all, "codequality"));
	assert_false(has_word(any, "junit"));
	/* one list per argument, kept: the same pointer for the same call */
	assert_ptr_equal(cli_formats_all("table markdown csv json", 0), any);
	assert_true(!strncmp(cli_formats_all("json table", 0), "json table csv markdown", 23));
	fmt = "table";
	assert_int_equal(cli_parse_format(&fmt, "junit", any), ERR_USAGE);
	assert_string_equal(err_msg(),
			    "invalid --format 'junit': choose from table, json, csv, markdown");
	assert_int_equal(cli_parse_format(&fmt, "csv", "json table"), ERR_USAGE);
	assert_string_equal(err_msg(), "invalid --format 'csv': choose from table, json");
	assert_true(cli_format_is(fmt, "table"));
	assert_false(cli_format_is(NULL, "csv"));
}

/* An OPT_MULTI option whose next word is "--" or looks like an option
 * has no value: the missing-value message, for --x, -x and --ranks;
 * "--include=--" and "-" alone are still values. */
static void test_multi_needs_value(void **state)
{
	const char *a1[] = {"cmp", "--include", "--", "A", "B", NULL};
	const char *a2[] = {"cmp", "--exclude", "--format", "csv", "A", "B", NULL};
	const char *a3[] = {"cmp", "A", "B", "--ranks", "-1", NULL};
	const char *a4[] = {"cmp", "--include=--", "--", "A", "B", NULL};
	const char *a5[] = {"cmp", "--inc", "-x", "A", "B", NULL};
	const char *a6[] = {"cmp", "--include", "-", "A", "B", NULL};
	struct multi_dest d;
	int code;

	(void)state;
	assert_int_equal(parse_multi(&d, a1, &code), -1);
	assert_int_equal(code, CLI_EXIT_ERROR);
	assert_string_equal(err_line(), "scopedb: option '--include' needs a value");
	multi_release(&d);
	assert_int_equal(parse_multi(&d, a2, &code), -1);
	assert_string_equal(err_line(), "scopedb: option '--exclude' needs a value");
	multi_release(&d);
	assert_int_equal(parse_multi(&d, a3, &code), -1);
	assert_string_equal(
	    err_line(), "scopedb: option '--ranks' needs a value: '-1', a word starting with '-', "
			"is taken as an option (a value starting with '-' is written --ranks=-1)");
	multi_release(&d);
	assert_int_equal(parse_multi(&d, a5, &code), -1);
	assert_string_equal(err_line(), "scopedb: option '--inc' needs a value");
	multi_release(&d);
	assert_int_equal(parse_multi(&d, a4, &code), 2);
	assert_int_equal(d.inc.n, 1);
	assert_string_equal(d.inc.v[0], "--");
	assert_string_equal(a4[0], "A");
	multi_release(&d);
	assert_int_equal(parse_multi(&d, a6, &code), -1); /* "-" took A B */
	assert_string_equal(err_line(),
			    "scopedb: cmp needs two runs; --include took '- A B' (its values "
			    "run until the next option): put the arguments before it or end its "
			    "values with --");
	multi_release(&d);
}

/* Many distinct lists: none is dropped, each kept (same pointer). */
static void test_format_lists_kept(void **state)
{
	static char names[20][32]; /* cli_formats_all() keeps the pointer */
	const char *first[20];
	struct buf b = BUF_INIT;
	int i;

	(void)state;
	for (i = 0; i < 20; i++) {
		snprintf(names[i], sizeof(names[i]), "json x%d", i);
		first[i] = cli_formats_all(names[i], RENDER_NEEDS_COMPARISON);
		assert_true(has_word(first[i], "junit"));
		assert_true(has_word(first[i], "table"));
	}
	for (i = 0; i < 20; i++)
		assert_ptr_equal(cli_formats_all(names[i], RENDER_NEEDS_COMPARISON), first[i]);
	assert_int_equal(cli_format_choices(&b, "csv junit table"), 0);
	assert_string_equal(b.data, "table, csv, junit");
	buf_release(&b);
}

/* The parser follows POSIXLY_CORRECT: the tests start without it. */
static int setup(void **state)
{
	(void)state;
	unsetenv("POSIXLY_CORRECT");
	return 0;
}

TU_MAIN(setup, NULL,
	{
	    cmocka_unit_test(test_types),
	    cmocka_unit_test(test_positionals),
	    cmocka_unit_test(test_multi_values),
	    cmocka_unit_test(test_multi_missing),
	    cmocka_unit_test(test_posixly_correct),
	    cmocka_unit_test(test_abbreviations),
	    cmocka_unit_test(test_unknown),
	    cmocka_unit_test(test_max_args),
	    cmocka_unit_test(test_missing_value),
	    cmocka_unit_test(test_bad_values),
	    cmocka_unit_test(test_parse_int),
	    cmocka_unit_test(test_help),
	    cmocka_unit_test(test_usage_text),
	    cmocka_unit_test(test_help_wrap),
	    cmocka_unit_test(test_synopsis),
	    cmocka_unit_test(test_describe),
	    cmocka_unit_test(test_metric_choices),
	    cmocka_unit_test(test_format_choices),
	    cmocka_unit_test(test_choices_any_case),
	    cmocka_unit_test(test_multi_needs_value),
	    cmocka_unit_test(test_format_lists_kept),
	})
