/*
 * render.c - the table of renderers (see render.h): the one place a new
 * output format is registered.
 */
#include <string.h>
#include <strings.h>

#include "render/render.h"
#include "scopedb/err.h"

/*
 * The output formats, one X(name) each: the struct renderer
 * render_<name>_renderer defined in render_<name>.c.  Adding a format is
 * adding it here.
 */
#define RENDER_FORMATS(X) X(text) X(json) X(csv) X(md) X(junit) X(github) X(codequality)

#define RENDER_DECLARE(n) extern const struct renderer render_##n##_renderer;
RENDER_FORMATS(RENDER_DECLARE)

#define RENDER_ENTRY(n) &render_##n##_renderer,
static const struct renderer *const render_table[] = {RENDER_FORMATS(RENDER_ENTRY)};

const struct renderer *render_at(size_t i)
{
	return i < sizeof(render_table) / sizeof(render_table[0]) ? render_table[i] : NULL;
}

const struct renderer *render_find(const char *name)
{
	size_t i;

	if (!strcasecmp(name, "md"))
		name = "markdown";
	for (i = 0; i < sizeof(render_table) / sizeof(render_table[0]); i++)
		if (!strcasecmp(render_table[i]->name, name))
			return render_table[i];
	return NULL;
}

int render_blocks(struct buf *out, const struct doc *d, const struct render_opts *o,
		  const struct render_style *how)
{
	size_t i;
	int rc = 0, k;

	for (i = 0; i < d->nblocks && !rc; i++) {
		const struct doc_block *b = &d->blocks[i];

		if (!(b->fmts & o->fmt))
			continue;
		switch (b->kind) {
		case DOC_B_TABLE:
			rc = how->table(out, b->table, o);
			continue;
		case DOC_B_BLANK:
			break;
		case DOC_B_FIELD:
			rc |= buf_printf(out, "%s%s%s", how->field_open, b->key, how->field_sep);
			rc |= how->spans(out, &b->text, o);
			break;
		case DOC_B_ITEM:
			rc |= buf_puts(out, how->item);
			rc |= how->spans(out, &b->text, o);
			break;
		default:
			for (k = 0; how->heading && b->kind == DOC_B_HEADING && k <= b->level; k++)
				rc |= buf_putc(out, k < b->level ? how->heading : ' ');
			rc |= how->spans(out, &b->text, o);
			break;
		}
		rc |= buf_putc(out, '\n');
		rc = rc ? err_nomem() : 0;
	}
	return rc;
}

int render_doc(struct buf *out, const char *name, const struct doc *d, const struct render_opts *o)
{
	const struct renderer *r = render_find(name);
	struct render_opts ro = {0, 0, FORMAT_UNIT_AUTO, 0};

	if (!r)
		return err_set(ERR_GENERIC, "no renderer for format '%s'", name);
	if (doc_check(d))
		return ERR_NOMEM;
	if (o)
		ro = *o;
	ro.fmt = r->fmt;
	return r->render(out, d, &ro);
}
