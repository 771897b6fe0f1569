/*
 * util.c - growable buffers, a fast int64 sort and small string helpers
 * used across the core, and mapped scratch memory.
 */
/* MAP_ANONYMOUS and MADV_HUGEPAGE are not POSIX 2008. */
#define _DEFAULT_SOURCE
#include <assert.h>
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "scopedb/err.h"
#include "scopedb/util.h"

#if defined(MADV_HUGEPAGE) || defined(MADV_DONTNEED)
/* The page size, asked each time: a few calls per file, and no static
 * shared by threads. */
static uintptr_t util_page_size(void)
{
	long ps = sysconf(_SC_PAGESIZE);

	return ps > 0 ? (uintptr_t)ps : 4096;
}
#endif

/*
 * Transparent huge pages for a large block of the heap, asked for before
 * most of it is first written.  Ingest's big arrays (the frames one
 * file's reader sends, a rank's calls and the call tree's sort scratch, a
 * long row's buffers) are written once, some scattered by radix sorts:
 * with small pages every page is a fault and a radix pass misses the TLB
 * on nearly every store.  Every page the block lies on is advised, up to
 * the end of what malloc gave (malloc_usable_size(), which for a block of
 * its own mapping is the mapping's end): advising part of a mapping would
 * split it, and realloc() could then no longer mremap() it but would copy
 * it, needing the old and the new block at once.  A hint: without THP,
 * or when madvise() fails, nothing changes.
 */
void util_huge_hint(void *p, size_t bytes)
{
#ifdef MADV_HUGEPAGE
	uintptr_t page, a, b;

	if (!p || bytes < UTIL_HUGE_MIN)
		return;
	page = util_page_size();
#ifdef __GLIBC__
	{
		size_t usable = malloc_usable_size(p);

		if (usable > bytes)
			bytes = usable;
	}
#endif
	a = (uintptr_t)p & ~(page - 1);
	b = ((uintptr_t)p + bytes + page - 1) & ~(page - 1);
	(void)madvise((void *)a, b - a, MADV_HUGEPAGE);
#else
	(void)p;
	(void)bytes;
#endif
}

void util_release_pages(void *p, size_t bytes)
{
#ifdef MADV_DONTNEED
	uintptr_t page = util_page_size();
	uintptr_t a = ((uintptr_t)p + page - 1) & ~(page - 1);
	uintptr_t b = ((uintptr_t)p + bytes) & ~(page - 1);

	if (p && b > a)
		(void)madvise((void *)a, b - a, MADV_DONTNEED);
#else
	(void)p;
	(void)bytes;
#endif
}

/*
 * The one growth rule of every growable array: *arrp (a pointer to the
 * array pointer, elements of size bytes, capacity *cap elements) is
 * reallocated to hold at least need elements, doubling from first, so
 * appends cost amortized O(1).  Nothing moves when need <= *cap.  A first
 * of 0 counts as 1 (doubling 0 would never reach need); size must be > 0.
 */
int util_grow(void *arrp, size_t *cap, size_t need, size_t size, size_t first)
{
	void *arr, *p;
	size_t n;

	assert(size > 0);
	if (need <= *cap)
		return 0;
	n = *cap ? *cap : first ? first : 1;
	while (n < need)
		n = n > SIZE_MAX / 4 ? need : n * 2;
	if (n > SIZE_MAX / size)
		return err_nomem();
	memcpy(&arr, arrp, sizeof(arr));
	p = realloc(arr, n * size);
	if (!p)
		return err_nomem();
	memcpy(arrp, &p, sizeof(p));
	*cap = n;
	util_huge_hint(p, n * size);
	return 0;
}

/* Append one zeroed element to the array *arrp of *len elements. */
void *util_push(void *arrp, size_t *cap, size_t *len, size_t size)
{
	char *arr;

	if (*len == SIZE_MAX || util_grow(arrp, cap, *len + 1, size, 16))
		return NULL;
	memcpy(&arr, arrp, sizeof(arr));
	arr += *len * size;
	memset(arr, 0, size);
	(*len)++;
	return arr;
}

void buf_init(struct buf *b)
{
	b->data = NULL;
	b->len = 0;
	b->cap = 0;
}

void buf_release(struct buf *b)
{
	free(b->data);
	buf_init(b);
}

int buf_grow(struct buf *b, size_t extra)
{
	if (extra > SIZE_MAX - b->len - 1)
		return err_nomem();
	return util_grow(&b->data, &b->cap, b->len + extra + 1, 1, 64);
}

int buf_add(struct buf *b, const void *data, size_t len)
{
	if (buf_grow(b, len))
		return ERR_NOMEM;
	if (len)
		memcpy(b->data + b->len, data, len);
	b->len += len;
	b->data[b->len] = '\0';
	return 0;
}

int buf_puts(struct buf *b, const char *s)
{
	return buf_add(b, s, strlen(s));
}

int buf_putc(struct buf *b, char c)
{
	return buf_add(b, &c, 1);
}

int buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return err_set(ERR_GENERIC, "formatting failed");
	if (buf_grow(b, (size_t)n))
		return ERR_NOMEM;
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
	return 0;
}

char *buf_detach(struct buf *b)
{
	char *s = b->data;

	if (!s)
		s = calloc(1, 1);
	buf_init(b);
	return s;
}

void i64vec_init(struct i64vec *a)
{
	a->v = NULL;
	a->len = 0;
	a->cap = 0;
}

void i64vec_release(struct i64vec *a)
{
	free(a->v);
	i64vec_init(a);
}

size_t i64vec_unique(struct i64vec *a)
{
	size_t i, k = 0;

	util_sort_i64(a->v, a->len);
	for (i = 0; i < a->len; i++)
		if (!k || a->v[i] != a->v[k - 1])
			a->v[k++] = a->v[i];
	return a->len = k;
}

int i64vec_reserve(struct i64vec *a, size_t n)
{
	return util_grow(&a->v, &a->cap, n, sizeof(int64_t), 16);
}

int i64vec_reserve_exact(struct i64vec *a, size_t n)
{
	int64_t *p;

	if (n <= a->cap)
		return 0;
	if (n > SIZE_MAX / sizeof(*p))
		return err_nomem();
	p = realloc(a->v, n * sizeof(*p));
	if (!p)
		return err_nomem();
	a->v = p;
	a->cap = n;
	util_huge_hint(p, n * sizeof(*p));
	return 0;
}

int i64vec_push(struct i64vec *a, int64_t x)
{
	if (a->len == a->cap && i64vec_reserve(a, a->len + 1))
		return ERR_NOMEM;
	a->v[a->len++] = x;
	return 0;
}

void *util_calloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	if (!p)
		err_nomem();
	return p;
}

char *buf_finish(struct buf *b, int failed)
{
	if (failed) {
		buf_release(b);
		return NULL;
	}
	return buf_detach(b);
}

int util_strptr_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

void *util_sorted_ptrs(const void *base, size_t n, size_t size,
		       int (*cmp)(const void *, const void *))
{
	const void **p = util_calloc(n, sizeof(*p));
	size_t i;

	if (!p)
		return NULL;
	for (i = 0; i < n; i++)
		p[i] = (const char *)base + i * size;
	qsort(p, n, sizeof(*p), cmp);
	return p;
}

int64_t util_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

size_t util_utf8_len(const char *s)
{
	unsigned cp;

	return util_utf8_decode(s, &cp);
}

size_t util_utf8_decode(const char *str, unsigned *out)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n, i;
	unsigned cp;

	if (s[0] < 0x80) {
		*out = s[0];
		return 1;
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2, cp = s[0] & 0x1fu;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, cp = s[0] & 0x0fu;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, cp = s[0] & 0x07u;
	else
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3fu);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	*out = cp;
	return n;
}

/* 1 when the byte at s (within name) must be escaped in a joined path:
 * a backslash, or a '>' that the " > " between names could take for its
 * own: one with a space or the name's start before it and a space or the
 * name's end after it (a root "x >" calling "y" and a root "x" calling
 * "> y" would both read "x > > y"). */
static int util_path_escaped(const char *name, const char *s)
{
	return *s == '\\' ||
	       (*s == '>' && (s == name || s[-1] == ' ') && (s[1] == ' ' || s[1] == '\0'));
}

size_t util_path_name_len(const char *name)
{
	const char *s;
	size_t n = 0;

	for (s = name; *s; s++)
		n += 1 + (size_t)util_path_escaped(name, s);
	return n;
}

char *util_path_name_put(char *dst, const char *name)
{
	const char *s;

	for (s = name; *s; s++) {
		if (util_path_escaped(name, s))
			*dst++ = '\\';
		*dst++ = *s;
	}
	return dst;
}

int util_path_split(const char *joined, char ***names, size_t *n)
{
	size_t len = strlen(joined), k = 1, i;
	char **v, *out;

	for (i = 0; i < len; i++) {
		if (joined[i] == '\\' && joined[i + 1])
			i++;
		else if (!strncmp(joined + i, " > ", 3))
			k++, i += 2;
	}
	/* the names are no longer than the text, with a NUL each */
	v = malloc(k * sizeof(*v) + len + k);
	if (!v)
		return err_nomem();
	out = (char *)(v + k);
	v[0] = out;
	for (i = 0, k = 1; i < len; i++) {
		if (joined[i] == '\\' && joined[i + 1]) {
			*out++ = joined[++i];
		} else if (!strncmp(joined + i, " > ", 3)) {
			*out++ = '\0';
			v[k++] = out;
			i += 2;
		} else {
			*out++ = joined[i];
		}
	}
	*out = '\0';
	*names = v;
	*n = k;
	return 0;
}

const char *util_utf8_bad(const char *s)
{
	size_t n;

	for (; *s; s += n) {
		if ((unsigned char)*s < 0x80) {
			n = 1;
			continue;
		}
		n = util_utf8_len(s);
		if (!n)
			return s;
	}
	return NULL;
}

const char *util_field(const char **p, char sep, size_t *len)
{
	const char *f = *p, *end;

	if (!*f)
		return NULL;
	end = strchr(f, sep);
	if (!end)
		end = f + strlen(f);
	*len = (size_t)(end - f);
	*p = *end ? end + 1 : end;
	return f;
}

char *util_strdup(const char *s)
{
	char *d;
	size_t n;

	if (!s)
		return NULL;
	n = strlen(s) + 1;
	d = malloc(n);
	if (!d) {
		err_nomem();
		return NULL;
	}
	memcpy(d, s, n);
	return d;
}

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/*
 * LSD radix sort (ingest sorts every row's durations; issue 6).  The keys
 * are taken relative to the minimum, so only the bytes in which values
 * actually differ get a pass (durations of one region usually span two or
 * three bytes), and all histograms are counted in one read of the data.
 * Small arrays use insertion sort, rows up to 4096 values a stack scratch
 * buffer; qsort is the fallback when the scratch cannot be allocated.
 */
#define SORT_STACK 4096

/* An array of this many values or more is dealt into parts first
 * (sort_i64_parts()); util_sort_testing_parts() lowers it for the tests. */
#define SORT_PARTS_MIN ((size_t)1 << 22)
static size_t sort_parts_min = SORT_PARTS_MIN;
static size_t sort_parts_done; /* sorts dealt into parts, for the tests */

size_t util_sort_testing_parts(size_t n)
{
	size_t done = sort_parts_done;

	sort_parts_min = n ? n : SORT_PARTS_MIN;
	sort_parts_done = 0;
	return done;
}

/* The bucket of k, a value less the minimum, in one of two layouts that
 * keep the values' order.  Log (shift < 0): k itself below 1024, else its
 * bit length and the 9 bits below its top bit, as an HDR histogram lays
 * them out, so one far outlier above the rest takes a bucket of its own
 * (in equal widths, a row of 1 us calls and one of 1 s falls in one).
 * Linear (shift >= 0): k >> shift, 2^16 buckets of equal width over the
 * range, for the mirror case (1 s calls and one of 1 us, which the log
 * layout puts in one bucket). */
static inline size_t sort_bucket(uint64_t k, int shift)
{
	unsigned e;

	if (shift >= 0)
		return (size_t)(k >> shift);
	e = k ? 64 - (unsigned)__builtin_clzll(k) : 0;
	return e <= 10 ? (size_t)k : 1024 + ((size_t)(e - 11) << 9) + ((k >> (e - 10)) & 511);
}

/* Group buckets cnt[0..nb) in order into parts of about target values:
 * part[b] is bucket b's part, end[p] part p's size; returns the number of
 * parts, *big the largest. */
static size_t sort_group(const size_t *cnt, size_t nb, size_t target, uint16_t *part, size_t *end,
			 size_t *big)
{
	size_t b, acc = 0, np = 0;

	for (b = 0; b < nb; b++) {
		if (acc && acc + cnt[b] > target) {
			end[np++] = acc;
			acc = 0;
		}
		part[b] = (uint16_t)np;
		acc += cnt[b];
	}
	end[np++] = acc;
	for (*big = 0, b = 0; b < np; b++)
		*big = end[b] > *big ? end[b] : *big;
	return np;
}

static void sort_i64(int64_t *out, const int64_t *in, size_t n, uint64_t *scratch);

/*
 * A large sort with a scratch of about a sixteenth of the values instead of
 * all of them (issue 26: a row of 100M calls has 800 MB of durations, and
 * the radix sort's scratch was 800 MB more).  The values are counted in
 * buckets of both layouts of sort_bucket() in one pass, the buckets of each
 * grouped in order into parts of about n / 16 values, the layout whose
 * largest part is smaller kept, each value dealt from in into its part of
 * out (in place when in is out: each value swapped into the next free slot
 * of its part until every slot holds one of its own, the step of McIlroy,
 * Bostic and McIlroy's American flag sort), and each part sorted where it
 * lies, with one scratch of the largest part's size, mapped for the sort
 * and unmapped after (from malloc, its pages would stay with the process).
 * Returns 0 when done, or 1, with out untouched, when it would not help
 * (a part of more than half the values in both layouts: a narrow spike, or
 * a cluster with far outliers on both sides) or its memory cannot be had:
 * the caller sorts as before.
 */
static int sort_i64_parts(int64_t *out, const int64_t *in, size_t n, int64_t mn, uint64_t range)
{
	unsigned bits = 64 - (unsigned)__builtin_clzll(range);
	int shift = bits > 16 ? (int)bits - 16 : 0, sh;
	size_t nlin = (size_t)(range >> shift) + 1, nlog = sort_bucket(range, -1) + 1;
	size_t target = n / 16 + 1, acc, big = 0, blog;
	size_t *cnt = calloc(nlin + nlog, sizeof(*cnt)),
	       *end = malloc((nlin + nlog + 2) * sizeof(*end));
	uint16_t *part = malloc((nlin + nlog) * sizeof(*part));
	uint64_t *scratch = NULL;
	size_t i, b, np, nplog;
	int rc = 1;

	if (!cnt || !end || !part)
		goto out;
	for (i = 0; i < n; i++) {
		uint64_t k = (uint64_t)in[i] - (uint64_t)mn;

		cnt[k >> shift]++;
		cnt[nlin + sort_bucket(k, -1)]++;
	}
	/* linear parts first in part[], end[]; log ones after them */
	np = sort_group(cnt, nlin, target, part, end, &big);
	nplog = sort_group(cnt + nlin, nlog, target, part + nlin, end + nlin + 1, &blog);
	sh = shift;
	if (blog < big) {
		memmove(part, part + nlin, nlog * sizeof(*part));
		memmove(end, end + nlin + 1, nplog * sizeof(*end));
		np = nplog;
		big = blog;
		sh = -1;
	}
	if (big > n / 2 || !(scratch = util_scratch_alloc(big * sizeof(*scratch))))
		goto out;
	/* each part's next free slot, from its start; after the deal, its
	 * end; cnt[] now holds those ends */
	for (b = 0, acc = 0; b < np; b++) {
		size_t len = end[b];

		end[b] = acc;
		acc += len;
		cnt[b] = acc;
	}
	if (in != out) {
		for (i = 0; i < n; i++)
			out[end[part[sort_bucket((uint64_t)in[i] - (uint64_t)mn, sh)]]++] = in[i];
	} else {
		/* part b's free slots are end[b] up to cnt[b], and as many of
		 * its values lie elsewhere */
		for (b = 0; b < np; b++) {
			while (end[b] < cnt[b]) {
				int64_t v = out[end[b]], t;
				size_t q = part[sort_bucket((uint64_t)v - (uint64_t)mn, sh)];

				while (q != b) {
					t = out[end[q]];
					out[end[q]++] = v;
					v = t;
					q = part[sort_bucket((uint64_t)v - (uint64_t)mn, sh)];
				}
				out[end[b]++] = v;
			}
		}
	}
	for (b = 0, acc = 0; b < np; b++) {
		sort_i64(out + acc, out + acc, end[b] - acc, scratch);
		acc = end[b];
	}
	rc = 0;
	sort_parts_done++;
out:
	free(cnt);
	free(end);
	free(part);
	util_scratch_free(scratch, big * sizeof(*scratch));
	return rc;
}

/* Sort in[0..n) into out[0..n); in may be out.  scratch: n values the
 * radix passes may use, or NULL (then a stack buffer or malloc). */
static void sort_i64(int64_t *out, const int64_t *in, size_t n, uint64_t *scratch)
{
	uint64_t stack[SORT_STACK], *a = (uint64_t *)out, *tmp, *src, *dst, range;
	uint32_t count[8][256];
	int64_t mn, mx, *v = out;
	size_t i;
	unsigned npass, p;

	if (n < 48 || n > UINT32_MAX) {
		if (in != out && n)
			memcpy(out, in, n * sizeof(*out));
		if (n > UINT32_MAX) {
			qsort(v, n, sizeof(*v), cmp_i64);
			return;
		}
		for (i = 1; i < n; i++) {
			int64_t x = v[i];
			size_t j = i;

			for (; j > 0 && v[j - 1] > x; j--)
				v[j] = v[j - 1];
			v[j] = x;
		}
		return;
	}
	mn = mx = in[0];
	for (i = 1; i < n; i++) {
		mn = in[i] < mn ? in[i] : mn;
		mx = in[i] > mx ? in[i] : mx;
	}
	range = (uint64_t)mx - (uint64_t)mn;
	if (!scratch && n >= sort_parts_min && range && !sort_i64_parts(out, in, n, mn, range))
		return;
	for (npass = 0; npass < 8 && (range >> (8 * npass)); npass++)
		;
	tmp = scratch ? scratch : n <= SORT_STACK || !range ? stack : malloc(n * sizeof(*tmp));
	if (tmp != stack && tmp != scratch)
		util_huge_hint(tmp, n * sizeof(*tmp));
	if (!tmp || !range) {
		if (in != out)
			memcpy(out, in, n * sizeof(*out));
		if (range)
			qsort(v, n, sizeof(*v), cmp_i64);
		return;
	}
	memset(count, 0, sizeof(count[0]) * npass);
	/* keys relative to the minimum, written to out as they are counted */
	for (i = 0; i < n; i++) {
		uint64_t k = (uint64_t)in[i] - (uint64_t)mn;

		a[i] = k;
		for (p = 0; p < npass; p++)
			count[p][(k >> (8 * p)) & 0xff]++;
	}
	src = a;
	dst = tmp;
	for (p = 0; p < npass; p++) {
		unsigned shift = 8 * p;
		uint32_t sum = 0, c;
		int b;

		if (count[p][(src[0] >> shift) & 0xff] == n)
			continue;
		for (b = 0; b < 256; b++) {
			c = count[p][b];
			count[p][b] = sum;
			sum += c;
		}
		for (i = 0; i < n; i++)
			dst[count[p][(src[i] >> shift) & 0xff]++] = src[i];
		src = dst;
		dst = (dst == tmp) ? a : tmp;
	}
	for (i = 0; i < n; i++)
		v[i] = (int64_t)(src[i] + (uint64_t)mn);
	if (tmp != stack && tmp != scratch)
		free(tmp);
}

void util_sort_i64(int64_t *v, size_t n)
{
	sort_i64(v, v, n, NULL);
}

void util_sort_i64_to(int64_t *out, const int64_t *v, size_t n)
{
	sort_i64(out, v, n, NULL);
}

void *util_scratch_alloc(size_t n)
{
	void *p = mmap(NULL, n ? n : 1, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
#ifdef MADV_HUGEPAGE
	(void)madvise(p, n ? n : 1, MADV_HUGEPAGE); /* a hint only */
#endif
	return p;
}

void util_scratch_free(void *p, size_t n)
{
	if (p)
		munmap(p, n ? n : 1);
}

void util_now_iso(char *out, size_t outlen)
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(out, outlen, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
 * days_from_civil), so no timegm() or TZ games are needed. */
static int64_t days_from_civil(int64_t y, int64_t m, int64_t d)
{
	int64_t era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

/* n decimal digits at *p into *out; advances *p. */
static int parse_digits(int64_t *out, const char **p, int n)
{
	int64_t v = 0;
	int i;

	for (i = 0; i < n; i++) {
		if (!isdigit((unsigned char)(*p)[i]))
			return -1;
		v = v * 10 + ((*p)[i] - '0');
	}
	*p += n;
	*out = v;
	return 0;
}

int util_parse_iso(int64_t *out, const char *s)
{
	static const int mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	int64_t y, mo, d, h = 0, mi = 0, sec = 0, oh = 0, om = 0;
	const char *p = s;
	int sign = 0;

	if (parse_digits(&y, &p, 4) || *p++ != '-' || parse_digits(&mo, &p, 2) || *p++ != '-' ||
	    parse_digits(&d, &p, 2))
		return ERR_USAGE;
	if (mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1])
		return ERR_USAGE;
	/* 29 February of a common year (the Gregorian rule) */
	if (mo == 2 && d == 29 && (y % 4 != 0 || (y % 100 == 0 && y % 400 != 0)))
		return ERR_USAGE;
	if (*p == 'T' || *p == 't' || *p == ' ') {
		p++;
		if (parse_digits(&h, &p, 2) || *p++ != ':' || parse_digits(&mi, &p, 2))
			return ERR_USAGE;
		if (*p == ':') {
			p++;
			if (parse_digits(&sec, &p, 2))
				return ERR_USAGE;
			if (*p == '.' || *p == ',') {
				p++;
				if (!isdigit((unsigned char)*p))
					return ERR_USAGE;
				while (isdigit((unsigned char)*p))
					p++;
			}
		}
		if (h > 23 || mi > 59 || sec > 60)
			return ERR_USAGE;
		if (*p == 'Z' || *p == 'z') {
			p++;
		} else if (*p == '+' || *p == '-') {
			sign = *p++ == '-' ? -1 : 1;
			if (parse_digits(&oh, &p, 2))
				return ERR_USAGE;
			if (*p == ':')
				p++;
			if (*p && parse_digits(&om, &p, 2))
				return ERR_USAGE;
			if (oh > 23 || om > 59)
				return ERR_USAGE;
		}
	}
	if (*p)
		return ERR_USAGE;
	*out = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec -
	       sign * (oh * 3600 + om * 60);
	return 0;
}

void util_format_iso(char *out, size_t outlen, int64_t epoch)
{
	int64_t days = epoch >= 0 ? epoch / 86400 : -((-epoch + 86399) / 86400);
	int64_t rem = epoch - days * 86400, z, era, doe, yoe, y, doy, mp, d, m;

	/* civil_from_days, the inverse of days_from_civil */
	z = days + 719468;
	era = (z >= 0 ? z : z - 146096) / 146097;
	doe = z - era * 146097;
	yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
	y = yoe + era * 400;
	doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
	mp = (5 * doy + 2) / 153;
	d = doy - (153 * mp + 2) / 5 + 1;
	m = mp + (mp < 10 ? 3 : -9);
	y += m <= 2;
	snprintf(out, outlen, "%04lld-%02lld-%02lldT%02lld:%02lld:%02lldZ", (long long)y,
		 (long long)m, (long long)d, (long long)(rem / 3600), (long long)(rem / 60 % 60),
		 (long long)(rem % 60));
}

const char *util_strerror_lc(int e)
{
	static _Thread_local char text[128];

	snprintf(text, sizeof(text), "%s", strerror(e));
	text[0] = (char)tolower((unsigned char)text[0]);
	return text;
}

/*
 * s escaped for a one-line message: control characters, DEL and the quote
 * as \xNN, cut after about 190 bytes with "...".  One of four rotating
 * static buffers, enough for the names quoted in a single message.
 */
const char *util_quote_msg(const char *s)
{
	static char bufs[4][200];
	static unsigned slot;

	return util_quote_msg_buf(bufs[slot++ % 4], sizeof(bufs[0]), SIZE_MAX, s);
}

const char *util_quote_msg_buf(char *out, size_t n, size_t max, const char *s)
{
	size_t i = 0;

	for (; *s && i + 8 < n && i < max; s++) {
		unsigned char c = (unsigned char)*s;
		size_t len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 1;

		/* never cut inside a UTF-8 character */
		if (len > 1 && (i + len > max || i + len + 8 > n))
			break;
		if (c < 0x20 || c == 0x7f || c == '\'') {
			snprintf(out + i, 5, "\\x%02x", c);
			i += 4;
		} else {
			out[i++] = (char)c;
		}
	}
	if (*s && i + 4 <= n) {
		memcpy(out + i, "...", 3);
		i += 3;
	}
	out[i] = '\0';
	return out;
}
