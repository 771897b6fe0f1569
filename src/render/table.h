/*
 * table.h - aligned text tables for terminal output.
 *
 * Cells are copied into the table; columns are padded to their widest cell
 * measured in UTF-8 code points, separated by two spaces, numbers usually
 * right-aligned.  Control characters in cells (newlines in hostile names)
 * are printed as '?' so one row stays one line.  Optional per-cell colour
 * (ANSI SGR) is applied around the padded text so alignment is unaffected.
 *
 * Ownership: struct table owns its cells; table_release() frees them.
 */
#ifndef SCOPEDB_TABLE_H
#define SCOPEDB_TABLE_H

#include <stddef.h>
#include <stdio.h>

#include "scopedb/util.h"

/* TABLE_DECIMAL: numbers with a unit ("18.7 ms", "412 ms", "-") aligned
 * on the decimal point (or where it would be), the unit after each
 * number; the header is right-aligned. */
enum table_align { TABLE_LEFT, TABLE_RIGHT, TABLE_DECIMAL };

struct table_cell {
	char *text;
	const char *color; /* ANSI SGR parameter such as "31", or NULL */
};

struct table {
	size_t ncols;
	enum table_align *align;
	size_t nrows; /* including the header row */
	int header;   /* row 0 is the header */
	size_t cap;
	struct table_cell *cells; /* nrows * ncols */
};

/* A table whose first row is the header (none when header is NULL). */
int table_init(struct table *t, size_t ncols, const char *const *header,
	       const enum table_align *align);
void table_release(struct table *t);

/* Append a row of ncols cells (NULL cell = ""). */
int table_add_row(struct table *t, const char *const *cells);

/* Colour of cell (row, col) of the last added row; row 0 is the header. */
void table_set_color(struct table *t, size_t col, const char *color);

/*
 * Append all rows to out, each line after indent (NULL: none); the first
 * row is underlined with dashes when rule != 0; trim drops the blanks
 * empty last columns leave at the end of a line.  0 or ERR_NOMEM.
 */
int table_render(struct buf *out, const struct table *t, const char *indent, int rule, int trim);

/* table_render() to a FILE; ERR_IO when writing failed. */
int table_print(const struct table *t, FILE *f, int rule);

#endif
