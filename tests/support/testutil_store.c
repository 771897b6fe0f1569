/*
 * testutil_store.c - the shared store of a test program (see
 * testutil_store.h).
 */
#include "testutil.h"
#include "testutil_store.h"

int tu_store_open(void **state, struct store **st, const char *path)
{
	int rc = store_open(st, path, 0);

	if (!rc)
		*state = st;
	return rc;
}

int tu_store_teardown(void **state)
{
	struct store **st = *state;

	if (st) {
		store_close(*st);
		*st = NULL;
	}
	return 0;
}
