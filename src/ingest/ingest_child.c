/*
 * ingest_child.c - the reader child of ingest (ingest.c's overview, issue
 * 13): it opens the file once with profile_open(), checks its names,
 * metadata and row strings by the text rule (docs/text.md), hashes it on
 * a second thread and checks that it did not change, summarises and
 * encodes each row, hands the rows to the call-tree builder (calltree.h),
 * and sends all of it to the store's side as frames (wire.h): the info,
 * the rows, the hash, the call trees' ranks, paths and self times, then
 * the end or the error.  It never touches the store.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scopedb/err.h"
#include "scopedb/h5prof.h"
#include "scopedb/profile.h"
#include "scopedb/store.h"
#include "ingest/calltree.h"
#include "ingest/ingest_big.h"
#include "ingest/ingest_child.h"
#include "ingest/rowstat.h"
#include "ingest/wire.h"
#include "util/child.h"
#include "util/sha256.h"
#include "scopedb/util.h"

/* The sorted durations and blob of a row of this many calls or more are
 * freed after the row; a smaller row's are kept for the next row. */
#define INGEST_KEEP_MAX ((size_t)1 << 22)

static uint64_t ingest_tree_budget; /* ingest_testing_tree_budget() */

unsigned ingest_cpu_budget(uint64_t file_bytes)
{
	/* 5 + 10 * file_bytes / 1 MiB, rounded up, capped (no overflow) */
	uint64_t s = file_bytes >= ((uint64_t)1 << 52)
			 ? 0xffffffffu
			 : 5 + (file_bytes * 10 + (1u << 20) - 1) / (1u << 20);

	return s > 0xffffffffu ? 0xffffffffu : (unsigned)s;
}

void ingest_testing_tree_budget(uint64_t max_held)
{
	ingest_tree_budget = max_held;
}

/* The hashing thread's job (in the reader child). */
struct ingest_hash {
	const char *path;
	int fd;		       /* the file, open once */
	const struct stat *st; /* its fstat() when opened */
	pthread_t thread;
	int started;
	atomic_int done; /* result below is ready */
	atomic_int stop; /* give up: the file failed (ingest_child_read()) */
	int err;	 /* errno of a failed read, 0 = ok */
	char hex[65];
};

/* The reader child's state. */
struct ingest_reader {
	const char *path;
	int fd;		/* the file, open once (hashed, and checked by the reader) */
	struct stat st; /* its fstat() when opened */
	struct profile *p;
	const struct h5prof_info *info;
	struct ingest_hash hash;
	int hash_sent;
	struct wire_out w;
	struct i64vec sorted;	   /* scratch: the row's durations, sorted */
	struct buf blob;	   /* scratch: the encoded row */
	struct calltree *tree;	   /* the call trees of the file's ranks */
	struct calltree_sink sink; /* their results, to frames */
	struct buf pathblob;	   /* scratch: a path's encoded durations */
	struct ingest_big big;	   /* a row handed out in pieces */
};

/*
 * The text rule of the store (docs/text.md: UTF-8 only), said about the
 * file first: "cannot read 'PATH': WHAT 'S' is not valid UTF-8 (byte 0xNN
 * at offset K); a store holds UTF-8 text only" (S cut to 120 bytes), or 0.
 * scope-profiler writes UTF-8 only, so such a file was not written by it.
 */
static int ingest_text(const char *path, const char *what, const char *s)
{
	const char *bad = s ? util_utf8_bad(s) : NULL;

	if (!bad)
		return 0;
	return err_set(ERR_FORMAT,
		       "cannot read '%s': %s '%.120s%s' is not valid UTF-8 (byte 0x%02x at offset "
		       "%zu); a store holds UTF-8 text only",
		       path, what, s, strlen(s) > 120 ? "..." : "", (unsigned char)*bad,
		       (size_t)(bad - s));
}

/* The region names and metadata of a file, by the text rule. */
static int ingest_text_info(const struct h5prof_info *info)
{
	char what[200];
	size_t i;
	int rc = 0;

	for (i = 0; !rc && i < info->num_regions; i++)
		rc = ingest_text(info->path, "region name", info->region_names[i]);
	for (i = 0; !rc && i < info->num_meta; i++) {
		rc = ingest_text(info->path, "metadata key", info->meta[i].key);
		snprintf(what, sizeof(what), "metadata '%.120s' value", info->meta[i].key);
		if (!rc)
			rc = ingest_text(info->path, what, info->meta[i].value);
	}
	return rc;
}

/* The strings of a row (source file, text and tags), by the text rule. */
static int ingest_text_row(const char *path, const struct h5prof_row *row, const char *name)
{
	char what[200];
	const char *const kinds[] = {"source file", "source text", "tags"};
	const char *const s[] = {row->source_file, row->source_text, row->tags_json};
	int i, rc = 0;

	for (i = 0; !rc && i < 3; i++) {
		if (!s[i] || !util_utf8_bad(s[i]))
			continue;
		snprintf(what, sizeof(what), "%s of region '%.120s' rank %u", kinds[i], name,
			 row->rank);
		rc = ingest_text(path, what, s[i]);
	}
	return rc;
}

/* After hashing: the file must still be what was fstat()ed when it was
 * opened (else the hash may be of other bytes than the ones parsed). */
static int ingest_check_same(const struct ingest_hash *h)
{
	struct stat now;

	if (fstat(h->fd, &now) != 0 || !h5prof_same_file(&now, h->st))
		return err_set(ERR_IO,
			       "cannot read '%s': the file changed while it was read; nothing "
			       "stored",
			       h->path);
	return 0;
}

/* Send the hash once the hashing thread has it (wait: join it first). */
static int ingest_send_hash(struct ingest_reader *r, int wait)
{
	if (r->hash_sent || (!wait && !atomic_load(&r->hash.done)))
		return 0;
	if (r->hash.started) {
		pthread_join(r->hash.thread, NULL);
		r->hash.started = 0;
	}
	if (r->hash.err)
		return err_set(ERR_IO, "cannot read '%s': %s", r->path,
			       util_strerror_lc(r->hash.err));
	if (ingest_check_same(&r->hash))
		return err_code();
	r->hash_sent = 1;
	return wire_put_hash(&r->w, r->hash.hex);
}

/* ---- the call trees' results, to frames (in the child) ---- */

static int ingest_tree_rank(void *ctx, const struct calltree_rankinfo *ri)
{
	struct ingest_reader *r = ctx;

	return wire_put_nest(&r->w, ri);
}

static int ingest_tree_node(void *ctx, const struct calltree_node *n)
{
	struct ingest_reader *r = ctx;

	return wire_put_node(&r->w, n);
}

static int ingest_tree_path(void *ctx, const struct calltree_path *p)
{
	struct ingest_reader *r = ctx;
	int rc;

	if (p->row_durations)
		return wire_put_path(&r->w, p, NULL, 0);
	r->pathblob.len = 0;
	rc = store_encode_durations(&r->pathblob, p->durations, (size_t)p->calls);
	return rc ? rc : wire_put_path(&r->w, p, r->pathblob.data, r->pathblob.len);
}

static int ingest_tree_self(void *ctx, uint32_t rank, uint32_t region, int64_t self,
			    enum calltree_self_source source)
{
	struct ingest_reader *r = ctx;

	return wire_put_self(&r->w, rank, region, self, source);
}

void ingest_child_tree_row(struct calltree_row *out, const struct h5prof_row *row)
{
	out->rank = row->rank;
	out->region = row->region;
	out->calls = row->calls;
	out->has_events = row->has_events;
	out->starts = row->starts;
	out->durations = row->durations;
	out->nest = row->nest;
	out->exclusive = row->exclusive;
	out->rank_last = row->rank_last;
	out->rank_calls = row->rank_calls;
	out->durations_own = row->durations_own;
}

/* Hand row to the call-tree builder (which may build and send its rank). */
static int ingest_tree_row(struct ingest_reader *r, const struct h5prof_row *row)
{
	struct calltree_row cr;

	ingest_child_tree_row(&cr, row);
	return calltree_add(r->tree, &cr, &r->sink);
}

/* The frame fields of a row summarised as rs (its blob not set). */
static void ingest_timing(struct store_timing *t, const struct h5prof_row *row,
			  const struct rowstat *rs)
{
	memset(t, 0, sizeof(*t));
	t->rank = row->rank;
	t->has_events = row->has_events;
	t->calls = rs->calls;
	t->total = rs->total;
	t->min = rs->min;
	t->max = rs->max;
	t->first = rs->first;
	t->last = rs->last;
	t->start_min = rs->start_min;
	t->end_max = rs->end_max;
	t->mean = rs->mean;
	t->m2 = rs->m2;
	t->exclusive = row->exclusive;
	t->gpu_count = rs->gpu_count;
	t->gpu_total = rs->gpu_total;
	t->source_file = row->source_file;
	t->source_line = row->source_line;
	t->source_text = row->source_text;
	t->tags_json = row->tags_json;
}

/*
 * A piece of a row the call tree will not hold (ingest_big.h: longer than
 * it can, or of a rank that is): kept and summarised; after the last, the
 * row's frame, its blob held or read from the spool, and the row handed to
 * the call-tree builder, which gives its rank up by the count alone (the
 * row's or the rank's) and reads none of its calls.
 */
static int ingest_piece(struct ingest_reader *r, const struct h5prof_row *row, const char *name)
{
	struct store_timing t;
	struct rowstat rs;
	uint64_t off, len;
	int rc = 0;

	if (row->piece_from == 0)
		rc = ingest_text_row(r->info->path, row, name);
	if (!rc)
		rc = ingest_big_add(&r->big, row, r->info->path, name);
	if (rc || !row->piece_last)
		return rc ? rc : ingest_send_hash(r, 0);
	rc = ingest_big_end(&r->big, &rs, r->info->path, name, row->rank, &off, &len);
	if (rc)
		return rc;
	ingest_timing(&t, row, &rs);
	if (r->big.mem) {
		t.durations = r->big.held.data;
		t.durations_len = r->big.held.len;
		rc = wire_put_row(&r->w, &t, row->region);
	} else {
		rc = wire_put_row_spool(&r->w, &t, row->region, r->big.sp.fd, off, len);
	}
	ingest_big_done(&r->big);
	if (!rc)
		rc = ingest_tree_row(r, row);
	return rc ? rc : ingest_send_hash(r, 0);
}

/* The per-row callback of h5prof_read in the child: summarise, encode,
 * send, hand to the call-tree builder; once the hashing thread is done,
 * send the hash. */
static int ingest_row(void *arg, const struct h5prof_row *row)
{
	struct ingest_reader *r = arg;
	const char *name = r->info->region_names[row->region];
	struct store_timing t;
	struct rowstat rs;
	int rc;

	if (row->piece_len)
		return ingest_piece(r, row, name);
	/* the array rows in pieces keep goes back once the call tree holds
	 * calls again: its memory is the tree's then */
	if (r->big.part && row->calls && calltree_can_hold(r->tree, row->calls) &&
	    calltree_can_hold(r->tree, row->rank_calls))
		ingest_big_release(&r->big);
	rc = rowstat_compute(&rs, row, r->info->path, name);
	if (!rc)
		rc = ingest_text_row(r->info->path, row, name);
	if (rc)
		return rc;
	ingest_timing(&t, row, &rs);
	r->blob.len = 0;
	if (row->has_events) {
		const int64_t *sorted;

		r->sorted.len = 0;
		if (row->durations_own && (!calltree_can_hold(r->tree, row->calls) ||
					   !calltree_can_hold(r->tree, row->rank_calls))) {
			/* the call tree gives this row (or its rank) up
			 * unread (its summary is made), and the reader reads
			 * its durations no more: sorted where they lie,
			 * without a copy */
			util_sort_i64((int64_t *)row->durations, (size_t)row->calls);
			sorted = row->durations;
		} else {
			/* a large row's copy is its size exactly (it goes after
			 * the row): doubled, 100M calls would reserve 1 GB */
			rc = row->calls >= INGEST_KEEP_MAX
				 ? i64vec_reserve_exact(&r->sorted, (size_t)row->calls)
				 : i64vec_reserve(&r->sorted, (size_t)row->calls);
			if (rc)
				return ERR_NOMEM;
			r->sorted.len = (size_t)row->calls;
			util_sort_i64_to(r->sorted.v, row->durations, r->sorted.len);
			sorted = r->sorted.v;
		}
		rc = store_encode_durations(&r->blob, sorted, (size_t)row->calls);
		if (rc)
			return rc;
		t.durations = r->blob.data;
		t.durations_len = r->blob.len;
	}
	rc = wire_put_row(&r->w, &t, row->region);
	if (rc)
		return rc;
	/* a large row's sorted copy and blob, and those of a large rank's
	 * last row, go back now rather than wait for the next row: the call
	 * tree built next needs the memory more */
	if (row->calls >= INGEST_KEEP_MAX ||
	    (row->rank_last && row->rank_calls >= INGEST_KEEP_MAX)) {
		i64vec_release(&r->sorted);
		buf_release(&r->blob);
	}
	rc = ingest_tree_row(r, row);
	return rc ? rc : ingest_send_hash(r, 0);
}

/* Hash the file (the hashing thread's body; see the top of the file). */
static void *ingest_hash_main(void *arg)
{
	struct ingest_hash *h = arg;

	h->err = sha256_fd_until(h->hex, h->fd, &h->stop);
	atomic_store(&h->done, 1);
	return NULL;
}

/* Start hashing in the background, or hash now when no thread starts. */
static int ingest_hash_start(struct ingest_hash *h, const char *path, int fd, const struct stat *st)
{
	memset(h, 0, sizeof(*h));
	h->path = path;
	h->fd = fd;
	h->st = st;
	atomic_init(&h->done, 0);
	atomic_init(&h->stop, 0);
	if (pthread_create(&h->thread, NULL, ingest_hash_main, h) == 0) {
		h->started = 1;
		return 0;
	}
	h->err = sha256_fd(h->hex, fd);
	atomic_store(&h->done, 1);
	return 0;
}

/* The complete info of a file, checked: a readable file without a single
 * (rank, region) row is not a profile (storing it would make every later
 * check pass on nothing); its names and metadata by the text rule. */
static int ingest_check_info(const struct ingest_reader *r)
{
	if (r->info->num_regions == 0 || r->info->num_rows == 0)
		return err_set(ERR_FORMAT, "'%s': not a scope-profiler profile (no regions found)",
			       r->path);
	return ingest_text_info(r->info);
}

/*
 * Read path and write its frames to fd: its info, rows and hash, then
 * WIRE_END or a WIRE_ERROR with the message.  An error is sent as soon as
 * it happens; the end of a whole file only after everything of the file
 * is freed (and, with reset, libhdf5 closed: h5prof_reset()), so that a
 * crash while freeing is this file's, not the next one's in a served
 * reader.  0 after a whole file; 1 when the frames could not be written
 * or the file failed (a served reader then stops: it is not reused).
 */
static int ingest_child_read(const char *path, int fd, int reset)
{
	struct ingest_reader r;
	int rc, final, failed_write = 0;

	memset(&r, 0, sizeof(r));
	r.path = path;
	r.fd = -1;
	wire_out_init(&r.w, fd);
	i64vec_init(&r.sorted);
	buf_init(&r.blob);
	buf_init(&r.pathblob);
	r.sink.ctx = &r;
	r.sink.rank = ingest_tree_rank;
	r.sink.node = ingest_tree_node;
	r.sink.path = ingest_tree_path;
	r.sink.self = ingest_tree_self;
	rc = calltree_new(&r.tree);
	if (!rc) {
		/* each rank's tree is built while the next rank is read */
		calltree_set_threaded(r.tree);
		calltree_set_budget(r.tree, ingest_tree_budget);
		rc = profile_open_file(r.path, &r.fd, &r.st);
	}
	if (!rc)
		child_job_cpu(ingest_cpu_budget((uint64_t)r.st.st_size));
	/* hashed from the start, beside libhdf5's open and index (on one
	 * core for 50 ms of a 78 MB gzip profile): given up if the file
	 * fails (out:) */
	if (!rc)
		rc = ingest_hash_start(&r.hash, r.path, r.fd, &r.st);
	if (!rc)
		rc = profile_open(&r.p, r.path, r.fd, &r.st);
	if (rc)
		goto out;
	/* a row the call tree cannot hold comes in pieces, never whole */
	profile_set_piece_min(r.p, calltree_max_held(r.tree) + 1);
	r.info = profile_info(r.p);
	/* the HDF5 reader knows the index before any row: the parent can
	 * show progress against the total; a JSON profile's info is complete
	 * (and sent) after its rows, which the parent keeps until then */
	final = profile_info_final(r.p);
	if (final)
		rc = ingest_check_info(&r);
	if (!rc && final)
		rc = wire_put_info(&r.w, r.info);
	if (!rc)
		rc = ingest_send_hash(&r, 0);
	if (!rc)
		rc = profile_read(r.p, ingest_row, &r);
	if (!rc && !final)
		rc = ingest_check_info(&r);
	if (!rc && !final)
		rc = wire_put_info(&r.w, r.info);
	if (!rc)
		rc = calltree_finish(r.tree, &r.sink);
	if (!rc)
		rc = ingest_send_hash(&r, 1);
out:
	/* a bare "out of memory" from below says not which file */
	if (rc == ERR_NOMEM && strcmp(err_msg(), "out of memory") == 0)
		err_set(ERR_NOMEM, "cannot ingest '%s': out of memory", r.path);
	/* the error goes at once: the file is refused, its reader ends, and
	 * what the freeing below might do cannot hide why */
	if (rc)
		(void)wire_put_error(&r.w, rc, err_msg(),
				     rc == ERR_NOMEM ? child_memory_inherited() : 0);
	if (rc && wire_flush(&r.w))
		failed_write = 1;
	if (r.hash.started) {
		if (rc)
			atomic_store(&r.hash.stop, 1);
		pthread_join(r.hash.thread, NULL);
	}
	profile_free(r.p);
	if (r.fd >= 0)
		close(r.fd);
	i64vec_release(&r.sorted);
	buf_release(&r.blob);
	buf_release(&r.pathblob);
	ingest_big_release(&r.big);
	calltree_free(r.tree);
	if (reset)
		h5prof_reset();
	/* a whole file ends once all of it is freed (a crash while freeing
	 * is this file's, not the next one's in a served reader) */
	if (!rc && (wire_put_end(&r.w) || wire_flush(&r.w)))
		failed_write = 1;
	wire_out_release(&r.w);
	return failed_write || rc;
}

int ingest_child_main(void *arg, int fd)
{
	return ingest_child_read(arg, fd, 0);
}

int ingest_child_serve(void *arg, int fd)
{
	const struct child_limits *lim = arg;
	char *path = malloc(CHILD_JOB_MAX + 1);
	int more = 0, rc = 0;

	if (!path)
		return 1;
	while (!rc && (more = child_next_job(path, CHILD_JOB_MAX + 1)) == 1) {
		child_job_limits(lim);
		rc = ingest_child_read(path, fd, 1);
	}
	free(path);
	return rc || more < 0 ? 1 : 0;
}
