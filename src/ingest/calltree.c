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
 * the radix sort of util_sort_i64() when it fits (a lane spanning up to
 * 2^(63 - log2 calls) ns, hours), qsort otherwise.  Scratch arrays are
 * kept between ranks (they grow to the largest rank).
 */
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
	int64_t *cid, *pid, *thr, *task; /* NULL until a row has the column */
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
	uint64_t calls, nested;
	int64_t total, self;
};

/* Scratch of one rank's build, n values each. */
struct ct_scratch {
	size_t cap;
	uint32_t *lane, *seg, *order, *parent, *node;
	int64_t *csum, *keys;
	int64_t *rowself; /* per row */
	size_t rowcap;
	uint32_t *touched; /* nodes used by the rank, in first use order */
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

/* The rank being collected, begun now if it is new; NULL when memory ran
 * out. */
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
	r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
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
	t->held -= r->n;
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

	if (r->n + need <= r->cap)
		return 0;
	while (cap < r->n + need)
		cap *= 2;
	if (ct_grow_col(&r->start, cap) || ct_grow_col(&r->dur, cap) || ct_grow_col(&r->cid, cap) ||
	    ct_grow_col(&r->pid, cap) || ct_grow_col(&r->thr, cap) || ct_grow_col(&r->task, cap))
		return -1;
	if (!r->start) {
		r->start = malloc(cap * sizeof(*r->start));
		r->dur = malloc(cap * sizeof(*r->dur));
		if (!r->start || !r->dur)
			return -1;
	}
	rw = realloc(r->row, cap * sizeof(*rw));
	if (!rw)
		return -1;
	r->row = rw;
	r->cap = cap;
	return 0;
}

/* Copy the n values of src into col at r->n, or -1 (no column) into col;
 * a column met for the first time is created with -1 for earlier calls. */
static int ct_copy_col(struct ct_rank *r, int64_t **col, const int64_t *src, size_t n)
{
	size_t i;

	if (!src && !*col)
		return 0;
	if (!*col) {
		*col = malloc(r->cap * sizeof(**col));
		if (!*col)
			return -1;
		for (i = 0; i < r->n; i++)
			(*col)[i] = -1;
	}
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
	if (ct_reserve(r, n) || ct_copy_col(r, &r->cid, ids ? nc->call_ids : NULL, n) ||
	    ct_copy_col(r, &r->pid, ids ? nc->parent_ids : NULL, n) ||
	    ct_copy_col(r, &r->thr, nc->thread_ids, n) ||
	    ct_copy_col(r, &r->task, nc->task_ids, n)) {
		ct_give_up(t, r, CALLTREE_NOMEM);
		return;
	}
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

/* The scratch arrays for n calls and nrows rows, or -1. */
static int ct_scratch(struct ct_scratch *s, size_t n, size_t nrows)
{
	size_t cap = n ? n : 1;

	if (cap > s->cap) {
		uint32_t **u[] = {&s->lane, &s->seg, &s->order, &s->parent, &s->node, &s->touched};
		int64_t **w[] = {&s->csum, &s->keys};
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
		s->rowcap = nrows;
	}
	return 0;
}

static void ct_scratch_release(struct ct_scratch *s)
{
	free(s->lane);
	free(s->seg);
	free(s->order);
	free(s->parent);
	free(s->node);
	free(s->touched);
	free(s->csum);
	free(s->keys);
	free(s->rowself);
	memset(s, 0, sizeof(*s));
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
	if (!r->thr && !r->task) {
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
		int64_t th = r->thr && r->thr[i] >= 0 ? r->thr[i] : -1;
		int64_t tk = r->task && r->task[i] >= 0 ? r->task[i] : -1;

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
 * Sort the m calls seg[0..m) (in call order) into out by start ascending,
 * duration descending, call order.  -1 when memory ran out.
 */
static int ct_sort_lane(const struct ct_rank *r, int64_t *keys, const uint32_t *seg, size_t m,
			uint32_t *out)
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
		uint64_t mask = ((uint64_t)1 << ib) - 1;

		for (j = 0; j < m; j++)
			keys[j] = (int64_t)(((uint64_t)r->start[seg[j]] - (uint64_t)mn) << ib | j);
		util_sort_i64(keys, m);
		for (j = 0; j < m; j++)
			out[j] = seg[(uint64_t)keys[j] & mask];
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
 * Containment in one lane: sweep the calls in[0..m), sorted, keeping the
 * open calls on a stack (stack: m values).  Sets parent and csum (the
 * direct children's durations) of each call.  1 on an overlap (info's
 * pair set), else 0.
 */
static int ct_sweep(const struct ct_rank *r, const uint32_t *in, size_t m, uint32_t *stack,
		    uint32_t *parent, int64_t *csum, struct calltree_rankinfo *info)
{
	size_t j, top = 0;

	for (j = 0; j < m; j++) {
		uint32_t c = in[j];
		int64_t s = r->start[c], e = s + r->dur[c];

		csum[c] = 0;
		/* pop what closed before c starts: ends at or before its start
		 * (a zero-length call closes only after its instant) */
		while (top) {
			uint32_t o = stack[top - 1];
			int64_t oe = r->start[o] + r->dur[o];

			if (oe < s || (oe == s && r->dur[o] > 0))
				top--;
			else
				break;
		}
		if (top) {
			uint32_t o = stack[top - 1];
			int64_t oe = r->start[o] + r->dur[o];

			if (e > oe) {
				info->region_a = r->rows[r->row[o]].region;
				info->region_b = r->rows[r->row[c]].region;
				info->start_a = r->start[o];
				info->end_a = oe;
				info->start_b = s;
				info->end_b = e;
				return 1;
			}
			parent[c] = o;
			csum[o] += r->dur[c];
		} else {
			parent[c] = NONE;
		}
		stack[top++] = c;
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
 * Parents from the ids: s->order (calls by id, so parents first),
 * s->parent and s->csum.  CALLTREE_IDS_USED, another enum calltree_ids_issue
 * when the ids cannot be used, or -1 when memory ran out.
 */
static int ct_from_ids(struct ct_scratch *s, const struct ct_rank *r,
		       struct calltree_rankinfo *info)
{
	size_t n = r->n, i;
	int64_t mn, mx;
	uint32_t *tab = NULL;
	struct ct_idrec *recs = NULL;
	int issue = CALLTREE_IDS_USED;

	if (n == 0)
		return CALLTREE_IDS_USED;
	mn = mx = r->cid[0];
	for (i = 1; i < n; i++) {
		mn = r->cid[i] < mn ? r->cid[i] : mn;
		mx = r->cid[i] > mx ? r->cid[i] : mx;
	}
	if ((uint64_t)(mx - mn) < (uint64_t)n * 2 + 1024) {
		/* dense ids (the usual 0, 1, 2...): a direct table */
		size_t len = (size_t)(mx - mn) + 1, k = 0;

		tab = malloc(len * sizeof(*tab));
		if (!tab)
			return -1;
		for (i = 0; i < len; i++)
			tab[i] = NONE;
		for (i = 0; i < n; i++) {
			size_t at = (size_t)(r->cid[i] - mn);

			if (tab[at] != NONE) {
				issue = CALLTREE_IDS_DUPLICATE;
				goto out;
			}
			tab[at] = (uint32_t)i;
		}
		for (i = 0; i < len; i++)
			if (tab[i] != NONE)
				s->order[k++] = tab[i];
	} else {
		recs = malloc(n * sizeof(*recs));
		if (!recs)
			return -1;
		for (i = 0; i < n; i++) {
			recs[i].id = r->cid[i];
			recs[i].idx = (uint32_t)i;
		}
		qsort(recs, n, sizeof(*recs), ct_idrec_cmp);
		for (i = 0; i < n; i++) {
			if (i && recs[i].id == recs[i - 1].id) {
				issue = CALLTREE_IDS_DUPLICATE;
				goto out;
			}
			s->order[i] = recs[i].idx;
		}
	}
	for (i = 0; i < n; i++)
		s->csum[i] = 0;
	for (i = 0; i < n; i++) {
		int64_t p = r->pid[i];
		uint32_t q = NONE;

		s->parent[i] = NONE;
		if (p < 0)
			continue;
		if (p >= r->cid[i]) {
			issue = CALLTREE_IDS_ORDER;
			goto out;
		}
		if (tab) {
			if (p >= mn)
				q = tab[p - mn];
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
				q = recs[lo].idx;
		}
		if (q == NONE) {
			info->orphans++;
			continue;
		}
		if ((r->thr || r->task) && s->lane[q] != s->lane[i]) {
			info->crosslane++;
			continue;
		}
		if (r->start[q] > r->start[i] ||
		    r->start[i] + r->dur[i] > r->start[q] + r->dur[q]) {
			issue = CALLTREE_IDS_OUTSIDE;
			goto out;
		}
		if (__builtin_add_overflow(s->csum[q], r->dur[i], &s->csum[q])) {
			issue = CALLTREE_IDS_CHILDREN;
			goto out;
		}
		s->parent[i] = q;
	}
	for (i = 0; i < n; i++) {
		if (s->csum[i] > r->dur[i]) {
			issue = CALLTREE_IDS_CHILDREN;
			goto out;
		}
	}
out:
	if (issue != CALLTREE_IDS_USED)
		info->orphans = info->crosslane = 0;
	free(tab);
	free(recs);
	return issue;
}

/* The ct_child() of call c (whose parent is p), or an issue / -1. */
static int ct_node_of(struct calltree *t, const struct ct_rank *r, uint32_t c, uint32_t p,
		      int *outer)
{
	const struct ct_scratch *s = &t->s;
	uint32_t region = r->rows[r->row[c]].region;

	if (p != NONE && r->rows[r->row[p]].region == region) {
		*outer = 0;
		t->s.node[c] = s->node[p];
		return 0;
	}
	*outer = 1;
	return ct_child(t, p == NONE ? NONE : s->node[p], region, &t->s.node[c]);
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
		pr.durations = s->keys + off;
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

/* The numbers of rank r from s->order and s->parent: nodes, self times,
 * the outermost durations grouped by node in s->keys.  Returns 0, or -1
 * when memory ran out; *nused, *paths and info->paths_issue say what was
 * found. */
static int ct_numbers(struct calltree *t, const struct ct_rank *r, struct calltree_rankinfo *info,
		      uint32_t *nused, int *paths)
{
	struct ct_scratch *s = &t->s;
	size_t n = r->n, i;
	uint32_t used = 0, l;
	int64_t *off;

	*paths = 1;
	for (i = 0; i < r->nrows; i++)
		s->rowself[i] = 0;
	for (i = 0; i < n; i++) {
		uint32_t c = s->order[i], p = s->parent[c];
		int64_t self = r->dur[c] - s->csum[c];
		int outer, rc;

		s->rowself[r->row[c]] += self;
		if (!*paths)
			continue;
		rc = ct_node_of(t, r, c, p, &outer);
		if (rc < 0)
			return -1;
		if (rc) {
			info->paths_issue = (enum calltree_paths_issue)rc;
			*paths = 0;
			continue;
		}
		{
			struct ct_node *nd = &t->nodes[s->node[c]];

			if (nd->local == NONE) {
				nd->local = used;
				s->touched[used++] = s->node[c];
			}
			if (outer) {
				nd->calls++;
				nd->total += r->dur[c];
			} else {
				nd->nested++;
			}
			nd->self += self;
		}
	}
	*nused = used;
	if (!*paths)
		return 0;
	/* the outermost durations, grouped by node in first use order:
	 * offsets in csum (no longer needed), values in keys */
	off = s->csum;
	off[0] = 0;
	for (l = 1; l < used; l++)
		off[l] = off[l - 1] + (int64_t)t->nodes[s->touched[l - 1]].calls;
	for (i = 0; i < n; i++) {
		uint32_t c = s->order[i], p = s->parent[c];

		if (p != NONE && r->rows[r->row[p]].region == r->rows[r->row[c]].region)
			continue;
		s->keys[off[t->nodes[s->node[c]].local]++] = r->dur[c];
	}
	for (l = 0, i = 0; l < used; l++) {
		size_t m = (size_t)t->nodes[s->touched[l]].calls;

		util_sort_i64(s->keys + i, m);
		i += m;
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
	if (r->cid) {
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
			size_t a = off[l], m = off[l + 1] - off[l];

			if (ct_sort_lane(r, s->keys, s->seg + a, m, s->order + a)) {
				info.status = CALLTREE_NOMEM;
				goto deliver;
			}
			if (ct_sweep(r, s->order + a, m, s->node, s->parent, s->csum, &info)) {
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
	for (i = 0; i < t->nopen; i++)
		ct_rank_free(t->open[i]);
	free(t->open);
	free(t->nodes);
	free(t->hash);
	ct_scratch_release(&t->s);
	free(t);
}

/* Build r, which leaves the open ranks, and free it. */
static int ct_finish_rank(struct calltree *t, struct ct_rank *r, const struct calltree_sink *sink)
{
	int rc;

	ct_close(t, r);
	rc = ct_build(t, r, sink);
	ct_rank_free(r);
	return rc;
}

int calltree_add(struct calltree *t, const struct calltree_row *row,
		 const struct calltree_sink *sink)
{
	struct ct_rank *r = ct_open(t, row->rank);
	struct ct_row *w;

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

	if (!n)
		return 0;
	v = malloc(n * sizeof(*v));
	if (!v)
		return err_nomem();
	memcpy(v, t->open, n * sizeof(*v));
	qsort(v, n, sizeof(*v), ct_seq_cmp);
	for (i = 0; i < n && !rc; i++)
		rc = ct_finish_rank(t, v[i], sink);
	free(v);
	return rc;
}
