/*
 * sql.h - the store's statements (statements.h) and how they travel from
 * the front end to a backend (private to src/store/).
 *
 * The front end (store.c and the files beside it) runs every query of the
 * store itself, by name (enum sql_id) or put together at run time from the
 * named pieces, with typed values (struct store_value); a backend runs
 * them with its driver (struct store_backend's exec()) and hands each
 * result row back through the column getters of rows.h.  The text of each
 * statement is written once, in statements.h, in the SQL both backends
 * share; sqltext.h compiles that list in each backend's spelling of the
 * few things that differ (placeholders, id lists, prefix matching) into
 * the struct store_sql of its table.
 *
 * Ownership: the tables are static constants; a struct store_stmt and its
 * values only point at the caller's memory, read during the call.
 */
#ifndef SCOPEDB_STORE_SQL_H
#define SCOPEDB_STORE_SQL_H

#include <stddef.h>
#include <stdint.h>

#include "store/rows.h"

/* Flags of a statement (statements.h). */
#define SQL_WRITE 1u /* changes the store: its errors say "cannot update", else "cannot read" */
#define SQL_BINARY                                                                                 \
	2u /* its columns are bigint, double precision, bytea or text only: read                   \
	    * without text conversion where the driver can (PostgreSQL) */
#define SQL_STREAM                                                                                 \
	4u /* a scan of a whole run: rows handed over as they arrive, in bounded                   \
	    * memory, and the callback must not run another statement */

/* The statements, by name: SQL_RUN_GET ... (statements.h). */
enum sql_id {
#define SQL(name, flags, text) SQL_##name,
#include "store/statements.h"
#undef SQL
	SQL_COUNT
};

/* A backend's spelling of statements.h. */
struct store_sql {
	const char *const *text; /* SQL_COUNT statements */
	char param;		 /* placeholders of the SQL put together at run time: '?' for
				  * ?N, '$' for $N */
};

/* ---- fragments the statements share ------------------------------------ */

/* The columns of runs read by rows_run(), in that order. */
#define SQL_RUN_COLUMNS                                                                            \
	"id, sha256, source_path, ingested_at, recorded_at, label, commit_sha, branch, "           \
	"schema_version, layout, num_ranks, num_regions, num_calls"

/* The order of every "newest first" listing and selector (select.h). */
#define SQL_NEWEST_FIRST " ORDER BY sort_time DESC, id DESC"

/*
 * A region pooled over the selected ranks, shared by store_region_stats()
 * and store_region_history() so that diff, check, show and history pool
 * identically.  SQL_SEL_SUMS sums the selected timings rows only, in a
 * subquery s grouped by region (and run); SQL_SEL_COLUMNS reads it beside
 * the region's run_regions row g, which also lists a region whose rows are
 * all of other ranks (calls 0) and gives has_events over every rank.  The
 * SQL_REGION_AGGREGATE_COLUMNS columns are read back by rows_region(),
 * then SQL_SEL_SELF: the self time, NULL when a selected row's is unknown.
 * (A CASE on the rank per aggregate and row, over every row of the run,
 * cost five times as much: bench/RESULTS.md.)  The sums are cast: a
 * PostgreSQL sum of bigint is a numeric, read through a double, which
 * above 2^53 ns is not the sum.
 */
#define SQL_SEL_SUMS                                                                               \
	"CAST(sum(calls) AS BIGINT) AS calls, CAST(sum(total_ns) AS BIGINT) AS total_ns, "         \
	"min(CASE WHEN calls > 0 THEN min_ns END) AS min_ns, "                                     \
	"max(CASE WHEN calls > 0 THEN max_ns END) AS max_ns, "                                     \
	"CAST(sum(gpu_count) AS BIGINT) AS gpu_count, "                                            \
	"CAST(sum(gpu_total_ns) AS BIGINT) AS gpu_total_ns, "                                      \
	"sum(CASE WHEN total_ns > 0 THEN 1 ELSE 0 END) AS busy, "                                  \
	"max(CASE WHEN total_ns > 0 THEN total_ns END) AS busy_max, count(*) AS n, "               \
	"CASE WHEN count(exclusive_ns) = count(*) THEN CAST(sum(exclusive_ns) AS BIGINT) END "     \
	"AS self_ns"
#define SQL_SEL_COLUMNS                                                                            \
	"g.has_events, coalesce(s.calls, 0), coalesce(s.total_ns, 0), s.min_ns, s.max_ns, "        \
	"coalesce(s.gpu_count, 0), coalesce(s.gpu_total_ns, 0), coalesce(s.busy, 0), s.busy_max, " \
	"coalesce(s.n, 0)"
#define SQL_SEL_SELF "CASE WHEN s.n IS NULL THEN 0 ELSE s.self_ns END"
#define SQL_REGION_AGGREGATE_COLUMNS 10

/*
 * The same over all ranks, without the per-row rank test: what a finished
 * run stores in run_regions once (issue 6: a medium run has 16,384
 * timings rows but 256 regions), in the columns SQL_RUN_REGIONS_COLUMNS.
 */
#define SQL_ALL_RANKS_AGGREGATES                                                                   \
	"min(has_events), sum(calls), sum(total_ns), "                                             \
	"min(CASE WHEN calls > 0 THEN min_ns END), max(CASE WHEN calls > 0 THEN max_ns END), "     \
	"sum(gpu_count), sum(gpu_total_ns), sum(CASE WHEN total_ns > 0 THEN 1 ELSE 0 END), "       \
	"max(CASE WHEN total_ns > 0 THEN total_ns END), count(*)"
/* The self time of a region over all ranks (run_regions.self_ns): NULL
 * when a rank's is unknown (docs/format.md section 10.6). */
#define SQL_ALL_RANKS_SELF "CASE WHEN count(exclusive_ns) = count(*) THEN sum(exclusive_ns) END"
#define SQL_RUN_REGIONS_COLUMNS                                                                    \
	"has_events, calls, total_ns, min_ns, max_ns, gpu_count, gpu_total_ns, busy_ranks, "       \
	"busy_max_ns, nranks"
/* The columns of the all-ranks sums of a run_regions or paths row, in the
 * order the front end writes them (struct store_sums, store_cell_sums()). */
#define SQL_SUMS_COLUMNS "calls, total_ns, min_ns, max_ns, busy_ranks, busy_max_ns, nranks, self_ns"
/* The columns of a run_regions row a backend writes (write_rows(): the
 * cells of totals.c), 16 of them. */
#define SQL_RUN_REGIONS_ROW_COLUMNS                                                                \
	"run_id, region_id, has_events, gpu_count, gpu_total_ns, " SQL_SUMS_COLUMNS ", p50_ns, "   \
	"p95_ns, p99_ns"

/* The columns of a timings row a backend writes (write_rows()), after its
 * id when the backend gives ids itself, in struct store_timing's order. */
#define SQL_TIMINGS_COLUMNS                                                                        \
	"run_id, region_id, rank, has_events, calls, total_ns, min_ns, max_ns, first_ns, "         \
	"last_ns, start_min_ns, end_max_ns, mean_ns, m2, exclusive_ns, gpu_count, "                \
	"gpu_total_ns, source_file, source_line, source_text, tags"

/* The columns of the call tree's bulk tables (write_rows()): a paths row
 * (the cells of paths.c: the path, then its sums and percentiles, 16 of
 * them) and a path_ranks row (struct store_path_rank's order). */
#define SQL_PATHS_COLUMNS                                                                          \
	"run_id, path_id, parent_id, region_id, depth, " SQL_SUMS_COLUMNS ", p50_ns, p95_ns, "     \
	"p99_ns"
#define SQL_PATH_RANKS_COLUMNS                                                                     \
	"run_id, path_id, rank, calls, nested, total_ns, self_ns, min_ns, max_ns, durations"

/* ---- values and statements ---------------------------------------------- */

enum store_vtype {
	STORE_NULL,
	STORE_INT,    /* i */
	STORE_REAL,   /* d */
	STORE_TEXT,   /* s */
	STORE_IDS,    /* ids[0..n): an id list (P_IDS, IN_IDS) */
	STORE_REALS,  /* reals[0..n): a list of numbers (a JSON array, a float8[]) */
	STORE_PREFIX, /* s: the start of a text, for PREFIX_OP */
};

struct store_value {
	enum store_vtype type;
	int64_t i;
	double d;
	const char *s;
	const int64_t *ids;
	size_t n;
	const double *reals;
};

/* Values, to write a statement's in place: {sql_int(run_id), sql_str(tag)}. */
static inline struct store_value sql_value(enum store_vtype type, int64_t i, double d,
					   const char *s, const int64_t *ids, size_t n)
{
	struct store_value v = {type, i, d, s, ids, n, NULL};

	return v;
}

static inline struct store_value sql_null(void)
{
	return sql_value(STORE_NULL, 0, 0, NULL, NULL, 0);
}

static inline struct store_value sql_int(int64_t i)
{
	return sql_value(STORE_INT, i, 0, NULL, NULL, 0);
}

static inline struct store_value sql_real(double d)
{
	return sql_value(STORE_REAL, 0, d, NULL, NULL, 0);
}

/* A text; NULL stays NULL. */
static inline struct store_value sql_str(const char *s)
{
	return sql_value(s ? STORE_TEXT : STORE_NULL, 0, 0, s, NULL, 0);
}

/* A text, NULL for "" too (the store keeps no empty strings). */
static inline struct store_value sql_str_or_null(const char *s)
{
	return sql_str(s && *s ? s : NULL);
}

/* ids[0..n); NULL (all) when ids is NULL. */
static inline struct store_value sql_ids(const int64_t *ids, size_t n)
{
	return sql_value(ids ? STORE_IDS : STORE_NULL, 0, 0, NULL, ids, ids ? n : 0);
}

static inline struct store_value sql_reals(const double *reals, size_t n)
{
	struct store_value v = sql_value(STORE_REALS, 0, 0, NULL, NULL, n);

	v.reals = reals;
	return v;
}

/* The start of a text, for PREFIX_OP. */
static inline struct store_value sql_prefix(const char *s)
{
	return sql_value(STORE_PREFIX, 0, 0, s, NULL, 0);
}

/* One statement to run: a named one (id, its text and flags from the
 * tables), or SQL put together at run time (id -1). */
struct store_stmt {
	int id;
	const char *sql;
	unsigned flags;
	const struct store_value *v; /* parameter i + 1 is v[i] */
	size_t n;
};

/* Called by exec() with each result row (valid during the call only); a
 * non-zero return stops the statement and is returned by exec(). */
typedef int (*store_row_fn)(void *ctx, const struct rows_row *r);

#endif
