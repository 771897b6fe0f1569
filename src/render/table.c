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

/* Display width: UTF-8 code points (continuation bytes do not count). */
static size_t table_width(const char *s)
{
	size_t w = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			w++;
	return w;
}

int table_render(struct buf *out, const struct table *t, const char *indent, int rule, int trim)
{
	size_t *width, r, c, k, mark;
	int rc = 0;

	width = calloc(t->ncols ? t->ncols : 1, sizeof(*width));
	if (!width)
		return err_nomem();
	for (r = 0; r < t->nrows; r++)
		for (c = 0; c < t->ncols; c++) {
			size_t w = table_width(t->cells[r * t->ncols + c].text);

			if (w > width[c])
				width[c] = w;
		}
	for (r = 0; r < t->nrows && !rc; r++) {
		rc |= buf_puts(out, indent ? indent : "");
		for (c = 0; c < t->ncols; c++) {
			const struct table_cell *cell = &t->cells[r * t->ncols + c];
			size_t pad = width[c] - table_width(cell->text);
			int last = c + 1 == t->ncols;

			if (c)
				rc |= buf_puts(out, "  ");
			if (cell->color)
				rc |= buf_printf(out, "\033[%sm", cell->color);
			if (t->align[c] == TABLE_RIGHT)
				for (k = 0; k < pad; k++)
					rc |= buf_putc(out, ' ');
			rc |= escape_plain(out, cell->text);
			if (cell->color)
				rc |= buf_puts(out, "\033[0m");
			if (t->align[c] == TABLE_LEFT && !last)
				for (k = 0; k < pad; k++)
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
