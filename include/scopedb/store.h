/*
 * store.h - the history store: runs, their timings and duration blobs,
 * tags, metadata, pins, and the queries of diff, check, show and history.
 *
 * A front end (src/store/store.c and the files beside it) over
 * interchangeable backends (src/store/backend.h): store_open() picks the
 * backend from the --db value (a file path: SQLite, src/store/sqlite/; a
 * postgresql:// URI or libpq connection string: PostgreSQL,
 * src/store/postgres/) and checks that its table of primitives is
 * complete; every call here is the front end's, with the statements of
 * src/store/statements.h, run by the backend in its SQL.  Nothing in this
 * header depends on the backend; each backend owns its schema (schema/,
 * schema/postgres/) and migrations.  Errors name the store as "store
 * 'PATH'" (store_location()).
 *
 * Writers use one transaction per ingested file: store_begin(), store_*
 * inserts, then store_commit() or store_rollback().  A run's all-ranks
 * totals and percentiles are added at the end of its ingest by
 * store_finish_run() (the finish pipeline of the front end,
 * src/store/finish.c) through the "finishing a run" calls below.
 *
 * Ownership: struct store is freed by store_close() (accepts NULL).  Strings
 * in structures filled by store_* read functions are malloc'ed copies owned
 * by the structure and freed by its *_release() function.  Pointers passed
 * in (names, blobs, filters) are only read during the call.
 */
#ifndef SCOPEDB_STORE_H
#define SCOPEDB_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "scopedb/filter.h"
#include "scopedb/select.h"
#include "scopedb/util.h"

struct store;

enum store_open_flags {
	STORE_READONLY = 1,   /* do not create; fail if missing */
	STORE_NO_UPGRADE = 2, /* read-only: never upgrade an older store */
	STORE_EXISTING = 4,   /* writable, but never create: ERR_IO "cannot open
			       * store 'PATH': no such file" when it is missing */
};

/*
 * Open (creating if needed, unless STORE_READONLY or STORE_EXISTING) the
 * store at path, with the backend the registry picks for it (an SQLite
 * file for any path no other backend claims), and bring its schema up to
 * date: a new store in one transaction, an older one one migration per
 * transaction.  A read-only open of an older store upgrades it first
 * through a writing connection (unless STORE_NO_UPGRADE), so that read
 * commands keep working after scopedb itself was upgraded.
 * Fails with ERR_STORE and a message naming path when the file is not a
 * scopedb store, was written by a newer scopedb (schema version too high) or
 * (read-only) needs an upgrade that cannot be written; with ERR_IO when the
 * file cannot be opened or created ("cannot open store 'PATH': no such file
 * or directory"); with ERR_BUSY when another process holds the lock longer
 * than the timeout.  Refused before anything is opened: "" and in-memory
 * databases (ERR_USAGE: they keep nothing; see store_open_temporary()), a
 * directory or any path that is not a regular file (ERR_IO).
 */
int store_open(struct store **out, const char *path, int flags);

/*
 * 1 when location is a file path (a store of the SQLite backend), 0 when
 * it names a database on a server: a connection string another backend
 * accepts, or a postgresql:// URI in a build without that backend.  Only
 * file paths are checked by store_open() as above.
 */
int store_is_file(const char *location);
void store_close(struct store *st);

/* ERR_USAGE naming option ("--db", "--to"...) for a location that can
 * never be a store: "" (an unset variable) or an in-memory SQLite
 * database; store_open() checks it as --db's.  0 otherwise. */
int store_check_location(const char *location, const char *option);

/* 1 when location is a file path (store_is_file()) with nothing there: a
 * store_open() for writing would create the store. */
int store_file_missing(const char *location);

/* A private, empty store that lives in memory until store_close() (diff
 * and check of a file that is not stored: it is ingested there), of the
 * first backend that has them (SQLite's). */
int store_open_temporary(struct store **out);

/* For a temporary store holding one file's run: the warning its ingest gave
 * about ranks without a call tree ("'x.json': rank 0: a path is more than
 * 1024 names long, so ..."), which a read by path that finds no path then
 * says in place of the list of possible causes.  Copied; no-op on other
 * stores or an empty warning. */
int store_set_file_note(struct store *st, const char *warning);

/* The --db value the store was opened with, for messages. */
const char *store_location(const struct store *st);

/* Schema version this build writes (number of schema/NNNN_name.sql files). */
int store_schema_version(void);

/*
 * The longest name a store indexes (bytes): a tag, label, branch, metadata
 * key or pin name; longer ones are refused on every backend (docs/text.md).
 * PostgreSQL refuses a B-tree index entry past 2,704 bytes; region names
 * (C++ templates run to kilobytes) and metadata values (a full
 * environment's PATH) are indexed by hash there and have no limit.
 */
#define STORE_NAME_MAX 2000

/* 0 when s (NULL is fine) is a name a store can index (UTF-8, at most
 * STORE_NAME_MAX bytes), else ERR_FORMAT "WHAT 'S...' is not valid
 * UTF-8 ..." or "... is too long (N bytes; a store indexes names of at
 * most 2000)". */
int store_check_name(const char *what, const char *s);

/* How long to wait for another process's lock before failing with ERR_BUSY
 * (default 30000 ms). */
void store_set_busy_timeout(struct store *st, int ms);

/* Begin a write transaction, taking the store's write lock at once
 * (ERR_USAGE if a transaction is already open). */
int store_begin(struct store *st);
/* On failure the transaction has been rolled back already. */
int store_commit(struct store *st);
/* Never fails from the caller's point of view; keeps the current message. */
void store_rollback(struct store *st);

/* A stored run (one ingested file). */
struct store_run {
	int64_t id;
	char *sha256; /* hex content hash */
	char *source_path;
	char *ingested_at; /* ISO-8601 UTC */
	char *recorded_at; /* metadata timestamp, may be NULL */
	char *label;	   /* may be NULL */
	char *commit;	   /* may be NULL */
	char *branch;	   /* may be NULL */
	int schema;
	char *layout; /* "hierarchical" | "columnar" | "aggregate" */
	int64_t num_ranks;
	int64_t num_regions; /* distinct regions with a timings row */
	int64_t num_calls;
	char **tags; /* sorted */
	size_t ntags;
};

void store_run_release(struct store_run *run);

/* Look up a run by content hash: *out = run id, or 0 when absent. */
int store_find_sha(struct store *st, int64_t *out, const char *sha256);

/* Insert a run (id, tags, num_regions/num_calls ignored); *out = new id.
 * ingested_at NULL means now; "" in recorded_at, label, commit or branch is
 * stored as NULL.  Run ids are never reused, even after a run is removed. */
int store_insert_run(struct store *st, int64_t *out, const struct store_run *run);

/* Set the content hash of a run inserted before its hash was known
 * (ingest hashes while it reads); ERR_STORE when another run has it. */
int store_set_run_sha(struct store *st, int64_t run_id, const char *sha256);

/* Add a tag (no-op if the run has it).  *added = 1 if it was new. */
int store_add_tag(struct store *st, int *added, int64_t run_id, const char *tag);

/* Set (insert or replace) one metadata key of a run. */
int store_set_meta(struct store *st, int64_t run_id, const char *key, const char *value);
/* store_set_meta() of keys[i] = values[i] for i < n, distinct keys, in
 * one statement. */
int store_set_metas(struct store *st, int64_t run_id, char *const *keys, char *const *values,
		    size_t n);

/* Interned region id for name, created if needed (cached per connection;
 * the cache is emptied by store_begin() and store_rollback()). */
int store_region_id(struct store *st, int64_t *out, const char *name);

/* One (run, region, rank) row. */
struct store_timing {
	int64_t run_id;
	int64_t region_id;
	int64_t rank;
	int has_events; /* 0: aggregate layout, no per-call data */
	uint64_t calls;
	int64_t total, min, max, first, last, start_min, end_max;
	double mean, m2;
	int64_t exclusive; /* -1 unknown -> NULL */
	uint64_t gpu_count;
	int64_t gpu_total;
	const char *source_file; /* "" -> NULL */
	int64_t source_line;	 /* -1 -> NULL */
	const char *source_text; /* "" -> NULL */
	const char *tags_json;	 /* "[]" -> NULL */
	const void *durations;	 /* store_encode_durations(), NULL when !has_events */
	size_t durations_len;
};

/* Append the store's encoding of one row's call durations, sorted[0..n)
 * (ascending, each >= 0), to out: what store_timing.durations holds.
 * ERR_USAGE when the values are negative or not sorted. */
int store_encode_durations(struct buf *out, const int64_t *sorted, size_t n);
/* The same bytes written in parts (a row never held whole, ingest_big.c):
 * the head with the count of all the values, then each ascending part in
 * turn, *last 0 before the first part and carried from part to part;
 * ERR_USAGE as store_encode_durations() on a value out of order. */
int store_encode_durations_head(struct buf *out, uint64_t n);
int store_encode_durations_more(struct buf *out, int64_t *last, const int64_t *sorted, size_t n);
/* Append the durations that store_encode_durations() wrote in data[0..len)
 * to out (which keeps its content; left as it was on error).  The bytes
 * are untrusted: ERR_FORMAT "corrupt durations blob: ..." when they do not
 * decode. */
int store_decode_durations(struct i64vec *out, const void *data, size_t len);
/* *out = how many durations data[0..len) holds, checking its header only
 * (ERR_FORMAT as store_decode_durations()). */
int store_count_durations(uint64_t *out, const void *data, size_t len);
/* out[j] = the value of rank ranks[j] (0-based, ranks ascending) among
 * all the durations of the nblobs blobs data[i][0..lens[i]), found by a
 * merge that decodes a value at a time: memory O(nblobs), not O(values),
 * for a region too large to decode (ingest_quant.c).  Each blob is checked
 * whole as store_decode_durations() checks it (ERR_FORMAT); a rank past
 * the values is ERR_USAGE. */
int store_select_durations(int64_t *out, const uint64_t *ranks, size_t nranks,
			   const void *const *data, const size_t *lens, size_t nblobs);

/* Insert the timings row and, when durations != NULL, its durations row.
 * Only inside store_begin()/store_commit() (ERR_USAGE otherwise), so the
 * pair is atomic.  durations must stay valid during the call only.
 * ERR_FORMAT when the region's times or GPU times over the run's ranks
 * would pass 2^63 ns (the message says so without naming the region or
 * file). */
int store_add_timing(struct store *st, const struct store_timing *t);

/* Called by store_scan_timings() with each timings row (run_id and
 * region_id are the source store's; the row's region name, its durations
 * (NULL when it has none) and strings are valid during the call only).  A
 * non-zero return stops the scan and is returned by it. */
typedef int (*store_timing_fn)(void *ctx, const struct store_timing *t, const char *region);

/* Every timings row of run_id, in the order they were stored, with "" /
 * -1 / "[]" for absent strings, numbers and tags (as store_add_timing()
 * takes them): for copying a run to another store (transfer.h). */
int store_scan_timings(struct store *st, int64_t run_id, store_timing_fn fn, void *ctx);

/*
 * The call tree of a run (issue 22, docs/format.md section 10): its
 * distinct paths (a path is its parent path plus one region) and, per
 * (path, rank), the numbers of section 10.5.  Written by ingest (and
 * push/pull) inside the run's transaction, after its timings rows.
 */
struct store_nesting {
	int64_t ranks;	   /* ranks with per-call data */
	int64_t trees;	   /* of which have a call tree */
	int64_t paths;	   /* distinct paths of the run */
	int64_t path_rows; /* (path, rank) rows */
};

struct store_path {
	int64_t run_id;
	int64_t path_id;   /* 0, 1, 2... within the run */
	int64_t parent_id; /* < path_id; -1 for a root */
	int64_t region_id; /* its last name */
	int64_t depth;	   /* names in the path, 1 for a root */
};

struct store_path_rank {
	int64_t run_id;
	int64_t path_id;
	int64_t rank;
	uint64_t calls;	  /* outermost calls (>= 1) */
	uint64_t nested;  /* calls nested in a call of the same path */
	int64_t total;	  /* inclusive: the outermost calls' durations summed */
	int64_t self;	  /* every call's duration minus its direct children's */
	int64_t min, max; /* the shortest and longest outermost call */
	/* the outermost calls' durations (store_encode_durations()); NULL:
	 * they are the timings row's of (run, the path's region, rank) */
	const void *durations;
	size_t durations_len;
};

/* Mark run_id as read for nesting, with n's counts (once per run, inside
 * the run's transaction, after its paths and their rows). */
int store_put_nesting(struct store *st, int64_t run_id, const struct store_nesting *n);
/* *found = 0 for a run stored before scopedb read nesting (ingest its file
 * again to get its paths), else 1 and *out. */
int store_get_nesting(struct store *st, int64_t run_id, struct store_nesting *out, int *found);
/* Add one path / one (path, rank) row; inside a transaction only (as
 * store_add_timing()), paths before the rows that use them.  The rows go
 * in at once; the paths are held, their rows added up, and written with
 * their totals and percentiles by store_finish_run(), which must come
 * before store_commit() (a commit that would lose them is refused). */
int store_add_path(struct store *st, const struct store_path *p);
int store_add_path_rank(struct store *st, const struct store_path_rank *r);

/* Called by store_scan_paths() with each path (by id, parents first, each
 * checked: ids in sequence, parents earlier and one name shorter) and its
 * region's name, then with each (path, rank) row (by path, then rank; the
 * durations, as stored, valid during the call only).  A non-zero return
 * stops the scan and is returned by it. */
typedef int (*store_path_fn)(void *ctx, const struct store_path *p, const char *region);
typedef int (*store_path_rank_fn)(void *ctx, const struct store_path_rank *r);

/* Every path of run_id, then every (path, rank) row: for copying a run
 * (transfer.h) and for the tree commands.  Either fn may be NULL (the
 * rows are still read and checked). */
int store_scan_paths(struct store *st, int64_t run_id, store_path_fn pf, store_path_rank_fn rf,
		     void *ctx);

/* Called by store_region_sources() with a region's name, its source file
 * (untrusted text, as the profile wrote it) and line (-1: none), valid
 * during the call only.  Non-zero stops. */
typedef int (*store_source_fn)(void *ctx, const char *region, const char *file, int64_t line);

/* The source location of every region of run_id that has one (the profile's
 * source_file and source_line), in no particular order: where the findings
 * of check --format github/codequality point. */
int store_region_sources(struct store *st, int64_t run_id, store_source_fn fn, void *ctx);

/* All runs, newest first (recorded_at, falling back to ingested_at, then
 * id).  *out is a malloc'ed array of *n runs; free with
 * store_runs_free(). */
int store_list_runs(struct store *st, struct store_run **out, size_t *n);
void store_runs_free(struct store_run *runs, size_t n);

/* The ids of all runs, in store_list_runs()'s order, without checking the
 * rows (only that an id is positive): a transfer copies runs one by one,
 * and one damaged run must not hide the others (store_get_run() refuses
 * it alone).  *out is malloc'ed (NULL when *n is 0), freed by the caller. */
int store_list_run_ids(struct store *st, int64_t **out, size_t *n);

/* One run by id (ERR_NOTFOUND when absent); release with
 * store_run_release(). */
int store_get_run(struct store *st, struct store_run *out, int64_t id);

/* Metadata of a run as parallel key/value arrays sorted by key (empty for
 * a run without metadata or an unknown run); release with
 * store_meta_release(). */
struct store_meta {
	size_t n;
	char **keys;
	char **values;
};
int store_get_meta(struct store *st, struct store_meta *out, int64_t run_id);
void store_meta_release(struct store_meta *m);

/* ---- selectors, pins and comparisons ------------------------------------ */

/*
 * The run a parsed selector names (select.h): *out = run id.  ERR_NOTFOUND
 * with a message naming the selector when nothing matches ("no run has tag
 * 'nightly'", "no run 'latest~5': only 3 runs stored"), and when a commit prefix
 * matches several commits (listing them).
 */
int store_resolve(struct store *st, int64_t *out, const struct select_spec *sel);

/* A named pin. */
struct store_pin {
	char *name;
	int64_t run_id;
	char *pinned_at; /* ISO-8601 UTC */
};

/* Pin run_id as name, moving an existing pin; *prev = the run it named
 * before, or 0 when the pin is new.  ERR_NOTFOUND when the run is gone. */
int store_pin_set(struct store *st, int64_t *prev, const char *name, int64_t run_id);

/* Pin run_id as name only when there is no such pin (one transaction, so
 * that concurrent first runs of a pipeline agree); *prev = the run an
 * existing pin names, which is left as is, or 0 when the pin was made. */
int store_pin_add(struct store *st, int64_t *prev, const char *name, int64_t run_id);

/* store_pin_add() of a pin copied from another store (push, pull): it
 * keeps the time it was pinned there, pinned_at (NULL: now). */
int store_pin_copy(struct store *st, int64_t *prev, const char *name, int64_t run_id,
		   const char *pinned_at);

/* Remove a pin; *prev = the run it named.  ERR_NOTFOUND when there is no
 * such pin. */
int store_pin_remove(struct store *st, int64_t *prev, const char *name);

/* All pins sorted by name; free with store_pins_free(). */
int store_list_pins(struct store *st, struct store_pin **out, size_t *n);
void store_pins_free(struct store_pin *pins, size_t n);

/*
 * Several reads from one snapshot (a read transaction), e.g. resolving a
 * selector and then reading the run's aggregates and durations.  *started =
 * 1 when a read transaction was begun (end it with store_read_end()), 0
 * when one was already open (the reads join it).
 */
int store_read_begin(struct store *st, int *started);
void store_read_end(struct store *st);

/*
 * One region of a run pooled over the selected ranks:
 * sums of calls, totals and GPU values, the extremes over rows with calls,
 * and the per-rank totals > 0 (count and largest) for the imbalance.  A
 * region with rows only on unselected ranks is still listed (calls 0).
 */
struct store_region_stats {
	int64_t region_id;
	char *name;
	int has_events; /* 0 for aggregate-layout runs */
	uint64_t calls;
	int64_t total, min, max; /* ns; min/max 0 when calls == 0 */
	uint64_t gpu_count;
	int64_t gpu_total;
	uint64_t nranks;     /* selected ranks with a row (calls may be 0) */
	uint64_t busy_ranks; /* selected rows (= ranks) with total > 0 */
	int64_t busy_max;    /* largest such total, 0 if none */
	/* All ranks only (no rank list): the stored p50, p95 and p99 of the
	 * region's call durations in ns (has_quantiles 0 without them). */
	int has_quantiles;
	double quantiles[3];
	/* The self time over the selected ranks in ns (docs/format.md section
	 * 10.5): has_self 0 when a rank's is unknown (a run stored before
	 * scopedb read call trees, a file without exclusive totals). */
	int has_self;
	int64_t self;
	/* store_path_stats() only (depth 0 for a region by name): the path's
	 * id in its run, its parent's (-1 for a root), its names (name is
	 * them joined with " > "), and the names themselves, from the root
	 * down (depth strings; NULL for a region by name) */
	int64_t path_id, parent_id, depth;
	char **path;
};

/* Return 0 and *keep = 1 to list the region called name. */
typedef int (*store_region_filter)(void *ctx, int *keep, const char *name);

/*
 * The regions of run_id (sorted by name, byte order) that filter keeps (all
 * when filter is NULL), pooled over ranks[0..nranks) (all ranks when ranks
 * is NULL).  With ranks, pooled from the timings rows of those ranks;
 * without, the run's stored totals (store_put_region_totals(), with the
 * percentiles).
 * Free *out with store_region_stats_free().
 */
int store_region_stats(struct store *st, struct store_region_stats **out, size_t *n, int64_t run_id,
		       const int64_t *ranks, size_t nranks, store_region_filter filter, void *ctx);
void store_region_stats_free(struct store_region_stats *regs, size_t n);

/* Return 0 and *keep = 1 to list the path whose names, from the root down,
 * are names[0..depth) (joined: the same with " > " between them). */
typedef int (*store_path_filter)(void *ctx, int *keep, const char *joined, const char *const *names,
				 size_t depth);

/*
 * The paths of run_id (docs/format.md section 10.4) that filter keeps (all
 * when NULL), as store_region_stats() gives regions, sorted by the joined
 * name: the outermost calls of each path pooled over ranks[0..nranks) (all
 * when NULL), their total (inclusive), shortest and longest call, and the
 * path's self time; no GPU times; over all ranks, the path's stored
 * p50/p95/p99 (has_quantiles 0 for a run stored before they were kept,
 * and with ranks: store_path_duration_runs() has the durations).
 * ERR_NOTFOUND "run N
 * was stored before scopedb kept call trees ..." for a run without them.
 */
int store_path_stats(struct store *st, struct store_region_stats **out, size_t *n, int64_t run_id,
		     const int64_t *ranks, size_t nranks, store_path_filter filter, void *ctx);

/* Called by store_path_nested() with a path of the run that recursed:
 * its id and the calls nested in a call of the same path.  Non-zero stops. */
typedef int (*store_path_nested_fn)(void *ctx, int64_t path_id, uint64_t nested);

/*
 * Each path of run_id whose calls nested in a call of the same path (a
 * recursion, counted once by its outermost calls: docs/format.md section
 * 10.5) on the ranks (NULL: all), with their number over those ranks; the
 * paths without any are not given.  A separate read: store_path_stats()
 * over all ranks reads the paths' stored totals only.
 */
int store_path_nested(struct store *st, int64_t run_id, const int64_t *ranks, size_t nranks,
		      store_path_nested_fn fn, void *ctx);

/* The durations of the outermost calls of path path_id of run_id on the
 * ranks (NULL: all), as store_region_duration_runs() gives a region's. */
int store_path_duration_runs(struct store *st, struct i64vec *out, struct i64vec *ends,
			     int64_t run_id, int64_t path_id, const int64_t *ranks, size_t nranks);

/* Called by store_rank_totals() with one (region, rank) row of a run:
 * the region's name, the rank and its total in ns.  Non-zero stops. */
typedef int (*store_rank_total_fn)(void *ctx, const char *region, int64_t rank, int64_t total_ns);

/*
 * Every (region, rank) row of run_id with its total time, in no particular
 * order (the per-rank picture of a run: report's heatmaps).  One query
 * where the backend has one (rank_totals), else one store_region_stats()
 * per rank of the run.  Errors: the store's, and fn's return.
 */
int store_rank_totals(struct store *st, int64_t run_id, store_rank_total_fn fn, void *ctx);

/*
 * Append the stored call durations (ns) of one region of run_id on the
 * selected ranks (ranks NULL = all) to out, sorted ascending.  Blobs that do
 * not decode fail with ERR_STORE naming the run.
 */
int store_region_durations(struct store *st, struct i64vec *out, int64_t run_id, int64_t region_id,
			   const int64_t *ranks, size_t nranks);

/*
 * The same durations without the final sort: each stored (rank) row is
 * appended as one ascending run and the end offset of each run in out is
 * pushed to ends.  For order statistics that do not need the merged array
 * (percentile_runs(), src/util/percentile.h): a full sort of every call of a region costs
 * far more than decoding them (issue 6).
 */
int store_region_duration_runs(struct store *st, struct i64vec *out, struct i64vec *ends,
			       int64_t run_id, int64_t region_id, const int64_t *ranks,
			       size_t nranks);

/* ---- the history workflow: filtered listings, tags, removal, history ---- */

/*
 * Runs matching f (NULL = all), newest first (as store_list_runs()), at
 * most f->limit of them, each with its tags.
 */
int store_find_runs(struct store *st, struct store_run **out, size_t *n, const struct filter *f);

/* Remove a tag of a run; *removed = 1 when the run had it. */
int store_remove_tag(struct store *st, int *removed, int64_t run_id, const char *tag);

/*
 * Remove run_id and everything of its own (tags, metadata, timings,
 * durations), inside store_begin()/store_commit() (ERR_USAGE otherwise) so
 * that several removals are one transaction.  A pinned run is refused
 * (ERR_USAGE "run 3 is pinned as 'base': unpin it or use --force") unless
 * force, which removes its pins too: *unpinned is then the malloc'ed
 * comma-separated list of their names (NULL when there were none).
 * ERR_NOTFOUND when the run does not exist.
 */
int store_remove_run(struct store *st, char **unpinned, int64_t run_id, int force);

/*
 * Compact the store: forget region names no run uses any more, give the
 * space of removed runs back and refresh the query planner's statistics.
 * *before and *after are the store's size in bytes as the backend counts
 * it (the SQLite backend: the file before, the space in use after).  Must
 * not run inside a transaction.
 */
int store_vacuum(struct store *st, int64_t *before, int64_t *after);

/*
 * *out = the bytes of the store in use, as the current transaction sees
 * them (the SQLite backend: pages in use times the page size; the pages
 * of removed runs are free, and store_vacuum() gives them back to the file
 * system).  Inside a transaction that removed runs, the difference with
 * the value before the removals is the space they took.
 */
int store_used_bytes(struct store *st, int64_t *out);

/* One run of a region's history (store_region_history()). */
struct store_history_point {
	struct store_region_stats stats; /* the region (name) pooled in the run */
	int64_t run_id;
	char *time;   /* the run's sort time (recorded, else ingested) */
	char *commit; /* NULL when unknown, likewise label */
	char *label;
	struct i64vec durations; /* sorted; only with q->durations and ranks
				  * (all ranks: stats.quantiles instead) */
};

struct store_history_query {
	const char *region;	    /* exact region name, or NULL: */
	store_region_filter filter; /* the regions filter keeps */
	void *ctx;
	const char *pattern;	   /* how filter selects, for messages */
	const struct filter *runs; /* which runs (NULL = all); limit = the
				    * newest N runs per region that have it */
	const int64_t *ranks;	   /* NULL = all ranks */
	size_t nranks;
	int durations; /* also read the sorted durations (p50..) */
};

/*
 * Every selected region in every selected run that has it, pooled over the
 * selected ranks like store_region_stats(): ordered by region name, then
 * oldest first (sort time, then id), with the durations of the selected
 * ranks when q->durations.  ERR_NOTFOUND "no region 'x' in store 'PATH'" (or "no
 * region matches 'PATTERN' in store 'PATH'") when no stored region
 * qualifies; an empty result (*n = 0) when none of the selected runs has
 * one.  Free with store_history_free().
 */
int store_region_history(struct store *st, struct store_history_point **out, size_t *n,
			 const struct store_history_query *q);
void store_history_free(struct store_history_point *p, size_t n);

/* A selected run of a series (store_region_series()). */
struct store_series_run {
	int64_t id;
	char *time;   /* the run's sort time (recorded, else ingested) */
	char *commit; /* NULL when unknown, likewise label and branch */
	char *label;
	char *branch;
};

/* One region in one run of a series, over all ranks (the stored totals
 * and percentiles, as store_region_stats() without a rank list). */
struct store_series_cell {
	size_t run;			 /* index in runs */
	size_t region;			 /* index in names */
	struct store_region_stats stats; /* stats.name is names[region] */
};

struct store_series {
	struct store_series_run *runs; /* the selected runs, oldest first */
	size_t nruns;
	char **names; /* the selected regions with a cell, by name */
	size_t nregions;
	size_t nselected;		 /* regions the filter kept, with a cell or not */
	struct store_series_cell *cells; /* by region (names order), then by run */
	size_t ncells;
};

/*
 * Every region filter keeps (all when NULL) in every run f selects (NULL =
 * all; f->limit = the newest N runs), over all ranks: one pass over the
 * stored totals for "scopedb changes", where store_region_history() would
 * build one point per (region, run).  Regions without a cell are left out.
 * Release with store_series_release().
 */
int store_region_series(struct store *st, struct store_series *out, const struct filter *f,
			store_region_filter filter, void *ctx);
void store_series_release(struct store_series *s);

/* ---- finishing a run (src/store/finish.c) ------------------------------- */

/*
 * Complete run_id once all its timings are stored (inside the writer's
 * transaction), once: write its all-ranks totals, region and call counts,
 * the exact p50/p95/p99 of each region with per-call data, and the paths of
 * its call tree (store_add_path()), each with its p50/p95/p99.
 * Readers without --ranks use those totals instead of the timings rows.
 * ERR_NOTFOUND when there is no such run; ERR_STORE "store 'PATH' is
 * damaged: ..." when its blobs do not match its timings.  Written against
 * the backend-neutral calls below, so every backend shares it; push, pull
 * and a backend's schema upgrade for older runs call it (ingest calls
 * store_finish_run_from(), below, with the blobs it holds).
 *
 * Threads: st is used only by the calling thread; a large run's
 * percentiles are computed on one extra thread, which never touches st
 * and is joined before the call returns.  Ownership: nothing is kept
 * (up to 128 MB of scratch memory during the call).
 */
int store_finish_run(struct store *st, int64_t run_id);

/* Called by store_scan_blobs() with each durations blob (as
 * store_encode_durations() writes them) and the region and rank of its
 * timings row; data valid during the call only.  A non-zero return stops
 * the scan and is returned by it. */
typedef int (*store_blob_fn)(void *ctx, int64_t region_id, int64_t rank, const void *data,
			     size_t len);

/* Called by a blob source's quantiles() with the p50, p95 and p99 it
 * computed of one region (percentile_runs_stored() of its blobs decoded
 * as nruns sorted runs of nvals values in all).  A non-zero return stops
 * it and is returned by it. */
typedef int (*store_quantile_fn)(void *arg, int64_t region_id, const double q[3], uint64_t nvals,
				 uint64_t nruns);

/*
 * The durations blobs of a run its writer still holds: scan(ctx, fn, arg)
 * gives fn every blob the run's timings rows were stored with, as
 * store_scan_blobs() would (store region id, rank, the bytes, in the order
 * they were added), and returns what fn returned if not 0.  The bytes
 * stay valid and unchanged until store_finish_run_from() returns.
 * quantiles (optional, NULL: none) gives fn the percentiles the writer
 * has already computed from the same blobs, of some regions or all (ingest
 * computes them while it writes the rows); a region whose numbers of
 * values and runs match its rows takes them, any other is computed from
 * the blobs as without them.
 */
struct store_blob_source {
	int (*scan)(void *ctx, store_blob_fn fn, void *arg);
	int (*quantiles)(void *ctx, store_quantile_fn fn, void *arg);
	void *ctx;
};

/* store_finish_run() with the run's blobs taken from src (the writer's
 * memory) instead of read back from the store: the same result, without
 * the scratch copy (src NULL: store_finish_run()). */
int store_finish_run_from(struct store *st, int64_t run_id, const struct store_blob_source *src);

/* The steps of store_finish_run() that read and write the store: */

/* Every durations blob of run_id, in the order they lie in the store (one
 * sequential pass), to fn. */
int store_scan_blobs(struct store *st, int64_t run_id, store_blob_fn fn, void *ctx);

/* Called by store_scan_path_blobs() with each (path, rank) row of a run:
 * the path, the rank and the row's own durations blob (NULL, 0: the
 * timings row's of the path's region and the rank); data valid during the
 * call only.  A non-zero return stops the scan. */
typedef int (*store_path_blob_fn)(void *ctx, int64_t path_id, int64_t rank, const void *data,
				  size_t len);

/* Every (path, rank) row of run_id, by path then rank, to fn (one pass;
 * store_finish_run() computes each path's percentiles from them). */
int store_scan_path_blobs(struct store *st, int64_t run_id, store_path_blob_fn fn, void *ctx);

/* Store the p50, p95 and p99 (ns) of the n paths path_ids[i] of run_id,
 * q[3 * i .. 3 * i + 2] (their totals over all ranks, which --by path
 * reads without --ranks), in few statements: for a run too large for the
 * paths to be written with them. */
int store_put_path_quantiles(struct store *st, int64_t run_id, const int64_t *path_ids,
			     const double *q, size_t n);

#endif
