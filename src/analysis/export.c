/*
 * export.c - a stored run as nodes and (node, rank) rows for scopedb export
 * (export.h, docs/export.md).  The rows come from the store's public
 * calls only: the run's timings rows (store_scan_timings(), the same rows
 * push and pull copy), each with its sorted call durations, from which the
 * percentiles are computed exactly as show computes them (numpy's linear
 * method, util/percentile.c).  A run without a call tree is exported flat:
 * one root node per region name, in the order the run's rows come.
 */
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
	struct strmap names; /* region name -> node index */
	size_t cap_nodes, cap_rows;
	struct i64vec durations;
};

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
		n->path = util_strdup(region);
		if (!n->name || !n->path)
			return err_nomem();
	}
	row = util_push(&r->rows, &s->cap_rows, &r->nrows, sizeof(*row));
	if (!row)
		return ERR_NOMEM;
	row->node = id;
	row->rank = t->rank;
	row->calls = t->calls;
	row->total = t->total;
	row->self = t->exclusive;
	row->min = t->calls ? t->min : 0;
	row->max = t->calls ? t->max : 0;
	row->q[0] = row->q[1] = row->q[2] = NAN;
	if (!t->has_events || !t->durations)
		return 0;
	s->durations.len = 0;
	rc = store_decode_durations(&s->durations, t->durations, t->durations_len);
	if (rc)
		return rc;
	if (s->durations.len) {
		row->has_quantiles = 1;
		row->q[0] = percentile_sorted(s->durations.v, s->durations.len, 50.0);
		row->q[1] = percentile_sorted(s->durations.v, s->durations.len, 95.0);
		row->q[2] = percentile_sorted(s->durations.v, s->durations.len, 99.0);
	}
	return 0;
}

int export_read_run(struct export_run *out, struct store *st, int64_t run_id)
{
	struct export_scan s;
	int rc;

	memset(out, 0, sizeof(*out));
	memset(&s, 0, sizeof(s));
	s.out = out;
	strmap_init(&s.names);
	i64vec_init(&s.durations);
	rc = store_get_run(st, &out->run, run_id);
	if (!rc)
		rc = store_get_meta(st, &out->meta, run_id);
	if (!rc)
		rc = store_scan_timings(st, run_id, export_timing, &s);
	strmap_release(&s.names);
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
