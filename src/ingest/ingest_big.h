/*
 * ingest_big.h - a row the call tree will not hold (longer than it can,
 * or a long row of a rank that is), summarised and encoded by the reader
 * child without the reader ever holding it (issue 26: one region of 100M
 * calls read in bounded memory).  The readers hand such a row out in
 * pieces (profile_set_piece_min()); ingest_child.c gives each piece to
 * ingest_big_add() and, after the last, ingest_big_end() makes the row's
 * summary, bit for bit rowstat_compute()'s, and its blob, byte for byte
 * store_encode_durations()'s, in memory for a row of one group at most,
 * else on a spool file, from which the blob is passed on
 * (wire_put_row_spool()).  ingest_big.c says how.
 *
 * Ownership: struct ingest_big owns its spool (an unlinked temporary
 * file) and buffers until ingest_big_release(), which accepts a zeroed or
 * released struct.
 */
#ifndef SCOPEDB_INGEST_BIG_H
#define SCOPEDB_INGEST_BIG_H

#include <stdint.h>

#include "ingest/rowstat.h"
#include "scopedb/h5prof.h"
#include "scopedb/util.h"
#include "util/spool.h"

struct ingest_big {
	struct spool sp; /* the spool (sp.open: made) */
	uint64_t n;	 /* durations spooled */
	struct rowstat_scan scan;
	int64_t *io;	   /* a read or write buffer of BIG_IO values */
	size_t io_cap;	   /* its values */
	size_t nio;	   /* values in io not yet written */
	int64_t *part;	   /* the values of one group, to be sorted (kept) */
	uint64_t part_cap; /* its values */
	uint64_t blob;	   /* bytes of the blob written after the durations */
	int64_t last;	   /* the last value encoded */
	char where[600];   /* "cannot ingest 'PATH': rank R, region 'NAME'" */
	int mem;	   /* a row of one group at most: held in part, no spool */
	struct buf held;   /* with mem, after ingest_big_end(): the blob */
};

/* Take the next piece of a row (row->piece_len calls from
 * row->piece_from, in order; the first piece opens the spool).  path and
 * region_name name the row in errors: ERR_IO "cannot ingest 'PATH': rank
 * R, region 'NAME': cannot make a temporary file in 'DIR' ...", or write
 * or read it. */
int ingest_big_add(struct ingest_big *b, const struct h5prof_row *row, const char *path,
		   const char *region_name);

/* After the last piece: *rs the row's summary (ERR_FORMAT when a sum
 * overflows, worded by rowstat with path and region_name), and its blob:
 * in b->held when b->mem (a row of at most one group's calls, held in
 * memory: no spool), else at the spool's bytes [*off, *off + *len). */
int ingest_big_end(struct ingest_big *b, struct rowstat *rs, const char *path,
		   const char *region_name, uint32_t rank, uint64_t *off, uint64_t *len);

/* After a row: close the spool and free the buffers but the array of one
 * group's values, which the next row reuses (at most 64 MB). */
void ingest_big_done(struct ingest_big *b);

/* Close the spool and free every buffer; accepts NULL. */
void ingest_big_release(struct ingest_big *b);

/* Testing: values sorted at a time (0: the default, 2^23), buckets of a
 * histogram (0: the default, 2^16; at least 2) and values read or
 * written at a time (0: the default, 2^17). */
void ingest_big_testing_sizes(uint64_t part, unsigned buckets, size_t io);

#endif
