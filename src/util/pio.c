/*
 * pio.c - pread()/pwrite() of whole buffers (pio.h): each call moves what
 * the kernel takes, so one loop, either way, resumes after a short
 * transfer or a signal.  An offset past what off_t holds is an error
 * (EOVERFLOW), not a wrap.
 */
#include <errno.h>
#include <stdint.h>
#include <unistd.h>

#include "util/pio.h"

/* Move n bytes between b and offset off of fd (wr: write them): 0, 1
 * when a read meets the end of the file, -1 (errno; ENOSPC when a write
 * moves nothing). */
static int pio_all(int fd, unsigned char *b, size_t n, uint64_t off, int wr)
{
	if (off > (uint64_t)INT64_MAX - n) {
		errno = EOVERFLOW;
		return -1;
	}
	while (n) {
		ssize_t k = wr ? pwrite(fd, b, n, (off_t)off) : pread(fd, b, n, (off_t)off);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return -1;
		if (k == 0) {
			if (!wr)
				return 1;
			errno = ENOSPC;
			return -1;
		}
		b += k;
		n -= (size_t)k;
		off += (uint64_t)k;
	}
	return 0;
}

int util_pread_all(int fd, void *buf, size_t n, uint64_t off)
{
	return pio_all(fd, buf, n, off, 0);
}

int util_pwrite_all(int fd, const void *buf, size_t n, uint64_t off)
{
	/* (pio_all() only reads from b when it writes) */
	return pio_all(fd, (unsigned char *)(uintptr_t)buf, n, off, 1);
}
