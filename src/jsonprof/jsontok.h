/*
 * jsontok.h - a strict, bounded, streaming JSON reader for the JSON
 * profile reader (jsonprof.c; docs/format.md section 11).
 *
 * The document is read through a window of at most a few MiB, refilled
 * with pread() from the file (plain) or through zlib (gzip, several
 * members allowed), never whole: memory does not grow with the size of
 * the document, only with what the caller keeps of it.  The grammar is
 * RFC 8259's, enforced strictly, with limits of its own:
 *   - nesting deeper than JTOK_MAX_DEPTH, a string longer than
 *     JTOK_MAX_STRING bytes, a number token longer than JTOK_MAX_NUMBER
 *     characters, an array longer than JTOK_MAX_ARRAY values;
 *   - invalid UTF-8 (overlong forms, surrogates, code points above
 *     U+10FFFF), lone surrogate escapes, NUL characters (raw or \u0000),
 *     raw control characters in strings;
 *   - a gzip stream inflating to more than JTOK_GZIP_RATIO times its
 *     compressed size (plus JTOK_GZIP_SLACK), a truncated or damaged gzip
 *     stream, data after the last gzip member;
 *   - integers outside int64 where int64 is asked for (never through a
 *     double), non-finite numbers (1e400).
 * Duplicate keys are refused by the callers (jtok_keys_*).
 *
 * Errors: every function returns 0 or a negative ERR_* code after
 * err_set(); messages are "cannot read 'PATH': WHAT at byte N" (N counts
 * the bytes of the document, after gzip).  After an error the reader
 * stays failed.
 *
 * The window and its refill are jsontok_input.c's (the only code calling
 * zlib), the tokens jsontok.c's.
 *
 * Ownership: struct jtok is the caller's (jtok_init/jtok_release); string
 * results live in buffers the caller passes.
 */
#ifndef SCOPEDB_JSONTOK_H
#define SCOPEDB_JSONTOK_H

#include <stddef.h>
#include <stdint.h>

#include "scopedb/util.h"
#include "util/strmap.h"

#define JTOK_MAX_DEPTH 64
#define JTOK_MAX_STRING ((size_t)16 << 20)
#define JTOK_MAX_NUMBER 512
#define JTOK_MAX_ARRAY ((size_t)1 << 32)
#define JTOK_GZIP_RATIO 256
#define JTOK_GZIP_SLACK ((uint64_t)1 << 20)

struct z_stream_s;

struct jtok {
	const char *qpath; /* the file, escaped for messages */
	/* raw input: a descriptor read with pread (never moving its offset:
	 * the hashing thread shares it), or memory */
	int fd;
	const unsigned char *mem;
	uint64_t raw_size, raw_off;
	/* gzip */
	int gz;
	struct z_stream_s *z;
	unsigned char *zin;
	size_t zin_len, zin_pos;
	uint64_t inflated, inflate_cap;
	struct jtok_zt *zt; /* the gzip thread (jsontok_input.c), or NULL */
	/* the window: buf[pos, len) is unread; buf[len] is a NUL sentinel */
	unsigned char *buf;
	size_t pos, len, cap;
	int own_buf;
	int eof;	    /* no more input beyond len */
	uint64_t base;	    /* document offset of buf[0] */
	int failed;	    /* an error was reported */
	int fail_code;	    /* its code */
	struct buf scratch; /* skipped strings */
};

/* What jtok_next_value() found. */
enum jtok_kind {
	JTOK_OBJECT = '{',
	JTOK_ARRAY = '[',
	JTOK_STRING = '"',
	JTOK_NUMBER = '0',
	JTOK_TRUE = 't',
	JTOK_FALSE = 'f',
	JTOK_NULL = 'n',
};

/* Read from fd (size bytes; gzip when it starts with the gzip magic). */
int jtok_init_fd(struct jtok *t, const char *qpath, int fd, uint64_t size);
/* Read n bytes of memory (gzip likewise); data must outlive t. */
int jtok_init_mem(struct jtok *t, const char *qpath, const void *data, size_t n);
/* A second reader of from's input, from its start (jsonplan.c). */
int jtok_init_again(struct jtok *t, const struct jtok *from);
void jtok_release(struct jtok *t);

/* Whether the input is gzip-compressed (after jtok_init_*). */
int jtok_is_gzip(const struct jtok *t);

/*
 * For jsontok.c: make at least need unread bytes available in the window
 * when the input has them; returns the number available (less at the end
 * of the document), or a negative error.
 */
int64_t jtok_fill(struct jtok *t, size_t need);

/* "cannot read 'PATH': WHAT at byte N" with ERR_FORMAT (or code); without
 * " at byte N" when at is 0.  The reader stays failed. */
#if defined(__GNUC__)
__attribute__((format(printf, 4, 5)))
#endif
int jtok_fail_at(struct jtok *t, int code, int at, const char *fmt, ...);
#define jtok_fail(t, code, ...) jtok_fail_at(t, code, 1, __VA_ARGS__)

/* The next byte after whitespace without consuming it: 0..255, or -1 at
 * the end of the document (or after an error: check t->failed). */
int jtok_peek(struct jtok *t);
/* Consume the byte c (after whitespace), else fail saying what was
 * expected ("expected ':'"). */
int jtok_expect(struct jtok *t, char c);
/* After '{' or '[' and each member: 1 when another member follows (a ','
 * was consumed, or this is the first member), 0 at the closing bracket
 * (consumed).  first is 1 right after the opening bracket. */
int jtok_more(struct jtok *t, char close, int first);
/* Consume '{' or '[' (after whitespace), else fail: "WHAT is a string,
 * not an object", or "expected an array, found the end of the document". */
int jtok_open(struct jtok *t, char c, const char *what);
/* Kind of the next value (after whitespace), not consumed; fails on a
 * byte that starts no value. */
int jtok_kind(struct jtok *t, enum jtok_kind *out);

/* A string value (validated UTF-8, no NUL) into out (reset first). */
int jtok_string(struct jtok *t, struct buf *out);
/* An int64 value; a number with a fraction or exponent is refused as
 * "not an integer" (what names the value in messages). */
int jtok_int64(struct jtok *t, int64_t *out, const char *what);
/* An unsigned integer up to UINT64_MAX. */
int jtok_uint64(struct jtok *t, uint64_t *out, const char *what);
/* Any number as a finite double; *is_int says whether it was written as
 * an integer (then *text holds its canonical decimal form when it fits
 * int64 or uint64, and the number is refused otherwise). */
int jtok_number(struct jtok *t, double *out, int *is_int, char text[32], const char *what);
/* true or false. */
int jtok_bool(struct jtok *t, int *out, const char *what);
/* Consume null: 1 when the next value is null (consumed), else 0. */
int jtok_null(struct jtok *t);
/* A whole array of integers appended to v (reset first); the int64 range. */
int jtok_int64_array(struct jtok *t, struct i64vec *v, const char *what);
/* The same, for arrays too long to hold: whenever v holds at values and
 * another comes, they go to fn(ctx, values, n) (a non-zero return stops
 * the read and is returned) and v is emptied; an array that was spilled
 * at all is spilled whole (v empty at the end), spilled its length.  One
 * of fewer than at + 1 values stays in v, spilled 0. */
struct jtok_spill {
	size_t at;
	int (*fn)(void *ctx, const int64_t *v, size_t n);
	void *ctx;
	uint64_t spilled;
};
int jtok_int64_array_spill(struct jtok *t, struct i64vec *v, const char *what,
			   struct jtok_spill *sp);
/* Skip any value, validating it fully (depth counts from depth). */
int jtok_skip(struct jtok *t, int depth);
/* At the end of the document: only whitespace may follow. */
int jtok_end(struct jtok *t);

/* Keys of one object, for refusing duplicates: reset per object. */
struct jtok_keys {
	struct strmap m;
};
void jtok_keys_init(struct jtok_keys *k);
void jtok_keys_release(struct jtok_keys *k);
/* Add key; fails with "duplicate key 'KEY' in WHERE" when seen. */
int jtok_keys_add(struct jtok *t, struct jtok_keys *k, const char *key, const char *where);
/* The next member's key into key (added to k) and its ':'. */
int jtok_key(struct jtok *t, struct jtok_keys *k, struct buf *key, const char *where);

#endif
