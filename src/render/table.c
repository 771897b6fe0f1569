/*
 * table.c - aligned text tables (see table.h).
 */
#include <stdlib.h>
#include <string.h>

#include "scopedb/err.h"
#include "render/table.h"
#include "scopedb/util.h"

int table_init(struct table *t, size_t ncols, const char *const *header,
	       const enum table_align *align)
{
	memset(t, 0, sizeof(*t));
	t->ncols = ncols;
	t->align = calloc(ncols, sizeof(*t->align));
	if (!t->align)
		return err_nomem();
	if (align)
		memcpy(t->align, align, ncols * sizeof(*align));
	return table_add_row(t, header);
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

static void table_put_text(FILE *f, const char *s)
{
	for (; *s; s++)
		fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, f);
}

int table_print(const struct table *t, FILE *f, int rule)
{
	size_t *width, r, c;

	width = calloc(t->ncols ? t->ncols : 1, sizeof(*width));
	if (!width)
		return err_nomem();
	for (r = 0; r < t->nrows; r++)
		for (c = 0; c < t->ncols; c++) {
			size_t w = table_width(t->cells[r * t->ncols + c].text);

			if (w > width[c])
				width[c] = w;
		}
	for (r = 0; r < t->nrows; r++) {
		for (c = 0; c < t->ncols; c++) {
			const struct table_cell *cell = &t->cells[r * t->ncols + c];
			size_t pad = width[c] - table_width(cell->text), k;
			int last = c + 1 == t->ncols;

			if (c)
				fputs("  ", f);
			if (cell->color)
				fprintf(f, "\033[%sm", cell->color);
			if (t->align[c] == TABLE_RIGHT)
				for (k = 0; k < pad; k++)
					fputc(' ', f);
			table_put_text(f, cell->text);
			if (cell->color)
				fputs("\033[0m", f);
			if (t->align[c] == TABLE_LEFT && !last)
				for (k = 0; k < pad; k++)
					fputc(' ', f);
		}
		fputc('\n', f);
		if (r == 0 && rule) {
			for (c = 0; c < t->ncols; c++) {
				size_t k;

				if (c)
					fputs("  ", f);
				for (k = 0; k < width[c]; k++)
					fputc('-', f);
			}
			fputc('\n', f);
		}
	}
	free(width);
	return ferror(f) ? err_set(ERR_IO, "cannot write output") : 0;
}
