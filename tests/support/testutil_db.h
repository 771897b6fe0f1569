/*
 * testutil_db.h - direct SQLite access for the tests that inspect a store
 * file behind the store API (test_store, test_ingest, test_hostile): open a
 * connection, prepare a statement, and read the first column of a query's
 * first row.  Every failure of the sqlite3 API fails the test (cmocka).
 *
 * Ownership: tu_db_open() returns a connection the caller closes with
 * sqlite3_close(); tu_sql_prepare() a statement the caller finalizes.  The
 * path forms (tu_db_*) open and close their own connection per call.
 */
#ifndef SCOPEDB_TESTUTIL_DB_H
#define SCOPEDB_TESTUTIL_DB_H

#include <stddef.h>
#include <stdint.h>

#include <sqlite3.h>

/* What the integer and double queries return when there is no row. */
#define TU_DB_NONE (-999)

/* Open path read-only, or read-write (created if missing), with foreign
 * keys on and a 10 s busy timeout. */
sqlite3 *tu_db_open(const char *path, int readonly);

/* Prepare sql on db (the test fails if it does not compile). */
sqlite3_stmt *tu_sql_prepare(sqlite3 *db, const char *sql);

/* The first column of sql's first row: an integer or a double (TU_DB_NONE
 * without a row), or text copied into buf ("<none>" without a row,
 * "<null>" for NULL; returns buf). */
int64_t tu_sql_int(sqlite3 *db, const char *sql);
double tu_sql_double(sqlite3 *db, const char *sql);
const char *tu_sql_text(char *buf, size_t len, sqlite3 *db, const char *sql);

/* The same on a read-write connection of its own to path. */
int64_t tu_db_int(const char *path, const char *sql);
double tu_db_double(const char *path, const char *sql);
const char *tu_db_text(char *buf, size_t len, const char *path, const char *sql);

/* sqlite3_exec() of sql on path; returns its result code. */
int tu_db_exec(const char *path, const char *sql);

#endif
