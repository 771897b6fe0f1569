/*
 * sql.c - the front end's statements (statements.h) in PostgreSQL's
 * spelling: postgres_sql (see sqltext.h).
 */
#include "store/postgres/postgres.h"

#define DIALECT(sqlite, postgres) postgres
#define STORE_SQL_NAME postgres_sql
#include "store/sqltext.h"
