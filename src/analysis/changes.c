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

/* Newest first: the later first run after, then region name. */
static int changes_cmp_time(const void *a, const void *b)
{
	const struct changes_item *x = a, *y = b;

	if (x->after != y->after)
		return x->after < y->after ? 1 : -1; /* runs are in recorded order */
	return strcmp(x->region, y->region);
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

/* The change points of the cells c[0..n) of one region into out->items;
 * p, s and v are scratch arrays of n entries. */
static int changes_region(struct changes_result *out, size_t *cap,
			  const struct store_series_cell *c, size_t n, enum stats_metric m,
			  const struct changepoint_opts *o, struct store_history_point *p,
			  struct history_step *s, struct stats_val *v)
{
	const struct store_series *ser = &out->series;
	struct changepoint *cp = NULL;
	size_t i, ncp = 0;
	int rc;

	for (i = 0; i < n; i++) { /* borrowed: nothing here is freed */
		memset(&p[i], 0, sizeof(p[i]));
		p[i].stats = c[i].stats;
		p[i].run_id = ser->runs[c[i].run].id;
		p[i].time = ser->runs[c[i].run].time;
		p[i].commit = ser->runs[c[i].run].commit;
		p[i].label = ser->runs[c[i].run].label;
	}
	rc = history_values(s, p, n, m);
	for (i = 0; !rc && i < n; i++)
		v[i] = s[i].v;
	if (!rc)
		rc = changes_series(&cp, &ncp, p, v, n, o);
	for (i = 0; !rc && i < ncp; i++) {
		struct changes_item *it = util_push(&out->items, cap, &out->n, sizeof(*it));
		size_t a = c[cp[i].before].run, b = c[cp[i].after].run;

		if (!it) {
			rc = ERR_NOMEM;
			break;
		}
		it->region = ser->names[c[0].region];
		it->before = &ser->runs[a];
		it->after = &ser->runs[b];
		it->cp = cp[i];
		it->adjacent = b == a + 1;
	}
	free(cp);
	return rc;
}

int changes_find(struct changes_result *out, struct store *st, const struct filter *f,
		 store_region_filter filter, void *ctx, const char *pattern, enum stats_metric m,
		 const struct changepoint_opts *o, enum changes_sort sort)
{
	const struct store_series *ser = &out->series;
	struct store_history_point *p = NULL;
	struct history_step *s = NULL;
	struct stats_val *v = NULL;
	size_t cap = 0, i, j, most = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = store_region_series(st, &out->series, f, filter, ctx);
	if (rc)
		goto out;
	if (filter && ser->nselected == 0) {
		rc = err_set(ERR_NOTFOUND, "no region matches '%s' in store '%s'",
			     pattern ? pattern : "", store_location(st));
		goto out;
	}
	for (i = 0; i < ser->ncells; i = j) {
		for (j = i + 1; j < ser->ncells && ser->cells[j].region == ser->cells[i].region;
		     j++)
			;
		if (j - i > most)
			most = j - i;
	}
	p = util_calloc(most ? most : 1, sizeof(*p));
	s = util_calloc(most ? most : 1, sizeof(*s));
	v = util_calloc(most ? most : 1, sizeof(*v));
	if (!p || !s || !v) {
		rc = err_nomem();
		goto out;
	}
	for (i = 0; i < ser->ncells && !rc; i = j) {
		for (j = i + 1; j < ser->ncells && ser->cells[j].region == ser->cells[i].region;
		     j++)
			;
		rc = changes_region(out, &cap, ser->cells + i, j - i, m, o, p, s, v);
	}
	if (!rc)
		qsort(out->items, out->n, sizeof(*out->items),
		      sort == CHANGES_SORT_PCT ? changes_cmp_pct : changes_cmp_time);
out:
	free(p);
	free(s);
	free(v);
	if (rc)
		changes_result_release(out);
	return rc;
}

void changes_result_release(struct changes_result *r)
{
	store_series_release(&r->series);
	free(r->items);
	memset(r, 0, sizeof(*r));
}
