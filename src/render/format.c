/*
 * format.c - number formats shared by every renderer (see format.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "render/format.h"

int format_unit_parse(enum format_unit *out, const char *name)
{
	static const char *const names[] = {"auto", "s", "ms", "us", "ns"};
	size_t i;

	if (!strcmp(name, "\u00b5s")) {
		*out = FORMAT_UNIT_US;
		return 0;
	}
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcasecmp(name, names[i])) {
			*out = (enum format_unit)i;
			return 0;
		}
	return -1;
}

enum format_unit format_unit_pick(double maxabs)
{
	if (!(maxabs > 0.0) || maxabs >= 1.0)
		return FORMAT_UNIT_S;
	if (maxabs >= 1e-3)
		return FORMAT_UNIT_MS;
	if (maxabs >= 1e-6)
		return FORMAT_UNIT_US;
	return FORMAT_UNIT_NS;
}

const char *format_unit_symbol(enum format_unit u, int utf8)
{
	switch (u) {
	case FORMAT_UNIT_MS:
		return "ms";
	case FORMAT_UNIT_US:
		return utf8 ? "\u00b5s" : "us";
	case FORMAT_UNIT_NS:
		return "ns";
	default:
		return "s";
	}
}

void format_sig(char *s, size_t len, double v, int sig, int sign)
{
	const char *plus = sign && !signbit(v) ? "+" : "";
	double a = fabs(v), step;
	int e, d;

	if (!isfinite(v)) {
		snprintf(s, len, "%s%g", plus, v);
		return;
	}
	if (a == 0.0) {
		snprintf(s, len, "%s0", sign ? "+" : "");
		return;
	}
	e = (int)floor(log10(a));
	d = sig - 1 - e;
	if (d > 0) {
		/* (20: a pct beside a budget may take all 17 digits of a
		 * double, format_pct_edge(), 0.001 and below included) */
		if (d > 20)
			d = 20;
		snprintf(s, len, "%s%.*f", plus, d, v);
		/* 9.996 rounds up to "10.00": one decimal too many */
		if (fabs(strtod(s, NULL)) >= pow(10.0, e + 1) && d > 0)
			snprintf(s, len, "%s%.*f", plus, d - 1, v);
		return;
	}
	/* no decimals: round to the sig leading digits ("12300") */
	step = pow(10.0, -d);
	snprintf(s, len, "%s%.0f", plus, round(v / step) * step);
}

void format_duration(char *s, size_t len, double secs, enum format_unit u, int sign, int utf8)
{
	static const double scale[] = {1.0, 1.0, 1e3, 1e6, 1e9};
	double v = secs * scale[u];
	char num[64];

	/* every integral digit of a large number (a forced small unit):
	 * "150604 us", not "151000 us" */
	if (fabs(v) >= 1000.0)
		snprintf(num, sizeof(num), sign ? "%+.0f" : "%.0f", v);
	else
		format_sig(num, sizeof(num), v, 3, sign);
	snprintf(s, len, "%s %s", num, format_unit_symbol(u, utf8));
}

void format_group(char *s, size_t len, long long v, int sign)
{
	char digits[32], out[48];
	size_t n, i, k = 0;

	snprintf(digits, sizeof(digits), "%llu",
		 v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v);
	if (v < 0)
		out[k++] = '-';
	else if (sign)
		out[k++] = '+';
	n = strlen(digits);
	for (i = 0; i < n; i++) {
		if (i && (n - i) % 3 == 0)
			out[k++] = ',';
		out[k++] = digits[i];
	}
	out[k] = '\0';
	snprintf(s, len, "%s", out);
}

/* 1 when count v is a whole number to 6 decimals (a count, or a
 * location a rounding error away from one, 399.99999999999994; not a
 * median over repetitions that fell between two, such as 10.5 calls). */
static int format_whole(double v)
{
	return !isfinite(v) || fabs(v) >= 9.2e18 || fabs(v - nearbyint(v)) < 5e-7;
}

/* A count, grouped ("1,234"), with the fraction of one that is not whole
 * ("10.5", "+0.5", "1,234.25"): shown as it is compared, never rounded. */
static void format_count(char *s, size_t len, double v, int sign)
{
	double w = trunc(v);
	char whole[48], frac[32], *dot = NULL;
	size_t n;

	if (!format_whole(v)) {
		snprintf(frac, sizeof(frac), "%.6f", fabs(v - w));
		for (n = strlen(frac); n && frac[n - 1] == '0'; n--)
			frac[n - 1] = '\0';
		dot = strchr(frac, '.');
	}
	/* whole, or a fraction that rounds to none (or to one) in 6 digits */
	if (!dot || !dot[1] || frac[0] != '0') {
		format_group(s, len, llround(v), sign);
		return;
	}
	format_group(whole, sizeof(whole), (long long)fabs(w), 0);
	snprintf(s, len, "%s%s%s", v < 0 ? "-" : sign ? "+" : "", whole, dot);
}

void format_value(char *s, size_t len, int none, double v, int is_count)
{
	if (none)
		snprintf(s, len, "-");
	else if (is_count)
		format_count(s, len, v, 0);
	else
		snprintf(s, len, "%.6g", v);
}

void format_delta(char *s, size_t len, double delta, int is_count)
{
	if (is_count)
		format_count(s, len, delta, 1);
	else
		snprintf(s, len, "%+.6g", delta);
}

/* pct in d significant digits, signed, without trailing zeros. */
static void format_pct_digits(char *num, size_t cap, double pct, int d)
{
	size_t n;

	format_sig(num, cap, pct, d, 1);
	/* at most three significant digits: "+35.0" reads "+35" */
	if (strchr(num, '.')) {
		n = strlen(num);
		while (n && num[n - 1] == '0')
			num[--n] = '\0';
		if (n && num[n - 1] == '.')
			num[--n] = '\0';
	}
}

/* The side of edge v lies on: -1, 0 or 1. */
static int format_side(double v, double edge)
{
	return (v > edge) - (v < edge);
}

void format_pct_edge(char *s, size_t len, int none, double pct, double edge)
{
	char num[64];
	int d = 3;

	if (none) {
		snprintf(s, len, "-");
		return;
	}
	format_pct_digits(num, sizeof(num), pct, d);
	/* up to every digit of a double (17): a pct of 5.000000000000004
	 * over a budget of 5 shows so */
	while (d < 17 && isfinite(edge) &&
	       format_side(strtod(num, NULL), edge) != format_side(pct, edge))
		format_pct_digits(num, sizeof(num), pct, ++d);
	/* -100% is a region gone: a drop of 99.988% shows as -99.99% */
	while (d < 17 && pct != -100.0 && strtod(num, NULL) == -100.0)
		format_pct_digits(num, sizeof(num), pct, ++d);
	snprintf(s, len, "%s%%", num);
}

void format_pct(char *s, size_t len, int none, double pct)
{
	format_pct_edge(s, len, none, pct, NAN);
}

void format_number(char *s, size_t len, double v, int is_count)
{
	int prec;

	if (!isfinite(v)) {
		/* Never produced by the metrics; keep the output valid anyway. */
		snprintf(s, len, "null");
		return;
	}
	if (is_count && format_whole(v)) {
		snprintf(s, len, "%lld", llround(v));
		return;
	}
	for (prec = 15; prec <= 17; prec++) {
		snprintf(s, len, "%.*g", prec, v);
		if (strtod(s, NULL) == v)
			break;
	}
	if (!strpbrk(s, ".e") && strlen(s) + 3 <= len)
		strcat(s, ".0");
}
