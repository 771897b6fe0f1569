/*
 * compare_locs.c - the source location of each row of a comparison, where
 * check --format github and codequality put their findings
 * (compare_opts.locations): the candidate's region source file and line,
 * else the baseline's, made relative to the repository (srcpath.h); by
 * path, those of the path's last region.  Files and lines are untrusted
 * text from the profiles: they are only ever printed, escaped.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/compare_int.h"
#include "analysis/srcpath.h"
#include "scopedb/compare.h"
#include "scopedb/err.h"
#include "scopedb/store.h"
#include "scopedb/util.h"

/* The source locations of one run, by region name. */
struct compare_src {
	char *name, *file;
	int64_t line;
};

struct compare_srcs {
	struct compare_src *v;
	size_t n, cap;
	char *workdir; /* the run's working_directory metadata, or NULL */
};

static int compare_src_add(void *ctx, const char *region, const char *file, int64_t line)
{
	struct compare_srcs *s = ctx;
	struct compare_src *e;

	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 16;

		e = realloc(s->v, cap * sizeof(*e));
		if (!e)
			return err_nomem();
		s->v = e;
		s->cap = cap;
	}
	e = &s->v[s->n];
	e->name = util_strdup(region);
	e->file = util_strdup(file);
	e->line = line;
	if (!e->name || !e->file) {
		free(e->name);
		free(e->file);
		return err_nomem();
	}
	s->n++;
	return 0;
}

static int compare_src_cmp(const void *x, const void *y)
{
	return strcmp(((const struct compare_src *)x)->name, ((const struct compare_src *)y)->name);
}

static void compare_srcs_release(struct compare_srcs *s)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		free(s->v[i].name);
		free(s->v[i].file);
	}
	free(s->v);
	free(s->workdir);
	memset(s, 0, sizeof(*s));
}

/* The sources and working directory of the run of a, sorted by name. */
static int compare_srcs_read(struct compare_srcs *s, const struct runarg *a)
{
	struct store_meta m;
	const char *wd;
	int rc = store_region_sources(a->st, a->run_id, compare_src_add, s);

	if (rc)
		return rc;
	if (s->n) /* none: s->v is NULL, which qsort may not be given */
		qsort(s->v, s->n, sizeof(*s->v), compare_src_cmp);
	rc = store_get_meta(a->st, &m, a->run_id);
	if (rc)
		return rc;
	wd = compare_meta_get(&m, "working_directory");
	if (wd) {
		s->workdir = util_strdup(wd);
		if (!s->workdir)
			rc = err_nomem();
	}
	store_meta_release(&m);
	return rc;
}

/* The location of name in s relative to the repository top, into *loc. */
static int compare_src_find(struct compare_loc *loc, const struct compare_srcs *s, const char *name,
			    const char *top)
{
	struct compare_src key, *at;
	int rc;

	if (!name || !s->n)
		return 0;
	key.name = (char *)name;
	at = bsearch(&key, s->v, s->n, sizeof(*s->v), compare_src_cmp);
	if (!at)
		return 0;
	rc = srcpath_relative(&loc->file, at->file, s->workdir, top);
	if (!rc && loc->file)
		loc->line = at->line;
	return rc;
}

/* The region whose source location row has on side s: its name, or by
 * path the path's last region (NULL when the path is not on s). */
static const char *compare_src_name(const struct compare_side *s, const struct stats_row *row)
{
	const struct compare_path *p;

	if (!s->paths)
		return row->name;
	p = compare_get(s, row->name);
	return p && p->depth ? p->path[p->depth - 1] : NULL;
}

/*
 * Each row's source location (compare_opts.locations): the candidate's,
 * else the baseline's, relative to the repository (srcpath.h).
 */
int compare_locations(struct compare_result *out, const struct runarg *sa, const struct runarg *sb)
{
	struct compare_srcs a, b;
	char *top = NULL;
	size_t i;
	int rc;

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	out->locs = calloc(out->nrows ? out->nrows : 1, sizeof(*out->locs));
	if (!out->locs)
		return err_nomem();
	rc = srcpath_toplevel(&top);
	if (!rc)
		rc = compare_srcs_read(&b, sb);
	if (!rc)
		rc = compare_srcs_read(&a, sa);
	for (i = 0; !rc && i < out->nrows; i++) {
		out->locs[i].line = -1;
		rc = compare_src_find(&out->locs[i], &b, compare_src_name(&out->b, &out->rows[i]),
				      top);
		if (!rc && !out->locs[i].file)
			rc = compare_src_find(&out->locs[i], &a,
					      compare_src_name(&out->a, &out->rows[i]), top);
	}
	compare_srcs_release(&a);
	compare_srcs_release(&b);
	free(top);
	return rc;
}
