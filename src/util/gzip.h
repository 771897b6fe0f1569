/*
 * gzip.h - a buffer compressed as one gzip member (RFC 1952), for the
 * files scopedb writes with a .gz name (export --format
 * scope-profiler-json -o FILE.json.gz).  The only code calling zlib besides
 * the JSON profile reader's input (src/jsonprof/jsontok_input.c).
 *
 * Ownership: appends to the caller's buf; keeps nothing.
 */
#ifndef SCOPEDB_UTIL_GZIP_H
#define SCOPEDB_UTIL_GZIP_H

#include <stddef.h>

#include "scopedb/util.h"

/* Append in[0..len) gzip-compressed to out; 0 or ERR_NOMEM. */
int gzip_buf(struct buf *out, const void *in, size_t len);

#endif
