/*
 * report_stat.c - the pieces of the document of a statistical comparison
 * (check --stat, docs/statistics.md): each row's verdict icon, interval
 * and runs needed as table cells and JSON, and the header: both run sets,
 * the outlier runs left out, where the noise came from and how much was
 * borrowed from the history, --same, and the count of each verdict.
 * Strings from data go through the document, which escapes them.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/verdict.h"
#include "render/format.h"
#include "analysis/pathtree.h"
#include "render/report.h"
#include "render/report_int.h"
#include "scopedb/err.h"
#include "select/match.h"
#include "util/statdist.h"

/* The markdown icon of a verdict, shown before its name: red, green,
 * white, a grey question mark (no evidence), yellow. */
static const char *report_verdict_icon(enum verdict_call c)
{
	switch (c) {
	case VERDICT_CALL_REGRESSED:
		return "\U0001F534";
	case VERDICT_CALL_IMPROVED:
		return "\U0001F7E2";
	case VERDICT_CALL_UNCHANGED:
		return "\u26AA";
	case VERDICT_CALL_NO_EVIDENCE:
		return "\u2754";
	default:
		return "\U0001F7E1";
	}
}

void report_stat_ratio(char *s, size_t len, const struct compare_stat *c)
{
	if (!isnan(c->lo))
		snprintf(s, len, "%.2f [%.2f, %.2f]", c->ratio, c->lo, c->hi);
	else
		snprintf(s, len, "%.2f", c->ratio);
}

void report_stat_p(char *s, size_t len, double p)
{
	if (isnan(p))
		snprintf(s, len, "-");
	else if (p < 0.001)
		snprintf(s, len, "<0.001");
	else
		snprintf(s, len, "%.3f", p);
}

/* The statistical columns of row i's cells from column col on (see
 * report_stat_cols). */
void report_stat_cells(struct doc_table *t, size_t col, const struct compare_stat *c)
{
	char s[96];

	if (c->verdict == VERDICT_CALL_NONE)
		return;
	doc_set_text(t, col, verdict_call_name(c->verdict));
	snprintf(s, sizeof(s), "%s %s", report_verdict_icon(c->verdict),
		 verdict_call_name(c->verdict));
	doc_set_text(t, col + 1, s);
	report_stat_ratio(s, sizeof(s), c);
	doc_set_text(t, col + 2, s);
	/* people see the p the verdict used: adjusted over the regions (a
	 * region's own p below q with "no evidence" read as a contradiction);
	 * CSV and JSON keep its own p too */
	if (!isnan(c->padj)) {
		report_stat_p(s, sizeof(s), c->padj);
		doc_set_text(t, col + 3, s);
	}
	if (c->runs_needed >= VERDICT_MAX_RUNS)
		doc_set_text(t, col + 4, "999+");
	else if (c->runs_needed >= 0) {
		snprintf(s, sizeof(s), "%d", c->runs_needed);
		doc_set_text(t, col + 4, s);
	}
	doc_set_num(t, col + 5, 0, c->ratio);
	doc_set_num(t, col + 6, isnan(c->lo), c->lo);
	doc_set_num(t, col + 7, isnan(c->hi), c->hi);
	doc_set_num(t, col + 8, isnan(c->p), c->p);
	doc_set_num(t, col + 9, c->runs_needed < 0, c->runs_needed);
	if (c->verdict == VERDICT_CALL_REGRESSED)
		doc_set_flags(t, col, DOC_STRONG | DOC_BAD);
	else if (c->verdict == VERDICT_CALL_IMPROVED)
		doc_set_flags(t, col, DOC_GOOD);
}

/* The file a set's id -k names (compare_result.files), NULL for a run. */
static const char *report_file(const struct compare_result *r, int64_t id)
{
	return id < 0 && (size_t)-id <= r->nfiles ? r->files[-id - 1] : NULL;
}

/* The runs under key: a run's id, a file's name. */
static void report_ids_json(struct doc *d, struct doc_value *parent, const char *key,
			    const struct compare_result *r, const int64_t *ids, size_t n)
{
	struct doc_value *arr = doc_json_arr(d, parent, key, JSONW_COMPACT);
	size_t i;

	for (i = 0; i < n; i++) {
		if (ids[i] > 0)
			doc_json_int(d, arr, NULL, ids[i]);
		else
			doc_json_str(d, arr, NULL, report_file(r, ids[i]));
	}
}

/* One JSON row of a statistical comparison (the table's columns and the
 * verdict's: "ci" is an array, "runs_needed" null when decided). */
void report_stat_json(struct doc *d, struct doc_value *arr, const struct compare_result *r,
		      size_t i, int cnt, const struct compare_path *p)
{
	const struct stats_row *row = &r->rows[i];
	const struct compare_stat *c = &r->stat[i];
	struct doc_value *o = doc_json_obj(d, arr, NULL, JSONW_INLINE), *ci;

	doc_json_str(d, o, "name", row->name);
	if (p) {
		doc_json_strs(d, o, "path", (const char *const *)p->path, p->depth, JSONW_COMPACT);
		doc_json_int(d, o, "depth", (int64_t)p->depth);
	}
	report_row_values_json(d, o, row, cnt);
	if (c->verdict == VERDICT_CALL_NONE)
		doc_json_null(d, o, "verdict");
	else
		doc_json_str(d, o, "verdict", verdict_call_name(c->verdict));
	if (isnan(c->ratio))
		doc_json_null(d, o, "ratio");
	else
		doc_json_num(d, o, "ratio", c->ratio, 0);
	if (isnan(c->lo)) {
		doc_json_null(d, o, "ci");
	} else {
		ci = doc_json_arr(d, o, "ci", JSONW_COMPACT);
		doc_json_num(d, ci, NULL, c->lo, 0);
		doc_json_num(d, ci, NULL, c->hi, 0);
	}
	if (isnan(c->p)) {
		doc_json_null(d, o, "p");
		doc_json_null(d, o, "p_adjusted");
	} else {
		doc_json_num(d, o, "p", c->p, 0);
		doc_json_num(d, o, "p_adjusted", c->padj, 0);
	}
	if (c->runs_needed < 0)
		doc_json_null(d, o, "runs_needed");
	else
		doc_json_int(d, o, "runs_needed", c->runs_needed);
	doc_json_int(d, o, "baseline_n", (int64_t)c->nbase);
	doc_json_int(d, o, "candidate_n", (int64_t)c->ncand);
	report_ids_json(d, o, "outliers", r, c->outliers, c->noutliers);
}

/* A run of a set into field b: its id, or a file's name (escaped as data). */
static void report_id_span(struct doc *d, struct doc_block *b, const struct compare_result *r,
			   int64_t id)
{
	const char *file = report_file(r, id);

	if (file)
		doc_span(d, b, file, 0);
	else
		doc_spanf(d, b, DOC_RAW, "%" PRId64, id);
}

/* A field "key: N (41, 40, ...)" naming a run set ("3 (a.h5, b.h5, c.h5)"
 * for files). */
static void report_set_field(struct doc *d, const char *key, const struct compare_result *r,
			     const int64_t *ids, size_t n, size_t found, size_t asked)
{
	struct doc_block *b = doc_field(d, DOC_F_HUMAN, key);
	size_t i;

	doc_spanf(d, b, DOC_RAW, "%zu (", n);
	for (i = 0; i < n; i++) {
		if (i)
			doc_span(d, b, ", ", DOC_RAW);
		report_id_span(d, b, r, ids[i]);
	}
	doc_span(d, b, ")", DOC_RAW);
	/* a window the store could not fill judges with less than it seems
	 * (found: before a run in both sets was counted on one side) */
	if (found < asked)
		doc_spanf(d, b, DOC_RAW, ", of the %zu asked for", asked);
}

/* "Outlier runs: 38 (2.4x slower in 24 of 25 regions), 12 (...); left out
 * of the estimates" (a file by its name), "...; left out of those
 * regions' estimates" when one was kept in some regions (a window's). */
static void report_outliers_field(struct doc *d, const struct compare_result *r)
{
	struct doc_block *b = doc_field(d, DOC_F_HUMAN, "Outlier runs");
	size_t i;
	int all = 1;

	for (i = 0; i < r->noutliers; i++) {
		const struct compare_outlier *o = &r->outliers[i];
		double f = o->factor >= 1.0 ? o->factor : 1.0 / o->factor;

		if (i)
			doc_span(d, b, ", ", DOC_RAW);
		report_id_span(d, b, r, o->run);
		/* the candidate itself left out of its own set: its
		 * repetitions decided (say so: the run asked about is not
		 * in the estimate) */
		doc_spanf(d, b, DOC_RAW, " (%s%.2gx %s in %zu of %zu regions)",
			  r->ncand_runs > 1 && o->run == r->cand_runs[0] ? "the candidate itself, "
									 : "",
			  f, o->factor >= 1.0 ? "slower" : "faster", o->regions, o->tested);
		all &= o->everywhere;
	}
	doc_span(d, b,
		 all ? "; left out of the estimates" : "; left out of those regions' estimates",
		 DOC_RAW);
}

/* The smallest and largest share of the pooled noise over the rows. */
static void report_borrowed(const struct compare_result *r, double *lo, double *hi)
{
	size_t i;

	*lo = 1.0;
	*hi = 0.0;
	for (i = 0; i < r->nrows; i++) {
		if (isnan(r->stat[i].cv))
			continue;
		*lo = fmin(*lo, r->stat[i].borrowed);
		*hi = fmax(*hi, r->stat[i].borrowed);
	}
}

/* The JSON of --same: {"keys": {KEY: VALUE}, "skipped": [...],
 * "left_out": N}, null without it. */
static void report_same_json(struct doc *d, const struct same *s)
{
	struct doc_value *o, *k;
	size_t i, n = same_shown(s);

	if (!n && !s->nskipped) {
		doc_json_null(d, d->json, "same");
		return;
	}
	o = doc_json_obj(d, d->json, "same", JSONW_INLINE);
	k = doc_json_obj(d, o, "keys", JSONW_INLINE);
	for (i = 0; i < n; i++)
		doc_json_str(d, k, s->cond[i].key, s->cond[i].value);
	doc_json_strs(d, o, "skipped", (const char *const *)s->skipped, s->nskipped, JSONW_COMPACT);
	doc_json_int(d, o, "left_out", (int64_t)s->left_out);
}

/* "hostname = node7 (12 runs of another value left out); omp_num_threads
 * not applied: not set on run 41" into t. */
int report_same_text(struct buf *t, const struct same *s)
{
	size_t i, n = same_shown(s);
	int rc = same_describe(t, s);

	if (n)
		rc |= buf_printf(t, " (%zu run%s of another value left out)", s->left_out,
				 s->left_out == 1 ? "" : "s");
	for (i = 0; i < s->nskipped; i++)
		rc |= buf_printf(t, "%s%s", i ? ", " : n ? "; " : "", s->skipped[i]);
	if (s->nskipped)
		rc |= buf_printf(t, " not applied: not set on run %" PRId64, s->ref);
	return rc ? ERR_NOMEM : 0;
}

void report_same_doc(struct doc *d, const struct same *s)
{
	struct buf t = BUF_INIT;

	if (report_same_text(&t, s))
		d->failed = 1;
	else
		doc_span(d, doc_field(d, DOC_F_HUMAN, "Like with like"), t.data, 0);
	buf_release(&t);
	report_same_json(d, s);
	doc_blank(d, DOC_F_HUMAN);
}

/*
 * The header of a statistical comparison: both run sets (", of the 10 asked
 * for" after a window the store could not fill), the outlier runs
 * left out, where the noise came from with the median CV of the regions
 * and how much of it was pooled, --same, and the count of each verdict;
 * JSON: "baseline_runs", "candidate_runs", "outliers" (run, regions, of,
 * factor), "noise" (per region the CV used, its own, the share borrowed,
 * the history runs it came from and the history's description),
 * "noise_pool" and "same".
 */
void report_stat_header(struct doc *d, const struct compare_result *r,
			const struct compare_opts *opts)
{
	/* the order of the counts in the "Verdicts" line */
	static const enum verdict_call calls[] = {VERDICT_CALL_REGRESSED, VERDICT_CALL_IMPROVED,
						  VERDICT_CALL_UNCHANGED, VERDICT_CALL_INCONCLUSIVE,
						  VERDICT_CALL_NO_EVIDENCE};
	struct buf t = BUF_INIT;
	struct doc_value *arr, *o;
	double *cv = malloc((r->nrows ? r->nrows : 1) * sizeof(*cv)), blo, bhi;
	size_t i, k, ncv = 0, cnt[5] = {0, 0, 0, 0, 0};
	int rc = !cv;

	for (i = 0; i < r->nrows; i++) {
		if (!isnan(r->stat[i].cv) && cv)
			cv[ncv++] = r->stat[i].cv;
		for (k = 0; k < 5; k++)
			cnt[k] += r->stat[i].verdict == calls[k];
	}
	report_set_field(d, "Baseline runs", r, r->base_runs, r->nbase_runs, r->nbase_found,
			 opts->baseline_window);
	report_set_field(d, "Candidate runs", r, r->cand_runs, r->ncand_runs, r->ncand_found,
			 opts->candidate_window);
	if (r->noutliers)
		report_outliers_field(d, r);
	rc |= buf_printf(&t, "between-run CV of each region from its history: ");
	rc |= buf_puts(&t, r->noise_from);
	if (ncv)
		rc |= buf_printf(&t, "; median CV %.1f%%", 100.0 * statdist_median(cv, ncv));
	report_borrowed(r, &blo, &bhi);
	if (r->pool_regions && bhi > 0.0) {
		rc |= buf_printf(&t, "; pooled over %zu regions, each borrowing ", r->pool_regions);
		rc |= (int)(100.0 * blo + 0.5) == (int)(100.0 * bhi + 0.5)
			  ? buf_printf(&t, "%.0f%%", 100.0 * bhi)
			  : buf_printf(&t, "%.0f-%.0f%%", 100.0 * blo, 100.0 * bhi);
	}
	if (!rc)
		doc_span(d, doc_field(d, DOC_F_HUMAN, "Noise"), t.data, 0);
	t.len = 0;
	if (same_shown(&r->same) || r->same.nskipped) {
		rc |= report_same_text(&t, &r->same);
		if (!rc)
			doc_span(d, doc_field(d, DOC_F_HUMAN, "Like with like"), t.data, 0);
		t.len = 0;
	}
	for (k = 0; k < 5; k++)
		rc |=
		    buf_printf(&t, "%s%zu %s", k ? ", " : "", cnt[k], verdict_call_name(calls[k]));
	/* a PASS that rests on no evidence at all must not read as a real one
	 * (rows of one side only have no statistical verdict) */
	if (cnt[4] && !cnt[0] && !cnt[1] && !cnt[2] && !cnt[3] && r->verdict.kind == VERDICT_PASS)
		rc |= buf_puts(&t, " (nothing decided: more runs would, see runs needed)");
	if (!rc)
		doc_span(d, doc_field(d, DOC_F_HUMAN, "Verdicts"), t.data, DOC_RAW);
	if (rc)
		d->failed = 1;
	buf_release(&t);
	free(cv);
	report_ids_json(d, d->json, "baseline_runs", r, r->base_runs, r->nbase_runs);
	report_ids_json(d, d->json, "candidate_runs", r, r->cand_runs, r->ncand_runs);
	arr = doc_json_arr(d, d->json, "outliers", JSONW_BLOCK);
	for (i = 0; i < r->noutliers; i++) {
		o = doc_json_obj(d, arr, NULL, JSONW_INLINE);
		if (r->outliers[i].run > 0)
			doc_json_int(d, o, "run", r->outliers[i].run);
		else
			doc_json_null(d, o, "run");
		if (r->outliers[i].run < 0) /* a file of the candidate's */
			doc_json_str(d, o, "file", report_file(r, r->outliers[i].run));
		doc_json_int(d, o, "regions", (int64_t)r->outliers[i].regions);
		doc_json_int(d, o, "of", (int64_t)r->outliers[i].tested);
		doc_json_num(d, o, "factor", r->outliers[i].factor, 0);
		doc_json_bool(d, o, "everywhere", r->outliers[i].everywhere);
	}
	arr = doc_json_arr(d, d->json, "noise", JSONW_BLOCK);
	for (i = 0; i < r->nrows; i++) {
		o = doc_json_obj(d, arr, NULL, JSONW_INLINE);
		doc_json_str(d, o, "region", r->rows[i].name);
		if (isnan(r->stat[i].cv))
			doc_json_null(d, o, "cv");
		else
			doc_json_num(d, o, "cv", r->stat[i].cv, 0);
		if (isnan(r->stat[i].cv_own))
			doc_json_null(d, o, "cv_own");
		else
			doc_json_num(d, o, "cv_own", r->stat[i].cv_own, 0);
		doc_json_num(d, o, "borrowed", r->stat[i].borrowed, 0);
		doc_json_int(d, o, "history_runs", (int64_t)r->stat[i].nhist);
		doc_json_str(d, o, "from", r->noise_from);
	}
	o = doc_json_obj(d, d->json, "noise_pool", JSONW_INLINE);
	doc_json_int(d, o, "regions", (int64_t)r->pool_regions);
	doc_json_num(d, o, "df", r->pool_df, 0);
	report_same_json(d, &r->same);
}
