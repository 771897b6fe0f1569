/*
 * test_wire.c - the frames between the reader child and the store's
 * process (src/ingest/wire.c, issue 13): every frame type round-trips
 * through a pipe, incomplete frames are not delivered, and malformed
 * payloads (a region id out of range, a length past the frame, a bad hash,
 * counts larger than the frame) are errors, never reads out of bounds.
 */
#include <string.h>
#include <unistd.h>

#include "ingest/wire.h"
#include "scopedb/err.h"
#include "testutil.h"

/* Everything written to w, read back from the pipe's other end. */
static void drain(int fd, struct buf *out)
{
	char b[4096];
	ssize_t n;

	while ((n = read(fd, b, sizeof(b))) > 0)
		assert_int_equal(buf_add(out, b, (size_t)n), 0);
}

static void test_round_trip(void **state)
{
	char n0[] = "main", n1[] = "solve \"x\"\n", k0[] = "label", v0[] = "run", k1[] = "tags",
	     v1[] = "[\"a\"]";
	char *names[] = {n0, n1};
	struct h5prof_meta meta[] = {{k0, v0, 0}, {k1, v1, 1}};
	struct h5prof_info info = {"p.h5", 3, H5PROF_COLUMNAR, 4, 2, names, 8, 1234, 2, meta};
	const unsigned char blob[] = {1, 3, 0, 5, 200};
	struct store_timing t, back;
	struct wire_out w;
	struct wire_info wi;
	struct wire_frame f;
	struct buf got = BUF_INIT;
	char hex[65], msg[64];
	size_t pos = 0;
	uint32_t region;
	int p[2], code;

	(void)state;
	memset(&t, 0, sizeof(t));
	t.rank = 3;
	t.has_events = 1;
	t.calls = 3;
	t.total = 30;
	t.min = 5;
	t.max = 15;
	t.mean = 10.0;
	t.m2 = 50.5;
	t.exclusive = -1;
	t.source_line = 42;
	t.source_file = "a.py";
	t.source_text = "";
	t.tags_json = "[]";
	t.durations = blob;
	t.durations_len = sizeof(blob);
	assert_int_equal(pipe(p), 0);
	wire_out_init(&w, p[1]);
	assert_int_equal(wire_put_info(&w, &info), 0);
	assert_int_equal(wire_put_row(&w, &t, 1), 0);
	assert_int_equal(wire_put_hash(&w, "0123456789abcdef0123456789abcdef"
					   "0123456789abcdef0123456789abcdef"),
			 0);
	assert_int_equal(wire_put_error(&w, ERR_FORMAT, "cannot read 'p.h5': bad"), 0);
	assert_int_equal(wire_put_end(&w), 0);
	assert_int_equal(wire_flush(&w), 0);
	wire_out_release(&w);
	close(p[1]);
	drain(p[0], &got);
	close(p[0]);

	/* no frame until it is complete */
	assert_int_equal(wire_next(got.data, 4, &pos, &f), 0);
	assert_int_equal(wire_next(got.data, WIRE_HEADER + 3, &pos, &f), 0);
	assert_int_equal(pos, 0);

	assert_int_equal(wire_next(got.data, got.len, &pos, &f), 1);
	assert_int_equal(f.type, WIRE_INFO);
	assert_int_equal(wire_get_info(&wi, &f, "p.h5"), 0);
	assert_int_equal(wi.info.schema, 3);
	assert_int_equal(wi.info.layout, H5PROF_COLUMNAR);
	assert_int_equal(wi.info.num_ranks, 4);
	assert_int_equal(wi.info.num_regions, 2);
	assert_int_equal(wi.info.num_rows, 8);
	assert_int_equal(wi.info.num_events, 1234);
	assert_string_equal(wi.info.region_names[1], "solve \"x\"\n");
	assert_string_equal(wi.info.meta[1].value, "[\"a\"]");
	assert_int_equal(wi.info.meta[1].is_array, 1);
	wire_info_release(&wi);

	assert_int_equal(wire_next(got.data, got.len, &pos, &f), 1);
	assert_int_equal(f.type, WIRE_ROW);
	assert_int_equal(wire_row_calls(&f), 3);
	assert_int_equal(wire_get_row(&back, &region, &f, 2), 0);
	assert_int_equal(region, 1);
	assert_int_equal(back.rank, 3);
	assert_int_equal(back.calls, 3);
	assert_int_equal(back.max, 15);
	assert_true(back.m2 == 50.5);
	assert_int_equal(back.exclusive, -1);
	assert_int_equal(back.source_line, 42);
	assert_string_equal(back.source_file, "a.py");
	assert_string_equal(back.tags_json, "[]");
	assert_int_equal(back.durations_len, sizeof(blob));
	assert_memory_equal(back.durations, blob, sizeof(blob));
	/* a region id beyond the file's regions */
	assert_int_not_equal(wire_get_row(&back, &region, &f, 1), 0);

	assert_int_equal(wire_next(got.data, got.len, &pos, &f), 1);
	assert_int_equal(f.type, WIRE_HASH);
	assert_int_equal(wire_get_hash(hex, &f), 0);
	assert_string_equal(hex,
			    "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef");

	assert_int_equal(wire_next(got.data, got.len, &pos, &f), 1);
	assert_int_equal(f.type, WIRE_ERROR);
	assert_int_equal(wire_get_error(&code, msg, sizeof(msg), &f), 0);
	assert_int_equal(code, ERR_FORMAT);
	assert_string_equal(msg, "cannot read 'p.h5': bad");

	assert_int_equal(wire_next(got.data, got.len, &pos, &f), 1);
	assert_int_equal(f.type, WIRE_END);
	assert_int_equal(wire_next(got.data, got.len, &pos, &f), 0);
	assert_int_equal(pos, got.len);
	buf_release(&got);
}

/* Payloads a misbehaving reader could send. */
static void test_malformed(void **state)
{
	unsigned char b[256];
	struct wire_frame f = {WIRE_ROW, b, 0};
	struct wire_info wi;
	struct store_timing t;
	uint32_t region;
	uint64_t big = UINT64_MAX;
	char hex[65], msg[16];
	int code;

	(void)state;
	memset(b, 0, sizeof(b));
	/* too short for a row's numbers */
	f.len = 40;
	assert_int_not_equal(wire_get_row(&t, &region, &f, 10), 0);
	assert_int_equal(wire_row_calls(&f), 0);
	/* info claiming 2^64-1 regions in a 64-byte frame */
	f.type = WIRE_INFO;
	f.len = 64;
	memcpy(b + 24, &big, sizeof(big));
	assert_int_not_equal(wire_get_info(&wi, &f, "x"), 0);
	assert_null(wi.info.region_names);
	/* a string length past the frame */
	memset(b, 0, sizeof(b));
	f.type = WIRE_ERROR;
	b[0] = 0xfc; /* ERR_FORMAT, little-endian two's complement */
	memset(b + 1, 0xff, 7);
	memcpy(b + 8, &big, sizeof(big));
	f.len = 20;
	assert_int_not_equal(wire_get_error(&code, msg, sizeof(msg), &f), 0);
	/* a hash that is not 64 lowercase hex digits */
	memset(b, 'A', 64);
	f.type = WIRE_HASH;
	f.len = 64;
	assert_int_not_equal(wire_get_hash(hex, &f), 0);
	f.len = 63;
	assert_int_not_equal(wire_get_hash(hex, &f), 0);
}

TU_MAIN(NULL, NULL, {cmocka_unit_test(test_round_trip), cmocka_unit_test(test_malformed)})
