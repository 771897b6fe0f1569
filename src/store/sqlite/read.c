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
#include "store/blob.h"
#include "store/sqlite/sqlite.h"
#include "util/suggest.h"

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

/* Copy text column i (NULL stays NULL). */
int sqlite_col_text(char **out, sqlite3_stmt *s, int i)
{
	const unsigned char *t;

	*out = NULL;
	if (sqlite3_column_type(s, i) == SQLITE_NULL)
		return 0;
	t = sqlite3_column_text(s, i);
	if (!t)
		return err_nomem();
	*out = util_strdup((const char *)t);
	return *out ? 0 : ERR_NOMEM;
}

static int run_from_row(struct store_run *out, sqlite3_stmt *s)
{
	int ret;

	out->id = sqlite3_column_int64(s, 0);
	out->schema = sqlite3_column_int(s, 8);
	out->num_ranks = sqlite3_column_int64(s, 10);
	out->num_regions = sqlite3_column_int64(s, 11);
	out->num_calls = sqlite3_column_int64(s, 12);
	if ((ret = sqlite_col_text(&out->sha256, s, 1)) ||
	    (ret = sqlite_col_text(&out->source_path, s, 2)) ||
	    (ret = sqlite_col_text(&out->ingested_at, s, 3)) ||
	    (ret = sqlite_col_text(&out->recorded_at, s, 4)) ||
	    (ret = sqlite_col_text(&out->label, s, 5)) ||
	    (ret = sqlite_col_text(&out->commit, s, 6)) ||
	    (ret = sqlite_col_text(&out->branch, s, 7)) ||
	    (ret = sqlite_col_text(&out->layout, s, 9)))
		return ret;
	return 0;
}

/* Append a copy of tag to run->tags, growing the array at powers of two. */
static int run_add_tag(struct store_run *run, const char *tag)
{
	char *copy;

	if (run->ntags == 0 || (run->ntags & (run->ntags - 1)) == 0) {
		size_t n = run->ntags ? 2 * run->ntags : 1;
		char **tags = realloc(run->tags, n * sizeof(*tags));

		if (!tags)
			return err_nomem();
		run->tags = tags;
	}
	copy = util_strdup(tag);
	if (!copy)
		return ERR_NOMEM;
	run->tags[run->ntags++] = copy;
	return 0;
}

struct run_pos {
	int64_t id;
	size_t pos;
};

static int cmp_run_pos(const void *a, const void *b)
{
	int64_t x = ((const struct run_pos *)a)->id, y = ((const struct run_pos *)b)->id;

	return (x > y) - (x < y);
}

/*
 * Attach the tags of all runs[0..n) with one scan of run_tags (in primary
 * key order, so each run's tags arrive sorted), finding each tag's run by
 * binary search over the run ids.
 */
static int attach_tags(struct store_conn *st, struct store_run *runs, size_t n)
{
	sqlite3_stmt *s = NULL;
	struct run_pos *byid = NULL, key, *hit;
	const unsigned char *tag;
	size_t i;
	int rc, ret;

	if (!n)
		return 0;
	byid = malloc(n * sizeof(*byid));
	if (!byid)
		return err_nomem();
	for (i = 0; i < n; i++) {
		byid[i].id = runs[i].id;
		byid[i].pos = i;
	}
	qsort(byid, n, sizeof(*byid), cmp_run_pos);
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
		key.id = sqlite3_column_int64(s, 0);
		hit = bsearch(&key, byid, n, sizeof(*byid), cmp_run_pos);
		if (!hit)
			continue;
		tag = sqlite3_column_text(s, 1);
		if (!tag) {
			ret = err_nomem();
			goto out;
		}
		ret = run_add_tag(&runs[hit->pos], (const char *)tag);
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
	ret = run_from_row(out, s);
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
		if ((ret = util_grow(&out->keys, &kcap, out->n + 1, sizeof(*out->keys), 16)) ||
		    (ret = util_grow(&out->values, &vcap, out->n + 1, sizeof(*out->values), 16)))
			goto out;
		out->keys[out->n] = NULL;
		out->values[out->n] = NULL;
		out->n++;
		if ((ret = sqlite_col_text(&out->keys[out->n - 1], s, 0)) ||
		    (ret = sqlite_col_text(&out->values[out->n - 1], s, 1)))
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
 * *out = id of the back-th newest run of "SELECT id <from>" (?1 = name when
 * from uses it), or 0; *count = how many runs match when there is none.
 * from is one of the constant fragments of sqlite_resolve().
 */
static int resolve_nth(struct store_conn *st, int64_t *out, int64_t *count, const char *from,
		       const char *name, int64_t back)
{
	sqlite3_stmt *s = NULL;
	char sql[512];
	int rc, bad = 0, ret;

	*out = 0;
	*count = 0;
	snprintf(sql, sizeof(sql), "SELECT id %s" NEWEST_FIRST " LIMIT 1 OFFSET ?2", from);
	ret = sqlite_prepare(st, &s, sql, 0, "read");
	if (ret)
		return ret;
	if (name)
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
	return sqlite_query_int(st, count, sql, name, 0);
}

/* "abc" -> "abc*" with GLOB's special characters bracketed, for an indexed
 * prefix search. */
static char *sqlite_glob_prefix(const char *prefix)
{
	struct buf b = BUF_INIT;
	int rc = 0;

	for (; *prefix && !rc; prefix++) {
		if (*prefix == '*' || *prefix == '?' || *prefix == '[')
			rc = buf_printf(&b, "[%c]", *prefix);
		else
			rc = buf_putc(&b, *prefix);
	}
	return buf_finish(&b, rc || buf_putc(&b, '*'));
}

/*
 * commit:PREFIX -> *out = the full commit: the prefix itself when a run has
 * exactly that commit, else the only commit starting with it.  Errors name
 * the prefix, and list the candidates when there are several.
 */
static int resolve_commit(struct store_conn *st, char **out, const char *prefix)
{
	sqlite3_stmt *s = NULL;
	struct buf list = BUF_INIT;
	char *pattern = NULL, *first = NULL;
	int64_t n = 0;
	int rc, exact = 0, ret;

	*out = NULL;
	pattern = sqlite_glob_prefix(prefix);
	if (!pattern)
		return ERR_NOMEM;
	ret = sqlite_prepare(st, &s,
			     "SELECT DISTINCT commit_sha FROM runs WHERE commit_sha GLOB ?1 "
			     "ORDER BY commit_sha LIMIT 6",
			     0, "read");
	if (ret)
		goto out;
	rc = sqlite3_bind_text(s, 1, pattern, -1, SQLITE_STATIC);
	while (sqlite_row(s, &rc)) {
		const char *c = (const char *)sqlite3_column_text(s, 0);

		if (!c) {
			ret = err_nomem();
			goto out;
		}
		if (n < 5 && buf_printf(&list, "%s%s", n ? ", " : "", c)) {
			ret = ERR_NOMEM;
			goto out;
		}
		/* A commit sorts before its extensions: an exact match is first. */
		if (!first) {
			exact = !strcmp(c, prefix);
			first = util_strdup(c);
			if (!first) {
				ret = ERR_NOMEM;
				goto out;
			}
		}
		n++;
	}
	ret = sqlite_rows_end(st, &s, rc);
	if (ret)
		goto out;
	if (n == 0) {
		ret = err_set(ERR_NOTFOUND, "no run has a commit starting with '%s'", prefix);
		goto out;
	}
	if (n > 1 && !exact) {
		ret = err_set(ERR_NOTFOUND, "commit prefix '%s' matches several commits: %s%s",
			      prefix, list.data, n > 5 ? ", ..." : "");
		goto out;
	}
	*out = first;
	first = NULL;
out:
	sqlite3_finalize(s);
	buf_release(&list);
	free(pattern);
	free(first);
	return ret;
}

/*
 * The ancestry step of the selectors naming one run (ID, commit, pin):
 * *out = the back-th run recorded before run id, on its branch when it has
 * one, else among all runs ("commit:X~1" is the run before X, as in git).
 */
static int resolve_before(struct store_conn *st, int64_t *out, int64_t id, int64_t back,
			  const struct select_spec *sel)
{
	struct store_run run;
	char from[256];
	int64_t count = 0;
	int ret;

	*out = 0;
	ret = sqlite_get_run(st, &run, id);
	if (ret)
		return ret;
	snprintf(from, sizeof(from),
		 "FROM runs WHERE (sort_time, id) < (SELECT sort_time, id FROM runs WHERE id = "
		 "%lld)%s",
		 (long long)id, run.branch ? " AND branch = ?1" : "");
	ret = resolve_nth(st, out, &count, from, run.branch, back - 1);
	if (!ret && !*out && count == 0)
		ret = err_set(ERR_NOTFOUND, "no run '%s': run %lld is the first run%s%s", sel->text,
			      (long long)id, run.branch ? " of branch " : " recorded",
			      run.branch ? run.branch : "");
	else if (!ret && !*out)
		ret = err_set(ERR_NOTFOUND,
			      "no run '%s': only %lld run%s recorded before run %lld%s%s",
			      sel->text, (long long)count, count == 1 ? "" : "s", (long long)id,
			      run.branch ? " on branch " : "", run.branch ? run.branch : "");
	store_run_release(&run);
	return ret;
}

int sqlite_hint(struct store_conn *st, struct buf *hint, const char *sql, const char *word)
{
	sqlite3_stmt *s = NULL;
	char **names = NULL;
	size_t n = 0, cap = 0, i;
	int rc, ret;

	ret = sqlite_prepare(st, &s, sql, 0, "read");
	while (!ret && (rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(s, 0);

		if (!name)
			continue;
		if (util_grow(&names, &cap, n + 1, sizeof(*names), 16) ||
		    !(names[n] = util_strdup(name)))
			ret = err_nomem();
		else
			n++;
	}
	if (!ret && rc != SQLITE_DONE)
		ret = sqlite_err(st, rc, "read");
	if (!ret)
		ret = suggest_hint(hint, word, (const char *const *)names, n);
	sqlite3_finalize(s);
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return ret;
}

/* The ERR_NOTFOUND of a pin, tag, branch or label selector naming nothing
 * stored ("no run has tag 'x'"), with the nearest stored name of its kind
 * (what: "tag", "branch", "label"). */
static int resolve_missing(struct store_conn *st, const struct select_spec *sel, const char *what)
{
	const char *sql = sel->kind == SELECT_PIN   ? "SELECT name FROM pins"
			  : sel->kind == SELECT_TAG ? "SELECT DISTINCT tag FROM run_tags"
			  : sel->kind == SELECT_BRANCH
			      ? "SELECT DISTINCT branch FROM runs WHERE branch IS NOT NULL"
			      : "SELECT DISTINCT label FROM runs WHERE label IS NOT NULL";
	struct buf hint = BUF_INIT;
	int ret = sqlite_hint(st, &hint, sql, sel->name);

	if (!ret && sel->kind == SELECT_PIN)
		ret = err_set(ERR_NOTFOUND, "no pin named '%s'%s", sel->name,
			      hint.data ? hint.data : "");
	else if (!ret)
		ret = err_set(ERR_NOTFOUND, "no run has %s '%s'%s", what, sel->name,
			      hint.data ? hint.data : "");
	buf_release(&hint);
	return ret;
}

int sqlite_resolve(struct store_conn *st, int64_t *out, const struct select_spec *sel)
{
	sqlite3_stmt *s = NULL;
	char *commit = NULL;
	int64_t count = 0;
	int rc, ret = 0;

	*out = 0;
	switch (sel->kind) {
	case SELECT_ID:
		ret = sqlite_prepare(st, &s, "SELECT id FROM runs WHERE id = ?1", 0, "read");
		if (ret)
			break;
		rc = sqlite3_bind_int64(s, 1, sel->id);
		if (rc == SQLITE_OK)
			rc = sqlite3_step(s);
		if (rc == SQLITE_ROW)
			*out = sel->id;
		else if (rc == SQLITE_DONE)
			ret = err_set(ERR_NOTFOUND, "no run with id %lld", (long long)sel->id);
		else
			ret = sqlite_err(st, rc, "read");
		break;
	case SELECT_PIN:
		ret = sqlite_prepare(st, &s, "SELECT run_id FROM pins WHERE name = ?1", 0, "read");
		if (ret)
			break;
		rc = sqlite3_bind_text(s, 1, sel->name, -1, SQLITE_STATIC);
		if (rc == SQLITE_OK)
			rc = sqlite3_step(s);
		if (rc == SQLITE_ROW)
			*out = sqlite3_column_int64(s, 0);
		else if (rc == SQLITE_DONE)
			ret = resolve_missing(st, sel, "pin");
		else
			ret = sqlite_err(st, rc, "read");
		break;
	case SELECT_LATEST:
		ret = resolve_nth(st, out, &count, "FROM runs", NULL, sel->back);
		if (!ret && !*out)
			ret = count == 0
				  ? err_set(ERR_NOTFOUND, "no runs stored in '%s'", st->path)
				  : err_set(ERR_NOTFOUND, "no run '%s': only %lld run%s stored",
					    sel->text, (long long)count, count == 1 ? "" : "s");
		break;
	case SELECT_TAG:
	case SELECT_BRANCH:
	case SELECT_LABEL: {
		const char *what = sel->kind == SELECT_TAG	? "tag"
				   : sel->kind == SELECT_BRANCH ? "branch"
								: "label";
		const char *from =
		    sel->kind == SELECT_TAG
			? "FROM runs WHERE id IN (SELECT run_id FROM run_tags WHERE tag = ?1)"
		    : sel->kind == SELECT_BRANCH ? "FROM runs WHERE branch = ?1"
						 : "FROM runs WHERE label = ?1";

		ret = resolve_nth(st, out, &count, from, sel->name, sel->back);
		if (!ret && !*out)
			ret = count == 0
				  ? resolve_missing(st, sel, what)
				  : err_set(ERR_NOTFOUND, "no run '%s': only %lld run%s %s %s '%s'",
					    sel->text, (long long)count, count == 1 ? "" : "s",
					    count == 1 ? "has" : "have", what, sel->name);
		break;
	}
	case SELECT_COMMIT:
		ret = resolve_commit(st, &commit, sel->name);
		if (!ret)
			ret = resolve_nth(st, out, &count, "FROM runs WHERE commit_sha = ?1",
					  commit, 0);
		if (!ret && !*out)
			ret = err_set(ERR_NOTFOUND, "no run has a commit starting with '%s'",
				      sel->name);
		break;
	}
	sqlite3_finalize(s);
	free(commit);
	if (!ret && sel->back > 0 &&
	    (sel->kind == SELECT_ID || sel->kind == SELECT_PIN || sel->kind == SELECT_COMMIT))
		ret = resolve_before(st, out, *out, sel->back, sel);
	return ret;
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
		p = util_push(&pins, &cap, &len, sizeof(*pins));
		if (!p) {
			ret = ERR_NOMEM;
			goto out;
		}
		p->run_id = sqlite3_column_int64(s, 1);
		if ((ret = sqlite_col_text(&p->name, s, 0)) ||
		    (ret = sqlite_col_text(&p->pinned_at, s, 2)))
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
	struct buf b = BUF_INIT;
	char *s;
	size_t i;
	int rc;

	*failed = 0;
	if (!ranks)
		return NULL;
	rc = buf_putc(&b, '[');
	for (i = 0; i < n && !rc; i++)
		rc = buf_printf(&b, "%s%lld", i ? "," : "", (long long)ranks[i]);
	s = buf_finish(&b, rc || buf_putc(&b, ']'));
	*failed = !s;
	return s;
}

/* Fill g's aggregates from the REGION_AGGREGATES columns starting at col. */
int sqlite_keep_region(const char **name, int *keep, sqlite3_stmt *s, int col,
		       store_region_filter filter, void *ctx)
{
	*name = (const char *)sqlite3_column_text(s, col);
	*keep = 1;
	if (!*name)
		return err_nomem();
	return filter ? filter(ctx, keep, *name) : 0;
}

void sqlite_region_stats_from_row(struct store_region_stats *g, sqlite3_stmt *s, int col)
{
	g->has_events = sqlite3_column_int(s, col) != 0;
	g->calls = (uint64_t)sqlite3_column_int64(s, col + 1);
	g->total = sqlite3_column_int64(s, col + 2);
	g->min = sqlite3_column_int64(s, col + 3);
	g->max = sqlite3_column_int64(s, col + 4);
	g->gpu_count = (uint64_t)sqlite3_column_int64(s, col + 5);
	g->gpu_total = sqlite3_column_int64(s, col + 6);
	g->busy_ranks = (uint64_t)sqlite3_column_int64(s, col + 7);
	g->busy_max = sqlite3_column_int64(s, col + 8);
	g->nranks = (uint64_t)sqlite3_column_int64(s, col + 9);
}

/* Fill g's stored p50/p95/p99 from the three columns starting at col
 * (run_regions; all NULL when the region has no per-call data). */
void sqlite_quantiles_from_row(struct store_region_stats *g, sqlite3_stmt *s, int col)
{
	int i;

	g->has_quantiles = 1;
	for (i = 0; i < 3; i++) {
		if (sqlite3_column_type(s, col + i) == SQLITE_NULL)
			g->has_quantiles = 0;
		g->quantiles[i] = sqlite3_column_double(s, col + i);
	}
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

/* Region name order (bytes, as strcmp), for sqlite_region_stats(). */
static int cmp_region_stats(const void *a, const void *b)
{
	return strcmp(((const struct store_region_stats *)a)->name,
		      ((const struct store_region_stats *)b)->name);
}

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
		const char *name;

		ret = sqlite_keep_region(&name, &keep, s, REGION_STATS_NAME_COL, filter, ctx);
		if (ret)
			goto out;
		if (!keep)
			continue;
		g = util_push(&regs, &cap, &len, sizeof(*regs));
		if (!g) {
			ret = ERR_NOMEM;
			goto out;
		}
		g->region_id = sqlite3_column_int64(s, 0);
		sqlite_region_stats_from_row(g, s, 1);
		if (!json)
			sqlite_quantiles_from_row(g, s, REGION_STATS_NAME_COL + 1);
		g->name = util_strdup(name);
		if (!g->name) {
			ret = ERR_NOMEM;
			goto out;
		}
	}
	ret = sqlite_rows_done(st, rc);
out:
	ranks_stmt_end(s, json);
	if (ret) {
		store_region_stats_free(regs, len);
		return ret;
	}
	/* Sorted here rather than by SQL: no temporary b-tree per query. */
	if (len > 1)
		qsort(regs, len, sizeof(*regs), cmp_region_stats);
	*out = regs;
	*n = len;
	return 0;
}

int sqlite_blob_append(struct store_conn *st, struct i64vec *out, sqlite3_stmt *s, int col,
		       int64_t run_id)
{
	const void *data;
	size_t len;

	if (sqlite_col_blob(&data, &len, s, col))
		return ERR_NOMEM;
	if (!blob_decode_append(out, data, len))
		return 0;
	if (err_code() == ERR_NOMEM)
		return ERR_NOMEM;
	return err_set(ERR_STORE, "store '%s' is damaged: call durations of run %lld do not decode",
		       st->path, (long long)run_id);
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
	free(w->glob);
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
	w->vals = malloc((f->ntags + 2 * f->nmeta + 5) * sizeof(*w->vals));
	if (!w->vals)
		return err_nomem();
	for (i = 0; i < f->ntags && !rc; i++)
		rc = run_where_add(w, first,
				   " AND runs.id IN (SELECT run_id FROM run_tags WHERE tag = ",
				   f->tags[i], NULL, NULL, ")");
	if (!rc && f->branch)
		rc = run_where_add(w, first, " AND runs.branch = ", f->branch, NULL, NULL, "");
	if (!rc && f->commit) {
		w->glob = sqlite_glob_prefix(f->commit);
		rc = w->glob ? run_where_add(w, first, " AND runs.commit_sha GLOB ", w->glob, NULL,
					     NULL, "")
			     : ERR_NOMEM;
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
		r = util_push(&runs, &cap, &len, sizeof(*runs));
		ret = r ? run_from_row(r, s) : ERR_NOMEM;
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
