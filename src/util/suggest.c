/*
 * suggest.c - the nearest candidate to a mistyped name (see suggest.h).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "scopedb/err.h"
#include "util/suggest.h"

/* c as the distance compares it. */
static int suggest_fold(char c, int fold)
{
	return fold ? tolower((unsigned char)c) : (unsigned char)c;
}

/* The distance of suggest_distance(), letters folded to lower case
 * (fold) or compared as they are. */
static size_t suggest_dist(const char *a, const char *b, int fold)
{
	size_t la = strlen(a), lb = strlen(b), i, j, d;
	/* three rows of the (la + 1) x (lb + 1) matrix: i - 2, i - 1, i */
	size_t *row = malloc(3 * (lb + 1) * sizeof(*row));
	size_t *r0, *r1, *r2, *t;

	if (!row)
		return (size_t)-1;
	r0 = row;
	r1 = row + lb + 1;
	r2 = row + 2 * (lb + 1);
	for (j = 0; j <= lb; j++)
		r1[j] = j;
	for (i = 1; i <= la; i++) {
		r2[0] = i;
		for (j = 1; j <= lb; j++) {
			int ca = suggest_fold(a[i - 1], fold), cb = suggest_fold(b[j - 1], fold);

			d = r1[j - 1] + (ca != cb);
			if (r1[j] + 1 < d)
				d = r1[j] + 1;
			if (r2[j - 1] + 1 < d)
				d = r2[j - 1] + 1;
			if (i > 1 && j > 1 && ca == suggest_fold(b[j - 2], fold) &&
			    suggest_fold(a[i - 2], fold) == cb && r0[j - 2] + 1 < d)
				d = r0[j - 2] + 1;
			r2[j] = d;
		}
		t = r0;
		r0 = r1;
		r1 = r2;
		r2 = t;
	}
	d = r1[lb];
	free(row);
	return d;
}

size_t suggest_distance(const char *a, const char *b)
{
	return suggest_dist(a, b, 1);
}

/* 1 if s starts with prefix (ignoring case). */
static int suggest_prefix(const char *s, const char *prefix)
{
	for (; *prefix; s++, prefix++)
		if (tolower((unsigned char)*s) != tolower((unsigned char)*prefix))
			return 0;
	return 1;
}

/*
 * The nearest is the fewest edits without case; among as few, a real
 * edit before a prefix (which counts as the most edits allowed), then
 * the fewest edits with case: names are matched with case, so "slve" is
 * "solve" rather than "solVE" or "SOLve_868", whatever their order.
 */
const char *suggest_best(const char *word, const char *const *cands, size_t n)
{
	size_t len = strlen(word), best_d = (size_t)-1, best_cs = 0, i, d, cs, lc;
	size_t max = len <= 4 ? 1 : len <= 8 ? 2 : 3;
	int prefix, best_prefix = 0;
	const char *best = NULL;

	for (i = 0; i < n; i++) {
		if (!cands[i])
			continue;
		lc = strlen(cands[i]);
		d = suggest_distance(word, cands[i]);
		if (d == (size_t)-1)
			return NULL;
		prefix = d > max || d >= len || d >= lc;
		if (prefix) {
			/* "hist" for "history": as near as one edit */
			if (len < 3 || !suggest_prefix(cands[i], word))
				continue;
			d = max;
		}
		if (d > best_d || (d == best_d && prefix > best_prefix))
			continue;
		cs = prefix ? 0 : suggest_dist(word, cands[i], 0);
		if (cs == (size_t)-1)
			return NULL;
		if (d == best_d && prefix == best_prefix && cs >= best_cs)
			continue;
		best_d = d;
		best_prefix = prefix;
		best_cs = cs;
		best = cands[i];
	}
	return best;
}

int suggest_hint(struct buf *out, const char *word, const char *const *cands, size_t n)
{
	const char *best = suggest_best(word, cands, n);

	if (best && buf_printf(out, "; did you mean '%s'?", best))
		return err_nomem();
	return 0;
}

int suggest_hint_words(struct buf *out, const char *word, const char *words)
{
	const char **v = NULL;
	char *copy = util_strdup(words ? words : ""), *p, *save = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;

	if (!copy)
		return err_nomem();
	for (p = strtok_r(copy, " ", &save); p && !rc; p = strtok_r(NULL, " ", &save)) {
		if (util_grow(&v, &cap, n + 1, sizeof(*v), 16))
			rc = err_nomem();
		else
			v[n++] = p;
	}
	if (!rc)
		rc = suggest_hint(out, word, v, n);
	free(v);
	free(copy);
	return rc;
}
