/*
 * rows.h - result rows into the structures of scopedb/store.h (private to
 * src/store/): a backend hands each row of a statement to the front end
 * as a struct rows_row read through its own column getters, and the
 * decoders below (rows_run(), rows_stats(), rows_timing(), ...) turn it
 * into a run, a region's aggregates, a point of a history, so that every
 * backend's rows become the same structures.  Also: tags of runs, matching
 * rows to runs and history points by id, sorting regions by name, id
 * lists as SQL text, decoding duration blobs with the store's damage
 * message, and the "did you mean" hints of the selectors and history.
 *
 * Ownership: rows_run_index(), rows_point_index() and rows_id_list()
 * return malloc'ed memory the caller frees; text a getter returns is
 * borrowed until the next row; everything else works on the caller's
 * structures.
 */
#ifndef SCOPEDB_STORE_ROWS_H
#define SCOPEDB_STORE_ROWS_H

#include <stddef.h>
#include <stdint.h>

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

/* Pointers to pts[0..n) in rows_cmp_point() order, for rows_point_find()
 * (malloc'ed); NULL when memory ran out (ERR_NOMEM set). */
struct store_history_point **rows_point_index(struct store_history_point *pts, size_t n);

/* The point of (region_id, run_id) through index (n entries), or NULL. */
struct store_history_point *rows_point_find(struct store_history_point **index, size_t n,
					    int64_t region_id, int64_t run_id);

/* Sort regs by region name (bytes, as strcmp). */
void rows_sort_regions(struct store_region_stats *regs, size_t n);

/* ids[0..n) as text between open and close, comma-separated ("[1,2]" for
 * SQLite's json_each(), "{1,2}" for a PostgreSQL array: a STORE_IDS value,
 * sql.h), malloc'ed; NULL for ids NULL, or when memory ran out (then
 * *failed = 1). */
char *rows_id_list(const int64_t *ids, size_t n, char open, char close, int *failed);

/* Decode a durations blob of run_id and append it to out; a blob that does
 * not decode is ERR_STORE "store 'LOCATION' is damaged: ...". */
int rows_decode_blob(struct i64vec *out, const void *data, size_t len, const char *location,
		     int64_t run_id);

/* A backend's connection (backend.h); also the context a names() of
 * rows_hint() is called with, whatever its caller makes it (the front end
 * passes its struct store: front.h, store_names()). */
struct store_conn;

/* The stored names a mistyped one is compared with ("did you mean"). */
enum rows_names {
	ROWS_NAMES_PIN,	   /* pin names */
	ROWS_NAMES_TAG,	   /* the distinct tags of runs */
	ROWS_NAMES_BRANCH, /* the distinct branches of runs */
	ROWS_NAMES_LABEL,  /* the distinct labels of runs */
	ROWS_NAMES_REGION, /* region names */
};

/* The stored names of kind appended to out, each followed by a NUL; *n =
 * how many.  Any order. */
typedef int (*rows_names_fn)(struct store_conn *c, struct buf *out, size_t *n,
			     enum rows_names kind);

/*
 * "; did you mean 'X'?" appended to hint for the stored name of kind
 * nearest to word (suggest_hint() over the names sorted by strcmp, so that
 * every backend picks the same among equally near ones), nothing when
 * none is close.  0, or the error of names().
 */
int rows_hint(struct store_conn *c, rows_names_fn names, struct buf *hint, enum rows_names kind,
	      const char *word);

/* The ERR_NOTFOUND of unpin for a pin name that names nothing ("no pin
 * named 'x'; did you mean 'y'?"), or the error of names(). */
int rows_no_pin(struct store_conn *c, rows_names_fn names, const char *name);

/* The ERR_NOTFOUND of history when no stored region is region (then with
 * the nearest stored name) or, region NULL, none matches pattern. */
int rows_no_region(struct store_conn *c, rows_names_fn names, const char *region,
		   const char *pattern, const char *location);

/* A run or region id and its index in a series (store_region_series()),
 * kept in arrays sorted by id (rows_series_cmp_key()) for
 * rows_series_find(). */
struct rows_series_key {
	int64_t id;
	size_t idx;
};

/* qsort() comparisons: keys by id; cells (struct store_series_cell) by
 * region index, then run index. */
int rows_series_cmp_key(const void *a, const void *b);
int rows_series_cmp_cell(const void *a, const void *b);

/* The index of id in keys[0..n) (sorted by id), or SIZE_MAX. */
size_t rows_series_find(const struct rows_series_key *keys, size_t n, int64_t id);

/*
 * One row of a backend's result, read through the backend's column
 * getters, so that turning rows into result structures (the rows_*_row()
 * below) is written once for every backend; each backend keeps its SQL
 * and its driver calls.  Columns count from 0.  The backends' queries
 * list the columns in the order each decoder states.
 */
struct rows_row;
struct rows_row_ops {
	/* 1 when column col is NULL */
	int (*null)(const struct rows_row *r, int col);
	/* integer and float columns: 0 for NULL */
	int64_t (*i64)(const struct rows_row *r, int col);
	double (*f64)(const struct rows_row *r, int col);
	/* text, borrowed until the next row; NULL for NULL, and when memory
	 * ran out (null() then says 0) */
	const char *(*text)(const struct rows_row *r, int col);
	/* blob, borrowed likewise; ERR_NOMEM when memory ran out */
	int (*blob)(const struct rows_row *r, int col, const void **data, size_t *len);
};
struct rows_row {
	const struct rows_row_ops *ops;
	void *res; /* the backend's statement or result */
	int row;   /* the row in res, for backends that need one */
	/* where a number getter records the first column it found holding
	 * no number (a text or a blob, in a store edited by hand): the
	 * getters cannot fail, so the backend refuses the row after the
	 * decoder (rows_misread()); NULL: not recorded */
	int *misread;
};

/* ERR_STORE "store 'LOCATION' is damaged: column COLUMN holds a TYPE value
 * where a number belongs", for a row whose misread was set. */
int rows_misread(const char *location, const char *column, const char *type);

/* *out = a copy of text column col (NULL stays NULL). */
int rows_text(char **out, const struct rows_row *r, int col);
/* *name = text column col (borrowed), *keep = what filter (NULL: keep)
 * says of it. */
int rows_keep_region(const char **name, int *keep, const struct rows_row *r, int col,
		     store_region_filter filter, void *ctx);
/* out (zeroed first) from the 13 run columns: id, sha256, source_path,
 * ingested_at, recorded_at, label, commit_sha, branch, schema_version,
 * layout, num_ranks, num_regions, num_calls; the tags are the caller's. */
int rows_run(struct store_run *out, const struct rows_row *r);
/* g's aggregates from the 10 columns from col: has_events, calls, total,
 * min, max, gpu_count, gpu_total, busy_ranks, busy_max, nranks. */
void rows_stats(struct store_region_stats *g, const struct rows_row *r, int col);
/* g's stored p50/p95/p99 from the 3 columns from col (all NULL: none). */
void rows_quantiles(struct store_region_stats *g, const struct rows_row *r, int col);
/* A row of store_region_stats() into g: region id, the 10 aggregates, the
 * self time (read by the caller), the name (a copy of name, as
 * rows_keep_region() gave it), then p50/p95/p99 when quantiles. */
int rows_region(struct store_region_stats *g, const struct rows_row *r, const char *name,
		int quantiles);
/* Decode blob column col of run_id's row and append it to out (the
 * damage message names location). */
int rows_blob_append(struct i64vec *out, const struct rows_row *r, int col, const char *location,
		     int64_t run_id);
/* Blobs appended run after run: to out, the end of each to ends (NULL: not
 * kept); location and run_id name them in damage messages.  All borrowed. */
struct rows_blob_list {
	struct i64vec *out, *ends;
	const char *location;
	int64_t run_id;
};
/* A store_sql_run() callback (ctx: a struct rows_blob_list): blob column 0
 * appended to the list (rows_blob_append()). */
int rows_blob_list_row(void *ctx, const struct rows_row *r);
/* A point of store_region_history() (zeroed first) from the history
 * query's columns: region id, run id, the 10 aggregates, p50/p95/p99 (read
 * when quantiles), the self time, sort time, commit, label, rank number, region name. */
int rows_history_point(struct store_history_point *pt, const struct rows_row *r, int quantiles);
/* A run of store_region_series() (zeroed first) from: id, sort time,
 * commit, label. */
int rows_series_run(struct store_series_run *run, const struct rows_row *r);
/* A cell of run index run and region index region (zeroed first) from the
 * series query's columns: run id, region id, the 10 aggregates, p50/p95/p99,
 * the self time. */
void rows_series_cell(struct store_series_cell *cell, size_t run, size_t region,
		      const struct rows_row *r);
/* A pin (zeroed first) from: name, run id, pinned_at. */
int rows_pin(struct store_pin *pin, const struct rows_row *r);
/* A whole timings row (store_scan_timings()), borrowing r's text and
 * blob, from: region id, rank, has_events, calls, total, min, max, first,
 * last, start_min, end_max, mean, m2, exclusive, gpu_count, gpu_total,
 * source_file, source_line, source_text, tags, region name, durations;
 * *name = the region name. */
int rows_timing(struct store_timing *t, const char **name, const struct rows_row *r,
		int64_t run_id);

/*
 * The end of store_region_series() once every cell is in out->cells in
 * any order: the cells grouped by region (a counting sort), each region's
 * by run, the regions without a cell dropped (out->names compacted, the
 * cells' region indexes renumbered) and each cell's stats.name pointed at
 * its region's name.
 */
int rows_series_group(struct store_series *out);

#endif
