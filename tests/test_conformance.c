/*
 * test_conformance.c - the store conformance battery (issue 24): every case
 * runs against every backend of the build, through the public calls only
 * (scopedb/store.h, ingest.h, transfer.h, select.h, filter.h), so that no
 * backend can drift from the interface.
 *
 * Each case builds a fresh store of the backend under test and, the same
 * way, one of SQLite (the reference), and asserts
 *   - what the interface promises, as literal values and messages (the
 *     store's location shown as LOC), and the numbers of every region
 *     against what the profile's own durations give (calls, sums, extremes,
 *     ranks, exact numpy percentiles), independently of any backend;
 *   - that every read (runs, tags, metadata, pins, timings rows with their
 *     blobs, pooled statistics, durations, histories, series) prints the
 *     same canonical text on both stores.
 * Backends: SQLite always; PostgreSQL when SCOPEDB_TEST_PG holds a libpq
 * connection string of a server where tests/e2e_conformance.sh has made
 * the schemas conf1..confN (N in SCOPEDB_TEST_PG_STORES): each fresh store
 * is one of them (options=-csearch_path=confK).  Without it the PostgreSQL
 * group says it is skipped.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "testutil_h5.h"

#include "profgen.h"
#include "scopedb/err.h"
#include "scopedb/filter.h"
#include "scopedb/ingest.h"
#include "scopedb/select.h"
#include "scopedb/store.h"
#include "scopedb/transfer.h"
#include "scopedb/util.h"

/* ---- backends ---------------------------------------------------------------- */

struct backend {
	const char *name;
	/* NULL when the backend can run here, else why not */
	const char *(*unavailable)(void);
	/* a location for a new, empty store (static buffer) */
	const char *(*fresh)(void);
};

static const char *sqlite_unavailable(void)
{
	return NULL;
}

static const char *sqlite_fresh(void)
{
	static char buf[512];
	static int k;

	snprintf(buf, sizeof(buf), "%s", tu_path(""));
	snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "conf-%d.sqlite", ++k);
	return buf;
}

static const char *pg_unavailable(void)
{
#ifdef SCOPEDB_HAVE_POSTGRES
	if (!getenv("SCOPEDB_TEST_PG"))
		return "no server (tests/e2e_conformance.sh runs the battery against one)";
	return NULL;
#else
	return "not built";
#endif
}

static const char *pg_fresh(void)
{
	static char buf[1024];
	static int k;
	const char *base = getenv("SCOPEDB_TEST_PG");
	const char *max = getenv("SCOPEDB_TEST_PG_STORES");

	if (++k > (max ? atoi(max) : 0)) {
		print_error("SCOPEDB_TEST_PG_STORES: no schema left for store %d\n", k);
		fail();
	}
	snprintf(buf, sizeof(buf), "%s options=-csearch_path=conf%d", base, k);
	return buf;
}

/* The backends of the battery, SQLite (the reference) first: a new
 * backend is one more entry. */
static const struct backend sqlite_backend = {"sqlite", sqlite_unavailable, sqlite_fresh};
static const struct backend pg_backend = {"postgresql", pg_unavailable, pg_fresh};
static const struct backend *const backends[] = {&sqlite_backend, &pg_backend};

/* A new store of backend b, open for writing. */
static struct store *fresh(const struct backend *b)
{
	struct store *st = NULL;
	const char *loc = b->fresh();

	if (store_open(&st, loc, 0)) {
		print_error("cannot open %s store: %s\n", b->name, err_msg());
		fail();
	}
	return st;
}

/* What a test comparing a store with the SQLite reference holds at its
 * end: both stores and their canonical texts, released. */
static void release_pair(struct store *st, struct store *ref, struct buf *x, struct buf *y)
{
	buf_release(x);
	buf_release(y);
	store_close(st);
	store_close(ref);
}

/* err_msg() with the store's location as LOC. */
static const char *msg_of(const struct store *st)
{
	static char out[2048];
	const char *m = err_msg(), *loc = store_location(st), *p;
	size_t n = 0, len = strlen(loc);

	while ((p = strstr(m, loc)) != NULL && len) {
		n += (size_t)snprintf(out + n, sizeof(out) - n, "%.*sLOC", (int)(p - m), m);
		m = p + len;
	}
	snprintf(out + n, sizeof(out) - n, "%s", m);
	return out;
}

static void expect_err(const struct store *st, int got, int code, const char *msg)
{
	assert_int_equal(got, code);
	assert_string_equal(msg_of(st), msg);
}

/* ---- the canonical text of every read ------------------------------------------- */

/* Append printf-style text to a buf, which must succeed (a macro: a failure
 * names the caller's line; buf_printf() checks the format). */
#define put(b, ...) assert_int_equal(buf_printf((b), __VA_ARGS__), 0)

static const char *s_(const char *s)
{
	return s ? s : "(null)";
}

/* The runs, newest first, with tags and metadata (ingested_at: the time
 * each store got them, so only whether it is there). */
static void dump_runs(struct buf *b, struct store *st)
{
	struct store_run *runs = NULL;
	struct store_meta m;
	int64_t *ids = NULL;
	size_t n = 0, nids = 0, i, k;

	assert_int_equal(store_list_runs(st, &runs, &n), 0);
	assert_int_equal(store_list_run_ids(st, &ids, &nids), 0);
	assert_int_equal(nids, n);
	for (i = 0; i < n; i++) {
		const struct store_run *r = &runs[i];

		assert_int_equal(ids[i], r->id);
		put(b,
		    "run %lld sha=%s path=%s ingested=%d recorded=%s label=%s commit=%s branch=%s "
		    "schema=%d layout=%s ranks=%lld regions=%lld calls=%lld tags=",
		    (long long)r->id, s_(r->sha256), s_(r->source_path), r->ingested_at != NULL,
		    s_(r->recorded_at), s_(r->label), s_(r->commit), s_(r->branch), r->schema,
		    s_(r->layout), (long long)r->num_ranks, (long long)r->num_regions,
		    (long long)r->num_calls);
		for (k = 0; k < r->ntags; k++)
			put(b, "%s[%s]", k ? "," : "", r->tags[k]);
		assert_int_equal(store_get_meta(st, &m, r->id), 0);
		for (k = 0; k < m.n; k++)
			put(b, " meta[%s]=[%s]", m.keys[k], m.values[k]);
		store_meta_release(&m);
		put(b, "\n");
	}
	store_runs_free(runs, n);
	free(ids);
}

static void dump_pins(struct buf *b, struct store *st)
{
	struct store_pin *pins = NULL;
	size_t n = 0, i;

	assert_int_equal(store_list_pins(st, &pins, &n), 0);
	for (i = 0; i < n; i++)
		put(b, "pin %s -> %lld at=%d\n", pins[i].name, (long long)pins[i].run_id,
		    pins[i].pinned_at != NULL);
	store_pins_free(pins, n);
}

static void put_stats(struct buf *b, const struct store_region_stats *s)
{
	put(b,
	    "  %s: events=%d calls=%llu total=%lld min=%lld max=%lld gpu=%llu/%lld ranks=%llu "
	    "busy=%llu/%lld",
	    s->name, s->has_events, (unsigned long long)s->calls, (long long)s->total,
	    (long long)s->min, (long long)s->max, (unsigned long long)s->gpu_count,
	    (long long)s->gpu_total, (unsigned long long)s->nranks,
	    (unsigned long long)s->busy_ranks, (long long)s->busy_max);
	if (s->has_quantiles)
		put(b, " q=%.17g,%.17g,%.17g", s->quantiles[0], s->quantiles[1], s->quantiles[2]);
	if (s->has_self)
		put(b, " self=%lld", (long long)s->self);
	put(b, "\n");
}

/* A run's regions pooled over ranks (NULL: all), with their durations. */
static void dump_stats(struct buf *b, struct store *st, int64_t run, const int64_t *ranks,
		       size_t nranks)
{
	struct store_region_stats *regs = NULL;
	struct i64vec d;
	size_t n = 0, i, k;

	i64vec_init(&d);
	assert_int_equal(store_region_stats(st, &regs, &n, run, ranks, nranks, NULL, NULL), 0);
	put(b, "stats of run %lld over %zu ranks\n", (long long)run, ranks ? nranks : 0);
	for (i = 0; i < n; i++) {
		put_stats(b, &regs[i]);
		d.len = 0;
		assert_int_equal(
		    store_region_durations(st, &d, run, regs[i].region_id, ranks, nranks), 0);
		put(b, "   durations");
		for (k = 0; k < d.len; k++)
			put(b, " %lld", (long long)d.v[k]);
		put(b, "\n");
	}
	store_region_stats_free(regs, n);
	i64vec_release(&d);
}

static int scan_row(void *ctx, const struct store_timing *t, const char *region)
{
	struct buf *b = ctx;
	const unsigned char *p = t->durations;
	size_t i;

	put(b,
	    "row %s rank=%lld events=%d calls=%llu total=%lld min=%lld max=%lld first=%lld "
	    "last=%lld start=%lld end=%lld mean=%.17g m2=%.17g excl=%lld gpu=%llu/%lld file=%s "
	    "line=%lld text=%s tags=%s blob=",
	    region, (long long)t->rank, t->has_events, (unsigned long long)t->calls,
	    (long long)t->total, (long long)t->min, (long long)t->max, (long long)t->first,
	    (long long)t->last, (long long)t->start_min, (long long)t->end_max, t->mean, t->m2,
	    (long long)t->exclusive, (unsigned long long)t->gpu_count, (long long)t->gpu_total,
	    s_(t->source_file), (long long)t->source_line, s_(t->source_text), s_(t->tags_json));
	if (!p)
		put(b, "none");
	for (i = 0; p && i < t->durations_len; i++)
		put(b, "%02x", p[i]);
	put(b, "\n");
	return 0;
}

/* Every timings row of a run, as store_scan_timings() hands them over. */
static void dump_rows(struct buf *b, struct store *st, int64_t run)
{
	assert_int_equal(store_scan_timings(st, run, scan_row, b), 0);
}

static int rank_total(void *ctx, const char *region, int64_t rank, int64_t total)
{
	put(ctx, "%s/%lld=%lld\n", region, (long long)rank, (long long)total);
	return 0;
}

static int cmp_line(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The (region, rank) totals, sorted (they come in no order). */
static void dump_rank_totals(struct buf *b, struct store *st, int64_t run)
{
	struct buf t = BUF_INIT;
	char **lines = NULL, *p, *save = NULL;
	size_t n = 0, i;

	assert_int_equal(store_rank_totals(st, run, rank_total, &t), 0);
	for (p = t.data ? strtok_r(t.data, "\n", &save) : NULL; p;
	     p = strtok_r(NULL, "\n", &save)) {
		lines = realloc(lines, (n + 1) * sizeof(*lines));
		assert_non_null(lines);
		lines[n++] = p;
	}
	if (n > 1)
		qsort(lines, n, sizeof(*lines), cmp_line);
	put(b, "rank totals of run %lld\n", (long long)run);
	for (i = 0; i < n; i++)
		put(b, "  %s\n", lines[i]);
	free(lines);
	buf_release(&t);
}

static void put_point(struct buf *b, const struct store_history_point *p)
{
	size_t k;

	put(b, " run %lld time=%d commit=%s label=%s", (long long)p->run_id, p->time != NULL,
	    s_(p->commit), s_(p->label));
	put_stats(b, &p->stats);
	put(b, "   durations");
	for (k = 0; k < p->durations.len; k++)
		put(b, " %lld", (long long)p->durations.v[k]);
	put(b, "\n");
}

/* A region's history (ranks NULL: all), as store_region_history(). */
static void dump_history(struct buf *b, struct store *st, const char *region, const int64_t *ranks,
			 size_t nranks)
{
	const struct store_history_query q = {
	    .region = region, .ranks = ranks, .nranks = nranks, .durations = 1};
	struct store_history_point *pts = NULL;
	size_t n = 0, i;

	assert_int_equal(store_region_history(st, &pts, &n, &q), 0);
	put(b, "history of %s over %zu ranks\n", region, ranks ? nranks : 0);
	for (i = 0; i < n; i++)
		put_point(b, &pts[i]);
	store_history_free(pts, n);
}

static void dump_series(struct buf *b, struct store *st)
{
	struct store_series s;
	size_t i;

	assert_int_equal(store_region_series(st, &s, NULL, NULL, NULL), 0);
	put(b, "series: %zu runs, %zu regions (%zu selected)\n", s.nruns, s.nregions, s.nselected);
	for (i = 0; i < s.nruns; i++)
		put(b, " run %lld commit=%s label=%s\n", (long long)s.runs[i].id,
		    s_(s.runs[i].commit), s_(s.runs[i].label));
	for (i = 0; i < s.ncells; i++) {
		put(b, " cell %s in run %lld:", s.names[s.cells[i].region],
		    (long long)s.runs[s.cells[i].run].id);
		put_stats(b, &s.cells[i].stats);
	}
	store_series_release(&s);
}

/* Both stores print the same text for a read: what = its name. */
static void same_text(const struct buf *a, const struct buf *b, const char *what)
{
	if (strcmp(a->data ? a->data : "", b->data ? b->data : "")) {
		print_error("%s differs from SQLite's:\n--- this backend\n%s--- SQLite\n%s", what,
			    a->data ? a->data : "", b->data ? b->data : "");
		fail();
	}
}

/* ---- profiles ------------------------------------------------------------------------ */

/* A row of a profile, for the reference numbers. */
struct ref_row {
	uint32_t rank;
	const char *name;
	size_t calls;
	const int64_t *starts, *ends, *gpu;
};

struct profile {
	const char *path;
	struct ref_row *rows;
	size_t nrows;
	int events; /* 0: the aggregate layout */
	struct profgen *g;
};

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* The standard profile as schema (aggregate), written once. */
static void profile_standard(struct profile *p, const char *name, int schema, int agg)
{
	const struct h5write_profile *std = tu_h5_standard();
	struct h5write_opts o = tu_h5_opts(schema, agg);
	size_t i;

	o.gpu = !agg;
	p->path = util_strdup(tu_h5_write_standard(name, &o));
	p->rows = calloc(std->nrows, sizeof(*p->rows));
	assert_non_null(p->rows);
	p->events = !agg;
	for (i = 0; i < std->nrows; i++) {
		const struct h5write_row *r = &std->rows[i];

		if (schema == 1 && r->calls == 0)
			continue; /* schema 1 has no row of no calls */
		p->rows[p->nrows++] =
		    (struct ref_row){r->rank, r->region, r->calls, r->starts, r->ends, r->gpu};
	}
}

/* The random profile of seed (profgen.h), written once. */
static void profile_random(struct profile *p, uint64_t seed, unsigned variant)
{
	char name[64];
	size_t i;

	assert_int_equal(profgen_new(&p->g, seed, variant), 0);
	snprintf(name, sizeof(name), "random-%llu-%u.h5", (unsigned long long)seed, variant);
	p->path = util_strdup(tu_path(name));
	assert_int_equal(profgen_write_h5(p->g, p->path), 0);
	p->rows = calloc(p->g->nrows + 1, sizeof(*p->rows));
	assert_non_null(p->rows);
	p->events = !p->g->aggregate;
	for (i = 0; i < p->g->nrows; i++) {
		const struct profgen_row *r = &p->g->rows[i];

		p->rows[p->nrows++] = (struct ref_row){
		    r->rank, p->g->names[r->region], r->ncalls, r->starts, r->ends, r->gpu};
	}
}

static int in_ranks(const int64_t *ranks, size_t n, int64_t r)
{
	size_t i;

	for (i = 0; ranks && i < n; i++)
		if (ranks[i] == r)
			return 1;
	return !ranks;
}

static double percentile(const int64_t *d, size_t n, double q)
{
	double pos = q / 100.0 * (double)(n - 1), lo = floor(pos);
	size_t i = (size_t)lo;

	return i + 1 >= n ? (double)d[n - 1]
			  : (double)d[i] + (double)(d[i + 1] - d[i]) * (pos - lo);
}

/* The stored numbers of run against the profile's own durations: every
 * region of the run listed once, pooled over ranks (NULL: all). */
static void check_numbers(struct store *st, int64_t run, const struct profile *p,
			  const int64_t *ranks, size_t nranks)
{
	struct store_region_stats *regs = NULL;
	struct i64vec got;
	int64_t *d = NULL;
	size_t n = 0, i, r, k, total_calls = 0, present;

	i64vec_init(&got);
	for (r = 0; r < p->nrows; r++)
		total_calls += p->rows[r].calls;
	d = malloc((total_calls + 1) * sizeof(*d));
	assert_non_null(d);
	assert_int_equal(store_region_stats(st, &regs, &n, run, ranks, nranks, NULL, NULL), 0);
	for (i = 0; i < n; i++) {
		const struct store_region_stats *s = &regs[i];
		uint64_t calls = 0, gpu_count = 0, nr = 0, busy = 0;
		int64_t total = 0, gpu_total = 0, busy_max = 0;
		size_t nd = 0;

		if (i > 0)
			assert_true(strcmp(regs[i - 1].name, s->name) < 0);
		present = 0;
		for (r = 0; r < p->nrows; r++) {
			const struct ref_row *row = &p->rows[r];
			int64_t rt = 0;

			if (strcmp(row->name, s->name))
				continue;
			present = 1;
			if (!in_ranks(ranks, nranks, row->rank))
				continue;
			nr++;
			calls += row->calls;
			for (k = 0; k < row->calls; k++) {
				d[nd++] = row->ends[k] - row->starts[k];
				rt += row->ends[k] - row->starts[k];
				if (p->events && row->gpu && row->gpu[k] >= 0) {
					gpu_count++;
					gpu_total += row->gpu[k];
				}
			}
			total += rt;
			busy += rt > 0;
			if (rt > busy_max)
				busy_max = rt;
		}
		assert_true(present);
		qsort(d, nd, sizeof(*d), cmp_i64);
		assert_int_equal(s->has_events, p->events);
		assert_int_equal(s->calls, calls);
		assert_int_equal(s->total, total);
		assert_int_equal(s->min, nd ? d[0] : 0);
		assert_int_equal(s->max, nd ? d[nd - 1] : 0);
		assert_int_equal(s->gpu_count, gpu_count);
		assert_int_equal(s->gpu_total, gpu_total);
		assert_int_equal(s->nranks, nr);
		assert_int_equal(s->busy_ranks, busy);
		assert_int_equal(s->busy_max, busy_max);
		if (!ranks && p->events && nd) {
			static const double q[3] = {50, 95, 99};

			assert_true(s->has_quantiles);
			for (k = 0; k < 3; k++) {
				double want = percentile(d, nd, q[k]);

				if (fabs(s->quantiles[k] - want) > 1e-9 * fabs(want)) {
					print_error("%s p%g: %.17g, want %.17g\n", s->name, q[k],
						    s->quantiles[k], want);
					fail();
				}
			}
		} else {
			assert_false(s->has_quantiles);
		}
		got.len = 0;
		if (p->events) {
			assert_int_equal(
			    store_region_durations(st, &got, run, s->region_id, ranks, nranks), 0);
			assert_int_equal(got.len, nd);
			if (nd)
				assert_memory_equal(got.v, d, nd * sizeof(*d));
		}
	}
	/* and no region of the profile is missing */
	for (r = 0; r < p->nrows; r++) {
		for (i = 0; i < n && strcmp(regs[i].name, p->rows[r].name); i++)
			;
		assert_true(i < n);
	}
	store_region_stats_free(regs, n);
	i64vec_release(&got);
	free(d);
}

/* Ingest path into st as every case does; the run's id. */
static int64_t ingest(struct store *st, const char *path)
{
	static const char *const tags[] = {"conf", "ünï"};
	static const char *const meta[] = {"build=42"};
	struct ingest_opts o;
	struct ingest_result r;
	int64_t id;

	memset(&o, 0, sizeof(o));
	o.tags = tags;
	o.ntags = 2;
	o.commit = "0123456789abcdef0123456789abcdef01234567";
	o.branch = "main";
	o.meta = meta;
	o.nmeta = 1;
	if (ingest_file(&r, st, path, &o)) {
		print_error("ingest of %s: %s\n", path, err_msg());
		fail();
	}
	assert_false(r.duplicate);
	id = r.run_id;
	ingest_result_release(&r);
	return id;
}

/* The profiles of the battery, written once: the standard one in three
 * layouts, and random ones with rows of no calls, lanes, fixed strings,
 * many ranks and the aggregate layout among them. */
#define NPROFILES 8
static struct profile profiles[NPROFILES];

static int setup(void **state)
{
	static const uint64_t seeds[] = {1, 2, 5, 6, 8};
	size_t i;

	(void)state;
	profile_standard(&profiles[0], "std3.h5", 3, 0);
	profile_standard(&profiles[1], "std1.h5", 1, 0);
	profile_standard(&profiles[2], "stdagg.h5", 2, 1);
	for (i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++)
		profile_random(&profiles[3 + i], seeds[i], 0);
	return 0;
}

static void profile_release(struct profile *p)
{
	free((char *)p->path);
	free(p->rows);
	profgen_free(p->g);
	memset(p, 0, sizeof(*p));
}

static int teardown(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < NPROFILES; i++)
		profile_release(&profiles[i]);
	return 0;
}

/* ---- the cases ---------------------------------------------------------------------- */

/* A run row with what store_insert_run() needs, and a timings row of no
 * calls and no per-call data. */
static struct store_run plain_run(void)
{
	return (struct store_run){.sha256 = (char *)"aa",
				  .source_path = (char *)"x.h5",
				  .schema = 3,
				  .layout = (char *)"columnar",
				  .num_ranks = 1};
}

static struct store_timing plain_timing(void)
{
	return (struct store_timing){.exclusive = -1, .source_line = -1};
}

/* An empty store: nothing listed, and the same refusals. */
static void test_empty(void **state)
{
	const struct backend *b = *state;
	struct store *st = fresh(b);
	struct buf t = BUF_INIT;
	struct select_spec sel;
	struct store_history_query q;
	struct store_history_point *pts = NULL;
	struct store_run run;
	int64_t id = 0;
	size_t n = 0;

	dump_runs(&t, st);
	dump_pins(&t, st);
	dump_series(&t, st);
	assert_string_equal(t.data, "series: 0 runs, 0 regions (0 selected)\n");
	assert_int_equal(select_parse(&sel, "latest"), 0);
	expect_err(st, store_resolve(st, &id, &sel), ERR_NOTFOUND, "no runs stored in 'LOC'");
	select_release(&sel);
	expect_err(st, store_get_run(st, &run, 1), ERR_NOTFOUND, "no run 1 in store 'LOC'");
	memset(&q, 0, sizeof(q));
	q.region = "solve";
	expect_err(st, store_region_history(st, &pts, &n, &q), ERR_NOTFOUND,
		   "no region 'solve' in store 'LOC'");
	buf_release(&t);
	store_close(st);
}

/* Every profile ingested: the numbers are the durations', and every read
 * prints what SQLite's does. */
static void test_numbers(void **state)
{
	const struct backend *b = *state;
	struct store *st = fresh(b), *ref = fresh(&sqlite_backend);
	struct buf x = BUF_INIT, y = BUF_INIT;
	const int64_t some[] = {0, 2, 10};
	size_t i;

	for (i = 0; i < NPROFILES; i++) {
		const struct profile *p = &profiles[i];
		int64_t id = ingest(st, p->path), rid = ingest(ref, p->path);

		assert_int_equal(id, rid);
		check_numbers(st, id, p, NULL, 0);
		check_numbers(st, id, p, some, 3);
		if (p->g)
			check_numbers(st, id, p, p->g->sel, p->g->nsel);
		x.len = y.len = 0;
		dump_stats(&x, st, id, NULL, 0);
		dump_stats(&y, ref, rid, NULL, 0);
		dump_stats(&x, st, id, some, 3);
		dump_stats(&y, ref, rid, some, 3);
		dump_rank_totals(&x, st, id);
		dump_rank_totals(&y, ref, rid);
		dump_rows(&x, st, id);
		dump_rows(&y, ref, rid);
		same_text(&x, &y, p->path);
	}
	x.len = y.len = 0;
	dump_runs(&x, st);
	dump_runs(&y, ref);
	same_text(&x, &y, "the runs");
	release_pair(st, ref, &x, &y);
}

/* The rows of a region with no calls on some ranks (the standard
 * profile's "idle" on ranks 0 and 1): stored with per-call data and the
 * blob of no values, and read back (issue 24); their self time is 0, not
 * unknown (a row of no call has none). */
static void test_rows_of_no_calls(void **state)
{
	const struct backend *b = *state;
	struct store *st = fresh(b);
	struct buf x = BUF_INIT;
	int64_t id = ingest(st, profiles[0].path);

	dump_rows(&x, st, id);
	assert_non_null(strstr(x.data,
			       "row idle rank=0 events=1 calls=0 total=0 min=0 max=0 first=0 "
			       "last=0 start=0 end=0 mean=0 m2=0 excl=0 gpu=0/0 file= "
			       "line=3 text= tags=[\"x\"] blob="));
	assert_null(strstr(x.data, "row idle rank=0 events=1 calls=0 total=0 min=0 max=0 first=0 "
				   "last=0 start=0 end=0 mean=0 m2=0 excl=0 gpu=0/0 file= line=3 "
				   "text= tags=[\"x\"] blob=none"));
	buf_release(&x);
	store_close(st);
}

/* Runs, tags, metadata, pins and selectors through the write calls. */
static void test_labels(void **state)
{
	const struct backend *b = *state;
	struct store *st = fresh(b), *ref = fresh(&sqlite_backend);
	struct store *both[2] = {st, ref};
	struct buf x = BUF_INIT, y = BUF_INIT;
	int k;

	for (k = 0; k < 2; k++) {
		struct store *s = both[k];
		struct store_run r, got;
		struct select_spec sel;
		int64_t id[4], out = 0, prev = 0;
		int added = 0, removed = 0;
		char *unpinned = NULL;

		memset(&r, 0, sizeof(r));
		r.sha256 = (char *)"aa";
		r.source_path = (char *)"/p/größe λ.h5";
		r.ingested_at = (char *)"2026-01-01T00:00:00Z";
		r.recorded_at = (char *)"2026-01-01T00:00:00Z";
		r.label = (char *)"";
		r.commit = (char *)"abcdef1234";
		r.branch = (char *)"main";
		r.schema = 3;
		r.layout = (char *)"columnar";
		r.num_ranks = 4;
		assert_int_equal(store_begin(s), 0);
		assert_int_equal(store_insert_run(s, &id[0], &r), 0);
		r.sha256 = (char *)"bb";
		r.recorded_at = (char *)"2026-01-03T00:00:00Z";
		r.label = (char *)"nightly «λ»";
		r.commit = (char *)"abcdef9999";
		assert_int_equal(store_insert_run(s, &id[1], &r), 0);
		r.sha256 = (char *)"cc";
		r.recorded_at = NULL; /* sorted by the ingest time */
		r.ingested_at = (char *)"2026-01-02T00:00:00Z";
		r.branch = (char *)"dev";
		r.commit = NULL;
		assert_int_equal(store_insert_run(s, &id[2], &r), 0);
		assert_int_equal(store_commit(s), 0);
		/* a content hash stored already: refused; the caller rolls
		 * back (PostgreSQL has aborted the transaction, SQLite not:
		 * store.h promises nothing else after a failed write) */
		assert_int_equal(store_begin(s), 0);
		r.sha256 = (char *)"aa";
		assert_int_equal(store_insert_run(s, &id[3], &r), ERR_STORE);
		store_rollback(s);
		assert_true(id[0] < id[1] && id[1] < id[2]);
		assert_int_equal(store_find_sha(s, &out, "bb"), 0);
		assert_int_equal(out, id[1]);
		assert_int_equal(store_find_sha(s, &out, "zz"), 0);
		assert_int_equal(out, 0);
		/* "" is stored as NULL */
		assert_int_equal(store_get_run(s, &got, id[0]), 0);
		assert_null(got.label);
		assert_string_equal(got.source_path, "/p/größe λ.h5");
		store_run_release(&got);
		/* tags and metadata */
		assert_int_equal(store_begin(s), 0);
		assert_int_equal(store_add_tag(s, &added, id[0], "zeta"), 0);
		assert_int_equal(added, 1);
		assert_int_equal(store_add_tag(s, &added, id[0], "alpha ünï"), 0);
		assert_int_equal(store_add_tag(s, &added, id[0], "zeta"), 0);
		assert_int_equal(added, 0);
		assert_int_equal(store_add_tag(s, &added, id[1], "zeta"), 0);
		assert_int_equal(store_remove_tag(s, &removed, id[1], "zeta"), 0);
		assert_int_equal(removed, 1);
		assert_int_equal(store_remove_tag(s, &removed, id[1], "zeta"), 0);
		assert_int_equal(removed, 0);
		assert_int_equal(store_set_meta(s, id[0], "platform", "linux"), 0);
		assert_int_equal(store_set_meta(s, id[0], "Ω key", "v1"), 0);
		assert_int_equal(store_set_meta(s, id[0], "platform", "linux-x86_64"), 0);
		assert_int_equal(store_commit(s), 0);
		/* pins */
		assert_int_equal(store_pin_set(s, &prev, "base", id[0]), 0);
		assert_int_equal(prev, 0);
		assert_int_equal(store_pin_set(s, &prev, "base", id[1]), 0);
		assert_int_equal(prev, id[0]);
		assert_int_equal(store_pin_add(s, &prev, "base", id[2]), 0);
		assert_int_equal(prev, id[1]);
		assert_int_equal(store_pin_add(s, &prev, "rel/1.0", id[2]), 0);
		assert_int_equal(prev, 0);
		expect_err(s, store_pin_set(s, &prev, "x", 999), ERR_NOTFOUND,
			   "no run with id 999");
		expect_err(s, store_pin_remove(s, &prev, "nope"), ERR_NOTFOUND,
			   "no pin named 'nope'");
		/* selectors */
		{
			static const struct {
				const char *sel;
				int want; /* index into id, or -1: ERR_NOTFOUND */
			} cases[] = {
			    {"latest", 1},    {"latest~1", 2},	 {"latest~2", 0},
			    {"tag:zeta", 0},  {"pin:base", 1},	 {"pin:rel/1.0", 2},
			    {"abcdef9", 1},   {"branch:dev", 2}, {"label:nightly «λ»", 1},
			    {"latest~3", -1}, {"tag:none", -1},	 {"abcdef", -1},
			    {"pin:gone", -1},
			};
			size_t c;

			for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
				int ret;

				assert_int_equal(select_parse(&sel, cases[c].sel), 0);
				ret = store_resolve(s, &out, &sel);
				select_release(&sel);
				if (cases[c].want < 0) {
					assert_int_equal(ret, ERR_NOTFOUND);
					put(k ? &y : &x, "%s: %s\n", cases[c].sel, msg_of(s));
				} else {
					assert_int_equal(ret, 0);
					assert_int_equal(out, id[cases[c].want]);
				}
			}
		}
		/* filters */
		{
			struct store_run *runs = NULL;
			size_t n = 0, c;
			const char *tags[] = {"zeta"};
			const struct filter_meta m[] = {{"platform", "linux-x86_64", 0}};
			/* a filter, how many runs pass it and the first (index into id,
			 * -1: not looked at) */
			const struct {
				struct filter f;
				size_t n;
				int first;
			} cases[] = {
			    {{.branch = "main"}, 2, -1},
			    {{.tags = tags, .ntags = 1, .meta = m, .nmeta = 1}, 1, 0},
			    {{.since = "2026-01-02T00:00:00Z", .limit = 1}, 1, 1},
			};

			for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
				assert_int_equal(store_find_runs(s, &runs, &n, &cases[c].f), 0);
				assert_int_equal(n, cases[c].n);
				if (cases[c].first >= 0)
					assert_int_equal(runs[0].id, id[cases[c].first]);
				store_runs_free(runs, n);
			}
		}
		/* removal: a pinned run is refused unless forced */
		assert_int_equal(store_begin(s), 0);
		expect_err(s, store_remove_run(s, &unpinned, id[1], 0), ERR_USAGE,
			   "run 2 is pinned as 'base': unpin it or use --force");
		store_rollback(s);
		assert_int_equal(store_begin(s), 0);
		assert_int_equal(store_remove_run(s, &unpinned, id[2], 1), 0);
		assert_string_equal(unpinned, "rel/1.0");
		free(unpinned);
		unpinned = NULL;
		expect_err(s, store_remove_run(s, &unpinned, 77, 0), ERR_NOTFOUND,
			   "no run with id 77");
		store_rollback(s);
		assert_int_equal(store_begin(s), 0);
		assert_int_equal(store_remove_run(s, &unpinned, id[2], 1), 0);
		free(unpinned);
		assert_int_equal(store_commit(s), 0);
		dump_runs(k ? &y : &x, s);
		dump_pins(k ? &y : &x, s);
	}
	same_text(&x, &y, "runs, tags, metadata, pins and refusals");
	assert_non_null(strstr(x.data, "run 1 sha=aa path=/p/größe λ.h5 ingested=1 "
				       "recorded=2026-01-01T00:00:00Z label=(null) "
				       "commit=abcdef1234 branch=main schema=3 layout=columnar "
				       "ranks=4 regions=0 calls=0 tags=[alpha ünï],[zeta] "
				       "meta[platform]=[linux-x86_64] meta[Ω key]=[v1]\n"));
	assert_non_null(strstr(x.data, "pin base -> 2 at=1\n"));
	assert_null(strstr(x.data, "run 3 "));
	release_pair(st, ref, &x, &y);
}

/* The text rule: every write refuses text that is not UTF-8, with the
 * same message, and stores nothing of it (issue 24). */
static void test_text_rule(void **state)
{
	const struct backend *b = *state;
	struct store *st = fresh(b);
	struct store_run r, *runs = NULL;
	struct store_timing t;
	struct store_pin *pins = NULL;
	int64_t id = 0, rid = 0, prev = 0;
	size_t n = 0;
	int added = 0;
	const char *tail = "is not valid UTF-8 (byte 0xff at offset 3); a store holds UTF-8 "
			   "text only";
	char want[256];

	r = plain_run();
	assert_int_equal(store_begin(st), 0);
	r.label = (char *)"lab\xff";
	snprintf(want, sizeof(want), "label 'lab\xff' %s", tail);
	expect_err(st, store_insert_run(st, &id, &r), ERR_FORMAT, want);
	r.label = NULL;
	r.source_path = (char *)"x.h\xff";
	snprintf(want, sizeof(want), "path 'x.h\xff' %s", tail);
	expect_err(st, store_insert_run(st, &id, &r), ERR_FORMAT, want);
	r.source_path = (char *)"x.h5";
	assert_int_equal(store_insert_run(st, &id, &r), 0);
	snprintf(want, sizeof(want), "region name 'bad\xff' %s", tail);
	expect_err(st, store_region_id(st, &rid, "bad\xff"), ERR_FORMAT, want);
	snprintf(want, sizeof(want), "tag 'tag\xff' %s", tail);
	expect_err(st, store_add_tag(st, &added, id, "tag\xff"), ERR_FORMAT, want);
	snprintf(want, sizeof(want), "metadata key 'key\xff' %s", tail);
	expect_err(st, store_set_meta(st, id, "key\xff", "v"), ERR_FORMAT, want);
	snprintf(want, sizeof(want), "metadata 'key' value 'val\xff' %s", tail);
	expect_err(st, store_set_meta(st, id, "key", "val\xff"), ERR_FORMAT, want);
	assert_int_equal(store_region_id(st, &rid, "solve"), 0);
	t = plain_timing();
	t.run_id = id;
	t.region_id = rid;
	t.source_file = "src\xff.py";
	snprintf(want, sizeof(want), "source file 'src\xff.py' %s", tail);
	expect_err(st, store_add_timing(st, &t), ERR_FORMAT, want);
	t.source_file = "";
	t.tags_json = "[\"\xff\"]";
	expect_err(st, store_add_timing(st, &t), ERR_FORMAT,
		   "tags '[\"\xff\"]' is not valid UTF-8 (byte 0xff at offset 2); a store holds "
		   "UTF-8 text only");
	store_rollback(st);
	snprintf(want, sizeof(want), "pin name 'pin\xff' %s", tail);
	expect_err(st, store_pin_set(st, &prev, "pin\xff", 1), ERR_FORMAT, want);
	assert_int_equal(store_list_runs(st, &runs, &n), 0);
	assert_int_equal(n, 0);
	assert_int_equal(store_list_pins(st, &pins, &n), 0);
	assert_int_equal(n, 0);
	store_close(st);
}

/* Copies to this backend and back keep every row and number; a copy
 * again copies nothing (issue 24: rows of no calls travel). */
static void test_transfer(void **state)
{
	const struct backend *b = *state;
	struct store *src = fresh(&sqlite_backend), *dst = fresh(b), *back = fresh(&sqlite_backend);
	struct transfer_result res;
	struct buf x = BUF_INIT, y = BUF_INIT, z = BUF_INIT;
	size_t i;
	int64_t id;

	for (i = 0; i < NPROFILES; i++)
		ingest(src, profiles[i].path);
	assert_int_equal(store_pin_set(src, &id, "base", 2), 0);
	assert_int_equal(transfer_runs(&res, dst, src, NULL, 0, 1), 0);
	assert_int_equal(res.nruns, NPROFILES);
	assert_int_equal(res.nfailed, 0);
	for (i = 0; i < res.nruns; i++)
		assert_true(res.runs[i].copied);
	assert_int_equal(res.npins, 1);
	transfer_result_release(&res);
	assert_int_equal(transfer_runs(&res, dst, src, NULL, 0, 1), 0);
	for (i = 0; i < res.nruns; i++)
		assert_false(res.runs[i].copied);
	assert_int_equal(res.pins[0].state, TRANSFER_PIN_SAME);
	transfer_result_release(&res);
	assert_int_equal(transfer_runs(&res, back, dst, NULL, 0, 1), 0);
	assert_int_equal(res.nruns, NPROFILES);
	transfer_result_release(&res);
	for (i = 0; i < NPROFILES; i++) {
		id = (int64_t)i + 1;
		dump_rows(&x, src, id);
		dump_rows(&y, dst, id);
		dump_rows(&z, back, id);
		dump_stats(&x, src, id, NULL, 0);
		dump_stats(&y, dst, id, NULL, 0);
		dump_stats(&z, back, id, NULL, 0);
		check_numbers(dst, id, &profiles[i], NULL, 0);
	}
	dump_runs(&x, src);
	dump_runs(&y, dst);
	dump_runs(&z, back);
	dump_pins(&x, src);
	dump_pins(&y, dst);
	dump_pins(&z, back);
	same_text(&y, &x, "the copy");
	same_text(&z, &x, "the copy of the copy");
	buf_release(&x);
	buf_release(&y);
	buf_release(&z);
	store_close(src);
	store_close(dst);
	store_close(back);
}

/* A region's history and the series of every region over runs of one
 * structure (a seed and its variants). */
static void test_history(void **state)
{
	const struct backend *b = *state;
	struct store *st = fresh(b), *ref = fresh(&sqlite_backend);
	struct buf x = BUF_INIT, y = BUF_INIT;
	struct profile v[3];
	const int64_t some[] = {0, 1};
	unsigned k;

	memset(v, 0, sizeof(v));
	for (k = 0; k < 3; k++) {
		profile_random(&v[k], 4, k);
		ingest(st, v[k].path);
		ingest(ref, v[k].path);
	}
	dump_history(&x, st, v[0].rows[0].name, NULL, 0);
	dump_history(&y, ref, v[0].rows[0].name, NULL, 0);
	dump_history(&x, st, v[0].rows[0].name, some, 2);
	dump_history(&y, ref, v[0].rows[0].name, some, 2);
	dump_series(&x, st);
	dump_series(&y, ref);
	same_text(&x, &y, "history and series");
	assert_non_null(strstr(x.data, "series: 3 runs, "));
	for (k = 0; k < 3; k++)
		profile_release(&v[k]);
	release_pair(st, ref, &x, &y);
}

/* Transactions: one at a time, rolled back whole, timings only inside;
 * removal and compaction. */
static void test_transactions(void **state)
{
	const struct backend *b = *state;
	struct store *st = fresh(b);
	struct store_run r = plain_run(), *runs = NULL;
	struct store_timing t = plain_timing();
	char *unpinned = NULL;
	int64_t id = 0, before = 0, after = 0, used = 0;
	size_t n = 0;

	expect_err(st, store_add_timing(st, &t), ERR_USAGE,
		   "cannot update store 'LOC': timings need a transaction");
	assert_int_equal(store_begin(st), 0);
	assert_int_equal(store_begin(st), ERR_USAGE);
	assert_int_equal(store_insert_run(st, &id, &r), 0);
	store_rollback(st);
	assert_int_equal(store_list_runs(st, &runs, &n), 0);
	assert_int_equal(n, 0);
	id = ingest(st, profiles[0].path);
	ingest(st, profiles[3].path);
	assert_int_equal(store_used_bytes(st, &used), 0);
	assert_true(used > 0);
	expect_err(st, store_remove_run(st, &unpinned, id, 0), ERR_USAGE,
		   "internal error: removing a run outside a transaction");
	assert_int_equal(store_begin(st), 0);
	assert_int_equal(store_remove_run(st, &unpinned, id, 0), 0);
	assert_null(unpinned);
	assert_int_equal(store_commit(st), 0);
	assert_int_equal(store_vacuum(st, &before, &after), 0);
	assert_true(before > 0 && after > 0);
	assert_int_equal(store_list_runs(st, &runs, &n), 0);
	assert_int_equal(n, 1);
	assert_int_equal(runs[0].id, id + 1);
	store_runs_free(runs, n);
	store_close(st);
}

/* a == b but for the last bits of a computed double */
static int near(double a, double b)
{
	return fabs(a - b) <= 1e-9 * fabs(b);
}

/* Three roots of region in run: path 0 with rows on ranks 0 and 1 (idle),
 * path 1 on ranks 0 and 1, path 2 without rows; each row one call with its
 * own durations (encoded in blob). */
static void add_tree(struct store *st, struct buf *blob, int64_t run, int64_t region)
{
	size_t i, j;

	for (i = 0; i < 3; i++) {
		struct store_path p = {run, (int64_t)i, -1, region, 1};

		assert_int_equal(store_add_path(st, &p), 0);
	}
	for (i = 0; i < 2; i++)
		for (j = 0; j < 2; j++) {
			int64_t t = i == 0 && j == 1 ? 0 : (int64_t)(100 * (i + 1) + 10 * j);
			struct store_path_rank pr = {.run_id = run,
						     .path_id = (int64_t)i,
						     .rank = (int64_t)j,
						     .calls = 1,
						     .total = t,
						     .self = t / 2,
						     .min = t,
						     .max = t};

			blob->len = 0;
			assert_int_equal(store_encode_durations(blob, &t, 1), 0);
			pr.durations = blob->data;
			pr.durations_len = blob->len;
			assert_int_equal(store_add_path_rank(st, &pr), 0);
		}
}

/* A run's paths written through the store's API: each path's row gets
 * the totals of its (path, rank) rows, as the rows pooled over every rank
 * (store_path_stats() with a rank list) have them, an idle rank counted
 * but not busy; a path without rows has none (and is not listed).  Paths
 * numbered otherwise
 * than 0, 1, 2... in order (which a reader calls damage), and a row of a
 * path not added, are refused. */
static void test_path_totals(void **state)
{
	const struct backend *b = *state;
	struct store *st = fresh(b);
	struct store_run r = plain_run();
	struct store_region_stats *all = NULL, *pooled = NULL;
	const int64_t ranks[2] = {0, 1};
	struct buf blob = BUF_INIT;
	int64_t run = 0, region = 0;
	size_t n = 0, m = 0, i;

	assert_int_equal(store_begin(st), 0);
	assert_int_equal(store_insert_run(st, &run, &r), 0);
	assert_int_equal(store_region_id(st, &region, "solve"), 0);
	add_tree(st, &blob, run, region);
	expect_err(st, store_add_path(st, &(struct store_path){run, 5, -1, region, 1}), ERR_USAGE,
		   "internal error: path 5 of run 1 added as path 3");
	expect_err(st,
		   store_add_path_rank(
		       st, &(struct store_path_rank){.run_id = run, .path_id = 3, .calls = 1}),
		   ERR_USAGE, "internal error: a row of path 3 of run 1, which was not added");
	assert_int_equal(store_put_nesting(st, run, &(struct store_nesting){2, 1, 3, 4}), 0);
	/* the paths are written by the run's finish, never lost */
	expect_err(st, store_commit(st), ERR_USAGE,
		   "internal error: the paths of run 1 were added but the run was not finished");
	/* rolled back, run, region and all */
	assert_int_equal(store_path_stats(st, &all, &n, run, NULL, 0, NULL, NULL), ERR_NOTFOUND);
	assert_int_equal(store_begin(st), 0);
	assert_int_equal(store_insert_run(st, &run, &r), 0);
	assert_int_equal(store_region_id(st, &region, "solve"), 0);
	add_tree(st, &blob, run, region);
	assert_int_equal(store_put_nesting(st, run, &(struct store_nesting){2, 1, 3, 4}), 0);
	assert_int_equal(store_finish_run(st, run), 0);
	assert_int_equal(store_commit(st), 0);
	assert_int_equal(store_path_stats(st, &all, &n, run, NULL, 0, NULL, NULL), 0);
	assert_int_equal(store_path_stats(st, &pooled, &m, run, ranks, 2, NULL, NULL), 0);
	assert_int_equal(n, 2); /* path 2, without rows, has no totals */
	assert_int_equal(m, 2);
	for (i = 0; i < m; i++) {
		assert_int_equal(all[i].path_id, pooled[i].path_id);
		assert_int_equal(all[i].calls, pooled[i].calls);
		assert_int_equal(all[i].total, pooled[i].total);
		assert_int_equal(all[i].min, pooled[i].min);
		assert_int_equal(all[i].max, pooled[i].max);
		assert_int_equal(all[i].nranks, pooled[i].nranks);
		assert_int_equal(all[i].busy_ranks, pooled[i].busy_ranks);
		assert_int_equal(all[i].busy_max, pooled[i].busy_max);
		assert_int_equal(all[i].self, pooled[i].self);
	}
	assert_int_equal(all[0].nranks, 2);
	assert_int_equal(all[0].busy_ranks, 1);
	assert_int_equal(all[0].total, 100);
	assert_int_equal(all[1].total, 200 + 210);
	/* numpy's linear percentiles of each path's durations over all ranks,
	 * written with its row: path 0 {0, 100}, path 1 {200, 210} */
	assert_true(all[0].has_quantiles && all[1].has_quantiles);
	assert_true(near(all[0].quantiles[0], 50.0) && near(all[0].quantiles[1], 95.0) &&
		    near(all[0].quantiles[2], 99.0));
	assert_true(near(all[1].quantiles[0], 205.0) && near(all[1].quantiles[1], 209.5) &&
		    near(all[1].quantiles[2], 209.9));
	store_region_stats_free(all, n);
	store_region_stats_free(pooled, m);
	buf_release(&blob);
	store_close(st);
}

/* A timings row of region of run on rank with calls durations d[] (sorted),
 * a total of their sum, self time excl (-1: unknown), GPU count gpu; with
 * per-call data, encoded into blob, unless gpu is AGGREGATE. */
#define AGGREGATE UINT64_MAX
static void add_row(struct store *st, struct buf *blob, int64_t run, int64_t region, int64_t rank,
		    const int64_t *d, size_t calls, int64_t excl, uint64_t gpu)
{
	struct store_timing t = plain_timing();
	size_t i;

	t.run_id = run;
	t.region_id = region;
	t.rank = rank;
	t.has_events = gpu != AGGREGATE;
	gpu = t.has_events ? gpu : 0;
	t.calls = calls;
	for (i = 0; i < calls; i++)
		t.total += d[i];
	t.min = calls ? d[0] : 0;
	t.max = calls ? d[calls - 1] : 0;
	t.exclusive = excl;
	t.gpu_count = gpu;
	t.gpu_total = (int64_t)gpu * 7;
	blob->len = 0;
	assert_int_equal(store_encode_durations(blob, d, calls), 0);
	t.durations = calls && t.has_events ? blob->data : NULL;
	t.durations_len = calls && t.has_events ? blob->len : 0;
	assert_int_equal(store_add_timing(st, &t), 0);
}

/* The run's region totals over all ranks, which the front end adds up as
 * the rows are written: by hand, and the same as the store's own sums when
 * the run is finished again (a run stored before, as a schema upgrade
 * finishes it), NULL rules included. */
static void test_region_totals(void **state)
{
	const struct backend *b = *state;
	struct store *st = fresh(b);
	struct store_run r = plain_run();
	struct buf blob = BUF_INIT, x = BUF_INIT, y = BUF_INIT;
	const int64_t d0[] = {5, 10, 15}, d2[] = {20, 30}, io[] = {1, 20}, io2[] = {3, 6};
	int64_t run = 0, solve = 0, idle = 0, agg = 0;
	struct store_timing t;

	assert_int_equal(store_begin(st), 0);
	assert_int_equal(store_insert_run(st, &run, &r), 0);
	assert_int_equal(store_region_id(st, &solve, "solve"), 0);
	assert_int_equal(store_region_id(st, &idle, "idle"), 0);
	assert_int_equal(store_region_id(st, &agg, "agg"), 0);
	add_row(st, &blob, run, solve, 0, d0, 3, 20, 1);
	add_row(st, &blob, run, solve, 1, NULL, 0, 0, 0); /* no calls */
	add_row(st, &blob, run, solve, 2, d2, 2, -1, 2);  /* self time unknown */
	add_row(st, &blob, run, idle, 0, NULL, 0, 0, 0);  /* only idle rows */
	add_row(st, &blob, run, agg, 1, io, 2, 4, 0);
	add_row(st, &blob, run, agg, 0, io2, 2, 1, AGGREGATE); /* no per-call data */
	assert_int_equal(store_finish_run(st, run), 0);
	assert_int_equal(store_commit(st), 0);
	dump_stats(&x, st, run, NULL, 0);
	/* {5, 10, 15, 20, 30}: numpy's linear p50, p95, p99 */
	assert_string_equal(
	    x.data,
	    "stats of run 1 over 0 ranks\n"
	    "  agg: events=0 calls=4 total=30 min=1 max=20 gpu=0/0 ranks=2 busy=2/21 self=5\n"
	    "   durations 1 20\n"
	    "  idle: events=1 calls=0 total=0 min=0 max=0 gpu=0/0 ranks=1 busy=0/0 self=0\n"
	    "   durations\n"
	    "  solve: events=1 calls=5 total=80 min=5 max=30 gpu=3/21 ranks=3 busy=2/50 "
	    "q=15,28,29.600000000000001\n"
	    "   durations 5 10 15 20 30\n");
	/* finished again: by the store's sums, to the bit */
	assert_int_equal(store_begin(st), 0);
	assert_int_equal(store_finish_run(st, run), 0);
	assert_int_equal(store_commit(st), 0);
	dump_stats(&y, st, run, NULL, 0);
	assert_string_equal(y.data, x.data);
	/* a total past INT64_MAX is refused, as SQL's sum() refused it */
	r.sha256 = (char *)"bb";
	assert_int_equal(store_begin(st), 0);
	assert_int_equal(store_insert_run(st, &run, &r), 0);
	assert_int_equal(store_region_id(st, &solve, "solve"), 0);
	t = (struct store_timing){.run_id = run,
				  .region_id = solve,
				  .calls = 1,
				  .total = INT64_MAX,
				  .min = INT64_MAX,
				  .max = INT64_MAX,
				  .exclusive = -1,
				  .source_line = -1};
	assert_int_equal(store_add_timing(st, &t), 0);
	t.rank = 1;
	expect_err(st, store_add_timing(st, &t), ERR_FORMAT,
		   "a region's times summed over its ranks pass 2^63 ns (292 years), more than a "
		   "store keeps");
	store_rollback(st);
	buf_release(&x);
	buf_release(&y);
	buf_release(&blob);
	store_close(st);
}

/* ---- the groups -------------------------------------------------------------------------- */

#define CASES(b)                                                                                   \
	{                                                                                          \
		cmocka_unit_test_prestate(test_empty, (void *)(b)),                                \
		    cmocka_unit_test_prestate(test_numbers, (void *)(b)),                          \
		    cmocka_unit_test_prestate(test_rows_of_no_calls, (void *)(b)),                 \
		    cmocka_unit_test_prestate(test_labels, (void *)(b)),                           \
		    cmocka_unit_test_prestate(test_text_rule, (void *)(b)),                        \
		    cmocka_unit_test_prestate(test_transfer, (void *)(b)),                         \
		    cmocka_unit_test_prestate(test_history, (void *)(b)),                          \
		    cmocka_unit_test_prestate(test_transactions, (void *)(b)),                     \
		    cmocka_unit_test_prestate(test_path_totals, (void *)(b)),                      \
		    cmocka_unit_test_prestate(test_region_totals, (void *)(b)),                    \
	}

/* Each backend's group runs the same cases; the command line or UNIT_CASES
 * chooses among them (tu_choose()). */
int main(int argc, char **argv)
{
	const struct CMUnitTest names[] = CASES(NULL);
	const size_t n = sizeof(names) / sizeof(names[0]);
	size_t i;
	int failed = 0, status = tu_choose(argc, argv, names, n);

	if (status >= 0)
		return status;
	for (i = 0; i < sizeof(backends) / sizeof(backends[0]); i++) {
		const struct backend *b = backends[i];
		const struct CMUnitTest cases[] = CASES(b);

		if (b->unavailable()) {
			printf("%s: skipped: %s\n", b->name, b->unavailable());
			continue;
		}
		failed += tu_run_group(b->name, cases, n, setup, teardown);
	}
	return failed;
}
