/*
 * test_match.c - --include/--exclude with Python re.match semantics
 * (anchored at the start only, includes OR-ed, excludes after), the
 * translated Python spellings, compile errors, and --ranks specs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scopedb/err.h"
#include "select/match.h"
#include "testutil.h"

/* 1/0 whether name is selected by the given patterns. */
static int sel(const char *const *inc, size_t ninc, const char *const *exc, size_t nexc,
	       const char *name)
{
	struct match *m = NULL;
	int out = -1;

	assert_int_equal(match_new(&m, inc, ninc, exc, nexc), 0);
	assert_int_equal(match_name(&out, m, name), 0);
	match_free(m);
	return out;
}

static int inc1(const char *pat, const char *name)
{
	const char *inc[] = {pat};

	return sel(inc, 1, NULL, 0, name);
}

static void test_anchoring(void **state)
{
	(void)state;
	assert_int_equal(sel(NULL, 0, NULL, 0, "anything"), 1);
	assert_int_equal(inc1("solve", "solve"), 1);
	assert_int_equal(inc1("solve", "solver_x"), 1);
	assert_int_equal(inc1("solve", "xsolve"), 0);
	assert_int_equal(inc1("a|b", "bcd"), 1);
	assert_int_equal(inc1("a|b", "xb"), 0);
	assert_int_equal(inc1("solve$", "solver"), 0);
	assert_int_equal(inc1("solve$", "solve"), 1);
	assert_int_equal(inc1(".*io", "mpi_io"), 1);
	assert_int_equal(inc1("", "x"), 1);
	assert_int_equal(inc1("Solve", "solve"), 0);
	assert_int_equal(inc1("(?i)Solve", "solve"), 1);
	assert_int_equal(inc1("(?P<n>ab)(?P=n)", "abab"), 1);
}

static void test_python_syntax(void **state)
{
	(void)state;
	/* \Z is Python's end of string. */
	assert_int_equal(inc1("solve\\Z", "solve"), 1);
	assert_int_equal(inc1("solve\\Z", "solver"), 0);
	assert_int_equal(inc1("solve\\Z", "solve\n"), 0);
	assert_int_equal(inc1("a\\\\Z", "a\\Z"), 1); /* escaped backslash, literal Z */
	/* {,N} is {0,N}. */
	assert_int_equal(inc1("xa{,2}b", "xaab"), 1);
	assert_int_equal(inc1("xa{,2}b", "xb"), 1);
	assert_int_equal(inc1("xa{,2}b", "xaaab"), 0);
	assert_int_equal(inc1("x\\{,2}", "x{,2}"), 1);
	assert_int_equal(inc1("x[{,]2", "x,2"), 1);
	/* \uXXXX and \UXXXXXXXX are characters (PCRE2 refused them), in a
	 * class too; an escaped backslash before u stays a literal one */
	assert_int_equal(inc1("\\u0072e", "re"), 1);
	assert_int_equal(inc1("\\U00000072e", "re"), 1);
	assert_int_equal(inc1("gr\\u00f6\\u00DFe", "gr\xc3\xb6\xc3\x9f"
						   "e"),
			 1);
	assert_int_equal(inc1("[\\u0061-\\u0063]x", "bx"), 1);
	assert_int_equal(inc1("\\U0001F600", "\xf0\x9f\x98\x80"), 1);
	assert_int_equal(inc1("a\\\\u0072", "a\\u0072"), 1);
	/* ']' first in a class is a member; \Z inside a class untouched. */
	assert_int_equal(inc1("[]a]+x", "]a]x"), 1);
	assert_int_equal(inc1("[^]]x", "ax"), 1);
	/* '[' in a class is a member, as in Python: "[[:alpha:]]" is the set
	 * [, :, a, l, p, h then ']' (re.match('[[:alpha:]]', 'w') is None),
	 * no POSIX class */
	assert_int_equal(inc1("[[:alpha:]]", "w"), 0);
	assert_int_equal(inc1("[[:alpha:]]", "a]"), 1);
	assert_int_equal(inc1("[[:alpha:]]", ":]x"), 1);
	assert_int_equal(inc1("x[[]", "x["), 1);
	assert_int_equal(inc1("[a\\[]b", "[b"), 1);
	/* a set that starts with ':', '.' or '=' is a set in Python, not
	 * PCRE2's POSIX syntax (which it refuses outside a class) */
	assert_int_equal(inc1("[:alpha:]", ":x"), 1);
	assert_int_equal(inc1("[:alpha:]", "hb"), 1);
	assert_int_equal(inc1("[:alpha:]", "b"), 0);
	assert_int_equal(inc1("x[:alpha:]", "xp"), 1);
	assert_int_equal(inc1("[.a.]", "."), 1);
	assert_int_equal(inc1("[=a=]", "="), 1);
	assert_int_equal(inc1("[^:]", ":"), 0);
	/* Unicode classes like Python str patterns. */
	assert_int_equal(inc1("\\w+_k\\Z", "\xc3\xa9t\xc3\xa9_k"), 1);
	assert_int_equal(inc1("\\d", "\xd9\xa3"), 1); /* ARABIC-INDIC DIGIT THREE */
	assert_int_equal(inc1(".x", "\xc3\xa9x"), 1); /* one character, two bytes */
	/* Invalid UTF-8 in a name: no crash, valid parts still match. */
	assert_int_equal(inc1("ab", "ab\xff"), 1);
	assert_int_equal(inc1("x", "\xff"), 0);
}

static void test_include_exclude(void **state)
{
	const char *inc[] = {"solve", "io"};
	const char *exc[] = {"solve_slow", "io_"};

	(void)state;
	assert_int_equal(sel(inc, 2, NULL, 0, "solve_fast"), 1);
	assert_int_equal(sel(inc, 2, NULL, 0, "io_read"), 1);
	assert_int_equal(sel(inc, 2, NULL, 0, "mpi"), 0);
	assert_int_equal(sel(inc, 2, exc, 2, "solve_fast"), 1);
	assert_int_equal(sel(inc, 2, exc, 2, "solve_slower"), 0);
	assert_int_equal(sel(inc, 2, exc, 2, "io_read"), 0);
	assert_int_equal(sel(inc, 2, exc, 2, "io"), 1);
	assert_int_equal(sel(NULL, 0, exc, 2, "mpi"), 1);
	assert_int_equal(sel(NULL, 0, exc, 2, "io_x"), 0);
}

static void expect_compile_error(const char *inc, const char *exc, const char *msg)
{
	struct match *m = (struct match *)1;
	const char *i[] = {inc}, *e[] = {exc};

	assert_int_equal(match_new(&m, i, inc ? 1 : 0, e, exc ? 1 : 0), ERR_USAGE);
	assert_string_equal(err_msg(), msg);
	assert_ptr_equal(m, (struct match *)1);
}

static void test_compile_errors(void **state)
{
	(void)state;
	expect_compile_error("(", NULL,
			     "invalid --include pattern '(': missing closing parenthesis at "
			     "offset 1");
	expect_compile_error("ok", "a[",
			     "invalid --exclude pattern 'a[': missing terminating ] "
			     "for character class at offset 2");
	/* Offsets refer to the pattern as written, before {,N} is rewritten. */
	expect_compile_error("a{,2}(", NULL,
			     "invalid --include pattern 'a{,2}(': missing closing parenthesis "
			     "at offset 6");
	expect_compile_error("*", NULL,
			     "invalid --include pattern '*': quantifier does not follow a "
			     "repeatable item at offset 0");
	match_free(NULL);
}

/* Ranks of the specs, finished, compared with want[0..n). */
static void expect_ranks(const char *const *specs, size_t nspecs, const int64_t *want, size_t n,
			 const char *compact)
{
	struct i64vec v;
	struct buf b = BUF_INIT;
	size_t i;

	i64vec_init(&v);
	for (i = 0; i < nspecs; i++)
		assert_int_equal(match_ranks_parse(&v, specs[i]), 0);
	match_ranks_finish(&v);
	assert_int_equal(v.len, n);
	for (i = 0; i < n; i++)
		assert_int_equal(v.v[i], want[i]);
	assert_int_equal(match_ranks_format(&b, v.v, v.len), 0);
	assert_string_equal(b.data ? b.data : "", compact);
	buf_release(&b);
	i64vec_release(&v);
}

static void expect_bad_ranks(const char *spec, const char *msg)
{
	struct i64vec v;

	i64vec_init(&v);
	assert_int_equal(i64vec_push(&v, 99), 0);
	assert_int_equal(match_ranks_parse(&v, spec), ERR_USAGE);
	assert_string_equal(err_msg(), msg);
	assert_int_equal(v.len, 1); /* nothing appended */
	i64vec_release(&v);
}

static void test_ranks(void **state)
{
	static const char *s1[] = {"0-3,8"};
	static const int64_t w1[] = {0, 1, 2, 3, 8};
	static const char *s2[] = {"0-3,8", "0 2", "10,9", "3"};
	static const int64_t w2[] = {0, 1, 2, 3, 8, 9, 10};
	static const char *s3[] = {" 5 ", "4294967295"};
	static const int64_t w3[] = {5, 4294967295};
	static const char *s4[] = {"7-7"};
	static const int64_t w4[] = {7};
	char bad[256];

	(void)state;
	expect_ranks(s1, 1, w1, 5, "0-3,8");
	expect_ranks(s2, 4, w2, 7, "0-3,8-10");
	expect_ranks(s3, 2, w3, 2, "5,4294967295");
	expect_ranks(s4, 1, w4, 1, "7");
	snprintf(bad, sizeof(bad),
		 "invalid --ranks '%s': expected comma-separated ranks N or ranges A-B, e.g. "
		 "0-3,8",
		 "x");
	expect_bad_ranks("x", bad);
	snprintf(bad, sizeof(bad),
		 "invalid --ranks '%s': expected comma-separated ranks N or ranges A-B, e.g. "
		 "0-3,8",
		 "");
	expect_bad_ranks("", bad);
	expect_bad_ranks("1,,2", "invalid --ranks '1,,2': expected comma-separated ranks N or "
				 "ranges A-B, e.g. 0-3,8");
	expect_bad_ranks("1,", "invalid --ranks '1,': expected comma-separated ranks N or "
			       "ranges A-B, e.g. 0-3,8");
	expect_bad_ranks("-1", "invalid --ranks '-1': expected comma-separated ranks N or "
			       "ranges A-B, e.g. 0-3,8");
	expect_bad_ranks("1-", "invalid --ranks '1-': expected comma-separated ranks N or "
			       "ranges A-B, e.g. 0-3,8");
	expect_bad_ranks("2x", "invalid --ranks '2x': expected comma-separated ranks N or "
			       "ranges A-B, e.g. 0-3,8");
	expect_bad_ranks("4294967296", "invalid --ranks '4294967296': expected comma-separated "
				       "ranks N or ranges A-B, e.g. 0-3,8");
	expect_bad_ranks("0,3-1", "invalid --ranks '0,3-1': range 3-1 ends before it starts");
	expect_bad_ranks("0-4294967295", "invalid --ranks '0-4294967295': more than 4194304 "
					 "ranks");
}

TU_MAIN(NULL, NULL,
	{
	    cmocka_unit_test(test_anchoring),
	    cmocka_unit_test(test_python_syntax),
	    cmocka_unit_test(test_include_exclude),
	    cmocka_unit_test(test_compile_errors),
	    cmocka_unit_test(test_ranks),
	})
