/*
 * ingest_nest.h - the call trees of a file as the store's process receives
 * them from the reader child (issue 22; docs/format.md section 10; the
 * frames are described in wire.h): every nesting frame checked against the
 * ones before it, a summary, the one warning for the ranks left without a
 * tree or without paths, and a walk over the frames for whatever stores or
 * inspects them.
 *
 * Checks beyond wire.h's per-frame ones: node ids come in sequence (0, 1,
 * 2...), a node's parent is an earlier node one name shorter with another
 * region, a path row names a node already sent, and one that uses its
 * row's durations has a row with as many calls.  Any violation is the
 * reader's malformed data (ERR_GENERIC), never a read outside the frames.
 *
 * Ownership: struct ingest_nest owns its arrays (ingest_nest_release());
 * the walk's callbacks see values valid during the call only.
 */
#ifndef SCOPEDB_INGEST_NEST_H
#define SCOPEDB_INGEST_NEST_H

#include <stddef.h>
#include <stdint.h>

#include "ingest/calltree.h"
#include "ingest/wire.h"

/* A map from (rank, region) to a 64-bit value (open addressing), or, for
 * the keys of a grid given to ingest_rowmap_dense(), an array. */
struct ingest_rowmap {
	uint64_t *keys; /* (rank << 32 | region) + 1, 0 = empty */
	uint64_t *vals;
	size_t cap, n;	   /* n: the keys in the hash */
	uint64_t *dense;   /* [rank * nregions + region], when present's bit is set
			      (ingest_rowmap_grid()) */
	uint64_t *present; /* a bit per cell of dense */
	uint32_t nranks, nregions;
};

#define INGEST_ROWMAP_INIT                                                                         \
	{                                                                                          \
		NULL, NULL, 0, 0, NULL, NULL, 0, 0                                                 \
	}

void ingest_rowmap_release(struct ingest_rowmap *m);
/* The file's grid of ranks x regions, for a map that may get rows of most
 * of its cells (rows: how many it expects): once the hash holds a
 * sixteenth as many keys as the grid has cells, the keys inside it move
 * to an array of 8 bytes and a bit a cell (a wide run's 1M rows: 8 MB
 * instead of the hash's 32), the rest stay in the hash.  A sparse grid, or
 * one of more than 2^24 cells, is ignored.  Call on an empty map. */
void ingest_rowmap_grid(struct ingest_rowmap *m, uint32_t nranks, size_t nregions, size_t rows);
/* Set (rank, region) to v: 0 or ERR_NOMEM. */
int ingest_rowmap_put(struct ingest_rowmap *m, uint32_t rank, uint32_t region, uint64_t v);
/* The value of (rank, region): 1 and *v, or 0 when there is none. */
int ingest_rowmap_get(const struct ingest_rowmap *m, uint32_t rank, uint32_t region, uint64_t *v);
/* fn(ctx, rank, region, value) of every key of m, in no order, until fn
 * returns non-zero (returned). */
int ingest_rowmap_each(const struct ingest_rowmap *m,
		       int (*fn)(void *ctx, uint32_t rank, uint32_t region, uint64_t v), void *ctx);

struct ingest_nest {
	struct ingest_rowmap rows; /* (rank, region) -> calls of its WIRE_ROW */
	uint32_t nodes;		   /* WIRE_NODE frames so far: the next node's id */
	uint32_t *node_region, *node_depth;
	size_t ncap;
	struct ingest_rowmap seen;	/* ranks of WIRE_NEST frames (region 0) */
	uint64_t nests;			/* WIRE_NEST frames */
	uint64_t ranks;			/* ranks with calls: event rows, or rows of
					 * totals only beside them (ingest_nest_end()) */
	uint64_t trees;			/* of which have a tree */
	uint64_t paths;			/* WIRE_PATH frames */
	uint32_t last_node;		/* the node of the last WIRE_PATH checked */
	uint64_t selfs;			/* WIRE_SELF frames */
	struct ingest_rowmap self_ns;	/* (rank, region) -> its WIRE_SELF's self time */
	int self_unchecked;		/* a WIRE_SELF came before the file's regions */
	uint64_t problems;		/* ranks without a tree, or with one but no paths */
	struct calltree_rankinfo first; /* the first of those */
};

void ingest_nest_init(struct ingest_nest *n);
void ingest_nest_release(struct ingest_nest *n);

/* Note a WIRE_ROW's (rank, region) and calls, for the paths that use its
 * durations: 0 or ERR_GENERIC / ERR_NOMEM. */
int ingest_nest_row(struct ingest_nest *n, const struct wire_frame *f, size_t num_regions);

/* Check one nesting frame (WIRE_NEST, _NODE, _PATH, _SELF) and count it
 * (a WIRE_SELF's self time kept in n->self_ns): 0 or ERR_GENERIC /
 * ERR_NOMEM.  A path with its row's durations needs that row, with as
 * many calls as its outermost calls. */
int ingest_nest_frame(struct ingest_nest *n, const struct wire_frame *f, size_t num_regions);

/*
 * After the file's last frame: a rank whose rows with calls are all
 * totals (a JSON profile's "aggregate" rows beside other ranks' events)
 * has no tree, and no WIRE_NEST says so; count it as a rank without one
 * (--by path leaves its calls out).  Not in a file without events at all
 * (the aggregate layout: no rank has a tree to miss).  0 or ERR_NOMEM.
 */
int ingest_nest_end(struct ingest_nest *n);

/* A nesting frame before the file's WIRE_INFO: ERR_GENERIC. */
int ingest_nest_bad(void);

/*
 * The warning for n's problem ranks into buf (size len), "" when there is
 * none: "'PATH': rank 3: a call of 'b' [40, 60] ns starts inside a call of
 * 'a' [10, 50] ns and ends after it, so rank 3 has no call tree (nor have
 * 2 other ranks); the flat numbers are not affected, and --by path leaves it
 * out".  Names are escaped.
 */
void ingest_nest_warning(char *buf, size_t len, const char *path, const struct ingest_nest *n,
			 const char *const *names, size_t num_names);

/* The self times of n->self_ns (kept as their WIRE_SELF frames came, to
 * be stored with the rows, docs/format.md section 10.5) are of regions of
 * a file of num_regions: 0 or ERR_GENERIC.  (A JSON profile's frames come
 * before its regions are known.) */
int ingest_nest_self_check(const struct ingest_nest *n, size_t num_regions);

struct store;

/* A run being stored (its write transaction open): where its paths go. */
struct ingest_nest_run {
	struct store *st;
	int64_t run_id;
	const void *frames; /* the file's frames, checked as they came */
	size_t len;
	/* the places in frames of its WIRE_NEST, _NODE and _PATH frames, in
	 * the order they are stored, the nodes before their paths (noted as
	 * they came: the other frames are not read again) */
	const size_t *pos;
	size_t npos;
	size_t num_regions;
	const char *const *names; /* the file's region names */
	int64_t *region_ids;	  /* file region -> store region id, 0 = not yet; filled */
};

/*
 * The call tree's paths and (path, rank) rows into the run (n: the checked
 * summary of the same frames, whose nodes' regions it uses), and the mark
 * that it was read for nesting (after its rows: a path's region has one).
 * mins and maxs: the shortest and longest call of each (rank, region) row,
 * those of a path whose outermost calls are all its row's calls.
 */
int ingest_nest_store(const struct ingest_nest_run *r, const struct ingest_nest *n,
		      const struct ingest_rowmap *mins, const struct ingest_rowmap *maxs);

/* The nesting frames of frames (of a file with nreg regions), in order,
 * decoded to the sink's callbacks, as ingest_pending_nest_walk(). */
int ingest_nest_walk(const void *frames, size_t len, size_t nreg, const struct calltree_sink *sink);

/* What the store's process has of a file read by ingest_read() (ingest.h). */
struct ingest_pending;

/* Its checked summary. */
const struct ingest_nest *ingest_pending_nest(const struct ingest_pending *p);

/* Its warning (ingest_nest_warning() with the file's path and names). */
void ingest_pending_nest_warning(const struct ingest_pending *p, char *buf, size_t len);

/*
 * Its nesting frames again, in the order they came, decoded to the sink's
 * callbacks (each may be NULL; a path's durations are decoded from their
 * encoding, or from its row's, so durations is never NULL here).
 * Returns 0, a callback's non-zero value, or an error.
 */
int ingest_pending_nest_walk(const struct ingest_pending *p, const struct calltree_sink *sink);

#endif
