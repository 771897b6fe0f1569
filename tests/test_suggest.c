/*
 * test_suggest.c - "did you mean": the Damerau-Levenshtein distance
 * (transpositions cost one, case ignored) and which candidate is close
 * enough to be offered.
 */
#include <string.h>

#include "util/suggest.h"
#include "testutil.h"

static void test_distance(void **state)
{
	(void)state;
	assert_int_equal(suggest_distance("", ""), 0);
	assert_int_equal(suggest_distance("check", "check"), 0);
	assert_int_equal(suggest_distance("CHECK", "check"), 0);
	assert_int_equal(suggest_distance("chek", "check"), 1);	     /* deletion */
	assert_int_equal(suggest_distance("checkk", "check"), 1);    /* insertion */
	assert_int_equal(suggest_distance("chock", "check"), 1);     /* substitution */
	assert_int_equal(suggest_distance("nigthly", "nightly"), 1); /* transposition */
	assert_int_equal(suggest_distance("ca", "abc"), 3);	     /* OSA, not 2 */
	assert_int_equal(suggest_distance("", "abc"), 3);
	assert_int_equal(suggest_distance("kitten", "sitting"), 3);
}

static void test_best(void **state)
{
	static const char *const cmds[] = {"check", "diff", "help", "history", "ingest", "meta",
					   "pin",   "pins", "rm",   "runs",    "show",	 "tag"};
	static const char *const metrics[] = {"gpu_total", "gpu_avg",	"total", "avg",
					      "min",	   "max",	"p50",	 "p95",
					      "p99",	   "imbalance", "calls"};
	const size_t nc = sizeof(cmds) / sizeof(cmds[0]), nm = sizeof(metrics) / sizeof(metrics[0]);

	(void)state;
	assert_string_equal(suggest_best("chek", cmds, nc), "check");
	assert_string_equal(suggest_best("hsitory", cmds, nc), "history");
	assert_string_equal(suggest_best("hist", cmds, nc), "history"); /* a prefix */
	assert_string_equal(suggest_best("shwo", cmds, nc), "show");
	assert_string_equal(suggest_best("pinz", cmds, nc), "pin"); /* pin and pins: the first */
	assert_string_equal(suggest_best("totl", metrics, nm), "total");
	assert_string_equal(suggest_best("TOTAL", metrics, nm), "total");
	assert_string_equal(suggest_best("p90", metrics, nm), "p50"); /* the first of p50/p95/p99 */
	assert_string_equal(suggest_best("imbalanse", metrics, nm), "imbalance");
	/* names are matched with case: among as near, the one nearest with
	 * case, and a real edit before a prefix, whatever the order */
	{
		static const char *const regs[] = {"ASSEMble", "SOLve_868", "assemble",
						   "main",     "solVE",	    "solve"};
		const size_t nr = sizeof(regs) / sizeof(regs[0]);

		assert_string_equal(suggest_best("solv", regs, nr), "solve");
		assert_string_equal(suggest_best("slve", regs, nr), "solve");
		assert_string_equal(suggest_best("assembl", regs, nr), "assemble");
		assert_string_equal(suggest_best("solvee", regs, nr), "solve");
		assert_string_equal(suggest_best("SOLVE", regs, nr), "solVE");
		assert_string_equal(suggest_best("SOLve_86", regs, nr), "SOLve_868");
	}
	/* too far: nothing */
	assert_null(suggest_best("xyz", cmds, nc));
	assert_null(suggest_best("frobnicate", cmds, nc));
	assert_null(suggest_best("x", cmds, nc)); /* as many edits as letters */
	assert_null(suggest_best("zz", metrics, nm));
	assert_null(suggest_best("chek", NULL, 0));
}

static void test_hint(void **state)
{
	struct buf b = BUF_INIT;

	(void)state;
	assert_int_equal(buf_puts(&b, "x"), 0);
	assert_int_equal(suggest_hint_words(&b, "nigthly", "release nightly weekly"), 0);
	assert_string_equal(b.data, "x; did you mean 'nightly'?");
	b.len = 0;
	assert_int_equal(buf_puts(&b, "x"), 0);
	assert_int_equal(suggest_hint_words(&b, "zzzzzz", "release nightly weekly"), 0);
	assert_string_equal(b.data, "x");
	assert_int_equal(suggest_hint_words(&b, "a", ""), 0);
	assert_string_equal(b.data, "x");
	buf_release(&b);
}

TU_MAIN(NULL, NULL,
	{
	    cmocka_unit_test(test_distance),
	    cmocka_unit_test(test_best),
	    cmocka_unit_test(test_hint),
	})
