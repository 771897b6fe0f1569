/*
 * suggest.h - "did you mean ...?" for a mistyped name, as git does for
 * commands: the candidate nearest to what was typed by the
 * Damerau-Levenshtein distance (optimal string alignment: insertions,
 * deletions, substitutions and transpositions of two neighbours each cost
 * one), letters compared without case (and, between as near ones, with
 * case), offered only when it is close.
 *
 * Ownership: the returned candidate is one of the caller's strings.
 */
#ifndef SCOPEDB_SUGGEST_H
#define SCOPEDB_SUGGEST_H

#include <stddef.h>

#include "scopedb/util.h"

/* The edit distance between a and b (ASCII letters folded to lower case);
 * (size_t)-1 when out of memory. */
size_t suggest_distance(const char *a, const char *b);

/*
 * The candidate nearest to word, or NULL when none is close: at most one
 * edit for a word of up to 4 characters, two up to 8, three beyond, and
 * fewer edits than either string is long; or, for a word of 3 characters
 * or more, a candidate that starts with it.  Among equally near ones a
 * real edit beats a prefix, then the fewest edits with case, then the
 * first; a candidate equal to word (ignoring case) is nearest.
 * NULL candidates are skipped.
 */
const char *suggest_best(const char *word, const char *const *cands, size_t n);

/* "; did you mean 'X'?" appended to out for the candidate X that
 * suggest_best() picks, nothing when none is close: the tail of an error
 * message.  0 or ERR_NOMEM. */
int suggest_hint(struct buf *out, const char *word, const char *const *cands, size_t n);

/* suggest_hint() among the space-separated words of words. */
int suggest_hint_words(struct buf *out, const char *word, const char *words);

#endif
