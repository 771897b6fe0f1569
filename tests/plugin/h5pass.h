/*
 * h5pass.h - filter 32004 ("lz4") as the tests need it: a pass-through
 * that leaves the data unchanged.  Shared by the marker plugin
 * (h5marker.c, loaded from HDF5_PLUGIN_PATH) and the writer of hostile
 * profiles (tests/support/hostile_h5.c, which registers it in its own
 * process only to write a dataset that needs it).
 */
#ifndef SCOPEDB_H5PASS_H
#define SCOPEDB_H5PASS_H

#include <H5PLextern.h>

#define H5PASS_ID 32004

static size_t h5pass_filter(unsigned flags, size_t cd_nelmts, const unsigned cd_values[],
			    size_t nbytes, size_t *buf_size, void **buf)
{
	(void)flags;
	(void)cd_nelmts;
	(void)cd_values;
	(void)buf_size;
	(void)buf;
	return nbytes;
}

static const H5Z_class2_t h5pass_class = {
    H5Z_CLASS_T_VERS, H5PASS_ID, 1, 1, "lz4", NULL, NULL, h5pass_filter,
};

#endif
