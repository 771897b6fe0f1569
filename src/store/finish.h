/*
 * finish.h - the finish pipeline of the store front end (private to the
 * store layer and its tests).
 *
 * store_finish_run() (declared in store.h, defined in finish.c) writes the
 * totals of each region over all ranks (held by totals.c) and of each path
 * (held by paths.c) with the exact p50/p95/p99 of their call durations,
 * computed in one pass over the run's duration blobs, so every backend
 * shares it.  Ingest calls it at the end of a file (as
 * store_finish_run_from(), with the blobs it holds), push and pull for
 * each run they copy; a backend's schema upgrade calls it for the runs
 * stored before (through st->front), without any call out of the store
 * layer.
 *
 * Ownership: nothing is kept between calls; the store is only used.
 */
#ifndef SCOPEDB_STORE_FINISH_H
#define SCOPEDB_STORE_FINISH_H

#include <stddef.h>

/* Testing hook: the scratch memory store_finish_run() copies a run's
 * duration blobs into (0 = the default, 128 MB); bigger runs are done in
 * several passes, and a region that does not fit by itself is fetched and
 * decoded whole.  Not thread-safe: set it before any store is used. */
void finish_set_spool_bytes(size_t n);

/* Testing hook: the durations a batch needs before its percentiles are
 * computed on two threads (0 = the default, 2^20).  Not thread-safe, as
 * above. */
void finish_set_thread_min(size_t n);

#endif
