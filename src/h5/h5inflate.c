/*
 * h5inflate.c - the event columns' gzip chunks (and schema 1's per-call
 * datasets', h5hier.c and h5direct.c) read raw and inflated here
 * (libdeflate) rather than through libhdf5's filter pipeline (zlib), which
 * took 83 % of the CPU of reading a gzip profile; libdeflate's inflate and
 * Adler-32 take about a third of that (bench/RESULTS.md, issue 26).
 *
 * Only the common case is taken: a chunked int64 column whose filters are
 * deflate, or shuffle then deflate (docs/format.md), read in windows of
 * whole chunks.  Anything else, and any chunk this code does not fully
 * vouch for (not allocated, a filter skipped, a compressed size out of
 * bounds, a stream that is not exactly one chunk), is left to libhdf5: the
 * caller then reads the window with H5Dread, which gives what it always
 * gave, values or its error.  So this is a faster path to the same values,
 * never a second reader with its own rules.  The limits h5col_check_storage()
 * applies at open hold for both paths.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>
#include <libdeflate.h>

#include "h5/h5_internal.h"

/* Chunks inflated here, process-wide (testing hook: h5prof_inflated_chunks). */
static _Atomic unsigned long h5inflate_count;

unsigned long h5prof_inflated_chunks(void)
{
	return h5inflate_count;
}

/* The filter i of f is one libhdf5 would run as deflate: one parameter,
 * a level of at most 9 (H5Z_filter_deflate() refuses anything else). */
static int h5inflate_deflate(const struct h5filters *f, int i)
{
	return f->id[i] == H5Z_FILTER_DEFLATE && f->ncd[i] == 1 && f->cd0[i] <= 9;
}

/*
 * The fast path of column c (h5col_check_storage() calls it once the
 * filters are known): 2 for shuffle then deflate, 1 for deflate alone,
 * 0 otherwise, also when libhdf5 would refuse the filters' parameters
 * (shuffle's one parameter is the element size) or store partial edge
 * chunks unfiltered.
 */
int h5inflate_kind(hid_t type, hsize_t chunk, const struct h5filters *f)
{
	if (chunk == 0 || chunk > (hsize_t)(SIZE_MAX / 16) || f->raw_edges ||
	    H5Tequal(type, H5T_NATIVE_INT64) <= 0)
		return 0;
	if (f->n == 1 && h5inflate_deflate(f, 0))
		return 1;
	if (f->n == 2 && f->id[0] == H5Z_FILTER_SHUFFLE && f->ncd[0] == 1 &&
	    f->cd0[0] == sizeof(int64_t) && h5inflate_deflate(f, 1))
		return 2;
	return 0;
}

void h5inflate_release(struct h5inflate *z)
{
	if (!z)
		return;
	if (z->dz)
		libdeflate_free_decompressor(z->dz);
	free(z->raw);
	free(z->out);
	memset(z, 0, sizeof(*z));
}

/* Grow *buf to at least n bytes; 0 on success. */
int h5inflate_room(unsigned char **buf, size_t *cap, size_t n)
{
	unsigned char *b;

	if (*cap >= n)
		return 0;
	b = realloc(*buf, n);
	if (!b)
		return -1;
	*buf = b;
	*cap = n;
	return 0;
}

/*
 * Undo HDF5's shuffle of a chunk of n int64 values (byte b of every value
 * stored together, b = 0..7) into its first m values at dst: byte b of
 * plane b back in place b, so the values keep the file's byte order (the
 * native one: h5inflate_kind()).  Sequential reads from the eight planes,
 * one 8-byte store per value.
 */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define H5INFLATE_AT(b) (56 - 8 * (b)) /* the shift that puts a byte at offset b */
#else
#define H5INFLATE_AT(b) (8 * (b))
#endif

static void h5inflate_unshuffle(const unsigned char *in, size_t n, size_t m, int64_t *dst)
{
	const unsigned char *b0 = in, *b1 = in + n, *b2 = in + 2 * n, *b3 = in + 3 * n;
	const unsigned char *b4 = in + 4 * n, *b5 = in + 5 * n, *b6 = in + 6 * n, *b7 = in + 7 * n;
	size_t i;

	for (i = 0; i < m; i++) {
		uint64_t v =
		    (uint64_t)b0[i] << H5INFLATE_AT(0) | (uint64_t)b1[i] << H5INFLATE_AT(1) |
		    (uint64_t)b2[i] << H5INFLATE_AT(2) | (uint64_t)b3[i] << H5INFLATE_AT(3) |
		    (uint64_t)b4[i] << H5INFLATE_AT(4) | (uint64_t)b5[i] << H5INFLATE_AT(5) |
		    (uint64_t)b6[i] << H5INFLATE_AT(6) | (uint64_t)b7[i] << H5INFLATE_AT(7);

		memcpy(&dst[i], &v, sizeof(v));
	}
}

int h5inflate_decode(int kind, hsize_t chunk, const unsigned char *raw, size_t stored, size_t m,
		     int64_t *dst, struct h5inflate *z)
{
	size_t bytes = (size_t)chunk * sizeof(int64_t);
	unsigned char *out;

	if (!z->dz && !(z->dz = libdeflate_alloc_decompressor()))
		return 1;
	/* deflate alone, a whole chunk: straight into place */
	out = kind == 1 && m == chunk ? (unsigned char *)dst : NULL;
	if (!out) {
		if (h5inflate_room(&z->out, &z->out_cap, bytes))
			return 1;
		out = z->out;
	}
	/* NULL actual size: the stream must give exactly one chunk */
	if (libdeflate_zlib_decompress(z->dz, raw, stored, out, bytes, NULL) != LIBDEFLATE_SUCCESS)
		return 1;
	if (kind == 2)
		h5inflate_unshuffle(out, (size_t)chunk, m, dst);
	else if (out != (unsigned char *)dst)
		memcpy(dst, out, m * sizeof(int64_t));
	h5inflate_count++;
	return 0;
}

size_t h5inflate_most(hsize_t chunk)
{
	size_t bytes = (size_t)chunk * sizeof(int64_t);

	/* deflate's stored blocks add 5 bytes per 64 KiB, zlib 6 in all:
	 * anything longer is not one chunk's stream */
	return bytes + bytes / 1024 + 64;
}

/*
 * Inflate the chunk at event off of c into dst (its first m values): 0, or
 * 1 when it is not vouched for (see the top of the file).
 */
static int h5inflate_chunk(const struct h5col *c, hsize_t off, size_t m, int64_t *dst,
			   struct h5inflate *z)
{
	hsize_t stored = 0;
	uint32_t mask = 0;

	if (H5Dget_chunk_storage_size(c->dset, &off, &stored) < 0 || stored == 0 ||
	    stored > h5inflate_most(c->chunk))
		return 1;
	if (h5inflate_room(&z->raw, &z->raw_cap, (size_t)stored))
		return 1;
	if (H5Dread_chunk(c->dset, H5P_DEFAULT, &off, &mask, z->raw) < 0 || mask != 0)
		return 1;
	return h5inflate_decode(c->inflate, c->chunk, z->raw, (size_t)stored, m, dst, z);
}

/*
 * Read events [start, start + count) of column c into dst by inflating its
 * chunks here: 0, or 1 when the caller must read them through libhdf5
 * instead (the column or this window is not for this path, or one of its
 * chunks is not vouched for; dst may then hold part of the window).  The
 * window must start on a chunk and end on one or at the column's end.
 */
int h5inflate_read(const struct h5col *c, hsize_t start, hsize_t count, int64_t *dst,
		   struct h5inflate *z)
{
	hsize_t off, end = start + count;

	if (!c->inflate || start % c->chunk != 0 || (count % c->chunk != 0 && end != c->n) ||
	    end > c->n)
		return 1;
	for (off = start; off < end; off += c->chunk) {
		size_t m = (size_t)(end - off < c->chunk ? end - off : c->chunk);

		if (h5inflate_chunk(c, off, m, dst + (off - start), z))
			return 1;
	}
	return 0;
}
