/*
 * compare.c - the core of diff and check (see compare.h): resolve both
 * arguments to a (store, run) pair, pool each selected region's rows of the
 * selected ranks with the store's aggregate query, turn the aggregates into
 * metric values (stats.c) and build the rows and the verdict.
 *
 * Files named on the command line are ingested into a private in-memory
 * store (runarg.h), so stored runs and files share every line of the
 * metric code.  Attribution is compare_attr.c; the source
 * locations of check's findings are compare_locs.c; the run sets and
 * verdicts of a statistical check are compare_stat.c; what a comparison
 * cannot count (self times unknown, ranks without a tree) is
 * compare_partial.c (compare_int.h).
 */
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/ancestry.h"
#include "analysis/compare_int.h"
#include "analysis/metric.h"
#include "analysis/runset.h"
#include "analysis/verdict.h"
#include "scopedb/compare.h"
#include "scopedb/err.h"
#include "select/match.h"
#include "scopedb/runarg.h"
#include "scopedb/store.h"
#include "scopedb/util.h"
#include "util/statdist.h"

/*
 * Resolve arg (runarg.h: a selector in the shared store db, else a file in
 * src's in-memory store) and describe it in side.
 */
static int compare_open_side(struct runarg *src, struct compare_side *side, struct runarg_db *db,
			     const char *arg)
{
	int rc;

	side->arg = util_strdup(arg);
	if (!side->arg)
		return ERR_NOMEM;
	rc = runarg_resolve(src, db, arg);
	if (rc)
		return rc;
	side->is_file = src->is_file;
	return runarg_get_run(&side->run, src, arg);
}

/*
 * The metric of every selected region of one side (runset_read()):
 * *out[i].name points into side->regions, which receives the names
 * (sorted).
 */
static int compare_values(struct stats_named **out, struct compare_side *side,
			  const struct runarg *src, struct match *m, const struct compare_opts *o)
{
	struct runset_run run;
	struct stats_named *vals = NULL;
	size_t i;
	int rc;

	memset(&run, 0, sizeof(run));
	*out = NULL;
	rc = runset_read(&run, src->st, src->run_id, m, o);
	if (rc)
		goto out;
	vals = calloc(run.n ? run.n : 1, sizeof(*vals));
	if (!vals) {
		rc = err_nomem();
		goto out;
	}
	for (i = 0; i < run.n; i++) {
		vals[i].name = run.names[i];
		vals[i].v = run.vals[i];
	}
	if (run.paths) {
		side->paths = calloc(run.n ? run.n : 1, sizeof(*side->paths));
		if (!side->paths) {
			rc = err_nomem();
			goto out;
		}
		for (i = 0; i < run.n; i++) {
			side->paths[i].name = run.names[i];
			side->paths[i].path = run.paths[i];
			side->paths[i].depth = (size_t)run.depths[i];
			side->paths[i].self = (double)run.selfs[i] / 1e9;
			run.paths[i] = NULL; /* moved */
		}
		side->npaths = run.n;
		qsort(side->paths, side->npaths, sizeof(*side->paths), util_strptr_cmp);
	}
	side->idle = malloc((run.n ? run.n : 1) * sizeof(*side->idle));
	if (!side->idle) {
		rc = err_nomem();
		goto out;
	}
	for (i = 0; i < run.n; i++)
		if (!run.calls[i])
			side->idle[side->nidle++] = run.names[i];
	side->regions = run.names; /* moved */
	side->nregions = run.n;
	side->ncalls = run.ncalls;
	run.names = NULL;
	/* Names as Python sorts them (code points = UTF-8 byte order). */
	qsort(side->regions, side->nregions, sizeof(*side->regions), util_strptr_cmp);
	qsort(side->idle, side->nidle, sizeof(*side->idle), util_strptr_cmp);
	*out = vals;
	vals = NULL;
out:
	runset_run_release(&run);
	free(vals);
	return rc;
}

/* Names in x but not in y (both sorted): *out borrows x's strings. */
static int compare_only(const char ***out, size_t *n, char *const *x, size_t nx, char *const *y,
			size_t ny)
{
	size_t i = 0, j = 0;
	const char **v;

	*n = 0;
	*out = NULL;
	v = malloc((nx ? nx : 1) * sizeof(*v));
	if (!v)
		return err_nomem();
	while (i < nx) {
		int c = j < ny ? strcmp(x[i], y[j]) : -1;

		if (c < 0)
			v[(*n)++] = x[i++];
		else if (c > 0)
			j++;
		else
			i++, j++;
	}
	*out = v;
	return 0;
}

/* 1 when the value v of a region is one of no call: none, or 0 (calls). */
static int compare_no_call(const struct stats_val *v)
{
	return v->none || v->v == 0.0;
}

/*
 * --fail-on-missing: row fails when its region is a baseline region the
 * candidate does not call: absent from it (only_a), or present with no
 * call on the selected ranks (index rows only, as schema 2 and 3 files
 * keep for a region registered but not run) while the baseline calls it.
 * "No call" is of the value the row compares too (the median over
 * repetitions, a set's location), not of the first run alone.
 */
/* 1 when side has region name with no call on the chosen ranks. */
int compare_side_idle(const struct compare_side *side, const char *name)
{
	return bsearch(&name, side->idle, side->nidle, sizeof(*side->idle), util_strptr_cmp) !=
	       NULL;
}

void compare_missing(const struct compare_result *r, struct stats_row *row)
{
	if (bsearch(&row->name, r->only_a, r->nonly_a, sizeof(*r->only_a), util_strptr_cmp)) {
		row->violation = 1;
	} else if (!compare_no_call(&row->a) && compare_no_call(&row->b) &&
		   compare_side_idle(&r->b, row->name) && !compare_side_idle(&r->a, row->name)) {
		row->violation = 1;
		row->gone = 1;
	}
}

/* Not hostname: CI runners get a new one per job (--require-same hostname
 * opts in). */
const char *const compare_same_keys[] = {"mpi_size", "platform", NULL};

/* The value of key in m, or NULL. */
const char *compare_meta_get(const struct store_meta *m, const char *key)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		if (!strcmp(m->keys[i], key))
			return m->values[i];
	return NULL;
}

/* 1 when key is one of the n strings of v. */
static int compare_in(const char *const *v, size_t n, const char *key)
{
	while (n--)
		if (!strcmp(v[n], key))
			return 1;
	return 0;
}

/*
 * A check compares like with like: key must have the same value on both
 * sides, unless --allow-different names it.  A default key (required 0)
 * is skipped unless both sides have it; a --require-same key present on
 * one side only differs, and one on neither side is an error (most likely
 * misspelled: it would otherwise pass silently).
 */
static int compare_same(const struct store_meta *ma, const struct store_meta *mb, const char *key,
			int required, const struct compare_opts *o)
{
	const char *va = compare_meta_get(ma, key), *vb = compare_meta_get(mb, key);

	if (compare_in(o->allow_different, o->nallow_different, key))
		return 0;
	if (required && !va && !vb)
		return err_set(ERR_USAGE, "--require-same '%s': neither run has this metadata key",
			       key);
	if ((!va && !vb) || (!required && (!va || !vb)) || (va && vb && !strcmp(va, vb)))
		return 0;
	return err_set(ERR_USAGE,
		       "runs are not comparable: %s differs (a: %s, b: %s); compare them anyway "
		       "with --allow-different %s",
		       key, va ? va : "unset", vb ? vb : "unset", key);
}

/* The first of keys (given with option opt) that --allow-different also
 * names, as a usage error; 0 when none does. */
static int compare_check_contradict(const struct compare_opts *o, const char *opt,
				    const char *const *keys, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (compare_in(o->allow_different, o->nallow_different, keys[i]))
			return err_set(ERR_USAGE,
				       "%s '%s' and --allow-different '%s' contradict each other: "
				       "drop one",
				       opt, keys[i], keys[i]);
	return 0;
}

/* A key both required (--require-same) and allowed to differ
 * (--allow-different) is a contradiction: refuse it before reading runs. */
static int compare_check_keys(const struct compare_opts *o)
{
	int rc = compare_check_contradict(o, "--require-same", o->require_same, o->nrequire_same);

	return rc ? rc : compare_check_contradict(o, "--same", o->same, o->nsame);
}

/* Like with like: resolve --same against the baseline (into out->same,
 * unless same is given: a repetition of the candidate, checked against
 * the candidate's), whose values the candidate must have too; the run
 * sets also keep the baseline's mpi_size and platform (a diff's where its
 * two runs agree on them). */
static int compare_same_runs(struct compare_result *out, const struct same *same,
			     const struct runarg *sa, const struct store_meta *ma,
			     const struct store_meta *mb, const struct compare_opts *o)
{
	struct same_spec spec = {o->same, o->nsame, o->same_from_env, NULL, 0};
	const char *implied[sizeof(compare_same_keys) / sizeof(compare_same_keys[0])];
	size_t i;
	int rc;

	/* a check's run sets keep the runs of the keys it requires of its
	 * two runs: a window of main's 4-rank runs is no baseline for 8; a
	 * diff requires nothing, and its sets mix only where its runs do */
	for (i = 0; compare_same_keys[i]; i++) {
		const char *key = compare_same_keys[i], *va = compare_meta_get(ma, key);
		const char *vb = compare_meta_get(mb, key);

		if (compare_in(o->allow_different, o->nallow_different, key))
			continue;
		if (o->check || !va || !vb || !strcmp(va, vb))
			implied[spec.nimplied++] = key;
	}
	spec.implied = implied;
	rc = same ? 0 : same_resolve(&out->same, sa->st, sa->run_id, &spec);

	if (!same)
		same = &out->same;
	for (i = 0; !rc && i < same->ncond; i++) {
		const char *key = same->cond[i].key, *va = same->cond[i].value;
		const char *vb = compare_meta_get(mb, key);

		if (!vb && same->cond[i].or_absent)
			continue; /* an implied key the candidate lacks */
		if (!vb || strcmp(va, vb))
			rc = err_set(ERR_USAGE,
				     "runs are not comparable: %s differs (a: %s, b: %s) and %s "
				     "keeps the runs of one %s",
				     key, va, vb ? vb : "unset",
				     o->same_from_env ? "$SCOPEDB_SAME" : "--same", key);
	}
	return rc;
}

/*
 * The metadata differences of the baseline and run id of st (the candidate,
 * files included: their in-memory store holds their metadata) into out,
 * and for a check the keys that must not differ.  path: a further
 * repetition of the candidate, named path in the message, only checked
 * (--same against out->same, resolved by the candidate's call before).
 */
static int compare_meta(struct compare_result *out, const struct runarg *sa, struct store *st,
			int64_t id, const char *path, const struct compare_opts *o)
{
	struct store_meta ma, mb;
	size_t i;
	int rc;

	memset(&mb, 0, sizeof(mb));
	rc = store_get_meta(sa->st, &ma, sa->run_id);
	if (!rc)
		rc = store_get_meta(st, &mb, id);
	for (i = 0; o->check && !rc && compare_same_keys[i]; i++)
		rc = compare_same(&ma, &mb, compare_same_keys[i], 0, o);
	for (i = 0; o->check && !rc && i < o->nrequire_same; i++)
		rc = compare_same(&ma, &mb, o->require_same[i], 1, o);
	/* $SCOPEDB_SAME only shapes run sets; an explicit --same also keeps
	 * a point comparison like with like */
	if (!rc && ((o->nsame && !o->same_from_env) || o->stat || o->baseline_window ||
		    o->candidate_window))
		rc = compare_same_runs(out, path ? &out->same : NULL, sa, &ma, &mb, o);
	if (!rc && !path)
		rc = metadiff_compute(&out->meta_changes, &out->nmeta_changes, &ma, &mb, 0);
	if (rc == ERR_USAGE && path) {
		/* name the file: the message compares the baseline with it */
		char *msg = util_strdup(err_msg());

		rc = msg ? err_set(ERR_USAGE, "'%s': %s", path, msg) : err_nomem();
		free(msg);
	}
	store_meta_release(&ma);
	store_meta_release(&mb);
	return rc;
}

/* "run 3", or the file as given, quoted. */
int compare_side_name(struct buf *out, const struct compare_side *s)
{
	if (s->is_file)
		return buf_printf(out, "'%s'", s->arg);
	return buf_printf(out, "run %" PRId64, s->run.id);
}

/* Whether both sides are the same run or the same file ("diff 3 3"). */
int compare_same_sides(const struct compare_result *r)
{
	if (r->a.is_file != r->b.is_file)
		return 0;
	if (r->a.is_file)
		return r->a.arg && r->b.arg && !strcmp(r->a.arg, r->b.arg);
	return r->a.run.id == r->b.run.id;
}

/* "run 3 or run 4" (sep " or "), or one side's name when only one of a
 * and b is 1 or when both sides are the same run ("run 3", not "run 3 or
 * run 3"). */
static int compare_sides(struct buf *out, const struct compare_result *r, int a, int b,
			 const char *sep)
{
	int rc = 0;

	if (a && b && compare_same_sides(r))
		b = 0;
	if (a)
		rc |= compare_side_name(out, &r->a);
	if (a && b)
		rc |= buf_puts(out, sep);
	if (b)
		rc |= compare_side_name(out, &r->b);
	return rc;
}

/* "--include 'a' --include 'b' --exclude 'c' --ranks 0-3": the selection. */
static int compare_selection(struct buf *out, const struct compare_opts *o)
{
	size_t i;
	int rc = 0;

	for (i = 0; i < o->ninclude; i++)
		rc |= buf_printf(out, "%s--include '%s'", out->len ? " " : "", o->includes[i]);
	for (i = 0; i < o->nexclude; i++)
		rc |= buf_printf(out, "%s--exclude '%s'", out->len ? " " : "", o->excludes[i]);
	if (o->ranks) {
		rc |= buf_puts(out, out->len ? " --ranks " : "--ranks ");
		rc |= match_ranks_format(out, o->ranks, o->nranks);
	}
	return rc;
}

/* Why a metric has no value: a hint for the metrics some runs lack. */
static const char *compare_why_none(const struct compare_result *r, const struct compare_opts *o)
{
	int agg = (r->a.run.layout && !strcmp(r->a.run.layout, "aggregate")) ||
		  (r->b.run.layout && !strcmp(r->b.run.layout, "aggregate"));
	int gpu = o->metric == STATS_GPU_TOTAL || o->metric == STATS_GPU_AVG;

	if (agg && (gpu || stats_metric_quantile(o->metric) > 0.0))
		return " (aggregate-layout runs have no per-call durations)";
	if (gpu && o->by_path)
		return " (paths keep no GPU times; --by name compares the regions' GPU times, "
		       "where the runs have any)";
	if (gpu)
		return " (no call has a GPU time)";
	return "";
}

/* 1 when side b (else a) calls a region of a row yet no row has a value
 * of the metric on that side: the metric has none in that run (an
 * aggregate-layout run's percentiles, a run without GPU times), so its
 * rows' -100% (or the other side's new regions) compare nothing. */
static int compare_side_valueless(const struct compare_result *r, int b)
{
	const struct compare_side *side = b ? &r->b : &r->a;
	const char **absent = b ? r->only_a : r->only_b;
	size_t nabsent = b ? r->nonly_a : r->nonly_b, i, called = 0;

	for (i = 0; i < r->nrows; i++) {
		const struct stats_row *row = &r->rows[i];

		if (!(b ? row->b.none : row->a.none))
			return 0;
		if (!bsearch(&row->name, absent, nabsent, sizeof(*absent), util_strptr_cmp) &&
		    !compare_side_idle(side, row->name))
			called++;
	}
	return called > 0;
}

/* By path, when ranks were left out for want of a call tree (their warning,
 * r->partial, says which): why a selection found no call, appended to t,
 * so that it does not read as ranks that made none. */
static int compare_no_tree(struct buf *t, const struct compare_result *r,
			   const struct compare_opts *o)
{
	if (!o->by_path || (!r->partial && !r->partial_other))
		return 0;
	return buf_puts(t, " by path: ranks without a call tree are left out (--by name compares "
			   "their calls)");
}

/*
 * Set r->nothing when nothing was compared, so that a check cannot pass on
 * nothing: a side is a run without regions (stored before scopedb refused
 * such files), one run has selected regions but no call of them while
 * the other has calls, or no row is left (the selection matches no region
 * of either run, or the metric has no value in either).  Rows of one side
 * only are a comparison: the missing and new regions.  So is a candidate
 * that made calls on the selected ranks (b_ran), but none of the selected
 * regions the baseline calls, under --fail-on-missing: its rows are
 * violations (a FAIL); a candidate that made no call at all there is still
 * nothing (a benchmark that stopped before its timed part is not a
 * measurement).  Rows whose one side has no value of the metric in any
 * row, though it calls their regions, set r->valueless instead: a diff
 * shows them (upstream's -100%), a check refuses them.
 */
static int compare_nothing(struct compare_result *r, const struct compare_opts *o, size_t nrows,
			   int b_ran)
{
	int ea = r->a.run.num_regions == 0, eb = r->b.run.num_regions == 0, rc = 0;
	/* selected regions, none of them called (index rows only), in the
	 * run and in the value each row compares (repetitions, sets) */
	int za = r->a.nregions && !r->a.ncalls, zb = r->b.nregions && !r->b.ncalls, va, vb;
	struct buf t = BUF_INIT;
	size_t i;

	for (i = 0; (za || zb) && i < r->nrows; i++) {
		za = za && compare_no_call(&r->rows[i].a);
		zb = zb && compare_no_call(&r->rows[i].b);
	}
	va = nrows && compare_side_valueless(r, 0);
	vb = nrows && compare_side_valueless(r, 1);
	if (ea || eb) {
		rc |= compare_sides(&t, r, ea, eb, " and ");
		rc |= buf_puts(&t, ea && eb && !compare_same_sides(r) ? " have no regions"
								      : " has no regions");
	} else if (nrows && zb && !za && r->a.ncalls && b_ran && o->fail_on_missing &&
		   r->verdict.kind == VERDICT_FAIL) {
		/* a candidate that ran, but called none of the selected
		 * regions the baseline calls, which --fail-on-missing made
		 * violations: the gate decided */
		return 0;
	} else if (nrows && ((za && r->b.ncalls) || (zb && r->a.ncalls))) {
		/* one run called none of its selected regions while the other
		 * did: a candidate that ran nothing must not pass, nor be
		 * measured against a baseline that ran nothing (regions of one
		 * side only are still a comparison) */
		rc |= compare_selection(&t, o);
		rc |= buf_puts(&t, t.len ? " selects no call of " : "no call in ");
		rc |= compare_sides(&t, r, za, zb, " or ");
		rc |= compare_no_tree(&t, r, o);
	} else if (nrows && (va || vb)) {
		rc |= buf_printf(&t, "metric %s has no value in ", stats_metric_name(o->metric));
		rc |= compare_sides(&t, r, va, vb, " or ");
		rc |= buf_puts(&t, compare_why_none(r, o));
		r->valueless = buf_finish(&t, rc);
		return r->valueless ? 0 : err_nomem();
	} else if (nrows) {
		return 0;
	} else if (r->a.nregions == 0 && r->b.nregions == 0) {
		rc |= compare_selection(&t, o);
		rc |= buf_puts(&t, " leaves no region of ");
		rc |= compare_sides(&t, r, 1, 1, " or ");
	} else if (r->a.ncalls == 0 && r->b.ncalls == 0) {
		rc |= compare_selection(&t, o);
		rc |= buf_puts(&t, t.len ? " selects no call of " : "no call in ");
		rc |= compare_sides(&t, r, 1, 1, " or ");
		rc |= compare_no_tree(&t, r, o);
	} else {
		rc |= buf_printf(&t, "metric %s has no value in either run%s",
				 stats_metric_name(o->metric), compare_why_none(r, o));
	}
	r->nothing = buf_finish(&t, rc);
	return r->nothing ? 0 : err_nomem();
}

/* The index of name among the n sorted names, or -1. */
static ptrdiff_t compare_find_name(char *const *names, size_t n, const char *name)
{
	char *const *at = bsearch(&name, names, n, sizeof(*names), util_strptr_cmp);

	return at ? at - names : -1;
}

/*
 * Add to side (regions, and values *v of as many) the regions of
 * runs[1..nr) that it lacks, each once, with no value of their own (the
 * caller takes the median over the runs): the regions of a candidate of
 * several files are those of any file, whatever their order.  By path,
 * the paths are moved out of the runs.
 */
static int compare_rep_union(struct stats_named **v, struct compare_side *side,
			     struct runset_run *runs, size_t nr)
{
	size_t n0 = side->nregions, k, j, i;

	for (k = 1; k < nr; k++) {
		for (j = 0; j < runs[k].n; j++) {
			const char *name = runs[k].names[j];
			struct stats_named *nv;
			char **nreg;

			if (compare_find_name(side->regions, n0, name) >= 0)
				continue;
			for (i = n0; i < side->nregions && strcmp(side->regions[i], name); i++)
				;
			if (i < side->nregions)
				continue;
			nreg = realloc(side->regions, (side->nregions + 1) * sizeof(*nreg));
			if (!nreg)
				return err_nomem();
			side->regions = nreg;
			nv = realloc(*v, (side->nregions + 1) * sizeof(*nv));
			if (!nv)
				return err_nomem();
			*v = nv;
			nreg[side->nregions] = util_strdup(name);
			if (!nreg[side->nregions])
				return err_nomem();
			nv[side->nregions].name = nreg[side->nregions];
			nv[side->nregions].v.none = 1;
			nv[side->nregions].v.v = 0.0;
			side->nregions++;
			if (side->paths && runs[k].paths) {
				struct compare_path *np =
				    realloc(side->paths, (side->npaths + 1) * sizeof(*np));

				if (!np)
					return err_nomem();
				side->paths = np;
				memset(&np[side->npaths], 0, sizeof(*np));
				np[side->npaths].name = nreg[side->nregions - 1];
				np[side->npaths].path = runs[k].paths[j];
				np[side->npaths].depth = (size_t)runs[k].depths[j];
				np[side->npaths].self = (double)runs[k].selfs[j] / 1e9;
				runs[k].paths[j] = NULL; /* moved */
				side->npaths++;
			}
		}
	}
	if (side->nregions == n0)
		return 0;
	qsort(side->regions, side->nregions, sizeof(*side->regions), util_strptr_cmp);
	if (side->paths)
		qsort(side->paths, side->npaths, sizeof(*side->paths), util_strptr_cmp);
	return 0;
}

/*
 * The idle regions of a candidate of several files: those no file has a
 * call of (side->idle held the first file's).  v: the values of side's
 * regions, the first n0 the first file's (in their own order), the others
 * added by compare_rep_union().
 */
static int compare_rep_idle(struct compare_side *side, const struct stats_named *v, size_t n0,
			    const struct runset_run *runs, size_t nr)
{
	const char **idle = malloc((side->nregions ? side->nregions : 1) * sizeof(*idle));
	size_t i, k, nidle = 0;

	if (!idle)
		return err_nomem();
	for (i = 0; i < side->nregions; i++) {
		const char *name = v[i].name;
		/* the first file's calls: its regions not in its idle */
		int busy = i < n0 && !compare_side_idle(side, name);

		for (k = 1; !busy && k < nr; k++) {
			ptrdiff_t j = compare_find_name(runs[k].names, runs[k].n, name);

			busy = j >= 0 && runs[k].calls[j] > 0;
		}
		if (!busy)
			idle[nidle++] = name;
	}
	qsort(idle, nidle, sizeof(*idle), util_strptr_cmp);
	free(side->idle);
	side->idle = idle;
	side->nidle = nidle;
	return 0;
}

/*
 * A point comparison of a candidate given as several files (sb->reps):
 * the regions are those of any file, and each region's value becomes its
 * median over the files that have one.  *v (as many as side's regions)
 * is the first file's, extended.
 */
static int compare_rep_medians(struct stats_named **v, struct compare_side *side,
			       const struct runarg *sb, struct match *m,
			       const struct compare_opts *o)
{
	struct runset_run *runs = calloc(sb->nreps, sizeof(*runs));
	double *tmp = malloc(sb->nreps * sizeof(*tmp));
	size_t i, k, cnt, n0 = side->nregions;
	int rc = 0;

	if (!runs || !tmp)
		rc = err_nomem();
	for (k = 1; !rc && k < sb->nreps; k++)
		rc = runset_read(&runs[k], sb->st, sb->reps[k], m, o);
	if (!rc)
		rc = compare_rep_union(v, side, runs, sb->nreps);
	if (!rc)
		rc = compare_rep_idle(side, *v, n0, runs, sb->nreps);
	for (i = 0; !rc && i < side->nregions; i++) {
		struct stats_named *x = &(*v)[i];

		cnt = 0;
		if (!x->v.none)
			tmp[cnt++] = x->v.v;
		for (k = 1; k < sb->nreps; k++) {
			double y = runset_value(&runs[k], x->name);

			if (!isnan(y))
				tmp[cnt++] = y;
		}
		if (cnt) {
			x->v.none = 0;
			x->v.v = statdist_median(tmp, cnt);
		}
	}
	for (k = 0; runs && k < sb->nreps; k++)
		runset_run_release(&runs[k]);
	free(runs);
	free(tmp);
	return rc;
}

/* *ran = 1 when run_id of st made a call on the selected ranks in any
 * region, selected or not (compare_nothing()'s b_ran). */
static int compare_ran(int *ran, struct store *st, int64_t run_id, const struct compare_opts *o)
{
	struct store_region_stats *regs = NULL;
	struct match *all = NULL;
	size_t n = 0, i;
	int rc = match_new(&all, NULL, 0, NULL, 0);

	*ran = 0;
	if (!rc)
		rc = metric_read_stats(&regs, &n, st, run_id, o->ranks, o->nranks, 0, all);
	for (i = 0; !rc && i < n; i++)
		*ran |= regs[i].calls > 0;
	store_region_stats_free(regs, n);
	match_free(all);
	return rc;
}

int compare_runs(struct compare_result *out, const char *arg_a, const char *arg_b,
		 const struct compare_opts *opts)
{
	struct runarg sa, sb;
	struct runarg_db db;
	struct stats_named *va = NULL, *vb = NULL;
	struct stats_diff_opts dopts;
	struct match *m = NULL;
	struct runset rs;
	struct compare_stab tb;
	size_t nall, i;
	int rc, b_ran = 0;

	memset(out, 0, sizeof(*out));
	memset(&rs, 0, sizeof(rs));
	memset(&tb, 0, sizeof(tb));
	memset(&sa, 0, sizeof(sa));
	memset(&sb, 0, sizeof(sb));
	runarg_db_init(&db, opts->store, opts->db_path);
	/* base:REF finds as many runs as the statistics read */
	db.ancestry_want = !opts->stat				     ? 1
			   : opts->baseline_window > VERDICT_HISTORY ? opts->baseline_window
								     : VERDICT_HISTORY;
	/* Refuse a bad budget before any file is read (NaN fails too). */
	if (opts->check && !(opts->max_regression >= 0.0)) {
		rc = err_set(ERR_USAGE, "invalid --max-regression %g: must not be negative",
			     opts->max_regression);
		goto out;
	}
	rc = compare_check_keys(opts);
	if (!rc)
		rc = match_new(&m, opts->includes, opts->ninclude, opts->excludes, opts->nexclude);
	if (!rc)
		rc = compare_open_side(&sa, &out->a, &db, arg_a);
	if (!rc && sa.anc) {
		out->baseline_from = util_strdup(sa.anc->note);
		if (!out->baseline_from)
			rc = err_nomem();
	}
	if (!rc)
		rc = compare_open_side(&sb, &out->b, &db, arg_b);
	for (i = 0; !rc && i < opts->ncand_files; i++)
		rc = runarg_add_file(&sb, opts->cand_files[i]);
	if (!rc)
		rc = compare_meta(out, &sa, sb.st, sb.run_id, NULL, opts);
	for (i = 1; !rc && i < sb.nreps; i++)
		rc = compare_meta(out, &sa, sb.st, sb.reps[i], opts->cand_files[i - 1], opts);
	if (!rc)
		rc = compare_values(&va, &out->a, &sa, m, opts);
	if (!rc)
		rc = compare_values(&vb, &out->b, &sb, m, opts);
	if (!rc && sb.nreps > 1 && !opts->stat)
		rc = compare_rep_medians(&vb, &out->b, &sb, m, opts);
	if (!rc && opts->stat)
		rc = compare_stat_sets(out, &rs, &tb, &sa, &sb, arg_a, arg_b, m, opts, &va, &vb);
	if (!rc)
		rc = compare_partial(out, &sa, &sb, &rs, opts);
	if (!rc)
		rc = compare_self_unknown(out, va, vb, &sa, &sb, opts);
	if (rc)
		goto out;
	memset(&dopts, 0, sizeof(dopts));
	dopts.sort = opts->check ? STATS_SORT_PCT : opts->sort;
	dopts.has_threshold = !opts->check && opts->has_threshold;
	dopts.threshold = opts->threshold;
	rc = stats_diff(&out->rows, &out->nrows, va, out->a.nregions, vb, out->b.nregions, &dopts);
	nall = out->nrows;
	if (!rc && !nall && dopts.has_threshold) {
		/* rows hidden by --threshold were compared all the same */
		struct stats_row *all = NULL;

		dopts.has_threshold = 0;
		rc = stats_diff(&all, &nall, va, out->a.nregions, vb, out->b.nregions, &dopts);
		free(all);
	}
	if (rc)
		goto out;
	rc = compare_only(&out->only_a, &out->nonly_a, out->a.regions, out->a.nregions,
			  out->b.regions, out->b.nregions);
	if (!rc)
		rc = compare_only(&out->only_b, &out->nonly_b, out->b.regions, out->b.nregions,
				  out->a.regions, out->a.nregions);
	if (!rc && opts->stat) {
		rc = compare_stat_rows(out, &tb, opts);
	} else if (!rc && opts->check) {
		size_t nviol;

		rc = stats_check(&nviol, out->rows, out->nrows, opts->max_regression,
				 opts->fail_on_new);
		for (i = 0; !rc && opts->fail_on_missing && i < out->nrows; i++)
			compare_missing(out, &out->rows[i]);
		if (!rc)
			rc = stats_verdict(&out->verdict, out->rows, out->nrows);
	}
	if (!rc)
		rc = compare_attribute(out, &sa, &sb, opts);
	/* whether the candidate ran, only where it decides (a region read) */
	if (!rc && opts->fail_on_missing && out->verdict.kind == VERDICT_FAIL && out->b.nregions &&
	    !out->b.ncalls)
		rc = compare_ran(&b_ran, sb.st, sb.run_id, opts);
	if (!rc)
		rc = compare_nothing(out, opts, nall, b_ran);
	if (!rc && opts->locations)
		rc = compare_locations(out, &sa, &sb);
out:
	free(va);
	free(vb);
	compare_stab_release(&tb);
	runset_release(&rs);
	match_free(m);
	runarg_release(&sa);
	runarg_release(&sb);
	runarg_db_release(&db);
	if (rc)
		compare_release(out);
	return rc;
}

static void compare_side_release(struct compare_side *s)
{
	size_t i;

	for (i = 0; s->paths && i < s->npaths; i++)
		free(s->paths[i].path);
	free(s->paths);
	for (i = 0; s->all && i < s->nall; i++) {
		free((char *)s->all[i].name);
		free(s->all[i].path);
	}
	free(s->all);
	free(s->arg);
	store_run_release(&s->run);
	free(s->idle);
	for (i = 0; i < s->nregions; i++)
		free(s->regions[i]);
	free(s->regions);
	memset(s, 0, sizeof(*s));
}

void compare_release(struct compare_result *r)
{
	size_t i;

	if (!r)
		return;
	compare_side_release(&r->a);
	compare_side_release(&r->b);
	verdict_release(&r->verdict);
	for (i = 0; r->stat && i < r->nrows; i++)
		free(r->stat[i].outliers);
	free(r->stat);
	for (i = 0; r->locs && i < r->nrows; i++)
		free(r->locs[i].file);
	free(r->locs);
	free(r->outliers);
	same_release(&r->same);
	free(r->base_runs);
	free(r->cand_runs);
	free(r->files);
	free(r->noise_from);
	free(r->baseline_from);
	free(r->rows);
	free(r->only_a);
	free(r->only_b);
	metadiff_free(r->meta_changes, r->nmeta_changes);
	free(r->nothing);
	free(r->valueless);
	free(r->partial);
	free(r->partial_other);
	for (i = 0; r->attr && i < r->nrows; i++)
		free(r->attr[i].causes);
	free(r->attr);
	memset(r, 0, sizeof(*r));
}
