/*
 * test_render.c - the output layer on its own: the JSON writer's layouts,
 * escaping for each format, and one document (fields, spans, typed table
 * cells, None, emphasis, notes, per-format blocks and columns) through
 * every renderer, and the hostile name corpus (hostile_names.h) through
 * every escaper.  The commands' documents are covered byte for byte by
 * e2e_golden and test_report.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "render/escape.h"
#include "render/jsonw.h"
#include "render/render.h"
#include "render/table.h"
#include "scopedb/err.h"
#include "hostile_names.h"
#include "testutil.h"

static void test_jsonw(void **state)
{
	struct buf b = BUF_INIT;
	struct jsonw w;

	(void)state;
	jsonw_init(&w, &b);
	jsonw_begin_object(&w, JSONW_INLINE);
	jsonw_key(&w, "a");
	jsonw_begin_array(&w, JSONW_BLOCK);
	jsonw_begin_object(&w, JSONW_INLINE);
	jsonw_key(&w, "n");
	jsonw_number(&w, 1.0, 0);
	jsonw_key(&w, "c");
	jsonw_number(&w, 3.0, 1);
	jsonw_key(&w, "in");
	jsonw_begin_array(&w, JSONW_BLOCK);
	jsonw_int(&w, -7);
	jsonw_end(&w);
	jsonw_end(&w);
	jsonw_null(&w);
	jsonw_end(&w);
	jsonw_key(&w, "t\"ag");
	jsonw_begin_array(&w, JSONW_COMPACT);
	jsonw_string(&w, "x");
	jsonw_string(&w, NULL);
	jsonw_bool(&w, 1);
	jsonw_end(&w);
	jsonw_key(&w, "e");
	jsonw_begin_object(&w, JSONW_BLOCK);
	jsonw_end(&w);
	jsonw_end(&w);
	assert_int_equal(jsonw_finish(&w), 0);
	assert_string_equal(b.data, "{\"a\": [\n"
				    "  {\"n\": 1.0, \"c\": 3, \"in\": [\n"
				    "    -7\n"
				    "  ]},\n"
				    "  null\n"
				    "], \"t\\\"ag\": [\"x\",null,true], \"e\": {}}");
	/* unbalanced: an error, not a crash */
	jsonw_end(&w);
	assert_int_equal(jsonw_finish(&w), ERR_NOMEM);
	buf_release(&b);
}

static void test_escape(void **state)
{
	struct buf b = BUF_INIT;

	(void)state;
	assert_int_equal(escape_plain(&b, "a\nb\033[1m|"), 0);
	assert_int_equal(escape_md(&b, " a\tb*_|#"), 0);
	assert_int_equal(escape_csv(&b, " plain"), 0);
	assert_int_equal(escape_csv(&b, " q\"u,o"), 0);
	assert_int_equal(escape_csv(&b, NULL), 0);
	assert_int_equal(escape_json(&b, " j\n"), 0);
	assert_int_equal(escape_json(&b, NULL), 0);
	assert_string_equal(b.data, "a?b?[1m| a?b\\*\\_\\|\\# plain\" q\"\"u,o\"\" j\\n\"null");
	/* XML: entities, tab and line breaks as references, control bytes and
	 * invalid UTF-8 (a stray continuation, an overlong form, a surrogate,
	 * a cut sequence) as '?', valid multi-byte characters kept */
	b.len = 0;
	assert_int_equal(escape_xml(&b, "<a&b>\"'\t\n\r\001\177|\x80|\xc0\xaf|\xed\xa0\x80|"
					"\xc3\xa9\xe2\x86\x92\xf0\x9f\x98\x80|\xe2\x86"),
			 0);
	assert_string_equal(b.data, "&lt;a&amp;b&gt;&quot;&apos;&#9;&#10;&#13;??|?|??|???|"
				    "\xc3\xa9\xe2\x86\x92\xf0\x9f\x98\x80|??");
	/* CSV: control bytes other than tab and line breaks as '?' (issue 13);
	 * diagnostics: every control byte as \xNN, UTF-8 kept */
	b.len = 0;
	assert_int_equal(escape_csv(&b, "a\033[2Jb\x7f"), 0);
	assert_int_equal(escape_csv(&b, ",t\tn\n\033"), 0);
	assert_int_equal(escape_msg(&b, "|e\033]0;x\007\n\xc3\xa9'"), 0);
	assert_string_equal(b.data, "a?[2Jb?\",t\tn\n?\"|e\\x1b]0;x\\x07\\x0a\xc3\xa9'");
	/* the terminal's escapers: a C1 control (U+009B, CSI: a terminal
	 * takes it as ESC [) and bytes of no valid UTF-8 sequence as '?' or
	 * \xNN, U+00A0 and other characters kept */
	b.len = 0;
	assert_int_equal(escape_plain(&b, "a\xc2\x9b"
					  "31m|\xff\xfe|\xc2\xa0|\xe2\x86"),
			 0);
	assert_int_equal(escape_md(&b, "|\xc2\x85\x9b"), 0);
	assert_int_equal(escape_csv(&b, "|\xc2\x90\xc3"), 0);
	assert_int_equal(escape_msg(&b, "|\xc2\x9bx\xff\xc3\xa9"), 0);
	assert_string_equal(b.data, "a?31m|??|\xc2\xa0|??\\|??|??|\\xc2\\x9bx\\xff\xc3\xa9");
	/* JSON: invalid UTF-8 as U+FFFD, valid characters (and C1, escaped
	 * by JSON's rules or not) kept */
	b.len = 0;
	assert_int_equal(escape_json(&b, "a\xff\xc3\xa9\xe2\x86|\xc2\x9b"), 0);
	assert_string_equal(b.data, "\"a\xef\xbf\xbd\xc3\xa9\xef\xbf\xbd\xef\xbf\xbd|\xc2\x9b\"");
	buf_release(&b);
}

/*
 * The terminal's widths: a CJK character and an emoji take two columns, a
 * combining accent none (glibc's C.UTF-8 tables, whatever the locale of
 * the test is); a noncharacter (U+FFFE), an unassigned code point (U+0378)
 * and the bidirectional overrides are shown as '?'; and a table pads each
 * name to the same column, whatever its characters are.
 */
static void test_widths(void **state)
{
	static const char *const header[] = {"region", "calls"};
	static const enum table_align align[] = {TABLE_LEFT, TABLE_RIGHT};
	static const char *const rows[][2] = {{"wide\xe4\xb8\xad", "1"},
					      {"comb\xcc\x81x", "2"},
					      {"smile\xf0\x9f\x98\x80", "3"},
					      {"main", "4"}};
	struct table t;
	struct buf b = BUF_INIT;
	size_t i;

	(void)state;
	assert_int_equal(escape_width('a'), 1);
	assert_int_equal(escape_width(0x1b), -1);
	assert_int_equal(escape_width(0xe9), 1);
	assert_int_equal(escape_width(0x301), 0);
	assert_int_equal(escape_width(0x4e2d), 2);
	assert_int_equal(escape_width(0x1f600), 2);
	assert_int_equal(escape_width(0xfffe), -1);
	assert_int_equal(escape_width(0x378), -1);
	assert_int_equal(escape_width(0x202e), -1);
	assert_int_equal(escape_width(0x2066), -1);
	assert_int_equal(escape_width(0x9b), -1);
	/* '?' for what does not print or reorders the row, in the terminal,
	 * markdown and diagnostics alike; other characters kept */
	assert_int_equal(escape_plain(&b, "a\xef\xbf\xbe"
					  "b\xe2\x80\xae"
					  "c\xcd\xb8|\xe4\xb8\xad\xcc\x81"),
			 0);
	assert_int_equal(escape_md(&b, "|\xe2\x81\xa7"), 0);
	assert_int_equal(escape_msg(&b, "|\xef\xbf\xbf"), 0);
	assert_string_equal(b.data, "a?b?c?|\xe4\xb8\xad\xcc\x81\\|?|\\xef\\xbf\\xbf");
	/* every name ends in the same column */
	assert_int_equal(table_init(&t, 2, header, align), 0);
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		assert_int_equal(table_add_row(&t, rows[i]), 0);
	b.len = 0;
	assert_int_equal(table_render(&b, &t, NULL, 0, 0), 0);
	assert_string_equal(b.data, "region   calls\n"
				    "wide\xe4\xb8\xad       1\n"
				    "comb\xcc\x81x        2\n"
				    "smile\xf0\x9f\x98\x80      3\n"
				    "main         4\n");
	table_release(&t);
	buf_release(&b);
}

/* The escaped s is want (issue 29's escapers, one at a time). */
#define EXPECT_ESCAPE(fn, s, want)                                                                 \
	do {                                                                                       \
		b.len = 0;                                                                         \
		assert_int_equal(buf_puts(&b, ""), 0);                                             \
		assert_int_equal(fn(&b, s), 0);                                                    \
		assert_string_equal(b.data ? b.data : "", want);                                   \
	} while (0)
#define WJ "\xe2\x81\xa0"

/* Issue 29: XML without the characters it forbids; CSV cells of data that
 * a spreadsheet would compute, numbers kept; markdown without mentions,
 * autolinks or issue references. */
static void test_escape_hostile(void **state)
{
	struct buf b = BUF_INIT;

	(void)state;
	/* XML 1.0: U+FFFE and U+FFFF are no characters; U+FFFD, U+10000 and
	 * the other planes are */
	EXPECT_ESCAPE(escape_xml,
		      "a\xef\xbf\xbe"
		      "b\xef\xbf\xbf"
		      "c\xef\xbf\xbd\xf0\x90\x80\x80",
		      "a?b?c\xef\xbf\xbd\xf0\x90\x80\x80");
	EXPECT_ESCAPE(escape_html, "\xef\xbf\xbf<", "?&lt;");
	/* the bidirectional overrides and isolates: '?' on a page (U+202E
	 * turned the page's "v1 -> v2" after it into "2v -> 1v"), kept in XML */
	EXPECT_ESCAPE(escape_html,
		      "a\xe2\x80\xae"
		      "b\xe2\x81\xa6"
		      "c\xe2\x80\x8f"
		      "d",
		      "a?b?c\xe2\x80\x8f"
		      "d");
	EXPECT_ESCAPE(escape_xml,
		      "a\xe2\x80\xae"
		      "b",
		      "a\xe2\x80\xae"
		      "b");
	/* CSV data: OWASP's leading quote on = + - @ tab CR, at the start and
	 * after each ';'; plain numbers as they are */
	EXPECT_ESCAPE(escape_csv_data, "=HYPERLINK(\"http://x\",\"y\")",
		      "\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\"");
	EXPECT_ESCAPE(escape_csv_data, "=1+1", "'=1+1");
	EXPECT_ESCAPE(escape_csv_data, "+1+cmd|' /C calc'!A0", "'+1+cmd|' /C calc'!A0");
	EXPECT_ESCAPE(escape_csv_data, "-2+3", "'-2+3");
	EXPECT_ESCAPE(escape_csv_data, "@SUM(A1)", "'@SUM(A1)");
	EXPECT_ESCAPE(escape_csv_data, "\t=1", "'\t=1");
	EXPECT_ESCAPE(escape_csv_data, "\r=1", "\"'\r=1\"");
	EXPECT_ESCAPE(escape_csv_data, "nightly;=1+1;-x;ok", "nightly;'=1+1;'-x;ok");
	EXPECT_ESCAPE(escape_csv_data, "-", "'-");
	EXPECT_ESCAPE(escape_csv_data, "-0.5", "-0.5");
	EXPECT_ESCAPE(escape_csv_data, "+3", "+3");
	EXPECT_ESCAPE(escape_csv_data, "-1.5e-3;+.5;-7.", "-1.5e-3;+.5;-7.");
	EXPECT_ESCAPE(escape_csv_data, "-1e", "'-1e");
	EXPECT_ESCAPE(escape_csv_data, "a=b, c@d", "\"a=b, c@d\"");
	EXPECT_ESCAPE(escape_csv_data, "", "");
	EXPECT_ESCAPE(escape_csv_data, NULL, "");
	/* scopedb's own numbers are not data: escape_csv leaves them */
	EXPECT_ESCAPE(escape_csv, "-0.5", "-0.5");
	/* markdown: an invisible word joiner where GitHub would ping or link */
	EXPECT_ESCAPE(escape_md, "@user", "@" WJ "user");
	EXPECT_ESCAPE(escape_md, "cc @org/team, me@example.com",
		      "cc @" WJ "org/team, me@" WJ "example.com");
	EXPECT_ESCAPE(escape_md, "see https://x.test/a_b", "see https:" WJ "//x.test/a\\_b");
	EXPECT_ESCAPE(escape_md, "HTTP://x ftp://y", "HTTP:" WJ "//x ftp:" WJ "//y");
	EXPECT_ESCAPE(escape_md, "www.x.test WwW.y", "www" WJ ".x.test WwW" WJ ".y");
	EXPECT_ESCAPE(escape_md, "fixes #12 and #a", "fixes \\#" WJ "12 and \\#a");
	EXPECT_ESCAPE(escape_md, "a:b ww.c", "a:b ww.c");
	/* GitHub workflow commands: the toolkit's escapeData and
	 * escapeProperty, other controls as '?' */
	EXPECT_ESCAPE(escape_gh_data, "a%b\r\nc:d,e;f", "a%25b%0D%0Ac:d,e;f");
	EXPECT_ESCAPE(escape_gh_prop, "a%b\r\nc:d,e;f", "a%25b%0D%0Ac%3Ad%2Ce;f");
	EXPECT_ESCAPE(escape_gh_data, "::error::x\n::warning::y", "::error::x%0A::warning::y");
	EXPECT_ESCAPE(escape_gh_prop, "\033[31mred\tx\x7f", "?[31mred?x?");
	EXPECT_ESCAPE(escape_gh_data, "s\xc3\xa9 \xff", "s\xc3\xa9 ?");
	EXPECT_ESCAPE(escape_gh_prop, "%25", "%2525");
	/* a CI runner's workflow commands: a leading "::" (past blanks and
	 * Unicode spaces) and "##[" anywhere, broken for people, kept for
	 * programs (a quoted CSV field, JSON and XML references) */
	EXPECT_ESCAPE(escape_plain, "::add-mask::x", ":" WJ ":add-mask::x");
	EXPECT_ESCAPE(escape_plain, "  \xe2\x80\x83::x", "  \xe2\x80\x83:" WJ ":x");
	EXPECT_ESCAPE(escape_plain, "ns::fn ##a", "ns::fn ##a");
	EXPECT_ESCAPE(escape_plain, "a##[error]b##[", "a##" WJ "[error]b##" WJ "[");
	EXPECT_ESCAPE(escape_msg, "##[x] ::y", "##" WJ "[x] ::y");
	EXPECT_ESCAPE(escape_md, " ::x ##[y]", " :" WJ ":x \\#\\#\\[y\\]");
	EXPECT_ESCAPE(escape_md, "GH-26, gh-1, GH-x", "GH" WJ "-26, gh" WJ "-1, GH-x");
	EXPECT_ESCAPE(escape_csv_data, "::x", "\"::x\"");
	EXPECT_ESCAPE(escape_csv_data, " ::x;##[y]", "\" ::x;##" WJ "[y]\"");
	EXPECT_ESCAPE(escape_csv_data, "a::b", "a::b");
	EXPECT_ESCAPE(escape_csv_data, "x\n ::y\r::z", "\"x\n :" WJ ":y\r:" WJ ":z\"");
	EXPECT_ESCAPE(escape_json, "##[a]##[", "\"##\\u005ba]##\\u005b\"");
	EXPECT_ESCAPE(escape_json, "\\##[\n", "\"\\\\##\\u005b\\n\"");
	EXPECT_ESCAPE(escape_xml, "##[a]#[", "##&#91;a]#[");
	buf_release(&b);
}

/* The character at s: its code point, *len its length; -1 (and *len 1)
 * when s starts no valid UTF-8 sequence. */
static long utf8_at(const unsigned char *s, size_t *len)
{
	unsigned cp;

	*len = util_utf8_decode((const char *)s, &cp);
	if (!*len) {
		*len = 1;
		return -1;
	}
	return (long)cp;
}

/* Every name of the hostile corpus through every escaper: nothing a
 * terminal, markdown, a spreadsheet, XML or HTML would act on is left. */
static void test_escape_corpus(void **state)
{
	struct buf b = BUF_INIT;
	size_t i, k, n;

	(void)state;
	for (i = 0; i < hostile_nnames; i++) {
		const char *name = hostile_names[i];
		const unsigned char *p;

		/* terminal and diagnostics: no control character */
		b.len = 0;
		assert_int_equal(escape_plain(&b, name), 0);
		assert_int_equal(escape_msg(&b, name), 0);
		for (p = (const unsigned char *)b.data; *p; p += n) {
			long cp = utf8_at(p, &n);

			assert_true(cp >= 0x20 && cp != 0x7f && !(cp >= 0x80 && cp < 0xa0));
		}
		/* XML: only the characters XML 1.0 allows, markup escaped */
		b.len = 0;
		assert_int_equal(escape_xml(&b, name), 0);
		for (p = (const unsigned char *)b.data; *p; p += n) {
			long cp = utf8_at(p, &n);

			assert_true((cp >= 0x20 && cp <= 0xd7ff) ||
				    (cp >= 0xe000 && cp <= 0xfffd) || cp >= 0x10000);
			assert_true(*p != '<' && *p != '>' && *p != '"');
		}
		/* markdown: no mention, autolink, issue reference or raw tag */
		b.len = 0;
		assert_int_equal(escape_md(&b, name), 0);
		for (k = 0; k < b.len; k++) {
			const char *q = b.data + k;

			if (*q == '@')
				assert_memory_equal(q + 1, WJ, 3);
			assert_false(!strncmp(q, "://", 3));
			assert_false(!strncasecmp(q, "www.", 4));
			assert_false(*q == '#' && q[1] >= '0' && q[1] <= '9');
			assert_false(*q == '<' && (k == 0 || q[-1] != '\\'));
		}
		/* CSV of data: no cell (after unquoting, split at ';') a
		 * spreadsheet would compute */
		b.len = 0;
		assert_int_equal(escape_csv_data(&b, name), 0);
		{
			struct buf cell = BUF_INIT;
			const char *q = b.data, *c;

			if (*q == '"') {
				for (q++; *q && !(q[0] == '"' && q[1] != '"'); q++) {
					q += q[0] == '"';
					buf_putc(&cell, *q);
				}
			} else {
				buf_puts(&cell, q);
			}
			buf_puts(&cell, "");
			for (c = cell.data; c;) {
				const char *semi = strchr(c, ';');

				assert_true(hostile_csv_cell_safe(c, semi ? (size_t)(semi - c)
									  : strlen(c)));
				c = semi ? semi + 1 : NULL;
			}
			buf_release(&cell);
		}
		/* GitHub workflow commands: one line, no control character;
		 * a property holds no ':' or ',' (they end it) */
		for (k = 0; k < 2; k++) {
			b.len = 0;
			assert_int_equal((k ? escape_gh_prop : escape_gh_data)(&b, name), 0);
			for (p = (const unsigned char *)b.data; p && *p; p += n) {
				long cp = utf8_at(p, &n);

				assert_true(cp >= 0x20 && cp != 0x7f && !(cp >= 0x80 && cp < 0xa0));
				assert_false(k && (*p == ':' || *p == ','));
			}
		}
		/* JSON: valid UTF-8 */
		b.len = 0;
		assert_int_equal(escape_json(&b, name), 0);
		for (p = (const unsigned char *)b.data; *p; p += n)
			assert_true(utf8_at(p, &n) >= 0);
	}
	buf_release(&b);
}

/* One document using every kind of block and cell. */
static void make(struct doc *d)
{
	static const struct doc_col cols[] = {
	    {"name", "name", "name", DOC_TEXT, DOC_LEFT, DOC_F_HUMAN, 0, 0},
	    {"n", "n", "n", DOC_COUNT, DOC_RIGHT, DOC_F_HUMAN, 0, 0},
	    {"v", "v", "v", DOC_VALUE, DOC_RIGHT, DOC_F_HUMAN, DOC_RAW, 0},
	    {"d %", "pct", "pct", DOC_PCT, DOC_RIGHT, DOC_F_HUMAN, 0, 0},
	    {"tags", "tags", "tags", DOC_LIST, DOC_LEFT, DOC_F_TEXT, 0, 0},
	    {"sha", NULL, "sha", DOC_TEXT, DOC_LEFT, DOC_F_TEXT, 0, 4},
	};
	static const char *const tags[] = {"x", "y"};
	struct doc_table *t;
	struct doc_block *b;

	doc_init(d);
	doc_spanf(d, doc_heading(d, DOC_F_MD, 2), DOC_RAW, "Title %d", 1);
	b = doc_field(d, DOC_F_HUMAN, "Run");
	doc_span(d, b, "a_b\n", 0);
	doc_span(d, b, " ", DOC_RAW);
	doc_span(d, b, "FAIL", DOC_RAW | DOC_STRONG | DOC_BAD);
	doc_blank(d, DOC_F_HUMAN);
	t = doc_table(d, DOC_F_HUMAN | DOC_F_CSV, cols, 6);
	doc_row(t);
	doc_set_text(t, 0, "r|1");
	doc_set_num(t, 1, 0, 12.0);
	doc_set_num(t, 2, 0, 0.1 + 0.2);
	doc_set_num(t, 3, 0, 50.0);
	doc_set_list(t, 4, tags, 2);
	doc_set_text(t, 5, "abcdef");
	doc_set_flags(t, 3, DOC_STRONG | DOC_GOOD);
	doc_set_note(t, 3, "best");
	doc_row(t);
	doc_set_text(t, 0, "r,2");
	doc_set_list(t, 4, NULL, 0);
	doc_item(d, DOC_F_MD);
	doc_span(d, doc_item(d, DOC_F_MD), "item", 0);
	doc_json_root(d, DOC_V_OBJ, JSONW_INLINE);
	doc_json_table(d, d->json, "rows", t);
	/* a second CSV table joins the first (its header is not repeated) */
	t = doc_table(d, DOC_F_CSV, cols, 6);
	doc_row(t);
	doc_set_text(t, 0, "r3");
	/* terminal only: an empty table prints its note */
	t = doc_table(d, DOC_F_TEXT, cols, 1);
	doc_table_empty(t, "Nothing.");
}

/* d rendered as format with o must be want; releases d. */
static void expect_doc(struct doc *d, const char *format, const struct render_opts *o,
		       const char *want)
{
	struct buf b = BUF_INIT;

	assert_int_equal(render_doc(&b, format, d, o), 0);
	if (strcmp(b.data, want))
		fail_msg("%s: got:\n%s\nwant:\n%s", format, b.data, want);
	doc_release(d);
	buf_release(&b);
}

static void expect(const char *format, int color, const char *want)
{
	struct render_opts o = {color, 0, FORMAT_UNIT_AUTO, 0};
	struct doc d;

	make(&d);
	expect_doc(&d, format, &o, want);
}

/* Markdown cells: leading spaces (a tree's indent) as no-break spaces,
 * which GitHub keeps where it trims spaces; a bold cell of spaces alone
 * is not "****". */
static void test_md_cells(void **state)
{
	static const struct doc_col cols[] = {
	    {"region", "region", "region", DOC_TEXT, DOC_LEFT, DOC_F_HUMAN, 0, 0},
	};
	struct render_opts o = {0, 0, FORMAT_UNIT_AUTO, 0};
	struct doc_table *t;
	struct doc d;

	(void)state;
	doc_init(&d);
	t = doc_table(&d, DOC_F_HUMAN, cols, 1);
	doc_row(t);
	doc_set_text(t, 0, "main");
	doc_row(t);
	doc_set_text(t, 0, "  solve");
	doc_row(t);
	doc_set_text(t, 0, "   ");
	doc_set_flags(t, 0, DOC_STRONG);
	doc_row(t);
	doc_set_text(t, 0, "b ");
	doc_set_flags(t, 0, DOC_STRONG);
	expect_doc(&d, "markdown", &o,
		   "| region |\n"
		   "| :--- |\n"
		   "| main |\n"
		   "| \u00a0\u00a0solve |\n"
		   "| \u00a0\u00a0\u00a0 |\n"
		   "| **b ** |\n");
}

static void test_renderers(void **state)
{
	(void)state;
	expect("table", 0,
	       "Run: a_b? FAIL\n"
	       "\n"
	       "name   n    v   d %  tags  sha\n"
	       "r|1   12  0.3  +50%  x,y   abcd\n"
	       "r,2    -    -     -  -     -\n"
	       "Nothing.\n");
	expect("table", 1,
	       "Run: a_b? \033[1;31mFAIL\033[0m\n"
	       "\n"
	       "name   n    v   d %  tags  sha\n"
	       "r|1   12  0.3  \033[1;32m+50%\033[0m  x,y   abcd\n"
	       "r,2    -    -     -  -     -\n"
	       "Nothing.\n");
	expect("markdown", 0,
	       "## Title 1\n"
	       "- **Run:** a\\_b? **FAIL**\n"
	       "\n"
	       "| name | n | v | d % |\n"
	       "| :--- | ---: | ---: | ---: |\n"
	       "| r\\|1 | 12 | 0.3 | **+50%** (best) |\n"
	       "| r,2 | - | - | - |\n"
	       "- \n"
	       "- item\n");
	expect("csv", 0,
	       "name,n,v,pct,tags\n"
	       "r|1,12,0.30000000000000004,50.0,x;y\n"
	       "\"r,2\",,,,\n"
	       "r3,,,,\n");
	expect("json", 0,
	       "{\"rows\": [\n"
	       "  {\"name\": \"r|1\", \"n\": 12, \"v\": 0.30000000000000004, \"pct\": 50.0, "
	       "\"tags\": [\"x\", \"y\"], \"sha\": \"abcdef\"},\n"
	       "  {\"name\": \"r,2\", \"n\": null, \"v\": null, \"pct\": null, \"tags\": [], "
	       "\"sha\": null}\n"
	       "]}\n");
}

/* A check's findings (doc.findings): an error with a location, a
 * warning without one, a hostile name; github prints a workflow command
 * each, codequality an issue each that has a file. */
static void make_findings(struct doc *d)
{
	struct doc_table *t;

	doc_init(d);
	t = doc_table(d, 0, doc_finding_cols, DOC_FINDING_NCOLS);
	d->findings = t;
	doc_row(t);
	doc_set_text(t, DOC_FINDING_LEVEL, "error");
	doc_set_text(t, DOC_FINDING_REGION, "solve");
	doc_set_text(t, DOC_FINDING_FILE, "src/a,b:c.py");
	doc_set_id(t, DOC_FINDING_LINE, 42);
	doc_set_text(t, DOC_FINDING_TITLE, "scopedb: solve +16.8%");
	doc_set_text(t, DOC_FINDING_MESSAGE, "solve: total 1 s -> 1.17 s (+16.8%)");
	doc_set_text(t, DOC_FINDING_KEY, "k1");
	doc_row(t);
	doc_set_text(t, DOC_FINDING_LEVEL, "warning");
	doc_set_text(t, DOC_FINDING_REGION, "x\n::error::y");
	doc_set_text(t, DOC_FINDING_TITLE, "scopedb: x\n::error::y +1%");
	doc_set_text(t, DOC_FINDING_MESSAGE, "x\r\n::error::y \"q\"");
	doc_set_text(t, DOC_FINDING_KEY, "k2");
}

static void test_findings(void **state)
{
	struct render_opts o = {0, 0, FORMAT_UNIT_AUTO, 0};
	struct doc d;

	(void)state;
	make_findings(&d);
	expect_doc(&d, "github", &o,
		   "::error file=src/a%2Cb%3Ac.py,line=42,title=scopedb%3A solve +16.8%25::solve: "
		   "total 1 s -> 1.17 s (+16.8%25)\n"
		   "::warning title=scopedb%3A x%0A%3A%3Aerror%3A%3Ay +1%25::x%0D%0A::error::y "
		   "\"q\"\n");
	make_findings(&d);
	expect_doc(
	    &d, "codequality", &o,
	    "[\n  {\"description\": \"solve: total 1 s -> 1.17 s (+16.8%)\", \"check_name\": "
	    "\"scopedb-regression\", \"fingerprint\": "
	    "\"6ab9f1eb8f7d3388f4f9d586f66e99fd54080df2c446f0e58668b09c08a16dd0\", "
	    "\"severity\": \"major\", \"location\": {\"path\": \"src/a,b:c.py\", "
	    "\"lines\": {\"begin\": 42}}}\n]\n");
	/* no findings: nothing, and an empty report */
	doc_init(&d);
	expect_doc(&d, "github", &o, "");
	doc_init(&d);
	expect_doc(&d, "codequality", &o, "[]\n");
}

/* A table of durations (DOC_SECONDS), a count and a percentage rendered
 * as format with units u, UTF-8 or not. */
static void expect_units(const char *format, enum format_unit u, int utf8, const char *want)
{
	static const struct doc_col cols[] = {
	    {"region", "region", "region", DOC_TEXT, DOC_LEFT, DOC_F_HUMAN, 0, 0},
	    {"time", "time", "time", DOC_VALUE, DOC_RIGHT, DOC_F_HUMAN, DOC_SECONDS, 0},
	    {"delta", "delta", "delta", DOC_DELTA, DOC_RIGHT, DOC_F_HUMAN, DOC_SECONDS, 0},
	    {"calls", "calls", "calls", DOC_COUNT, DOC_RIGHT, DOC_F_HUMAN, 0, 0},
	    {"%", "pct", "pct", DOC_PCT, DOC_RIGHT, DOC_F_HUMAN, 0, 0},
	};
	static const double v[][4] = {
	    {0.0187, 0.000412, 1234567.0, 34.98},
	    {0.150604, -0.00524417, 12.0, -0.7914},
	    {0.000412, 0.0, 1000.0, 111.1},
	};
	struct render_opts o = {0, 0, u, utf8};
	struct doc_table *t;
	struct doc d;
	size_t r, c;

	doc_init(&d);
	t = doc_table(&d, DOC_F_HUMAN | DOC_F_CSV, cols, 5);
	for (r = 0; r < 3; r++) {
		doc_row(t);
		doc_set_text(t, 0, r == 0 ? "a" : r == 1 ? "bb" : "c");
		for (c = 0; c < 4; c++)
			doc_set_num(t, c + 1, 0, v[r][c]);
	}
	doc_row(t);
	doc_set_text(t, 0, "none");
	doc_json_root_table(&d, t);
	expect_doc(&d, format, &o, want);
}

/* Durations with a unit per column (the largest value picks it), aligned
 * on the decimal point on the terminal; --units forces one; "us" without
 * UTF-8; counts grouped, percentages signed with three digits; CSV and
 * JSON keep raw seconds. */
static void test_units(void **state)
{
	(void)state;
	expect_units("table", FORMAT_UNIT_AUTO, 1,
		     "region        time      delta      calls        %\n"
		     "a        18.7 ms    +0.412 ms  1,234,567     +35%\n"
		     "bb      151 ms      -5.24 ms          12  -0.791%\n"
		     "c         0.412 ms  +0 ms          1,000    +111%\n"
		     "none      -          -                 -        -\n");
	expect_units("table", FORMAT_UNIT_US, 0,
		     "region       time     delta      calls        %\n"
		     "a        18700 us   +412 us  1,234,567     +35%\n"
		     "bb      150604 us  -5244 us         12  -0.791%\n"
		     "c          412 us     +0 us      1,000    +111%\n"
		     "none         -         -             -        -\n");
	expect_units("markdown", FORMAT_UNIT_AUTO, 0,
		     "| region | time | delta | calls | % |\n"
		     "| :--- | ---: | ---: | ---: | ---: |\n"
		     "| a | 18.7 ms | +0.412 ms | 1,234,567 | +35% |\n"
		     "| bb | 151 ms | -5.24 ms | 12 | -0.791% |\n"
		     "| c | 0.412 ms | +0 ms | 1,000 | +111% |\n"
		     "| none | - | - | - | - |\n");
	expect_units("csv", FORMAT_UNIT_MS, 1,
		     "region,time,delta,calls,pct\n"
		     "a,0.0187,0.000412,1234567,34.98\n"
		     "bb,0.150604,-0.00524417,12,-0.7914\n"
		     "c,0.000412,0.0,1000,111.1\n"
		     "none,,,,\n");
}

static void test_errors(void **state)
{
	struct buf b = BUF_INIT;
	struct doc d;

	(void)state;
	assert_null(render_find("html"));
	assert_non_null(render_find("markdown"));
	/* any case, and md for markdown */
	assert_ptr_equal(render_find("MD"), render_find("markdown"));
	assert_ptr_equal(render_find("Json"), render_find("json"));
	make(&d);
	assert_int_equal(render_doc(&b, "html", &d, NULL), ERR_GENERIC);
	d.failed = 1; /* as after an allocation failure */
	assert_int_equal(render_doc(&b, "table", &d, NULL), ERR_NOMEM);
	doc_release(&d);
	buf_release(&b);
}

TU_MAIN(NULL, NULL,
	{
	    cmocka_unit_test(test_jsonw),
	    cmocka_unit_test(test_escape),
	    cmocka_unit_test(test_escape_hostile),
	    cmocka_unit_test(test_widths),
	    cmocka_unit_test(test_escape_corpus),
	    cmocka_unit_test(test_renderers),
	    cmocka_unit_test(test_md_cells),
	    cmocka_unit_test(test_findings),
	    cmocka_unit_test(test_units),
	    cmocka_unit_test(test_errors),
	})
