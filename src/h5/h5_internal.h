/*
 * h5_internal.h - private to src/h5/: the handle behind struct h5prof and
 * the helpers the reader's files share.  Nothing outside src/h5/ includes
 * it; it is the only header besides <hdf5.h> that mentions libhdf5 types.
 *
 * The reader is split by layout (docs/format.md sections 1-4):
 *   h5prof.c      public entry points (open, read, free, validate_index),
 *                 schema and layout detection, and the row helpers every
 *                 layout uses (messages, fill_row, buffers)
 *   h5meta.c      /metadata: the attributes kept, as text
 *   h5util.c      datasets, attributes and strings: opening, type checks,
 *                 whole reads (fixed and variable-length strings)
 *   h5hier.c      schema 1: /rank<N>/regions/<name> groups
 *   h5index.c     schema 2/3: region_table and rank_region_index, shared by
 *                 the columnar and aggregate layouts, and its validation
 *   h5columnar.c  the columnar layout's event columns: windows, prefetch
 *                 thread, decoding absolute or delta-encoded times (also
 *                 used for schema 1 times)
 *   h5aggregate.c the aggregate layout's aggregate_* index columns
 *
 * A new layout: detect it in h5prof_detect() (add an enum h5prof_layout
 * value), give it a file with an _open (or an index reader called from
 * h5index_open()) and a _read, and dispatch to them in h5prof_open() and
 * h5prof_read().
 *
 * Ownership: everything reachable from struct h5prof is owned by it and
 * freed by h5prof_free().  Message helpers return a negative ERR_* code
 * after err_set() ("cannot read 'PATH': WHAT").
 */
#ifndef SCOPEDB_H5_INTERNAL_H
#define SCOPEDB_H5_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include <hdf5.h>

#include "scopedb/h5prof.h"
#include "util/strmap.h"

/*
 * libhdf5 1.10 and 1.12/1.14: the object-info, vlen-reclaim and is-HDF5
 * calls differ (1.12 added H5Oget_info_by_name3 with tokens, H5Treclaim and
 * H5Fis_accessible, and deprecated the 1.10 forms); the link
 * calls (H5Literate, H5Lget_info, H5L_info_t) map to the right version in
 * each, and only their fields common to both (type, u.val_size) are used.
 */
#if H5_VERSION_GE(1, 12, 0)
typedef H5O_info2_t h5util_oinfo;
#define h5util_oget_info_by_name(loc, path, info)                                                  \
	H5Oget_info_by_name3((loc), (path), (info), H5O_INFO_BASIC, H5P_DEFAULT)
#define h5util_vlen_reclaim(type, space, buf) H5Treclaim((type), (space), H5P_DEFAULT, (buf))
#define h5util_is_hdf5(path) H5Fis_accessible((path), H5P_DEFAULT)
#else
typedef H5O_info_t h5util_oinfo;
#define h5util_oget_info_by_name(loc, path, info)                                                  \
	H5Oget_info_by_name2((loc), (path), (info), H5O_INFO_BASIC, H5P_DEFAULT)
#define h5util_vlen_reclaim(type, space, buf) H5Dvlen_reclaim((type), (space), H5P_DEFAULT, (buf))
#define h5util_is_hdf5(path) H5Fis_hdf5(path)
#endif

/* Row flags: schema-1 region group has a gpu_durations dataset, call_ids
 * and parent_ids, thread_ids, task_ids; the row is its rank's last in the
 * read (every layout); schema 1: its start or end times are gzip chunks
 * h5inflate.c can inflate (h5inflate_kind()). */
#define PROW_GPU 1u
#define PROW_IDS 2u
#define PROW_THR 4u
#define PROW_TASK 8u
#define PROW_LAST 16u
#define PROW_INFLATE 32u

/* The event columns of the columnar layout (struct h5prof.ev): the times
 * (starts or deltas, ends or durations), then the optional ones. */
enum {
	EV_A,	 /* start_times or start_deltas */
	EV_E,	 /* end_times or durations */
	EV_GPU,	 /* gpu_durations */
	EV_CID,	 /* call_ids (only with parent_ids) */
	EV_PID,	 /* parent_ids (only with call_ids) */
	EV_THR,	 /* thread_ids */
	EV_TASK, /* task_ids */
	EV_N
};

/* One (rank, region) row of the index, as held in memory. */
struct prow {
	uint32_t rank;
	uint32_t region;
	uint64_t offset; /* columnar: first event; schema 1: first span */
	uint64_t count;
	int64_t source_line;
	int64_t exclusive;
	int64_t agg_total, agg_min, agg_max;
	size_t file_id, text_id, tags_id; /* ids in h5prof.strs */
	size_t idx;			  /* index row (columnar), rank group (schema 1) */
	unsigned flags;
	uint32_t nspan; /* schema 1: spans from offset (h5direct.c), or 0 */
};

/* An open one-dimensional dataset. */
struct h5col {
	hid_t dset;
	hid_t type;
	hid_t space;
	hsize_t n;
	hsize_t chunk;	   /* chunk length of a chunked dataset, else 0 */
	int filtered;	   /* chunks are compressed (or otherwise filtered) */
	int inflate;	   /* h5inflate_kind(): chunks inflated by h5inflate.c */
	int contiguous;	   /* contiguous storage (not chunked or compact) */
	uint64_t stored;   /* bytes stored for it (H5Dget_storage_size()) */
	size_t elsize;	   /* bytes per element in the file */
	const char *label; /* path for messages, e.g. "events/durations" */
};

struct h5prof {
	struct h5prof_info info;
	char *path;
	char *qpath; /* path escaped for messages */
	hid_t file;
	struct stat st; /* the file as first seen (fstat); must not change */
	struct prow *rows;
	struct strmap names; /* region names */
	struct strmap strs;  /* per-row strings */
	size_t empty_id;     /* id of "" in strs */
	size_t notags_id;    /* id of "[]" in strs */
	char **name_ptrs;
	struct h5prof_meta *meta;
	char **rank_groups; /* schema 1: rank group names, numeric order */
	size_t nrank_groups;
	int delta;	       /* columnar: start_deltas + durations */
	struct h5col ev[EV_N]; /* columnar: the event columns (EV_*) */
	uint64_t nev;	       /* length of the event columns */
	uint64_t max_count;    /* largest row */
	uint64_t piece_min;    /* columnar: rows this long go in pieces; 0: none */
	uint64_t *rank_calls;  /* with piece_min: each rank's calls (h5prof_row) */
	size_t rank_calls_n;   /* its length: ranks below it are counted */
	struct h5span *spans;  /* schema 1: where datasets lie (h5direct.c) */
	size_t nspans, spans_cap;
	int direct; /* schema 1: 1 spans are read, -1 not (a user block), 0 not known */
};

/* A growable list of malloc'ed strings (zero-initialize it). */
struct h5names {
	char **v;
	size_t n, cap;
	int failed; /* a push failed inside an HDF5 iteration callback */
};

/* The current row's events in their final form (capacity cap each);
 * gpu and col[EV_CID..EV_TASK] only when asked for (h5prof_rowbuf_reserve),
 * else NULL. */
struct h5rowbuf {
	int64_t *starts, *durs, *gpu;
	int64_t *col[EV_N];
	size_t cap;
};

/* Index columns of rank_region_index (schema 2/3), in the order they are
 * opened and checked (h5index.c holds their names and types). */
enum {
	IX_REGION,
	IX_RANK,
	IX_OFFSET, /* columnar */
	IX_COUNT,
	IX_EXCL,
	IX_ACOUNT, /* aggregate */
	IX_ATOTAL,
	IX_AMIN,
	IX_AMAX,
	IX_AEXCL,
	IX_LINE, /* both */
	IX_FILE,
	IX_TEXT,
	IX_TAGS,
	IX_SUMMARY, /* only checked for its length */
	IX_N
};

/* ---- h5prof.c: messages and rows ---- */

/* s escaped for a one-line message (one of four rotating static buffers). */
const char *h5prof_q(const char *s);
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
int h5prof_fail(const struct h5prof *p, int code, const char *fmt, ...);
/* Whether the calling thread's HDF5 error stack says an allocation failed
 * (the real cause of a failed read under a memory limit). */
int h5prof_hdf5_nomem(void);
/* "WHAT 'LABEL'; the file is truncated or damaged" (label may be NULL), or
 * "WHAT 'LABEL': out of memory" (ERR_NOMEM) when h5prof_hdf5_nomem(). */
int h5prof_damaged(const struct h5prof *p, const char *what, const char *label);
/* "rank 1, region 'solve'" (one of two rotating static buffers). */
const char *h5prof_rowdesc(const struct h5prof *p, const struct prow *r);
/* Normalize a tags list to compact JSON and intern it in p->strs. */
int h5prof_intern_tags(struct h5prof *p, const char *const *tags, size_t n, size_t *out);
void h5prof_fill_row(const struct h5prof *p, const struct prow *r, struct h5prof_row *out);
/* The calls of all of rank's rows, when pieces were asked for (0: not
 * counted). */
uint64_t h5prof_rank_calls(const struct h5prof *p, uint32_t rank);
/* Whether row r is handed out in pieces (h5prof_set_piece_min()): a row
 * of piece_min calls or more, or of a quarter of that in a rank of as
 * many. */
int h5prof_in_pieces(const struct h5prof *p, const struct prow *r);
/* The largest row a read holds whole: rows in pieces are never held. */
uint64_t h5prof_max_whole(const struct h5prof *p);
/* Room for n events in b's times arrays, in its GPU array when bit EV_GPU
 * of cols is set, and in col[k] for each k in EV_CID..EV_TASK with bit k
 * set (an array reserved before keeps growing with the others). */
int h5prof_rowbuf_reserve(struct h5rowbuf *b, size_t n, unsigned cols);
void h5prof_rowbuf_release(struct h5rowbuf *b);

/* ---- h5meta.c ---- */

/* Read /metadata into p->meta (sorted by key) and p->info.num_meta; a
 * file without the group has none. */
int h5prof_read_meta(struct h5prof *p);

/* ---- h5util.c: datasets, attributes, strings ---- */

const char *h5util_class_name(hid_t type);
void h5util_close_type(hid_t *id);
void h5util_close_space(hid_t *id);
/* Append a copy of s to l, for an HDF5 iteration callback: -1 (and
 * l->failed) on error. */
herr_t h5names_push_cb(struct h5names *l, const char *s);
/* Free l's strings and array and leave it empty (accepts NULL). */
void h5names_release(struct h5names *l);
int h5util_exists(const struct h5prof *p, hid_t loc, const char *path);
/* Refuse link name of group loc unless it is a hard link or a soft link
 * resolving to an object of the file (label names it in messages). */
int h5util_link_check(const struct h5prof *p, hid_t loc, const char *name, const char *label);
H5O_type_t h5util_objtype(hid_t loc, const char *path);
void h5col_init(struct h5col *c);
void h5col_close(struct h5col *c);
/* Forget the transfer properties made once a process: libhdf5 was closed
 * (h5prof_reset()), which closed them. */
void h5util_forget(void);

/* Re-open c with a chunk cache that holds one whole chunk of it (loc and
 * path as given to h5col_open), so that reads of parts of a chunk
 * decompress it once. */
int h5col_cache_chunk(const struct h5prof *p, struct h5col *c, hid_t loc, const char *path);
int h5col_open(const struct h5prof *p, struct h5col *c, hid_t loc, const char *path,
	       const char *label, H5T_class_t want_class, const char *expect, int required);
int h5col_read_i64(const struct h5prof *p, const struct h5col *c, int64_t *out);
int h5col_read_u64(const struct h5prof *p, const struct h5col *c, uint64_t *out, uint64_t max);
typedef int (*h5util_str_fn)(void *ctx, size_t i, const char *s);
int h5util_read_strings(const struct h5prof *p, hid_t obj, int attr, hid_t ftype, hid_t space,
			size_t n, const char *label, h5util_str_fn fn, void *ctx);
int h5util_attr_strings(const struct h5prof *p, hid_t attr, const char *label, struct h5names *out,
			int *scalar);
/* Refuse an attribute declaring more bytes than the file's size. */
int h5util_attr_size_check(const struct h5prof *p, hid_t type, hid_t space, const char *label);
int h5util_attr_i64(const struct h5prof *p, hid_t attr, const char *label, int64_t *out);
int h5util_attr_open(const struct h5prof *p, hid_t obj, const char *name, const char *label,
		     hid_t *out);

/* ---- one file per layout ---- */

/* Schema 1: index every rank and region group; stream the rows. */
int h5hier_open(struct h5prof *p);
int h5hier_read(struct h5prof *p, h5prof_row_fn fn, void *ctx);

/* Schema 2/3: read and validate region_table and rank_region_index. */
int h5index_open(struct h5prof *p);
/* The index checks on p->rows (also run by h5prof_validate_index()). */
int h5index_check_regions(const struct h5prof *p);
int h5index_count_events(struct h5prof *p);
int h5index_check(struct h5prof *p);

/* Columnar layout: open the event columns; store event_offsets,
 * event_counts and exclusive_totals of the index (u, s: num_rows scratch
 * values); stream the rows. */
int h5columnar_open_events(struct h5prof *p);
int h5columnar_read_index(struct h5prof *p, const struct h5col *ix, uint64_t *u, int64_t *s);
int h5columnar_read(struct h5prof *p, h5prof_row_fn fn, void *ctx);
void h5columnar_set_window(size_t n);
/* Raw event columns of row r (a = starts or deltas, e = ends or durations)
 * to absolute starts and durations, with the checks of section 6.3. */
int h5columnar_decode(const struct h5prof *p, const struct prow *r, int delta, const int64_t *a,
		      const int64_t *e, int64_t *starts, int64_t *durs, const int64_t **out_starts,
		      const int64_t **out_durs);
/* The same for calls first..first + n of row r (a piece of it), the
 * deltas summed on from *run (0 at the row's first call). */
int h5columnar_decode_part(const struct h5prof *p, const struct prow *r, int delta,
			   const int64_t *a, const int64_t *e, uint64_t n, uint64_t first,
			   int64_t *run, int64_t *starts, int64_t *durs, const int64_t **out_starts,
			   const int64_t **out_durs);
/* Events per window over the columns c[0..n) (the open ones): the window
 * (h5prof_set_chunk_events()), or a whole compressed chunk when that is
 * longer, up to h5columnar_max_window(); rounded down to whole chunks of
 * c[0] when they fit.  Compressed chunks longer than the longest window
 * need a one-chunk cache (h5col_cache_chunk()). */
hsize_t h5columnar_window_of(const struct h5col *c, size_t n);
hsize_t h5columnar_max_window(void);

/* Gzip event chunks inflated outside libhdf5 (h5inflate.c): the scratch of
 * one reading thread, owned by it (h5inflate_release() accepts a zeroed
 * one); which columns qualify; a window read, 1 when libhdf5 must read it. */
struct h5inflate {
	struct libdeflate_decompressor *dz;
	unsigned char *raw, *out;
	size_t raw_cap, out_cap;
};
/* The first two filters of a chunked dataset's pipeline (n: how many it
 * has), each with its number of parameters and its first one, and
 * whether partial edge chunks are stored unfiltered. */
struct h5filters {
	int n;
	H5Z_filter_t id[2];
	size_t ncd[2];
	unsigned cd0[2];
	int raw_edges;
};
int h5inflate_kind(hid_t type, hsize_t chunk, const struct h5filters *f);
int h5inflate_read(const struct h5col *c, hsize_t start, hsize_t count, int64_t *dst,
		   struct h5inflate *z);
void h5inflate_release(struct h5inflate *z);
/* Inflate one stored chunk (stored bytes at raw) of a column of chunks of
 * chunk values, filtered as kind (h5inflate_kind()), into its first m
 * values at dst: 0, or 1 when it does not inflate to exactly one chunk.
 * No libhdf5 call: any thread may, with its own z. */
int h5inflate_decode(int kind, hsize_t chunk, const unsigned char *raw, size_t stored, size_t m,
		     int64_t *dst, struct h5inflate *z);
/* The longest stream a chunk of chunk values may be stored as. */
size_t h5inflate_most(hsize_t chunk);
/* Grow *buf to at least n bytes: 0, or -1 (no memory). */
int h5inflate_room(unsigned char **buf, size_t *cap, size_t n);

/*
 * Schema 1's datasets read without libhdf5 (h5direct.c): where each
 * dataset of a row lies in the file, asked of libhdf5 when the file is
 * opened (h5direct_add()), so that h5hier_read() reads a row with pread()
 * and h5inflate_decode() instead of opening its group and datasets again
 * (libhdf5's metadata work was most of a plain schema-1 read).  A span is
 * one extent: a contiguous dataset whole, or one chunk.  A row's spans
 * are p->spans[r->offset, r->offset + r->nspan); a row without (nspan 0)
 * is read through libhdf5.
 */
struct h5span {
	uint64_t addr;	/* its byte offset in the file */
	uint64_t first; /* the index of its first value in the dataset */
	uint32_t size;	/* bytes stored */
	uint32_t nvals; /* values it gives */
	uint32_t chunk; /* chunked: values a chunk (inflated whole), else 0 */
	uint8_t ev;	/* where they go: EV_A starts, EV_E durs (the end
			   times), EV_GPU gpu, else col[ev] of h5rowbuf */
	uint8_t kind;	/* 0: the values as stored, else h5inflate_kind() */
};
/* Record where open dataset c (values for h5rowbuf array ev) lies: 0, or
 * 1 when it cannot be read directly (then nothing is recorded for it,
 * and the caller drops the row's spans). */
int h5direct_add(struct h5prof *p, const struct h5col *c, unsigned ev);
/* Read row r into b (reserved for it and its columns) through its spans,
 * from descriptor fd (h5direct_fd()): 0, or 1 when it has none, or any
 * read or inflate fails (then read the row through libhdf5, which says
 * why).  No libhdf5 call: any thread may, with its own z. */
int h5direct_read(const struct h5prof *p, const struct prow *r, int fd, struct h5rowbuf *b,
		  struct h5inflate *z);
/* The descriptor h5direct_read() reads (libhdf5's own), or -1 when no
 * row is read directly (no spans, a user block, or the testing hook). */
int h5direct_fd(const struct h5prof *p);

/* Aggregate layout: store the aggregate_* index columns; stream the rows. */
int h5aggregate_read_index(struct h5prof *p, const struct h5col *ix, uint64_t *u, int64_t *s);
int h5aggregate_read(struct h5prof *p, h5prof_row_fn fn, void *ctx);

#endif
