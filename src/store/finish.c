/*
 * finish.c - a run's all-ranks totals and exact percentiles, at the end of
 * its ingest (store_finish_run_from()), or of a push or pull or in a
 * schema upgrade (store_finish_run(); store.h, finish.h).  Part of the
 * store's front end, outside every backend.
 *
 * The front end holds each region's totals over all ranks (totals.c) and
 * the paths of the run's call tree (paths.c) while the run's rows are
 * written; this file adds the exact p50/p95/p99 of the regions with
 * per-call data and of the paths, from the stored blobs, then has the
 * totals and the paths written once, percentiles and all
 * (store_totals_put(), store_put_held_paths()).  It reads the store
 * through the backend-neutral calls of store.h (store_scan_blobs(),
 * store_scan_path_blobs()) and front.h, so every backend shares it.
 *
 * A region's blobs are spread over the whole run (files list ranks first),
 * so fetching them region by region would read every page of the run once
 * per region (3.7 s on the large profile with its 1,024 ranks).  Instead
 * the blobs are copied in one pass, in storage order, into a spool of at
 * most FINISH_SPOOL_BYTES (a medium or large run fits whole); a bigger run
 * is done in batches of regions sized from the bytes per call seen so far,
 * and a region that does not fit the spool by itself is read on its own
 * (finish_region_alone()).  The percentiles of a batch are computed on two
 * threads (but for those a blob source gave, below); only the calling
 * thread uses the store (the second one gets the
 * store's location for its messages in its job).  Then the same for each
 * path of the run's call tree (finish_paths()), from the spool when it
 * holds the whole run; a path that has all of its region's calls (a
 * region called from one place) takes the region's percentiles as they
 * are (finish_path_flush()).
 *
 * Ingest has every blob of the run it has just written in memory, in the
 * frames its reader sent: store_finish_run_from() takes them from there
 * (a struct store_blob_source) instead of reading them back, as one batch
 * with no spool.  The same percentiles, from the same bytes, without a
 * second copy of the run's blobs (the large profile's ingest peaked at
 * 327 MB with it) or a read of them inside the write transaction; the
 * (path, rank) rows, with the paths' own blobs, are still read from the
 * store (store_scan_path_blobs()).  Ingest also computes the regions'
 * percentiles from those blobs while it writes the rows (the source's
 * quantiles()): a region whose numbers of values and runs match its
 * totals takes them (finish_take()), and only the others are computed
 * here.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scopedb/err.h"
#include "scopedb/store.h"
#include "scopedb/util.h"
#include "store/blob.h"
#include "store/finish.h"
#include "store/front.h"
#include "util/percentile.h"

/* Encoded blobs held at once by store_finish_run(). */
#define FINISH_SPOOL_BYTES ((size_t)128 << 20)

/* The spool size in use (testing hook: finish_set_spool_bytes()). */
static size_t finish_spool = FINISH_SPOOL_BYTES;

void finish_set_spool_bytes(size_t n)
{
	finish_spool = n ? n : FINISH_SPOOL_BYTES;
}

/* One region of store_finish_run(). */
struct finish_region {
	struct store_region_total *t; /* its totals, to be written */
	int64_t id;
	size_t calls, rows; /* from the run's totals */
	size_t first, nrec; /* its blobs in the batch (finish_batch_quantiles()) */
};

/* One blob of a batch, found by finish_scan(). */
struct finish_rec {
	const char *data; /* in the spool, or the caller's (a held source) */
	uint32_t len;	  /* bytes */
	uint32_t region;  /* index in the batch */
	int64_t rank;	  /* of its timings row */
};

/* The blobs of one batch of regions, in the order they were read. */
struct finish_batch {
	struct finish_region *r; /* the batch's regions, sorted by id */
	size_t n;
	char *spool; /* finish_spool bytes of scratch memory (none with src) */
	const struct store_blob_source *src; /* the caller's blobs, or NULL */
	size_t used;
	struct finish_rec *recs;
	size_t nrecs, caprecs;
	uint64_t values; /* durations in the spool */
	double *q;	 /* 3 per region: their percentiles, once computed */
};

/* finish_scan(): the batch does not fit in the spool. */
#define FINISH_OVERFLOW 1

static int cmp_finish_region(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = ((const struct finish_region *)b)->id;

	return (x > y) - (x < y);
}

/* Blob damage found by store_finish_run(); location is the store's. */
static int finish_damaged(const char *location, int64_t run_id)
{
	if (err_code() == ERR_NOMEM)
		return ERR_NOMEM;
	return err_set(ERR_STORE,
		       "store '%s' is damaged: the call durations of run %lld do not match its "
		       "timings",
		       location, (long long)run_id);
}

/* The scan of one batch: its spool, and the store's location and the run
 * (for messages). */
struct finish_scan_ctx {
	struct finish_batch *b;
	const char *location;
	int64_t run_id;
};

/* store_scan_blobs() callback: copy a blob of one of the batch's regions
 * into the spool (FINISH_OVERFLOW when it does not fit), or note where it
 * is when the caller holds it (b->src). */
static int finish_scan_blob(void *arg, int64_t region, int64_t rank, const void *data, size_t len)
{
	struct finish_scan_ctx *sc = arg;
	struct finish_batch *b = sc->b;
	struct finish_region *g;
	struct finish_rec *rec;
	uint64_t count;

	g = bsearch(&region, b->r, b->n, sizeof(*b->r), cmp_finish_region);
	if (!g)
		return 0;
	if (!b->src && len > finish_spool - b->used)
		return FINISH_OVERFLOW;
	if (len > UINT32_MAX || blob_count(&count, data, len))
		return finish_damaged(sc->location, sc->run_id);
	if (util_grow(&b->recs, &b->caprecs, b->nrecs + 1, sizeof(*b->recs), 1024))
		return ERR_NOMEM;
	rec = &b->recs[b->nrecs++];
	rec->data = data;
	rec->len = (uint32_t)len;
	rec->region = (uint32_t)(g - b->r);
	rec->rank = rank;
	if (!b->src) {
		rec->data = b->spool + b->used;
		memcpy(b->spool + b->used, data, len);
		b->used += len;
	}
	b->values += count;
	return 0;
}

/*
 * Copy the blobs of the batch's regions of run_id into its spool: one pass
 * over the run's blobs in the order they lie in the store.
 * FINISH_OVERFLOW when they do not fit.  With a held source, one pass over
 * the caller's blobs instead, nothing copied.
 */
static int finish_scan(struct store *st, struct finish_batch *b, int64_t run_id)
{
	struct finish_scan_ctx sc = {b, store_location(st), run_id};

	b->used = b->nrecs = 0;
	b->values = 0;
	if (b->src)
		return b->src->scan(b->src->ctx, finish_scan_blob, &sc);
	return store_scan_blobs(st, run_id, finish_scan_blob, &sc);
}

/* Whether nvals values in nruns sorted runs (one per timings row with
 * calls) can be region g's durations: as many as its totals' calls, in
 * no more runs than it has rows. */
static int finish_matches(const struct finish_region *g, uint64_t nvals, uint64_t nruns)
{
	return nvals == g->calls && nruns && nruns <= g->rows;
}

/* The check that a region's decoded durations match its totals
 * (finish_matches()); location is the store's, for the message. */
static int finish_check(const char *location, int64_t run_id, const struct finish_region *g,
			size_t nvals, size_t nruns)
{
	if (finish_matches(g, nvals, nruns))
		return 0;
	return err_set(ERR_STORE,
		       "store '%s' is damaged: run %lld has %zu calls but %zu stored durations in "
		       "region %lld",
		       location, (long long)run_id, g->calls, nvals, (long long)g->id);
}

/* Part of a batch's percentiles, computed by finish_compute(), maybe on a
 * second thread: everything it needs, so that it never calls the store. */
struct finish_job {
	const char *location; /* store_location(), taken by the calling thread before
			       * the job starts (the store's own string, unchanged
			       * while it is open), for messages */
	const struct finish_batch *b;
	const size_t *order;	   /* the batch's records grouped by region */
	const unsigned char *skip; /* regions whose percentiles the source gave */
	size_t from, to;	   /* regions b->r[from..to) */
	double *q;		   /* 3 per region of the batch */
	int64_t run_id;
	int ret;
};

/*
 * The percentiles of regions [from, to) of a scanned batch: each region's
 * blobs (sorted runs) decoded next to each other, then
 * percentile_runs() selects across the runs without merging them.
 * Pure computation on memory no one else writes (errors are per thread),
 * so two jobs run at once on the two halves of a batch.
 */
static int finish_compute(struct finish_job *job)
{
	const struct finish_batch *b = job->b;
	struct i64vec vals, ends;
	size_t i, k, got;
	int ret = 0;

	i64vec_init(&vals);
	i64vec_init(&ends);
	for (i = job->from; i < job->to; i++) {
		const struct finish_region *g = &b->r[i];

		if (job->skip[i])
			continue;
		vals.len = ends.len = 0;
		if (i64vec_reserve(&vals, g->calls)) {
			ret = ERR_NOMEM;
			goto out;
		}
		for (k = 0; k < g->nrec; k++) {
			const struct finish_rec *rec = &b->recs[job->order[g->first + k]];

			if (blob_decode_to(vals.v + vals.len, g->calls - vals.len, &got, rec->data,
					   rec->len)) {
				ret = finish_damaged(job->location, job->run_id);
				goto out;
			}
			vals.len += got;
			if (i64vec_push(&ends, (int64_t)vals.len)) {
				ret = ERR_NOMEM;
				goto out;
			}
		}
		ret = finish_check(job->location, job->run_id, g, vals.len, ends.len);
		if (ret)
			goto out;
		percentile_runs_stored(job->q + 3 * i, vals.v, ends.v, ends.len);
	}
out:
	i64vec_release(&vals);
	i64vec_release(&ends);
	return ret;
}

/* finish_compute() on a thread of its own. */
static void *finish_job_main(void *arg)
{
	struct finish_job *job = arg;

	job->ret = finish_compute(job);
	return NULL;
}

/* Batches smaller than this many durations are not worth a second thread. */
#define FINISH_THREAD_MIN ((size_t)1 << 20)

/* The threshold in use (testing hook: finish_set_thread_min()). */
static size_t finish_thread_min = FINISH_THREAD_MIN;

void finish_set_thread_min(size_t n)
{
	finish_thread_min = n ? n : FINISH_THREAD_MIN;
}

/* finish_take()'s state: the batch, its percentiles, and which regions
 * took the source's (1) or were given twice (2: computed after all). */
struct finish_take_ctx {
	const struct finish_batch *b;
	double *q;
	unsigned char *have;
};

/* store_quantile_fn: a region's percentiles as the blob source computed
 * them, taken when their numbers of values and runs are those
 * finish_check() asks of the decoded blobs; any other region is computed
 * here, and any damage reported, as without them. */
static int finish_take(void *arg, int64_t region_id, const double q[3], uint64_t nvals,
		       uint64_t nruns)
{
	struct finish_take_ctx *tc = arg;
	const struct finish_region *g =
	    bsearch(&region_id, tc->b->r, tc->b->n, sizeof(*tc->b->r), cmp_finish_region);
	size_t i;

	if (!g)
		return 0;
	i = (size_t)(g - tc->b->r);
	if (tc->have[i] || !finish_matches(g, nvals, nruns)) {
		tc->have[i] = 2;
		return 0;
	}
	memcpy(tc->q + 3 * i, q, 3 * sizeof(*q));
	tc->have[i] = 1;
	return 0;
}

/*
 * The percentiles of each region of a scanned batch, written to the
 * store: those the blob source computed (finish_take()), the others
 * here.  Those are split into two halves of about the same number of
 * calls; the second half is computed on a second thread (the core that
 * hashed the file is idle by now), then all rows are written by this
 * thread, the only one using the store.
 */
static int finish_batch_quantiles(struct store *st, struct finish_batch *b, int64_t run_id)
{
	struct finish_job job[2];
	struct finish_take_ctx tc;
	pthread_t thread;
	size_t *order = NULL, i, k, half = 0, total = 0, acc = 0;
	unsigned char *have;
	double *q;
	int threaded = 0, ret = 0;

	/* group the records by region (counting sort, scan order kept) */
	order = malloc((b->nrecs ? b->nrecs : 1) * sizeof(*order));
	have = calloc(b->n ? b->n : 1, 1);
	free(b->q);
	q = b->q = malloc((b->n ? b->n : 1) * 3 * sizeof(*q));
	if (!order || !have || !q) {
		ret = err_nomem();
		goto out;
	}
	tc = (struct finish_take_ctx){b, q, have};
	if (b->src && b->src->quantiles) {
		ret = b->src->quantiles(b->src->ctx, finish_take, &tc);
		if (ret)
			goto out;
		for (i = 0; i < b->n; i++)
			have[i] = have[i] == 1;
	}
	for (i = 0; i < b->n; i++)
		b->r[i].nrec = 0;
	for (i = 0; i < b->nrecs; i++)
		b->r[b->recs[i].region].nrec++;
	for (i = 0, k = 0; i < b->n; i++) {
		b->r[i].first = k;
		k += b->r[i].nrec;
		b->r[i].nrec = 0;
		total += have[i] ? 0 : b->r[i].calls;
	}
	for (i = 0; i < b->nrecs; i++) {
		struct finish_region *g = &b->r[b->recs[i].region];

		order[g->first + g->nrec++] = i;
	}
	for (; half < b->n && 2 * acc < total; half++)
		acc += have[half] ? 0 : b->r[half].calls;
	for (i = 0; i < 2; i++) {
		job[i].location = store_location(st);
		job[i].b = b;
		job[i].order = order;
		job[i].skip = have;
		job[i].q = q;
		job[i].run_id = run_id;
		job[i].ret = 0;
	}
	job[0].from = 0;
	job[0].to = half;
	job[1].from = half;
	job[1].to = b->n;
	if (total >= finish_thread_min && half < b->n &&
	    pthread_create(&thread, NULL, finish_job_main, &job[1]) == 0)
		threaded = 1;
	else
		job[0].to = b->n;
	ret = finish_compute(&job[0]);
	if (threaded) {
		pthread_join(thread, NULL);
		/* the other thread's message is its own: compute that half
		 * again here to report it */
		if (!ret && job[1].ret)
			ret = finish_compute(&job[1]);
	}
	/* into the totals, written with them */
	for (i = 0; !ret && i < b->n; i++) {
		memcpy(b->r[i].t->q, q + 3 * i, sizeof(b->r[i].t->q));
		b->r[i].t->has_q = 1;
	}
out:
	free(order);
	free(have);
	return ret;
}

/*
 * The percentiles of one region whose blobs do not fit in the spool (over
 * ~90M calls): fetched on its own and decoded whole, as a --ranks diff
 * does (8 bytes per call of memory).
 */
static int finish_region_alone(struct store *st, int64_t run_id, const struct finish_region *g)
{
	struct i64vec d, ends;
	int ret;

	i64vec_init(&d);
	i64vec_init(&ends);
	ret = store_region_duration_runs(st, &d, &ends, run_id, g->id, NULL, 0);
	if (!ret)
		ret = finish_check(store_location(st), run_id, g, d.len, ends.len);
	if (!ret) {
		percentile_runs_stored(g->t->q, d.v, ends.v, ends.len);
		g->t->has_q = 1;
	}
	i64vec_release(&d);
	i64vec_release(&ends);
	return ret;
}

/* ---- the paths' percentiles ---------------------------------------------- */

/*
 * A path's durations over all ranks are, rank by rank, either its (path,
 * rank) row's own blob or, when its outermost calls there are all of its
 * region's calls, that timings row's blob (docs/format.md section 10.5).
 * When the run's blobs are all in the spool (a medium or large run), the
 * paths are done from it: one pass over the (path, rank) rows
 * (store_scan_path_blobs()), each path's blobs decoded next to each other
 * and selected across as a region's are, so the values are exactly those
 * of a --by path query that decodes them (store_path_duration_runs()).
 * Otherwise each path's durations are fetched on their own.
 */

/* A timings row's blob in the spool, for finding it by (region, rank). */
struct finish_key {
	uint32_t region; /* index in the batch */
	uint32_t rec;	 /* in the batch's records */
	int64_t rank;
};

/* One blob of the path being gathered: a timings row's in the spool, or
 * the path row's own, copied into finish_paths.own. */
struct finish_part {
	const char *base; /* NULL: in own, at off */
	size_t off;
	size_t len;
};

/* finish_paths()'s state. */
struct finish_paths {
	const struct finish_batch *b; /* the run's blobs */
	struct finish_key *keys;      /* b's records by (region, rank) */
	struct store_path_row *paths; /* the run's, held until written */
	size_t npaths;
	const char *location;
	int64_t run_id;
	int64_t path;	   /* the path being gathered, -1 before the first */
	uint64_t calls;	   /* its outermost calls over all ranks */
	int64_t same;	   /* the region (index in b) whose blobs all its parts are so
			    * far, on increasing ranks; -1: none yet, -2: not so */
	int64_t same_rank; /* the rank of the last of those parts */
	struct finish_part *parts;
	size_t nparts, capparts;
	struct buf own;
	struct i64vec vals, ends;
};

static int cmp_finish_key(const void *a, const void *b)
{
	const struct finish_key *x = a, *y = b;

	if (x->region != y->region)
		return (x->region > y->region) - (x->region < y->region);
	return (x->rank > y->rank) - (x->rank < y->rank);
}

/* The check that a path's decoded durations are its calls. */
static int finish_path_check(const char *location, int64_t run_id, int64_t path, uint64_t calls,
			     size_t nvals, size_t nruns)
{
	if (nvals == calls && nruns)
		return 0;
	return err_set(ERR_STORE,
		       "store '%s' is damaged: run %lld has %llu calls but %zu stored durations in "
		       "path %lld",
		       location, (long long)run_id, (unsigned long long)calls, nvals,
		       (long long)path);
}

/* Decode the gathered blobs of the current path into fp->vals, fp->ends,
 * checked against its calls. */
static int finish_path_decode(struct finish_paths *fp)
{
	size_t k, got;
	int ret;

	fp->vals.len = fp->ends.len = 0;
	if (fp->calls > SIZE_MAX / sizeof(int64_t) || i64vec_reserve(&fp->vals, (size_t)fp->calls))
		return err_nomem();
	for (k = 0; k < fp->nparts; k++) {
		const struct finish_part *p = &fp->parts[k];
		const char *data = p->base ? p->base + p->off : fp->own.data + p->off;

		if (blob_decode_to(fp->vals.v + fp->vals.len, (size_t)fp->calls - fp->vals.len,
				   &got, data, p->len))
			return finish_damaged(fp->location, fp->run_id);
		fp->vals.len += got;
		ret = i64vec_push(&fp->ends, (int64_t)fp->vals.len);
		if (ret)
			return ret;
	}
	return finish_path_check(fp->location, fp->run_id, fp->path, fp->calls, fp->vals.len,
				 fp->ends.len);
}

/*
 * The percentiles of the current path, into its held row.  When its parts
 * are every blob of one region, one a rank, and it has all of that
 * region's calls (a region called from one place: the common case), its
 * durations are the region's, so are its percentiles (computed from the
 * same blobs by finish_batch_quantiles(), or by ingest and taken there),
 * and nothing is decoded again.
 */
static int finish_path_flush(struct finish_paths *fp)
{
	const struct finish_region *g = fp->same >= 0 ? &fp->b->r[fp->same] : NULL;
	struct store_path_row *row = &fp->paths[fp->path];
	int ret = 0;

	if (g && fp->nparts == g->nrec && fp->calls == g->calls) {
		memcpy(row->q, fp->b->q + 3 * fp->same, sizeof(row->q));
	} else {
		ret = finish_path_decode(fp);
		if (!ret)
			percentile_runs_stored(row->q, fp->vals.v, fp->ends.v, fp->ends.len);
	}
	row->has_q = !ret;
	fp->nparts = 0;
	fp->own.len = 0;
	return ret;
}

/* store_scan_path_blobs() callback: one (path, rank) row; a new path
 * completes the one before. */
static int finish_path_row(void *arg, int64_t path, int64_t rank, const void *data, size_t len)
{
	struct finish_paths *fp = arg;
	const struct finish_batch *b = fp->b;
	struct finish_part *p;
	struct finish_key key, *hit = NULL;
	struct finish_region *g;
	int64_t region;
	int ret;

	if (path < 0 || (uint64_t)path >= fp->npaths || path < fp->path)
		return err_set(ERR_STORE, "store '%s' is damaged: run %lld has no path %lld",
			       fp->location, (long long)fp->run_id, (long long)path);
	if (path != fp->path) {
		if (fp->path >= 0 && (ret = finish_path_flush(fp)))
			return ret;
		fp->path = path;
		fp->calls = (uint64_t)fp->paths[path].s.calls;
		fp->same = -1;
	}
	if (util_grow(&fp->parts, &fp->capparts, fp->nparts + 1, sizeof(*fp->parts), 64))
		return err_nomem();
	p = &fp->parts[fp->nparts];
	if (data) {
		fp->same = -2;
		p->base = NULL;
		p->off = fp->own.len;
		p->len = len;
		if (buf_add(&fp->own, data, len))
			return err_nomem();
	} else {
		region = fp->paths[path].p.region_id;
		g = bsearch(&region, b->r, b->n, sizeof(*b->r), cmp_finish_region);
		if (g) {
			key.region = (uint32_t)(g - b->r);
			key.rank = rank;
			hit = bsearch(&key, fp->keys, b->nrecs, sizeof(*fp->keys), cmp_finish_key);
		}
		if (!hit)
			return err_set(ERR_STORE,
				       "store '%s' is damaged: path %lld of run %lld has no call "
				       "durations on rank %lld",
				       fp->location, (long long)path, (long long)fp->run_id,
				       (long long)rank);
		if (fp->same == -1 || (fp->same == (int64_t)key.region && rank > fp->same_rank))
			fp->same = key.region;
		else
			fp->same = -2;
		fp->same_rank = rank;
		p->base = b->recs[hit->rec].data;
		p->off = 0;
		p->len = b->recs[hit->rec].len;
	}
	fp->nparts++;
	return 0;
}

/* The percentiles of the held paths of run_id from the spool b, which holds
 * all the run's blobs: one pass over its (path, rank) rows. */
static int finish_paths_spooled(struct store *st, const struct finish_batch *b, int64_t run_id,
				struct store_path_row *paths, size_t npaths)
{
	struct finish_paths fp;
	size_t i;
	int ret = 0;

	memset(&fp, 0, sizeof(fp));
	fp.b = b;
	fp.paths = paths;
	fp.npaths = npaths;
	fp.location = store_location(st);
	fp.run_id = run_id;
	fp.path = -1;
	buf_init(&fp.own);
	i64vec_init(&fp.vals);
	i64vec_init(&fp.ends);
	fp.keys = malloc((b->nrecs ? b->nrecs : 1) * sizeof(*fp.keys));
	if (!fp.keys) {
		ret = err_nomem();
		goto out;
	}
	for (i = 0; i < b->nrecs; i++) {
		fp.keys[i].region = b->recs[i].region;
		fp.keys[i].rec = (uint32_t)i;
		fp.keys[i].rank = b->recs[i].rank;
	}
	qsort(fp.keys, b->nrecs, sizeof(*fp.keys), cmp_finish_key);
	ret = store_scan_path_blobs(st, run_id, finish_path_row, &fp);
	if (!ret && fp.path >= 0)
		ret = finish_path_flush(&fp);
	/* every path with rows has had them all */
	for (i = 0; !ret && i < npaths; i++)
		if (paths[i].s.nranks && !paths[i].has_q)
			ret = finish_path_check(fp.location, run_id, (int64_t)i,
						(uint64_t)paths[i].s.calls, 0, 0);
out:
	free(fp.keys);
	free(fp.parts);
	buf_release(&fp.own);
	i64vec_release(&fp.vals);
	i64vec_release(&fp.ends);
	return ret;
}

/*
 * The paths of run_id's call tree held by the store (none: nothing to do),
 * written with their exact p50/p95/p99.  With all the run's blobs in the
 * spool b, the percentiles come from there and each path is written once;
 * otherwise (b NULL, a run too large) the paths are written first and each
 * one's durations fetched on its own, as --by path reads them, and its
 * percentiles stored after.
 */
static int finish_paths(struct store *st, const struct finish_batch *b, int64_t run_id)
{
	struct store_path_row *paths;
	struct i64vec ids, vals, ends;
	double *q = NULL;
	uint64_t *calls = NULL;
	size_t npaths, i, k;
	int ret = 0;

	paths = store_held_paths(st, run_id, &npaths);
	if (b && npaths)
		ret = finish_paths_spooled(st, b, run_id, paths, npaths);
	if (ret || b || !npaths)
		return ret ? ret : store_put_held_paths(st);
	i64vec_init(&ids);
	i64vec_init(&vals);
	i64vec_init(&ends);
	calls = malloc(npaths * sizeof(*calls));
	q = malloc(3 * npaths * sizeof(*q));
	if (!calls || !q) {
		ret = err_nomem();
		goto out;
	}
	for (i = 0; !ret && i < npaths; i++)
		if (paths[i].s.nranks) {
			calls[ids.len] = (uint64_t)paths[i].s.calls;
			ret = i64vec_push(&ids, (int64_t)i);
		}
	if (!ret)
		ret = store_put_held_paths(st); /* paths is not to be used after this */
	for (k = 0; !ret && k < ids.len; k++) {
		vals.len = ends.len = 0;
		ret = store_path_duration_runs(st, &vals, &ends, run_id, ids.v[k], NULL, 0);
		if (!ret)
			ret = finish_path_check(store_location(st), run_id, ids.v[k], calls[k],
						vals.len, ends.len);
		if (!ret)
			percentile_runs_stored(q + 3 * k, vals.v, ends.v, ends.len);
	}
	if (!ret && ids.len)
		ret = store_put_path_quantiles(st, run_id, ids.v, q, ids.len);
out:
	free(calls);
	free(q);
	i64vec_release(&ids);
	i64vec_release(&vals);
	i64vec_release(&ends);
	return ret;
}

/*
 * The exact p50/p95/p99 of every region of run_id with per-call data (its
 * totals tots[0..ntots), by region id), in batches of regions that fit the
 * spool (see the top of this file); then its paths.
 */
static int finish_quantiles(struct store *st, int64_t run_id, struct store_region_total *tots,
			    size_t ntots, const struct store_blob_source *src)
{
	struct finish_region *r = NULL;
	struct finish_batch b;
	size_t n = 0, i, j, limit = SIZE_MAX;
	double bpc = 0.0, est; /* bytes per call; 0 = unknown: try all */
	int whole = 0, ret = 0;

	memset(&b, 0, sizeof(b));
	b.src = src;
	r = calloc(ntots ? ntots : 1, sizeof(*r));
	if (!r) {
		ret = err_nomem();
		goto out;
	}
	for (i = 0; i < ntots; i++) {
		if (!tots[i].has_events || tots[i].s.calls <= 0)
			continue;
		r[n].t = &tots[i];
		r[n].id = tots[i].region_id;
		r[n].calls = (size_t)tots[i].s.calls;
		r[n].rows = (size_t)tots[i].s.nranks;
		n++;
	}
	if (!n)
		goto paths;
	/* a held source is one batch: the whole run, nothing copied */
	b.spool = src ? NULL : util_scratch_alloc(finish_spool);
	if (!src && !b.spool) {
		ret = err_nomem();
		goto out;
	}
	for (i = 0; i < n; i = j) {
		/* the batch r[i..j): everything left, or what the spool holds at
		 * the bytes per call seen so far (at least one region) */
		est = 0.0;
		for (j = i; j < n && j - i < limit; j++) {
			est += (double)r[j].calls * bpc;
			if (j > i && est > (double)finish_spool)
				break;
		}
		b.r = r + i;
		b.n = j - i;
		ret = finish_scan(st, &b, run_id);
		if (ret == FINISH_OVERFLOW && b.n == 1) {
			/* one region bigger than the spool: on its own */
			ret = finish_region_alone(st, run_id, &r[i]);
			if (ret)
				goto out;
			continue;
		}
		if (ret == FINISH_OVERFLOW) {
			/* a tighter estimate, with a margin; then again */
			bpc = 1.25 * (double)b.used / (double)(b.values ? b.values : 1);
			if (bpc < 0.125)
				bpc = 0.125;
			limit = (j - i) / 2 ? (j - i) / 2 : 1; /* shrinks every time */
			j = i;
			continue;
		}
		if (!ret)
			ret = finish_batch_quantiles(st, &b, run_id);
		/* the whole run in the spool: its paths from there too */
		if (!ret && i == 0 && j == n) {
			ret = finish_paths(st, &b, run_id);
			whole = 1;
		}
		if (ret)
			goto out;
	}
paths:
	if (!whole)
		ret = finish_paths(st, NULL, run_id);
out:
	util_scratch_free(b.spool, finish_spool);
	free(b.recs);
	free(b.q);
	free(r);
	return ret;
}

int store_finish_run_from(struct store *st, int64_t run_id, const struct store_blob_source *src)
{
	struct store_region_total *tots;
	size_t ntots;
	int ret = store_totals_get(st, run_id, &tots, &ntots);

	if (!ret)
		ret = finish_quantiles(st, run_id, tots, ntots, src);
	if (!ret)
		ret = store_totals_put(st, run_id);
	return ret;
}

int store_finish_run(struct store *st, int64_t run_id)
{
	return store_finish_run_from(st, run_id, NULL);
}
