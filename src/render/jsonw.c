/*
 * jsonw.c - the streaming JSON writer (see jsonw.h).
 */
#include <inttypes.h>

#include "render/escape.h"
#include "render/format.h"
#include "render/jsonw.h"
#include "scopedb/err.h"

void jsonw_init(struct jsonw *w, struct buf *out)
{
	w->out = out;
	w->failed = 0;
	w->depth = 0;
	w->blocks = 0;
}

static void jsonw_check(struct jsonw *w, int rc)
{
	if (rc)
		w->failed = 1;
}

/* Indentation of a line inside n block containers. */
static void jsonw_indent(struct jsonw *w, size_t n)
{
	size_t i;

	for (i = 0; i < 2 * n; i++)
		jsonw_check(w, buf_putc(w->out, ' '));
}

/*
 * The separator before an item of the current container (not after a key:
 * an object's member separator is written by jsonw_key()).
 */
static void jsonw_sep(struct jsonw *w)
{
	if (w->depth == 0)
		return;
	switch (w->stack[w->depth - 1].layout) {
	case JSONW_BLOCK:
		jsonw_check(w, buf_puts(w->out, w->stack[w->depth - 1].count ? ",\n" : "\n"));
		jsonw_indent(w, w->blocks);
		break;
	case JSONW_COMPACT:
		if (w->stack[w->depth - 1].count)
			jsonw_check(w, buf_putc(w->out, ','));
		break;
	default:
		if (w->stack[w->depth - 1].count)
			jsonw_check(w, buf_puts(w->out, ", "));
		break;
	}
	w->stack[w->depth - 1].count++;
}

/* Before a value: in an object the key did the separating. */
static void jsonw_value(struct jsonw *w)
{
	if (w->depth && w->stack[w->depth - 1].close == '}')
		return;
	jsonw_sep(w);
}

void jsonw_key(struct jsonw *w, const char *key)
{
	jsonw_sep(w);
	jsonw_check(w, escape_json(w->out, key));
	jsonw_check(w, buf_puts(w->out, ": "));
}

static void jsonw_begin(struct jsonw *w, enum jsonw_layout layout, char open, char close)
{
	jsonw_value(w);
	if (w->depth == JSONW_MAX_DEPTH) {
		w->failed = 1;
		return;
	}
	jsonw_check(w, buf_putc(w->out, open));
	w->stack[w->depth].layout = layout;
	w->stack[w->depth].count = 0;
	w->stack[w->depth].close = close;
	w->depth++;
	if (layout == JSONW_BLOCK)
		w->blocks++;
}

void jsonw_begin_object(struct jsonw *w, enum jsonw_layout layout)
{
	jsonw_begin(w, layout, '{', '}');
}

void jsonw_begin_array(struct jsonw *w, enum jsonw_layout layout)
{
	jsonw_begin(w, layout, '[', ']');
}

void jsonw_end(struct jsonw *w)
{
	if (w->depth == 0) {
		w->failed = 1;
		return;
	}
	w->depth--;
	if (w->stack[w->depth].layout == JSONW_BLOCK) {
		w->blocks--;
		if (w->stack[w->depth].count) {
			jsonw_check(w, buf_putc(w->out, '\n'));
			jsonw_indent(w, w->blocks);
		}
	}
	jsonw_check(w, buf_putc(w->out, w->stack[w->depth].close));
}

void jsonw_string(struct jsonw *w, const char *s)
{
	jsonw_value(w);
	jsonw_check(w, escape_json(w->out, s));
}

void jsonw_int(struct jsonw *w, int64_t v)
{
	jsonw_value(w);
	jsonw_check(w, buf_printf(w->out, "%" PRId64, v));
}

void jsonw_number(struct jsonw *w, double v, int is_count)
{
	char s[64];

	format_number(s, sizeof(s), v, is_count);
	jsonw_value(w);
	jsonw_check(w, buf_puts(w->out, s));
}

void jsonw_bool(struct jsonw *w, int v)
{
	jsonw_value(w);
	jsonw_check(w, buf_puts(w->out, v ? "true" : "false"));
}

void jsonw_null(struct jsonw *w)
{
	jsonw_value(w);
	jsonw_check(w, buf_puts(w->out, "null"));
}

int jsonw_finish(const struct jsonw *w)
{
	return w->failed || w->depth ? err_nomem() : 0;
}
