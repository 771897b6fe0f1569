/*
 * verdict.h - the statistical verdict of a region (check --stat, or with
 * a --baseline-window / --candidate-window): regressed, improved,
 * unchanged, inconclusive or no evidence, from the run-level metric values
 * of a baseline set and a candidate set and the region's between-run
 * noise, with the ratio candidate/baseline, its 95% confidence interval,
 * one-sided p-values of a slowdown and of a speed-up and the candidate runs
 * still needed; the noise pooled across regions (empirical Bayes
 * shrinkage) and the gate over all regions with Benjamini-Hochberg
 * control of false discoveries in each direction.
 *
 * The unit of replication is the run: the inputs are one value per run
 * (already the metric of that run), worked on as natural logarithms.
 * Methods, formulas and references: docs/statistics.md, "Verdicts".
 * check (src/analysis/compare.c) and bench/calibrate, bench/gatebench
 * call this code in the same order: verdict_noise_estimate() for every
 * region, verdict_pool() over them, verdict_location() of both sets of
 * each region, verdict_region() for each, verdict_decide() over all.
 *
 * Pure computation, no allocation except scratch arrays; nothing is
 * kept.
 *
 * Ownership: the caller's structs and arrays are only read or filled in
 * place; nothing returned needs freeing.
 */
#ifndef SCOPEDB_ANALYSIS_VERDICT_H
#define SCOPEDB_ANALYSIS_VERDICT_H

#include <stddef.h>

#include "scopedb/model.h"

/* The false discovery rate of each direction (slower, faster) under
 * Benjamini-Hochberg, chosen with bench/gatebench (docs/statistics.md). */
#define VERDICT_ALPHA 0.0125
/* The runs of a region's history the noise is estimated from (at most). */
#define VERDICT_HISTORY 30
/* Fewer runs of history than this: no noise estimate of the region's own
 * (it may still borrow the pooled one). */
#define VERDICT_MIN_HISTORY 3
/* runs_needed is capped here (the text shows "999+"). */
#define VERDICT_MAX_RUNS 999
/* A value further than this many noise SDs from its set's median is an
 * outlier of the set (left out of its estimate). */
#define VERDICT_REJECT 4.5
/* An outlier repetition is left out of a region where it lies beyond every
 * other value on its side, and beyond their median by more than this many
 * scales (verdict_location()). */
#define VERDICT_DROP 2.0
/* The pooled prior weighs at most this many degrees of freedom. */
#define VERDICT_PRIOR_DF_MAX 1000.0

/* The between-run noise of one region. */
struct verdict_noise {
	/* verdict_noise_estimate(): the region's own history */
	size_t nhist;  /* history runs with a positive value */
	size_t nsteps; /* steps cut out of it (a past change, an outlying run) */
	double s2;     /* variance of the log value within segments; NaN: none */
	double df;     /* its degrees of freedom (0 without an estimate) */
	int constant;  /* s2 is 0: the history is constant between steps */
	double res;    /* the timer's resolution relative to the value (0: none) */
	/* verdict_pool(): what the verdict uses */
	double sigma;	 /* SD of one run's log value; NaN: no estimate at all */
	double dft;	 /* its degrees of freedom (INFINITY: known exactly) */
	double borrowed; /* the share of the pooled prior in sigma^2, 0 to 1 */
};

/* The prior of the noise pooled over a check's regions (Smyth 2004). */
struct verdict_prior {
	size_t nregions; /* regions with an estimate of their own that fitted it */
	double s2;	 /* the prior variance; NaN: no pooling */
	double df;	 /* its weight in degrees of freedom (0: no pooling) */
};

/* One region: inputs, then what verdict_region() and verdict_decide() set. */
struct verdict_region {
	double ybase, ycand; /* location of each set (verdict_location()) */
	double vbase, vcand; /* exp() of it, or the value itself when every
			      * run it keeps has that one (no rounding) */
	size_t nbase, ncand; /* values of each set it averages */
	size_t obase, ocand; /* values of each set left out as outliers */
	struct verdict_noise noise;
	double y;		   /* the log-ratio, 0 below the resolution */
	double ratio;		   /* exp(y) */
	double lo, hi;		   /* 95% interval of the ratio; NaN without noise */
	double p_up, p_down;	   /* one-sided p of "not slower" / "not faster" */
	double padj_up, padj_down; /* Benjamini-Hochberg, each direction apart */
	double p, padj;		   /* those of the estimate's direction */
	int runs_needed;	   /* more candidate runs to decide; -1: decided or unknown */
	enum verdict_call call;
};

/*
 * The noise of a region from its history logv[0..n) (log values, oldest
 * first), res its timer resolution relative to the value: the history is
 * cut into segments at its change points (changepoint_find(), with no
 * smallest change) and at steps, successive differences larger than 3.5
 * robust scales of all differences (1.4826 median |d_i|, Hall et al.
 * 1990: an outlying run becomes a segment of its own), and s2 is the
 * pooled within-segment variance with n - segments degrees of freedom.  When most differences are
 * below the resolution the scale is that of the others if they are at least 3 and 10 % of all
 * (quantized noise), else 0: every difference above the resolution is a
 * step and the history is constant between them (s2 = 0, constant).  s2
 * NaN and df 0 when n < VERDICT_MIN_HISTORY or no degree of freedom is
 * left.  Sets the own estimate only; verdict_pool() sets sigma.  logv is
 * only read; tmp is scratch for n doubles.  0 or ERR_NOMEM.
 */
int verdict_noise_estimate(struct verdict_noise *out, const double *logv, size_t n, double res,
			   double *tmp);

/*
 * Pool the noise of r[0..n): the prior of Smyth (2004) fitted to the own
 * variances of the regions that have one (not constant), at least 3 of
 * them, its weight capped at VERDICT_PRIOR_DF_MAX; each region's sigma^2
 * is then (df0 s0^2 + df s2) / (df0 + df) with df0 + df degrees of
 * freedom, and borrowed = df0 / (df0 + df).  A constant history keeps its
 * own (zero) noise, a region without an estimate of its own takes the
 * prior; sigma is at least the region's resolution.  *prior (if not NULL)
 * receives the prior.  ERR_NOMEM.
 */
int verdict_pool(struct verdict_region *r, size_t n, struct verdict_prior *prior);

/*
 * The location of one set of log values v[0..n) with the region's noise
 * sigma (NaN: unknown): the skipped mean (Hampel 1985) rejecting values
 * further than VERDICT_REJECT scales from the median (for three values,
 * the farthest one from the mean of the other two), the scale being
 * sigma, or without it 1.4826 MAD(v) (a MAD of three values is too
 * uncertain to judge them when the noise is known).  drop (may be NULL)
 * marks the values of outlier repetitions (verdict_drop_runs(): 1 slower,
 * 2 faster than the others where they were outliers): each is left out
 * first where it lies to that side of every other value, and of their
 * median by more than VERDICT_DROP scales, when those are fewer than half
 * of the n; the rest are then averaged whole.  rejected[i] (if not NULL)
 * = 1 for the values left out, *kept (if not NULL) = the values averaged.
 * NaN when n is 0.  tmp is scratch for 3n doubles.
 */
double verdict_location(const double *v, size_t n, double sigma, const unsigned char *drop,
			unsigned char *rejected, size_t *kept, double *tmp);

/*
 * Whether a run left out as an outlier in rejected of the tested regions
 * where it has a value is an outlier run: in at least half of them (the
 * header names it).
 */
int verdict_outlier_run(size_t rejected, size_t tested);

/*
 * Which of the n repetitions of one commit (a candidate and its files or
 * stored repetitions, not a window across commits) are outlier
 * repetitions: drop[i] = 1 (slower: dev[i] >= 0) or 2 (faster) for those
 * left out in at least two regions and in at least half of theirs, when
 * they are fewer than half of the n (a minority: else the set's spread is
 * its own, and none is).  rejected[i] and tested[i] count run i's
 * regions, dev[i] sums its log deviations where it was left out.  A slow
 * node is slow everywhere, also where its value alone lay within
 * VERDICT_REJECT of the others' (docs/statistics.md).  How many.
 */
size_t verdict_drop_runs(unsigned char *drop, const size_t *rejected, const size_t *tested,
			 const double *dev, size_t n);

/*
 * Ratio, interval and one-sided p-values of r from its inputs (the
 * locations and their counts, and the noise after verdict_pool()): the
 * log-ratio y = ycand - ybase, 0 when the change is below the resolution;
 * its standard error sigma sqrt(1/nbase + 1/ncand); Student's t with the
 * noise's degrees of freedom.  Sets call NONE when a side is empty, else
 * leaves it for verdict_decide().
 */
void verdict_region(struct verdict_region *r);

/*
 * Decide every region of r[0..n) (after verdict_region()) against the
 * budget (percent, >= 0), with L = log(1 + budget / 100): the
 * Benjamini-Hochberg adjusted p of each direction over the regions with
 * one; regressed when padj_up <= VERDICT_ALPHA and lo > L; improved when
 * padj_down <= VERDICT_ALPHA and hi < -L; unchanged when hi <= L (plus the
 * resolution); inconclusive when padj_up <= VERDICT_ALPHA otherwise; no
 * evidence else.  Without a noise estimate: inconclusive when the ratio is
 * above the budget, else no evidence.  runs_needed for inconclusive and
 * no evidence.  ERR_NOMEM.
 */
int verdict_decide(struct verdict_region *r, size_t n, double budget);

#endif
