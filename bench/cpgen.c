/*
 * cpgen.c - seeded region histories with planted steps, drifts and spikes,
 * and the precision / recall / spike scoring of detected change points
 * (see cpgen.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cpgen.h"
#include "scopedb/err.h"

/* xorshift64*: the generator's state must never be 0. */
static uint64_t cpgen_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * UINT64_C(2685821657736338717);
}

/* Uniform in (0, 1). */
static double cpgen_unif(uint64_t *s)
{
	return ((double)(cpgen_next(s) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

/* Standard normal (Box-Muller). */
static double cpgen_normal(uint64_t *s)
{
	double u = cpgen_unif(s), v = cpgen_unif(s);

	return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

/* Uniform integer in [lo, hi]. */
static size_t cpgen_int(uint64_t *s, size_t lo, size_t hi)
{
	return lo + (size_t)(cpgen_next(s) % (uint64_t)(hi - lo + 1));
}

/* 1 when run i is within gap runs of a planted step of s. */
static int cpgen_near_step(const struct cpgen_series *s, size_t i, size_t gap)
{
	size_t k;

	for (k = 0; k < s->nsteps; k++)
		if (i + gap >= s->steps[k] && i <= s->steps[k] + gap)
			return 1;
	return 0;
}

static int cpgen_cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;

	return (x > y) - (x < y);
}

int cpgen_series(struct cpgen_series *s, uint64_t seed, uint64_t index, size_t n)
{
	uint64_t st =
	    (seed * UINT64_C(0x9E3779B97F4A7C15)) ^ (index * UINT64_C(0xBF58476D1CE4E5B9));
	size_t i, k, want, tries, d0 = 0, d1 = 0;
	double base, level, ramp = 0.0;

	memset(s, 0, sizeof(*s));
	if (!st)
		st = 1;
	for (i = 0; i < 8; i++)
		cpgen_next(&st);
	s->n = n;
	s->v = calloc(n, sizeof(*s->v));
	s->spikes = calloc(n, sizeof(*s->spikes));
	if (!s->v || !s->spikes) {
		cpgen_release(s);
		return err_nomem();
	}
	s->sigma = 0.01 + 0.09 * cpgen_unif(&st);
	base = log(1e5 * exp(6.0 * cpgen_unif(&st))); /* 100 us .. 40 ms */
	if (cpgen_unif(&st) < 0.3) {
		size_t len = cpgen_int(&st, 20, 40);

		s->drift = 1;
		d0 = cpgen_int(&st, CPGEN_GAP, n - CPGEN_GAP - len);
		d1 = d0 + len;
		s->drift_start = d0;
		s->drift_end = d1;
		ramp = (0.03 + 0.12 * cpgen_unif(&st)) * (cpgen_unif(&st) < 0.5 ? -1.0 : 1.0);
		ramp = log1p(ramp) / (double)len;
	}
	want = cpgen_int(&st, 0, CPGEN_MAX_STEPS);
	for (tries = 0; s->nsteps < want && tries < 1000; tries++) {
		size_t at = cpgen_int(&st, CPGEN_GAP, n - CPGEN_GAP);
		double mag = 0.03 + 0.27 * cpgen_unif(&st);

		if (cpgen_near_step(s, at, CPGEN_GAP) || (s->drift && at + 3 >= d0 && at <= d1 + 3))
			continue;
		s->steps[s->nsteps] = at;
		s->step_log[s->nsteps++] =
		    cpgen_unif(&st) < 0.5 ? log1p(mag) : log1p(-mag / (1 + mag));
	}
	/* sort the steps (with their magnitudes) by position */
	for (i = 1; i < s->nsteps; i++)
		for (k = i; k > 0 && s->steps[k - 1] > s->steps[k]; k--) {
			size_t t = s->steps[k];
			double l = s->step_log[k];

			s->steps[k] = s->steps[k - 1];
			s->step_log[k] = s->step_log[k - 1];
			s->steps[k - 1] = t;
			s->step_log[k - 1] = l;
		}
	for (i = 0; i < n; i++) {
		level = base;
		for (k = 0; k < s->nsteps; k++)
			if (i >= s->steps[k])
				level += s->step_log[k];
		if (s->drift && i >= d0)
			level += ramp * (double)((i < d1 ? i : d1) - d0);
		level += s->sigma * cpgen_normal(&st);
		if (cpgen_unif(&st) < 0.03 && !cpgen_near_step(s, i, 2) &&
		    !(s->nspikes && s->spikes[s->nspikes - 1] + 2 >= i)) {
			double u = cpgen_unif(&st);

			level += u < 0.8 ? log1p(0.2 + 1.8 * cpgen_unif(&st))
					 : log1p(-(0.15 + 0.35 * cpgen_unif(&st)));
			s->spikes[s->nspikes++] = i;
		}
		s->v[i].v = exp(level);
	}
	qsort(s->spikes, s->nspikes, sizeof(*s->spikes), cpgen_cmp_size);
	return 0;
}

void cpgen_release(struct cpgen_series *s)
{
	free(s->v);
	free(s->spikes);
	s->v = NULL;
	s->spikes = NULL;
}

void cpgen_score(struct cpgen_score *sc, const struct cpgen_series *s, const struct changepoint *c,
		 size_t nc)
{
	int used[CPGEN_MAX_STEPS] = {0}, drift_seen = 0;
	size_t i, k;

	sc->steps += s->nsteps;
	sc->spikes += s->nspikes;
	sc->drift_series += s->drift != 0;
	for (k = 0; k < s->nsteps; k++)
		sc->big_steps += fabs(s->step_log[k]) >= 3.0 * s->sigma;
	for (i = 0; i < nc; i++) {
		int hit = 0;

		if (c[i].provisional)
			continue;
		sc->detected++;
		for (k = 0; k < s->nsteps && !hit; k++) {
			/* the first run after the step in [before, after + 1] */
			if (used[k] || s->steps[k] < c[i].before || s->steps[k] > c[i].after + 1)
				continue;
			used[k] = hit = 1;
			sc->true_pos++;
			sc->true_pos_at += c[i].at + 1 >= s->steps[k] && c[i].at <= s->steps[k] + 1;
			sc->steps_found++;
			sc->big_found += fabs(s->step_log[k]) >= 3.0 * s->sigma;
		}
		if (hit)
			continue;
		if (s->drift && c[i].after + 2 >= s->drift_start &&
		    c[i].before <= s->drift_end + 2) {
			/* a drift is a change (issue 23): its first report is
			 * right, any other a false one */
			if (drift_seen++)
				sc->drift_false++;
			else
				sc->drift_found++;
			continue;
		}
		for (k = 0; k < s->nspikes; k++)
			if (c[i].at == s->spikes[k] || c[i].at == s->spikes[k] + 1)
				break;
		if (k < s->nspikes)
			sc->spikes_reported++;
		else
			sc->other_false++;
	}
}

/* Spikes in 3 % of the runs of s (none within 2 runs of a step or of
 * another spike): +20 % to +200 %, or -15 % to -50 %. */
static void cpgen_spikes(struct cpgen_series *s, double *lv, uint64_t *st)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		if (cpgen_unif(st) < 0.03 && !cpgen_near_step(s, i, 2) &&
		    !(s->nspikes && s->spikes[s->nspikes - 1] + 2 >= i)) {
			lv[i] += cpgen_unif(st) < 0.8 ? log1p(0.2 + 1.8 * cpgen_unif(st))
						      : log1p(-(0.15 + 0.35 * cpgen_unif(st)));
			s->spikes[s->nspikes++] = i;
		}
	}
}

int cpgen_scenario(struct cpgen_series *s, enum cpgen_kind kind, uint64_t seed, uint64_t index)
{
	uint64_t st = (seed * UINT64_C(0x9E3779B97F4A7C15)) ^
		      ((index + UINT64_C(1000003) * (uint64_t)kind) * UINT64_C(0xBF58476D1CE4E5B9));
	size_t n = 100, i, k;
	double lv[100], base, base_step, ramp = 0.0;
	int same = kind == CPGEN_MACHINES_SAME;

	memset(s, 0, sizeof(*s));
	if (!st)
		st = 1;
	for (i = 0; i < 8; i++)
		cpgen_next(&st);
	s->v = calloc(n, sizeof(*s->v));
	s->spikes = calloc(n, sizeof(*s->spikes));
	if (!s->v || !s->spikes) {
		cpgen_release(s);
		return err_nomem();
	}
	base = log(1e5 * exp(6.0 * cpgen_unif(&st)));
	switch (kind) {
	case CPGEN_SMALL:
		s->sigma = 0.02 + 0.08 * cpgen_unif(&st);
		s->steps[0] = cpgen_int(&st, 20, 80);
		s->step_log[0] = (1.5 + 0.5 * cpgen_unif(&st)) * s->sigma;
		s->nsteps = 1;
		break;
	case CPGEN_MACHINES:
	case CPGEN_MACHINES_SAME:
		s->sigma = log1p(0.03);
		s->steps[0] = cpgen_int(&st, 20, 80);
		s->step_log[0] = log1p(0.10);
		s->nsteps = 1;
		break;
	case CPGEN_NEWEST1:
	case CPGEN_NEWEST2:
	case CPGEN_NEWEST3:
		s->sigma = 0.01 + 0.05 * cpgen_unif(&st);
		s->steps[0] = n - 1 - (size_t)(kind - CPGEN_NEWEST1);
		base_step = fmax(3.0 * s->sigma, log1p(0.03));
		s->step_log[0] = base_step + (log1p(0.30) - base_step) * cpgen_unif(&st);
		s->nsteps = 1;
		break;
	case CPGEN_DRIFT:
		s->sigma = 0.01 + 0.02 * cpgen_unif(&st);
		s->drift = 1;
		s->drift_start = cpgen_int(&st, 20, 50);
		s->drift_end = s->drift_start + 30;
		ramp = log1p(0.05) / 30.0;
		break;
	default:
		s->sigma = 0.01 + 0.09 * cpgen_unif(&st);
		break;
	}
	if (s->nsteps && cpgen_unif(&st) < 0.5)
		s->step_log[0] = -s->step_log[0];
	if (s->drift && cpgen_unif(&st) < 0.5)
		ramp = -ramp;
	for (i = 0; i < n; i++) {
		lv[i] = base + s->sigma * cpgen_normal(&st);
		for (k = 0; k < s->nsteps; k++)
			if (i >= s->steps[k])
				lv[i] += s->step_log[k];
		if (s->drift && i >= s->drift_start)
			lv[i] +=
			    ramp * (double)((i < s->drift_end ? i : s->drift_end) - s->drift_start);
		if (kind == CPGEN_MACHINES || same)
			lv[i] += i % 2 ? log(1.25) : 0.0;
	}
	s->n = n;
	if (kind == CPGEN_SPIKES)
		cpgen_spikes(s, lv, &st);
	s->n = 0;
	for (i = 0; i < n; i++) {
		if (same && i % 2)
			continue;
		s->v[s->n].v = exp(lv[i]);
		s->n++;
	}
	if (same)
		s->steps[0] = (s->steps[0] + 1) / 2; /* the first kept run at the new level */
	return 0;
}
