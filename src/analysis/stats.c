/*
 * stats.c - metric values, diff rows and check verdicts as scope-profiler
 * defines them (docs/format.md sections 8 and 9; see stats.h).
 *
 * The arithmetic follows the reference definitions operation by operation
 * where the order matters for the last bits (pct = delta / a * 100; the
 * numpy interpolation of the percentiles is src/util/percentile.c), so
 * that values agree with upstream to far better than the required
 * relative 1e-9.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "scopedb/err.h"
#include "scopedb/stats.h"
#include "scopedb/util.h"
#include "util/percentile.h"
#include "util/suggest.h"

/* The names and properties of the metrics, from STATS_METRICS (model.h). */
#define STATS_METRIC_NAME_(id, name, q, count) #name,
static const char *const stats_metric_names[STATS_NMETRICS] = {STATS_METRICS(STATS_METRIC_NAME_)};
#define STATS_METRIC_QUANTILE_(id, name, q, count) q,
static const double stats_metric_quantiles[STATS_NMETRICS] = {
    STATS_METRICS(STATS_METRIC_QUANTILE_)};
#define STATS_METRIC_COUNT_(id, name, q, count) count,
static const unsigned char stats_metric_counts[STATS_NMETRICS] = {
    STATS_METRICS(STATS_METRIC_COUNT_)};

const char *stats_metric_name(enum stats_metric m)
{
	return (unsigned)m < STATS_NMETRICS ? stats_metric_names[m] : "?";
}

int stats_metric_parse(enum stats_metric *out, const char *name)
{
	struct buf hint = BUF_INIT, list = BUF_INIT;
	int i, rc = 0;

	for (i = 0; i < STATS_NMETRICS; i++)
		if (!strcasecmp(name, stats_metric_names[i])) {
			*out = (enum stats_metric)i;
			return 0;
		}
	for (i = 0; i < STATS_NMETRICS && !rc; i++)
		rc = buf_printf(&list, "%s%s", i ? ", " : "", stats_metric_names[i]);
	if (rc || suggest_hint(&hint, name, stats_metric_names, STATS_NMETRICS))
		rc = err_nomem();
	else
		rc = err_set(ERR_USAGE, "invalid --metric '%s': choose from %s%s", name, list.data,
			     hint.data ? hint.data : "");
	buf_release(&list);
	buf_release(&hint);
	return rc;
}

double stats_metric_quantile(enum stats_metric m)
{
	return (unsigned)m < STATS_NMETRICS ? stats_metric_quantiles[m] : 0.0;
}

int stats_metric_is_count(enum stats_metric m)
{
	return (unsigned)m < STATS_NMETRICS && stats_metric_counts[m];
}

/*
 * Imbalance in percent from the per-rank totals that are > 0: with k of
 * them summing to sum and the largest max, (max / (sum/k) - 1) * 100.  The
 * numerator max*k - sum is formed exactly in integers when it fits, so
 * nearly balanced runs do not lose their digits to cancellation.
 */
static double stats_imbalance(uint64_t k, int64_t max, int64_t sum)
{
	uint64_t um = (uint64_t)max, us = (uint64_t)sum;

	if (k < 2 || sum <= 0)
		return 0.0;
	if (um <= UINT64_MAX / k && um * k >= us)
		return (double)(um * k - us) / (double)us * 100.0;
	return ((double)max / ((double)sum / (double)k) - 1.0) * 100.0;
}

int stats_region_value(struct stats_val *out, const struct stats_region *r, enum stats_metric m)
{
	const struct metric_samples *s = &r->samples;
	double q;

	out->none = 0;
	out->v = 0.0;
	if (m == STATS_CALLS) {
		out->v = (double)r->calls;
		return 0;
	}
	if (r->calls == 0) {
		/* No calls on the selected ranks: imbalance 0.0, the rest None. */
		out->none = m != STATS_IMBALANCE;
		return 0;
	}
	switch (m) {
	case STATS_TOTAL:
		out->v = (double)r->total / 1e9;
		break;
	case STATS_SELF:
		out->none = !r->has_self;
		out->v = r->has_self ? (double)r->self / 1e9 : 0.0;
		break;
	case STATS_AVG:
		out->v = (double)r->total / (double)r->calls / 1e9;
		break;
	case STATS_MIN:
		out->v = (double)r->min / 1e9;
		break;
	case STATS_MAX:
		out->v = (double)r->max / 1e9;
		break;
	case STATS_IMBALANCE:
		out->v = stats_imbalance(r->busy_ranks, r->busy_max, r->total);
		break;
	case STATS_GPU_TOTAL:
	case STATS_GPU_AVG:
		if (!r->has_events || r->gpu_count == 0) {
			out->none = 1;
			break;
		}
		out->v = (double)r->gpu_total / 1e9;
		if (m == STATS_GPU_AVG)
			out->v = out->v / (double)r->gpu_count;
		break;
	case STATS_P50:
	case STATS_P95:
	case STATS_P99:
		if (!r->has_events) {
			out->none = 1;
			break;
		}
		if (s->quantiles) {
			out->v = s->quantiles[m == STATS_P50 ? 0 : m == STATS_P95 ? 1 : 2] / 1e9;
			break;
		}
		if (!s->sorted || s->nsorted != r->calls ||
		    (s->run_ends && (!s->nruns || (size_t)s->run_ends[s->nruns - 1] != s->nsorted)))
			return err_set(ERR_GENERIC,
				       "internal error: %s needs the %llu sorted durations",
				       stats_metric_name(m), (unsigned long long)r->calls);
		q = stats_metric_quantile(m);
		if (s->run_ends)
			out->v = percentile_runs(s->sorted, s->run_ends, s->nruns, q) / 1e9;
		else
			out->v = percentile_sorted(s->sorted, s->nsorted, q) / 1e9;
		break;
	case STATS_CALLS:
		break;
	}
	return 0;
}

/* The error of an unknown --sort key, with the nearest one. */
static int stats_bad_sort(const char *name)
{
	struct buf hint = BUF_INIT;
	int rc = suggest_hint_words(&hint, name, "delta pct name");

	if (!rc)
		rc = err_set(ERR_USAGE, "invalid --sort '%s': choose from delta, pct, name%s", name,
			     hint.data ? hint.data : "");
	buf_release(&hint);
	return rc;
}

int stats_sort_parse(enum stats_sort *out, const char *name)
{
	if (!strcasecmp(name, "delta"))
		*out = STATS_SORT_DELTA;
	else if (!strcasecmp(name, "pct"))
		*out = STATS_SORT_PCT;
	else if (!strcasecmp(name, "name"))
		*out = STATS_SORT_NAME;
	else
		return stats_bad_sort(name);
	return 0;
}

/* qsort comparator on (const struct stats_named *) pointers by name. */
static int stats_cmp_named(const void *x, const void *y)
{
	const struct stats_named *a = *(const struct stats_named *const *)x;
	const struct stats_named *b = *(const struct stats_named *const *)y;

	return strcmp(a->name, b->name);
}

/* The names of side[0..n) sorted (array of pointers); ERR_GENERIC on a
 * duplicate name. */
static int stats_sorted_side(const struct stats_named ***out, const struct stats_named *side,
			     size_t n)
{
	const struct stats_named **p;
	size_t i;

	*out = NULL;
	p = util_sorted_ptrs(side, n, sizeof(*side), stats_cmp_named);
	if (!p)
		return ERR_NOMEM;
	for (i = 1; i < n; i++)
		if (!strcmp(p[i - 1]->name, p[i]->name)) {
			int rc = err_set(ERR_GENERIC, "internal error: region '%s' listed twice",
					 p[i]->name);

			free(p);
			return rc;
		}
	*out = p;
	return 0;
}

/* Sort key of a row: |delta| or |pct|; pct None sorts after every value. */
struct stats_key {
	struct stats_row row;
	int none;
	double key;
	size_t pos; /* alphabetical position, for stability */
};

static int stats_cmp_key(const void *x, const void *y)
{
	const struct stats_key *a = x, *b = y;

	if (a->none != b->none)
		return a->none - b->none;
	if (!a->none && a->key != b->key)
		return a->key > b->key ? -1 : 1;
	return (a->pos > b->pos) - (a->pos < b->pos);
}

/* Stable descending sort of rows[0..n) (already alphabetical) by key. */
static int stats_sort_rows(struct stats_row *rows, size_t n, enum stats_sort sort)
{
	struct stats_key *k;
	size_t i;

	if (sort == STATS_SORT_NAME || n < 2)
		return 0;
	k = malloc(n * sizeof(*k));
	if (!k)
		return err_nomem();
	for (i = 0; i < n; i++) {
		k[i].row = rows[i];
		k[i].pos = i;
		if (sort == STATS_SORT_DELTA) {
			k[i].none = 0;
			k[i].key = fabs(rows[i].delta);
		} else {
			k[i].none = rows[i].pct.none;
			k[i].key = rows[i].pct.none ? 0.0 : fabs(rows[i].pct.v);
		}
	}
	qsort(k, n, sizeof(*k), stats_cmp_key);
	for (i = 0; i < n; i++)
		rows[i] = k[i].row;
	free(k);
	return 0;
}

int stats_diff(struct stats_row **out, size_t *n, const struct stats_named *a, size_t na,
	       const struct stats_named *b, size_t nb, const struct stats_diff_opts *opts)
{
	const struct stats_named **sa = NULL, **sb = NULL;
	struct stats_row *rows = NULL;
	size_t i = 0, j = 0, nr = 0;
	int rc;

	*out = NULL;
	*n = 0;
	rc = stats_sorted_side(&sa, a, na);
	if (!rc)
		rc = stats_sorted_side(&sb, b, nb);
	if (rc)
		goto out;
	rows = malloc((na + nb ? na + nb : 1) * sizeof(*rows));
	if (!rows) {
		rc = err_nomem();
		goto out;
	}
	/* Merge the two alphabetical lists into the union. */
	while (i < na || j < nb) {
		struct stats_row r;
		int c = i >= na ? 1 : j >= nb ? -1 : strcmp(sa[i]->name, sb[j]->name);

		memset(&r, 0, sizeof(r));
		r.a.none = r.b.none = 1;
		if (c <= 0) {
			r.name = sa[i]->name;
			r.a = sa[i++]->v;
		}
		if (c >= 0) {
			r.name = sb[j]->name;
			r.b = sb[j++]->v;
		}
		if (r.a.none && r.b.none)
			continue;
		r.delta = (r.b.none ? 0.0 : r.b.v) - (r.a.none ? 0.0 : r.a.v);
		r.pct.none = r.a.none || r.a.v == 0.0;
		if (!r.pct.none)
			r.pct.v = r.delta / r.a.v * 100.0;
		if (opts->has_threshold && !r.pct.none && fabs(r.pct.v) < opts->threshold)
			continue;
		rows[nr++] = r;
	}
	rc = stats_sort_rows(rows, nr, opts->sort);
	if (rc)
		goto out;
	if (nr == 0) {
		free(rows);
		rows = NULL;
	}
	*out = rows;
	*n = nr;
	rows = NULL;
out:
	free(rows);
	free(sa);
	free(sb);
	return rc;
}

int stats_check(size_t *out, struct stats_row *rows, size_t n, double max_regression,
		int fail_on_new)
{
	size_t i, bad = 0;

	*out = 0;
	if (!isfinite(max_regression) || max_regression < 0.0)
		return err_set(ERR_USAGE,
			       "invalid --max-regression %g: the budget cannot be negative",
			       max_regression);
	for (i = 0; i < n; i++) {
		struct stats_row *r = &rows[i];

		r->violation =
		    (!r->pct.none && r->pct.v > max_regression) || (fail_on_new && r->a.none);
		bad += (size_t)r->violation;
	}
	*out = bad;
	return 0;
}

int stats_parse_percent(double *out, const char *opt, const char *arg, int nonneg)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (end != arg && *end == '%') /* "5%" */
		end++;
	/* a decimal number: strtod() also takes "0x10" (16) and leading blanks */
	if (end == arg || *end || errno == ERANGE || !isfinite(v) || strpbrk(arg, "xX") ||
	    isspace((unsigned char)arg[0]))
		return err_set(ERR_USAGE, "invalid %s '%s': expected a number (percent)", opt, arg);
	if (nonneg && v < 0.0)
		return err_set(ERR_USAGE, "invalid %s '%s': must not be negative", opt, arg);
	*out = v + 0.0; /* -0 is 0: "Regression budget: -0%" said nothing true */
	return 0;
}

int stats_verdict(struct verdict *out, const struct stats_row *rows, size_t n)
{
	size_t i;

	memset(out, 0, sizeof(*out));
	out->violations = malloc((n ? n : 1) * sizeof(*out->violations));
	if (!out->violations)
		return err_nomem();
	for (i = 0; i < n; i++)
		if (rows[i].violation)
			out->violations[out->nviolations++] = rows[i].name;
	out->kind = out->nviolations ? VERDICT_FAIL : VERDICT_PASS;
	return 0;
}

void verdict_release(struct verdict *v)
{
	if (!v)
		return;
	free(v->violations);
	memset(v, 0, sizeof(*v));
}

const char *verdict_name(enum verdict_kind k)
{
	return k == VERDICT_FAIL	   ? "FAIL"
	       : k == VERDICT_PASS	   ? "PASS"
	       : k == VERDICT_INCONCLUSIVE ? "INCONCLUSIVE"
					   : "";
}
