/*
 * rows.c - result rows into the structures of scopedb/store.h, read
 * through a backend's column getters, and the helpers around them (see
 * rows.h), so that SQLite and PostgreSQL build them identically.
 */
#include <stdlib.h>
#include <string.h>

#include "scopedb/err.h"
#include "scopedb/util.h"
#include "store/blob.h"
#include "store/rows.h"
#include "util/suggest.h"

int rows_add_tag(struct store_run *run, const char *tag)
{
	char *copy;

	if (run->ntags == 0 || (run->ntags & (run->ntags - 1)) == 0) {
		size_t n = run->ntags ? 2 * run->ntags : 1;
		char **tags = realloc(run->tags, n * sizeof(*tags));

		if (!tags)
			return err_nomem();
		run->tags = tags;
	}
	copy = util_strdup(tag);
	if (!copy)
		return ERR_NOMEM;
	run->tags[run->ntags++] = copy;
	return 0;
}

static int cmp_run_pos(const void *a, const void *b)
{
	int64_t x = ((const struct rows_run_pos *)a)->id, y = ((const struct rows_run_pos *)b)->id;

	return (x > y) - (x < y);
}

struct rows_run_pos *rows_run_index(const struct store_run *runs, size_t n)
{
	struct rows_run_pos *byid = malloc((n ? n : 1) * sizeof(*byid));
	size_t i;

	if (!byid) {
		err_nomem();
		return NULL;
	}
	for (i = 0; i < n; i++) {
		byid[i].id = runs[i].id;
		byid[i].pos = i;
	}
	qsort(byid, n, sizeof(*byid), cmp_run_pos);
	return byid;
}

struct store_run *rows_run_find(struct store_run *runs, const struct rows_run_pos *index, size_t n,
				int64_t id)
{
	struct rows_run_pos key = {id, 0};
	const struct rows_run_pos *hit = bsearch(&key, index, n, sizeof(*index), cmp_run_pos);

	return hit ? &runs[hit->pos] : NULL;
}

int rows_cmp_point(const void *a, const void *b)
{
	const struct store_history_point *x = *(const struct store_history_point *const *)a;
	const struct store_history_point *y = *(const struct store_history_point *const *)b;

	if (x->stats.region_id != y->stats.region_id)
		return x->stats.region_id < y->stats.region_id ? -1 : 1;
	return (x->run_id > y->run_id) - (x->run_id < y->run_id);
}

struct store_history_point **rows_point_index(struct store_history_point *pts, size_t n)
{
	return util_sorted_ptrs(pts, n, sizeof(*pts), rows_cmp_point);
}

struct store_history_point *rows_point_find(struct store_history_point **index, size_t n,
					    int64_t region_id, int64_t run_id)
{
	struct store_history_point key, *kp = &key, **hit;

	key.stats.region_id = region_id;
	key.run_id = run_id;
	hit = bsearch(&kp, index, n, sizeof(*index), rows_cmp_point);
	return hit ? *hit : NULL;
}

static int cmp_region_stats(const void *a, const void *b)
{
	return strcmp(((const struct store_region_stats *)a)->name,
		      ((const struct store_region_stats *)b)->name);
}

void rows_sort_regions(struct store_region_stats *regs, size_t n)
{
	if (n > 1)
		qsort(regs, n, sizeof(*regs), cmp_region_stats);
}

char *rows_id_list(const int64_t *ids, size_t n, char open, char close, int *failed)
{
	struct buf b = BUF_INIT;
	char *s;
	size_t i;
	int rc;

	*failed = 0;
	if (!ids)
		return NULL;
	rc = buf_putc(&b, open);
	for (i = 0; i < n && !rc; i++)
		rc = buf_printf(&b, "%s%lld", i ? "," : "", (long long)ids[i]);
	s = buf_finish(&b, rc || buf_putc(&b, close));
	*failed = !s;
	return s;
}

int rows_decode_blob(struct i64vec *out, const void *data, size_t len, const char *location,
		     int64_t run_id)
{
	if (!blob_decode_append(out, data, len))
		return 0;
	if (err_code() == ERR_NOMEM)
		return ERR_NOMEM;
	return err_set(ERR_STORE, "store '%s' is damaged: call durations of run %lld do not decode",
		       location, (long long)run_id);
}

int rows_series_cmp_key(const void *a, const void *b)
{
	const struct rows_series_key *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

int rows_series_cmp_cell(const void *a, const void *b)
{
	const struct store_series_cell *x = a, *y = b;

	if (x->region != y->region)
		return x->region < y->region ? -1 : 1;
	return (x->run > y->run) - (x->run < y->run);
}

size_t rows_series_find(const struct rows_series_key *keys, size_t n, int64_t id)
{
	struct rows_series_key k = {id, 0}, *hit;

	hit = n ? bsearch(&k, keys, n, sizeof(*keys), rows_series_cmp_key) : NULL;
	return hit ? hit->idx : SIZE_MAX;
}

int rows_hint(struct store_conn *c, rows_names_fn names, struct buf *hint, enum rows_names kind,
	      const char *word)
{
	struct buf all = BUF_INIT;
	const char **cands = NULL;
	const char *p;
	size_t n = 0, i;
	int ret;

	ret = names(c, &all, &n, kind);
	if (!ret && n && !(cands = malloc(n * sizeof(*cands))))
		ret = err_nomem();
	if (ret)
		goto out;
	for (i = 0, p = all.data; i < n; i++, p += strlen(p) + 1)
		cands[i] = p;
	if (n)
		qsort(cands, n, sizeof(*cands), util_strptr_cmp);
	ret = suggest_hint(hint, word, cands, n);
out:
	free(cands);
	buf_release(&all);
	return ret;
}

int rows_no_pin(struct store_conn *c, rows_names_fn names, const char *name)
{
	struct buf hint = BUF_INIT;
	char q[160];
	int ret = rows_hint(c, names, &hint, ROWS_NAMES_PIN, name);

	/* the name quoted to 120 bytes, so the hint after it is never cut off */
	if (!ret)
		ret = err_set(ERR_NOTFOUND, "no pin named '%s'%s",
			      util_quote_msg_buf(q, sizeof(q), 120, name),
			      hint.data ? hint.data : "");
	buf_release(&hint);
	return ret;
}

int rows_no_region(struct store_conn *c, rows_names_fn names, const char *region,
		   const char *pattern, const char *location)
{
	struct buf hint = BUF_INIT;
	int ret;

	if (!region)
		return err_set(ERR_NOTFOUND, "no region matches '%s' in store '%s'",
			       pattern ? pattern : "", location);
	ret = rows_hint(c, names, &hint, ROWS_NAMES_REGION, region);
	if (!ret)
		ret = err_set(ERR_NOTFOUND, "no region '%s' in store '%s'%s", region, location,
			      hint.data ? hint.data : "");
	buf_release(&hint);
	return ret;
}

/* ---- decoding rows through a backend's column getters -------------------- */

int rows_text(char **out, const struct rows_row *r, int col)
{
	const char *t;

	*out = NULL;
	if (r->ops->null(r, col))
		return 0;
	t = r->ops->text(r, col);
	if (!t)
		return err_nomem();
	*out = util_strdup(t);
	return *out ? 0 : ERR_NOMEM;
}

int rows_keep_region(const char **name, int *keep, const struct rows_row *r, int col,
		     store_region_filter filter, void *ctx)
{
	*name = r->ops->text(r, col);
	*keep = 1;
	if (!*name)
		return err_nomem();
	return filter ? filter(ctx, keep, *name) : 0;
}

int rows_run(struct store_run *out, const struct rows_row *r)
{
	int ret;

	memset(out, 0, sizeof(*out));
	out->id = r->ops->i64(r, 0);
	out->schema = (int)r->ops->i64(r, 8);
	out->num_ranks = r->ops->i64(r, 10);
	out->num_regions = r->ops->i64(r, 11);
	out->num_calls = r->ops->i64(r, 12);
	if ((ret = rows_text(&out->sha256, r, 1)) || (ret = rows_text(&out->source_path, r, 2)) ||
	    (ret = rows_text(&out->ingested_at, r, 3)) ||
	    (ret = rows_text(&out->recorded_at, r, 4)) || (ret = rows_text(&out->label, r, 5)) ||
	    (ret = rows_text(&out->commit, r, 6)) || (ret = rows_text(&out->branch, r, 7)) ||
	    (ret = rows_text(&out->layout, r, 9)))
		return ret;
	return 0;
}

void rows_stats(struct store_region_stats *g, const struct rows_row *r, int col)
{
	g->has_events = r->ops->i64(r, col) != 0;
	g->calls = (uint64_t)r->ops->i64(r, col + 1);
	g->total = r->ops->i64(r, col + 2);
	g->min = r->ops->i64(r, col + 3);
	g->max = r->ops->i64(r, col + 4);
	g->gpu_count = (uint64_t)r->ops->i64(r, col + 5);
	g->gpu_total = r->ops->i64(r, col + 6);
	g->busy_ranks = (uint64_t)r->ops->i64(r, col + 7);
	g->busy_max = r->ops->i64(r, col + 8);
	g->nranks = (uint64_t)r->ops->i64(r, col + 9);
}

void rows_quantiles(struct store_region_stats *g, const struct rows_row *r, int col)
{
	int i;

	g->has_quantiles = 1;
	for (i = 0; i < 3; i++) {
		if (r->ops->null(r, col + i))
			g->has_quantiles = 0;
		g->quantiles[i] = r->ops->f64(r, col + i);
	}
}

int rows_region(struct store_region_stats *g, const struct rows_row *r, const char *name,
		int quantiles)
{
	memset(g, 0, sizeof(*g));
	g->region_id = r->ops->i64(r, 0);
	rows_stats(g, r, 1);
	if (quantiles)
		rows_quantiles(g, r, 13);
	g->name = util_strdup(name);
	return g->name ? 0 : ERR_NOMEM;
}

int rows_blob_append(struct i64vec *out, const struct rows_row *r, int col, const char *location,
		     int64_t run_id)
{
	const void *data;
	size_t len;
	int ret = r->ops->blob(r, col, &data, &len);

	return ret ? ret : rows_decode_blob(out, data, len, location, run_id);
}

int rows_blob_list_row(void *ctx, const struct rows_row *r)
{
	struct rows_blob_list *x = ctx;
	int ret = rows_blob_append(x->out, r, 0, x->location, x->run_id);

	return !ret && x->ends ? i64vec_push(x->ends, (int64_t)x->out->len) : ret;
}

/* The columns of the history query after the aggregates (rows.h). */
#define ROWS_POINT_TAIL (2 + 10 + 3 + 1)

/* The self time in column col (NULL: unknown) into g. */
static void rows_self(struct store_region_stats *g, const struct rows_row *r, int col)
{
	g->has_self = !r->ops->null(r, col);
	g->self = g->has_self ? r->ops->i64(r, col) : 0;
}

int rows_history_point(struct store_history_point *pt, const struct rows_row *r, int quantiles)
{
	int ret;

	memset(pt, 0, sizeof(*pt));
	i64vec_init(&pt->durations);
	pt->stats.region_id = r->ops->i64(r, 0);
	pt->run_id = r->ops->i64(r, 1);
	rows_stats(&pt->stats, r, 2);
	if (quantiles)
		rows_quantiles(&pt->stats, r, 12);
	rows_self(&pt->stats, r, 15);
	pt->stats.parent_id = -1;
	if ((ret = rows_text(&pt->time, r, ROWS_POINT_TAIL)) ||
	    (ret = rows_text(&pt->commit, r, ROWS_POINT_TAIL + 1)) ||
	    (ret = rows_text(&pt->label, r, ROWS_POINT_TAIL + 2)))
		return ret;
	return rows_text(&pt->stats.name, r, ROWS_POINT_TAIL + 4);
}

int rows_series_run(struct store_series_run *run, const struct rows_row *r)
{
	int ret;

	memset(run, 0, sizeof(*run));
	run->id = r->ops->i64(r, 0);
	if ((ret = rows_text(&run->time, r, 1)) || (ret = rows_text(&run->commit, r, 2)) ||
	    (ret = rows_text(&run->label, r, 3)))
		return ret;
	return rows_text(&run->branch, r, 4);
}

void rows_series_cell(struct store_series_cell *cell, size_t run, size_t region,
		      const struct rows_row *r)
{
	memset(cell, 0, sizeof(*cell));
	cell->run = run;
	cell->region = region;
	cell->stats.region_id = r->ops->i64(r, 1);
	rows_stats(&cell->stats, r, 2);
	rows_quantiles(&cell->stats, r, 12);
	rows_self(&cell->stats, r, 15);
	cell->stats.parent_id = -1;
}

int rows_pin(struct store_pin *pin, const struct rows_row *r)
{
	int ret;

	memset(pin, 0, sizeof(*pin));
	pin->run_id = r->ops->i64(r, 1);
	if ((ret = rows_text(&pin->name, r, 0)))
		return ret;
	return rows_text(&pin->pinned_at, r, 2);
}

/* Text column col, or dflt for NULL (borrowed). */
static const char *rows_text_or(const struct rows_row *r, int col, const char *dflt)
{
	const char *t = r->ops->text(r, col);

	return t ? t : dflt;
}

/* Integer column col, or -1 for NULL. */
static int64_t rows_int_or_none(const struct rows_row *r, int col)
{
	return r->ops->null(r, col) ? -1 : r->ops->i64(r, col);
}

int rows_timing(struct store_timing *t, const char **name, const struct rows_row *r, int64_t run_id)
{
	const struct rows_row_ops *o = r->ops;

	memset(t, 0, sizeof(*t));
	t->run_id = run_id;
	t->region_id = o->i64(r, 0);
	t->rank = o->i64(r, 1);
	t->has_events = o->i64(r, 2) != 0;
	t->calls = (uint64_t)o->i64(r, 3);
	t->total = o->i64(r, 4);
	t->min = o->i64(r, 5);
	t->max = o->i64(r, 6);
	t->first = o->i64(r, 7);
	t->last = o->i64(r, 8);
	t->start_min = o->i64(r, 9);
	t->end_max = o->i64(r, 10);
	t->mean = o->f64(r, 11);
	t->m2 = o->f64(r, 12);
	t->exclusive = rows_int_or_none(r, 13);
	t->gpu_count = (uint64_t)o->i64(r, 14);
	t->gpu_total = o->i64(r, 15);
	t->source_file = rows_text_or(r, 16, "");
	t->source_line = rows_int_or_none(r, 17);
	t->source_text = rows_text_or(r, 18, "");
	t->tags_json = rows_text_or(r, 19, "[]");
	*name = rows_text_or(r, 20, "");
	if (o->null(r, 21))
		return 0;
	return o->blob(r, 21, &t->durations, &t->durations_len);
}

int rows_series_group(struct store_series *out)
{
	size_t *start = util_calloc(out->nregions + 1, sizeof(*start)), *map = NULL;
	struct store_series_cell *sorted = NULL;
	size_t i, j, k = 0;
	int ret = 0, in_order;

	map = util_calloc(out->nregions + 1, sizeof(*map));
	sorted = util_calloc(out->ncells ? out->ncells : 1, sizeof(*sorted));
	if (!start || !map || !sorted) {
		ret = err_nomem();
		goto out;
	}
	for (i = 0; i < out->ncells; i++)
		start[out->cells[i].region + 1]++;
	for (i = 0; i < out->nregions; i++) {
		map[i] = start[i + 1] ? k++ : SIZE_MAX;
		start[i + 1] += start[i];
	}
	for (i = 0; i < out->ncells; i++)
		sorted[start[out->cells[i].region]++] = out->cells[i];
	for (i = 0; i < out->nregions; i++) {
		if (map[i] == SIZE_MAX) {
			free(out->names[i]);
			continue;
		}
		out->names[map[i]] = out->names[i];
	}
	for (i = 0; i < out->ncells; i++) {
		sorted[i].region = map[sorted[i].region];
		sorted[i].stats.name = out->names[sorted[i].region];
	}
	out->nregions = k;
	free(out->cells);
	out->cells = sorted;
	sorted = NULL;
	/* within a region the cells are in the order they came; put them in
	 * the runs' order where that differs */
	for (i = 0; i < out->ncells; i = j) {
		in_order = 1;
		for (j = i + 1; j < out->ncells && out->cells[j].region == out->cells[i].region;
		     j++)
			in_order &= out->cells[j - 1].run < out->cells[j].run;
		if (!in_order)
			qsort(out->cells + i, j - i, sizeof(*out->cells), rows_series_cmp_cell);
	}
out:
	free(start);
	free(map);
	free(sorted);
	return ret;
}

int rows_misread(const char *location, const char *column, const char *type)
{
	return err_set(ERR_STORE,
		       "store '%s' is damaged: column %s holds a %s value where a number belongs",
		       location, column ? column : "?", type);
}
