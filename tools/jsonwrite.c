/*
 * jsonwrite.c - the JSON twin of a profile (see jsonwrite.h).  The text is
 * built in a buffer and written out (through zlib's gzwrite for gzip) every
 * megabyte, so memory stays bounded for benchmark-size profiles.
 */
#include <errno.h>
#include <math.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "scopedb/err.h"
#include "scopedb/util.h"
#include "jsonwrite.h"
#include "util/json.h"

struct jsonwrite_stream {
	const char *path;
	struct h5write_opts o;
	struct jsonwrite_opts jo;
	FILE *f;
	gzFile gz;
	struct buf b;
	size_t nrows;
	int failed;
};

static int jw_fail(const char *path, const char *what)
{
	return err_set(ERR_IO, "cannot write '%s': %s", path, what);
}

/* Write out what is buffered (all of it when force). */
static int jw_flush(struct jsonwrite_stream *s, int force)
{
	int ok;

	if (!force && s->b.len < ((size_t)1 << 20))
		return 0;
	if (!s->b.len)
		return 0;
	if (s->gz)
		ok = gzwrite(s->gz, s->b.data, (unsigned)s->b.len) == (int)s->b.len;
	else
		ok = fwrite(s->b.data, 1, s->b.len, s->f) == s->b.len;
	s->b.len = 0;
	if (!ok)
		return jw_fail(s->path, s->gz ? "gzip write failed" : strerror(errno));
	return 0;
}

/* ", \"key\": [v...]" (v NULL: n values -1; key NULL: the array alone). */
static int jw_i64_array(struct buf *b, const char *key, const int64_t *v, size_t n)
{
	size_t i;
	int rc = key ? buf_printf(b, ", \"%s\": [", key) : buf_putc(b, '[');

	for (i = 0; i < n && !rc; i++)
		rc = buf_printf(b, i ? ", %" PRId64 : "%" PRId64, v ? v[i] : -1);
	return rc ? rc : buf_putc(b, ']');
}

/* A float as Python's json writes a value upstream keeps: an integer when
 * integral (float(v).is_integer()), else the shortest round trip; a
 * non-finite one as null (upstream's sanitizing), -0.0 as itself. */
static int jw_float(struct buf *b, double v)
{
	char t[40];
	int p;

	if (!isfinite(v))
		return buf_puts(b, "null");
	if (v == 0 && signbit(v))
		return buf_puts(b, "-0.0");
	if (v > -9.2e18 && v < 9.2e18 && v == (double)(int64_t)v)
		return buf_printf(b, "%" PRId64, (int64_t)v);
	for (p = 15; p <= 17; p++) {
		snprintf(t, sizeof(t), "%.*g", p, v);
		if (strtod(t, NULL) == v)
			break;
	}
	return buf_puts(b, t);
}

/* The value of metadata m as upstream's exporter writes the attribute
 * (json.dumps of its numpy value; a non-finite float as null, as upstream
 * sanitizes it: docs/format.md section 11.3). */
static int jw_meta_value(struct buf *b, const struct h5write_meta *m)
{
	size_t k;
	int rc = 0;

	switch (m->kind) {
	case H5WRITE_META_INT:
		return buf_printf(b, "%" PRId64, m->i);
	case H5WRITE_META_UINT:
		return buf_printf(b, "%" PRIu64, (uint64_t)m->i);
	case H5WRITE_META_INT32:
		return buf_printf(b, "%" PRId32, (int32_t)m->i);
	case H5WRITE_META_FLOAT:
		return jw_float(b, m->f);
	case H5WRITE_META_STR:
		return json_buf_string(b, m->str);
	case H5WRITE_META_STRARRAY:
		return json_buf_strarray(b, m->strs, m->nstrs);
	case H5WRITE_META_INTARRAY:
		return jw_i64_array(b, NULL, m->ints, m->n);
	case H5WRITE_META_FLOATARRAY:
		rc = buf_putc(b, '[');
		for (k = 0; k < m->n && !rc; k++) {
			if (k)
				rc = buf_puts(b, ", ");
			if (!rc)
				rc = jw_float(b, m->floats[k]);
		}
		return rc ? rc : buf_putc(b, ']');
	}
	return 0;
}

int jsonwrite_stream_open(struct jsonwrite_stream **out, const char *path,
			  const struct h5write_opts *opts, const struct jsonwrite_opts *jo,
			  uint64_t num_ranks, const struct h5write_meta *meta, size_t nmeta)
{
	struct jsonwrite_stream *s = calloc(1, sizeof(*s));
	int rc = 0, have_mpi = 0;
	size_t i, k;

	*out = NULL;
	if (!s)
		return err_nomem();
	s->path = path;
	s->o = *opts;
	s->jo = *jo;
	buf_init(&s->b);
	if (jo->gzip)
		s->gz = gzopen(path, "wb6");
	else
		s->f = fopen(path, "wb");
	if (!s->gz && !s->f) {
		rc = jw_fail(path, strerror(errno));
		free(s);
		return rc;
	}
	rc = buf_printf(&s->b,
			"{\"format\": \"scope-profiler-profile\", \"format_version\": 1, "
			"\"exporter\": \"scopedb-fixtures@1\", \"time_unit\": \"nanoseconds\", "
			"\"num_ranks\": %" PRIu64 ", \"event_data_available\": %s, \"metadata\": {",
			num_ranks, jo->summary_only ? "false" : "true");
	for (i = 0; i < nmeta; i++)
		if (strcmp(meta[i].key, "mpi_size") == 0)
			have_mpi = 1;
	k = 0;
	if (!rc && opts->mpi_size > 0 && !have_mpi) {
		rc = buf_printf(&s->b, "\"mpi_size\": %" PRId64, opts->mpi_size);
		k++;
	}
	for (i = 0; i < nmeta && !rc; i++, k++) {
		const struct h5write_meta *m = &meta[i];

		if (k)
			rc = buf_puts(&s->b, ", ");
		if (!rc)
			rc = json_buf_string(&s->b, m->key);
		if (!rc)
			rc = buf_puts(&s->b, ": ");
		if (rc)
			break;
		rc = jw_meta_value(&s->b, m);
	}
	if (!rc)
		rc = buf_puts(&s->b, "}, \"regions\": [");
	if (rc) {
		s->failed = 1;
		jsonwrite_stream_close(s);
		return rc;
	}
	*out = s;
	return 0;
}

/* The "aggregate" object of row r: upstream's aggregation mode, or (full)
 * its summary-only read of summary_statistics. */
static int jw_aggregate(struct buf *b, const struct h5write_row *r, int full)
{
	struct h5write_summary a;
	int rc;

	h5write_summarize(r, &a);
	if (!full)
		return buf_printf(b,
				  ", \"aggregate\": {\"count\": %zu, \"total\": %" PRId64
				  ", \"minimum\": %" PRId64 ", \"maximum\": %" PRId64
				  ", \"exclusive\": -1}",
				  r->calls, a.total, a.minimum, a.maximum);
	rc = buf_printf(b,
			", \"aggregate\": {\"count\": %zu, \"total\": %" PRId64
			", \"minimum\": %" PRId64 ", \"maximum\": %" PRId64 ", \"first\": %" PRId64
			", \"last\": %" PRId64 ", \"start_minimum\": %" PRId64
			", \"end_maximum\": %" PRId64 ", \"gpu_count\": %" PRIu64
			", \"gpu_total\": %" PRId64 ", \"mean\": ",
			r->calls, a.total, a.minimum, a.maximum, a.first, a.last, a.start_minimum,
			a.end_maximum, a.gpu_count, a.gpu_total);
	if (!rc)
		rc = jw_float(b, a.mean);
	if (!rc)
		rc = buf_puts(b, ", \"m2\": ");
	if (!rc)
		rc = jw_float(b, a.m2);
	if (!rc)
		rc = buf_printf(b, ", \"exclusive\": %" PRId64 "}, \"event_data_available\": false",
				a.total);
	return rc;
}

int jsonwrite_stream_row(struct jsonwrite_stream *s, const struct h5write_row *r)
{
	struct buf *b = &s->b;
	int rc, agg = s->o.aggregate && s->o.schema >= 2;

	if (s->failed)
		return ERR_IO;
	if (s->o.schema == 1 && r->calls == 0)
		return 0; /* schema 1 has no zero-call regions */
	rc = buf_puts(b, s->nrows ? ", {\"name\": " : "{\"name\": ");
	if (!rc)
		rc = json_buf_string(b, r->region);
	if (!rc)
		rc = buf_printf(b, ", \"rank\": %" PRIu32, r->rank);
	if (!rc && !agg && r->source_file && *r->source_file) {
		rc = buf_puts(b, ", \"source_file\": ");
		if (!rc)
			rc = json_buf_string(b, r->source_file);
	}
	if (!rc && !agg && r->source_line >= 0)
		rc = buf_printf(b, ", \"source_lineno\": %" PRId64, r->source_line);
	if (!rc && !agg && r->ntags) {
		rc = buf_puts(b, ", \"tags\": ");
		if (!rc)
			rc = json_buf_strarray(b, r->tags, r->ntags);
	}
	if (rc)
		goto out;
	if (agg || s->jo.summary_only) {
		rc = jw_aggregate(b, r, s->jo.summary_only);
	} else {
		rc = jw_i64_array(b, "start_times_ns", r->starts, r->calls);
		if (!rc)
			rc = jw_i64_array(b, "end_times_ns", r->ends, r->calls);
		if (!rc && s->o.gpu)
			rc = jw_i64_array(b, "gpu_durations_ns", r->gpu, r->calls);
		/* the nesting columns, as h5write writes them (-1 where none) */
		if (!rc && s->o.ids)
			rc = jw_i64_array(b, "call_ids", r->call_ids, r->calls);
		if (!rc && s->o.ids)
			rc = jw_i64_array(b, "parent_ids", r->parent_ids, r->calls);
		if (!rc && s->o.lanes)
			rc = jw_i64_array(b, "thread_ids", r->thread_ids, r->calls);
		if (!rc && s->o.lanes)
			rc = jw_i64_array(b, "task_ids", r->task_ids, r->calls);
	}
	if (!rc)
		rc = buf_putc(b, '}');
	if (!rc)
		rc = jw_flush(s, 0);
out:
	if (rc)
		s->failed = 1;
	else
		s->nrows++;
	return rc;
}

int jsonwrite_stream_close(struct jsonwrite_stream *s)
{
	int rc = 0;

	if (!s)
		return 0;
	if (!s->failed)
		rc = buf_puts(&s->b, "]}");
	if (!rc && !s->failed)
		rc = jw_flush(s, 1);
	if (s->gz && gzclose(s->gz) != Z_OK && !rc)
		rc = jw_fail(s->path, "gzip close failed");
	if (s->f && fclose(s->f) != 0 && !rc)
		rc = jw_fail(s->path, strerror(errno));
	if (!rc && s->failed)
		rc = ERR_IO;
	buf_release(&s->b);
	free(s);
	return rc;
}

/* num_ranks as scopedb reads it from the HDF5 twin (docs/format.md 2.1,
 * 3.4): schema 1 the largest rank of its groups + 1 (the number of
 * groups, or more when they skip a rank), schema 2/3 max(mpi_size or 1,
 * largest rank + 1) (0 without rows). */
static uint64_t jw_num_ranks(const struct h5write_profile *prof, const struct h5write_opts *o)
{
	uint64_t n = 0, top = 0;
	size_t i;

	if (!prof->nrows)
		return 0;
	for (i = 0; i < prof->nrows; i++)
		if (prof->rows[i].rank + (uint64_t)1 > top)
			top = prof->rows[i].rank + (uint64_t)1;
	if (o->schema == 1)
		return top;
	n = o->mpi_size > 0 ? (uint64_t)o->mpi_size : 1;
	for (i = 0; i < prof->nmeta; i++)
		if (!strcmp(prof->meta[i].key, "mpi_size") &&
		    (prof->meta[i].kind == H5WRITE_META_INT ||
		     prof->meta[i].kind == H5WRITE_META_INT32 ||
		     prof->meta[i].kind == H5WRITE_META_UINT))
			n = prof->meta[i].i > 0 ? (uint64_t)prof->meta[i].i : 1;
	return n > top ? n : top;
}

int jsonwrite_file(const char *path, const struct h5write_profile *prof,
		   const struct h5write_opts *opts, const struct jsonwrite_opts *jo)
{
	struct jsonwrite_stream *s;
	size_t i;
	int rc;

	rc = jsonwrite_stream_open(&s, path, opts, jo, jw_num_ranks(prof, opts), prof->meta,
				   prof->nmeta);
	for (i = 0; !rc && i < prof->nrows; i++)
		rc = jsonwrite_stream_row(s, &prof->rows[i]);
	if (rc) {
		jsonwrite_stream_close(s);
		return rc;
	}
	return jsonwrite_stream_close(s);
}
