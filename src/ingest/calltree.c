/*
 * calltree.c - the call tree of each rank, its paths and their numbers
 * (calltree.h; docs/format.md section 10): collecting the ranks' calls,
 * the public calls and the worker thread.  Building a rank is in
 * calltree_order.c (each call's parent) and calltree_paths.c (its paths,
 * their numbers, delivery); what the three share is in calltree_int.h.
 *
 * Collecting: calltree_add() copies each row's calls (start, duration,
 * which row, and the ids and lanes when the row has them) into its rank's
 * struct ct_rank, under the budget of held calls; a large row (or the
 * last row of a large rank) whose durations are the reader's own has
 * their pages given back as they are copied.  Building a rank:
 *
 *  1. lanes: calls are grouped by (thread, task), negative = main lane;
 *  2. parents: from the ids when every call has one, checked against the
 *     times (duplicates, a parent id not smaller than its call's, a parent
 *     that does not contain its call, children outlasting their parent:
 *     any of these and the ids are not used); else from containment per
 *     lane: calls sorted by start ascending, end descending (ties in the
 *     order the calls came), a stack of open calls, the top after popping
 *     the closed ones is the parent, and a call ending after the top ends
 *     is an overlap (no tree: what the rank's sweep had counted before
 *     it is forgotten); the sweep does step 3 as it comes to each call;
 *  3. in that order (parents before children), each call's path node:
 *     the parent's node plus its region, or the parent's node itself when
 *     the parent has the same region; its self time (duration minus its
 *     direct children's: each call adds its duration to its own node and
 *     takes it off its parent's); the numbers of the (node, rank);
 *  4. delivery: the rank's status, each node once, the path rows, the
 *     self time of each row.
 *
 * A lane whose calls are a few runs already in order (a region's calls
 * are in start order in the files, so a lane is about a run a region) is
 * merged through a tree of losers of the runs' next calls; otherwise
 * sorting packs (start - lane minimum, position) into one 64-bit key for
 * a stable radix sort on the start's bits (ct_radix()) when it fits (a
 * lane spanning up to 2^(63 - log2 calls) ns, hours), qsort otherwise.
 * Either way the calls are gathered in that order into the scratch
 * arrays, so that the sweep and the numbers read them in sequence.
 * Scratch arrays are kept between ranks (they grow to the largest rank),
 * and a finished rank's arrays serve the next one; a rank of
 * CALLTREE_DROP_MIN calls or more frees its own copy of its calls once
 * they are gathered instead.  With calltree_set_threaded() steps 1-4 run
 * on a worker thread, which records what it would deliver (ct_rec_*); the
 * caller's thread replays it to the sink when it hands over the next
 * rank.
 */
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/calltree_int.h"
#include "scopedb/err.h"
#include "scopedb/util.h"
#include "util/thread.h"

/* ---- ranks being collected ---- */

void ct_rank_free_calls(struct ct_rank *r)
{
	free(r->start);
	free(r->dur);
	free(r->row);
	free(r->cid);
	free(r->pid);
	free(r->thr);
	free(r->task);
	r->start = r->dur = r->cid = r->pid = r->thr = r->task = NULL;
	r->row = NULL;
	r->cap = 0;
}

static void ct_rank_drop_calls(struct ct_rank *r)
{
	ct_rank_free_calls(r);
	r->n = 0;
}

static void ct_rank_free(struct ct_rank *r)
{
	if (!r)
		return;
	ct_rank_drop_calls(r);
	free(r->rows);
	free(r);
}

/* Give up r's tree: its calls are forgotten, only its rows are kept. */
static void ct_give_up(struct calltree *t, struct ct_rank *r, enum calltree_status why)
{
	t->held -= r->n;
	ct_rank_drop_calls(r);
	if (r->status == CALLTREE_OK)
		r->status = why;
}

/* Position of rank in t->open (sorted by rank), or where it would go. */
static size_t ct_find(const struct calltree *t, uint32_t rank, int *found)
{
	size_t lo = 0, hi = t->nopen;

	if (t->last < t->nopen && t->open[t->last]->rank == rank) {
		*found = 1;
		return t->last;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->open[mid]->rank < rank)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = lo < t->nopen && t->open[lo]->rank == rank;
	return lo;
}

/* The rank being collected, begun now if it is new (with the arrays of
 * the spare rank); NULL when memory ran out. */
static struct ct_rank *ct_open(struct calltree *t, uint32_t rank)
{
	struct ct_rank *r;
	int found;
	size_t at = ct_find(t, rank, &found);

	if (found) {
		t->last = at;
		return t->open[at];
	}
	if (util_grow(&t->open, &t->ocap, t->nopen + 1, sizeof(*t->open), 8))
		return NULL;
	if (t->spare) {
		struct ct_rank *sp = t->spare;

		t->spare = NULL;
		r = sp;
		memset(r, 0, offsetof(struct ct_rank, cap));
		r->status = CALLTREE_OK;
		r->has = 0;
		r->no_id = 0;
		r->nrows = 0;
	} else {
		r = calloc(1, sizeof(*r));
		if (!r)
			return NULL;
	}
	r->rank = rank;
	r->seq = t->seq++;
	memmove(t->open + at + 1, t->open + at, (t->nopen - at) * sizeof(*t->open));
	t->open[at] = r;
	t->nopen++;
	t->last = at;
	return r;
}

/* Take r out of t->open (not freed). */
static void ct_close(struct calltree *t, struct ct_rank *r)
{
	int found;
	size_t at = ct_find(t, r->rank, &found);

	if (!found)
		return;
	memmove(t->open + at, t->open + at + 1, (t->nopen - at - 1) * sizeof(*t->open));
	t->nopen--;
	t->last = SIZE_MAX;
}

/* Grow one per-call array of r to cap values (NULL stays NULL). */
static int ct_grow_col(int64_t **col, size_t cap)
{
	int64_t *v;

	if (!*col)
		return 0;
	v = realloc(*col, cap * sizeof(*v));
	if (!v)
		return -1;
	*col = v;
	util_huge_hint(v, cap * sizeof(*v));
	return 0;
}

/* Room for need more calls in r: 0, or -1 when memory ran out. */
static int ct_reserve(struct ct_rank *r, size_t need)
{
	size_t cap = r->cap ? r->cap : 1024;
	uint32_t *rw;

	if (r->start && r->n + need <= r->cap)
		return 0;
	while (cap < r->n + need)
		cap *= 2;
	if (ct_grow_col(&r->start, cap) || ct_grow_col(&r->dur, cap) || ct_grow_col(&r->cid, cap) ||
	    ct_grow_col(&r->pid, cap) || ct_grow_col(&r->thr, cap) || ct_grow_col(&r->task, cap))
		return -1;
	if (!r->start) {
		r->start = malloc(cap * sizeof(*r->start));
		if (!r->start)
			return -1;
		util_huge_hint(r->start, cap * sizeof(*r->start));
	}
	if (!r->dur) {
		r->dur = malloc(cap * sizeof(*r->dur));
		if (!r->dur)
			return -1;
		util_huge_hint(r->dur, cap * sizeof(*r->dur));
	}
	if (r->row) {
		rw = realloc(r->row, cap * sizeof(*rw));
		if (!rw)
			return -1;
		r->row = rw;
		util_huge_hint(rw, cap * sizeof(*rw));
	}
	r->cap = cap;
	return 0;
}

/* Each call's row, once a rank holds calls of a second row: until then
 * r->row is NULL and every call is of row 0 (CT_ROW()), so a rank of one
 * row, the largest there are, keeps no array of rows (4 bytes a call). */
static int ct_rows_needed(struct ct_rank *r)
{
	uint32_t *rw;

	if (r->row || r->nrows == 0)
		return 0;
	rw = malloc(r->cap * sizeof(*rw));
	if (!rw)
		return -1;
	util_huge_hint(rw, r->cap * sizeof(*rw));
	memset(rw, 0, r->n * sizeof(*rw));
	r->row = rw;
	return 0;
}

/* Copy the n values of src into col at r->n, or -1 (no column) into col
 * once the rank has it (bit of r->has); a column met for the first time
 * gets -1 for the earlier calls. */
static int ct_copy_col(struct ct_rank *r, unsigned bit, int64_t **col, const int64_t *src, size_t n)
{
	size_t i;

	if (!src && !(r->has & bit))
		return 0;
	if (!*col) {
		*col = malloc(r->cap * sizeof(**col));
		if (!*col)
			return -1;
		util_huge_hint(*col, r->cap * sizeof(**col));
	}
	if (!(r->has & bit))
		for (i = 0; i < r->n; i++)
			(*col)[i] = -1;
	if (src)
		memcpy(*col + r->n, src, n * sizeof(**col));
	else
		for (i = 0; i < n; i++)
			(*col)[r->n + i] = -1;
	return 0;
}

/* Make room for need calls within the budget: give up the ranks holding
 * the most calls until they fit (r itself, when it is the largest). */
static void ct_budget(struct calltree *t, struct ct_rank *r, uint64_t need)
{
	if (need > t->max_held || r->n + need > t->max_held) {
		ct_give_up(t, r, CALLTREE_TOO_MANY);
		return;
	}
	while (t->held + need > t->max_held && r->status == CALLTREE_OK) {
		struct ct_rank *big = r;
		size_t i;

		for (i = 0; i < t->nopen; i++)
			if (t->open[i]->n > big->n)
				big = t->open[i];
		ct_give_up(t, big, CALLTREE_TOO_MANY);
	}
}

/* Values copied between give-backs of a row's own durations (2 MB). */
#define CT_GIVE_STEP ((size_t)1 << 18)

/*
 * Copy the n durations of src, the caller's own copy (durations_own), to
 * dst, giving back src's pages as they are copied: a large row's
 * durations and the rank's copy of them are then not both whole at once
 * (one region of 16.7M calls: 134 MB less at the copy).
 */
static void ct_copy_giving_back(int64_t *dst, const int64_t *src, size_t n)
{
	size_t a, m;

	for (a = 0; a < n; a += m) {
		m = n - a < CT_GIVE_STEP ? n - a : CT_GIVE_STEP;
		memcpy(dst + a, src + a, m * sizeof(*dst));
		util_release_pages((void *)(uintptr_t)(src + a), m * sizeof(*src));
	}
}

/* Append the calls of row to r (r->status stays OK, or r is given up). */
static void ct_collect(struct calltree *t, struct ct_rank *r, const struct calltree_row *row)
{
	size_t n = (size_t)row->calls, i, at;
	const struct nest_cols *nc = &row->nest;
	int ids = nc->call_ids && nc->parent_ids;

	ct_budget(t, r, row->calls);
	if (r->status != CALLTREE_OK)
		return;
	if (ct_reserve(r, n) || ct_rows_needed(r) ||
	    ct_copy_col(r, CT_HAS_IDS, &r->cid, ids ? nc->call_ids : NULL, n) ||
	    ct_copy_col(r, CT_HAS_IDS, &r->pid, ids ? nc->parent_ids : NULL, n) ||
	    ct_copy_col(r, CT_HAS_THR, &r->thr, nc->thread_ids, n) ||
	    ct_copy_col(r, CT_HAS_TASK, &r->task, nc->task_ids, n)) {
		ct_give_up(t, r, CALLTREE_NOMEM);
		return;
	}
	r->has |= (ids ? CT_HAS_IDS : 0) | (nc->thread_ids ? CT_HAS_THR : 0) |
		  (nc->task_ids ? CT_HAS_TASK : 0);
	at = r->n;
	memcpy(r->start + at, row->starts, n * sizeof(*r->start));
	/* a large row, or the last of a large rank (built next) */
	if (row->durations_own && (n >= t->drop_min || (row->rank_last && at + n >= t->drop_min)))
		ct_copy_giving_back(r->dur + at, row->durations, n);
	else
		memcpy(r->dur + at, row->durations, n * sizeof(*r->dur));
	for (i = 0; r->row && i < n; i++)
		r->row[at + i] = (uint32_t)r->nrows;
	if (!ids)
		r->no_id += n;
	else
		for (i = 0; i < n; i++)
			r->no_id += nc->call_ids[i] < 0;
	r->n += n;
	t->held += n;
}

/* ---- the public calls ---- */

int calltree_new(struct calltree **out)
{
	struct calltree *t = calloc(1, sizeof(*t));

	*out = NULL;
	if (!t)
		return err_nomem();
	t->max_held = CALLTREE_MAX_HELD;
	t->drop_min = CALLTREE_DROP_MIN;
	t->last = SIZE_MAX;
	buf_init(&t->rec);
	i64vec_init(&t->replay);
	*out = t;
	return 0;
}

void calltree_set_budget(struct calltree *t, uint64_t max_held)
{
	t->max_held = max_held ? max_held : CALLTREE_MAX_HELD;
}

void calltree_set_drop(struct calltree *t, uint64_t min_calls)
{
	t->drop_min = min_calls ? min_calls : CALLTREE_DROP_MIN;
}

void calltree_set_merge(struct calltree *t, int mode)
{
	t->merge = mode;
}

void calltree_free(struct calltree *t)
{
	size_t i;

	if (!t)
		return;
	if (t->started) {
		/* the job in hand, if any, is finished first */
		pthread_mutex_lock(&t->mu);
		while (t->job && !t->job_done)
			pthread_cond_wait(&t->cv, &t->mu);
		pthread_mutex_unlock(&t->mu);
		util_thread_stop(t->thread, &t->mu, &t->cv, &t->quit);
	}
	ct_rank_free(t->job);
	buf_release(&t->rec);
	i64vec_release(&t->replay);
	for (i = 0; i < t->nopen; i++)
		ct_rank_free(t->open[i]);
	free(t->open);
	free(t->nodes);
	free(t->hash);
	ct_rank_free(t->spare);
	ct_scratch_release(&t->s);
	free(t);
}

/* Done with r (built): its calls are no longer held; it becomes the spare
 * rank (whose arrays the next rank takes) when it holds more than the
 * spare, else it is freed. */
static void ct_retire(struct calltree *t, struct ct_rank *r)
{
	t->held -= r->n;
	if (r->start && (!t->spare || r->cap >= t->spare->cap)) {
		ct_rank_free(t->spare);
		t->spare = r;
		return;
	}
	ct_rank_free(r);
}

/* ---- the worker thread ---- */

/* The kinds of recorded sink calls. */
enum { CT_REC_RANK = 1, CT_REC_NODE, CT_REC_PATH, CT_REC_SELF };

/* A recorded self time. */
struct ct_recself {
	uint32_t rank, region;
	int64_t self;
	enum calltree_self_source source;
};

static int ct_rec_put(struct calltree *t, unsigned char kind, const void *p, size_t n)
{
	int rc = buf_add(&t->rec, &kind, 1);

	return rc ? rc : buf_add(&t->rec, p, n);
}

static int ct_rec_rank(void *ctx, const struct calltree_rankinfo *r)
{
	return ct_rec_put(ctx, CT_REC_RANK, r, sizeof(*r));
}

static int ct_rec_node(void *ctx, const struct calltree_node *n)
{
	return ct_rec_put(ctx, CT_REC_NODE, n, sizeof(*n));
}

static int ct_rec_path(void *ctx, const struct calltree_path *p)
{
	struct calltree *t = ctx;
	int rc = ct_rec_put(t, CT_REC_PATH, p, sizeof(*p));

	if (!rc && !p->row_durations)
		rc = buf_add(&t->rec, p->durations, (size_t)p->calls * sizeof(*p->durations));
	return rc;
}

static int ct_rec_self(void *ctx, uint32_t rank, uint32_t region, int64_t self,
		       enum calltree_self_source source)
{
	struct ct_recself v;

	memset(&v, 0, sizeof(v));
	v.rank = rank;
	v.region = region;
	v.self = self;
	v.source = source;
	return ct_rec_put(ctx, CT_REC_SELF, &v, sizeof(v));
}

/* Hand what the worker recorded to sink, in order. */
static int ct_replay(struct calltree *t, const struct calltree_sink *sink)
{
	const unsigned char *p = (const unsigned char *)t->rec.data, *end = p + t->rec.len;
	int rc = 0;

	while (p < end && !rc) {
		unsigned char kind = *p++;

		if (kind == CT_REC_RANK) {
			struct calltree_rankinfo v;

			memcpy(&v, p, sizeof(v));
			p += sizeof(v);
			rc = sink->rank ? sink->rank(sink->ctx, &v) : 0;
		} else if (kind == CT_REC_NODE) {
			struct calltree_node v;

			memcpy(&v, p, sizeof(v));
			p += sizeof(v);
			rc = sink->node ? sink->node(sink->ctx, &v) : 0;
		} else if (kind == CT_REC_PATH) {
			struct calltree_path v;

			memcpy(&v, p, sizeof(v));
			p += sizeof(v);
			if (!v.row_durations) {
				/* copied out: the record need not be aligned */
				t->replay.len = 0;
				if (i64vec_reserve(&t->replay, (size_t)v.calls))
					return ERR_NOMEM;
				memcpy(t->replay.v, p, (size_t)v.calls * sizeof(int64_t));
				p += (size_t)v.calls * sizeof(int64_t);
				v.durations = t->replay.v;
			}
			rc = sink->path ? sink->path(sink->ctx, &v) : 0;
		} else {
			struct ct_recself v;

			memcpy(&v, p, sizeof(v));
			p += sizeof(v);
			rc = sink->self ? sink->self(sink->ctx, v.rank, v.region, v.self, v.source)
					: 0;
		}
	}
	return rc;
}

static void *ct_worker_main(void *arg)
{
	struct calltree *t = arg;
	const struct calltree_sink rec = {t, ct_rec_rank, ct_rec_node, ct_rec_path, ct_rec_self};

	pthread_mutex_lock(&t->mu);
	for (;;) {
		struct ct_rank *r;
		int rc;

		while (!t->quit && (!t->job || t->job_done))
			pthread_cond_wait(&t->cv, &t->mu);
		if (t->quit)
			break;
		r = t->job;
		pthread_mutex_unlock(&t->mu);
		t->rec.len = 0;
		rc = ct_build(t, r, &rec);
		pthread_mutex_lock(&t->mu);
		t->job_rc = rc;
		t->job_done = 1;
		pthread_cond_broadcast(&t->cv);
	}
	pthread_mutex_unlock(&t->mu);
	return NULL;
}

void calltree_set_threaded(struct calltree *t)
{
	if (t->started)
		return;
	t->started = !util_thread_start(&t->thread, &t->mu, &t->cv, ct_worker_main, t);
}

/* Wait for the job, if any, hand its results to sink and retire it. */
static int ct_reap(struct calltree *t, const struct calltree_sink *sink)
{
	int rc;

	if (!t->job)
		return 0;
	pthread_mutex_lock(&t->mu);
	while (!t->job_done)
		pthread_cond_wait(&t->cv, &t->mu);
	pthread_mutex_unlock(&t->mu);
	rc = t->job_rc;
	if (!rc)
		rc = ct_replay(t, sink);
	ct_retire(t, t->job);
	t->job = NULL;
	return rc;
}

/* Build r, which leaves the open ranks: on the worker (once the one
 * before is reaped), or here. */
static int ct_finish_rank(struct calltree *t, struct ct_rank *r, const struct calltree_sink *sink)
{
	int rc;

	ct_close(t, r);
	if (!t->started) {
		rc = ct_build(t, r, sink);
		ct_retire(t, r);
		return rc;
	}
	rc = ct_reap(t, sink);
	if (rc) {
		ct_retire(t, r);
		return rc;
	}
	pthread_mutex_lock(&t->mu);
	t->job = r;
	t->job_done = 0;
	pthread_cond_broadcast(&t->cv);
	pthread_mutex_unlock(&t->mu);
	return 0;
}

int calltree_can_hold(const struct calltree *t, uint64_t calls)
{
	return calls <= t->max_held; /* ct_budget()'s first test */
}

uint64_t calltree_max_held(const struct calltree *t)
{
	return t->max_held;
}

int calltree_add(struct calltree *t, const struct calltree_row *row,
		 const struct calltree_sink *sink)
{
	struct ct_rank *r = ct_open(t, row->rank);
	struct ct_row *w;
	int rc;

	if (!r)
		return err_nomem();
	if (util_grow(&r->rows, &r->rcap, r->nrows + 1, sizeof(*r->rows), 16))
		return ERR_NOMEM;
	w = &r->rows[r->nrows];
	w->region = row->region;
	w->has_events = row->has_events;
	w->calls = row->calls;
	w->exclusive = row->exclusive;
	if (row->has_events) {
		r->event_rows++;
		r->calls += row->calls;
		/* a rank the reader says has more calls than can be held is
		 * given up at once, before any are held (it would be later) */
		if (row->rank_calls > t->max_held && r->status == CALLTREE_OK)
			ct_give_up(t, r, CALLTREE_TOO_MANY);
		/* the job's calls count until it is reaped: reap it before
		 * giving up a rank for want of room, as if built at once */
		if (row->calls && r->status == CALLTREE_OK && t->job &&
		    t->held + row->calls > t->max_held) {
			rc = ct_reap(t, sink);
			if (rc)
				return rc;
		}
		if (row->calls && r->status == CALLTREE_OK)
			ct_collect(t, r, row); /* the calls of row r->nrows */
	} else if (row->calls) {
		r->incomplete = 1;
	}
	r->nrows++;
	return row->rank_last ? ct_finish_rank(t, r, sink) : 0;
}

static int ct_seq_cmp(const void *a, const void *b)
{
	const struct ct_rank *x = *(struct ct_rank *const *)a, *y = *(struct ct_rank *const *)b;

	return (x->seq > y->seq) - (x->seq < y->seq);
}

int calltree_finish(struct calltree *t, const struct calltree_sink *sink)
{
	struct ct_rank **v;
	size_t n = t->nopen, i;
	int rc = 0;

	if (n) {
		v = malloc(n * sizeof(*v));
		if (!v)
			return err_nomem();
		memcpy(v, t->open, n * sizeof(*v));
		qsort(v, n, sizeof(*v), ct_seq_cmp);
		for (i = 0; i < n && !rc; i++)
			rc = ct_finish_rank(t, v[i], sink);
		free(v);
	}
	return rc ? rc : ct_reap(t, sink);
}
