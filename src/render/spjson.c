/*
 * spjson.c - upstream's JSON profile of a stored run (spjson.h).  Every
 * string from the store (names, paths, tags, metadata) goes through the
 * JSON writer (jsonw.c), which escapes it.  A metadata value that is a
 * canonical integer ("2", "-7", not "007") is written as a number, as
 * upstream writes mpi_size and friends; any other value as a string.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/spjson.h"
#include "scopedb/err.h"

/* 1 when text is a canonical decimal integer that fits in int64 (*v). */
static int spjson_integer(const char *text, int64_t *v)
{
	const char *p = text + (text[0] == '-');
	char *end;
	long long x;

	if (!*p || (p[0] == '0' && p[1]) || strspn(p, "0123456789") != strlen(p) ||
	    !strcmp(text, "-0"))
		return 0;
	errno = 0;
	x = strtoll(text, &end, 10);
	if (errno || *end)
		return 0;
	*v = x;
	return 1;
}

void spjson_begin(struct spjson *s, struct buf *out, const struct store_run *run,
		  const struct store_meta *m)
{
	size_t i;
	int labelled = 0;

	memset(s, 0, sizeof(*s));
	s->run_id = run->id;
	strmap_init(&s->ranks);
	jsonw_init(&s->w, out);
	jsonw_begin_object(&s->w, JSONW_INLINE);
	jsonw_key(&s->w, "format");
	jsonw_string(&s->w, "scope-profiler-profile");
	jsonw_key(&s->w, "format_version");
	jsonw_int(&s->w, 1);
	jsonw_key(&s->w, "exporter");
	jsonw_string(&s->w, "scopedb");
	jsonw_key(&s->w, "time_unit");
	jsonw_string(&s->w, "nanoseconds");
	jsonw_key(&s->w, "num_ranks");
	jsonw_int(&s->w, run->num_ranks);
	jsonw_key(&s->w, "event_data_available");
	jsonw_bool(&s->w, !run->layout || strcmp(run->layout, "aggregate") != 0);
	jsonw_key(&s->w, "metadata");
	jsonw_begin_object(&s->w, JSONW_INLINE);
	for (i = 0; i < m->n; i++) {
		int64_t v;

		/* the run's label (ingest --label may have set it) is the one
		 * a reader of the file takes: its metadata "label" */
		if (!strcmp(m->keys[i], "label") && run->label) {
			labelled = 1;
			jsonw_key(&s->w, "label");
			jsonw_string(&s->w, run->label);
			continue;
		}
		jsonw_key(&s->w, m->keys[i]);
		if (spjson_integer(m->values[i], &v))
			jsonw_int(&s->w, v);
		else
			jsonw_string(&s->w, m->values[i]);
	}
	if (run->label && !labelled) {
		jsonw_key(&s->w, "label");
		jsonw_string(&s->w, run->label);
	}
	jsonw_end(&s->w);
	jsonw_key(&s->w, "regions");
	jsonw_begin_array(&s->w, JSONW_BLOCK);
}

/* The cursor of rank (one for each rank seen, found by its number: a run
 * of one rank numbered 10^9 holds one), or NULL (s->rc set). */
static int64_t *spjson_cursor(struct spjson *s, int64_t rank)
{
	char key[24];
	size_t id, old = s->ncursor;

	if (rank < 0) {
		s->rc = err_set(ERR_FORMAT, "a row of rank %lld", (long long)rank);
		return NULL;
	}
	snprintf(key, sizeof(key), "%lld", (long long)rank);
	if (strmap_intern(&id, &s->ranks, key)) {
		s->rc = ERR_NOMEM;
		return NULL;
	}
	if (id >= s->ncursor) {
		if (util_grow(&s->cursor, &s->ncursor, id + 1, sizeof(*s->cursor), 16)) {
			s->rc = ERR_NOMEM;
			return NULL;
		}
		memset(s->cursor + old, 0, (s->ncursor - old) * sizeof(*s->cursor));
	}
	return &s->cursor[id];
}

/* The calls of a row from *cursor on, each 1 ns after the one before
 * (so that no call, not even a zero-length one, lies inside another).
 * All of a rank's calls end to end must fit in int64 nanoseconds: checked
 * before anything is written (else s->rc, and the row is not written). */
static int spjson_times(struct spjson *s, int64_t *cursor, int64_t rank, const int64_t *d, size_t n)
{
	int64_t at = *cursor;
	size_t i;

	for (i = 0; i < n; i++) {
		if (d[i] < 0)
			return s->rc =
				   err_set(ERR_FORMAT,
					   "cannot write run %lld as a JSON profile: rank %lld has "
					   "a call of negative duration",
					   (long long)s->run_id, (long long)rank);
		if (d[i] > INT64_MAX - 1 - at)
			return s->rc = err_set(
				   ERR_FORMAT,
				   "cannot write run %lld as a JSON profile: the calls of rank "
				   "%lld "
				   "last more than 2^63 ns end to end, past the time line of the "
				   "format",
				   (long long)s->run_id, (long long)rank);
		at += d[i] + 1;
	}
	at = *cursor;
	jsonw_key(&s->w, "start_times_ns");
	jsonw_begin_array(&s->w, JSONW_COMPACT);
	for (i = 0; i < n; i++) {
		jsonw_int(&s->w, at);
		at += d[i] + 1;
	}
	jsonw_end(&s->w);
	at = *cursor;
	jsonw_key(&s->w, "end_times_ns");
	jsonw_begin_array(&s->w, JSONW_COMPACT);
	for (i = 0; i < n; i++) {
		jsonw_int(&s->w, at + d[i]);
		at += d[i] + 1;
	}
	jsonw_end(&s->w);
	*cursor = at;
	return 0;
}

/*
 * The device times of a row's calls: the store keeps their count and sum,
 * not each call's, so the first gpu_count calls get equal shares of the
 * sum (the remainder on the first) and the others -1 (no device time):
 * gpu_total and gpu_avg, the metrics of device time, come back the same.
 */
static void spjson_gpu(struct spjson *s, const struct store_timing *t, size_t n)
{
	int64_t share = t->gpu_total / (int64_t)t->gpu_count;
	int64_t rest = t->gpu_total - share * (int64_t)t->gpu_count;
	size_t i;

	jsonw_key(&s->w, "gpu_durations_ns");
	jsonw_begin_array(&s->w, JSONW_COMPACT);
	for (i = 0; i < n; i++)
		jsonw_int(&s->w, i < t->gpu_count ? share + (i == 0 ? rest : 0) : -1);
	jsonw_end(&s->w);
}

static void spjson_aggregate(struct spjson *s, const struct store_timing *t)
{
	jsonw_key(&s->w, "aggregate");
	jsonw_begin_object(&s->w, JSONW_INLINE);
	jsonw_key(&s->w, "count");
	jsonw_int(&s->w, (int64_t)t->calls);
	jsonw_key(&s->w, "total");
	jsonw_int(&s->w, t->total);
	jsonw_key(&s->w, "minimum");
	jsonw_int(&s->w, t->calls ? t->min : 0);
	jsonw_key(&s->w, "maximum");
	jsonw_int(&s->w, t->calls ? t->max : 0);
	/* -1 when the profile gave none, as aggregate_exclusives has it: not
	 * the total, which would invent a self time */
	jsonw_key(&s->w, "exclusive");
	jsonw_int(&s->w, t->exclusive >= 0 ? t->exclusive : -1);
	jsonw_end(&s->w);
	jsonw_key(&s->w, "event_data_available");
	jsonw_bool(&s->w, 0);
}

void spjson_row(struct spjson *s, const struct store_timing *t, const char *region,
		const int64_t *d, size_t n, const char *const *tags, size_t ntags)
{
	int64_t *cursor;
	size_t i;

	if (s->rc || !(cursor = spjson_cursor(s, t->rank)))
		return;
	jsonw_begin_object(&s->w, JSONW_INLINE);
	jsonw_key(&s->w, "name");
	jsonw_string(&s->w, region);
	jsonw_key(&s->w, "rank");
	jsonw_int(&s->w, t->rank);
	if (t->source_file && *t->source_file) {
		jsonw_key(&s->w, "source_file");
		jsonw_string(&s->w, t->source_file);
	}
	if (t->source_line >= 0) {
		jsonw_key(&s->w, "source_lineno");
		jsonw_int(&s->w, t->source_line);
	}
	if (t->source_text && *t->source_text) {
		jsonw_key(&s->w, "source_text");
		jsonw_string(&s->w, t->source_text);
	}
	if (ntags) {
		jsonw_key(&s->w, "tags");
		jsonw_begin_array(&s->w, JSONW_COMPACT);
		for (i = 0; i < ntags; i++)
			jsonw_string(&s->w, tags[i]);
		jsonw_end(&s->w);
	}
	if (t->has_events) {
		if (spjson_times(s, cursor, t->rank, d, n))
			return;
		if (t->gpu_count > 0 && t->gpu_count <= n)
			spjson_gpu(s, t, n);
		if (t->exclusive >= 0) {
			jsonw_key(&s->w, "exclusive_total_ns");
			jsonw_int(&s->w, t->exclusive);
		}
	} else {
		spjson_aggregate(s, t);
	}
	jsonw_end(&s->w);
}

int spjson_end(struct spjson *s)
{
	int rc = s->rc;

	jsonw_end(&s->w); /* regions */
	jsonw_end(&s->w);
	if (!rc)
		rc = jsonw_finish(&s->w);
	if (!rc && buf_putc(s->w.out, '\n'))
		rc = ERR_NOMEM;
	spjson_abort(s);
	return rc;
}

void spjson_abort(struct spjson *s)
{
	free(s->cursor);
	s->cursor = NULL;
	s->ncursor = 0;
	strmap_release(&s->ranks);
}
