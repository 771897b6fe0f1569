/*
 * render_json.c - the JSON renderer: the document's JSON tree through the
 * JSON writer (jsonw.h), then a newline.  A table value is an array of one
 * inline object per row, keyed by the columns' JSON names.
 */
#include <string.h>

#include "render/jsonw.h"
#include "render/render.h"
#include "scopedb/err.h"

static void render_json_value(struct jsonw *w, const struct doc_value *v);

/* A table cell as a JSON value: lists as arrays, scalars by type. */
static void render_json_cell(struct jsonw *w, const struct doc_col *c, const struct doc_cell *x)
{
	struct doc_value v;
	size_t i;

	if (c->type == DOC_LIST) {
		jsonw_begin_array(w, c->flags & DOC_COMPACT ? JSONW_COMPACT : JSONW_INLINE);
		for (i = 0; i < x->nlist; i++)
			jsonw_string(w, x->list[i]);
		jsonw_end(w);
		return;
	}
	memset(&v, 0, sizeof(v));
	v.i = x->i;
	v.v = x->v;
	v.s = x->s;
	v.is_count = c->type == DOC_COUNT || c->type == DOC_COUNT_DELTA;
	if (x->null)
		v.kind = DOC_V_NULL;
	else if (c->type == DOC_TEXT)
		v.kind = DOC_V_STR;
	else if (c->type == DOC_ID)
		v.kind = DOC_V_INT;
	else if (c->type == DOC_BOOL)
		v.kind = DOC_V_BOOL;
	else
		v.kind = DOC_V_NUM;
	render_json_value(w, &v);
}

static void render_json_table(struct jsonw *w, const struct doc_table *t)
{
	size_t r, c;

	jsonw_begin_array(w, t->layout);
	for (r = 0; r < t->nrows; r++) {
		jsonw_begin_object(w, JSONW_INLINE);
		for (c = 0; c < t->ncols; c++) {
			if (!t->cols[c].json)
				continue;
			jsonw_key(w, t->cols[c].json);
			render_json_cell(w, &t->cols[c], doc_cell(t, r, c));
		}
		jsonw_end(w);
	}
	jsonw_end(w);
}

static void render_json_value(struct jsonw *w, const struct doc_value *v)
{
	size_t i;

	switch (v->kind) {
	case DOC_V_OBJ:
	case DOC_V_ARR:
		if (v->kind == DOC_V_OBJ)
			jsonw_begin_object(w, v->layout);
		else
			jsonw_begin_array(w, v->layout);
		for (i = 0; i < v->n; i++) {
			if (v->kind == DOC_V_OBJ)
				jsonw_key(w, v->items[i]->key ? v->items[i]->key : "");
			render_json_value(w, v->items[i]);
		}
		jsonw_end(w);
		break;
	case DOC_V_TABLE:
		render_json_table(w, v->table);
		break;
	case DOC_V_STRS: {
		const char *p = v->s;

		jsonw_begin_array(w, v->layout);
		for (i = 0; i < (size_t)v->i; i++, p += strlen(p) + 1)
			jsonw_string(w, p);
		jsonw_end(w);
		break;
	}
	case DOC_V_STR:
		jsonw_string(w, v->s);
		break;
	case DOC_V_INT:
		jsonw_int(w, v->i);
		break;
	case DOC_V_NUM:
		jsonw_number(w, v->v, v->is_count);
		break;
	case DOC_V_BOOL:
		jsonw_bool(w, (int)v->i);
		break;
	default:
		jsonw_null(w);
		break;
	}
}

static int render_json(struct buf *out, const struct doc *d, const struct render_opts *o)
{
	struct jsonw w;
	int rc;

	(void)o;
	jsonw_init(&w, out);
	if (d->json)
		render_json_value(&w, d->json);
	else
		jsonw_null(&w);
	rc = jsonw_finish(&w);
	if (!rc && buf_putc(out, '\n'))
		rc = err_nomem();
	return rc;
}

const struct renderer render_json_renderer = {
    .name = "json", .fmt = DOC_F_JSON, .needs = 0, .render = render_json};
