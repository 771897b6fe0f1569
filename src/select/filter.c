/*
 * filter.c - parsing the values of the run filter options (see filter.h):
 * ISO-8601 or relative dates for --since/--until, and --meta KEY=VALUE.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "scopedb/err.h"
#include "scopedb/filter.h"
#include "scopedb/util.h"

/* 1 when s is a bare date "YYYY-MM-DD" (no time of day). */
static int filter_is_bare_date(const char *s)
{
	return strlen(s) == 10 && s[4] == '-' && s[7] == '-';
}

/*
 * A relative age "N<unit>" (unit s, m, h, d, w) in seconds: *out = N *
 * unit.  -1 when arg is not of that form or overflows.
 */
static int filter_parse_age(int64_t *out, const char *arg)
{
	static const struct {
		char unit;
		int64_t secs;
	} units[] = {{'s', 1}, {'m', 60}, {'h', 3600}, {'d', 86400}, {'w', 7 * 86400}};
	char *end;
	long long n;
	size_t i;

	if (arg[0] < '0' || arg[0] > '9')
		return -1;
	errno = 0;
	n = strtoll(arg, &end, 10);
	if (errno || end[0] == '\0' || end[1] != '\0')
		return -1;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (*end != units[i].unit)
			continue;
		/* Beyond 100000 years no run can be older. */
		if (n > 3153600000000LL / units[i].secs)
			return -1;
		*out = (int64_t)n * units[i].secs;
		return 0;
	}
	return -1;
}

int filter_parse_date(char *out, size_t outlen, const char *opt, const char *arg, int64_t now)
{
	int64_t t, age;

	if (filter_parse_age(&age, arg) == 0) {
		t = now - age;
	} else if (util_parse_iso(&t, arg) == 0) {
		if (filter_is_bare_date(arg) && !strcmp(opt, "--until"))
			t += 86399;
	} else {
		return err_set(ERR_USAGE,
			       "invalid %s '%s': expected an ISO-8601 date or a relative age such "
			       "as 7d",
			       opt, arg);
	}
	/* The text form only covers years 0000-9999. */
	if (t < -62167219200LL)
		t = -62167219200LL;
	if (t > 253402300799LL)
		t = 253402300799LL;
	util_format_iso(out, outlen, t);
	return 0;
}

int filter_parse_meta(struct filter_meta *out, char **storage, const char *arg)
{
	char *copy, *eq;

	*storage = NULL;
	out->key = out->value = NULL;
	out->or_absent = 0;
	eq = strchr(arg, '=');
	if (!eq || eq == arg)
		return err_set(ERR_USAGE, "invalid --meta '%s': expected KEY=VALUE", arg);
	copy = util_strdup(arg);
	if (!copy)
		return ERR_NOMEM;
	copy[eq - arg] = '\0';
	out->key = copy;
	out->value = copy + (eq - arg) + 1;
	*storage = copy;
	return 0;
}
