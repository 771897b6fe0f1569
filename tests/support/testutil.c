/*
 * testutil.c - temporary directories and fixture paths for the tests.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

static char tu_dir[256];

static void tu_cleanup(void)
{
	char cmd[300];

	if (!tu_dir[0] || getenv("SCOPEDB_KEEP_TMP"))
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tu_dir);
	if (system(cmd) != 0)
		fprintf(stderr, "warning: could not remove %s\n", tu_dir);
}

const char *tu_tmpdir(void)
{
	if (!tu_dir[0]) {
		const char *base = getenv("TMPDIR");

		snprintf(tu_dir, sizeof(tu_dir), "%s/scopedb-test-XXXXXX", base ? base : "/tmp");
		if (!mkdtemp(tu_dir)) {
			perror("mkdtemp");
			exit(1);
		}
		atexit(tu_cleanup);
	}
	return tu_dir;
}

const char *tu_path(const char *name)
{
	static char bufs[8][512];
	static unsigned slot;
	char *b = bufs[slot++ % 8];

	snprintf(b, 512, "%s/%s", tu_tmpdir(), name);
	return b;
}

const char *tu_fixture(const char *name)
{
	static char bufs[8][512];
	static unsigned slot;
	char *b = bufs[slot++ % 8];

	snprintf(b, 512, "%s/%s", SCOPEDB_FIXTURES, name);
	return b;
}
