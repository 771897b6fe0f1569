/*
 * render_text.c - the terminal renderer: "Key: value" fields, lines,
 * aligned tables (table.c), ANSI colour for emphasis when asked for.
 * Every text goes through escape_plain() (control characters as '?').
 */
#include <stdlib.h>
#include <string.h>

#include "render/escape.h"
#include "render/render.h"
#include "render/table.h"
#include "scopedb/err.h"

/* The SGR parameter of an emphasis, or NULL. */
static const char *render_text_sgr(unsigned flags)
{
	int strong = !!(flags & DOC_STRONG);

	if (flags & DOC_BAD)
		return strong ? "1;31" : "31";
	if (flags & DOC_GOOD)
		return strong ? "1;32" : "32";
	return strong ? "1" : NULL;
}

static int render_text_spans(struct buf *out, const struct doc_text *t, const struct render_opts *o)
{
	const char *sgr;
	size_t i;
	int rc = 0;

	for (i = 0; i < t->n; i++) {
		sgr = o->color ? render_text_sgr(t->v[i].flags) : NULL;
		if (sgr)
			rc |= buf_printf(out, "\033[%sm", sgr);
		rc |= t->v[i].flags & DOC_RAW ? buf_puts(out, t->v[i].s)
					      : escape_plain(out, t->v[i].s);
		if (sgr)
			rc |= buf_puts(out, "\033[0m");
	}
	return rc;
}

/* A document table as a table.c table of the visible columns. */
static int render_text_table(struct buf *out, const struct doc_table *t,
			     const struct render_opts *o)
{
	const char **cells = calloc(t->ncols ? t->ncols : 1, sizeof(*cells));
	enum table_align *align = calloc(t->ncols ? t->ncols : 1, sizeof(*align));
	struct buf *text = calloc(t->ncols ? t->ncols : 1, sizeof(*text));
	size_t *map = calloc(t->ncols ? t->ncols : 1, sizeof(*map));
	struct doc_numfmt *nf = calloc(t->ncols ? t->ncols : 1, sizeof(*nf));
	struct table tt;
	size_t n = 0, r, c;
	int rc = 0;

	memset(&tt, 0, sizeof(tt));
	if (!cells || !align || !text || !map || !nf) {
		rc = err_nomem();
		goto out;
	}
	if (t->nrows == 0 && t->empty) {
		rc = buf_printf(out, "%s\n", t->empty) ? err_nomem() : 0;
		goto out;
	}
	for (c = 0; c < t->ncols; c++) {
		if (!(t->cols[c].fmts & o->fmt))
			continue;
		map[n] = c;
		cells[n] = t->cols[c].title ? t->cols[c].title : "";
		nf[n].unit = doc_col_unit(t, c, o->units);
		nf[n].utf8 = o->utf8;
		align[n] = t->cols[c].align == DOC_RIGHT ? TABLE_RIGHT : TABLE_LEFT;
		if (nf[n].unit != FORMAT_UNIT_AUTO)
			align[n] = TABLE_DECIMAL;
		n++;
	}
	rc = table_init(&tt, n, t->flags & DOC_TABLE_NOHEADER ? NULL : cells, align);
	for (r = 0; r < t->nrows && !rc; r++) {
		for (c = 0; c < n && !rc; c++) {
			text[c].len = 0;
			rc = doc_cell_human(&text[c], &t->cols[map[c]], doc_cell(t, r, map[c]),
					    &nf[c]);
			cells[c] = text[c].len ? text[c].data : "";
		}
		if (!rc)
			rc = table_add_row(&tt, cells);
		for (c = 0; c < n && !rc && o->color; c++)
			table_set_color(&tt, c, render_text_sgr(doc_cell(t, r, map[c])->flags));
	}
	if (!rc)
		rc = table_render(out, &tt, t->indent, !!(t->flags & DOC_TABLE_RULE),
				  !!(t->flags & DOC_TABLE_TRIM));
	rc = rc ? err_nomem() : 0;
out:
	for (c = 0; text && c < t->ncols; c++)
		buf_release(&text[c]);
	table_release(&tt);
	free(cells);
	free(align);
	free(text);
	free(map);
	free(nf);
	return rc;
}

static int render_text(struct buf *out, const struct doc *d, const struct render_opts *o)
{
	static const struct render_style style = {
	    "", ": ", "- ", 0, render_text_spans, render_text_table,
	};

	return render_blocks(out, d, o, &style);
}

const struct renderer render_text_renderer = {
    .name = "table", .fmt = DOC_F_TEXT, .needs = 0, .render = render_text};
