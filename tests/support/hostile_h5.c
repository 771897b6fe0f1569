/*
 * hostile_h5.c - profiles that try to make the reader leave the file (issue
 * 13): a valid schema-3 profile (the standard one of testutil_h5) written
 * with h5write, then one object replaced with raw libhdf5 calls by an
 * external-storage dataset, an external link, soft links, a virtual
 * dataset, a dataset needing an unknown filter, or sparse datasets that
 * declare far more events than the file holds.  Used by test_h5safe.c and,
 * through tests/tools/mkhostile.c, by e2e_hostile.sh.
 */
#include <stdio.h>
#include <string.h>

#include <hdf5.h>

#include "../plugin/h5pass.h"
#include "h5close.h"
#include "hostile_h5.h"
#include "testutil_h5.h"

/* Delete the link at name (absolute) of f. */
static int hostile_unlink(hid_t f, const char *name)
{
	return H5Ldelete(f, name, H5P_DEFAULT) < 0 ? -1 : 0;
}

/* Create dataset name of n values of type t with dcpl (int64 data written
 * when data is non-NULL). */
static int hostile_dataset(hid_t f, const char *name, hid_t t, hsize_t n, hid_t dcpl,
			   const void *data)
{
	hsize_t max = H5S_UNLIMITED;
	hid_t space, d;
	int rc = 0;

	space = H5Screate_simple(1, &n, H5Pget_layout(dcpl) == H5D_CHUNKED ? &max : NULL);
	if (space < 0)
		return -1;
	d = H5Dcreate2(f, name, t, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
	if (d < 0)
		rc = -1;
	else if (data && H5Dwrite(d, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0)
		rc = -1;
	h5close(d);
	H5Sclose(space);
	return rc;
}

/* region_table/names as 4 fixed-length strings of 16 bytes lying in the
 * file aux (external storage). */
static int hostile_external_names(hid_t f, const char *aux)
{
	hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE), t = H5Tcopy(H5T_C_S1);
	int rc = -1;

	if (dcpl >= 0 && t >= 0 && H5Tset_size(t, 16) >= 0 &&
	    H5Pset_external(dcpl, aux, 0, 64) >= 0 && !hostile_unlink(f, "/region_table/names"))
		rc = hostile_dataset(f, "/region_table/names", t, 4, dcpl, NULL);
	h5close(t);
	h5close(dcpl);
	return rc;
}

/* events/durations as a virtual dataset of 34 values mapped onto dataset
 * src_dset of file src_file. */
static int hostile_vds(hid_t f, const char *src_file, const char *src_dset)
{
	hsize_t n = 34;
	hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE), space = H5Screate_simple(1, &n, NULL);
	int rc = -1;

	/* the source's selection and the virtual dataset's are both all of n */
	if (dcpl >= 0 && space >= 0 &&
	    H5Pset_virtual(dcpl, space, src_file, src_dset, space) >= 0 &&
	    !hostile_unlink(f, "/events/durations"))
		rc = hostile_dataset(f, "/events/durations", H5T_STD_I64LE, n, dcpl, NULL);
	h5close(space);
	h5close(dcpl);
	return rc;
}

/* events/start_deltas and events/durations as n-value datasets none of
 * whose storage is written: chunked (gzip when gz), or contiguous. */
static int hostile_sparse(hid_t f, hsize_t n, int chunked, int gz)
{
	hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
	hsize_t chunk = 65536;
	int rc = -1;

	if (dcpl < 0)
		return -1;
	if ((!chunked || H5Pset_chunk(dcpl, 1, &chunk) >= 0) &&
	    (!gz || H5Pset_deflate(dcpl, 9) >= 0) && !hostile_unlink(f, "/events/start_deltas") &&
	    !hostile_unlink(f, "/events/durations") &&
	    !hostile_dataset(f, "/events/start_deltas", H5T_STD_I64LE, n, dcpl, NULL))
		rc = hostile_dataset(f, "/events/durations", H5T_STD_I64LE, n, dcpl, NULL);
	H5Pclose(dcpl);
	return rc;
}

/* events/durations rewritten (same values) needing filter 32004, which
 * no libhdf5 has (an LZ4 plugin's registered id): h5pass_class is
 * registered in this process only while the dataset is written. */
static int hostile_filtered(hid_t f)
{
	hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE), d;
	hsize_t chunk = 34;
	int64_t v[34];
	int rc = -1, read;

	d = H5Dopen2(f, "/events/durations", H5P_DEFAULT);
	read = d >= 0 && H5Dread(d, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, v) >= 0;
	h5close(d);
	if (read && dcpl >= 0 && H5Zregister(&h5pass_class) >= 0 &&
	    H5Pset_chunk(dcpl, 1, &chunk) >= 0 &&
	    H5Pset_filter(dcpl, H5PASS_ID, H5Z_FLAG_MANDATORY, 0, NULL) >= 0 &&
	    !hostile_unlink(f, "/events/durations"))
		rc = hostile_dataset(f, "/events/durations", H5T_STD_I64LE, 34, dcpl, v);
	H5Zunregister(H5PASS_ID);
	h5close(dcpl);
	return rc;
}

int hostile_h5_write(const char *kind, const char *path, const char *aux)
{
	struct h5write_opts o = tu_h5_opts(3, 0);
	hid_t f;
	int rc = -1;

	if (h5write_file(path, tu_h5_standard(), &o))
		return -1;
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
	if (f < 0)
		return -1;
	if (strcmp(kind, "external-storage") == 0) {
		rc = hostile_external_names(f, aux);
	} else if (strcmp(kind, "external-link") == 0) {
		/* the whole region table from another file */
		rc = hostile_unlink(f, "/region_table");
		if (!rc && H5Lcreate_external(aux, "/region_table", f, "/region_table", H5P_DEFAULT,
					      H5P_DEFAULT) < 0)
			rc = -1;
	} else if (strcmp(kind, "soft-missing") == 0) {
		rc = hostile_unlink(f, "/events/durations");
		if (!rc && H5Lcreate_soft("/nowhere/durations", f, "/events/durations", H5P_DEFAULT,
					  H5P_DEFAULT) < 0)
			rc = -1;
	} else if (strcmp(kind, "soft-outside") == 0) {
		/* a soft link whose target lies behind an external link */
		rc = hostile_unlink(f, "/events/durations");
		if (!rc && (H5Lcreate_external(aux, "/events", f, "/elsewhere", H5P_DEFAULT,
					       H5P_DEFAULT) < 0 ||
			    H5Lcreate_soft("/elsewhere/durations", f, "/events/durations",
					   H5P_DEFAULT, H5P_DEFAULT) < 0))
			rc = -1;
	} else if (strcmp(kind, "soft-inside") == 0) {
		/* legitimate: a relative soft link to a dataset of the file */
		rc = H5Lmove(f, "/events/durations", f, "/events/real_durations", H5P_DEFAULT,
			     H5P_DEFAULT) < 0
			 ? -1
			 : 0;
		if (!rc && H5Lcreate_soft("real_durations", f, "/events/durations", H5P_DEFAULT,
					  H5P_DEFAULT) < 0)
			rc = -1;
	} else if (strcmp(kind, "soft-loop") == 0) {
		rc = hostile_unlink(f, "/events/durations");
		if (!rc && (H5Lcreate_soft("/events/loop", f, "/events/durations", H5P_DEFAULT,
					   H5P_DEFAULT) < 0 ||
			    H5Lcreate_soft("/events/durations", f, "/events/loop", H5P_DEFAULT,
					   H5P_DEFAULT) < 0))
			rc = -1;
	} else if (strcmp(kind, "vds-missing") == 0) {
		rc = hostile_vds(f, aux ? aux : "missing-source.h5", "/events/durations");
	} else if (strcmp(kind, "vds-self") == 0) {
		rc = hostile_vds(f, ".", "/events/durations");
	} else if (strcmp(kind, "filter") == 0) {
		rc = hostile_filtered(f);
	} else if (strcmp(kind, "sparse") == 0) {
		rc = hostile_sparse(f, 200000000, 1, 0);
	} else if (strcmp(kind, "sparse-gzip") == 0) {
		rc = hostile_sparse(f, 200000000, 1, 1);
	} else if (strcmp(kind, "unwritten") == 0) {
		rc = hostile_sparse(f, 200000000, 0, 0);
	}
	if (H5Fclose(f) < 0)
		rc = -1;
	return rc;
}
