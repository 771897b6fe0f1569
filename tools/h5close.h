/*
 * h5close.h - the clean-up of the HDF5 writers (h5write.c and the tests'
 * hostile_h5.c): close an HDF5 object of any kind, whatever function its
 * kind closes with, unless it was never opened.
 *
 * Ownership: h5close() releases the caller's id; nothing else is held.
 */
#ifndef SCOPEDB_H5CLOSE_H
#define SCOPEDB_H5CLOSE_H

#include <hdf5.h>

/* Close id (a file, group, dataset, attribute, datatype, dataspace or
 * property list); a negative id (never opened, or its open failed) is
 * left alone. */
static inline void h5close(hid_t id)
{
	if (id < 0)
		return;
	switch (H5Iget_type(id)) {
	case H5I_FILE:
		H5Fclose(id);
		break;
	case H5I_GROUP:
		H5Gclose(id);
		break;
	case H5I_DATASET:
		H5Dclose(id);
		break;
	case H5I_ATTR:
		H5Aclose(id);
		break;
	case H5I_DATATYPE:
		H5Tclose(id);
		break;
	case H5I_DATASPACE:
		H5Sclose(id);
		break;
	case H5I_GENPROP_LST:
		H5Pclose(id);
		break;
	default:
		H5Idec_ref(id);
		break;
	}
}

#endif
