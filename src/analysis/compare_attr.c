/*
 * compare_attr.c - attribution (issue 22, docs/calltree.md): for each row
 * of diff that grew and each row of check over its budget, the paths under
 * it (itself included, on either side, selected or not) whose self time
 * grew, largest first, with their share of the row's growth.  A path's
 * inclusive growth is its self growth plus its children's inclusive
 * growth, so these causes explain it.  Also compare_find_path(): a row's
 * path by name, for the renderers.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/compare_int.h"
#include "scopedb/compare.h"
#include "scopedb/err.h"
#include "scopedb/store.h"
#include "scopedb/util.h"

/* The first of the n paths p not sorted before name. */
static size_t compare_lower(const struct compare_path *p, size_t n, const char *name)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(p[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* 1 when path name is root or lies under it ("root > ..."). */
static int compare_under(const char *name, const char *root, size_t len)
{
	return !strncmp(name, root, len) && (!name[len] || !strncmp(name + len, " > ", 3));
}

/* The paths attribution looks at on side s: all of them, or the selected
 * ones when that is all of them (no --include/--exclude). */
static const struct compare_path *compare_pool(const struct compare_side *s, size_t *n)
{
	*n = s->all ? s->nall : s->npaths;
	return s->all ? s->all : s->paths;
}

/* The path called name among side s's (NULL when absent). */
const struct compare_path *compare_get(const struct compare_side *s, const char *name)
{
	size_t n, k;
	const struct compare_path *p = compare_pool(s, &n);

	k = compare_lower(p, n, name);
	return k < n && !strcmp(p[k].name, name) ? &p[k] : NULL;
}

static int compare_cmp_cause(const void *x, const void *y)
{
	const struct compare_cause *a = x, *b = y;

	if (a->delta_self != b->delta_self)
		return a->delta_self > b->delta_self ? -1 : 1;
	return strcmp(a->path->name, b->path->name);
}

/* The causes of row's growth: the paths under it (on either side,
 * selected or not) whose self time grew. */
static int compare_causes(struct compare_attr *at, const struct compare_result *r,
			  const struct stats_row *row)
{
	const struct compare_side *sides[2] = {&r->b, &r->a};
	size_t len = strlen(row->name), cap = 0, k, s;

	for (s = 0; s < 2; s++) {
		size_t np;
		const struct compare_path *pool = compare_pool(sides[s], &np);

		for (k = compare_lower(pool, np, row->name);
		     k < np && !strncmp(pool[k].name, row->name, len); k++) {
			const struct compare_path *p = &pool[k], *pa, *pb;
			double d;

			if (!compare_under(p->name, row->name, len))
				continue;
			pb = compare_get(&r->b, p->name);
			pa = compare_get(&r->a, p->name);
			if (s == 1 && pb)
				continue; /* a path of both sides: counted from b's */
			d = (pb ? pb->self : 0.0) - (pa ? pa->self : 0.0);
			if (!(d > 0.0))
				continue;
			if (util_grow(&at->causes, &cap, at->n + 1, sizeof(*at->causes), 8))
				return err_nomem();
			at->causes[at->n].path = p;
			at->causes[at->n].delta_self = d;
			at->causes[at->n].share = d / row->delta;
			at->n++;
		}
	}
	if (at->n)
		qsort(at->causes, at->n, sizeof(*at->causes), compare_cmp_cause);
	return 0;
}

/* side->all: every path of the run of src on the selected ranks. */
static int compare_all_paths(struct compare_side *side, const struct runarg *src,
			     const struct compare_opts *o)
{
	struct store_region_stats *regs = NULL;
	size_t n = 0, i;
	int rc = store_path_stats(src->st, &regs, &n, src->run_id, o->ranks, o->nranks, NULL, NULL);

	if (!rc) {
		side->all = calloc(n ? n : 1, sizeof(*side->all));
		if (!side->all)
			rc = err_nomem();
	}
	for (i = 0; !rc && i < n; i++) {
		struct compare_path *p = &side->all[side->nall++];

		p->name = regs[i].name;
		p->path = regs[i].path;
		p->depth = (size_t)regs[i].depth;
		p->self = (double)regs[i].self / 1e9;
		regs[i].name = NULL; /* moved */
		regs[i].path = NULL;
	}
	store_region_stats_free(regs, n);
	if (!rc)
		qsort(side->all, side->nall, sizeof(*side->all), compare_cmp_str);
	return rc;
}

/* out->attr for the rows that grew (diff) or broke the budget (check). */
int compare_attribute(struct compare_result *out, const struct runarg *sa, const struct runarg *sb,
		      const struct compare_opts *o)
{
	size_t i;
	int rc = 0;

	/* the selected paths are all of them without a pattern */
	if (o->ninclude || o->nexclude) {
		rc = compare_all_paths(&out->a, sa, o);
		if (!rc)
			rc = compare_all_paths(&out->b, sb, o);
	}
	if (!rc) {
		out->attr = calloc(out->nrows ? out->nrows : 1, sizeof(*out->attr));
		if (!out->attr)
			rc = err_nomem();
	}
	for (i = 0; !rc && i < out->nrows; i++) {
		const struct stats_row *row = &out->rows[i];

		if ((o->check ? row->violation : 1) && row->delta > 0.0)
			rc = compare_causes(&out->attr[i], out, row);
	}
	return rc;
}

const struct compare_path *compare_find_path(const struct compare_result *r, const char *name)
{
	const struct compare_side *sides[2] = {&r->a, &r->b};
	const struct compare_path *p;
	size_t k;

	for (k = 0; k < 2; k++) {
		if (!sides[k]->paths)
			continue;
		p = bsearch(&name, sides[k]->paths, sides[k]->npaths, sizeof(*p), compare_cmp_str);
		if (p)
			return p;
	}
	return NULL;
}
