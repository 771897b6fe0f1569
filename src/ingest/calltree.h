/*
 * calltree.h - the call tree of a profile: which call each call was made
 * from, the paths of region names this gives, and the numbers of each
 * (path, rank) and the self time of each (rank, region) (docs/format.md
 * section 10).  Pure C: it sees only the rows a reader hands out (struct
 * calltree_row, filled from any reader's struct nest_cols), never a file.
 *
 * The rows of a rank are collected (their arrays copied) until the row
 * marked rank_last, or until calltree_finish(); then the rank's tree is
 * built and its results go to the sink, and its calls are forgotten.  So
 * a reader that hands out one rank after another keeps one rank's calls
 * in memory at a time.  At most max_held calls (default
 * CALLTREE_MAX_HELD) are held at once: past that, the rank holding the
 * most calls is given up (CALLTREE_TOO_MANY), so memory stays bounded
 * whatever the order of the rows.
 *
 * Per rank the tree comes from the calls' ids when every call has one and
 * they agree with the times, otherwise from time containment per lane;
 * two calls overlapping without nesting leave the rank without a tree
 * (CALLTREE_OVERLAP, naming both calls).  A path is the list of region
 * names from a root call down to a call, adjacent repeated names
 * collapsed into one (self-recursion is one node).  Paths are numbered
 * per builder (that is, per file) as nodes: a node is its parent node and
 * a region; each node reaches the sink once, before the first path row
 * that uses it, with ids 0, 1, 2... in that order.
 *
 * The sink's callbacks are called in this order for each rank: rank (its
 * status), then node and path (when the rank has paths), then self for
 * each of its rows whose self time is known.  A non-zero return from a
 * callback stops the builder, which returns that value.
 *
 * Errors: ERR_NOMEM only for the builder's own bookkeeping; memory that a
 * rank's tree needs and cannot get leaves that rank without a tree
 * (CALLTREE_NOMEM), not the file without its flat numbers.
 *
 * Ownership: struct calltree owns everything it holds (calltree_free()
 * accepts NULL); what the sink receives is valid during the call only.
 */
#ifndef SCOPEDB_CALLTREE_H
#define SCOPEDB_CALLTREE_H

#include <stddef.h>
#include <stdint.h>

#include "scopedb/nesting.h"

/* Calls held for nesting at once (all ranks being collected together). */
#define CALLTREE_MAX_HELD ((uint64_t)1 << 24)
/* A rank of at least this many calls gives its own copy of them back once
 * they are sorted (a smaller one keeps its arrays for the next rank). */
#define CALLTREE_DROP_MIN ((uint64_t)1 << 22)
/* Distinct paths (nodes) of one builder. */
#define CALLTREE_MAX_NODES ((uint32_t)1 << 20)
/* Names in one path. */
#define CALLTREE_MAX_DEPTH 1024u

/* One (rank, region) row as a reader hands it out. */
struct calltree_row {
	uint32_t rank;
	uint32_t region;
	uint64_t calls;
	int has_events;		  /* 0: an aggregate row (exclusive only) */
	const int64_t *starts;	  /* calls values (NULL when !has_events) */
	const int64_t *durations; /* calls values, >= 0 */
	struct nest_cols nest;	  /* any member may be NULL */
	int64_t exclusive;	  /* the profile's own self time, -1 = unknown */
	int rank_last;		  /* no later row of this rank follows */
	uint64_t rank_calls;	  /* the rank's calls in the file; 0: unknown */
	/* 1: durations are the caller's own copy, which it reads no more
	 * (h5prof_row's durations_own): a row of calltree_set_drop()'s calls
	 * or more, or the last row of a rank of that many, has their pages
	 * given back as they are copied */
	int durations_own;
};

enum calltree_status {
	CALLTREE_OK,	     /* the rank has a tree */
	CALLTREE_OVERLAP,    /* two calls overlap without nesting */
	CALLTREE_TOO_MANY,   /* more calls than the builder holds */
	CALLTREE_NOMEM,	     /* no memory to build it */
	CALLTREE_INCOMPLETE, /* some of its rows have calls but no events */
	CALLTREE_TOTALS,     /* all its rows with calls are totals only (set by
			      * ingest_nest_end(), never sent by a reader) */
};

enum calltree_method {
	CALLTREE_CONTAINMENT, /* rebuilt from the times */
	CALLTREE_IDS,	      /* call_ids and parent_ids */
};

/* Why a rank whose calls have ids was rebuilt from the times instead. */
enum calltree_ids_issue {
	CALLTREE_IDS_USED,	/* the ids were used, or there were none */
	CALLTREE_IDS_PARTIAL,	/* some calls have no id */
	CALLTREE_IDS_DUPLICATE, /* two calls share an id */
	CALLTREE_IDS_ORDER,	/* a parent id not smaller than its call's id */
	CALLTREE_IDS_OUTSIDE,	/* a parent that does not contain its call */
	CALLTREE_IDS_CHILDREN,	/* the children of a call outlast it */
};

/* Why a rank with a tree has no paths (its self times are kept). */
enum calltree_paths_issue {
	CALLTREE_PATHS_OK,
	CALLTREE_PATHS_DEEP, /* a path of more than CALLTREE_MAX_DEPTH names */
	CALLTREE_PATHS_MANY, /* the file has more than CALLTREE_MAX_NODES paths */
};

/* What became of one rank that has calls with events. */
struct calltree_rankinfo {
	uint32_t rank;
	enum calltree_status status;
	enum calltree_method method;	   /* CALLTREE_OK only */
	enum calltree_ids_issue ids_issue; /* ids present but not used: why */
	enum calltree_paths_issue paths_issue;
	uint64_t calls;	    /* the rank's calls */
	uint64_t lanes;	    /* distinct (thread, task) lanes; 0 unless OK */
	uint64_t paths;	    /* path rows delivered for the rank */
	uint64_t orphans;   /* ids: parent id unknown in the rank: made a root */
	uint64_t crosslane; /* ids: parent in another lane: made a root */
	/* CALLTREE_OVERLAP: call b starts inside call a and ends after it */
	uint32_t region_a, region_b;
	int64_t start_a, end_a, start_b, end_b;
};

/* A path: its parent's path plus one region name. */
struct calltree_node {
	uint32_t id;	 /* 0, 1, 2... in delivery order */
	int64_t parent;	 /* id of the parent path, -1 for a root */
	uint32_t region; /* its last name */
	uint32_t depth;	 /* names in the path, 1 for a root */
};

/* The numbers of one (path, rank). */
struct calltree_path {
	uint32_t rank;
	uint32_t node;
	uint64_t calls;		  /* outermost calls of the path */
	uint64_t nested;	  /* its calls inside a call of the path */
	int64_t total;		  /* sum of the outermost calls' durations */
	int64_t self;		  /* sum over all its calls: duration - children's */
	const int64_t *durations; /* calls values: outermost durations, ascending;
				     NULL when row_durations */
	int row_durations;	  /* its outermost calls are all the calls of its
				     region on the rank: the durations are that
				     row's (not repeated here) */
};

enum calltree_self_source {
	CALLTREE_SELF_TREE = 1, /* computed from the rank's tree */
	CALLTREE_SELF_FILE = 2, /* the profile's exclusive total */
};

struct calltree_sink {
	void *ctx;
	int (*rank)(void *ctx, const struct calltree_rankinfo *r);
	int (*node)(void *ctx, const struct calltree_node *n);
	int (*path)(void *ctx, const struct calltree_path *p);
	int (*self)(void *ctx, uint32_t rank, uint32_t region, int64_t self,
		    enum calltree_self_source source);
};

struct calltree;

int calltree_new(struct calltree **out);
void calltree_free(struct calltree *t);

/*
 * Build each rank on a second thread while the next one is collected
 * (when no thread can be started, nothing changes).  The sink is still
 * called only from the caller's thread, from calltree_add() and
 * calltree_finish(): a rank's results come once the next rank is handed
 * over, or at the finish.  The calls of the rank being built count
 * against the budget until then.
 */
void calltree_set_threaded(struct calltree *t);

/* Testing hook: hold at most max_held calls (0: CALLTREE_MAX_HELD). */
void calltree_set_budget(struct calltree *t, uint64_t max_held);

/* Testing hook: give back the calls of a rank of at least min_calls once
 * they are sorted into the builder's scratch (0: CALLTREE_DROP_MIN). */
void calltree_set_drop(struct calltree *t, uint64_t min_calls);

/* Testing hook: how a lane's calls are put in start order: merged when
 * they are a few sorted runs and sorted otherwise (0, the default), always
 * sorted (-1), or merged whenever they are at most 256 sorted runs (1).
 * The results are the same. */
void calltree_set_merge(struct calltree *t, int mode);

/* Whether a row of this many calls can be held: one that cannot gives its
 * rank up in calltree_add() without a look at its arrays. */
int calltree_can_hold(const struct calltree *t, uint64_t calls);

/* The most calls t holds at once: a row of more is given up unread. */
uint64_t calltree_max_held(const struct calltree *t);

/* Take one row (arrays copied); its rank is built when row->rank_last. */
int calltree_add(struct calltree *t, const struct calltree_row *row,
		 const struct calltree_sink *sink);

/* Build every rank still being collected, in the order they began. */
int calltree_finish(struct calltree *t, const struct calltree_sink *sink);

#endif
