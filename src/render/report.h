/*
 * report.h - the document of "scopedb diff" and "scopedb check" (a
 * comparison, compare.h), and the pieces other commands' documents share
 * with it: a run's description, the metadata differences of two runs, the
 * unit of a metric.  Rendering is render.h's.
 *
 * Terminal and markdown values are formatted as upstream scope-profiler
 * prints them (format.h); CSV and JSON carry the unrounded numbers and
 * null / an empty cell for None.
 *
 * JSON shape (diff): {"metric": M, "a": RUN, "b": RUN, "rows": [{"name",
 * "a", "b", "delta", "pct"}...], "missing": [regions only in a], "new":
 * [regions only in b]}; check adds "max_regression", "fail_on_new",
 * "fail_on_missing", "status" and "violations".  A statistical comparison
 * (compare_opts.stat, docs/statistics.md) adds "baseline_runs",
 * "candidate_runs" (ids, null for a file) and "noise" ([{"region", "cv",
 * "history_runs", "from"}...]) before the rows, whose objects gain
 * "verdict", "ratio", "ci": [lo, hi], "p", "p_adjusted", "runs_needed"
 * (null when decided), "baseline_n" and "candidate_n"; the table and
 * markdown add the run sets, the noise and the verdict counts to the
 * header and verdict (markdown: with an icon), "ratio [95% CI]", p and
 * runs needed columns; CSV adds verdict, ratio, ci_low, ci_high, p and
 * runs_needed.  RUN is {"id", "path", "label",
 * "commit", "branch", "tags", "recorded_at", "num_ranks"} with "id": null
 * for a file read directly.  When the runs' metadata differ (metadiff.h),
 * the table and markdown list the differences under the header; JSON
 * always ends with "metadata_changes": [{"key", "a", "b"}...] ([] when the
 * runs are alike).
 *
 * Every function adds to a document (doc.h); failures are the document's
 * (doc_check()).
 *
 * Ownership: the document copies what it keeps (doc.h); the comparison,
 * runs and metadata differences are only read; report_unit() returns a
 * static string.
 */
#ifndef SCOPEDB_REPORT_H
#define SCOPEDB_REPORT_H

#include <stddef.h>
#include <stdint.h>

#include "render/doc.h"
#include "scopedb/compare.h"
#include "scopedb/metadiff.h"

/* The document of a comparison (diff, or check when o->check). */
void report_doc(struct doc *d, const struct compare_result *r, const struct compare_opts *o);

/* The text of --same for people (appended to t): "hostname = node7 (12
 * runs of another value left out)", and the keys skipped because the
 * reference run lacks them.  0 or ERR_NOMEM. */
int report_same_text(struct buf *t, const struct same *s);

/* --same in a listing's document (history, changes): the field "Like
 * with like" for people (report_same_text()) and "same" in JSON
 * ({"keys": {KEY: VALUE}, "skipped": [...], "left_out": N}). */
void report_same_doc(struct doc *d, const struct same *s);

/* The flags of report_run_field(). */
enum {
	REPORT_RUN_LAYOUT = 1,	 /* end with the layout: "..., 4 ranks, columnar)" */
	REPORT_RUN_INGESTED = 2, /* no recorded time: the ingest time instead */
};

/* A field key (text and markdown) describing run in one line: "run 7
 * (label L, commit C, branch B, tags t1,t2, recorded T, 4 ranks)", or
 * "PATH (file, ...)" when is_file; flags: REPORT_RUN_*.  diff, check and
 * show. */
void report_run_field(struct doc *d, const char *key, const struct store_run *run, int is_file,
		      unsigned flags);

/* A field "Ranks" of fmts (DOC_F_*): ranks[0..n) as digits and ranges. */
void report_ranks_field(struct doc *d, unsigned fmts, const int64_t *ranks, size_t n);

/* {"id" (null when no_id), "path", "label", "commit", "branch", "tags",
 * "recorded_at", "num_ranks"[, "layout" when layout]} of run under parent. */
void report_run_json(struct doc *d, struct doc_value *parent, const char *key,
		     const struct store_run *run, int no_id, int layout);

/*
 * The metadata differences c[0..n) (metadiff.h): for the terminal, lines
 * "INDENT key  a -> b" with the keys padded to one width and "(unset)" for
 * a missing side; for markdown, items "- key: a → b"; both with values
 * longer than maxw code points (0 = no limit) cut and ended by "...".
 * JSON: [{"key": K, "a": A or null, "b": B or null}, ...] under parent.
 */
void report_meta_text(struct doc *d, const struct metadiff_change *c, size_t n, const char *indent,
		      size_t maxw);
void report_meta_md(struct doc *d, const struct metadiff_change *c, size_t n, size_t maxw);
void report_meta_json(struct doc *d, struct doc_value *parent, const char *key,
		      const struct metadiff_change *c, size_t n);

/* "seconds", "percent" (imbalance) or "calls". */
const char *report_unit(enum stats_metric m);

#endif
