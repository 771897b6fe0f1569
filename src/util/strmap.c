/*
 * strmap.c - string interning with an open-addressing hash table (FNV-1a,
 * linear probing, load factor at most 1/2) over a single string arena.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scopedb/err.h"
#include "util/strmap.h"

void strmap_init(struct strmap *m)
{
	buf_init(&m->arena);
	m->offs = NULL;
	m->n = 0;
	m->cap = 0;
	m->slots = NULL;
	m->nslots = 0;
}

void strmap_release(struct strmap *m)
{
	buf_release(&m->arena);
	free(m->offs);
	free(m->slots);
	strmap_init(m);
}

static uint64_t strmap_hash(const char *s)
{
	uint64_t h = UINT64_C(14695981039346656037);

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= UINT64_C(1099511628211);
	}
	return h;
}

/* Slot index holding s, or the empty slot where it would go. */
static size_t strmap_slot(const struct strmap *m, const char *s)
{
	size_t mask = m->nslots - 1;
	size_t i = (size_t)strmap_hash(s) & mask;

	while (m->slots[i]) {
		size_t id = m->slots[i] - 1;

		if (strcmp(m->arena.data + m->offs[id], s) == 0)
			break;
		i = (i + 1) & mask;
	}
	return i;
}

/* Double the table (or create it) and re-insert every id. */
static int strmap_rehash(struct strmap *m)
{
	size_t nslots = m->nslots ? m->nslots * 2 : 64;
	size_t *slots, id;

	if (nslots > SIZE_MAX / sizeof(*slots))
		return err_nomem();
	slots = calloc(nslots, sizeof(*slots));
	if (!slots)
		return err_nomem();
	free(m->slots);
	m->slots = slots;
	m->nslots = nslots;
	for (id = 0; id < m->n; id++)
		m->slots[strmap_slot(m, m->arena.data + m->offs[id])] = id + 1;
	return 0;
}

int strmap_intern(size_t *out, struct strmap *m, const char *s)
{
	size_t i, off;

	if ((m->n + 1) * 2 > m->nslots && strmap_rehash(m))
		return ERR_NOMEM;
	i = strmap_slot(m, s);
	if (m->slots[i]) {
		*out = m->slots[i] - 1;
		return 0;
	}
	if (util_grow(&m->offs, &m->cap, m->n + 1, sizeof(*m->offs), 16))
		return ERR_NOMEM;
	off = m->arena.len;
	if (buf_add(&m->arena, s, strlen(s) + 1))
		return ERR_NOMEM;
	m->offs[m->n] = off;
	m->slots[i] = m->n + 1;
	*out = m->n++;
	return 0;
}

size_t strmap_find(const struct strmap *m, const char *s)
{
	size_t i;

	if (!m->nslots)
		return STRMAP_NONE;
	i = strmap_slot(m, s);
	return m->slots[i] ? m->slots[i] - 1 : STRMAP_NONE;
}

const char *strmap_get(const struct strmap *m, size_t id)
{
	return m->arena.data + m->offs[id];
}

size_t strmap_count(const struct strmap *m)
{
	return m->n;
}
