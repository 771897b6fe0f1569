/*
 * table.c - aligned text tables (see table.h), rendered into a buffer by the
 * terminal renderer (render_text.c).
 */
#include <stdlib.h>
#include <string.h>

#include "scopedb/err.h"
#include "render/escape.h"
#include "render/table.h"
#include "scopedb/util.h"

int table_init(struct table *t, size_t ncols, const char *const *header,
	       const enum table_align *align)
{
	memset(t, 0, sizeof(*t));
	t->ncols = ncols;
	t->align = calloc(ncols ? ncols : 1, sizeof(*t->align));
	if (!t->align)
		return err_nomem();
	if (align)
		memcpy(t->align, align, ncols * sizeof(*align));
	t->header = header != NULL;
	return header ? table_add_row(t, header) : 0;
}

void table_release(struct table *t)
{
	size_t i;

	for (i = 0; i < t->nrows * t->ncols; i++)
		free(t->cells[i].text);
	free(t->cells);
	free(t->align);
	memset(t, 0, sizeof(*t));
}

int table_add_row(struct table *t, const char *const *cells)
{
	size_t i;

	if (t->nrows == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 16;
		struct table_cell *p = realloc(t->cells, cap * t->ncols * sizeof(*p));

		if (!p)
			return err_nomem();
		t->cells = p;
		t->cap = cap;
	}
	for (i = 0; i < t->ncols; i++) {
		struct table_cell *c = &t->cells[t->nrows * t->ncols + i];

		c->color = NULL;
		c->text = util_strdup(cells && cells[i] ? cells[i] : "");
		if (!c->text) {
			while (i--)
				free(t->cells[t->nrows * t->ncols + i].text);
			return ERR_NOMEM;
		}
	}
	t->nrows++;
	return 0;
}

void table_set_color(struct table *t, size_t col, const char *color)
{
	if (t->nrows && col < t->ncols)
		t->cells[(t->nrows - 1) * t->ncols + col].color = color;
}

/* Display width: the terminal columns of its characters (escape_width():
 * a CJK name takes two a character, a combining accent none).  The text is
 * escaped already, so what is left prints; a stray byte counts one. */
static size_t table_width(const char *s)
{
	size_t w = 0, n;
	unsigned cp;
	int cw;

	for (; *s; s += n) {
		n = util_utf8_decode(s, &cp);
		cw = n ? escape_width(cp) : -1;
		n += !n;
		w += cw < 0 ? 1 : (size_t)cw;
	}
	return w;
}

/* The width of the integral part of a TABLE_DECIMAL cell: up to its
 * decimal point, else up to the blank before its unit, else all of it. */
static size_t table_int_width(const char *s)
{
	return strcspn(s, ". ");
}

/* Whether cell (r, c) is aligned on its decimal point. */
static int table_decimal(const struct table *t, size_t r, size_t c)
{
	return t->align[c] == TABLE_DECIMAL && !(r == 0 && t->header);
}

int table_render(struct buf *out, const struct table *t, const char *indent, int rule, int trim)
{
	size_t *width, *lead, *block, r, c, k, mark;
	int rc = 0;

	width = calloc(t->ncols ? t->ncols : 1, sizeof(*width));
	lead = calloc(t->ncols ? t->ncols : 1, sizeof(*lead));
	block = calloc(t->ncols ? t->ncols : 1, sizeof(*block));
	if (!width || !lead || !block) {
		free(width);
		free(lead);
		free(block);
		return err_nomem();
	}
	/* decimal columns: the widest integral part (lead), then the width
	 * of the aligned numbers (block), right-aligned under the header */
	for (r = 0; r < t->nrows; r++)
		for (c = 0; c < t->ncols; c++)
			if (table_decimal(t, r, c) &&
			    table_int_width(t->cells[r * t->ncols + c].text) > lead[c])
				lead[c] = table_int_width(t->cells[r * t->ncols + c].text);
	for (r = 0; r < t->nrows; r++)
		for (c = 0; c < t->ncols; c++) {
			const char *text = t->cells[r * t->ncols + c].text;
			size_t w = table_width(text);

			if (table_decimal(t, r, c)) {
				w += lead[c] - table_int_width(text);
				if (w > block[c])
					block[c] = w;
			}
			if (w > width[c])
				width[c] = w;
		}
	for (r = 0; r < t->nrows && !rc; r++) {
		rc |= buf_puts(out, indent ? indent : "");
		for (c = 0; c < t->ncols; c++) {
			const struct table_cell *cell = &t->cells[r * t->ncols + c];
			size_t pad = width[c] - table_width(cell->text), before = 0;
			int last = c + 1 == t->ncols;
			enum table_align align = t->align[c];

			if (c)
				rc |= buf_puts(out, "  ");
			if (cell->color)
				rc |= buf_printf(out, "\033[%sm", cell->color);
			if (table_decimal(t, r, c))
				before =
				    width[c] - block[c] + lead[c] - table_int_width(cell->text);
			else if (align == TABLE_DECIMAL)
				align = TABLE_RIGHT; /* the header */
			if (align == TABLE_RIGHT)
				before = pad;
			for (k = 0; k < before; k++)
				rc |= buf_putc(out, ' ');
			rc |= escape_plain(out, cell->text);
			if (cell->color)
				rc |= buf_puts(out, "\033[0m");
			if (align != TABLE_RIGHT && !last)
				for (k = before; k < pad; k++)
					rc |= buf_putc(out, ' ');
		}
		/* Optional last columns leave no blanks at the line's end. */
		mark = out->len;
		while (trim && mark > 0 && out->data[mark - 1] == ' ')
			mark--;
		out->len = mark;
		rc |= buf_putc(out, '\n');
		if (r == 0 && rule) {
			rc |= buf_puts(out, indent ? indent : "");
			for (c = 0; c < t->ncols; c++) {
				if (c)
					rc |= buf_puts(out, "  ");
				for (k = 0; k < width[c]; k++)
					rc |= buf_putc(out, '-');
			}
			rc |= buf_putc(out, '\n');
		}
	}
	free(width);
	free(lead);
	free(block);
	return rc ? err_nomem() : 0;
}

int table_print(const struct table *t, FILE *f, int rule)
{
	struct buf out = BUF_INIT;
	int rc = table_render(&out, t, NULL, rule, 0);

	if (!rc && out.len)
		fwrite(out.data, 1, out.len, f);
	buf_release(&out);
	if (rc)
		return rc;
	return ferror(f) ? err_set(ERR_IO, "cannot write output") : 0;
}
