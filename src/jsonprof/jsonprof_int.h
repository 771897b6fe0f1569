/*
 * jsonprof_int.h - what the two halves of the JSON profile reader share:
 * jsonprof.c (the document: open, its top-level keys, the end of the
 * read) and jsonrows.c (the elements of "regions": each row parsed,
 * checked and handed out, whole or in pieces).  Private to src/jsonprof/.
 *
 * Ownership: struct jsonprof owns its row buffers (struct jrow), its
 * plan, its spool and everything reachable from its info; jsonprof_free()
 * releases them.
 */
#ifndef SCOPEDB_JSONPROF_INT_H
#define SCOPEDB_JSONPROF_INT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "jsonprof/jsonmeta.h"
#include "jsonprof/jsonplan.h"
#include "jsonprof/jsonprof.h"
#include "jsonprof/jsontok.h"
#include "scopedb/util.h"
#include "util/spool.h"
#include "util/strmap.h"

/* The per-call columns of a row, in the order of jrow.col. */
enum { COL_START, COL_END, COL_GPU, COL_CALL, COL_PARENT, COL_THREAD, COL_TASK, COL_AWAIT, NCOLS };

/* Their keys in the document, in that order (jsonrows.c). */
extern const char *const jsonprof_col_keys[NCOLS];

/* One element of "regions" as read. */
struct jrow {
	struct buf name, file, text, tags, key;
	int has_name, has_rank, has_line, has_excl, has_agg;
	int64_t rank, line, excl;
	struct i64vec col[NCOLS];
	int has_col[NCOLS];
	/* aggregate */
	uint64_t agg_count;
	int64_t agg_total, agg_min, agg_max, agg_excl;
	int has_agg_key[5];
	char **tagv; /* scratch for the tags */
	size_t ntags, tagcap;
	/* columns too long to hold (jsonprof_set_piece_min()): column k's
	 * n[k] values at byte base[k] of the spool, end the bytes written */
	uint64_t spilled[NCOLS], base[NCOLS], end;
	int any_spilled, in_pieces;
	char where[300]; /* "regions[I] (rank R, region 'NAME')" */
};

struct jsonprof {
	struct h5prof_info info;
	char *path, *qpath;
	int fd;
	struct stat st;
	int have_st;
	struct jtok t;
	struct strmap names;
	const char *names_base; /* names.arena.data when name_ptrs were set */
	char **name_ptrs;
	size_t name_cap;
	struct jsonmeta meta;
	/* (rank, region) pairs seen: open addressing, key + 1, 0 = empty */
	uint64_t *pairs;
	size_t npairs, pair_slots;
	uint64_t max_rank1; /* largest rank + 1 */
	uint64_t doc_ranks;
	int have_doc_ranks;
	size_t nagg;
	struct jrow row;
	struct jsonprof_nesting nest;
	int read_done;
	struct jsonplan plan; /* each rank's last row, the rows in pieces */
	uint64_t piece_min;   /* rows of this many calls go in pieces; 0: never */
	struct spool sp;      /* long columns of the row being read */
	char sp_where[600];   /* its messages' prefix */
	size_t index;	      /* the row being read: regions[index] */
};

/* "cannot read 'PATH': WHAT" without a document offset; the reader stays
 * failed. */
#define jp_fail(j, code, ...) jtok_fail_at(&(j)->t, code, 0, __VA_ARGS__)

/* An optional string (null: absent) into b (jsonrows.c). */
int jsonprof_opt_string(struct jsonprof *j, struct buf *b, const char *what);

/* The array of "regions" (t at its '['): each row to fn, whole or in
 * pieces (jsonrows.c). */
int jsonprof_regions(struct jsonprof *j, h5prof_row_fn fn, void *ctx);

#endif
