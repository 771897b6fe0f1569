/*
 * ingest.c - one profile file into the store, in one short transaction.
 *
 * Issue 13: the file is read in a child process (util/child.h), which
 * opens it with profile_open() (HDF5 or JSON, chosen by its content;
 * profile.h), validates it, streams its rows, summarises each (rowstat),
 * sorts and encodes its durations in the store's encoding
 * (store_encode_durations()) and sends all of it to this process as frames
 * (wire.h).  Whatever libhdf5 does on a
 * damaged file (crash, endless loop, unbounded allocation) ends the child,
 * under the limits of struct ingest_limits, and becomes an error about that
 * file; the store is only ever touched by this process.  The frames are
 * collected in memory (about the size the run takes in the store); only
 * when the child has delivered the whole file does the write transaction
 * begin, so a slow or hostile file never holds the store's write lock
 * while it is read, and the lock is held only for the inserts and
 * store_finish_run_from(), which takes the run's duration blobs from the
 * frames rather than reading them back.
 *
 * The content SHA-256, which decides whether the file is already stored,
 * is computed in the child on a second thread while the first reads the
 * rows (issue 6); the child sends it as soon as it has it, and when the
 * content is stored already this process stops the child at once and
 * reports the duplicate (with its tags added) in a transaction of its own.
 * The hash is checked again inside the insert's transaction, so two jobs
 * ingesting one file at once store it once.  The hashing thread never calls
 * libhdf5 or err_set(); when no thread can be started the file is hashed
 * first.
 *
 * Identity (issue 13): the child opens the file once; its SHA-256 is
 * computed from that descriptor and the reader is given its fstat()
 * (h5prof_open_stat), so libhdf5 must read the same inode, unchanged; after
 * the hash and after the last row the file is fstat()ed again, and a file
 * that changed while it was read is refused: the stored hash is always that
 * of the stored content.
 *
 * ingest_file() is ingest_read() then ingest_write(): a caller that has no
 * store yet (ingest creating a new one) reads the file first and creates
 * the store only for a file that read, so each file is opened once.
 * ingest_read() is itself three steps (ingest_read.h): start the child,
 * take its output as it comes, end it; ingest_queue.c runs those steps for
 * several files at once, from one thread, to read a command's next files
 * while it stores the ones before.  There a reader is served (util/child.h)
 * and kept (struct ingest_readers): once it has sent a whole small file,
 * whose end is then its WIRE_END frame rather than the end of its output,
 * it takes the next file; any failure ends it (ingest_collect_end()).  A
 * file found stored already is read to its end by such a reader, its
 * frames dropped, when it is small: cheaper than starting another.
 *
 * Call trees (issue 22, docs/format.md section 10): the child also hands
 * every row to the call-tree builder (calltree.h), which builds each rank
 * once its last row is read and sends its paths, their numbers and the
 * self times as frames (wire.h).  This process checks them as they come
 * (struct ingest_nest) and stores them with the run, in its transaction:
 * the self time of each (rank, region) in its timings row, the paths and
 * their (path, rank) rows, and the mark that the run was read for nesting
 * (store_put_nesting()).  ingest_nest_walk() reads the frames back for
 * tests (ingest_nest.h).  The result carries the file's one warning about
 * ranks without a tree or paths.
 *
 * The child's side (reading, checking by the text rule, hashing, the rows
 * and the call trees to frames) is ingest_child.c; this file is the
 * store's side of the read: the child started, its frames collected and
 * checked (their state in ingest_ctx.h); ingest_write.c writes the run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>

#include "scopedb/err.h"
#include "scopedb/h5prof.h"
#include "scopedb/ingest.h"
#include "scopedb/profile.h"
#include "scopedb/store.h"
#include "ingest/calltree.h"
#include "ingest/ingest_child.h"
#include "ingest/ingest_ctx.h"
#include "ingest/ingest_nest.h"
#include "ingest/ingest_opts.h"
#include "ingest/ingest_read.h"
#include "ingest/wire.h"
#include "util/child.h"
#include "scopedb/util.h"

/* Note a WIRE_ROW frame's place in c->frames and its region (checked
 * against the file's regions when the order is made: a JSON profile's
 * info comes after its rows). */
static int ingest_note_row(struct ingest_ctx *c, const struct wire_frame *f)
{
	uint32_t rank, region;
	int rc = wire_row_key(&rank, &region, f, SIZE_MAX);

	if (rc)
		return rc;
	if (util_grow(&c->row_pos, &c->rows_cap, c->nrows + 1, sizeof(*c->row_pos), 1024) ||
	    util_grow(&c->row_region, &c->regions_cap, c->nrows + 1, sizeof(*c->row_region), 1024))
		return err_nomem();
	c->row_pos[c->nrows] =
	    (size_t)(f->data - (const unsigned char *)c->frames.data) - WIRE_HEADER;
	c->row_region[c->nrows++] = region;
	return 0;
}

/* Note a WIRE_NEST, _NODE or _PATH frame's place in c->frames, and a
 * _PATH's node (just checked by ingest_nest_frame()). */
static int ingest_note_nest(struct ingest_ctx *c, const struct wire_frame *f)
{
	if (util_grow(&c->nest_pos, &c->nest_cap, c->nnest + 1, sizeof(*c->nest_pos), 1024) ||
	    util_grow(&c->nest_node, &c->node_cap, c->nnest + 1, sizeof(*c->nest_node), 1024))
		return err_nomem();
	c->nest_pos[c->nnest] =
	    (size_t)(f->data - (const unsigned char *)c->frames.data) - WIRE_HEADER;
	c->nest_node[c->nnest++] = f->type == WIRE_PATH ? c->nest.last_node : UINT32_MAX;
	return 0;
}

/* A frame from the child while it runs: keep the info, note the hash, the
 * end, an error; show progress.  1 when the content is already stored (the
 * child can stop). */
static int ingest_frame(struct ingest_ctx *c, const struct wire_frame *f)
{
	int rc = 0;

	switch (f->type) {
	case WIRE_INFO:
		if (c->have_info)
			break;
		rc = buf_add(&c->infobuf, f->data, f->len);
		if (!rc) {
			struct wire_frame copy = {WIRE_INFO, (const unsigned char *)c->infobuf.data,
						  f->len};

			rc = wire_get_info(&c->wi, &copy, c->path);
		}
		c->have_info = !rc;
		c->info = &c->wi.info;
		/* the rows' calls in an array once they fill most of the file's
		 * grid (its claims bound nothing: the array comes with the
		 * rows, ingest_rowmap_grid()); before any row (a JSON
		 * profile's info comes after its rows: they stay in the hash) */
		if (!rc && !c->nest.rows.cap)
			ingest_rowmap_grid(&c->nest.rows, c->info->num_ranks, c->info->num_regions,
					   c->info->num_rows);
		if (!rc && !c->nest.self_ns.cap)
			ingest_rowmap_grid(&c->nest.self_ns, c->info->num_ranks,
					   c->info->num_regions, c->info->num_rows);
		break;
	case WIRE_ROW:
		/* a JSON profile's info follows its rows: its region bound is
		 * checked when the held rows are decoded against it */
		rc = ingest_nest_row(&c->nest, f, c->have_info ? c->info->num_regions : SIZE_MAX);
		if (!rc)
			rc = ingest_note_row(c, f);
		c->events_done += wire_row_calls(f);
		if (c->opts->progress && c->have_info)
			c->opts->progress(c->opts->progress_ctx, c->events_done,
					  c->info->num_events);
		break;
	case WIRE_HASH:
		rc = wire_get_hash(c->hex, f);
		if (rc)
			break;
		c->have_hash = 1;
		if (!c->st) /* no store yet: ingest_write() looks the hash up */
			break;
		/* outside any transaction: a plain read of the store */
		rc = store_find_sha(c->st, &c->duplicate, c->hex);
		if (!rc && c->duplicate)
			return 1;
		break;
	case WIRE_END:
		c->have_end = 1;
		rc = ingest_nest_end(&c->nest);
		break;
	case WIRE_ERROR:
		rc = wire_get_error(&c->fail_code, c->fail_msg, sizeof(c->fail_msg),
				    &c->fail_inherited, f);
		if (!rc)
			c->failed = 1;
		break;
	case WIRE_NEST:
	case WIRE_NODE:
	case WIRE_PATH:
	case WIRE_SELF:
		/* a JSON profile's trees come before its info, as its rows do:
		 * their regions are checked against it when the frames are
		 * stored (ingest_nest_store(), ingest_nest_self_check()) */
		rc = ingest_nest_frame(&c->nest, f, c->have_info ? c->info->num_regions : SIZE_MAX);
		if (!rc && f->type != WIRE_SELF)
			rc = ingest_note_nest(c, f);
		break;
	}
	if (rc) {
		c->fail_code = rc;
		snprintf(c->fail_msg, sizeof(c->fail_msg), "%s", err_msg());
		c->failed = 1;
	}
	return 0;
}

/* The error of a child that delivered no whole file. */
static int ingest_child_error(struct ingest_ctx *c, const struct child_status *cs,
			      const struct ingest_limits *lim)
{
	struct stat sb;
	unsigned budget;

	if (c->failed && c->fail_code == ERR_NOMEM && c->fail_inherited)
		return err_set(ERR_NOMEM,
			       "'%s': reading it needed more than the %llu MiB of address space "
			       "scopedb may use (ulimit -v); nothing stored",
			       c->path, (unsigned long long)(c->fail_inherited >> 20));
	if (c->failed && c->fail_code == ERR_NOMEM && lim->max_memory_mib)
		return err_set(ERR_NOMEM,
			       "'%s': reading it needed more than %llu MiB (--file-memory); "
			       "nothing stored",
			       c->path, (unsigned long long)lim->max_memory_mib);
	if (c->failed && c->fail_code == ERR_NOMEM)
		return err_set(ERR_NOMEM, "'%s': out of memory reading it; nothing stored",
			       c->path);
	if (c->failed)
		return err_set(c->fail_code, "%s", c->fail_msg);
	/* SIGXCPU below the timeout's CPU limit: the file's CPU budget
	 * (ingest_cpu_budget(), the size stat()ed again for the message) */
	if (cs->end == CHILD_TIMEOUT && cs->status == SIGXCPU && stat(c->path, &sb) == 0 &&
	    (budget = ingest_cpu_budget((uint64_t)sb.st_size)) <
		(uint64_t)lim->timeout_s * CHILD_THREADS)
		return err_set(ERR_FORMAT,
			       "'%s': reading it used more than %u s of CPU, far more than a file "
			       "of its size takes: it is likely damaged; nothing stored",
			       c->path, budget);
	if (cs->end == CHILD_TIMEOUT)
		return err_set(ERR_IO,
			       "'%s': reading it took longer than %u s (--file-timeout); nothing "
			       "stored",
			       c->path, lim->timeout_s);
	if (cs->end == CHILD_SIGNALED)
		return err_set(
		    ERR_FORMAT, "'%s': the %s crashed reading it (signal %d); nothing stored",
		    c->path, profile_name_is_json(c->path) ? "JSON reader" : "HDF5 library",
		    cs->status);
	return err_set(ERR_GENERIC,
		       "'%s': the reader process ended without a result (exit status %d); "
		       "nothing stored",
		       c->path, cs->status);
}

/* Served readers kept between the files of one command, ready for the next
 * file (ingest_read.h). */
#define INGEST_IDLE_READERS 2

/* A reader goes back only after a file of at most this many bytes of
 * frames: a large file gains nothing from the process start it saves, and
 * its reader would keep the memory it grew to. */
#define INGEST_REUSE_BYTES ((size_t)16 << 20)

/* A file found stored already while its served reader reads it is read to
 * its end (its frames dropped) when it has at most this many calls, so
 * that the reader can take the next file: cheaper than a new reader. */
#define INGEST_DRAIN_EVENTS ((uint64_t)1 << 20)

struct ingest_readers {
	struct child idle[INGEST_IDLE_READERS];
	unsigned jobs[INGEST_IDLE_READERS];	       /* files each has read */
	struct ingest_limits lim[INGEST_IDLE_READERS]; /* what each was started with */
	int n;
};

int ingest_readers_new(struct ingest_readers **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : err_nomem();
}

void ingest_readers_free(struct ingest_readers *r)
{
	struct child_status cs;
	int i;

	if (!r)
		return;
	/* at the end of its jobs an idle reader exits */
	for (i = 0; i < r->n; i++)
		child_wait(&r->idle[i], &cs);
	free(r);
}

/* An idle reader started with lim into c->ch (1), or none (0). */
static int ingest_readers_take(struct ingest_ctx *c)
{
	struct ingest_readers *r = c->pool;
	int i;

	for (i = 0; r && i < r->n; i++) {
		if (r->lim[i].timeout_s != c->lim->timeout_s ||
		    r->lim[i].max_memory_mib != c->lim->max_memory_mib)
			continue;
		c->ch = r->idle[i];
		c->jobs = r->jobs[i];
		r->n--;
		r->idle[i] = r->idle[r->n];
		r->jobs[i] = r->jobs[r->n];
		r->lim[i] = r->lim[r->n];
		return 1;
	}
	return 0;
}

/* c's served reader, done with a whole file: back to the pool when it may
 * take more, else ended. */
static void ingest_readers_put(struct ingest_ctx *c)
{
	struct ingest_readers *r = c->pool;
	struct child_status cs;

	if (r->n < INGEST_IDLE_READERS && c->jobs < CHILD_SERVE_JOBS &&
	    c->frames.len <= INGEST_REUSE_BYTES) {
		r->idle[r->n] = c->ch;
		r->jobs[r->n] = c->jobs;
		r->lim[r->n] = *c->lim;
		r->n++;
	} else {
		child_wait(&c->ch, &cs);
	}
	memset(&c->ch, 0, sizeof(c->ch));
	c->ch.fd = c->ch.jobs = -1;
}

/* rc, the error of starting c's reader, said of its file. */
static int ingest_start_error(const struct ingest_ctx *c, int rc)
{
	char why[256];

	snprintf(why, sizeof(why), "%s", err_msg());
	return err_set(rc, "cannot read '%s': %s", util_quote_msg(c->path), why);
}

/* Start the reader child on c->path (c->lim): with a pool, an idle served
 * reader given the path, else a new one (served with a pool, else a child
 * for this file alone). */
static int ingest_collect_start(struct ingest_ctx *c)
{
	struct child_limits cl = {c->lim->timeout_s, c->lim->max_memory_mib};
	int rc;

	/* libhdf5 started here once, not in each file's reader */
	if (!profile_name_is_json(c->path))
		h5prof_init();
	/* (a path too long to be a job is read alone: open() refuses it) */
	if (!c->pool || strlen(c->path) > CHILD_JOB_MAX) {
		rc = child_start(&c->ch, &cl, ingest_child_main, (void *)c->path);
		c->running = !rc;
		return rc ? ingest_start_error(c, rc) : 0;
	}
	/* an idle reader that has died meanwhile takes no job: it is reaped,
	 * and the next idle one or a new one takes it */
	for (;;) {
		int fresh = !ingest_readers_take(c);

		if (fresh) {
			/* (cl, on this frame, is the child's copy of it) */
			rc = child_start_serve(&c->ch, &cl, ingest_child_serve, &cl);
			if (rc)
				return ingest_start_error(c, rc);
			c->jobs = 0;
		}
		c->jobs++;
		rc = child_send_job(&c->ch, c->path, strlen(c->path));
		if (!rc)
			break;
		child_kill(&c->ch);
		if (fresh)
			return ingest_start_error(c, rc);
	}
	c->running = 1;
	return 0;
}

/* One read of what the child sent (it waits until the child sends or
 * ends, or its deadline passes), its whole frames taken; *done once the
 * child has sent all, or its content is stored already (c->stop). */
static int ingest_collect_more(struct ingest_ctx *c, int *done)
{
	struct wire_frame f;
	size_t got = 0;
	int rc;

	*done = 0;
	rc = buf_grow(&c->frames, (size_t)256 << 10);
	if (!rc)
		rc = child_read(&c->ch, c->frames.data + c->frames.len,
				c->frames.cap - c->frames.len - 1, &got);
	if (rc)
		return rc;
	c->frames.len += got;
	while (!c->stop && wire_next(c->frames.data, c->frames.len, &c->pos, &f))
		c->stop = ingest_frame(c, &f);
	if (c->stop && !c->drain && c->pool && c->have_info &&
	    c->info->num_events <= INGEST_DRAIN_EVENTS)
		c->drain = 1;
	/* what a draining reader sends is dropped; only its end is looked for
	 * (an error ends it too, and its reader with it) */
	while (c->drain && !c->drained && wire_next(c->frames.data, c->frames.len, &c->pos, &f))
		c->drained = f.type == WIRE_END ? 1 : f.type == WIRE_ERROR ? -1 : 0;
	if (c->drain) {
		memmove(c->frames.data, c->frames.data + c->pos, c->frames.len - c->pos);
		c->frames.len -= c->pos;
		c->pos = 0;
		*done = !got || c->drained;
		return 0;
	}
	/* a served reader's file ends at its last frame: the reader lives on */
	*done = !got || c->stop || (c->pool && (c->have_end || c->failed));
	return 0;
}

/* The end of the child: killed after an error (rc, returned) or once its
 * content is found stored, else waited for; 0 when it delivered the whole
 * file, else the file's error. */
static int ingest_collect_end(struct ingest_ctx *c, int rc)
{
	struct child_status cs;

	if (!c->running)
		return rc;
	c->running = 0;
	if (!rc && c->drained > 0 && !c->failed) {
		ingest_readers_put(c);
		return 0;
	}
	if (rc || c->stop) {
		child_kill(&c->ch);
		return rc;
	}
	if (c->pool && !c->failed && c->have_end && c->have_info && c->have_hash) {
		ingest_readers_put(c);
		return 0;
	}
	if (c->pool && c->failed) {
		/* the file's error is in hand; its served reader, which may
		 * still be reading, is not waited for */
		child_kill(&c->ch);
		cs.end = CHILD_EXITED;
		cs.status = 0;
		return ingest_child_error(c, &cs, c->lim);
	}
	child_wait(&c->ch, &cs);
	if (!c->failed && c->have_end && c->have_info && c->have_hash && cs.end == CHILD_EXITED &&
	    cs.status == 0)
		return 0;
	return ingest_child_error(c, &cs, c->lim);
}

void ingest_pending_free(struct ingest_pending *p)
{
	if (!p)
		return;
	if (p->c.running)
		child_kill(&p->c.ch);
	free(p->c.region_ids);
	free(p->c.seen);
	free(p->c.order);
	free(p->c.row_pos);
	free(p->c.row_region);
	free(p->c.nest_pos);
	free(p->c.nest_node);
	free(p->c.blobs);
	ingest_nest_release(&p->c.nest);
	wire_info_release(&p->c.wi);
	buf_release(&p->c.frames);
	buf_release(&p->c.infobuf);
	free(p);
}

int ingest_read_begin(struct ingest_pending **out, struct store *st, const char *path,
		      const struct ingest_opts *opts, struct ingest_readers *readers)
{
	struct ingest_pending *p;
	int rc;

	*out = NULL;
	rc = ingest_text_check(path, opts);
	if (rc)
		return rc;
	p = calloc(1, sizeof(*p));
	if (!p)
		return err_nomem();
	buf_init(&p->c.frames);
	buf_init(&p->c.infobuf);
	ingest_nest_init(&p->c.nest);
	p->c.st = st;
	p->c.path = path;
	p->c.opts = opts;
	p->c.lim = opts->limits ? opts->limits : ingest_default_limits();
	p->c.pool = readers;
	rc = ingest_collect_start(&p->c);
	if (rc) {
		ingest_pending_free(p);
		return rc;
	}
	*out = p;
	return 0;
}

int ingest_read_fd(const struct ingest_pending *p)
{
	return p->c.running ? p->c.ch.fd : -1;
}

int ingest_read_wait_ms(const struct ingest_pending *p)
{
	return p->c.running ? child_wait_ms(&p->c.ch) : -1;
}

void ingest_read_extend(struct ingest_pending *p, int64_t ms)
{
	if (p->c.running)
		child_extend(&p->c.ch, ms);
}

int ingest_read_more(struct ingest_pending *p, int *done)
{
	int rc = ingest_collect_more(&p->c, done);

	if (rc || *done) {
		*done = 1;
		return ingest_collect_end(&p->c, rc);
	}
	return 0;
}

int ingest_read(struct ingest_pending **out, struct store *st, const char *path,
		const struct ingest_opts *opts)
{
	struct ingest_pending *p;
	int rc, done = 0;

	*out = NULL;
	rc = ingest_read_begin(&p, st, path, opts, NULL);
	while (!rc && !done)
		rc = ingest_read_more(p, &done);
	if (rc) {
		ingest_pending_free(p);
		return rc;
	}
	*out = p;
	return 0;
}

int ingest_file(struct ingest_result *out, struct store *st, const char *path,
		const struct ingest_opts *opts)
{
	struct ingest_pending *p;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = ingest_read(&p, st, path, opts);
	if (!rc)
		rc = ingest_write(out, st, p);
	ingest_pending_free(p);
	return rc;
}

const struct ingest_nest *ingest_pending_nest(const struct ingest_pending *p)
{
	return &p->c.nest;
}

void ingest_pending_nest_warning(const struct ingest_pending *p, char *buf, size_t len)
{
	const struct h5prof_info *info = p->c.info;

	ingest_nest_warning(buf, len, p->c.path, &p->c.nest,
			    (const char *const *)info->region_names, info->num_regions);
}

int ingest_pending_nest_walk(const struct ingest_pending *p, const struct calltree_sink *sink)
{
	return ingest_nest_walk(p->c.frames.data, p->c.frames.len, p->c.info->num_regions, sink);
}
