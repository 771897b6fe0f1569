/*
 * summary.c - the per-region summary of one run for "scopedb show" (see
 * summary.h).  Every metric goes through the code diff and check use:
 * store_region_stats() pools the timings rows of the selected ranks in
 * SQL, store_region_durations() returns a region's sorted durations, and
 * metric_value() (metric.h) turns them into values.  Only std is computed here,
 * from the same sorted durations.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "analysis/metric.h"
#include "scopedb/err.h"
#include "select/match.h"
#include "scopedb/store.h"
#include "scopedb/summary.h"
#include "util/suggest.h"
#include "scopedb/util.h"

#define SUMMARY_COL_NAME_(id, name, metric) #name,
static const char *const summary_col_names[SUMMARY_NCOLS] = {SUMMARY_COLS(SUMMARY_COL_NAME_)};
#define SUMMARY_COL_METRIC_(id, name, metric) metric,
static const int summary_col_metrics[SUMMARY_NCOLS] = {SUMMARY_COLS(SUMMARY_COL_METRIC_)};

/* The stats.h metric of a column, or -1 (region, ranks, nested, std). */
static int summary_metric(enum summary_col c)
{
	return (unsigned)c < SUMMARY_NCOLS ? summary_col_metrics[c] : -1;
}

const char *summary_col_name(enum summary_col c)
{
	return (unsigned)c < SUMMARY_NCOLS ? summary_col_names[c] : "?";
}

/* The column names from the first'th, joined by sep, into the static
 * buffer b (built once; "" on out of memory). */
static const char *summary_col_list(struct buf *b, int first, const char *sep)
{
	int c, rc = 0;

	if (b->data)
		return b->data;
	for (c = first; c < SUMMARY_NCOLS; c++)
		rc |= buf_printf(b, "%s%s", c > first ? sep : "", summary_col_names[c]);
	if (rc) {
		buf_release(b);
		return "";
	}
	return b->data;
}

const char *summary_col_words(void)
{
	static struct buf words; /* kept for the process */

	return summary_col_list(&words, SUMMARY_COL_REGION + 1, " ");
}

/* "region, ranks, ..., gpu_avg": the choices of the messages. */
static const char *summary_choices(void)
{
	static struct buf choices; /* kept for the process */

	return summary_col_list(&choices, SUMMARY_COL_REGION, ", ");
}

int summary_col_is_count(enum summary_col c)
{
	int m = summary_metric(c);

	return c == SUMMARY_COL_RANKS || c == SUMMARY_COL_NESTED ||
	       (m >= 0 && stats_metric_is_count((enum stats_metric)m));
}

int summary_col_needs_durations(enum summary_col c)
{
	int m = summary_metric(c);

	return c == SUMMARY_COL_STD || (m >= 0 && stats_metric_quantile((enum stats_metric)m) > 0);
}

int summary_col_is_gpu(enum summary_col c)
{
	int m = summary_metric(c);

	return m == STATS_GPU_TOTAL || m == STATS_GPU_AVG;
}

/* Column called name[0..len) in any case (as every option's fixed values
 * are, docs/manual.md), or -1. */
static int summary_find_col(const char *name, size_t len)
{
	int i;

	for (i = 0; i < SUMMARY_NCOLS; i++)
		if (strlen(summary_col_names[i]) == len &&
		    !strncasecmp(summary_col_names[i], name, len))
			return i;
	return -1;
}

/* The error of the unknown column name[0..len) in --columns list, with the
 * nearest column. */
static int summary_bad_column(const char *list, const char *name, size_t len)
{
	struct buf hint = BUF_INIT;
	char *word = malloc(len + 1);
	int rc;

	if (!word)
		return err_nomem();
	memcpy(word, name, len);
	word[len] = '\0';
	rc = suggest_hint(&hint, word, summary_col_names, SUMMARY_NCOLS);
	if (!rc)
		rc = err_set(ERR_USAGE,
			     "invalid --columns '%s': unknown column '%s'; choose from %s%s", list,
			     word, summary_choices(), hint.data ? hint.data : "");
	buf_release(&hint);
	free(word);
	return rc;
}

int summary_parse_columns(enum summary_col *out, size_t *n, const char *list)
{
	int seen[SUMMARY_NCOLS] = {0};
	const char *p = list, *e;
	int c;

	*n = 0;
	out[(*n)++] = SUMMARY_COL_REGION;
	seen[SUMMARY_COL_REGION] = 1;
	for (;;) {
		e = strchr(p, ',');
		if (!e)
			e = p + strlen(p);
		c = summary_find_col(p, (size_t)(e - p));
		if (c < 0)
			return summary_bad_column(list, p, (size_t)(e - p));
		if (!seen[c])
			out[(*n)++] = (enum summary_col)c;
		seen[c] = 1;
		if (!*e)
			break;
		p = e + 1;
	}
	return 0;
}

int summary_parse_sort(enum summary_col *out, const char *name)
{
	int c =
	    strcasecmp(name, "name") ? summary_find_col(name, strlen(name)) : SUMMARY_COL_REGION;

	struct buf hint = BUF_INIT;
	int rc;

	if (c >= 0) {
		*out = (enum summary_col)c;
		return 0;
	}
	rc = suggest_hint(&hint, name, summary_col_names, SUMMARY_NCOLS);
	if (!rc && !hint.len)
		rc = suggest_hint_words(&hint, name, "name");
	if (!rc)
		rc = err_set(ERR_USAGE, "invalid --sort '%s': choose from name, %s%s", name,
			     summary_choices(), hint.data ? hint.data : "");
	buf_release(&hint);
	return rc;
}

/* Population standard deviation of sorted[0..n) ns, in seconds (two
 * passes: the mean from the exact integer sum, then the squared
 * deviations). */
static double summary_std(const int64_t *d, size_t n, int64_t total)
{
	double mean = (double)total / (double)n, ss = 0.0, x;
	size_t i;

	for (i = 0; i < n; i++) {
		x = (double)d[i] - mean;
		ss += x * x;
	}
	return sqrt(ss / (double)n) / 1e9;
}

/* Fill row from the pooled aggregates g (and, when d != NULL, the sorted
 * durations of the region; when q != NULL, its stored percentiles). */
static int summary_fill(struct summary_row *row, const struct store_region_stats *g,
			const struct i64vec *d, const double *q)
{
	struct metric_samples smp;
	int c, m, rc;

	memset(&smp, 0, sizeof(smp));
	if (d) {
		smp.sorted = d->v;
		smp.nsorted = d->len;
	}
	smp.quantiles = q;
	row->v[SUMMARY_COL_REGION].none = 1;
	row->v[SUMMARY_COL_RANKS].v = (double)g->nranks;
	row->v[SUMMARY_COL_NESTED].none = g->depth == 0; /* set by summary_nested() */
	for (c = 0; c < SUMMARY_NCOLS; c++) {
		m = summary_metric((enum summary_col)c);
		if (m < 0)
			continue;
		if (!d && !q && stats_metric_quantile((enum stats_metric)m) > 0.0) {
			row->v[c].none = 1;
			continue;
		}
		rc = metric_value(&row->v[c], g, &smp, (enum stats_metric)m);
		if (rc)
			return rc;
	}
	row->v[SUMMARY_COL_STD].none = !(d && g->has_events && g->calls > 0);
	if (!row->v[SUMMARY_COL_STD].none)
		row->v[SUMMARY_COL_STD].v = summary_std(d->v, d->len, g->total);
	return 0;
}

/* The nested calls of each path of a run, by path id (ctx: a struct
 * summary_nest): store_path_nested()'s callback. */
struct summary_nest {
	uint64_t *v; /* [path id], 0 for a path that did not recurse */
	size_t n;
};

static int summary_nest_path(void *ctx, int64_t path_id, uint64_t nested)
{
	struct summary_nest *x = ctx;

	if ((uint64_t)path_id < x->n)
		x->v[path_id] = nested;
	return 0;
}

/* By path: each row's nested calls on the selected ranks (one read of
 * the run's recursions, store_path_nested()). */
static int summary_nested(struct summary_row *rows, const struct store_region_stats *regs, size_t n,
			  struct store *st, int64_t run_id, const struct summary_opts *o)
{
	struct summary_nest x = {NULL, 0};
	size_t i;
	int rc;

	for (i = 0; i < n; i++)
		if ((uint64_t)regs[i].path_id >= x.n)
			x.n = (size_t)regs[i].path_id + 1;
	x.v = calloc(x.n ? x.n : 1, sizeof(*x.v));
	if (!x.v)
		return err_nomem();
	rc = store_path_nested(st, run_id, o->ranks, o->nranks, summary_nest_path, &x);
	for (i = 0; !rc && i < n; i++)
		rows[i].v[SUMMARY_COL_NESTED].v = (double)x.v[regs[i].path_id];
	free(x.v);
	return rc;
}

int summary_run(struct summary_row **out, size_t *n, struct store *st, int64_t run_id,
		const struct summary_opts *o)
{
	struct store_region_stats *regs = NULL;
	struct summary_row *rows = NULL;
	struct match *m = NULL;
	struct i64vec d;
	size_t nregs = 0, i, len = 0;
	int rc;

	*out = NULL;
	*n = 0;
	i64vec_init(&d);
	rc = match_new(&m, o->includes, o->ninclude, o->excludes, o->nexclude);
	if (!rc)
		rc = metric_read_stats(&regs, &nregs, st, run_id, o->ranks, o->nranks, o->by_path,
				       m);
	if (rc)
		goto out;
	rows = calloc(nregs ? nregs : 1, sizeof(*rows));
	if (!rows) {
		rc = err_nomem();
		goto out;
	}
	for (i = 0; i < nregs; i++) {
		const struct store_region_stats *g = &regs[i];
		/* the percentiles stored at ingest, when they are all the
		 * durations would give: the decoding is most of a wide run's
		 * show (4,096 ranks x 256 regions: 9 s) */
		const double *q =
		    o->durations && o->quantiles_only && g->has_quantiles ? g->quantiles : NULL;
		int want = o->durations && !q && g->has_events && g->calls > 0;

		if (want) {
			d.len = 0;
			if (g->depth > 0) {
				rc = store_path_duration_runs(st, &d, NULL, run_id, g->path_id,
							      o->ranks, o->nranks);
				if (!rc)
					util_sort_i64(d.v, d.len);
			} else {
				rc = store_region_durations(st, &d, run_id, g->region_id, o->ranks,
							    o->nranks);
			}
			if (!rc)
				rc = metric_check_samples(g, run_id, d.len, store_location(st));
			if (rc)
				goto out;
		}
		rc = summary_fill(&rows[len], g, want ? &d : NULL, q);
		if (rc)
			goto out;
		rows[len].path = regs[i].path;
		rows[len].depth = (size_t)regs[i].depth;
		regs[i].path = NULL; /* moved */
		rows[len++].name = regs[i].name;
		regs[i].name = NULL; /* moved */
	}
	if (o->by_path && nregs) {
		rc = summary_nested(rows, regs, nregs, st, run_id, o);
		if (rc)
			goto out;
	}
	*out = rows;
	*n = len;
	rows = NULL;
out:
	summary_free(rows, len);
	store_region_stats_free(regs, nregs);
	match_free(m);
	i64vec_release(&d);
	return rc;
}

/* The sort key of summary_sort() (qsort has no context argument). */
static enum summary_col summary_key;

static int summary_cmp(const void *x, const void *y)
{
	const struct summary_row *a = x, *b = y;
	const struct stats_val *va = &a->v[summary_key], *vb = &b->v[summary_key];

	if (summary_key != SUMMARY_COL_REGION) {
		if (va->none != vb->none)
			return va->none - vb->none;
		if (!va->none && va->v != vb->v)
			return va->v > vb->v ? -1 : 1;
	}
	return strcmp(a->name, b->name);
}

void summary_sort(struct summary_row *rows, size_t n, enum summary_col key)
{
	summary_key = key;
	if (n > 1)
		qsort(rows, n, sizeof(*rows), summary_cmp);
}

int summary_has_gpu(const struct summary_row *rows, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!rows[i].v[SUMMARY_COL_GPU_TOTAL].none)
			return 1;
	return 0;
}

int summary_has_nested(const struct summary_row *rows, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!rows[i].v[SUMMARY_COL_NESTED].none && rows[i].v[SUMMARY_COL_NESTED].v > 0)
			return 1;
	return 0;
}

void summary_free(struct summary_row *rows, size_t n)
{
	size_t i;

	if (!rows)
		return;
	for (i = 0; i < n; i++) {
		free(rows[i].name);
		free(rows[i].path);
	}
	free(rows);
}
