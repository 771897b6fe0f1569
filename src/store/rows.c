/*
 * rows.c - helpers the store backends share to turn their rows into the
 * result structures of scopedb/store.h (see rows.h), so that SQLite and
 * PostgreSQL build them identically.
 */
#include <stdlib.h>
#include <string.h>

#include "scopedb/err.h"
#include "store/blob.h"
#include "store/rows.h"

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

int rows_nth_error(const struct select_spec *sel, int64_t count, const char *location)
{
	const char *what = sel->kind == SELECT_TAG	? "tag"
			   : sel->kind == SELECT_BRANCH ? "branch"
							: "label";

	if (sel->kind == SELECT_LATEST)
		return count == 0 ? err_set(ERR_NOTFOUND, "no runs stored in '%s'", location)
				  : err_set(ERR_NOTFOUND, "no run '%s': only %lld run%s stored",
					    sel->text, (long long)count, count == 1 ? "" : "s");
	return count == 0 ? err_set(ERR_NOTFOUND, "no run has %s '%s'", what, sel->name)
			  : err_set(ERR_NOTFOUND, "no run '%s': only %lld run%s %s %s '%s'",
				    sel->text, (long long)count, count == 1 ? "" : "s",
				    count == 1 ? "has" : "have", what, sel->name);
}

int rows_before_error(const struct select_spec *sel, int64_t id, const char *branch, int64_t count)
{
	if (count == 0)
		return err_set(ERR_NOTFOUND, "no run '%s': run %lld is the first run%s%s",
			       sel->text, (long long)id, branch ? " of branch " : " recorded",
			       branch ? branch : "");
	return err_set(ERR_NOTFOUND, "no run '%s': only %lld run%s recorded before run %lld%s%s",
		       sel->text, (long long)count, count == 1 ? "" : "s", (long long)id,
		       branch ? " on branch " : "", branch ? branch : "");
}
