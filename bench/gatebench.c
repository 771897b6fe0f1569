/*
 * gatebench.c - bench_gate: check's statistical gate on the simulated
 * histories of issue 23, with a known truth.
 *
 * A simulated check has 25 regions and a history of 100 runs on the
 * baseline's branch (the baseline is the newest); the baseline window is
 * its 10 newest runs; 1 or 3 candidate runs follow; region 0 may be slower
 * in the candidates by a planted step (+15 %, +20 %).  The budget is 5 %.
 * A run's value is a region level (0.1 ms to 6 ms) times the noise of the
 * kind of history:
 *
 *   1%, 3%, 10%    lognormal run-to-run noise of that CV, per region
 *   heavy          Student t (3 df) on the log scale, robust SD 3 %
 *   machines       two machine types alternating run by run, the second
 *                  25 % slower, 3 % noise on each; the candidates go on
 *                  alternating; "machines, --same" restricts the windows,
 *                  the history and the candidates to the baseline's machine
 *                  (what --same hostname does when the runs say which)
 *   outlier base   3 %; one run of the baseline window is 2-3x slower in
 *                  every region
 *   outlier cand   3 %; one of the three candidate runs is 2-3x slower
 *   drift          3 %; the history drifts +5 % over its last 30 runs and
 *                  the candidates stay at the level reached
 *   spikes         3 %; 3 % of the history runs are 1.2-3x slower
 *   past step      3 %; a +10 % step 20 runs before the baseline
 *   mixed noise    each region its own lognormal noise, CV from 1 % to 10 %
 *                  (log-uniform): regions that do not behave alike
 *   outlier cand, 10% and 15%
 *                  as outlier cand, at 10 % and 15 % noise: a 2-3x run is
 *                  then only 7-11 and 4.7-7.4 of the noise's SDs slower
 *
 * Each setting is simulated TRIALS times (default 2000, seeded) through
 * sim_check() (bench/simgate.c), which calls what check calls.
 *
 *   bench_gate [TRIALS]          every setting, as bench/RESULTS.md shows it
 *   bench_gate --targets [TRIALS] the targets of issue 23, measured
 *   bench_gate --check [TRIALS]   the targets on a small seeded run (the
 *                                 test suite): exit 1 when one is missed
 *   bench_gate --setting K C E [TRIALS]  one setting: kind K (its number in
 *                                 the list above, from 0), C candidate
 *                                 runs, a planted step of E percent
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simgate.h"

#define NREG 25
#define NHIST 100
#define WINDOW 10
#define BUDGET 5.0
#define MAXC 3

enum kind {
	K_1,
	K_3,
	K_10,
	K_HEAVY,
	K_MACH,
	K_MACH_SAME,
	K_OUT_BASE,
	K_OUT_CAND,
	K_DRIFT,
	K_SPIKES,
	K_STEP,
	K_MIXED,
	K_OUT_CAND10,
	K_OUT_CAND15,
	K_COUNT
};

static const char *const kind_names[K_COUNT] = {
    "1%",
    "3%",
    "10%",
    "heavy tails",
    "machines",
    "machines, --same",
    "outlier base",
    "outlier cand",
    "drift",
    "spikes",
    "past step",
    "mixed noise",
    "outlier cand, 10%",
    "outlier cand, 15%",
};

struct setting {
	enum kind kind;
	int ncand;
	double effect; /* planted in region 0's candidates */
};

struct tally {
	struct sim_tally gate;
	int r0_regressed;      /* the planted region called regressed */
	int others_wrong;      /* checks where another region was called
				* regressed or improved */
	int others_noevidence; /* checks where all other regions are
				* unchanged or no evidence */
	int outlier_named;     /* the planted outlier run flagged */
};

/* The run-to-run noise (log scale) of one value of kind k; cv is the
 * region's own for K_MIXED. */
static double kind_noise(enum kind k, double cv)
{
	switch (k) {
	case K_MIXED:
		return sqrt(log(1.0 + cv * cv)) * sim_norm();
	case K_1:
		return sqrt(log(1.0 + 0.01 * 0.01)) * sim_norm();
	case K_10:
	case K_OUT_CAND10:
		return sqrt(log(1.0 + 0.10 * 0.10)) * sim_norm();
	case K_OUT_CAND15:
		return sqrt(log(1.0 + 0.15 * 0.15)) * sim_norm();
	case K_HEAVY:
		/* t3's MAD is 0.7649: 0.03 * 0.6745 / 0.7649 gives a robust SD of 3 % */
		return 0.03 * 0.6745 / 0.7649 * sim_t3();
	default:
		return sqrt(log(1.0 + 0.03 * 0.03)) * sim_norm();
	}
}

/* Whether kind k plants an outlier among the candidates. */
static int kind_out_cand(enum kind k)
{
	return k == K_OUT_CAND || k == K_OUT_CAND10 || k == K_OUT_CAND15;
}

/* One simulated check of setting st into t (sim_repeat()). */
static int run_one(const void *setting, void *out)
{
	const struct setting *st = setting;
	struct tally *t = out;
	static double hv[NREG][NHIST + MAXC], bv[NREG][NHIST], cv[NREG][MAXC];
	static double logv[NREG][NHIST + MAXC];
	int64_t ids[NHIST + MAXC], hid[NHIST], bid[NHIST], cid[MAXC];
	double runf[NHIST + MAXC]; /* run-level factor (log) */
	int mach[NHIST + MAXC], keep[NHIST + MAXC];
	struct sim_region r[NREG];
	struct sim_outcome o;
	int nrun = NHIST + st->ncand, i, j, k, nh, nb, nc, out_run = -1, wrong = 0, quiet = 1;
	int same = st->kind == K_MACH_SAME;

	for (i = 0; i < nrun; i++) {
		ids[i] = i + 1;
		runf[i] = 0.0;
		mach[i] = i % 2;
		keep[i] = 1;
	}
	if (same) {
		/* the candidates run on the baseline's machine */
		for (i = NHIST; i < nrun; i++)
			mach[i] = mach[NHIST - 1];
	}
	if (st->kind == K_MACH || same)
		for (i = 0; i < nrun; i++)
			runf[i] += mach[i] ? log(1.25) : 0.0;
	if (st->kind == K_OUT_BASE)
		out_run = NHIST - 1 - (int)(sim_unif() * WINDOW);
	if (kind_out_cand(st->kind))
		out_run = NHIST + (int)(sim_unif() * st->ncand);
	if (out_run >= 0)
		runf[out_run] += log(2.0 + sim_unif());
	if (st->kind == K_DRIFT)
		for (i = 0; i < nrun; i++)
			runf[i] +=
			    log(1.05) * (i >= NHIST - 30
					     ? (i >= NHIST - 1 ? 1.0 : (i - (NHIST - 30)) / 29.0)
					     : 0.0);
	if (st->kind == K_SPIKES)
		for (i = 0; i < NHIST; i++)
			if (sim_unif() < 0.03)
				runf[i] += log(1.2 + 1.8 * sim_unif());
	if (st->kind == K_STEP)
		for (i = NHIST - 20; i < nrun; i++)
			runf[i] += log(1.10);
	/* the runs --same keeps: the baseline's machine */
	if (same)
		for (i = 0; i < nrun; i++)
			keep[i] = mach[i] == mach[NHIST - 1];
	for (k = 0; k < NREG; k++) {
		double mu = -9.0 + 4.0 * sim_unif(), rcv = 0.01 * exp(log(10.0) * sim_unif());

		for (i = 0; i < nrun; i++) {
			logv[k][i] = mu + runf[i] + kind_noise(st->kind, rcv);
			if (i >= NHIST && k == 0)
				logv[k][i] += log1p(st->effect);
		}
	}
	for (k = 0; k < NREG; k++) {
		nh = nb = nc = 0;
		for (i = 0; i < NHIST; i++)
			if (keep[i]) {
				hv[k][nh] = exp(logv[k][i]);
				hid[nh++] = ids[i];
			}
		for (i = nh - (nh < WINDOW ? nh : WINDOW); i < nh; i++) {
			bv[k][nb] = hv[k][i];
			bid[nb++] = hid[i];
		}
		for (i = NHIST; i < nrun; i++) {
			cv[k][nc] = exp(logv[k][i]);
			cid[nc++] = ids[i];
		}
		r[k].hist = hv[k];
		r[k].nhist = (size_t)nh;
		r[k].base = bv[k];
		r[k].nbase = (size_t)nb;
		r[k].cand = cv[k];
		r[k].ncand = (size_t)nc;
		r[k].hist_ids = hid;
		r[k].base_ids = bid;
		r[k].cand_ids = cid;
	}
	if (sim_check(&o, r, NREG, BUDGET))
		return -1;
	sim_tally_gate(&t->gate, &o);
	t->r0_regressed += o.call[0] == VERDICT_CALL_REGRESSED;
	for (j = st->effect > 0.0 ? 1 : 0; j < NREG; j++) {
		wrong |= o.call[j] == VERDICT_CALL_REGRESSED || o.call[j] == VERDICT_CALL_IMPROVED;
		quiet &= o.call[j] != VERDICT_CALL_REGRESSED &&
			 o.call[j] != VERDICT_CALL_IMPROVED &&
			 o.call[j] != VERDICT_CALL_INCONCLUSIVE;
	}
	t->others_wrong += wrong;
	t->others_noevidence += quiet;
	t->outlier_named += out_run >= 0 && o.outlier_run == ids[out_run];
	return 0;
}

static double pct(int k, int n)
{
	return n ? 100.0 * k / n : 0.0;
}

/* Every setting: one table row each. */
static int run_table(int trials)
{
	static const double effects[] = {0.0, 0.15, 0.20};
	int k, c, e;

	printf("| history | candidate runs | planted | gate FAIL | INCONCLUSIVE | PASS | planted "
	       "region regressed | other regions called regressed or improved | outlier run "
	       "named |\n");
	printf("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
	for (k = 0; k < K_COUNT; k++)
		for (c = 1; c <= 3; c += 2)
			for (e = 0; e < 3; e++) {
				struct setting st = {(enum kind)k, c, effects[e]};
				struct tally t;
				char named[32];

				if (kind_out_cand((enum kind)k) && c == 1)
					continue;
				sim_seed(UINT64_C(20261231) + UINT64_C(1000) * (uint64_t)k +
					 UINT64_C(10) * (uint64_t)c + (uint64_t)e);
				if (sim_repeat(run_one, &st, &t, sizeof(t), trials))
					return 1;
				if (k == K_OUT_BASE || kind_out_cand((enum kind)k))
					snprintf(named, sizeof(named), "%.2f%%",
						 pct(t.outlier_named, t.gate.trials));
				else
					snprintf(named, sizeof(named), "-");
				printf("| %s | %d | %+g%% | %.2f%% | %.2f%% | %.2f%% | %.2f%% | "
				       "%.2f%% "
				       "| %s |\n",
				       kind_names[k], c, effects[e] * 100,
				       pct(t.gate.fail, t.gate.trials),
				       pct(t.gate.inconclusive, t.gate.trials),
				       pct(t.gate.pass, t.gate.trials),
				       pct(t.r0_regressed, t.gate.trials),
				       pct(t.others_wrong, t.gate.trials), named);
				fflush(stdout);
			}
	return 0;
}

/* What a target measures: a rate of the gate's outcome or of the calls. */
enum measure { M_FAIL, M_INCONCLUSIVE, M_PASS, M_CAUGHT, M_OTHERS, M_COUNT };

/* Whether the bound of a measure is an upper one (a bad outcome) or a
 * lower one. */
static const int upper[M_COUNT] = {[M_FAIL] = 1, [M_INCONCLUSIVE] = 1, [M_OTHERS] = 1};

/* One target: what is measured in which setting (its kind, candidate runs
 * and planted step), and the bound. */
struct target {
	const char *what;
	enum kind kind;
	int ncand;
	double effect;
	enum measure m;
	double bound; /* NaN: shown, not a target */
};

static const struct target targets[] = {
    {"nothing changed, 3%, 1 candidate: PASS", K_3, 1, 0.0, M_PASS, 95.0},
    {"nothing changed, 3%, 1 candidate: INCONCLUSIVE", K_3, 1, 0.0, M_INCONCLUSIVE, 4.0},
    {"nothing changed, 3%, 1 candidate: FAIL", K_3, 1, 0.0, M_FAIL, 1.0},
    {"nothing changed, 3%, 3 candidates: PASS", K_3, 3, 0.0, M_PASS, 97.0},
    {"nothing changed, 10%, 3 candidates: FAIL", K_10, 3, 0.0, M_FAIL, 2.0},
    {"nothing changed, 10%, 3 candidates: PASS", K_10, 3, 0.0, M_PASS, 90.0},
    {"nothing changed, two machines (--same), 3 candidates: FAIL", K_MACH_SAME, 3, 0.0, M_FAIL,
     2.0},
    {"nothing changed, two machines (--same), 3 candidates: PASS", K_MACH_SAME, 3, 0.0, M_PASS,
     90.0},
    {"+20% at 3%, 1 candidate: caught", K_3, 1, 0.20, M_CAUGHT, 97.0},
    {"+15% at 3%, 3 candidates: caught", K_3, 3, 0.15, M_CAUGHT, 97.0},
    {"+20% at 10%, 3 candidates: caught", K_10, 3, 0.20, M_CAUGHT, 25.0},
    {"outlier in the baseline window: others called regressed/improved", K_OUT_BASE, 1, 0.0,
     M_OTHERS, 2.0},
    {"outlier in the baseline window, 3 candidates: others called regressed/improved", K_OUT_BASE,
     3, 0.0, M_OTHERS, 2.0},
    {"outlier among 3 candidates: others called regressed/improved", K_OUT_CAND, 3, 0.0, M_OTHERS,
     2.0},
    {"outlier in the baseline window, +15%, 1 candidate: caught (without the outlier: about "
     "80%)",
     K_OUT_BASE, 1, 0.15, M_CAUGHT, NAN},
    {"outlier in the baseline window, +20%, 1 candidate: caught", K_OUT_BASE, 1, 0.20, M_CAUGHT,
     NAN},
    {"outlier in the baseline window, +15%, 3 candidates: caught", K_OUT_BASE, 3, 0.15, M_CAUGHT,
     90.0},
    {"outlier among 3 candidates, +15%: caught", K_OUT_CAND, 3, 0.15, M_CAUGHT, 90.0},
    {"outlier among 3 candidates at 10% noise, nothing changed: FAIL", K_OUT_CAND10, 3, 0.0, M_FAIL,
     2.0},
    {"outlier among 3 candidates at 15% noise, nothing changed: FAIL", K_OUT_CAND15, 3, 0.0, M_FAIL,
     6.0},
};

/* The rate of measure m in t, in percent. */
static double measured(const struct tally *t, enum measure m)
{
	const int counts[M_COUNT] = {t->gate.fail, t->gate.inconclusive, t->gate.pass,
				     t->r0_regressed, t->others_wrong};

	return pct(counts[m], t->gate.trials);
}

static int run_targets(int trials, int assert_them)
{
	size_t i;
	int bad = 0;

	printf("| target | measured | bound | met? |\n| --- | ---: | ---: | --- |\n");
	for (i = 0; i < sizeof(targets) / sizeof(targets[0]); i++) {
		const struct target *g = &targets[i];
		const struct setting st = {g->kind, g->ncand, g->effect};
		struct tally t;
		double v;
		int ok, le = upper[g->m];

		sim_seed(UINT64_C(777) + UINT64_C(31) * (uint64_t)i);
		if (sim_repeat(run_one, &st, &t, sizeof(t), trials))
			return 2;
		v = measured(&t, g->m);
		if (isnan(g->bound)) {
			printf("| %s | %.2f%% | (not a target) | |\n", g->what, v);
			continue;
		}
		ok = le ? v <= g->bound : v >= g->bound;
		bad |= !ok;
		printf("| %s | %.2f%% | %s %g%% | %s |\n", g->what, v, le ? "<=" : ">=", g->bound,
		       ok ? "yes" : "**no**");
		fflush(stdout);
	}
	if (assert_them)
		printf(bad ? "gate: a target is missed\n" : "gate: all targets met\n");
	return assert_them ? bad : 0;
}

/* One setting by its row number in the table's order (kind * 6 + ...). */
static int run_one_setting(int kind, int ncand, double effect, int trials)
{
	struct setting st = {(enum kind)kind, ncand, effect};
	struct tally t;

	if (kind < 0 || kind >= K_COUNT || ncand < 1 || ncand > MAXC)
		return 2;
	sim_seed(UINT64_C(4242));
	if (sim_repeat(run_one, &st, &t, sizeof(t), trials))
		return 1;
	printf("%s, %d candidates, %+g%%: FAIL %.2f%%, INCONCLUSIVE %.2f%%, PASS %.2f%%, planted "
	       "region regressed %.2f%%, others wrong %.2f%%, outlier named %.2f%%\n",
	       kind_names[kind], ncand, effect * 100, pct(t.gate.fail, t.gate.trials),
	       pct(t.gate.inconclusive, t.gate.trials), pct(t.gate.pass, t.gate.trials),
	       pct(t.r0_regressed, t.gate.trials), pct(t.others_wrong, t.gate.trials),
	       pct(t.outlier_named, t.gate.trials));
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 4 && !strcmp(argv[1], "--setting"))
		return run_one_setting(atoi(argv[2]), atoi(argv[3]), atof(argv[4]) / 100.0,
				       argc > 5 ? atoi(argv[5]) : 2000);
	if (argc > 1 && !strcmp(argv[1], "--targets"))
		return run_targets(argc > 2 ? atoi(argv[2]) : 2000, 0);
	if (argc > 1 && !strcmp(argv[1], "--check"))
		return run_targets(argc > 2 ? atoi(argv[2]) : 400, 1);
	if (argc > 1 && atoi(argv[1]) <= 0) {
		fprintf(stderr,
			"usage: bench_gate [TRIALS] | --targets [TRIALS] | --check [TRIALS]\n");
		return 2;
	}
	return run_table(argc > 1 ? atoi(argv[1]) : 2000);
}
