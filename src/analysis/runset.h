/*
 * runset.h - the run sets of a statistical check (compare_opts.stat): the
 * baseline set (--baseline-window N: the N newest runs ending at the
 * baseline, of its branch, or of its tag when the baseline was named by a
 * tag selector; for base:REF the N stored runs along the merge base's
 * first-parent ancestry, ancestry.h), the candidate set (--candidate-window
 * N likewise; without it the candidate and its repetitions, the runs of its
 * commit or the files given after it), and the noise history (up to
 * VERDICT_HISTORY runs of the baseline's branch ending at the baseline, or
 * of base:REF's ancestry), with every selected region's metric in each run;
 * with --same KEY only runs whose KEY equals the baseline's (same.h), and
 * the count of those left out.  runset_noise() and runset_locate() turn
 * them into the inputs of a verdict (verdict.h).
 *
 * Ownership: struct runset owns everything; runset_release() accepts a
 * zeroed structure.  The stores are borrowed from the runargs.
 */
#ifndef SCOPEDB_ANALYSIS_RUNSET_H
#define SCOPEDB_ANALYSIS_RUNSET_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/verdict.h"
#include "scopedb/compare.h"
#include "scopedb/runarg.h"
#include "scopedb/same.h"

struct match;

/* One run's metric values, by region name (sorted, byte order). */
struct runset_run {
	int64_t id;
	char **names;
	struct stats_val *vals;
	double *res; /* the resolution of each value (metric_resolution()) */
	size_t n;
	uint64_t ncalls; /* calls of the selected regions and ranks */
	uint64_t *calls; /* each region's calls on the selected ranks */
	/* by path (compare_opts.by_path): each row's names from the root
	 * down (one block each, store_region_stats.path) and their number;
	 * else NULL */
	char ***paths;
	int64_t *depths;
	int64_t *selfs; /* by path: each row's self time, ns */
};

/*
 * The metric of every region m keeps in run id of st, on the selected
 * ranks of o, through metric_stored_value(): also both sides of a point
 * comparison (compare.c).  On failure *r holds what was read (release it
 * with runset_run_release()).
 */
int runset_read(struct runset_run *r, struct store *st, int64_t id, struct match *m,
		const struct compare_opts *o);
void runset_run_release(struct runset_run *r);

/* The value of region name in run r, NaN when it has none (or one that
 * is not positive). */
double runset_value(const struct runset_run *r, const char *name);

struct runset {
	struct runset_run *base, *cand, *hist; /* newest first */
	size_t nbase, ncand, nhist;
	/* what the windows found before a run in both was counted on one side
	 * (a window the store could not fill is shorter than asked) */
	size_t nbase_found, ncand_found;
	char *noise_from; /* where the history came from, for the output */
	/* base:REF walked further for like with like: that walk's note (the
	 * baseline's "from"), else NULL */
	char *ancestry_note;
	const struct same *same; /* --same resolved against the baseline */
	size_t left_out;	 /* distinct runs its conditions left out of the sets */
	int implied_left;	 /* of which some for an implied condition */
};

/*
 * Select the three sets of a check of sa (argument arg_a) against sb
 * (arg_b) and read the metric of the regions m keeps in every run; only
 * the runs with the conditions of same (--same resolved against the
 * baseline, borrowed until runset_release(); the candidate must have them
 * too: compare.c checks).  ERR_USAGE when the baseline is a file (its
 * history gives the noise) or a --candidate-window is asked of a file;
 * the store's errors.
 */
int runset_open(struct runset *rs, const struct runarg *sa, const struct runarg *sb,
		const char *arg_a, const char *arg_b, struct match *m, const struct compare_opts *o,
		const struct same *same);

/*
 * The noise of region name from its history (verdict_noise_estimate(),
 * with the resolution of its values).  ERR_NOMEM.
 */
int runset_noise(struct verdict_noise *out, const struct runset *rs, const char *name);

/* What runset_locate() says of each run of a set for one region. */
struct runset_mark {
	signed char state; /* -1 no value, 0 kept, 1 left out as an outlier */
	double dev;	   /* its log value minus the set's location */
};

/*
 * The locations of both sets of region name (verdict_location() with
 * out->noise.sigma, after verdict_pool()): ybase, ycand, the counts kept
 * and left out; the candidate runs cdrop[0..rs->ncand) marks (cdrop may be
 * NULL) are left out as outlier runs (verdict_drop_runs()); bm[0..rs->nbase)
 * and cm[0..rs->ncand) (either may be NULL) say what became of each run.
 * ERR_NOMEM.
 */
int runset_locate(struct verdict_region *out, const struct runset *rs, const char *name,
		  const unsigned char *cdrop, struct runset_mark *bm, struct runset_mark *cm);

void runset_release(struct runset *rs);

#endif
