/*
 * filter.h - which runs a listing or a history covers: the --tag, --branch,
 * --commit, --label, --since, --until, --meta and --limit options of
 * "scopedb runs" and "scopedb history", and the parsing of their values.
 * The store turns a struct filter into one SQL query (store_find_runs(),
 * store_region_history()); nothing here touches the store.
 *
 * Dates are compared with the runs' chronological key (the recorded time,
 * else the ingest time), which the store keeps as "YYYY-MM-DDTHH:MM:SSZ"
 * text, so since/until are held in that form too.
 *
 * Ownership: struct filter borrows every string it points to (usually
 * argv), except since/until, which are arrays inside the structure.
 */
#ifndef SCOPEDB_FILTER_H
#define SCOPEDB_FILTER_H

#include <stddef.h>
#include <stdint.h>

/* One --meta KEY=VALUE condition (both borrowed). */
struct filter_meta {
	const char *key;
	const char *value;
	int or_absent; /* a run without the key holds it too */
};

struct filter {
	const char *const *tags; /* runs carrying every one of these tags */
	size_t ntags;
	const char *branch;		/* NULL = any */
	const char *commit;		/* commit prefix; NULL = any */
	const char *label;		/* NULL = any */
	char since[24];			/* "" = no lower bound, else sort_time >= since */
	char until[24];			/* "" = no upper bound, else sort_time <= until */
	const struct filter_meta *meta; /* every condition must hold */
	size_t nmeta;
	int64_t limit; /* at most this many (newest) runs; 0 = all */
};

/*
 * Parse a --since/--until value (opt is the option name for the message)
 * into *out as "YYYY-MM-DDTHH:MM:SSZ" (out has at least 24 bytes).  arg is
 * an ISO-8601 date or date-time (util_parse_iso()) or a relative age N
 * followed by s, m, h, d or w ("7d" = 7 days before now).  A bare date
 * given to --until covers that whole day (until = 23:59:59 of it).  now is
 * the current time in epoch seconds (a parameter so tests are exact).
 * ERR_USAGE "invalid --since 'x': expected an ISO-8601 date or a relative
 * age such as 7d" otherwise.
 */
int filter_parse_date(char *out, size_t outlen, const char *opt, const char *arg, int64_t now);

/*
 * Split a --meta KEY=VALUE argument in place of a copy: out->key and
 * out->value point into *storage, a malloc'ed copy of arg the caller frees.
 * ERR_USAGE when there is no '=' or the key is empty.
 */
int filter_parse_meta(struct filter_meta *out, char **storage, const char *arg);

#endif
