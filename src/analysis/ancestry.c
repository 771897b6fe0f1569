/*
 * ancestry.c - the stored runs of base:REF (see ancestry.h): four read-only
 * git commands through git_run(), then the store by commit.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "analysis/ancestry.h"
#include "scopedb/err.h"
#include "scopedb/filter.h"
#include "scopedb/store.h"
#include "scopedb/util.h"
#include "util/git.h"

/* rev-list prints 41 bytes a commit (65 with SHA-256) */
#define ANCESTRY_STR2(x) #x
#define ANCESTRY_STR(x) ANCESTRY_STR2(x)
#define ANCESTRY_MAX_OUT ((ANCESTRY_MAX_COMMITS + 1) * 65)

/* 1 when s is a full sha as git prints it: 40 (or 64) lowercase hex digits. */
static int ancestry_is_sha(const char *s)
{
	size_t n = strspn(s, "0123456789abcdef");

	return (n == 40 || n == 64) && !s[n];
}

/*
 * git CMD OPTS... REVS... into out (its whole output); *ok = 1 when git
 * answered (exit 0).  No git at all is an error here: base:REF cannot be
 * resolved without it.
 */
static int ancestry_git(struct buf *out, int *ok, const char *cmd, const char *const *opts,
			const char *const *revs, size_t max_out)
{
	const struct git_limits lim = {0, max_out};
	enum git_status st;
	int rc;

	out->len = 0;
	*ok = 0;
	rc = git_run(out, &st, cmd, opts, revs, &lim);
	if (rc)
		return rc;
	if (st == GIT_NOT_FOUND)
		return err_set(ERR_USAGE,
			       "base: selectors need git, and there is none in an absolute PATH "
			       "entry");
	if (st == GIT_TIMEOUT || st == GIT_TOO_LONG)
		return err_set(ERR_USAGE, "git %s %s", cmd,
			       st == GIT_TIMEOUT ? "did not answer in time" : "said too much");
	*ok = st == GIT_OK;
	return 0;
}

/* The first line of git's answer, copied into *out. */
static int ancestry_line(char **out, struct buf *b)
{
	*out = util_strdup(git_first_line(b->data));
	return *out ? 0 : err_nomem();
}

/* git CMD OPTS... REVS... whose first line must be a full sha: a copy of it
 * into *out, or ERR_USAGE "base:REF: BEFORE'REF'AFTER" (why REF resolves to
 * nothing) when git fails or answers something else.  b: git's output. */
static int ancestry_sha(char **out, struct buf *b, const char *cmd, const char *const *opts,
			const char *const *revs, const char *ref, const char *before,
			const char *after)
{
	int ok, rc = ancestry_git(b, &ok, cmd, opts, revs, 0);

	if (!rc && (!ok || !ancestry_is_sha(git_first_line(b->data))))
		rc = err_set(ERR_USAGE, "base:%s: %s'%s'%s", ref, before, ref, after);
	return rc ? rc : ancestry_line(out, b);
}

/* The runs of one commit (newest first) appended to out, up to want. */
static int ancestry_commit_runs(struct ancestry *out, struct store *st, const char *sha,
				size_t back, size_t want)
{
	struct store_run *runs = NULL;
	struct filter f;
	size_t n = 0, i;
	int rc;

	memset(&f, 0, sizeof(f));
	f.commit = sha;
	rc = store_find_runs(st, &runs, &n, &f);
	for (i = 0; !rc && i < n && out->nruns < want; i++) {
		/* a prefix filter: keep the runs of exactly this commit */
		if (!runs[i].commit || strcasecmp(runs[i].commit, sha))
			continue;
		out->runs[out->nruns] = runs[i].id;
		out->back[out->nruns++] = back;
	}
	store_runs_free(runs, n);
	return rc;
}

/*
 * 1 when commit sha is where a shallow clone's history was cut (listed in
 * the repository's "shallow" file), so that a walk ending there ended for
 * want of the older commits, not at the first commit (b: scratch).  The
 * file (git rev-parse --git-path shallow: a linked work tree's is its main
 * repository's) is only read, at most ANCESTRY_SHALLOW_MAX bytes of it.
 */
#define ANCESTRY_SHALLOW_MAX (1 << 20)
static int ancestry_cut_at(struct buf *b, const char *sha)
{
	static const char *const gitdir[] = {"--git-path", "shallow", NULL};
	char *text, *line, *next;
	size_t len;
	FILE *f;
	int ok, cut = 0;

	if (!sha || ancestry_git(b, &ok, "rev-parse", gitdir, NULL, 0) || !ok)
		return 0;
	git_first_line(b->data);
	if (!(f = fopen(b->data, "r")))
		return 0; /* no such file: not a shallow clone */
	text = malloc(ANCESTRY_SHALLOW_MAX + 1);
	len = text ? fread(text, 1, ANCESTRY_SHALLOW_MAX, f) : 0;
	fclose(f);
	if (!text)
		return 0;
	text[len] = '\0';
	for (line = text; line && *line && !cut; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		cut = !strcmp(line, sha);
	}
	free(text);
	return cut;
}

/* 1 when the repository is a shallow clone (b: scratch). */
static int ancestry_shallow(struct buf *b)
{
	static const char *const shallow[] = {"--is-shallow-repository", NULL};
	int ok;

	return !ancestry_git(b, &ok, "rev-parse", shallow, NULL, 0) && ok &&
	       !strcmp(git_first_line(b->data), "true");
}

/*
 * The error of a directory git finds no work tree in: that it is none, or,
 * when git says something else (a damaged config, a repository format it
 * does not know, a .git file or GIT_DIR naming nothing), git's own cause.
 */
static int ancestry_no_tree(const char *ref, const char *cwd)
{
	const char *why = git_last_error();

	if (!strncmp(why, "fatal: ", 7))
		why += 7;
	if (!*why || !strncmp(why, "not a git repository (or any", 28))
		return err_set(ERR_USAGE, "base:%s: '%s' is not in a git work tree", ref, cwd);
	return err_set(ERR_USAGE, "base:%s: git cannot read the repository of '%s': %s", ref, cwd,
		       why);
}

int ancestry_runs(struct ancestry *out, struct store *st, const char *ref, size_t want)
{
	static const char *const toplevel[] = {"--show-toplevel", NULL};
	static const char *const verify[] = {"--verify", "--quiet", NULL};
	static const char *const firstp[] = {
	    "--first-parent", "--max-count=" ANCESTRY_STR(ANCESTRY_MAX_COMMITS), NULL};
	const char *revs[3] = {NULL, NULL, NULL};
	struct buf b = BUF_INIT, r = BUF_INIT, note = BUF_INIT;
	char *sha = NULL, *line, *next, *last = NULL, cwd[4096];
	int ok, rc;

	memset(out, 0, sizeof(*out));
	if (!want)
		want = 1;
	out->ref = util_strdup(ref);
	out->runs = malloc(want * sizeof(*out->runs));
	out->back = malloc(want * sizeof(*out->back));
	if (!out->ref || !out->runs || !out->back) {
		rc = err_nomem();
		goto out;
	}
	/* 1. a work tree */
	rc = ancestry_git(&b, &ok, "rev-parse", toplevel, NULL, 0);
	if (!rc && !ok)
		rc = ancestry_no_tree(ref, getcwd(cwd, sizeof(cwd)) ? cwd : ".");
	/* 2. REF, a commit */
	if (!rc)
		rc = git_check_rev(ref);
	if (!rc && buf_printf(&r, "%s^{commit}", ref))
		rc = err_nomem();
	revs[0] = r.data;
	if (!rc) {
		rc = ancestry_sha(&sha, &b, "rev-parse", verify, revs, ref, "unknown git revision ",
				  " (a CI checkout may need it fetched first: git fetch origin "
				  "BRANCH)");
		/* in a shallow clone (actions/checkout's default depth of 1)
		 * the revision may be beyond the cut, or a branch not fetched */
		if (rc == ERR_USAGE && ancestry_shallow(&b))
			rc = err_set(
			    ERR_USAGE,
			    "base:%s: unknown git revision '%s' (a CI checkout may need it "
			    "fetched first: git fetch origin BRANCH; this clone is shallow: "
			    "git fetch --unshallow, or actions/checkout: fetch-depth: 0)",
			    ref, ref);
	}
	/* 3. the merge base of HEAD and REF; where there is none, whether HEAD
	 * is a commit at all (a branch with no commit yet), asked only then */
	revs[0] = "HEAD";
	revs[1] = sha;
	if (!rc) {
		rc = ancestry_sha(&out->merge_base, &b, "merge-base", NULL, revs, ref, "HEAD and ",
				  " have no merge base (a shallow clone? fetch with --depth large "
				  "enough, or --unshallow)");
		revs[0] = "HEAD^{commit}";
		revs[1] = NULL;
		if (rc == ERR_USAGE && !ancestry_git(&b, &ok, "rev-parse", verify, revs, 0) &&
		    (!ok || !ancestry_is_sha(git_first_line(b.data))))
			rc = err_set(ERR_USAGE,
				     "base:%s: HEAD is not a commit (a branch with no commit "
				     "yet?): commit first, or name the baseline by run, tag or "
				     "branch",
				     ref);
	}
	/* 4. its first-parent ancestry, newest first */
	revs[0] = out->merge_base;
	revs[1] = NULL;
	if (!rc)
		rc = ancestry_git(&b, &ok, "rev-list", firstp, revs, ANCESTRY_MAX_OUT);
	if (!rc && !ok)
		rc = err_set(ERR_USAGE, "base:%s: git cannot list the ancestry of %.12s", ref,
			     out->merge_base);
	for (line = b.data; !rc && line && *line && out->nruns < want; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!ancestry_is_sha(line))
			continue;
		last = line;
		rc = ancestry_commit_runs(out, st, line, out->ncommits, want);
		out->ncommits++;
	}
	if (!rc && !out->nruns)
		rc = err_set(ERR_NOTFOUND,
			     "base:%s: no stored run on the first-parent ancestry of %.12s, the "
			     "merge base of HEAD and '%s' (%zu commit%s searched)",
			     ref, out->merge_base, ref, out->ncommits,
			     out->ncommits == 1 ? "" : "s");
	if (!rc) {
		struct store_run run;

		memset(&run, 0, sizeof(run));
		rc = store_get_run(st, &run, out->runs[0]);
		if (!rc) {
			int e = buf_printf(&note, "merge base %.12s of HEAD and '%s'; run %lld",
					   out->merge_base, ref, (long long)out->runs[0]);
			if (out->back[0])
				e |= buf_printf(&note,
						" (commit %.12s), %zu commit%s back on its "
						"first-parent ancestry",
						run.commit, out->back[0],
						out->back[0] == 1 ? "" : "s");
			else
				e |= buf_puts(&note, ", at the merge base");
			/* a window the ancestry could not fill in a shallow
			 * clone: the older commits are not there to walk */
			if (out->nruns < want && ancestry_cut_at(&r, last))
				e |= buf_printf(&note,
						"; only %zu run%s on its first-parent ancestry: "
						"this clone is shallow "
						"(git fetch --unshallow; actions/checkout: "
						"fetch-depth: 0)",
						out->nruns, out->nruns == 1 ? "" : "s");
			out->note = buf_finish(&note, e);
			if (!out->note)
				rc = err_nomem();
		}
		store_run_release(&run);
	}
out:
	free(sha);
	buf_release(&b);
	buf_release(&r);
	buf_release(&note);
	if (rc)
		ancestry_release(out);
	return rc;
}

void ancestry_release(struct ancestry *a)
{
	if (!a)
		return;
	free(a->ref);
	free(a->merge_base);
	free(a->runs);
	free(a->back);
	free(a->note);
	memset(a, 0, sizeof(*a));
}
