-- 0001_init.sql - the initial scopedb store schema (user_version 0 -> 1).
--
-- One row in runs per ingested profile file; its per-(region, rank) summaries
-- in timings and, apart from them, the sorted call durations of each such row
-- in timings_durations (src/blob.c encoding).  Region names are interned in
-- regions.  Everything that belongs to a run is deleted with it (ON DELETE
-- CASCADE) except pins, which protect a run from removal.
--
-- store.c applies this file inside one BEGIN IMMEDIATE transaction, together
-- with PRAGMA application_id and PRAGMA user_version; do not set either here.
-- All times are int64 nanoseconds unless the column name says otherwise;
-- timestamps are ISO-8601 UTC text ("YYYY-MM-DDTHH:MM:SSZ").

-- One ingested profile file.
CREATE TABLE runs (
	-- Run number shown to users; AUTOINCREMENT so that the number of a
	-- removed run is never given to a later one.
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	-- SHA-256 of the file content, lowercase hex; the same file is stored
	-- once.
	sha256 TEXT NOT NULL UNIQUE,
	-- Path of the file as given at ingest (informational only).
	source_path TEXT NOT NULL,
	-- When scopedb ingested the file.
	ingested_at TEXT NOT NULL,
	-- The profile's own /metadata timestamp; NULL when the file has none.
	recorded_at TEXT,
	-- Chronological sort key: the recording time, or the ingest time for
	-- files without a timestamp.  Kept in sync by SQLite.
	sort_time TEXT GENERATED ALWAYS AS (coalesce(recorded_at, ingested_at)) STORED NOT NULL,
	-- Free-form run label (metadata "label" or given by the user); NULL if
	-- none.
	label TEXT,
	-- Git commit and branch of the profiled code, from the user or CI; NULL
	-- when unknown (profiles never record them).
	commit_sha TEXT,
	branch TEXT,
	-- scope_profiler_schema of the file (1..3).
	schema_version INTEGER NOT NULL,
	-- Storage layout of the file; aggregate runs have no per-call data.
	layout TEXT NOT NULL CHECK (layout IN ('hierarchical', 'columnar', 'aggregate')),
	-- Number of MPI ranks as defined by the format document.
	num_ranks INTEGER NOT NULL CHECK (num_ranks >= 0),
	-- Distinct regions with at least one timings row, and the total number
	-- of calls over all rows; set once the timings are in.
	num_regions INTEGER NOT NULL DEFAULT 0 CHECK (num_regions >= 0),
	num_calls INTEGER NOT NULL DEFAULT 0 CHECK (num_calls >= 0)
);

-- "Newest first" listing and "latest run" selectors.
CREATE INDEX runs_by_time ON runs (sort_time, id);
-- Selectors by commit (exact or prefix range), branch and label, each
-- returning the newest match first.
CREATE INDEX runs_by_commit ON runs (commit_sha, sort_time, id);
CREATE INDEX runs_by_branch ON runs (branch, sort_time, id);
CREATE INDEX runs_by_label ON runs (label, sort_time, id);

-- User tags of runs (e.g. "baseline", "nightly").
CREATE TABLE run_tags (
	-- The tagged run.
	run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
	-- The tag text.
	tag TEXT NOT NULL,
	PRIMARY KEY (run_id, tag)
) WITHOUT ROWID;

-- Runs carrying a given tag.
CREATE INDEX run_tags_by_tag ON run_tags (tag, run_id);

-- The profile's /metadata attributes, one row per key.
CREATE TABLE run_metadata (
	-- The run the attribute belongs to.
	run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
	-- Attribute name.
	key TEXT NOT NULL,
	-- Text form of the value: strings as is, numbers in decimal, string
	-- arrays as JSON array text.
	value TEXT NOT NULL,
	PRIMARY KEY (run_id, key)
);

-- "scopedb runs --meta KEY=VALUE": the runs with a given attribute value.
CREATE INDEX run_metadata_by_key ON run_metadata (key, value);

-- Interned region names, shared by all runs.
CREATE TABLE regions (
	-- Region number used by timings.
	id INTEGER PRIMARY KEY,
	-- Region name exactly as in the profile (UTF-8).
	name TEXT NOT NULL UNIQUE
);

-- Summary of one (run, region, rank): everything the metrics need except
-- order statistics, which come from timings_durations.
CREATE TABLE timings (
	-- Row number, key of the matching timings_durations row.
	id INTEGER PRIMARY KEY,
	-- The run and the region of the row.
	run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
	region_id INTEGER NOT NULL REFERENCES regions (id),
	-- MPI rank.
	rank INTEGER NOT NULL CHECK (rank >= 0),
	-- 1 when per-call data exists (a timings_durations row when calls > 0);
	-- 0 for the aggregate layout, where only calls/total/min/max are known.
	has_events INTEGER NOT NULL CHECK (has_events IN (0, 1)),
	-- Number of calls (0 is legal).
	calls INTEGER NOT NULL CHECK (calls >= 0),
	-- Sum, minimum and maximum of the call durations (0 when no calls).
	total_ns INTEGER NOT NULL,
	min_ns INTEGER NOT NULL,
	max_ns INTEGER NOT NULL,
	-- Durations of the first and the last call in call order.
	first_ns INTEGER NOT NULL,
	last_ns INTEGER NOT NULL,
	-- Earliest call start and latest call end (absolute times).
	start_min_ns INTEGER NOT NULL,
	end_max_ns INTEGER NOT NULL,
	-- Mean duration and sum of squared deviations from it (Welford), for the
	-- pooled standard deviation.
	mean_ns REAL NOT NULL,
	m2 REAL NOT NULL,
	-- Exclusive (self) time; NULL when the file does not say.
	exclusive_ns INTEGER,
	-- Calls with GPU time and the sum of their GPU times.
	gpu_count INTEGER NOT NULL CHECK (gpu_count >= 0),
	gpu_total_ns INTEGER NOT NULL,
	-- Source location and text of the region; NULL when unknown.
	source_file TEXT,
	source_line INTEGER,
	source_text TEXT,
	-- Region tags as JSON array text; NULL when there are none.
	tags TEXT,
	UNIQUE (run_id, region_id, rank)
);

-- History of one region across runs.  (Lookups by run use the UNIQUE index.)
CREATE INDEX timings_by_region ON timings (region_id, run_id);

-- Covering index of the summary metrics of diff/check (store_region_stats):
-- a run's rows are read from this index alone, without one table lookup
-- per (region, rank) row (issue 6: 16k lookups per medium run).
CREATE INDEX timings_summary ON timings (run_id, region_id, rank, has_events, calls, total_ns,
	min_ns, max_ns, gpu_count, gpu_total_ns);

-- Sorted call durations of one timings row (blob.h encoding).  A separate
-- table so that summary scans over timings never read these pages.
CREATE TABLE timings_durations (
	-- The timings row.
	timing_id INTEGER PRIMARY KEY REFERENCES timings (id) ON DELETE CASCADE,
	-- Encoded durations, version byte first.
	data BLOB NOT NULL
);

-- Named references to runs ("baseline" -> run 12).  No cascade: a pinned
-- run cannot be removed until it is unpinned.
CREATE TABLE pins (
	-- Pin name.
	name TEXT PRIMARY KEY,
	-- The pinned run.
	run_id INTEGER NOT NULL REFERENCES runs (id),
	-- When the pin was set.
	pinned_at TEXT NOT NULL
);

-- Foreign key check when a run is deleted.
CREATE INDEX pins_by_run ON pins (run_id);
