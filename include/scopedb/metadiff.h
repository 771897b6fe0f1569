/*
 * metadiff.h - which /metadata attributes differ between two runs
 * (mpi_size, omp_num_threads, modules, hostname, SLURM_* ...), for
 * "scopedb meta A B" and the header of diff and check, so that a reader
 * sees at once when two runs are not like for like.
 *
 * Keys that differ between any two runs by nature (timestamp,
 * start_time_ns, finalize_time_ns, label, and the SLURM job id, task pid
 * and job start/end times) are left out unless asked for: they would hide
 * the differences that matter.
 *
 * Rendering (aligned text lines "  key  a -> b", markdown items, a JSON
 * array of {"key", "a", "b"}) is the output layer's: report_meta_text(),
 * report_meta_md() and report_meta_json() in src/render/report.h.
 *
 * Ownership: metadiff_compute() returns a malloc'ed array of changes that
 * own copies of their strings; metadiff_free() releases it (accepts NULL).
 */
#ifndef SCOPEDB_METADIFF_H
#define SCOPEDB_METADIFF_H

#include <stddef.h>

struct store_meta;

struct metadiff_change {
	char *key;
	char *a; /* NULL when run a lacks the key */
	char *b; /* NULL when run b lacks the key */
};

/* 1 for the keys left out by default (see above). */
int metadiff_is_volatile(const char *key);

/*
 * The keys (sorted, byte order) whose values differ between a and b
 * (both sorted by key, as store_get_meta() returns them), including keys
 * only one side has; volatile keys only when all != 0.  *out is NULL when
 * *n is 0.
 */
int metadiff_compute(struct metadiff_change **out, size_t *n, const struct store_meta *a,
		     const struct store_meta *b, int all);

void metadiff_free(struct metadiff_change *c, size_t n);

#endif
