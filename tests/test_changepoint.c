/*
 * test_changepoint.c - the change points of src/analysis/changepoint.c on
 * hand-made series (one step, two steps, a drift, a spike, a constant
 * series, fewer points than two minimum segments, repetitions of one
 * commit, values that are None) and a small seeded version of the
 * accuracy targets of bench/cpbench.c on the histories of bench/cpgen.c.
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

static double one_step(size_t i)
{
	return i < 20 ? 100.0 : 110.0;
}

static void test_one_step(void **state)
{
	struct stats_val v[40];
	struct changepoint *c = NULL;

	(void)state;
	series(v, 40, one_step, 0.01);
	assert_int_equal(find(&c, v, NULL, 40), 1);
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
	struct stats_val v[60];
	struct changepoint *c = NULL;

	(void)state;
	series(v, 60, two_steps, 0.01);
	assert_int_equal(find(&c, v, NULL, 60), 2);
	assert_int_equal(c[0].after, 20);
	assert_int_equal(c[1].after, 40);
	assert_true(c[0].pct > 15.0 && c[0].pct < 25.0);
	assert_true(c[1].pct < -20.0 && c[1].pct > -30.0);
	assert_int_equal(c[1].runs_before, 20);
	free(c);
}

/* +30 % spread evenly over runs 10..50: a drift, no step. */
static double drift(size_t i)
{
	double f = i < 10 ? 0.0 : i > 50 ? 1.0 : (double)(i - 10) / 40.0;

	return 100.0 * exp(f * log(1.3));
}

static void test_drift(void **state)
{
	struct stats_val v[60];
	struct changepoint *c = NULL;

	(void)state;
	series(v, 60, drift, 0.01);
	assert_int_equal(find(&c, v, NULL, 60), 0);
	assert_null(c);
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
	v[0].v = 20.0; /* the first run, and the last */
	v[39].v = 500.0;
	assert_int_equal(find(&c, v, NULL, 40), 0);
	/* a spike next to a step moves neither the step nor its place */
	series(v, 40, one_step, 0.01);
	v[18].v = 400.0;
	assert_int_equal(find(&c, v, NULL, 40), 1);
	assert_int_equal(c[0].after, 20);
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
	struct stats_val v[6];
	struct changepoint *c = NULL;
	size_t i;

	(void)state;
	/* fewer points than two minimum segments: never a change */
	for (i = 0; i < 5; i++)
		v[i] = (struct stats_val){0, i < 2 ? 1.0 : 2.0};
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
 * measures 2,000): precision and recall of steps >= 3 sigma at least
 * 90 %, at most 0.5 % of the spikes reported. */
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
	assert_true((double)sc.true_pos >= 0.9 * (double)sc.detected);
	assert_true((double)sc.big_found >= 0.9 * (double)sc.big_steps);
	assert_true((double)sc.spikes_reported <= 0.005 * (double)sc.spikes);
}

TU_MAIN(NULL, NULL,
	{
	    cmocka_unit_test(test_one_step),
	    cmocka_unit_test(test_two_steps),
	    cmocka_unit_test(test_drift),
	    cmocka_unit_test(test_spike),
	    cmocka_unit_test(test_constant),
	    cmocka_unit_test(test_too_short),
	    cmocka_unit_test(test_min_change),
	    cmocka_unit_test(test_repetitions),
	    cmocka_unit_test(test_none),
	    cmocka_unit_test(test_accuracy),
	})
