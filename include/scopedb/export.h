/*
 * export.h - a stored run as the rows other tools read (issue 25,
 * docs/export.md): its nodes (the call paths of its tree, or its flat
 * region names when it has none) and one row per (node, rank) with calls,
 * inclusive and exclusive time, extremes and exact percentiles.  scopedb
 * export writes them as Caliper JSON-split files (for Hatchet and Thicket)
 * or one long CSV table (for pandas).
 *
 * Ownership: export_read_run() fills a struct export_run the caller
 * releases with export_run_release() (which accepts a zeroed or
 * half-filled one); every string in it is owned by it.
 */
#ifndef SCOPEDB_EXPORT_H
#define SCOPEDB_EXPORT_H

#include <stddef.h>
#include <stdint.h>

#include "scopedb/store.h"

/* A node: a region name under its parent node (-1: a root). */
struct export_node {
	char *name;
	int64_t parent;
	char *path; /* the names from the root joined by " > " */
};

/* One (node, rank) row; times in ns. */
struct export_row {
	size_t node;
	int64_t rank;
	uint64_t calls;
	int64_t total; /* inclusive */
	int64_t self;  /* exclusive; -1 when the profile gives none */
	int64_t min, max;
	int has_quantiles; /* 0: aggregate layout, no per-call durations */
	double q[3];	   /* p50, p95, p99 of the row's call durations */
};

struct export_run {
	struct store_run run;
	struct store_meta meta;
	int tree; /* 1: nodes are call paths; 0: flat region names */
	struct export_node *nodes;
	size_t nnodes;
	struct export_row *rows;
	size_t nrows;
};

/* Read run_id of st into *out (zeroed first): its description, metadata,
 * nodes and rows, each row's percentiles from its stored durations.
 * Errors: the store's (ERR_NOTFOUND for an unknown run, ERR_FORMAT for a
 * damaged row or durations blob). */
int export_read_run(struct export_run *out, struct store *st, int64_t run_id);
void export_run_release(struct export_run *r);

#endif
