/*
 * hint.h - "no run has tag 'nigthly'; did you mean 'nightly'?": why a run
 * filter matched nothing, for the commands that list runs (runs, export,
 * history, changes, prune) and those that fail on it (report,
 * export --format scope-profiler-json).
 *
 * Ownership: nothing is allocated for the caller; the store and filter are
 * only read.
 */
#ifndef SCOPEDB_CLI_HINT_H
#define SCOPEDB_CLI_HINT_H

#include "scopedb/filter.h"
#include "scopedb/store.h"

/*
 * For each --tag, the --branch and the --label of f that no run stored in
 * st has, say so on stderr with the nearest stored name ("scopedb: no run
 * has tag 'nigthly'; did you mean 'nightly'?"); *said = 1 when something
 * was said.  0 or a negative ERR_* code (message set).
 */
int hint_filter(int *said, struct store *st, const struct filter *f);

/* The same messages into out, each ended by a NUL byte (a name may hold a
 * line break), printed by nobody. */
int hint_filter_text(struct buf *out, struct store *st, const struct filter *f);

/*
 * ERR_NOTFOUND for a filter that matched nothing, for the commands that
 * fail on it: the first name of f no stored run has, with the nearest
 * stored one, or the message otherwise (ERR_* of the store first).
 */
int hint_filter_error(struct store *st, const struct filter *f, const char *otherwise);

/*
 * No run to list: say why on stderr, for the commands whose list then
 * stays empty with exit status 0 (runs, export): "no runs stored in
 * 'DB'" when f filters nothing (filtered = 0), else hint_filter()'s names
 * or "no run matches the filters".  0 or a negative ERR_* code.
 */
int hint_none(struct store *st, const struct filter *f, int filtered);

#endif
