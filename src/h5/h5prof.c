/*
 * h5prof.c - reader for merged scope-profiler HDF5 files.
 *
 * h5prof_open() checks the path, opens the file with libhdf5 (with HDF5's
 * own error printing silenced), detects the schema and layout, reads
 * /metadata, the region names and the whole rank/region index into memory
 * and validates the structure (format doc section 3.1) before a single
 * event is read.  h5prof_read() then streams the rows: schema 1 reads each
 * region group's datasets, columnar files are read in event-offset order
 * through fixed-size windows of the event columns (one hyperslab read per
 * column per window, aligned to the chunks, no chunk cache), so memory
 * grows only with the largest row.  While the rows of one window are handed
 * out, a prefetch thread reads the next one (struct h5prefetch); it is the
 * only thread calling libhdf5 while it exists.
 *
 * All strings of the index (region names, source files and texts,
 * normalized tags) are interned in string maps owned by the handle.  Every
 * HDF5 id is closed on every path.  Messages are "cannot read 'PATH': WHAT"
 * with names escaped so they stay on one line.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hdf5.h>

#include "scopedb/err.h"
#include "scopedb/h5prof.h"
#include "util/json.h"
#include "util/strmap.h"
#include "scopedb/util.h"

/* Events per column per hyperslab read: 512 KB windows stay in the CPU
 * caches and cost few fresh pages (issue 6: 1M-event windows were 8 % slower). */
#define H5PROF_DEFAULT_CHUNK ((size_t)1 << 16)
/* Compressed chunks up to this many events widen the window to a whole
 * chunk, so that no chunk is decompressed twice (there is no chunk cache). */
#define H5PROF_MAX_WINDOW ((hsize_t)1 << 22)

/* Events per column per hyperslab read (testing hook: h5prof_set_chunk_events). */
static size_t h5prof_chunk = H5PROF_DEFAULT_CHUNK;

/* Row flag: schema-1 region group has a gpu_durations dataset. */
#define PROW_GPU 1u

/* One (rank, region) row of the index, as held in memory. */
struct prow {
	uint32_t rank;
	uint32_t region;
	uint64_t offset; /* columnar: first event */
	uint64_t count;
	int64_t source_line;
	int64_t exclusive;
	int64_t agg_total, agg_min, agg_max;
	size_t file_id, text_id, tags_id; /* ids in h5prof.strs */
	size_t idx;			  /* index row (columnar), rank group (schema 1) */
	unsigned flags;
};

/* An open one-dimensional dataset. */
struct h5col {
	hid_t dset;
	hid_t type;
	hid_t space;
	hsize_t n;
	hsize_t chunk;	   /* chunk length of a chunked dataset, else 0 */
	int filtered;	   /* chunks are compressed (or otherwise filtered) */
	const char *label; /* path for messages, e.g. "events/durations" */
};

struct h5prof {
	struct h5prof_info info;
	char *path;
	char *qpath; /* path escaped for messages */
	hid_t file;
	struct prow *rows;
	struct strmap names; /* region names */
	struct strmap strs;  /* per-row strings */
	size_t empty_id;     /* id of "" in strs */
	size_t notags_id;    /* id of "[]" in strs */
	char **name_ptrs;
	struct h5prof_meta *meta;
	char **rank_groups; /* schema 1: rank group names, numeric order */
	size_t nrank_groups;
	int delta;	    /* columnar: start_deltas + durations */
	struct h5col ev[3]; /* columnar: starts|deltas, ends|durations, gpu */
	uint64_t nev;	    /* length of the event columns */
	uint64_t max_count; /* largest row */
};

/* A growable list of malloc'ed strings. */
struct namelist {
	char **v;
	size_t n, cap;
	int failed; /* a push failed inside an HDF5 iteration callback */
};

void h5prof_set_chunk_events(size_t n)
{
	h5prof_chunk = n ? n : H5PROF_DEFAULT_CHUNK;
}

const char *h5prof_layout_name(enum h5prof_layout layout)
{
	switch (layout) {
	case H5PROF_HIERARCHICAL:
		return "hierarchical";
	case H5PROF_COLUMNAR:
		return "columnar";
	case H5PROF_AGGREGATE:
		return "aggregate";
	}
	return "unknown";
}

/*
 * Escape s for a one-line message: control characters become \xNN and long
 * strings are cut.  Returns one of four rotating static buffers, enough for
 * the names quoted in a single message.
 */
static const char *h5prof_q(const char *s)
{
	static char bufs[4][200];
	static unsigned slot;
	char *b = bufs[slot++ % 4];
	size_t i = 0;

	for (; *s && i < sizeof(bufs[0]) - 8; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c == 0x7f || c == '\'') {
			snprintf(b + i, 5, "\\x%02x", c);
			i += 4;
		} else {
			b[i++] = (char)c;
		}
	}
	if (*s) {
		memcpy(b + i, "...", 3);
		i += 3;
	}
	b[i] = '\0';
	return b;
}

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int
h5prof_fail(const struct h5prof *p, int code, const char *fmt, ...)
{
	char msg[900];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return err_set(code, "cannot read '%s': %s", p->qpath, msg);
}

/* "WHAT; the file is truncated or damaged" with ERR_FORMAT. */
static int h5prof_damaged(const struct h5prof *p, const char *what, const char *label)
{
	if (label)
		return h5prof_fail(p, ERR_FORMAT, "%s '%s'; the file is truncated or damaged", what,
				   h5prof_q(label));
	return h5prof_fail(p, ERR_FORMAT, "%s; the file is truncated or damaged", what);
}

static const char *h5prof_class_name(hid_t type)
{
	switch (H5Tget_class(type)) {
	case H5T_INTEGER:
		return "int";
	case H5T_FLOAT:
		return "float";
	case H5T_STRING:
		return "string";
	case H5T_COMPOUND:
		return "compound";
	case H5T_ENUM:
		return "enum";
	case H5T_ARRAY:
		return "array";
	case H5T_VLEN:
		return "vlen";
	case H5T_BITFIELD:
		return "bitfield";
	case H5T_OPAQUE:
		return "opaque";
	case H5T_REFERENCE:
		return "reference";
	default:
		return "unknown";
	}
}

static void h5_close_type(hid_t *id)
{
	if (*id >= 0)
		H5Tclose(*id);
	*id = H5I_INVALID_HID;
}

static void h5_close_space(hid_t *id)
{
	if (*id >= 0)
		H5Sclose(*id);
	*id = H5I_INVALID_HID;
}

static void h5col_init(struct h5col *c)
{
	c->dset = H5I_INVALID_HID;
	c->type = H5I_INVALID_HID;
	c->space = H5I_INVALID_HID;
	c->n = 0;
	c->label = NULL;
}

static void h5col_close(struct h5col *c)
{
	if (c->dset >= 0)
		H5Dclose(c->dset);
	h5_close_type(&c->type);
	h5_close_space(&c->space);
	h5col_init(c);
}

static int namelist_push(struct namelist *l, const char *s)
{
	char *d;

	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		char **v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return err_nomem();
		l->v = v;
		l->cap = cap;
	}
	d = util_strdup(s);
	if (!d)
		return ERR_NOMEM;
	l->v[l->n++] = d;
	return 0;
}

static void namelist_free(struct namelist *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
	l->failed = 0;
}

/*
 * Whether the object at path (relative to loc, components separated by '/')
 * exists; each prefix is checked because H5Lexists fails when an
 * intermediate group is missing.  Returns 1, 0, or a negative error.
 */
static int h5prof_exists(const struct h5prof *p, hid_t loc, const char *path)
{
	char tmp[512];
	size_t i, len = strlen(path);

	if (len >= sizeof(tmp))
		return h5prof_fail(p, ERR_FORMAT, "object path too long");
	memcpy(tmp, path, len + 1);
	for (i = 0; i <= len; i++) {
		if (tmp[i] == '/' || tmp[i] == '\0') {
			char save = tmp[i];
			htri_t e;

			tmp[i] = '\0';
			e = H5Lexists(loc, tmp, H5P_DEFAULT);
			tmp[i] = save;
			if (e < 0)
				return h5prof_damaged(p, "cannot look up", path);
			if (e == 0)
				return 0;
		}
	}
	return 1;
}

/* Object type of an existing path (H5O_TYPE_UNKNOWN on failure). */
static H5O_type_t h5prof_objtype(hid_t loc, const char *path)
{
	H5O_info_t info;

	if (H5Oget_info_by_name2(loc, path, &info, H5O_INFO_BASIC, H5P_DEFAULT) < 0)
		return H5O_TYPE_UNKNOWN;
	return info.type;
}

/*
 * Open path as a one-dimensional dataset whose type class must be
 * want_class (expect names the expected type in messages).  A missing
 * dataset is an error when required, otherwise c->dset stays invalid.
 */
static int h5col_open(const struct h5prof *p, struct h5col *c, hid_t loc, const char *path,
		      const char *label, H5T_class_t want_class, const char *expect, int required)
{
	hsize_t dims[1];
	hid_t dcpl;
	int e, nd;

	h5col_init(c);
	c->label = label;
	e = h5prof_exists(p, loc, path);
	if (e < 0)
		return e;
	if (!e) {
		if (required)
			return h5prof_fail(p, ERR_FORMAT, "missing dataset '%s'", h5prof_q(label));
		return 0;
	}
	c->dset = H5Dopen2(loc, path, H5P_DEFAULT);
	if (c->dset < 0) {
		/* the object type is only looked up to word the message */
		if (h5prof_objtype(loc, path) != H5O_TYPE_DATASET)
			return h5prof_fail(p, ERR_FORMAT, "'%s' is not a dataset", h5prof_q(label));
		return h5prof_damaged(p, "cannot open dataset", label);
	}
	c->type = H5Dget_type(c->dset);
	c->space = H5Dget_space(c->dset);
	if (c->type < 0 || c->space < 0) {
		h5col_close(c);
		return h5prof_damaged(p, "cannot inspect dataset", label);
	}
	if (H5Tget_class(c->type) != want_class) {
		int rc = h5prof_fail(p, ERR_FORMAT, "'%s' has type %s, expected %s",
				     h5prof_q(label), h5prof_class_name(c->type), expect);

		h5col_close(c);
		return rc;
	}
	nd = H5Sget_simple_extent_ndims(c->space);
	if (nd != 1 || H5Sget_simple_extent_dims(c->space, dims, NULL) != 1) {
		h5col_close(c);
		return h5prof_fail(p, ERR_FORMAT, "'%s' is not a one-dimensional dataset",
				   h5prof_q(label));
	}
	c->n = dims[0];
	/* The chunk length, so that event windows can start on a chunk
	 * boundary (a window cutting chunks makes libhdf5 read and copy
	 * those chunks through its cache).  Only a hint: no error. */
	dcpl = H5Dget_create_plist(c->dset);
	if (dcpl >= 0) {
		if (H5Pget_layout(dcpl) == H5D_CHUNKED && H5Pget_chunk(dcpl, 1, dims) == 1) {
			c->chunk = dims[0];
			c->filtered = H5Pget_nfilters(dcpl) > 0;
		}
		H5Pclose(dcpl);
	}
	return 0;
}

/* Read a whole integer column as int64 (values out of range are clamped by
 * HDF5's conversion). */
static int h5col_read_i64(const struct h5prof *p, const struct h5col *c, int64_t *out)
{
	if (c->n && H5Dread(c->dset, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, out) < 0)
		return h5prof_damaged(p, "cannot read dataset", c->label);
	return 0;
}

/*
 * Read a whole integer column as uint64, refusing negative values (signed
 * storage) and values above max.
 */
static int h5col_read_u64(const struct h5prof *p, const struct h5col *c, uint64_t *out,
			  uint64_t max)
{
	H5T_sign_t sign = H5Tget_sign(c->type);
	hsize_t i;

	if (!c->n)
		return 0;
	if (sign == H5T_SGN_2) {
		int64_t *v = (int64_t *)out;

		if (H5Dread(c->dset, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, out) < 0)
			return h5prof_damaged(p, "cannot read dataset", c->label);
		for (i = 0; i < c->n; i++) {
			if (v[i] < 0)
				return h5prof_fail(p, ERR_FORMAT,
						   "'%s' holds the negative value %" PRId64
						   " at row %llu; the file is damaged",
						   h5prof_q(c->label), v[i], (unsigned long long)i);
		}
	} else if (H5Dread(c->dset, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, out) < 0) {
		return h5prof_damaged(p, "cannot read dataset", c->label);
	}
	for (i = 0; i < c->n; i++) {
		if (out[i] > max)
			return h5prof_fail(p, ERR_FORMAT,
					   "'%s' holds the out-of-range value %" PRIu64
					   " at row %llu; the file is damaged",
					   h5prof_q(c->label), out[i], (unsigned long long)i);
	}
	return 0;
}

typedef int (*h5prof_str_fn)(void *ctx, size_t i, const char *s);

/*
 * Read n strings from a dataset (attr == 0) or attribute (attr != 0) of
 * string type ftype, variable or fixed length, calling fn for each.  Fixed
 * strings end at the first NUL (space-padded ones lose trailing spaces).
 */
static int h5prof_read_strings(const struct h5prof *p, hid_t obj, int attr, hid_t ftype,
			       hid_t space, size_t n, const char *label, h5prof_str_fn fn,
			       void *ctx)
{
	hid_t mtype = H5I_INVALID_HID;
	htri_t var = H5Tis_variable_str(ftype);
	char **vstr = NULL;
	char *fbuf = NULL, *one = NULL;
	size_t i, size = 0;
	int rc = 0, have_vlen = 0;
	herr_t st;

	if (n == 0)
		return 0;
	if (var < 0) {
		rc = h5prof_damaged(p, "cannot inspect the string type of", label);
		goto out;
	}
	mtype = H5Tcopy(H5T_C_S1);
	if (mtype < 0 || H5Tset_cset(mtype, H5Tget_cset(ftype)) < 0) {
		rc = h5prof_damaged(p, "cannot read strings of", label);
		goto out;
	}
	if (var) {
		if (H5Tset_size(mtype, H5T_VARIABLE) < 0) {
			rc = h5prof_damaged(p, "cannot read strings of", label);
			goto out;
		}
		vstr = calloc(n, sizeof(*vstr));
		if (!vstr) {
			rc = err_nomem();
			goto out;
		}
		/* a read that fails part way (damaged heap) leaves the strings
		 * converted so far allocated: reclaim in every case (vstr is
		 * zeroed, so the rest are NULL) */
		have_vlen = 1;
		st = attr ? H5Aread(obj, mtype, vstr)
			  : H5Dread(obj, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, vstr);
		if (st < 0) {
			rc = h5prof_damaged(p, "cannot read strings of", label);
			goto out;
		}
		for (i = 0; i < n && !rc; i++)
			rc = fn(ctx, i, vstr[i] ? vstr[i] : "");
		goto out;
	}
	size = H5Tget_size(ftype);
	if (size == 0 || H5Tset_size(mtype, size) < 0 ||
	    H5Tset_strpad(mtype, H5Tget_strpad(ftype)) < 0) {
		rc = h5prof_damaged(p, "cannot read strings of", label);
		goto out;
	}
	if (n > SIZE_MAX / size) {
		rc = err_nomem();
		goto out;
	}
	fbuf = malloc(n * size);
	one = malloc(size + 1);
	if (!fbuf || !one) {
		rc = err_nomem();
		goto out;
	}
	st = attr ? H5Aread(obj, mtype, fbuf)
		  : H5Dread(obj, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, fbuf);
	if (st < 0) {
		rc = h5prof_damaged(p, "cannot read strings of", label);
		goto out;
	}
	for (i = 0; i < n && !rc; i++) {
		const char *s = fbuf + i * size;
		const char *z = memchr(s, '\0', size);
		size_t len = z ? (size_t)(z - s) : size;

		if (H5Tget_strpad(ftype) == H5T_STR_SPACEPAD)
			while (len && s[len - 1] == ' ')
				len--;
		memcpy(one, s, len);
		one[len] = '\0';
		rc = fn(ctx, i, one);
	}
out:
	if (have_vlen)
		H5Dvlen_reclaim(mtype, space, H5P_DEFAULT, vstr);
	free(vstr);
	free(fbuf);
	free(one);
	h5_close_type(&mtype);
	return rc;
}

static int namelist_fn(void *ctx, size_t i, const char *s)
{
	(void)i;
	return namelist_push(ctx, s);
}

/*
 * Read a string attribute (scalar or one-dimensional) into *out; *scalar
 * tells which.  Non-string attributes fail with "... has type X, expected
 * string".
 */
static int h5prof_attr_strings(const struct h5prof *p, hid_t attr, const char *label,
			       struct namelist *out, int *scalar)
{
	hid_t type = H5Aget_type(attr);
	hid_t space = H5Aget_space(attr);
	hssize_t npts;
	int nd, rc = 0;

	if (type < 0 || space < 0) {
		rc = h5prof_damaged(p, "cannot inspect attribute", label);
		goto out;
	}
	if (H5Tget_class(type) != H5T_STRING) {
		rc = h5prof_fail(p, ERR_FORMAT, "attribute '%s' has type %s, expected string",
				 h5prof_q(label), h5prof_class_name(type));
		goto out;
	}
	nd = H5Sget_simple_extent_ndims(space);
	npts = H5Sget_simple_extent_npoints(space);
	if (nd < 0 || nd > 1 || npts < 0) {
		rc = h5prof_fail(p, ERR_FORMAT,
				 "attribute '%s' is not a string or a list of strings",
				 h5prof_q(label));
		goto out;
	}
	*scalar = nd == 0;
	if (H5Sget_simple_extent_type(space) == H5S_NULL)
		npts = 0;
	rc = h5prof_read_strings(p, attr, 1, type, space, (size_t)npts, label, namelist_fn, out);
out:
	h5_close_type(&type);
	h5_close_space(&space);
	return rc;
}

/* Read a scalar integer attribute into *out (unsigned values above INT64_MAX
 * are clamped).  Non-integers fail. */
static int h5prof_attr_i64(const struct h5prof *p, hid_t attr, const char *label, int64_t *out)
{
	hid_t type = H5Aget_type(attr);
	hid_t space = H5Aget_space(attr);
	int rc = 0;

	if (type < 0 || space < 0) {
		rc = h5prof_damaged(p, "cannot inspect attribute", label);
		goto out;
	}
	if (H5Tget_class(type) != H5T_INTEGER) {
		rc = h5prof_fail(p, ERR_FORMAT, "attribute '%s' has type %s, expected int",
				 h5prof_q(label), h5prof_class_name(type));
		goto out;
	}
	if (H5Sget_simple_extent_npoints(space) != 1) {
		rc = h5prof_fail(p, ERR_FORMAT, "attribute '%s' is not a single integer",
				 h5prof_q(label));
		goto out;
	}
	if (H5Aread(attr, H5T_NATIVE_INT64, out) < 0)
		rc = h5prof_damaged(p, "cannot read attribute", label);
out:
	h5_close_type(&type);
	h5_close_space(&space);
	return rc;
}

/* Open attribute name of obj if it exists: 1 with *out set, 0 when absent. */
static int h5prof_attr_open(const struct h5prof *p, hid_t obj, const char *name, const char *label,
			    hid_t *out)
{
	htri_t e = H5Aexists(obj, name);

	*out = H5I_INVALID_HID;
	if (e < 0)
		return h5prof_damaged(p, "cannot look up attribute", label);
	if (!e)
		return 0;
	*out = H5Aopen(obj, name, H5P_DEFAULT);
	if (*out < 0)
		return h5prof_damaged(p, "cannot open attribute", label);
	return 1;
}

/* ---- schema and layout ---- */

static int h5prof_detect(struct h5prof *p)
{
	hid_t a = H5I_INVALID_HID, type = H5I_INVALID_HID;
	struct namelist sl = {NULL, 0, 0, 0};
	int64_t v = 1;
	int rc, scalar = 0;

	rc = h5prof_attr_open(p, p->file, "scope_profiler_schema", "scope_profiler_schema", &a);
	if (rc < 0)
		goto out;
	if (rc) {
		hid_t space;
		hssize_t npts;

		type = H5Aget_type(a);
		if (type < 0) {
			rc = h5prof_damaged(p, "cannot inspect attribute", "scope_profiler_schema");
			goto out;
		}
		if (H5Tget_class(type) != H5T_INTEGER) {
			rc = h5prof_fail(p, ERR_FORMAT,
					 "scope_profiler_schema is not an integer (it has type %s)",
					 h5prof_class_name(type));
			goto out;
		}
		space = H5Aget_space(a);
		npts = space >= 0 ? H5Sget_simple_extent_npoints(space) : -1;
		h5_close_space(&space);
		if (npts != 1) {
			rc = h5prof_fail(p, ERR_FORMAT,
					 "scope_profiler_schema is not a single integer");
			goto out;
		}
		if (H5Aread(a, H5T_NATIVE_INT64, &v) < 0) {
			rc = h5prof_damaged(p, "cannot read attribute", "scope_profiler_schema");
			goto out;
		}
		if (v < 1 || v > 3) {
			rc = h5prof_fail(p, ERR_FORMAT,
					 "unsupported scope-profiler schema version %" PRId64
					 "; supported: 1-3",
					 v);
			goto out;
		}
	}
	p->info.schema = (int)v;
	p->info.layout = v == 1 ? H5PROF_HIERARCHICAL : H5PROF_COLUMNAR;
	if (a >= 0)
		H5Aclose(a);
	a = H5I_INVALID_HID;
	if (v == 1) {
		rc = 0;
		goto out;
	}
	rc = h5prof_attr_open(p, p->file, "storage_layout", "storage_layout", &a);
	if (rc <= 0)
		goto out;
	rc = h5prof_attr_strings(p, a, "storage_layout", &sl, &scalar);
	if (rc)
		goto out;
	if (sl.n != 1) {
		rc = h5prof_fail(p, ERR_FORMAT, "storage_layout is not a single string");
		goto out;
	}
	if (strcmp(sl.v[0], "aggregate") == 0) {
		p->info.layout = H5PROF_AGGREGATE;
	} else if (strcmp(sl.v[0], "columnar") != 0) {
		rc = h5prof_fail(p, ERR_FORMAT,
				 "unsupported storage_layout '%s'; supported: columnar, aggregate",
				 h5prof_q(sl.v[0]));
		goto out;
	}
	rc = 0;
out:
	namelist_free(&sl);
	h5_close_type(&type);
	if (a >= 0)
		H5Aclose(a);
	return rc;
}

/* ---- /metadata ---- */

static herr_t h5prof_attr_name_cb(hid_t loc, const char *name, const H5A_info_t *info, void *ctx)
{
	struct namelist *l = ctx;

	(void)loc;
	(void)info;
	if (namelist_push(l, name)) {
		l->failed = 1;
		return -1;
	}
	return 0;
}

static int meta_cmp(const void *a, const void *b)
{
	return strcmp(((const struct h5prof_meta *)a)->key, ((const struct h5prof_meta *)b)->key);
}

/* Append a double as JSON (non-finite values as null). */
static int buf_json_double(struct buf *b, double d)
{
	if (d != d || d > 1.7976931348623157e308 || d < -1.7976931348623157e308)
		return buf_puts(b, "null");
	return buf_printf(b, "%.17g", d);
}

/*
 * Text form of one metadata attribute into b (see struct h5prof_meta).
 * Returns 1 when the attribute was converted, 0 when its type is not one
 * scopedb keeps (it is skipped), or a negative error.
 */
static int h5prof_meta_value(const struct h5prof *p, hid_t a, const char *label, struct buf *b,
			     int *is_array)
{
	hid_t type = H5Aget_type(a), space = H5Aget_space(a);
	H5T_class_t cls;
	hssize_t npts;
	int nd, rc = 0;
	size_t i, n;
	void *vals = NULL;

	*is_array = 0;
	if (type < 0 || space < 0) {
		rc = h5prof_damaged(p, "cannot inspect attribute", label);
		goto out;
	}
	cls = H5Tget_class(type);
	nd = H5Sget_simple_extent_ndims(space);
	npts = H5Sget_simple_extent_npoints(space);
	if (nd < 0 || nd > 1 || npts < 0 || H5Sget_simple_extent_type(space) == H5S_NULL)
		goto out; /* skipped */
	n = (size_t)npts;
	if (cls == H5T_STRING) {
		struct namelist l = {NULL, 0, 0, 0};
		int scalar = 0;

		rc = h5prof_attr_strings(p, a, label, &l, &scalar);
		if (!rc && scalar)
			rc = buf_puts(b, l.n ? l.v[0] : "");
		else if (!rc)
			rc = json_buf_strarray(b, (const char *const *)l.v, l.n);
		namelist_free(&l);
		if (rc)
			goto out;
		*is_array = !scalar;
		rc = 1;
		goto out;
	}
	if (cls != H5T_INTEGER && cls != H5T_FLOAT)
		goto out;
	vals = malloc((n ? n : 1) * 8);
	if (!vals) {
		rc = err_nomem();
		goto out;
	}
	{
		int sgn = cls == H5T_INTEGER && H5Tget_sign(type) == H5T_SGN_2;
		hid_t mt = cls == H5T_FLOAT ? H5T_NATIVE_DOUBLE
					    : (sgn ? H5T_NATIVE_INT64 : H5T_NATIVE_UINT64);

		if (n && H5Aread(a, mt, vals) < 0) {
			rc = h5prof_damaged(p, "cannot read attribute", label);
			goto out;
		}
		if (nd == 1 && (rc = buf_putc(b, '[')))
			goto out;
		for (i = 0; i < n; i++) {
			if (i && (rc = buf_putc(b, ',')))
				goto out;
			if (cls == H5T_FLOAT)
				rc = nd ? buf_json_double(b, ((double *)vals)[i])
					: buf_printf(b, "%.17g", ((double *)vals)[i]);
			else if (sgn)
				rc = buf_printf(b, "%" PRId64, ((int64_t *)vals)[i]);
			else
				rc = buf_printf(b, "%" PRIu64, ((uint64_t *)vals)[i]);
			if (rc)
				goto out;
		}
		if (nd == 1 && (rc = buf_putc(b, ']')))
			goto out;
		*is_array = nd == 1;
		rc = 1;
	}
out:
	free(vals);
	h5_close_type(&type);
	h5_close_space(&space);
	return rc;
}

static int h5prof_read_meta(struct h5prof *p)
{
	struct namelist names = {NULL, 0, 0, 0};
	hid_t g = H5I_INVALID_HID, a = H5I_INVALID_HID;
	struct buf b = BUF_INIT;
	size_t i;
	int rc;

	rc = h5prof_exists(p, p->file, "metadata");
	if (rc <= 0)
		goto out;
	if (h5prof_objtype(p->file, "metadata") != H5O_TYPE_GROUP) {
		rc = h5prof_fail(p, ERR_FORMAT, "'metadata' is not a group");
		goto out;
	}
	g = H5Gopen2(p->file, "metadata", H5P_DEFAULT);
	if (g < 0) {
		rc = h5prof_damaged(p, "cannot open group", "metadata");
		goto out;
	}
	if (H5Aiterate2(g, H5_INDEX_NAME, H5_ITER_INC, NULL, h5prof_attr_name_cb, &names) < 0) {
		rc = names.failed ? ERR_NOMEM
				  : h5prof_damaged(p, "cannot list attributes of", "metadata");
		goto out;
	}
	p->meta = calloc(names.n ? names.n : 1, sizeof(*p->meta));
	if (!p->meta) {
		rc = err_nomem();
		goto out;
	}
	for (i = 0; i < names.n; i++) {
		char label[300];
		int is_array;

		snprintf(label, sizeof(label), "metadata/%s", names.v[i]);
		a = H5Aopen(g, names.v[i], H5P_DEFAULT);
		if (a < 0) {
			rc = h5prof_damaged(p, "cannot open attribute", label);
			goto out;
		}
		buf_release(&b);
		rc = h5prof_meta_value(p, a, label, &b, &is_array);
		H5Aclose(a);
		a = H5I_INVALID_HID;
		if (rc < 0)
			goto out;
		if (rc == 0)
			continue;
		p->meta[p->info.num_meta].key = names.v[i];
		names.v[i] = NULL;
		p->meta[p->info.num_meta].value = buf_detach(&b);
		p->meta[p->info.num_meta].is_array = is_array;
		p->info.num_meta++;
	}
	if (p->info.num_meta > 1)
		qsort(p->meta, p->info.num_meta, sizeof(*p->meta), meta_cmp);
	rc = 0;
out:
	buf_release(&b);
	namelist_free(&names);
	if (a >= 0)
		H5Aclose(a);
	if (g >= 0)
		H5Gclose(g);
	return rc;
}

/* ---- rows ---- */

static int h5prof_push_row(struct h5prof *p, size_t *cap, const struct prow *r)
{
	if (p->info.num_rows == *cap) {
		size_t ncap = *cap ? *cap * 2 : 64;
		struct prow *v = realloc(p->rows, ncap * sizeof(*v));

		if (!v)
			return err_nomem();
		p->rows = v;
		*cap = ncap;
	}
	p->rows[p->info.num_rows++] = *r;
	return 0;
}

/* Normalize a tags list to compact JSON and intern it. */
static int h5prof_intern_tags(struct h5prof *p, const char *const *tags, size_t n, size_t *out)
{
	struct buf b = BUF_INIT;
	int rc;

	if (n == 0) {
		*out = p->notags_id;
		return 0;
	}
	rc = json_buf_strarray(&b, tags, n);
	if (!rc)
		rc = strmap_intern(out, &p->strs, b.data);
	buf_release(&b);
	return rc;
}

/* Row description for messages: "rank 1, region 'solve'". */
static const char *h5prof_rowdesc(const struct h5prof *p, const struct prow *r)
{
	static char b[2][300];
	static unsigned slot;
	char *s = b[slot++ % 2];

	snprintf(s, sizeof(b[0]), "rank %" PRIu32 ", region '%s'", r->rank,
		 h5prof_q(strmap_get(&p->names, r->region)));
	return s;
}

/* ---- schema 1 ---- */

static herr_t h5prof_link_cb(hid_t g, const char *name, const H5L_info_t *info, void *ctx)
{
	struct namelist *l = ctx;

	(void)g;
	(void)info;
	if (namelist_push(l, name)) {
		l->failed = 1;
		return -1;
	}
	return 0;
}

/* List the links of loc in name order (byte-wise). */
static int h5prof_list(const struct h5prof *p, hid_t loc, const char *label, struct namelist *out)
{
	if (H5Literate(loc, H5_INDEX_NAME, H5_ITER_INC, NULL, h5prof_link_cb, out) < 0) {
		if (out->failed)
			return ERR_NOMEM;
		return h5prof_damaged(p, "cannot list the members of", label);
	}
	return 0;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Rank of a group named "rank" + decimal digits, or -1 for other names. */
static int64_t h5prof_rank_of(const char *name)
{
	const char *s;
	int64_t v = 0;

	if (strncmp(name, "rank", 4) != 0 || !name[4])
		return -1;
	for (s = name + 4; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		if (v > INT64_C(1) << 40)
			return INT64_MAX; /* out of range, refused by the caller */
		v = v * 10 + (*s - '0');
	}
	return v;
}

struct rankgrp {
	int64_t rank;
	char *name;
};

static int rankgrp_cmp(const void *a, const void *b)
{
	const struct rankgrp *x = a, *y = b;

	return (x->rank > y->rank) - (x->rank < y->rank);
}

/* Read the optional attributes of one schema-1 region group into r. */
static int h5prof_region_attrs(struct h5prof *p, hid_t g, const char *label, struct prow *r)
{
	struct namelist l = {NULL, 0, 0, 0};
	char alabel[700];
	hid_t a = H5I_INVALID_HID;
	int rc, scalar = 0;
	char **tags = NULL;
	size_t ntags = 0;

	r->file_id = r->text_id = p->empty_id;
	r->tags_id = p->notags_id;
	r->source_line = -1;

	snprintf(alabel, sizeof(alabel), "%s@source_file", label);
	rc = h5prof_attr_open(p, g, "source_file", alabel, &a);
	if (rc > 0) {
		rc = h5prof_attr_strings(p, a, alabel, &l, &scalar);
		if (!rc)
			rc = strmap_intern(&r->file_id, &p->strs, l.n ? l.v[0] : "");
		namelist_free(&l);
	}
	if (a >= 0)
		H5Aclose(a);
	a = H5I_INVALID_HID;
	if (rc < 0)
		goto out;

	snprintf(alabel, sizeof(alabel), "%s@source_text", label);
	rc = h5prof_attr_open(p, g, "source_text", alabel, &a);
	if (rc > 0) {
		rc = h5prof_attr_strings(p, a, alabel, &l, &scalar);
		if (!rc)
			rc = strmap_intern(&r->text_id, &p->strs, l.n ? l.v[0] : "");
		namelist_free(&l);
	}
	if (a >= 0)
		H5Aclose(a);
	a = H5I_INVALID_HID;
	if (rc < 0)
		goto out;

	snprintf(alabel, sizeof(alabel), "%s@source_lineno", label);
	rc = h5prof_attr_open(p, g, "source_lineno", alabel, &a);
	if (rc > 0)
		rc = h5prof_attr_i64(p, a, alabel, &r->source_line);
	if (a >= 0)
		H5Aclose(a);
	a = H5I_INVALID_HID;
	if (rc < 0)
		goto out;

	snprintf(alabel, sizeof(alabel), "%s@tags", label);
	rc = h5prof_attr_open(p, g, "tags", alabel, &a);
	if (rc > 0) {
		rc = h5prof_attr_strings(p, a, alabel, &l, &scalar);
		if (!rc && scalar) {
			/* a single string: JSON array text, or one tag */
			const char *s = l.n ? l.v[0] : "";

			if (json_parse_strarray(&tags, &ntags, s) == 0) {
				rc = h5prof_intern_tags(p, (const char *const *)tags, ntags,
							&r->tags_id);
			} else if (err_code() == ERR_NOMEM) {
				rc = ERR_NOMEM;
			} else {
				rc = h5prof_intern_tags(p, &s, *s ? 1 : 0, &r->tags_id);
			}
		} else if (!rc) {
			rc = h5prof_intern_tags(p, (const char *const *)l.v, l.n, &r->tags_id);
		}
		namelist_free(&l);
	}
	if (rc > 0)
		rc = 0;
out:
	json_strarray_free(tags, ntags);
	if (a >= 0)
		H5Aclose(a);
	return rc < 0 ? rc : 0;
}

/* Validate one schema-1 region group and append its row. */
static int h5prof_hier_region(struct h5prof *p, size_t *cap, hid_t rg, const char *rgname,
			      uint32_t rank, size_t gidx, const char *name)
{
	struct h5col st, en, gp;
	char label[600], sub[700];
	struct prow r;
	hid_t g = H5I_INVALID_HID;
	int rc;

	h5col_init(&st);
	h5col_init(&en);
	h5col_init(&gp);
	memset(&r, 0, sizeof(r));
	snprintf(label, sizeof(label), "%s/regions/%s", rgname, name);
	g = H5Gopen2(rg, name, H5P_DEFAULT);
	if (g < 0) {
		if (h5prof_objtype(rg, name) != H5O_TYPE_GROUP)
			rc = h5prof_fail(p, ERR_FORMAT, "'%s' is not a group", h5prof_q(label));
		else
			rc = h5prof_damaged(p, "cannot open group", label);
		goto out;
	}
	snprintf(sub, sizeof(sub), "%s/start_times", label);
	rc = h5col_open(p, &st, g, "start_times", sub, H5T_INTEGER, "int64", 1);
	if (rc)
		goto out;
	snprintf(sub, sizeof(sub), "%s/end_times", label);
	rc = h5col_open(p, &en, g, "end_times", sub, H5T_INTEGER, "int64", 1);
	if (rc)
		goto out;
	snprintf(sub, sizeof(sub), "%s/gpu_durations", label);
	rc = h5col_open(p, &gp, g, "gpu_durations", sub, H5T_INTEGER, "int64", 0);
	if (rc)
		goto out;
	if (st.n != en.n || (gp.dset >= 0 && gp.n != st.n)) {
		rc = h5prof_fail(
		    p, ERR_FORMAT,
		    "'%s' has %llu start times, %llu end times%s; the file is truncated "
		    "or damaged",
		    h5prof_q(label), (unsigned long long)st.n, (unsigned long long)en.n,
		    gp.dset >= 0 && gp.n != st.n ? " and a different number of GPU "
						   "durations"
						 : "");
		goto out;
	}
	r.rank = rank;
	rc = strmap_intern(&r.idx, &p->names, name);
	if (rc)
		goto out;
	r.region = (uint32_t)r.idx;
	r.idx = gidx;
	r.count = st.n;
	r.exclusive = -1;
	r.flags = gp.dset >= 0 ? PROW_GPU : 0;
	rc = h5prof_region_attrs(p, g, label, &r);
	if (rc)
		goto out;
	rc = h5prof_push_row(p, cap, &r);
out:
	h5col_close(&st);
	h5col_close(&en);
	h5col_close(&gp);
	if (g >= 0)
		H5Gclose(g);
	return rc;
}

/*
 * Schema 1: find the rank groups, sort them numerically, and index every
 * region group.  Region ids are given in order of first appearance, ranks
 * visited in numeric order and regions in byte-wise name order.
 */
static int h5prof_open_hier(struct h5prof *p)
{
	struct namelist top = {NULL, 0, 0, 0}, regs = {NULL, 0, 0, 0};
	struct rankgrp *rg = NULL;
	size_t nrg = 0, i, j, cap = 0;
	hid_t g = H5I_INVALID_HID;
	int rc;

	rc = h5prof_list(p, p->file, "/", &top);
	if (rc)
		goto out;
	rg = calloc(top.n ? top.n : 1, sizeof(*rg));
	if (!rg) {
		rc = err_nomem();
		goto out;
	}
	for (i = 0; i < top.n; i++) {
		int64_t rank = h5prof_rank_of(top.v[i]);

		if (rank < 0 || h5prof_objtype(p->file, top.v[i]) != H5O_TYPE_GROUP)
			continue;
		if (rank >= (int64_t)UINT32_MAX) {
			rc = h5prof_fail(p, ERR_FORMAT, "rank group '%s' is out of range",
					 h5prof_q(top.v[i]));
			goto out;
		}
		rg[nrg].rank = rank;
		rg[nrg].name = top.v[i];
		nrg++;
	}
	if (nrg > 1)
		qsort(rg, nrg, sizeof(*rg), rankgrp_cmp);
	for (i = 1; i < nrg; i++) {
		if (rg[i].rank == rg[i - 1].rank) {
			rc = h5prof_fail(
			    p, ERR_FORMAT, "groups '%s' and '%s' both hold rank %" PRId64,
			    h5prof_q(rg[i - 1].name), h5prof_q(rg[i].name), rg[i].rank);
			goto out;
		}
	}
	p->rank_groups = calloc(nrg ? nrg : 1, sizeof(*p->rank_groups));
	if (!p->rank_groups) {
		rc = err_nomem();
		goto out;
	}
	for (i = 0; i < nrg; i++) {
		p->rank_groups[i] = util_strdup(rg[i].name);
		if (!p->rank_groups[i]) {
			rc = ERR_NOMEM;
			goto out;
		}
		p->nrank_groups++;
	}
	p->info.num_ranks = (uint32_t)nrg;
	for (i = 0; i < nrg; i++) {
		char label[300];

		snprintf(label, sizeof(label), "%s/regions", rg[i].name);
		rc = h5prof_exists(p, p->file, label);
		if (rc < 0)
			goto out;
		if (rc == 0)
			continue;
		if (h5prof_objtype(p->file, label) != H5O_TYPE_GROUP) {
			rc = h5prof_fail(p, ERR_FORMAT, "'%s' is not a group", h5prof_q(label));
			goto out;
		}
		g = H5Gopen2(p->file, label, H5P_DEFAULT);
		if (g < 0) {
			rc = h5prof_damaged(p, "cannot open group", label);
			goto out;
		}
		rc = h5prof_list(p, g, label, &regs);
		if (rc)
			goto out;
		if (regs.n > 1)
			qsort(regs.v, regs.n, sizeof(*regs.v), str_cmp);
		for (j = 0; j < regs.n; j++) {
			rc = h5prof_hier_region(p, &cap, g, rg[i].name, (uint32_t)rg[i].rank, i,
						regs.v[j]);
			if (rc)
				goto out;
			p->info.num_events += p->rows[p->info.num_rows - 1].count;
			if (p->rows[p->info.num_rows - 1].count > p->max_count)
				p->max_count = p->rows[p->info.num_rows - 1].count;
		}
		namelist_free(&regs);
		H5Gclose(g);
		g = H5I_INVALID_HID;
	}
	rc = 0;
out:
	if (g >= 0)
		H5Gclose(g);
	namelist_free(&regs);
	namelist_free(&top);
	free(rg);
	return rc;
}

/* ---- columnar and aggregate ---- */

static int h5prof_name_fn(void *ctx, size_t i, const char *s)
{
	struct h5prof *p = ctx;
	size_t id;

	if (strmap_intern(&id, &p->names, s))
		return ERR_NOMEM;
	if (id != i)
		return h5prof_fail(p, ERR_FORMAT,
				   "region name '%s' appears twice in 'region_table/names'",
				   h5prof_q(s));
	return 0;
}

/* Which string column is being stored into the rows. */
struct rowstr_ctx {
	struct h5prof *p;
	int which; /* 0 file, 1 text, 2 tags */
	char *last_raw;
	size_t last_id;
};

static int h5prof_rowstr_fn(void *ctx, size_t i, const char *s)
{
	struct rowstr_ctx *c = ctx;
	struct h5prof *p = c->p;
	struct prow *r = &p->rows[i];
	char **tags = NULL;
	size_t ntags = 0, id;
	int rc;

	if (c->which == 0)
		return strmap_intern(&r->file_id, &p->strs, s);
	if (c->which == 1)
		return strmap_intern(&r->text_id, &p->strs, s);
	if (c->last_raw && strcmp(c->last_raw, s) == 0) {
		r->tags_id = c->last_id;
		return 0;
	}
	rc = json_parse_strarray(&tags, &ntags, s);
	if (rc == ERR_FORMAT) {
		char why[200];

		snprintf(why, sizeof(why), "%s", err_msg());
		return h5prof_fail(p, ERR_FORMAT,
				   "row %zu (%s): tags '%s' are not a JSON array of strings (%s)",
				   i, h5prof_rowdesc(p, r), h5prof_q(s), why);
	}
	if (rc)
		return rc;
	rc = h5prof_intern_tags(p, (const char *const *)tags, ntags, &id);
	json_strarray_free(tags, ntags);
	if (rc)
		return rc;
	r->tags_id = id;
	free(c->last_raw);
	c->last_raw = util_strdup(s);
	if (!c->last_raw)
		return ERR_NOMEM;
	c->last_id = id;
	return 0;
}

static int prow_offset_cmp(const void *a, const void *b)
{
	const struct prow *x = a, *y = b;

	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

/* Index columns (dataset paths), in the order they are checked. */
enum {
	IX_REGION,
	IX_RANK,
	IX_OFFSET, /* columnar */
	IX_COUNT,
	IX_EXCL,
	IX_ACOUNT, /* aggregate */
	IX_ATOTAL,
	IX_AMIN,
	IX_AMAX,
	IX_AEXCL,
	IX_LINE, /* both */
	IX_FILE,
	IX_TEXT,
	IX_TAGS,
	IX_SUMMARY, /* only checked for its length */
	IX_N
};

static const struct {
	const char *name;
	const char *expect;
	H5T_class_t cls;
	int agg; /* 0 columnar only, 1 aggregate only, 2 both */
	int required;
} h5prof_ix[IX_N] = {
    {"rank_region_index/region_ids", "uint32", H5T_INTEGER, 2, 1},
    {"rank_region_index/ranks", "uint32", H5T_INTEGER, 2, 1},
    {"rank_region_index/event_offsets", "uint64", H5T_INTEGER, 0, 1},
    {"rank_region_index/event_counts", "uint64", H5T_INTEGER, 0, 1},
    {"rank_region_index/exclusive_totals", "int64", H5T_INTEGER, 0, 0},
    {"rank_region_index/aggregate_counts", "uint64", H5T_INTEGER, 1, 1},
    {"rank_region_index/aggregate_totals", "int64", H5T_INTEGER, 1, 1},
    {"rank_region_index/aggregate_minimums", "int64", H5T_INTEGER, 1, 1},
    {"rank_region_index/aggregate_maximums", "int64", H5T_INTEGER, 1, 1},
    {"rank_region_index/aggregate_exclusives", "int64", H5T_INTEGER, 1, 0},
    {"rank_region_index/source_lines", "int64", H5T_INTEGER, 2, 0},
    {"rank_region_index/source_files", "string", H5T_STRING, 2, 0},
    {"rank_region_index/source_texts", "string", H5T_STRING, 2, 0},
    {"rank_region_index/tags", "string", H5T_STRING, 2, 0},
    {"rank_region_index/summary_statistics", "compound", H5T_COMPOUND, 0, 0},
};

/* mpi_size from /metadata (a positive integer), or 1. */
static int h5prof_mpi_size(const struct h5prof *p, uint64_t *out)
{
	const char *v = h5prof_meta_get(p, "mpi_size");
	char *end;
	long long n;

	*out = 1;
	if (!v || !*v)
		return 0;
	errno = 0;
	n = strtoll(v, &end, 10);
	if (*end || errno)
		return 0;
	if (n > (long long)UINT32_MAX)
		return h5prof_fail(p, ERR_FORMAT, "metadata mpi_size %lld is out of range", n);
	if (n > 0)
		*out = (uint64_t)n;
	return 0;
}

/* Refuse rows whose region id is not an index into region_table/names (before
 * anything formats a row description, which looks the name up). */
static int h5prof_check_regions(const struct h5prof *p)
{
	size_t i;

	for (i = 0; i < p->info.num_rows; i++) {
		if (p->rows[i].region >= strmap_count(&p->names))
			return h5prof_fail(p, ERR_FORMAT,
					   "row %zu refers to region %" PRIu32
					   " but 'region_table/names' holds %zu names; the file is "
					   "truncated or damaged",
					   i, p->rows[i].region, strmap_count(&p->names));
	}
	return 0;
}

/* Sum the rows' counts into num_events and find the largest row.  The store
 * keeps counts as SQLite (signed 64-bit) integers, so a total above
 * INT64_MAX is refused like an overflow. */
static int h5prof_count_events(struct h5prof *p)
{
	size_t i;

	for (i = 0; i < p->info.num_rows; i++) {
		uint64_t c = p->rows[i].count;

		if (c > (uint64_t)INT64_MAX - p->info.num_events)
			return h5prof_fail(p, ERR_FORMAT,
					   "the event counts overflow; the file is damaged");
		p->info.num_events += c;
		if (c > p->max_count)
			p->max_count = c;
	}
	return 0;
}

/* Validate offsets, counts, duplicates and overlaps of a columnar index. */
static int h5prof_check_index(struct h5prof *p)
{
	size_t n = p->info.num_rows, i, prev = SIZE_MAX;
	int64_t *keys = NULL;
	uint64_t end_max = 0;
	int rc = 0;

	for (i = 0; i < n; i++) {
		struct prow *r = &p->rows[i];

		if (p->info.layout == H5PROF_AGGREGATE)
			continue;
		if (r->count > UINT64_MAX - r->offset) {
			rc = h5prof_fail(p, ERR_FORMAT,
					 "row %zu (%s) claims %" PRIu64 " events at offset %" PRIu64
					 ", which overflows; the file is truncated or damaged",
					 i, h5prof_rowdesc(p, r), r->count, r->offset);
			goto out;
		}
		if (r->offset + r->count > p->nev) {
			rc = h5prof_fail(p, ERR_FORMAT,
					 "row %zu (%s) claims events [%" PRIu64 ", %" PRIu64
					 ") but the event columns hold %" PRIu64
					 "; the file is truncated or damaged",
					 i, h5prof_rowdesc(p, r), r->offset, r->offset + r->count,
					 p->nev);
			goto out;
		}
	}
	if (n) {
		keys = malloc(n * sizeof(*keys));
		if (!keys) {
			rc = err_nomem();
			goto out;
		}
	}
	for (i = 0; i < n; i++)
		keys[i] = (int64_t)(((uint64_t)p->rows[i].rank << 32) | p->rows[i].region);
	if (n > 1)
		util_sort_i64(keys, n);
	for (i = 1; i < n; i++) {
		if (keys[i] == keys[i - 1]) {
			uint32_t rank = (uint32_t)((uint64_t)keys[i] >> 32);
			uint32_t region = (uint32_t)((uint64_t)keys[i] & 0xffffffffu);
			size_t a = SIZE_MAX, b = SIZE_MAX, k;

			for (k = 0; k < n && b == SIZE_MAX; k++) {
				if (p->rows[k].rank == rank && p->rows[k].region == region) {
					if (a == SIZE_MAX)
						a = k;
					else
						b = k;
				}
			}
			rc = h5prof_fail(
			    p, ERR_FORMAT,
			    "%s appears twice in the index (rows %zu and %zu); the file "
			    "is damaged",
			    h5prof_rowdesc(p, &p->rows[a]), a, b);
			goto out;
		}
	}
	if (p->info.layout == H5PROF_AGGREGATE)
		goto out;
	if (n > 1)
		qsort(p->rows, n, sizeof(*p->rows), prow_offset_cmp);
	for (i = 0; i < n; i++) {
		struct prow *r = &p->rows[i];

		if (!r->count)
			continue;
		if (prev != SIZE_MAX && r->offset < end_max) {
			struct prow *q = &p->rows[prev];

			rc = h5prof_fail(
			    p, ERR_FORMAT,
			    "rows %zu (%s) and %zu (%s) claim overlapping events [%" PRIu64
			    ", %" PRIu64 ") and [%" PRIu64 ", %" PRIu64 "); the file is damaged",
			    q->idx, h5prof_rowdesc(p, q), r->idx, h5prof_rowdesc(p, r), q->offset,
			    q->offset + q->count, r->offset, r->offset + r->count);
			goto out;
		}
		prev = i;
		end_max = r->offset + r->count;
	}
out:
	free(keys);
	return rc;
}

static int h5prof_open_columnar(struct h5prof *p)
{
	int agg = p->info.layout == H5PROF_AGGREGATE;
	struct h5col names, ix[IX_N];
	struct rowstr_ctx sc = {NULL, 0, NULL, 0};
	uint64_t *u = NULL, mpi, maxrank = 0;
	int64_t *s = NULL;
	hsize_t nrows = 0;
	size_t i, first = SIZE_MAX;
	int k, rc;

	h5col_init(&names);
	for (k = 0; k < IX_N; k++)
		h5col_init(&ix[k]);

	rc = h5col_open(p, &names, p->file, "region_table/names", "region_table/names", H5T_STRING,
			"string", 1);
	if (rc)
		goto out;
	for (k = 0; k < IX_N; k++) {
		if (h5prof_ix[k].agg != 2 && h5prof_ix[k].agg != agg)
			continue;
		rc = h5col_open(p, &ix[k], p->file, h5prof_ix[k].name, h5prof_ix[k].name,
				h5prof_ix[k].cls, h5prof_ix[k].expect, h5prof_ix[k].required);
		if (rc)
			goto out;
	}
	for (k = 0; k < IX_N; k++) {
		if (ix[k].dset < 0)
			continue;
		if (first == SIZE_MAX) {
			first = (size_t)k;
			nrows = ix[k].n;
		} else if (ix[k].n != nrows) {
			rc =
			    h5prof_fail(p, ERR_FORMAT,
					"index columns have different lengths: '%s' has %llu rows, "
					"'%s' has %llu; the file is truncated or damaged",
					h5prof_q(ix[first].label), (unsigned long long)nrows,
					h5prof_q(ix[k].label), (unsigned long long)ix[k].n);
			goto out;
		}
	}
	if (!agg) {
		p->delta = h5prof_exists(p, p->file, "events/start_deltas");
		if (p->delta < 0) {
			rc = p->delta;
			goto out;
		}
		rc = h5col_open(p, &p->ev[0], p->file,
				p->delta ? "events/start_deltas" : "events/start_times",
				p->delta ? "events/start_deltas" : "events/start_times",
				H5T_INTEGER, "int64", 1);
		if (!rc)
			rc = h5col_open(p, &p->ev[1], p->file,
					p->delta ? "events/durations" : "events/end_times",
					p->delta ? "events/durations" : "events/end_times",
					H5T_INTEGER, "int64", 1);
		if (!rc)
			rc = h5col_open(p, &p->ev[2], p->file, "events/gpu_durations",
					"events/gpu_durations", H5T_INTEGER, "int64", 0);
		if (rc)
			goto out;
		p->nev = p->ev[0].n;
		for (k = 1; k < 3; k++) {
			if (p->ev[k].dset >= 0 && p->ev[k].n != p->nev) {
				rc =
				    h5prof_fail(p, ERR_FORMAT,
						"event columns have different lengths: '%s' has "
						"%llu events, '%s' has %llu; the file is truncated "
						"or damaged",
						p->ev[0].label, (unsigned long long)p->nev,
						p->ev[k].label, (unsigned long long)p->ev[k].n);
				goto out;
			}
		}
	}

	/* region names */
	rc = h5prof_read_strings(p, names.dset, 0, names.type, names.space, (size_t)names.n,
				 names.label, h5prof_name_fn, p);
	if (rc)
		goto out;

	/* integer columns */
	p->info.num_rows = (size_t)nrows;
	if (nrows) {
		p->rows = calloc((size_t)nrows, sizeof(*p->rows));
		u = malloc((size_t)nrows * sizeof(*u));
		s = malloc((size_t)nrows * sizeof(*s));
		if (!p->rows || !u || !s) {
			rc = err_nomem();
			goto out;
		}
	}
	for (i = 0; i < nrows; i++) {
		struct prow *r = &p->rows[i];

		r->idx = i;
		r->source_line = -1;
		r->exclusive = -1;
		r->file_id = r->text_id = p->empty_id;
		r->tags_id = p->notags_id;
	}
	rc = h5col_read_u64(p, &ix[IX_REGION], u, UINT32_MAX);
	if (rc)
		goto out;
	for (i = 0; i < nrows; i++)
		p->rows[i].region = (uint32_t)u[i];
	rc = h5prof_check_regions(p);
	if (rc)
		goto out;
	rc = h5col_read_u64(p, &ix[IX_RANK], u, UINT32_MAX - 1);
	if (rc)
		goto out;
	for (i = 0; i < nrows; i++) {
		p->rows[i].rank = (uint32_t)u[i];
		if (u[i] > maxrank)
			maxrank = u[i];
	}
	if (!agg) {
		rc = h5col_read_u64(p, &ix[IX_OFFSET], u, UINT64_MAX);
		if (rc)
			goto out;
		for (i = 0; i < nrows; i++)
			p->rows[i].offset = u[i];
		rc = h5col_read_u64(p, &ix[IX_COUNT], u, UINT64_MAX);
		if (rc)
			goto out;
		for (i = 0; i < nrows; i++)
			p->rows[i].count = u[i];
		if (ix[IX_EXCL].dset >= 0) {
			rc = h5col_read_i64(p, &ix[IX_EXCL], s);
			if (rc)
				goto out;
			for (i = 0; i < nrows; i++)
				p->rows[i].exclusive = s[i];
		}
	} else {
		rc = h5col_read_u64(p, &ix[IX_ACOUNT], u, UINT64_MAX);
		if (rc)
			goto out;
		for (i = 0; i < nrows; i++)
			p->rows[i].count = u[i];
		for (k = IX_ATOTAL; k <= IX_AEXCL; k++) {
			if (ix[k].dset < 0)
				continue;
			rc = h5col_read_i64(p, &ix[k], s);
			if (rc)
				goto out;
			for (i = 0; i < nrows; i++) {
				struct prow *r = &p->rows[i];

				if (k == IX_AEXCL) {
					r->exclusive = s[i];
					continue;
				}
				if (!r->count)
					continue; /* zero-call rows keep 0 */
				if (s[i] < 0) {
					rc = h5prof_fail(p, ERR_FORMAT,
							 "row %zu (%s): '%s' is negative (%" PRId64
							 " ns); the file is damaged",
							 i, h5prof_rowdesc(p, r),
							 h5prof_q(ix[k].label), s[i]);
					goto out;
				}
				if (k == IX_ATOTAL)
					r->agg_total = s[i];
				else if (k == IX_AMIN)
					r->agg_min = s[i];
				else
					r->agg_max = s[i];
			}
		}
	}
	if (ix[IX_LINE].dset >= 0) {
		rc = h5col_read_i64(p, &ix[IX_LINE], s);
		if (rc)
			goto out;
		for (i = 0; i < nrows; i++)
			p->rows[i].source_line = s[i];
	}
	sc.p = p;
	for (k = IX_FILE; k <= IX_TAGS; k++) {
		if (ix[k].dset < 0)
			continue;
		sc.which = k - IX_FILE;
		rc = h5prof_read_strings(p, ix[k].dset, 0, ix[k].type, ix[k].space, (size_t)nrows,
					 ix[k].label, h5prof_rowstr_fn, &sc);
		if (rc)
			goto out;
	}

	rc = h5prof_count_events(p);
	if (rc)
		goto out;
	rc = h5prof_mpi_size(p, &mpi);
	if (rc)
		goto out;
	p->info.num_ranks = nrows ? (uint32_t)(mpi > maxrank + 1 ? mpi : maxrank + 1) : 0;
	rc = h5prof_check_index(p);
out:
	free(sc.last_raw);
	free(u);
	free(s);
	h5col_close(&names);
	for (k = 0; k < IX_N; k++)
		h5col_close(&ix[k]);
	return rc;
}

/* ---- open / free ---- */

/* Check that path names a readable, non-empty regular file. */
static int h5prof_check_path(const struct h5prof *p)
{
	struct stat st;

	if (stat(p->path, &st) != 0) {
		int e = errno;

		if (e == ENOENT || e == ENOTDIR)
			return h5prof_fail(p, ERR_IO, "no such file");
		if (e == EACCES)
			return h5prof_fail(p, ERR_IO, "permission denied");
		return h5prof_fail(p, ERR_IO, "cannot access the file (errno %d)", e);
	}
	if (S_ISDIR(st.st_mode))
		return h5prof_fail(p, ERR_IO, "is a directory");
	if (!S_ISREG(st.st_mode))
		return h5prof_fail(p, ERR_IO, "not a regular file");
	if (access(p->path, R_OK) != 0)
		return h5prof_fail(p, ERR_IO, "permission denied");
	if (st.st_size == 0)
		return h5prof_fail(p, ERR_FORMAT, "not an HDF5 file (the file is empty)");
	return 0;
}

/* A handle for path with no file open yet (shared by h5prof_open and
 * h5prof_validate_index). */
static int h5prof_new(struct h5prof **out, const char *path)
{
	struct h5prof *p;
	size_t i;
	int rc;

	*out = NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return err_nomem();
	p->file = H5I_INVALID_HID;
	for (i = 0; i < 3; i++)
		h5col_init(&p->ev[i]);
	strmap_init(&p->names);
	strmap_init(&p->strs);
	p->path = util_strdup(path);
	if (!p->path) {
		rc = ERR_NOMEM;
		goto out;
	}
	p->qpath = util_strdup(h5prof_q(path));
	if (!p->qpath) {
		rc = ERR_NOMEM;
		goto out;
	}
	p->info.path = p->path;
	rc = strmap_intern(&p->empty_id, &p->strs, "");
	if (!rc)
		rc = strmap_intern(&p->notags_id, &p->strs, "[]");
out:
	if (rc) {
		h5prof_free(p);
		return rc;
	}
	*out = p;
	return 0;
}

/*
 * The index checks of h5prof_open_columnar() on index columns given as
 * arrays: a handle with num_names placeholder region names and the given
 * rows, run through the same functions.
 */
int h5prof_validate_index(const char *path, const struct h5prof_index *idx)
{
	struct h5prof *p = NULL;
	char name[32];
	size_t i, id;
	int rc;

	rc = h5prof_new(&p, path);
	if (rc)
		return rc;
	p->info.layout = idx->aggregate ? H5PROF_AGGREGATE : H5PROF_COLUMNAR;
	p->nev = idx->num_events;
	for (i = 0; i < idx->num_names && !rc; i++) {
		snprintf(name, sizeof(name), "region %zu", i);
		rc = strmap_intern(&id, &p->names, name);
	}
	if (rc)
		goto out;
	if (idx->num_rows) {
		p->rows = calloc(idx->num_rows, sizeof(*p->rows));
		if (!p->rows) {
			rc = err_nomem();
			goto out;
		}
	}
	p->info.num_rows = idx->num_rows;
	for (i = 0; i < idx->num_rows; i++) {
		struct prow *r = &p->rows[i];

		r->idx = i;
		r->region = idx->region_ids[i];
		r->rank = idx->ranks[i];
		r->offset = idx->aggregate ? 0 : idx->offsets[i];
		r->count = idx->counts[i];
	}
	rc = h5prof_check_regions(p);
	if (!rc)
		rc = h5prof_count_events(p);
	if (!rc)
		rc = h5prof_check_index(p);
out:
	h5prof_free(p);
	return rc;
}

int h5prof_open(struct h5prof **out, const char *path)
{
	struct h5prof *p = NULL;
	hid_t fapl = H5I_INVALID_HID;
	htri_t is;
	size_t i;
	int rc;

	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	rc = h5prof_new(&p, path);
	if (rc)
		return rc;
	rc = h5prof_check_path(p);
	if (rc)
		goto out;
	is = H5Fis_hdf5(path);
	if (is == 0) {
		rc = h5prof_fail(p, ERR_FORMAT, "not an HDF5 file");
		goto out;
	}
	/* no file locking (read-only; some file systems lack it); evict each
	 * object's metadata when it is closed, so that the metadata cache does
	 * not keep the decoded headers of every schema-1 dataset ever opened
	 * (memory would grow with the number of region groups); no raw data
	 * chunk cache: event windows start and end on chunk boundaries and
	 * every other dataset is read whole, so each chunk is read once, and
	 * without the cache libhdf5 reads (or decompresses) it straight into
	 * our buffer instead of into a cache slot and then a copy (issue 6) */
	fapl = H5Pcreate(H5P_FILE_ACCESS);
	if (fapl < 0 || H5Pset_file_locking(fapl, 0, 1) < 0 || H5Pset_evict_on_close(fapl, 1) < 0 ||
	    H5Pset_cache(fapl, 0, 0, 0, 0.75) < 0) {
		rc = h5prof_fail(p, ERR_GENERIC, "cannot set up HDF5 file access");
		goto out;
	}
	p->file = H5Fopen(path, H5F_ACC_RDONLY, fapl);
	if (p->file < 0) {
		rc = is < 0
			 ? h5prof_fail(p, ERR_FORMAT, "not an HDF5 file, or truncated or damaged")
			 : h5prof_damaged(p, "HDF5 cannot open it", NULL);
		goto out;
	}
	rc = h5prof_detect(p);
	if (!rc)
		rc = h5prof_read_meta(p);
	if (rc)
		goto out;
	if (p->info.layout == H5PROF_HIERARCHICAL)
		rc = h5prof_open_hier(p);
	else
		rc = h5prof_open_columnar(p);
	if (rc)
		goto out;
	p->info.num_regions = strmap_count(&p->names);
	p->name_ptrs = calloc(p->info.num_regions ? p->info.num_regions : 1, sizeof(char *));
	if (!p->name_ptrs) {
		rc = err_nomem();
		goto out;
	}
	for (i = 0; i < p->info.num_regions; i++)
		p->name_ptrs[i] = (char *)strmap_get(&p->names, i);
	p->info.region_names = p->name_ptrs;
	p->info.meta = p->meta;
	*out = p;
	p = NULL;
out:
	if (fapl >= 0)
		H5Pclose(fapl);
	h5prof_free(p);
	return rc;
}

const struct h5prof_info *h5prof_info(const struct h5prof *p)
{
	return &p->info;
}

const char *h5prof_meta_get(const struct h5prof *p, const char *key)
{
	size_t lo = 0, hi = p->info.num_meta;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(p->meta[mid].key, key);

		if (c == 0)
			return p->meta[mid].value;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

void h5prof_free(struct h5prof *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < 3; i++)
		h5col_close(&p->ev[i]);
	if (p->file >= 0)
		H5Fclose(p->file);
	for (i = 0; i < p->info.num_meta; i++) {
		free(p->meta[i].key);
		free(p->meta[i].value);
	}
	free(p->meta);
	for (i = 0; i < p->nrank_groups; i++)
		free(p->rank_groups[i]);
	free(p->rank_groups);
	free(p->name_ptrs);
	free(p->rows);
	strmap_release(&p->names);
	strmap_release(&p->strs);
	free(p->qpath);
	free(p->path);
	free(p);
}

/* ---- reading events ---- */

/* A window of every event column: events [start, start + len). */
struct h5win {
	int64_t *col[3];
	uint64_t start, len;
};

/*
 * The reader of event windows on a second thread: while the rows of one
 * window are handed out, the next window is read (and, in gzip files,
 * decompressed) into the other buffer.  libhdf5 is not thread-safe, so
 * while this thread exists it makes every H5* call of the read; the
 * calling thread only waits for it.  It never calls err_set() either: a
 * failure is passed back in fail and reported by the calling thread.
 */
struct h5prefetch {
	const struct h5prof *p;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int started;
	int busy; /* a request is being served */
	int quit;
	struct h5win *w; /* the request: load the window of event pos into w */
	uint64_t pos;
	int fail; /* h5win_load() of the last request */
};

/* Per-read buffers: two windows of the event columns (the current one is
 * win[cur], cur < 0 before the first) and the current row. */
struct h5prof_bufs {
	struct h5win win[2];
	int cur;
	int pending; /* win[1 - cur] is being loaded by pf */
	struct h5prefetch pf;
	int64_t *starts, *durs, *gpu, *tmp;
	size_t cap;
};

static int h5prof_bufs_reserve(struct h5prof_bufs *b, size_t n)
{
	int64_t **arr[4];
	int i;

	if (n <= b->cap)
		return 0;
	if (n > SIZE_MAX / sizeof(int64_t))
		return err_nomem();
	arr[0] = &b->starts;
	arr[1] = &b->durs;
	arr[2] = &b->gpu;
	arr[3] = &b->tmp;
	for (i = 0; i < 4; i++) {
		int64_t *v = realloc(*arr[i], n * sizeof(int64_t));

		if (!v)
			return err_nomem();
		*arr[i] = v;
	}
	b->cap = n;
	return 0;
}

static void h5prof_prefetch_stop(struct h5prefetch *pf);

static void h5prof_bufs_release(struct h5prof_bufs *b)
{
	int i;

	h5prof_prefetch_stop(&b->pf);
	for (i = 0; i < 3; i++) {
		free(b->win[0].col[i]);
		free(b->win[1].col[i]);
	}
	free(b->starts);
	free(b->durs);
	free(b->gpu);
	free(b->tmp);
}

/* Fill in the fields of out common to every layout. */
static void h5prof_fill_row(const struct h5prof *p, const struct prow *r, struct h5prof_row *out)
{
	memset(out, 0, sizeof(*out));
	out->rank = r->rank;
	out->region = r->region;
	out->calls = r->count;
	out->has_events = p->info.layout != H5PROF_AGGREGATE;
	out->agg_total = r->agg_total;
	out->agg_min = r->agg_min;
	out->agg_max = r->agg_max;
	out->exclusive = r->exclusive;
	out->source_line = r->source_line;
	out->source_file = strmap_get(&p->strs, r->file_id);
	out->source_text = strmap_get(&p->strs, r->text_id);
	out->tags_json = strmap_get(&p->strs, r->tags_id);
}

/*
 * Turn the raw columns of row r (a = starts or, with delta, start deltas;
 * e = ends or, with delta, durations) into absolute starts and durations,
 * refusing negative durations and overflowing times.  The column that is
 * already in its final form is used where it lies; the other is computed
 * into starts (the running sum of the deltas) or durs (end - start), which
 * may be a or e themselves.  *out_starts and *out_durs say where the result
 * is.
 */
static int h5prof_decode(const struct h5prof *p, const struct prow *r, int delta, const int64_t *a,
			 const int64_t *e, int64_t *starts, int64_t *durs,
			 const int64_t **out_starts, const int64_t **out_durs)
{
	uint64_t i;
	int64_t run = 0, start, dur, end;

	*out_starts = delta ? starts : a;
	*out_durs = delta ? e : durs;
	for (i = 0; i < r->count; i++) {
		if (delta) {
			/* starts = running sum of the row's deltas */
			if (__builtin_add_overflow(run, a[i], &run))
				return h5prof_fail(p, ERR_FORMAT,
						   "%s: the start time of call %" PRIu64
						   " overflows; the file is damaged",
						   h5prof_rowdesc(p, r), i);
			starts[i] = start = run;
			dur = e[i];
		} else {
			start = a[i];
			if (__builtin_sub_overflow(e[i], start, &dur))
				return h5prof_fail(p, ERR_FORMAT,
						   "%s: the duration of call %" PRIu64
						   " overflows; the file is damaged",
						   h5prof_rowdesc(p, r), i);
			durs[i] = dur;
		}
		if (dur < 0)
			return h5prof_fail(p, ERR_FORMAT,
					   "%s: call %" PRIu64 " has a negative duration (%" PRId64
					   " ns); the file is damaged",
					   h5prof_rowdesc(p, r), i, dur);
		if (__builtin_add_overflow(start, dur, &end))
			return h5prof_fail(p, ERR_FORMAT,
					   "%s: the end time of call %" PRIu64
					   " overflows; the file is damaged",
					   h5prof_rowdesc(p, r), i);
	}
	return 0;
}

/*
 * Events per window: h5prof_chunk, or a whole compressed chunk when that
 * is longer (up to H5PROF_MAX_WINDOW), rounded down to whole chunks of the
 * first column when they fit.
 */
static hsize_t h5prof_window_len(const struct h5prof *p)
{
	hsize_t len = h5prof_chunk, align = p->ev[0].chunk;
	int k;

	for (k = 0; k < 3; k++)
		if (p->ev[k].dset >= 0 && p->ev[k].filtered && p->ev[k].chunk > len &&
		    p->ev[k].chunk <= H5PROF_MAX_WINDOW)
			len = p->ev[k].chunk;
	if (align > 0 && align <= len)
		len = len / align * align;
	return len;
}

/*
 * Load a window of every event column that contains event pos into w
 * (buffers of h5prof_window_len() events), starting on a chunk boundary of
 * the first column when its chunks fit in a window (as bench_rawread
 * reads, and at the same speed), else at pos.  libhdf5 then reads whole
 * chunks straight into the window.  Runs on the prefetch thread: no
 * err_set(); returns 0, k + 1 when column k cannot be read, or -1 when no
 * dataspace can be made (h5prof_window_error() words it).
 */
static int h5win_load(const struct h5prof *p, struct h5win *w, uint64_t pos)
{
	hsize_t start = pos, count, len = h5prof_window_len(p), align = p->ev[0].chunk;
	hid_t mem;
	int k, fail = 0;

	if (align > 0 && align <= len)
		start = pos / align * align;
	count = p->nev - start < len ? p->nev - start : len;
	mem = H5Screate_simple(1, &count, NULL);
	if (mem < 0)
		return -1;
	for (k = 0; k < 3 && !fail; k++) {
		const struct h5col *c = &p->ev[k];

		if (c->dset < 0)
			continue;
		if (H5Sselect_hyperslab(c->space, H5S_SELECT_SET, &start, NULL, &count, NULL) < 0 ||
		    H5Dread(c->dset, H5T_NATIVE_INT64, mem, c->space, H5P_DEFAULT, w->col[k]) < 0)
			fail = k + 1;
	}
	H5Sclose(mem);
	w->start = start;
	w->len = fail ? 0 : count;
	return fail;
}

/* The message of a failed h5win_load() of the window of event pos. */
static int h5prof_window_error(const struct h5prof *p, uint64_t pos, int fail)
{
	const struct h5col *c = &p->ev[fail > 0 ? fail - 1 : 0];
	uint64_t len = h5prof_window_len(p);

	if (fail < 0)
		return h5prof_fail(p, ERR_GENERIC, "cannot create an HDF5 dataspace");
	return h5prof_fail(p, ERR_FORMAT,
			   "cannot read events [%llu, %llu) of '%s'; the file is truncated or "
			   "damaged",
			   (unsigned long long)pos,
			   (unsigned long long)(pos + (p->nev - pos < len ? p->nev - pos : len)),
			   c->label);
}

/* The prefetch thread: serve one request at a time until told to quit. */
static void *h5prof_prefetch_main(void *arg)
{
	struct h5prefetch *pf = arg;
	int fail;

	pthread_mutex_lock(&pf->mu);
	for (;;) {
		while (!pf->busy && !pf->quit)
			pthread_cond_wait(&pf->cv, &pf->mu);
		if (pf->quit)
			break;
		pthread_mutex_unlock(&pf->mu);
		fail = h5win_load(pf->p, pf->w, pf->pos);
		pthread_mutex_lock(&pf->mu);
		pf->fail = fail;
		pf->busy = 0;
		pthread_cond_broadcast(&pf->cv);
	}
	pthread_mutex_unlock(&pf->mu);
	return NULL;
}

/* Start the prefetch thread; without it (no thread, no memory) windows are
 * simply loaded by the calling thread. */
static void h5prof_prefetch_start(struct h5prefetch *pf, const struct h5prof *p)
{
	memset(pf, 0, sizeof(*pf));
	pf->p = p;
	if (pthread_mutex_init(&pf->mu, NULL))
		return;
	if (pthread_cond_init(&pf->cv, NULL)) {
		pthread_mutex_destroy(&pf->mu);
		return;
	}
	if (pthread_create(&pf->thread, NULL, h5prof_prefetch_main, pf)) {
		pthread_cond_destroy(&pf->cv);
		pthread_mutex_destroy(&pf->mu);
		return;
	}
	pf->started = 1;
}

/* Wait until the thread has served its request (it then makes no H5 call). */
static void h5prof_prefetch_wait(struct h5prefetch *pf)
{
	if (!pf->started)
		return;
	pthread_mutex_lock(&pf->mu);
	while (pf->busy)
		pthread_cond_wait(&pf->cv, &pf->mu);
	pthread_mutex_unlock(&pf->mu);
}

static void h5prof_prefetch_stop(struct h5prefetch *pf)
{
	if (!pf->started)
		return;
	pthread_mutex_lock(&pf->mu);
	pf->quit = 1;
	pthread_cond_broadcast(&pf->cv);
	pthread_mutex_unlock(&pf->mu);
	pthread_join(pf->thread, NULL);
	pthread_cond_destroy(&pf->cv);
	pthread_mutex_destroy(&pf->mu);
	pf->started = 0;
}

/* Load the window of event pos into w: by the prefetch thread in the
 * background (then *fail is set later), or here when there is none. */
static void h5prof_prefetch_request(struct h5prefetch *pf, struct h5win *w, uint64_t pos, int *fail)
{
	if (!pf->started) {
		*fail = h5win_load(pf->p, w, pos);
		return;
	}
	pthread_mutex_lock(&pf->mu);
	pf->w = w;
	pf->pos = pos;
	pf->busy = 1;
	pthread_cond_broadcast(&pf->cv);
	pthread_mutex_unlock(&pf->mu);
}

/*
 * Make b->win[b->cur] the window that holds event pos: the prefetched one
 * when it does (the rows are read in file order, so it nearly always
 * does), else a fresh load.  Then start loading the window after it.
 */
static int h5prof_window(const struct h5prof *p, struct h5prof_bufs *b, uint64_t pos)
{
	struct h5win *w;
	uint64_t next;
	int other, fail = 0, k;

	/* validated at open; guards against an endless loop */
	if (pos >= p->nev)
		return h5prof_damaged(p, "events beyond the event columns", NULL);
	if (b->cur >= 0 && pos >= b->win[b->cur].start &&
	    pos < b->win[b->cur].start + b->win[b->cur].len)
		return 0;
	if (!b->win[0].col[0]) {
		/* first use: the buffers of both windows */
		uint64_t len = h5prof_window_len(p);
		size_t n = p->nev < len ? (size_t)p->nev : (size_t)len;

		for (k = 0; k < 3; k++) {
			if (p->ev[k].dset < 0)
				continue;
			b->win[0].col[k] = malloc((n ? n : 1) * sizeof(int64_t));
			b->win[1].col[k] = malloc((n ? n : 1) * sizeof(int64_t));
			if (!b->win[0].col[k] || !b->win[1].col[k])
				return err_nomem();
		}
		b->pf.p = p;
		if (p->nev > n)
			h5prof_prefetch_start(&b->pf, p);
	}
	other = b->cur < 0 ? 0 : 1 - b->cur;
	w = &b->win[other];
	if (b->pending) {
		/* a failed prefetch leaves w empty: then the load below says
		 * what is wrong, if the rows need that window at all */
		h5prof_prefetch_wait(&b->pf);
		b->pending = 0;
	}
	if (!(w->len && pos >= w->start && pos < w->start + w->len)) {
		/* not the prefetched window (or none): load it now */
		h5prof_prefetch_request(&b->pf, w, pos, &fail);
		h5prof_prefetch_wait(&b->pf);
		if (b->pf.started)
			fail = b->pf.fail;
		if (fail)
			return h5prof_window_error(p, pos, fail);
	}
	b->cur = other;
	next = w->start + w->len;
	if (b->pf.started && next < p->nev) {
		b->win[1 - other].len = 0;
		h5prof_prefetch_request(&b->pf, &b->win[1 - other], next, &fail);
		b->pending = 1;
	}
	return 0;
}

static int h5prof_read_columnar(struct h5prof *p, h5prof_row_fn fn, void *ctx)
{
	struct h5prof_bufs b;
	struct h5prof_row row;
	size_t i;
	int rc = 0;

	memset(&b, 0, sizeof(b));
	b.cur = -1;
	if (p->info.layout == H5PROF_COLUMNAR) {
		rc = h5prof_bufs_reserve(&b, (size_t)(p->max_count ? p->max_count : 1));
		if (rc)
			goto out;
	}
	for (i = 0; i < p->info.num_rows; i++) {
		const struct prow *r = &p->rows[i];
		const struct h5win *w;
		uint64_t pos = r->offset, done = 0;

		h5prof_fill_row(p, r, &row);
		if (p->info.layout == H5PROF_AGGREGATE || r->count == 0) {
			rc = fn(ctx, &row);
			if (rc)
				goto out;
			continue;
		}
		rc = h5prof_window(p, &b, pos);
		if (rc)
			goto out;
		w = &b.win[b.cur];
		if (r->count <= w->start + w->len - pos) {
			/* The whole row is in the window (all but at most one row
			 * per window): decode it from there, without a copy.  The
			 * window stays read-only, so rows may share events. */
			size_t off = (size_t)(pos - w->start);

			rc = h5prof_decode(p, r, p->delta, w->col[0] + off, w->col[1] + off,
					   b.starts, b.durs, &row.starts, &row.durations);
			if (rc)
				goto out;
			row.gpu = p->ev[2].dset >= 0 ? w->col[2] + off : NULL;
			rc = fn(ctx, &row);
			if (rc)
				goto out;
			continue;
		}
		while (done < r->count) {
			uint64_t take;
			size_t off;
			int k;

			rc = h5prof_window(p, &b, pos);
			if (rc)
				goto out;
			w = &b.win[b.cur];
			take = w->start + w->len - pos;
			if (take > r->count - done)
				take = r->count - done;
			off = (size_t)(pos - w->start);
			for (k = 0; k < 3; k++) {
				int64_t *dst = k == 0 ? b.starts : k == 1 ? b.durs : b.gpu;

				if (p->ev[k].dset >= 0)
					memcpy(dst + done, w->col[k] + off,
					       (size_t)take * sizeof(int64_t));
			}
			pos += take;
			done += take;
		}
		rc = h5prof_decode(p, r, p->delta, b.starts, b.durs, b.starts, b.durs, &row.starts,
				   &row.durations);
		if (rc)
			goto out;
		row.gpu = p->ev[2].dset >= 0 ? b.gpu : NULL;
		rc = fn(ctx, &row);
		if (rc)
			goto out;
	}
out:
	h5prof_bufs_release(&b);
	return rc;
}

/* Read one whole dataset of a schema-1 region group into dst. */
static int h5prof_read_whole(const struct h5prof *p, hid_t g, const char *name, const char *label,
			     int64_t *dst, uint64_t n)
{
	hid_t d;
	herr_t st;

	if (n == 0)
		return 0;
	d = H5Dopen2(g, name, H5P_DEFAULT);
	if (d < 0)
		return h5prof_damaged(p, "cannot open dataset", label);
	st = H5Dread(d, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, dst);
	H5Dclose(d);
	if (st < 0)
		return h5prof_damaged(p, "cannot read dataset", label);
	return 0;
}

/*
 * Schema 1: rows come grouped by rank; each rank's regions group stays open
 * while its rows are read (with evict-on-close, re-opening it per row would
 * re-read its metadata every time).
 */
static int h5prof_read_hier(struct h5prof *p, h5prof_row_fn fn, void *ctx)
{
	struct h5prof_bufs b;
	struct h5prof_row row;
	hid_t regs = H5I_INVALID_HID, g = H5I_INVALID_HID;
	size_t i, cur = SIZE_MAX;
	int rc = 0;

	memset(&b, 0, sizeof(b));
	rc = h5prof_bufs_reserve(&b, (size_t)(p->max_count ? p->max_count : 1));
	if (rc)
		goto out;
	for (i = 0; i < p->info.num_rows; i++) {
		const struct prow *r = &p->rows[i];
		const char *name = strmap_get(&p->names, r->region);
		char path[700], label[800];

		h5prof_fill_row(p, r, &row);
		snprintf(path, sizeof(path), "%s/regions/%s", p->rank_groups[r->idx], name);
		if (r->count && r->idx != cur) {
			char rpath[300];

			if (regs >= 0)
				H5Gclose(regs);
			snprintf(rpath, sizeof(rpath), "%s/regions", p->rank_groups[r->idx]);
			regs = H5Gopen2(p->file, rpath, H5P_DEFAULT);
			if (regs < 0) {
				rc = h5prof_damaged(p, "cannot open group", rpath);
				goto out;
			}
			cur = r->idx;
		}
		if (r->count) {
			g = H5Gopen2(regs, name, H5P_DEFAULT);
			if (g < 0) {
				rc = h5prof_damaged(p, "cannot open group", path);
				goto out;
			}
			snprintf(label, sizeof(label), "%s/start_times", path);
			rc = h5prof_read_whole(p, g, "start_times", label, b.starts, r->count);
			if (rc)
				goto out;
			snprintf(label, sizeof(label), "%s/end_times", path);
			rc = h5prof_read_whole(p, g, "end_times", label, b.durs, r->count);
			if (rc)
				goto out;
			if (r->flags & PROW_GPU) {
				snprintf(label, sizeof(label), "%s/gpu_durations", path);
				rc = h5prof_read_whole(p, g, "gpu_durations", label, b.gpu,
						       r->count);
				if (rc)
					goto out;
			}
			H5Gclose(g);
			g = H5I_INVALID_HID;
			rc = h5prof_decode(p, r, 0, b.starts, b.durs, b.starts, b.durs, &row.starts,
					   &row.durations);
			if (rc)
				goto out;
			row.gpu = (r->flags & PROW_GPU) ? b.gpu : NULL;
		}
		rc = fn(ctx, &row);
		if (rc)
			goto out;
	}
out:
	if (g >= 0)
		H5Gclose(g);
	if (regs >= 0)
		H5Gclose(regs);
	h5prof_bufs_release(&b);
	return rc;
}

int h5prof_read(struct h5prof *p, h5prof_row_fn fn, void *ctx)
{
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	if (p->info.layout == H5PROF_HIERARCHICAL)
		return h5prof_read_hier(p, fn, ctx);
	return h5prof_read_columnar(p, fn, ctx);
}
