/*
 * test_json.c - the strict JSON string-array parser and JSON quoting.
 */
#include <stdlib.h>
#include <string.h>

#include "scopedb/err.h"
#include "util/json.h"
#include "testutil.h"

/* Parse text, expecting success and the n strings in want. */
static void parses_to(const char *text, const char *const *want, size_t n)
{
	char **v = (char **)1;
	size_t got = 99, i;

	if (json_parse_strarray(&v, &got, text))
		fail_msg("'%s' refused: %s", text, err_msg());
	assert_int_equal(got, n);
	if (n == 0)
		assert_null(v);
	for (i = 0; i < n; i++)
		assert_string_equal(v[i], want[i]);
	json_strarray_free(v, got);
}

static void refuses(const char *text, const char *why)
{
	char **v = (char **)1;
	size_t n = 99;

	assert_int_equal(json_parse_strarray(&v, &n, text), ERR_FORMAT);
	assert_non_null(strstr(err_msg(), why));
	/* outputs untouched on failure */
	assert_ptr_equal(v, (char **)1);
	assert_int_equal(n, 99);
}

static void test_parse_valid(void **state)
{
	const char *const one[] = {"golden"};
	const char *const two[] = {"a", "b c"};
	const char *const esc[] = {"q\"b\\s/\b\f\n\r\t"};
	const char *const uni[] = {"é€😀", "größe_λ"};
	const char *const empty_str[] = {""};

	(void)state;
	parses_to("", NULL, 0);
	parses_to("   \n", NULL, 0);
	parses_to("[]", NULL, 0);
	parses_to(" [ ] ", NULL, 0);
	parses_to("[\"golden\"]", one, 1);
	parses_to(" [ \"a\" ,\n\"b c\" ] ", two, 2);
	parses_to("[\"q\\\"b\\\\s\\/\\b\\f\\n\\r\\t\"]", esc, 1);
	parses_to("[\"\\u00e9\\u20AC\\ud83d\\ude00\", \"größe_λ\"]", uni, 2);
	parses_to("[\"\"]", empty_str, 1);
}

static void test_parse_invalid(void **state)
{
	(void)state;
	refuses("golden", "not a JSON array");
	refuses("{\"a\":1}", "not a JSON array");
	refuses("[1]", "array element is not a string");
	refuses("[\"a\",]", "array element is not a string");
	refuses("[\"a\" \"b\"]", "expected ',' or ']'");
	refuses("[\"a\"", "expected ',' or ']'");
	refuses("[\"a", "unterminated string");
	refuses("[\"a\"] x", "trailing text");
	refuses("[\"a\"][]", "trailing text");
	refuses("[[\"a\"]]", "array element is not a string");
	refuses("[\"a\\x\"]", "bad escape");
	refuses("[\"\\u12\"]", "bad \\u escape");
	refuses("[\"\\u0000\"]", "\\u0000");
	refuses("[\"\\ud83d\"]", "unpaired surrogate");
	refuses("[\"\\ude00\"]", "unpaired surrogate");
	refuses("[\"\\ud83d\\u0041\"]", "unpaired surrogate");
	refuses("[\"tab\there\"]", "control character");
	refuses("[null]", "array element is not a string");
}

static void test_quote(void **state)
{
	struct buf b = BUF_INIT;
	const char *const strs[] = {"a", "b\"c", "größe"};
	char **v = NULL;
	size_t n = 0;

	(void)state;
	assert_int_equal(json_buf_string(&b, "plain"), 0);
	assert_string_equal(b.data, "\"plain\"");
	buf_release(&b);
	assert_int_equal(json_buf_string(&b, ""), 0);
	assert_string_equal(b.data, "\"\"");
	buf_release(&b);
	assert_int_equal(json_buf_string(&b, "q\"b\\s\n\t\x01\x1f/é"), 0);
	assert_string_equal(b.data, "\"q\\\"b\\\\s\\n\\t\\u0001\\u001f/é\"");
	/* round trip through the parser */
	{
		struct buf arr = BUF_INIT;
		const char *one[] = {"q\"b\\s\n\t\x01\x1f/é"};

		assert_int_equal(json_buf_strarray(&arr, one, 1), 0);
		assert_int_equal(json_parse_strarray(&v, &n, arr.data), 0);
		assert_int_equal(n, 1);
		assert_string_equal(v[0], one[0]);
		json_strarray_free(v, n);
		buf_release(&arr);
	}
	buf_release(&b);
	assert_int_equal(json_buf_strarray(&b, strs, 3), 0);
	assert_string_equal(b.data, "[\"a\",\"b\\\"c\",\"größe\"]");
	buf_release(&b);
	assert_int_equal(json_buf_strarray(&b, NULL, 0), 0);
	assert_string_equal(b.data, "[]");
	buf_release(&b);
	json_strarray_free(NULL, 0);
}

TU_MAIN(NULL, NULL,
	{
	    cmocka_unit_test(test_parse_valid),
	    cmocka_unit_test(test_parse_invalid),
	    cmocka_unit_test(test_quote),
	})
