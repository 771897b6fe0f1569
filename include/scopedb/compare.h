/*
 * compare.h - the core of "scopedb diff" and "scopedb check": resolve two
 * run arguments, compute one metric per region for each side and build the
 * diff rows and the check verdict.
 *
 * A run argument is a selector (select.h), resolved against the store, or
 * the path of an existing profile file.  A file is not read by a second
 * statistics path: it is ingested into a private in-memory store and then
 * goes through exactly the same SQL aggregates as a stored run.  The store
 * at opts->db_path is opened (read-only) only when a side needs it, so
 * "scopedb diff a.h5 b.h5" works without any store.
 *
 * Without --ranks every metric, p50/p95/p99 included, is read from the
 * run's stored all-ranks totals (store_region_stats over run_regions: one
 * row per region).  With --ranks, summary metrics come from one aggregate
 * query per side over the timings rows of the selected ranks, and
 * p50/p95/p99 decode the sorted-duration blobs of only the selected regions
 * and ranks.
 *
 * Ownership: struct compare_result owns everything it points to and is
 * released with compare_release() (which accepts a zeroed structure).
 */
#ifndef SCOPEDB_COMPARE_H
#define SCOPEDB_COMPARE_H

#include <stddef.h>
#include <stdint.h>

#include "scopedb/metadiff.h"
#include "scopedb/same.h"
#include "scopedb/stats.h"
#include "scopedb/store.h"

struct compare_opts {
	const char *db_path; /* store for selectors, opened read-only if needed */
	struct store *store; /* or an open store to use instead (borrowed) */
	const char *const *includes;
	size_t ninclude;
	const char *const *excludes;
	size_t nexclude;
	const int64_t *ranks; /* sorted, unique; NULL = all ranks */
	size_t nranks;
	enum stats_metric metric;
	int by_path;	      /* rows are paths (--by path), not region names */
	int tree;	      /* by path, people see the rows as a tree (--tree) */
	enum stats_sort sort; /* diff only; check always sorts by pct */
	int has_threshold;    /* diff only */
	double threshold;
	int check; /* compute the verdict (check) */
	double max_regression;
	int fail_on_new;
	/* --inconclusive fail: a region the statistical check could not
	 * decide fails it, so reports mark it as they mark a violation (its
	 * JUnit failure typed "inconclusive"); the exit status is the
	 * command's */
	int inconclusive_fails;
	int fail_on_missing; /* regions of a absent from b are violations */
	/* check only: metadata keys that must be equal on both sides (a key
	 * present on one side only differs), besides compare_same_keys that
	 * must be equal when both sides have them; minus allow_different */
	const char *const *require_same;
	size_t nrequire_same;
	const char *const *allow_different;
	size_t nallow_different;
	/* statistical verdicts (--stat, --baseline-window, --candidate-window;
	 * docs/statistics.md): stat selects them; a window of 0 is the default
	 * (the baseline run alone; the candidate run and its repetitions, the
	 * runs of its commit) */
	int stat;
	size_t baseline_window;
	size_t candidate_window;
	/* check BASELINE a.h5 b.h5 c.h5 (--candidate-files): more files of
	 * the candidate arg_b, a file too, each one repetition of it, none
	 * stored.  A point check compares each region's median over the
	 * files; a statistical one takes them as the candidate set. */
	const char *const *cand_files;
	size_t ncand_files;
	/* find each row's source location (compare_result.locs): for the
	 * findings of --format github and codequality */
	int locations;
	/* like with like (--same KEY, same.h): the run sets keep only runs
	 * whose KEY equals the baseline's, and the candidate must have it;
	 * same_from_env: the keys came from $SCOPEDB_SAME (a key the baseline
	 * lacks is then skipped, not an error) */
	const char *const *same;
	size_t nsame;
	int same_from_env;
};

/* Where a region is in the repository (compare_opts.locations). */
struct compare_loc {
	char *file;   /* relative to the repository; NULL: none (unknown or
		       * outside it: analysis/srcpath.h) */
	int64_t line; /* -1: none */
};

/* The statistical verdict of one row (compare_opts.stat). */
struct compare_stat {
	enum verdict_call verdict; /* VERDICT_CALL_NONE: none (a side has no
				    * positive value); verdict_call_name() */
	double ratio;		   /* candidate / baseline (robust means); NaN: none */
	double lo, hi;		   /* its 95% confidence interval; NaN: unknown */
	double p;		   /* one-sided p of the estimate's direction (slower
				    * when ratio >= 1, else faster); NaN: unknown */
	double padj;		   /* Benjamini-Hochberg adjusted, in that direction */
	int runs_needed;	   /* more candidate runs to decide; -1: none */
	double cv;		   /* the between-run CV used; NaN: no noise estimate */
	double cv_own;		   /* the CV of the region's own history; NaN: none */
	double borrowed;	   /* share of the pooled noise in cv (0 to 1) */
	size_t nhist;		   /* history runs the noise came from */
	size_t nbase, ncand;	   /* runs of each set averaged */
	int64_t *outliers;	   /* runs of either set left out as outliers
				    * (ids as in compare_result.cand_runs) */
	size_t noutliers;
};

/* A run left out as an outlier in at least half of the regions where it
 * has a value (the run flagged in the header). */
struct compare_outlier {
	int64_t run;	/* its id (-k: the candidate's file k, compare_result.files) */
	size_t regions; /* regions where it was left out */
	size_t tested;	/* regions where it had a value */
	double factor;	/* typical value / set location there (2.5: slower) */
	int everywhere; /* left out of every region where it had a value (so
			 * also where its value alone was kept: an outlier
			 * repetition, docs/statistics.md) */
};

/* The names of a path row (compare_opts.by_path), from the root down. */
struct compare_path {
	const char *name; /* the row's name: the names joined with " > " */
	char **path;	  /* depth names (one block, owned) */
	size_t depth;
	double self; /* the path's self time in seconds on its side */
	/* with attribution, for compare_side.all only: the path's total
	 * (inclusive) and self time in ns */
	int64_t total_ns, self_ns;
};

/*
 * Attribution (docs/calltree.md): a path's growth of inclusive time is
 * its own self time's growth plus its children's inclusive growth, so the
 * paths under it (itself included) whose self time grew explain it.  A
 * row decomposes the total (or for the self metric the self time) of its
 * paths: by path its own, by name the name's paths (for a total only the
 * outermost ones, a > b > a counted once).
 */
struct compare_cause {
	const struct compare_path *path; /* borrowed from a side */
	double delta_self;		 /* seconds, > 0 */
	double share;			 /* delta_self / compare_attr.delta */
};

/* The causes an attribution keeps, largest first: a path of 1,024 names
 * has up to 1,023 paths under it, each in JSON with its names, and a run
 * of new deep paths (mutual recursion) took gigabytes to say so. */
#define COMPARE_CAUSES_MAX 10

struct compare_attr {
	struct compare_cause *causes; /* largest delta_self first; n 0: none */
	size_t n;
	size_t left_out;	  /* causes past COMPARE_CAUSES_MAX, smaller than those */
	enum stats_metric metric; /* what is decomposed: STATS_TOTAL or STATS_SELF */
	double delta;		  /* its growth over the row's paths, seconds (> 0) */
	/* covers: that sum is the row's own value of metric on both sides
	 * (by name: no recursion, every rank with a tree); same: and metric
	 * is the rows' metric (the growth is the row's delta) */
	int covers, same;
	size_t files; /* > 1: b is the mean over the candidate's files */
};

/* One side of a comparison, as shown in headers and JSON. */
struct compare_side {
	char *arg;	      /* the argument as given */
	int is_file;	      /* read directly from a file (run.id is then 0) */
	struct store_run run; /* the run (store.h); for a file, run.source_path
			       * is the file as given */
	char **regions;	      /* the selected regions present on this side, sorted */
	size_t nregions;
	uint64_t ncalls; /* calls of the selected regions and ranks */
	/* those of regions with no call on the selected ranks (index rows
	 * only), sorted; borrowed from regions */
	const char **idle;
	size_t nidle;
	/* by path: the names of each of regions, sorted by name (each name
	 * borrowed from regions); else NULL */
	struct compare_path *paths;
	size_t npaths;
	/* with attribution: every path of the run, selected or not, sorted
	 * by name (names and paths owned); else NULL */
	struct compare_path *all;
	size_t nall;
};

struct compare_result {
	struct compare_side a, b;
	struct stats_row *rows; /* names point into a.regions / b.regions */
	size_t nrows;
	const char **only_a; /* selected regions absent from b (sorted) */
	size_t nonly_a;
	const char **only_b;
	size_t nonly_b;
	struct verdict verdict; /* check only (VERDICT_NONE for diff) */
	/* compare_opts.stat only: one verdict per row (else NULL), the run
	 * sets (ids, newest first; -k for the candidate's file k, named by
	 * files[k - 1]: the candidate, then its repetitions, as given) and
	 * where the noise came from */
	struct compare_stat *stat;
	struct compare_loc *locs; /* per row with compare_opts.locations, else NULL */
	int64_t *base_runs;
	size_t nbase_runs;
	int64_t *cand_runs;
	size_t ncand_runs;
	/* the runs each window found, before a run in both sets was counted
	 * on one side only: fewer than its --*-window, the store could not
	 * fill it */
	size_t nbase_found, ncand_found;
	char **files; /* owned: one block, the names after the pointers */
	size_t nfiles;
	/* a baseline named by base:REF: which commit git chose and how far
	 * back (analysis/ancestry.h), else NULL */
	char *baseline_from;
	char *noise_from;		  /* "the last 30 runs of branch 'main' ending at run 41" */
	struct compare_outlier *outliers; /* by id, newest first */
	size_t noutliers;
	size_t pool_regions; /* regions whose noise fitted the pooled prior (0:
			      * none was pooled) */
	double pool_df;	     /* the prior's weight in degrees of freedom */
	/* --same: the conditions (against the baseline), the keys skipped and
	 * the runs left out of the sets */
	struct same same;
	/* metadata keys whose values differ (metadiff.h, volatile keys left out) */
	struct metadiff_change *meta_changes;
	size_t nmeta_changes;
	/* why no region was compared (no region has a value on both sides),
	 * e.g. "run 3 has no regions"; NULL when some region was compared.
	 * check fails on it (exit 2), diff warns. */
	char *nothing;
	/* the metric has no value in one run whose regions the other run's
	 * rows are compared with, e.g. "metric p95 has no value in 'ag.h5'
	 * (aggregate-layout runs have no per-call durations)": its rows are
	 * upstream's (-100%, or new), which a diff shows, but a check that
	 * passed on them would have compared nothing (exit 2). */
	char *valueless;
	/* by path: why the paths of a compared run leave ranks out (some of
	 * its ranks have no call tree), e.g. "'b.json': 1 of its 2 ranks with
	 * calls has no call tree ..."; NULL when none does.  check refuses to
	 * decide on it (exit 2), diff warns. */
	char *partial;
	/* the same of the candidate's side when the baseline's has one too
	 * (partial is then the baseline's); else NULL */
	char *partial_other;
	/* per row, the causes of its growth (rows that grew in diff,
	 * violations in check; compare_attr.n 0: none); NULL when nothing is
	 * attributed: --stat, a side without paths,
	 * by name runs without nesting, metric calls, imbalance, gpu_* */
	struct compare_attr *attr;
};

/*
 * *out (malloc'ed, raw text: the caller escapes it) = why the paths of run
 * id in st (a file when is_file) leave ranks out, when some of its ranks
 * with calls have no call tree (calls that overlap without nesting, or
 * too many to hold): "'b.json': 1 of its 2 ranks with calls has no call
 * tree ...", else NULL.  With ranks (nranks, sorted and unique: --ranks),
 * only a rank among them counts ("rank 0 has calls but no call tree").  A
 * run with no tree at all has no paths, which store_path_stats() refuses
 * in its own words.
 */
int compare_paths_partial(char **out, struct store *st, int64_t id, int is_file,
			  const int64_t *ranks, size_t nranks);

/* The metadata keys a check requires equal when both runs have them:
 * "mpi_size", "platform" (NULL-terminated).  Not hostname: CI runners
 * change it per job; --require-same hostname opts in. */
extern const char *const compare_same_keys[];

/*
 * Compare arg_a (baseline) with arg_b (candidate).  Errors: ERR_USAGE for a
 * bad selector or option, ERR_NOTFOUND for a selector matching nothing,
 * ERR_IO/ERR_FORMAT for unreadable files, ERR_STORE for store problems,
 * ERR_USAGE "runs are not comparable: KEY differs (a: X, b: Y); ..." for a
 * check whose runs differ in a required metadata key, ERR_USAGE for a
 * --require-same key on neither run or also named by --allow-different.  Comparing nothing
 * is not an error here: out->nothing says why.
 */
int compare_runs(struct compare_result *out, const char *arg_a, const char *arg_b,
		 const struct compare_opts *opts);

/* 1 when both sides of r are one run, or one file as given (a run
 * against itself: "diff 3 3"). */
int compare_same_sides(const struct compare_result *r);

void compare_release(struct compare_result *r);

/* The names of the path row called name (by path: from either side), or
 * NULL. */
const struct compare_path *compare_find_path(const struct compare_result *r, const char *name);

#endif
