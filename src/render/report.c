/*
 * report.c - the output formats of diff and check (see report.h): terminal
 * table, markdown, CSV and JSON, all rendered into a struct buf so the
 * command prints them in one piece and tests can compare them exactly.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scopedb/err.h"
#include "util/json.h"
#include "select/match.h"
#include "scopedb/metadiff.h"
#include "render/report.h"
#include "render/table.h"

#define REPORT_RED "31"
#define REPORT_GREEN "32"
#define REPORT_BOLD_RED "1;31"
#define REPORT_BOLD_GREEN "1;32"

void report_fmt_value(char *s, size_t len, struct stats_val v, int is_count)
{
	if (v.none)
		snprintf(s, len, "-");
	else if (is_count)
		snprintf(s, len, "%lld", (long long)v.v);
	else
		snprintf(s, len, "%.6g", v.v);
}

void report_fmt_delta(char *s, size_t len, double delta, int is_count)
{
	if (is_count)
		snprintf(s, len, "%+lld", (long long)delta);
	else
		snprintf(s, len, "%+.6g", delta);
}

void report_fmt_pct(char *s, size_t len, struct stats_val pct)
{
	if (pct.none)
		snprintf(s, len, "-");
	else
		snprintf(s, len, "%+.4g%%", pct.v);
}

void report_fmt_number(char *s, size_t len, double v, int is_count)
{
	int prec;

	if (!isfinite(v)) {
		/* Never produced by the metrics; keep the output valid anyway. */
		snprintf(s, len, "null");
		return;
	}
	if (is_count) {
		snprintf(s, len, "%lld", (long long)v);
		return;
	}
	for (prec = 15; prec <= 17; prec++) {
		snprintf(s, len, "%.*g", prec, v);
		if (strtod(s, NULL) == v)
			break;
	}
	if (!strpbrk(s, ".e") && strlen(s) + 3 <= len)
		strcat(s, ".0");
}

/* "Metric: total (seconds)" unit of a metric. */
static const char *report_unit(enum stats_metric m)
{
	if (m == STATS_CALLS)
		return "calls";
	if (m == STATS_IMBALANCE)
		return "percent";
	return "seconds";
}

/*
 * One-line description of a side: "run 7 (label L, commit C, branch B,
 * tags t1,t2, recorded T, 4 ranks)" or "PATH (file, ..., 4 ranks)".  The
 * commit is cut to 12 characters as in "scopedb runs".
 */
static int report_side_text(struct buf *out, const struct compare_side *s)
{
	struct buf d = BUF_INIT;
	size_t k;
	int rc = 0;

	if (s->is_file) {
		rc |= buf_puts(out, s->path);
		rc |= buf_puts(&d, "file");
	} else {
		rc |= buf_printf(out, "run %" PRId64, s->id);
	}
	if (s->label)
		rc |= buf_printf(&d, "%slabel %s", d.len ? ", " : "", s->label);
	if (s->commit)
		rc |= buf_printf(&d, "%scommit %.12s", d.len ? ", " : "", s->commit);
	if (s->branch)
		rc |= buf_printf(&d, "%sbranch %s", d.len ? ", " : "", s->branch);
	for (k = 0; k < s->ntags; k++)
		rc |= buf_printf(&d, "%s%s", k ? "," : d.len ? ", tags " : "tags ", s->tags[k]);
	if (s->recorded_at)
		rc |= buf_printf(&d, "%srecorded %s", d.len ? ", " : "", s->recorded_at);
	rc |= buf_printf(&d, "%s%" PRId64 " rank%s", d.len ? ", " : "", s->num_ranks,
			 s->num_ranks == 1 ? "" : "s");
	rc |= buf_printf(out, " (%s)", d.data);
	buf_release(&d);
	return rc ? ERR_NOMEM : 0;
}

int report_plain(struct buf *out, const char *s)
{
	int rc = 0;

	for (; *s && !rc; s++)
		rc = buf_putc(out, (unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s);
	return rc;
}

/* Names joined by ", " after a prefix, as one line; nothing when n == 0. */
static int report_names_line(struct buf *out, const char *prefix, const char *const *names,
			     size_t n)
{
	size_t i;
	int rc = 0;

	if (n == 0)
		return 0;
	rc |= buf_puts(out, prefix);
	for (i = 0; i < n; i++) {
		rc |= buf_puts(out, i ? ", " : "");
		rc |= report_plain(out, names[i]);
	}
	rc |= buf_putc(out, '\n');
	return rc ? ERR_NOMEM : 0;
}

/* The violating region names in row order (malloc'ed array of borrowed
 * names; NULL when there are none). */
static const char **report_violations(const struct compare_result *r, size_t *n)
{
	const char **v;
	size_t i;

	*n = 0;
	v = malloc((r->nrows ? r->nrows : 1) * sizeof(*v));
	if (!v)
		return NULL;
	for (i = 0; i < r->nrows; i++)
		if (r->rows[i].violation)
			v[(*n)++] = r->rows[i].name;
	return v;
}

static int report_budget_text(struct buf *out, const struct compare_opts *o)
{
	return buf_printf(out, "%+g%% (%s)", o->max_regression, stats_metric_name(o->metric));
}

int report_table(struct buf *out, const struct compare_result *r, const struct compare_opts *o,
		 int color)
{
	static const char *const header[] = {"region", "a", "b", "delta", "delta %"};
	static const enum table_align align[] = {TABLE_LEFT, TABLE_RIGHT, TABLE_RIGHT, TABLE_RIGHT,
						 TABLE_RIGHT};
	int count = stats_metric_is_count(o->metric), rc = 0;
	const char **viol = NULL;
	struct table t;
	struct buf line = BUF_INIT;
	char *text = NULL;
	size_t i, nviol = 0, tlen = 0;
	FILE *mem = NULL;

	memset(&t, 0, sizeof(t));
	rc |= buf_puts(out, o->check ? "Baseline: " : "a: ");
	rc |= report_side_text(&line, &r->a);
	rc |= report_plain(out, line.data);
	rc |= buf_puts(out, o->check ? "\nCandidate: " : "\nb: ");
	buf_release(&line);
	rc |= report_side_text(&line, &r->b);
	rc |= report_plain(out, line.data);
	rc |= buf_putc(out, '\n');
	if (o->ranks) {
		rc |= buf_puts(out, "Ranks: ");
		rc |= match_ranks_format(out, o->ranks, o->nranks);
		rc |= buf_putc(out, '\n');
	}
	if (o->check) {
		rc |= buf_puts(out, "Regression budget: ");
		rc |= report_budget_text(out, o);
		rc |= buf_printf(out, "\nRegression check: ");
		if (color)
			rc |= buf_printf(out, "\033[%sm",
					 r->nviolations ? REPORT_BOLD_RED : REPORT_BOLD_GREEN);
		rc |= buf_puts(out, r->nviolations ? "FAIL" : "PASS");
		if (color)
			rc |= buf_puts(out, "\033[0m");
		rc |= buf_putc(out, '\n');
	} else {
		rc |= buf_printf(out, "Metric: %s (%s)\n", stats_metric_name(o->metric),
				 report_unit(o->metric));
	}
	if (r->nmeta_changes) {
		rc |= buf_puts(out, "Metadata differences (a -> b):\n");
		rc |= metadiff_text(out, r->meta_changes, r->nmeta_changes, "  ", 60);
	}
	if (rc)
		goto out;
	rc = buf_putc(out, '\n');
	if (r->nrows == 0) {
		rc = buf_puts(out, "No regions to compare.\n");
	} else {
		rc = table_init(&t, 5, header, align);
		for (i = 0; i < r->nrows && !rc; i++) {
			const struct stats_row *row = &r->rows[i];
			char a[64], b[64], d[64], p[64];
			const char *cells[5] = {row->name, a, b, d, p};
			const char *c = row->delta > 0	 ? REPORT_RED
					: row->delta < 0 ? REPORT_GREEN
							 : NULL;

			report_fmt_value(a, sizeof(a), row->a, count);
			report_fmt_value(b, sizeof(b), row->b, count);
			report_fmt_delta(d, sizeof(d), row->delta, count);
			report_fmt_pct(p, sizeof(p), row->pct);
			rc = table_add_row(&t, cells);
			if (!rc && color) {
				table_set_color(&t, 3, c);
				table_set_color(&t, 4, c);
				if (row->violation)
					table_set_color(&t, 0, REPORT_BOLD_RED);
			}
		}
		/* table.h prints to a FILE: render into memory. */
		if (!rc) {
			mem = open_memstream(&text, &tlen);
			if (!mem)
				rc = err_nomem();
		}
		if (!rc)
			rc = table_print(&t, mem, 0);
		if (mem && fclose(mem) && !rc)
			rc = err_nomem();
		mem = NULL;
		if (!rc)
			rc = buf_add(out, text, tlen);
	}
	if (rc)
		goto out;
	buf_release(&line);
	rc |= report_names_line(&line, "Only in a: ", r->only_a, r->nonly_a);
	rc |= report_names_line(&line, "Only in b: ", r->only_b, r->nonly_b);
	if (o->check && r->nviolations) {
		viol = report_violations(r, &nviol);
		rc |=
		    viol ? report_names_line(&line, "Budget violations: ", viol, nviol) : ERR_NOMEM;
	}
	if (line.len) {
		rc |= buf_putc(out, '\n');
		rc |= buf_add(out, line.data, line.len);
	}
	rc = rc ? err_nomem() : 0;
out:
	free(viol);
	free(text);
	table_release(&t);
	buf_release(&line);
	return rc;
}

int report_md(struct buf *out, const char *s)
{
	int rc = 0;

	for (; *s && !rc; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c == 0x7f)
			rc = buf_putc(out, '?');
		else if (strchr("\\`*_[]<>|~&#", c))
			rc = buf_printf(out, "\\%c", c);
		else
			rc = buf_putc(out, (char)c);
	}
	return rc;
}

static int report_md_side(struct buf *out, const char *title, const struct compare_side *s)
{
	struct buf t = BUF_INIT;
	int rc;

	rc = report_side_text(&t, s);
	if (!rc)
		rc = buf_printf(out, "- **%s:** ", title);
	if (!rc)
		rc = report_md(out, t.data);
	if (!rc)
		rc = buf_putc(out, '\n');
	buf_release(&t);
	return rc;
}

static int report_md_names(struct buf *out, const char *prefix, const char *const *names, size_t n)
{
	size_t i;
	int rc = 0;

	if (n == 0)
		return 0;
	rc |= buf_printf(out, "\n%s", prefix);
	for (i = 0; i < n; i++) {
		rc |= buf_puts(out, i ? ", " : "");
		rc |= report_md(out, names[i]);
	}
	rc |= buf_putc(out, '\n');
	return rc ? ERR_NOMEM : 0;
}

int report_markdown(struct buf *out, const struct compare_result *r, const struct compare_opts *o)
{
	int count = stats_metric_is_count(o->metric), rc = 0;
	const char **viol = NULL;
	size_t i, nviol = 0;

	if (o->check) {
		viol = report_violations(r, &nviol);
		if (!viol)
			return err_nomem();
		rc |= buf_printf(
		    out, "### Regression check: %s\n\nBudget: ", r->nviolations ? "FAIL" : "PASS");
		rc |= report_budget_text(out, o);
		if (nviol) {
			rc |= buf_puts(out, "; budget violations: ");
			for (i = 0; i < nviol; i++) {
				rc |= buf_puts(out, i ? ", " : "");
				rc |= report_md(out, viol[i]);
			}
		}
		rc |= buf_puts(out, "\n\n");
	}
	rc |= report_md_side(out, o->check ? "Baseline" : "a", &r->a);
	rc |= report_md_side(out, o->check ? "Candidate" : "b", &r->b);
	rc |= buf_printf(out, "- **Metric:** %s (%s)\n", stats_metric_name(o->metric),
			 report_unit(o->metric));
	if (o->ranks) {
		rc |= buf_puts(out, "- **Ranks:** ");
		rc |= match_ranks_format(out, o->ranks, o->nranks);
		rc |= buf_putc(out, '\n');
	}
	if (r->nmeta_changes) {
		rc |= buf_puts(out, "\n**Metadata differences (a → b):**\n\n");
		rc |= metadiff_markdown(out, r->meta_changes, r->nmeta_changes, 60);
	}
	rc |= buf_puts(out, "\n| region | a | b | delta | delta % |\n"
			    "| :--- | ---: | ---: | ---: | ---: |\n");
	for (i = 0; i < r->nrows; i++) {
		const struct stats_row *row = &r->rows[i];
		char a[64], b[64], d[64], p[64];

		report_fmt_value(a, sizeof(a), row->a, count);
		report_fmt_value(b, sizeof(b), row->b, count);
		report_fmt_delta(d, sizeof(d), row->delta, count);
		report_fmt_pct(p, sizeof(p), row->pct);
		rc |= buf_puts(out, "| ");
		if (row->violation)
			rc |= buf_puts(out, "**");
		rc |= report_md(out, row->name);
		if (row->violation)
			rc |= buf_puts(out, "**");
		rc |= buf_printf(out, " | %s | %s | %s | %s |\n", a, b, d, p);
	}
	rc |= report_md_names(out, "Only in a: ", r->only_a, r->nonly_a);
	rc |= report_md_names(out, "Only in b: ", r->only_b, r->nonly_b);
	free(viol);
	return rc ? ERR_NOMEM : 0;
}

int report_csv_field(struct buf *out, const char *s)
{
	int rc = 0;

	if (!s)
		return 0;
	if (!strpbrk(s, ",\"\r\n"))
		return buf_puts(out, s);
	rc |= buf_putc(out, '"');
	for (; *s; s++)
		rc |= *s == '"' ? buf_puts(out, "\"\"") : buf_putc(out, *s);
	rc |= buf_putc(out, '"');
	return rc ? ERR_NOMEM : 0;
}

int report_csv(struct buf *out, const struct compare_result *r, const struct compare_opts *o)
{
	int count = stats_metric_is_count(o->metric), rc = 0;
	size_t i;

	rc |= buf_puts(out, "region,a,b,delta,pct\n");
	for (i = 0; i < r->nrows; i++) {
		const struct stats_row *row = &r->rows[i];
		char a[64] = "", b[64] = "", d[64], p[64] = "";

		if (!row->a.none)
			report_fmt_number(a, sizeof(a), row->a.v, count);
		if (!row->b.none)
			report_fmt_number(b, sizeof(b), row->b.v, count);
		report_fmt_number(d, sizeof(d), row->delta, count);
		if (!row->pct.none)
			report_fmt_number(p, sizeof(p), row->pct.v, 0);
		rc |= report_csv_field(out, row->name);
		rc |= buf_printf(out, ",%s,%s,%s,%s\n", a, b, d, p);
	}
	return rc ? ERR_NOMEM : 0;
}

int report_json_str(struct buf *out, const char *s)
{
	return s ? json_buf_string(out, s) : buf_puts(out, "null");
}

static int report_json_val(struct buf *out, struct stats_val v, int count)
{
	char s[64];

	if (v.none)
		return buf_puts(out, "null");
	report_fmt_number(s, sizeof(s), v.v, count);
	return buf_puts(out, s);
}

static int report_json_side(struct buf *out, const struct compare_side *s)
{
	int rc = 0;

	if (s->is_file)
		rc |= buf_puts(out, "{\"id\": null");
	else
		rc |= buf_printf(out, "{\"id\": %" PRId64, s->id);
	rc |= buf_puts(out, ", \"path\": ");
	rc |= report_json_str(out, s->path);
	rc |= buf_puts(out, ", \"label\": ");
	rc |= report_json_str(out, s->label);
	rc |= buf_puts(out, ", \"commit\": ");
	rc |= report_json_str(out, s->commit);
	rc |= buf_puts(out, ", \"branch\": ");
	rc |= report_json_str(out, s->branch);
	rc |= buf_puts(out, ", \"tags\": ");
	rc |= json_buf_strarray(out, (const char *const *)s->tags, s->ntags);
	rc |= buf_puts(out, ", \"recorded_at\": ");
	rc |= report_json_str(out, s->recorded_at);
	rc |= buf_printf(out, ", \"num_ranks\": %" PRId64 "}", s->num_ranks);
	return rc ? ERR_NOMEM : 0;
}

int report_json(struct buf *out, const struct compare_result *r, const struct compare_opts *o)
{
	int count = stats_metric_is_count(o->metric), rc = 0;
	size_t i, k = 0;
	char num[64];

	rc |= buf_printf(out, "{\"metric\": \"%s\", \"a\": ", stats_metric_name(o->metric));
	rc |= report_json_side(out, &r->a);
	rc |= buf_puts(out, ", \"b\": ");
	rc |= report_json_side(out, &r->b);
	rc |= buf_puts(out, ", \"rows\": [");
	for (i = 0; i < r->nrows; i++) {
		const struct stats_row *row = &r->rows[i];

		rc |= buf_puts(out, i ? ",\n  {\"name\": " : "\n  {\"name\": ");
		rc |= json_buf_string(out, row->name);
		rc |= buf_puts(out, ", \"a\": ");
		rc |= report_json_val(out, row->a, count);
		rc |= buf_puts(out, ", \"b\": ");
		rc |= report_json_val(out, row->b, count);
		report_fmt_number(num, sizeof(num), row->delta, count);
		rc |= buf_printf(out, ", \"delta\": %s, \"pct\": ", num);
		rc |= report_json_val(out, row->pct, 0);
		rc |= buf_putc(out, '}');
	}
	rc |= buf_puts(out, r->nrows ? "\n]" : "]");
	if (o->check) {
		report_fmt_number(num, sizeof(num), o->max_regression, 0);
		rc |= buf_printf(out,
				 ", \"max_regression\": %s, \"fail_on_new\": %s, \"status\": "
				 "\"%s\", \"violations\": [",
				 num, o->fail_on_new ? "true" : "false",
				 r->nviolations ? "FAIL" : "PASS");
		for (i = 0; i < r->nrows; i++) {
			if (!r->rows[i].violation)
				continue;
			rc |= buf_puts(out, k++ ? ", " : "");
			rc |= json_buf_string(out, r->rows[i].name);
		}
		rc |= buf_putc(out, ']');
	}
	/* always present, [] when the runs are like for like */
	rc |= buf_puts(out, ", \"metadata_changes\": ");
	rc |= metadiff_json(out, r->meta_changes, r->nmeta_changes);
	rc |= buf_puts(out, "}\n");
	return rc ? ERR_NOMEM : 0;
}
