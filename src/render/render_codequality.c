/*
 * render_codequality.c - GitLab's Code Quality report (the JSON a merge
 * request shows in its widget and diff): an array with one issue per
 * finding of the document (doc.findings) that has a location in the
 * repository, GitLab's report needing a file:
 *
 *     [{"description": "...", "check_name": "scopedb-regression",
 *       "fingerprint": "<sha-256 hex>", "severity": "major",
 *       "location": {"path": "src/solver.py", "lines": {"begin": 42}}}]
 *
 * A failing region is "major" (check_name scopedb-regression), an
 * undecided one "minor" (scopedb-inconclusive); the fingerprint is the
 * SHA-256 of the check's name, metric and region, the same from one
 * pipeline to the next, so GitLab tells new findings from fixed ones.  A
 * location without a line is line 1.  Strings through escape_json().
 */
#include <string.h>

#include "render/escape.h"
#include "render/render.h"
#include "scopedb/err.h"
#include "util/sha256.h"

/* One issue of finding row r of t, after sep. */
static int render_cq_row(struct buf *out, const struct doc_table *t, size_t r, const char *sep)
{
	const struct doc_cell *line = doc_cell(t, r, DOC_FINDING_LINE);
	const char *key = doc_cell(t, r, DOC_FINDING_KEY)->s;
	int warn = doc_cell(t, r, DOC_FINDING_LEVEL)->s[0] == 'w';
	struct sha256 h;
	char hex[65];
	int rc = 0;

	sha256_init(&h);
	sha256_update(&h, key, strlen(key));
	sha256_hex(hex, &h);
	rc |= buf_printf(out, "%s  {\"description\": ", sep);
	rc |= escape_json(out, doc_cell(t, r, DOC_FINDING_MESSAGE)->s);
	rc |= buf_printf(out,
			 ", \"check_name\": \"%s\", \"fingerprint\": \"%s\", \"severity\": \"%s\", "
			 "\"location\": {\"path\": ",
			 warn ? "scopedb-inconclusive" : "scopedb-regression", hex,
			 warn ? "minor" : "major");
	rc |= escape_json(out, doc_cell(t, r, DOC_FINDING_FILE)->s);
	rc |= buf_printf(out, ", \"lines\": {\"begin\": %lld}}}",
			 line->null || line->i < 1 ? 1LL : (long long)line->i);
	return rc;
}

static int render_codequality(struct buf *out, const struct doc *d, const struct render_opts *o)
{
	const struct doc_table *t = d->findings;
	const char *sep = "\n";
	size_t r;
	int rc = buf_puts(out, "[");

	(void)o;
	for (r = 0; t && r < t->nrows && !rc; r++) {
		if (doc_cell(t, r, DOC_FINDING_FILE)->null)
			continue; /* GitLab needs a file */
		rc = render_cq_row(out, t, r, sep);
		sep = ",\n";
	}
	rc |= buf_puts(out, *sep == ',' ? "\n]\n" : "]\n");
	return rc ? err_nomem() : 0;
}

const struct renderer render_codequality_renderer = {
    .name = "codequality",
    .fmt = 0,
    .needs = RENDER_NEEDS_COMPARISON | RENDER_NEEDS_FINDINGS,
    .render = render_codequality,
};
