/*
 * verify.c - the invariants of the rows a store hands back (see verify.h).
 *
 * Ingest only ever stores values that satisfy these checks, so a row that
 * fails one was damaged or edited after the fact: by a bad disk, a file
 * someone handed over (pull --from, --db downloaded.sqlite), or a hand
 * edit of a shared PostgreSQL database.  The checks are exact (no
 * tolerance on integers) and cheap next to the query that read the row;
 * the percentiles, computed in floating point, get a nanosecond of slack.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "scopedb/err.h"
#include "scopedb/util.h"
#include "store/blob.h"
#include "store/verify.h"

/* The longest region name a message quotes (bytes, before "..."). */
#define VERIFY_NAME_MAX 120

/* ERR_STORE "store 'LOCATION' is damaged: WHAT".  WHAT quotes names
 * shortened by verify_name(), so that it always fits whole. */
#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static int
verify_damaged(const char *location, const char *fmt, ...)
{
	char what[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	return err_set(ERR_STORE, "store '%s' is damaged: %s", location, what);
}

/*
 * name for a message, in buf: as it is when short, else its first
 * VERIFY_NAME_MAX bytes (not cutting a UTF-8 character) and "...".  A
 * C++ template's region name can be kilobytes long; cutting the whole
 * message instead would drop what is wrong from its end.
 */
static const char *verify_name(char buf[VERIFY_NAME_MAX + 4], const char *name)
{
	size_t len = strlen(name);

	if (len <= VERIFY_NAME_MAX + 3)
		return name;
	len = VERIFY_NAME_MAX;
	while (len > 0 && ((unsigned char)name[len] & 0xc0) == 0x80)
		len--;
	memcpy(buf, name, len);
	memcpy(buf + len, "...", 4);
	return buf;
}

/* 1 when layout looks like the name of a layout (lower-case letters,
 * digits, '-' and '_'), as a newer scopedb would write: not damage. */
static int verify_layout_name(const char *layout)
{
	size_t n = strspn(layout, "abcdefghijklmnopqrstuvwxyz0123456789-_");

	return n > 0 && n <= 32 && layout[n] == '\0';
}

/* ERR_STORE for a run of a profile this scopedb cannot read (what: its
 * schema or layout), stored by a newer scopedb into a shared store. */
static int verify_newer(const char *location, int64_t id, const char *what)
{
	return err_set(ERR_STORE,
		       "store '%s' has run %lld written by a newer scopedb (%s); upgrade scopedb",
		       location, (long long)id, what);
}

int verify_run(const struct store_run *run, const char *location)
{
	const char *layout = run->layout ? run->layout : "";
	char what[128];

	if (run->id <= 0)
		return verify_damaged(location, "a run has the id %lld", (long long)run->id);
	if (run->num_ranks < 0 || run->num_ranks > VERIFY_MAX_RANKS)
		return verify_damaged(location, "run %lld has %lld ranks", (long long)run->id,
				      (long long)run->num_ranks);
	if (run->num_regions < 0 || run->num_calls < 0)
		return verify_damaged(location, "run %lld has %lld regions and %lld calls",
				      (long long)run->id, (long long)run->num_regions,
				      (long long)run->num_calls);
	/* the profile schemas ingest reads (h5prof.c) */
	if (run->schema < 1)
		return verify_damaged(location, "run %lld has profile schema version %d",
				      (long long)run->id, run->schema);
	if (run->schema > 3) {
		snprintf(what, sizeof(what), "profile schema %d; this scopedb reads up to 3",
			 run->schema);
		return verify_newer(location, run->id, what);
	}
	if (strcmp(layout, "hierarchical") && strcmp(layout, "columnar") &&
	    strcmp(layout, "aggregate")) {
		if (!verify_layout_name(layout))
			return verify_damaged(location, "run %lld has an unknown layout",
					      (long long)run->id);
		snprintf(what, sizeof(what),
			 "layout '%s'; this scopedb reads hierarchical, columnar and aggregate",
			 layout);
		return verify_newer(location, run->id, what);
	}
	return 0;
}

/*
 * Calls and times of a region (in run_id, or one timings row when rank >=
 * 0), as in verify_stats(); region names it in the message.  Only with
 * per-call data (has_events) are total, min and max computed by scopedb
 * and so bound together; the aggregate layout stores the file's numbers,
 * which ingest only requires to be >= 0.
 */
static int verify_times(const char *location, int64_t run_id, const char *region, int64_t rank,
			int has_events, uint64_t calls, int64_t total, int64_t min, int64_t max,
			uint64_t gpu_count, int64_t gpu_total)
{
	char where[96];
	int64_t c;

	if (rank >= 0)
		snprintf(where, sizeof(where), " rank %lld", (long long)rank);
	else
		where[0] = '\0';
	/* Both backends store counts as signed 64-bit integers and sum them
	 * in SQL, which fails on an overflow rather than wrap: a count above
	 * INT64_MAX here is a negative one in the store, printed as stored
	 * (%lld), not as the 20-digit number %llu would make of it. */
	if (calls > (uint64_t)INT64_MAX || gpu_count > calls)
		return verify_damaged(
		    location, "region '%s' of run %lld%s has %lld calls (%lld on a GPU)", region,
		    (long long)run_id, where, (long long)calls, (long long)gpu_count);
	if (total < 0 || min < 0 || max < 0 || gpu_total < 0)
		return verify_damaged(location, "region '%s' of run %lld%s has a negative time",
				      region, (long long)run_id, where);
	if (!has_events)
		return 0;
	if (calls == 0 && total != 0)
		return verify_damaged(
		    location, "region '%s' of run %lld%s has no calls but a total of %lld ns",
		    region, (long long)run_id, where, (long long)total);
	if (calls == 0 && (min != 0 || max != 0))
		return verify_damaged(
		    location,
		    "region '%s' of run %lld%s has no calls but a minimum of %lld ns "
		    "and a maximum of %lld ns",
		    region, (long long)run_id, where, (long long)min, (long long)max);
	if (calls == 0)
		return 0;
	c = (int64_t)calls;
	/* calls * min <= total <= calls * max, without overflow */
	if (min > max || min > total / c || (total > 0 && (total - 1) / c + 1 > max))
		return verify_damaged(location,
				      "region '%s' of run %lld%s has %lld calls of %lld..%lld ns "
				      "totalling %lld ns",
				      region, (long long)run_id, where, (long long)calls,
				      (long long)min, (long long)max, (long long)total);
	return 0;
}

int verify_stats(const struct store_region_stats *s, int64_t run_id, const char *location)
{
	char short_name[VERIFY_NAME_MAX + 4];
	const char *name = verify_name(short_name, s->name ? s->name : "");
	double lo = (double)s->min - 1, hi = (double)s->max + 1, prev = lo;
	int ret, i;

	ret = verify_times(location, run_id, name, -1, s->has_events, s->calls, s->total, s->min,
			   s->max, s->gpu_count, s->gpu_total);
	if (ret)
		return ret;
	if (s->busy_ranks > s->nranks || s->nranks > (uint64_t)VERIFY_MAX_RANKS ||
	    s->busy_max < 0 || s->busy_max > s->total)
		return verify_damaged(location,
				      "region '%s' of run %lld has %llu ranks of which %llu busy, "
				      "the busiest for %lld ns",
				      name, (long long)run_id, (unsigned long long)s->nranks,
				      (unsigned long long)s->busy_ranks, (long long)s->busy_max);
	if (!s->has_quantiles)
		return 0;
	for (i = 0; i < 3; i++) {
		/* NaN fails every comparison: !(a <= b) catches it */
		if (!(s->quantiles[i] >= prev && s->quantiles[i] <= hi) || s->calls == 0)
			return verify_damaged(location,
					      "region '%s' of run %lld has percentiles outside its "
					      "%lld..%lld ns or out of order",
					      name, (long long)run_id, (long long)s->min,
					      (long long)s->max);
		prev = s->quantiles[i] - 1;
	}
	return 0;
}

/*
 * The durations blob of a timings row.  Ingest encodes one for every row
 * with per-call data, also for a row of no calls (an index row with an
 * event count of 0, legal in schemas 2 and 3: the blob of no values), and
 * none for the aggregate layout; a store may also hold no blob for a row
 * of no calls.  So: none without per-call data; one whenever there are
 * calls; and any blob there decodes (blob_stats(): every byte, nothing
 * kept) to the row's count, minimum, maximum and total.
 */
static int verify_durations(const struct store_timing *t, const char *region, const char *location)
{
	struct blob_stats bs;

	if (!t->has_events && t->durations)
		return verify_damaged(location,
				      "region '%s' of run %lld rank %lld has call durations but no "
				      "per-call data",
				      region, (long long)t->run_id, (long long)t->rank);
	if (!t->has_events || (t->calls == 0 && !t->durations))
		return 0;
	if (!t->durations)
		return verify_damaged(
		    location,
		    "region '%s' of run %lld rank %lld has %llu calls but no call "
		    "durations",
		    region, (long long)t->run_id, (long long)t->rank, (unsigned long long)t->calls);
	if (blob_stats(&bs, t->durations, t->durations_len))
		return verify_damaged(location,
				      "call durations of run %lld do not decode (region '%s' rank "
				      "%lld)",
				      (long long)t->run_id, region, (long long)t->rank);
	if (bs.count != t->calls || bs.min != t->min || bs.max != t->max || bs.sum != t->total)
		return verify_damaged(location,
				      "the call durations of region '%s' of run %lld rank %lld do "
				      "not match its calls, minimum, maximum and total",
				      region, (long long)t->run_id, (long long)t->rank);
	return 0;
}

int verify_timing(const struct store_timing *t, const char *region, int64_t num_ranks,
		  const char *location)
{
	char short_name[VERIFY_NAME_MAX + 4];
	int ret;

	region = verify_name(short_name, region);
	if (t->rank < 0 || t->rank >= num_ranks)
		return verify_damaged(location, "region '%s' of run %lld has rank %lld of %lld",
				      region, (long long)t->run_id, (long long)t->rank,
				      (long long)num_ranks);
	ret = verify_times(location, t->run_id, region, t->rank, t->has_events, t->calls, t->total,
			   t->min, t->max, t->gpu_count, t->gpu_total);
	if (ret)
		return ret;
	ret = verify_durations(t, region, location);
	if (ret)
		return ret;
	if (!isfinite(t->mean) || !isfinite(t->m2) || t->m2 < 0)
		return verify_damaged(location,
				      "region '%s' of run %lld rank %lld has a mean or variance "
				      "that is not a finite number",
				      region, (long long)t->run_id, (long long)t->rank);
	return 0;
}

int verify_rank_total(int64_t rank, int64_t total, const char *region, int64_t run_id,
		      int64_t num_ranks, const char *location)
{
	char short_name[VERIFY_NAME_MAX + 4];

	region = verify_name(short_name, region);
	if (rank < 0 || rank >= num_ranks)
		return verify_damaged(location, "region '%s' of run %lld has rank %lld of %lld",
				      region, (long long)run_id, (long long)rank,
				      (long long)num_ranks);
	if (total < 0)
		return verify_damaged(location, "region '%s' of run %lld has a negative time",
				      region, (long long)run_id);
	return 0;
}

int verify_path(const struct store_path *p, int64_t expect_id, int64_t parent_depth,
		int64_t parent_region, const char *location)
{
	if (p->path_id != expect_id || p->depth < 1 || p->depth > UINT32_MAX)
		return verify_damaged(location, "path %lld of run %lld is out of sequence",
				      (long long)p->path_id, (long long)p->run_id);
	if (p->parent_id < 0 ? p->depth != 1
			     : p->parent_id >= p->path_id || parent_depth + 1 != p->depth ||
				   parent_region == p->region_id)
		return verify_damaged(location, "path %lld of run %lld has a wrong parent",
				      (long long)p->path_id, (long long)p->run_id);
	return 0;
}

int verify_path_rank(const struct store_path_rank *r, int64_t num_paths, int64_t num_ranks,
		     const char *location)
{
	struct blob_stats bs;

	if (r->path_id < 0 || r->path_id >= num_paths || r->rank < 0 || r->rank >= num_ranks)
		return verify_damaged(
		    location, "path %lld rank %lld of run %lld names no path or rank of it",
		    (long long)r->path_id, (long long)r->rank, (long long)r->run_id);
	if (r->calls < 1 || r->calls > (uint64_t)INT64_MAX || r->nested > (uint64_t)INT64_MAX ||
	    r->total < 0 || r->self < 0 || r->self > r->total || r->min < 0 || r->max < r->min ||
	    r->max > r->total)
		return verify_damaged(location,
				      "path %lld rank %lld of run %lld has impossible counts or "
				      "times",
				      (long long)r->path_id, (long long)r->rank,
				      (long long)r->run_id);
	if (r->durations &&
	    (blob_stats(&bs, r->durations, r->durations_len) || bs.count != r->calls ||
	     bs.sum != r->total || bs.min != r->min || bs.max != r->max))
		return verify_damaged(location,
				      "the call durations of path %lld rank %lld of run %lld do "
				      "not match its calls, minimum, maximum and total",
				      (long long)r->path_id, (long long)r->rank,
				      (long long)r->run_id);
	return 0;
}

int verify_text(const char *what, const char *s)
{
	char short_s[VERIFY_NAME_MAX + 4];
	const char *bad = s ? util_utf8_bad(s) : NULL;

	if (!bad)
		return 0;
	return err_set(
	    ERR_FORMAT,
	    "%s '%s' is not valid UTF-8 (byte 0x%02x at offset %zu); a store holds UTF-8 "
	    "text only",
	    what, verify_name(short_s, s), (unsigned char)*bad, (size_t)(bad - s));
}

int verify_key(const char *what, const char *s, int limited)
{
	char short_s[VERIFY_NAME_MAX + 4];
	int ret = verify_text(what, s);

	if (ret || !s || !limited || strlen(s) <= STORE_NAME_MAX)
		return ret;
	return err_set(ERR_FORMAT,
		       "%s '%s' is too long (%zu bytes; a store indexes names of at most %d)", what,
		       verify_name(short_s, s), strlen(s), STORE_NAME_MAX);
}

int store_check_name(const char *what, const char *s)
{
	return verify_key(what, s, 1);
}

int verify_run_text(const struct store_run *run, int limited)
{
	const char *const what[] = {"path",	    "commit",	   "layout",
				    "content hash", "ingest time", "recorded time"};
	const char *const s[] = {run->source_path, run->commit,	     run->layout,
				 run->sha256,	   run->ingested_at, run->recorded_at};
	size_t i;
	int ret = verify_key("label", run->label, limited);

	if (!ret)
		ret = verify_key("branch", run->branch, limited);
	for (i = 0; !ret && i < sizeof(s) / sizeof(s[0]); i++)
		ret = verify_text(what[i], s[i]);
	for (i = 0; !ret && i < run->ntags; i++)
		ret = verify_key("tag", run->tags[i], limited);
	return ret;
}

int verify_timing_text(const struct store_timing *t)
{
	int ret = verify_text("source file", t->source_file);

	if (!ret)
		ret = verify_text("source text", t->source_text);
	if (!ret)
		ret = verify_text("tags", t->tags_json);
	return ret;
}

int verify_foreign(const char *location, const char *kind, int kind_len, const char *name)
{
	/* a trigger, rule or policy is on a table; a view (or a partitioned
	 * or foreign table) stands among them; a child table under one */
	const char *where = "on its tables";

	if (kind_len == 11 && !strncmp(kind, "child table", 11))
		where = "under its tables";
	else if ((kind_len == 4 && !strncmp(kind, "view", 4)) ||
		 (kind_len > 6 && !strncmp(kind + kind_len - 6, " table", 6)))
		where = "among its tables";

	return err_set(ERR_STORE,
		       "store '%s' has a %.*s named '%s' %s, which scopedb never creates; refused "
		       "(remove it, or use a store without one)",
		       location, kind_len, kind, name, where);
}
