/*
 * testutil_h5.h - shared helpers for tests that need scope-profiler files:
 * a standard multi-rank profile to write with h5write (and its usual
 * options), a loader that reads a whole file through h5prof into plain
 * arrays, a cmocka check that a loaded file holds exactly a written
 * profile, and one step of damage to a written file (the refusal tests).
 *
 * The standard profile (tu_h5_standard()) has ranks 0, 1, 2 and 10 and the
 * regions "solve", "größe_λ", "io" and "idle" in that order of first
 * appearance:
 *   - "solve" on every rank, with GPU times (every odd call -1 = none);
 *   - "größe_λ" on ranks 0-2, tags ["a","b \"q\"\n"];
 *   - "io" on ranks 0, 1 and 10 (missing on rank 2); rank 1's calls have
 *     decreasing start times (negative deltas in schema 3);
 *   - "idle" with zero calls on ranks 0 and 1 (not written in schema 1).
 * Durations are (37 i + 11 rank + 5 region) mod 23 ns (some are 0).
 */
#ifndef SCOPEDB_TESTUTIL_H5_H
#define SCOPEDB_TESTUTIL_H5_H

#include <stddef.h>
#include <stdint.h>

#include "scopedb/h5prof.h"
#include "h5write.h"

struct tu_h5_row {
	uint32_t rank;
	char *region;
	uint64_t calls;
	int has_events;
	int64_t *starts, *durations, *gpu; /* NULL when the reader gave NULL */
	int64_t agg_total, agg_min, agg_max, exclusive, source_line;
	char *source_file, *source_text, *tags_json;
};

struct tu_h5_loaded {
	int schema;
	enum h5prof_layout layout;
	uint32_t num_ranks;
	uint64_t num_events;
	size_t num_regions;
	char **names;
	size_t nrows;
	struct tu_h5_row *rows; /* in delivery order */
	size_t npieces;		/* pieces the reader handed rows out in */
};

/* The standard profile (static storage, built on first use). */
const struct h5write_profile *tu_h5_standard(void);

/* A profile of rows longer than small windows (static storage, built on
 * first use): rank 0 "small" (5 calls) and "big" (100, with GPU
 * durations), rank 1 "small" (3) and "big" (no calls). */
const struct h5write_profile *tu_h5_long_rows(void);

/* Write the standard profile to tu_path(name) with opts (fails the test on
 * error); returns the path (rotating static buffer of tu_path). */
const char *tu_h5_write_standard(const char *name, const struct h5write_opts *opts);

/* Open and read path completely; returns 0 or the h5prof error code (then
 * *out is empty).  Free with tu_h5_loaded_free(). */
int tu_h5_load(struct tu_h5_loaded *out, const char *path);
/* The same with h5prof_set_piece_min(piece_min): rows handed out in
 * pieces are checked (in order, the last one marked) and gathered whole,
 * counted in npieces. */
int tu_h5_load_pieces(struct tu_h5_loaded *out, const char *path, uint64_t piece_min);
void tu_h5_loaded_free(struct tu_h5_loaded *l);

/* tu_h5_load() through the reader chosen by content (profile.h): HDF5 or
 * JSON; the names and counts are taken once the rows are read. */
int tu_profile_load(struct tu_h5_loaded *out, const char *path);
/* The same with profile_set_piece_min(piece_min) (tu_h5_load_pieces()). */
int tu_profile_load_pieces(struct tu_h5_loaded *out, const char *path, uint64_t piece_min);

/* Number of open HDF5 objects (files, groups, datasets, attributes, named
 * types) in all files.  Equal before and after an operation = every such
 * id was closed on every path.
 * tu_h5_load() and tu_h5_write_standard() check it themselves. */
unsigned long long tu_h5_live_ids(void);

/* The loaded row of (rank, region), or NULL. */
const struct tu_h5_row *tu_h5_find(const struct tu_h5_loaded *l, uint32_t rank, const char *region);

/* Options for the standard profile: schema, aggregate layout, mpi_size 4,
 * everything else off. */
struct h5write_opts tu_h5_opts(int schema, int aggregate);

/* A row of calls with their ids, parents, threads and tasks (each NULL:
 * none), no GPU time, no source: the nesting tests' rows. */
struct h5write_row tu_h5_nest_row(uint32_t rank, const char *region, size_t calls,
				  const int64_t *starts, const int64_t *ends, const int64_t *ids,
				  const int64_t *parents, const int64_t *threads,
				  const int64_t *tasks);

/* One damage done to a written file: delete an object (h5write_delete(),
 * "@name" for a root attribute), then (re)write a dataset with n values of
 * type (h5write_replace_dataset()); either step may be NULL. */
struct tu_h5_damage {
	const char *del;
	const char *dataset;
	enum h5write_type type;
	const void *data;
	size_t n;
};

/* Apply d to path (fails the test if h5write refuses). */
void tu_h5_damage(const char *path, const struct tu_h5_damage *d);

/*
 * Assert (cmocka) that l holds exactly prof as written with opts: same rows
 * (zero-call rows only for columnar layouts), calls, starts, durations,
 * GPU values (-1 where a row has none, when opts->gpu), aggregates, source
 * info and normalized tags.
 */
void tu_h5_check(const struct tu_h5_loaded *l, const struct h5write_profile *prof,
		 const struct h5write_opts *opts);

#endif
