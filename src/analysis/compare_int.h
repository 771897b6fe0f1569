/*
 * compare_int.h - what compare.c shares with its two companions
 * (not a public header): compare_attr.c (attribution) and
 * compare_locs.c (the findings' source locations).
 *
 * Ownership: what they set in struct compare_result is freed by
 * compare_release().
 */
#ifndef SCOPEDB_ANALYSIS_COMPARE_INT_H
#define SCOPEDB_ANALYSIS_COMPARE_INT_H

#include "scopedb/compare.h"
#include "scopedb/runarg.h"
#include "scopedb/store.h"

/* qsort/bsearch order of structures whose first member is a string. */
int compare_cmp_str(const void *x, const void *y);
/* The value of key in m, or NULL. */
const char *compare_meta_get(const struct store_meta *m, const char *key);
/* The path called name among side s's (NULL when absent). */
const struct compare_path *compare_get(const struct compare_side *s, const char *name);
/* out->attr for the rows that grew (diff) or broke the budget (check). */
int compare_attribute(struct compare_result *out, const struct runarg *sa, const struct runarg *sb,
		      const struct compare_opts *o);
/* out->locs: each row's source location (compare_opts.locations). */
int compare_locations(struct compare_result *out, const struct runarg *sa, const struct runarg *sb);

#endif
