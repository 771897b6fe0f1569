/*
 * netfs.c - whether an SQLite store lies on a network file system (see
 * scopedb/netfs.h): statfs() of the file, or of its directory when the
 * file does not exist yet, and its f_type compared with the magic numbers
 * of Linux's network and cluster file systems (linux/magic.h and the
 * file systems' own sources).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/vfs.h>

#include "scopedb/netfs.h"
#include "scopedb/util.h"
#include "store/backend.h"

static const struct {
	unsigned long type;
	const char *name;
} netfs_types[] = {
    {0x6969UL, "nfs"},		{0x517BUL, "smb"},	  {0xFF534D42UL, "cifs"},
    {0xFE534D42UL, "smb2"},	{0x0BD00BD0UL, "lustre"}, {0x47504653UL, "gpfs"},
    {0x5346414FUL, "afs"},	{0x00C36400UL, "ceph"},	  {0x19830326UL, "beegfs"},
    {0x20030528UL, "orangefs"}, {0x01021997UL, "9p"},	  {0x65735546UL, "fuse"},
};

const char *netfs_type_name(unsigned long type)
{
	size_t i;

	type &= 0xFFFFFFFFUL; /* f_type is signed on some ABIs */
	for (i = 0; i < sizeof(netfs_types) / sizeof(netfs_types[0]); i++)
		if (netfs_types[i].type == type)
			return netfs_types[i].name;
	return NULL;
}

const char *netfs_store(const char *location)
{
	struct statfs sf;
	char *dir;
	const char *slash;
	int rc;

	if (strcmp(store_backend_for(location)->name, "sqlite") != 0 || !*location ||
	    !strcmp(location, ":memory:"))
		return NULL;
	rc = statfs(location, &sf);
	if (rc != 0 && errno == ENOENT) {
		slash = strrchr(location, '/');
		if (!slash)
			return statfs(".", &sf) == 0 ? netfs_type_name((unsigned long)sf.f_type)
						     : NULL;
		dir = util_strdup(location);
		if (!dir)
			return NULL;
		dir[slash == location ? 1 : slash - location] = 0;
		rc = statfs(dir, &sf);
		free(dir);
	}
	return rc == 0 ? netfs_type_name((unsigned long)sf.f_type) : NULL;
}
