/*
 * identity.h - the commit and branch a run is stored under.
 *
 * identity_resolve() decides them once per ingest: the command line first
 * (--commit, --branch), then the CI's variables (GitHub Actions, GitLab CI,
 * Buildkite, Jenkins), then, with no CI variable set at all, the git work
 * tree the command runs in.  git runs through git_run() (src/util/git.c),
 * which lets no command named by the repository's configuration run (no
 * hook, fsmonitor, pager, lazy fetch or transport), without a shell, its
 * stderr discarded and its time and output bounded; a missing git, a
 * directory that is no repository or a detached HEAD only leave the value
 * unset.
 *
 * A --commit that is a full 40/64-digit hex sha is kept, lowercased.  Any
 * other value is resolved with "git rev-parse --verify REF^{commit}" (so
 * HEAD, main, v1.2, an abbreviated sha become the full sha); a value that
 * git cannot resolve is kept as given when it looks like a (possibly
 * abbreviated or foreign) sha, 4 to 64 hex digits (lowercased), and is an
 * ERR_USAGE error otherwise.  A CI's commit variable that is none of these
 * is dropped and named in ignored_from / ignored_value (the caller warns).
 *
 * Ownership: struct identity owns its strings (identity_release()).
 */
#ifndef SCOPEDB_IDENTITY_H
#define SCOPEDB_IDENTITY_H

#include <stddef.h>

struct identity {
	char *commit;		 /* NULL: unknown */
	char *branch;		 /* NULL: unknown */
	const char *commit_from; /* "--commit", a variable's name, "git" or NULL */
	const char *branch_from; /* "--branch", a variable's name, "git" or NULL */
	/* A CI's commit variable whose value is no commit (GITHUB_SHA=zzz):
	 * its name and value, dropped (commit stays unset); else NULL. */
	const char *ignored_from;
	char *ignored_value;
	/* No CI and no commit from git because git could not read the
	 * repository (a damaged config, say): git's cause; else NULL. */
	char *git_error;
};

void identity_init(struct identity *id);
void identity_release(struct identity *id);

/* Fill id from commit_opt / branch_opt (the command line, NULL when not
 * given), the CI variables and git.  0, ERR_NOMEM, or ERR_USAGE for a
 * --commit that is neither a sha nor a commit of the current repository. */
int identity_resolve(struct identity *id, const char *commit_opt, const char *branch_opt);

/* The CI variables alone: commit and branch into id (as given; Buildkite's
 * and Jenkins' branch cleaned by identity_branch_clean()).  1 when any CI variable is set (even
 * one that gives neither), 0 when none is, ERR_NOMEM. */
int identity_from_env(struct identity *id);

/* A branch as Jenkins or Buildkite may give it, without "refs/heads/" or
 * "origin/" (GIT_BRANCH=origin/main is main): a pointer into name. */
const char *identity_branch_clean(const char *name);

/* 1 when s is min..max hex digits. */
int identity_is_hex(const char *s, size_t min, size_t max);

/* The commit variable of the CI whose branch variable is var
 * ("GITHUB_REF_NAME" -> "GITHUB_SHA"), or NULL when var is none. */
const char *identity_commit_var(const char *var);

#endif
