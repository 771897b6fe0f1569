/*
 * doc.c - building and freeing documents, and the text of a typed cell
 * (see doc.h).  Rendering is in render_*.c.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/doc.h"
#include "render/format.h"
#include "scopedb/err.h"
#include "scopedb/util.h"

void doc_init(struct doc *d)
{
	memset(d, 0, sizeof(*d));
}

/* Grow *v (of *cap elements of size sz) to hold n + 1; 0 or -1. */
static int doc_grow(void *v, size_t *cap, size_t n, size_t sz)
{
	return util_grow(v, cap, n + 1, sz, 8) ? -1 : 0;
}

/* strdup that marks the document failed; NULL stays NULL. */
static char *doc_strdup(struct doc *d, const char *s)
{
	char *c;

	if (!s)
		return NULL;
	c = util_strdup(s);
	if (!c)
		d->failed = 1;
	return c;
}

static void doc_text_release(struct doc_text *t)
{
	while (t->n)
		free(t->v[--t->n].s);
	free(t->v);
}

static void doc_cell_release(struct doc_cell *c)
{
	size_t i;

	free(c->s);
	free(c->note);
	for (i = 0; i < c->nlist; i++)
		free(c->list[i]);
	free(c->list);
}

static void doc_table_free(struct doc_table *t)
{
	size_t i;

	if (!t)
		return;
	for (i = 0; i < t->nrows * t->ncols; i++)
		doc_cell_release(&t->cells[i]);
	free(t->cells);
	free(t->cols);
	free(t->empty);
	free(t);
}

static void doc_value_free(struct doc_value *v)
{
	size_t i;

	if (!v)
		return;
	for (i = 0; i < v->n; i++)
		doc_value_free(v->items[i]);
	free(v->items);
	free(v->key);
	free(v->s);
	free(v);
}

void doc_release(struct doc *d)
{
	size_t i;

	for (i = 0; i < d->nblocks; i++) {
		free(d->blocks[i].key);
		doc_text_release(&d->blocks[i].text);
	}
	free(d->blocks);
	for (i = 0; i < d->ntables; i++)
		doc_table_free(d->tables[i]);
	free(d->tables);
	doc_value_free(d->json);
	memset(d, 0, sizeof(*d));
}

int doc_check(const struct doc *d)
{
	return d->failed ? err_nomem() : 0;
}

static struct doc_block *doc_block_add(struct doc *d, enum doc_block_kind kind, unsigned fmts)
{
	struct doc_block *b;

	if (d->failed)
		return NULL;
	if (doc_grow(&d->blocks, &d->cap, d->nblocks, sizeof(*d->blocks))) {
		d->failed = 1;
		return NULL;
	}
	b = &d->blocks[d->nblocks++];
	memset(b, 0, sizeof(*b));
	b->kind = kind;
	b->fmts = fmts;
	return b;
}

struct doc_block *doc_field(struct doc *d, unsigned fmts, const char *key)
{
	struct doc_block *b = doc_block_add(d, DOC_B_FIELD, fmts);

	if (b)
		b->key = doc_strdup(d, key);
	return d->failed ? NULL : b;
}

struct doc_block *doc_line(struct doc *d, unsigned fmts)
{
	return doc_block_add(d, DOC_B_LINE, fmts);
}

struct doc_block *doc_item(struct doc *d, unsigned fmts)
{
	return doc_block_add(d, DOC_B_ITEM, fmts);
}

struct doc_block *doc_heading(struct doc *d, unsigned fmts, int level)
{
	struct doc_block *b = doc_block_add(d, DOC_B_HEADING, fmts);

	if (b)
		b->level = level;
	return b;
}

void doc_blank(struct doc *d, unsigned fmts)
{
	doc_block_add(d, DOC_B_BLANK, fmts);
}

void doc_span(struct doc *d, struct doc_block *b, const char *s, unsigned flags)
{
	struct doc_text *t;

	if (!b || d->failed)
		return;
	t = &b->text;
	if (doc_grow(&t->v, &t->cap, t->n, sizeof(*t->v))) {
		d->failed = 1;
		return;
	}
	t->v[t->n].s = doc_strdup(d, s ? s : "");
	t->v[t->n].flags = flags;
	if (t->v[t->n].s)
		t->n++;
}

void doc_spanf(struct doc *d, struct doc_block *b, unsigned flags, const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	s = n < 0 ? NULL : malloc((size_t)n + 1);
	if (!s) {
		d->failed = 1;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	doc_span(d, b, s, flags);
	free(s);
}

void doc_spans_join(struct doc *d, struct doc_block *b, const char *const *items, size_t n,
		    const char *sep, unsigned flags)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (i)
			doc_span(d, b, sep, DOC_RAW);
		doc_span(d, b, items[i], flags);
	}
}

struct doc_table *doc_table(struct doc *d, unsigned fmts, const struct doc_col *cols, size_t ncols)
{
	struct doc_table *t, **v;
	struct doc_block *b;

	if (d->failed)
		return NULL;
	v = realloc(d->tables, (d->ntables + 1) * sizeof(*v));
	t = calloc(1, sizeof(*t));
	if (v)
		d->tables = v;
	if (!v || !t || !(t->cols = calloc(ncols ? ncols : 1, sizeof(*cols)))) {
		free(t);
		d->failed = 1;
		return NULL;
	}
	d->tables[d->ntables++] = t;
	memcpy(t->cols, cols, ncols * sizeof(*cols));
	t->ncols = ncols;
	t->doc = d;
	t->layout = JSONW_BLOCK;
	if (fmts) {
		b = doc_block_add(d, DOC_B_TABLE, fmts);
		if (b)
			b->table = t;
	}
	return d->failed ? NULL : t;
}

void doc_row(struct doc_table *t)
{
	size_t i;

	if (!t || t->doc->failed)
		return;
	/* t->cap counts cells; doc_grow() doubles until a whole row fits */
	while (t->cap < (t->nrows + 1) * t->ncols)
		if (doc_grow(&t->cells, &t->cap, t->cap, sizeof(*t->cells))) {
			t->doc->failed = 1;
			return;
		}
	for (i = 0; i < t->ncols; i++) {
		memset(&t->cells[t->nrows * t->ncols + i], 0, sizeof(*t->cells));
		t->cells[t->nrows * t->ncols + i].null = 1;
	}
	t->nrows++;
}

/* The cell (last row, col) to set, or NULL. */
static struct doc_cell *doc_last(struct doc_table *t, size_t col)
{
	if (!t || t->doc->failed || !t->nrows || col >= t->ncols)
		return NULL;
	return &t->cells[(t->nrows - 1) * t->ncols + col];
}

void doc_set_text(struct doc_table *t, size_t col, const char *s)
{
	struct doc_cell *c = doc_last(t, col);

	if (!c || !s)
		return;
	free(c->s);
	c->s = doc_strdup(t->doc, s);
	c->null = !c->s;
}

void doc_set_id(struct doc_table *t, size_t col, int64_t v)
{
	struct doc_cell *c = doc_last(t, col);

	if (c) {
		c->i = v;
		c->null = 0;
	}
}

void doc_set_num(struct doc_table *t, size_t col, int none, double v)
{
	struct doc_cell *c = doc_last(t, col);

	if (c) {
		c->v = v;
		c->null = none;
	}
}

void doc_set_bool(struct doc_table *t, size_t col, int v)
{
	doc_set_id(t, col, v ? 1 : 0);
}

void doc_set_list(struct doc_table *t, size_t col, const char *const *s, size_t n)
{
	struct doc_cell *c = doc_last(t, col);
	size_t i;

	if (!c)
		return;
	c->null = 0;
	if (!n)
		return;
	c->list = calloc(n, sizeof(*c->list));
	if (!c->list) {
		t->doc->failed = 1;
		return;
	}
	for (i = 0; i < n; i++) {
		c->list[i] = doc_strdup(t->doc, s[i]);
		if (c->list[i])
			c->nlist++;
	}
}

void doc_set_flags(struct doc_table *t, size_t col, unsigned flags)
{
	struct doc_cell *c = doc_last(t, col);

	if (c)
		c->flags = flags;
}

void doc_set_edge(struct doc_table *t, size_t col, double edge)
{
	struct doc_cell *c = doc_last(t, col);

	if (c) {
		c->has_edge = 1;
		c->edge = edge;
	}
}

void doc_set_note(struct doc_table *t, size_t col, const char *note)
{
	struct doc_cell *c = doc_last(t, col);

	if (c) {
		free(c->note);
		c->note = doc_strdup(t->doc, note);
	}
}

void doc_table_empty(struct doc_table *t, const char *text)
{
	if (!t || t->doc->failed)
		return;
	free(t->empty);
	t->empty = doc_strdup(t->doc, text);
}

const struct doc_cell *doc_cell(const struct doc_table *t, size_t row, size_t col)
{
	return &t->cells[row * t->ncols + col];
}

/* A new value under parent (or the root when parent is NULL and root). */
static struct doc_value *doc_value_add(struct doc *d, struct doc_value *parent, const char *key,
				       enum doc_vkind kind)
{
	struct doc_value *v;

	if (d->failed || !parent)
		return NULL;
	v = calloc(1, sizeof(*v));
	if (!v || doc_grow(&parent->items, &parent->cap, parent->n, sizeof(*parent->items))) {
		free(v);
		d->failed = 1;
		return NULL;
	}
	v->kind = kind;
	if (parent->kind == DOC_V_OBJ)
		v->key = doc_strdup(d, key);
	parent->items[parent->n++] = v;
	return d->failed ? NULL : v;
}

struct doc_value *doc_json_root(struct doc *d, enum doc_vkind kind, enum jsonw_layout layout)
{
	if (d->failed)
		return NULL;
	doc_value_free(d->json);
	d->json = calloc(1, sizeof(*d->json));
	if (!d->json) {
		d->failed = 1;
		return NULL;
	}
	d->json->kind = kind;
	d->json->layout = layout;
	return d->json;
}

/* A container (object or array) under parent. */
static struct doc_value *doc_json_container(struct doc *d, struct doc_value *parent,
					    const char *key, enum doc_vkind kind,
					    enum jsonw_layout layout)
{
	struct doc_value *v = doc_value_add(d, parent, key, kind);

	if (v)
		v->layout = layout;
	return v;
}

struct doc_value *doc_json_obj(struct doc *d, struct doc_value *parent, const char *key,
			       enum jsonw_layout layout)
{
	return doc_json_container(d, parent, key, DOC_V_OBJ, layout);
}

struct doc_value *doc_json_arr(struct doc *d, struct doc_value *parent, const char *key,
			       enum jsonw_layout layout)
{
	return doc_json_container(d, parent, key, DOC_V_ARR, layout);
}

void doc_json_str(struct doc *d, struct doc_value *parent, const char *key, const char *s)
{
	struct doc_value *v = doc_value_add(d, parent, key, s ? DOC_V_STR : DOC_V_NULL);

	if (v && s)
		v->s = doc_strdup(d, s);
}

/* A number or boolean under parent. */
static void doc_json_scalar(struct doc *d, struct doc_value *parent, const char *key,
			    enum doc_vkind kind, int64_t i, double x, int is_count)
{
	struct doc_value *v = doc_value_add(d, parent, key, kind);

	if (v) {
		v->i = i;
		v->v = x;
		v->is_count = is_count;
	}
}

void doc_json_int(struct doc *d, struct doc_value *parent, const char *key, int64_t i)
{
	doc_json_scalar(d, parent, key, DOC_V_INT, i, 0.0, 0);
}

void doc_json_num(struct doc *d, struct doc_value *parent, const char *key, double x, int is_count)
{
	doc_json_scalar(d, parent, key, DOC_V_NUM, 0, x, is_count);
}

void doc_json_bool(struct doc *d, struct doc_value *parent, const char *key, int b)
{
	doc_json_scalar(d, parent, key, DOC_V_BOOL, b ? 1 : 0, 0.0, 0);
}

void doc_json_null(struct doc *d, struct doc_value *parent, const char *key)
{
	doc_value_add(d, parent, key, DOC_V_NULL);
}

/* One value for the whole array, its strings in one block: a path of
 * 1,024 names is one allocation, not 1,024 values (a diff over deep paths
 * keeps thousands of them).  An array with a NULL is built as values. */
void doc_json_strs(struct doc *d, struct doc_value *parent, const char *key, const char *const *s,
		   size_t n, enum jsonw_layout layout)
{
	struct doc_value *a;
	size_t i, len = 1;
	char *p;

	for (i = 0; i < n && s[i]; i++)
		len += strlen(s[i]) + 1;
	if (i < n) {
		a = doc_json_arr(d, parent, key, layout);
		for (i = 0; i < n; i++)
			doc_json_str(d, a, NULL, s[i]);
		return;
	}
	a = doc_value_add(d, parent, key, DOC_V_STRS);
	if (!a)
		return;
	a->layout = layout;
	a->i = (int64_t)n;
	a->s = p = malloc(len);
	if (!p) {
		d->failed = 1;
		return;
	}
	for (i = 0; i < n; i++) {
		size_t l = strlen(s[i]) + 1;

		memcpy(p, s[i], l);
		p += l;
	}
}

void doc_json_table(struct doc *d, struct doc_value *parent, const char *key,
		    const struct doc_table *t)
{
	struct doc_value *v = doc_value_add(d, parent, key, DOC_V_TABLE);

	if (v)
		v->table = t;
	if (!t)
		d->failed = 1;
}

void doc_json_root_table(struct doc *d, const struct doc_table *t)
{
	if (doc_json_root(d, DOC_V_TABLE, JSONW_BLOCK))
		d->json->table = t;
	if (!t)
		d->failed = 1;
}

/* A list joined by sep. */
static int doc_join(struct buf *out, const struct doc_cell *cell, const char *sep)
{
	size_t i;
	int rc = 0;

	for (i = 0; i < cell->nlist; i++)
		rc |= buf_printf(out, "%s%s", i ? sep : "", cell->list[i]);
	return rc ? ERR_NOMEM : 0;
}

enum format_unit doc_col_unit(const struct doc_table *t, size_t col, enum format_unit want)
{
	double max = 0.0;
	size_t r;

	if (col >= t->ncols || !(t->cols[col].flags & DOC_SECONDS))
		return FORMAT_UNIT_AUTO;
	if (want != FORMAT_UNIT_AUTO)
		return want;
	for (r = 0; r < t->nrows; r++) {
		const struct doc_cell *x = doc_cell(t, r, col);

		if (!x->null && fabs(x->v) > max)
			max = fabs(x->v);
	}
	return format_unit_pick(max);
}

/* The text of a number cell (none of DOC_TEXT, DOC_ID, DOC_BOOL, DOC_LIST)
 * for people; see doc_cell_human(). */
static void doc_number_human(char *s, size_t len, const struct doc_col *c,
			     const struct doc_cell *cell, const struct doc_numfmt *nf)
{
	double v = cell->v;

	enum format_unit u;

	switch (c->type) {
	case DOC_VALUE:
	case DOC_DELTA:
		if (nf && (c->flags & DOC_SECONDS)) {
			u = nf->unit != FORMAT_UNIT_AUTO ? nf->unit : format_unit_pick(fabs(v));
			format_duration(s, len, v, u, c->type == DOC_DELTA, nf->utf8);
		} else if (c->type == DOC_VALUE) {
			format_value(s, len, 0, v, 0);
		} else {
			format_delta(s, len, v, 0);
		}
		break;
	case DOC_COUNT:
		format_value(s, len, 0, v, 1);
		break;
	case DOC_COUNT_DELTA:
		format_delta(s, len, v, 1);
		break;
	default:
		format_pct_edge(s, len, 0, v, cell->has_edge ? cell->edge : NAN);
		break;
	}
}

int doc_cell_human(struct buf *out, const struct doc_col *c, const struct doc_cell *cell,
		   const struct doc_numfmt *nf)
{
	char s[64];

	if (c->type == DOC_LIST && cell->nlist)
		return doc_join(out, cell, ",");
	if (cell->null || (c->type == DOC_LIST && !cell->nlist))
		return buf_puts(out, "-");
	switch (c->type) {
	case DOC_TEXT:
		return c->cut ? buf_printf(out, "%.*s", (int)c->cut, cell->s)
			      : buf_puts(out, cell->s);
	case DOC_ID:
	case DOC_BOOL:
		snprintf(s, sizeof(s), "%lld", (long long)cell->i);
		break;
	default:
		doc_number_human(s, sizeof(s), c, cell, nf);
		break;
	}
	return buf_puts(out, s);
}

int doc_cell_csv(struct buf *out, const struct doc_col *c, const struct doc_cell *cell)
{
	char s[64];

	if (c->type == DOC_LIST)
		return doc_join(out, cell, ";");
	if (cell->null)
		return 0;
	switch (c->type) {
	case DOC_TEXT:
		return buf_puts(out, cell->s);
	case DOC_ID:
	case DOC_BOOL:
		snprintf(s, sizeof(s), "%lld", (long long)cell->i);
		break;
	default:
		format_number(s, sizeof(s), cell->v,
			      c->type == DOC_COUNT || c->type == DOC_COUNT_DELTA);
		break;
	}
	return buf_puts(out, s);
}

const struct doc_col doc_finding_cols[DOC_FINDING_NCOLS] = {
    {NULL, NULL, NULL, DOC_TEXT, DOC_LEFT, 0, 0, 0}, /* level */
    {NULL, NULL, NULL, DOC_TEXT, DOC_LEFT, 0, 0, 0}, /* region */
    {NULL, NULL, NULL, DOC_TEXT, DOC_LEFT, 0, 0, 0}, /* file */
    {NULL, NULL, NULL, DOC_ID, DOC_LEFT, 0, 0, 0},   /* line */
    {NULL, NULL, NULL, DOC_TEXT, DOC_LEFT, 0, 0, 0}, /* title */
    {NULL, NULL, NULL, DOC_TEXT, DOC_LEFT, 0, 0, 0}, /* message */
    {NULL, NULL, NULL, DOC_TEXT, DOC_LEFT, 0, 0, 0}, /* key */
};
