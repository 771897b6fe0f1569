/*
 * reportdata.c - the data of "scopedb report" (see reportdata.h): the
 * check through compare_runs(), the trends through store_region_history()
 * and history_values(), the call-duration summaries from the runs' stored
 * totals and percentiles, and the per-rank totals from
 * store_rank_totals().  Nothing here computes a verdict,
 * a metric or a percentile of its own.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/reportdata.h"
#include "scopedb/changes.h"
#include "scopedb/err.h"
#include "scopedb/filter.h"
#include "scopedb/same.h"
#include "scopedb/history.h"
#include "scopedb/runarg.h"
#include "scopedb/util.h"
#include "select/match.h"

/* Ranks beyond this many are not read (the heatmap buckets them anyway). */
#define REPORTDATA_MAX_RANKS 65536

static int reportdata_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double reportdata_recent(const double *v, size_t n)
{
	double prev[REPORTDATA_RECENT], med;
	size_t i, k = 0;

	if (n < 2 || isnan(v[n - 1]))
		return NAN;
	for (i = n - 1; i > 0 && k < REPORTDATA_RECENT; i--)
		if (!isnan(v[i - 1]))
			prev[k++] = v[i - 1];
	if (!k)
		return NAN;
	qsort(prev, k, sizeof(prev[0]), reportdata_cmp_double);
	med = k % 2 ? prev[k / 2] : (prev[k / 2 - 1] + prev[k / 2]) / 2.0;
	return med != 0.0 ? (v[n - 1] / med - 1.0) * 100.0 : NAN;
}

/* store_region_stats()/store_region_history() filter: the --include and
 * --exclude patterns. */
static int reportdata_filter(void *ctx, int *keep, const char *name)
{
	return match_name(keep, ctx, name);
}

/* The region called name, or NULL (regions are sorted by name). */
static struct reportdata_region *reportdata_find(struct reportdata *rd, const char *name)
{
	size_t lo = 0, hi = rd->nregions;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(rd->regions[mid].name, name);

		if (!c)
			return &rd->regions[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* The regions: every name of the history and (by name) of the
 * comparison, sorted and unique. */
static int reportdata_names(struct reportdata *rd, const struct store_history_point *p, size_t np,
			    int by_path)
{
	const char **names = NULL;
	size_t n = 0, cap = np + rd->cmp.nrows + rd->cmp.nonly_a + rd->cmp.nonly_b, i, k;
	int rc = 0;

	if (!cap)
		return 0;
	names = util_calloc(cap, sizeof(*names));
	if (!names)
		return err_nomem();
	for (i = 0; i < np; i++)
		if (!n || strcmp(names[n - 1], p[i].stats.name))
			names[n++] = p[i].stats.name;
	/* by path the comparison's rows are paths, which the call tree shows:
	 * the trends, distributions and ranks stay by region name */
	for (i = 0; !by_path && i < rd->cmp.nrows; i++)
		names[n++] = rd->cmp.rows[i].name;
	for (i = 0; !by_path && i < rd->cmp.nonly_a; i++)
		names[n++] = rd->cmp.only_a[i];
	for (i = 0; !by_path && i < rd->cmp.nonly_b; i++)
		names[n++] = rd->cmp.only_b[i];
	qsort(names, n, sizeof(*names), util_strptr_cmp);
	rd->regions = util_calloc(n ? n : 1, sizeof(*rd->regions));
	if (!rd->regions) {
		rc = err_nomem();
		goto out;
	}
	for (i = 0, k = 0; i < n; i++) {
		if (k && !strcmp(rd->regions[k - 1].name, names[i]))
			continue;
		rd->regions[k].recent = NAN;
		rd->regions[k].name = util_strdup(names[i]);
		if (!rd->regions[k++].name) {
			rc = err_nomem();
			break;
		}
	}
	rd->nregions = k;
out:
	free(names);
	return rc;
}

/* Copy the trend of each region out of the history points p[0..np) (one
 * region after the other, oldest first) with the metric's values; location
 * is the store's, for messages. */
static int reportdata_trends(struct reportdata *rd, const struct store_history_point *p, size_t np,
			     const char *location)
{
	struct history_step *s = NULL;
	struct stats_val *sv = NULL;
	struct changepoint_opts cpo;
	double *v = NULL;
	size_t i, j, start;
	int rc = 0;

	if (!np)
		return 0;
	changepoint_opts_init(&cpo);
	s = util_calloc(np, sizeof(*s));
	v = util_calloc(np, sizeof(*v));
	sv = util_calloc(np, sizeof(*sv));
	if (!s || !v || !sv) {
		rc = err_nomem();
		goto out;
	}
	rc = history_values(s, p, np, rd->metric, location);
	if (rc)
		goto out;
	for (start = 0; start < np; start = i) {
		struct reportdata_region *r = reportdata_find(rd, p[start].stats.name);

		for (i = start; i < np && !strcmp(p[i].stats.name, p[start].stats.name); i++)
			;
		if (!r)
			continue;
		r->pts = util_calloc(i - start, sizeof(*r->pts));
		if (!r->pts) {
			rc = err_nomem();
			goto out;
		}
		r->npts = i - start;
		for (j = 0; j < r->npts; j++) {
			const struct store_history_point *q = &p[start + j];
			struct reportdata_point *o = &r->pts[j];

			o->run_id = q->run_id;
			o->v = s[start + j].v.none ? NAN : s[start + j].v.v;
			v[j] = o->v;
			sv[j] = s[start + j].v;
			o->time = util_strdup(q->time ? q->time : "");
			o->commit = q->commit ? util_strdup(q->commit) : NULL;
			if (!o->time || (q->commit && !o->commit)) {
				rc = err_nomem();
				goto out;
			}
		}
		r->recent = reportdata_recent(v, r->npts);
		rc = changes_series(&r->changes, &r->nchanges, p + start, sv, r->npts, &cpo);
		if (rc)
			goto out;
	}
out:
	free(s);
	free(sv);
	free(v);
	return rc;
}

/* The call-duration summary of every region of run side of rd (stored
 * min, max, mean and percentiles of all ranks). */
static int reportdata_dists(struct reportdata *rd, struct store *st, int64_t run_id, int side,
			    struct match *m)
{
	struct store_region_stats *g = NULL;
	size_t n = 0, i;
	int rc;

	rc = store_region_stats(st, &g, &n, run_id, NULL, 0, reportdata_filter, m);
	for (i = 0; !rc && i < n; i++) {
		struct reportdata_region *r = reportdata_find(rd, g[i].name);
		struct reportdata_dist *d = r ? &r->dist[side] : NULL;

		if (!d || !g[i].has_events || !g[i].calls || !g[i].has_quantiles)
			continue;
		d->has = 1;
		d->calls = g[i].calls;
		d->min = (double)g[i].min / 1e9;
		d->max = (double)g[i].max / 1e9;
		d->mean = (double)g[i].total / (double)g[i].calls / 1e9;
		d->p50 = g[i].quantiles[0] / 1e9;
		d->p95 = g[i].quantiles[1] / 1e9;
		d->p99 = g[i].quantiles[2] / 1e9;
	}
	store_region_stats_free(g, n);
	return rc;
}

/* store_rank_totals() callback: one (region, rank) total into the ranks
 * of a selected region (others are not in rd). */
struct reportdata_rank_ctx {
	struct reportdata *rd;
	int side;
};

static int reportdata_rank_total(void *ctx, const char *region, int64_t rank, int64_t total_ns)
{
	struct reportdata_rank_ctx *c = ctx;
	struct reportdata_region *r = reportdata_find(c->rd, region);

	if (r && rank >= 0 && (size_t)rank < c->rd->nranks[c->side])
		r->ranks[c->side][rank] = (double)total_ns / 1e9;
	return 0;
}

/* The total seconds of every region on each rank 0..nranks-1 of run side
 * (NaN where the rank has no row), in one store query. */
static int reportdata_ranks(struct reportdata *rd, struct store *st, int64_t run_id, int side,
			    size_t nranks)
{
	struct reportdata_rank_ctx c = {rd, side};
	size_t i, k;

	for (i = 0; i < rd->nregions; i++) {
		rd->regions[i].ranks[side] = util_calloc(nranks, sizeof(double));
		if (!rd->regions[i].ranks[side])
			return err_nomem();
		for (k = 0; k < nranks; k++)
			rd->regions[i].ranks[side][k] = NAN;
	}
	rd->nranks[side] = nranks;
	return store_rank_totals(st, run_id, reportdata_rank_total, &c);
}

/* rd->scope and the run filter f of the trends. */
static int reportdata_scope(struct reportdata *rd, struct filter *f, const char **tagv,
			    const struct reportdata_opts *o)
{
	struct buf b = BUF_INIT;
	int rc;

	memset(f, 0, sizeof(*f));
	f->limit = (int64_t)o->history;
	if (o->tag) {
		tagv[0] = o->tag;
		f->tags = tagv;
		f->ntags = 1;
		rc = buf_printf(&b, "tag '%s'", o->tag);
	} else if (o->branch || (rd->compared && rd->cmp.b.run.branch)) {
		f->branch = o->branch ? o->branch : rd->cmp.b.run.branch;
		rc = buf_printf(&b, "branch '%s'", f->branch);
	} else {
		rc = buf_puts(&b, "all runs");
	}
	rd->scope = buf_finish(&b, rc);
	return rd->scope ? 0 : err_nomem();
}

/* ", hostname = node7" after rd->scope when --same keeps runs alike. */
static int reportdata_scope_same(struct reportdata *rd, const struct same *s)
{
	struct buf b = BUF_INIT;
	int rc;

	if (!same_shown(s))
		return 0;
	rc = buf_printf(&b, "%s, ", rd->scope) || same_describe(&b, s);
	free(rd->scope);
	rd->scope = buf_finish(&b, rc);
	return rd->scope ? 0 : err_nomem();
}

int reportdata_build(struct reportdata *rd, const struct reportdata_opts *o)
{
	struct store_history_point *p = NULL;
	struct store_history_query q;
	struct store *st = NULL;
	struct match *m = NULL;
	struct compare_opts co = o->cmp;
	struct same_spec spec = {o->cmp.same, o->cmp.nsame, o->cmp.same_from_env, NULL, 0};
	struct same tsame, asked;
	struct filter f, fs;
	struct filter_meta *conds = NULL;
	const char *tagv[1];
	char now[32];
	struct buf pat = BUF_INIT;
	struct runarg_db db;
	const char *pattern;
	size_t np = 0, i;
	int rc, side;

	memset(rd, 0, sizeof(*rd));
	memset(&tsame, 0, sizeof(tsame));
	rd->metric = o->cmp.metric;
	util_now_iso(now, sizeof(now));
	rd->generated = util_strdup(now);
	if (!rd->generated)
		return err_nomem();
	if (o->baseline) {
		co.check = 1;
		rc = compare_runs(&rd->cmp, o->baseline, o->candidate, &co);
		/* the page's verdict is a check's: not on some ranks only */
		if (!rc && rd->cmp.partial && co.by_path)
			rc = err_set(ERR_USAGE,
				     "cannot report by path: %s; report --by name, or check --by "
				     "path --ranks with ranks that have a tree",
				     rd->cmp.partial);
		else if (!rc && rd->cmp.partial)
			rc = err_set(ERR_USAGE,
				     "cannot report self times: %s; report another metric "
				     "(--metric total)",
				     rd->cmp.partial);
		if (rc)
			goto out;
		rd->compared = 1;
		rd->run_id[0] = rd->cmp.a.is_file ? 0 : rd->cmp.a.run.id;
		rd->run_id[1] = rd->cmp.b.is_file ? 0 : rd->cmp.b.run.id;
	}
	rc = match_new(&m, co.includes, co.ninclude, co.excludes, co.nexclude);
	for (i = 0; !rc && i < co.ninclude; i++)
		rc = buf_printf(&pat, "%s%s", i ? "|" : "", co.includes[i]) ? err_nomem() : 0;
	pattern = co.ninclude ? pat.data : ".*";
	if (!rc)
		rc = reportdata_scope(rd, &f, tagv, o);
	if (!rc) {
		rc = store_open(&st, co.db_path, STORE_READONLY);
		if (rc && rd->compared && rd->cmp.a.is_file && rd->cmp.b.is_file) {
			/* two files: the check is made, the trends need a store */
			char why[512];

			snprintf(why, sizeof(why), "%s", err_msg());
			rc = err_set(rc,
				     "%s (a report's trends come from a store, even for two files; "
				     "'scopedb check' compares the files alone)",
				     why);
		}
	}
	/* trends alone from a store without a run: say that, not that no
	 * run has a selected region */
	if (!rc && !rd->compared)
		rc = runarg_any_run(st);
	/* like with like: the trends keep the runs of the --same values the
	 * check kept (the baseline's; not the check's own mpi_size and
	 * platform: a branch's trend shows its moves), or without a check
	 * those of the newest run */
	asked = same_part(&rd->cmp.same, 0);
	if (!rc && rd->compared)
		rc = same_filter(&fs, &conds, &f, &asked);
	else if (!rc)
		rc = same_apply(&tsame, &fs, &conds, st, &f, &spec);
	if (!rc)
		rc = reportdata_scope_same(rd, rd->compared ? &asked : &tsame);
	if (rc)
		goto out;
	memset(&q, 0, sizeof(q));
	q.filter = reportdata_filter;
	q.ctx = m;
	q.pattern = pattern;
	q.runs = &fs;
	rc = store_region_history(st, &p, &np, &q);
	if (rc == ERR_NOTFOUND && rd->compared)
		rc = 0; /* the compared files' regions are not stored */
	if (!rc)
		rc = reportdata_names(rd, p, np, co.by_path && rd->compared);
	if (!rc)
		rc = reportdata_trends(rd, p, np, store_location(st));
	if (rc)
		goto out;
	/* by path, the trends are still by name: a pattern of paths may
	 * select no region name, and the call tree is the page's news */
	if (!rd->nregions && !(co.by_path && rd->compared)) {
		rc = co.ninclude ? err_set(ERR_NOTFOUND,
					   "nothing to report: --include '%s' matches no region of "
					   "%s",
					   pattern, rd->scope)
		     : co.nexclude
			 ? err_set(ERR_NOTFOUND,
				   "nothing to report: --exclude leaves no region of %s", rd->scope)
			 : err_set(ERR_NOTFOUND, "no run of %s has a selected region", rd->scope);
		goto out;
	}
	/* nor a comparison of nothing, where check fails: the page said PASS */
	if (rd->compared && (rd->cmp.nothing || rd->cmp.valueless)) {
		rc = err_set(ERR_USAGE, "nothing to compare: %s",
			     rd->cmp.nothing ? rd->cmp.nothing : rd->cmp.valueless);
		goto out;
	}
	runarg_db_init(&db, st, co.db_path);
	for (side = 0; side < 2 && rd->compared && !rc; side++) {
		const struct store_run *run = side ? &rd->cmp.b.run : &rd->cmp.a.run;
		size_t nranks = run->num_ranks > 0 ? (size_t)run->num_ranks : 0;
		struct runarg ra;

		if (nranks > REPORTDATA_MAX_RANKS)
			nranks = REPORTDATA_MAX_RANKS;
		/* a file: read again, into a store of its own (compare_runs()
		 * kept none) */
		memset(&ra, 0, sizeof(ra));
		ra.st = st;
		ra.run_id = rd->run_id[side];
		if (!ra.run_id)
			rc = runarg_resolve(&ra, &db, side ? o->candidate : o->baseline);
		if (!rc)
			rc = reportdata_dists(rd, ra.st, ra.run_id, side, m);
		if (!rc)
			rc = reportdata_ranks(rd, ra.st, ra.run_id, side, nranks);
		runarg_release(&ra);
	}
	runarg_db_release(&db);
out:
	store_history_free(p, np);
	store_close(st);
	match_free(m);
	buf_release(&pat);
	free(conds);
	same_release(&tsame);
	return rc;
}

void reportdata_release(struct reportdata *rd)
{
	size_t i, j;

	if (!rd)
		return;
	for (i = 0; i < rd->nregions; i++) {
		struct reportdata_region *r = &rd->regions[i];

		for (j = 0; j < r->npts; j++) {
			free(r->pts[j].time);
			free(r->pts[j].commit);
		}
		free(r->pts);
		free(r->changes);
		free(r->ranks[0]);
		free(r->ranks[1]);
		free(r->name);
	}
	free(rd->regions);
	compare_release(&rd->cmp);
	free(rd->scope);
	free(rd->generated);
	memset(rd, 0, sizeof(*rd));
}
