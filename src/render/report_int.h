/*
 * report_int.h - what report.c shares with report_stat.c (not a public
 * header): the statistical pieces of a comparison's document.
 *
 * Ownership: everything added goes into the caller's document.
 */
#ifndef SCOPEDB_RENDER_REPORT_INT_H
#define SCOPEDB_RENDER_REPORT_INT_H

#include <stddef.h>

#include "render/doc.h"
#include "scopedb/compare.h"

/* A row's "a", "b", "delta" and "pct" into the JSON object obj (null where a
 * value is missing; cnt: the metric counts calls); shared by both kinds of rows. */
void report_row_values_json(struct doc *d, struct doc_value *obj, const struct stats_row *row,
			    int cnt);
/* The statistical columns of a row's cells from column col on. */
void report_stat_cells(struct doc_table *t, size_t col, const struct compare_stat *c);
/* A row's "ratio [95% CI]" ("1.06 [1.02, 1.10]") and a p ("<0.001",
 * "0.042") as the table shows them, for the findings' messages too. */
void report_stat_ratio(char *s, size_t len, const struct compare_stat *c);
void report_stat_p(char *s, size_t len, double p);
/* One JSON row of a statistical comparison into arr (p: its path, by path;
 * r: the comparison, whose files name its outliers). */
void report_stat_json(struct doc *d, struct doc_value *arr, const struct compare_result *r,
		      size_t i, int cnt, const struct compare_path *p);
/* The header of a statistical comparison (run sets, outliers, noise, --same,
 * verdict counts). */
void report_stat_header(struct doc *d, const struct compare_result *r,
			const struct compare_opts *opts);

#endif
