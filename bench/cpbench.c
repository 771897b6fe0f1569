/*
 * cpbench.c - accuracy and speed of the change point detection of
 * "scopedb changes" (issue 15), on the seeded histories of cpgen.c.
 *
 * usage: bench_changes [--series N] [--runs R] [--seed S]
 *        bench_changes --scenarios [N] [--quantum PCT]
 *        bench_changes --quantized-newest
 *
 * Prints precision (detections within one run of a planted step), recall
 * (of the steps at least 3 times the noise, and of all steps), the share
 * of single-run spikes reported as change points, the false detections in
 * series with a drift, and the time changepoint_find() takes for 256
 * series of 1,000 runs (the detection part of "changes" over a store of
 * 1,000 runs x 256 regions; bench/run medium times the whole command).
 *
 * --scenarios: the histories of issue 23 (cpgen_scenario(), N = 1,000
 * series of each kind): recall and precision of steps of 1.5-2 noise
 * units (a detection within 5 runs of the step counts), with two machine
 * types alternating (and the series --same keeps), steps in the newest
 * runs (reported at the step's run, provisional or confirmed), spikes
 * reported as confirmed changes, drifts reported as two or more changes,
 * and the changes reported in series of noise alone.  --quantum rounds
 * every value of a series to a multiple of PCT % of its first value, as
 * a coarse timer or a count would, so that runs tie.
 *
 * --quantized-newest: short quantized histories (8 to 24 runs of 100,
 * 101 or 102, the newest 1 to 4 runs 115 to 117: a step of about +15 %
 * with ties on both sides), 200 seeded series of each shape: how often
 * the step is found at its run, confirmed or provisional, and how many
 * change points are reported elsewhere.
 */
#include <math.h>
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

/* 1 when change point c is provisional (a step in the newest runs). */
#define CP_PROVISIONAL(c) ((c).provisional)

static const char *const scenario_names[CPGEN_NKINDS] = {
    "steps of 1.5-2 noise units",
    "two machine types alternating, a 10 % step",
    "the same, the first machine's runs (--same)",
    "a step in the newest run",
    "a step in the two newest runs",
    "a step in the three newest runs",
    "spikes (3 % of the runs)",
    "a drift of 5 % over 30 runs",
    "noise alone",
};

/* Counts of one scenario. */
struct scen {
	size_t series, steps, found, confirmed, true_conf;
	size_t at_step, at_step_prov; /* newest: reported at the step's run */
	size_t spikes, spikes_conf;   /* spikes before the 3 newest runs */
	size_t drift_two, false_conf, prov;
};

static void scenario_score(struct scen *sc, const struct cpgen_series *s, enum cpgen_kind k,
			   const struct changepoint *c, size_t nc)
{
	size_t i, j;
	int found = 0, at = 0, at_prov = 0, in_drift = 0;

	sc->series++;
	sc->steps += s->nsteps;
	for (i = 0; i < nc; i++) {
		size_t a = c[i].at;
		int prov = CP_PROVISIONAL(c[i]);
		int near = s->nsteps && a + 5 >= s->steps[0] && a <= s->steps[0] + 5;

		sc->prov += (size_t)prov;
		if (s->nsteps && a == s->steps[0]) {
			at = 1;
			at_prov |= prov;
		}
		if (near && (k < CPGEN_NEWEST1 || k > CPGEN_NEWEST3 || a == s->steps[0]))
			found = 1;
		if (prov)
			continue;
		sc->confirmed++;
		if (near) {
			sc->true_conf++;
			continue;
		}
		if (s->drift && a + 5 >= s->drift_start && a <= s->drift_end + 5) {
			in_drift++;
			sc->true_conf++;
			continue;
		}
		sc->false_conf++;
		for (j = 0; j < s->nspikes; j++)
			if (s->spikes[j] + 3 < s->n && (a == s->spikes[j] || a == s->spikes[j] + 1))
				sc->spikes_conf++;
	}
	for (j = 0; j < s->nspikes; j++)
		sc->spikes += s->spikes[j] + 3 < s->n;
	sc->found += (size_t)found;
	sc->at_step += (size_t)at;
	sc->at_step_prov += (size_t)at_prov;
	sc->drift_two += in_drift >= 2;
}

/* Round every value of s to a multiple of pct % of its first value. */
static void quantize(struct cpgen_series *s, double pct)
{
	double q = s->v[0].v * pct / 100.0;
	size_t i;

	for (i = 0; q > 0.0 && i < s->n; i++)
		s->v[i].v = q * fmax(1.0, round(s->v[i].v / q));
}

/* The scenarios of issue 23, n series each, quantized when pct > 0. */
static int scenarios(size_t n, double pct)
{
	struct changepoint_opts o;
	struct cpgen_series s;
	struct changepoint *c;
	size_t i, nc;
	int k;

	changepoint_opts_init(&o);
	printf("change points: the histories of issue 23, %zu series of 100 runs each "
	       "(seed 23)",
	       n);
	if (pct > 0.0)
		printf(", every value rounded to %g %% of the series' first", pct);
	printf("\n\n");
	printf("| history | recall (within 5 runs) | precision (confirmed) | at the step's run "
	       "(provisional) | spikes reported as confirmed | drifts as 2+ changes | false "
	       "confirmed per series | provisional per series |\n");
	printf("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
	for (k = 0; k < CPGEN_NKINDS; k++) {
		struct scen sc;

		memset(&sc, 0, sizeof(sc));
		for (i = 0; i < n; i++) {
			int rc = cpgen_scenario(&s, (enum cpgen_kind)k, 23, i);

			if (!rc && pct > 0.0)
				quantize(&s, pct);
			if (!rc)
				rc = changepoint_find(&c, &nc, s.v, NULL, s.n, &o);
			if (rc) {
				fprintf(stderr, "bench_changes: %s\n", err_msg());
				return 2;
			}
			scenario_score(&sc, &s, (enum cpgen_kind)k, c, nc);
			free(c);
			cpgen_release(&s);
		}
		char rec[64] = "-", at[64] = "-", spk[64] = "-", dr[64] = "-";

		if (sc.steps)
			snprintf(rec, sizeof(rec), "%.1f %% (%zu of %zu)",
				 bench_pct(sc.found, sc.steps), sc.found, sc.steps);
		if (k >= CPGEN_NEWEST1 && k <= CPGEN_NEWEST3)
			snprintf(at, sizeof(at), "%.1f %% (%.1f %%)",
				 bench_pct(sc.at_step, sc.steps),
				 bench_pct(sc.at_step_prov, sc.steps));
		if (sc.spikes)
			snprintf(spk, sizeof(spk), "%.2f %% (%zu of %zu)",
				 bench_pct(sc.spikes_conf, sc.spikes), sc.spikes_conf, sc.spikes);
		if (k == CPGEN_DRIFT)
			snprintf(dr, sizeof(dr), "%.1f %% (%zu of %zu)",
				 bench_pct(sc.drift_two, sc.series), sc.drift_two, sc.series);
		printf("| %s | %s | %.1f %% (%zu of %zu) | %s | %s | %s | %.3f | %.3f |\n",
		       scenario_names[k], rec, bench_pct(sc.true_conf, sc.confirmed), sc.true_conf,
		       sc.confirmed, at, spk, dr, (double)sc.false_conf / (double)sc.series,
		       (double)sc.prov / (double)sc.series);
		fflush(stdout);
	}
	return 0;
}

/* Short quantized histories with a step in the newest runs (usage above). */
static int quantized_newest(void)
{
	struct changepoint_opts o;
	uint64_t st = 88172645463325252ULL;
	size_t n, k, rep, i;

	changepoint_opts_init(&o);
	printf("change points: 200 quantized series of each shape, a step of about +15 %% in the "
	       "newest runs\n\n");
	printf(
	    "| runs | step in the newest | found at the step: confirmed | provisional | missed | "
	    "change points elsewhere |\n| ---: | ---: | ---: | ---: | ---: | ---: |\n");
	for (n = 8; n <= 24; n += 4) {
		for (k = 1; k <= 4; k++) {
			size_t conf = 0, prov = 0, missed = 0, other = 0;

			for (rep = 0; rep < 200; rep++) {
				struct stats_val v[24];
				struct changepoint *c;
				size_t nc;
				int at = 0;

				for (i = 0; i < n; i++) {
					st ^= st << 13;
					st ^= st >> 7;
					st ^= st << 17;
					v[i].none = 0;
					v[i].v = (i >= n - k ? 115.0 : 100.0) + (double)(st % 3);
				}
				if (changepoint_find(&c, &nc, v, NULL, n, &o)) {
					fprintf(stderr, "bench_changes: %s\n", err_msg());
					return 2;
				}
				for (i = 0; i < nc; i++) {
					if (c[i].at != n - k) {
						other++;
						continue;
					}
					at = 1;
					if (c[i].provisional)
						prov++;
					else
						conf++;
				}
				missed += !at;
				free(c);
			}
			printf("| %zu | %zu | %zu | %zu | %zu | %zu |\n", n, k, conf, prov, missed,
			       other);
		}
	}
	return 0;
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

	if (argc == 2 && !strcmp(argv[1], "--quantized-newest"))
		return quantized_newest();
	if (argc > 1 && !strcmp(argv[1], "--scenarios")) {
		size_t n =
		    argc > 2 && strcmp(argv[2], "--quantum") ? strtoul(argv[2], NULL, 10) : 1000;

		a = argc > 2 && strcmp(argv[2], "--quantum") ? 3 : 2;
		if (a + 1 < argc && !strcmp(argv[a], "--quantum"))
			return scenarios(n, strtod(argv[a + 1], NULL));
		if (a < argc) {
			fprintf(stderr, "usage: bench_changes --scenarios [N] [--quantum PCT]\n");
			return 2;
		}
		return scenarios(n, 0.0);
	}
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
	printf("| precision (%zu of %zu detections within 1 run of a step, by the runs they "
	       "name) | %.1f %% | >= 90 %% |\n",
	       sc.true_pos, sc.detected, bench_pct(sc.true_pos, sc.detected));
	printf("| the same by their likeliest run alone (%zu of %zu) | %.1f %% | |\n",
	       sc.true_pos_at, sc.detected, bench_pct(sc.true_pos_at, sc.detected));
	printf("| recall, steps >= 3x noise (%zu of %zu) | %.1f %% | >= 90 %% |\n", sc.big_found,
	       sc.big_steps, bench_pct(sc.big_found, sc.big_steps));
	printf("| recall, all steps of 3-30 %% (%zu of %zu) | %.1f %% | |\n", sc.steps_found,
	       sc.steps, bench_pct(sc.steps_found, sc.steps));
	printf("| single-run spikes reported (%zu of %zu) | %.2f %% | <= 0.5 %% |\n",
	       sc.spikes_reported, sc.spikes, bench_pct(sc.spikes_reported, sc.spikes));
	printf(
	    "| precision, a drift's first report right (issue 23: %zu of %zu) | %.1f %% | >= 90 %% "
	    "|\n",
	    sc.true_pos + sc.drift_found, sc.detected,
	    bench_pct(sc.true_pos + sc.drift_found, sc.detected));
	printf("| drifts reported (%zu of %zu) | %.1f %% | |\n", sc.drift_found, sc.drift_series,
	       bench_pct(sc.drift_found, sc.drift_series));
	printf("| more detections in the %zu drifts | %zu | |\n", sc.drift_series, sc.drift_false);
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
