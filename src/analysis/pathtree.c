/*
 * pathtree.c - rows of paths put in tree order (see pathtree.h): each
 * path under its parent, siblings in the order the rows came in, for the
 * --tree views of show and diff (docs/commands/tree.md).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/pathtree.h"
#include "scopedb/err.h"
#include "scopedb/util.h"

/* A row's name and index, sorted by name for the parent look-up. */
struct pathtree_key {
	const char *name;
	size_t idx;
};

static int pathtree_cmp(const void *a, const void *b)
{
	return strcmp(((const struct pathtree_key *)a)->name,
		      ((const struct pathtree_key *)b)->name);
}

/* The row whose name is the first len bytes of name, or SIZE_MAX. */
static size_t pathtree_find(const struct pathtree_key *keys, size_t n, const char *name, size_t len)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strncmp(keys[mid].name, name, len);

		if (!c && keys[mid].name[len])
			c = 1; /* longer: after the prefix */
		if (!c)
			return keys[mid].idx;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return SIZE_MAX;
}

int pathtree_order(size_t *order, size_t *level, const char *const *names, const char *const *lasts,
		   size_t n)
{
	struct pathtree_key *keys = malloc((n ? n : 1) * sizeof(*keys));
	size_t *parent = malloc((n ? n : 1) * sizeof(*parent));
	size_t *first = malloc((n ? n : 1) * sizeof(*first));
	size_t *next = malloc((n ? n : 1) * sizeof(*next));
	size_t *last_child = malloc((n ? n : 1) * sizeof(*last_child));
	size_t *stack = malloc((n ? n : 1) * sizeof(*stack));
	size_t i, k = 0, top = 0, root_first = SIZE_MAX, root_last = SIZE_MAX;
	int rc = 0;

	if (!keys || !parent || !first || !next || !last_child || !stack) {
		rc = err_nomem();
		goto out;
	}
	for (i = 0; i < n; i++) {
		keys[i].name = names[i];
		keys[i].idx = i;
		first[i] = next[i] = last_child[i] = SIZE_MAX;
	}
	qsort(keys, n, sizeof(*keys), pathtree_cmp);
	/* the parent of "a > b > c" is the row named "a > b" */
	for (i = 0; i < n; i++) {
		size_t len = strlen(names[i]), ll = lasts[i] ? util_path_name_len(lasts[i]) : len;

		parent[i] = len >= ll + 3 && !strncmp(names[i] + len - ll - 3, " > ", 3)
				? pathtree_find(keys, n, names[i], len - ll - 3)
				: SIZE_MAX;
	}
	/* children lists in row order */
	for (i = 0; i < n; i++) {
		size_t p = parent[i];
		size_t *head = p == SIZE_MAX ? &root_first : &first[p];
		size_t *tail = p == SIZE_MAX ? &root_last : &last_child[p];

		if (*head == SIZE_MAX)
			*head = i;
		else
			next[*tail] = i;
		*tail = i;
	}
	/* depth first, each node before its children, siblings in row order */
	for (i = root_first; i != SIZE_MAX; i = next[i]) {
		size_t cur = i, lvl = 0;

		for (;;) {
			order[k++] = cur;
			level[cur] = lvl;
			if (first[cur] != SIZE_MAX) {
				stack[top++] = cur;
				cur = first[cur];
				lvl++;
				continue;
			}
			/* the next sibling of cur or of its nearest ancestor */
			while (cur != i && next[cur] == SIZE_MAX) {
				cur = stack[--top];
				lvl--;
			}
			if (cur == i)
				break;
			cur = next[cur];
		}
	}
out:
	free(keys);
	free(parent);
	free(first);
	free(next);
	free(last_child);
	free(stack);
	return rc;
}
