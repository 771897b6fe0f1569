/*
 * history.c - the SQLite backend's history of regions across runs
 * (store_region_history(), see sqlite.h).
 *
 * One query over the timings_by_region index (or the stored all-ranks
 * totals) gives one row per (region, run), numbered newest first per
 * region for the --limit; with a rank set and durations asked for, one
 * more query decodes the duration blobs of all those rows.
 *
 * The series of every region (store_region_series(), for "changes") reads
 * the selected runs, the region names and then the stored totals of those
 * runs in primary-key order, one sequential pass, and groups the cells in
 * memory: no join, no sort and no string per (region, run).
 */
#include <stdlib.h>
#include <string.h>

#include "scopedb/err.h"
#include "scopedb/store.h"
#include "scopedb/util.h"
#include "store/rows.h"
#include "store/sqlite/sqlite.h"

/* The ids of the regions q selects as a JSON array (for json_each());
 * ERR_NOTFOUND when there is none. */
static int history_regions(struct store_conn *st, char **out, const struct store_history_query *q)
{
	sqlite3_stmt *s = NULL;
	struct buf ids = BUF_INIT;
	size_t count = 0;
	int rc, keep, ret;

	*out = NULL;
	ret = sqlite_prepare(st, &s,
			     q->region ? "SELECT id, name FROM regions WHERE name = ?1"
				       : "SELECT id, name FROM regions",
			     0, "read");
	if (ret)
		goto out;
	rc = q->region ? sqlite3_bind_text(s, 1, q->region, -1, SQLITE_STATIC) : SQLITE_OK;
	if (buf_putc(&ids, '[')) {
		ret = ERR_NOMEM;
		goto out;
	}
	while (sqlite_row(s, &rc)) {
		struct rows_row row = sqlite_row_of(s);
		const char *name;

		ret = rows_keep_region(&name, &keep, &row, 1, q->region ? NULL : q->filter, q->ctx);
		if (ret)
			goto out;
		if (!keep)
			continue;
		if (buf_printf(&ids, "%s%lld", count++ ? "," : "",
			       (long long)sqlite3_column_int64(s, 0))) {
			ret = ERR_NOMEM;
			goto out;
		}
	}
	ret = sqlite_rows_end(st, &s, rc);
	if (ret)
		goto out;
	if (count == 0) {
		/* a mistyped name: the nearest stored one */
		ret = rows_no_region(st, sqlite_names, q->region, q->pattern, st->path);
		goto out;
	}
	if (buf_putc(&ids, ']')) {
		ret = ERR_NOMEM;
		goto out;
	}
	*out = buf_detach(&ids);
out:
	sqlite3_finalize(s);
	buf_release(&ids);
	return ret;
}

/* Prepare the history query sql with ?1 = the region ids, ?2 = the ranks
 * (NULL: all ranks). */
static int history_prepare(struct store_conn *st, sqlite3_stmt **s, const char *sql,
			   const char *ids, const char *ranks)
{
	int ret = sqlite_prepare(st, s, sql, 0, "read");

	if (!ret && (sqlite3_bind_text(*s, 1, ids, -1, SQLITE_STATIC) != SQLITE_OK ||
		     sqlite_bind_text_or_null(*s, 2, ranks) != SQLITE_OK))
		ret = sqlite_err(st, sqlite3_errcode(st->db), "read");
	return ret;
}

/* Decode the duration blobs of the selected rows into their points (one
 * query over all regions and runs). */
static int history_durations(struct store_conn *st, struct store_history_point *pts, size_t n,
			     const char *ids, const char *ranks,
			     const struct store_history_query *q)
{
	struct store_history_point **index, *hit;
	struct run_where w;
	struct buf sql = BUF_INIT;
	sqlite3_stmt *s = NULL;
	size_t i;
	int rc, bad = 0, ret;

	memset(&w, 0, sizeof(w));
	index = rows_point_index(pts, n);
	if (!index)
		return ERR_NOMEM;
	ret = sqlite_run_where_build(&w, q->runs, 3);
	if (!ret && buf_printf(&sql,
			       "SELECT t.region_id, t.run_id, d.data FROM timings AS t "
			       "JOIN timings_durations AS d ON d.timing_id = t.id "
			       "WHERE t.region_id IN (SELECT value FROM json_each(?1)) AND "
			       "(?2 IS NULL OR t.rank IN (SELECT value FROM json_each(?2))) AND "
			       "t.run_id IN (SELECT id FROM runs WHERE 1%s)",
			       w.sql.data))
		ret = ERR_NOMEM;
	if (!ret)
		ret = history_prepare(st, &s, sql.data, ids, ranks);
	if (ret)
		goto out;
	bad |= sqlite_run_where_bind(s, &w, 3) != SQLITE_OK;
	rc = bad ? sqlite3_errcode(st->db) : SQLITE_OK;
	while (sqlite_row(s, &rc)) {
		hit = rows_point_find(index, n, sqlite3_column_int64(s, 0),
				      sqlite3_column_int64(s, 1));
		if (!hit)
			continue; /* a run beyond the limit */
		ret = sqlite_blob_append(st, &hit->durations, s, 2, hit->run_id);
		if (ret)
			goto out;
	}
	ret = sqlite_rows_end(st, &s, rc);
	if (ret)
		goto out;
	for (i = 0; i < n; i++)
		util_sort_i64(pts[i].durations.v, pts[i].durations.len);
out:
	sqlite3_finalize(s);
	sqlite_run_where_release(&w);
	buf_release(&sql);
	free(index);
	return ret;
}

/* The "pts" of sqlite_region_history() over the ranks ?2: region, run, the
 * REGION_AGGREGATES and three NULL percentiles (those come from the blobs). */
static const char HISTORY_RANKS_SQL[] =
    "SELECT t.region_id, t.run_id, " REGION_AGGREGATES ", NULL, NULL, NULL "
    "FROM (SELECT region_id, run_id, has_events, calls, total_ns, min_ns, max_ns, gpu_count, "
    "gpu_total_ns, rank IN (SELECT value FROM json_each(?2)) AS sel "
    "FROM timings WHERE region_id IN (SELECT value FROM json_each(?1)) "
    "AND run_id IN (SELECT id FROM sr)) AS t GROUP BY t.region_id, t.run_id";

/* The same over all ranks, from the stored totals (one row per point). */
static const char HISTORY_ALL_SQL[] =
    "SELECT region_id, run_id, " RUN_REGIONS_COLUMNS ", p50_ns, p95_ns, p99_ns "
    "FROM run_regions WHERE region_id IN (SELECT value FROM json_each(?1)) "
    "AND run_id IN (SELECT id FROM sr)";

int sqlite_region_history(struct store_conn *st, struct store_history_point **out, size_t *n,
			  const struct store_history_query *q)
{
	struct store_history_point *pts = NULL, *p;
	struct run_where w;
	struct buf sql = BUF_INIT;
	sqlite3_stmt *s = NULL;
	char *ids = NULL, *ranks;
	size_t len = 0, cap = 0;
	int rc, bad = 0, failed, own_txn = 0, ret;

	*out = NULL;
	*n = 0;
	memset(&w, 0, sizeof(w));
	ranks = sqlite_ranks_json(q->ranks, q->nranks, &failed);
	if (failed)
		return err_nomem();
	/* One snapshot for the region list, the aggregates and the blobs. */
	ret = sqlite_snapshot_begin(st, &own_txn);
	if (ret)
		goto out;
	ret = history_regions(st, &ids, q);
	if (!ret)
		ret = sqlite_run_where_build(&w, q->runs, 4);
	/* pts: one row per (region, run): the stored totals over all ranks,
	 * or the timings rows of the ranks ?2 pooled (no stored percentiles). */
	if (!ret &&
	    buf_printf(&sql,
		       "WITH sr AS (SELECT id, sort_time, commit_sha, label FROM runs WHERE 1%s), "
		       "pts AS (%s), "
		       "ranked AS (SELECT pts.*, sr.sort_time, sr.commit_sha, sr.label, "
		       "row_number() OVER (PARTITION BY pts.region_id "
		       "ORDER BY sr.sort_time DESC, sr.id DESC) AS rn "
		       "FROM pts JOIN sr ON sr.id = pts.run_id) "
		       "SELECT ranked.*, g.name FROM ranked JOIN regions AS g "
		       "ON g.id = ranked.region_id WHERE ?3 <= 0 OR ranked.rn <= ?3 "
		       "ORDER BY g.name, ranked.sort_time, ranked.run_id",
		       w.sql.data, ranks ? HISTORY_RANKS_SQL : HISTORY_ALL_SQL))
		ret = ERR_NOMEM;
	if (!ret)
		ret = history_prepare(st, &s, sql.data, ids, ranks);
	if (ret)
		goto out;
	bad |= sqlite3_bind_int64(s, 3, q->runs ? q->runs->limit : 0) != SQLITE_OK;
	bad |= sqlite_run_where_bind(s, &w, 4) != SQLITE_OK;
	rc = bad ? sqlite3_errcode(st->db) : SQLITE_OK;
	while (sqlite_row(s, &rc)) {
		struct rows_row row = sqlite_row_of(s);

		p = util_push(&pts, &cap, &len, sizeof(*pts));
		if (!p) {
			ret = ERR_NOMEM;
			goto out;
		}
		ret = rows_history_point(p, &row, !ranks);
		if (ret)
			goto out;
	}
	ret = sqlite_rows_end(st, &s, rc);
	if (ret)
		goto out;
	/* All ranks: the percentiles are stored; no blob is read. */
	if (q->durations && len && ranks)
		ret = history_durations(st, pts, len, ids, ranks, q);
out:
	sqlite3_finalize(s);
	sqlite_snapshot_end(st, own_txn, ret);
	sqlite_run_where_release(&w);
	buf_release(&sql);
	free(ids);
	free(ranks);
	if (ret) {
		store_history_free(pts, len);
		return ret;
	}
	*out = pts;
	*n = len;
	return 0;
}

/* The runs f selects, oldest first (the newest f->limit of them), into
 * out->runs; keys = (id, index) sorted by id. */
static int series_runs(struct store_conn *st, struct store_series *out,
		       struct rows_series_key **keys, const struct filter *f,
		       const struct run_where *w)
{
	struct buf sql = BUF_INIT;
	sqlite3_stmt *s = NULL;
	size_t cap = 0, skip = 0, i;
	int rc, ret;

	*keys = NULL;
	ret = buf_printf(&sql,
			 "SELECT id, sort_time, commit_sha, label FROM runs WHERE 1%s "
			 "ORDER BY sort_time, id",
			 w->sql.data)
		  ? ERR_NOMEM
		  : sqlite_prepare(st, &s, sql.data, 0, "read");
	if (ret)
		goto out;
	rc = sqlite_run_where_bind(s, w, 1);
	while (sqlite_row(s, &rc)) {
		struct rows_row row = sqlite_row_of(s);
		struct store_series_run *r = util_push(&out->runs, &cap, &out->nruns, sizeof(*r));

		if (!r) {
			ret = ERR_NOMEM;
			goto out;
		}
		ret = rows_series_run(r, &row);
		if (ret)
			goto out;
	}
	ret = sqlite_rows_end(st, &s, rc);
	if (ret)
		goto out;
	if (f && f->limit > 0 && out->nruns > (size_t)f->limit) {
		skip = out->nruns - (size_t)f->limit;
		for (i = 0; i < skip; i++) {
			free(out->runs[i].time);
			free(out->runs[i].commit);
			free(out->runs[i].label);
		}
		memmove(out->runs, out->runs + skip, (out->nruns - skip) * sizeof(*out->runs));
		out->nruns -= skip;
	}
	*keys = util_calloc(out->nruns ? out->nruns : 1, sizeof(**keys));
	if (!*keys) {
		ret = err_nomem();
		goto out;
	}
	for (i = 0; i < out->nruns; i++)
		(*keys)[i] = (struct rows_series_key){out->runs[i].id, i};
	qsort(*keys, out->nruns, sizeof(**keys), rows_series_cmp_key);
out:
	sqlite3_finalize(s);
	buf_release(&sql);
	return ret;
}

/* The regions filter keeps, by name, into out->names; keys by id. */
static int series_regions(struct store_conn *st, struct store_series *out,
			  struct rows_series_key **keys, store_region_filter filter, void *ctx)
{
	sqlite3_stmt *s = NULL;
	size_t cap = 0, n = 0, kcap = 0;
	int rc, keep, ret;

	*keys = NULL;
	ret = sqlite_prepare(st, &s, "SELECT id, name FROM regions ORDER BY name", 0, "read");
	if (ret)
		goto out;
	rc = SQLITE_OK;
	while (sqlite_row(s, &rc)) {
		struct rows_row row = sqlite_row_of(s);
		const char *name;
		char **slot;
		struct rows_series_key *k;

		ret = rows_keep_region(&name, &keep, &row, 1, filter, ctx);
		if (ret)
			goto out;
		if (!keep)
			continue;
		slot = util_push(&out->names, &cap, &out->nregions, sizeof(*slot));
		k = slot ? util_push(keys, &kcap, &n, sizeof(*k)) : NULL;
		if (!k || !(*slot = util_strdup(name))) {
			if (slot && k)
				out->nregions--;
			ret = err_nomem();
			goto out;
		}
		k->id = sqlite3_column_int64(s, 0);
		k->idx = out->nregions - 1;
	}
	ret = sqlite_rows_end(st, &s, rc);
	if (!ret && n)
		qsort(*keys, n, sizeof(**keys), rows_series_cmp_key);
out:
	sqlite3_finalize(s);
	return ret;
}

int sqlite_region_series(struct store_conn *st, struct store_series *out, const struct filter *f,
			 store_region_filter filter, void *ctx)
{
	struct rows_series_key *runs = NULL, *regions = NULL;
	struct run_where w;
	struct buf sql = BUF_INIT;
	sqlite3_stmt *s = NULL;
	size_t cap = 0;
	int rc, own_txn = 0, ret;

	memset(&w, 0, sizeof(w));
	ret = sqlite_snapshot_begin(st, &own_txn);
	if (ret)
		return ret;
	ret = sqlite_run_where_build(&w, f, 1);
	if (!ret)
		ret = series_runs(st, out, &runs, f, &w);
	if (!ret)
		ret = series_regions(st, out, &regions, filter, ctx);
	if (!ret && buf_printf(&sql,
			       "SELECT run_id, region_id, " RUN_REGIONS_COLUMNS
			       ", p50_ns, p95_ns, p99_ns FROM run_regions "
			       "WHERE run_id IN (SELECT id FROM runs WHERE 1%s)",
			       w.sql.data))
		ret = ERR_NOMEM;
	if (!ret)
		ret = sqlite_prepare(st, &s, sql.data, 0, "read");
	if (ret)
		goto out;
	rc = sqlite_run_where_bind(s, &w, 1);
	while (sqlite_row(s, &rc)) {
		struct rows_row row = sqlite_row_of(s);
		size_t run = rows_series_find(runs, out->nruns, sqlite3_column_int64(s, 0));
		size_t reg = rows_series_find(regions, out->nregions, sqlite3_column_int64(s, 1));
		struct store_series_cell *c;

		if (run == SIZE_MAX || reg == SIZE_MAX)
			continue; /* beyond the limit, or a region not selected */
		c = util_push(&out->cells, &cap, &out->ncells, sizeof(*c));
		if (!c) {
			ret = ERR_NOMEM;
			goto out;
		}
		rows_series_cell(c, run, reg, &row);
	}
	ret = sqlite_rows_end(st, &s, rc);
	out->nselected = out->nregions;
	if (!ret)
		ret = rows_series_group(out);
out:
	sqlite3_finalize(s);
	sqlite_snapshot_end(st, own_txn, ret);
	sqlite_run_where_release(&w);
	buf_release(&sql);
	free(runs);
	free(regions);
	return ret;
}
