/*
 * compare_partial.c - what a comparison cannot count, said before it is
 * made (compare_int.h): by name, regions whose self time is unknown (a
 * rank of their calls without a call tree, and no exclusive totals); by
 * path, runs with a rank of calls but no tree, whose paths leave that
 * rank out (compare_paths_partial(), compare.h).  check and report refuse
 * such a comparison, diff warns of it.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare_int.h"
#include "analysis/runset.h"
#include "scopedb/compare.h"
#include "scopedb/err.h"
#include "scopedb/runarg.h"
#include "scopedb/store.h"
#include "scopedb/util.h"

/* The regions of side with calls whose metric has no value in v. */
static size_t compare_count_unknown(const struct compare_side *side, const struct stats_named *v)
{
	size_t i, n = 0;

	for (i = 0; i < side->nregions; i++)
		n += v[i].v.none && !compare_side_idle(side, v[i].name);
	return n;
}

/* "NAME: N regions with calls have no self time (why)" of one side, run
 * id of st. */
static int compare_unknown_msg(char **out, const struct compare_side *side, struct store *st,
			       int64_t id, size_t n)
{
	struct store_nesting nest;
	struct buf t = BUF_INIT;
	int found, rc = store_get_nesting(st, id, &nest, &found);

	if (rc)
		return rc;
	rc = compare_side_name(&t, side);
	rc |= buf_printf(&t, ": %zu %s with calls %s no self time (", n,
			 n == 1 ? "region" : "regions", n == 1 ? "has" : "have");
	if (!found)
		rc |= buf_puts(&t, "stored before scopedb kept call trees: ingest its file again");
	else if (nest.ranks > 0 && nest.trees < nest.ranks)
		rc |= buf_printf(&t,
				 "a rank with %s calls has no call tree: calls that overlap "
				 "without nesting, or too many to hold",
				 n == 1 ? "its" : "their");
	else
		rc |= buf_puts(&t, "the file keeps no calls to build a call tree from, and no "
				   "exclusive totals");
	rc |= buf_puts(&t, ")");
	*out = buf_finish(&t, rc);
	return *out ? 0 : err_nomem();
}

/*
 * By name, a region's self time is unknown where a rank with its calls
 * has no call tree and the file keeps no exclusive totals: unknown, not
 * 0, which read as -100% and let a check of a run 10x slower pass.  Said
 * in r->partial (the candidate's in r->partial_other when both sides have
 * some), which check and report refuse and diff warns of, as of the paths
 * of such runs.
 */
int compare_self_unknown(struct compare_result *r, const struct stats_named *va,
			 const struct stats_named *vb, const struct runarg *sa,
			 const struct runarg *sb, const struct compare_opts *o)
{
	size_t na, nb;
	int rc = 0;

	if (o->metric != STATS_SELF || o->by_path)
		return 0;
	na = compare_count_unknown(&r->a, va);
	nb = compare_same_sides(r) ? 0 : compare_count_unknown(&r->b, vb);
	if (na)
		rc = compare_unknown_msg(&r->partial, &r->a, sa->st, sa->run_id, na);
	if (!rc && nb)
		rc = compare_unknown_msg(na ? &r->partial_other : &r->partial, &r->b, sb->st,
					 sb->run_id, nb);
	return rc;
}

/* The ranks chosen (sorted, unique) and, for each, whether the run has a
 * call on it and whether it has a path row on it. */
struct partial_ranks {
	const int64_t *sel;
	size_t nsel;
	unsigned char *calls, *tree;
};

/* The index of rank in x->sel, or -1. */
static ptrdiff_t partial_at(const struct partial_ranks *x, int64_t rank)
{
	size_t lo = 0, hi = x->nsel;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (x->sel[mid] < rank)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < x->nsel && x->sel[lo] == rank ? (ptrdiff_t)lo : -1;
}

static int partial_total(void *ctx, const char *region, int64_t rank, int64_t total_ns)
{
	struct partial_ranks *x = ctx;
	ptrdiff_t i = partial_at(x, rank);

	(void)region;
	if (i >= 0 && total_ns > 0)
		x->calls[i] = 1;
	return 0;
}

static int partial_path_rank(void *ctx, const struct store_path_rank *r)
{
	struct partial_ranks *x = ctx;
	ptrdiff_t i = partial_at(x, r->rank);

	if (i >= 0)
		x->tree[i] = 1;
	return 0;
}

/* *missing = the first of the ranks chosen on which run id has calls but
 * no call tree, or -1. */
static int partial_chosen(int64_t *missing, struct store *st, int64_t id, const int64_t *ranks,
			  size_t nranks)
{
	struct partial_ranks x = {ranks, nranks, NULL, NULL};
	size_t i;
	int rc;

	*missing = -1;
	x.calls = calloc(nranks, 1);
	x.tree = calloc(nranks, 1);
	rc = x.calls && x.tree ? 0 : err_nomem();
	if (!rc)
		rc = store_rank_totals(st, id, partial_total, &x);
	if (!rc)
		rc = store_scan_paths(st, id, NULL, partial_path_rank, &x);
	for (i = 0; !rc && i < nranks && *missing < 0; i++)
		if (x.calls[i] && !x.tree[i])
			*missing = ranks[i];
	free(x.calls);
	free(x.tree);
	return rc;
}

int compare_paths_partial(char **out, struct store *st, int64_t id, int is_file,
			  const int64_t *ranks, size_t nranks)
{
	struct store_nesting nest;
	struct store_run run;
	struct buf t = BUF_INIT;
	int64_t missing = -1;
	int found, rc;

	*out = NULL;
	rc = store_get_nesting(st, id, &nest, &found);
	if (rc || !found || nest.trees == 0 || nest.trees >= nest.ranks)
		return rc;
	/* --ranks: only a chosen rank without a tree matters */
	if (nranks) {
		rc = partial_chosen(&missing, st, id, ranks, nranks);
		if (rc || missing < 0)
			return rc;
	}
	memset(&run, 0, sizeof(run));
	if (is_file)
		rc = store_get_run(st, &run, id);
	if (!rc && is_file)
		rc = buf_printf(&t, "'%s'", run.source_path ? run.source_path : "?");
	else if (!rc)
		rc = buf_printf(&t, "run %lld", (long long)id);
	if (!rc && nranks)
		rc = buf_printf(&t,
				": rank %lld has calls but no call tree with paths (calls that "
				"overlap without nesting, rows of totals only, too many calls to "
				"hold, or paths too deep or too many), so its paths leave it out",
				(long long)missing);
	else if (!rc)
		rc =
		    buf_printf(&t,
			       ": %lld of its %lld ranks with calls %s no call tree with paths "
			       "(calls that overlap without nesting, rows of totals only, too many "
			       "calls to hold, or paths too deep or too many), so its paths leave "
			       "%s out",
			       (long long)(nest.ranks - nest.trees), (long long)nest.ranks,
			       nest.ranks - nest.trees == 1 ? "has" : "have",
			       nest.ranks - nest.trees == 1 ? "that rank" : "those ranks");
	store_run_release(&run);
	*out = buf_finish(&t, rc);
	return *out || rc ? rc : err_nomem();
}

/* *slot: compare_paths_partial() of the first run that has one, over the
 * ranks o chooses. */
static int compare_partial_run(char **slot, struct store *st, int64_t id, int is_file,
			       const struct compare_opts *o)
{
	return *slot ? 0 : compare_paths_partial(slot, st, id, is_file, o->ranks, o->nranks);
}

/* compare_partial_run() of every run compared by path, a side at a time:
 * the baseline and its sets, then the candidate, its files and its set.
 * r->partial is the first side's message, r->partial_other the
 * candidate's when both sides have one (diff warns of each). */
int compare_partial(struct compare_result *r, const struct runarg *sa, const struct runarg *sb,
		    const struct runset *rs, const struct compare_opts *o)
{
	char *pa = NULL, *pb = NULL;
	size_t i;
	int rc = 0;

	if (!o->by_path)
		return 0;
	rc = compare_partial_run(&pa, sa->st, sa->run_id, sa->is_file, o);
	for (i = 0; !rc && i < rs->nbase; i++)
		rc = compare_partial_run(&pa, sa->st, rs->base[i].id, sa->is_file, o);
	for (i = 0; !rc && i < rs->nhist; i++)
		rc = compare_partial_run(&pa, sa->st, rs->hist[i].id, sa->is_file, o);
	if (!rc)
		rc = compare_partial_run(&pb, sb->st, sb->run_id, sb->is_file, o);
	for (i = 1; !rc && i < sb->nreps; i++)
		rc = compare_partial_run(&pb, sb->st, sb->reps[i], sb->is_file, o);
	for (i = 0; !rc && i < rs->ncand; i++)
		rc = compare_partial_run(&pb, sb->st, rs->cand[i].id, sb->is_file, o);
	r->partial = pa ? pa : pb;
	r->partial_other = pa && pb && strcmp(pa, pb) ? pb : NULL; /* a run against itself: once */
	if (pa && pb && !r->partial_other)
		free(pb);
	return rc;
}
