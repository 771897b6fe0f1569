/*
 * compare_int.h - what compare.c shares with its companions (not a
 * public header): compare_attr.c (attribution), compare_locs.c (the
 * findings' source locations), compare_stat.c (a statistical check's run
 * sets and verdicts) and compare_partial.c (what cannot be counted).
 *
 * Ownership: what they set in struct compare_result is freed by
 * compare_release(); a struct compare_stab's arrays by
 * compare_stab_release() (a zeroed one is accepted).
 */
#ifndef SCOPEDB_ANALYSIS_COMPARE_INT_H
#define SCOPEDB_ANALYSIS_COMPARE_INT_H

#include "analysis/verdict.h"
#include "scopedb/compare.h"
#include "scopedb/runarg.h"
#include "scopedb/store.h"

struct match;
struct runset;
struct stats_named;

/* --fail-on-missing: fail row when the candidate does not call its
 * region: absent (r->only_a), or with no call while the baseline calls it
 * (row->gone). */
void compare_missing(const struct compare_result *r, struct stats_row *row);
/* The value of key in m, or NULL. */
const char *compare_meta_get(const struct store_meta *m, const char *key);
/* 1 when side's region name has no call on the selected ranks (an index
 * row only). */
int compare_side_idle(const struct compare_side *side, const char *name);
/* "run 4" or "'x.h5'": side named as messages name it, into out. */
int compare_side_name(struct buf *out, const struct compare_side *s);
/* By name with --metric self: the regions whose self time is unknown on
 * either side, said in r->partial (and r->partial_other), which check and
 * report refuse and diff warns of (compare_partial.c). */
int compare_self_unknown(struct compare_result *r, const struct stats_named *va,
			 const struct stats_named *vb, const struct runarg *sa,
			 const struct runarg *sb, const struct compare_opts *o);
/* By path: the first run of each side (the run, its sets, its files) with
 * a rank of calls but no tree, said in r->partial (r->partial_other). */
int compare_partial(struct compare_result *r, const struct runarg *sa, const struct runarg *sb,
		    const struct runset *rs, const struct compare_opts *o);
/* The path called name among side s's (NULL when absent). */
const struct compare_path *compare_get(const struct compare_side *s, const char *name);
/* out->attr for the rows that grew (diff) or broke the budget (check). */
int compare_attribute(struct compare_result *out, const struct runarg *sa, const struct runarg *sb,
		      const struct compare_opts *o);
/* out->locs: each row's source location (compare_opts.locations). */
int compare_locations(struct compare_result *out, const struct runarg *sa, const struct runarg *sb);

/* The statistics of every region of either side, computed before the
 * rows are built (the sides' values are the sets' locations). */
struct compare_stab {
	const char **names; /* both sides' regions (and repetitions'), sorted */
	struct verdict_region *vr;
	struct i64vec *rej; /* per region: runs left out as outliers */
	size_t n;
};

void compare_stab_release(struct compare_stab *tb);
/* Open the run sets of a statistical check, compute every region's
 * statistics into tb and make both sides' values (*va, *vb) the sets'
 * locations. */
int compare_stat_sets(struct compare_result *out, struct runset *rs, struct compare_stab *tb,
		      const struct runarg *sa, const struct runarg *sb, const char *arg_a,
		      const char *arg_b, struct match *m, const struct compare_opts *o,
		      struct stats_named **va, struct stats_named **vb);
/* The verdict of every row of out (its family for the false discovery
 * rate), from tb. */
int compare_stat_rows(struct compare_result *out, const struct compare_stab *tb,
		      const struct compare_opts *o);

#endif
