/*
 * sqltext.h - statements.h in one backend's spelling (private to
 * src/store/; no include guard): a backend's sql.c defines DIALECT(sqlite,
 * postgres) to pick its argument and STORE_SQL_NAME to name the struct
 * store_sql this file then defines, e.g.
 *
 *     #define DIALECT(sqlite, postgres) sqlite
 *     #define STORE_SQL_NAME sqlite_sql
 *     #include "store/sqltext.h"
 *
 * Every difference of spelling between the dialects is here, once: the
 * placeholders (?N, $N, with the type where the server cannot tell it from
 * the parameter's place), id lists (a JSON array read with json_each(), a
 * bigint[] matched with ANY()), prefix matching (GLOB with a pattern the
 * backend makes of a STORE_PREFIX value, ^@) and "no limit" (a NULL
 * limit, made -1 for SQLite).  statements.h uses them (its head comment);
 * a statement that really differs says so with DIALECT() itself.  A new
 * dialect is one more argument of DIALECT().
 *
 * Ownership: the table and the struct are static constants.
 */
#include "store/sql.h"

#define P(n) DIALECT("?" #n, "$" #n)
#define P_INT(n) DIALECT("?" #n, "$" #n "::bigint")
#define P_TEXT(n) DIALECT("?" #n, "$" #n "::text")
#define P_IDS(n) DIALECT("?" #n, "$" #n "::bigint[]")
#define IN_IDS(n) DIALECT("IN (SELECT value FROM json_each(?" #n "))", "= ANY($" #n "::bigint[])")
#define PREFIX_OP DIALECT("GLOB", "^@")
#define LIMIT_P(n) DIALECT("LIMIT coalesce(?" #n ", -1)", "LIMIT $" #n "::bigint")

static const char *const store_sql_text[SQL_COUNT] = {
#define SQL(name, flags, text) [SQL_##name] = text,
#include "store/statements.h"
#undef SQL
};

const struct store_sql STORE_SQL_NAME = {store_sql_text, DIALECT('?', '$')};

#undef P
#undef P_INT
#undef P_TEXT
#undef P_IDS
#undef IN_IDS
#undef PREFIX_OP
#undef LIMIT_P
