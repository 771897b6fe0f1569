/*
 * ingest_ctx.h - what the store's side of one ingest holds (private to
 * src/ingest/): the frames a file's reader child sent, what was learnt
 * from them, and the read's state.  ingest.c fills it (the read: the
 * child, its frames collected and checked); ingest_write.c stores it as a
 * run.  Ownership: a struct ingest_pending owns its context's frames,
 * info copy and decoded info (ingest_pending_free()); the store, path,
 * options, limits and result are the caller's.
 */
#ifndef SCOPEDB_INGEST_CTX_H
#define SCOPEDB_INGEST_CTX_H

#include <stddef.h>
#include <stdint.h>

#include "scopedb/h5prof.h"
#include "scopedb/ingest.h"
#include "scopedb/store.h"
#include "ingest/ingest_nest.h"
#include "ingest/ingest_read.h"
#include "ingest/wire.h"
#include "util/child.h"
#include "scopedb/util.h"

struct ingest_quant; /* ingest_quant.h */

/* A stored row's durations blob, in frames (ingest_ctx.blobs). */
struct ingest_blobrec {
	const void *data;
	uint32_t len;	 /* (a frame is shorter than 4 GiB) */
	uint32_t region; /* the file's region */
	uint32_t rank;
};

/* The store side: what it learnt from the child. */
struct ingest_ctx {
	struct store *st;
	const char *path;
	const struct h5prof_info *info; /* decoded from the child's WIRE_INFO */
	const struct ingest_opts *opts;
	struct ingest_result *out;
	struct buf frames;   /* everything the child sent */
	struct buf infobuf;  /* a copy of its WIRE_INFO frame */
	struct wire_info wi; /* decoded from infobuf */
	int have_info, have_end, have_hash, failed;
	int fail_code;
	char fail_msg[1024];
	uint64_t fail_inherited; /* out of memory under scopedb's ulimit -v (bytes) */
	char hex[65];
	int64_t run_id;
	int64_t duplicate;   /* the run that already holds the content */
	int64_t *region_ids; /* file region id -> store region id, 0 = not yet */
	size_t *order;	     /* the WIRE_ROW frames' places, as stored (ingest_row_order()) */
	size_t norder;
	/* each WIRE_ROW frame's place in frames and region, noted as it came
	 * (ingest_frame()): the order is made without a pass over frames */
	size_t *row_pos;
	uint32_t *row_region;
	size_t nrows, rows_cap, regions_cap;
	/* each WIRE_NEST, _NODE and _PATH frame's place in frames, noted as it
	 * came, and a _PATH's node (NONE for the others): the paths are stored
	 * from them alone, each path's ranks together (ingest_nest_order()) */
	size_t *nest_pos;
	uint32_t *nest_node;
	size_t nnest, nest_cap, node_cap;
	/* each stored row's blob, noted as the rows are written (their order):
	 * the finish's scan of the blobs reads no frame again */
	struct ingest_blobrec *blobs; /* norder of them at most */
	size_t nblobs;
	unsigned char *seen; /* region has at least one row */
	uint64_t events_done;
	uint64_t calls;
	int64_t regions;
	struct ingest_nest nest; /* the call trees' frames, checked */
	/* the regions' percentiles, computed while the rows are written
	 * (ingest_store()'s own, NULL outside it) */
	const struct ingest_quant *quant;
	/* the read: the reader child, how far its frames are taken */
	const struct ingest_limits *lim;
	struct child ch;
	struct ingest_readers *pool; /* where a served reader goes back, or NULL */
	unsigned jobs;		     /* files ch has been given (a served reader) */
	int running;		     /* ch is to be ended (ingest_collect_end()) */
	int stop;		     /* the content is stored already: the child can stop */
	int drain;		     /* ...but a served reader reads on to its file's end */
	int drained;		     /* and it got there: 1 (WIRE_END), -1 (WIRE_ERROR) */
	size_t pos;
};

/* A file the child has read, its frames in memory, not yet stored. */
struct ingest_pending {
	struct ingest_ctx c;
};

/* An ERR_FORMAT of the store's text rule about what came from file path,
 * said of the file (ingest_write.c). */
int ingest_of_file(const char *path);

#endif
