/*
 * test_child.c - the child-process plumbing of src/util/child.c (issue 13):
 * a child's output reaches the parent whole, its exit status, a crash by
 * signal (also under a sanitizer's handlers), the wall-clock deadline, the
 * CPU limit, the address-space limit (plain builds only: sanitizers reserve
 * terabytes), that stdio buffered before the fork is written once, and that
 * the child holds none of the parent's descriptors; a served child's jobs,
 * its end with its jobs, a crash or a timeout in one job, the deadline and
 * CPU limit of each job, a job sent to a served child that has died, and
 * the framing of jobs (child_read_job() on a broken input).
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "scopedb/err.h"
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

/* A served child: answers each job with "N:JOB\n"; the job "crash"
 * crashes it, "spin" spins, "stdin" answers with a line of its standard
 * input, "hold" keeps 64 MiB, "limit" answers with the
 * limits child_job_limits() gives a job of 2 s and 256 MiB ("soft/hard
 * MIB", the MiB of address space left, 0 for none). */
static int server(void *arg, int fd)
{
	char job[256], out[300];
	int n = 0, r, len;

	(void)arg;
	while ((r = child_next_job(job, sizeof(job))) == 1) {
		if (!strcmp(job, "crash"))
			raise(SIGSEGV);
		if (!strcmp(job, "spin"))
			spinner(NULL, fd);
		/* a line of its standard input, the command's */
		if (!strcmp(job, "stdin")) {
			char line[64] = "";

			if (!fgets(line, sizeof(line), stdin))
				snprintf(line, sizeof(line), "none\n");
			len = snprintf(out, sizeof(out), "%s", line);
			if (child_write_all(fd, out, (size_t)len))
				return 1;
			continue;
		}
		/* 64 MiB kept (mapped and touched) past the job */
		if (!strcmp(job, "hold")) {
			char *keep = mmap(NULL, (size_t)64 << 20, PROT_READ | PROT_WRITE,
					  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

			if (keep != MAP_FAILED)
				memset(keep, 1, (size_t)64 << 20);
		}
		if (!strcmp(job, "limit")) {
			const struct child_limits lim = {2, 256};
			struct rlimit rl, as;
			unsigned long long vm = 0;
			FILE *f;

			child_job_limits(&lim);
			getrlimit(RLIMIT_CPU, &rl);
			getrlimit(RLIMIT_AS, &as);
			f = fopen("/proc/self/statm", "r");
			if (f && fscanf(f, "%llu", &vm) == 1)
				vm *= (unsigned long long)sysconf(_SC_PAGESIZE);
			if (f)
				fclose(f);
			/* the CPU limits, and MiB of address space left */
			len = snprintf(
			    out, sizeof(out), "%llu/%llu %llu\n", (unsigned long long)rl.rlim_cur,
			    (unsigned long long)rl.rlim_max,
			    as.rlim_cur == RLIM_INFINITY
				? 0ULL
				: ((unsigned long long)as.rlim_cur - vm + (1 << 19)) >> 20);
		} else {
			len = snprintf(out, sizeof(out), "%d:%s\n", ++n, job);
		}
		if (child_write_all(fd, out, (size_t)len))
			return 1;
	}
	return r < 0 ? 3 : 0;
}

/* Send job to c and read its answer of n bytes into b (NUL-terminated). */
static void ask(struct child *c, const char *job, char *b, size_t n)
{
	size_t len = 0, got;

	assert_int_equal(child_send_job(c, job, strlen(job)), 0);
	while (len < n) {
		assert_int_equal(child_read(c, b + len, n - len, &got), 0);
		assert_true(got > 0);
		len += got;
	}
	b[n] = '\0';
}

static void test_serve_jobs(void **state)
{
	char b[32];
	struct child c;
	struct child_status cs;

	(void)state;
	if (child_start_serve(&c, NULL, server, NULL))
		fail_msg("no served child: %s", err_msg());
	ask(&c, "a", b, 4);
	assert_string_equal(b, "1:a\n");
	ask(&c, "bb", b, 5);
	assert_string_equal(b, "2:bb\n");
	ask(&c, "", b, 3);
	assert_string_equal(b, "3:\n");
	/* the end of its jobs ends it */
	child_wait(&c, &cs);
	assert_int_equal(cs.end, CHILD_EXITED);
	assert_int_equal(cs.status, 0);
	/* its standard input is the parent's (a profile can be /dev/stdin) */
	{
		int p[2], saved = dup(0);

		assert_int_equal(pipe(p), 0);
		assert_int_equal(write(p[1], "hello\n", 6), 6);
		close(p[1]);
		dup2(p[0], 0);
		close(p[0]);
		assert_int_equal(child_start_serve(&c, NULL, server, NULL), 0);
		dup2(saved, 0);
		close(saved);
	}
	ask(&c, "stdin", b, 6);
	assert_string_equal(b, "hello\n");
	child_wait(&c, &cs);
	assert_int_equal(cs.end, CHILD_EXITED);
	assert_int_equal(cs.status, 0);
	/* a plain child takes no jobs */
	assert_int_equal(child_start(&c, NULL, big_writer, NULL), 0);
	assert_int_equal(child_send_job(&c, "a", 1), ERR_IO);
	child_kill(&c);
}

static void test_serve_crash(void **state)
{
	struct child c;
	struct child_status cs;
	siginfo_t info;
	char b[8];
	size_t got;

	(void)state;
	assert_int_equal(child_start_serve(&c, NULL, server, NULL), 0);
	ask(&c, "x", b, 4);
	assert_int_equal(child_send_job(&c, "crash", 5), 0);
	assert_int_equal(child_read(&c, b, sizeof(b), &got), 0);
	assert_int_equal(got, 0);
	/* a job for a child that has died (waited for, not reaped): an
	 * error, not SIGPIPE */
	assert_int_equal(waitid(P_PID, (id_t)c.pid, &info, WEXITED | WNOWAIT), 0);
	assert_int_equal(child_send_job(&c, "y", 1), ERR_IO);
	child_wait(&c, &cs);
	assert_int_equal(cs.end, CHILD_SIGNALED);
	assert_int_equal(cs.status, SIGSEGV);
}

/* Each job has its own deadline, from its child_send_job(): a served child
 * idle for longer than the limit still takes a job, and a job that spins
 * past it is ended. */
static void test_serve_deadline(void **state)
{
	struct child_limits lim = {1, 0};
	struct child c;
	struct child_status cs;
	struct timespec pause = {1, 300000000};
	char b[8];
	size_t got;
	double t0;

	(void)state;
	assert_int_equal(child_start_serve(&c, &lim, server, NULL), 0);
	nanosleep(&pause, NULL);
	ask(&c, "a", b, 4);
	nanosleep(&pause, NULL);
	ask(&c, "b", b, 4);
	assert_string_equal(b, "2:b\n");
	t0 = now();
	assert_int_equal(child_send_job(&c, "spin", 4), 0);
	assert_int_equal(child_read(&c, b, sizeof(b), &got), 0);
	assert_int_equal(got, 0);
	child_wait(&c, &cs);
	assert_int_equal(cs.end, CHILD_TIMEOUT);
	assert_true(now() - t0 < 30);
}

/* The limits of a served child's job: the CPU limit's hard bound covers
 * CHILD_SERVE_JOBS jobs, and each job's soft limit is the whole seconds
 * used plus the job's own (three threads' worth of the timeout);
 * the job's address space is its 256 MiB beyond what the child holds
 * after earlier jobs (after one that left 64 MiB in its heap, here;
 * sanitized builds set no address-space limit). */
static void test_serve_limits(void **state)
{
	struct child_limits lim = {2, 0};
	struct child c;
	char b[32], want[32];
	int n;

	(void)state;
	n = snprintf(want, sizeof(want), "6/%d %d\n", 6 * CHILD_SERVE_JOBS + 1,
		     SANITIZED ? 0 : 256);
	assert_int_equal(child_start_serve(&c, &lim, server, NULL), 0);
	ask(&c, "hold", b, 7);
	assert_string_equal(b, "1:hold\n");
	ask(&c, "limit", b, (size_t)n);
	assert_string_equal(b, want);
	child_kill(&c);
}

/* child_read_job() on a pipe holding in: called times, the last result
 * (1 and the job, 0 at the end between jobs, -1 at an end inside a job
 * or a job longer than the buffer). */
static int next_job_of(const unsigned char *in, size_t n, char *job, size_t cap, int times)
{
	int p[2], r = 0;

	assert_int_equal(pipe(p), 0);
	assert_int_equal(write(p[1], in, n), (ssize_t)n);
	close(p[1]);
	while (times--)
		r = child_read_job(p[0], job, cap);
	close(p[0]);
	return r;
}

static void test_next_job(void **state)
{
	static const unsigned char two[] = {0, 0, 0, 2, 'h', 'i', 0, 0, 0, 1, 'x'};
	static const unsigned char cut[] = {0, 0, 0, 5, 'a'};
	static const unsigned char half[] = {0, 0};
	char job[8];

	(void)state;
	assert_int_equal(next_job_of(two, sizeof(two), job, sizeof(job), 1), 1);
	assert_string_equal(job, "hi");
	assert_int_equal(next_job_of(two, sizeof(two), job, sizeof(job), 2), 1);
	assert_string_equal(job, "x");
	assert_int_equal(next_job_of(two, sizeof(two), job, sizeof(job), 3), 0);
	assert_int_equal(next_job_of(cut, sizeof(cut), job, sizeof(job), 1), -1);
	assert_int_equal(next_job_of(half, sizeof(half), job, sizeof(job), 1), -1);
	/* "hi" needs 3 bytes with its NUL */
	assert_int_equal(next_job_of(two, sizeof(two), job, 2, 1), -1);
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
	    cmocka_unit_test(test_serve_jobs),
	    cmocka_unit_test(test_serve_crash),
	    cmocka_unit_test(test_serve_deadline),
	    cmocka_unit_test(test_serve_limits),
	    cmocka_unit_test(test_next_job),
	})
