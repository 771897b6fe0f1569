/*
 * jsonplan.c - the first pass over a JSON profile (jsonplan.h): the rank
 * of every element of "regions", read with the same tokenizer as the rows
 * themselves (jsontok.h), so that the two passes see the same keys (an
 * escaped "rank" is the rank; a "rank" inside another value is not).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scopedb/err.h"
#include "scopedb/h5prof.h"
#include "scopedb/util.h"
#include "jsonprof/jsonplan.h"
#include "jsonprof/jsontok.h"

/* Rows of "regions" past which no plan is made: 14 bytes a row are kept,
 * 8 more while the plan is made (56 and 32 MiB at most). */
#define JSONPLAN_MAX_ROWS ((size_t)1 << 22)

/* A row of the plan: its rank and its index. */
struct jsonplan_row {
	uint32_t rank, index;
};

static int jsonplan_row_cmp(const void *a, const void *b)
{
	const struct jsonplan_row *x = a, *y = b;

	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return (x->index > y->index) - (x->index < y->index);
}

/* The values of an array of integers, counted and dropped a few at a
 * time (struct jtok_spill). */
static int jsonplan_drop(void *ctx, const int64_t *v, size_t n)
{
	(void)ctx;
	(void)v;
	(void)n;
	return 0;
}

/* *calls = the values of the array of integers at t (null: 0). */
static int jsonplan_count(struct jtok *t, uint64_t *calls)
{
	struct i64vec v;
	struct jtok_spill sp = {4096, jsonplan_drop, NULL, 0};
	int rc = jtok_null(t);

	*calls = 0;
	if (rc)
		return rc < 0 ? rc : 0;
	i64vec_init(&v);
	rc = jtok_int64_array_spill(t, &v, "\"start_times_ns\"", &sp);
	*calls = sp.spilled + v.len;
	i64vec_release(&v);
	return rc;
}

/* The ranks of the elements of "regions" (t after its key) into
 * out->rank, and their calls into out->rank_calls, each object read for
 * its "rank" and "start_times_ns" alone (UINT32_MAX without a rank the
 * reader takes: it refuses that row); 1 past JSONPLAN_MAX_ROWS. */
static int jsonplan_regions(struct jtok *t, struct jsonplan *out, struct buf *key)
{
	size_t cap = 0, ccap = 0;
	int rc, first = 1;

	rc = jtok_open(t, '[', "\"regions\"");
	while (!rc && (rc = jtok_more(t, ']', first)) == 1) {
		struct jtok_keys keys;
		int64_t rank = -1;
		uint64_t calls = 0;
		int f = 1;

		first = 0;
		if (out->n == JSONPLAN_MAX_ROWS)
			return 1;
		rc = jtok_open(t, '{', "an element of \"regions\"");
		if (rc)
			break;
		jtok_keys_init(&keys);
		while ((rc = jtok_more(t, '}', f)) == 1) {
			f = 0;
			rc = jtok_key(t, &keys, key, "a region row");
			if (!rc && !strcmp(key->data, "rank"))
				rc = jtok_int64(t, &rank, "\"rank\"");
			else if (!rc && !strcmp(key->data, "start_times_ns"))
				rc = jsonplan_count(t, &calls);
			else if (!rc)
				rc = jtok_skip(t, 3);
			if (rc)
				break;
		}
		jtok_keys_release(&keys);
		if (!rc && (util_grow(&out->rank, &cap, out->n + 1, sizeof(*out->rank), 1024) ||
			    util_grow(&out->rank_calls, &ccap, out->n + 1, sizeof(*out->rank_calls),
				      1024)))
			rc = ERR_NOMEM;
		if (!rc) {
			out->rank_calls[out->n] = calls;
			out->rank[out->n++] =
			    rank >= 0 && rank < UINT32_MAX ? (uint32_t)rank : UINT32_MAX;
		}
	}
	return rc;
}

/*
 * A second reader of the same bytes skips all but the top-level keys and
 * each region's "rank" and "start_times_ns", and the last row of each
 * rank is marked, so that jsonrows.c's jsonprof_regions() says rank_last
 * and each rank's call tree is built as soon as its rows are read, as for
 * an HDF5 file, in whatever order the document gives its rows.  Before,
 * every call of the file was held until its end (333 MB for the medium
 * run), and past 2^24 calls ranks lost their trees (bench/RESULTS.md,
 * issue 26).  Without a plan the ranks are built at the end, as before.
 * The counts say which rows go in pieces (piece_min).
 */
void jsonplan_make(struct jsonplan *out, const struct jtok *src, uint64_t piece_min)
{
	struct jtok t;
	struct jtok_keys keys;
	struct buf key = BUF_INIT;
	struct jsonplan_row *order = NULL;
	size_t i, n, a, b;
	int rc, first = 1, found = 0;

	memset(out, 0, sizeof(*out));
	rc = jtok_init_again(&t, src);
	if (rc) {
		err_clear();
		return;
	}
	rc = jtok_peek(&t) == '{' ? 0 : -1;
	if (!rc)
		t.pos++;
	jtok_keys_init(&keys);
	while (!rc && !found && (rc = jtok_more(&t, '}', first)) == 1) {
		first = 0;
		rc = jtok_key(&t, &keys, &key, "the document");
		if (rc)
			break;
		found = !strcmp(key.data, "regions");
		rc = found ? jsonplan_regions(&t, out, &key) : jtok_skip(&t, 1);
	}
	jtok_keys_release(&keys);
	jtok_release(&t);
	buf_release(&key);
	n = out->n;
	if (!rc && found && n)
		order = malloc(n * sizeof(*order));
	out->last = order ? calloc(n, 1) : NULL;
	out->pieces = out->last ? calloc(n, 1) : NULL;
	if (!out->pieces) {
		err_clear();
		free(order);
		jsonplan_release(out);
		return;
	}
	/* the last row of a rank: the highest index among its rows */
	for (i = 0; i < n; i++) {
		order[i].rank = out->rank[i];
		order[i].index = (uint32_t)i;
	}
	qsort(order, n, sizeof(*order), jsonplan_row_cmp);
	for (i = 0; i < n; i++)
		if (i + 1 == n || order[i + 1].rank != order[i].rank)
			out->last[order[i].index] = 1;
	/* each row's calls become its rank's (rows order[a..b) are a rank's),
	 * once they have said whether the row goes in pieces */
	for (a = 0; a < n; a = b) {
		uint64_t sum = 0;

		for (b = a; b < n && order[b].rank == order[a].rank; b++)
			sum = out->rank_calls[order[b].index] > UINT64_MAX - sum
				  ? UINT64_MAX
				  : sum + out->rank_calls[order[b].index];
		for (i = a; i < b; i++) {
			uint64_t *c = &out->rank_calls[order[i].index];

			out->pieces[order[i].index] =
			    (unsigned char)h5prof_goes_in_pieces(*c, sum, piece_min);
			*c = sum;
		}
	}
	free(order);
}

void jsonplan_release(struct jsonplan *p)
{
	if (!p)
		return;
	free(p->rank);
	free(p->last);
	free(p->rank_calls);
	free(p->pieces);
	memset(p, 0, sizeof(*p));
}
