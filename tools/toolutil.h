/*
 * toolutil.h - what the profile generators (tools/mkprofile.c and
 * bench/gen.c) share: fatal errors prefixed with the program's name,
 * strictly parsed option values (unsigned integers, positive doubles), the
 * options without a value (--help and flags), the one output argument, and
 * the seeded random numbers
 * (splitmix64 to seed, xorshift64* to draw) that make their output a pure
 * function of their arguments.
 *
 * Each program defines toolutil_name.  Nothing here allocates.
 */
#ifndef SCOPEDB_TOOLUTIL_H
#define SCOPEDB_TOOLUTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

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

/* The value v of option opt: a number above 0 and at most max, else
 * toolutil_die() with a message naming both (and hint after them). */
double toolutil_f64(const char *opt, const char *v, double max, const char *hint);

/* The argument a that is no option: the output *out, the only one (else
 * toolutil_die(), calling it what). */
void toolutil_output(const char **out, const char *a, const char *what);

/* An option without a value: its name and the flag it sets to 1. */
struct toolutil_flag {
	const char *name;
	int *set;
};

/* Option a as one of the options without a value: --help or -h
 * (usage(stdout), then exit 0) or one of flags[0..n) (set it).  1 when a
 * is one of them, else 0. */
int toolutil_flag(const char *a, const struct toolutil_flag *flags, size_t n,
		  void (*usage)(FILE *));

/* splitmix64 of x: turns any seed (0 too) into a well-mixed state. */
uint64_t toolutil_splitmix(uint64_t x);

/* xorshift64*: the next number from state *s (never 0 once seeded). */
uint64_t toolutil_next(uint64_t *s);

#endif
