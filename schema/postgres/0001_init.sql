-- 0001_init.sql - the PostgreSQL store (scopedb_meta schema_version 0 -> 1).
--
-- The same tables, columns and meanings as the SQLite store (schema/), so
-- that every command prints the same output on the same data.  Text that
-- is sorted or compared (names, tags, times, commits) uses the "C"
-- collation: byte order, as SQLite's.  Run and region ids are assigned by
-- the writer under the store's write lock (an advisory lock held for the
-- whole transaction), as SQLite assigns them: a rolled-back ingest leaves
-- no gap, and a removed run's number is never reused (run_counter).
-- The bulk tables (timings, timings_durations, run_regions) have no
-- foreign keys: their rows are written only by the run's own transaction,
-- with ids it has just given, and removed with their run by
-- store_remove_run(); a foreign key check per COPY row cost a third of an
-- ingest.

COMMENT ON TABLE scopedb_meta IS
	'scopedb store identity: application = scopedb, schema_version = applied migrations';
COMMENT ON COLUMN scopedb_meta.key IS 'application or schema_version';
COMMENT ON COLUMN scopedb_meta.value IS 'scopedb, or the number of migrations applied';

-- The highest run id ever given (SQLite AUTOINCREMENT's sqlite_sequence).
CREATE TABLE run_counter (
	one integer PRIMARY KEY CHECK (one = 1),
	last_id bigint NOT NULL
);
COMMENT ON TABLE run_counter IS 'the highest run id ever given, so that ids are never reused';
COMMENT ON COLUMN run_counter.one IS 'always 1: the table has one row';
COMMENT ON COLUMN run_counter.last_id IS 'last run id handed out (0 before the first run)';
INSERT INTO run_counter VALUES (1, 0);

CREATE TABLE runs (
	id bigint PRIMARY KEY,
	sha256 text COLLATE "C" NOT NULL UNIQUE,
	source_path text COLLATE "C" NOT NULL,
	ingested_at text COLLATE "C" NOT NULL,
	recorded_at text COLLATE "C",
	sort_time text COLLATE "C" GENERATED ALWAYS AS (coalesce(recorded_at, ingested_at)) STORED
		NOT NULL,
	label text COLLATE "C",
	commit_sha text COLLATE "C",
	branch text COLLATE "C",
	schema_version integer NOT NULL,
	layout text COLLATE "C" NOT NULL
		CHECK (layout IN ('hierarchical', 'columnar', 'aggregate')),
	num_ranks bigint NOT NULL CHECK (num_ranks >= 0),
	num_regions bigint NOT NULL DEFAULT 0 CHECK (num_regions >= 0),
	num_calls bigint NOT NULL DEFAULT 0 CHECK (num_calls >= 0)
);
COMMENT ON TABLE runs IS 'one ingested profile file';
COMMENT ON COLUMN runs.id IS 'run number shown to users; never reused (run_counter)';
COMMENT ON COLUMN runs.sha256 IS 'SHA-256 of the file content, lowercase hex; a file is stored once';
COMMENT ON COLUMN runs.source_path IS 'path the file was ingested from, as given';
COMMENT ON COLUMN runs.ingested_at IS 'ingest time, ISO-8601 UTC';
COMMENT ON COLUMN runs.recorded_at IS 'the profile''s metadata timestamp, ISO-8601 UTC; NULL if none';
COMMENT ON COLUMN runs.sort_time IS 'recorded time, else ingest time: the order of every listing';
COMMENT ON COLUMN runs.label IS 'free-form run label; NULL if none';
COMMENT ON COLUMN runs.commit_sha IS 'git commit of the profiled code; NULL when unknown';
COMMENT ON COLUMN runs.branch IS 'git branch of the profiled code; NULL when unknown';
COMMENT ON COLUMN runs.schema_version IS 'scope_profiler_schema of the file (1..3)';
COMMENT ON COLUMN runs.layout IS 'storage layout of the file; aggregate runs have no per-call data';
COMMENT ON COLUMN runs.num_ranks IS 'number of MPI ranks';
COMMENT ON COLUMN runs.num_regions IS 'distinct regions with a timings row';
COMMENT ON COLUMN runs.num_calls IS 'calls over all timings rows';

CREATE INDEX runs_by_time ON runs (sort_time, id);
CREATE INDEX runs_by_commit ON runs (commit_sha, sort_time, id);
CREATE INDEX runs_by_branch ON runs (branch, sort_time, id);
CREATE INDEX runs_by_label ON runs (label, sort_time, id);

CREATE TABLE run_tags (
	run_id bigint NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
	tag text COLLATE "C" NOT NULL,
	PRIMARY KEY (run_id, tag)
);
COMMENT ON TABLE run_tags IS 'user tags of runs (e.g. baseline, nightly)';
COMMENT ON COLUMN run_tags.run_id IS 'the tagged run';
COMMENT ON COLUMN run_tags.tag IS 'the tag text';
CREATE INDEX run_tags_by_tag ON run_tags (tag, run_id);

CREATE TABLE run_metadata (
	run_id bigint NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
	key text COLLATE "C" NOT NULL,
	value text COLLATE "C" NOT NULL,
	PRIMARY KEY (run_id, key)
);
COMMENT ON TABLE run_metadata IS 'the profile''s /metadata attributes, one row per key';
COMMENT ON COLUMN run_metadata.run_id IS 'the run the attribute belongs to';
COMMENT ON COLUMN run_metadata.key IS 'attribute name';
COMMENT ON COLUMN run_metadata.value IS 'text form: strings as is, numbers in decimal, arrays as JSON';
CREATE INDEX run_metadata_by_key ON run_metadata (key, value);

CREATE TABLE regions (
	id bigint PRIMARY KEY,
	name text COLLATE "C" NOT NULL UNIQUE
);
COMMENT ON TABLE regions IS 'interned region names, shared by all runs';
COMMENT ON COLUMN regions.id IS 'region number used by timings (max + 1, as SQLite)';
COMMENT ON COLUMN regions.name IS 'region name exactly as in the profile (UTF-8)';

CREATE TABLE timings (
	id bigint PRIMARY KEY,
	run_id bigint NOT NULL,
	region_id bigint NOT NULL,
	rank bigint NOT NULL CHECK (rank >= 0),
	has_events smallint NOT NULL CHECK (has_events IN (0, 1)),
	calls bigint NOT NULL CHECK (calls >= 0),
	total_ns bigint NOT NULL,
	min_ns bigint NOT NULL,
	max_ns bigint NOT NULL,
	first_ns bigint NOT NULL,
	last_ns bigint NOT NULL,
	start_min_ns bigint NOT NULL,
	end_max_ns bigint NOT NULL,
	mean_ns float8 NOT NULL,
	m2 float8 NOT NULL,
	exclusive_ns bigint,
	gpu_count bigint NOT NULL CHECK (gpu_count >= 0),
	gpu_total_ns bigint NOT NULL,
	source_file text COLLATE "C",
	source_line bigint,
	source_text text COLLATE "C",
	tags text COLLATE "C",
	UNIQUE (run_id, region_id, rank)
);
COMMENT ON TABLE timings IS 'summary of one (run, region, rank); order statistics in timings_durations';
COMMENT ON COLUMN timings.id IS 'row number in write order, key of the timings_durations row';
COMMENT ON COLUMN timings.run_id IS 'the run of the row (runs.id)';
COMMENT ON COLUMN timings.region_id IS 'the region of the row (regions.id)';
COMMENT ON COLUMN timings.rank IS 'MPI rank';
COMMENT ON COLUMN timings.has_events IS '1 when per-call data exists; 0 for the aggregate layout';
COMMENT ON COLUMN timings.calls IS 'number of calls (0 is legal)';
COMMENT ON COLUMN timings.total_ns IS 'sum of the call durations (ns)';
COMMENT ON COLUMN timings.min_ns IS 'shortest call (ns; 0 without calls)';
COMMENT ON COLUMN timings.max_ns IS 'longest call (ns; 0 without calls)';
COMMENT ON COLUMN timings.first_ns IS 'duration of the first call in call order';
COMMENT ON COLUMN timings.last_ns IS 'duration of the last call in call order';
COMMENT ON COLUMN timings.start_min_ns IS 'earliest call start (absolute)';
COMMENT ON COLUMN timings.end_max_ns IS 'latest call end (absolute)';
COMMENT ON COLUMN timings.mean_ns IS 'mean duration (Welford)';
COMMENT ON COLUMN timings.m2 IS 'sum of squared deviations from the mean (Welford)';
COMMENT ON COLUMN timings.exclusive_ns IS 'exclusive (self) time; NULL when the file does not say';
COMMENT ON COLUMN timings.gpu_count IS 'calls with GPU time';
COMMENT ON COLUMN timings.gpu_total_ns IS 'sum of their GPU times';
COMMENT ON COLUMN timings.source_file IS 'source file of the region; NULL when unknown';
COMMENT ON COLUMN timings.source_line IS 'source line of the region; NULL when unknown';
COMMENT ON COLUMN timings.source_text IS 'source text of the region; NULL when unknown';
COMMENT ON COLUMN timings.tags IS 'region tags as JSON array text; NULL when none';
CREATE INDEX timings_by_region ON timings (region_id, run_id);

CREATE TABLE timings_durations (
	timing_id bigint PRIMARY KEY,
	data bytea NOT NULL
);
-- Already compact (delta + LEB128): stored out of line without compression.
ALTER TABLE timings_durations ALTER COLUMN data SET STORAGE EXTERNAL;
COMMENT ON TABLE timings_durations IS 'sorted call durations of one timings row';
COMMENT ON COLUMN timings_durations.timing_id IS 'the timings row (timings.id)';
COMMENT ON COLUMN timings_durations.data IS 'encoded durations (src/store/blob.h), version byte first';

CREATE TABLE run_regions (
	run_id bigint NOT NULL,
	region_id bigint NOT NULL,
	has_events smallint NOT NULL CHECK (has_events IN (0, 1)),
	calls bigint NOT NULL CHECK (calls >= 0),
	total_ns bigint NOT NULL,
	min_ns bigint,
	max_ns bigint,
	gpu_count bigint NOT NULL CHECK (gpu_count >= 0),
	gpu_total_ns bigint NOT NULL,
	busy_ranks bigint NOT NULL CHECK (busy_ranks >= 0),
	busy_max_ns bigint,
	nranks bigint NOT NULL CHECK (nranks >= 0),
	p50_ns float8,
	p95_ns float8,
	p99_ns float8,
	PRIMARY KEY (run_id, region_id)
);
COMMENT ON TABLE run_regions IS 'all-ranks totals of one region in one run, computed at ingest';
COMMENT ON COLUMN run_regions.run_id IS 'the run';
COMMENT ON COLUMN run_regions.region_id IS 'the region';
COMMENT ON COLUMN run_regions.has_events IS '0 when any row lacks per-call data, else 1';
COMMENT ON COLUMN run_regions.calls IS 'calls over all ranks';
COMMENT ON COLUMN run_regions.total_ns IS 'summed call duration over all ranks';
COMMENT ON COLUMN run_regions.min_ns IS 'shortest call; NULL without calls';
COMMENT ON COLUMN run_regions.max_ns IS 'longest call; NULL without calls';
COMMENT ON COLUMN run_regions.gpu_count IS 'calls with GPU time over all ranks';
COMMENT ON COLUMN run_regions.gpu_total_ns IS 'GPU time over all ranks';
COMMENT ON COLUMN run_regions.busy_ranks IS 'ranks whose total is > 0';
COMMENT ON COLUMN run_regions.busy_max_ns IS 'the largest such total; NULL if none';
COMMENT ON COLUMN run_regions.nranks IS 'ranks with a timings row for the region';
COMMENT ON COLUMN run_regions.p50_ns IS 'exact linear 50th percentile of all call durations (ns)';
COMMENT ON COLUMN run_regions.p95_ns IS 'exact linear 95th percentile (ns)';
COMMENT ON COLUMN run_regions.p99_ns IS 'exact linear 99th percentile (ns)';
CREATE INDEX run_regions_by_region ON run_regions (region_id, run_id);

CREATE TABLE pins (
	name text COLLATE "C" PRIMARY KEY,
	run_id bigint NOT NULL REFERENCES runs (id),
	pinned_at text COLLATE "C" NOT NULL
);
COMMENT ON TABLE pins IS 'named references to runs; a pinned run cannot be removed until unpinned';
COMMENT ON COLUMN pins.name IS 'pin name';
COMMENT ON COLUMN pins.run_id IS 'the pinned run';
COMMENT ON COLUMN pins.pinned_at IS 'when the pin was set, ISO-8601 UTC';
CREATE INDEX pins_by_run ON pins (run_id);
