/*
 * sql.c - the front end's statements (statements.h) in PostgreSQL's
 * spelling (see sql.h): $N placeholders, typed where the server cannot
 * tell a parameter's type from its place, id lists as bigint[] literals
 * matched with ANY(), prefixes with ^@ (starts_with()), and "no limit" as
 * a NULL limit.
 */
#include "store/postgres/postgres.h"
#include "store/sql.h"

#define P(n) "$" #n
#define P_INT(n) "$" #n "::bigint"
#define P_TEXT(n) "$" #n "::text"
#define P_IDS(n) "$" #n "::bigint[]"
#define IN_IDS(n) "= ANY($" #n "::bigint[])"
#define PREFIX_OP "^@"
#define LIMIT_P(n) "LIMIT $" #n "::bigint"
#define DIALECT(sqlite, postgres) postgres

static const char *const postgres_sql_text[SQL_COUNT] = {
#define SQL(name, flags, text) [SQL_##name] = text,
#include "store/statements.h"
#undef SQL
};

const struct store_sql postgres_sql = {postgres_sql_text, '$'};
