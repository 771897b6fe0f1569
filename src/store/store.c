/*
 * store.c - the SQLite history store (see store.h).
 *
 * store_open() identifies the file (application_id, user_version, whether it
 * is empty), refuses foreign and newer databases, switches new stores to WAL
 * and applies the embedded schema migrations (schema_sql.h), each in its own
 * BEGIN IMMEDIATE transaction that also sets user_version, so that a crash or
 * a concurrent opener never sees half a migration.  The identification is
 * repeated under the write lock because another process may have created or
 * upgraded the store meanwhile.
 *
 * Ingest is the hot path (hundreds of thousands of timings rows in one
 * transaction): the statements it runs per row are prepared once per
 * connection and kept in struct store, and region ids are cached in a small
 * open-addressing hash table.  That cache is emptied whenever a transaction
 * begins or is rolled back, so it never holds ids of rolled-back rows nor of
 * rows another connection may have deleted between our transactions.
 *
 * Every other statement is prepared, used and finalized within one function,
 * except the two per-region queries of diff/check, also cached.
 * Text read from SQLite is always copied (util_strdup) before the statement
 * moves on.
 *
 * The last sections serve diff/check, pins and history: selector
 * resolution, pins, the per-region aggregates of a run over a set of ranks
 * (one GROUP BY query; the rank set is bound as a JSON array for
 * json_each()), and store_finish_run(), which writes each run's all-ranks
 * totals and exact percentiles into run_regions once, at the end of its
 * ingest, so that queries without a rank set read one row per region.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <sqlite3.h>

#include "store/schema_sql.h"
#include "store/blob.h"
#include "scopedb/err.h"
#include "scopedb/stats.h"
#include "scopedb/store.h"
#include "scopedb/util.h"

/* Default time to wait for another process's lock. */
#define STORE_BUSY_MS 30000

/* One region cache entry; name == NULL marks a free slot. */
struct region_slot {
	char *name;
	uint64_t hash;
	int64_t id;
};

struct store {
	sqlite3 *db;
	char *path;
	int readonly;
	int busy_ms;
	/* cached statements of the ingest hot path, prepared on first use */
	sqlite3_stmt *add_timing;
	sqlite3_stmt *add_durations;
	sqlite3_stmt *region_find;
	sqlite3_stmt *region_add;
	/* cached statements of diff/check, run once per side and region */
	sqlite3_stmt *region_stats;	/* with a rank list */
	sqlite3_stmt *region_stats_all; /* all ranks */
	sqlite3_stmt *region_durations;
	/* region name -> id; nslots is 0 or a power of two */
	struct region_slot *slots;
	size_t nslots;
	size_t nused;
};

/* Columns of runs read by run_from_row(), in that order. */
#define RUN_COLUMNS                                                                                \
	"id, sha256, source_path, ingested_at, recorded_at, label, commit_sha, branch, "           \
	"schema_version, layout, num_ranks, num_regions, num_calls"

/* Map SQLite result code rc (the message is in the connection) to an ERR_*
 * code and record "cannot WHAT store 'PATH': REASON". */
static int store_err(const struct store *st, int rc, const char *what)
{
	const char *msg = st->db ? sqlite3_errmsg(st->db) : sqlite3_errstr(rc);

	switch (rc & 0xff) {
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return err_set(
		    ERR_BUSY,
		    "cannot %s store '%s': locked by another process (gave up after %d ms)", what,
		    st->path, st->busy_ms);
	case SQLITE_NOMEM:
		return err_nomem();
	case SQLITE_IOERR:
	case SQLITE_FULL:
	case SQLITE_CANTOPEN:
	case SQLITE_READONLY:
	case SQLITE_PERM:
		return err_set(ERR_IO, "cannot %s store '%s': %s", what, st->path, msg);
	default:
		return err_set(ERR_STORE, "cannot %s store '%s': %s", what, st->path, msg);
	}
}

static int prepare(struct store *st, sqlite3_stmt **out, const char *sql, unsigned flags,
		   const char *what)
{
	int rc = sqlite3_prepare_v3(st->db, sql, -1, flags, out, NULL);

	if (rc != SQLITE_OK) {
		*out = NULL;
		return store_err(st, rc, what);
	}
	return 0;
}

static int64_t monotonic_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/*
 * Run a transaction-control statement, retrying on SQLITE_BUSY until
 * busy_ms have passed.  The busy handler already waits for ordinary locks;
 * the loop covers the cases where SQLite returns BUSY without invoking it
 * (WAL recovery by another connection, snapshot conflicts).
 */
static int exec_retry(struct store *st, const char *sql, const char *what)
{
	int64_t deadline = monotonic_ms() + st->busy_ms;
	struct timespec pause = {0, 10 * 1000 * 1000};
	int rc;

	for (;;) {
		rc = sqlite3_exec(st->db, sql, NULL, NULL, NULL);
		if ((rc & 0xff) != SQLITE_BUSY || monotonic_ms() >= deadline)
			break;
		nanosleep(&pause, NULL);
	}
	return rc == SQLITE_OK ? 0 : store_err(st, rc, what);
}

/* ---- region cache ---------------------------------------------------- */

/* FNV-1a; region names are short and few (thousands), this is plenty. */
static uint64_t hash_name(const char *s)
{
	uint64_t h = UINT64_C(0xcbf29ce484222325);

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * UINT64_C(0x100000001b3);
	return h;
}

static void cache_clear(struct store *st)
{
	size_t i;

	for (i = 0; i < st->nslots; i++)
		free(st->slots[i].name);
	free(st->slots);
	st->slots = NULL;
	st->nslots = 0;
	st->nused = 0;
}

static struct region_slot *cache_slot(struct region_slot *slots, size_t nslots, const char *name,
				      uint64_t hash)
{
	size_t i = (size_t)hash & (nslots - 1);

	while (slots[i].name && (slots[i].hash != hash || strcmp(slots[i].name, name) != 0))
		i = (i + 1) & (nslots - 1);
	return &slots[i];
}

static int cache_get(const struct store *st, int64_t *out, const char *name, uint64_t hash)
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
static int cache_put(struct store *st, const char *name, uint64_t hash, int64_t id)
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

/* ---- open / close / migrations --------------------------------------- */

/* The open failure reason: the OS error behind SQLITE_CANTOPEN when there is
 * one (lowercased strerror), else SQLite's message. */
static void open_reason(char *buf, size_t len, sqlite3 *db, int rc)
{
	int e = db ? sqlite3_system_errno(db) : 0;

	if ((rc & 0xff) == SQLITE_CANTOPEN && e > 0) {
		snprintf(buf, len, "%s", strerror(e));
		if (buf[0] >= 'A' && buf[0] <= 'Z')
			buf[0] = (char)(buf[0] - 'A' + 'a');
	} else {
		snprintf(buf, len, "%s", db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
	}
}

/*
 * Identify the open database: *out = its schema version, 0 for a brand new
 * (empty, unstamped) database.  Fails for a non-SQLite file, an SQLite
 * database of another application, and a store of a newer scopedb.  One
 * statement, so that the three values come from the same snapshot even
 * while another process is creating the store.
 */
static int store_identify(struct store *st, int64_t *out)
{
	sqlite3_stmt *s = NULL;
	int64_t app = 0, version = 0, objects = 0;
	int rc, ret;

	*out = 0;
	ret = prepare(st, &s,
		      "SELECT (SELECT application_id FROM pragma_application_id), "
		      "(SELECT user_version FROM pragma_user_version), "
		      "(SELECT count(*) FROM sqlite_master)",
		      0, "open");
	if (!ret) {
		rc = sqlite3_step(s);
		if (rc == SQLITE_ROW) {
			app = sqlite3_column_int64(s, 0);
			version = sqlite3_column_int64(s, 1);
			objects = sqlite3_column_int64(s, 2);
		} else {
			ret = store_err(st, rc, "open");
		}
	}
	sqlite3_finalize(s);
	if (ret && err_code() == ERR_STORE && sqlite3_errcode(st->db) == SQLITE_NOTADB)
		return err_set(ERR_STORE, "cannot open store '%s': not a scopedb database",
			       st->path);
	if (ret)
		return ret;
	if (app == 0 && version == 0 && objects == 0)
		return 0;
	if (app != STORE_APPLICATION_ID)
		return err_set(ERR_STORE, "cannot open store '%s': not a scopedb database",
			       st->path);
	if (version > schema_sql_count || version < 0)
		return err_set(ERR_STORE,
			       "cannot open store '%s': written by a newer scopedb (schema version "
			       "%lld; this scopedb supports up to %d)",
			       st->path, (long long)version, schema_sql_count);
	*out = version;
	return 0;
}

/*
 * store_identify(), retried on SQLITE_BUSY until busy_ms have passed: while
 * another process switches a new store to WAL or recovers its WAL, readers
 * get BUSY without the busy handler being called.
 */
static int store_identify_retry(struct store *st, int64_t *out)
{
	int64_t deadline = monotonic_ms() + st->busy_ms;
	struct timespec pause = {0, 10 * 1000 * 1000};
	int ret;

	while ((ret = store_identify(st, out)) == ERR_BUSY && monotonic_ms() < deadline)
		nanosleep(&pause, NULL);
	return ret;
}

static int store_finish_all_runs(struct store *st);

/*
 * Apply migration schema_sql[version] (bringing the store to version + 1)
 * inside the caller's transaction, with its data fix-ups, and stamp the
 * application id and the new user_version.
 */
static int store_apply(struct store *st, int64_t version)
{
	char pragma[64];
	int rc, ret;

	rc = sqlite3_exec(st->db, schema_sql[version], NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		return err_set(ERR_STORE,
			       "cannot open store '%s': upgrade to schema version %lld failed: %s",
			       st->path, (long long)version + 1, sqlite3_errmsg(st->db));
	/* Schema 2 adds run_regions: fill it for the runs already stored. */
	if (version + 1 == 2) {
		ret = store_finish_all_runs(st);
		if (ret)
			return ret;
	}
	snprintf(pragma, sizeof(pragma), "PRAGMA application_id = %d", STORE_APPLICATION_ID);
	rc = sqlite3_exec(st->db, pragma, NULL, NULL, NULL);
	if (rc == SQLITE_OK) {
		snprintf(pragma, sizeof(pragma), "PRAGMA user_version = %lld",
			 (long long)version + 1);
		rc = sqlite3_exec(st->db, pragma, NULL, NULL, NULL);
	}
	return rc == SQLITE_OK ? 0 : store_err(st, rc, "open");
}

/*
 * Apply the missing migrations: all of them in one transaction for a new
 * store (so that a store is either empty or complete), one transaction
 * each for an existing one.  Inside the transaction the store is identified
 * again: another process may have created or upgraded it since we looked.
 */
static int store_migrate(struct store *st)
{
	int64_t version;
	int fresh, ret;

	for (;;) {
		ret = exec_retry(st, "BEGIN IMMEDIATE", "open");
		if (ret)
			return ret;
		ret = store_identify(st, &version);
		if (ret)
			goto fail;
		if (version >= schema_sql_count)
			return exec_retry(st, "COMMIT", "open");
		fresh = version == 0;
		do {
			ret = store_apply(st, version++);
			if (ret)
				goto fail;
		} while (fresh && version < schema_sql_count);
		ret = exec_retry(st, "COMMIT", "open");
		if (ret)
			goto fail;
	}
fail:
	if (!sqlite3_get_autocommit(st->db))
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
	return ret;
}

/* Per-connection settings; foreign keys are switched on only after the
 * migrations, which may need to rebuild tables.  An 8 MB page cache: ingest
 * appends megabytes of blobs that are written once, and a larger cache only
 * meant more fresh memory to fault in (issue 6: 32 MB cost 12 % of a medium
 * ingest); readers map the file. */
static int store_configure(struct store *st)
{
	int rc = sqlite3_exec(st->db,
			      "PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL; "
			      "PRAGMA cache_size = -8192; PRAGMA temp_store = MEMORY",
			      NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : store_err(st, rc, "open");
}

int store_open(struct store **out, const char *path, int flags)
{
	struct store *st;
	struct stat sb;
	char reason[256];
	int64_t version;
	int created = 0, rc, ret;

	*out = NULL;
	st = calloc(1, sizeof(*st));
	if (!st)
		return err_nomem();
	st->readonly = (flags & STORE_READONLY) != 0;
	st->busy_ms = STORE_BUSY_MS;
	st->path = util_strdup(path);
	if (!st->path) {
		ret = ERR_NOMEM;
		goto out;
	}
	/* ":memory:" and "" (private temporary) databases have no file */
	created = !st->readonly && *path && strcmp(path, ":memory:") != 0 && stat(path, &sb) != 0 &&
		  errno == ENOENT;
	rc = sqlite3_open_v2(
	    path, &st->db,
	    SQLITE_OPEN_NOMUTEX |
		(st->readonly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE),
	    NULL);
	if (rc != SQLITE_OK) {
		if (!st->db) {
			ret = err_nomem();
			goto out;
		}
		open_reason(reason, sizeof(reason), st->db, rc);
		ret = err_set((rc & 0xff) == SQLITE_CANTOPEN ? ERR_IO : ERR_STORE,
			      "cannot open store '%s': %s", path, reason);
		goto out;
	}
	sqlite3_busy_timeout(st->db, st->busy_ms);
	ret = store_identify_retry(st, &version);
	if (ret)
		goto out;
	if (version < schema_sql_count && st->readonly) {
		struct store *up = NULL;

		if (version == 0) {
			ret = err_set(ERR_STORE, "cannot open store '%s': not a scopedb database",
				      path);
			goto out;
		}
		/* An older store: upgrade it through a writing connection
		 * (when the file allows), then open it as asked. */
		store_close(st);
		st = NULL;
		if (!(flags & STORE_NO_UPGRADE) &&
		    store_open(&up, path, (flags & ~STORE_READONLY) | STORE_NO_UPGRADE) == 0) {
			store_close(up);
			return store_open(out, path, flags | STORE_NO_UPGRADE);
		}
		return err_set(
		    ERR_STORE,
		    "cannot open store '%s': schema version %lld must be upgraded to %d; "
		    "open it for writing once",
		    path, (long long)version, schema_sql_count);
	}
	if (version < schema_sql_count) {
		/* 16 KiB pages for a new store (a no-op on an existing one):
		 * a quarter of the page writes and syscalls of the default
		 * 4 KiB when ingest appends megabytes of durations (issue 6). */
		if (version == 0)
			(void)sqlite3_exec(st->db, "PRAGMA page_size = 16384", NULL, NULL, NULL);
		ret = exec_retry(st, "PRAGMA journal_mode = WAL", "open");
		if (ret)
			goto out;
		ret = store_migrate(st);
		if (ret)
			goto out;
	}
	ret = store_configure(st);
	/* Readers (diff, check, history) map the file instead of pread()ing
	 * every page into freshly allocated cache memory: a p95 diff of two
	 * medium runs reads ~50 MB of duration blobs, and the copies and page
	 * faults were a third of its time (issue 6).  Read-only mapping;
	 * writers keep the default. */
	if (!ret && st->readonly)
		(void)sqlite3_exec(st->db, "PRAGMA mmap_size = 1073741824", NULL, NULL, NULL);
out:
	if (ret) {
		store_close(st);
		/* Do not leave behind an empty file that we created; a busy
		 * store belongs to the process holding the lock. */
		if (created && ret != ERR_BUSY && stat(path, &sb) == 0 && S_ISREG(sb.st_mode) &&
		    sb.st_size == 0)
			unlink(path);
		return ret;
	}
	*out = st;
	return 0;
}

void store_close(struct store *st)
{
	if (!st)
		return;
	if (st->db && !sqlite3_get_autocommit(st->db))
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
	sqlite3_finalize(st->add_timing);
	sqlite3_finalize(st->add_durations);
	sqlite3_finalize(st->region_find);
	sqlite3_finalize(st->region_add);
	sqlite3_finalize(st->region_stats);
	sqlite3_finalize(st->region_stats_all);
	sqlite3_finalize(st->region_durations);
	sqlite3_close(st->db);
	cache_clear(st);
	free(st->path);
	free(st);
}

int store_schema_version(void)
{
	return schema_sql_count;
}

void store_set_busy_timeout(struct store *st, int ms)
{
	st->busy_ms = ms < 0 ? 0 : ms;
	sqlite3_busy_timeout(st->db, st->busy_ms);
}

/* ---- transactions ---------------------------------------------------- */

int store_begin(struct store *st)
{
	if (!sqlite3_get_autocommit(st->db))
		return err_set(ERR_USAGE,
			       "cannot begin a transaction on store '%s': one is already open",
			       st->path);
	cache_clear(st);
	return exec_retry(st, "BEGIN IMMEDIATE", "update");
}

int store_commit(struct store *st)
{
	int ret = exec_retry(st, "COMMIT", "update");

	if (ret)
		store_rollback(st);
	return ret;
}

void store_rollback(struct store *st)
{
	if (!st)
		return;
	if (st->add_timing)
		sqlite3_reset(st->add_timing);
	if (st->add_durations)
		sqlite3_reset(st->add_durations);
	if (st->region_find)
		sqlite3_reset(st->region_find);
	if (st->region_add)
		sqlite3_reset(st->region_add);
	if (!sqlite3_get_autocommit(st->db))
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
	cache_clear(st);
}

/* ---- writes ---------------------------------------------------------- */

/* Bind s as text, or NULL when s is NULL or "". */
static int bind_text_or_null(sqlite3_stmt *s, int i, const char *text)
{
	if (!text || !*text)
		return sqlite3_bind_null(s, i);
	return sqlite3_bind_text(s, i, text, -1, SQLITE_STATIC);
}

/* Run a fully bound single-row write statement and finalize it. */
static int step_done(struct store *st, sqlite3_stmt *s, int bind_failed)
{
	int rc, ret = 0;

	if (bind_failed)
		ret = store_err(st, sqlite3_errcode(st->db), "update");
	else if ((rc = sqlite3_step(s)) != SQLITE_DONE)
		ret = store_err(st, rc, "update");
	sqlite3_finalize(s);
	return ret;
}

int store_find_sha(struct store *st, int64_t *out, const char *sha256)
{
	sqlite3_stmt *s = NULL;
	int rc, ret;

	*out = 0;
	ret = prepare(st, &s, "SELECT id FROM runs WHERE sha256 = ?1", 0, "read");
	if (ret)
		goto out;
	rc = sqlite3_bind_text(s, 1, sha256, -1, SQLITE_STATIC);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		*out = sqlite3_column_int64(s, 0);
	else if (rc != SQLITE_DONE)
		ret = store_err(st, rc, "read");
out:
	sqlite3_finalize(s);
	return ret;
}

int store_insert_run(struct store *st, int64_t *out, const struct store_run *run)
{
	sqlite3_stmt *s = NULL;
	char now[32];
	int bad = 0, ret;

	*out = 0;
	ret = prepare(st, &s,
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
	bad |= bind_text_or_null(s, 4, run->recorded_at) != SQLITE_OK;
	bad |= bind_text_or_null(s, 5, run->label) != SQLITE_OK;
	bad |= bind_text_or_null(s, 6, run->commit) != SQLITE_OK;
	bad |= bind_text_or_null(s, 7, run->branch) != SQLITE_OK;
	bad |= sqlite3_bind_int(s, 8, run->schema) != SQLITE_OK;
	bad |= sqlite3_bind_text(s, 9, run->layout, -1, SQLITE_STATIC) != SQLITE_OK;
	bad |= sqlite3_bind_int64(s, 10, run->num_ranks) != SQLITE_OK;
	ret = step_done(st, s, bad);
	if (!ret)
		*out = sqlite3_last_insert_rowid(st->db);
	return ret;
}

int store_set_run_sha(struct store *st, int64_t run_id, const char *sha256)
{
	sqlite3_stmt *s = NULL;
	int bad = 0, ret;

	ret = prepare(st, &s, "UPDATE runs SET sha256 = ?2 WHERE id = ?1", 0, "update");
	if (ret)
		return ret;
	bad |= sqlite3_bind_int64(s, 1, run_id) != SQLITE_OK;
	bad |= sqlite3_bind_text(s, 2, sha256, -1, SQLITE_STATIC) != SQLITE_OK;
	ret = step_done(st, s, bad);
	if (!ret && sqlite3_changes(st->db) == 0)
		ret = err_set(ERR_NOTFOUND, "cannot update store '%s': no run %lld", st->path,
			      (long long)run_id);
	return ret;
}

int store_add_tag(struct store *st, int *added, int64_t run_id, const char *tag)
{
	sqlite3_stmt *s = NULL;
	int bad = 0, ret;

	if (added)
		*added = 0;
	ret = prepare(st, &s, "INSERT OR IGNORE INTO run_tags (run_id, tag) VALUES (?1, ?2)", 0,
		      "update");
	if (ret)
		return ret;
	bad |= sqlite3_bind_int64(s, 1, run_id) != SQLITE_OK;
	bad |= sqlite3_bind_text(s, 2, tag, -1, SQLITE_STATIC) != SQLITE_OK;
	ret = step_done(st, s, bad);
	if (!ret && added)
		*added = sqlite3_changes(st->db) > 0;
	return ret;
}

int store_set_meta(struct store *st, int64_t run_id, const char *key, const char *value)
{
	sqlite3_stmt *s = NULL;
	int bad = 0, ret;

	ret = prepare(st, &s,
		      "INSERT INTO run_metadata (run_id, key, value) VALUES (?1, ?2, ?3) "
		      "ON CONFLICT (run_id, key) DO UPDATE SET value = excluded.value",
		      0, "update");
	if (ret)
		return ret;
	bad |= sqlite3_bind_int64(s, 1, run_id) != SQLITE_OK;
	bad |= sqlite3_bind_text(s, 2, key, -1, SQLITE_STATIC) != SQLITE_OK;
	bad |= sqlite3_bind_text(s, 3, value, -1, SQLITE_STATIC) != SQLITE_OK;
	return step_done(st, s, bad);
}

int store_region_id(struct store *st, int64_t *out, const char *name)
{
	uint64_t hash = hash_name(name);
	int64_t id = 0;
	int rc, ret = 0;

	if (cache_get(st, out, name, hash))
		return 0;
	*out = 0;
	if (!st->region_find &&
	    (ret = prepare(st, &st->region_find, "SELECT id FROM regions WHERE name = ?1",
			   SQLITE_PREPARE_PERSISTENT, "read")))
		return ret;
	if (!st->region_add &&
	    (ret = prepare(st, &st->region_add, "INSERT INTO regions (name) VALUES (?1)",
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
			ret = store_err(st, rc, "update");
		sqlite3_reset(st->region_add);
	} else {
		ret = store_err(st, rc, "read");
	}
	sqlite3_reset(st->region_find);
	if (ret)
		return ret;
	ret = cache_put(st, name, hash, id);
	if (!ret)
		*out = id;
	return ret;
}

/* Cached-statement preparation for store_add_timing(). */
static int prepare_timing(struct store *st)
{
	int ret;

	ret = prepare(st, &st->add_timing,
		      "INSERT INTO timings (run_id, region_id, rank, has_events, calls, total_ns, "
		      "min_ns, max_ns, first_ns, last_ns, start_min_ns, end_max_ns, mean_ns, m2, "
		      "exclusive_ns, gpu_count, gpu_total_ns, source_file, source_line, "
		      "source_text, tags) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, "
		      "?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21)",
		      SQLITE_PREPARE_PERSISTENT, "update");
	if (!ret)
		ret = prepare(st, &st->add_durations,
			      "INSERT INTO timings_durations (timing_id, data) VALUES (?1, ?2)",
			      SQLITE_PREPARE_PERSISTENT, "update");
	return ret;
}

int store_add_timing(struct store *st, const struct store_timing *t)
{
	sqlite3_stmt *s;
	int bad = 0, rc, ret = 0;

	if (sqlite3_get_autocommit(st->db))
		return err_set(ERR_USAGE, "cannot update store '%s': timings need a transaction",
			       st->path);
	if (t->calls > (uint64_t)INT64_MAX || t->gpu_count > (uint64_t)INT64_MAX)
		return err_set(ERR_USAGE, "cannot update store '%s': call count out of range",
			       st->path);
	if (!st->add_timing && (ret = prepare_timing(st)))
		return ret;
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
	bad |= bind_text_or_null(s, 18, t->source_file) != SQLITE_OK;
	bad |= (t->source_line < 0 ? sqlite3_bind_null(s, 19)
				   : sqlite3_bind_int64(s, 19, t->source_line)) != SQLITE_OK;
	bad |= bind_text_or_null(s, 20, t->source_text) != SQLITE_OK;
	bad |= bind_text_or_null(
		   s, 21, t->tags_json && strcmp(t->tags_json, "[]") != 0 ? t->tags_json : NULL) !=
	       SQLITE_OK;
	if (bad)
		ret = store_err(st, sqlite3_errcode(st->db), "update");
	else if ((rc = sqlite3_step(s)) != SQLITE_DONE)
		ret = store_err(st, rc, "update");
	sqlite3_reset(s);
	if (ret || !t->durations)
		return ret;

	s = st->add_durations;
	bad |= sqlite3_bind_int64(s, 1, sqlite3_last_insert_rowid(st->db)) != SQLITE_OK;
	bad |= sqlite3_bind_blob64(s, 2, t->durations, (sqlite3_uint64)t->durations_len,
				   SQLITE_STATIC) != SQLITE_OK;
	if (bad)
		ret = store_err(st, sqlite3_errcode(st->db), "update");
	else if ((rc = sqlite3_step(s)) != SQLITE_DONE)
		ret = store_err(st, rc, "update");
	sqlite3_reset(s);
	return ret;
}

/* ---- reads ----------------------------------------------------------- */

/* Copy text column i (NULL stays NULL). */
static int col_text(char **out, sqlite3_stmt *s, int i)
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

void store_run_release(struct store_run *run)
{
	size_t i;

	if (!run)
		return;
	free(run->sha256);
	free(run->source_path);
	free(run->ingested_at);
	free(run->recorded_at);
	free(run->label);
	free(run->commit);
	free(run->branch);
	free(run->layout);
	for (i = 0; i < run->ntags; i++)
		free(run->tags[i]);
	free(run->tags);
	memset(run, 0, sizeof(*run));
}

void store_runs_free(struct store_run *runs, size_t n)
{
	size_t i;

	if (!runs)
		return;
	for (i = 0; i < n; i++)
		store_run_release(&runs[i]);
	free(runs);
}

/* Fill *out (zeroed by the caller) from a row of RUN_COLUMNS. */
static int run_from_row(struct store_run *out, sqlite3_stmt *s)
{
	int ret;

	out->id = sqlite3_column_int64(s, 0);
	out->schema = sqlite3_column_int(s, 8);
	out->num_ranks = sqlite3_column_int64(s, 10);
	out->num_regions = sqlite3_column_int64(s, 11);
	out->num_calls = sqlite3_column_int64(s, 12);
	if ((ret = col_text(&out->sha256, s, 1)) || (ret = col_text(&out->source_path, s, 2)) ||
	    (ret = col_text(&out->ingested_at, s, 3)) ||
	    (ret = col_text(&out->recorded_at, s, 4)) || (ret = col_text(&out->label, s, 5)) ||
	    (ret = col_text(&out->commit, s, 6)) || (ret = col_text(&out->branch, s, 7)) ||
	    (ret = col_text(&out->layout, s, 9)))
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
static int attach_tags(struct store *st, struct store_run *runs, size_t n)
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
	ret = prepare(st, &s, "SELECT run_id, tag FROM run_tags ORDER BY run_id, tag", 0, "read");
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
	if (rc != SQLITE_DONE)
		ret = store_err(st, rc, "read");
out:
	sqlite3_finalize(s);
	free(byid);
	return ret;
}

int store_list_runs(struct store *st, struct store_run **out, size_t *n)
{
	return store_find_runs(st, out, n, NULL);
}

int store_get_run(struct store *st, struct store_run *out, int64_t id)
{
	sqlite3_stmt *s = NULL;
	int rc, ret;

	memset(out, 0, sizeof(*out));
	ret = prepare(st, &s, "SELECT " RUN_COLUMNS " FROM runs WHERE id = ?1", 0, "read");
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
		ret = store_err(st, rc, "read");
		goto out;
	}
	ret = run_from_row(out, s);
	if (ret)
		goto out;
	sqlite3_finalize(s);
	ret = prepare(st, &s, "SELECT tag FROM run_tags WHERE run_id = ?1 ORDER BY tag", 0, "read");
	if (ret)
		goto out;
	rc = sqlite3_bind_int64(s, 1, id);
	while (rc == SQLITE_OK && (rc = sqlite3_step(s)) == SQLITE_ROW) {
		const unsigned char *tag = sqlite3_column_text(s, 0);

		if (!tag) {
			ret = err_nomem();
			goto out;
		}
		ret = run_add_tag(out, (const char *)tag);
		if (ret)
			goto out;
		rc = SQLITE_OK;
	}
	if (rc != SQLITE_DONE)
		ret = store_err(st, rc, "read");
out:
	sqlite3_finalize(s);
	if (ret)
		store_run_release(out);
	return ret;
}

void store_meta_release(struct store_meta *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->n; i++) {
		free(m->keys[i]);
		free(m->values[i]);
	}
	free(m->keys);
	free(m->values);
	memset(m, 0, sizeof(*m));
}

int store_get_meta(struct store *st, struct store_meta *out, int64_t run_id)
{
	sqlite3_stmt *s = NULL;
	size_t cap = 0;
	int rc, ret;

	memset(out, 0, sizeof(*out));
	ret = prepare(st, &s, "SELECT key, value FROM run_metadata WHERE run_id = ?1 ORDER BY key",
		      0, "read");
	if (ret)
		goto out;
	rc = sqlite3_bind_int64(s, 1, run_id);
	while (rc == SQLITE_OK && (rc = sqlite3_step(s)) == SQLITE_ROW) {
		if (out->n == cap) {
			char **keys, **values;

			cap = cap ? 2 * cap : 16;
			keys = realloc(out->keys, cap * sizeof(*keys));
			if (keys)
				out->keys = keys;
			values = keys ? realloc(out->values, cap * sizeof(*values)) : NULL;
			if (!values) {
				ret = err_nomem();
				goto out;
			}
			out->values = values;
		}
		out->keys[out->n] = NULL;
		out->values[out->n] = NULL;
		out->n++;
		if ((ret = col_text(&out->keys[out->n - 1], s, 0)) ||
		    (ret = col_text(&out->values[out->n - 1], s, 1)))
			goto out;
		rc = SQLITE_OK;
	}
	if (rc != SQLITE_DONE)
		ret = store_err(st, rc, "read");
out:
	sqlite3_finalize(s);
	if (ret)
		store_meta_release(out);
	return ret;
}

/* ---- selectors, pins and comparisons ---------------------------------- */

/* The ORDER BY of every "newest first" selector (store.h, select.h). */
#define NEWEST_FIRST " ORDER BY sort_time DESC, id DESC"

/*
 * *out = id of the back-th newest run of "SELECT id <from>" (?1 = name when
 * from uses it), or 0; *count = how many runs match when there is none.
 * from is one of the constant fragments of store_resolve().
 */
static int resolve_nth(struct store *st, int64_t *out, int64_t *count, const char *from,
		       const char *name, int64_t back)
{
	sqlite3_stmt *s = NULL;
	char sql[512];
	int rc, bad = 0, ret;

	*out = 0;
	*count = 0;
	snprintf(sql, sizeof(sql), "SELECT id %s" NEWEST_FIRST " LIMIT 1 OFFSET ?2", from);
	ret = prepare(st, &s, sql, 0, "read");
	if (ret)
		return ret;
	if (name)
		bad |= sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC) != SQLITE_OK;
	bad |= sqlite3_bind_int64(s, 2, back) != SQLITE_OK;
	rc = bad ? sqlite3_errcode(st->db) : sqlite3_step(s);
	if (rc == SQLITE_ROW)
		*out = sqlite3_column_int64(s, 0);
	else if (rc != SQLITE_DONE)
		ret = store_err(st, rc, "read");
	sqlite3_finalize(s);
	if (ret || *out)
		return ret;
	snprintf(sql, sizeof(sql), "SELECT count(*) %s", from);
	ret = prepare(st, &s, sql, 0, "read");
	if (ret)
		return ret;
	rc = name ? sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC) : SQLITE_OK;
	if (rc == SQLITE_OK)
		rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		*count = sqlite3_column_int64(s, 0);
	else
		ret = store_err(st, rc, "read");
	sqlite3_finalize(s);
	return ret;
}

/* "abc" -> "abc*" with GLOB's special characters bracketed, for an indexed
 * prefix search. */
static char *glob_prefix(const char *prefix)
{
	struct buf b = BUF_INIT;
	int rc = 0;

	for (; *prefix && !rc; prefix++) {
		if (*prefix == '*' || *prefix == '?' || *prefix == '[')
			rc = buf_printf(&b, "[%c]", *prefix);
		else
			rc = buf_putc(&b, *prefix);
	}
	if (!rc)
		rc = buf_putc(&b, '*');
	if (rc) {
		buf_release(&b);
		return NULL;
	}
	return buf_detach(&b);
}

/*
 * commit:PREFIX -> *out = the full commit: the prefix itself when a run has
 * exactly that commit, else the only commit starting with it.  Errors name
 * the prefix, and list the candidates when there are several.
 */
static int resolve_commit(struct store *st, char **out, const char *prefix)
{
	sqlite3_stmt *s = NULL;
	struct buf list = BUF_INIT;
	char *pattern = NULL, *first = NULL;
	int64_t n = 0;
	int rc, exact = 0, ret;

	*out = NULL;
	pattern = glob_prefix(prefix);
	if (!pattern)
		return ERR_NOMEM;
	ret = prepare(st, &s,
		      "SELECT DISTINCT commit_sha FROM runs WHERE commit_sha GLOB ?1 "
		      "ORDER BY commit_sha LIMIT 6",
		      0, "read");
	if (ret)
		goto out;
	rc = sqlite3_bind_text(s, 1, pattern, -1, SQLITE_STATIC);
	while (rc == SQLITE_OK && (rc = sqlite3_step(s)) == SQLITE_ROW) {
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
		rc = SQLITE_OK;
	}
	if (rc != SQLITE_DONE) {
		ret = store_err(st, rc, "read");
		goto out;
	}
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

int store_resolve(struct store *st, int64_t *out, const struct select_spec *sel)
{
	sqlite3_stmt *s = NULL;
	char *commit = NULL;
	int64_t count = 0;
	int rc, ret = 0;

	*out = 0;
	switch (sel->kind) {
	case SELECT_ID:
		ret = prepare(st, &s, "SELECT id FROM runs WHERE id = ?1", 0, "read");
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
			ret = store_err(st, rc, "read");
		break;
	case SELECT_PIN:
		ret = prepare(st, &s, "SELECT run_id FROM pins WHERE name = ?1", 0, "read");
		if (ret)
			break;
		rc = sqlite3_bind_text(s, 1, sel->name, -1, SQLITE_STATIC);
		if (rc == SQLITE_OK)
			rc = sqlite3_step(s);
		if (rc == SQLITE_ROW)
			*out = sqlite3_column_int64(s, 0);
		else if (rc == SQLITE_DONE)
			ret = err_set(ERR_NOTFOUND, "no pin named '%s'", sel->name);
		else
			ret = store_err(st, rc, "read");
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
				  ? err_set(ERR_NOTFOUND, "no run has %s '%s'", what, sel->name)
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
	return ret;
}

int store_pin_set(struct store *st, int64_t *prev, const char *name, int64_t run_id)
{
	sqlite3_stmt *s = NULL;
	char now[32];
	int rc, bad = 0, ret;

	*prev = 0;
	ret = store_begin(st);
	if (ret)
		return ret;
	ret = prepare(st, &s, "SELECT run_id FROM pins WHERE name = ?1", 0, "read");
	if (ret)
		goto out;
	rc = sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		*prev = sqlite3_column_int64(s, 0);
	else if (rc != SQLITE_DONE)
		ret = store_err(st, rc, "read");
	sqlite3_finalize(s);
	s = NULL;
	if (ret || *prev == run_id)
		goto out;
	ret = prepare(st, &s, "SELECT 1 FROM runs WHERE id = ?1", 0, "read");
	if (ret)
		goto out;
	rc = sqlite3_bind_int64(s, 1, run_id);
	if (rc == SQLITE_OK)
		rc = sqlite3_step(s);
	if (rc == SQLITE_DONE)
		ret = err_set(ERR_NOTFOUND, "no run with id %lld", (long long)run_id);
	else if (rc != SQLITE_ROW)
		ret = store_err(st, rc, "read");
	sqlite3_finalize(s);
	s = NULL;
	if (ret)
		goto out;
	ret = prepare(st, &s,
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
	ret = step_done(st, s, bad);
	s = NULL;
out:
	sqlite3_finalize(s);
	if (ret) {
		store_rollback(st);
		*prev = 0;
		return ret;
	}
	return store_commit(st);
}

int store_pin_remove(struct store *st, int64_t *prev, const char *name)
{
	sqlite3_stmt *s = NULL;
	int rc, ret;

	*prev = 0;
	ret = prepare(st, &s, "DELETE FROM pins WHERE name = ?1 RETURNING run_id", 0, "update");
	if (ret)
		return ret;
	rc = sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
	while (rc == SQLITE_OK && (rc = sqlite3_step(s)) == SQLITE_ROW) {
		*prev = sqlite3_column_int64(s, 0);
		rc = SQLITE_OK;
	}
	if (rc != SQLITE_DONE)
		ret = store_err(st, rc, "update");
	else if (*prev == 0)
		ret = err_set(ERR_NOTFOUND, "no pin named '%s'", name);
	sqlite3_finalize(s);
	if (ret)
		*prev = 0;
	return ret;
}

void store_pins_free(struct store_pin *pins, size_t n)
{
	size_t i;

	if (!pins)
		return;
	for (i = 0; i < n; i++) {
		free(pins[i].name);
		free(pins[i].pinned_at);
	}
	free(pins);
}

int store_list_pins(struct store *st, struct store_pin **out, size_t *n)
{
	sqlite3_stmt *s = NULL;
	struct store_pin *pins = NULL, *grown;
	size_t len = 0, cap = 0;
	int rc, ret;

	*out = NULL;
	*n = 0;
	ret = prepare(st, &s, "SELECT name, run_id, pinned_at FROM pins ORDER BY name", 0, "read");
	if (ret)
		return ret;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		if (len == cap) {
			cap = cap ? 2 * cap : 8;
			grown = realloc(pins, cap * sizeof(*pins));
			if (!grown) {
				ret = err_nomem();
				goto out;
			}
			pins = grown;
		}
		memset(&pins[len], 0, sizeof(*pins));
		pins[len].run_id = sqlite3_column_int64(s, 1);
		len++;
		if ((ret = col_text(&pins[len - 1].name, s, 0)) ||
		    (ret = col_text(&pins[len - 1].pinned_at, s, 2)))
			goto out;
	}
	if (rc != SQLITE_DONE)
		ret = store_err(st, rc, "read");
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

int store_read_begin(struct store *st, int *started)
{
	int ret;

	*started = 0;
	if (!sqlite3_get_autocommit(st->db))
		return 0;
	ret = exec_retry(st, "BEGIN", "read");
	*started = ret == 0;
	return ret;
}

void store_read_end(struct store *st)
{
	if (st && st->db && !sqlite3_get_autocommit(st->db))
		sqlite3_exec(st->db, "COMMIT", NULL, NULL, NULL);
}

/* ranks[0..n) as the JSON array bound for json_each(), or NULL (all ranks)
 * when ranks is NULL.  *failed = 1 on allocation failure. */
static char *ranks_json(const int64_t *ranks, size_t n, int *failed)
{
	struct buf b = BUF_INIT;
	size_t i;
	int rc;

	*failed = 0;
	if (!ranks)
		return NULL;
	rc = buf_putc(&b, '[');
	for (i = 0; i < n && !rc; i++)
		rc = buf_printf(&b, "%s%lld", i ? "," : "", (long long)ranks[i]);
	if (!rc)
		rc = buf_putc(&b, ']');
	if (rc) {
		buf_release(&b);
		*failed = 1;
		return NULL;
	}
	return buf_detach(&b);
}

/*
 * The pooled aggregates of one region over rows t of a subquery that has a
 * boolean column sel ("the row's rank is selected"), shared by
 * store_region_stats() and store_region_history() so that diff, check,
 * show and history pool identically; read back by region_stats_from_row().
 */
#define REGION_AGGREGATES                                                                          \
	"min(t.has_events), "                                                                      \
	"sum(CASE WHEN t.sel THEN t.calls ELSE 0 END), "                                           \
	"sum(CASE WHEN t.sel THEN t.total_ns ELSE 0 END), "                                        \
	"min(CASE WHEN t.sel AND t.calls > 0 THEN t.min_ns END), "                                 \
	"max(CASE WHEN t.sel AND t.calls > 0 THEN t.max_ns END), "                                 \
	"sum(CASE WHEN t.sel THEN t.gpu_count ELSE 0 END), "                                       \
	"sum(CASE WHEN t.sel THEN t.gpu_total_ns ELSE 0 END), "                                    \
	"sum(CASE WHEN t.sel AND t.total_ns > 0 THEN 1 ELSE 0 END), "                              \
	"max(CASE WHEN t.sel AND t.total_ns > 0 THEN t.total_ns END), "                            \
	"sum(CASE WHEN t.sel THEN 1 ELSE 0 END)"
#define REGION_AGGREGATE_COLUMNS 10

/* Fill g's aggregates from the REGION_AGGREGATES columns starting at col. */
static void region_stats_from_row(struct store_region_stats *g, sqlite3_stmt *s, int col)
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
static void quantiles_from_row(struct store_region_stats *g, sqlite3_stmt *s, int col)
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
 * store_region_stats(): one row per region of run ?1, pooled over the ranks
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

/*
 * The same over all ranks, without the per-row rank test: what
 * store_finish_run() writes into run_regions once per run (issue 6: a
 * medium run has 16,384 timings rows but 256 regions).
 */
#define ALL_RANKS_AGGREGATES                                                                       \
	"min(has_events), sum(calls), sum(total_ns), "                                             \
	"min(CASE WHEN calls > 0 THEN min_ns END), max(CASE WHEN calls > 0 THEN max_ns END), "     \
	"sum(gpu_count), sum(gpu_total_ns), sum(total_ns > 0), "                                   \
	"max(CASE WHEN total_ns > 0 THEN total_ns END), count(*)"

/* The REGION_AGGREGATES columns as stored in run_regions. */
#define RUN_REGIONS_COLUMNS                                                                        \
	"has_events, calls, total_ns, min_ns, max_ns, gpu_count, gpu_total_ns, busy_ranks, "       \
	"busy_max_ns, nranks"

/* The all-ranks variant of REGION_STATS_SQL: read back from run_regions,
 * with the stored p50/p95/p99 after the name. */
static const char REGION_STATS_ALL_SQL[] =
    "SELECT g.region_id, " RUN_REGIONS_COLUMNS ", r.name, g.p50_ns, g.p95_ns, g.p99_ns "
    "FROM run_regions AS g JOIN regions AS r ON r.id = g.region_id WHERE g.run_id = ?1";

/* Column of the region name in both queries above. */
#define REGION_STATS_NAME_COL (1 + REGION_AGGREGATE_COLUMNS)

/* store_region_durations(): the duration blobs of region ?2 of run ?1 on the
 * ranks of the JSON list ?3 (NULL = all). */
static const char REGION_DURATIONS_SQL[] =
    "SELECT d.data FROM timings AS t JOIN timings_durations AS d ON d.timing_id = t.id "
    "WHERE t.run_id = ?1 AND t.region_id = ?2 "
    "AND (?3 IS NULL OR t.rank IN (SELECT value FROM json_each(?3)))";

/* Region name order (bytes, as strcmp), for store_region_stats(). */
static int cmp_region_stats(const void *a, const void *b)
{
	return strcmp(((const struct store_region_stats *)a)->name,
		      ((const struct store_region_stats *)b)->name);
}

void store_region_stats_free(struct store_region_stats *regs, size_t n)
{
	size_t i;

	if (!regs)
		return;
	for (i = 0; i < n; i++)
		free(regs[i].name);
	free(regs);
}

int store_region_stats(struct store *st, struct store_region_stats **out, size_t *n, int64_t run_id,
		       const int64_t *ranks, size_t nranks, store_region_filter filter, void *ctx)
{
	sqlite3_stmt *s;
	struct store_region_stats *regs = NULL, *grown, *g;
	size_t len = 0, cap = 0;
	char *json;
	int rc, bad = 0, failed, keep, ret = 0;

	*out = NULL;
	*n = 0;
	json = ranks_json(ranks, nranks, &failed);
	if (failed)
		return err_nomem();
	if (json) {
		if (!st->region_stats)
			ret = prepare(st, &st->region_stats, REGION_STATS_SQL,
				      SQLITE_PREPARE_PERSISTENT, "read");
		s = st->region_stats;
	} else {
		if (!st->region_stats_all)
			ret = prepare(st, &st->region_stats_all, REGION_STATS_ALL_SQL,
				      SQLITE_PREPARE_PERSISTENT, "read");
		s = st->region_stats_all;
	}
	if (ret)
		goto out;
	bad |= sqlite3_bind_int64(s, 1, run_id) != SQLITE_OK;
	if (json)
		bad |= sqlite3_bind_text(s, 2, json, -1, SQLITE_STATIC) != SQLITE_OK;
	if (bad) {
		ret = store_err(st, sqlite3_errcode(st->db), "read");
		goto out;
	}
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(s, REGION_STATS_NAME_COL);

		if (!name) {
			ret = err_nomem();
			goto out;
		}
		keep = 1;
		if (filter && (ret = filter(ctx, &keep, name)))
			goto out;
		if (!keep)
			continue;
		if (len == cap) {
			cap = cap ? 2 * cap : 16;
			grown = realloc(regs, cap * sizeof(*regs));
			if (!grown) {
				ret = err_nomem();
				goto out;
			}
			regs = grown;
		}
		g = &regs[len++];
		memset(g, 0, sizeof(*g));
		g->region_id = sqlite3_column_int64(s, 0);
		region_stats_from_row(g, s, 1);
		if (!json)
			quantiles_from_row(g, s, REGION_STATS_NAME_COL + 1);
		g->name = util_strdup(name);
		if (!g->name) {
			ret = ERR_NOMEM;
			goto out;
		}
	}
	if (rc != SQLITE_DONE)
		ret = store_err(st, rc, "read");
out:
	if (s) {
		sqlite3_reset(s);
		sqlite3_clear_bindings(s);
	}
	free(json);
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

/*
 * The blobs of one region of run_id on the selected ranks, decoded and
 * appended to out; with ends, the end offset in out of each row is pushed
 * to ends (each row sorted, the rows not merged), else the appended values
 * are sorted together.
 */
static int region_durations(struct store *st, struct i64vec *out, struct i64vec *ends,
			    int64_t run_id, int64_t region_id, const int64_t *ranks, size_t nranks)
{
	sqlite3_stmt *s;
	size_t start = out->len, ends_start = ends ? ends->len : 0;
	char *json;
	int rc, bad = 0, failed, ret = 0;

	json = ranks_json(ranks, nranks, &failed);
	if (failed)
		return err_nomem();
	if (!st->region_durations)
		ret = prepare(st, &st->region_durations, REGION_DURATIONS_SQL,
			      SQLITE_PREPARE_PERSISTENT, "read");
	s = st->region_durations;
	if (ret)
		goto out;
	bad |= sqlite3_bind_int64(s, 1, run_id) != SQLITE_OK;
	bad |= sqlite3_bind_int64(s, 2, region_id) != SQLITE_OK;
	bad |= (json ? sqlite3_bind_text(s, 3, json, -1, SQLITE_STATIC)
		     : sqlite3_bind_null(s, 3)) != SQLITE_OK;
	if (bad) {
		ret = store_err(st, sqlite3_errcode(st->db), "read");
		goto out;
	}
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		const void *data = sqlite3_column_blob(s, 0);
		int len = sqlite3_column_bytes(s, 0);

		if (!data && len > 0) {
			ret = err_nomem();
			goto out;
		}
		if (blob_decode_append(out, data, (size_t)len)) {
			if (err_code() == ERR_NOMEM) {
				ret = ERR_NOMEM;
				goto out;
			}
			ret = err_set(ERR_STORE,
				      "store '%s' is damaged: call durations of run %lld do not "
				      "decode",
				      st->path, (long long)run_id);
			goto out;
		}
		if (ends && (ret = i64vec_push(ends, (int64_t)out->len)))
			goto out;
	}
	if (rc != SQLITE_DONE)
		ret = store_err(st, rc, "read");
out:
	if (s) {
		sqlite3_reset(s);
		sqlite3_clear_bindings(s);
	}
	free(json);
	if (ret) {
		out->len = start;
		if (ends)
			ends->len = ends_start;
	} else if (!ends) {
		util_sort_i64(out->v + start, out->len - start);
	}
	return ret;
}

int store_region_durations(struct store *st, struct i64vec *out, int64_t run_id, int64_t region_id,
			   const int64_t *ranks, size_t nranks)
{
	return region_durations(st, out, NULL, run_id, region_id, ranks, nranks);
}

int store_region_duration_runs(struct store *st, struct i64vec *out, struct i64vec *ends,
			       int64_t run_id, int64_t region_id, const int64_t *ranks,
			       size_t nranks)
{
	return region_durations(st, out, ends, run_id, region_id, ranks, nranks);
}

/* store_finish_run(): pool every rank of each region of run ?1 into
 * run_regions (percentiles filled in afterwards).  The rows are read in
 * rowid order ?2..?3 (one run's rows are contiguous) rather than through
 * the (run_id, region_id, rank) index, whose order is not the order of the
 * rows in the file: on the large profile, 262,144 random row lookups that
 * missed the page cache one by one. */
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

/* Encoded blobs held at once by store_finish_run(). */
#define FINISH_SPOOL_BYTES ((size_t)128 << 20)

/* The spool size in use (testing hook: store_set_spool_bytes()). */
static size_t finish_spool = FINISH_SPOOL_BYTES;

void store_set_spool_bytes(size_t n)
{
	finish_spool = n ? n : FINISH_SPOOL_BYTES;
}

/* One region of store_finish_run(). */
struct finish_region {
	int64_t id;
	size_t calls, rows; /* from run_regions */
	size_t first, nrec; /* its blobs in the batch (finish_group()) */
};

/* One blob copied into the spool by finish_scan(). */
struct finish_rec {
	size_t off;	 /* in the spool */
	uint32_t len;	 /* bytes */
	uint32_t region; /* index in the batch */
};

/* The blobs of one batch of regions, in the order they were read. */
struct finish_batch {
	struct finish_region *r; /* the batch's regions, sorted by id */
	size_t n;
	char *spool; /* finish_spool bytes of scratch memory */
	size_t used;
	struct finish_rec *recs;
	size_t nrecs, caprecs;
	uint64_t values; /* durations in the spool */
};

/* finish_scan(): the batch does not fit in the spool. */
#define FINISH_OVERFLOW 1

/* Run a statement of run id ?1 (and, if it has them, rowids ?2..?3) to
 * completion (not finalized). */
static int step_run(struct store *st, sqlite3_stmt *s, int64_t run_id, int64_t lo, int64_t hi)
{
	int rc = sqlite3_bind_int64(s, 1, run_id);

	if (rc == SQLITE_OK && sqlite3_bind_parameter_count(s) == 3) {
		rc = sqlite3_bind_int64(s, 2, lo);
		if (rc == SQLITE_OK)
			rc = sqlite3_bind_int64(s, 3, hi);
	}
	if (rc == SQLITE_OK)
		rc = sqlite3_step(s);
	sqlite3_reset(s);
	return rc == SQLITE_DONE || rc == SQLITE_ROW ? 0 : store_err(st, rc, "update");
}

static int cmp_finish_region(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = ((const struct finish_region *)b)->id;

	return (x > y) - (x < y);
}

/* Blob damage found by store_finish_run(). */
static int finish_damaged(const struct store *st, int64_t run_id)
{
	if (err_code() == ERR_NOMEM)
		return ERR_NOMEM;
	return err_set(ERR_STORE,
		       "store '%s' is damaged: the call durations of run %lld do not match its "
		       "timings",
		       st->path, (long long)run_id);
}

/*
 * Copy the blobs of the batch's regions of run_id (rowids lo..hi) into its
 * spool: one pass over the run's blobs in the order they lie in the file.
 * FINISH_OVERFLOW when they do not fit.
 */
static int finish_scan(struct store *st, struct finish_batch *b, int64_t run_id, int64_t lo,
		       int64_t hi)
{
	sqlite3_stmt *s = NULL;
	struct finish_region *g;
	struct finish_rec *rec;
	uint64_t count;
	int64_t region;
	int rc, bad = 0, len, ret;

	b->used = b->nrecs = 0;
	b->values = 0;
	ret = prepare(st, &s, FINISH_BLOBS_SQL, 0, "read");
	if (ret)
		return ret;
	bad |= sqlite3_bind_int64(s, 1, run_id) != SQLITE_OK;
	bad |= sqlite3_bind_int64(s, 2, lo) != SQLITE_OK;
	bad |= sqlite3_bind_int64(s, 3, hi) != SQLITE_OK;
	rc = bad ? sqlite3_errcode(st->db) : SQLITE_OK;
	while (rc == SQLITE_OK && (rc = sqlite3_step(s)) == SQLITE_ROW) {
		const void *data;

		rc = SQLITE_OK;
		region = sqlite3_column_int64(s, 0);
		g = bsearch(&region, b->r, b->n, sizeof(*b->r), cmp_finish_region);
		if (!g)
			continue;
		data = sqlite3_column_blob(s, 1);
		len = sqlite3_column_bytes(s, 1);
		if (!data && len > 0) {
			ret = err_nomem();
			goto out;
		}
		if ((size_t)len > finish_spool - b->used) {
			ret = FINISH_OVERFLOW;
			goto out;
		}
		if (blob_count(&count, data, (size_t)len)) {
			ret = finish_damaged(st, run_id);
			goto out;
		}
		if (b->nrecs == b->caprecs) {
			size_t cap = b->caprecs ? 2 * b->caprecs : 1024;

			rec = realloc(b->recs, cap * sizeof(*rec));
			if (!rec) {
				ret = err_nomem();
				goto out;
			}
			b->recs = rec;
			b->caprecs = cap;
		}
		rec = &b->recs[b->nrecs++];
		rec->off = b->used;
		rec->len = (uint32_t)len;
		rec->region = (uint32_t)(g - b->r);
		memcpy(b->spool + b->used, data, (size_t)len);
		b->used += (size_t)len;
		b->values += count;
	}
	if (rc != SQLITE_DONE)
		ret = store_err(st, rc, "read");
out:
	sqlite3_finalize(s);
	return ret;
}

/* The check that a region's decoded durations match its run_regions row:
 * nvals values in nruns sorted runs (one per timings row with calls). */
static int finish_check(const struct store *st, int64_t run_id, const struct finish_region *g,
			size_t nvals, size_t nruns)
{
	if (nvals == g->calls && nruns && nruns <= g->rows)
		return 0;
	return err_set(ERR_STORE,
		       "store '%s' is damaged: run %lld has %zu calls but %zu stored durations in "
		       "region %lld",
		       st->path, (long long)run_id, g->calls, nvals, (long long)g->id);
}

/* p50, p95 and p99 of the union of the sorted runs v[..ends[i]). */
static void finish_percentiles(double out[3], const int64_t *v, const int64_t *ends, size_t nruns)
{
	static const enum stats_metric qm[3] = {STATS_P50, STATS_P95, STATS_P99};
	int k;

	for (k = 0; k < 3; k++)
		out[k] = stats_percentile_runs(v, ends, nruns, stats_metric_quantile(qm[k]));
}

/* Write the percentiles q of region of run_id (FINISH_QUANTILES_SQL in u). */
static int finish_write(struct store *st, sqlite3_stmt *u, int64_t run_id, int64_t region,
			const double q[3])
{
	int bad, k, rc;

	bad = sqlite3_bind_int64(u, 1, run_id) != SQLITE_OK;
	bad |= sqlite3_bind_int64(u, 2, region) != SQLITE_OK;
	for (k = 0; k < 3; k++)
		bad |= sqlite3_bind_double(u, 3 + k, q[k]) != SQLITE_OK;
	rc = bad ? sqlite3_errcode(st->db) : sqlite3_step(u);
	sqlite3_reset(u);
	return rc == SQLITE_DONE ? 0 : store_err(st, rc, "update");
}

/* Part of a batch's percentiles, computed by finish_compute(). */
struct finish_job {
	const struct store *st;
	const struct finish_batch *b;
	const size_t *order; /* the batch's records grouped by region */
	size_t from, to;     /* regions b->r[from..to) */
	double *q;	     /* 3 per region of the batch */
	int64_t run_id;
	int ret;
};

/*
 * The percentiles of regions [from, to) of a scanned batch: each region's
 * blobs (sorted runs) decoded next to each other, then
 * stats_percentile_runs() selects across the runs without merging them.
 * Pure computation on memory no one else writes (errors are per thread),
 * so two jobs run at once on the two halves of a batch.
 */
static int finish_compute(struct finish_job *job)
{
	const struct finish_batch *b = job->b;
	struct i64vec vals, ends;
	size_t i, k, got;
	int ret = 0;

	i64vec_init(&vals);
	i64vec_init(&ends);
	for (i = job->from; i < job->to; i++) {
		const struct finish_region *g = &b->r[i];

		vals.len = ends.len = 0;
		if (i64vec_reserve(&vals, g->calls)) {
			ret = ERR_NOMEM;
			goto out;
		}
		for (k = 0; k < g->nrec; k++) {
			const struct finish_rec *rec = &b->recs[job->order[g->first + k]];

			if (blob_decode_to(vals.v + vals.len, g->calls - vals.len, &got,
					   b->spool + rec->off, rec->len)) {
				ret = finish_damaged(job->st, job->run_id);
				goto out;
			}
			vals.len += got;
			if (i64vec_push(&ends, (int64_t)vals.len)) {
				ret = ERR_NOMEM;
				goto out;
			}
		}
		ret = finish_check(job->st, job->run_id, g, vals.len, ends.len);
		if (ret)
			goto out;
		finish_percentiles(job->q + 3 * i, vals.v, ends.v, ends.len);
	}
out:
	i64vec_release(&vals);
	i64vec_release(&ends);
	return ret;
}

/* finish_compute() on a thread of its own. */
static void *finish_job_main(void *arg)
{
	struct finish_job *job = arg;

	job->ret = finish_compute(job);
	return NULL;
}

/* Batches smaller than this many durations are not worth a second thread. */
#define FINISH_THREAD_MIN ((size_t)1 << 20)

/*
 * The percentiles of each region of a scanned batch, written with
 * statement u.  The regions are split into two halves of about the same
 * number of calls; the second half is computed on a second thread (the
 * core that hashed the file is idle by now), then all rows are written by
 * this thread, the only one using SQLite.
 */
static int finish_batch_quantiles(struct store *st, struct finish_batch *b, sqlite3_stmt *u,
				  int64_t run_id)
{
	struct finish_job job[2];
	pthread_t thread;
	size_t *order = NULL, i, k, half = 0, total = 0, acc = 0;
	double *q = NULL;
	int threaded = 0, ret = 0;

	/* group the records by region (counting sort, scan order kept) */
	order = malloc((b->nrecs ? b->nrecs : 1) * sizeof(*order));
	q = malloc((b->n ? b->n : 1) * 3 * sizeof(*q));
	if (!order || !q) {
		ret = err_nomem();
		goto out;
	}
	for (i = 0; i < b->n; i++)
		b->r[i].nrec = 0;
	for (i = 0; i < b->nrecs; i++)
		b->r[b->recs[i].region].nrec++;
	for (i = 0, k = 0; i < b->n; i++) {
		b->r[i].first = k;
		k += b->r[i].nrec;
		b->r[i].nrec = 0;
		total += b->r[i].calls;
	}
	for (i = 0; i < b->nrecs; i++) {
		struct finish_region *g = &b->r[b->recs[i].region];

		order[g->first + g->nrec++] = i;
	}
	while (half < b->n && 2 * acc < total)
		acc += b->r[half++].calls;
	for (i = 0; i < 2; i++) {
		job[i].st = st;
		job[i].b = b;
		job[i].order = order;
		job[i].q = q;
		job[i].run_id = run_id;
		job[i].ret = 0;
	}
	job[0].from = 0;
	job[0].to = half;
	job[1].from = half;
	job[1].to = b->n;
	if (total >= FINISH_THREAD_MIN && half < b->n &&
	    pthread_create(&thread, NULL, finish_job_main, &job[1]) == 0)
		threaded = 1;
	else
		job[0].to = b->n;
	ret = finish_compute(&job[0]);
	if (threaded) {
		pthread_join(thread, NULL);
		/* the other thread's message is its own: compute that half
		 * again here to report it */
		if (!ret && job[1].ret)
			ret = finish_compute(&job[1]);
	}
	for (i = 0; !ret && i < b->n; i++)
		ret = finish_write(st, u, run_id, b->r[i].id, q + 3 * i);
out:
	free(order);
	free(q);
	return ret;
}

/*
 * The percentiles of one region whose blobs do not fit in the spool (over
 * ~90M calls): fetched through the index and decoded whole, as a --ranks
 * diff does (8 bytes per call of memory), and written with statement u.
 */
static int finish_region_alone(struct store *st, sqlite3_stmt *u, int64_t run_id,
			       const struct finish_region *g)
{
	struct i64vec d, ends;
	double q[3];
	int ret;

	i64vec_init(&d);
	i64vec_init(&ends);
	ret = region_durations(st, &d, &ends, run_id, g->id, NULL, 0);
	if (!ret)
		ret = finish_check(st, run_id, g, d.len, ends.len);
	if (!ret) {
		finish_percentiles(q, d.v, ends.v, ends.len);
		ret = finish_write(st, u, run_id, g->id, q);
	}
	i64vec_release(&d);
	i64vec_release(&ends);
	return ret;
}

/*
 * The exact p50/p95/p99 of every region of run_id with per-call data.  A
 * region's blobs are spread over the whole run (files list ranks first), so
 * fetching them region by region would read every page of the run once per
 * region (3.7 s on the large profile with its 1,024 ranks).  Instead the
 * blobs are copied in one pass, in file order, into a spool of at most
 * FINISH_SPOOL_BYTES (a medium or large run fits whole); a bigger run is
 * done in batches of regions sized from the bytes per call seen so far, and
 * a region bigger than the spool by itself (finish_region_alone()).
 */
static int finish_quantiles(struct store *st, int64_t run_id, int64_t lo, int64_t hi)
{
	sqlite3_stmt *s = NULL, *u = NULL;
	struct finish_region *r = NULL;
	struct finish_batch b;
	size_t n = 0, cap = 0, i, j, limit = SIZE_MAX;
	double bpc = 0.0, est; /* bytes per call; 0 = unknown: try all */
	int rc, ret;

	memset(&b, 0, sizeof(b));
	ret = prepare(st, &s, FINISH_EVENTS_SQL, 0, "read");
	if (ret)
		goto out;
	rc = sqlite3_bind_int64(s, 1, run_id);
	while (rc == SQLITE_OK && (rc = sqlite3_step(s)) == SQLITE_ROW) {
		rc = SQLITE_OK;
		if (n == cap) {
			void *grown;

			cap = cap ? 2 * cap : 64;
			grown = realloc(r, cap * sizeof(*r));
			if (!grown) {
				ret = err_nomem();
				goto out;
			}
			r = grown;
		}
		memset(&r[n], 0, sizeof(r[n]));
		r[n].id = sqlite3_column_int64(s, 0);
		r[n].calls = (size_t)sqlite3_column_int64(s, 1);
		r[n].rows = (size_t)sqlite3_column_int64(s, 2);
		n++;
	}
	if (rc != SQLITE_DONE) {
		ret = store_err(st, rc, "read");
		goto out;
	}
	sqlite3_finalize(s);
	s = NULL;
	if (!n)
		goto out;
	ret = prepare(st, &u, FINISH_QUANTILES_SQL, 0, "update");
	if (ret)
		goto out;
	b.spool = util_scratch_alloc(finish_spool);
	if (!b.spool) {
		ret = err_nomem();
		goto out;
	}
	for (i = 0; i < n; i = j) {
		/* the batch r[i..j): everything left, or what the spool holds at
		 * the bytes per call seen so far (at least one region) */
		est = 0.0;
		for (j = i; j < n && j - i < limit; j++) {
			est += (double)r[j].calls * bpc;
			if (j > i && est > (double)finish_spool)
				break;
		}
		b.r = r + i;
		b.n = j - i;
		ret = finish_scan(st, &b, run_id, lo, hi);
		if (ret == FINISH_OVERFLOW && b.n == 1) {
			/* one region bigger than the spool: on its own */
			ret = finish_region_alone(st, u, run_id, &r[i]);
			if (ret)
				goto out;
			continue;
		}
		if (ret == FINISH_OVERFLOW) {
			/* a tighter estimate, with a margin; then again */
			bpc = 1.25 * (double)b.used / (double)(b.values ? b.values : 1);
			if (bpc < 0.125)
				bpc = 0.125;
			limit = (j - i) / 2 ? (j - i) / 2 : 1; /* shrinks every time */
			j = i;
			continue;
		}
		if (!ret)
			ret = finish_batch_quantiles(st, &b, u, run_id);
		if (ret)
			goto out;
	}
out:
	sqlite3_finalize(s);
	sqlite3_finalize(u);
	util_scratch_free(b.spool, finish_spool);
	free(b.recs);
	free(r);
	return ret;
}

/* The first and last timings rowid of run_id (hi < lo when none). */
static int finish_rowids(struct store *st, int64_t run_id, int64_t *lo, int64_t *hi)
{
	sqlite3_stmt *s = NULL;
	int rc, ret;

	*lo = 0;
	*hi = -1;
	ret = prepare(st, &s, "SELECT min(id), max(id) FROM timings WHERE run_id = ?1", 0, "read");
	if (ret)
		return ret;
	rc = sqlite3_bind_int64(s, 1, run_id);
	if (rc == SQLITE_OK && (rc = sqlite3_step(s)) == SQLITE_ROW) {
		if (sqlite3_column_type(s, 0) != SQLITE_NULL) {
			*lo = sqlite3_column_int64(s, 0);
			*hi = sqlite3_column_int64(s, 1);
		}
	} else {
		ret = store_err(st, rc, "read");
	}
	sqlite3_finalize(s);
	return ret;
}

int store_finish_run(struct store *st, int64_t run_id)
{
	sqlite3_stmt *s = NULL;
	int64_t lo, hi;
	int ret;

	ret = finish_rowids(st, run_id, &lo, &hi);
	if (!ret)
		ret = prepare(st, &s, "DELETE FROM run_regions WHERE run_id = ?1", 0, "update");
	if (!ret)
		ret = step_run(st, s, run_id, lo, hi);
	sqlite3_finalize(s);
	s = NULL;
	if (!ret)
		ret = prepare(st, &s, FINISH_TOTALS_SQL, 0, "update");
	if (!ret)
		ret = step_run(st, s, run_id, lo, hi);
	sqlite3_finalize(s);
	s = NULL;
	if (!ret)
		ret = finish_quantiles(st, run_id, lo, hi);
	if (!ret)
		ret = prepare(st, &s, FINISH_COUNTS_SQL, 0, "update");
	if (!ret)
		ret = step_run(st, s, run_id, lo, hi);
	if (!ret && sqlite3_changes(st->db) == 0)
		ret = err_set(ERR_NOTFOUND, "cannot update store '%s': no run %lld", st->path,
			      (long long)run_id);
	sqlite3_finalize(s);
	return ret;
}

/* The schema 2 upgrade: run_regions for every run stored before it. */
static int store_finish_all_runs(struct store *st)
{
	sqlite3_stmt *s = NULL;
	struct i64vec ids;
	size_t i;
	int rc, ret;

	i64vec_init(&ids);
	ret = prepare(st, &s, "SELECT id FROM runs ORDER BY id", 0, "read");
	rc = ret ? SQLITE_DONE : SQLITE_OK;
	while (rc == SQLITE_OK && (rc = sqlite3_step(s)) == SQLITE_ROW) {
		rc = SQLITE_OK;
		if (i64vec_push(&ids, sqlite3_column_int64(s, 0)))
			ret = ERR_NOMEM;
		if (ret)
			break;
	}
	if (!ret && rc != SQLITE_DONE)
		ret = store_err(st, rc, "read");
	for (i = 0; !ret && i < ids.len; i++)
		ret = store_finish_run(st, ids.v[i]);
	sqlite3_finalize(s);
	i64vec_release(&ids);
	return ret;
}

/* ---- the history workflow: filtered listings, tags, removal, history ---- */

/*
 * The WHERE conditions of a run filter on table runs (alias "runs"), with
 * the values to bind in order as ?first, ?first+1, ...  The commit prefix
 * becomes an indexed GLOB pattern (owned in glob).
 */
struct run_where {
	struct buf sql;	   /* " AND cond" for each condition; "" for none */
	const char **vals; /* the bound texts, in parameter order */
	size_t n;
	char *glob;
};

static void run_where_release(struct run_where *w)
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

static int run_where_build(struct run_where *w, const struct filter *f, int first)
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
		w->glob = glob_prefix(f->commit);
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
static int run_where_bind(sqlite3_stmt *s, const struct run_where *w, int first)
{
	size_t i;
	int rc = SQLITE_OK;

	for (i = 0; i < w->n && rc == SQLITE_OK; i++)
		rc = sqlite3_bind_text(s, first + (int)i, w->vals[i], -1, SQLITE_STATIC);
	return rc;
}

int store_find_runs(struct store *st, struct store_run **out, size_t *n, const struct filter *f)
{
	sqlite3_stmt *s = NULL;
	struct store_run *runs = NULL, *grown;
	struct run_where w;
	struct buf sql = BUF_INIT;
	size_t len = 0, cap = 0;
	int own_txn = 0, rc, ret;

	*out = NULL;
	*n = 0;
	ret = run_where_build(&w, f, 2);
	if (!ret &&
	    buf_printf(&sql, "SELECT " RUN_COLUMNS " FROM runs WHERE 1%s" NEWEST_FIRST " LIMIT ?1",
		       w.sql.data))
		ret = ERR_NOMEM;
	if (ret)
		goto out;
	/* One snapshot for both queries when no transaction is open. */
	if (sqlite3_get_autocommit(st->db)) {
		ret = exec_retry(st, "BEGIN", "read");
		if (ret)
			goto out;
		own_txn = 1;
	}
	ret = prepare(st, &s, sql.data, 0, "read");
	if (ret)
		goto out;
	rc = sqlite3_bind_int64(s, 1, f && f->limit > 0 ? f->limit : -1);
	if (rc == SQLITE_OK)
		rc = run_where_bind(s, &w, 2);
	while (rc == SQLITE_OK && (rc = sqlite3_step(s)) == SQLITE_ROW) {
		if (len == cap) {
			cap = cap ? 2 * cap : 16;
			grown = realloc(runs, cap * sizeof(*runs));
			if (!grown) {
				ret = err_nomem();
				goto out;
			}
			runs = grown;
		}
		memset(&runs[len], 0, sizeof(*runs));
		ret = run_from_row(&runs[len++], s);
		if (ret)
			goto out;
		rc = SQLITE_OK;
	}
	if (rc != SQLITE_DONE) {
		ret = store_err(st, rc, "read");
		goto out;
	}
	sqlite3_finalize(s);
	s = NULL;
	ret = attach_tags(st, runs, len);
out:
	sqlite3_finalize(s);
	if (own_txn)
		sqlite3_exec(st->db, ret ? "ROLLBACK" : "COMMIT", NULL, NULL, NULL);
	run_where_release(&w);
	buf_release(&sql);
	if (ret) {
		store_runs_free(runs, len);
		return ret;
	}
	*out = runs;
	*n = len;
	return 0;
}

int store_remove_tag(struct store *st, int *removed, int64_t run_id, const char *tag)
{
	sqlite3_stmt *s = NULL;
	int bad = 0, ret;

	*removed = 0;
	ret = prepare(st, &s, "DELETE FROM run_tags WHERE run_id = ?1 AND tag = ?2", 0, "update");
	if (ret)
		return ret;
	bad |= sqlite3_bind_int64(s, 1, run_id) != SQLITE_OK;
	bad |= sqlite3_bind_text(s, 2, tag, -1, SQLITE_STATIC) != SQLITE_OK;
	ret = step_done(st, s, bad);
	if (!ret)
		*removed = sqlite3_changes(st->db) > 0;
	return ret;
}

int store_remove_run(struct store *st, char **unpinned, int64_t run_id, int force)
{
	sqlite3_stmt *s = NULL;
	struct buf names = BUF_INIT;
	int rc, bad = 0, ret;

	*unpinned = NULL;
	if (sqlite3_get_autocommit(st->db))
		return err_set(ERR_USAGE, "internal error: removing a run outside a transaction");
	ret = prepare(st, &s, "SELECT name FROM pins WHERE run_id = ?1 ORDER BY name", 0, "read");
	if (ret)
		goto out;
	rc = sqlite3_bind_int64(s, 1, run_id);
	while (rc == SQLITE_OK && (rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(s, 0);

		if (!name || buf_printf(&names, "%s%s", names.len ? ", " : "", name)) {
			ret = err_nomem();
			goto out;
		}
		rc = SQLITE_OK;
	}
	if (rc != SQLITE_DONE) {
		ret = store_err(st, rc, "read");
		goto out;
	}
	sqlite3_finalize(s);
	s = NULL;
	if (names.len && !force) {
		ret = err_set(ERR_USAGE, "run %lld is pinned as '%s': unpin it or use --force",
			      (long long)run_id, names.data);
		goto out;
	}
	if (names.len) {
		ret = prepare(st, &s, "DELETE FROM pins WHERE run_id = ?1", 0, "update");
		if (ret)
			goto out;
		ret = step_done(st, s, sqlite3_bind_int64(s, 1, run_id) != SQLITE_OK);
		s = NULL;
		if (ret)
			goto out;
	}
	/* timings, timings_durations, run_tags and run_metadata cascade. */
	ret = prepare(st, &s, "DELETE FROM runs WHERE id = ?1", 0, "update");
	if (ret)
		goto out;
	bad = sqlite3_bind_int64(s, 1, run_id) != SQLITE_OK;
	ret = step_done(st, s, bad);
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

/* *out = the value of a one-integer PRAGMA (page_count, page_size ...). */
static int pragma_int(struct store *st, int64_t *out, const char *sql)
{
	sqlite3_stmt *s = NULL;
	int rc, ret;

	*out = 0;
	ret = prepare(st, &s, sql, 0, "read");
	if (ret)
		return ret;
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		*out = sqlite3_column_int64(s, 0);
	else
		ret = store_err(st, rc, "read");
	sqlite3_finalize(s);
	return ret;
}

/* Bytes in use: (page_count - freelist_count) * page_size. */
static int store_used_bytes(struct store *st, int64_t *out)
{
	int64_t pages = 0, free_pages = 0, size = 0;
	int ret;

	if ((ret = pragma_int(st, &pages, "PRAGMA page_count")) ||
	    (ret = pragma_int(st, &free_pages, "PRAGMA freelist_count")) ||
	    (ret = pragma_int(st, &size, "PRAGMA page_size")))
		return ret;
	*out = (pages - free_pages) * size;
	return 0;
}

int store_vacuum(struct store *st, int64_t *before, int64_t *after)
{
	int64_t pages = 0, size = 0;
	int ret;

	*before = *after = 0;
	if (!sqlite3_get_autocommit(st->db))
		return err_set(ERR_USAGE, "internal error: vacuum inside a transaction");
	if ((ret = pragma_int(st, &pages, "PRAGMA page_count")) ||
	    (ret = pragma_int(st, &size, "PRAGMA page_size")))
		return ret;
	*before = pages * size;
	ret = exec_retry(st, "DELETE FROM regions WHERE id NOT IN (SELECT region_id FROM timings)",
			 "update");
	if (!ret)
		ret = exec_retry(st, "VACUUM", "vacuum");
	if (!ret)
		ret = exec_retry(st, "PRAGMA wal_checkpoint(TRUNCATE)", "vacuum");
	if (!ret)
		ret = exec_retry(st, "PRAGMA optimize", "optimize");
	if (!ret)
		ret = store_used_bytes(st, after);
	return ret;
}

void store_history_free(struct store_history_point *p, size_t n)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < n; i++) {
		free(p[i].stats.name);
		free(p[i].time);
		free(p[i].commit);
		free(p[i].label);
		i64vec_release(&p[i].durations);
	}
	free(p);
}

/* The ids of the regions q selects as a JSON array (for json_each());
 * ERR_NOTFOUND when there is none. */
static int history_regions(struct store *st, char **out, const struct store_history_query *q)
{
	sqlite3_stmt *s = NULL;
	struct buf ids = BUF_INIT;
	size_t count = 0;
	int rc, keep, ret;

	*out = NULL;
	ret = prepare(st, &s,
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
	while (rc == SQLITE_OK && (rc = sqlite3_step(s)) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(s, 1);

		rc = SQLITE_OK;
		if (!name) {
			ret = err_nomem();
			goto out;
		}
		keep = 1;
		if (!q->region && q->filter && (ret = q->filter(q->ctx, &keep, name)))
			goto out;
		if (!keep)
			continue;
		if (buf_printf(&ids, "%s%lld", count++ ? "," : "",
			       (long long)sqlite3_column_int64(s, 0))) {
			ret = ERR_NOMEM;
			goto out;
		}
	}
	if (rc != SQLITE_DONE) {
		ret = store_err(st, rc, "read");
		goto out;
	}
	if (count == 0) {
		ret = q->region ? err_set(ERR_NOTFOUND, "no region '%s' in store '%s'", q->region,
					  st->path)
				: err_set(ERR_NOTFOUND, "no region matches '%s' in store '%s'",
					  q->pattern ? q->pattern : "", st->path);
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

/* Order of history points by (region id, run id), for matching the
 * duration blobs to their point. */
static int cmp_point_key(const void *a, const void *b)
{
	const struct store_history_point *x = *(const struct store_history_point *const *)a;
	const struct store_history_point *y = *(const struct store_history_point *const *)b;

	if (x->stats.region_id != y->stats.region_id)
		return x->stats.region_id < y->stats.region_id ? -1 : 1;
	return (x->run_id > y->run_id) - (x->run_id < y->run_id);
}

/* Decode the duration blobs of the selected rows into their points (one
 * query over all regions and runs). */
static int history_durations(struct store *st, struct store_history_point *pts, size_t n,
			     const char *ids, const char *ranks,
			     const struct store_history_query *q)
{
	struct store_history_point **index = NULL, key, *kp = &key, **hit;
	struct run_where w;
	struct buf sql = BUF_INIT;
	sqlite3_stmt *s = NULL;
	size_t i;
	int rc, bad = 0, ret;

	memset(&w, 0, sizeof(w));
	index = malloc((n ? n : 1) * sizeof(*index));
	if (!index)
		return err_nomem();
	for (i = 0; i < n; i++)
		index[i] = &pts[i];
	qsort(index, n, sizeof(*index), cmp_point_key);
	ret = run_where_build(&w, q->runs, 3);
	if (!ret && buf_printf(&sql,
			       "SELECT t.region_id, t.run_id, d.data FROM timings AS t "
			       "JOIN timings_durations AS d ON d.timing_id = t.id "
			       "WHERE t.region_id IN (SELECT value FROM json_each(?1)) AND "
			       "(?2 IS NULL OR t.rank IN (SELECT value FROM json_each(?2))) AND "
			       "t.run_id IN (SELECT id FROM runs WHERE 1%s)",
			       w.sql.data))
		ret = ERR_NOMEM;
	if (!ret)
		ret = prepare(st, &s, sql.data, 0, "read");
	if (ret)
		goto out;
	bad |= sqlite3_bind_text(s, 1, ids, -1, SQLITE_STATIC) != SQLITE_OK;
	bad |= (ranks ? sqlite3_bind_text(s, 2, ranks, -1, SQLITE_STATIC)
		      : sqlite3_bind_null(s, 2)) != SQLITE_OK;
	bad |= run_where_bind(s, &w, 3) != SQLITE_OK;
	rc = bad ? sqlite3_errcode(st->db) : SQLITE_OK;
	while (rc == SQLITE_OK && (rc = sqlite3_step(s)) == SQLITE_ROW) {
		const void *data;
		int len;

		rc = SQLITE_OK;
		key.stats.region_id = sqlite3_column_int64(s, 0);
		key.run_id = sqlite3_column_int64(s, 1);
		hit = bsearch(&kp, index, n, sizeof(*index), cmp_point_key);
		if (!hit)
			continue; /* a run beyond the limit */
		data = sqlite3_column_blob(s, 2);
		len = sqlite3_column_bytes(s, 2);
		if (!data && len > 0) {
			ret = err_nomem();
			goto out;
		}
		if (blob_decode_append(&(*hit)->durations, data, (size_t)len)) {
			ret = err_code() == ERR_NOMEM
				  ? ERR_NOMEM
				  : err_set(ERR_STORE,
					    "store '%s' is damaged: call durations of run %lld "
					    "do not decode",
					    st->path, (long long)key.run_id);
			goto out;
		}
	}
	if (rc != SQLITE_DONE) {
		ret = store_err(st, rc, "read");
		goto out;
	}
	for (i = 0; i < n; i++)
		util_sort_i64(pts[i].durations.v, pts[i].durations.len);
out:
	sqlite3_finalize(s);
	run_where_release(&w);
	buf_release(&sql);
	free(index);
	return ret;
}

/* The "pts" of store_region_history() over the ranks ?2: region, run, the
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

int store_region_history(struct store *st, struct store_history_point **out, size_t *n,
			 const struct store_history_query *q)
{
	struct store_history_point *pts = NULL, *grown, *p;
	struct run_where w;
	struct buf sql = BUF_INIT;
	sqlite3_stmt *s = NULL;
	char *ids = NULL, *ranks;
	size_t len = 0, cap = 0;
	int rc, bad = 0, failed, own_txn = 0, ret;

	*out = NULL;
	*n = 0;
	memset(&w, 0, sizeof(w));
	ranks = ranks_json(q->ranks, q->nranks, &failed);
	if (failed)
		return err_nomem();
	/* One snapshot for the region list, the aggregates and the blobs. */
	if (sqlite3_get_autocommit(st->db)) {
		ret = exec_retry(st, "BEGIN", "read");
		if (ret)
			goto out;
		own_txn = 1;
	}
	ret = history_regions(st, &ids, q);
	if (!ret)
		ret = run_where_build(&w, q->runs, 4);
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
		ret = prepare(st, &s, sql.data, 0, "read");
	if (ret)
		goto out;
	bad |= sqlite3_bind_text(s, 1, ids, -1, SQLITE_STATIC) != SQLITE_OK;
	bad |= (ranks ? sqlite3_bind_text(s, 2, ranks, -1, SQLITE_STATIC)
		      : sqlite3_bind_null(s, 2)) != SQLITE_OK;
	bad |= sqlite3_bind_int64(s, 3, q->runs ? q->runs->limit : 0) != SQLITE_OK;
	bad |= run_where_bind(s, &w, 4) != SQLITE_OK;
	rc = bad ? sqlite3_errcode(st->db) : SQLITE_OK;
	while (rc == SQLITE_OK && (rc = sqlite3_step(s)) == SQLITE_ROW) {
		rc = SQLITE_OK;
		if (len == cap) {
			cap = cap ? 2 * cap : 64;
			grown = realloc(pts, cap * sizeof(*pts));
			if (!grown) {
				ret = err_nomem();
				goto out;
			}
			pts = grown;
		}
		p = &pts[len++];
		memset(p, 0, sizeof(*p));
		i64vec_init(&p->durations);
		p->stats.region_id = sqlite3_column_int64(s, 0);
		p->run_id = sqlite3_column_int64(s, 1);
		region_stats_from_row(&p->stats, s, 2);
		if (!ranks)
			quantiles_from_row(&p->stats, s, 2 + REGION_AGGREGATE_COLUMNS);
		if ((ret = col_text(&p->time, s, 5 + REGION_AGGREGATE_COLUMNS)) ||
		    (ret = col_text(&p->commit, s, 6 + REGION_AGGREGATE_COLUMNS)) ||
		    (ret = col_text(&p->label, s, 7 + REGION_AGGREGATE_COLUMNS)) ||
		    (ret = col_text(&p->stats.name, s, 9 + REGION_AGGREGATE_COLUMNS)))
			goto out;
	}
	if (rc != SQLITE_DONE) {
		ret = store_err(st, rc, "read");
		goto out;
	}
	sqlite3_finalize(s);
	s = NULL;
	/* All ranks: the percentiles are stored; no blob is read. */
	if (q->durations && len && ranks)
		ret = history_durations(st, pts, len, ids, ranks, q);
out:
	sqlite3_finalize(s);
	if (own_txn)
		sqlite3_exec(st->db, ret ? "ROLLBACK" : "COMMIT", NULL, NULL, NULL);
	run_where_release(&w);
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
