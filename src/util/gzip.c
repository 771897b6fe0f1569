/*
 * gzip.c - one gzip member of a whole buffer (gzip.h), with zlib's
 * deflate at its default level: the files are written once and read
 * many times, by scopedb and by upstream's tools.
 */
#include <stdint.h>
#include <string.h>
#include <zlib.h>

#include "scopedb/err.h"
#include "util/gzip.h"

#define GZIP_OUT ((size_t)64 << 10)
#define GZIP_IN ((size_t)1 << 30) /* avail_in is 32 bits */

int gzip_buf(struct buf *out, const void *in, size_t len)
{
	const unsigned char *p = in;
	size_t off = 0;
	z_stream z;
	int zrc = Z_OK, flush;

	memset(&z, 0, sizeof(z));
	/* windowBits 15 + 16: a gzip header and trailer around the stream */
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
	    Z_OK)
		return err_nomem();
	do {
		size_t chunk = len - off > GZIP_IN ? GZIP_IN : len - off;

		flush = off + chunk == len ? Z_FINISH : Z_NO_FLUSH;
		z.next_in = (Bytef *)(uintptr_t)(p + off);
		z.avail_in = (uInt)chunk;
		do {
			if (buf_grow(out, GZIP_OUT)) {
				deflateEnd(&z);
				return err_nomem();
			}
			z.next_out = (Bytef *)out->data + out->len;
			z.avail_out = (uInt)GZIP_OUT;
			zrc = deflate(&z, flush);
			out->len += GZIP_OUT - z.avail_out;
		} while (z.avail_out == 0 && zrc != Z_STREAM_END);
		off += chunk;
	} while (flush != Z_FINISH);
	deflateEnd(&z);
	out->data[out->len] = '\0';
	return zrc == Z_STREAM_END ? 0 : err_set(ERR_NOMEM, "cannot compress: zlib error %d", zrc);
}
