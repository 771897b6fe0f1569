/*
 * format.c - number formats shared by every renderer (see format.h).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "render/format.h"

void format_value(char *s, size_t len, int none, double v, int is_count)
{
	if (none)
		snprintf(s, len, "-");
	else if (is_count)
		snprintf(s, len, "%lld", (long long)v);
	else
		snprintf(s, len, "%.6g", v);
}

void format_delta(char *s, size_t len, double delta, int is_count)
{
	if (is_count)
		snprintf(s, len, "%+lld", (long long)delta);
	else
		snprintf(s, len, "%+.6g", delta);
}

void format_pct(char *s, size_t len, int none, double pct)
{
	if (none)
		snprintf(s, len, "-");
	else
		snprintf(s, len, "%+.4g%%", pct);
}

void format_number(char *s, size_t len, double v, int is_count)
{
	int prec;

	if (!isfinite(v)) {
		/* Never produced by the metrics; keep the output valid anyway. */
		snprintf(s, len, "null");
		return;
	}
	if (is_count) {
		snprintf(s, len, "%lld", (long long)v);
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
