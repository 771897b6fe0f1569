/*
 * render_junit.c - the JUnit XML renderer, for the test report views of
 * GitLab, Jenkins and others: one <testsuite> whose <testcase>s are the
 * rows of the document's data table (the CSV table: one per region for
 * diff and check), named by the row's first cell, with a <failure> for
 * each row the document marks as bad in its first cell (a check's budget
 * violations).  The failure message lists the row's other columns as
 * people read them, each once, durations with their unit ("baseline:
 * 19.2 ms, candidate: 28.8 ms, delta: +9.60 ms, delta %: +50%"); its type
 * says which rule the row broke: "inconclusive" (a statistical check that
 * could not decide, with --inconclusive fail; without it such a row is a
 * <skipped> with the same message, so that a check that exits 3 is not
 * read as all passed),
 * "new" (no baseline value, a: --fail-on-new), "missing" (no candidate
 * value, b: --fail-on-missing), else "regression" (over the budget).
 *
 * The suite is the document's name ("scopedb.check", "scopedb.diff";
 * "scopedb" for an unnamed one), the classname adds its subject, the
 * metric ("scopedb.check.total").  Text goes through escape_xml().
 */
#include <string.h>

#include "render/escape.h"
#include "render/render.h"
#include "scopedb/err.h"

/* The first table shown in o->fmt (the data table), or NULL. */
static const struct doc_table *render_junit_table(const struct doc *d, const struct render_opts *o)
{
	size_t i;

	for (i = 0; i < d->nblocks; i++)
		if (d->blocks[i].kind == DOC_B_TABLE && (d->blocks[i].fmts & o->fmt))
			return d->blocks[i].table;
	return NULL;
}

/* 1 when row r is a failure: its first cell is marked bad. */
static int render_junit_failed(const struct doc_table *t, size_t r)
{
	return (doc_cell(t, r, 0)->flags & DOC_BAD) != 0;
}

/* 1 when row r's verdict (a statistical check's) is c. */
static int render_junit_verdict_is(const struct doc_table *t, size_t r, const char *v)
{
	size_t c;

	for (c = 1; c < t->ncols; c++)
		if (t->cols[c].csv && !strcmp(t->cols[c].csv, "verdict") &&
		    !doc_cell(t, r, c)->null && !strcmp(doc_cell(t, r, c)->s, v))
			return 1;
	return 0;
}

/* 1 when row r is undecided and not failed (inconclusive, without
 * --inconclusive fail): a <skipped>, so that a report of a check that
 * exits 3 does not read as all passed. */
static int render_junit_skipped(const struct doc_table *t, size_t r)
{
	return !render_junit_failed(t, r) && render_junit_verdict_is(t, r, "inconclusive");
}

/*
 * The failure type of a failed row r of the comparison table (region, a,
 * b, ...): a row without a baseline value can only fail by --fail-on-new,
 * one without a candidate value, or at -100% (no call left), only by
 * --fail-on-missing (never over a budget); others are over the budget.
 */
static const char *render_junit_type(const struct doc_table *t, size_t r)
{
	size_t c;

	/* an undecided region failing the check (--inconclusive fail) */
	if (render_junit_verdict_is(t, r, "inconclusive"))
		return "inconclusive";
	if (t->ncols > 1 && doc_cell(t, r, 1)->null)
		return "new";
	if (t->ncols > 2 && doc_cell(t, r, 2)->null)
		return "missing";
	/* -100% (no call left) is never over a budget: --fail-on-missing */
	for (c = 1; c < t->ncols; c++)
		if (t->cols[c].csv && !strcmp(t->cols[c].csv, "pct") && !doc_cell(t, r, c)->null &&
		    doc_cell(t, r, c)->v <= -100.0)
			return "missing";
	return "regression";
}

/*
 * "title: value, ..." of row r's columns after the first (unescaped):
 * the columns people read, each once.  Left out: the columns for machines
 * alone (no title: a statistical check's raw ratio, bounds and p, which
 * its titled columns show as people read them) and the markdown twin of a
 * terminal column (shown in markdown only: the verdict with its icon).
 */
static int render_junit_message(struct buf *out, const struct doc_table *t, size_t r,
				const struct render_opts *o)
{
	/* durations with their unit, as the other formats say them (each
	 * value its own unless --units); an XML file is UTF-8: "µs" */
	const struct doc_numfmt nf = {o->units, 1};
	const char *sep = "";
	size_t c;
	int rc = 0;

	for (c = 1; c < t->ncols && !rc; c++) {
		const struct doc_col *col = &t->cols[c];

		if (!col->title || ((col->fmts & DOC_F_MD) && !(col->fmts & DOC_F_TEXT)))
			continue;
		rc |= buf_printf(out, "%s%s: ", sep, col->title);
		rc |= doc_cell_human(out, col, doc_cell(t, r, c), &nf);
		sep = ", ";
	}
	return rc;
}

/* One <testcase>, with its <failure> when the row failed. */
static int render_junit_case(struct buf *out, const struct doc_table *t, size_t r,
			     const char *classname, const struct render_opts *o)
{
	struct buf s = BUF_INIT;
	int rc = 0;

	rc |= doc_cell_human(&s, &t->cols[0], doc_cell(t, r, 0), NULL);
	rc |= buf_puts(out, "  <testcase name=\"");
	rc |= escape_xml(out, s.data ? s.data : "");
	rc |= buf_puts(out, "\" classname=\"");
	rc |= escape_xml(out, classname);
	if (render_junit_skipped(t, r)) {
		s.len = 0;
		rc |= buf_puts(&s, "inconclusive: ");
		rc |= render_junit_message(&s, t, r, o);
		rc |= buf_puts(out, "\">\n    <skipped message=\"");
		rc |= escape_xml(out, s.data ? s.data : "");
		rc |= buf_puts(out, "\"/>\n  </testcase>\n");
		goto out;
	}
	if (!render_junit_failed(t, r)) {
		rc |= buf_puts(out, "\"/>\n");
		goto out;
	}
	s.len = 0;
	rc |= buf_puts(&s, "");
	rc |= render_junit_message(&s, t, r, o);
	rc |= buf_printf(out, "\">\n    <failure type=\"%s\" message=\"", render_junit_type(t, r));
	rc |= escape_xml(out, s.data ? s.data : "");
	rc |= buf_puts(out, "\">");
	rc |= escape_xml(out, s.data ? s.data : "");
	rc |= buf_puts(out, "</failure>\n  </testcase>\n");
out:
	buf_release(&s);
	return rc;
}

static int render_junit(struct buf *out, const struct doc *d, const struct render_opts *o)
{
	const struct doc_table *t = render_junit_table(d, o);
	const char *suite = d->name ? d->name : "scopedb";
	struct buf cls = BUF_INIT;
	size_t r, nrows = t ? t->nrows : 0, nfail = 0, nskip = 0;
	int rc = 0;

	for (r = 0; r < nrows; r++) {
		nfail += (size_t)render_junit_failed(t, r);
		nskip += (size_t)render_junit_skipped(t, r);
	}
	rc |= buf_puts(&cls, suite);
	if (d->subject)
		rc |= buf_printf(&cls, ".%s", d->subject);
	rc |= buf_puts(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	rc |= buf_printf(out,
			 "<testsuite name=\"%s\" tests=\"%zu\" failures=\"%zu\" errors=\"0\" "
			 "skipped=\"%zu\">\n",
			 suite, nrows, nfail, nskip);
	for (r = 0; r < nrows && !rc; r++)
		rc = render_junit_case(out, t, r, cls.data, o);
	rc |= buf_puts(out, "</testsuite>\n");
	buf_release(&cls);
	return rc ? err_nomem() : 0;
}

const struct renderer render_junit_renderer = {
    .name = "junit", .fmt = DOC_F_CSV, .needs = RENDER_NEEDS_COMPARISON, .render = render_junit};
