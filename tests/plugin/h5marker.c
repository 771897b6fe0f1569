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

#include "h5pass.h"

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

H5PL_type_t H5PLget_plugin_type(void)
{
	return H5PL_TYPE_FILTER;
}

const void *H5PLget_plugin_info(void)
{
	h5marker_touch();
	return &h5pass_class;
}
