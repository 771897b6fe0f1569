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

/* 1 after saying on stderr that no stored run has what (tag, branch,
 * label) name, with the nearest of the n stored names cands; 0 when one
 * has it (or on out of memory: the plain message follows). */
static int hint_absent(const char *what, const char *name, const char *const *cands, size_t n)
{
	struct buf hint = BUF_INIT;
	size_t i;

	for (i = 0; i < n; i++)
		if (cands[i] && !strcmp(cands[i], name))
			return 0;
	if (suggest_hint(&hint, name, cands, n))
		return 0;
	cli_print_errorf("no run has %s '%s'%s", what, name, hint.data ? hint.data : "");
	buf_release(&hint);
	return 1;
}

int hint_filter(int *said, struct store *st, const struct filter *f)
{
	struct store_run *all = NULL;
	const char **tags = NULL, **branches = NULL, **labels = NULL;
	size_t n = 0, ntags = 0, i, k;
	int rc;

	*said = 0;
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
		*said |= hint_absent("tag", f->tags[i], tags, ntags);
	if (!rc && f->branch)
		*said |= hint_absent("branch", f->branch, branches, n);
	if (!rc && f->label)
		*said |= hint_absent("label", f->label, labels, n);
	free(tags);
	free(branches);
	free(labels);
	store_runs_free(all, n);
	return rc;
}
