/*
 * cmd_diff.c - "scopedb diff A B": compare one metric of every region of two
 * runs (stored runs by selector, or files).  Also holds cmd_compare(), the
 * option parsing and printing shared with "scopedb check" (cmd_check.c);
 * the work itself is compare_runs(), the document report_doc().
 *
 * Exit status: diff 0; check 0 on PASS and 1 on FAIL; 2 on any error.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "cli/cli.h"
#include "cli/output.h"
#include "scopedb/compare.h"
#include "scopedb/err.h"
#include "select/match.h"
#include "render/report.h"
#include "scopedb/stats.h"
#include "scopedb/util.h"

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

/* The comparison's document (report.h), rendered in fmt into out. */
static int compare_output(struct buf *out, const struct compare_result *res,
			  const struct compare_opts *co, enum cli_format fmt)
{
	const struct compare_view v = {res, co};

	return cli_output(out, compare_document, &v, fmt, cli_use_color(stdout));
}

int cmd_compare(int argc, char **argv, int check)
{
	static const struct option diff_opts[] = {
	    {"db", required_argument, NULL, 'd'},      {"metric", required_argument, NULL, 'm'},
	    {"sort", required_argument, NULL, 's'},    {"threshold", required_argument, NULL, 't'},
	    {"include", required_argument, NULL, 'i'}, {"exclude", required_argument, NULL, 'x'},
	    {"ranks", required_argument, NULL, 'r'},   {"format", required_argument, NULL, 'f'},
	    {"help", no_argument, NULL, 'h'},	       {NULL, 0, NULL, 0},
	};
	static const struct option check_opts[] = {
	    {"db", required_argument, NULL, 'd'},
	    {"metric", required_argument, NULL, 'm'},
	    {"max-regression", required_argument, NULL, 'b'},
	    {"fail-on-new", no_argument, NULL, 'n'},
	    {"include", required_argument, NULL, 'i'},
	    {"exclude", required_argument, NULL, 'x'},
	    {"ranks", required_argument, NULL, 'r'},
	    {"format", required_argument, NULL, 'f'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const struct cmd *self = cmd_find(check ? "check" : "diff");
	const char **inc = NULL, **exc = NULL, *db = NULL;
	enum cli_format fmt = CLI_FORMAT_TABLE;
	struct compare_opts co;
	struct compare_result res;
	struct i64vec ranks;
	struct buf out = BUF_INIT;
	int have_ranks = 0, code = CLI_EXIT_ERROR, o, rc;

	memset(&co, 0, sizeof(co));
	memset(&res, 0, sizeof(res));
	i64vec_init(&ranks);
	co.metric = STATS_TOTAL;
	co.sort = STATS_SORT_DELTA;
	co.check = check;
	inc = calloc((size_t)argc, sizeof(*inc));
	exc = calloc((size_t)argc, sizeof(*exc));
	if (!inc || !exc) {
		err_nomem();
		code = cli_error();
		goto out;
	}
	opterr = 0;
	while ((o = getopt_long(argc, argv, ":h", check ? check_opts : diff_opts, NULL)) != -1) {
		rc = 0;
		switch (o) {
		case 'd':
			db = optarg;
			break;
		case 'm':
			rc = stats_metric_parse(&co.metric, optarg);
			break;
		case 's':
			rc = stats_sort_parse(&co.sort, optarg);
			break;
		case 't':
			rc = stats_parse_percent(&co.threshold, "--threshold", optarg, 0);
			co.has_threshold = 1;
			break;
		case 'b':
			rc = stats_parse_percent(&co.max_regression, "--max-regression", optarg, 1);
			break;
		case 'n':
			co.fail_on_new = 1;
			break;
		case 'i':
			inc[co.ninclude++] = optarg;
			break;
		case 'x':
			exc[co.nexclude++] = optarg;
			break;
		case 'r':
			rc = match_ranks_parse(&ranks, optarg);
			have_ranks = 1;
			break;
		case 'f':
			rc = cli_parse_format(&fmt, optarg,
					      CLI_FORMAT_TABLE | CLI_FORMAT_MARKDOWN |
						  CLI_FORMAT_CSV | CLI_FORMAT_JSON);
			break;
		case 'h':
			cmd_print_help(self);
			code = cli_finish(CLI_EXIT_OK);
			goto out;
		default:
			code = cli_bad_option(self->usage, o, argv, optind);
			goto out;
		}
		if (rc) {
			code = cli_error();
			goto out;
		}
	}
	if (argc - optind < 2) {
		code = cli_usage_error(self->usage, "%s needs two runs (selectors or files)",
				       self->name);
		goto out;
	}
	if (argc - optind > 2) {
		code = cli_usage_error(self->usage, "unexpected argument '%s'", argv[optind + 2]);
		goto out;
	}
	if (have_ranks) {
		match_ranks_finish(&ranks);
		co.ranks = ranks.v;
		co.nranks = ranks.len;
	}
	co.db_path = cli_db_path(db);
	co.includes = inc;
	co.excludes = exc;
	if (compare_runs(&res, argv[optind], argv[optind + 1], &co)) {
		code = cli_error();
		goto out;
	}
	if (compare_output(&out, &res, &co, fmt)) {
		code = cli_error();
		goto out;
	}
	fwrite(out.data, 1, out.len, stdout);
	/* the exit status of a verdict: decided here, nowhere else */
	code = cli_finish(res.verdict.kind == VERDICT_FAIL ? CLI_EXIT_FAIL : CLI_EXIT_OK);
out:
	compare_release(&res);
	buf_release(&out);
	i64vec_release(&ranks);
	free(inc);
	free(exc);
	return code;
}

int cmd_diff(int argc, char **argv)
{
	return cmd_compare(argc, argv, 0);
}
