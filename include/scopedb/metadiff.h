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
 * Rendering: one aligned block of text lines ("  key  a -> b"), markdown
 * list items, or a JSON array of {"key", "a", "b"} objects (null for a key
 * one side lacks).  Each appends to a struct buf and returns 0 or
 * ERR_NOMEM.
 *
 * Ownership: metadiff_compute() returns a malloc'ed array of changes that
 * own copies of their strings; metadiff_free() releases it (accepts NULL).
 */
#ifndef SCOPEDB_METADIFF_H
#define SCOPEDB_METADIFF_H

#include <stddef.h>

#include "scopedb/util.h"

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

/*
 * Text lines "INDENT key  a -> b" with the keys padded to one width,
 * "(unset)" for a missing side, control characters as '?'.  Values longer
 * than maxw code points (0 = no limit) are cut and end in "...".
 */
int metadiff_text(struct buf *out, const struct metadiff_change *c, size_t n, const char *indent,
		  size_t maxw);

/* Markdown list items "- key: a → b" (escaped; cut like metadiff_text). */
int metadiff_markdown(struct buf *out, const struct metadiff_change *c, size_t n, size_t maxw);

/* JSON array [{"key": K, "a": A or null, "b": B or null}, ...]. */
int metadiff_json(struct buf *out, const struct metadiff_change *c, size_t n);

#endif
