/*
 * jsonw.h - a small streaming JSON writer: objects, arrays, strings,
 * numbers, booleans and null, with the layouts scopedb's JSON outputs use:
 *   JSONW_INLINE  items separated by ", "        {"a": 1, "b": 2}
 *   JSONW_COMPACT items separated by ","         ["x","y"]
 *   JSONW_BLOCK   one item per line, indented two spaces per enclosing
 *                 block container:   [\n  {...},\n  {...}\n]   ([] if empty)
 * Keys are followed by ": ".  Numbers use format_number() (the shortest
 * text that reads back as the same double).
 *
 * Errors are sticky: after an allocation failure every call does nothing
 * and jsonw_finish() returns ERR_NOMEM.
 *
 * Ownership: the writer appends to the caller's buf and keeps no other
 * memory (its nesting is a fixed array); strings are copied as written.
 */
#ifndef SCOPEDB_RENDER_JSONW_H
#define SCOPEDB_RENDER_JSONW_H

#include <stddef.h>
#include <stdint.h>

#include "scopedb/util.h"

enum jsonw_layout { JSONW_INLINE, JSONW_COMPACT, JSONW_BLOCK };

#define JSONW_MAX_DEPTH 16

struct jsonw {
	struct buf *out; /* borrowed */
	int failed;
	size_t depth;
	size_t blocks; /* open block containers */
	struct {
		enum jsonw_layout layout;
		size_t count; /* items written so far */
		char close;
	} stack[JSONW_MAX_DEPTH];
};

void jsonw_init(struct jsonw *w, struct buf *out);

/* The key of the next member of the current object. */
void jsonw_key(struct jsonw *w, const char *key);

void jsonw_begin_object(struct jsonw *w, enum jsonw_layout layout);
void jsonw_begin_array(struct jsonw *w, enum jsonw_layout layout);
void jsonw_end(struct jsonw *w);

void jsonw_string(struct jsonw *w, const char *s); /* NULL writes null */
void jsonw_int(struct jsonw *w, int64_t v);
void jsonw_number(struct jsonw *w, double v, int is_count);
void jsonw_bool(struct jsonw *w, int v);
void jsonw_null(struct jsonw *w);

/* 0, or ERR_NOMEM when some write failed. */
int jsonw_finish(const struct jsonw *w);

#endif
