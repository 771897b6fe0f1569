/*
 * changes.c - the change points of every region over a history of stored
 * runs (see scopedb/changes.h): one store query for every region's runs
 * (store_region_series()), then per region the metric values and
 * changepoint_find(), the regions split between this thread and one more
 * (the work is independent per region and the store is not used then).
 * By path, the series is the paths' (pathhist_series()).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/metric.h"
#include "analysis/pathhist.h"
#include "scopedb/changes.h"
#include "scopedb/err.h"
#include "scopedb/history.h"
#include "scopedb/util.h"
#include "util/percentile.h"

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

/* Series with fewer cells than this are not worth a second thread. */
#define CHANGES_THREAD_MIN 20000

/* One thread's share of the regions: the cells [from, to) (whole regions)
 * and the change points found there. */
struct changes_job {
	const struct store_series *ser;
	size_t from, to;
	enum stats_metric m;
	const struct changepoint_opts *o;
	const char *location; /* the store's, for messages */
	struct changes_item *items;
	size_t n, cap;
	int ret;
};

/* The end of the region whose cells start at cells[i]. */
static size_t changes_region_end(const struct store_series *ser, size_t i)
{
	size_t j;

	for (j = i + 1; j < ser->ncells && ser->cells[j].region == ser->cells[i].region; j++)
		;
	return j;
}

/* The change points of the cells c[0..n) of one region into j->items;
 * p, s and v are scratch arrays of n entries. */
static int changes_region(struct changes_job *j, const struct store_series_cell *c, size_t n,
			  struct store_history_point *p, struct history_step *s,
			  struct stats_val *v)
{
	const struct store_series *ser = j->ser;
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
	rc = history_values(s, p, n, j->m, j->location);
	for (i = 0; !rc && i < n; i++)
		v[i] = s[i].v;
	if (!rc)
		rc = changes_series(&cp, &ncp, p, v, n, j->o);
	for (i = 0; !rc && i < ncp; i++) {
		struct changes_item *it = util_push(&j->items, &j->cap, &j->n, sizeof(*it));
		size_t a = c[cp[i].before].run, b = c[cp[i].after].run;

		if (!it) {
			rc = ERR_NOMEM;
			break;
		}
		it->region = ser->names[c[0].region];
		it->before = &ser->runs[a];
		it->after = &ser->runs[b];
		it->at = &ser->runs[c[cp[i].at].run];
		it->cp = cp[i];
	}
	free(cp);
	return rc;
}

/* Every region of job j (on any thread: only j is written). */
static int changes_job_run(struct changes_job *j)
{
	struct store_history_point *p = NULL;
	struct history_step *s = NULL;
	struct stats_val *v = NULL;
	size_t i, k, most = 1;
	int rc = 0;

	for (i = j->from; i < j->to; i = k) {
		k = changes_region_end(j->ser, i);
		if (k - i > most)
			most = k - i;
	}
	p = util_calloc(most, sizeof(*p));
	s = util_calloc(most, sizeof(*s));
	v = util_calloc(most, sizeof(*v));
	if (!p || !s || !v)
		rc = err_nomem();
	for (i = j->from; i < j->to && !rc; i = k) {
		k = changes_region_end(j->ser, i);
		rc = changes_region(j, j->ser->cells + i, k - i, p, s, v);
	}
	free(p);
	free(s);
	free(v);
	return rc;
}

static void *changes_job_main(void *arg)
{
	struct changes_job *j = arg;

	j->ret = changes_job_run(j);
	return NULL;
}

/* A percentile by path comes from each path's stored p50/p95/p99 (kept
 * since schema 4, docs/calltree.md); a run stored before them has its
 * paths' durations decoded here, once per (path, run), and the three
 * percentiles selected as store_finish_run() does, so both give the same
 * numbers (history --by path decodes the same way). */
static int changes_path_quantiles(struct store_series *ser, enum stats_metric m, struct store *st)
{
	struct i64vec d, ends;
	size_t i;
	int rc = 0;

	if (stats_metric_quantile(m) <= 0.0)
		return 0;
	i64vec_init(&d);
	i64vec_init(&ends);
	for (i = 0; !rc && i < ser->ncells; i++) {
		struct store_region_stats *g = &ser->cells[i].stats;
		int64_t run = ser->runs[ser->cells[i].run].id;

		if (g->has_quantiles || !g->has_events || !g->calls)
			continue;
		d.len = ends.len = 0;
		rc = store_path_duration_runs(st, &d, &ends, run, g->path_id, NULL, 0);
		if (!rc)
			rc = metric_check_samples(g, run, d.len, store_location(st));
		if (!rc)
			percentile_runs_stored(g->quantiles, d.v, ends.v, ends.len);
		g->has_quantiles = !rc;
	}
	i64vec_release(&d);
	i64vec_release(&ends);
	return rc;
}

/* changes_find() by name, or by path (the series of pathhist.h, selected
 * by the patterns of paths, all when NULL). */
static int changes_find_by(struct changes_result *out, struct store *st, const struct filter *f,
			   store_region_filter filter, void *ctx, const char *pattern,
			   enum stats_metric m, const struct changepoint_opts *o,
			   enum changes_sort sort, int by_path, struct match *paths)
{
	const struct store_series *ser = &out->series;
	struct changes_job job[2];
	pthread_t thread;
	size_t half = 0, i;
	int threaded = 0, rc;

	memset(out, 0, sizeof(*out));
	memset(job, 0, sizeof(job));
	rc = by_path ? pathhist_series(st, &out->series, f, paths)
		     : store_region_series(st, &out->series, f, filter, ctx);
	if (rc)
		goto out;
	if ((by_path ? paths != NULL : filter != NULL) && ser->nselected == 0) {
		rc = err_set(ERR_NOTFOUND, "no %s matches '%s' in store '%s'",
			     by_path ? "path" : "region", pattern ? pattern : "",
			     store_location(st));
		goto out;
	}
	if (by_path) {
		rc = changes_path_quantiles(&out->series, m, st);
		if (rc)
			goto out;
	}
	/* two halves of whole regions; the second on a thread of its own */
	while (half < ser->ncells && 2 * half < ser->ncells)
		half = changes_region_end(ser, half);
	for (i = 0; i < 2; i++) {
		job[i].ser = ser;
		job[i].m = m;
		job[i].o = o;
		job[i].location = store_location(st);
	}
	job[0].to = ser->ncells;
	if (ser->ncells >= CHANGES_THREAD_MIN) {
		job[0].to = job[1].from = half;
		job[1].to = ser->ncells;
		threaded = pthread_create(&thread, NULL, changes_job_main, &job[1]) == 0;
		if (!threaded)
			job[0].to = ser->ncells;
	}
	rc = changes_job_run(&job[0]);
	if (threaded) {
		pthread_join(thread, NULL);
		/* the other thread's message is its own: run that half again
		 * here to report it */
		if (!rc && job[1].ret) {
			job[1].n = 0;
			rc = changes_job_run(&job[1]);
		}
	}
	if (rc)
		goto out;
	out->items = util_calloc(job[0].n + job[1].n + 1, sizeof(*out->items));
	if (!out->items) {
		rc = err_nomem();
		goto out;
	}
	for (i = 0; i < 2; i++) {
		if (job[i].n)
			memcpy(out->items + out->n, job[i].items, job[i].n * sizeof(*out->items));
		out->n += job[i].n;
	}
	qsort(out->items, out->n, sizeof(*out->items),
	      sort == CHANGES_SORT_PCT ? changes_cmp_pct : changes_cmp_time);
out:
	free(job[0].items);
	free(job[1].items);
	if (rc)
		changes_result_release(out);
	return rc;
}

int changes_find(struct changes_result *out, struct store *st, const struct filter *f,
		 store_region_filter filter, void *ctx, const char *pattern, enum stats_metric m,
		 const struct changepoint_opts *o, enum changes_sort sort)
{
	return changes_find_by(out, st, f, filter, ctx, pattern, m, o, sort, 0, NULL);
}

int changes_find_paths(struct changes_result *out, struct store *st, const struct filter *f,
		       struct match *paths, const char *pattern, enum stats_metric m,
		       const struct changepoint_opts *o, enum changes_sort sort)
{
	return changes_find_by(out, st, f, NULL, NULL, pattern, m, o, sort, 1, paths);
}

void changes_result_release(struct changes_result *r)
{
	store_series_release(&r->series);
	free(r->items);
	memset(r, 0, sizeof(*r));
}
