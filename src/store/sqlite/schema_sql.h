/*
 * schema_sql.h - the SQL migrations of schema/NNNN_name.sql, embedded at build time
 * by cmake/embed_schema.cmake.  schema_sql[i] upgrades a store from
 * user_version i to i + 1; schema_sql[schema_sql_count] is NULL.
 *
 * Ownership: static constants of the generated file.
 */
#ifndef SCOPEDB_SCHEMA_SQL_H
#define SCOPEDB_SCHEMA_SQL_H

#include <stddef.h>

extern const char *const schema_sql[];
extern const int schema_sql_count;

#endif
