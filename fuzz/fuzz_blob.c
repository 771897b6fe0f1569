/*
 * fuzz_blob.c - libFuzzer target for the duration BLOB decoder (blob.h), the
 * only code that parses timings_durations bytes read back from a store.
 *
 * Any input must decode or fail with ERR_FORMAT without reading out of
 * bounds; blob_count() must agree with the decoder; a blob that decodes must
 * re-encode to exactly the same bytes (the encoding is canonical: sorted
 * values, minimal varints, no trailing bytes).  blob_decode_to() into a
 * buffer of exactly the decoded size must give the same values, and into
 * one value less (an ASan-visible heap buffer) must refuse, not overflow.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "store/blob.h"
#include "scopedb/err.h"
#include "scopedb/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct i64vec v;
	struct buf b;
	uint64_t n = 0;
	int rc, crc;

	i64vec_init(&v);
	buf_init(&b);
	rc = blob_decode_append(&v, data, size);
	crc = blob_count(&n, data, size);
	if (rc == 0) {
		if (crc != 0 || n != v.len)
			abort();
		if (blob_encode(&b, v.v, v.len) != 0)
			abort();
		if (b.len != size || memcmp(b.data, data, size) != 0)
			abort();
		if (v.len > 0) {
			int64_t *to = malloc(v.len * sizeof(*to));
			size_t got = 0;

			if (!to)
				abort();
			if (blob_decode_to(to, v.len, &got, data, size) != 0 || got != v.len ||
			    memcmp(to, v.v, v.len * sizeof(*to)) != 0)
				abort();
			if (blob_decode_to(to, v.len - 1, &got, data, size) != ERR_FORMAT ||
			    got != 0)
				abort();
			free(to);
		}
	} else if (rc != ERR_FORMAT && rc != ERR_NOMEM) {
		abort();
	}
	buf_release(&b);
	i64vec_release(&v);
	return 0;
}
