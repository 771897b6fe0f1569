/*
 * history.c - changes between consecutive runs and the bars of "scopedb
 * history" (see history.h).
 */
#include <math.h>

#include "scopedb/err.h"
#include "scopedb/history.h"

void history_compute(struct history_step *s, size_t n, size_t *largest)
{
	double best = 0.0;
	size_t i;

	*largest = n;
	for (i = 0; i < n; i++) {
		const struct stats_val *prev = i ? &s[i - 1].v : NULL;

		s[i].largest = 0;
		s[i].delta.none = s[i].pct.none = 1;
		s[i].delta.v = s[i].pct.v = 0.0;
		if (!prev || prev->none || s[i].v.none)
			continue;
		s[i].delta.none = 0;
		s[i].delta.v = s[i].v.v - prev->v;
		if (prev->v != 0.0) {
			s[i].pct.none = 0;
			s[i].pct.v = s[i].delta.v / prev->v * 100.0;
		}
		if (fabs(s[i].delta.v) > best) {
			best = fabs(s[i].delta.v);
			*largest = i;
		}
	}
	if (*largest < n)
		s[*largest].largest = 1;
}

double history_max(const struct history_step *s, size_t n)
{
	double m = 0.0;
	size_t i;

	for (i = 0; i < n; i++)
		if (!s[i].v.none && s[i].v.v > m)
			m = s[i].v.v;
	return m;
}

int history_bar(struct buf *out, struct stats_val v, double max, size_t width, int utf8)
{
	/* U+2589 .. U+258F: seven eighths down to one eighth. */
	static const char *const part[8] = {"",	      "\u258f", "\u258e", "\u258d",
					    "\u258c", "\u258b", "\u258a", "\u2589"};
	double cells;
	size_t units, i;
	int rc = 0;

	if (v.none || !(v.v > 0.0) || !(max > 0.0) || width == 0)
		return 0;
	cells = v.v / max * (double)width;
	if (cells > (double)width)
		cells = (double)width;
	if (!utf8) {
		units = (size_t)floor(cells + 0.5);
		for (i = 0; i < units && !rc; i++)
			rc = buf_putc(out, '#');
		return rc ? err_nomem() : 0;
	}
	units = (size_t)floor(cells * 8.0 + 0.5);
	if (units == 0)
		units = 1; /* a positive value is never invisible */
	for (i = 0; i < units / 8 && !rc; i++)
		rc = buf_puts(out, "\u2588");
	if (!rc)
		rc = buf_puts(out, part[units % 8]);
	return rc ? err_nomem() : 0;
}
