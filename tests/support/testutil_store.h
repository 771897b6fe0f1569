/*
 * testutil_store.h - the store a test program shares between its tests:
 * opened (or only registered) in the cmocka group setup, closed in the
 * group teardown.  The group state is the address of the program's own
 * store pointer (a static struct store *), so the tests keep using that
 * pointer and a test may close and reopen it.
 *
 * Ownership: the store belongs to the program's pointer; tu_store_teardown()
 * closes whatever it holds at the end and sets it NULL.
 */
#ifndef SCOPEDB_TESTUTIL_STORE_H
#define SCOPEDB_TESTUTIL_STORE_H

#include "scopedb/store.h"

/* store_open() of path read-write (created if missing) into *st; on
 * success *state = st for tu_store_teardown().  Returns store_open()'s
 * result. */
int tu_store_open(void **state, struct store **st, const char *path);

/* Group teardown: store_close() of the store *state points to (a struct
 * store **, or NULL when the setup set none), then NULL it.  Returns 0. */
int tu_store_teardown(void **state);

#endif
