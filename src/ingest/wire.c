/*
 * wire.c - the framing between the reader child and the store's process
 * (see wire.h).  Writing appends to one buffer and patches each frame's
 * length when its payload is complete; reading walks a cursor that refuses
 * to pass the end of the frame.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/wire.h"
#include "scopedb/err.h"
#include "util/child.h"

/* Collected bytes are written once there are this many. */
#define WIRE_BLOCK (256u << 10)

void wire_out_init(struct wire_out *w, int fd)
{
	w->fd = fd;
	buf_init(&w->b);
}

void wire_out_release(struct wire_out *w)
{
	if (w)
		buf_release(&w->b);
}

int wire_flush(struct wire_out *w)
{
	if (w->b.len && child_write_all(w->fd, w->b.data, w->b.len))
		return err_set(ERR_IO, "the store's process stopped reading");
	w->b.len = 0;
	return 0;
}

/* Start a frame of type: its header, the length patched by wire_end(). */
static size_t wire_begin(struct wire_out *w, enum wire_type type, int *rc)
{
	unsigned char h[WIRE_HEADER] = {0, 0, 0, 0, (unsigned char)type};
	size_t at = w->b.len;

	*rc = buf_add(&w->b, h, sizeof(h));
	return at;
}

static int wire_end(struct wire_out *w, size_t at, int rc)
{
	uint32_t len;

	if (rc)
		return rc;
	if (w->b.len - at - WIRE_HEADER > UINT32_MAX)
		return err_set(ERR_FORMAT, "a row too large to pass on");
	len = (uint32_t)(w->b.len - at - WIRE_HEADER);
	memcpy(w->b.data + at, &len, sizeof(len));
	return w->b.len >= WIRE_BLOCK ? wire_flush(w) : 0;
}

/* Appenders: each returns rc unchanged when it is already non-zero. */
static int put(struct wire_out *w, int rc, const void *p, size_t n)
{
	return rc ? rc : buf_add(&w->b, p, n);
}

static int put_u64(struct wire_out *w, int rc, uint64_t v)
{
	return put(w, rc, &v, sizeof(v));
}

static int put_i64(struct wire_out *w, int rc, int64_t v)
{
	return put(w, rc, &v, sizeof(v));
}

/* A string: its length (u64), its bytes and a NUL; NULL is sent as "". */
static int put_str(struct wire_out *w, int rc, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	rc = put_u64(w, rc, n);
	rc = put(w, rc, s ? s : "", n);
	return put(w, rc, "", 1);
}

int wire_put_info(struct wire_out *w, const struct h5prof_info *info)
{
	int rc;
	size_t at = wire_begin(w, WIRE_INFO, &rc), i;

	rc = put_i64(w, rc, info->schema);
	rc = put_i64(w, rc, info->layout);
	rc = put_u64(w, rc, info->num_ranks);
	rc = put_u64(w, rc, info->num_regions);
	rc = put_u64(w, rc, info->num_rows);
	rc = put_u64(w, rc, info->num_events);
	rc = put_u64(w, rc, info->num_meta);
	for (i = 0; i < info->num_regions; i++)
		rc = put_str(w, rc, info->region_names[i]);
	for (i = 0; i < info->num_meta; i++) {
		rc = put_str(w, rc, info->meta[i].key);
		rc = put_str(w, rc, info->meta[i].value);
		rc = put_u64(w, rc, (uint64_t)info->meta[i].is_array);
	}
	return wire_end(w, at, rc);
}

int wire_put_row(struct wire_out *w, const struct store_timing *t, uint32_t region)
{
	int rc;
	size_t at = wire_begin(w, WIRE_ROW, &rc);
	const int64_t v[] = {t->calls < INT64_MAX ? (int64_t)t->calls : INT64_MAX,
			     region,
			     t->rank,
			     t->has_events,
			     t->total,
			     t->min,
			     t->max,
			     t->first,
			     t->last,
			     t->start_min,
			     t->end_max,
			     t->exclusive,
			     (int64_t)t->gpu_count,
			     t->gpu_total,
			     t->source_line,
			     t->durations != NULL};
	const double d[] = {t->mean, t->m2};

	rc = put(w, rc, v, sizeof(v));
	rc = put(w, rc, d, sizeof(d));
	rc = put_str(w, rc, t->source_file);
	rc = put_str(w, rc, t->source_text);
	rc = put_str(w, rc, t->tags_json);
	rc = put_u64(w, rc, t->durations ? t->durations_len : 0);
	if (t->durations)
		rc = put(w, rc, t->durations, t->durations_len);
	return wire_end(w, at, rc);
}

int wire_put_hash(struct wire_out *w, const char hex[65])
{
	int rc;
	size_t at = wire_begin(w, WIRE_HASH, &rc);

	return wire_end(w, at, put(w, rc, hex, 64));
}

int wire_put_end(struct wire_out *w)
{
	int rc;
	size_t at = wire_begin(w, WIRE_END, &rc);

	return wire_end(w, at, rc);
}

int wire_put_error(struct wire_out *w, int code, const char *msg)
{
	int rc;
	size_t at = wire_begin(w, WIRE_ERROR, &rc);

	rc = put_i64(w, rc, code);
	return wire_end(w, at, put_str(w, rc, msg));
}

/* ---- reading ---- */

int wire_next(const void *data, size_t len, size_t *pos, struct wire_frame *f)
{
	const unsigned char *p = (const unsigned char *)data + *pos;
	uint32_t n;

	if (len - *pos < WIRE_HEADER)
		return 0;
	memcpy(&n, p, sizeof(n));
	if (len - *pos - WIRE_HEADER < n)
		return 0;
	f->type = (enum wire_type)p[4];
	f->data = p + WIRE_HEADER;
	f->len = n;
	*pos += WIRE_HEADER + (size_t)n;
	return 1;
}

/* A bounds-checked cursor over a frame's payload. */
struct cur {
	const unsigned char *p, *end;
	int bad;
};

static void get(struct cur *c, void *out, size_t n)
{
	if (c->bad || (size_t)(c->end - c->p) < n) {
		c->bad = 1;
		memset(out, 0, n);
		return;
	}
	memcpy(out, c->p, n);
	c->p += n;
}

static uint64_t get_u64(struct cur *c)
{
	uint64_t v;

	get(c, &v, sizeof(v));
	return v;
}

/* Bytes of the next n in place (NULL when past the end). */
static const unsigned char *get_bytes(struct cur *c, uint64_t n)
{
	const unsigned char *p = c->p;

	if (c->bad || (uint64_t)(c->end - c->p) < n) {
		c->bad = 1;
		return NULL;
	}
	c->p += n;
	return p;
}

/* A string of put_str(), in place ("" when malformed). */
static const char *get_str(struct cur *c)
{
	uint64_t n = get_u64(c);
	const unsigned char *p = n < UINT64_MAX ? get_bytes(c, n + 1) : NULL;

	if (!p || p[n] != '\0') {
		c->bad = 1;
		return "";
	}
	return (const char *)p;
}

static int wire_bad(void)
{
	return err_set(ERR_GENERIC, "the reader process sent malformed data");
}

static void cur_of(struct cur *c, const struct wire_frame *f)
{
	c->p = f->data;
	c->end = f->data + f->len;
	c->bad = 0;
}

int wire_get_info(struct wire_info *out, const struct wire_frame *f, const char *path)
{
	struct h5prof_info *in = &out->info;
	struct cur c;
	uint64_t nreg, nmeta, i;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	cur_of(&c, f);
	in->path = path;
	in->schema = (int)get_u64(&c);
	in->layout = (enum h5prof_layout)get_u64(&c);
	in->num_ranks = (uint32_t)get_u64(&c);
	nreg = get_u64(&c);
	in->num_rows = (size_t)get_u64(&c);
	in->num_events = get_u64(&c);
	nmeta = get_u64(&c);
	/* every string takes at least 9 bytes: counts beyond that are lies */
	if (c.bad || nreg > f->len / 9 || nmeta > f->len / 9) {
		rc = wire_bad();
		goto out;
	}
	in->region_names = calloc(nreg + 1, sizeof(*in->region_names));
	in->meta = calloc(nmeta + 1, sizeof(*in->meta));
	if (!in->region_names || !in->meta) {
		rc = err_nomem();
		goto out;
	}
	in->num_regions = (size_t)nreg;
	in->num_meta = (size_t)nmeta;
	for (i = 0; i < nreg; i++)
		in->region_names[i] = (char *)get_str(&c);
	for (i = 0; i < nmeta; i++) {
		in->meta[i].key = (char *)get_str(&c);
		in->meta[i].value = (char *)get_str(&c);
		in->meta[i].is_array = get_u64(&c) != 0;
	}
	if (c.bad)
		rc = wire_bad();
out:
	if (rc)
		wire_info_release(out);
	return rc;
}

void wire_info_release(struct wire_info *wi)
{
	if (!wi)
		return;
	free(wi->info.region_names);
	free(wi->info.meta);
	memset(wi, 0, sizeof(*wi));
}

/* The numbers of a row, in wire_put_row()'s order. */
enum {
	ROW_CALLS,
	ROW_REGION,
	ROW_RANK,
	ROW_HAS_EVENTS,
	ROW_TOTAL,
	ROW_MIN,
	ROW_MAX,
	ROW_FIRST,
	ROW_LAST,
	ROW_START_MIN,
	ROW_END_MAX,
	ROW_EXCLUSIVE,
	ROW_GPU_COUNT,
	ROW_GPU_TOTAL,
	ROW_SOURCE_LINE,
	ROW_HAS_BLOB,
	ROW_NFIELDS
};

uint64_t wire_row_calls(const struct wire_frame *f)
{
	int64_t calls;

	if (f->len < sizeof(calls))
		return 0;
	memcpy(&calls, f->data, sizeof(calls));
	return calls > 0 ? (uint64_t)calls : 0;
}

int wire_get_row(struct store_timing *t, uint32_t *region, const struct wire_frame *f,
		 size_t num_regions)
{
	int64_t v[ROW_NFIELDS];
	double d[2];
	uint64_t blob_len;
	struct cur c;

	cur_of(&c, f);
	get(&c, v, sizeof(v));
	get(&c, d, sizeof(d));
	memset(t, 0, sizeof(*t));
	t->source_file = get_str(&c);
	t->source_text = get_str(&c);
	t->tags_json = get_str(&c);
	blob_len = get_u64(&c);
	t->durations = get_bytes(&c, blob_len);
	if (c.bad || v[ROW_REGION] < 0 || (uint64_t)v[ROW_REGION] >= num_regions ||
	    v[ROW_CALLS] < 0 || c.p != c.end)
		return wire_bad();
	*region = (uint32_t)v[ROW_REGION];
	t->calls = (uint64_t)v[ROW_CALLS];
	t->rank = v[ROW_RANK];
	t->has_events = v[ROW_HAS_EVENTS] != 0;
	t->total = v[ROW_TOTAL];
	t->min = v[ROW_MIN];
	t->max = v[ROW_MAX];
	t->first = v[ROW_FIRST];
	t->last = v[ROW_LAST];
	t->start_min = v[ROW_START_MIN];
	t->end_max = v[ROW_END_MAX];
	t->exclusive = v[ROW_EXCLUSIVE];
	t->gpu_count = (uint64_t)v[ROW_GPU_COUNT];
	t->gpu_total = v[ROW_GPU_TOTAL];
	t->source_line = v[ROW_SOURCE_LINE];
	t->mean = d[0];
	t->m2 = d[1];
	t->durations_len = (size_t)blob_len;
	if (!v[ROW_HAS_BLOB])
		t->durations = NULL;
	return 0;
}

int wire_get_hash(char hex[65], const struct wire_frame *f)
{
	size_t i;

	if (f->len != 64)
		return wire_bad();
	for (i = 0; i < 64; i++) {
		char ch = (char)f->data[i];

		if (!((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f')))
			return wire_bad();
		hex[i] = ch;
	}
	hex[64] = '\0';
	return 0;
}

int wire_get_error(int *code, char *msg, size_t n, const struct wire_frame *f)
{
	struct cur c;
	int64_t v;
	const char *s;

	cur_of(&c, f);
	get(&c, &v, sizeof(v));
	s = get_str(&c);
	if (c.bad || v >= 0 || v < ERR_BUSY)
		return wire_bad();
	*code = (int)v;
	snprintf(msg, n, "%s", s);
	return 0;
}
