/*
 * copy.c - the PostgreSQL backend's bulk writes: the new regions, the
 * timings rows of ingest and their duration blobs, and the call tree's
 * paths and path_ranks (write_rows(), see postgres.h).
 *
 * Ingest runs under the store's write lock (begin()), so timings ids can
 * be given as SQLite gives them: the next number after the largest stored
 * one (asked once per transaction).  The rows are appended to the
 * connection's COPY buffers and sent in bulk, when a buffer is large,
 * before any other statement (so reads in the same transaction see them)
 * and at commit: postgres_flush().  A long durations blob is not copied
 * into a buffer: its row goes in a COPY of its own, from the caller's
 * bytes (POSTGRES_BLOB_STREAM).
 */
#include <stdlib.h>
#include <string.h>

#include "scopedb/err.h"
#include "scopedb/store.h"
#include "scopedb/util.h"
#include "store/postgres/postgres.h"

/*
 * Rows go to the server in COPY's binary format (a header, then per row
 * the number of fields and each field as a 32-bit length, -1 for NULL,
 * and its bytes in network order; the trailer is added by
 * postgres_flush()): nothing to escape or parse as text, and the duration
 * blobs (most of an ingest's bytes) as they are rather than as hex.
 */
static const char copy_header[19] = "PGCOPY\n\377\r\n\0\0\0\0\0\0\0\0\0";

/* Append the n low bytes of v, big-endian, at b's end (room reserved). */
static void put_be(struct buf *b, uint64_t v, int n)
{
	char *p = b->data + b->len;
	int i;

	for (i = n - 1; i >= 0; i--) {
		p[i] = (char)(v & 0xff);
		v >>= 8;
	}
	b->len += (size_t)n;
}

/* A field of n bytes with value v (an int8, int2 or float8's bits). */
static void put_field(struct buf *b, uint64_t v, int n)
{
	put_be(b, (uint64_t)n, 4);
	put_be(b, v, n);
}

static void put_null(struct buf *b)
{
	put_be(b, 0xffffffffu, 4);
}

static void put_double(struct buf *b, double d)
{
	uint64_t bits;

	memcpy(&bits, &d, sizeof(bits));
	put_field(b, bits, 8);
}

/* A text field, NULL when s is NULL or "" (room reserved). */
static void put_text(struct buf *b, const char *s)
{
	size_t n = s ? strlen(s) : 0;

	if (!n) {
		put_null(b);
		return;
	}
	put_be(b, n, 4);
	memcpy(b->data + b->len, s, n);
	b->len += n;
}

static size_t text_len(const char *s)
{
	return s ? strlen(s) : 0;
}

/* The binary COPY tuple of a timings row with id, in the column order of
 * postgres_flush(). */
static int copy_timing(struct buf *b, int64_t id, const struct store_timing *t)
{
	const char *tags = t->tags_json && strcmp(t->tags_json, "[]") != 0 ? t->tags_json : NULL;
	size_t need =
	    2 + 22 * 12 + text_len(t->source_file) + text_len(t->source_text) + text_len(tags);

	if ((!b->len && buf_add(b, copy_header, sizeof(copy_header))) || buf_grow(b, need + 1))
		return ERR_NOMEM;
	put_be(b, 22, 2);
	put_field(b, (uint64_t)id, 8);
	put_field(b, (uint64_t)t->run_id, 8);
	put_field(b, (uint64_t)t->region_id, 8);
	put_field(b, (uint64_t)t->rank, 8);
	put_field(b, t->has_events ? 1 : 0, 2);
	put_field(b, t->calls, 8);
	put_field(b, (uint64_t)t->total, 8);
	put_field(b, (uint64_t)t->min, 8);
	put_field(b, (uint64_t)t->max, 8);
	put_field(b, (uint64_t)t->first, 8);
	put_field(b, (uint64_t)t->last, 8);
	put_field(b, (uint64_t)t->start_min, 8);
	put_field(b, (uint64_t)t->end_max, 8);
	put_double(b, t->mean);
	put_double(b, t->m2);
	if (t->exclusive < 0)
		put_null(b);
	else
		put_field(b, (uint64_t)t->exclusive, 8);
	put_field(b, t->gpu_count, 8);
	put_field(b, (uint64_t)t->gpu_total, 8);
	put_text(b, t->source_file);
	if (t->source_line < 0)
		put_null(b);
	else
		put_field(b, (uint64_t)t->source_line, 8);
	put_text(b, t->source_text);
	put_text(b, tags);
	b->data[b->len] = 0;
	return 0;
}

/* The binary COPY tuple of a durations row: the id and the blob, which
 * is not appended when stream is set (the tuple then ends with the
 * blob's length, postgres_copy_blob() sends the blob itself). */
static int copy_durations(struct buf *b, int64_t id, const struct store_timing *t, int stream)
{
	size_t blob = stream ? 0 : t->durations_len;

	if (t->durations_len > INT32_MAX)
		return err_set(ERR_USAGE, "call durations of one row too large for PostgreSQL");
	if ((!b->len && buf_add(b, copy_header, sizeof(copy_header))) ||
	    buf_grow(b, 2 + 12 + 4 + blob + 1))
		return ERR_NOMEM;
	put_be(b, 2, 2);
	put_field(b, (uint64_t)id, 8);
	put_be(b, t->durations_len, 4);
	memcpy(b->data + b->len, t->durations, blob);
	b->len += blob;
	b->data[b->len] = 0;
	return 0;
}

/* A durations row of a long blob, in a COPY of its own (after the
 * pending rows, its timings row among them), sent from t's bytes. */
static int copy_durations_stream(struct store_conn *c, int64_t id, const struct store_timing *t)
{
	struct buf head;
	int ret;

	buf_init(&head);
	ret = copy_durations(&head, id, t, 1);
	if (!ret)
		ret = postgres_copy_blob(c, &head, t->durations, t->durations_len);
	buf_release(&head);
	return ret;
}

/* The binary COPY tuple of a new region: its id and name. */
static int copy_region(struct buf *b, const struct store_region_row *g)
{
	if ((!b->len && buf_add(b, copy_header, sizeof(copy_header))) ||
	    buf_grow(b, 2 + 12 + 4 + text_len(g->name) + 1))
		return ERR_NOMEM;
	put_be(b, 2, 2);
	put_field(b, (uint64_t)g->id, 8);
	put_be(b, text_len(g->name), 4); /* "" is a name, not NULL */
	memcpy(b->data + b->len, g->name, text_len(g->name));
	b->len += text_len(g->name);
	b->data[b->len] = 0;
	return 0;
}

/* The pending COPY buffers' bytes: flushed past POSTGRES_COPY_FLUSH. */
static int copy_maybe_flush(struct store_conn *c)
{
	if (c->copy_regions.len + c->copy_timings.len + c->copy_durations.len + c->copy_paths.len +
		c->copy_path_ranks.len + c->copy_run_regions.len >=
	    POSTGRES_COPY_FLUSH)
		return postgres_flush(c);
	return 0;
}

/* A timings row and, when it has durations, its durations row. */
static int add_timing(struct store_conn *c, const struct store_timing *t)
{
	int ret;

	if (!c->next_timing) {
		ret = postgres_query_int(c, &c->next_timing,
					 "SELECT coalesce(max(id), 0) + 1 FROM timings");
		if (ret)
			return ret;
	}
	ret = copy_timing(&c->copy_timings, c->next_timing, t);
	if (!ret && t->durations && t->durations_len > POSTGRES_BLOB_STREAM)
		ret = copy_durations_stream(c, c->next_timing, t);
	else if (!ret && t->durations)
		ret = copy_durations(&c->copy_durations, c->next_timing, t, 0);
	if (ret)
		return ret;
	c->next_timing++;
	return copy_maybe_flush(c);
}

/* The binary COPY tuple of a row of cells (struct store_cells): a bigint,
 * a smallint flag, a float8 or NULL each. */
static int copy_cells(struct buf *b, const struct store_cells *c)
{
	size_t i;

	if (c->n > STORE_MAX_CELLS)
		return err_set(ERR_USAGE, "internal error: a row of %zu values", c->n);
	if ((!b->len && buf_add(b, copy_header, sizeof(copy_header))) ||
	    buf_grow(b, 2 + c->n * 12 + 1))
		return ERR_NOMEM;
	put_be(b, c->n, 2);
	for (i = 0; i < c->n; i++)
		switch (c->v[i].type) {
		case STORE_CELL_NULL:
			put_null(b);
			break;
		case STORE_CELL_INT:
			put_field(b, (uint64_t)c->v[i].i, 8);
			break;
		case STORE_CELL_FLAG:
			put_field(b, (uint64_t)c->v[i].i, 2);
			break;
		case STORE_CELL_REAL:
			put_double(b, c->v[i].d);
			break;
		}
	b->data[b->len] = 0;
	return 0;
}

/* The binary COPY tuple of a path_ranks row. */
static int copy_path_rank(struct buf *b, const struct store_path_rank *r)
{
	if (r->durations_len > INT32_MAX)
		return err_set(ERR_USAGE, "call durations of one path too large for PostgreSQL");
	if ((!b->len && buf_add(b, copy_header, sizeof(copy_header))) ||
	    buf_grow(b, 2 + 10 * 12 + r->durations_len + 1))
		return ERR_NOMEM;
	put_be(b, 10, 2);
	put_field(b, (uint64_t)r->run_id, 8);
	put_field(b, (uint64_t)r->path_id, 8);
	put_field(b, (uint64_t)r->rank, 8);
	put_field(b, r->calls, 8);
	put_field(b, r->nested, 8);
	put_field(b, (uint64_t)r->total, 8);
	put_field(b, (uint64_t)r->self, 8);
	put_field(b, (uint64_t)r->min, 8);
	put_field(b, (uint64_t)r->max, 8);
	if (!r->durations) {
		put_null(b);
	} else {
		put_be(b, r->durations_len, 4);
		memcpy(b->data + b->len, r->durations, r->durations_len);
		b->len += r->durations_len;
	}
	b->data[b->len] = 0;
	return 0;
}

int postgres_write_rows(struct store_conn *c, enum store_table table, const void *rows, size_t n)
{
	size_t i;
	int ret = 0;

	switch (table) {
	case STORE_TABLE_REGIONS:
		for (i = 0; !ret && i < n; i++)
			ret = copy_region(&c->copy_regions,
					  (const struct store_region_row *)rows + i);
		return ret;
	case STORE_TABLE_TIMINGS:
		for (i = 0; !ret && i < n; i++)
			ret = add_timing(c, (const struct store_timing *)rows + i);
		return ret;
	case STORE_TABLE_PATHS:
		for (i = 0; !ret && i < n; i++)
			ret = copy_cells(&c->copy_paths, (const struct store_cells *)rows + i);
		return ret ? ret : copy_maybe_flush(c);
	case STORE_TABLE_PATH_RANKS:
		for (i = 0; !ret && i < n; i++)
			ret = copy_path_rank(&c->copy_path_ranks,
					     (const struct store_path_rank *)rows + i);
		return ret ? ret : copy_maybe_flush(c);
	case STORE_TABLE_RUN_REGIONS:
		for (i = 0; !ret && i < n; i++)
			ret =
			    copy_cells(&c->copy_run_regions, (const struct store_cells *)rows + i);
		return ret ? ret : copy_maybe_flush(c);
	}
	return err_set(ERR_USAGE, "internal error: no such table to write");
}
