/*
 * render_csv.c - the CSV renderer: a CSV file holds one table, so the CSV
 * tables of a document print as one: the first one's header (the columns'
 * CSV names), then the rows of all.  Numbers (every column type but
 * DOC_TEXT and DOC_LIST, written by format.c) go through escape_csv() and
 * stay machine-readable ("-0.5"); strings (DOC_TEXT: names, labels,
 * commits, dates; DOC_LIST: tags) come from data and go through
 * escape_csv_data(), which keeps a spreadsheet from reading a formula in
 * them (docs/security.md).
 */
#include "render/escape.h"
#include "render/render.h"
#include "scopedb/err.h"

static int render_csv_rows(struct buf *out, const struct doc_table *t, int header)
{
	struct buf cell = BUF_INIT;
	size_t r, c, k;
	int rc = 0;

	if (header) {
		for (c = k = 0; c < t->ncols; c++)
			if (t->cols[c].csv)
				rc |= buf_printf(out, "%s%s", k++ ? "," : "", t->cols[c].csv);
		rc |= buf_putc(out, '\n');
	}
	for (r = 0; r < t->nrows && !rc; r++) {
		for (c = k = 0; c < t->ncols; c++) {
			if (!t->cols[c].csv)
				continue;
			cell.len = 0;
			rc |= doc_cell_csv(&cell, &t->cols[c], doc_cell(t, r, c));
			if (k++)
				rc |= buf_putc(out, ',');
			if (t->cols[c].type == DOC_TEXT || t->cols[c].type == DOC_LIST)
				rc |= escape_csv_data(out, cell.len ? cell.data : "");
			else
				rc |= escape_csv(out, cell.len ? cell.data : "");
		}
		rc |= buf_putc(out, '\n');
	}
	buf_release(&cell);
	return rc ? err_nomem() : 0;
}

static int render_csv(struct buf *out, const struct doc *d, const struct render_opts *o)
{
	size_t i, n = 0;
	int rc = 0;

	for (i = 0; i < d->nblocks && !rc; i++)
		if (d->blocks[i].kind == DOC_B_TABLE && (d->blocks[i].fmts & o->fmt))
			rc = render_csv_rows(out, d->blocks[i].table, n++ == 0);
	return rc;
}

const struct renderer render_csv_renderer = {
    .name = "csv", .fmt = DOC_F_CSV, .needs = 0, .render = render_csv};
