/*
 * wire.h - a parsed profile as a byte stream, from the reader process to
 * the process that owns the store (issue 13).
 *
 * The reader child (ingest.c) writes frames: one WIRE_INFO (the file's
 * h5prof_info), one WIRE_ROW per (rank, region) row (its summary, its
 * source strings and tags, its sorted and encoded durations), one
 * WIRE_HASH (the content SHA-256) anywhere after INFO, then WIRE_END, or a
 * WIRE_ERROR (error code and message) instead.  The call trees of the
 * file (docs/format.md section 10, src/ingest/calltree.h) follow each
 * rank's rows: one WIRE_NEST per rank with event rows (what became of its
 * tree), WIRE_NODE for each path the first time a WIRE_PATH uses it (ids
 * 0, 1, 2... in order, parents first), one WIRE_PATH per (path, rank)
 * with its numbers and its outermost durations (sorted and encoded like a
 * row's), and one WIRE_SELF per (rank, region) whose self time is known.  A frame is a 4-byte
 * payload length, a type byte and the payload; integers are LEB128
 * varints (signed ones zigzag-encoded: most are small, and the store's
 * process holds every frame of a file), doubles and the length in the
 * machine's byte order (both ends are the same binary).  The parent
 * checks every length and index it decodes, so a reader that misbehaves
 * yields an error, never a read outside the buffer.
 *
 * Ownership: struct wire_out owns its buffer (wire_out_release()).  What
 * the decoders return points into the frame's bytes (valid while the
 * buffer holding them is unchanged), except the arrays of struct
 * wire_info, owned by it (wire_info_release()).
 */
#ifndef SCOPEDB_WIRE_H
#define SCOPEDB_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "ingest/calltree.h"
#include "scopedb/h5prof.h"
#include "scopedb/store.h"
#include "scopedb/util.h"

enum wire_type {
	WIRE_INFO = 1,
	WIRE_ROW = 2,
	WIRE_HASH = 3,
	WIRE_END = 4,
	WIRE_ERROR = 5,
	WIRE_NEST = 6,
	WIRE_NODE = 7,
	WIRE_PATH = 8,
	WIRE_SELF = 9,
};

/* Bytes of a frame before its payload. */
#define WIRE_HEADER 5

/* ---- writing (the reader child) ---- */

/* Frames are collected and written to fd in blocks of about 256 KiB. */
struct wire_out {
	int fd;
	struct buf b;
};

void wire_out_init(struct wire_out *w, int fd);
void wire_out_release(struct wire_out *w);
/* Write what is collected: 0, or ERR_IO (the parent is gone). */
int wire_flush(struct wire_out *w);

int wire_put_info(struct wire_out *w, const struct h5prof_info *info);
/* t's source strings, tags and durations (NULL: none) follow its numbers;
 * t->run_id and t->region_id are not sent (region: the file's id). */
int wire_put_row(struct wire_out *w, const struct store_timing *t, uint32_t region);
/* The same frame with t's blob (t->durations ignored) read from fd's
 * bytes [off, off + len) (a row never held whole, ingest_big.c): the
 * frame's start goes at once, then the blob a chunk at a time. */
int wire_put_row_spool(struct wire_out *w, const struct store_timing *t, uint32_t region, int fd,
		       uint64_t off, uint64_t len);
int wire_put_hash(struct wire_out *w, const char hex[65]);
int wire_put_end(struct wire_out *w);
/* inherited: the reader's address-space limit when it ran out of memory
 * under scopedb's own (child_memory_inherited()), else 0. */
int wire_put_error(struct wire_out *w, int code, const char *msg, uint64_t inherited);
int wire_put_nest(struct wire_out *w, const struct calltree_rankinfo *r);
int wire_put_node(struct wire_out *w, const struct calltree_node *n);
/* p's numbers and its durations encoded (blob_len bytes; p->durations is
 * not read); none (NULL, 0) when p->row_durations: they are the row's. */
int wire_put_path(struct wire_out *w, const struct calltree_path *p, const void *blob,
		  size_t blob_len);
int wire_put_self(struct wire_out *w, uint32_t rank, uint32_t region, int64_t self,
		  enum calltree_self_source source);

/* ---- reading (the parent) ---- */

struct wire_frame {
	enum wire_type type;
	const unsigned char *data;
	size_t len;
};

/* The complete frame at *pos of data[0..len): 1 (and *pos moved past it),
 * 0 when no whole frame is there yet. */
int wire_next(const void *data, size_t len, size_t *pos, struct wire_frame *f);

/* A decoded WIRE_INFO: info's strings point into the frame. */
struct wire_info {
	struct h5prof_info info;
};

/* 0, or ERR_FORMAT (malformed). info.path is set to path. */
int wire_get_info(struct wire_info *out, const struct wire_frame *f, const char *path);
void wire_info_release(struct wire_info *wi);

/* A WIRE_ROW into *t (strings and durations point into the frame) and its
 * region id (< num_regions, checked): 0 or ERR_FORMAT. */
int wire_get_row(struct store_timing *t, uint32_t *region, const struct wire_frame *f,
		 size_t num_regions);
/* The calls of a WIRE_ROW without decoding the rest (0 if malformed). */
uint64_t wire_row_calls(const struct wire_frame *f);
/* Its rank and region (< num_regions): 0 or ERR_GENERIC. */
int wire_row_key(uint32_t *rank, uint32_t *region, const struct wire_frame *f, size_t num_regions);
/* A WIRE_HASH's 64 hex digits into hex (NUL-terminated): 0 or ERR_FORMAT. */
int wire_get_hash(char hex[65], const struct wire_frame *f);
/* A WIRE_ERROR: its code (negative ERR_*), message (into msg, size n) and
 * the limit its reader ran out of memory under when that was scopedb's
 * own (bytes; 0: its own limit, or another error). */
int wire_get_error(int *code, char *msg, size_t n, uint64_t *inherited, const struct wire_frame *f);

/*
 * The nesting frames, each checked on its own (enums in range, counts not
 * negative, regions below num_regions, a node's parent below its id):
 * 0 or ERR_GENERIC ("the reader process sent malformed data").  What
 * depends on earlier frames (node ids in sequence, paths of known nodes)
 * is the reader's to check (ingest.c).
 */
int wire_get_nest(struct calltree_rankinfo *r, const struct wire_frame *f, size_t num_regions);
int wire_get_node(struct calltree_node *n, const struct wire_frame *f, size_t num_regions);

/* A decoded WIRE_PATH: its numbers (durations NULL) and the encoded
 * durations in the frame (blob_count() of them equals p.calls), or none
 * (blob NULL) when p.row_durations: the durations are those of the
 * WIRE_ROW of (rank, the node's region), which has p.calls calls. */
struct wire_path {
	struct calltree_path p;
	const unsigned char *blob;
	size_t blob_len;
};

int wire_get_path(struct wire_path *out, const struct wire_frame *f);
int wire_get_self(uint32_t *rank, uint32_t *region, int64_t *self,
		  enum calltree_self_source *source, const struct wire_frame *f,
		  size_t num_regions);

#endif
