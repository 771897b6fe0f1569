/*
 * test_strmap.c - string interning: dense ids in insertion order, lookups,
 * growth past several rehashes.
 */
#include <stdio.h>
#include <string.h>

#include "util/strmap.h"
#include "testutil.h"

static void test_intern(void **state)
{
	struct strmap m;
	size_t id, i;
	char name[32];

	(void)state;
	strmap_init(&m);
	assert_int_equal(strmap_count(&m), 0);
	assert_int_equal(strmap_find(&m, "a"), STRMAP_NONE);
	assert_int_equal(strmap_intern(&id, &m, "solve"), 0);
	assert_int_equal(id, 0);
	assert_int_equal(strmap_intern(&id, &m, ""), 0);
	assert_int_equal(id, 1);
	assert_int_equal(strmap_intern(&id, &m, "solve"), 0);
	assert_int_equal(id, 0);
	assert_string_equal(strmap_get(&m, 1), "");
	for (i = 0; i < 5000; i++) {
		snprintf(name, sizeof(name), "r%zu", i);
		assert_int_equal(strmap_intern(&id, &m, name), 0);
		assert_int_equal(id, i + 2);
	}
	assert_int_equal(strmap_count(&m), 5002);
	for (i = 0; i < 5000; i++) {
		snprintf(name, sizeof(name), "r%zu", i);
		assert_int_equal(strmap_find(&m, name), i + 2);
		assert_string_equal(strmap_get(&m, i + 2), name);
	}
	assert_int_equal(strmap_find(&m, "r5000"), STRMAP_NONE);
	assert_string_equal(strmap_get(&m, 0), "solve");
	strmap_release(&m);
	assert_int_equal(strmap_count(&m), 0);
	strmap_release(&m);
}

TU_MAIN(NULL, NULL,
	{
	    cmocka_unit_test(test_intern),
	})
