/*
 * caliper.h - a run's export rows (scopedb/export.h) as one Caliper
 * JSON-split document, the file Hatchet's GraphFrame.from_caliper() and
 * Thicket.from_caliper() read (docs/export.md): "data" rows of
 * [node, mpi.rank, count, sum#time.duration, inclusive#sum#time.duration,
 * min#time.duration, max#time.duration] (seconds), "columns",
 * "column_metadata", "nodes" (label, column "path", parent), and the run's
 * description and metadata as the other top-level keys.
 *
 * Ownership: appends to the caller's buf; keeps nothing.
 */
#ifndef SCOPEDB_RENDER_CALIPER_H
#define SCOPEDB_RENDER_CALIPER_H

#include "scopedb/export.h"
#include "scopedb/util.h"

/* Append r as a Caliper JSON-split document (ending in a newline) to out;
 * 0 or ERR_NOMEM. */
int caliper_write(struct buf *out, const struct export_run *r);

#endif
