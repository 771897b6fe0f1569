/*
 * h5prof.h - reading merged scope-profiler HDF5 files (every layout of
 * docs/format.md: schema 1 hierarchical, schema 2/3 columnar with absolute
 * or delta-encoded times, and the aggregate layout).
 *
 * h5prof_open() opens the file, determines schema and layout, reads the
 * metadata, the region names and the whole rank/region index, and validates
 * the index structure (docs/format.md section 6) before any event is
 * read.  h5prof_read() then streams one struct h5prof_row per (rank, region)
 * to a callback, reading the event columns in bounded chunks so memory does
 * not grow with the size of the file (only with the largest single row).
 *
 * This module is the only one that calls the HDF5 read API.  Errors are
 * reported with err_set() as "cannot read 'PATH': WHAT" (one line).
 *
 * Only what is inside the file is read (docs/guarantees.md): datasets with
 * a virtual layout or external storage, external and user-defined links and
 * soft links leading to no object of the file are refused before anything
 * follows them; filter plugins are never loaded (only deflate, shuffle,
 * fletcher32 and szip are accepted); a dataset declaring more values than
 * the bytes the file stores for it can hold (at the filters' maximum
 * expansion) is refused before it is read.
 *
 * Region ids: columnar files use the ids of /region_table/names.  For
 * schema 1 they are given in order of first appearance, visiting ranks in
 * numeric order and each rank's regions in byte-wise name order (the order
 * in which h5prof_read() delivers the rows).
 *
 * Nesting: each row also carries its calls' ids and lanes where the file
 * has them (struct nest_cols, nesting.h) and says whether it is the last
 * row of its rank in the read (rank_last), so that a consumer can build a
 * rank's call tree as soon as its rows are in.
 *
 * Ownership: struct h5prof and everything reachable from h5prof_info() is
 * owned by the handle and freed by h5prof_free() (which accepts NULL).  The
 * arrays inside a struct h5prof_row are borrowed and valid only during the
 * callback; its strings (source_file, source_text, tags_json) are owned by
 * the handle and stay valid until h5prof_free().
 */
#ifndef SCOPEDB_H5PROF_H
#define SCOPEDB_H5PROF_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "scopedb/nesting.h"

enum h5prof_layout {
	H5PROF_HIERARCHICAL, /* schema 1 */
	H5PROF_COLUMNAR,     /* schema >= 2, per-call events */
	H5PROF_AGGREGATE,    /* schema >= 2, storage_layout = "aggregate" */
};

/* "hierarchical", "columnar" or "aggregate" (static string). */
const char *h5prof_layout_name(enum h5prof_layout layout);

/* One /metadata attribute.  value is the text form: strings as is, integers
 * in decimal, floats with %.17g, arrays as a JSON array text (is_array). */
struct h5prof_meta {
	char *key;
	char *value;
	int is_array;
};

struct h5prof_info {
	const char *path;
	int schema; /* 1..3 */
	enum h5prof_layout layout;
	uint32_t num_ranks;  /* docs/format.md sections 2.1 and 3.4 */
	size_t num_regions;  /* names[] length */
	char **region_names; /* region id -> name (UTF-8) */
	size_t num_rows;     /* (rank, region) rows, including 0-call rows */
	uint64_t num_events; /* sum of all rows' calls */
	size_t num_meta;
	struct h5prof_meta *meta; /* in attribute name order */
};

struct h5prof_row {
	uint32_t rank;
	uint32_t region; /* index into region_names */
	uint64_t calls;	 /* 0 is legal */
	int has_events;	 /* 0 for the aggregate layout */
	/* per-call arrays of length calls, call order; NULL when !has_events
	 * or calls == 0 */
	const int64_t *starts;	  /* absolute start times, ns */
	const int64_t *durations; /* end - start, ns, all >= 0 */
	/* 1: durations is the reader's own copy of this row, which it reads
	 * no more once the callback returns, so the callback may reorder it
	 * (ingest sorts a row the call tree cannot hold where it lies);
	 * 0: it may be the reader's shared window, or read again */
	int durations_own;
	const int64_t *gpu; /* device time per call, < 0 = none;
			       NULL when the file has no GPU column */
	/* per-call ids and lanes (docs/format.md section 10), like starts;
	 * each NULL when the file has no such column (call_ids and
	 * parent_ids are given together or not at all) */
	struct nest_cols nest;
	int rank_last; /* no later row of this rank follows in this read */
	/* a row of h5prof_set_piece_min()'s calls or more, handed out in
	 * pieces, one a window of the event columns: piece_len > 0 is this
	 * piece's calls (the per-call arrays hold piece_len values; calls is
	 * the whole row's), piece_from the row's call it starts at, and
	 * piece_last 1 on the last; piece_len 0 when the row is whole */
	uint64_t piece_from, piece_len;
	int piece_last;
	/* with pieces asked for, the calls of all the rows of this row's rank
	 * in the file (a rank of more than the call tree holds is given up at
	 * its first row); 0: not known (no pieces asked for, another reader) */
	uint64_t rank_calls;
	/* aggregate layout only (0 otherwise) */
	int64_t agg_total;
	int64_t agg_min;
	int64_t agg_max;
	int64_t exclusive;	 /* exclusive total ns, -1 = unknown */
	int64_t source_line;	 /* -1 = unknown */
	const char *source_file; /* "" = unknown */
	const char *source_text; /* "" = unknown */
	const char *tags_json;	 /* normalized JSON array text, "[]" = none */
};

/* Whether a row of calls calls, of a rank of rank_calls (0: not known),
 * goes in pieces when rows of piece_min calls do (h5prof_set_piece_min();
 * 0: none): a row of piece_min calls or more, or of a quarter of that in
 * a rank of as many.  Every reader decides by this rule. */
static inline int h5prof_goes_in_pieces(uint64_t calls, uint64_t rank_calls, uint64_t piece_min)
{
	return piece_min &&
	       (calls >= piece_min || (calls >= piece_min / 4 && rank_calls >= piece_min));
}

/* Make row the piece of calls [from, from + len) of its row (calls: the
 * whole row's), the last when it ends the row. */
static inline void h5prof_row_piece(struct h5prof_row *row, uint64_t from, uint64_t len)
{
	row->piece_from = from;
	row->piece_len = len;
	row->piece_last = from + len == row->calls;
}

struct h5prof;

/* Start libhdf5 for reading profiles, once a process (h5prof_open() does it
 * itself): a process that forks a reader per file calls it first, so that
 * each reader inherits a started library instead of starting it again. */
void h5prof_init(void);

/* Between two files in one reader process (ingest's served reader):
 * libhdf5 closed, so nothing of the last file (ids, caches, free lists) is
 * left for the next, and started again as h5prof_init() starts it (no
 * filter plugins).  The caller has freed every h5prof first. */
void h5prof_reset(void);

/* Open and validate path; *out is set only on success. */
int h5prof_open(struct h5prof **out, const char *path);

/*
 * h5prof_open() of a file the caller has already opened and fstat()ed (and
 * perhaps hashed) as h5prof_open_file() does: libhdf5 must then be reading
 * that same file, unchanged (same device and inode, size, mtime and ctime
 * to the nanosecond), when it is opened and again after h5prof_read()'s
 * last row; else "the file changed while it was read" (ERR_IO).  The
 * caller keeps its descriptor open meanwhile (so the inode cannot be
 * reused).  expect NULL: h5prof_open().
 */
int h5prof_open_stat(struct h5prof **out, const char *path, const struct stat *expect);

/*
 * Open path for reading (non-blocking: a FIFO does not hang) and fstat it:
 * a non-empty regular file, else an error naming path and the cause (no
 * such file, permission denied, is a directory, not a regular file, empty).
 * On success *fd is open (the caller closes it) and *st describes it.
 */
int h5prof_open_file(const char *path, int *fd, struct stat *st);

/* Whether two fstat() results are the same file with the same content as
 * far as the kernel tells: device, inode, size, mtime and ctime (ns). */
int h5prof_same_file(const struct stat *a, const struct stat *b);

const struct h5prof_info *h5prof_info(const struct h5prof *p);

/* Value of a /metadata attribute, or NULL. Owned by p. */
const char *h5prof_meta_get(const struct h5prof *p, const char *key);

/*
 * Called once per row.  Return 0 to continue; a non-zero return stops the
 * read and h5prof_read() returns that value unchanged (set the message with
 * err_set() first).
 */
typedef int (*h5prof_row_fn)(void *ctx, const struct h5prof_row *row);

/* Stream every row: schema 1 in numeric rank order then region order;
 * columnar files in event-offset order.  Errors found in the events
 * (negative duration, ...) stop the read with ERR_FORMAT. */
int h5prof_read(struct h5prof *p, h5prof_row_fn fn, void *ctx);

void h5prof_free(struct h5prof *p);

/* Before h5prof_read(): hand out rows of n calls or more in pieces, and
 * rows of n / 4 calls or more of a rank of n calls or more (the columnar
 * and schema-1 layouts; aggregate rows have no calls to hold), and count
 * each rank's calls (h5prof_row.rank_calls); 0: never. */
void h5prof_set_piece_min(struct h5prof *p, uint64_t n);

/*
 * The columnar index of a file as plain arrays (num_rows values each; the
 * ranges the HDF5 reader enforces while reading are already applied: region
 * ids and ranks are uint32).  offsets is ignored for the aggregate layout.
 */
struct h5prof_index {
	size_t num_rows;
	const uint32_t *region_ids;
	const uint32_t *ranks;
	const uint64_t *offsets;
	const uint64_t *counts;
	size_t num_names;    /* length of region_table/names */
	uint64_t num_events; /* length of the event columns */
	int aggregate;
};

/*
 * Validate idx exactly as h5prof_open() validates a file's index (docs/format.md
 * section 6.2: region ids in range, counts not overflowing,
 * offset + count within the event columns, no duplicate (rank, region), no
 * overlapping rows).  0 or ERR_FORMAT ("cannot read 'PATH': ..."; region
 * names in messages are placeholders).  For the fuzz target and tests.
 */
int h5prof_validate_index(const char *path, const struct h5prof_index *idx);

/*
 * Testing hook: the number of events read per event column per hyperslab
 * read in h5prof_read() (default 1 << 16; 0 restores the default);
 * compressed chunks up to 64 windows long are read whole, longer ones
 * through a one-chunk cache.  Tests lower it to exercise rows spanning
 * window boundaries and long chunks.  Process-wide.
 */
void h5prof_set_chunk_events(size_t n);

/*
 * Testing hook: how many gzip chunks of event columns this process has
 * inflated itself (libdeflate) rather than through libhdf5's filters:
 * tests assert that the fast path is taken, and is not where it must not be.
 */
unsigned long h5prof_inflated_chunks(void);

/*
 * Testing hook: how many schema-1 rows this process has read straight from
 * the file (pread(), at the places libhdf5 gave when the file was opened)
 * rather than through libhdf5 (src/h5/h5direct.c).
 */
unsigned long h5prof_direct_rows(void);
/* Testing hook: 0 reads every schema-1 row through libhdf5 (for tests
 * that compare both paths), 1 (the default) lets them go directly. */
void h5prof_set_direct_reads(int on);

#endif
