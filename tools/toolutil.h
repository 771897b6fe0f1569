/*
 * toolutil.h - what the profile generators (tools/mkprofile.c and
 * bench/gen.c) share: fatal errors prefixed with the program's name,
 * strictly parsed unsigned option values, and the seeded random numbers
 * (splitmix64 to seed, xorshift64* to draw) that make their output a pure
 * function of their arguments.
 *
 * Each program defines toolutil_name.  Nothing here allocates.
 */
#ifndef SCOPEDB_TOOLUTIL_H
#define SCOPEDB_TOOLUTIL_H

#include <stdint.h>

/* The program's name, defined by the program: "NAME: " starts every
 * toolutil_die() message. */
extern const char *const toolutil_name;

/* Print "NAME: " and the formatted message on stderr and exit with 2. */
#if defined(__GNUC__)
__attribute__((format(printf, 1, 2), noreturn))
#endif
void toolutil_die(const char *fmt, ...);

/* The value v of option opt: a decimal integer in [min, max], else
 * toolutil_die() with a message naming both. */
uint64_t toolutil_u64(const char *opt, const char *v, uint64_t min, uint64_t max);

/* splitmix64 of x: turns any seed (0 too) into a well-mixed state. */
uint64_t toolutil_splitmix(uint64_t x);

/* xorshift64*: the next number from state *s (never 0 once seeded). */
uint64_t toolutil_next(uint64_t *s);

#endif
