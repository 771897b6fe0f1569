/*
 * profile.c - one profile file through the reader of its format (see
 * profile.h).
 *
 * A format is a constant table of functions (struct profile_format, in the
 * manner of the store's backends): whether the first bytes of a file are
 * its own, open, info, read and free.  The formats are listed once, in
 * formats.h; profile_open() reads the file's first bytes with pread() (the
 * descriptor's offset is left alone: the hashing thread of ingest shares
 * it) and opens the first format that claims them.  Each reader stays the
 * only code calling its library: libhdf5 in src/h5/, zlib and the JSON
 * grammar in src/jsonprof/.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "scopedb/err.h"
#include "scopedb/profile.h"
#include "scopedb/util.h"
#include "jsonprof/jsonprof.h"

#define PROFILE_FORMAT_VERSION 1
/* Bytes of a file its formats are shown to decide. */
#define PROFILE_HEAD 64

struct profile_format {
	int version; /* PROFILE_FORMAT_VERSION */
	const char *name;
	/* 1 when a file starting with head (n bytes, fewer for a short
	 * file) is of this format */
	int (*claims)(const unsigned char *head, size_t n);
	int (*open)(void **out, const char *path, int fd, const struct stat *st);
	const struct h5prof_info *(*info)(const void *h);
	int (*read)(void *h, h5prof_row_fn fn, void *ctx);
	void (*free)(void *h);
	int info_at_open; /* info complete before read */
	/* optional: hand out rows of n calls or more in pieces (h5prof.h) */
	void (*set_piece_min)(void *h, uint64_t n);
};

struct profile {
	const struct profile_format *fmt;
	void *h;
};

/*
 * A format's table, PFX_profile_format, named "PFX": CLAIMS, PFX_open() and
 * the reader's info, read and free on the untyped handle of struct profile:
 * PFX_info(), PFX_read() and PFX_free() calling READER_info(),
 * READER_read() and READER_free().  AT_OPEN: its info_at_open; PIECES:
 * its set_piece_min (NULL: rows are always whole).
 */
#define PROFILE_FORMAT_DEFINE(pfx, reader, claims_fn, at_open, pieces)                             \
	static const struct h5prof_info *pfx##_info(const void *h)                                 \
	{                                                                                          \
		return reader##_info(h);                                                           \
	}                                                                                          \
	static int pfx##_read(void *h, h5prof_row_fn fn, void *ctx)                                \
	{                                                                                          \
		return reader##_read(h, fn, ctx);                                                  \
	}                                                                                          \
	static void pfx##_free(void *h)                                                            \
	{                                                                                          \
		reader##_free(h);                                                                  \
	}                                                                                          \
	static const struct profile_format pfx##_profile_format = {                                \
	    .version = PROFILE_FORMAT_VERSION,                                                     \
	    .name = #pfx,                                                                          \
	    .claims = claims_fn,                                                                   \
	    .open = pfx##_open,                                                                    \
	    .info = pfx##_info,                                                                    \
	    .read = pfx##_read,                                                                    \
	    .free = pfx##_free,                                                                    \
	    .info_at_open = at_open,                                                               \
	    .set_piece_min = pieces,                                                               \
	};

/* ---- HDF5 (src/h5/) ---- */

static int hdf5_claims(const unsigned char *head, size_t n)
{
	(void)head;
	(void)n;
	return 1;
}

static int hdf5_open(void **out, const char *path, int fd, const struct stat *st)
{
	struct h5prof *p = NULL;
	int rc;

	(void)fd;
	rc = h5prof_open_stat(&p, path, st);
	*out = p;
	return rc;
}

static void hdf5_set_piece_min(void *h, uint64_t n)
{
	h5prof_set_piece_min(h, n);
}

PROFILE_FORMAT_DEFINE(hdf5, h5prof, hdf5_claims, 1, hdf5_set_piece_min)

/* ---- JSON (src/jsonprof/) ---- */

static int json_open(void **out, const char *path, int fd, const struct stat *st)
{
	struct jsonprof *j = NULL;
	int rc = jsonprof_open(&j, path, fd, st);

	*out = j;
	return rc;
}

static void json_set_piece_min(void *h, uint64_t n)
{
	jsonprof_set_piece_min(h, n);
}

PROFILE_FORMAT_DEFINE(json, jsonprof, jsonprof_claims, 0, json_set_piece_min)

static const struct profile_format *const profile_formats[] = {
#define PROFILE_FORMAT(name) &name##_profile_format,
#include "profile/formats.h"
#undef PROFILE_FORMAT
};

int profile_name_is_json(const char *path)
{
	size_t n = strlen(path);

	return (n >= 5 && !strcasecmp(path + n - 5, ".json")) ||
	       (n >= 8 && !strcasecmp(path + n - 8, ".json.gz"));
}

int profile_open_file(const char *path, int *fd, struct stat *st)
{
	int rc = h5prof_open_file(path, fd, st);

	/* an empty file: say which format it was taken for */
	if (rc == ERR_FORMAT && profile_name_is_json(path))
		rc = err_set(ERR_FORMAT, "cannot read '%s': not a JSON profile (the file is empty)",
			     util_quote_msg(path));
	return rc;
}

int profile_open(struct profile **out, const char *path, int fd, const struct stat *st)
{
	unsigned char head[PROFILE_HEAD];
	struct profile *p;
	ssize_t n;
	size_t i;
	int rc;

	*out = NULL;
	do
		n = pread(fd, head, sizeof(head), 0);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return err_set(ERR_IO, "cannot read '%s': %s", util_quote_msg(path),
			       util_strerror_lc(errno));
	for (i = 0; i < sizeof(profile_formats) / sizeof(profile_formats[0]); i++)
		if (profile_formats[i]->claims(head, (size_t)n))
			break;
	/* (an HDF5 file starts with its signature at 0 when a profiler wrote
	 * it: rename it, the reader is chosen by name) */
	if (profile_formats[i] == &hdf5_profile_format && profile_name_is_json(path))
		return err_set(ERR_FORMAT,
			       "cannot read '%s': not a JSON profile (it starts with neither '{' "
			       "nor gzip data%s)",
			       util_quote_msg(path),
			       n >= 8 && !memcmp(head, "\x89HDF\r\n\x1a\n", 8)
				   ? ": it is an HDF5 file; name it *.h5"
				   : "");
	p = calloc(1, sizeof(*p));
	if (!p)
		return err_nomem();
	p->fmt = profile_formats[i];
	rc = p->fmt->open(&p->h, path, fd, st);
	if (rc) {
		free(p);
		return rc;
	}
	*out = p;
	return 0;
}

const char *profile_format(const struct profile *p)
{
	return p->fmt->name;
}

int profile_info_final(const struct profile *p)
{
	return p->fmt->info_at_open;
}

const struct h5prof_info *profile_info(const struct profile *p)
{
	return p->fmt->info(p->h);
}

void profile_set_piece_min(struct profile *p, uint64_t n)
{
	if (p->fmt->set_piece_min)
		p->fmt->set_piece_min(p->h, n);
}

int profile_read(struct profile *p, h5prof_row_fn fn, void *ctx)
{
	return p->fmt->read(p->h, fn, ctx);
}

void profile_free(struct profile *p)
{
	if (!p)
		return;
	if (p->h)
		p->fmt->free(p->h);
	free(p);
}
