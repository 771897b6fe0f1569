-- 0003_path_quantiles.sql - each path's percentiles over all ranks
-- (scopedb_meta schema_version 2 -> 3; issue 22).  The meaning of the
-- SQLite store's schema/0004_path_quantiles.sql, in one statement.

ALTER TABLE paths
	ADD COLUMN p50_ns float8,
	ADD COLUMN p95_ns float8,
	ADD COLUMN p99_ns float8;
COMMENT ON COLUMN paths.p50_ns IS
	'median of the outermost calls'' durations over all ranks (ns, numpy linear); NULL: not stored';
COMMENT ON COLUMN paths.p95_ns IS 'their 95th percentile, as p50_ns';
COMMENT ON COLUMN paths.p99_ns IS 'their 99th percentile, as p50_ns';
