/*
 * cmd_show.c - "scopedb show RUN": the per-region summary of one stored run
 * (like scope-profiler's inspect): ranks, calls, total, avg, min, max, std,
 * p50, p95, p99, imbalance and, when the run has GPU data, gpu_total and
 * gpu_avg, pooled over the selected ranks.  The numbers come from
 * summary_run(), which uses the metric code of diff and check.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/pathtree.h"
#include "cmd.h"
#include "cli/cli.h"
#include "cli/output.h"
#include "scopedb/compare.h"
#include "scopedb/err.h"
#include "select/match.h"
#include "render/report.h"
#include "scopedb/runarg.h"
#include "scopedb/store.h"
#include "scopedb/summary.h"
#include "scopedb/util.h"

struct show_view {
	const struct store_run *run;
	const struct summary_row *rows;
	size_t nrows;
	const enum summary_col *cols;
	size_t ncols;
	const int64_t *ranks; /* NULL = all */
	size_t nranks;
	int is_file; /* run is a file's (no id; source_path as given) */
	int by_path; /* rows are paths: JSON adds "path" and "depth" */
	/* --tree: rows in tree order, each row's level (else NULL): people
	 * see the last name indented, machines the joined one */
	const size_t *levels;
};

/* The region cell people see in a tree: the last name indented by level,
 * or the whole path for a row shown without its parent. */
static void show_tree_name(struct buf *b, const struct summary_row *row, size_t level)
{
	size_t i;

	b->len = 0;
	for (i = 0; i < level; i++)
		buf_puts(b, "  ");
	buf_puts(b, level && row->depth ? row->path[row->depth - 1] : row->name);
}

/* "ranks", "calls": integers; "region": the name; others: values. */
static enum doc_type show_col_type(enum summary_col col)
{
	if (col == SUMMARY_COL_REGION)
		return DOC_TEXT;
	return summary_col_is_count(col) ? DOC_COUNT : DOC_VALUE;
}

/* The document of show (ctx: a struct show_view): the run, the ranks, one
 * row per region. */
static int show_document(struct doc *d, const void *ctx)
{
	const struct show_view *v = ctx;
	struct doc_col cols[SUMMARY_NCOLS + 3];
	struct doc_value *ranks;
	struct doc_table *t;
	struct buf tn = BUF_INIT;
	size_t i, c, nc, off = 0;

	/* a stored run without a recorded time shows when it was ingested; a
	 * file read here was never ingested (its temporary store's time is
	 * now), so it shows none, as diff and the JSON do */
	report_run_field(d, "Run", v->run, v->is_file,
			 REPORT_RUN_LAYOUT | (v->is_file ? 0 : REPORT_RUN_INGESTED));
	if (v->ranks)
		report_ranks_field(d, DOC_F_HUMAN, v->ranks, v->nranks);
	doc_blank(d, DOC_F_HUMAN);
	memset(cols, 0, sizeof(cols));
	if (v->levels) {
		/* people see the tree (the region column, below); CSV and JSON
		 * the joined names, first */
		cols[0] = (struct doc_col){NULL, "region", "name", DOC_TEXT, DOC_LEFT, 0, 0, 0};
		off = 1;
	}
	for (c = 0; c < v->ncols; c++) {
		enum summary_col col = v->cols[c];
		struct doc_col *dc = &cols[off + c];

		dc->title = dc->csv = summary_col_name(col);
		dc->json = col == SUMMARY_COL_REGION ? "name" : summary_col_name(col);
		if (col == SUMMARY_COL_REGION && v->levels)
			dc->csv = dc->json = NULL;
		dc->type = show_col_type(col);
		dc->align = col == SUMMARY_COL_REGION ? DOC_LEFT : DOC_RIGHT;
		dc->fmts = DOC_F_HUMAN;
		dc->flags = col == SUMMARY_COL_REGION ? 0 : DOC_RAW;
		if (dc->type == DOC_VALUE && col != SUMMARY_COL_IMBALANCE)
			dc->flags |= DOC_SECONDS;
	}
	nc = off + v->ncols;
	if (v->by_path) {
		/* JSON only: the path's names as an array, and their number */
		cols[nc++] =
		    (struct doc_col){NULL, NULL, "path", DOC_LIST, DOC_LEFT, 0, DOC_COMPACT, 0};
		cols[nc++] = (struct doc_col){NULL, NULL, "depth", DOC_COUNT, DOC_RIGHT, 0, 0, 0};
	}
	t = doc_table(d, DOC_F_HUMAN | DOC_F_CSV, cols, nc);
	doc_table_empty(t, "No regions selected.");
	for (i = 0; i < v->nrows; i++) {
		const struct summary_row *row = &v->rows[i];

		doc_row(t);
		if (off)
			doc_set_text(t, 0, row->name);
		for (c = 0; c < v->ncols; c++) {
			struct stats_val val = row->v[v->cols[c]];

			if (v->cols[c] == SUMMARY_COL_REGION && v->levels) {
				show_tree_name(&tn, row, v->levels[i]);
				doc_set_text(t, off + c, tn.data ? tn.data : "");
			} else if (v->cols[c] == SUMMARY_COL_REGION) {
				doc_set_text(t, off + c, row->name);
			} else {
				doc_set_num(t, off + c, val.none, val.v);
			}
		}
		if (v->by_path) {
			doc_set_list(t, off + v->ncols, (const char *const *)row->path, row->depth);
			doc_set_num(t, off + v->ncols + 1, 0, (double)row->depth);
		}
	}
	buf_release(&tn);
	doc_json_root(d, DOC_V_OBJ, JSONW_INLINE);
	report_run_json(d, d->json, "run", v->run, v->is_file, 1);
	if (v->ranks) {
		ranks = doc_json_arr(d, d->json, "ranks", JSONW_INLINE);
		for (i = 0; i < v->nranks; i++)
			doc_json_int(d, ranks, NULL, v->ranks[i]);
	} else {
		doc_json_null(d, d->json, "ranks");
	}
	doc_json_table(d, d->json, "regions", t);
	return 0;
}

/* rows (sorted) put in tree order, *levels (malloc'ed) each one's level. */
static int show_tree(struct summary_row *rows, size_t n, size_t **levels)
{
	const char **names = malloc((n ? n : 1) * sizeof(*names));
	const char **lasts = malloc((n ? n : 1) * sizeof(*lasts));
	struct summary_row *copy = malloc((n ? n : 1) * sizeof(*copy));
	size_t *order = malloc((n ? n : 1) * sizeof(*order));
	size_t *level = malloc((n ? n : 1) * sizeof(*level));
	size_t i;
	int rc = 0;

	*levels = malloc((n ? n : 1) * sizeof(**levels));
	if (!names || !lasts || !copy || !order || !level || !*levels) {
		rc = err_nomem();
		goto out;
	}
	for (i = 0; i < n; i++) {
		names[i] = rows[i].name;
		lasts[i] = rows[i].depth ? rows[i].path[rows[i].depth - 1] : rows[i].name;
	}
	rc = pathtree_order(order, level, names, lasts, n);
	if (rc)
		goto out;
	memcpy(copy, rows, n * sizeof(*rows));
	for (i = 0; i < n; i++) {
		rows[i] = copy[order[i]];
		(*levels)[i] = level[order[i]];
	}
out:
	free(names);
	free(lasts);
	free(copy);
	free(order);
	free(level);
	return rc;
}

const struct opt_cmd cmd_show_usage = {
    .name = "show",
    .args = "RUN",
    .before = "RUN is a stored run (a selector: 42, latest~1, tag:NAME, 1a2b3c4, ...) or a\n"
	      "profile file.  --include, --exclude and --ranks take one or more values, up\n"
	      "to the next option: put RUN first, or end the values with --.",
    .after = "Times in a unit per column (--units; CSV and JSON: seconds), imbalance in\n"
	     "percent, std is the population standard deviation; gpu_total and gpu_avg are\n"
	     "shown by default when the run has GPU data.",
    .summary = "show the per-region summary of one run",
    OPT_ARGS(1, 1, "show needs a run SELECTOR"),
};

/* --columns LIST: the parsed columns, and the text (NULL: not given). */
struct show_columns {
	enum summary_col v[SUMMARY_NCOLS];
	size_t n;
	const char *text;
};

static int show_opt_columns(const struct opt *opt, const char *arg)
{
	struct show_columns *c = opt->value;

	c->text = arg;
	return summary_parse_columns(c->v, &c->n, arg);
}

/* The help of --columns: the columns of SUMMARY_COLS (summary.h). */
static const char *show_columns_help(void)
{
	static struct buf help; /* kept for the process */

	if (!help.data &&
	    buf_printf(&help,
		       "comma-separated columns among %s (the region comes first, named or not)",
		       summary_col_words()))
		buf_release(&help);
	return help.data ? help.data : "comma-separated columns";
}

/* --sort COLUMN|name (enum summary_col *). */
static int show_opt_sort(const struct opt *opt, const char *arg)
{
	return summary_parse_sort(opt->value, arg);
}

int cmd_show(int argc, char **argv)
{
	const struct opt_cmd *self = &cmd_show_usage;
	struct cli_regions regions = CLI_REGIONS_INIT;
	const char *db = NULL;
	struct show_columns columns = {{SUMMARY_COL_REGION}, 0, NULL};
	const char *fmt = "table";
	enum summary_col sort = SUMMARY_COL_TOTAL, *cols = columns.v;
	struct summary_opts so;
	struct summary_row *rows = NULL;
	struct runarg_db rdb;
	struct runarg arg;
	struct store_run run;
	struct show_view view;
	struct i64vec ranks;
	size_t nrows = 0, ncols, c;
	int code = CLI_EXIT_ERROR, tree = 0;
	size_t *levels = NULL;
	char *partial = NULL; /* by path: the ranks without a tree, said */
	const struct opt opts[] = {
	    OPT__DB(&db),
	    OPT__REGIONS(&regions),
	    OPT__BY(&so.by_path),
	    OPT_FLAG(0, "tree", &tree,
		     "the paths as a tree, each under its parent, siblings\n"
		     "sorted by --sort (implies --by path; --by name is refused)"),
	    OPT__RANKS(&ranks),
	    OPT_CALLBACK(0, "sort", &sort, "COLUMN",
			 "name, or a column to sort by, largest first\n(default total)",
			 show_opt_sort, 0),
	    OPT_CALLBACK(0, "columns", &columns, "LIST", show_columns_help(), show_opt_columns, 0),
	    OPT__FORMAT_ALL(&fmt, "table markdown csv json"),
	    OPT__UNITS(),
	    OPT__FILE_LIMITS(),
	    OPT_END(),
	};

	memset(&so, 0, sizeof(so));
	memset(&arg, 0, sizeof(arg));
	memset(&run, 0, sizeof(run));
	runarg_db_init(&rdb, NULL, NULL);
	i64vec_init(&ranks);
	so.by_path = -1; /* --by not given */
	if (opt_parse(self, opts, argc, argv, &code) < 0)
		goto out;
	if (cli_tree_by(self, opts, &so.by_path, tree, &code))
		goto out;
	if (ranks.len) {
		match_ranks_finish(&ranks);
		so.ranks = ranks.v;
		so.nranks = ranks.len;
	}
	so.includes = regions.include.v;
	so.ninclude = regions.include.n;
	so.excludes = regions.exclude.v;
	so.nexclude = regions.exclude.n;
	ncols = columns.n;
	if (!columns.text) {
		for (c = 0; c < SUMMARY_NCOLS; c++)
			cols[ncols++] = (enum summary_col)c;
	}
	so.quantiles_only = sort != SUMMARY_COL_STD;
	for (c = 0; c < ncols; c++) {
		so.durations |= summary_col_needs_durations(cols[c]);
		so.quantiles_only &= cols[c] != SUMMARY_COL_STD;
	}
	so.durations |= summary_col_needs_durations(sort);
	rdb.path = cli_db_path(db);
	if (runarg_resolve(&arg, &rdb, argv[0]) || runarg_get_run(&run, &arg, argv[0]) ||
	    summary_run(&rows, &nrows, arg.st, arg.run_id, &so)) {
		code = cli_error();
		goto out;
	}
	/* by path, over ranks some of which have no tree: said (below), as
	 * diff says it */
	if (so.by_path &&
	    compare_paths_partial(&partial, arg.st, arg.run_id, arg.is_file, so.ranks, so.nranks)) {
		code = cli_error();
		goto out;
	}
	/* --ranks that select no call of the run (no such rank, or ranks of
	 * index rows only, or by path ranks without a tree): a table of zeros,
	 * said as diff says it (with --include or --exclude the selection may
	 * be why: not said) */
	if (so.ranks && nrows && !so.ninclude && !so.nexclude) {
		size_t i;

		for (i = 0; i < nrows && !(rows[i].v[SUMMARY_COL_CALLS].v > 0); i++)
			;
		if (i == nrows) {
			const char *mark = arg.is_file ? "'" : "";
			struct buf q = BUF_INIT;
			char id[32];

			snprintf(id, sizeof(id), "run %lld", (long long)run.id);
			fprintf(stderr,
				"scopedb: warning: --ranks selects no call of %s%s%s (of its %lld "
				"ranks)%s\n",
				mark,
				arg.is_file ? cli_msgq(&q, run.source_path ? run.source_path : "?")
					    : id,
				mark, (long long)run.num_ranks,
				partial ? " by path: ranks without a call tree are left out "
					  "(--by name shows their calls)"
					: "");
			buf_release(&q);
		}
	}
	if (partial) {
		struct buf q = BUF_INIT;

		fprintf(stderr, "scopedb: warning: %s\n", cli_msgq(&q, partial));
		buf_release(&q);
	}
	/* GPU columns by default only when the run has GPU data, self only
	 * by path (by name, show stays upstream's inspect), nested only by
	 * path when a shown path recursed (upstream marks such a path). */
	if (!columns.text) {
		int gpu = summary_has_gpu(rows, nrows), nested = summary_has_nested(rows, nrows);
		size_t kept = 0;

		for (c = 0; c < ncols; c++)
			if ((gpu || !summary_col_is_gpu(cols[c])) &&
			    (so.by_path || cols[c] != SUMMARY_COL_SELF) &&
			    (nested || cols[c] != SUMMARY_COL_NESTED))
				cols[kept++] = cols[c];
		ncols = kept;
	}
	summary_sort(rows, nrows, sort);
	if (tree && show_tree(rows, nrows, &levels)) {
		code = cli_error();
		goto out;
	}
	memset(&view, 0, sizeof(view));
	view.run = &run;
	view.rows = rows;
	view.nrows = nrows;
	view.cols = cols;
	view.ncols = ncols;
	view.ranks = so.ranks;
	view.nranks = so.nranks;
	view.is_file = arg.is_file;
	view.by_path = so.by_path;
	view.levels = levels;
	code = cli_print_doc(show_document, &view, fmt, 0, CLI_EXIT_OK);
out:
	summary_free(rows, nrows);
	free(partial);
	free(levels);
	store_run_release(&run);
	runarg_release(&arg);
	runarg_db_release(&rdb);
	i64vec_release(&ranks);
	cli_regions_release(&regions);
	return code;
}
