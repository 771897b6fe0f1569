/*
 * test_ingest.c - ingest_file() end to end against a real store: the
 * upstream fixtures, generated profiles of every layout (values checked row
 * by row against the arrays that generated them, durations blobs decoded),
 * duplicates, damaged files that must leave the store unchanged, and the
 * finish pipeline (store_finish_run(), src/store/finish.c) over a
 * temporary store; the call trees the reader child computes and sends
 * (issue 22), walked again on the store's side; kept readers that die
 * while idle (ingest_read.h).
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

#include "h5write.h"
#include "jsonwrite.h"
#include "ingest/ingest_big.h"
#include "ingest/ingest_child.h"
#include "ingest/ingest_nest.h"
#include "ingest/ingest_quant.h"
#include "ingest/ingest_read.h"
#include "ingest/rowstat.h"
#include "scopedb/err.h"
#include "scopedb/ingest.h"
#include "scopedb/store.h"
#include "scopedb/util.h"
#include "store/blob.h"
#include "store/finish.h"
#include "store/sqlite/sqlite.h"
#include "testutil.h"
#include "testutil_db.h"
#include "testutil_h5.h"

/* A snapshot of every table's row count, to prove a failure wrote nothing. */
static void counts(const char *db, char *out, size_t len)
{
	snprintf(out, len, "%lld %lld %lld %lld %lld %lld",
		 (long long)tu_db_int(db, "select count(*) from runs"),
		 (long long)tu_db_int(db, "select count(*) from timings"),
		 (long long)tu_db_int(db, "select count(*) from timings_durations"),
		 (long long)tu_db_int(db, "select count(*) from run_tags"),
		 (long long)tu_db_int(db, "select count(*) from run_metadata"),
		 (long long)tu_db_int(db, "select count(*) from regions"));
}

static struct ingest_opts no_opts;

static void test_upstream_fixtures(void **state)
{
	static const char *const files[] = {"schema-1.h5", "schema-2.h5", "schema-3.h5"};
	const char *db = tu_path("fixtures.sqlite");
	struct store *st = NULL;
	size_t i;

	(void)state;
	assert_int_equal(store_open(&st, db, 0), 0);
	for (i = 0; i < 3; i++) {
		struct ingest_result r;

		assert_int_equal(ingest_file(&r, st, tu_fixture(files[i]), &no_opts), 0);
		assert_int_equal(r.run_id, (int64_t)i + 1);
		assert_false(r.duplicate);
		assert_int_equal(r.num_ranks, 1);
		assert_int_equal(r.num_regions, 1);
		assert_int_equal(r.num_calls, 3);
	}
	store_close(st);
	/* durations 5, 13, 15 in every layout */
	assert_int_equal(tu_db_int(db,
				   "select count(*) from timings where calls=3 and total_ns=33 "
				   "and min_ns=5 and max_ns=15 and first_ns=5 and last_ns=15 and "
				   "start_min_ns=10 and end_max_ns=55 and rank=0 and has_events=1"),
			 3);
	assert_int_equal(tu_db_int(db, "select count(*) from timings where source_line=7 and "
				       "source_file='solver.py' and tags='[\"golden\"]'"),
			 3);
	assert_int_equal(tu_db_int(db, "select count(distinct region_id) from timings"), 1);
	assert_int_equal(tu_db_int(db, "select count(*) from run_metadata where key='mpi_size' and "
				       "value='1'"),
			 3);
	assert_int_equal(tu_db_int(db, "select count(*) from runs where layout='hierarchical'"), 1);
	assert_int_equal(tu_db_int(db, "select count(*) from runs where layout='columnar'"), 2);
}

/* Generated profile: 3 ranks, regions with GPU data, a zero-call row and a
 * region missing on rank 2; each row's calls times mult (at most 8). */
#define GEN_MAX 320
static int64_t g_starts[3][3][GEN_MAX], g_ends[3][3][GEN_MAX], g_gpu[3][3][GEN_MAX];

static size_t gen_rows(struct h5write_row *rows, size_t mult)
{
	static const char *const names[] = {"solve", "exchange", "größe_λ"};
	static const char *const tags[] = {"mpi", "hot"};
	size_t n = 0;
	uint32_t r, g;
	uint64_t x = 42;

	for (r = 0; r < 3; r++) {
		for (g = 0; g < 3; g++) {
			size_t calls = g == 1 && r == 1 ? 0 : (10 + 7 * r + 3 * g) * mult, i;
			int64_t t = 1000;

			if (g == 2 && r == 2)
				continue; /* missing on rank 2 */
			for (i = 0; i < calls; i++) {
				x ^= x << 13;
				x ^= x >> 7;
				x ^= x << 17;
				g_starts[r][g][i] = t;
				g_ends[r][g][i] = t + (int64_t)(x % 100000) + 1;
				g_gpu[r][g][i] = (i % 3 == 0) ? -1 : (int64_t)(x % 5000);
				t = g_ends[r][g][i] + 17;
			}
			rows[n].rank = r;
			rows[n].region = names[g];
			rows[n].calls = calls;
			rows[n].starts = g_starts[r][g];
			rows[n].ends = g_ends[r][g];
			rows[n].gpu = g == 0 ? g_gpu[r][g] : NULL;
			rows[n].source_file = "app.c";
			rows[n].source_line = 100 + g;
			rows[n].tags = tags;
			rows[n].ntags = g == 0 ? 2 : 0;
			n++;
		}
	}
	return n;
}

/* Write the generated profile to tu_path(name) with o; returns the path
 * (tu_path's rotating buffer). */
static const char *write_generated(const char *name, const struct h5write_opts *o, size_t mult)
{
	static struct h5write_row rows[9];
	struct h5write_profile prof = {rows, 0, NULL, 0};
	const char *path = tu_path(name);

	prof.nrows = gen_rows(rows, mult);
	assert_int_equal(h5write_file(path, &prof, o), 0);
	return path;
}

/* Compare every stored timings row with the generating arrays. */
static void check_generated(const char *db, int64_t run_id, int layout_schema, int aggregate,
			    size_t mult)
{
	struct h5write_row rows[9];
	size_t n = gen_rows(rows, mult), k;
	sqlite3 *h = tu_db_open(db, 0);

	for (k = 0; k < n; k++) {
		sqlite3_stmt *s;
		int64_t total = 0, mn = INT64_MAX, mx = 0, gtot = 0, gcnt = 0;
		struct i64vec d;
		size_t i;

		for (i = 0; i < rows[k].calls; i++) {
			int64_t v = rows[k].ends[i] - rows[k].starts[i];

			total += v;
			mn = v < mn ? v : mn;
			mx = v > mx ? v : mx;
			if (rows[k].gpu && rows[k].gpu[i] >= 0) {
				gtot += rows[k].gpu[i];
				gcnt++;
			}
		}
		s = tu_sql_prepare(h, "select t.calls, t.total_ns, t.min_ns, t.max_ns, "
				      "t.gpu_count, t.gpu_total_ns, d.data, t.has_events "
				      "from timings t join regions g on g.id=t.region_id "
				      "left join timings_durations d on d.timing_id=t.id "
				      "where t.run_id=?1 and t.rank=?2 and g.name=?3");
		sqlite3_bind_int64(s, 1, run_id);
		sqlite3_bind_int64(s, 2, rows[k].rank);
		sqlite3_bind_text(s, 3, rows[k].region, -1, SQLITE_STATIC);
		if (sqlite3_step(s) != SQLITE_ROW) {
			/* schema 1 writes no group for a region without calls */
			assert_int_equal(rows[k].calls, 0);
			assert_int_equal(layout_schema, 1);
			sqlite3_finalize(s);
			continue;
		}
		assert_int_equal(sqlite3_column_int64(s, 0), rows[k].calls);
		assert_int_equal(sqlite3_column_int64(s, 1), total);
		if (rows[k].calls) {
			assert_int_equal(sqlite3_column_int64(s, 2), mn);
			assert_int_equal(sqlite3_column_int64(s, 3), mx);
		}
		if (aggregate) {
			assert_int_equal(sqlite3_column_int64(s, 7), 0);
			assert_int_equal(sqlite3_column_type(s, 6), SQLITE_NULL);
			sqlite3_finalize(s);
			continue;
		}
		assert_int_equal(sqlite3_column_int64(s, 4), gcnt);
		assert_int_equal(sqlite3_column_int64(s, 5), gtot);
		i64vec_init(&d);
		assert_int_equal(blob_decode_append(&d, sqlite3_column_blob(s, 6),
						    (size_t)sqlite3_column_bytes(s, 6)),
				 0);
		assert_int_equal(d.len, rows[k].calls);
		{
			int64_t want[GEN_MAX];

			for (i = 0; i < rows[k].calls; i++)
				want[i] = rows[k].ends[i] - rows[k].starts[i];
			util_sort_i64(want, rows[k].calls);
			for (i = 0; i < d.len; i++)
				assert_int_equal(d.v[i], want[i]);
		}
		i64vec_release(&d);
		sqlite3_finalize(s);
	}
	sqlite3_close(h);
}

/* Every layout ingested, each stored row checked against what was written
 * (mult: calls a row times that). */
static void generated_layouts(const char *dbname, size_t mult)
{
	char db[512];
	struct store *st = NULL;
	int schema, variant;

	snprintf(db, sizeof(db), "%s", tu_path(dbname));
	assert_int_equal(store_open(&st, db, 0), 0);
	for (schema = 1; schema <= 3; schema++) {
		for (variant = 0; variant < 3; variant++) {
			struct h5write_opts o = {.schema = schema,
						 .gpu = 1,
						 .mpi_size = 3,
						 .gzip = variant == 1,
						 .fixed_strings = variant == 2,
						 .aggregate = schema >= 2 && variant == 2};
			struct ingest_result r;
			char name[64];

			snprintf(name, sizeof(name), "gen-%d-%d.h5", schema, variant);
			assert_int_equal(
			    ingest_file(&r, st, write_generated(name, &o, mult), &no_opts), 0);
			assert_int_equal(r.num_ranks, 3);
			assert_int_equal(r.num_regions, 3);
			check_generated(db, r.run_id, schema, o.aggregate, mult);
		}
	}
	store_close(st);
}

static void test_generated_layouts(void **state)
{
	(void)state;
	generated_layouts("layouts.sqlite", 1);
}

/* The JSON twins (plain and gzip) of the generated profile, each stored
 * row checked against what was written. */
static void generated_json(const char *dbname, size_t mult)
{
	static struct h5write_row rows[9];
	struct h5write_profile prof = {rows, 0, NULL, 0};
	const struct h5write_opts o = {.schema = 3, .gpu = 1, .mpi_size = 3};
	struct store *st = NULL;
	char db[512];
	int gz;

	prof.nrows = gen_rows(rows, mult);
	snprintf(db, sizeof(db), "%s", tu_path(dbname));
	assert_int_equal(store_open(&st, db, 0), 0);
	for (gz = 0; gz < 2; gz++) {
		struct jsonwrite_opts jo = {0, 0};
		const char *js = tu_path(gz ? "gen.json.gz" : "gen.json");
		struct ingest_result r;

		jo.gzip = gz;
		assert_int_equal(jsonwrite_file(js, &prof, &o, &jo), 0);
		assert_int_equal(ingest_file(&r, st, js, &no_opts), 0);
		check_generated(db, r.run_id, 3, 0, mult);
	}
	store_close(st);
}

/* The generated layouts (8 times the calls) stored with every testing
 * hook at its default into a store named name, whose path goes to out. */
static void whole_layouts(char *out, size_t n, const char *name)
{
	generated_layouts(name, 8);
	snprintf(out, n, "%s", tu_path(name));
}

/* Every timings row of stores a and b the same, column by column (reals
 * bit for bit), the durations blob too. */
static void same_timings(const char *a, const char *b)
{
	static const char sql[] =
	    "select t.run_id, g.name, t.rank, t.has_events, t.calls, t.total_ns, t.min_ns, "
	    "t.max_ns, t.first_ns, t.last_ns, t.start_min_ns, t.end_max_ns, t.mean_ns, t.m2, "
	    "t.exclusive_ns, t.gpu_count, t.gpu_total_ns, d.data from timings t "
	    "join regions g on g.id = t.region_id "
	    "left join timings_durations d on d.timing_id = t.id order by t.run_id, g.name, t.rank";
	sqlite3 *ha = tu_db_open(a, 1), *hb = tu_db_open(b, 1);
	sqlite3_stmt *sa = tu_sql_prepare(ha, sql), *sb = tu_sql_prepare(hb, sql);
	int rows = 0, ra, k;

	while ((ra = sqlite3_step(sa)) == SQLITE_ROW) {
		assert_int_equal(sqlite3_step(sb), SQLITE_ROW);
		for (k = 0; k < sqlite3_column_count(sa); k++) {
			double x = sqlite3_column_double(sa, k), y = sqlite3_column_double(sb, k);

			assert_int_equal(sqlite3_column_type(sa, k), sqlite3_column_type(sb, k));
			assert_int_equal(sqlite3_column_bytes(sa, k), sqlite3_column_bytes(sb, k));
			if (sqlite3_column_bytes(sa, k))
				assert_memory_equal(sqlite3_column_blob(sa, k),
						    sqlite3_column_blob(sb, k),
						    (size_t)sqlite3_column_bytes(sa, k));
			assert_memory_equal(&x, &y, sizeof(x));
		}
		rows++;
	}
	assert_int_equal(ra, SQLITE_DONE);
	assert_int_equal(sqlite3_step(sb), SQLITE_DONE);
	assert_true(rows > 0);
	sqlite3_finalize(sa);
	sqlite3_finalize(sb);
	sqlite3_close(ha);
	sqlite3_close(hb);
}

/* Rows of more calls than a call tree holds (its budget lowered to 50;
 * rows of 80 to 208 calls) give their rank's tree up unread: the columnar
 * reader hands them out in pieces (ingest_big.c, also with groups of 16
 * values, histograms of 4 buckets and reads of 13 values), as are the
 * rows of schema 1 (their datasets read a window at a time), and JSON
 * rows are sorted where they lie, in place by parts (from 48 values
 * here): every stored number is still what was written, and what the
 * same files give within the budget, bit for bit. */
static void test_rows_past_tree_budget(void **state)
{
	char whole[512];

	(void)state;
	whole_layouts(whole, sizeof(whole), "within-budget.sqlite");
	ingest_testing_tree_budget(50);
	util_sort_testing_parts(48);
	generated_layouts("past-budget.sqlite", 8);
	/* the columnar and schema-1 rows in pieces (ingest_big.c), the
	 * aggregate ones whole */
	same_timings(whole, tu_path("past-budget.sqlite"));
	ingest_big_testing_sizes(16, 4, 13);
	generated_layouts("past-budget-small.sqlite", 8);
	ingest_big_testing_sizes(0, 0, 0);
	same_timings(whole, tu_path("past-budget-small.sqlite"));
	/* a budget of 350: rank 2 (408 calls, in rows of 192 and 216) given
	 * up at its first row, its columnar rows in pieces */
	ingest_testing_tree_budget(350);
	generated_layouts("rank-past-budget.sqlite", 8);
	same_timings(whole, tu_path("rank-past-budget.sqlite"));
	ingest_testing_tree_budget(50);
	h5prof_set_chunk_events(64);
	generated_layouts("past-budget-gathered.sqlite", 8);
	generated_json("past-budget-json.sqlite", 8);
}

/* ---- rows in pieces (ingest_big.c) ---- */

/* Feed d/st/g (n calls) to ingest_big in pieces of piece calls and check
 * the summary against rowstat_compute() of the row held whole, bit for
 * bit, and the blob against store_encode_durations() of its sort; want_rc
 * when the sums overflow; a row of spool_min calls or fewer is held, not
 * spooled. */
static void big_case(const int64_t *d, const int64_t *st, const int64_t *g, size_t n, size_t piece,
		     int want_rc, size_t spool_min)
{
	struct h5prof_row row;
	struct ingest_big b;
	struct rowstat got, want;
	struct buf blob = BUF_INIT;
	int64_t *sorted = malloc(n * sizeof(*sorted));
	unsigned char *back;
	uint64_t off, len;
	size_t from;
	int rc;

	assert_non_null(sorted);
	memset(&b, 0, sizeof(b));
	memset(&row, 0, sizeof(row));
	row.calls = n;
	row.has_events = 1;
	for (from = 0; from < n; from += piece) {
		row.piece_from = from;
		row.piece_len = n - from < piece ? n - from : piece;
		row.piece_last = from + row.piece_len == n;
		row.durations = d + from;
		row.starts = st + from;
		row.gpu = g ? g + from : NULL;
		assert_int_equal(ingest_big_add(&b, &row, "p.h5", "r"), 0);
	}
	rc = ingest_big_end(&b, &got, "p.h5", "r", 0, &off, &len);
	row.piece_len = 0;
	row.durations = d;
	row.starts = st;
	row.gpu = g;
	assert_int_equal(rowstat_compute(&want, &row, "p.h5", "r"), want_rc);
	assert_int_equal(rc, want_rc);
	if (!rc) {
		assert_memory_equal(&got, &want, sizeof(got));
		memcpy(sorted, d, n * sizeof(*d));
		util_sort_i64(sorted, n);
		assert_int_equal(store_encode_durations(&blob, sorted, n), 0);
		/* a row of one group is held (no spool), a longer one spooled */
		assert_int_equal(b.mem, n <= spool_min);
		if (b.mem) {
			assert_int_equal(b.held.len, blob.len);
			assert_memory_equal(b.held.data, blob.data, blob.len);
		} else {
			assert_int_equal(len, blob.len);
			back = malloc(len);
			assert_non_null(back);
			assert_int_equal(pread(b.sp.fd, back, len, (off_t)off), (ssize_t)len);
			assert_memory_equal(back, blob.data, len);
			free(back);
		}
	}
	ingest_big_release(&b);
	buf_release(&blob);
	free(sorted);
}

/*
 * A row in pieces (ingest_big.c) gives rowstat_compute()'s summary and
 * store_encode_durations()'s blob of the row held whole: values spread
 * wide, narrow, all equal, a cluster with one far value on each side,
 * few distinct values, starts that take the checked path, and sums that
 * overflow; pieces of 1, 7 and 64 calls, groups of 16 values and
 * histograms of 4 buckets and reads of 13 values (many reads, splits,
 * one-value buckets, stretches not a multiple of 8: the row spooled) and
 * the defaults (one group: the row held, not spooled).
 */
static void test_big_rows(void **state)
{
	enum { N = 1500 };
	static int64_t d[N], st[N], g[N];
	static const size_t pieces[] = {1, 7, 64, N};
	uint64_t x = 7;
	int shape, p, sizes;

	(void)state;
	for (sizes = 0; sizes < 2; sizes++) {
		ingest_big_testing_sizes(sizes ? 0 : 16, sizes ? 0 : 4, sizes ? 0 : 13);
		for (shape = 0; shape < 7; shape++) {
			size_t n = shape == 3 ? N - 3 : N, i;
			int want = 0;

			for (i = 0; i < n; i++) {
				x ^= x << 13;
				x ^= x >> 7;
				x ^= x << 17;
				st[i] = 1000 + 10 * (int64_t)i;
				g[i] = i % 3 ? (int64_t)(x % 999) : -1;
				switch (shape) {
				case 0: /* wide */
					d[i] = (int64_t)(x >> 20);
					break;
				case 1: /* narrow */
					d[i] = 1000000 + (int64_t)(x % 300);
					break;
				case 2: /* all equal */
					d[i] = 4242;
					break;
				case 3: /* a cluster and a far value each side */
					d[i] = i == 5	  ? 1
					       : i == 900 ? INT64_C(1) << 40
							  : 5000 + (int64_t)(x % 7);
					break;
				case 4: /* few values */
					d[i] = (int64_t)(x % 3) * 1000;
					break;
				case 5: /* starts near the top: the checked path */
					st[i] = INT64_MAX - (INT64_C(1) << 30) + (int64_t)i;
					d[i] = (int64_t)(x % 100000);
					break;
				default: /* the sum overflows */
					d[i] = INT64_C(1) << 60;
					st[i] = 0;
					want = ERR_FORMAT;
					break;
				}
			}
			for (p = 0; p < 4; p++)
				big_case(d, st, shape == 2 ? NULL : g, n, pieces[p], want,
					 sizes ? SIZE_MAX : 16);
		}
	}
	ingest_big_testing_sizes(0, 0, 0);
}

/* A row in pieces with no room for its spool: one line naming the file,
 * the rank, the region and the directory, with the fix. */
static void test_big_row_no_spool(void **state)
{
	static const int64_t d[3] = {5, 6, 7}, st[3] = {1, 20, 40};
	const char *old = getenv("TMPDIR");
	char *keep = old ? strdup(old) : NULL;
	struct h5prof_row row;
	struct ingest_big b;

	(void)state;
	memset(&b, 0, sizeof(b));
	memset(&row, 0, sizeof(row));
	row.calls = 3;
	row.has_events = 1;
	row.piece_len = 3;
	row.piece_last = 1;
	row.durations = d;
	row.starts = st;
	assert_int_equal(setenv("TMPDIR", tu_path("no-such-dir"), 1), 0);
	ingest_big_testing_sizes(2, 0, 0); /* 3 calls: more than a group */
	assert_int_equal(ingest_big_add(&b, &row, "p\x1b.h5", "solve"), ERR_IO);
	ingest_big_testing_sizes(0, 0, 0);
	assert_non_null(strstr(err_msg(), "cannot ingest 'p\\x1b.h5': rank 0, region 'solve': "
					  "cannot make a temporary file in '"));
	assert_non_null(strstr(err_msg(), "no-such-dir' for its 3 calls: no such file or "
					  "directory (set TMPDIR to a directory with room"));
	ingest_big_release(&b);
	if (keep)
		assert_int_equal(setenv("TMPDIR", keep, 1), 0);
	else
		assert_int_equal(unsetenv("TMPDIR"), 0);
	free(keep);

	/* a file size limit below the spool: the write fails (EFBIG, not
	 * SIGXFSZ, which would end the reader as a crash), said in one line */
	{
		static int64_t dd[1000], ss[1000];
		struct rlimit was, lim;
		size_t i;

		for (i = 0; i < 1000; i++) {
			dd[i] = (int64_t)i;
			ss[i] = 10 * (int64_t)i;
		}
		row.calls = row.piece_len = 1000;
		row.durations = dd;
		row.starts = ss;
		assert_int_equal(getrlimit(RLIMIT_FSIZE, &was), 0);
		lim = was;
		lim.rlim_cur = was.rlim_max < 4096 ? was.rlim_max : 4096;
		assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
		ingest_big_testing_sizes(2, 0, 13);
		assert_int_equal(ingest_big_add(&b, &row, "p.h5", "solve"), ERR_IO);
		ingest_big_testing_sizes(0, 0, 0);
		assert_int_equal(setrlimit(RLIMIT_FSIZE, &was), 0);
		assert_non_null(strstr(err_msg(), "cannot ingest 'p.h5': rank 0, region 'solve': "
						  "cannot write its temporary file in '"));
		assert_non_null(strstr(err_msg(), "file too large (the file size limit, ulimit -f, "
						  "is below the 9 bytes a call it needs)"));
		ingest_big_release(&b);
	}
}

/* Durations blobs written into SQLite a chunk at a time (every blob
 * here; from 16 MiB in use) are the bytes bound whole. */
static void test_blobs_streamed(void **state)
{
	char whole[512];

	(void)state;
	whole_layouts(whole, sizeof(whole), "blobs-bound.sqlite");
	sqlite_set_blob_stream(1);
	generated_layouts("blobs-streamed.sqlite", 8);
	sqlite_set_blob_stream(0);
	same_timings(whole, tu_path("blobs-streamed.sqlite"));
}

static int reset_tree_budget(void **state)
{
	(void)state;
	ingest_big_testing_sizes(0, 0, 0);
	ingest_testing_tree_budget(0);
	util_sort_testing_parts(0);
	h5prof_set_chunk_events(0);
	return 0;
}

static void test_duplicate_and_tags(void **state)
{
	const char *db = tu_path("dup.sqlite");
	static const char *const tags[] = {"nightly", "x86"};
	static const char *const meta[] = {"host=login1", "mpi_size=64"};
	struct ingest_opts o = no_opts;
	struct ingest_result r;
	struct store *st = NULL;

	(void)state;
	assert_int_equal(store_open(&st, db, 0), 0);
	o.tags = tags;
	o.ntags = 1;
	o.meta = meta;
	o.nmeta = 2;
	o.label = "base";
	o.commit = "0123ABcd"; /* hex: stored lower case (issue 29) */
	o.branch = "main";
	assert_int_equal(ingest_file(&r, st, tu_fixture("schema-3.h5"), &o), 0);
	assert_int_equal(r.run_id, 1);
	o.ntags = 2;
	assert_int_equal(ingest_file(&r, st, tu_fixture("schema-3.h5"), &o), 0);
	assert_int_equal(r.run_id, 1);
	assert_true(r.duplicate);
	assert_int_equal(r.tags_added, 1);
	assert_int_equal(r.num_calls, 3);
	assert_int_equal(r.kept, 0);
	/* the same commit abbreviated or in capitals is no change */
	o.commit = "0123ABCDEF";
	assert_int_equal(ingest_file(&r, st, tu_fixture("schema-3.h5"), &o), 0);
	assert_int_equal(r.kept, 0);
	/* another identity is reported, and the stored one kept */
	o.commit = "9999";
	o.branch = "dev";
	o.label = NULL;
	assert_int_equal(ingest_file(&r, st, tu_fixture("schema-3.h5"), &o), 0);
	assert_int_equal(r.kept, INGEST_KEPT_COMMIT | INGEST_KEPT_BRANCH);
	/* with the stored values (for the warning), only of the kept fields */
	assert_string_equal(r.kept_commit, "0123abcd");
	assert_string_equal(r.kept_branch, "main");
	assert_null(r.kept_label);
	ingest_result_release(&r);
	assert_null(r.kept_commit);
	o.commit = NULL;
	o.branch = NULL;
	o.label = "other";
	assert_int_equal(ingest_file(&r, st, tu_fixture("schema-3.h5"), &o), 0);
	assert_int_equal(r.kept, INGEST_KEPT_LABEL);
	assert_null(r.kept_commit);
	assert_string_equal(r.kept_label, "base");
	ingest_result_release(&r);
	ingest_result_release(NULL);
	store_close(st);
	assert_int_equal(tu_db_int(db, "select count(*) from runs"), 1);
	assert_int_equal(tu_db_int(db, "select count(*) from run_tags"), 2);
	assert_int_equal(tu_db_int(db, "select value from run_metadata where key='mpi_size'"), 64);
	assert_int_equal(tu_db_int(db, "select count(*) from runs where label='base' and "
				       "commit_sha='0123abcd' and branch='main'"),
			 1);
}

/* Write a valid file then damage it with fn. */
static const char *damaged(const char *name, int (*fn)(const char *path))
{
	const struct h5write_opts o = {.schema = 3, .gpu = 1};
	const char *path = write_generated(name, &o, 1);

	assert_int_equal(fn(path), 0);
	return path;
}

static int dmg_offsets(const char *p)
{
	uint64_t v[8] = {0, 5, 5, 30, 40, 50, 60, 70};

	return h5write_replace_dataset(p, "/rank_region_index/event_offsets", H5WRITE_U64, v, 8);
}

static int dmg_region_id(const char *p)
{
	uint32_t v[8] = {0, 1, 2, 0, 1, 2, 0, 7};

	return h5write_replace_dataset(p, "/rank_region_index/region_ids", H5WRITE_U32, v, 8);
}

static int dmg_negative(const char *p)
{
	int64_t v[130]; /* the generated profile has 130 events */
	size_t i;

	for (i = 0; i < 130; i++)
		v[i] = i == 100 ? -3 : 10;
	return h5write_replace_dataset(p, "/events/durations", H5WRITE_I64, v, 130);
}

static int dmg_schema(const char *p)
{
	return h5write_set_root_attr_i64(p, "scope_profiler_schema", 4);
}

static int dmg_missing(const char *p)
{
	return h5write_delete(p, "/events/start_deltas");
}

static void test_damaged_files_leave_nothing(void **state)
{
	struct ingest_result r;
	char db[512];
	struct store *st = NULL;
	char before[128], after[128];
	int (*fns[])(const char *) = {dmg_offsets, dmg_region_id, dmg_negative, dmg_schema,
				      dmg_missing};
	size_t i;

	(void)state;
	snprintf(db, sizeof(db), "%s", tu_path("damaged.sqlite"));
	assert_int_equal(store_open(&st, db, 0), 0);
	assert_int_equal(ingest_file(&r, st, tu_fixture("schema-2.h5"), &no_opts), 0);
	store_close(st);
	counts(db, before, sizeof(before));
	for (i = 0; i < sizeof(fns) / sizeof(fns[0]); i++) {
		char name[32];
		const char *path;

		snprintf(name, sizeof(name), "damaged-%zu.h5", i);
		path = damaged(name, fns[i]);
		assert_int_equal(store_open(&st, db, 0), 0);
		err_clear();
		assert_int_equal(ingest_file(&r, st, path, &no_opts), ERR_FORMAT);
		assert_non_null(strstr(err_msg(), path));
		assert_null(strchr(err_msg(), '\n'));
		assert_int_equal(r.run_id, 0);
		store_close(st);
		counts(db, after, sizeof(after));
		assert_string_equal(after, before);
	}
	/* a later good ingest still works and gets the next id */
	assert_int_equal(store_open(&st, db, 0), 0);
	assert_int_equal(ingest_file(&r, st, tu_fixture("schema-1.h5"), &no_opts), 0);
	store_close(st);
	assert_int_equal(tu_db_int(db, "select count(*) from runs"), 2);
}

/* A readable HDF5 file without a (rank, region) row is not a profile: no
 * region names at all (every schema, both layouts), or names but no rows. */
static void test_not_a_profile(void **state)
{
	struct h5write_profile prof = {NULL, 0, NULL, 0};
	static const char *const names[] = {"solve"};
	struct ingest_result r;
	struct ingest_pending *pend = NULL;
	struct store *st = NULL;
	char want[600];
	int64_t run;
	int schema, agg;

	(void)state;
	assert_int_equal(store_open_temporary(&st), 0);
	for (schema = 1; schema <= 3; schema++) {
		for (agg = 0; agg <= (schema > 1); agg++) {
			struct h5write_opts o = tu_h5_opts(schema, agg);
			const char *path = tu_path("noregions.h5");

			assert_int_equal(h5write_file(path, &prof, &o), 0);
			snprintf(want, sizeof(want),
				 "'%s': not a scope-profiler profile (no regions found)", path);
			assert_int_equal(ingest_file(&r, st, path, &no_opts), ERR_FORMAT);
			assert_string_equal(err_msg(), want);
			assert_int_equal(r.run_id, 0);
			/* ingest_read() refuses it the same way, without a store */
			err_clear();
			assert_int_equal(ingest_read(&pend, NULL, path, &no_opts), ERR_FORMAT);
			assert_string_equal(err_msg(), want);
			assert_null(pend);
		}
	}
	{
		/* a profile is read without a store, then stored (once: the
		 * second is a duplicate found inside ingest_write()); a file
		 * that is no HDF5 file or no file at all fails with
		 * ingest_file()'s message */
		struct h5write_opts o = tu_h5_opts(3, 0);
		const char *good = tu_h5_write_standard("check-good.h5", &o);
		const char *text = tu_path("check-text.h5");
		struct ingest_pending *again = NULL;
		char msg[600];

		assert_int_equal(ingest_read(&pend, NULL, good, &no_opts), 0);
		assert_int_equal(ingest_read(&again, NULL, good, &no_opts), 0);
		assert_int_equal(ingest_write(&r, st, pend), 0);
		assert_int_equal(r.duplicate, 0);
		assert_true(r.run_id > 0);
		assert_true(r.num_regions > 0);
		run = r.run_id;
		ingest_result_release(&r);
		assert_int_equal(ingest_write(&r, st, again), 0);
		assert_int_equal(r.duplicate, 1);
		assert_int_equal(r.run_id, run);
		ingest_result_release(&r);
		ingest_pending_free(pend);
		ingest_pending_free(again);
		ingest_pending_free(NULL);
		pend = NULL;
		tu_write_file(text, "not hdf5\n", 9);
		assert_int_not_equal(ingest_read(&pend, NULL, text, &no_opts), 0);
		assert_null(pend);
		snprintf(msg, sizeof(msg), "%s", err_msg());
		assert_int_not_equal(ingest_file(&r, st, text, &no_opts), 0);
		assert_string_equal(err_msg(), msg);
		assert_int_not_equal(
		    ingest_read(&pend, NULL, tu_path("check-missing.h5"), &no_opts), 0);
		assert_non_null(strstr(err_msg(), "no such file"));
	}
	{
		struct h5write_opts o = tu_h5_opts(3, 0);
		struct h5write_stream *s = NULL;
		const char *path = tu_path("namesonly.h5");

		assert_int_equal(h5write_stream_open(&s, path, names, 1, &o), 0);
		assert_int_equal(h5write_stream_close(s), 0);
		assert_int_equal(ingest_file(&r, st, path, &no_opts), ERR_FORMAT);
		assert_non_null(
		    strstr(err_msg(), "not a scope-profiler profile (no regions found)"));
	}
	{
		struct store_run *runs = NULL;
		size_t n = 1;

		/* only the good profile is stored */
		assert_int_equal(store_list_runs(st, &runs, &n), 0);
		assert_int_equal(n, 1);
		assert_int_equal(runs[0].id, run);
		store_runs_free(runs, n);
	}
	store_close(st);
}

static void test_meta_check(void **state)
{
	(void)state;
	assert_int_equal(ingest_meta_check("k=v"), 0);
	assert_int_equal(ingest_meta_check("k="), 0);
	assert_int_equal(ingest_meta_check("novalue"), ERR_USAGE);
	assert_int_equal(ingest_meta_check("=v"), ERR_USAGE);
}

/* The all-ranks totals of run (with their percentiles) as one string. */
static void totals_text(char *out, size_t len, struct store *st, int64_t run)
{
	struct store_region_stats *regs = NULL;
	size_t n = 0, i, used = 0;

	assert_int_equal(store_region_stats(st, &regs, &n, run, NULL, 0, NULL, NULL), 0);
	assert_true(n > 0);
	out[0] = '\0';
	for (i = 0; i < n && used < len; i++)
		used += (size_t)snprintf(
		    out + used, len - used, "%s:%llu:%lld:%d:%.17g:%.17g:%.17g;", regs[i].name,
		    (unsigned long long)regs[i].calls, (long long)regs[i].total,
		    regs[i].has_quantiles, regs[i].quantiles[0], regs[i].quantiles[1],
		    regs[i].quantiles[2]);
	assert_true(used < len);
	store_region_stats_free(regs, n);
}

/*
 * store_finish_run() (src/store/finish.c) through the backend-neutral store
 * API: a file ingested into a temporary store gets the same totals and
 * percentiles as in a store file, finishing again changes nothing, and a
 * spool too small for any blob (every region on its own) gives the same
 * numbers.
 */
static void test_finish_temporary_store(void **state)
{
	const struct h5write_opts o = {.schema = 3, .mpi_size = 3};
	struct ingest_result r, rt;
	struct store *st = NULL, *tmp = NULL;
	char db[512], want[4096], got[4096];

	(void)state;
	snprintf(db, sizeof(db), "%s", tu_path("finish.sqlite"));
	write_generated("finish.h5", &o, 1);

	assert_int_equal(store_open(&st, db, 0), 0);
	assert_int_equal(ingest_file(&r, st, tu_path("finish.h5"), &no_opts), 0);
	totals_text(want, sizeof(want), st, r.run_id);
	assert_non_null(strstr(want, ":1:"));

	assert_int_equal(store_open_temporary(&tmp), 0);
	assert_int_equal(ingest_file(&rt, tmp, tu_path("finish.h5"), &no_opts), 0);
	assert_int_equal(rt.num_calls, r.num_calls);
	totals_text(got, sizeof(got), tmp, rt.run_id);
	assert_string_equal(got, want);

	assert_int_equal(store_begin(tmp), 0);
	assert_int_equal(store_finish_run(tmp, rt.run_id), 0);
	assert_int_equal(store_commit(tmp), 0);
	totals_text(got, sizeof(got), tmp, rt.run_id);
	assert_string_equal(got, want);

	finish_set_spool_bytes(1);
	assert_int_equal(store_begin(tmp), 0);
	assert_int_equal(store_finish_run(tmp, rt.run_id), 0);
	assert_int_equal(store_commit(tmp), 0);
	finish_set_spool_bytes(0);
	totals_text(got, sizeof(got), tmp, rt.run_id);
	assert_string_equal(got, want);

	/* every region's percentiles by the merge of its blobs at ingest
	 * (ingest_quant.c), as finish.c computes them from the decoded runs */
	store_close(tmp);
	tmp = NULL;
	assert_int_equal(store_open_temporary(&tmp), 0);
	ingest_quant_testing_decode_max(1);
	(void)ingest_quant_testing_merged();
	assert_int_equal(ingest_file(&rt, tmp, tu_path("finish.h5"), &no_opts), 0);
	ingest_quant_testing_decode_max(0);
	assert_int_equal(ingest_quant_testing_merged(), r.num_regions);
	totals_text(got, sizeof(got), tmp, rt.run_id);
	assert_string_equal(got, want);

	assert_int_equal(store_begin(tmp), 0);
	assert_int_equal(store_finish_run(tmp, rt.run_id + 1), ERR_NOTFOUND);
	store_rollback(tmp);
	store_close(tmp);
	store_close(st);
}

/* ---- call trees (issue 22) ---- */

/* What a walk over a pending file's call-tree frames saw. */
struct walked {
	const char *const *names;
	int64_t node_parent[64];
	uint32_t node_region[64];
	uint32_t nodes;
	struct {
		uint32_t rank;
		char path[200];
		uint64_t calls, nested;
		int64_t total, self, dmin, dmax;
	} paths[64];
	size_t npaths;
	size_t nselfs, nranks, ok;
	int64_t self_sum;
};

static int w_rank(void *ctx, const struct calltree_rankinfo *r)
{
	struct walked *w = ctx;

	w->nranks++;
	w->ok += r->status == CALLTREE_OK;
	return 0;
}

static int w_node(void *ctx, const struct calltree_node *n)
{
	struct walked *w = ctx;

	assert_true(n->id < 64);
	w->node_parent[n->id] = n->parent;
	w->node_region[n->id] = n->region;
	w->nodes++;
	return 0;
}

static void w_name(const struct walked *w, uint32_t id, char *out, size_t n)
{
	char tmp[200];

	if (w->node_parent[id] < 0) {
		snprintf(out, n, "%s", w->names[w->node_region[id]]);
		return;
	}
	w_name(w, (uint32_t)w->node_parent[id], tmp, sizeof(tmp));
	assert_true(strlen(tmp) + strlen(w->names[w->node_region[id]]) + 4 < n);
	snprintf(out, n, "%.90s > %.90s", tmp, w->names[w->node_region[id]]);
}

static int w_path(void *ctx, const struct calltree_path *p)
{
	struct walked *w = ctx;
	uint64_t i;

	assert_true(w->npaths < 64);
	assert_non_null(p->durations); /* decoded, the row's ones too */
	for (i = 1; i < p->calls; i++)
		assert_true(p->durations[i - 1] <= p->durations[i]);
	w->paths[w->npaths].rank = p->rank;
	w_name(w, p->node, w->paths[w->npaths].path, sizeof(w->paths[0].path));
	w->paths[w->npaths].calls = p->calls;
	w->paths[w->npaths].nested = p->nested;
	w->paths[w->npaths].total = p->total;
	w->paths[w->npaths].self = p->self;
	w->paths[w->npaths].dmin = p->durations[0];
	w->paths[w->npaths].dmax = p->durations[p->calls - 1];
	w->npaths++;
	return 0;
}

static int w_self(void *ctx, uint32_t rank, uint32_t region, int64_t self,
		  enum calltree_self_source src)
{
	struct walked *w = ctx;

	(void)rank;
	(void)region;
	(void)src;
	w->nselfs++;
	w->self_sum += self;
	return 0;
}

/* Read path in the child and walk what it sent about the call trees. */
static struct ingest_pending *walk_file(const char *path, const char *const *names,
					struct walked *w, char *warn, size_t n)
{
	struct calltree_sink sink = {w, w_rank, w_node, w_path, w_self};
	struct ingest_pending *pend = NULL;

	memset(w, 0, sizeof(*w));
	w->names = names;
	assert_int_equal(ingest_read(&pend, NULL, path, &no_opts), 0);
	assert_int_equal(ingest_pending_nest_walk(pend, &sink), 0);
	ingest_pending_nest_warning(pend, warn, n);
	return pend;
}

/* The queue's progress: every call must come for the file waited for. */
static struct {
	int waited; /* the file the test waits for, or -1 */
	int calls, wrong;
} queue_progress;
static int queue_marks[8];

static void queue_progress_cb(void *ctx, uint64_t done, uint64_t total)
{
	(void)done;
	(void)total;
	/* called while the test waits in ingest_queue_next() */
	queue_progress.calls++;
	if (queue_progress.waited < 0 || ctx != &queue_marks[queue_progress.waited])
		queue_progress.wrong++;
}

/*
 * ingest_queue.c: files read ahead are handed back in the order given,
 * each with what ingest_file() would give it (its run, its error on the
 * caller's thread, a duplicate within the batch found when it is
 * written); freeing the queue part way kills the readers under way and
 * frees what was read (the sanitizers' leak check).
 */
static void test_queue(void **state)
{
	const char *db = tu_path("queue.sqlite");
	char *files[7], want[7][256];
	struct ingest_queue *q = NULL;
	struct store *st = NULL;
	int i;

	(void)state;
	files[0] = strdup(tu_fixture("schema-1.h5"));
	files[1] = strdup(tu_path("queue-missing.h5"));
	files[2] = strdup(tu_fixture("schema-2.h5"));
	files[3] = strdup(tu_fixture("schema-1.h5"));
	files[4] = strdup(tu_path("queue-garbage.h5"));
	files[5] = strdup(tu_fixture("schema-3.h5"));
	files[6] = strdup(tu_fixture("schema-2.h5"));
	for (i = 0; i < 7; i++)
		assert_non_null(files[i]);
	tu_write_file(files[4], "not a profile\n", 14);
	/* the errors of the two bad files, read one by one */
	for (i = 0; i < 7; i++) {
		struct ingest_pending *p = NULL;

		want[i][0] = '\0';
		if (ingest_read(&p, NULL, files[i], &no_opts) != 0)
			snprintf(want[i], sizeof(want[i]), "%d %s", err_code(), err_msg());
		ingest_pending_free(p);
	}
	assert_string_equal(want[0], "");
	assert_true(want[1][0] && want[4][0]);

	assert_int_equal(store_open(&st, db, 0), 0);
	assert_int_equal(ingest_queue_start(&q, files, 7, &no_opts, &st), 0);
	for (i = 0; i < 7; i++) {
		static const int64_t runs[7] = {1, 0, 2, 1, 0, 3, 2};
		struct ingest_pending *p = NULL;
		struct ingest_result r;
		char got[256];
		int rc;

		queue_progress.waited = i;
		rc = ingest_queue_next(q, i, &p, queue_progress_cb, &queue_marks[i]);
		queue_progress.waited = -1;
		if (want[i][0]) {
			assert_int_not_equal(rc, 0);
			assert_null(p);
			snprintf(got, sizeof(got), "%d %s", err_code(), err_msg());
			assert_string_equal(got, want[i]);
			continue;
		}
		assert_int_equal(rc, 0);
		assert_non_null(p);
		assert_int_equal(ingest_write(&r, st, p), 0);
		ingest_pending_free(p);
		assert_int_equal(r.run_id, runs[i]);
		assert_int_equal(r.duplicate, i == 3 || i == 6);
		ingest_result_release(&r);
	}
	assert_int_equal(queue_progress.wrong, 0);
	ingest_queue_free(q);
	ingest_queue_free(NULL);
	assert_int_equal(tu_db_int(db, "select count(*) from runs"), 3);

	/* freed after one file: the others' reads end, nothing leaks */
	assert_int_equal(ingest_queue_start(&q, files, 7, &no_opts, &st), 0);
	{
		struct ingest_pending *p = NULL;

		assert_int_equal(ingest_queue_next(q, 0, &p, NULL, NULL), 0);
		ingest_pending_free(p);
	}
	ingest_queue_free(q);
	store_close(st);
	assert_int_equal(tu_db_int(db, "select count(*) from runs"), 3);
	for (i = 0; i < 7; i++)
		free(files[i]);
}

/* Kill every child of this process (SIGKILL) and wait until each has died,
 * without reaping them (WNOWAIT): a sanitized child can take long to exit
 * on a loaded machine, and one still alive would take the next job. */
static void kill_children(void)
{
	char path[64], kids[4096];
	FILE *f;
	size_t n;
	char *tok, *save = NULL;

	snprintf(path, sizeof(path), "/proc/self/task/%d/children", (int)getpid());
	f = fopen(path, "r");
	assert_non_null(f);
	n = fread(kids, 1, sizeof(kids) - 1, f);
	fclose(f);
	kids[n] = '\0';
	for (tok = strtok_r(kids, " \n", &save); tok; tok = strtok_r(NULL, " \n", &save)) {
		pid_t pid = (pid_t)atoi(tok);
		siginfo_t si;

		kill(pid, SIGKILL);
		while (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT) < 0 && errno == EINTR)
			;
	}
}

/* Kept readers (ingest_read.h) that die while idle take no file: each is
 * reaped and the file goes to the next idle one, or to a new reader, and
 * is read whole (no error naming no file). */
static void test_readers_die_idle(void **state)
{
	struct h5write_opts o = tu_h5_opts(2, 0);
	const char *a = tu_h5_write_standard("idle-a.h5", &o);
	struct ingest_readers *rd = NULL;
	struct ingest_pending *p[3] = {NULL, NULL, NULL};
	int i, done;

	(void)state;
	assert_int_equal(ingest_readers_new(&rd), 0);
	/* two readers, both idle in the set once their files are read */
	for (i = 0; i < 2; i++)
		assert_int_equal(ingest_read_begin(&p[i], NULL, a, &no_opts, rd), 0);
	for (i = 0; i < 2; i++)
		for (done = 0; !done;)
			assert_int_equal(ingest_read_more(p[i], &done), 0);
	kill_children();
	err_clear();
	assert_int_equal(ingest_read_begin(&p[2], NULL, a, &no_opts, rd), 0);
	for (done = 0; !done;)
		assert_int_equal(ingest_read_more(p[2], &done), 0);
	for (i = 0; i < 3; i++)
		ingest_pending_free(p[i]);
	ingest_readers_free(rd);
	ingest_readers_free(NULL);
}

/* The real fib-recursive.h5 through the reader child: main > fibonacci is
 * 1 call of 12.013 ms, all its own; main has 0.017 ms. */
static void test_calltree_real(void **state)
{
	static const char *const names[] = {"fibonacci", "main"};
	struct ingest_pending *pend;
	const struct ingest_nest *n;
	struct walked w;
	char warn[512];
	size_t i, found = 0;

	(void)state;
	/* schema 1: region ids in name order */
	pend = walk_file(tu_fixture("real/fib-recursive.h5"), names, &w, warn, sizeof(warn));
	n = ingest_pending_nest(pend);
	assert_int_equal(n->ranks, 1);
	assert_int_equal(n->trees, 1);
	assert_int_equal(n->paths, 2);
	assert_int_equal(n->selfs, 2);
	assert_string_equal(warn, "");
	assert_int_equal(w.npaths, 2);
	for (i = 0; i < w.npaths; i++) {
		if (!strcmp(w.paths[i].path, "main > fibonacci")) {
			assert_int_equal(w.paths[i].calls, 1);
			assert_int_equal(w.paths[i].nested, 40);
			assert_int_equal(w.paths[i].total, 12013246);
			assert_int_equal(w.paths[i].self, 12013246);
			assert_int_equal(w.paths[i].dmin, 12013246);
			found++;
		} else if (!strcmp(w.paths[i].path, "main")) {
			assert_int_equal(w.paths[i].self, 17233);
			found++;
		}
	}
	assert_int_equal(found, 2);
	assert_int_equal(w.self_sum, 12030479);
	ingest_pending_free(pend);
}

/* Overlapping calls on one rank: no tree there, the one warning names the
 * file, the rank and both regions; the other rank keeps its tree, and the
 * file stores as before. */
static void test_calltree_overlap(void **state)
{
	static const int64_t s0[] = {0}, e0[] = {100}, s1[] = {10}, e1[] = {50}, s2[] = {40},
			     e2[] = {60};
	struct h5write_row rows[5] = {
	    {.rank = 0, .region = "main", .calls = 1, .starts = s0, .ends = e0, .source_line = -1},
	    {.rank = 0, .region = "solve", .calls = 1, .starts = s1, .ends = e1, .source_line = -1},
	    {.rank = 0, .region = "io", .calls = 1, .starts = s2, .ends = e2, .source_line = -1},
	    {.rank = 1, .region = "main", .calls = 1, .starts = s0, .ends = e0, .source_line = -1},
	    {.rank = 1,
	     .region = "solve",
	     .calls = 1,
	     .starts = s1,
	     .ends = e1,
	     .source_line = -1}};
	struct h5write_profile prof = {rows, 5, NULL, 0};
	struct h5write_opts o = tu_h5_opts(3, 0);
	const char *path = tu_path("overlap.h5"), *db = tu_path("overlap.sqlite");
	struct ingest_pending *pend;
	const struct ingest_nest *n;
	struct ingest_result r;
	struct store *st = NULL;
	static const char *const names[] = {"main", "solve", "io"};
	struct walked w;
	char warn[512], want[600];

	(void)state;
	assert_int_equal(h5write_file(path, &prof, &o), 0);
	pend = walk_file(path, names, &w, warn, sizeof(warn));
	n = ingest_pending_nest(pend);
	assert_int_equal(n->ranks, 2);
	assert_int_equal(n->trees, 1);
	assert_int_equal(n->problems, 1);
	assert_int_equal(w.npaths, 2); /* rank 1: main, main > solve */
	snprintf(want, sizeof(want),
		 "'%s': rank 0: a call of 'io' [40, 60] ns starts inside a call of 'solve' "
		 "[10, 50] ns and ends after it, so rank 0 has no call tree; the flat numbers are "
		 "not affected, and --by path leaves it out",
		 path);
	assert_string_equal(warn, want);
	assert_int_equal(store_open(&st, db, 0), 0);
	assert_int_equal(ingest_write(&r, st, pend), 0);
	assert_int_equal(r.num_calls, 5);
	assert_int_equal(tu_db_int(db, "select count(*) from timings"), 5);
	ingest_result_release(&r);
	ingest_pending_free(pend);
	store_close(st);
}

/* A JSON profile's nesting columns reach the call tree as the HDF5 file's
 * do: the JSON twin of a profile with ids and lanes (and of the same
 * profile without them: containment) gives the same paths and self times. */
static void test_calltree_json_twin(void **state)
{
	/* rank 0: main [0,100] > solve [10,60] > solve [20,50] (recursion),
	 * and io [70,90] on thread 1; rank 1: main alone */
	static const int64_t ms[] = {0}, me[] = {100}, ss[] = {10, 20}, se[] = {60, 50},
			     is[] = {70}, ie[] = {90}, mid[] = {1}, mpar[] = {-1}, sid[] = {2, 3},
			     spar[] = {1, 2}, iid[] = {4}, ipar[] = {-1}, thr0[] = {0},
			     thr0b[] = {0, 0}, thr1[] = {1};
	struct h5write_row rows[4] = {tu_h5_nest_row(0, "main", 1, ms, me, mid, mpar, thr0, NULL),
				      tu_h5_nest_row(0, "solve", 2, ss, se, sid, spar, thr0b, NULL),
				      tu_h5_nest_row(0, "io", 1, is, ie, iid, ipar, thr1, NULL),
				      tu_h5_nest_row(1, "main", 1, ms, me, mid, mpar, thr0, NULL)};
	struct h5write_profile prof = {rows, 4, NULL, 0};
	static const char *const names[] = {"main", "solve", "io"};
	struct jsonwrite_opts jo = {0, 0};
	struct walked wh, wj;
	char warn[512];
	int ids;

	(void)state;
	for (ids = 0; ids <= 1; ids++) {
		struct h5write_opts o = tu_h5_opts(3, 0);
		const char *h5 = tu_path(ids ? "twin-ids.h5" : "twin.h5");
		const char *js = tu_path(ids ? "twin-ids.json" : "twin.json");
		size_t i;

		o.ids = ids;
		o.lanes = 1;
		assert_int_equal(h5write_file(h5, &prof, &o), 0);
		assert_int_equal(jsonwrite_file(js, &prof, &o, &jo), 0);
		ingest_pending_free(walk_file(h5, names, &wh, warn, sizeof(warn)));
		assert_string_equal(warn, "");
		ingest_pending_free(walk_file(js, names, &wj, warn, sizeof(warn)));
		assert_string_equal(warn, "");
		assert_int_equal(wh.ok, 2);
		assert_int_equal(wj.ok, wh.ok);
		assert_int_equal(wj.npaths, wh.npaths);
		/* main, main > solve (recursion collapsed), io on its own lane */
		assert_int_equal(wh.npaths, 4);
		for (i = 0; i < wh.npaths; i++) {
			assert_int_equal(wj.paths[i].rank, wh.paths[i].rank);
			assert_string_equal(wj.paths[i].path, wh.paths[i].path);
			assert_int_equal(wj.paths[i].calls, wh.paths[i].calls);
			assert_int_equal(wj.paths[i].nested, wh.paths[i].nested);
			assert_int_equal(wj.paths[i].total, wh.paths[i].total);
			assert_int_equal(wj.paths[i].self, wh.paths[i].self);
			if (!strcmp(wh.paths[i].path, "main > solve")) {
				assert_int_equal(wh.paths[i].calls, 1);
				assert_int_equal(wh.paths[i].nested, 1);
				assert_int_equal(wh.paths[i].total, 50);
				assert_int_equal(wh.paths[i].self, 50);
			}
		}
		assert_int_equal(wj.self_sum, wh.self_sum);
	}
}

/*
 * A JSON profile's ranks are built as their rows end, as an HDF5 file's
 * are (jp_plan()): with the call tree's budget (lowered to 50) below the
 * file's 160 calls but above any rank's 40, both keep a tree on each of
 * their 4 ranks, with the same paths.  Every call was held until the end
 * of the document before, and three ranks lost their trees.  Rows
 * region after region hold each rank's calls until its last row.
 */
static void test_calltree_json_ranks(void **state)
{
	static int64_t as[10], ae[10], bs[10], be[10];
	static const char *const names[] = {"a", "b"};
	struct h5write_row rows[8];
	struct h5write_profile prof = {rows, 8, NULL, 0};
	struct h5write_opts o = tu_h5_opts(3, 0);
	struct jsonwrite_opts jo = {0, 0};
	const char *h5 = tu_path("ranks.h5"), *js = tu_path("ranks.json.gz");
	struct walked wh, wj;
	char warn[512];
	size_t i;

	(void)state;
	/* a [10i, 10i + 8], b [10i + 2, 10i + 5] inside it: paths a, a > b */
	for (i = 0; i < 10; i++) {
		as[i] = (int64_t)i * 10;
		ae[i] = as[i] + 8;
		bs[i] = as[i] + 2;
		be[i] = as[i] + 5;
	}
	memset(rows, 0, sizeof(rows));
	for (i = 0; i < 8; i++) {
		rows[i].rank = (uint32_t)(i / 2);
		rows[i].region = names[i % 2];
		rows[i].calls = 10;
		rows[i].starts = i % 2 ? bs : as;
		rows[i].ends = i % 2 ? be : ae;
		rows[i].source_line = -1;
	}
	jo.gzip = 1;
	assert_int_equal(h5write_file(h5, &prof, &o), 0);
	assert_int_equal(jsonwrite_file(js, &prof, &o, &jo), 0);
	ingest_testing_tree_budget(50);
	ingest_pending_free(walk_file(h5, names, &wh, warn, sizeof(warn)));
	assert_string_equal(warn, "");
	ingest_pending_free(walk_file(js, names, &wj, warn, sizeof(warn)));
	assert_string_equal(warn, "");
	assert_int_equal(wh.ok, 4);
	assert_int_equal(wj.ok, 4);
	assert_int_equal(wh.npaths, 8);
	assert_int_equal(wj.npaths, wh.npaths);
	for (i = 0; i < wh.npaths; i++) {
		assert_int_equal(wj.paths[i].rank, wh.paths[i].rank);
		assert_string_equal(wj.paths[i].path, wh.paths[i].path);
		assert_int_equal(wj.paths[i].calls, 10);
		assert_int_equal(wj.paths[i].total, wh.paths[i].total);
		assert_int_equal(wj.paths[i].self, wh.paths[i].self);
	}
	assert_int_equal(wj.self_sum, wh.self_sum);
	/* region after region (the budget 30): a rank's calls are held until
	 * its last row, beside the others', and the warning says so */
	for (i = 0; i < 8; i++) {
		rows[i].rank = (uint32_t)(i % 4);
		rows[i].region = names[i / 4];
		rows[i].starts = i / 4 ? bs : as;
		rows[i].ends = i / 4 ? be : ae;
	}
	assert_int_equal(jsonwrite_file(js, &prof, &o, &jo), 0);
	ingest_testing_tree_budget(30);
	ingest_pending_free(walk_file(js, names, &wj, warn, sizeof(warn)));
	assert_true(wj.ok < 4);
	assert_non_null(strstr(warn, "its 20 calls and those of the ranks whose rows the file "
				     "interleaves with its own are more than the"));
}

/*
 * A rank whose rows hold more calls in all than the call tree does (the
 * reader's rank_calls), though none of its rows does, is given up at its
 * first row and its rows of a quarter of the budget or more are read in
 * pieces: with the budget at 30 and windows of 4 events, ranks 0 to 2 (20
 * calls each: a, a > b) keep their trees, rank 3 (40 calls) has none and
 * the warning says why, and its rows are stored as the others are; in the
 * columnar layout and in schema 1 (each dataset read a window at a time).
 */
static void rank_past_budget(int schema)
{
	static int64_t as[20], ae[20], bs[20], be[20];
	static const char *const names[] = {"a", "b"};
	struct h5write_row rows[8];
	struct h5write_profile prof = {rows, 8, NULL, 0};
	struct h5write_opts o = tu_h5_opts(schema, 0);
	const char *h5 = tu_path("rank-budget.h5"), *db = tu_path("rank-budget.sqlite");
	struct ingest_result r;
	struct store *st = NULL;
	struct walked wh;
	char warn[512], got[64];
	size_t i;

	unlink(h5);
	unlink(db);
	for (i = 0; i < 20; i++) {
		as[i] = (int64_t)i * 10;
		ae[i] = as[i] + 8;
		bs[i] = as[i] + 2;
		be[i] = as[i] + 5 + (int64_t)(i % 3);
	}
	memset(rows, 0, sizeof(rows));
	for (i = 0; i < 8; i++) {
		rows[i].rank = (uint32_t)(i / 2);
		rows[i].region = names[i % 2];
		rows[i].calls = i / 2 == 3 ? 20 : 10;
		rows[i].starts = i % 2 ? bs : as;
		rows[i].ends = i % 2 ? be : ae;
		rows[i].source_line = -1;
	}
	assert_int_equal(h5write_file(h5, &prof, &o), 0);
	ingest_testing_tree_budget(30);
	h5prof_set_chunk_events(4);
	ingest_pending_free(walk_file(h5, names, &wh, warn, sizeof(warn)));
	assert_int_equal(wh.ok, 3);
	assert_int_equal(wh.npaths, 6);
	for (i = 0; i < wh.npaths; i++)
		assert_true(wh.paths[i].rank < 3);
	/* (the warning's wording is that of the default budget) */
	assert_non_null(strstr(warn, "rank 3: its 40 calls"));
	assert_non_null(strstr(warn, "so rank 3 has no call tree"));
	assert_int_equal(store_open(&st, db, 0), 0);
	assert_int_equal(ingest_file(&r, st, h5, &no_opts), 0);
	store_close(st);
	h5prof_set_chunk_events(0);
	ingest_testing_tree_budget(0);
	assert_string_equal(
	    tu_db_text(got, sizeof(got), db,
		       "select group_concat(rank || ':' || calls || ':' || total_ns) "
		       "from (select rank, sum(calls) calls, sum(total_ns) total_ns "
		       "from timings group by rank order by rank)"),
	    "0:20:119,1:20:119,2:20:119,3:40:239");
}

static void test_calltree_rank_past_budget(void **state)
{
	(void)state;
	rank_past_budget(3);
	rank_past_budget(1);
}

/* A reader's CPU budget for a file: 5 s and 10 s a MiB, rounded up to a
 * second, never wrapped (hand-computed). */
static void test_cpu_budget(void **state)
{
	(void)state;
	assert_int_equal(ingest_cpu_budget(0), 5);
	assert_int_equal(ingest_cpu_budget(1), 6);
	assert_int_equal(ingest_cpu_budget(104857), 6);		/* 0.99999 s */
	assert_int_equal(ingest_cpu_budget(104858), 7);		/* 1.00000 s */
	assert_int_equal(ingest_cpu_budget(281848), 8);		/* mkprofile --flip 1 */
	assert_int_equal(ingest_cpu_budget(1 << 20), 15);	/* 1 MiB */
	assert_int_equal(ingest_cpu_budget(1600000000), 15264); /* the 100M-call file */
	assert_int_equal(ingest_cpu_budget(((uint64_t)1 << 52) - 1), 0xffffffffu);
	assert_int_equal(ingest_cpu_budget((uint64_t)1 << 52), 0xffffffffu);
	assert_int_equal(ingest_cpu_budget(UINT64_MAX), 0xffffffffu);
}

TU_MAIN(NULL, NULL,
	{
	    cmocka_unit_test(test_cpu_budget),
	    cmocka_unit_test(test_upstream_fixtures),
	    cmocka_unit_test(test_generated_layouts),
	    cmocka_unit_test_teardown(test_rows_past_tree_budget, reset_tree_budget),
	    cmocka_unit_test(test_big_rows),
	    cmocka_unit_test_teardown(test_calltree_rank_past_budget, reset_tree_budget),
	    cmocka_unit_test(test_big_row_no_spool),
	    cmocka_unit_test(test_blobs_streamed),
	    cmocka_unit_test(test_duplicate_and_tags),
	    cmocka_unit_test(test_damaged_files_leave_nothing),
	    cmocka_unit_test(test_not_a_profile),
	    cmocka_unit_test(test_meta_check),
	    cmocka_unit_test(test_finish_temporary_store),
	    cmocka_unit_test(test_queue),
	    cmocka_unit_test(test_readers_die_idle),
	    cmocka_unit_test(test_calltree_real),
	    cmocka_unit_test(test_calltree_overlap),
	    cmocka_unit_test(test_calltree_json_twin),
	    cmocka_unit_test_teardown(test_calltree_json_ranks, reset_tree_budget),
	})
