/*
 * format.h - the number formats of every output: the human ones (terminal,
 * markdown) and the machine one (CSV, JSON) that reads back as the same
 * double.
 *
 * Human: durations with a unit chosen per column as hyperfine prints them
 * ("18.7 ms", "412 µs", "1.25 s": three significant digits, "us" where the
 * terminal is not UTF-8), other values with %.6g, counts as integers with
 * thousands separators ("1,234,567"), deltas signed (+0), percent changes
 * signed with at most three significant digits ("+35%", "-0.791%"), "-"
 * for None.  Machine: the shortest %.Ng (N = 15..17) that reads back as
 * the value, with ".0" added to integral values ("1.0", "0.1", "1e-05");
 * integers for counts.
 *
 * Every function writes a NUL-terminated string into s (at least 64 bytes).
 *
 * Ownership: s is the caller's buffer; format_unit_symbol() returns a
 * static string; nothing is allocated.
 */
#ifndef SCOPEDB_RENDER_FORMAT_H
#define SCOPEDB_RENDER_FORMAT_H

#include <stddef.h>

/* The unit durations are shown in (--units); AUTO: format_unit_pick(). */
enum format_unit {
	FORMAT_UNIT_AUTO,
	FORMAT_UNIT_S,
	FORMAT_UNIT_MS,
	FORMAT_UNIT_US,
	FORMAT_UNIT_NS
};

/* The --units words, in enum order: "auto s ms us ns". */
#define FORMAT_UNIT_WORDS "auto s ms us ns"

/* *out = the unit named name (one of FORMAT_UNIT_WORDS, any case; "µs"
 * too); -1 for any other name. */
int format_unit_parse(enum format_unit *out, const char *name);

/* The unit of a column whose largest magnitude is maxabs seconds: s from
 * 1 s up, ms from 1 ms, µs from 1 µs, else ns (0 or none: s). */
enum format_unit format_unit_pick(double maxabs);

/* The unit's symbol: "s", "ms", "µs" ("us" without utf8), "ns". */
const char *format_unit_symbol(enum format_unit u, int utf8);

/* secs in unit u (not AUTO) with three significant digits (all the
 * integral ones of a number from 1000 up) and the unit: "18.7 ms",
 * "0.180 ms", "+12.2 ms" (sign: always signed), "0 s", "150604 us". */
void format_duration(char *s, size_t len, double secs, enum format_unit u, int sign, int utf8);

/* v with sig significant digits in fixed notation, trailing zeros kept
 * ("0.180", "287", "1230"); sign: "+" before positive values and zero. */
void format_sig(char *s, size_t len, double v, int sig, int sign);

/* An integer with thousands separators: "1,234,567", "-3", "+0" (sign). */
void format_group(char *s, size_t len, long long v, int sign);

/* A value for people: "-" when none, else %.6g, or a grouped integer. */
void format_value(char *s, size_t len, int none, double v, int is_count);

/* A signed change for people: %+.6g, or a signed grouped integer. */
void format_delta(char *s, size_t len, double delta, int is_count);

/* A percent change for people: "-" when none, else signed with at most
 * three significant digits (trailing zeros dropped): "+35%", "-0.791%",
 * "+12300%". */
void format_pct(char *s, size_t len, int none, double pct);
/* format_pct() with as many significant digits (3 to 10) as it takes for
 * the text to fall on pct's side of edge: a change of +5.00002% against a
 * budget of +5% is "+5.00002%", not "+5%" (which read as within it). */
void format_pct_edge(char *s, size_t len, int none, double pct, double edge);

/* The machine text of v (see above); "null" for a non-finite v. */
void format_number(char *s, size_t len, double v, int is_count);

#endif
