/*
 * test_wire.c - the frames between the reader child and the store's
 * process (src/ingest/wire.c, issue 13): every frame type round-trips
 * through a pipe, incomplete frames are not delivered, and malformed
 * payloads (a region id out of range, a length past the frame, a bad hash,
 * counts larger than the frame) are errors, never reads out of bounds.
 * The call-tree frames (issue 22) likewise, and the store's process's
 * checks across them (src/ingest/ingest_nest.c).
 */
#include <string.h>
#include <unistd.h>

#include "ingest/ingest_nest.h"
#include "ingest/wire.h"
#include "store/blob.h"
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
	const struct store_timing t = {.rank = 3,
				       .has_events = 1,
				       .calls = 3,
				       .total = 30,
				       .min = 5,
				       .max = 15,
				       .mean = 10.0,
				       .m2 = 50.5,
				       .exclusive = -1,
				       /* the integers' ends through their varints */
				       .start_min = INT64_MIN,
				       .end_max = INT64_MAX,
				       .first = -64,
				       .last = 64,
				       .source_line = 42,
				       .source_file = "a.py",
				       .source_text = "",
				       .tags_json = "[]",
				       .durations = blob,
				       .durations_len = sizeof(blob)};
	struct store_timing back;
	struct wire_out w;
	struct wire_info wi;
	struct wire_frame f;
	struct buf got = BUF_INIT;
	char hex[65], msg[64];
	size_t pos = 0;
	uint32_t region;
	int p[2], code;
	uint64_t inherited;

	(void)state;
	assert_int_equal(pipe(p), 0);
	wire_out_init(&w, p[1]);
	assert_int_equal(wire_put_info(&w, &info), 0);
	assert_int_equal(wire_put_row(&w, &t, 1), 0);
	assert_int_equal(wire_put_hash(&w, "0123456789abcdef0123456789abcdef"
					   "0123456789abcdef0123456789abcdef"),
			 0);
	assert_int_equal(wire_put_error(&w, ERR_FORMAT, "cannot read 'p.h5': bad", 0), 0);
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
	assert_true(back.start_min == INT64_MIN);
	assert_true(back.end_max == INT64_MAX);
	assert_true(back.first == -64 && back.last == 64);
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
	assert_int_equal(wire_get_error(&code, msg, sizeof(msg), &inherited, &f), 0);
	assert_int_equal(code, ERR_FORMAT);
	assert_string_equal(msg, "cannot read 'p.h5': bad");
	assert_int_equal(inherited, 0);

	assert_int_equal(wire_next(got.data, got.len, &pos, &f), 1);
	assert_int_equal(f.type, WIRE_END);
	assert_int_equal(wire_next(got.data, got.len, &pos, &f), 0);
	assert_int_equal(pos, got.len);
	buf_release(&got);
}

/* The test's own encoding of the frames' integers (wire.h): LEB128
 * varints, signed ones zigzag-encoded; each returns the bytes written. */
static size_t enc_u64(unsigned char *b, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		b[n++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	b[n++] = (unsigned char)v;
	return n;
}

static size_t enc_i64(unsigned char *b, int64_t v)
{
	return enc_u64(b, v < 0 ? ~((uint64_t)v << 1) : (uint64_t)v << 1);
}

/* f's payload: the n numbers of v, encoded into b. */
static void enc_frame(struct wire_frame *f, unsigned char *b, const int64_t *v, size_t n)
{
	size_t len = 0, i;

	for (i = 0; i < n; i++)
		len += enc_i64(b + len, v[i]);
	f->data = b;
	f->len = len;
}

/* Payloads a misbehaving reader could send. */
static void test_malformed(void **state)
{
	unsigned char b[256];
	struct wire_frame f = {WIRE_ROW, b, 0};
	struct wire_info wi;
	struct store_timing t;
	uint32_t region;
	char hex[65], msg[16];
	int code;
	uint64_t inherited;
	size_t n;

	(void)state;
	memset(b, 0, sizeof(b));
	/* too short for a row's 16 numbers */
	f.len = 10;
	assert_int_not_equal(wire_get_row(&t, &region, &f, 10), 0);
	assert_int_equal(wire_row_calls(&f), 0);
	/* info claiming 2^64-1 regions in a 64-byte frame */
	f.type = WIRE_INFO;
	n = enc_i64(b, 3);
	n += enc_i64(b + n, 0);
	n += enc_u64(b + n, 4);
	n += enc_u64(b + n, UINT64_MAX);
	f.len = 64;
	assert_int_not_equal(wire_get_info(&wi, &f, "x"), 0);
	assert_null(wi.info.region_names);
	/* a string length past the frame */
	memset(b, 0, sizeof(b));
	f.type = WIRE_ERROR;
	n = enc_i64(b, ERR_FORMAT);
	n += enc_u64(b + n, UINT64_MAX);
	f.len = n;
	assert_int_not_equal(wire_get_error(&code, msg, sizeof(msg), &inherited, &f), 0);
	/* an error of "x" without its limit, with a negative one, with a byte
	 * more; then whole */
	n = enc_i64(b, ERR_FORMAT);
	n += enc_u64(b + n, 1);
	b[n++] = 'x';
	b[n++] = '\0';
	f.len = n;
	inherited = 7;
	assert_int_not_equal(wire_get_error(&code, msg, sizeof(msg), &inherited, &f), 0);
	f.len = n + enc_i64(b + n, -1);
	assert_int_not_equal(wire_get_error(&code, msg, sizeof(msg), &inherited, &f), 0);
	f.len = n + enc_i64(b + n, 5) + 1;
	assert_int_not_equal(wire_get_error(&code, msg, sizeof(msg), &inherited, &f), 0);
	assert_int_equal(inherited, 7);
	f.len--;
	assert_int_equal(wire_get_error(&code, msg, sizeof(msg), &inherited, &f), 0);
	assert_int_equal(code, ERR_FORMAT);
	assert_string_equal(msg, "x");
	assert_int_equal(inherited, 5);
	/* a hash that is not 64 lowercase hex digits */
	memset(b, 'A', 64);
	f.type = WIRE_HASH;
	f.len = 64;
	assert_int_not_equal(wire_get_hash(hex, &f), 0);
	f.len = 63;
	assert_int_not_equal(wire_get_hash(hex, &f), 0);
}

/* The integers' ends: INT64_MIN and INT64_MAX through a frame and back;
 * a varint of more than 64 bits, or cut at the frame's end, refused. */
static void test_varints(void **state)
{
	static const int64_t ends[] = {0, -1, 1, 63, -64, 64, INT64_MAX, INT64_MIN};
	unsigned char b[64];
	struct wire_frame f = {WIRE_SELF, b, 0};
	uint32_t rank, region;
	int64_t self, v[4] = {1, 2, 0, CALLTREE_SELF_FILE};
	enum calltree_self_source src;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(ends) / sizeof(ends[0]); i++) {
		v[2] = ends[i] < 0 ? 0 : ends[i]; /* a self time is not negative */
		enc_frame(&f, b, v, 4);
		assert_int_equal(wire_get_self(&rank, &region, &self, &src, &f, 4), 0);
		assert_true(self == v[2]);
		f.len--; /* the last byte of the last number cut */
		assert_int_not_equal(wire_get_self(&rank, &region, &self, &src, &f, 4), 0);
	}
	/* signed numbers of a path frame, both ends: the total is any int64 >= 0,
	 * and a negative blob length is refused */
	for (i = 0; i < sizeof(ends) / sizeof(ends[0]); i++) {
		struct wire_path wp;
		const int64_t p[8] = {0, 0, 1, 0, ends[i], 0, 1, 0};

		enc_frame(&f, b, p, 8);
		f.type = WIRE_PATH;
		assert_int_equal(wire_get_path(&wp, &f) == 0, ends[i] >= 0);
		if (ends[i] >= 0)
			assert_true(wp.p.total == ends[i]);
	}
	/* a number cut after a byte that says more follow (150 is 300
	 * zigzagged: 0xac 0x02) */
	f.type = WIRE_SELF;
	f.len = enc_i64(b, 1) + enc_i64(b + 1, 2);
	f.len += enc_i64(b + f.len, 150) - 1;
	assert_true(b[f.len - 1] & 0x80);
	assert_int_not_equal(wire_get_self(&rank, &region, &self, &src, &f, 4), 0);
	/* a row whose calls are cut so: no calls, and refused by its key */
	f.type = WIRE_ROW;
	b[0] = 0x86; /* calls 3, more to follow, and nothing follows */
	f.len = 1;
	assert_int_equal(wire_row_calls(&f), 0);
	assert_int_not_equal(wire_row_key(&rank, &region, &f, 4), 0);
	b[1] = 0; /* the same, whole: 3 */
	f.len = 2;
	assert_int_equal(wire_row_calls(&f), 3);
	/* rank 1 as eleven bytes (ten continuation bytes), and a tenth byte
	 * that carries bits past the 64th */
	f.type = WIRE_SELF;
	f.type = WIRE_SELF;
	memset(b, 0x80, 10);
	b[0] = 0x82;
	b[10] = 0;
	f.len = 11 + enc_i64(b + 11, 2) + enc_i64(b + 12, 5) + enc_i64(b + 13, CALLTREE_SELF_FILE);
	assert_int_not_equal(wire_get_self(&rank, &region, &self, &src, &f, 4), 0);
	memset(b, 0xff, 9);
	b[9] = 0x02;
	f.len = 10 + enc_i64(b + 10, 2) + enc_i64(b + 11, 5) + enc_i64(b + 12, CALLTREE_SELF_FILE);
	assert_int_not_equal(wire_get_self(&rank, &region, &self, &src, &f, 4), 0);
}

/* Frames of the call trees written to a buffer (no pipe needed). */
static void nest_frames(struct buf *out, int bad)
{
	const struct calltree_rankinfo ri = {
	    .rank = 7,
	    .calls = 12,
	    .region_a = 1,
	    .region_b = 0,
	    .start_a = 10,
	    .end_a = 20,
	    .start_b = 15,
	    .end_b = 25,
	    /* region 0's call [15, 25] starts inside region 1's [10, 20] */
	    .status = CALLTREE_OVERLAP};
	struct calltree_node n0 = {0, -1, 1, 1}, n1 = {1, 0, 0, 2};
	struct calltree_path p0 = {
	    .rank = 3, .node = 0, .calls = 2, .total = 40, .self = 30, .row_durations = 1};
	struct calltree_path p1 = {
	    .rank = 3, .node = 1, .calls = 3, .nested = 2, .total = 17, .self = 17};
	const struct store_timing t = {.rank = 3, .has_events = 1, .calls = 2, .exclusive = -1};
	struct buf blob = BUF_INIT;
	const int64_t durs[] = {3, 5, 9};
	struct wire_out w;
	int fd[2];

	assert_int_equal(blob_encode(&blob, durs, 3), 0);
	assert_int_equal(pipe(fd), 0);
	wire_out_init(&w, fd[1]);
	/* the row of (rank 3, region 1), whose durations path 0 uses */
	assert_int_equal(wire_put_row(&w, &t, 1), 0);
	assert_int_equal(wire_put_nest(&w, &ri), 0);
	if (bad == 1)
		n1.id = 2; /* out of sequence */
	if (bad == 2)
		n1.region = 1; /* the parent's region again */
	if (bad == 3)
		p0.calls = 3; /* the row has 2 */
	if (bad == 4)
		p1.node = 2; /* never sent */
	assert_int_equal(wire_put_node(&w, &n0), 0);
	assert_int_equal(wire_put_path(&w, &p0, NULL, 0), 0);
	assert_int_equal(wire_put_node(&w, &n1), 0);
	assert_int_equal(wire_put_path(&w, &p1, blob.data, blob.len), 0);
	assert_int_equal(wire_put_self(&w, 3, 1, 30, CALLTREE_SELF_TREE), 0);
	assert_int_equal(wire_flush(&w), 0);
	wire_out_release(&w);
	close(fd[1]);
	drain(fd[0], out);
	close(fd[0]);
	buf_release(&blob);
}

/* A frame that cannot be written whole (memory ran out in the reader) is
 * dropped from the output, so the error frame the reader sends next
 * follows whole frames only: the store's side reads the reader's error,
 * not a partial row as malformed data. */
static void test_partial_frame(void **state)
{
	static const unsigned char blob[] = {1, 2, 3};
	struct store_timing t;
	struct wire_out w;
	struct wire_frame f;
	struct buf out = BUF_INIT;
	size_t pos = 0, before;
	int fd[2], code;
	uint64_t inherited;
	char msg[64];

	(void)state;
	memset(&t, 0, sizeof(t));
	t.rank = 1;
	t.calls = 2;
	t.exclusive = -1;
	assert_int_equal(pipe(fd), 0);
	wire_out_init(&w, fd[1]);
	assert_int_equal(wire_put_row(&w, &t, 0), 0);
	before = w.b.len;
	/* durations no buffer can hold: the append fails half way */
	t.durations = blob;
	t.durations_len = SIZE_MAX - 64;
	assert_int_equal(wire_put_row(&w, &t, 0), ERR_NOMEM);
	assert_int_equal(w.b.len, before);
	assert_int_equal(wire_put_error(&w, ERR_NOMEM, "out of memory", 153600000), 0);
	assert_int_equal(wire_flush(&w), 0);
	wire_out_release(&w);
	close(fd[1]);
	drain(fd[0], &out);
	close(fd[0]);
	assert_true(wire_next(out.data, out.len, &pos, &f));
	assert_int_equal(f.type, WIRE_ROW);
	assert_true(wire_next(out.data, out.len, &pos, &f));
	assert_int_equal(f.type, WIRE_ERROR);
	assert_int_equal(wire_get_error(&code, msg, sizeof(msg), &inherited, &f), 0);
	assert_int_equal(code, ERR_NOMEM);
	assert_int_equal(inherited, 153600000);
	assert_false(wire_next(out.data, out.len, &pos, &f));
	buf_release(&out);
}

/* Every call-tree frame round-trips; the checks across frames pass. */
static void test_nest_round_trip(void **state)
{
	struct buf got = BUF_INIT;
	struct ingest_nest n;
	struct calltree_rankinfo ri;
	struct calltree_node nd;
	struct wire_path wp;
	struct wire_frame f;
	struct i64vec d;
	uint32_t rank, region;
	int64_t self;
	enum calltree_self_source src;
	size_t pos = 0;
	uint64_t u;
	int k = 0;

	(void)state;
	nest_frames(&got, 0);
	ingest_nest_init(&n);
	i64vec_init(&d);
	while (wire_next(got.data, got.len, &pos, &f)) {
		if (f.type == WIRE_ROW)
			assert_int_equal(ingest_nest_row(&n, &f, 2), 0);
		else
			assert_int_equal(ingest_nest_frame(&n, &f, 2), 0);
		switch (k++) {
		case 1:
			assert_int_equal(f.type, WIRE_NEST);
			assert_int_equal(wire_get_nest(&ri, &f, 2), 0);
			assert_int_equal(ri.rank, 7);
			assert_int_equal(ri.status, CALLTREE_OVERLAP);
			assert_int_equal(ri.calls, 12);
			assert_int_equal(ri.region_a, 1);
			assert_int_equal(ri.end_b, 25);
			break;
		case 2:
			assert_int_equal(wire_get_node(&nd, &f, 2), 0);
			assert_int_equal(nd.parent, -1);
			assert_int_equal(nd.region, 1);
			break;
		case 3:
			assert_int_equal(wire_get_path(&wp, &f), 0);
			assert_true(wp.p.row_durations);
			assert_null(wp.blob);
			assert_int_equal(wp.p.calls, 2);
			assert_int_equal(wp.p.self, 30);
			break;
		case 5:
			assert_int_equal(wire_get_path(&wp, &f), 0);
			assert_false(wp.p.row_durations);
			assert_int_equal(wp.p.node, 1);
			assert_int_equal(wp.p.nested, 2);
			assert_int_equal(blob_decode_append(&d, wp.blob, wp.blob_len), 0);
			assert_int_equal(d.len, 3);
			assert_int_equal(d.v[2], 9);
			break;
		case 6:
			assert_int_equal(wire_get_self(&rank, &region, &self, &src, &f, 2), 0);
			assert_int_equal(rank, 3);
			assert_int_equal(region, 1);
			assert_int_equal(self, 30);
			assert_int_equal(src, CALLTREE_SELF_TREE);
			break;
		default:
			break;
		}
	}
	assert_int_equal(k, 7);
	assert_int_equal(n.ranks, 1);
	assert_int_equal(n.trees, 0);
	assert_int_equal(n.problems, 1);
	assert_int_equal(n.nodes, 2);
	assert_int_equal(n.paths, 2);
	assert_int_equal(n.selfs, 1);
	/* the self time kept for the rows, its region within the file's */
	assert_true(ingest_rowmap_get(&n.self_ns, 3, 1, &u));
	assert_int_equal(u, 30);
	assert_false(ingest_rowmap_get(&n.self_ns, 3, 0, &u));
	assert_int_equal(ingest_nest_self_check(&n, 2), 0);
	assert_int_equal(ingest_nest_self_check(&n, 1), 0); /* (checked as it came) */
	{
		const char *const names[] = {"solve", "io\n"};
		char msg[512];

		ingest_nest_warning(msg, sizeof(msg), "run.h5", &n, names, 2);
		assert_string_equal(msg,
				    "'run.h5': rank 7: a call of 'solve' [15, 25] ns starts "
				    "inside a call of 'io\\x0a' [10, 20] ns and ends after it, "
				    "so rank 7 has no call tree; the flat numbers are not "
				    "affected, and --by path leaves it out");
	}
	i64vec_release(&d);
	ingest_nest_release(&n);
	buf_release(&got);
}

/* A JSON profile's frames come before its regions are known: the self
 * times kept then are checked against the file's regions when they are
 * stored (region 1 of a file of one region is the reader's malformed
 * data). */
static void test_nest_selfs_before_info(void **state)
{
	struct buf got = BUF_INIT;
	struct ingest_nest n;
	struct wire_frame f;
	size_t pos = 0;
	uint64_t u;

	(void)state;
	nest_frames(&got, 0);
	ingest_nest_init(&n);
	while (wire_next(got.data, got.len, &pos, &f))
		assert_int_equal(f.type == WIRE_ROW ? ingest_nest_row(&n, &f, SIZE_MAX)
						    : ingest_nest_frame(&n, &f, SIZE_MAX),
				 0);
	assert_true(ingest_rowmap_get(&n.self_ns, 3, 1, &u));
	assert_int_equal(u, 30);
	assert_int_equal(ingest_nest_self_check(&n, 2), 0);
	assert_int_equal(ingest_nest_self_check(&n, 1), ERR_GENERIC);
	assert_string_equal(err_msg(), "the reader process sent malformed data");
	ingest_nest_release(&n);
	buf_release(&got);
}

/* A frame that contradicts the ones before it is the reader's malformed
 * data. */
static void test_nest_inconsistent(void **state)
{
	int bad;

	(void)state;
	for (bad = 1; bad <= 4; bad++) {
		struct buf got = BUF_INIT;
		struct ingest_nest n;
		struct wire_frame f;
		size_t pos = 0;
		int failed = 0;

		nest_frames(&got, bad);
		ingest_nest_init(&n);
		while (wire_next(got.data, got.len, &pos, &f) && !failed) {
			if (f.type == WIRE_ROW)
				failed = ingest_nest_row(&n, &f, 2) != 0;
			else
				failed = ingest_nest_frame(&n, &f, 2) != 0;
		}
		assert_true(failed);
		assert_string_equal(err_msg(), "the reader process sent malformed data");
		ingest_nest_release(&n);
		buf_release(&got);
	}
}

/* Each call-tree frame refuses what it cannot be on its own. */
static void test_nest_malformed(void **state)
{
	int64_t v[16];
	unsigned char b[16 * 10];
	struct wire_frame f = {WIRE_NEST, b, 0};
	struct calltree_rankinfo ri;
	struct calltree_node nd;
	struct wire_path wp;
	uint32_t rank, region;
	int64_t self;
	enum calltree_self_source src;

	(void)state;
	memset(v, 0, sizeof(v));
	enc_frame(&f, b, v, 16);
	assert_int_equal(wire_get_nest(&ri, &f, 4), 0);
	v[1] = CALLTREE_INCOMPLETE + 1; /* no such status */
	enc_frame(&f, b, v, 16);
	assert_int_not_equal(wire_get_nest(&ri, &f, 4), 0);
	v[1] = CALLTREE_OVERLAP;
	v[10] = 4; /* the overlapping region is not a region */
	enc_frame(&f, b, v, 16);
	assert_int_not_equal(wire_get_nest(&ri, &f, 4), 0);
	v[10] = 0;
	v[5] = -1; /* negative calls */
	enc_frame(&f, b, v, 16);
	assert_int_not_equal(wire_get_nest(&ri, &f, 4), 0);
	v[5] = 0;
	enc_frame(&f, b, v, 16);
	assert_int_equal(wire_get_nest(&ri, &f, 4), 0);
	f.len--; /* a number short */
	assert_int_not_equal(wire_get_nest(&ri, &f, 4), 0);
	enc_frame(&f, b, v, 15);
	assert_int_not_equal(wire_get_nest(&ri, &f, 4), 0);

	/* nodes: parent not below the id, a root deeper than 1 */
	f.type = WIRE_NODE;
	v[0] = 3;
	v[1] = 3;
	v[2] = 0;
	v[3] = 2;
	enc_frame(&f, b, v, 4);
	assert_int_not_equal(wire_get_node(&nd, &f, 4), 0);
	v[1] = -1;
	enc_frame(&f, b, v, 4);
	assert_int_not_equal(wire_get_node(&nd, &f, 4), 0);
	v[3] = 1;
	enc_frame(&f, b, v, 4);
	assert_int_equal(wire_get_node(&nd, &f, 4), 0);
	v[2] = 4;
	enc_frame(&f, b, v, 4);
	assert_int_not_equal(wire_get_node(&nd, &f, 4), 0);

	/* paths: self above the total, durations of their own and of the
	 * row, a blob length past the frame */
	f.type = WIRE_PATH;
	memset(v, 0, sizeof(v));
	v[2] = 1;
	v[4] = 10;
	v[5] = 10;
	v[6] = 1;
	enc_frame(&f, b, v, 8);
	assert_int_equal(wire_get_path(&wp, &f), 0);
	v[5] = 11;
	enc_frame(&f, b, v, 8);
	assert_int_not_equal(wire_get_path(&wp, &f), 0);
	v[5] = 10;
	v[7] = 1;
	enc_frame(&f, b, v, 8);
	assert_int_not_equal(wire_get_path(&wp, &f), 0);
	v[6] = 0;
	v[7] = 0; /* no durations for 1 call */
	enc_frame(&f, b, v, 8);
	assert_int_not_equal(wire_get_path(&wp, &f), 0);
	v[7] = INT64_MAX;
	enc_frame(&f, b, v, 8);
	assert_int_not_equal(wire_get_path(&wp, &f), 0);
	v[7] = -1;
	enc_frame(&f, b, v, 8);
	assert_int_not_equal(wire_get_path(&wp, &f), 0);

	/* self: negative, unknown source */
	f.type = WIRE_SELF;
	v[0] = 1;
	v[1] = 2;
	v[2] = -5;
	v[3] = CALLTREE_SELF_FILE;
	enc_frame(&f, b, v, 4);
	assert_int_not_equal(wire_get_self(&rank, &region, &self, &src, &f, 4), 0);
	v[2] = 5;
	enc_frame(&f, b, v, 4);
	assert_int_equal(wire_get_self(&rank, &region, &self, &src, &f, 4), 0);
	v[3] = 3;
	enc_frame(&f, b, v, 4);
	assert_int_not_equal(wire_get_self(&rank, &region, &self, &src, &f, 4), 0);
}

/* ingest_rowmap_each() callback: counts the keys and sums rank, region
 * and value of each. */
struct rowsum {
	uint64_t n, sum;
};

static int rowsum_add(void *ctx, uint32_t rank, uint32_t region, uint64_t v)
{
	struct rowsum *r = ctx;

	r->n++;
	r->sum += rank * UINT64_C(1000003) + region * UINT64_C(101) + v;
	return 0;
}

/* A (rank, region) map in an array answers as the hash does: the same
 * random puts (overwrites, keys outside the grid among them) into both,
 * then every key of a larger grid read from both, and every key walked;
 * a grid much larger than the keys held (numbers a file claims), a
 * sparse one and one too large stay a hash. */
static void test_rowmap(void **state)
{
	struct ingest_rowmap d = INGEST_ROWMAP_INIT, h = INGEST_ROWMAP_INIT;
	struct rowsum sd = {0, 0}, sh = {0, 0};
	uint64_t seed = 7, a, b;
	uint32_t rank, region;
	int i, ga, gb;

	(void)state;
	ingest_rowmap_grid(&d, 40, 30, 1000);
	for (i = 0; i < 3000; i++) {
		seed = seed * 6364136223846793005u + 1442695040888963407u;
		rank = (uint32_t)(seed >> 33) % 50; /* 40..49: outside the grid */
		region = (uint32_t)(seed >> 17) % 35;
		assert_int_equal(ingest_rowmap_put(&d, rank, region, seed), 0);
		assert_int_equal(ingest_rowmap_put(&h, rank, region, seed), 0);
	}
	assert_non_null(d.dense);
	assert_true(d.n > 0 && d.n < h.n); /* the keys outside the grid, hashed */
	for (rank = 0; rank < 60; rank++)
		for (region = 0; region < 40; region++) {
			a = b = 0;
			ga = ingest_rowmap_get(&d, rank, region, &a);
			gb = ingest_rowmap_get(&h, rank, region, &b);
			assert_int_equal(ga, gb);
			assert_true(a == b);
		}
	assert_int_equal(ingest_rowmap_each(&d, rowsum_add, &sd), 0);
	assert_int_equal(ingest_rowmap_each(&h, rowsum_add, &sh), 0);
	assert_true(sd.n == sh.n && sd.sum == sh.sum);
	ingest_rowmap_release(&d);
	ingest_rowmap_release(&h);
	/* a file claiming 1M rows of 4,096 x 256 that sends 2,000: a hash */
	ingest_rowmap_grid(&d, 4096, 256, (size_t)1 << 20);
	for (i = 0; i < 2000; i++)
		assert_int_equal(ingest_rowmap_put(&d, (uint32_t)i * 2, 7, 1), 0);
	assert_null(d.dense);
	ingest_rowmap_release(&d);
	ingest_rowmap_grid(&d, 4096, 256, 1000); /* sparse */
	assert_int_equal(d.nranks, 0);
	ingest_rowmap_grid(&d, 1u << 20, 1u << 10, (size_t)1 << 30); /* too large */
	assert_int_equal(d.nranks, 0);
	ingest_rowmap_release(&d);
	ingest_rowmap_release(NULL);
}

/* ingest_nest_end() finds a rank of rows with calls but no WIRE_NEST
 * whether the rows' calls are in the hash or, for a file whose rows fill
 * its grid, in an array: 600 ranks of one region, WIRE_NEST frames for
 * all but rank 599. */
static void test_nest_end_grid(void **state)
{
	unsigned char b[16 * 10];
	struct wire_frame f = {WIRE_ROW, b, 0};
	int pass;

	(void)state;
	for (pass = 0; pass < 2; pass++) {
		struct ingest_nest n;
		int64_t v[16];
		uint32_t r;

		ingest_nest_init(&n);
		if (pass)
			ingest_rowmap_grid(&n.rows, 600, 1, 600);
		for (r = 0; r < 600; r++) {
			const int64_t row[3] = {5, 0, r}; /* calls, region, rank */

			f.type = WIRE_ROW;
			enc_frame(&f, b, row, 3);
			assert_int_equal(ingest_nest_row(&n, &f, 1), 0);
		}
		assert_true(pass ? n.rows.dense != NULL : n.rows.dense == NULL);
		for (r = 0; r < 599; r++) {
			memset(v, 0, sizeof(v));
			v[0] = r;
			v[1] = CALLTREE_OK;
			v[5] = 5; /* calls */
			f.type = WIRE_NEST;
			enc_frame(&f, b, v, 16);
			assert_int_equal(ingest_nest_frame(&n, &f, 1), 0);
		}
		assert_int_equal(ingest_nest_end(&n), 0);
		assert_int_equal(n.problems, 1);
		assert_int_equal(n.ranks, 600);
		assert_int_equal(n.first.rank, 599);
		assert_int_equal(n.first.status, CALLTREE_TOTALS);
		ingest_nest_release(&n);
	}
}

TU_MAIN(NULL, NULL,
	{cmocka_unit_test(test_round_trip), cmocka_unit_test(test_malformed),
	 cmocka_unit_test(test_varints), cmocka_unit_test(test_rowmap),
	 cmocka_unit_test(test_nest_end_grid), cmocka_unit_test(test_partial_frame),
	 cmocka_unit_test(test_nest_round_trip), cmocka_unit_test(test_nest_selfs_before_info),
	 cmocka_unit_test(test_nest_inconsistent), cmocka_unit_test(test_nest_malformed)})
