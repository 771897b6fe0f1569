/*
 * h5write.c - writes scope-profiler merged profiles (schema 1
 * hierarchical, schema 2/3 columnar, aggregate layout) the way
 * scope-profiler lays them out, plus a streaming schema-2/3 writer for very
 * large benchmark files and helpers that damage valid files for tests.
 *
 * Layout written for columnar files (compare h5dump of tests/data/schema-3.h5):
 *   / attrs scope_profiler_schema (int64), storage_layout (string)
 *   /metadata attrs: mpi_size (int64) and the caller's entries
 *   /region_table/names            names in order of first appearance
 *   /rank_region_index/region_ids u32, ranks u32, event_offsets u64,
 *       event_counts u64, source_lines i64, source_files str, source_texts
 *       str (the rows' or ""), tags str (JSON), exclusive_totals i64 (the
 *       rows' or -1), summary_statistics (compound, opts.summary)
 *   /events/start_times + end_times (schema 2) or start_deltas + durations
 *       (schema 3), gpu_durations (opts.gpu), call_ids + parent_ids
 *       (opts.ids), thread_ids + task_ids (opts.lanes)
 * Schema 1 region groups hold the same optional per-call datasets beside
 * their start_times.
 * The aggregate layout replaces the per-event index columns by
 * aggregate_counts/totals/minimums/maximums/exclusives and writes empty
 * event columns.  Every failure is reported as "cannot write 'PATH': WHAT".
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

#include "scopedb/err.h"
#include "h5close.h"
#include "h5write.h"
#include "util/json.h"
#include "util/strmap.h"
#include "scopedb/util.h"

/* Chunk length of chunked datasets (shorter datasets use their length). */
#define H5W_CHUNK 65536
/* Chunk of the extendible event columns of the streaming writer: large
 * enough for fast reads, small enough that a small profile stays small. */
#define H5W_STREAM_CHUNK 16384
/* Events buffered by the streaming writer before they are appended. */
#define H5W_STREAM_BUF ((size_t)1 << 18)

/* Event columns: starts|deltas, ends|durations, gpu, call and parent ids,
 * thread and task ids. */
#define H5W_NCOL 7

/* The rank/region index being built (one entry per written row). */
struct h5w_index {
	struct strmap names; /* region names, ids in order of first appearance */
	struct strmap strs;  /* source files and tags JSON */
	uint32_t *region_ids, *ranks;
	uint64_t *offsets, *counts;
	int64_t *lines, *atot, *amin, *amax, *excl;
	size_t *file_ids, *tags_ids, *text_ids;
	struct h5write_summary *summ;
	size_t n, cap;
};

/* The per-row arrays of struct h5w_index, listed once: what
 * h5w_index_reserve() grows and h5w_index_release() frees. */
/* clang-format off */
#define H5W_INDEX_ARRAYS(X) \
	X(region_ids) X(ranks) X(offsets) X(counts) X(lines) X(atot) X(amin) X(amax) X(excl) \
	X(file_ids) X(tags_ids) X(text_ids) X(summ)
/* clang-format on */

/* Writer context for messages. */
struct h5w {
	const char *path;
	const struct h5write_opts *o;
	hid_t file;
};

struct h5write_stream {
	struct h5w w;
	struct h5write_opts o;
	struct h5w_index ix;
	char *path;
	hid_t d[H5W_NCOL]; /* the event columns (h5w_colname) */
	int64_t *buf[H5W_NCOL];
	size_t blen;
	uint64_t written; /* events appended to the datasets */
	int rc;		  /* first error */
};

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int
h5w_fail(const char *path, int code, const char *fmt, ...)
{
	char msg[700];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return err_set(code, "cannot write '%s': %s", path, msg);
}

/* ---- low-level dataset and attribute helpers ---- */

static hid_t h5w_fapl(void)
{
	hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);

	if (fapl >= 0)
		H5Pset_file_locking(fapl, 0, 1);
	return fapl;
}

/* Variable-length (size 0) or fixed-length UTF-8 string type. */
static hid_t h5w_strtype(size_t fixed_size)
{
	hid_t t = H5Tcopy(H5T_C_S1);

	if (t < 0)
		return t;
	if (H5Tset_size(t, fixed_size ? fixed_size : H5T_VARIABLE) < 0 ||
	    H5Tset_cset(t, H5T_CSET_UTF8) < 0 ||
	    H5Tset_strpad(t, fixed_size ? H5T_STR_NULLPAD : H5T_STR_NULLTERM) < 0) {
		H5Tclose(t);
		return H5I_INVALID_HID;
	}
	return t;
}

/*
 * Create dataset name in loc with n elements of file type ftype and write
 * data (memory type mtype).  Storage follows w->o: contiguous, or chunked
 * (chunk min(n, 65536), at least 1, unlimited maximum size so that empty
 * datasets are valid) optionally with shuffle + deflate(4).  extendible
 * forces chunked storage (streaming writer).
 */
static int h5w_dataset(const struct h5w *w, hid_t loc, const char *name, hid_t ftype, hid_t mtype,
		       const void *data, size_t n, int extendible, hid_t *out)
{
	hsize_t dims[1] = {n}, maxdims[1] = {H5S_UNLIMITED}, chunk[1];
	hid_t space = H5I_INVALID_HID, dcpl = H5I_INVALID_HID, d = H5I_INVALID_HID;
	int chunked = extendible || w->o->chunked || w->o->gzip || w->o->filters;
	unsigned filters = w->o->filters | (w->o->gzip ? H5WRITE_SHUFFLE | H5WRITE_DEFLATE : 0u);
	int rc = 0;

	space = H5Screate_simple(1, dims, chunked ? maxdims : NULL);
	dcpl = H5Pcreate(H5P_DATASET_CREATE);
	if (space < 0 || dcpl < 0) {
		rc = h5w_fail(w->path, ERR_IO, "cannot create dataset '%s'", name);
		goto out;
	}
	if (chunked) {
		hsize_t len = w->o->chunk ? w->o->chunk : H5W_CHUNK;

		chunk[0] = n < len ? (n ? n : 1) : len;
		if (extendible)
			chunk[0] = w->o->chunk ? w->o->chunk : H5W_STREAM_CHUNK;
		if (H5Pset_chunk(dcpl, 1, chunk) < 0 ||
		    /* (libhdf5 checksums no variable-length data) */
		    ((filters & H5WRITE_FLETCHER32) && H5Tis_variable_str(ftype) <= 0 &&
		     H5Pset_fletcher32(dcpl) < 0) ||
		    ((filters & H5WRITE_SHUFFLE) && H5Pset_shuffle(dcpl) < 0) ||
		    ((filters & H5WRITE_DEFLATE) &&
		     H5Pset_deflate(dcpl, w->o->gzip_level > 0 ? (unsigned)w->o->gzip_level : 4u) <
			 0)) {
			rc = h5w_fail(w->path, ERR_IO, "cannot set the storage of '%s'", name);
			goto out;
		}
	}
	d = H5Dcreate2(loc, name, ftype, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
	if (d < 0) {
		rc = h5w_fail(w->path, ERR_IO, "cannot create dataset '%s'", name);
		goto out;
	}
	if (n && data && H5Dwrite(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0)
		rc = h5w_fail(w->path, ERR_IO, "cannot write dataset '%s'", name);
out:
	if (!rc && out)
		*out = d; /* the caller's to close */
	else
		h5close(d);
	h5close(dcpl);
	h5close(space);
	return rc;
}

static int h5w_i64(const struct h5w *w, hid_t loc, const char *name, const int64_t *v, size_t n)
{
	return h5w_dataset(w, loc, name, H5T_STD_I64LE, H5T_NATIVE_INT64, v, n, 0, NULL);
}

/* Longest string + 1 (at least 1): the fixed-length string size. */
static size_t h5w_fixed_size(const char *const *s, size_t n)
{
	size_t i, m = 1;

	for (i = 0; i < n; i++)
		if (strlen(s[i]) + 1 > m)
			m = strlen(s[i]) + 1;
	return m;
}

/* Pack n strings into a NUL-padded n * size buffer (malloc). */
static char *h5w_pack(const char *const *s, size_t n, size_t size)
{
	char *b = calloc(n ? n : 1, size);
	size_t i;

	if (!b) {
		err_nomem();
		return NULL;
	}
	for (i = 0; i < n; i++)
		memcpy(b + i * size, s[i], strlen(s[i]));
	return b;
}

/*
 * The type and data of n strings: variable-length UTF-8 (fixed == 0; *data
 * is s), or fixed-length UTF-8 of the longest string's size, packed into
 * *packed (freed by the caller, NULL otherwise).  *type is closed by the
 * caller on success.
 */
static int h5w_strdata(const char *path, const char *const *s, size_t n, int fixed, hid_t *type,
		       char **packed, const void **data)
{
	size_t size = fixed ? h5w_fixed_size(s, n) : 0;

	*packed = NULL;
	*data = s;
	*type = h5w_strtype(size);
	if (*type < 0)
		return h5w_fail(path, ERR_IO, "cannot create a string type");
	if (size) {
		*packed = h5w_pack(s, n, size);
		if (!*packed) {
			H5Tclose(*type);
			*type = H5I_INVALID_HID;
			return ERR_NOMEM;
		}
		*data = *packed;
	}
	return 0;
}

/* A string dataset, variable or fixed length according to w->o. */
static int h5w_strings(const struct h5w *w, hid_t loc, const char *name, const char *const *s,
		       size_t n)
{
	const void *data;
	char *packed;
	hid_t t;
	int rc;

	rc = h5w_strdata(w->path, s, n, w->o->fixed_strings, &t, &packed, &data);
	if (rc)
		return rc;
	rc = h5w_dataset(w, loc, name, t, t, data, n, 0, NULL);
	free(packed);
	H5Tclose(t);
	return rc;
}

/* Create attribute name on obj (file type ftype, memory type mtype): scalar
 * (dims == NULL) or one-dimensional. */
static int h5w_attr(const char *path, hid_t obj, const char *name, hid_t ftype, hid_t mtype,
		    const hsize_t *dims, const void *data)
{
	hid_t space = dims ? H5Screate_simple(1, dims, NULL) : H5Screate(H5S_SCALAR);
	hid_t a = H5I_INVALID_HID;
	int rc = 0;

	if (space >= 0)
		a = H5Acreate2(obj, name, ftype, space, H5P_DEFAULT, H5P_DEFAULT);
	if (a < 0 || H5Awrite(a, mtype, data) < 0)
		rc = h5w_fail(path, ERR_IO, "cannot write attribute '%s'", name);
	h5close(a);
	h5close(space);
	return rc;
}

static int h5w_attr_i64(const char *path, hid_t obj, const char *name, int64_t v)
{
	return h5w_attr(path, obj, name, H5T_STD_I64LE, H5T_NATIVE_INT64, NULL, &v);
}

/* String attribute (scalar when n == SIZE_MAX, else n strings). */
static int h5w_attr_str(const char *path, hid_t obj, const char *name, const char *const *s,
			size_t n, int fixed)
{
	size_t cnt = n == SIZE_MAX ? 1 : n;
	hsize_t dims[1] = {cnt};
	const void *data;
	char *packed;
	hid_t t;
	int rc;

	rc = h5w_strdata(path, s, cnt, fixed, &t, &packed, &data);
	if (rc)
		return rc;
	rc = h5w_attr(path, obj, name, t, t, n == SIZE_MAX ? NULL : dims, data);
	free(packed);
	H5Tclose(t);
	return rc;
}

/* Create group name in loc into *g (or, with reuse, open it when it
 * exists): 0, or ERR_IO, reported, with *g negative. */
static int h5w_group(const struct h5w *w, hid_t loc, const char *name, int reuse, hid_t *g)
{
	if (reuse && H5Lexists(loc, name, H5P_DEFAULT) > 0)
		*g = H5Gopen2(loc, name, H5P_DEFAULT);
	else if ((*g = H5Gcreate2(loc, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)) < 0)
		h5w_fail(w->path, ERR_IO, "cannot create group '%s'", name);
	return *g < 0 ? ERR_IO : 0;
}

/* ---- common parts ---- */

static int h5w_check_opts(const char *path, const struct h5write_opts *o)
{
	if (o->schema < 1 || o->schema > 3)
		return h5w_fail(path, ERR_USAGE, "unsupported schema %d (1-3)", o->schema);
	if (o->aggregate && o->schema < 2)
		return h5w_fail(path, ERR_USAGE, "the aggregate layout needs schema 2 or 3");
	return 0;
}

static int h5w_meta_into(const struct h5w *w, const struct h5write_meta *meta, size_t nmeta);

/* Root attributes (schema >= 2) and /metadata. */
static int h5w_header(const struct h5w *w, const struct h5write_meta *meta, size_t nmeta)
{
	hid_t g = H5I_INVALID_HID;
	size_t i;
	int rc = 0, have_mpi = 0;

	if (w->o->schema >= 2) {
		const char *layout = w->o->aggregate ? "aggregate" : "columnar";

		rc = h5w_attr_i64(w->path, w->file, "scope_profiler_schema", w->o->schema);
		if (!rc)
			rc = h5w_attr_str(w->path, w->file, "storage_layout", &layout, SIZE_MAX,
					  w->o->fixed_strings);
		if (rc)
			goto out;
	}
	rc = h5w_group(w, w->file, "metadata", 0, &g);
	if (rc)
		goto out;
	for (i = 0; i < nmeta; i++)
		if (strcmp(meta[i].key, "mpi_size") == 0)
			have_mpi = 1;
	if (w->o->mpi_size > 0 && !have_mpi) {
		rc = h5w_attr_i64(w->path, g, "mpi_size", w->o->mpi_size);
		if (rc)
			goto out;
	}
out:
	h5close(g);
	return rc ? rc : h5w_meta_into(w, meta, nmeta);
}

static hid_t h5w_create(const char *path, size_t userblock)
{
	hid_t fapl = h5w_fapl(), fcpl = H5Pcreate(H5P_FILE_CREATE);
	hid_t f = H5I_INVALID_HID;

	if (fcpl >= 0 && (!userblock || H5Pset_userblock(fcpl, userblock) >= 0))
		f = H5Fcreate(path, H5F_ACC_TRUNC, fcpl, fapl);
	h5close(fcpl);
	h5close(fapl);
	if (f < 0)
		h5w_fail(path, ERR_IO, "cannot create the file");
	return f;
}

static int h5w_close_file(const char *path, hid_t f)
{
	if (f >= 0 && H5Fclose(f) < 0)
		return h5w_fail(path, ERR_IO, "cannot close the file");
	return 0;
}

/* ---- the index ---- */

static void h5w_index_init(struct h5w_index *ix)
{
	memset(ix, 0, sizeof(*ix));
	strmap_init(&ix->names);
	strmap_init(&ix->strs);
}

static void h5w_index_release(struct h5w_index *ix)
{
	strmap_release(&ix->names);
	strmap_release(&ix->strs);
#define H5W_FREE(field) free(ix->field);
	H5W_INDEX_ARRAYS(H5W_FREE)
#undef H5W_FREE
	h5w_index_init(ix);
}

/* Grow ix->field to cap entries: a whole statement, for H5W_INDEX_ARRAYS. */
#define H5W_GROW(field)                                                                            \
	do {                                                                                       \
		void *np_ = realloc(ix->field, cap * sizeof(*ix->field));                          \
		if (!np_)                                                                          \
			return err_nomem();                                                        \
		ix->field = np_;                                                                   \
	} while (0);

static int h5w_index_reserve(struct h5w_index *ix)
{
	size_t cap;

	if (ix->n < ix->cap)
		return 0;
	cap = ix->cap ? ix->cap * 2 : 64;
	H5W_INDEX_ARRAYS(H5W_GROW)
	ix->cap = cap;
	return 0;
}

void h5write_summarize(const struct h5write_row *r, struct h5write_summary *s)
{
	size_t i;
	double sum = 0;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < r->calls; i++) {
		int64_t d = r->ends[i] - r->starts[i];

		if (i == 0 || d < s->minimum)
			s->minimum = d;
		if (i == 0 || d > s->maximum)
			s->maximum = d;
		if (i == 0 || r->starts[i] < s->start_minimum)
			s->start_minimum = r->starts[i];
		if (i == 0 || r->ends[i] > s->end_maximum)
			s->end_maximum = r->ends[i];
		s->total += d;
		sum += (double)d;
		if (r->gpu && r->gpu[i] >= 0) {
			s->gpu_count++;
			s->gpu_total += r->gpu[i];
		}
	}
	if (r->calls) {
		s->first = r->ends[0] - r->starts[0];
		s->last = r->ends[r->calls - 1] - r->starts[r->calls - 1];
		s->mean = sum / (double)r->calls;
		for (i = 0; i < r->calls; i++) {
			double dev = (double)(r->ends[i] - r->starts[i]) - s->mean;

			s->m2 += dev * dev;
		}
	}
}

/* Append row r (whose events start at offset) to the index. */
static int h5w_index_add(const char *path, struct h5w_index *ix, const struct h5write_row *r,
			 uint64_t offset, int names_fixed)
{
	struct buf tags = BUF_INIT;
	size_t id, i = ix->n;
	int rc;

	if (!r->region)
		return h5w_fail(path, ERR_USAGE, "a row has no region name");
	if (r->calls && (!r->starts || !r->ends))
		return h5w_fail(path, ERR_USAGE, "a row with calls has no times");
	rc = h5w_index_reserve(ix);
	if (rc)
		return rc;
	if (names_fixed) {
		id = strmap_find(&ix->names, r->region);
		if (id == STRMAP_NONE)
			return h5w_fail(path, ERR_USAGE, "region '%s' was not declared", r->region);
	} else if ((rc = strmap_intern(&id, &ix->names, r->region))) {
		return rc;
	}
	ix->region_ids[i] = (uint32_t)id;
	ix->ranks[i] = r->rank;
	ix->offsets[i] = offset;
	ix->counts[i] = r->calls;
	ix->lines[i] = r->source_line;
	rc = strmap_intern(&ix->file_ids[i], &ix->strs, r->source_file ? r->source_file : "");
	if (!rc)
		rc = strmap_intern(&ix->text_ids[i], &ix->strs,
				   r->source_text ? r->source_text : "");
	if (rc)
		return rc;
	ix->excl[i] = r->has_exclusive ? r->exclusive : -1;
	rc = json_buf_strarray(&tags, r->tags, r->ntags);
	if (!rc)
		rc = strmap_intern(&ix->tags_ids[i], &ix->strs, tags.data);
	buf_release(&tags);
	if (rc)
		return rc;
	h5write_summarize(r, &ix->summ[i]);
	ix->atot[i] = ix->summ[i].total;
	ix->amin[i] = ix->summ[i].minimum;
	ix->amax[i] = ix->summ[i].maximum;
	ix->n++;
	return 0;
}

static hid_t h5w_summary_type(void)
{
	hid_t t = H5Tcreate(H5T_COMPOUND, sizeof(struct h5write_summary));

	if (t < 0)
		return t;
	H5Tinsert(t, "total", HOFFSET(struct h5write_summary, total), H5T_NATIVE_INT64);
	H5Tinsert(t, "minimum", HOFFSET(struct h5write_summary, minimum), H5T_NATIVE_INT64);
	H5Tinsert(t, "maximum", HOFFSET(struct h5write_summary, maximum), H5T_NATIVE_INT64);
	H5Tinsert(t, "first", HOFFSET(struct h5write_summary, first), H5T_NATIVE_INT64);
	H5Tinsert(t, "last", HOFFSET(struct h5write_summary, last), H5T_NATIVE_INT64);
	H5Tinsert(t, "start_minimum", HOFFSET(struct h5write_summary, start_minimum),
		  H5T_NATIVE_INT64);
	H5Tinsert(t, "end_maximum", HOFFSET(struct h5write_summary, end_maximum), H5T_NATIVE_INT64);
	H5Tinsert(t, "gpu_count", HOFFSET(struct h5write_summary, gpu_count), H5T_NATIVE_UINT64);
	H5Tinsert(t, "gpu_total", HOFFSET(struct h5write_summary, gpu_total), H5T_NATIVE_INT64);
	H5Tinsert(t, "mean", HOFFSET(struct h5write_summary, mean), H5T_NATIVE_DOUBLE);
	H5Tinsert(t, "m2", HOFFSET(struct h5write_summary, m2), H5T_NATIVE_DOUBLE);
	return t;
}

/* String dataset name of loc: the strings of map with ids ids[0..n) (NULL:
 * 0..n), gathered in the caller's n slots s (the index's string columns). */
static int h5w_map_strings(const struct h5w *w, hid_t loc, const char *name,
			   const struct strmap *map, const size_t *ids, size_t n, const char **s)
{
	size_t i;

	for (i = 0; i < n; i++)
		s[i] = strmap_get(map, ids ? ids[i] : i);
	return h5w_strings(w, loc, name, s, n);
}

/* A dataset of /rank_region_index: numbers (type: file and memory type)
 * or, without a type, the index's strings of ids. */
struct h5w_icol {
	const char *name;
	char layout; /* 0: every layout, 'c': columnar, 'a': aggregate only */
	const hid_t *type;
	const void *v;
	const size_t *ids;
};

/* Write column c of ix into g (s: a slot for each row). */
static int h5w_index_column(const struct h5w *w, hid_t g, const struct h5w_icol *c,
			    const struct h5w_index *ix, const char **s)
{
	if (!c->type)
		return h5w_map_strings(w, g, c->name, &ix->strs, c->ids, ix->n, s);
	return h5w_dataset(w, g, c->name, c->type[0], c->type[1], c->v, ix->n, 0, NULL);
}

/* Write /region_table/names and /rank_region_index from ix. */
static int h5w_index_write(const struct h5w *w, const struct h5w_index *ix)
{
	const hid_t u32[2] = {H5T_STD_U32LE, H5T_NATIVE_UINT32};
	const hid_t u64[2] = {H5T_STD_U64LE, H5T_NATIVE_UINT64};
	const hid_t i64[2] = {H5T_STD_I64LE, H5T_NATIVE_INT64};
	/* the datasets of /rank_region_index, in the order written */
	const struct h5w_icol cols[] = {
	    {"region_ids", 0, u32, ix->region_ids, NULL},
	    {"ranks", 0, u32, ix->ranks, NULL},
	    {"aggregate_counts", 'a', u64, ix->counts, NULL},
	    {"aggregate_totals", 'a', i64, ix->atot, NULL},
	    {"aggregate_minimums", 'a', i64, ix->amin, NULL},
	    {"aggregate_maximums", 'a', i64, ix->amax, NULL},
	    {"aggregate_exclusives", 'a', i64, ix->excl, NULL},
	    {"event_offsets", 'c', u64, ix->offsets, NULL},
	    {"event_counts", 'c', u64, ix->counts, NULL},
	    {"source_lines", 'c', i64, ix->lines, NULL},
	    {"source_files", 'c', NULL, NULL, ix->file_ids},
	    {"source_texts", 'c', NULL, NULL, ix->text_ids},
	    {"tags", 'c', NULL, NULL, ix->tags_ids},
	    {"exclusive_totals", 'c', i64, ix->excl, NULL},
	};
	hid_t g = H5I_INVALID_HID, st = H5I_INVALID_HID;
	const char **s = NULL;
	size_t i, nn = strmap_count(&ix->names), big = nn > ix->n ? nn : ix->n;
	int rc = 0;

	s = calloc(big ? big : 1, sizeof(*s));
	if (!s) {
		rc = err_nomem();
		goto out;
	}
	rc = h5w_group(w, w->file, "region_table", 0, &g);
	if (!rc)
		rc = h5w_map_strings(w, g, "names", &ix->names, NULL, nn, s);
	if (rc)
		goto out;
	H5Gclose(g);
	rc = h5w_group(w, w->file, "rank_region_index", 0, &g);
	for (i = 0; i < sizeof(cols) / sizeof(cols[0]) && !rc; i++)
		if (cols[i].layout != (w->o->aggregate ? 'c' : 'a'))
			rc = h5w_index_column(w, g, &cols[i], ix, s);
	if (rc || w->o->aggregate || !w->o->summary)
		goto out;
	st = h5w_summary_type();
	if (st < 0) {
		rc = h5w_fail(w->path, ERR_IO, "cannot create the summary type");
		goto out;
	}
	rc = h5w_dataset(w, g, "summary_statistics", st, st, ix->summ, ix->n, 0, NULL);
out:
	h5close(st);
	h5close(g);
	free(s);
	return rc;
}

/* Name of event column k of an event table of the given schema (k < 2:
 * the times; schema 3 stores them as deltas and durations, schemas 1 and 2
 * as start and end times). */
static const char *h5w_colname(int schema, int k)
{
	static const char *const opt[H5W_NCOL] = {
	    NULL, NULL, "gpu_durations", "call_ids", "parent_ids", "thread_ids", "task_ids"};

	if (k == 0)
		return schema == 3 ? "start_deltas" : "start_times";
	if (k == 1)
		return schema == 3 ? "durations" : "end_times";
	return opt[k];
}

/* Whether opts write event column k. */
static int h5w_has_col(const struct h5write_opts *o, int k)
{
	return k < 2 || (k == 2 && o->gpu) || ((k == 3 || k == 4) && o->ids) ||
	       ((k == 5 || k == 6) && o->lanes);
}

/* The caller's values of column k of row r (0, 1: its starts and ends),
 * or NULL. */
static const int64_t *h5w_rowcol(const struct h5write_row *r, int k)
{
	const int64_t *v[H5W_NCOL] = {r->starts,     r->ends,	    r->gpu,	r->call_ids,
				      r->parent_ids, r->thread_ids, r->task_ids};

	return v[k];
}

/* Values of the event columns for one row at ev[k] + at (NULL columns
 * skipped): schema 2 starts/ends, schema 3 deltas/durations; optional
 * columns -1 where the row has none. */
static void h5w_encode(int schema, const struct h5write_row *r, int64_t *const *ev, size_t at)
{
	size_t i;
	int k;

	for (i = 0; i < r->calls; i++) {
		if (schema == 2) {
			ev[0][at + i] = r->starts[i];
			ev[1][at + i] = r->ends[i];
		} else {
			ev[0][at + i] = i ? r->starts[i] - r->starts[i - 1] : r->starts[i];
			ev[1][at + i] = r->ends[i] - r->starts[i];
		}
	}
	for (k = 2; k < H5W_NCOL; k++) {
		const int64_t *src = h5w_rowcol(r, k);

		if (!ev[k])
			continue;
		for (i = 0; i < r->calls; i++)
			ev[k][at + i] = src ? src[i] : -1;
	}
}

static int h5w_columnar(const struct h5w *w, const struct h5write_profile *prof)
{
	struct h5w_index ix;
	int64_t *ev[H5W_NCOL] = {NULL};
	uint64_t total = 0, off = 0;
	hid_t g = H5I_INVALID_HID;
	size_t i;
	int k, rc = 0;

	h5w_index_init(&ix);
	for (i = 0; i < prof->nrows; i++)
		total += prof->rows[i].calls;
	if (!w->o->aggregate) {
		for (k = 0; k < H5W_NCOL; k++) {
			if (!h5w_has_col(w->o, k))
				continue;
			ev[k] = malloc((size_t)(total ? total : 1) * sizeof(int64_t));
			if (!ev[k]) {
				rc = err_nomem();
				goto out;
			}
		}
	}
	for (i = 0; i < prof->nrows; i++) {
		const struct h5write_row *r = &prof->rows[i];

		rc = h5w_index_add(w->path, &ix, r, off, 0);
		if (rc)
			goto out;
		if (!w->o->aggregate)
			h5w_encode(w->o->schema, r, ev, (size_t)off);
		off += r->calls;
	}
	if (w->o->aggregate)
		total = 0;
	rc = h5w_index_write(w, &ix);
	if (rc)
		goto out;
	rc = h5w_group(w, w->file, "events", 0, &g);
	/* the aggregate layout's event columns are empty: the times only */
	for (k = 0; k < H5W_NCOL && !rc; k++)
		if (h5w_has_col(w->o, k) && (k < 3 || !w->o->aggregate))
			rc = h5w_i64(w, g, h5w_colname(w->o->schema, k), ev[k], (size_t)total);
out:
	h5close(g);
	for (k = 0; k < H5W_NCOL; k++)
		free(ev[k]);
	h5w_index_release(&ix);
	return rc;
}

/* ---- schema 1 ---- */

static int h5w_hier_row(const struct h5w *w, const struct h5write_row *r)
{
	char name[64];
	hid_t rg = H5I_INVALID_HID, regs = H5I_INVALID_HID, g = H5I_INVALID_HID;
	int64_t *tmp = NULL;
	size_t i;
	int k, rc = 0;

	if (!r->region || !*r->region || strchr(r->region, '/') || strcmp(r->region, ".") == 0)
		return h5w_fail(w->path, ERR_USAGE, "region name '%s' cannot be a group name",
				r->region ? r->region : "");
	if (r->calls && (!r->starts || !r->ends))
		return h5w_fail(w->path, ERR_USAGE, "a row with calls has no times");
	snprintf(name, sizeof(name), "rank%" PRIu32, r->rank);
	rc = h5w_group(w, w->file, name, 1, &rg);
	if (!rc)
		rc = h5w_group(w, rg, "regions", 1, &regs);
	if (rc || r->calls == 0)
		goto out; /* schema 1 has no zero-call regions */
	rc = h5w_group(w, regs, r->region, 0, &g);
	for (k = 0; k < H5W_NCOL && !rc; k++) {
		const int64_t *src = h5w_rowcol(r, k);

		if (!h5w_has_col(w->o, k))
			continue;
		if (!src && !tmp) {
			/* a column the row has no values of: -1 each */
			tmp = malloc(r->calls * sizeof(*tmp));
			if (!tmp) {
				rc = err_nomem();
				goto out;
			}
			for (i = 0; i < r->calls; i++)
				tmp[i] = -1;
		}
		rc = h5w_i64(w, g, h5w_colname(1, k), src ? src : tmp, r->calls);
	}
	if (rc)
		goto out;
	if (r->source_file && *r->source_file)
		rc = h5w_attr_str(w->path, g, "source_file", &r->source_file, SIZE_MAX,
				  w->o->fixed_strings);
	if (!rc && r->source_text && *r->source_text)
		rc = h5w_attr_str(w->path, g, "source_text", &r->source_text, SIZE_MAX,
				  w->o->fixed_strings);
	if (!rc && r->source_line >= 0)
		rc = h5w_attr_i64(w->path, g, "source_lineno", r->source_line);
	if (!rc && r->ntags)
		rc = h5w_attr_str(w->path, g, "tags", r->tags, r->ntags, w->o->fixed_strings);
out:
	free(tmp);
	h5close(g);
	h5close(regs);
	h5close(rg);
	return rc;
}

int h5write_file(const char *path, const struct h5write_profile *prof,
		 const struct h5write_opts *opts)
{
	struct h5w w = {path, opts, H5I_INVALID_HID};
	size_t i;
	int rc;

	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	rc = h5w_check_opts(path, opts);
	if (rc)
		return rc;
	w.file = h5w_create(path, opts->userblock);
	if (w.file < 0)
		return ERR_IO;
	rc = h5w_header(&w, prof->meta, prof->nmeta);
	if (rc)
		goto out;
	if (opts->schema == 1) {
		for (i = 0; i < prof->nrows && !rc; i++)
			rc = h5w_hier_row(&w, &prof->rows[i]);
	} else {
		rc = h5w_columnar(&w, prof);
	}
out:
	if (h5w_close_file(path, w.file) && !rc)
		rc = ERR_IO;
	return rc;
}

/* ---- streaming writer ---- */

/* Append the buffered events to the event datasets. */
static int h5w_stream_flush(struct h5write_stream *s)
{
	hsize_t start = s->written, count = s->blen, size = s->written + s->blen;
	hid_t mem = H5I_INVALID_HID, fs = H5I_INVALID_HID;
	int k, rc = 0;

	if (!s->blen)
		return 0;
	mem = H5Screate_simple(1, &count, NULL);
	for (k = 0; k < H5W_NCOL && !rc; k++) {
		if (s->d[k] < 0)
			continue;
		if (mem < 0 || H5Dset_extent(s->d[k], &size) < 0 ||
		    (fs = H5Dget_space(s->d[k])) < 0 ||
		    H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &count, NULL) < 0 ||
		    H5Dwrite(s->d[k], H5T_NATIVE_INT64, mem, fs, H5P_DEFAULT, s->buf[k]) < 0)
			rc = h5w_fail(s->path, ERR_IO, "cannot append events");
		h5close(fs);
		fs = H5I_INVALID_HID;
	}
	h5close(mem);
	s->written += s->blen;
	s->blen = 0;
	return rc;
}

int h5write_stream_open(struct h5write_stream **out, const char *path,
			const char *const *region_names, size_t nregions,
			const struct h5write_opts *opts)
{
	struct h5write_stream *s;
	hid_t g = H5I_INVALID_HID;
	size_t i, id;
	int k, rc;

	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	rc = h5w_check_opts(path, opts);
	if (rc)
		return rc;
	if (opts->schema < 2 || opts->aggregate)
		return h5w_fail(path, ERR_USAGE,
				"the streaming writer writes columnar schema 2 or 3 only");
	s = calloc(1, sizeof(*s));
	if (!s)
		return err_nomem();
	s->o = *opts;
	s->w.o = &s->o;
	s->w.file = H5I_INVALID_HID;
	for (k = 0; k < H5W_NCOL; k++)
		s->d[k] = H5I_INVALID_HID;
	h5w_index_init(&s->ix);
	s->path = util_strdup(path);
	if (!s->path) {
		rc = ERR_NOMEM;
		goto out;
	}
	s->w.path = s->path;
	for (i = 0; i < nregions; i++) {
		rc = strmap_intern(&id, &s->ix.names, region_names[i]);
		if (rc)
			goto out;
		if (id != i) {
			rc = h5w_fail(path, ERR_USAGE, "region '%s' is listed twice",
				      region_names[i]);
			goto out;
		}
	}
	for (k = 0; k < H5W_NCOL; k++) {
		if (!h5w_has_col(opts, k))
			continue;
		s->buf[k] = malloc(H5W_STREAM_BUF * sizeof(int64_t));
		if (!s->buf[k]) {
			rc = err_nomem();
			goto out;
		}
	}
	s->w.file = h5w_create(path, opts->userblock);
	if (s->w.file < 0) {
		rc = ERR_IO;
		goto out;
	}
	rc = h5w_header(&s->w, NULL, 0);
	if (rc)
		goto out;
	rc = h5w_group(&s->w, s->w.file, "events", 0, &g);
	for (k = 0; k < H5W_NCOL && !rc; k++)
		if (h5w_has_col(opts, k))
			rc = h5w_dataset(&s->w, g, h5w_colname(opts->schema, k), H5T_STD_I64LE,
					 H5T_NATIVE_INT64, NULL, 0, 1, &s->d[k]);
	if (rc)
		goto out;
	*out = s;
	s = NULL;
out:
	h5close(g);
	if (s) {
		s->rc = rc;
		h5write_stream_close(s);
	}
	return rc;
}

/* Write the meta entries into /metadata (header already written). */
static int h5w_meta_into(const struct h5w *w, const struct h5write_meta *meta, size_t nmeta)
{
	hid_t g = H5Gopen2(w->file, "metadata", H5P_DEFAULT);
	size_t i;
	int rc = 0;

	if (g < 0)
		return h5w_fail(w->path, ERR_IO, "cannot open group 'metadata'");
	for (i = 0; i < nmeta && !rc; i++) {
		const struct h5write_meta *m = &meta[i];

		hsize_t dims[1] = {m->n};
		uint64_t u = (uint64_t)m->i;
		int32_t i32 = (int32_t)m->i;

		switch (m->kind) {
		case H5WRITE_META_INT:
			rc = h5w_attr_i64(w->path, g, m->key, m->i);
			break;
		case H5WRITE_META_STR:
			rc = h5w_attr_str(w->path, g, m->key, &m->str, SIZE_MAX,
					  w->o->fixed_strings);
			break;
		case H5WRITE_META_STRARRAY:
			rc = h5w_attr_str(w->path, g, m->key, m->strs, m->nstrs,
					  w->o->fixed_strings);
			break;
		case H5WRITE_META_UINT:
			rc = h5w_attr(w->path, g, m->key, H5T_STD_U64LE, H5T_NATIVE_UINT64, NULL,
				      &u);
			break;
		case H5WRITE_META_INT32:
			rc = h5w_attr(w->path, g, m->key, H5T_STD_I32LE, H5T_NATIVE_INT32, NULL,
				      &i32);
			break;
		case H5WRITE_META_FLOAT:
			rc = h5w_attr(w->path, g, m->key, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, NULL,
				      &m->f);
			break;
		case H5WRITE_META_INTARRAY:
			rc = h5w_attr(w->path, g, m->key, H5T_STD_I64LE, H5T_NATIVE_INT64, dims,
				      m->ints);
			break;
		case H5WRITE_META_FLOATARRAY:
			rc = h5w_attr(w->path, g, m->key, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, dims,
				      m->floats);
			break;
		}
	}
	H5Gclose(g);
	return rc;
}

int h5write_stream_meta(struct h5write_stream *s, const struct h5write_meta *meta, size_t nmeta)
{
	if (s->rc)
		return s->rc;
	s->rc = h5w_meta_into(&s->w, meta, nmeta);
	return s->rc;
}

int h5write_stream_row(struct h5write_stream *s, const struct h5write_row *row)
{
	size_t done = 0;
	int rc;

	if (s->rc)
		return s->rc;
	rc = h5w_index_add(s->path, &s->ix, row, s->written + s->blen, 1);
	while (!rc && done < row->calls) {
		struct h5write_row part = *row;
		size_t take = row->calls - done;

		if (s->blen == H5W_STREAM_BUF) {
			rc = h5w_stream_flush(s);
			if (rc)
				break;
		}
		if (take > H5W_STREAM_BUF - s->blen)
			take = H5W_STREAM_BUF - s->blen;
		/* encode the slice [done, done + take): deltas need the previous start */
		part.calls = take;
		part.starts = row->starts + done;
		part.ends = row->ends + done;
		part.gpu = row->gpu ? row->gpu + done : NULL;
		part.call_ids = row->call_ids ? row->call_ids + done : NULL;
		part.parent_ids = row->parent_ids ? row->parent_ids + done : NULL;
		part.thread_ids = row->thread_ids ? row->thread_ids + done : NULL;
		part.task_ids = row->task_ids ? row->task_ids + done : NULL;
		h5w_encode(s->o.schema, &part, s->buf, s->blen);
		if (done && s->o.schema == 3)
			s->buf[0][s->blen] = row->starts[done] - row->starts[done - 1];
		s->blen += take;
		done += take;
	}
	s->rc = rc;
	return rc;
}

int h5write_stream_close(struct h5write_stream *s)
{
	int k, rc;

	if (!s)
		return 0;
	rc = s->rc;
	if (!rc && s->w.file >= 0) {
		rc = h5w_stream_flush(s);
		if (!rc)
			rc = h5w_index_write(&s->w, &s->ix);
	}
	for (k = 0; k < H5W_NCOL; k++) {
		if (s->d[k] >= 0)
			H5Dclose(s->d[k]);
		free(s->buf[k]);
	}
	if (h5w_close_file(s->path ? s->path : "", s->w.file) && !rc)
		rc = ERR_IO;
	h5w_index_release(&s->ix);
	free(s->path);
	free(s);
	return rc;
}

/* ---- damage helpers for tests ---- */

static hid_t h5w_open_rw(const char *path)
{
	hid_t fapl = h5w_fapl();
	hid_t f;

	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	f = H5Fopen(path, H5F_ACC_RDWR, fapl);
	h5close(fapl);
	if (f < 0)
		h5w_fail(path, ERR_IO, "cannot open the file for writing");
	return f;
}

/* Delete the link or root attribute obj ("@name") if it exists. */
static int h5w_remove(const char *path, hid_t f, const char *obj)
{
	if (obj[0] == '@') {
		htri_t e = H5Aexists(f, obj + 1);

		if (e > 0 && H5Adelete(f, obj + 1) < 0)
			return h5w_fail(path, ERR_IO, "cannot delete attribute '%s'", obj + 1);
		return 0;
	}
	if (H5Lexists(f, obj, H5P_DEFAULT) > 0 && H5Ldelete(f, obj, H5P_DEFAULT) < 0)
		return h5w_fail(path, ERR_IO, "cannot delete '%s'", obj);
	return 0;
}

int h5write_replace_dataset(const char *path, const char *dataset, enum h5write_type type,
			    const void *data, size_t n)
{
	hid_t f, lcpl = H5I_INVALID_HID, space = H5I_INVALID_HID, d = H5I_INVALID_HID;
	hid_t ft = H5I_INVALID_HID, mt = H5I_INVALID_HID;
	hsize_t dims[1] = {n};
	int rc = 0;

	f = h5w_open_rw(path);
	if (f < 0)
		return ERR_IO;
	rc = h5w_remove(path, f, dataset);
	if (rc)
		goto out;
	if (type == H5WRITE_STR) {
		ft = h5w_strtype(0);
		mt = h5w_strtype(0);
	} else if ((unsigned)type < H5WRITE_STR) {
		/* the file and memory types of each numeric type */
		const hid_t fts[] = {[H5WRITE_I64] = H5T_STD_I64LE,
				     [H5WRITE_U64] = H5T_STD_U64LE,
				     [H5WRITE_U32] = H5T_STD_U32LE,
				     [H5WRITE_F64] = H5T_IEEE_F64LE};
		const hid_t mts[] = {[H5WRITE_I64] = H5T_NATIVE_INT64,
				     [H5WRITE_U64] = H5T_NATIVE_UINT64,
				     [H5WRITE_U32] = H5T_NATIVE_UINT32,
				     [H5WRITE_F64] = H5T_NATIVE_DOUBLE};

		ft = H5Tcopy(fts[type]);
		mt = H5Tcopy(mts[type]);
	}
	lcpl = H5Pcreate(H5P_LINK_CREATE);
	space = H5Screate_simple(1, dims, NULL);
	if (ft < 0 || mt < 0 || lcpl < 0 || space < 0 ||
	    H5Pset_create_intermediate_group(lcpl, 1) < 0) {
		rc = h5w_fail(path, ERR_IO, "cannot prepare dataset '%s'", dataset);
		goto out;
	}
	d = H5Dcreate2(f, dataset, ft, space, lcpl, H5P_DEFAULT, H5P_DEFAULT);
	if (d < 0 || (n && H5Dwrite(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0))
		rc = h5w_fail(path, ERR_IO, "cannot write dataset '%s'", dataset);
out:
	h5close(d);
	h5close(space);
	h5close(lcpl);
	h5close(ft);
	h5close(mt);
	if (h5w_close_file(path, f) && !rc)
		rc = ERR_IO;
	return rc;
}

int h5write_delete(const char *path, const char *object)
{
	hid_t f = h5w_open_rw(path);
	int rc;

	if (f < 0)
		return ERR_IO;
	rc = h5w_remove(path, f, object);
	if (h5w_close_file(path, f) && !rc)
		rc = ERR_IO;
	return rc;
}

/* Replace root attribute name of path by a scalar of type ftype (memory
 * type mtype) holding *v. */
static int h5w_set_root_attr(const char *path, const char *name, hid_t ftype, hid_t mtype,
			     const void *v)
{
	hid_t f = h5w_open_rw(path);
	char at[300];
	int rc;

	if (f < 0)
		return ERR_IO;
	snprintf(at, sizeof(at), "@%s", name);
	rc = h5w_remove(path, f, at);
	if (!rc)
		rc = h5w_attr(path, f, name, ftype, mtype, NULL, v);
	if (h5w_close_file(path, f) && !rc)
		rc = ERR_IO;
	return rc;
}

int h5write_set_root_attr_i64(const char *path, const char *name, int64_t v)
{
	return h5w_set_root_attr(path, name, H5T_STD_I64LE, H5T_NATIVE_INT64, &v);
}

int h5write_set_root_attr_str(const char *path, const char *name, const char *v)
{
	hid_t t = h5w_strtype(0);
	int rc;

	if (t < 0)
		return h5w_fail(path, ERR_IO, "cannot create a string type");
	rc = h5w_set_root_attr(path, name, t, t, &v);
	H5Tclose(t);
	return rc;
}

int h5write_set_root_attr_f64(const char *path, const char *name, double v)
{
	return h5w_set_root_attr(path, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &v);
}
