/*
 * write.c - the SQLite backend's writes: the ingest statements, tags,
 * metadata, pins, removal, and the storage side of finishing a run (see
 * sqlite.h).
 *
 * Ingest is the hot path (hundreds of thousands of timings rows in one
 * transaction): the statements it runs per row are prepared once per
 * connection and kept in struct store_conn, and region ids are cached in a
 * small open-addressing hash table, emptied whenever a transaction begins
 * or is rolled back (conn.c).  Every other statement is prepared, used and
 * finalized within one function.
 *
 * Finishing a run (the percentile pipeline is src/store/finish.c): the
 * all-ranks totals are one INSERT ... SELECT over the run's timings rows,
 * and the blobs are scanned in rowid order, the order they were written.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scopedb/err.h"
#include "scopedb/store.h"
#include "scopedb/util.h"
#include "store/sqlite/sqlite.h"

/* ---- region cache ---------------------------------------------------- */

/* FNV-1a; region names are short and few (thousands), this is plenty. */
static uint64_t hash_name(const char *s)
{
	uint64_t h = UINT64_C(0xcbf29ce484222325);

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * UINT64_C(0x100000001b3);
	return h;
}

void sqlite_cache_clear(struct store_conn *st)
{
	size_t i;

	for (i = 0; i < st->nslots; i++)
		free(st->slots[i].name);
	free(st->slots);
	st->slots = NULL;
	st->nslots = 0;
	st->nused = 0;
	st->span_run = 0;
}

static struct region_slot *cache_slot(struct region_slot *slots, size_t nslots, const char *name,
				      uint64_t hash)
{
	size_t i = (size_t)hash & (nslots - 1);

	while (slots[i].name && (slots[i].hash != hash || strcmp(slots[i].name, name) != 0))
		i = (i + 1) & (nslots - 1);
	return &slots[i];
}

static int cache_get(const struct store_conn *st, int64_t *out, const char *name, uint64_t hash)
{
	struct region_slot *e;

	if (!st->nslots)
		return 0;
	e = cache_slot(st->slots, st->nslots, name, hash);
	if (!e->name)
		return 0;
	*out = e->id;
	return 1;
}

/* Add a name known to be absent, doubling the table at half load. */
static int cache_put(struct store_conn *st, const char *name, uint64_t hash, int64_t id)
{
	struct region_slot *e;
	char *copy;

	if (2 * (st->nused + 1) > st->nslots) {
		size_t n = st->nslots ? 2 * st->nslots : 64, i;
		struct region_slot *slots = calloc(n, sizeof(*slots));

		if (!slots)
			return err_nomem();
		for (i = 0; i < st->nslots; i++)
			if (st->slots[i].name)
				*cache_slot(slots, n, st->slots[i].name, st->slots[i].hash) =
				    st->slots[i];
		free(st->slots);
		st->slots = slots;
		st->nslots = n;
	}
	copy = util_strdup(name);
	if (!copy)
		return ERR_NOMEM;
	e = cache_slot(st->slots, st->nslots, name, hash);
	e->name = copy;
	e->hash = hash;
	e->id = id;
	st->nused++;
	return 0;
}

/* ---- writes ---------------------------------------------------------- */

/* Bind s as text, or NULL when s is NULL or "". */
int sqlite_bind_text_or_null(sqlite3_stmt *s, int i, const char *text)
{
	if (!text || !*text)
		return sqlite3_bind_null(s, i);
	return sqlite3_bind_text(s, i, text, -1, SQLITE_STATIC);
}

/* Run a fully bound single-row write statement and finalize it. */
static int sqlite_step_done(struct store_conn *st, sqlite3_stmt *s, int bind_failed)
{
	int ret = sqlite_step_write(st, s, bind_failed);

	sqlite3_finalize(s);
	return ret;
}

/*
 * Finish a row loop that ended with rc: SQLITE_DONE finalizes *s (and sets
 * it to NULL) so the caller can prepare the next statement; anything else
 * is the read error.
 */
int sqlite_rows_end(struct store_conn *st, sqlite3_stmt **s, int rc)
{
	if (rc != SQLITE_DONE)
		return sqlite_rows_done(st, rc);
	sqlite3_finalize(*s);
	*s = NULL;
	return 0;
}

/* 0 when a row loop ended with SQLITE_DONE, else the read error of rc. */
int sqlite_rows_done(struct store_conn *st, int rc)
{
	return rc == SQLITE_DONE ? 0 : sqlite_err(st, rc, "read");
}

/*
 * *s = the statement cached in *slot, prepared (persistent) on first use;
 * the cache lives until the connection closes (sqlite_cache_clear()).
 */
int sqlite_cached(struct store_conn *st, sqlite3_stmt **s, sqlite3_stmt **slot, const char *sql)
{
	int ret = 0;

	if (!*slot)
		ret = sqlite_prepare(st, slot, sql, SQLITE_PREPARE_PERSISTENT, "read");
	*s = *slot;
	return ret;
}

/*
 * One snapshot for several read queries: BEGIN when no transaction is open
 * (*own_txn = 1 then), ended by sqlite_snapshot_end() (ROLLBACK when failed).
 */
int sqlite_snapshot_begin(struct store_conn *st, int *own_txn)
{
	int ret;

	*own_txn = 0;
	if (!sqlite3_get_autocommit(st->db))
		return 0;
	ret = sqlite_exec_retry(st, "BEGIN", "read");
	if (!ret)
		*own_txn = 1;
	return ret;
}

void sqlite_snapshot_end(struct store_conn *st, int own_txn, int failed)
{
	if (own_txn)
		sqlite3_exec(st->db, failed ? "ROLLBACK" : "COMMIT", NULL, NULL, NULL);
}

/* Make a cached (persistent) statement ready for its next use. */
void sqlite_rewind(sqlite3_stmt *s)
{
	if (s) {
		sqlite3_reset(s);
		sqlite3_clear_bindings(s);
	}
}

int sqlite_find_sha(struct store_conn *st, int64_t *out, const char *sha256)
{
	return sqlite_query_int(st, out, "SELECT id FROM runs WHERE sha256 = ?1", sha256, 1);
}

int sqlite_insert_run(struct store_conn *st, int64_t *out, const struct store_run *run)
{
	sqlite3_stmt *s = NULL;
	char now[32];
	int bad = 0, ret;

	*out = 0;
	ret = sqlite_prepare(
	    st, &s,
	    "INSERT INTO runs (sha256, source_path, ingested_at, recorded_at, label, "
	    "commit_sha, branch, schema_version, layout, num_ranks) "
	    "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
	    0, "update");
	if (ret)
		return ret;
	if (!run->ingested_at)
		util_now_iso(now, sizeof(now));
	bad |= sqlite3_bind_text(s, 1, run->sha256, -1, SQLITE_STATIC) != SQLITE_OK;
	bad |= sqlite3_bind_text(s, 2, run->source_path, -1, SQLITE_STATIC) != SQLITE_OK;
	bad |= sqlite3_bind_text(s, 3, run->ingested_at ? run->ingested_at : now, -1,
				 SQLITE_STATIC) != SQLITE_OK;
	bad |= sqlite_bind_text_or_null(s, 4, run->recorded_at) != SQLITE_OK;
	bad |= sqlite_bind_text_or_null(s, 5, run->label) != SQLITE_OK;
	bad |= sqlite_bind_text_or_null(s, 6, run->commit) != SQLITE_OK;
	bad |= sqlite_bind_text_or_null(s, 7, run->branch) != SQLITE_OK;
	bad |= sqlite3_bind_int(s, 8, run->schema) != SQLITE_OK;
	bad |= sqlite3_bind_text(s, 9, run->layout, -1, SQLITE_STATIC) != SQLITE_OK;
	bad |= sqlite3_bind_int64(s, 10, run->num_ranks) != SQLITE_OK;
	ret = sqlite_step_done(st, s, bad);
	if (!ret)
		*out = sqlite3_last_insert_rowid(st->db);
	return ret;
}

int sqlite_set_run_sha(struct store_conn *st, int64_t run_id, const char *sha256)
{
	sqlite3_stmt *s = NULL;
	int bad = 0, ret;

	ret = sqlite_prepare(st, &s, "UPDATE runs SET sha256 = ?2 WHERE id = ?1", 0, "update");
	if (ret)
		return ret;
	bad |= sqlite3_bind_int64(s, 1, run_id) != SQLITE_OK;
	bad |= sqlite3_bind_text(s, 2, sha256, -1, SQLITE_STATIC) != SQLITE_OK;
	ret = sqlite_step_done(st, s, bad);
	if (!ret && sqlite3_changes(st->db) == 0)
		ret = err_set(ERR_NOTFOUND, "cannot update store '%s': no run %lld", st->path,
			      (long long)run_id);
	return ret;
}

int sqlite_add_tag(struct store_conn *st, int *added, int64_t run_id, const char *tag)
{
	sqlite3_stmt *s = NULL;
	int bad = 0, ret;

	if (added)
		*added = 0;
	ret = sqlite_prepare(st, &s, "INSERT OR IGNORE INTO run_tags (run_id, tag) VALUES (?1, ?2)",
			     0, "update");
	if (ret)
		return ret;
	bad |= sqlite3_bind_int64(s, 1, run_id) != SQLITE_OK;
	bad |= sqlite3_bind_text(s, 2, tag, -1, SQLITE_STATIC) != SQLITE_OK;
	ret = sqlite_step_done(st, s, bad);
	if (!ret && added)
		*added = sqlite3_changes(st->db) > 0;
	return ret;
}

int sqlite_set_meta(struct store_conn *st, int64_t run_id, const char *key, const char *value)
{
	sqlite3_stmt *s = NULL;
	int bad = 0, ret;

	ret = sqlite_prepare(st, &s,
			     "INSERT INTO run_metadata (run_id, key, value) VALUES (?1, ?2, ?3) "
			     "ON CONFLICT (run_id, key) DO UPDATE SET value = excluded.value",
			     0, "update");
	if (ret)
		return ret;
	bad |= sqlite3_bind_int64(s, 1, run_id) != SQLITE_OK;
	bad |= sqlite3_bind_text(s, 2, key, -1, SQLITE_STATIC) != SQLITE_OK;
	bad |= sqlite3_bind_text(s, 3, value, -1, SQLITE_STATIC) != SQLITE_OK;
	return sqlite_step_done(st, s, bad);
}

int sqlite_region_id(struct store_conn *st, int64_t *out, const char *name)
{
	uint64_t hash = hash_name(name);
	int64_t id = 0;
	int rc, ret = 0;

	if (cache_get(st, out, name, hash))
		return 0;
	*out = 0;
	if (!st->region_find &&
	    (ret = sqlite_prepare(st, &st->region_find, "SELECT id FROM regions WHERE name = ?1",
				  SQLITE_PREPARE_PERSISTENT, "read")))
		return ret;
	if (!st->region_add &&
	    (ret = sqlite_prepare(st, &st->region_add, "INSERT INTO regions (name) VALUES (?1)",
				  SQLITE_PREPARE_PERSISTENT, "update")))
		return ret;
	rc = sqlite3_bind_text(st->region_find, 1, name, -1, SQLITE_STATIC);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(st->region_find);
	if (rc == SQLITE_ROW) {
		id = sqlite3_column_int64(st->region_find, 0);
	} else if (rc == SQLITE_DONE) {
		rc = sqlite3_bind_text(st->region_add, 1, name, -1, SQLITE_STATIC);
		if (rc == SQLITE_OK)
			rc = sqlite3_step(st->region_add);
		if (rc == SQLITE_DONE)
			id = sqlite3_last_insert_rowid(st->db);
		else
			ret = sqlite_err(st, rc, "update");
		sqlite3_reset(st->region_add);
	} else {
		ret = sqlite_err(st, rc, "read");
	}
	sqlite3_reset(st->region_find);
	if (ret)
		return ret;
	ret = cache_put(st, name, hash, id);
	if (!ret)
		*out = id;
	return ret;
}

/* Cached-statement preparation for sqlite_add_timing(). */
static int prepare_timing(struct store_conn *st)
{
	int ret;

	ret = sqlite_prepare(
	    st, &st->add_timing,
	    "INSERT INTO timings (run_id, region_id, rank, has_events, calls, total_ns, "
	    "min_ns, max_ns, first_ns, last_ns, start_min_ns, end_max_ns, mean_ns, m2, "
	    "exclusive_ns, gpu_count, gpu_total_ns, source_file, source_line, "
	    "source_text, tags) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, "
	    "?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21)",
	    SQLITE_PREPARE_PERSISTENT, "update");
	if (!ret)
		ret = sqlite_prepare(
		    st, &st->add_durations,
		    "INSERT INTO timings_durations (timing_id, data) VALUES (?1, ?2)",
		    SQLITE_PREPARE_PERSISTENT, "update");
	return ret;
}

int sqlite_add_timing(struct store_conn *st, const struct store_timing *t)
{
	sqlite3_stmt *s;
	int bad = 0, ret = 0;

	if (sqlite3_get_autocommit(st->db))
		return err_set(ERR_USAGE, "cannot update store '%s': timings need a transaction",
			       st->path);
	if (t->calls > (uint64_t)INT64_MAX || t->gpu_count > (uint64_t)INT64_MAX)
		return err_set(ERR_USAGE, "cannot update store '%s': call count out of range",
			       st->path);
	if (!st->add_timing && (ret = prepare_timing(st)))
		return ret;
	st->span_run = 0; /* the run's rowid span grows */
	s = st->add_timing;
	bad |= sqlite3_bind_int64(s, 1, t->run_id) != SQLITE_OK;
	bad |= sqlite3_bind_int64(s, 2, t->region_id) != SQLITE_OK;
	bad |= sqlite3_bind_int64(s, 3, t->rank) != SQLITE_OK;
	bad |= sqlite3_bind_int(s, 4, t->has_events ? 1 : 0) != SQLITE_OK;
	bad |= sqlite3_bind_int64(s, 5, (int64_t)t->calls) != SQLITE_OK;
	bad |= sqlite3_bind_int64(s, 6, t->total) != SQLITE_OK;
	bad |= sqlite3_bind_int64(s, 7, t->min) != SQLITE_OK;
	bad |= sqlite3_bind_int64(s, 8, t->max) != SQLITE_OK;
	bad |= sqlite3_bind_int64(s, 9, t->first) != SQLITE_OK;
	bad |= sqlite3_bind_int64(s, 10, t->last) != SQLITE_OK;
	bad |= sqlite3_bind_int64(s, 11, t->start_min) != SQLITE_OK;
	bad |= sqlite3_bind_int64(s, 12, t->end_max) != SQLITE_OK;
	bad |= sqlite3_bind_double(s, 13, t->mean) != SQLITE_OK;
	bad |= sqlite3_bind_double(s, 14, t->m2) != SQLITE_OK;
	bad |= (t->exclusive < 0 ? sqlite3_bind_null(s, 15)
				 : sqlite3_bind_int64(s, 15, t->exclusive)) != SQLITE_OK;
	bad |= sqlite3_bind_int64(s, 16, (int64_t)t->gpu_count) != SQLITE_OK;
	bad |= sqlite3_bind_int64(s, 17, t->gpu_total) != SQLITE_OK;
	bad |= sqlite_bind_text_or_null(s, 18, t->source_file) != SQLITE_OK;
	bad |= (t->source_line < 0 ? sqlite3_bind_null(s, 19)
				   : sqlite3_bind_int64(s, 19, t->source_line)) != SQLITE_OK;
	bad |= sqlite_bind_text_or_null(s, 20, t->source_text) != SQLITE_OK;
	bad |= sqlite_bind_text_or_null(
		   s, 21, t->tags_json && strcmp(t->tags_json, "[]") != 0 ? t->tags_json : NULL) !=
	       SQLITE_OK;
	ret = sqlite_step_write(st, s, bad);
	sqlite3_reset(s);
	if (ret || !t->durations)
		return ret;

	s = st->add_durations;
	bad |= sqlite3_bind_int64(s, 1, sqlite3_last_insert_rowid(st->db)) != SQLITE_OK;
	bad |= sqlite3_bind_blob64(s, 2, t->durations, (sqlite3_uint64)t->durations_len,
				   SQLITE_STATIC) != SQLITE_OK;
	ret = sqlite_step_write(st, s, bad);
	sqlite3_reset(s);
	return ret;
}

int sqlite_pin_set(struct store_conn *st, int64_t *prev, const char *name, int64_t run_id, int keep)
{
	sqlite3_stmt *s = NULL;
	char now[32];
	int rc, bad = 0, ret;

	*prev = 0;
	ret = sqlite_begin(st);
	if (ret)
		return ret;
	ret = sqlite_query_int(st, prev, "SELECT run_id FROM pins WHERE name = ?1", name, 1);
	if (ret || *prev == run_id || (keep && *prev))
		goto out;
	ret = sqlite_prepare(st, &s, "SELECT 1 FROM runs WHERE id = ?1", 0, "read");
	if (ret)
		goto out;
	rc = sqlite3_bind_int64(s, 1, run_id);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(s);
	if (rc == SQLITE_DONE)
		ret = err_set(ERR_NOTFOUND, "no run with id %lld", (long long)run_id);
	else if (rc != SQLITE_ROW)
		ret = sqlite_err(st, rc, "read");
	sqlite3_finalize(s);
	s = NULL;
	if (ret)
		goto out;
	ret = sqlite_prepare(st, &s,
			     "INSERT INTO pins (name, run_id, pinned_at) VALUES (?1, ?2, ?3) "
			     "ON CONFLICT (name) DO UPDATE SET run_id = excluded.run_id, "
			     "pinned_at = excluded.pinned_at",
			     0, "update");
	if (ret)
		goto out;
	util_now_iso(now, sizeof(now));
	bad |= sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC) != SQLITE_OK;
	bad |= sqlite3_bind_int64(s, 2, run_id) != SQLITE_OK;
	bad |= sqlite3_bind_text(s, 3, now, -1, SQLITE_TRANSIENT) != SQLITE_OK;
	ret = sqlite_step_done(st, s, bad);
	s = NULL;
out:
	sqlite3_finalize(s);
	if (ret) {
		sqlite_rollback(st);
		*prev = 0;
		return ret;
	}
	return sqlite_commit(st);
}

int sqlite_pin_remove(struct store_conn *st, int64_t *prev, const char *name)
{
	sqlite3_stmt *s = NULL;
	int rc, ret;

	*prev = 0;
	ret = sqlite_prepare(st, &s, "DELETE FROM pins WHERE name = ?1 RETURNING run_id", 0,
			     "update");
	if (ret)
		return ret;
	rc = sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
	while (sqlite_row(s, &rc)) {
		*prev = sqlite3_column_int64(s, 0);
	}
	if (rc != SQLITE_DONE)
		ret = sqlite_err(st, rc, "update");
	sqlite3_finalize(s);
	if (!ret && *prev == 0) {
		/* a mistyped name: the nearest pin */
		struct buf hint = BUF_INIT;

		ret = sqlite_hint(st, &hint, "SELECT name FROM pins", name);
		if (!ret)
			ret = err_set(ERR_NOTFOUND, "no pin named '%s'%s", name,
				      hint.data ? hint.data : "");
		buf_release(&hint);
	}
	if (ret)
		*prev = 0;
	return ret;
}

int sqlite_remove_tag(struct store_conn *st, int *removed, int64_t run_id, const char *tag)
{
	sqlite3_stmt *s = NULL;
	int bad = 0, ret;

	*removed = 0;
	ret = sqlite_prepare(st, &s, "DELETE FROM run_tags WHERE run_id = ?1 AND tag = ?2", 0,
			     "update");
	if (ret)
		return ret;
	bad |= sqlite3_bind_int64(s, 1, run_id) != SQLITE_OK;
	bad |= sqlite3_bind_text(s, 2, tag, -1, SQLITE_STATIC) != SQLITE_OK;
	ret = sqlite_step_done(st, s, bad);
	if (!ret)
		*removed = sqlite3_changes(st->db) > 0;
	return ret;
}

int sqlite_remove_run(struct store_conn *st, char **unpinned, int64_t run_id, int force)
{
	sqlite3_stmt *s = NULL;
	struct buf names = BUF_INIT;
	int rc, bad = 0, ret;

	*unpinned = NULL;
	if (sqlite3_get_autocommit(st->db))
		return err_set(ERR_USAGE, "internal error: removing a run outside a transaction");
	ret = sqlite_prepare(st, &s, "SELECT name FROM pins WHERE run_id = ?1 ORDER BY name", 0,
			     "read");
	if (ret)
		goto out;
	rc = sqlite3_bind_int64(s, 1, run_id);
	while (sqlite_row(s, &rc)) {
		const char *name = (const char *)sqlite3_column_text(s, 0);

		if (!name || buf_printf(&names, "%s%s", names.len ? ", " : "", name)) {
			ret = err_nomem();
			goto out;
		}
	}
	ret = sqlite_rows_end(st, &s, rc);
	if (ret)
		goto out;
	if (names.len && !force) {
		ret = err_set(ERR_USAGE, "run %lld is pinned as '%s': unpin it or use --force",
			      (long long)run_id, names.data);
		goto out;
	}
	if (names.len) {
		ret = sqlite_prepare(st, &s, "DELETE FROM pins WHERE run_id = ?1", 0, "update");
		if (ret)
			goto out;
		ret = sqlite_step_done(st, s, sqlite3_bind_int64(s, 1, run_id) != SQLITE_OK);
		s = NULL;
		if (ret)
			goto out;
	}
	/* timings, timings_durations, run_tags and run_metadata cascade. */
	ret = sqlite_prepare(st, &s, "DELETE FROM runs WHERE id = ?1", 0, "update");
	if (ret)
		goto out;
	bad = sqlite3_bind_int64(s, 1, run_id) != SQLITE_OK;
	ret = sqlite_step_done(st, s, bad);
	s = NULL;
	if (!ret && sqlite3_changes(st->db) == 0)
		ret = err_set(ERR_NOTFOUND, "no run with id %lld", (long long)run_id);
	if (!ret && names.len)
		*unpinned = buf_detach(&names);
out:
	sqlite3_finalize(s);
	buf_release(&names);
	return ret;
}

/* ---- finishing a run: the storage side of src/store/finish.c ---------- */

/* sqlite_put_region_totals(): pool every rank of each region of run ?1
 * into run_regions (percentiles filled in afterwards).  The rows are read
 * in rowid order ?2..?3 (one run's rows are contiguous) rather than
 * through the (run_id, region_id, rank) index, whose order is not the
 * order of the rows in the file: on the large profile, 262,144 random row
 * lookups that missed the page cache one by one. */
static const char FINISH_TOTALS_SQL[] =
    "INSERT INTO run_regions (run_id, region_id, " RUN_REGIONS_COLUMNS ") "
    "SELECT ?1, region_id, " ALL_RANKS_AGGREGATES " FROM timings "
    "WHERE id BETWEEN ?2 AND ?3 AND +run_id = ?1 GROUP BY region_id";

/* The regions of run ?1 whose percentiles can be computed, with their
 * calls and rows. */
static const char FINISH_EVENTS_SQL[] =
    "SELECT region_id, calls, nranks FROM run_regions "
    "WHERE run_id = ?1 AND has_events AND calls > 0 ORDER BY region_id";

/* The duration blobs of run ?1 in the order they were written (rowid
 * ?2..?3; "+" keeps the planner on the rowid range rather than an index
 * on run_id, which would visit them region by region, all over the file). */
static const char FINISH_BLOBS_SQL[] =
    "SELECT t.region_id, d.data FROM timings AS t "
    "JOIN timings_durations AS d ON d.timing_id = t.id "
    "WHERE t.id BETWEEN ?2 AND ?3 AND +t.run_id = ?1 ORDER BY t.id";

static const char FINISH_QUANTILES_SQL[] =
    "UPDATE run_regions SET p50_ns = ?3, p95_ns = ?4, p99_ns = ?5 "
    "WHERE run_id = ?1 AND region_id = ?2";

static const char FINISH_COUNTS_SQL[] =
    "UPDATE runs SET "
    "num_regions = (SELECT count(*) FROM run_regions WHERE run_id = ?1), "
    "num_calls = (SELECT coalesce(sum(calls), 0) FROM run_regions WHERE run_id = ?1) "
    "WHERE id = ?1";

/* Run a statement of run id ?1 (and, if it has them, rowids ?2..?3) to
 * completion and finalize it. */
static int step_run(struct store_conn *st, sqlite3_stmt *s, int64_t run_id, int64_t lo, int64_t hi)
{
	int rc = sqlite3_bind_int64(s, 1, run_id);

	if (rc == SQLITE_OK && sqlite3_bind_parameter_count(s) == 3) {
		rc = sqlite3_bind_int64(s, 2, lo);
		if (rc == SQLITE_OK)
			rc = sqlite3_bind_int64(s, 3, hi);
	}
	if (rc == SQLITE_OK)
		rc = sqlite3_step(s);
	sqlite3_finalize(s);
	return rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 : sqlite_err(st, rc, "update");
}

/* The first and last timings rowid of run_id (hi < lo when none), cached
 * for the scans that follow sqlite_put_region_totals() in the same
 * transaction (the cache is cleared by every begin, rollback and insert). */
static int finish_rowids(struct store_conn *st, int64_t run_id, int64_t *lo, int64_t *hi)
{
	sqlite3_stmt *s = NULL;
	int rc, ret;

	if (st->span_run == run_id && run_id) {
		*lo = st->span_lo;
		*hi = st->span_hi;
		return 0;
	}
	*lo = 0;
	*hi = -1;
	ret = sqlite_prepare(st, &s, "SELECT min(id), max(id) FROM timings WHERE run_id = ?1", 0,
			     "read");
	if (ret)
		return ret;
	rc = sqlite3_bind_int64(s, 1, run_id);
	if (rc == SQLITE_OK && (rc = sqlite3_step(s)) == SQLITE_ROW) {
		if (sqlite3_column_type(s, 0) != SQLITE_NULL) {
			*lo = sqlite3_column_int64(s, 0);
			*hi = sqlite3_column_int64(s, 1);
		}
	} else {
		ret = sqlite_err(st, rc, "read");
	}
	sqlite3_finalize(s);
	if (!ret && !sqlite3_get_autocommit(st->db)) {
		st->span_run = run_id;
		st->span_lo = *lo;
		st->span_hi = *hi;
	}
	return ret;
}

int sqlite_put_region_totals(struct store_conn *st, int64_t run_id)
{
	static const char *const sql[] = {"DELETE FROM run_regions WHERE run_id = ?1",
					  FINISH_TOTALS_SQL, FINISH_COUNTS_SQL};
	sqlite3_stmt *s = NULL;
	int64_t lo, hi;
	size_t i;
	int ret;

	st->span_run = 0;
	ret = finish_rowids(st, run_id, &lo, &hi);
	for (i = 0; !ret && i < sizeof(sql) / sizeof(sql[0]); i++) {
		ret = sqlite_prepare(st, &s, sql[i], 0, "update");
		if (!ret)
			ret = step_run(st, s, run_id, lo, hi);
	}
	if (!ret && sqlite3_changes(st->db) == 0)
		ret = err_set(ERR_NOTFOUND, "cannot update store '%s': no run %lld", st->path,
			      (long long)run_id);
	return ret;
}

int sqlite_percentile_regions(struct store_conn *st, struct store_region_calls **out, size_t *n,
			      int64_t run_id)
{
	sqlite3_stmt *s = NULL;
	struct store_region_calls *r = NULL, *p;
	size_t len = 0, cap = 0;
	int rc, ret;

	*out = NULL;
	*n = 0;
	ret = sqlite_prepare(st, &s, FINISH_EVENTS_SQL, 0, "read");
	if (ret)
		goto out;
	rc = sqlite3_bind_int64(s, 1, run_id);
	while (sqlite_row(s, &rc)) {
		p = util_push(&r, &cap, &len, sizeof(*r));
		if (!p) {
			ret = ERR_NOMEM;
			goto out;
		}
		p->region_id = sqlite3_column_int64(s, 0);
		p->calls = (uint64_t)sqlite3_column_int64(s, 1);
		p->rows = (uint64_t)sqlite3_column_int64(s, 2);
	}
	ret = sqlite_rows_end(st, &s, rc);
out:
	sqlite3_finalize(s);
	if (ret) {
		free(r);
		return ret;
	}
	*out = r;
	*n = len;
	return 0;
}

int sqlite_scan_blobs(struct store_conn *st, int64_t run_id, store_blob_fn fn, void *ctx)
{
	sqlite3_stmt *s = NULL;
	int64_t lo, hi;
	int rc, bad = 0, ret;

	ret = finish_rowids(st, run_id, &lo, &hi);
	if (!ret)
		ret = sqlite_prepare(st, &s, FINISH_BLOBS_SQL, 0, "read");
	if (ret)
		return ret;
	bad |= sqlite3_bind_int64(s, 1, run_id) != SQLITE_OK;
	bad |= sqlite3_bind_int64(s, 2, lo) != SQLITE_OK;
	bad |= sqlite3_bind_int64(s, 3, hi) != SQLITE_OK;
	rc = bad ? sqlite3_errcode(st->db) : SQLITE_OK;
	while (sqlite_row(s, &rc)) {
		const void *data;
		size_t len;

		ret = sqlite_col_blob(&data, &len, s, 1);
		if (!ret)
			ret = fn(ctx, sqlite3_column_int64(s, 0), data, len);
		if (ret)
			goto out;
	}
	ret = sqlite_rows_end(st, &s, rc);
out:
	sqlite3_finalize(s);
	return ret;
}

int sqlite_put_region_quantiles(struct store_conn *st, int64_t run_id, int64_t region_id,
				const double q[3])
{
	sqlite3_stmt *u;
	int bad, k, rc, ret;

	if (!st->put_quantiles &&
	    (ret = sqlite_prepare(st, &st->put_quantiles, FINISH_QUANTILES_SQL,
				  SQLITE_PREPARE_PERSISTENT, "update")))
		return ret;
	u = st->put_quantiles;
	bad = sqlite3_bind_int64(u, 1, run_id) != SQLITE_OK;
	bad |= sqlite3_bind_int64(u, 2, region_id) != SQLITE_OK;
	for (k = 0; k < 3; k++)
		bad |= sqlite3_bind_double(u, 3 + k, q[k]) != SQLITE_OK;
	rc = bad ? sqlite3_errcode(st->db) : sqlite3_step(u);
	sqlite3_reset(u);
	return rc == SQLITE_DONE ? 0 : sqlite_err(st, rc, "update");
}
