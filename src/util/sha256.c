/*
 * sha256.c - a compact SHA-256 implementation (FIPS 180-4) and a helper to
 * hash a file in 1 MiB reads, used as the identity of an ingested profile.
 *
 * Every ingest hashes the whole file, so on x86-64 CPUs with the SHA
 * extensions (checked once at run time with cpuid) the blocks go through
 * the SHA-NI instructions, about 5x faster than the portable C rounds that
 * every other CPU uses.  Both paths give the same digest (tests/test_util.c
 * checks the FIPS vectors).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>
#define SHA256_HAVE_NI 1
#else
#define SHA256_HAVE_NI 0
#endif

#include "scopedb/err.h"
#include "util/sha256.h"

static const uint32_t sha256_k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

static uint32_t ror(uint32_t x, unsigned n)
{
	return (x >> n) | (x << (32 - n));
}

static void sha256_block(struct sha256 *s, const unsigned char *p)
{
	uint32_t w[64], a, b, c, d, e, f, g, h;
	int i;

	for (i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | (uint32_t)p[4 * i + 3];
	for (i = 16; i < 64; i++) {
		uint32_t s0 = ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ (w[i - 15] >> 3);
		uint32_t s1 = ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ (w[i - 2] >> 10);

		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	a = s->h[0];
	b = s->h[1];
	c = s->h[2];
	d = s->h[3];
	e = s->h[4];
	f = s->h[5];
	g = s->h[6];
	h = s->h[7];
	for (i = 0; i < 64; i++) {
		uint32_t t1 = h + (ror(e, 6) ^ ror(e, 11) ^ ror(e, 25)) + ((e & f) ^ (~e & g)) +
			      sha256_k[i] + w[i];
		uint32_t t2 = (ror(a, 2) ^ ror(a, 13) ^ ror(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));

		h = g;
		g = f;
		f = e;
		e = d + t1;
		d = c;
		c = b;
		b = a;
		a = t1 + t2;
	}
	s->h[0] += a;
	s->h[1] += b;
	s->h[2] += c;
	s->h[3] += d;
	s->h[4] += e;
	s->h[5] += f;
	s->h[6] += g;
	s->h[7] += h;
}

#if SHA256_HAVE_NI
/*
 * n blocks with the SHA-NI instructions.  The state is kept as the ABEF/CDGH
 * register pairs that sha256rnds2 works on; each iteration of the inner loop
 * does four rounds and extends the message schedule by four words
 * (sha256msg1/msg2).
 */
__attribute__((target("sha,sse4.1,ssse3"))) static void
sha256_blocks_ni(uint32_t h[8], const unsigned char *p, size_t n)
{
	const __m128i mask = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
	__m128i st0, st1, tmp, msg, abef, cdgh, w[4];
	int g;

	tmp = _mm_loadu_si128((const __m128i *)(const void *)&h[0]);
	st1 = _mm_loadu_si128((const __m128i *)(const void *)&h[4]);
	tmp = _mm_shuffle_epi32(tmp, 0xB1);    /* CDAB */
	st1 = _mm_shuffle_epi32(st1, 0x1B);    /* EFGH */
	st0 = _mm_alignr_epi8(tmp, st1, 8);    /* ABEF */
	st1 = _mm_blend_epi16(st1, tmp, 0xF0); /* CDGH */
	for (; n; n--, p += 64) {
		abef = st0;
		cdgh = st1;
		for (g = 0; g < 16; g++) {
			if (g < 4) {
				w[g] = _mm_shuffle_epi8(
				    _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * g)),
				    mask);
			} else {
				tmp = _mm_sha256msg1_epu32(w[g & 3], w[(g + 1) & 3]);
				tmp = _mm_add_epi32(
				    tmp, _mm_alignr_epi8(w[(g + 3) & 3], w[(g + 2) & 3], 4));
				w[g & 3] = _mm_sha256msg2_epu32(tmp, w[(g + 3) & 3]);
			}
			msg = _mm_add_epi32(
			    w[g & 3],
			    _mm_loadu_si128((const __m128i *)(const void *)&sha256_k[4 * g]));
			st1 = _mm_sha256rnds2_epu32(st1, st0, msg);
			msg = _mm_shuffle_epi32(msg, 0x0E);
			st0 = _mm_sha256rnds2_epu32(st0, st1, msg);
		}
		st0 = _mm_add_epi32(st0, abef);
		st1 = _mm_add_epi32(st1, cdgh);
	}
	tmp = _mm_shuffle_epi32(st0, 0x1B);    /* FEBA */
	st1 = _mm_shuffle_epi32(st1, 0xB1);    /* DCHG */
	st0 = _mm_blend_epi16(tmp, st1, 0xF0); /* DCBA */
	st1 = _mm_alignr_epi8(st1, tmp, 8);    /* HGFE */
	_mm_storeu_si128((__m128i *)(void *)&h[0], st0);
	_mm_storeu_si128((__m128i *)(void *)&h[4], st1);
}

/* 1 when the CPU has the SHA extensions and SSSE3/SSE4.1.  Cached, since
 * cpuid traps to the hypervisor in a VM; atomic because ingest hashes on a
 * second thread. */
static int sha256_ni_ok(void)
{
	static _Atomic int ok = -1;
	unsigned a, b, c, d;
	int v = ok;

	if (v < 0) {
		v = __get_cpuid(1, &a, &b, &c, &d) && (c & bit_SSSE3) && (c & bit_SSE4_1) &&
		    __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & bit_SHA);
		ok = v;
	}
	return v;
}
#endif

/* n consecutive 64-byte blocks at p. */
static void sha256_blocks(struct sha256 *s, const unsigned char *p, size_t n)
{
#if SHA256_HAVE_NI
	if (sha256_ni_ok()) {
		sha256_blocks_ni(s->h, p, n);
		return;
	}
#endif
	for (; n; n--, p += 64)
		sha256_block(s, p);
}

void sha256_init(struct sha256 *s)
{
	static const uint32_t h0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
				       0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

	memcpy(s->h, h0, sizeof(h0));
	s->len = 0;
	s->fill = 0;
}

void sha256_update(struct sha256 *s, const void *data, size_t len)
{
	const unsigned char *p = data;

	s->len += len;
	if (s->fill) {
		size_t take = 64 - s->fill < len ? 64 - s->fill : len;

		memcpy(s->block + s->fill, p, take);
		s->fill += take;
		p += take;
		len -= take;
		if (s->fill < 64)
			return;
		sha256_blocks(s, s->block, 1);
		s->fill = 0;
	}
	sha256_blocks(s, p, len / 64);
	p += len / 64 * 64;
	len %= 64;
	memcpy(s->block, p, len);
	s->fill = len;
}

void sha256_digest(unsigned char out[32], struct sha256 *s)
{
	uint64_t bits = s->len * 8;
	unsigned char pad[72];
	size_t npad = (s->fill < 56 ? 56 : 120) - s->fill;
	int i;

	memset(pad, 0, sizeof(pad));
	pad[0] = 0x80;
	for (i = 0; i < 8; i++)
		pad[npad + (size_t)i] = (unsigned char)(bits >> (56 - 8 * i));
	sha256_update(s, pad, npad + 8);
	for (i = 0; i < 32; i++)
		out[i] = (unsigned char)(s->h[i / 4] >> (24 - 8 * (i % 4)));
}

void sha256_hex(char out[65], struct sha256 *s)
{
	static const char hex[] = "0123456789abcdef";
	unsigned char d[32];
	int i;

	sha256_digest(d, s);
	for (i = 0; i < 32; i++) {
		out[2 * i] = hex[d[i] >> 4];
		out[2 * i + 1] = hex[d[i] & 15];
	}
	out[64] = '\0';
}

/* The read size of sha256_fd(): 64 KiB, a buffer of 16 pages touched
 * once, where 1 MiB made every small file's reader fault in a page for each
 * 4 KiB it hashed (issue 26: page faults are most of a small file's cost);
 * as fast on large files. */
#define SHA256_FD_CHUNK ((size_t)64 << 10)

int sha256_fd(char out[65], int fd)
{
	return sha256_fd_until(out, fd, NULL);
}

int sha256_fd_until(char out[65], int fd, atomic_int *stop)
{
	unsigned char *chunk = malloc(SHA256_FD_CHUNK);
	struct sha256 s;
	ssize_t n;
	off_t off = 0;
	int err = 0;

	if (!chunk)
		return ENOMEM;
	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	sha256_init(&s);
	while ((n = pread(fd, chunk, SHA256_FD_CHUNK, off)) != 0) {
		if (stop && atomic_load(stop)) {
			err = ECANCELED;
			break;
		}
		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = errno;
			break;
		}
		sha256_update(&s, chunk, (size_t)n);
		off += n;
	}
	if (!err)
		sha256_hex(out, &s);
	free(chunk);
	return err;
}

int sha256_path(char out[65], const char *path)
{
	int fd, err;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return errno;
	err = sha256_fd(out, fd);
	close(fd);
	return err;
}

int sha256_file(char out[65], const char *path)
{
	int err = sha256_path(out, path);

	if (err)
		return err_set(ERR_IO, "cannot read '%s': %s", path, strerror(err));
	return 0;
}
