/*
 * test_child.c - the child-process plumbing of src/util/child.c (issue 13):
 * a child's output reaches the parent whole, its exit status, a crash by
 * signal (also under a sanitizer's handlers), the wall-clock deadline, the
 * CPU limit, the address-space limit (plain builds only: sanitizers reserve
 * terabytes), that stdio buffered before the fork is written once, and that
 * the child holds none of the parent's descriptors.
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "testutil.h"
#include "util/child.h"

#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

/* Everything the child writes, until its end; returns the byte count. */
static size_t drain(struct child *c, char *out, size_t cap)
{
	size_t len = 0, got;

	do {
		assert_int_equal(child_read(c, out + len, cap - len, &got), 0);
		len += got;
	} while (got && len < cap);
	return len;
}

/* Writes 1 MB of a pattern (more than a pipe holds) and exits 7. */
static int big_writer(void *arg, int fd)
{
	static char block[4096];
	int i;

	(void)arg;
	for (i = 0; i < (int)sizeof(block); i++)
		block[i] = (char)(i * 7);
	for (i = 0; i < 256; i++)
		if (child_write_all(fd, block, sizeof(block)))
			return 1;
	return 7;
}

/* Run fn(arg) in a child under lim (NULL: none) and wait for it without
 * reading its output: how it ended. */
static struct child_status run_unread(const struct child_limits *lim, child_fn fn, void *arg)
{
	struct child c;
	struct child_status cs;

	assert_int_equal(child_start(&c, lim, fn, arg), 0);
	child_wait(&c, &cs);
	return cs;
}

static void test_output_and_status(void **state)
{
	struct child c;
	struct child_status cs;
	char *buf = malloc(2u << 20);
	size_t n, i;

	(void)state;
	assert_non_null(buf);
	assert_int_equal(child_start(&c, NULL, big_writer, NULL), 0);
	n = drain(&c, buf, 2u << 20);
	child_wait(&c, &cs);
	assert_int_equal(n, 256 * 4096);
	for (i = 0; i < n; i++)
		if (buf[i] != (char)((i % 4096) * 7))
			fail_msg("byte %zu differs", i);
	assert_int_equal(cs.end, CHILD_EXITED);
	assert_int_equal(cs.status, 7);
	free(buf);
}

/* Reads a page it may not read: SIGSEGV from the hardware, not undefined
 * behaviour a sanitizer would report first. */
static int crasher(void *arg, int fd)
{
	volatile int *p = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	(void)arg;
	(void)fd;
	return p == MAP_FAILED ? 2 : *p;
}

static int aborter(void *arg, int fd)
{
	(void)arg;
	(void)fd;
	abort();
}

static void test_crash(void **state)
{
	struct child c;
	struct child_status cs;
	char b[16];

	(void)state;
	assert_int_equal(child_start(&c, NULL, crasher, NULL), 0);
	assert_int_equal(drain(&c, b, sizeof(b)), 0);
	child_wait(&c, &cs);
	assert_int_equal(cs.end, CHILD_SIGNALED);
	assert_int_equal(cs.status, SIGSEGV);

	cs = run_unread(NULL, aborter, NULL);
	assert_int_equal(cs.end, CHILD_SIGNALED);
	assert_int_equal(cs.status, SIGABRT);
}

/* Writes a byte, then sleeps far past any deadline of the tests. */
static int sleeper(void *arg, int fd)
{
	(void)arg;
	if (child_write_all(fd, "x", 1))
		return 1;
	sleep(60);
	return 0;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void test_deadline(void **state)
{
	struct child_limits lim = {1, 0};
	struct child c;
	struct child_status cs;
	char b[16];
	double t0 = now();

	(void)state;
	assert_int_equal(child_start(&c, &lim, sleeper, NULL), 0);
	assert_int_equal(drain(&c, b, sizeof(b)), 1);
	child_wait(&c, &cs);
	assert_int_equal(cs.end, CHILD_TIMEOUT);
	/* killed at the deadline, not after the child's 60 s */
	assert_true(now() - t0 < 30);
}

/* Spins on the CPU without writing. */
static int spinner(void *arg, int fd)
{
	volatile unsigned long x = 0;

	(void)arg;
	(void)fd;
	for (;;)
		x++;
	return 0;
}

/* The CPU limit alone (no pipe reads: the parent waits) ends a spinner. */
static void test_cpu_limit(void **state)
{
	const struct child_limits lim = {1, 0};
	struct child_status cs;

	(void)state;
	cs = run_unread(&lim, spinner, NULL);
	assert_int_equal(cs.end, CHILD_TIMEOUT);
}

/* Allocates (and touches) 512 MiB: 0 when it got it, 1 when refused. */
static int allocator(void *arg, int fd)
{
	char *p = malloc((size_t)512 << 20);

	(void)arg;
	(void)fd;
	if (!p)
		return 1;
	memset(p, 1, (size_t)512 << 20);
	free(p);
	return 0;
}

static void test_memory_limit(void **state)
{
	struct child_limits lim = {0, 256};
	struct child_status cs;

	(void)state;
	if (SANITIZED)
		skip(); /* no address-space limit under ASan (child.c) */
	cs = run_unread(&lim, allocator, NULL);
	assert_int_equal(cs.end, CHILD_EXITED);
	assert_int_equal(cs.status, 1);
	lim.max_memory_mib = 0;
	cs = run_unread(&lim, allocator, NULL);
	assert_int_equal(cs.end, CHILD_EXITED);
	assert_int_equal(cs.status, 0);
}

/* Reports (as its exit status) whether descriptor *arg is open in it. */
static int fd_probe(void *arg, int fd)
{
	(void)fd;
	return fcntl(*(int *)arg, F_GETFD) == 0 ? 1 : 0;
}

static int quiet(void *arg, int fd)
{
	(void)arg;
	(void)fd;
	return 0;
}

/* stdio buffered before the fork is written by the parent only, and the
 * child does not inherit the parent's descriptors. */
static void test_flush_and_fds(void **state)
{
	const char *path = tu_path("child-out.txt");
	struct child_status cs;
	FILE *f = fopen(path, "w");
	int fd = open("/dev/null", O_RDONLY);
	long len;
	char *text;

	(void)state;
	assert_non_null(f);
	assert_true(fd > 2);
	fputs("once\n", f); /* buffered, not yet written */
	run_unread(NULL, quiet, NULL);
	fclose(f);
	text = (char *)tu_read_file(path, &len);
	assert_int_equal(len, 5);
	assert_memory_equal(text, "once\n", 5);
	free(text);

	cs = run_unread(NULL, fd_probe, &fd);
	assert_int_equal(cs.end, CHILD_EXITED);
	assert_int_equal(cs.status, 0);
	close(fd);
}

/* A caller that stops early: the child is killed and reaped. */
static void test_kill(void **state)
{
	struct child c;
	char b[4];
	size_t got;
	pid_t pid;

	(void)state;
	assert_int_equal(child_start(&c, NULL, sleeper, NULL), 0);
	pid = c.pid;
	assert_int_equal(child_read(&c, b, 1, &got), 0);
	assert_int_equal(got, 1);
	child_kill(&c);
	assert_int_equal(c.pid, 0);
	assert_int_equal(kill(pid, 0), -1); /* reaped: no such process */
	assert_int_equal(errno, ESRCH);
}

TU_MAIN(NULL, NULL,
	{
	    cmocka_unit_test(test_output_and_status),
	    cmocka_unit_test(test_crash),
	    cmocka_unit_test(test_deadline),
	    cmocka_unit_test(test_cpu_limit),
	    cmocka_unit_test(test_memory_limit),
	    cmocka_unit_test(test_flush_and_fds),
	    cmocka_unit_test(test_kill),
	})
