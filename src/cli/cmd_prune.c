/*
 * cmd_prune.c - "scopedb prune": remove old runs from the store, keeping
 * the newest N of each branch (--keep-last, 1 by default: age alone
 * never empties a branch) and every pinned run.  A run is
 * pruned when it is older than --older-than (recorded time, else ingest
 * time, strictly before the date), is not among the --keep-last newest runs
 * of its branch (the runs without a branch count as one branch), is on
 * --branch when given, and is not pinned.  Everything is removed in one
 * transaction; --dry-run rolls it back, so the runs and bytes it reports
 * are measured exactly as a real prune would free them.  The bytes are
 * the store space the removed runs took (store_used_bytes() before and
 * after); "scopedb vacuum" gives them back to the file system.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "cli/cli.h"
#include "cli/hint.h"
#include "scopedb/err.h"
#include "scopedb/filter.h"
#include "scopedb/store.h"
#include "scopedb/util.h"
#include "util/strmap.h"

const struct opt_cmd cmd_prune_usage = {
    .name = "prune",
    .after = "Removes the runs older than DATE that are not among the newest N runs of their\n"
	     "branch (runs without a branch count as one branch); at least one of\n"
	     "--older-than and --keep-last is needed, and --older-than alone keeps the\n"
	     "newest run of each branch: age alone never empties a branch.  Pinned runs\n"
	     "are never removed.  All runs are removed in one transaction; 'scopedb\n"
	     "vacuum' then gives the space back to the file system.",
    .summary = "remove old runs, keeping the newest of each branch and pinned runs",
};

/* The pins naming run_id, comma-separated, appended to out (empty when
 * the run is not pinned). */
static int prune_pins_of(struct buf *out, const struct store_pin *pins, size_t npins,
			 int64_t run_id)
{
	size_t i;
	int rc = 0;

	for (i = 0; i < npins && !rc; i++)
		if (pins[i].run_id == run_id)
			rc = buf_printf(out, "%s'%s'", out->len ? ", " : "", pins[i].name);
	return rc ? err_nomem() : 0;
}

/* What a prune decided: runs[i] is removed when remove[i], kept as pinned
 * when pinned[i] (the pin names in pin_names[i]). */
struct prune_plan {
	struct store_run *runs;
	size_t n;
	char *remove;
	char **pin_names;
	size_t nremoved, npinned;
	int64_t bytes;
};

static void prune_plan_release(struct prune_plan *p)
{
	size_t i;

	for (i = 0; p->pin_names && i < p->n; i++)
		free(p->pin_names[i]);
	free(p->pin_names);
	free(p->remove);
	store_runs_free(p->runs, p->n);
	memset(p, 0, sizeof(*p));
}

/*
 * Inside the caller's transaction: find the runs to prune (runs newest
 * first, so the first keep of each branch are kept) and remove them,
 * measuring the bytes they took.
 */
static int prune_run(struct store *st, struct prune_plan *p, const struct filter *f,
		     const char *older_than, long keep)
{
	struct store_pin *pins = NULL;
	struct strmap branches;
	size_t *seen = NULL, npins = 0, i, b;
	char *unpinned = NULL;
	int64_t before = 0, after = 0;
	int rc;

	strmap_init(&branches);
	rc = store_used_bytes(st, &before);
	if (!rc)
		rc = store_find_runs(st, &p->runs, &p->n, f);
	if (!rc)
		rc = store_list_pins(st, &pins, &npins);
	if (rc)
		goto out;
	p->remove = calloc(p->n + 1, 1);
	p->pin_names = calloc(p->n + 1, sizeof(*p->pin_names));
	seen = calloc(p->n + 1, sizeof(*seen));
	if (!p->remove || !p->pin_names || !seen) {
		rc = err_nomem();
		goto out;
	}
	for (i = 0; i < p->n && !rc; i++) {
		const struct store_run *r = &p->runs[i];
		const char *t = r->recorded_at ? r->recorded_at : r->ingested_at;
		struct buf names = BUF_INIT;

		rc = strmap_intern(&b, &branches, r->branch ? r->branch : "");
		if (rc)
			break;
		if (keep && (long)seen[b]++ < keep)
			continue;
		if (older_than && strcmp(t ? t : "", older_than) >= 0)
			continue;
		rc = prune_pins_of(&names, pins, npins, r->id);
		if (!rc && names.len) {
			p->pin_names[i] = names.data;
			p->npinned++;
			continue;
		}
		buf_release(&names);
		if (!rc)
			rc = store_remove_run(st, &unpinned, r->id, 0);
		free(unpinned); /* NULL: pinned runs were skipped */
		unpinned = NULL;
		if (!rc) {
			p->remove[i] = 1;
			p->nremoved++;
		}
	}
	if (!rc)
		rc = store_used_bytes(st, &after);
	p->bytes = before > after ? before - after : 0;
out:
	free(seen);
	strmap_release(&branches);
	store_pins_free(pins, npins);
	return rc;
}

/* One line per pruned or kept run, oldest first, then the totals. */
static void prune_print(const struct prune_plan *p, int dry)
{
	struct buf q = BUF_INIT, q2 = BUF_INIT;
	char size[32];
	size_t i;

	for (i = p->n; i-- > 0;) {
		const struct store_run *r = &p->runs[i];
		const char *t = r->recorded_at ? r->recorded_at : r->ingested_at;

		if (p->remove[i])
			printf("%s run %" PRId64 " (recorded %s, branch %s)\n",
			       dry ? "would remove" : "removed", r->id, cli_outq(&q, t ? t : "-"),
			       cli_outq(&q2, r->branch ? r->branch : "-"));
		else if (p->pin_names[i])
			printf("kept run %" PRId64 " (pinned as %s)\n", r->id,
			       cli_outq(&q, p->pin_names[i]));
	}
	buf_release(&q);
	buf_release(&q2);
	cli_bytes(size, sizeof(size), p->bytes);
	printf("%s %zu run%s (%s)", dry ? "would prune" : "pruned", p->nremoved,
	       p->nremoved == 1 ? "" : "s", size);
	if (p->npinned)
		printf("; %zu pinned run%s kept", p->npinned, p->npinned == 1 ? "" : "s");
	if (!dry && p->nremoved)
		printf("; 'scopedb vacuum' gives the space back to the file system");
	printf("\n");
}

int cmd_prune(int argc, char **argv)
{
	const struct opt_cmd *self = &cmd_prune_usage;
	struct prune_plan plan;
	struct store *st = NULL;
	struct filter f;
	const char *db = NULL;
	char older[24] = "";
	long keep = 0;
	int dry = 0, allow_nfs = 0, said = 0, code = CLI_EXIT_ERROR;
	const struct opt opts[] = {
	    OPT__DB(&db),
	    OPT__ALLOW_NETWORK_FS(&allow_nfs),
	    OPT_CALLBACK(0, "older-than", older, "DATE",
			 "remove runs recorded before DATE (2026-11-30,\n"
			 "2026-11-30T02:00:00Z, or an age: 90d, 12w, 24h)",
			 cli_opt_date, (intptr_t)sizeof(older)),
	    OPT_CALLBACK(0, "keep-last", OPT_TYPED(long *, &keep), "N",
			 "keep the newest N runs of each branch, whatever their age\n"
			 "(default 1 with --older-than)",
			 cli_opt_positive, 0),
	    OPT__FILTER_BRANCH(&f.branch),
	    OPT_FLAG('n', "dry-run", &dry, "only say what would be removed"),
	    OPT_END(),
	};

	memset(&plan, 0, sizeof(plan));
	memset(&f, 0, sizeof(f));
	if (opt_parse(self, opts, argc, argv, &code) < 0)
		goto out;
	if (!older[0] && !keep) {
		code = opt_usage_error(self, opts,
				       "prune needs --older-than DATE or --keep-last N (or both)");
		goto out;
	}
	/* a branch whose job paused must not lose its whole history to age */
	if (!keep)
		keep = 1;
	if (!dry)
		cli_warn_network_fs(cli_db_path(db), allow_nfs);
	if (store_open(&st, cli_db_path(db), STORE_EXISTING) || store_begin(st)) {
		code = cli_error();
		goto out;
	}
	if (prune_run(st, &plan, &f, older[0] ? older : NULL, keep)) {
		store_rollback(st);
		code = cli_error();
		goto out;
	}
	if (dry) {
		store_rollback(st);
	} else if (store_commit(st)) {
		code = cli_error();
		goto out;
	}
	/* a --branch no stored run has: said with the nearest one, as runs
	 * says it (still exit 0: nothing matched, nothing was removed) */
	if (!plan.nremoved && hint_filter(&said, st, &f)) {
		code = cli_error();
		goto out;
	}
	prune_print(&plan, dry);
	code = cli_finish(CLI_EXIT_OK);
out:
	prune_plan_release(&plan);
	store_close(st);
	return code;
}
