/*
 * h5direct.c - schema 1's per-call datasets read without libhdf5.
 *
 * A plain schema-1 read spent most of its time in libhdf5 opening each
 * region group and its datasets a second time (the first: h5hier_open()'s
 * checks), with evict-on-close re-reading their headers, to read a few
 * kilobytes each.  So when a dataset is opened and checked at open,
 * libhdf5 is also asked where its values lie (H5Dget_offset() for a
 * contiguous dataset, H5Dget_chunk_info_by_coord() for each chunk of a
 * chunked one), and h5hier_read() reads them with pread() from libhdf5's
 * own descriptor, inflating gzip chunks with h5inflate_decode().  Only
 * the plain case is taken: a native int64 dataset, contiguous and
 * allocated whole, or in at most H5DIRECT_MAX_CHUNKS chunks each
 * allocated, unfiltered or deflate (with shuffle) as h5inflate.c takes
 * them, in a file without a user block (where libhdf5's addresses and
 * file offsets agree).  Any other row, and any read that comes up short
 * or chunk that does not inflate to exactly one chunk, is read through
 * libhdf5 as before, which gives the values or says what is wrong: a
 * faster path to the same values, never a reader with its own rules.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

#include "scopedb/err.h"
#include "scopedb/h5prof.h"
#include "scopedb/util.h"
#include "util/pio.h"
#include "h5/h5_internal.h"

/* Chunks a dataset may have and be read directly: libhdf5 1.10's
 * H5Dget_chunk_info_by_coord() walks the chunk index for each chunk it is
 * asked for, so the open's cost grows with the square of this (a review
 * measured 34 s for one dataset of 65,536 chunks; 256 take well under a
 * millisecond).  A dataset of more chunks is read through libhdf5. */
#define H5DIRECT_MAX_CHUNKS 256
/* Values a dataset may have and be read directly (its spans' sizes fit
 * in 32 bits; longer rows go in pieces). */
#define H5DIRECT_MAX_VALUES ((hsize_t)1 << 24)

/* Rows read here, process-wide (testing hook: h5prof_direct_rows). */
static _Atomic unsigned long h5direct_count;

unsigned long h5prof_direct_rows(void)
{
	return h5direct_count;
}

/* Testing hook h5prof_set_direct_reads(): 0 turns the path off. */
static _Atomic int h5direct_enabled = 1;

void h5prof_set_direct_reads(int on)
{
	h5direct_enabled = on != 0;
}

/* Whether p's spans can be trusted as file offsets: no user block. */
static int h5direct_on(struct h5prof *p)
{
	hid_t fcpl;
	hsize_t ub = 1;

	if (p->direct)
		return p->direct > 0;
	fcpl = H5Fget_create_plist(p->file);
	if (fcpl >= 0) {
		if (H5Pget_userblock(fcpl, &ub) < 0)
			ub = 1;
		H5Pclose(fcpl);
	}
	p->direct = ub == 0 ? 1 : -1;
	return p->direct > 0;
}

/* Append a span to p->spans: 0, or 1 (no memory). */
static int h5direct_push(struct h5prof *p, const struct h5span *s)
{
	if (util_grow(&p->spans, &p->spans_cap, p->nspans + 1, sizeof(*p->spans), 64)) {
		err_clear();
		return 1;
	}
	p->spans[p->nspans++] = *s;
	return 0;
}

/* The spans of chunked dataset c (filtered as kind): one a chunk, in the
 * order of their values; every chunk must be allocated. */
static int h5direct_chunks(struct h5prof *p, const struct h5col *c, unsigned ev, int kind)
{
	hsize_t off, most = kind ? h5inflate_most(c->chunk) : c->chunk * sizeof(int64_t);
	struct h5span s;

	if ((c->n + c->chunk - 1) / c->chunk > H5DIRECT_MAX_CHUNKS ||
	    c->chunk > UINT32_MAX / sizeof(int64_t))
		return 1;
	for (off = 0; off < c->n; off += c->chunk) {
		hsize_t size = 0;
		haddr_t addr = HADDR_UNDEF;
		unsigned mask = 1;

		if (H5Dget_chunk_info_by_coord(c->dset, &off, &mask, &addr, &size) < 0 ||
		    mask != 0 || addr == HADDR_UNDEF || size == 0 || size > most)
			return 1;
		memset(&s, 0, sizeof(s));
		s.addr = addr;
		s.first = off;
		s.size = (uint32_t)size;
		s.nvals = (uint32_t)(c->n - off < c->chunk ? c->n - off : c->chunk);
		s.chunk = (uint32_t)c->chunk;
		s.ev = (uint8_t)ev;
		s.kind = (uint8_t)kind;
		if (h5direct_push(p, &s))
			return 1;
	}
	return 0;
}

int h5direct_add(struct h5prof *p, const struct h5col *c, unsigned ev)
{
	struct h5span s;

	if (!h5direct_on(p) || c->dset < 0 || c->n == 0 || c->n > H5DIRECT_MAX_VALUES ||
	    ev >= EV_N || H5Tequal(c->type, H5T_NATIVE_INT64) <= 0)
		return 1;
	if (c->chunk) {
		if (c->chunk > h5columnar_max_window() || (c->filtered && !c->inflate))
			return 1;
		return h5direct_chunks(p, c, ev, c->inflate);
	}
	/* (h5col_check_storage() saw the layout and the bytes stored) */
	if (!c->contiguous || c->stored != c->n * sizeof(int64_t))
		return 1;
	memset(&s, 0, sizeof(s));
	s.addr = H5Dget_offset(c->dset);
	if (s.addr == HADDR_UNDEF)
		return 1;
	s.size = (uint32_t)(c->n * sizeof(int64_t));
	s.nvals = (uint32_t)c->n;
	s.ev = (uint8_t)ev;
	return h5direct_push(p, &s);
}

int h5direct_fd(const struct h5prof *p)
{
	void *h = NULL;

	/* (the sec2 driver, which h5prof_open() sets: its handle is an int) */
	if (!h5direct_enabled || p->direct <= 0 || !p->nspans ||
	    H5Fget_vfd_handle(p->file, H5P_DEFAULT, &h) < 0 || !h)
		return -1;
	return *(int *)h;
}

/* The array of b that values for ev go to. */
static int64_t *h5direct_dst(struct h5rowbuf *b, unsigned ev)
{
	if (ev == EV_A)
		return b->starts;
	if (ev == EV_E)
		return b->durs;
	return ev == EV_GPU ? b->gpu : b->col[ev];
}

int h5direct_read(const struct h5prof *p, const struct prow *r, int fd, struct h5rowbuf *b,
		  struct h5inflate *z)
{
	uint32_t i;

	if (fd < 0 || !r->nspan)
		return 1;
	for (i = 0; i < r->nspan; i++) {
		const struct h5span *s = &p->spans[r->offset + i];
		int64_t *to = h5direct_dst(b, s->ev);

		if (!to)
			return 1;
		to += s->first;
		if (!s->kind) {
			if (util_pread_all(fd, to, (size_t)s->nvals * sizeof(int64_t), s->addr))
				return 1;
			continue;
		}
		if (h5inflate_room(&z->raw, &z->raw_cap, s->size) ||
		    util_pread_all(fd, z->raw, s->size, s->addr) ||
		    h5inflate_decode(s->kind, s->chunk, z->raw, s->size, s->nvals, to, z))
			return 1;
	}
	h5direct_count++;
	return 0;
}
