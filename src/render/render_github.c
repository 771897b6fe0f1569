/*
 * render_github.c - GitHub Actions workflow commands, so that a check's
 * findings appear on the lines of code of a pull request: one command per
 * finding of the document (doc.findings), "::error" for a region that
 * fails the check, "::warning" for one a statistical check could not
 * decide:
 *
 *     ::error file=src/solver.py,line=42,title=scopedb%3A solve +16.8%25::solve: total ...
 *
 * file and line only when the region has a location in the repository
 * (compare_opts.locations); the title and message through escape_gh_prop()
 * and escape_gh_data() (escape.c), so no name can end the command or
 * start another one.  A document without findings prints nothing.
 */
#include "render/escape.h"
#include "render/render.h"
#include "scopedb/err.h"

/* One workflow command for finding row r of t. */
static int render_github_row(struct buf *out, const struct doc_table *t, size_t r)
{
	const struct doc_cell *file = doc_cell(t, r, DOC_FINDING_FILE);
	const struct doc_cell *line = doc_cell(t, r, DOC_FINDING_LINE);
	int rc = 0;

	rc |= buf_printf(out, "::%s ", doc_cell(t, r, DOC_FINDING_LEVEL)->s);
	if (!file->null) {
		rc |= buf_puts(out, "file=");
		rc |= escape_gh_prop(out, file->s);
		if (!line->null)
			rc |= buf_printf(out, ",line=%lld", (long long)line->i);
		rc |= buf_putc(out, ',');
	}
	rc |= buf_puts(out, "title=");
	rc |= escape_gh_prop(out, doc_cell(t, r, DOC_FINDING_TITLE)->s);
	rc |= buf_puts(out, "::");
	rc |= escape_gh_data(out, doc_cell(t, r, DOC_FINDING_MESSAGE)->s);
	rc |= buf_putc(out, '\n');
	return rc;
}

static int render_github(struct buf *out, const struct doc *d, const struct render_opts *o)
{
	size_t r;
	int rc = buf_puts(out, "");

	(void)o;
	for (r = 0; d->findings && r < d->findings->nrows && !rc; r++)
		rc = render_github_row(out, d->findings, r);
	return rc ? err_nomem() : 0;
}

const struct renderer render_github_renderer = {
    .name = "github",
    .fmt = 0,
    .needs = RENDER_NEEDS_COMPARISON | RENDER_NEEDS_FINDINGS,
    .render = render_github,
};
