/*
 * test_git.c - util/git.h, the only way scopedb runs git (issue 29):
 * revisions that would be options refused, commands outside the read-only
 * list refused, git looked up over absolute PATH entries only, the
 * environment git gets (PATH and GIT_EXEC_PATH on /dev/null, no transport,
 * no lazy fetch, the caller's GIT_SSH_COMMAND or GIT_CONFIG_PARAMETERS
 * dropped, GIT_CEILING_DIRECTORIES kept) and its -c overrides, seen by a
 * fake git; the output limit and the timeout killing git's whole process
 * group; and the real git in a partial clone whose HEAD commit is missing
 * and whose remote's uploadpack would create a file, and in a repository
 * whose core.fsmonitor would: nothing is created (tests/e2e_identity.sh
 * tries every configuration key through the binary).  Everything runs in
 * a temporary directory under GIT_CEILING_DIRECTORIES.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "scopedb/err.h"
#include "scopedb/util.h"
#include "testutil.h"
#include "util/git.h"

static char top[4096];
static char *saved_path;

/* Run a shell command line in the temporary directory (set-up only). */
static void sh(const char *cmd)
{
	char line[16384 + 4096];

	snprintf(line, sizeof(line), "cd '%s' && (%s) >/dev/null 2>&1", top, cmd);
	assert_int_equal(system(line), 0);
}

static int setup(void **state)
{
	const char *p = getenv("PATH");

	(void)state;
	snprintf(top, sizeof(top), "%s", tu_git_sandbox());
	saved_path = strdup(p ? p : "/usr/bin:/bin");
	return chdir(top);
}

static int teardown(void **state)
{
	(void)state;
	free(saved_path);
	return 0;
}

/* Write an executable fake git into top/dir running body; PATH = that
 * directory then the usual ones. */
static void fake_git(const char *dir, const char *body)
{
	char path[8192];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", top, dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%s/git", top, dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "#!/bin/sh\n%s\n", body);
	fclose(f);
	assert_int_equal(chmod(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/%s:%s", top, dir, saved_path);
	setenv("PATH", path, 1);
}

static void restore_path(void)
{
	setenv("PATH", saved_path, 1);
}

static void test_check_rev(void **state)
{
	char longer[1100];

	(void)state;
	assert_int_equal(git_check_rev("HEAD"), 0);
	assert_int_equal(git_check_rev("v1.2^{commit}"), 0);
	assert_int_equal(git_check_rev("HEAD@{1 day ago}"), 0);
	assert_int_equal(git_check_rev("^main"), 0);
	err_clear();
	assert_int_equal(git_check_rev("--upload-pack=touch x"), ERR_USAGE);
	assert_string_equal(
	    err_msg(), "invalid revision '--upload-pack=touch x': it would be an option of git");
	assert_int_equal(git_check_rev("-x"), ERR_USAGE);
	assert_int_equal(git_check_rev(""), ERR_USAGE);
	assert_int_equal(git_check_rev("a\nb"), ERR_USAGE);
	assert_int_equal(git_check_rev("a\x7f"), ERR_USAGE);
	memset(longer, 'a', sizeof(longer) - 1);
	longer[sizeof(longer) - 1] = '\0';
	assert_int_equal(git_check_rev(longer), ERR_USAGE);
}

/* Only the read-only commands run; a refused revision runs nothing. */
static void test_refused(void **state)
{
	static const char *const bad_revs[] = {"HEAD", "--output=x", NULL};
	struct buf b = BUF_INIT;
	enum git_status st;

	(void)state;
	fake_git("any", "touch ran");
	assert_int_equal(git_run(&b, &st, "fetch", NULL, NULL, NULL), ERR_GENERIC);
	assert_int_equal(git_run(&b, &st, "config", NULL, NULL, NULL), ERR_GENERIC);
	assert_int_equal(git_run(&b, &st, "log", NULL, NULL, NULL), ERR_GENERIC);
	err_clear();
	assert_int_equal(git_run(&b, &st, "rev-list", NULL, bad_revs, NULL), ERR_USAGE);
	assert_string_equal(err_msg(),
			    "invalid revision '--output=x': it would be an option of git");
	assert_int_not_equal(access("ran", F_OK), 0);
	restore_path();
	buf_release(&b);
}

/* git is found over absolute PATH entries only: a git in the current
 * directory (an empty or "." entry) or a relative one is never run. */
static void test_path(void **state)
{
	static const char *const revs[] = {"HEAD", NULL};
	struct buf b = BUF_INIT;
	char path[8192];
	enum git_status st;

	(void)state;
	fake_git(".", "touch ran-cwd; echo 1234abcd");
	fake_git("rel", "touch ran-rel; echo 1234abcd");
	fake_git("abs", "echo 5678abcd");
	setenv("PATH", ":.:rel", 1);
	assert_int_equal(git_run(&b, &st, "rev-parse", NULL, revs, NULL), 0);
	assert_int_equal(st, GIT_NOT_FOUND);
	assert_int_equal(b.len, 0);
	snprintf(path, sizeof(path), "::rel:.:%s/abs", top);
	setenv("PATH", path, 1);
	assert_int_equal(git_run(&b, &st, "rev-parse", NULL, revs, NULL), 0);
	assert_int_equal(st, GIT_OK);
	assert_string_equal(b.data, "5678abcd\n");
	assert_int_not_equal(access("ran-cwd", F_OK), 0);
	assert_int_not_equal(access("ran-rel", F_OK), 0);
	restore_path();
	unlink("git");
	buf_release(&b);
}

/* What git is given: its arguments and environment, as a fake git sees
 * them (export -p: a builtin, since PATH finds nothing). */
static void test_environment(void **state)
{
	static const char *const opts[] = {"--verify", "-q", NULL};
	static const char *const revs[] = {"main^{commit}", NULL};
	struct buf b = BUF_INIT;
	enum git_status st;
	char want[8192];

	(void)state;
	fake_git("env", "export -p; echo ARGS; for a in \"$@\"; do echo \"[$a]\"; done");
	setenv("GIT_SSH_COMMAND", "touch ssh-ran", 1);
	setenv("GIT_CONFIG_PARAMETERS", "'core.fsmonitor'='touch x'", 1);
	setenv("GIT_ASKPASS", "touch askpass-ran", 1);
	setenv("GIT_DIR", "/some/where/.git", 1);
	assert_int_equal(git_run(&b, &st, "rev-parse", opts, revs, NULL), 0);
	assert_int_equal(st, GIT_OK);
	unsetenv("GIT_SSH_COMMAND");
	unsetenv("GIT_CONFIG_PARAMETERS");
	unsetenv("GIT_ASKPASS");
	unsetenv("GIT_DIR");
	restore_path();
	assert_non_null(strstr(b.data, "export PATH='/dev/null'"));
	assert_non_null(strstr(b.data, "export GIT_EXEC_PATH='/dev/null'"));
	assert_non_null(strstr(b.data, "export GIT_ALLOW_PROTOCOL='no_transport'"));
	assert_non_null(strstr(b.data, "export GIT_NO_LAZY_FETCH='1'"));
	assert_non_null(strstr(b.data, "export GIT_TERMINAL_PROMPT='0'"));
	assert_non_null(strstr(b.data, "export GIT_DIR='/some/where/.git'"));
	snprintf(want, sizeof(want), "export GIT_CEILING_DIRECTORIES='%s'",
		 getenv("GIT_CEILING_DIRECTORIES"));
	assert_non_null(strstr(b.data, want));
	assert_null(strstr(b.data, "GIT_SSH_COMMAND"));
	assert_null(strstr(b.data, "GIT_CONFIG_PARAMETERS"));
	assert_null(strstr(b.data, "GIT_ASKPASS"));
	/* the overrides come first, the revision last */
	assert_non_null(strstr(b.data, "ARGS\n[--no-pager]\n[--no-replace-objects]\n"
				       "[--no-optional-locks]\n[-c]\n[core.fsmonitor=false]\n"));
	assert_non_null(strstr(b.data, "[-c]\n[protocol.allow=never]\n[rev-parse]\n[--verify]\n"
				       "[-q]\n[main^{commit}]\n"));
	assert_non_null(strstr(b.data, "[core.hooksPath=/dev/null]"));
	buf_release(&b);
}

/* More output than the limit: killed, GIT_TOO_LONG, nothing kept. */
static void test_output_limit(void **state)
{
	static const char *const revs[] = {"HEAD", NULL};
	struct git_limits lim = {0, 100000};
	struct buf b = BUF_INIT;
	enum git_status st;

	(void)state;
	fake_git("loud", "i=0; while [ $i -lt 2000 ]; do echo "
			 "0123456789012345678901234567890123456789; i=$((i+1)); done");
	assert_int_equal(git_run(&b, &st, "rev-list", NULL, revs, NULL), 0);
	assert_int_equal(st, GIT_TOO_LONG);
	assert_int_equal(b.len, 0);
	assert_int_equal(git_run(&b, &st, "rev-list", NULL, revs, &lim), 0);
	assert_int_equal(st, GIT_OK);
	assert_int_equal(b.len, 2000 * 41);
	/* a failing git: GIT_FAILED, its output dropped */
	fake_git("fails", "echo partial; exit 3");
	assert_int_equal(git_run(&b, &st, "rev-list", NULL, revs, &lim), 0);
	assert_int_equal(st, GIT_FAILED);
	assert_int_equal(b.len, 2000 * 41);
	restore_path();
	buf_release(&b);
}

/* A git that hangs, with a child holding its stdout: after the timeout
 * the whole process group is killed (the child too), not only git. */
static void test_timeout(void **state)
{
	static const char *const revs[] = {"HEAD", NULL};
	struct git_limits lim = {500, 0};
	struct buf b = BUF_INIT;
	char stat_path[64], st_text[512];
	enum git_status st;
	long child = 0;
	FILE *f;

	(void)state;
	/* (the fake git's PATH is /dev/null: sleep by its full name) */
	fake_git("hang", "/bin/sleep 60 & echo $! >child.pid; wait");
	assert_int_equal(git_run(&b, &st, "rev-parse", NULL, revs, &lim), 0);
	assert_int_equal(st, GIT_TIMEOUT);
	restore_path();
	f = fopen("child.pid", "r");
	assert_non_null(f);
	assert_int_equal(fscanf(f, "%ld", &child), 1);
	fclose(f);
	/* gone, or a zombie waiting for its reaper: not sleeping on */
	nanosleep(&(struct timespec){0, 100 * 1000 * 1000}, NULL);
	snprintf(stat_path, sizeof(stat_path), "/proc/%ld/stat", child);
	f = fopen(stat_path, "r");
	if (f) {
		size_t n = fread(st_text, 1, sizeof(st_text) - 1, f);
		char *p;

		fclose(f);
		st_text[n] = '\0';
		p = strrchr(st_text, ')');
		assert_non_null(p);
		assert_true(p[2] == 'Z' || p[2] == 'X');
	}
	buf_release(&b);
}

/* The real git: a partial clone whose HEAD commit is missing and whose
 * promisor remote's uploadpack creates PWNED (plain git fetches it, and
 * runs it), and core.fsmonitor read through ":f": nothing runs. */
static void test_hostile_repository(void **state)
{
	static const char *const verify[] = {"--verify", "-q", NULL};
	static const char *const head[] = {"HEAD^{commit}", NULL};
	static const char *const index_rev[] = {":f", NULL};
	struct buf b = BUF_INIT;
	enum git_status st;
	char cmd[12288];

	(void)state;
	if (system("git --version >/dev/null 2>&1") != 0)
		skip();
	sh("git init -q -b main origin && cd origin && echo 1 >f && git add f && "
	   "git -c user.email=t@example.com -c user.name=t commit -q -m one && cd .. && "
	   "git clone -q --no-local origin clone");
	snprintf(
	    cmd, sizeof(cmd),
	    "cd clone && h=$(git rev-parse HEAD) && git config core.repositoryformatversion 1 && "
	    "git config extensions.partialClone origin && "
	    "git config remote.origin.promisor true && "
	    "git config remote.origin.uploadpack 'touch %s/PWNED; git-upload-pack' && "
	    "git config core.fsmonitor 'touch %s/PWNED-fsmonitor; false' && "
	    "rm -rf .git/objects/pack/* .git/objects/$(echo $h | cut -c1-2)",
	    top, top);
	sh(cmd);
	assert_int_equal(chdir("clone"), 0);
	assert_int_equal(git_run(&b, &st, "rev-parse", verify, head, NULL), 0);
	assert_int_equal(st, GIT_FAILED);
	assert_int_equal(git_run(&b, &st, "rev-parse", NULL, index_rev, NULL), 0);
	assert_int_equal(st, GIT_OK);
	assert_int_equal(git_run(&b, &st, "rev-list", NULL, head, NULL), 0);
	assert_int_equal(st, GIT_FAILED);
	assert_int_equal(chdir(top), 0);
	assert_int_not_equal(access("PWNED", F_OK), 0);
	assert_int_not_equal(access("PWNED-fsmonitor", F_OK), 0);
	/* (the repository is hostile indeed: plain git runs both) */
	sh("cd clone && (git rev-parse :f; git rev-parse --verify -q 'HEAD^{commit}'; true)");
	assert_int_equal(access("PWNED-fsmonitor", F_OK), 0);
	assert_int_equal(access("PWNED", F_OK), 0);
	buf_release(&b);
}

TU_MAIN(setup, teardown,
	{
	    cmocka_unit_test(test_check_rev),
	    cmocka_unit_test(test_refused),
	    cmocka_unit_test(test_path),
	    cmocka_unit_test(test_environment),
	    cmocka_unit_test(test_output_limit),
	    cmocka_unit_test(test_timeout),
	    cmocka_unit_test(test_hostile_repository),
	})
