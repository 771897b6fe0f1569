/*
 * test_identity.c - identity.h: the CI variables of GitHub Actions (pull
 * requests: the head branch), GitLab (merge requests: the source branch),
 * Buildkite and Jenkins (origin/ stripped), their order, and git in a
 * throwaway repository (HEAD, a ref, a detached HEAD, no repository, an
 * unresolvable --commit), a CI commit that is no commit (dropped and named),
 * lowercased shas (git_run() itself: test_git.c).  The tests never look at the
 * project's own checkout: they run in a temporary directory under
 * GIT_CEILING_DIRECTORIES.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "scopedb/err.h"
#include "scopedb/identity.h"
#include "scopedb/util.h"
#include "testutil.h"
#include "util/git.h"

static const char *const ci_vars[] = {
    "GITHUB_SHA",	"GITHUB_REF_NAME",    "GITHUB_HEAD_REF",
    "CI_COMMIT_SHA",	"CI_COMMIT_REF_NAME", "CI_MERGE_REQUEST_SOURCE_BRANCH_NAME",
    "BUILDKITE_COMMIT", "BUILDKITE_BRANCH",   "GIT_COMMIT",
    "GIT_BRANCH",
};

static char top[4096];

static void clear_ci(void)
{
	size_t i;

	for (i = 0; i < sizeof(ci_vars) / sizeof(ci_vars[0]); i++)
		unsetenv(ci_vars[i]);
}

/* Run a shell command line in the temporary directory (test set-up only). */
static void sh(const char *cmd)
{
	char line[8192];

	snprintf(line, sizeof(line), "cd '%s' && %s >/dev/null 2>&1", top, cmd);
	assert_int_equal(system(line), 0);
}

static int setup(void **state)
{
	(void)state;
	snprintf(top, sizeof(top), "%s", tu_git_sandbox());
	clear_ci();
	return chdir(top);
}

static void test_hex(void **state)
{
	(void)state;
	assert_true(identity_is_hex("abcDEF0123", 4, 64));
	assert_false(identity_is_hex("abc", 4, 64));
	assert_false(identity_is_hex("HEAD", 4, 64));
	assert_string_equal(identity_branch_clean("origin/main"), "main");
	assert_string_equal(identity_branch_clean("refs/remotes/origin/main"), "main");
	assert_string_equal(identity_branch_clean("refs/remotes/upstream/main"),
			    "refs/remotes/upstream/main");
	assert_string_equal(identity_branch_clean("refs/heads/feat/x"), "feat/x");
	assert_string_equal(identity_branch_clean("main"), "main");
}

/*
 * Set the NULL-ended NAME, VALUE pairs of vars, read the identity from the
 * environment and check the commit it found (unless commit is NULL) and the
 * branch.  The caller releases id.
 */
static void from_env(struct identity *id, const char *const *vars, const char *commit,
		     const char *branch)
{
	for (; *vars; vars += 2)
		setenv(vars[0], vars[1], 1);
	assert_int_equal(identity_from_env(id), 1);
	if (commit)
		assert_string_equal(id->commit, commit);
	assert_string_equal(id->branch, branch);
}

static void test_env(void **state)
{
	struct identity id;

	(void)state;
	clear_ci();
	identity_init(&id);
	assert_int_equal(identity_from_env(&id), 0);
	assert_null(id.commit);
	assert_null(id.branch);

	/* Jenkins */
	from_env(&id, (const char *[]){"GIT_COMMIT", "c0ffee", "GIT_BRANCH", "origin/main", NULL},
		 "c0ffee", "main");
	assert_string_equal(id.branch_from, "GIT_BRANCH");
	identity_release(&id);

	/* Buildkite before Jenkins */
	from_env(&id,
		 (const char *[]){"BUILDKITE_COMMIT", "b1b1b1", "BUILDKITE_BRANCH", "feat", NULL},
		 "b1b1b1", "feat");
	identity_release(&id);

	/* a GitLab merge request: the source branch */
	from_env(&id,
		 (const char *[]){"CI_COMMIT_SHA", "9a9a9a", "CI_COMMIT_REF_NAME",
				  "refs/merge-requests/7/head",
				  "CI_MERGE_REQUEST_SOURCE_BRANCH_NAME", "fix-io", NULL},
		 "9a9a9a", "fix-io");
	identity_release(&id);

	/* a GitHub pull request: the head branch, not 42/merge */
	from_env(&id,
		 (const char *[]){"GITHUB_SHA", "6a6a6a", "GITHUB_REF_NAME", "42/merge",
				  "GITHUB_HEAD_REF", "feature", NULL},
		 "6a6a6a", "feature");
	assert_string_equal(id.commit_from, "GITHUB_SHA");
	identity_release(&id);
	/* a push: GITHUB_HEAD_REF is set but empty */
	from_env(&id, (const char *[]){"GITHUB_HEAD_REF", "", "GITHUB_REF_NAME", "main", NULL},
		 NULL, "main");
	identity_release(&id);
	clear_ci();
}

/* Resolve the identity from CI variables or the work tree alone, and check
 * the commit it found (NULL: none). */
static void resolved(struct identity *id, const char *commit)
{
	assert_int_equal(identity_resolve(id, NULL, NULL), 0);
	if (commit)
		assert_string_equal(id->commit, commit);
	else
		assert_null(id->commit);
}

static void test_no_repository(void **state)
{
	struct identity id;

	(void)state;
	identity_init(&id);
	resolved(&id, NULL);
	assert_null(id.branch);
	/* a sha-like value is kept as given, a ref must resolve */
	assert_int_equal(identity_resolve(&id, "abc123", "main"), 0);
	assert_string_equal(id.commit, "abc123");
	assert_string_equal(id.branch, "main");
	identity_release(&id);
	err_clear();
	assert_int_equal(identity_resolve(&id, "HEAD", NULL), ERR_USAGE);
	assert_string_equal(
	    err_msg(),
	    "cannot resolve --commit 'HEAD': not in a git work tree (give the commit as 4 "
	    "to 64 hex digits)");
	assert_null(id.commit);
	assert_int_equal(identity_resolve(&id, "--help", NULL), ERR_USAGE);
	assert_string_equal(err_msg(), "cannot resolve --commit '--help': not in a git work tree "
				       "(give the commit as 4 to 64 hex digits)");
}

/* A CI commit variable that is no commit is dropped and named; sha values
 * are stored lowercased. */
static void test_ignored_and_case(void **state)
{
	struct identity id;

	(void)state;
	clear_ci();
	identity_init(&id);
	setenv("GITHUB_SHA", "zzz", 1);
	setenv("GITHUB_REF_NAME", "main", 1);
	resolved(&id, NULL);
	assert_null(id.commit_from);
	assert_string_equal(id.ignored_from, "GITHUB_SHA");
	assert_string_equal(id.ignored_value, "zzz");
	assert_string_equal(id.branch, "main");
	identity_release(&id);
	assert_null(id.ignored_from);
	/* --commit wins: nothing ignored */
	assert_int_equal(identity_resolve(&id, "abc123", NULL), 0);
	assert_null(id.ignored_from);
	identity_release(&id);
	setenv("GITHUB_SHA", "ABCDEF0123456789ABCDEF0123456789ABCDEF01", 1);
	resolved(&id, "abcdef0123456789abcdef0123456789abcdef01");
	assert_null(id.ignored_from);
	identity_release(&id);
	clear_ci();
	assert_int_equal(identity_resolve(&id, "C0FFEE", NULL), 0);
	assert_string_equal(id.commit, "c0ffee");
	identity_release(&id);
}

static void test_repository(void **state)
{
	static const char *const head_rev[] = {"HEAD", NULL};
	struct identity id;
	struct buf hb = BUF_INIT;
	enum git_status st;
	char *head = NULL, *first = NULL;

	(void)state;
	sh("git init -q -b trunk . && git config user.email t@example.com && "
	   "git config user.name t && git config commit.gpgsign false && "
	   "echo 1 >f && git add f && git commit -q -m one && git tag v1 && "
	   "echo 2 >f && git commit -q -am two");
	assert_int_equal(git_run(&hb, &st, "rev-parse", NULL, head_rev, NULL), 0);
	assert_int_equal(st, GIT_OK);
	head = buf_detach(&hb);
	git_first_line(head);
	assert_true(identity_is_hex(head, 40, 64));
	identity_init(&id);

	/* no CI: the work tree's HEAD and branch */
	resolved(&id, head);
	assert_string_equal(id.commit_from, "git");
	assert_string_equal(id.branch, "trunk");
	identity_release(&id);

	/* --commit HEAD, and a tag (an older commit: no branch from git) */
	assert_int_equal(identity_resolve(&id, "HEAD", NULL), 0);
	assert_string_equal(id.commit, head);
	assert_string_equal(id.branch, "trunk");
	identity_release(&id);
	assert_int_equal(identity_resolve(&id, "v1", NULL), 0);
	assert_true(identity_is_hex(id.commit, 40, 64));
	assert_string_not_equal(id.commit, head);
	assert_null(id.branch);
	first = util_strdup(id.commit);
	identity_release(&id);

	/* an abbreviated sha becomes the full one; an unknown one stays */
	{
		char abbrev[8];

		memcpy(abbrev, first, 7);
		abbrev[7] = '\0';
		assert_int_equal(identity_resolve(&id, abbrev, NULL), 0);
		assert_string_equal(id.commit, first);
		identity_release(&id);
	}
	assert_int_equal(identity_resolve(&id, "0000000", NULL), 0);
	assert_string_equal(id.commit, "0000000");
	identity_release(&id);
	assert_int_equal(identity_resolve(&id, "no-such-branch", NULL), ERR_USAGE);

	/* CI variables win over the work tree: no branch from git */
	setenv("GITHUB_SHA", "6a6a6a6a", 1);
	resolved(&id, "6a6a6a6a");
	assert_null(id.branch);
	identity_release(&id);
	/* Buildkite's BUILDKITE_COMMIT=HEAD is resolved */
	clear_ci();
	setenv("BUILDKITE_COMMIT", "HEAD", 1);
	setenv("BUILDKITE_BRANCH", "bk", 1);
	resolved(&id, head);
	assert_string_equal(id.branch, "bk");
	identity_release(&id);
	clear_ci();

	/* a detached HEAD: the commit, no branch */
	sh("git checkout -q --detach HEAD");
	resolved(&id, head);
	assert_null(id.branch);
	identity_release(&id);
	free(head);
	free(first);
}

TU_MAIN(setup, NULL,
	{
	    cmocka_unit_test(test_hex),
	    cmocka_unit_test(test_env),
	    cmocka_unit_test(test_no_repository),
	    cmocka_unit_test(test_ignored_and_case),
	    cmocka_unit_test(test_repository),
	})
