/*
 * jsontok.c - the tokens of the strict, bounded, streaming JSON reader of
 * jsontok.h: punctuation, literals, strings (UTF-8 validated), numbers
 * (times parsed straight into int64, never through a double), skipping a
 * value, and the keys of an object.  The window they are read from, and
 * its refill from a file, memory or gzip (jtok_fill()), are
 * jsontok_input.c's.
 *
 * Why not a JSON library: bench/RESULTS.md (issue 25) compares jansson and
 * json-c on a 50 MB profile document.  Both build the whole document as a
 * tree of nodes (24 to 70 bytes per number), so a profile's memory grows
 * with its size (several times the text), and both are several times
 * slower on the long integer arrays a profile is made of; json-c also
 * accepts duplicate keys and, without a flag, invalid UTF-8, and jansson
 * caps nesting only at 2048 levels.  This reader keeps only the window of
 * text being read and enforces the limits of jsontok.h.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scopedb/err.h"
#include "jsonprof/jsontok.h"

/* ---- tokens ---- */

static int jtok_is_ws(int c)
{
	return c == ' ' || c == '\n' || c == '\t' || c == '\r';
}

int jtok_peek(struct jtok *t)
{
	for (;;) {
		while (t->pos < t->len && jtok_is_ws(t->buf[t->pos]))
			t->pos++;
		if (t->pos < t->len)
			return t->buf[t->pos];
		if (jtok_fill(t, 1) <= 0)
			return -1;
	}
}

/* A printable description of byte c for messages. */
static const char *jtok_desc(int c, char buf[16])
{
	if (c < 0)
		return "the end of the document";
	if (c > 0x20 && c < 0x7f && c != '\'')
		snprintf(buf, 16, "'%c'", c);
	else
		snprintf(buf, 16, "byte 0x%02x", (unsigned)c);
	return buf;
}

/* "expected WHAT, found X" (or the input's own error). */
static int jtok_unexpected(struct jtok *t, int c, const char *what)
{
	char d[16];

	if (t->failed)
		return t->fail_code;
	return jtok_fail(t, ERR_FORMAT, "expected %s, found %s", what, jtok_desc(c, d));
}

int jtok_expect(struct jtok *t, char c)
{
	int got = jtok_peek(t);
	char what[8];

	if (got == (unsigned char)c) {
		t->pos++;
		return 0;
	}
	snprintf(what, sizeof(what), "'%c'", c);
	return jtok_unexpected(t, got, what);
}

int jtok_more(struct jtok *t, char close, int first)
{
	int c = jtok_peek(t);

	if (c == (unsigned char)close) {
		t->pos++;
		return 0;
	}
	if (first)
		return 1;
	if (c == ',') {
		t->pos++;
		return 1;
	}
	return jtok_unexpected(t, c, close == '}' ? "',' or '}'" : "',' or ']'");
}

int jtok_kind(struct jtok *t, enum jtok_kind *out)
{
	int c = jtok_peek(t);

	switch (c) {
	case '{':
	case '[':
	case '"':
	case 't':
	case 'f':
	case 'n':
		*out = (enum jtok_kind)c;
		return 0;
	default:
		if (c == '-' || (c >= '0' && c <= '9')) {
			*out = JTOK_NUMBER;
			return 0;
		}
		return jtok_unexpected(t, c, "a value");
	}
}

/* The kind of value that was found where another was expected. */
static const char *jtok_kind_name(enum jtok_kind k)
{
	switch (k) {
	case JTOK_OBJECT:
		return "an object";
	case JTOK_ARRAY:
		return "an array";
	case JTOK_STRING:
		return "a string";
	case JTOK_NUMBER:
		return "a number";
	case JTOK_TRUE:
	case JTOK_FALSE:
		return "a boolean";
	case JTOK_NULL:
		return "null";
	}
	return "a value";
}

/* "WHAT is KIND, not TYPE" for a value of the wrong type (not consumed). */
static int jtok_wrong_type(struct jtok *t, const char *what, const char *want)
{
	enum jtok_kind k;
	int rc = jtok_kind(t, &k);

	if (rc)
		return rc;
	return jtok_fail(t, ERR_FORMAT, "%s is %s, not %s", what, jtok_kind_name(k), want);
}

/* Consume the literal word (true, false, null). */
static int jtok_word(struct jtok *t, const char *word)
{
	size_t n = strlen(word);

	if (jtok_fill(t, n) < (int64_t)n || memcmp(t->buf + t->pos, word, n) != 0)
		return t->failed ? t->fail_code : jtok_fail(t, ERR_FORMAT, "invalid literal");
	t->pos += n;
	return 0;
}

int jtok_open(struct jtok *t, char c, const char *what)
{
	int got = jtok_peek(t);

	if (got == (unsigned char)c) {
		t->pos++;
		return 0;
	}
	if (got < 0)
		return t->failed ? t->fail_code
				 : jtok_unexpected(t, -1, c == '{' ? "an object" : "an array");
	return jtok_wrong_type(t, what, c == '{' ? "an object" : "an array");
}

int jtok_bool(struct jtok *t, int *out, const char *what)
{
	int c = jtok_peek(t);

	if (c == 't') {
		*out = 1;
		return jtok_word(t, "true");
	}
	if (c == 'f') {
		*out = 0;
		return jtok_word(t, "false");
	}
	return jtok_wrong_type(t, what, "true or false");
}

int jtok_null(struct jtok *t)
{
	int rc;

	if (jtok_peek(t) != 'n')
		return t->failed ? t->fail_code : 0;
	rc = jtok_word(t, "null");
	return rc ? rc : 1;
}

/* ---- strings ---- */

/* Length of the valid UTF-8 sequence at s (n bytes available), else 0. */
static size_t jtok_utf8_len(const unsigned char *s, size_t n)
{
	unsigned c = s[0];
	size_t len, i;
	unsigned lo = 0x80, hi = 0xbf;

	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4;
	else
		return 0;
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f; /* no UTF-16 surrogates */
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f; /* <= U+10FFFF */
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < len; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return len;
}

static int jtok_hex4(const unsigned char *s, unsigned *out)
{
	unsigned v = 0;
	int i;

	for (i = 0; i < 4; i++) {
		unsigned c = s[i], d;

		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return -1;
		v = v * 16 + d;
	}
	*out = v;
	return 0;
}

/* Decode the escape at buf[pos] ('\\') into out; advances pos. */
static int jtok_escape(struct jtok *t, struct buf *out)
{
	unsigned char *s, u[4];
	unsigned cp, lo;
	size_t n;
	int64_t avail = jtok_fill(t, 12);

	if (avail < 0)
		return (int)avail;
	s = t->buf + t->pos;
	if (avail < 2)
		return jtok_fail(t, ERR_FORMAT, "unterminated string");
	if (s[1] != 'u') {
		static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
		const char *e = s[1] ? strchr(from, s[1]) : NULL;

		if (!e)
			return jtok_fail(t, ERR_FORMAT, "invalid escape in a string");
		t->pos += 2;
		return buf_putc(out, to[e - from]);
	}
	if (avail < 6 || jtok_hex4(s + 2, &cp))
		return jtok_fail(t, ERR_FORMAT, "invalid \\u escape in a string");
	n = 6;
	if (cp == 0)
		return jtok_fail(t, ERR_FORMAT, "a string holds a NUL character (\\u0000)");
	if (cp >= 0xdc00 && cp <= 0xdfff)
		return jtok_fail(t, ERR_FORMAT, "a string holds a lone UTF-16 surrogate");
	if (cp >= 0xd800 && cp <= 0xdbff) {
		if (avail < 12 || s[6] != '\\' || s[7] != 'u' || jtok_hex4(s + 8, &lo) ||
		    lo < 0xdc00 || lo > 0xdfff)
			return jtok_fail(t, ERR_FORMAT, "a string holds a lone UTF-16 surrogate");
		cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
		n = 12;
	}
	t->pos += n;
	if (cp < 0x80) {
		u[0] = (unsigned char)cp;
		n = 1;
	} else if (cp < 0x800) {
		u[0] = (unsigned char)(0xc0 | (cp >> 6));
		u[1] = (unsigned char)(0x80 | (cp & 0x3f));
		n = 2;
	} else if (cp < 0x10000) {
		u[0] = (unsigned char)(0xe0 | (cp >> 12));
		u[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
		u[2] = (unsigned char)(0x80 | (cp & 0x3f));
		n = 3;
	} else {
		u[0] = (unsigned char)(0xf0 | (cp >> 18));
		u[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
		u[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
		u[3] = (unsigned char)(0x80 | (cp & 0x3f));
		n = 4;
	}
	return buf_add(out, u, n);
}

int jtok_string(struct jtok *t, struct buf *out)
{
	int rc = jtok_peek(t);

	if (rc != '"')
		return rc == -1 && t->failed ? t->fail_code
					     : jtok_wrong_type(t, "the value", "a string");
	t->pos++;
	out->len = 0;
	rc = buf_grow(out, 0);
	if (rc)
		return rc;
	out->data[0] = '\0';
	for (;;) {
		const unsigned char *c, *e;
		size_t n;

		if (t->pos == t->len) {
			int64_t avail = jtok_fill(t, 1);

			if (avail < 0)
				return (int)avail;
			if (avail == 0)
				return t->failed ? t->fail_code
						 : jtok_fail(t, ERR_FORMAT, "unterminated string");
		}
		c = t->buf + t->pos;
		e = t->buf + t->len;
		while (c < e && *c >= 0x20 && *c < 0x80 && *c != '"' && *c != '\\')
			c++;
		n = (size_t)(c - (t->buf + t->pos));
		if (n) {
			if (out->len + n > JTOK_MAX_STRING)
				return jtok_fail(t, ERR_FORMAT, "a string is longer than %zu MiB",
						 JTOK_MAX_STRING >> 20);
			rc = buf_add(out, t->buf + t->pos, n);
			if (rc)
				return rc;
			t->pos += n;
		}
		if (c == e)
			continue;
		if (*c == '"') {
			t->pos++;
			return 0;
		}
		if (*c == '\\') {
			rc = jtok_escape(t, out);
		} else if (*c == 0) {
			return jtok_fail(t, ERR_FORMAT, "a string holds a NUL byte");
		} else if (*c < 0x20) {
			return jtok_fail(t, ERR_FORMAT,
					 "a string holds the control character 0x%02x (it must be "
					 "escaped)",
					 *c);
		} else {
			int64_t avail = jtok_fill(t, 4);

			if (avail < 0)
				return (int)avail;
			n = jtok_utf8_len(t->buf + t->pos, (size_t)avail);
			if (!n)
				return jtok_fail(t, ERR_FORMAT, "a string is not valid UTF-8");
			rc = buf_add(out, t->buf + t->pos, n);
			t->pos += n;
		}
		if (rc)
			return rc;
		if (out->len > JTOK_MAX_STRING)
			return jtok_fail(t, ERR_FORMAT, "a string is longer than %zu MiB",
					 JTOK_MAX_STRING >> 20);
	}
}

/* ---- numbers ---- */

static int jtok_digit(int c)
{
	return c >= '0' && c <= '9';
}

/*
 * The number token at pos: its length, and whether it has a fraction or
 * an exponent; validates the grammar.  The whole token is in the window
 * (jtok_fill of JTOK_MAX_NUMBER + 1 first).
 */
static int jtok_scan_number(struct jtok *t, size_t *len, int *is_int)
{
	const unsigned char *s, *p, *e;
	int64_t avail = jtok_fill(t, JTOK_MAX_NUMBER + 1);

	if (avail < 0)
		return (int)avail;
	s = p = t->buf + t->pos;
	e = s + avail;
	*is_int = 1;
	if (p < e && *p == '-')
		p++;
	if (p == e || !jtok_digit(*p))
		return jtok_fail(t, ERR_FORMAT, "invalid number");
	if (*p == '0') {
		p++;
		if (p < e && jtok_digit(*p))
			return jtok_fail(t, ERR_FORMAT, "invalid number (a leading zero)");
	} else {
		while (p < e && jtok_digit(*p))
			p++;
	}
	if (p < e && *p == '.') {
		*is_int = 0;
		p++;
		if (p == e || !jtok_digit(*p))
			return jtok_fail(t, ERR_FORMAT, "invalid number");
		while (p < e && jtok_digit(*p))
			p++;
	}
	if (p < e && (*p == 'e' || *p == 'E')) {
		*is_int = 0;
		p++;
		if (p < e && (*p == '+' || *p == '-'))
			p++;
		if (p == e || !jtok_digit(*p))
			return jtok_fail(t, ERR_FORMAT, "invalid number");
		while (p < e && jtok_digit(*p))
			p++;
	}
	if ((size_t)(p - s) > JTOK_MAX_NUMBER)
		return jtok_fail(t, ERR_FORMAT, "a number is longer than %d characters",
				 JTOK_MAX_NUMBER);
	*len = (size_t)(p - s);
	return 0;
}

/*
 * Parse an integer token's digits (token at s, length n, no fraction or
 * exponent) as a sign and magnitude: 1 when the magnitude exceeds
 * UINT64_MAX.
 */
static int jtok_magnitude(const unsigned char *s, size_t n, int *neg, uint64_t *mag)
{
	uint64_t v = 0;
	size_t i = 0;

	*neg = 0;
	if (s[0] == '-') {
		*neg = 1;
		i = 1;
	}
	for (; i < n; i++) {
		unsigned d = (unsigned)(s[i] - '0');

		if (v > (UINT64_MAX - d) / 10)
			return 1;
		v = v * 10 + d;
	}
	*mag = v;
	return 0;
}

int jtok_number(struct jtok *t, double *out, int *is_int, char text[32], const char *what)
{
	char tok[JTOK_MAX_NUMBER + 1];
	size_t n;
	int rc, neg;
	uint64_t mag;

	if (jtok_peek(t) != '-' && !jtok_digit(jtok_peek(t)))
		return t->failed ? t->fail_code : jtok_wrong_type(t, what, "a number");
	rc = jtok_scan_number(t, &n, is_int);
	if (rc)
		return rc;
	memcpy(tok, t->buf + t->pos, n);
	tok[n] = '\0';
	if (*is_int) {
		if (jtok_magnitude(t->buf + t->pos, n, &neg, &mag) ||
		    (neg && mag > (uint64_t)INT64_MAX + 1))
			return jtok_fail(t, ERR_FORMAT, "%s is out of range (%.40s)", what, tok);
		if (!neg)
			snprintf(text, 32, "%" PRIu64, mag);
		else if (mag == 0)
			snprintf(text, 32, "0");
		else
			snprintf(text, 32, "-%" PRIu64, mag);
		*out = neg ? -(double)mag : (double)mag;
		t->pos += n;
		return 0;
	}
	*out = strtod(tok, NULL);
	if (!isfinite(*out))
		return jtok_fail(t, ERR_FORMAT, "%s is out of range (%.40s)", what, tok);
	text[0] = '\0';
	t->pos += n;
	return 0;
}

/*
 * The int64 at pos (the caller made at least 32 bytes available or hit the
 * end): the fast path of jtok_int64 and jtok_int64_array.
 */
static int jtok_int_here(struct jtok *t, int64_t *out, const char *what)
{
	const unsigned char *c = t->buf + t->pos, *e = t->buf + t->len;
	uint64_t v = 0;
	int neg = 0, nd = 0;

	if (c < e && *c == '-') {
		neg = 1;
		c++;
	}
	if (c == e || !jtok_digit(*c)) {
		if (!neg && c < e &&
		    (*c == '"' || *c == '[' || *c == '{' || *c == 't' || *c == 'f' || *c == 'n'))
			return jtok_wrong_type(t, what, "an integer");
		return jtok_unexpected(t, c < e ? *c : -1, "an integer");
	}
	if (*c == '0') {
		c++;
		if (c < e && jtok_digit(*c))
			return jtok_fail(t, ERR_FORMAT, "invalid number (a leading zero)");
	} else {
		while (c < e && jtok_digit(*c)) {
			if (++nd > 19)
				return jtok_fail(t, ERR_FORMAT,
						 "%s is out of range (a 64-bit integer)", what);
			v = v * 10 + (uint64_t)(*c - '0');
			c++;
		}
	}
	if (c < e && (*c == '.' || *c == 'e' || *c == 'E'))
		return jtok_fail(t, ERR_FORMAT, "%s is not an integer", what);
	if (v > (uint64_t)INT64_MAX + (uint64_t)neg)
		return jtok_fail(t, ERR_FORMAT, "%s is out of range (a 64-bit integer)", what);
	*out = neg ? (int64_t)(0 - v) : (int64_t)v;
	t->pos = (size_t)(c - t->buf);
	return 0;
}

int jtok_int64(struct jtok *t, int64_t *out, const char *what)
{
	int64_t avail;

	if (jtok_peek(t) < 0)
		return t->failed ? t->fail_code : jtok_unexpected(t, -1, "an integer");
	avail = jtok_fill(t, 32);
	if (avail < 0)
		return (int)avail;
	return jtok_int_here(t, out, what);
}

int jtok_uint64(struct jtok *t, uint64_t *out, const char *what)
{
	double d;
	char text[32];
	int is_int, rc, c = jtok_peek(t);

	if (c != '-' && !jtok_digit(c))
		return t->failed ? t->fail_code : jtok_wrong_type(t, what, "an integer");
	rc = jtok_number(t, &d, &is_int, text, what);
	if (rc)
		return rc;
	if (!is_int)
		return jtok_fail(t, ERR_FORMAT, "%s is not an integer", what);
	if (text[0] == '-')
		return jtok_fail(t, ERR_FORMAT, "%s is negative (%s)", what, text);
	*out = strtoull(text, NULL, 10);
	return 0;
}

/* jtok_int64_array(), its values handed to sp (when not NULL) whenever v
 * holds sp->at of them and another comes. */
static int jtok_i64s(struct jtok *t, struct i64vec *v, const char *what, struct jtok_spill *sp)
{
	int c = jtok_peek(t);
	int rc;

	v->len = 0;
	if (c != '[')
		return t->failed ? t->fail_code : jtok_wrong_type(t, what, "an array of integers");
	t->pos++;
	c = jtok_peek(t);
	if (c == ']') {
		t->pos++;
		return 0;
	}
	for (;;) {
		/* the fast path: the next value is in the window */
		if (t->len - t->pos < 32 && !t->eof) {
			int64_t avail = jtok_fill(t, 32);

			if (avail < 0)
				return (int)avail;
		}
		if (sp && v->len == sp->at) {
			if (sp->spilled + v->len >= JTOK_MAX_ARRAY)
				return jtok_fail(t, ERR_FORMAT, "%s has more than %zu values", what,
						 JTOK_MAX_ARRAY);
			rc = sp->fn(sp->ctx, v->v, v->len);
			if (rc)
				return rc;
			sp->spilled += v->len;
			v->len = 0;
		}
		if (v->len == v->cap) {
			if (v->len >= JTOK_MAX_ARRAY)
				return jtok_fail(t, ERR_FORMAT, "%s has more than %zu values", what,
						 JTOK_MAX_ARRAY);
			rc = i64vec_reserve(v, v->cap ? v->cap * 2 : 1024);
			if (rc)
				return rc;
		}
		rc = jtok_int_here(t, &v->v[v->len], what);
		if (rc)
			return rc;
		v->len++;
		/* ", " or "," or "]" without a call in the common cases */
		if (t->pos + 2 <= t->len) {
			unsigned char a = t->buf[t->pos];

			if (a == ',') {
				t->pos++;
				while (t->pos < t->len && jtok_is_ws(t->buf[t->pos]))
					t->pos++;
				if (t->pos < t->len && t->buf[t->pos] != ']')
					continue;
				c = jtok_peek(t);
				if (c == ']')
					return jtok_unexpected(t, c, "a value");
				continue;
			}
			if (a == ']') {
				t->pos++;
				return 0;
			}
		}
		c = jtok_peek(t);
		if (c == ']') {
			t->pos++;
			return 0;
		}
		if (c != ',')
			return jtok_unexpected(t, c, "',' or ']'");
		t->pos++;
		if (jtok_peek(t) == ']')
			return jtok_unexpected(t, ']', "a value");
	}
}

int jtok_int64_array(struct jtok *t, struct i64vec *v, const char *what)
{
	return jtok_i64s(t, v, what, NULL);
}

int jtok_int64_array_spill(struct jtok *t, struct i64vec *v, const char *what,
			   struct jtok_spill *sp)
{
	int rc;

	sp->spilled = 0;
	rc = jtok_i64s(t, v, what, sp);
	if (!rc && sp->spilled && v->len) {
		/* once spilled, all of it */
		rc = sp->fn(sp->ctx, v->v, v->len);
		sp->spilled += v->len;
		v->len = 0;
	}
	return rc;
}

/* ---- skipping ---- */

int jtok_skip(struct jtok *t, int depth)
{
	enum jtok_kind k;
	int rc, first = 1;
	size_t n = 0;

	rc = jtok_kind(t, &k);
	if (rc)
		return rc;
	switch (k) {
	case JTOK_STRING:
		return jtok_string(t, &t->scratch);
	case JTOK_NUMBER: {
		int is_int;
		size_t len;

		rc = jtok_scan_number(t, &len, &is_int);
		if (rc)
			return rc;
		if (!is_int) {
			double d;
			char text[32];

			return jtok_number(t, &d, &is_int, text, "a number");
		}
		t->pos += len;
		return 0;
	}
	case JTOK_TRUE:
		return jtok_word(t, "true");
	case JTOK_FALSE:
		return jtok_word(t, "false");
	case JTOK_NULL:
		return jtok_word(t, "null");
	case JTOK_ARRAY:
	case JTOK_OBJECT:
		break;
	}
	if (depth >= JTOK_MAX_DEPTH)
		return jtok_fail(t, ERR_FORMAT, "the document is nested deeper than %d levels",
				 JTOK_MAX_DEPTH);
	t->pos++;
	if (k == JTOK_ARRAY) {
		while ((rc = jtok_more(t, ']', first)) == 1) {
			first = 0;
			if (++n > JTOK_MAX_ARRAY)
				return jtok_fail(t, ERR_FORMAT, "an array has more than %zu values",
						 JTOK_MAX_ARRAY);
			rc = jtok_skip(t, depth + 1);
			if (rc)
				return rc;
		}
		return rc;
	}
	{
		struct jtok_keys keys;
		struct buf key = BUF_INIT;

		jtok_keys_init(&keys);
		while ((rc = jtok_more(t, '}', first)) == 1) {
			first = 0;
			rc = jtok_key(t, &keys, &key, "an object");
			if (!rc)
				rc = jtok_skip(t, depth + 1);
			if (rc)
				break;
		}
		buf_release(&key);
		jtok_keys_release(&keys);
		return rc;
	}
}

int jtok_end(struct jtok *t)
{
	int c = jtok_peek(t);

	if (c == -1)
		return t->failed ? t->fail_code : 0;
	return jtok_fail(t, ERR_FORMAT, "data follows the JSON document");
}

/* ---- keys ---- */

void jtok_keys_init(struct jtok_keys *k)
{
	strmap_init(&k->m);
}

void jtok_keys_release(struct jtok_keys *k)
{
	strmap_release(&k->m);
}

int jtok_key(struct jtok *t, struct jtok_keys *k, struct buf *key, const char *where)
{
	int rc = jtok_string(t, key);

	if (!rc)
		rc = jtok_keys_add(t, k, key->data, where);
	return rc ? rc : jtok_expect(t, ':');
}

int jtok_keys_add(struct jtok *t, struct jtok_keys *k, const char *key, const char *where)
{
	size_t before = strmap_count(&k->m), id;
	int rc = strmap_intern(&id, &k->m, key);

	if (rc)
		return rc;
	if (strmap_count(&k->m) == before) {
		char q[80];
		size_t i = 0;

		/* the key, printable and short */
		for (; *key && i < sizeof(q) - 5; key++)
			q[i++] = (*key >= 0x20 && *key < 0x7f && *key != '\'') ? *key : '?';
		if (*key) {
			memcpy(q + i, "...", 3);
			i += 3;
		}
		q[i] = '\0';
		return jtok_fail(t, ERR_FORMAT, "duplicate key '%s' in %s", q, where);
	}
	return 0;
}
