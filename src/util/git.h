/*
 * git.h - running git in a repository that may be hostile (issue 29).
 *
 * A work tree a profile sits in may come from anyone: a pull request, a
 * tarball, a shared scratch directory.  Its .git/config can name commands
 * (core.fsmonitor, hooks, pagers, remote.*.uploadpack run by a lazy fetch
 * of a partial clone, core.sshCommand, credential helpers...).  git_run()
 * is the only way scopedb runs git, and none of them can run:
 *
 *   - only read-only plumbing commands (git_commands in git.c: rev-parse,
 *     symbolic-ref, merge-base, rev-list), with options given by the
 *     caller's code and revisions checked by git_check_rev() (never an
 *     option: no leading '-');
 *   - "-c" overrides, which beat every configuration file, for the keys
 *     that name a command or let one run (git.c: git_overrides);
 *   - an environment of our own, not the caller's: PATH and GIT_EXEC_PATH
 *     are /dev/null, so git can start no other program by name (not even
 *     "git fetch" for a lazy fetch, nor a shell's "touch"); no transport
 *     is allowed (GIT_ALLOW_PROTOCOL, which beats any protocol.*.allow of
 *     the repository), no lazy fetch (GIT_NO_LAZY_FETCH, git >= 2.39.4),
 *     no terminal prompt, no pager, no replace refs, no optional locks;
 *     of the caller's variables only those that locate the repository
 *     (GIT_DIR, GIT_WORK_TREE, GIT_CEILING_DIRECTORIES...) and the user's
 *     own configuration (HOME, XDG_CONFIG_HOME, GIT_CONFIG_GLOBAL...) are
 *     kept: the user's files are trusted, the repository's are not;
 *   - git itself found by us over the absolute entries of PATH (an empty
 *     or relative entry, the current directory, is skipped), started
 *     without a shell (posix_spawn), stdin and stderr on /dev/null, in a
 *     process group of its own that is killed whole when it outlives its
 *     time limit, its output bounded.
 *
 * Ownership: git_run() appends to the caller's buffer.
 */
#ifndef SCOPEDB_GIT_H
#define SCOPEDB_GIT_H

#include <stddef.h>

#include "scopedb/util.h"

/* How one git_run() ended (when it returned 0). */
enum git_status {
	GIT_OK = 0,    /* exited 0: its output is in out */
	GIT_NOT_FOUND, /* no git in an absolute PATH entry, or it could not start */
	GIT_FAILED,    /* exited non-zero or was killed: not a repository, no such revision */
	GIT_TIMEOUT,   /* outlived the time limit (its process group was killed) */
	GIT_TOO_LONG,  /* wrote more than the output limit (killed) */
};

/* Limits of one command: 0 takes the default (GIT_TIMEOUT_MS, GIT_MAX_OUT). */
struct git_limits {
	unsigned timeout_ms;
	size_t max_out;
};

/* A huge repository on a slow disk still answers in this time. */
#define GIT_TIMEOUT_MS 10000
/* Default output limit: a few lines (shas, a branch name). */
#define GIT_MAX_OUT 4096

/*
 * Run "git CMD OPTS... REVS..." in the current directory as described
 * above.  cmd must be one of the allowed plumbing commands; opts (NULL-
 * terminated, may be NULL) are options written in scopedb's code; revs
 * (NULL-terminated, may be NULL) are revisions, each checked by
 * git_check_rev() first.  *status says how git ended; on GIT_OK its whole
 * standard output is appended to out (NUL-terminated).  Returns 0 (look
 * at *status), ERR_USAGE for a refused revision (message: "invalid
 * revision '-x': ..."), ERR_NOMEM; ERR_GENERIC for a command that is not
 * allowed (a bug of the caller).
 */
int git_run(struct buf *out, enum git_status *status, const char *cmd, const char *const *opts,
	    const char *const *revs, const struct git_limits *lim);

/*
 * 0 when rev may be handed to git as a revision: not empty, not starting
 * with '-' (it would be an option), no control character, at most 1024
 * bytes.  Else ERR_USAGE: "invalid revision 'REV': ...".
 */
int git_check_rev(const char *rev);

/* The first line of text (up to its first line break), in place. */
char *git_first_line(char *text);

/* The first line git wrote to its standard error in the last git_run()
 * that ended GIT_FAILED ("fatal: bad config line 1 in file .git/config"),
 * unescaped, at most 255 bytes; "" for any other end.  Kept until the next
 * git_run(). */
const char *git_last_error(void);

#endif
