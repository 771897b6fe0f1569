/*
 * conn.c - the PostgreSQL backend's connection: connecting, schema
 * migrations, transactions, upkeep, and the backend table (see
 * postgres.h).
 *
 * postgres_open() connects, makes the session's output exact (floats as
 * shortest exact text, notices off), identifies the database (the
 * scopedb_meta table: application and schema_version) and applies the
 * missing migrations of schema/postgres/ under the store's write lock, all
 * of them in one transaction for a new store, one each for an older one,
 * identifying again under the lock because another machine may have
 * created or upgraded the store meanwhile.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scopedb/err.h"
#include "scopedb/store.h"
#include "scopedb/util.h"
#include "store/backend.h"
#include "store/postgres/postgres.h"
#include "store/postgres/schema_sql.h"
#include "store/postgres/uri.h"
#include "store/verify.h"

/* Default time to wait for another writer's lock, as SQLite's. */
#define POSTGRES_BUSY_MS 30000

static int postgres_in_txn(struct store_conn *c);
static void postgres_rollback(struct store_conn *c);

/* ---- open / close / migrations ----------------------------------------- */

/*
 * Every table of a store (the CREATE TABLEs of schema/postgres/), once:
 * what the identity check guards (PG_TABLES, the elements of an SQL
 * array), what the sizes and the used bytes add up and what compact
 * rewrites.  A migration that creates a table names it here too:
 * e2e_pg_damage's schema-objects case puts a trigger on each table of a
 * new store, and each one must be refused.
 */
/* clang-format off */
#define PG_TABLE_LIST(X, LAST) \
	X(scopedb_meta) \
	X(run_counter) \
	X(runs) \
	X(run_tags) \
	X(run_metadata) \
	X(regions) \
	X(timings) \
	X(timings_durations) \
	X(run_regions) \
	X(pins) \
	X(run_nesting) \
	X(paths) \
	LAST(path_ranks)
/* clang-format on */
#define PG_QUOTED(t) "'" #t "', "
#define PG_QUOTED_LAST(t) "'" #t "'"
#define PG_TABLES PG_TABLE_LIST(PG_QUOTED, PG_QUOTED_LAST)
#define PG_NAMED(t) #t ", "
#define PG_NAMED_LAST(t) #t
#define PG_USED(t) "(SELECT coalesce(sum(pg_column_size(t.*)), 0) FROM " #t " t) + "
#define PG_USED_LAST(t) "(SELECT coalesce(sum(pg_column_size(t.*)), 0) FROM " #t " t)"

/*
 * What would run someone else's SQL in our session, as one SELECT column
 * for postgres_identify(): "KIND<tab>NAME" of the first trigger (our
 * foreign keys' are internal), rule, row-level security policy, table
 * inheriting from one of the store's tables (a read of the parent reads
 * it, a delete fires its triggers: a partition is one too), or view,
 * partitioned or foreign table in place of one, or NULL.  Anyone who may
 * alter the tables of a shared database could add one; scopedb creates
 * none, so a store carrying one is refused.  Riding on the identity query,
 * the check costs no round trip.
 */
#define PG_HAZARD                                                                                  \
	"(WITH t AS (SELECT to_regclass(n) AS oid FROM unnest(ARRAY[" PG_TABLES "]) AS n) "        \
	"SELECT kind || E'\\t' || name FROM ("                                                     \
	"SELECT 'trigger' AS kind, tgname::text AS name FROM pg_trigger WHERE NOT tgisinternal "   \
	"AND tgrelid IN (SELECT oid FROM t) "                                                      \
	"UNION ALL SELECT 'rule', rulename::text FROM pg_rewrite WHERE rulename <> '_RETURN' "     \
	"AND ev_class IN (SELECT oid FROM t) "                                                     \
	"UNION ALL SELECT 'row-level security policy', polname::text FROM pg_policy "              \
	"WHERE polrelid IN (SELECT oid FROM t) "                                                   \
	"UNION ALL SELECT 'child table', inhrelid::regclass::text FROM pg_inherits "               \
	"WHERE inhparent IN (SELECT oid FROM t) "                                                  \
	"UNION ALL SELECT CASE relkind WHEN 'p' THEN 'partitioned table' WHEN 'f' THEN "           \
	"'foreign table' ELSE 'view' END, relname::text FROM pg_class WHERE relkind <> 'r' "       \
	"AND oid IN (SELECT oid FROM t)) h LIMIT 1)"

/* The session's settings, as SELECT columns (postgres_identify()). */
#define PG_SESSION_SETTINGS                                                                        \
	"set_config('extra_float_digits', '3', false), "                                           \
	"set_config('client_min_messages', 'warning', false), "                                    \
	"set_config('lock_timeout', '30000', false)"

/*
 * *out = the store's schema version, 0 for a database without a scopedb
 * store.  A database with our tables but no scopedb_meta, or another
 * application's, is refused, and so is a store of a newer scopedb.
 */
static int postgres_identify(struct store_conn *c, int64_t *out)
{
	PGresult *r = NULL;
	char *app = NULL;
	int64_t version = 0;
	int retries = 0, ret = 0;

	*out = 0;
	/* A store's identity and the session's settings (floats as exact
	 * text, no notices, the default lock wait) in one round trip; a
	 * database without scopedb_meta is looked at more closely. */
	postgres_settle(c);
again:
	r = PQexec(
	    c->db,
	    "SELECT (SELECT value FROM scopedb_meta WHERE key = 'application'), "
	    "(SELECT value FROM scopedb_meta WHERE key = 'schema_version'), " PG_SESSION_SETTINGS
	    ", " PG_HAZARD);
	if (PQresultStatus(r) != PGRES_TUPLES_OK) {
		const char *state = PQresultErrorField(r, PG_DIAG_SQLSTATE);

		if (!state || strcmp(state, "42P01") != 0 || postgres_in_txn(c)) {
			ret = postgres_err(c, r, "open");
			goto out;
		}
		PQclear(r);
		/* scopedb_meta may have been committed since, with the other
		 * tables, by a writer creating the store (outside a transaction
		 * each statement sees the newest commits): look again then.
		 * So too when runs is there without it: a commit during this
		 * statement can show the new runs while scopedb_meta is still
		 * the "does not exist" the statement before cached (16
		 * writers creating one store: one was told "not a scopedb
		 * database"); a database of other tables named runs stays so */
		ret =
		    postgres_result(c, &r,
				    "SELECT to_regclass('runs') IS NOT NULL, "
				    "to_regclass('scopedb_meta') IS NOT NULL, " PG_SESSION_SETTINGS,
				    0, NULL, 0, "open");
		if (!ret &&
		    (strcmp(PQgetvalue(r, 0, 1), "t") == 0 ||
		     strcmp(PQgetvalue(r, 0, 0), "t") == 0) &&
		    retries++ < 3) {
			PQclear(r);
			goto again;
		}
		if (!ret && strcmp(PQgetvalue(r, 0, 0), "t") == 0)
			ret = err_set(ERR_STORE, "cannot open store '%s': not a scopedb database",
				      c->location);
		goto out;
	}
	if (!PQgetisnull(r, 0, 0) && !(app = util_strdup(PQgetvalue(r, 0, 0)))) {
		ret = ERR_NOMEM;
		goto out;
	}
	version = pg_int(r, 0, 1);
	/* first the hazard, also for a database that looks new: an empty
	 * scopedb_meta made by someone else may carry a trigger, which the
	 * migrations' writes would fire */
	if (!PQgetisnull(r, 0, 5)) {
		const char *hazard = PQgetvalue(r, 0, 5);
		const char *tab = strchr(hazard, '\t');

		ret = verify_foreign(c->location, hazard, tab ? (int)(tab - hazard) : 0,
				     tab ? tab + 1 : hazard);
	} else if (!PQgetisnull(r, 0, 1) && !pg_text_number(PQgetvalue(r, 0, 1), 1)) {
		ret = err_set(ERR_STORE,
			      "store '%s' is damaged: its schema version '%s' is not a number",
			      c->location, PQgetvalue(r, 0, 1));
	} else if (!app && version == 0) {
		goto out;
	} else if (!app || strcmp(app, "scopedb") != 0) {
		ret = err_set(ERR_STORE, "cannot open store '%s': not a scopedb database",
			      c->location);
	} else if (version > postgres_schema_sql_count || version < 0) {
		ret = err_set(ERR_STORE,
			      "cannot open store '%s': written by a newer scopedb (schema version "
			      "%lld; this scopedb supports up to %d)",
			      c->location, (long long)version, postgres_schema_sql_count);
	} else {
		*out = version;
	}
out:
	PQclear(r);
	free(app);
	return ret;
}

/* Apply migration version (to version + 1) inside the caller's transaction
 * and record the new version. */
static int postgres_apply(struct store_conn *c, int64_t version)
{
	PGresult *r = PQexec(c->db, postgres_schema_sql[version]);
	char next[32];
	const char *v[1] = {next};
	int ret = 0;

	if (PQresultStatus(r) != PGRES_COMMAND_OK && PQresultStatus(r) != PGRES_TUPLES_OK) {
		const char *msg = PQresultErrorField(r, PG_DIAG_MESSAGE_PRIMARY);

		if (PQstatus(c->db) != CONNECTION_OK)
			ret = postgres_err(c, r, "open");
		else if (version == 0) /* a database of other tables, say */
			ret = err_set(ERR_STORE,
				      "cannot make a scopedb store in '%s': %s (a store of its "
				      "own: another database, or a schema of its own with "
				      "options=-csearch_path=NAME)",
				      c->location, msg ? msg : "?");
		else
			ret = err_set(ERR_STORE,
				      "cannot open store '%s': upgrade to schema version %lld "
				      "failed: %s",
				      c->location, (long long)version + 1, msg ? msg : "?");
	}
	PQclear(r);
	if (ret)
		return ret;
	snprintf(next, sizeof(next), "%lld", (long long)version + 1);
	ret = postgres_result(c, &r,
			      "INSERT INTO scopedb_meta (key, value) VALUES ('application', "
			      "'scopedb'), ('schema_version', $1) ON CONFLICT (key) DO UPDATE SET "
			      "value = excluded.value",
			      1, v, 0, "open");
	PQclear(r);
	return ret;
}

/* store_migrate()'s statements, as opening the store runs them. */
static int postgres_run_open(struct store_conn *c, const char *sql)
{
	return postgres_run(c, sql, "open");
}

/* The migrations of schema/postgres/ (store_migrate()); the lock creates
 * the table identify() reads. */
static int postgres_migrate(struct store_conn *c)
{
	struct store_migration m = {
	    postgres_schema_sql_count,
	    "BEGIN; SELECT pg_advisory_xact_lock(" POSTGRES_LOCK_KEY
	    "); CREATE TABLE IF NOT EXISTS "
	    "scopedb_meta (key text COLLATE \"C\" PRIMARY KEY, value text NOT NULL)",
	    postgres_run_open,
	    postgres_identify,
	    postgres_apply,
	    postgres_rollback};

	return store_migrate(c, &m);
}

static void quiet_notices(void *arg, const char *message)
{
	(void)arg;
	(void)message;
}

static void postgres_set_busy_timeout(struct store_conn *c, int ms)
{
	char sql[64];

	c->busy_ms = ms < 0 ? 0 : ms;
	/* lock_timeout 0 would mean "wait forever" */
	snprintf(sql, sizeof(sql), "SET lock_timeout = %d", c->busy_ms ? c->busy_ms : 1);
	if (c->db && !postgres_in_txn(c))
		(void)postgres_run(c, sql, "open");
}

static void postgres_close(struct store_conn *c);

/*
 * An older store this connection could not upgrade (ret, its error set):
 * when the role is not its tables' owner (nor a member of the owner's
 * role), which an upgrade needs, say what the store needs, with the
 * server's reason (the message less its "cannot open store '...': ") and
 * the version the store is at; any other failure stays as it is.
 */
static int postgres_upgrade_refused(struct store_conn *c, int ret, int64_t version)
{
	char why[1024], reason[1024];
	const char *p;
	PGresult *r = NULL;
	int64_t now = 0;
	int may;

	snprintf(why, sizeof(why), "%s", err_msg());
	p = strstr(why, "': ");
	snprintf(reason, sizeof(reason), "%s", p && !strncmp(why, "cannot ", 7) ? p + 3 : why);
	if (postgres_in_txn(c))
		PQclear(PQexec(c->db, "ROLLBACK"));
	/* an upgrade alters the tables: their owner's (or a member's) work */
	may = postgres_result(c, &r,
			      "SELECT coalesce((SELECT pg_has_role(tableowner, 'USAGE') FROM "
			      "pg_tables WHERE schemaname = current_schema() AND tablename = "
			      "'runs'), true)",
			      0, NULL, 0, "open") ||
	      PQntuples(r) != 1 || strcmp(PQgetvalue(r, 0, 0), "f") != 0;
	PQclear(r);
	if (may)
		return err_set(ret, "%s", why); /* as it was */
	/* the steps before the one that failed are committed */
	if (postgres_identify(c, &now) == 0 && now > 0)
		version = now;
	return err_set(ERR_STORE,
		       "cannot open store '%s': schema version %lld must be upgraded to %d, which "
		       "this role cannot do (%s); open it for writing once as its owner",
		       c->location, (long long)version, postgres_schema_sql_count, reason);
}

/*
 * Connect to loc for front (store_open() flags); front->conn is set as soon
 * as the connection exists.  A read-only open of an older store upgrades
 * it first (unless STORE_NO_UPGRADE), as SQLite's does.
 */
static int postgres_open(struct store *front, const char *loc, int flags)
{
	struct pg_secrets secrets = {.n = 0};
	struct store_conn *c;
	const char *msg;
	char *clean;
	int64_t version = 0;
	int ret;

	store_set_conn(front, NULL, NULL);
	if (!loc)
		return err_set(ERR_USAGE, "the postgresql store backend has no temporary stores");
	/* the password never shows, in messages or outputs */
	clean = postgres_mask(loc, &secrets);
	c = clean ? calloc(1, sizeof(*c)) : NULL;
	if (!c) {
		free(clean);
		return err_nomem();
	}
	c->location = clean;
	c->front = front;
	c->readonly = (flags & STORE_READONLY) != 0;
	c->busy_ms = POSTGRES_BUSY_MS;
	buf_init(&c->copy_regions);
	buf_init(&c->copy_timings);
	buf_init(&c->copy_durations);
	buf_init(&c->copy_paths);
	buf_init(&c->copy_run_regions);
	buf_init(&c->copy_path_ranks);
	store_set_conn(front, c, c->location);
	ret = pq_load(c->location);
	if (ret)
		goto out;
	c->db = PQconnectdb(loc);
	if (!c->db) {
		ret = err_nomem();
		goto out;
	}
	if (PQstatus(c->db) != CONNECTION_OK) {
		msg = PQerrorMessage(c->db);
		clean = postgres_scrub(msg, (size_t)postgres_first_line(msg), loc, c->location,
				       &secrets);
		ret = clean ? err_set(ERR_IO, "cannot open store '%s': %s", c->location, clean)
			    : err_nomem();
		free(clean);
		goto out;
	}
	PQsetNoticeProcessor(c->db, quiet_notices, NULL);
	ret = postgres_identify(c, &version);
	if (ret)
		goto out;
	if (version == 0 && (flags & (STORE_READONLY | STORE_EXISTING))) {
		ret = err_set(ERR_IO,
			      "cannot open store '%s': the database holds no scopedb store yet "
			      "(ingest into it once)",
			      c->location);
		goto out;
	}
	if (version < postgres_schema_sql_count && (flags & STORE_NO_UPGRADE) && c->readonly) {
		ret = err_set(ERR_STORE,
			      "cannot open store '%s': schema version %lld must be upgraded to %d; "
			      "open it for writing once",
			      c->location, (long long)version, postgres_schema_sql_count);
		goto out;
	}
	if (version < postgres_schema_sql_count)
		ret = postgres_migrate(c);
	if (ret && version > 0 && PQstatus(c->db) == CONNECTION_OK)
		ret = postgres_upgrade_refused(c, ret, version);
out:
	if (ret) {
		postgres_close(c);
		store_set_conn(front, NULL, NULL);
	}
	return ret;
}

static void postgres_close(struct store_conn *c)
{
	if (!c)
		return;
	if (c->db) {
		/* a read snapshot ends with the connection: no COMMIT (one
		 * round trip less per command; the server ends an open
		 * transaction on Terminate, silently) */
		if (!c->commit_due && postgres_in_txn(c))
			PQclear(PQexec(c->db, "ROLLBACK"));
		PQfinish(c->db);
	}
	buf_release(&c->copy_regions);
	buf_release(&c->copy_timings);
	buf_release(&c->copy_durations);
	buf_release(&c->copy_paths);
	buf_release(&c->copy_run_regions);
	buf_release(&c->copy_path_ranks);
	free(c->location);
	free(c);
}

static int postgres_schema_version(void)
{
	return postgres_schema_sql_count;
}

/* ---- transactions ------------------------------------------------------ */

static int postgres_in_txn(struct store_conn *c)
{
	PGTransactionStatusType t;

	postgres_settle(c);
	t = PQtransactionStatus(c->db);
	return t == PQTRANS_INTRANS || t == PQTRANS_INERROR || t == PQTRANS_ACTIVE;
}

/* Forget the transaction's next timings id and pending COPY rows. */
static void postgres_forget(struct store_conn *c)
{
	c->next_timing = 0;
	c->copy_regions.len = 0;
	c->copy_timings.len = 0;
	c->copy_durations.len = 0;
	c->copy_paths.len = 0;
	c->copy_run_regions.len = 0;
	c->copy_path_ranks.len = 0;
}

static int postgres_begin(struct store_conn *c)
{
	int ret;

	if (postgres_in_txn(c))
		return err_set(ERR_USAGE,
			       "cannot begin a transaction on store '%s': one is already open",
			       c->location);
	postgres_forget(c);
	/* one round trip: both in one simple query */
	ret =
	    postgres_run(c, "BEGIN; SELECT pg_advisory_xact_lock(" POSTGRES_LOCK_KEY ")", "update");
	if (ret)
		postgres_rollback(c);
	return ret;
}

static int postgres_commit(struct store_conn *c)
{
	PGresult *r;
	int ret = postgres_flush(c);

	if (ret) {
		postgres_rollback(c);
		return ret;
	}
	r = PQexec(c->db, "COMMIT");
	/* COMMIT of a failed transaction reports success and rolls back */
	if (PQresultStatus(r) != PGRES_COMMAND_OK)
		ret = postgres_err(c, r, "update");
	else if (strcmp(PQcmdStatus(r), "COMMIT") != 0)
		ret =
		    err_set(ERR_STORE, "cannot update store '%s': the transaction was rolled back",
			    c->location);
	PQclear(r);
	if (ret)
		postgres_rollback(c);
	c->next_timing = 0;
	return ret;
}

static void postgres_rollback(struct store_conn *c)
{
	if (!c || !c->db)
		return;
	postgres_forget(c);
	if (PQstatus(c->db) == CONNECTION_OK && postgres_in_txn(c))
		PQclear(PQexec(c->db, "ROLLBACK"));
}

/* A REPEATABLE READ snapshot when no transaction is open. */
static int postgres_read_begin(struct store_conn *c, int *started)
{
	int ret;

	*started = 0;
	if (postgres_in_txn(c))
		return 0;
	ret = postgres_run(c, "BEGIN ISOLATION LEVEL REPEATABLE READ", "read");
	*started = ret == 0;
	c->reading = *started;
	return ret;
}

/* The COMMIT waits for the next statement (postgres_settle()), and is not
 * sent at all when the connection is closed first, as it is at the end of
 * every read command. */
static void postgres_read_end(struct store_conn *c)
{
	if (c && c->db && postgres_in_txn(c))
		c->commit_due = 1;
	if (c)
		c->reading = 0;
}

/* ---- maintenance ------------------------------------------------------- */

/* The bytes of every scopedb table with its indexes and TOAST. */
static int postgres_size(struct store_conn *c, int64_t *out)
{
	return postgres_query_int(
	    c, out,
	    "SELECT sum(pg_total_relation_size(to_regclass(t))) FROM unnest(ARRAY[" PG_TABLES
	    "]) AS t");
}

/*
 * The bytes of the rows the current transaction sees in every scopedb
 * table (store_used_bytes()).  Not postgres_size(): PostgreSQL frees the
 * space of deleted rows only at VACUUM, so the relation sizes would not
 * change inside prune's transaction; the live rows' sizes (as stored,
 * compressed) do, and their difference is what the removed runs took.
 * Indexes are not counted.  Reads every row: prune's cost, not a query's.
 */
static int postgres_used_bytes(struct store_conn *c, int64_t *out)
{
	return postgres_query_int(c, out, "SELECT " PG_TABLE_LIST(PG_USED, PG_USED_LAST));
}

/*
 * VACUUM skips, with a warning only, each table the session's role may not
 * vacuum (PostgreSQL 15: only its owner, the database's owner or a
 * superuser may, a member role through its inherited privileges only, as
 * pg_has_role(..., 'USAGE') tells; a newer server's MAINTAIN privilege
 * is not asked for): a role given SELECT/INSERT/UPDATE/DELETE, as
 * docs/team-store.md advises, would compact nothing and say it did.  Such
 * tables are counted first, and vacuum refused before it changes anything.
 */
static int postgres_vacuum_allowed(struct store_conn *c)
{
	int64_t n = 0;
	int ret = postgres_query_int(
	    c, &n,
	    "SELECT count(*) FROM unnest(ARRAY[" PG_TABLES "]) AS t "
	    "WHERE NOT (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) "
	    "AND NOT pg_has_role((SELECT datdba FROM pg_database "
	    "WHERE datname = current_database()), 'USAGE') "
	    "AND NOT pg_has_role((SELECT relowner FROM pg_class WHERE oid = to_regclass(t)), "
	    "'USAGE')");

	if (!ret && n > 0)
		ret =
		    err_set(ERR_STORE,
			    "cannot vacuum store '%s': role '%s' does not own %lld of its tables, "
			    "and PostgreSQL lets only their owner, the database's owner or a "
			    "superuser rewrite them; run 'scopedb vacuum' as the owner of the "
			    "store's tables",
			    c->location, util_quote_msg(PQuser(c->db)), (long long)n);
	return ret;
}

/* Forget unused region names, rewrite the tables (VACUUM FULL gives the
 * space of removed runs back) and refresh the planner's statistics. */
static int postgres_compact(struct store_conn *c, int64_t *before, int64_t *after)
{
	int ret;

	ret = postgres_vacuum_allowed(c);
	if (!ret)
		ret = postgres_size(c, before);
	if (!ret)
		ret = postgres_begin(c);
	if (!ret) {
		ret = postgres_run(c,
				   "DELETE FROM regions WHERE id NOT IN (SELECT region_id FROM "
				   "timings) AND id NOT IN (SELECT region_id FROM run_regions)",
				   "update");
		ret = ret ? (postgres_rollback(c), ret) : postgres_commit(c);
	}
	if (!ret)
		ret = postgres_run(
		    c, "VACUUM (FULL, ANALYZE) " PG_TABLE_LIST(PG_NAMED, PG_NAMED_LAST), "vacuum");
	if (!ret)
		ret = postgres_size(c, after);
	return ret;
}

/* ---- the backend table -------------------------------------------------- */

STORE_BACKEND_TABLE(postgres, "postgresql", STORE_READ_AHEAD);
