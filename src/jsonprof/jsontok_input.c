/*
 * jsontok_input.c - the input of the JSON reader of jsontok.h: the window
 * of text being read and its refill, the failures of the reader.
 *
 * The window buf[pos, len) is refilled by jtok_fill(), which moves the
 * unread bytes to the front and appends more: from the file with pread()
 * at raw_off (the descriptor's offset is never used: the hashing thread
 * reads the same descriptor), from memory, or through zlib's inflate (gzip,
 * windowBits 16 + 15: header and CRC-32/ISIZE trailer checked by zlib;
 * several members are read one after the other), which runs on a thread
 * of its own a few blocks ahead (struct jtok_zt).  This is the only code
 * calling zlib.  The tokens read from the window are jsontok.c's.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include "scopedb/err.h"
#include "jsonprof/jsontok.h"
#include "util/thread.h"

/* The window and the raw chunks read for zlib. */
#define JTOK_WINDOW ((size_t)1 << 20)
#define JTOK_ZIN ((size_t)256 << 10)

/* Blocks of inflated text the gzip thread keeps ready (struct jtok_zt). */
#define JTOK_ZBLOCK ((size_t)1 << 20)
#define JTOK_ZBLOCKS 3

/* One block: data[pos, len) not yet taken; after it the end of the
 * input (eof) or the failure that stopped the inflate (code, msg). */
struct jtok_zblock {
	unsigned char *data;
	size_t len, pos;
	int eof, code;
	char msg[1024]; /* (err.c's whole message) */
};

/*
 * The gzip thread: it reads and inflates the input (jtok_raw(), the zlib
 * stream and its counters are its alone once it runs) into a ring of
 * blocks, while the reader's thread parses the text already inflated.
 * The parse of a gzip profile waited for zlib for a fifth of its time.
 */
struct jtok_zt {
	struct jtok *t;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct jtok_zblock b[JTOK_ZBLOCKS];
	size_t head, tail, ready; /* filled next, taken next, how many filled */
	int quit;
};

#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
static int
jtok_fail_input(struct jtok *t, int code, const char *fmt, ...);

/* A failure of the input itself (I/O, gzip): no document offset.  On the
 * gzip thread only the message is set (its own, thread-local): the block
 * carries it to the reader's thread (jtok_take()). */
static int jtok_fail_input(struct jtok *t, int code, const char *fmt, ...)
{
	char msg[600];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (!t->zt) {
		t->failed = 1;
		t->fail_code = code;
		t->eof = 1;
	}
	return err_set(code, "cannot read '%s': %s", t->qpath, msg);
}

int jtok_fail_at(struct jtok *t, int code, int at, const char *fmt, ...)
{
	char msg[600];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	t->failed = 1;
	t->fail_code = code;
	t->eof = 1;
	if (at)
		return err_set(code, "cannot read '%s': %s at byte %" PRIu64, t->qpath, msg,
			       t->base + t->pos);
	return err_set(code, "cannot read '%s': %s", t->qpath, msg);
}

/* ---- input ---- */

/* Up to n raw bytes at raw_off into dst: *got = 0 at the end. */
static int jtok_raw(struct jtok *t, unsigned char *dst, size_t n, size_t *got)
{
	uint64_t left = t->raw_size - t->raw_off;
	ssize_t r;

	*got = 0;
	if (left == 0)
		return 0;
	if (n > left)
		n = (size_t)left;
	if (t->mem) {
		memcpy(dst, t->mem + t->raw_off, n);
		t->raw_off += n;
		*got = n;
		return 0;
	}
	do
		r = pread(t->fd, dst, n, (off_t)t->raw_off);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return jtok_fail_input(t, errno == ENOMEM ? ERR_NOMEM : ERR_IO, "%s",
				       util_strerror_lc(errno));
	if (r == 0) /* shorter than it was: the file changed */
		return jtok_fail_input(t, ERR_IO,
				       "the file changed while it was read; nothing stored");
	t->raw_off += (uint64_t)r;
	*got = (size_t)r;
	return 0;
}

/* When the compressed bytes read are used up, read the next chunk (none
 * at the end of the file: zin_pos == zin_len after). */
static int jtok_zin_refill(struct jtok *t)
{
	size_t got;
	int rc;

	if (t->zin_pos < t->zin_len)
		return 0;
	rc = jtok_raw(t, t->zin, JTOK_ZIN, &got);
	if (rc)
		return rc;
	t->zin_pos = 0;
	t->zin_len = got;
	return 0;
}

/* Inflate into dst[*len, cap); *eof after the last member. */
static int jtok_inflate(struct jtok *t, unsigned char *dst, size_t cap, size_t *len, int *eof)
{
	z_stream *z = t->z;

	while (*len < cap && !*eof) {
		size_t before;
		int rc, zr;

		rc = jtok_zin_refill(t);
		if (rc)
			return rc;
		if (t->zin_pos == t->zin_len)
			return jtok_fail_input(t, ERR_FORMAT, "the gzip stream is truncated");
		z->next_in = t->zin + t->zin_pos;
		z->avail_in = (uInt)(t->zin_len - t->zin_pos);
		z->next_out = dst + *len;
		z->avail_out = (uInt)(cap - *len);
		before = z->avail_out;
		zr = inflate(z, Z_NO_FLUSH);
		t->zin_pos = t->zin_len - z->avail_in;
		*len += before - z->avail_out;
		t->inflated += before - z->avail_out;
		if (t->inflated > t->inflate_cap)
			return jtok_fail_input(
			    t, ERR_FORMAT,
			    "it inflates to more than %d times its size (%" PRIu64
			    " bytes compressed); refused as a gzip bomb",
			    JTOK_GZIP_RATIO, t->raw_size);
		if (zr == Z_MEM_ERROR)
			return jtok_fail_input(t, ERR_NOMEM, "out of memory");
		if (zr == Z_DATA_ERROR || zr == Z_NEED_DICT || zr == Z_STREAM_ERROR)
			return jtok_fail_input(t, ERR_FORMAT, "the gzip stream is damaged (%s)",
					       z->msg ? z->msg : "invalid data");
		if (zr == Z_STREAM_END) {
			/* another member, or the end of the file */
			rc = jtok_zin_refill(t);
			if (rc)
				return rc;
			if (t->zin_pos == t->zin_len) {
				*eof = 1;
				break;
			}
			if (t->zin[t->zin_pos] != 0x1f)
				return jtok_fail_input(t, ERR_FORMAT,
						       "data follows the gzip stream");
			if (inflateReset(z) != Z_OK)
				return jtok_fail_input(t, ERR_FORMAT, "the gzip stream is damaged");
		}
	}
	return 0;
}

/* The gzip thread: fill free blocks until the input ends or fails, or
 * jtok_release() says to quit. */
static void *jtok_zmain(void *arg)
{
	struct jtok_zt *zt = arg;
	int done = 0;

	pthread_mutex_lock(&zt->mu);
	while (!done) {
		struct jtok_zblock *b;

		while (zt->ready == JTOK_ZBLOCKS && !zt->quit)
			pthread_cond_wait(&zt->cv, &zt->mu);
		if (zt->quit)
			break;
		b = &zt->b[zt->head];
		pthread_mutex_unlock(&zt->mu);
		b->len = b->pos = 0;
		b->eof = 0;
		b->code = jtok_inflate(zt->t, b->data, JTOK_ZBLOCK, &b->len, &b->eof);
		if (b->code)
			snprintf(b->msg, sizeof(b->msg), "%s", err_msg());
		done = b->eof || b->code;
		pthread_mutex_lock(&zt->mu);
		zt->head = (zt->head + 1) % JTOK_ZBLOCKS;
		zt->ready++;
		pthread_cond_broadcast(&zt->cv);
	}
	pthread_mutex_unlock(&zt->mu);
	return NULL;
}

/* Start the gzip thread; without one (no memory, no thread) the reader's
 * thread inflates, as it always could. */
static void jtok_zstart(struct jtok *t)
{
	struct jtok_zt *zt = calloc(1, sizeof(*zt));
	int i;

	if (!zt)
		return;
	zt->t = t;
	for (i = 0; i < JTOK_ZBLOCKS; i++)
		if (!(zt->b[i].data = malloc(JTOK_ZBLOCK)))
			break;
	t->zt = zt; /* before the thread reads t: see jtok_fail_input() */
	if (i < JTOK_ZBLOCKS || util_thread_start(&zt->thread, &zt->mu, &zt->cv, jtok_zmain, zt)) {
		t->zt = NULL;
		for (i = 0; i < JTOK_ZBLOCKS; i++)
			free(zt->b[i].data);
		free(zt);
	}
}

static void jtok_zstop(struct jtok *t)
{
	struct jtok_zt *zt = t->zt;
	int i;

	if (!zt)
		return;
	util_thread_stop(zt->thread, &zt->mu, &zt->cv, &zt->quit);
	for (i = 0; i < JTOK_ZBLOCKS; i++)
		free(zt->b[i].data);
	free(zt);
	t->zt = NULL;
}

/* Move inflated text from the gzip thread's next block into buf[len, cap)
 * (waiting for it); at the block's end, its end of input or failure. */
static int jtok_take(struct jtok *t)
{
	struct jtok_zt *zt = t->zt;
	struct jtok_zblock *b;
	size_t n;

	pthread_mutex_lock(&zt->mu);
	while (!zt->ready)
		pthread_cond_wait(&zt->cv, &zt->mu);
	b = &zt->b[zt->tail];
	pthread_mutex_unlock(&zt->mu);
	n = b->len - b->pos < t->cap - t->len ? b->len - b->pos : t->cap - t->len;
	memcpy(t->buf + t->len, b->data + b->pos, n);
	t->len += n;
	b->pos += n;
	if (b->pos < b->len)
		return 0;
	if (b->code) {
		t->failed = 1;
		t->fail_code = b->code;
		t->eof = 1;
		return err_set(b->code, "%s", b->msg);
	}
	if (b->eof) {
		t->eof = 1;
		return 0; /* (the thread has ended: the block stays) */
	}
	pthread_mutex_lock(&zt->mu);
	zt->tail = (zt->tail + 1) % JTOK_ZBLOCKS;
	zt->ready--;
	pthread_cond_broadcast(&zt->cv);
	pthread_mutex_unlock(&zt->mu);
	return 0;
}

/*
 * Make at least need unread bytes available when the input has them:
 * returns the number available (may be less at the end), or a negative
 * error.
 */
int64_t jtok_fill(struct jtok *t, size_t need)
{
	size_t got;
	int rc;

	if (t->failed)
		return t->fail_code;
	while (t->len - t->pos < need && !t->eof) {
		if (!t->own_buf) {
			t->eof = 1;
			break;
		}
		if (t->pos) {
			memmove(t->buf, t->buf + t->pos, t->len - t->pos);
			t->base += t->pos;
			t->len -= t->pos;
			t->pos = 0;
		}
		if (t->zt) {
			rc = jtok_take(t);
		} else if (t->gz) {
			rc = jtok_inflate(t, t->buf, t->cap, &t->len, &t->eof);
		} else {
			rc = jtok_raw(t, t->buf + t->len, t->cap - t->len, &got);
			t->len += got;
			if (!rc && got == 0)
				t->eof = 1;
		}
		if (rc)
			return rc;
	}
	return (int64_t)(t->len - t->pos);
}

static int jtok_setup(struct jtok *t, const char *qpath)
{
	unsigned char head[2];
	size_t got = 0;
	int rc;

	t->qpath = qpath;
	buf_init(&t->scratch);
	if (t->raw_size >= 2) {
		if (t->mem) {
			memcpy(head, t->mem, 2);
			got = 2;
		} else {
			rc = jtok_raw(t, head, 2, &got);
			t->raw_off = 0;
			if (rc)
				return rc;
		}
	}
	t->gz = got == 2 && head[0] == 0x1f && head[1] == 0x8b;
	if (t->mem && !t->gz) {
		/* the memory itself is the window */
		t->buf = (unsigned char *)(uintptr_t)t->mem;
		t->len = (size_t)t->raw_size;
		t->raw_off = t->raw_size;
		t->eof = 1;
		return 0;
	}
	t->cap = JTOK_WINDOW;
	t->buf = malloc(t->cap + 1);
	if (!t->buf)
		return err_nomem();
	t->own_buf = 1;
	if (!t->gz)
		return 0;
	t->z = calloc(1, sizeof(*t->z));
	t->zin = malloc(JTOK_ZIN);
	if (!t->z || !t->zin)
		return err_nomem();
	if (inflateInit2(t->z, 16 + MAX_WBITS) != Z_OK) {
		free(t->z);
		t->z = NULL;
		return err_nomem();
	}
	t->inflate_cap = t->raw_size > (UINT64_MAX - JTOK_GZIP_SLACK) / JTOK_GZIP_RATIO
			     ? UINT64_MAX
			     : t->raw_size * JTOK_GZIP_RATIO + JTOK_GZIP_SLACK;
	jtok_zstart(t);
	return 0;
}

int jtok_init_fd(struct jtok *t, const char *qpath, int fd, uint64_t size)
{
	memset(t, 0, sizeof(*t));
	t->fd = fd;
	t->raw_size = size;
	return jtok_setup(t, qpath);
}

int jtok_init_mem(struct jtok *t, const char *qpath, const void *data, size_t n)
{
	static const unsigned char empty[1];

	memset(t, 0, sizeof(*t));
	t->fd = -1;
	t->mem = n ? data : empty;
	t->raw_size = n;
	return jtok_setup(t, qpath);
}

int jtok_init_again(struct jtok *t, const struct jtok *from)
{
	memset(t, 0, sizeof(*t));
	t->fd = from->fd;
	t->mem = from->mem;
	t->raw_size = from->raw_size;
	return jtok_setup(t, from->qpath);
}

void jtok_release(struct jtok *t)
{
	if (!t)
		return;
	jtok_zstop(t);
	if (t->z) {
		inflateEnd(t->z);
		free(t->z);
	}
	free(t->zin);
	if (t->own_buf)
		free(t->buf);
	buf_release(&t->scratch);
	memset(t, 0, sizeof(*t));
	t->fd = -1;
}

int jtok_is_gzip(const struct jtok *t)
{
	return t->gz;
}
