/*
 * git.c - running git in a repository that may be hostile (see git.h).
 *
 * Why each layer: git 2.39 (Debian 12) reads a missing object of a partial
 * clone (extensions.partialClone, remote.X.promisor) by starting "git
 * fetch X", whose transport runs remote.X.uploadpack through a shell; a
 * repository's own protocol.X.allow=always beats "-c protocol.allow=never"
 * (the more specific key wins), and GIT_NO_LAZY_FETCH only exists since
 * 2.39.4.  So no single switch is enough on every git: the lazy fetch is
 * stopped three times over (GIT_NO_LAZY_FETCH; no "git" to start, PATH and
 * GIT_EXEC_PATH being /dev/null; no transport, GIT_ALLOW_PROTOCOL allowing
 * only a name no URL scheme can have), and a command that a configuration
 * key names, had our read-only commands any use for it, would find no
 * program by name and is overridden on the command line for the keys they
 * may read (the index's fsmonitor, hooks, pager, credential prompts).
 * tests/e2e_identity.sh builds such repositories, with every key, and
 * checks that nothing ran, also with a git that ignores one layer.
 */
#define _GNU_SOURCE /* pipe2() */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "scopedb/err.h"
#include "scopedb/util.h"
#include "util/git.h"

extern char **environ;

/* The commands scopedb may run: read-only plumbing, none of which writes
 * the repository, reads the work tree's files or talks to a remote. */
static const char *const git_commands[] = {"rev-parse", "symbolic-ref", "merge-base", "rev-list"};

/* Global options, then "-c" overrides of the configuration keys the
 * commands above may read that name a command or let one run; a -c value
 * beats every configuration file (system, global, the repository's). */
static const char *const git_overrides[] = {
    "--no-pager",	    /* never a pager (GIT_PAGER=cat too) */
    "--no-replace-objects", /* the real objects, not refs/replace/ */
    "--no-optional-locks",  /* never write the index (or run its hooks) */
    "-c",
    "core.fsmonitor=false", /* reading the index (":path") runs no fsmonitor hook */
    "-c",
    "core.hooksPath=/dev/null", /* no hook (none of these commands runs one) */
    "-c",
    "core.pager=cat",
    "-c",
    "credential.helper=", /* the empty value clears the list of helpers */
    "-c",
    "core.askPass=",
    "-c",
    "protocol.allow=never", /* (a repository's protocol.X.allow still wins:
				   hence GIT_ALLOW_PROTOCOL) */
};

/* The variables git gets from us. */
static const char *const git_env_fixed[] = {
    "PATH=/dev/null",	       /* no program found by name: no "git fetch", no "sh -c touch" */
    "GIT_EXEC_PATH=/dev/null", /* (git puts its exec path before PATH) */
    "GIT_ALLOW_PROTOCOL=no_transport", /* no URL scheme has '_': none allowed */
    "GIT_NO_LAZY_FETCH=1",	       /* git >= 2.39.4: never fetch a missing object */
    "GIT_TERMINAL_PROMPT=0",
    "GIT_NO_REPLACE_OBJECTS=1",
    "GIT_OPTIONAL_LOCKS=0",
    "GIT_PAGER=cat",
    "PAGER=cat",
    "LC_ALL=C",
};

/* The caller's variables git keeps: where the repository is, and the
 * user's own configuration (trusted: it is theirs, not the repository's;
 * it holds safe.directory).  Everything else (GIT_SSH_COMMAND,
 * GIT_ASKPASS, GIT_CONFIG_PARAMETERS, GIT_TRACE...) is dropped. */
static const char *const git_env_kept[] = {
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_COMMON_DIR",
    "GIT_CEILING_DIRECTORIES",
    "GIT_DISCOVERY_ACROSS_FILESYSTEM",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_NAMESPACE",
    "HOME",
    "XDG_CONFIG_HOME",
    "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_SYSTEM",
    "GIT_CONFIG_NOSYSTEM",
};

#define GIT_NFIXED (sizeof(git_env_fixed) / sizeof(git_env_fixed[0]))
#define GIT_NKEPT (sizeof(git_env_kept) / sizeof(git_env_kept[0]))
#define GIT_NOVERRIDES (sizeof(git_overrides) / sizeof(git_overrides[0]))
/* At most this many options and revisions per command. */
#define GIT_MAX_ARGS 16
/* The longest revision accepted. */
#define GIT_MAX_REV 1024

int git_check_rev(const char *rev)
{
	size_t i, n = strlen(rev);

	if (!n)
		return err_set(ERR_USAGE, "invalid revision '': empty");
	if (rev[0] == '-')
		return err_set(ERR_USAGE, "invalid revision '%s': it would be an option of git",
			       rev);
	if (n > GIT_MAX_REV)
		return err_set(ERR_USAGE, "invalid revision '%.40s...': longer than %d bytes", rev,
			       GIT_MAX_REV);
	for (i = 0; i < n; i++)
		if ((unsigned char)rev[i] < 0x20 || rev[i] == 0x7f)
			return err_set(ERR_USAGE,
				       "invalid revision '%s': it holds a control character", rev);
	return 0;
}

char *git_first_line(char *text)
{
	text[strcspn(text, "\r\n")] = '\0';
	return text;
}

static long git_ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (long)(t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

/*
 * The git to run: the first executable regular file "git" in an absolute
 * entry of PATH (default "/usr/bin:/bin" when PATH is unset), into path.
 * Empty and relative entries are skipped: they name the current directory,
 * where a profile's folder may hold anything.  1 when there is none.
 */
static int git_find(char *path, size_t size)
{
	const char *p = getenv("PATH"), *f;
	struct stat sb;
	size_t len;

	if (!p)
		p = "/usr/bin:/bin";
	while ((f = util_field(&p, ':', &len))) {
		if (!len || f[0] != '/' || len + sizeof("/git") > size)
			continue;
		memcpy(path, f, len);
		memcpy(path + len, "/git", sizeof("/git"));
		if (!stat(path, &sb) && S_ISREG(sb.st_mode) && !access(path, X_OK))
			return 0;
	}
	return 1;
}

/* The environment of git (see git_env_fixed, git_env_kept) into env
 * (GIT_NFIXED + GIT_NKEPT + 1 entries): pointers into environ and the
 * static strings. */
static void git_env(const char **env)
{
	size_t n = 0, i, k;

	for (i = 0; i < GIT_NFIXED; i++)
		env[n++] = git_env_fixed[i];
	for (k = 0; k < GIT_NKEPT; k++) {
		size_t len = strlen(git_env_kept[k]);

		for (i = 0; environ && environ[i]; i++)
			if (!strncmp(environ[i], git_env_kept[k], len) && environ[i][len] == '=') {
				env[n++] = environ[i];
				break;
			}
	}
	env[n] = NULL;
}

/* Read fd to its end into out, at most max bytes, before t0 + timeout_ms.
 * GIT_OK at the end of the output, else GIT_TIMEOUT or GIT_TOO_LONG
 * (GIT_FAILED on a read error); ERR_NOMEM. */
static int git_read(struct buf *out, enum git_status *st, int fd, const struct timespec *t0,
		    unsigned timeout_ms, size_t max)
{
	char tmp[4096];
	size_t got = 0;

	for (;;) {
		struct pollfd p = {fd, POLLIN, 0};
		long left = (long)timeout_ms - git_ms_since(t0);
		ssize_t n;
		int r;

		*st = GIT_TIMEOUT;
		if (left <= 0)
			return 0;
		r = poll(&p, 1, (int)left);
		if (r < 0 && errno == EINTR)
			continue;
		if (r == 0)
			return 0;
		*st = GIT_FAILED;
		if (r < 0)
			return 0;
		n = read(fd, tmp, sizeof(tmp));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return 0;
		*st = GIT_OK;
		if (n == 0)
			return 0;
		got += (size_t)n;
		if (got > max) {
			*st = GIT_TOO_LONG;
			return 0;
		}
		if (buf_add(out, tmp, (size_t)n))
			return err_nomem();
	}
}

/* Reap git's group leader pid, waiting at most until t0 + timeout_ms;
 * then the group is killed and reaped.  The exit status into *status; 1
 * when it had to be killed. */
static int git_reap(pid_t pid, int *status, const struct timespec *t0, unsigned timeout_ms)
{
	const struct timespec tick = {0, 5 * 1000 * 1000};
	pid_t r;

	for (;;) {
		r = waitpid(pid, status, WNOHANG);
		if (r == pid)
			return 0;
		if (r < 0 && errno != EINTR)
			return 1;
		if (git_ms_since(t0) >= (long)timeout_ms)
			break;
		nanosleep(&tick, NULL);
	}
	kill(-pid, SIGKILL);
	while (waitpid(pid, status, 0) < 0 && errno == EINTR)
		;
	return 1;
}

/* The argument vector "git OVERRIDES... CMD OPTS... REVS..." into argv
 * (size n); 0, or ERR_GENERIC / ERR_USAGE (message set). */
static int git_argv(const char **argv, size_t n, const char *cmd, const char *const *opts,
		    const char *const *revs)
{
	size_t i, k = 0, c;
	int rc;

	for (c = 0; c < sizeof(git_commands) / sizeof(git_commands[0]); c++)
		if (!strcmp(cmd, git_commands[c]))
			break;
	if (c == sizeof(git_commands) / sizeof(git_commands[0]))
		return err_set(ERR_GENERIC, "git %s is not a command scopedb may run", cmd);
	argv[k++] = "git";
	for (i = 0; i < GIT_NOVERRIDES; i++)
		argv[k++] = git_overrides[i];
	argv[k++] = cmd;
	for (i = 0; opts && opts[i]; i++) {
		if (k + 1 >= n)
			return err_set(ERR_GENERIC, "too many arguments for git %s", cmd);
		argv[k++] = opts[i];
	}
	for (i = 0; revs && revs[i]; i++) {
		rc = git_check_rev(revs[i]);
		if (rc)
			return rc;
		if (k + 1 >= n)
			return err_set(ERR_GENERIC, "too many arguments for git %s", cmd);
		argv[k++] = revs[i];
	}
	argv[k] = NULL;
	return 0;
}

/* The first line of the standard error of the last git that failed
 * (git_last_error()). */
static char git_err[256];

const char *git_last_error(void)
{
	return git_err;
}

/* The first line of what git wrote to fd (a memfd; at most the size of
 * git_err), into git_err. */
static void git_keep_error(int fd)
{
	ssize_t n = fd >= 0 ? pread(fd, git_err, sizeof(git_err) - 1, 0) : -1;
	char *nl;

	git_err[n > 0 ? n : 0] = '\0';
	/* a first line that ends in ':' says what with the second one
	 * ("unknown repository extension found:\n\tfoo"): joined */
	nl = strchr(git_err, '\n');
	if (nl && nl > git_err && nl[-1] == ':' && nl[1] && nl[1] != '\n') {
		*nl = ' ';
		while (nl[1] == '\t' || nl[1] == ' ')
			memmove(nl + 1, nl + 2, strlen(nl + 2) + 1);
	}
	git_first_line(git_err);
}

int git_run(struct buf *out, enum git_status *status, const char *cmd, const char *const *opts,
	    const char *const *revs, const struct git_limits *lim)
{
	const char *argv[1 + GIT_NOVERRIDES + 1 + 2 * GIT_MAX_ARGS + 1];
	const char *env[GIT_NFIXED + GIT_NKEPT + 1];
	unsigned timeout_ms = lim && lim->timeout_ms ? lim->timeout_ms : GIT_TIMEOUT_MS;
	size_t max = lim && lim->max_out ? lim->max_out : GIT_MAX_OUT, start = out->len;
	char git[4096];
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	struct timespec t0;
	int fds[2] = {-1, -1}, fa_ok = 0, attr_ok = 0, wstatus = 0, rc, killed, efd = -1;
	pid_t pid = -1;

	*status = GIT_NOT_FOUND;
	git_err[0] = '\0';
	rc = git_argv(argv, sizeof(argv) / sizeof(argv[0]), cmd, opts, revs);
	if (rc)
		return rc;
	if (git_find(git, sizeof(git)))
		return 0;
	git_env(env);
	if (pipe2(fds, O_CLOEXEC))
		goto out;
	if (posix_spawn_file_actions_init(&fa))
		goto out;
	fa_ok = 1;
	/* its standard error into memory, which never fills as a pipe
	 * would (a message for git_last_error()); /dev/null without it */
	efd = memfd_create("git-stderr", MFD_CLOEXEC);
	if (posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0) ||
	    posix_spawn_file_actions_adddup2(&fa, fds[1], 1) ||
	    (efd >= 0 ? posix_spawn_file_actions_adddup2(&fa, efd, 2)
		      : posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0)))
		goto out;
	if (posix_spawnattr_init(&attr))
		goto out;
	attr_ok = 1;
	/* a group of its own: a timeout kills git and whatever it started */
	if (posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP) ||
	    posix_spawnattr_setpgroup(&attr, 0))
		goto out;
	if (posix_spawn(&pid, git, &fa, &attr, (char *const *)argv, (char *const *)env)) {
		pid = -1;
		goto out;
	}
	close(fds[1]);
	fds[1] = -1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = git_read(out, status, fds[0], &t0, timeout_ms, max);
	if (rc || *status != GIT_OK)
		kill(-pid, SIGKILL);
	killed = git_reap(pid, &wstatus, &t0, timeout_ms);
	pid = -1;
	if (!rc && *status == GIT_OK) {
		if (killed)
			*status = GIT_TIMEOUT;
		else if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0)
			*status = GIT_FAILED;
	}
	if (!rc && *status == GIT_OK && buf_puts(out, ""))
		rc = err_nomem();
	if (!rc && *status == GIT_FAILED)
		git_keep_error(efd);
out:
	if (pid > 0) {
		kill(-pid, SIGKILL);
		while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR)
			;
	}
	if (rc || *status != GIT_OK)
		out->len = start;
	if (out->data)
		out->data[out->len] = '\0';
	if (attr_ok)
		posix_spawnattr_destroy(&attr);
	if (fa_ok)
		posix_spawn_file_actions_destroy(&fa);
	if (fds[0] >= 0)
		close(fds[0]);
	if (fds[1] >= 0)
		close(fds[1]);
	if (efd >= 0)
		close(efd);
	return rc;
}
