/*
 * spool.h - a temporary file for values too many to hold in memory: a row
 * of more calls than the call tree holds (ingest_big.c) and the long
 * columns of a JSON profile's row (jsonrows.c).  The file is made in
 * $TMPDIR (else /tmp) and unlinked at once, so nothing is left behind even
 * by a crash; values are written and read at byte offsets the caller
 * keeps.  Every error is one line: the caller's prefix naming the file
 * and row, what failed, why, and the fix when the room ran out (TMPDIR,
 * ulimit -f), with the bytes a call the caller needs.
 *
 * Ownership: struct spool owns its descriptor (spool_close() accepts a
 * zeroed, never opened one); where and need are the caller's and must
 * outlive it.
 */
#ifndef SCOPEDB_UTIL_SPOOL_H
#define SCOPEDB_UTIL_SPOOL_H

#include <stddef.h>
#include <stdint.h>

struct spool {
	int fd;
	int open;	   /* fd is the file */
	const char *where; /* messages' prefix, e.g. "cannot ingest 'x.h5': rank 0, region 'a'" */
	const char *need;  /* the room it needs, e.g. "9 bytes a call" */
	char dir[256];	   /* its directory, quoted for messages */
};

/* Make the file for what (named in the message when it cannot be made):
 * ERR_IO "WHERE: cannot make a temporary file in 'DIR' for WHAT: WHY (set
 * TMPDIR to a directory with room for NEED)". */
int spool_open(struct spool *s, const char *where, const char *need, const char *what);

/* Write n bytes at off; read n bytes at off (a short file is an error:
 * "it is shorter than written").  what words the read in messages ("read",
 * "read back"). */
int spool_write(struct spool *s, const void *p, size_t n, uint64_t off);
int spool_read(struct spool *s, const char *what, void *p, size_t n, uint64_t off);

/* ERR_IO "WHERE: cannot WHAT its temporary file in 'DIR': WHY" (e: errno,
 * 0 for a file shorter than written), with the fix for ENOSPC, EDQUOT and
 * EFBIG. */
int spool_error(const struct spool *s, const char *what, int e);

/* Close the file (its bytes go with it) and zero s. */
void spool_close(struct spool *s);

#endif
