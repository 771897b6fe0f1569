/*
 * read.c - the SQLite backend's queries: runs, metadata, selectors, pins,
 * run filters, and the per-region aggregates and durations of diff, check
 * and show (see sqlite.h).
 *
 * The two per-region queries of diff/check run once per side and region,
 * so their statements are kept in struct store_conn; every other statement
 * is prepared, used and finalized within one function.  A rank set is bound
 * as a JSON array for json_each(); without one, the run's stored all-ranks
 * totals (run_regions) are read, one row per region.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scopedb/err.h"
#include "scopedb/store.h"
#include "scopedb/util.h"
#include "store/rows.h"
#include "store/sqlite/sqlite.h"

/* ---- runs and metadata ----------------------------------------------- */

/* Blob column i, borrowed until the next step: SQLite returns NULL for an
 * empty blob and for a failed allocation (then the length is not 0). */
int sqlite_col_blob(const void **data, size_t *len, sqlite3_stmt *s, int i)
{
	int n;

	*data = sqlite3_column_blob(s, i);
	n = sqlite3_column_bytes(s, i);
	*len = (size_t)n;
	return !*data && n > 0 ? err_nomem() : 0;
}

/* The column getters of rows.h over a statement's current row. */
static int row_null(const struct rows_row *r, int col)
{
	return sqlite3_column_type(r->res, col) == SQLITE_NULL;
}

static int64_t row_i64(const struct rows_row *r, int col)
{
	return sqlite3_column_int64(r->res, col);
}

static double row_f64(const struct rows_row *r, int col)
{
	return sqlite3_column_double(r->res, col);
}

static const char *row_text(const struct rows_row *r, int col)
{
	return (const char *)sqlite3_column_text(r->res, col);
}

static int row_blob(const struct rows_row *r, int col, const void **data, size_t *len)
{
	return sqlite_col_blob(data, len, r->res, col);
}

static const struct rows_row_ops sqlite_row_ops = {row_null, row_i64, row_f64, row_text, row_blob};

struct rows_row sqlite_row_of(sqlite3_stmt *s)
{
	return (struct rows_row){&sqlite_row_ops, s, 0};
}

/*
 * Attach the tags of all runs[0..n) with one scan of run_tags (in primary
 * key order, so each run's tags arrive sorted), finding each tag's run by
 * binary search over the run ids.
 */
static int attach_tags(struct store_conn *st, struct store_run *runs, size_t n)
{
	sqlite3_stmt *s = NULL;
	struct rows_run_pos *byid = NULL;
	struct store_run *run;
	const unsigned char *tag;
	int rc, ret;

	if (!n)
		return 0;
	byid = rows_run_index(runs, n);
	if (!byid)
		return ERR_NOMEM;
	/* One run (sqlite_get_run()): its tags only, by the primary key. */
	ret = sqlite_prepare(st, &s,
			     n == 1
				 ? "SELECT run_id, tag FROM run_tags WHERE run_id = ?1 ORDER BY tag"
				 : "SELECT run_id, tag FROM run_tags ORDER BY run_id, tag",
			     0, "read");
	if (!ret && n == 1 && sqlite3_bind_int64(s, 1, runs[0].id) != SQLITE_OK)
		ret = sqlite_err(st, sqlite3_errcode(st->db), "read");
	if (ret)
		goto out;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		run = rows_run_find(runs, byid, n, sqlite3_column_int64(s, 0));
		if (!run)
			continue;
		tag = sqlite3_column_text(s, 1);
		if (!tag) {
			ret = err_nomem();
			goto out;
		}
		ret = rows_add_tag(run, (const char *)tag);
		if (ret)
			goto out;
	}
	ret = sqlite_rows_end(st, &s, rc);
out:
	sqlite3_finalize(s);
	free(byid);
	return ret;
}

int sqlite_get_run(struct store_conn *st, struct store_run *out, int64_t id)
{
	sqlite3_stmt *s = NULL;
	struct rows_row row;
	int rc, ret;

	memset(out, 0, sizeof(*out));
	ret = sqlite_prepare(st, &s, "SELECT " RUN_COLUMNS " FROM runs WHERE id = ?1", 0, "read");
	if (ret)
		goto out;
	rc = sqlite3_bind_int64(s, 1, id);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(s);
	if (rc == SQLITE_DONE) {
		ret = err_set(ERR_NOTFOUND, "no run %lld in store '%s'", (long long)id, st->path);
		goto out;
	}
	if (rc != SQLITE_ROW) {
		ret = sqlite_err(st, rc, "read");
		goto out;
	}
	row = sqlite_row_of(s);
	ret = rows_run(out, &row);
	if (!ret)
		ret = attach_tags(st, out, 1);
out:
	sqlite3_finalize(s);
	if (ret)
		store_run_release(out);
	return ret;
}

int sqlite_get_meta(struct store_conn *st, struct store_meta *out, int64_t run_id)
{
	sqlite3_stmt *s = NULL;
	size_t kcap = 0, vcap = 0;
	int rc, ret;

	memset(out, 0, sizeof(*out));
	ret = sqlite_prepare(st, &s,
			     "SELECT key, value FROM run_metadata WHERE run_id = ?1 ORDER BY key",
			     0, "read");
	if (ret)
		goto out;
	rc = sqlite3_bind_int64(s, 1, run_id);
	while (sqlite_row(s, &rc)) {
		struct rows_row row = sqlite_row_of(s);

		if ((ret = util_grow(&out->keys, &kcap, out->n + 1, sizeof(*out->keys), 16)) ||
		    (ret = util_grow(&out->values, &vcap, out->n + 1, sizeof(*out->values), 16)))
			goto out;
		out->keys[out->n] = NULL;
		out->values[out->n] = NULL;
		out->n++;
		if ((ret = rows_text(&out->keys[out->n - 1], &row, 0)) ||
		    (ret = rows_text(&out->values[out->n - 1], &row, 1)))
			goto out;
	}
	ret = sqlite_rows_end(st, &s, rc);
out:
	sqlite3_finalize(s);
	if (ret)
		store_meta_release(out);
	return ret;
}

/* ---- selectors, pins and comparisons ---------------------------------- */

/*
 * The selectors' queries (rows.h, struct rows_resolve_ops): *out = id of
 * the back-th newest run of kind (name as ?1) recorded before run before
 * (when > 0), or 0; *count = how many runs match when there is none.
 */
static int resolve_nth(struct store_conn *st, int64_t *out, int64_t *count, enum select_kind kind,
		       const char *name, int64_t before, int64_t back)
{
	const char *cond = kind == SELECT_TAG ? "id IN (SELECT run_id FROM run_tags WHERE tag = ?1)"
			   : kind == SELECT_BRANCH ? "branch = ?1"
			   : kind == SELECT_LABEL  ? "label = ?1"
			   : kind == SELECT_COMMIT ? "commit_sha = ?1"
						   : "1";
	sqlite3_stmt *s = NULL;
	char from[256], sql[512];
	int rc, bad = 0, ret;

	*out = 0;
	*count = 0;
	if (before)
		snprintf(from, sizeof(from),
			 "FROM runs WHERE %s AND (sort_time, id) < (SELECT sort_time, id FROM runs "
			 "WHERE id = %lld)",
			 cond, (long long)before);
	else
		snprintf(from, sizeof(from), "FROM runs WHERE %s", cond);
	snprintf(sql, sizeof(sql), "SELECT id %s" NEWEST_FIRST " LIMIT 1 OFFSET ?2", from);
	ret = sqlite_prepare(st, &s, sql, 0, "read");
	if (ret)
		return ret;
	if (kind != SELECT_LATEST)
		bad |= sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC) != SQLITE_OK;
	bad |= sqlite3_bind_int64(s, 2, back) != SQLITE_OK;
	rc = bad ? sqlite3_errcode(st->db) : sqlite3_step(s);
	if (rc == SQLITE_ROW)
		*out = sqlite3_column_int64(s, 0);
	else if (rc != SQLITE_DONE)
		ret = sqlite_err(st, rc, "read");
	sqlite3_finalize(s);
	if (ret || *out)
		return ret;
	snprintf(sql, sizeof(sql), "SELECT count(*) %s", from);
	return sqlite_query_int(st, count, sql, kind != SELECT_LATEST ? name : NULL, 0);
}

/* *out = the integer of the one-row query sql with ?1 = v, 0 for no row. */
static int query_int_arg(struct store_conn *st, int64_t *out, const char *sql, int64_t v,
			 const char *text)
{
	sqlite3_stmt *s = NULL;
	int rc, ret;

	*out = 0;
	ret = sqlite_prepare(st, &s, sql, 0, "read");
	if (ret)
		return ret;
	rc = text ? sqlite3_bind_text(s, 1, text, -1, SQLITE_STATIC) : sqlite3_bind_int64(s, 1, v);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		*out = sqlite3_column_int64(s, 0);
	else if (rc != SQLITE_DONE)
		ret = sqlite_err(st, rc, "read");
	sqlite3_finalize(s);
	return ret;
}

static int resolve_exists(struct store_conn *st, int64_t *out, int64_t id)
{
	return query_int_arg(st, out, "SELECT id FROM runs WHERE id = ?1", id, NULL);
}

static int resolve_pin(struct store_conn *st, int64_t *out, const char *name)
{
	return query_int_arg(st, out, "SELECT run_id FROM pins WHERE name = ?1", 0, name);
}

/* "abc" -> "abc*" with GLOB's special characters bracketed, for an indexed
 * prefix search; with its ASCII letters in lower case (fold < 0), upper
 * case (fold > 0) or as they are (0). */
static char *sqlite_glob_prefix(const char *prefix, int fold)
{
	struct buf b = BUF_INIT;
	int rc = 0;

	for (; *prefix && !rc; prefix++) {
		char c = *prefix;

		if (fold < 0 && c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		else if (fold > 0 && c >= 'a' && c <= 'z')
			c = (char)(c - 'a' + 'A');
		if (c == '*' || c == '?' || c == '[')
			rc = buf_printf(&b, "[%c]", c);
		else
			rc = buf_putc(&b, c);
	}
	return buf_finish(&b, rc || buf_putc(&b, '*'));
}

/* The three GLOB patterns of a commit prefix (in lower case, as every hex
 * commit is stored; in upper case; as given), into glob; 0 or ERR_NOMEM.
 * Each one an index search, unlike lower(commit_sha): so a prefix in any
 * case finds commits stored in lower case (and in upper case, or in its
 * very case, as an older scopedb or a program may have stored them). */
static int sqlite_commit_globs(char *glob[3], const char *prefix)
{
	glob[0] = sqlite_glob_prefix(prefix, -1);
	glob[1] = sqlite_glob_prefix(prefix, 1);
	glob[2] = sqlite_glob_prefix(prefix, 0);
	return glob[0] && glob[1] && glob[2] ? 0 : err_nomem();
}

/* The distinct commits starting with prefix in any case (hex digits:
 * git takes BB02 for bb02; see sqlite_commit_globs()), at most 6. */
static int resolve_commits(struct store_conn *st, struct buf *out, size_t *n, const char *prefix)
{
	sqlite3_stmt *s = NULL;
	char *glob[3] = {NULL, NULL, NULL};
	int rc = SQLITE_OK, ret, i;

	*n = 0;
	ret = sqlite_commit_globs(glob, prefix);
	if (ret)
		goto out;
	/* (a UNION: with OR, SQLite reads the whole index in order instead) */
	ret = sqlite_prepare(st, &s,
			     "SELECT commit_sha FROM runs WHERE commit_sha GLOB ?1 UNION "
			     "SELECT commit_sha FROM runs WHERE commit_sha GLOB ?2 UNION "
			     "SELECT commit_sha FROM runs WHERE commit_sha GLOB ?3 "
			     "ORDER BY 1 LIMIT 6",
			     0, "read");
	if (ret)
		goto out;
	for (i = 0; i < 3 && rc == SQLITE_OK; i++)
		rc = sqlite3_bind_text(s, i + 1, glob[i], -1, SQLITE_STATIC);
	while (sqlite_row(s, &rc)) {
		const unsigned char *c = sqlite3_column_text(s, 0);

		if (!c || buf_add(out, c, strlen((const char *)c) + 1)) {
			ret = err_nomem();
			goto out;
		}
		(*n)++;
	}
	ret = sqlite_rows_end(st, &s, rc);
out:
	sqlite3_finalize(s);
	for (i = 0; i < 3; i++)
		free(glob[i]);
	return ret;
}

static const char *resolve_location(const struct store_conn *st)
{
	return st->path;
}

int sqlite_names(struct store_conn *st, struct buf *out, size_t *n, enum rows_names kind)
{
	sqlite3_stmt *s = NULL;
	int rc = SQLITE_DONE, ret;

	*n = 0;
	ret = sqlite_prepare(st, &s, rows_names_sql(kind), 0, "read");
	while (!ret && (rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(s, 0);

		if (!name)
			continue;
		if (buf_add(out, name, strlen(name) + 1))
			ret = ERR_NOMEM;
		else
			(*n)++;
	}
	if (!ret && rc != SQLITE_DONE)
		ret = sqlite_err(st, rc, "read");
	sqlite3_finalize(s);
	return ret;
}

static const struct rows_resolve_ops sqlite_resolve_ops = {
    .nth = resolve_nth,
    .exists = resolve_exists,
    .pin = resolve_pin,
    .commits = resolve_commits,
    .get_run = sqlite_get_run,
    .location = resolve_location,
    .names = sqlite_names,
};

int sqlite_resolve(struct store_conn *st, int64_t *out, const struct select_spec *sel)
{
	return rows_resolve(st, &sqlite_resolve_ops, out, sel);
}

int sqlite_list_pins(struct store_conn *st, struct store_pin **out, size_t *n)
{
	sqlite3_stmt *s = NULL;
	struct store_pin *pins = NULL, *p;
	size_t len = 0, cap = 0;
	int rc, ret;

	*out = NULL;
	*n = 0;
	ret = sqlite_prepare(st, &s, "SELECT name, run_id, pinned_at FROM pins ORDER BY name", 0,
			     "read");
	if (ret)
		return ret;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		struct rows_row row = sqlite_row_of(s);

		p = util_push(&pins, &cap, &len, sizeof(*pins));
		if (!p) {
			ret = ERR_NOMEM;
			goto out;
		}
		ret = rows_pin(p, &row);
		if (ret)
			goto out;
	}
	ret = sqlite_rows_end(st, &s, rc);
out:
	sqlite3_finalize(s);
	if (ret) {
		store_pins_free(pins, len);
		return ret;
	}
	*out = pins;
	*n = len;
	return 0;
}

char *sqlite_ranks_json(const int64_t *ranks, size_t n, int *failed)
{
	return rows_id_list(ranks, n, '[', ']', failed);
}

/*
 * sqlite_region_stats(): one row per region of run ?1, pooled over the ranks
 * of the JSON list ?2.  Rows of unselected ranks still make the region
 * appear (with calls 0).  Columns: region id, has_events, calls, total, min
 * and max over rows with calls, GPU count and total, rows with total > 0 and
 * the largest such total, selected rows, then the region name.  Rows are
 * grouped before the join, so the name is looked up once per region rather
 * than once per (region, rank) row.
 */
static const char REGION_STATS_SQL[] =
    "SELECT g.*, r.name FROM (SELECT t.region_id, " REGION_AGGREGATES " "
    "FROM (SELECT region_id, has_events, calls, total_ns, min_ns, max_ns, gpu_count, "
    "gpu_total_ns, rank IN (SELECT value FROM json_each(?2)) AS sel "
    "FROM timings WHERE run_id = ?1) AS t GROUP BY t.region_id) AS g "
    "JOIN regions AS r ON r.id = g.region_id";

/* The all-ranks variant of REGION_STATS_SQL: read back from run_regions,
 * with the stored p50/p95/p99 after the name. */
static const char REGION_STATS_ALL_SQL[] =
    "SELECT g.region_id, " RUN_REGIONS_COLUMNS ", r.name, g.p50_ns, g.p95_ns, g.p99_ns "
    "FROM run_regions AS g JOIN regions AS r ON r.id = g.region_id WHERE g.run_id = ?1";

/* Column of the region name in both queries above. */
#define REGION_STATS_NAME_COL (1 + REGION_AGGREGATE_COLUMNS)

/* sqlite_region_durations(): the duration blobs of region ?2 of run ?1 on the
 * ranks of the JSON list ?3 (NULL = all). */
static const char REGION_DURATIONS_SQL[] =
    "SELECT d.data FROM timings AS t JOIN timings_durations AS d ON d.timing_id = t.id "
    "WHERE t.run_id = ?1 AND t.region_id = ?2 "
    "AND (?3 IS NULL OR t.rank IN (SELECT value FROM json_each(?3)))";

/*
 * The start of the region queries over the ranks: *json = the ranks as JSON
 * (NULL: all ranks), *s = the statement cached in *slot (prepared from sql
 * on first use) with ?1 = run_id.  ranks_stmt_end() ends it, also after a
 * failure.
 */
static int ranks_stmt_begin(struct store_conn *st, sqlite3_stmt **s, char **json,
			    sqlite3_stmt **slot, const char *sql, int64_t run_id,
			    const int64_t *ranks, size_t nranks)
{
	int failed, ret;

	*s = NULL;
	*json = sqlite_ranks_json(ranks, nranks, &failed);
	if (failed)
		return err_nomem();
	ret = sqlite_cached(st, s, slot, sql);
	if (!ret && sqlite3_bind_int64(*s, 1, run_id) != SQLITE_OK)
		ret = sqlite_err(st, sqlite3_errcode(st->db), "read");
	return ret;
}

static void ranks_stmt_end(sqlite3_stmt *s, char *json)
{
	sqlite_rewind(s);
	free(json);
}

int sqlite_region_stats(struct store_conn *st, struct store_region_stats **out, size_t *n,
			int64_t run_id, const int64_t *ranks, size_t nranks,
			store_region_filter filter, void *ctx)
{
	sqlite3_stmt *s;
	struct store_region_stats *regs = NULL, *g;
	size_t len = 0, cap = 0;
	char *json;
	int rc, keep, ret;

	*out = NULL;
	*n = 0;
	ret = ranks_stmt_begin(st, &s, &json, ranks ? &st->region_stats : &st->region_stats_all,
			       ranks ? REGION_STATS_SQL : REGION_STATS_ALL_SQL, run_id, ranks,
			       nranks);
	if (ret)
		goto out;
	rc = json ? sqlite3_bind_text(s, 2, json, -1, SQLITE_STATIC) : SQLITE_OK;
	while (sqlite_row(s, &rc)) {
		struct rows_row row = sqlite_row_of(s);
		const char *name;

		ret = rows_keep_region(&name, &keep, &row, REGION_STATS_NAME_COL, filter, ctx);
		if (ret)
			goto out;
		if (!keep)
			continue;
		g = util_push(&regs, &cap, &len, sizeof(*regs));
		if (!g) {
			ret = ERR_NOMEM;
			goto out;
		}
		ret = rows_region(g, &row, name, !json);
		if (ret)
			goto out;
	}
	ret = sqlite_rows_done(st, rc);
out:
	ranks_stmt_end(s, json);
	if (ret) {
		store_region_stats_free(regs, len);
		return ret;
	}
	/* Sorted here rather than by SQL: no temporary b-tree per query. */
	rows_sort_regions(regs, len);
	*out = regs;
	*n = len;
	return 0;
}

int sqlite_blob_append(struct store_conn *st, struct i64vec *out, sqlite3_stmt *s, int col,
		       int64_t run_id)
{
	struct rows_row row = sqlite_row_of(s);

	return rows_blob_append(out, &row, col, st->path, run_id);
}

/*
 * The blobs of one region of run_id on the selected ranks, decoded and
 * appended to out (each row sorted, the rows not merged); with ends, the
 * end offset in out of each row is pushed to ends.  The front end sorts
 * the whole for store_region_durations().
 */
int sqlite_region_durations(struct store_conn *st, struct i64vec *out, struct i64vec *ends,
			    int64_t run_id, int64_t region_id, const int64_t *ranks, size_t nranks)
{
	sqlite3_stmt *s;
	size_t start = out->len, ends_start = ends ? ends->len : 0;
	char *json;
	int rc, bad = 0, ret;

	ret = ranks_stmt_begin(st, &s, &json, &st->region_durations, REGION_DURATIONS_SQL, run_id,
			       ranks, nranks);
	if (ret)
		goto out;
	bad |= sqlite3_bind_int64(s, 2, region_id) != SQLITE_OK;
	bad |= sqlite_bind_text_or_null(s, 3, json) != SQLITE_OK;
	rc = bad ? sqlite3_errcode(st->db) : SQLITE_OK;
	while (sqlite_row(s, &rc)) {
		ret = sqlite_blob_append(st, out, s, 0, run_id);
		if (!ret && ends)
			ret = i64vec_push(ends, (int64_t)out->len);
		if (ret)
			goto out;
	}
	ret = sqlite_rows_done(st, rc);
out:
	ranks_stmt_end(s, json);
	if (ret) {
		out->len = start;
		if (ends)
			ends->len = ends_start;
	}
	return ret;
}

/* ---- run filters and filtered listings ----------------------------------- */

void sqlite_run_where_release(struct run_where *w)
{
	buf_release(&w->sql);
	free(w->vals);
	free(w->glob[0]);
	free(w->glob[1]);
	free(w->glob[2]);
	memset(w, 0, sizeof(*w));
}

/* Add the condition pre ?N [mid ?N+1] post, binding v1 (and v2 when it is
 * not NULL) to the next parameters. */
static int run_where_add(struct run_where *w, int first, const char *pre, const char *v1,
			 const char *mid, const char *v2, const char *post)
{
	int p = first + (int)w->n, rc;

	rc = buf_printf(&w->sql, "%s?%d", pre, p);
	if (!rc && v2)
		rc = buf_printf(&w->sql, "%s?%d", mid, p + 1);
	if (!rc)
		rc = buf_puts(&w->sql, post);
	if (rc)
		return rc;
	w->vals[w->n++] = v1;
	if (v2)
		w->vals[w->n++] = v2;
	return 0;
}

int sqlite_run_where_build(struct run_where *w, const struct filter *f, int first)
{
	size_t i;
	int rc = 0;

	memset(w, 0, sizeof(*w));
	if (buf_puts(&w->sql, ""))
		return ERR_NOMEM;
	if (!f)
		return 0;
	w->vals = malloc((f->ntags + 2 * f->nmeta + 7) * sizeof(*w->vals));
	if (!w->vals)
		return err_nomem();
	for (i = 0; i < f->ntags && !rc; i++)
		rc = run_where_add(w, first,
				   " AND runs.id IN (SELECT run_id FROM run_tags WHERE tag = ",
				   f->tags[i], NULL, NULL, ")");
	if (!rc && f->branch)
		rc = run_where_add(w, first, " AND runs.branch = ", f->branch, NULL, NULL, "");
	if (!rc && f->commit) {
		rc = sqlite_commit_globs(w->glob, f->commit);
		if (!rc)
			rc = run_where_add(w, first, " AND (runs.commit_sha GLOB ", w->glob[0],
					   " OR runs.commit_sha GLOB ", w->glob[1], "");
		if (!rc)
			rc = run_where_add(w, first, " OR runs.commit_sha GLOB ", w->glob[2], NULL,
					   NULL, ")");
	}
	if (!rc && f->label)
		rc = run_where_add(w, first, " AND runs.label = ", f->label, NULL, NULL, "");
	if (!rc && f->since[0])
		rc = run_where_add(w, first, " AND runs.sort_time >= ", f->since, NULL, NULL, "");
	if (!rc && f->until[0])
		rc = run_where_add(w, first, " AND runs.sort_time <= ", f->until, NULL, NULL, "");
	for (i = 0; i < f->nmeta && !rc; i++)
		rc = run_where_add(w, first,
				   " AND runs.id IN (SELECT run_id FROM run_metadata WHERE key = ",
				   f->meta[i].key, " AND value = ", f->meta[i].value, ")");
	return rc ? err_nomem() : 0;
}

/* Bind w's values from parameter first on; 0 or the SQLite error. */
int sqlite_run_where_bind(sqlite3_stmt *s, const struct run_where *w, int first)
{
	size_t i;
	int rc = SQLITE_OK;

	for (i = 0; i < w->n && rc == SQLITE_OK; i++)
		rc = sqlite3_bind_text(s, first + (int)i, w->vals[i], -1, SQLITE_STATIC);
	return rc;
}

int sqlite_find_runs(struct store_conn *st, struct store_run **out, size_t *n,
		     const struct filter *f)
{
	sqlite3_stmt *s = NULL;
	struct store_run *runs = NULL, *r;
	struct run_where w;
	struct buf sql = BUF_INIT;
	size_t len = 0, cap = 0;
	int own_txn = 0, rc, ret;

	*out = NULL;
	*n = 0;
	ret = sqlite_run_where_build(&w, f, 2);
	if (!ret &&
	    buf_printf(&sql, "SELECT " RUN_COLUMNS " FROM runs WHERE 1%s" NEWEST_FIRST " LIMIT ?1",
		       w.sql.data))
		ret = ERR_NOMEM;
	if (ret)
		goto out;
	/* One snapshot for both queries when no transaction is open. */
	ret = sqlite_snapshot_begin(st, &own_txn);
	if (ret)
		goto out;
	ret = sqlite_prepare(st, &s, sql.data, 0, "read");
	if (ret)
		goto out;
	rc = sqlite3_bind_int64(s, 1, f && f->limit > 0 ? f->limit : -1);
	if (rc == SQLITE_OK)
		rc = sqlite_run_where_bind(s, &w, 2);
	while (sqlite_row(s, &rc)) {
		struct rows_row row = sqlite_row_of(s);

		r = util_push(&runs, &cap, &len, sizeof(*runs));
		ret = r ? rows_run(r, &row) : ERR_NOMEM;
		if (ret)
			goto out;
	}
	ret = sqlite_rows_end(st, &s, rc);
	if (ret)
		goto out;
	ret = attach_tags(st, runs, len);
out:
	sqlite3_finalize(s);
	sqlite_snapshot_end(st, own_txn, ret);
	sqlite_run_where_release(&w);
	buf_release(&sql);
	if (ret) {
		store_runs_free(runs, len);
		return ret;
	}
	*out = runs;
	*n = len;
	return 0;
}

/* ---- whole rows, for copying a run (store_scan_timings()) ---------------- */

int sqlite_scan_timings(struct store_conn *st, int64_t run_id, store_timing_fn fn, void *ctx)
{
	sqlite3_stmt *s = NULL;
	struct store_timing t;
	int rc, ret;

	ret = sqlite_prepare(st, &s,
			     "SELECT t.region_id, t.rank, t.has_events, t.calls, t.total_ns, "
			     "t.min_ns, t.max_ns, t.first_ns, t.last_ns, t.start_min_ns, "
			     "t.end_max_ns, t.mean_ns, t.m2, t.exclusive_ns, t.gpu_count, "
			     "t.gpu_total_ns, t.source_file, t.source_line, t.source_text, t.tags, "
			     "r.name, d.data FROM timings AS t JOIN regions AS r ON r.id = "
			     "t.region_id LEFT JOIN timings_durations AS d ON d.timing_id = t.id "
			     "WHERE t.run_id = ?1 ORDER BY t.id",
			     0, "read");
	if (ret)
		return ret;
	rc = sqlite3_bind_int64(s, 1, run_id);
	while (sqlite_row(s, &rc)) {
		struct rows_row row = sqlite_row_of(s);
		const char *name;

		ret = rows_timing(&t, &name, &row, run_id);
		if (!ret)
			ret = fn(ctx, &t, name);
		if (ret)
			goto out;
	}
	ret = sqlite_rows_end(st, &s, rc);
out:
	sqlite3_finalize(s);
	return ret;
}

/* sqlite_rank_totals(): every timings row of run ?1 with its region's name
 * (one scan of the run's rows; the name looked up per row). */
static const char RANK_TOTALS_SQL[] = "SELECT r.name, t.rank, t.total_ns FROM timings AS t "
				      "JOIN regions AS r ON r.id = t.region_id WHERE t.run_id = ?1";

int sqlite_rank_totals(struct store_conn *st, int64_t run_id, store_rank_total_fn fn, void *ctx)
{
	sqlite3_stmt *s = NULL;
	int rc, ret;

	ret = sqlite_prepare(st, &s, RANK_TOTALS_SQL, 0, "read");
	if (ret)
		goto out;
	rc = sqlite3_bind_int64(s, 1, run_id);
	while (!ret && sqlite_row(s, &rc)) {
		const char *name = (const char *)sqlite3_column_text(s, 0);

		if (!name) {
			ret = err_nomem();
			goto out;
		}
		ret = fn(ctx, name, sqlite3_column_int64(s, 1), sqlite3_column_int64(s, 2));
	}
	if (!ret)
		ret = sqlite_rows_done(st, rc);
out:
	sqlite3_finalize(s);
	return ret;
}
