/*
 * pathtree.h - rows of paths (docs/format.md section 10.4) in tree order,
 * for the --tree views of show and diff: each path right under its
 * parent, siblings in the order the rows are given (the caller sorts them
 * by the metric first), with its level.  A row whose parent is not among
 * the rows (filtered out) is a root of the view.
 *
 * Ownership: nothing is kept; the caller's arrays are filled.
 */
#ifndef SCOPEDB_ANALYSIS_PATHTREE_H
#define SCOPEDB_ANALYSIS_PATHTREE_H

#include <stddef.h>

/*
 * order[0..n) = the rows in tree order, level[i] = the level of row i in
 * the view (0 for a root).  names[i] is row i's joined path ("main >
 * solve"), lasts[i] its last name ("solve"); the parent of a row is the
 * row named names[i] without " > " and lasts[i] as the joined path writes
 * it (util_path_name_len()).  0 or ERR_NOMEM.
 */
int pathtree_order(size_t *order, size_t *level, const char *const *names, const char *const *lasts,
		   size_t n);

#endif
