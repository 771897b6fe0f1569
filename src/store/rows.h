/*
 * rows.h - what the store backends share to build result structures from
 * their rows (private to src/store/): tags of runs, matching rows to runs
 * and history points by id, sorting regions by name, id lists for rank
 * sets, decoding duration blobs with the store's damage message.
 *
 * Ownership: rows_run_index() and rows_id_list() return malloc'ed memory
 * the caller frees; everything else works on the caller's structures.
 */
#ifndef SCOPEDB_STORE_ROWS_H
#define SCOPEDB_STORE_ROWS_H

#include <stddef.h>
#include <stdint.h>

#include "scopedb/select.h"
#include "scopedb/store.h"
#include "scopedb/util.h"

/* Append a copy of tag to run->tags (arrays grow at powers of two). */
int rows_add_tag(struct store_run *run, const char *tag);

/* A run's id and its position in the caller's array. */
struct rows_run_pos {
	int64_t id;
	size_t pos;
};

/* runs[0..n) by id (n > 0), for rows_run_find(); NULL when memory ran
 * out (ERR_NOMEM set). */
struct rows_run_pos *rows_run_index(const struct store_run *runs, size_t n);

/* The run of runs with id, through index (n entries), or NULL. */
struct store_run *rows_run_find(struct store_run *runs, const struct rows_run_pos *index, size_t n,
				int64_t id);

/* qsort()/bsearch() order of pointers to history points by (region id,
 * run id), for matching duration rows to their point. */
int rows_cmp_point(const void *a, const void *b);

/* Sort regs by region name (bytes, as strcmp). */
void rows_sort_regions(struct store_region_stats *regs, size_t n);

/* ids[0..n) as text between open and close, comma-separated ("[1,2]" for
 * SQLite's json_each(), "{1,2}" for a PostgreSQL array), malloc'ed; NULL
 * for ids NULL, or when memory ran out (then *failed = 1). */
char *rows_id_list(const int64_t *ids, size_t n, char open, char close, int *failed);

/* Decode a durations blob of run_id and append it to out; a blob that does
 * not decode is ERR_STORE "store 'LOCATION' is damaged: ...". */
int rows_decode_blob(struct i64vec *out, const void *data, size_t len, const char *location,
		     int64_t run_id);

/*
 * The ERR_NOTFOUND of a selector that matched count runs, fewer than it
 * needs: latest~N (store at location), tag:/branch:/label: NAME~N.
 */
int rows_nth_error(const struct select_spec *sel, int64_t count, const char *location);

/* The ERR_NOTFOUND of SELECTOR~N going back from run id (on branch, NULL
 * when the run has none) past the count runs recorded before it. */
int rows_before_error(const struct select_spec *sel, int64_t id, const char *branch, int64_t count);

#endif
