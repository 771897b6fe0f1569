/*
 * identity.c - the commit and branch of a run being ingested (identity.h).
 *
 * Sources, first found wins: the command line; the CI's variables (GitHub
 * Actions, GitLab CI, Buildkite, Jenkins/generic, in that order); with no
 * CI variable set at all, the git work tree of the current directory.  The
 * branch of a pull/merge request is its source branch (GITHUB_HEAD_REF,
 * CI_MERGE_REQUEST_SOURCE_BRANCH_NAME), not the merge ref the CI checks
 * out; a tag build (GITHUB_REF_TYPE=tag, CI_COMMIT_TAG, BUILDKITE_TAG) has
 * no branch.  git runs through git_run() (src/util/git.c): no shell, no
 * command from the repository's configuration, no lazy fetch, bounded in
 * time and output; a revision that would be an option of git resolves to
 * nothing.
 * A commit given by the user or a CI that is a sha is stored lowercased,
 * as selectors match.
 */
#include <stdlib.h>
#include <string.h>

#include "scopedb/err.h"
#include "scopedb/identity.h"
#include "scopedb/util.h"
#include "util/git.h"

/* The CI variables, per CI: commit, then branches by preference. */
static const char *const identity_commit_vars[] = {
    "GITHUB_SHA",
    "CI_COMMIT_SHA",
    "BUILDKITE_COMMIT",
    "GIT_COMMIT",
};
/* clean: the CI may give a full ref or a remote's name (identity_branch_clean);
 * GitHub and GitLab give the short name.  commit: the same CI's commit
 * variable (identity_commit_var()). */
static const struct {
	const char *name;
	int clean;
	const char *commit;
} identity_branch_vars[] = {
    /* pull requests: the head branch (REF_NAME is 42/merge) */
    {"GITHUB_HEAD_REF", 0, "GITHUB_SHA"},
    {"GITHUB_REF_NAME", 0, "GITHUB_SHA"},
    {"CI_MERGE_REQUEST_SOURCE_BRANCH_NAME", 0, "CI_COMMIT_SHA"},
    {"CI_COMMIT_REF_NAME", 0, "CI_COMMIT_SHA"},
    {"BUILDKITE_BRANCH", 1, "BUILDKITE_COMMIT"},
    {"GIT_BRANCH", 1, "GIT_COMMIT"}, /* Jenkins: origin/main */
};

const char *identity_commit_var(const char *var)
{
	size_t i;

	for (i = 0; var && i < sizeof(identity_branch_vars) / sizeof(identity_branch_vars[0]); i++)
		if (!strcmp(var, identity_branch_vars[i].name))
			return identity_branch_vars[i].commit;
	return NULL;
}

void identity_init(struct identity *id)
{
	memset(id, 0, sizeof(*id));
}

void identity_release(struct identity *id)
{
	free(id->commit);
	free(id->branch);
	free(id->ignored_value);
	free(id->git_error);
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
	else if (strncmp(name, "refs/remotes/origin/", 20) == 0) /* Jenkins, some setups */
		name += 20;
	else if (strncmp(name, "origin/", 7) == 0)
		name += 7;
	return name;
}

static const char *identity_getenv(const char *name)
{
	const char *v = getenv(name);

	return v && *v ? v : NULL;
}

/* 1 when the CI's branch variable name holds a tag's name (a tag build):
 * no branch, or every release would be a branch of its own. */
static int identity_is_tag(const char *name)
{
	const char *v;

	if (!strcmp(name, "GITHUB_REF_NAME")) {
		v = identity_getenv("GITHUB_REF_TYPE");
		if (v)
			return !strcmp(v, "tag");
		v = identity_getenv("GITHUB_REF");
		return v && !strncmp(v, "refs/tags/", 10);
	}
	if (!strcmp(name, "CI_COMMIT_REF_NAME"))
		return identity_getenv("CI_COMMIT_TAG") != NULL;
	if (!strcmp(name, "BUILDKITE_BRANCH"))
		return identity_getenv("BUILDKITE_TAG") != NULL;
	return 0;
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
		if (identity_is_tag(identity_branch_vars[i].name))
			continue;
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

/* *out = the first line git_run() prints for "git CMD OPTS... REV" (1
 * when git cannot answer or rev is none git may see, *out NULL), 0, or
 * ERR_NOMEM. */
static int identity_git(char **out, const char *cmd, const char *const *opts, const char *rev)
{
	const char *revs[] = {rev, NULL};
	struct buf b = BUF_INIT;
	enum git_status st;
	int rc;

	*out = NULL;
	rc = git_run(&b, &st, cmd, opts, revs, NULL);
	if (rc == ERR_USAGE) /* a revision git must not see: resolves to nothing */
		rc = 1;
	else if (!rc && (st != GIT_OK || !*git_first_line(b.data)))
		rc = 1;
	else if (!rc)
		*out = util_strdup(b.data), rc = *out ? 0 : ERR_NOMEM;
	buf_release(&b);
	return rc;
}

/* *out = the full sha of the commit ref names in the current repository;
 * 1 when git cannot say (not a commit, no repository, no git). */
static int identity_git_commit(char **out, const char *ref)
{
	static const char *const opts[] = {"--verify", "-q", NULL};
	struct buf b = BUF_INIT;
	int rc;

	*out = NULL;
	if (buf_printf(&b, "%s^{commit}", ref)) {
		buf_release(&b);
		return err_nomem();
	}
	rc = identity_git(out, "rev-parse", opts, b.data);
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

/* 1 when the current directory is in a git work tree (git says so). */
static int identity_git_work_tree(void)
{
	static const char *const opts[] = {"--is-inside-work-tree", NULL};
	char *v = NULL;
	int in = !identity_git(&v, "rev-parse", opts, NULL) && !strcmp(v, "true");

	free(v);
	return in;
}

/*
 * The current branch of the work tree, when HEAD is one: its full ref less
 * "refs/heads/".  Not `symbolic-ref --short`, which says "heads/main" when a
 * tag (or any other ref) is also named main, and a repository may come from
 * a pull request.  1 when HEAD is no branch.
 */
static int identity_git_branch(char **out)
{
	static const char *const opts[] = {"-q", NULL};
	char *ref = NULL;
	int rc;

	*out = NULL;
	rc = identity_git(&ref, "symbolic-ref", opts, "HEAD");
	if (rc)
		return rc;
	if (strncmp(ref, "refs/heads/", 11) != 0 || !ref[11]) {
		free(ref);
		return 1;
	}
	*out = util_strdup(ref + 11);
	free(ref);
	return *out ? 0 : ERR_NOMEM;
}

/* No commit at HEAD (head NULL): git's cause when it could not read the
 * repository, kept in id->git_error; not when this is no repository (or
 * one without a commit yet: "rev-parse -q" says nothing then). */
static int identity_git_error(struct identity *id, const char *head)
{
	const char *why = git_last_error();

	if (head || !*why || !strncmp(why, "fatal: not a git repository (or any", 35))
		return 0;
	if (!strncmp(why, "fatal: ", 7))
		why += 7;
	id->git_error = util_strdup(why);
	return id->git_error ? 0 : err_nomem();
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
			rc = identity_git_work_tree()
				 ? err_set(ERR_USAGE,
					   "cannot resolve --commit '%s': not a commit in this git "
					   "repository",
					   util_quote_msg(commit_opt))
				 : err_set(
				       ERR_USAGE,
				       "cannot resolve --commit '%s': not in a git work tree (give "
				       "the commit as 4 to 64 hex digits)",
				       util_quote_msg(commit_opt));
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
	if (branch_opt && !*branch_opt) {
		rc = err_set(ERR_USAGE, "empty --branch: name the branch, or leave the "
					"option out for the work tree's");
		goto out;
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
		rc = identity_git_error(id, head);
		if (rc)
			goto out;
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
