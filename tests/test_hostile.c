/*
 * test_hostile.c - hostile and damaged profiles at the ingest level (issue 5,
 * part 3).  A corpus generated here: every structural violation of
 * docs/format.md section 6, truncations at many offsets, seeded random byte
 * flips of valid files of several layouts, absurd sizes (counts near 2^64,
 * a 1 MB region name, 100k regions) and names with quotes, %, newlines,
 * control bytes, invalid UTF-8 and SQL metacharacters.
 *
 * Every file goes through ingest_file() into one store.  Each must either
 * ingest into a consistent run (num_calls equal to its timings, one
 * durations blob per timings row with calls) or fail with ERR_FORMAT or
 * ERR_IO and a one-line message naming the file, leaving the store exactly
 * as it was (a signature over every table) and no reader process behind
 * (issue 13: files are read in a child process; a crash of libhdf5 in it
 * is such an error).  A SIGALRM watchdog turns a hang into a failure
 * naming the case; ASan/UBSan builds catch crashes, leaks and undefined
 * behaviour of this process.  Names and tags round
 * trip byte for byte.  The reader's pure index validation
 * (h5prof_validate_index, also the fuzz target) is checked directly.
 * JSON profiles (issue 25): every case of tests/support/hostile_json.h is
 * refused with its message, and seeded byte flips and truncations of the
 * JSON twins of the standard profile (plain and gzip) are stored or
 * refused cleanly.
 *
 * HOSTILE_FLIPS (default 400; 120 under ASan, whose run time is 4x) sets the
 * number of byte-flip variants and HOSTILE_REGIONS (default 100000; 20000
 * under ASan) the size of the many-regions profile.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>

#include "scopedb/err.h"
#include "scopedb/h5prof.h"
#include "h5write.h"
#include "hostile_json.h"
#include "jsonwrite.h"
#include "scopedb/ingest.h"
#include "util/json.h"
#include "scopedb/store.h"
#include "testutil.h"
#include "testutil_db.h"
#include "testutil_h5.h"
#include "testutil_store.h"
#include "hostile_names.h"

/* The standard profile: 13 index rows, 34 events. */
#define STD_ROWS 13
#define STD_EVENTS 34
#if defined(__SANITIZE_ADDRESS__)
#define DEFAULT_FLIPS 120
#define DEFAULT_REGIONS 20000
#else
#define DEFAULT_FLIPS 400
#define DEFAULT_REGIONS 100000
#endif
/* Seconds one case may take before the watchdog fails the test. */
#define CASE_SECONDS 60
/* The byte-flip corpus's reader limits (ingest.h).  A flip that makes
 * libhdf5 spin is stopped by the reader's CPU budget (6 s for these files,
 * ingest_cpu_budget()) and refused as damaged; the wall-clock timeout must
 * not come first, or the case reads as a hang: under ASan, with ctest
 * running four tests on two cores, 6 s of CPU took more than 20 s (a CI
 * run, seed 56: 1.5 GB allocated and 6 s of CPU alone).  So 45 s, under
 * the case's watchdog. */
#define FLIP_TIMEOUT_S 45
#define FLIP_MEMORY_MIB 1024

static char db[512];
static struct store *st;
static struct ingest_opts no_opts;
static char current_case[256];

static void watchdog(int sig)
{
	static const char msg[] = "test_hostile: hang (watchdog) in case: ";

	(void)sig;
	if (write(2, msg, sizeof(msg) - 1) < 0 ||
	    write(2, current_case, strlen(current_case)) < 0 || write(2, "\n", 1) < 0)
		_exit(3);
	_exit(3);
}

static int env_int(const char *name, int def)
{
	const char *v = getenv(name);

	return v && *v ? atoi(v) : def;
}

/* ---- store helpers ---- */

/* A read-only connection to the store. */
static sqlite3 *db_open(void)
{
	return tu_db_open(db, 1);
}

static int64_t q_int(const char *sql)
{
	sqlite3 *h = db_open();
	int64_t v = tu_sql_int(h, sql);

	sqlite3_close(h);
	return v;
}

/* The rows of one region of a run: bind the run to ?1, the name to ?2. */
#define REGION_ROW                                                                                 \
	"FROM timings t JOIN regions g ON g.id = t.region_id WHERE t.run_id = ?1 AND g.name = ?2"

/* Step s (reset first) with run bound to ?1 and name (len bytes, -1 = up to
 * its NUL) to ?2; it must give a row. */
static void step_run_name(sqlite3_stmt *s, int64_t run, const char *name, int len)
{
	sqlite3_reset(s);
	sqlite3_bind_int64(s, 1, run);
	sqlite3_bind_text(s, 2, name, len, SQLITE_STATIC);
	assert_int_equal(sqlite3_step(s), SQLITE_ROW);
}

/* Everything in the store, summarised: any write changes it. */
static void signature(char *out, size_t len)
{
	sqlite3 *h = db_open();

	tu_sql_text(
	    out, len, h,
	    "SELECT (SELECT count(*) || ':' || total(num_calls) || ':' || "
	    "coalesce(max(id), 0) FROM runs) || ' ' || "
	    "(SELECT count(*) || ':' || total(calls) || ':' || total(total_ns) FROM timings) "
	    "|| ' ' || (SELECT count(*) || ':' || total(length(data)) FROM timings_durations) "
	    "|| ' ' || (SELECT count(*) FROM run_tags) || ' ' || "
	    "(SELECT count(*) || ':' || total(length(value)) FROM run_metadata) || ' ' || "
	    "(SELECT count(*) || ':' || total(length(name)) FROM regions) || ' ' || "
	    "(SELECT coalesce(group_concat(name || '=' || seq), '') FROM sqlite_sequence) "
	    "|| ' ' || (SELECT count(*) FROM pins)");
	assert_string_not_equal(out, "<none>");
	sqlite3_close(h);
}

/* Run run_id is consistent with its rows: num_calls is the sum of its
 * timings and exactly the rows with per-call data have a durations blob. */
static void check_run_consistent(int64_t run_id)
{
	char sql[512];

	snprintf(
	    sql, sizeof(sql),
	    "SELECT (SELECT num_calls FROM runs WHERE id = %lld) = "
	    "(SELECT coalesce(sum(calls), 0) FROM timings WHERE run_id = %lld) AND "
	    "NOT EXISTS (SELECT 1 FROM timings t LEFT JOIN timings_durations d ON "
	    "d.timing_id = t.id WHERE t.run_id = %lld AND (d.timing_id IS NULL) = t.has_events)",
	    (long long)run_id, (long long)run_id, (long long)run_id);
	assert_int_equal(q_int(sql), 1);
}

enum outcome { OUT_STORED = 1, OUT_REFUSED = 2 };

/*
 * Ingest path as case `what`: either it is stored consistently or refused
 * with ERR_FORMAT/ERR_IO, a one-line message naming the file and the store
 * unchanged.  want: OUT_STORED, OUT_REFUSED or both.  Returns the outcome
 * (run id in *run_id when stored).
 */
static enum outcome try_ingest(const char *path, const char *what, unsigned want,
			       const struct ingest_opts *opts, int64_t *run_id)
{
	char before[512], after[512], qpath[600];
	struct ingest_result r;
	int rc;

	snprintf(current_case, sizeof(current_case), "%s (%s)", what, path);
	if (getenv("SCOPEDB_SHOW_ERRORS"))
		fprintf(stderr, "  case: %s\n", what);
	signature(before, sizeof(before));
	err_clear();
	alarm(CASE_SECONDS);
	rc = ingest_file(&r, st, path, opts ? opts : &no_opts);
	alarm(0);
	if (getenv("SCOPEDB_SHOW_ERRORS"))
		fprintf(stderr, "  %s: [%d] %s\n", what, rc, rc ? err_msg() : "stored");
	/* every reader process was reaped, whatever happened to it */
	assert_int_equal(waitpid(-1, NULL, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
	if (rc == 0) {
		if (!(want & OUT_STORED))
			fail_msg("%s: '%s' was ingested, expected a refusal", what, path);
		assert_true(r.run_id > 0);
		check_run_consistent(r.run_id);
		if (run_id)
			*run_id = r.run_id;
		return OUT_STORED;
	}
	if (!(want & OUT_REFUSED))
		fail_msg("%s: '%s' refused: %s", what, path, err_msg());
	if (rc != ERR_FORMAT && rc != ERR_IO)
		fail_msg("%s: code %d (%s), expected ERR_FORMAT or ERR_IO", what, rc, err_msg());
	snprintf(qpath, sizeof(qpath), "'%s'", path);
	if (!strstr(err_msg(), qpath) || strchr(err_msg(), '\n'))
		fail_msg("%s: message does not name '%s' on one line: %s", what, path, err_msg());
	assert_int_equal(r.run_id, 0);
	signature(after, sizeof(after));
	if (strcmp(before, after) != 0)
		fail_msg("%s: store changed by a refused file: '%s' -> '%s'", what, before, after);
	return OUT_REFUSED;
}

static void expect_refused(const char *path, const char *what)
{
	try_ingest(path, what, OUT_REFUSED, NULL, NULL);
}

/* ---- files ---- */

/* The standard options, with the GPU column wherever the layout has one. */
static struct h5write_opts opts_of(int schema, int aggregate)
{
	struct h5write_opts o = tu_h5_opts(schema, aggregate);

	o.gpu = schema > 1 && !aggregate;
	return o;
}

static const char *fresh(const char *name, int schema, int aggregate)
{
	struct h5write_opts o = opts_of(schema, aggregate);

	return tu_h5_write_standard(name, &o);
}

/* The standard profile's offsets and counts as written. */
static void std_index(uint64_t *offsets, uint64_t *counts, uint32_t *ranks)
{
	uint64_t off = 0;
	size_t i;

	for (i = 0; i < STD_ROWS; i++) {
		counts[i] = tu_h5_standard()->rows[i].calls;
		offsets[i] = off;
		ranks[i] = tu_h5_standard()->rows[i].rank;
		off += counts[i];
	}
}

/* ---- tests ---- */

static int setup(void **state)
{
	signal(SIGALRM, watchdog);
	snprintf(db, sizeof(db), "%s", tu_path("hostile.sqlite"));
	assert_int_equal(tu_store_open(state, &st, db), 0);
	/* an existing run that every refusal must leave alone */
	assert_int_equal(try_ingest(fresh("good.h5", 3, 0), "good", OUT_STORED, NULL, NULL),
			 OUT_STORED);
	return 0;
}

/* One damaged file of test_section_6: file name, layout, damage, case. */
struct violation {
	const char *file;
	int schema, aggregate;
	const char *dataset;
	enum h5write_type type;
	const void *data;
	size_t n;
	const char *what;
};

/* docs/format.md section 6, one damaged file per violation. */
static void test_section_6(void **state)
{
	static const char *const missing[] = {
	    "/region_table/names",
	    "/rank_region_index/region_ids",
	    "/rank_region_index/ranks",
	    "/rank_region_index/event_offsets",
	    "/rank_region_index/event_counts",
	    "/events/start_deltas",
	    "/events/durations",
	    "/region_table",
	    "/rank_region_index",
	    "/events",
	};
	uint64_t off[STD_ROWS], cnt[STD_ROWS], past_end[STD_ROWS], overflow[STD_ROWS],
	    near_2_64[STD_ROWS], overlap[STD_ROWS], agg_max[STD_ROWS], agg_sum[STD_ROWS];
	uint32_t ranks[STD_ROWS], region_ids[STD_ROWS], dup_ranks[STD_ROWS];
	int64_t ev[STD_EVENTS], negative[STD_EVENTS];
	double fl[STD_EVENTS];
	const char *path;
	char what[128];
	size_t i;

	(void)state;
	std_index(off, cnt, ranks);
	for (i = 0; i < STD_EVENTS; i++) {
		ev[i] = 10;
		negative[i] = i == 20 ? -5 : 10;
		fl[i] = 10.5;
	}
	for (i = 0; i < STD_ROWS; i++) {
		region_ids[i] = i == 7 ? 4 : (uint32_t)(i % 4);
		dup_ranks[i] = i == 4 ? 0 : ranks[i]; /* (1, solve) becomes a second (0, solve) */
		past_end[i] = cnt[i] + (i == STD_ROWS - 1);
		overflow[i] = i == 4 ? UINT64_MAX - 1 : off[i];
		near_2_64[i] = i == 0 ? UINT64_MAX - 2 : cnt[i];
		overlap[i] = i == 1 ? off[0] + 1 : off[i]; /* row 0 has 5 calls */
		/* aggregate layout: counts near 2^64, and two counts whose sum
		 * does not fit the store's 64-bit signed integers */
		agg_max[i] = i == 0 ? UINT64_MAX : cnt[i];
		agg_sum[i] = i == 0 ? (uint64_t)INT64_MAX - 1 : i == 1 ? 5 : cnt[i];
	}
	{
		const struct violation cases[] = {
		    {"lengths.h5", 3, 0, "/rank_region_index/ranks", H5WRITE_U32, ranks,
		     STD_ROWS - 1, "index columns of different lengths"},
		    {"region-id.h5", 3, 0, "/rank_region_index/region_ids", H5WRITE_U32, region_ids,
		     STD_ROWS, "region id >= number of names"},
		    {"past-end.h5", 3, 0, "/rank_region_index/event_counts", H5WRITE_U64, past_end,
		     STD_ROWS, "offset + count beyond the event columns"},
		    {"overflow.h5", 3, 0, "/rank_region_index/event_offsets", H5WRITE_U64, overflow,
		     STD_ROWS, "offset + count overflowing"},
		    {"count-2-64.h5", 3, 0, "/rank_region_index/event_counts", H5WRITE_U64,
		     near_2_64, STD_ROWS, "event count near 2^64"},
		    {"overlap.h5", 3, 0, "/rank_region_index/event_offsets", H5WRITE_U64, overlap,
		     STD_ROWS, "overlapping rows"},
		    {"duplicate.h5", 3, 0, "/rank_region_index/ranks", H5WRITE_U32, dup_ranks,
		     STD_ROWS, "the same (rank, region) twice"},
		    {"event-lengths.h5", 3, 0, "/events/durations", H5WRITE_I64, ev, STD_EVENTS - 1,
		     "event columns of different lengths"},
		    {"negative.h5", 3, 0, "/events/durations", H5WRITE_I64, negative, STD_EVENTS,
		     "a negative duration"},
		    {"negative-s2.h5", 2, 0, "/events/end_times", H5WRITE_I64, ev, STD_EVENTS,
		     "end before start (schema 2)"},
		    {"float-times.h5", 3, 0, "/events/start_deltas", H5WRITE_F64, fl, STD_EVENTS,
		     "float timestamps"},
		    {"float-counts.h5", 3, 0, "/rank_region_index/event_counts", H5WRITE_F64, fl,
		     STD_ROWS, "float counts"},
		    {"names-int.h5", 3, 0, "/region_table/names", H5WRITE_I64, ev, 4,
		     "integer region names"},
		    {"agg-2-64.h5", 3, 1, "/rank_region_index/aggregate_counts", H5WRITE_U64,
		     agg_max, STD_ROWS, "aggregate count 2^64 - 1"},
		    {"agg-sum.h5", 3, 1, "/rank_region_index/aggregate_counts", H5WRITE_U64,
		     agg_sum, STD_ROWS, "aggregate counts summing past 2^63"},
		};

		for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			struct tu_h5_damage d = {NULL, cases[i].dataset, cases[i].type,
						 cases[i].data, cases[i].n};

			path = fresh(cases[i].file, cases[i].schema, cases[i].aggregate);
			tu_h5_damage(path, &d);
			expect_refused(path, cases[i].what);
		}
	}

	for (i = 0; i < sizeof(missing) / sizeof(missing[0]); i++) {
		char name[64];

		snprintf(name, sizeof(name), "missing-%zu.h5", i);
		path = fresh(name, 3, 0);
		assert_int_equal(h5write_delete(path, missing[i]), 0);
		snprintf(what, sizeof(what), "missing %s", missing[i]);
		expect_refused(path, what);
	}

	/* not a profile at all */
	path = tu_path("empty.h5");
	tu_write_file(path, "", 0);
	expect_refused(path, "empty file");
	path = tu_path("text.h5");
	tu_write_file(path, "hello\n", 6);
	expect_refused(path, "text file");
	expect_refused(tu_tmpdir(), "directory");
	expect_refused(tu_path("does-not-exist.h5"), "missing file");
}

/* Truncated copies of valid files at many offsets. */
static void test_truncations(void **state)
{
	char srcs[3][512];
	unsigned char *b;
	long len, cut;
	char name[64], what[96];
	int v, k, stored = 0;

	(void)state;
	/* (tu_path buffers rotate: keep copies) */
	snprintf(srcs[0], sizeof(srcs[0]), "%s", fresh("trunc-src3.h5", 3, 0));
	{
		struct h5write_opts o = opts_of(3, 0);

		o.gzip = 1;
		snprintf(srcs[1], sizeof(srcs[1]), "%s", tu_h5_write_standard("trunc-srcz.h5", &o));
	}
	snprintf(srcs[2], sizeof(srcs[2]), "%s", fresh("trunc-src1.h5", 1, 0));
	for (v = 0; v < 3; v++) {
		b = tu_read_file(srcs[v], &len);
		for (k = 0; k < 48; k++) {
			/* 40 offsets spread over the file, then the edges */
			static const long edges[] = {1, 8, 96, 511, 512, 2048, -1, -8};

			cut = k < 40 ? len * k / 40 : edges[k - 40];
			if (cut < 0)
				cut += len;
			if (cut < 0 || cut >= len)
				continue;
			snprintf(name, sizeof(name), "trunc-%d-%ld.h5", v, cut);
			tu_write_file(tu_path(name), b, (size_t)cut);
			snprintf(what, sizeof(what), "variant %d truncated to %ld of %ld bytes", v,
				 cut, len);
			if (try_ingest(tu_path(name), what, OUT_STORED | OUT_REFUSED, NULL, NULL) ==
			    OUT_STORED)
				stored++;
			unlink(tu_path(name));
		}
		free(b);
	}
	/* a truncated HDF5 file is never complete */
	assert_int_equal(stored, 0);
}

/* xorshift64*: the byte-flip corpus is reproducible from its seed. */
static uint64_t rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * UINT64_C(2685821657736338717);
}

/*
 * Seeded random byte flips of valid files of four kinds (schema 3, schema 3
 * gzip, schema 1, schema 2 with fixed-length strings and summary
 * statistics): seed s damages variant s % 4 with 1 + s % 5 flips, half of
 * them in the first 4 KB where HDF5 keeps most of its metadata.
 *
 * Every one is stored or refused cleanly within its --file-timeout, and the
 * reader processes stay within their memory limit.  libhdf5 1.10.8 crashes
 * on some of them (a global heap collection whose object sizes H5HG_read()
 * trusts, copied out of bounds while reading variable-length strings: seeds
 * 24, 36, 41, 61, 89, ... of variants 0-2); since issue 13 that is the
 * error "the HDF5 library crashed reading it (signal N)", counted here.
 */
static void test_byte_flips(void **state)
{
	char srcs[4][512];
	unsigned char *orig[4], *b;
	long len[4];
	int nflips = env_int("HOSTILE_FLIPS", DEFAULT_FLIPS), seed, v, stored = 0, refused = 0,
	    crashed = 0;
	const struct ingest_limits lim = {FLIP_TIMEOUT_S, FLIP_MEMORY_MIB};
	struct ingest_opts io = no_opts;
	struct rusage ru;
	int first = env_int("HOSTILE_FLIP_FIRST", 0);
	char name[64], what[96];

	(void)state;
	io.limits = &lim;
	{
		struct h5write_opts o = opts_of(3, 0);

		snprintf(srcs[0], sizeof(srcs[0]), "%s", tu_h5_write_standard("flip-src0.h5", &o));
		o.gzip = 1;
		snprintf(srcs[1], sizeof(srcs[1]), "%s", tu_h5_write_standard("flip-src1.h5", &o));
		o = opts_of(1, 0);
		snprintf(srcs[2], sizeof(srcs[2]), "%s", tu_h5_write_standard("flip-src2.h5", &o));
		o = opts_of(2, 0);
		o.fixed_strings = 1;
		o.summary = 1;
		snprintf(srcs[3], sizeof(srcs[3]), "%s", tu_h5_write_standard("flip-src3.h5", &o));
	}
	for (v = 0; v < 4; v++)
		orig[v] = tu_read_file(srcs[v], &len[v]);
	for (seed = first; seed < nflips; seed++) {
		uint64_t s = UINT64_C(0x9e3779b97f4a7c15) ^ (uint64_t)(seed + 1) * 7919;
		int k, n = 1 + seed % 5;

		v = seed % 4;
		b = malloc((size_t)len[v]);
		assert_non_null(b);
		memcpy(b, orig[v], (size_t)len[v]);
		for (k = 0; k < n; k++) {
			long span = k % 2 == 0 && len[v] > 4096 ? 4096 : len[v];
			long pos = (long)(rnd(&s) % (uint64_t)span);

			b[pos] ^= (unsigned char)(1 + rnd(&s) % 255);
		}
		snprintf(name, sizeof(name), "flip-%d.h5", seed);
		tu_write_file(tu_path(name), b, (size_t)len[v]);
		free(b);
		snprintf(what, sizeof(what), "byte flips seed %d (variant %d, %d flips)", seed, v,
			 n);
		if (try_ingest(tu_path(name), what, OUT_STORED | OUT_REFUSED, &io, NULL) ==
		    OUT_STORED) {
			stored++;
		} else {
			refused++;
			crashed += strstr(err_msg(), "the HDF5 library crashed") != NULL;
			/* a hang is a timeout, which this corpus does not have */
			if (strstr(err_msg(), "--file-timeout"))
				fail_msg("%s: %s", what, err_msg());
		}
		unlink(tu_path(name));
	}
	for (v = 0; v < 4; v++)
		free(orig[v]);
	printf("  byte flips: %d variants, %d stored, %d refused (%d crashed libhdf5)\n",
	       nflips - first, stored, refused, crashed);
	assert_int_equal(stored + refused, nflips - first);
	/* the largest reader process stayed within its limit (its RSS counts
	 * the pages it shares with this process too); not under ASan, where
	 * the limit is not applied and shadow memory and quarantine dominate */
	assert_int_equal(getrusage(RUSAGE_CHILDREN, &ru), 0);
	printf("  largest reader: %ld MiB resident\n", ru.ru_maxrss / 1024);
#if !defined(__SANITIZE_ADDRESS__)
	assert_true(ru.ru_maxrss < (long)FLIP_MEMORY_MIB * 1024);
#endif
	/* the corpus really damages files */
	assert_true(refused >= nflips / 4);
}

/* A region name of 1 MB and a profile with 100k regions, HDF5 and JSON. */
static void test_absurd_sizes(void **state)
{
	int nreg = env_int("HOSTILE_REGIONS", DEFAULT_REGIONS);
	struct h5write_row *rows;
	struct h5write_profile prof;
	struct h5write_opts o = opts_of(3, 0);
	int64_t *starts, *ends, run = 0;
	char *big, **names, sql[256];
	size_t mb = (size_t)1 << 20;
	int i;

	(void)state;
	/* 1 MB name (ending in a multi-byte character) */
	big = malloc(mb + 1);
	assert_non_null(big);
	memset(big, 'n', mb);
	memcpy(big + mb - 2, "\xce\xbb", 2);
	big[mb] = '\0';
	rows = calloc(2, sizeof(*rows));
	starts = calloc(4, sizeof(*starts));
	ends = calloc(4, sizeof(*ends));
	assert_non_null(rows);
	assert_non_null(starts);
	assert_non_null(ends);
	for (i = 0; i < 2; i++) {
		rows[i].rank = (uint32_t)i;
		rows[i].region = big;
		rows[i].calls = 2;
		rows[i].starts = starts + 2 * i;
		rows[i].ends = ends + 2 * i;
		rows[i].source_line = -1;
		starts[2 * i] = 0;
		ends[2 * i] = 5;
		starts[2 * i + 1] = 10;
		ends[2 * i + 1] = 17;
	}
	memset(&prof, 0, sizeof(prof));
	prof.rows = rows;
	prof.nrows = 2;
	o.gpu = 0;
	assert_int_equal(h5write_file(tu_path("bigname.h5"), &prof, &o), 0);
	{
		struct jsonwrite_opts jo = {0, 0};

		assert_int_equal(jsonwrite_file(tu_path("bigname.json"), &prof, &o, &jo), 0);
	}
	for (i = 0; i < 2; i++) {
		const char *f = tu_path(i ? "bigname.json" : "bigname.h5");
		sqlite3 *h;
		sqlite3_stmt *s;

		assert_int_equal(try_ingest(f, i ? "1 MB region name (JSON)" : "1 MB region name",
					    OUT_STORED, NULL, &run),
				 OUT_STORED);
		h = db_open();
		s = tu_sql_prepare(h, "SELECT count(*), sum(t.calls) " REGION_ROW);
		step_run_name(s, run, big, (int)mb);
		assert_int_equal(sqlite3_column_int64(s, 0), 2);
		assert_int_equal(sqlite3_column_int64(s, 1), 4);
		sqlite3_finalize(s);
		sqlite3_close(h);
	}
	free(big);
	free(rows);
	free(starts);
	free(ends);

	/* nreg regions, one call each, on rank 0 */
	rows = calloc((size_t)nreg, sizeof(*rows));
	names = calloc((size_t)nreg, sizeof(*names));
	starts = calloc((size_t)nreg, sizeof(*starts));
	ends = calloc((size_t)nreg, sizeof(*ends));
	assert_non_null(rows);
	assert_non_null(names);
	assert_non_null(starts);
	assert_non_null(ends);
	for (i = 0; i < nreg; i++) {
		names[i] = malloc(16);
		assert_non_null(names[i]);
		snprintf(names[i], 16, "r%06d", i);
		starts[i] = 10 * (int64_t)i;
		ends[i] = starts[i] + i % 7;
		rows[i].region = names[i];
		rows[i].calls = 1;
		rows[i].starts = &starts[i];
		rows[i].ends = &ends[i];
		rows[i].source_line = -1;
	}
	prof.rows = rows;
	prof.nrows = (size_t)nreg;
	assert_int_equal(h5write_file(tu_path("many.h5"), &prof, &o), 0);
	{
		struct jsonwrite_opts jo = {1, 0};

		assert_int_equal(jsonwrite_file(tu_path("many.json.gz"), &prof, &o, &jo), 0);
	}
	for (i = 0; i < 2; i++) {
		assert_int_equal(try_ingest(tu_path(i ? "many.json.gz" : "many.h5"),
					    i ? "many regions (JSON)" : "many regions", OUT_STORED,
					    NULL, &run),
				 OUT_STORED);
		snprintf(sql, sizeof(sql),
			 "SELECT num_regions = %d AND num_calls = %d AND (SELECT count(*) FROM "
			 "timings WHERE run_id = %lld) = %d FROM runs WHERE id = %lld",
			 nreg, nreg, (long long)run, nreg, (long long)run);
		assert_int_equal(q_int(sql), 1);
	}
	for (i = 0; i < nreg; i++)
		free(names[i]);
	free(names);
	free(rows);
	free(starts);
	free(ends);
}

/* Names, tags, label and metadata with quotes, %, newlines, control bytes,
 * C1 controls, noncharacters and SQL metacharacters (the hostile name
 * corpus, hostile_names.h, but its names of no UTF-8) are stored byte for
 * byte. */
static void test_hostile_names(void **state)
{
	enum { N = 64 }; /* at least hostile_nnames */
	/* the corpus's names of valid UTF-8 (bytes of no UTF-8 are refused:
	 * test_hostile_not_utf8) */
	const char *names[N];
	struct h5write_row rows[N];
	struct h5write_profile prof;
	struct h5write_opts o = opts_of(3, 0);
	struct ingest_opts io;
	int64_t starts[N], ends[N], run = 0;
	const char *metas[] = {"k'ey=v\"al;--\n%s", "x%n=DROP TABLE runs"};
	size_t i, n = 0;

	(void)state;
	assert_true(hostile_nnames <= N);
	for (i = 0; i < hostile_nnames; i++)
		if (hostile_name_is_utf8(hostile_names[i]))
			names[n++] = hostile_names[i];
	assert_true(n + 2 >= hostile_nnames);
	memset(rows, 0, sizeof(rows));
	for (i = 0; i < n; i++) {
		starts[i] = 100 * (int64_t)i;
		ends[i] = starts[i] + 3;
		rows[i].rank = 0;
		rows[i].region = names[i];
		rows[i].calls = 1;
		rows[i].starts = &starts[i];
		rows[i].ends = &ends[i];
		rows[i].source_file = names[n - 1 - i];
		rows[i].source_line = (int64_t)i;
		rows[i].tags = names;
		rows[i].ntags = n;
	}
	memset(&prof, 0, sizeof(prof));
	prof.rows = rows;
	prof.nrows = n;
	o.gpu = 0;
	assert_int_equal(h5write_file(tu_path("names.h5"), &prof, &o), 0);
	memset(&io, 0, sizeof(io));
	io.tags = names;
	io.ntags = n;
	io.label = names[6];
	io.commit = names[7];
	io.branch = names[2];
	io.meta = metas;
	io.nmeta = 2;
	assert_int_equal(try_ingest(tu_path("names.h5"), "hostile names", OUT_STORED, &io, &run),
			 OUT_STORED);

	{
		sqlite3 *h = db_open();
		/* every region name and its tags */
		sqlite3_stmt *s = tu_sql_prepare(h, "SELECT t.tags, t.source_file " REGION_ROW);

		for (i = 0; i < n; i++) {
			char **tags = NULL;
			size_t ntags = 0, k;

			step_run_name(s, run, names[i], -1);
			assert_int_equal(
			    json_parse_strarray(&tags, &ntags,
						(const char *)sqlite3_column_text(s, 0)),
			    0);
			assert_int_equal(ntags, n);
			for (k = 0; k < n; k++)
				assert_string_equal(tags[k], names[k]);
			json_strarray_free(tags, ntags);
			assert_string_equal((const char *)sqlite3_column_text(s, 1),
					    names[n - 1 - i]);
		}
		sqlite3_finalize(s);

		/* run tags, label, commit, branch, metadata */
		s = tu_sql_prepare(h, "SELECT count(*) FROM run_tags WHERE run_id = ?1 "
				      "AND tag = ?2");
		for (i = 0; i < n; i++) {
			step_run_name(s, run, names[i], -1);
			assert_int_equal(sqlite3_column_int(s, 0), 1);
		}
		sqlite3_finalize(s);
		s = tu_sql_prepare(h, "SELECT label = ?2 AND commit_sha = ?3 AND "
				      "branch = ?4 AND (SELECT value FROM run_metadata "
				      "WHERE run_id = ?1 AND key = 'k''ey') = ?5 AND "
				      "(SELECT value FROM run_metadata WHERE run_id = ?1 "
				      "AND key = 'x%n') = 'DROP TABLE runs' "
				      "FROM runs WHERE id = ?1");
		sqlite3_bind_int64(s, 1, run);
		sqlite3_bind_text(s, 2, names[6], -1, SQLITE_STATIC);
		sqlite3_bind_text(s, 3, names[7], -1, SQLITE_STATIC);
		sqlite3_bind_text(s, 4, names[2], -1, SQLITE_STATIC);
		sqlite3_bind_text(s, 5, "v\"al;--\n%s", -1, SQLITE_STATIC);
		assert_int_equal(sqlite3_step(s), SQLITE_ROW);
		assert_int_equal(sqlite3_column_int(s, 0), 1);
		sqlite3_finalize(s);
		sqlite3_close(h);
	}
	/* the tables are all still there */
	assert_int_equal(q_int("SELECT count(*) FROM sqlite_master WHERE name IN "
			       "('runs', 'timings', 'regions', 'run_tags')"),
			 4);
}

/* Issue 24: a store holds UTF-8 text only.  A file whose region name,
 * source or tags are not UTF-8, or options that are not, are refused with
 * one line naming it, and nothing is stored. */
static void test_hostile_not_utf8(void **state)
{
	static const char *const bad = "bad utf-8 \xff\xfe\x80\xc3";
	static const char *const tags[] = {"ok", "bad utf-8 \xff\xfe\x80\xc3"};
	int64_t s0 = 10, e0 = 20;
	struct h5write_row row = {.rank = 0,
				  .region = "solve",
				  .calls = 1,
				  .starts = &s0,
				  .ends = &e0,
				  .source_line = -1};
	struct h5write_profile prof = {&row, 1, NULL, 0};
	struct h5write_opts o = opts_of(3, 0);
	struct ingest_opts io;
	struct ingest_result r;
	char before[512], after[512];
	int k;

	(void)state;
	for (k = 0; k < 3; k++) {
		row.region = k == 0 ? bad : "solve";
		row.source_file = k == 1 ? bad : "";
		row.tags = k == 2 ? tags : NULL;
		row.ntags = k == 2 ? 2 : 0;
		assert_int_equal(h5write_file(tu_path("notutf8.h5"), &prof, &o), 0);
		assert_int_equal(
		    try_ingest(tu_path("notutf8.h5"), "not UTF-8", OUT_REFUSED, NULL, NULL),
		    OUT_REFUSED);
		assert_non_null(strstr(err_msg(), "is not valid UTF-8 (byte 0xff at offset "));
	}
	/* options: refused before the file is read */
	row.region = "solve";
	row.source_file = "";
	row.tags = NULL;
	row.ntags = 0;
	assert_int_equal(h5write_file(tu_path("notutf8.h5"), &prof, &o), 0);
	memset(&io, 0, sizeof(io));
	io.tags = tags;
	io.ntags = 2;
	signature(before, sizeof(before));
	assert_int_equal(ingest_file(&r, st, tu_path("notutf8.h5"), &io), ERR_USAGE);
	assert_string_equal(err_msg(),
			    "invalid --tag 'bad utf-8 \xff\xfe\x80\xc3': not valid UTF-8 "
			    "(a store holds UTF-8 text only)");
	signature(after, sizeof(after));
	assert_string_equal(before, after);
}

/* A damaged file whose path has a quote, %, and a newline: the message is
 * still one line and names it (escaped). */
static void test_hostile_path(void **state)
{
	char path[600];
	struct ingest_result r;

	(void)state;
	snprintf(path, sizeof(path), "%s/bad'%%s\n%%n.h5", tu_tmpdir());
	tu_write_file(path, "not hdf5", 8);
	err_clear();
	assert_int_equal(ingest_file(&r, st, path, &no_opts), ERR_FORMAT);
	assert_null(strchr(err_msg(), '\n'));
	assert_non_null(strstr(err_msg(), "bad\\x27%s\\x0a%n.h5"));
	unlink(path);
}

/* The pure index validation that the fuzz target drives. */
static void test_validate_index(void **state)
{
	uint64_t off[STD_ROWS], cnt[STD_ROWS];
	uint32_t ranks[STD_ROWS], reg[STD_ROWS];
	struct h5prof_index idx;
	size_t i;

	(void)state;
	std_index(off, cnt, ranks);
	for (i = 0; i < STD_ROWS; i++)
		reg[i] = (uint32_t)i % 4;
	/* the standard profile's index: rows (rank, i % 4) are unique */
	memset(&idx, 0, sizeof(idx));
	idx.num_rows = STD_ROWS;
	idx.region_ids = reg;
	idx.ranks = ranks;
	idx.offsets = off;
	idx.counts = cnt;
	idx.num_names = 4;
	idx.num_events = STD_EVENTS;
	ranks[3] = 0; /* (0, 3) */
	assert_int_equal(h5prof_validate_index("x.h5", &idx), 0);
	/* gaps are legal */
	idx.num_events = STD_EVENTS + 100;
	off[12] += 50;
	assert_int_equal(h5prof_validate_index("x.h5", &idx), 0);
	off[12] -= 50;
	idx.num_events = STD_EVENTS - 1;
	assert_int_equal(h5prof_validate_index("x.h5", &idx), ERR_FORMAT);
	assert_non_null(strstr(err_msg(), "cannot read 'x.h5': row 12"));
	idx.num_events = STD_EVENTS;
	idx.num_names = 3;
	assert_int_equal(h5prof_validate_index("x.h5", &idx), ERR_FORMAT);
	assert_non_null(strstr(err_msg(), "refers to region 3"));
	idx.num_names = 4;
	off[1] = 1;
	assert_int_equal(h5prof_validate_index("x.h5", &idx), ERR_FORMAT);
	assert_non_null(strstr(err_msg(), "overlapping"));
	off[1] = 5;
	reg[4] = 0;
	ranks[4] = 0;
	assert_int_equal(h5prof_validate_index("x.h5", &idx), ERR_FORMAT);
	assert_non_null(strstr(err_msg(), "appears twice"));
	ranks[4] = 1;
	/* aggregate: offsets ignored, counts must fit int64 in total */
	idx.aggregate = 1;
	idx.offsets = NULL;
	assert_int_equal(h5prof_validate_index("x.h5", &idx), 0);
	cnt[0] = (uint64_t)INT64_MAX;
	assert_int_equal(h5prof_validate_index("x.h5", &idx), ERR_FORMAT);
	assert_non_null(strstr(err_msg(), "overflow"));
}

/* ---- JSON profiles (issue 25) ---- */

/* Every hostile JSON case: refused, with its own message. */
static void test_json_cases(void **state)
{
	char name[96], path[600];
	size_t i;

	(void)state;
	for (i = 0; i < hostile_json_ncases; i++) {
		const struct hostile_json_case *c = &hostile_json_cases[i];

		snprintf(name, sizeof(name), "hj-%s.json%s", c->kind, c->gzip ? ".gz" : "");
		snprintf(path, sizeof(path), "%s", tu_path(name));
		if (hostile_json_write(c->kind, path))
			fail_msg("cannot write JSON case %s", c->kind);
		expect_refused(path, c->kind);
		if (!strstr(err_msg(), c->expect))
			fail_msg("JSON case %s: expected '%s' in: %s", c->kind, c->expect,
				 err_msg());
		unlink(path);
	}
}

/*
 * Seeded byte flips (1 to 5 each) and truncations of the JSON twin of the
 * standard profile, plain and gzip: each stored consistently or refused
 * with a one-line message, never a crash or a hang.  A truncated document
 * is never stored.
 */
static void test_json_damage(void **state)
{
	const struct h5write_profile *prof = tu_h5_standard();
	struct h5write_opts o = opts_of(3, 0);
	struct jsonwrite_opts jo = {0, 0};
	int nflips = env_int("HOSTILE_FLIPS", DEFAULT_FLIPS) / 4, seed, v, k, refused = 0;
	unsigned char *orig[2], *b;
	char srcs[2][512], name[64], what[96];
	long len[2], cut;

	(void)state;
	snprintf(srcs[0], sizeof(srcs[0]), "%s", tu_path("jflip-src.json"));
	snprintf(srcs[1], sizeof(srcs[1]), "%s", tu_path("jflip-src.json.gz"));
	for (v = 0; v < 2; v++) {
		jo.gzip = v;
		assert_int_equal(jsonwrite_file(srcs[v], prof, &o, &jo), 0);
		orig[v] = tu_read_file(srcs[v], &len[v]);
		/* the twin itself is a profile */
		try_ingest(srcs[v], "JSON twin", OUT_STORED, NULL, NULL);
	}
	for (seed = 0; seed < nflips; seed++) {
		uint64_t s = UINT64_C(0x51ed27f00d) ^ (uint64_t)(seed + 1) * 104729;
		int n = 1 + seed % 5;

		v = seed % 2;
		b = malloc((size_t)len[v]);
		assert_non_null(b);
		memcpy(b, orig[v], (size_t)len[v]);
		for (k = 0; k < n; k++)
			b[rnd(&s) % (uint64_t)len[v]] ^= (unsigned char)(1 + rnd(&s) % 255);
		snprintf(name, sizeof(name), "jflip-%d.json%s", seed, v ? ".gz" : "");
		tu_write_file(tu_path(name), b, (size_t)len[v]);
		free(b);
		snprintf(what, sizeof(what), "JSON byte flips seed %d (%s, %d flips)", seed,
			 v ? "gzip" : "plain", n);
		if (try_ingest(tu_path(name), what, OUT_STORED | OUT_REFUSED, NULL, NULL) ==
		    OUT_REFUSED)
			refused++;
		unlink(tu_path(name));
	}
	for (v = 0; v < 2; v++) {
		for (k = 1; k < 20; k++) {
			cut = len[v] * k / 20;
			snprintf(name, sizeof(name), "jtrunc-%d-%ld.json%s", v, cut,
				 v ? ".gz" : "");
			tu_write_file(tu_path(name), orig[v], (size_t)cut);
			snprintf(what, sizeof(what), "JSON %s truncated to %ld of %ld bytes",
				 v ? "gzip" : "plain", cut, len[v]);
			try_ingest(tu_path(name), what, OUT_REFUSED, NULL, NULL);
			unlink(tu_path(name));
		}
		free(orig[v]);
	}
	printf("  JSON byte flips: %d variants, %d refused\n", nflips, refused);
	assert_true(refused >= nflips / 4);
}

TU_MAIN(setup, tu_store_teardown,
	{
	    cmocka_unit_test(test_validate_index),
	    cmocka_unit_test(test_section_6),
	    cmocka_unit_test(test_truncations),
	    cmocka_unit_test(test_byte_flips),
	    cmocka_unit_test(test_hostile_names),
	    cmocka_unit_test(test_hostile_not_utf8),
	    cmocka_unit_test(test_hostile_path),
	    cmocka_unit_test(test_json_cases),
	    cmocka_unit_test(test_json_damage),
	    /* last: its 100k regions would make every later signature() of
	     * the store scan them, twice per file */
	    cmocka_unit_test(test_absurd_sizes),
	})
