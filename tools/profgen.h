/*
 * profgen.h - random valid scope-profiler profiles over the whole format
 * space, for the differential test (docs/testing.md): a seed in, a profile
 * out.
 *
 * profgen_new() draws a profile as an in-memory model that knows nothing
 * of any file format: its layout choices (schema 1, 2 or 3; columnar,
 * hierarchical or aggregate; fixed or variable strings; contiguous,
 * chunked, shuffled, deflated or checksummed datasets), its ranks (1 to
 * 1,024, some without rows, some beyond mpi_size), its regions (1 to 2,000
 * names: non-ASCII, 200 bytes long, differing only in case or a trailing
 * space, control characters and markup), and per rank and lane a schedule
 * of properly nested calls (children inside their parents, siblings apart,
 * direct and indirect recursion, zero-length calls) with their call and
 * parent ids and thread and task lanes, GPU times (some -1), source
 * information, tags and metadata of every type.  Sizes are drawn from a
 * skewed distribution: most profiles are small, a few are wide (many
 * ranks) or tall (many regions), so hundreds of seeds run in a minute.
 * The same seed always gives the same model, on every machine.
 *
 * Writers lay a model out as a file: profgen_write_h5() through h5write.c,
 * profgen_write_json() its JSON twin (upstream's second format) through
 * jsonwrite.c, from the same description: scopedb reads the same numbers
 * from both.  profgen_reference() computes, from the model's own
 * durations and independently of scopedb, the numbers `scopedb show`
 * must print (docs/format.md section 8; numpy's linear percentiles).
 *
 * A variant (profgen_new()'s variant > 0) has the structure of its seed's
 * profile (the same layout, ranks, regions, rows and call trees) with other
 * durations: a pair of them diffs region by region.
 *
 * Ownership: a struct profgen owns everything it points to; free it with
 * profgen_free() (NULL accepted).  Errors: 0 or a negative ERR_* code with
 * the message set (err.h).
 */
#ifndef SCOPEDB_PROFGEN_H
#define SCOPEDB_PROFGEN_H

#include <stddef.h>
#include <stdint.h>

#include "scopedb/util.h"

/* One (rank, region) row: its calls in the order the file stores them. */
struct profgen_row {
	uint32_t rank;
	uint32_t region; /* index into names */
	size_t ncalls;	 /* 0: an index row of no calls (schemas 2 and 3) */
	int64_t *starts, *ends;
	int64_t *gpu; /* ncalls values, < 0 = none; NULL: the row has none */
	/* ncalls values each, NULL when the file has no such column */
	int64_t *call_ids, *parent_ids, *thread_ids, *task_ids;
	char *source_file, *source_text; /* "" = unknown */
	int64_t source_line;		 /* -1 = unknown */
	char **tags;
	size_t ntags;
	int has_exclusive;
	int64_t exclusive; /* the true self time of the row's calls */
};

enum profgen_meta_kind {
	PROFGEN_META_STR,
	PROFGEN_META_INT,
	PROFGEN_META_UINT,
	PROFGEN_META_INT32,
	PROFGEN_META_FLOAT,
	PROFGEN_META_STRS,
	PROFGEN_META_INTS,
	PROFGEN_META_FLOATS,
};

struct profgen_meta {
	char *key;
	enum profgen_meta_kind kind;
	char *str;
	int64_t i;
	double f;
	char **strs;
	int64_t *ints;
	double *floats;
	size_t n; /* values of strs, ints or floats */
};

/* Filters of chunked datasets (as h5write.h's H5WRITE_*). */
#define PROFGEN_SHUFFLE 1u
#define PROFGEN_DEFLATE 2u
#define PROFGEN_FLETCHER32 4u

struct profgen {
	uint64_t seed;
	unsigned variant;
	int schema;	   /* 1, 2 or 3 */
	int aggregate;	   /* storage_layout "aggregate" */
	int fixed_strings; /* fixed-length strings (the MPI writer's) */
	int chunked;
	unsigned filters; /* PROFGEN_*: chunked with these filters */
	int gzip_level;
	size_t chunk;	       /* chunk length, 0: the writer's default */
	int summary;	       /* summary_statistics in the index */
	int gpu;	       /* a gpu_durations column */
	int ids;	       /* call_ids and parent_ids columns */
	int lanes;	       /* thread_ids and task_ids columns */
	int by_end;	       /* a row's calls in the order they ended (else started) */
	int64_t mpi_size;      /* /metadata mpi_size, 0 when not written */
	uint32_t *empty_ranks; /* schema 1: rank groups without regions */
	size_t nempty;
	uint32_t num_ranks; /* the run's ranks as the format counts them */
	char **names;	    /* region id -> name */
	size_t nnames;
	struct profgen_row *rows; /* in file order */
	size_t nrows;
	struct profgen_meta *meta;
	size_t nmeta;
	uint64_t ncalls;
	int64_t *sel; /* a set of ranks for --ranks (sorted) */
	size_t nsel;
	char *sel_spec; /* sel as a --ranks value ("0-3,8") */
	char *describe; /* one line: seed, layout, sizes, ... */
};

/* Draw the profile of seed (variant 0), or its variant: the same
 * structure with other durations. */
int profgen_new(struct profgen **out, uint64_t seed, unsigned variant);
void profgen_free(struct profgen *g);

/* Write g as an HDF5 profile at path (truncating it). */
int profgen_write_h5(const struct profgen *g, const char *path);
/* Write g's JSON twin at path (truncating it), gzip-compressed when gzip. */
int profgen_write_json(const struct profgen *g, const char *path, int gzip);

/*
 * Append to out the numbers `scopedb show --format json` prints for the
 * regions of g, pooled over the ranks ranks[0..n) (ranks NULL: all), as a
 * JSON array of {"name", "ranks", "calls", "total", "avg", "min", "max",
 * "std", "p50", "p95", "p99", "imbalance", "gpu_total", "gpu_avg"} in
 * seconds (null where docs/format.md section 8 says None), computed from
 * the model's durations: the exact integer sums, numpy's linear
 * percentiles of the sorted pooled durations, the population standard
 * deviation in long double.
 */
int profgen_reference(struct buf *out, const struct profgen *g, const int64_t *ranks, size_t n);

#endif
