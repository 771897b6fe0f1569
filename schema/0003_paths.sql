-- 0003_paths.sql - the call tree's paths and self times (user_version
-- 2 -> 3; issue 22, docs/format.md section 10).
--
-- A path is the list of region names from a root call down to a call,
-- adjacent repeated names collapsed.  Per run, paths are numbered as the
-- reader's call-tree builder numbers them (0, 1, 2...: a path is its
-- parent path plus one region); per (run, path, rank) path_ranks keeps the
-- numbers of section 10.5.  Runs stored before this migration have no
-- run_nesting row: they were never read for nesting, and commands say so
-- (ingest the file again to get its paths).

-- Whether and how a run was read for nesting: one row per run stored by a
-- scopedb that reads nesting, also when the file gave no paths (aggregate
-- layout, ranks whose calls overlap).
CREATE TABLE run_nesting (
	run_id INTEGER PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
	-- Ranks with per-call data, and how many of them have a call tree.
	ranks INTEGER NOT NULL CHECK (ranks >= 0),
	trees INTEGER NOT NULL CHECK (trees >= 0 AND trees <= ranks),
	-- Distinct paths, and (path, rank) rows, of the run.
	paths INTEGER NOT NULL CHECK (paths >= 0),
	path_rows INTEGER NOT NULL CHECK (path_rows >= 0)
);

-- The paths of a run: one row per distinct path.
CREATE TABLE paths (
	run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
	-- 0, 1, 2... within the run; a parent has a smaller id than its children.
	path_id INTEGER NOT NULL CHECK (path_id >= 0),
	-- The path without its last name; NULL for a root.
	parent_id INTEGER CHECK (parent_id >= 0 AND parent_id < path_id),
	-- The last name of the path.
	region_id INTEGER NOT NULL REFERENCES regions (id),
	-- Names in the path (1 for a root).
	depth INTEGER NOT NULL CHECK (depth >= 1),
	-- Its path_ranks rows over all ranks, set once they are in (the
	-- --by path rows of a run without --ranks read these): outermost
	-- calls, inclusive total, shortest and longest call, ranks with a
	-- total > 0 and the largest such total, ranks with a row, self total.
	calls INTEGER,
	total_ns INTEGER,
	min_ns INTEGER,
	max_ns INTEGER,
	busy_ranks INTEGER,
	busy_max_ns INTEGER,
	nranks INTEGER,
	self_ns INTEGER,
	PRIMARY KEY (run_id, path_id)
) WITHOUT ROWID;

-- The numbers of one (run, path, rank) with at least one call.
CREATE TABLE path_ranks (
	run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
	path_id INTEGER NOT NULL,
	rank INTEGER NOT NULL CHECK (rank >= 0),
	-- Outermost calls (a recursion counts once) and nested calls.
	calls INTEGER NOT NULL CHECK (calls >= 1),
	nested INTEGER NOT NULL CHECK (nested >= 0),
	-- Inclusive total: the outermost calls' durations summed.
	total_ns INTEGER NOT NULL CHECK (total_ns >= 0),
	-- Self total: every call's duration minus its direct children's.
	self_ns INTEGER NOT NULL CHECK (self_ns >= 0),
	-- The shortest and longest outermost call.
	min_ns INTEGER NOT NULL CHECK (min_ns >= 0),
	max_ns INTEGER NOT NULL CHECK (max_ns >= min_ns),
	-- The outermost calls' durations (blob.c encoding); NULL when they are
	-- all the calls of the path's region on the rank: then they are the
	-- timings row's (not stored twice).
	durations BLOB,
	PRIMARY KEY (run_id, path_id, rank)
) WITHOUT ROWID;

-- From this version on, timings.exclusive_ns holds the self time of the
-- (rank, region) of section 10.5: computed from the rank's call tree when
-- it has one, else the file's own exclusive total; NULL when neither is
-- known.  (Before, it was the file's exclusive total only.)  run_regions
-- keeps its sum over all ranks, NULL when a rank's is unknown.
ALTER TABLE run_regions ADD COLUMN self_ns INTEGER;
UPDATE run_regions SET self_ns = (
	SELECT CASE WHEN count(t.exclusive_ns) = count(*) THEN sum(t.exclusive_ns) END
	FROM timings AS t WHERE t.run_id = run_regions.run_id AND t.region_id = run_regions.region_id);
