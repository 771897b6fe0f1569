/*
 * test_filter.c - the values of the run filter options (filter.c):
 * ISO-8601 and relative dates for --since/--until (a bare --until date
 * covers its whole day), the error message for a bad date, and --meta
 * KEY=VALUE splitting.
 */
#include <stdlib.h>
#include <string.h>

#include "scopedb/err.h"
#include "scopedb/filter.h"
#include "testutil.h"

/* 2026-11-30T12:00:00Z */
#define NOW 1796040000LL

/* Each row of t: option, argument, the date filter_parse_date() makes of
 * it at NOW. */
static void want(const char *const (*t)[3], size_t n)
{
	char out[24];
	size_t i;

	for (i = 0; i < n; i++) {
		if (filter_parse_date(out, sizeof(out), t[i][0], t[i][1], NOW))
			fail_msg("%s %s: %s", t[i][0], t[i][1], err_msg());
		assert_string_equal(out, t[i][2]);
	}
}

static void test_iso(void **state)
{
	static const char *const t[][3] = {
	    {"--since", "2026-11-30", "2026-11-30T00:00:00Z"},
	    {"--until", "2026-11-30", "2026-11-30T23:59:59Z"},
	    {"--since", "2026-11-30T02:00:00Z", "2026-11-30T02:00:00Z"},
	    {"--until", "2026-11-30T02:00:00Z", "2026-11-30T02:00:00Z"},
	    {"--since", "2026-11-30T02:00:00+01:00", "2026-11-30T01:00:00Z"},
	    {"--since", "2026-11-30 02:00", "2026-11-30T02:00:00Z"},
	    {"--since", "2024-02-29T23:59:59.999Z", "2024-02-29T23:59:59Z"},
	};

	(void)state;
	want(t, sizeof(t) / sizeof(t[0]));
}

static void test_relative(void **state)
{
	static const char *const t[][3] = {
	    {"--since", "7d", "2026-11-23T12:00:00Z"},	{"--since", "24h", "2026-11-29T12:00:00Z"},
	    {"--since", "30m", "2026-11-30T11:30:00Z"}, {"--since", "2w", "2026-11-16T12:00:00Z"},
	    {"--until", "0d", "2026-11-30T12:00:00Z"},	{"--since", "90s", "2026-11-30T11:58:30Z"},
	};

	(void)state;
	want(t, sizeof(t) / sizeof(t[0]));
}

static void test_bad(void **state)
{
	static const char *const bad[] = {"x",
					  "7",
					  "d",
					  "7y",
					  "-7d",
					  "7dd",
					  "2026-13-01",
					  "2026-02-30",
					  "2026-11-30T25:00",
					  "",
					  "99999999999999999999d",
					  "1e3d"};
	char out[24];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (filter_parse_date(out, sizeof(out), "--since", bad[i], NOW) != ERR_USAGE)
			fail_msg("'%s' accepted", bad[i]);
	assert_int_equal(filter_parse_date(out, sizeof(out), "--until", "x", NOW), ERR_USAGE);
	assert_string_equal(err_msg(), "invalid --until 'x': expected an ISO-8601 date or a "
				       "relative age such as 7d");
}

static void test_meta(void **state)
{
	struct filter_meta m;
	char *copy = NULL;

	(void)state;
	assert_int_equal(filter_parse_meta(&m, &copy, "mpi_size=4"), 0);
	assert_string_equal(m.key, "mpi_size");
	assert_string_equal(m.value, "4");
	free(copy);
	assert_int_equal(filter_parse_meta(&m, &copy, "k=a=b"), 0);
	assert_string_equal(m.key, "k");
	assert_string_equal(m.value, "a=b");
	free(copy);
	assert_int_equal(filter_parse_meta(&m, &copy, "k="), 0);
	assert_string_equal(m.value, "");
	free(copy);
	assert_int_equal(filter_parse_meta(&m, &copy, "novalue"), ERR_USAGE);
	assert_null(copy);
	assert_string_equal(err_msg(), "invalid --meta 'novalue': expected KEY=VALUE");
	assert_int_equal(filter_parse_meta(&m, &copy, "=v"), ERR_USAGE);
}

TU_MAIN(NULL, NULL,
	{
	    cmocka_unit_test(test_iso),
	    cmocka_unit_test(test_relative),
	    cmocka_unit_test(test_bad),
	    cmocka_unit_test(test_meta),
	})
