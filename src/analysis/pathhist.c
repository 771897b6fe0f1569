/*
 * pathhist.c - the history of paths (history and changes --by path,
 * docs/calltree.md): the points store_region_history() and the series
 * store_region_series() give for regions, made for the paths of the call
 * tree from each selected run's stored paths (store_path_stats(), one read
 * per run, as show --by path reads them), so that history_values(), the
 * change points and the commands' documents serve both.  Runs
 * stored before scopedb kept call trees have no paths and no point.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/pathhist.h"
#include "scopedb/err.h"
#include "scopedb/filter.h"
#include "scopedb/util.h"
#include "select/match.h"

/* A point and its run's place in time (0 = the oldest selected run). */
struct pathhist_item {
	struct store_history_point p;
	size_t seq;
};

/* *keep = 1 when region is last name spelt as a path writes it (the
 * outputs print "x \> y" for the name "x > y", "a\\b" for "a\b": a
 * name copied from a row); only that spelling, so "a\b" as typed is not
 * also the name "ab".  Only a region with a backslash can be one. */
static int pathhist_keep_escaped(int *keep, const char *region, const char *last)
{
	size_t n;
	char *spelt;

	*keep = 0;
	if (!strchr(region, '\\'))
		return 0;
	n = util_path_name_len(last);
	spelt = malloc(n + 1);
	if (!spelt)
		return err_nomem();
	*util_path_name_put(spelt, last) = '\0';
	*keep = !strcmp(spelt, region);
	free(spelt);
	return 0;
}

/* store_path_stats() filter: q's region (the joined path or the last
 * name, exactly, or as a path spells it), or its filter on the joined
 * path or the last name. */
static int pathhist_keep(void *ctx, int *keep, const char *joined, const char *const *names,
			 size_t depth)
{
	const struct store_history_query *q = ctx;
	const char *last = depth ? names[depth - 1] : joined;

	if (q->region) {
		*keep = !strcmp(joined, q->region) || !strcmp(last, q->region);
		return *keep ? 0 : pathhist_keep_escaped(keep, q->region, last);
	}
	if (!q->filter) {
		*keep = 1;
		return 0;
	}
	return match_path(keep, q->ctx, joined, last);
}

/* The error of a --by path history or series none of whose runs has paths
 * (both say the same). */
static int pathhist_no_paths(void)
{
	return err_set(ERR_NOTFOUND,
		       "no selected run has paths: runs stored before scopedb kept call "
		       "trees have none (ingest their files again), and so do runs "
		       "without a call tree; use --by name");
}

static int pathhist_cmp(const void *x, const void *y)
{
	const struct pathhist_item *a = x, *b = y;
	int c = strcmp(a->p.stats.name, b->p.stats.name);

	if (c)
		return c;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static int pathhist_dup(char **out, const char *s)
{
	*out = NULL;
	if (!s)
		return 0;
	*out = util_strdup(s);
	return *out ? 0 : err_nomem();
}

/* The points of run r (the seq-th oldest) into *v. */
static int pathhist_run(struct pathhist_item **v, size_t *n, size_t *cap, struct store *st,
			const struct store_run *r, size_t seq, const struct store_history_query *q)
{
	struct store_history_query qq = *q; /* the filter's context */
	struct store_region_stats *regs = NULL;
	size_t ng = 0, j;
	int rc = store_path_stats(st, &regs, &ng, r->id, q->ranks, q->nranks, pathhist_keep, &qq);

	for (j = 0; !rc && j < ng; j++) {
		struct pathhist_item *it;

		if (util_grow(v, cap, *n + 1, sizeof(**v), 64)) {
			rc = err_nomem();
			break;
		}
		it = &(*v)[(*n)++];
		memset(it, 0, sizeof(*it));
		it->seq = seq;
		it->p.stats = regs[j];
		regs[j].name = NULL; /* moved, with the names */
		regs[j].path = NULL;
		it->p.run_id = r->id;
		i64vec_init(&it->p.durations);
		rc = pathhist_dup(&it->p.time, r->recorded_at ? r->recorded_at : r->ingested_at);
		if (!rc)
			rc = pathhist_dup(&it->p.commit, r->commit);
		if (!rc)
			rc = pathhist_dup(&it->p.label, r->label);
		/* all ranks: the run's stored percentiles serve (history.c) */
		if (!rc && q->durations && !regs[j].has_quantiles && regs[j].has_events &&
		    regs[j].calls) {
			rc = store_path_duration_runs(st, &it->p.durations, NULL, r->id,
						      regs[j].path_id, q->ranks, q->nranks);
			if (!rc)
				util_sort_i64(it->p.durations.v, it->p.durations.len);
		}
	}
	store_region_stats_free(regs, ng);
	return rc;
}

/* Free what point p holds (not p). */
static void pathhist_release(struct store_history_point *p)
{
	free(p->stats.name);
	free(p->stats.path);
	free(p->time);
	free(p->commit);
	free(p->label);
	i64vec_release(&p->durations);
}

/* Each path's newest limit points of v (sorted by path, then time). */
static size_t pathhist_limit(struct pathhist_item *v, size_t n, int64_t limit)
{
	size_t i = 0, j, k, out = 0;

	while (i < n) {
		for (j = i; j < n && !strcmp(v[j].p.stats.name, v[i].p.stats.name); j++)
			;
		for (k = i; k < j; k++) {
			if (limit > 0 && (int64_t)(j - k) > limit)
				pathhist_release(&v[k].p);
			else
				v[out++] = v[k];
		}
		i = j;
	}
	return out;
}

/* A hint for a path asked for that may hold a '>' a joined name writes
 * "\\>" (docs/calltree.md: one that starts or ends a name beside a space,
 * as in "vector<int> >"): a " >" at its end, a "> " at its start or a
 * " > > " in it; else "". */
static const char *pathhist_gt_hint(const char *asked)
{
	size_t n = strlen(asked);

	if ((n >= 2 && !strcmp(asked + n - 2, " >") && (n < 3 || asked[n - 3] != '\\')) ||
	    !strncmp(asked, "> ", 2) || strstr(asked, " > > "))
		return "; a '>' that starts or ends a region's name is written '\\>' in a path "
		       "(vector<int> \\>)";
	return "";
}

int pathhist_points(struct store *st, struct store_history_point **out, size_t *n,
		    const struct store_history_query *q)
{
	struct store_run *runs = NULL;
	struct pathhist_item *v = NULL;
	struct filter f;
	size_t nr = 0, nv = 0, cap = 0, i, with = 0;
	int rc;

	*out = NULL;
	*n = 0;
	memset(&f, 0, sizeof(f));
	if (q->runs)
		f = *q->runs;
	f.limit = 0; /* per path, below */
	rc = store_find_runs(st, &runs, &nr, &f);
	/* oldest first: store_find_runs() lists the newest first */
	for (i = nr; !rc && i-- > 0;) {
		struct store_nesting nest;
		int found = 0;

		rc = store_get_nesting(st, runs[i].id, &nest, &found);
		if (rc || !found || !nest.paths)
			continue;
		with++;
		rc = pathhist_run(&v, &nv, &cap, st, &runs[i], nr - 1 - i, q);
	}
	if (!rc && nr && !with)
		rc = pathhist_no_paths();
	/* a name no selected run's tree has: an error, as an unknown region
	 * of the flat history is (filters that select no run are not) */
	if (!rc && with && !nv && q->region)
		rc = err_set(ERR_NOTFOUND,
			     "no path or region '%s' in the call trees of the selected runs%s",
			     util_quote_msg(q->region), pathhist_gt_hint(q->region));
	if (!rc && nv) {
		qsort(v, nv, sizeof(*v), pathhist_cmp);
		nv = pathhist_limit(v, nv, q->runs ? q->runs->limit : 0);
		*out = calloc(nv ? nv : 1, sizeof(**out));
		if (!*out)
			rc = err_nomem();
	}
	for (i = 0; i < nv; i++) {
		if (!rc)
			(*out)[i] = v[i].p;
		else
			pathhist_release(&v[i].p);
	}
	if (!rc)
		*n = nv;
	free(v);
	store_runs_free(runs, nr);
	return rc;
}

/* A cell being collected: its path's name (owned until it moves to the
 * series' names) and its run. */
struct pathhist_cell {
	struct store_region_stats stats;
	size_t run;
};

/* store_path_stats() filter of a series: the patterns of ctx (a struct
 * match) on the joined path and the last name. */
static int pathhist_sel_keep(void *ctx, int *keep, const char *joined, const char *const *names,
			     size_t depth)
{
	return match_path(keep, ctx, joined, depth ? names[depth - 1] : joined);
}

static int pathhist_cell_cmp(const void *x, const void *y)
{
	const struct pathhist_cell *a = x, *b = y;
	int c = strcmp(a->stats.name, b->stats.name);

	if (c)
		return c;
	return a->run < b->run ? -1 : a->run > b->run;
}

/* The runs of out (oldest first) from runs[0..nr) (newest first). */
static int pathhist_series_runs(struct store_series *out, const struct store_run *runs, size_t nr)
{
	size_t i;
	int rc = 0;

	out->runs = calloc(nr ? nr : 1, sizeof(*out->runs));
	if (!out->runs)
		return err_nomem();
	for (i = 0; !rc && i < nr; i++) {
		const struct store_run *r = &runs[nr - 1 - i];
		struct store_series_run *s = &out->runs[out->nruns++];

		s->id = r->id;
		rc = pathhist_dup(&s->time, r->recorded_at ? r->recorded_at : r->ingested_at);
		if (!rc)
			rc = pathhist_dup(&s->commit, r->commit);
		if (!rc)
			rc = pathhist_dup(&s->label, r->label);
		if (!rc)
			rc = pathhist_dup(&s->branch, r->branch);
	}
	return rc;
}

/* The cells of v[0..n) (sorted) into out: names once each, cells borrowing
 * them.  The names move out of v. */
static int pathhist_series_cells(struct store_series *out, struct pathhist_cell *v, size_t n)
{
	size_t i;

	out->names = calloc(n ? n : 1, sizeof(*out->names));
	out->cells = calloc(n ? n : 1, sizeof(*out->cells));
	if (!out->names || !out->cells)
		return err_nomem();
	for (i = 0; i < n; i++) {
		struct store_series_cell *c = &out->cells[out->ncells++];

		if (!out->nregions || strcmp(out->names[out->nregions - 1], v[i].stats.name)) {
			out->names[out->nregions++] = v[i].stats.name;
		} else {
			free(v[i].stats.name);
		}
		v[i].stats.name = NULL;
		c->run = v[i].run;
		c->region = out->nregions - 1;
		c->stats = v[i].stats;
		c->stats.name = out->names[c->region];
	}
	out->nselected = out->nregions;
	return 0;
}

int pathhist_series(struct store *st, struct store_series *out, const struct filter *f,
		    struct match *m)
{
	struct store_run *runs = NULL;
	struct pathhist_cell *v = NULL;
	size_t nr = 0, nv = 0, cap = 0, i, j, with = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = store_find_runs(st, &runs, &nr, f);
	if (!rc)
		rc = pathhist_series_runs(out, runs, nr);
	for (i = 0; !rc && i < out->nruns; i++) {
		struct store_region_stats *regs = NULL;
		struct store_nesting nest;
		size_t ng = 0;
		int found = 0;

		rc = store_get_nesting(st, out->runs[i].id, &nest, &found);
		if (rc || !found || !nest.paths)
			continue;
		with++;
		rc = store_path_stats(st, &regs, &ng, out->runs[i].id, NULL, 0,
				      m ? pathhist_sel_keep : NULL, m);
		for (j = 0; !rc && j < ng; j++) {
			if (util_grow(&v, &cap, nv + 1, sizeof(*v), 64)) {
				rc = err_nomem();
				break;
			}
			v[nv].stats = regs[j];
			v[nv].stats.path = NULL;
			v[nv++].run = i;
			regs[j].name = NULL; /* moved */
		}
		store_region_stats_free(regs, ng);
	}
	if (!rc && nr && !with)
		rc = pathhist_no_paths();
	if (!rc) {
		if (nv)
			qsort(v, nv, sizeof(*v), pathhist_cell_cmp);
		rc = pathhist_series_cells(out, v, nv);
	}
	for (i = 0; i < nv; i++)
		free(v[i].stats.name);
	free(v);
	store_runs_free(runs, nr);
	if (rc)
		store_series_release(out);
	return rc;
}
