/*
 * changes.c - the change points of every region over a history of stored
 * runs (see scopedb/changes.h): one store query for every region's runs,
 * one for the order of the selected runs (to tell whether the runs around
 * a change are adjacent), then per region the metric values and
 * changepoint_find().
 */
#include <stdlib.h>
#include <string.h>

#include "scopedb/changes.h"
#include "scopedb/err.h"
#include "scopedb/history.h"
#include "scopedb/util.h"

int changes_sort_parse(enum changes_sort *out, const char *arg)
{
	if (!strcmp(arg, "time"))
		*out = CHANGES_SORT_TIME;
	else if (!strcmp(arg, "pct"))
		*out = CHANGES_SORT_PCT;
	else
		return err_set(ERR_USAGE, "invalid --sort '%s': choose from time, pct", arg);
	return 0;
}

int changes_series(struct changepoint **out, size_t *nout, const struct store_history_point *p,
		   const struct stats_val *v, size_t n, const struct changepoint_opts *o)
{
	const char **commit = util_calloc(n ? n : 1, sizeof(*commit));
	size_t i;
	int rc;

	*out = NULL;
	*nout = 0;
	if (!commit)
		return err_nomem();
	for (i = 0; i < n; i++)
		commit[i] = p[i].commit;
	rc = changepoint_find(out, nout, v, commit, n, o);
	free(commit);
	return rc;
}

/* A selected run's place in recorded order (for bsearch by id). */
struct changes_pos {
	int64_t id;
	size_t pos;
};

static int changes_cmp_pos(const void *a, const void *b)
{
	const struct changes_pos *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

/* The place of run id among the selected runs (SIZE_MAX: not found). */
static size_t changes_place(const struct changes_pos *pos, size_t n, int64_t id)
{
	struct changes_pos key = {id, 0}, *hit;

	hit = bsearch(&key, pos, n, sizeof(*pos), changes_cmp_pos);
	return hit ? hit->pos : SIZE_MAX;
}

/* Newest first: the later first run after, then region name. */
static int changes_cmp_time(const void *a, const void *b)
{
	const struct changes_item *x = a, *y = b;
	int c = strcmp(y->after->time, x->after->time);

	if (c)
		return c;
	if (x->after->run_id != y->after->run_id)
		return x->after->run_id < y->after->run_id ? 1 : -1;
	return strcmp(x->after->stats.name, y->after->stats.name);
}

/* Largest |change| first, then newest first. */
static int changes_cmp_pct(const void *a, const void *b)
{
	const struct changes_item *x = a, *y = b;
	double dx = x->cp.pct < 0 ? -x->cp.pct : x->cp.pct;
	double dy = y->cp.pct < 0 ? -y->cp.pct : y->cp.pct;

	if (dx != dy)
		return dx < dy ? 1 : -1;
	return changes_cmp_time(a, b);
}

/* The end of the region whose points start at p[i]. */
static size_t changes_group_end(const struct store_history_point *p, size_t n, size_t i)
{
	size_t j;

	for (j = i + 1; j < n && p[j].stats.region_id == p[i].stats.region_id; j++)
		;
	return j;
}

int changes_find(struct changes_result *out, struct store *st, const struct store_history_query *q,
		 enum stats_metric m, const struct changepoint_opts *o, enum changes_sort sort)
{
	struct store_run *runs = NULL;
	struct history_step *steps = NULL;
	struct stats_val *v = NULL;
	struct changes_pos *pos = NULL;
	struct changepoint *cp = NULL;
	size_t nruns = 0, ncp = 0, cap = 0, i, j, k;
	int started = 0, rc;

	memset(out, 0, sizeof(*out));
	rc = store_read_begin(st, &started);
	if (rc)
		return rc;
	rc = store_region_history(st, &out->pts, &out->npts, q);
	if (rc == ERR_NOTFOUND && !q->region && !q->filter) {
		err_clear();
		rc = 0;
	}
	if (!rc)
		rc = store_find_runs(st, &runs, &nruns, q->runs);
	if (started)
		store_read_end(st);
	if (rc)
		goto out;
	out->nruns = nruns;
	pos = util_calloc(nruns ? nruns : 1, sizeof(*pos));
	steps = util_calloc(out->npts ? out->npts : 1, sizeof(*steps));
	v = util_calloc(out->npts ? out->npts : 1, sizeof(*v));
	if (!pos || !steps || !v) {
		rc = err_nomem();
		goto out;
	}
	for (i = 0; i < nruns; i++) { /* newest first */
		pos[i].id = runs[i].id;
		pos[i].pos = nruns - 1 - i;
	}
	qsort(pos, nruns, sizeof(*pos), changes_cmp_pos);
	for (i = 0; i < out->npts; i = j) {
		const struct store_history_point *p = out->pts + i;

		j = changes_group_end(out->pts, out->npts, i);
		out->nregions++;
		rc = history_values(steps + i, p, j - i, m);
		for (k = 0; !rc && k < j - i; k++)
			v[k] = steps[i + k].v;
		if (!rc)
			rc = changes_series(&cp, &ncp, p, v, j - i, o);
		for (k = 0; !rc && k < ncp; k++) {
			struct changes_item *it =
			    util_push(&out->items, &cap, &out->n, sizeof(*out->items));
			size_t a, b;

			if (!it) {
				rc = ERR_NOMEM;
				break;
			}
			it->before = p + cp[k].before;
			it->after = p + cp[k].after;
			it->cp = cp[k];
			a = changes_place(pos, nruns, it->before->run_id);
			b = changes_place(pos, nruns, it->after->run_id);
			it->adjacent = a != SIZE_MAX && b != SIZE_MAX && b == a + 1;
		}
		free(cp);
		cp = NULL;
		if (rc)
			goto out;
	}
	qsort(out->items, out->n, sizeof(*out->items),
	      sort == CHANGES_SORT_PCT ? changes_cmp_pct : changes_cmp_time);
out:
	store_runs_free(runs, nruns);
	free(pos);
	free(steps);
	free(v);
	if (rc)
		changes_result_release(out);
	return rc;
}

void changes_result_release(struct changes_result *r)
{
	store_history_free(r->pts, r->npts);
	free(r->items);
	memset(r, 0, sizeof(*r));
}
