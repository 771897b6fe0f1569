/*
 * format.h - the number formats of every output: the human ones (terminal,
 * markdown) as upstream scope-profiler prints them, and the machine one
 * (CSV, JSON) that reads back as the same double.
 *
 * Human: values with %.6g (counts as integers), deltas signed (+0), delta %
 * with %+.4g and a '%' sign, "-" for None.  Machine: the shortest %.Ng
 * (N = 15..17) that reads back as the value, with ".0" added to integral
 * values ("1.0", "0.1", "1e-05"); integers for counts.
 *
 * Every function writes a NUL-terminated string into s (at least 64 bytes).
 */
#ifndef SCOPEDB_RENDER_FORMAT_H
#define SCOPEDB_RENDER_FORMAT_H

#include <stddef.h>

/* A value for people: "-" when none, else %.6g or an integer. */
void format_value(char *s, size_t len, int none, double v, int is_count);

/* A signed change for people: %+.6g or %+lld. */
void format_delta(char *s, size_t len, double delta, int is_count);

/* A percent change for people: "-" when none, else %+.4g%%. */
void format_pct(char *s, size_t len, int none, double pct);

/* The machine text of v (see above); "null" for a non-finite v. */
void format_number(char *s, size_t len, double v, int is_count);

#endif
