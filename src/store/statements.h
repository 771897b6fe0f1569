/*
 * statements.h - every statement the store's front end runs, once, for
 * every backend (an X-macro list; no include guard).
 *
 * Each line is SQL(NAME, FLAGS, TEXT): the statement SQL_NAME (sql.h), its
 * SQL_* flags and its text, written once in the SQL the backends share.
 * Where the dialects differ, the text says so through the macros of
 * sqltext.h, which spells this list for each backend:
 *
 *   P(n)        the n-th parameter (?n in SQLite, $n in PostgreSQL)
 *   P_INT(n)    the same where the server must be told its type: a
 *   P_TEXT(n)   bigint, a text, a list of ids (P_IDS: SQLite's JSON
 *   P_IDS(n)    array, PostgreSQL's bigint[]); NULL for "all"
 *   IN_IDS(n)   "is one of the ids of parameter n" (json_each(), ANY())
 *   PREFIX_OP   "starts with" a STORE_PREFIX value (GLOB, ^@)
 *   LIMIT_P(n)  LIMIT parameter n, NULL for no limit
 *   DIALECT(sqlite, postgres)  text where the two really differ
 *
 * Several entries are pieces of statements the front end puts together at
 * run time around the conditions of a run filter (store_where()): those
 * are named *_HEAD, *_MID and *_TAIL, or W_* for the conditions, and their
 * flags are those of the whole.  Columns are listed in the order the
 * decoders of rows.h read them.
 *
 * Ownership: the texts become static constants (sqltext.h); nothing here
 * allocates.
 */

/* each entry laid out as its SQL reads */
/* clang-format off */

/* ---- runs --------------------------------------------------------------- */

SQL(RUN_FIND_SHA, 0, "SELECT id FROM runs WHERE sha256 = " P(1))
SQL(RUN_INSERT, SQL_WRITE, DIALECT(
	"INSERT INTO runs (sha256, source_path, ingested_at, recorded_at, label, commit_sha, "
	"branch, schema_version, layout, num_ranks) "
	"VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10) RETURNING id",
	/* ids as SQLite's AUTOINCREMENT gives them: never reused */
	"WITH n AS (UPDATE run_counter SET last_id = last_id + 1 RETURNING last_id) "
	"INSERT INTO runs (id, sha256, source_path, ingested_at, recorded_at, label, "
	"commit_sha, branch, schema_version, layout, num_ranks) "
	"SELECT n.last_id, $1::text, $2::text, $3::text, $4::text, $5::text, $6::text, "
	"$7::text, $8::integer, $9::text, $10::bigint FROM n RETURNING id"))
SQL(RUN_SET_SHA, SQL_WRITE, "UPDATE runs SET sha256 = " P(2) " WHERE id = " P(1))
SQL(RUN_GET, 0, "SELECT " SQL_RUN_COLUMNS " FROM runs WHERE id = " P(1))
SQL(RUN_EXISTS, 0, "SELECT id FROM runs WHERE id = " P(1))
/* the tags of the runs of the id list P(1), each run's sorted */
SQL(RUN_TAGS, 0,
	"SELECT run_id, tag FROM run_tags WHERE run_id " IN_IDS(1) " ORDER BY run_id, tag")
/* one row per tag (kind 0) and metadata key (kind 1), each in byte order, or
 * one row with a NULL kind: a run with everything store_get_run() and
 * store_get_meta() return, in one round trip (ahead.c) */
SQL(RUN_ALL, 0,
	"SELECT " SQL_RUN_COLUMNS ", x.kind, x.k, x.v FROM runs LEFT JOIN ("
	"SELECT 0 AS kind, run_id, tag AS k, CAST(NULL AS text) AS v FROM run_tags "
	"WHERE run_id = " P(1) " UNION ALL "
	"SELECT 1, run_id, key, value FROM run_metadata WHERE run_id = " P(1) ") AS x "
	"ON x.run_id = runs.id WHERE runs.id = " P(1) " ORDER BY x.kind, x.k")
SQL(RUN_META, 0, "SELECT key, value FROM run_metadata WHERE run_id = " P(1) " ORDER BY key")
/* runs newest first, at most P(1) of them: HEAD, the filter's conditions
 * from parameter 2 on, TAIL */
SQL(RUN_FIND_HEAD, 0, "SELECT " SQL_RUN_COLUMNS " FROM runs WHERE true")
SQL(RUN_FIND_TAIL, 0, SQL_NEWEST_FIRST " " LIMIT_P(1))
SQL(RUN_REMOVE_DURATIONS, SQL_WRITE,
	"DELETE FROM timings_durations WHERE timing_id IN "
	"(SELECT id FROM timings WHERE run_id = " P(1) ")")
SQL(RUN_REMOVE_TIMINGS, SQL_WRITE, "DELETE FROM timings WHERE run_id = " P(1))
SQL(RUN_REMOVE_TOTALS, SQL_WRITE, "DELETE FROM run_regions WHERE run_id = " P(1))
SQL(RUN_REMOVE_PATH_RANKS, SQL_WRITE, "DELETE FROM path_ranks WHERE run_id = " P(1))
SQL(RUN_REMOVE_PATHS, SQL_WRITE, "DELETE FROM paths WHERE run_id = " P(1))
SQL(RUN_REMOVE_NESTING, SQL_WRITE, "DELETE FROM run_nesting WHERE run_id = " P(1))
/* run_tags and run_metadata go with it (ON DELETE CASCADE) */
SQL(RUN_REMOVE, SQL_WRITE, "DELETE FROM runs WHERE id = " P(1))

/* ---- the conditions of a run filter (store_where()) ---------------------- */

SQL(W_TAG, 0, " AND runs.id IN (SELECT run_id FROM run_tags WHERE tag = ")
SQL(W_BRANCH, 0, " AND runs.branch = ")
/* a commit prefix in any case: W_COMMIT, W_COMMIT_OR, W_COMMIT_OR, W_END
 * around its three forms (store_fold_prefix()) */
SQL(W_COMMIT, 0, " AND (runs.commit_sha " PREFIX_OP " ")
SQL(W_COMMIT_OR, 0, " OR runs.commit_sha " PREFIX_OP " ")
SQL(W_LABEL, 0, " AND runs.label = ")
SQL(W_SINCE, 0, " AND runs.sort_time >= ")
SQL(W_UNTIL, 0, " AND runs.sort_time <= ")
SQL(W_META, 0, " AND runs.id IN (SELECT run_id FROM run_metadata WHERE key = ")
SQL(W_META_VALUE, 0, " AND value = ")
/* or a run without the key (no other value): W_META_NO_OTHER, key,
 * W_META_OTHER_VALUE, value, W_END */
SQL(W_META_NO_OTHER, 0,
	" AND NOT EXISTS (SELECT 1 FROM run_metadata AS m WHERE m.run_id = runs.id AND m.key = ")
SQL(W_META_OTHER_VALUE, 0, " AND m.value <> ")
SQL(W_END, 0, ")")
/* one of the runs of an id list: W_IDS, the list's parameter, W_IDS_END */
SQL(W_IDS, 0, DIALECT(" AND runs.id IN (SELECT value FROM json_each(", " AND runs.id = ANY("))
SQL(W_IDS_END, 0, DIALECT("))", "::bigint[])"))

/* ---- tags, metadata, pins ------------------------------------------------ */

SQL(TAG_ADD, SQL_WRITE,
	"INSERT INTO run_tags (run_id, tag) VALUES (" P(1) ", " P(2) ") ON CONFLICT DO NOTHING")
SQL(TAG_REMOVE, SQL_WRITE, "DELETE FROM run_tags WHERE run_id = " P(1) " AND tag = " P(2))
SQL(META_SET, SQL_WRITE,
	"INSERT INTO run_metadata (run_id, key, value) VALUES (" P(1) ", " P(2) ", " P(3) ") "
	"ON CONFLICT (run_id, key) DO UPDATE SET value = excluded.value")
/* the same for many keys of run P(1): HEAD, then per key META_ROW, the
 * key's parameter, META_ROW_MID, the value's, META_ROW_END (rows apart by
 * META_NEXT), then TAIL */
SQL(META_SETS_HEAD, SQL_WRITE, "INSERT INTO run_metadata (run_id, key, value) VALUES ")
SQL(META_ROW, SQL_WRITE, "(" P(1) ", ")
SQL(META_ROW_MID, SQL_WRITE, ", ")
SQL(META_ROW_END, SQL_WRITE, ")")
SQL(META_NEXT, SQL_WRITE, ", ")
SQL(META_SETS_TAIL, SQL_WRITE, " ON CONFLICT (run_id, key) DO UPDATE SET value = excluded.value")
SQL(PIN_GET, 0, "SELECT run_id FROM pins WHERE name = " P(1))
SQL(PIN_PUT, SQL_WRITE,
	"INSERT INTO pins (name, run_id, pinned_at) VALUES (" P(1) ", " P(2) ", " P(3) ") "
	"ON CONFLICT (name) DO UPDATE SET run_id = excluded.run_id, "
	"pinned_at = excluded.pinned_at")
SQL(PIN_REMOVE, SQL_WRITE, "DELETE FROM pins WHERE name = " P(1) " RETURNING run_id")
SQL(PIN_LIST, 0, "SELECT name, run_id, pinned_at FROM pins ORDER BY name")
SQL(PIN_OF_RUN, 0, "SELECT name FROM pins WHERE run_id = " P(1) " ORDER BY name")
SQL(PIN_DROP_RUN, SQL_WRITE, "DELETE FROM pins WHERE run_id = " P(1))

/* ---- selectors (resolve.c) ----------------------------------------------- */

/* the back-th (P(2)) newest run of a kind (name P(1)) recorded before run
 * P(3): NTH_HEAD or COUNT_HEAD, the kind's condition, BEFORE when there is
 * a run to be before, then NTH_TAIL or COUNT_TAIL */
SQL(NTH_HEAD, 0, "SELECT id FROM runs WHERE ")
SQL(COUNT_HEAD, 0, "SELECT count(*) FROM runs WHERE ")
SQL(NTH_LATEST, 0, P_TEXT(1) " IS NULL")
SQL(NTH_TAG, 0, "id IN (SELECT run_id FROM run_tags WHERE tag = " P(1) ")")
SQL(NTH_BRANCH, 0, "branch = " P(1))
SQL(NTH_LABEL, 0, "label = " P(1))
SQL(NTH_COMMIT, 0, "commit_sha = " P(1))
SQL(NTH_BEFORE, 0,
	" AND (sort_time, id) < (SELECT sort_time, id FROM runs WHERE id = " P_INT(3) ")")
SQL(NTH_TAIL, 0, SQL_NEWEST_FIRST " LIMIT 1 OFFSET " P_INT(2))
SQL(COUNT_TAIL, 0, " AND " P_INT(2) " IS NOT NULL")
/* the distinct commits starting with P(1), P(2) or P(3) (STORE_PREFIX
 * values: a prefix in any case, store_fold_prefix()), at most 6; a UNION
 * of three index searches (with OR, SQLite reads the whole index in
 * order instead) */
SQL(COMMITS, 0,
	"SELECT commit_sha FROM runs WHERE commit_sha " PREFIX_OP " " P(1) " UNION "
	"SELECT commit_sha FROM runs WHERE commit_sha " PREFIX_OP " " P(2) " UNION "
	"SELECT commit_sha FROM runs WHERE commit_sha " PREFIX_OP " " P(3) " "
	"ORDER BY 1 LIMIT 6")
/* the stored names a mistyped one is compared with (rows.h: enum rows_names) */
SQL(NAMES_PIN, 0, "SELECT name FROM pins")
SQL(NAMES_TAG, 0, "SELECT DISTINCT tag FROM run_tags")
SQL(NAMES_BRANCH, 0, "SELECT DISTINCT branch FROM runs WHERE branch IS NOT NULL")
SQL(NAMES_LABEL, 0, "SELECT DISTINCT label FROM runs WHERE label IS NOT NULL")
SQL(NAMES_REGION, 0, "SELECT name FROM regions")

/* ---- regions and their rows (regions.c) ---------------------------------- */

SQL(REGION_FIND, 0, "SELECT id FROM regions WHERE name = " P(1))
/* a new region numbered max + 1, as SQLite numbers a rowid: the first of
 * a write transaction (writers hold the store's lock), the next ones
 * counted on by the front end */
SQL(REGION_NEXT, 0, "SELECT coalesce(max(id), 0) + 1 FROM regions")
SQL(REGION_ADD, SQL_WRITE, "INSERT INTO regions (id, name) VALUES (" P(1) ", " P(2) ")")
/* every stored region, read once per write transaction where each
 * statement costs a round trip (store_region_id()) */
SQL(REGION_ALL, 0, "SELECT id, name FROM regions")
/* store_region_stats() over a rank list: one row per region of run P(1),
 * pooled over the ranks P(2) (sql.h, SQL_SEL_SUMS).  Columns: region id,
 * SQL_SEL_COLUMNS, the self time, the name.  SQLite reads the run's rows
 * in rowid order, as TOTALS_GET below does (through the index on (run_id,
 * region_id, rank) each row is a random lookup: a diff --ranks of two runs
 * of 1,024 ranks x 200 regions took 3.2 s, in rowid order 1.0 s; only
 * the selected rows summed, 0.4 s; bench/RESULTS.md). */
SQL(REGION_STATS, 0,
	"SELECT g.region_id, " SQL_SEL_COLUMNS ", " SQL_SEL_SELF ", r.name "
	"FROM run_regions AS g JOIN regions AS r ON r.id = g.region_id LEFT JOIN (SELECT "
	"region_id, " SQL_SEL_SUMS " FROM timings WHERE "
	DIALECT("id BETWEEN (SELECT min(id) FROM timings WHERE run_id = ?1) "
		"AND (SELECT max(id) FROM timings WHERE run_id = ?1) AND +run_id = ?1",
		"run_id = $1")
	" AND rank " IN_IDS(2) " GROUP BY region_id) AS s ON s.region_id = g.region_id "
	"WHERE g.run_id = " P(1))
/* all ranks: the run's stored totals and self time, with p50/p95/p99
 * after the name */
SQL(REGION_STATS_ALL, SQL_BINARY,
	"SELECT g.region_id, " SQL_RUN_REGIONS_COLUMNS ", g.self_ns, r.name, g.p50_ns, g.p95_ns, "
	"g.p99_ns FROM run_regions AS g JOIN regions AS r ON r.id = g.region_id "
	"WHERE g.run_id = " P(1))
/* the duration blobs of region P(2) of run P(1) on the ranks P(3) (NULL:
 * all) */
SQL(REGION_DURATIONS, SQL_BINARY,
	"SELECT d.data FROM timings AS t JOIN timings_durations AS d ON d.timing_id = t.id "
	"WHERE t.run_id = " P(1) " AND t.region_id = " P(2) " "
	"AND (" P_IDS(3) " IS NULL OR t.rank " IN_IDS(3) ")" DIALECT("", " ORDER BY t.id"))
/* the blobs of the regions P(2) of run P(1) on the ranks P(3), by region
 * (ahead.c); each by the primary key: as a join, PostgreSQL's planner reads
 * the whole durations table once the rows are many; a NULL blob for a row
 * without durations */
SQL(AHEAD_BLOBS, SQL_BINARY,
	"SELECT t.region_id, (SELECT d.data FROM timings_durations AS d WHERE d.timing_id = t.id) "
	"FROM timings AS t WHERE t.run_id = " P(1) " AND t.region_id " IN_IDS(2) " "
	"AND (" P_IDS(3) " IS NULL OR t.rank " IN_IDS(3) ") ORDER BY t.region_id, t.id")
/* every (region, rank) total of run P(1) (store_rank_totals()) */
SQL(RANK_TOTALS, SQL_BINARY,
	"SELECT r.name, t.rank, t.total_ns FROM timings AS t JOIN regions AS r "
	"ON r.id = t.region_id WHERE t.run_id = " P(1))
/* the source location of each region of run P(1) that has one
 * (store_region_sources()): the smallest file name and line over its ranks,
 * which scope-profiler writes alike on every rank */
SQL(REGION_SOURCES, SQL_BINARY,
	"SELECT r.name, min(t.source_file), min(t.source_line) FROM timings AS t "
	"JOIN regions AS r ON r.id = t.region_id WHERE t.run_id = " P(1) " "
	"AND t.source_file IS NOT NULL GROUP BY r.name")
/* every timings row of run P(1) in write order, whole (rows_timing()).
 * Its blob: on SQLite by a join (11% faster for a push than a subquery a
 * row); on PostgreSQL by the primary key, since the planner makes the join
 * a read of the whole durations table once the store is large. */
#ifndef SQL_SCAN_TIMINGS_COLUMNS
#define SQL_SCAN_TIMINGS_COLUMNS \
	"SELECT t.region_id, t.rank, t.has_events, t.calls, t.total_ns, t.min_ns, t.max_ns, " \
	"t.first_ns, t.last_ns, t.start_min_ns, t.end_max_ns, t.mean_ns, t.m2, t.exclusive_ns, " \
	"t.gpu_count, t.gpu_total_ns, t.source_file, t.source_line, t.source_text, t.tags, r.name, "
#endif
SQL(SCAN_TIMINGS, SQL_BINARY | SQL_STREAM, DIALECT(
	SQL_SCAN_TIMINGS_COLUMNS "d.data FROM timings AS t JOIN regions AS r ON r.id = t.region_id "
	"LEFT JOIN timings_durations AS d ON d.timing_id = t.id WHERE t.run_id = ?1 ORDER BY t.id",
	SQL_SCAN_TIMINGS_COLUMNS "(SELECT d.data FROM timings_durations AS d "
	"WHERE d.timing_id = t.id) FROM timings AS t JOIN regions AS r ON r.id = t.region_id "
	"WHERE t.run_id = $1 ORDER BY t.id"))

/* ---- finishing a run (regions.c, for finish.c) --------------------------- */

SQL(TOTALS_CLEAR, SQL_WRITE, "DELETE FROM run_regions WHERE run_id = " P(1))
/* each region of run P(1) over all ranks, as the front end adds up the
 * rows it writes (totals.c), for a run whose rows were written before:
 * region, every row's has_events, calls, total, rows with calls, their
 * min and max, GPU count and total, busy ranks and the busiest's total,
 * rows, rows without a self time, self total.  SQLite reads the run's rows
 * in rowid order (a run's rows are contiguous, "+" keeps the planner off
 * the index on run_id), not through the (run_id, region_id, rank) index,
 * whose order is not that of the file: on the large profile, 262,144
 * random row lookups that missed the page cache one by one. */
#ifndef SQL_TOTALS_GET_COLUMNS
#define SQL_TOTALS_GET_COLUMNS \
	"SELECT region_id, CAST(min(has_events) AS BIGINT), CAST(sum(calls) AS BIGINT), " \
	"CAST(sum(total_ns) AS BIGINT), CAST(sum(CASE WHEN calls > 0 THEN 1 ELSE 0 END) AS BIGINT), " \
	"min(CASE WHEN calls > 0 THEN min_ns END), max(CASE WHEN calls > 0 THEN max_ns END), " \
	"CAST(sum(gpu_count) AS BIGINT), CAST(sum(gpu_total_ns) AS BIGINT), " \
	"CAST(sum(CASE WHEN total_ns > 0 THEN 1 ELSE 0 END) AS BIGINT), " \
	"max(CASE WHEN total_ns > 0 THEN total_ns END), count(*), count(*) - count(exclusive_ns), " \
	"CAST(sum(exclusive_ns) AS BIGINT) FROM timings "
#endif
SQL(TOTALS_GET, 0, DIALECT(
	SQL_TOTALS_GET_COLUMNS
	"WHERE id BETWEEN (SELECT min(id) FROM timings WHERE run_id = ?1) "
	"AND (SELECT max(id) FROM timings WHERE run_id = ?1) AND +run_id = ?1 GROUP BY region_id",
	SQL_TOTALS_GET_COLUMNS "WHERE run_id = $1 GROUP BY region_id"))
/* the region and call counts P(2), P(3) of run P(1) */
SQL(TOTALS_COUNTS, SQL_WRITE,
	"UPDATE runs SET num_regions = " P(2) ", num_calls = " P(3) " WHERE id = " P(1))
/* The p50, p95 and p99 of the row of run P(1) whose column key is P(2) in
 * table (paths: path_id); then the same for the id list P(2) with the p50,
 * p95 and p99 lists P(3), P(4), P(5), in one statement (where a statement
 * costs a round trip: store_put_path_quantiles()).  Only for a run whose
 * blobs are too many to hold at once (finish.c); otherwise each row is
 * written with its percentiles.  Defined once; P() and DIALECT() are those
 * of the list being spelled. */
#ifndef SQL_QUANTILES_ONE
#define SQL_QUANTILES_ONE(table, key) \
	"UPDATE " table " SET p50_ns = " P(3) ", p95_ns = " P(4) ", p99_ns = " P(5) " " \
	"WHERE run_id = " P(1) " AND " key " = " P(2)
#define SQL_QUANTILES_LIST(table, key) DIALECT( \
	"UPDATE " table " SET p50_ns = json_extract(?3, '$[' || v.key || ']'), " \
	"p95_ns = json_extract(?4, '$[' || v.key || ']'), " \
	"p99_ns = json_extract(?5, '$[' || v.key || ']') " \
	"FROM json_each(?2) AS v WHERE " table ".run_id = ?1 AND " table "." key " = v.value", \
	"UPDATE " table " SET p50_ns = v.p50, p95_ns = v.p95, p99_ns = v.p99 " \
	"FROM unnest($2::bigint[], $3::float8[], $4::float8[], $5::float8[]) " \
	"AS v (" key ", p50, p95, p99) " \
	"WHERE " table ".run_id = $1 AND " table "." key " = v." key)
#endif

/* ---- the call tree (paths.c) --------------------------------------------- */

SQL(NESTING_PUT, SQL_WRITE,
	"INSERT INTO run_nesting (run_id, ranks, trees, paths, path_rows) "
	"VALUES (" P(1) ", " P(2) ", " P(3) ", " P(4) ", " P(5) ")")
SQL(NESTING_GET, 0,
	"SELECT ranks, trees, paths, path_rows FROM run_nesting WHERE run_id = " P(1))
/* the paths of run P(1) by id, with their region's name */
SQL(PATHS_SCAN, 0,
	"SELECT p.path_id, p.parent_id, p.region_id, p.depth, r.name FROM paths AS p "
	"JOIN regions AS r ON r.id = p.region_id WHERE p.run_id = " P(1) " ORDER BY p.path_id")
/* store_path_stats() over a rank list: each path of run P(1) with a row,
 * pooled over the ranks P(2): path id, calls, total, min, max, busy ranks,
 * busy max, ranks, self, and its rows on every rank (to be counted against
 * the run's nesting row).  Only the selected rows are summed, as in
 * REGION_STATS: a CASE per sum and row over every rank took 0.26 s a run
 * of 1,024 ranks x 200 paths, this 0.02 s for one rank.  Sums cast, as
 * there (sql.h). */
SQL(PATH_STATS, 0,
	"SELECT c.path_id, coalesce(s.calls, 0), coalesce(s.total_ns, 0), s.min_ns, s.max_ns, "
	"coalesce(s.busy, 0), s.busy_max, coalesce(s.n, 0), coalesce(s.self_ns, 0), c.n "
	"FROM (SELECT path_id, count(*) AS n FROM path_ranks WHERE run_id = " P(1) " "
	"GROUP BY path_id) AS c LEFT JOIN (SELECT path_id, CAST(sum(calls) AS BIGINT) AS calls, "
	"CAST(sum(total_ns) AS BIGINT) AS total_ns, min(min_ns) AS min_ns, max(max_ns) AS max_ns, "
	"sum(CASE WHEN total_ns > 0 THEN 1 ELSE 0 END) AS busy, "
	"max(CASE WHEN total_ns > 0 THEN total_ns END) AS busy_max, count(*) AS n, "
	"CAST(sum(self_ns) AS BIGINT) AS self_ns FROM path_ranks WHERE run_id = " P(1) " "
	"AND rank " IN_IDS(2) " "
	"GROUP BY path_id) AS s ON s.path_id = c.path_id")
/* the same over all ranks: the paths' stored totals, then
 * their p50, p95 and p99 (NULL for a run stored before schema 4) */
SQL(PATH_STATS_ALL, SQL_BINARY,
	"SELECT path_id, calls, total_ns, min_ns, max_ns, busy_ranks, busy_max_ns, nranks, "
	"self_ns, p50_ns, p95_ns, p99_ns FROM paths WHERE run_id = " P(1))
/* store_path_nested(): each path of run P(1) with calls nested in a call
 * of the same path on the ranks P(2) (NULL: all), and their number */
SQL(PATH_NESTED, 0,
	"SELECT path_id, CAST(sum(nested) AS BIGINT) FROM path_ranks WHERE run_id = " P(1) " "
	"AND nested > 0 AND (" P_IDS(2) " IS NULL OR rank " IN_IDS(2) ") GROUP BY path_id")
/* the outermost calls' durations of path P(2) of run P(1) on the ranks P(3)
 * (NULL: all), by rank: the path's own, or its row's */
SQL(PATH_DURATIONS, SQL_BINARY,
	"SELECT coalesce(pr.durations, (SELECT d.data FROM timings AS t "
	"JOIN timings_durations AS d ON d.timing_id = t.id WHERE t.run_id = pr.run_id "
	"AND t.region_id = p.region_id AND t.rank = pr.rank)) FROM path_ranks AS pr "
	"JOIN paths AS p ON p.run_id = pr.run_id AND p.path_id = pr.path_id "
	"WHERE pr.run_id = " P(1) " AND pr.path_id = " P(2) " "
	"AND (" P_IDS(3) " IS NULL OR pr.rank " IN_IDS(3) ") ORDER BY pr.rank")
/* store_scan_path_blobs(): every (path, rank) row of run P(1) by path and
 * rank, with its own durations (NULL: the timings row's) */
SQL(PATH_BLOBS, SQL_BINARY | SQL_STREAM,
	"SELECT path_id, rank, durations FROM path_ranks WHERE run_id = " P(1) " "
	"ORDER BY path_id, rank")
/* each path's p50, p95 and p99 over all ranks, as a region's */
SQL(PATH_QUANTILES_PUT, SQL_WRITE, SQL_QUANTILES_ONE("paths", "path_id"))
SQL(PATH_QUANTILES_MANY, SQL_WRITE, SQL_QUANTILES_LIST("paths", "path_id"))
/* its (path, rank) rows by path and rank */
SQL(PATH_RANKS_SCAN, SQL_BINARY | SQL_STREAM,
	"SELECT path_id, rank, calls, nested, total_ns, self_ns, min_ns, max_ns, durations "
	"FROM path_ranks "
	"WHERE run_id = " P(1) " ORDER BY path_id, rank")

/* ---- a region across runs (history.c) ------------------------------------ */

/* the regions a history asks for: by name, or all (its filter picks) */
SQL(HISTORY_REGION, 0, "SELECT id, name FROM regions WHERE name = " P(1))
SQL(HISTORY_REGIONS, 0, "SELECT id, name FROM regions")
/* the run window of a limited history: the ids of the newest P(1) runs
 * (HEAD, the filter's conditions from parameter 2 on, RUN_FIND_TAIL); then
 * how many of the runs P(1) have each region of the id list P(2), read
 * run by run (the unary + keeps the search off the index by region, whose
 * rows of a run lie one leaf apart per region) */
SQL(HISTORY_WINDOW_HEAD, 0, "SELECT id FROM runs WHERE true")
SQL(HISTORY_COUNTS, 0,
	"SELECT region_id, count(*) FROM run_regions WHERE run_id " IN_IDS(1) " "
	"AND +region_id " IN_IDS(2) " GROUP BY region_id")
/* one row per (region of the id list P(1), run): HEAD, the filter's
 * conditions from parameter 4 on, MID, HISTORY_RANKS or HISTORY_ALL, TAIL;
 * numbered newest first per region for the limit P(3) (0: none) */
SQL(HISTORY_HEAD, 0,
	"WITH sr AS (SELECT id, sort_time, commit_sha, label FROM runs WHERE true")
SQL(HISTORY_MID, 0, "), pts AS (")
/* over the ranks P(2): region, run, SQL_SEL_COLUMNS, three NULL
 * percentiles (those come from the blobs) and the self time; only the
 * runs with a row of the region on one of those ranks (a run of one rank
 * has nothing to say of rank 1: no point of 0) */
SQL(HISTORY_RANKS, 0,
	"SELECT g.region_id, g.run_id, " SQL_SEL_COLUMNS ", CAST(NULL AS float8), "
	"CAST(NULL AS float8), CAST(NULL AS float8), " SQL_SEL_SELF " "
	"FROM run_regions AS g JOIN (SELECT region_id, run_id, " SQL_SEL_SUMS " "
	"FROM timings WHERE region_id " IN_IDS(1) " AND run_id IN (SELECT id FROM sr) "
	"AND rank " IN_IDS(2) " GROUP BY region_id, run_id) AS s "
	"ON s.region_id = g.region_id AND s.run_id = g.run_id "
	"WHERE g.region_id " IN_IDS(1) " AND g.run_id IN (SELECT id FROM sr)")
/* all ranks (P(2) NULL): the stored totals and self time, one row per
 * point */
SQL(HISTORY_ALL, 0,
	"SELECT region_id, run_id, " SQL_RUN_REGIONS_COLUMNS ", p50_ns, p95_ns, p99_ns, self_ns "
	"FROM run_regions WHERE region_id " IN_IDS(1) " AND run_id IN (SELECT id FROM sr) "
	"AND " P_IDS(2) " IS NULL")
SQL(HISTORY_TAIL, 0,
	"), ranked AS (SELECT pts.*, sr.sort_time, sr.commit_sha, sr.label, "
	"row_number() OVER (PARTITION BY pts.region_id ORDER BY sr.sort_time DESC, sr.id DESC) "
	"AS rn FROM pts JOIN sr ON sr.id = pts.run_id) "
	"SELECT ranked.*, g.name FROM ranked JOIN regions AS g ON g.id = ranked.region_id "
	"WHERE " P_INT(3) " <= 0 OR ranked.rn <= " P_INT(3) " "
	"ORDER BY g.name, ranked.sort_time, ranked.run_id")
/* the blobs of those points on the ranks P(2): HEAD, the filter's
 * conditions from parameter 3 on, W_END */
SQL(HISTORY_BLOBS_HEAD, SQL_BINARY,
	"SELECT t.region_id, t.run_id, d.data FROM timings AS t "
	"JOIN timings_durations AS d ON d.timing_id = t.id WHERE t.region_id " IN_IDS(1) " "
	"AND (" P_IDS(2) " IS NULL OR t.rank " IN_IDS(2) ") "
	"AND t.run_id IN (SELECT id FROM runs WHERE true")
/* the series of every region (store_region_series()): the runs newest
 * first, at most P(1) (HEAD, the filter from parameter 2 on, TAIL), the
 * regions by name, then the stored totals of the runs of the id list P(1) */
SQL(SERIES_RUNS_HEAD, 0, "SELECT id, sort_time, commit_sha, label, branch FROM runs WHERE true")
SQL(SERIES_RUNS_TAIL, 0, SQL_NEWEST_FIRST " " LIMIT_P(1))
SQL(SERIES_REGIONS, 0, "SELECT id, name FROM regions ORDER BY name")
SQL(SERIES_CELLS, SQL_BINARY,
	"SELECT run_id, region_id, " SQL_RUN_REGIONS_COLUMNS ", p50_ns, p95_ns, p99_ns, self_ns "
	"FROM run_regions WHERE run_id " IN_IDS(1))

/* clang-format on */
