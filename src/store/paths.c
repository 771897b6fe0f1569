/*
 * paths.c - the call tree of a run in the store (issue 22, docs/format.md
 * section 10), in the front end over any backend (see front.h): whether a
 * run was read for nesting (run_nesting), its paths and its (path, rank)
 * rows, written through the backend's bulk writer and read back checked
 * (verify.h) before a caller sees them.
 */
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

int store_add_path(struct store *st, const struct store_path *p)
{
	if (!st->writing)
		return err_set(ERR_USAGE, "cannot update store '%s': paths need a transaction",
			       st->location);
	return st->be->write_rows(st->conn, STORE_TABLE_PATHS, p, 1);
}

int store_add_path_rank(struct store *st, const struct store_path_rank *r)
{
	if (!st->writing)
		return err_set(ERR_USAGE, "cannot update store '%s': paths need a transaction",
			       st->location);
	if (r->calls > (uint64_t)INT64_MAX || r->nested > (uint64_t)INT64_MAX)
		return err_set(ERR_USAGE, "cannot update store '%s': call count out of range",
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

int store_scan_paths(struct store *st, int64_t run_id, store_path_fn pf, store_path_rank_fn rf,
		     void *ctx)
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
	if (!ret)
		ret = store_sql_run(st, SQL_PATH_RANKS_SCAN, &v, 1, path_rank_row, &s, NULL);
	i64vec_release(&s.depth);
	i64vec_release(&s.region);
	return ret;
}
