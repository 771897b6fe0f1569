/*
 * cpgen.h - a seeded generator of region histories with planted change
 * points, for the accuracy benchmark of "scopedb changes" (bench/cpbench.c)
 * and its small seeded version in the unit tests (tests/test_changepoint.c).
 *
 * A series is n runs of one region: a base value, log-normal noise of
 * 1-10 % (sigma drawn per series), 0-3 planted steps of +-3 % to +-30 %
 * at least CPGEN_GAP runs apart and from the ends, sometimes a slow drift
 * (a linear ramp of 3-15 % over 20-40 runs, away from the steps) and
 * single-run spikes (3 % of the runs, +20 % to +200 % or -15 % to -50 %,
 * never next to a step or another spike).  The same seed always gives the
 * same series (xorshift64*).
 *
 * cpgen_score() compares detected change points with the planted ones as
 * issue 15 defines: a detection counts when the planted step's first run
 * lies within one run of the runs it names as where the change may be,
 * (before, after] (a clear step names one run; issue 23 made a small one
 * name the few runs it may lie in); true_pos_at counts those within one
 * run of the likeliest run, at; recall is measured over the steps at
 * least 3 times the noise; a spike is reported when a detection that
 * matches no step has its likeliest run at it or just after it.  Provisional change
 * points (a step in the newest runs) are not scored.
 *
 * Ownership: struct cpgen_series owns its arrays (cpgen_release()).
 */
#ifndef SCOPEDB_BENCH_CPGEN_H
#define SCOPEDB_BENCH_CPGEN_H

#include <stddef.h>
#include <stdint.h>

#include "scopedb/changepoint.h"
#include "scopedb/model.h"

#define CPGEN_MAX_STEPS 3
#define CPGEN_GAP 10

struct cpgen_series {
	size_t n;
	struct stats_val *v;		  /* the values, all > 0 */
	size_t steps[CPGEN_MAX_STEPS];	  /* first run after each step */
	double step_log[CPGEN_MAX_STEPS]; /* log of the step's factor */
	size_t nsteps;
	size_t *spikes; /* runs that are spikes */
	size_t nspikes;
	double sigma;		       /* log-normal noise of the series */
	int drift;		       /* 1 when the series has a drift: */
	size_t drift_start, drift_end; /* from run drift_start to drift_end */
};

/* Counts over any number of series (zero it first). */
struct cpgen_score {
	size_t detected;	/* change points reported */
	size_t true_pos;	/* of which at a planted step (within one run) */
	size_t true_pos_at;	/* of which their likeliest run within one run */
	size_t steps;		/* planted steps */
	size_t steps_found;	/* of which matched */
	size_t big_steps;	/* planted steps >= 3 sigma */
	size_t big_found;	/* of which matched */
	size_t spikes;		/* planted spikes */
	size_t spikes_reported; /* of which reported as change points */
	size_t drift_series;	/* series with a drift */
	size_t drift_found;	/* of which reported (one change per drift) */
	size_t drift_false;	/* more detections within 2 runs of a drift */
	size_t other_false;	/* other false detections (not at a spike) */
};

/*
 * The histories of issue 23 (100 runs each, deterministic for a seed and
 * index), for bench_changes --scenarios and tests/test_changepoint.c:
 *
 *   CPGEN_SMALL      one step of 1.5 to 2 noise units (sigma 2-10 %) at a
 *                    run between 20 and 80
 *   CPGEN_MACHINES   two machine types alternating run by run (the second
 *                    25 % slower), 3 % noise, one step of +-10 % at a run
 *                    between 20 and 80
 *   CPGEN_MACHINES_SAME  the same series, only the first machine's runs
 *                    (what --same hostname keeps)
 *   CPGEN_NEWEST1..3 a step of at least 3 % and 3 noise units (sigma
 *                    1-6 %), up to 30 %, in the newest run, the two or
 *                    the three newest runs
 *   CPGEN_SPIKES     3 % of the runs spikes (+20 % to +200 %, or -15 % to
 *                    -50 %), nothing else
 *   CPGEN_DRIFT      a slow drift of +-5 % over 30 runs (noise 1-3 %)
 *   CPGEN_FLAT       noise of 1-10 % alone
 */
enum cpgen_kind {
	CPGEN_SMALL,
	CPGEN_MACHINES,
	CPGEN_MACHINES_SAME,
	CPGEN_NEWEST1,
	CPGEN_NEWEST2,
	CPGEN_NEWEST3,
	CPGEN_SPIKES,
	CPGEN_DRIFT,
	CPGEN_FLAT,
	CPGEN_NKINDS
};
int cpgen_scenario(struct cpgen_series *s, enum cpgen_kind kind, uint64_t seed, uint64_t index);

/* Series number index of the benchmark with seed (deterministic), n >= 4 *
 * CPGEN_GAP runs.  0 or ERR_NOMEM. */
int cpgen_series(struct cpgen_series *s, uint64_t seed, uint64_t index, size_t n);
void cpgen_release(struct cpgen_series *s);

/* Add the comparison of the detections c[0..nc) of s to sc. */
void cpgen_score(struct cpgen_score *sc, const struct cpgen_series *s, const struct changepoint *c,
		 size_t nc);

#endif
