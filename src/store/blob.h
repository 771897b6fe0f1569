/*
 * blob.h - the compact encoding of one (run, region, rank) row's call
 * durations as stored in the timings_durations table.
 *
 * Durations are stored sorted ascending, so every order statistic (p50, p95,
 * p99, any later test) can be computed exactly from any subset of rows,
 * while call order is not needed by any metric (first/last are kept as
 * columns).  Encoding, version 1:
 *
 *     byte 0      0x01 (format version)
 *     varint      n, number of values
 *     varint      v[0]
 *     varint      v[i] - v[i-1] for i = 1..n-1   (>= 0 because sorted)
 *
 * varint is unsigned LEB128 (7 bits per byte, low group first, at most 10
 * bytes).  Values must be >= 0.  The decoder treats its input as untrusted:
 * truncation, overlong varints, a count that does not match the bytes,
 * sums that overflow int64 and trailing bytes are all errors (ERR_FORMAT).
 * Private to the store layer (and its tests and fuzz target): ingest
 * encodes, decodes and counts through store.h's store_encode_durations(),
 * store_decode_durations() and store_count_durations().
 *
 * Ownership: the functions append to the caller's buffers and vectors and
 * keep nothing.
 */
#ifndef SCOPEDB_BLOB_H
#define SCOPEDB_BLOB_H

#include <stddef.h>
#include <stdint.h>

#include "scopedb/util.h"

/* Append the encoding of sorted[0..n) to out (out is not cleared first).
 * Returns ERR_USAGE if the values are negative or not sorted. */
int blob_encode(struct buf *out, const int64_t *sorted, size_t n);

/* The same encoding written in parts, for values that are never all in
 * memory: blob_encode_head() with the count of all of them, then
 * blob_encode_more() over each ascending part in turn, *last 0 before
 * the first and carried from part to part.  On error out is as before
 * the call. */
int blob_encode_head(struct buf *out, uint64_t n);
int blob_encode_more(struct buf *out, int64_t *last, const int64_t *sorted, size_t n);

/* Number of values in an encoded blob, validating only the header. */
int blob_count(uint64_t *out, const void *data, size_t len);

/* Decode and append all values to out (which keeps its previous content). */
int blob_decode_append(struct i64vec *out, const void *data, size_t len);

/* Decode into out[0..cap) (*n values); ERR_FORMAT when the blob holds more
 * than cap values.  For callers that know where each row's values go. */
int blob_decode_to(int64_t *out, size_t cap, size_t *n, const void *data, size_t len);

/* The values at ranks[0..nranks) (0-based, ascending, each below the
 * blobs' values in all) of the union of the nblobs blobs' values, read a
 * value at a time in a merge: memory for the blobs' cursors, not their
 * values.  Every blob is checked whole as blob_decode_append() checks it
 * (ERR_FORMAT); a rank past the values is ERR_USAGE. */
int blob_select(int64_t *out, const uint64_t *ranks, size_t nranks, const void *const *data,
		const size_t *lens, size_t nblobs);

/* What blob_stats() finds in a blob: the count, smallest and largest value
 * and their sum (INT64_MAX when the sum would exceed it). */
struct blob_stats {
	uint64_t count;
	int64_t min, max, sum;
};

/* Check a whole blob as the decoders do, without storing its values
 * (memory O(1), for checking rows that are only passed on). */
int blob_stats(struct blob_stats *out, const void *data, size_t len);

#endif
