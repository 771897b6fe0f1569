/*
 * test_h5safe.c - the reader reads only what is inside the file (issue 13):
 * the hostile profiles of tests/support/hostile_h5.c, each refused by
 * ingest_file() with its exact message and nothing stored; no filter plugin
 * is loaded although HDF5_PLUGIN_PATH holds one (tests/plugin/h5marker.c,
 * which creates a marker file when loaded) and the HDF5_*_PREFIX variables
 * point at the secret's directory; a long gzip chunk is decompressed once
 * (zlib's inflateInit_ counted), and scopedb inflates a chunk itself only
 * for deflate and shuffle + deflate, with the values libhdf5 reads and its
 * refusal of a damaged chunk; schema 1's rows read straight from the file
 * (h5direct.c) where they can be, with libhdf5's values (also of the real
 * scope-profiler's files) and its refusal of a damaged chunk; the identity
 * check of h5prof_open_stat() / h5prof_same_file(); libhdf5 closed and started
 * again (h5prof_reset(), between the files of a served reader) loads no
 * plugin and reads a profile whole.
 */
#define _GNU_SOURCE /* RTLD_NEXT */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hdf5.h>
#include <zlib.h>

#include "scopedb/err.h"
#include "scopedb/h5prof.h"
#include "scopedb/ingest.h"
#include "scopedb/store.h"
#include "h5/h5_internal.h"
#include "h5write.h"
#include "hostile_h5.h"
#include "testutil.h"
#include "testutil_h5.h"
#include "testutil_store.h"

#define SECRET "SECRET_TOKEN_6f1e"

static struct store *st;
static char marker[512];

static int setup(void **state)
{
	const char *dir = getenv("H5MARKER_DIR");

	/* before libhdf5 is first used: it reads these when it starts */
	snprintf(marker, sizeof(marker), "%s", tu_path("marker"));
	setenv("SCOPEDB_MARKER", marker, 1);
	if (dir)
		setenv("HDF5_PLUGIN_PATH", dir, 1);
	setenv("HDF5_EXTFILE_PREFIX", tu_tmpdir(), 1);
	setenv("HDF5_EXT_PREFIX", tu_tmpdir(), 1);
	setenv("HDF5_VDS_PREFIX", tu_tmpdir(), 1);
	tu_write_file(tu_path("secret.txt"), SECRET "\nroot:x:0:0:root:/root:/bin/sh\n",
		      strlen(SECRET) + 31);
	return tu_store_open(state, &st, tu_path("safe.sqlite"));
}

/* Number of runs in the store. */
static size_t nruns(void)
{
	struct store_run *runs = NULL;
	size_t n = 0;

	assert_int_equal(store_list_runs(st, &runs, &n), 0);
	store_runs_free(runs, n);
	return n;
}

/* Write hostile profile kind as name (aux: the file it points at) and
 * require ingest_file() to fail with code and exactly "cannot read
 * 'PATH': why", storing nothing and loading no plugin. */
static void refused(const char *kind, const char *aux, int code, const char *why)
{
	const char *path = tu_path(kind);
	struct ingest_result r;
	struct ingest_opts o;
	char want[1024];
	size_t before = nruns();

	memset(&o, 0, sizeof(o));
	assert_int_equal(hostile_h5_write(kind, path, aux), 0);
	err_clear();
	assert_int_equal(ingest_file(&r, st, path, &o), code);
	snprintf(want, sizeof(want), "cannot read '%s': %s", path, why);
	assert_string_equal(err_msg(), want);
	assert_null(strstr(err_msg(), SECRET));
	assert_int_equal(nruns(), before);
	assert_false(tu_file_exists(marker));
	ingest_result_release(&r);
}

#define SELF "; refused (a profile must be self-contained)"

static void test_outside_the_file(void **state)
{
	char other[600], elink[1200], soft[1200];
	struct h5write_opts o = tu_h5_opts(2, 0);

	(void)state;
	snprintf(other, sizeof(other), "%s", tu_h5_write_standard("other.h5", &o));
	refused("external-storage", tu_path("secret.txt"), ERR_FORMAT,
		"dataset 'region_table/names' uses external storage" SELF);
	snprintf(elink, sizeof(elink),
		 "'region_table' is an external link to '/region_table' in '%s'" SELF, other);
	refused("external-link", other, ERR_FORMAT, elink);
	refused(
	    "soft-missing", NULL, ERR_FORMAT,
	    "'events/durations' is a soft link to the missing object '/nowhere/durations'" SELF);
	snprintf(soft, sizeof(soft), "'/elsewhere' is an external link to '/events' in '%s'" SELF,
		 other);
	refused("soft-outside", other, ERR_FORMAT, soft);
	refused("soft-loop", NULL, ERR_FORMAT,
		"'/events/durations' is a soft link in a chain of more than 16; refused (a loop?)");
	refused("vds-missing", NULL, ERR_FORMAT,
		"dataset 'events/durations' is a virtual dataset (its data lies in other "
		"datasets or files)" SELF);
	refused("vds-self", NULL, ERR_FORMAT,
		"dataset 'events/durations' is a virtual dataset (its data lies in other "
		"datasets or files)" SELF);
}

/* The plugin in HDF5_PLUGIN_PATH is a working filter 32004 (h5dump loads
 * it: e2e_hostile.sh); scopedb must refuse the file without loading it. */
static void test_no_plugin(void **state)
{
	(void)state;
	if (!getenv("H5MARKER_DIR"))
		fail_msg("H5MARKER_DIR is not set (run through ctest)");
	refused("filter", NULL, ERR_FORMAT,
		"dataset 'events/durations' needs HDF5 filter 32004 ('lz4'), which is not built "
		"into libhdf5 or accepted by scopedb (filter plugins are never loaded); refused");
}

/* Counts the rows h5prof_read() gives. */
static int count_row(void *ctx, const struct h5prof_row *row)
{
	(void)row;
	++*(int *)ctx;
	return 0;
}

/* Open and read path in this process: its rows. */
static int rows_of(const char *path)
{
	struct h5prof *p = NULL;
	int n = 0;

	assert_int_equal(h5prof_open(&p, path), 0);
	assert_int_equal(h5prof_read(p, count_row, &n), 0);
	h5prof_free(p);
	return n;
}

/* A served reader closes libhdf5 between files (h5prof_reset()): it comes
 * back with plugins still off, and reads a profile whole again, here and
 * in the reader processes (the properties it made once a process were
 * closed with it). */
static void test_reset(void **state)
{
	struct h5write_opts o = tu_h5_opts(2, 0);
	const char *good = tu_h5_write_standard("reset.h5", &o);
	struct ingest_result r;
	struct ingest_opts io;
	unsigned mask = 1;
	int rows;

	(void)state;
	rows = rows_of(good);
	assert_true(rows > 0);
	h5prof_reset();
	assert_int_equal(rows_of(good), rows);
	h5prof_reset();
	assert_true(H5PLget_loading_state(&mask) >= 0);
	assert_int_equal(mask, 0);
	test_no_plugin(state);
	h5prof_reset();
	memset(&io, 0, sizeof(io));
	assert_int_equal(ingest_file(&r, st, good, &io), 0);
	assert_false(r.duplicate);
	assert_true(r.num_calls > 0);
	ingest_result_release(&r);
	h5prof_reset();
	assert_true(H5PLget_loading_state(&mask) >= 0);
	assert_int_equal(mask, 0);
}

static void test_size_bombs(void **state)
{
	(void)state;
	refused("sparse", NULL, ERR_FORMAT,
		"dataset 'events/start_deltas' declares 200000000 values (1600000000 bytes) but "
		"the file stores only 0 bytes for it; refused (sparse or unallocated storage, or "
		"the file is damaged)");
	refused("sparse-gzip", NULL, ERR_FORMAT,
		"dataset 'events/start_deltas' declares 200000000 values (1600000000 bytes) but "
		"the file stores only 0 compressed bytes for it (at most 1032:1); refused (sparse "
		"or unallocated storage, or the file is damaged)");
	refused("unwritten", NULL, ERR_FORMAT,
		"dataset 'events/start_deltas' declares 200000000 values (1600000000 bytes) but "
		"the file stores only 0 bytes for it; refused (sparse or unallocated storage, or "
		"the file is damaged)");
}

/* A soft link to a dataset of the file itself is fine. */
static void test_soft_inside(void **state)
{
	struct tu_h5_loaded l;
	struct h5write_opts o = tu_h5_opts(3, 0);
	const char *path = tu_path("soft-inside.h5");

	(void)state;
	assert_int_equal(hostile_h5_write("soft-inside", path, NULL), 0);
	assert_int_equal(tu_h5_load(&l, path), 0);
	tu_h5_check(&l, tu_h5_standard(), &o);
	tu_h5_loaded_free(&l);
}

/* ---- each chunk decompressed once ---- */

/*
 * libhdf5's deflate filter calls zlib's inflateInit_() once per chunk it
 * decompresses.  This executable exports its own (ENABLE_EXPORTS in
 * tests/CMakeLists.txt), which the dynamic linker binds libhdf5's call to:
 * it counts and forwards to zlib's.
 */
static unsigned long inflates;

typedef int (*inflate_init_fn)(z_streamp, const char *, int);

int inflateInit_(z_streamp strm, const char *version, int stream_size)
{
	static union {
		void *p;
		inflate_init_fn f;
	} real;

	if (!real.p)
		real.p = dlsym(RTLD_NEXT, "inflateInit_");
	inflates++;
	return real.f(strm, version, stream_size);
}

struct chunk_ctx {
	const int64_t *starts, *ends;
	uint64_t rows, calls;
};

static int chunk_row(void *arg, const struct h5prof_row *row)
{
	struct chunk_ctx *c = arg;
	uint64_t i;

	c->rows++;
	for (i = 0; i < row->calls; i++) {
		if (row->starts[i] != c->starts[c->calls + i] ||
		    row->durations[i] != c->ends[c->calls + i] - c->starts[c->calls + i])
			return err_set(ERR_GENERIC, "row %llu call %llu differs",
				       (unsigned long long)c->rows, (unsigned long long)i);
	}
	c->calls += row->calls;
	return 0;
}

/* A one-row profile (rank 0, solve) of the n calls starts and ends,
 * written to path with the options o. */
static void write_row(const char *path, int64_t *starts, int64_t *ends, size_t n,
		      const struct h5write_opts *o)
{
	struct h5write_row row = {.rank = 0,
				  .region = "solve",
				  .calls = n,
				  .starts = starts,
				  .ends = ends,
				  .source_line = -1};
	struct h5write_profile prof = {&row, 1, NULL, 0};

	assert_int_equal(h5write_file(path, &prof, o), 0);
}

/* A one-row profile of n calls (starts and ends filled here) in gzip
 * chunks of chunk events, written to path. */
static void write_gzip_row(const char *path, int64_t *starts, int64_t *ends, size_t n, size_t chunk)
{
	struct h5write_opts o = tu_h5_opts(3, 0);
	size_t i;

	for (i = 0; i < n; i++) {
		starts[i] = (int64_t)(i * 1000 + (i * 7919) % 13);
		ends[i] = starts[i] + (int64_t)((i * 31) % 977);
	}
	o.gzip = 1;
	o.chunk = chunk;
	write_row(path, starts, ends, n, &o);
}

/* 60000 events in gzip chunks of 20000, read through 256-event windows:
 * the chunks are longer than the longest window (64 x 256), so they are
 * read through the one-chunk cache: 3 chunks x 2 columns decompressions,
 * not one per window (about 470). */
static void test_long_chunk_once(void **state)
{
	enum { N = 60000 };
	static int64_t starts[N], ends[N];
	struct chunk_ctx c = {starts, ends, 0, 0};
	const char *path = tu_path("long-chunk.h5");
	struct h5prof *p = NULL;
	unsigned long own;

	(void)state;
	write_gzip_row(path, starts, ends, N, 20000);
	h5prof_set_chunk_events(256);
	assert_int_equal(h5prof_open(&p, path), 0);
	inflates = 0;
	own = h5prof_inflated_chunks();
	assert_int_equal(h5prof_read(p, chunk_row, &c), 0);
	assert_int_equal(c.calls, N);
	assert_int_equal(c.rows, 1);
	assert_int_equal(inflates, 6);
	assert_int_equal(h5prof_inflated_chunks() - own, 0);
	h5prof_free(p);
	/* the same file with chunks that fit a window: still once each,
	 * inflated by scopedb itself (h5inflate.c), not by libhdf5's zlib */
	h5prof_set_chunk_events(1000);
	assert_int_equal(h5prof_open(&p, path), 0);
	inflates = 0;
	own = h5prof_inflated_chunks();
	c.calls = 0;
	assert_int_equal(h5prof_read(p, chunk_row, &c), 0);
	assert_int_equal(c.calls, N);
	assert_int_equal(inflates, 0);
	assert_int_equal(h5prof_inflated_chunks() - own, 6);
	h5prof_free(p);
	h5prof_set_chunk_events(0);
}

/*
 * Every filter pipeline, chunk length and window reads the same values, in
 * the columnar layout (schema 3) and in schema 1's region groups (read
 * whole); the chunks are inflated by scopedb (h5inflate.c) for deflate and
 * shuffle + deflate only (and chunks of at most 64 windows), and by
 * libhdf5 for any pipeline with another filter.  The values use all eight
 * bytes (starts past 2^56), so a byte plane put back in the wrong place
 * changes them.
 */
static void test_inflate_filters(void **state)
{
	enum { N = 5003 };
	static const struct {
		unsigned filters;
		int own;
	} pipes[] = {
	    {H5WRITE_DEFLATE, 1},
	    {H5WRITE_SHUFFLE | H5WRITE_DEFLATE, 1},
	    {H5WRITE_FLETCHER32 | H5WRITE_DEFLATE, 0},
	    {H5WRITE_FLETCHER32 | H5WRITE_SHUFFLE | H5WRITE_DEFLATE, 0},
	    {H5WRITE_SHUFFLE, 0},
	};
	static const size_t chunks[] = {7, 1000, 4096, 5003, 8000};
	static const size_t windows[] = {16, 1000, 0};
	static int64_t starts[N], ends[N];
	const char *path = tu_path("filters.h5");
	size_t f, c, w, i;
	int schema;

	(void)state;
	for (i = 0; i < N; i++) {
		starts[i] = ((int64_t)1 << 57) + (int64_t)(i * 1000003 + (i * 7919) % 13);
		ends[i] = starts[i] + (int64_t)((i * 0x9E3779B1u) % 100000007u);
	}
	for (schema = 1; schema <= 3; schema += 2) {
		for (f = 0; f < sizeof(pipes) / sizeof(pipes[0]); f++) {
			for (c = 0; c < sizeof(chunks) / sizeof(chunks[0]); c++) {
				struct h5write_opts o = tu_h5_opts(schema, 0);

				o.filters = pipes[f].filters;
				o.chunk = chunks[c];
				write_row(path, starts, ends, N, &o);
				for (w = 0; w < sizeof(windows) / sizeof(windows[0]); w++) {
					struct chunk_ctx ctx = {starts, ends, 0, 0};
					struct h5prof *p = NULL;
					unsigned long own = h5prof_inflated_chunks();

					h5prof_set_chunk_events(windows[w]);
					assert_int_equal(h5prof_open(&p, path), 0);
					if (h5prof_read(p, chunk_row, &ctx))
						fail_msg("schema %d, filters %u, chunk %zu, window "
							 "%zu: %s",
							 schema, pipes[f].filters, chunks[c],
							 windows[w], err_msg());
					assert_int_equal(ctx.calls, N);
					own = h5prof_inflated_chunks() - own;
					/* chunks over 64 windows go through libhdf5's cache */
					if ((pipes[f].own &&
					     chunks[c] <= 64 * (windows[w] ? windows[w] : 65536)) !=
					    (own > 0))
						fail_msg(
						    "schema %d, filters %u, chunk %zu, window %zu: "
						    "%lu chunks inflated by scopedb",
						    schema, pipes[f].filters, chunks[c], windows[w],
						    own);
					h5prof_free(p);
				}
			}
		}
	}
	h5prof_set_chunk_events(0);
}

/*
 * Which pipelines scopedb inflates itself (h5inflate_kind()): deflate, or
 * shuffle then deflate, with the parameters libhdf5 itself accepts (one
 * each; a level of at most 9; shuffle's element size 8), int64 columns,
 * and not when partial edge chunks are stored unfiltered (a review found
 * such a file read to other numbers, and files libhdf5 refuses read).
 */
static void test_inflate_kind(void **state)
{
	static const struct {
		struct h5filters f;
		int want;
	} cases[] = {
	    {{1, {H5Z_FILTER_DEFLATE, 0}, {1, 0}, {4, 0}, 0}, 1},
	    {{1, {H5Z_FILTER_DEFLATE, 0}, {1, 0}, {9, 0}, 0}, 1},
	    {{1, {H5Z_FILTER_DEFLATE, 0}, {1, 0}, {10, 0}, 0}, 0},
	    {{1, {H5Z_FILTER_DEFLATE, 0}, {2, 0}, {4, 0}, 0}, 0},
	    {{1, {H5Z_FILTER_DEFLATE, 0}, {0, 0}, {0, 0}, 0}, 0},
	    {{1, {H5Z_FILTER_DEFLATE, 0}, {1, 0}, {4, 0}, 1}, 0},
	    {{2, {H5Z_FILTER_SHUFFLE, H5Z_FILTER_DEFLATE}, {1, 1}, {8, 6}, 0}, 2},
	    {{2, {H5Z_FILTER_SHUFFLE, H5Z_FILTER_DEFLATE}, {1, 1}, {4, 6}, 0}, 0},
	    {{2, {H5Z_FILTER_SHUFFLE, H5Z_FILTER_DEFLATE}, {2, 1}, {8, 6}, 0}, 0},
	    {{2, {H5Z_FILTER_SHUFFLE, H5Z_FILTER_DEFLATE}, {1, 1}, {8, 10}, 0}, 0},
	    {{2, {H5Z_FILTER_SHUFFLE, H5Z_FILTER_DEFLATE}, {1, 1}, {8, 6}, 1}, 0},
	    {{2, {H5Z_FILTER_DEFLATE, H5Z_FILTER_SHUFFLE}, {1, 1}, {6, 8}, 0}, 0},
	    {{3, {H5Z_FILTER_SHUFFLE, H5Z_FILTER_DEFLATE}, {1, 1}, {8, 6}, 0}, 0},
	    {{1, {H5Z_FILTER_SHUFFLE, 0}, {1, 0}, {8, 0}, 0}, 0},
	    {{0, {0, 0}, {0, 0}, {0, 0}, 0}, 0},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (h5inflate_kind(H5T_NATIVE_INT64, 1000, &cases[i].f) != cases[i].want)
			fail_msg("case %zu: not %d", i, cases[i].want);
	assert_int_equal(h5inflate_kind(H5T_NATIVE_INT32, 1000, &cases[0].f), 0);
	assert_int_equal(h5inflate_kind(H5T_STD_I64BE, 1000, &cases[0].f), 0);
	assert_int_equal(h5inflate_kind(H5T_NATIVE_UINT64, 1000, &cases[0].f), 0);
	assert_int_equal(h5inflate_kind(H5T_NATIVE_INT64, 0, &cases[0].f), 0);
}

/* Flip a byte of the chunk of dataset dset of path that starts at value
 * off: in its middle, or its last byte (the Adler-32 of the inflated
 * chunk) when last. */
static void damage_chunk(const char *path, const char *dset, hsize_t off, int last)
{
	hsize_t size = 0;
	haddr_t addr = 0;
	unsigned mask = 0;
	unsigned char b;
	hid_t fl, d;
	int fd;

	fl = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
	d = H5Dopen2(fl, dset, H5P_DEFAULT);
	assert_true(d >= 0);
	assert_true(H5Dget_chunk_info_by_coord(d, &off, &mask, &addr, &size) >= 0);
	H5Dclose(d);
	H5Fclose(fl);
	assert_true(size > 16);
	fd = open(path, O_RDWR);
	assert_true(fd >= 0);
	addr += last ? size - 1 : size / 2;
	assert_int_equal(pread(fd, &b, 1, (off_t)addr), 1);
	b ^= 0x5a;
	assert_int_equal(pwrite(fd, &b, 1, (off_t)addr), 1);
	close(fd);
}

/*
 * A damaged gzip chunk is refused as libhdf5 refused it (scopedb's own
 * inflate gives the chunk up and libhdf5 reads it, and says what it says),
 * also when the damage is in the stream's Adler-32 alone.
 */
static void test_inflate_damaged(void **state)
{
	enum { N = 5000 };
	static int64_t starts[N], ends[N];
	const char *path = tu_path("damaged-chunk.h5");
	int at;

	(void)state;
	for (at = 0; at < 2; at++) {
		struct chunk_ctx ctx = {starts, ends, 0, 0};
		struct h5prof *p = NULL;

		write_gzip_row(path, starts, ends, N, 1000);
		/* the second chunk of the durations */
		damage_chunk(path, "events/durations", 1000, at);
		h5prof_set_chunk_events(1000);
		assert_int_equal(h5prof_open(&p, path), 0);
		assert_int_equal(h5prof_read(p, chunk_row, &ctx), ERR_FORMAT);
		assert_non_null(strstr(err_msg(), "cannot read events [1000, 2000) of "
						  "'events/durations'; the file is truncated or "
						  "damaged"));
		h5prof_free(p);
	}
	h5prof_set_chunk_events(0);
}

/* ---- schema 1's rows read straight from the file (h5direct.c) ---- */

enum { DIRECT_ROWS = 4, DIRECT_N = 5003 };

/* The per-call values of row k of the direct-read profiles: every column
 * different, all eight bytes used. */
static int64_t direct_col[DIRECT_ROWS][7][DIRECT_N];

static void direct_fill(void)
{
	size_t k, c, i;

	for (k = 0; k < DIRECT_ROWS; k++)
		for (i = 0; i < DIRECT_N; i++) {
			int64_t s = ((int64_t)1 << 57) + (int64_t)(k * 7777777 + i * 1000003);

			direct_col[k][0][i] = s;
			direct_col[k][1][i] = s + (int64_t)((i * 0x9E3779B1u + k) % 100000007u);
			for (c = 2; c < 7; c++)
				direct_col[k][c][i] = (int64_t)(c * 1000000 + k * 10000 + i);
		}
}

/* Check each row against direct_col (rows in file order: rank, then
 * region name). */
static int direct_row(void *arg, const struct h5prof_row *row)
{
	size_t *k = arg, i;
	int64_t(*v)[DIRECT_N] = direct_col[*k];

	for (i = 0; i < row->calls; i++)
		if (row->starts[i] != v[0][i] || row->durations[i] != v[1][i] - v[0][i] ||
		    row->gpu[i] != v[2][i] || row->nest.call_ids[i] != v[3][i] ||
		    row->nest.parent_ids[i] != v[4][i] || row->nest.thread_ids[i] != v[5][i] ||
		    row->nest.task_ids[i] != v[6][i])
			return err_set(ERR_GENERIC, "row %zu call %zu differs", *k, i);
	if (row->calls != DIRECT_N)
		return err_set(ERR_GENERIC, "row %zu has %llu calls", *k,
			       (unsigned long long)row->calls);
	(*k)++;
	return 0;
}

/*
 * A schema-1 row is read with pread() at the places libhdf5 gave at open
 * when every dataset of it is contiguous, or in at most 256 chunks
 * unfiltered, deflate or shuffle + deflate, in a file without a user
 * block; any other row through libhdf5; the same values either way, every
 * optional column (GPU, ids, lanes) in its place.
 */
static void test_direct_rows(void **state)
{
	static const struct {
		unsigned filters;
		size_t chunk, userblock;
		int direct;
	} cases[] = {
	    {0, 0, 0, 1},
	    {H5WRITE_DEFLATE, 1000, 0, 1},
	    {H5WRITE_SHUFFLE | H5WRITE_DEFLATE, DIRECT_N, 0, 1},
	    {H5WRITE_SHUFFLE | H5WRITE_DEFLATE, 8000, 0, 1},
	    {H5WRITE_SHUFFLE | H5WRITE_DEFLATE, 7, 0, 0},
	    {H5WRITE_FLETCHER32 | H5WRITE_DEFLATE, 1000, 0, 0},
	    {H5WRITE_SHUFFLE, 1000, 0, 0},
	    {0, 0, 512, 0},
	    {H5WRITE_DEFLATE, 1000, 4096, 0},
	    {0, 1000, 0, 1},
	    /* 251 chunks, and 264: past the 256 a dataset may have */
	    {0, 20, 0, 1},
	    {0, 19, 0, 0},
	};
	static const char *regions[] = {"a", "b"};
	struct h5write_row rows[DIRECT_ROWS];
	const char *path = tu_path("direct.h5");
	size_t i, k;

	(void)state;
	direct_fill();
	for (k = 0; k < DIRECT_ROWS; k++) {
		int64_t(*v)[DIRECT_N] = direct_col[k];

		memset(&rows[k], 0, sizeof(rows[k]));
		rows[k].rank = (uint32_t)(k / 2);
		rows[k].region = regions[k % 2];
		rows[k].calls = DIRECT_N;
		rows[k].starts = v[0];
		rows[k].ends = v[1];
		rows[k].gpu = v[2];
		rows[k].call_ids = v[3];
		rows[k].parent_ids = v[4];
		rows[k].thread_ids = v[5];
		rows[k].task_ids = v[6];
		rows[k].source_line = -1;
	}
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct h5write_opts o = tu_h5_opts(1, 0);
		struct h5write_profile prof = {rows, DIRECT_ROWS, NULL, 0};
		struct h5prof *p = NULL;
		unsigned long before = h5prof_direct_rows();
		size_t seen = 0;

		o.gpu = o.ids = o.lanes = 1;
		o.filters = cases[i].filters;
		o.chunked = cases[i].chunk > 0 && !cases[i].filters;
		o.chunk = cases[i].chunk;
		o.userblock = cases[i].userblock;
		assert_int_equal(h5write_file(path, &prof, &o), 0);
		assert_int_equal(h5prof_open(&p, path), 0);
		if (h5prof_read(p, direct_row, &seen))
			fail_msg("case %zu: %s", i, err_msg());
		assert_int_equal(seen, DIRECT_ROWS);
		if ((h5prof_direct_rows() - before) != (cases[i].direct ? DIRECT_ROWS : 0))
			fail_msg("case %zu: %lu rows read directly", i,
				 h5prof_direct_rows() - before);
		h5prof_free(p);
	}
}

/* FNV-1a over a row's per-call values (those it has), and its rows. */
struct direct_sum {
	uint64_t h, rows, with_calls;
};

static void direct_mix(struct direct_sum *d, const int64_t *v, uint64_t n)
{
	uint64_t i;

	for (i = 0; v && i < n; i++) {
		uint64_t x = (uint64_t)v[i];
		int b;

		for (b = 0; b < 8; b++, x >>= 8)
			d->h = (d->h ^ (x & 0xff)) * 0x100000001b3ull;
	}
}

static int direct_sum_row(void *arg, const struct h5prof_row *row)
{
	struct direct_sum *d = arg;

	d->rows++;
	d->with_calls += row->calls > 0;
	d->h = (d->h ^ row->rank ^ ((uint64_t)row->region << 32)) * 0x100000001b3ull;
	direct_mix(d, row->starts, row->calls);
	direct_mix(d, row->durations, row->calls);
	direct_mix(d, row->gpu, row->calls);
	direct_mix(d, row->nest.call_ids, row->calls);
	direct_mix(d, row->nest.parent_ids, row->calls);
	direct_mix(d, row->nest.thread_ids, row->calls);
	direct_mix(d, row->nest.task_ids, row->calls);
	return 0;
}

/* The real scope-profiler's files (tests/data/real: schema 1, chunks of
 * 1,024 of datasets of unlimited length) read straight from the file,
 * every row, with the values libhdf5 reads. */
static void test_direct_real(void **state)
{
	static const char *files[] = {"real/fib-recursive.h5", "real/mpi2-base.h5",
				      "real/mpi2-slow.h5", "real/nested-base.h5",
				      "real/nested-slow.h5"};
	size_t f;

	(void)state;
	for (f = 0; f < sizeof(files) / sizeof(files[0]); f++) {
		struct direct_sum d[2];
		int on;

		for (on = 0; on < 2; on++) {
			struct h5prof *p = NULL;
			unsigned long before = h5prof_direct_rows();

			memset(&d[on], 0, sizeof(d[on]));
			d[on].h = 0xcbf29ce484222325ull;
			h5prof_set_direct_reads(on);
			assert_int_equal(h5prof_open(&p, tu_fixture(files[f])), 0);
			assert_int_equal(h5prof_read(p, direct_sum_row, &d[on]), 0);
			if (h5prof_direct_rows() - before != (on ? d[on].with_calls : 0))
				fail_msg("%s: %lu rows read directly with direct reads %s",
					 files[f], h5prof_direct_rows() - before,
					 on ? "on" : "off");
			h5prof_free(p);
		}
		h5prof_set_direct_reads(1);
		assert_true(d[0].rows > 0);
		assert_int_equal(d[0].rows, d[1].rows);
		if (d[0].h != d[1].h)
			fail_msg("%s: other values read directly", files[f]);
	}
}

/*
 * A damaged gzip chunk of a schema-1 row read directly is read again
 * through libhdf5, which refuses it as it always did; a damaged plain
 * dataset reads as its bytes, as libhdf5 reads it.
 */
static void test_direct_damaged(void **state)
{
	enum { N = 5000 };
	static int64_t starts[N], ends[N];
	const char *path = tu_path("direct-damaged.h5");
	struct h5write_opts o = tu_h5_opts(1, 0);
	struct chunk_ctx ctx = {starts, ends, 0, 0};
	struct h5prof *p = NULL;
	unsigned long before;

	(void)state;
	write_gzip_row(path, starts, ends, N, 1000); /* (for its values) */
	o.gzip = 1;
	o.chunk = 1000;
	write_row(path, starts, ends, N, &o);
	damage_chunk(path, "rank0/regions/solve/end_times", 1000, 0);
	before = h5prof_direct_rows();
	assert_int_equal(h5prof_open(&p, path), 0);
	assert_int_equal(h5prof_read(p, chunk_row, &ctx), ERR_FORMAT);
	assert_non_null(strstr(err_msg(), "cannot read dataset "
					  "'rank0/regions/solve/end_times'; the file is "
					  "truncated or damaged"));
	assert_int_equal(h5prof_direct_rows(), before);
	h5prof_free(p);
}

/* ---- the file libhdf5 reads is the file that was checked ---- */

static void test_same_file(void **state)
{
	const char *a = tu_path("same-a.h5"), *b = tu_path("same-b.h5");
	struct h5write_opts o = tu_h5_opts(3, 0);
	struct timespec ts[2];
	struct stat sa, sa2, sb;
	struct h5prof *p = NULL;
	char want[700], byte;
	int fd;

	(void)state;
	assert_string_equal(tu_h5_write_standard("same-a.h5", &o), a);
	assert_string_equal(tu_h5_write_standard("same-b.h5", &o), b);
	assert_int_equal(stat(a, &sa), 0);
	assert_int_equal(stat(b, &sb), 0);
	assert_true(h5prof_same_file(&sa, &sa));
	assert_false(h5prof_same_file(&sa, &sb));
	/* the right file, unchanged: opens */
	assert_int_equal(h5prof_open_stat(&p, a, &sa), 0);
	h5prof_free(p);
	p = NULL;
	/* a replaced file (another inode, same content and size) */
	snprintf(want, sizeof(want),
		 "cannot read '%s': the file changed while it was read; nothing stored", a);
	assert_int_equal(h5prof_open_stat(&p, a, &sb), ERR_IO);
	assert_string_equal(err_msg(), want);
	assert_null(p);
	/* the same inode rewritten in place, mtime put back: ctime differs */
	ts[0] = sa.st_atim;
	ts[1] = sa.st_mtim;
	fd = open(a, O_RDWR);
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, &byte, 1, 0), 1);
	assert_int_equal(pwrite(fd, &byte, 1, 0), 1);
	assert_int_equal(futimens(fd, ts), 0);
	close(fd);
	assert_int_equal(stat(a, &sa2), 0);
	assert_true(sa2.st_ino == sa.st_ino && sa2.st_mtim.tv_nsec == sa.st_mtim.tv_nsec);
	assert_false(h5prof_same_file(&sa, &sa2));
	assert_int_equal(h5prof_open_stat(&p, a, &sa), ERR_IO);
	assert_string_equal(err_msg(), want);
	/* h5prof_open_file: the real cause */
	snprintf(want, sizeof(want), "cannot read '%s': is a directory", tu_tmpdir());
	assert_int_equal(h5prof_open_file(tu_tmpdir(), &fd, &sa), ERR_IO);
	assert_string_equal(err_msg(), want);
	assert_int_equal(h5prof_open_file("/dev/null", &fd, &sa), ERR_IO);
	assert_string_equal(err_msg(), "cannot read '/dev/null': not a regular file");
}

TU_MAIN(setup, tu_store_teardown,
	{
	    cmocka_unit_test(test_outside_the_file),
	    cmocka_unit_test(test_no_plugin),
	    cmocka_unit_test(test_reset),
	    cmocka_unit_test(test_size_bombs),
	    cmocka_unit_test(test_soft_inside),
	    cmocka_unit_test(test_long_chunk_once),
	    cmocka_unit_test(test_inflate_filters),
	    cmocka_unit_test(test_inflate_kind),
	    cmocka_unit_test(test_inflate_damaged),
	    cmocka_unit_test(test_direct_rows),
	    cmocka_unit_test(test_direct_real),
	    cmocka_unit_test(test_direct_damaged),
	    cmocka_unit_test(test_same_file),
	})
