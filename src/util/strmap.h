/*
 * strmap.h - a string interning table: maps NUL-terminated strings to dense
 * ids 0, 1, 2, ... in order of first insertion.
 *
 * Used by the HDF5 reader and writer to give region names ids in order of
 * first appearance and to store repeated per-row strings (source files,
 * tags) once.  The strings are copied into an arena owned by the map; ids
 * stay valid until strmap_release(), but pointers returned by strmap_get()
 * are invalidated by the next strmap_intern() (the arena may move).
 *
 * Ownership: the map owns its copies of the strings (strmap_release());
 * strmap_get() lends a pointer into them.
 */
#ifndef SCOPEDB_STRMAP_H
#define SCOPEDB_STRMAP_H

#include <stddef.h>

#include "scopedb/util.h"

#define STRMAP_NONE ((size_t)-1)

struct strmap {
	struct buf arena; /* the strings, NUL-separated */
	size_t *offs;	  /* id -> offset in arena */
	size_t n, cap;
	size_t *slots; /* open addressing: id + 1, 0 = empty */
	size_t nslots; /* power of two (or 0) */
};

void strmap_init(struct strmap *m);
void strmap_release(struct strmap *m);

/* Id of s, adding it when new.  Returns 0 or ERR_NOMEM. */
int strmap_intern(size_t *out, struct strmap *m, const char *s);

/* Id of s, or STRMAP_NONE. */
size_t strmap_find(const struct strmap *m, const char *s);

/* The string with id (id < strmap_count(m)).  Owned by m. */
const char *strmap_get(const struct strmap *m, size_t id);

size_t strmap_count(const struct strmap *m);

#endif
