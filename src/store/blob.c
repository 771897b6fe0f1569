/*
 * blob.c - encoding and decoding of sorted call durations (format in
 * blob.h): a version byte, the count, then the first value and the gaps
 * between consecutive values as unsigned LEB128 varints.  Sorted durations
 * of one region are close together, so most gaps take one or two bytes.
 *
 * The encoder writes in one pass into a worst-case reservation (measuring
 * first only for very long rows).  The decoder runs over untrusted bytes (the
 * store can be edited or damaged): every byte read is bounds-checked, varints
 * must be minimal (so every valid blob has exactly one encoding), the count
 * is checked against the bytes before anything is allocated, the running sum
 * may not exceed INT64_MAX, and trailing bytes are refused.  One- and
 * two-byte gaps, the common cases, take a short branch-free path.  On error the output
 * vector is left as it was.  The encoder, decoder and counter are also
 * store.h's store_encode_durations(), store_decode_durations() and
 * store_count_durations(), for ingest.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "store/blob.h"
#include "scopedb/err.h"
#include "scopedb/store.h"

#define BLOB_VERSION 1
/* A 64-bit value needs at most 10 groups of 7 bits. */
#define VARINT_MAX 10

enum varint_status { VARINT_OK, VARINT_TRUNCATED, VARINT_OVERLONG, VARINT_TOO_BIG };

static size_t varint_len(uint64_t x)
{
	size_t n = 1;

	while (x >= 0x80) {
		x >>= 7;
		n++;
	}
	return n;
}

static uint8_t *varint_put(uint8_t *p, uint64_t x)
{
	while (x >= 0x80) {
		*p++ = (uint8_t)(x | 0x80);
		x >>= 7;
	}
	*p++ = (uint8_t)x;
	return p;
}

/*
 * Read one varint from [*pp, end).  Refuses a varint running past end, one
 * with a redundant final zero group (overlong), and one whose tenth byte
 * carries more than the single remaining bit of a 64-bit value.
 */
static enum varint_status varint_get(const uint8_t **pp, const uint8_t *end, uint64_t *out)
{
	const uint8_t *p = *pp;
	uint64_t x = 0;
	unsigned shift = 0;
	uint8_t b;

	for (;;) {
		if (p == end)
			return VARINT_TRUNCATED;
		b = *p++;
		if (shift == 7 * (VARINT_MAX - 1) && b > 1)
			return (b & 0x80) ? VARINT_OVERLONG : VARINT_TOO_BIG;
		x |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			break;
		shift += 7;
	}
	if (b == 0 && shift > 0)
		return VARINT_OVERLONG;
	*pp = p;
	*out = x;
	return VARINT_OK;
}

static int varint_error(enum varint_status st)
{
	switch (st) {
	case VARINT_TRUNCATED:
		return err_set(ERR_FORMAT, "corrupt durations blob: truncated");
	case VARINT_OVERLONG:
		return err_set(ERR_FORMAT, "corrupt durations blob: overlong varint");
	default:
		return err_set(ERR_FORMAT, "corrupt durations blob: varint exceeds 64 bits");
	}
}

/*
 * Rows of up to BLOB_ONE_PASS values are encoded in one pass into a
 * worst-case reservation (10 bytes a value); longer ones are measured first
 * so that a huge row does not reserve 10 bytes per value.  One-byte gaps,
 * the common case, take a short path.
 */
#define BLOB_ONE_PASS 65536

int store_encode_durations(struct buf *out, const int64_t *sorted, size_t n)
{
	return blob_encode(out, sorted, n);
}

int store_decode_durations(struct i64vec *out, const void *data, size_t len)
{
	return blob_decode_append(out, data, len);
}

int store_count_durations(uint64_t *out, const void *data, size_t len)
{
	return blob_count(out, data, len);
}

int store_encode_durations_head(struct buf *out, uint64_t n)
{
	return blob_encode_head(out, n);
}

int store_encode_durations_more(struct buf *out, int64_t *last, const int64_t *sorted, size_t n)
{
	return blob_encode_more(out, last, sorted, n);
}

int store_select_durations(int64_t *out, const uint64_t *ranks, size_t nranks,
			   const void *const *data, const size_t *lens, size_t nblobs)
{
	return blob_select(out, ranks, nranks, data, lens, nblobs);
}

int blob_encode_head(struct buf *out, uint64_t n)
{
	uint8_t h[1 + VARINT_MAX], *p = h;

	*p++ = BLOB_VERSION;
	p = varint_put(p, n);
	return buf_add(out, h, (size_t)(p - h));
}

int blob_encode_more(struct buf *out, int64_t *last, const int64_t *sorted, size_t n)
{
	size_t size, i, at = out->len;
	int64_t prev = *last;
	uint8_t *p, *start;

	if (!n)
		return 0;
	if (n > (SIZE_MAX - 1 - VARINT_MAX) / VARINT_MAX)
		return err_nomem();
	if (n <= BLOB_ONE_PASS) {
		size = n * VARINT_MAX;
	} else {
		size = 0;
		for (i = 0; i < n; i++) {
			if (sorted[i] < prev)
				break;
			size += varint_len((uint64_t)(sorted[i] - prev));
			prev = sorted[i];
		}
		prev = *last;
	}
	if (buf_grow(out, size))
		return ERR_NOMEM;
	start = p = (uint8_t *)out->data + at;
	for (i = 0; i < n; i++) {
		uint64_t gap = (uint64_t)sorted[i] - (uint64_t)prev;

		if (sorted[i] < prev) {
			*start = '\0'; /* out stays as it was */
			return err_set(ERR_USAGE,
				       sorted[i] < 0
					   ? "cannot encode durations: value %zu is negative"
					   : "cannot encode durations: value %zu is not sorted",
				       i);
		}
		if (gap < 0x80)
			*p++ = (uint8_t)gap;
		else
			p = varint_put(p, gap);
		prev = sorted[i];
	}
	out->len += (size_t)(p - start);
	out->data[out->len] = '\0';
	*last = prev;
	return 0;
}

int blob_encode(struct buf *out, const int64_t *sorted, size_t n)
{
	size_t at = out->len;
	int64_t last = 0;
	int rc = blob_encode_head(out, n);

	if (!rc)
		rc = blob_encode_more(out, &last, sorted, n);
	if (rc && out->data) {
		out->len = at;
		out->data[at] = '\0';
	}
	return rc;
}

/* Parse the header: *p is left at the first value, *out = count.  The
 * count is refused when the remaining bytes cannot hold that many values. */
static int blob_header(uint64_t *out, const uint8_t **p, const uint8_t *end)
{
	enum varint_status vs;

	*out = 0;
	if (*p == end)
		return err_set(ERR_FORMAT, "corrupt durations blob: truncated");
	if (**p != BLOB_VERSION)
		return err_set(ERR_FORMAT, "corrupt durations blob: unsupported version %u",
			       (unsigned)**p);
	(*p)++;
	vs = varint_get(p, end, out);
	if (vs != VARINT_OK)
		return varint_error(vs);
	if (*out > (uint64_t)(end - *p))
		return err_set(ERR_FORMAT,
			       "corrupt durations blob: claims %llu values in %zu bytes; truncated",
			       (unsigned long long)*out, (size_t)(end - *p));
	return 0;
}

int blob_count(uint64_t *out, const void *data, size_t len)
{
	const uint8_t *p = data;

	if (!len) /* data may be NULL */
		return blob_header(out, &p, p);
	return blob_header(out, &p, p + len);
}

/* The errors of a blob whose i-th value overflows int64, or that goes on
 * after its last value. */
static int blob_overflow(uint64_t i)
{
	return err_set(ERR_FORMAT, "corrupt durations blob: value %llu overflows int64",
		       (unsigned long long)i);
}

/* *sum += d, the i-th value's gap, unless that overflows int64. */
static inline int blob_sum(uint64_t *sum, uint64_t d, uint64_t i)
{
	if (d > (uint64_t)INT64_MAX - *sum)
		return blob_overflow(i);
	*sum += d;
	return 0;
}

static int blob_trailing(const uint8_t *p, const uint8_t *end)
{
	return err_set(ERR_FORMAT, "corrupt durations blob: %zu trailing bytes", (size_t)(end - p));
}

/* Read the i-th value's gap at *pp into *sum (the running value).  One-
 * or two-byte gaps, the common cases, go without a branch on which (their
 * mix is unpredictable in sorted durations); anything else (longer, or a
 * non-minimal second byte) is rare and goes the checked way. */
static inline int blob_step(const uint8_t **pp, const uint8_t *end, uint64_t *sum, uint64_t i)
{
	const uint8_t *p = *pp;
	enum varint_status vs;
	uint64_t d;

	if (end - p >= 2) {
		uint64_t b0 = p[0], b1 = p[1], two = b0 >> 7;

		if (!two || (b1 < 0x80 && b1 != 0)) {
			d = (b0 & 0x7f) | ((b1 << 7) & (0 - two));
			*pp = p + 1 + two;
			return blob_sum(sum, d, i);
		}
	}
	if (p < end && *p < 0x80) {
		d = *p++;
	} else if (end - p >= 2 && p[1] < 0x80 && p[1] != 0) {
		/* two bytes, minimal because the high group is not 0 */
		d = (uint64_t)(p[0] & 0x7f) | (uint64_t)p[1] << 7;
		p += 2;
	} else {
		vs = varint_get(&p, end, &d);
		if (vs != VARINT_OK)
			return varint_error(vs);
	}
	*pp = p;
	return blob_sum(sum, d, i);
}

/* Decode the n values after the header (p, end) into v[0..n). */
static int blob_decode_values(int64_t *v, uint64_t n, const uint8_t *p, const uint8_t *end)
{
	uint64_t i, sum = 0;

	for (i = 0; i < n; i++) {
		if (blob_step(&p, end, &sum, i))
			return ERR_FORMAT;
		v[i] = (int64_t)sum;
	}
	if (p != end)
		return blob_trailing(p, end);
	return 0;
}

int blob_decode_append(struct i64vec *out, const void *data, size_t len)
{
	const uint8_t *p = data, *end = len ? p + len : p; /* data may be NULL */
	uint64_t n;
	int ret;

	ret = blob_header(&n, &p, end);
	if (ret)
		return ret;
	/* n <= len, so n fits in size_t and the reserve is bounded by the
	 * input size. */
	if ((size_t)n > SIZE_MAX - out->len)
		return err_nomem();
	if (i64vec_reserve(out, out->len + (size_t)n))
		return ERR_NOMEM;
	/* out->v is still NULL when n == 0 and out was empty: no arithmetic on it */
	ret = blob_decode_values(out->v ? out->v + out->len : NULL, n, p, end);
	if (ret)
		return ret;
	out->len += (size_t)n;
	return 0;
}

int blob_decode_to(int64_t *out, size_t cap, size_t *n, const void *data, size_t len)
{
	const uint8_t *p = data, *end = len ? p + len : p;
	uint64_t count;
	int ret;

	*n = 0;
	ret = blob_header(&count, &p, end);
	if (ret)
		return ret;
	if (count > cap)
		return err_set(ERR_FORMAT,
			       "corrupt durations blob: %llu values, expected at most %zu",
			       (unsigned long long)count, cap);
	ret = blob_decode_values(out, count, p, end);
	if (!ret)
		*n = (size_t)count;
	return ret;
}

int blob_stats(struct blob_stats *out, const void *data, size_t len)
{
	const uint8_t *p = data, *end = len ? p + len : p;
	enum varint_status vs;
	uint64_t n, i, d, v = 0;
	int ret;

	memset(out, 0, sizeof(*out));
	ret = blob_header(&n, &p, end);
	for (i = 0; !ret && i < n; i++) {
		vs = varint_get(&p, end, &d);
		if (vs != VARINT_OK)
			return varint_error(vs);
		if (blob_sum(&v, d, i))
			return ERR_FORMAT;
		if (i == 0)
			out->min = (int64_t)v;
		/* saturate: a sum past int64 cannot match any stored total */
		out->sum = (uint64_t)out->sum + v > (uint64_t)INT64_MAX ? INT64_MAX
									: out->sum + (int64_t)v;
	}
	if (!ret && p != end)
		ret = blob_trailing(p, end);
	if (!ret) {
		out->count = n;
		out->max = (int64_t)v;
	}
	return ret;
}

/* One blob of blob_select(), read a value at a time: the next byte, the
 * values it holds and has given, and the last value given. */
struct blob_cur {
	const uint8_t *p, *end;
	uint64_t n, i, v;
};

/* The next value of c into c->v (c->i < c->n); past its last value, its
 * bytes must end there. */
static int blob_cur_next(struct blob_cur *c)
{
	if (blob_step(&c->p, c->end, &c->v, c->i))
		return ERR_FORMAT;
	c->i++;
	if (c->i == c->n && c->p != c->end)
		return blob_trailing(c->p, c->end);
	return 0;
}

/* Restore the heap order of h[0..n) (indices into cur, least value on
 * top) below position at. */
static void blob_sift(size_t *h, size_t n, size_t at, const struct blob_cur *cur)
{
	size_t top = h[at];

	for (;;) {
		size_t k = 2 * at + 1;

		if (k >= n)
			break;
		if (k + 1 < n && cur[h[k + 1]].v < cur[h[k]].v)
			k++;
		if (cur[h[k]].v >= cur[top].v)
			break;
		h[at] = h[k];
		at = k;
	}
	h[at] = top;
}

/*
 * The merge of blob_select(): the blobs' values in ascending order off a
 * heap of their cursors, the ranks' values noted on the way; then the rest
 * of every blob read through, so that each is checked whole.
 */
static int blob_merge(int64_t *out, const uint64_t *ranks, size_t nranks, struct blob_cur *cur,
		      size_t *h, size_t nh)
{
	uint64_t r = 0;
	size_t j = 0, i;

	for (i = nh / 2; i-- > 0;)
		blob_sift(h, nh, i, cur);
	while (j < nranks && nh) {
		struct blob_cur *c = &cur[h[0]];

		while (j < nranks && ranks[j] == r)
			out[j++] = (int64_t)c->v;
		r++;
		if (c->i < c->n) {
			if (blob_cur_next(c))
				return ERR_FORMAT;
		} else {
			h[0] = h[--nh];
		}
		if (nh > 1)
			blob_sift(h, nh, 0, cur);
	}
	if (j < nranks)
		return err_set(ERR_USAGE, "rank %llu beyond the %llu values",
			       (unsigned long long)ranks[j], (unsigned long long)r);
	for (i = 0; i < nh; i++)
		while (cur[h[i]].i < cur[h[i]].n)
			if (blob_cur_next(&cur[h[i]]))
				return ERR_FORMAT;
	return 0;
}

int blob_select(int64_t *out, const uint64_t *ranks, size_t nranks, const void *const *data,
		const size_t *lens, size_t nblobs)
{
	struct blob_cur *cur = NULL;
	size_t *h = NULL, nh = 0, i;
	int rc = 0;

	for (i = 1; i < nranks; i++)
		if (ranks[i] < ranks[i - 1])
			return err_set(ERR_USAGE, "ranks not in order");
	cur = calloc(nblobs ? nblobs : 1, sizeof(*cur));
	h = calloc(nblobs ? nblobs : 1, sizeof(*h));
	if (!cur || !h) {
		rc = err_nomem();
		goto out;
	}
	for (i = 0; i < nblobs; i++) {
		struct blob_cur *c = &cur[i];

		c->p = data[i];
		c->end = lens[i] ? c->p + lens[i] : c->p; /* data may be NULL */
		rc = blob_header(&c->n, &c->p, c->end);
		if (rc)
			goto out;
		if (!c->n && c->p != c->end) {
			rc = blob_trailing(c->p, c->end);
			goto out;
		}
		if (!c->n)
			continue;
		rc = blob_cur_next(c);
		if (rc)
			goto out;
		h[nh++] = i;
	}
	rc = blob_merge(out, ranks, nranks, cur, h, nh);
out:
	free(cur);
	free(h);
	return rc;
}
