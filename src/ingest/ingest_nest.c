/*
 * ingest_nest.c - the store's process's side of the call-tree frames
 * (ingest_nest.h): checking each against the ones before it, counting,
 * the warning for ranks without a tree or without paths, the self times
 * and the paths stored with a run, and the walk over the frames.  The
 * frames themselves belong to the pending file (ingest.c).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/ingest_nest.h"
#include "scopedb/store.h"
#include "scopedb/err.h"
#include "scopedb/util.h"

void ingest_rowmap_release(struct ingest_rowmap *m)
{
	if (!m)
		return;
	free(m->keys);
	free(m->vals);
	free(m->dense);
	free(m->present);
	memset(m, 0, sizeof(*m));
}

/* Cells of a grid at most (128 MB of values), and per key held: an array
 * of 8 bytes a cell costs at most 4 times the hash's 32 bytes a key, so
 * numbers a file claims cannot make the store's process hold much more
 * than the keys it was sent. */
#define INGEST_ROWMAP_CELLS ((size_t)1 << 24)
#define INGEST_ROWMAP_CELLS_PER_KEY 16

void ingest_rowmap_grid(struct ingest_rowmap *m, uint32_t nranks, size_t nregions, size_t rows)
{
	size_t cells;

	if (!nranks || !nregions || nregions > INGEST_ROWMAP_CELLS / nranks)
		return;
	cells = (size_t)nranks * nregions;
	if (cells / 2 > rows || m->dense)
		return; /* sparse: the hash is smaller */
	m->nranks = nranks;
	m->nregions = (uint32_t)nregions;
}

/* The cell of (rank, region) in m's array, or SIZE_MAX outside it. */
static size_t ingest_rowmap_cell(const struct ingest_rowmap *m, uint32_t rank, uint32_t region)
{
	if (!m->dense || rank >= m->nranks || region >= m->nregions)
		return SIZE_MAX;
	return (size_t)rank * m->nregions + region;
}

static size_t ingest_rowmap_slot(const uint64_t *keys, size_t cap, uint64_t key)
{
	size_t h = (size_t)((key * UINT64_C(0x9e3779b97f4a7c15)) >> 32) & (cap - 1);

	while (keys[h] && keys[h] != key)
		h = (h + 1) & (cap - 1);
	return h;
}

/* m's keys into a new hash of cap slots (*k, *w); with dense (and its
 * present bits), those inside m's grid into the array instead.  0 or
 * ERR_NOMEM (*k and *w not made). */
static int ingest_rowmap_rehash(const struct ingest_rowmap *m, size_t cap, uint64_t **k,
				uint64_t **w, uint64_t *dense, uint64_t *present)
{
	size_t i, h;

	*k = calloc(cap, sizeof(**k));
	*w = malloc(cap * sizeof(**w));
	if (!*k || !*w) {
		free(*k);
		free(*w);
		return err_nomem();
	}
	for (i = 0; i < m->cap; i++) {
		uint64_t key = m->keys[i];
		uint32_t rank = (uint32_t)((key - 1) >> 32), region = (uint32_t)(key - 1);

		if (!key)
			continue;
		if (dense && rank < m->nranks && region < m->nregions) {
			h = (size_t)rank * m->nregions + region;
			dense[h] = m->vals[i];
			present[h / 64] |= UINT64_C(1) << (h % 64);
			continue;
		}
		h = ingest_rowmap_slot(*k, cap, key);
		(*k)[h] = key;
		(*w)[h] = m->vals[i];
	}
	return 0;
}

/* The hash full: grow it, or move the keys inside m's grid into an array
 * when the grid is not much larger than the keys held. */
static int ingest_rowmap_grow(struct ingest_rowmap *m)
{
	size_t cells = (size_t)m->nranks * m->nregions, cap = m->cap ? m->cap * 2 : 1024, i,
	       out = 0;
	uint64_t *k, *w, *dense = NULL, *present = NULL;
	int rc;

	if (cells && !m->dense && cells <= INGEST_ROWMAP_CELLS_PER_KEY * (m->n + 1)) {
		dense = malloc(cells * sizeof(*dense));
		present = calloc(cells / 64 + 1, sizeof(*present));
		if (!dense || !present) {
			free(dense);
			free(present);
			return err_nomem();
		}
		for (i = 0; i < m->cap; i++) {
			uint64_t key = m->keys[i];

			out += key &&
			       ((key - 1) >> 32 >= m->nranks || (uint32_t)(key - 1) >= m->nregions);
		}
		for (cap = 1024; (out + 1) * 2 > cap; cap *= 2)
			;
	}
	rc = ingest_rowmap_rehash(m, cap, &k, &w, dense, present);
	if (rc) {
		free(dense);
		free(present);
		return rc;
	}
	free(m->keys);
	free(m->vals);
	m->keys = k;
	m->vals = w;
	m->cap = cap;
	if (dense) {
		m->dense = dense;
		m->present = present;
		m->n = out;
	}
	return 0;
}

int ingest_rowmap_put(struct ingest_rowmap *m, uint32_t rank, uint32_t region, uint64_t v)
{
	uint64_t key = ((uint64_t)rank << 32 | region) + 1;
	size_t h = ingest_rowmap_cell(m, rank, region);
	int rc;

	if (h == SIZE_MAX && (m->n + 1) * 2 > m->cap) {
		rc = ingest_rowmap_grow(m);
		if (rc)
			return rc;
		h = ingest_rowmap_cell(m, rank, region);
	}
	if (h != SIZE_MAX) {
		m->present[h / 64] |= UINT64_C(1) << (h % 64);
		m->dense[h] = v;
		return 0;
	}
	h = ingest_rowmap_slot(m->keys, m->cap, key);
	if (!m->keys[h]) {
		m->keys[h] = key;
		m->n++;
	}
	m->vals[h] = v;
	return 0;
}

int ingest_rowmap_each(const struct ingest_rowmap *m,
		       int (*fn)(void *ctx, uint32_t rank, uint32_t region, uint64_t v), void *ctx)
{
	size_t i, cells = m->dense ? (size_t)m->nranks * m->nregions : 0;
	int rc = 0;

	for (i = 0; !rc && i < m->cap; i++)
		if (m->keys[i])
			rc = fn(ctx, (uint32_t)((m->keys[i] - 1) >> 32), (uint32_t)(m->keys[i] - 1),
				m->vals[i]);
	for (i = 0; !rc && i < cells; i++)
		if (m->present[i / 64] >> (i % 64) & 1)
			rc = fn(ctx, (uint32_t)(i / m->nregions), (uint32_t)(i % m->nregions),
				m->dense[i]);
	return rc;
}

int ingest_rowmap_get(const struct ingest_rowmap *m, uint32_t rank, uint32_t region, uint64_t *v)
{
	uint64_t key = ((uint64_t)rank << 32 | region) + 1;
	size_t h = ingest_rowmap_cell(m, rank, region);

	if (h != SIZE_MAX) {
		if (!(m->present[h / 64] >> (h % 64) & 1))
			return 0;
		*v = m->dense[h];
		return 1;
	}
	if (!m->cap)
		return 0;
	h = ingest_rowmap_slot(m->keys, m->cap, key);
	if (!m->keys[h])
		return 0;
	*v = m->vals[h];
	return 1;
}

void ingest_nest_init(struct ingest_nest *n)
{
	memset(n, 0, sizeof(*n));
}

void ingest_nest_release(struct ingest_nest *n)
{
	if (!n)
		return;
	ingest_rowmap_release(&n->rows);
	ingest_rowmap_release(&n->seen);
	ingest_rowmap_release(&n->self_ns);
	free(n->node_region);
	free(n->node_depth);
	memset(n, 0, sizeof(*n));
}

int ingest_nest_bad(void)
{
	return err_set(ERR_GENERIC, "the reader process sent malformed data");
}

/* Note a rank's status: count it, keep the first one with a problem.  A
 * rank counts as having a tree (run_nesting.trees) only when its paths
 * are kept: one whose path is too deep, or that met too many paths, keeps
 * its self times but has no paths, and --by path and export must know
 * that its calls are missing from them. */
static int ingest_nest_rank(struct ingest_nest *n, const struct calltree_rankinfo *r)
{
	int ok = r->status == CALLTREE_OK && r->paths_issue == CALLTREE_PATHS_OK;

	n->nests++;
	/* a rank of no call is no rank with calls, tree or not */
	n->ranks += !(ok && r->calls == 0);
	n->trees += ok && r->calls > 0;
	if (!ok && !n->problems)
		n->first = *r;
	n->problems += !ok;
	return ingest_rowmap_put(&n->seen, r->rank, 0, 1);
}

/* ingest_nest_end()'s walk over the rows: each rank with calls, no
 * WIRE_NEST and not yet counted. */
struct ingest_nest_endwalk {
	struct ingest_nest *n;
	struct ingest_rowmap counted;
	uint64_t before;
};

static int ingest_nest_end_row(void *ctx, uint32_t rank, uint32_t region, uint64_t calls)
{
	struct ingest_nest_endwalk *e = ctx;
	struct ingest_nest *n = e->n;
	uint64_t v;

	(void)region;
	if (!calls || ingest_rowmap_get(&n->seen, rank, 0, &v) ||
	    ingest_rowmap_get(&e->counted, rank, 0, &v))
		return 0;
	/* the warning names the lowest such rank (the map has no order) */
	if (!e->before && (n->problems == e->before || rank < n->first.rank)) {
		memset(&n->first, 0, sizeof(n->first));
		n->first.rank = rank;
		n->first.status = CALLTREE_TOTALS;
	}
	n->problems++;
	n->ranks++;
	return ingest_rowmap_put(&e->counted, rank, 0, 1);
}

int ingest_nest_end(struct ingest_nest *n)
{
	struct ingest_nest_endwalk e = {n, INGEST_ROWMAP_INIT, n->problems};
	int rc = n->nests ? ingest_rowmap_each(&n->rows, ingest_nest_end_row, &e) : 0;

	ingest_rowmap_release(&e.counted);
	return rc;
}

/* A node in sequence after the ones received: keep its region and depth. */
static int ingest_nest_node(struct ingest_nest *n, const struct calltree_node *nd)
{
	if (nd->id != n->nodes)
		return ingest_nest_bad();
	if (nd->parent >= 0 && (n->node_depth[nd->parent] + 1 != nd->depth ||
				n->node_region[nd->parent] == nd->region))
		return ingest_nest_bad();
	if (n->nodes == n->ncap) {
		size_t cap = n->ncap ? n->ncap * 2 : 256;
		uint32_t *a = realloc(n->node_region, cap * sizeof(*a));

		if (!a)
			return err_nomem();
		n->node_region = a;
		a = realloc(n->node_depth, cap * sizeof(*a));
		if (!a)
			return err_nomem();
		n->node_depth = a;
		n->ncap = cap;
	}
	n->node_region[n->nodes] = nd->region;
	n->node_depth[n->nodes] = nd->depth;
	n->nodes++;
	return 0;
}

int ingest_nest_row(struct ingest_nest *n, const struct wire_frame *f, size_t num_regions)
{
	uint32_t rank, region;
	int rc = wire_row_key(&rank, &region, f, num_regions);

	return rc ? rc : ingest_rowmap_put(&n->rows, rank, region, wire_row_calls(f));
}

int ingest_nest_frame(struct ingest_nest *n, const struct wire_frame *f, size_t num_regions)
{
	struct calltree_rankinfo ri;
	struct calltree_node nd;
	struct wire_path wp;
	uint32_t rank, region;
	int64_t self;
	enum calltree_self_source src;
	int rc;

	switch (f->type) {
	case WIRE_NEST:
		rc = wire_get_nest(&ri, f, num_regions);
		return rc ? rc : ingest_nest_rank(n, &ri);
	case WIRE_NODE:
		rc = wire_get_node(&nd, f, num_regions);
		return rc ? rc : ingest_nest_node(n, &nd);
	case WIRE_PATH: {
		uint64_t calls;

		rc = wire_get_path(&wp, f);
		if (!rc && wp.p.node >= n->nodes)
			rc = ingest_nest_bad();
		if (!rc && wp.p.row_durations &&
		    (!ingest_rowmap_get(&n->rows, wp.p.rank, n->node_region[wp.p.node], &calls) ||
		     calls != wp.p.calls))
			rc = ingest_nest_bad();
		n->paths += !rc;
		n->last_node = wp.p.node;
		return rc;
	}
	case WIRE_SELF:
		rc = wire_get_self(&rank, &region, &self, &src, f, num_regions);
		if (!rc)
			rc = ingest_rowmap_put(&n->self_ns, rank, region, (uint64_t)self);
		n->selfs += !rc;
		n->self_unchecked |= !rc && num_regions == SIZE_MAX;
		return rc;
	default:
		return ingest_nest_bad();
	}
}

/* s escaped for a one-line message (control characters and quotes as
 * \xNN), cut after about 80 bytes. */
static const char *ingest_nest_q(char *out, size_t n, const char *s)
{
	return util_quote_msg_buf(out, n, 80, s);
}

void ingest_nest_warning(char *buf, size_t len, const char *path, const struct ingest_nest *n,
			 const char *const *names, size_t num_names)
{
	const struct calltree_rankinfo *r = &n->first;
	char qp[120], qa[100], qb[100], why[500], others[80];
	int tree = r->status == CALLTREE_OK;

	if (!len)
		return;
	buf[0] = '\0';
	if (!n->problems)
		return;
	ingest_nest_q(qp, sizeof(qp), path);
	switch (r->status) {
	case CALLTREE_OVERLAP:
		ingest_nest_q(qa, sizeof(qa), r->region_a < num_names ? names[r->region_a] : "?");
		ingest_nest_q(qb, sizeof(qb), r->region_b < num_names ? names[r->region_b] : "?");
		snprintf(why, sizeof(why),
			 "a call of '%s' [%" PRId64 ", %" PRId64 "] ns starts inside a call of "
			 "'%s' [%" PRId64 ", %" PRId64 "] ns and ends after it",
			 qb, r->start_b, r->end_b, qa, r->start_a, r->end_a);
		break;
	case CALLTREE_TOO_MANY:
		/* (within the budget alone, it was held beside ranks whose
		 * rows the file interleaves with its own) */
		snprintf(
		    why, sizeof(why),
		    "its %" PRIu64 " calls%s are more than the %" PRIu64
		    " the call tree holds at once",
		    r->calls,
		    r->calls <= CALLTREE_MAX_HELD
			? " and those of the ranks whose rows the file interleaves with its own"
			: "",
		    CALLTREE_MAX_HELD);
		break;
	case CALLTREE_NOMEM:
		snprintf(why, sizeof(why),
			 "there was no memory for the tree of its %" PRIu64 " calls", r->calls);
		break;
	case CALLTREE_INCOMPLETE:
		snprintf(why, sizeof(why), "some of its regions have calls but no events");
		break;
	case CALLTREE_TOTALS:
		snprintf(why, sizeof(why), "its rows are totals only, with no events");
		break;
	default:
		if (r->paths_issue == CALLTREE_PATHS_DEEP)
			snprintf(why, sizeof(why), "a path is more than %u names long",
				 CALLTREE_MAX_DEPTH);
		else
			snprintf(why, sizeof(why),
				 "the file has more than %" PRIu32 " distinct paths",
				 CALLTREE_MAX_NODES);
		break;
	}
	others[0] = '\0';
	if (n->problems > 1)
		snprintf(others, sizeof(others), " (nor %s %" PRIu64 " other rank%s)",
			 n->problems - 1 > 1 ? "have" : "has", n->problems - 1,
			 n->problems - 1 > 1 ? "s" : "");
	snprintf(buf, len, "'%s': rank %" PRIu32 ": %s, so rank %" PRIu32 " has no %s%s; %s", qp,
		 r->rank, why, r->rank, tree ? "paths" : "call tree", others,
		 tree ? "its self times and flat numbers are kept"
		      : "the flat numbers are not affected, and --by path leaves it out");
}

/* ingest_rowmap_each() callback: a region past *ctx (the file's count). */
static int ingest_nest_region_past(void *ctx, uint32_t rank, uint32_t region, uint64_t v)
{
	(void)rank;
	(void)v;
	return region >= *(const size_t *)ctx;
}

int ingest_nest_self_check(const struct ingest_nest *n, size_t num_regions)
{
	if (n->self_unchecked &&
	    ingest_rowmap_each(&n->self_ns, ingest_nest_region_past, &num_regions))
		return ingest_nest_bad();
	return 0;
}

int ingest_nest_store(const struct ingest_nest_run *r, const struct ingest_nest *n,
		      const struct ingest_rowmap *mins, const struct ingest_rowmap *maxs)
{
	struct store_nesting sn = {(int64_t)n->ranks, (int64_t)n->trees, (int64_t)n->nodes,
				   (int64_t)n->paths};
	size_t k, pos, nreg = r->num_regions;
	struct calltree_rankinfo ri;
	struct calltree_node nd;
	struct store_path sp;
	struct store_path_rank pr;
	struct wire_path wp;
	struct wire_frame f;
	struct i64vec d;
	uint64_t lo = 0, hi = 0;
	int rc = 0;

	i64vec_init(&d);
	for (k = 0; !rc && k < r->npos; k++) {
		pos = r->pos[k];
		if (!wire_next(r->frames, r->len, &pos, &f)) {
			rc = err_set(ERR_GENERIC, "internal error: a call-tree frame moved");
			break;
		}
		switch (f.type) {
		case WIRE_NEST:
			/* (a JSON profile's came before its number of regions) */
			rc = wire_get_nest(&ri, &f, nreg);
			break;
		case WIRE_NODE:
			rc = wire_get_node(&nd, &f, nreg);
			if (!rc && !r->region_ids[nd.region])
				rc = store_region_id(r->st, &r->region_ids[nd.region],
						     r->names[nd.region]);
			if (rc)
				break;
			sp.run_id = r->run_id;
			sp.path_id = nd.id;
			sp.parent_id = nd.parent;
			sp.region_id = r->region_ids[nd.region];
			sp.depth = nd.depth;
			rc = store_add_path(r->st, &sp);
			break;
		case WIRE_PATH:
			/* checked on arrival: its node came before it, and
			 * n->node_region holds every node's region */
			rc = wire_get_path(&wp, &f);
			if (rc)
				break;
			if (wp.p.row_durations) {
				if (!ingest_rowmap_get(mins, wp.p.rank, n->node_region[wp.p.node],
						       &lo) ||
				    !ingest_rowmap_get(maxs, wp.p.rank, n->node_region[wp.p.node],
						       &hi))
					rc = ingest_nest_bad();
			} else {
				d.len = 0;
				rc = store_decode_durations(&d, wp.blob, wp.blob_len);
				if (!rc && d.len != wp.p.calls)
					rc = ingest_nest_bad();
				lo = rc ? 0 : (uint64_t)d.v[0];
				hi = rc ? 0 : (uint64_t)d.v[d.len - 1];
			}
			if (rc)
				break;
			pr.min = (int64_t)lo;
			pr.max = (int64_t)hi;
			pr.run_id = r->run_id;
			pr.path_id = wp.p.node;
			pr.rank = wp.p.rank;
			pr.calls = wp.p.calls;
			pr.nested = wp.p.nested;
			pr.total = wp.p.total;
			pr.self = wp.p.self;
			pr.durations = wp.p.row_durations ? NULL : wp.blob;
			pr.durations_len = wp.p.row_durations ? 0 : wp.blob_len;
			rc = store_add_path_rank(r->st, &pr);
			break;
		default:
			break;
		}
	}
	i64vec_release(&d);
	return rc ? rc : store_put_nesting(r->st, r->run_id, &sn);
}

int ingest_nest_walk(const void *frames, size_t len, size_t nreg, const struct calltree_sink *sink)
{
	size_t pos = 0;
	struct ingest_rowmap rows = INGEST_ROWMAP_INIT; /* (rank, region) -> frame */
	uint32_t *node_region = NULL;
	size_t nnodes = 0, ncap = 0;
	struct i64vec durs;
	struct wire_frame f;
	int rc = 0;

	i64vec_init(&durs);
	while (!rc && wire_next(frames, len, &pos, &f)) {
		struct calltree_rankinfo ri;
		struct calltree_node nd;
		struct wire_path wp;
		struct store_timing t;
		uint32_t rank, region;
		uint64_t at;
		int64_t self;
		enum calltree_self_source src;

		switch (f.type) {
		case WIRE_ROW:
			rc = wire_row_key(&rank, &region, &f, nreg);
			if (!rc)
				rc = ingest_rowmap_put(
				    &rows, rank, region,
				    (uint64_t)(f.data - (const unsigned char *)frames));
			break;
		case WIRE_NEST:
			rc = wire_get_nest(&ri, &f, nreg);
			if (!rc && sink->rank)
				rc = sink->rank(sink->ctx, &ri);
			break;
		case WIRE_NODE:
			rc = wire_get_node(&nd, &f, nreg);
			if (!rc &&
			    util_grow(&node_region, &ncap, nnodes + 1, sizeof(*node_region), 64))
				rc = ERR_NOMEM;
			if (!rc && nd.id != nnodes)
				rc = ingest_nest_bad();
			if (!rc)
				node_region[nnodes++] = nd.region;
			if (!rc && sink->node)
				rc = sink->node(sink->ctx, &nd);
			break;
		case WIRE_PATH:
			rc = wire_get_path(&wp, &f);
			if (!rc && wp.p.node >= nnodes)
				rc = ingest_nest_bad();
			if (rc || !sink->path)
				break;
			durs.len = 0;
			if (wp.p.row_durations) {
				/* the durations of the row of (rank, the node's region) */
				struct wire_frame rf;
				uint32_t got, len32;

				if (!ingest_rowmap_get(&rows, wp.p.rank, node_region[wp.p.node],
						       &at)) {
					rc = ingest_nest_bad();
					break;
				}
				rf.type = WIRE_ROW;
				rf.data = (const unsigned char *)frames + at;
				memcpy(&len32, rf.data - WIRE_HEADER, sizeof(len32));
				rf.len = len32;
				rc = wire_get_row(&t, &got, &rf, nreg);
				if (!rc && t.durations)
					rc = store_decode_durations(&durs, t.durations,
								    t.durations_len);
			} else {
				rc = store_decode_durations(&durs, wp.blob, wp.blob_len);
			}
			if (!rc && durs.len != wp.p.calls)
				rc = ingest_nest_bad();
			wp.p.durations = durs.v;
			if (!rc)
				rc = sink->path(sink->ctx, &wp.p);
			break;
		case WIRE_SELF:
			rc = wire_get_self(&rank, &region, &self, &src, &f, nreg);
			if (!rc && sink->self)
				rc = sink->self(sink->ctx, rank, region, self, src);
			break;
		default:
			break;
		}
	}
	i64vec_release(&durs);
	ingest_rowmap_release(&rows);
	free(node_region);
	return rc;
}
