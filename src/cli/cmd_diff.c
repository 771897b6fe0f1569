/*
 * cmd_diff.c - "scopedb diff A B": compare one metric of every region of two
 * runs (stored runs by selector, or files).  Also holds cmd_compare(), the
 * options (and usage texts) and output shared with "scopedb check"
 * (cmd_check.c); the work itself is compare_runs(), the document
 * report_doc().
 *
 * The document goes to stdout in --format and, with --output FORMAT=FILE,
 * into files as well (cli_print_doc_outputs()).  When nothing was compared
 * (compare_result.nothing) check fails and diff warns.
 *
 * Exit status: diff 0; check 0 on PASS and 1 on FAIL; 2 on any error; a
 * statistical check (--stat, a window) 3 on INCONCLUSIVE unless
 * --inconclusive maps it to 0 or 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "cli/cli.h"
#include "cli/output.h"
#include "scopedb/compare.h"
#include "scopedb/err.h"
#include "select/match.h"
#include "render/render.h"
#include "render/report.h"
#include "scopedb/stats.h"
#include "scopedb/util.h"

/* The selector forms, in the help of diff and check. */
#define COMPARE_SELECTORS                                                                          \
	"    42  latest  tag:NAME  commit:PREFIX  1a2b3c4  branch:NAME  label:NAME\n"              \
	"    pin:NAME  run.h5  run.json  run.json.gz  (a selector may end in ~N or ^)\n"           \
	"    base:REF  the newest stored run on the first-parent ancestry of the merge\n"          \
	"              base of HEAD and the git revision REF (docs/selectors.md)\n"                \
	"--include, --exclude and --ranks take one or more values, up to the next\n"               \
	"option: put the runs first, or end the values with --."

const struct opt_cmd cmd_diff_usage = {
    .name = "diff",
    .args = "A B",
    .before = "A and B are stored runs (selectors) or profile files:\n" COMPARE_SELECTORS,
    .after = "With --stat or a window each row gets the ratio B/A of the two run sets,\n"
	     "its 95% interval, a p-value and a verdict against a zero budget\n"
	     "(docs/statistics.md).",
    .summary = "compare one metric of every region of two runs",
    OPT_ARGS(2, 2, "diff needs two runs (selectors or files)"),
};

const struct opt_cmd cmd_check_usage = {
    .name = "check",
    .args = "BASELINE CANDIDATE\nBASELINE FILE FILE...",
    .before =
	"BASELINE and CANDIDATE are stored runs (selectors) or profile files:\n" COMPARE_SELECTORS,
    .after = "Exit status: 0 PASS, 1 FAIL (budget exceeded), 2 error (also when nothing\n"
	     "was compared, or the runs differ in mpi_size, platform or a\n"
	     "--require-same key), 3 INCONCLUSIVE (a statistical check that could not\n"
	     "decide; --inconclusive maps it to 0 or 1).\n"
	     "With --stat or a window each region gets a verdict (regressed, improved,\n"
	     "unchanged, inconclusive, no evidence) from run sets and the noise of the\n"
	     "baseline's history; only inconclusive (a sign of a slowdown) makes the\n"
	     "check INCONCLUSIVE: see docs/statistics.md.\n"
	     "Several candidate files (or --candidate-files) are repetitions of one\n"
	     "candidate, none of them stored: a point check compares each region's\n"
	     "median over them, a statistical check takes them as the candidate set.",
    .summary = "fail (exit 1) when a run regressed against a baseline",
    OPT_ARGS(2, OPT_ARGS_ANY, "check needs two runs (selectors or files)"),
    .args_option = "candidate-files",
};

/* --sort KEY (enum stats_sort *). */
static int compare_opt_sort(const struct opt *opt, const char *arg)
{
	return stats_sort_parse(opt->value, arg);
}

/* --threshold PCT (struct compare_opts *: the value and has_threshold). */
static int compare_opt_threshold(const struct opt *opt, const char *arg)
{
	struct compare_opts *co = opt->value;

	co->has_threshold = 1;
	return stats_parse_percent(&co->threshold, "--threshold", arg, 1);
}

/* --inconclusive pass|fail (int *: the exit status of INCONCLUSIVE). */
static int compare_opt_inconclusive(const struct opt *opt, const char *arg)
{
	if (!strcmp(arg, "pass") || !strcmp(arg, "fail")) {
		*(int *)opt->value = arg[0] == 'p' ? CLI_EXIT_OK : CLI_EXIT_FAIL;
		return 0;
	}
	return err_set(ERR_USAGE, "invalid --inconclusive '%s': expected pass or fail", arg);
}

/* The renderers check offers: also those of its findings (github,
 * codequality), which a diff has none of. */
#define COMPARE_CHECK_KINDS (RENDER_NEEDS_COMPARISON | RENDER_NEEDS_FINDINGS)

/* 1 when --format fmt or an --output FORMAT=FILE needs the findings'
 * source locations (the formats are checked later). */
static int compare_wants_findings(const char *fmt, const struct opt_list *outs)
{
	const struct renderer *r = render_find(fmt);
	char name[32];
	size_t i, n;

	if (r && (r->needs & RENDER_NEEDS_FINDINGS))
		return 1;
	for (i = 0; i < outs->n; i++) {
		n = strcspn(outs->v[i], "=");
		if (n >= sizeof(name))
			continue;
		memcpy(name, outs->v[i], n);
		name[n] = '\0';
		r = render_find(name);
		if (r && (r->needs & RENDER_NEEDS_FINDINGS))
			return 1;
	}
	return 0;
}

/* What the comparison's document is made of. */
struct compare_view {
	const struct compare_result *res;
	const struct compare_opts *co;
};

static int compare_document(struct doc *d, const void *ctx)
{
	const struct compare_view *v = ctx;

	report_doc(d, v->res, v->co);
	return 0;
}

int cmd_compare(int argc, char **argv, int check)
{
	struct opt_list outs = OPT_LIST_INIT;
	struct cli_regions regions = CLI_REGIONS_INIT;
	struct opt_list same = OPT_LIST_INIT, allow = OPT_LIST_INIT, cands = OPT_LIST_INIT;
	struct opt_list reps = OPT_LIST_INIT; /* the candidate and its repetitions */
	struct cli_same like;
	const char *db = NULL;
	const char *fmt = "table";
	struct compare_opts co;
	struct compare_result res;
	struct i64vec ranks;
	int inconclusive = CLI_EXIT_INCONCLUSIVE;
	/* The options of both, then those of diff only or check only. */
#define COMPARE_OPTS(kinds)                                                                        \
	OPT__DB(&db), OPT__METRIC(&co.metric), OPT__REGIONS(&regions), OPT__BY(&co.by_path),       \
	    OPT__RANKS(&ranks),                                                                    \
	    OPT__FORMAT(&fmt, cli_formats_all("table markdown csv json", kinds)),                  \
	    OPT__FILE_LIMITS(),                                                                    \
	    OPT_LIST(0, "output", &outs, "FORMAT=FILE",                                            \
		     "also write the report in FORMAT to FILE (repeatable)"),                      \
	    OPT__UNITS(), OPT__COLOR()
	const struct opt diff_opts[] = {
	    COMPARE_OPTS(RENDER_NEEDS_COMPARISON),
	    OPT_CHOICE(0, "sort", &co.sort, "KEY", NULL, "delta pct name", compare_opt_sort),
	    OPT_FLAG(0, "tree", &co.tree,
		     "the paths as a tree, each under its parent, siblings\n"
		     "in --sort order (implies --by path; --by name is refused)"),
	    OPT_CALLBACK(0, "threshold", &co, "PCT", "hide rows whose |delta %| is below PCT",
			 compare_opt_threshold, 0),
	    OPT__STAT(&co),
	    OPT__SAME(&like, "the first run's"),
	    OPT_END(),
	};
	const struct opt check_opts[] = {
	    COMPARE_OPTS(COMPARE_CHECK_KINDS),
	    OPT__PERCENT("max-regression", &co.max_regression,
			 "fail when a region's metric grows by more than PCT %\n(default 0)", 1),
	    OPT_FLAG(0, "fail-on-new", &co.fail_on_new,
		     "also fail on regions without a baseline value"),
	    OPT_FLAG(0, "fail-on-missing", &co.fail_on_missing,
		     "also fail on baseline regions the candidate lacks or\ndoes not call"),
	    OPT_LIST(0, "require-same", &same, "KEY",
		     "fail (exit 2) when the runs' metadata KEY differs\n(repeatable; mpi_size and "
		     "platform always)"),
	    OPT__ALLOW_DIFFERENT(&allow),
	    OPT_LIST_MULTI(0, "candidate-files", &cands, "FILE...",
			   "more profile files of the candidate, each one repetition\n(not stored; "
			   "also given after CANDIDATE)"),
	    OPT__STAT(&co),
	    OPT__SAME(&like, "the baseline's"),
	    OPT_CHOICE(0, "inconclusive", &inconclusive, "MODE",
		       "exit 0 or 1 instead of 3 when the check is INCONCLUSIVE", "pass fail",
		       compare_opt_inconclusive),
	    OPT_END(),
	};
#undef COMPARE_OPTS
	const struct opt_cmd *self = check ? &cmd_check_usage : &cmd_diff_usage;
	const struct opt *opts = check ? check_opts : diff_opts;
	struct buf q = BUF_INIT;
	int code = CLI_EXIT_ERROR, nargs;
	size_t i;

	memset(&co, 0, sizeof(co));
	memset(&res, 0, sizeof(res));
	memset(&like, 0, sizeof(like));
	i64vec_init(&ranks);
	co.metric = STATS_TOTAL;
	co.sort = STATS_SORT_DELTA;
	co.check = check;
	co.by_path = -1; /* --by not given */
	nargs = opt_parse(self, opts, argc, argv, &code);
	if (nargs < 0 || cli_tree_by(self, opts, &co.by_path, co.tree, &code))
		goto out;
	if (ranks.len) {
		match_ranks_finish(&ranks);
		co.ranks = ranks.v;
		co.nranks = ranks.len;
	}
	co.db_path = cli_db_path(db);
	co.includes = regions.include.v;
	co.ninclude = regions.include.n;
	co.excludes = regions.exclude.v;
	co.nexclude = regions.exclude.n;
	co.require_same = same.v;
	co.nrequire_same = same.n;
	co.allow_different = allow.v;
	co.nallow_different = allow.n;
	/* check BASELINE FILE FILE... and --candidate-files: the files after
	 * the first candidate are its repetitions */
	for (i = 1; i < (size_t)nargs || i - (size_t)nargs < cands.n; i++)
		if (opt_list_push(&reps,
				  i < (size_t)nargs ? argv[i] : cands.v[i - (size_t)nargs])) {
			code = cli_error();
			goto out;
		}
	co.cand_files = reps.v + 1;
	co.ncand_files = reps.n - 1;
	co.locations = check && compare_wants_findings(fmt, &outs);
	if (cli_same_spec(&like)) {
		code = cli_error();
		goto out;
	}
	co.same = like.spec.keys;
	co.nsame = like.spec.nkeys;
	co.same_from_env = like.spec.from_env;
	if (cli_outputs_check(
		outs.v, outs.n,
		cli_formats_all("table markdown csv json",
				check ? COMPARE_CHECK_KINDS : RENDER_NEEDS_COMPARISON)) ||
	    compare_runs(&res, argv[0], reps.v[0], &co)) {
		code = cli_error();
		goto out;
	}
	/* no --output over a profile it read (a selector's file namesake in
	 * the working directory is not read) */
	if (res.a.is_file)
		cli_protect_input(argv[0]);
	for (i = 0; res.b.is_file && i < reps.n; i++)
		cli_protect_input(reps.v[i]);
	if (res.partial && check) {
		/* a gate that sees some ranks only must not decide */
		if (co.by_path)
			fprintf(stderr,
				"scopedb: cannot check by path: %s; check --by name, or choose "
				"ranks with a tree (--ranks)\n",
				cli_msgq(&q, res.partial));
		else
			fprintf(stderr,
				"scopedb: cannot check self times: %s; check another metric "
				"(--metric total)\n",
				cli_msgq(&q, res.partial));
		goto out;
	}
	if (res.partial)
		fprintf(stderr, "scopedb: warning: %s\n", cli_msgq(&q, res.partial));
	if (res.partial_other)
		fprintf(stderr, "scopedb: warning: %s\n", cli_msgq(&q, res.partial_other));
	if ((res.nothing || res.valueless) && check) {
		/* a check that compared nothing must not pass */
		fprintf(stderr, "scopedb: nothing to compare: %s\n",
			cli_msgq(&q, res.nothing ? res.nothing : res.valueless));
		goto out;
	}
	if (res.nothing)
		fprintf(stderr, "scopedb: warning: nothing to compare: %s\n",
			cli_msgq(&q, res.nothing));
	/* a check of a run against itself passes on nothing compared: said,
	 * so that a baseline set wrong does not pass unseen (a window refuses
	 * it once the store has an earlier run, runset.c; a first night's run
	 * checked against its own pin, or --stat against it alone, stands) */
	if (check && reps.n == 1 && compare_same_sides(&res)) {
		struct buf qb = BUF_INIT;

		if (res.a.is_file)
			fprintf(
			    stderr,
			    "scopedb: warning: the baseline and the candidate are the same file "
			    "'%s': nothing was compared with another run\n",
			    cli_msgq(&q, argv[0]));
		else
			fprintf(
			    stderr,
			    "scopedb: warning: the baseline '%s' and the candidate '%s' are the "
			    "same run %lld: nothing was compared with an earlier run\n",
			    cli_msgq(&q, argv[0]), cli_msgq(&qb, reps.v[0]),
			    (long long)res.a.run.id);
		buf_release(&qb);
	}
	{
		const struct compare_view v = {&res, &co};

		co.inconclusive_fails = inconclusive == CLI_EXIT_FAIL;

		/* the exit status of a verdict: decided here, nowhere else */
		code =
		    cli_print_doc_outputs(compare_document, &v, fmt, cli_use_color(stdout),
					  res.verdict.kind == VERDICT_FAIL	     ? CLI_EXIT_FAIL
					  : res.verdict.kind == VERDICT_INCONCLUSIVE ? inconclusive
										     : CLI_EXIT_OK,
					  outs.v, outs.n, co.db_path);
	}
out:
	buf_release(&q);
	compare_release(&res);
	i64vec_release(&ranks);
	cli_regions_release(&regions);
	opt_list_release(&outs);
	opt_list_release(&same);
	opt_list_release(&allow);
	opt_list_release(&cands);
	opt_list_release(&reps);
	cli_same_release(&like);
	return code;
}

int cmd_diff(int argc, char **argv)
{
	return cmd_compare(argc, argv, 0);
}
