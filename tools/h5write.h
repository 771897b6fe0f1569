/*
 * h5write.h - writing scope-profiler merged profiles with libhdf5.
 *
 * Used by the mkprofile tool (bundled examples), the benchmark generator and
 * the tests, which need files of every layout without Python.  A profile is
 * described in memory as a list of (rank, region) rows with per-call start
 * and end times; h5write_file() lays it out as schema 1 (hierarchical),
 * schema 2 (start_times/end_times), schema 3 (start_deltas/durations) or the
 * aggregate layout, with optional GPU column, nesting columns (call and
 * parent ids, thread and task lanes: docs/format.md section 10; each
 * call's start, end, ids and lanes are the caller's, so any tree,
 * overlap or lane can be written), chunking/gzip+shuffle, fixed-length
 * strings and summary_statistics.
 *
 * Rows are written in the order given; for columnar layouts the events of
 * row i follow those of row i-1 (offsets are assigned by the writer).  Tests
 * that need damaged files write a valid one and then change single datasets
 * or attributes with the h5write_replace_* / h5write_delete helpers.
 *
 * Ownership: the writer only reads the caller's structures.
 */
#ifndef SCOPEDB_H5WRITE_H
#define SCOPEDB_H5WRITE_H

#include <stddef.h>
#include <stdint.h>

struct h5write_row {
	uint32_t rank;
	const char *region;	 /* region name (UTF-8) */
	size_t calls;		 /* 0 is legal (columnar only writes it) */
	const int64_t *starts;	 /* calls values, absolute ns */
	const int64_t *ends;	 /* calls values */
	const int64_t *gpu;	 /* calls values (< 0 = none) or NULL */
	const char *source_file; /* NULL or "" = unknown */
	int64_t source_line;	 /* -1 = unknown */
	const char *const *tags; /* ntags strings */
	size_t ntags;
	/* optional, zero (NULL) when not set: */
	const char *source_text; /* NULL or "" = unknown */
	int has_exclusive;	 /* exclusive_totals / aggregate_exclusives of the row */
	int64_t exclusive;	 /* (-1, "not computed", when !has_exclusive) */
	/* calls values each, or NULL (written as -1); see opts.ids, .lanes */
	const int64_t *call_ids, *parent_ids;
	const int64_t *thread_ids, *task_ids;
};

enum h5write_meta_kind {
	H5WRITE_META_STR,
	H5WRITE_META_INT,
	H5WRITE_META_STRARRAY,
	H5WRITE_META_UINT,	/* i as an unsigned 64-bit integer */
	H5WRITE_META_INT32,	/* i as a signed 32-bit integer */
	H5WRITE_META_FLOAT,	/* f, a 64-bit float */
	H5WRITE_META_INTARRAY,	/* ints[0..n), 64-bit */
	H5WRITE_META_FLOATARRAY /* floats[0..n), 64-bit */
};

struct h5write_meta {
	const char *key;
	enum h5write_meta_kind kind;
	const char *str;	 /* H5WRITE_META_STR */
	int64_t i;		 /* H5WRITE_META_INT, _UINT, _INT32 */
	const char *const *strs; /* H5WRITE_META_STRARRAY */
	size_t nstrs;
	double f;	      /* H5WRITE_META_FLOAT */
	const int64_t *ints;  /* H5WRITE_META_INTARRAY */
	const double *floats; /* H5WRITE_META_FLOATARRAY */
	size_t n;	      /* values of ints or floats */
};

/* Filters of chunked datasets (h5write_opts.filters). */
#define H5WRITE_SHUFFLE 1u
#define H5WRITE_DEFLATE 2u
#define H5WRITE_FLETCHER32 4u

struct h5write_opts {
	int schema;	   /* 1, 2 or 3 (the attribute is omitted for 1) */
	int aggregate;	   /* schema >= 2: storage_layout = "aggregate" */
	int chunked;	   /* chunked datasets */
	int gzip;	   /* chunked + shuffle + deflate */
	int fixed_strings; /* fixed-length UTF-8 strings (MPI writer) */
	int gpu;	   /* write gpu_durations (-1 where a row has none) */
	int ids;	   /* write call_ids and parent_ids (-1 where none; schema 1:
			      in each region group) */
	int lanes;	   /* write thread_ids and task_ids (-1 where none) */
	int summary;	   /* columnar: write summary_statistics */
	int64_t mpi_size;  /* > 0: write /metadata mpi_size */
	size_t chunk;	   /* chunk length of chunked datasets (0: 65536) */
	/* optional, 0 when not set: */
	unsigned filters; /* H5WRITE_*: chunked with these filters (gzip:
			     shuffle + deflate) */
	int gzip_level;	  /* deflate level 1-9 (0: 4) */
	size_t userblock; /* bytes of user block before the HDF5 data (0, or
			     a power of 2 of at least 512) */
};

struct h5write_profile {
	const struct h5write_row *rows;
	size_t nrows;
	const struct h5write_meta *meta;
	size_t nmeta;
};

/* The summary statistics of a row (durations = end - start): a record of
 * /rank_region_index/summary_statistics, and the "aggregate" of the JSON
 * twin (jsonwrite.c). */
struct h5write_summary {
	int64_t total, minimum, maximum, first, last, start_minimum, end_maximum;
	uint64_t gpu_count;
	int64_t gpu_total;
	double mean, m2;
};
/* The summary statistics of row r into s. */
void h5write_summarize(const struct h5write_row *r, struct h5write_summary *s);

/* Write prof to path (truncating it). */
int h5write_file(const char *path, const struct h5write_profile *prof,
		 const struct h5write_opts *opts);

/*
 * Streaming writer for very large schema-3 profiles (benchmarks): rows are
 * appended one at a time and never held all at once.  Region names must be
 * known up front.
 */
struct h5write_stream;
int h5write_stream_open(struct h5write_stream **out, const char *path,
			const char *const *region_names, size_t nregions,
			const struct h5write_opts *opts);
int h5write_stream_row(struct h5write_stream *s, const struct h5write_row *row);
int h5write_stream_close(struct h5write_stream *s); /* writes index, frees */
/* Add /metadata attributes to a stream (any time before close; mpi_size
 * comes from opts).  The streaming writer accepts schema 2 or 3, not the
 * aggregate layout.  After an error every later call returns that error;
 * h5write_stream_close() always frees s. */
int h5write_stream_meta(struct h5write_stream *s, const struct h5write_meta *meta, size_t nmeta);

/* Test helpers for damaged files.  dataset is an absolute path such as
 * "/rank_region_index/event_offsets".  The replacement has the given type
 * and n elements (contiguous; for H5WRITE_STR data is a const char *const *
 * of variable-length UTF-8 strings); missing parent groups are created. */
enum h5write_type { H5WRITE_I64, H5WRITE_U64, H5WRITE_U32, H5WRITE_F64, H5WRITE_STR };
int h5write_replace_dataset(const char *path, const char *dataset, enum h5write_type type,
			    const void *data, size_t n);
/* Delete a dataset, group or root attribute ("@name" deletes attribute name
 * of the root group). */
int h5write_delete(const char *path, const char *object);
/* Set a root attribute to an int64, a string ("str" non-NULL) or a double. */
int h5write_set_root_attr_i64(const char *path, const char *name, int64_t v);
int h5write_set_root_attr_str(const char *path, const char *name, const char *v);
int h5write_set_root_attr_f64(const char *path, const char *name, double v);

#endif
