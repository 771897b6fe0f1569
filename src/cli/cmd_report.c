/*
 * cmd_report.c - "scopedb report [BASELINE CANDIDATE] -o report.html": one
 * self-contained HTML page with the check of two runs or run sets, each
 * region's trend over the last N runs of a branch or tag, both runs'
 * call-duration distributions and the region x rank heatmaps.  The data
 * is reportdata_build() (src/analysis/reportdata.c), the page
 * render_html_report() (src/render/render_html.c); -o is written as
 * --output writes a file (cli_write_file(): a temporary file, then a
 * rename).  A report is not a gate: it exits 0 whatever the verdict.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "cli/cli.h"
#include "cli/hint.h"
#include "cli/output.h"
#include "analysis/reportdata.h"
#include "render/render_html.h"
#include "scopedb/err.h"
#include "scopedb/filter.h"
#include "scopedb/store.h"
#include "scopedb/util.h"

/* Runs per trend by default (issue 16). */
#define REPORT_HISTORY 50

const struct opt_cmd cmd_report_usage = {
    .name = "report",
    .args = "[BASELINE CANDIDATE]\nBASELINE FILE FILE...",
    .before = "BASELINE and CANDIDATE are runs as check takes them (selectors or files;\n"
	      "files after the first are repetitions of one candidate, whose verdict is the\n"
	      "set's, as check gives it); the trends come from the store, which is needed\n"
	      "even for two files.",
    .after = "The page has the check's verdict (as scopedb check computes it), a chart of\n"
	     "each region's metric over the last N runs (default 50) of --branch, --tag or\n"
	     "the candidate's branch, both runs' call-duration box plots and the region x\n"
	     "rank heatmaps.  It is one file with inline SVG and no network access.\n"
	     "Exit status 0 whatever the verdict (use check to gate), 2 on errors.",
    .summary = "write an HTML report: verdict, trends, distributions, ranks",
    .max_args = OPT_ARGS_ANY,
};

/*
 * A --branch or --tag of the report that no stored run has: the first
 * such name with the nearest stored one ("no run has branch 'mian'; did
 * you mean 'main'?"), malloc'ed, or NULL (none, or no store to ask).
 */
static char *report_hint(const struct reportdata_opts *ro)
{
	const char *tags[1] = {ro->tag};
	struct filter f;
	struct store *st = NULL;
	struct buf text = BUF_INIT;
	char *hint = NULL;

	memset(&f, 0, sizeof(f));
	f.branch = ro->branch;
	f.tags = tags;
	f.ntags = ro->tag ? 1 : 0;
	if ((ro->branch || ro->tag) && !store_open(&st, ro->cmp.db_path, STORE_READONLY) &&
	    !hint_filter_text(&text, st, &f) && text.len)
		hint = util_strdup(text.data); /* the first message */
	buf_release(&text);
	store_close(st);
	return hint;
}

int cmd_report(int argc, char **argv)
{
	const struct opt_cmd *self = &cmd_report_usage;
	struct opt_list allow = OPT_LIST_INIT;
	struct cli_regions regions = CLI_REGIONS_INIT;
	const char *db = NULL, *path = NULL;
	struct reportdata_opts ro;
	struct reportdata rd;
	struct cli_same like;
	struct buf page = BUF_INIT;
	char *hint = NULL;
	long history = REPORT_HISTORY;
	int code = CLI_EXIT_ERROR, nargs, i;
	const struct opt opts[] = {
	    OPT__DB(&db),
	    OPT__METRIC(&ro.cmp.metric),
	    OPT__REGIONS(&regions),
	    OPT__BY(&ro.cmp.by_path),
	    OPT_CALLBACK(0, "history", OPT_TYPED(long *, &history), "N",
			 "runs per trend chart (default 50)", cli_opt_positive, 0),
	    OPT_STRING(0, "branch", &ro.branch, "B",
		       "trends of branch B (default: the candidate's branch)"),
	    OPT_STRING(0, "tag", &ro.tag, "T", "trends of the runs tagged T"),
	    OPT__PERCENT("max-regression", &ro.cmp.max_regression,
			 "the check's budget: a region's metric may grow by PCT %\n(default 0)", 1),
	    OPT__STAT(&ro.cmp),
	    OPT__ALLOW_DIFFERENT(&allow),
	    OPT__SAME(&like, "the baseline's or, without\nruns, the newest run's"),
	    OPT__FILE_LIMITS(),
	    OPT_STRING('o', "output", &path, "FILE", "write the page to FILE (default: stdout)"),
	    OPT_END(),
	};

	memset(&ro, 0, sizeof(ro));
	memset(&rd, 0, sizeof(rd));
	memset(&like, 0, sizeof(like));
	ro.cmp.metric = STATS_TOTAL;
	nargs = opt_parse(self, opts, argc, argv, &code);
	if (nargs < 0)
		goto out;
	if (nargs == 1) {
		code = opt_usage_error(self, opts,
				       "report needs no run or two (BASELINE CANDIDATE), not one");
		goto out;
	}
	if (ro.branch && ro.tag) {
		code = opt_usage_error(self, opts, "--branch and --tag cannot be combined");
		goto out;
	}
	ro.cmp.db_path = cli_db_path(db);
	ro.cmp.includes = regions.include.v;
	ro.cmp.ninclude = regions.include.n;
	ro.cmp.excludes = regions.exclude.v;
	ro.cmp.nexclude = regions.exclude.n;
	ro.cmp.allow_different = allow.v;
	ro.cmp.nallow_different = allow.n;
	if (cli_same_spec(&like)) {
		code = cli_error();
		goto out;
	}
	ro.cmp.same = like.spec.keys;
	ro.cmp.nsame = like.spec.nkeys;
	ro.cmp.same_from_env = like.spec.from_env;
	ro.cmp.check = 1;
	ro.history = (size_t)history;
	if (nargs >= 2) {
		ro.baseline = argv[0];
		ro.candidate = argv[1];
		ro.cmp.cand_files = (const char *const *)argv + 2;
		ro.cmp.ncand_files = (size_t)nargs - 2;
	}
	if (reportdata_build(&rd, &ro)) {
		/* no run of the trends' --branch or --tag: say why when no run
		 * has that name at all */
		if (err_code() == ERR_NOTFOUND && (hint = report_hint(&ro)))
			err_set(ERR_NOTFOUND, "%s", hint);
		code = cli_error();
		goto out;
	}
	/* no -o over a profile it read (not a selector's file namesake) */
	for (i = 0; rd.compared && i < nargs; i++)
		if (i ? rd.cmp.b.is_file : rd.cmp.a.is_file)
			cli_protect_input(argv[i]);
	/* the page is made with no trend; the name is likely mistyped */
	if ((hint = report_hint(&ro))) {
		struct buf q = BUF_INIT;

		fprintf(stderr, "scopedb: warning: %s\n", cli_msgq(&q, hint));
		buf_release(&q);
	}
	code =
	    render_html_report(&page, &rd, &ro.cmp) || cli_write_file(path, &page, ro.cmp.db_path)
		? cli_error()
		: cli_finish(CLI_EXIT_OK);
out:
	free(hint);
	reportdata_release(&rd);
	buf_release(&page);
	cli_regions_release(&regions);
	opt_list_release(&allow);
	cli_same_release(&like);
	return code;
}
