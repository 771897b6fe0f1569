/*
 * metadiff.c - the metadata keys that differ between two runs, and their
 * text, markdown and JSON renderings (see metadiff.h).  A merge of the two
 * key-sorted lists; no store access.
 */
#include <stdlib.h>
#include <string.h>

#include "scopedb/err.h"
#include "util/json.h"
#include "scopedb/metadiff.h"
#include "scopedb/store.h"

int metadiff_is_volatile(const char *key)
{
	static const char *const keys[] = {
	    "timestamp",      "start_time_ns",	      "finalize_time_ns",
	    "label",	      "SLURM_JOB_ID",	      "SLURM_JOBID",
	    "SLURM_TASK_PID", "SLURM_JOB_START_TIME", "SLURM_JOB_END_TIME",
	};
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcmp(key, keys[i]))
			return 1;
	return 0;
}

void metadiff_free(struct metadiff_change *c, size_t n)
{
	size_t i;

	if (!c)
		return;
	for (i = 0; i < n; i++) {
		free(c[i].key);
		free(c[i].a);
		free(c[i].b);
	}
	free(c);
}

int metadiff_compute(struct metadiff_change **out, size_t *n, const struct store_meta *a,
		     const struct store_meta *b, int all)
{
	struct metadiff_change *v = NULL, *ch;
	size_t i = 0, j = 0, len = 0;
	int rc = 0;

	*out = NULL;
	*n = 0;
	if (a->n + b->n == 0)
		return 0;
	v = calloc(a->n + b->n, sizeof(*v));
	if (!v)
		return err_nomem();
	while (i < a->n || j < b->n) {
		int c = i >= a->n ? 1 : j >= b->n ? -1 : strcmp(a->keys[i], b->keys[j]);
		const char *key = c <= 0 ? a->keys[i] : b->keys[j];
		const char *va = c <= 0 ? a->values[i] : NULL;
		const char *vb = c >= 0 ? b->values[j] : NULL;

		if (c <= 0)
			i++;
		if (c >= 0)
			j++;
		if ((va && vb && !strcmp(va, vb)) || (!all && metadiff_is_volatile(key)))
			continue;
		ch = &v[len++];
		ch->key = util_strdup(key);
		ch->a = util_strdup(va);
		ch->b = util_strdup(vb);
		if (!ch->key || (va && !ch->a) || (vb && !ch->b)) {
			rc = ERR_NOMEM;
			goto out;
		}
	}
	if (len) {
		*out = v;
		*n = len;
		v = NULL;
	}
out:
	metadiff_free(v, len);
	return rc;
}

/* Code points of s (UTF-8 continuation bytes do not count). */
static size_t metadiff_width(const char *s)
{
	size_t w = 0;

	for (; *s; s++)
		w += ((unsigned char)*s & 0xc0) != 0x80;
	return w;
}

/* Append s with control characters as '?', cut after maxw code points
 * (then "..."); md escapes markdown specials. */
static int metadiff_put(struct buf *out, const char *s, size_t maxw, int md)
{
	size_t w = 0;
	int rc = 0;

	for (; *s && !rc; s++) {
		unsigned char c = (unsigned char)*s;

		if ((c & 0xc0) != 0x80 && maxw && w++ == maxw)
			return buf_puts(out, "...");
		if (c < 0x20 || c == 0x7f)
			rc = buf_putc(out, '?');
		else if (md && strchr("\\`*_[]<>|~&#", c))
			rc = buf_printf(out, "\\%c", c);
		else
			rc = buf_putc(out, (char)c);
	}
	return rc;
}

int metadiff_text(struct buf *out, const struct metadiff_change *c, size_t n, const char *indent,
		  size_t maxw)
{
	size_t i, w = 0, k;
	int rc = 0;

	for (i = 0; i < n; i++)
		if (metadiff_width(c[i].key) > w)
			w = metadiff_width(c[i].key);
	for (i = 0; i < n && !rc; i++) {
		rc |= buf_puts(out, indent);
		rc |= metadiff_put(out, c[i].key, 0, 0);
		for (k = metadiff_width(c[i].key); k < w + 2; k++)
			rc |= buf_putc(out, ' ');
		rc |= c[i].a ? metadiff_put(out, c[i].a, maxw, 0) : buf_puts(out, "(unset)");
		rc |= buf_puts(out, " -> ");
		rc |= c[i].b ? metadiff_put(out, c[i].b, maxw, 0) : buf_puts(out, "(unset)");
		rc |= buf_putc(out, '\n');
	}
	return rc ? err_nomem() : 0;
}

int metadiff_markdown(struct buf *out, const struct metadiff_change *c, size_t n, size_t maxw)
{
	size_t i;
	int rc = 0;

	for (i = 0; i < n && !rc; i++) {
		rc |= buf_puts(out, "- ");
		rc |= metadiff_put(out, c[i].key, 0, 1);
		rc |= buf_puts(out, ": ");
		rc |= c[i].a ? metadiff_put(out, c[i].a, maxw, 1) : buf_puts(out, "(unset)");
		rc |= buf_puts(out, " → ");
		rc |= c[i].b ? metadiff_put(out, c[i].b, maxw, 1) : buf_puts(out, "(unset)");
		rc |= buf_putc(out, '\n');
	}
	return rc ? err_nomem() : 0;
}

int metadiff_json(struct buf *out, const struct metadiff_change *c, size_t n)
{
	size_t i;
	int rc = buf_putc(out, '[');

	for (i = 0; i < n && !rc; i++) {
		rc |= buf_puts(out, i ? ", {\"key\": " : "{\"key\": ");
		rc |= json_buf_string(out, c[i].key);
		rc |= buf_puts(out, ", \"a\": ");
		rc |= c[i].a ? json_buf_string(out, c[i].a) : buf_puts(out, "null");
		rc |= buf_puts(out, ", \"b\": ");
		rc |= c[i].b ? json_buf_string(out, c[i].b) : buf_puts(out, "null");
		rc |= buf_putc(out, '}');
	}
	rc |= buf_putc(out, ']');
	return rc ? err_nomem() : 0;
}
