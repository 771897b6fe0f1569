/*
 * profile.h - reading one profile file, whatever its format: the HDF5
 * files scope-profiler writes (src/h5/, h5prof.h) and its JSON profiles,
 * plain or gzip-compressed (src/jsonprof/; docs/format.md section 11).
 *
 * The format is chosen by the file's content, never by its name alone:
 * a file whose first bytes are a JSON object ('{' after whitespace) or a
 * gzip stream is read as JSON; anything else goes to the HDF5 reader, which
 * recognises HDF5 by its signature ("not an HDF5 file" otherwise).  The name
 * only words the error of a file that is neither: "x.json" that does not
 * start like JSON is "not a JSON profile".  Both readers deliver the same
 * row stream (struct h5prof_row, struct h5prof_info of h5prof.h), so that
 * ingest, and everything after it, treats both alike.
 *
 * The HDF5 reader knows the whole index when it opens the file: its
 * profile_info() is complete after profile_open() (profile_info_final()).
 * The JSON reader reads the document once, streaming: its info is complete
 * only once profile_read() has returned 0.
 *
 * Ownership: struct profile owns its reader and everything reachable from
 * profile_info(); the descriptor given to profile_open() is borrowed (kept
 * open by the caller until profile_free(), which accepts NULL).  Row
 * arrays and strings are valid during the callback.
 */
#ifndef SCOPEDB_PROFILE_H
#define SCOPEDB_PROFILE_H

#include <sys/stat.h>

#include "scopedb/h5prof.h"

struct profile;

/*
 * Open path for reading and fstat it (h5prof_open_file(): a non-empty,
 * readable regular file, else an error naming path and the cause).  On
 * success *fd is open (the caller closes it) and *st describes it.
 */
int profile_open_file(const char *path, int *fd, struct stat *st);

/*
 * Choose the format of path (open as fd, fstat()ed as *st) from its first
 * bytes and open its reader; the file must stay the one described by *st
 * (same inode, size, mtime and ctime) while it is read.
 */
int profile_open(struct profile **out, const char *path, int fd, const struct stat *st);

/* "hdf5" or "json" (static string). */
const char *profile_format(const struct profile *p);

/* 1 when profile_info() is complete already before profile_read(). */
int profile_info_final(const struct profile *p);

const struct h5prof_info *profile_info(const struct profile *p);

/* Stream every row to fn (see h5prof_row_fn); on 0 the info is complete
 * and the file was unchanged to its end. */
int profile_read(struct profile *p, h5prof_row_fn fn, void *ctx);

/* Before profile_read(): rows of n calls or more may be handed out in
 * pieces (struct h5prof_row's piece_len; 0: never), and rows of n / 4 or
 * more of a rank of n calls or more (struct h5prof_row's rank_calls).
 * Both readers do (HDF5 in every layout with calls, JSON by spilling a
 * long row's columns to a temporary file), so that such a row is never
 * held whole. */
void profile_set_piece_min(struct profile *p, uint64_t n);

void profile_free(struct profile *p);

/* 1 when path's name ends in .json or .json.gz (any case): how messages
 * about a file that could not be read word its format. */
int profile_name_is_json(const char *path);

#endif
