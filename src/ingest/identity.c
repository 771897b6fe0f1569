/*
 * identity.c - the commit and branch of a run being ingested (identity.h).
 *
 * Sources, first found wins: the command line; the CI's variables (GitHub
 * Actions, GitLab CI, Buildkite, Jenkins/generic, in that order); with no
 * CI variable set at all, the git work tree of the current directory.  The
 * branch of a pull/merge request is its source branch (GITHUB_HEAD_REF,
 * CI_MERGE_REQUEST_SOURCE_BRANCH_NAME), not the merge ref the CI checks
 * out.  git runs without a shell, with stdin and stderr on /dev/null, in a
 * process group of its own (its children die with it), and the whole group
 * is killed when it takes longer than IDENTITY_GIT_TIMEOUT_MS, including
 * the wait for its exit.  git is looked up by ourselves over the absolute
 * entries of PATH only: an empty or relative entry (the current directory,
 * the profile's folder) would run a git planted there.  A commit given by
 * the user or a CI that is a sha is stored lowercased, as selectors match.
 */
#define _GNU_SOURCE /* pipe2() */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "scopedb/err.h"
#include "scopedb/identity.h"
#include "scopedb/util.h"

extern char **environ;

/* How long one git command may take (a huge repository on a slow disk). */
#define IDENTITY_GIT_TIMEOUT_MS 10000
/* Longest line kept from git's stdout (a sha or a branch name). */
#define IDENTITY_GIT_MAX 4096

/* The CI variables, per CI: commit, then branches by preference. */
static const char *const identity_commit_vars[] = {
    "GITHUB_SHA",
    "CI_COMMIT_SHA",
    "BUILDKITE_COMMIT",
    "GIT_COMMIT",
};
/* clean: the CI may give a full ref or a remote's name (identity_branch_clean);
 * GitHub and GitLab give the short name. */
static const struct {
	const char *name;
	int clean;
} identity_branch_vars[] = {
    {"GITHUB_HEAD_REF", 0}, /* pull requests: the head branch (REF_NAME is 42/merge) */
    {"GITHUB_REF_NAME", 0},    {"CI_MERGE_REQUEST_SOURCE_BRANCH_NAME", 0},
    {"CI_COMMIT_REF_NAME", 0}, {"BUILDKITE_BRANCH", 1},
    {"GIT_BRANCH", 1}, /* Jenkins: origin/main */
};

void identity_init(struct identity *id)
{
	memset(id, 0, sizeof(*id));
}

void identity_release(struct identity *id)
{
	free(id->commit);
	free(id->branch);
	free(id->ignored_value);
	identity_init(id);
}

int identity_is_hex(const char *s, size_t min, size_t max)
{
	size_t n = strlen(s), i;

	if (n < min || n > max)
		return 0;
	for (i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f') ||
		      (s[i] >= 'A' && s[i] <= 'F')))
			return 0;
	return 1;
}

const char *identity_branch_clean(const char *name)
{
	if (strncmp(name, "refs/heads/", 11) == 0)
		name += 11;
	else if (strncmp(name, "origin/", 7) == 0)
		name += 7;
	return name;
}

static const char *identity_getenv(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? v : NULL;
}

int identity_from_env(struct identity *id)
{
	size_t i;
	int any = 0;

	for (i = 0; i < sizeof(identity_commit_vars) / sizeof(identity_commit_vars[0]); i++) {
		const char *v = identity_getenv(identity_commit_vars[i]);

		if (!v)
			continue;
		any = 1;
		if (!id->commit) {
			id->commit = util_strdup(v);
			if (!id->commit)
				return ERR_NOMEM;
			id->commit_from = identity_commit_vars[i];
		}
	}
	for (i = 0; i < sizeof(identity_branch_vars) / sizeof(identity_branch_vars[0]); i++) {
		const char *v = identity_getenv(identity_branch_vars[i].name);

		if (!v)
			continue;
		any = 1;
		if (identity_branch_vars[i].clean)
			v = identity_branch_clean(v);
		if (!id->branch && *v) {
			id->branch = util_strdup(v);
			if (!id->branch)
				return ERR_NOMEM;
			id->branch_from = identity_branch_vars[i].name;
		}
	}
	return any;
}

static long identity_ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long)(t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

/* Read fd to its end into buf (at most IDENTITY_GIT_MAX bytes kept, the
 * rest drained) before the deadline; 0 at end of file, 1 on timeout or a
 * read error. */
static int identity_read(int fd, char *buf, size_t *len, const struct timespec *t0)
{
	char tmp[512];

	for (;;) {
		struct pollfd p = {fd, POLLIN, 0};
		long left = IDENTITY_GIT_TIMEOUT_MS - identity_ms_since(t0);
		ssize_t n;
		int r;

		if (left <= 0)
			return 1;
		r = poll(&p, 1, (int)left);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return 1;
		n = read(fd, tmp, sizeof(tmp));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return 1;
		if (n == 0)
			return 0;
		if (*len < IDENTITY_GIT_MAX) {
			size_t k = (size_t)n < IDENTITY_GIT_MAX - *len ? (size_t)n
								       : IDENTITY_GIT_MAX - *len;

			memcpy(buf + *len, tmp, k);
			*len += k;
		}
	}
}

/*
 * The git to run: the first executable regular file "git" in an absolute
 * entry of PATH (default "/usr/bin:/bin" when PATH is unset), into path.
 * Empty and relative entries are skipped: they name the current directory,
 * where a profile's folder may hold anything.  1 when there is none.
 */
static int identity_find_git(char *path, size_t size)
{
	const char *p = getenv("PATH"), *end;
	struct stat sb;

	if (!p)
		p = "/usr/bin:/bin";
	for (; *p; p = *end ? end + 1 : end) {
		size_t len;

		end = strchr(p, ':');
		if (!end)
			end = p + strlen(p);
		len = (size_t)(end - p);
		if (!len || p[0] != '/' || len + sizeof("/git") > size)
			continue;
		memcpy(path, p, len);
		memcpy(path + len, "/git", sizeof("/git"));
		if (!stat(path, &sb) && S_ISREG(sb.st_mode) && !access(path, X_OK))
			return 0;
	}
	return 1;
}

/* Reap git's group leader pid, waiting at most until the deadline (t0 +
 * the timeout); then the group is killed and reaped.  The exit status
 * into *status; 1 when it had to be killed. */
static int identity_reap(pid_t pid, int *status, const struct timespec *t0)
{
	const struct timespec tick = {0, 5 * 1000 * 1000};
	pid_t r;

	for (;;) {
		r = waitpid(pid, status, WNOHANG);
		if (r == pid)
			return 0;
		if (r < 0 && errno != EINTR)
			return 1;
		if (identity_ms_since(t0) >= IDENTITY_GIT_TIMEOUT_MS)
			break;
		nanosleep(&tick, NULL);
	}
	kill(-pid, SIGKILL);
	while (waitpid(pid, status, 0) < 0 && errno == EINTR)
		;
	return 1;
}

int identity_git(char **out, const char *const *args)
{
	char *argv[16], buf[IDENTITY_GIT_MAX + 1], git[4096];
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	struct timespec t0;
	size_t n = 0, i;
	int fds[2] = {-1, -1}, fa_ok = 0, attr_ok = 0, status = 0, rc = 1, failed;
	pid_t pid = -1;

	*out = NULL;
	if (identity_find_git(git, sizeof(git)))
		goto out;
	argv[0] = (char *)"git";
	for (i = 0; args[i] && i + 2 < sizeof(argv) / sizeof(argv[0]); i++)
		argv[i + 1] = (char *)args[i];
	argv[i + 1] = NULL;
	if (pipe2(fds, O_CLOEXEC))
		goto out;
	if (posix_spawn_file_actions_init(&fa))
		goto out;
	fa_ok = 1;
	if (posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0) ||
	    posix_spawn_file_actions_adddup2(&fa, fds[1], 1) ||
	    posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0))
		goto out;
	if (posix_spawnattr_init(&attr))
		goto out;
	attr_ok = 1;
	/* a group of its own: a timeout kills git and whatever it started */
	if (posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP) ||
	    posix_spawnattr_setpgroup(&attr, 0))
		goto out;
	if (posix_spawn(&pid, git, &fa, &attr, argv, environ)) {
		pid = -1;
		goto out;
	}
	close(fds[1]);
	fds[1] = -1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	failed = identity_read(fds[0], buf, &n, &t0);
	if (failed)
		kill(-pid, SIGKILL);
	failed |= identity_reap(pid, &status, &t0);
	pid = -1;
	if (failed || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		goto out;
	buf[n] = '\0';
	buf[strcspn(buf, "\r\n")] = '\0';
	if (!buf[0])
		goto out;
	*out = util_strdup(buf);
	rc = *out ? 0 : ERR_NOMEM;
out:
	if (pid > 0) {
		kill(-pid, SIGKILL);
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	}
	if (attr_ok)
		posix_spawnattr_destroy(&attr);
	if (fa_ok)
		posix_spawn_file_actions_destroy(&fa);
	if (fds[0] >= 0)
		close(fds[0]);
	if (fds[1] >= 0)
		close(fds[1]);
	return rc;
}

/* *out = the full sha of the commit ref names in the current repository;
 * 1 when git cannot say (not a commit, no repository, no git). */
static int identity_git_commit(char **out, const char *ref)
{
	const char *args[] = {"rev-parse", "--verify", "-q", NULL, NULL};
	struct buf b = BUF_INIT;
	int rc;

	*out = NULL;
	if (ref[0] == '-') /* never an option of git */
		return 1;
	if (buf_printf(&b, "%s^{commit}", ref)) {
		buf_release(&b);
		return err_nomem();
	}
	args[3] = b.data;
	rc = identity_git(out, args);
	buf_release(&b);
	return rc;
}

/* *out = a lowercased copy of the hex sha value (selectors match
 * lowercase; git prints lowercase). */
static int identity_hex_lower(char **out, const char *value)
{
	char *p;

	*out = util_strdup(value);
	if (!*out)
		return ERR_NOMEM;
	for (p = *out; *p; p++)
		if (*p >= 'A' && *p <= 'F')
			*p = (char)(*p - 'A' + 'a');
	return 0;
}

/*
 * A commit given by the user or a CI: a full sha as is (lowercased), else
 * what git resolves it to, else (4-64 hex digits) as is (lowercased).  1
 * when it is none of these (*out NULL).
 */
static int identity_commit_value(char **out, const char *value)
{
	int rc;

	*out = NULL;
	if (identity_is_hex(value, 40, 40) || identity_is_hex(value, 64, 64))
		return identity_hex_lower(out, value);
	rc = identity_git_commit(out, value);
	if (rc <= 0)
		return rc;
	if (!identity_is_hex(value, 4, 64))
		return 1;
	return identity_hex_lower(out, value);
}

/* The current branch of the work tree, when HEAD is one. */
static int identity_git_branch(char **out)
{
	static const char *const args[] = {"symbolic-ref", "--short", "-q", "HEAD", NULL};

	return identity_git(out, args);
}

int identity_resolve(struct identity *id, const char *commit_opt, const char *branch_opt)
{
	struct identity env;
	char *head = NULL, *v = NULL;
	int ci, rc;

	identity_init(&env);
	rc = identity_from_env(&env);
	if (rc < 0)
		goto out;
	ci = rc;
	rc = 0;
	if (commit_opt) {
		rc = identity_commit_value(&id->commit, commit_opt);
		if (rc == 1)
			rc = err_set(ERR_USAGE,
				     "cannot resolve --commit '%s': not a commit in this git "
				     "repository",
				     commit_opt);
		if (rc)
			goto out;
		id->commit_from = "--commit";
	} else if (env.commit) {
		/* Buildkite may say HEAD: resolve it; what cannot be is
		 * dropped, and said (ignored_from, ignored_value) */
		rc = identity_commit_value(&id->commit, env.commit);
		if (rc < 0)
			goto out;
		if (rc == 1) {
			id->ignored_from = env.commit_from;
			id->ignored_value = env.commit;
			env.commit = NULL;
		}
		rc = 0;
		id->commit_from = id->commit ? env.commit_from : NULL;
	}
	if (branch_opt) {
		id->branch = util_strdup(branch_opt);
		if (!id->branch) {
			rc = ERR_NOMEM;
			goto out;
		}
		id->branch_from = "--branch";
	} else if (env.branch) {
		id->branch = env.branch;
		id->branch_from = env.branch_from;
		env.branch = NULL;
	}
	if (ci)
		goto out;
	/* No CI: the work tree says, the branch only for a commit at HEAD. */
	if (!id->commit || !id->branch) {
		rc = identity_git_commit(&head, "HEAD");
		if (rc < 0)
			goto out;
		rc = 0;
	}
	if (!head)
		goto out;
	if (!id->commit) {
		id->commit = head;
		id->commit_from = "git";
		head = NULL;
	} else if (strcmp(id->commit, head) != 0) {
		goto out;
	}
	if (!id->branch) {
		rc = identity_git_branch(&v);
		if (rc < 0)
			goto out;
		rc = 0;
		id->branch = v;
		id->branch_from = v ? "git" : NULL;
	}
out:
	free(head);
	identity_release(&env);
	if (rc)
		identity_release(id);
	return rc;
}
