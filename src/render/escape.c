/*
 * escape.c - text escaping of every output format (see escape.h).  JSON
 * string quoting itself is util/json.c's (shared with the tags writer of
 * the store).
 */
#define _XOPEN_SOURCE 700 /* wcwidth() */
#include <locale.h>
#include <pthread.h>
#include <string.h>
#include <wchar.h>

#include "render/escape.h"
#include "scopedb/err.h"
#include "util/json.h"

/* A control character: shown as '?' by the terminal and markdown. */
static int escape_is_control(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

/* The C.UTF-8 locale, whose LC_CTYPE knows every character's width
 * whatever the user's locale is; (locale_t)0 where the C library has none. */
static locale_t escape_locale;
static pthread_once_t escape_locale_once = PTHREAD_ONCE_INIT;

static void escape_locale_init(void)
{
	escape_locale = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
}

int escape_width(unsigned cp)
{
	locale_t old;
	int w;

	if (cp < 0x80)
		return escape_is_control((unsigned char)cp) ? -1 : 1;
	/* the bidirectional overrides and isolates reorder the text around
	 * them: a name could make its row read as another's */
	if ((cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069))
		return -1;
	if (cp >= 0x80 && cp < 0xa0)
		return -1;
	pthread_once(&escape_locale_once, escape_locale_init);
	if (escape_locale == (locale_t)0)
		return 1;
	old = uselocale(escape_locale);
	w = wcwidth((wchar_t)cp);
	uselocale(old);
	return w;
}

/*
 * The character at s (not NUL) for the terminal's escapers: *len = its
 * length in bytes; 1 when it is unsafe, to be shown as '?' (or \xNN per
 * byte): a C0 control or DEL, a C1 control U+0080..U+009F (terminals take
 * U+009B as the start of an escape sequence, as ESC [), a character the
 * terminal cannot print or that reorders the line (escape_width() < 0:
 * U+FFFE, unassigned code points, the bidirectional overrides), or a byte
 * that starts no valid UTF-8 sequence.
 */
static int escape_unsafe(const char *s, size_t *len)
{
	unsigned cp;

	*len = util_utf8_decode(s, &cp);
	if (*len == 0) {
		*len = 1;
		return 1;
	}
	return escape_width(cp) < 0;
}

/* U+2060 WORD JOINER: invisible, and no mention, reference, autolink or
 * workflow command spans it. */
#define ESCAPE_WJ "\xe2\x81\xa0"

/*
 * The CI logs' commands (GitHub Actions' runner; docs/security.md): a line
 * whose text, past any leading white space, starts with "::" is a workflow
 * command ("::add-mask::x", "::stop-commands::t"), and so is any line that
 * holds "##[" (the older form, "##[error]x").  A string from data is never
 * one: escape_ci_lead() is the length of its leading white space (as .NET
 * trims it: blanks, and the Unicode spaces) when "::" follows it, else -1;
 * escape_ci_hash() is 1 when s holds "##" and then '['.  Each escaper
 * breaks them in its own way: an invisible U+2060 between the two
 * characters for people (terminal, diagnostics; markdown escapes '#' and
 * '[' already); in CSV a quoted field for a leading "::" and U+2060 where
 * a line break in the field starts a line with "::" and in "##[" (CSV has
 * no other way: its readers get the joiner); a character reference in
 * JSON and XML, which give the same text back to the programs that read
 * them.
 */
static long escape_ci_lead(const char *s)
{
	const char *p = s;
	unsigned cp;
	size_t n;

	for (;; p += n) {
		n = util_utf8_decode(p, &cp);
		if (!n || !(cp == ' ' || cp == 0xa0 || cp == 0x1680 ||
			    (cp >= 0x2000 && cp <= 0x200a) || cp == 0x2028 || cp == 0x2029 ||
			    cp == 0x202f || cp == 0x205f || cp == 0x3000 || cp == 0x85))
			break;
	}
	return p[0] == ':' && p[1] == ':' ? (long)(p - s) : -1;
}

static int escape_ci_hash(const char *s)
{
	return s[0] == '#' && s[1] == '#' && s[2] == '[';
}

int escape_plain(struct buf *out, const char *s)
{
	long lead = escape_ci_lead(s);
	const char *s0 = s;
	size_t n;
	int rc = 0;

	while (*s && !rc) {
		if (lead >= 0 && s == s0 + lead + 1)
			rc = buf_puts(out, ESCAPE_WJ); /* ":" WJ ":" */
		else if (s > s0 + 1 && escape_ci_hash(s - 2))
			rc = buf_puts(out, ESCAPE_WJ); /* "##" WJ "[" */
		if (rc)
			break;
		rc = escape_unsafe(s, &n) ? buf_putc(out, '?') : buf_add(out, s, n);
		s += n;
	}
	return rc;
}

/*
 * A GitHub workflow command's message (prop 0) or property value (prop 1),
 * as the Actions toolkit escapes them (escapeData, escapeProperty): '%'
 * as %25, CR as %0D, LF as %0A, and in a property ':' as %3A and ',' as
 * %2C, so a name can neither end the command nor start another line;
 * every other unsafe character (escape_unsafe(): ESC would colour the
 * log) as '?'.
 */
static int escape_gh(struct buf *out, const char *s, int prop)
{
	size_t n;
	int rc = 0;

	for (; *s && !rc; s += n) {
		const char *enc = *s == '%'	      ? "%25"
				  : *s == '\r'	      ? "%0D"
				  : *s == '\n'	      ? "%0A"
				  : prop && *s == ':' ? "%3A"
				  : prop && *s == ',' ? "%2C"
						      : NULL;

		if (enc) {
			n = 1;
			rc = buf_puts(out, enc);
		} else {
			rc = escape_unsafe(s, &n) ? buf_putc(out, '?') : buf_add(out, s, n);
		}
	}
	return rc;
}

int escape_gh_data(struct buf *out, const char *s)
{
	return escape_gh(out, s, 0);
}

int escape_gh_prop(struct buf *out, const char *s)
{
	return escape_gh(out, s, 1);
}

/* 1 when s starts with "www." in any case. */
static int escape_is_www(const char *s)
{
	return (s[0] | 0x20) == 'w' && (s[1] | 0x20) == 'w' && (s[2] | 0x20) == 'w' && s[3] == '.';
}

/*
 * Markdown text: control characters as '?', the characters markdown acts
 * on backslash-escaped, and what GitHub turns into a notification or a
 * link in a comment broken by an invisible U+2060 (a backslash or an
 * entity does not stop GitHub: it links after unescaping): after '@' (a
 * mention, an e-mail autolink), between ':' and "//" (an http://, https://
 * or any scheme's autolink), between "www" and '.' (a www autolink), and
 * after "#" followed by a digit and between "GH" and "-" followed by one (a
 * reference to an issue, which tells its subscribers), and between the
 * colons of a leading "::" (a workflow command: escape_ci_lead()).
 */
int escape_md(struct buf *out, const char *s)
{
	long lead = escape_ci_lead(s);
	const char *s0 = s;
	int rc = 0;

	while (*s && !rc) {
		unsigned char c = (unsigned char)*s;
		size_t n;

		if (lead >= 0 && s == s0 + lead + 1)
			rc = buf_puts(out, ESCAPE_WJ);
		if (rc)
			break;
		if (escape_unsafe(s, &n))
			rc = buf_putc(out, '?');
		else if (c == '#' && s[1] >= '0' && s[1] <= '9')
			rc = buf_puts(out, "\\#" ESCAPE_WJ);
		else if ((c | 0x20) == 'g' && (s[1] | 0x20) == 'h' && s[2] == '-' && s[3] >= '0' &&
			 s[3] <= '9')
			rc = buf_add(out, s, 2) || buf_puts(out, ESCAPE_WJ), n = 2;
		else if (strchr("\\`*_[]<>|~&#", c))
			rc = buf_printf(out, "\\%c", c);
		else if (c == '@')
			rc = buf_puts(out, "@" ESCAPE_WJ);
		else if (c == ':' && s[1] == '/' && s[2] == '/')
			rc = buf_puts(out, ":" ESCAPE_WJ);
		else if (escape_is_www(s))
			rc = buf_add(out, s, 3) || buf_puts(out, ESCAPE_WJ), n = 3;
		else
			rc = buf_add(out, s, n);
		s += n;
	}
	return rc;
}

/* Control characters other than line breaks and tab become '?', as on the
 * terminal: a CSV file is read on one as often as not (issue 13). */
/* escape_csv(), the field quoted also when quote is 1. */
static int escape_csv_field(struct buf *out, const char *s, int quote)
{
	int rc = 0;

	if (!s)
		return 0;
	quote |= strpbrk(s, ",\"\r\n") != NULL;
	if (quote)
		rc |= buf_putc(out, '"');
	for (const char *c = s; *c;) {
		unsigned char u = (unsigned char)*c;
		size_t n;
		int unsafe = escape_unsafe(c, &n) && u != '\n' && u != '\r' && u != '\t';

		if (u == '"')
			rc |= buf_puts(out, "\"\"");
		else if (unsafe)
			rc |= buf_putc(out, '?');
		else
			rc |= buf_add(out, c, n);
		c += n;
	}
	if (quote)
		rc |= buf_putc(out, '"');
	return rc ? ERR_NOMEM : 0;
}

int escape_csv(struct buf *out, const char *s)
{
	return escape_csv_field(out, s, 0);
}

/* 1 when s[0..n) is a plain decimal number: an optional sign, digits with
 * an optional fraction, an optional exponent; nothing else. */
static int escape_is_number(const char *s, size_t n)
{
	size_t i = 0, digits = 0;

	if (i < n && (s[i] == '+' || s[i] == '-'))
		i++;
	for (; i < n && s[i] >= '0' && s[i] <= '9'; i++)
		digits++;
	if (i < n && s[i] == '.')
		for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++)
			digits++;
	if (!digits)
		return 0;
	if (i < n && (s[i] == 'e' || s[i] == 'E')) {
		size_t e = ++i;

		if (i < n && (s[i] == '+' || s[i] == '-'))
			e = ++i;
		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++;
		if (i == e)
			return 0;
	}
	return i == n;
}

/*
 * A CSV field of data (a name, a label, tags joined by ';'): escape_csv()'s
 * rules, and first OWASP's defence against formulas: a cell that would
 * start with '=', '+', '-', '@', a tab or a carriage return gets a leading
 * single quote, so that a spreadsheet shows it as text.  A cell starts at
 * the start of the field and after each ';' (tags are joined by it, and
 * some spreadsheets split fields at it).  A cell that is a plain number
 * ("-0.5", "+3") is left as it is: it computes nothing.
 */
int escape_csv_data(struct buf *out, const char *s)
{
	struct buf b = BUF_INIT;
	const char *p = s;
	int rc = 0;

	if (!s)
		return 0;
	while (!rc) {
		size_t n = strcspn(p, ";"), i;
		long lead = -1; /* the "::" past a line break, at p[lead] */

		if (strchr("=+-@\t\r", *p) && *p && !escape_is_number(p, n))
			rc = buf_putc(&b, '\'');
		for (i = 0; i < n && !rc; i++) {
			/* the field's own lines: "::" past a break, and "##["
			 * anywhere, broken (escape_ci_lead(), escape_ci_hash()) */
			if ((p[i] == '\n' || p[i] == '\r') &&
			    (lead = escape_ci_lead(p + i + 1)) >= 0)
				lead += (long)i + 1;
			if ((lead >= 0 && i == (size_t)lead + 1) ||
			    (i > 1 && escape_ci_hash(p + i - 2)))
				rc = buf_puts(&b, ESCAPE_WJ);
			rc = rc || buf_putc(&b, p[i]);
		}
		if (!p[n])
			break;
		rc = rc || buf_putc(&b, ';');
		p += n + 1;
	}
	rc = rc || buf_puts(&b, "") || escape_csv_field(out, b.data, escape_ci_lead(b.data) >= 0);
	buf_release(&b);
	return rc ? ERR_NOMEM : 0;
}

int escape_msg(struct buf *out, const char *s)
{
	long lead = escape_ci_lead(s);
	const char *s0 = s;
	size_t n, i;
	int rc = 0;

	while (*s && !rc) {
		if ((lead >= 0 && s == s0 + lead + 1) || (s > s0 + 1 && escape_ci_hash(s - 2)))
			rc = buf_puts(out, ESCAPE_WJ);
		if (rc)
			break;
		if (!escape_unsafe(s, &n))
			rc = buf_add(out, s, n);
		else
			for (i = 0; i < n && !rc; i++)
				rc = buf_printf(out, "\\x%02x", (unsigned char)s[i]);
		s += n;
	}
	return rc;
}

/*
 * A JSON string must be UTF-8 (RFC 8259), and strict parsers refuse a
 * document that is not: each byte of no valid UTF-8 sequence (a name from
 * a hostile profile or store) becomes U+FFFD, as a lenient decoder would
 * show it.
 */
static int escape_json_lit(struct buf *out, const char *s)
{
	struct buf clean = BUF_INIT;
	const char *p;
	size_t n;
	int rc = 0;

	for (p = s; *p; p += n)
		if (!(n = util_utf8_len(p)))
			break;
	if (!*p)
		return json_buf_string(out, s);
	for (p = s; *p && !rc; p += n) {
		n = util_utf8_len(p);
		rc = n ? buf_add(&clean, p, n) : buf_puts(&clean, "\xef\xbf\xbd");
		n += !n;
	}
	rc = rc || buf_puts(&clean, "");
	if (!rc)
		rc = json_buf_string(out, clean.data);
	buf_release(&clean);
	return rc ? ERR_NOMEM : 0;
}

/* The literal of escape_json_lit(), each "##[" of it written "##\u005b"
 * (escape_ci_hash()): a JSON reader gets the same string.  The literal's
 * own escapes hold no '#' and no '[', so each "##[" in it is one of s. */
int escape_json(struct buf *out, const char *s)
{
	struct buf lit = BUF_INIT;
	const char *p;
	int rc;

	if (!s)
		return buf_puts(out, "null");
	if (!strstr(s, "##["))
		return escape_json_lit(out, s);
	rc = escape_json_lit(&lit, s);
	for (p = lit.data; !rc && p && *p; p++)
		rc = escape_ci_hash(p) ? (p += 2, buf_puts(out, "##\\u005b")) : buf_putc(out, *p);
	buf_release(&lit);
	return rc ? ERR_NOMEM : 0;
}

/* escape_xml(), and with people 1 (HTML, read on a page) also the
 * bidirectional overrides and isolates as '?', as the terminal shows
 * them: they reordered the page's own text after them (an arrow v1 -> v2
 * read 2v -> 1v). */
static int escape_xml_for(struct buf *out, const char *s, int people)
{
	/* entities; tab and line breaks as references, which attribute
	 * values would otherwise fold into blanks */
	static const char *const ent[128] = {
	    ['&'] = "&amp;",   ['<'] = "&lt;",	['>'] = "&gt;",	  ['"'] = "&quot;",
	    ['\''] = "&apos;", ['\t'] = "&#9;", ['\n'] = "&#10;", ['\r'] = "&#13;",
	};
	const unsigned char *p = (const unsigned char *)s;
	int rc = 0;

	while (*p && !rc) {
		unsigned cp = 0;
		size_t n = util_utf8_decode((const char *)p, &cp);

		if (n == 1 && ent[*p])
			rc = buf_puts(out, ent[*p]);
		else if (*p == '[' && p >= (const unsigned char *)s + 2 && p[-1] == '#' &&
			 p[-2] == '#')
			rc = buf_puts(out, "&#91;"); /* escape_ci_hash() */
		else if (n == 0 || escape_is_control(*p))
			rc = buf_putc(out, '?'), n = 1;
		else if (cp == 0xfffe || cp == 0xffff)
			rc = buf_putc(out, '?'); /* not XML characters */
		else if (people &&
			 ((cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069)))
			rc = buf_putc(out, '?');
		else
			rc = buf_printf(out, "%.*s", (int)n, (const char *)p);
		p += n;
	}
	return rc ? ERR_NOMEM : 0;
}

int escape_xml(struct buf *out, const char *s)
{
	return escape_xml_for(out, s, 0);
}

int escape_roff(struct buf *out, const char *s)
{
	const char *p;
	int rc = 0, bol = 1;

	for (p = s; *p && !rc; p++) {
		if (bol && (*p == '.' || *p == '\''))
			rc = buf_puts(out, "\\&");
		bol = *p == '\n';
		if (*p == '\\')
			rc |= buf_puts(out, "\\e");
		else if (*p == '-')
			rc |= buf_puts(out, "\\-");
		else
			rc |= buf_putc(out, *p);
	}
	return rc ? err_nomem() : 0;
}

int escape_html(struct buf *out, const char *s)
{
	/* the same entities: &apos; is HTML5 too, and text never needs more */
	return escape_xml_for(out, s, 1);
}
