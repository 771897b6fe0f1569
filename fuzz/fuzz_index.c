/*
 * fuzz_index.c - libFuzzer target for the columnar index validation of the
 * HDF5 reader (h5prof_validate_index, the same code h5prof_open() runs on
 * every file's rank_region_index).
 *
 * Input layout: byte 0 flags (bit 0 aggregate), byte 1 number of region
 * names, bytes 2..9 the event column length (little endian), then rows of
 * 20 bytes: region id (1 byte), rank (3 bytes, the third shifted to the top
 * of the uint32), offset and count (8 bytes each, little endian).  Small
 * ids and ranks make duplicates and overlaps likely; offsets and counts are
 * full 64-bit so overflows are reachable.
 * Accepted indexes are re-checked independently: every row within the event
 * columns, no duplicate (rank, region), no overlap.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scopedb/err.h"
#include "scopedb/h5prof.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define ROW_BYTES 20

static uint64_t le64(const uint8_t *p)
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

/* Independent re-check of an accepted index (quadratic; inputs are small). */
static void recheck(const struct h5prof_index *x)
{
	size_t i, j;
	uint64_t total = 0;

	for (i = 0; i < x->num_rows; i++) {
		if (x->region_ids[i] >= x->num_names)
			abort();
		if (total + x->counts[i] < total || total + x->counts[i] > (uint64_t)INT64_MAX)
			abort();
		total += x->counts[i];
		if (x->aggregate)
			continue;
		if (x->offsets[i] + x->counts[i] < x->offsets[i] ||
		    x->offsets[i] + x->counts[i] > x->num_events)
			abort();
	}
	for (i = 0; i < x->num_rows; i++) {
		for (j = i + 1; j < x->num_rows; j++) {
			if (x->ranks[i] == x->ranks[j] && x->region_ids[i] == x->region_ids[j])
				abort();
			if (x->aggregate || !x->counts[i] || !x->counts[j])
				continue;
			if (x->offsets[i] < x->offsets[j] + x->counts[j] &&
			    x->offsets[j] < x->offsets[i] + x->counts[i])
				abort();
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct h5prof_index x;
	uint32_t *reg, *rank;
	uint64_t *off, *cnt;
	size_t n, i;
	int rc;

	if (size < 10)
		return 0;
	n = (size - 10) / ROW_BYTES;
	if (n > 4096)
		n = 4096;
	reg = calloc(n + 1, sizeof(*reg));
	rank = calloc(n + 1, sizeof(*rank));
	off = calloc(n + 1, sizeof(*off));
	cnt = calloc(n + 1, sizeof(*cnt));
	if (!reg || !rank || !off || !cnt)
		goto out;
	for (i = 0; i < n; i++) {
		const uint8_t *r = data + 10 + i * ROW_BYTES;

		reg[i] = r[0];
		rank[i] = (uint32_t)r[1] | (uint32_t)r[2] << 8 | (uint32_t)r[3] << 24;
		off[i] = le64(r + 4);
		cnt[i] = le64(r + 12);
	}
	memset(&x, 0, sizeof(x));
	x.aggregate = data[0] & 1;
	x.num_names = data[1];
	x.num_events = le64(data + 2);
	x.num_rows = n;
	x.region_ids = reg;
	x.ranks = rank;
	x.offsets = off;
	x.counts = cnt;
	rc = h5prof_validate_index("fuzz.h5", &x);
	if (rc == 0)
		recheck(&x);
	else if (rc != ERR_FORMAT && rc != ERR_NOMEM)
		abort();
out:
	free(reg);
	free(rank);
	free(off);
	free(cnt);
	return 0;
}
