/*
 * match.h - region and rank selection as scope-profiler's --include,
 * --exclude and --ranks options define it (docs/format.md section 7).
 *
 * Patterns are Python regular expressions applied with re.match semantics:
 * anchored at the start of the name only ("solve" selects "solver_x").
 * They are compiled with PCRE2 in UTF mode with Unicode properties (\w, \d
 * like Python's str patterns); the Python-only spellings \Z and {,N} are
 * translated.  A name is selected when it matches any include (or there is
 * none) and no exclude.
 *
 * Rank specs are comma- (or space-) separated parts, each N or an inclusive
 * range A-B; several specs are unioned, sorted and deduplicated.
 *
 * Ownership: struct match is freed by match_free() (accepts NULL); the
 * pattern strings are copied.
 */
#ifndef SCOPEDB_MATCH_H
#define SCOPEDB_MATCH_H

#include <stddef.h>
#include <stdint.h>

#include "scopedb/util.h"

struct match;

/*
 * Compile the patterns.  A pattern that does not compile fails with
 * ERR_USAGE, e.g. "invalid --include pattern '(': missing closing
 * parenthesis at offset 1".
 */
int match_new(struct match **out, const char *const *includes, size_t ninclude,
	      const char *const *excludes, size_t nexclude);

/* One pattern of option (e.g. "--match"), which its error names. */
int match_new_option(struct match **out, const char *option, const char *pattern);

/*
 * *out = 1 when name is selected, else 0.  Fails (ERR_USAGE naming the
 * pattern and the name) only when PCRE2 gives up, e.g. on its backtracking
 * limit.  m is not const: it holds the match scratch space.
 */
int match_name(int *out, struct match *m, const char *name);

/*
 * *out = 1 when a path is selected (docs/format.md section 10.4): a
 * pattern matches a path when it matches its names joined with " > "
 * ("main > solve") or its last name (last); selected when any include
 * matches (or there is none) and no exclude.  Errors as match_name().
 */
int match_path(int *out, struct match *m, const char *joined, const char *last);

void match_free(struct match *m);

/* Upper bound on the number of ranks the --ranks options may list in all. */
#define MATCH_MAX_RANKS 4194304

/*
 * Append the ranks of one --ranks spec to out (unsorted; call
 * match_ranks_finish() after the last spec).  Bad specs ("3-1", "x", "",
 * "1,,2", more than MATCH_MAX_RANKS ranks) fail with ERR_USAGE quoting the
 * spec.
 */
int match_ranks_parse(struct i64vec *out, const char *spec);

/* Sort ascending and remove duplicates. */
void match_ranks_finish(struct i64vec *ranks);

/* Append the compact form of sorted unique ranks ("0-3,8") to out. */
int match_ranks_format(struct buf *out, const int64_t *ranks, size_t n);

#endif
