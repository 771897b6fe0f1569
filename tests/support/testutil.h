/*
 * testutil.h - helpers shared by the cmocka tests: a private temporary
 * directory per test program, paths inside it, and whole-file reads and
 * writes.  Every failure fails the test (cmocka).
 */
#ifndef SCOPEDB_TESTUTIL_H
#define SCOPEDB_TESTUTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

/* A fresh directory (created on first call, removed at exit). */
const char *tu_tmpdir(void);

/* Make tu_tmpdir() git's whole world for the tests that run git: git never
 * looks above it (GIT_CEILING_DIRECTORIES), reads no system configuration,
 * and HOME is that directory.  Returns the directory. */
const char *tu_git_sandbox(void);

/* tu_tmpdir()/name in a static rotating buffer (8 slots). */
const char *tu_path(const char *name);

/* Path of a committed fixture under tests/data. */
const char *tu_fixture(const char *name);

/*
 * The main() of a test program: run the braced list of cmocka tests (each
 * cmocka_unit_test(...)) as one group with setup and teardown (or NULL):
 *   TU_MAIN(NULL, NULL, {cmocka_unit_test(test_a), cmocka_unit_test(test_b)})
 */
#define TU_MAIN(setup, teardown, ...)                                                              \
	int main(void)                                                                             \
	{                                                                                          \
		const struct CMUnitTest tu_tests[] = __VA_ARGS__;                                  \
		return cmocka_run_group_tests(tu_tests, setup, teardown);                          \
	}

/* Size of path in bytes (it must exist). */
long tu_file_size(const char *path);

/* 1 if path exists (stat() succeeds), else 0. */
int tu_file_exists(const char *path);

/* The whole of path in a malloc'd buffer the caller frees; *len = its size. */
unsigned char *tu_read_file(const char *path, long *len);

/* Create or replace path with the len bytes at data. */
void tu_write_file(const char *path, const void *data, size_t len);

#endif
