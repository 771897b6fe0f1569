/*
 * h5columnar.c - the event columns of the columnar layout (schemas 2 and 3,
 * docs/format.md section 3.3): /events/start_times + end_times, or
 * start_deltas + durations (delta encoding, chosen by which exists), and
 * the optional gpu_durations.  The index itself is read by h5index.c.
 *
 * h5columnar_read() hands out the rows in event-offset order, reading the
 * event columns through fixed-size windows (one hyperslab read per column
 * per window, aligned to the chunks, no chunk cache), so memory grows only
 * with the largest row.  Compressed chunks longer than the longest window
 * (h5columnar_max_window()) get a one-chunk cache instead, so that each chunk is
 * still decompressed once.  While the rows of one window are handed out, a
 * prefetch thread reads the next ones, a ring of windows (struct
 * h5prefetch, H5WIN_RING); it is the only thread calling libhdf5 while it
 * exists.
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

#include "scopedb/err.h"
#include "h5/h5_internal.h"
#include "util/thread.h"

/* Events per column per hyperslab read: 512 KB windows stay in the CPU
 * caches and cost few fresh pages (issue 6: 1M-event windows were 8 % slower). */
#define H5PROF_DEFAULT_CHUNK ((size_t)1 << 16)
/* Compressed chunks up to this many windows widen the window to a whole
 * chunk, so that no chunk is decompressed twice (there is no chunk cache);
 * longer ones get a one-chunk cache (2^22 events by default). */
#define H5PROF_MAX_WINDOWS 64

/* Events per column per hyperslab read (testing hook: h5prof_set_chunk_events). */
static size_t h5columnar_chunk = H5PROF_DEFAULT_CHUNK;

void h5columnar_set_window(size_t n)
{
	h5columnar_chunk = n ? n : H5PROF_DEFAULT_CHUNK;
}

hsize_t h5columnar_max_window(void)
{
	return (hsize_t)h5columnar_chunk * H5PROF_MAX_WINDOWS;
}

/* Paths of the optional event columns (EV_GPU..EV_TASK). */
static const char *const h5columnar_opt[EV_N] = {
    NULL,
    NULL,
    "events/gpu_durations",
    "events/call_ids",
    "events/parent_ids",
    "events/thread_ids",
    "events/task_ids",
};

/* The dataset path of event column k. */
static const char *h5columnar_path(const struct h5prof *p, int k)
{
	if (k == EV_A)
		return p->delta ? "events/start_deltas" : "events/start_times";
	if (k == EV_E)
		return p->delta ? "events/durations" : "events/end_times";
	return h5columnar_opt[k];
}

/*
 * Open the event columns (section 3.3): start_deltas + durations when
 * start_deltas exists, else start_times + end_times; gpu_durations, and
 * the nesting columns of section 10 (call_ids with parent_ids, thread_ids,
 * task_ids) when present.  They must be integer columns of one length.
 */
int h5columnar_open_events(struct h5prof *p)
{
	int k, rc = 0;

	p->delta = h5util_exists(p, p->file, "events/start_deltas");
	if (p->delta < 0)
		return p->delta;
	for (k = 0; k < EV_N && !rc; k++) {
		const char *path = h5columnar_path(p, k);

		rc = h5col_open(p, &p->ev[k], p->file, path, path, H5T_INTEGER, "int64", k <= EV_E);
	}
	if (rc)
		return rc;
	/* ids are used as a pair: one without the other is not read */
	if ((p->ev[EV_CID].dset >= 0) != (p->ev[EV_PID].dset >= 0)) {
		h5col_close(&p->ev[EV_CID]);
		h5col_close(&p->ev[EV_PID]);
	}
	/* a compressed chunk longer than any window would be decompressed
	 * once per window (quadratic): such columns get a one-chunk cache */
	for (k = 0; k < EV_N && !rc; k++)
		if (p->ev[k].dset >= 0 && p->ev[k].filtered &&
		    p->ev[k].chunk > h5columnar_max_window())
			rc = h5col_cache_chunk(p, &p->ev[k], p->file, h5columnar_path(p, k));
	if (rc)
		return rc;
	p->nev = p->ev[EV_A].n;
	for (k = 1; k < EV_N; k++) {
		if (p->ev[k].dset >= 0 && p->ev[k].n != p->nev)
			return h5prof_fail(p, ERR_FORMAT,
					   "event columns have different lengths: '%s' has "
					   "%llu events, '%s' has %llu; the file is truncated "
					   "or damaged",
					   p->ev[EV_A].label, (unsigned long long)p->nev,
					   p->ev[k].label, (unsigned long long)p->ev[k].n);
	}
	return 0;
}

/* Bit k set for each optional column k (EV_GPU, EV_CID..EV_TASK) the file
 * has: the row buffer reserves those alone. */
static unsigned h5columnar_opt_mask(const struct h5prof *p)
{
	unsigned m = 0;
	int k;

	for (k = EV_GPU; k < EV_N; k++)
		if (p->ev[k].dset >= 0)
			m |= 1u << k;
	return m;
}

/* Store event_offsets, event_counts and exclusive_totals into p->rows. */
int h5columnar_read_index(struct h5prof *p, const struct h5col *ix, uint64_t *u, int64_t *s)
{
	size_t i, nrows = p->info.num_rows;
	int rc;

	rc = h5col_read_u64(p, &ix[IX_OFFSET], u, UINT64_MAX);
	if (rc)
		return rc;
	for (i = 0; i < nrows; i++)
		p->rows[i].offset = u[i];
	rc = h5col_read_u64(p, &ix[IX_COUNT], u, UINT64_MAX);
	if (rc)
		return rc;
	for (i = 0; i < nrows; i++)
		p->rows[i].count = u[i];
	if (ix[IX_EXCL].dset >= 0) {
		rc = h5col_read_i64(p, &ix[IX_EXCL], s);
		if (rc)
			return rc;
		for (i = 0; i < nrows; i++)
			p->rows[i].exclusive = s[i];
	}
	return 0;
}

/*
 * Turn the raw columns of row r (a = starts or, with delta, start deltas;
 * e = ends or, with delta, durations) into absolute starts and durations,
 * refusing negative durations and overflowing times.  The column that is
 * already in its final form is used where it lies; the other is computed
 * into starts (the running sum of the deltas) or durs (end - start), which
 * may be a or e themselves.  *out_starts and *out_durs say where the result
 * is.  This does calls first..first + n of the row, the deltas summed
 * on from *run (0 at the row's first call) and *run left at the last
 * start: a whole row, or a piece of one (h5columnar_pieces()).
 */
int h5columnar_decode_part(const struct h5prof *p, const struct prow *r, int delta,
			   const int64_t *a, const int64_t *e, uint64_t n, uint64_t first,
			   int64_t *run, int64_t *starts, int64_t *durs, const int64_t **out_starts,
			   const int64_t **out_durs)
{
	uint64_t i;
	int64_t sum = *run, start, dur, end;

	*out_starts = delta ? starts : a;
	*out_durs = delta ? e : durs;
	for (i = 0; i < n; i++) {
		if (delta) {
			/* starts = running sum of the row's deltas */
			if (__builtin_add_overflow(sum, a[i], &sum))
				return h5prof_fail(p, ERR_FORMAT,
						   "%s: the start time of call %" PRIu64
						   " overflows; the file is damaged",
						   h5prof_rowdesc(p, r), first + i);
			starts[i] = start = sum;
			dur = e[i];
		} else {
			start = a[i];
			if (__builtin_sub_overflow(e[i], start, &dur))
				return h5prof_fail(p, ERR_FORMAT,
						   "%s: the duration of call %" PRIu64
						   " overflows; the file is damaged",
						   h5prof_rowdesc(p, r), first + i);
			durs[i] = dur;
		}
		if (dur < 0)
			return h5prof_fail(p, ERR_FORMAT,
					   "%s: call %" PRIu64 " has a negative duration (%" PRId64
					   " ns); the file is damaged",
					   h5prof_rowdesc(p, r), first + i, dur);
		if (__builtin_add_overflow(start, dur, &end))
			return h5prof_fail(p, ERR_FORMAT,
					   "%s: the end time of call %" PRIu64
					   " overflows; the file is damaged",
					   h5prof_rowdesc(p, r), first + i);
	}
	*run = sum;
	return 0;
}

/* A whole row: schema 1 rows use it too (absolute times, delta = 0); it
 * lives here so that the compiler can inline it into the read loop. */
int h5columnar_decode(const struct h5prof *p, const struct prow *r, int delta, const int64_t *a,
		      const int64_t *e, int64_t *starts, int64_t *durs, const int64_t **out_starts,
		      const int64_t **out_durs)
{
	int64_t run = 0;

	return h5columnar_decode_part(p, r, delta, a, e, r->count, 0, &run, starts, durs,
				      out_starts, out_durs);
}

/* h5win_load() failure code offset: the read failed for want of memory. */
#define H5WIN_NOMEM 100

/* A window of every event column: events [start, start + len), set when
 * it is requested (h5win_extent()).  ready and fail are written by the
 * prefetch thread under its mutex: the load is done, and how it went
 * (h5win_load()'s code). */
struct h5win {
	int64_t *col[EV_N];
	uint64_t start, len;
	int ready, fail;
};

/* Windows of the ring when they are of the default length: while the rows
 * of one are handed out, the prefetch thread reads (and inflates) the
 * next ones, so that neither thread waits on the other's every window
 * (with two, each waited hundreds of times a medium gzip profile).  Longer
 * windows (chunks of up to H5PROF_MAX_WINDOWS windows) keep two. */
#define H5WIN_RING 4

/*
 * The reader of event windows on a second thread: while the rows of one
 * window are handed out, the windows after it are read (and, in gzip
 * files, decompressed) into the others, in the order they were asked for
 * (a queue of up to H5WIN_RING).  libhdf5 is not thread-safe, so while
 * this thread exists it makes every H5* call of the read; the calling
 * thread only waits for it.  It never calls err_set() either: a failure
 * is passed back in the window's fail and reported by the calling thread.
 */
struct h5prefetch {
	const struct h5prof *p;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int started;
	int quit;
	struct h5win *q[H5WIN_RING]; /* the requests: q[head], ... (n of them) */
	int head, n;
	struct h5inflate z; /* scratch of h5win_load(), by whichever thread loads */
};

/* Per-read buffers: a ring of nwin windows of the event columns (the
 * current one is win[cur], cur < 0 before the first; the ahead after it
 * are requested, up to the event next), and the current row. */
struct h5evbufs {
	struct h5win win[H5WIN_RING];
	int nwin, cur, ahead;
	uint64_t next;
	struct h5prefetch pf;
	struct h5rowbuf row;
	int64_t *piece[2]; /* a piece's computed starts, or durations */
};

static void h5prefetch_stop(struct h5prefetch *pf);

static void h5evbufs_release(struct h5evbufs *b)
{
	int i;

	h5prefetch_stop(&b->pf);
	h5inflate_release(&b->pf.z);
	for (i = 0; i < EV_N * H5WIN_RING; i++)
		free(b->win[i / EV_N].col[i % EV_N]);
	h5prof_rowbuf_release(&b->row);
	free(b->piece[0]);
	free(b->piece[1]);
}

hsize_t h5columnar_window_of(const struct h5col *c, size_t n)
{
	hsize_t len = h5columnar_chunk, align = c[0].chunk;
	size_t k;

	for (k = 0; k < n; k++)
		if (c[k].dset >= 0 && c[k].filtered && c[k].chunk > len &&
		    c[k].chunk <= h5columnar_max_window())
			len = c[k].chunk;
	if (align > 0 && align <= len)
		len = len / align * align;
	return len;
}

/* Events per window of the event columns (h5columnar_window_of()). */
static hsize_t h5columnar_window_len(const struct h5prof *p)
{
	return h5columnar_window_of(p->ev, EV_N);
}

/*
 * The window of event pos into w->start and w->len: from a chunk boundary
 * of the first column when its chunks fit in a window (as bench_rawread
 * reads, and at the same speed), else from pos; h5columnar_window_len()
 * events, or those left.  So the window after it starts at w->start +
 * w->len, known before either is read.
 */
static void h5win_extent(const struct h5prof *p, struct h5win *w, uint64_t pos)
{
	uint64_t start = pos, len = h5columnar_window_len(p), align = p->ev[0].chunk;

	if (align > 0 && align <= len)
		start = pos / align * align;
	w->start = start;
	w->len = p->nev - start < len ? p->nev - start : len;
}

/*
 * Load window w (its extent set by h5win_extent(); buffers of
 * h5columnar_window_len() events) of every event column.  libhdf5 reads
 * whole chunks straight into the window; gzip chunks are inflated by
 * h5inflate_read() where it can (z: its scratch).  Runs on the prefetch
 * thread: no err_set(), and w is not written but for its columns; returns
 * 0, k + 1 when column k cannot be read (H5WIN_NOMEM + k + 1 when for
 * want of memory), or -1 when no dataspace can be made
 * (h5columnar_window_error() words it).  The error stack is the calling
 * thread's, so the cause is found here.
 */
static int h5win_load(const struct h5prof *p, const struct h5win *w, struct h5inflate *z)
{
	hsize_t start = w->start, count = w->len, len = h5columnar_window_len(p);
	hid_t mem;
	int k, fail = 0;

	mem = H5Screate_simple(1, &count, NULL);
	if (mem < 0)
		return -1;
	for (k = 0; k < EV_N && !fail; k++) {
		const struct h5col *c = &p->ev[k];

		if (c->dset < 0)
			continue;
		if (c->inflate && c->chunk <= len && !h5inflate_read(c, start, count, w->col[k], z))
			continue;
		if (H5Sselect_hyperslab(c->space, H5S_SELECT_SET, &start, NULL, &count, NULL) < 0 ||
		    H5Dread(c->dset, H5T_NATIVE_INT64, mem, c->space, H5P_DEFAULT, w->col[k]) < 0)
			fail = h5prof_hdf5_nomem() ? H5WIN_NOMEM + k + 1 : k + 1;
	}
	H5Sclose(mem);
	return fail;
}

/* The message of a failed h5win_load() of the window of event pos. */
static int h5columnar_window_error(const struct h5prof *p, uint64_t pos, int fail)
{
	int nomem = fail > H5WIN_NOMEM;
	const struct h5col *c = &p->ev[fail > 0 ? (fail - 1) % H5WIN_NOMEM : 0];
	uint64_t len = h5columnar_window_len(p);
	unsigned long long end = pos + (p->nev - pos < len ? p->nev - pos : len);

	if (fail < 0)
		return h5prof_fail(p, ERR_GENERIC, "cannot create an HDF5 dataspace");
	if (nomem)
		return h5prof_fail(p, ERR_NOMEM,
				   "cannot read events [%llu, %llu) of '%s': out of memory",
				   (unsigned long long)pos, end, c->label);
	return h5prof_fail(p, ERR_FORMAT,
			   "cannot read events [%llu, %llu) of '%s'; the file is truncated or "
			   "damaged",
			   (unsigned long long)pos, end, c->label);
}

/* The prefetch thread: serve the requests in order until told to quit.
 * libhdf5's automatic error printing is per thread: off here too. */
static void *h5prefetch_main(void *arg)
{
	struct h5prefetch *pf = arg;
	struct h5win *w;
	int fail;

	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	pthread_mutex_lock(&pf->mu);
	for (;;) {
		while (!pf->n && !pf->quit)
			pthread_cond_wait(&pf->cv, &pf->mu);
		if (pf->quit)
			break;
		w = pf->q[pf->head];
		pthread_mutex_unlock(&pf->mu);
		fail = h5win_load(pf->p, w, &pf->z);
		pthread_mutex_lock(&pf->mu);
		w->fail = fail;
		w->ready = 1;
		pf->head = (pf->head + 1) % H5WIN_RING;
		pf->n--;
		pthread_cond_broadcast(&pf->cv);
	}
	pthread_mutex_unlock(&pf->mu);
	return NULL;
}

/* Start the prefetch thread; without it (no thread, no memory) windows are
 * simply loaded by the calling thread. */
static void h5prefetch_start(struct h5prefetch *pf, const struct h5prof *p)
{
	memset(pf, 0, sizeof(*pf));
	pf->p = p;
	pf->started = !util_thread_start(&pf->thread, &pf->mu, &pf->cv, h5prefetch_main, pf);
}

/* Wait until window w has been loaded (the thread then makes no H5 call
 * for it), or with no requests left, until the thread is idle. */
static void h5prefetch_wait(struct h5prefetch *pf, const struct h5win *w)
{
	if (!pf->started)
		return;
	pthread_mutex_lock(&pf->mu);
	while (w ? !w->ready : pf->n > 0)
		pthread_cond_wait(&pf->cv, &pf->mu);
	pthread_mutex_unlock(&pf->mu);
}

static void h5prefetch_stop(struct h5prefetch *pf)
{
	if (!pf->started)
		return;
	util_thread_stop(pf->thread, &pf->mu, &pf->cv, &pf->quit);
	pf->started = 0;
}

/* Load the window of event pos into w: queued for the prefetch thread
 * (then w->ready and w->fail are set later), or here when there is none. */
static void h5prefetch_request(struct h5prefetch *pf, struct h5win *w, uint64_t pos)
{
	h5win_extent(pf->p, w, pos);
	w->ready = 0;
	if (!pf->started) {
		w->fail = h5win_load(pf->p, w, &pf->z);
		w->ready = 1;
		return;
	}
	pthread_mutex_lock(&pf->mu);
	pf->q[(pf->head + pf->n) % H5WIN_RING] = w;
	pf->n++;
	pthread_cond_broadcast(&pf->cv);
	pthread_mutex_unlock(&pf->mu);
}

/*
 * Make b->win[b->cur] the window that holds event pos: one of those read
 * ahead when it does (the rows are read in file order, so it nearly always
 * is the next), else a fresh load once the thread has done with the
 * requests.  Then ask for the windows after it, up to the ring's size.
 */
static int h5columnar_window(const struct h5prof *p, struct h5evbufs *b, uint64_t pos)
{
	struct h5win *w;
	int nx, k, i;

	/* validated at open; guards against an endless loop */
	if (pos >= p->nev)
		return h5prof_damaged(p, "events beyond the event columns", NULL);
	if (b->cur >= 0 && pos >= b->win[b->cur].start &&
	    pos < b->win[b->cur].start + b->win[b->cur].len)
		return 0;
	if (!b->nwin) {
		/* first use: the buffers of the ring's windows (one ring
		 * of H5WIN_RING, of two when the windows are longer than
		 * the default, and one with nothing to prefetch) */
		uint64_t len = h5columnar_window_len(p);
		size_t n = p->nev < len ? (size_t)p->nev : (size_t)len;

		b->nwin = p->nev <= n ? 1 : len > h5columnar_chunk ? 2 : H5WIN_RING;
		for (i = 0; i < b->nwin; i++)
			for (k = 0; k < EV_N; k++) {
				if (p->ev[k].dset < 0)
					continue;
				b->win[i].col[k] = malloc((n ? n : 1) * sizeof(int64_t));
				if (!b->win[i].col[k])
					return err_nomem();
			}
		b->pf.p = p;
		if (b->nwin > 1)
			h5prefetch_start(&b->pf, p);
	}
	/* the window of pos among those asked for (their extents are set at
	 * the request): the thread serves them in order, so once it is done
	 * those before it are too, and they are passed over (a row may skip
	 * events no row claims) */
	nx = b->cur < 0 ? 0 : (b->cur + 1) % b->nwin;
	for (k = 0; k < b->ahead; k++) {
		w = &b->win[(nx + k) % b->nwin];
		if (pos >= w->start && pos < w->start + w->len)
			break;
	}
	if (k < b->ahead) {
		nx = (nx + k) % b->nwin;
		h5prefetch_wait(&b->pf, &b->win[nx]);
		b->ahead -= k + 1;
	} else if (b->ahead) {
		/* none holds pos: let the thread finish them first */
		h5prefetch_wait(&b->pf, NULL);
		b->ahead = 0;
	}
	w = &b->win[nx];
	if (!(w->ready && !w->fail && pos >= w->start && pos < w->start + w->len)) {
		/* not a window read ahead (or it failed: the load below
		 * says what is wrong): load it now */
		h5prefetch_wait(&b->pf, NULL);
		b->ahead = 0;
		h5prefetch_request(&b->pf, w, pos);
		h5prefetch_wait(&b->pf, w);
		if (w->fail)
			return h5columnar_window_error(p, pos, w->fail);
		b->next = w->start + w->len;
	}
	b->cur = nx;
	while (b->pf.started && b->ahead < b->nwin - 1 && b->next < p->nev) {
		struct h5win *a = &b->win[(nx + 1 + b->ahead) % b->nwin];

		h5prefetch_request(&b->pf, a, b->next);
		b->next = a->start + a->len;
		b->ahead++;
	}
	return 0;
}

/* Point row's nesting columns at cols[k] + off for those the file has. */
static void h5columnar_nest(const struct h5prof *p, struct h5prof_row *row, int64_t *const *cols,
			    size_t off)
{
	const int64_t *v[EV_N];
	int k;

	for (k = EV_CID; k < EV_N; k++)
		v[k] = p->ev[k].dset >= 0 ? cols[k] + off : NULL;
	row->nest.call_ids = v[EV_CID];
	row->nest.parent_ids = v[EV_PID];
	row->nest.thread_ids = v[EV_THR];
	row->nest.task_ids = v[EV_TASK];
}

/*
 * Hand out row r (row: its fields filled) in pieces, one a window it
 * spans: each decoded where it lies in the window or into b->piece, the
 * start deltas summed on across the pieces.  Only the row's pieces are
 * held, never the row (h5prof_set_piece_min()).
 */
static int h5columnar_pieces(struct h5prof *p, struct h5evbufs *b, const struct prow *r,
			     struct h5prof_row *row, h5prof_row_fn fn, void *ctx)
{
	uint64_t pos = r->offset, done = 0, len = h5columnar_window_len(p);
	int64_t run = 0;
	int rc, k = p->delta ? 0 : 1; /* the column computed: starts, or durations */

	if (!b->piece[k]) {
		b->piece[k] = malloc((size_t)(p->nev < len ? p->nev : len) * sizeof(int64_t));
		if (!b->piece[k])
			return err_nomem();
	}
	while (done < r->count) {
		const struct h5win *w;
		uint64_t take;
		size_t off;

		rc = h5columnar_window(p, b, pos);
		if (rc)
			return rc;
		w = &b->win[b->cur];
		take = w->start + w->len - pos;
		if (take > r->count - done)
			take = r->count - done;
		off = (size_t)(pos - w->start);
		rc = h5columnar_decode_part(p, r, p->delta, w->col[0] + off, w->col[1] + off, take,
					    done, &run, b->piece[0], b->piece[1], &row->starts,
					    &row->durations);
		if (rc)
			return rc;
		row->durations_own = 0;
		row->gpu = p->ev[EV_GPU].dset >= 0 ? w->col[EV_GPU] + off : NULL;
		h5columnar_nest(p, row, w->col, off);
		h5prof_row_piece(row, done, take);
		rc = fn(ctx, row);
		if (rc)
			return rc;
		pos += take;
		done += take;
	}
	return 0;
}

/*
 * Hand out the rows in event-offset order.  A row lying wholly in the
 * current window is decoded from there without a copy; a row spanning
 * windows is gathered into b.row first, unless it is long enough to go in
 * pieces (h5columnar_pieces()).
 */
int h5columnar_read(struct h5prof *p, h5prof_row_fn fn, void *ctx)
{
	struct h5evbufs b;
	struct h5prof_row row;
	uint64_t whole;
	size_t i;
	int rc = 0;

	memset(&b, 0, sizeof(b));
	b.cur = -1;
	whole = h5prof_max_whole(p);
	rc = h5prof_rowbuf_reserve(&b.row, (size_t)(whole ? whole : 1), h5columnar_opt_mask(p));
	if (rc)
		goto out;
	for (i = 0; i < p->info.num_rows; i++) {
		const struct prow *r = &p->rows[i];
		const struct h5win *w;
		uint64_t pos = r->offset, done = 0;

		h5prof_fill_row(p, r, &row);
		if (r->count == 0) {
			rc = fn(ctx, &row);
			if (rc)
				goto out;
			continue;
		}
		if (h5prof_in_pieces(p, r)) {
			rc = h5columnar_pieces(p, &b, r, &row, fn, ctx);
			if (rc)
				goto out;
			continue;
		}
		rc = h5columnar_window(p, &b, pos);
		if (rc)
			goto out;
		w = &b.win[b.cur];
		if (r->count <= w->start + w->len - pos) {
			/* The whole row is in the window (all but at most one row
			 * per window): decode it from there, without a copy.  The
			 * window stays read-only, so rows may share events. */
			size_t off = (size_t)(pos - w->start);

			rc = h5columnar_decode(p, r, p->delta, w->col[0] + off, w->col[1] + off,
					       b.row.starts, b.row.durs, &row.starts,
					       &row.durations);
			if (rc)
				goto out;
			/* (with deltas, the durations are the window's own) */
			row.durations_own = row.durations == b.row.durs;
			row.gpu = p->ev[EV_GPU].dset >= 0 ? w->col[EV_GPU] + off : NULL;
			h5columnar_nest(p, &row, w->col, off);
			rc = fn(ctx, &row);
			if (rc)
				goto out;
			continue;
		}
		while (done < r->count) {
			uint64_t take;
			size_t off;
			int k;

			rc = h5columnar_window(p, &b, pos);
			if (rc)
				goto out;
			w = &b.win[b.cur];
			take = w->start + w->len - pos;
			if (take > r->count - done)
				take = r->count - done;
			off = (size_t)(pos - w->start);
			for (k = 0; k < EV_N; k++) {
				int64_t *dst = k == EV_A     ? b.row.starts
					       : k == EV_E   ? b.row.durs
					       : k == EV_GPU ? b.row.gpu
							     : b.row.col[k];

				if (p->ev[k].dset >= 0)
					memcpy(dst + done, w->col[k] + off,
					       (size_t)take * sizeof(int64_t));
			}
			pos += take;
			done += take;
		}
		rc = h5columnar_decode(p, r, p->delta, b.row.starts, b.row.durs, b.row.starts,
				       b.row.durs, &row.starts, &row.durations);
		if (rc)
			goto out;
		row.durations_own = row.durations == b.row.durs;
		row.gpu = p->ev[EV_GPU].dset >= 0 ? b.row.gpu : NULL;
		h5columnar_nest(p, &row, b.row.col, 0);
		rc = fn(ctx, &row);
		if (rc)
			goto out;
	}
out:
	h5evbufs_release(&b);
	return rc;
}
