/*
 * ingest_queue.c - the files of one `scopedb ingest` read ahead while the
 * caller stores the ones already read (issue 26).
 *
 * Each file is read by a reader process (ingest_read(): its limits, the
 * hash of the bytes it parsed), never by this one.  Up to
 * INGEST_QUEUE_READERS of those processes run at once, and run on while
 * the caller writes the files before them.  A batch of small profiles spent
 * most of its time in each reader's start, with a core idle: on a machine
 * where a page fault is dear, the fork and the pages the new process and
 * this one then copy or zero (about 900 faults for a 12,800-call file) cost
 * ten times the reading.  So a reader that delivered a whole small file
 * takes the next one (struct ingest_readers, ingest_read.h): libhdf5 is
 * closed and started again between the files, each file has its own
 * deadline, CPU and memory limits, and a file that fails in any way ends
 * its reader, so a crash, a timeout or an error is always the file's that
 * caused it and the file after it starts in a new process.
 * bench/ingestmany measures the difference (bench/RESULTS.md).
 *
 * One thread does it all: while the caller waits for a file
 * (ingest_queue_next()), the queue polls the descriptors of every reader
 * under way and takes their frames (ingest_read.h), and starts the next
 * readers as the bounds allow; while the caller writes, the readers go on
 * into their pipes (1 MiB each, util/child.c).  No thread of this process
 * runs beside a fork: a child of a process with threads may find a lock of
 * its allocator held forever (AddressSanitizer's is not fork-safe, and
 * POSIX promises nothing there).
 *
 * The caller takes the files in order, so the runs' ids, the output and
 * the errors are those of a one-by-one ingest.  A file whose read begins
 * once the caller's store is open is looked up there by its hash, between
 * the caller's transactions (this thread is the caller's), and its reader
 * stopped when the content is stored already; ingest_write() looks it up
 * again inside the insert's transaction, as it always does, which finds a
 * file this command stores later than the read began (a file given twice
 * in one batch is reported as already stored, its second copy read in
 * full).
 *
 * Bounds, so that reading ahead costs no memory a one-by-one ingest would
 * not: a reader starts file j only within INGEST_QUEUE_AHEAD files of the
 * one the caller waits for, and only while the files started and not yet
 * done with by the caller (the one it stores included) sum to at most
 * INGEST_QUEUE_BYTES of file size.  A larger file is read when nothing
 * else is held, so big files are read and stored one at a time, as before.
 *
 * A file's error is kept with its code and message, and set again when the
 * caller takes the file.  The progress callback hears only of the file the
 * caller waits for, so two files never draw one progress line.
 *
 * Ownership: the queue borrows files and opts until ingest_queue_free(),
 * which kills the readers still running, ends the idle ones and frees
 * every file read but not taken.  A pending file taken by the caller is
 * the caller's, to free (ingest_pending_free()) before it takes the next:
 * it borrows the options of its slot, which the file after the next ones
 * may take over.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "scopedb/err.h"
#include "scopedb/ingest.h"
#include "scopedb/util.h"
#include "ingest/ingest_read.h"

/* Reader processes at once: each keeps a core and a half busy (its reading
 * and hashing threads, the call tree's); this process takes their frames
 * and writes the store. */
#define INGEST_QUEUE_READERS 2
#define INGEST_QUEUE_AHEAD 4
#define INGEST_QUEUE_BYTES ((off_t)64 << 20)

enum iq_state { IQ_NEW, IQ_READING, IQ_DONE };

struct ingest_queue;

/* A file from its start to the caller's next file: files[i] is in
 * slots[i % INGEST_QUEUE_AHEAD], which the bound on files ahead keeps free
 * until the caller is done with the file it held (ingest_write() reads the
 * slot's opts). */
struct iq_slot {
	struct ingest_queue *q;
	int index;		 /* files[index] */
	struct ingest_opts opts; /* the caller's, with the queue's progress */
	struct ingest_pending *p;
	off_t size; /* the file's size when its read started */
	enum iq_state state;
	int code; /* IQ_DONE: 0 (p ready) or the file's error and msg */
	char msg[1024];
};

struct ingest_queue {
	char *const *files;
	int n;
	const struct ingest_opts *opts;
	struct store *const *st;	/* the caller's store, once open */
	struct ingest_readers *readers; /* idle readers, for the next files */
	struct iq_slot slots[INGEST_QUEUE_AHEAD];
	off_t next_size;	     /* the size of files[next], once known (else 0) */
	int next;		     /* the next file to start */
	int held;		     /* the first file the caller is not done with */
	int reading;		     /* files in IQ_READING */
	off_t bytes;		     /* sizes of files[held..next) */
	int waiting;		     /* the file the caller waits for, or -1 */
	int64_t away;		     /* when the caller last took a file (ms), 0 before */
	ingest_progress_fn progress; /* of the file waited for */
	void *progress_ctx;
};

/* A reader's progress: passed on when the caller waits for its file. */
static void iq_progress(void *ctx, uint64_t done, uint64_t total)
{
	struct iq_slot *s = ctx;
	struct ingest_queue *q = s->q;

	if (q->progress && q->waiting == s->index)
		q->progress(q->progress_ctx, done, total);
}

/* s is read (or could not be): keep its result. */
static void iq_done(struct iq_slot *s, int rc)
{
	if (s->state == IQ_READING)
		s->q->reading--;
	s->state = IQ_DONE;
	s->code = rc;
	if (rc) {
		snprintf(s->msg, sizeof(s->msg), "%s", err_msg());
		ingest_pending_free(s->p);
		s->p = NULL;
	}
}

/* May files[q->next] start? */
static int iq_may_start(struct ingest_queue *q)
{
	struct stat sb;

	if (q->next >= q->n || q->next >= q->held + INGEST_QUEUE_AHEAD ||
	    q->reading >= INGEST_QUEUE_READERS)
		return 0;
	if (!q->next_size)
		/* a file that cannot be stat()ed counts as small: its read
		 * fails at once with the reason */
		q->next_size = stat(q->files[q->next], &sb) == 0 && sb.st_size > 0 ? sb.st_size : 1;
	return q->bytes == 0 || q->bytes + q->next_size <= INGEST_QUEUE_BYTES;
}

/* Start the readers the bounds allow. */
static void iq_fill(struct ingest_queue *q)
{
	while (iq_may_start(q)) {
		struct iq_slot *s = &q->slots[q->next % INGEST_QUEUE_AHEAD];
		int rc;

		memset(s, 0, sizeof(*s));
		s->q = q;
		s->index = q->next++;
		s->opts = *q->opts;
		s->opts.progress = iq_progress;
		s->opts.progress_ctx = s;
		s->size = q->next_size;
		q->next_size = 0;
		q->bytes += s->size;
		err_clear();
		rc = ingest_read_begin(&s->p, *q->st, q->files[s->index], &s->opts, q->readers);
		if (rc) {
			iq_done(s, rc);
		} else {
			s->state = IQ_READING;
			q->reading++;
		}
	}
}

/* Wait until a reader has output (or its deadline passes) and take it. */
static void iq_step(struct ingest_queue *q)
{
	struct pollfd pfd[INGEST_QUEUE_READERS];
	struct iq_slot *ps[INGEST_QUEUE_READERS];
	int i, np = 0, wait = -1, r;

	for (i = q->held; i < q->next && np < INGEST_QUEUE_READERS; i++) {
		struct iq_slot *s = &q->slots[i % INGEST_QUEUE_AHEAD];
		int ms;

		if (s->state != IQ_READING)
			continue;
		ms = ingest_read_wait_ms(s->p);
		if (ms >= 0 && (wait < 0 || ms < wait))
			wait = ms;
		pfd[np].fd = ingest_read_fd(s->p);
		pfd[np].events = POLLIN;
		pfd[np].revents = 0;
		ps[np++] = s;
	}
	if (!np)
		return;
	r = poll(pfd, (nfds_t)np, wait);
	if (r < 0 && errno == EINTR)
		return;
	for (i = 0; i < np; i++) {
		int done = 0, rc;

		/* readable, or its deadline passed (the read ends it), or poll
		 * failed (the read says why) */
		if (r >= 0 && !pfd[i].revents && ingest_read_wait_ms(ps[i]->p) != 0)
			continue;
		err_clear();
		rc = ingest_read_more(ps[i]->p, &done);
		if (done)
			iq_done(ps[i], rc);
	}
}

int ingest_queue_start(struct ingest_queue **out, char *const *files, int n,
		       const struct ingest_opts *opts, struct store *const *st)
{
	struct ingest_queue *q;

	*out = NULL;
	q = calloc(1, sizeof(*q));
	if (!q || ingest_readers_new(&q->readers)) {
		free(q);
		return err_nomem();
	}
	q->files = files;
	q->n = n;
	q->opts = opts;
	q->st = st;
	q->waiting = -1;
	*out = q;
	return 0;
}

int ingest_queue_next(struct ingest_queue *q, int i, struct ingest_pending **out,
		      ingest_progress_fn progress, void *progress_ctx)
{
	struct iq_slot *s = &q->slots[i % INGEST_QUEUE_AHEAD];
	int rc;

	*out = NULL;
	/* done with the files before i: their bytes no longer count */
	for (; q->held < i; q->held++)
		q->bytes -= q->slots[q->held % INGEST_QUEUE_AHEAD].size;
	/* the time the caller spent storing is not the readers': their
	 * --file-timeout counts while someone takes their output */
	if (q->away) {
		int64_t away = util_now_ms() - q->away;
		int k;

		for (k = q->held; k < q->next; k++)
			if (q->slots[k % INGEST_QUEUE_AHEAD].state == IQ_READING)
				ingest_read_extend(q->slots[k % INGEST_QUEUE_AHEAD].p, away);
	}
	q->waiting = i;
	q->progress = progress;
	q->progress_ctx = progress_ctx;
	for (;;) {
		iq_fill(q);
		if (s->index == i && s->state == IQ_DONE)
			break;
		iq_step(q);
	}
	q->waiting = -1;
	q->progress = NULL;
	q->progress_ctx = NULL;
	/* the next readers run while the caller stores this file */
	iq_fill(q);
	q->away = util_now_ms();
	*out = s->p;
	s->p = NULL;
	rc = s->code;
	if (rc)
		err_set(rc, "%s", s->msg);
	return rc;
}

void ingest_queue_free(struct ingest_queue *q)
{
	int i;

	if (!q)
		return;
	for (i = 0; i < INGEST_QUEUE_AHEAD; i++)
		ingest_pending_free(q->slots[i].p);
	ingest_readers_free(q->readers);
	free(q);
}
