/*
 * ancestry.h - the runs of the selector base:REF (select.h): the stored
 * runs along the first-parent ancestry of the merge base of HEAD and REF,
 * as a pull request's baseline is chosen by git rather than by "the
 * previous run" (Conbench's lookback, github-action-benchmark #267).
 *
 * git runs through git_run() (src/util/git.c), read-only plumbing in a
 * neutralised environment: no alias, hook, fsmonitor, pager or external
 * diff of the repository's configuration can run.  Commands: rev-parse
 * (the work tree, then REF^{commit}), merge-base HEAD SHA, rev-list
 * --first-parent --max-count=ANCESTRY_MAX_COMMITS MERGE_BASE.  Then each
 * commit of that list, newest first, is looked up in the store
 * (store_find_runs() by commit) until enough runs are found.
 *
 * Ownership: struct ancestry owns its strings and arrays;
 * ancestry_release() accepts a zeroed structure.
 */
#ifndef SCOPEDB_ANALYSIS_ANCESTRY_H
#define SCOPEDB_ANALYSIS_ANCESTRY_H

#include <stddef.h>
#include <stdint.h>

struct store;

/* How many commits of the merge base's first-parent ancestry are looked
 * at, at most (a store without a run in the last thousand commits of main
 * is no baseline). */
#define ANCESTRY_MAX_COMMITS 1000

struct ancestry {
	char *ref;	  /* REF as given */
	char *merge_base; /* its full sha */
	int64_t *runs;	  /* stored runs along the ancestry, newest commit first,
			   * newest run first within a commit */
	size_t *back;	  /* per run: commits between it and the merge base */
	size_t nruns;
	size_t ncommits; /* commits looked at */
	char *note;	 /* which commit was chosen and how far back, for the
			  * output: "merge base 1a2b3c4d5e6f of HEAD and
			  * 'origin/main'; run 41 (commit 9f8e7d6c5b4a), 2
			  * commits back on its first-parent ancestry" */
};

/*
 * The stored runs of base:REF in st, up to want (>= 1) of them.  Errors
 * (each one line; ERR_USAGE, so exit 2): not in a git work tree (or no
 * git), REF unknown to git (or not a commit), no merge base of HEAD and
 * REF, no stored run on the ancestry (ERR_NOTFOUND); the store's.
 */
int ancestry_runs(struct ancestry *out, struct store *st, const char *ref, size_t want);

void ancestry_release(struct ancestry *a);

#endif
