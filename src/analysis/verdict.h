/*
 * verdict.h - the statistical verdict of a region (check --stat, or with
 * a --baseline-window / --candidate-window): regressed, improved,
 * unchanged or inconclusive, from the run-level metric values of a
 * baseline set and a candidate set and the region's between-run noise,
 * with the ratio candidate/baseline, its 95% confidence interval, a
 * p-value and the candidate runs still needed; and the gate over all
 * regions with Benjamini-Hochberg control of false discoveries.
 *
 * The unit of replication is the run: the inputs are one value per run
 * (already the metric of that run), worked on as natural logarithms.
 * Methods, formulas and references: docs/statistics.md, "Verdicts".
 * check (src/analysis/compare.c) and bench/calibrate both call this code.
 *
 * Pure computation, no allocation except verdict_decide()'s scratch
 * array; nothing is kept.
 *
 * Ownership: the caller's structs and arrays are only read or filled in
 * place; nothing returned needs freeing.
 */
#ifndef SCOPEDB_ANALYSIS_VERDICT_H
#define SCOPEDB_ANALYSIS_VERDICT_H

#include <stddef.h>

#include "scopedb/model.h"

/* The false discovery rate of the gate (Benjamini-Hochberg), chosen with
 * bench/calibrate: whole-check false FAIL stays under issue 14's targets
 * with a margin for the simulation's own error (docs/statistics.md). */
#define VERDICT_ALPHA 0.03
/* The runs of a region's history the noise is estimated from (at most). */
#define VERDICT_HISTORY 30
/* Fewer runs of history than this: no noise estimate, inconclusive. */
#define VERDICT_MIN_HISTORY 3
/* runs_needed is capped here (the text shows "999+"). */
#define VERDICT_MAX_RUNS 999

/* The between-run noise of one region. */
struct verdict_noise {
	size_t nhist; /* history runs with a positive value */
	size_t ntrim; /* successive differences dropped as steps */
	double sigma; /* between-run SD of the log value; NaN when nhist < 3 */
	double df;    /* its degrees of freedom */
};

/* One region: inputs, then what verdict_region() and verdict_decide() set. */
struct verdict_region {
	double ybase, ycand; /* mean log value of each set */
	size_t nbase, ncand; /* runs with a positive value in each set */
	struct verdict_noise noise;
	double ratio;	 /* exp(ycand - ybase) */
	double lo, hi;	 /* 95% interval of the ratio; NaN without noise */
	double p;	 /* two-sided p of "no change"; NaN without noise */
	double padj;	 /* Benjamini-Hochberg adjusted p */
	int runs_needed; /* more candidate runs to decide; -1 when decided or unknown */
	enum verdict_call call;
};

/*
 * The noise of a region from its history logv[0..n) (log values, oldest
 * first): the history is cut into segments at steps, successive
 * differences larger than 3.5 robust scales of all differences (1.4826
 * median |d_i|, Hall et al. 1990), and sigma is the pooled within-segment
 * standard deviation with n - segments degrees of freedom.  A step (a past
 * regression) thus costs one degree of freedom, an outlying run two, and
 * neither inflates sigma.  sigma NaN when n < VERDICT_MIN_HISTORY or no
 * degree of freedom is left.  logv is only read; tmp is scratch for n
 * doubles.
 */
void verdict_noise_estimate(struct verdict_noise *out, const double *logv, size_t n, double *tmp);

/*
 * The mean of the logarithms of the positive values v[0..n) into *mean
 * (NaN when none); returns how many were positive.
 */
size_t verdict_log_mean(double *mean, const double *v, size_t n);

/*
 * Ratio, interval and p-value of r from its inputs: the log-ratio
 * y = ycand - ybase, its standard error sigma sqrt(1/nbase + 1/ncand),
 * Student's t with the noise's degrees of freedom.  Sets call NONE when a
 * side is empty, else leaves it for verdict_decide().
 */
void verdict_region(struct verdict_region *r);

/*
 * Decide every region of r[0..n) (after verdict_region()) against the
 * budget (percent, >= 0): Benjamini-Hochberg adjusted p over the regions
 * with a p-value; regressed when padj <= VERDICT_ALPHA and lo > 1 + budget,
 * improved when padj <= VERDICT_ALPHA and hi < 1, unchanged when
 * hi <= 1 + budget, else inconclusive with runs_needed.  ERR_NOMEM.
 */
int verdict_decide(struct verdict_region *r, size_t n, double budget);

#endif
