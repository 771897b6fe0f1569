/*
 * test_select.c - the run selector grammar: every form, the ~N suffix
 * rules and the rejected spellings with their messages.
 */
#include <stdio.h>
#include <string.h>

#include "scopedb/err.h"
#include "scopedb/select.h"
#include "testutil.h"

static void expect(const char *text, enum select_kind kind, int64_t id, const char *name,
		   int64_t back)
{
	struct select_spec s;

	assert_int_equal(select_parse(&s, text), 0);
	assert_int_equal(s.kind, kind);
	assert_int_equal(s.id, id);
	assert_int_equal(s.back, back);
	assert_string_equal(s.text, text);
	if (name)
		assert_string_equal(s.name, name);
	else
		assert_null(s.name);
	select_release(&s);
}

static void expect_bad(const char *text, const char *msg)
{
	struct select_spec s;

	assert_int_equal(select_parse(&s, text), ERR_USAGE);
	assert_string_equal(err_msg(), msg);
	assert_null(s.text);
	assert_null(s.name);
	select_release(&s);
}

static void test_forms(void **state)
{
	(void)state;
	expect("42", SELECT_ID, 42, NULL, 0);
	expect("007", SELECT_ID, 7, NULL, 0);
	expect("0", SELECT_ID, 0, NULL, 0);
	expect("latest", SELECT_LATEST, 0, NULL, 0);
	expect("latest~0", SELECT_LATEST, 0, NULL, 0);
	expect("latest~12", SELECT_LATEST, 0, NULL, 12);
	expect("tag:nightly", SELECT_TAG, 0, "nightly", 0);
	expect("tag:nightly~3", SELECT_TAG, 0, "nightly", 3);
	expect("tag:a~b", SELECT_TAG, 0, "a~b", 0);
	expect("tag:a~b~2", SELECT_TAG, 0, "a~b", 2);
	expect("tag:x:y", SELECT_TAG, 0, "x:y", 0);
	expect("commit:1a2b3c", SELECT_COMMIT, 0, "1a2b3c", 0);
	expect("branch:main", SELECT_BRANCH, 0, "main", 0);
	expect("branch:feature/x~1", SELECT_BRANCH, 0, "feature/x", 1);
	expect("label:run A", SELECT_LABEL, 0, "run A", 0);
	expect("label:r~9223372036854775807", SELECT_LABEL, 0, "r", INT64_MAX);
	expect("pin:release", SELECT_PIN, 0, "release", 0);
	/* base:REF hands REF to git whole, its suffixes too */
	expect("base:origin/main", SELECT_BASE, 0, "origin/main", 0);
	expect("base:origin/main~2", SELECT_BASE, 0, "origin/main~2", 0);
	expect("base:HEAD^", SELECT_BASE, 0, "HEAD^", 0);
	expect("base:v1.0:x", SELECT_BASE, 0, "v1.0:x", 0);
	/* git's ancestry suffixes on every form */
	expect("latest~", SELECT_LATEST, 0, NULL, 1);
	expect("latest^", SELECT_LATEST, 0, NULL, 1);
	expect("latest^^", SELECT_LATEST, 0, NULL, 2);
	expect("latest~2^", SELECT_LATEST, 0, NULL, 3);
	expect("tag:x^", SELECT_TAG, 0, "x", 1);
	expect("tag:a~b^", SELECT_TAG, 0, "a~b", 1);
	expect("tag:v^2", SELECT_TAG, 0, "v^2", 0);
	expect("commit:abc~1", SELECT_COMMIT, 0, "abc", 1);
	expect("pin:base~2", SELECT_PIN, 0, "base", 2);
	expect("42~1", SELECT_ID, 42, NULL, 1);
	expect("42^^", SELECT_ID, 42, NULL, 2);
	/* a bare hash: 4+ hex digits in any case with a letter; all digits = id
	 * (the name as typed: the store matches it in any case) */
	expect("1a2b", SELECT_COMMIT, 0, "1a2b", 0);
	expect("BB02", SELECT_COMMIT, 0, "BB02", 0);
	expect("AbCd12~1", SELECT_COMMIT, 0, "AbCd12", 1);
	expect("commit:BB02", SELECT_COMMIT, 0, "BB02", 0);
	expect("deadbeef~3", SELECT_COMMIT, 0, "deadbeef", 3);
	expect("cafe^", SELECT_COMMIT, 0, "cafe", 1);
	expect("1234", SELECT_ID, 1234, NULL, 0);
	{
		struct select_spec s;

		assert_int_equal(select_parse(&s, "1a2b~1"), 0);
		assert_int_equal(s.bare, 1);
		select_release(&s);
		assert_int_equal(select_parse(&s, "commit:1a2b"), 0);
		assert_int_equal(s.bare, 0);
		select_release(&s);
	}
}

static void test_bad(void **state)
{
	static const char grammar[] =
	    "expected ID, latest, tag:NAME, commit:PREFIX, a commit hash, branch:NAME, label:NAME "
	    "or "
	    "pin:NAME (each may end in ~N or ^), base:REF, or the path of an existing file";
	/* spellings of no form at all: the message lists the grammar; a bare
	 * hash too short or not hex is none either */
	static const char *const unknown[] = {
	    "nightly", "", "42x", "99999999999999999999", "latestx", "Tag:x", "abc", "ABCG",
	};
	char msg[512];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++) {
		snprintf(msg, sizeof(msg), "invalid run selector '%s': %s", unknown[i], grammar);
		expect_bad(unknown[i], msg);
	}
	expect_bad("latest^2", "invalid run selector 'latest^2': ~N needs a non-negative integer");
	expect_bad("base:", "invalid run selector 'base:': empty git revision");
	expect_bad("latest~-1",
		   "invalid run selector 'latest~-1': ~N needs a non-negative integer");
	expect_bad("tag:x~99999999999999999999",
		   "invalid run selector 'tag:x~99999999999999999999': ~N needs a non-negative "
		   "integer");
	expect_bad("tag:", "invalid run selector 'tag:': empty tag");
	expect_bad("tag:~2", "invalid run selector 'tag:~2': empty tag");
	expect_bad("commit:", "invalid run selector 'commit:': empty commit prefix");
	expect_bad("branch:", "invalid run selector 'branch:': empty branch");
	expect_bad("label:", "invalid run selector 'label:': empty label");
	expect_bad("pin:", "invalid run selector 'pin:': empty pin name");
	expect_bad("tag:x~1~9223372036854775807",
		   "invalid run selector 'tag:x~1~9223372036854775807': ~N needs a non-negative "
		   "integer");
	expect_bad("commit:~1", "invalid run selector 'commit:~1': empty commit prefix");
}

static void test_pin_names(void **state)
{
	(void)state;
	assert_int_equal(select_check_pin_name("release-1.2_x/y"), 0);
	assert_int_equal(select_check_pin_name("a"), 0);
	assert_int_equal(select_check_pin_name(""), ERR_USAGE);
	assert_string_equal(err_msg(), "invalid pin name '': use 1 to 64 letters, digits, '.', "
				       "'_', '-' or '/'");
	assert_int_equal(select_check_pin_name("a b"), ERR_USAGE);
	assert_int_equal(select_check_pin_name("a~1"), ERR_USAGE);
	assert_int_equal(select_check_pin_name("a:b"), ERR_USAGE);
	assert_int_equal(select_check_pin_name("\xc3\xa9"), ERR_USAGE);
	assert_int_equal(select_check_pin_name("0123456789012345678901234567890123456789012345678"
					       "901234567890123"),
			 0);
	assert_int_equal(select_check_pin_name("0123456789012345678901234567890123456789012345678"
					       "9012345678901234"),
			 ERR_USAGE);
	select_release(NULL);
}

TU_MAIN(NULL, NULL,
	{
	    cmocka_unit_test(test_forms),
	    cmocka_unit_test(test_bad),
	    cmocka_unit_test(test_pin_names),
	})
