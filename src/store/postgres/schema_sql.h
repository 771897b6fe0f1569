/*
 * schema_sql.h - the SQL migrations of schema/postgres/NNNN_name.sql,
 * embedded at build time by cmake/embed_schema.cmake.
 * postgres_schema_sql[i] upgrades a store from schema_version i to i + 1;
 * postgres_schema_sql[postgres_schema_sql_count] is NULL.
 *
 * Ownership: static constants of the generated file.
 */
#ifndef SCOPEDB_POSTGRES_SCHEMA_SQL_H
#define SCOPEDB_POSTGRES_SCHEMA_SQL_H

#include <stddef.h>

extern const char *const postgres_schema_sql[];
extern const int postgres_schema_sql_count;

#endif
