/*
 * jsonwrite.h - writing the JSON twin of a profile: the document
 * scope-profiler's exporter writes for the same run (format
 * "scope-profiler-profile", version 1; docs/format.md section 11), plain or
 * gzip-compressed, from the same description h5write_file() lays out as
 * HDF5.  Used by mkprofile (an output named *.json or *.json.gz), the
 * benchmark generator and the tests, which check that scopedb reads the
 * same numbers from both twins.
 *
 * The twin of each HDF5 layout holds what scopedb reads from that layout:
 *   - schema 1: the rows with calls (schema 1 has no zero-call regions),
 *     num_ranks = the largest rank of the rows + 1 (the number of rank
 *     groups, or more when they skip a rank, as scopedb counts them);
 *   - schema 2/3 columnar: every row, num_ranks = max(mpi_size, largest
 *     rank + 1), start_times_ns and end_times_ns, gpu_durations_ns when
 *     opts->gpu (-1 where a row has none), source file, line and tags;
 *   - aggregate: "aggregate" objects (count, total, minimum, maximum,
 *     exclusive -1), no source or tags (the HDF5 writer stores none);
 *   - summary only (jsonwrite_opts.summary_only): what upstream exports
 *     after a summary-only read, "aggregate" objects with every field of
 *     summary_statistics, "event_data_available": false.
 * Metadata of every h5write kind, as upstream's exporter writes the
 * attribute (a non-finite float as null).  Keys and separators are those
 * of Python's json.dumps (", ", ": ").
 *
 * Ownership: the writer only reads the caller's structures.
 */
#ifndef SCOPEDB_JSONWRITE_H
#define SCOPEDB_JSONWRITE_H

#include <stddef.h>
#include <stdint.h>

#include "h5write.h"

struct jsonwrite_opts {
	int gzip;	  /* gzip-compressed (deterministic header: no name, mtime 0) */
	int summary_only; /* rows as upstream's summary-only read exports them */
};

/* The twin of h5write_file(path, prof, opts), written to path. */
int jsonwrite_file(const char *path, const struct h5write_profile *prof,
		   const struct h5write_opts *opts, const struct jsonwrite_opts *jo);

/* Streaming, for large benchmark profiles: rows one at a time. */
struct jsonwrite_stream;
int jsonwrite_stream_open(struct jsonwrite_stream **out, const char *path,
			  const struct h5write_opts *opts, const struct jsonwrite_opts *jo,
			  uint64_t num_ranks, const struct h5write_meta *meta, size_t nmeta);
int jsonwrite_stream_row(struct jsonwrite_stream *s, const struct h5write_row *row);
/* Finish the document and free s (always). */
int jsonwrite_stream_close(struct jsonwrite_stream *s);

#endif
