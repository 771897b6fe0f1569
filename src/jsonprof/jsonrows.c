/*
 * jsonrows.c - the elements of a JSON profile's "regions" (jsonprof_int.h;
 * docs/format.md section 11): each row read key by key into the row
 * buffers (struct jrow), checked, and handed to the callback before the
 * next is read; region names get ids in order of first appearance, and a
 * row's strings and lists are reused from row to row.  A row the first
 * pass (jsonplan.c) says goes in pieces has its lists spilled to a
 * temporary file past a quarter of the pieces' least as they are parsed
 * (jtok_int64_array_spill(), util/spool.h), and is read back from there a
 * window at a time (jp_pieces()), so it is never held whole.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsonprof/jsonprof_int.h"
#include "scopedb/err.h"
#include "util/json.h"

const char *const jsonprof_col_keys[NCOLS] = {
    "start_times_ns", "end_times_ns", "gpu_durations_ns", "call_ids",
    "parent_ids",     "thread_ids",   "task_ids",	  "await_ns",
};

/* Values a piece holds (testing hook: jsonprof_testing_window()). */
#define JP_WINDOW ((size_t)1 << 16)
static size_t jp_window = JP_WINDOW;

void jsonprof_testing_window(size_t n)
{
	jp_window = n ? n : JP_WINDOW;
}

/* Reset the row buffers for the next element of "regions". */
static void jp_row_reset(struct jrow *r)
{
	size_t i;

	r->has_name = r->has_rank = r->has_line = r->has_excl = r->has_agg = 0;
	r->line = -1;
	r->excl = -1;
	r->file.len = 0;
	r->text.len = 0;
	for (i = 0; i < NCOLS; i++) {
		r->has_col[i] = 0;
		r->col[i].len = 0;
		r->spilled[i] = r->base[i] = 0;
	}
	r->end = 0;
	r->any_spilled = r->in_pieces = 0;
	r->agg_count = 0;
	r->agg_total = r->agg_min = r->agg_max = 0;
	r->agg_excl = -1;
	memset(r->has_agg_key, 0, sizeof(r->has_agg_key));
	for (i = 0; i < r->ntags; i++)
		free(r->tagv[i]);
	r->ntags = 0;
}

/* "tags": an array of strings (null: none). */
static int jp_tags(struct jsonprof *j)
{
	struct jrow *r = &j->row;
	int rc, first = 1;

	rc = jtok_null(&j->t);
	if (rc)
		return rc < 0 ? rc : 0;
	rc = jtok_open(&j->t, '[', "\"tags\"");
	if (rc)
		return rc;
	while ((rc = jtok_more(&j->t, ']', first)) == 1) {
		first = 0;
		if (jtok_peek(&j->t) != '"')
			return j->t.failed
				   ? j->t.fail_code
				   : jtok_fail(&j->t, ERR_FORMAT,
					       "\"tags\" holds a value that is not a string");
		rc = jtok_string(&j->t, &r->key);
		if (rc)
			return rc;
		rc = util_grow(&r->tagv, &r->tagcap, r->ntags + 1, sizeof(*r->tagv), 8);
		if (rc)
			return rc;
		r->tagv[r->ntags] = util_strdup(r->key.data);
		if (!r->tagv[r->ntags])
			return err_nomem();
		r->ntags++;
	}
	return rc;
}

/* An optional string (null: absent) into b. */
int jsonprof_opt_string(struct jsonprof *j, struct buf *b, const char *what)
{
	int rc = jtok_null(&j->t);

	b->len = 0;
	if (rc)
		return rc < 0 ? rc : 0;
	if (jtok_peek(&j->t) != '"')
		return j->t.failed ? j->t.fail_code
				   : jtok_fail(&j->t, ERR_FORMAT, "%s is not a string", what);
	return jtok_string(&j->t, b);
}

/* An optional int64 (null: absent); *has set when present. */
static int jp_opt_int(struct jsonprof *j, int64_t *out, int *has, const char *what)
{
	int rc = jtok_null(&j->t);

	if (rc)
		return rc < 0 ? rc : 0;
	rc = jtok_int64(&j->t, out, what);
	if (!rc)
		*has = 1;
	return rc;
}

/* A number (integer or not), validated and dropped. */
static int jp_any_number(struct jsonprof *j, const char *what)
{
	char text[32];
	double d;
	int is_int;

	return jtok_number(&j->t, &d, &is_int, text, what);
}

/* The "aggregate" object of a row (docs/format.md section 11.2). */
static int jp_aggregate(struct jsonprof *j)
{
	static const char *const ints[] = {"first", "last", "start_minimum", "end_maximum",
					   "gpu_total"};
	struct jrow *r = &j->row;
	const struct {
		const char *key;
		int64_t *dst;
	} req[] = {{"total", &r->agg_total},
		   {"minimum", &r->agg_min},
		   {"maximum", &r->agg_max},
		   {"exclusive", &r->agg_excl}};
	struct jtok_keys keys;
	int rc, first = 1;
	size_t i;

	rc = jtok_open(&j->t, '{', "\"aggregate\"");
	if (rc)
		return rc;
	r->has_agg = 1;
	jtok_keys_init(&keys);
	while ((rc = jtok_more(&j->t, '}', first)) == 1) {
		const char *k;
		int64_t scratch;

		first = 0;
		rc = jtok_key(&j->t, &keys, &r->key, "\"aggregate\"");
		if (rc)
			break;
		k = r->key.data;
		for (i = 0; i < 4 && strcmp(k, req[i].key); i++)
			;
		if (!strcmp(k, "count")) {
			rc = jtok_uint64(&j->t, &r->agg_count, "aggregate.count");
			r->has_agg_key[0] = 1;
		} else if (i < 4) {
			char what[40];

			snprintf(what, sizeof(what), "aggregate.%s", req[i].key);
			rc = jtok_int64(&j->t, req[i].dst, what);
			r->has_agg_key[i + 1] = 1;
		} else if (!strcmp(k, "gpu_count")) {
			uint64_t u;

			rc = jtok_uint64(&j->t, &u, "aggregate.gpu_count");
		} else if (!strcmp(k, "mean") || !strcmp(k, "m2")) {
			rc = jp_any_number(j,
					   !strcmp(k, "mean") ? "aggregate.mean" : "aggregate.m2");
		} else {
			for (i = 0; i < sizeof(ints) / sizeof(ints[0]); i++)
				if (!strcmp(k, ints[i]))
					break;
			if (i < sizeof(ints) / sizeof(ints[0])) {
				char what[40];

				snprintf(what, sizeof(what), "aggregate.%s", ints[i]);
				rc = jtok_int64(&j->t, &scratch, what);
			} else {
				rc = jtok_skip(&j->t, 4);
			}
		}
		if (rc)
			break;
	}
	jtok_keys_release(&keys);
	return rc;
}

/* The spill of a column too long to hold (struct jtok_spill): its values
 * appended to the spool (made at the first; its messages name the row). */
static int jp_spill(void *ctx, const int64_t *v, size_t n)
{
	struct jsonprof *j = ctx;
	struct jrow *r = &j->row;
	int rc;

	if (r->has_name && r->has_rank)
		snprintf(j->sp_where, sizeof(j->sp_where),
			 "cannot read '%s': regions[%zu] (rank %" PRId64 ", region '%s')", j->qpath,
			 j->index, r->rank, util_quote_msg(r->name.data));
	else
		snprintf(j->sp_where, sizeof(j->sp_where), "cannot read '%s': regions[%zu]",
			 j->qpath, j->index);
	if (!j->sp.open) {
		rc = spool_open(&j->sp, j->sp_where,
				"8 bytes a value of each of its lists, and 9 bytes a call more",
				"its lists (the call tree does not hold the row)");
		if (rc)
			return rc;
	}
	rc = spool_write(&j->sp, v, n * sizeof(*v), r->end);
	r->end += (uint64_t)n * sizeof(*v);
	return rc;
}

/* Whether the row being read may go in pieces, so that its long lists
 * are spilled: the plan's word for it, or, without a plan, any row. */
static int jp_may_go_in_pieces(const struct jsonprof *j)
{
	if (j->piece_min < 4)
		return 0;
	if (!j->plan.last)
		return 1;
	return j->index < j->plan.n && j->plan.pieces[j->index];
}

/* Per-call column k of the row: held, or, for a row that may go in
 * pieces, spilled past a quarter of the calls that do (so that a row of
 * as many is never held whole). */
static int jp_column(struct jsonprof *j, int k)
{
	struct jrow *r = &j->row;
	struct jtok_spill sp = {0, jp_spill, j, 0};
	int rc;

	if (!jp_may_go_in_pieces(j))
		return jtok_int64_array(&j->t, &r->col[k], jsonprof_col_keys[k]);
	sp.at = (size_t)(j->piece_min / 4);
	r->base[k] = r->end;
	rc = jtok_int64_array_spill(&j->t, &r->col[k], jsonprof_col_keys[k], &sp);
	if (rc)
		return rc;
	r->spilled[k] = sp.spilled;
	r->any_spilled |= sp.spilled > 0;
	/* its array is a window's from now on (or the row's, read back):
	 * not held at the spill's size beside the next column's */
	if (sp.spilled)
		i64vec_release(&r->col[k]);
	return 0;
}

/* The values of column k of the row (held, or spilled). */
static uint64_t jp_len(const struct jrow *r, int k)
{
	return r->spilled[k] ? r->spilled[k] : (uint64_t)r->col[k].len;
}

/* Read one element of "regions" into j->row. */
static int jp_row_parse(struct jsonprof *j)
{
	struct jrow *r = &j->row;
	struct jtok_keys keys;
	int rc, first = 1, k;

	jp_row_reset(r);
	rc = jtok_open(&j->t, '{', "an element of \"regions\"");
	if (rc)
		return rc;
	jtok_keys_init(&keys);
	while ((rc = jtok_more(&j->t, '}', first)) == 1) {
		const char *key;

		first = 0;
		rc = jtok_key(&j->t, &keys, &r->key, "a region row");
		if (rc)
			break;
		key = r->key.data;
		for (k = 0; k < NCOLS; k++)
			if (!strcmp(key, jsonprof_col_keys[k]))
				break;
		if (k < NCOLS) {
			rc = jtok_null(&j->t);
			if (rc == 0) {
				rc = jp_column(j, k);
				r->has_col[k] = !rc;
			} else if (rc > 0) {
				rc = 0;
			}
		} else if (!strcmp(key, "name")) {
			if (jtok_peek(&j->t) != '"')
				rc = j->t.failed ? j->t.fail_code
						 : jtok_fail(&j->t, ERR_FORMAT,
							     "a region's \"name\" is not a string");
			else
				rc = jtok_string(&j->t, &r->name);
			r->has_name = !rc;
		} else if (!strcmp(key, "rank")) {
			rc = jtok_int64(&j->t, &r->rank, "a region's \"rank\"");
			r->has_rank = !rc;
		} else if (!strcmp(key, "source_file")) {
			rc = jsonprof_opt_string(j, &r->file, "\"source_file\"");
		} else if (!strcmp(key, "source_text")) {
			rc = jsonprof_opt_string(j, &r->text, "\"source_text\"");
		} else if (!strcmp(key, "source_lineno")) {
			rc = jp_opt_int(j, &r->line, &r->has_line, "\"source_lineno\"");
		} else if (!strcmp(key, "tags")) {
			rc = jp_tags(j);
		} else if (!strcmp(key, "exclusive_total_ns")) {
			rc = jp_opt_int(j, &r->excl, &r->has_excl, "\"exclusive_total_ns\"");
		} else if (!strcmp(key, "aggregate")) {
			rc = jtok_null(&j->t);
			if (rc == 0)
				rc = jp_aggregate(j);
			else if (rc > 0)
				rc = 0;
		} else if (!strcmp(key, "event_data_available")) {
			int b;

			rc = jtok_null(&j->t);
			if (rc == 0)
				rc = jtok_bool(&j->t, &b, "a region's \"event_data_available\"");
			else if (rc > 0)
				rc = 0;
		} else {
			rc = jtok_skip(&j->t, 3);
		}
		if (rc)
			break;
	}
	jtok_keys_release(&keys);
	return rc;
}

/* Add the (rank, region) pair; 1 when it was there already. */
static int jp_pair_add(struct jsonprof *j, uint64_t key)
{
	size_t i, mask;

	key++;
	if ((j->npairs + 1) * 2 > j->pair_slots) {
		size_t n = j->pair_slots ? j->pair_slots * 2 : 1024, s;
		uint64_t *v = calloc(n, sizeof(*v));

		if (!v)
			return err_nomem();
		for (s = 0; s < j->pair_slots; s++) {
			uint64_t x = j->pairs[s];

			if (!x)
				continue;
			for (i = (size_t)((x * 0x9e3779b97f4a7c15ULL) >> 20) & (n - 1); v[i];
			     i = (i + 1) & (n - 1))
				;
			v[i] = x;
		}
		free(j->pairs);
		j->pairs = v;
		j->pair_slots = n;
	}
	mask = j->pair_slots - 1;
	for (i = (size_t)((key * 0x9e3779b97f4a7c15ULL) >> 20) & mask; j->pairs[i];
	     i = (i + 1) & mask)
		if (j->pairs[i] == key)
			return 1;
	j->pairs[i] = key;
	j->npairs++;
	return 0;
}

/* The region id of name, adding it (and its name pointer). */
static int jp_region_id(struct jsonprof *j, const char *name, uint32_t *out)
{
	size_t id, n = strmap_count(&j->names), i;
	int rc;

	rc = strmap_intern(&id, &j->names, name);
	if (rc)
		return rc;
	if (id >= UINT32_MAX)
		return jp_fail(j, ERR_FORMAT, "more than %u region names", UINT32_MAX - 1);
	if (strmap_count(&j->names) != n) {
		rc = util_grow(&j->name_ptrs, &j->name_cap, n + 1, sizeof(char *), 64);
		if (rc)
			return rc;
		/* when the arena moved (it doubles: rarely), every pointer
		 * again, else only the new one */
		if (j->names.arena.data != j->names_base) {
			for (i = 0; i < n; i++)
				j->name_ptrs[i] = (char *)strmap_get(&j->names, i);
			j->names_base = j->names.arena.data;
		}
		j->name_ptrs[n] = (char *)strmap_get(&j->names, n);
		j->info.region_names = j->name_ptrs;
		j->info.num_regions = n + 1;
	}
	*out = (uint32_t)id;
	return 0;
}

/* Turn the end times ends[0..n) into durations in place (calls first..
 * of the row), refusing a negative or overflowing one. */
static int jp_durations(struct jsonprof *j, const int64_t *starts, int64_t *ends, size_t n,
			uint64_t first)
{
	size_t i;

	for (i = 0; i < n; i++) {
		int64_t s = starts[i], e = ends[i], d;

		if (__builtin_sub_overflow(e, s, &d))
			return jp_fail(j, ERR_FORMAT,
				       "%s, call %" PRIu64
				       ": its duration overflows 64 bits (start "
				       "%" PRId64 " ns, end %" PRId64 " ns)",
				       j->row.where, first + i, s, e);
		if (d < 0)
			return jp_fail(j, ERR_FORMAT,
				       "%s, call %" PRIu64 ": negative duration (start %" PRId64
				       " ns, end %" PRId64 " ns)",
				       j->row.where, first + i, s, e);
		ends[i] = d;
	}
	return 0;
}

/* Values [from, from + n) of each spilled column of the row read back
 * into its array (room made for n). */
static int jp_unspill(struct jsonprof *j, uint64_t from, size_t n)
{
	struct jrow *r = &j->row;
	int k, rc;

	for (k = 0; k < NCOLS; k++) {
		if (!r->spilled[k])
			continue;
		rc = i64vec_reserve(&r->col[k], n);
		if (rc)
			return rc;
		rc = spool_read(&j->sp, "read", r->col[k].v, n * sizeof(int64_t),
				r->base[k] + from * sizeof(int64_t));
		if (rc)
			return rc;
		r->col[k].len = n;
	}
	return 0;
}

/* Point out's per-call arrays (when it has calls) and the nesting's at
 * the row's columns. */
static void jp_point(struct jsonprof *j, struct h5prof_row *out, uint64_t calls)
{
	struct jrow *r = &j->row;

	if (calls) {
		out->starts = r->col[COL_START].v;
		out->durations = r->col[COL_END].v;
		out->gpu = r->has_col[COL_GPU] ? r->col[COL_GPU].v : NULL;
	}
	j->nest.call_ids = r->has_col[COL_CALL] ? r->col[COL_CALL].v : NULL;
	j->nest.parent_ids = r->has_col[COL_PARENT] ? r->col[COL_PARENT].v : NULL;
	j->nest.thread_ids = r->has_col[COL_THREAD] ? r->col[COL_THREAD].v : NULL;
	j->nest.task_ids = r->has_col[COL_TASK] ? r->col[COL_TASK].v : NULL;
	j->nest.await_ns = r->has_col[COL_AWAIT] ? r->col[COL_AWAIT].v : NULL;
	/* the call tree's columns (include/scopedb/nesting.h): the ids only as
	 * a pair, as the HDF5 reader gives them */
	if (j->nest.call_ids && j->nest.parent_ids) {
		out->nest.call_ids = j->nest.call_ids;
		out->nest.parent_ids = j->nest.parent_ids;
	}
	out->nest.thread_ids = j->nest.thread_ids;
	out->nest.task_ids = j->nest.task_ids;
}

/* The calls of the rank of row index (rank rank) by the plan, when pieces
 * are asked for (h5prof_row.rank_calls); 0: not known (no plan, or one of
 * other ranks: the read then says so). */
static uint64_t jp_rank_calls(const struct jsonprof *j, size_t index, int64_t rank)
{
	if (!j->piece_min || !j->plan.last || index >= j->plan.n ||
	    (int64_t)j->plan.rank[index] != rank)
		return 0;
	return j->plan.rank_calls[index];
}

/* Check the row just read and turn it into *out (index: its position in
 * "regions", for messages); a row to go in pieces gets no per-call arrays
 * here (jp_pieces()). */
static int jp_row_check(struct jsonprof *j, size_t index, struct h5prof_row *out)
{
	struct jrow *r = &j->row;
	const char *where = r->where;
	uint64_t n;
	int k, rc;
	uint32_t region = 0;

	if (!r->has_name)
		return jp_fail(j, ERR_FORMAT, "regions[%zu] has no \"name\"", index);
	if (!r->has_rank)
		return jp_fail(j, ERR_FORMAT, "regions[%zu] ('%s') has no \"rank\"", index,
			       util_quote_msg(r->name.data));
	snprintf(r->where, sizeof(r->where), "regions[%zu] (rank %" PRId64 ", region '%s')", index,
		 r->rank, util_quote_msg(r->name.data));
	if (r->rank < 0 || r->rank >= (int64_t)UINT32_MAX)
		return jp_fail(j, ERR_FORMAT, "%s: the rank is out of range (0 to %u)", where,
			       UINT32_MAX - 1);
	memset(out, 0, sizeof(*out));
	memset(&j->nest, 0, sizeof(j->nest));
	out->rank = (uint32_t)r->rank;
	out->exclusive = r->has_excl ? r->excl : -1;
	out->source_line = r->has_line ? r->line : -1;
	out->source_file = r->file.len ? r->file.data : "";
	out->source_text = r->text.len ? r->text.data : "";
	if (r->has_agg) {
		for (k = 0; k < NCOLS; k++)
			if (r->has_col[k])
				return jp_fail(j, ERR_FORMAT,
					       "%s has both \"aggregate\" and \"%s\"; a row holds "
					       "one or the other",
					       where, jsonprof_col_keys[k]);
		if (!r->has_agg_key[0] || !r->has_agg_key[1] || !r->has_agg_key[2] ||
		    !r->has_agg_key[3])
			return jp_fail(j, ERR_FORMAT,
				       "%s: \"aggregate\" needs count, total, minimum and maximum",
				       where);
		out->calls = r->agg_count;
		if (r->agg_count && (r->agg_total < 0 || r->agg_min < 0 || r->agg_max < 0))
			return jp_fail(j, ERR_FORMAT, "%s: the aggregate has a negative time",
				       where);
		if (r->agg_count) {
			out->agg_total = r->agg_total;
			out->agg_min = r->agg_min;
			out->agg_max = r->agg_max;
		}
		if (r->has_agg_key[4] && !r->has_excl)
			out->exclusive = r->agg_excl;
		j->nagg++;
	} else {
		if (r->has_col[COL_START] != r->has_col[COL_END])
			return jp_fail(
			    j, ERR_FORMAT, "%s has \"%s\" but no \"%s\"", where,
			    jsonprof_col_keys[r->has_col[COL_START] ? COL_START : COL_END],
			    jsonprof_col_keys[r->has_col[COL_START] ? COL_END : COL_START]);
		n = jp_len(r, COL_START);
		for (k = 0; k < NCOLS; k++)
			if (r->has_col[k] && jp_len(r, k) != n)
				return jp_fail(j, ERR_FORMAT,
					       "%s: \"%s\" has %" PRIu64
					       " values but \"start_times_ns\" "
					       "has %" PRIu64,
					       where, jsonprof_col_keys[k], jp_len(r, k), n);
		for (k = COL_GPU; k < NCOLS; k++)
			if (r->has_col[k] && !r->has_col[COL_START])
				return jp_fail(j, ERR_FORMAT, "%s has \"%s\" but no \"%s\"", where,
					       jsonprof_col_keys[k], jsonprof_col_keys[COL_START]);
		out->has_events = 1;
		out->calls = n;
		/* a spilled row that goes in pieces by the readers' rule (so
		 * longer than a quarter of the pieces' least): read back a
		 * window at a time (jp_pieces()) */
		if (r->any_spilled &&
		    h5prof_goes_in_pieces(n, jp_rank_calls(j, index, r->rank), j->piece_min)) {
			r->in_pieces = 1;
		} else {
			/* a column spilled short of a row in pieces: held after all */
			if (r->any_spilled) {
				rc = jp_unspill(j, 0, (size_t)n);
				if (rc)
					return rc;
			}
			/* durations in place of the ends */
			rc = jp_durations(j, r->col[COL_START].v, r->col[COL_END].v, (size_t)n, 0);
			if (rc)
				return rc;
			jp_point(j, out, n);
			out->durations_own = n > 0; /* the row's own, parsed anew each row */
		}
	}
	if (out->calls > (uint64_t)INT64_MAX - j->info.num_events)
		return jp_fail(j, ERR_FORMAT, "the calls of all rows add up to more than 2^63 - 1");
	rc = jp_region_id(j, r->name.data, &region);
	if (rc)
		return rc;
	rc = jp_pair_add(j, ((uint64_t)out->rank << 32) | region);
	if (rc < 0)
		return rc;
	if (rc)
		return jp_fail(j, ERR_FORMAT, "%s: rank %" PRIu32 " of region '%s' appears twice",
			       where, out->rank, util_quote_msg(r->name.data));
	out->region = region;
	/* tags, normalized as the HDF5 reader does */
	r->tags.len = 0;
	rc = json_buf_strarray(&r->tags, (const char *const *)r->tagv, r->ntags);
	if (rc)
		return rc;
	out->tags_json = r->tags.data;
	if (out->rank + (uint64_t)1 > j->max_rank1)
		j->max_rank1 = out->rank + (uint64_t)1;
	j->info.num_events += out->calls;
	j->info.num_rows++;
	return 0;
}

/*
 * Hand out the row checked into row (its columns spilled) in pieces of
 * jp_window calls, each read back from the spool, its durations checked
 * as a held row's are.
 */
static int jp_pieces(struct jsonprof *j, struct h5prof_row *row, h5prof_row_fn fn, void *ctx)
{
	struct jrow *r = &j->row;
	uint64_t done = 0;
	int rc;

	while (done < row->calls) {
		size_t take =
		    row->calls - done < jp_window ? (size_t)(row->calls - done) : jp_window;

		rc = jp_unspill(j, done, take);
		if (!rc)
			rc = jp_durations(j, r->col[COL_START].v, r->col[COL_END].v, take, done);
		if (rc)
			return rc;
		jp_point(j, row, take);
		row->durations_own = 0;
		h5prof_row_piece(row, done, take);
		rc = fn(ctx, row);
		if (rc)
			return rc;
		done += take;
	}
	return 0;
}

int jsonprof_regions(struct jsonprof *j, h5prof_row_fn fn, void *ctx)
{
	struct h5prof_row row;
	size_t index = 0;
	int rc, first = 1;

	rc = jtok_open(&j->t, '[', "\"regions\"");
	if (rc)
		return rc;
	while ((rc = jtok_more(&j->t, ']', first)) == 1) {
		first = 0;
		j->index = index;
		rc = jp_row_parse(j);
		if (!rc)
			rc = jp_row_check(j, index, &row);
		if (!rc && j->plan.last) {
			/* the same bytes read twice give the same ranks */
			if (index >= j->plan.n || j->plan.rank[index] != row.rank)
				rc = jp_fail(j, ERR_IO,
					     "the file changed while it was read; nothing stored");
			else
				row.rank_last = j->plan.last[index];
			row.rank_calls = jp_rank_calls(j, index, row.rank);
		}
		if (!rc)
			rc = j->row.in_pieces ? jp_pieces(j, &row, fn, ctx) : fn(ctx, &row);
		memset(&j->nest, 0, sizeof(j->nest));
		if (rc)
			return rc;
		index++;
	}
	return rc;
}
