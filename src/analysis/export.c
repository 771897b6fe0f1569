/*
 * export.c - a stored run as nodes and (node, rank) rows for scopedb export
 * (export.h, docs/export.md).  The rows come from the store's public
 * calls only: the run's timings rows (store_scan_timings(), the same rows
 * push and pull copy), each with its sorted call durations, from which the
 * percentiles are computed exactly as show computes them (numpy's linear
 * method, util/percentile.c).  A run with a call tree (every rank that has
 * per-call data has one, docs/calltree.md) is exported as its paths
 * (store_scan_paths(): a node per path, under its parent); any other run
 * flat: one root node per region name, in the order the run's rows come.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scopedb/err.h"
#include "scopedb/export.h"
#include "scopedb/util.h"
#include "util/percentile.h"
#include "util/strmap.h"

struct export_scan {
	struct export_run *out;
	/* a run with a tree: each timings row's encoded durations, by
	 * "rank\x1fregion" (export_keep_blob()) */
	struct strmap blob_ids;
	struct buf *blobs;
	size_t nblobs, cap_blobs;
	struct buf key;
	struct strmap names; /* region name -> node index */
	size_t cap_nodes, cap_rows;
	struct i64vec durations;
};

/* The percentiles of a row's sorted call durations d[0..n). */
static void export_quantiles(struct export_row *row, const int64_t *d, size_t n)
{
	if (!n)
		return;
	row->has_quantiles = 1;
	row->q[0] = percentile_sorted(d, n, 50.0);
	row->q[1] = percentile_sorted(d, n, 95.0);
	row->q[2] = percentile_sorted(d, n, 99.0);
}

/* "PARENT > NAME" (NAME alone for a root), NAME escaped as show --by path
 * writes it (util_path_name_put(): "a \> b" is the region "a > b", not b
 * under a), so that a path is one node's key; NULL when memory ran out. */
static char *export_path_text(const char *parent, const char *name)
{
	size_t lp = parent ? strlen(parent) + 3 : 0;
	char *s = malloc(lp + util_path_name_len(name) + 1), *end;

	if (!s)
		return NULL;
	if (parent) {
		memcpy(s, parent, lp - 3);
		memcpy(s + lp - 3, " > ", 3);
	}
	end = util_path_name_put(s + lp, name);
	*end = '\0';
	return s;
}

/* store_scan_timings() callback: one timings row as a flat node's row. */
static int export_timing(void *ctx, const struct store_timing *t, const char *region)
{
	struct export_scan *s = ctx;
	struct export_run *r = s->out;
	struct export_row *row;
	size_t id;
	int rc;

	rc = strmap_intern(&id, &s->names, region);
	if (rc)
		return rc;
	if (id == r->nnodes) {
		struct export_node *n = util_push(&r->nodes, &s->cap_nodes, &r->nnodes, sizeof(*n));

		if (!n)
			return ERR_NOMEM;
		n->parent = -1;
		n->name = util_strdup(region);
		n->path = export_path_text(NULL, region);
		if (!n->name || !n->path)
			return err_nomem();
	}
	row = util_push(&r->rows, &s->cap_rows, &r->nrows, sizeof(*row));
	if (!row)
		return ERR_NOMEM;
	row->node = id;
	row->rank = t->rank;
	row->calls = t->calls;
	/* no call (an aggregate file's row of calls 0): no time is known,
	 * as show has none */
	row->total = t->calls ? t->total : -1;
	row->self = t->calls ? t->exclusive : -1;
	row->min = t->calls ? t->min : -1;
	row->max = t->calls ? t->max : -1;
	row->q[0] = row->q[1] = row->q[2] = NAN;
	if (!t->has_events || !t->durations)
		return 0;
	s->durations.len = 0;
	rc = store_decode_durations(&s->durations, t->durations, t->durations_len);
	if (!rc)
		export_quantiles(row, s->durations.v, s->durations.len);
	return rc;
}

/* store_scan_paths() callback: a path as a node (path ids are 0, 1, 2...
 * with parents first, so a path's id is its node's index). */
static int export_path(void *ctx, const struct store_path *p, const char *region)
{
	struct export_scan *s = ctx;
	struct export_run *r = s->out;
	struct export_node *n;

	if ((size_t)p->path_id != r->nnodes || p->parent_id >= p->path_id)
		return err_set(ERR_FORMAT, "path %" PRId64 " out of order", p->path_id);
	n = util_push(&r->nodes, &s->cap_nodes, &r->nnodes, sizeof(*n));
	if (!n)
		return ERR_NOMEM;
	n->parent = p->parent_id;
	n->name = util_strdup(region);
	n->path = export_path_text(p->parent_id >= 0 ? r->nodes[p->parent_id].path : NULL, region);
	if (!n->name || !n->path)
		return err_nomem();
	return 0;
}

/* "rank\x1fregion": the key of a timings row in s->blob_ids. */
static int export_key(struct buf *k, const char *region, int64_t rank)
{
	k->len = 0;
	return buf_printf(k, "%" PRId64 "\x1f%s", rank, region) ? ERR_NOMEM : 0;
}

/* store_scan_timings() callback of a run with a tree: keep each row's
 * encoded durations by (region, rank), for the path rows that share them
 * (store_path_rank.durations NULL). */
static int export_keep_blob(void *ctx, const struct store_timing *t, const char *region)
{
	struct export_scan *s = ctx;
	struct buf *b;
	size_t id;
	int rc = export_key(&s->key, region, t->rank);

	if (!rc)
		rc = strmap_intern(&id, &s->blob_ids, s->key.data);
	if (rc)
		return rc;
	if (id == s->nblobs) {
		b = util_push(&s->blobs, &s->cap_blobs, &s->nblobs, sizeof(*b));
		if (!b)
			return ERR_NOMEM;
		buf_init(b);
	}
	b = &s->blobs[id];
	b->len = 0;
	if (t->durations && buf_add(b, t->durations, t->durations_len))
		return err_nomem();
	return 0;
}

/* store_scan_paths() callback: a (path, rank) row. */
static int export_path_rank(void *ctx, const struct store_path_rank *pr)
{
	struct export_scan *s = ctx;
	struct export_run *r = s->out;
	struct export_row *row;
	int rc;

	if ((size_t)pr->path_id >= r->nnodes)
		return err_set(ERR_FORMAT, "a row of unknown path %" PRId64, pr->path_id);
	row = util_push(&r->rows, &s->cap_rows, &r->nrows, sizeof(*row));
	if (!row)
		return ERR_NOMEM;
	row->node = (size_t)pr->path_id;
	row->rank = pr->rank;
	row->calls = pr->calls;
	row->total = pr->total;
	row->self = pr->self;
	row->min = pr->min;
	row->max = pr->max;
	row->q[0] = row->q[1] = row->q[2] = NAN;
	s->durations.len = 0;
	if (pr->durations)
		rc = store_decode_durations(&s->durations, pr->durations, pr->durations_len);
	else if (!(rc = export_key(&s->key, r->nodes[row->node].name, pr->rank))) {
		size_t id = strmap_find(&s->blob_ids, s->key.data);

		if (id != STRMAP_NONE && s->blobs[id].len)
			rc = store_decode_durations(&s->durations, s->blobs[id].data,
						    s->blobs[id].len);
	}
	if (!rc)
		export_quantiles(row, s->durations.v, s->durations.len);
	return rc;
}

int export_read_run(struct export_run *out, struct store *st, int64_t run_id)
{
	struct store_nesting nest;
	struct export_scan s;
	size_t i;
	int rc, found = 0;

	memset(out, 0, sizeof(*out));
	memset(&s, 0, sizeof(s));
	s.out = out;
	strmap_init(&s.names);
	strmap_init(&s.blob_ids);
	buf_init(&s.key);
	i64vec_init(&s.durations);
	rc = store_get_run(st, &out->run, run_id);
	if (!rc)
		rc = store_get_meta(st, &out->meta, run_id);
	if (!rc)
		rc = store_get_nesting(st, run_id, &nest, &found);
	/* a tree when every rank with per-call data has one, with a path in
	 * it; else flat (a run of no call: its regions' rows of 0 calls) */
	out->tree = !rc && found && nest.trees > 0 && nest.trees == nest.ranks && nest.paths > 0;
	if (!rc && out->tree)
		rc = store_scan_timings(st, run_id, export_keep_blob, &s);
	if (!rc && out->tree)
		rc = store_scan_paths(st, run_id, export_path, export_path_rank, &s);
	else if (!rc)
		rc = store_scan_timings(st, run_id, export_timing, &s);
	strmap_release(&s.names);
	strmap_release(&s.blob_ids);
	for (i = 0; i < s.nblobs; i++)
		buf_release(&s.blobs[i]);
	free(s.blobs);
	buf_release(&s.key);
	i64vec_release(&s.durations);
	return rc;
}

void export_run_release(struct export_run *r)
{
	size_t i;

	if (!r)
		return;
	store_run_release(&r->run);
	store_meta_release(&r->meta);
	for (i = 0; i < r->nnodes; i++) {
		free(r->nodes[i].name);
		free(r->nodes[i].path);
	}
	free(r->nodes);
	free(r->rows);
	memset(r, 0, sizeof(*r));
}
