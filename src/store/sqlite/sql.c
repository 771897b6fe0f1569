/*
 * sql.c - the front end's statements (statements.h) in SQLite's spelling
 * (see sql.h): ?N placeholders, id lists as JSON arrays read with
 * json_each(), prefixes as GLOB patterns (exec.c makes a STORE_PREFIX
 * value one), and "no limit" as a NULL limit made -1.
 */
#include "store/sql.h"
#include "store/sqlite/sqlite.h"

#define P(n) "?" #n
#define P_INT(n) P(n)
#define P_TEXT(n) P(n)
#define P_IDS(n) P(n)
#define IN_IDS(n) "IN (SELECT value FROM json_each(?" #n "))"
#define PREFIX_OP "GLOB"
#define LIMIT_P(n) "LIMIT coalesce(?" #n ", -1)"
#define DIALECT(sqlite, postgres) sqlite

static const char *const sqlite_sql_text[SQL_COUNT] = {
#define SQL(name, flags, text) [SQL_##name] = text,
#include "store/statements.h"
#undef SQL
};

const struct store_sql sqlite_sql = {sqlite_sql_text, '?'};
