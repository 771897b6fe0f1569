/*
 * testutil.h - helpers shared by the cmocka tests: a private temporary
 * directory per test program and paths inside it.
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

/* tu_tmpdir()/name in a static rotating buffer (8 slots). */
const char *tu_path(const char *name);

/* Path of a committed fixture under tests/data. */
const char *tu_fixture(const char *name);

#endif
