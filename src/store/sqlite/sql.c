/*
 * sql.c - the front end's statements (statements.h) in SQLite's spelling:
 * sqlite_sql (see sqltext.h).
 */
#include "store/sqlite/sqlite.h"

#define DIALECT(sqlite, postgres) sqlite
#define STORE_SQL_NAME sqlite_sql
#include "store/sqltext.h"
