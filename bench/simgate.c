/*
 * simgate.c - the generator and one simulated check (see simgate.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/verdict.h"
#include "simgate.h"

static uint64_t sim_state;

void sim_seed(uint64_t seed)
{
	sim_state = seed;
}

/* splitmix64 */
static uint64_t sim_next(void)
{
	uint64_t z = (sim_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

double sim_unif(void)
{
	return ((double)(sim_next() >> 11) + 0.5) / 9007199254740992.0;
}

double sim_norm(void)
{
	return sqrt(-2.0 * log(sim_unif())) * cos(6.283185307179586 * sim_unif());
}

double sim_t3(void)
{
	double z = sim_norm(), c = 0.0;
	int i;

	for (i = 0; i < 3; i++) {
		double g = sim_norm();

		c += g * g;
	}
	return z / sqrt(c / 3.0);
}

void sim_tally_gate(struct sim_tally *t, const struct sim_outcome *o)
{
	t->trials++;
	t->fail += o->gate == VERDICT_FAIL;
	t->inconclusive += o->gate == VERDICT_INCONCLUSIVE;
	t->pass += o->gate == VERDICT_PASS;
}

int sim_repeat(int (*check)(const void *setting, void *tally), const void *setting, void *tally,
	       size_t size, int trials)
{
	int i;

	memset(tally, 0, size);
	for (i = 0; i < trials; i++)
		if (check(setting, tally))
			return -1;
	return 0;
}

/* Count the runs of ids[0..n) that rej marks as outliers into the table
 * (run id - 1 indexes it), and their log deviations lv[i] - y into dev. */
static void sim_count(int *cnt, int *seen, double *dev, const int64_t *ids,
		      const unsigned char *rej, const double *lv, double y, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (ids[i] < 1 || ids[i] > 1024)
			continue;
		seen[ids[i] - 1]++;
		cnt[ids[i] - 1] += rej[i];
		if (rej[i])
			dev[ids[i] - 1] += lv[i] - y;
	}
}

/* The drop flags of the runs ids[0..n) into d (all 0 without drop). */
static const unsigned char *sim_drops(unsigned char *d, const int64_t *ids, size_t n,
				      const unsigned char *drop)
{
	size_t i;

	for (i = 0; i < n; i++)
		d[i] = drop && ids[i] >= 1 && ids[i] <= 1024 ? drop[ids[i] - 1] : 0;
	return d;
}

/* Both sets' locations of every region into v, the candidate runs drop
 * marks (by id - 1; NULL: none) left out, as check does (compare_stat.c);
 * the runs left out counted into cnt and seen when not NULL. */
static void sim_locate(struct verdict_region *v, const struct sim_region *r, size_t n,
		       const unsigned char *drop, int *cnt, int *seen, double *dev)
{
	double tmp[3072], lb[1024], lc[1024];
	unsigned char rej[1024], d[1024];
	size_t i, k;

	for (i = 0; i < n; i++) {
		for (k = 0; k < r[i].nbase; k++)
			lb[k] = log(r[i].base[k]);
		for (k = 0; k < r[i].ncand; k++)
			lc[k] = log(r[i].cand[k]);
		v[i].ybase =
		    verdict_location(lb, r[i].nbase, v[i].noise.sigma, NULL, rej, &v[i].nbase, tmp);
		if (cnt)
			sim_count(cnt, seen, dev, r[i].base_ids, rej, lb, v[i].ybase, r[i].nbase);
		v[i].ycand = verdict_location(lc, r[i].ncand, v[i].noise.sigma,
					      sim_drops(d, r[i].cand_ids, r[i].ncand, drop), rej,
					      &v[i].ncand, tmp);
		if (cnt)
			sim_count(cnt, seen, dev, r[i].cand_ids, rej, lc, v[i].ycand, r[i].ncand);
	}
}

/* The candidate runs (the repetitions of one commit, the same in every
 * region) to leave out of every region (verdict_drop_runs()) into drop,
 * by id - 1: how many. */
static size_t sim_drop_runs(unsigned char *drop, const struct sim_region *r, const int *cnt,
			    const int *seen, const double *devs)
{
	size_t rej[1024], tested[1024], k, ndrop;
	double dev[1024];
	unsigned char d[1024];
	const int64_t *ids = r[0].cand_ids;

	memset(drop, 0, 1024);
	for (k = 0; k < r[0].ncand; k++) {
		int ok = ids[k] >= 1 && ids[k] <= 1024;

		rej[k] = ok ? (size_t)cnt[ids[k] - 1] : 0;
		tested[k] = ok ? (size_t)seen[ids[k] - 1] : 0;
		dev[k] = ok ? devs[ids[k] - 1] : 0.0;
	}
	ndrop = verdict_drop_runs(d, rej, tested, dev, r[0].ncand);
	for (k = 0; k < r[0].ncand; k++)
		if (d[k])
			drop[ids[k] - 1] = d[k];
	return ndrop;
}

int sim_check(struct sim_outcome *out, const struct sim_region *r, size_t n, double budget)
{
	struct verdict_region v[64];
	double lh[1024], tmp[1024];
	static int cnt[1024], seen[1024];
	static double dev[1024];
	static unsigned char drop[1024];
	size_t i, k, h;
	int fail = 0, undecided = 0, best = 0;

	memset(out, 0, sizeof(*out));
	memset(cnt, 0, sizeof(cnt));
	memset(seen, 0, sizeof(seen));
	memset(dev, 0, sizeof(dev));
	if (n > 64)
		return -1;
	for (i = 0; i < n; i++) {
		memset(&v[i], 0, sizeof(v[i]));
		h = r[i].nhist < VERDICT_HISTORY ? r[i].nhist : VERDICT_HISTORY;
		for (k = 0; k < h; k++)
			lh[k] = log(r[i].hist[r[i].nhist - h + k]);
		if (verdict_noise_estimate(&v[i].noise, lh, h, 0.0, tmp))
			return -1;
	}
	if (verdict_pool(v, n, NULL))
		return -1;
	sim_locate(v, r, n, NULL, cnt, seen, dev);
	/* outlier repetitions in most regions: out of all of them */
	if (n && sim_drop_runs(drop, r, cnt, seen, dev))
		sim_locate(v, r, n, drop, NULL, NULL, NULL);
	for (i = 0; i < n; i++)
		verdict_region(&v[i]);
	if (verdict_decide(v, n, budget))
		return -1;
	for (i = 0; i < n; i++) {
		out->call[i] = v[i].call;
		fail |= v[i].call == VERDICT_CALL_REGRESSED;
		undecided |= v[i].call == VERDICT_CALL_INCONCLUSIVE;
	}
	/* the run left out in most regions, when in at least half of them */
	for (i = 0; i < 1024; i++)
		if (verdict_outlier_run((size_t)cnt[i], (size_t)seen[i]) && cnt[i] > best) {
			best = cnt[i];
			out->outlier_run = (int64_t)i + 1;
		}
	out->gate = fail ? VERDICT_FAIL : undecided ? VERDICT_INCONCLUSIVE : VERDICT_PASS;
	return 0;
}
