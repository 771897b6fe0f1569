/*
 * compare_attr.c - attribution (issue 22, docs/calltree.md): for each row
 * of diff that grew and each row of check over its budget, the paths whose
 * self time grew, largest first, with their share of the growth they
 * explain.
 *
 * What is decomposed is a sum over the row's paths, the row's "roots":
 * by path the row's own path; by name the paths that end in the name,
 * only the outermost ones (no earlier occurrence of the name: a > b > a
 * counts once, under a) for a total.  A path's inclusive growth is its
 * self growth plus its children's inclusive growth, so the total of the
 * roots grows by exactly the self growth of the roots and everything
 * under them (the causes); the self time of the roots grows by their own.
 * Every time metric but self is explained through the roots' total (the
 * identity holds for sums only, not for p95); calls, imbalance and the
 * GPU metrics get none.  Also compare_find_path(): a row's path by name,
 * for the renderers.
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
 * ones when those are all there is. */
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

/* The last name of path p. */
static const char *compare_last(const struct compare_path *p)
{
	return p->depth ? p->path[p->depth - 1] : p->name;
}

/* Order of path pointers by last name, then joined name. */
static int compare_cmp_last(const void *x, const void *y)
{
	const struct compare_path *a = *(const struct compare_path *const *)x;
	const struct compare_path *b = *(const struct compare_path *const *)y;
	int c = strcmp(compare_last(a), compare_last(b));

	return c ? c : strcmp(a->name, b->name);
}

/* What attribution works with, besides the result: per side (0: a, 1: b)
 * the paths by last name, and how the rows decompose. */
struct attr_ctx {
	const struct compare_path **bylast[2];
	size_t n[2];
	enum stats_metric metric;     /* STATS_TOTAL or STATS_SELF: what is decomposed */
	enum stats_metric row_metric; /* the rows' */
	int by_path;
	/* by name, a total explained for another metric: each side's
	 * regions with their totals (by name), to tell whether the roots'
	 * total is the region's (no recursion, every rank with a tree) */
	struct store_region_stats *flat[2];
	size_t nflat[2];
	/* the candidate's files (compare_opts.cand_files): b's paths are
	 * summed over them, what is decomposed is their mean */
	size_t files;
};

/* 1 when p is a root of the row called name on its side (see above). */
static int compare_is_root(const struct attr_ctx *c, const struct compare_path *p)
{
	size_t k;

	if (c->metric == STATS_SELF)
		return 1; /* every path of the name: self times do not overlap */
	for (k = 0; k + 1 < p->depth; k++)
		if (!strcmp(p->path[k], p->path[p->depth - 1]))
			return 0;
	return 1;
}

/* The roots of row name on side s into *v (borrowed pointers), *n. */
static int compare_roots(const struct compare_path ***v, size_t *n, size_t *cap,
			 const struct attr_ctx *c, const struct compare_side *side, int s,
			 const char *name)
{
	size_t lo = 0, hi = c->n[s];

	*n = 0;
	if (c->by_path) {
		const struct compare_path *p = compare_get(side, name);

		if (!p)
			return 0;
		if (util_grow(v, cap, 1, sizeof(**v), 8))
			return err_nomem();
		(*v)[(*n)++] = p;
		return 0;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(compare_last(c->bylast[s][mid]), name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < c->n[s] && !strcmp(compare_last(c->bylast[s][lo]), name); lo++) {
		if (!compare_is_root(c, c->bylast[s][lo]))
			continue;
		if (util_grow(v, cap, *n + 1, sizeof(**v), 8))
			return err_nomem();
		(*v)[(*n)++] = c->bylast[s][lo];
	}
	return 0;
}

/* The value of what is decomposed on path p in ns (0 when absent). */
static int64_t compare_part(const struct attr_ctx *c, const struct compare_path *p)
{
	return !p ? 0 : c->metric == STATS_SELF ? p->self_ns : p->total_ns;
}

/* Add the self growth of p (path of side s) to at's causes when it grew
 * (a path of both sides is taken from b's). */
static int compare_add_cause(struct compare_attr *at, size_t *cap, const struct compare_result *r,
			     const struct compare_path *p, int s)
{
	const struct compare_path *pa = compare_get(&r->a, p->name),
				  *pb = compare_get(&r->b, p->name);
	double d;

	if (s == 0 && pb)
		return 0;
	d = (pb ? pb->self : 0.0) - (pa ? pa->self : 0.0);
	if (!(d > 0.0))
		return 0;
	if (util_grow(&at->causes, cap, at->n + 1, sizeof(*at->causes), 8))
		return err_nomem();
	at->causes[at->n].path = p;
	at->causes[at->n].delta_self = d;
	at->n++;
	return 0;
}

/* The region total of name on side s, by name (-1 when unknown). */
static int64_t compare_flat_total(const struct attr_ctx *c, int s, const char *name)
{
	size_t lo = 0, hi = c->nflat[s];

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int cmp = strcmp(c->flat[s][mid].name, name);

		if (!cmp)
			return c->flat[s][mid].total;
		if (cmp < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/*
 * The attribution of row into at: the row's roots on both sides, what
 * they decompose and its growth, and the causes.  None (at->n 0) when a
 * side with a value has no root (its calls are on ranks without a tree),
 * or when what is decomposed did not grow.
 */
static int compare_causes(struct compare_attr *at, const struct compare_result *r,
			  const struct stats_row *row, const struct attr_ctx *c)
{
	const struct compare_side *sides[2] = {&r->a, &r->b};
	const struct stats_val *vals[2] = {&row->a, &row->b};
	const struct compare_path **roots = NULL;
	size_t nroots, rcap = 0, ccap = 0, k, s;
	int64_t sum[2] = {0, 0};
	int rc = 0, covers = 1;

	for (s = 0; !rc && s < 2; s++) {
		rc = compare_roots(&roots, &nroots, &rcap, c, sides[s], (int)s, row->name);
		if (rc)
			break;
		if (!nroots && !vals[s]->none) {
			at->n = 0; /* nothing to decompose it with */
			goto out;
		}
		for (k = 0; k < nroots; k++)
			sum[s] += compare_part(c, roots[k]);
		/* does the sum cover the row's own value of that metric? */
		if (s == 1 && c->files > 1)
			covers = 0;
		else if (c->row_metric == c->metric)
			covers &= (vals[s]->none ? 0.0 : vals[s]->v) == (double)sum[s] / 1e9;
		else if (!c->by_path) /* a path's total is its own */
			covers &=
			    compare_flat_total(c, (int)s, row->name) == (nroots ? sum[s] : -1);
		for (k = 0; !rc && k < nroots; k++) {
			size_t np, j, len = strlen(roots[k]->name);
			const struct compare_path *pool = compare_pool(sides[s], &np);

			if (c->metric == STATS_SELF) {
				rc = compare_add_cause(at, &ccap, r, roots[k], (int)s);
				continue;
			}
			for (j = compare_lower(pool, np, roots[k]->name);
			     !rc && j < np && !strncmp(pool[j].name, roots[k]->name, len); j++)
				if (compare_under(pool[j].name, roots[k]->name, len))
					rc = compare_add_cause(at, &ccap, r, &pool[j], (int)s);
		}
	}
	if (rc)
		goto out;
	at->metric = c->metric;
	at->delta = (double)sum[1] / (double)c->files / 1e9 - (double)sum[0] / 1e9;
	at->files = c->files;
	/* several files: the row is their median, the mean decomposes */
	at->covers = covers && c->files == 1;
	at->same = c->row_metric == c->metric && at->covers;
	if (!(at->delta > 0.0)) {
		at->n = 0;
		goto out;
	}
	for (k = 0; k < at->n; k++)
		at->causes[k].share = at->causes[k].delta_self / at->delta;
	if (at->n)
		qsort(at->causes, at->n, sizeof(*at->causes), compare_cmp_cause);
	if (at->n > COMPARE_CAUSES_MAX) {
		at->left_out = at->n - COMPARE_CAUSES_MAX;
		at->n = COMPARE_CAUSES_MAX;
	}
out:
	free(roots);
	return rc;
}

/* The runs of src: the run, or a candidate's files (runarg.reps). */
static const int64_t *compare_src_runs(const struct runarg *src, size_t *n)
{
	*n = src->nreps > 1 ? src->nreps : 1;
	return src->nreps > 1 ? src->reps : &src->run_id;
}

/* Append the paths of run id (on the selected ranks) to side->all. */
static int compare_add_paths(struct compare_side *side, size_t *cap, struct store *st, int64_t id,
			     const struct compare_opts *o)
{
	struct store_region_stats *regs = NULL;
	size_t n = 0, i;
	int rc = store_path_stats(st, &regs, &n, id, o->ranks, o->nranks, NULL, NULL);

	for (i = 0; !rc && i < n; i++) {
		struct compare_path *p = util_push(&side->all, cap, &side->nall, sizeof(*p));

		if (!p) {
			rc = ERR_NOMEM;
			break;
		}
		memset(p, 0, sizeof(*p));
		p->name = regs[i].name;
		p->path = regs[i].path;
		p->depth = (size_t)regs[i].depth;
		p->self_ns = regs[i].self;
		p->total_ns = regs[i].total;
		regs[i].name = NULL; /* moved */
		regs[i].path = NULL;
	}
	store_region_stats_free(regs, n);
	return rc;
}

/* side->all: every path of the run of src on the selected ranks, with its
 * total and self time; for several files of a candidate, summed over
 * them (self: their mean, each file without the path adding 0). */
static int compare_all_paths(struct compare_side *side, const struct runarg *src,
			     const struct compare_opts *o)
{
	size_t nruns, cap = 0, i, k;
	const int64_t *runs = compare_src_runs(src, &nruns);
	int rc = 0;

	for (i = 0; !rc && i < nruns; i++)
		rc = compare_add_paths(side, &cap, src->st, runs[i], o);
	if (rc)
		return rc;
	qsort(side->all, side->nall, sizeof(*side->all), util_strptr_cmp);
	for (i = k = 0; i < side->nall; i++) {
		struct compare_path *p = &side->all[i];

		if (k && !strcmp(side->all[k - 1].name, p->name)) {
			side->all[k - 1].total_ns += p->total_ns;
			side->all[k - 1].self_ns += p->self_ns;
			free((char *)p->name);
			free(p->path);
			continue;
		}
		side->all[k++] = *p;
	}
	side->nall = k;
	for (i = 0; i < k; i++)
		side->all[i].self = (double)side->all[i].self_ns / (double)nruns / 1e9;
	return 0;
}

/* What attribution decomposes for the rows' metric m (0: none). */
static int compare_attr_metric(enum stats_metric *out, enum stats_metric m)
{
	switch (m) {
	case STATS_CALLS:
	case STATS_IMBALANCE:
	case STATS_GPU_TOTAL:
	case STATS_GPU_AVG:
		return 0; /* no sum of self times explains them */
	case STATS_SELF:
		*out = STATS_SELF;
		return 1;
	default:
		*out = STATS_TOTAL; /* avg, min, max, p50.. through the total */
		return 1;
	}
}

/* *want = 1 when both runs have paths (a run stored before scopedb kept
 * them, an aggregate file or one without any call tree has none: no
 * attribution, and no error). */
static int compare_attr_wanted(int *want, const struct runarg *const src[2])
{
	struct store_nesting nest;
	size_t s;
	int found, rc = 0;

	*want = 1;
	for (s = 0; *want && !rc && s < 2; s++) {
		size_t n, i;
		const int64_t *runs = compare_src_runs(src[s], &n);

		for (i = 0; *want && !rc && i < n; i++) {
			rc = store_get_nesting(src[s]->st, runs[i], &nest, &found);
			*want = !rc && found && nest.paths > 0;
		}
	}
	return rc;
}

/* c's per-side paths by last name (and the regions' totals when needed). */
static int compare_attr_index(struct attr_ctx *c, const struct compare_side *const sides[2],
			      const struct runarg *const src[2], const struct compare_opts *o,
			      int *deep)
{
	size_t s, k;
	int rc = 0;

	*deep = 0;
	for (s = 0; !rc && s < 2; s++) {
		c->bylast[s] =
		    malloc((sides[s]->nall ? sides[s]->nall : 1) * sizeof(*c->bylast[s]));
		if (!c->bylast[s]) {
			rc = err_nomem();
			break;
		}
		for (k = 0; k < sides[s]->nall; k++) {
			c->bylast[s][k] = &sides[s]->all[k];
			*deep |= sides[s]->all[k].depth > 1;
		}
		c->n[s] = sides[s]->nall;
		qsort(c->bylast[s], c->n[s], sizeof(*c->bylast[s]), compare_cmp_last);
		if (!o->by_path && c->metric == STATS_TOTAL && o->metric != STATS_TOTAL)
			rc = store_region_stats(src[s]->st, &c->flat[s], &c->nflat[s],
						src[s]->run_id, o->ranks, o->nranks, NULL, NULL);
	}
	return rc;
}

/* 1 when row is one to attribute: it grew (diff), and broke the budget
 * (check). */
static int compare_attr_row(const struct stats_row *row, const struct compare_opts *o)
{
	return (o->check ? row->violation : 1) && row->delta > 0.0;
}

/* out->attr for the rows that grew (diff) or broke the budget (check);
 * left NULL when there is nothing to attribute (see above). */
int compare_attribute(struct compare_result *out, const struct runarg *sa, const struct runarg *sb,
		      const struct compare_opts *o)
{
	const struct runarg *const src[2] = {sa, sb};
	struct compare_side *const sides[2] = {&out->a, &out->b};
	struct attr_ctx c;
	size_t i, s;
	int rc, want, deep = 0;

	memset(&c, 0, sizeof(c));
	c.by_path = o->by_path;
	c.row_metric = o->metric;
	/* a statistical check compares sets: no one pair of runs */
	if (!compare_attr_metric(&c.metric, o->metric) || o->stat)
		return 0;
	c.files = sb->nreps > 1 ? sb->nreps : 1;
	for (i = 0; i < out->nrows && !compare_attr_row(&out->rows[i], o); i++)
		;
	if (i == out->nrows)
		return 0; /* no row grew: nothing to read */
	rc = compare_attr_wanted(&want, src);
	if (rc || !want)
		return rc;
	for (s = 0; !rc && s < 2; s++)
		rc = compare_all_paths(sides[s], src[s], o);
	if (!rc)
		rc = compare_attr_index(&c, (const struct compare_side *const *)sides, src, o,
					&deep);
	/* by name, runs without nesting have nothing to attribute: each
	 * row would be its own one cause */
	if (!rc && (o->by_path || deep)) {
		out->attr = calloc(out->nrows ? out->nrows : 1, sizeof(*out->attr));
		if (!out->attr)
			rc = err_nomem();
	}
	for (i = 0; !rc && out->attr && i < out->nrows; i++) {
		const struct stats_row *row = &out->rows[i];

		if (compare_attr_row(row, o))
			rc = compare_causes(&out->attr[i], out, row, &c);
	}
	for (s = 0; s < 2; s++) {
		free(c.bylast[s]);
		store_region_stats_free(c.flat[s], c.nflat[s]);
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
		p = bsearch(&name, sides[k]->paths, sides[k]->npaths, sizeof(*p), util_strptr_cmp);
		if (p)
			return p;
	}
	return NULL;
}
