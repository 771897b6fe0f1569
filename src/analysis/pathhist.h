/*
 * pathhist.h - the history of paths (history and changes --by path,
 * pathhist.c).
 *
 * Ownership: *out as store_region_history()'s, freed with
 * store_history_free().
 */
#ifndef SCOPEDB_ANALYSIS_PATHHIST_H
#define SCOPEDB_ANALYSIS_PATHHIST_H

#include <stddef.h>

#include "scopedb/store.h"

struct match;

/*
 * store_region_history() by path: every path of the call tree that q
 * selects (q->region: the joined path or its last name, exactly; else,
 * when q->filter is set, the patterns of q->ctx, which must be a struct
 * match, on the joined path and the last name, match_path()) in every run q->runs
 * selects that has paths, pooled over q->ranks, ordered by the joined
 * path then oldest first, the newest q->runs->limit of each path (0: all);
 * with q->durations, each point's sorted durations, unless it has its
 * run's stored percentiles (stats.has_quantiles: all ranks, a run stored
 * with them, store_path_stats()).  stats.name is the joined path,
 * stats.path and stats.depth its names.  ERR_NOTFOUND when runs were selected
 * but none has paths; *n = 0 when no path qualifies.
 */
int pathhist_points(struct store *st, struct store_history_point **out, size_t *n,
		    const struct store_history_query *q);

/*
 * store_region_series() by path, for changes --by path: every path that
 * the patterns of m keep (match_path(); all when m is NULL) in
 * every run f selects (f->limit: the newest N runs), over all ranks; runs
 * without paths have no cell, with the stored percentiles where the run
 * has them (store_path_stats()).
 * ERR_NOTFOUND when runs were selected but none has paths.  Release with
 * store_series_release().
 */
int pathhist_series(struct store *st, struct store_series *out, const struct filter *f,
		    struct match *m);

#endif
