/*
 * h5marker.c - a libhdf5 filter plugin for the tests of issue 13: filter
 * 32004 ("lz4"), passing data through unchanged.  Loading it (its
 * constructor runs at dlopen) creates the file named by $SCOPEDB_MARKER,
 * so a test can tell whether a process loaded plugin code from
 * HDF5_PLUGIN_PATH: scopedb never must; h5dump does (the proof that the
 * plugin works).
 */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include <H5PLextern.h>

/* Create $SCOPEDB_MARKER (if set). */
static void h5marker_touch(void)
{
	const char *m = getenv("SCOPEDB_MARKER");
	int fd;

	if (!m || !*m)
		return;
	fd = open(m, O_WRONLY | O_CREAT, 0644);
	if (fd >= 0)
		close(fd);
}

__attribute__((constructor)) static void h5marker_loaded(void)
{
	h5marker_touch();
}

static size_t h5marker_filter(unsigned flags, size_t cd_nelmts, const unsigned cd_values[],
			      size_t nbytes, size_t *buf_size, void **buf)
{
	(void)flags;
	(void)cd_nelmts;
	(void)cd_values;
	(void)buf_size;
	(void)buf;
	return nbytes;
}

static const H5Z_class2_t h5marker_class = {
    H5Z_CLASS_T_VERS, 32004, 1, 1, "lz4", NULL, NULL, h5marker_filter,
};

H5PL_type_t H5PLget_plugin_type(void)
{
	return H5PL_TYPE_FILTER;
}

const void *H5PLget_plugin_info(void)
{
	h5marker_touch();
	return &h5marker_class;
}
