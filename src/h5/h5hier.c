/*
 * h5hier.c - the schema 1 (hierarchical) layout of docs/format.md section 2:
 * one group /rank<N>/regions/<name> per (rank, region) holding start_times,
 * end_times and optionally gpu_durations, with the source and tags as
 * attributes of the region group.
 *
 * h5hier_open() lists the rank groups, sorts them numerically, and indexes
 * every region group in byte-wise name order, checking its datasets' types
 * and lengths; region ids are given in order of first appearance.
 * h5hier_read() then reads each region's datasets whole, one rank's regions
 * group open at a time, or a window at a time for a row long enough to go
 * in pieces (h5prof_set_piece_min()).
 */
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

static herr_t h5hier_link_cb(hid_t g, const char *name, const H5L_info_t *info, void *ctx)
{
	(void)g;
	(void)info;
	return h5names_push_cb(ctx, name);
}

/* List the links of loc in name order (byte-wise). */
static int h5hier_list(const struct h5prof *p, hid_t loc, const char *label, struct h5names *out)
{
	if (H5Literate(loc, H5_INDEX_NAME, H5_ITER_INC, NULL, h5hier_link_cb, out) < 0) {
		if (out->failed)
			return ERR_NOMEM;
		return h5prof_damaged(p, "cannot list the members of", label);
	}
	return 0;
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Rank of a group named "rank" + decimal digits, or -1 for other names. */
static int64_t h5hier_rank_of(const char *name)
{
	const char *s;
	int64_t v = 0;

	if (strncmp(name, "rank", 4) != 0 || !name[4])
		return -1;
	for (s = name + 4; *s; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		if (v > INT64_C(1) << 40)
			return INT64_MAX; /* out of range, refused by the caller */
		v = v * 10 + (*s - '0');
	}
	return v;
}

struct rankgrp {
	int64_t rank;
	char *name;
};

static int rankgrp_cmp(const void *a, const void *b)
{
	const struct rankgrp *x = a, *y = b;

	return (x->rank > y->rank) - (x->rank < y->rank);
}

/* Append r to p->rows (capacity *cap). */
static int h5hier_push_row(struct h5prof *p, size_t *cap, const struct prow *r)
{
	if (util_grow(&p->rows, cap, p->info.num_rows + 1, sizeof(*p->rows), 64))
		return ERR_NOMEM;
	p->rows[p->info.num_rows++] = *r;
	return 0;
}

/*
 * Intern the string attribute name of region group g (label is the group's
 * path, for messages) into *id; *id is left as it is when it is absent.
 */
static int h5hier_str_attr(struct h5prof *p, hid_t g, const char *label, const char *name,
			   size_t *id)
{
	struct h5names l = {NULL, 0, 0, 0};
	char alabel[700];
	hid_t a = H5I_INVALID_HID;
	int rc, scalar = 0;

	snprintf(alabel, sizeof(alabel), "%s@%s", label, name);
	rc = h5util_attr_open(p, g, name, alabel, &a);
	if (rc <= 0)
		goto out;
	rc = h5util_attr_strings(p, a, alabel, &l, &scalar);
	if (!rc)
		rc = strmap_intern(id, &p->strs, l.n ? l.v[0] : "");
out:
	h5names_release(&l);
	if (a >= 0)
		H5Aclose(a);
	return rc < 0 ? rc : 0;
}

/*
 * The tags attribute of region group g, normalized and interned into *id:
 * a list of strings, or a single string holding a JSON array text or one
 * tag (docs/format.md section 2.2).  *id is left as it is when absent.
 */
static int h5hier_tags_attr(struct h5prof *p, hid_t g, const char *label, size_t *id)
{
	struct h5names l = {NULL, 0, 0, 0};
	char alabel[700];
	hid_t a = H5I_INVALID_HID;
	int rc, scalar = 0;
	char **tags = NULL;
	size_t ntags = 0;

	snprintf(alabel, sizeof(alabel), "%s@tags", label);
	rc = h5util_attr_open(p, g, "tags", alabel, &a);
	if (rc <= 0)
		goto out;
	rc = h5util_attr_strings(p, a, alabel, &l, &scalar);
	if (!rc && scalar) {
		/* a single string: JSON array text, or one tag */
		const char *s = l.n ? l.v[0] : "";

		if (json_parse_strarray(&tags, &ntags, s) == 0)
			rc = h5prof_intern_tags(p, (const char *const *)tags, ntags, id);
		else if (err_code() == ERR_NOMEM)
			rc = ERR_NOMEM;
		else
			rc = h5prof_intern_tags(p, &s, *s ? 1 : 0, id);
	} else if (!rc) {
		rc = h5prof_intern_tags(p, (const char *const *)l.v, l.n, id);
	}
out:
	json_strarray_free(tags, ntags);
	h5names_release(&l);
	if (a >= 0)
		H5Aclose(a);
	return rc < 0 ? rc : 0;
}

/* Read the optional attributes of one schema-1 region group into r. */
static int h5hier_region_attrs(struct h5prof *p, hid_t g, const char *label, struct prow *r)
{
	char alabel[700];
	hid_t a = H5I_INVALID_HID;
	int rc;

	r->file_id = r->text_id = p->empty_id;
	r->tags_id = p->notags_id;
	r->source_line = -1;
	rc = h5hier_str_attr(p, g, label, "source_file", &r->file_id);
	if (!rc)
		rc = h5hier_str_attr(p, g, label, "source_text", &r->text_id);
	if (rc)
		goto out;
	snprintf(alabel, sizeof(alabel), "%s@source_lineno", label);
	rc = h5util_attr_open(p, g, "source_lineno", alabel, &a);
	if (rc > 0)
		rc = h5util_attr_i64(p, a, alabel, &r->source_line);
	if (rc < 0)
		goto out;
	rc = h5hier_tags_attr(p, g, label, &r->tags_id);
out:
	if (a >= 0)
		H5Aclose(a);
	return rc < 0 ? rc : 0;
}

/* The optional per-call datasets of a schema-1 region group beside its
 * times: GPU durations, then the nesting columns of section 10. */
static const struct {
	const char *name;
	unsigned flag;
	int col; /* EV_* index in struct h5rowbuf, -1 = its gpu array */
} h5hier_opt[] = {
    {"gpu_durations", PROW_GPU, -1},  {"call_ids", PROW_IDS, EV_CID},
    {"parent_ids", PROW_IDS, EV_PID}, {"thread_ids", PROW_THR, EV_THR},
    {"task_ids", PROW_TASK, EV_TASK},
};

#define H5HIER_NOPT (sizeof(h5hier_opt) / sizeof(h5hier_opt[0]))

/* Record where row r's datasets lie (h5direct.c), each with the array of
 * struct h5rowbuf its values go to: all of them, or none. */
static void h5hier_spans(struct h5prof *p, struct prow *r, const struct h5col *st,
			 const struct h5col *en, const struct h5col *opt)
{
	size_t k;
	int fail;

	r->offset = p->nspans;
	fail = h5direct_add(p, st, EV_A) || h5direct_add(p, en, EV_E);
	for (k = 0; k < H5HIER_NOPT && !fail; k++)
		if (r->flags & h5hier_opt[k].flag)
			fail = h5direct_add(p, &opt[k],
					    h5hier_opt[k].col < 0 ? EV_GPU
								  : (unsigned)h5hier_opt[k].col);
	if (fail)
		p->nspans = (size_t)r->offset;
	r->nspan = (uint32_t)(p->nspans - (size_t)r->offset);
}

/* Validate one schema-1 region group and append its row. */
static int h5hier_region(struct h5prof *p, size_t *cap, hid_t rg, const char *rgname, uint32_t rank,
			 size_t gidx, const char *name)
{
	struct h5col st, en, opt[H5HIER_NOPT];
	char label[600], sub[700];
	struct prow r;
	hid_t g = H5I_INVALID_HID;
	size_t k;
	int rc;

	h5col_init(&st);
	h5col_init(&en);
	for (k = 0; k < H5HIER_NOPT; k++)
		h5col_init(&opt[k]);
	memset(&r, 0, sizeof(r));
	snprintf(label, sizeof(label), "%s/regions/%s", rgname, name);
	rc = h5util_link_check(p, rg, name, label);
	if (rc)
		goto out;
	g = H5Gopen2(rg, name, H5P_DEFAULT);
	if (g < 0) {
		if (h5util_objtype(rg, name) != H5O_TYPE_GROUP)
			rc = h5prof_fail(p, ERR_FORMAT, "'%s' is not a group", h5prof_q(label));
		else
			rc = h5prof_damaged(p, "cannot open group", label);
		goto out;
	}
	snprintf(sub, sizeof(sub), "%s/start_times", label);
	rc = h5col_open(p, &st, g, "start_times", sub, H5T_INTEGER, "int64", 1);
	if (rc)
		goto out;
	snprintf(sub, sizeof(sub), "%s/end_times", label);
	rc = h5col_open(p, &en, g, "end_times", sub, H5T_INTEGER, "int64", 1);
	if (rc)
		goto out;
	for (k = 0; k < H5HIER_NOPT && !rc; k++) {
		snprintf(sub, sizeof(sub), "%s/%s", label, h5hier_opt[k].name);
		rc = h5col_open(p, &opt[k], g, h5hier_opt[k].name, sub, H5T_INTEGER, "int64", 0);
	}
	if (rc)
		goto out;
	if (st.n != en.n || (opt[0].dset >= 0 && opt[0].n != st.n)) {
		rc = h5prof_fail(
		    p, ERR_FORMAT,
		    "'%s' has %llu start times, %llu end times%s; the file is truncated "
		    "or damaged",
		    h5prof_q(label), (unsigned long long)st.n, (unsigned long long)en.n,
		    opt[0].dset >= 0 && opt[0].n != st.n ? " and a different number of GPU "
							   "durations"
							 : "");
		goto out;
	}
	for (k = 1; k < H5HIER_NOPT; k++) {
		if (opt[k].dset >= 0 && opt[k].n != st.n) {
			rc = h5prof_fail(p, ERR_FORMAT,
					 "'%s' has %llu start times but %llu %s; the file is "
					 "truncated or damaged",
					 h5prof_q(label), (unsigned long long)st.n,
					 (unsigned long long)opt[k].n, h5hier_opt[k].name);
			goto out;
		}
	}
	r.rank = rank;
	rc = strmap_intern(&r.idx, &p->names, name);
	if (rc)
		goto out;
	r.region = (uint32_t)r.idx;
	r.idx = gidx;
	r.count = st.n;
	r.exclusive = -1;
	for (k = 0; k < H5HIER_NOPT; k++)
		if (opt[k].dset >= 0)
			r.flags |= h5hier_opt[k].flag;
	/* ids are used as a pair: one without the other is not read */
	if ((opt[1].dset >= 0) != (opt[2].dset >= 0))
		r.flags &= ~PROW_IDS;
	if (st.inflate || en.inflate)
		r.flags |= PROW_INFLATE;
	h5hier_spans(p, &r, &st, &en, opt);
	rc = h5hier_region_attrs(p, g, label, &r);
	if (rc)
		goto out;
	rc = h5hier_push_row(p, cap, &r);
out:
	h5col_close(&st);
	h5col_close(&en);
	for (k = 0; k < H5HIER_NOPT; k++)
		h5col_close(&opt[k]);
	if (g >= 0)
		H5Gclose(g);
	return rc;
}

/*
 * Schema 1: find the rank groups, sort them numerically, and index every
 * region group.  Region ids are given in order of first appearance, ranks
 * visited in numeric order and regions in byte-wise name order.
 */
int h5hier_open(struct h5prof *p)
{
	struct h5names top = {NULL, 0, 0, 0}, regs = {NULL, 0, 0, 0};
	struct rankgrp *rg = NULL;
	size_t nrg = 0, i, j, cap = 0;
	hid_t g = H5I_INVALID_HID;
	int rc;

	rc = h5hier_list(p, p->file, "/", &top);
	if (rc)
		goto out;
	rg = calloc(top.n ? top.n : 1, sizeof(*rg));
	if (!rg) {
		rc = err_nomem();
		goto out;
	}
	for (i = 0; i < top.n; i++) {
		int64_t rank = h5hier_rank_of(top.v[i]);

		if (rank < 0)
			continue;
		rc = h5util_link_check(p, p->file, top.v[i], top.v[i]);
		if (rc)
			goto out;
		if (h5util_objtype(p->file, top.v[i]) != H5O_TYPE_GROUP)
			continue;
		if (rank >= (int64_t)UINT32_MAX) {
			rc = h5prof_fail(p, ERR_FORMAT, "rank group '%s' is out of range",
					 h5prof_q(top.v[i]));
			goto out;
		}
		rg[nrg].rank = rank;
		rg[nrg].name = top.v[i];
		nrg++;
	}
	if (nrg > 1)
		qsort(rg, nrg, sizeof(*rg), rankgrp_cmp);
	for (i = 1; i < nrg; i++) {
		if (rg[i].rank == rg[i - 1].rank) {
			rc = h5prof_fail(
			    p, ERR_FORMAT, "groups '%s' and '%s' both hold rank %" PRId64,
			    h5prof_q(rg[i - 1].name), h5prof_q(rg[i].name), rg[i].rank);
			goto out;
		}
	}
	p->rank_groups = calloc(nrg ? nrg : 1, sizeof(*p->rank_groups));
	if (!p->rank_groups) {
		rc = err_nomem();
		goto out;
	}
	for (i = 0; i < nrg; i++) {
		p->rank_groups[i] = util_strdup(rg[i].name);
		if (!p->rank_groups[i]) {
			rc = ERR_NOMEM;
			goto out;
		}
		p->nrank_groups++;
	}
	/* the number of rank groups; when they skip a rank (rank0 and rank5),
	 * the highest rank + 1, as for a columnar index (section 3.4): every
	 * row's rank is below the run's number of ranks (issue 24) */
	p->info.num_ranks = (uint32_t)nrg;
	if (nrg && rg[nrg - 1].rank >= (int64_t)nrg)
		p->info.num_ranks = (uint32_t)(rg[nrg - 1].rank + 1);
	for (i = 0; i < nrg; i++) {
		char label[300];

		snprintf(label, sizeof(label), "%s/regions", rg[i].name);
		rc = h5util_exists(p, p->file, label);
		if (rc < 0)
			goto out;
		if (rc == 0)
			continue;
		if (h5util_objtype(p->file, label) != H5O_TYPE_GROUP) {
			rc = h5prof_fail(p, ERR_FORMAT, "'%s' is not a group", h5prof_q(label));
			goto out;
		}
		g = H5Gopen2(p->file, label, H5P_DEFAULT);
		if (g < 0) {
			rc = h5prof_damaged(p, "cannot open group", label);
			goto out;
		}
		rc = h5hier_list(p, g, label, &regs);
		if (rc)
			goto out;
		if (regs.n > 1)
			qsort(regs.v, regs.n, sizeof(*regs.v), str_cmp);
		for (j = 0; j < regs.n; j++) {
			rc = h5hier_region(p, &cap, g, rg[i].name, (uint32_t)rg[i].rank, i,
					   regs.v[j]);
			if (rc)
				goto out;
			p->info.num_events += p->rows[p->info.num_rows - 1].count;
			if (p->rows[p->info.num_rows - 1].count > p->max_count)
				p->max_count = p->rows[p->info.num_rows - 1].count;
		}
		h5names_release(&regs);
		H5Gclose(g);
		g = H5I_INVALID_HID;
	}
	rc = 0;
out:
	if (g >= 0)
		H5Gclose(g);
	h5names_release(&regs);
	h5names_release(&top);
	free(rg);
	return rc;
}

/* A dataset of have values where the file had want when it was opened. */
static int h5hier_changed(const struct h5prof *p, const char *label, uint64_t have, uint64_t want)
{
	return h5prof_fail(p, ERR_IO,
			   "'%s' has %llu values, not %llu: the file changed while it was read; "
			   "nothing stored",
			   h5prof_q(label), (unsigned long long)have, (unsigned long long)want);
}

/*
 * Read one whole dataset of a schema-1 region group into dst.  In a row
 * whose times are gzip chunks h5inflate.c vouches for (PROW_INFLATE, seen
 * at open), the dataset is opened as a column and its chunks inflated here
 * (z: the scratch, up to a chunk of h5columnar_max_window() values), as
 * the columnar reader's are: libhdf5's zlib took a quarter of a gzip
 * schema-1 ingest.  Anything else, and any chunk h5inflate_read() leaves
 * to libhdf5, is read by H5Dread.
 */
static int h5hier_read_whole(const struct h5prof *p, hid_t g, const char *name, const char *label,
			     int64_t *dst, uint64_t n, unsigned flags, struct h5inflate *z)
{
	struct h5col c;
	herr_t st;
	int rc;

	if (n == 0)
		return 0;
	h5col_init(&c);
	if (flags & PROW_INFLATE) {
		rc = h5col_open(p, &c, g, name, label, H5T_INTEGER, "int64", 1);
		if (rc)
			return rc;
		if (c.n != n) {
			h5col_close(&c);
			return h5hier_changed(p, label, c.n, n);
		}
		if (c.chunk <= h5columnar_max_window() && !h5inflate_read(&c, 0, n, dst, z)) {
			h5col_close(&c);
			return 0;
		}
	} else {
		c.dset = H5Dopen2(g, name, H5P_DEFAULT);
		if (c.dset < 0)
			return h5prof_damaged(p, "cannot open dataset", label);
	}
	st = H5Dread(c.dset, H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, dst);
	h5col_close(&c);
	if (st < 0)
		return h5prof_damaged(p, "cannot read dataset", label);
	return 0;
}

/* The per-call datasets of schema-1 row r in the order a piece reads
 * them (times first, then the optional ones it has), each with where its
 * values go in b (reserved for them): 2 + the optional ones, the count. */
static size_t h5hier_columns(const struct prow *r, struct h5rowbuf *b, const char **name,
			     int64_t **dst)
{
	size_t k, n = 2;

	name[0] = "start_times";
	dst[0] = b->starts;
	name[1] = "end_times";
	dst[1] = b->durs;
	for (k = 0; k < H5HIER_NOPT; k++) {
		if (!(r->flags & h5hier_opt[k].flag))
			continue;
		name[n] = h5hier_opt[k].name;
		dst[n++] = h5hier_opt[k].col < 0 ? b->gpu : b->col[h5hier_opt[k].col];
	}
	return n;
}

/* The optional columns of r as a mask of EV_* bits (h5prof_rowbuf_reserve()). */
static unsigned h5hier_opt_mask(const struct prow *r)
{
	unsigned m = 0;
	size_t k;

	for (k = 0; k < H5HIER_NOPT; k++)
		if (r->flags & h5hier_opt[k].flag)
			m |= 1u << (h5hier_opt[k].col < 0 ? EV_GPU : h5hier_opt[k].col);
	return m;
}

/* Point row's per-call arrays at b's (the columns r has). */
static void h5hier_point(const struct prow *r, const struct h5rowbuf *b, struct h5prof_row *row)
{
	row->gpu = (r->flags & PROW_GPU) ? b->gpu : NULL;
	if (r->flags & PROW_IDS) {
		row->nest.call_ids = b->col[EV_CID];
		row->nest.parent_ids = b->col[EV_PID];
	}
	if (r->flags & PROW_THR)
		row->nest.thread_ids = b->col[EV_THR];
	if (r->flags & PROW_TASK)
		row->nest.task_ids = b->col[EV_TASK];
}

/*
 * Hand out schema-1 row r (its region group g open at path; row: its
 * fields filled) in pieces (h5prof_set_piece_min()), as the columnar
 * reader does: each dataset read a hyperslab of a window at a time into
 * b, so only a window of the row is held, never the row.  A compressed
 * dataset whose chunks are longer than the longest window gets a cache of
 * one chunk, so that each chunk is inflated once.
 */
static int h5hier_pieces(struct h5prof *p, hid_t g, const char *path, const struct prow *r,
			 struct h5rowbuf *b, struct h5prof_row *row, h5prof_row_fn fn, void *ctx)
{
	struct h5col c[2 + H5HIER_NOPT];
	const char *name[2 + H5HIER_NOPT];
	char label[2 + H5HIER_NOPT][800];
	int64_t *dst[2 + H5HIER_NOPT];
	uint64_t done = 0;
	hsize_t len;
	size_t k, n;
	int rc = 0;

	for (k = 0; k < 2 + H5HIER_NOPT; k++)
		h5col_init(&c[k]);
	n = h5hier_columns(r, b, name, dst);
	for (k = 0; k < n && !rc; k++) {
		snprintf(label[k], sizeof(label[k]), "%s/%s", path, name[k]);
		rc = h5col_open(p, &c[k], g, name[k], label[k], H5T_INTEGER, "int64", 1);
		if (!rc && c[k].n != r->count)
			rc = h5hier_changed(p, label[k], c[k].n, r->count);
		if (!rc && c[k].filtered && c[k].chunk > h5columnar_max_window())
			rc = h5col_cache_chunk(p, &c[k], g, name[k]);
	}
	if (rc)
		goto out;
	len = h5columnar_window_of(c, n);
	if (len > r->count)
		len = r->count;
	rc = h5prof_rowbuf_reserve(b, (size_t)len, h5hier_opt_mask(r));
	if (rc)
		goto out;
	n = h5hier_columns(r, b, name, dst); /* (again: the reserve moves b's arrays) */
	while (done < r->count) {
		hsize_t start = done, count = r->count - done < len ? r->count - done : len;
		hid_t mem = H5Screate_simple(1, &count, NULL);
		int64_t run = 0;

		if (mem < 0) {
			rc = h5prof_fail(p, ERR_GENERIC, "cannot make an HDF5 dataspace");
			goto out;
		}
		for (k = 0; k < n && !rc; k++)
			if (H5Sselect_hyperslab(c[k].space, H5S_SELECT_SET, &start, NULL, &count,
						NULL) < 0 ||
			    H5Dread(c[k].dset, H5T_NATIVE_INT64, mem, c[k].space, H5P_DEFAULT,
				    dst[k]) < 0)
				rc = h5prof_damaged(p, "cannot read dataset", label[k]);
		H5Sclose(mem);
		if (rc)
			goto out;
		/* the durations computed over the end times, in place */
		rc = h5columnar_decode_part(p, r, 0, b->starts, b->durs, count, done, &run,
					    b->starts, b->durs, &row->starts, &row->durations);
		if (rc)
			goto out;
		row->durations_own = 0;
		h5hier_point(r, b, row);
		h5prof_row_piece(row, done, count);
		rc = fn(ctx, row);
		if (rc)
			goto out;
		done += count;
	}
out:
	for (k = 0; k < 2 + H5HIER_NOPT; k++)
		h5col_close(&c[k]);
	return rc;
}

/* The rank's regions group open while its rows are read (with
 * evict-on-close, re-opening it per row would re-read its metadata every
 * time): rank_groups[cur]'s, or none (regs < 0). */
struct h5hier_at {
	hid_t regs;
	size_t cur;
};

/* Open the region group of row r into *g (path: its path, written here),
 * its rank's regions group first when another's is open in at. */
static int h5hier_group(const struct h5prof *p, struct h5hier_at *at, const struct prow *r,
			char *path, size_t size, hid_t *g)
{
	const char *region = strmap_get(&p->names, r->region);

	*g = H5I_INVALID_HID;
	snprintf(path, size, "%s/regions/%s", p->rank_groups[r->idx], region);
	if (r->idx != at->cur || at->regs < 0) {
		char rpath[300];

		if (at->regs >= 0)
			H5Gclose(at->regs);
		at->cur = SIZE_MAX;
		snprintf(rpath, sizeof(rpath), "%s/regions", p->rank_groups[r->idx]);
		at->regs = H5Gopen2(p->file, rpath, H5P_DEFAULT);
		if (at->regs < 0)
			return h5prof_damaged(p, "cannot open group", rpath);
		at->cur = r->idx;
	}
	*g = H5Gopen2(at->regs, region, H5P_DEFAULT);
	if (*g < 0)
		return h5prof_damaged(p, "cannot open group", path);
	return 0;
}

/* Read row r whole into b (reserved for the longest such row): straight
 * from the file through its spans (h5direct_read(), fd), or else through
 * libhdf5, its group opened (at) and each dataset read. */
static int h5hier_load(const struct h5prof *p, struct h5hier_at *at, const struct prow *r,
		       struct h5rowbuf *b, int fd, struct h5inflate *z)
{
	const char *name[2 + H5HIER_NOPT];
	int64_t *dst[2 + H5HIER_NOPT];
	char path[700], label[800];
	hid_t g = H5I_INVALID_HID;
	size_t k, n;
	int rc;

	rc = h5prof_rowbuf_reserve(b, b->cap, h5hier_opt_mask(r));
	if (rc)
		return rc;
	if (!h5direct_read(p, r, fd, b, z))
		return 0;
	n = h5hier_columns(r, b, name, dst);
	rc = h5hier_group(p, at, r, path, sizeof(path), &g);
	for (k = 0; k < n && !rc; k++) {
		snprintf(label, sizeof(label), "%s/%s", path, name[k]);
		rc = h5hier_read_whole(p, g, name[k], label, dst[k], r->count, r->flags, z);
	}
	if (g >= 0)
		H5Gclose(g);
	return rc;
}

/*
 * Schema 1: rows come grouped by rank, in file order.  A row long enough
 * goes in pieces (h5hier_pieces()); the others are read whole
 * (h5hier_load()).
 */
int h5hier_read(struct h5prof *p, h5prof_row_fn fn, void *ctx)
{
	struct h5hier_at at = {H5I_INVALID_HID, SIZE_MAX};
	struct h5rowbuf b;
	struct h5inflate z;
	struct h5prof_row row;
	char path[700];
	hid_t g = H5I_INVALID_HID;
	uint64_t whole;
	size_t i;
	int fd, rc;

	memset(&b, 0, sizeof(b));
	memset(&z, 0, sizeof(z));
	fd = h5direct_fd(p);
	whole = h5prof_max_whole(p);
	rc = h5prof_rowbuf_reserve(&b, (size_t)(whole ? whole : 1), 0);
	for (i = 0; i < p->info.num_rows && !rc; i++) {
		const struct prow *r = &p->rows[i];

		h5prof_fill_row(p, r, &row);
		if (r->count && h5prof_in_pieces(p, r)) {
			rc = h5hier_group(p, &at, r, path, sizeof(path), &g);
			if (!rc)
				rc = h5hier_pieces(p, g, path, r, &b, &row, fn, ctx);
			if (g >= 0)
				H5Gclose(g);
			g = H5I_INVALID_HID;
			continue;
		}
		if (r->count) {
			rc = h5hier_load(p, &at, r, &b, fd, &z);
			if (!rc)
				rc = h5columnar_decode(p, r, 0, b.starts, b.durs, b.starts, b.durs,
						       &row.starts, &row.durations);
			if (rc)
				break;
			row.durations_own = row.durations == b.durs;
			h5hier_point(r, &b, &row);
		}
		rc = fn(ctx, &row);
	}
	if (at.regs >= 0)
		H5Gclose(at.regs);
	h5prof_rowbuf_release(&b);
	h5inflate_release(&z);
	return rc;
}
