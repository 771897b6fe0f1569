/*
 * json.h - the little JSON scopedb needs: a strict parser for arrays of
 * strings (the tags column of scope-profiler files, e.g. ["golden","io"])
 * and JSON string quoting for building such arrays and other output.
 *
 * Ownership: json_parse_strarray() returns malloc'ed strings in a malloc'ed
 * array, released with json_strarray_free().
 */
#ifndef SCOPEDB_JSON_H
#define SCOPEDB_JSON_H

#include <stddef.h>

#include "scopedb/util.h"

/*
 * Parse text as a JSON array of strings (whitespace allowed around tokens;
 * escapes including \uXXXX surrogate pairs are decoded to UTF-8).  "" (or
 * only whitespace) and "[]" give an empty array: *out = NULL, *n = 0.
 * Anything else (other value types, trailing text, \u0000, raw control
 * characters, bad escapes) fails with ERR_FORMAT and a message describing
 * the problem (without any file name; callers add context).
 * *out and *n are set only on success.
 */
int json_parse_strarray(char ***out, size_t *n, const char *text);

/* Append s as a JSON string literal: quoted, with " \ and control
 * characters escaped; other bytes (UTF-8) copied as is.  0 or ERR_NOMEM. */
int json_buf_string(struct buf *out, const char *s);

/* Append the compact JSON array ["a","b"] of n strings ("[]" when n == 0). */
int json_buf_strarray(struct buf *out, const char *const *strs, size_t n);

/* Free an array from json_parse_strarray() (NULL is fine). */
void json_strarray_free(char **strs, size_t n);

#endif
