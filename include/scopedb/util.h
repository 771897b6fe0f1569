/*
 * util.h - small growable buffers and string helpers shared by the core.
 *
 * struct buf is a growable byte string, always NUL-terminated once anything
 * has been appended; struct i64vec is a growable array of int64_t.  Both own
 * their storage (malloc) and are released with *_release(), which leaves
 * them empty and reusable.  Functions return 0 or ERR_NOMEM (message set).
 *
 * Ownership: a buf or i64vec owns its storage until *_release(), or until
 * buf_detach()/buf_finish() hand the string to the caller (free()); what
 * util_calloc(), util_strdup() and util_sorted_ptrs() return is the
 * caller's (free()), util_scratch_alloc()'s goes back with
 * util_scratch_free(); util_strerror_lc() returns a thread-local buffer.
 */
#ifndef SCOPEDB_UTIL_H
#define SCOPEDB_UTIL_H

#include <stddef.h>
#include <stdint.h>

struct buf {
	char *data;
	size_t len;
	size_t cap;
};

#define BUF_INIT                                                                                   \
	{                                                                                          \
		NULL, 0, 0                                                                         \
	}

/*
 * Grow the array whose pointer is at arrp (elements of size bytes, capacity
 * *cap) to hold at least need elements, doubling from first (0 counts as
 * 1; size must be > 0); 0 or ERR_NOMEM
 * (the array is unchanged then).  The array stays owned by the caller.
 */
int util_grow(void *arrp, size_t *cap, size_t need, size_t size, size_t first);

/* Ask for transparent huge pages on the pages of the heap block p (bytes
 * long, malloc()ed or realloc()ed just before) when bytes >= UTIL_HUGE_MIN:
 * a hint, for the pages not written yet; util_grow() gives it to every
 * array it grows, so any command's large arrays have it.  See util.c. */
#define UTIL_HUGE_MIN ((size_t)4 << 20)
void util_huge_hint(void *p, size_t bytes);

/* Give back to the kernel the whole pages inside [p, p + bytes) of a heap
 * block whose contents there are no longer needed (they read as zeros
 * afterwards): a block being consumed in sequence need not stay whole
 * until it is freed.  A hint, like util_huge_hint(). */
void util_release_pages(void *p, size_t bytes);

/* Append one zeroed element to the array at arrp (length *len, incremented)
 * and return it; NULL with ERR_NOMEM set on failure. */
void *util_push(void *arrp, size_t *cap, size_t *len, size_t size);

void buf_init(struct buf *b);
void buf_release(struct buf *b);
/* Make room for at least extra more bytes (plus the terminating NUL). */
int buf_grow(struct buf *b, size_t extra);
int buf_add(struct buf *b, const void *data, size_t len);
int buf_puts(struct buf *b, const char *s);
int buf_putc(struct buf *b, char c);
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
int buf_printf(struct buf *b, const char *fmt, ...);
/* Hand the string over to the caller (never NULL: "" when empty); b is
 * left empty. */
char *buf_detach(struct buf *b);

struct i64vec {
	int64_t *v;
	size_t len;
	size_t cap;
};

void i64vec_init(struct i64vec *a);
void i64vec_release(struct i64vec *a);
int i64vec_reserve(struct i64vec *a, size_t n);
/* Room for n values, and no more when it has less (i64vec_reserve()
 * doubles): for one large array sized once. */
int i64vec_reserve_exact(struct i64vec *a, size_t n);
int i64vec_push(struct i64vec *a, int64_t x);
/* Sort a ascending and drop repeated values; its new length. */
size_t i64vec_unique(struct i64vec *a);

/* calloc of n elements (at least one, so that NULL means failure) that
 * sets ERR_NOMEM on failure. */
void *util_calloc(size_t n, size_t size);

/* Hand b's string over (buf_detach()) unless failed is non-zero: then b is
 * released and NULL returned.  For builders that check once at the end. */
char *buf_finish(struct buf *b, int failed);

/* qsort()/bsearch() order of char * elements (or of structures whose first
 * member is a char *): strcmp of the strings they point to. */
int util_strptr_cmp(const void *a, const void *b);

/* A malloc'ed array of pointers to the n elements of base (each size
 * bytes), sorted with cmp, which qsort calls on two such pointers (cmp's
 * arguments point to the pointers).  For an index by name of an array
 * that stays as it is.  NULL after ERR_NOMEM; the caller frees it. */
void *util_sorted_ptrs(const void *base, size_t n, size_t size,
		       int (*cmp)(const void *, const void *));

/* strdup that returns NULL for NULL and sets ERR_NOMEM on failure (check
 * with "if (s && !copy)"). */
char *util_strdup(const char *s);

/* The next field of the sep-separated list at *p, its length in *len, and
 * *p moved past it and its separator; NULL when the list is used up.
 * Empty fields (first or between two separators) are returned with length
 * 0; an empty last one (after a final separator) is not.  For PATH-like
 * lists and path components. */
const char *util_field(const char **p, char sep, size_t *len);

/* Milliseconds of the monotonic clock (CLOCK_MONOTONIC): for deadlines
 * and elapsed times, which a change of the wall clock does not move. */
int64_t util_now_ms(void);

/* The length of the valid UTF-8 sequence at s (1 to 4 bytes), or 0 when
 * the byte at s starts none: overlong forms, surrogates (U+D800..DFFF)
 * and code points past U+10FFFF are not valid, as in RFC 3629 and for
 * PostgreSQL.  s[0] is not NUL. */
size_t util_utf8_len(const char *s);

/* util_utf8_len() and the sequence's code point in *cp (set only when the
 * length is not 0), for a caller that needs the character too. */
size_t util_utf8_decode(const char *s, unsigned *cp);

/*
 * A region name as it stands in a joined path ("main > solve", the name of
 * a --by path row): each backslash doubled and each '>' with a space or
 * the name's start before it and a space or the name's end after it (the
 * '>' of " > ", of "x >", of "> y") written "\>", so that no two paths
 * read alike and the joined name splits at its unescaped " > " only
 * (docs/calltree.md).  util_path_name_len() is the length of
 * that form; util_path_name_put() writes it at dst (no NUL) and returns
 * its end.
 */
size_t util_path_name_len(const char *name);
char *util_path_name_put(char *dst, const char *name);

/* The names of the joined path text (util_path_name_put()'s names joined
 * by " > ") into *names[0..*n): split at each unescaped " > ", with \> and
 * \\ read back as > and \.  *names is one allocation (the pointers, then
 * the names), freed with free().  0 or ERR_NOMEM. */
int util_path_split(const char *joined, char ***names, size_t *n);

/* NULL when s is valid UTF-8 text, else its first byte that starts no
 * valid sequence.  A store holds UTF-8 text only (docs/text.md). */
const char *util_utf8_bad(const char *s);

/* strerror(e) with its first letter lowercased, as the project's
 * messages print it ("no such file or directory").  The text is in a
 * thread-local buffer, valid until the next call in the same thread. */
const char *util_strerror_lc(int e);

/*
 * n bytes of scratch memory for a large, short-lived buffer, mapped so
 * that only the pages touched cost memory, with transparent huge pages
 * where the kernel offers them (fresh 4 KiB pages fault one by one, which
 * is slow on virtual machines); NULL on failure (no message).  Release
 * with util_scratch_free(p, n), which accepts NULL.
 */
void *util_scratch_alloc(size_t n);
void util_scratch_free(void *p, size_t n);

/* Sort ascending (radix sort for large arrays; stable not needed). */
void util_sort_i64(int64_t *v, size_t n);
/* The same, writing the sorted copy of v[0..n) to out (out != v): ingest
 * sorts each row's durations without a separate copy. */
void util_sort_i64_to(int64_t *out, const int64_t *v, size_t n);
/* Testing hook: util_sort_i64() and util_sort_i64_to() deal arrays of n
 * values or more into parts before they sort them (0: the default, 2^22);
 * returns how many sorts were dealt into parts since the last call. */
size_t util_sort_testing_parts(size_t n);

/*
 * Parse an ISO-8601 date or date-time: "2026-11-30", "2026-11-30T02:00:00",
 * with optional fraction ("...:00.123456") and zone ("Z", "+01:00", "-0500";
 * none means UTC); a space may replace the "T".  *out = seconds since the
 * epoch (UTC).  Returns 0, or ERR_USAGE (no message set: callers name the
 * argument) when s is not such a date.
 */
int util_parse_iso(int64_t *out, const char *s);

/* Format epoch seconds as "YYYY-MM-DDTHH:MM:SSZ" into out (>= 21 bytes). */
void util_format_iso(char *out, size_t outlen, int64_t epoch);

/* Current UTC time as "YYYY-MM-DDTHH:MM:SSZ" into out (at least 21 bytes). */
void util_now_iso(char *out, size_t outlen);

/* s escaped for a one-line message (a file or region name from data):
 * control characters, DEL and ' as \xNN, cut after ~190 bytes with "...".
 * One of four rotating static buffers (not thread-safe). */
const char *util_quote_msg(const char *s);
/* s escaped as util_quote_msg() does into out, the caller's n bytes (n >= 9),
 * cut after about max bytes (never inside a UTF-8 character) with "...";
 * returns out. */
const char *util_quote_msg_buf(char *out, size_t n, size_t max, const char *s);

#endif
