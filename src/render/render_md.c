/*
 * render_md.c - the GitHub-flavoured markdown renderer: fields as bullet
 * items with a bold key, headings, pipe tables (numbers right-aligned).
 * Spans and cells go through escape_md() unless marked DOC_RAW.
 */
#include <string.h>

#include "render/escape.h"
#include "render/render.h"
#include "scopedb/err.h"

static int render_md_put(struct buf *out, const char *s, unsigned flags)
{
	int rc = 0, strong = !!(flags & DOC_STRONG);

	if (strong)
		rc |= buf_puts(out, "**");
	rc |= flags & DOC_RAW ? buf_puts(out, s) : escape_md(out, s);
	if (strong)
		rc |= buf_puts(out, "**");
	return rc;
}

static int render_md_spans(struct buf *out, const struct doc_text *t)
{
	size_t i;
	int rc = 0;

	for (i = 0; i < t->n; i++)
		rc |= render_md_put(out, t->v[i].s, t->v[i].flags);
	return rc;
}

static int render_md_table(struct buf *out, const struct doc_table *t, unsigned fmt)
{
	struct buf cell = BUF_INIT;
	size_t r, c;
	int rc = 0;

	rc |= buf_putc(out, '|');
	for (c = 0; c < t->ncols; c++)
		if (t->cols[c].fmts & fmt)
			rc |= buf_printf(out, " %s |", t->cols[c].title ? t->cols[c].title : "");
	rc |= buf_puts(out, "\n|");
	for (c = 0; c < t->ncols; c++)
		if (t->cols[c].fmts & fmt)
			rc |= buf_puts(out, t->cols[c].align == DOC_LEFT ? " :--- |" : " ---: |");
	rc |= buf_putc(out, '\n');
	for (r = 0; r < t->nrows && !rc; r++) {
		rc |= buf_putc(out, '|');
		for (c = 0; c < t->ncols; c++) {
			const struct doc_cell *x = doc_cell(t, r, c);

			if (!(t->cols[c].fmts & fmt))
				continue;
			cell.len = 0;
			rc |= doc_cell_human(&cell, &t->cols[c], x);
			rc |= buf_putc(out, ' ');
			rc |= render_md_put(out, cell.len ? cell.data : "",
					    x->flags | t->cols[c].flags);
			if (x->note)
				rc |= buf_printf(out, " (%s)", x->note);
			rc |= buf_puts(out, " |");
		}
		rc |= buf_putc(out, '\n');
	}
	buf_release(&cell);
	return rc ? err_nomem() : 0;
}

int render_md(struct buf *out, const struct doc *d, const struct render_opts *o)
{
	size_t i;
	int rc = 0, k;

	for (i = 0; i < d->nblocks && !rc; i++) {
		const struct doc_block *b = &d->blocks[i];

		if (!(b->fmts & o->fmt))
			continue;
		switch (b->kind) {
		case DOC_B_TABLE:
			rc = render_md_table(out, b->table, o->fmt);
			continue;
		case DOC_B_BLANK:
			break;
		case DOC_B_FIELD:
			rc |= buf_printf(out, "- **%s:** ", b->key);
			rc |= render_md_spans(out, &b->text);
			break;
		case DOC_B_ITEM:
			rc |= buf_puts(out, "- ");
			rc |= render_md_spans(out, &b->text);
			break;
		case DOC_B_HEADING:
			for (k = 0; k < b->level; k++)
				rc |= buf_putc(out, '#');
			rc |= buf_putc(out, ' ');
			rc |= render_md_spans(out, &b->text);
			break;
		default:
			rc |= render_md_spans(out, &b->text);
			break;
		}
		rc |= buf_putc(out, '\n');
		rc = rc ? err_nomem() : 0;
	}
	return rc;
}
