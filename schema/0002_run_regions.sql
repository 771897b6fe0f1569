-- 0002_run_regions.sql - per-(run, region) totals over all ranks
-- (user_version 1 -> 2).
--
-- diff, check and history without --ranks pool every rank of a region.
-- Doing that from timings costs one row per (region, rank) and, for
-- p50/p95/p99, decoding every call duration of the run; this table keeps
-- the result, computed once at the end of each ingest (store_finish_run())
-- from the same timings rows and blobs, so the values are identical to the
-- pooled ones.  Runs stored before this migration are filled in by store.c
-- right after this file is applied, in the same transaction.  --ranks
-- queries still pool the timings rows.

-- The all-ranks totals of one region in one run; one row per region with at
-- least one timings row.  Columns follow the pooled aggregates of store.c.
CREATE TABLE run_regions (
	-- The run and the region.
	run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
	region_id INTEGER NOT NULL REFERENCES regions (id),
	-- 0 when any row lacks per-call data (aggregate layout), else 1.
	has_events INTEGER NOT NULL CHECK (has_events IN (0, 1)),
	-- Calls, their summed duration and the GPU sums over all ranks.
	calls INTEGER NOT NULL CHECK (calls >= 0),
	total_ns INTEGER NOT NULL,
	-- Smallest and largest call duration; NULL when there are no calls.
	min_ns INTEGER,
	max_ns INTEGER,
	gpu_count INTEGER NOT NULL CHECK (gpu_count >= 0),
	gpu_total_ns INTEGER NOT NULL,
	-- Ranks whose total is > 0 and the largest such total (NULL if none),
	-- for the imbalance metric.
	busy_ranks INTEGER NOT NULL CHECK (busy_ranks >= 0),
	busy_max_ns INTEGER,
	-- Ranks with a timings row for the region (calls may be 0).
	nranks INTEGER NOT NULL CHECK (nranks >= 0),
	-- numpy's linear 50th/95th/99th percentile of all call durations, in
	-- ns (exact, not estimated); NULL without per-call data or calls.
	p50_ns REAL,
	p95_ns REAL,
	p99_ns REAL,
	PRIMARY KEY (run_id, region_id)
) WITHOUT ROWID;

-- History of one region across runs.
CREATE INDEX run_regions_by_region ON run_regions (region_id, run_id);

-- The covering index of 0001 served the all-ranks summary query, which now
-- reads run_regions; --ranks queries find a run's rows through the UNIQUE
-- (run_id, region_id, rank) index.  Dropping it saves a wide index entry
-- per ingested row (issue 6: on the large profile, 262,144 rows per run,
-- its inserts overflowed the page cache).
DROP INDEX timings_summary;
