-- 0004_path_quantiles.sql - each path's percentiles over all ranks
-- (user_version 3 -> 4; issue 22).
--
-- run_regions keeps each region's p50/p95/p99 over all ranks (0002); this
-- keeps the same for each path of a run: numpy's linear percentiles of the
-- durations of the path's outermost calls on every rank, in ns, computed
-- at the end of each ingest and push/pull (store_finish_run()) from the
-- same blobs as --by path reads, so the values are identical to the pooled
-- ones.  NULL for the runs stored before this migration: --by path decodes
-- their durations, as it does for --ranks queries.
ALTER TABLE paths ADD COLUMN p50_ns REAL;
ALTER TABLE paths ADD COLUMN p95_ns REAL;
ALTER TABLE paths ADD COLUMN p99_ns REAL;
