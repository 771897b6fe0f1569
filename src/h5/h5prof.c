/*
 * h5prof.c - reader for merged scope-profiler HDF5 files: the public entry
 * points, schema and layout detection, and the row helpers every layout
 * shares (/metadata is read by h5meta.c).  The layouts themselves live
 * beside it (see h5_internal.h for which file reads what).
 *
 * h5prof_open() checks the path, opens the file with libhdf5 (with HDF5's
 * own error printing silenced), detects the schema and layout
 * (docs/format.md section 1.2), reads /metadata (section 5), then lets the
 * layout's file read the region names and the whole rank/region index into
 * memory and validate it (section 6) before a single event is read.
 * h5prof_read() hands the rows out through the layout's reader.
 *
 * Only the file itself is read (issue 13): libhdf5 never loads a filter
 * plugin (h5prof_lib_init), h5util.c refuses links, layouts, filters and
 * sizes that would read elsewhere or more than the file holds, and the file
 * libhdf5 has open must be the one the caller checked and hashed
 * (h5prof_open_stat: same inode, size, mtime and ctime at open and after
 * the last row).
 *
 * All strings of the index (region names, source files and texts,
 * normalized tags) are interned in string maps owned by the handle.  Every
 * HDF5 id is closed on every path.  Messages are "cannot read 'PATH': WHAT"
 * with names escaped so they stay on one line.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hdf5.h>

#include "scopedb/err.h"
#include "scopedb/h5prof.h"
#include "scopedb/util.h"
#include "util/json.h"
#include "util/strmap.h"
#include "h5/h5_internal.h"

static int h5prof_nomem(const struct h5prof *p);

void h5prof_set_chunk_events(size_t n)
{
	h5columnar_set_window(n);
}

const char *h5prof_layout_name(enum h5prof_layout layout)
{
	switch (layout) {
	case H5PROF_HIERARCHICAL:
		return "hierarchical";
	case H5PROF_COLUMNAR:
		return "columnar";
	case H5PROF_AGGREGATE:
		return "aggregate";
	}
	return "unknown";
}

/* Escape s for a one-line message (util_quote_msg()). */
const char *h5prof_q(const char *s)
{
	return util_quote_msg(s);
}

/* err_set(code, "cannot read 'PATH': MSG") with MSG formatted from fmt. */
int h5prof_fail(const struct h5prof *p, int code, const char *fmt, ...)
{
	char msg[900];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return err_set(code, "cannot read '%s': %s", p->qpath, msg);
}

/* H5Ewalk2 callback: note whether libhdf5 failed to allocate memory. */
static herr_t h5prof_nomem_cb(unsigned n, const H5E_error2_t *e, void *ctx)
{
	(void)n;
	if (e->maj_num == H5E_RESOURCE &&
	    (e->min_num == H5E_NOSPACE || e->min_num == H5E_CANTALLOC))
		*(int *)ctx = 1;
	return 0;
}

/*
 * "WHAT; the file is truncated or damaged" with ERR_FORMAT, unless the
 * HDF5 error stack says the real cause was memory (a memory limit, a huge
 * chunk): then "WHAT: out of memory" with ERR_NOMEM.
 */
int h5prof_hdf5_nomem(void)
{
	int nomem = 0;

	H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, h5prof_nomem_cb, &nomem);
	return nomem;
}

int h5prof_damaged(const struct h5prof *p, const char *what, const char *label)
{
	int nomem = h5prof_hdf5_nomem();

	if (nomem && label)
		return h5prof_fail(p, ERR_NOMEM, "%s '%s': out of memory", what, h5prof_q(label));
	if (nomem)
		return h5prof_fail(p, ERR_NOMEM, "%s: out of memory", what);
	if (label)
		return h5prof_fail(p, ERR_FORMAT, "%s '%s'; the file is truncated or damaged", what,
				   h5prof_q(label));
	return h5prof_fail(p, ERR_FORMAT, "%s; the file is truncated or damaged", what);
}

/* ---- schema and layout ---- */

/*
 * Schema from the root attribute scope_profiler_schema (absent = 1, else an
 * integer 1-3) and, for schema >= 2, the layout from storage_layout
 * (absent = columnar); docs/format.md section 1.2.
 */
static int h5prof_detect(struct h5prof *p)
{
	hid_t a = H5I_INVALID_HID, type = H5I_INVALID_HID;
	struct h5names sl = {NULL, 0, 0, 0};
	int64_t v = 1;
	int rc, scalar = 0;

	rc = h5util_attr_open(p, p->file, "scope_profiler_schema", "scope_profiler_schema", &a);
	if (rc < 0)
		goto out;
	if (rc) {
		hid_t space;
		hssize_t npts;

		type = H5Aget_type(a);
		if (type < 0) {
			rc = h5prof_damaged(p, "cannot inspect attribute", "scope_profiler_schema");
			goto out;
		}
		if (H5Tget_class(type) != H5T_INTEGER) {
			rc = h5prof_fail(p, ERR_FORMAT,
					 "scope_profiler_schema is not an integer (it has type %s)",
					 h5util_class_name(type));
			goto out;
		}
		space = H5Aget_space(a);
		npts = space >= 0 ? H5Sget_simple_extent_npoints(space) : -1;
		h5util_close_space(&space);
		if (npts != 1) {
			rc = h5prof_fail(p, ERR_FORMAT,
					 "scope_profiler_schema is not a single integer");
			goto out;
		}
		if (H5Aread(a, H5T_NATIVE_INT64, &v) < 0) {
			rc = h5prof_damaged(p, "cannot read attribute", "scope_profiler_schema");
			goto out;
		}
		if (v < 1 || v > 3) {
			rc = h5prof_fail(p, ERR_FORMAT,
					 "unsupported scope-profiler schema version %" PRId64
					 "; supported: 1-3",
					 v);
			goto out;
		}
	}
	p->info.schema = (int)v;
	p->info.layout = v == 1 ? H5PROF_HIERARCHICAL : H5PROF_COLUMNAR;
	if (a >= 0)
		H5Aclose(a);
	a = H5I_INVALID_HID;
	if (v == 1) {
		rc = 0;
		goto out;
	}
	rc = h5util_attr_open(p, p->file, "storage_layout", "storage_layout", &a);
	if (rc <= 0)
		goto out;
	rc = h5util_attr_strings(p, a, "storage_layout", &sl, &scalar);
	if (rc)
		goto out;
	if (sl.n != 1) {
		rc = h5prof_fail(p, ERR_FORMAT, "storage_layout is not a single string");
		goto out;
	}
	if (strcmp(sl.v[0], "aggregate") == 0) {
		p->info.layout = H5PROF_AGGREGATE;
	} else if (strcmp(sl.v[0], "columnar") != 0) {
		rc = h5prof_fail(p, ERR_FORMAT,
				 "unsupported storage_layout '%s'; supported: columnar, aggregate",
				 h5prof_q(sl.v[0]));
		goto out;
	}
	rc = 0;
out:
	h5names_release(&sl);
	h5util_close_type(&type);
	if (a >= 0)
		H5Aclose(a);
	return rc;
}

/* ---- rows ---- */

/* Normalize a tags list to compact JSON and intern it. */
int h5prof_intern_tags(struct h5prof *p, const char *const *tags, size_t n, size_t *out)
{
	struct buf b = BUF_INIT;
	int rc;

	if (n == 0) {
		*out = p->notags_id;
		return 0;
	}
	rc = json_buf_strarray(&b, tags, n);
	if (!rc)
		rc = strmap_intern(out, &p->strs, b.data);
	buf_release(&b);
	return rc;
}

/* Row description for messages: "rank 1, region 'solve'". */
const char *h5prof_rowdesc(const struct h5prof *p, const struct prow *r)
{
	static char b[2][300];
	static unsigned slot;
	char *s = b[slot++ % 2];

	snprintf(s, sizeof(b[0]), "rank %" PRIu32 ", region '%s'", r->rank,
		 h5prof_q(strmap_get(&p->names, r->region)));
	return s;
}

uint64_t h5prof_rank_calls(const struct h5prof *p, uint32_t rank)
{
	return rank < p->rank_calls_n ? p->rank_calls[rank] : 0;
}

int h5prof_in_pieces(const struct h5prof *p, const struct prow *r)
{
	return h5prof_goes_in_pieces(r->count, h5prof_rank_calls(p, r->rank), p->piece_min);
}

uint64_t h5prof_max_whole(const struct h5prof *p)
{
	uint64_t m = 0;
	size_t i;

	if (!p->piece_min || p->max_count < p->piece_min / 4)
		return p->max_count;
	for (i = 0; i < p->info.num_rows; i++)
		if (!h5prof_in_pieces(p, &p->rows[i]) && p->rows[i].count > m)
			m = p->rows[i].count;
	return m;
}

void h5prof_fill_row(const struct h5prof *p, const struct prow *r, struct h5prof_row *out)
{
	memset(out, 0, sizeof(*out));
	out->rank = r->rank;
	out->region = r->region;
	out->calls = r->count;
	out->has_events = p->info.layout != H5PROF_AGGREGATE;
	out->agg_total = r->agg_total;
	out->agg_min = r->agg_min;
	out->agg_max = r->agg_max;
	out->exclusive = r->exclusive;
	out->source_line = r->source_line;
	out->source_file = strmap_get(&p->strs, r->file_id);
	out->source_text = strmap_get(&p->strs, r->text_id);
	out->tags_json = strmap_get(&p->strs, r->tags_id);
	out->rank_last = (r->flags & PROW_LAST) != 0;
	out->rank_calls = h5prof_rank_calls(p, r->rank);
}

/* One array of a row buffer at cap values (old: its current capacity). */
static int h5prof_rowbuf_col(int64_t **v, size_t cap, size_t old)
{
	int64_t *q;

	if (*v && cap <= old)
		return 0;
	q = realloc(*v, cap * sizeof(*q));
	if (!q)
		return err_nomem();
	*v = q;
	util_huge_hint(q, cap * sizeof(*q));
	return 0;
}

/* Make room for n events in each array of b (see h5_internal.h). */
int h5prof_rowbuf_reserve(struct h5rowbuf *b, size_t n, unsigned cols)
{
	size_t cap = n > b->cap ? n : b->cap;
	int k, rc;

	if (n > SIZE_MAX / sizeof(int64_t))
		return err_nomem();
	if (!cap)
		cap = 1;
	rc = h5prof_rowbuf_col(&b->starts, cap, b->cap);
	if (!rc)
		rc = h5prof_rowbuf_col(&b->durs, cap, b->cap);
	/* the optional columns only when the file has them: even untouched,
	 * an array counts against the reader's address space (--file-memory) */
	if (!rc && (((cols >> EV_GPU) & 1u) || b->gpu))
		rc = h5prof_rowbuf_col(&b->gpu, cap, b->cap);
	for (k = EV_CID; k < EV_N && !rc; k++)
		if (((cols >> k) & 1u) || b->col[k])
			rc = h5prof_rowbuf_col(&b->col[k], cap, b->cap);
	if (!rc)
		b->cap = cap;
	return rc;
}

void h5prof_rowbuf_release(struct h5rowbuf *b)
{
	int k;

	free(b->starts);
	free(b->durs);
	free(b->gpu);
	for (k = 0; k < EV_N; k++)
		free(b->col[k]);
	memset(b, 0, sizeof(*b));
}

/*
 * Mark the last row of each rank in p->rows (which is in the order the
 * read hands the rows out): the rows are grouped by rank with their
 * positions, (rank << 32 | position) sorted, and the last of each group
 * is flagged.
 */
static int h5prof_mark_rank_last(struct h5prof *p)
{
	size_t n = p->info.num_rows, i;
	int64_t *keys;

	if (!n)
		return 0;
	if (n > UINT32_MAX)
		return h5prof_fail(p, ERR_FORMAT, "too many index rows");
	keys = malloc(n * sizeof(*keys));
	if (!keys)
		return err_nomem();
	for (i = 0; i < n; i++)
		keys[i] = (int64_t)((uint64_t)p->rows[i].rank << 32 | i);
	util_sort_i64(keys, n);
	for (i = 0; i < n; i++)
		if (i + 1 == n || ((uint64_t)keys[i] ^ (uint64_t)keys[i + 1]) >> 32)
			p->rows[(uint32_t)keys[i]].flags |= PROW_LAST;
	free(keys);
	return 0;
}

/* ---- open / free ---- */

int h5prof_same_file(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
	       a->st_mtim.tv_sec == b->st_mtim.tv_sec && a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	       a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/*
 * Open path once (non-blocking, so a FIFO does not hang) and check that it
 * is a readable, non-empty regular file; *fd and *st are set on success
 * (the caller closes *fd).  Errors name the real cause.
 */
int h5prof_open_file(const char *path, int *fd, struct stat *st)
{
	const char *q = h5prof_q(path);
	int e;

	*fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (*fd < 0) {
		e = errno;
		if (e == ENOENT || e == ENOTDIR)
			return err_set(ERR_IO, "cannot read '%s': no such file", q);
		if (e == EACCES)
			return err_set(ERR_IO, "cannot read '%s': permission denied", q);
		if (e == ENOMEM)
			return err_set(ERR_NOMEM, "cannot read '%s': out of memory", q);
		return err_set(ERR_IO, "cannot read '%s': %s", q, util_strerror_lc(e));
	}
	if (fstat(*fd, st) != 0) {
		e = errno;
		close(*fd);
		*fd = -1;
		return err_set(ERR_IO, "cannot read '%s': %s", q, util_strerror_lc(e));
	}
	e = 0;
	if (S_ISDIR(st->st_mode))
		e = err_set(ERR_IO, "cannot read '%s': is a directory", q);
	else if (!S_ISREG(st->st_mode))
		e = err_set(ERR_IO, "cannot read '%s': not a regular file", q);
	else if (st->st_size == 0)
		e = err_set(ERR_FORMAT, "cannot read '%s': not an HDF5 file (the file is empty)",
			    q);
	if (e) {
		close(*fd);
		*fd = -1;
	}
	return e;
}

/*
 * Whether libhdf5 reads the file that was checked (and hashed): the
 * descriptor of its sec2 driver must be the same inode, with size, mtime
 * and ctime unchanged since p->st was taken.
 */
static int h5prof_check_same(const struct h5prof *p)
{
	struct stat now;
	void *h = NULL;

	if (H5Fget_vfd_handle(p->file, H5P_DEFAULT, &h) < 0 || !h || fstat(*(int *)h, &now) != 0)
		return h5prof_fail(p, ERR_IO, "cannot check which file libhdf5 opened");
	if (!h5prof_same_file(&now, &p->st))
		return h5prof_fail(p, ERR_IO, "the file changed while it was read; nothing stored");
	return 0;
}

/*
 * Once per process, before libhdf5 is otherwise used by the reader: no
 * filter plugins are ever loaded (HDF5_PLUGIN_PATH and the compiled-in
 * plugin directory are not searched, so a profile cannot make scopedb run
 * code), and libhdf5 prints no errors of its own.
 */
static void h5prof_lib_init(void)
{
	H5PLset_loading_state(0);
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

/* A handle for path with no file open yet (shared by h5prof_open and
 * h5prof_validate_index). */
static int h5prof_new(struct h5prof **out, const char *path)
{
	struct h5prof *p;
	size_t i;
	int rc;

	*out = NULL;
	p = calloc(1, sizeof(*p));
	if (!p)
		return err_nomem();
	p->file = H5I_INVALID_HID;
	for (i = 0; i < EV_N; i++)
		h5col_init(&p->ev[i]);
	strmap_init(&p->names);
	strmap_init(&p->strs);
	p->path = util_strdup(path);
	if (!p->path) {
		rc = ERR_NOMEM;
		goto out;
	}
	p->qpath = util_strdup(h5prof_q(path));
	if (!p->qpath) {
		rc = ERR_NOMEM;
		goto out;
	}
	p->info.path = p->path;
	rc = strmap_intern(&p->empty_id, &p->strs, "");
	if (!rc)
		rc = strmap_intern(&p->notags_id, &p->strs, "[]");
out:
	if (rc) {
		h5prof_free(p);
		return rc;
	}
	*out = p;
	return 0;
}

/*
 * The index checks of h5index_open() on index columns given as
 * arrays: a handle with num_names placeholder region names and the given
 * rows, run through the same functions.
 */
int h5prof_validate_index(const char *path, const struct h5prof_index *idx)
{
	struct h5prof *p = NULL;
	char name[32];
	size_t i, id;
	int rc;

	rc = h5prof_new(&p, path);
	if (rc)
		return rc;
	p->info.layout = idx->aggregate ? H5PROF_AGGREGATE : H5PROF_COLUMNAR;
	p->nev = idx->num_events;
	for (i = 0; i < idx->num_names && !rc; i++) {
		snprintf(name, sizeof(name), "region %zu", i);
		rc = strmap_intern(&id, &p->names, name);
	}
	if (rc)
		goto out;
	if (idx->num_rows) {
		p->rows = calloc(idx->num_rows, sizeof(*p->rows));
		if (!p->rows) {
			rc = err_nomem();
			goto out;
		}
	}
	p->info.num_rows = idx->num_rows;
	for (i = 0; i < idx->num_rows; i++) {
		struct prow *r = &p->rows[i];

		r->idx = i;
		r->region = idx->region_ids[i];
		r->rank = idx->ranks[i];
		r->offset = idx->aggregate ? 0 : idx->offsets[i];
		r->count = idx->counts[i];
	}
	rc = h5index_check_regions(p);
	if (!rc)
		rc = h5index_count_events(p);
	if (!rc)
		rc = h5index_check(p);
out:
	h5prof_free(p);
	return rc;
}

int h5prof_open(struct h5prof **out, const char *path)
{
	return h5prof_open_stat(out, path, NULL);
}

static pthread_once_t h5prof_once = PTHREAD_ONCE_INIT;

void h5prof_init(void)
{
	pthread_once(&h5prof_once, h5prof_lib_init);
}

void h5prof_reset(void)
{
	h5prof_init();
	H5close();
	h5util_forget();
	/* libhdf5 1.10 keeps the plugin state through H5close(), but nothing
	 * promises it: set again (this call starts the library again) */
	h5prof_lib_init();
}

int h5prof_open_stat(struct h5prof **out, const char *path, const struct stat *expect)
{
	struct h5prof *p = NULL;
	hid_t fapl = H5I_INVALID_HID;
	htri_t is;
	size_t i;
	int rc, fd = -1;

	h5prof_init();
	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	rc = h5prof_new(&p, path);
	if (rc)
		return rc;
	/* without an identity from the caller, take it here; the descriptor
	 * stays open until libhdf5 has opened the file, so its inode cannot
	 * be reused by a replacement in between */
	if (expect) {
		p->st = *expect;
	} else {
		rc = h5prof_open_file(path, &fd, &p->st);
		if (rc)
			goto out;
	}
	is = h5util_is_hdf5(path);
	if (is == 0) {
		rc = h5prof_fail(p, ERR_FORMAT, "not an HDF5 file");
		goto out;
	}
	/* no file locking (read-only; some file systems lack it); evict each
	 * object's metadata when it is closed, so that the metadata cache does
	 * not keep the decoded headers of every schema-1 dataset ever opened
	 * (memory would grow with the number of region groups); no raw data
	 * chunk cache: event windows start and end on chunk boundaries and
	 * every other dataset is read whole, so each chunk is read once, and
	 * without the cache libhdf5 reads (or decompresses) it straight into
	 * our buffer instead of into a cache slot and then a copy (issue 6);
	 * the sec2 driver, whose descriptor h5prof_check_same() inspects */
	fapl = H5Pcreate(H5P_FILE_ACCESS);
	if (fapl < 0 || H5Pset_fapl_sec2(fapl) < 0 || H5Pset_file_locking(fapl, 0, 1) < 0 ||
	    H5Pset_evict_on_close(fapl, 1) < 0 || H5Pset_cache(fapl, 0, 0, 0, 0.75) < 0) {
		rc = h5prof_fail(p, ERR_GENERIC, "cannot set up HDF5 file access");
		goto out;
	}
	p->file = H5Fopen(path, H5F_ACC_RDONLY, fapl);
	if (p->file < 0) {
		rc = is < 0
			 ? h5prof_fail(p, ERR_FORMAT, "not an HDF5 file, or truncated or damaged")
			 : h5prof_damaged(p, "HDF5 cannot open it", NULL);
		goto out;
	}
	rc = h5prof_check_same(p);
	if (rc)
		goto out;
	rc = h5prof_detect(p);
	if (!rc)
		rc = h5prof_read_meta(p);
	if (rc)
		goto out;
	if (p->info.layout == H5PROF_HIERARCHICAL)
		rc = h5hier_open(p);
	else
		rc = h5index_open(p);
	if (!rc)
		rc = h5prof_mark_rank_last(p);
	if (rc)
		goto out;
	p->info.num_regions = strmap_count(&p->names);
	p->name_ptrs = calloc(p->info.num_regions ? p->info.num_regions : 1, sizeof(char *));
	if (!p->name_ptrs) {
		rc = err_nomem();
		goto out;
	}
	for (i = 0; i < p->info.num_regions; i++)
		p->name_ptrs[i] = (char *)strmap_get(&p->names, i);
	p->info.region_names = p->name_ptrs;
	p->info.meta = p->meta;
	*out = p;
	p = NULL;
out:
	if (rc == ERR_NOMEM && p)
		rc = h5prof_nomem(p);
	if (fapl >= 0)
		H5Pclose(fapl);
	if (fd >= 0)
		close(fd);
	h5prof_free(p);
	return rc;
}

const struct h5prof_info *h5prof_info(const struct h5prof *p)
{
	return &p->info;
}

void h5prof_free(struct h5prof *p)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < EV_N; i++)
		h5col_close(&p->ev[i]);
	if (p->file >= 0)
		H5Fclose(p->file);
	for (i = 0; i < p->info.num_meta; i++) {
		free(p->meta[i].key);
		free(p->meta[i].value);
	}
	free(p->meta);
	for (i = 0; i < p->nrank_groups; i++)
		free(p->rank_groups[i]);
	free(p->rank_groups);
	free(p->name_ptrs);
	free(p->rows);
	free(p->rank_calls);
	free(p->spans);
	strmap_release(&p->names);
	strmap_release(&p->strs);
	free(p->qpath);
	free(p->path);
	free(p);
}

/*
 * A plain "out of memory" (err_nomem() deep inside the reader) does not say
 * which file: name it.  Messages that already do are kept.
 */
static int h5prof_nomem(const struct h5prof *p)
{
	if (strcmp(err_msg(), "out of memory") == 0)
		return h5prof_fail(p, ERR_NOMEM, "out of memory");
	return ERR_NOMEM;
}

void h5prof_set_piece_min(struct h5prof *p, uint64_t n)
{
	p->piece_min = n;
}

/* Each rank's calls over its rows (h5prof_row.rank_calls), when pieces
 * are asked for: unknown (0) when a rank id is 2^22 or more, too sparse
 * for an array. */
static int h5prof_count_ranks(struct h5prof *p)
{
	uint32_t top = 0;
	size_t i;

	if (!p->piece_min || p->rank_calls || !p->info.num_rows)
		return 0;
	for (i = 0; i < p->info.num_rows; i++)
		top = p->rows[i].rank > top ? p->rows[i].rank : top;
	if (top >= (1u << 22))
		return 0;
	p->rank_calls = calloc((size_t)top + 1, sizeof(*p->rank_calls));
	if (!p->rank_calls)
		return err_nomem();
	p->rank_calls_n = (size_t)top + 1;
	for (i = 0; i < p->info.num_rows; i++) {
		uint64_t *c = &p->rank_calls[p->rows[i].rank];

		*c = p->rows[i].count > UINT64_MAX - *c ? UINT64_MAX : *c + p->rows[i].count;
	}
	return 0;
}

/* After the last row: refuse the rows if the file changed meanwhile. */
int h5prof_read(struct h5prof *p, h5prof_row_fn fn, void *ctx)
{
	int rc;

	H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
	rc = h5prof_count_ranks(p);
	if (rc)
		return rc;
	switch (p->info.layout) {
	case H5PROF_HIERARCHICAL:
		rc = h5hier_read(p, fn, ctx);
		break;
	case H5PROF_AGGREGATE:
		rc = h5aggregate_read(p, fn, ctx);
		break;
	default:
		rc = h5columnar_read(p, fn, ctx);
		break;
	}
	if (rc == ERR_NOMEM)
		return h5prof_nomem(p);
	if (rc == 0)
		rc = h5prof_check_same(p);
	return rc;
}
