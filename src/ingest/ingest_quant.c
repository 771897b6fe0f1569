/*
 * ingest_quant.c - each region's exact percentiles computed from the
 * reader child's frames while the rows are written (ingest_quant.h).
 *
 * The rows are walked in the order they are stored (c->order: region by
 * region), and each region's blobs decoded next to each other as the
 * sorted runs percentile_runs_stored() selects across, exactly as
 * finish.c does from the same bytes: the same values, the same runs in
 * the same order, so the same numbers.  A region's values are counted
 * from the blobs' headers first, so its buffer is reserved once at its
 * size (8 bytes a call of its largest region, as finish.c's).  A region
 * of more values than IQ_DECODE_MAX (2^24, 128 MB decoded) is not
 * decoded: its six order statistics are found by a merge of its blobs
 * that reads a value at a time (store_select_durations()), the same values
 * by another way, in memory for a cursor a row (a region of 100M calls
 * would take 800 MB).  The merge is slower than a decode over many rows (a
 * heap of one cursor a row: about twice the time for 4,096 rows), so
 * smaller regions are decoded.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/ingest_ctx.h"
#include "ingest/ingest_quant.h"
#include "scopedb/util.h"
#include "util/percentile.h"

/* Regions of more values than this are selected by a merge, not decoded. */
#define IQ_DECODE_MAX ((uint64_t)1 << 24)

static uint64_t iq_decode_max = IQ_DECODE_MAX; /* testing hooks */
static atomic_uint_fast64_t iq_merged;

uint64_t ingest_quant_testing_merged(void)
{
	return atomic_exchange(&iq_merged, 0);
}

void ingest_quant_testing_decode_max(uint64_t n)
{
	iq_decode_max = n ? n : IQ_DECODE_MAX;
}

/* Row i of c->order (its region and its blob in *t), or -1 when its frame
 * does not decode (it was checked as it came: never, but not assumed). */
static int iq_row(const struct ingest_ctx *c, size_t i, struct store_timing *t, uint32_t *region)
{
	size_t pos = c->order[i];
	struct wire_frame f;

	if (!wire_next(c->frames.data, c->frames.len, &pos, &f) ||
	    wire_get_row(t, region, &f, c->info->num_regions))
		return -1;
	return 0;
}

/*
 * The percentiles of region, n values in the blobs of rows c->order[from,
 * to), by a merge of the blobs (store_select_durations()): the order
 * statistics percentile_ranks() names for each level, then
 * percentile_at(), as percentile_runs_stored() computes them from the
 * decoded runs.  Its nruns stays 0 when a blob does not decode.  -1 when
 * memory ran out.
 */
static int iq_merge(struct ingest_quant *iq, uint32_t region, size_t from, size_t to, uint64_t n)
{
	static const double levels[3] = {50.0, 95.0, 99.0};
	const struct ingest_ctx *c = iq->c;
	const void **data = calloc(to - from, sizeof(*data));
	size_t *lens = calloc(to - from, sizeof(*lens)), nb = 0, i;
	uint64_t lo[3], ranks[6], r;
	int64_t at[6], v[6];
	double frac[3];
	int slot[6], k, j, rc = -1;

	if (!data || !lens)
		goto out;
	for (i = from; i < to; i++) {
		struct store_timing t;
		uint32_t reg;

		if (iq_row(c, i, &t, &reg))
			goto out;
		if (!t.durations)
			continue;
		data[nb] = t.durations;
		lens[nb++] = t.durations_len;
	}
	/* the six ranks in ascending order, slot[] saying whose each is */
	for (k = 0; k < 6; k++) {
		if (k < 3)
			percentile_ranks(n, levels[k], &lo[k], &frac[k]);
		r = k < 3 ? lo[k] : (lo[k - 3] + 1 < n ? lo[k - 3] + 1 : lo[k - 3]);
		for (j = k; j > 0 && ranks[j - 1] > r; j--) {
			ranks[j] = ranks[j - 1];
			slot[j] = slot[j - 1];
		}
		ranks[j] = r;
		slot[j] = k;
	}
	rc = 0;
	if (store_select_durations(at, ranks, 6, data, lens, nb))
		goto out; /* left to store_finish_run_from() */
	for (k = 0; k < 6; k++)
		v[slot[k]] = at[k];
	for (k = 0; k < 3; k++)
		iq->q[3 * (size_t)region + (size_t)k] =
		    percentile_at(v[k], v[k + 3], lo[k], n, frac[k]);
	iq->nvals[region] = n;
	iq->nruns[region] = nb;
	atomic_fetch_add(&iq_merged, 1);
out:
	free(data);
	free(lens);
	return rc;
}

/*
 * The percentiles of the region of row c->order[from], whose rows run to
 * *to (found here), into iq's arrays (vals and ends are scratch): its
 * nruns stays 0 when a blob does not decode, and store_finish_run_from()
 * then does it.  -1 when memory ran out or a row frame does not decode.
 */
static int iq_region(struct ingest_quant *iq, size_t from, size_t *to, struct i64vec *vals,
		     struct i64vec *ends)
{
	const struct ingest_ctx *c = iq->c;
	struct store_timing t;
	uint64_t n = 0, k;
	uint32_t region, r;
	size_t i;
	int bad = 0;

	if (iq_row(c, from, &t, &region))
		return -1;
	/* the region's rows, and its values by the blobs' headers (each at
	 * most its blob's length: no overflow) */
	for (i = from; i < c->norder; i++) {
		if (iq_row(c, i, &t, &r))
			return -1;
		if (r != region)
			break;
		if (!t.durations || bad)
			continue;
		if (store_count_durations(&k, t.durations, t.durations_len))
			bad = 1;
		else
			n += k;
	}
	*to = i;
	vals->len = ends->len = 0;
	if (bad)
		return 0;
	if (n > iq_decode_max)
		return iq_merge(iq, region, from, *to, n);
	if (n > SIZE_MAX / sizeof(int64_t) || i64vec_reserve_exact(vals, (size_t)n))
		return -1;
	for (i = from; i < *to; i++) {
		if (iq_row(c, i, &t, &r))
			return -1;
		if (!t.durations)
			continue;
		if (store_decode_durations(vals, t.durations, t.durations_len))
			return 0;
		if (i64vec_push(ends, (int64_t)vals->len))
			return -1;
	}
	/* a region of no call (each of its rows' blobs empty) has none:
	 * store_finish_run_from() asks for none either */
	if (!ends->len || !vals->len)
		return 0;
	percentile_runs_stored(iq->q + 3 * (size_t)region, vals->v, ends->v, ends->len);
	iq->nvals[region] = vals->len;
	iq->nruns[region] = ends->len;
	return 0;
}

/* The thread: every region in turn, until done, told to stop, or out of
 * memory (the regions not done are then store_finish_run_from()'s). */
static void *iq_main(void *arg)
{
	struct ingest_quant *iq = arg;
	struct i64vec vals, ends;
	size_t i = 0, next;

	i64vec_init(&vals);
	i64vec_init(&ends);
	while (i < iq->c->norder && !atomic_load(&iq->stop)) {
		if (iq_region(iq, i, &next, &vals, &ends))
			break;
		i = next;
	}
	i64vec_release(&vals);
	i64vec_release(&ends);
	return NULL;
}

void ingest_quant_start(struct ingest_quant *iq, const struct ingest_ctx *c)
{
	size_t n = c->info->num_regions ? c->info->num_regions : 1;

	memset(iq, 0, sizeof(*iq));
	atomic_init(&iq->stop, 0);
	iq->c = c;
	iq->q = malloc(3 * n * sizeof(*iq->q));
	iq->nvals = calloc(n, sizeof(*iq->nvals));
	iq->nruns = calloc(n, sizeof(*iq->nruns));
	if (iq->q && iq->nvals && iq->nruns && c->norder &&
	    pthread_create(&iq->thread, NULL, iq_main, iq) == 0)
		iq->started = 1;
}

void ingest_quant_join(struct ingest_quant *iq, int stop)
{
	if (!iq || !iq->started)
		return;
	if (stop)
		atomic_store(&iq->stop, 1);
	pthread_join(iq->thread, NULL);
	iq->started = 0;
}

int ingest_quant_each(const struct ingest_quant *iq, store_quantile_fn fn, void *arg)
{
	const struct ingest_ctx *c = iq->c;
	size_t r;
	int rc = 0;

	if (iq->started || !iq->nruns)
		return 0;
	for (r = 0; !rc && r < c->info->num_regions; r++)
		if (iq->nruns[r] && c->region_ids[r])
			rc = fn(arg, c->region_ids[r], iq->q + 3 * r, iq->nvals[r], iq->nruns[r]);
	return rc;
}

void ingest_quant_release(struct ingest_quant *iq)
{
	if (!iq)
		return;
	ingest_quant_join(iq, 1);
	free(iq->q);
	free(iq->nvals);
	free(iq->nruns);
	memset(iq, 0, sizeof(*iq));
}
