/*
 * conn.c - the SQLite backend's connection: open, schema migrations,
 * transactions, upkeep, and the backend table (see sqlite.h).
 *
 * sqlite_open() identifies the file (application_id, user_version, whether
 * it is empty), refuses foreign and newer databases, switches new stores to
 * WAL and applies the embedded schema migrations (schema_sql.h), each in
 * its own BEGIN IMMEDIATE transaction that also sets user_version, so that
 * a crash or a concurrent opener never sees half a migration.  The
 * identification is repeated under the write lock because another process
 * may have created or upgraded the store meanwhile.
 *
 * A private temporary store (open() of NULL) is SQLite's ":memory:"
 * database.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "scopedb/err.h"
#include "scopedb/store.h"
#include "scopedb/util.h"
#include "store/backend.h"
#include "store/sqlite/schema_sql.h"
#include "store/sqlite/sqlite.h"
#include "store/verify.h"

/* Default time to wait for another process's lock. */
#define STORE_BUSY_MS 30000

/*
 * Run a transaction-control statement, retrying on SQLITE_BUSY until
 * busy_ms have passed.  The busy handler already waits for ordinary locks;
 * the loop covers the cases where SQLite returns BUSY without invoking it
 * (WAL recovery by another connection, snapshot conflicts).
 */
static int sqlite_exec_retry(struct store_conn *st, const char *sql, const char *what)
{
	int64_t deadline = util_now_ms() + st->busy_ms;
	struct timespec pause = {0, 10 * 1000 * 1000};
	int rc;

	for (;;) {
		rc = sqlite3_exec(st->db, sql, NULL, NULL, NULL);
		if ((rc & 0xff) != SQLITE_BUSY || util_now_ms() >= deadline)
			break;
		nanosleep(&pause, NULL);
	}
	return rc == SQLITE_OK ? 0 : sqlite_err(st, rc, what);
}

/* ---- open / close / migrations --------------------------------------- */

/* Why a new store file cannot be made at path: the errno of its directory
 * (not writable, say), or 0. */
static int open_dir_errno(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir;
	int e = 0;

	if (!slash)
		return access(".", W_OK | X_OK) ? errno : 0;
	dir = util_strdup(path);
	if (!dir)
		return 0;
	dir[slash == path ? 1 : slash - path] = '\0';
	if (access(dir, W_OK | X_OK))
		e = errno;
	free(dir);
	return e;
}

/* The open failure reason: the OS error behind SQLITE_CANTOPEN when there is
 * one (lowercased strerror), else SQLite's message.  A store to be created
 * (create) in a directory that exists but cannot be written is "permission
 * denied": SQLite, failing to create it, tries to open it read-only and
 * keeps that attempt's ENOENT. */
static void open_reason(char *buf, size_t len, sqlite3 *db, int rc, const char *path, int create)
{
	int e = db ? sqlite3_system_errno(db) : 0;

	if (create && (rc & 0xff) == SQLITE_CANTOPEN && e == ENOENT) {
		int d = open_dir_errno(path);

		if (d && d != ENOENT)
			e = d;
	}
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
static int sqlite_identify(struct store_conn *st, int64_t *out)
{
	sqlite3_stmt *s = NULL;
	int64_t app = 0, version = 0, objects = 0;
	int rc, ret;

	*out = 0;
	ret = sqlite_prepare(st, &s,
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
			ret = sqlite_err(st, rc, "open");
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
	if (app != SQLITE_APPLICATION_ID)
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
 * sqlite_identify(), retried on SQLITE_BUSY until busy_ms have passed: while
 * another process switches a new store to WAL or recovers its WAL, readers
 * get BUSY without the busy handler being called.
 */
static int sqlite_identify_retry(struct store_conn *st, int64_t *out)
{
	int64_t deadline = util_now_ms() + st->busy_ms;
	struct timespec pause = {0, 10 * 1000 * 1000};
	int ret;

	while ((ret = sqlite_identify(st, out)) == ERR_BUSY && util_now_ms() < deadline)
		nanosleep(&pause, NULL);
	return ret;
}

static int sqlite_finish_all_runs(struct store_conn *st);

/*
 * Apply migration schema_sql[version] (bringing the store to version + 1)
 * inside the caller's transaction, with its data fix-ups, and stamp the
 * application id and the new user_version.
 */
static int sqlite_apply(struct store_conn *st, int64_t version)
{
	char pragma[64];
	int rc, ret;

	rc = sqlite3_exec(st->db, schema_sql[version], NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		return err_set(ERR_STORE,
			       "cannot open store '%s': upgrade to schema version %lld failed: %s",
			       st->path, (long long)version + 1, sqlite3_errmsg(st->db));
	/* Schema 2 added run_regions: fill it for the runs stored before, once
	 * the store has the latest schema (the finish pipeline writes the
	 * columns of every later version too), which also completes a store
	 * whose upgrade stopped between the two. */
	if (version + 1 == schema_sql_count) {
		ret = sqlite_finish_all_runs(st);
		if (ret)
			return ret;
	}
	snprintf(pragma, sizeof(pragma), "PRAGMA application_id = %d", SQLITE_APPLICATION_ID);
	rc = sqlite3_exec(st->db, pragma, NULL, NULL, NULL);
	if (rc == SQLITE_OK) {
		snprintf(pragma, sizeof(pragma), "PRAGMA user_version = %lld",
			 (long long)version + 1);
		rc = sqlite3_exec(st->db, pragma, NULL, NULL, NULL);
	}
	return rc == SQLITE_OK ? 0 : sqlite_err(st, rc, "open");
}

/* store_migrate()'s statements, as opening the store runs them. */
static int sqlite_run_open(struct store_conn *st, const char *sql)
{
	return sqlite_exec_retry(st, sql, "open");
}

static void sqlite_abort(struct store_conn *st)
{
	if (!sqlite3_get_autocommit(st->db))
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
}

/* The migrations of schema_sql.h (store_migrate()). */
static int sqlite_migrate(struct store_conn *st)
{
	struct store_migration m = {schema_sql_count, "BEGIN IMMEDIATE", sqlite_run_open,
				    sqlite_identify,  sqlite_apply,	 sqlite_abort};

	return store_migrate(st, &m);
}

/* Per-connection settings; foreign keys are switched on only after the
 * migrations, which may need to rebuild tables.  An 8 MB page cache: ingest
 * appends megabytes of blobs that are written once, and a larger cache only
 * meant more fresh memory to fault in (issue 6: 32 MB cost 12 % of a medium
 * ingest); readers map the file. */
static int sqlite_configure(struct store_conn *st)
{
	int rc = sqlite3_exec(st->db,
			      "PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL; "
			      "PRAGMA cache_size = -8192; PRAGMA temp_store = MEMORY",
			      NULL, NULL, NULL);

	return rc == SQLITE_OK ? 0 : sqlite_err(st, rc, "open");
}

/*
 * SQLite's own defences for a file that may come from anyone (--db
 * downloaded.sqlite, pull --from): defensive mode (no writable schema, no
 * direct shadow-table or journal tampering through SQL), functions in the
 * schema limited to innocuous ones (a hostile generated column cannot call
 * anything with side effects), triggers and views off (a scopedb store has
 * none; sqlite_check_schema() refuses a file that has some), no
 * double-quoted string literals (an identifier the file lacks is an error,
 * never the string of its name), no extension loading, and the b-tree
 * cells' sizes checked as pages are read, so that a damaged page is an
 * error, not a wild read.
 */
static void sqlite_harden(sqlite3 *db)
{
#ifdef SQLITE_DBCONFIG_DEFENSIVE
	sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)NULL);
#endif
#ifdef SQLITE_DBCONFIG_TRUSTED_SCHEMA
	sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, (int *)NULL);
#endif
	sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, (int *)NULL);
#ifdef SQLITE_DBCONFIG_ENABLE_VIEW
	sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_VIEW, 0, (int *)NULL);
#endif
#ifdef SQLITE_DBCONFIG_DQS_DML
	sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DML, 0, (int *)NULL);
	sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DDL, 0, (int *)NULL);
#endif
	sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, 0, (int *)NULL);
	sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_FTS3_TOKENIZER, 0, (int *)NULL);
	(void)sqlite3_exec(db, "PRAGMA cell_size_check = ON", NULL, NULL, NULL);
}

/*
 * Refuse a store with a view or a trigger: scopedb never creates one, and
 * either would put the file's SQL in our queries or writes (they are off
 * anyway, sqlite_harden()).  A missing table or column needs no look: every
 * statement naming it fails to prepare, as "store 'x' is damaged: no such
 * column: ..." (sqlite_err()), and with double-quoted strings off no
 * misspelt or missing identifier reads as a string.
 */
static int sqlite_check_schema(struct store_conn *st)
{
	sqlite3_stmt *s = NULL;
	int rc, ret = 0;

	rc = sqlite3_prepare_v2(st->db,
				"SELECT type, name FROM sqlite_master "
				"WHERE type IN ('view', 'trigger') ORDER BY type, name LIMIT 1",
				-1, &s, NULL);
	if (rc == SQLITE_OK && (rc = sqlite3_step(s)) == SQLITE_ROW)
		ret = verify_foreign(st->path, (const char *)sqlite3_column_text(s, 0),
				     sqlite3_column_bytes(s, 0),
				     (const char *)sqlite3_column_text(s, 1));
	else if (rc != SQLITE_DONE)
		ret = sqlite_err(st, rc, "open");
	sqlite3_finalize(s);
	return ret;
}

static void sqlite_close(struct store_conn *st);

/*
 * The name SQLite is given for path.  This libsqlite3 takes URIs, so a
 * path that starts with "file:" would be read as one ("file:x?mode=memory"
 * a database that keeps nothing, "%20" decoded), where every other check
 * of scopedb takes it as the file it names: it goes as "./file:...".
 * With immutable, a URI of the path marked immutable=1 (sqlite_open()).
 */
static int sqlite_db_name(struct buf *out, const char *path, int immutable)
{
	const unsigned char *p;
	int rc = 0;

	if (!immutable)
		return buf_printf(out, "%s%s", strncmp(path, "file:", 5) ? "" : "./", path);
	rc = buf_puts(out, "file:");
	for (p = (const unsigned char *)path; *p && !rc; p++)
		rc = strchr("-._~/", *p) || (*p >= '0' && *p <= '9') ||
			     ((*p | 0x20) >= 'a' && (*p | 0x20) <= 'z')
			 ? buf_putc(out, (char)*p)
			 : buf_printf(out, "%%%02X", *p);
	return rc || buf_puts(out, "?immutable=1") ? ERR_NOMEM : 0;
}

static pthread_once_t sqlite_config_once = PTHREAD_ONCE_INIT;

/* SQLite's process-wide settings, before its first connection: no memory
 * statistics (scopedb reads none), which otherwise take a global mutex at
 * every allocation of every connection. */
static void sqlite_config(void)
{
	(void)sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

/* Open the connection of st to path (immutable: see sqlite_open()). */
static int sqlite_open_db(struct store_conn *st, const char *path, int immutable)
{
	struct buf name = BUF_INIT;
	int rc;

	pthread_once(&sqlite_config_once, sqlite_config);
	if (sqlite_db_name(&name, path, immutable)) {
		buf_release(&name);
		return SQLITE_NOMEM;
	}
	rc = sqlite3_open_v2(
	    name.data, &st->db,
	    SQLITE_OPEN_NOMUTEX | (immutable ? SQLITE_OPEN_URI : 0) |
		(st->readonly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE),
	    NULL);
	buf_release(&name);
	if (rc == SQLITE_OK) {
		sqlite3_busy_timeout(st->db, st->busy_ms);
		sqlite_harden(st->db);
	}
	return rc;
}

/*
 * 1 when the read that failed on st is of a store in WAL mode that this
 * user may read but whose directory it may not write (a read-only copy):
 * SQLite cannot make the shared-memory file it reads such a store
 * through.  With no write-ahead log there, nobody is writing the store
 * (a writer needs that file in the same directory), so it can be read as
 * immutable; one with a log to replay cannot, and keeps its error.
 */
static int sqlite_readonly_copy(const struct store_conn *st, const char *path)
{
	int code = sqlite3_errcode(st->db) & 0xff;
	struct buf wal = BUF_INIT, dir = BUF_INIT;
	struct stat sb;
	const char *slash = strrchr(path, '/');
	int yes = 0;

	if (!st->readonly || (code != SQLITE_READONLY && code != SQLITE_CANTOPEN))
		return 0;
	if (!buf_printf(&wal, "%s-wal", path) &&
	    !buf_printf(&dir, "%.*s", slash ? (int)(slash - path) + 1 : 1, slash ? path : "."))
		yes = (stat(wal.data, &sb) != 0 || sb.st_size == 0) && access(dir.data, W_OK) != 0;
	buf_release(&wal);
	buf_release(&dir);
	return yes;
}

/*
 * Open path (NULL: a private store in memory) for front (store_open()
 * flags).  The connection is handed to front as soon as it exists: the
 * schema 2 upgrade runs the finish pipeline through front.  On failure
 * nothing is left (no connection in front) and an empty file we created
 * is removed.
 */
static int sqlite_open(struct store *front, const char *path, int flags)
{
	struct store_conn *st;
	struct stat sb;
	char reason[256];
	int64_t version;
	int created = 0, rc, ret;

	store_set_conn(front, NULL, NULL);
	if (!path)
		path = ":memory:";
	/* Commands that never create a store (pin, rm, tag, vacuum ...). */
	if ((flags & STORE_EXISTING) && stat(path, &sb) != 0)
		return err_set(ERR_IO, "cannot open store '%s': %s", path, util_strerror_lc(errno));
	st = calloc(1, sizeof(*st));
	if (!st)
		return err_nomem();
	st->front = front;
	st->readonly = (flags & STORE_READONLY) != 0;
	st->busy_ms = STORE_BUSY_MS;
	st->path = util_strdup(path);
	if (!st->path) {
		free(st);
		return ERR_NOMEM;
	}
	store_set_conn(front, st, st->path);
	/* ":memory:" and "" (private temporary) databases have no file */
	created = !st->readonly && *path && strcmp(path, ":memory:") != 0 && stat(path, &sb) != 0 &&
		  errno == ENOENT;
	rc = sqlite_open_db(st, path, 0);
	if (rc != SQLITE_OK) {
		if (!st->db) {
			ret = err_nomem();
			goto out;
		}
		open_reason(reason, sizeof(reason), st->db, rc, path, created);
		if ((rc & 0xff) == SQLITE_CORRUPT) {
			ret = err_set(ERR_STORE, "store '%s' is damaged: %s", path, reason);
			goto out;
		}
		ret = err_set((rc & 0xff) == SQLITE_CANTOPEN ? ERR_IO : ERR_STORE,
			      "cannot open store '%s': %s", path, reason);
		goto out;
	}
	ret = sqlite_identify_retry(st, &version);
	if (ret && sqlite_readonly_copy(st, path)) {
		sqlite3_close(st->db);
		st->db = NULL;
		rc = sqlite_open_db(st, path, 1);
		ret = rc == SQLITE_OK
			  ? sqlite_identify_retry(st, &version)
			  : err_set(ERR_IO, "cannot open store '%s': %s", path, sqlite3_errstr(rc));
	}
	/* Before anything writes to the file (WAL mode, an upgrade): a
	 * hostile store is refused as it came, not migrated first. */
	if (!ret)
		ret = sqlite_check_schema(st);
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
		sqlite_close(st);
		store_set_conn(front, NULL, NULL);
		if (!(flags & STORE_NO_UPGRADE) &&
		    store_open_with(&up, &sqlite_store_backend, path,
				    (flags & ~STORE_READONLY) | STORE_NO_UPGRADE) == 0) {
			store_close(up);
			return sqlite_open(front, path, flags | STORE_NO_UPGRADE);
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
		ret = sqlite_exec_retry(st, "PRAGMA journal_mode = WAL", "open");
		if (ret)
			goto out;
		ret = sqlite_migrate(st);
		if (ret)
			goto out;
	}
	ret = sqlite_configure(st);
	/* Readers (diff, check, history) map the file instead of pread()ing
	 * every page into freshly allocated cache memory: a p95 diff of two
	 * medium runs reads ~50 MB of duration blobs, and the copies and page
	 * faults were a third of its time (issue 6).  Read-only mapping;
	 * writers keep the default. */
	if (!ret && st->readonly)
		(void)sqlite3_exec(st->db, "PRAGMA mmap_size = 1073741824", NULL, NULL, NULL);
out:
	if (ret) {
		sqlite_close(st);
		store_set_conn(front, NULL, NULL);
		/* Do not leave behind an empty file that we created; a busy
		 * store belongs to the process holding the lock. */
		if (created && ret != ERR_BUSY && stat(path, &sb) == 0 && S_ISREG(sb.st_mode) &&
		    sb.st_size == 0)
			unlink(path);
		return ret;
	}
	return 0;
}

static void sqlite_close(struct store_conn *st)
{
	if (!st)
		return;
	if (st->db && !sqlite3_get_autocommit(st->db))
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
	sqlite_stmts_release(st);
	sqlite3_close(st->db);
	free(st->path);
	free(st);
}

static int sqlite_schema_version(void)
{
	return schema_sql_count;
}

/* Every --db value is a file path for SQLite (the last backend tried). */
static int sqlite_accepts(const char *location)
{
	(void)location;
	return 1;
}

static void sqlite_set_busy_timeout(struct store_conn *st, int ms)
{
	st->busy_ms = ms < 0 ? 0 : ms;
	sqlite3_busy_timeout(st->db, st->busy_ms);
}

/* ---- transactions ---------------------------------------------------- */

static void sqlite_rollback(struct store_conn *st);

static int sqlite_begin(struct store_conn *st)
{
	if (!sqlite3_get_autocommit(st->db))
		return err_set(ERR_USAGE,
			       "cannot begin a transaction on store '%s': one is already open",
			       st->path);
	return sqlite_exec_retry(st, "BEGIN IMMEDIATE", "update");
}

static int sqlite_commit(struct store_conn *st)
{
	int ret = sqlite_exec_retry(st, "COMMIT", "update");

	if (ret)
		sqlite_rollback(st);
	return ret;
}

static void sqlite_rollback(struct store_conn *st)
{
	if (st && !sqlite3_get_autocommit(st->db))
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
}

static int sqlite_read_begin(struct store_conn *st, int *started)
{
	int ret;

	*started = 0;
	if (!sqlite3_get_autocommit(st->db))
		return 0;
	ret = sqlite_exec_retry(st, "BEGIN", "read");
	*started = ret == 0;
	return ret;
}

static void sqlite_read_end(struct store_conn *st)
{
	if (st && st->db && !sqlite3_get_autocommit(st->db))
		sqlite3_exec(st->db, "COMMIT", NULL, NULL, NULL);
}

/* *out = the integer of the one-row query sql (a PRAGMA). */
static int sqlite_query_int(struct store_conn *st, int64_t *out, const char *sql)
{
	sqlite3_stmt *s = NULL;
	int rc, ret;

	*out = 0;
	ret = sqlite_prepare(st, &s, sql, 0, "read");
	if (ret)
		return ret;
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		*out = sqlite3_column_int64(s, 0);
	else
		ret = sqlite_err(st, rc, "read");
	sqlite3_finalize(s);
	return ret;
}

/* Bytes in use: (page_count - freelist_count) * page_size. */
static int sqlite_used_bytes(struct store_conn *st, int64_t *out)
{
	int64_t pages = 0, free_pages = 0, size = 0;
	int ret;

	if ((ret = sqlite_query_int(st, &pages, "PRAGMA page_count")) ||
	    (ret = sqlite_query_int(st, &free_pages, "PRAGMA freelist_count")) ||
	    (ret = sqlite_query_int(st, &size, "PRAGMA page_size")))
		return ret;
	*out = (pages - free_pages) * size;
	return 0;
}

static int sqlite_compact(struct store_conn *st, int64_t *before, int64_t *after)
{
	int64_t pages = 0, size = 0;
	int ret;

	if ((ret = sqlite_query_int(st, &pages, "PRAGMA page_count")) ||
	    (ret = sqlite_query_int(st, &size, "PRAGMA page_size")))
		return ret;
	*before = pages * size;
	ret = sqlite_exec_retry(
	    st, "DELETE FROM regions WHERE id NOT IN (SELECT region_id FROM timings)", "update");
	if (!ret)
		ret = sqlite_exec_retry(st, "VACUUM", "vacuum");
	if (!ret)
		ret = sqlite_exec_retry(st, "PRAGMA wal_checkpoint(TRUNCATE)", "vacuum");
	if (!ret)
		ret = sqlite_exec_retry(st, "PRAGMA optimize", "optimize");
	if (!ret)
		ret = sqlite_used_bytes(st, after);
	return ret;
}

/* The schema 2 upgrade: run_regions for every run stored before it (every
 * run without a row there), by the front end's finish pipeline
 * (store_finish_run(), src/store/finish.c). */
static int sqlite_finish_all_runs(struct store_conn *st)
{
	sqlite3_stmt *s = NULL;
	struct i64vec ids;
	size_t i;
	int rc, ret;

	i64vec_init(&ids);
	ret = sqlite_prepare(
	    st, &s,
	    "SELECT id FROM runs WHERE id NOT IN (SELECT run_id FROM run_regions) ORDER BY id", 0,
	    "read");
	rc = ret ? SQLITE_DONE : SQLITE_OK;
	while (!ret && (rc = sqlite3_step(s)) == SQLITE_ROW)
		ret = i64vec_push(&ids, sqlite3_column_int64(s, 0));
	if (!ret && rc != SQLITE_DONE)
		ret = sqlite_err(st, rc, "read");
	for (i = 0; !ret && i < ids.len; i++)
		ret = store_finish_run(st->front, ids.v[i]);
	sqlite3_finalize(s);
	i64vec_release(&ids);
	return ret;
}

/* ---- the backend table ------------------------------------------------- */

STORE_BACKEND_TABLE(sqlite, "sqlite", STORE_CAN_TEMPORARY);
