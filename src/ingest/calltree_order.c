/*
 * calltree_order.c - each call's parent on one rank (calltree_int.h;
 * steps 1 and 2 of calltree.c's overview): the lanes of (thread, task),
 * the calls put in order by start ascending, end descending (a merge of
 * the runs already in that order when they are few, else a stable radix
 * sort on packed keys, qsort when they do not fit), gathered in that
 * order, and the containment sweep that gives each call its parent or
 * finds two calls overlapping; or the parents from the file's call ids,
 * checked against the times.  Also the scratch arrays all of this works
 * in (kept between ranks) and the sort of a path's durations.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/calltree_int.h"
#include "scopedb/util.h"

/* ---- building one rank ---- */

/* The radix sort's digits: at most 16 bits, so at most 4 passes over 64
 * bits (histograms of 2^16 counts each). */
#define CT_MAXDIGIT 16
#define CT_PASSES 4

/* The scratch arrays for n calls and nrows rows, or -1. */
int ct_scratch(struct ct_scratch *s, size_t n, size_t nrows)
{
	size_t cap = n ? n : 1;

	if (!s->count) {
		s->count = malloc(((size_t)CT_PASSES << CT_MAXDIGIT) * sizeof(*s->count));
		if (!s->count)
			return -1;
	}
	if (cap > s->cap) {
		uint32_t **u[] = {&s->lane,   &s->seg,	&s->order,  &s->row,
				  &s->parent, &s->node, &s->touched};
		int64_t **w[] = {&s->csum, &s->keys, &s->tmp};
		size_t i;

		for (i = 0; i < sizeof(u) / sizeof(u[0]); i++) {
			void *v = realloc(*u[i], cap * sizeof(uint32_t));

			if (!v)
				return -1;
			*u[i] = v;
			util_huge_hint(v, cap * sizeof(uint32_t));
		}
		for (i = 0; i < sizeof(w) / sizeof(w[0]); i++) {
			void *v = realloc(*w[i], cap * sizeof(int64_t));

			if (!v)
				return -1;
			*w[i] = v;
			util_huge_hint(v, cap * sizeof(int64_t));
		}
		s->cap = cap;
	}
	if (nrows > s->rowcap) {
		void *v = realloc(s->rowself, nrows * sizeof(*s->rowself));

		if (!v)
			return -1;
		s->rowself = v;
		v = realloc(s->cpar, nrows * sizeof(*s->cpar));
		if (!v)
			return -1;
		s->cpar = v;
		v = realloc(s->cnode, nrows * sizeof(*s->cnode));
		if (!v)
			return -1;
		s->cnode = v;
		s->rowcap = nrows;
	}
	return 0;
}

void ct_scratch_release(struct ct_scratch *s)
{
	free(s->lane);
	free(s->seg);
	free(s->order);
	free(s->row);
	free(s->parent);
	free(s->node);
	free(s->touched);
	free(s->csum);
	free(s->keys);
	free(s->tmp);
	free(s->rowself);
	free(s->cpar);
	free(s->cnode);
	free(s->count);
	free(s->idtab);
	memset(s, 0, sizeof(*s));
}

/* The number of bits of v (0 for 0). */
static unsigned ct_bits(uint64_t v)
{
	unsigned b = 0;

	while (v) {
		b++;
		v >>= 1;
	}
	return b;
}

/*
 * Sort v[0..n) by their bits [lo, lo + bits), stably (LSD radix: as
 * few passes as cover those bits with digits of at most 16 bits, and not
 * many more buckets than values, the digits made equal: 3 passes of 13
 * bits for the 38 bits of a 4-minute span of starts; fewer passes over
 * the data beat smaller histograms.  All histograms are counted in one
 * read; a pass where every value has the same digit is skipped.)  Values
 * equal in those bits keep their order, so the bits below lo need no pass
 * of their own.  tmp holds n values; returns the array holding the result
 * (v or tmp).
 */
static uint64_t *ct_radix(uint32_t *count, uint64_t *v, uint64_t *tmp, size_t n, unsigned lo,
			  unsigned bits)
{
	unsigned most = ct_bits((uint64_t)n) - 2, passes, p, digit;
	uint64_t *src = v, *dst = tmp, mask;
	size_t i, buckets;

	if (n < 64 || !bits) {
		uint64_t field = bits >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << bits) - 1) << lo;

		for (i = 1; i < n; i++) {
			uint64_t x = v[i];
			size_t j = i;

			for (; j > 0 && (v[j - 1] & field) > (x & field); j--)
				v[j] = v[j - 1];
			v[j] = x;
		}
		return v;
	}
	most = most < 8 ? 8 : most > CT_MAXDIGIT ? CT_MAXDIGIT : most;
	passes = (bits + most - 1) / most;
	digit = (bits + passes - 1) / passes;
	buckets = (size_t)1 << digit;
	mask = buckets - 1;
	memset(count, 0, passes * buckets * sizeof(*count));
	for (i = 0; i < n; i++)
		for (p = 0; p < passes; p++)
			count[p * buckets + ((v[i] >> (lo + p * digit)) & mask)]++;
	for (p = 0; p < passes; p++) {
		uint32_t *c = count + p * buckets, sum = 0;
		unsigned shift = lo + p * digit;
		uint64_t *t;
		size_t k;

		if (c[(src[0] >> shift) & mask] == n)
			continue;
		for (k = 0; k < buckets; k++) {
			uint32_t x = c[k];

			c[k] = sum;
			sum += x;
		}
		for (i = 0; i < n; i++)
			dst[c[(src[i] >> shift) & mask]++] = src[i];
		t = src;
		src = dst;
		dst = t;
	}
	return src;
}

/* Sort durations v[0..m) (>= 0) ascending, with s->tmp as scratch (the
 * gathered durations are not needed any more when this runs). */
void ct_sort_durations(struct ct_scratch *s, int64_t *v, size_t m)
{
	uint64_t mx = 0, *res;
	unsigned bits = 0;
	size_t i;

	for (i = 0; i < m; i++)
		mx |= (uint64_t)v[i];
	while (mx) {
		bits++;
		mx >>= 1;
	}
	res = ct_radix(s->count, (uint64_t *)v, (uint64_t *)s->tmp, m, 0, bits);
	if (res != (uint64_t *)v)
		memcpy(v, res, m * sizeof(*v));
}

/* A lane: (thread, task) with negative values as -1. */
struct ct_lane {
	int64_t thr, task;
};

static size_t ct_lane_hash(int64_t thr, int64_t task, size_t mask)
{
	uint64_t k = ((uint64_t)thr * UINT64_C(0x9e3779b97f4a7c15)) ^
		     ((uint64_t)task * UINT64_C(0xc2b2ae3d27d4eb4f));

	return (size_t)(k >> 29) & mask;
}

/*
 * Number each call's lane into s->lane (0 = the first lane met) and group
 * the calls by lane, each group in call order, into s->seg; off[0..L]
 * bound the groups (*off malloc'ed, L lanes in *nlanes).  A rank without
 * lanes is one group, the calls in their own order: s->seg is then not
 * written (s->seg_ident; 4 bytes a call less).  -1 when memory ran out.
 */
int ct_lanes(struct ct_scratch *s, const struct ct_rank *r, size_t **off, size_t *nlanes)
{
	size_t n = r->n, i, L = 0, cap = 16, h, *o = NULL;
	struct ct_lane *lanes = NULL;
	uint32_t *tab = NULL;
	int rc = -1;

	*off = NULL;
	*nlanes = 0;
	if (!(r->has & CT_HAS_LANES)) {
		o = malloc(2 * sizeof(*o));
		if (!o)
			return -1;
		o[0] = 0;
		o[1] = n;
		s->seg_ident = 1;
		*off = o;
		*nlanes = 1;
		return 0;
	}
	s->seg_ident = 0;
	tab = malloc(cap * sizeof(*tab));
	lanes = malloc((cap / 2) * sizeof(*lanes));
	if (!tab || !lanes)
		goto out;
	for (h = 0; h < cap; h++)
		tab[h] = NONE;
	for (i = 0; i < n; i++) {
		int64_t th = (r->has & CT_HAS_THR) && r->thr[i] >= 0 ? r->thr[i] : -1;
		int64_t tk = (r->has & CT_HAS_TASK) && r->task[i] >= 0 ? r->task[i] : -1;

		for (h = ct_lane_hash(th, tk, cap - 1); tab[h] != NONE; h = (h + 1) & (cap - 1))
			if (lanes[tab[h]].thr == th && lanes[tab[h]].task == tk)
				break;
		if (tab[h] == NONE) {
			if ((L + 1) * 2 > cap) {
				/* grow both and re-insert every lane */
				size_t nc = cap * 2, k;
				uint32_t *nt = malloc(nc * sizeof(*nt));
				struct ct_lane *nl = realloc(lanes, (nc / 2) * sizeof(*nl));

				if (nl)
					lanes = nl;
				if (!nt || !nl) {
					free(nt);
					goto out;
				}
				for (k = 0; k < nc; k++)
					nt[k] = NONE;
				for (k = 0; k < L; k++) {
					size_t g =
					    ct_lane_hash(lanes[k].thr, lanes[k].task, nc - 1);

					while (nt[g] != NONE)
						g = (g + 1) & (nc - 1);
					nt[g] = (uint32_t)k;
				}
				free(tab);
				tab = nt;
				cap = nc;
				for (h = ct_lane_hash(th, tk, cap - 1); tab[h] != NONE;
				     h = (h + 1) & (cap - 1))
					;
			}
			lanes[L].thr = th;
			lanes[L].task = tk;
			tab[h] = (uint32_t)L++;
		}
		s->lane[i] = tab[h];
	}
	o = calloc(L + 1, sizeof(*o));
	if (!o)
		goto out;
	for (i = 0; i < n; i++)
		o[s->lane[i] + 1]++;
	for (h = 0; h < L; h++)
		o[h + 1] += o[h];
	/* a counting sort: o[l] is where lane l's next call goes, then
	 * shifted back to the groups' starts */
	for (i = 0; i < n; i++)
		s->seg[o[s->lane[i]]++] = (uint32_t)i;
	for (h = L; h > 0; h--)
		o[h] = o[h - 1];
	o[0] = 0;
	*off = o;
	*nlanes = L;
	o = NULL;
	rc = 0;
out:
	free(o);
	free(tab);
	free(lanes);
	return rc;
}

/* The order of the calls on a lane, the one rule every path here follows
 * (the radix sort's ties, qsort, the runs, the merge): whether call a
 * (start sa, duration da) comes before call b: start ascending, then the
 * longer call first (a parent before the child that starts with it), then
 * call order. */
static int ct_precedes(int64_t sa, int64_t da, uint32_t a, int64_t sb, int64_t db, uint32_t b)
{
	if (sa != sb)
		return sa < sb;
	if (da != db)
		return da > db;
	return a < b;
}

/* A call as qsort sees it, ordered by ct_precedes(). */
struct ct_sortrec {
	int64_t start, dur;
	uint32_t idx;
};

static int ct_sortrec_cmp(const void *a, const void *b)
{
	const struct ct_sortrec *x = a, *y = b;

	if (ct_precedes(x->start, x->dur, x->idx, y->start, y->dur, y->idx))
		return -1;
	return ct_precedes(y->start, y->dur, y->idx, x->start, x->dur, x->idx);
}

/* Sorted runs a lane may have and still be merged rather than sorted:
 * any lane of at most CT_FEWRUNS, a lane of CT_BIGLANE calls or more up
 * to CT_MAXRUNS.  A radix sort's scatter and the gather after it read and
 * write all over a large lane's arrays, missing the cache and the TLB at
 * every call; a merge reads each run in sequence, at a cost that grows
 * with the log of the runs instead (bench/RESULTS.md, "Call trees of
 * large ranks"). */
#define CT_FEWRUNS 8
#define CT_BIGLANE ((size_t)1 << 22)
#define CT_MAXRUNS 256

/* The call at position j of a lane's calls seg, NULL for the identity
 * (s->seg_ident). */
#define CT_SEG(seg, j) ((seg) ? (seg)[j] : (uint32_t)(j))

/* Calls a merge gathers between two give-backs of what its runs have
 * consumed (ct_merge()'s release). */
#define CT_RELEASE_STEP ((size_t)1 << 20)

/* Whether call a of r comes before call b (ct_precedes()). */
static int ct_before(const struct ct_rank *r, uint32_t a, uint32_t b)
{
	return ct_precedes(r->start[a], r->dur[a], a, r->start[b], r->dur[b], b);
}

/*
 * The sorted runs of seg[0..m) (in call order): a call that sorts before
 * the one before it begins a run.  Their starts go to at[0..n), at[n] = m;
 * returns n, or 0 when there are more than most.  In the profiles the
 * real scope-profiler wrote (tests/data/real: 48 regions, one of them
 * self-recursive) each region's calls are in start order, so a lane is
 * about one run a region; a file in another order is sorted instead.
 */
static size_t ct_runs(const struct ct_rank *r, const uint32_t *seg, size_t m, size_t most,
		      size_t *at)
{
	size_t n = 1, j;

	at[0] = 0;
	for (j = 1; j < m; j++) {
		if (!ct_before(r, CT_SEG(seg, j - 1), CT_SEG(seg, j))) {
			if (n == most)
				return 0;
			at[n++] = j;
		}
	}
	at[n] = m;
	return n;
}

/*
 * The merge's tree of losers (Knuth, TAOCP vol. 3, 5.4.1): the runs'
 * next calls are the leaves, each inner node keeps the run that lost the
 * match played there, and the winner (the next call out) is above them
 * all.  After a run gives its call, only the matches on that run's path to
 * the top are played again: about log2(runs) comparisons a call, where a
 * heap's sift compares two children at each level it descends.  A run
 * that has given all its calls holds the CT_SPENT_* call, after every
 * call.
 */
struct ct_losers {
	int64_t start[CT_MAXRUNS], dur[CT_MAXRUNS]; /* each run's next call */
	uint32_t call[CT_MAXRUNS];
	uint32_t node[CT_MAXRUNS]; /* node[j], 1 <= j < n: the loser there */
	uint32_t n;		   /* runs; run i is leaf n + i */
};

/* A spent run's call: the last start, the shortest duration and the last
 * call there can be, so ct_precedes() puts it after every call. */
#define CT_SPENT_START INT64_MAX
#define CT_SPENT_DUR INT64_MIN

/* Whether run x's next call comes before run y's. */
static int ct_run_before(const struct ct_losers *t, uint32_t x, uint32_t y)
{
	return ct_precedes(t->start[x], t->dur[x], t->call[x], t->start[y], t->dur[y], t->call[y]);
}

/* Play the matches of all the nodes, bottom up; returns the winner. */
static uint32_t ct_losers_build(struct ct_losers *t)
{
	uint32_t win[2 * CT_MAXRUNS], j, n = t->n;

	for (j = 0; j < n; j++)
		win[n + j] = j;
	for (j = n; j-- > 1;) {
		uint32_t a = win[2 * j], b = win[2 * j + 1];

		if (ct_run_before(t, b, a)) {
			win[j] = b;
			t->node[j] = a;
		} else {
			win[j] = a;
			t->node[j] = b;
		}
	}
	return n > 1 ? win[1] : 0;
}

/* Run w has its next call (or is spent): replay the matches on its path
 * to the top; returns the new winner. */
static uint32_t ct_losers_replay(struct ct_losers *t, uint32_t w)
{
	uint32_t j;

	for (j = (t->n + w) / 2; j >= 1; j /= 2) {
		uint32_t l = t->node[j];

		if (ct_run_before(t, l, w)) {
			t->node[j] = w;
			w = l;
		}
	}
	return w;
}

/* Give back the pages of r's calls [*from, to) (consumed by a merge). */
static void ct_release(const struct ct_rank *r, size_t *from, size_t to)
{
	util_release_pages(r->start + *from, (to - *from) * sizeof(*r->start));
	util_release_pages(r->dur + *from, (to - *from) * sizeof(*r->dur));
	if (r->row)
		util_release_pages(r->row + *from, (to - *from) * sizeof(*r->row));
	*from = to;
}

/*
 * Merge the nrun (at most CT_MAXRUNS) sorted runs of seg (bounded by at[])
 * through a tree of losers of their next calls, gathering each call as it
 * comes out into position a, a + 1... of s->keys, s->tmp and s->row: the
 * order and the gather of a sort in one pass.  Its tree is on the stack: a
 * merge needs no memory, so a rank's status never depends on the path
 * taken.  With release (seg the identity, and r's calls not needed after
 * the gather), what the runs have consumed is given back as the merge
 * goes, so that r's calls and their gathered copy are not both whole at
 * once.
 */
static void ct_merge(struct ct_scratch *s, const struct ct_rank *r, const uint32_t *seg,
		     const size_t *at, size_t nrun, size_t a, int release)
{
	struct ct_losers t;
	size_t pos[CT_MAXRUNS], done[CT_MAXRUNS], i, k = a, end = a;
	uint32_t w;

	release = release && !seg;
	t.n = (uint32_t)nrun;
	for (i = 0; i < nrun; i++) {
		uint32_t c = CT_SEG(seg, at[i]);

		t.start[i] = r->start[c];
		t.dur[i] = r->dur[c];
		t.call[i] = c;
		pos[i] = done[i] = at[i];
		end += at[i + 1] - at[i];
	}
	w = ct_losers_build(&t);
	while (k < end) {
		uint32_t c = t.call[w];

		s->keys[k] = t.start[w];
		s->tmp[k] = t.dur[w];
		s->row[k++] = CT_ROW(r, c);
		if (++pos[w] < at[w + 1]) {
			c = CT_SEG(seg, pos[w]);
			t.start[w] = r->start[c];
			t.dur[w] = r->dur[c];
			t.call[w] = c;
		} else {
			t.start[w] = CT_SPENT_START;
			t.dur[w] = CT_SPENT_DUR;
			t.call[w] = UINT32_MAX;
		}
		w = ct_losers_replay(&t, w);
		if (release && (k - a) % CT_RELEASE_STEP == 0)
			for (i = 0; i < nrun; i++)
				ct_release(r, &done[i], pos[i]);
	}
}

/*
 * The calls of r in s->order[a, a + m) copied into those positions of
 * s->keys (starts), s->tmp (durations) and s->row (rows), so that the
 * passes after the sort read them in sequence.
 */
void ct_gather(struct ct_scratch *s, const struct ct_rank *r, size_t a, size_t m)
{
	size_t k;

	for (k = a; k < a + m; k++) {
		uint32_t c = s->order[k];

		s->keys[k] = r->start[c];
		s->tmp[k] = r->dur[c];
		s->row[k] = CT_ROW(r, c);
	}
}

/* Order the calls out[i..k), whose starts are equal, by duration
 * descending, then call order.  -1 when memory ran out. */
static int ct_ties(const struct ct_rank *r, uint32_t *out, size_t i, size_t k)
{
	struct ct_sortrec *v;
	size_t a, b;

	if (k - i <= 32) {
		for (a = i + 1; a < k; a++) {
			uint32_t x = out[a];

			for (b = a; b > i && ct_before(r, x, out[b - 1]); b--)
				out[b] = out[b - 1];
			out[b] = x;
		}
		return 0;
	}
	v = malloc((k - i) * sizeof(*v));
	if (!v)
		return -1;
	for (a = i; a < k; a++) {
		v[a - i].start = 0;
		v[a - i].dur = r->dur[out[a]];
		v[a - i].idx = out[a];
	}
	qsort(v, k - i, sizeof(*v), ct_sortrec_cmp);
	for (a = i; a < k; a++)
		out[a] = v[a - i].idx;
	free(v);
	return 0;
}

/*
 * Sort the m calls seg[0..m) (in call order) into out by start ascending,
 * duration descending, call order, and gather them into positions base,
 * base + 1... of s->keys, s->tmp and s->row.  A radix sort of (start -
 * the lane's first start, position) packed in 64 bits when they fit (its
 * scratch s->keys and s->tmp from position base), then runs of equal
 * starts by duration; the sorted keys give the runs and the gathered
 * starts in sequence, so only the durations and rows are read through
 * out.  qsort when they do not fit.  -1 when memory ran out.
 */
static int ct_sort(struct ct_scratch *s, const struct ct_rank *r, const uint32_t *seg, size_t m,
		   size_t base, uint32_t *out)
{
	uint64_t mask, *keys = (uint64_t *)(s->keys + base), *v;
	int64_t mn, mx;
	unsigned ib, kb;
	size_t j, i, k;

	mn = mx = r->start[CT_SEG(seg, 0)];
	for (j = 1; j < m; j++) {
		int64_t x = r->start[CT_SEG(seg, j)];

		mn = x < mn ? x : mn;
		mx = x > mx ? x : mx;
	}
	ib = ct_bits((uint64_t)(m - 1));
	kb = ct_bits((uint64_t)mx - (uint64_t)mn);
	if (kb + ib > 63) {
		struct ct_sortrec *q = malloc(m * sizeof(*q));

		if (!q)
			return -1;
		for (j = 0; j < m; j++) {
			q[j].start = r->start[CT_SEG(seg, j)];
			q[j].dur = r->dur[CT_SEG(seg, j)];
			q[j].idx = CT_SEG(seg, j);
		}
		qsort(q, m, sizeof(*q), ct_sortrec_cmp);
		for (j = 0; j < m; j++)
			out[j] = q[j].idx;
		free(q);
		ct_gather(s, r, base, m);
		return 0;
	}
	mask = ((uint64_t)1 << ib) - 1;
	for (j = 0; j < m; j++)
		keys[j] = ((uint64_t)r->start[CT_SEG(seg, j)] - (uint64_t)mn) << ib | j;
	/* only the start's bits: equal starts keep their positions order,
	 * which is the calls' order */
	v = ct_radix(s->count, keys, (uint64_t *)(s->tmp + base), m, ib, kb);
	for (j = 0; j < m; j++)
		out[j] = CT_SEG(seg, v[j] & mask);
	for (i = 0; i < m; i = k) {
		for (k = i + 1; k < m && v[k] >> ib == v[i] >> ib; k++)
			;
		if (k - i > 1 && ct_ties(r, out, i, k))
			return -1;
	}
	/* v is keys or tmp from base: each v[j] is read before its place
	 * is written */
	for (j = 0; j < m; j++) {
		int64_t st = (int64_t)((uint64_t)mn + (v[j] >> ib));
		uint32_t c = out[j];

		s->keys[base + j] = st;
		s->tmp[base + j] = r->dur[c];
		s->row[base + j] = CT_ROW(r, c);
	}
	return 0;
}

/*
 * Lane [a, a + m) of s->seg in sorted order (start ascending, duration
 * descending, call order), gathered into those positions of s->keys,
 * s->tmp and s->row: merged when its calls are a few sorted runs
 * (ct_runs()), else sorted into s->order and gathered.  merge is
 * calltree_set_merge()'s mode.  -1 when memory ran out.
 */
int ct_sort_lane(struct ct_scratch *s, const struct ct_rank *r, size_t a, size_t m, int merge,
		 int release)
{
	const uint32_t *seg = s->seg_ident ? NULL : s->seg + a;
	size_t at[CT_MAXRUNS + 1], nrun = 0;

	if (m == 0)
		return 0;
	if (merge >= 0)
		nrun = ct_runs(r, seg, m, merge || m >= CT_BIGLANE ? CT_MAXRUNS : CT_FEWRUNS, at);
	if (nrun) {
		ct_merge(s, r, seg, at, nrun, a, release);
		return 0;
	}
	return ct_sort(s, r, seg, m, a, s->order + a);
}

/* An id and its call, for files whose ids are sparse. */
struct ct_idrec {
	int64_t id;
	uint32_t idx;
};

static int ct_idrec_cmp(const void *a, const void *b)
{
	const struct ct_idrec *x = a, *y = b;

	return (x->id > y->id) - (x->id < y->id);
}

/*
 * The calls of r in the order of their ids (so parents first) into
 * s->order, and a lookup from id to call: a direct table when the ids are
 * dense, else the sorted records.  CALLTREE_IDS_USED, _DUPLICATE, or -1
 * when memory ran out.
 */
static int ct_id_order(struct ct_scratch *s, const struct ct_rank *r, int64_t *mn, uint32_t **tab,
		       struct ct_idrec **recs)
{
	size_t n = r->n, i;
	int64_t mx;

	*tab = NULL;
	*recs = NULL;
	*mn = mx = r->cid[0];
	for (i = 1; i < n; i++) {
		*mn = r->cid[i] < *mn ? r->cid[i] : *mn;
		mx = r->cid[i] > mx ? r->cid[i] : mx;
	}
	if ((uint64_t)(mx - *mn) < (uint64_t)n * 2 + 1024) {
		/* dense ids (the usual 0, 1, 2...): a direct table */
		size_t len = (size_t)(mx - *mn) + 1, k = 0;
		uint32_t *t = s->idtab;

		if (len > s->idcap) {
			t = realloc(s->idtab, len * sizeof(*t));
			if (!t)
				return -1;
			s->idtab = t;
			s->idcap = len;
		}
		*tab = t;
		for (i = 0; i < len; i++)
			t[i] = NONE;
		for (i = 0; i < n; i++) {
			size_t at = (size_t)(r->cid[i] - *mn);

			if (t[at] != NONE)
				return CALLTREE_IDS_DUPLICATE;
			t[at] = (uint32_t)i;
		}
		for (i = 0; i < len; i++)
			if (t[i] != NONE)
				s->order[k++] = t[i];
		return CALLTREE_IDS_USED;
	}
	*recs = malloc(n * sizeof(**recs));
	if (!*recs)
		return -1;
	for (i = 0; i < n; i++) {
		(*recs)[i].id = r->cid[i];
		(*recs)[i].idx = (uint32_t)i;
	}
	qsort(*recs, n, sizeof(**recs), ct_idrec_cmp);
	for (i = 0; i < n; i++) {
		if (i && (*recs)[i].id == (*recs)[i - 1].id)
			return CALLTREE_IDS_DUPLICATE;
		s->order[i] = (*recs)[i].idx;
	}
	return CALLTREE_IDS_USED;
}

/*
 * Parents from the ids: s->order (calls by id, so parents first), the
 * calls gathered in that order, s->parent in gathered positions, and
 * each call's self time in s->keys (through the children's sums in
 * s->csum).  CALLTREE_IDS_USED, another enum calltree_ids_issue when the
 * ids cannot be used, or -1 when memory ran out.
 */
int ct_from_ids(struct ct_scratch *s, const struct ct_rank *r, struct calltree_rankinfo *info)
{
	size_t n = r->n, k;
	int64_t mn;
	uint32_t *tab = NULL;
	struct ct_idrec *recs = NULL;
	int issue;

	if (n == 0)
		return CALLTREE_IDS_USED;
	issue = ct_id_order(s, r, &mn, &tab, &recs);
	if (issue)
		goto out;
	ct_gather(s, r, 0, n);
	/* the lookups give positions from here on: the table's entries (in id
	 * order, so written in sequence), the records' indexes */
	for (k = 0; k < n; k++) {
		if (tab)
			tab[r->cid[s->order[k]] - mn] = (uint32_t)k;
		s->csum[k] = 0;
	}
	for (k = 0; k < n; k++) {
		uint32_t c = s->order[k], pk = NONE;
		int64_t p = r->pid[c];

		s->parent[k] = NONE;
		if (p < 0)
			continue;
		if (p >= r->cid[c]) {
			issue = CALLTREE_IDS_ORDER;
			goto out;
		}
		if (tab) {
			if (p >= mn)
				pk = tab[p - mn];
		} else {
			size_t lo = 0, hi = n;

			while (lo < hi) {
				size_t mid = lo + (hi - lo) / 2;

				if (recs[mid].id < p)
					lo = mid + 1;
				else
					hi = mid;
			}
			if (lo < n && recs[lo].id == p)
				pk = (uint32_t)lo;
		}
		if (pk == NONE) {
			info->orphans++;
			continue;
		}
		if ((r->has & CT_HAS_LANES) && s->lane[s->order[pk]] != s->lane[c]) {
			info->crosslane++;
			continue;
		}
		if (s->keys[pk] > s->keys[k] || s->keys[k] + s->tmp[k] > s->keys[pk] + s->tmp[pk]) {
			issue = CALLTREE_IDS_OUTSIDE;
			goto out;
		}
		if (__builtin_add_overflow(s->csum[pk], s->tmp[k], &s->csum[pk])) {
			issue = CALLTREE_IDS_CHILDREN;
			goto out;
		}
		s->parent[k] = pk;
	}
	/* each call's self time in place of its start (a rank whose ids are
	 * not used is gathered again) */
	for (k = 0; k < n; k++) {
		if (s->csum[k] > s->tmp[k]) {
			issue = CALLTREE_IDS_CHILDREN;
			goto out;
		}
		s->keys[k] = s->tmp[k] - s->csum[k];
	}
out:
	if (issue != CALLTREE_IDS_USED)
		info->orphans = info->crosslane = 0;
	free(recs);
	return issue;
}
