/*
 * test_jsonprof.c - the JSON profile reader (src/jsonprof/, issue 25) and
 * the choice of reader by content (src/profile/).
 *
 * The JSON twin of every layout the fixture writer makes (tools/jsonwrite.h)
 * delivers exactly the rows of its HDF5 file; a summary-only document those
 * of the aggregate layout.  Values crossing the reader's 1 MiB window (a
 * row of 300,000 calls, a 3 MiB name full of escapes and multi-byte
 * characters), several gzip members, metadata of every kind, nulls for
 * optional fields, the number of ranks and the nesting columns read as
 * documented (docs/format.md section 11).  The refusals are in
 * test_hostile.c (tests/support/hostile_json.c).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#include "jsonprof/jsonprof.h"
#include "jsonwrite.h"
#include "scopedb/err.h"
#include "scopedb/profile.h"
#include "scopedb/util.h"
#include "testutil.h"
#include "testutil_h5.h"

/* Every field of two loaded rows. */
static void same_row(const struct tu_h5_row *a, const struct tu_h5_row *b, int excl)
{
	uint64_t i;

	assert_int_equal(a->calls, b->calls);
	assert_int_equal(a->has_events, b->has_events);
	for (i = 0; a->has_events && i < a->calls; i++) {
		assert_int_equal(a->starts[i], b->starts[i]);
		assert_int_equal(a->durations[i], b->durations[i]);
		assert_true((a->gpu == NULL) == (b->gpu == NULL));
		if (a->gpu)
			assert_int_equal(a->gpu[i], b->gpu[i]);
	}
	assert_int_equal(a->agg_total, b->agg_total);
	assert_int_equal(a->agg_min, b->agg_min);
	assert_int_equal(a->agg_max, b->agg_max);
	if (excl)
		assert_int_equal(a->exclusive, b->exclusive);
	assert_int_equal(a->source_line, b->source_line);
	assert_string_equal(a->source_file, b->source_file);
	assert_string_equal(a->source_text, b->source_text);
	assert_string_equal(a->tags_json, b->tags_json);
}

/* The HDF5 file h5 and the JSON file js hold the same rows. */
static void same_profile(const char *h5, const char *js, int excl)
{
	struct tu_h5_loaded a, b;
	size_t i;

	assert_int_equal(tu_h5_load(&a, h5), 0);
	assert_int_equal(tu_profile_load(&b, js), 0);
	assert_int_equal(a.num_ranks, b.num_ranks);
	assert_int_equal(a.num_events, b.num_events);
	assert_int_equal(a.num_regions, b.num_regions);
	assert_int_equal(a.nrows, b.nrows);
	for (i = 0; i < a.nrows; i++) {
		const struct tu_h5_row *r = tu_h5_find(&b, a.rows[i].rank, a.rows[i].region);

		if (!r)
			fail_msg("%s: no row (rank %u, %s)", js, a.rows[i].rank, a.rows[i].region);
		same_row(&a.rows[i], r, excl);
	}
	tu_h5_loaded_free(&a);
	tu_h5_loaded_free(&b);
}

static void test_twins(void **state)
{
	static const struct {
		int schema, aggregate, gpu, gzip;
	} v[] = {{1, 0, 0, 0}, {1, 0, 1, 1}, {2, 0, 1, 0}, {2, 0, 0, 1},
		 {3, 0, 1, 0}, {3, 0, 1, 1}, {2, 1, 0, 0}, {3, 1, 0, 1}};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		struct h5write_opts o = tu_h5_opts(v[i].schema, v[i].aggregate);
		struct jsonwrite_opts jo = {v[i].gzip, 0};
		char h5[512], js[512];
		struct tu_h5_loaded l;

		o.gpu = v[i].gpu;
		snprintf(h5, sizeof(h5), "%s", tu_h5_write_standard("twin.h5", &o));
		snprintf(js, sizeof(js), "%s", tu_path(v[i].gzip ? "twin.json.gz" : "twin.json"));
		assert_int_equal(jsonwrite_file(js, tu_h5_standard(), &o, &jo), 0);
		same_profile(h5, js, 1);
		/* also exactly what was written (section 11.2: schema 3) */
		assert_int_equal(tu_profile_load(&l, js), 0);
		assert_int_equal(l.layout, v[i].aggregate ? H5PROF_AGGREGATE : H5PROF_COLUMNAR);
		assert_int_equal(l.schema, 3);
		o.schema = v[i].schema;
		tu_h5_loaded_free(&l);
		unlink(h5);
		unlink(js);
	}
}

/* A summary-only export reads as the aggregate layout; its exclusive
 * total is upstream's (the total, when the run did not compute one). */
static void test_summary_only(void **state)
{
	struct h5write_opts o = tu_h5_opts(3, 1);
	struct jsonwrite_opts jo = {0, 1};
	struct tu_h5_loaded l;
	char h5[512], js[512];
	size_t i;

	(void)state;
	snprintf(h5, sizeof(h5), "%s", tu_h5_write_standard("summ.h5", &o));
	snprintf(js, sizeof(js), "%s", tu_path("summ.json"));
	o.aggregate = 0;
	o.gpu = 1;
	assert_int_equal(jsonwrite_file(js, tu_h5_standard(), &o, &jo), 0);
	assert_int_equal(tu_profile_load(&l, js), 0);
	assert_int_equal(l.layout, H5PROF_AGGREGATE);
	for (i = 0; i < l.nrows; i++) {
		assert_false(l.rows[i].has_events);
		assert_int_equal(l.rows[i].exclusive, l.rows[i].agg_total);
	}
	tu_h5_loaded_free(&l);
	/* the HDF5 aggregate twin has no source or tags: compare the numbers */
	{
		struct tu_h5_loaded a, b;

		assert_int_equal(tu_h5_load(&a, h5), 0);
		assert_int_equal(tu_profile_load(&b, js), 0);
		assert_int_equal(a.nrows, b.nrows);
		assert_int_equal(a.num_events, b.num_events);
		assert_int_equal(a.num_ranks, b.num_ranks);
		for (i = 0; i < a.nrows; i++) {
			const struct tu_h5_row *r =
			    tu_h5_find(&b, a.rows[i].rank, a.rows[i].region);

			assert_non_null(r);
			assert_int_equal(r->calls, a.rows[i].calls);
			assert_int_equal(r->agg_total, a.rows[i].agg_total);
			assert_int_equal(r->agg_min, a.rows[i].agg_min);
			assert_int_equal(r->agg_max, a.rows[i].agg_max);
		}
		tu_h5_loaded_free(&a);
		tu_h5_loaded_free(&b);
	}
}

/* Write text to path, gzip-compressed in members of member_len bytes
 * (0: plain). */
static void write_doc(const char *path, const char *text, size_t len, size_t member_len)
{
	FILE *f;
	size_t off;

	if (!member_len) {
		tu_write_file(path, text, len);
		return;
	}
	f = fopen(path, "wb");
	assert_non_null(f);
	for (off = 0; off < len; off += member_len) {
		size_t n = len - off < member_len ? len - off : member_len;
		uLongf cap = compressBound((uLong)n) + 64;
		unsigned char *z = malloc(cap);
		z_stream zs;

		assert_non_null(z);
		memset(&zs, 0, sizeof(zs));
		assert_int_equal(
		    deflateInit2(&zs, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY), Z_OK);
		zs.next_in = (unsigned char *)(uintptr_t)(text + off);
		zs.avail_in = (uInt)n;
		zs.next_out = z;
		zs.avail_out = (uInt)cap;
		assert_int_equal(deflate(&zs, Z_FINISH), Z_STREAM_END);
		assert_int_equal(fwrite(z, 1, zs.total_out, f), zs.total_out);
		deflateEnd(&zs);
		free(z);
	}
	assert_int_equal(fclose(f), 0);
}

/* A document of one rank and region "big" whose start_times_ns hold n
 * values (ends: n - short_ends of them, call bad ending before it starts
 * when bad < n), then one "small" row of 3 calls. */
static void write_long_row(const char *path, size_t n, size_t short_ends, size_t bad)
{
	struct buf b = BUF_INIT;
	size_t i;

	assert_int_equal(buf_puts(&b, "{\"format\": \"scope-profiler-profile\", "
				      "\"format_version\": 1, \"regions\": [{\"name\": \"big\", "
				      "\"rank\": 0, \"start_times_ns\": ["),
			 0);
	for (i = 0; i < n; i++)
		assert_int_equal(buf_printf(&b, "%s%zu", i ? "," : "", i * 10), 0);
	assert_int_equal(buf_puts(&b, "], \"end_times_ns\": ["), 0);
	for (i = 0; i + short_ends < n; i++)
		assert_int_equal(
		    buf_printf(&b, "%s%zu", i ? "," : "", i == bad ? i * 10 - 1 : i * 10 + 5), 0);
	assert_int_equal(buf_puts(&b,
				  "]}, {\"name\": \"small\", \"rank\": 0, "
				  "\"start_times_ns\": [1, 2, 3], \"end_times_ns\": [2, 3, 4]}]}"),
			 0);
	tu_write_file(path, b.data, b.len);
	buf_release(&b);
}

/*
 * Rows of the pieces' least or more are handed out in pieces, their
 * columns spilled to a temporary file past a quarter of it and read back a
 * window at a time, and so are the long rows of a rank of as many calls
 * (the first pass counts them); another row is held, never spilled: with
 * the least at 10 (spilled past 2 values), the JSON twin of a profile of
 * rank 0's rows of 100 (with GPU durations) and 5 calls and rank 1's of 3
 * reads the same as held whole, plain and gzip, in windows of 1, 3, 64
 * and the default.  Within a row in
 * pieces, a negative duration names its call, and columns of different
 * lengths are refused as in a held row.
 */
static void test_rows_in_pieces(void **state)
{
	struct h5write_opts o = tu_h5_opts(3, 0);
	const size_t windows[] = {1, 3, 64, 0}, npieces[] = {105, 36, 3, 2};
	const char *path;
	size_t i, w;
	int gz;

	(void)state;
	o.gpu = 1;
	for (gz = 0; gz < 2; gz++) {
		struct jsonwrite_opts jo = {gz, 0};

		path = tu_path(gz ? "pieces.json.gz" : "pieces.json");
		assert_int_equal(jsonwrite_file(path, tu_h5_long_rows(), &o, &jo), 0);
		for (w = 0; w < sizeof(windows) / sizeof(windows[0]); w++) {
			struct tu_h5_loaded a, b;

			jsonprof_testing_window(windows[w]);
			assert_int_equal(tu_profile_load(&a, path), 0);
			assert_int_equal(tu_profile_load_pieces(&b, path, 10), 0);
			assert_int_equal(a.npieces, 0);
			/* rank 0's rows (100 + 5 calls) in pieces, as in an
			 * HDF5 file; rank 1's (3) held */
			assert_int_equal(b.npieces, npieces[w]);
			assert_int_equal(a.nrows, b.nrows);
			assert_int_equal(a.num_events, b.num_events);
			for (i = 0; i < a.nrows; i++)
				same_row(&a.rows[i], &b.rows[i], 1);
			tu_h5_loaded_free(&a);
			tu_h5_loaded_free(&b);
		}
	}
	/* a negative duration in a piece: its call, counted over the row */
	path = tu_path("pieces-bad.json");
	write_long_row(path, 40, 0, 29);
	jsonprof_testing_window(4);
	{
		struct tu_h5_loaded l;

		err_clear();
		assert_int_equal(tu_profile_load_pieces(&l, path, 12), ERR_FORMAT);
		assert_non_null(strstr(err_msg(), "regions[0] (rank 0, region 'big'), call 29: "
						  "negative duration (start 290 ns, end 289 ns)"));
		/* columns of different lengths, both spilled */
		write_long_row(path, 40, 1, 40);
		err_clear();
		assert_int_equal(tu_profile_load_pieces(&l, path, 12), ERR_FORMAT);
		assert_non_null(strstr(err_msg(), "\"end_times_ns\" has 39 values but "
						  "\"start_times_ns\" has 40"));
		/* and whole: the same row read as held */
		write_long_row(path, 40, 0, 40);
		assert_int_equal(tu_profile_load_pieces(&l, path, 12), 0);
		assert_int_equal(l.npieces, 10);
		assert_int_equal(l.rows[0].calls, 40);
		assert_int_equal(l.rows[0].starts[39], 390);
		assert_int_equal(l.rows[0].durations[39], 5);
		assert_int_equal(l.rows[1].calls, 3);
		tu_h5_loaded_free(&l);
		/* no place for the spill: one line saying where and why */
		setenv("TMPDIR", tu_path("no-such-dir"), 1);
		err_clear();
		assert_int_equal(tu_profile_load_pieces(&l, path, 12), ERR_IO);
		assert_non_null(strstr(err_msg(),
				       "': regions[0] (rank 0, region 'big'): cannot make "
				       "a temporary file in '"));
		assert_non_null(strstr(err_msg(),
				       "no-such-dir' for its lists (the call tree does not "
				       "hold the row): no such file or directory (set TMPDIR "
				       "to a directory with room for 8 bytes a value of each "
				       "of its lists, and 9 bytes a call more)"));
		assert_null(strchr(err_msg(), '\n'));
		/* a row that does not go in pieces (its rank's 43 calls are
		 * fewer than 100) is not spilled, though its lists are longer
		 * than a quarter of that: no temporary file is needed */
		assert_int_equal(tu_profile_load_pieces(&l, path, 100), 0);
		assert_int_equal(l.npieces, 0);
		assert_int_equal(l.rows[0].calls, 40);
		tu_h5_loaded_free(&l);
		unsetenv("TMPDIR");
	}
	jsonprof_testing_window(0);
}

/* Values that cross the 1 MiB window, plain, gzip, several gzip members. */
static void test_window(void **state)
{
	const size_t calls = 300000, name_units = 150000;
	struct buf doc = BUF_INIT, want = BUF_INIT;
	const char *variants[] = {"win.json", "win.json.gz", "win-members.json.gz"};
	size_t i, v;

	(void)state;
	assert_int_equal(buf_puts(&doc, "{\"format\": \"scope-profiler-profile\", \"regions\": "
					"[{\"rank\": 7, \"name\": \""),
			 0);
	/* each unit: an escape, a 2-byte, a 4-byte (surrogate pair) and an
	 * ASCII character */
	for (i = 0; i < name_units; i++) {
		assert_int_equal(buf_puts(&doc, "\\n\xc3\xa9\\ud83d\\ude00x"), 0);
		assert_int_equal(buf_puts(&want, "\n\xc3\xa9\xf0\x9f\x98\x80x"), 0);
	}
	assert_int_equal(buf_puts(&doc, "\", \"start_times_ns\": ["), 0);
	for (i = 0; i < calls; i++)
		assert_int_equal(buf_printf(&doc, i ? ",\n %zu" : "%zu",
					    (size_t)1700000000000000000ULL + i * 1000),
				 0);
	assert_int_equal(buf_puts(&doc, "],\t\"end_times_ns\" : ["), 0);
	for (i = 0; i < calls; i++)
		assert_int_equal(buf_printf(&doc, i ? ", %zu" : "%zu",
					    (size_t)1700000000000000000ULL + i * 1000 + i % 997),
				 0);
	assert_int_equal(buf_puts(&doc, "]}]}"), 0);
	for (v = 0; v < 3; v++) {
		struct tu_h5_loaded l;
		const char *path = tu_path(variants[v]);

		write_doc(path, doc.data, doc.len, v == 0 ? 0 : v == 1 ? doc.len : 777777);
		assert_int_equal(tu_profile_load(&l, path), 0);
		assert_int_equal(l.nrows, 1);
		assert_int_equal(l.rows[0].rank, 7);
		assert_int_equal(l.num_ranks, 8);
		assert_int_equal(l.rows[0].calls, calls);
		assert_int_equal(strlen(l.rows[0].region), want.len);
		assert_memory_equal(l.rows[0].region, want.data, want.len);
		for (i = 0; i < calls; i++) {
			assert_int_equal(l.rows[0].starts[i],
					 (int64_t)(1700000000000000000ULL + i * 1000));
			assert_int_equal(l.rows[0].durations[i], (int64_t)(i % 997));
		}
		tu_h5_loaded_free(&l);
		unlink(path);
	}
	buf_release(&doc);
	buf_release(&want);
}

struct nest_seen {
	struct jsonprof *j;
	int rows;
};

static int nest_row(void *ctx, const struct h5prof_row *row)
{
	struct nest_seen *s = ctx;
	const struct jsonprof_nesting *n = jsonprof_nesting(s->j);

	if (s->rows++ == 0) {
		assert_int_equal(row->calls, 2);
		assert_non_null(n->call_ids);
		assert_int_equal(n->call_ids[1], 5);
		assert_int_equal(n->parent_ids[0], -1);
		assert_int_equal(n->parent_ids[1], 4);
		assert_int_equal(n->thread_ids[1], 2);
		assert_int_equal(n->task_ids[0], -1);
		assert_int_equal(n->await_ns[1], 9);
		assert_int_equal(row->exclusive, 3);
	} else {
		assert_null(n->call_ids);
		assert_null(n->parent_ids);
		assert_null(n->thread_ids);
		assert_null(n->task_ids);
		assert_null(n->await_ns);
	}
	return 0;
}

/* Nesting columns, metadata of every kind, nulls, unknown keys, ranks. */
static void test_document(void **state)
{
	static const char doc[] =
	    "{\"format\": \"scope-profiler-profile\", \"format_version\": 1, \"num_ranks\": 2, "
	    "\"future_key\": {\"a\": [1, {\"b\": null}]},"
	    "\"metadata\": {\"s\": \"x y\", \"i\": 8, \"u\": 18446744073709551615, "
	    "\"n\": -9223372036854775808, \"f\": 0.1, \"g\": 2.0, \"e\": 1e3, \"z\": null, "
	    "\"b\": true, \"o\": {\"x\": 1}, \"a\": [\"p\", 1, 2.5, null], \"ab\": [1, true], "
	    "\"empty\": []},"
	    "\"regions\": [{\"name\": \"outer\", \"rank\": 0, \"source_file\": null, "
	    "\"source_lineno\": null, \"tags\": null, \"start_times_ns\": [1, 2], "
	    "\"end_times_ns\": [9, 3], \"call_ids\": [4, 5], \"parent_ids\": [-1, 4], "
	    "\"thread_ids\": [0, 2], \"task_ids\": [-1, -1], \"await_ns\": [0, 9], "
	    "\"exclusive_total_ns\": 3, \"unknown\": [[]]},"
	    " {\"name\": \"inner\", \"rank\": 5, \"gpu_durations_ns\": null}]}";
	static const char *const keys[] = {"a", "e", "empty", "f", "g", "i", "n", "s", "u", "z"};
	static const char *const vals[] = {"[\"p\",1,2.5,null]",
					   "1000",
					   "[]",
					   "0.10000000000000001",
					   "2",
					   "8",
					   "-9223372036854775808",
					   "x y",
					   "18446744073709551615",
					   "null"};
	struct jsonprof *j = NULL;
	struct nest_seen s = {NULL, 0};
	const struct h5prof_info *info;
	size_t i;

	(void)state;
	assert_int_equal(jsonprof_open_mem(&j, "doc.json", doc, sizeof(doc) - 1), 0);
	s.j = j;
	assert_int_equal(jsonprof_read(j, nest_row, &s), 0);
	assert_int_equal(s.rows, 2);
	info = jsonprof_info(j);
	/* num_ranks 2 as written is below the largest rank + 1 (a schema-1
	 * run's rank groups 0 and 5): 6, as the HDF5 reader counts them, so
	 * that every row's rank is below it (push calls one above damage) */
	assert_int_equal(info->num_ranks, 6);
	assert_int_equal(info->num_rows, 2);
	assert_int_equal(info->num_events, 2);
	assert_int_equal(info->num_regions, 2);
	assert_string_equal(info->region_names[0], "outer");
	assert_string_equal(info->region_names[1], "inner");
	assert_int_equal(info->num_meta, sizeof(keys) / sizeof(keys[0]));
	for (i = 0; i < info->num_meta; i++) {
		assert_string_equal(info->meta[i].key, keys[i]);
		assert_string_equal(info->meta[i].value, vals[i]);
		assert_int_equal(info->meta[i].is_array, vals[i][0] == '[');
	}
	jsonprof_free(j);
}

/* rank_last of each row read, in order. */
struct last_seen {
	char flags[16];
	size_t rows;
};

static int last_row(void *arg, const struct h5prof_row *row)
{
	struct last_seen *s = arg;

	assert_true(s->rows < sizeof(s->flags) - 1);
	s->flags[s->rows++] = row->rank_last ? '1' : '0';
	return 0;
}

/*
 * Each row says whether it is the last of its rank (rank_last, from the
 * first pass over the document, jp_plan()), in whatever order the ranks
 * come: rank after rank, region after region, a rank coming back.  The
 * first pass reads the keys as the rows are read: an escaped "rank" is
 * the rank, a "rank" inside another value or a string is not.
 */
static void test_rank_last(void **state)
{
#define ROW(name, rankkey, rank, extra)                                                            \
	"{\"name\": \"" name "\", " extra "\"" rankkey "\": " #rank                                \
	", \"start_times_ns\": [1], \"end_times_ns\": [2]}"
	static const struct {
		const char *regions, *want;
	} cases[] = {
	    {ROW("a", "rank", 0, "\"x\": {\"rank\": 1}, ") "," ROW(
		 "b", "r\\u0061nk", 0,
		 "") "," ROW("a", "rank", 1, "\"tags\": [\"rank\"], ") "," ROW("b", "rank", 1, ""),
	     "0101"},
	    {ROW("a", "rank", 0, "") "," ROW("a", "rank", 1, "") "," ROW(
		 "b", "rank", 0, "") "," ROW("b", "rank", 1, ""),
	     "0011"},
	    {ROW("a", "rank", 2, "") "," ROW("b", "rank", 2, "") "," ROW(
		 "a", "rank", 0, "") "," ROW("c", "rank", 2, "") "," ROW("b", "rank", 0, ""),
	     "00011"},
	};
#undef ROW
	size_t c;

	(void)state;
	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		char doc[2048];
		struct jsonprof *j = NULL;
		struct last_seen s;

		memset(&s, 0, sizeof(s));
		snprintf(doc, sizeof(doc),
			 "{\"format\": \"scope-profiler-profile\", \"regions\": [%s], "
			 "\"metadata\": {\"rank\": 9}}",
			 cases[c].regions);
		assert_int_equal(jsonprof_open_mem(&j, "doc.json", doc, strlen(doc)), 0);
		if (jsonprof_read(j, last_row, &s))
			fail_msg("case %zu: %s", c, err_msg());
		assert_string_equal(s.flags, cases[c].want);
		jsonprof_free(j);
	}
}

/* The reader follows the content: JSON named .h5, HDF5 named .dat. */
static void test_choice(void **state)
{
	struct h5write_opts o = tu_h5_opts(3, 0);
	struct jsonwrite_opts jo = {0, 0};
	static const struct {
		const char *name;
		int json;
	} f[] = {{"c-json.h5", 1}, {"c-h5.dat", 0}, {"c-json", 1}};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(f) / sizeof(f[0]); i++) {
		struct profile *p = NULL;
		struct stat st;
		const char *path = tu_path(f[i].name);
		int fd;

		if (f[i].json)
			assert_int_equal(jsonwrite_file(path, tu_h5_standard(), &o, &jo), 0);
		else
			assert_int_equal(h5write_file(path, tu_h5_standard(), &o), 0);
		assert_int_equal(profile_open_file(path, &fd, &st), 0);
		assert_int_equal(profile_open(&p, path, fd, &st), 0);
		assert_string_equal(profile_format(p), f[i].json ? "json" : "hdf5");
		assert_int_equal(profile_info_final(p), !f[i].json);
		profile_free(p);
		close(fd);
		unlink(path);
	}
	assert_true(profile_name_is_json("a.JSON"));
	assert_true(profile_name_is_json("dir/a.json.GZ"));
	assert_false(profile_name_is_json("a.json.bz2"));
	assert_false(profile_name_is_json("json"));
}

TU_MAIN(NULL, NULL,
	{
	    cmocka_unit_test(test_twins),
	    cmocka_unit_test(test_summary_only),
	    cmocka_unit_test(test_window),
	    cmocka_unit_test(test_rows_in_pieces),
	    cmocka_unit_test(test_document),
	    cmocka_unit_test(test_rank_last),
	    cmocka_unit_test(test_choice),
	})
