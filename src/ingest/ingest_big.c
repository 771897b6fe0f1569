/*
 * ingest_big.c - a row longer than the call tree can hold (2^24 calls),
 * or a long row of a rank longer than that, summarised and encoded in
 * bounded memory (ingest_big.h).
 *
 * The readers hand such a row out a window at a time.  Each piece
 * is summarised on (rowstat_scan_add()).  A row of at most BIG_PART calls
 * (one group, below) keeps its durations in one array, summed for m2,
 * sorted and encoded at its end as a row in memory is.  A longer row's
 * durations are appended to a spool: a temporary file in $TMPDIR (else
 * /tmp), unlinked at once, 8 bytes a call.  After the last piece the
 * spool is read again:
 *  - once for the m2 of the standard deviation (rowstat_spread_add(): the
 *    same sums in the same order as for a row in memory) and a histogram
 *    of the values in 2^16 buckets, each a power of two wide;
 *  - then once for each group of neighbouring buckets holding at most
 *    BIG_PART values in all: the values in the group's range collected,
 *    sorted (util_sort_i64()) and encoded after the last group's
 *    (store_encode_durations_more()), so the blob comes out in order;
 *  - a bucket of more than BIG_PART values is split by a histogram of
 *    its own range (one more read), down to buckets of one value, which
 *    are encoded without a sort.
 * The blob is written to the spool after the durations and passed on from
 * there.  Memory: BIG_PART values and their sort's scratch (about 128 MB
 * at most), a histogram, a read buffer, whatever the row's length; the
 * spool: 8 bytes a call plus the blob.  Time: the sorted groups read the
 * spool about calls / BIG_PART times, from the page cache when it fits.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ingest/ingest_big.h"
#include "scopedb/err.h"
#include "scopedb/store.h"
#include "scopedb/util.h"

/* Values sorted at a time, and read or written at a time. */
#define BIG_PART ((uint64_t)1 << 23)
#define BIG_IO ((size_t)1 << 17)
/* Buckets of a histogram (a power of two). */
#define BIG_BUCKETS (1u << 16)

static uint64_t big_part = BIG_PART; /* testing hooks */
static unsigned big_buckets = BIG_BUCKETS;
static size_t big_io = BIG_IO;

void ingest_big_testing_sizes(uint64_t part, unsigned buckets, size_t io)
{
	big_part = part ? part : BIG_PART;
	big_buckets = buckets ? buckets : BIG_BUCKETS;
	big_io = io ? io : BIG_IO;
}

/* Open the spool and its buffer (util/spool.h: 8 bytes a call, and the
 * blob after them, about one). */
static int big_open(struct ingest_big *b, uint64_t calls)
{
	char what[64];
	int rc;

	snprintf(what, sizeof(what), "its %llu calls", (unsigned long long)calls);
	rc = spool_open(&b->sp, b->where, "9 bytes a call", what);
	if (rc)
		return rc;
	b->io_cap = big_io;
	b->io = malloc(b->io_cap * sizeof(*b->io));
	return b->io ? 0 : err_nomem();
}

/* Write n bytes at off of the spool. */
static int big_write(struct ingest_big *b, const void *p, size_t n, uint64_t off)
{
	return spool_write(&b->sp, p, n, off);
}

/* Write the buffered durations after those already spooled. */
static int big_flush(struct ingest_big *b)
{
	int rc = big_write(b, b->io, b->nio * sizeof(*b->io),
			   (b->n - b->nio) * (uint64_t)sizeof(*b->io));

	b->nio = 0;
	return rc;
}

/* Make part hold n values; it is kept from row to row (a fresh array a
 * row costs the first touch of its pages, a fifth of a 5M-call row's
 * time). */
static int big_part_reserve(struct ingest_big *b, uint64_t n)
{
	if (n <= b->part_cap)
		return 0;
	free(b->part);
	b->part_cap = 0;
	b->part = malloc((size_t)(n ? n : 1) * sizeof(*b->part));
	if (!b->part)
		return err_nomem();
	b->part_cap = n;
	return 0;
}

void ingest_big_done(struct ingest_big *b)
{
	int64_t *part = b->part;
	uint64_t cap = b->part_cap;

	b->part = NULL;
	ingest_big_release(b);
	b->part = part;
	b->part_cap = cap;
}

int ingest_big_add(struct ingest_big *b, const struct h5prof_row *row, const char *path,
		   const char *region_name)
{
	const int64_t *d = row->durations;
	uint64_t k = row->piece_len, i = 0;
	char qp[256], qr[256];
	int rc;

	if (row->piece_from == 0) {
		ingest_big_done(b);
		rowstat_scan_init(&b->scan);
		snprintf(b->where, sizeof(b->where), "cannot ingest '%s': rank %u, region '%s'",
			 util_quote_msg_buf(qp, sizeof(qp), 190, path), row->rank,
			 util_quote_msg_buf(qr, sizeof(qr), 190, region_name));
		if (row->calls <= big_part) {
			/* one group: held here, no spool */
			rc = big_part_reserve(b, row->calls);
			if (rc)
				return rc;
			b->mem = 1;
		} else {
			rc = big_open(b, row->calls);
			if (rc)
				return rc;
		}
	} else if (!b->sp.open && !b->mem) {
		return err_set(ERR_USAGE, "%s: a piece without its row's first", b->where);
	}
	rowstat_scan_add(&b->scan, d, row->starts, row->gpu, (size_t)k);
	if (b->mem) {
		if (k > row->calls - b->n)
			return err_set(ERR_USAGE, "%s: more calls than the row has", b->where);
		memcpy(b->part + b->n, d, (size_t)k * sizeof(*d));
		b->n += k;
		return 0;
	}
	while (i < k) {
		size_t take = b->io_cap - b->nio;

		if (take > k - i)
			take = (size_t)(k - i);
		memcpy(b->io + b->nio, d + i, take * sizeof(*d));
		b->nio += take;
		b->n += take;
		i += take;
		if (b->nio == b->io_cap) {
			rc = big_flush(b);
			if (rc)
				return rc;
		}
	}
	return 0;
}

/* One read of the spool's durations: fn(ctx, values, n) for each
 * buffer of them in call order. */
static int big_read(struct ingest_big *b, void (*fn)(void *ctx, const int64_t *v, size_t n),
		    void *ctx)
{
	uint64_t at = 0;

	while (at < b->n) {
		size_t want = b->n - at < b->io_cap ? (size_t)(b->n - at) : b->io_cap;
		int rc =
		    spool_read(&b->sp, "read", b->io, want * sizeof(*b->io), at * sizeof(*b->io));

		if (rc)
			return rc;
		fn(ctx, b->io, want);
		at += want;
	}
	return 0;
}

/* A histogram of the values in [lo, hi]: bucket (v - lo) >> shift. */
struct big_hist {
	int64_t lo, hi;
	unsigned shift;
	uint64_t *count;
};

/* The least shift that puts [lo, hi] in big_buckets buckets. */
static void big_hist_range(struct big_hist *h, int64_t lo, int64_t hi)
{
	uint64_t span = (uint64_t)hi - (uint64_t)lo;

	h->lo = lo;
	h->hi = hi;
	h->shift = 0;
	while (h->shift < 64 && (span >> h->shift) >= big_buckets)
		h->shift++;
}

static void big_hist_add(void *ctx, const int64_t *v, size_t n)
{
	struct big_hist *h = ctx;
	size_t i;

	for (i = 0; i < n; i++)
		if (v[i] >= h->lo && v[i] <= h->hi)
			h->count[((uint64_t)v[i] - (uint64_t)h->lo) >> h->shift]++;
}

/* The second read's work: the m2 pass and the first histogram. */
struct big_second {
	struct rowstat_spread *m;
	struct big_hist *h;
};

static void big_second_add(void *ctx, const int64_t *v, size_t n)
{
	struct big_second *s = ctx;

	rowstat_spread_add(s->m, v, n);
	big_hist_add(s->h, v, n);
}

/* Encode values[0..n) (ascending, after all encoded so far) onto the
 * blob in the spool. */
static int big_encode(struct ingest_big *b, const int64_t *v, size_t n)
{
	struct buf out = BUF_INIT;
	int rc = store_encode_durations_more(&out, &b->last, v, n);

	if (!rc)
		rc = big_write(b, out.data, out.len, b->n * sizeof(int64_t) + b->blob);
	if (!rc)
		b->blob += out.len;
	buf_release(&out);
	return rc;
}

/* A group's collection: the values in [lo, hi] into part. */
struct big_collect {
	int64_t lo, hi, *part;
	uint64_t n, cap;
};

static void big_collect_add(void *ctx, const int64_t *v, size_t n)
{
	struct big_collect *c = ctx;
	uint64_t span = (uint64_t)c->hi - (uint64_t)c->lo, at = c->n;
	size_t i;

	if (c->cap - at >= n) {
		/* room for all n: each value written, kept when in range (no
		 * branch on where a value falls: that is unpredictable) */
		for (i = 0; i < n; i++) {
			c->part[at] = v[i];
			at += (uint64_t)v[i] - (uint64_t)c->lo <= span;
		}
		c->n = at;
		return;
	}
	for (i = 0; i < n; i++)
		if ((uint64_t)v[i] - (uint64_t)c->lo <= span && c->n++ < c->cap)
			c->part[c->n - 1] = v[i];
}

/* The count values in [lo, hi] (count <= big_part) sorted onto the blob. */
static int big_group(struct ingest_big *b, int64_t lo, int64_t hi, uint64_t count)
{
	struct big_collect c = {lo, hi, b->part, 0, b->part_cap};
	int rc;

	if (!count)
		return 0;
	if (lo == hi) {
		/* one value: no read, no sort */
		uint64_t left = count;

		while (left) {
			size_t k = left < b->io_cap ? (size_t)left : b->io_cap, i;

			for (i = 0; i < k; i++)
				b->io[i] = lo;
			rc = big_encode(b, b->io, k);
			if (rc)
				return rc;
			left -= k;
		}
		return 0;
	}
	rc = big_read(b, big_collect_add, &c);
	if (rc)
		return rc;
	if (c.n != count || count > big_part)
		return spool_error(&b->sp, "read back", 0);
	util_sort_i64(b->part, (size_t)count);
	return big_encode(b, b->part, (size_t)count);
}

/*
 * The values of h's range, every bucket counted, onto the blob in order:
 * neighbouring buckets grouped up to big_part values, a bucket of more
 * split by a histogram of its own (one more read; each level narrows the
 * range by the number of buckets, so it ends at one value a bucket).
 */
static int big_split(struct ingest_big *b, const struct big_hist *h)
{
	uint64_t span = (uint64_t)h->hi - (uint64_t)h->lo, last = span >> h->shift;
	uint64_t wide = ((uint64_t)1 << h->shift) - 1, group = 0, j;
	int64_t glo = h->lo;
	int rc = 0;

	for (j = 0; j <= last && !rc; j++) {
		uint64_t c = h->count[j], off = j << h->shift;
		int64_t blo = (int64_t)((uint64_t)h->lo + off);
		int64_t bhi = span - off <= wide ? h->hi : (int64_t)((uint64_t)blo + wide);

		if (group && group + c > big_part) {
			rc = big_group(b, glo, blo - 1, group);
			group = 0;
		}
		if (!group)
			glo = blo;
		if (rc || c <= big_part) {
			group += c;
			continue;
		}
		if (blo == bhi) {
			rc = big_group(b, blo, bhi, c);
		} else {
			struct big_hist sub;

			sub.count = calloc(big_buckets, sizeof(*sub.count));
			if (!sub.count)
				return err_nomem();
			big_hist_range(&sub, blo, bhi);
			rc = big_read(b, big_hist_add, &sub);
			if (!rc)
				rc = big_split(b, &sub);
			free(sub.count);
		}
	}
	if (!rc && group)
		rc = big_group(b, glo, h->hi, group);
	return rc;
}

/* ingest_big_end() of a row held in memory (one group's calls at most):
 * the same summary and blob, from the durations in b->part. */
static int big_end_held(struct ingest_big *b, struct rowstat *rs, const char *path,
			const char *region_name, uint32_t rank)
{
	struct rowstat_spread m;
	int rc = rowstat_scan_end(rs, &m, &b->scan, path, rank, region_name);

	if (rc)
		return rc;
	rowstat_spread_add(&m, b->part, (size_t)b->n);
	rowstat_spread_end(rs, &m);
	util_sort_i64(b->part, (size_t)b->n);
	b->held.len = 0;
	return store_encode_durations(&b->held, b->part, (size_t)b->n);
}

int ingest_big_end(struct ingest_big *b, struct rowstat *rs, const char *path,
		   const char *region_name, uint32_t rank, uint64_t *off, uint64_t *len)
{
	struct rowstat_spread m;
	struct big_hist h = {0};
	struct big_second s = {&m, &h};
	struct buf head = BUF_INIT;
	int rc;

	*off = *len = 0;
	if (b->mem)
		return big_end_held(b, rs, path, region_name, rank);
	if (!b->sp.open)
		return err_set(ERR_USAGE, "no row to end");
	rc = big_flush(b);
	if (!rc)
		rc = rowstat_scan_end(rs, &m, &b->scan, path, rank, region_name);
	if (rc)
		return rc;
	h.count = calloc(big_buckets, sizeof(*h.count));
	if (!h.count || big_part_reserve(b, b->n < big_part ? b->n : big_part)) {
		rc = err_nomem();
		goto out;
	}
	big_hist_range(&h, b->scan.mn, b->scan.mx);
	rc = big_read(b, big_second_add, &s);
	if (rc)
		goto out;
	rowstat_spread_end(rs, &m);
	b->blob = 0;
	b->last = 0;
	rc = store_encode_durations_head(&head, b->n);
	if (!rc)
		rc = big_write(b, head.data, head.len, b->n * sizeof(int64_t));
	if (rc)
		goto out;
	b->blob = head.len;
	rc = big_split(b, &h);
	if (!rc) {
		*off = b->n * sizeof(int64_t);
		*len = b->blob;
	}
out:
	buf_release(&head);
	free(h.count);
	return rc;
}

void ingest_big_release(struct ingest_big *b)
{
	if (!b)
		return;
	spool_close(&b->sp);
	free(b->io);
	free(b->part);
	buf_release(&b->held);
	memset(b, 0, sizeof(*b));
}
