/*
 * ingest_read.h - ingest_read() in steps, for a caller that reads several
 * files' reader processes at once from one thread (ingest_queue.c): start
 * the child, take what it sends whenever its descriptor is readable, and
 * end it.  ingest_read() is these three in a loop.
 *
 * A caller that reads many files can keep their readers (struct
 * ingest_readers): a reader that delivered a whole small file is given the
 * next file instead of a new process being started (issue 26; ingest.c's
 * ingest_collect_start()).  It is the same reader code under the same
 * limits, with libhdf5 closed and started again between files; any file
 * that fails (an error, a crash, a timeout) ends its reader, as does a
 * large file found stored already, so the next file gets a new one.
 *
 * Ownership: the pending file is the caller's from ingest_read_begin() on,
 * freed with ingest_pending_free() (which kills a child still running),
 * also after an error.  The readers are the caller's, freed (their
 * processes ended) with ingest_readers_free() after the pending files.
 */
#ifndef SCOPEDB_INGEST_READ_H
#define SCOPEDB_INGEST_READ_H

#include "scopedb/ingest.h"

struct ingest_readers;

/* An empty set of readers kept between files: 0, or ERR_NOMEM. */
int ingest_readers_new(struct ingest_readers **out);

/* End the idle readers and free the set (NULL is fine). */
void ingest_readers_free(struct ingest_readers *r);

/* Start the reading of path (as ingest_read(): st may be NULL): with
 * readers, by an idle reader of the set or a new one that returns to it
 * after the file; with NULL, by a reader process for this file alone.
 * 0 and *out, or the error (*out NULL). */
int ingest_read_begin(struct ingest_pending **out, struct store *st, const char *path,
		      const struct ingest_opts *opts, struct ingest_readers *readers);

/* The descriptor to poll for the child's output, -1 once it has ended. */
int ingest_read_fd(const struct ingest_pending *p);

/* Milliseconds the caller may wait for the child before its deadline
 * (0: passed, -1: none; util/child.h's child_wait_ms()). */
int ingest_read_wait_ms(const struct ingest_pending *p);

/* Move the child's deadline ms later (util/child.h's child_extend()):
 * for the time the caller spent away, storing other files. */
void ingest_read_extend(struct ingest_pending *p, int64_t ms);

/* Take one read of the child's output (call it when its descriptor is
 * readable, or its deadline passed: it does not wait then).  *done once
 * the child has ended, with 0 when it delivered the whole file (p is then
 * ready for ingest_write()) or the file's error, as ingest_read() gives. */
int ingest_read_more(struct ingest_pending *p, int *done);

#endif
