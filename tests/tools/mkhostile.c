/*
 * mkhostile.c - hostile input for the end-to-end tests:
 *   mkhostile KIND OUT.h5 [AUX]  one hostile profile (the kinds of
 *                                tests/support/hostile_h5.h; e2e_hostile.sh)
 *   mkhostile json-KIND OUT      one hostile JSON profile (hostile_json.h)
 *   mkhostile --json-cases       one line per JSON case: "KIND GZIP EXPECTED"
 *   mkhostile names OUT.h5 [N]   a profile whose regions and tags are the
 *                                hostile name corpus (hostile_names.h),
 *                                with label name N (distinct per N);
 *                                names-utf8: only its valid UTF-8 names
 *                                (all a store takes: docs/text.md)
 *   mkhostile list               the corpus, each name ended by a NUL byte
 *   mkhostile list-utf8          its valid UTF-8 names only
 *   mkhostile check csv|markdown|ci FILE
 *                                check scopedb's output of that format for
 *                                what a spreadsheet would compute (a cell,
 *                                after RFC 4180 unquoting and at each ';',
 *                                starting with = + - @ tab CR that is not
 *                                a plain number) or GitHub would turn into
 *                                a mention, a link or an issue reference
 *                                ('@' not followed by U+2060, "://",
 *                                "www.", '#' or "GH-" and a digit), or (ci,
 *                                any format) a CI runner would take for a
 *                                workflow command (a line starting with
 *                                "::" past its spaces, or holding "##[");
 *                                each finding on stderr, exit 1 if any
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "hostile_h5.h"
#include "hostile_json.h"
#include "hostile_names.h"

/* check csv: every field (RFC 4180) and each ';'-separated part of it. */
static int check_csv(const char *text)
{
	static char cell[1 << 16];
	const char *p = text;
	int bad = 0, line = 1;

	while (*p) {
		size_t n = 0, start = 0, k;

		if (*p == '"') {
			for (p++; *p && !(p[0] == '"' && p[1] != '"'); p++) {
				p += p[0] == '"';
				line += *p == '\n';
				if (n + 1 < sizeof(cell))
					cell[n++] = *p;
			}
			p += *p == '"';
		} else {
			for (; *p && *p != ',' && *p != '\n'; p++)
				if (n + 1 < sizeof(cell))
					cell[n++] = *p;
		}
		cell[n] = '\0';
		for (k = 0; k <= n; k++)
			if (k == n || cell[k] == ';') {
				if (!hostile_csv_cell_safe(cell + start, k - start)) {
					fprintf(stderr, "csv: line %d: a formula: '%.*s'\n", line,
						(int)(k - start), cell + start);
					bad = 1;
				}
				start = k + 1;
			}
		line += *p == '\n';
		if (*p)
			p++;
	}
	return bad;
}

/* check ci (any format): no line (ended by LF, CR or both) a CI runner
 * takes for a workflow command:
 * none that starts with "::" past its blanks and Unicode spaces (as .NET
 * trims them: U+00A0, U+1680, U+2000..U+200A, U+2028, U+2029, U+202F,
 * U+205F, U+3000, U+0085; their UTF-8 starts with 0xc2, 0xe1, 0xe2 or
 * 0xe3), none that holds "##[". */
static int check_ci(const char *text)
{
	static const char *const spaces[] = {"\xc2\xa0",     "\xc2\x85",     "\xe1\x9a\x80",
					     "\xe2\x80\xa8", "\xe2\x80\xa9", "\xe2\x80\xaf",
					     "\xe2\x81\x9f", "\xe3\x80\x80"};
	const char *p = text;
	int bad = 0, line = 1;

	while (*p) {
		const char *q = p, *end = p + strcspn(p, "\r\n"); /* a bare CR ends a line too */
		size_t k;

		for (;;) {
			if (*q == ' ' || *q == '\t' || *q == '\r' || *q == '\v' || *q == '\f') {
				q++;
				continue;
			}
			if ((unsigned char)q[0] == 0xe2 && (unsigned char)q[1] == 0x80 &&
			    (unsigned char)q[2] >= 0x80 && (unsigned char)q[2] <= 0x8a) {
				q += 3; /* U+2000..U+200A */
				continue;
			}
			for (k = 0; k < sizeof(spaces) / sizeof(*spaces); k++)
				if (!strncmp(q, spaces[k], strlen(spaces[k])))
					break;
			if (k == sizeof(spaces) / sizeof(*spaces))
				break;
			q += strlen(spaces[k]);
		}
		if (q[0] == ':' && q[1] == ':') {
			fprintf(stderr, "ci: line %d: a workflow command: '%.30s'\n", line, q);
			bad = 1;
		}
		for (q = p; q + 2 < end; q++)
			if (q[0] == '#' && q[1] == '#' && q[2] == '[') {
				fprintf(stderr, "ci: line %d: an old workflow command: '%.30s'\n",
					line, q);
				bad = 1;
			}
		p = *end ? end + 1 : end;
		line++;
	}
	return bad;
}

/* check markdown: no mention, autolink or issue reference. */
static int check_md(const char *text)
{
	const char *p;
	int bad = 0, line = 1;

	for (p = text; *p; p++) {
		const char *what = NULL;

		line += *p == '\n';
		if (*p == '@' && strncmp(p + 1, "\xe2\x81\xa0", 3))
			what = "a mention or an e-mail address";
		else if (!strncmp(p, "://", 3))
			what = "an autolink";
		else if (!strncasecmp(p, "www.", 4))
			what = "a www autolink";
		else if (*p == '#' && p[1] >= '0' && p[1] <= '9')
			what = "an issue reference";
		else if (!strncasecmp(p, "gh-", 3) && p[3] >= '0' && p[3] <= '9')
			what = "an issue reference (GH-)";
		if (what) {
			fprintf(stderr, "markdown: line %d: %s: '%.20s'\n", line, what, p);
			bad = 1;
		}
	}
	return bad;
}

/* The whole of path, NUL-terminated (malloc'ed), or NULL. */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t n = 0, cap = 0, k;

	if (!f)
		return NULL;
	do {
		if (n + 4096 + 1 > cap) {
			char *b = realloc(buf, cap = 2 * cap + 4096 + 1);

			if (!b) {
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = b;
		}
		k = fread(buf + n, 1, 4096, f);
		n += k;
	} while (k > 0);
	fclose(f);
	buf[n] = '\0';
	return buf;
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc == 4 && !strcmp(argv[1], "check")) {
		char *text = slurp(argv[3]);
		int bad;

		if (!text) {
			fprintf(stderr, "mkhostile: cannot read '%s'\n", argv[3]);
			return 2;
		}
		bad = !strcmp(argv[2], "csv")  ? check_csv(text)
		      : !strcmp(argv[2], "ci") ? check_ci(text)
					       : check_md(text);
		free(text);
		return bad;
	}
	if (argc == 2 && !strcmp(argv[1], "--json-cases")) {
		for (i = 0; i < hostile_json_ncases; i++)
			printf("%s %d %s\n", hostile_json_cases[i].kind, hostile_json_cases[i].gzip,
			       hostile_json_cases[i].expect);
		return 0;
	}
	if (argc == 3 && !strncmp(argv[1], "json-", 5)) {
		if (hostile_json_write(argv[1] + 5, argv[2])) {
			fprintf(stderr, "mkhostile: cannot write %s '%s'\n", argv[1], argv[2]);
			return 1;
		}
		return 0;
	}
	if (argc == 2 && (!strcmp(argv[1], "list") || !strcmp(argv[1], "list-utf8"))) {
		for (i = 0; i < hostile_nnames; i++)
			if (argv[1][4] == '\0' || hostile_name_is_utf8(hostile_names[i]))
				fwrite(hostile_names[i], 1, strlen(hostile_names[i]) + 1, stdout);
		return fflush(stdout) ? 1 : 0;
	}
	if (argc < 3 || argc > 4) {
		fputs("usage: mkhostile KIND OUT.h5 [AUX] | mkhostile list[-utf8]\n", stderr);
		return 2;
	}
	if (!strcmp(argv[1], "names") || !strcmp(argv[1], "names-utf8")
		? hostile_names_profile(argv[2], argc > 3 ? strtol(argv[3], NULL, 10) : -1,
					!strcmp(argv[1], "names-utf8"))
		: hostile_h5_write(argv[1], argv[2], argc > 3 ? argv[3] : NULL)) {
		fprintf(stderr, "mkhostile: cannot write %s '%s'\n", argv[1], argv[2]);
		return 1;
	}
	return 0;
}
