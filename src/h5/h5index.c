/*
 * h5index.c - the index of schema 2 and 3 files (docs/format.md section 3),
 * shared by the columnar and the aggregate layout: /region_table/names and
 * the columns of /rank_region_index, one row per (rank, region).
 *
 * h5index_open() opens every index column of the layout with its type
 * checked, requires equal lengths, reads the whole index into p->rows (the
 * layout's own columns through h5columnar_read_index() or
 * h5aggregate_read_index()), and validates its structure (section 6.2:
 * region ids in range, counts not overflowing, slices within the event
 * columns, no duplicate (rank, region), no overlapping slices) before any
 * event is read.  The same checks serve h5prof_validate_index().
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

#include "scopedb/err.h"
#include "scopedb/util.h"
#include "util/json.h"
#include "util/strmap.h"
#include "h5/h5_internal.h"

static int h5index_name_fn(void *ctx, size_t i, const char *s)
{
	struct h5prof *p = ctx;
	size_t id;

	if (strmap_intern(&id, &p->names, s))
		return ERR_NOMEM;
	if (id != i)
		return h5prof_fail(p, ERR_FORMAT,
				   "region name '%s' appears twice in 'region_table/names'",
				   h5prof_q(s));
	return 0;
}

/* Which string column is being stored into the rows. */
struct rowstr_ctx {
	struct h5prof *p;
	int which; /* 0 file, 1 text, 2 tags */
	char *last_raw;
	size_t last_id;
};

static int h5index_rowstr_fn(void *ctx, size_t i, const char *s)
{
	struct rowstr_ctx *c = ctx;
	struct h5prof *p = c->p;
	struct prow *r = &p->rows[i];
	char **tags = NULL;
	size_t ntags = 0, id;
	int rc;

	if (c->which == 0)
		return strmap_intern(&r->file_id, &p->strs, s);
	if (c->which == 1)
		return strmap_intern(&r->text_id, &p->strs, s);
	if (c->last_raw && strcmp(c->last_raw, s) == 0) {
		r->tags_id = c->last_id;
		return 0;
	}
	rc = json_parse_strarray(&tags, &ntags, s);
	if (rc == ERR_FORMAT) {
		char why[200];

		snprintf(why, sizeof(why), "%s", err_msg());
		return h5prof_fail(p, ERR_FORMAT,
				   "row %zu (%s): tags '%s' are not a JSON array of strings (%s)",
				   i, h5prof_rowdesc(p, r), h5prof_q(s), why);
	}
	if (rc)
		return rc;
	rc = h5prof_intern_tags(p, (const char *const *)tags, ntags, &id);
	json_strarray_free(tags, ntags);
	if (rc)
		return rc;
	r->tags_id = id;
	free(c->last_raw);
	c->last_raw = util_strdup(s);
	if (!c->last_raw)
		return ERR_NOMEM;
	c->last_id = id;
	return 0;
}

static int prow_offset_cmp(const void *a, const void *b)
{
	const struct prow *x = a, *y = b;

	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	return (x->idx > y->idx) - (x->idx < y->idx);
}

/* The index columns (enum IX_*): path, type and which layouts have them. */
static const struct {
	const char *name;
	const char *expect;
	H5T_class_t cls;
	int agg; /* 0 columnar only, 1 aggregate only, 2 both */
	int required;
} h5index_cols[IX_N] = {
    {"rank_region_index/region_ids", "uint32", H5T_INTEGER, 2, 1},
    {"rank_region_index/ranks", "uint32", H5T_INTEGER, 2, 1},
    {"rank_region_index/event_offsets", "uint64", H5T_INTEGER, 0, 1},
    {"rank_region_index/event_counts", "uint64", H5T_INTEGER, 0, 1},
    {"rank_region_index/exclusive_totals", "int64", H5T_INTEGER, 0, 0},
    {"rank_region_index/aggregate_counts", "uint64", H5T_INTEGER, 1, 1},
    {"rank_region_index/aggregate_totals", "int64", H5T_INTEGER, 1, 1},
    {"rank_region_index/aggregate_minimums", "int64", H5T_INTEGER, 1, 1},
    {"rank_region_index/aggregate_maximums", "int64", H5T_INTEGER, 1, 1},
    {"rank_region_index/aggregate_exclusives", "int64", H5T_INTEGER, 1, 0},
    {"rank_region_index/source_lines", "int64", H5T_INTEGER, 2, 0},
    {"rank_region_index/source_files", "string", H5T_STRING, 2, 0},
    {"rank_region_index/source_texts", "string", H5T_STRING, 2, 0},
    {"rank_region_index/tags", "string", H5T_STRING, 2, 0},
    {"rank_region_index/summary_statistics", "compound", H5T_COMPOUND, 0, 0},
};

/* mpi_size from /metadata (a positive integer), or 1. */
static int h5index_mpi_size(const struct h5prof *p, uint64_t *out)
{
	const char *v = h5prof_meta_get(p, "mpi_size");
	char *end;
	long long n;

	*out = 1;
	if (!v || !*v)
		return 0;
	errno = 0;
	n = strtoll(v, &end, 10);
	if (*end || end == v)
		return 0; /* not a decimal integer */
	/* past 2^63 too (docs/format.md section 6.2, item 9) */
	if ((errno == ERANGE && n > 0) || n > (long long)UINT32_MAX)
		return h5prof_fail(p, ERR_FORMAT, "metadata mpi_size %.40s is out of range",
				   v + strspn(v, " \t\n\v\f\r"));
	if (n > 0)
		*out = (uint64_t)n;
	return 0;
}

/* Refuse rows whose region id is not an index into region_table/names (before
 * anything formats a row description, which looks the name up). */
int h5index_check_regions(const struct h5prof *p)
{
	size_t i;

	for (i = 0; i < p->info.num_rows; i++) {
		if (p->rows[i].region >= strmap_count(&p->names))
			return h5prof_fail(p, ERR_FORMAT,
					   "row %zu refers to region %" PRIu32
					   " but 'region_table/names' holds %zu names; the file is "
					   "truncated or damaged",
					   i, p->rows[i].region, strmap_count(&p->names));
	}
	return 0;
}

/* Sum the rows' counts into num_events and find the largest row.  The store
 * keeps counts as SQLite (signed 64-bit) integers, so a total above
 * INT64_MAX is refused like an overflow. */
int h5index_count_events(struct h5prof *p)
{
	size_t i;

	for (i = 0; i < p->info.num_rows; i++) {
		uint64_t c = p->rows[i].count;

		if (c > (uint64_t)INT64_MAX - p->info.num_events)
			return h5prof_fail(p, ERR_FORMAT,
					   "the event counts overflow; the file is damaged");
		p->info.num_events += c;
		if (c > p->max_count)
			p->max_count = c;
	}
	return 0;
}

/* Validate offsets, counts, duplicates and overlaps of a columnar index. */
int h5index_check(struct h5prof *p)
{
	size_t n = p->info.num_rows, i, prev = SIZE_MAX;
	int64_t *keys = NULL;
	uint64_t end_max = 0;
	int rc = 0;

	for (i = 0; i < n; i++) {
		struct prow *r = &p->rows[i];

		if (p->info.layout == H5PROF_AGGREGATE)
			continue;
		if (r->count > UINT64_MAX - r->offset) {
			rc = h5prof_fail(p, ERR_FORMAT,
					 "row %zu (%s) claims %" PRIu64 " events at offset %" PRIu64
					 ", which overflows; the file is truncated or damaged",
					 i, h5prof_rowdesc(p, r), r->count, r->offset);
			goto out;
		}
		if (r->offset + r->count > p->nev) {
			rc = h5prof_fail(p, ERR_FORMAT,
					 "row %zu (%s) claims events [%" PRIu64 ", %" PRIu64
					 ") but the event columns hold %" PRIu64
					 "; the file is truncated or damaged",
					 i, h5prof_rowdesc(p, r), r->offset, r->offset + r->count,
					 p->nev);
			goto out;
		}
	}
	if (n) {
		keys = malloc(n * sizeof(*keys));
		if (!keys) {
			rc = err_nomem();
			goto out;
		}
	}
	for (i = 0; i < n; i++)
		keys[i] = (int64_t)(((uint64_t)p->rows[i].rank << 32) | p->rows[i].region);
	if (n > 1)
		util_sort_i64(keys, n);
	for (i = 1; i < n; i++) {
		if (keys[i] == keys[i - 1]) {
			uint32_t rank = (uint32_t)((uint64_t)keys[i] >> 32);
			uint32_t region = (uint32_t)((uint64_t)keys[i] & 0xffffffffu);
			size_t a = SIZE_MAX, b = SIZE_MAX, k;

			for (k = 0; k < n && b == SIZE_MAX; k++) {
				if (p->rows[k].rank == rank && p->rows[k].region == region) {
					if (a == SIZE_MAX)
						a = k;
					else
						b = k;
				}
			}
			rc = h5prof_fail(
			    p, ERR_FORMAT,
			    "%s appears twice in the index (rows %zu and %zu); the file "
			    "is damaged",
			    h5prof_rowdesc(p, &p->rows[a]), a, b);
			goto out;
		}
	}
	if (p->info.layout == H5PROF_AGGREGATE)
		goto out;
	if (n > 1)
		qsort(p->rows, n, sizeof(*p->rows), prow_offset_cmp);
	for (i = 0; i < n; i++) {
		struct prow *r = &p->rows[i];

		if (!r->count)
			continue;
		if (prev != SIZE_MAX && r->offset < end_max) {
			struct prow *q = &p->rows[prev];

			rc = h5prof_fail(
			    p, ERR_FORMAT,
			    "rows %zu (%s) and %zu (%s) claim overlapping events [%" PRIu64
			    ", %" PRIu64 ") and [%" PRIu64 ", %" PRIu64 "); the file is damaged",
			    q->idx, h5prof_rowdesc(p, q), r->idx, h5prof_rowdesc(p, r), q->offset,
			    q->offset + q->count, r->offset, r->offset + r->count);
			goto out;
		}
		prev = i;
		end_max = r->offset + r->count;
	}
out:
	free(keys);
	return rc;
}

/*
 * Open and check every index column of the file's layout, then read them
 * into p->rows: region names first, region ids (checked against them),
 * ranks, the layout's own columns, source lines, files, texts and tags;
 * then the totals, the number of ranks and the structural checks.
 */
int h5index_open(struct h5prof *p)
{
	int agg = p->info.layout == H5PROF_AGGREGATE;
	struct h5col names, ix[IX_N];
	struct rowstr_ctx sc = {NULL, 0, NULL, 0};
	uint64_t *u = NULL, mpi, maxrank = 0;
	int64_t *s = NULL;
	hsize_t nrows = 0;
	size_t i, first = SIZE_MAX;
	int k, rc;

	h5col_init(&names);
	for (k = 0; k < IX_N; k++)
		h5col_init(&ix[k]);

	rc = h5col_open(p, &names, p->file, "region_table/names", "region_table/names", H5T_STRING,
			"string", 1);
	if (rc)
		goto out;
	for (k = 0; k < IX_N; k++) {
		if (h5index_cols[k].agg != 2 && h5index_cols[k].agg != agg)
			continue;
		rc = h5col_open(p, &ix[k], p->file, h5index_cols[k].name, h5index_cols[k].name,
				h5index_cols[k].cls, h5index_cols[k].expect,
				h5index_cols[k].required);
		if (rc)
			goto out;
	}
	for (k = 0; k < IX_N; k++) {
		if (ix[k].dset < 0)
			continue;
		if (first == SIZE_MAX) {
			first = (size_t)k;
			nrows = ix[k].n;
		} else if (ix[k].n != nrows) {
			rc =
			    h5prof_fail(p, ERR_FORMAT,
					"index columns have different lengths: '%s' has %llu rows, "
					"'%s' has %llu; the file is truncated or damaged",
					h5prof_q(ix[first].label), (unsigned long long)nrows,
					h5prof_q(ix[k].label), (unsigned long long)ix[k].n);
			goto out;
		}
	}
	if (!agg) {
		rc = h5columnar_open_events(p);
		if (rc)
			goto out;
	}

	/* region names */
	rc = h5util_read_strings(p, names.dset, 0, names.type, names.space, (size_t)names.n,
				 names.label, h5index_name_fn, p);
	if (rc)
		goto out;

	/* integer columns */
	p->info.num_rows = (size_t)nrows;
	if (nrows) {
		p->rows = calloc((size_t)nrows, sizeof(*p->rows));
		u = malloc((size_t)nrows * sizeof(*u));
		s = malloc((size_t)nrows * sizeof(*s));
		if (!p->rows || !u || !s) {
			rc = err_nomem();
			goto out;
		}
	}
	for (i = 0; i < nrows; i++) {
		struct prow *r = &p->rows[i];

		r->idx = i;
		r->source_line = -1;
		r->exclusive = -1;
		r->file_id = r->text_id = p->empty_id;
		r->tags_id = p->notags_id;
	}
	rc = h5col_read_u64(p, &ix[IX_REGION], u, UINT32_MAX);
	if (rc)
		goto out;
	for (i = 0; i < nrows; i++)
		p->rows[i].region = (uint32_t)u[i];
	rc = h5index_check_regions(p);
	if (rc)
		goto out;
	rc = h5col_read_u64(p, &ix[IX_RANK], u, UINT32_MAX - 1);
	if (rc)
		goto out;
	for (i = 0; i < nrows; i++) {
		p->rows[i].rank = (uint32_t)u[i];
		if (u[i] > maxrank)
			maxrank = u[i];
	}
	rc = agg ? h5aggregate_read_index(p, ix, u, s) : h5columnar_read_index(p, ix, u, s);
	if (rc)
		goto out;
	if (ix[IX_LINE].dset >= 0) {
		rc = h5col_read_i64(p, &ix[IX_LINE], s);
		if (rc)
			goto out;
		for (i = 0; i < nrows; i++)
			p->rows[i].source_line = s[i];
	}
	sc.p = p;
	for (k = IX_FILE; k <= IX_TAGS; k++) {
		if (ix[k].dset < 0)
			continue;
		sc.which = k - IX_FILE;
		rc = h5util_read_strings(p, ix[k].dset, 0, ix[k].type, ix[k].space, (size_t)nrows,
					 ix[k].label, h5index_rowstr_fn, &sc);
		if (rc)
			goto out;
	}

	rc = h5index_count_events(p);
	if (rc)
		goto out;
	rc = h5index_mpi_size(p, &mpi);
	if (rc)
		goto out;
	p->info.num_ranks = nrows ? (uint32_t)(mpi > maxrank + 1 ? mpi : maxrank + 1) : 0;
	rc = h5index_check(p);
out:
	free(sc.last_raw);
	free(u);
	free(s);
	h5col_close(&names);
	for (k = 0; k < IX_N; k++)
		h5col_close(&ix[k]);
	return rc;
}
