/*
 * finish.h - completing a run once all its timings are stored (private to
 * the core: ingest, and the store's schema upgrade).
 *
 * finish_run() pools every rank of each region into the run's stored
 * totals and adds the exact p50/p95/p99 of its call durations, with one
 * pass over the run's duration blobs through the backend-neutral store API
 * (store.h, "finishing a run"), so every store backend shares it.
 *
 * Ownership: nothing is kept between calls; the store is only used.
 */
#ifndef SCOPEDB_INGEST_FINISH_H
#define SCOPEDB_INGEST_FINISH_H

#include <stddef.h>
#include <stdint.h>

#include "scopedb/store.h"

/*
 * Complete run_id (inside the ingest transaction): its totals, region and
 * call counts, and percentiles, replacing any there were.  Readers without
 * --ranks use those totals instead of the timings rows.  ERR_NOTFOUND when
 * there is no such run; ERR_STORE when its blobs do not match its timings.
 */
int finish_run(struct store *st, int64_t run_id);

/* Testing hook: the scratch memory finish_run() copies a run's duration
 * blobs into (0 = the default, 128 MB); bigger runs are done in several
 * passes, and a region that does not fit by itself is fetched and decoded
 * whole. */
void finish_set_spool_bytes(size_t n);

#endif
