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

/*
 * Whether the object at path (relative to loc, components separated by '/')
 * exists; each prefix is checked because H5Lexists fails when an
 * intermediate group is missing.  Returns 1, 0, or a negative error.
 */
int h5util_exists(const struct h5prof *p, hid_t loc, const char *path)
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
H5O_type_t h5util_objtype(hid_t loc, const char *path)
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
int h5col_open(const struct h5prof *p, struct h5col *c, hid_t loc, const char *path,
	       const char *label, H5T_class_t want_class, const char *expect, int required)
{
	hsize_t dims[1];
	hid_t dcpl;
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
int h5col_read_i64(const struct h5prof *p, const struct h5col *c, int64_t *out)
{
	if (c->n && H5Dread(c->dset, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, out) < 0)
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
