/*
 * calltree.c - the call tree of each rank, its paths and their numbers
 * (calltree.h; docs/format.md section 10).
 *
 * Collecting: calltree_add() copies each row's calls (start, duration,
 * which row, and the ids and lanes when the row has them) into its rank's
 * struct ct_rank, under the budget of held calls.  Building a rank:
 *
 *  1. lanes: calls are grouped by (thread, task), negative = main lane;
 *  2. parents: from the ids when every call has one, checked against the
 *     times (duplicates, a parent id not smaller than its call's, a parent
 *     that does not contain its call, children outlasting their parent:
 *     any of these and the ids are not used); else from containment per
 *     lane: calls sorted by start ascending, end descending (ties in the
 *     order the calls came), a stack of open calls, the top after popping
 *     the closed ones is the parent, and a call ending after the top ends
 *     is an overlap (no tree);
 *  3. in that order (parents before children), each call's path node:
 *     the parent's node plus its region, or the parent's node itself when
 *     the parent has the same region; its self time (duration minus its
 *     direct children's); the numbers of the (node, rank);
 *  4. delivery: the rank's status, each node once, the path rows, the
 *     self time of each row.
 *
 * Sorting packs (start - lane minimum, position) into one 64-bit key for
 * a stable radix sort on the start's bits (ct_radix()) when it fits (a
 * lane spanning up to 2^(63 - log2 calls) ns, hours), qsort otherwise;
 * the calls are then gathered in that order, so that the sweep and the
 * numbers read them in sequence.  Scratch arrays are kept between ranks
 * (they grow to the largest rank), and a finished rank's arrays serve the
 * next one.  With calltree_set_threaded() steps 1-4 run on a worker
 * thread, which records what it would deliver (ct_rec_*); the caller's
 * thread replays it to the sink when it hands over the next rank.
 */
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/calltree.h"
#include "scopedb/err.h"
#include "scopedb/util.h"

#define NONE UINT32_MAX

/* One row of a rank being collected. */
struct ct_row {
	uint32_t region;
	int has_events;
	uint64_t calls;
	int64_t exclusive;
};

/* Nesting columns a rank's rows had (struct ct_rank.has). */
#define CT_HAS_IDS 1u
#define CT_HAS_THR 2u
#define CT_HAS_TASK 4u
#define CT_HAS_LANES (CT_HAS_THR | CT_HAS_TASK)

/* A rank whose rows are being collected. */
struct ct_rank {
	uint32_t rank;
	uint64_t seq;		     /* when it began: ranks finish in this order */
	enum calltree_status status; /* OK, or given up: TOO_MANY, NOMEM */
	int incomplete;		     /* a row has calls but no events */
	size_t event_rows;	     /* rows with events (0: aggregate rows only) */
	uint64_t calls;		     /* calls of its event rows, held or not */
	size_t n, cap;		     /* calls held */
	int64_t *start, *dur;
	uint32_t *row;			 /* each call's row */
	int64_t *cid, *pid, *thr, *task; /* allocated when a row had them */
	unsigned has;			 /* CT_HAS_*: columns a row had */
	uint64_t no_id;			 /* held calls without an id */
	struct ct_row *rows;
	size_t nrows, rcap;
};

/* A path: its parent node and region, and its numbers on the rank being
 * built (reset after each rank). */
struct ct_node {
	uint32_t parent; /* NONE for a root */
	uint32_t region;
	uint32_t depth;
	uint32_t wid;	/* id given to the sink, NONE until delivered */
	uint32_t local; /* index among the rank's nodes, NONE = not used */
	uint32_t row;	/* the rank's row of its calls */
	int whole;	/* its outermost calls are all of that row's calls */
	uint64_t calls, nested;
	int64_t total, self;
};

/* Scratch of one rank's build, n values each (kept between ranks). */
struct ct_scratch {
	size_t cap;
	uint32_t *lane;		/* each call's lane */
	uint32_t *seg;		/* calls grouped by lane; then position of each call */
	uint32_t *order;	/* the calls, parents first */
	uint32_t *row;		/* gathered: each call's row */
	uint32_t *parent;	/* gathered: the parent's position, NONE = a root */
	uint32_t *node;		/* gathered: the node (the sweep's stack before) */
	uint32_t *touched;	/* nodes used by the rank, in first use order */
	int64_t *csum;		/* gathered: the direct children's durations */
	int64_t *keys;		/* sort keys; gathered starts; outermost durations */
	int64_t *tmp;		/* sort scratch; gathered durations */
	int64_t *rowself;	/* per row */
	uint32_t *cpar, *cnode; /* per row: the last parent node and its child */
	size_t rowcap;
	uint32_t *count; /* the radix sort's histograms */
	uint32_t *idtab; /* dense ids: id - smallest -> call */
	size_t idcap;
};

struct calltree {
	uint64_t max_held, held, seq;
	struct ct_rank **open; /* ranks being collected, by rank */
	size_t nopen, ocap;
	size_t last; /* index in open of the last rank added to */
	struct ct_node *nodes;
	uint32_t nnodes, nwid;
	size_t ncap;
	uint32_t *hash; /* (parent, region) -> node, NONE = empty */
	size_t hcap;
	struct ct_scratch s;
	struct ct_rank *spare; /* the last rank built: the next one takes its arrays */
	/* the worker thread (calltree_set_threaded()): it builds the job while
	 * the caller collects the next rank; its results are recorded in rec
	 * and replayed to the caller's sink when the job is reaped */
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int started, quit;
	struct ct_rank *job; /* handed to the worker, not reaped yet */
	int job_done, job_rc;
	struct buf rec;
	struct i64vec replay; /* a recorded path's durations */
};

/* ---- ranks being collected ---- */

static void ct_rank_drop_calls(struct ct_rank *r)
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
	r->n = r->cap = 0;
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
	}
	if (!r->dur) {
		r->dur = malloc(cap * sizeof(*r->dur));
		if (!r->dur)
			return -1;
	}
	rw = realloc(r->row, cap * sizeof(*rw));
	if (!rw)
		return -1;
	r->row = rw;
	r->cap = cap;
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

/* Append the calls of row to r (r->status stays OK, or r is given up). */
static void ct_collect(struct calltree *t, struct ct_rank *r, const struct calltree_row *row)
{
	size_t n = (size_t)row->calls, i, at;
	const struct nest_cols *nc = &row->nest;
	int ids = nc->call_ids && nc->parent_ids;

	ct_budget(t, r, row->calls);
	if (r->status != CALLTREE_OK)
		return;
	if (ct_reserve(r, n) || ct_copy_col(r, CT_HAS_IDS, &r->cid, ids ? nc->call_ids : NULL, n) ||
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
	memcpy(r->dur + at, row->durations, n * sizeof(*r->dur));
	for (i = 0; i < n; i++)
		r->row[at + i] = (uint32_t)r->nrows;
	if (!ids)
		r->no_id += n;
	else
		for (i = 0; i < n; i++)
			r->no_id += nc->call_ids[i] < 0;
	r->n += n;
	t->held += n;
}

/* ---- nodes ---- */

static size_t ct_hash(uint32_t parent, uint32_t region, size_t mask)
{
	uint64_t k = ((uint64_t)parent << 32 | region) * UINT64_C(0x9e3779b97f4a7c15);

	return (size_t)(k >> 32) & mask;
}

static int ct_rehash(struct calltree *t)
{
	size_t cap = t->hcap ? t->hcap * 2 : 1024, i, h;
	uint32_t *v = malloc(cap * sizeof(*v)), k;

	if (!v)
		return -1;
	for (i = 0; i < cap; i++)
		v[i] = NONE;
	for (k = 0; k < t->nnodes; k++) {
		for (h = ct_hash(t->nodes[k].parent, t->nodes[k].region, cap - 1); v[h] != NONE;
		     h = (h + 1) & (cap - 1))
			;
		v[h] = k;
	}
	free(t->hash);
	t->hash = v;
	t->hcap = cap;
	return 0;
}

/*
 * The node of parent + region, made when new: 0 and *out, or
 * CALLTREE_PATHS_DEEP / CALLTREE_PATHS_MANY when it would be too deep or
 * one too many, or -1 when memory ran out.
 */
static int ct_child(struct calltree *t, uint32_t parent, uint32_t region, uint32_t *out)
{
	uint32_t depth = parent == NONE ? 1 : t->nodes[parent].depth + 1;
	size_t h;
	struct ct_node *nd;

	if (t->hcap) {
		for (h = ct_hash(parent, region, t->hcap - 1); t->hash[h] != NONE;
		     h = (h + 1) & (t->hcap - 1)) {
			nd = &t->nodes[t->hash[h]];
			if (nd->parent == parent && nd->region == region) {
				*out = t->hash[h];
				return 0;
			}
		}
	}
	if (depth > CALLTREE_MAX_DEPTH)
		return CALLTREE_PATHS_DEEP;
	if (t->nnodes >= CALLTREE_MAX_NODES)
		return CALLTREE_PATHS_MANY;
	if (util_grow(&t->nodes, &t->ncap, (size_t)t->nnodes + 1, sizeof(*t->nodes), 256))
		return -1;
	if ((size_t)(t->nnodes + 1) * 2 > t->hcap && ct_rehash(t))
		return -1;
	nd = &t->nodes[t->nnodes];
	memset(nd, 0, sizeof(*nd));
	nd->parent = parent;
	nd->region = region;
	nd->depth = depth;
	nd->wid = NONE;
	nd->local = NONE;
	for (h = ct_hash(parent, region, t->hcap - 1); t->hash[h] != NONE;
	     h = (h + 1) & (t->hcap - 1))
		;
	t->hash[h] = t->nnodes;
	*out = t->nnodes++;
	return 0;
}

/* ---- building one rank ---- */

/* The radix sort's digits: at most 16 bits, so at most 4 passes over 64
 * bits (histograms of 2^16 counts each). */
#define CT_MAXDIGIT 16
#define CT_PASSES 4

/* The scratch arrays for n calls and nrows rows, or -1. */
static int ct_scratch(struct ct_scratch *s, size_t n, size_t nrows)
{
	size_t cap = n ? n : 1;

	if (!s->count) {
		s->count = malloc(((size_t)CT_PASSES << CT_MAXDIGIT) * sizeof(*s->count));
		if (!s->count)
			return -1;
	}
	if (cap > s->cap) {
		uint32_t **u[] = {&s->lane,   &s->seg,	&s->order,  &s->row,
				  &s->parent, &s->node, &s->touched};
		int64_t **w[] = {&s->csum, &s->keys, &s->tmp};
		size_t i;

		for (i = 0; i < sizeof(u) / sizeof(u[0]); i++) {
			void *v = realloc(*u[i], cap * sizeof(uint32_t));

			if (!v)
				return -1;
			*u[i] = v;
		}
		for (i = 0; i < sizeof(w) / sizeof(w[0]); i++) {
			void *v = realloc(*w[i], cap * sizeof(int64_t));

			if (!v)
				return -1;
			*w[i] = v;
		}
		s->cap = cap;
	}
	if (nrows > s->rowcap) {
		void *v = realloc(s->rowself, nrows * sizeof(*s->rowself));

		if (!v)
			return -1;
		s->rowself = v;
		v = realloc(s->cpar, nrows * sizeof(*s->cpar));
		if (!v)
			return -1;
		s->cpar = v;
		v = realloc(s->cnode, nrows * sizeof(*s->cnode));
		if (!v)
			return -1;
		s->cnode = v;
		s->rowcap = nrows;
	}
	return 0;
}

static void ct_scratch_release(struct ct_scratch *s)
{
	free(s->lane);
	free(s->seg);
	free(s->order);
	free(s->row);
	free(s->parent);
	free(s->node);
	free(s->touched);
	free(s->csum);
	free(s->keys);
	free(s->tmp);
	free(s->rowself);
	free(s->cpar);
	free(s->cnode);
	free(s->count);
	free(s->idtab);
	memset(s, 0, sizeof(*s));
}

/* The number of bits of v (0 for 0). */
static unsigned ct_bits(uint64_t v)
{
	unsigned b = 0;

	while (v) {
		b++;
		v >>= 1;
	}
	return b;
}

/*
 * Sort v[0..n) by their bits [lo, lo + bits), stably (LSD radix: as
 * few passes as cover those bits with digits of at most 16 bits, and not
 * many more buckets than values, the digits made equal: 3 passes of 13
 * bits for the 38 bits of a 4-minute span of starts; fewer passes over
 * the data beat smaller histograms.  All histograms are counted in one
 * read; a pass where every value has the same digit is skipped.)  Values
 * equal in those bits keep their order, so the bits below lo need no pass
 * of their own.  tmp holds n values; returns the array holding the result
 * (v or tmp).
 */
static uint64_t *ct_radix(uint32_t *count, uint64_t *v, uint64_t *tmp, size_t n, unsigned lo,
			  unsigned bits)
{
	unsigned most = ct_bits((uint64_t)n) - 2, passes, p, digit;
	uint64_t *src = v, *dst = tmp, mask;
	size_t i, buckets;

	if (n < 64 || !bits) {
		uint64_t field = bits >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << bits) - 1) << lo;

		for (i = 1; i < n; i++) {
			uint64_t x = v[i];
			size_t j = i;

			for (; j > 0 && (v[j - 1] & field) > (x & field); j--)
				v[j] = v[j - 1];
			v[j] = x;
		}
		return v;
	}
	most = most < 8 ? 8 : most > CT_MAXDIGIT ? CT_MAXDIGIT : most;
	passes = (bits + most - 1) / most;
	digit = (bits + passes - 1) / passes;
	buckets = (size_t)1 << digit;
	mask = buckets - 1;
	memset(count, 0, passes * buckets * sizeof(*count));
	for (i = 0; i < n; i++)
		for (p = 0; p < passes; p++)
			count[p * buckets + ((v[i] >> (lo + p * digit)) & mask)]++;
	for (p = 0; p < passes; p++) {
		uint32_t *c = count + p * buckets, sum = 0;
		unsigned shift = lo + p * digit;
		uint64_t *t;
		size_t k;

		if (c[(src[0] >> shift) & mask] == n)
			continue;
		for (k = 0; k < buckets; k++) {
			uint32_t x = c[k];

			c[k] = sum;
			sum += x;
		}
		for (i = 0; i < n; i++)
			dst[c[(src[i] >> shift) & mask]++] = src[i];
		t = src;
		src = dst;
		dst = t;
	}
	return src;
}

/* Sort durations v[0..m) (>= 0) ascending, with s->tmp as scratch (the
 * gathered durations are not needed any more when this runs). */
static void ct_sort_durations(struct ct_scratch *s, int64_t *v, size_t m)
{
	uint64_t mx = 0, *res;
	unsigned bits = 0;
	size_t i;

	for (i = 0; i < m; i++)
		mx |= (uint64_t)v[i];
	while (mx) {
		bits++;
		mx >>= 1;
	}
	res = ct_radix(s->count, (uint64_t *)v, (uint64_t *)s->tmp, m, 0, bits);
	if (res != (uint64_t *)v)
		memcpy(v, res, m * sizeof(*v));
}

/* A lane: (thread, task) with negative values as -1. */
struct ct_lane {
	int64_t thr, task;
};

static size_t ct_lane_hash(int64_t thr, int64_t task, size_t mask)
{
	uint64_t k = ((uint64_t)thr * UINT64_C(0x9e3779b97f4a7c15)) ^
		     ((uint64_t)task * UINT64_C(0xc2b2ae3d27d4eb4f));

	return (size_t)(k >> 29) & mask;
}

/*
 * Number each call's lane into s->lane (0 = the first lane met) and group
 * the calls by lane, each group in call order, into s->seg; off[0..L]
 * bound the groups (*off malloc'ed, L lanes in *nlanes).  -1 when memory
 * ran out.
 */
static int ct_lanes(struct ct_scratch *s, const struct ct_rank *r, size_t **off, size_t *nlanes)
{
	size_t n = r->n, i, L = 0, cap = 16, h, *o = NULL;
	struct ct_lane *lanes = NULL;
	uint32_t *tab = NULL;
	int rc = -1;

	*off = NULL;
	*nlanes = 0;
	if (!(r->has & CT_HAS_LANES)) {
		o = malloc(2 * sizeof(*o));
		if (!o)
			return -1;
		o[0] = 0;
		o[1] = n;
		for (i = 0; i < n; i++)
			s->seg[i] = (uint32_t)i;
		*off = o;
		*nlanes = 1;
		return 0;
	}
	tab = malloc(cap * sizeof(*tab));
	lanes = malloc((cap / 2) * sizeof(*lanes));
	if (!tab || !lanes)
		goto out;
	for (h = 0; h < cap; h++)
		tab[h] = NONE;
	for (i = 0; i < n; i++) {
		int64_t th = (r->has & CT_HAS_THR) && r->thr[i] >= 0 ? r->thr[i] : -1;
		int64_t tk = (r->has & CT_HAS_TASK) && r->task[i] >= 0 ? r->task[i] : -1;

		for (h = ct_lane_hash(th, tk, cap - 1); tab[h] != NONE; h = (h + 1) & (cap - 1))
			if (lanes[tab[h]].thr == th && lanes[tab[h]].task == tk)
				break;
		if (tab[h] == NONE) {
			if ((L + 1) * 2 > cap) {
				/* grow both and re-insert every lane */
				size_t nc = cap * 2, k;
				uint32_t *nt = malloc(nc * sizeof(*nt));
				struct ct_lane *nl = realloc(lanes, (nc / 2) * sizeof(*nl));

				if (nl)
					lanes = nl;
				if (!nt || !nl) {
					free(nt);
					goto out;
				}
				for (k = 0; k < nc; k++)
					nt[k] = NONE;
				for (k = 0; k < L; k++) {
					size_t g =
					    ct_lane_hash(lanes[k].thr, lanes[k].task, nc - 1);

					while (nt[g] != NONE)
						g = (g + 1) & (nc - 1);
					nt[g] = (uint32_t)k;
				}
				free(tab);
				tab = nt;
				cap = nc;
				for (h = ct_lane_hash(th, tk, cap - 1); tab[h] != NONE;
				     h = (h + 1) & (cap - 1))
					;
			}
			lanes[L].thr = th;
			lanes[L].task = tk;
			tab[h] = (uint32_t)L++;
		}
		s->lane[i] = tab[h];
	}
	o = calloc(L + 1, sizeof(*o));
	if (!o)
		goto out;
	for (i = 0; i < n; i++)
		o[s->lane[i] + 1]++;
	for (h = 0; h < L; h++)
		o[h + 1] += o[h];
	/* a counting sort: o[l] is where lane l's next call goes, then
	 * shifted back to the groups' starts */
	for (i = 0; i < n; i++)
		s->seg[o[s->lane[i]]++] = (uint32_t)i;
	for (h = L; h > 0; h--)
		o[h] = o[h - 1];
	o[0] = 0;
	*off = o;
	*nlanes = L;
	o = NULL;
	rc = 0;
out:
	free(o);
	free(tab);
	free(lanes);
	return rc;
}

/* A call as qsort sees it: (start, -duration, index) ascending. */
struct ct_sortrec {
	int64_t start, dur;
	uint32_t idx;
};

static int ct_sortrec_cmp(const void *a, const void *b)
{
	const struct ct_sortrec *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->dur != y->dur)
		return x->dur > y->dur ? -1 : 1;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

/*
 * Sort the m calls seg[0..m) (in call order) into out by start ascending,
 * duration descending, call order: a radix sort of (start - the lane's
 * first start, position) packed in 64 bits when they fit, qsort
 * otherwise; then runs of equal starts by duration.  -1 when memory ran
 * out.
 */
static int ct_sort_lane(struct ct_scratch *s, const struct ct_rank *r, const uint32_t *seg,
			size_t m, uint32_t *out)
{
	int64_t mn, mx;
	unsigned ib, kb;
	size_t j, i, k;

	if (m == 0)
		return 0;
	mn = mx = r->start[seg[0]];
	for (j = 1; j < m; j++) {
		int64_t v = r->start[seg[j]];

		mn = v < mn ? v : mn;
		mx = v > mx ? v : mx;
	}
	ib = ct_bits((uint64_t)(m - 1));
	kb = ct_bits((uint64_t)mx - (uint64_t)mn);
	if (kb + ib <= 63) {
		uint64_t mask = ((uint64_t)1 << ib) - 1, *keys = (uint64_t *)s->keys, *v;

		for (j = 0; j < m; j++)
			keys[j] = ((uint64_t)r->start[seg[j]] - (uint64_t)mn) << ib | j;
		/* only the start's bits: equal starts keep their positions
		 * order, which is the calls' order */
		v = ct_radix(s->count, keys, (uint64_t *)s->tmp, m, ib, kb);
		for (j = 0; j < m; j++)
			out[j] = seg[v[j] & mask];
	} else {
		struct ct_sortrec *v = malloc(m * sizeof(*v));

		if (!v)
			return -1;
		for (j = 0; j < m; j++) {
			v[j].start = r->start[seg[j]];
			v[j].dur = r->dur[seg[j]];
			v[j].idx = seg[j];
		}
		qsort(v, m, sizeof(*v), ct_sortrec_cmp);
		for (j = 0; j < m; j++)
			out[j] = v[j].idx;
		free(v);
		return 0;
	}
	/* equal starts: the longer call first, then call order */
	for (i = 0; i < m; i = k) {
		int64_t s0 = r->start[out[i]];

		for (k = i + 1; k < m && r->start[out[k]] == s0; k++)
			;
		if (k - i < 2)
			continue;
		if (k - i <= 32) {
			size_t a, b;

			for (a = i + 1; a < k; a++) {
				uint32_t x = out[a];

				for (b = a;
				     b > i && (r->dur[out[b - 1]] < r->dur[x] ||
					       (r->dur[out[b - 1]] == r->dur[x] && out[b - 1] > x));
				     b--)
					out[b] = out[b - 1];
				out[b] = x;
			}
		} else {
			struct ct_sortrec *v = malloc((k - i) * sizeof(*v));
			size_t a;

			if (!v)
				return -1;
			for (a = i; a < k; a++) {
				v[a - i].start = s0;
				v[a - i].dur = r->dur[out[a]];
				v[a - i].idx = out[a];
			}
			qsort(v, k - i, sizeof(*v), ct_sortrec_cmp);
			for (a = i; a < k; a++)
				out[a] = v[a - i].idx;
			free(v);
		}
	}
	return 0;
}

/*
 * The calls of r in s->order copied into sorted position k: their starts
 * (s->keys), durations (s->tmp) and rows (s->row), so that the passes
 * after the sort read them in order.
 */
static void ct_gather(struct ct_scratch *s, const struct ct_rank *r)
{
	size_t k;

	for (k = 0; k < r->n; k++) {
		uint32_t c = s->order[k];

		s->keys[k] = r->start[c];
		s->tmp[k] = r->dur[c];
		s->row[k] = r->row[c];
	}
}

/*
 * Containment in one lane: sweep the sorted calls [a, a + m) of s (in
 * gathered positions), keeping the open calls on a stack (s->node).  Sets
 * parent and csum (the direct children's durations) of each.  1 on an
 * overlap (info's pair set), else 0.
 */
static int ct_sweep(struct ct_scratch *s, const struct ct_rank *r, size_t a, size_t m,
		    struct calltree_rankinfo *info)
{
	const int64_t *st = s->keys, *du = s->tmp;
	uint32_t *stack = s->node;
	size_t k, top = 0;

	for (k = a; k < a + m; k++) {
		int64_t b = st[k], e = b + du[k];

		s->csum[k] = 0;
		/* pop what closed before k starts: ends at or before its start
		 * (a zero-length call closes only after its instant) */
		while (top) {
			uint32_t o = stack[top - 1];
			int64_t oe = st[o] + du[o];

			if (oe < b || (oe == b && du[o] > 0))
				top--;
			else
				break;
		}
		if (top) {
			uint32_t o = stack[top - 1];
			int64_t oe = st[o] + du[o];

			if (e > oe) {
				info->region_a = r->rows[s->row[o]].region;
				info->region_b = r->rows[s->row[k]].region;
				info->start_a = st[o];
				info->end_a = oe;
				info->start_b = b;
				info->end_b = e;
				return 1;
			}
			s->parent[k] = o;
			s->csum[o] += du[k];
		} else {
			s->parent[k] = NONE;
		}
		stack[top++] = (uint32_t)k;
	}
	return 0;
}

/* An id and its call, for files whose ids are sparse. */
struct ct_idrec {
	int64_t id;
	uint32_t idx;
};

static int ct_idrec_cmp(const void *a, const void *b)
{
	const struct ct_idrec *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

/*
 * The calls of r in the order of their ids (so parents first) into
 * s->order, and a lookup from id to call: a direct table when the ids are
 * dense, else the sorted records.  CALLTREE_IDS_USED, _DUPLICATE, or -1
 * when memory ran out.
 */
static int ct_id_order(struct ct_scratch *s, const struct ct_rank *r, int64_t *mn, uint32_t **tab,
		       struct ct_idrec **recs)
{
	size_t n = r->n, i;
	int64_t mx;

	*tab = NULL;
	*recs = NULL;
	*mn = mx = r->cid[0];
	for (i = 1; i < n; i++) {
		*mn = r->cid[i] < *mn ? r->cid[i] : *mn;
		mx = r->cid[i] > mx ? r->cid[i] : mx;
	}
	if ((uint64_t)(mx - *mn) < (uint64_t)n * 2 + 1024) {
		/* dense ids (the usual 0, 1, 2...): a direct table */
		size_t len = (size_t)(mx - *mn) + 1, k = 0;
		uint32_t *t = s->idtab;

		if (len > s->idcap) {
			t = realloc(s->idtab, len * sizeof(*t));
			if (!t)
				return -1;
			s->idtab = t;
			s->idcap = len;
		}
		*tab = t;
		for (i = 0; i < len; i++)
			t[i] = NONE;
		for (i = 0; i < n; i++) {
			size_t at = (size_t)(r->cid[i] - *mn);

			if (t[at] != NONE)
				return CALLTREE_IDS_DUPLICATE;
			t[at] = (uint32_t)i;
		}
		for (i = 0; i < len; i++)
			if (t[i] != NONE)
				s->order[k++] = t[i];
		return CALLTREE_IDS_USED;
	}
	*recs = malloc(n * sizeof(**recs));
	if (!*recs)
		return -1;
	for (i = 0; i < n; i++) {
		(*recs)[i].id = r->cid[i];
		(*recs)[i].idx = (uint32_t)i;
	}
	qsort(*recs, n, sizeof(**recs), ct_idrec_cmp);
	for (i = 0; i < n; i++) {
		if (i && (*recs)[i].id == (*recs)[i - 1].id)
			return CALLTREE_IDS_DUPLICATE;
		s->order[i] = (*recs)[i].idx;
	}
	return CALLTREE_IDS_USED;
}

/*
 * Parents from the ids: s->order (calls by id, so parents first), the
 * calls gathered in that order, s->parent and s->csum in gathered
 * positions.  CALLTREE_IDS_USED, another enum calltree_ids_issue when the
 * ids cannot be used, or -1 when memory ran out.
 */
static int ct_from_ids(struct ct_scratch *s, const struct ct_rank *r,
		       struct calltree_rankinfo *info)
{
	size_t n = r->n, k;
	int64_t mn;
	uint32_t *tab = NULL;
	struct ct_idrec *recs = NULL;
	int issue;

	if (n == 0)
		return CALLTREE_IDS_USED;
	issue = ct_id_order(s, r, &mn, &tab, &recs);
	if (issue)
		goto out;
	ct_gather(s, r);
	/* the lookups give positions from here on: the table's entries (in id
	 * order, so written in sequence), the records' indexes */
	for (k = 0; k < n; k++) {
		if (tab)
			tab[r->cid[s->order[k]] - mn] = (uint32_t)k;
		s->csum[k] = 0;
	}
	for (k = 0; k < n; k++) {
		uint32_t c = s->order[k], pk = NONE;
		int64_t p = r->pid[c];

		s->parent[k] = NONE;
		if (p < 0)
			continue;
		if (p >= r->cid[c]) {
			issue = CALLTREE_IDS_ORDER;
			goto out;
		}
		if (tab) {
			if (p >= mn)
				pk = tab[p - mn];
		} else {
			size_t lo = 0, hi = n;

			while (lo < hi) {
				size_t mid = lo + (hi - lo) / 2;

				if (recs[mid].id < p)
					lo = mid + 1;
				else
					hi = mid;
			}
			if (lo < n && recs[lo].id == p)
				pk = (uint32_t)lo;
		}
		if (pk == NONE) {
			info->orphans++;
			continue;
		}
		if ((r->has & CT_HAS_LANES) && s->lane[s->order[pk]] != s->lane[c]) {
			info->crosslane++;
			continue;
		}
		if (s->keys[pk] > s->keys[k] || s->keys[k] + s->tmp[k] > s->keys[pk] + s->tmp[pk]) {
			issue = CALLTREE_IDS_OUTSIDE;
			goto out;
		}
		if (__builtin_add_overflow(s->csum[pk], s->tmp[k], &s->csum[pk])) {
			issue = CALLTREE_IDS_CHILDREN;
			goto out;
		}
		s->parent[k] = pk;
	}
	for (k = 0; k < n; k++) {
		if (s->csum[k] > s->tmp[k]) {
			issue = CALLTREE_IDS_CHILDREN;
			goto out;
		}
	}
out:
	if (issue != CALLTREE_IDS_USED)
		info->orphans = info->crosslane = 0;
	free(recs);
	return issue;
}

/* Deliver rank r's status, paths and self times, then reset the nodes it
 * used.  nused nodes are in s->touched. */
static int ct_deliver(struct calltree *t, const struct ct_rank *r, struct calltree_rankinfo *info,
		      uint32_t nused, int paths, const struct calltree_sink *sink)
{
	struct ct_scratch *s = &t->s;
	size_t i, off = 0;
	uint32_t l;
	int rc = 0;

	info->paths = paths ? nused : 0;
	if (sink->rank && r->event_rows)
		rc = sink->rank(sink->ctx, info);
	for (l = 0; l < nused && paths && !rc; l++) {
		struct ct_node *nd = &t->nodes[s->touched[l]];
		struct calltree_path pr;

		if (nd->wid == NONE) {
			struct calltree_node cn;

			nd->wid = t->nwid++;
			cn.id = nd->wid;
			cn.parent = nd->parent == NONE ? -1 : (int64_t)t->nodes[nd->parent].wid;
			cn.region = nd->region;
			cn.depth = nd->depth;
			if (sink->node)
				rc = sink->node(sink->ctx, &cn);
			if (rc)
				break;
		}
		pr.rank = r->rank;
		pr.node = nd->wid;
		pr.calls = nd->calls;
		pr.nested = nd->nested;
		pr.total = nd->total;
		pr.self = nd->self;
		pr.row_durations = nd->whole;
		pr.durations = nd->whole ? NULL : s->keys + off;
		if (!nd->whole)
			off += (size_t)nd->calls;
		if (sink->path)
			rc = sink->path(sink->ctx, &pr);
	}
	for (i = 0; i < r->nrows && !rc; i++) {
		const struct ct_row *w = &r->rows[i];

		if (info->status == CALLTREE_OK && w->has_events)
			rc = sink->self ? sink->self(sink->ctx, r->rank, w->region, s->rowself[i],
						     CALLTREE_SELF_TREE)
					: 0;
		else if (w->exclusive >= 0 && sink->self)
			rc = sink->self(sink->ctx, r->rank, w->region, w->exclusive,
					CALLTREE_SELF_FILE);
	}
	for (l = 0; l < nused; l++) {
		struct ct_node *nd = &t->nodes[s->touched[l]];

		nd->local = NONE;
		nd->calls = nd->nested = 0;
		nd->total = nd->self = 0;
	}
	return rc;
}

/*
 * The numbers of rank r from its calls gathered parents first (s->keys,
 * s->tmp, s->row, s->parent, s->csum): each call's node and self time,
 * the (node, rank) sums, the rows' self times, and the outermost
 * durations grouped by node into s->keys (the starts are not needed any
 * more).  Returns 0, or -1 when memory ran out; *nused, *paths and
 * info->paths_issue say what was found.
 */
static int ct_numbers(struct calltree *t, const struct ct_rank *r, struct calltree_rankinfo *info,
		      uint32_t *nused, int *paths)
{
	struct ct_scratch *s = &t->s;
	size_t n = r->n, k;
	uint32_t used = 0, l;
	int64_t *off;

	*paths = 1;
	for (k = 0; k < r->nrows; k++) {
		s->rowself[k] = 0;
		s->cnode[k] = NONE;
	}
	for (k = 0; k < n; k++) {
		uint32_t p = s->parent[k], w = s->row[k], region = r->rows[w].region, nk;
		int64_t self = s->tmp[k] - s->csum[k];
		int outer = p == NONE || r->rows[s->row[p]].region != region, rc;
		struct ct_node *nd;

		s->rowself[w] += self;
		if (!*paths)
			continue;
		if (!outer) {
			nk = s->node[p];
		} else {
			uint32_t pn = p == NONE ? NONE : s->node[p];

			/* a region is mostly called from one place: its row
			 * remembers the last (parent node, node) */
			if (s->cnode[w] != NONE && s->cpar[w] == pn) {
				nk = s->cnode[w];
			} else {
				rc = ct_child(t, pn, region, &nk);
				if (rc < 0)
					return -1;
				if (rc) {
					info->paths_issue = (enum calltree_paths_issue)rc;
					*paths = 0;
					continue;
				}
				s->cpar[w] = pn;
				s->cnode[w] = nk;
			}
		}
		s->node[k] = nk;
		nd = &t->nodes[nk];
		if (nd->local == NONE) {
			nd->local = used;
			nd->row = w;
			s->touched[used++] = nk;
		}
		if (outer) {
			nd->calls++;
			nd->total += s->tmp[k];
		} else {
			nd->nested++;
		}
		nd->self += self;
	}
	*nused = used;
	if (!*paths)
		return 0;
	/* the outermost durations of the nodes that do not have all their
	 * row's calls, grouped by node in first use order: offsets in csum
	 * (no longer needed), values in keys */
	off = s->csum;
	for (l = 0, k = 0; l < used; l++) {
		struct ct_node *nd = &t->nodes[s->touched[l]];

		nd->whole = nd->calls == r->rows[nd->row].calls;
		off[l] = (int64_t)k;
		if (!nd->whole)
			k += (size_t)nd->calls;
	}
	if (k) {
		for (k = 0; k < n; k++) {
			uint32_t p = s->parent[k];
			const struct ct_node *nd = &t->nodes[s->node[k]];

			if (nd->whole ||
			    (p != NONE && r->rows[s->row[p]].region == r->rows[s->row[k]].region))
				continue;
			s->keys[off[nd->local]++] = s->tmp[k];
		}
	}
	for (l = 0, k = 0; l < used; l++) {
		const struct ct_node *nd = &t->nodes[s->touched[l]];

		if (nd->whole)
			continue;
		ct_sort_durations(s, s->keys + k, (size_t)nd->calls);
		k += (size_t)nd->calls;
	}
	return 0;
}

/* Build rank r (taken out of the open ranks) and deliver it. */
static int ct_build(struct calltree *t, struct ct_rank *r, const struct calltree_sink *sink)
{
	struct ct_scratch *s = &t->s;
	struct calltree_rankinfo info;
	size_t *off = NULL, nlanes = 0, l;
	uint32_t nused = 0;
	int paths = 0, rc = 0, issue;

	memset(&info, 0, sizeof(info));
	info.rank = r->rank;
	info.calls = r->calls;
	info.status = r->status;
	if (info.status == CALLTREE_OK && (r->incomplete || !r->event_rows))
		info.status = CALLTREE_INCOMPLETE;
	if (info.status != CALLTREE_OK)
		goto deliver;
	if (ct_scratch(s, r->n, r->nrows) || ct_lanes(s, r, &off, &nlanes)) {
		info.status = CALLTREE_NOMEM;
		goto deliver;
	}
	info.lanes = nlanes;
	info.method = CALLTREE_CONTAINMENT;
	if (r->has & CT_HAS_IDS) {
		issue = r->no_id ? (int)CALLTREE_IDS_PARTIAL : ct_from_ids(s, r, &info);
		if (issue < 0) {
			info.status = CALLTREE_NOMEM;
			goto deliver;
		}
		if (issue == CALLTREE_IDS_USED)
			info.method = CALLTREE_IDS;
		else
			info.ids_issue = (enum calltree_ids_issue)issue;
	}
	if (info.method == CALLTREE_CONTAINMENT) {
		/* no ids, or ids that cannot be used: containment per lane */
		for (l = 0; l < nlanes; l++) {
			if (ct_sort_lane(s, r, s->seg + off[l], off[l + 1] - off[l],
					 s->order + off[l])) {
				info.status = CALLTREE_NOMEM;
				goto deliver;
			}
		}
		ct_gather(s, r);
		for (l = 0; l < nlanes; l++) {
			if (ct_sweep(s, r, off[l], off[l + 1] - off[l], &info)) {
				info.status = CALLTREE_OVERLAP;
				goto deliver;
			}
		}
	}
	if (ct_numbers(t, r, &info, &nused, &paths)) {
		info.status = CALLTREE_NOMEM;
		paths = 0;
	}
deliver:
	if (info.status != CALLTREE_OK) {
		info.lanes = 0;
		info.orphans = info.crosslane = 0;
		paths = 0;
	}
	rc = ct_deliver(t, r, &info, nused, paths, sink);
	free(off);
	return rc;
}

/* ---- the public calls ---- */

int calltree_new(struct calltree **out)
{
	struct calltree *t = calloc(1, sizeof(*t));

	*out = NULL;
	if (!t)
		return err_nomem();
	t->max_held = CALLTREE_MAX_HELD;
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
		t->quit = 1;
		pthread_cond_broadcast(&t->cv);
		pthread_mutex_unlock(&t->mu);
		pthread_join(t->thread, NULL);
		pthread_cond_destroy(&t->cv);
		pthread_mutex_destroy(&t->mu);
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
	if (pthread_mutex_init(&t->mu, NULL))
		return;
	if (pthread_cond_init(&t->cv, NULL)) {
		pthread_mutex_destroy(&t->mu);
		return;
	}
	if (pthread_create(&t->thread, NULL, ct_worker_main, t)) {
		pthread_cond_destroy(&t->cv);
		pthread_mutex_destroy(&t->mu);
		return;
	}
	t->started = 1;
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
