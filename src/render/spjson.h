/*
 * spjson.h - a stored run written back as upstream's JSON profile
 * (scope-profiler-profile, version 1; docs/format.md section 11), so that
 * scope-profiler's own diff and check read it and scopedb reading it back
 * gets the same numbers (docs/commands/export.md).
 *
 * The store keeps each (region, rank) row's call durations, sorted, not
 * when each call started: the writer lays a rank's calls end to end from
 * time 0 (a call starts 1 ns after the rank's previous one ended), which keeps
 * every duration, so every number of show, diff and check, but no nesting
 * and no timeline.  Device times are kept as a count and a sum per row:
 * the calls get equal shares of the sum, which keeps gpu_total and
 * gpu_avg.  Rows without per-call data are written as "aggregate"
 * rows.
 *
 * Ownership: the writer appends to the caller's buf and keeps a cursor
 * for each rank it has seen (as many as the run's ranks, whatever their
 * numbers), freed by spjson_end() (or spjson_abort()).
 */
#ifndef SCOPEDB_RENDER_SPJSON_H
#define SCOPEDB_RENDER_SPJSON_H

#include <stddef.h>
#include <stdint.h>

#include "render/jsonw.h"
#include "util/strmap.h"
#include "scopedb/store.h"

struct spjson {
	struct jsonw w;
	int64_t run_id;	     /* for messages */
	struct strmap ranks; /* a rank's number (text) -> its index in cursor */
	int64_t *cursor;     /* per rank: where its next call starts (ns) */
	size_t ncursor;
	int rc;
};

/* Start the document of run (with its metadata m) in out. */
void spjson_begin(struct spjson *s, struct buf *out, const struct store_run *run,
		  const struct store_meta *m);
/* One (region, rank) row t with its sorted call durations d[0..n) (ignored
 * when !t->has_events) and its tags (NULL: none). */
void spjson_row(struct spjson *s, const struct store_timing *t, const char *region,
		const int64_t *d, size_t n, const char *const *tags, size_t ntags);
/* End the document (a newline after it); 0 or ERR_NOMEM. */
int spjson_end(struct spjson *s);
/* Free the writer's memory after a failure elsewhere. */
void spjson_abort(struct spjson *s);

#endif
