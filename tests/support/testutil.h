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
 * cmocka_unit_test(...)) as one group with setup and teardown (or NULL),
 * named after the program, only the cases the command line or UNIT_CASES
 * chooses (tu_choose()):
 *   TU_MAIN(NULL, NULL, {cmocka_unit_test(test_a), cmocka_unit_test(test_b)})
 */
#define TU_MAIN(setup, teardown, ...)                                                              \
	int main(int argc, char **argv)                                                            \
	{                                                                                          \
		const struct CMUnitTest tu_tests[] = __VA_ARGS__;                                  \
		const size_t tu_n = sizeof(tu_tests) / sizeof(tu_tests[0]);                        \
		int tu_status = tu_choose(argc, argv, tu_tests, tu_n);                             \
                                                                                                   \
		if (tu_status >= 0)                                                                \
			return tu_status;                                                          \
		return tu_run_group(tu_program(), tu_tests, tu_n, setup, teardown);                \
	}

/*
 * Which cases a test program runs: the glob patterns of its arguments or,
 * with none, of UNIT_CASES (separated by spaces; ctest passes it on), as
 * E2E_CASES chooses the cases of an end-to-end script; every case when
 * neither names one.  tests[0..n) are the program's cases (a program of
 * several groups gives one of them: each group has the same cases).
 * Returns -1 to go on, or the status main() returns at once: 0 after
 * --list (the names, one a line) or --help, 2 when a pattern matches no
 * case (a typo does not pass as a run of nothing) or an option is unknown
 * (after "--" every argument is a pattern), 1 when out of memory.  (A run
 * exits with the number of failed cases, as cmocka's does, so 2 may also
 * be two failures: the message on stderr tells which.)
 */
int tu_choose(int argc, char **argv, const struct CMUnitTest *tests, size_t n);

/* The program's name, for its group (argv[0] without its directory). */
const char *tu_program(void);

/* Run the chosen cases of tests[0..n) as the cmocka group name, with its
 * setup and teardown (not at all when none is chosen); returns the number
 * of cases that failed, as cmocka_run_group_tests() does. */
int tu_run_group(const char *name, const struct CMUnitTest *tests, size_t n,
		 CMFixtureFunction setup, CMFixtureFunction teardown);

/* Size of path in bytes (it must exist). */
long tu_file_size(const char *path);

/* 1 if path exists (stat() succeeds), else 0. */
int tu_file_exists(const char *path);

/* The whole of path in a malloc'd buffer the caller frees; *len = its size. */
unsigned char *tu_read_file(const char *path, long *len);

/* Create or replace path with the len bytes at data. */
void tu_write_file(const char *path, const void *data, size_t len);

#endif
