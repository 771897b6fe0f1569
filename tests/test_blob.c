/*
 * test_blob.c - the durations blob codec: exact encodings, round trips from
 * empty to INT64_MAX and random sorted arrays, the size of realistic
 * samples, and every kind of corrupt input (each decoded from an exactly
 * sized heap copy so that AddressSanitizer catches any out-of-bounds read).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#include "store/blob.h"
#include "scopedb/err.h"
#include "scopedb/util.h"

static uint64_t rng_state = UINT64_C(0x9e3779b97f4a7c15);

static uint64_t rng(void)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * UINT64_C(2685821657736338717);
}

/* Decode bytes from an exactly sized heap copy; returns the code, out keeps
 * its previous content on error. */
static int decode_copy(struct i64vec *out, const uint8_t *bytes, size_t len)
{
	uint8_t *copy = malloc(len ? len : 1);
	int ret;

	assert_non_null(copy);
	if (len)
		memcpy(copy, bytes, len);
	ret = blob_decode_append(out, copy, len);
	free(copy);
	return ret;
}

/* Encode v, decode it back and compare; returns the encoded size. */
static size_t roundtrip(const int64_t *v, size_t n)
{
	struct buf b = BUF_INIT;
	struct i64vec d;
	uint64_t count;
	size_t size;

	i64vec_init(&d);
	assert_int_equal(blob_encode(&b, v, n), 0);
	assert_int_equal(blob_count(&count, b.data, b.len), 0);
	assert_int_equal(count, n);
	assert_int_equal(decode_copy(&d, (const uint8_t *)b.data, b.len), 0);
	assert_int_equal(d.len, n);
	if (n)
		assert_memory_equal(d.v, v, n * sizeof(*v));
	size = b.len;
	buf_release(&b);
	i64vec_release(&d);
	return size;
}

static void expect_bytes(const int64_t *v, size_t n, const uint8_t *want, size_t wantlen)
{
	struct buf b = BUF_INIT;

	assert_int_equal(blob_encode(&b, v, n), 0);
	assert_int_equal(b.len, wantlen);
	assert_memory_equal(b.data, want, wantlen);
	buf_release(&b);
	assert_int_equal(roundtrip(v, n), wantlen);
}

static void test_exact_encodings(void **state)
{
	static const int64_t one[] = {5};
	static const int64_t three[] = {1, 300, 300};
	static const int64_t big[] = {INT64_MAX};
	static const uint8_t e_empty[] = {0x01, 0x00};
	static const uint8_t e_one[] = {0x01, 0x01, 0x05};
	/* 1, then 299 = 0xab 0x02, then 0 */
	static const uint8_t e_three[] = {0x01, 0x03, 0x01, 0xab, 0x02, 0x00};
	static const uint8_t e_big[] = {0x01, 0x01, 0xff, 0xff, 0xff, 0xff,
					0xff, 0xff, 0xff, 0xff, 0x7f};

	(void)state;
	expect_bytes(NULL, 0, e_empty, sizeof(e_empty));
	expect_bytes(one, 1, e_one, sizeof(e_one));
	expect_bytes(three, 3, e_three, sizeof(e_three));
	expect_bytes(big, 1, e_big, sizeof(e_big));
}

static void test_roundtrip_edges(void **state)
{
	static const int64_t a[] = {0};
	static const int64_t b[] = {0, INT64_MAX};
	static const int64_t c[] = {INT64_MAX, INT64_MAX, INT64_MAX};
	static const int64_t d[] = {1, 2, INT64_MAX - 1, INT64_MAX};
	static const int64_t e[] = {127, 128, 16383, 16384, INT64_C(1) << 62};
	int64_t zeros[1000];

	(void)state;
	memset(zeros, 0, sizeof(zeros));
	assert_int_equal(roundtrip(a, 1), 3);
	/* header 2 + 0 (1 byte) + INT64_MAX gap (9 bytes) */
	assert_int_equal(roundtrip(b, 2), 12);
	assert_int_equal(roundtrip(c, 3), 2 + 9 + 1 + 1);
	roundtrip(d, 4);
	roundtrip(e, 5);
	/* 1000 needs a 2-byte count; each zero gap one byte */
	assert_int_equal(roundtrip(zeros, 1000), 1 + 2 + 1000);
}

static void test_roundtrip_random(void **state)
{
	int64_t *v = malloc(5000 * sizeof(*v));
	int iter;

	(void)state;
	assert_non_null(v);
	for (iter = 0; iter < 300; iter++) {
		size_t n = (size_t)(rng() % 5000), i;
		unsigned bits = (unsigned)(rng() % 63) + 1;

		for (i = 0; i < n; i++)
			v[i] = (int64_t)(rng() >> (64 - bits));
		util_sort_i64(v, n);
		roundtrip(v, n);
	}
	free(v);
}

/*
 * blob_select(): the values at given ranks of several blobs' union, by
 * the merge, equal to the same ranks of the decoded values sorted, for
 * runs of random sizes (empty ones among them), widths and ties; every
 * rank is asked once in one call and all of them at once in another.
 */
static void test_select_random(void **state)
{
	enum { RUNS = 9, MAXN = 700 };
	int64_t *all = malloc(RUNS * MAXN * sizeof(*all)), v[MAXN], got[64];
	struct buf b[RUNS];
	const void *data[RUNS];
	size_t lens[RUNS];
	uint64_t ranks[64];
	int iter;

	(void)state;
	assert_non_null(all);
	for (iter = 0; iter < 200; iter++) {
		size_t nb = 1 + (size_t)(rng() % RUNS), total = 0, i, j, nr;
		unsigned bits = (unsigned)(rng() % 40) + 1;

		for (i = 0; i < nb; i++) {
			size_t n = rng() % 4 == 0 ? 0 : (size_t)(rng() % MAXN);

			for (j = 0; j < n; j++)
				v[j] = all[total + j] = (int64_t)(rng() >> (64 - bits));
			util_sort_i64(v, n);
			b[i] = (struct buf)BUF_INIT;
			assert_int_equal(blob_encode(&b[i], v, n), 0);
			data[i] = b[i].data;
			lens[i] = b[i].len;
			total += n;
		}
		util_sort_i64(all, total);
		nr = total ? 1 + (size_t)(rng() % 64) : 0;
		for (j = 0; j < nr; j++)
			ranks[j] = rng() % total;
		util_sort_i64((int64_t *)ranks, nr);
		assert_int_equal(blob_select(got, ranks, nr, data, lens, nb), 0);
		for (j = 0; j < nr; j++)
			assert_int_equal(got[j], all[ranks[j]]);
		if (total) {
			ranks[0] = 0;
			ranks[1] = total - 1;
			assert_int_equal(blob_select(got, ranks, 2, data, lens, nb), 0);
			assert_int_equal(got[0], all[0]);
			assert_int_equal(got[1], all[total - 1]);
			ranks[0] = total;
			assert_int_equal(blob_select(got, ranks, 1, data, lens, nb), ERR_USAGE);
		}
		for (i = 0; i < nb; i++)
			buf_release(&b[i]);
	}
	free(all);
}

/* blob_select() checks every blob whole, past the last rank asked: a
 * trailing byte, a truncation and an overlong varint at the end of the
 * second blob are errors even when the ranks asked lie in the first
 * value; ranks out of order are refused. */
static void test_select_checks_whole(void **state)
{
	static const int64_t a[] = {1, 2, 3}, bv[] = {5, 6, 200};
	struct buf x = BUF_INIT, y = BUF_INIT;
	const void *data[2];
	size_t lens[2];
	uint64_t ranks[2] = {0, 1};
	int64_t got[2];
	uint8_t *copy;

	(void)state;
	assert_int_equal(blob_encode(&x, a, 3), 0);
	assert_int_equal(blob_encode(&y, bv, 3), 0);
	copy = malloc(y.len + 1);
	assert_non_null(copy);
	data[0] = x.data;
	lens[0] = x.len;
	data[1] = copy;
	memcpy(copy, y.data, y.len);
	lens[1] = y.len;
	assert_int_equal(blob_select(got, ranks, 2, data, lens, 2), 0);
	assert_int_equal(got[0], 1);
	assert_int_equal(got[1], 2);
	copy[y.len] = 0;
	lens[1] = y.len + 1; /* a trailing byte */
	assert_int_equal(blob_select(got, ranks, 2, data, lens, 2), ERR_FORMAT);
	lens[1] = y.len - 1; /* the last value's second byte cut */
	assert_int_equal(blob_select(got, ranks, 2, data, lens, 2), ERR_FORMAT);
	copy[y.len - 1] = 0x80; /* the last varint runs past the end */
	lens[1] = y.len;
	assert_int_equal(blob_select(got, ranks, 2, data, lens, 2), ERR_FORMAT);
	ranks[0] = 2;
	ranks[1] = 1;
	assert_int_equal(blob_select(got, ranks, 2, data, lens, 1), ERR_USAGE);
	free(copy);
	buf_release(&x);
	buf_release(&y);
}

/* Decoding appends and keeps what the vector held. */
static void test_decode_appends(void **state)
{
	static const int64_t v1[] = {3, 4, 10};
	static const int64_t v2[] = {1, 2};
	static const int64_t want[] = {-7, 3, 4, 10, 1, 2};
	struct buf b1 = BUF_INIT, b2 = BUF_INIT;
	struct i64vec d;

	(void)state;
	i64vec_init(&d);
	assert_int_equal(i64vec_push(&d, -7), 0);
	assert_int_equal(blob_encode(&b1, v1, 3), 0);
	assert_int_equal(blob_encode(&b2, v2, 2), 0);
	assert_int_equal(blob_decode_append(&d, b1.data, b1.len), 0);
	assert_int_equal(blob_decode_append(&d, b2.data, b2.len), 0);
	assert_int_equal(d.len, 6);
	assert_memory_equal(d.v, want, sizeof(want));
	/* encode appends too */
	assert_int_equal(blob_encode(&b1, v2, 2), 0);
	assert_int_equal(b1.len, 5 + 4);
	assert_memory_equal(b1.data + 5, b2.data, 4);
	buf_release(&b1);
	buf_release(&b2);
	i64vec_release(&d);
}

/* blob_decode_to(): into a caller's buffer, refusing more values than fit
 * without writing any of them; damage is still ERR_FORMAT. */
static void test_decode_to(void **state)
{
	static const int64_t v[] = {3, 4, 10, 900};
	int64_t out[5] = {-1, -1, -1, -1, -1};
	struct buf b = BUF_INIT;
	size_t n = 99;

	(void)state;
	assert_int_equal(blob_encode(&b, v, 4), 0);
	assert_int_equal(blob_decode_to(out, 4, &n, b.data, b.len), 0);
	assert_int_equal(n, 4);
	assert_memory_equal(out, v, sizeof(v));
	assert_int_equal(out[4], -1);
	out[0] = -1;
	assert_int_equal(blob_decode_to(out, 3, &n, b.data, b.len), ERR_FORMAT);
	assert_int_equal(n, 0);
	assert_int_equal(out[0], -1);
	assert_string_equal(err_msg(), "corrupt durations blob: 4 values, expected at most 3");
	assert_int_equal(blob_decode_to(out, 4, &n, b.data, b.len - 1), ERR_FORMAT);
	assert_int_equal(n, 0);
	buf_release(&b);
}

static void test_encode_rejects(void **state)
{
	static const int64_t neg[] = {-1, 2};
	static const int64_t unsorted[] = {1, 5, 4};
	struct buf b = BUF_INIT;

	(void)state;
	assert_int_equal(buf_puts(&b, "xy"), 0);
	assert_int_equal(blob_encode(&b, neg, 2), ERR_USAGE);
	assert_string_equal(err_msg(), "cannot encode durations: value 0 is negative");
	assert_int_equal(blob_encode(&b, unsorted, 3), ERR_USAGE);
	assert_string_equal(err_msg(), "cannot encode durations: value 2 is not sorted");
	assert_int_equal(b.len, 2);
	assert_string_equal(b.data, "xy");
	buf_release(&b);
}

/* Normal-ish noise: sum of four uniforms, scaled to +-spread. */
static int64_t noisy(int64_t centre, int64_t spread)
{
	int64_t s = 0;
	int k;

	for (k = 0; k < 4; k++)
		s += (int64_t)(rng() % (uint64_t)(2 * spread + 1)) - spread;
	return centre + s / 2;
}

/* Bytes per value of sorted samples shaped like real region timings. */
static double bytes_per_value(int64_t *v, size_t n, const char *what)
{
	double bpv;

	util_sort_i64(v, n);
	bpv = (double)roundtrip(v, n) / (double)n;
	print_message("%s: %.3f bytes/value\n", what, bpv);
	return bpv;
}

static void test_bytes_per_value(void **state)
{
	size_t n = 100000, i;
	int64_t *v = malloc(n * sizeof(*v));

	(void)state;
	assert_non_null(v);
	/* A 1 ms region with ~2% jitter and a 1% tail of slow calls. */
	for (i = 0; i < n; i++)
		v[i] = noisy(1000000, 20000) + (rng() % 100 == 0 ? (int64_t)(rng() % 5000000) : 0);
	assert_true(bytes_per_value(v, n, "1 ms +-2%, 100000 calls") < 1.1);
	/* The same region called only 1000 times: larger gaps. */
	for (i = 0; i < 1000; i++)
		v[i] = noisy(1000000, 20000) + (rng() % 100 == 0 ? (int64_t)(rng() % 5000000) : 0);
	assert_true(bytes_per_value(v, 1000, "1 ms +-2%, 1000 calls") < 2.0);
	/* 1000 calls spread log-uniformly over 1 us .. 1 s. */
	for (i = 0; i < 1000; i++)
		v[i] = (int64_t)pow(10.0, 3.0 + 6.0 * (double)(rng() >> 11) / 9007199254740992.0);
	assert_true(bytes_per_value(v, 1000, "1 us .. 1 s log-uniform, 1000 calls") < 3.5);
	free(v);
}

/* Decode must fail with ERR_FORMAT and message msg, leaving out as is. */
static void expect_corrupt(const uint8_t *bytes, size_t len, const char *msg)
{
	struct i64vec d;

	i64vec_init(&d);
	assert_int_equal(i64vec_push(&d, 42), 0);
	assert_int_equal(decode_copy(&d, bytes, len), ERR_FORMAT);
	if (msg)
		assert_string_equal(err_msg(), msg);
	else
		assert_memory_equal(err_msg(), "corrupt durations blob: ", 24);
	assert_int_equal(d.len, 1);
	assert_int_equal(d.v[0], 42);
	i64vec_release(&d);
}

static void test_corrupt_cases(void **state)
{
	static const uint8_t v0[] = {0x00, 0x00};
	static const uint8_t v2[] = {0x02, 0x00};
	static const uint8_t count_trunc[] = {0x01, 0x80};
	static const uint8_t eleven[] = {0x01, 0x01, 0x80, 0x80, 0x80, 0x80, 0x80,
					 0x80, 0x80, 0x80, 0x80, 0x80, 0x00};
	static const uint8_t tenth_cont[] = {0x01, 0x01, 0xff, 0xff, 0xff, 0xff,
					     0xff, 0xff, 0xff, 0xff, 0xff, 0x81};
	static const uint8_t tenth_big[] = {0x01, 0x01, 0xff, 0xff, 0xff, 0xff,
					    0xff, 0xff, 0xff, 0xff, 0xff, 0x02};
	static const uint8_t nonminimal[] = {0x01, 0x01, 0x85, 0x00};
	static const uint8_t nonminimal_count[] = {0x01, 0x80, 0x00};
	static const uint8_t too_many[] = {0x01, 0x05, 0x01, 0x01};
	static const uint8_t short_values[] = {0x01, 0x02, 0xab, 0x02};
	static const uint8_t trailing[] = {0x01, 0x01, 0x05, 0x06};
	/* 2^63: a valid varint, but not an int64 */
	static const uint8_t two63[] = {0x01, 0x01, 0x80, 0x80, 0x80, 0x80,
					0x80, 0x80, 0x80, 0x80, 0x80, 0x01};
	/* INT64_MAX then a gap of 1 */
	static const uint8_t sum[] = {0x01, 0x02, 0xff, 0xff, 0xff, 0xff,
				      0xff, 0xff, 0xff, 0xff, 0x7f, 0x01};

	(void)state;
	expect_corrupt(NULL, 0, "corrupt durations blob: truncated");
	{
		struct i64vec d;
		uint64_t n;

		i64vec_init(&d);
		assert_int_equal(blob_decode_append(&d, NULL, 0), ERR_FORMAT);
		assert_int_equal(blob_count(&n, NULL, 0), ERR_FORMAT);
		assert_string_equal(err_msg(), "corrupt durations blob: truncated");
		assert_int_equal(d.len, 0);
	}
	expect_corrupt(v0, sizeof(v0), "corrupt durations blob: unsupported version 0");
	expect_corrupt(v2, sizeof(v2), "corrupt durations blob: unsupported version 2");
	expect_corrupt(count_trunc, sizeof(count_trunc), "corrupt durations blob: truncated");
	expect_corrupt(eleven, sizeof(eleven), "corrupt durations blob: overlong varint");
	expect_corrupt(tenth_cont, sizeof(tenth_cont), "corrupt durations blob: overlong varint");
	expect_corrupt(tenth_big, sizeof(tenth_big),
		       "corrupt durations blob: varint exceeds 64 bits");
	expect_corrupt(nonminimal, sizeof(nonminimal), "corrupt durations blob: overlong varint");
	expect_corrupt(nonminimal_count, sizeof(nonminimal_count),
		       "corrupt durations blob: overlong varint");
	expect_corrupt(too_many, sizeof(too_many),
		       "corrupt durations blob: claims 5 values in 2 bytes; truncated");
	expect_corrupt(short_values, sizeof(short_values), "corrupt durations blob: truncated");
	expect_corrupt(trailing, sizeof(trailing), "corrupt durations blob: 1 trailing bytes");
	expect_corrupt(two63, sizeof(two63), "corrupt durations blob: value 0 overflows int64");
	expect_corrupt(sum, sizeof(sum), "corrupt durations blob: value 1 overflows int64");
}

static void test_count(void **state)
{
	static const uint8_t ok[] = {0x01, 0x03, 0x01, 0x02, 0x03};
	static const uint8_t bad[] = {0x01, 0x09, 0x01};
	uint64_t n = 7;

	(void)state;
	assert_int_equal(blob_count(&n, ok, sizeof(ok)), 0);
	assert_int_equal(n, 3);
	assert_int_equal(blob_count(&n, ok, 0), ERR_FORMAT);
	assert_int_equal(blob_count(&n, bad, sizeof(bad)), ERR_FORMAT);
	assert_string_equal(err_msg(),
			    "corrupt durations blob: claims 9 values in 1 bytes; truncated");
}

/* Every proper prefix of a valid blob is an error, never a partial read. */
static void test_every_truncation(void **state)
{
	int64_t v[200];
	struct buf b = BUF_INIT;
	size_t i, len;

	(void)state;
	for (i = 0; i < 200; i++)
		v[i] = (int64_t)(rng() >> (i % 60 + 1));
	util_sort_i64(v, 200);
	assert_int_equal(blob_encode(&b, v, 200), 0);
	for (len = 0; len < b.len; len++)
		expect_corrupt((const uint8_t *)b.data, len, NULL);
	buf_release(&b);
}

/*
 * Random and mutated inputs: the decoder returns 0 or ERR_FORMAT, and since
 * varints must be minimal, whatever it accepts re-encodes to the same bytes.
 */
static int fuzz_accepted;

static void check_fuzz_input(const uint8_t *bytes, size_t len)
{
	struct i64vec d;
	struct buf b = BUF_INIT;
	int ret;

	i64vec_init(&d);
	ret = decode_copy(&d, bytes, len);
	if (ret == 0) {
		fuzz_accepted++;
		assert_int_equal(blob_encode(&b, d.v, d.len), 0);
		assert_int_equal(b.len, len);
		assert_memory_equal(b.data, bytes, len);
	} else {
		assert_int_equal(ret, ERR_FORMAT);
		assert_int_equal(d.len, 0);
	}
	buf_release(&b);
	i64vec_release(&d);
}

static void test_fuzz(void **state)
{
	uint8_t bytes[256];
	int64_t v[20];
	struct buf b = BUF_INIT;
	int iter;
	size_t len, i;

	(void)state;
	for (iter = 0; iter < 100000; iter++) {
		len = (size_t)(rng() % 64);
		for (i = 0; i < len; i++) {
			uint64_t r = rng();

			/* mostly small bytes so that some inputs are valid */
			bytes[i] = (uint8_t)(r % 4 ? r % 8 : r >> 56);
		}
		if (len && rng() % 2)
			bytes[0] = 1;
		if (len > 1 && rng() % 2)
			bytes[1] = (uint8_t)(len > 2 ? rng() % (len - 1) : 0);
		check_fuzz_input(bytes, len);
	}
	print_message("random inputs accepted: %d of 100000\n", fuzz_accepted);
	assert_true(fuzz_accepted > 1000);
	fuzz_accepted = 0;
	for (iter = 0; iter < 20000; iter++) {
		for (i = 0; i < 20; i++)
			v[i] = (int64_t)(rng() >> (rng() % 64 | 1));
		util_sort_i64(v, 20);
		b.len = 0;
		assert_int_equal(blob_encode(&b, v, (size_t)(rng() % 21)), 0);
		len = b.len;
		memcpy(bytes, b.data, len);
		bytes[rng() % len] ^= (uint8_t)(1u << (rng() % 8));
		if (rng() % 4 == 0)
			len = (size_t)(rng() % (len + 1));
		check_fuzz_input(bytes, len);
	}
	print_message("mutated inputs accepted: %d of 20000\n", fuzz_accepted);
	assert_true(fuzz_accepted > 1000);
	buf_release(&b);
}

TU_MAIN(NULL, NULL,
	{
	    cmocka_unit_test(test_exact_encodings),
	    cmocka_unit_test(test_roundtrip_edges),
	    cmocka_unit_test(test_roundtrip_random),
	    cmocka_unit_test(test_select_random),
	    cmocka_unit_test(test_select_checks_whole),
	    cmocka_unit_test(test_decode_appends),
	    cmocka_unit_test(test_decode_to),
	    cmocka_unit_test(test_encode_rejects),
	    cmocka_unit_test(test_bytes_per_value),
	    cmocka_unit_test(test_corrupt_cases),
	    cmocka_unit_test(test_count),
	    cmocka_unit_test(test_every_truncation),
	    cmocka_unit_test(test_fuzz),
	})
