/*
 * test_paths.c - the call tree in the store (issue 22, docs/format.md
 * section 10): what ingest stores of the real scope-profiler files (paths,
 * their (path, rank) numbers, the self time of each row), aggregate files
 * (self times, no paths) and overlapping calls (the one warning, no paths
 * for that rank), the schema 2 -> 3 migration (older runs keep their
 * numbers and have no paths), push/pull carrying the paths, a damaged
 * path row refused, and each path's p50/p95/p99 over all ranks stored at
 * ingest and push/pull equal to the decoded ones (schema 3 -> 4: older
 * runs decode them).  Over the SQLite backend; tests/e2e_postgres.sh runs
 * the same through the binary on PostgreSQL.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "h5write.h"
#include "scopedb/err.h"
#include "scopedb/ingest.h"
#include "scopedb/store.h"
#include "scopedb/transfer.h"
#include "scopedb/util.h"
#include "store/finish.h"
#include "testutil.h"
#include "util/percentile.h"
#include "testutil_db.h"

static struct ingest_opts no_opts;

/* The paths of a run, read back through store_scan_paths(). */
#define MAXP 32
struct tree {
	size_t n;
	int64_t parent[MAXP], depth[MAXP];
	char name[MAXP][200]; /* "main > solve" */
	uint64_t calls[MAXP], nested[MAXP];
	int64_t total[MAXP], self[MAXP];
	int stored_durations[MAXP];
	size_t rows;
};

static int tree_path(void *ctx, const struct store_path *p, const char *region)
{
	struct tree *t = ctx;

	assert_true(t->n < MAXP);
	assert_int_equal(p->path_id, (int64_t)t->n);
	t->parent[t->n] = p->parent_id;
	t->depth[t->n] = p->depth;
	if (p->parent_id >= 0) {
		char parent[sizeof(t->name[0])];
		int k;

		memcpy(parent, t->name[p->parent_id], sizeof(parent));
		k = snprintf(t->name[t->n], sizeof(t->name[0]), "%s > %s", parent, region);
		assert_true(k > 0 && (size_t)k < sizeof(t->name[0]));
	} else {
		snprintf(t->name[t->n], sizeof(t->name[0]), "%s", region);
	}
	t->n++;
	return 0;
}

static int tree_rank(void *ctx, const struct store_path_rank *r)
{
	struct tree *t = ctx;

	t->calls[r->path_id] += r->calls;
	t->nested[r->path_id] += r->nested;
	t->total[r->path_id] += r->total;
	t->self[r->path_id] += r->self;
	t->stored_durations[r->path_id] |= r->durations != NULL;
	t->rows++;
	return 0;
}

static void read_tree(struct tree *t, struct store *st, int64_t run)
{
	memset(t, 0, sizeof(*t));
	assert_int_equal(store_scan_paths(st, run, tree_path, tree_rank, t), 0);
}

/* The index of path name in t (fails when absent). */
static size_t path_of(const struct tree *t, const char *name)
{
	size_t i;

	for (i = 0; i < t->n; i++)
		if (!strcmp(t->name[i], name))
			return i;
	fail_msg("no path '%s'", name);
	return 0;
}

/* The index of path name in t, which must have these calls, total and self
 * time. */
static size_t expect_path(const struct tree *t, const char *name, uint64_t calls, int64_t total,
			  int64_t self)
{
	size_t i = path_of(t, name);

	assert_int_equal(t->calls[i], calls);
	assert_int_equal(t->total[i], total);
	assert_int_equal(t->self[i], self);
	return i;
}

static int64_t ingest(struct store *st, const char *path, char **warning)
{
	struct ingest_result r;
	int64_t id;

	assert_int_equal(ingest_file(&r, st, path, &no_opts), 0);
	id = r.run_id;
	if (warning)
		*warning = r.warning[0] ? util_strdup(r.warning) : NULL;
	ingest_result_release(&r);
	return id;
}

/* fib-recursive.h5 and nested-base.h5: the numbers of docs/format.md
 * section 10.5, and the self time of each timings row. */
static void test_real_numbers(void **state)
{
	const char *db = tu_path("real.sqlite");
	struct store_nesting n;
	struct store *st = NULL;
	struct tree t;
	char *warning;
	int64_t fib, nested;
	size_t i;
	int found;

	(void)state;
	assert_int_equal(store_open(&st, db, 0), 0);
	fib = ingest(st, tu_fixture("real/fib-recursive.h5"), &warning);
	assert_null(warning);
	nested = ingest(st, tu_fixture("real/nested-base.h5"), NULL);

	assert_int_equal(store_get_nesting(st, fib, &n, &found), 0);
	assert_true(found);
	assert_int_equal(n.ranks, 1);
	assert_int_equal(n.trees, 1);
	assert_int_equal(n.paths, 2);
	assert_int_equal(n.path_rows, 2);
	read_tree(&t, st, fib);
	assert_int_equal(t.n, 2);
	i = expect_path(&t, "main > fibonacci", 1, 12013246, 12013246);
	assert_int_equal(t.nested[i], 40);
	assert_int_equal(t.depth[i], 2);
	/* one outermost call of 41: its durations are stored with the path */
	assert_true(t.stored_durations[i]);
	i = path_of(&t, "main");
	assert_int_equal(t.total[i], 12030479);
	assert_int_equal(t.self[i], 17233);
	assert_false(t.stored_durations[i]); /* the row's */
	/* the self time of each row, and of each region over the ranks */
	assert_int_equal(
	    tu_db_int(db, "select t.exclusive_ns from timings t join regions r on "
			  "r.id = t.region_id where r.name = 'fibonacci' and t.run_id = 1"),
	    12013246);
	assert_int_equal(tu_db_int(db, "select g.self_ns from run_regions g join regions r on "
				       "r.id = g.region_id where r.name = 'main' and g.run_id = 1"),
			 17233);

	read_tree(&t, st, nested);
	assert_int_equal(t.n, 5);
	expect_path(&t, "main > solve", 30, 72717215, 2894414);
	path_of(&t, "main > solve > assemble");
	path_of(&t, "main > io");
	store_close(st);
}

/* An aggregate file: no paths, a nesting row that says so, and its
 * exclusive totals as self times (unknown here: not guessed); overlapping calls: the warning, no
 * paths for the rank, the flat numbers kept. */
static void test_no_tree(void **state)
{
	static const int64_t a_s[] = {10, 100}, a_e[] = {50, 200};
	static const int64_t b_s[] = {40, 120}, b_e[] = {60, 150};
	struct h5write_row rows[2] = {
	    {.rank = 0, .region = "a", .calls = 2, .starts = a_s, .ends = a_e, .source_line = -1},
	    {.rank = 0, .region = "b", .calls = 2, .starts = b_s, .ends = b_e, .source_line = -1}};
	struct h5write_profile prof = {rows, 2, NULL, 0};
	struct h5write_opts o = {.schema = 3};
	const char *db = tu_path("notree.sqlite"), *file = tu_path("overlap.h5");
	struct store_nesting n;
	struct store *st = NULL;
	struct tree t;
	char *warning = NULL;
	int64_t id;
	int found;

	(void)state;
	assert_int_equal(h5write_file(file, &prof, &o), 0);
	assert_int_equal(store_open(&st, db, 0), 0);
	id = ingest(st, file, &warning);
	assert_non_null(warning);
	assert_non_null(strstr(warning, "overlap.h5': rank 0: a call of 'b' [40, 60] ns starts "
					"inside a call of 'a' [10, 50] ns and ends after it"));
	assert_non_null(strstr(warning, "flat numbers are not affected"));
	free(warning);
	assert_int_equal(store_get_nesting(st, id, &n, &found), 0);
	assert_true(found);
	assert_int_equal(n.ranks, 1);
	assert_int_equal(n.trees, 0);
	assert_int_equal(n.paths, 0);
	read_tree(&t, st, id);
	assert_int_equal(t.n, 0);
	assert_int_equal(tu_db_int(db, "select sum(total_ns) from timings"), 40 + 100 + 20 + 30);
	assert_int_equal(tu_db_int(db, "select count(*) from timings where exclusive_ns is null"),
			 2);

	id = ingest(st, tu_fixture("schema-2.h5"), NULL);
	(void)id;
	store_close(st);
	/* the aggregate layout: generated with exclusives */
	{
		static const int64_t s[] = {0, 10}, e[] = {5, 25};
		struct h5write_row r = {.rank = 0,
					.region = "x",
					.calls = 2,
					.starts = s,
					.ends = e,
					.source_line = -1};
		struct h5write_profile p = {&r, 1, NULL, 0};
		struct h5write_opts ao = {.schema = 3, .aggregate = 1};
		const char *agg = tu_path("agg.h5");

		assert_int_equal(h5write_file(agg, &p, &ao), 0);
		assert_int_equal(store_open(&st, db, 0), 0);
		id = ingest(st, agg, &warning);
		assert_null(warning);
		assert_int_equal(store_get_nesting(st, id, &n, &found), 0);
		assert_true(found);
		assert_int_equal(n.ranks, 0);
		assert_int_equal(n.paths, 0);
		store_close(st);
		/* h5write's aggregate exclusives are -1: unknown, not guessed */
		assert_int_equal(tu_db_int(db, "select count(*) from timings t join regions g on "
					       "g.id = t.region_id where g.name = 'x' and "
					       "t.exclusive_ns is null and t.total_ns = 20"),
				 1);
		assert_int_equal(tu_db_int(db, "select count(*) from run_regions g join regions r "
					       "on r.id = g.region_id where r.name = 'x' and "
					       "g.self_ns is null"),
				 1);
	}
}

/* A schema 2 store: runs keep their numbers, get run_regions.self_ns from
 * the stored exclusive totals, and have no paths (no run_nesting row). */
static void test_migration(void **state)
{
	const char *db = tu_path("v2.sqlite");
	struct store_nesting n;
	struct store *st = NULL;
	char before[4096], buf[4096];
	int64_t id;
	int found;

	(void)state;
	assert_int_equal(store_open(&st, db, 0), 0);
	id = ingest(st, tu_fixture("real/nested-base.h5"), NULL);
	store_close(st);
	snprintf(before, sizeof(before), "%s",
		 tu_db_text(buf, sizeof(buf), db,
			    "select group_concat(printf('%d %d %d %!.17g', region_id, calls, "
			    "total_ns, p95_ns), ';') from run_regions"));
	/* what a scopedb before issue 22 stored: the file's exclusives (none
	 * in schema 1), no paths */
	assert_int_equal(tu_db_exec(db, "DROP TABLE run_nesting; DROP TABLE paths; "
					"DROP TABLE path_ranks; "
					"ALTER TABLE run_regions DROP COLUMN self_ns; "
					"UPDATE timings SET exclusive_ns = NULL; "
					"UPDATE timings SET exclusive_ns = 7 WHERE region_id = 2; "
					"PRAGMA user_version = 2"),
			 SQLITE_OK);
	assert_int_equal(store_open(&st, db, STORE_READONLY | STORE_NO_UPGRADE), ERR_STORE);
	assert_non_null(strstr(err_msg(), "schema version 2 must be upgraded to 4"));
	assert_int_equal(store_open(&st, db, 0), 0);
	assert_int_equal(tu_db_int(db, "PRAGMA user_version"), 4);
	assert_int_equal(store_get_nesting(st, id, &n, &found), 0);
	assert_false(found);
	store_close(st);
	assert_string_equal(
	    tu_db_text(buf, sizeof(buf), db,
		       "select group_concat(printf('%d %d %d %!.17g', region_id, calls, "
		       "total_ns, p95_ns), ';') from run_regions"),
	    before);
	assert_int_equal(
	    tu_db_int(db, "select count(*) from run_regions where self_ns is not null"), 1);
	assert_int_equal(tu_db_int(db, "select self_ns from run_regions where region_id = 2"), 7);
	/* a file ingested after the upgrade has paths */
	assert_int_equal(store_open(&st, db, 0), 0);
	id = ingest(st, tu_fixture("real/fib-recursive.h5"), NULL);
	assert_int_equal(store_get_nesting(st, id, &n, &found), 0);
	assert_true(found);
	assert_int_equal(n.paths, 2);
	store_close(st);
}

/* push/pull: the paths, their rows and the nesting mark go with the run;
 * a run without them stays without. */
static void test_transfer(void **state)
{
	const char *src_db = tu_path("src.sqlite"), *dst_db = tu_path("dst.sqlite");
	struct transfer_result res;
	struct store *src = NULL, *dst = NULL;
	struct tree a, b;
	struct store_nesting n;
	int64_t id;
	size_t i;
	int found;
	char x[8192], y[8192];

	(void)state;
	assert_int_equal(store_open(&src, src_db, 0), 0);
	ingest(src, tu_fixture("real/fib-recursive.h5"), NULL);
	id = ingest(src, tu_fixture("real/mpi2-base.h5"), NULL);
	assert_int_equal(store_open(&dst, dst_db, 0), 0);
	/* a region the source does not have first: other region ids */
	assert_int_equal(store_begin(dst), 0);
	assert_int_equal(store_region_id(dst, &(int64_t){0}, "unrelated"), 0);
	assert_int_equal(store_commit(dst), 0);
	assert_int_equal(transfer_check(src, NULL, 0, NULL), 0);
	assert_int_equal(transfer_runs(&res, dst, src, NULL, 0, 0), 0);
	assert_int_equal(res.nruns, 2);
	for (i = 0; i < res.nruns; i++) {
		if (res.runs[i].src_id != id)
			continue;
		read_tree(&a, src, id);
		read_tree(&b, dst, res.runs[i].dst_id);
		assert_int_equal(a.n, 9);
		assert_memory_equal(&a, &b, sizeof(a));
		assert_int_equal(store_get_nesting(dst, res.runs[i].dst_id, &n, &found), 0);
		assert_true(found);
		assert_int_equal(n.paths, 9);
		assert_int_equal(n.path_rows, 18);
	}
	transfer_result_release(&res);
	store_close(src);
	store_close(dst);
	/* every (path, rank) row and self time, byte for byte */
	snprintf(
	    x, sizeof(x), "%s",
	    tu_db_text(y, sizeof(y), src_db,
		       "select group_concat(printf('%d %d %d %d %d %s', path_id, rank, calls, "
		       "total_ns, self_ns, hex(durations)), ';') from path_ranks where run_id = "
		       "2"));
	assert_string_equal(
	    tu_db_text(y, sizeof(y), dst_db,
		       "select group_concat(printf('%d %d %d %d %d %s', path_id, rank, calls, "
		       "total_ns, self_ns, hex(durations)), ';') from path_ranks where run_id = 2"),
	    x);
	assert_int_equal(tu_db_int(src_db, "select sum(exclusive_ns) from timings"),
			 tu_db_int(dst_db, "select sum(exclusive_ns) from timings"));
}

/* Close *st, damage the store db with sql, reopen it: scanning run id's
 * paths is refused with a message holding msg. */
static void damaged_scan(struct store **st, const char *db, const char *sql, int64_t id,
			 const char *msg)
{
	store_close(*st);
	assert_int_equal(tu_db_exec(db, sql), SQLITE_OK);
	assert_int_equal(store_open(st, db, 0), 0);
	assert_int_equal(store_scan_paths(*st, id, NULL, NULL, NULL), ERR_STORE);
	assert_non_null(strstr(err_msg(), msg));
}

/* A damaged (path, rank) row or path is refused by name, also by push's
 * check of its source. */
static void test_damaged(void **state)
{
	const char *db = tu_path("damaged.sqlite");
	struct store *st = NULL;
	int64_t id;

	(void)state;
	assert_int_equal(store_open(&st, db, 0), 0);
	id = ingest(st, tu_fixture("real/nested-base.h5"), NULL);
	damaged_scan(&st, db, "UPDATE path_ranks SET self_ns = total_ns + 1 WHERE path_id = 1", id,
		     "is damaged: path 1 rank 0 of run 1 has impossible");
	assert_int_equal(transfer_check(st, NULL, 0, NULL), ERR_STORE);
	damaged_scan(&st, db,
		     "UPDATE path_ranks SET self_ns = 0; "
		     "UPDATE paths SET parent_id = NULL WHERE path_id = 2",
		     id, "path 2 of run 1 has a wrong parent");
	store_close(st);
}

/* The stored p50/p95/p99 of every path of run id against the ones
 * decoded from its durations (store_path_duration_runs()), exactly; the
 * paths over some ranks have none stored.  Returns the paths seen. */
static size_t check_path_quantiles(struct store *st, int64_t id, int stored)
{
	static const double levels[3] = {50.0, 95.0, 99.0};
	struct store_region_stats *g = NULL;
	struct i64vec d, ends;
	size_t n = 0, i;
	int64_t rank0 = 0;
	int k;

	i64vec_init(&d);
	i64vec_init(&ends);
	assert_int_equal(store_path_stats(st, &g, &n, id, NULL, 0, NULL, NULL), 0);
	for (i = 0; i < n; i++) {
		assert_int_equal(g[i].has_quantiles, stored);
		d.len = ends.len = 0;
		assert_int_equal(store_path_duration_runs(st, &d, &ends, id, g[i].path_id, NULL, 0),
				 0);
		assert_int_equal(d.len, g[i].calls);
		for (k = 0; stored && k < 3; k++) {
			double want = percentile_runs(d.v, ends.v, ends.len, levels[k]);

			assert_memory_equal(&g[i].quantiles[k], &want, sizeof(want));
		}
	}
	store_region_stats_free(g, n);
	assert_int_equal(store_path_stats(st, &g, &i, id, &rank0, 1, NULL, NULL), 0);
	for (k = 0; (size_t)k < i; k++)
		assert_int_equal(g[k].has_quantiles, 0);
	store_region_stats_free(g, i);
	i64vec_release(&d);
	i64vec_release(&ends);
	return n;
}

/* Each path's percentiles over all ranks are stored at ingest (from the
 * run's blobs in the finish spool, or path by path when the run does not
 * fit it) and by push/pull, equal to the decoded ones; paths with their
 * own durations (recursion), those sharing their region's, and those
 * having all of their region's calls, whose percentiles are the region's
 * (finish.c takes them without decoding the blobs again). */
static void test_path_quantiles(void **state)
{
	static const char *const files[] = {"real/fib-recursive.h5", "real/mpi2-base.h5",
					    "real/nested-base.h5"};
	const char *db = tu_path("q.sqlite"), *small = tu_path("q-small.sqlite");
	struct transfer_result res;
	struct store *st = NULL, *other = NULL;
	char x[8192], y[8192];
	size_t i, paths = 0;

	(void)state;
	assert_int_equal(store_open(&st, db, 0), 0);
	for (i = 0; i < 3; i++)
		paths += check_path_quantiles(st, ingest(st, tu_fixture(files[i]), NULL), 1);
	assert_int_equal(paths, 2 + 9 + 5);
	assert_int_equal(tu_db_int(db, "select count(*) from paths where p95_ns is null"), 0);
	/* recursion: fib's paths have durations of their own */
	assert_true(tu_db_int(db, "select count(durations) from path_ranks") > 0);
	/* a spool too small for any region: every path fetched on its own */
	finish_set_spool_bytes(8);
	assert_int_equal(store_open(&other, small, 0), 0);
	for (i = 0; i < 3; i++)
		check_path_quantiles(other, ingest(other, tu_fixture(files[i]), NULL), 1);
	finish_set_spool_bytes(0);
	store_close(other);
	snprintf(x, sizeof(x), "%s",
		 tu_db_text(y, sizeof(y), db,
			    "select group_concat(printf('%d %d %!.17g %!.17g %!.17g', run_id, "
			    "path_id, p50_ns, p95_ns, p99_ns), ';') from paths"));
	assert_string_equal(
	    tu_db_text(y, sizeof(y), small,
		       "select group_concat(printf('%d %d %!.17g %!.17g %!.17g', run_id, "
		       "path_id, p50_ns, p95_ns, p99_ns), ';') from paths"),
	    x);
	/* pushed: computed again on arrival, the same */
	assert_int_equal(store_open(&other, tu_path("q-dst.sqlite"), 0), 0);
	assert_int_equal(transfer_runs(&res, other, st, NULL, 0, 0), 0);
	assert_int_equal(res.nruns, 3);
	for (i = 0; i < res.nruns; i++)
		check_path_quantiles(other, res.runs[i].dst_id, 1);
	transfer_result_release(&res);
	store_close(other);
	store_close(st);
	assert_string_equal(
	    tu_db_text(y, sizeof(y), tu_path("q-dst.sqlite"),
		       "select group_concat(printf('%d %d %!.17g %!.17g %!.17g', run_id, "
		       "path_id, p50_ns, p95_ns, p99_ns), ';') from paths"),
	    x);
}

/* A schema 3 store (paths without percentiles): upgraded, its runs keep
 * their paths and answer --by path percentiles from their durations;
 * a run ingested after has them stored, the same values. */
static void test_quantile_migration(void **state)
{
	const char *db = tu_path("v3.sqlite");
	struct store *st = NULL;
	int64_t old, fresh;

	(void)state;
	assert_int_equal(store_open(&st, db, 0), 0);
	old = ingest(st, tu_fixture("real/mpi2-base.h5"), NULL);
	store_close(st);
	assert_int_equal(tu_db_exec(db, "ALTER TABLE paths DROP COLUMN p50_ns; "
					"ALTER TABLE paths DROP COLUMN p95_ns; "
					"ALTER TABLE paths DROP COLUMN p99_ns; "
					"PRAGMA user_version = 3"),
			 SQLITE_OK);
	assert_int_equal(store_open(&st, db, STORE_READONLY | STORE_NO_UPGRADE), ERR_STORE);
	assert_int_equal(store_open(&st, db, 0), 0);
	assert_int_equal(tu_db_int(db, "PRAGMA user_version"), store_schema_version());
	assert_int_equal(check_path_quantiles(st, old, 0), 9);
	fresh = ingest(st, tu_fixture("real/mpi2-slow.h5"), NULL);
	assert_int_equal(check_path_quantiles(st, fresh, 1), 9);
	store_close(st);
	assert_int_equal(tu_db_int(db, "select count(*) from paths where p50_ns is null"), 9);
}

/* Stored path percentiles outside the path's calls are refused by name. */
static void test_quantiles_damaged(void **state)
{
	const char *db = tu_path("qdamaged.sqlite");
	struct store_region_stats *g = NULL;
	struct store *st = NULL;
	size_t n = 0;
	int64_t id;

	(void)state;
	assert_int_equal(store_open(&st, db, 0), 0);
	id = ingest(st, tu_fixture("real/nested-base.h5"), NULL);
	store_close(st);
	assert_int_equal(tu_db_exec(db, "UPDATE paths SET p95_ns = max_ns + 5 WHERE path_id = 1"),
			 SQLITE_OK);
	assert_int_equal(store_open(&st, db, 0), 0);
	assert_int_equal(store_path_stats(st, &g, &n, id, NULL, 0, NULL, NULL), ERR_STORE);
	assert_non_null(strstr(err_msg(), "has percentiles outside"));
	assert_null(g);
	store_close(st);
}

TU_MAIN(NULL, NULL,
	{cmocka_unit_test(test_real_numbers), cmocka_unit_test(test_no_tree),
	 cmocka_unit_test(test_migration), cmocka_unit_test(test_transfer),
	 cmocka_unit_test(test_damaged), cmocka_unit_test(test_path_quantiles),
	 cmocka_unit_test(test_quantile_migration), cmocka_unit_test(test_quantiles_damaged)})
