/*
 * json.c - a strict parser for JSON arrays of strings and JSON string
 * quoting.  Only what scope-profiler's tags column needs: no numbers,
 * objects or nesting are accepted by the parser.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scopedb/err.h"
#include "util/json.h"

static const char *json_ws(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
		p++;
	return p;
}

/* Four hex digits at p, or -1. */
static long json_hex4(const char *p)
{
	long v = 0;
	int i;

	for (i = 0; i < 4; i++) {
		char c = p[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			v |= c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			v |= c - 'A' + 10;
		else
			return -1;
	}
	return v;
}

static int json_put_utf8(struct buf *b, unsigned long cp)
{
	char u[4];
	size_t n;

	if (cp < 0x80) {
		u[0] = (char)cp;
		n = 1;
	} else if (cp < 0x800) {
		u[0] = (char)(0xc0 | (cp >> 6));
		u[1] = (char)(0x80 | (cp & 0x3f));
		n = 2;
	} else if (cp < 0x10000) {
		u[0] = (char)(0xe0 | (cp >> 12));
		u[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		u[2] = (char)(0x80 | (cp & 0x3f));
		n = 3;
	} else {
		u[0] = (char)(0xf0 | (cp >> 18));
		u[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
		u[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
		u[3] = (char)(0x80 | (cp & 0x3f));
		n = 4;
	}
	return buf_add(b, u, n);
}

/* The end of the run from p of characters a JSON string holds as they are
 * (not '"', '\\', a control character or the end): both the parser and
 * the writer copy such runs in one piece. */
static const char *json_plain_end(const char *p)
{
	while (*p && *p != '"' && *p != '\\' && (unsigned char)*p >= 0x20)
		p++;
	return p;
}

/*
 * Parse the string literal starting at *pp (which points at the opening
 * quote) into b; on success *pp points after the closing quote.
 */
static int json_string(struct buf *b, const char **pp)
{
	const char *p = *pp + 1;

	buf_init(b);
	if (buf_grow(b, 0))
		return ERR_NOMEM;
	b->data[0] = '\0';
	for (;;) {
		unsigned char c = (unsigned char)*p;

		if (c == '"')
			break;
		if (c == '\0')
			return err_set(ERR_FORMAT, "unterminated string");
		if (c < 0x20)
			return err_set(ERR_FORMAT, "control character in string");
		if (c != '\\') {
			const char *q = json_plain_end(p);

			if (buf_add(b, p, (size_t)(q - p)))
				return ERR_NOMEM;
			p = q;
			continue;
		}
		p++;
		switch (*p) {
		case '"':
		case '\\':
		case '/':
			if (buf_putc(b, *p))
				return ERR_NOMEM;
			p++;
			break;
		case 'b':
		case 'f':
		case 'n':
		case 'r':
		case 't': {
			static const char from[] = "bfnrt", to[] = "\b\f\n\r\t";

			if (buf_putc(b, to[strchr(from, *p) - from]))
				return ERR_NOMEM;
			p++;
			break;
		}
		case 'u': {
			long hi = json_hex4(p + 1), lo;
			unsigned long cp;

			if (hi < 0)
				return err_set(ERR_FORMAT, "bad \\u escape");
			p += 5;
			cp = (unsigned long)hi;
			if (hi >= 0xd800 && hi <= 0xdbff) {
				if (p[0] != '\\' || p[1] != 'u')
					return err_set(ERR_FORMAT, "unpaired surrogate");
				lo = json_hex4(p + 2);
				if (lo < 0xdc00 || lo > 0xdfff)
					return err_set(ERR_FORMAT, "unpaired surrogate");
				p += 6;
				cp = 0x10000 + (((unsigned long)hi - 0xd800) << 10) +
				     ((unsigned long)lo - 0xdc00);
			} else if (hi >= 0xdc00 && hi <= 0xdfff) {
				return err_set(ERR_FORMAT, "unpaired surrogate");
			}
			if (cp == 0)
				return err_set(ERR_FORMAT, "\\u0000 in string");
			if (json_put_utf8(b, cp))
				return ERR_NOMEM;
			break;
		}
		default:
			return err_set(ERR_FORMAT, "bad escape in string");
		}
	}
	*pp = p + 1;
	return 0;
}

void json_strarray_free(char **strs, size_t n)
{
	size_t i;

	if (!strs)
		return;
	for (i = 0; i < n; i++)
		free(strs[i]);
	free(strs);
}

int json_parse_strarray(char ***out, size_t *n, const char *text)
{
	const char *p = json_ws(text);
	char **v = NULL;
	size_t len = 0, cap = 0;
	struct buf s = BUF_INIT;
	int rc = 0;

	if (*p == '\0')
		goto done;
	if (*p != '[') {
		rc = err_set(ERR_FORMAT, "not a JSON array");
		goto out;
	}
	p = json_ws(p + 1);
	if (*p == ']') {
		p++;
		goto end;
	}
	for (;;) {
		if (*p != '"') {
			rc = err_set(ERR_FORMAT, "array element is not a string");
			goto out;
		}
		rc = json_string(&s, &p);
		if (rc)
			goto out;
		rc = util_grow(&v, &cap, len + 1, sizeof(*v), 4);
		if (rc)
			goto out;
		v[len++] = buf_detach(&s);
		p = json_ws(p);
		if (*p == ',') {
			p = json_ws(p + 1);
			continue;
		}
		if (*p == ']') {
			p++;
			break;
		}
		rc = err_set(ERR_FORMAT, "expected ',' or ']' in array");
		goto out;
	}
end:
	p = json_ws(p);
	if (*p != '\0') {
		rc = err_set(ERR_FORMAT, "trailing text after array");
		goto out;
	}
done:
	if (len == 0) {
		free(v);
		v = NULL;
	}
	*out = v;
	*n = len;
	v = NULL;
	len = 0;
out:
	buf_release(&s);
	json_strarray_free(v, len);
	return rc;
}

int json_buf_string(struct buf *out, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	/* the two-character escapes: from[i] is written as '\\' to[i] */
	static const char from[] = "\"\\\b\f\n\r\t", to[] = "\"\\bfnrt";

	if (buf_putc(out, '"'))
		return ERR_NOMEM;
	while (*s) {
		const char *q = json_plain_end(s);

		if (buf_add(out, s, (size_t)(q - s)))
			return ERR_NOMEM;
		s = q;
		if (!*s)
			break;
		{
			unsigned char c = (unsigned char)*s++;
			char esc[7] = {'\\', 0, 0, 0, 0, 0, 0};
			/* c is not NUL (the scan above stops there) */
			const char *e = strchr(from, c);
			size_t n = 2;

			if (e) {
				esc[1] = to[e - from];
			} else {
				esc[1] = 'u';
				esc[2] = '0';
				esc[3] = '0';
				esc[4] = hex[c >> 4];
				esc[5] = hex[c & 15];
				n = 6;
			}
			if (buf_add(out, esc, n))
				return ERR_NOMEM;
		}
	}
	return buf_putc(out, '"');
}

int json_buf_strarray(struct buf *out, const char *const *strs, size_t n)
{
	size_t i;

	if (buf_putc(out, '['))
		return ERR_NOMEM;
	for (i = 0; i < n; i++) {
		if (i && buf_putc(out, ','))
			return ERR_NOMEM;
		if (json_buf_string(out, strs[i]))
			return ERR_NOMEM;
	}
	return buf_putc(out, ']');
}
