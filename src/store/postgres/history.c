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
	struct store_history_point **index = NULL, key, *kp = &key, **hit;
	struct pg_params p;
	struct buf where = BUF_INIT, sql = BUF_INIT;
	PGresult *r = NULL;
	size_t i;
	int row, ret;

	index = malloc((n ? n : 1) * sizeof(*index));
	if (!index)
		return err_nomem();
	for (i = 0; i < n; i++)
		index[i] = &pts[i];
	qsort(index, n, sizeof(*index), rows_cmp_point);
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
		key.stats.region_id = pg_bin_int(r, row, 0);
		key.run_id = pg_bin_int(r, row, 1);
		hit = bsearch(&kp, index, n, sizeof(*index), rows_cmp_point);
		if (hit) /* else a run beyond the limit */
			ret = postgres_blob_append(c, &(*hit)->durations, r, row, 2, key.run_id);
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
	struct store_history_point *pts = NULL, *pt;
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
	for (i = 0; i < PQntuples(r); i++) {
		pt = &pts[len++];
		i64vec_init(&pt->durations);
		pt->stats.region_id = pg_int(r, i, 0);
		pt->run_id = pg_int(r, i, 1);
		postgres_stats_from_row(&pt->stats, r, i, 2);
		if (!ranks)
			postgres_quantiles_from_row(&pt->stats, r, i,
						    2 + PG_REGION_AGGREGATE_COLUMNS);
		if ((ret = pg_text(&pt->time, r, i, 5 + PG_REGION_AGGREGATE_COLUMNS)) ||
		    (ret = pg_text(&pt->commit, r, i, 6 + PG_REGION_AGGREGATE_COLUMNS)) ||
		    (ret = pg_text(&pt->label, r, i, 7 + PG_REGION_AGGREGATE_COLUMNS)) ||
		    (ret = pg_text(&pt->stats.name, r, i, 9 + PG_REGION_AGGREGATE_COLUMNS)))
			goto out;
	}
	if (q->durations && len && ranks)
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
