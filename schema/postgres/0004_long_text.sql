-- 0004_long_text.sql - region names and metadata values of any length
-- (scopedb_meta schema_version 3 -> 4).  A B-tree index entry holds at
-- most 2,704 bytes: the unique index on regions.name refused a long C++
-- template name, and the index on run_metadata (key, value) a long value
-- (the PATH of a profile's full environment), where SQLite stores both.
-- Both are indexed by hash instead, which holds any length: the names'
-- uniqueness as an exclusion constraint (equality on the hash index), the
-- values' lookups (--meta, --same) by key, then value.  Tags, labels,
-- branches, metadata keys and pin names are held to 2,000 bytes on every
-- backend (STORE_NAME_MAX, docs/text.md).

ALTER TABLE regions DROP CONSTRAINT regions_name_key;
ALTER TABLE regions ADD CONSTRAINT regions_name_key EXCLUDE USING hash (name WITH =);
DROP INDEX run_metadata_by_key;
CREATE INDEX run_metadata_by_key ON run_metadata (key);
CREATE INDEX run_metadata_by_value ON run_metadata USING hash (value);
