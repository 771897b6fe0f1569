/*
 * pio.h - positional reads and writes of whole buffers: pread()/pwrite()
 * repeated until every byte is moved, through EINTR and short transfers
 * (the spool's temporary files, schema 1's direct reads).
 *
 * Ownership: nothing is allocated; the caller owns fd and the buffer.
 */
#ifndef SCOPEDB_UTIL_PIO_H
#define SCOPEDB_UTIL_PIO_H

#include <stddef.h>
#include <stdint.h>

/* Read exactly n bytes at offset off of fd into buf: 0; 1 when the file
 * ends first; -1 on an error (errno says which). */
int util_pread_all(int fd, void *buf, size_t n, uint64_t off);

/* Write all n bytes of buf at offset off of fd: 0, or -1 (errno says
 * which; ENOSPC when nothing more could be written). */
int util_pwrite_all(int fd, const void *buf, size_t n, uint64_t off);

#endif
