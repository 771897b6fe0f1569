/*
 * hint.c - what a command says when a run filter (--tag, --branch,
 * --label) matched nothing because no stored run has the name given: the
 * name, and the nearest stored one (see hint.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/hint.h"
#include "scopedb/err.h"
#include "scopedb/util.h"
#include "util/suggest.h"

/* 1 after adding to out a message (ended by a NUL byte: a name may hold a
 * line break) saying that no stored run has what (tag, branch, label)
 * name, with the nearest of the n stored names cands; 0 when one has it
 * (or on out of memory: the plain message follows). */
static int hint_absent(struct buf *out, const char *what, const char *name,
		       const char *const *cands, size_t n)
{
	struct buf hint = BUF_INIT;
	size_t i;
	int said;

	for (i = 0; i < n; i++)
		if (cands[i] && !strcmp(cands[i], name))
			return 0;
	if (suggest_hint(&hint, name, cands, n))
		return 0;
	said = !buf_printf(out, "no run has %s '%s'%s", what, name, hint.data ? hint.data : "") &&
	       !buf_add(out, "", 1);
	buf_release(&hint);
	return said;
}

int hint_filter_text(struct buf *out, struct store *st, const struct filter *f)
{
	struct store_run *all = NULL;
	const char **tags = NULL, **branches = NULL, **labels = NULL;
	size_t n = 0, ntags = 0, i, k;
	int rc;

	if (!f->ntags && !f->branch && !f->label)
		return 0;
	rc = store_list_runs(st, &all, &n);
	for (i = 0; !rc && i < n; i++)
		ntags += all[i].ntags;
	if (!rc && (!(tags = util_calloc(ntags + 1, sizeof(*tags))) ||
		    !(branches = util_calloc(n + 1, sizeof(*branches))) ||
		    !(labels = util_calloc(n + 1, sizeof(*labels)))))
		rc = err_nomem();
	for (i = 0, ntags = 0; !rc && i < n; i++) {
		for (k = 0; k < all[i].ntags; k++)
			tags[ntags++] = all[i].tags[k];
		branches[i] = all[i].branch;
		labels[i] = all[i].label;
	}
	for (i = 0; !rc && i < f->ntags; i++)
		hint_absent(out, "tag", f->tags[i], tags, ntags);
	if (!rc && f->branch)
		hint_absent(out, "branch", f->branch, branches, n);
	if (!rc && f->label)
		hint_absent(out, "label", f->label, labels, n);
	free(tags);
	free(branches);
	free(labels);
	store_runs_free(all, n);
	return rc;
}

int hint_filter(int *said, struct store *st, const struct filter *f)
{
	struct buf text = BUF_INIT;
	size_t at;
	int rc = hint_filter_text(&text, st, f);

	*said = 0;
	for (at = 0; !rc && at < text.len; at += strlen(text.data + at) + 1) {
		cli_print_error(text.data + at);
		*said = 1;
	}
	buf_release(&text);
	return rc;
}

int hint_filter_error(struct store *st, const struct filter *f, const char *otherwise)
{
	struct buf text = BUF_INIT;
	int rc = hint_filter_text(&text, st, f);

	if (!rc && text.len) {
		rc = err_set(ERR_NOTFOUND, "%s", text.data); /* the first one */
	} else if (!rc) {
		rc = err_set(ERR_NOTFOUND, "%s", otherwise);
	}
	buf_release(&text);
	return rc;
}

int hint_none(struct store *st, const struct filter *f, int filtered)
{
	int said = 0, rc;

	if (!filtered) {
		cli_print_errorf("no runs stored in '%s'", store_location(st));
		return 0;
	}
	rc = hint_filter(&said, st, f);
	if (!rc && !said)
		cli_print_error("no run matches the filters");
	return rc;
}
