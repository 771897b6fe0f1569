/*
 * simgate.h - simulated histories for the calibration of check's
 * statistical gate (bench/calibrate.c, bench/gatebench.c): a seeded
 * generator, the noise kinds of issue 23 and one simulated check fed to
 * the same functions check uses (src/analysis/verdict.c).
 *
 * A simulated check has nreg regions; each region has a history of runs
 * (oldest first, the baseline is the newest), the baseline window (its
 * newest runs), a set of candidate runs, and the run ids of all of them
 * (the same ids for every region: a slow run is slow everywhere).
 *
 * Ownership: plain arrays owned by the caller; nothing is kept.
 */
#ifndef SCOPEDB_BENCH_SIMGATE_H
#define SCOPEDB_BENCH_SIMGATE_H

#include <stddef.h>
#include <stdint.h>

#include "scopedb/model.h"

/* A seeded splitmix64 generator. */
void sim_seed(uint64_t seed);
double sim_unif(void); /* (0, 1) */
double sim_norm(void); /* standard normal */
double sim_t3(void);   /* Student t with 3 degrees of freedom */

/* One region of a simulated check: values (not logs), oldest first. */
struct sim_region {
	const double *hist; /* the noise history, the baseline run last */
	size_t nhist;
	const double *base; /* the baseline window, the baseline run last */
	size_t nbase;
	const double *cand; /* the candidate runs */
	size_t ncand;
	const int64_t *hist_ids, *base_ids, *cand_ids; /* run ids, as above */
};

/* What a simulated check gives. */
struct sim_outcome {
	enum verdict_kind gate;
	enum verdict_call call[64]; /* per region */
	int64_t outlier_run;	    /* a run flagged as an outlier, 0: none */
};

/* The gate's outcomes over simulated checks. */
struct sim_tally {
	int trials;
	int fail, inconclusive, pass;
};

/* Count the gate of outcome o into t. */
void sim_tally_gate(struct sim_tally *t, const struct sim_outcome *o);

/*
 * Run check(setting, tally) trials times on the caller's tally of size
 * bytes, zeroed first (each benchmark has its own settings and tallies):
 * 0, or -1 as soon as a check fails.
 */
int sim_repeat(int (*check)(const void *setting, void *tally), const void *setting, void *tally,
	       size_t size, int trials);

/*
 * The verdicts of regions r[0..n) (n <= 64) against the budget (percent)
 * through the functions check uses, and the gate: FAIL when a region
 * regressed, INCONCLUSIVE when one is inconclusive, else PASS.  0, or -1
 * on out of memory.
 */
int sim_check(struct sim_outcome *out, const struct sim_region *r, size_t n, double budget);

#endif
