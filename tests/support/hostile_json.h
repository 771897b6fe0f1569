/*
 * hostile_json.h - the hostile JSON profiles of issue 25: documents that
 * are not profiles, of a newer version, with wrong types, mismatched
 * columns, non-integer or out-of-range times, negative durations, deep
 * nesting, huge strings, duplicate keys, NUL bytes and invalid UTF-8,
 * truncated gzip and a gzip bomb.  test_hostile.c ingests each one (it
 * must be refused with its message, nothing stored), e2e_hostile.sh runs
 * the binary on them (through mkhostile json-KIND), and the fuzz target's
 * seeds are made from the same texts.
 */
#ifndef SCOPEDB_HOSTILE_JSON_H
#define SCOPEDB_HOSTILE_JSON_H

#include <stddef.h>

struct hostile_json_case {
	const char *kind;   /* name of the case (and of its file, KIND.json[.gz]) */
	int gzip;	    /* written gzip-compressed */
	const char *expect; /* what the one-line refusal says (a substring) */
};

extern const struct hostile_json_case hostile_json_cases[];
extern const size_t hostile_json_ncases;

/* The case named kind, or NULL. */
const struct hostile_json_case *hostile_json_find(const char *kind);

/* Write the document of case kind to path: 0, or -1 (unknown kind or a
 * write error). */
int hostile_json_write(const char *kind, const char *path);

#endif
