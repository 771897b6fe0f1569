/*
 * test_h5prof.c - the HDF5 reader and writer: the upstream fixtures read to
 * their documented values, round trips of every layout and storage variant
 * through h5write, the streaming writer, event-window boundaries, delivery
 * order, metadata, and every refusal of docs/format.md section 6.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hdf5.h>

#include "scopedb/err.h"
#include "scopedb/h5prof.h"
#include "h5write.h"
#include "testutil.h"
#include "testutil_h5.h"

/* Copy file src to dst: its first limit bytes (all when limit < 0). */
static void copy_file(const char *src, const char *dst, long limit)
{
	long len;
	unsigned char *b = tu_read_file(src, &len);

	tu_write_file(dst, b, (size_t)(limit >= 0 && limit < len ? limit : len));
	free(b);
}

/* Assert that opening (or else reading) path fails with code and a one-line
 * message naming the file and containing want. */
static void expect_refusal(const char *path, int code, const char *want)
{
	struct tu_h5_loaded l;
	char prefix[600];
	int rc;

	err_clear();
	rc = tu_h5_load(&l, path);
	if (getenv("SCOPEDB_SHOW_ERRORS"))
		printf("  [%d] %s\n", rc, err_msg());
	if (rc == 0)
		fail_msg("'%s' was accepted (expected: %s)", path, want);
	if (rc != code || !strstr(err_msg(), want))
		fail_msg("'%s': got code %d message \"%s\", expected code %d with \"%s\"", path, rc,
			 err_msg(), code, want);
	snprintf(prefix, sizeof(prefix), "cannot read '%s': ", path);
	assert_true(strncmp(err_msg(), prefix, strlen(prefix)) == 0);
	assert_null(strchr(err_msg(), '\n'));
	assert_int_equal(err_code(), code);
}

/* Assert that open succeeds and h5prof_read fails (errors in the events). */
static void expect_read_refusal(const char *path, const char *want)
{
	struct h5prof *p = NULL;

	assert_int_equal(h5prof_open(&p, path), 0);
	h5prof_free(p);
	expect_refusal(path, ERR_FORMAT, want);
}

/* ---- fixtures ---- */

static void check_fixture(const char *name, int schema)
{
	struct tu_h5_loaded l;
	struct h5prof *p = NULL;
	const struct tu_h5_row *r;
	const struct h5prof_info *info;
	const int64_t starts[] = {10, 20, 40}, durs[] = {5, 13, 15};
	int i;

	assert_int_equal(tu_h5_load(&l, tu_fixture(name)), 0);
	assert_int_equal(l.schema, schema);
	assert_int_equal(l.layout, schema == 1 ? H5PROF_HIERARCHICAL : H5PROF_COLUMNAR);
	assert_int_equal(l.num_ranks, 1);
	assert_int_equal(l.num_regions, 1);
	assert_string_equal(l.names[0], "solve");
	assert_int_equal(l.nrows, 1);
	assert_int_equal(l.num_events, 3);
	r = &l.rows[0];
	assert_int_equal(r->rank, 0);
	assert_string_equal(r->region, "solve");
	assert_int_equal(r->calls, 3);
	assert_int_equal(r->has_events, 1);
	for (i = 0; i < 3; i++) {
		assert_int_equal(r->starts[i], starts[i]);
		assert_int_equal(r->durations[i], durs[i]);
	}
	assert_null(r->gpu);
	assert_int_equal(r->source_line, 7);
	assert_string_equal(r->source_file, "solver.py");
	assert_string_equal(r->source_text, "");
	assert_string_equal(r->tags_json, "[\"golden\"]");
	assert_int_equal(r->exclusive, -1);
	tu_h5_loaded_free(&l);

	assert_int_equal(h5prof_open(&p, tu_fixture(name)), 0);
	info = h5prof_info(p);
	assert_string_equal(info->path, tu_fixture(name));
	assert_int_equal(info->num_meta, 1);
	assert_string_equal(info->meta[0].key, "mpi_size");
	assert_string_equal(info->meta[0].value, "1");
	assert_int_equal(info->meta[0].is_array, 0);
	assert_string_equal(h5prof_meta_get(p, "mpi_size"), "1");
	assert_null(h5prof_meta_get(p, "label"));
	h5prof_free(p);
}

static void test_fixtures(void **state)
{
	(void)state;
	check_fixture("schema-1.h5", 1);
	check_fixture("schema-2.h5", 2);
	check_fixture("schema-3.h5", 3);
	assert_string_equal(h5prof_layout_name(H5PROF_HIERARCHICAL), "hierarchical");
	assert_string_equal(h5prof_layout_name(H5PROF_COLUMNAR), "columnar");
	assert_string_equal(h5prof_layout_name(H5PROF_AGGREGATE), "aggregate");
}

/* ---- round trips ---- */

/* Write the standard profile with one combination of options and check
 * that it reads back exactly. */
static void roundtrip_one(int schema, int aggregate, int storage, int fixed, int gpu)
{
	struct h5write_opts o = tu_h5_opts(schema, aggregate);
	struct tu_h5_loaded l;
	const char *path;
	char name[64];

	o.chunked = storage == 1;
	o.gzip = storage == 2;
	o.fixed_strings = fixed;
	o.gpu = gpu;
	o.summary = !gpu;
	snprintf(name, sizeof(name), "rt-%d%d-%d%d%d.h5", schema, aggregate, storage, fixed, gpu);
	path = tu_h5_write_standard(name, &o);
	if (tu_h5_load(&l, path))
		fail_msg("%s: %s", name, err_msg());
	tu_h5_check(&l, tu_h5_standard(), &o);
	/* schema 1: 4 rank groups, which skip ranks 3-9: rank 10 + 1, as
	 * columnar: max(mpi_size 4, rank 10 + 1) (issue 24) */
	assert_int_equal(l.num_ranks, 11);
	tu_h5_loaded_free(&l);
}

/* Every layout x {contiguous, chunked, gzip} x {vlen, fixed strings}; the
 * GPU column (else summary_statistics) alternates between variants. */
static void test_roundtrip_all_layouts(void **state)
{
	static const struct {
		int schema, aggregate;
	} layouts[] = {{1, 0}, {2, 0}, {3, 0}, {2, 1}, {3, 1}};
	int li, storage, fixed;

	(void)state;
	for (li = 0; li < 5; li++)
		for (storage = 0; storage < 3; storage++)
			for (fixed = 0; fixed < 2; fixed++)
				roundtrip_one(layouts[li].schema, layouts[li].aggregate, storage,
					      fixed, (li + storage + fixed) % 2);
}

/* Write the standard profile as name with o, load it into l and check its
 * region names: the NULL-ended names, in order. */
static void load_names(struct tu_h5_loaded *l, const char *name, const struct h5write_opts *o,
		       const char *const *names)
{
	size_t n;

	assert_int_equal(tu_h5_load(l, tu_h5_write_standard(name, o)), 0);
	for (n = 0; names[n]; n++)
		;
	assert_int_equal(l->num_regions, n);
	for (n = 0; names[n]; n++)
		assert_string_equal(l->names[n], names[n]);
}

static void test_order_and_names(void **state)
{
	struct h5write_opts o = tu_h5_opts(1, 0);
	struct tu_h5_loaded l;
	size_t i;

	(void)state;
	/* schema 1: region ids in order of first appearance, ranks in numeric
	 * order and regions by name within a rank */
	load_names(&l, "order1.h5", &o, (const char *[]){"größe_λ", "io", "solve", NULL});
	tu_h5_loaded_free(&l);

	/* columnar: names in order of first appearance, rows in offset order
	 * (= written order, zero-call rows in place) */
	o = tu_h5_opts(3, 0);
	load_names(&l, "order3.h5", &o, (const char *[]){"solve", "größe_λ", "io", "idle", NULL});
	assert_int_equal(l.nrows, tu_h5_standard()->nrows);
	for (i = 0; i < l.nrows; i++) {
		assert_int_equal(l.rows[i].rank, tu_h5_standard()->rows[i].rank);
		assert_string_equal(l.rows[i].region, tu_h5_standard()->rows[i].region);
	}
	tu_h5_loaded_free(&l);
}

static void test_schema1_rank_sequence(void **state)
{
	struct h5write_opts o = tu_h5_opts(1, 0);
	struct tu_h5_loaded l;
	static const unsigned ranks[] = {0, 0, 0, 1, 1, 1, 2, 2, 10, 10, 10};
	static const char *const regs[] = {"größe_λ", "io",    "solve",	  "größe_λ",
					   "io",      "solve", "größe_λ", "solve",
					   "größe_λ", "io",    "solve"};
	size_t i;

	(void)state;
	assert_int_equal(tu_h5_load(&l, tu_h5_write_standard("seq1.h5", &o)), 0);
	/* rank 0: größe_λ io solve; 1: the same; 2: größe_λ solve; 10: the same
	 * as 0 (rank10 after rank2) */
	assert_int_equal(l.nrows, 11);
	for (i = 0; i < l.nrows; i++) {
		assert_int_equal(l.rows[i].rank, ranks[i]);
		assert_string_equal(l.rows[i].region, regs[i]);
	}
	tu_h5_loaded_free(&l);
}

static void test_metadata(void **state)
{
	struct h5write_opts o = tu_h5_opts(3, 0);
	const struct h5prof_info *info;
	struct h5prof *p = NULL;
	const char *path = tu_h5_write_standard("meta.h5", &o);
	hid_t f, g, s, a;
	double pi = 3.25;

	(void)state;
	/* add a float attribute with plain HDF5 */
	f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
	assert_true(f >= 0);
	g = H5Gopen2(f, "metadata", H5P_DEFAULT);
	s = H5Screate(H5S_SCALAR);
	a = H5Acreate2(g, "ratio", H5T_IEEE_F64LE, s, H5P_DEFAULT, H5P_DEFAULT);
	assert_true(a >= 0);
	assert_true(H5Awrite(a, H5T_NATIVE_DOUBLE, &pi) >= 0);
	H5Aclose(a);
	H5Sclose(s);
	H5Gclose(g);
	H5Fclose(f);

	assert_int_equal(h5prof_open(&p, path), 0);
	info = h5prof_info(p);
	assert_int_equal(info->num_meta, 5);
	assert_string_equal(info->meta[0].key, "label");
	assert_string_equal(info->meta[0].value, "baseline run");
	assert_string_equal(info->meta[1].key, "modules");
	assert_string_equal(info->meta[1].value, "[\"gcc/13\",\"openmpi/5\"]");
	assert_int_equal(info->meta[1].is_array, 1);
	assert_string_equal(info->meta[2].key, "mpi_size");
	assert_string_equal(info->meta[2].value, "4");
	assert_string_equal(info->meta[3].key, "omp_num_threads");
	assert_string_equal(info->meta[3].value, "8");
	assert_int_equal(info->meta[3].is_array, 0);
	assert_string_equal(info->meta[4].key, "ratio");
	assert_string_equal(info->meta[4].value, "3.25");
	assert_string_equal(h5prof_meta_get(p, "omp_num_threads"), "8");
	h5prof_free(p);

	/* fixed-length strings in metadata */
	o.fixed_strings = 1;
	path = tu_h5_write_standard("meta-fixed.h5", &o);
	assert_int_equal(h5prof_open(&p, path), 0);
	assert_string_equal(h5prof_meta_get(p, "label"), "baseline run");
	assert_string_equal(h5prof_meta_get(p, "modules"), "[\"gcc/13\",\"openmpi/5\"]");
	h5prof_free(p);
}

/* Rows given out of event-offset order, with gaps holding garbage. */
static void test_columnar_offsets_out_of_order(void **state)
{
	/* rows: 0 = (0, solve) [10, 12); 1 = (0, io) [0, 3); 2 = (1, solve) [5, 6) */
	const uint64_t offsets[] = {10, 0, 5}, counts[] = {2, 3, 1};
	const uint32_t ranks[] = {0, 0, 1}, regions[] = {0, 1, 0};
	const int64_t deltas[] = {100, 5, 5, -1, -1, 50, -7, -7, -7, -7, 200, 10, -1};
	const int64_t durs[] = {1, 2, 3, -9, -9, 4, -9, -9, -9, -9, 6, 7, -9};
	const int64_t lines[] = {1, 2, 3};
	const int64_t excl[] = {11, 22, 33};
	const char *const files[] = {"a.py", "b.py", "c.py"};
	const char *const tags[] = {"", "[ \"x\" , \"y\" ]", "[]"};
	const struct {
		const char *dataset;
		enum h5write_type type;
		const void *values;
		size_t n;
	} repl[] = {
	    {"/rank_region_index/event_offsets", H5WRITE_U64, offsets, 3},
	    {"/rank_region_index/event_counts", H5WRITE_U64, counts, 3},
	    {"/rank_region_index/ranks", H5WRITE_U32, ranks, 3},
	    {"/rank_region_index/region_ids", H5WRITE_U32, regions, 3},
	    {"/rank_region_index/source_lines", H5WRITE_I64, lines, 3},
	    {"/rank_region_index/exclusive_totals", H5WRITE_I64, excl, 3},
	    {"/rank_region_index/source_files", H5WRITE_STR, files, 3},
	    {"/rank_region_index/source_texts", H5WRITE_STR, files, 3},
	    {"/rank_region_index/tags", H5WRITE_STR, tags, 3},
	    {"/events/start_deltas", H5WRITE_I64, deltas, 13},
	    {"/events/durations", H5WRITE_I64, durs, 13},
	};
	struct h5write_opts o = tu_h5_opts(3, 0);
	struct tu_h5_loaded l;
	const char *path;
	size_t i;

	(void)state;
	path = tu_h5_write_standard("gaps.h5", &o);
	assert_int_equal(h5write_delete(path, "/rank_region_index/summary_statistics"), 0);
	for (i = 0; i < sizeof(repl) / sizeof(repl[0]); i++)
		assert_int_equal(h5write_replace_dataset(path, repl[i].dataset, repl[i].type,
							 repl[i].values, repl[i].n),
				 0);
	assert_int_equal(h5write_delete(path, "/events/gpu_durations"), 0);

	h5prof_set_chunk_events(4);
	assert_int_equal(tu_h5_load(&l, path), 0);
	h5prof_set_chunk_events(0);
	assert_int_equal(l.nrows, 3);
	assert_int_equal(l.num_events, 6);
	/* delivered in offset order: row 1, row 2, row 0 */
	assert_int_equal(l.rows[0].rank, 0);
	assert_string_equal(l.rows[0].region, "größe_λ");
	assert_int_equal(l.rows[0].calls, 3);
	assert_int_equal(l.rows[0].starts[0], 100);
	assert_int_equal(l.rows[0].starts[1], 105);
	assert_int_equal(l.rows[0].starts[2], 110);
	assert_int_equal(l.rows[0].durations[0], 1);
	assert_int_equal(l.rows[0].durations[2], 3);
	assert_int_equal(l.rows[0].source_line, 2);
	assert_int_equal(l.rows[0].exclusive, 22);
	assert_string_equal(l.rows[0].source_file, "b.py");
	assert_string_equal(l.rows[0].source_text, "b.py");
	assert_string_equal(l.rows[0].tags_json, "[\"x\",\"y\"]");
	assert_int_equal(l.rows[1].rank, 1);
	assert_string_equal(l.rows[1].region, "solve");
	assert_int_equal(l.rows[1].starts[0], 50);
	assert_int_equal(l.rows[1].durations[0], 4);
	assert_string_equal(l.rows[1].tags_json, "[]");
	assert_int_equal(l.rows[2].rank, 0);
	assert_string_equal(l.rows[2].region, "solve");
	assert_int_equal(l.rows[2].starts[0], 200);
	assert_int_equal(l.rows[2].starts[1], 210);
	assert_int_equal(l.rows[2].durations[1], 7);
	assert_string_equal(l.rows[2].tags_json, "[]");
	assert_null(l.rows[2].gpu);
	tu_h5_loaded_free(&l);
}

/*
 * A profile with a row much larger than the window and rows straddling
 * window boundaries reads the same with any window size, whole and in
 * pieces (h5prof_set_piece_min()), in every layout with events, plain and
 * gzip: with the least at 10, rank 0's rows (100 + 5 calls) come in pieces
 * of the window (1 to 64 values) or of a compressed chunk (80 values,
 * longer than a window of 1 can widen to: read through a one-chunk
 * cache), rank 1's (3 calls) whole.
 */
static void test_chunk_boundaries(void **state)
{
	const struct h5write_profile *prof = tu_h5_long_rows();
	size_t i, chunks[] = {1, 2, 3, 4, 7, 64, 0};
	int gz, schema;

	(void)state;
	for (gz = 0; gz < 2; gz++) {
		for (schema = 1; schema <= 3; schema++) {
			struct h5write_opts o = tu_h5_opts(schema, 0);
			const char *path = tu_path("chunks.h5");

			o.gzip = gz;
			o.chunk = gz ? 80 : 0;
			o.gpu = 1;
			assert_int_equal(h5write_file(path, prof, &o), 0);
			for (i = 0; i < sizeof(chunks) / sizeof(chunks[0]); i++) {
				struct tu_h5_loaded l;

				h5prof_set_chunk_events(chunks[i]);
				assert_int_equal(tu_h5_load(&l, path), 0);
				tu_h5_check(&l, prof, &o);
				/* (schema 1: the rank groups, not mpi_size) */
				assert_int_equal(l.num_ranks, schema == 1 ? 2 : 4);
				assert_int_equal(l.npieces, 0);
				tu_h5_loaded_free(&l);
				assert_int_equal(tu_h5_load_pieces(&l, path, 10), 0);
				tu_h5_check(&l, prof, &o);
				/* both rows of rank 0 in pieces: two at the least */
				assert_true(l.npieces >= 2);
				if (chunks[i] == 1 && !gz)
					assert_int_equal(l.npieces, 105);
				tu_h5_loaded_free(&l);
			}
		}
	}
	h5prof_set_chunk_events(0);
}

/*
 * Rows with unclaimed events between them (the index may leave gaps) read
 * the same with any window: of the ring of prefetched windows (four of a
 * window's length, two when a window widens to a gzip chunk), a row takes
 * the one it starts in, those before it passed over (windows of 2), or,
 * starting past them all, has the ring dropped and its window loaded
 * (windows of 1).  The long rows' profile with its rows cut to 2, 50 and
 * 1 calls (gaps of 3, 50 and 2 events), plain and gzip (chunks of 80),
 * schemas 2 and 3.
 */
static void test_window_gaps(void **state)
{
	const struct h5write_profile *prof = tu_h5_long_rows();
	static const uint64_t counts[] = {2, 50, 1, 0};
	struct h5write_row rows[4];
	struct h5write_profile cut = *prof;
	size_t i, windows[] = {1, 2, 3, 4, 7, 64};
	int gz, schema;

	(void)state;
	for (i = 0; i < 4; i++) {
		rows[i] = prof->rows[i];
		rows[i].calls = counts[i];
	}
	cut.rows = rows;
	for (gz = 0; gz < 2; gz++) {
		for (schema = 2; schema <= 3; schema++) {
			struct h5write_opts o = tu_h5_opts(schema, 0);
			struct tu_h5_damage d = {NULL, "/rank_region_index/event_counts",
						 H5WRITE_U64, counts, 4};
			const char *path = tu_path("gaps.h5");

			o.gzip = gz;
			o.chunk = gz ? 80 : 0;
			o.gpu = 1;
			assert_int_equal(h5write_file(path, prof, &o), 0);
			tu_h5_damage(path, &d);
			for (i = 0; i < sizeof(windows) / sizeof(windows[0]); i++) {
				struct tu_h5_loaded l;

				h5prof_set_chunk_events(windows[i]);
				assert_int_equal(tu_h5_load(&l, path), 0);
				tu_h5_check(&l, &cut, &o);
				tu_h5_loaded_free(&l);
				assert_int_equal(tu_h5_load_pieces(&l, path, 10), 0);
				tu_h5_check(&l, &cut, &o);
				assert_true(l.npieces >= 1);
				tu_h5_loaded_free(&l);
			}
		}
	}
	h5prof_set_chunk_events(0);
}

static void test_stream_writer(void **state)
{
	const struct h5write_profile *std = tu_h5_standard();
	const char *names[] = {"solve", "größe_λ", "io", "idle"};
	struct h5write_meta meta = {.key = "label", .kind = H5WRITE_META_STR, .str = "streamed"};
	int schema, gz;

	(void)state;
	for (schema = 2; schema <= 3; schema++) {
		for (gz = 0; gz < 2; gz++) {
			struct h5write_opts o = tu_h5_opts(schema, 0);
			struct h5write_stream *s = NULL;
			struct tu_h5_loaded l;
			struct h5prof *p = NULL;
			const char *path = tu_path("stream.h5");
			size_t i;

			o.gzip = gz;
			o.gpu = 1;
			o.summary = 1;
			o.fixed_strings = gz;
			assert_int_equal(h5write_stream_open(&s, path, names, 4, &o), 0);
			assert_int_equal(h5write_stream_meta(s, &meta, 1), 0);
			for (i = 0; i < std->nrows; i++)
				assert_int_equal(h5write_stream_row(s, &std->rows[i]), 0);
			assert_int_equal(h5write_stream_close(s), 0);
			assert_int_equal(tu_h5_load(&l, path), 0);
			tu_h5_check(&l, std, &o);
			tu_h5_loaded_free(&l);
			assert_int_equal(h5prof_open(&p, path), 0);
			assert_string_equal(h5prof_meta_get(p, "label"), "streamed");
			assert_string_equal(h5prof_meta_get(p, "mpi_size"), "4");
			h5prof_free(p);
		}
	}
}

/* A decimal mpi_size past 2^32 - 1 is refused, also past 2^63 (which
 * strtoll cannot hold: it was taken for no number and ignored); one that
 * is no number is ignored (docs/format.md section 6.2, item 9). */
static void test_mpi_size_range(void **state)
{
	static const struct {
		const char *v;
		int refused;
	} cases[] = {{"4294967296", 1},
		     {"99999999999999999999", 1},
		     {"4294967295", 0},
		     {"eight", 0},
		     {"-99999999999999999999", 0}};
	const struct h5write_profile *std = tu_h5_standard();
	const char *names[] = {"solve", "größe_λ", "io", "idle"};
	size_t c, i;

	(void)state;
	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		struct h5write_meta meta = {.key = "mpi_size", .kind = H5WRITE_META_STR};
		struct h5write_opts o = tu_h5_opts(3, 0);
		struct h5write_stream *s = NULL;
		struct h5prof *p = NULL;
		const char *path = tu_path("mpisize.h5");
		int rc;

		meta.str = cases[c].v;
		o.mpi_size = 0; /* the meta's, not the writer's own */
		assert_int_equal(h5write_stream_open(&s, path, names, 4, &o), 0);
		assert_int_equal(h5write_stream_meta(s, &meta, 1), 0);
		for (i = 0; i < std->nrows; i++)
			assert_int_equal(h5write_stream_row(s, &std->rows[i]), 0);
		assert_int_equal(h5write_stream_close(s), 0);
		rc = h5prof_open(&p, path);
		if (cases[c].refused) {
			assert_int_equal(rc, ERR_FORMAT);
			assert_non_null(strstr(err_msg(), "out of range"));
			assert_non_null(strstr(err_msg(), cases[c].v));
		} else {
			assert_int_equal(rc, 0);
		}
		h5prof_free(p);
	}
}

/* Undeclared region and schema-1 streams are refused. */
static void test_stream_errors(void **state)
{
	struct h5write_opts o = tu_h5_opts(3, 0);
	struct h5write_stream *s = NULL;
	const char *names[] = {"a", "b"}, *dup[] = {"a", "a"};
	const struct h5write_row *r = &tu_h5_standard()->rows[0];

	(void)state;
	assert_int_equal(h5write_stream_open(&s, tu_path("s.h5"), dup, 2, &o), ERR_USAGE);
	assert_int_equal(h5write_stream_open(&s, tu_path("s.h5"), names, 2, &o), 0);
	assert_int_equal(h5write_stream_row(s, r), ERR_USAGE);
	assert_non_null(strstr(err_msg(), "'solve' was not declared"));
	assert_int_equal(h5write_stream_row(s, r), ERR_USAGE);
	assert_int_equal(h5write_stream_close(s), ERR_USAGE);
	o.schema = 1;
	assert_int_equal(h5write_stream_open(&s, tu_path("s.h5"), names, 2, &o), ERR_USAGE);
	o = tu_h5_opts(3, 1);
	assert_int_equal(h5write_stream_open(&s, tu_path("s.h5"), names, 2, &o), ERR_USAGE);
	o = tu_h5_opts(4, 0);
	assert_int_equal(h5write_file(tu_path("s.h5"), tu_h5_standard(), &o), ERR_USAGE);
	o = tu_h5_opts(1, 1);
	assert_int_equal(h5write_file(tu_path("s.h5"), tu_h5_standard(), &o), ERR_USAGE);
	o = tu_h5_opts(3, 0);
	assert_int_equal(h5write_file("/nonexistent-dir/x.h5", tu_h5_standard(), &o), ERR_IO);
	assert_non_null(strstr(err_msg(), "cannot write '/nonexistent-dir/x.h5'"));
}

/* A stream whose events pass the writer's internal buffer (1 << 18) keeps
 * delta encoding continuous across the flush. */
static void test_stream_large_row(void **state)
{
	const size_t n = ((size_t)1 << 18) + 10;
	int64_t *st = malloc(n * sizeof(*st)), *en = malloc(n * sizeof(*en));
	struct h5write_opts o = tu_h5_opts(3, 0);
	struct h5write_stream *s = NULL;
	struct h5write_row r;
	const char *names[] = {"r"};
	struct tu_h5_loaded l;
	size_t i;

	(void)state;
	assert_non_null(st);
	assert_non_null(en);
	for (i = 0; i < n; i++) {
		st[i] = (int64_t)(i * 3);
		en[i] = st[i] + (int64_t)(i % 7);
	}
	memset(&r, 0, sizeof(r));
	r.region = "r";
	r.starts = st;
	r.ends = en;
	r.source_line = -1;
	r.calls = 5;
	assert_int_equal(h5write_stream_open(&s, tu_path("big.h5"), names, 1, &o), 0);
	assert_int_equal(h5write_stream_row(s, &r), 0);
	r.rank = 1;
	r.calls = n;
	assert_int_equal(h5write_stream_row(s, &r), 0);
	assert_int_equal(h5write_stream_close(s), 0);
	assert_int_equal(tu_h5_load(&l, tu_path("big.h5")), 0);
	assert_int_equal(l.nrows, 2);
	assert_int_equal(l.rows[1].calls, n);
	for (i = 0; i < n; i++) {
		if (l.rows[1].starts[i] != st[i] || l.rows[1].durations[i] != (int64_t)(i % 7))
			fail_msg("call %zu differs", i);
	}
	tu_h5_loaded_free(&l);
	free(st);
	free(en);
}

struct stopctx {
	int seen;
};

static int stop_at_second(void *ctx, const struct h5prof_row *row)
{
	struct stopctx *c = ctx;

	(void)row;
	if (++c->seen == 2)
		return 42;
	return 0;
}

static void test_callback_stop_and_reread(void **state)
{
	struct h5write_opts o = tu_h5_opts(3, 0);
	const char *path = tu_h5_write_standard("stop.h5", &o);
	struct h5prof *p = NULL;
	struct stopctx c = {0};

	(void)state;
	assert_int_equal(h5prof_open(&p, path), 0);
	assert_int_equal(h5prof_read(p, stop_at_second, &c), 42);
	assert_int_equal(c.seen, 2);
	c.seen = 0;
	assert_int_equal(h5prof_read(p, stop_at_second, &c), 42);
	assert_int_equal(c.seen, 2);
	/* the same file opened twice at once (HDF5 shares the file object) */
	{
		struct h5prof *q = NULL;

		assert_int_equal(h5prof_open(&q, path), 0);
		c.seen = 0;
		assert_int_equal(h5prof_read(q, stop_at_second, &c), 42);
		h5prof_free(q);
		c.seen = 0;
		assert_int_equal(h5prof_read(p, stop_at_second, &c), 42);
	}
	h5prof_free(p);
	h5prof_free(NULL);
	assert_int_equal(tu_h5_live_ids(), 0);
}

static void test_empty_profile(void **state)
{
	struct h5write_profile prof = {NULL, 0, NULL, 0};
	int schema;

	(void)state;
	for (schema = 1; schema <= 3; schema++) {
		struct h5write_opts o = tu_h5_opts(schema, 0);
		struct tu_h5_loaded l;
		int chunked;

		for (chunked = 0; chunked < 2; chunked++) {
			o.chunked = chunked;
			o.fixed_strings = chunked;
			assert_int_equal(h5write_file(tu_path("empty.h5"), &prof, &o), 0);
			assert_int_equal(tu_h5_load(&l, tu_path("empty.h5")), 0);
			assert_int_equal(l.nrows, 0);
			assert_int_equal(l.num_ranks, 0);
			assert_int_equal(l.num_regions, 0);
			tu_h5_loaded_free(&l);
		}
	}
}

/* ---- refusals ---- */

static void test_refuse_not_hdf5(void **state)
{
	static const char text[] =
	    "this is not\nan HDF5 file at all, just some text that is long enough\n";
	const char *path;
	long size, cuts[6];
	size_t i;

	(void)state;
	expect_refusal(tu_path("missing.h5"), ERR_IO, "no such file");
	expect_refusal(tu_tmpdir(), ERR_IO, "is a directory");
	path = tu_path("empty-file.h5");
	tu_write_file(path, NULL, 0);
	expect_refusal(path, ERR_FORMAT, "not an HDF5 file");
	path = tu_path("text.h5");
	tu_write_file(path, text, strlen(text));
	expect_refusal(path, ERR_FORMAT, "not an HDF5 file");

	/* truncated copies of a valid file */
	size = tu_file_size(tu_fixture("schema-3.h5"));
	cuts[0] = 4;
	cuts[1] = 9;
	cuts[2] = 100;
	cuts[3] = size / 3;
	cuts[4] = size / 2;
	cuts[5] = size - 1;
	for (i = 0; i < 6; i++) {
		path = tu_path("trunc.h5");
		copy_file(tu_fixture("schema-3.h5"), path, cuts[i]);
		assert_int_equal(tu_file_size(path), cuts[i]);
		expect_refusal(path, ERR_FORMAT, i < 1 ? "not an HDF5 file" : "");
		if (i >= 2)
			assert_non_null(strstr(err_msg(), "truncated or damaged"));
	}
}

static void test_refuse_schema_attr(void **state)
{
	struct h5write_opts o = tu_h5_opts(3, 0);
	const char *path;

	(void)state;
	path = tu_h5_write_standard("schema.h5", &o);
	assert_int_equal(h5write_set_root_attr_i64(path, "scope_profiler_schema", 4), 0);
	expect_refusal(path, ERR_FORMAT,
		       "unsupported scope-profiler schema version 4; supported: 1-3");
	assert_int_equal(h5write_set_root_attr_i64(path, "scope_profiler_schema", 0), 0);
	expect_refusal(path, ERR_FORMAT,
		       "unsupported scope-profiler schema version 0; supported: 1-3");
	assert_int_equal(h5write_set_root_attr_i64(path, "scope_profiler_schema", -3), 0);
	expect_refusal(path, ERR_FORMAT, "schema version -3");
	assert_int_equal(h5write_set_root_attr_str(path, "scope_profiler_schema", "3"), 0);
	expect_refusal(path, ERR_FORMAT, "scope_profiler_schema is not an integer");
	assert_int_equal(h5write_set_root_attr_f64(path, "scope_profiler_schema", 3.0), 0);
	expect_refusal(path, ERR_FORMAT, "scope_profiler_schema is not an integer");
	assert_int_equal(h5write_set_root_attr_i64(path, "scope_profiler_schema", 3), 0);
	assert_int_equal(h5write_set_root_attr_str(path, "storage_layout", "rowwise"), 0);
	expect_refusal(path, ERR_FORMAT, "unsupported storage_layout 'rowwise'");
	assert_int_equal(h5write_set_root_attr_f64(path, "storage_layout", 1.0), 0);
	expect_refusal(path, ERR_FORMAT, "has type float, expected string");
	/* absent storage_layout means columnar */
	assert_int_equal(h5write_delete(path, "@storage_layout"), 0);
	{
		struct tu_h5_loaded l;

		assert_int_equal(tu_h5_load(&l, path), 0);
		assert_int_equal(l.layout, H5PROF_COLUMNAR);
		tu_h5_loaded_free(&l);
	}
	/* absent schema means 1: a columnar file then has no rank groups */
	assert_int_equal(h5write_delete(path, "@scope_profiler_schema"), 0);
	{
		struct tu_h5_loaded l;

		assert_int_equal(tu_h5_load(&l, path), 0);
		assert_int_equal(l.schema, 1);
		assert_int_equal(l.nrows, 0);
		tu_h5_loaded_free(&l);
	}
}

/* A fresh valid file of the standard profile (with GPU column) to damage:
 * a copy of a template written once per layout. */
static const char *fresh(int schema, int aggregate)
{
	static int written[4][2];
	char tname[64];
	const char *path = tu_path("damaged.h5");

	snprintf(tname, sizeof(tname), "template-%d%d.h5", schema, aggregate);
	if (!written[schema][aggregate]) {
		struct h5write_opts o = tu_h5_opts(schema, aggregate);

		o.gpu = 1;
		tu_h5_write_standard(tname, &o);
		written[schema][aggregate] = 1;
	}
	copy_file(tu_path(tname), path, -1);
	return path;
}

/* One damaged copy of the standard profile and how the reader refuses it. */
struct refusal {
	int schema, aggregate;
	const char *want;	   /* in the ERR_FORMAT message */
	const char *del, *dataset; /* the damage, as struct tu_h5_damage */
	enum h5write_type type;
	const void *data;
	size_t n;
	int on_read;	  /* open accepts the file, the read refuses it */
	const char *also; /* a second part of the message, or NULL */
};

/* Damage a fresh file as each of t[0..n) says; each must be refused. */
static void expect_refusals(const struct refusal *t, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		struct tu_h5_damage d = {t[i].del, t[i].dataset, t[i].type, t[i].data, t[i].n};
		const char *path = fresh(t[i].schema, t[i].aggregate);

		tu_h5_damage(path, &d);
		if (t[i].on_read)
			expect_read_refusal(path, t[i].want);
		else
			expect_refusal(path, ERR_FORMAT, t[i].want);
		if (t[i].also)
			assert_non_null(strstr(err_msg(), t[i].also));
	}
}

#define NREFUSALS(t) (sizeof(t) / sizeof((t)[0]))

static void test_refuse_index_damage(void **state)
{
	const uint32_t big_region[] = {0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 0, 9, 1};
	const uint32_t dup_ranks[] = {0, 0, 0, 0, 0, 1, 1, 1, 2, 2, 10, 10, 10};
	const int64_t neg_ranks[] = {0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 10, -1, 10};
	const double fl[] = {0, 1, 2};
	const int64_t i3[] = {1, 2, 3};
	const char *bad_tags[] = {"[\"golden\"]",
				  "[\"a\",\"b \\\"q\\\"\\n\"]",
				  "",
				  "[\"x\"]",
				  "[\"golden\"]",
				  "[\"a\",\"b\"]",
				  "[1]",
				  "[\"x\"]",
				  "[\"golden\"]",
				  "[]",
				  "[]",
				  "[]",
				  "[]"};
	uint64_t past_end[13], overflow[13], overlap[13], off = 0;
	int64_t mins[13];
	size_t i;

	(void)state;
	/* the standard profile's offsets and counts as written, each damaged
	 * in one place */
	for (i = 0; i < 13; i++) {
		uint64_t count = tu_h5_standard()->rows[i].calls;

		/* last row: [26, 35) but only 34 events */
		past_end[i] = i == 12 ? 9 : count;
		overflow[i] = i == 4 ? UINT64_MAX - 1 : off;
		overlap[i] = off;
		off += count;
		mins[i] = i == 2 ? -4 : 0;
	}
	overlap[5] = overlap[4] + 1; /* inside row 4's slice */
	{
		const struct refusal t[] = {
		    {3, 0, "index columns have different lengths",
		     .dataset = "/rank_region_index/ranks", .type = H5WRITE_U32, .data = dup_ranks,
		     .n = 12},
		    {3, 0, "row 11 refers to region 9 but 'region_table/names' holds 4 names",
		     .dataset = "/rank_region_index/region_ids", .type = H5WRITE_U32,
		     .data = big_region, .n = 13},
		    {3, 0,
		     "row 12 (rank 10, region 'größe_λ') claims events [26, 35) but the "
		     "event columns hold 34; the file is truncated or damaged",
		     .dataset = "/rank_region_index/event_counts", .type = H5WRITE_U64,
		     .data = past_end, .n = 13},
		    {3, 0, "row 4 (rank 1, region 'solve') claims 4 events",
		     .dataset = "/rank_region_index/event_offsets", .type = H5WRITE_U64,
		     .data = overflow, .n = 13, .also = "overflows"},
		    {3, 0,
		     "rows 4 (rank 1, region 'solve') and 5 (rank 1, "
		     "region 'größe_λ') claim overlapping events",
		     .dataset = "/rank_region_index/event_offsets", .type = H5WRITE_U64,
		     .data = overlap, .n = 13},
		    {3, 0, "rank 0, region 'solve' appears twice in the index (rows 0 and 4)",
		     .dataset = "/rank_region_index/ranks", .type = H5WRITE_U32, .data = dup_ranks,
		     .n = 13},
		    {3, 0, "'rank_region_index/ranks' holds the negative value -1 at row 11",
		     .dataset = "/rank_region_index/ranks", .type = H5WRITE_I64, .data = neg_ranks,
		     .n = 13},
		    {3, 0,
		     "row 6 (rank 1, region 'io'): tags '[1]' are not a JSON array of strings",
		     .dataset = "/rank_region_index/tags", .type = H5WRITE_STR, .data = bad_tags,
		     .n = 13},
		    /* missing required datasets */
		    {3, 0, "missing dataset 'region_table/names'", .del = "/region_table/names"},
		    {3, 0, "missing dataset 'region_table/names'", .del = "/region_table"},
		    {3, 0, "missing dataset 'rank_region_index/event_offsets'",
		     .del = "/rank_region_index/event_offsets"},
		    {3, 0, "missing dataset 'rank_region_index/region_ids'",
		     .del = "/rank_region_index/region_ids"},
		    {3, 0, "missing dataset 'events/durations'", .del = "/events/durations"},
		    {2, 0, "missing dataset 'events/end_times'", .del = "/events/end_times"},
		    {3, 1, "missing dataset 'rank_region_index/aggregate_totals'",
		     .del = "/rank_region_index/aggregate_totals"},
		    /* wrong types */
		    {3, 0, "'rank_region_index/event_offsets' has type float, expected uint64",
		     .dataset = "/rank_region_index/event_offsets", .type = H5WRITE_F64, .data = fl,
		     .n = 3},
		    {3, 0, "'region_table/names' has type int, expected string",
		     .dataset = "/region_table/names", .type = H5WRITE_I64, .data = i3, .n = 3},
		    {3, 0, "'rank_region_index/tags' has type int, expected string",
		     .dataset = "/rank_region_index/tags", .type = H5WRITE_I64, .data = i3, .n = 3},
		    {3, 0, "'events/start_deltas' is not a dataset", .del = "/events/start_deltas",
		     .dataset = "/events/start_deltas/x", .type = H5WRITE_I64, .data = i3, .n = 3},
		    /* aggregate values */
		    {3, 1,
		     "row 2 (rank 0, region 'io'): 'rank_region_index/aggregate_minimums' "
		     "is negative (-4 ns)",
		     .dataset = "/rank_region_index/aggregate_minimums", .type = H5WRITE_I64,
		     .data = mins, .n = 13},
		};

		expect_refusals(t, NREFUSALS(t));
	}
}

static void test_refuse_event_damage(void **state)
{
	int64_t zeros[34], negative[34], ends[34];
	double f[34];
	size_t i;

	(void)state;
	for (i = 0; i < 34; i++) {
		zeros[i] = 0;
		/* schema 3: row 6 = (rank 1, io) starts at event 15 */
		negative[i] = i == 16 ? -5 : 1;
		/* schema 2: end before start */
		ends[i] = i == 0 ? 0 : INT64_C(1) << 40;
		f[i] = (double)i;
	}
	{
		const struct refusal t[] = {
		    {3, 0,
		     "event columns have different lengths: 'events/start_deltas' has 34 events, "
		     "'events/durations' has 33",
		     .dataset = "/events/durations", .type = H5WRITE_I64, .data = zeros, .n = 33},
		    {3, 0, "'events/gpu_durations' has 33", .dataset = "/events/gpu_durations",
		     .type = H5WRITE_I64, .data = zeros, .n = 33},
		    /* negative durations */
		    {3, 0, "rank 1, region 'io': call 1 has a negative duration (-5 ns)",
		     .dataset = "/events/durations", .type = H5WRITE_I64, .data = negative, .n = 34,
		     .on_read = 1},
		    {2, 0, "rank 0, region 'solve': call 0 has a negative duration",
		     .dataset = "/events/end_times", .type = H5WRITE_I64, .data = ends, .n = 34,
		     .on_read = 1},
		    /* float times */
		    {3, 0, "'events/start_deltas' has type float, expected int64",
		     .dataset = "/events/start_deltas", .type = H5WRITE_F64, .data = f, .n = 34},
		    {2, 0, "'events/start_times' has type float, expected int64",
		     .dataset = "/events/start_times", .type = H5WRITE_F64, .data = f, .n = 34},
		    {3, 0, "'events/gpu_durations' has type float, expected int64",
		     .dataset = "/events/gpu_durations", .type = H5WRITE_F64, .data = f, .n = 34},
		};

		expect_refusals(t, NREFUSALS(t));
	}
}

static void test_refuse_schema1_damage(void **state)
{
	const char *path;
	const double f[] = {1.0, 2.0, 3.0, 4.0, 5.0};
	const int64_t st[] = {10, 20, 30, 40, 50}, en[] = {15, 25, 29, 45, 55};
	const struct refusal t[] = {
	    {1, 0, "'rank0/regions/solve/start_times' has type float, expected int64",
	     .dataset = "/rank0/regions/solve/start_times", .type = H5WRITE_F64, .data = f, .n = 5},
	    {1, 0, "missing dataset 'rank10/regions/io/end_times'",
	     .del = "/rank10/regions/io/end_times"},
	    {1, 0,
	     "'rank2/regions/solve' has 2 start times, 5 end times; the file is "
	     "truncated or damaged",
	     .dataset = "/rank2/regions/solve/end_times", .type = H5WRITE_I64, .data = en, .n = 5},
	    {1, 0, "a different number of GPU durations",
	     .dataset = "/rank0/regions/solve/gpu_durations", .type = H5WRITE_I64, .data = en,
	     .n = 4},
	    {1, 0, "'rank1/regions/not_a_group' is not a group",
	     .dataset = "/rank1/regions/not_a_group", .type = H5WRITE_I64, .data = st, .n = 5},
	    /* rank groups that name the same rank */
	    {1, 0, "groups 'rank01' and 'rank1' both hold rank 1",
	     .dataset = "/rank01/regions/x/start_times", .type = H5WRITE_I64, .data = st, .n = 5},
	};

	(void)state;
	expect_refusals(t, NREFUSALS(t));
	/* both columns replaced: call 2 ends before it starts */
	path = fresh(1, 0);
	assert_int_equal(
	    h5write_replace_dataset(path, "/rank0/regions/solve/start_times", H5WRITE_I64, st, 5),
	    0);
	assert_int_equal(
	    h5write_replace_dataset(path, "/rank0/regions/solve/end_times", H5WRITE_I64, en, 5), 0);
	expect_read_refusal(path, "rank 0, region 'solve': call 2 has a negative duration (-1 ns)");
	/* other top-level groups are ignored */
	path = fresh(1, 0);
	assert_int_equal(
	    h5write_replace_dataset(path, "/rankX/regions/x/start_times", H5WRITE_I64, st, 5), 0);
	assert_int_equal(h5write_replace_dataset(path, "/rank3/likwid/y", H5WRITE_I64, st, 5), 0);
	{
		struct tu_h5_loaded l;

		assert_int_equal(tu_h5_load(&l, path), 0);
		assert_int_equal(l.num_ranks, 11); /* rank3 counts; rank 10 + 1 */
		assert_int_equal(l.nrows, 11);
		tu_h5_loaded_free(&l);
	}
	/* source_lineno of the wrong type */
	path = fresh(1, 0);
	{
		hid_t fl = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
		hid_t g = H5Gopen2(fl, "rank0/regions/solve", H5P_DEFAULT);
		hid_t s = H5Screate(H5S_SCALAR), a;
		double d = 7.0;

		assert_true(H5Adelete(g, "source_lineno") >= 0);
		a = H5Acreate2(g, "source_lineno", H5T_IEEE_F64LE, s, H5P_DEFAULT, H5P_DEFAULT);
		assert_true(H5Awrite(a, H5T_NATIVE_DOUBLE, &d) >= 0);
		H5Aclose(a);
		H5Sclose(s);
		H5Gclose(g);
		H5Fclose(fl);
	}
	expect_refusal(
	    path, ERR_FORMAT,
	    "attribute 'rank0/regions/solve@source_lineno' has type float, expected int");
}

/* Names with newlines or quotes are escaped in messages. */
static void test_message_escaping(void **state)
{
	struct h5write_row row;
	struct h5write_profile prof = {&row, 1, NULL, 0};
	struct h5write_opts o = tu_h5_opts(3, 0);
	const int64_t st[] = {1}, en[] = {2}, bad[] = {-3};
	const char *path = tu_path("esc.h5");

	(void)state;
	memset(&row, 0, sizeof(row));
	row.region = "line\nbreak 'q'";
	row.calls = 1;
	row.starts = st;
	row.ends = en;
	row.source_line = -1;
	assert_int_equal(h5write_file(path, &prof, &o), 0);
	assert_int_equal(h5write_replace_dataset(path, "/events/durations", H5WRITE_I64, bad, 1),
			 0);
	expect_read_refusal(path, "region 'line\\x0abreak \\x27q\\x27': call 0 has a negative");
}

/* Fixed-length strings keep trailing spaces and empty strings intact. */
static void test_fixed_string_edges(void **state)
{
	const int64_t st[] = {1, 2}, en[] = {3, 4};
	const char *const tags[] = {"", "t "};
	struct h5write_row rows[2];
	struct h5write_profile prof = {rows, 2, NULL, 0};
	int schema;

	(void)state;
	memset(rows, 0, sizeof(rows));
	rows[0].region = "pad  ";
	rows[0].calls = 2;
	rows[0].starts = st;
	rows[0].ends = en;
	rows[0].source_file = "f.py ";
	rows[0].source_line = 1;
	rows[0].tags = tags;
	rows[0].ntags = 2;
	rows[1] = rows[0];
	rows[1].region = "x";
	rows[1].source_file = "";
	rows[1].ntags = 0;
	for (schema = 1; schema <= 3; schema++) {
		struct h5write_opts o = tu_h5_opts(schema, 0);
		struct tu_h5_loaded l;

		o.fixed_strings = 1;
		assert_int_equal(h5write_file(tu_path("fixed.h5"), &prof, &o), 0);
		assert_int_equal(tu_h5_load(&l, tu_path("fixed.h5")), 0);
		tu_h5_check(&l, &prof, &o);
		assert_non_null(tu_h5_find(&l, 0, "pad  "));
		assert_string_equal(tu_h5_find(&l, 0, "pad  ")->tags_json, "[\"\",\"t \"]");
		tu_h5_loaded_free(&l);
	}
}

/* Issue 24: schema-1 rank groups that skip a rank (rank0 and rank5) make
 * a run of 6 ranks, so that every row's rank is below the count (push and
 * the report call a rank at or above it damage); without a gap the count
 * is the number of groups, an empty group included. */
static void test_schema1_rank_gap(void **state)
{
	int64_t s[] = {10, 20}, e[] = {15, 33};
	struct h5write_row rows[3] = {
	    {.rank = 0, .region = "solve", .calls = 2, .starts = s, .ends = e, .source_line = -1},
	    {.rank = 5, .region = "solve", .calls = 2, .starts = s, .ends = e, .source_line = -1},
	    {.rank = 6, .region = "solve", .calls = 0, .source_line = -1},
	};
	struct h5write_profile prof = {rows, 2, NULL, 0};
	struct h5write_opts o = tu_h5_opts(1, 0);
	struct tu_h5_loaded l;

	(void)state;
	assert_int_equal(h5write_file(tu_path("gap.h5"), &prof, &o), 0);
	assert_int_equal(tu_h5_load(&l, tu_path("gap.h5")), 0);
	assert_int_equal(l.num_ranks, 6);
	assert_int_equal(l.nrows, 2);
	tu_h5_loaded_free(&l);
	/* an empty rank6 group after them: 7 */
	prof.nrows = 3;
	assert_int_equal(h5write_file(tu_path("gap.h5"), &prof, &o), 0);
	assert_int_equal(tu_h5_load(&l, tu_path("gap.h5")), 0);
	assert_int_equal(l.num_ranks, 7);
	tu_h5_loaded_free(&l);
	/* rank0 and rank1, one of them empty: 2 */
	rows[1].rank = 1;
	rows[1].calls = 0;
	prof.nrows = 2;
	assert_int_equal(h5write_file(tu_path("gap.h5"), &prof, &o), 0);
	assert_int_equal(tu_h5_load(&l, tu_path("gap.h5")), 0);
	assert_int_equal(l.num_ranks, 2);
	tu_h5_loaded_free(&l);
}

/* ---- nesting columns (docs/format.md section 10) ---- */

/* Rows of a read with their nesting columns and rank_last. */
struct nestread {
	size_t n;
	struct nestrow {
		uint32_t rank;
		uint64_t calls;
		int has[4]; /* call_ids, parent_ids, thread_ids, task_ids given */
		int64_t v[4][4];
		int64_t start0;
		int last;
	} rows[8];
};

static int nest_row_cb(void *ctx, const struct h5prof_row *row)
{
	struct nestread *r = ctx;
	struct nestrow *w = &r->rows[r->n++];
	const int64_t *cols[4] = {row->nest.call_ids, row->nest.parent_ids, row->nest.thread_ids,
				  row->nest.task_ids};
	uint64_t i;
	int k;

	assert_true(r->n <= 8);
	w->rank = row->rank;
	w->calls = row->calls;
	w->last = row->rank_last;
	w->start0 = row->calls && row->starts ? row->starts[0] : -1;
	for (k = 0; k < 4; k++) {
		w->has[k] = cols[k] != NULL;
		for (i = 0; cols[k] && i < row->calls && i < 4; i++)
			w->v[k][i] = cols[k][i];
	}
	return 0;
}

static void nest_read(const char *path, struct nestread *r)
{
	struct h5prof *p;

	memset(r, 0, sizeof(*r));
	assert_int_equal(h5prof_open(&p, path), 0);
	assert_int_equal(h5prof_read(p, nest_row_cb, r), 0);
	h5prof_free(p);
}

/* The profile of the nesting tests: rank 0 main (1 call) and solve (3),
 * rank 1 main (1) and solve (2, without ids and lanes of its own); the
 * rows are given rank 0 main, rank 1 main, rank 0 solve, rank 1 solve. */
static const int64_t ns_st0[] = {0}, ns_en0[] = {100}, ns_ci0[] = {0}, ns_pi0[] = {-1},
		     ns_th0[] = {-1}, ns_tk0[] = {-1};
static const int64_t ns_st1[] = {10, 20, 30}, ns_en1[] = {15, 25, 35}, ns_ci1[] = {1, 2, 3},
		     ns_pi1[] = {0, 0, 0}, ns_th1[] = {0, 1, 1}, ns_tk1[] = {-1, -1, 5};
static const int64_t ns_st2[] = {1000}, ns_en2[] = {2000}, ns_ci2[] = {7}, ns_pi2[] = {-1},
		     ns_th2[] = {3}, ns_tk2[] = {4};
static const int64_t ns_st3[] = {1100, 1200}, ns_en3[] = {1150, 1250};

static void nest_profile(struct h5write_row rows[4])
{
	memset(rows, 0, 4 * sizeof(*rows));
	rows[0] = tu_h5_nest_row(0, "main", 1, ns_st0, ns_en0, ns_ci0, ns_pi0, ns_th0, ns_tk0);
	rows[1] = tu_h5_nest_row(1, "main", 1, ns_st2, ns_en2, ns_ci2, ns_pi2, ns_th2, ns_tk2);
	rows[2] = tu_h5_nest_row(0, "solve", 3, ns_st1, ns_en1, ns_ci1, ns_pi1, ns_th1, ns_tk1);
	rows[3] = tu_h5_nest_row(1, "solve", 2, ns_st3, ns_en3, NULL, NULL, NULL, NULL);
}

/* The read row of (rank, first start). */
static const struct nestrow *nest_find(const struct nestread *r, uint32_t rank, int64_t start0)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (r->rows[i].rank == rank && r->rows[i].start0 == start0)
			return &r->rows[i];
	fail_msg("no row of rank %u starting at %lld", rank, (long long)start0);
	return &r->rows[0];
}

static void nest_check_values(const struct nestread *r, int ids, int lanes)
{
	const int64_t *want[4][4] = {{ns_ci0, ns_pi0, ns_th0, ns_tk0},
				     {ns_ci1, ns_pi1, ns_th1, ns_tk1},
				     {ns_ci2, ns_pi2, ns_th2, ns_tk2},
				     {NULL, NULL, NULL, NULL}};
	const int64_t firsts[4] = {0, 10, 1000, 1100};
	const uint32_t ranks[4] = {0, 0, 1, 1};
	size_t i, k, c;

	assert_int_equal(r->n, 4);
	for (i = 0; i < 4; i++) {
		const struct nestrow *w = nest_find(r, ranks[i], firsts[i]);

		for (k = 0; k < 4; k++) {
			int on = k < 2 ? ids : lanes;

			assert_int_equal(w->has[k], on);
			for (c = 0; on && c < w->calls; c++)
				assert_int_equal(w->v[k][c], want[i][k] ? want[i][k][c] : -1);
		}
	}
}

/* Every layout reads the ids and lanes written, -1 where a row had none. */
static void test_nesting_columns(void **state)
{
	struct h5write_row rows[4];
	struct h5write_profile prof = {rows, 4, NULL, 0};
	struct nestread r;
	int schema, variant;

	(void)state;
	nest_profile(rows);
	for (schema = 1; schema <= 3; schema++) {
		for (variant = 0; variant < 4; variant++) {
			struct h5write_opts o = tu_h5_opts(schema, 0);
			const char *path = tu_path("nest.h5");

			o.ids = variant != 2;
			o.lanes = variant != 1;
			o.gzip = variant == 3;
			o.chunk = variant == 3 ? 2 : 0;
			assert_int_equal(h5write_file(path, &prof, &o), 0);
			/* tiny windows: rows span them */
			h5prof_set_chunk_events(variant == 0 ? 2 : 0);
			nest_read(path, &r);
			h5prof_set_chunk_events(0);
			nest_check_values(&r, o.ids, o.lanes);
		}
	}
	/* no nesting columns at all */
	{
		struct h5write_opts o = tu_h5_opts(3, 0);

		assert_int_equal(h5write_file(tu_path("nest0.h5"), &prof, &o), 0);
		nest_read(tu_path("nest0.h5"), &r);
		nest_check_values(&r, 0, 0);
	}
}

/* rank_last marks each rank's last row in the read: columnar files in
 * event-offset order (ranks interleaved here), schema 1 rank by rank. */
static void test_rank_last(void **state)
{
	struct h5write_row rows[4];
	struct h5write_profile prof = {rows, 4, NULL, 0};
	struct nestread r;
	struct h5write_opts o;

	(void)state;
	nest_profile(rows);
	o = tu_h5_opts(3, 0);
	assert_int_equal(h5write_file(tu_path("last3.h5"), &prof, &o), 0);
	nest_read(tu_path("last3.h5"), &r);
	assert_int_equal(r.n, 4);
	assert_int_equal(r.rows[0].last + r.rows[1].last, 0);
	assert_int_equal(r.rows[2].rank, 0);
	assert_int_equal(r.rows[2].last, 1);
	assert_int_equal(r.rows[3].last, 1);
	o = tu_h5_opts(1, 0);
	assert_int_equal(h5write_file(tu_path("last1.h5"), &prof, &o), 0);
	nest_read(tu_path("last1.h5"), &r);
	assert_int_equal(r.rows[0].rank, 0);
	assert_int_equal(r.rows[0].last, 0);
	assert_int_equal(r.rows[1].last, 1);
	assert_int_equal(r.rows[2].last, 0);
	assert_int_equal(r.rows[3].last, 1);
	o = tu_h5_opts(3, 1);
	assert_int_equal(h5write_file(tu_path("lastagg.h5"), &prof, &o), 0);
	nest_read(tu_path("lastagg.h5"), &r);
	assert_int_equal(r.rows[0].last + r.rows[1].last, 0);
	assert_int_equal(r.rows[2].last + r.rows[3].last, 2);
}

/* Damaged nesting columns are refused like the other event columns; a
 * call_ids column without parent_ids (or the reverse) is not read. */
static void test_refuse_nesting_damage(void **state)
{
	struct h5write_row rows[4];
	struct h5write_profile prof = {rows, 4, NULL, 0};
	const double fl[7] = {0};
	const int64_t short3[3] = {0, 1, 2};
	struct h5write_opts o;
	struct nestread r;
	const char *path;

	(void)state;
	nest_profile(rows);
	o = tu_h5_opts(3, 0);
	o.ids = o.lanes = 1;
	path = tu_path("nestbad.h5");
	assert_int_equal(h5write_file(path, &prof, &o), 0);
	assert_int_equal(h5write_replace_dataset(path, "/events/thread_ids", H5WRITE_F64, fl, 7),
			 0);
	expect_refusal(path, ERR_FORMAT, "'events/thread_ids' has type float, expected int64");
	assert_int_equal(h5write_file(path, &prof, &o), 0);
	assert_int_equal(h5write_replace_dataset(path, "/events/call_ids", H5WRITE_I64, short3, 3),
			 0);
	expect_refusal(path, ERR_FORMAT, "'events/call_ids' has 3");
	/* parent_ids gone: neither id column is read, the lanes are */
	assert_int_equal(h5write_file(path, &prof, &o), 0);
	assert_int_equal(h5write_delete(path, "/events/parent_ids"), 0);
	nest_read(path, &r);
	nest_check_values(&r, 0, 1);

	o = tu_h5_opts(1, 0);
	o.ids = o.lanes = 1;
	assert_int_equal(h5write_file(path, &prof, &o), 0);
	assert_int_equal(
	    h5write_replace_dataset(path, "/rank0/regions/solve/task_ids", H5WRITE_I64, short3, 2),
	    0);
	expect_refusal(path, ERR_FORMAT, "'rank0/regions/solve' has 3 start times but 2 task_ids");
	assert_int_equal(h5write_file(path, &prof, &o), 0);
	assert_int_equal(h5write_delete(path, "/rank1/regions/main/call_ids"), 0);
	nest_read(path, &r);
	assert_false(nest_find(&r, 1, 1000)->has[0]);
	assert_false(nest_find(&r, 1, 1000)->has[1]);
	assert_true(nest_find(&r, 1, 1000)->has[2]);
	assert_true(nest_find(&r, 0, 10)->has[0]);
}

TU_MAIN(NULL, NULL,
	{
	    cmocka_unit_test(test_fixtures),
	    cmocka_unit_test(test_roundtrip_all_layouts),
	    cmocka_unit_test(test_order_and_names),
	    cmocka_unit_test(test_schema1_rank_sequence),
	    cmocka_unit_test(test_schema1_rank_gap),
	    cmocka_unit_test(test_metadata),
	    cmocka_unit_test(test_columnar_offsets_out_of_order),
	    cmocka_unit_test(test_chunk_boundaries),
	    cmocka_unit_test(test_window_gaps),
	    cmocka_unit_test(test_stream_writer),
	    cmocka_unit_test(test_mpi_size_range),
	    cmocka_unit_test(test_stream_errors),
	    cmocka_unit_test(test_stream_large_row),
	    cmocka_unit_test(test_callback_stop_and_reread),
	    cmocka_unit_test(test_empty_profile),
	    cmocka_unit_test(test_refuse_not_hdf5),
	    cmocka_unit_test(test_refuse_schema_attr),
	    cmocka_unit_test(test_refuse_index_damage),
	    cmocka_unit_test(test_refuse_event_damage),
	    cmocka_unit_test(test_refuse_schema1_damage),
	    cmocka_unit_test(test_message_escaping),
	    cmocka_unit_test(test_fixed_string_edges),
	    cmocka_unit_test(test_nesting_columns),
	    cmocka_unit_test(test_rank_last),
	    cmocka_unit_test(test_refuse_nesting_damage),
	})
