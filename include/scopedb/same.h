/*
 * same.h - like with like (--same KEY of check, diff, history, changes and
 * report; $SCOPEDB_SAME): keep only the runs whose metadata KEY has the
 * value a reference run has (the baseline for check, diff and report; the
 * newest selected run for history and changes), so that runs of another
 * machine, platform or thread count distort neither the windows, nor the
 * noise, nor a series.  docs/statistics.md, "Like with like".
 *
 * The conditions are the run filter's metadata conditions (filter.h), so
 * every backend selects the runs itself; same_left_out() counts what they
 * left out from two listings of the same filter, with and without them.
 *
 * Ownership: struct same owns its conditions and the skipped keys; the
 * spec's keys are borrowed.  same_release() accepts a zeroed structure.
 */
#ifndef SCOPEDB_SAME_H
#define SCOPEDB_SAME_H

#include <stddef.h>
#include <stdint.h>

#include "scopedb/filter.h"
#include "scopedb/store.h"

/* What the user asked for. */
struct same_spec {
	const char *const *keys; /* --same KEY (repeatable), borrowed */
	size_t nkeys;
	int from_env; /* the keys came from $SCOPEDB_SAME: a key the reference
		       * run lacks is skipped, not an error */
	/* keys kept like with like without being asked (a check's run sets:
	 * mpi_size and platform, which a check requires of its two runs);
	 * one the reference run lacks is left out silently; borrowed */
	const char *const *implied;
	size_t nimplied;
};

/* The spec resolved against a reference run. */
struct same {
	int64_t ref;		  /* the reference run (0: none) */
	struct filter_meta *cond; /* KEY = the reference's value */
	size_t ncond;
	size_t nimplied; /* of which the last, of the spec's implied keys */
	char **skipped;	 /* keys of the spec the reference run lacks */
	size_t nskipped;
	size_t left_out;  /* runs left out (set by the caller's counting) */
	int implied_left; /* the implied conditions left some of them out */
};

/*
 * Split the value of $SCOPEDB_SAME (keys separated by commas or blanks)
 * into *keys (malloc'ed array of malloc'ed strings, *n of them; free them
 * with same_keys_free()).  NULL or "" gives none.  ERR_NOMEM.
 */
int same_env_keys(char ***keys, size_t *n, const char *env);
void same_keys_free(char **keys, size_t n);

/*
 * Resolve spec against run ref of st (ref 0 or no key: out has no
 * condition).  A key ref lacks is an error (ERR_USAGE "--same 'KEY': run
 * 41 has no metadata key 'KEY'", with the nearest key it has) unless
 * spec->from_env, which skips it (out->skipped).  Store errors.
 */
int same_resolve(struct same *out, struct store *st, int64_t ref, const struct same_spec *spec);

/*
 * *out = f with the conditions of s added to f's own metadata conditions;
 * *storage (free() it) holds the merged array.  ERR_NOMEM.
 */
int same_filter(struct filter *out, struct filter_meta **storage, const struct filter *f,
		const struct same *s);

/*
 * Count into *n the runs of all[0..nall) (newest first, as
 * store_find_runs() lists them) from the run anchor (0: the first) back to
 * the oldest of kept[0..nkept) that are not among the kept runs (the runs
 * the conditions left out of that span), appending their ids to ids when
 * not NULL.  When nothing is kept, or to_end (fewer runs were kept than
 * asked for: the oldest ones would have been taken), every run from the
 * anchor on counts.
 * ERR_NOMEM.
 */
int same_left_out(size_t *n, struct i64vec *ids, const struct store_run *all, size_t nall,
		  const int64_t *kept, size_t nkept, int64_t anchor, int to_end);

/*
 * Like with like over a listing (history, changes, report's trends):
 * resolve spec against the newest run f selects (out->ref; 0 when f
 * selects none), set *fs to f with the conditions (*conds holds them:
 * free() it) and count in out->left_out the runs f selects that they
 * leave out, from the newest down to the oldest run kept (within f's
 * --limit).  Without keys *fs = f.  Errors as same_resolve() and the
 * store's.
 */
int same_apply(struct same *out, struct filter *fs, struct filter_meta **conds, struct store *st,
	       const struct filter *f, const struct same_spec *spec);

/*
 * out->left_out = the runs f selects (without its --limit) that the
 * conditions of fs leave out, from the newest down to the oldest of
 * listed[0..nlisted) (the runs a history read: its --limit counts the
 * runs that have the region, not those f selects), or to the oldest run
 * with to_end (the limit cut nothing).  Store errors.
 */
int same_left_out_listed(struct same *out, struct store *st, const struct filter *f,
			 const struct filter *fs, const int64_t *listed, size_t nlisted,
			 int to_end);

/* The value s requires of key, NULL when key is not one of its conditions. */
const char *same_value(const struct same *s, const char *key);

/* The conditions of s asked for (implied 0) or implied (1) alone, as a
 * view of s (borrowing its conditions; not to be released), with no
 * left-out count. */
struct same same_part(const struct same *s, int implied);

/* The conditions said to people, the first same_shown() of s->cond: those
 * asked for, and the implied ones when they left runs out (a check's usual
 * mpi_size and platform are no news otherwise). */
size_t same_shown(const struct same *s);

/* "hostname = node7, platform = x86_64" into out (appended): the
 * conditions same_shown() counts. */
int same_describe(struct buf *out, const struct same *s);

void same_release(struct same *s);

#endif
