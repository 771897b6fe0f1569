/*
 * report.h - printing a comparison (compare.h) as "scopedb diff" and
 * "scopedb check" show it: an aligned terminal table, a GitHub-flavoured
 * markdown table for PR comments, CSV, or JSON.
 *
 * Terminal and markdown values are formatted as upstream scope-profiler
 * prints them: values with %.6g (calls as integers), delta signed (+0),
 * delta % with %+.4g and a '%' sign, "-" for None.  CSV and JSON carry the
 * unrounded numbers (the shortest text that reads back as the same double,
 * so nothing is lost) and null / an empty cell for None; non-finite numbers
 * never occur in the rows.
 *
 * JSON shape (diff): {"metric": M, "a": RUN, "b": RUN, "rows": [{"name",
 * "a", "b", "delta", "pct"}...]}; check adds "max_regression",
 * "fail_on_new", "status" and "violations".  RUN is {"id", "path", "label",
 * "commit", "branch", "tags", "recorded_at", "num_ranks"} with "id": null
 * for a file read directly.  When the runs' metadata differ (metadiff.h),
 * the table and markdown list the differences under the header; JSON
 * always ends with "metadata_changes": [{"key", "a", "b"}...] ([] when the
 * runs are alike).
 *
 * Every function appends to out (a struct buf it does not clear) and
 * returns 0 or ERR_NOMEM.
 */
#ifndef SCOPEDB_REPORT_H
#define SCOPEDB_REPORT_H

#include <stddef.h>

#include "scopedb/compare.h"
#include "scopedb/util.h"

/* Terminal table; color adds ANSI colour (red regressions, green
 * improvements, the verdict). */
int report_table(struct buf *out, const struct compare_result *r, const struct compare_opts *o,
		 int color);
int report_markdown(struct buf *out, const struct compare_result *r, const struct compare_opts *o);
int report_csv(struct buf *out, const struct compare_result *r, const struct compare_opts *o);
int report_json(struct buf *out, const struct compare_result *r, const struct compare_opts *o);

/*
 * Text escaping shared by every command's output (show, history, runs,
 * pins, ...), so a hostile region name prints the same way everywhere:
 * report_plain: control characters as '?' so one row stays one line;
 * report_md: the same, plus markdown metacharacters backslash-escaped;
 * report_csv_field: an RFC 4180 field, quoted when it holds a comma, quote
 * or line break (nothing for NULL);
 * report_json_str: a JSON string, or null for NULL.
 */
int report_plain(struct buf *out, const char *s);
int report_md(struct buf *out, const char *s);
int report_csv_field(struct buf *out, const char *s);
int report_json_str(struct buf *out, const char *s);

/* Upstream's cell formats (see above) into s (at least 64 bytes). */
void report_fmt_value(char *s, size_t len, struct stats_val v, int is_count);
void report_fmt_delta(char *s, size_t len, double delta, int is_count);
void report_fmt_pct(char *s, size_t len, struct stats_val pct);

/* The shortest %.Ng (N = 15..17) that reads back as v, with ".0" added to
 * integral values ("1.0", "0.1", "1e-05"); integers when is_count. */
void report_fmt_number(char *s, size_t len, double v, int is_count);

#endif
