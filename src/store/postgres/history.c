/*
 * history.c - the PostgreSQL backend's history of regions across runs
 * (store_region_history(), see postgres.h).
 *
 * The SQLite backend's query in PostgreSQL's spelling: one row per (region,
 * run) from the stored all-ranks totals or the timings rows of the ranks,
 * numbered newest first per region for the --limit; with a rank set and
 * durations asked for, one more query fetches the duration blobs (binary)
 * of all those rows.  All in one REPEATABLE READ snapshot.
 */
#include <stdlib.h>
#include <string.h>

#include "scopedb/err.h"
#include "scopedb/store.h"
#include "scopedb/util.h"
#include "store/postgres/postgres.h"
#include "store/rows.h"

/* *out = the ids of the regions q selects as a bigint[] literal;
 * ERR_NOTFOUND when there is none. */
static int history_regions(struct store_conn *c, char **out, const struct store_history_query *q)
{
	struct pg_params p;
	struct buf ids = BUF_INIT;
	PGresult *r = NULL;
	size_t count = 0;
	int i, keep, ret;

	*out = NULL;
	pp_init(&p);
	if (q->region)
		pp_text(&p, q->region);
	ret = postgres_exec(c, &r,
			    q->region ? "SELECT id, name FROM regions WHERE name = $1"
				      : "SELECT id, name FROM regions",
			    &p, 0, "read");
	if (!ret && buf_putc(&ids, '{'))
		ret = ERR_NOMEM;
	for (i = 0; !ret && i < PQntuples(r); i++) {
		keep = 1;
		if (!q->region && q->filter &&
		    (ret = q->filter(q->ctx, &keep, PQgetvalue(r, i, 1))))
			break;
		if (keep &&
		    buf_printf(&ids, "%s%lld", count++ ? "," : "", (long long)pg_int(r, i, 0)))
			ret = ERR_NOMEM;
	}
	if (!ret && count == 0) /* a mistyped name: the nearest stored one */
		ret = rows_no_region(c, postgres_names, q->region, q->pattern, c->location);
	if (!ret && buf_putc(&ids, '}'))
		ret = ERR_NOMEM;
	if (!ret)
		*out = buf_detach(&ids);
	PQclear(r);
	buf_release(&ids);
	return ret;
}

/* The duration blobs of the selected rows, decoded into their points. */
static int history_durations(struct store_conn *c, struct store_history_point *pts, size_t n,
			     const char *ids, const char *ranks,
			     const struct store_history_query *q)
{
	struct store_history_point **index, *hit;
	struct pg_params p;
	struct buf where = BUF_INIT, sql = BUF_INIT;
	PGresult *r = NULL;
	size_t i;
	int row, ret;

	index = rows_point_index(pts, n);
	if (!index)
		return ERR_NOMEM;
	pp_init(&p);
	pp_text(&p, ids);
	pp_text(&p, ranks);
	ret = buf_puts(&where, "") ? ERR_NOMEM : postgres_run_where(&where, &p, q->runs);
	if (!ret && buf_printf(&sql,
			       "SELECT t.region_id, t.run_id, d.data FROM timings AS t "
			       "JOIN timings_durations AS d ON d.timing_id = t.id "
			       "WHERE t.region_id = ANY($1::bigint[]) AND "
			       "($2::bigint[] IS NULL OR t.rank = ANY($2::bigint[])) AND "
			       "t.run_id IN (SELECT id FROM runs WHERE true%s) ORDER BY t.id",
			       where.data))
		ret = ERR_NOMEM;
	if (!ret)
		ret = postgres_exec(c, &r, sql.data, &p, 1, "read");
	for (row = 0; !ret && row < PQntuples(r); row++) {
		struct rows_row cur = pg_bin_row(r, row);

		hit = rows_point_find(index, n, pg_bin_int(r, row, 0), pg_bin_int(r, row, 1));
		if (hit) /* else a run beyond the limit */
			ret = rows_blob_append(&hit->durations, &cur, 2, c->location, hit->run_id);
	}
	for (i = 0; !ret && i < n; i++)
		util_sort_i64(pts[i].durations.v, pts[i].durations.len);
	PQclear(r);
	buf_release(&where);
	buf_release(&sql);
	free(index);
	return ret;
}

/* pts over the ranks $2: region, run, the aggregates, three NULLs. */
static const char HISTORY_RANKS_SQL[] =
    "SELECT t.region_id, t.run_id, " PG_REGION_AGGREGATES ", NULL::float8, NULL::float8, "
    "NULL::float8 FROM (SELECT region_id, run_id, has_events, calls, total_ns, min_ns, max_ns, "
    "gpu_count, gpu_total_ns, rank = ANY($2::bigint[]) AS sel "
    "FROM timings WHERE region_id = ANY($1::bigint[]) "
    "AND run_id IN (SELECT id FROM sr)) AS t GROUP BY t.region_id, t.run_id";

/* The same over all ranks, from the stored totals. */
static const char HISTORY_ALL_SQL[] =
    "SELECT region_id, run_id, " PG_RUN_REGIONS_COLUMNS ", p50_ns, p95_ns, p99_ns "
    "FROM run_regions WHERE region_id = ANY($1::bigint[]) "
    "AND run_id IN (SELECT id FROM sr) AND $2::bigint[] IS NULL";

int postgres_region_history(struct store_conn *c, struct store_history_point **out, size_t *n,
			    const struct store_history_query *q)
{
	struct store_history_point *pts = NULL;
	struct pg_params p;
	struct buf where = BUF_INIT, sql = BUF_INIT;
	PGresult *r = NULL;
	char *ids = NULL, *ranks;
	size_t len = 0;
	int failed, own = 0, i, ret;

	*out = NULL;
	*n = 0;
	ranks = postgres_array(q->ranks, q->nranks, &failed);
	if (failed)
		return err_nomem();
	ret = postgres_snapshot_begin(c, &own);
	if (!ret)
		ret = history_regions(c, &ids, q);
	if (ret)
		goto out;
	pp_init(&p);
	pp_text(&p, ids);
	pp_text(&p, ranks);
	pp_int(&p, q->runs ? q->runs->limit : 0);
	ret = buf_puts(&where, "") ? ERR_NOMEM : postgres_run_where(&where, &p, q->runs);
	if (!ret &&
	    buf_printf(
		&sql,
		"WITH sr AS (SELECT id, sort_time, commit_sha, label FROM runs WHERE true%s), "
		"pts AS (%s), "
		"ranked AS (SELECT pts.*, sr.sort_time, sr.commit_sha, sr.label, "
		"row_number() OVER (PARTITION BY pts.region_id "
		"ORDER BY sr.sort_time DESC, sr.id DESC) AS rn "
		"FROM pts JOIN sr ON sr.id = pts.run_id) "
		"SELECT ranked.*, g.name FROM ranked JOIN regions AS g "
		"ON g.id = ranked.region_id WHERE $3::bigint <= 0 OR ranked.rn <= $3::bigint "
		"ORDER BY g.name, ranked.sort_time, ranked.run_id",
		where.data, ranks ? HISTORY_RANKS_SQL : HISTORY_ALL_SQL))
		ret = ERR_NOMEM;
	if (!ret)
		ret = postgres_exec(c, &r, sql.data, &p, 0, "read");
	if (ret)
		goto out;
	if (PQntuples(r)) {
		pts = calloc((size_t)PQntuples(r), sizeof(*pts));
		if (!pts) {
			ret = err_nomem();
			goto out;
		}
	}
	for (i = 0; i < PQntuples(r) && !ret; i++) {
		struct rows_row row = pg_row(r, i);

		ret = rows_history_point(&pts[len++], &row, !ranks);
	}
	if (!ret && q->durations && len && ranks)
		ret = history_durations(c, pts, len, ids, ranks, q);
out:
	PQclear(r);
	postgres_snapshot_end(c, own);
	buf_release(&where);
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

/* ---- the series of every region (store_region_series()) ------------------ */

/* The runs f selects, oldest first (the newest f->limit of them), into
 * out->runs; *keys = (id, index) sorted by id. */
static int pg_series_runs(struct store_conn *c, struct store_series *out,
			  struct rows_series_key **keys, const struct filter *f)
{
	struct pg_params p;
	struct buf where = BUF_INIT, sql = BUF_INIT;
	PGresult *r = NULL;
	int i, n, ret;

	*keys = NULL;
	pp_init(&p);
	if (f && f->limit > 0)
		pp_int(&p, f->limit);
	else
		pp_text(&p, NULL);
	ret = buf_puts(&where, "") ? ERR_NOMEM : postgres_run_where(&where, &p, f);
	if (!ret &&
	    buf_printf(
		&sql,
		"SELECT id, sort_time, commit_sha, label FROM runs WHERE true%s" PG_NEWEST_FIRST
		" LIMIT $1::bigint",
		where.data))
		ret = ERR_NOMEM;
	if (!ret)
		ret = postgres_exec(c, &r, sql.data, &p, 0, "read");
	if (ret)
		goto out;
	n = PQntuples(r);
	out->runs = util_calloc(n ? (size_t)n : 1, sizeof(*out->runs));
	*keys = util_calloc(n ? (size_t)n : 1, sizeof(**keys));
	if (!out->runs || !*keys) {
		ret = err_nomem();
		goto out;
	}
	/* newest first from the server: oldest first in the series */
	for (i = 0; i < n && !ret; i++) {
		struct store_series_run *run = &out->runs[out->nruns++];
		struct rows_row row = pg_row(r, n - 1 - i);

		ret = rows_series_run(run, &row);
		(*keys)[i] = (struct rows_series_key){run->id, (size_t)i};
	}
	if (!ret && n)
		qsort(*keys, (size_t)n, sizeof(**keys), rows_series_cmp_key);
out:
	PQclear(r);
	buf_release(&where);
	buf_release(&sql);
	return ret;
}

/* The regions filter keeps, by name, into out->names; *keys by id. */
static int pg_series_regions(struct store_conn *c, struct store_series *out,
			     struct rows_series_key **keys, store_region_filter filter, void *ctx)
{
	PGresult *r = NULL;
	int i, n, keep, ret;

	*keys = NULL;
	ret = postgres_exec(c, &r, "SELECT id, name FROM regions ORDER BY name", NULL, 0, "read");
	if (ret)
		goto out;
	n = PQntuples(r);
	out->names = util_calloc(n ? (size_t)n : 1, sizeof(*out->names));
	*keys = util_calloc(n ? (size_t)n : 1, sizeof(**keys));
	if (!out->names || !*keys) {
		ret = err_nomem();
		goto out;
	}
	for (i = 0; i < n && !ret; i++) {
		struct rows_row row = pg_row(r, i);
		const char *name;

		if ((ret = rows_keep_region(&name, &keep, &row, 1, filter, ctx)))
			break;
		if (!keep)
			continue;
		if (!(out->names[out->nregions] = util_strdup(name))) {
			ret = ERR_NOMEM;
			break;
		}
		(*keys)[out->nregions] = (struct rows_series_key){pg_int(r, i, 0), out->nregions};
		out->nregions++;
	}
	if (!ret && out->nregions)
		qsort(*keys, out->nregions, sizeof(**keys), rows_series_cmp_key);
out:
	PQclear(r);
	return ret;
}

/*
 * store_region_series(): the runs, the kept regions, then the stored
 * totals of those runs in one query; the cells are matched to their run
 * and region by id and sorted in memory, as the SQLite backend does.
 */
int postgres_region_series(struct store_conn *c, struct store_series *out, const struct filter *f,
			   store_region_filter filter, void *ctx)
{
	struct rows_series_key *runs = NULL, *regions = NULL;
	struct pg_params p;
	struct buf ids = BUF_INIT;
	PGresult *r = NULL;
	size_t cap = 0, i;
	int own = 0, row, ret;

	ret = postgres_snapshot_begin(c, &own);
	if (!ret)
		ret = pg_series_runs(c, out, &runs, f);
	if (!ret)
		ret = pg_series_regions(c, out, &regions, filter, ctx);
	if (ret)
		goto out;
	out->nselected = out->nregions;
	if (buf_putc(&ids, '{'))
		ret = ERR_NOMEM;
	for (i = 0; i < out->nruns && !ret; i++)
		if (buf_printf(&ids, "%s%lld", i ? "," : "", (long long)out->runs[i].id))
			ret = ERR_NOMEM;
	if (!ret && buf_putc(&ids, '}'))
		ret = ERR_NOMEM;
	if (ret)
		goto out;
	pp_init(&p);
	pp_text(&p, ids.data);
	ret = postgres_exec(
	    c, &r,
	    "SELECT run_id, region_id, " PG_RUN_REGIONS_COLUMNS
	    ", p50_ns, p95_ns, p99_ns FROM run_regions WHERE run_id = ANY($1::bigint[])",
	    &p, 1, "read");
	for (row = 0; !ret && row < PQntuples(r); row++) {
		struct rows_row cur = pg_bin_row(r, row);
		size_t run = rows_series_find(runs, out->nruns, pg_bin_int(r, row, 0));
		size_t reg = rows_series_find(regions, out->nregions, pg_bin_int(r, row, 1));
		struct store_series_cell *cell;

		if (run == SIZE_MAX || reg == SIZE_MAX)
			continue; /* a region the filter left out */
		cell = util_push(&out->cells, &cap, &out->ncells, sizeof(*cell));
		if (!cell) {
			ret = ERR_NOMEM;
			break;
		}
		rows_series_cell(cell, run, reg, &cur);
	}
	if (!ret)
		ret = rows_series_group(out);
out:
	PQclear(r);
	postgres_snapshot_end(c, own);
	buf_release(&ids);
	free(runs);
	free(regions);
	return ret;
}
