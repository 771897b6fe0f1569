/*
 * calltree_paths.c - the paths of one rank and their numbers
 * (calltree_int.h; the containment sweep of step 2 and steps 3 and 4 of
 * calltree.c's overview): the nodes (a node is a parent node and a
 * region, found through an open-addressing hash, made when new within the
 * depth and count limits), each call's node and self time in
 * parents-first order (the ids' order, or each lane's sweep in start
 * order, which finds each call's parent and any overlap as it goes), the
 * (node, rank) sums and the outermost calls' durations grouped by node,
 * and the delivery of the rank's status, nodes, path rows and self times
 * to the sink.  ct_build() runs a whole rank: calltree_order.c's steps,
 * then these.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/calltree_int.h"
#include "scopedb/util.h"

/* ---- nodes ---- */

static size_t ct_hash(uint32_t parent, uint32_t region, size_t mask)
{
	uint64_t k = ((uint64_t)parent << 32 | region) * UINT64_C(0x9e3779b97f4a7c15);

	return (size_t)(k >> 32) & mask;
}

/* Fill the hash v of cap slots (a power of 2) with t's nodes. */
static void ct_hash_fill(const struct calltree *t, uint32_t *v, size_t cap)
{
	size_t i, h;
	uint32_t k;

	for (i = 0; i < cap; i++)
		v[i] = NONE;
	for (k = 0; k < t->nnodes; k++) {
		for (h = ct_hash(t->nodes[k].parent, t->nodes[k].region, cap - 1); v[h] != NONE;
		     h = (h + 1) & (cap - 1))
			;
		v[h] = k;
	}
}

static int ct_rehash(struct calltree *t)
{
	size_t cap = t->hcap ? t->hcap * 2 : 1024;
	uint32_t *v = malloc(cap * sizeof(*v));

	if (!v)
		return -1;
	ct_hash_fill(t, v, cap);
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

/* What ct_visit() counts over a rank's calls. */
struct ct_count {
	uint32_t used; /* nodes used, in s->touched */
	int paths;     /* 0 once the paths are given up */
};

/*
 * Call k of rank r (row w, duration dur, self time or its share self)
 * visited with its parent's node pn (NONE for a root; has_parent 0): its
 * node, made when new, written with CT_NESTED into s->row[k], and the
 * (node, rank) sums; less is taken off the parent node's self time.
 * When the paths are given up (too deep or too many) info->paths_issue
 * is set and c->paths is 0, s->row[k] left as the row.  0, or -1 when
 * memory ran out.  Inlined: it runs once a call.
 */
__attribute__((always_inline)) static inline int
ct_visit(struct calltree *t, const struct ct_rank *r, size_t k, int has_parent, uint32_t pn,
	 int64_t dur, int64_t self, int64_t less, struct calltree_rankinfo *info,
	 struct ct_count *c)
{
	struct ct_scratch *s = &t->s;
	uint32_t w = s->row[k], region = r->rows[w].region, nk;
	int outer = !has_parent || t->nodes[pn].region != region, rc;
	struct ct_node *nd;

	if (!outer) {
		nk = pn;
	} else if (s->cnode[w] != NONE && s->cpar[w] == pn) {
		/* a region is mostly called from one place: its row remembers
		 * the last (parent node, node) */
		nk = s->cnode[w];
	} else {
		rc = ct_child(t, pn, region, &nk);
		if (rc < 0)
			return -1;
		if (rc) {
			info->paths_issue = (enum calltree_paths_issue)rc;
			c->paths = 0;
			return 0;
		}
		s->cpar[w] = pn;
		s->cnode[w] = nk;
	}
	s->row[k] = outer ? nk : nk | CT_NESTED;
	if (has_parent)
		t->nodes[pn].self -= less;
	nd = &t->nodes[nk];
	if (nd->local == NONE) {
		nd->local = c->used;
		nd->row = w;
		s->touched[c->used++] = nk;
	}
	if (outer) {
		nd->calls++;
		nd->total += dur;
	} else {
		nd->nested++;
	}
	nd->self += self;
	return 0;
}

/*
 * The calls of rank r in ids order (parents first; each one's self time
 * in s->keys, duration in s->tmp, row in s->row, parent in s->parent)
 * visited: the parent came first, so its node is in its place of s->row.
 * 0, or -1 when memory ran out.
 */
static int ct_visit_ids(struct calltree *t, const struct ct_rank *r, struct calltree_rankinfo *info,
			struct ct_count *c)
{
	struct ct_scratch *s = &t->s;
	size_t k;

	for (k = 0; k < r->n; k++) {
		uint32_t p = s->parent[k];
		int64_t self = s->keys[k];

		s->rowself[s->row[k]] += self;
		if (c->paths && ct_visit(t, r, k, p != NONE, p == NONE ? NONE : CT_NODE(s->row[p]),
					 s->tmp[k], self, 0, info, c))
			return -1;
	}
	return 0;
}

/*
 * Whether an open call ending at end has closed when a call [b, e) starts:
 * it ended before b, or at b unless the new call is of zero length
 * (upstream pops the calls that end before the new call ends: a
 * zero-length call at an instant nests in the call that ends there, and
 * in one of that instant).
 */
static int ct_closed(int64_t end, int64_t b, int64_t e)
{
	return end < b || (end == b && e > b);
}

/*
 * Containment in lane [a, a + m) of rank r, its calls gathered in start
 * order (starts in s->keys, durations in s->tmp, rows in s->row): a sweep
 * keeps the open calls on a stack (positions in s->node, rows in
 * s->parent, ends in s->csum); the top, once the closed calls are popped,
 * is a call's parent, and the call is visited then (its parent's node is
 * in the parent's place of s->row).  A call's self time is its duration
 * less its direct children's: each call adds its duration to its own
 * node and row and takes it off its parent's, so no call's parent or
 * self time is kept for a pass after the sweep (4 bytes a call less).  0,
 * 1 on an overlap (a call ending after the call it starts in; info's
 * pair set), or -1 when memory ran out.
 */
static int ct_visit_lane(struct calltree *t, const struct ct_rank *r, size_t a, size_t m,
			 struct calltree_rankinfo *info, struct ct_count *c)
{
	struct ct_scratch *s = &t->s;
	const int64_t *st = s->keys, *du = s->tmp;
	int64_t *ends = s->csum;
	uint32_t *stack = s->node, *srow = s->parent;
	size_t k, top = 0;

	for (k = a; k < a + m; k++) {
		int64_t b = st[k], e = b + du[k];
		uint32_t w = s->row[k], o = NONE;

		while (top && ct_closed(ends[top - 1], b, e))
			top--;
		if (top) {
			o = stack[top - 1];
			if (e > ends[top - 1]) {
				info->region_a = r->rows[srow[top - 1]].region;
				info->region_b = r->rows[w].region;
				info->start_a = ends[top - 1] - du[o];
				info->end_a = ends[top - 1];
				info->start_b = b;
				info->end_b = e;
				return 1;
			}
			s->rowself[srow[top - 1]] -= du[k];
		}
		s->rowself[w] += du[k];
		if (c->paths && ct_visit(t, r, k, o != NONE, o == NONE ? NONE : CT_NODE(s->row[o]),
					 du[k], du[k], du[k], info, c))
			return -1;
		stack[top] = (uint32_t)k;
		srow[top] = w;
		ends[top++] = e;
	}
	return 0;
}

/*
 * Forget what a rank's numbering did before an overlap (or a failed
 * allocation) ended it: the sums of the c->used nodes it touched, and the
 * nodes it made (from n0 on, none delivered yet), so that a rank without
 * a tree leaves the paths as they were.  The hash is filled again in
 * place.
 */
static void ct_forget(struct calltree *t, uint32_t n0, const struct ct_count *c)
{
	uint32_t l;

	for (l = 0; l < c->used; l++) {
		struct ct_node *nd = &t->nodes[t->s.touched[l]];

		nd->local = NONE;
		nd->calls = nd->nested = 0;
		nd->total = nd->self = 0;
	}
	if (t->nnodes != n0) {
		t->nnodes = n0;
		ct_hash_fill(t, t->hash, t->hcap);
	}
}

/*
 * The numbers of rank r from its calls gathered (parents first by ids,
 * else the nlanes lanes bounded by off[] in start order): each call's
 * node, the (node, rank) sums, the rows' self times, and the outermost
 * durations grouped by node into s->keys (the starts or self times are
 * not needed any more by then).  Each call's node takes the place of its
 * row in s->row, so a rank's calls need no array of nodes.  Returns 0,
 * 1 when the calls of a lane overlap (nothing numbered then: no node
 * made, none touched, no paths issue), or -1 when memory ran out;
 * *nused, *paths and info->paths_issue say what was found (when *paths
 * is 0, s->row holds nodes only up to where the paths were given up).
 */
static int ct_numbers(struct calltree *t, const struct ct_rank *r, const size_t *off, size_t nlanes,
		      struct calltree_rankinfo *info, uint32_t *nused, int *paths)
{
	struct ct_scratch *s = &t->s;
	struct ct_count c = {0, 1};
	uint32_t n0 = t->nnodes;
	size_t n = r->n, k, l;
	int64_t *at;
	int rc = 0;

	*nused = 0;
	*paths = 0;
	for (k = 0; k < r->nrows; k++) {
		s->rowself[k] = 0;
		s->cnode[k] = NONE;
	}
	if (info->method == CALLTREE_IDS)
		rc = ct_visit_ids(t, r, info, &c);
	for (l = 0; info->method != CALLTREE_IDS && l < nlanes && !rc; l++)
		rc = ct_visit_lane(t, r, off[l], off[l + 1] - off[l], info, &c);
	if (rc) {
		ct_forget(t, n0, &c);
		info->paths_issue = CALLTREE_PATHS_OK;
		return rc;
	}
	*nused = c.used;
	*paths = c.paths;
	if (!c.paths)
		return 0;
	/* the outermost durations of the nodes that do not have all their
	 * row's calls, grouped by node in first use order: offsets in csum
	 * (no longer needed), values in keys */
	at = s->csum;
	for (l = 0, k = 0; l < c.used; l++) {
		struct ct_node *nd = &t->nodes[s->touched[l]];

		nd->whole = nd->calls == r->rows[nd->row].calls;
		at[l] = (int64_t)k;
		if (!nd->whole)
			k += (size_t)nd->calls;
	}
	if (k) {
		for (k = 0; k < n; k++) {
			const struct ct_node *nd = &t->nodes[CT_NODE(s->row[k])];

			if (nd->whole || (s->row[k] & CT_NESTED))
				continue;
			s->keys[at[nd->local]++] = s->tmp[k];
		}
	}
	for (l = 0, k = 0; l < c.used; l++) {
		const struct ct_node *nd = &t->nodes[s->touched[l]];

		if (nd->whole)
			continue;
		ct_sort_durations(s, s->keys + k, (size_t)nd->calls);
		k += (size_t)nd->calls;
	}
	return 0;
}

/*
 * Give back rank r's calls once they are gathered into the scratch (the
 * steps after the parents read only the scratch), when it holds at least
 * t->drop_min calls: a large rank's peak is then 20 bytes a call lower
 * (16 for a rank of one row, which keeps no rows; more with ids and
 * lanes).  A smaller rank keeps its arrays for the next rank to reuse.
 * r->n stays: the budget counts the rank until it retires.
 */
static void ct_drop_gathered(const struct calltree *t, struct ct_rank *r)
{
	if (r->n >= t->drop_min)
		ct_rank_free_calls(r);
}

/* Build rank r (taken out of the open ranks) and deliver it. */
int ct_build(struct calltree *t, struct ct_rank *r, const struct calltree_sink *sink)
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
		if (issue == CALLTREE_IDS_USED) {
			info.method = CALLTREE_IDS;
			ct_drop_gathered(t, r);
		} else
			info.ids_issue = (enum calltree_ids_issue)issue;
	}
	if (info.method == CALLTREE_CONTAINMENT) {
		/* no ids, or ids that cannot be used: containment per lane */
		for (l = 0; l < nlanes; l++) {
			if (ct_sort_lane(s, r, off[l], off[l + 1] - off[l], t->merge,
					 r->n >= t->drop_min)) {
				info.status = CALLTREE_NOMEM;
				goto deliver;
			}
		}
		ct_drop_gathered(t, r);
	}
	rc = ct_numbers(t, r, off, nlanes, &info, &nused, &paths);
	if (rc)
		info.status = rc == 1 ? CALLTREE_OVERLAP : CALLTREE_NOMEM;
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
