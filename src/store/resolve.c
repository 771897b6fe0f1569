/*
 * resolve.c - the selectors (select.h) resolved to runs: store_resolve(),
 * in the front end over any backend (see front.h), as libgit2's
 * git_reference_dwim() keeps git's shorthand rules above its refdb
 * backends.
 *
 * Each kind of selector is one or two of the statements NTH_*, COUNT_*,
 * RUN_EXISTS, PIN_GET and COMMITS; the rules (a commit prefix naming one
 * commit, "~N" as ancestry on the run's branch) and every message ("no
 * run has tag 'x'; did you mean 'y'?") are here, the same for every
 * backend.  The hints compare the mistyped name with the stored names of
 * its kind (store_names(), rows_hint()).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "scopedb/err.h"
#include "scopedb/select.h"
#include "scopedb/store.h"
#include "scopedb/util.h"
#include "store/front.h"
#include "store/rows.h"

/* ---- stored names, for the hints ------------------------------------------ */

struct store_conn *store_names_ctx(struct store *st)
{
	return (struct store_conn *)(void *)st;
}

/* A name into the NUL-separated list at ctx (struct name_list). */
struct name_list {
	struct buf *out;
	size_t n;
};

static int name_row(void *ctx, const struct rows_row *r)
{
	struct name_list *x = ctx;
	const char *name = r->ops->text(r, 0);

	if (!name)
		return 0;
	if (buf_add(x->out, name, strlen(name) + 1))
		return ERR_NOMEM;
	x->n++;
	return 0;
}

int store_names(struct store_conn *c, struct buf *out, size_t *n, enum rows_names kind)
{
	static const enum sql_id sql[] = {
	    [ROWS_NAMES_PIN] = SQL_NAMES_PIN,	    [ROWS_NAMES_TAG] = SQL_NAMES_TAG,
	    [ROWS_NAMES_BRANCH] = SQL_NAMES_BRANCH, [ROWS_NAMES_LABEL] = SQL_NAMES_LABEL,
	    [ROWS_NAMES_REGION] = SQL_NAMES_REGION,
	};
	struct name_list x = {out, 0};
	int ret = store_sql_run((struct store *)(void *)c, sql[kind], NULL, 0, name_row, &x, NULL);

	*n = x.n;
	return ret;
}

/* ---- the statements of the selectors ---------------------------------------- */

/*
 * *out = id of the back-th newest run of kind (name) recorded before run
 * before (when > 0), or 0; *count = how many runs match when there is
 * none: kind SELECT_LATEST all, SELECT_TAG / SELECT_BRANCH / SELECT_LABEL
 * those with tag, branch or label name, SELECT_COMMIT those of the full
 * commit name.
 */
static int resolve_nth(struct store *st, int64_t *out, int64_t *count, enum select_kind kind,
		       const char *name, int64_t before, int64_t back)
{
	enum sql_id cond = kind == SELECT_TAG	   ? SQL_NTH_TAG
			   : kind == SELECT_BRANCH ? SQL_NTH_BRANCH
			   : kind == SELECT_LABEL  ? SQL_NTH_LABEL
			   : kind == SELECT_COMMIT ? SQL_NTH_COMMIT
						   : SQL_NTH_LATEST;
	struct store_query q[2]; /* the run, and how many there are */
	int i, ret = 0;

	*out = 0;
	*count = 0;
	for (i = 0; i < 2; i++) {
		store_query_init(&q[i]);
		store_query_value(&q[i], sql_str(kind == SELECT_LATEST ? NULL : name));
		store_query_value(&q[i], sql_int(back));
		if (before)
			store_query_value(&q[i], sql_int(before));
		store_query_put(st, &q[i], i ? SQL_COUNT_HEAD : SQL_NTH_HEAD);
		store_query_put(st, &q[i], cond);
		if (before)
			store_query_put(st, &q[i], SQL_NTH_BEFORE);
		store_query_put(st, &q[i], i ? SQL_COUNT_TAIL : SQL_NTH_TAIL);
	}
	ret = store_query_run(st, &q[0], 0, store_row_int, out);
	if (!ret && !*out)
		ret = store_query_run(st, &q[1], 0, store_row_int, count);
	store_query_release(&q[0]);
	store_query_release(&q[1]);
	return ret;
}

/* The distinct commits starting with prefix in any case (sorted, at most
 * 6; store_fold_prefix()) into out, NUL-separated; *n = how many. */
static int resolve_commits(struct store *st, struct buf *out, size_t *n, const char *prefix)
{
	struct name_list x = {out, 0};
	struct store_value v[3];
	char *folded[2];
	int ret;

	*n = 0;
	ret = store_fold_prefix(folded, prefix);
	if (ret)
		return ret;
	v[0] = sql_prefix(folded[0]);
	v[1] = sql_prefix(folded[1]);
	v[2] = sql_prefix(prefix);
	ret = store_sql_run(st, SQL_COMMITS, v, 3, name_row, &x, NULL);
	free(folded[0]);
	free(folded[1]);
	*n = x.n;
	return ret;
}

/*
 * *out = id when run id exists, else 0.  Inside the read snapshot of a
 * backend that reads ahead, the run is read whole: its store_get_run()
 * and store_get_meta() follow.
 */
static int resolve_exists(struct store *st, int64_t *out, int64_t id)
{
	struct store_value v = sql_int(id);
	struct store_run run;
	struct store_meta meta;
	int found, ret;

	*out = 0;
	if (!st->reading || !(st->be->caps & STORE_READ_AHEAD))
		return store_sql_int(st, out, NULL, SQL_RUN_EXISTS, &v, 1);
	ret = ahead_fetch_run(st, &run, &meta, &found, id);
	if (!ret && found) {
		*out = id;
		ahead_keep(st, id, &run, &meta);
	}
	return ret;
}

/* ---- the rules and their messages ------------------------------------------- */

/* The ERR_NOTFOUND of a pin, tag, branch or label selector naming nothing
 * stored ("no run has tag 'x'"), with the nearest stored name of its kind. */
static int resolve_missing(struct store *st, const struct select_spec *sel)
{
	enum rows_names kind = sel->kind == SELECT_PIN	    ? ROWS_NAMES_PIN
			       : sel->kind == SELECT_TAG    ? ROWS_NAMES_TAG
			       : sel->kind == SELECT_BRANCH ? ROWS_NAMES_BRANCH
							    : ROWS_NAMES_LABEL;
	const char *what = sel->kind == SELECT_TAG	? "tag"
			   : sel->kind == SELECT_BRANCH ? "branch"
							: "label";
	struct buf hint = BUF_INIT;
	int ret;

	if (sel->kind == SELECT_PIN)
		return rows_no_pin(store_names_ctx(st), store_names, sel->name);
	ret = rows_hint(store_names_ctx(st), store_names, &hint, kind, sel->name);
	if (!ret)
		ret = err_set(ERR_NOTFOUND, "no run has %s '%s'%s", what, sel->name,
			      hint.data ? hint.data : "");
	buf_release(&hint);
	return ret;
}

/* The ERR_NOTFOUND of a selector that matched count runs, fewer than it
 * needs: latest~N, tag:/branch:/label: NAME~N (none at all: the nearest
 * stored name, resolve_missing()). */
static int nth_error(struct store *st, const struct select_spec *sel, int64_t count)
{
	const char *what = sel->kind == SELECT_TAG	? "tag"
			   : sel->kind == SELECT_BRANCH ? "branch"
							: "label";

	if (sel->kind == SELECT_LATEST)
		return count == 0 ? err_set(ERR_NOTFOUND, "no runs stored in '%s'", st->location)
				  : err_set(ERR_NOTFOUND, "no run '%s': only %lld run%s stored",
					    sel->text, (long long)count, count == 1 ? "" : "s");
	return count == 0 ? resolve_missing(st, sel)
			  : err_set(ERR_NOTFOUND, "no run '%s': only %lld run%s %s %s '%s'",
				    sel->text, (long long)count, count == 1 ? "" : "s",
				    count == 1 ? "has" : "have", what, sel->name);
}

/*
 * commit:PREFIX -> *out = the full commit (malloc'ed): the prefix itself
 * when a run has exactly that commit, else the only commit starting with
 * it.  Errors name the prefix, and list the candidates when there are
 * several.
 */
static int resolve_commit(struct store *st, char **out, const char *prefix)
{
	struct buf list = BUF_INIT, all = BUF_INIT;
	const char *p;
	size_t n = 0, i;
	int ret;

	*out = NULL;
	ret = resolve_commits(st, &all, &n, prefix);
	for (i = 0, p = all.data; !ret && i < n && i < 5; i++, p += strlen(p) + 1)
		if (buf_printf(&list, "%s%s", i ? ", " : "", p))
			ret = ERR_NOMEM;
	if (ret)
		goto out;
	/* A commit sorts before its extensions: an exact match is first. */
	if (n == 0)
		ret = err_set(ERR_NOTFOUND, "no run has a commit starting with '%s'", prefix);
	else if (n > 1 && strcasecmp(all.data, prefix) != 0)
		ret = err_set(ERR_NOTFOUND, "commit prefix '%s' matches several commits: %s%s",
			      prefix, list.data, n > 5 ? ", ..." : "");
	else if (!(*out = util_strdup(all.data)))
		ret = ERR_NOMEM;
out:
	buf_release(&list);
	buf_release(&all);
	return ret;
}

/*
 * *out = the newest run of the full commit, or with first its oldest: the
 * run "commit~N" counts back from, so that a commit run several times (as
 * CI does) is never "before" itself.
 */
static int resolve_commit_run(struct store *st, int64_t *out, const char *commit, int first)
{
	int64_t count = 0;
	int ret = resolve_nth(st, out, &count, SELECT_COMMIT, commit, 0, 0);

	if (ret || !*out || !first)
		return ret;
	/* past the last run: count them */
	ret = resolve_nth(st, out, &count, SELECT_COMMIT, commit, 0, INT64_MAX);
	if (!ret && count > 0)
		ret = resolve_nth(st, out, &count, SELECT_COMMIT, commit, 0, count - 1);
	return ret;
}

/*
 * The ancestry step of the selectors naming one run (ID, commit, pin):
 * *out = the back-th run recorded before run id, on its branch when it has
 * one, else among all runs ("commit:X~1" is the run before X, as in git).
 */
static int resolve_before(struct store *st, int64_t *out, int64_t id, const struct select_spec *sel)
{
	struct store_run run;
	int64_t count = 0;
	int ret;

	*out = 0;
	ret = store_read_run(st, &run, id);
	if (ret)
		return ret;
	ret = resolve_nth(st, out, &count, run.branch ? SELECT_BRANCH : SELECT_LATEST, run.branch,
			  id, sel->back - 1);
	if (!ret && !*out && count == 0)
		ret = err_set(ERR_NOTFOUND, "no run '%s': run %lld is the first run%s%s", sel->text,
			      (long long)id, run.branch ? " of branch " : " recorded",
			      run.branch ? run.branch : "");
	else if (!ret && !*out)
		ret = err_set(ERR_NOTFOUND,
			      "no run '%s': only %lld run%s recorded before run %lld%s%s",
			      sel->text, (long long)count, count == 1 ? "" : "s", (long long)id,
			      run.branch ? " on branch " : "", run.branch ? run.branch : "");
	store_run_release(&run);
	return ret;
}

/*
 * The error for a run id no run has.  All digits are always an id, but a
 * short hash can be all digits too (the tables print 12 characters): when
 * a stored commit starts with them, the message says how to name it.
 */
static int resolve_no_id(struct store *st, const struct select_spec *sel)
{
	struct buf all = BUF_INIT;
	char digits[32];
	size_t n = 0, len = strspn(sel->text, "0123456789");
	int ret = 0;

	/* the digits as written: a hash may start with zeros */
	snprintf(digits, sizeof(digits), "%.*s", (int)(len < 31 ? len : 31), sel->text);
	if (len >= 4 && len < 31)
		ret = resolve_commits(st, &all, &n, digits);
	if (!ret && n > 0)
		ret = err_set(ERR_NOTFOUND,
			      "no run with id %lld; a commit starts with %s: write 'commit:%s'",
			      (long long)sel->id, digits, sel->text);
	else if (!ret)
		ret = err_set(ERR_NOTFOUND, "no run with id %lld", (long long)sel->id);
	buf_release(&all);
	return ret;
}

/*
 * *id = where "42~N" and "pin:X~N" count back from: the first of the runs
 * of run *id's commit recorded just before it on its branch (or among all
 * runs when it has none), as "commit:X~N" counts from its commit's first
 * run: a commit run several times in a row (as CI does) is never "before"
 * itself.  A run without a commit stays itself.  The branch is the named
 * run's: the commit's runs on another branch do not move it there.
 */
static int resolve_commit_first(struct store *st, int64_t *id)
{
	struct store_run run, prev;
	int64_t p, count;
	int ret = store_read_run(st, &run, *id), same;

	while (!ret && run.commit) {
		p = count = 0;
		ret = resolve_nth(st, &p, &count, run.branch ? SELECT_BRANCH : SELECT_LATEST,
				  run.branch, *id, 0);
		if (ret || !p)
			break;
		ret = store_read_run(st, &prev, p);
		same = !ret && prev.commit && !strcasecmp(prev.commit, run.commit);
		store_run_release(&prev);
		if (!same)
			break;
		*id = p;
	}
	store_run_release(&run);
	return ret;
}

int store_resolve(struct store *st, int64_t *out, const struct select_spec *sel)
{
	struct store_value v;
	char *commit = NULL;
	int64_t count = 0;
	int ret = 0;

	*out = 0;
	switch (sel->kind) {
	case SELECT_ID:
		ret = resolve_exists(st, out, sel->id);
		if (!ret && !*out)
			ret = resolve_no_id(st, sel);
		break;
	case SELECT_PIN:
		v = sql_str(sel->name);
		ret = store_sql_int(st, out, NULL, SQL_PIN_GET, &v, 1);
		if (!ret && !*out)
			ret = resolve_missing(st, sel);
		break;
	case SELECT_LATEST:
	case SELECT_TAG:
	case SELECT_BRANCH:
	case SELECT_LABEL:
		ret = resolve_nth(st, out, &count, sel->kind, sel->name, 0, sel->back);
		/* a name that itself ends in ^ or ~N ("tag:rc^" with no tag
		 * "rc"): the name as written, suffix and all */
		if (!ret && !*out && !count && sel->kind != SELECT_LATEST &&
		    strcmp(sel->name, strchr(sel->text, ':') + 1) != 0)
			ret = resolve_nth(st, out, &count, sel->kind, strchr(sel->text, ':') + 1, 0,
					  0);
		if (!ret && !*out)
			ret = nth_error(st, sel, count);
		break;
	case SELECT_COMMIT:
		ret = resolve_commit(st, &commit, sel->name);
		if (!ret)
			ret = resolve_commit_run(st, out, commit, sel->back > 0);
		if (!ret && !*out)
			ret = err_set(ERR_NOTFOUND, "no run has a commit starting with '%s'",
				      sel->name);
		break;
	case SELECT_BASE:
		/* git's answer, not the store's: runarg_resolve() (ancestry.h) */
		ret = err_set(ERR_USAGE,
			      "'%s' names a run by git ancestry: diff, check, show, meta and "
			      "report take it, this command does not",
			      sel->text);
		break;
	}
	free(commit);
	if (!ret && sel->back > 0 && (sel->kind == SELECT_ID || sel->kind == SELECT_PIN))
		ret = resolve_commit_first(st, out);
	if (!ret && sel->back > 0 &&
	    (sel->kind == SELECT_ID || sel->kind == SELECT_PIN || sel->kind == SELECT_COMMIT))
		ret = resolve_before(st, out, *out, sel);
	return ret;
}
