/*
 * ingest_nest.c - the store's process's side of the call-tree frames
 * (ingest_nest.h): checking each against the ones before it, counting,
 * and the warning for ranks without a tree or without paths.  The walk
 * over a pending file's frames lives in ingest.c, which owns them.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/ingest_nest.h"
#include "scopedb/err.h"
#include "scopedb/util.h"

void ingest_rowmap_release(struct ingest_rowmap *m)
{
	if (!m)
		return;
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

static size_t ingest_rowmap_slot(const uint64_t *keys, size_t cap, uint64_t key)
{
	size_t h = (size_t)((key * UINT64_C(0x9e3779b97f4a7c15)) >> 32) & (cap - 1);

	while (keys[h] && keys[h] != key)
		h = (h + 1) & (cap - 1);
	return h;
}

int ingest_rowmap_put(struct ingest_rowmap *m, uint32_t rank, uint32_t region, uint64_t v)
{
	uint64_t key = ((uint64_t)rank << 32 | region) + 1;
	size_t h;

	if ((m->n + 1) * 2 > m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 1024, i;
		uint64_t *k = calloc(cap, sizeof(*k)), *w = malloc(cap * sizeof(*w));

		if (!k || !w) {
			free(k);
			free(w);
			return err_nomem();
		}
		for (i = 0; i < m->cap; i++) {
			if (m->keys[i]) {
				h = ingest_rowmap_slot(k, cap, m->keys[i]);
				k[h] = m->keys[i];
				w[h] = m->vals[i];
			}
		}
		free(m->keys);
		free(m->vals);
		m->keys = k;
		m->vals = w;
		m->cap = cap;
	}
	h = ingest_rowmap_slot(m->keys, m->cap, key);
	if (!m->keys[h]) {
		m->keys[h] = key;
		m->n++;
	}
	m->vals[h] = v;
	return 0;
}

int ingest_rowmap_get(const struct ingest_rowmap *m, uint32_t rank, uint32_t region, uint64_t *v)
{
	uint64_t key = ((uint64_t)rank << 32 | region) + 1;
	size_t h;

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
	free(n->node_region);
	free(n->node_depth);
	memset(n, 0, sizeof(*n));
}

int ingest_nest_bad(void)
{
	return err_set(ERR_GENERIC, "the reader process sent malformed data");
}

/* Note a rank's status: count it, keep the first one with a problem. */
static void ingest_nest_rank(struct ingest_nest *n, const struct calltree_rankinfo *r)
{
	n->ranks++;
	if (r->status == CALLTREE_OK)
		n->trees++;
	if (r->status == CALLTREE_OK && r->paths_issue == CALLTREE_PATHS_OK)
		return;
	if (!n->problems)
		n->first = *r;
	n->problems++;
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
		if (!rc)
			ingest_nest_rank(n, &ri);
		return rc;
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
		return rc;
	}
	case WIRE_SELF:
		rc = wire_get_self(&rank, &region, &self, &src, f, num_regions);
		n->selfs += !rc;
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
		snprintf(why, sizeof(why),
			 "its %" PRIu64 " calls are more than the %" PRIu64
			 " the call tree holds at once",
			 r->calls, CALLTREE_MAX_HELD);
		break;
	case CALLTREE_NOMEM:
		snprintf(why, sizeof(why),
			 "there was no memory for the tree of its %" PRIu64 " calls", r->calls);
		break;
	case CALLTREE_INCOMPLETE:
		snprintf(why, sizeof(why), "some of its regions have calls but no events");
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
		      : "the flat numbers are not affected");
}
