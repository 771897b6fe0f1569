/*
 * jsonmeta.h - the "metadata" object of a JSON profile (docs/format.md
 * section 11.3), read by jsonprof.c into the list struct h5prof_info
 * shows: string values as they are, numbers in their decimal form, null as
 * "null", arrays of those as JSON text (is_array); booleans, objects and
 * arrays holding them are skipped, as the HDF5 reader skips attributes of
 * other types.
 *
 * Ownership: struct jsonmeta owns its entries and their strings;
 * jsonmeta_release() frees them (and accepts an empty list).
 */
#ifndef SCOPEDB_JSONMETA_H
#define SCOPEDB_JSONMETA_H

#include <stddef.h>

#include "scopedb/h5prof.h"
#include "jsonprof/jsontok.h"

struct jsonmeta {
	struct h5prof_meta *v; /* in key order once jsonmeta_read() returned 0 */
	size_t n, cap;
};

/* Read the object at t (its '{' not consumed yet), appending to m. */
int jsonmeta_read(struct jtok *t, struct jsonmeta *m);
void jsonmeta_release(struct jsonmeta *m);

#endif
