/*
 * testutil_db.c - direct SQLite queries for the tests (see testutil_db.h).
 */
#include <stdio.h>

#include "testutil.h"
#include "testutil_db.h"

sqlite3 *tu_db_open(const char *path, int readonly)
{
	int flags = readonly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
	sqlite3 *db = NULL;

	assert_int_equal(sqlite3_open_v2(path, &db, flags, NULL), SQLITE_OK);
	sqlite3_busy_timeout(db, 10000);
	assert_int_equal(sqlite3_exec(db, "PRAGMA foreign_keys = ON", NULL, NULL, NULL), SQLITE_OK);
	return db;
}

sqlite3_stmt *tu_sql_prepare(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *s = NULL;
	int rc = sqlite3_prepare_v2(db, sql, -1, &s, NULL);

	if (rc != SQLITE_OK)
		fail_msg("cannot prepare \"%s\": %s", sql, sqlite3_errmsg(db));
	return s;
}

/* sql's statement stepped onto its first row, or NULL when it has none. */
static sqlite3_stmt *tu_sql_first(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *s = tu_sql_prepare(db, sql);

	if (sqlite3_step(s) == SQLITE_ROW)
		return s;
	sqlite3_finalize(s);
	return NULL;
}

int64_t tu_sql_int(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *s = tu_sql_first(db, sql);
	int64_t v = s ? sqlite3_column_int64(s, 0) : TU_DB_NONE;

	sqlite3_finalize(s);
	return v;
}

double tu_sql_double(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *s = tu_sql_first(db, sql);
	double v = s ? sqlite3_column_double(s, 0) : TU_DB_NONE;

	sqlite3_finalize(s);
	return v;
}

const char *tu_sql_text(char *buf, size_t len, sqlite3 *db, const char *sql)
{
	sqlite3_stmt *s = tu_sql_first(db, sql);

	if (!s)
		snprintf(buf, len, "<none>");
	else if (sqlite3_column_type(s, 0) == SQLITE_NULL)
		snprintf(buf, len, "<null>");
	else
		snprintf(buf, len, "%s", (const char *)sqlite3_column_text(s, 0));
	sqlite3_finalize(s);
	return buf;
}

int64_t tu_db_int(const char *path, const char *sql)
{
	sqlite3 *db = tu_db_open(path, 0);
	int64_t v = tu_sql_int(db, sql);

	sqlite3_close(db);
	return v;
}

double tu_db_double(const char *path, const char *sql)
{
	sqlite3 *db = tu_db_open(path, 0);
	double v = tu_sql_double(db, sql);

	sqlite3_close(db);
	return v;
}

const char *tu_db_text(char *buf, size_t len, const char *path, const char *sql)
{
	sqlite3 *db = tu_db_open(path, 0);

	tu_sql_text(buf, len, db, sql);
	sqlite3_close(db);
	return buf;
}

int tu_db_exec(const char *path, const char *sql)
{
	sqlite3 *db = tu_db_open(path, 0);
	int rc = sqlite3_exec(db, sql, NULL, NULL, NULL);

	sqlite3_close(db);
	return rc;
}
