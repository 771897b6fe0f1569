/*
 * percentile.c - exact order statistics of int64 durations: numpy's
 * default (linear) percentile of a sorted array or of a set of sorted runs
 * (see percentile.h).
 *
 * The arithmetic follows numpy operation by operation (the virtual index,
 * floor, and its _lerp), so that values agree with upstream to the last
 * bit; the metrics (src/analysis/stats.c) and the stored percentiles of a
 * finished run (src/store/finish.c) both use it.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "util/percentile.h"

/*
 * numpy.percentile(d, q) with the default method "linear": the virtual index
 * pos = q/100 * (n-1) is split into lo = floor(pos) and the fraction, and
 * numpy's _lerp(a, b, t) = a + (b-a)*t, computed as b - (b-a)*(1-t) when
 * t >= 0.5 (numpy does the same to stay monotonic).
 */
/* numpy's _lerp between the order statistics a and b at fraction frac. */
static double percentile_lerp(double a, double b, double frac)
{
	double diff = b - a;

	return frac >= 0.5 ? b - diff * (1.0 - frac) : a + diff * frac;
}

void percentile_ranks(uint64_t n, double q, uint64_t *lo, double *frac)
{
	double pos;

	*frac = 0.0;
	if (n <= 1) {
		*lo = 0;
		return;
	}
	pos = q / 100.0 * (double)(n - 1);
	*lo = (uint64_t)floor(pos);
	if (*lo >= n - 1) {
		*lo = n - 1;
		return;
	}
	*frac = pos - (double)*lo;
}

double percentile_at(int64_t a, int64_t b, uint64_t lo, uint64_t n, double frac)
{
	if (n <= 1 || lo >= n - 1)
		return (double)a;
	return percentile_lerp((double)a, (double)b, frac);
}

double percentile_sorted(const int64_t *sorted, size_t n, double q)
{
	uint64_t lo;
	double frac;

	percentile_ranks(n, q, &lo, &frac);
	return percentile_at(sorted[lo], lo + 1 < n ? sorted[lo + 1] : sorted[lo], lo, n, frac);
}

/* Number of values <= x in the ascending run v[0..n) (upper bound). */
static size_t percentile_count_le(const int64_t *v, size_t n, int64_t x)
{
	size_t lo = 0, hi = n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (v[mid] <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Number of values <= x over all runs. */
static size_t percentile_runs_count_le(const int64_t *v, const int64_t *ends, size_t nruns,
				       int64_t x)
{
	size_t i, start = 0, c = 0;

	for (i = 0; i < nruns; i++) {
		size_t end = (size_t)ends[i];

		c += percentile_count_le(v + start, end - start, x);
		start = end;
	}
	return c;
}

/* Runs whose search windows live on the stack in percentile_runs_kth(). */
#define PERCENTILE_RUNS_STACK 256

/*
 * The k-th (0-based) smallest value over the runs, k < total: the least x
 * in [smallest first, largest last] with more than k values <= x.  Each run
 * keeps a window [wlo, whi) of the positions that can still hold values in
 * the current [lo, hi] (before wlo all are < lo, from whi on all are > hi),
 * so the per-run searches shrink with the range.  Without the memory for
 * the windows (many runs, allocation failure) whole runs are searched: the
 * same answer, slower.  *next receives the (k+1)-th smallest value when
 * k + 1 < total (else x).
 */
static int64_t percentile_runs_kth(int64_t *next, const int64_t *v, const int64_t *ends,
				   size_t nruns, size_t k)
{
	size_t stack[3 * PERCENTILE_RUNS_STACK], *w = stack, *heap = NULL;
	size_t i, start = 0, c;
	int64_t lo = INT64_MAX, hi = INT64_MIN, mid, above = INT64_MAX;
	int have_above = 0;

	if (nruns > PERCENTILE_RUNS_STACK) {
		heap = nruns <= SIZE_MAX / (3 * sizeof(*heap)) ? malloc(3 * nruns * sizeof(*heap))
							       : NULL;
		w = heap;
	}
	for (i = 0; i < nruns; i++) {
		size_t end = (size_t)ends[i];

		if (end > start) {
			lo = v[start] < lo ? v[start] : lo;
			hi = v[end - 1] > hi ? v[end - 1] : hi;
		}
		if (w) {
			w[3 * i] = start;
			w[3 * i + 1] = end;
		}
		start = end;
	}
	while (lo < hi) {
		mid = lo + (int64_t)(((uint64_t)hi - (uint64_t)lo) / 2);
		if (!w) {
			c = percentile_runs_count_le(v, ends, nruns, mid);
		} else {
			for (c = 0, i = 0; i < nruns; i++) {
				size_t *r = &w[3 * i];

				/* absolute positions; the count is within the run */
				r[2] = r[0] + percentile_count_le(v + r[0], r[1] - r[0], mid);
				c += r[2] - (i ? (size_t)ends[i - 1] : 0);
			}
		}
		if (c > k) {
			hi = mid;
			for (i = 0; w && i < nruns; i++)
				w[3 * i + 1] = w[3 * i + 2];
		} else {
			lo = mid + 1;
			for (i = 0; w && i < nruns; i++)
				w[3 * i] = w[3 * i + 2];
		}
	}
	free(heap);
	/* lo is the k-th value; the next one is lo again when more than k + 1
	 * values are <= lo, else the least value above lo in any run. */
	c = percentile_runs_count_le(v, ends, nruns, lo);
	*next = lo;
	if (c > k + 1)
		return lo;
	start = 0;
	for (i = 0; i < nruns; i++) {
		size_t end = (size_t)ends[i],
		       j = start + percentile_count_le(v + start, end - start, lo);

		if (j < end && (!have_above || v[j] < above)) {
			above = v[j];
			have_above = 1;
		}
		start = end;
	}
	if (have_above)
		*next = above;
	return lo;
}

double percentile_runs(const int64_t *v, const int64_t *ends, size_t nruns, double q)
{
	size_t n = nruns ? (size_t)ends[nruns - 1] : 0;
	uint64_t lo;
	double frac;
	int64_t a, b;

	percentile_ranks(n, q, &lo, &frac);
	if (n == 1)
		return (double)v[0];
	a = percentile_runs_kth(&b, v, ends, nruns, (size_t)lo);
	return percentile_at(a, b, lo, n, frac);
}

void percentile_runs_stored(double out[3], const int64_t *v, const int64_t *ends, size_t nruns)
{
	static const double levels[3] = {50.0, 95.0, 99.0};
	int k;

	for (k = 0; k < 3; k++)
		out[k] = percentile_runs(v, ends, nruns, levels[k]);
}
