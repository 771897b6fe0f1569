/*
 * calibrate.c - bench_calibrate: the calibration of check's statistical
 * verdicts (issue 14) by simulation with a known truth.
 *
 * Each simulated check has 20 regions.  A region's value in a run is the
 * total of its calls: 1000 lognormal call durations (log-SD 0.1) around a
 * region level, drawn from the normal approximation of their sum (exact
 * mean and variance), times a multiplicative run-to-run noise
 * exp(N(-s^2/2, s^2)) whose coefficient of variation is the setting's
 * (1%, 3%, 10%).  The history is 30 runs on the baseline's branch ending
 * at the baseline; the baseline window is its last 5 or 10 runs; the
 * candidate set is 1 or 3 new runs, in which region 0 is slower by the
 * planted regression (0, 5, 10, 20%).  The budget is 5%.
 *
 * The verdicts come from the same functions check uses, in the same
 * order (src/analysis/verdict.c, through sim_check() of bench/simgate.c),
 * fed with the simulated values as compare.c feeds them with stored ones.
 *
 *   bench_calibrate [TRIALS]   the table of bench/RESULTS.md (default 2000
 *                              checks per setting), seeded
 *   bench_calibrate --check    a small seeded run asserting the targets:
 *                              false FAIL <= 1% at 1% and 3% noise and
 *                              <= 3% at 10%, detection of a 20% regression
 *                              (10 baseline runs, 1 candidate, 3% noise)
 *                              >= 95%; exit 1 when one is missed
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/verdict.h"
#include "simgate.h"

#define NREG 20
#define NHIST 30
#define NCALLS 1000.0
#define CALL_SIGMA 0.1
#define BUDGET 5.0

/* One run's value of a region of level mu (log of the median call) with
 * run noise s (log-SD) and slowdown factor f. */
static double sim_value(double mu, double s, double f)
{
	double m = exp(mu + CALL_SIGMA * CALL_SIGMA / 2.0);
	double v = (exp(CALL_SIGMA * CALL_SIGMA) - 1.0) * m * m;
	double total = NCALLS * m + sqrt(NCALLS * v) * sim_norm();

	return total * f * exp(s * sim_norm() - s * s / 2.0);
}

struct setting {
	double cv, effect;
	int nbase, ncand;
};

struct outcome {
	struct sim_tally gate;
	int r0[VERDICT_CALL_COUNT]; /* region 0's call */
};

/* One simulated check of setting st: the gate's outcome and region 0's
 * call into o (sim_repeat()). */
static int calib_check(const void *setting, void *out)
{
	const struct setting *st = setting;
	struct outcome *o = out;
	static double hist[NREG][NHIST], cand[NREG][3];
	static const int64_t hid[NHIST] = {0}, cid[3] = {0};
	struct sim_region r[NREG];
	struct sim_outcome so;
	double s = sqrt(log(1.0 + st->cv * st->cv));
	int i, j;

	for (i = 0; i < NREG; i++) {
		double mu = -9.0 + 4.0 * sim_unif(); /* 0.1 ms .. 6 ms calls */

		for (j = 0; j < NHIST; j++)
			hist[i][j] = sim_value(mu, s, 1.0);
		for (j = 0; j < st->ncand; j++)
			cand[i][j] = sim_value(mu, s, i == 0 ? 1.0 + st->effect : 1.0);
		/* history oldest first; the baseline window is its newest runs */
		r[i].hist = hist[i];
		r[i].nhist = NHIST;
		r[i].base = hist[i] + NHIST - st->nbase;
		r[i].nbase = (size_t)st->nbase;
		r[i].cand = cand[i];
		r[i].ncand = (size_t)st->ncand;
		r[i].hist_ids = r[i].base_ids = hid;
		r[i].cand_ids = cid;
	}
	if (sim_check(&so, r, NREG, BUDGET))
		return -1;
	sim_tally_gate(&o->gate, &so);
	o->r0[so.call[0]]++;
	return 0;
}

static double pct(int k, int n)
{
	return 100.0 * k / n;
}

/* The whole table, as bench/RESULTS.md shows it. */
static int run_table(int trials)
{
	static const double cvs[] = {0.01, 0.03, 0.10}, effects[] = {0.0, 0.05, 0.10, 0.20};
	static const int nbases[] = {5, 10}, ncands[] = {1, 3};
	size_t a, b, c, e;

	printf("| noise CV | baseline runs | candidate runs | planted | gate FAIL | gate "
	       "INCONCLUSIVE | gate PASS | planted region: regressed | inconclusive | "
	       "unchanged | improved | no evidence |\n");
	printf("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | "
	       "---: |\n");
	for (a = 0; a < 3; a++)
		for (b = 0; b < 2; b++)
			for (c = 0; c < 2; c++)
				for (e = 0; e < 4; e++) {
					struct setting st = {cvs[a], effects[e], nbases[b],
							     ncands[c]};
					struct outcome o;

					if (sim_repeat(calib_check, &st, &o, sizeof(o), trials))
						return 1;
					printf("| %g%% | %d | %d | %g%% | %.2f%% | %.2f%% | "
					       "%.2f%% | %.2f%% | %.2f%% | %.2f%% | %.2f%% | "
					       "%.2f%% |\n",
					       cvs[a] * 100, nbases[b], ncands[c], effects[e] * 100,
					       pct(o.gate.fail, o.gate.trials),
					       pct(o.gate.inconclusive, o.gate.trials),
					       pct(o.gate.pass, o.gate.trials),
					       pct(o.r0[VERDICT_CALL_REGRESSED], o.gate.trials),
					       pct(o.r0[VERDICT_CALL_INCONCLUSIVE], o.gate.trials),
					       pct(o.r0[VERDICT_CALL_UNCHANGED], o.gate.trials),
					       pct(o.r0[VERDICT_CALL_IMPROVED], o.gate.trials),
					       pct(o.r0[VERDICT_CALL_NO_EVIDENCE], o.gate.trials));
					fflush(stdout);
				}
	return 0;
}

/* The targets of issue 14 on a small seeded run: 0 when all hold. */
static int run_check(int trials)
{
	static const double cvs[] = {0.01, 0.03, 0.10}, bound[] = {1.0, 1.0, 3.0};
	static const int nbases[] = {5, 10}, ncands[] = {1, 3};
	struct outcome o;
	size_t a, b, c;
	int bad = 0;

	for (a = 0; a < 3; a++)
		for (b = 0; b < 2; b++)
			for (c = 0; c < 2; c++) {
				struct setting st = {cvs[a], 0.0, nbases[b], ncands[c]};

				if (sim_repeat(calib_check, &st, &o, sizeof(o), trials))
					return 1;
				printf("false FAIL, noise %g%%, %d baseline, %d candidate: %.2f%% "
				       "(target <= %g%%)\n",
				       cvs[a] * 100, nbases[b], ncands[c],
				       pct(o.gate.fail, o.gate.trials), bound[a]);
				bad |= pct(o.gate.fail, o.gate.trials) > bound[a];
			}
	{
		struct setting st = {0.03, 0.20, 10, 1};

		if (sim_repeat(calib_check, &st, &o, sizeof(o), trials))
			return 1;
		printf("detection of 20%%, noise 3%%, 10 baseline, 1 candidate: %.2f%% (target >= "
		       "95%%)\n",
		       pct(o.r0[VERDICT_CALL_REGRESSED], o.gate.trials));
		bad |= pct(o.r0[VERDICT_CALL_REGRESSED], o.gate.trials) < 95.0;
	}
	printf(bad ? "calibration: a target is missed\n" : "calibration: all targets met\n");
	return bad;
}

int main(int argc, char **argv)
{
	sim_seed(20261203);
	if (argc > 1 && !strcmp(argv[1], "--check"))
		return run_check(argc > 2 ? atoi(argv[2]) : 400);
	if (argc > 1 && atoi(argv[1]) <= 0) {
		fprintf(stderr, "usage: bench_calibrate [TRIALS] | --check [TRIALS]\n");
		return 2;
	}
	return run_table(argc > 1 ? atoi(argv[1]) : 2000);
}
