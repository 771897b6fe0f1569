/*
 * h5aggregate.c - the aggregate layout of docs/format.md section 4
 * (storage_layout = "aggregate", schema >= 2): the index carries per-row
 * counts, totals, minimums, maximums and exclusive totals instead of
 * slices of event columns, so rows are handed out with has_events = 0.
 * The rest of the index (names, ranks, sources, tags, checks) is read by
 * h5index.c.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>

#include "scopedb/err.h"
#include "h5/h5_internal.h"

/*
 * Store aggregate_counts, _totals, _minimums, _maximums and _exclusives
 * into p->rows.  Totals, minimums and maximums of rows with calls must not
 * be negative; zero-call rows keep 0.
 */
int h5aggregate_read_index(struct h5prof *p, const struct h5col *ix, uint64_t *u, int64_t *s)
{
	size_t i, nrows = p->info.num_rows;
	int k, rc;

	rc = h5col_read_u64(p, &ix[IX_ACOUNT], u, UINT64_MAX);
	if (rc)
		return rc;
	for (i = 0; i < nrows; i++)
		p->rows[i].count = u[i];
	for (k = IX_ATOTAL; k <= IX_AEXCL; k++) {
		if (ix[k].dset < 0)
			continue;
		rc = h5col_read_i64(p, &ix[k], s);
		if (rc)
			return rc;
		for (i = 0; i < nrows; i++) {
			struct prow *r = &p->rows[i];

			if (k == IX_AEXCL) {
				r->exclusive = s[i];
				continue;
			}
			if (!r->count)
				continue; /* zero-call rows keep 0 */
			if (s[i] < 0) {
				rc = h5prof_fail(p, ERR_FORMAT,
						 "row %zu (%s): '%s' is negative (%" PRId64
						 " ns); the file is damaged",
						 i, h5prof_rowdesc(p, r), h5prof_q(ix[k].label),
						 s[i]);
				return rc;
			}
			if (k == IX_ATOTAL)
				r->agg_total = s[i];
			else if (k == IX_AMIN)
				r->agg_min = s[i];
			else
				r->agg_max = s[i];
		}
	}
	return 0;
}

/* The rows in index order, with their aggregates and no events. */
int h5aggregate_read(struct h5prof *p, h5prof_row_fn fn, void *ctx)
{
	struct h5prof_row row;
	size_t i;
	int rc;

	for (i = 0; i < p->info.num_rows; i++) {
		h5prof_fill_row(p, &p->rows[i], &row);
		rc = fn(ctx, &row);
		if (rc)
			return rc;
	}
	return 0;
}
