/*
 * ingest_quant.h - each region's exact p50/p95/p99 over all ranks,
 * computed from the frames the reader child sent on a thread of their own
 * while the store's thread writes the run's rows (ingest_write.c), and
 * handed to store_finish_run_from() through struct store_blob_source's
 * quantiles().  Without it the percentiles were computed after the rows,
 * inside the write transaction: on the medium gzip profile 50 ms of the
 * 260 ms the store's process works alone after the read (bench/RESULTS.md).
 *
 * Threads: the worker reads the context's frames and row order and
 * nothing else (no store, no err_set() seen by the caller: a blob that
 * does not decode leaves its region to store_finish_run_from(), which
 * computes it and reports what is wrong as it always did).  The caller
 * must not change the frames or the order until ingest_quant_join().
 *
 * Ownership: struct ingest_quant owns its arrays and its thread
 * (ingest_quant_release() joins it first); it does not own the context.
 */
#ifndef SCOPEDB_INGEST_QUANT_H
#define SCOPEDB_INGEST_QUANT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "scopedb/store.h"

struct ingest_ctx;

struct ingest_quant {
	const struct ingest_ctx *c;
	pthread_t thread;
	int started;
	atomic_int stop; /* the caller gave up: end after the current region */
	double *q;	 /* 3 per file region */
	uint64_t *nvals; /* per file region: its durations */
	uint64_t *nruns; /* per file region: its rows with a blob; 0: not computed */
};

/* Start computing the percentiles of c's rows (c->order made, region by
 * region) on a thread.  No error: without memory or a thread there are
 * none, and store_finish_run_from() computes them all. */
void ingest_quant_start(struct ingest_quant *iq, const struct ingest_ctx *c);

/* Wait for the thread; with stop, it ends after the region it is on (one
 * region's decode and selection: what is done is kept). */
void ingest_quant_join(struct ingest_quant *iq, int stop);

/* struct store_blob_source's quantiles() over a joined iq, whose context's
 * region_ids are filled (every row stored): fn gets each computed region
 * by its store id. */
int ingest_quant_each(const struct ingest_quant *iq, store_quantile_fn fn, void *arg);

/* Testing: regions of more than n values (0: the default, 2^24) are
 * selected by a merge of their blobs instead of decoded. */
void ingest_quant_testing_decode_max(uint64_t n);

/* Testing: how many regions the merge has selected since the last call. */
uint64_t ingest_quant_testing_merged(void);

/* Join the thread if it runs, free the arrays; accepts NULL. */
void ingest_quant_release(struct ingest_quant *iq);

#endif
