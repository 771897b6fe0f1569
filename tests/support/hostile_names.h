/*
 * hostile_names.h - the hostile name corpus: strings a profile, a CI
 * variable or a store may hand scopedb, each of which some surface once
 * mishandled or could: quotes, %, line breaks, control bytes, invalid
 * UTF-8, SQL and shell metacharacters ($(...), backquotes, ';', globs),
 * spreadsheet formulas, markdown mentions and autolinks, HTML and XML
 * breakers, characters XML forbids, option-like names.  test_hostile.c
 * stores them byte for byte; test_render.c runs them through every
 * escaper; mkhostile ("names", "list") hands them to e2e_hostile.sh,
 * which sends them through every output format, the report and shell
 * completion.  A new surface is tried against this list: add to it, never
 * a list of one's own.
 */
#ifndef SCOPEDB_HOSTILE_NAMES_H
#define SCOPEDB_HOSTILE_NAMES_H

#include <stddef.h>

/* The names (distinct, none empty); the first ten are test_hostile.c's
 * original list, in its order. */
extern const char *const hostile_names[];
extern const size_t hostile_nnames;

/* 1 when the spreadsheet cell s[0..n) computes nothing: it starts with
 * none of = + - @ tab CR, or it is a plain number (not inf or nan). */
int hostile_csv_cell_safe(const char *s, size_t n);

/* 1 when s is valid UTF-8 (what a PostgreSQL store takes as text). */
int hostile_name_is_utf8(const char *s);

/*
 * Write a schema-3 profile to path whose regions are hostile_names (ranks 0
 * and 1, 3 calls each, the first of 0 ns), tagged with them too (only
 * those of valid UTF-8 when utf8_only: all a store takes, docs/text.md).
 * seed >= 0 shifts the durations (a distinct file per seed) and sets
 * /metadata label to the seed-th of those names (modulo their number);
 * seed < 0 keeps the label "hostile".  0, or -1 on failure.
 */
int hostile_names_profile(const char *path, long seed, int utf8_only);

#endif
