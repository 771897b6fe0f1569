/*
 * child.c - running untrusted work in a child process with limits (see
 * child.h).  Issue 13: libhdf5 crashes, spins or allocates without bound on
 * some damaged files; reading each file in a child turns any of those into
 * an error about that file, while the parent, which owns the store, goes
 * on.  The parent reads the child's pipe with poll() against a wall-clock
 * deadline and kills the child when it passes; the child also gets a CPU
 * limit (RLIMIT_CPU: SIGXCPU, then SIGKILL one second later) and an
 * address-space limit (RLIMIT_AS: its allocations fail).
 *
 * A served child (child_start_serve()) takes jobs one after another from a
 * socket of their own, each a length and its bytes
 * (child_send_job(), child_next_job()): a command that reads many small
 * files pays for one process start, not one per file (issue 26).  The
 * wall-clock deadline is per job, and so are the CPU and memory limits
 * (child_job_limits(), in the child).
 */
#define _GNU_SOURCE /* close_range() */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "scopedb/err.h"
#include "scopedb/util.h"
#include "util/child.h"

/* AddressSanitizer reserves terabytes of address space for its shadow
 * memory, so an RLIMIT_AS makes every sanitized child fail at once: the
 * address-space limit is skipped in sanitized builds (CPU and wall-clock
 * limits still apply). */
#if defined(__SANITIZE_ADDRESS__)
#define CHILD_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer) ||                         \
    __has_feature(thread_sanitizer)
#define CHILD_SANITIZED 1
#endif
#endif
#ifndef CHILD_SANITIZED
#define CHILD_SANITIZED 0
#endif

#if CHILD_SANITIZED
#include <sanitizer/common_interface_defs.h>

/* A sanitizer's report in the child (an out-of-bounds memcpy inside
 * libhdf5, say) ends it the way the unsanitized build would have ended:
 * by SIGSEGV, not by the sanitizer's exit code, so the parent reports the
 * same crash in both builds; the report itself stays on stderr. */
static void child_sanitizer_death(void)
{
	signal(SIGSEGV, SIG_DFL);
	raise(SIGSEGV);
}
#endif

/* In a served child, the socket its jobs come on (child_next_job()). */
static int child_jobs_fd = -1;
/* In a child: 1 when its CPU time is limited (a --file-timeout, not 0). */
static int child_cpu_limited;

/* The pipe's capacity asked for (Linux allows up to
 * /proc/sys/fs/pipe-max-size, 1 MiB by default, without privileges). */
#define CHILD_PIPE_BYTES (1 << 20)

/* Close the descriptors from..to (to >= from), with close_range() or one
 * by one (up to 1023) where it is missing. */
static void child_close_span(int from, int to)
{
	int fd;

	if (close_range((unsigned)from, (unsigned)to, 0) != 0)
		for (fd = from; fd <= to && fd < 1024; fd++)
			close(fd);
}

/* Close every descriptor above 2 but keep and also (-1: none): the child
 * must not hold the store (or anything else of the parent) open while it
 * parses. */
static void child_close_fds(int keep, int also)
{
	int a = also > 2 && also < keep ? also : keep;
	int b = also > keep ? also : keep;

	if (a > 3)
		child_close_span(3, a - 1);
	if (b > a + 1)
		child_close_span(a + 1, b - 1);
	child_close_span(b + 1, ~0U >> 1);
}

/* The address space the child starts with, in bytes: what it inherits
 * from the parent (its libraries, its buffers, the files it holds read),
 * which the memory limit is added to; 0 when /proc does not say. */
static uint64_t child_vm_bytes(void)
{
	char b[64];
	unsigned long long pages;
	long page = sysconf(_SC_PAGESIZE);
	ssize_t n;
	int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return 0;
	n = read(fd, b, sizeof(b) - 1);
	close(fd);
	if (n <= 0 || page <= 0)
		return 0;
	b[n] = '\0';
	if (sscanf(b, "%llu", &pages) != 1 || pages > UINT64_MAX / (uint64_t)page)
		return 0;
	return (uint64_t)pages * (uint64_t)page;
}

/* In a child: its address-space limit, in bytes, when that is the one
 * scopedb was given (ulimit -v) rather than one of its own limits;
 * 0 otherwise (child_memory_inherited()). */
static uint64_t child_inherited_as;

/* A child without a memory limit of its own keeps scopedb's soft one. */
static void child_keeps_memory_limit(void)
{
	struct rlimit rl;

	child_inherited_as = 0;
	if (!CHILD_SANITIZED && getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		child_inherited_as = (uint64_t)rl.rlim_cur;
}

/* fd moved to a descriptor above 2, where nothing of the child's set-up
 * replaces it (a parent started with 0-2 closed gets its pipe there). */
static int child_above_std(int fd)
{
	int moved;

	if (fd < 0 || fd > 2)
		return fd;
	moved = fcntl(fd, F_DUPFD, 3);
	if (moved < 0)
		_exit(1);
	close(fd);
	return moved;
}

/* The child's set-up before fn runs: signals, limits, descriptors.
 * parent: the pid of the process that forked it; jobs: for a served child,
 * its socket of jobs, else -1.  Returns keep's descriptor, moved above 2. */
static int child_setup(const struct child_limits *lim, int keep, int jobs, pid_t parent)
{
	static const int crash[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGPIPE, SIGXCPU};
	struct rlimit rl, rl_as;
	size_t i;

	keep = child_above_std(keep);
	jobs = child_above_std(jobs);
	/* The default action, not a sanitizer's or the parent's handler:
	 * the parent then sees the signal itself. */
	for (i = 0; i < sizeof(crash) / sizeof(crash[0]); i++)
		signal(crash[i], SIG_DFL);
#if CHILD_SANITIZED
	__sanitizer_set_death_callback(child_sanitizer_death);
#endif
	rl.rlim_cur = rl.rlim_max = 0;
	(void)setrlimit(RLIMIT_CORE, &rl);
	/* CPU seconds of all threads: up to CHILD_THREADS per second of the
	 * wall-clock limit, which the parent enforces */
	if (lim && lim->timeout_s) {
		rl.rlim_cur = (rlim_t)lim->timeout_s * CHILD_THREADS;
		/* a served child's hard bound covers all its jobs; each job
		 * moves the soft limit (child_job_limits()) */
		rl.rlim_max = rl.rlim_cur * (jobs >= 0 ? CHILD_SERVE_JOBS : 1) + 1;
		child_cpu_limited = setrlimit(RLIMIT_CPU, &rl) == 0;
	}
	/* The memory the reader may take beyond what it inherits: a parent
	 * that holds other files' frames (ingest_queue.c) or a large store
	 * cache gives its reader no less room. */
	if (lim && lim->max_memory_mib && !CHILD_SANITIZED) {
		int have = getrlimit(RLIMIT_AS, &rl_as) == 0;

		rl.rlim_cur = (rlim_t)(child_vm_bytes() + (lim->max_memory_mib << 20));
		/* never above the hard limit scopedb was given (ulimit -v):
		 * that one binds then, and the error says so
		 * (child_memory_inherited()); root could raise it, and a served
		 * child's setrlimit() failed */
		child_inherited_as = 0;
		if (have && rl_as.rlim_max != RLIM_INFINITY && rl.rlim_cur > rl_as.rlim_max)
			child_inherited_as = rl.rlim_cur = rl_as.rlim_max;
		/* a served child's soft limit moves with each job
		 * (child_job_limits()): its hard one stays as it was */
		rl.rlim_max = jobs < 0 || !have ? rl.rlim_cur : rl_as.rlim_max;
		(void)setrlimit(RLIMIT_AS, &rl);
	} else {
		child_keeps_memory_limit();
	}
	/* ended with the parent, killed or crashed: no reader is left behind
	 * (one stopped, or stuck before it writes, would get no SIGPIPE) */
	(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(1);
	/* What the C library or libhdf5 print while failing on a damaged
	 * file ("free(): invalid pointer") is not a scopedb message: the
	 * parent reports the failure in one line.  Sanitized builds keep the
	 * child's stderr, where a bug in scopedb's own code would show. */
	if (!CHILD_SANITIZED) {
		int null = open("/dev/null", O_WRONLY);

		if (null >= 0 && null != 2) {
			dup2(null, 2);
			close(null);
		}
	}
	/* the jobs' socket, for child_next_job(); standard input stays the
	 * command's (a profile may be /dev/stdin) */
	child_jobs_fd = jobs;
	child_close_fds(keep, jobs);
	return keep;
}

/* child_start() and child_start_serve(): serve says whether the child
 * takes jobs on a socket. */
static int child_spawn(struct child *c, const struct child_limits *lim, child_fn fn, void *arg,
		       int serve)
{
	int p[2], j[2] = {-1, -1};
	pid_t pid, parent = getpid();

	memset(c, 0, sizeof(*c));
	c->fd = -1;
	c->jobs = -1;
	if (pipe(p) != 0)
		return err_set(ERR_IO, "cannot start a reader process: %s", strerror(errno));
	if (serve && socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, j) != 0) {
		close(p[0]);
		close(p[1]);
		return err_set(ERR_IO, "cannot start a reader process: %s", strerror(errno));
	}
	/* what the parent buffered must not be written twice */
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(p[0]);
		close(p[1]);
		if (serve) {
			close(j[0]);
			close(j[1]);
		}
		return err_set(ERR_IO, "cannot start a reader process: %s", strerror(errno));
	}
	if (pid == 0) {
		close(p[0]);
		if (serve)
			close(j[1]);
		p[1] = child_setup(lim, p[1], serve ? j[0] : -1, parent);
		_exit(fn(arg, p[1]) & 0xff);
	}
	close(p[1]);
	if (serve)
		close(j[0]);
	/* room for a small file's frames: its reader is not held up while the
	 * parent stores another file (ingest_queue.c); best effort */
	(void)fcntl(p[0], F_SETPIPE_SZ, CHILD_PIPE_BYTES);
	c->pid = pid;
	c->fd = p[0];
	c->jobs = serve ? j[1] : -1;
	c->timeout_s = lim ? lim->timeout_s : 0;
	c->deadline = c->timeout_s && !serve ? util_now_ms() + (int64_t)c->timeout_s * 1000 : 0;
	return 0;
}

int child_start(struct child *c, const struct child_limits *lim, child_fn fn, void *arg)
{
	return child_spawn(c, lim, fn, arg, 0);
}

int child_start_serve(struct child *c, const struct child_limits *lim, child_fn fn, void *arg)
{
	return child_spawn(c, lim, fn, arg, 1);
}

/* All of buf to fd, retrying short writes and EINTR; on a socket (sock)
 * with send(MSG_NOSIGNAL), so that a peer that has died gives EPIPE, not
 * SIGPIPE.  0, or -1 with errno set. */
static int child_put_all(int fd, const void *buf, size_t n, int sock)
{
	const char *p = buf;

	while (n) {
		ssize_t w = sock ? send(fd, p, n, MSG_NOSIGNAL) : write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

int child_send_job(struct child *c, const void *job, size_t n)
{
	unsigned char len[4];

	if (c->jobs < 0 || n > CHILD_JOB_MAX)
		return err_set(ERR_IO, "cannot give the reader process a file: %s",
			       c->jobs < 0 ? "it takes no jobs" : "the path is too long");
	len[0] = (unsigned char)(n >> 24);
	len[1] = (unsigned char)(n >> 16);
	len[2] = (unsigned char)(n >> 8);
	len[3] = (unsigned char)n;
	/* a reader that has died gives EPIPE, not SIGPIPE */
	if (child_put_all(c->jobs, len, 4, 1) || child_put_all(c->jobs, job, n, 1))
		return err_set(ERR_IO, "cannot give the reader process a file: %s",
			       strerror(errno));
	/* the job's own time from now */
	c->timed_out = 0;
	c->deadline = c->timeout_s ? util_now_ms() + (int64_t)c->timeout_s * 1000 : 0;
	return 0;
}

/* Read exactly n bytes of fd: 1, 0 at its end before any byte, -1 on an
 * error or an end inside. */
static int child_read_in(int fd, unsigned char *b, size_t n)
{
	size_t off = 0;

	while (off < n) {
		ssize_t r = read(fd, b + off, n - off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r == 0 && off == 0 ? 0 : -1;
		off += (size_t)r;
	}
	return 1;
}

int child_read_job(int fd, char *buf, size_t cap)
{
	unsigned char len[4];
	size_t n;
	int r = child_read_in(fd, len, 4);

	if (r <= 0)
		return r;
	n = (size_t)len[0] << 24 | (size_t)len[1] << 16 | (size_t)len[2] << 8 | len[3];
	if (n >= cap || n > CHILD_JOB_MAX)
		return -1;
	if (n && child_read_in(fd, (unsigned char *)buf, n) != 1)
		return -1;
	buf[n] = '\0';
	return 1;
}

int child_next_job(char *buf, size_t cap)
{
	return child_jobs_fd < 0 ? -1 : child_read_job(child_jobs_fd, buf, cap);
}

/* The whole CPU seconds the child has used (RLIMIT_CPU counts in seconds:
 * a job's limit is this plus its own, as a new child's would be), or -1. */
static long long child_cpu_used(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) != 0)
		return -1;
	return (long long)ru.ru_utime.tv_sec + (long long)ru.ru_stime.tv_sec +
	       (long long)((ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1000000);
}

void child_job_cpu(unsigned secs)
{
	long long used = child_cpu_used();
	struct rlimit rl;

	if (!child_cpu_limited || used < 0 || getrlimit(RLIMIT_CPU, &rl) != 0 ||
	    rl.rlim_cur == RLIM_INFINITY || (rlim_t)used + secs >= rl.rlim_cur)
		return;
	rl.rlim_cur = (rlim_t)used + secs;
	(void)setrlimit(RLIMIT_CPU, &rl);
}

void child_job_limits(const struct child_limits *lim)
{
	long long used = child_cpu_used();
	struct rlimit rl;

	if (lim && lim->timeout_s && used >= 0 && getrlimit(RLIMIT_CPU, &rl) == 0) {
		rl.rlim_cur = (rlim_t)used + (rlim_t)lim->timeout_s * CHILD_THREADS;
		if (rl.rlim_max != RLIM_INFINITY && rl.rlim_cur > rl.rlim_max)
			rl.rlim_cur = rl.rlim_max;
		(void)setrlimit(RLIMIT_CPU, &rl);
	}
	/* the job's memory on top of what the child holds now (what earlier
	 * jobs left in its heap does not shrink the next one's room) */
	if (!(lim && lim->max_memory_mib && !CHILD_SANITIZED))
		child_keeps_memory_limit();
	else if (getrlimit(RLIMIT_AS, &rl) == 0) {
		rl.rlim_cur = (rlim_t)(child_vm_bytes() + (lim->max_memory_mib << 20));
		child_inherited_as = 0;
		if (rl.rlim_max != RLIM_INFINITY && rl.rlim_cur > rl.rlim_max)
			child_inherited_as = rl.rlim_cur = rl.rlim_max;
		(void)setrlimit(RLIMIT_AS, &rl);
	}
}

uint64_t child_memory_inherited(void)
{
	return child_inherited_as;
}

int child_read(struct child *c, void *buf, size_t n, size_t *got)
{
	struct pollfd pfd;
	ssize_t r;

	*got = 0;
	if (c->fd < 0 || c->timed_out)
		return 0;
	for (;;) {
		int wait = -1;

		if (c->deadline) {
			int64_t left = c->deadline - util_now_ms();

			if (left <= 0) {
				/* child_wait() reaps it and reports the timeout */
				c->timed_out = 1;
				kill(c->pid, SIGKILL);
				return 0;
			}
			wait = left > 60000 ? 60000 : (int)left;
		}
		pfd.fd = c->fd;
		pfd.events = POLLIN;
		pfd.revents = 0;
		r = poll(&pfd, 1, wait);
		if (r < 0 && errno != EINTR)
			return err_set(ERR_IO, "cannot read from the reader process: %s",
				       strerror(errno));
		if (r <= 0)
			continue;
		r = read(c->fd, buf, n);
		if (r < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (r < 0)
			return err_set(ERR_IO, "cannot read from the reader process: %s",
				       strerror(errno));
		*got = (size_t)r;
		return 0;
	}
}

void child_extend(struct child *c, int64_t ms)
{
	if (c->deadline && ms > 0)
		c->deadline += ms;
}

int child_wait_ms(const struct child *c)
{
	int64_t left;

	if (!c->deadline || c->fd < 0 || c->timed_out)
		return -1;
	left = c->deadline - util_now_ms();
	return left <= 0 ? 0 : left > 60000 ? 60000 : (int)left;
}

/* Reap the child; *status as waitpid() gives it, -1 when there was none. */
static int child_reap(struct child *c)
{
	int status = -1;

	if (c->fd >= 0) {
		close(c->fd);
		c->fd = -1;
	}
	/* a served child waiting for a job ends at the socket's end */
	if (c->jobs >= 0) {
		close(c->jobs);
		c->jobs = -1;
	}
	if (c->pid > 0)
		while (waitpid(c->pid, &status, 0) < 0 && errno == EINTR)
			;
	c->pid = 0;
	return status;
}

void child_wait(struct child *c, struct child_status *out)
{
	int status = child_reap(c);

	out->end = CHILD_EXITED;
	out->status = 0;
	if (status == -1) {
		out->status = 255;
	} else if (WIFEXITED(status)) {
		out->status = WEXITSTATUS(status);
	} else if (WIFSIGNALED(status)) {
		out->end = CHILD_SIGNALED;
		out->status = WTERMSIG(status);
		/* SIGXCPU, or the SIGKILL of the CPU limit's hard bound */
		if (out->status == SIGXCPU && c->timeout_s)
			out->end = CHILD_TIMEOUT;
	}
	if (c->timed_out)
		out->end = CHILD_TIMEOUT;
}

void child_kill(struct child *c)
{
	if (c->pid > 0)
		kill(c->pid, SIGKILL);
	(void)child_reap(c);
}

int child_write_all(int fd, const void *buf, size_t n)
{
	return child_put_all(fd, buf, n, 0);
}
