/*
 * hostile_names.c - the hostile name corpus and a profile made of it (see
 * hostile_names.h).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "h5write.h"
#include "hostile_names.h"

const char *const hostile_names[] = {
    /* issue 5: quotes, format strings, line breaks, control bytes,
     * invalid UTF-8, SQL */
    "it's",
    "say \"hi\"",
    "100%s %n %% %99999999d",
    "line1\nline2\r\n",
    "tab\there \x01\x1f\x7f",
    "bad utf-8 \xff\xfe\x80\xc3",
    "'; DROP TABLE runs; --",
    "Robert'); DELETE FROM timings; --",
    "back\\slash \\u0041 \\",
    "?1 :name @x $y ` [z]",
    /* issue 13: the terminal (ESC, C1 CSI, OSC) */
    "clear\x1b[2J\x1b]0;title\x07",
    "c1 \xc2\x9b"
    "31m red",
    /* issue 29: shell completion (expansion, commands, globs) */
    "$(touch${IFS}PWNED)",
    "`touch PWNED`",
    "x;touch PWNED",
    "*",
    "?[a]",
    "$HOME ~ !! {a,b}",
    /* spreadsheet formulas (CSV), at a cell's start and after ';' */
    "=HYPERLINK(\"http://example.invalid/x\",\"click\")",
    "+1+cmd|' /C calc'!A0",
    "-2+3",
    "@SUM(A1:A2)",
    "\t=1",
    "\r=1",
    "nightly;=1+1",
    "-0.5",
    /* markdown: mentions, autolinks, issue references, entities */
    "cc @octocat and @org/team",
    "see https://example.invalid/x and www.example.invalid",
    "fixes #1, GH-2",
    "&#64;octocat &amp; \\@x",
    "*bold* _it_ [link](javascript:alert(1)) | pipe",
    /* CI logs: GitHub Actions' workflow commands, at a line's start (past
     * blanks and Unicode spaces) and the older form anywhere */
    "::stop-commands::pwntoken",
    "  ::add-mask::secret",
    "\xe2\x80\x83::warning::fake",
    "log ##[error]fake",
    "x\n::add-mask::m",
    "x\r  ::warning::m",
    /* HTML, SVG and XML */
    "<img src=x onerror=alert(1)>",
    "</title></text></svg><script>alert(2)</script>",
    "\" onmouseover=\"alert(3)",
    "non-characters \xef\xbf\xbe \xef\xbf\xbf",
    "]]><!--",
    /* options and paths */
    "--help",
    "-rf",
    "../../etc/passwd",
    /* bidirectional override (a line that reads otherwise) */
    "abc\xe2\x80\xae"
    "fed",
};
const size_t hostile_nnames = sizeof(hostile_names) / sizeof(hostile_names[0]);

int hostile_csv_cell_safe(const char *s, size_t n)
{
	char num[64], *end;

	if (!n || !strchr("=+-@\t\r", s[0]))
		return 1;
	if (n >= sizeof(num))
		return 0;
	memcpy(num, s, n);
	num[n] = '\0';
	(void)strtod(num, &end);
	return *end == '\0' && !strpbrk(num, "iInN");
}

int hostile_name_is_utf8(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p) {
		size_t n = *p < 0x80		      ? 1
			   : *p >= 0xf0 && *p <= 0xf4 ? 4
			   : *p >= 0xe0		      ? 3
			   : *p >= 0xc2		      ? 2
						      : 0,
		       k;

		if (!n || (*p >= 0xf0 && n != 4))
			return 0;
		for (k = 1; k < n; k++)
			if ((p[k] & 0xc0) != 0x80)
				return 0;
		p += n;
	}
	return 1;
}

int hostile_names_profile(const char *path, long seed, int utf8_only)
{
	struct h5write_opts o;
	struct h5write_profile prof;
	struct h5write_meta meta[2];
	struct h5write_row *rows = calloc(2 * hostile_nnames, sizeof(*rows));
	const char **names = calloc(hostile_nnames, sizeof(*names));
	int64_t *v = calloc(2 * hostile_nnames * 6, sizeof(*v));
	size_t i, c, n = 0;
	int rc = -1;

	if (!rows || !v || !names)
		goto out;
	for (i = 0; i < hostile_nnames; i++)
		if (!utf8_only || hostile_name_is_utf8(hostile_names[i]))
			names[n++] = hostile_names[i];
	for (i = 0; i < 2 * n; i++) {
		int64_t *starts = v + 6 * i, *ends = starts + 3, base = 1000 * (int64_t)i;

		for (c = 0; c < 3; c++) {
			starts[c] = base + 100 * (int64_t)c;
			/* the first call: 0 ns (a log axis must not take its log) */
			ends[c] =
			    starts[c] + (c == 0 ? 0 : 10 * (int64_t)c + (seed > 0 ? seed : 0));
		}
		rows[i].rank = (uint32_t)(i / n);
		rows[i].region = names[i % n];
		rows[i].calls = 3;
		rows[i].starts = starts;
		rows[i].ends = ends;
		rows[i].source_file = names[(i + 1) % n];
		rows[i].source_line = (int64_t)i;
		rows[i].tags = names;
		rows[i].ntags = n;
	}
	memset(meta, 0, sizeof(meta));
	meta[0].key = "label";
	meta[0].str = seed >= 0 ? names[(size_t)seed % n] : "hostile";
	meta[1].key = "timestamp";
	meta[1].str = "2026-01-01T00:00:00Z";
	memset(&prof, 0, sizeof(prof));
	prof.rows = rows;
	prof.nrows = 2 * n;
	prof.meta = meta;
	prof.nmeta = 2;
	memset(&o, 0, sizeof(o));
	o.schema = 3;
	o.mpi_size = 2;
	rc = h5write_file(path, &prof, &o) ? -1 : 0;
out:
	free(rows);
	free(names);
	free(v);
	return rc;
}
