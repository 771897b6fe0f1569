/*
 * transfer.h - copying runs between two stores (scopedb push and pull).
 *
 * Any two stores, whatever their backends (SQLite to PostgreSQL and back,
 * SQLite to SQLite): a run is copied with its metadata, tags, every
 * timings row and durations blob, and its all-ranks totals and
 * percentiles are computed again by the destination's finish pipeline
 * (store_finish_run()), so they are the same values.  Runs are matched by
 * content hash: a run the destination already has is skipped, which makes
 * a transfer idempotent.  Runs are copied in batches, each in one
 * destination transaction (at most 64 runs and about 0.2 s of work, so
 * the store's write lock is held briefly).  A run that cannot be copied
 * for what it holds (a damaged source row, text that is not UTF-8:
 * docs/text.md) is skipped with its reason and the others are copied
 * (its batch is rolled back and copied again run by run); an error of a
 * store itself (the destination failing a write, a lost connection, out
 * of memory) stops the transfer, leaving the runs of the batches
 * committed before it.
 *
 * Ownership: the result's arrays and strings are malloc'ed and freed by
 * store_transfer_release(); the stores are only used.
 */
#ifndef SCOPEDB_TRANSFER_H
#define SCOPEDB_TRANSFER_H

#include <stddef.h>
#include <stdint.h>

#include "scopedb/store.h"

/* What of a run the destination already had differs there: its commit,
 * branch, label (TRANSFER_KEPT_NAMES order). */
enum {
	TRANSFER_KEPT_COMMIT = 1u << 0,
	TRANSFER_KEPT_BRANCH = 1u << 1,
	TRANSFER_KEPT_LABEL = 1u << 2,
};
#define TRANSFER_KEPT_N 3
#define TRANSFER_KEPT_NAMES                                                                        \
	{                                                                                          \
		"commit", "branch", "label"                                                        \
	}

/* One run of the source. */
struct transfer_run {
	int64_t src_id;
	int64_t dst_id; /* its id in the destination (0 when failed) */
	int copied;	/* 0: the destination had it already (same content) */
	char *source_path;
	char *error; /* not copied for what it holds: why (else NULL) */
	/* not copied as the destination had it: which of the source's
	 * commit, branch and label (TRANSFER_KEPT_*) the destination's run
	 * has otherwise (or not at all), with both values (kept: the
	 * destination's, NULL for none; given: the source's) */
	unsigned kept;
	char *kept_value[TRANSFER_KEPT_N];
	char *given_value[TRANSFER_KEPT_N];
};

enum transfer_pin_state {
	TRANSFER_PIN_SET,	/* the destination had no such pin: made */
	TRANSFER_PIN_SAME,	/* it named the same run already */
	TRANSFER_PIN_ELSEWHERE, /* it names another run (other): left as is */
};

/* A pin of the source naming a transferred run. */
struct transfer_pin {
	char *name;
	int64_t dst_id; /* the run in the destination */
	enum transfer_pin_state state;
	int64_t other; /* TRANSFER_PIN_ELSEWHERE: the run the pin names */
};

struct transfer_result {
	struct transfer_run *runs; /* in the order copied: oldest id first */
	size_t nruns;
	size_t nfailed;		   /* runs with an error */
	size_t nselected;	   /* runs to copy (more than nruns: an error stopped) */
	struct transfer_pin *pins; /* sorted by name */
	size_t npins;
};

/*
 * Copy the runs ids[0..n) of src (ids NULL: every run) to dst, oldest
 * first, and with pins the pins of src that name one of them (a pin the
 * destination has already is never moved).  *out lists what was done,
 * the runs not copied for what they hold with their reason (nfailed of
 * them; 0 is still returned).  On an error of a store itself it lists
 * the runs done before it and the error is returned.
 */
int transfer_runs(struct transfer_result *out, struct store *dst, struct store *src,
		  const int64_t *ids, size_t n, int pins);

/* transfer_runs(), handing each run to fn once it is done (its batch
 * committed, or not copied for what it holds), in out's order: a command
 * says what it did as it goes, so that a transfer stopped by a signal
 * has said what it committed.  fn may be NULL. */
typedef void (*transfer_run_fn)(void *ctx, const struct transfer_run *r);
int transfer_runs_each(struct transfer_result *out, struct store *dst, struct store *src,
		       const int64_t *ids, size_t n, int pins, transfer_run_fn fn, void *ctx);
void transfer_result_release(struct transfer_result *r);

/*
 * Read and check (verify.h: the run row, its metadata, every timings row
 * and durations blob, and the text rule) the runs transfer_runs() would
 * copy from src (ids[0..n), or every run when ids is NULL), oldest first,
 * until one passes, writing nothing: push and pull call it before they
 * create a missing destination, so that a source with no run to copy (each
 * damaged, say) or a bad selector creates no store.  0 when one passes or
 * there is no run to copy, else the first run's error; *nruns (when not
 * NULL): how many runs there are to copy (0: nothing to create a store
 * for).  One run's rows at a time, as the copy.
 */
int transfer_check(struct store *src, const int64_t *ids, size_t n, size_t *nruns);

#endif
