/*
 * jsonmeta.c - the "metadata" object of a JSON profile (see jsonmeta.h;
 * docs/format.md section 11.3): each member's value kept as the text the
 * HDF5 reader gives an attribute, or skipped, and the list sorted by key
 * as the HDF5 reader lists attributes.  Duplicate keys are refused.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scopedb/err.h"
#include "scopedb/util.h"
#include "jsonprof/jsonmeta.h"
#include "util/json.h"

/*
 * Append a string, number or null value to b (a string as it is, or as a
 * JSON string when quote): 1 when appended, 0 when the value is of another
 * kind (*k says which; nothing consumed), or a negative error.
 */
static int meta_scalar(struct jtok *t, struct buf *b, struct buf *s, int quote, enum jtok_kind *k)
{
	char text[32];
	double d;
	int rc, is_int;

	rc = jtok_kind(t, k);
	if (rc)
		return rc;
	switch (*k) {
	case JTOK_STRING:
		rc = jtok_string(t, s);
		if (!rc)
			rc = quote ? json_buf_string(b, s->data) : buf_add(b, s->data, s->len);
		break;
	case JTOK_NUMBER:
		rc = jtok_number(t, &d, &is_int, text, "a metadata value");
		if (!rc)
			rc = is_int ? buf_puts(b, text) : buf_printf(b, "%.17g", d);
		break;
	case JTOK_NULL:
		rc = jtok_null(t);
		rc = rc < 0 ? rc : buf_puts(b, "null");
		break;
	default:
		return 0;
	}
	return rc ? (rc < 0 ? rc : ERR_NOMEM) : 1;
}

/*
 * The value of a metadata key into b: 1 when kept, 0 when skipped
 * (booleans, objects, arrays holding them).
 */
static int meta_value(struct jtok *t, struct buf *b, struct buf *s, int *is_array)
{
	enum jtok_kind k;
	int rc, first = 1, skip = 0;

	*is_array = 0;
	rc = meta_scalar(t, b, s, 0, &k);
	if (rc)
		return rc;
	if (k != JTOK_ARRAY) {
		rc = jtok_skip(t, 2);
		return rc ? rc : 0;
	}
	*is_array = 1;
	t->pos++;
	rc = buf_putc(b, '[');
	while (!rc && (rc = jtok_more(t, ']', first)) == 1) {
		rc = 0;
		if (!first && !skip)
			rc = buf_putc(b, ',');
		first = 0;
		if (rc)
			break;
		if (!skip) {
			rc = meta_scalar(t, b, s, 1, &k);
			if (rc == 1) {
				rc = 0;
				continue;
			}
			if (rc)
				break;
			skip = 1;
		}
		rc = jtok_skip(t, 3);
	}
	if (rc)
		return rc;
	rc = buf_putc(b, ']');
	return rc ? rc : !skip;
}

static int meta_cmp(const void *a, const void *b)
{
	return strcmp(((const struct h5prof_meta *)a)->key, ((const struct h5prof_meta *)b)->key);
}

/* Append key = the text of val (its is_array) to m. */
static int meta_add(struct jsonmeta *m, const char *key, const struct buf *val, int is_array)
{
	struct h5prof_meta *e;
	int rc = util_grow(&m->v, &m->cap, m->n + 1, sizeof(*m->v), 16);

	if (rc)
		return rc;
	e = &m->v[m->n];
	e->key = util_strdup(key);
	e->value = util_strdup(val->data ? val->data : "");
	e->is_array = is_array;
	if (!e->key || !e->value) {
		free(e->key);
		free(e->value);
		return err_nomem();
	}
	m->n++;
	return 0;
}

int jsonmeta_read(struct jtok *t, struct jsonmeta *m)
{
	struct jtok_keys keys;
	struct buf key = BUF_INIT, val = BUF_INIT, s = BUF_INIT;
	int rc, first = 1;

	rc = jtok_open(t, '{', "\"metadata\"");
	if (rc)
		return rc;
	jtok_keys_init(&keys);
	while ((rc = jtok_more(t, '}', first)) == 1) {
		int is_array = 0;

		first = 0;
		rc = jtok_key(t, &keys, &key, "\"metadata\"");
		if (rc)
			break;
		val.len = 0;
		rc = buf_grow(&val, 0);
		if (!rc)
			rc = meta_value(t, &val, &s, &is_array);
		if (rc < 0)
			break;
		if (rc == 1)
			rc = meta_add(m, key.data, &val, is_array);
		if (rc)
			break;
	}
	jtok_keys_release(&keys);
	buf_release(&key);
	buf_release(&val);
	buf_release(&s);
	if (rc)
		return rc;
	if (m->n > 1)
		qsort(m->v, m->n, sizeof(*m->v), meta_cmp);
	return 0;
}

void jsonmeta_release(struct jsonmeta *m)
{
	size_t i;

	for (i = 0; i < m->n; i++) {
		free(m->v[i].key);
		free(m->v[i].value);
	}
	free(m->v);
	memset(m, 0, sizeof(*m));
}
