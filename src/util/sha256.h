/*
 * sha256.h - SHA-256 (FIPS 180-4), used to recognise a profile already in
 * the store by its content.  No external crypto library is needed for one
 * hash per ingested file.
 *
 * Ownership: the state and the 65-byte hex output are the caller's;
 * nothing is allocated (the file functions close what they open).
 */
#ifndef SCOPEDB_SHA256_H
#define SCOPEDB_SHA256_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

struct sha256 {
	uint32_t h[8];
	uint64_t len;
	unsigned char block[64];
	size_t fill;
};

void sha256_init(struct sha256 *s);
void sha256_update(struct sha256 *s, const void *data, size_t len);
/* Finish and write 64 lowercase hex digits + NUL to out. */
void sha256_hex(char out[65], struct sha256 *s);
/* Finish and write the 32 bytes of the digest to out. */
void sha256_digest(unsigned char out[32], struct sha256 *s);

/* Hash the whole file open as fd (read with pread from offset 0, so the
 * descriptor's offset is unused) without touching the error message (safe
 * on any thread): 0, or the errno value of the failed read. */
int sha256_fd(char out[65], int fd);
/* The same, given up (ECANCELED) once *stop is set: a hash started on a
 * second thread before the file is known to be worth hashing. */
int sha256_fd_until(char out[65], int fd, atomic_int *stop);

/* Hash a whole file without touching the error message (safe on any
 * thread): 0, or the errno value of the failed open/read. */
int sha256_path(char out[65], const char *path);

/* Hash a whole file; ERR_IO (message naming path) when it cannot be read. */
int sha256_file(char out[65], const char *path);

#endif
