/*
 * escape.h - the only place where text is escaped for an output format, so
 * a hostile region name (newlines, pipes, quotes, ANSI escapes) prints the
 * same way in every command:
 *   escape_plain: terminal; control characters as '?' so a row stays a line
 *                 (C0, DEL, the C1 controls U+0080..U+009F, and bytes of no
 *                 valid UTF-8 sequence: all that a terminal may act on),
 *                 and so are the characters it cannot print (U+FFFE,
 *                 unassigned code points) and the bidirectional overrides
 *                 and isolates (U+202A..U+202E, U+2066..U+2069), which
 *                 would reorder the row;
 *   escape_md:    markdown; the same, plus \`*_[]<>|~&# backslash-escaped,
 *                 and mentions (@user), autolinks (http://, www.) and
 *                 issue references (#12, GH-12) broken by an invisible U+2060
 *                 WORD JOINER, so a pull request comment pings no one;
 *   escape_csv:   an RFC 4180 field, quoted when it holds a comma, quote or
 *                 line break, other control characters as '?' (nothing for
 *                 NULL): for numbers and scopedb's own words;
 *   escape_csv_data: the same for a string from data, whose cells (the
 *                 field, and after each ';') starting with = + - @ tab or
 *                 CR get a leading "'" (OWASP) unless they are a plain
 *                 number, so a spreadsheet computes no formula;
 *   escape_json:  a JSON string literal, or null for NULL; bytes of no
 *                 valid UTF-8 sequence as U+FFFD (JSON is UTF-8);
 *   escape_xml:   XML text or attribute value: &<>"' as entities, tab and
 *                 line breaks as character references, and every character
 *                 XML 1.0 does not allow as '?' (other C0 controls, U+FFFE,
 *                 U+FFFF, surrogates, bytes of no valid UTF-8 sequence;
 *                 DEL too);
 *   escape_html:  HTML text or a double-quoted attribute value (also inside
 *                 inline SVG): escape_xml's rules, which HTML5 accepts as is,
 *                 and the bidirectional overrides and isolates (U+202A-E,
 *                 U+2066-9) as '?', as on a terminal: a page is read by
 *                 people, and they reordered its own text after them;
 *   escape_msg:   a diagnostic line on stderr (errors, warnings, progress):
 *                 control characters (as escape_plain's) as \xNN per
 *                 byte, so text quoted from a file
 *                 or the store can neither break the line nor drive the
 *                 terminal;
 *   escape_roff:  man page text (help --man): backslashes and dashes
 *                 escaped, a leading '.' or '\'' of a line made literal;
 *   and in every format but github's, no string from data makes a line
 *   a CI runner takes for a workflow command (a leading "::", "##["
 *   anywhere): broken by U+2060 for people and in CSV (whose field is
 *   quoted for a leading "::"), by a character reference in JSON and XML
 *   (escape.c, escape_ci_lead());
 *   escape_gh_data, escape_gh_prop: a GitHub workflow command's message
 *                 and property values (::error file=F,title=T::MESSAGE):
 *                 % CR LF (and in a property : and ,) percent-encoded as
 *                 the Actions toolkit does, other unsafe characters (as
 *                 escape_plain's) as '?'.
 * Each appends to out and returns 0 or ERR_NOMEM.
 *
 * Ownership: out is the caller's; s is only read.
 */
#ifndef SCOPEDB_RENDER_ESCAPE_H
#define SCOPEDB_RENDER_ESCAPE_H

#include "scopedb/util.h"

int escape_plain(struct buf *out, const char *s);
int escape_md(struct buf *out, const char *s);
int escape_csv(struct buf *out, const char *s);
int escape_csv_data(struct buf *out, const char *s);
int escape_json(struct buf *out, const char *s);
int escape_xml(struct buf *out, const char *s);
int escape_html(struct buf *out, const char *s);
int escape_roff(struct buf *out, const char *s);
int escape_msg(struct buf *out, const char *s);
int escape_gh_data(struct buf *out, const char *s);
int escape_gh_prop(struct buf *out, const char *s);

/*
 * The columns a terminal gives the character cp (util_utf8_decode()): 2
 * for a wide one (CJK, emoji), 0 for a combining mark, 1 for most, -1 for
 * one escape_plain() shows as '?'.
 * The widths are those of the C library's C.UTF-8 locale, whatever the
 * user's is; without that locale, every printable character counts 1.
 */
int escape_width(unsigned cp);

#endif
