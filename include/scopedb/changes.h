/*
 * changes.h - the change points of every selected region over a history
 * of stored runs ("scopedb changes"), and of one region's series for the
 * marks of "scopedb history": one store query for every region's runs
 * (store_region_series()), the metric values as diff computes them
 * (history_values()), and changepoint_find() per region with the runs'
 * commits, so that repetitions of a commit are one point.
 *
 * Ownership: struct changes_result owns its series and items (released
 * by changes_result_release()); an item's region, before and after point
 * into the result's series.
 */
#ifndef SCOPEDB_CHANGES_H
#define SCOPEDB_CHANGES_H

#include <stddef.h>
#include <stdint.h>

#include "scopedb/changepoint.h"
#include "scopedb/model.h"
#include "scopedb/store.h"

enum changes_sort {
	CHANGES_SORT_TIME, /* newest first (then region name) */
	CHANGES_SORT_PCT,  /* largest |change| first */
};

/* "time" or "pct"; ERR_USAGE "invalid --sort 'x': choose from time, pct". */
int changes_sort_parse(enum changes_sort *out, const char *arg);

/* One change point of one region. */
struct changes_item {
	const char *region;
	const struct store_series_run *before; /* the last run surely before */
	const struct store_series_run *after;  /* the first run surely after */
	const struct store_series_run *at;     /* the likeliest first run after */
	struct changepoint cp;
};

struct changes_result {
	struct store_series series; /* runs oldest first, regions by name */
	struct changes_item *items; /* sorted as asked */
	size_t n;
};

/*
 * The change points of metric m (over all ranks) of every region filter
 * keeps (all when NULL) over the runs f selects, with the options o,
 * sorted by sort.  When filter keeps no stored region at all: ERR_NOTFOUND
 * "no region matches 'PATTERN' in store 'PATH'" (pattern: how filter
 * selects).  Release with changes_result_release().
 */
int changes_find(struct changes_result *out, struct store *st, const struct filter *f,
		 store_region_filter filter, void *ctx, const char *pattern, enum stats_metric m,
		 const struct changepoint_opts *o, enum changes_sort sort);
/* changes_find() over the paths of the call tree (changes --by path):
 * the patterns of paths (select/match.h; NULL: every path) on the joined
 * path and the last name, match_path(); each item's region is the joined
 * path.  ERR_USAGE for a percentile metric (the paths' durations are not
 * read); ERR_NOTFOUND when no selected run has paths. */
struct match;
int changes_find_paths(struct changes_result *out, struct store *st, const struct filter *f,
		       struct match *paths, const char *pattern, enum stats_metric m,
		       const struct changepoint_opts *o, enum changes_sort sort);
void changes_result_release(struct changes_result *r);

/*
 * The change points of one region's values v[0..n) of the points p[0..n)
 * (store_region_history() order), the points' commits making repetitions
 * one point.  *out as changepoint_find() (free() it).
 */
int changes_series(struct changepoint **out, size_t *nout, const struct store_history_point *p,
		   const struct stats_val *v, size_t n, const struct changepoint_opts *o);

#endif
