/*
 * compare.c - the core of diff and check (see compare.h): resolve both
 * arguments to a (store, run) pair, pool each selected region's rows of the
 * selected ranks with the store's aggregate query, turn the aggregates into
 * metric values (stats.c) and build the rows and the verdict.
 *
 * Files named on the command line are ingested into a private in-memory
 * store (runarg.h), so stored runs and files share every line of the
 * metric code.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/metric.h"
#include "scopedb/compare.h"
#include "scopedb/err.h"
#include "select/match.h"
#include "scopedb/runarg.h"
#include "scopedb/store.h"
#include "scopedb/util.h"

/*
 * Resolve arg (runarg.h: a selector in the shared store db, else a file in
 * src's in-memory store) and describe it in side.
 */
static int compare_open_side(struct runarg *src, struct compare_side *side, struct runarg_db *db,
			     const char *arg)
{
	int rc;

	side->arg = util_strdup(arg);
	if (!side->arg)
		return ERR_NOMEM;
	rc = runarg_resolve(src, db, arg);
	if (rc)
		return rc;
	side->is_file = src->is_file;
	return runarg_get_run(&side->run, src, arg);
}

/* store_region_stats() filter: the --include/--exclude patterns. */
static int compare_filter(void *ctx, int *keep, const char *name)
{
	return match_name(keep, ctx, name);
}

static int compare_cmp_str(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/*
 * The metric of every selected region of one side: *out[i].name points
 * into side->regions, which receives the names (sorted).
 */
static int compare_values(struct stats_named **out, struct compare_side *side,
			  const struct runarg *src, struct match *m, const struct compare_opts *o)
{
	struct store_region_stats *regs = NULL;
	struct stats_named *vals = NULL;
	struct i64vec d, ends;
	size_t n = 0, i;
	int need = stats_metric_quantile(o->metric) > 0.0, rc;

	i64vec_init(&d);
	i64vec_init(&ends);
	*out = NULL;
	rc = store_region_stats(src->st, &regs, &n, src->run_id, o->ranks, o->nranks,
				compare_filter, m);
	if (rc)
		goto out;
	vals = calloc(n ? n : 1, sizeof(*vals));
	side->regions = calloc(n ? n : 1, sizeof(*side->regions));
	if (!vals || !side->regions) {
		rc = err_nomem();
		goto out;
	}
	for (i = 0; i < n; i++) {
		const struct store_region_stats *g = &regs[i];
		struct metric_samples smp;

		memset(&smp, 0, sizeof(smp));
		if (need && g->has_quantiles) {
			smp.quantiles = g->quantiles;
		} else if (need && g->has_events && g->calls > 0) {
			/* Each rank's blob is sorted already: the percentile is
			 * selected across those runs, never sorting them all. */
			d.len = 0;
			ends.len = 0;
			rc = store_region_duration_runs(src->st, &d, &ends, src->run_id,
							g->region_id, o->ranks, o->nranks);
			if (!rc)
				rc = metric_check_samples(g, src->run_id, d.len);
			if (rc)
				goto out;
			smp.sorted = d.v;
			smp.nsorted = d.len;
			smp.run_ends = ends.v;
			smp.nruns = ends.len;
		}
		rc = metric_value(&vals[i].v, g, &smp, o->metric);
		if (rc)
			goto out;
		side->regions[i] = g->name;
		regs[i].name = NULL; /* moved */
		side->nregions++;
		vals[i].name = side->regions[i];
	}
	/* Names as Python sorts them (code points = UTF-8 byte order). */
	qsort(side->regions, side->nregions, sizeof(*side->regions), compare_cmp_str);
	*out = vals;
	vals = NULL;
out:
	store_region_stats_free(regs, n);
	i64vec_release(&d);
	i64vec_release(&ends);
	free(vals);
	return rc;
}

/* Names in x but not in y (both sorted): *out borrows x's strings. */
static int compare_only(const char ***out, size_t *n, char *const *x, size_t nx, char *const *y,
			size_t ny)
{
	size_t i = 0, j = 0;
	const char **v;

	*n = 0;
	*out = NULL;
	v = malloc((nx ? nx : 1) * sizeof(*v));
	if (!v)
		return err_nomem();
	while (i < nx) {
		int c = j < ny ? strcmp(x[i], y[j]) : -1;

		if (c < 0)
			v[(*n)++] = x[i++];
		else if (c > 0)
			j++;
		else
			i++, j++;
	}
	*out = v;
	return 0;
}

/* The metadata differences of the two sides (files included: their
 * in-memory store holds their metadata). */
static int compare_meta(struct compare_result *out, const struct runarg *sa,
			const struct runarg *sb)
{
	struct store_meta ma, mb;
	int rc;

	memset(&mb, 0, sizeof(mb));
	rc = store_get_meta(sa->st, &ma, sa->run_id);
	if (!rc)
		rc = store_get_meta(sb->st, &mb, sb->run_id);
	if (!rc)
		rc = metadiff_compute(&out->meta_changes, &out->nmeta_changes, &ma, &mb, 0);
	store_meta_release(&ma);
	store_meta_release(&mb);
	return rc;
}

int compare_runs(struct compare_result *out, const char *arg_a, const char *arg_b,
		 const struct compare_opts *opts)
{
	struct runarg sa, sb;
	struct runarg_db db;
	struct stats_named *va = NULL, *vb = NULL;
	struct stats_diff_opts dopts;
	struct match *m = NULL;
	int rc;

	memset(out, 0, sizeof(*out));
	memset(&sa, 0, sizeof(sa));
	memset(&sb, 0, sizeof(sb));
	runarg_db_init(&db, opts->store, opts->db_path);
	/* Refuse a bad budget before any file is read (NaN fails too). */
	if (opts->check && !(opts->max_regression >= 0.0)) {
		rc = err_set(ERR_USAGE, "invalid --max-regression %g: must not be negative",
			     opts->max_regression);
		goto out;
	}
	rc = match_new(&m, opts->includes, opts->ninclude, opts->excludes, opts->nexclude);
	if (!rc)
		rc = compare_open_side(&sa, &out->a, &db, arg_a);
	if (!rc)
		rc = compare_open_side(&sb, &out->b, &db, arg_b);
	if (!rc)
		rc = compare_meta(out, &sa, &sb);
	if (!rc)
		rc = compare_values(&va, &out->a, &sa, m, opts);
	if (!rc)
		rc = compare_values(&vb, &out->b, &sb, m, opts);
	if (rc)
		goto out;
	memset(&dopts, 0, sizeof(dopts));
	dopts.sort = opts->check ? STATS_SORT_PCT : opts->sort;
	dopts.has_threshold = !opts->check && opts->has_threshold;
	dopts.threshold = opts->threshold;
	rc = stats_diff(&out->rows, &out->nrows, va, out->a.nregions, vb, out->b.nregions, &dopts);
	if (rc)
		goto out;
	if (opts->check) {
		size_t nviol;

		rc = stats_check(&nviol, out->rows, out->nrows, opts->max_regression,
				 opts->fail_on_new);
		if (!rc)
			rc = stats_verdict(&out->verdict, out->rows, out->nrows);
		if (rc)
			goto out;
	}
	rc = compare_only(&out->only_a, &out->nonly_a, out->a.regions, out->a.nregions,
			  out->b.regions, out->b.nregions);
	if (!rc)
		rc = compare_only(&out->only_b, &out->nonly_b, out->b.regions, out->b.nregions,
				  out->a.regions, out->a.nregions);
out:
	free(va);
	free(vb);
	match_free(m);
	runarg_release(&sa);
	runarg_release(&sb);
	runarg_db_release(&db);
	if (rc)
		compare_release(out);
	return rc;
}

static void compare_side_release(struct compare_side *s)
{
	size_t i;

	free(s->arg);
	store_run_release(&s->run);
	for (i = 0; i < s->nregions; i++)
		free(s->regions[i]);
	free(s->regions);
	memset(s, 0, sizeof(*s));
}

void compare_release(struct compare_result *r)
{
	if (!r)
		return;
	compare_side_release(&r->a);
	compare_side_release(&r->b);
	verdict_release(&r->verdict);
	free(r->rows);
	free(r->only_a);
	free(r->only_b);
	metadiff_free(r->meta_changes, r->nmeta_changes);
	memset(r, 0, sizeof(*r));
}
