/*
 * verify.h - the invariants of what a store returns, checked by the front
 * end (store.c) on every row any backend hands back, so that a damaged or
 * hostile store (a file from elsewhere, a shared PostgreSQL database
 * edited by hand) gives "store 'LOCATION' is damaged: ..." instead of
 * numbers that look right, and never an index or an allocation sized by a
 * value nobody checked.
 *
 * Each function returns 0, or ERR_STORE with the message set.  Nothing is
 * allocated or kept; location is the store's store_location().
 */
#ifndef SCOPEDB_STORE_VERIFY_H
#define SCOPEDB_STORE_VERIFY_H

#include <stdint.h>

#include "scopedb/store.h"

/* The most ranks a stored run may claim: the reader of profiles counts
 * them in 32 bits. */
#define VERIFY_MAX_RANKS ((int64_t)UINT32_MAX)

/* A run row: its id, counts, layout and profile schema.  A schema above
 * 3, or a layout with a name this scopedb does not know, is a run of a
 * newer scopedb (a shared store): "store 'X' has run N written by a newer
 * scopedb (...); upgrade scopedb", not "damaged".  Region names in every
 * message are cut to 120 bytes and "...", so the cause stays whole. */
int verify_run(const struct store_run *run, const char *location);

/* A region's totals in run_id (all ranks, or pooled over some): counts,
 * times, min <= max, totals within calls * [min, max], finite
 * percentiles in order within [min, max]. */
int verify_stats(const struct store_region_stats *s, int64_t run_id, const char *location);

/* One timings row of a run with num_ranks ranks (rank in range, counts
 * and times as verify_stats(), finite mean and m2). */
int verify_timing(const struct store_timing *t, const char *region, int64_t num_ranks,
		  const char *location);

/* A (region, rank) total of a run with num_ranks ranks. */
int verify_rank_total(int64_t rank, int64_t total, const char *region, int64_t run_id,
		      int64_t num_ranks, const char *location);

/* A path of a run: ids in sequence (expect_id), a parent among the earlier
 * paths (parent_depth: its depth; parent_region: its region) one name
 * shorter with another region. */
int verify_path(const struct store_path *p, int64_t expect_id, int64_t parent_depth,
		int64_t parent_region, const char *location);

/* A (path, rank) row of a run with num_paths paths and num_ranks ranks:
 * counts, 0 <= self <= total, and its durations (when stored) as many as
 * its calls, summing to its total. */
int verify_path_rank(const struct store_path_rank *r, int64_t num_paths, int64_t num_ranks,
		     const char *location);

/*
 * The text rule of every store, whatever its backend (docs/text.md): it
 * holds UTF-8 text only.  0 when s (NULL is fine) is valid UTF-8, else
 * ERR_FORMAT "WHAT 'S' is not valid UTF-8 (byte 0xNN at offset K); a store
 * holds UTF-8 text only", S cut as in the messages above.  what names the
 * text ("region name", "tag", "metadata key 'x'").  store.c refuses such
 * text on every write, so that SQLite does not keep what PostgreSQL
 * refuses; ingest and transfer say first which file or run it came from.
 */
int verify_text(const char *what, const char *s);

/* verify_text() of a name a store indexes, and, limited, at most
 * STORE_NAME_MAX bytes long: else ERR_FORMAT "WHAT 'S...' is too long (N
 * bytes; a store indexes names of at most 2000)".  A temporary store (a
 * file read for show or diff) keeps nothing and holds any length. */
int verify_key(const char *what, const char *s, int limited);

/* verify_text() of every string of a run row (its tags included; its
 * label and branch by verify_key(), limited or not) and of a timings row. */
int verify_run_text(const struct store_run *run, int limited);
int verify_timing_text(const struct store_timing *t);

/* ERR_STORE "store 'LOCATION' has a KIND named 'NAME' on its tables, which
 * scopedb never creates; refused (...)": a trigger, rule, row-level
 * security policy or view (kind, kind_len bytes) that could run SQL of
 * the store's own in our session.  Someone may have added it on purpose
 * (an admin's audit trigger), so the store is not called damaged. */
int verify_foreign(const char *location, const char *kind, int kind_len, const char *name);

#endif
