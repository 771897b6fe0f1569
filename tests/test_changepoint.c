/*
 * test_changepoint.c - the change points of src/analysis/changepoint.c on
 * hand-made series (one step, two steps, a drift as one change, a spike,
 * a constant series, fewer points than two minimum segments, repetitions
 * of one commit, values that are None, a small step placed on a few runs,
 * provisional steps in the newest runs, quantized histories) and small seeded versions of the
 * accuracy targets of bench/cpbench.c on the histories of bench/cpgen.c
 * (issue 15's and issue 23's).
 *
 * The noise of the hand-made series is a seeded normal of 1 % (log-scale),
 * so every expectation below is deterministic.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpgen.h"
#include "scopedb/changepoint.h"
#include "scopedb/err.h"
#include "testutil.h"

#define MAXN 200

static uint64_t noise_state;

/* A seeded standard normal (xorshift64*, Box-Muller). */
static double noise(void)
{
	double u[2];
	int i;

	for (i = 0; i < 2; i++) {
		noise_state ^= noise_state >> 12;
		noise_state ^= noise_state << 25;
		noise_state ^= noise_state >> 27;
		u[i] = ((double)((noise_state * UINT64_C(2685821657736338717)) >> 11) + 0.5) /
		       9007199254740992.0;
	}
	return sqrt(-2.0 * log(u[0])) * cos(6.283185307179586 * u[1]);
}

/* v[i] = level(i) * exp(sd * noise). */
static void series(struct stats_val *v, size_t n, double (*level)(size_t), double sd)
{
	size_t i;

	noise_state = 42;
	for (i = 0; i < n; i++) {
		v[i].none = 0;
		v[i].v = level(i) * exp(sd * noise());
	}
}

/* The change points of v with the default options. */
static size_t find(struct changepoint **c, const struct stats_val *v, const char *const *commit,
		   size_t n)
{
	struct changepoint_opts o;
	size_t nc = 99;

	changepoint_opts_init(&o);
	assert_int_equal(changepoint_find(c, &nc, v, commit, n, &o), 0);
	assert_true(nc == 0 || *c != NULL);
	return nc;
}

/* The change points of a series of n runs at level (1 % noise), which must
 * number want: the opening of the tests that need no more of the series. */
static struct changepoint *changes_of(double (*level)(size_t), size_t n, size_t want)
{
	struct stats_val v[MAXN];
	struct changepoint *c = NULL;

	assert_true(n <= MAXN);
	series(v, n, level, 0.01);
	assert_int_equal(find(&c, v, NULL, n), want);
	return c;
}

static double one_step(size_t i)
{
	return i < 20 ? 100.0 : 110.0;
}

static void test_one_step(void **state)
{
	struct changepoint *c = changes_of(one_step, 40, 1);

	(void)state;
	assert_int_equal(c[0].before, 19);
	assert_int_equal(c[0].after, 20);
	assert_int_equal(c[0].runs_before, 20);
	assert_int_equal(c[0].runs_after, 20);
	assert_true(fabs(c[0].v_before - 100.0) < 1.0);
	assert_true(fabs(c[0].v_after - 110.0) < 1.1);
	assert_true(fabs(c[0].pct - 10.0) < 1.5);
	assert_true(c[0].p < 1e-6);
	free(c);
}

static double two_steps(size_t i)
{
	return i < 20 ? 100.0 : i < 40 ? 120.0 : 90.0;
}

static void test_two_steps(void **state)
{
	struct changepoint *c = changes_of(two_steps, 60, 2);

	(void)state;
	assert_int_equal(c[0].after, 20);
	assert_int_equal(c[1].after, 40);
	assert_true(c[0].pct > 15.0 && c[0].pct < 25.0);
	assert_true(c[1].pct < -20.0 && c[1].pct > -30.0);
	assert_int_equal(c[1].runs_before, 20);
	free(c);
}

/* +30 % spread evenly over runs 10..50: a drift, one change (issue 23)
 * whose runs span the drift, not a staircase of steps. */
static double drift(size_t i)
{
	double f = i < 10 ? 0.0 : i > 50 ? 1.0 : (double)(i - 10) / 40.0;

	return 100.0 * exp(f * log(1.3));
}

static void test_drift(void **state)
{
	struct changepoint *c = changes_of(drift, 60, 1);

	(void)state;
	assert_false(c[0].provisional);
	assert_true(c[0].before >= 8 && c[0].before <= 20);
	assert_true(c[0].after >= 40 && c[0].after <= 52);
	assert_true(c[0].at > c[0].before && c[0].at <= c[0].after);
	assert_true(c[0].pct > 20.0 && c[0].pct < 40.0);
	free(c);
}

static double flat(size_t i)
{
	(void)i;
	return 100.0;
}

static void test_spike(void **state)
{
	struct stats_val v[40];
	struct changepoint *c = NULL;

	(void)state;
	series(v, 40, flat, 0.01);
	v[20].v = 300.0; /* one very slow night */
	assert_int_equal(find(&c, v, NULL, 40), 0);
	v[21].v = 250.0; /* two */
	assert_int_equal(find(&c, v, NULL, 40), 0);
	v[20].v = v[21].v = 100.0;
	v[0].v = 20.0; /* the first run */
	assert_int_equal(find(&c, v, NULL, 40), 0);
	/* the last: a step and a spike look alike there: provisional */
	v[39].v = 500.0;
	assert_int_equal(find(&c, v, NULL, 40), 1);
	assert_true(c[0].provisional);
	assert_int_equal(c[0].after, 39);
	assert_int_equal(c[0].confirm, 2);
	free(c);
	/* a spike before the newest runs (the level back after it) is none */
	v[39].v = 100.0;
	v[37].v = 500.0;
	assert_int_equal(find(&c, v, NULL, 40), 0);
	/* a spike next to a step moves neither the step nor its place */
	series(v, 40, one_step, 0.01);
	v[18].v = 400.0;
	assert_int_equal(find(&c, v, NULL, 40), 1);
	assert_int_equal(c[0].after, 20);
	assert_int_equal(c[0].at, 20);
	assert_int_equal(c[0].before, 19);
	free(c);
}

/* A step of 1.7 noise units (1 % noise) at run 30 of 60: found, placed on
 * the few runs it may lie in, which hold the step. */
static double small_step(size_t i)
{
	return i < 30 ? 100.0 : 100.0 * exp(0.017);
}

static void test_small_step(void **state)
{
	struct changepoint_opts o;
	struct stats_val v[60];
	struct changepoint *c = NULL;
	size_t nc;

	(void)state;
	series(v, 60, small_step, 0.01);
	changepoint_opts_init(&o);
	o.min_change = 0.01;
	assert_int_equal(changepoint_find(&c, &nc, v, NULL, 60, &o), 0);
	assert_int_equal(nc, 1);
	assert_true(c[0].at + 5 >= 30 && c[0].at <= 35);
	assert_true(c[0].before < 30 && c[0].after >= 30);
	assert_true(c[0].after - c[0].before >= 1 && c[0].after - c[0].before <= 15);
	assert_false(c[0].provisional);
	free(c);
}

/* Run i of v[0..40) made 20 % slower: one change, first after i, provisional
 * or not, with confirm points to confirm it (the caller frees it). */
static struct changepoint *slower_from(struct stats_val *v, size_t i, int provisional,
				       size_t confirm)
{
	struct changepoint *c = NULL;

	v[i].v *= 1.2;
	assert_int_equal(find(&c, v, NULL, 40), 1);
	if (provisional)
		assert_true(c[0].provisional);
	else
		assert_false(c[0].provisional);
	assert_int_equal(c[0].after, i);
	assert_int_equal(c[0].confirm, confirm);
	return c;
}

/* +20 % in the newest run, then also in the one before: provisional, with
 * the runs that would confirm it; in the three newest: confirmed. */
static void test_provisional(void **state)
{
	struct stats_val v[40];
	struct changepoint *c;
	size_t i;

	(void)state;
	series(v, 40, flat, 0.01);
	c = slower_from(v, 39, 1, 2);
	assert_int_equal(c[0].before, 38);
	assert_int_equal(c[0].at, 39);
	assert_int_equal(c[0].runs_after, 1);
	assert_true(fabs(c[0].pct - 20.0) < 3.0);
	/* the confirming test's p: one point above 39 cannot reach 0.01
	 * (exactly 2 / 40 = 0.05; its normal approximation with continuity
	 * correction, used past 20 points: z = 19 / sqrt(133.25), p = 0.0998) */
	assert_true(fabs(c[0].p - 0.0998) < 5e-4);
	free(c);
	free(slower_from(v, 38, 1, 1));
	free(slower_from(v, 37, 0, 0));
	/* below the smallest change: nothing */
	series(v, 40, flat, 0.001);
	for (i = 38; i < 40; i++)
		v[i].v *= 1.015;
	assert_int_equal(find(&c, v, NULL, 40), 0);
}

static double step_at_6(size_t i)
{
	return i < 6 ? 100.0 : 145.0;
}

/* A short history: 6 points, then a +45 % step.  The confirming test
 * needs 4 points after 6 (its smallest p, 2 / C(10, 4), is below 0.01;
 * with 3 it is 2 / C(9, 3) = 0.024): the step stays provisional, counting
 * down, until it is confirmed, and never vanishes in between. */
static void test_provisional_short(void **state)
{
	struct stats_val v[10];
	struct changepoint *c = NULL;
	size_t k;

	(void)state;
	series(v, 10, step_at_6, 0.01);
	for (k = 1; k <= 4; k++) {
		assert_int_equal(find(&c, v, NULL, 6 + k), 1);
		assert_int_equal(c[0].at, 6);
		assert_int_equal(c[0].provisional, k < 4);
		assert_int_equal(c[0].confirm, k < 4 ? 4 - k : 0);
		free(c);
		c = NULL;
	}
}

/* The change points of the n values x[i] * scale (at most 32). */
static size_t find_values(struct changepoint **c, const double *x, size_t n, double scale)
{
	struct stats_val v[32];
	size_t i;

	assert_true(n <= 32);
	for (i = 0; i < n; i++)
		v[i] = (struct stats_val){0, x[i] * scale};
	return find(c, v, NULL, n);
}

/* A review's 8 nightly runs (ms): +50 % from the fifth, the fourth high
 * in the noise (5.50 within 5.12-5.57).  The provisional change is at the
 * fifth, not the fourth, and its p is the confirming test's with 4 points
 * on each side, 2 / C(8, 4), not 0. */
static void test_provisional_noisy_before(void **state)
{
	const double ms[] = {5.198553, 5.566022, 5.123016, 5.504016,
			     7.624865, 7.99342,	 8.54381,  8.008503};
	struct changepoint *c = NULL;

	(void)state;
	assert_int_equal(find_values(&c, ms, 8, 1e-3), 1);
	assert_true(c[0].provisional);
	assert_int_equal(c[0].before, 3);
	assert_int_equal(c[0].after, 4);
	assert_int_equal(c[0].at, 4);
	assert_true(fabs(c[0].p - 2.0 / 70.0) < 1e-12);
	assert_int_equal(c[0].confirm, 2); /* 6 after 4 */
	free(c);
}

/*
 * Quantized histories (a coarse timer, or counts: runs tie), a step of
 * +14 % to +17 % in the newest three of 12 runs or the newest three or
 * four of a longer history.  Each is one change, confirmed at the step:
 * the Mann-Whitney test of 9 runs against 3 is exact with ties too (p =
 * 2 / C(12, 3) = 0.009; its normal approximation said more than 0.01, so
 * the first two steps were neither confirmed nor provisional), a
 * boundary of less than the smallest change (1 %) is merged before one
 * the tail is too short to test, and a step confirmed from an earlier
 * boundary is not reported a second time as provisional (the last two
 * were, at the same run).
 */
static void test_quantized_newest(void **state)
{
	static const struct {
		double x[20];
		size_t n, at;
	} h[] = {
	    {{102, 101, 100, 100, 101, 101, 102, 102, 102, 115, 115, 115}, 12, 9},
	    {{102, 100, 100, 100, 100, 100, 101, 102, 101, 117, 116, 115}, 12, 9},
	    {{101, 102, 101, 100, 100, 100, 102, 101, 100, 100,
	      100, 100, 100, 100, 102, 102, 102, 115, 117, 117},
	     20,
	     17},
	    {{100, 100, 101, 101, 101, 102, 102, 102, 116, 117, 115, 115}, 12, 8},
	};
	struct changepoint *c = NULL;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(h) / sizeof(h[0]); i++) {
		assert_int_equal(find_values(&c, h[i].x, h[i].n, 1e-3), 1);
		assert_int_equal(c[0].at, h[i].at);
		assert_false(c[0].provisional);
		assert_true(c[0].p <= 0.01);
		assert_true(c[0].pct > 13.0 && c[0].pct < 18.0);
		free(c);
		c = NULL;
	}
	/* 9 tied runs before 3: exactly 2 / C(12, 3) */
	assert_int_equal(find_values(&c, h[0].x, 12, 1.0), 1);
	assert_true(fabs(c[0].p - 2.0 / 220.0) < 1e-12);
	free(c);
}

/* A review's 14 runs: +30 % from the ninth (halo_exchange of mkprofile
 * seeds 1-14, --scale 1.3 from 9), whose segmentation once put the
 * boundary a run late (after the ninth) while the place was the ninth:
 * the medians and run counts are those of the runs before and after the
 * place (runs 1-8 and 9-14), the ninth never on both sides. */
static void test_levels_of_the_place(void **state)
{
	const double s[] = {0.059492199, 0.055335874, 0.059140792, 0.059244688, 0.053865197,
			    0.056442726, 0.056391771, 0.058059188, 0.071186162, 0.075878279,
			    0.077964591, 0.078929668, 0.078542001, 0.078355815};
	struct changepoint *c = NULL;

	(void)state;
	assert_int_equal(find_values(&c, s, 14, 1.0), 1);
	assert_int_equal(c[0].before, 7);
	assert_int_equal(c[0].after, 8);
	assert_int_equal(c[0].runs_before, 8);
	assert_int_equal(c[0].runs_after, 6);
	/* runs 1-8: (0.056442726 + 0.058059188) / 2; runs 9-14 */
	assert_true(fabs(c[0].v_before - 0.057250957) < 1e-12);
	assert_true(fabs(c[0].v_after - 0.078160203) < 1e-12);
	free(c);
}

/* A review's two histories (scales of one profile).  A change's levels
 * are those of the segments the test compared (not +1.15 % for a step the
 * test passed at +8 %); a step in the two newest runs after a slow rise
 * is placed at the first of them, at its size (not +1.85 % four runs
 * earlier, a new level of two points clipped as outliers). */
/* The change points of x[0..n) (scaled to ~480 us), each at least the
 * smallest change (2 %); how many, and the first one's size in *first. */
static size_t changes_at_least(const double *x, size_t n, double *first)
{
	struct changepoint *c = NULL;
	size_t nc = find_values(&c, x, n, 480e-6), i;

	for (i = 0; i < nc; i++)
		assert_true(fabs(c[i].pct) >= 2.0);
	*first = nc ? c[0].pct : 0.0;
	free(c);
	return nc;
}

/* x[0..n) has one change, provisional, first after run index after, of
 * a size in (lo, hi) percent. */
static void provisional_at(const double *x, size_t n, size_t after, double lo, double hi)
{
	struct changepoint *c = NULL;

	assert_int_equal(find_values(&c, x, n, 480e-6), 1);
	assert_true(c[0].provisional);
	assert_int_equal(c[0].after, after);
	assert_true(c[0].pct > lo && c[0].pct < hi);
	free(c);
}

static void test_levels_of_the_test(void **state)
{
	const double steps[] = {1.000, 1.004, 0.998, 1.002, 0.999, 1.001, 1.003, 0.997,
				1.000, 1.002, 1.010, 1.012, 1.009, 1.150, 1.152};
	const double rise[] = {0.998, 1.003, 1.009, 1.012, 1.020, 1.010, 1.024, 1.194, 1.203};
	const double small[] = {1.01658, 1.01883, 1.00586, 1.00328, 1.03315,
				1.03572, 1.03083, 1.04122, 1.02236, 1.24777};
	const double spike[] = {1, 1.002, 0.998, 1.001, 0.999, 1.003, 1.15, 1.152, 1.6};
	const double drop[] = {0.997344, 0.999401, 0.998267, 0.999492,
			       0.995726, 0.993328, 0.896799};
	const double wide[] = {0.990831, 1.01101,  1.00812,  0.989862, 1.01775, 1.00185,  0.997671,
			       0.998271, 0.990331, 0.995238, 0.998878, 1.00692, 0.989283, 1.01128,
			       1.01228,	 0.982437, 1.02131,  1.01601,  1.35616};
	struct changepoint *c = NULL;
	double first;
	size_t n, i;

	(void)state;
	assert_true(changes_at_least(steps, 15, &first) >= 1);
	assert_true(first > 5.0); /* the +8 % step, not +1.15 % */
	provisional_at(rise, 9, 7, 15.0, 22.0);
	/* a second review's: a confirmed change whose open run dropped its
	 * levels below the smallest change keeps the tested segments' */
	changes_at_least(small, 10, &first);
	/* and a +60 % spike after a two-run +15 % step: the step, at the
	 * first of its runs, not the spike */
	provisional_at(spike, 9, 6, 13.0, 17.0);
	/* a third review's: a -10 % step in the newest run alone, after a run
	 * a little low, is at the newest run (not -0.55 % a run early) */
	provisional_at(drop, 7, 6, -11.0, -9.0);
	/* and a change whose place is left wide open: its levels are not one
	 * run each side (the newest, a spike, would read +36.9 %) */
	n = find_values(&c, wide, 19, 480e-6);
	for (i = 0; i < n; i++)
		if (!c[i].provisional)
			assert_true(c[i].runs_before >= 3 && c[i].runs_after >= 3);
	free(c);
}

static void test_constant(void **state)
{
	struct stats_val v[30];
	struct changepoint *c = NULL;
	size_t i;

	(void)state;
	for (i = 0; i < 30; i++)
		v[i] = (struct stats_val){0, 5e-3};
	assert_int_equal(find(&c, v, NULL, 30), 0);
	/* no noise at all and a clean step: found, exactly */
	for (i = 15; i < 30; i++)
		v[i].v = 6e-3;
	assert_int_equal(find(&c, v, NULL, 30), 1);
	assert_int_equal(c[0].after, 15);
	assert_true(fabs(c[0].pct - 20.0) < 1e-9);
	assert_true(fabs(c[0].v_before - 5e-3) < 1e-15);
	free(c);
}

static void test_too_short(void **state)
{
	/* fewer points than two minimum segments: never a change, not even a
	 * provisional one */
	struct stats_val v[6] = {{0, 1.0}, {0, 1.0}, {0, 2.0}, {0, 2.0}, {0, 2.0}};
	struct changepoint *c = NULL;
	size_t i;

	(void)state;
	assert_int_equal(find(&c, v, NULL, 5), 0);
	assert_int_equal(find(&c, v, NULL, 1), 0);
	assert_int_equal(find(&c, v, NULL, 0), 0);
	/* 3 + 3 points: a doubling, but no test can be significant at 1 % */
	for (i = 0; i < 6; i++)
		v[i] =
		    (struct stats_val){0, i < 3 ? 1.0 + 0.01 * (double)i : 2.0 + 0.01 * (double)i};
	assert_int_equal(find(&c, v, NULL, 6), 0);
}

static void test_min_change(void **state)
{
	struct changepoint_opts o;
	struct stats_val v[40];
	struct changepoint *c = NULL;
	size_t i, nc;

	(void)state;
	noise_state = 7;
	for (i = 0; i < 40; i++)
		v[i] = (struct stats_val){0, (i < 20 ? 100.0 : 101.5) * exp(0.001 * noise())};
	assert_int_equal(find(&c, v, NULL, 40), 0); /* 1.5 % < 2 % */
	changepoint_opts_init(&o);
	o.min_change = 0.01;
	assert_int_equal(changepoint_find(&c, &nc, v, NULL, 40, &o), 0);
	assert_int_equal(nc, 1);
	assert_int_equal(c[0].after, 20);
	free(c);
	o.min_segment = 1;
	assert_int_equal(changepoint_find(&c, &nc, v, NULL, 40, &o), ERR_USAGE);
}

/* Runs of one commit are repetitions: 2 runs per commit, a step at the
 * 11th commit; one repetition being slow does not matter. */
static void test_repetitions(void **state)
{
	static const char *const names[] = {"c00", "c01", "c02", "c03", "c04", "c05", "c06",
					    "c07", "c08", "c09", "c10", "c11", "c12", "c13",
					    "c14", "c15", "c16", "c17", "c18", "c19"};
	const char *commit[40];
	struct stats_val v[40];
	struct changepoint *c = NULL;
	size_t i;

	(void)state;
	series(v, 40, one_step, 0.01);
	for (i = 0; i < 40; i++)
		commit[i] = names[i / 2];
	v[5].v = 400.0;
	assert_int_equal(find(&c, v, commit, 40), 1);
	assert_int_equal(c[0].before, 19);
	assert_int_equal(c[0].after, 20);
	assert_int_equal(c[0].runs_before, 20);
	assert_int_equal(c[0].runs_after, 20);
	free(c);
	/* as 20 points, a step 3 points from the end is found; as 40 runs of
	 * unknown commits it is 6 runs from the end as well */
	series(v, 40, flat, 0.01);
	for (i = 34; i < 40; i++)
		v[i].v *= 1.2;
	assert_int_equal(find(&c, v, commit, 40), 1);
	assert_int_equal(c[0].after, 34);
	assert_int_equal(c[0].runs_after, 6);
	free(c);
}

/* None and non-positive values are left out; indices stay those of v. */
static void test_none(void **state)
{
	struct stats_val v[44];
	struct changepoint *c = NULL;

	(void)state;
	series(v, 44, one_step, 0.01);
	memmove(v + 22, v + 20, 20 * sizeof(*v));
	v[20] = (struct stats_val){1, 0.0};
	v[21] = (struct stats_val){0, 0.0};
	v[42] = (struct stats_val){1, 0.0};
	v[43] = (struct stats_val){0, -1.0};
	assert_int_equal(find(&c, v, NULL, 44), 1);
	assert_int_equal(c[0].before, 19);
	assert_int_equal(c[0].after, 22);
	assert_int_equal(c[0].runs_after, 20);
	free(c);
}

/* The accuracy targets of issue 15 on 300 seeded histories (bench/cpbench.c
 * measures 2,000): precision (a drift's first report right, issue 23) and
 * recall of steps >= 3 sigma at least 90 %, at most 0.5 % of the spikes
 * reported. */
static void test_accuracy(void **state)
{
	struct changepoint_opts o;
	struct cpgen_score sc;
	struct cpgen_series s;
	struct changepoint *c;
	size_t i, nc;

	(void)state;
	changepoint_opts_init(&o);
	memset(&sc, 0, sizeof(sc));
	for (i = 0; i < 300; i++) {
		assert_int_equal(cpgen_series(&s, 11, i, 120), 0);
		assert_int_equal(changepoint_find(&c, &nc, s.v, NULL, s.n, &o), 0);
		cpgen_score(&sc, &s, c, nc);
		free(c);
		cpgen_release(&s);
	}
	assert_true(sc.detected > 100 && sc.big_steps > 100 && sc.spikes > 500);
	assert_true((double)(sc.true_pos + sc.drift_found) >= 0.9 * (double)sc.detected);
	assert_true((double)sc.big_found >= 0.9 * (double)sc.big_steps);
	assert_true((double)sc.spikes_reported <= 0.005 * (double)sc.spikes);
}

/* Issue 23's targets on 200 seeded series of each kind (bench_changes
 * --scenarios measures 1,000 with another seed): steps of 1.5-2 noise
 * units found within 5 runs >= 90 % at a precision >= 95 %; a step in the
 * newest run provisional >= 80 %; spikes before the newest runs confirmed
 * changes <= 1 %; drifts reported as two changes or more <= 5 %. */
static void test_scenarios(void **state)
{
	struct changepoint_opts o;
	struct cpgen_series s;
	struct changepoint *c;
	size_t i, j, nc, found = 0, conf = 0, right = 0, prov = 0, spikes = 0, spk = 0, two = 0;

	(void)state;
	changepoint_opts_init(&o);
	for (i = 0; i < 200; i++) {
		int hit = 0;

		assert_int_equal(cpgen_scenario(&s, CPGEN_SMALL, 77, i), 0);
		assert_int_equal(changepoint_find(&c, &nc, s.v, NULL, s.n, &o), 0);
		for (j = 0; j < nc; j++) {
			int near = c[j].at + 5 >= s.steps[0] && c[j].at <= s.steps[0] + 5;

			conf += !c[j].provisional;
			right += !c[j].provisional && near;
			hit |= near;
		}
		found += (size_t)hit;
		free(c);
		cpgen_release(&s);
		assert_int_equal(cpgen_scenario(&s, CPGEN_NEWEST1, 77, i), 0);
		assert_int_equal(changepoint_find(&c, &nc, s.v, NULL, s.n, &o), 0);
		for (j = 0; j < nc; j++)
			prov += c[j].provisional && c[j].at == s.steps[0];
		free(c);
		cpgen_release(&s);
		assert_int_equal(cpgen_scenario(&s, CPGEN_SPIKES, 77, i), 0);
		assert_int_equal(changepoint_find(&c, &nc, s.v, NULL, s.n, &o), 0);
		for (j = 0; j < s.nspikes; j++)
			spikes += s.spikes[j] + 3 < s.n;
		for (j = 0; j < nc; j++)
			spk += !c[j].provisional;
		free(c);
		cpgen_release(&s);
		assert_int_equal(cpgen_scenario(&s, CPGEN_DRIFT, 77, i), 0);
		assert_int_equal(changepoint_find(&c, &nc, s.v, NULL, s.n, &o), 0);
		{
			size_t k, in = 0;

			for (k = 0; k < nc; k++)
				in += !c[k].provisional && c[k].after + 5 >= s.drift_start &&
				      c[k].before <= s.drift_end + 5;
			two += in >= 2;
		}
		free(c);
		cpgen_release(&s);
	}
	assert_true(found >= 180);	       /* 90 % */
	assert_true(right * 100 >= 95 * conf); /* precision 95 % */
	assert_true(prov >= 160);	       /* 80 % */
	assert_true(spikes > 400 && spk * 100 <= spikes);
	assert_true(two <= 10); /* 5 % */
}

TU_MAIN(NULL, NULL,
	{
	    cmocka_unit_test(test_one_step),
	    cmocka_unit_test(test_two_steps),
	    cmocka_unit_test(test_drift),
	    cmocka_unit_test(test_spike),
	    cmocka_unit_test(test_small_step),
	    cmocka_unit_test(test_provisional),
	    cmocka_unit_test(test_provisional_short),
	    cmocka_unit_test(test_provisional_noisy_before),
	    cmocka_unit_test(test_quantized_newest),
	    cmocka_unit_test(test_levels_of_the_place),
	    cmocka_unit_test(test_levels_of_the_test),
	    cmocka_unit_test(test_constant),
	    cmocka_unit_test(test_too_short),
	    cmocka_unit_test(test_min_change),
	    cmocka_unit_test(test_repetitions),
	    cmocka_unit_test(test_none),
	    cmocka_unit_test(test_accuracy),
	    cmocka_unit_test(test_scenarios),
	})
