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

/* one accepted spelling and the selector it must parse to (fields left out: 0 and NULL) */
struct form {
	const char *text;
	enum select_kind kind;
	int64_t id;
	const char *name;
	int64_t back;
};

static void test_forms(void **state)
{
	static const struct form forms[] = {
	    {"42", SELECT_ID, .id = 42},
	    {"007", SELECT_ID, .id = 7},
	    {"0", SELECT_ID, .id = 0},
	    {"latest", SELECT_LATEST, .back = 0},
	    {"latest~0", SELECT_LATEST, .back = 0},
	    {"latest~12", SELECT_LATEST, .back = 12},
	    {"tag:nightly", SELECT_TAG, .name = "nightly"},
	    {"tag:nightly~3", SELECT_TAG, .name = "nightly", .back = 3},
	    {"tag:a~b", SELECT_TAG, .name = "a~b"},
	    {"tag:a~b~2", SELECT_TAG, .name = "a~b", .back = 2},
	    {"tag:x:y", SELECT_TAG, .name = "x:y"},
	    {"commit:1a2b3c", SELECT_COMMIT, .name = "1a2b3c"},
	    {"branch:main", SELECT_BRANCH, .name = "main"},
	    {"branch:feature/x~1", SELECT_BRANCH, .name = "feature/x", .back = 1},
	    {"label:run A", SELECT_LABEL, .name = "run A"},
	    {"label:r~9223372036854775807", SELECT_LABEL, .name = "r", .back = INT64_MAX},
	    {"pin:release", SELECT_PIN, .name = "release"},
	    /* base:REF hands REF to git whole, its suffixes too */
	    {"base:origin/main", SELECT_BASE, .name = "origin/main"},
	    {"base:origin/main~2", SELECT_BASE, .name = "origin/main~2"},
	    {"base:HEAD^", SELECT_BASE, .name = "HEAD^"},
	    {"base:v1.0:x", SELECT_BASE, .name = "v1.0:x"},
	    /* git's ancestry suffixes on every form */
	    {"latest~", SELECT_LATEST, .back = 1},
	    {"latest^", SELECT_LATEST, .back = 1},
	    {"latest^^", SELECT_LATEST, .back = 2},
	    {"latest~2^", SELECT_LATEST, .back = 3},
	    {"tag:x^", SELECT_TAG, .name = "x", .back = 1},
	    {"tag:a~b^", SELECT_TAG, .name = "a~b", .back = 1},
	    {"tag:v^2", SELECT_TAG, .name = "v^2"},
	    {"commit:abc~1", SELECT_COMMIT, .name = "abc", .back = 1},
	    {"pin:base~2", SELECT_PIN, .name = "base", .back = 2},
	    {"42~1", SELECT_ID, .id = 42, .back = 1},
	    {"42^^", SELECT_ID, .id = 42, .back = 2},
	    /* a bare hash: 4+ hex digits in any case with a letter; all digits = id
	     * (the name as typed: the store matches it in any case) */
	    {"1a2b", SELECT_COMMIT, .name = "1a2b"},
	    {"BB02", SELECT_COMMIT, .name = "BB02"},
	    {"AbCd12~1", SELECT_COMMIT, .name = "AbCd12", .back = 1},
	    {"commit:BB02", SELECT_COMMIT, .name = "BB02"},
	    {"deadbeef~3", SELECT_COMMIT, .name = "deadbeef", .back = 3},
	    {"cafe^", SELECT_COMMIT, .name = "cafe", .back = 1},
	    {"1234", SELECT_ID, .id = 1234},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(forms) / sizeof(forms[0]); i++)
		expect(forms[i].text, forms[i].kind, forms[i].id, forms[i].name, forms[i].back);
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
	    "nightly", "", "42x", "99999999999999999999", "x:y", "abc", "ABCG", "tagging:x",
	};
	/* a mistyped kind or latest: the selector it probably is, suffix kept */
	static const char *const typo[][2] = {
	    {"latestx", "latest"},	     {"Tag:x", "tag:x"},
	    {"lastest", "latest"},	     {"Latest~2", "latest~2"},
	    {"tags:nightly", "tag:nightly"}, {"brnch:main", "branch:main"},
	    {"comit:ab^", "commit:ab^"},     {"pinn:base", "pin:base"},
	    {"bse:HEAD~1", "base:HEAD~1"},
	};
	char msg[512];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++) {
		struct select_spec s;

		snprintf(msg, sizeof(msg), "invalid run selector '%s': %s", unknown[i], grammar);
		expect_bad(unknown[i], msg);
		/* stored runs only: the same grammar, without base:REF and files */
		snprintf(msg, sizeof(msg), "invalid run selector '%s': %.*s", unknown[i],
			 (int)(strstr(grammar, ", base:REF") - grammar), grammar);
		assert_int_equal(select_parse_stored(&s, unknown[i]), ERR_USAGE);
		assert_string_equal(err_msg(), msg);
		assert_null(s.text);
	}
	for (i = 0; i < sizeof(typo) / sizeof(typo[0]); i++) {
		snprintf(msg, sizeof(msg), "invalid run selector '%s'; did you mean '%s'?",
			 typo[i][0], typo[i][1]);
		expect_bad(typo[i][0], msg);
	}
	/* stored runs only: no base:REF suggested (the command refuses it),
	 * the other kinds as before */
	{
		struct select_spec s;

		assert_int_equal(select_parse_stored(&s, "bse:HEAD~1"), ERR_USAGE);
		assert_null(strstr(err_msg(), "did you mean"));
		assert_non_null(strstr(err_msg(), "expected ID, latest"));
		assert_int_equal(select_parse_stored(&s, "tags:nightly"), ERR_USAGE);
		assert_string_equal(
		    err_msg(), "invalid run selector 'tags:nightly'; did you mean 'tag:nightly'?");
	}
	expect_bad("latest^2", "invalid run selector 'latest^2': ~N needs a non-negative integer");
	expect_bad("base:", "invalid run selector 'base:': empty git revision");
	expect_bad("latest~-1",
		   "invalid run selector 'latest~-1': ~N needs a non-negative integer");
	expect_bad("tag:x~99999999999999999999",
		   "invalid run selector 'tag:x~99999999999999999999': ~N is too large (at most "
		   "9223372036854775807 runs back)");
	expect_bad("tag:", "invalid run selector 'tag:': empty tag");
	expect_bad("tag:~2", "invalid run selector 'tag:~2': empty tag");
	expect_bad("commit:", "invalid run selector 'commit:': empty commit prefix");
	expect_bad("branch:", "invalid run selector 'branch:': empty branch");
	expect_bad("label:", "invalid run selector 'label:': empty label");
	expect_bad("pin:", "invalid run selector 'pin:': empty pin name");
	expect_bad("tag:x~1~9223372036854775807",
		   "invalid run selector 'tag:x~1~9223372036854775807': ~N is too large (at most "
		   "9223372036854775807 runs back)");
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
