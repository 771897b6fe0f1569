/*
 * cpbench.c - accuracy and speed of the change point detection of
 * "scopedb changes" (issue 15), on the seeded histories of cpgen.c.
 *
 * usage: bench_changes [--series N] [--runs R] [--seed S]
 *
 * Prints precision (detections within one run of a planted step), recall
 * (of the steps at least 3 times the noise, and of all steps), the share
 * of single-run spikes reported as change points, the false detections in
 * series with a drift, and the time changepoint_find() takes for 256
 * series of 1,000 runs (the detection part of "changes" over a store of
 * 1,000 runs x 256 regions; bench/run medium times the whole command).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cpgen.h"
#include "scopedb/err.h"

static double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double bench_pct(size_t a, size_t b)
{
	return b ? 100.0 * (double)a / (double)b : 0.0;
}

int main(int argc, char **argv)
{
	struct changepoint_opts o;
	struct cpgen_score sc;
	struct cpgen_series s;
	struct changepoint *c;
	size_t nseries = 2000, runs = 120, nc, i;
	uint64_t seed = 1;
	double t0, det;
	int a;

	for (a = 1; a + 1 < argc; a += 2) {
		if (!strcmp(argv[a], "--series"))
			nseries = strtoul(argv[a + 1], NULL, 10);
		else if (!strcmp(argv[a], "--runs"))
			runs = strtoul(argv[a + 1], NULL, 10);
		else if (!strcmp(argv[a], "--seed"))
			seed = strtoull(argv[a + 1], NULL, 10);
		else
			break;
	}
	if (a < argc || runs < 4 * CPGEN_GAP) {
		fprintf(stderr, "usage: bench_changes [--series N] [--runs R >= %d] [--seed S]\n",
			4 * CPGEN_GAP);
		return 2;
	}
	changepoint_opts_init(&o);
	memset(&sc, 0, sizeof(sc));
	for (i = 0; i < nseries; i++) {
		if (cpgen_series(&s, seed, i, runs) ||
		    changepoint_find(&c, &nc, s.v, NULL, s.n, &o)) {
			fprintf(stderr, "bench_changes: %s\n", err_msg());
			return 2;
		}
		cpgen_score(&sc, &s, c, nc);
		free(c);
		cpgen_release(&s);
	}
	printf("change points: %zu series x %zu runs, seed %llu\n\n", nseries, runs,
	       (unsigned long long)seed);
	printf("| measurement | value | target |\n| --- | ---: | --- |\n");
	printf(
	    "| precision (%zu of %zu detections within 1 run of a step) | %.1f %% | >= 90 %% |\n",
	    sc.true_pos, sc.detected, bench_pct(sc.true_pos, sc.detected));
	printf("| recall, steps >= 3x noise (%zu of %zu) | %.1f %% | >= 90 %% |\n", sc.big_found,
	       sc.big_steps, bench_pct(sc.big_found, sc.big_steps));
	printf("| recall, all steps of 3-30 %% (%zu of %zu) | %.1f %% | |\n", sc.steps_found,
	       sc.steps, bench_pct(sc.steps_found, sc.steps));
	printf("| single-run spikes reported (%zu of %zu) | %.2f %% | <= 0.5 %% |\n",
	       sc.spikes_reported, sc.spikes, bench_pct(sc.spikes_reported, sc.spikes));
	printf("| false detections in the %zu drifts | %zu | |\n", sc.drift_series, sc.drift_false);
	printf("| other false detections | %zu | |\n", sc.other_false);

	/* speed: 256 regions x 1,000 runs, the detection alone */
	det = 0.0;
	nc = 0;
	for (i = 0; i < 256; i++) {
		size_t k;

		if (cpgen_series(&s, seed + 1, i, 1000)) {
			fprintf(stderr, "bench_changes: %s\n", err_msg());
			return 2;
		}
		t0 = bench_now();
		if (changepoint_find(&c, &k, s.v, NULL, s.n, &o)) {
			fprintf(stderr, "bench_changes: %s\n", err_msg());
			return 2;
		}
		det += bench_now() - t0;
		nc += k;
		free(c);
		cpgen_release(&s);
	}
	printf("| detection over 256 series x 1,000 runs (%zu change points) | %.1f ms | |\n", nc,
	       det * 1e3);
	return 0;
}
