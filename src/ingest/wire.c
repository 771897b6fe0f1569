/*
 * wire.c - the framing between the reader child and the store's process
 * (see wire.h).  Writing appends to one buffer and patches each frame's
 * length when its payload is complete; reading walks a cursor that refuses
 * to pass the end of the frame.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* End the frame begun at at: its length patched in, or, when rc says it
 * could not be written whole (memory ran out under --file-memory), the
 * part written dropped, so that the error frame that follows comes after
 * whole frames only (a partial one read as malformed data). */
static int wire_end(struct wire_out *w, size_t at, int rc)
{
	uint32_t len;

	if (!rc && w->b.len - at - WIRE_HEADER > UINT32_MAX)
		rc = err_set(ERR_FORMAT, "a row too large to pass on");
	if (rc) {
		w->b.len = at;
		return rc;
	}
	len = (uint32_t)(w->b.len - at - WIRE_HEADER);
	memcpy(w->b.data + at, &len, sizeof(len));
	return w->b.len >= WIRE_BLOCK ? wire_flush(w) : 0;
}

/* Appenders: each returns rc unchanged when it is already non-zero. */
static int put(struct wire_out *w, int rc, const void *p, size_t n)
{
	return rc ? rc : buf_add(&w->b, p, n);
}

/*
 * Integers travel as LEB128 varints, signed ones zigzag-encoded (0, -1, 1,
 * -2... as 0, 1, 2, 3...): most of a row's numbers are small, and the
 * store's process holds every frame of a file until it stores them (a run
 * of 4,096 ranks x 256 regions: 238 MB of rows at 8 bytes a number).
 */
static int put_u64(struct wire_out *w, int rc, uint64_t v)
{
	unsigned char b[10];
	size_t n = 0;

	do {
		b[n] = (unsigned char)(v & 0x7f);
		v >>= 7;
		b[n++] |= v ? 0x80 : 0;
	} while (v);
	return put(w, rc, b, n);
}

static int put_i64(struct wire_out *w, int rc, int64_t v)
{
	uint64_t u = (uint64_t)v << 1;

	return put_u64(w, rc, v < 0 ? ~u : u);
}

/* n numbers of v, each put_i64() */
static int put_ints(struct wire_out *w, int rc, const int64_t *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		rc = put_i64(w, rc, v[i]);
	return rc;
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

/* A row frame up to its blob's length: what wire_put_row() and
 * wire_put_row_spool() share (has_blob, blob_len: its blob's). */
static size_t wire_row_head(struct wire_out *w, const struct store_timing *t, uint32_t region,
			    int has_blob, uint64_t blob_len, int *rc)
{
	size_t at = wire_begin(w, WIRE_ROW, rc);
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
			     has_blob};
	const double d[] = {t->mean, t->m2};

	*rc = put_ints(w, *rc, v, sizeof(v) / sizeof(v[0]));
	*rc = put(w, *rc, d, sizeof(d));
	*rc = put_str(w, *rc, t->source_file);
	*rc = put_str(w, *rc, t->source_text);
	*rc = put_str(w, *rc, t->tags_json);
	*rc = put_u64(w, *rc, has_blob ? blob_len : 0);
	return at;
}

int wire_put_row(struct wire_out *w, const struct store_timing *t, uint32_t region)
{
	int rc;
	size_t at = wire_row_head(w, t, region, t->durations != NULL, t->durations_len, &rc);

	if (t->durations)
		rc = put(w, rc, t->durations, t->durations_len);
	return wire_end(w, at, rc);
}

int wire_put_row_spool(struct wire_out *w, const struct store_timing *t, uint32_t region, int fd,
		       uint64_t off, uint64_t len)
{
	unsigned char chunk[1u << 16];
	uint32_t flen;
	int rc, bad = 0;
	size_t at = wire_row_head(w, t, region, 1, len, &rc);

	if (!rc && w->b.len - at - WIRE_HEADER + len > UINT32_MAX)
		rc = err_set(ERR_FORMAT, "a row too large to pass on");
	if (rc) {
		w->b.len = at;
		return rc;
	}
	flen = (uint32_t)(w->b.len - at - WIRE_HEADER + len);
	memcpy(w->b.data + at, &flen, sizeof(flen));
	rc = wire_flush(w);
	while (!rc && len) {
		size_t k = len < sizeof(chunk) ? (size_t)len : sizeof(chunk);
		ssize_t got = 0;

		if (!bad) {
			do
				got = pread(fd, chunk, k, (off_t)off);
			while (got < 0 && errno == EINTR);
		}
		if (got <= 0 && !bad) {
			/* the frame is finished with zeros, so that the error
			 * frame after it is read as one and the file refused */
			bad = err_set(ERR_IO, "cannot read a row back from its temporary file: %s",
				      got < 0 ? util_strerror_lc(errno) : "it is shorter");
		}
		if (bad) {
			memset(chunk, 0, k);
			got = (ssize_t)k;
		}
		if (child_write_all(w->fd, chunk, (size_t)got))
			return err_set(ERR_IO, "the store's process stopped reading");
		off += (uint64_t)got;
		len -= (uint64_t)got;
	}
	return rc ? rc : bad;
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

int wire_put_error(struct wire_out *w, int code, const char *msg, uint64_t inherited)
{
	int rc;
	size_t at = wire_begin(w, WIRE_ERROR, &rc);

	rc = put_i64(w, rc, code);
	rc = put_str(w, rc, msg);
	return wire_end(w, at,
			put_i64(w, rc, (int64_t)(inherited > INT64_MAX ? INT64_MAX : inherited)));
}

int wire_put_nest(struct wire_out *w, const struct calltree_rankinfo *r)
{
	int rc;
	size_t at = wire_begin(w, WIRE_NEST, &rc);
	const int64_t v[] = {r->rank,
			     r->status,
			     r->method,
			     r->ids_issue,
			     r->paths_issue,
			     (int64_t)r->calls,
			     (int64_t)r->lanes,
			     (int64_t)r->paths,
			     (int64_t)r->orphans,
			     (int64_t)r->crosslane,
			     r->region_a,
			     r->region_b,
			     r->start_a,
			     r->end_a,
			     r->start_b,
			     r->end_b};

	return wire_end(w, at, put_ints(w, rc, v, sizeof(v) / sizeof(v[0])));
}

int wire_put_node(struct wire_out *w, const struct calltree_node *n)
{
	int rc;
	size_t at = wire_begin(w, WIRE_NODE, &rc);
	const int64_t v[] = {n->id, n->parent, n->region, n->depth};

	return wire_end(w, at, put_ints(w, rc, v, sizeof(v) / sizeof(v[0])));
}

int wire_put_path(struct wire_out *w, const struct calltree_path *p, const void *blob,
		  size_t blob_len)
{
	int rc;
	size_t at = wire_begin(w, WIRE_PATH, &rc);
	const int64_t v[] = {p->rank,  p->node, (int64_t)p->calls,     (int64_t)p->nested,
			     p->total, p->self, p->row_durations != 0, (int64_t)blob_len};

	rc = put_ints(w, rc, v, sizeof(v) / sizeof(v[0]));
	return wire_end(w, at, blob_len ? put(w, rc, blob, blob_len) : rc);
}

int wire_put_self(struct wire_out *w, uint32_t rank, uint32_t region, int64_t self,
		  enum calltree_self_source source)
{
	int rc;
	size_t at = wire_begin(w, WIRE_SELF, &rc);
	const int64_t v[] = {rank, region, self, source};

	return wire_end(w, at, put_ints(w, rc, v, sizeof(v) / sizeof(v[0])));
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

/* A put_u64() varint: at most 10 bytes, none past 64 bits (0 and bad
 * when it is not one). */
static uint64_t get_u64(struct cur *c)
{
	uint64_t v = 0;
	unsigned shift;
	unsigned char b;

	for (shift = 0; !c->bad && c->p < c->end; shift += 7) {
		b = *c->p++;
		if (shift == 63 && (b & 0xfe))
			break;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return v;
		if (shift == 63)
			break;
	}
	c->bad = 1;
	return 0;
}

/* A put_i64() number. */
static int64_t get_i64(struct cur *c)
{
	uint64_t z = get_u64(c);

	return z & 1 ? -(int64_t)(z >> 1) - 1 : (int64_t)(z >> 1);
}

/* n put_ints() numbers into v. */
static void get_ints(struct cur *c, int64_t *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		v[i] = get_i64(c);
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
	in->schema = (int)get_i64(&c);
	in->layout = (enum h5prof_layout)get_i64(&c);
	in->num_ranks = (uint32_t)get_u64(&c);
	nreg = get_u64(&c);
	in->num_rows = (size_t)get_u64(&c);
	in->num_events = get_u64(&c);
	nmeta = get_u64(&c);
	/* a name takes at least 2 bytes, a metadata entry 5: counts beyond
	 * that are lies */
	if (c.bad || nreg > f->len / 2 || nmeta > f->len / 5 || nreg * 2 + nmeta * 5 > f->len) {
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
	for (i = 0; i < nreg && !c.bad; i++)
		in->region_names[i] = (char *)get_str(&c);
	for (i = 0; i < nmeta && !c.bad; i++) {
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
	struct cur c;
	int64_t calls;

	cur_of(&c, f);
	calls = get_i64(&c);
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
	get_ints(&c, v, ROW_NFIELDS);
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

int wire_get_error(int *code, char *msg, size_t n, uint64_t *inherited, const struct wire_frame *f)
{
	struct cur c;
	int64_t v, lim;
	const char *s;

	cur_of(&c, f);
	v = get_i64(&c);
	s = get_str(&c);
	lim = get_i64(&c);
	if (c.bad || c.p != c.end || v >= 0 || v < ERR_BUSY || lim < 0)
		return wire_bad();
	*code = (int)v;
	snprintf(msg, n, "%s", s);
	*inherited = (uint64_t)lim;
	return 0;
}

/* The numbers of a WIRE_NEST, in wire_put_nest()'s order. */
enum {
	NEST_RANK,
	NEST_STATUS,
	NEST_METHOD,
	NEST_IDS,
	NEST_PATHS_ISSUE,
	NEST_CALLS,
	NEST_LANES,
	NEST_PATHS,
	NEST_ORPHANS,
	NEST_CROSSLANE,
	NEST_REGION_A,
	NEST_REGION_B,
	NEST_START_A,
	NEST_END_A,
	NEST_START_B,
	NEST_END_B,
	NEST_NFIELDS
};

/* A frame of exactly n int64 values into v: 0, or 1 when it is not. */
static int wire_ints(int64_t *v, size_t n, const struct wire_frame *f)
{
	struct cur c;

	cur_of(&c, f);
	get_ints(&c, v, n);
	return c.bad || c.p != c.end;
}

/* v is a rank or a region id (< limit). */
static int wire_id_ok(int64_t v, uint64_t limit)
{
	return v >= 0 && (uint64_t)v < limit;
}

int wire_get_nest(struct calltree_rankinfo *r, const struct wire_frame *f, size_t num_regions)
{
	int64_t v[NEST_NFIELDS];
	int k;

	memset(r, 0, sizeof(*r));
	if (wire_ints(v, NEST_NFIELDS, f) || !wire_id_ok(v[NEST_RANK], UINT32_MAX) ||
	    !wire_id_ok(v[NEST_STATUS], CALLTREE_INCOMPLETE + 1) ||
	    !wire_id_ok(v[NEST_METHOD], CALLTREE_IDS + 1) ||
	    !wire_id_ok(v[NEST_IDS], CALLTREE_IDS_CHILDREN + 1) ||
	    !wire_id_ok(v[NEST_PATHS_ISSUE], CALLTREE_PATHS_MANY + 1))
		return wire_bad();
	for (k = NEST_CALLS; k <= NEST_CROSSLANE; k++)
		if (v[k] < 0)
			return wire_bad();
	/* the overlapping pair names two regions of the file */
	if (v[NEST_STATUS] == CALLTREE_OVERLAP && (!wire_id_ok(v[NEST_REGION_A], num_regions) ||
						   !wire_id_ok(v[NEST_REGION_B], num_regions)))
		return wire_bad();
	r->rank = (uint32_t)v[NEST_RANK];
	r->status = (enum calltree_status)v[NEST_STATUS];
	r->method = (enum calltree_method)v[NEST_METHOD];
	r->ids_issue = (enum calltree_ids_issue)v[NEST_IDS];
	r->paths_issue = (enum calltree_paths_issue)v[NEST_PATHS_ISSUE];
	r->calls = (uint64_t)v[NEST_CALLS];
	r->lanes = (uint64_t)v[NEST_LANES];
	r->paths = (uint64_t)v[NEST_PATHS];
	r->orphans = (uint64_t)v[NEST_ORPHANS];
	r->crosslane = (uint64_t)v[NEST_CROSSLANE];
	if (r->status == CALLTREE_OVERLAP) {
		r->region_a = (uint32_t)v[NEST_REGION_A];
		r->region_b = (uint32_t)v[NEST_REGION_B];
		r->start_a = v[NEST_START_A];
		r->end_a = v[NEST_END_A];
		r->start_b = v[NEST_START_B];
		r->end_b = v[NEST_END_B];
	}
	return 0;
}

int wire_get_node(struct calltree_node *n, const struct wire_frame *f, size_t num_regions)
{
	int64_t v[4];

	memset(n, 0, sizeof(*n));
	if (wire_ints(v, 4, f) || !wire_id_ok(v[0], CALLTREE_MAX_NODES) || v[1] < -1 ||
	    v[1] >= v[0] || !wire_id_ok(v[2], num_regions) || v[3] < 1 ||
	    v[3] > CALLTREE_MAX_DEPTH || (v[1] < 0) != (v[3] == 1))
		return wire_bad();
	n->id = (uint32_t)v[0];
	n->parent = v[1];
	n->region = (uint32_t)v[2];
	n->depth = (uint32_t)v[3];
	return 0;
}

int wire_get_path(struct wire_path *out, const struct wire_frame *f)
{
	int64_t v[8];
	uint64_t count = 0;
	struct cur c;

	memset(out, 0, sizeof(*out));
	cur_of(&c, f);
	get_ints(&c, v, 8);
	out->blob = get_bytes(&c, v[7] >= 0 ? (uint64_t)v[7] : UINT64_MAX);
	if (c.bad || c.p != c.end || !wire_id_ok(v[0], UINT32_MAX) ||
	    !wire_id_ok(v[1], CALLTREE_MAX_NODES) || v[2] < 1 || v[3] < 0 || v[4] < 0 || v[5] < 0 ||
	    v[5] > v[4] || v[3] > INT64_MAX - v[2] || (v[6] != 0 && v[6] != 1))
		return wire_bad();
	/* the durations: the row's, or these, as many as the outermost calls */
	if (v[6]
		? v[7] != 0
		: store_count_durations(&count, out->blob, (size_t)v[7]) || count != (uint64_t)v[2])
		return wire_bad();
	out->p.rank = (uint32_t)v[0];
	out->p.node = (uint32_t)v[1];
	out->p.calls = (uint64_t)v[2];
	out->p.nested = (uint64_t)v[3];
	out->p.total = v[4];
	out->p.self = v[5];
	out->p.row_durations = (int)v[6];
	out->blob_len = (size_t)v[7];
	if (!out->blob_len)
		out->blob = NULL;
	return 0;
}

/* The rank and region of a WIRE_ROW without decoding the rest: 0, or
 * ERR_GENERIC when they are not there or the region is out of range. */
int wire_row_key(uint32_t *rank, uint32_t *region, const struct wire_frame *f, size_t num_regions)
{
	int64_t v[ROW_RANK + 1];
	struct cur c;

	cur_of(&c, f);
	get_ints(&c, v, ROW_RANK + 1);
	if (c.bad || !wire_id_ok(v[ROW_REGION], num_regions) ||
	    !wire_id_ok(v[ROW_RANK], UINT32_MAX))
		return wire_bad();
	*rank = (uint32_t)v[ROW_RANK];
	*region = (uint32_t)v[ROW_REGION];
	return 0;
}

int wire_get_self(uint32_t *rank, uint32_t *region, int64_t *self,
		  enum calltree_self_source *source, const struct wire_frame *f, size_t num_regions)
{
	int64_t v[4];

	if (wire_ints(v, 4, f) || !wire_id_ok(v[0], UINT32_MAX) || !wire_id_ok(v[1], num_regions) ||
	    v[2] < 0 || (v[3] != CALLTREE_SELF_TREE && v[3] != CALLTREE_SELF_FILE))
		return wire_bad();
	*rank = (uint32_t)v[0];
	*region = (uint32_t)v[1];
	*self = v[2];
	*source = (enum calltree_self_source)v[3];
	return 0;
}
