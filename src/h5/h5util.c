/*
 * h5util.c - the HDF5 building blocks every layout of the reader uses:
 * checked look-ups of objects and attributes, one-dimensional datasets
 * opened with their type class and shape checked (struct h5col), whole
 * reads of integer columns with range checks, and readers of string
 * datasets and attributes in all the forms scope-profiler writes them
 * (variable-length or fixed-length, NUL- or space-padded UTF-8;
 * docs/format.md section 1.3).
 *
 * Every failure is reported through h5prof_fail()/h5prof_damaged() with the
 * object's path, so messages name the file and what is wrong.  Every HDF5
 * id opened here is closed on every path.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

#include "scopedb/err.h"
#include "scopedb/util.h"
#include "h5/h5_internal.h"

const char *h5util_class_name(hid_t type)
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

void h5util_close_type(hid_t *id)
{
	if (*id >= 0)
		H5Tclose(*id);
	*id = H5I_INVALID_HID;
}

void h5util_close_space(hid_t *id)
{
	if (*id >= 0)
		H5Sclose(*id);
	*id = H5I_INVALID_HID;
}

void h5col_init(struct h5col *c)
{
	c->dset = H5I_INVALID_HID;
	c->type = H5I_INVALID_HID;
	c->space = H5I_INVALID_HID;
	c->n = 0;
	c->chunk = 0;
	c->filtered = 0;
	c->inflate = 0;
	c->contiguous = 0;
	c->stored = 0;
	c->elsize = 0;
	c->label = NULL;
}

void h5col_close(struct h5col *c)
{
	if (c->dset >= 0)
		H5Dclose(c->dset);
	h5util_close_type(&c->type);
	h5util_close_space(&c->space);
	h5col_init(c);
}

/* Append a copy of s to l. */
static int h5names_push(struct h5names *l, const char *s)
{
	char *d;

	if (util_grow(&l->v, &l->cap, l->n + 1, sizeof(*l->v), 16))
		return ERR_NOMEM;
	d = util_strdup(s);
	if (!d)
		return ERR_NOMEM;
	l->v[l->n++] = d;
	return 0;
}

void h5names_release(struct h5names *l)
{
	size_t i;

	if (!l)
		return;
	for (i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
	l->failed = 0;
}

/* h5names_push() as an HDF5 iteration callback needs it: on failure the
 * iteration stops (-1) and l->failed tells the caller it was memory. */
herr_t h5names_push_cb(struct h5names *l, const char *s)
{
	if (h5names_push(l, s)) {
		l->failed = 1;
		return -1;
	}
	return 0;
}

/* Soft links followed when checking one path; libhdf5 itself stops at 16. */
#define H5UTIL_MAX_SOFT 16

static int h5util_walk(const struct h5prof *p, hid_t loc, const char *path, const char *label,
		       int depth);

/*
 * Whether soft link name of loc (label in messages), holding target,
 * resolves to an object of the file without leaving it: the target path is
 * walked like any other (h5util_walk), from the root when absolute, else
 * from the group holding the link (loc plus the directory part of name).
 */
static int h5util_soft_check(const struct h5prof *p, hid_t loc, const char *name, const char *label,
			     const char *target, int depth)
{
	const char *slash = strrchr(name, '/');
	char *full = NULL;
	size_t dlen = slash ? (size_t)(slash - name) + 1 : 0;
	int rc;

	if (depth >= H5UTIL_MAX_SOFT)
		return h5prof_fail(p, ERR_FORMAT,
				   "'%s' is a soft link in a chain of more than %d; refused (a "
				   "loop?)",
				   h5prof_q(label), H5UTIL_MAX_SOFT);
	if (target[0] == '/') {
		rc = h5util_walk(p, p->file, target, label, depth + 1);
	} else {
		full = malloc(dlen + strlen(target) + 1);
		if (!full)
			return err_nomem();
		memcpy(full, name, dlen);
		strcpy(full + dlen, target);
		rc = h5util_walk(p, loc, full, label, depth + 1);
	}
	free(full);
	if (rc == 0)
		return h5prof_fail(p, ERR_FORMAT,
				   "'%s' is a soft link to the missing object '%s'; refused (a "
				   "profile must be self-contained)",
				   h5prof_q(label), h5prof_q(target));
	return rc < 0 ? rc : 0;
}

/*
 * The link name of loc must stay inside the file: a hard link, or a soft
 * link whose target is (recursively) such an object.  External links and
 * user-defined links are refused before anything follows them, so libhdf5
 * never opens another file (or consults HDF5_EXT_PREFIX) for a profile.
 */
static int h5util_link_check_depth(const struct h5prof *p, hid_t loc, const char *name,
				   const char *label, int depth)
{
	H5L_info_t li;
	char *val = NULL;
	const char *file = NULL, *obj = NULL;
	unsigned flags;
	int rc = 0;

	if (H5Lget_info(loc, name, &li, H5P_DEFAULT) < 0)
		return h5prof_damaged(p, "cannot look up", label);
	if (li.type == H5L_TYPE_HARD)
		return 0;
	if (li.type != H5L_TYPE_SOFT && li.type != H5L_TYPE_EXTERNAL)
		return h5prof_fail(p, ERR_FORMAT,
				   "'%s' is a user-defined link (type %d); refused (a profile must "
				   "be self-contained)",
				   h5prof_q(label), (int)li.type);
	/* the link value lives in the object header: bounded by the file */
	if (li.u.val_size == 0 || (uint64_t)li.u.val_size > (uint64_t)p->st.st_size)
		return h5prof_damaged(p, "cannot read the link", label);
	val = calloc(1, li.u.val_size + 1);
	if (!val)
		return err_nomem();
	if (H5Lget_val(loc, name, val, li.u.val_size, H5P_DEFAULT) < 0) {
		rc = h5prof_damaged(p, "cannot read the link", label);
		goto out;
	}
	if (li.type == H5L_TYPE_SOFT) {
		rc = h5util_soft_check(p, loc, name, label, val, depth);
		goto out;
	}
	if (H5Lunpack_elink_val(val, li.u.val_size, &flags, &file, &obj) < 0 || !file || !obj) {
		file = "?";
		obj = "?";
	}
	rc = h5prof_fail(p, ERR_FORMAT,
			 "'%s' is an external link to '%s' in '%s'; refused (a profile must be "
			 "self-contained)",
			 h5prof_q(label), h5prof_q(obj), h5prof_q(file));
out:
	free(val);
	return rc;
}

int h5util_link_check(const struct h5prof *p, hid_t loc, const char *name, const char *label)
{
	return h5util_link_check_depth(p, loc, name, label, 0);
}

/*
 * Whether the object at path (relative to loc, components separated by '/')
 * exists, checking every link on the way with h5util_link_check() before
 * anything traverses it (each prefix is looked up, which also keeps
 * H5Lexists from failing on a missing intermediate group).  Returns 1, 0,
 * or a negative error.
 */
static int h5util_walk(const struct h5prof *p, hid_t loc, const char *path, const char *label,
		       int depth)
{
	size_t i, len = strlen(path);
	char *tmp;
	int rc = 1;

	tmp = malloc(len + 1);
	if (!tmp)
		return err_nomem();
	memcpy(tmp, path, len + 1);
	for (i = 0; i <= len && rc == 1; i++) {
		if (tmp[i] == '/' || tmp[i] == '\0') {
			char save = tmp[i];
			htri_t e;

			if (i == 0 || tmp[i - 1] == '/')
				continue; /* leading or doubled '/' */
			tmp[i] = '\0';
			e = H5Lexists(loc, tmp, H5P_DEFAULT);
			if (e < 0)
				rc = h5prof_damaged(p, "cannot look up", label);
			else if (e == 0)
				rc = 0;
			else if (strcmp(tmp, ".") != 0 &&
				 (e = h5util_link_check_depth(p, loc, tmp, tmp, depth)) != 0)
				rc = (int)e;
			tmp[i] = save;
		}
	}
	free(tmp);
	return rc;
}

int h5util_exists(const struct h5prof *p, hid_t loc, const char *path)
{
	return h5util_walk(p, loc, path, path, 0);
}

/* Object type of an existing path (H5O_TYPE_UNKNOWN on failure). */
H5O_type_t h5util_objtype(hid_t loc, const char *path)
{
	h5util_oinfo info;

	if (h5util_oget_info_by_name(loc, path, &info) < 0)
		return H5O_TYPE_UNKNOWN;
	return info.type;
}

static int h5col_check_storage(const struct h5prof *p, struct h5col *c);

/*
 * Open path as a one-dimensional dataset whose type class must be
 * want_class (expect names the expected type in messages).  A missing
 * dataset is an error when required, otherwise c->dset stays invalid.
 */
int h5col_open(const struct h5prof *p, struct h5col *c, hid_t loc, const char *path,
	       const char *label, H5T_class_t want_class, const char *expect, int required)
{
	hsize_t dims[1];
	int e, nd;

	h5col_init(c);
	c->label = label;
	e = h5util_exists(p, loc, path);
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
		if (h5util_objtype(loc, path) != H5O_TYPE_DATASET)
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
				     h5prof_q(label), h5util_class_name(c->type), expect);

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
	e = h5col_check_storage(p, c);
	if (e)
		h5col_close(c);
	return e;
}

/*
 * The most a filter can expand data: deflate's limit is 1032:1; szip
 * (libaec) codes runs of zero blocks in a few bits, 65536 bounds it;
 * shuffle and fletcher32 do not compress.  Other filters (nbit,
 * scaleoffset: unbounded) are refused, plugins are never loaded.  0 =
 * refused.
 */
static uint64_t h5util_filter_ratio(H5Z_filter_t id)
{
	switch (id) {
	case H5Z_FILTER_DEFLATE:
		return 1032;
	case H5Z_FILTER_SZIP:
		return 65536;
	case H5Z_FILTER_SHUFFLE:
	case H5Z_FILTER_FLETCHER32:
		return 1;
	default:
		return 0;
	}
}

/*
 * What a dataset may make the reader do, checked before any of its data is
 * read: its raw data must lie inside the file (no virtual layout, no
 * external storage: libhdf5 would read other files, e.g. /etc/passwd), its
 * filters must be built into libhdf5 (no plugin is ever loaded, see
 * h5prof_open), and the values it declares must fit in what the file
 * stores for it: n x element size at most the bytes allocated to it (and
 * the file's size) times the filters' maximum expansion.  Sparse or
 * unallocated storage read as fill values would otherwise make a 13 KB file
 * a run of 2e8 events.  Also notes the chunk length (a hint for event
 * windows: a window cutting chunks makes libhdf5 read those chunks through
 * its cache).
 */
static int h5col_check_storage(const struct h5prof *p, struct h5col *c)
{
	const char *lbl = h5prof_q(c->label);
	uint64_t ratio = 1, bytes, stored, room;
	hid_t dcpl;
	hsize_t cdims[1];
	H5D_layout_t layout;
	struct h5filters fl = {0, {0, 0}, {0, 0}, {0, 0}, 0};
	unsigned opts = 0;
	int nf, i, rc = 0;

	c->elsize = H5Tget_size(c->type);
	dcpl = H5Dget_create_plist(c->dset);
	if (dcpl < 0 || c->elsize == 0) {
		rc = h5prof_damaged(p, "cannot inspect dataset", c->label);
		goto out;
	}
	layout = H5Pget_layout(dcpl);
	if (layout == H5D_VIRTUAL) {
		rc = h5prof_fail(p, ERR_FORMAT,
				 "dataset '%s' is a virtual dataset (its data lies in other "
				 "datasets or files); refused (a profile must be self-contained)",
				 lbl);
		goto out;
	}
	if (layout < 0 || H5Pget_external_count(dcpl) != 0) {
		rc = layout < 0 ? h5prof_damaged(p, "cannot inspect dataset", c->label)
				: h5prof_fail(p, ERR_FORMAT,
					      "dataset '%s' uses external storage; refused (a "
					      "profile must be self-contained)",
					      lbl);
		goto out;
	}
	nf = H5Pget_nfilters(dcpl);
	if (nf < 0) {
		rc = h5prof_damaged(p, "cannot inspect the filters of dataset", c->label);
		goto out;
	}
	for (i = 0; i < nf; i++) {
		char name[64] = "";
		unsigned flags, conf, cd[1] = {0};
		size_t ncd = 1;
		H5Z_filter_t id;
		uint64_t r;

		id = H5Pget_filter2(dcpl, (unsigned)i, &flags, &ncd, cd, sizeof(name), name, &conf);
		if (id < 0) {
			rc = h5prof_damaged(p, "cannot inspect the filters of dataset", c->label);
			goto out;
		}
		name[sizeof(name) - 1] = '\0';
		if (i < 2) {
			fl.id[i] = id;
			fl.ncd[i] = ncd; /* (how many it has, though 1 was asked) */
			fl.cd0[i] = ncd ? cd[0] : 0;
		}
		r = h5util_filter_ratio(id);
		if (r && H5Zfilter_avail(id) > 0) {
			ratio = ratio > UINT64_MAX / r ? UINT64_MAX : ratio * r;
			continue;
		}
		rc = h5prof_fail(p, ERR_FORMAT,
				 "dataset '%s' needs HDF5 filter %d ('%s'), which %s; refused", lbl,
				 (int)id, h5prof_q(name),
				 r ? "this libhdf5 lacks"
				   : "is not built into libhdf5 or accepted by scopedb (filter "
				     "plugins are never loaded)");
		goto out;
	}
	if (c->n > UINT64_MAX / c->elsize) {
		bytes = UINT64_MAX;
	} else {
		bytes = c->n * c->elsize;
	}
	stored = c->stored = H5Dget_storage_size(c->dset);
	c->contiguous = layout == H5D_CONTIGUOUS;
	if ((uint64_t)p->st.st_size < stored)
		stored = (uint64_t)p->st.st_size;
	room = stored > UINT64_MAX / ratio ? UINT64_MAX : stored * ratio;
	if (bytes > room && ratio == 1) {
		rc = h5prof_fail(p, ERR_FORMAT,
				 "dataset '%s' declares %llu values (%llu bytes) but the file "
				 "stores only %llu bytes for it; refused (sparse or unallocated "
				 "storage, or the file is damaged)",
				 lbl, (unsigned long long)c->n, (unsigned long long)bytes,
				 (unsigned long long)stored);
		goto out;
	}
	if (bytes > room) {
		rc = h5prof_fail(p, ERR_FORMAT,
				 "dataset '%s' declares %llu values (%llu bytes) but the file "
				 "stores only %llu compressed bytes for it (at most %llu:1); "
				 "refused (sparse or unallocated storage, or the file is damaged)",
				 lbl, (unsigned long long)c->n, (unsigned long long)bytes,
				 (unsigned long long)stored, (unsigned long long)ratio);
		goto out;
	}
	if (layout == H5D_CHUNKED && H5Pget_chunk(dcpl, 1, cdims) == 1) {
		c->chunk = cdims[0];
		c->filtered = nf > 0;
		fl.n = nf;
		fl.raw_edges = H5Pget_chunk_opts(dcpl, &opts) < 0 ||
			       (opts & H5D_CHUNK_DONT_FILTER_PARTIAL_CHUNKS);
		c->inflate = h5inflate_kind(c->type, c->chunk, &fl);
	}
out:
	if (dcpl >= 0)
		H5Pclose(dcpl);
	return rc;
}

/*
 * Re-open c with a raw-data chunk cache holding one whole chunk (the file
 * access list turns the cache off): a chunk longer than an event window is
 * then decompressed once, not once per window.
 */
int h5col_cache_chunk(const struct h5prof *p, struct h5col *c, hid_t loc, const char *path)
{
	hid_t dapl;
	size_t bytes;

	if (c->chunk > SIZE_MAX / c->elsize)
		return h5prof_fail(p, ERR_FORMAT, "dataset '%s' has chunks of %llu values",
				   h5prof_q(c->label), (unsigned long long)c->chunk);
	bytes = (size_t)c->chunk * c->elsize;
	dapl = H5Pcreate(H5P_DATASET_ACCESS);
	if (dapl < 0 || H5Pset_chunk_cache(dapl, 521, bytes + 1, 1.0) < 0) {
		if (dapl >= 0)
			H5Pclose(dapl);
		return h5prof_fail(p, ERR_GENERIC, "cannot set up HDF5 dataset access");
	}
	H5Dclose(c->dset);
	c->dset = H5Dopen2(loc, path, dapl);
	H5Pclose(dapl);
	if (c->dset < 0)
		return h5prof_damaged(p, "cannot open dataset", c->label);
	return 0;
}

/* The transfer properties of the reads of this file (the index, strings,
 * whole columns): a 64 KiB type conversion buffer, not libhdf5's 1 MiB
 * one, which it zeroes for every read that converts (a fifth of the CPU of
 * a batch of small files' ingest).  Made once a process, and again after
 * libhdf5 was closed (h5util_forget()). */
static hid_t dxpl = H5I_INVALID_HID;

void h5util_forget(void)
{
	dxpl = H5I_INVALID_HID;
}

static hid_t small_dxpl(void)
{
	if (dxpl == H5I_INVALID_HID) {
		dxpl = H5Pcreate(H5P_DATASET_XFER);
		if (dxpl >= 0 && H5Pset_buffer(dxpl, (size_t)64 << 10, NULL, NULL) < 0) {
			H5Pclose(dxpl);
			dxpl = H5I_INVALID_HID;
		}
	}
	return dxpl >= 0 ? dxpl : H5P_DEFAULT;
}

/* Read a whole integer column as int64 (values out of range are clamped by
 * HDF5's conversion). */
int h5col_read_i64(const struct h5prof *p, const struct h5col *c, int64_t *out)
{
	if (c->n && H5Dread(c->dset, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, small_dxpl(), out) < 0)
		return h5prof_damaged(p, "cannot read dataset", c->label);
	return 0;
}

/*
 * Read a whole integer column as uint64, refusing negative values (signed
 * storage) and values above max.
 */
int h5col_read_u64(const struct h5prof *p, const struct h5col *c, uint64_t *out, uint64_t max)
{
	H5T_sign_t sign = H5Tget_sign(c->type);
	hsize_t i;

	if (!c->n)
		return 0;
	if (sign == H5T_SGN_2) {
		int64_t *v = (int64_t *)out;

		if (H5Dread(c->dset, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, small_dxpl(), out) < 0)
			return h5prof_damaged(p, "cannot read dataset", c->label);
		for (i = 0; i < c->n; i++) {
			if (v[i] < 0)
				return h5prof_fail(p, ERR_FORMAT,
						   "'%s' holds the negative value %" PRId64
						   " at row %llu; the file is damaged",
						   h5prof_q(c->label), v[i], (unsigned long long)i);
		}
	} else if (H5Dread(c->dset, H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, small_dxpl(), out) < 0) {
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

/*
 * Read n strings from a dataset (attr == 0) or attribute (attr != 0) of
 * string type ftype, variable or fixed length, calling fn for each.  Fixed
 * strings end at the first NUL (space-padded ones lose trailing spaces).
 */
int h5util_read_strings(const struct h5prof *p, hid_t obj, int attr, hid_t ftype, hid_t space,
			size_t n, const char *label, h5util_str_fn fn, void *ctx)
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
			  : H5Dread(obj, mtype, H5S_ALL, H5S_ALL, small_dxpl(), vstr);
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
		  : H5Dread(obj, mtype, H5S_ALL, H5S_ALL, small_dxpl(), fbuf);
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
		h5util_vlen_reclaim(mtype, space, vstr);
	free(vstr);
	free(fbuf);
	free(one);
	h5util_close_type(&mtype);
	return rc;
}

static int h5names_fn(void *ctx, size_t i, const char *s)
{
	(void)i;
	return h5names_push(ctx, s);
}

/*
 * The type and dataspace of attribute attr (closed by the caller in every
 * case), refusing a type class other than cls with "attribute 'LABEL' has
 * type X, expected EXPECT".
 */
static int h5util_attr_typed(const struct h5prof *p, hid_t attr, const char *label, H5T_class_t cls,
			     const char *expect, hid_t *type, hid_t *space)
{
	*type = H5Aget_type(attr);
	*space = H5Aget_space(attr);
	if (*type < 0 || *space < 0)
		return h5prof_damaged(p, "cannot inspect attribute", label);
	if (H5Tget_class(*type) != cls)
		return h5prof_fail(p, ERR_FORMAT, "attribute '%s' has type %s, expected %s",
				   h5prof_q(label), h5util_class_name(*type), expect);
	return h5util_attr_size_check(p, *type, *space, label);
}

/*
 * An attribute's values lie in its object header, inside the file: one
 * declaring more bytes than the file has is damaged, and is refused before
 * libhdf5 allocates them.
 */
int h5util_attr_size_check(const struct h5prof *p, hid_t type, hid_t space, const char *label)
{
	hssize_t n = H5Sget_simple_extent_npoints(space);
	size_t size = H5Tget_size(type);

	if (n < 0 || size == 0)
		return h5prof_damaged(p, "cannot inspect attribute", label);
	if ((uint64_t)n > (uint64_t)p->st.st_size / size)
		return h5prof_fail(
		    p, ERR_FORMAT,
		    "attribute '%s' declares %lld values of %zu bytes, more than the "
		    "file holds; the file is damaged",
		    h5prof_q(label), (long long)n, size);
	return 0;
}

/*
 * Read a string attribute (scalar or one-dimensional) into *out; *scalar
 * tells which.  Non-string attributes fail with "... has type X, expected
 * string".
 */
int h5util_attr_strings(const struct h5prof *p, hid_t attr, const char *label, struct h5names *out,
			int *scalar)
{
	hid_t type, space;
	hssize_t npts;
	int nd, rc;

	rc = h5util_attr_typed(p, attr, label, H5T_STRING, "string", &type, &space);
	if (rc)
		goto out;
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
	rc = h5util_read_strings(p, attr, 1, type, space, (size_t)npts, label, h5names_fn, out);
out:
	h5util_close_type(&type);
	h5util_close_space(&space);
	return rc;
}

/* Read a scalar integer attribute into *out (unsigned values above INT64_MAX
 * are clamped).  Non-integers fail. */
int h5util_attr_i64(const struct h5prof *p, hid_t attr, const char *label, int64_t *out)
{
	hid_t type, space;
	int rc;

	rc = h5util_attr_typed(p, attr, label, H5T_INTEGER, "int", &type, &space);
	if (rc)
		goto out;
	if (H5Sget_simple_extent_npoints(space) != 1) {
		rc = h5prof_fail(p, ERR_FORMAT, "attribute '%s' is not a single integer",
				 h5prof_q(label));
		goto out;
	}
	if (H5Aread(attr, H5T_NATIVE_INT64, out) < 0)
		rc = h5prof_damaged(p, "cannot read attribute", label);
out:
	h5util_close_type(&type);
	h5util_close_space(&space);
	return rc;
}

/* Open attribute name of obj if it exists: 1 with *out set, 0 when absent. */
int h5util_attr_open(const struct h5prof *p, hid_t obj, const char *name, const char *label,
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
