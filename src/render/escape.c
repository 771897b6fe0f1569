/*
 * escape.c - text escaping of every output format (see escape.h).  JSON
 * string quoting itself is util/json.c's (shared with the tags writer of
 * the store).
 */
#include <string.h>

#include "render/escape.h"
#include "scopedb/err.h"
#include "util/json.h"

/* A control character: shown as '?' by the terminal and markdown. */
static int escape_is_control(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

int escape_plain(struct buf *out, const char *s)
{
	int rc = 0;

	for (; *s && !rc; s++)
		rc = buf_putc(out, escape_is_control((unsigned char)*s) ? '?' : *s);
	return rc;
}

int escape_md(struct buf *out, const char *s)
{
	int rc = 0;

	for (; *s && !rc; s++) {
		unsigned char c = (unsigned char)*s;

		if (escape_is_control(c))
			rc = buf_putc(out, '?');
		else if (strchr("\\`*_[]<>|~&#", c))
			rc = buf_printf(out, "\\%c", c);
		else
			rc = buf_putc(out, (char)c);
	}
	return rc;
}

int escape_csv(struct buf *out, const char *s)
{
	int rc = 0;

	if (!s)
		return 0;
	if (!strpbrk(s, ",\"\r\n"))
		return buf_puts(out, s);
	rc |= buf_putc(out, '"');
	for (; *s; s++)
		rc |= *s == '"' ? buf_puts(out, "\"\"") : buf_putc(out, *s);
	rc |= buf_putc(out, '"');
	return rc ? ERR_NOMEM : 0;
}

int escape_json(struct buf *out, const char *s)
{
	return s ? json_buf_string(out, s) : buf_puts(out, "null");
}
