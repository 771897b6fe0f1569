/*
 * test_verify.c - the invariants the store front end checks on every row a
 * backend returns (src/store/verify.c), and blob_stats(), which checks a
 * copied blob against its row: each invariant holds for real rows and
 * fails, with the store named, for a row that breaks it (one field at a
 * time, at its boundary).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "testutil.h"

#include "scopedb/err.h"
#include "scopedb/store.h"
#include "scopedb/util.h"
#include "store/blob.h"
#include "store/verify.h"

#define LOC "s.sqlite"

/* ERR_STORE with "store 's.sqlite' is damaged: " + what. */
static void assert_damaged(int ret, const char *what)
{
	char want[512];

	snprintf(want, sizeof(want), "store '%s' is damaged: %s", LOC, what);
	assert_int_equal(ret, ERR_STORE);
	assert_string_equal(err_msg(), want);
}

static struct store_run good_run(void)
{
	return (struct store_run){.id = 3,
				  .sha256 = (char *)"ab",
				  .schema = 3,
				  .layout = (char *)"columnar",
				  .num_ranks = 4,
				  .num_regions = 2,
				  .num_calls = 10};
}

static void test_run(void **state)
{
	struct store_run r = good_run();

	(void)state;
	assert_int_equal(verify_run(&r, LOC), 0);
	r.num_ranks = VERIFY_MAX_RANKS;
	assert_int_equal(verify_run(&r, LOC), 0);
	r.num_ranks++;
	assert_damaged(verify_run(&r, LOC), "run 3 has 4294967296 ranks");
	r.num_ranks = -1;
	assert_damaged(verify_run(&r, LOC), "run 3 has -1 ranks");
	r = good_run();
	r.num_calls = -1;
	assert_damaged(verify_run(&r, LOC), "run 3 has 2 regions and -1 calls");
	r = good_run();
	r.schema = 0;
	assert_damaged(verify_run(&r, LOC), "run 3 has profile schema version 0");
	/* a newer scopedb's run in a shared store: not damage */
	r.schema = 4;
	assert_int_equal(verify_run(&r, LOC), ERR_STORE);
	assert_string_equal(err_msg(), "store 's.sqlite' has run 3 written by a newer scopedb "
				       "(profile schema 4; this scopedb reads up to 3); upgrade "
				       "scopedb");
	r = good_run();
	r.layout = (char *)"columnar2";
	assert_int_equal(verify_run(&r, LOC), ERR_STORE);
	assert_string_equal(
	    err_msg(), "store 's.sqlite' has run 3 written by a newer scopedb (layout "
		       "'columnar2'; this scopedb reads hierarchical, columnar and aggregate); "
		       "upgrade scopedb");
	/* not a layout's name: damage */
	r.layout = (char *)"colu\x01mnar";
	assert_damaged(verify_run(&r, LOC), "run 3 has an unknown layout");
	r.layout = (char *)"";
	assert_damaged(verify_run(&r, LOC), "run 3 has an unknown layout");
	r.layout = NULL;
	assert_damaged(verify_run(&r, LOC), "run 3 has an unknown layout");
	r = good_run();
	r.id = 0;
	assert_damaged(verify_run(&r, LOC), "a run has the id 0");
}

/* 4 calls of 10, 20, 30 and 40 ns on 2 ranks, with percentiles. */
static struct store_region_stats good_stats(void)
{
	return (struct store_region_stats){.name = (char *)"solve",
					   .has_events = 1,
					   .calls = 4,
					   .total = 100,
					   .min = 10,
					   .max = 40,
					   .gpu_count = 1,
					   .gpu_total = 5,
					   .nranks = 2,
					   .busy_ranks = 2,
					   .busy_max = 70,
					   .has_quantiles = 1,
					   .quantiles = {25, 38.5, 39.7}};
}

static void test_stats(void **state)
{
	struct store_region_stats s = good_stats();

	(void)state;
	assert_int_equal(verify_stats(&s, 7, LOC), 0);
	/* totals at the bounds: 4 x 10 and 4 x 40 */
	s.total = 40;
	s.busy_max = 40;
	assert_int_equal(verify_stats(&s, 7, LOC), 0);
	s.total = 39;
	assert_damaged(verify_stats(&s, 7, LOC),
		       "region 'solve' of run 7 has 4 calls of 10..40 ns totalling 39 ns");
	s.total = 160;
	assert_int_equal(verify_stats(&s, 7, LOC), 0);
	s.total = 161;
	assert_damaged(verify_stats(&s, 7, LOC),
		       "region 'solve' of run 7 has 4 calls of 10..40 ns totalling 161 ns");
	s = good_stats();
	s.min = 41;
	assert_damaged(verify_stats(&s, 7, LOC),
		       "region 'solve' of run 7 has 4 calls of 41..40 ns totalling 100 ns");
	s = good_stats();
	s.calls = (uint64_t)INT64_MAX + 1;
	assert_damaged(verify_stats(&s, 7, LOC),
		       "region 'solve' of run 7 has -9223372036854775808 calls (1 on a GPU)");
	s = good_stats();
	s.gpu_count = 5;
	assert_damaged(verify_stats(&s, 7, LOC),
		       "region 'solve' of run 7 has 4 calls (5 on a GPU)");
	s = good_stats();
	s.gpu_total = -1;
	assert_damaged(verify_stats(&s, 7, LOC), "region 'solve' of run 7 has a negative time");
	/* no calls: nothing may add up */
	s = good_stats();
	s.calls = s.gpu_count = 0;
	s.total = s.min = s.max = s.busy_max = 0;
	s.has_quantiles = 0;
	assert_int_equal(verify_stats(&s, 7, LOC), 0);
	s.total = 3;
	assert_damaged(verify_stats(&s, 7, LOC),
		       "region 'solve' of run 7 has no calls but a total of 3 ns");
	/* the aggregate layout keeps the file's numbers (only >= 0) */
	s = good_stats();
	s.has_events = 0;
	s.has_quantiles = 0;
	s.total = 1000;
	s.busy_max = 1000;
	s.min = 50;
	assert_int_equal(verify_stats(&s, 7, LOC), 0);
	s.min = -1;
	assert_damaged(verify_stats(&s, 7, LOC), "region 'solve' of run 7 has a negative time");
	/* ranks */
	s = good_stats();
	s.busy_ranks = 3;
	assert_damaged(
	    verify_stats(&s, 7, LOC),
	    "region 'solve' of run 7 has 2 ranks of which 3 busy, the busiest for 70 ns");
	s = good_stats();
	s.busy_max = 101;
	assert_damaged(
	    verify_stats(&s, 7, LOC),
	    "region 'solve' of run 7 has 2 ranks of which 2 busy, the busiest for 101 ns");
}

/* A region name of kilobytes (a C++ template) is cut to 120 bytes and
 * "...", never inside a UTF-8 character, and the cause stays whole. */
static void test_long_name(void **state)
{
	struct store_region_stats s = good_stats();
	struct store_timing t = {.run_id = 7, .rank = 9};
	char name[2001], want[256];

	(void)state;
	memset(name, 'a', sizeof(name) - 1);
	name[sizeof(name) - 1] = '\0';
	memcpy(name + 119, "\xc3\xa9", 2); /* an e-acute across byte 120 */
	s.name = name;
	s.total = 39;
	snprintf(want, sizeof(want),
		 "region '%.119s...' of run 7 has 4 calls of 10..40 ns "
		 "totalling 39 ns",
		 name);
	assert_damaged(verify_stats(&s, 7, LOC), want);
	memcpy(name + 119, "aa", 2);
	snprintf(want, sizeof(want), "region '%.120s...' of run 7 has rank 9 of 2", name);
	assert_damaged(verify_timing(&t, name, 2, LOC), want);
	snprintf(want, sizeof(want), "region '%.120s...' of run 7 has a negative time", name);
	assert_damaged(verify_rank_total(0, -1, name, 7, 2, LOC), want);
	/* 123 bytes: as it is */
	name[123] = '\0';
	snprintf(want, sizeof(want), "region '%.123s' of run 7 has rank 9 of 2", name);
	assert_damaged(verify_timing(&t, name, 2, LOC), want);
}

static void test_quantiles(void **state)
{
	static const char what[] =
	    "region 'solve' of run 7 has percentiles outside its 10..40 ns or out of order";
	struct store_region_stats s = good_stats();

	(void)state;
	/* a nanosecond of slack for floating point, no more */
	s.quantiles[0] = 9.5;
	s.quantiles[2] = 40.5;
	assert_int_equal(verify_stats(&s, 7, LOC), 0);
	s.quantiles[0] = 8.9;
	assert_damaged(verify_stats(&s, 7, LOC), what);
	s = good_stats();
	s.quantiles[2] = 41.1;
	assert_damaged(verify_stats(&s, 7, LOC), what);
	s = good_stats();
	s.quantiles[1] = NAN;
	assert_damaged(verify_stats(&s, 7, LOC), what);
	s = good_stats();
	s.quantiles[2] = INFINITY;
	assert_damaged(verify_stats(&s, 7, LOC), what);
	s = good_stats();
	s.quantiles[0] = 40; /* p50 > p95 by more than the slack */
	assert_damaged(verify_stats(&s, 7, LOC), what);
	s = good_stats();
	s.has_quantiles = 0;
	s.quantiles[1] = NAN; /* not stored: not looked at */
	assert_int_equal(verify_stats(&s, 7, LOC), 0);
}

/* A timings row of rank 1 with the blob of 10, 20, 30, 40 ns in b. */
static struct store_timing good_timing(struct buf *b)
{
	static const int64_t v[] = {10, 20, 30, 40};

	b->len = 0;
	assert_int_equal(blob_encode(b, v, 4), 0);
	return (struct store_timing){.run_id = 7,
				     .region_id = 1,
				     .rank = 1,
				     .has_events = 1,
				     .calls = 4,
				     .total = 100,
				     .min = 10,
				     .max = 40,
				     .mean = 25,
				     .m2 = 500,
				     .gpu_count = 0,
				     .durations = b->data,
				     .durations_len = b->len};
}

static void test_timing(void **state)
{
	struct buf b = BUF_INIT;
	struct store_timing t = good_timing(&b);

	(void)state;
	assert_int_equal(verify_timing(&t, "solve", 2, LOC), 0);
	assert_damaged(verify_timing(&t, "solve", 1, LOC),
		       "region 'solve' of run 7 has rank 1 of 1");
	t.rank = -1;
	assert_damaged(verify_timing(&t, "solve", 2, LOC),
		       "region 'solve' of run 7 has rank -1 of 2");
	t = good_timing(&b);
	t.m2 = NAN;
	assert_damaged(verify_timing(&t, "solve", 2, LOC),
		       "region 'solve' of run 7 rank 1 has a mean or variance that is not a "
		       "finite number");
	t = good_timing(&b);
	t.mean = -INFINITY;
	assert_int_equal(verify_timing(&t, "solve", 2, LOC), ERR_STORE);
	/* the blob: there, decoding, and matching the row */
	t = good_timing(&b);
	t.durations = NULL;
	assert_damaged(verify_timing(&t, "solve", 2, LOC),
		       "region 'solve' of run 7 rank 1 has 4 calls but no call durations");
	t = good_timing(&b);
	t.durations_len--;
	assert_damaged(verify_timing(&t, "solve", 2, LOC),
		       "call durations of run 7 do not decode (region 'solve' rank 1)");
	t = good_timing(&b);
	t.max = 41;
	t.total = 101;
	assert_damaged(verify_timing(&t, "solve", 2, LOC),
		       "the call durations of region 'solve' of run 7 rank 1 do not match its "
		       "calls, minimum, maximum and total");
	t = good_timing(&b);
	t.has_events = 0;
	assert_damaged(verify_timing(&t, "solve", 2, LOC),
		       "region 'solve' of run 7 rank 1 has call durations but no per-call data");
	t.durations = NULL;
	assert_int_equal(verify_timing(&t, "solve", 2, LOC), 0);
	buf_release(&b);
}

/*
 * Issue 24: an index row of no calls (legal in schemas 2 and 3) is stored
 * by ingest with per-call data and the blob of no values; push and pull
 * called that damage.  Every state scopedb writes for such a row passes,
 * and nothing else does.
 */
static void test_timing_no_calls(void **state)
{
	struct buf b = BUF_INIT, other = BUF_INIT;
	struct store_timing t = good_timing(&other);
	static const int64_t one[] = {7};

	(void)state;
	assert_int_equal(blob_encode(&b, NULL, 0), 0);
	t.calls = 0;
	t.total = t.min = t.max = 0;
	t.mean = t.m2 = 0;
	t.durations = b.data;
	t.durations_len = b.len;
	/* what ingest writes: the blob of no values */
	assert_int_equal(verify_timing(&t, "précondition", 4, LOC), 0);
	/* no blob at all */
	t.durations = NULL;
	assert_int_equal(verify_timing(&t, "précondition", 4, LOC), 0);
	/* a blob that is not empty, or does not decode */
	other.len = 0;
	assert_int_equal(blob_encode(&other, one, 1), 0);
	t.durations = other.data;
	t.durations_len = other.len;
	assert_damaged(verify_timing(&t, "précondition", 4, LOC),
		       "the call durations of region 'précondition' of run 7 rank 1 do "
		       "not match its calls, minimum, maximum and total");
	t.durations = b.data;
	t.durations_len = b.len + 1;
	assert_damaged(verify_timing(&t, "précondition", 4, LOC),
		       "call durations of run 7 do not decode (region 'précondition' "
		       "rank 1)");
	/* no calls: no time either */
	t.durations_len = b.len;
	t.max = 5;
	assert_damaged(verify_timing(&t, "précondition", 4, LOC),
		       "region 'précondition' of run 7 rank 1 has no calls but a "
		       "minimum of 0 ns and a maximum of 5 ns");
	/* the aggregate layout: no blob, whatever the count */
	t = good_timing(&other);
	t.has_events = 0;
	t.calls = 0;
	t.total = t.min = t.max = 0;
	t.durations = NULL;
	assert_int_equal(verify_timing(&t, "précondition", 4, LOC), 0);
	t.durations = b.data;
	t.durations_len = b.len;
	assert_damaged(verify_timing(&t, "précondition", 4, LOC),
		       "region 'précondition' of run 7 rank 1 has call durations but no "
		       "per-call data");
	buf_release(&b);
	buf_release(&other);
}

static void test_rank_total(void **state)
{
	(void)state;
	assert_int_equal(verify_rank_total(3, 0, "io", 2, 4, LOC), 0);
	assert_damaged(verify_rank_total(4, 0, "io", 2, 4, LOC),
		       "region 'io' of run 2 has rank 4 of 4");
	assert_damaged(verify_rank_total(0, -5, "io", 2, 4, LOC),
		       "region 'io' of run 2 has a negative time");
}

static void test_blob_stats(void **state)
{
	static const int64_t v[] = {0, 7, 7, 300, INT64_MAX / 2};
	struct buf b = BUF_INIT;
	struct blob_stats bs;
	size_t i;

	(void)state;
	assert_int_equal(blob_encode(&b, v, 5), 0);
	assert_int_equal(blob_stats(&bs, b.data, b.len), 0);
	assert_int_equal(bs.count, 5);
	assert_int_equal(bs.min, 0);
	assert_int_equal(bs.max, INT64_MAX / 2);
	assert_int_equal(bs.sum, 314 + INT64_MAX / 2);
	/* every truncation fails, as the decoders do */
	for (i = 0; i < b.len; i++)
		assert_int_equal(blob_stats(&bs, b.data, i), ERR_FORMAT);
	/* a trailing byte */
	assert_int_equal(buf_putc(&b, 0), 0);
	assert_int_equal(blob_stats(&bs, b.data, b.len), ERR_FORMAT);
	/* a sum past INT64_MAX saturates (no stored total matches it) */
	{
		static const int64_t big[] = {INT64_MAX / 2 + 1, INT64_MAX / 2 + 1};

		b.len = 0;
		assert_int_equal(blob_encode(&b, big, 2), 0);
		assert_int_equal(blob_stats(&bs, b.data, b.len), 0);
		assert_int_equal(bs.sum, INT64_MAX);
	}
	/* an empty blob */
	b.len = 0;
	assert_int_equal(blob_encode(&b, NULL, 0), 0);
	assert_int_equal(blob_stats(&bs, b.data, b.len), 0);
	assert_int_equal(bs.count, 0);
	/* a header claiming 2^40 values in 8 bytes */
	assert_int_equal(blob_stats(&bs, "\x01\x80\x80\x80\x80\x80\x20", 7), ERR_FORMAT);
	buf_release(&b);
}

/* The text rule (issue 24): UTF-8 only, the offending text named. */
static void test_text(void **state)
{
	struct store_run r = good_run();
	struct store_timing t;
	char *tags[] = {(char *)"ok", (char *)"n\xe9"
					      "ant"};

	(void)state;
	assert_int_equal(verify_text("region name", "précondition"), 0);
	assert_int_equal(verify_text("region name", NULL), 0);
	assert_int_equal(verify_text("region name", "bad\xffname"), ERR_FORMAT);
	assert_string_equal(err_msg(), "region name 'bad\xffname' is not valid UTF-8 (byte 0xff at "
				       "offset 3); a store holds UTF-8 text only");
	r.label = (char *)"lab\xc3";
	assert_int_equal(verify_run_text(&r, 1), ERR_FORMAT);
	assert_string_equal(err_msg(),
			    "label 'lab\xc3' is not valid UTF-8 (byte 0xc3 at offset 3); "
			    "a store holds UTF-8 text only");
	r = good_run();
	r.tags = tags;
	r.ntags = 2;
	assert_int_equal(verify_run_text(&r, 1), ERR_FORMAT);
	assert_string_equal(err_msg(), "tag 'n\xe9"
				       "ant' is not valid UTF-8 (byte 0xe9 at offset 1); a "
				       "store holds UTF-8 text only");
	memset(&t, 0, sizeof(t));
	t.source_file = "ok.py";
	t.tags_json = "[\"\xfe\"]";
	assert_int_equal(verify_timing_text(&t), ERR_FORMAT);
	assert_string_equal(err_msg(),
			    "tags '[\"\xfe\"]' is not valid UTF-8 (byte 0xfe at offset 2); "
			    "a store holds UTF-8 text only");
}

TU_MAIN(NULL, NULL,
	{
	    cmocka_unit_test(test_run),
	    cmocka_unit_test(test_stats),
	    cmocka_unit_test(test_quantiles),
	    cmocka_unit_test(test_timing),
	    cmocka_unit_test(test_timing_no_calls),
	    cmocka_unit_test(test_rank_total),
	    cmocka_unit_test(test_blob_stats),
	    cmocka_unit_test(test_long_name),
	    cmocka_unit_test(test_text),
	})
