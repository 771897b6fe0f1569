/*
 * toolutil.c - errors, option values and random numbers of the profile
 * generators (see toolutil.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "toolutil.h"

void toolutil_die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", toolutil_name);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(2);
}

uint64_t toolutil_u64(const char *opt, const char *v, uint64_t min, uint64_t max)
{
	char *end;
	unsigned long long n;

	errno = 0;
	if (!v || !*v || *v == '-')
		toolutil_die("%s needs a non-negative integer", opt);
	n = strtoull(v, &end, 10);
	if (*end || errno || n < min || n > max)
		toolutil_die("invalid value '%s' for %s (expected %llu-%llu)", v, opt,
			     (unsigned long long)min, (unsigned long long)max);
	return (uint64_t)n;
}

double toolutil_f64(const char *opt, const char *v, double max, const char *hint)
{
	char *end;
	double f;

	errno = 0;
	f = strtod(v, &end);
	if (*end || !*v || errno || !(f > 0) || f > max)
		toolutil_die("invalid value '%s' for %s%s", v, opt, hint);
	return f;
}

void toolutil_output(const char **out, const char *a, const char *what)
{
	if (*out)
		toolutil_die("more than one %s given", what);
	*out = a;
}

int toolutil_flag(const char *a, const struct toolutil_flag *flags, size_t n, void (*usage)(FILE *))
{
	size_t i;

	if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
		usage(stdout);
		exit(0);
	}
	for (i = 0; i < n; i++)
		if (strcmp(a, flags[i].name) == 0) {
			*flags[i].set = 1;
			return 1;
		}
	return 0;
}

uint64_t toolutil_splitmix(uint64_t x)
{
	x += UINT64_C(0x9e3779b97f4a7c15);
	x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
	return x ^ (x >> 31);
}

uint64_t toolutil_next(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * UINT64_C(2685821657736338717);
}
