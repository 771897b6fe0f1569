-- 0002_paths.sql - the call tree's paths and self times (scopedb_meta
-- schema_version 1 -> 2; issue 22, docs/format.md section 10).  The same
-- tables and meanings as the SQLite store's schema/0003_paths.sql; like
-- the other bulk tables, paths and path_ranks have no foreign keys and
-- are removed with their run by store_remove_run().

CREATE TABLE run_nesting (
	run_id bigint PRIMARY KEY,
	ranks bigint NOT NULL CHECK (ranks >= 0),
	trees bigint NOT NULL CHECK (trees >= 0 AND trees <= ranks),
	paths bigint NOT NULL CHECK (paths >= 0),
	path_rows bigint NOT NULL CHECK (path_rows >= 0)
);
COMMENT ON TABLE run_nesting IS
	'one row per run read for nesting (issue 22); runs stored before have none';
COMMENT ON COLUMN run_nesting.run_id IS 'the run';
COMMENT ON COLUMN run_nesting.ranks IS 'ranks with per-call data';
COMMENT ON COLUMN run_nesting.trees IS 'of which have a call tree';
COMMENT ON COLUMN run_nesting.paths IS 'distinct paths of the run';
COMMENT ON COLUMN run_nesting.path_rows IS '(path, rank) rows of the run';

CREATE TABLE paths (
	run_id bigint NOT NULL,
	path_id bigint NOT NULL CHECK (path_id >= 0),
	parent_id bigint CHECK (parent_id >= 0 AND parent_id < path_id),
	region_id bigint NOT NULL,
	depth bigint NOT NULL CHECK (depth >= 1),
	calls bigint,
	total_ns bigint,
	min_ns bigint,
	max_ns bigint,
	busy_ranks bigint,
	busy_max_ns bigint,
	nranks bigint,
	self_ns bigint,
	PRIMARY KEY (run_id, path_id)
);
COMMENT ON TABLE paths IS 'the distinct paths of a run (docs/format.md section 10.4)';
COMMENT ON COLUMN paths.run_id IS 'the run';
COMMENT ON COLUMN paths.path_id IS '0, 1, 2... within the run; a parent has a smaller id';
COMMENT ON COLUMN paths.parent_id IS 'the path without its last name; NULL for a root';
COMMENT ON COLUMN paths.region_id IS 'the last name of the path';
COMMENT ON COLUMN paths.depth IS 'names in the path, 1 for a root';
COMMENT ON COLUMN paths.calls IS 'outermost calls over all ranks (set once path_ranks is in)';
COMMENT ON COLUMN paths.total_ns IS 'inclusive total over all ranks';
COMMENT ON COLUMN paths.min_ns IS 'the shortest outermost call';
COMMENT ON COLUMN paths.max_ns IS 'the longest outermost call';
COMMENT ON COLUMN paths.busy_ranks IS 'ranks whose total is > 0';
COMMENT ON COLUMN paths.busy_max_ns IS 'the largest such total';
COMMENT ON COLUMN paths.nranks IS 'ranks with a row';
COMMENT ON COLUMN paths.self_ns IS 'self total over all ranks';

CREATE TABLE path_ranks (
	run_id bigint NOT NULL,
	path_id bigint NOT NULL,
	rank bigint NOT NULL CHECK (rank >= 0),
	calls bigint NOT NULL CHECK (calls >= 1),
	nested bigint NOT NULL CHECK (nested >= 0),
	total_ns bigint NOT NULL CHECK (total_ns >= 0),
	self_ns bigint NOT NULL CHECK (self_ns >= 0),
	min_ns bigint NOT NULL CHECK (min_ns >= 0),
	max_ns bigint NOT NULL CHECK (max_ns >= min_ns),
	durations bytea,
	PRIMARY KEY (run_id, path_id, rank)
);
COMMENT ON TABLE path_ranks IS 'the numbers of one (run, path, rank) (docs/format.md section 10.5)';
COMMENT ON COLUMN path_ranks.run_id IS 'the run';
COMMENT ON COLUMN path_ranks.path_id IS 'the path (paths.path_id of the run)';
COMMENT ON COLUMN path_ranks.rank IS 'the MPI rank';
COMMENT ON COLUMN path_ranks.calls IS 'outermost calls: a recursion counts once';
COMMENT ON COLUMN path_ranks.nested IS 'calls nested in a call of the same path';
COMMENT ON COLUMN path_ranks.total_ns IS 'inclusive: the outermost calls'' durations summed';
COMMENT ON COLUMN path_ranks.self_ns IS 'every call''s duration minus its direct children''s';
COMMENT ON COLUMN path_ranks.min_ns IS 'the shortest outermost call';
COMMENT ON COLUMN path_ranks.max_ns IS 'the longest outermost call';
COMMENT ON COLUMN path_ranks.durations IS
	'the outermost calls'' durations; NULL: the timings row''s of the path''s region and rank';

ALTER TABLE run_regions ADD COLUMN self_ns bigint;
COMMENT ON COLUMN run_regions.self_ns IS
	'self time over all ranks (timings.exclusive_ns summed); NULL when a rank''s is unknown';
COMMENT ON COLUMN timings.exclusive_ns IS
	'self time of the (rank, region): from the call tree, else the file''s exclusive total; NULL if unknown';
UPDATE run_regions SET self_ns = (
	SELECT CASE WHEN count(t.exclusive_ns) = count(*) THEN sum(t.exclusive_ns) END
	FROM timings AS t WHERE t.run_id = run_regions.run_id AND t.region_id = run_regions.region_id);
