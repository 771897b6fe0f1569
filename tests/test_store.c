/*
 * test_store.c - the store front end and its SQLite backend: creating,
 * stamping and reopening stores, refusing foreign, non-SQLite and newer
 * files and unusable paths, the run / tag / metadata / region / timings
 * writes and their reads, finishing a run (src/store/finish.c over this
 * backend), list order, rollback (including the region id cache),
 * cascading deletes, pins, lock contention, temporary stores, and the
 * backend registry and table check.  The database is inspected with the
 * sqlite3 API directly (testutil_db.h).
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <sqlite3.h>

#include "testutil.h"
#include "testutil_db.h"

#include "scopedb/err.h"
#include "scopedb/store.h"
#include "scopedb/transfer.h"
#include "scopedb/util.h"
#include "store/backend.h"
#include "store/blob.h"
#include "store/finish.h"
#include "store/rows.h"
#include "store/sqlite/sqlite.h"
#include "util/percentile.h"

/* ---- files ---- */

/* The message must be exactly before + path + after. */
static void expect_msg(const char *before, const char *path, const char *after)
{
	char want[4096];

	snprintf(want, sizeof(want), "%s%s%s", before, path, after);
	assert_string_equal(err_msg(), want);
}

/* ---- store helpers ---- */

/* store_open(path, flags) fails with code, no store and the message
 * "cannot open store 'PATH'" + tail. */
static void expect_open_fails(const char *path, int flags, int code, const char *tail)
{
	struct store *st = (struct store *)1;
	char after[256];

	assert_int_equal(store_open(&st, path, flags), code);
	assert_null(st);
	snprintf(after, sizeof(after), "'%s", tail);
	expect_msg("cannot open store '", path, after);
}

static struct store *open_ok(const char *path, int flags)
{
	struct store *st = NULL;
	int ret = store_open(&st, path, flags);

	if (ret)
		fail_msg("store_open(%s): %s", path, err_msg());
	assert_non_null(st);
	return st;
}

static int64_t add_run(struct store *st, const char *sha, const char *recorded,
		       const char *ingested)
{
	struct store_run r;
	int64_t id = 0;

	r = (struct store_run){.sha256 = (char *)sha,
			       .source_path = (char *)"/data/prof.h5",
			       .ingested_at = (char *)ingested,
			       .recorded_at = (char *)recorded,
			       .schema = 3,
			       .layout = (char *)"columnar",
			       .num_ranks = 4};
	assert_int_equal(store_insert_run(st, &id, &r), 0);
	assert_true(id > 0);
	return id;
}

/* A new store tu_path(name) opened for writing; its path goes to path. */
static struct store *open_tmp(char path[static 512], const char *name)
{
	snprintf(path, 512, "%s", tu_path(name));
	return open_ok(path, 0);
}

/* The id of the region named name (store_region_id() must succeed). */
static int64_t region_id(struct store *st, const char *name)
{
	int64_t id = 0;

	assert_int_equal(store_region_id(st, &id, name), 0);
	return id;
}

/* The id of the region named prefix followed by n in decimal. */
static int64_t numbered_region_id(struct store *st, const char *prefix, int n)
{
	char name[64];

	snprintf(name, sizeof(name), "%s%d", prefix, n);
	return region_id(st, name);
}

/* Begin a transaction on st and add run sha to it (as add_run()). */
static int64_t begin_run(struct store *st, const char *sha)
{
	assert_int_equal(store_begin(st), 0);
	return add_run(st, sha, NULL, "2024-01-01T00:00:00Z");
}

/* A new store at tu_path(name) (path: its path) with run sha begun in it
 * (begin_run()), whose id goes to *run. */
static struct store *open_run(char path[static 512], const char *name, const char *sha,
			      int64_t *run)
{
	struct store *st = open_tmp(path, name);

	*run = begin_run(st, sha);
	return st;
}

/* The number of runs store_list_runs() gives. */
static size_t count_runs(struct store *st)
{
	struct store_run *runs = NULL;
	size_t n = 0;

	assert_int_equal(store_list_runs(st, &runs, &n), 0);
	store_runs_free(runs, n);
	return n;
}

/* An in-memory store st takes and lists run sha; closing it leaves no
 * file behind. */
static void check_in_memory(struct store *st, const char *sha)
{
	struct store_run *runs;
	size_t n;

	begin_run(st, sha);
	assert_int_equal(store_commit(st), 0);
	assert_int_equal(store_list_runs(st, &runs, &n), 0);
	assert_int_equal(n, 1);
	assert_string_equal(runs[0].sha256, sha);
	store_runs_free(runs, n);
	store_close(st);
	assert_false(tu_file_exists(":memory:"));
}

static void fill_timing(struct store_timing *t, int64_t run, int64_t region, int64_t rank)
{
	*t = (struct store_timing){.run_id = run,
				   .region_id = region,
				   .rank = rank,
				   .has_events = 1,
				   .calls = 3,
				   .total = 38,
				   .min = 5,
				   .max = 20,
				   .first = 5,
				   .last = 15,
				   .start_min = 10,
				   .end_max = 55,
				   .mean = 38.0 / 3.0,
				   .m2 = 116.66666666666667,
				   .exclusive = 30,
				   .gpu_count = 2,
				   .gpu_total = 9,
				   .source_file = "solver.py",
				   .source_line = 7,
				   .source_text = "def solve():",
				   .tags_json = "[\"golden\"]"};
}

/* ---- opening ---- */

static void test_create_and_reopen(void **state)
{
	char path[512], buf[64];
	struct store *st;
	int64_t objects;
	int i;

	(void)state;
	snprintf(path, sizeof(path), "%s", tu_path("create.sqlite"));
	assert_int_equal(store_schema_version(), 4);
	st = open_ok(path, 0);
	store_close(st);
	assert_true(tu_file_exists(path));
	assert_int_equal(tu_db_int(path, "PRAGMA application_id"), SQLITE_APPLICATION_ID);
	assert_int_equal(tu_db_int(path, "PRAGMA user_version"), store_schema_version());
	assert_string_equal(tu_db_text(buf, sizeof(buf), path, "PRAGMA journal_mode"), "wal");
	objects = tu_db_int(path, "SELECT count(*) FROM sqlite_master");
	assert_true(objects >= 7);
	assert_int_equal(tu_db_int(path,
				   "SELECT count(*) FROM sqlite_master WHERE name IN "
				   "('runs', 'run_tags', 'run_metadata', 'regions', 'timings', "
				   "'timings_durations', 'pins')"),
			 7);

	/* reopening migrates nothing again */
	for (i = 0; i < 3; i++) {
		st = open_ok(path, i == 1 ? STORE_READONLY : 0);
		store_close(st);
	}
	assert_int_equal(tu_db_int(path, "SELECT count(*) FROM sqlite_master"), objects);
	assert_int_equal(tu_db_int(path, "PRAGMA user_version"), store_schema_version());

	/* data written in one session is there in the next */
	st = open_ok(path, 0);
	add_run(st, "aa", NULL, "2024-01-01T00:00:00Z");
	store_close(st);
	st = open_ok(path, STORE_READONLY);
	{
		int64_t id = 0;

		assert_int_equal(store_find_sha(st, &id, "aa"), 0);
		assert_int_equal(id, 1);
	}
	store_close(st);
}

static void test_empty_file_becomes_store(void **state)
{
	char path[512];
	struct store *st;

	(void)state;
	snprintf(path, sizeof(path), "%s", tu_path("empty.sqlite"));
	tu_write_file(path, NULL, 0);
	/* an empty file is not a store yet; read-only cannot make it one */
	expect_open_fails(path, STORE_READONLY, ERR_STORE, ": not a scopedb database");
	st = open_ok(path, 0);
	store_close(st);
	assert_int_equal(tu_db_int(path, "PRAGMA application_id"), SQLITE_APPLICATION_ID);
}

static void test_readonly_missing(void **state)
{
	char path[512];

	(void)state;
	snprintf(path, sizeof(path), "%s", tu_path("missing.sqlite"));
	expect_open_fails(path, STORE_READONLY, ERR_IO, ": no such file or directory");
	assert_false(tu_file_exists(path));
}

static void test_refuses_foreign_sqlite(void **state)
{
	char path[512], path2[512], buf[64];

	(void)state;
	snprintf(path, sizeof(path), "%s", tu_path("foreign.sqlite"));
	assert_int_equal(tu_db_exec(path, "CREATE TABLE t (x); INSERT INTO t VALUES (1)"),
			 SQLITE_OK);
	expect_open_fails(path, 0, ERR_STORE, ": not a scopedb database");
	expect_open_fails(path, STORE_READONLY, ERR_STORE, ": not a scopedb database");
	/* untouched */
	assert_string_equal(tu_db_text(buf, sizeof(buf), path, "PRAGMA journal_mode"), "delete");
	assert_int_equal(tu_db_int(path, "PRAGMA application_id"), 0);
	assert_int_equal(tu_db_int(path, "PRAGMA user_version"), 0);
	assert_int_equal(tu_db_int(path, "SELECT count(*) FROM sqlite_master"), 1);

	/* an empty database stamped by another application */
	snprintf(path2, sizeof(path2), "%s", tu_path("otherapp.sqlite"));
	assert_int_equal(tu_db_exec(path2, "PRAGMA application_id = 305419896"), SQLITE_OK);
	expect_open_fails(path2, 0, ERR_STORE, ": not a scopedb database");
	assert_int_equal(tu_db_int(path2, "PRAGMA application_id"), 305419896);
	assert_int_equal(tu_db_int(path2, "SELECT count(*) FROM sqlite_master"), 0);
}

static void test_refuses_non_sqlite(void **state)
{
	static const char text[] = "region,total\nsolve,38\n";
	char path[512], big[512], data[8192];
	unsigned char *back;
	long len;
	size_t i;

	(void)state;
	snprintf(path, sizeof(path), "%s", tu_path("notes.txt"));
	tu_write_file(path, text, sizeof(text) - 1);
	expect_open_fails(path, 0, ERR_STORE, ": not a scopedb database");
	expect_open_fails(path, STORE_READONLY, ERR_STORE, ": not a scopedb database");

	snprintf(big, sizeof(big), "%s", tu_path("noise.bin"));
	for (i = 0; i < sizeof(data); i++)
		data[i] = (char)(i * 7 + 3);
	tu_write_file(big, data, sizeof(data));
	expect_open_fails(big, 0, ERR_STORE, ": not a scopedb database");

	/* contents unchanged */
	back = tu_read_file(path, &len);
	assert_int_equal(len, sizeof(text) - 1);
	assert_memory_equal(back, text, sizeof(text) - 1);
	free(back);
	assert_false(tu_file_exists(tu_path("notes.txt-wal")));
}

static void test_refuses_newer_version(void **state)
{
	char path[512], sql[64], want[1024];
	struct store *st = NULL;

	(void)state;
	snprintf(path, sizeof(path), "%s", tu_path("newer.sqlite"));
	store_close(open_ok(path, 0));
	snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", store_schema_version() + 1);
	assert_int_equal(tu_db_exec(path, sql), SQLITE_OK);
	snprintf(want, sizeof(want),
		 "cannot open store '%s': written by a newer scopedb (schema version %d; this "
		 "scopedb supports up to %d)",
		 path, store_schema_version() + 1, store_schema_version());
	assert_int_equal(store_open(&st, path, 0), ERR_STORE);
	assert_null(st);
	assert_string_equal(err_msg(), want);
	assert_int_equal(store_open(&st, path, STORE_READONLY), ERR_STORE);
	assert_string_equal(err_msg(), want);
	assert_int_equal(tu_db_int(path, "PRAGMA user_version"), store_schema_version() + 1);
}

static void test_unusable_paths(void **state)
{
	char path[1024], dir[512];

	(void)state;
	snprintf(path, sizeof(path), "%s", tu_path("no/such/dir/x.sqlite"));
	expect_open_fails(path, 0, ERR_IO, ": no such file or directory");
	assert_false(tu_file_exists(tu_path("no")));

	/* a directory */
	snprintf(dir, sizeof(dir), "%s", tu_path("adir"));
	assert_int_equal(mkdir(dir, 0755), 0);
	expect_open_fails(dir, 0, ERR_IO, ": is a directory");
	expect_open_fails(dir, STORE_READONLY, ERR_IO, ": is a directory");

	/* a read-only directory (root ignores permissions, so only as a user) */
	if (geteuid() != 0) {
		snprintf(dir, sizeof(dir), "%s", tu_path("rodir"));
		assert_int_equal(mkdir(dir, 0555), 0);
		snprintf(path, sizeof(path), "%s/x.sqlite", dir);
		expect_open_fails(path, 0, ERR_IO, ": permission denied");
		assert_false(tu_file_exists(path));
		chmod(dir, 0755);
	}
}

/* Which --db values store_open() checks as paths: connection strings of a
 * server are neither stat()ed nor created (cmd_ingest.c). */
static void test_is_file(void **state)
{
	(void)state;
	assert_true(store_is_file("x.sqlite"));
	assert_true(store_is_file("/a/b/c.sqlite"));
	assert_true(store_is_file(""));
	assert_true(store_is_file(":memory:"));
	assert_false(store_is_file("postgresql://u@h/db"));
	assert_false(store_is_file("postgres:///db?host=/tmp"));
#ifdef SCOPEDB_HAVE_POSTGRES
	assert_false(store_is_file("host=/tmp dbname=x"));
#endif
}

/* store_file_missing() is 1 only for a file path with nothing there;
 * closing a store keeps its file (no store file is ever removed). */
static void test_file_missing(void **state)
{
	char path[512];
	struct store *st;

	(void)state;
	snprintf(path, sizeof(path), "%s", tu_path("new.sqlite"));
	assert_true(store_file_missing(path));
	assert_false(store_file_missing("postgresql://u@h/db"));
	st = open_ok(path, 0);
	assert_false(store_file_missing(path));
	store_close(st);
	assert_false(store_file_missing(path));
}

/* transfer_check() reads the runs a transfer would copy (the lowest id
 * first, of all runs or of the ones named) in full, timings included,
 * until one passes, and writes nothing: run 2's timings row without its
 * call durations is refused only when no other run is to be copied
 * (issue 24: one bad run never blocks the others). */
static void test_transfer_check(void **state)
{
	const int64_t both[] = {3, 2}, one[] = {1}, two[] = {2, 2};
	char path[512];
	struct store *st;
	struct store_timing t;
	int64_t run2;
	size_t nruns = 9;

	(void)state;
	st = open_tmp(path, "first-run.sqlite");
	/* no run: nothing to check, and nothing to copy (no store to create) */
	assert_int_equal(transfer_check(st, NULL, 0, &nruns), 0);
	assert_int_equal(nruns, 0);
	assert_int_equal(store_begin(st), 0);
	add_run(st, "c1", NULL, "2024-01-01T00:00:00Z");
	run2 = add_run(st, "c2", NULL, "2024-01-02T00:00:00Z");
	add_run(st, "c3", NULL, "2024-01-03T00:00:00Z");
	fill_timing(&t, run2, region_id(st, "solve"), 0);
	assert_int_equal(store_add_timing(st, &t), 0);
	assert_int_equal(store_commit(st), 0);
	assert_int_equal(transfer_check(st, NULL, 0, &nruns), 0);
	assert_int_equal(nruns, 3);
	assert_int_equal(transfer_check(st, one, 1, &nruns), 0);
	assert_int_equal(nruns, 1);
	assert_int_equal(transfer_check(st, both, 2, NULL), 0);
	assert_int_equal(transfer_check(st, two, 2, NULL), ERR_STORE);
	expect_msg("run 2 (/data/prof.h5) not copied: store '", path,
		   "' is damaged: region 'solve' of run 2 rank 0 has 3 calls but no call "
		   "durations");
	store_close(st);
}

/* transfer_runs_each()'s callback: each run handed over once, in order,
 * and only once it is done: a copied run is in the destination already,
 * as another connection (peek) reads it. */
struct said_runs {
	struct store *peek;
	int64_t next;
};

static void said_run(void *ctx, const struct transfer_run *r)
{
	struct said_runs *x = ctx;
	char sha[16];
	int64_t id = 0;

	assert_int_equal(r->src_id, x->next);
	x->next++;
	snprintf(sha, sizeof(sha), "b%03lld", (long long)r->src_id);
	assert_int_equal(store_find_sha(x->peek, &id, sha), 0);
	assert_int_equal(id, r->copied ? r->dst_id : 0);
}

/* Runs are copied in batches of up to 64, each one transaction: 150 runs
 * with two damaged ones (in the second and the third batch) copy the 148
 * others, oldest first, the damaged ones named alone; each is said once
 * it is committed (transfer_runs_each()); a second copy finds them all
 * there. */
static void test_transfer_batches(void **state)
{
	struct said_runs said = {NULL, 1};
	char path[512], dpath[512], sha[16];
	struct store *src, *dst;
	struct store_timing t;
	struct transfer_result res;
	size_t i, k;
	int64_t id;

	(void)state;
	src = open_tmp(path, "batch-src.sqlite");
	dst = open_tmp(dpath, "batch-dst.sqlite");
	assert_int_equal(store_begin(src), 0);
	for (i = 1; i <= 150; i++) {
		snprintf(sha, sizeof(sha), "b%03zu", i);
		id = add_run(src, sha, NULL, "2024-01-01T00:00:00Z");
		if (i != 70 && i != 140)
			continue;
		/* calls without their durations: damaged */
		fill_timing(&t, id, region_id(src, "solve"), 0);
		assert_int_equal(store_add_timing(src, &t), 0);
	}
	assert_int_equal(store_commit(src), 0);
	said.peek = open_ok(dpath, STORE_READONLY);
	for (k = 0; k < 2; k++) {
		if (k == 0)
			assert_int_equal(
			    transfer_runs_each(&res, dst, src, NULL, 0, 0, said_run, &said), 0);
		else
			assert_int_equal(transfer_runs(&res, dst, src, NULL, 0, 0), 0);
		assert_int_equal(said.next, 151);
		assert_int_equal(res.nruns, 150);
		assert_int_equal(res.nfailed, 2);
		for (i = 0; i < res.nruns; i++) {
			int bad = res.runs[i].src_id == 70 || res.runs[i].src_id == 140;

			assert_int_equal(res.runs[i].src_id, (int64_t)i + 1);
			assert_int_equal(res.runs[i].error != NULL, bad);
			assert_int_equal(res.runs[i].copied, !bad && k == 0);
			assert_int_equal(res.runs[i].dst_id,
					 bad ? 0 : (int64_t)(i + 1 - (i >= 70) - (i >= 140)));
		}
		assert_non_null(strstr(res.runs[69].error, "run 70 (/data/prof.h5) not copied: "));
		transfer_result_release(&res);
		assert_int_equal(count_runs(dst), 148);
	}
	store_close(said.peek);
	store_close(dst);
	store_close(src);
}

/* A names() of the test: pins "beta", "bass", "base" in that order, or a
 * failure. */
static int fake_names(struct store_conn *c, struct buf *out, size_t *n, enum rows_names kind)
{
	static const char names[] = "beta\0bass\0base";

	assert_int_equal(kind, ROWS_NAMES_PIN);
	if (c)
		return err_set(ERR_STORE, "names failed");
	*n = 3;
	return buf_add(out, names, sizeof(names)) ? ERR_NOMEM : 0;
}

/* rows_hint(): the nearest name, the first by strcmp among equally near
 * ones whatever order the backend lists them in; nothing when none is
 * close; the error of names(). */
static void test_rows_hint(void **state)
{
	struct buf hint = BUF_INIT;

	(void)state;
	assert_int_equal(rows_hint(NULL, fake_names, &hint, ROWS_NAMES_PIN, "bxse"), 0);
	assert_string_equal(hint.data, "; did you mean 'base'?");
	buf_release(&hint);
	/* "bas" is one edit from "base" and "bass": the first by strcmp */
	assert_int_equal(rows_hint(NULL, fake_names, &hint, ROWS_NAMES_PIN, "bas"), 0);
	assert_string_equal(hint.data, "; did you mean 'base'?");
	buf_release(&hint);
	assert_int_equal(rows_hint(NULL, fake_names, &hint, ROWS_NAMES_PIN, "zzzzzz"), 0);
	assert_null(hint.data);
	assert_int_equal(rows_no_pin(NULL, fake_names, "bxse"), ERR_NOTFOUND);
	assert_string_equal(err_msg(), "no pin named 'bxse'; did you mean 'base'?");
	assert_int_equal(rows_no_pin((struct store_conn *)&hint, fake_names, "x"), ERR_STORE);
	assert_string_equal(err_msg(), "names failed");
}

/* A row of the test for the decoders of rows.h: res is an array of
 * column texts, NULL for SQL NULL ("!" for a text that failed). */
static int fake_null(const struct rows_row *r, int col)
{
	return ((const char *const *)r->res)[col] == NULL;
}

static int64_t fake_i64(const struct rows_row *r, int col)
{
	const char *v = ((const char *const *)r->res)[col];

	return v ? strtoll(v, NULL, 10) : 0;
}

static double fake_f64(const struct rows_row *r, int col)
{
	const char *v = ((const char *const *)r->res)[col];

	return v ? strtod(v, NULL) : 0.0;
}

static const char *fake_text(const struct rows_row *r, int col)
{
	const char *v = ((const char *const *)r->res)[col];

	return v && strcmp(v, "!") ? v : NULL;
}

static int fake_blob(const struct rows_row *r, int col, const void **data, size_t *len)
{
	*data = fake_text(r, col);
	*len = *data ? strlen(*data) : 0;
	return 0;
}

static const struct rows_row_ops fake_row_ops = {fake_null, fake_i64, fake_f64, fake_text,
						 fake_blob};

/* rows_run(), rows_stats(), rows_quantiles(), rows_text(): the columns in
 * the documented order, NULL text stays NULL, a NULL percentile means no
 * stored quantiles, a text that cannot be read is ERR_NOMEM. */
static void test_rows_decode(void **state)
{
	const char *run[] = {"7",    "abc", "/p.h5",	"2026-01-01", NULL, "L", "c0ffee",
			     "main", "3",   "columnar", "4",	      "5",  "60"};
	const char *stats[] = {"1", "10",  "500", "2",	 "90",	"0", "0",
			       "3", "200", "4",	  "1.5", "2.5", NULL};
	struct rows_row r = {&fake_row_ops, run, 0, NULL};
	struct store_region_stats g;
	struct store_run out;
	char *t;

	(void)state;
	assert_int_equal(rows_run(&out, &r), 0);
	{
		/* the text columns 1-7 and 9, in the run's fields */
		char *got[] = {out.sha256, out.source_path, out.ingested_at, out.recorded_at,
			       out.label,  out.commit,	    out.branch,	     out.layout};
		size_t i;

		for (i = 0; i < 8; i++)
			if (run[i < 7 ? i + 1 : 9])
				assert_string_equal(got[i], run[i < 7 ? i + 1 : 9]);
			else
				assert_null(got[i]);
	}
	assert_true(out.id == 7 && out.schema == 3 && out.num_ranks == 4);
	assert_true(out.num_regions == 5 && out.num_calls == 60);
	store_run_release(&out);
	run[5] = "!";
	assert_int_equal(rows_run(&out, &r), ERR_NOMEM);
	store_run_release(&out);
	assert_int_equal(rows_text(&t, &r, 4), 0);
	assert_null(t);

	memset(&g, 0, sizeof(g));
	r.res = stats;
	rows_stats(&g, &r, 0);
	assert_true(g.has_events);
	assert_int_equal(g.calls, 10);
	assert_int_equal(g.total, 500);
	assert_int_equal(g.min, 2);
	assert_int_equal(g.max, 90);
	assert_int_equal(g.busy_ranks, 3);
	assert_int_equal(g.busy_max, 200);
	assert_int_equal(g.nranks, 4);
	rows_quantiles(&g, &r, 10);
	assert_false(g.has_quantiles);
	assert_true(g.quantiles[0] == 1.5 && g.quantiles[1] == 2.5);
	stats[12] = "3.5";
	rows_quantiles(&g, &r, 10);
	assert_true(g.has_quantiles);
}

/* rows_series_group(): cells in any order come out by region, then run;
 * a region without a cell is dropped and the others renumbered, each
 * cell's name pointing at its region's. */
static void test_rows_series_group(void **state)
{
	static const size_t order[][2] = {{2, 1}, {0, 1}, {2, 0}, {0, 0}, {3, 2}, {0, 2}};
	struct store_series s;
	size_t i;

	(void)state;
	memset(&s, 0, sizeof(s));
	s.nregions = 4;
	s.names = calloc(4, sizeof(*s.names));
	s.cells = calloc(6, sizeof(*s.cells));
	assert_non_null(s.names);
	assert_non_null(s.cells);
	s.names[0] = strdup("a");
	s.names[1] = strdup("b"); /* no cell: dropped */
	s.names[2] = strdup("c");
	s.names[3] = strdup("d");
	for (i = 0; i < 6; i++) {
		s.cells[i].region = order[i][0];
		s.cells[i].run = order[i][1];
	}
	s.ncells = 6;
	assert_int_equal(rows_series_group(&s), 0);
	assert_int_equal(s.nregions, 3);
	assert_string_equal(s.names[1], "c");
	for (i = 0; i < 6; i++) {
		static const size_t want[][2] = {{0, 0}, {0, 1}, {0, 2}, {1, 0}, {1, 1}, {2, 2}};

		assert_int_equal(s.cells[i].region, want[i][0]);
		assert_int_equal(s.cells[i].run, want[i][1]);
		assert_ptr_equal(s.cells[i].stats.name, s.names[want[i][0]]);
	}
	for (i = 0; i < s.nregions; i++)
		free(s.names[i]);
	free(s.names);
	free(s.cells);
}

/* rows_point_find(): a point by (region, run) through rows_point_index(),
 * NULL for one that is not there. */
static void test_rows_point_find(void **state)
{
	struct store_history_point pts[3], **index;

	(void)state;
	memset(pts, 0, sizeof(pts));
	pts[0].stats.region_id = 2, pts[0].run_id = 1;
	pts[1].stats.region_id = 1, pts[1].run_id = 9;
	pts[2].stats.region_id = 2, pts[2].run_id = 0;
	index = rows_point_index(pts, 3);
	assert_non_null(index);
	assert_ptr_equal(rows_point_find(index, 3, 2, 1), &pts[0]);
	assert_ptr_equal(rows_point_find(index, 3, 1, 9), &pts[1]);
	assert_ptr_equal(rows_point_find(index, 3, 2, 0), &pts[2]);
	assert_null(rows_point_find(index, 3, 1, 1));
	free(index);
}

/* ---- writes and reads ---- */

static void test_runs_tags_meta(void **state)
{
	char path[512];
	struct store *st;
	struct store_run r, got;
	struct store_meta m;
	int64_t id = 0, id2, found = -1;
	int added = -1;

	(void)state;
	st = open_tmp(path, "runs.sqlite");
	r = (struct store_run){
	    .sha256 = (char *)"0123abcd",
	    .source_path = (char *)"runs/a.h5",
	    .ingested_at = (char *)"2024-05-01T10:00:00Z",
	    .recorded_at = (char *)"2024-05-01T09:59:00Z",
	    .label = (char *)"nightly",
	    .commit = (char *)"deadbeef",
	    .branch = (char *)"main",
	    .schema = 2,
	    .layout = (char *)"aggregate",
	    .num_ranks = 16,
	    .num_regions = 99 /* ignored */
	};
	assert_int_equal(store_insert_run(st, &id, &r), 0);
	assert_int_equal(id, 1);

	assert_int_equal(store_find_sha(st, &found, "0123abcd"), 0);
	assert_int_equal(found, id);
	assert_int_equal(store_find_sha(st, &found, "0123abce"), 0);
	assert_int_equal(found, 0);

	/* the same content twice is refused */
	assert_int_equal(store_insert_run(st, &id2, &r), ERR_STORE);
	assert_non_null(strstr(err_msg(), "UNIQUE constraint failed: runs.sha256"));

	assert_int_equal(store_add_tag(st, &added, id, "zz"), 0);
	assert_int_equal(added, 1);
	assert_int_equal(store_add_tag(st, &added, id, "baseline"), 0);
	assert_int_equal(added, 1);
	assert_int_equal(store_add_tag(st, &added, id, "zz"), 0);
	assert_int_equal(added, 0);
	assert_int_equal(store_add_tag(st, NULL, id, "mid"), 0);
	/* unknown run: foreign key */
	assert_int_equal(store_add_tag(st, &added, 77, "x"), ERR_STORE);
	assert_int_equal(added, 0);

	assert_int_equal(store_set_meta(st, id, "platform", "linux"), 0);
	assert_int_equal(store_set_meta(st, id, "modules", "[\"gcc\",\"mpi\"]"), 0);
	assert_int_equal(store_set_meta(st, id, "platform", "Linux-x86_64"), 0);
	assert_int_equal(store_finish_run(st, id), 0); /* no timings: 0 and 0 */
	assert_int_equal(store_finish_run(st, 77), ERR_NOTFOUND);

	assert_int_equal(store_get_run(st, &got, id), 0);
	assert_int_equal(got.id, id);
	assert_string_equal(got.sha256, "0123abcd");
	assert_string_equal(got.source_path, "runs/a.h5");
	assert_string_equal(got.ingested_at, "2024-05-01T10:00:00Z");
	assert_string_equal(got.recorded_at, "2024-05-01T09:59:00Z");
	assert_string_equal(got.label, "nightly");
	assert_string_equal(got.commit, "deadbeef");
	assert_string_equal(got.branch, "main");
	assert_int_equal(got.schema, 2);
	assert_string_equal(got.layout, "aggregate");
	assert_int_equal(got.num_ranks, 16);
	assert_int_equal(got.num_regions, 0);
	assert_int_equal(got.num_calls, 0);
	assert_int_equal(got.ntags, 3);
	assert_string_equal(got.tags[0], "baseline");
	assert_string_equal(got.tags[1], "mid");
	assert_string_equal(got.tags[2], "zz");
	store_run_release(&got);
	assert_null(got.sha256);
	store_run_release(&got); /* twice is harmless */
	store_run_release(NULL);

	assert_int_equal(store_get_run(st, &got, 77), ERR_NOTFOUND);
	expect_msg("no run 77 in store '", path, "'");
	assert_null(got.sha256);

	assert_int_equal(store_get_meta(st, &m, id), 0);
	assert_int_equal(m.n, 2);
	assert_string_equal(m.keys[0], "modules");
	assert_string_equal(m.values[0], "[\"gcc\",\"mpi\"]");
	assert_string_equal(m.keys[1], "platform");
	assert_string_equal(m.values[1], "Linux-x86_64");
	store_meta_release(&m);
	assert_int_equal(store_get_meta(st, &m, 77), 0);
	assert_int_equal(m.n, 0);
	store_meta_release(&m);
	store_meta_release(NULL);

	/* NULL ingested_at means now; "" optional fields become NULL */
	r = (struct store_run){.sha256 = (char *)"ff",
			       .source_path = (char *)"b.h5",
			       .label = (char *)"",
			       .commit = (char *)"",
			       .schema = 1,
			       .layout = (char *)"hierarchical"};
	assert_int_equal(store_insert_run(st, &id2, &r), 0);
	assert_int_equal(id2, id + 1);
	assert_int_equal(store_get_run(st, &got, id2), 0);
	assert_int_equal(strlen(got.ingested_at), 20);
	assert_int_equal(got.ingested_at[19], 'Z');
	assert_null(got.recorded_at);
	assert_null(got.label);
	assert_null(got.commit);
	assert_null(got.branch);
	assert_int_equal(got.ntags, 0);
	assert_null(got.tags);
	store_run_release(&got);

	/* layout is checked */
	r.sha256 = (char *)"fe";
	r.layout = (char *)"flat";
	assert_int_equal(store_insert_run(st, &id2, &r), ERR_STORE);
	assert_non_null(strstr(err_msg(), "CHECK constraint failed"));
	store_close(st);
}

static void test_regions_and_timings(void **state)
{
	char path[512], buf[256];
	static const int64_t durs[] = {5, 13, 20};
	struct store *st;
	struct store_timing t;
	struct buf blob = BUF_INIT;
	int64_t run, a, b, a2;

	(void)state;
	st = open_tmp(path, "timings.sqlite");
	assert_int_equal(store_begin(st), 0);
	assert_int_equal(store_begin(st), ERR_USAGE);
	run = add_run(st, "t1", NULL, "2024-01-01T00:00:00Z");
	a = region_id(st, "solve");
	b = region_id(st, "io/write");
	a2 = region_id(st, "solve");
	assert_int_equal(a, a2);
	assert_true(a != b);

	assert_int_equal(blob_encode(&blob, durs, 3), 0);
	fill_timing(&t, run, a, 0);
	t.durations = blob.data;
	t.durations_len = blob.len;
	assert_int_equal(store_add_timing(st, &t), 0);

	/* aggregate row: no events, unknown fields */
	fill_timing(&t, run, b, 3);
	t.has_events = 0;
	t.calls = UINT64_C(9000000000);
	t.exclusive = -1;
	t.source_file = "";
	t.source_line = -1;
	t.source_text = NULL;
	t.tags_json = "[]";
	assert_int_equal(store_add_timing(st, &t), 0);

	/* the same (run, region, rank) twice */
	assert_int_equal(store_add_timing(st, &t), ERR_STORE);
	assert_non_null(strstr(err_msg(), "UNIQUE constraint failed"));
	/* unknown region */
	fill_timing(&t, run, 12345, 0);
	assert_int_equal(store_add_timing(st, &t), ERR_STORE);
	assert_non_null(strstr(err_msg(), "FOREIGN KEY constraint failed"));
	assert_int_equal(store_commit(st), 0);

	/* outside a transaction */
	fill_timing(&t, run, a, 9);
	assert_int_equal(store_add_timing(st, &t), ERR_USAGE);
	store_close(st);

	assert_int_equal(tu_db_int(path, "SELECT count(*) FROM timings"), 2);
	assert_int_equal(tu_db_int(path, "SELECT count(*) FROM timings_durations"), 1);
	assert_int_equal(tu_db_int(path, "SELECT count(*) FROM regions"), 2);
	assert_string_equal(
	    tu_db_text(buf, sizeof(buf), path,
		       "SELECT printf('%d %d %d %d %d %d %d %d %d %d %d %d %d %d %s %d %s "
		       "%s', rank, has_events, calls, total_ns, min_ns, max_ns, "
		       "first_ns, last_ns, start_min_ns, end_max_ns, gpu_count, "
		       "exclusive_ns, gpu_total_ns, run_id, source_file, source_line, "
		       "source_text, tags) FROM timings WHERE rank = 0"),
	    "0 1 3 38 5 20 5 15 10 55 2 30 9 1 solver.py 7 def solve(): "
	    "[\"golden\"]");
	/* doubles come back bit for bit */
	assert_true(tu_db_double(path, "SELECT mean_ns FROM timings WHERE rank = 0") == 38.0 / 3.0);
	assert_true(tu_db_double(path, "SELECT m2 FROM timings WHERE rank = 0") ==
		    116.66666666666667);
	assert_string_equal(
	    tu_db_text(buf, sizeof(buf), path,
		       "SELECT printf('%d %d %d', has_events, calls, rank) FROM timings "
		       "WHERE rank = 3"),
	    "0 9000000000 3");
	assert_int_equal(tu_db_int(path,
				   "SELECT count(*) FROM timings WHERE rank = 3 AND "
				   "exclusive_ns IS NULL AND source_file IS NULL AND "
				   "source_line IS NULL AND source_text IS NULL AND tags IS NULL"),
			 1);
	assert_string_equal(
	    tu_db_text(buf, sizeof(buf), path,
		       "SELECT hex(d.data) FROM timings_durations d JOIN timings t ON "
		       "t.id = d.timing_id WHERE t.rank = 0"),
	    "0103050807");
	buf_release(&blob);

	/* interned names survive reopening */
	st = open_ok(path, 0);
	a2 = region_id(st, "solve");
	assert_int_equal(a2, a);
	a2 = region_id(st, "io/write");
	assert_int_equal(a2, b);
	store_close(st);
}

/* One timings row of region on rank with the sorted durations d[0..n). */
static void add_durations(struct store *st, int64_t run, int64_t region, int64_t rank,
			  const int64_t *d, size_t n)
{
	struct store_timing t;
	struct buf blob = BUF_INIT;
	size_t i;

	fill_timing(&t, run, region, rank);
	t.calls = n;
	t.total = 0;
	for (i = 0; i < n; i++)
		t.total += d[i];
	t.min = n ? d[0] : 0;
	t.max = n ? d[n - 1] : 0;
	t.gpu_count = 0;
	t.gpu_total = 0;
	if (n) {
		assert_int_equal(blob_encode(&blob, d, n), 0);
		t.durations = blob.data;
		t.durations_len = blob.len;
	}
	assert_int_equal(store_add_timing(st, &t), 0);
	buf_release(&blob);
}

/* Find region name in regs[0..n). */
static const struct store_region_stats *find_region(const struct store_region_stats *regs, size_t n,
						    const char *name)
{
	size_t i = 0;

	assert_true(n > 0);
	while (i + 1 < n && strcmp(regs[i].name, name))
		i++;
	assert_string_equal(regs[i].name, name);
	return &regs[i];
}

/*
 * store_finish_run(): the all-ranks totals and exact percentiles of each
 * region, as store_region_stats() returns them without a rank list, and
 * the schema 1 -> 2 upgrade that fills them in for older stores.
 */
static void test_finish_run(void **state)
{
	static const int64_t r0[] = {5, 13, 20}, r1[] = {1, 2, 3, 100},
			     merged[] = {1, 2, 3, 5, 13, 20, 100};
	static const int64_t rank1 = 1;
	char path[512], buf[256], before[256];
	struct store *st;
	struct store_timing t;
	struct store_region_stats *regs = NULL;
	const struct store_region_stats *g;
	struct store_run run;
	size_t n = 0;
	int64_t id, solve, io;

	(void)state;
	st = open_run(path, "finish.sqlite", "f1", &id);
	solve = region_id(st, "solve");
	io = region_id(st, "io");
	add_durations(st, id, solve, 0, r0, 3);
	add_durations(st, id, solve, 1, r1, 4);
	add_durations(st, id, solve, 2, NULL, 0); /* a rank without calls */
	fill_timing(&t, id, io, 0);		  /* aggregate layout: no blobs */
	t.has_events = 0;
	assert_int_equal(store_add_timing(st, &t), 0);
	assert_int_equal(store_finish_run(st, id), 0);
	assert_int_equal(store_finish_run(st, id), 0); /* idempotent */
	assert_int_equal(store_commit(st), 0);

	assert_int_equal(store_get_run(st, &run, id), 0);
	assert_int_equal(run.num_regions, 2);
	assert_int_equal(run.num_calls, 10);
	store_run_release(&run);

	assert_int_equal(store_region_stats(st, &regs, &n, id, NULL, 0, NULL, NULL), 0);
	assert_int_equal(n, 2);
	g = find_region(regs, n, "solve");
	assert_int_equal(g->calls, 7);
	assert_int_equal(g->total, 144);
	assert_int_equal(g->min, 1);
	assert_int_equal(g->max, 100);
	assert_int_equal(g->nranks, 3);
	assert_int_equal(g->busy_ranks, 2);
	assert_int_equal(g->busy_max, 106);
	assert_int_equal(g->has_events, 1);
	assert_true(g->has_quantiles);
	/* bit for bit the percentiles of the merged durations */
	assert_true(g->quantiles[0] == percentile_sorted(merged, 7, 50.0));
	assert_true(g->quantiles[1] == percentile_sorted(merged, 7, 95.0));
	assert_true(g->quantiles[2] == percentile_sorted(merged, 7, 99.0));
	assert_true(fabs(g->quantiles[1] - 76.0) < 1e-9); /* 20 + 0.7 * (100 - 20) */
	g = find_region(regs, n, "io");
	assert_int_equal(g->has_events, 0);
	assert_int_equal(g->calls, 3);
	assert_false(g->has_quantiles);
	store_region_stats_free(regs, n);

	/* with a rank list the timings rows are pooled, nothing is stored */
	assert_int_equal(store_region_stats(st, &regs, &n, id, &rank1, 1, NULL, NULL), 0);
	g = find_region(regs, n, "solve");
	assert_int_equal(g->calls, 4);
	assert_false(g->has_quantiles);
	store_region_stats_free(regs, n);
	store_close(st);

	/* a schema 1 store: the upgrade recomputes the same rows */
	snprintf(before, sizeof(before), "%s",
		 tu_db_text(buf, sizeof(buf), path,
			    "SELECT group_concat(printf('%d %d %d %d %!.17g %!.17g %!.17g', "
			    "region_id, calls, busy_ranks, nranks, p50_ns, p95_ns, p99_ns), ';') "
			    "FROM run_regions"));
	assert_int_equal(tu_db_exec(path, "DROP TABLE run_regions; DROP TABLE run_nesting; "
					  "DROP TABLE paths; DROP TABLE path_ranks; "
					  "CREATE INDEX timings_summary ON "
					  "timings (run_id, region_id, rank, has_events, calls, "
					  "total_ns, min_ns, max_ns, gpu_count, gpu_total_ns); "
					  "PRAGMA user_version = 1"),
			 SQLITE_OK);
	expect_open_fails(path, STORE_READONLY | STORE_NO_UPGRADE, ERR_STORE,
			  ": schema version 1 must be upgraded to 4; open it for writing once");
	assert_int_equal(tu_db_int(path, "PRAGMA user_version"), 1);
	/* a read-only open upgrades it first (the file is writable) */
	st = open_ok(path, STORE_READONLY);
	store_close(st);
	assert_int_equal(tu_db_int(path, "PRAGMA user_version"), 4);
	assert_string_equal(
	    tu_db_text(buf, sizeof(buf), path,
		       "SELECT group_concat(printf('%d %d %d %d %!.17g %!.17g %!.17g', "
		       "region_id, calls, busy_ranks, nranks, p50_ns, p95_ns, p99_ns), ';') "
		       "FROM run_regions"),
	    before);
	assert_non_null(strstr(before, ";")); /* both regions */
}

/* The quantiles of all regions of run id as text, in region order. */
static const char *quantiles_text(char *buf, size_t len, const char *path)
{
	return tu_db_text(
	    buf, len, path,
	    "SELECT group_concat(printf('%d:%!.17g/%!.17g/%!.17g', region_id, p50_ns, "
	    "p95_ns, p99_ns), ' ') FROM (SELECT * FROM run_regions ORDER BY region_id)");
}

/*
 * store_finish_run() with a spool too small for the run: the regions are
 * done in batches (after a first pass that overflows), with the same
 * results; so are regions bigger than the spool, each on its own.
 */
static void test_finish_batches(void **state)
{
	char path[512], want[2048], got[2048];
	int64_t d[40], run, reg;
	struct store *st;
	int region, rank, i;

	(void)state;
	st = open_run(path, "batches.sqlite", "b1", &run);
	for (rank = 0; rank < 4; rank++) {
		for (region = 0; region < 6; region++) {
			reg = numbered_region_id(st, "r", region);
			for (i = 0; i < 10 + region; i++)
				d[i] = 1000 * region + 37 * rank + i * (rank + 1);
			add_durations(st, run, reg, rank, d, (size_t)(10 + region));
		}
	}
	assert_int_equal(store_finish_run(st, run), 0);
	quantiles_text(want, sizeof(want), path); /* not committed: a read of the WAL */
	assert_int_equal(store_commit(st), 0);
	quantiles_text(want, sizeof(want), path);
	assert_non_null(strstr(want, "6:"));

	/* a 100-byte spool holds one region (4 blobs): many passes, same values */
	finish_set_spool_bytes(100);
	assert_int_equal(store_begin(st), 0);
	assert_int_equal(store_finish_run(st, run), 0);
	assert_int_equal(store_commit(st), 0);
	assert_string_equal(quantiles_text(got, sizeof(got), path), want);

	/* smaller than one blob: every region is fetched and decoded on its
	 * own, same values */
	finish_set_spool_bytes(8);
	assert_int_equal(store_begin(st), 0);
	assert_int_equal(store_finish_run(st, run), 0);
	assert_int_equal(store_commit(st), 0);
	finish_set_spool_bytes(0);
	assert_string_equal(quantiles_text(got, sizeof(got), path), want);
	store_close(st);
}

/* A run's blobs held in memory, as ingest holds its frames: the source
 * of store_finish_run_from(). */
struct held_blob {
	int64_t region, rank;
	struct buf data;
};

struct held_blobs {
	struct held_blob b[24];
	size_t n;
};

/* struct store_blob_source's scan over a struct held_blobs. */
static int held_scan(void *ctx, store_blob_fn fn, void *arg)
{
	const struct held_blobs *h = ctx;
	size_t i;
	int rc = 0;

	for (i = 0; !rc && i < h->n; i++)
		rc = fn(arg, h->b[i].region, h->b[i].rank, h->b[i].data.data, h->b[i].data.len);
	return rc;
}

/* A finished run of 4 ranks x 6 regions (region r: 10 + r calls a rank)
 * in a new store file, its blobs also held in *h, its regions' ids in
 * reg[]; *run is the run, path the store's path. */
static struct store *held_run(char *path, const char *file, const char *label, int64_t *run,
			      struct held_blobs *h, int64_t reg[6])
{
	int64_t d[40];
	struct store *st = open_run(path, file, label, run);
	int region, rank, i;

	for (rank = 0; rank < 4; rank++) {
		for (region = 0; region < 6; region++) {
			struct held_blob *b = &h->b[h->n++];

			reg[region] = numbered_region_id(st, "r", region);
			for (i = 0; i < 10 + region; i++)
				d[i] = 1000 * region + 37 * rank + i * (rank + 1);
			add_durations(st, *run, reg[region], rank, d, (size_t)(10 + region));
			b->region = reg[region];
			b->rank = rank;
			buf_init(&b->data);
			assert_int_equal(blob_encode(&b->data, d, (size_t)(10 + region)), 0);
		}
	}
	assert_int_equal(store_finish_run(st, *run), 0);
	assert_int_equal(store_commit(st), 0);
	return st;
}

/*
 * store_finish_run_from(): the blobs from the caller's memory, not read
 * back, give the values store_finish_run() gives, in one batch whatever
 * the spool's size; a held blob that does not match the run's rows is
 * refused as the same blob read back would be.
 */
static void test_finish_from_source(void **state)
{
	char path[512], want[2048], got[2048];
	struct held_blobs h = {.n = 0};
	struct store_blob_source src = {held_scan, NULL, &h};
	const int64_t d[3] = {5000, 5037, 5074};
	int64_t run, reg[6];
	struct store *st;
	size_t k;

	(void)state;
	st = held_run(path, "source.sqlite", "s1", &run, &h, reg);
	quantiles_text(want, sizeof(want), path);
	assert_non_null(strstr(want, "6:"));

	/* from the held blobs, with a spool that would hold none of them */
	finish_set_spool_bytes(8);
	assert_int_equal(store_begin(st), 0);
	assert_int_equal(store_finish_run_from(st, run, &src), 0);
	assert_int_equal(store_commit(st), 0);
	finish_set_spool_bytes(0);
	assert_string_equal(quantiles_text(got, sizeof(got), path), want);

	/* a held blob of fewer values than its row's calls: refused */
	h.b[5].data.len = 0;
	assert_int_equal(blob_encode(&h.b[5].data, d, 3), 0);
	assert_int_equal(store_begin(st), 0);
	assert_int_equal(store_finish_run_from(st, run, &src), ERR_STORE);
	assert_non_null(strstr(err_msg(), "stored durations in region"));
	store_rollback(st);
	assert_string_equal(quantiles_text(got, sizeof(got), path), want);

	for (k = 0; k < h.n; k++)
		buf_release(&h.b[k].data);
	store_close(st);
}

/* Percentiles a blob source gives store_finish_run_from() as computed
 * already (struct store_blob_source's quantiles()), as ingest does. */
struct held_q {
	int64_t region;
	double q[3];
	uint64_t nvals, nruns;
};

struct held_source {
	struct held_blobs *blobs;
	struct held_q q[8];
	size_t n;
	int fail; /* quantiles() fails after giving them */
};

static int held_source_scan(void *ctx, store_blob_fn fn, void *arg)
{
	return held_scan(((struct held_source *)ctx)->blobs, fn, arg);
}

static int held_source_quantiles(void *ctx, store_quantile_fn fn, void *arg)
{
	const struct held_source *hs = ctx;
	size_t i;
	int rc = 0;

	for (i = 0; !rc && i < hs->n; i++)
		rc = fn(arg, hs->q[i].region, hs->q[i].q, hs->q[i].nvals, hs->q[i].nruns);
	if (!rc && hs->fail)
		rc = err_set(ERR_STORE, "the held source failed");
	return rc;
}

/* Give held_run()'s region number region (store id reg) percentiles no
 * blob of it holds (region + first, + 0.25, + 0.5), with its right
 * numbers of values and runs. */
static void held_give(struct held_source *hs, int64_t reg, int region, double first)
{
	struct held_q *q = &hs->q[hs->n++];
	int k;

	q->region = reg;
	for (k = 0; k < 3; k++)
		q->q[k] = region + first + 0.25 * k;
	q->nvals = 4 * (uint64_t)(10 + region);
	q->nruns = 4;
}

/* Whether region reg of the run at path stored the percentiles q. */
static int stored_q_is(const char *path, int64_t reg, const double q[3])
{
	char sql[256], got[64];

	snprintf(sql, sizeof(sql),
		 "SELECT p50_ns = %.17g AND p95_ns = %.17g AND p99_ns = %.17g FROM run_regions "
		 "WHERE region_id = %lld",
		 q[0], q[1], q[2], (long long)reg);
	return strcmp(tu_db_text(got, sizeof(got), path, sql), "1") == 0;
}

/* The stored text of region reg in quantiles_text() form (" ID:..."). */
static int same_region_text(const char *got, const char *want, int64_t reg)
{
	char one[64];
	const char *g, *w;

	snprintf(one, sizeof(one), " %lld:", (long long)reg);
	g = strstr(got, one);
	w = strstr(want, one);
	return g && w && strcspn(g + 1, " ") == strcspn(w + 1, " ") &&
	       memcmp(g, w, strcspn(w + 1, " ") + 1) == 0;
}

/*
 * store_finish_run_from() with percentiles the source computed: a region
 * whose numbers of values and runs match its rows takes them as given
 * (markers no blob holds); one whose numbers do not, or given twice, is
 * computed from the blobs, as is one not given, on two threads too; a
 * region not in the run is passed over, and an error of the source's
 * is the finish's.
 */
static void test_finish_from_quantiles(void **state)
{
	char path[512], want[2048], got[2048];
	struct held_blobs h = {.n = 0};
	struct held_source hs = {.blobs = &h, .n = 0};
	struct store_blob_source src = {held_source_scan, held_source_quantiles, &hs};
	int64_t run, reg[6];
	struct store *st;
	int region;
	size_t k;

	(void)state;
	st = held_run(path, "quant.sqlite", "q1", &run, &h, reg);
	quantiles_text(want, sizeof(want), path);

	/* none given: computed, as store_finish_run() does */
	assert_int_equal(store_begin(st), 0);
	assert_int_equal(store_finish_run_from(st, run, &src), 0);
	assert_int_equal(store_commit(st), 0);
	assert_string_equal(quantiles_text(got, sizeof(got), path), want);

	/* every region given, its numbers right: the markers are stored */
	for (region = 0; region < 6; region++)
		held_give(&hs, reg[region], region, 0.25);
	assert_int_equal(store_begin(st), 0);
	assert_int_equal(store_finish_run_from(st, run, &src), 0);
	assert_int_equal(store_commit(st), 0);
	for (region = 0; region < 6; region++)
		assert_true(stored_q_is(path, reg[region], hs.q[region].q));

	/* one value too few, more runs than rows, and one region given
	 * twice: those three computed, the others taken */
	hs.q[1].nvals--;
	hs.q[2].nruns = 5;
	hs.q[hs.n++] = hs.q[3];
	assert_int_equal(store_begin(st), 0);
	assert_int_equal(store_finish_run_from(st, run, &src), 0);
	assert_int_equal(store_commit(st), 0);
	for (region = 0; region < 6; region++) {
		int computed = region >= 1 && region <= 3;

		assert_int_equal(stored_q_is(path, reg[region], hs.q[region].q), !computed);
	}
	/* those three are the blobs' */
	quantiles_text(got, sizeof(got), path);
	for (region = 1; region <= 3; region++)
		assert_true(same_region_text(got, want, reg[region]));

	/* regions 0, 2 and 4 given, and one no run has; the others computed
	 * on two threads, a half each */
	hs.n = 0;
	for (region = 0; region < 6; region += 2)
		held_give(&hs, reg[region], region, 0.125);
	hs.q[hs.n] = hs.q[0];
	hs.q[hs.n++].region = reg[5] + 1000;
	finish_set_thread_min(1);
	assert_int_equal(store_begin(st), 0);
	assert_int_equal(store_finish_run_from(st, run, &src), 0);
	assert_int_equal(store_commit(st), 0);
	finish_set_thread_min(0);
	quantiles_text(got, sizeof(got), path);
	for (region = 0; region < 6; region++) {
		if (region % 2 == 0)
			assert_true(stored_q_is(path, reg[region], hs.q[region / 2].q));
		else
			assert_true(same_region_text(got, want, reg[region]));
	}

	/* the source's error, and nothing written */
	hs.fail = 1;
	assert_int_equal(store_begin(st), 0);
	assert_int_equal(store_finish_run_from(st, run, &src), ERR_STORE);
	assert_string_equal(err_msg(), "the held source failed");
	store_rollback(st);
	assert_string_equal(quantiles_text(want, sizeof(want), path), got);

	for (k = 0; k < h.n; k++)
		buf_release(&h.b[k].data);
	store_close(st);
}

static void test_list_order(void **state)
{
	struct store *st = open_ok(tu_path("list.sqlite"), 0);
	struct store_run *runs = (struct store_run *)1;
	size_t n = 99;
	int64_t r1, r2, r3, r4;

	(void)state;
	assert_int_equal(store_list_runs(st, &runs, &n), 0);
	assert_int_equal(n, 0);
	assert_null(runs);
	store_runs_free(NULL, 0);

	r1 = add_run(st, "s1", "2024-01-02T00:00:00Z", "2024-07-01T00:00:00Z");
	r2 = add_run(st, "s2", NULL, "2024-01-03T00:00:00Z");
	r3 = add_run(st, "s3", "2024-01-01T00:00:00Z", "2024-06-01T00:00:00Z");
	r4 = add_run(st, "s4", "2024-01-02T00:00:00Z", "2024-01-02T00:00:00Z");
	assert_int_equal(store_add_tag(st, NULL, r1, "zeta"), 0);
	assert_int_equal(store_add_tag(st, NULL, r1, "alpha"), 0);
	assert_int_equal(store_add_tag(st, NULL, r1, "mid"), 0);
	assert_int_equal(store_add_tag(st, NULL, r3, "x"), 0);

	assert_int_equal(store_list_runs(st, &runs, &n), 0);
	assert_int_equal(n, 4);
	/* newest first; ties (r1, r4) by id, higher first */
	assert_int_equal(runs[0].id, r2);
	assert_int_equal(runs[1].id, r4);
	assert_int_equal(runs[2].id, r1);
	assert_int_equal(runs[3].id, r3);
	assert_string_equal(runs[0].sha256, "s2");
	assert_null(runs[0].recorded_at);
	assert_int_equal(runs[0].ntags, 0);
	assert_int_equal(runs[1].ntags, 0);
	assert_int_equal(runs[2].ntags, 3);
	assert_string_equal(runs[2].tags[0], "alpha");
	assert_string_equal(runs[2].tags[1], "mid");
	assert_string_equal(runs[2].tags[2], "zeta");
	assert_int_equal(runs[3].ntags, 1);
	assert_string_equal(runs[3].tags[0], "x");
	assert_string_equal(runs[3].layout, "columnar");
	assert_int_equal(runs[3].schema, 3);
	assert_int_equal(runs[3].num_ranks, 4);
	store_runs_free(runs, n);
	store_close(st);
}

/* Many runs with many tags exercise the array growth in the tag merge. */
static void test_list_many(void **state)
{
	struct store *st = open_ok(tu_path("many.sqlite"), 0);
	struct store_run *runs;
	char sha[32], tag[32];
	size_t n, i;
	int k;

	(void)state;
	assert_int_equal(store_begin(st), 0);
	for (i = 0; i < 100; i++) {
		int64_t id;

		snprintf(sha, sizeof(sha), "sha%03zu", i);
		snprintf(tag, sizeof(tag), "2024-01-01T00:%02zu:%02zuZ", i / 60, i % 60);
		id = add_run(st, sha, NULL, tag);
		for (k = 0; k < (int)(i % 7); k++) {
			snprintf(tag, sizeof(tag), "t%d", 6 - k);
			assert_int_equal(store_add_tag(st, NULL, id, tag), 0);
		}
	}
	assert_int_equal(store_commit(st), 0);
	assert_int_equal(store_list_runs(st, &runs, &n), 0);
	assert_int_equal(n, 100);
	for (i = 0; i < n; i++) {
		size_t orig = 99 - i;

		assert_int_equal(runs[i].id, (int64_t)orig + 1);
		assert_int_equal(runs[i].ntags, orig % 7);
		for (k = 0; k < (int)runs[i].ntags; k++) {
			snprintf(tag, sizeof(tag), "t%d", 7 - (int)runs[i].ntags + k);
			assert_string_equal(runs[i].tags[k], tag);
		}
	}
	store_runs_free(runs, n);
	store_close(st);
}

/* ---- transactions ---- */

static void test_rollback(void **state)
{
	char path[512], sql[128], buf[64];
	struct store *st;
	struct store_run *runs;
	struct store_timing t;
	size_t n;
	int64_t run, ra, rb, ra2, found;
	struct store_meta m;

	(void)state;
	st = open_run(path, "rollback.sqlite", "r1", &run);
	assert_int_equal(store_add_tag(st, NULL, run, "t"), 0);
	assert_int_equal(store_set_meta(st, run, "k", "v"), 0);
	ra = region_id(st, "ra");
	fill_timing(&t, run, ra, 0);
	t.durations = "\x01\x00";
	t.durations_len = 2;
	assert_int_equal(store_add_timing(st, &t), 0);
	store_rollback(st);
	store_rollback(st); /* no transaction: harmless */

	assert_int_equal(store_list_runs(st, &runs, &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(store_find_sha(st, &found, "r1"), 0);
	assert_int_equal(found, 0);
	assert_int_equal(store_get_meta(st, &m, run), 0);
	assert_int_equal(m.n, 0);
	store_meta_release(&m);
	assert_int_equal(tu_db_int(path,
				   "SELECT (SELECT count(*) FROM regions) + (SELECT count(*) "
				   "FROM timings) + (SELECT count(*) FROM timings_durations) + "
				   "(SELECT count(*) FROM run_tags) + (SELECT count(*) FROM "
				   "run_metadata)"),
			 0);

	/* The rolled-back id of "ra" is reused by the next new name; the
	 * cache must not hand out the stale id for "ra". */
	run = begin_run(st, "r2");
	rb = region_id(st, "rb");
	ra2 = region_id(st, "ra");
	assert_true(ra2 != rb);
	fill_timing(&t, run, ra2, 0);
	assert_int_equal(store_add_timing(st, &t), 0);
	assert_int_equal(store_commit(st), 0);
	snprintf(sql, sizeof(sql), "SELECT name FROM regions WHERE id = %lld", (long long)ra2);
	assert_string_equal(tu_db_text(buf, sizeof(buf), path, sql), "ra");
	snprintf(sql, sizeof(sql), "SELECT name FROM regions WHERE id = %lld", (long long)rb);
	assert_string_equal(tu_db_text(buf, sizeof(buf), path, sql), "rb");
	assert_string_equal(tu_db_text(buf, sizeof(buf), path,
				       "SELECT r.name FROM timings t JOIN regions r ON r.id = "
				       "t.region_id"),
			    "ra");

	/* closing with an open transaction rolls it back */
	begin_run(st, "r3");
	store_close(st);
	assert_int_equal(tu_db_int(path, "SELECT count(*) FROM runs"), 1);
}

static void test_cascade_and_pins(void **state)
{
	char path[512], sql[256];
	struct store *st;
	struct store_timing t;
	int64_t run, keep, pinned, reg;
	int rank;

	(void)state;
	st = open_run(path, "cascade.sqlite", "c1", &run);
	keep = add_run(st, "c2", NULL, "2024-01-02T00:00:00Z");
	pinned = add_run(st, "c3", NULL, "2024-01-03T00:00:00Z");
	reg = region_id(st, "solve");
	for (rank = 0; rank < 4; rank++) {
		fill_timing(&t, run, reg, rank);
		t.durations = "\x01\x00";
		t.durations_len = 2;
		assert_int_equal(store_add_timing(st, &t), 0);
		t.run_id = keep;
		assert_int_equal(store_add_timing(st, &t), 0);
	}
	assert_int_equal(store_add_tag(st, NULL, run, "a"), 0);
	assert_int_equal(store_add_tag(st, NULL, keep, "a"), 0);
	assert_int_equal(store_set_meta(st, run, "k", "v"), 0);
	assert_int_equal(store_commit(st), 0);
	store_close(st);

	snprintf(sql, sizeof(sql), "DELETE FROM runs WHERE id = %lld", (long long)run);
	assert_int_equal(tu_db_exec(path, sql), SQLITE_OK);
	assert_int_equal(tu_db_int(path, "SELECT count(*) FROM runs"), 2);
	assert_int_equal(tu_db_int(path, "SELECT count(*) FROM timings"), 4);
	assert_int_equal(tu_db_int(path, "SELECT count(*) FROM timings_durations"), 4);
	assert_int_equal(tu_db_int(path, "SELECT count(*) FROM run_tags"), 1);
	assert_int_equal(tu_db_int(path, "SELECT count(*) FROM run_metadata"), 0);
	assert_int_equal(tu_db_int(path, "SELECT count(*) FROM regions"), 1);
	assert_int_equal(tu_db_int(path, "PRAGMA foreign_key_check"), TU_DB_NONE);

	/* a pinned run cannot be deleted */
	snprintf(sql, sizeof(sql),
		 "INSERT INTO pins (name, run_id, pinned_at) VALUES ('base', %lld, "
		 "'2024-01-04T00:00:00Z')",
		 (long long)pinned);
	assert_int_equal(tu_db_exec(path, sql), SQLITE_OK);
	snprintf(sql, sizeof(sql), "DELETE FROM runs WHERE id = %lld", (long long)pinned);
	assert_int_equal(tu_db_exec(path, sql), SQLITE_CONSTRAINT);
	assert_int_equal(tu_db_int(path, "SELECT count(*) FROM runs"), 2);

	/* ids of removed runs are not reused */
	st = open_ok(path, 0);
	assert_int_equal(add_run(st, "c4", NULL, "2024-01-05T00:00:00Z"), pinned + 1);
	snprintf(sql, sizeof(sql), "DELETE FROM runs WHERE id = %lld", (long long)pinned + 1);
	assert_int_equal(tu_db_exec(path, sql), SQLITE_OK);
	assert_int_equal(add_run(st, "c5", NULL, "2024-01-05T00:00:00Z"), pinned + 2);

	/* store_pin_add makes a pin only when there is none */
	{
		int64_t prev = -1;

		assert_int_equal(store_pin_add(st, &prev, "first", keep), 0);
		assert_int_equal(prev, 0);
		assert_int_equal(store_pin_add(st, &prev, "first", pinned), 0);
		assert_int_equal(prev, keep);
		assert_int_equal(store_pin_add(st, &prev, "base", keep), 0);
		assert_int_equal(prev, pinned);
		assert_int_equal(tu_db_int(path, "SELECT run_id FROM pins WHERE name = 'first'"),
				 keep);
		assert_int_equal(store_pin_add(st, &prev, "gone", 999), ERR_NOTFOUND);
	}
	store_close(st);
}

/* store_used_bytes(): grows with a run's data, shrinks by whole pages
 * inside the transaction that removes it, back after a rollback. */
static void test_used_bytes(void **state)
{
	char path[512];
	struct store *st;
	struct store_timing t;
	static unsigned char blob[60000];
	int64_t empty = 0, full = 0, removed = 0, back = 0, run, reg;
	char *unpinned = NULL;
	int rank;

	(void)state;
	st = open_tmp(path, "used.sqlite");
	assert_int_equal(store_used_bytes(st, &empty), 0);
	assert_true(empty > 0);
	run = begin_run(st, "u1");
	reg = region_id(st, "solve");
	memset(blob, 0x55, sizeof(blob));
	for (rank = 0; rank < 4; rank++) {
		fill_timing(&t, run, reg, rank);
		t.durations = blob;
		t.durations_len = sizeof(blob);
		assert_int_equal(store_add_timing(st, &t), 0);
	}
	assert_int_equal(store_commit(st), 0);
	assert_int_equal(store_used_bytes(st, &full), 0);
	assert_true(full >= empty + 4 * (int64_t)sizeof(blob));
	assert_int_equal(tu_db_int(path, "PRAGMA page_count") * tu_db_int(path, "PRAGMA page_size"),
			 full);

	assert_int_equal(store_begin(st), 0);
	assert_int_equal(store_remove_run(st, &unpinned, run, 0), 0);
	assert_null(unpinned);
	assert_int_equal(store_used_bytes(st, &removed), 0);
	/* the blobs' overflow pages are free again */
	assert_true(full - removed >= 4 * (int64_t)sizeof(blob) - 4 * 16384);
	store_rollback(st);
	assert_int_equal(store_used_bytes(st, &back), 0);
	assert_int_equal(back, full);
	store_close(st);
}

static void test_busy(void **state)
{
	char path[512];
	struct store *a, *b;

	(void)state;
	a = open_tmp(path, "busy.sqlite");
	b = open_ok(path, 0);
	store_set_busy_timeout(b, 50);
	begin_run(a, "b1");
	assert_int_equal(store_begin(b), ERR_BUSY);
	expect_msg("cannot update store '", path,
		   "': locked by another process (gave up after 50 ms)");
	/* readers are not blocked by the writer (WAL) and see the last commit */
	assert_int_equal(count_runs(b), 0);
	assert_int_equal(store_commit(a), 0);
	begin_run(b, "b2");
	assert_int_equal(store_commit(b), 0);
	assert_int_equal(count_runs(a), 2);
	store_close(a);
	store_close(b);
}

/* Several processes creating and writing the same new store at once: one
 * creates it, the others wait and find it up to date. */
static void test_concurrent_create(void **state)
{
	char path[512];
	pid_t pids[4];
	int i, status;

	(void)state;
	snprintf(path, sizeof(path), "%s", tu_path("race.sqlite"));
	for (i = 0; i < 4; i++) {
		pids[i] = fork();
		assert_true(pids[i] >= 0);
		if (pids[i] == 0) {
			struct store *st = NULL;
			struct store_run r;
			char sha[16];
			int64_t id;
			int ok;

			memset(&r, 0, sizeof(r));
			snprintf(sha, sizeof(sha), "race%d", i);
			r.sha256 = sha;
			r.source_path = (char *)"x.h5";
			r.schema = 1;
			r.layout = (char *)"hierarchical";
			ok = store_open(&st, path, 0) == 0 && store_begin(st) == 0 &&
			     store_insert_run(st, &id, &r) == 0 && store_commit(st) == 0;
			if (!ok)
				fprintf(stderr, "child %d: %s\n", i, err_msg());
			store_close(st);
			_exit(ok ? 0 : 1); /* not exit(): keep the parent's tmpdir */
		}
	}
	for (i = 0; i < 4; i++) {
		assert_int_equal(waitpid(pids[i], &status, 0), pids[i]);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
	}
	assert_int_equal(tu_db_int(path, "SELECT count(*) FROM runs"), 4);
	assert_int_equal(tu_db_int(path, "PRAGMA user_version"), store_schema_version());
	assert_int_equal(tu_db_int(path, "PRAGMA application_id"), SQLITE_APPLICATION_ID);
}

/* store_open() refuses paths that keep nothing or cannot be a store file,
 * before opening anything (a FIFO would block); scratch stores come from
 * store_open_temporary(). */
static void test_refused_paths(void **state)
{
	static const char *const memory[] = {
	    ":memory:", "file::memory:", "file::memory:?cache=shared", "file:x?mode=memory"};
	struct store *st = (struct store *)1;
	const char *fifo = tu_path("store.fifo");
	size_t i;

	(void)state;
	assert_int_equal(store_open(&st, "", 0), ERR_USAGE);
	assert_null(st);
	assert_string_equal(err_msg(), "--db '': empty store path (is a variable unset?)");
	for (i = 0; i < sizeof(memory) / sizeof(memory[0]); i++) {
		char want[128];

		assert_int_equal(store_open(&st, memory[i], STORE_READONLY), ERR_USAGE);
		snprintf(want, sizeof(want),
			 "--db '%s': an in-memory store keeps nothing; give a file path",
			 memory[i]);
		assert_string_equal(err_msg(), want);
	}
	assert_int_equal(mkfifo(fifo, 0600), 0);
	expect_open_fails(fifo, 0, ERR_IO, ": not a regular file");
	expect_open_fails("/dev/null", STORE_READONLY, ERR_IO, ": not a regular file");
	assert_false(tu_file_exists("file::memory:"));
	assert_int_equal(store_open_temporary(&st), 0);
	check_in_memory(st, "m1");
}

static void test_readonly_writes_fail(void **state)
{
	char path[512];
	struct store *st;
	struct store_run r;
	int64_t id = 5, reg = 5;

	(void)state;
	snprintf(path, sizeof(path), "%s", tu_path("ro.sqlite"));
	store_close(open_ok(path, 0));
	st = open_ok(path, STORE_READONLY);
	r = (struct store_run){.sha256 = (char *)"x",
			       .source_path = (char *)"x.h5",
			       .schema = 1,
			       .layout = (char *)"columnar"};
	assert_int_equal(store_insert_run(st, &id, &r), ERR_IO);
	assert_int_equal(id, 0);
	expect_msg("cannot update store '", path, "': attempt to write a readonly database");
	assert_int_equal(store_region_id(st, &reg, "solve"), ERR_IO);
	assert_int_equal(reg, 0);
	store_close(st);
	store_close(NULL);
}

/* A larger ingest-shaped transaction; checks the cached statements and the
 * region cache under load (kept small enough for the sanitizer build). */
static void test_bulk_insert(void **state)
{
	char path[512];
	struct store *st;
	struct store_timing t;
	struct buf blob = BUF_INIT;
	int64_t durs[64], run, reg;
	int region, rank, i;

	(void)state;
	for (i = 0; i < 64; i++)
		durs[i] = 1000 + i * 3;
	assert_int_equal(blob_encode(&blob, durs, 64), 0);
	st = open_run(path, "bulk.sqlite", "bulk", &run);
	for (rank = 0; rank < 64; rank++) {
		for (region = 0; region < 300; region++) {
			reg = numbered_region_id(st, "region_", region);
			assert_int_equal(reg, region + 1);
			fill_timing(&t, run, reg, rank);
			t.calls = 64;
			t.durations = blob.data;
			t.durations_len = blob.len;
			assert_int_equal(store_add_timing(st, &t), 0);
		}
	}
	assert_int_equal(store_finish_run(st, run), 0);
	assert_int_equal(store_commit(st), 0);
	store_close(st);
	buf_release(&blob);
	assert_int_equal(tu_db_int(path, "SELECT count(*) FROM timings"), 64 * 300);
	assert_int_equal(tu_db_int(path, "SELECT count(*) FROM timings_durations"), 64 * 300);
	assert_int_equal(tu_db_int(path, "SELECT count(*) FROM regions"), 300);
	assert_int_equal(tu_db_int(path, "SELECT num_calls FROM runs"), 64 * 300 * 64);
	assert_int_equal(tu_db_int(path, "SELECT count(*) FROM run_regions WHERE p50_ns = 1094.5"),
			 300);

	/* 1.2M durations: the percentiles are computed on two threads; a
	 * blob of the last region (the second thread's half) with a valid
	 * header but a trailing byte is still reported by this thread */
	assert_int_equal(tu_db_exec(path,
				    "UPDATE timings_durations SET data = x'010301010101' WHERE "
				    "timing_id = (SELECT max(id) FROM timings)"),
			 SQLITE_OK);
	st = open_ok(path, 0);
	assert_int_equal(store_begin(st), 0);
	assert_int_equal(store_finish_run(st, run), ERR_STORE);
	expect_msg("store '", path,
		   "' is damaged: the call durations of run 1 do not match its timings");
	store_rollback(st);
	store_close(st);
	assert_int_equal(tu_db_int(path, "SELECT count(*) FROM run_regions WHERE p50_ns = 1094.5"),
			 300);
}

/* store_open_temporary(): a private store in memory, no file anywhere. */
static void test_temporary_store(void **state)
{
	struct store *st = NULL;

	(void)state;
	assert_int_equal(store_open_temporary(&st), 0);
	assert_string_equal(store_location(st), ":memory:");
	check_in_memory(st, "t1");
}

/* STORE_EXISTING: the "no store" check of pin, rm, tag, unpin and vacuum. */
static void test_open_existing(void **state)
{
	char path[512];
	struct store *st = (struct store *)1;

	(void)state;
	snprintf(path, sizeof(path), "%s", tu_path("existing.sqlite"));
	expect_open_fails(path, STORE_EXISTING, ERR_IO, ": no such file or directory");
	assert_false(tu_file_exists(path));
	store_close(open_ok(path, 0));
	st = open_ok(path, STORE_EXISTING);
	assert_string_equal(store_location(st), path);
	store_close(st);
}

/* The registry hands every path to SQLite and PostgreSQL URIs and libpq
 * key=value strings to PostgreSQL when it is built (else to SQLite, whose
 * open then fails on them as on any bad path); the tables are complete. */
static void test_backend_registry(void **state)
{
	static const char *const pg[] = {"postgresql://host/db", "postgres://u@h:5432/d",
					 "host=/tmp/s dbname=x", "dbname=x",
					 " user = me host=h",	 "service=team"};
	static const char *const files[] = {
	    "history.sqlite", "/tmp/x/y.db", ":memory:",	 "host.sqlite", "a=b",
	    "./host=x",	      "hostess=1",   "postgresql.sqlite"};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		assert_ptr_equal(store_backend_for(files[i]), &sqlite_store_backend);
	for (i = 0; i < sizeof(pg) / sizeof(pg[0]); i++) {
#ifdef SCOPEDB_HAVE_POSTGRES
		assert_string_equal(store_backend_for(pg[i])->name, "postgresql");
		assert_int_equal(store_backend_check(store_backend_for(pg[i])), 0);
#else
		assert_ptr_equal(store_backend_for(pg[i]), &sqlite_store_backend);
#endif
	}
	assert_int_equal(store_backend_check(&sqlite_store_backend), 0);
	assert_int_equal(sqlite_store_backend.version, STORE_BACKEND_VERSION);
}

/* A table with a missing function or of an unknown version is refused,
 * by the check and by store_open_with(), before anything is opened. */
static void test_backend_check(void **state)
{
	char path[512];
	struct store_backend be = sqlite_store_backend;
	struct store *st = (struct store *)1;

	(void)state;
	snprintf(path, sizeof(path), "%s", tu_path("check.sqlite"));
	be.scan_blobs = NULL;
	assert_int_equal(store_backend_check(&be), ERR_STORE);
	assert_string_equal(err_msg(),
			    "store backend 'sqlite' is incomplete: it has no scan_blobs");
	assert_int_equal(store_open_with(&st, &be, path, 0), ERR_STORE);
	assert_null(st);
	assert_false(tu_file_exists(path));

	be = sqlite_store_backend;
	be.compact = NULL;
	assert_int_equal(store_backend_check(&be), ERR_STORE);
	assert_string_equal(err_msg(), "store backend 'sqlite' is incomplete: it has no compact");

	be = sqlite_store_backend;
	be.accepts = NULL;
	assert_int_equal(store_backend_check(&be), ERR_STORE);
	assert_string_equal(err_msg(), "store backend 'sqlite' is incomplete: it has no accepts");

	be = sqlite_store_backend;
	be.version = STORE_BACKEND_VERSION + 1;
	assert_int_equal(store_backend_check(&be), ERR_STORE);
	assert_string_equal(err_msg(),
			    "store backend 'sqlite' has interface version 2; this scopedb "
			    "understands 1");
	assert_int_equal(store_open_with(&st, &be, path, 0), ERR_STORE);
	assert_null(st);
	assert_false(tu_file_exists(path));

	assert_int_equal(store_backend_check(NULL), ERR_STORE);

	be = sqlite_store_backend;
	assert_int_equal(store_open_with(&st, &be, path, 0), 0);
	assert_non_null(st);
	store_close(st);
	assert_true(tu_file_exists(path));
}

/* store_rank_totals() callback: "region rank total" lines appended to a buf. */
static int rank_total_line(void *ctx, const char *region, int64_t rank, int64_t total)
{
	return buf_printf(ctx, "%s %lld %lld\n", region, (long long)rank, (long long)total);
}

/* Sort the lines of b (so the two paths compare whatever their order). */
static void sort_lines(struct buf *b)
{
	char *lines[16], *p, *save = NULL;
	struct buf out = BUF_INIT;
	size_t n = 0, i, j;

	for (p = strtok_r(b->data, "\n", &save); p && n < 16; p = strtok_r(NULL, "\n", &save))
		lines[n++] = p;
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && strcmp(lines[j - 1], lines[j]) > 0; j--) {
			char *t = lines[j];

			lines[j] = lines[j - 1];
			lines[j - 1] = t;
		}
	for (i = 0; i < n; i++)
		assert_int_equal(buf_printf(&out, "%s\n", lines[i]), 0);
	buf_release(b);
	*b = out;
}

/* Every (region, rank) total of a run: from the backend's one query, and
 * from the front end's fallback (one region_stats per rank) for a backend
 * without it; both alike. */
static void test_rank_totals(void **state)
{
	char path[512];
	struct store_backend be = sqlite_store_backend;
	struct store *st;
	struct store_timing t;
	struct buf fast = BUF_INIT, slow = BUF_INIT;
	int64_t run, a, b;

	(void)state;
	st = open_run(path, "ranks.sqlite", "r1", &run);
	a = region_id(st, "solve");
	b = region_id(st, "io");
	fill_timing(&t, run, a, 0);
	assert_int_equal(store_add_timing(st, &t), 0);
	fill_timing(&t, run, a, 2);
	t.total = 50;
	assert_int_equal(store_add_timing(st, &t), 0);
	fill_timing(&t, run, b, 3);
	t.total = 7;
	t.min = 1; /* 3 calls of 1..20 ns can total 7 */
	assert_int_equal(store_add_timing(st, &t), 0);
	assert_int_equal(store_commit(st), 0);
	assert_int_equal(store_rank_totals(st, run, rank_total_line, &fast), 0);
	store_close(st);
	sort_lines(&fast);
	assert_string_equal(fast.data, "io 3 7\nsolve 0 38\nsolve 2 50\n");

	be.rank_totals = NULL;
	assert_int_equal(store_backend_check(&be), 0);
	assert_int_equal(store_open_with(&st, &be, path, STORE_READONLY), 0);
	assert_int_equal(store_rank_totals(st, run, rank_total_line, &slow), 0);
	sort_lines(&slow);
	assert_string_equal(slow.data, fast.data);
	assert_int_equal(store_rank_totals(st, run + 1, rank_total_line, &slow), ERR_NOTFOUND);
	store_close(st);
	buf_release(&fast);
	buf_release(&slow);
}

TU_MAIN(NULL, NULL,
	{
	    cmocka_unit_test(test_create_and_reopen),
	    cmocka_unit_test(test_empty_file_becomes_store),
	    cmocka_unit_test(test_readonly_missing),
	    cmocka_unit_test(test_refuses_foreign_sqlite),
	    cmocka_unit_test(test_refuses_non_sqlite),
	    cmocka_unit_test(test_refuses_newer_version),
	    cmocka_unit_test(test_unusable_paths),
	    cmocka_unit_test(test_is_file),
	    cmocka_unit_test(test_file_missing),
	    cmocka_unit_test(test_transfer_check),
	    cmocka_unit_test(test_transfer_batches),
	    cmocka_unit_test(test_rows_hint),
	    cmocka_unit_test(test_rows_decode),
	    cmocka_unit_test(test_rows_series_group),
	    cmocka_unit_test(test_rows_point_find),
	    cmocka_unit_test(test_runs_tags_meta),
	    cmocka_unit_test(test_regions_and_timings),
	    cmocka_unit_test(test_rank_totals),
	    cmocka_unit_test(test_finish_run),
	    cmocka_unit_test(test_finish_batches),
	    cmocka_unit_test(test_finish_from_source),
	    cmocka_unit_test(test_finish_from_quantiles),
	    cmocka_unit_test(test_list_order),
	    cmocka_unit_test(test_list_many),
	    cmocka_unit_test(test_rollback),
	    cmocka_unit_test(test_cascade_and_pins),
	    cmocka_unit_test(test_used_bytes),
	    cmocka_unit_test(test_busy),
	    cmocka_unit_test(test_concurrent_create),
	    cmocka_unit_test(test_refused_paths),
	    cmocka_unit_test(test_readonly_writes_fail),
	    cmocka_unit_test(test_bulk_insert),
	    cmocka_unit_test(test_temporary_store),
	    cmocka_unit_test(test_open_existing),
	    cmocka_unit_test(test_backend_registry),
	    cmocka_unit_test(test_backend_check),
	})
