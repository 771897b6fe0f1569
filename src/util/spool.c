/*
 * spool.c - an unlinked temporary file of values written and read at
 * offsets (spool.h): made with mkostemp() in $TMPDIR (else /tmp) and
 * unlinked at once; reads and writes retried when a signal interrupts
 * them.  A file size limit (ulimit -f) fails a write (EFBIG) instead of
 * killing the reader with SIGXFSZ, which would read as a crash of the
 * profile's library.
 */
#define _GNU_SOURCE /* mkostemp() */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scopedb/err.h"
#include "scopedb/util.h"
#include "util/pio.h"
#include "util/spool.h"

int spool_open(struct spool *s, const char *where, const char *need, const char *what)
{
	const char *dir = getenv("TMPDIR");
	struct buf path = BUF_INIT;
	int fd, e;

	memset(s, 0, sizeof(*s));
	s->where = where;
	s->need = need;
	if (!dir || !*dir)
		dir = "/tmp";
	(void)signal(SIGXFSZ, SIG_IGN);
	util_quote_msg_buf(s->dir, sizeof(s->dir), 190, dir);
	if (buf_printf(&path, "%s/scopedb-row-XXXXXX", dir))
		return ERR_NOMEM;
	fd = mkostemp(path.data, O_CLOEXEC);
	e = errno;
	if (fd >= 0)
		(void)unlink(path.data);
	buf_release(&path);
	if (fd < 0)
		return err_set(ERR_IO,
			       "%s: cannot make a temporary file in '%s' for %s: %s "
			       "(set TMPDIR to a directory with room for %s)",
			       where, s->dir, what, util_strerror_lc(e), need);
	s->fd = fd;
	s->open = 1;
	return 0;
}

int spool_error(const struct spool *s, const char *what, int e)
{
	char fix[128];

	fix[0] = '\0';
	if (e == ENOSPC || e == EDQUOT)
		snprintf(fix, sizeof(fix), " (set TMPDIR to a directory with room for %s)",
			 s->need);
	else if (e == EFBIG)
		snprintf(fix, sizeof(fix),
			 " (the file size limit, ulimit -f, is below the %s it needs)", s->need);
	return err_set(ERR_IO, "%s: cannot %s its temporary file in '%s': %s%s", s->where, what,
		       s->dir, e ? util_strerror_lc(e) : "it is shorter than written", fix);
}

int spool_write(struct spool *s, const void *p, size_t n, uint64_t off)
{
	if (util_pwrite_all(s->fd, p, n, off))
		return spool_error(s, "write", errno);
	return 0;
}

int spool_read(struct spool *s, const char *what, void *p, size_t n, uint64_t off)
{
	int rc = util_pread_all(s->fd, p, n, off);

	if (rc)
		return spool_error(s, what, rc < 0 ? errno : 0);
	return 0;
}

void spool_close(struct spool *s)
{
	if (s->open)
		close(s->fd);
	memset(s, 0, sizeof(*s));
}
