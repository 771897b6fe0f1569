/*
 * jsonprof.c - scope-profiler's JSON profiles as a row stream (see
 * jsonprof.h; docs/format.md section 11).
 *
 * The top-level object is read key by key.  "format" must come before
 * "regions" (upstream's exporter writes it first, and so does any tool that
 * sorts keys), so that a JSON document of another kind is refused as "not
 * a scope-profiler profile" before any of it is taken for rows.  The
 * elements of "regions" are read by jsonrows.c.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jsonprof/jsonprof_int.h"
#include "scopedb/err.h"

#define JSONPROF_FORMAT "scope-profiler-profile"
#define JSONPROF_VERSION 1

void jsonprof_set_piece_min(struct jsonprof *j, uint64_t n)
{
	j->piece_min = n;
}

int jsonprof_claims(const unsigned char *head, size_t n)
{
	size_t i = 0;

	if (n >= 2 && head[0] == 0x1f && head[1] == 0x8b)
		return 1;
	while (i < n && (head[i] == ' ' || head[i] == '\n' || head[i] == '\r' || head[i] == '\t'))
		i++;
	return i < n && head[i] == '{';
}

static int jsonprof_new(struct jsonprof **out, const char *path)
{
	struct jsonprof *j = calloc(1, sizeof(*j));
	int i;

	*out = NULL;
	if (!j)
		return err_nomem();
	j->fd = -1;
	strmap_init(&j->names);
	buf_init(&j->row.name);
	buf_init(&j->row.file);
	buf_init(&j->row.text);
	buf_init(&j->row.tags);
	buf_init(&j->row.key);
	for (i = 0; i < NCOLS; i++)
		i64vec_init(&j->row.col[i]);
	j->path = util_strdup(path);
	j->qpath = util_strdup(util_quote_msg(path));
	if (!j->path || !j->qpath) {
		jsonprof_free(j);
		return err_nomem();
	}
	j->info.path = j->path;
	j->info.schema = 3;
	j->info.layout = H5PROF_COLUMNAR;
	*out = j;
	return 0;
}

int jsonprof_open(struct jsonprof **out, const char *path, int fd, const struct stat *st)
{
	struct jsonprof *j;
	int rc = jsonprof_new(&j, path);

	if (rc)
		return rc;
	j->fd = fd;
	j->st = *st;
	j->have_st = 1;
	rc = jtok_init_fd(&j->t, j->qpath, fd, (uint64_t)st->st_size);
	if (rc) {
		jsonprof_free(j);
		return rc;
	}
	*out = j;
	return 0;
}

int jsonprof_open_mem(struct jsonprof **out, const char *label, const void *data, size_t n)
{
	struct jsonprof *j;
	int rc = jsonprof_new(&j, label);

	if (rc)
		return rc;
	rc = jtok_init_mem(&j->t, j->qpath, data, n);
	if (rc) {
		jsonprof_free(j);
		return rc;
	}
	*out = j;
	return 0;
}

const struct h5prof_info *jsonprof_info(const struct jsonprof *j)
{
	return &j->info;
}

const struct jsonprof_nesting *jsonprof_nesting(const struct jsonprof *j)
{
	return &j->nest;
}

void jsonprof_free(struct jsonprof *j)
{
	size_t i;
	int k;

	if (!j)
		return;
	jtok_release(&j->t);
	strmap_release(&j->names);
	free(j->name_ptrs);
	jsonmeta_release(&j->meta);
	free(j->pairs);
	jsonplan_release(&j->plan);
	buf_release(&j->row.name);
	buf_release(&j->row.file);
	buf_release(&j->row.text);
	buf_release(&j->row.tags);
	buf_release(&j->row.key);
	for (k = 0; k < NCOLS; k++)
		i64vec_release(&j->row.col[k]);
	spool_close(&j->sp);
	for (i = 0; i < j->row.ntags; i++)
		free(j->row.tagv[i]);
	free(j->row.tagv);
	free(j->qpath);
	free(j->path);
	free(j);
}

/* The end of the read: the file must be what was fstat()ed at open. */
static int jp_same_file(struct jsonprof *j)
{
	struct stat now;

	if (!j->have_st)
		return 0;
	if (fstat(j->fd, &now) != 0 || now.st_dev != j->st.st_dev || now.st_ino != j->st.st_ino ||
	    now.st_size != j->st.st_size || now.st_mtim.tv_sec != j->st.st_mtim.tv_sec ||
	    now.st_mtim.tv_nsec != j->st.st_mtim.tv_nsec ||
	    now.st_ctim.tv_sec != j->st.st_ctim.tv_sec ||
	    now.st_ctim.tv_nsec != j->st.st_ctim.tv_nsec)
		return jp_fail(j, ERR_IO, "the file changed while it was read; nothing stored");
	return 0;
}

int jsonprof_read(struct jsonprof *j, h5prof_row_fn fn, void *ctx)
{
	struct jtok *t = &j->t;
	struct jtok_keys keys;
	struct buf key = BUF_INIT, s = BUF_INIT;
	int rc, first = 1, have_format = 0, have_regions = 0;
	int64_t v;

	if (j->read_done)
		return jp_fail(j, ERR_GENERIC, "the profile was read already");
	j->read_done = 1;
	if (jtok_peek(t) != '{') {
		if (t->failed)
			return t->fail_code;
		if (jtok_is_gzip(t) && t->pos < t->len && t->buf[t->pos] == 0x89)
			return jp_fail(j, ERR_FORMAT,
				       "a gzip-compressed HDF5 file; decompress it first (gunzip)");
		return jp_fail(j, ERR_FORMAT, "not a scope-profiler profile (not a JSON object)");
	}
	t->pos++;
	jtok_keys_init(&keys);
	while ((rc = jtok_more(t, '}', first)) == 1) {
		const char *k;

		first = 0;
		rc = jtok_key(t, &keys, &key, "the document");
		if (rc)
			break;
		k = key.data;
		if (!strcmp(k, "format")) {
			if (jtok_peek(t) != '"') {
				rc = t->failed ? t->fail_code
					       : jp_fail(j, ERR_FORMAT,
							 "not a scope-profiler profile (its "
							 "\"format\" is not a string)");
				break;
			}
			rc = jtok_string(t, &s);
			if (!rc && strcmp(s.data, JSONPROF_FORMAT) != 0)
				rc =
				    jp_fail(j, ERR_FORMAT,
					    "not a scope-profiler profile (its format is '%s', not "
					    "'" JSONPROF_FORMAT "')",
					    util_quote_msg(s.data));
			have_format = 1;
		} else if (!strcmp(k, "format_version")) {
			rc = jtok_int64(t, &v, "\"format_version\"");
			if (!rc && v > JSONPROF_VERSION)
				rc = jp_fail(
				    j, ERR_FORMAT,
				    "JSON profile format version %" PRId64
				    " is newer than this scopedb reads (%d); upgrade scopedb",
				    v, JSONPROF_VERSION);
			else if (!rc && v < 1)
				rc = jp_fail(j, ERR_FORMAT,
					     "unsupported JSON profile format version %" PRId64
					     "; supported: %d",
					     v, JSONPROF_VERSION);
		} else if (!strcmp(k, "time_unit")) {
			/* null is no unit given; "" is a unit, and not ours */
			int isnull = jtok_null(t);

			rc = isnull < 0 ? isnull
			     : isnull	? 0
					: jsonprof_opt_string(j, &s, "\"time_unit\"");
			if (!rc && !isnull && strcmp(s.len ? s.data : "", "nanoseconds") != 0)
				rc = jp_fail(j, ERR_FORMAT,
					     "unsupported time_unit '%s'; supported: nanoseconds",
					     util_quote_msg(s.len ? s.data : ""));
		} else if (!strcmp(k, "exporter")) {
			rc = jsonprof_opt_string(j, &s, "\"exporter\"");
		} else if (!strcmp(k, "num_ranks")) {
			rc = jtok_int64(t, &v, "\"num_ranks\"");
			/* ranks 0 to 2^32 - 2 (section 11.2): at most 2^32 - 1 of them */
			if (!rc && (v < 0 || v > (int64_t)UINT32_MAX))
				rc = jp_fail(j, ERR_FORMAT,
					     "\"num_ranks\" is out of range (%" PRId64 ")", v);
			if (!rc) {
				j->doc_ranks = (uint64_t)v;
				j->have_doc_ranks = 1;
			}
		} else if (!strcmp(k, "event_data_available")) {
			int b;

			rc = jtok_bool(t, &b, "\"event_data_available\"");
		} else if (!strcmp(k, "metadata")) {
			rc = jtok_null(t);
			if (rc == 0)
				rc = jsonmeta_read(t, &j->meta);
			else if (rc > 0)
				rc = 0;
		} else if (!strcmp(k, "regions")) {
			if (!have_format) {
				rc = jp_fail(j, ERR_FORMAT,
					     "not a scope-profiler profile (no \"format\": "
					     "\"" JSONPROF_FORMAT "\" before its \"regions\")");
				break;
			}
			have_regions = 1;
			jsonplan_make(&j->plan, &j->t, j->piece_min);
			rc = jsonprof_regions(j, fn, ctx);
		} else {
			/* threads, tasks, likwid, line_profile, and keys of
			 * later exporters: validated, not kept */
			rc = jtok_skip(t, 1);
		}
		if (rc)
			break;
	}
	jtok_keys_release(&keys);
	buf_release(&key);
	buf_release(&s);
	if (!rc)
		rc = jtok_end(t);
	if (rc)
		return rc;
	if (!have_format)
		return jp_fail(j, ERR_FORMAT,
			       "not a scope-profiler profile (no \"format\": \"" JSONPROF_FORMAT
			       "\")");
	(void)have_regions;
	/* upstream's own: "num_ranks" as written; when that is below the
	 * largest rank + 1 (a schema-1 run counts its rank groups, which
	 * need not be 0..N-1) or absent, the largest rank + 1, as the HDF5
	 * reader counts such a run: every row's rank is below the run's
	 * number of ranks (issue 24) */
	j->info.num_ranks = (uint32_t)j->max_rank1;
	if (j->have_doc_ranks && j->doc_ranks > j->max_rank1)
		j->info.num_ranks = (uint32_t)j->doc_ranks;
	if (j->info.num_rows && j->nagg == j->info.num_rows)
		j->info.layout = H5PROF_AGGREGATE;
	j->info.meta = j->meta.v;
	j->info.num_meta = j->meta.n;
	return jp_same_file(j);
}
