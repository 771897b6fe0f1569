/*
 * jsonprof.h - reading scope-profiler's JSON profiles (format
 * "scope-profiler-profile", version 1; docs/format.md section 11), plain or
 * gzip-compressed, as the same row stream the HDF5 reader delivers
 * (struct h5prof_row), so that ingest and everything after it treat both
 * formats alike.  One of the formats of src/profile/ (profile.h), chosen
 * there by the file's first bytes.
 *
 * The document is read in one streaming pass (jsontok.h): jsonprof_open()
 * only checks that the file starts like JSON (or gzip); jsonprof_read()
 * reads it, handing each region row to the callback as soon as its object
 * is closed, and completes struct h5prof_info (region names in order of
 * first appearance, rows, calls, metadata, ranks) by the time it returns
 * 0.  Memory is that of the largest row, not of the document (of a
 * quarter of the pieces' least with jsonprof_set_piece_min()).  Everything
 * of section 11 is validated: a document that is not a profile, a version
 * above 1, wrong types, columns of different lengths, non-integer or
 * out-of-range times, negative durations, duplicate keys or (rank,
 * region) rows, and the limits of jsontok.h fail with ERR_FORMAT and one
 * line "cannot read 'PATH': WHAT".
 *
 * Nesting (issue 22): call_ids, parent_ids, thread_ids, task_ids and
 * await_ns of the row being delivered are validated (integers, one per
 * call) and held in struct jsonprof_nesting, jsonprof_nesting() during the
 * callback; the HDF5 reader does not read them yet.
 *
 * Ownership: the handle owns everything reachable from jsonprof_info();
 * the arrays and strings of a delivered row are valid during the callback
 * only.  jsonprof_free() accepts NULL.  The descriptor is borrowed.
 */
#ifndef SCOPEDB_JSONPROF_H
#define SCOPEDB_JSONPROF_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "scopedb/h5prof.h"

struct jsonprof;

/*
 * 1 when the first n bytes of a file (head) start a JSON document (an
 * optional run of whitespace, then '{') or a gzip stream (1f 8b).
 */
int jsonprof_claims(const unsigned char *head, size_t n);

/* Open path, already open as fd and fstat()ed as *st (the caller keeps fd
 * open until jsonprof_free()); nothing of the document is read yet beyond
 * its first bytes. */
int jsonprof_open(struct jsonprof **out, const char *path, int fd, const struct stat *st);

/* A document held in memory (the fuzz target and tests); data must outlive
 * the handle.  label names it in messages. */
int jsonprof_open_mem(struct jsonprof **out, const char *label, const void *data, size_t n);

/* Complete once jsonprof_read() has returned 0. */
const struct h5prof_info *jsonprof_info(const struct jsonprof *j);

/* Read the document, calling fn once per region row in document order (a
 * non-zero return stops the read and is returned). */
int jsonprof_read(struct jsonprof *j, h5prof_row_fn fn, void *ctx);

/* The nesting columns of the row being delivered (NULL: absent), calls
 * values each; valid during the callback. */
struct jsonprof_nesting {
	const int64_t *call_ids;
	const int64_t *parent_ids;
	const int64_t *thread_ids;
	const int64_t *task_ids;
	const int64_t *await_ns;
};
const struct jsonprof_nesting *jsonprof_nesting(const struct jsonprof *j);

/* Before jsonprof_read(): hand out rows of n calls or more in pieces, and
 * rows of n / 4 or more of a rank of n calls or more (struct h5prof_row's
 * piece_len and rank_calls; 0: never), as the HDF5 reader does.  Such a
 * row is never held whole: each of its per-call lists goes to a temporary
 * file in $TMPDIR once it passes n / 4 values.  The first pass says which
 * rows go in pieces; without it (a document of more than 2^22 rows) any
 * list that long is spilled, and a row that does not go in pieces after
 * all is read back whole. */
void jsonprof_set_piece_min(struct jsonprof *j, uint64_t n);

/* Testing hook: calls a piece holds (0: the default, 65536). */
void jsonprof_testing_window(size_t n);

void jsonprof_free(struct jsonprof *j);

#endif
