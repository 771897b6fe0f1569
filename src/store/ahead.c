/*
 * ahead.c - what the front end reads ahead inside a read snapshot of a
 * backend where each statement costs a round trip (STORE_READ_AHEAD: the
 * PostgreSQL one), to spare round trips: a query to a server costs a
 * round trip and its parse and plan, which SQLite, in the process, does
 * not pay.  See front.h.
 *
 * Runs: a run is read with its tags and its metadata in one statement
 * (RUN_ALL) when its id is resolved or the run is asked for; the caller
 * then takes the run (store_get_run()) and the metadata (store_get_meta())
 * from here, each once.  A diff of two stored runs makes 2 queries
 * instead of 6.
 *
 * Durations: summary_run() (src/analysis/summary.c) asks
 * store_region_durations() region after region for the regions that
 * store_region_stats() has just returned.  store_region_stats() records
 * those regions (ahead_blobs_expect()); then one statement (AHEAD_BLOBS)
 * reads the blobs of AHEAD_BLOB_CHUNK of them, instead of one statement
 * per region.  A region asked for out of that plan is read alone, as
 * before, so this changes the number of statements, never a result.
 *
 * Both are valid only inside the read snapshot store_read_begin()
 * started (st->reading), where nothing the connection reads can change;
 * they are dropped when it ends and before any transaction.
 */
#include <stdlib.h>
#include <string.h>

#include "scopedb/err.h"
#include "scopedb/store.h"
#include "scopedb/util.h"
#include "store/front.h"
#include "store/rows.h"

static void blobs_release(struct ahead_blobs *b)
{
	struct buf arena = b->arena;

	free(b->ranks);
	free(b->order);
	free(b->pos);
	free(b->rows);
	arena.len = 0;
	memset(b, 0, sizeof(*b));
	b->arena = arena; /* kept for the next chunk */
}

void ahead_drop(struct store *st)
{
	size_t i;

	for (i = 0; i < st->nruns; i++) {
		store_run_release(&st->runs[i].run);
		store_meta_release(&st->runs[i].meta);
	}
	memset(st->runs, 0, sizeof(st->runs));
	st->nruns = 0;
	blobs_release(&st->blobs);
}

/* ---- runs ---------------------------------------------------------------- */

/* The column of RUN_ALL after the run's: the kind of the row. */
#define RUN_ALL_KIND 13

/* A row of RUN_ALL into the run (the first), its tags and its metadata
 * (struct ahead_run: has_run says there was a row). */
static int run_all_row(void *ctx, const struct rows_row *r)
{
	struct ahead_run *e = ctx;
	const char *tag;
	int ret;

	if (!e->has_run) {
		e->has_run = 1;
		ret = rows_run(&e->run, r);
		if (ret)
			return ret;
	}
	if (r->ops->null(r, RUN_ALL_KIND))
		return 0;
	if (r->ops->i64(r, RUN_ALL_KIND) != 0)
		return store_meta_row(&e->meta, r, RUN_ALL_KIND + 1);
	tag = r->ops->text(r, RUN_ALL_KIND + 1);
	return tag ? rows_add_tag(&e->run, tag) : err_nomem();
}

int ahead_fetch_run(struct store *st, struct store_run *run, struct store_meta *meta, int *found,
		    int64_t id)
{
	struct ahead_run e;
	struct store_value v = sql_int(id);
	int ret;

	memset(&e, 0, sizeof(e));
	ret = store_sql_run(st, SQL_RUN_ALL, &v, 1, run_all_row, &e, NULL);
	if (ret) { /* each left zeroed */
		store_run_release(&e.run);
		store_meta_release(&e.meta);
	}
	*found = !ret && e.has_run;
	*run = e.run;
	*meta = e.meta;
	return ret;
}

static struct ahead_run *run_find(struct store *st, int64_t id)
{
	size_t i;

	for (i = 0; i < st->nruns; i++)
		if (st->runs[i].id == id)
			return &st->runs[i];
	return NULL;
}

void ahead_keep(struct store *st, int64_t id, struct store_run *run, struct store_meta *meta)
{
	struct ahead_run *e = run_find(st, id);

	if (!st->reading || !(st->be->caps & STORE_READ_AHEAD) || (!run && !meta))
		goto out;
	if (!e) {
		if (st->nruns == AHEAD_RUNS) {
			/* the oldest goes */
			store_run_release(&st->runs[0].run);
			store_meta_release(&st->runs[0].meta);
			memmove(st->runs, st->runs + 1, (st->nruns - 1) * sizeof(st->runs[0]));
			st->nruns--;
		}
		e = &st->runs[st->nruns++];
		memset(e, 0, sizeof(*e));
		e->id = id;
	}
	if (run) {
		store_run_release(&e->run);
		e->run = *run;
		e->has_run = 1;
		memset(run, 0, sizeof(*run));
	}
	if (meta) {
		store_meta_release(&e->meta);
		e->meta = *meta;
		e->has_meta = 1;
		memset(meta, 0, sizeof(*meta));
	}
	return;
out:
	store_run_release(run);
	store_meta_release(meta);
}

int ahead_take(struct store *st, struct store_run *run, struct store_meta *meta, int64_t id)
{
	struct ahead_run *e = st->reading ? run_find(st, id) : NULL;

	if (!e || (run && !e->has_run) || (meta && !e->has_meta))
		return 0;
	if (run) {
		*run = e->run;
		memset(&e->run, 0, sizeof(e->run));
		e->has_run = 0;
	}
	if (meta) {
		*meta = e->meta;
		memset(&e->meta, 0, sizeof(e->meta));
		e->has_meta = 0;
	}
	return 1;
}

/* ---- durations ------------------------------------------------------------ */

/* Whether the rank sets a and b (NULL: all ranks) are the same. */
static int same_ranks(const int64_t *a, size_t na, const int64_t *b, size_t nb)
{
	if (!a || !b)
		return !a && !b;
	return na == nb && (!na || !memcmp(a, b, na * sizeof(*a)));
}

void ahead_blobs_expect(struct store *st, int64_t run_id, const int64_t *ranks, size_t nranks,
			const struct store_region_stats *regs, size_t n)
{
	struct ahead_blobs *b = &st->blobs;
	size_t i, len = 0;

	blobs_release(b);
	if (!st->reading || !n)
		return;
	b->order = malloc(n * sizeof(*b->order));
	b->pos = malloc(n * sizeof(*b->pos));
	b->ranks = ranks ? malloc((nranks ? nranks : 1) * sizeof(*b->ranks)) : NULL;
	if (!b->order || !b->pos || (ranks && !b->ranks)) {
		/* only a cache: without it every region is read alone */
		blobs_release(b);
		return;
	}
	if (ranks && nranks)
		memcpy(b->ranks, ranks, nranks * sizeof(*ranks));
	b->nranks = nranks;
	/* the regions summary_run() asks durations for */
	for (i = 0; i < n; i++)
		if (regs[i].has_events && regs[i].calls > 0) {
			b->order[len] = regs[i].region_id;
			b->pos[len].id = regs[i].region_id;
			b->pos[len].idx = len;
			len++;
		}
	qsort(b->pos, len, sizeof(*b->pos), rows_series_cmp_key);
	b->n = len;
	b->run_id = run_id;
}

/* A row of AHEAD_BLOBS: its region and a copy of its blob in the arena. */
static int blob_row(void *ctx, const struct rows_row *r)
{
	struct ahead_blobs *b = ctx;
	struct ahead_blob *row = util_push(&b->rows, &b->caprows, &b->nrows, sizeof(*row));
	const void *data;
	size_t len;
	int ret;

	if (!row)
		return ERR_NOMEM;
	row->region_id = r->ops->i64(r, 0);
	row->absent = r->ops->null(r, 1);
	if (row->absent)
		return 0;
	ret = r->ops->blob(r, 1, &data, &len);
	row->off = b->arena.len;
	row->len = len;
	return ret ? ret : len ? buf_add(&b->arena, data, len) : 0;
}

/* The blobs of order[from..from + AHEAD_BLOB_CHUNK) in one statement. */
static int blobs_load(struct store *st, size_t from)
{
	struct ahead_blobs *b = &st->blobs;
	size_t to = b->n - from > AHEAD_BLOB_CHUNK ? from + AHEAD_BLOB_CHUNK : b->n;
	struct store_value v[] = {sql_int(b->run_id), sql_ids(b->order + from, to - from),
				  sql_ids(b->ranks, b->nranks)};
	int ret;

	b->nrows = 0;
	b->arena.len = 0;
	b->lo = b->hi = 0;
	ret = store_sql_run(st, SQL_AHEAD_BLOBS, v, 3, blob_row, b, NULL);
	if (ret) {
		b->nrows = 0;
		return ret;
	}
	b->lo = from;
	b->hi = to;
	return 0;
}

/* The first row of region (rows are by region id), or nrows when none. */
static size_t blobs_first_row(const struct ahead_blobs *b, int64_t region)
{
	size_t lo = 0, hi = b->nrows, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (b->rows[mid].region_id < region)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int ahead_blobs_get(struct store *st, int *hit, struct i64vec *out, struct i64vec *ends,
		    int64_t run_id, int64_t region_id, const int64_t *ranks, size_t nranks)
{
	struct ahead_blobs *b = &st->blobs;
	size_t idx, row;
	int ret = 0;

	*hit = 0;
	if (!st->reading || !b->n || b->run_id != run_id ||
	    !same_ranks(b->ranks, b->nranks, ranks, nranks))
		return 0;
	idx = rows_series_find(b->pos, b->n, region_id);
	if (idx == SIZE_MAX)
		return 0;
	*hit = 1;
	if (b->hi == 0 || idx < b->lo || idx >= b->hi)
		ret = blobs_load(st, idx);
	for (row = ret ? b->nrows : blobs_first_row(b, region_id);
	     !ret && row < b->nrows && b->rows[row].region_id == region_id; row++) {
		if (b->rows[row].absent)
			continue;
		ret =
		    rows_decode_blob(out, b->rows[row].len ? b->arena.data + b->rows[row].off : "",
				     b->rows[row].len, st->location, run_id);
		if (!ret && ends)
			ret = i64vec_push(ends, (int64_t)out->len);
	}
	return ret;
}
