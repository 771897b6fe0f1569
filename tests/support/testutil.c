/*
 * testutil.c - temporary directories, fixture paths and whole files for the
 * tests.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

const char *tu_git_sandbox(void)
{
	const char *top = tu_tmpdir();
	char parent[sizeof(tu_dir)];

	snprintf(parent, sizeof(parent), "%s", top);
	*strrchr(parent, '/') = '\0';
	setenv("GIT_CEILING_DIRECTORIES", parent, 1);
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	setenv("HOME", top, 1);
	return top;
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

long tu_file_size(const char *path)
{
	struct stat sb;

	assert_int_equal(stat(path, &sb), 0);
	return (long)sb.st_size;
}

int tu_file_exists(const char *path)
{
	struct stat sb;

	return stat(path, &sb) == 0;
}

unsigned char *tu_read_file(const char *path, long *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *b;

	assert_non_null(f);
	*len = tu_file_size(path);
	b = malloc((size_t)(*len ? *len : 1));
	assert_non_null(b);
	assert_int_equal(fread(b, 1, (size_t)*len, f), (size_t)*len);
	fclose(f);
	return b;
}

void tu_write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	if (len)
		assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}
