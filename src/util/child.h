/*
 * child.h - running untrusted work in a child process with limits.
 *
 * child_start() forks a child that runs a function with its stdout and
 * stderr inherited, the write end of a pipe, and resource limits: CPU time
 * (RLIMIT_CPU) and address space (RLIMIT_AS); the parent reads the pipe
 * with a wall-clock deadline (child_read()) and reaps the child
 * (child_wait()), learning whether it exited, was killed by a signal
 * (a crash inside a library), or ran out of time.  The child never returns
 * into the caller's code: it ends with _exit(), so no atexit handler,
 * stdio buffer or library destructor of the parent runs twice.
 *
 * A served child (child_start_serve()) runs jobs one after another: the
 * parent sends each (child_send_job(), which also starts the job's
 * deadline) and the child takes them from a socket of their own
 * (child_next_job()); the end of its jobs is the end of that socket.
 *
 * Ownership: struct child is the caller's; child_wait() (or child_kill())
 * closes the pipe (and a served child's socket) and reaps the process;
 * both accept a child never started or already reaped.
 */
#ifndef SCOPEDB_CHILD_H
#define SCOPEDB_CHILD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct child_limits {
	unsigned timeout_s;	 /* wall clock and CPU seconds; 0 = none */
	uint64_t max_memory_mib; /* address space in MiB; 0 = none */
};

/* Runs in the child with the pipe's write end; returns its exit status
 * (0..255). */
typedef int (*child_fn)(void *arg, int fd);

/* Threads a child may keep busy at once (the reader, its prefetch thread
 * and the hashing thread): its CPU limit is this many times the timeout. */
#define CHILD_THREADS 3

/* The jobs one served child may take: its CPU limit's hard bound is this
 * many jobs' worth (child_job_limits()). */
#define CHILD_SERVE_JOBS 128

/* The longest job, in bytes (a path). */
#define CHILD_JOB_MAX 65536

struct child {
	pid_t pid;	  /* 0: not running */
	int fd;		  /* read end, -1 when closed */
	int jobs;	  /* a served child's socket of jobs, else -1 */
	int64_t deadline; /* monotonic ms, 0 = none */
	int timed_out;	  /* the deadline passed; the child was killed */
	unsigned timeout_s;
};

enum child_end {
	CHILD_EXITED,	/* status: exit code */
	CHILD_SIGNALED, /* status: the signal that ended it */
	CHILD_TIMEOUT,	/* wall clock or CPU limit (status: the signal) */
};

struct child_status {
	enum child_end end;
	int status;
};

/*
 * Flush stdio, fork, and run fn(arg, fd) in the child under lim (NULL: no
 * limits; the memory limit is added to the address space the child
 * inherits); in the child, crash signals get their default action (so a
 * crash ends it with that signal even under a sanitizer's handler), core
 * dumps are off, it is killed when the parent ends, stderr goes to
 * /dev/null (except in sanitized builds) and every descriptor other than
 * 0-2 and the pipe is closed.
 * 0, or ERR_IO when no pipe or process could be made.
 */
int child_start(struct child *c, const struct child_limits *lim, child_fn fn, void *arg);

/*
 * child_start() for a child that takes jobs: fn runs once and reads them
 * (child_next_job()) until their end; no job's deadline runs until the
 * first child_send_job().  The CPU limit's hard bound is CHILD_SERVE_JOBS
 * jobs' worth.
 */
int child_start_serve(struct child *c, const struct child_limits *lim, child_fn fn, void *arg);

/* Give a served child its next job (n bytes, at most CHILD_JOB_MAX) and
 * start the job's wall-clock deadline.  0, or ERR_IO (the child has
 * ended: no SIGPIPE is raised). */
int child_send_job(struct child *c, const void *job, size_t n);

/* In a served child: the next job into buf (cap bytes, NUL-terminated):
 * 1, 0 when there are no more, -1 when the input is broken. */
int child_next_job(char *buf, size_t cap);

/* child_next_job() on the descriptor fd: the jobs' framing alone. */
int child_read_job(int fd, char *buf, size_t cap);

/* In a served child, before each job: the job's limits, as child_start()
 * gives a child, from what the child has used and holds: CPU time, lim's
 * timeout per thread beyond the time used so far; address space, lim's
 * memory beyond the child's present size.  A limit of 0 is left as it
 * is. */
void child_job_limits(const struct child_limits *lim);

/* In a child (after child_start() or child_job_limits()): the running job
 * may use at most secs more seconds of CPU, when that is less than its
 * limit gives it (a child started without a timeout is left as it is). */
void child_job_cpu(unsigned secs);

/* In a child (after child_start() or child_job_limits()): its
 * address-space limit in bytes when that is the one scopedb was given
 * (ulimit -v: the hard limit, below what its own limit asked for, or the
 * soft one, when it has no limit of its own), so that running out of
 * memory is told as that limit's; 0 when its own limit is the one. */
uint64_t child_memory_inherited(void);

/*
 * Read what the child wrote: *got = bytes read into buf (at most n), 0 at
 * the end of its output, which is also what a passed deadline gives (the
 * child is then killed and child_wait() says CHILD_TIMEOUT).  0 or ERR_IO.
 */
int child_read(struct child *c, void *buf, size_t n, size_t *got);

/* Milliseconds until c's deadline (0: passed; child_read() then ends it),
 * or -1 when it has none: how long a caller that polls several children's
 * descriptors (c->fd) may wait for this one. */
int child_wait_ms(const struct child *c);

/* Move c's deadline ms later: for a caller that did not read c's output
 * for that long, so that its own absence is not counted against the
 * child (the CPU limit still holds). */
void child_extend(struct child *c, int64_t ms);

/* Close the pipe, wait for the child to end and say how it ended. */
void child_wait(struct child *c, struct child_status *out);

/* Kill the child (SIGKILL) and reap it; for a caller that stops early. */
void child_kill(struct child *c);

/* Write all of buf to fd (the child's side), retrying short writes and
 * EINTR: 0, or -1 with errno set. */
int child_write_all(int fd, const void *buf, size_t n);

#endif
