/*
 * fake_fstype.c - an LD_PRELOAD shim for e2e_netfs.sh: statfs() reports
 * the file system type $FAKE_FSTYPE (e.g. 0x6969, NFS) for every path, so
 * the network file system warning can be tested without an NFS mount.
 * Never linked into scopedb.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <sys/vfs.h>

int statfs(const char *path, struct statfs *buf);

int statfs(const char *path, struct statfs *buf)
{
	static int (*real)(const char *, struct statfs *);
	const char *type = getenv("FAKE_FSTYPE");
	int rc;

	if (!real)
		*(void **)&real = dlsym(RTLD_NEXT, "statfs");
	rc = real ? real(path, buf) : -1;
	if (rc == 0 && type)
		buf->f_type = (__fsword_t)strtol(type, NULL, 0);
	return rc;
}
