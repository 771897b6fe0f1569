/*
 * nesting.h - the per-call nesting columns a profile reader delivers with
 * each (rank, region) row, whatever the profile's format (docs/format.md
 * section 10).  The HDF5 reader (h5prof.h) fills it from call_ids,
 * parent_ids, thread_ids and task_ids; a reader of another format fills
 * the same structure from its own columns, and the call-tree builder
 * (src/ingest/calltree.h) reads nothing else.
 *
 * Each pointer is NULL when the profile has no such column for the row,
 * else it points at one value per call, in the row's call order (the
 * order of its starts and durations):
 *
 *   call_ids    the call's id, unique within its rank (not within the
 *               file); < 0 = the call has no id
 *   parent_ids  the id of the call it was made from, in the same rank;
 *               < 0 = a root (no parent).  Given only with call_ids.
 *   thread_ids, task_ids
 *               the lane of the call: calls nest only within one (rank,
 *               thread, task).  < 0, or no column, = the main lane.
 *
 * Ownership: the arrays are borrowed from the reader, like the row's
 * starts and durations, and valid only during the row callback.
 */
#ifndef SCOPEDB_NESTING_H
#define SCOPEDB_NESTING_H

#include <stdint.h>

struct nest_cols {
	const int64_t *call_ids;
	const int64_t *parent_ids;
	const int64_t *thread_ids;
	const int64_t *task_ids;
};

#endif
