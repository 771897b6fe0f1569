/*
 * calltree_int.h - what the call-tree builder's files share (not a public
 * header): its structures and the steps of building one rank.
 * calltree.c collects the ranks' calls and holds the public calls and the
 * worker thread; calltree_order.c puts each lane's calls in start order
 * (lanes, sorting or merging) or gives each call its parent from the
 * file's ids; calltree_paths.c sweeps the lanes for the parents (and
 * overlaps), turns the calls, parents first, into paths and numbers and
 * delivers them (ct_build()).  Each function's contract is atop its
 * definition.
 *
 * Ownership: everything here belongs to its struct calltree; the scratch
 * arrays are reused from rank to rank and freed by ct_scratch_release().
 */
#ifndef SCOPEDB_CALLTREE_INT_H
#define SCOPEDB_CALLTREE_INT_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "ingest/calltree.h"
#include "scopedb/util.h"

#define NONE UINT32_MAX

/* One row of a rank being collected. */
struct ct_row {
	uint32_t region;
	int has_events;
	uint64_t calls;
	int64_t exclusive;
};

/* Nesting columns a rank's rows had (struct ct_rank.has). */
#define CT_HAS_IDS 1u
#define CT_HAS_THR 2u
#define CT_HAS_TASK 4u
#define CT_HAS_LANES (CT_HAS_THR | CT_HAS_TASK)

/* A rank whose rows are being collected. */
struct ct_rank {
	uint32_t rank;
	uint64_t seq;		     /* when it began: ranks finish in this order */
	enum calltree_status status; /* OK, or given up: TOO_MANY, NOMEM */
	int incomplete;		     /* a row has calls but no events */
	size_t event_rows;	     /* rows with events (0: aggregate rows only) */
	uint64_t calls;		     /* calls of its event rows, held or not */
	size_t n, cap;		     /* calls held */
	int64_t *start, *dur;
	uint32_t *row;			 /* each call's row; NULL: all row 0 */
	int64_t *cid, *pid, *thr, *task; /* allocated when a row had them */
	unsigned has;			 /* CT_HAS_*: columns a row had */
	uint64_t no_id;			 /* held calls without an id */
	struct ct_row *rows;
	size_t nrows, rcap;
};

/* Call c's row in rank r (r->row is NULL while all its calls are of row 0). */
#define CT_ROW(r, c) ((r)->row ? (r)->row[c] : 0u)

/* A call's node in s->row once the paths have numbered it: the node,
 * with CT_NESTED set when the call is nested in a call of its own region
 * (not one of its node's outermost calls).  Nodes are below
 * CALLTREE_MAX_NODES (2^20). */
#define CT_NESTED ((uint32_t)1 << 31)
#define CT_NODE(v) ((v) & ~CT_NESTED)

/* A path: its parent node and region, and its numbers on the rank being
 * built (reset after each rank). */
struct ct_node {
	uint32_t parent; /* NONE for a root */
	uint32_t region;
	uint32_t depth;
	uint32_t wid;	/* id given to the sink, NONE until delivered */
	uint32_t local; /* index among the rank's nodes, NONE = not used */
	uint32_t row;	/* the rank's row of its calls */
	int whole;	/* its outermost calls are all of that row's calls */
	uint64_t calls, nested;
	int64_t total, self;
};

/* Scratch of one rank's build, n values each (kept between ranks). */
struct ct_scratch {
	size_t cap;
	uint32_t *lane;		/* each call's lane */
	uint32_t *seg;		/* calls grouped by lane (not written when seg_ident) */
	uint32_t *order;	/* the calls, parents first */
	uint32_t *row;		/* gathered: each call's row, then its node (CT_NODE) */
	uint32_t *parent;	/* ids: the parent's position, NONE = a root;
				 * containment: the sweep's stack's rows */
	uint32_t *node;		/* the sweep's stack of open calls */
	uint32_t *touched;	/* nodes used by the rank, in first use order */
	int64_t *csum;		/* ids: children's sums; the sweep's stack of ends */
	int64_t *keys;		/* sort keys; starts (ids: then self times); outermost durs */
	int64_t *tmp;		/* sort scratch; gathered durations */
	int64_t *rowself;	/* per row */
	uint32_t *cpar, *cnode; /* per row: the last parent node and its child */
	size_t rowcap;
	uint32_t *count; /* the radix sort's histograms */
	int seg_ident;	 /* one lane, its calls in their own order: seg unused */
	uint32_t *idtab; /* dense ids: id - smallest -> call */
	size_t idcap;
};

struct calltree {
	uint64_t max_held, held, seq;
	uint64_t drop_min;     /* ranks of this many calls give them back once gathered */
	int merge;	       /* calltree_set_merge()'s mode */
	struct ct_rank **open; /* ranks being collected, by rank */
	size_t nopen, ocap;
	size_t last; /* index in open of the last rank added to */
	struct ct_node *nodes;
	uint32_t nnodes, nwid;
	size_t ncap;
	uint32_t *hash; /* (parent, region) -> node, NONE = empty */
	size_t hcap;
	struct ct_scratch s;
	struct ct_rank *spare; /* the last rank built: the next one takes its arrays */
	/* the worker thread (calltree_set_threaded()): it builds the job while
	 * the caller collects the next rank; its results are recorded in rec
	 * and replayed to the caller's sink when the job is reaped */
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int started, quit;
	struct ct_rank *job; /* handed to the worker, not reaped yet */
	int job_done, job_rc;
	struct buf rec;
	struct i64vec replay; /* a recorded path's durations */
};

/* calltree.c: free r's calls (its arrays; r->n is left as it is). */
void ct_rank_free_calls(struct ct_rank *r);

/* calltree_order.c */
int ct_scratch(struct ct_scratch *s, size_t n, size_t nrows);
void ct_scratch_release(struct ct_scratch *s);
void ct_sort_durations(struct ct_scratch *s, int64_t *v, size_t m);
int ct_lanes(struct ct_scratch *s, const struct ct_rank *r, size_t **off, size_t *nlanes);
int ct_sort_lane(struct ct_scratch *s, const struct ct_rank *r, size_t a, size_t m, int merge,
		 int release);
void ct_gather(struct ct_scratch *s, const struct ct_rank *r, size_t a, size_t m);
int ct_from_ids(struct ct_scratch *s, const struct ct_rank *r, struct calltree_rankinfo *info);

/* calltree_paths.c: build rank r (taken out of the open ranks) and
 * deliver it to sink. */
int ct_build(struct calltree *t, struct ct_rank *r, const struct calltree_sink *sink);

#endif
