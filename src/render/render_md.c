/*
 * render_md.c - the GitHub-flavoured markdown renderer: fields as bullet
 * items with a bold key, headings, pipe tables (numbers right-aligned).
 * Spans and cells go through escape_md() unless marked DOC_RAW.
 */
#include <stdlib.h>
#include <string.h>

#include "render/escape.h"
#include "render/render.h"
#include "scopedb/err.h"

static int render_md_put(struct buf *out, const char *s, unsigned flags)
{
	/* "****" of an empty bold text would show as such */
	int rc = 0, strong = (flags & DOC_STRONG) && *s;

	if (strong)
		rc |= buf_puts(out, "**");
	rc |= flags & DOC_RAW ? buf_puts(out, s) : escape_md(out, s);
	if (strong)
		rc |= buf_puts(out, "**");
	return rc;
}

static int render_md_spans(struct buf *out, const struct doc_text *t, const struct render_opts *o)
{
	size_t i;
	int rc = 0;

	(void)o;
	for (i = 0; i < t->n; i++)
		rc |= render_md_put(out, t->v[i].s, t->v[i].flags);
	return rc;
}

/* Column c of t is shown: in this format, and not an untitled column whose
 * every cell is empty (--tree's mark where no row is of one side only: a
 * pipe table would keep it as a blank column). */
static int render_md_shown(const struct doc_table *t, size_t c, unsigned fmt)
{
	const char *title = t->cols[c].title;
	size_t r;

	if (!(t->cols[c].fmts & fmt))
		return 0;
	if (title && *title)
		return 1;
	for (r = 0; r < t->nrows; r++) {
		const struct doc_cell *x = doc_cell(t, r, c);

		/* a null cell shows as "-", a note after its value */
		if (t->cols[c].type != DOC_TEXT || x->null || x->note || (x->s && *x->s))
			return 1;
	}
	return 0;
}

static int render_md_table(struct buf *out, const struct doc_table *t, const struct render_opts *o)
{
	unsigned fmt = o->fmt;
	struct doc_numfmt *nf = calloc(t->ncols ? t->ncols : 1, sizeof(*nf));
	unsigned char *shown = calloc(t->ncols ? t->ncols : 1, 1);
	struct buf cell = BUF_INIT;
	size_t r, c, lead;
	int rc = 0;

	if (!nf || !shown) {
		free(nf);
		free(shown);
		return err_nomem();
	}
	if (t->nrows == 0 && t->empty) {
		/* as on the terminal: a header alone would read as "none" */
		rc |= render_md_put(out, t->empty, 0);
		rc |= buf_putc(out, '\n');
		free(nf);
		free(shown);
		return rc ? err_nomem() : 0;
	}
	for (c = 0; c < t->ncols; c++) {
		nf[c].unit = doc_col_unit(t, c, o->units);
		nf[c].utf8 = o->utf8;
		shown[c] = (unsigned char)render_md_shown(t, c, fmt);
	}

	rc |= buf_putc(out, '|');
	for (c = 0; c < t->ncols; c++) {
		if (!shown[c])
			continue;
		rc |= buf_putc(out, ' ');
		rc |= render_md_put(out, t->cols[c].title ? t->cols[c].title : "",
				    t->cols[c].flags & DOC_TITLE_TEXT ? 0 : DOC_RAW);
		rc |= buf_puts(out, " |");
	}
	rc |= buf_puts(out, "\n|");
	for (c = 0; c < t->ncols; c++)
		if (shown[c])
			rc |= buf_puts(out, t->cols[c].align == DOC_LEFT ? " :--- |" : " ---: |");
	rc |= buf_putc(out, '\n');
	for (r = 0; r < t->nrows && !rc; r++) {
		rc |= buf_putc(out, '|');
		for (c = 0; c < t->ncols; c++) {
			const struct doc_cell *x = doc_cell(t, r, c);

			if (!shown[c])
				continue;
			cell.len = 0;
			rc |= doc_cell_human(&cell, &t->cols[c], x, &nf[c]);
			rc |= buf_putc(out, ' ');
			/* GitHub trims the spaces around a cell's text: a tree's
			 * indent (or a name's leading spaces) kept as no-break
			 * spaces */
			for (lead = 0; lead < cell.len && cell.data[lead] == ' '; lead++)
				rc |= buf_puts(out, "\xc2\xa0");
			rc |= render_md_put(out, cell.len ? cell.data + lead : "",
					    x->flags | t->cols[c].flags);
			if (x->note)
				rc |= buf_printf(out, " (%s)", x->note);
			rc |= buf_puts(out, " |");
		}
		rc |= buf_putc(out, '\n');
	}
	buf_release(&cell);
	free(nf);
	free(shown);
	return rc ? err_nomem() : 0;
}

static int render_md(struct buf *out, const struct doc *d, const struct render_opts *o)
{
	static const struct render_style style = {
	    "- **", ":** ", "- ", '#', render_md_spans, render_md_table,
	};

	return render_blocks(out, d, o, &style);
}

const struct renderer render_md_renderer = {
    .name = "markdown", .fmt = DOC_F_MD, .needs = 0, .render = render_md};
