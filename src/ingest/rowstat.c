/*
 * rowstat.c - summary of one (rank, region) row of a profile, computed once
 * at ingest (or when reading a file directly) so that summary metrics never
 * need the per-call data again.
 */
#include <string.h>

#include "scopedb/err.h"
#include "ingest/rowstat.h"

/* Add b to *acc, failing on int64 overflow (hostile files). */
static int add_checked(int64_t *acc, int64_t b)
{
	if ((b > 0 && *acc > INT64_MAX - b) || (b < 0 && *acc < INT64_MIN - b))
		return -1;
	*acc += b;
	return 0;
}

/* Welford's update over d[0..k), continuing m (the checked summary's
 * mean and m2, which keep m2 stable). */
static void spread_welford(struct rowstat_spread *m, const int64_t *d, size_t k)
{
	double mean = m->mean, m2 = m->m2;
	uint64_t i = m->i;
	size_t j;

	for (j = 0; j < k; j++, i++) {
		double v = (double)d[j], delta = v - mean;

		mean += delta / (double)(i + 1);
		m2 += delta * (v - mean);
	}
	m->mean = mean;
	m->m2 = m2;
	m->i = i;
}

/*
 * The fast path's m2 over d[0..k), the row's values m->i onwards: eight
 * independent accumulators around the exact mean, value g going to
 * accumulator g % 8 up to the last whole eight of the row and to the
 * first after that, so that a row summed in stretches gets every
 * accumulator's additions in the same order as in one go.
 */
static void spread_fast(struct rowstat_spread *m, const int64_t *d, size_t k)
{
	double acc[8], mean = m->mean;
	uint64_t g = m->i, n8 = m->n8;
	size_t i = 0, j;

	memcpy(acc, m->acc, sizeof(acc));
	for (; i < k && g % 8 && g < n8; i++, g++) {
		double x = (double)d[i] - mean;

		acc[g % 8] += x * x;
	}
	for (; i + 8 <= k && g + 8 <= n8; i += 8, g += 8)
		for (j = 0; j < 8; j++) {
			double x = (double)d[i + j] - mean;

			acc[j] += x * x;
		}
	for (; i < k; i++, g++) {
		double x = (double)d[i] - mean;

		acc[g < n8 ? g % 8 : 0] += x * x;
	}
	memcpy(m->acc, acc, sizeof(acc));
	m->i = g;
}

void rowstat_spread_add(struct rowstat_spread *m, const int64_t *d, size_t k)
{
	if (m->welford)
		spread_welford(m, d, k);
	else
		spread_fast(m, d, k);
}

void rowstat_spread_end(struct rowstat *out, const struct rowstat_spread *m)
{
	const double *a = m->acc;

	if (m->welford) {
		out->mean = m->mean;
		out->m2 = m->m2;
		return;
	}
	out->mean = m->mean;
	out->m2 = ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7]));
}

/* The second pass of a row of n calls: Welford's, or the fast path's
 * around mean. */
static void spread_init(struct rowstat_spread *m, int welford, double mean, uint64_t n)
{
	memset(m, 0, sizeof(*m));
	m->welford = welford;
	m->mean = welford ? 0.0 : mean;
	m->n8 = n - n % 8;
}

/*
 * The exact, per-element-checked summary: used when the fast path below
 * cannot prove that nothing overflows (negative or huge values, which only
 * hostile or damaged files contain), with Welford's mean and m2.
 */
static int rowstat_checked(struct rowstat *out, const struct h5prof_row *row)
{
	const int64_t *d = row->durations;
	struct rowstat_spread m;
	uint64_t i;

	for (i = 0; i < row->calls; i++) {
		int64_t v = d[i], end = row->starts[i];

		if (add_checked(&out->total, v) || add_checked(&end, v))
			return -1;
		if (v < out->min)
			out->min = v;
		if (v > out->max)
			out->max = v;
		if (row->starts[i] < out->start_min)
			out->start_min = row->starts[i];
		if (end > out->end_max)
			out->end_max = end;
		if (row->gpu && row->gpu[i] >= 0) {
			out->gpu_count++;
			if (add_checked(&out->gpu_total, row->gpu[i]))
				return -1;
		}
	}
	spread_init(&m, 1, 0.0, row->calls);
	spread_welford(&m, d, (size_t)row->calls);
	rowstat_spread_end(out, &m);
	return 0;
}

void rowstat_scan_init(struct rowstat_scan *s)
{
	memset(s, 0, sizeof(*s));
	s->mn = s->smin = INT64_MAX;
	s->mx = s->smax = s->emax = INT64_MIN;
}

/*
 * The fast path's integer part over k calls, folded into s: branch-free
 * loops the compiler vectorises.  Sums are split into 32-bit halves so
 * that no partial sum can overflow (fewer than 2^32 calls); ends are
 * computed with wrapping adds and are right once start_max + max <=
 * INT64_MAX holds.
 */
static void scan_fast(struct rowstat_scan *s, const int64_t *d, const int64_t *st, const int64_t *g,
		      size_t k)
{
	uint64_t lo = s->lo, hi = s->hi, glo = s->glo, ghi = s->ghi, gcount = s->gcount;
	int64_t mn = s->mn, mx = s->mx, smin = s->smin, smax = s->smax, emax = s->emax;
	size_t i;

	for (i = 0; i < k; i++) {
		int64_t v = d[i], x = st[i];
		int64_t e = (int64_t)((uint64_t)x + (uint64_t)v);

		mn = v < mn ? v : mn;
		mx = v > mx ? v : mx;
		smin = x < smin ? x : smin;
		smax = x > smax ? x : smax;
		emax = e > emax ? e : emax;
		lo += (uint64_t)v & 0xffffffffu;
		hi += (uint64_t)v >> 32;
	}
	if (g) {
		for (i = 0; i < k; i++) {
			uint64_t ok = g[i] >= 0;
			uint64_t v = (uint64_t)g[i] & (0 - ok);

			gcount += ok;
			glo += v & 0xffffffffu;
			ghi += v >> 32;
		}
	}
	s->lo = lo;
	s->hi = hi;
	s->glo = glo;
	s->ghi = ghi;
	s->gcount = gcount;
	s->mn = mn;
	s->mx = mx;
	s->smin = smin;
	s->smax = smax;
	s->emax = emax;
	s->n += k;
}

/* Whether the fast path's sums and ends are exact for s's calls; then
 * out's integers and mean are filled from them. */
static int scan_fast_holds(struct rowstat *out, const struct rowstat_scan *s)
{
	if (s->n >= ((uint64_t)1 << 32) || s->mn < 0 ||
	    (s->smax > 0 && s->mx > INT64_MAX - s->smax))
		return 0;
	if (s->lo > (uint64_t)INT64_MAX || s->hi > (uint64_t)INT64_MAX >> 32 ||
	    (s->hi << 32) > (uint64_t)INT64_MAX - s->lo)
		return 0;
	if (s->glo > (uint64_t)INT64_MAX || s->ghi > (uint64_t)INT64_MAX >> 32 ||
	    (s->ghi << 32) > (uint64_t)INT64_MAX - s->glo)
		return 0;
	out->total = (int64_t)((s->hi << 32) + s->lo);
	out->min = s->mn;
	out->max = s->mx;
	out->start_min = s->smin;
	out->end_max = s->emax;
	out->gpu_count = s->gcount;
	out->gpu_total = (int64_t)((s->ghi << 32) + s->glo);
	out->mean = (double)out->total / (double)s->n;
	return 1;
}

/*
 * The fast path (ingest speed, issue 6): scan_fast(), then m2 in a second
 * pass around the exact mean (two-pass variance, at least as accurate as
 * Welford) with independent accumulators.  Returns 1 when a value is out
 * of the fast path's range and the checked loop must run.
 */
static int rowstat_fast(struct rowstat *out, const struct h5prof_row *row)
{
	struct rowstat_scan s;
	struct rowstat_spread m;

	if (row->calls >= ((uint64_t)1 << 32))
		return 1;
	rowstat_scan_init(&s);
	scan_fast(&s, row->durations, row->starts, row->gpu, (size_t)row->calls);
	if (!scan_fast_holds(out, &s))
		return 1;
	spread_init(&m, 0, out->mean, row->calls);
	spread_fast(&m, row->durations, (size_t)row->calls);
	rowstat_spread_end(out, &m);
	return 0;
}

void rowstat_scan_add(struct rowstat_scan *s, const int64_t *d, const int64_t *st, const int64_t *g,
		      size_t k)
{
	size_t i;
	int ovf = s->overflow;

	if (!k)
		return;
	if (!s->n)
		s->first = d[0];
	s->last = d[k - 1];
	/* the checked summary's sums, exact or marked overflowed once any
	 * prefix overflows (as rowstat_checked() stops there) */
	for (i = 0; i < k; i++) {
		int64_t e;

		ovf |= __builtin_add_overflow(s->total, d[i], &s->total);
		ovf |= __builtin_add_overflow(st[i], d[i], &e);
		if (g && g[i] >= 0)
			ovf |= __builtin_add_overflow(s->gtotal, g[i], &s->gtotal);
	}
	s->overflow = ovf;
	scan_fast(s, d, st, g, k);
}

int rowstat_scan_end(struct rowstat *out, struct rowstat_spread *m, const struct rowstat_scan *s,
		     const char *path, uint32_t rank, const char *region_name)
{
	memset(out, 0, sizeof(*out));
	out->calls = s->n;
	out->first = s->first;
	out->last = s->last;
	if (s->overflow)
		return err_set(ERR_FORMAT,
			       "cannot read '%s': rank %u, region '%s': times overflow 64-bit "
			       "nanoseconds",
			       path, rank, region_name);
	if (scan_fast_holds(out, s)) {
		spread_init(m, 0, out->mean, s->n);
		return 0;
	}
	/* what rowstat_checked() finds when nothing overflows */
	out->total = s->total;
	out->min = s->mn;
	out->max = s->mx;
	out->start_min = s->smin;
	out->end_max = s->emax;
	out->gpu_count = s->gcount;
	out->gpu_total = s->gtotal;
	spread_init(m, 1, 0.0, s->n);
	return 0;
}

int rowstat_compute(struct rowstat *out, const struct h5prof_row *row, const char *path,
		    const char *region_name)
{
	memset(out, 0, sizeof(*out));
	out->calls = row->calls;
	if (!row->has_events) {
		out->total = row->agg_total;
		out->min = row->agg_min;
		out->max = row->agg_max;
		if (row->calls)
			out->mean = (double)row->agg_total / (double)row->calls;
		return 0;
	}
	if (row->calls == 0)
		return 0;
	out->first = row->durations[0];
	out->last = row->durations[row->calls - 1];
	if (rowstat_fast(out, row) == 0)
		return 0;
	out->total = 0;
	out->gpu_count = 0;
	out->gpu_total = 0;
	out->min = INT64_MAX;
	out->max = INT64_MIN;
	out->start_min = INT64_MAX;
	out->end_max = INT64_MIN;
	if (rowstat_checked(out, row) == 0)
		return 0;
	return err_set(ERR_FORMAT,
		       "cannot read '%s': rank %u, region '%s': times overflow 64-bit nanoseconds",
		       path, row->rank, region_name);
}
