/*
 * h5meta.c - the /metadata group of a scope-profiler HDF5 file
 * (docs/format.md section 5): each attribute scopedb keeps, as text
 * (strings as they are, numbers in decimal, non-finite floats as null,
 * string arrays as JSON), sorted by name for h5prof_meta_get().  An
 * attribute of another type is skipped; a damaged one refuses the file.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

#include "scopedb/err.h"
#include "scopedb/h5prof.h"
#include "scopedb/util.h"
#include "util/json.h"
#include "h5/h5_internal.h"

static herr_t h5prof_attr_name_cb(hid_t loc, const char *name, const H5A_info_t *info, void *ctx)
{
	(void)loc;
	(void)info;
	return h5names_push_cb(ctx, name);
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
	rc = h5util_attr_size_check(p, type, space, label);
	if (rc)
		goto out;
	n = (size_t)npts;
	if (cls == H5T_STRING) {
		struct h5names l = {NULL, 0, 0, 0};
		int scalar = 0;

		rc = h5util_attr_strings(p, a, label, &l, &scalar);
		if (!rc && scalar)
			rc = buf_puts(b, l.n ? l.v[0] : "");
		else if (!rc)
			rc = json_buf_strarray(b, (const char *const *)l.v, l.n);
		h5names_release(&l);
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
	h5util_close_type(&type);
	h5util_close_space(&space);
	return rc;
}

int h5prof_read_meta(struct h5prof *p)
{
	struct h5names names = {NULL, 0, 0, 0};
	hid_t g = H5I_INVALID_HID, a = H5I_INVALID_HID;
	struct buf b = BUF_INIT;
	size_t i;
	int rc;

	rc = h5util_exists(p, p->file, "metadata");
	if (rc <= 0)
		goto out;
	if (h5util_objtype(p->file, "metadata") != H5O_TYPE_GROUP) {
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
	h5names_release(&names);
	if (a >= 0)
		H5Aclose(a);
	if (g >= 0)
		H5Gclose(g);
	return rc;
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
