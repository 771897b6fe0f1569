/*
 * runset.c - the run sets of a statistical check and each run's metric
 * values (see runset.h).
 *
 * A set is listed with store_find_runs() (newest first) under a filter
 * naming the anchor run's branch, tag or commit, and cut at the anchor:
 * the N runs from the anchor backwards; with --same the filter also
 * names the baseline's value of each KEY, and a second listing without
 * them counts the runs left out.  Each run's regions then go through
 * metric_stored_value(), the same code as the two runs of a point check.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/ancestry.h"
#include "analysis/metric.h"
#include "analysis/runset.h"
#include "scopedb/err.h"
#include "scopedb/filter.h"
#include "scopedb/select.h"
#include "scopedb/store.h"
#include "scopedb/util.h"
#include "select/match.h"
#include "util/statdist.h"

int runset_read(struct runset_run *r, struct store *st, int64_t id, struct match *m,
		const struct compare_opts *o)
{
	struct store_region_stats *regs = NULL;
	struct i64vec d, ends;
	size_t n = 0, i;
	int rc;

	i64vec_init(&d);
	i64vec_init(&ends);
	r->id = id;
	rc = metric_read_stats(&regs, &n, st, id, o->ranks, o->nranks, o->by_path, m);
	if (rc)
		goto out;
	r->names = calloc(n ? n : 1, sizeof(*r->names));
	r->vals = calloc(n ? n : 1, sizeof(*r->vals));
	r->res = calloc(n ? n : 1, sizeof(*r->res));
	r->calls = calloc(n ? n : 1, sizeof(*r->calls));
	if (o->by_path) {
		r->paths = calloc(n ? n : 1, sizeof(*r->paths));
		r->depths = calloc(n ? n : 1, sizeof(*r->depths));
		r->selfs = calloc(n ? n : 1, sizeof(*r->selfs));
	}
	if (!r->names || !r->vals || !r->res || !r->calls ||
	    (o->by_path && (!r->paths || !r->depths || !r->selfs))) {
		rc = err_nomem();
		goto out;
	}
	for (i = 0; i < n; i++) {
		rc = metric_stored_value(&r->vals[i], st, id, &regs[i], o->ranks, o->nranks,
					 o->metric, &d, &ends);
		if (rc)
			goto out;
		r->res[i] = metric_resolution(o->metric, &regs[i]);
		r->ncalls += regs[i].calls;
		r->calls[i] = regs[i].calls;
		r->names[i] = regs[i].name;
		regs[i].name = NULL; /* moved */
		if (r->paths) {
			r->paths[i] = regs[i].path;
			r->depths[i] = regs[i].depth;
			r->selfs[i] = regs[i].self;
			regs[i].path = NULL; /* moved */
		}
		r->n++;
	}
out:
	store_region_stats_free(regs, n);
	i64vec_release(&d);
	i64vec_release(&ends);
	return rc;
}

/* The time a run sorts by (recorded, else ingested), or NULL. */
static const char *runset_sort_time(const struct store_run *r)
{
	return r->recorded_at && *r->recorded_at ? r->recorded_at : r->ingested_at;
}

/* Bound f to the runs sorted between oldest's time (NULL: no lower bound)
 * and newest's, both included, where f has no bound of its own and the
 * times fit. */
static void runset_span(struct filter *f, const struct store_run *newest,
			const struct store_run *oldest)
{
	const char *hi = runset_sort_time(newest), *lo = oldest ? runset_sort_time(oldest) : NULL;

	if (!f->until[0] && hi && strlen(hi) < sizeof(f->until))
		strcpy(f->until, hi);
	if (!f->since[0] && lo && strlen(lo) < sizeof(f->since))
		strcpy(f->since, lo);
}

/*
 * *hit = 1 when a run of ids[0..n) (of st, left out of fa's runs by the
 * conditions of s) fails an implied condition of s: one listing of fa's
 * runs with those alone, which lacks it.  So that the conditions named to
 * people are those that left runs out.
 */
static int runset_implied_hit(int *hit, struct store *st, const struct filter *fa,
			      const struct same *s, const int64_t *ids, size_t n)
{
	struct same imp = same_part(s, 1);
	struct filter_meta *conds = NULL;
	struct store_run *runs = NULL;
	struct filter fi;
	size_t nruns = 0, i, k;
	int rc;

	rc = same_filter(&fi, &conds, fa, &imp);
	if (!rc)
		rc = store_find_runs(st, &runs, &nruns, &fi);
	for (i = 0; !rc && !*hit && i < n; i++) {
		for (k = 0; k < nruns && runs[k].id != ids[i]; k++)
			;
		*hit = k == nruns;
	}
	store_runs_free(runs, nruns);
	free(conds);
	return rc;
}

/*
 * The set of up to limit runs ending at run end (newest first) that f
 * selects, each read into (*out)[i], none from run stop (0: none) on: the
 * set ends before it, and is the anchor alone when stop is the anchor or
 * newer.  The anchor is always the first, even when f would not list it.
 * With rs->same's conditions only the runs that have them, and the ids of
 * those they left out between the anchor and the oldest run kept (every
 * older one too when fewer than limit are kept: the window would have
 * taken them; down to stop when it ended the set) are appended to left.
 */
static int runset_select(struct runset_run **out, size_t *nout, struct runset *rs, struct store *st,
			 int64_t end, int64_t stop, const struct filter *f, size_t limit,
			 struct match *m, const struct compare_opts *o, struct i64vec *left)
{
	struct store_run *runs = NULL, *all = NULL;
	struct filter_meta *conds = NULL;
	struct filter fs, fa;
	int64_t *kept = NULL;
	size_t n = 0, nall = 0, nupto, i, at, sat, nleft, before = left->len;
	int rc, alone, cut;

	*out = NULL;
	*nout = 0;
	rc = same_filter(&fs, &conds, f, rs->same);
	if (!rc)
		rc = store_find_runs(st, &runs, &n, &fs);
	if (rc)
		goto out;
	for (at = 0; at < n && runs[at].id != end; at++)
		;
	for (sat = 0; stop && sat < n && runs[sat].id != stop; sat++)
		;
	if (!stop)
		sat = n;
	*out = calloc(limit, sizeof(**out));
	kept = calloc(limit, sizeof(*kept));
	if (!*out || !kept) {
		rc = err_nomem();
		goto out;
	}
	if (at == n) {
		rc = runset_read(&(*out)[0], st, end, m, o);
		*nout = 1;
		goto out;
	}
	alone = sat <= at; /* (sat == n when there is no stop, and at < n) */
	for (i = at; i < n && i - at < limit && !rc && (i == at || (!alone && i != sat)); i++) {
		kept[i - at] = runs[i].id;
		rc = runset_read(&(*out)[i - at], st, runs[i].id, m, o);
		(*nout)++;
	}
	cut = !alone && sat < n && i == sat && *nout < limit;
	/* what the conditions left out lies between the anchor and the
	 * oldest run kept (or before it, when fewer were kept; down to stop
	 * when it cut the set; none when the set is the anchor alone by
	 * rule): listed within those times only, not the whole branch again */
	fa = *f;
	runset_span(&fa, &runs[at],
		    alone	    ? &runs[at]
		    : cut	    ? &runs[sat]
		    : *nout < limit ? NULL
				    : &runs[i - 1]);
	if (!rc && rs->same->ncond)
		rc = store_find_runs(st, &all, &nall, &fa);
	for (nupto = 0; cut && nupto < nall && all[nupto].id != stop; nupto++)
		;
	if (!cut)
		nupto = nall;
	if (!rc && rs->same->ncond)
		rc = same_left_out(&nleft, left, all, nupto, kept, *nout, end,
				   cut || (!alone && *nout < limit));
	if (!rc && rs->same->nimplied && !rs->implied_left && left->len > before)
		rc = runset_implied_hit(&rs->implied_left, st, &fa, rs->same, left->v + before,
					left->len - before);
out:
	free(conds);
	free(kept);
	store_runs_free(runs, n);
	store_runs_free(all, nall);
	return rc;
}

/* The first n (at most limit) runs of ids (base:REF's ancestry, newest
 * first), each read into (*out)[i]. */
static int runset_ids(struct runset_run **out, size_t *nout, struct store *st, const int64_t *ids,
		      size_t n, size_t limit, struct match *m, const struct compare_opts *o)
{
	size_t i;
	int rc = 0;

	*nout = 0;
	if (n > limit)
		n = limit;
	*out = calloc(n ? n : 1, sizeof(**out));
	if (!*out)
		return err_nomem();
	for (i = 0; i < n && !rc; i++) {
		rc = runset_read(&(*out)[i], st, ids[i], m, o);
		(*nout)++;
	}
	return rc;
}

/* *keep = 1 when run id of st has every metadata condition of s. */
static int runset_same_keeps(int *keep, struct store *st, int64_t id, const struct same *s)
{
	struct store_meta meta;
	size_t i, k;
	int rc = store_get_meta(st, &meta, id);

	*keep = 1;
	for (i = 0; !rc && *keep && i < s->ncond; i++) {
		for (k = 0; k < meta.n && strcmp(meta.keys[k], s->cond[i].key); k++)
			;
		*keep =
		    k < meta.n ? !strcmp(meta.values[k], s->cond[i].value) : s->cond[i].or_absent;
	}
	store_meta_release(&meta);
	return rc;
}

/*
 * One pass of runset_ancestry() over anc's runs: the kept ones into ids
 * (*n of them), those left out before most are kept appended to left.
 */
static int runset_ancestry_pass(struct runset *rs, struct store *st, const struct ancestry *anc,
				size_t most, int64_t *ids, size_t *n, struct i64vec *left)
{
	size_t i;
	int rc = 0, keep = 1, counted;

	*n = 0;
	for (i = 0; !rc && i < anc->nruns; i++) {
		if (i && rs->same->ncond)
			rc = runset_same_keeps(&keep, st, anc->runs[i], rs->same);
		/* a run left out before the larger set is full is counted */
		counted = !rc && !keep && *n < most;
		if (!rc && keep)
			ids[(*n)++] = anc->runs[i];
		else if (counted)
			rc = i64vec_push(left, anc->runs[i]) ? err_nomem() : 0;
		/* left out for an implied condition? (named then) */
		if (!rc && counted && rs->same->nimplied && !rs->implied_left) {
			struct same imp = same_part(rs->same, 1);

			rc = runset_same_keeps(&keep, st, anc->runs[i], &imp);
			rs->implied_left = !keep;
		}
	}
	return rc;
}

/*
 * base:REF's sets: the baseline window (nb runs) and the noise history
 * along the stored runs of the merge base's first-parent ancestry
 * (sa->anc, newest first), with rs->same's conditions: the anchor always,
 * the runs that lack them appended to left.  The walk took as many stored
 * runs as the larger set needs; when the conditions left some out, it is
 * walked once more, RUNSET_ANCESTRY_MORE times as far, as a branch's
 * window takes that many kept runs (and when the sets are still short,
 * that walk's note, which says when a shallow clone cut it, is the one to
 * show: rs->ancestry_note).
 */
#define RUNSET_ANCESTRY_MORE 8
static int runset_ancestry(struct runset *rs, const struct runarg *sa, size_t nb, struct match *m,
			   const struct compare_opts *o, struct i64vec *left)
{
	const struct ancestry *anc = sa->anc;
	struct ancestry more;
	size_t n = 0, most = nb > VERDICT_HISTORY ? nb : VERDICT_HISTORY, before = left->len;
	int64_t *ids = malloc((anc->nruns ? anc->nruns : 1) * sizeof(*ids));
	int rc = ids ? 0 : err_nomem();

	memset(&more, 0, sizeof(more));
	if (!rc)
		rc = runset_ancestry_pass(rs, sa->st, anc, most, ids, &n, left);
	/* short, and the walk stopped at the runs it was asked for: further */
	if (!rc && n < most && anc->nruns >= most) {
		left->len = before;
		rs->implied_left = 0;
		rc = ancestry_runs(&more, sa->st, sa->anc->ref, most * RUNSET_ANCESTRY_MORE);
		if (!rc) {
			int64_t *v = realloc(ids, (more.nruns ? more.nruns : 1) * sizeof(*ids));

			rc = v ? 0 : err_nomem();
			ids = v ? v : ids;
		}
		if (!rc)
			rc = runset_ancestry_pass(rs, sa->st, &more, most, ids, &n, left);
		/* still short: its note says why when a shallow clone cut it */
		if (!rc && n < most) {
			rs->ancestry_note = more.note;
			more.note = NULL;
		}
	}
	if (!rc)
		rc = runset_ids(&rs->base, &rs->nbase, sa->st, ids, n, nb, m, o);
	if (!rc)
		rc = runset_ids(&rs->hist, &rs->nhist, sa->st, ids, n, VERDICT_HISTORY, m, o);
	ancestry_release(&more);
	free(ids);
	return rc;
}

/* The tag of arg when it is a tag selector, else NULL (malloc'ed). */
static int runset_tag(char **tag, const char *arg, int is_file)
{
	struct select_spec sel;

	*tag = NULL;
	if (is_file || select_parse(&sel, arg)) {
		err_clear();
		return 0;
	}
	if (sel.kind == SELECT_TAG) {
		*tag = util_strdup(sel.name);
		if (!*tag) {
			select_release(&sel);
			return err_nomem();
		}
	}
	select_release(&sel);
	return 0;
}

/* The window filter of an anchor: its tag when named by tag, else its
 * branch (all runs when it has none). */
static void runset_window_filter(struct filter *f, const char **tagv, const char *tag,
				 const struct store_run *run)
{
	memset(f, 0, sizeof(*f));
	if (tag) {
		tagv[0] = tag;
		f->tags = tagv;
		f->ntags = 1;
	} else {
		f->branch = run->branch;
	}
}

static void runset_runs_free(struct runset_run *r, size_t n);

/* A run in both sets counts on the baseline side only: drop it from the
 * candidate set, except the candidate itself (its first run), which is
 * dropped from a window that ends at a later run instead: it is what is
 * compared, not part of what it is compared with.  (A window's anchor is
 * the candidate only in a check of a run against itself alone:
 * runset_open() refuses it with other runs.) */
static void runset_exclude_base(struct runset *rs)
{
	size_t i, j, k = 1;

	for (i = j = 0; rs->ncand && i < rs->nbase; i++) {
		if (i && rs->base[i].id == rs->cand[0].id) {
			/* the window holds one run fewer than it found: said
			 * as a short window is ("of the 5 asked for") */
			runset_run_release(&rs->base[i]);
			rs->nbase_found--;
			continue;
		}
		rs->base[j++] = rs->base[i];
	}
	if (rs->ncand)
		rs->nbase = j;
	for (i = 1; i < rs->ncand; i++) {
		for (j = 0; j < rs->nbase && rs->base[j].id != rs->cand[i].id; j++)
			;
		if (j < rs->nbase) {
			runset_run_release(&rs->cand[i]);
			continue;
		}
		rs->cand[k++] = rs->cand[i];
	}
	if (rs->ncand)
		rs->ncand = k;
}

/*
 * The error for a baseline window that ends at the candidate (run id, both
 * args name it), with an earlier baseline to give: arg_a one further back
 * where it names a list of runs (latest, tag:, branch:, label: "~N+1";
 * base:REF "REF~1"), else the window's next run, next (an id, a commit or
 * a pin names one run: its ~1 is the run before that commit's first).
 */
static int runset_refuse_same(const char *arg_a, const char *arg_b, int64_t id, int64_t next)
{
	struct select_spec sel;
	struct buf b = BUF_INIT;
	int rc = select_parse(&sel, arg_a);

	if (rc) {
		err_clear();
		rc = buf_printf(&b, "run %" PRId64, next);
	} else if (sel.kind == SELECT_LATEST) {
		rc = buf_printf(&b, "'latest~%" PRId64 "'", sel.back + 1);
	} else if (sel.kind == SELECT_TAG || sel.kind == SELECT_BRANCH ||
		   sel.kind == SELECT_LABEL) {
		/* "tag:nightly~2" -> "tag:nightly~3" */
		rc = buf_printf(&b, "'%s:%s~%" PRId64 "'",
				sel.kind == SELECT_TAG	    ? "tag"
				: sel.kind == SELECT_BRANCH ? "branch"
							    : "label",
				sel.name, sel.back + 1);
	} else if (sel.kind == SELECT_BASE) {
		rc = buf_printf(&b, "'%s~1'", arg_a);
	} else {
		rc = buf_printf(&b, "run %" PRId64, next);
	}
	select_release(&sel);
	rc = rc ? err_nomem()
		: err_set(ERR_USAGE,
			  "the baseline '%s' and the candidate '%s' are the same run %" PRId64
			  ": compare it with an earlier run (such as %s)",
			  arg_a, arg_b, id, b.data);
	buf_release(&b);
	return rc;
}

/* Baseline ra and candidate rb are runs of one commit in one store. */
static int runset_same_commit(const struct store_run *ra, const struct store_run *rb,
			      const struct runarg *sa, const struct runarg *sb)
{
	return sa->st == sb->st && ra->commit && rb->commit && !strcmp(ra->commit, rb->commit);
}

int runset_open(struct runset *rs, const struct runarg *sa, const struct runarg *sb,
		const char *arg_a, const char *arg_b, struct match *m, const struct compare_opts *o,
		const struct same *same)
{
	struct store_run ra, rb;
	struct filter f;
	struct i64vec left;
	const char *tagv[1];
	char *tag_a = NULL, *tag_b = NULL;
	struct buf t = BUF_INIT;
	size_t nb = o->baseline_window ? o->baseline_window : 1;
	int rc;

	memset(rs, 0, sizeof(*rs));
	memset(&ra, 0, sizeof(ra));
	memset(&rb, 0, sizeof(rb));
	i64vec_init(&left);
	if (sa->is_file) {
		rc = err_set(
		    ERR_USAGE,
		    "a statistical comparison needs a stored baseline, not the file '%s': the "
		    "baseline's history gives the noise (ingest it first)",
		    arg_a);
		goto out;
	}
	if (sb->is_file && o->candidate_window > 1) {
		/* (several files are its repetitions: runarg_add_file()) */
		rc = err_set(ERR_USAGE,
			     "--candidate-window needs a stored candidate, not the file '%s' "
			     "(ingest it first)",
			     arg_b);
		goto out;
	}
	rc = store_get_run(sa->st, &ra, sa->run_id);
	if (!rc)
		rc = store_get_run(sb->st, &rb, sb->run_id);
	if (!rc)
		rc = runset_tag(&tag_a, arg_a, 0);
	if (!rc)
		rc = runset_tag(&tag_b, arg_b, sb->is_file);
	if (rc)
		goto out;
	rs->same = same;
	if (sa->anc) {
		/* base:REF: the baseline window and the history both walk the
		 * merge base's first-parent ancestry */
		rc = runset_ancestry(rs, sa, nb, m, o, &left);
	} else {
		runset_window_filter(&f, tagv, tag_a, &ra);
		rc =
		    runset_select(&rs->base, &rs->nbase, rs, sa->st, ra.id, 0, &f, nb, m, o, &left);
		if (!rc) {
			memset(&f, 0, sizeof(f));
			f.branch = ra.branch;
			rc = runset_select(&rs->hist, &rs->nhist, rs, sa->st, ra.id, 0, &f,
					   VERDICT_HISTORY, m, o, &left);
		}
	}
	/* the same run on both sides of a window: counted twice, and its
	 * repetitions reach into the window; a first night's check of a run
	 * against itself alone (no evidence) stands */
	if (!rc && sa->st == sb->st && ra.id == rb.id && rs->nbase > 1)
		rc = runset_refuse_same(arg_a, arg_b, ra.id, rs->base[1].id);
	if (rc)
		goto out;
	if (sb->nreps) {
		/* the candidate's files, each a repetition */
		rc =
		    runset_ids(&rs->cand, &rs->ncand, sb->st, sb->reps, sb->nreps, sb->nreps, m, o);
	} else if (o->candidate_window) {
		/* the window stops at the baseline's run: the runs before it
		 * are not the candidate's repetitions (check 4 5
		 * --candidate-window 3 took run 3, a night before the
		 * baseline) */
		runset_window_filter(&f, tagv, tag_b, &rb);
		rc = runset_select(&rs->cand, &rs->ncand, rs, sb->st, rb.id,
				   sa->st == sb->st && ra.id != rb.id ? ra.id : 0, &f,
				   o->candidate_window, m, o, &left);
	} else {
		/* the candidate's repetitions: the runs of its commit, stored
		 * after the baseline when that is of the same commit (nightly
		 * runs of unchanged code: the nights before are the baseline's
		 * level, not repetitions of tonight's run) */
		memset(&f, 0, sizeof(f));
		f.commit = rb.commit;
		rc = runset_select(&rs->cand, &rs->ncand, rs, sb->st, rb.id,
				   runset_same_commit(&ra, &rb, sa, sb) ? ra.id : 0, &f,
				   rb.commit ? VERDICT_HISTORY : 1, m, o, &left);
	}
	/* a candidate window ending at the baseline's run reaches back past
	 * it: the nights before the baseline counted as the candidate's */
	if (!rc && sa->st == sb->st && ra.id == rb.id && !sb->nreps && o->candidate_window &&
	    rs->ncand > 1)
		rc = runset_refuse_same(arg_a, arg_b, ra.id, rs->cand[1].id);
	if (rc)
		goto out;
	rs->nbase_found = rs->nbase;
	rs->ncand_found = rs->ncand;
	if (sa->st == sb->st) /* (ids of two stores say nothing) */
		runset_exclude_base(rs);
	rs->left_out = i64vec_unique(&left);
	rc = buf_printf(&t, "%zu run%s", rs->nhist, rs->nhist == 1 ? "" : "s");
	if (sa->anc)
		rc |= buf_printf(&t, " on the first-parent ancestry of %.12s", sa->anc->merge_base);
	else if (ra.branch)
		rc |= buf_printf(&t, " of branch '%s'", ra.branch);
	rc |= buf_printf(&t, " ending at run %" PRId64 " (at most %d)", ra.id, VERDICT_HISTORY);
	rs->noise_from = buf_finish(&t, rc);
	if (!rs->noise_from)
		rc = err_nomem();
out:
	free(tag_a);
	free(tag_b);
	i64vec_release(&left);
	store_run_release(&ra);
	store_run_release(&rb);
	if (rc)
		runset_release(rs);
	return rc;
}

static int runset_cmp_name(const void *key, const void *elt)
{
	return strcmp(key, *(char *const *)elt);
}

/* The index of region name in run r, -1 when it has none. */
static long runset_find(const struct runset_run *r, const char *name)
{
	char **at = bsearch(name, r->names, r->n, sizeof(*r->names), runset_cmp_name);

	return at ? (long)(at - r->names) : -1;
}

/* The value of region name in run r, NaN when it has none (or it is not
 * positive: a log needs it). */
double runset_value(const struct runset_run *r, const char *name)
{
	long i = runset_find(r, name);
	double v = i >= 0 && !r->vals[i].none ? r->vals[i].v : NAN;

	return v > 0.0 && isfinite(v) ? v : NAN;
}

int runset_noise(struct verdict_noise *out, const struct runset *rs, const char *name)
{
	size_t cap = rs->nhist + 1, i, k = 0;
	double *tmp = malloc(3 * cap * sizeof(*tmp)), *logv, *rel;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!tmp)
		return err_nomem();
	logv = tmp + cap;
	rel = logv + cap;
	/* the history oldest first, positive values only; the resolution
	 * relative to each value, its median for the region */
	for (i = rs->nhist; i-- > 0;) {
		double v = runset_value(&rs->hist[i], name);

		if (isnan(v))
			continue;
		rel[k] = rs->hist[i].res[runset_find(&rs->hist[i], name)] / v;
		logv[k++] = log(v);
	}
	rc = verdict_noise_estimate(out, logv, k, k ? statdist_median(rel, k) : 0.0, tmp);
	free(tmp);
	return rc;
}

/* The location of region name over the runs s[0..n) with the noise sigma
 * into *y (NaN when no run has a value) and as a value into *val (exp(*y),
 * or the value itself when every kept run has the same: exp(log(x)) may
 * be x plus an ulp), the counts into *kept and *out, and what became of
 * each run into mk (if not NULL).  The runs drop[i] marks (drop may be
 * NULL) are left out as outlier runs. */
static int runset_set(double *y, double *val, size_t *kept, size_t *nout,
		      const struct runset_run *s, size_t n, const char *name, double sigma,
		      const unsigned char *drop, struct runset_mark *mk)
{
	double *tmp = calloc(4 * (n ? n : 1), sizeof(*tmp)), *v, same;
	unsigned char *rej = calloc(2, n ? n : 1), *dv;
	size_t i, k = 0;

	if (!tmp || !rej) {
		free(tmp);
		free(rej);
		return err_nomem();
	}
	v = tmp + 3 * n;
	dv = rej + n;
	for (i = 0; i < n; i++) {
		double x = runset_value(&s[i], name);

		if (!isnan(x)) {
			dv[k] = drop ? drop[i] : 0;
			v[k++] = log(x);
		}
	}
	*y = verdict_location(v, k, sigma, dv, rej, kept, tmp);
	*nout = k - *kept;
	*val = exp(*y);
	for (i = k = 0, same = NAN; i < n; i++) {
		double x = runset_value(&s[i], name);

		if (isnan(x) || rej[k++])
			continue;
		if (isnan(same))
			same = x;
		else if (x != same)
			break;
	}
	if (i == n && !isnan(same))
		*val = same;
	for (i = k = 0; mk && i < n; i++) {
		mk[i].state = -1;
		mk[i].dev = 0.0;
		if (isnan(runset_value(&s[i], name)))
			continue;
		mk[i].state = (signed char)rej[k];
		mk[i].dev = v[k++] - *y;
	}
	free(tmp);
	free(rej);
	return 0;
}

int runset_locate(struct verdict_region *out, const struct runset *rs, const char *name,
		  const unsigned char *cdrop, struct runset_mark *bm, struct runset_mark *cm)
{
	int rc = runset_set(&out->ybase, &out->vbase, &out->nbase, &out->obase, rs->base, rs->nbase,
			    name, out->noise.sigma, NULL, bm);

	if (!rc)
		rc = runset_set(&out->ycand, &out->vcand, &out->ncand, &out->ocand, rs->cand,
				rs->ncand, name, out->noise.sigma, cdrop, cm);
	return rc;
}

void runset_run_release(struct runset_run *r)
{
	size_t j;

	if (!r)
		return;
	for (j = 0; r->names && j < r->n; j++)
		free(r->names[j]);
	for (j = 0; r->paths && j < r->n; j++)
		free(r->paths[j]);
	free(r->names);
	free(r->paths);
	free(r->depths);
	free(r->selfs);
	free(r->vals);
	free(r->res);
	free(r->calls);
	memset(r, 0, sizeof(*r));
}

static void runset_runs_free(struct runset_run *r, size_t n)
{
	size_t i;

	for (i = 0; r && i < n; i++)
		runset_run_release(&r[i]);
	free(r);
}

void runset_release(struct runset *rs)
{
	if (!rs)
		return;
	runset_runs_free(rs->base, rs->nbase);
	runset_runs_free(rs->cand, rs->ncand);
	runset_runs_free(rs->hist, rs->nhist);
	free(rs->noise_from);
	free(rs->ancestry_note);
	memset(rs, 0, sizeof(*rs));
}
