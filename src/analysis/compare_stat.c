/*
 * compare_stat.c - the statistical check of compare.c (check --stat, a
 * baseline or candidate window, a candidate's repetitions): the run sets
 * of both sides (runset.c), each region's statistics over them
 * (verdict.c: noise pooled over the regions, locations, outliers left
 * out), the sides' values made the sets' locations (a region a set has
 * but its anchor run lacks included), and each row's verdict under the
 * false discovery rate control.  compare_runs() calls it through
 * compare_int.h.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/compare_int.h"
#include "analysis/runset.h"
#include "analysis/verdict.h"
#include "scopedb/compare.h"
#include "scopedb/err.h"
#include "select/match.h"
#include "scopedb/runarg.h"
#include "scopedb/store.h"
#include "scopedb/util.h"

/* The ids of the runs s[0..n) (newest first) into *out (malloc'ed); 0 for
 * a file's run (file: its id is its private store's). */
/* The id a set shows for run id of the candidate sb: its own, or for a
 * file -k, k its place among the candidate's files (runarg.reps, the
 * candidate first; compare_result.files names them). */
static int64_t compare_set_id(const struct runarg *sb, int64_t id)
{
	size_t k;

	if (!sb || !sb->is_file)
		return id;
	for (k = 0; k < sb->nreps && sb->reps[k] != id; k++)
		;
	return -(int64_t)(k < sb->nreps ? k + 1 : 1);
}

static int compare_set_ids(int64_t **out, size_t *nout, const struct runset_run *s, size_t n,
			   const struct runarg *sb)
{
	size_t i;

	*out = malloc((n ? n : 1) * sizeof(**out));
	if (!*out)
		return err_nomem();
	for (i = 0; i < n; i++)
		(*out)[i] = compare_set_id(sb, s[i].id);
	*nout = n;
	return 0;
}

/* compare_result.files: the candidate file arg_b and its repetitions, in
 * one block (the pointers, then the names). */
static int compare_set_files(struct compare_result *out, const char *arg_b,
			     const struct compare_opts *o)
{
	size_t i, n = o->ncand_files + 1, len = n * sizeof(*out->files);
	char *p;

	for (i = 0; i < n; i++)
		len += strlen(i ? o->cand_files[i - 1] : arg_b) + 1;
	out->files = malloc(len);
	if (!out->files)
		return err_nomem();
	p = (char *)(out->files + n);
	for (i = 0; i < n; i++) {
		const char *f = i ? o->cand_files[i - 1] : arg_b;

		out->files[i] = p;
		memcpy(p, f, strlen(f) + 1);
		p += strlen(f) + 1;
	}
	out->nfiles = n;
	return 0;
}

void compare_stab_release(struct compare_stab *tb)
{
	size_t i;

	for (i = 0; tb->rej && i < tb->n; i++)
		i64vec_release(&tb->rej[i]);
	free(tb->rej);
	free(tb->names);
	free(tb->vr);
	memset(tb, 0, sizeof(*tb));
}

/* Add the names v[0..n) to tb->names (room made by the caller). */
static void compare_stab_add(struct compare_stab *tb, char *const *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		tb->names[tb->n++] = v[i];
}

/*
 * The regions of a statistical check into tb->names (sorted, each once,
 * borrowed): both sides' (x, y) and, when the candidate set is
 * repetitions of one commit (reps), every region one of them has: a new
 * region the first file lacks is the candidate's all the same, as
 * compare_set_fill() puts it.  Not a window's (a region its older runs
 * had, the newest not, is gone, not new) nor the baseline window's.
 */
static int compare_stab_names(struct compare_stab *tb, char *const *x, size_t nx, char *const *y,
			      size_t ny, const struct runset *rs, int reps)
{
	size_t i, k, total = nx + ny;

	for (i = 0; reps && i < rs->ncand; i++)
		total += rs->cand[i].n;
	tb->names = malloc((total ? total : 1) * sizeof(*tb->names));
	if (!tb->names)
		return err_nomem();
	compare_stab_add(tb, x, nx);
	compare_stab_add(tb, y, ny);
	for (i = 0; reps && i < rs->ncand; i++)
		compare_stab_add(tb, rs->cand[i].names, rs->cand[i].n);
	qsort(tb->names, tb->n, sizeof(*tb->names), util_strptr_cmp);
	for (i = k = 0; i < tb->n; i++)
		if (!k || strcmp(tb->names[k - 1], tb->names[i]))
			tb->names[k++] = tb->names[i];
	tb->n = k;
	return 0;
}

/* Per run of a set: regions where it had a value, where it was left out,
 * and the sum of its log deviations there. */
struct compare_tally {
	size_t tested, rejected;
	double dev;
};

/* Add what became of the runs s[0..n) in one region (mk) to t, and the
 * ids of those left out to rej (as compare_set_id() shows them; sb: the
 * candidate, for the candidate set, else NULL). */
static int compare_tally_add(struct compare_tally *t, struct i64vec *rej,
			     const struct runset_run *s, const struct runset_mark *mk, size_t n,
			     const struct runarg *sb)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (mk[i].state < 0)
			continue;
		t[i].tested++;
		if (mk[i].state == 0)
			continue;
		t[i].rejected++;
		t[i].dev += mk[i].dev;
		if (i64vec_push(rej, compare_set_id(sb, s[i].id)))
			return err_nomem();
	}
	return 0;
}

/* The runs left out in at least half of the regions where they had a
 * value: the outliers the header names. */
static int compare_outliers(struct compare_result *out, const struct compare_tally *t,
			    const struct runset_run *s, size_t n, const struct runarg *sb)
{
	size_t i, cap = out->noutliers;

	for (i = 0; i < n; i++) {
		struct compare_outlier *o;

		if (!verdict_outlier_run(t[i].rejected, t[i].tested))
			continue;
		o = util_push(&out->outliers, &cap, &out->noutliers, sizeof(*o));
		if (!o)
			return ERR_NOMEM;
		o->run = compare_set_id(sb, s[i].id);
		o->regions = t[i].rejected;
		o->tested = t[i].tested;
		o->factor = exp(t[i].dev / (double)t[i].rejected);
		o->everywhere = t[i].rejected == t[i].tested;
	}
	return 0;
}

/* Each region's locations into tb (the candidate runs cdrop marks, when
 * not NULL, left out of every region), what became of each run counted
 * into bt and ct, the ids of those left out into tb->rej. */
static int compare_stab_locate(struct compare_stab *tb, const struct runset *rs,
			       const struct runarg *sb, const unsigned char *cdrop,
			       struct compare_tally *bt, struct compare_tally *ct,
			       struct runset_mark *bm, struct runset_mark *cm)
{
	size_t i;
	int rc = 0;

	for (i = 0; !rc && i < tb->n; i++) {
		tb->rej[i].len = 0;
		rc = runset_locate(&tb->vr[i], rs, tb->names[i], cdrop, bm, cm);
		if (!rc)
			rc = compare_tally_add(bt, &tb->rej[i], rs->base, bm, rs->nbase, NULL);
		if (!rc)
			rc = compare_tally_add(ct, &tb->rej[i], rs->cand, cm, rs->ncand, sb);
	}
	return rc;
}

/* The candidate runs to leave out of every region (verdict_drop_runs())
 * from their tallies t[0..n) into drop: how many. */
static size_t compare_drops(unsigned char *drop, const struct compare_tally *t, size_t n)
{
	size_t *rej = malloc(2 * (n ? n : 1) * sizeof(*rej)), *tested = rej ? rej + n : NULL, i, k;
	double *dev = malloc((n ? n : 1) * sizeof(*dev));

	if (!rej || !dev) {
		free(rej);
		free(dev);
		return 0; /* (out of memory: the first pass's locations stand) */
	}
	for (i = 0; i < n; i++) {
		rej[i] = t[i].rejected;
		tested[i] = t[i].tested;
		dev[i] = t[i].dev;
	}
	k = verdict_drop_runs(drop, rej, tested, dev, n);
	free(rej);
	free(dev);
	return k;
}

/*
 * The statistics of every region (verdict.h, in its order): the noise of
 * each from its history, pooled over all of them, then both sets'
 * locations with that noise; when the candidate set is repetitions of one
 * commit (reps: no --candidate-window) and some are outlier runs in most
 * regions, the locations again with those left out of every region; then
 * the ratio, interval and p-values; the outlier runs, as the final
 * locations left them out, into out.
 */
static int compare_stab_build(struct compare_stab *tb, struct compare_result *out,
			      const struct runset *rs, const struct runarg *sb, int reps)
{
	size_t nb = rs->nbase + 1, nc = rs->ncand + 1, i;
	struct runset_mark *bm = calloc(nb + nc, sizeof(*bm)), *cm = bm ? bm + nb : NULL;
	/* the first pass's tallies, then the final's */
	struct compare_tally *bt = calloc(2 * (nb + nc), sizeof(*bt)), *ct = bt ? bt + nb : NULL;
	struct compare_tally *bt2 = ct ? ct + nc : NULL, *ct2 = bt2 ? bt2 + nb : NULL;
	unsigned char *cdrop = calloc(nc, 1);
	struct verdict_prior prior;
	int rc = compare_stab_names(tb, out->a.regions, out->a.nregions, out->b.regions,
				    out->b.nregions, rs, reps);

	if (!rc && (!bm || !bt || !cdrop))
		rc = err_nomem();
	if (!rc) {
		tb->vr = calloc(tb->n + 1, sizeof(*tb->vr));
		tb->rej = calloc(tb->n + 1, sizeof(*tb->rej));
		if (!tb->vr || !tb->rej)
			rc = err_nomem();
	}
	for (i = 0; !rc && i < tb->n; i++) {
		i64vec_init(&tb->rej[i]);
		rc = runset_noise(&tb->vr[i].noise, rs, tb->names[i]);
	}
	if (!rc)
		rc = verdict_pool(tb->vr, tb->n, &prior);
	if (!rc)
		rc = compare_stab_locate(tb, rs, sb, NULL, bt, ct, bm, cm);
	if (!rc && reps && compare_drops(cdrop, ct, rs->ncand))
		rc = compare_stab_locate(tb, rs, sb, cdrop, bt2, ct2, bm, cm);
	else if (!rc) {
		memcpy(bt2, bt, nb * sizeof(*bt));
		memcpy(ct2, ct, nc * sizeof(*ct));
	}
	for (i = 0; !rc && i < tb->n; i++)
		verdict_region(&tb->vr[i]);
	/* named as the final locations left them out */
	if (!rc) {
		out->pool_regions = prior.nregions;
		out->pool_df = prior.df;
		rc = compare_outliers(out, ct2, rs->cand, rs->ncand, sb);
	}
	if (!rc)
		rc = compare_outliers(out, bt2, rs->base, rs->nbase, NULL);
	free(bm);
	free(bt);
	free(cdrop);
	return rc;
}

/* The statistics of region name in tb, NULL when it has none. */
static const struct verdict_region *compare_stab_get(const struct compare_stab *tb,
						     const char *name, size_t *at)
{
	const char **p = bsearch(&name, tb->names, tb->n, sizeof(*tb->names), util_strptr_cmp);

	if (!p)
		return NULL;
	*at = (size_t)(p - tb->names);
	return &tb->vr[*at];
}

/*
 * A statistical check: a region its set has but the set's anchor run does
 * not (a baseline window whose newest run lacks it) is on that side all
 * the same, at the set's location: it is neither new nor missing, and its
 * delta agrees with its ratio.  Added to side's regions (owned copies of
 * the names, kept sorted) and to *v (as many as side->nregions) without
 * a value: compare_set_values(), after, gives it the set's location.
 */
static int compare_set_fill(struct compare_side *side, struct stats_named **v,
			    const struct compare_stab *tb, int cand)
{
	struct stats_named *nv;
	char **nr, *name;
	size_t i, add = 0, n = side->nregions;

	for (i = 0; i < tb->n; i++)
		add += (cand ? tb->vr[i].ncand : tb->vr[i].nbase) > 0 &&
		       !bsearch(&tb->names[i], side->regions, n, sizeof(*side->regions),
				util_strptr_cmp);
	if (!add)
		return 0;
	nr = realloc(side->regions, (n + add) * sizeof(*nr));
	if (!nr)
		return err_nomem();
	side->regions = nr;
	nv = realloc(*v, (n + add) * sizeof(*nv));
	if (!nv)
		return err_nomem();
	*v = nv;
	for (i = 0; i < tb->n; i++) {
		const struct verdict_region *x = &tb->vr[i];

		if ((cand ? x->ncand : x->nbase) == 0 ||
		    bsearch(&tb->names[i], side->regions, n, sizeof(*side->regions),
			    util_strptr_cmp))
			continue;
		name = util_strdup(tb->names[i]);
		if (!name)
			return err_nomem();
		nr[side->nregions] = name;
		nv[side->nregions].name = name;
		nv[side->nregions].v.none = 1; /* its value: compare_set_values() */
		side->nregions++;
	}
	qsort(side->regions, side->nregions, sizeof(*side->regions), util_strptr_cmp);
	return 0;
}

/*
 * A statistical check, before the rows are built: each side's value of a
 * region becomes the location of its set (the anchor's own value when no
 * run of the set has a positive one).
 */
static void compare_set_values(struct stats_named *v, size_t n, const struct compare_stab *tb,
			       int cand)
{
	const struct verdict_region *x;
	size_t i, at;

	for (i = 0; i < n; i++) {
		x = compare_stab_get(tb, v[i].name, &at);
		if (x && (cand ? x->ncand : x->nbase)) {
			v[i].v.none = 0;
			v[i].v.v = cand ? x->vcand : x->vbase;
		}
	}
}

/*
 * The verdict of every row of a statistical check (verdict.h): the rows
 * are the family of the false discovery rate control.  A row's violation
 * is its regression (or --fail-on-new's missing baseline); the gate is
 * FAIL on any violation, else INCONCLUSIVE when some row is suspected
 * (inconclusive), else PASS: "no evidence" does not hold the gate.
 */
int compare_stat_rows(struct compare_result *out, const struct compare_stab *tb,
		      const struct compare_opts *o)
{
	struct verdict_region *vr = calloc(out->nrows ? out->nrows : 1, sizeof(*vr));
	size_t *from = calloc(out->nrows ? out->nrows : 1, sizeof(*from));
	size_t i;
	int rc = 0, undecided = 0;

	out->stat = calloc(out->nrows ? out->nrows : 1, sizeof(*out->stat));
	if (!vr || !from || !out->stat) {
		rc = err_nomem();
		goto out;
	}
	for (i = 0; i < out->nrows; i++) {
		const struct verdict_region *x = compare_stab_get(tb, out->rows[i].name, &from[i]);

		if (x)
			vr[i] = *x;
		else
			verdict_region(&vr[i]); /* no set: no verdict */
		if (!x)
			from[i] = (size_t)-1;
	}
	rc = verdict_decide(vr, out->nrows, o->max_regression);
	for (i = 0; i < out->nrows && !rc; i++) {
		struct compare_stat *c = &out->stat[i];
		struct stats_row *row = &out->rows[i];
		double s2 = vr[i].noise.sigma * vr[i].noise.sigma;

		c->verdict = vr[i].call;
		c->ratio = vr[i].ratio;
		c->lo = vr[i].lo;
		c->hi = vr[i].hi;
		c->p = vr[i].p;
		c->padj = vr[i].padj;
		c->runs_needed = vr[i].runs_needed;
		/* the CV of a lognormal with that log-scale sigma */
		c->cv = sqrt(expm1(s2));
		c->cv_own = vr[i].noise.df > 0.0 ? sqrt(expm1(vr[i].noise.s2)) : NAN;
		c->borrowed = vr[i].noise.borrowed;
		c->nhist = vr[i].noise.nhist;
		c->nbase = vr[i].nbase;
		c->ncand = vr[i].ncand;
		if (from[i] != (size_t)-1 && tb->rej[from[i]].len) {
			const struct i64vec *rj = &tb->rej[from[i]];

			c->outliers = malloc(rj->len * sizeof(*c->outliers));
			if (!c->outliers) {
				rc = err_nomem();
				break;
			}
			memcpy(c->outliers, rj->v, rj->len * sizeof(*c->outliers));
			c->noutliers = rj->len;
		}
		row->violation = o->check && (vr[i].call == VERDICT_CALL_REGRESSED ||
					      (o->fail_on_new && row->a.none));
		undecided |= vr[i].call == VERDICT_CALL_INCONCLUSIVE;
	}
	for (i = 0; !rc && o->fail_on_missing && i < out->nrows; i++)
		compare_missing(out, &out->rows[i]);
	if (!rc && o->check)
		rc = stats_verdict(&out->verdict, out->rows, out->nrows);
	if (!rc && out->verdict.kind == VERDICT_PASS && undecided)
		out->verdict.kind = VERDICT_INCONCLUSIVE;
out:
	free(vr);
	free(from);
	return rc;
}

/* Open the run sets of a statistical check, compute every region's
 * statistics into tb and put the sets' locations into the values of both
 * sides. */
int compare_stat_sets(struct compare_result *out, struct runset *rs, struct compare_stab *tb,
		      const struct runarg *sa, const struct runarg *sb, const char *arg_a,
		      const char *arg_b, struct match *m, const struct compare_opts *o,
		      struct stats_named **va, struct stats_named **vb)
{
	int rc = runset_open(rs, sa, sb, arg_a, arg_b, m, o, &out->same);

	if (!rc)
		rc = compare_set_ids(&out->base_runs, &out->nbase_runs, rs->base, rs->nbase, NULL);
	if (!rc)
		rc = compare_set_ids(&out->cand_runs, &out->ncand_runs, rs->cand, rs->ncand, sb);
	if (!rc && sb->is_file)
		rc = compare_set_files(out, arg_b, o);
	out->nbase_found = rs->nbase_found;
	out->ncand_found = rs->ncand_found;
	if (!rc) {
		out->noise_from = util_strdup(rs->noise_from);
		if (!out->noise_from)
			rc = err_nomem();
	}
	if (!rc && rs->ancestry_note) {
		/* base:REF walked further: that walk says where it ended */
		free(out->baseline_from);
		out->baseline_from = util_strdup(rs->ancestry_note);
		if (!out->baseline_from)
			rc = err_nomem();
	}
	if (!rc) {
		out->same.left_out = rs->left_out;
		out->same.implied_left = rs->implied_left;
		rc = compare_stab_build(tb, out, rs, sb, !o->candidate_window);
	}
	if (!rc)
		rc = compare_set_fill(&out->a, va, tb, 0);
	if (!rc)
		rc = compare_set_fill(&out->b, vb, tb, 1);
	if (!rc) {
		compare_set_values(*va, out->a.nregions, tb, 0);
		compare_set_values(*vb, out->b.nregions, tb, 1);
	}
	return rc;
}
