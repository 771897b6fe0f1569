/*
 * testutil_h5.c - the standard test profile and its options, a whole-file
 * loader built on h5prof, a round-trip check and file damage (see
 * testutil_h5.h).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hdf5.h>

#include "scopedb/err.h"
#include "util/json.h"
#include "scopedb/util.h"
#include "testutil.h"
#include "scopedb/profile.h"
#include "testutil_h5.h"

#define TU_NROWS 13
#define TU_MAXCALLS 8

static struct h5write_row tu_rows[TU_NROWS];
static int64_t tu_starts[TU_NROWS][TU_MAXCALLS], tu_ends[TU_NROWS][TU_MAXCALLS];
static int64_t tu_gpu[TU_NROWS][TU_MAXCALLS];
static struct h5write_meta tu_meta[3];
static struct h5write_profile tu_prof;

static const char *const tu_tags_solve[] = {"golden"};
static const char *const tu_tags_grosse[] = {"a", "b \"q\"\n"};
static const char *const tu_tags_idle[] = {"x"};
static const char *const tu_modules[] = {"gcc/13", "openmpi/5"};

const struct h5write_profile *tu_h5_standard(void)
{
	static const struct {
		uint32_t rank;
		int region; /* 0 solve, 1 größe_λ, 2 io, 3 idle */
		size_t calls;
	} spec[TU_NROWS] = {
	    {0, 0, 5}, {0, 1, 3}, {0, 2, 2}, {0, 3, 0},	 {1, 0, 4},  {1, 1, 1},	 {1, 2, 3},
	    {1, 3, 0}, {2, 0, 2}, {2, 1, 2}, {10, 0, 3}, {10, 2, 1}, {10, 1, 8},
	};
	static const char *const names[] = {"solve", "größe_λ", "io", "idle"};
	static const char *const files[] = {"solver.py", "größe.py", "", NULL};
	static const int64_t lines[] = {7, 42, -1, 3};
	static int built;
	size_t i, c;

	if (built)
		return &tu_prof;
	for (i = 0; i < TU_NROWS; i++) {
		struct h5write_row *r = &tu_rows[i];
		int reg = spec[i].region;

		r->rank = spec[i].rank;
		r->region = names[reg];
		r->calls = spec[i].calls;
		for (c = 0; c < r->calls; c++) {
			int64_t k = (int64_t)c, rank = (int64_t)r->rank;
			int64_t step = (r->rank == 1 && reg == 2) ? (int64_t)(r->calls - c) : k;

			tu_starts[i][c] = 1000 * (rank + 1) + 100 * step + 10 * reg;
			tu_ends[i][c] = tu_starts[i][c] + (37 * k + 11 * rank + 5 * reg) % 23;
			tu_gpu[i][c] = c % 2 ? -1 : 2 * (tu_ends[i][c] - tu_starts[i][c]) + 1;
		}
		r->starts = tu_starts[i];
		r->ends = tu_ends[i];
		r->gpu = reg == 0 ? tu_gpu[i] : NULL;
		r->source_file = files[reg];
		r->source_line = lines[reg];
		r->tags = reg == 0   ? tu_tags_solve
			  : reg == 1 ? tu_tags_grosse
			  : reg == 3 ? tu_tags_idle
				     : NULL;
		r->ntags = reg == 0 ? 1 : reg == 1 ? 2 : reg == 3 ? 1 : 0;
	}
	tu_meta[0].key = "label";
	tu_meta[0].kind = H5WRITE_META_STR;
	tu_meta[0].str = "baseline run";
	tu_meta[1].key = "omp_num_threads";
	tu_meta[1].kind = H5WRITE_META_INT;
	tu_meta[1].i = 8;
	tu_meta[2].key = "modules";
	tu_meta[2].kind = H5WRITE_META_STRARRAY;
	tu_meta[2].strs = tu_modules;
	tu_meta[2].nstrs = 2;
	tu_prof.rows = tu_rows;
	tu_prof.nrows = TU_NROWS;
	tu_prof.meta = tu_meta;
	tu_prof.nmeta = 3;
	built = 1;
	return &tu_prof;
}

struct h5write_row tu_h5_nest_row(uint32_t rank, const char *region, size_t calls,
				  const int64_t *starts, const int64_t *ends, const int64_t *ids,
				  const int64_t *parents, const int64_t *threads,
				  const int64_t *tasks)
{
	return (struct h5write_row){.rank = rank,
				    .region = region,
				    .calls = calls,
				    .starts = starts,
				    .ends = ends,
				    .source_line = -1,
				    .call_ids = ids,
				    .parent_ids = parents,
				    .thread_ids = threads,
				    .task_ids = tasks};
}

struct h5write_opts tu_h5_opts(int schema, int aggregate)
{
	struct h5write_opts o;

	memset(&o, 0, sizeof(o));
	o.schema = schema;
	o.aggregate = aggregate;
	o.mpi_size = 4;
	return o;
}

void tu_h5_damage(const char *path, const struct tu_h5_damage *d)
{
	if (d->del && h5write_delete(path, d->del))
		fail_msg("h5write_delete(%s, %s): %s", path, d->del, err_msg());
	if (d->dataset && h5write_replace_dataset(path, d->dataset, d->type, d->data, d->n))
		fail_msg("h5write_replace_dataset(%s, %s): %s", path, d->dataset, err_msg());
}

unsigned long long tu_h5_live_ids(void)
{
	ssize_t n = H5Fget_obj_count((hid_t)H5F_OBJ_ALL, H5F_OBJ_ALL);

	assert_true(n >= 0);
	return (unsigned long long)n;
}

const char *tu_h5_write_standard(const char *name, const struct h5write_opts *opts)
{
	const char *path = tu_path(name);
	unsigned long long ids = tu_h5_live_ids();
	int rc = h5write_file(path, tu_h5_standard(), opts);

	if (rc)
		fail_msg("h5write_file(%s): %s", path, err_msg());
	assert_int_equal(tu_h5_live_ids(), ids);
	return path;
}

static int64_t *tu_dup64(const int64_t *v, uint64_t n)
{
	int64_t *d;

	if (!v)
		return NULL;
	d = malloc((size_t)(n ? n : 1) * sizeof(*d));
	assert_non_null(d);
	memcpy(d, v, (size_t)n * sizeof(*d));
	return d;
}

static char *tu_dupstr(const char *s)
{
	char *d = util_strdup(s);

	assert_non_null(d);
	return d;
}

struct tu_loadctx {
	struct tu_h5_loaded *l;
	const struct h5prof_info *info;
	size_t cap;
	uint64_t filled; /* calls of the row in pieces gathered so far */
};

/* A piece of a row (h5prof_set_piece_min()): appended to the last row,
 * begun at its first piece, checked to come in order and to end once. */
static void tu_load_piece(struct tu_loadctx *c, const struct h5prof_row *row)
{
	struct tu_h5_row *r = &c->l->rows[c->l->nrows - 1];
	size_t at = (size_t)row->piece_from, n = (size_t)row->piece_len;

	assert_true(row->has_events);
	assert_non_null(row->starts);
	assert_non_null(row->durations);
	assert_int_equal(row->piece_from, c->filled);
	assert_true(row->piece_from + row->piece_len <= row->calls);
	assert_int_equal(row->piece_last, row->piece_from + row->piece_len == row->calls);
	assert_int_equal(r->rank, row->rank);
	assert_int_equal(r->calls, row->calls);
	assert_int_equal(r->gpu != NULL, row->gpu != NULL);
	memcpy(r->starts + at, row->starts, n * sizeof(int64_t));
	memcpy(r->durations + at, row->durations, n * sizeof(int64_t));
	if (row->gpu)
		memcpy(r->gpu + at, row->gpu, n * sizeof(int64_t));
	c->filled = row->piece_last ? 0 : c->filled + row->piece_len;
	c->l->npieces++;
}

static int tu_load_row(void *ctx, const struct h5prof_row *row)
{
	struct tu_loadctx *c = ctx;
	struct tu_h5_loaded *l = c->l;
	struct tu_h5_row *r;

	if (row->piece_len && row->piece_from > 0) {
		tu_load_piece(c, row);
		return 0;
	}
	assert_int_equal(c->filled, 0); /* no row left unfinished */
	if (l->nrows == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 16;
		l->rows = realloc(l->rows, c->cap * sizeof(*l->rows));
		assert_non_null(l->rows);
	}
	r = &l->rows[l->nrows++];
	memset(r, 0, sizeof(*r));
	assert_true(row->region < c->info->num_regions);
	r->rank = row->rank;
	r->region = tu_dupstr(c->info->region_names[row->region]);
	r->calls = row->calls;
	r->has_events = row->has_events;
	if (row->calls == 0 || !row->has_events) {
		assert_null(row->starts);
		assert_null(row->durations);
		assert_null(row->gpu);
	} else {
		assert_non_null(row->starts);
		assert_non_null(row->durations);
	}
	r->agg_total = row->agg_total;
	r->agg_min = row->agg_min;
	r->agg_max = row->agg_max;
	r->exclusive = row->exclusive;
	r->source_line = row->source_line;
	r->source_file = tu_dupstr(row->source_file);
	r->source_text = tu_dupstr(row->source_text);
	r->tags_json = tu_dupstr(row->tags_json);
	if (row->piece_len) {
		/* its first piece: room for the whole row */
		size_t bytes = (size_t)row->calls * sizeof(int64_t);

		r->starts = malloc(bytes);
		r->durations = malloc(bytes);
		r->gpu = row->gpu ? malloc(bytes) : NULL;
		assert_non_null(r->starts);
		assert_non_null(r->durations);
		assert_true(!row->gpu || r->gpu);
		tu_load_piece(c, row);
		return 0;
	}
	r->starts = tu_dup64(row->starts, row->calls);
	r->durations = tu_dup64(row->durations, row->calls);
	r->gpu = tu_dup64(row->gpu, row->calls);
	return 0;
}

const struct h5write_profile *tu_h5_long_rows(void)
{
	static int64_t s1[100], e1[100], g1[100], s2[5], e2[5];
	static struct h5write_row rows[4];
	static const struct h5write_profile prof = {rows, 4, NULL, 0};
	size_t i;

	if (rows[1].calls)
		return &prof;
	for (i = 0; i < 100; i++) {
		s1[i] = (int64_t)(i * i * 3);
		e1[i] = s1[i] + (int64_t)(i % 7);
		g1[i] = i % 3 ? (int64_t)i : -1;
	}
	for (i = 0; i < 5; i++) {
		s2[i] = 1000 - (int64_t)i * 10;
		e2[i] = s2[i] + 9;
	}
	rows[0].rank = 0, rows[0].region = "small", rows[0].calls = 5;
	rows[0].starts = s2, rows[0].ends = e2, rows[0].source_line = -1;
	rows[2].rank = 1, rows[2].region = "small", rows[2].calls = 3;
	rows[2].starts = s2 + 1, rows[2].ends = e2 + 1, rows[2].source_line = -1;
	rows[3].rank = 1, rows[3].region = "big", rows[3].calls = 0, rows[3].source_line = -1;
	rows[1].rank = 0, rows[1].region = "big", rows[1].starts = s1, rows[1].ends = e1;
	rows[1].gpu = g1, rows[1].source_line = -1;
	rows[1].calls = 100; /* last: the profile is made */
	return &prof;
}

static void tu_loadctx_init(struct tu_loadctx *c, struct tu_h5_loaded *out,
			    const struct h5prof_info *info)
{
	c->l = out;
	c->info = info;
	c->cap = 0;
	c->filled = 0;
}

/* After a read that returned rc: every row delivered, none left in
 * pieces (when rc is 0); rc. */
static int tu_load_done(const struct tu_loadctx *c, int rc)
{
	if (!rc) {
		assert_int_equal(c->l->nrows, c->info->num_rows);
		assert_int_equal(c->filled, 0);
	}
	return rc;
}

/* The file's description into out: what both loaders keep of it. */
static void tu_load_info(struct tu_h5_loaded *out, const struct h5prof_info *info)
{
	size_t i;

	out->schema = info->schema;
	out->layout = info->layout;
	out->num_ranks = info->num_ranks;
	out->num_events = info->num_events;
	out->num_regions = info->num_regions;
	out->names = calloc(out->num_regions + 1, sizeof(char *));
	assert_non_null(out->names);
	for (i = 0; i < out->num_regions; i++)
		out->names[i] = tu_dupstr(info->region_names[i]);
}

int tu_h5_load_pieces(struct tu_h5_loaded *out, const char *path, uint64_t piece_min)
{
	struct h5prof *p = NULL;
	struct tu_loadctx c;
	int rc;

	unsigned long long ids = tu_h5_live_ids();

	memset(out, 0, sizeof(*out));
	rc = h5prof_open(&p, path);
	if (rc) {
		assert_int_equal(tu_h5_live_ids(), ids);
		return rc;
	}
	h5prof_set_piece_min(p, piece_min);
	tu_loadctx_init(&c, out, h5prof_info(p));
	tu_load_info(out, c.info);
	rc = tu_load_done(&c, h5prof_read(p, tu_load_row, &c));
	h5prof_free(p);
	assert_int_equal(tu_h5_live_ids(), ids);
	if (rc)
		tu_h5_loaded_free(out);
	return rc;
}

int tu_h5_load(struct tu_h5_loaded *out, const char *path)
{
	return tu_h5_load_pieces(out, path, 0);
}

int tu_profile_load(struct tu_h5_loaded *out, const char *path)
{
	return tu_profile_load_pieces(out, path, 0);
}

int tu_profile_load_pieces(struct tu_h5_loaded *out, const char *path, uint64_t piece_min)
{
	struct profile *p = NULL;
	struct tu_loadctx c;
	struct stat st;
	int rc, fd = -1;

	memset(out, 0, sizeof(*out));
	rc = profile_open_file(path, &fd, &st);
	if (!rc)
		rc = profile_open(&p, path, fd, &st);
	if (rc) {
		if (fd >= 0)
			close(fd);
		return rc;
	}
	profile_set_piece_min(p, piece_min);
	tu_loadctx_init(&c, out, profile_info(p));
	rc = tu_load_done(&c, profile_read(p, tu_load_row, &c));
	if (!rc)
		tu_load_info(out, c.info);
	profile_free(p);
	close(fd);
	if (rc)
		tu_h5_loaded_free(out);
	return rc;
}

void tu_h5_loaded_free(struct tu_h5_loaded *l)
{
	size_t i;

	for (i = 0; i < l->nrows; i++) {
		struct tu_h5_row *r = &l->rows[i];
		void *owned[] = {r->region,	 r->starts,	 r->durations, r->gpu,
				 r->source_file, r->source_text, r->tags_json};
		size_t k;

		for (k = 0; k < sizeof(owned) / sizeof(owned[0]); k++)
			free(owned[k]);
	}
	free(l->rows);
	for (i = 0; i < l->num_regions; i++)
		free(l->names ? l->names[i] : NULL);
	free(l->names);
	memset(l, 0, sizeof(*l));
}

const struct tu_h5_row *tu_h5_find(const struct tu_h5_loaded *l, uint32_t rank, const char *region)
{
	size_t i;

	for (i = 0; i < l->nrows; i++)
		if (l->rows[i].rank == rank && strcmp(l->rows[i].region, region) == 0)
			return &l->rows[i];
	return NULL;
}

void tu_h5_check(const struct tu_h5_loaded *l, const struct h5write_profile *prof,
		 const struct h5write_opts *opts)
{
	size_t i, c, expect_rows = 0;
	uint64_t events = 0;
	int agg = opts->aggregate;

	for (i = 0; i < prof->nrows; i++) {
		const struct h5write_row *w = &prof->rows[i];
		const struct tu_h5_row *r = tu_h5_find(l, w->rank, w->region);
		struct buf tags = BUF_INIT;
		int64_t total = 0, mn = 0, mx = 0;

		if (opts->schema == 1 && w->calls == 0) {
			assert_null(r);
			continue;
		}
		expect_rows++;
		events += w->calls;
		if (!r)
			fail_msg("row (rank %u, region %s) missing", (unsigned)w->rank, w->region);
		assert_int_equal(r->calls, w->calls);
		assert_int_equal(r->has_events, !agg);
		assert_int_equal(r->source_line, opts->schema == 1 || !agg ? w->source_line : -1);
		assert_string_equal(r->source_file,
				    agg ? "" : (w->source_file ? w->source_file : ""));
		assert_string_equal(r->source_text, "");
		assert_int_equal(json_buf_strarray(&tags, w->tags, w->ntags), 0);
		assert_string_equal(r->tags_json, agg ? "[]" : tags.data);
		buf_release(&tags);
		assert_int_equal(r->exclusive, -1);
		for (c = 0; c < w->calls; c++) {
			int64_t d = w->ends[c] - w->starts[c];

			total += d;
			if (c == 0 || d < mn)
				mn = d;
			if (c == 0 || d > mx)
				mx = d;
			if (agg)
				continue;
			assert_int_equal(r->starts[c], w->starts[c]);
			assert_int_equal(r->durations[c], d);
			if (opts->gpu)
				assert_int_equal(r->gpu[c], w->gpu ? w->gpu[c] : -1);
		}
		if (!agg && w->calls && !opts->gpu)
			assert_null(r->gpu);
		if (agg) {
			assert_int_equal(r->agg_total, total);
			assert_int_equal(r->agg_min, mn);
			assert_int_equal(r->agg_max, mx);
		} else {
			assert_int_equal(r->agg_total, 0);
			assert_int_equal(r->agg_min, 0);
			assert_int_equal(r->agg_max, 0);
		}
	}
	assert_int_equal(l->nrows, expect_rows);
	assert_int_equal(l->num_events, events);
	assert_int_equal(l->schema, opts->schema);
	assert_int_equal(l->layout, opts->schema == 1 ? H5PROF_HIERARCHICAL
				    : agg	      ? H5PROF_AGGREGATE
						      : H5PROF_COLUMNAR);
}
