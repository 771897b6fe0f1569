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
 * (run id - 1 indexes it). */
static void sim_count(int *cnt, int *seen, const int64_t *ids, const unsigned char *rej, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (ids[i] < 1 || ids[i] > 1024)
			continue;
		seen[ids[i] - 1]++;
		cnt[ids[i] - 1] += rej[i];
	}
}

int sim_check(struct sim_outcome *out, const struct sim_region *r, size_t n, double budget)
{
	struct verdict_region v[64];
	double lh[1024], tmp[1024], lb[1024], lc[1024];
	unsigned char rej[1024];
	static int cnt[1024], seen[1024];
	size_t i, k, h;
	int fail = 0, undecided = 0, best = 0;

	memset(out, 0, sizeof(*out));
	memset(cnt, 0, sizeof(cnt));
	memset(seen, 0, sizeof(seen));
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
	for (i = 0; i < n; i++) {
		for (k = 0; k < r[i].nbase; k++)
			lb[k] = log(r[i].base[k]);
		for (k = 0; k < r[i].ncand; k++)
			lc[k] = log(r[i].cand[k]);
		v[i].ybase =
		    verdict_location(lb, r[i].nbase, v[i].noise.sigma, rej, &v[i].nbase, tmp);
		sim_count(cnt, seen, r[i].base_ids, rej, r[i].nbase);
		v[i].ycand =
		    verdict_location(lc, r[i].ncand, v[i].noise.sigma, rej, &v[i].ncand, tmp);
		sim_count(cnt, seen, r[i].cand_ids, rej, r[i].ncand);
		verdict_region(&v[i]);
	}
	if (verdict_decide(v, n, budget))
		return -1;
	for (i = 0; i < n; i++) {
		out->call[i] = v[i].call;
		fail |= v[i].call == VERDICT_CALL_REGRESSED;
		undecided |= v[i].call == VERDICT_CALL_INCONCLUSIVE;
	}
	/* the run left out in most regions, when in at least half of them */
	for (i = 0; i < 1024; i++)
		if (seen[i] && 2 * cnt[i] >= seen[i] && cnt[i] > best) {
			best = cnt[i];
			out->outlier_run = (int64_t)i + 1;
		}
	out->gate = fail ? VERDICT_FAIL : undecided ? VERDICT_INCONCLUSIVE : VERDICT_PASS;
	return 0;
}
