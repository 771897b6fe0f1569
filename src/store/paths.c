/*
 * paths.c - the call tree of a run in the store (issue 22, docs/format.md
 * section 10), in the front end over any backend (see front.h): whether a
 * run was read for nesting (run_nesting), its paths and its (path, rank)
 * rows, written through the backend's bulk writer and read back checked
 * (verify.h) before a caller sees them.
 *
 * A path's row carries its all-ranks totals and percentiles.  Its (path,
 * rank) rows come after it, so the paths of a run are held (struct store's
 * paths) while their rows are written and added up, and written once,
 * totals, percentiles and all, when the run is finished (finish.c): an
 * UPDATE of every path after the fact cost PostgreSQL 13% of its time in
 * a push, and another for the percentiles 9%.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scopedb/err.h"
#include "scopedb/store.h"
#include "scopedb/util.h"
#include "store/front.h"
#include "store/rows.h"
#include "store/verify.h"

int store_put_nesting(struct store *st, int64_t run_id, const struct store_nesting *n)
{
	struct store_value v[5] = {sql_int(run_id), sql_int(n->ranks), sql_int(n->trees),
				   sql_int(n->paths), sql_int(n->path_rows)};

	return store_sql_run(st, SQL_NESTING_PUT, v, 5, NULL, NULL, NULL);
}

struct store_path_row *store_held_paths(struct store *st, int64_t run_id, size_t *n)
{
	*n = st->npaths && st->paths[0].p.run_id == run_id ? st->npaths : 0;
	return *n ? st->paths : NULL;
}

/* A paths row in the order of SQL_PATHS_COLUMNS. */
static void path_cells(struct store_cells *c, const void *row)
{
	const struct store_path_row *r = row;

	store_cell_int(c, r->p.run_id);
	store_cell_int(c, r->p.path_id);
	store_cell_int_or_null(c, r->p.parent_id, r->p.parent_id < 0);
	store_cell_int(c, r->p.region_id);
	store_cell_int(c, r->p.depth);
	store_cell_sums(c, &r->s);
	store_cell_quantiles(c, r->q, r->has_q);
}

int store_put_held_paths(struct store *st)
{
	int ret = store_write_cells(st, STORE_TABLE_PATHS, st->paths, sizeof(*st->paths),
				    st->npaths, path_cells);

	st->npaths = 0;
	return ret;
}

/* A row of NESTING_GET. */
static int nesting_row(void *ctx, const struct rows_row *r)
{
	struct store_nesting *n = ctx;

	n->ranks = r->ops->i64(r, 0);
	n->trees = r->ops->i64(r, 1);
	n->paths = r->ops->i64(r, 2);
	n->path_rows = r->ops->i64(r, 3);
	return 1;
}

int store_get_nesting(struct store *st, int64_t run_id, struct store_nesting *out, int *found)
{
	struct store_value v = sql_int(run_id);
	int ret;

	memset(out, 0, sizeof(*out));
	out->ranks = -1;
	ret = store_sql_run(st, SQL_NESTING_GET, &v, 1, nesting_row, out, NULL);
	*found = ret == 1;
	if (ret == 1)
		ret = 0;
	if (ret || !*found) {
		memset(out, 0, sizeof(*out));
		return ret;
	}
	if (out->ranks < 0 || out->trees < 0 || out->trees > out->ranks || out->paths < 0 ||
	    out->path_rows < 0)
		return err_set(ERR_STORE,
			       "store '%s' is damaged: run %lld has impossible nesting counts",
			       st->location, (long long)run_id);
	return 0;
}

/* The most paths a run may have (ingest's CALLTREE_MAX_NODES): a run's are
 * held until it is finished (104 MB at most), and a store to pull
 * from holding more was not written by scopedb. */
#define STORE_MAX_PATHS ((size_t)1 << 20)

int store_add_path(struct store *st, const struct store_path *p)
{
	struct store_path_row *row;
	int ret = store_check_add(st, "paths", 0, 0);

	if (ret)
		return ret;
	/* as a reader checks them (path_row()): 0, 1, 2... in order */
	if (p->path_id != (int64_t)st->npaths)
		return err_set(ERR_USAGE,
			       "internal error: path %lld of run %lld added as path %lld",
			       (long long)p->path_id, (long long)p->run_id, (long long)st->npaths);
	if (st->npaths >= STORE_MAX_PATHS)
		return err_set(ERR_USAGE,
			       "cannot update store '%s': run %lld has more than %zu paths, more "
			       "than scopedb reads from a profile",
			       st->location, (long long)p->run_id, STORE_MAX_PATHS);
	if (util_grow(&st->paths, &st->cappaths, st->npaths + 1, sizeof(*st->paths), 64))
		return err_nomem();
	row = &st->paths[st->npaths++];
	memset(row, 0, sizeof(*row));
	row->p = *p;
	return 0;
}

int store_add_path_rank(struct store *st, const struct store_path_rank *r)
{
	struct store_path_row *p;
	int ret = store_check_add(st, "paths", r->calls, r->nested);

	if (ret)
		return ret;
	/* its path was added before it, in this transaction */
	if (r->path_id < 0 || (uint64_t)r->path_id >= st->npaths ||
	    st->paths[r->path_id].p.run_id != r->run_id)
		return err_set(
		    ERR_USAGE,
		    "internal error: a row of path %lld of run %lld, which was not added",
		    (long long)r->path_id, (long long)r->run_id);
	/* added to its path's totals (a total past INT64_MAX is refused, as
	 * SQL would have refused it) */
	p = &st->paths[r->path_id];
	if (store_sums_add(&p->s, (int64_t)r->calls, r->total, r->min, r->max, r->self))
		return err_set(ERR_USAGE,
			       "cannot update store '%s': the totals of a path are out of range",
			       st->location);
	return st->be->write_rows(st->conn, STORE_TABLE_PATH_RANKS, r, 1);
}

/* store_scan_paths()'s state: the paths seen, for checking the rows. */
struct path_scan {
	struct store *st;
	int64_t run_id, num_ranks;
	struct i64vec depth, region; /* by path id */
	store_path_fn pf;
	store_path_rank_fn rf;
	void *ctx;
};

static int path_row(void *arg, const struct rows_row *r)
{
	struct path_scan *s = arg;
	struct store_path p;
	const char *name = r->ops->text(r, 4);
	int64_t pd = 0, pr = -1;
	int ret;

	if (!name)
		return r->ops->null(r, 4) ? err_set(ERR_STORE,
						    "store '%s' is damaged: a path of run %lld "
						    "names no region",
						    s->st->location, (long long)s->run_id)
					  : err_nomem();
	p.run_id = s->run_id;
	p.path_id = r->ops->i64(r, 0);
	p.parent_id = r->ops->null(r, 1) ? -1 : r->ops->i64(r, 1);
	p.region_id = r->ops->i64(r, 2);
	p.depth = r->ops->i64(r, 3);
	if (p.parent_id >= 0 && (size_t)p.parent_id < s->depth.len) {
		pd = s->depth.v[p.parent_id];
		pr = s->region.v[p.parent_id];
	}
	ret = verify_path(&p, (int64_t)s->depth.len, pd, pr, s->st->location);
	if (!ret)
		ret = i64vec_push(&s->depth, p.depth);
	if (!ret)
		ret = i64vec_push(&s->region, p.region_id);
	if (!ret && s->pf)
		ret = s->pf(s->ctx, &p, name);
	return ret;
}

static int path_rank_row(void *arg, const struct rows_row *r)
{
	struct path_scan *s = arg;
	struct store_path_rank pr;
	int ret = 0;

	pr.run_id = s->run_id;
	pr.path_id = r->ops->i64(r, 0);
	pr.rank = r->ops->i64(r, 1);
	pr.calls = (uint64_t)r->ops->i64(r, 2);
	pr.nested = (uint64_t)r->ops->i64(r, 3);
	pr.total = r->ops->i64(r, 4);
	pr.self = r->ops->i64(r, 5);
	pr.min = r->ops->i64(r, 6);
	pr.max = r->ops->i64(r, 7);
	pr.durations = NULL;
	pr.durations_len = 0;
	if (!r->ops->null(r, 8))
		ret = r->ops->blob(r, 8, &pr.durations, &pr.durations_len);
	if (!ret)
		ret = verify_path_rank(&pr, (int64_t)s->depth.len, s->num_ranks, s->st->location);
	if (!ret && s->rf)
		ret = s->rf(s->ctx, &pr);
	return ret;
}

/* store_scan_paths(), the (path, rank) rows only when ranks. */
static int scan_paths(struct store *st, int64_t run_id, store_path_fn pf, store_path_rank_fn rf,
		      void *ctx, int ranks);

int store_scan_paths(struct store *st, int64_t run_id, store_path_fn pf, store_path_rank_fn rf,
		     void *ctx)
{
	return scan_paths(st, run_id, pf, rf, ctx, 1);
}

static int scan_paths(struct store *st, int64_t run_id, store_path_fn pf, store_path_rank_fn rf,
		      void *ctx, int ranks)
{
	struct path_scan s = {st, run_id, 0, {NULL, 0, 0}, {NULL, 0, 0}, pf, rf, ctx};
	struct store_value v = sql_int(run_id);
	struct store_run run;
	int ret;

	i64vec_init(&s.depth);
	i64vec_init(&s.region);
	ret = store_get_run(st, &run, run_id);
	s.num_ranks = ret ? 0 : run.num_ranks;
	store_run_release(&run);
	if (!ret)
		ret = store_sql_run(st, SQL_PATHS_SCAN, &v, 1, path_row, &s, NULL);
	if (!ret && ranks)
		ret = store_sql_run(st, SQL_PATH_RANKS_SCAN, &v, 1, path_rank_row, &s, NULL);
	i64vec_release(&s.depth);
	i64vec_release(&s.region);
	return ret;
}

/* ---- per-path aggregates (store_path_stats()) ------------------------------ */

/* The paths of a run by id: each one's parent, region name and depth. */
struct path_names {
	struct i64vec parent, depth;
	struct buf names; /* the region names, each followed by a NUL */
	struct i64vec at; /* the offset of each path's name in names */
};

static int names_path(void *ctx, const struct store_path *p, const char *region)
{
	struct path_names *x = ctx;
	int ret = i64vec_push(&x->parent, p->parent_id);

	if (!ret)
		ret = i64vec_push(&x->depth, p->depth);
	if (!ret)
		ret = i64vec_push(&x->at, (int64_t)x->names.len);
	if (!ret)
		ret = buf_add(&x->names, region, strlen(region) + 1);
	return ret;
}

/* The names of path id from the root down into g->path (one block) and
 * joined into g->name. */
static int path_fill(struct store_region_stats *g, const struct path_names *x, int64_t id)
{
	size_t depth = (size_t)x->depth.v[id], bytes = 0, jbytes = 0, i;
	int64_t k;
	char *text, *joined, *end;

	for (k = id; k >= 0; k = x->parent.v[k]) {
		bytes += strlen(x->names.data + x->at.v[k]) + 1;
		jbytes += util_path_name_len(x->names.data + x->at.v[k]) + 3;
	}
	g->path = malloc(depth * sizeof(char *) + bytes);
	joined = malloc(jbytes + 1);
	if (!g->path || !joined) {
		free(joined);
		return err_nomem();
	}
	text = (char *)(g->path + depth);
	i = depth;
	for (k = id; k >= 0; k = x->parent.v[k]) {
		const char *nm = x->names.data + x->at.v[k];
		size_t len = strlen(nm) + 1;

		bytes -= len;
		memcpy(text + bytes, nm, len);
		g->path[--i] = text + bytes;
	}
	/* the names joined by " > ", each escaped (util_path_name_put()) */
	end = joined;
	for (i = 0; i < depth; i++) {
		if (i) {
			memcpy(end, " > ", 3);
			end += 3;
		}
		end = util_path_name_put(end, g->path[i]);
	}
	*end = '\0';
	g->name = joined;
	g->depth = (int64_t)depth;
	g->path_id = id;
	g->parent_id = x->parent.v[id];
	return 0;
}

/* store_path_stats()'s state. */
struct path_read {
	const struct path_names *x;
	const char *location;
	store_path_filter filter;
	void *ctx;
	int quantiles; /* all ranks: p50/p95/p99 follow the self time */
	int64_t run_id;
	int64_t rows; /* --ranks: the (path, rank) rows seen, on every rank */
};

/*
 * 1 when a paths row (all ranks) breaks the NULL rules its writer follows
 * (store_cell_sums()): a path with rows (nranks > 0) has its calls, total
 * and busy ranks, a min and a max when it was called, and its busiest
 * total when a rank was busy; one without rows (nranks 0 or NULL) has
 * no calls and no total.  A NULL read as 0 would print a path of 0 s.
 */
static int path_nulls_wrong(const struct rows_row *r)
{
	int64_t calls = r->ops->i64(r, 1), busy = r->ops->i64(r, 5);

	/* no rows (an older scopedb left nranks NULL too) */
	if (r->ops->null(r, 7) || r->ops->i64(r, 7) == 0)
		return !r->ops->null(r, 1) || !r->ops->null(r, 2);
	return r->ops->null(r, 1) || r->ops->null(r, 2) || r->ops->null(r, 5) ||
	       (calls > 0 && (r->ops->null(r, 3) || r->ops->null(r, 4))) ||
	       (busy > 0 && r->ops->null(r, 6));
}

static int path_stats_decode(void *ctx, void *elem, const struct rows_row *r)
{
	struct path_read *pr = ctx;
	struct store_region_stats *g = elem;
	int64_t id = r->ops->i64(r, 0);
	int keep = 1, ret;

	memset(g, 0, sizeof(*g));
	if (id < 0 || (size_t)id >= pr->x->depth.len)
		return err_set(ERR_STORE, "store '%s' is damaged: a path row names no path",
			       pr->location);
	if (!pr->quantiles)
		pr->rows += r->ops->i64(r, 9);
	if (pr->quantiles && path_nulls_wrong(r))
		return err_set(ERR_STORE,
			       "store '%s' is damaged: path %lld of run %lld has totals missing "
			       "(NULL) for its %lld ranks",
			       pr->location, (long long)id, (long long)pr->run_id,
			       (long long)r->ops->i64(r, 7));
	/* a path of no rank (nranks 0): nothing to show */
	if (pr->quantiles && r->ops->null(r, 1))
		return STORE_ROW_SKIP;
	ret = path_fill(g, pr->x, id);
	if (!ret && pr->filter)
		ret = pr->filter(pr->ctx, &keep, g->name, (const char *const *)g->path,
				 (size_t)g->depth);
	if (ret || !keep) {
		free(g->name);
		free(g->path);
		return ret ? ret : STORE_ROW_SKIP;
	}
	g->region_id = 0;
	g->has_events = 1;
	g->calls = (uint64_t)r->ops->i64(r, 1);
	g->total = r->ops->i64(r, 2);
	g->min = r->ops->i64(r, 3);
	g->max = r->ops->i64(r, 4);
	g->busy_ranks = (uint64_t)r->ops->i64(r, 5);
	g->busy_max = r->ops->i64(r, 6);
	g->nranks = (uint64_t)r->ops->i64(r, 7);
	g->has_self = 1;
	g->self = r->ops->i64(r, 8);
	if (pr->quantiles)
		rows_quantiles(g, r, 9);
	return 0;
}

/* Why run_id has no paths: a stored run is named by its number, a profile
 * file read for the command (a temporary store) by its path, and where
 * the stored run's ingest warned, the file's own read gives its warning's
 * words (store_set_file_note()). */
static int paths_none(struct store *st, int64_t run_id, const struct store_nesting *nest)
{
	struct store_run run;
	char who[600], why[800];
	int file = st->temporary, ret = 0;

	memset(&run, 0, sizeof(run));
	ret = store_get_run(st, &run, run_id);
	if (ret)
		return ret;
	if (file)
		snprintf(who, sizeof(who), "'%s'",
			 util_quote_msg(run.source_path ? run.source_path : "?"));
	else
		snprintf(who, sizeof(who), "run %lld", (long long)run_id);
	if (run.num_calls == 0)
		snprintf(why, sizeof(why), "%s made no call", file ? "it" : "its file");
	else if (nest->ranks == 0)
		snprintf(why, sizeof(why), "%s keeps no calls, only totals (aggregate layout)",
			 file ? "it" : "its file");
	else if (nest->trees == 0 && file && st->file_note)
		snprintf(why, sizeof(why), "%s", st->file_note); /* its ingest's words */
	else if (nest->trees == 0)
		snprintf(why, sizeof(why),
			 "no rank has a call tree with paths (calls that overlap without nesting, "
			 "rows of totals only, or paths too deep or too many: %s)",
			 file ? "'scopedb ingest' of it says which"
			      : "see the warning of its ingest");
	else
		snprintf(why, sizeof(why), "its call trees have too many paths or too deep ones");
	store_run_release(&run);
	return err_set(ERR_NOTFOUND, "%s has no paths: %s; use --by name", who, why);
}

int store_path_stats(struct store *st, struct store_region_stats **out, size_t *n, int64_t run_id,
		     const int64_t *ranks, size_t nranks, store_path_filter filter, void *ctx)
{
	struct path_names x;
	struct path_read how = {&x, st->location, filter, ctx, ranks == NULL, run_id, 0};
	struct store_rows rows = STORE_ROWS(struct store_region_stats, path_stats_decode, &how);
	struct store_value v[] = {sql_int(run_id), sql_ids(ranks, nranks)};
	struct store_nesting nest;
	struct store_run run;
	size_t i;
	int found, ret;

	*out = NULL;
	*n = 0;
	memset(&x, 0, sizeof(x));
	buf_init(&x.names);
	ret = store_get_nesting(st, run_id, &nest, &found);
	if (!ret && !found) {
		ret = store_get_run(st, &run, run_id);
		if (!ret)
			ret =
			    err_set(ERR_NOTFOUND,
				    "run %lld was stored before scopedb kept call trees, so it has "
				    "no paths; to add them, remove it and ingest its file again "
				    "(scopedb rm %lld; scopedb ingest '%s')",
				    (long long)run_id, (long long)run_id, run.source_path);
		store_run_release(&run);
	}
	if (!ret && found && nest.paths == 0)
		ret = paths_none(st, run_id, &nest);
	/* every path, for the names of the ancestors of those kept */
	if (!ret)
		ret = scan_paths(st, run_id, names_path, NULL, &x, 0);
	/* the paths the run's nesting row counts, all of them */
	if (!ret && (int64_t)x.depth.len != nest.paths)
		ret = err_set(ERR_STORE,
			      "store '%s' is damaged: run %lld has %zu paths where its nesting "
			      "row counts %lld",
			      st->location, (long long)run_id, x.depth.len, (long long)nest.paths);
	if (!ret)
		ret = store_sql_run(st, ranks ? SQL_PATH_STATS : SQL_PATH_STATS_ALL, v,
				    ranks ? 2 : 1, store_rows_push, &rows, NULL);
	/* with --ranks, the rows the nesting row counts, all of them */
	if (!ret && ranks && how.rows != nest.path_rows)
		ret = err_set(ERR_STORE,
			      "store '%s' is damaged: run %lld has %lld (path, rank) rows where "
			      "its nesting row counts %lld",
			      st->location, (long long)run_id, (long long)how.rows,
			      (long long)nest.path_rows);
	if (!ret)
		rows_sort_regions(rows.v, rows.n);
	for (i = 0; !ret && i < rows.n; i++)
		ret = verify_stats(&((struct store_region_stats *)rows.v)[i], run_id, st->location);
	if (ret) {
		store_region_stats_free(rows.v, rows.n);
	} else {
		*out = rows.v;
		*n = rows.n;
	}
	i64vec_release(&x.parent);
	i64vec_release(&x.depth);
	i64vec_release(&x.at);
	buf_release(&x.names);
	return ret;
}

/* store_path_nested()'s callback and its context. */
struct path_nested_scan {
	store_path_nested_fn fn;
	void *ctx;
	const char *location;
	int64_t run_id;
};

static int path_nested_row(void *arg, const struct rows_row *r)
{
	struct path_nested_scan *x = arg;
	int64_t id = r->ops->i64(r, 0), nested = r->ops->i64(r, 1);

	if (id < 0 || nested <= 0)
		return err_set(ERR_STORE,
			       "store '%s' is damaged: path %lld of run %lld has %lld nested calls",
			       x->location, (long long)id, (long long)x->run_id, (long long)nested);
	return x->fn(x->ctx, id, (uint64_t)nested);
}

int store_path_nested(struct store *st, int64_t run_id, const int64_t *ranks, size_t nranks,
		      store_path_nested_fn fn, void *ctx)
{
	struct path_nested_scan x = {fn, ctx, st->location, run_id};
	struct store_value v[] = {sql_int(run_id), sql_ids(ranks, nranks)};

	return store_sql_run(st, SQL_PATH_NESTED, v, 2, path_nested_row, &x, NULL);
}

/* A blob of PATH_DURATIONS appended to the list (ctx: a struct
 * rows_blob_list); a path's blob is never NULL. */
static int path_blob_row(void *ctx, const struct rows_row *r)
{
	struct rows_blob_list *x = ctx;

	if (r->ops->null(r, 0))
		return err_set(ERR_STORE,
			       "store '%s' is damaged: a path of run %lld has no call durations",
			       x->location, (long long)x->run_id);
	return rows_blob_list_row(ctx, r);
}

int store_path_duration_runs(struct store *st, struct i64vec *out, struct i64vec *ends,
			     int64_t run_id, int64_t path_id, const int64_t *ranks, size_t nranks)
{
	struct rows_blob_list x = {out, ends, st->location, run_id};
	struct store_value v[] = {sql_int(run_id), sql_int(path_id), sql_ids(ranks, nranks)};
	size_t start = out->len, ends_start = ends ? ends->len : 0;
	int ret = store_sql_run(st, SQL_PATH_DURATIONS, v, 3, path_blob_row, &x, NULL);

	if (ret) {
		out->len = start;
		if (ends)
			ends->len = ends_start;
	}
	return ret;
}

/* store_scan_path_blobs()'s callback and its context. */
struct path_blob_scan {
	store_path_blob_fn fn;
	void *ctx;
};

static int path_blob_scan_row(void *arg, const struct rows_row *r)
{
	struct path_blob_scan *x = arg;
	const void *data = NULL;
	size_t len = 0;
	int ret = 0;

	if (!r->ops->null(r, 2))
		ret = r->ops->blob(r, 2, &data, &len);
	return ret ? ret : x->fn(x->ctx, r->ops->i64(r, 0), r->ops->i64(r, 1), data, len);
}

int store_scan_path_blobs(struct store *st, int64_t run_id, store_path_blob_fn fn, void *ctx)
{
	struct path_blob_scan x = {fn, ctx};
	struct store_value v = sql_int(run_id);

	return store_sql_run(st, SQL_PATH_BLOBS, &v, 1, path_blob_scan_row, &x, NULL);
}
