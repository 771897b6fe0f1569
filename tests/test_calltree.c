/*
 * test_calltree.c - the call-tree builder (src/ingest/calltree.c,
 * docs/format.md section 10) against trees computed by hand: nesting from
 * containment and from ids, self-recursion (one node) and A > B > A (three),
 * zero-length calls, identical intervals, overlaps (no tree, the pair
 * named), lanes, several roots, ids unique per rank only, ids that are
 * not used (and why), the budget of held calls, aggregate rows, paths too
 * deep; then the real profiles of tests/data/real (written by the real
 * scope-profiler) read with h5prof: fib-recursive.h5 and nested-base.h5
 * with the numbers of issue 22, mpi2-base.h5 with its recursion on two
 * ranks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/calltree.h"
#include "ingest/ingest_child.h"
#include "scopedb/err.h"
#include "scopedb/h5prof.h"
#include "h5write.h"
#include "testutil.h"
#include "testutil_h5.h"

#define MAXP 256

/* What the sink received. */
struct got {
	const char *const *names; /* region id -> name */
	struct calltree_node nodes[MAXP];
	size_t nnodes;
	struct gpath {
		uint32_t rank;
		char path[400];
		uint64_t calls, nested;
		int64_t total, self;
		int64_t durs[16];
		int whole; /* row_durations */
	} paths[MAXP];
	size_t npaths;
	struct gself {
		uint32_t rank, region;
		int64_t self;
		enum calltree_self_source source;
	} selfs[MAXP];
	size_t nselfs;
	struct calltree_rankinfo ranks[32];
	size_t nranks;
};

static int got_rank(void *ctx, const struct calltree_rankinfo *r)
{
	struct got *g = ctx;

	struct calltree_rankinfo c;

	assert_true(g->nranks < 32);
	/* field by field into zeroed memory: test_threaded compares these
	 * structs' bytes, and a struct copy may carry its padding's garbage */
	memset(&c, 0, sizeof(c));
	c.rank = r->rank;
	c.status = r->status;
	c.method = r->method;
	c.ids_issue = r->ids_issue;
	c.paths_issue = r->paths_issue;
	c.calls = r->calls;
	c.lanes = r->lanes;
	c.paths = r->paths;
	c.orphans = r->orphans;
	c.crosslane = r->crosslane;
	c.region_a = r->region_a;
	c.region_b = r->region_b;
	c.start_a = r->start_a;
	c.end_a = r->end_a;
	c.start_b = r->start_b;
	c.end_b = r->end_b;
	g->ranks[g->nranks++] = c;
	return 0;
}

static int got_node(void *ctx, const struct calltree_node *n)
{
	struct got *g = ctx;

	/* ids are dense, in delivery order, parents first */
	assert_int_equal(n->id, g->nnodes);
	assert_true(n->parent < (int64_t)n->id);
	if (n->parent >= 0) {
		assert_int_equal(n->depth, g->nodes[n->parent].depth + 1);
		assert_int_not_equal(n->region, g->nodes[n->parent].region);
	} else {
		assert_int_equal(n->depth, 1);
	}
	assert_true(g->nnodes < MAXP);
	/* (zeroed first, as got_rank()) */
	memset(&g->nodes[g->nnodes], 0, sizeof(g->nodes[0]));
	g->nodes[g->nnodes].id = n->id;
	g->nodes[g->nnodes].parent = n->parent;
	g->nodes[g->nnodes].region = n->region;
	g->nodes[g->nnodes].depth = n->depth;
	g->nnodes++;
	return 0;
}

/* "main > solve" of node id (names from the root down). */
static void got_pathname(const struct got *g, uint32_t id, char *out, size_t n)
{
	uint32_t chain[64];
	size_t depth = 0, len = 0;

	for (;;) {
		assert_true(depth < 64);
		chain[depth++] = id;
		if (g->nodes[id].parent < 0)
			break;
		id = (uint32_t)g->nodes[id].parent;
	}
	out[0] = '\0';
	while (depth--) {
		const char *name = g->names[g->nodes[chain[depth]].region];

		assert_true(len + strlen(name) + 4 < n);
		if (len) {
			memcpy(out + len, " > ", 3);
			len += 3;
		}
		memcpy(out + len, name, strlen(name) + 1);
		len += strlen(name);
	}
}

static int got_path(void *ctx, const struct calltree_path *p)
{
	struct got *g = ctx;
	struct gpath *q = &g->paths[g->npaths];
	uint64_t i;

	assert_true(g->npaths < MAXP);
	assert_true(p->node < g->nnodes);
	memset(q, 0, sizeof(*q));
	q->rank = p->rank;
	got_pathname(g, p->node, q->path, sizeof(q->path));
	q->calls = p->calls;
	q->nested = p->nested;
	q->total = p->total;
	q->self = p->self;
	q->whole = p->row_durations;
	if (p->row_durations) {
		assert_null(p->durations);
		g->npaths++;
		return 0;
	}
	for (i = 0; i < p->calls; i++) {
		if (i)
			assert_true(p->durations[i - 1] <= p->durations[i]);
		if (i < 16)
			q->durs[i] = p->durations[i];
	}
	g->npaths++;
	return 0;
}

static int got_self(void *ctx, uint32_t rank, uint32_t region, int64_t self,
		    enum calltree_self_source source)
{
	struct got *g = ctx;

	assert_true(g->nselfs < MAXP);
	g->selfs[g->nselfs].rank = rank;
	g->selfs[g->nselfs].region = region;
	g->selfs[g->nselfs].self = self;
	g->selfs[g->nselfs].source = source;
	g->nselfs++;
	return 0;
}

static struct calltree_sink got_sink(struct got *g)
{
	struct calltree_sink s = {g, got_rank, got_node, got_path, got_self};

	return s;
}

static const struct gpath *find_path(const struct got *g, uint32_t rank, const char *path)
{
	size_t i;

	for (i = 0; i < g->npaths; i++)
		if (g->paths[i].rank == rank && !strcmp(g->paths[i].path, path))
			return &g->paths[i];
	static const struct gpath none;

	print_error("no path '%s' on rank %u\n", path, rank);
	fail();
	return &none;
}

static void check_path(const struct got *g, uint32_t rank, const char *path, uint64_t calls,
		       uint64_t nested, int64_t total, int64_t self)
{
	const struct gpath *p = find_path(g, rank, path);

	assert_int_equal(p->calls, calls);
	assert_int_equal(p->nested, nested);
	assert_int_equal(p->total, total);
	assert_int_equal(p->self, self);
}

/* The self time of (rank, region name), which must be there once. */
static int64_t self_of(const struct got *g, uint32_t rank, const char *name,
		       enum calltree_self_source *source)
{
	size_t i, hits = 0;
	int64_t v = 0;

	for (i = 0; i < g->nselfs; i++) {
		if (g->selfs[i].rank == rank && !strcmp(g->names[g->selfs[i].region], name)) {
			hits++;
			v = g->selfs[i].self;
			if (source)
				*source = g->selfs[i].source;
		}
	}
	assert_int_equal(hits, 1);
	return v;
}

static int has_self(const struct got *g, uint32_t rank, const char *name)
{
	size_t i;

	for (i = 0; i < g->nselfs; i++)
		if (g->selfs[i].rank == rank && !strcmp(g->names[g->selfs[i].region], name))
			return 1;
	return 0;
}

static const struct calltree_rankinfo *rank_info(const struct got *g, uint32_t rank)
{
	size_t i;

	for (i = 0; i < g->nranks; i++)
		if (g->ranks[i].rank == rank)
			return &g->ranks[i];
	static const struct calltree_rankinfo none;

	print_error("no status for rank %u\n", rank);
	fail();
	return &none;
}

/* One call of a hand-made profile. */
struct tc {
	uint32_t rank;
	uint32_t region; /* index into the test's names */
	int64_t start, end;
	int64_t cid, pid;  /* used with F_IDS */
	int64_t thr, task; /* used with F_LANES */
};

#define F_IDS 1u
#define F_LANES 2u
#define F_NOLAST 4u /* no rank_last: everything built by calltree_finish */

/*
 * Feed the calls to a new builder: one row per (rank, region) in the order
 * they first appear, each row's calls in the given order, ranks one after
 * another with rank_last on each rank's last row; then calltree_finish().
 */
static void feed(struct calltree *t, const struct tc *c, size_t n, unsigned flags, struct got *g)
{
	struct calltree_sink sink = got_sink(g);
	uint32_t ranks[32], regions[32];
	size_t nranks = 0, i, k, a;

	for (i = 0; i < n; i++) {
		for (k = 0; k < nranks && ranks[k] != c[i].rank; k++)
			;
		if (k == nranks)
			ranks[nranks++] = c[i].rank;
	}
	for (a = 0; a < nranks; a++) {
		size_t nreg = 0, r;

		for (i = 0; i < n; i++) {
			if (c[i].rank != ranks[a])
				continue;
			for (k = 0; k < nreg && regions[k] != c[i].region; k++)
				;
			if (k == nreg)
				regions[nreg++] = c[i].region;
		}
		for (r = 0; r < nreg; r++) {
			int64_t st[64], du[64], ci[64], pi[64], th[64], tk[64];
			struct calltree_row row;
			size_t m = 0;

			for (i = 0; i < n; i++) {
				if (c[i].rank != ranks[a] || c[i].region != regions[r])
					continue;
				st[m] = c[i].start;
				du[m] = c[i].end - c[i].start;
				ci[m] = c[i].cid;
				pi[m] = c[i].pid;
				th[m] = c[i].thr;
				tk[m] = c[i].task;
				m++;
			}
			memset(&row, 0, sizeof(row));
			row.rank = ranks[a];
			row.region = regions[r];
			row.calls = m;
			row.has_events = 1;
			row.starts = st;
			row.durations = du;
			row.exclusive = -1;
			if (flags & F_IDS) {
				row.nest.call_ids = ci;
				row.nest.parent_ids = pi;
			}
			if (flags & F_LANES) {
				row.nest.thread_ids = th;
				row.nest.task_ids = tk;
			}
			row.rank_last = !(flags & F_NOLAST) && r + 1 == nreg;
			assert_int_equal(calltree_add(t, &row, &sink), 0);
		}
	}
	assert_int_equal(calltree_finish(t, &sink), 0);
}

/* How every builder of a test puts calls in start order and whether it
 * gives a rank's calls back once sorted (the *_sorted and *_merged cases
 * run a test again with these set by their setup). */
static int tune_merge;
static uint64_t tune_drop;

static void tune(struct calltree *t)
{
	calltree_set_merge(t, tune_merge);
	calltree_set_drop(t, tune_drop);
}

static int tune_sorted(void **state)
{
	(void)state;
	tune_merge = -1;
	return 0;
}

static int tune_merged(void **state)
{
	(void)state;
	tune_merge = 1;
	tune_drop = 1;
	return 0;
}

static int tune_reset(void **state)
{
	(void)state;
	tune_merge = 0;
	tune_drop = 0;
	return 0;
}

/* A new builder whose results go to g (emptied first, the regions named by
 * names); the caller frees it. */
static struct calltree *begin(struct got *g, const char *const *names)
{
	struct calltree *t;

	memset(g, 0, sizeof(*g));
	g->names = names;
	assert_int_equal(calltree_new(&t), 0);
	tune(t);
	return t;
}

/* A new builder fed with the calls; the caller frees it. */
static struct calltree *run(const struct tc *c, size_t n, unsigned flags, struct got *g,
			    const char *const *names)
{
	struct calltree *t = begin(g, names);

	feed(t, c, n, flags, g);
	return t;
}

#define N(a) (sizeof(a) / sizeof((a)[0]))

static const char *const nm[] = {"main", "solve", "assemble", "factorize", "io", "A", "B", "Z"};
enum { MAIN, SOLVE, ASSEMBLE, FACTORIZE, IO, A, B, Z };

/* Feed the calls to a new builder and free it: what the sink got (g, with
 * nm's region names) is all most tests look at. */
static void collect(const struct tc *c, size_t n, unsigned flags, struct got *g)
{
	calltree_free(run(c, n, flags, g, nm));
}

/* main > solve > {assemble, factorize}, main > io, from containment. */
static void test_containment(void **state)
{
	/* rows come in region order, not time order */
	const struct tc c[] = {
	    {0, IO, 70, 90, 0, 0, 0, 0},	{0, SOLVE, 10, 60, 0, 0, 0, 0},
	    {0, ASSEMBLE, 15, 30, 0, 0, 0, 0},	{0, MAIN, 0, 100, 0, 0, 0, 0},
	    {0, FACTORIZE, 30, 55, 0, 0, 0, 0},
	};
	struct got g;
	enum calltree_self_source src;
	size_t i;

	(void)state;
	collect(c, N(c), 0, &g);
	assert_int_equal(g.nranks, 1);
	assert_int_equal(g.ranks[0].status, CALLTREE_OK);
	assert_int_equal(g.ranks[0].method, CALLTREE_CONTAINMENT);
	assert_int_equal(g.ranks[0].ids_issue, CALLTREE_IDS_USED);
	assert_int_equal(g.ranks[0].calls, 5);
	assert_int_equal(g.ranks[0].lanes, 1);
	assert_int_equal(g.ranks[0].paths, 5);
	assert_int_equal(g.npaths, 5);
	/* delivered parents first, in the order the tree meets them */
	assert_string_equal(g.paths[0].path, "main");
	assert_string_equal(g.paths[1].path, "main > solve");
	assert_string_equal(g.paths[2].path, "main > solve > assemble");
	assert_string_equal(g.paths[3].path, "main > solve > factorize");
	assert_string_equal(g.paths[4].path, "main > io");
	check_path(&g, 0, "main", 1, 0, 100, 100 - 50 - 20);
	check_path(&g, 0, "main > solve", 1, 0, 50, 50 - 15 - 25);
	check_path(&g, 0, "main > solve > assemble", 1, 0, 15, 15);
	check_path(&g, 0, "main > solve > factorize", 1, 0, 25, 25);
	check_path(&g, 0, "main > io", 1, 0, 20, 20);
	/* every path has all the calls of its region: the rows' durations */
	for (i = 0; i < g.npaths; i++)
		assert_true(g.paths[i].whole);
	assert_int_equal(self_of(&g, 0, "main", &src), 30);
	assert_int_equal(src, CALLTREE_SELF_TREE);
	assert_int_equal(self_of(&g, 0, "solve", NULL), 10);
	assert_int_equal(self_of(&g, 0, "assemble", NULL), 15);
	assert_int_equal(self_of(&g, 0, "factorize", NULL), 25);
	assert_int_equal(self_of(&g, 0, "io", NULL), 20);
}

/* Self-recursion is one node: its outermost calls count once, the nested
 * ones apart; the total is the outermost durations'. */
static void test_recursion(void **state)
{
	const struct tc c[] = {
	    {0, MAIN, 0, 100, 0, 0, 0, 0}, {0, A, 10, 90, 0, 0, 0, 0}, {0, A, 20, 50, 0, 0, 0, 0},
	    {0, A, 25, 30, 0, 0, 0, 0},	   {0, A, 55, 85, 0, 0, 0, 0}, {0, A, 92, 99, 0, 0, 0, 0},
	};
	struct got g;
	const struct gpath *p;

	(void)state;
	collect(c, N(c), 0, &g);
	assert_int_equal(g.npaths, 2);
	/* A's outermost calls: [10, 90] and [92, 99]; nested: 3.  Self:
	 * (80 - 30 - 30) + (30 - 5) + 5 + 30 + 7 = 87 = the total. */
	check_path(&g, 0, "main > A", 2, 3, 80 + 7, 87);
	p = find_path(&g, 0, "main > A");
	assert_false(p->whole); /* 2 of A's 5 calls */
	assert_int_equal(p->durs[0], 7);
	assert_int_equal(p->durs[1], 80);
	check_path(&g, 0, "main", 1, 0, 100, 100 - 87);
	assert_int_equal(self_of(&g, 0, "A", NULL), 87);
	assert_int_equal(self_of(&g, 0, "main", NULL), 13);
}

/* A > B > A: only adjacent names collapse, so the inner A is a path of
 * its own, three names long. */
static void test_a_b_a(void **state)
{
	const struct tc c[] = {
	    {0, MAIN, 0, 100, 0, 0, 0, 0}, {0, A, 10, 90, 0, 0, 0, 0}, {0, B, 20, 80, 0, 0, 0, 0},
	    {0, A, 30, 70, 0, 0, 0, 0},	   {0, A, 35, 45, 0, 0, 0, 0},
	};
	struct got g;

	(void)state;
	collect(c, N(c), 0, &g);
	assert_int_equal(g.npaths, 4);
	check_path(&g, 0, "main", 1, 0, 100, 20);
	check_path(&g, 0, "main > A", 1, 0, 80, 20);
	check_path(&g, 0, "main > A > B", 1, 0, 60, 20);
	/* [30, 70] with its own nested A [35, 45] */
	check_path(&g, 0, "main > A > B > A", 1, 1, 40, 40);
	assert_int_equal(self_of(&g, 0, "A", NULL), 20 + 40);
	assert_int_equal(self_of(&g, 0, "B", NULL), 20);
}

/* Zero-length calls: inside a call with the same start, and inside one
 * that ends at its instant (upstream pops the calls that end before the
 * new call ends: format contract, section 8); two at one instant nest;
 * back-to-back calls are siblings, and a zero-length call after a gap is
 * a root. */
static void test_zero_length(void **state)
{
	const struct tc c[] = {
	    {0, A, 10, 20, 0, 0, 0, 0}, {0, A, 20, 30, 0, 0, 0, 0}, {0, Z, 10, 10, 0, 0, 0, 0},
	    {0, Z, 30, 30, 0, 0, 0, 0}, {0, B, 40, 40, 0, 0, 0, 0}, {0, B, 40, 40, 0, 0, 0, 0},
	    {0, Z, 35, 35, 0, 0, 0, 0},
	};
	struct got g;

	(void)state;
	collect(c, N(c), 0, &g);
	assert_int_equal(g.ranks[0].status, CALLTREE_OK);
	/* A [10, 20] and A [20, 30]: back to back, siblings */
	check_path(&g, 0, "A", 2, 0, 20, 20);
	/* Z [10, 10] at the start of the first, Z [30, 30] at the end of the
	 * second */
	check_path(&g, 0, "A > Z", 2, 0, 0, 0);
	/* Z [35, 35]: after a gap */
	check_path(&g, 0, "Z", 1, 0, 0, 0);
	/* the second zero-length B nests in the first: recursion */
	check_path(&g, 0, "B", 1, 1, 0, 0);
	assert_int_equal(g.npaths, 4);
}

/* Identical intervals nest, the call met first outside. */
static void test_identical(void **state)
{
	const struct tc c[] = {{0, A, 0, 10, 0, 0, 0, 0}, {0, B, 0, 10, 0, 0, 0, 0}};
	const struct tc d[] = {{0, B, 0, 10, 0, 0, 0, 0}, {0, A, 0, 10, 0, 0, 0, 0}};
	/* the same, the two calls in different sorted runs (a merge meets
	 * them at the runs' heads) */
	const struct tc e[] = {
	    {0, A, 0, 10, 0, 0, 0, 0}, {0, A, 20, 25, 0, 0, 0, 0}, {0, B, 0, 10, 0, 0, 0, 0}};
	/* equal starts in different runs: the longer call is the parent */
	const struct tc f[] = {
	    {0, A, 0, 5, 0, 0, 0, 0}, {0, A, 20, 25, 0, 0, 0, 0}, {0, B, 0, 10, 0, 0, 0, 0}};
	struct got g;

	(void)state;
	collect(c, N(c), 0, &g);
	check_path(&g, 0, "A", 1, 0, 10, 0);
	check_path(&g, 0, "A > B", 1, 0, 10, 10);
	assert_int_equal(g.npaths, 2);
	collect(d, N(d), 0, &g);
	check_path(&g, 0, "B > A", 1, 0, 10, 10);
	collect(e, N(e), 0, &g);
	check_path(&g, 0, "A", 2, 0, 15, 5);
	check_path(&g, 0, "A > B", 1, 0, 10, 10);
	assert_int_equal(g.npaths, 2);
	collect(f, N(f), 0, &g);
	assert_int_equal(g.ranks[0].status, CALLTREE_OK);
	check_path(&g, 0, "B", 1, 0, 10, 5);
	check_path(&g, 0, "B > A", 1, 0, 5, 5);
	check_path(&g, 0, "A", 1, 0, 5, 5);
	assert_int_equal(g.npaths, 3);
}

/* Two lanes, the second long enough for the radix sort proper (64 calls
 * or more): sorting a later lane must leave the calls already gathered
 * for an earlier one alone (each lane sorts in its own part of the
 * scratch). */
static void test_lane_offsets(void **state)
{
	struct tc c[83];
	size_t n = 0, i;
	struct got g;

	(void)state;
	c[n++] = (struct tc){0, A, 0, 10, 0, 0, -1, -1};
	c[n++] = (struct tc){0, IO, 20, 30, 0, 0, -1, -1};
	c[n++] = (struct tc){0, MAIN, 1000, 100000, 0, 0, 1, -1};
	/* the children in reverse: many runs, so it is sorted by default too */
	for (i = 80; i-- > 0;)
		c[n++] = (struct tc){0,
				     i % 2 ? FACTORIZE : Z,
				     1000 + 10 * (int64_t)i + 1,
				     1000 + 10 * (int64_t)i + 5,
				     0,
				     0,
				     1,
				     -1};
	collect(c, n, F_LANES, &g);
	assert_int_equal(g.ranks[0].status, CALLTREE_OK);
	assert_int_equal(g.ranks[0].lanes, 2);
	check_path(&g, 0, "A", 1, 0, 10, 10);
	check_path(&g, 0, "io", 1, 0, 10, 10);
	check_path(&g, 0, "main", 1, 0, 99000, 99000 - 80 * 4);
	check_path(&g, 0, "main > Z", 40, 0, 160, 160);
	check_path(&g, 0, "main > factorize", 40, 0, 160, 160);
	assert_int_equal(g.npaths, 5);
}

/* One rank of 1.8M calls in three regions, each region's calls in start
 * order: merged; with every rank's calls given back (test_big_rank_merged)
 * the merge also gives back what its runs have consumed as it goes,
 * which only a rank past 2^20 calls reaches. */
static void test_big_rank(void **state)
{
	const size_t k = 600000;
	const uint32_t region[3] = {MAIN, SOLVE, IO};
	int64_t *st = malloc(3 * k * sizeof(*st)), *du = malloc(3 * k * sizeof(*du));
	struct calltree_sink sink;
	struct calltree *t;
	struct got g;
	size_t i, r;

	(void)state;
	assert_non_null(st);
	assert_non_null(du);
	for (i = 0; i < k; i++) {
		st[i] = 10 * (int64_t)i; /* main [10i, 10i + 8] */
		du[i] = 8;
		st[k + i] = 10 * (int64_t)i + 1; /* solve [10i + 1, 10i + 3] */
		du[k + i] = 2;
		st[2 * k + i] = 10 * (int64_t)i + 4; /* io [10i + 4, 10i + 7] */
		du[2 * k + i] = 3;
	}
	t = begin(&g, nm);
	sink = got_sink(&g);
	for (r = 0; r < 3; r++) {
		struct calltree_row row;

		memset(&row, 0, sizeof(row));
		row.region = region[r];
		row.calls = k;
		row.has_events = 1;
		row.starts = st + r * k;
		row.durations = du + r * k;
		row.exclusive = -1;
		row.rank_last = r == 2;
		assert_int_equal(calltree_add(t, &row, &sink), 0);
	}
	assert_int_equal(calltree_finish(t, &sink), 0);
	calltree_free(t);
	free(st);
	free(du);
	assert_int_equal(g.ranks[0].status, CALLTREE_OK);
	check_path(&g, 0, "main", k, 0, (int64_t)(8 * k), (int64_t)(3 * k));
	check_path(&g, 0, "main > solve", k, 0, (int64_t)(2 * k), (int64_t)(2 * k));
	check_path(&g, 0, "main > io", k, 0, (int64_t)(3 * k), (int64_t)(3 * k));
	assert_int_equal(g.npaths, 3);
}

/* Starts too far apart to pack with the position in 64 bits (the sort's
 * qsort branch), with a tie of equal starts. */
static void test_wide_span(void **state)
{
	const int64_t far = INT64_C(1) << 62;
	const struct tc c[] = {
	    {0, MAIN, 0, 10, 0, 0, 0, 0},
	    {0, MAIN, far, far + 10, 0, 0, 0, 0},
	    {0, A, 1, 2, 0, 0, 0, 0},
	    {0, A, far, far + 4, 0, 0, 0, 0},
	    {0, B, far + 5, far + 6, 0, 0, 0, 0},
	};
	struct got g;

	(void)state;
	collect(c, N(c), 0, &g);
	assert_int_equal(g.ranks[0].status, CALLTREE_OK);
	check_path(&g, 0, "main", 2, 0, 20, 14);
	check_path(&g, 0, "main > A", 2, 0, 5, 5);
	check_path(&g, 0, "main > B", 1, 0, 1, 1);
	assert_int_equal(g.npaths, 3);
}

/* A rank whose rows the reader says hold more calls in all than the
 * budget (rank_calls) is given up at its first row, before any of its
 * calls is held: its rows' arrays (absent here) are never read; a rank
 * within the budget beside it keeps its tree. */
static void test_rank_calls_past_budget(void **state)
{
	int64_t s = 5, d = 10;
	struct calltree_row row = {
	    .rank = 0, .region = A, .calls = 3, .has_events = 1, .exclusive = -1, .rank_calls = 6};
	struct calltree_sink sink;
	struct calltree *t;
	struct got g;

	(void)state;
	t = begin(&g, nm);
	calltree_set_budget(t, 5);
	sink = got_sink(&g);
	assert_int_equal(calltree_add(t, &row, &sink), 0);
	row.region = B;
	row.rank_last = 1;
	assert_int_equal(calltree_add(t, &row, &sink), 0);
	row = (struct calltree_row){.rank = 1,
				    .region = MAIN,
				    .calls = 1,
				    .has_events = 1,
				    .starts = &s,
				    .durations = &d,
				    .exclusive = -1,
				    .rank_last = 1,
				    .rank_calls = 1};
	assert_int_equal(calltree_add(t, &row, &sink), 0);
	assert_int_equal(calltree_finish(t, &sink), 0);
	assert_int_equal(rank_info(&g, 0)->status, CALLTREE_TOO_MANY);
	assert_int_equal(rank_info(&g, 0)->calls, 6);
	assert_int_equal(rank_info(&g, 1)->status, CALLTREE_OK);
	check_path(&g, 1, "main", 1, 0, 10, 10);
	calltree_free(t);
}

/* An overlap leaves the rank without a tree (the pair named), the other
 * ranks keep theirs; the profile's own exclusive totals stand in. */
static void test_overlap(void **state)
{
	const struct tc c[] = {
	    {0, MAIN, 0, 100, 0, 0, 0, 0}, {0, A, 10, 50, 0, 0, 0, 0}, {0, B, 40, 60, 0, 0, 0, 0},
	    {1, MAIN, 0, 100, 0, 0, 0, 0}, {1, A, 10, 50, 0, 0, 0, 0},
	};
	int64_t s = 5, d = 10;
	const struct calltree_rankinfo *ri;
	struct calltree_sink sink;
	struct calltree_row row = {.region = A,
				   .calls = 1,
				   .has_events = 1,
				   .starts = &s,
				   .durations = &d,
				   .exclusive = 7};
	struct calltree *t;
	struct got g;

	(void)state;
	t = run(c, N(c), 0, &g, nm);
	ri = rank_info(&g, 0);
	assert_int_equal(ri->status, CALLTREE_OVERLAP);
	assert_int_equal(ri->paths, 0);
	assert_string_equal(nm[ri->region_a], "A");
	assert_string_equal(nm[ri->region_b], "B");
	assert_int_equal(ri->start_a, 10);
	assert_int_equal(ri->end_a, 50);
	assert_int_equal(ri->start_b, 40);
	assert_int_equal(ri->end_b, 60);
	assert_false(has_self(&g, 0, "main"));
	assert_int_equal(rank_info(&g, 1)->status, CALLTREE_OK);
	check_path(&g, 1, "main > A", 1, 0, 40, 40);
	assert_int_equal(g.npaths, 2);
	calltree_free(t);

	/* with the file's exclusive total: that is the self time */
	t = begin(&g, nm);
	sink = got_sink(&g);
	assert_int_equal(calltree_add(t, &row, &sink), 0);
	s = 10;
	row.region = B;
	row.exclusive = -1;
	row.rank_last = 1;
	assert_int_equal(calltree_add(t, &row, &sink), 0);
	assert_int_equal(g.ranks[0].status, CALLTREE_OVERLAP);
	{
		enum calltree_self_source src;

		assert_int_equal(self_of(&g, 0, "A", &src), 7);
		assert_int_equal(src, CALLTREE_SELF_FILE);
		assert_false(has_self(&g, 0, "B"));
	}
	calltree_free(t);
}

/* An overlap found in a rank's second lane, after its first lane's calls
 * counted paths an earlier rank made and made one of their own: the rank
 * has none of them, and the ranks after, with the same paths, have their
 * own numbers and nothing of the overlapping rank's. */
static void test_overlap_late_lane(void **state)
{
	const struct tc c[] = {
	    {0, MAIN, 0, 100, 0, 0, -1, -1}, {0, A, 10, 50, 0, 0, -1, -1},
	    {1, MAIN, 0, 100, 0, 0, -1, -1}, {1, A, 10, 50, 0, 0, -1, -1},
	    {1, A, 200, 210, 0, 0, 1, -1},   {1, B, 20, 30, 0, 0, -1, -1},
	    {1, B, 205, 220, 0, 0, 1, -1},   {2, MAIN, 0, 100, 0, 0, -1, -1},
	    {2, A, 10, 40, 0, 0, -1, -1},    {2, B, 20, 30, 0, 0, -1, -1},
	    {3, MAIN, 0, 100, 0, 0, -1, -1}, {3, Z, 10, 20, 0, 0, -1, -1},
	    {4, MAIN, 0, 100, 0, 0, -1, -1}, {4, A, 10, 40, 0, 0, -1, -1},
	    {4, B, 20, 30, 0, 0, -1, -1},
	};
	struct got g;

	(void)state;
	collect(c, N(c), F_LANES, &g);
	assert_int_equal(rank_info(&g, 0)->status, CALLTREE_OK);
	assert_int_equal(rank_info(&g, 1)->status, CALLTREE_OVERLAP);
	assert_int_equal(rank_info(&g, 1)->paths, 0);
	assert_int_equal(rank_info(&g, 1)->paths_issue, CALLTREE_PATHS_OK);
	assert_string_equal(nm[rank_info(&g, 1)->region_a], "A");
	assert_int_equal(rank_info(&g, 1)->start_b, 205);
	assert_int_equal(rank_info(&g, 2)->status, CALLTREE_OK);
	assert_int_equal(rank_info(&g, 2)->paths, 3);
	check_path(&g, 0, "main", 1, 0, 100, 60);
	check_path(&g, 2, "main", 1, 0, 100, 70);
	check_path(&g, 2, "main > A", 1, 0, 30, 20);
	check_path(&g, 2, "main > A > B", 1, 0, 10, 10);
	/* each path made once, though rank 3 makes a new one after */
	check_path(&g, 3, "main > Z", 1, 0, 10, 10);
	check_path(&g, 4, "main > A > B", 1, 0, 10, 10);
	assert_int_equal(g.npaths, 10);
	assert_int_equal(g.nnodes, 4);
	assert_int_equal(self_of(&g, 2, "main", NULL), 70);
}

/* Calls nest only within a lane; a negative thread or task is the main
 * lane, like no column at all. */
static void test_lanes(void **state)
{
	const struct tc c[] = {
	    {0, MAIN, 0, 100, 0, 0, -1, -1}, {0, A, 10, 20, 0, 0, 1, -1},
	    {0, A, 30, 40, 0, 0, -7, -1},    {0, B, 12, 18, 0, 0, 1, -1},
	    {0, B, 50, 60, 0, 0, 1, 4},	     {0, Z, 15, 16, 0, 0, 1, 4},
	};
	struct got g;

	(void)state;
	collect(c, N(c), F_LANES, &g);
	assert_int_equal(g.ranks[0].status, CALLTREE_OK);
	assert_int_equal(g.ranks[0].lanes, 3);
	check_path(&g, 0, "main", 1, 0, 100, 90);
	check_path(&g, 0, "main > A", 1, 0, 10, 10); /* thread -7: the main lane */
	check_path(&g, 0, "A", 1, 0, 10, 4);	     /* thread 1 */
	check_path(&g, 0, "A > B", 1, 0, 6, 6);
	check_path(&g, 0, "B", 1, 0, 10, 10); /* thread 1, task 4 */
	check_path(&g, 0, "Z", 1, 0, 1, 1);   /* same lane, not inside B */
	assert_int_equal(g.npaths, 6);
	assert_int_equal(self_of(&g, 0, "A", NULL), 14);
}

/* Several roots, and a region called at several places of the tree. */
static void test_roots(void **state)
{
	const struct tc c[] = {
	    {0, A, 0, 10, 0, 0, 0, 0},	 {0, B, 20, 30, 0, 0, 0, 0},  {0, A, 40, 50, 0, 0, 0, 0},
	    {0, IO, 42, 44, 0, 0, 0, 0}, {0, IO, 24, 25, 0, 0, 0, 0},
	};
	struct got g;

	(void)state;
	collect(c, N(c), 0, &g);
	check_path(&g, 0, "A", 2, 0, 20, 18);
	check_path(&g, 0, "B", 1, 0, 10, 9);
	check_path(&g, 0, "A > io", 1, 0, 2, 2);
	check_path(&g, 0, "B > io", 1, 0, 1, 1);
	assert_int_equal(g.npaths, 4);
	/* io is called from two places: each path has its own durations */
	assert_true(find_path(&g, 0, "A")->whole);
	assert_false(find_path(&g, 0, "A > io")->whole);
	assert_int_equal(find_path(&g, 0, "A > io")->durs[0], 2);
	assert_int_equal(find_path(&g, 0, "B > io")->durs[0], 1);
	assert_int_equal(self_of(&g, 0, "io", NULL), 3);
	/* nodes shared by the file: a second builder run is independent */
	assert_int_equal(g.nnodes, 4);
}

/* With ids the ids decide, also where containment would not: identical
 * intervals as siblings, a negative parent as a root; ids are per rank. */
static void test_ids(void **state)
{
	const struct tc c[] =
	    {
		{0, MAIN, 0, 100, 5, -1, 0, 0}, {0, A, 10, 50, 6, 5, 0, 0},
		{0, B, 10, 50, 7, 5, 0, 0},	{0, B, 60, 70, 9, 5, 0, 0},
		{0, Z, 20, 30, 8, -3, 0, 0}, /* a root by its parent id */
		{1, MAIN, 0, 100, 5, -1, 0, 0}, {1, B, 10, 50, 6, 5, 0, 0},
		{1, A, 20, 30, 7, 6, 0, 0},
	    };
	struct got g;

	(void)state;
	collect(c, N(c), F_IDS, &g);
	assert_int_equal(rank_info(&g, 0)->status, CALLTREE_OK);
	assert_int_equal(rank_info(&g, 0)->method, CALLTREE_IDS);
	assert_int_equal(rank_info(&g, 1)->method, CALLTREE_IDS);
	check_path(&g, 0, "main", 1, 0, 100, 100 - 40 - 40 - 10);
	check_path(&g, 0, "main > A", 1, 0, 40, 40);
	check_path(&g, 0, "main > B", 2, 0, 50, 50);
	check_path(&g, 0, "Z", 1, 0, 10, 10);
	check_path(&g, 1, "main > B > A", 1, 0, 10, 10);
	check_path(&g, 1, "main > B", 1, 0, 40, 30);
}

/* Ids that are not used: the tree comes from containment, and why is
 * said; an unknown parent makes a root; a parent in another lane too. */
static void test_ids_issues(void **state)
{
	const struct tc dup[] = {{0, MAIN, 0, 100, 1, -1, 0, 0}, {0, A, 10, 20, 1, -1, 0, 0}};
	const struct tc order[] = {{0, MAIN, 0, 100, 1, -1, 0, 0}, {0, A, 10, 20, 0, 1, 0, 0}};
	const struct tc outside[] = {{0, MAIN, 0, 100, 1, -1, 0, 0}, {0, A, 90, 120, 2, 1, 0, 0}};
	const struct tc children[] = {
	    {0, MAIN, 0, 10, 1, -1, 0, 0}, {0, A, 0, 8, 2, 1, 0, 0}, {0, B, 2, 10, 3, 1, 0, 0}};
	const struct tc orphan[] = {{0, MAIN, 0, 100, 1, -1, 0, 0}, {0, A, 10, 20, 2, 0, 0, 0}};
	const struct tc lane[] = {{0, MAIN, 0, 100, 1, -1, 0, 0}, {0, A, 10, 20, 2, 1, 3, 0}};
	const struct tc negid[] = {{0, MAIN, 0, 100, 1, -1, 0, 0}, {0, A, 10, 20, -1, 1, 0, 0}};
	struct got g;
	struct calltree *t;

	(void)state;
	t = run(dup, N(dup), F_IDS, &g, nm);
	assert_int_equal(g.ranks[0].method, CALLTREE_CONTAINMENT);
	assert_int_equal(g.ranks[0].ids_issue, CALLTREE_IDS_DUPLICATE);
	check_path(&g, 0, "main > A", 1, 0, 10, 10);
	calltree_free(t);
	t = run(order, N(order), F_IDS, &g, nm);
	assert_int_equal(g.ranks[0].ids_issue, CALLTREE_IDS_ORDER);
	check_path(&g, 0, "main > A", 1, 0, 10, 10);
	calltree_free(t);
	/* the ids say A is main's child, but it ends after main: containment
	 * then finds the overlap */
	t = run(outside, N(outside), F_IDS, &g, nm);
	assert_int_equal(g.ranks[0].ids_issue, CALLTREE_IDS_OUTSIDE);
	assert_int_equal(g.ranks[0].status, CALLTREE_OVERLAP);
	calltree_free(t);
	t = run(children, N(children), F_IDS, &g, nm);
	assert_int_equal(g.ranks[0].ids_issue, CALLTREE_IDS_CHILDREN);
	assert_int_equal(g.ranks[0].status, CALLTREE_OVERLAP);
	calltree_free(t);
	t = run(orphan, N(orphan), F_IDS, &g, nm);
	assert_int_equal(g.ranks[0].method, CALLTREE_IDS);
	assert_int_equal(g.ranks[0].orphans, 1);
	check_path(&g, 0, "A", 1, 0, 10, 10);
	check_path(&g, 0, "main", 1, 0, 100, 100);
	calltree_free(t);
	t = run(lane, N(lane), F_IDS | F_LANES, &g, nm);
	assert_int_equal(g.ranks[0].method, CALLTREE_IDS);
	assert_int_equal(g.ranks[0].crosslane, 1);
	check_path(&g, 0, "A", 1, 0, 10, 10);
	calltree_free(t);
	t = run(negid, N(negid), F_IDS, &g, nm);
	assert_int_equal(g.ranks[0].method, CALLTREE_CONTAINMENT);
	assert_int_equal(g.ranks[0].ids_issue, CALLTREE_IDS_PARTIAL);
	check_path(&g, 0, "main > A", 1, 0, 10, 10);
	calltree_free(t);
}

/* Sparse ids (not 0, 1, 2...) work the same. */
static void test_ids_sparse(void **state)
{
	const struct tc c[] = {
	    {0, MAIN, 0, 100, INT64_C(1) << 50, -1, 0, 0},
	    {0, A, 10, 50, (INT64_C(1) << 50) + 1000000, INT64_C(1) << 50, 0, 0},
	    {0, A, 20, 30, INT64_C(1) << 60, (INT64_C(1) << 50) + 1000000, 0, 0},
	};
	struct got g;

	(void)state;
	collect(c, N(c), F_IDS, &g);
	assert_int_equal(g.ranks[0].method, CALLTREE_IDS);
	check_path(&g, 0, "main > A", 1, 1, 40, 40);
}

/* Rows of one rank spread over the read (no rank_last): the ranks are
 * built at the end, in the order they began; within the budget of held
 * calls the largest rank is given up first. */
static void test_budget(void **state)
{
	const struct tc c[] = {
	    {0, MAIN, 0, 100, 0, 0, 0, 0}, {0, A, 10, 20, 0, 0, 0, 0}, {0, A, 30, 40, 0, 0, 0, 0},
	    {1, MAIN, 0, 100, 0, 0, 0, 0}, {1, A, 10, 20, 0, 0, 0, 0},
	};
	struct calltree *t;
	struct got g;

	(void)state;
	t = begin(&g, nm);
	calltree_set_budget(t, 4);
	feed(t, c, N(c), F_NOLAST, &g);
	assert_int_equal(g.nranks, 2);
	assert_int_equal(g.ranks[0].rank, 0);
	assert_int_equal(g.ranks[0].status, CALLTREE_TOO_MANY);
	assert_int_equal(g.ranks[0].calls, 3);
	assert_int_equal(g.ranks[1].status, CALLTREE_OK);
	check_path(&g, 1, "main > A", 1, 0, 10, 10);
	calltree_free(t);

	/* built on the worker: the rank in its hands is reaped (its calls
	 * let go) before one being collected would be given up */
	t = begin(&g, nm);
	calltree_set_threaded(t);
	calltree_set_budget(t, 4);
	feed(t, c, N(c), 0, &g);
	assert_int_equal(rank_info(&g, 0)->status, CALLTREE_OK);
	assert_int_equal(rank_info(&g, 1)->status, CALLTREE_OK);
	check_path(&g, 0, "main > A", 2, 0, 20, 20);
	calltree_free(t);

	/* one rank larger than the budget */
	t = begin(&g, nm);
	calltree_set_budget(t, 2);
	feed(t, c, N(c), 0, &g);
	assert_int_equal(rank_info(&g, 0)->status, CALLTREE_TOO_MANY);
	assert_int_equal(rank_info(&g, 1)->status, CALLTREE_OK);
	calltree_free(t);
}

/* Aggregate rows: their exclusive totals as self times, no status; a rank
 * mixing them with event rows has no tree. */
static void test_aggregate(void **state)
{
	struct calltree_sink sink;
	struct calltree_row row = {.region = MAIN, .calls = 3, .exclusive = 70};
	struct calltree *t;
	struct got g;
	int64_t s = 0, d = 10;
	enum calltree_self_source src;

	(void)state;
	t = begin(&g, nm);
	sink = got_sink(&g);
	assert_int_equal(calltree_add(t, &row, &sink), 0);
	row.region = A;
	row.exclusive = -1;
	row.rank_last = 1;
	assert_int_equal(calltree_add(t, &row, &sink), 0);
	assert_int_equal(g.nranks, 0);
	assert_int_equal(self_of(&g, 0, "main", &src), 70);
	assert_int_equal(src, CALLTREE_SELF_FILE);
	assert_false(has_self(&g, 0, "A"));
	/* rank 1: an event row and an aggregate row with calls */
	row.rank = 1;
	row.rank_last = 0;
	row.has_events = 1;
	row.calls = 1;
	row.starts = &s;
	row.durations = &d;
	assert_int_equal(calltree_add(t, &row, &sink), 0);
	row.region = B;
	row.has_events = 0;
	row.starts = row.durations = NULL;
	row.exclusive = 4;
	row.rank_last = 1;
	assert_int_equal(calltree_add(t, &row, &sink), 0);
	assert_int_equal(rank_info(&g, 1)->status, CALLTREE_INCOMPLETE);
	assert_int_equal(self_of(&g, 1, "B", NULL), 4);
	assert_false(has_self(&g, 1, "A"));
	assert_int_equal(g.npaths, 0);
	calltree_free(t);
}

/* A path of more than CALLTREE_MAX_DEPTH names: no paths for the rank,
 * its self times kept. */
static void test_too_deep(void **state)
{
	const size_t depth = CALLTREE_MAX_DEPTH + 10;
	int64_t *st = calloc(depth, sizeof(*st)), *du = calloc(depth, sizeof(*du));
	int64_t *st2 = calloc(depth, sizeof(*st2)), *du2 = calloc(depth, sizeof(*du2));
	struct calltree_sink sink;
	struct calltree_row row;
	struct calltree *t;
	struct got g;
	size_t i, na = 0, nb = 0;

	(void)state;
	assert_non_null(st);
	assert_non_null(du);
	assert_non_null(st2);
	assert_non_null(du2);
	/* A > B > A > B ... each call 1 ns inside its parent on both sides */
	for (i = 0; i < depth; i++) {
		if (i % 2 == 0) {
			st[na] = (int64_t)i;
			du[na++] = (int64_t)(2 * (depth - i));
		} else {
			st2[nb] = (int64_t)i;
			du2[nb++] = (int64_t)(2 * (depth - i));
		}
	}
	t = begin(&g, nm);
	sink = got_sink(&g);
	memset(&row, 0, sizeof(row));
	row.region = A;
	row.has_events = 1;
	row.calls = na;
	row.starts = st;
	row.durations = du;
	row.exclusive = -1;
	assert_int_equal(calltree_add(t, &row, &sink), 0);
	row.region = B;
	row.calls = nb;
	row.starts = st2;
	row.durations = du2;
	row.rank_last = 1;
	assert_int_equal(calltree_add(t, &row, &sink), 0);
	assert_int_equal(g.ranks[0].status, CALLTREE_OK);
	assert_int_equal(g.ranks[0].paths_issue, CALLTREE_PATHS_DEEP);
	assert_int_equal(g.ranks[0].paths, 0);
	assert_int_equal(g.npaths, 0);
	/* every call but the innermost has 1 ns of its own on each side */
	assert_int_equal(self_of(&g, 0, "A", NULL) + self_of(&g, 0, "B", NULL),
			 (int64_t)(2 * (depth - 1) + 2));
	/* and each region's own: depth / 2 calls of 2 ns each (the rows'
	 * self times are summed on past where the paths are given up) */
	assert_int_equal(self_of(&g, 0, "A", NULL), (int64_t)depth);
	assert_int_equal(self_of(&g, 0, "B", NULL), (int64_t)depth);
	calltree_free(t);

	/* the same chain, then two calls that overlap: the rank has no tree,
	 * and no paths issue either, though the chain was too deep before
	 * the overlap came */
	{
		int64_t zs[] = {5000, 5005}, zd[] = {10, 15};

		t = begin(&g, nm);
		sink = got_sink(&g);
		row.region = A;
		row.calls = na;
		row.starts = st;
		row.durations = du;
		row.rank_last = 0;
		assert_int_equal(calltree_add(t, &row, &sink), 0);
		row.region = B;
		row.calls = nb;
		row.starts = st2;
		row.durations = du2;
		assert_int_equal(calltree_add(t, &row, &sink), 0);
		row.region = Z;
		row.calls = 2;
		row.starts = zs;
		row.durations = zd;
		row.rank_last = 1;
		assert_int_equal(calltree_add(t, &row, &sink), 0);
		assert_int_equal(g.ranks[0].status, CALLTREE_OVERLAP);
		assert_int_equal(g.ranks[0].paths_issue, CALLTREE_PATHS_OK);
		assert_int_equal(g.ranks[0].start_b, 5005);
		assert_int_equal(g.npaths, 0);
		calltree_free(t);
	}
	free(st);
	free(du);
	free(st2);
	free(du2);
}

/* A large row whose durations are the reader's own: the builder gives
 * their pages back as it copies them (the rest reads zeros after), and the
 * numbers are those of a row it copies whole. */
static void test_durations_given_back(void **state)
{
	const size_t n = (size_t)1 << 20;
	int64_t *st = malloc(n * sizeof(*st)), *du = NULL;
	struct calltree_sink sink;
	struct calltree_row row;
	struct calltree *t;
	struct got g;
	size_t i, zeros;
	int own;

	(void)state;
	assert_non_null(st);
	assert_int_equal(posix_memalign((void **)&du, 4096, n * sizeof(*du)), 0);
	for (i = 0; i < n; i++)
		st[i] = (int64_t)i * 10;
	for (own = 0; own < 2; own++) {
		for (i = 0; i < n; i++)
			du[i] = 5 + (int64_t)(i % 3);
		t = begin(&g, nm);
		calltree_set_drop(t, 1024);
		sink = got_sink(&g);
		memset(&row, 0, sizeof(row));
		row.region = A;
		row.has_events = 1;
		row.calls = n;
		row.starts = st;
		row.durations = du;
		row.exclusive = -1;
		row.rank_last = 1;
		row.durations_own = own;
		assert_int_equal(calltree_add(t, &row, &sink), 0);
		calltree_free(t);
		assert_int_equal(g.ranks[0].status, CALLTREE_OK);
		check_path(&g, 0, "A", n, 0, (int64_t)(n * 6 - 1), (int64_t)(n * 6 - 1));
		for (i = 0, zeros = 0; i < n; i++)
			zeros += du[i] == 0;
		if (own)
			assert_true(zeros > n / 2);
		else
			assert_int_equal(zeros, 0);
	}
	free(st);
	free(du);
}

/* Rows under the threshold, given to a rank whose calls reach it: only its
 * last row (the rank is built next) has its own durations given back.
 * Scenario 0: the second of three rows reaches it, the third is the last;
 * 1: the last row is the one that reaches it. */
static void test_durations_given_back_rank(void **state)
{
	const size_t n = (size_t)1 << 19, n3 = 4096;
	const size_t len[3] = {n, n, n3};
	int64_t *st = malloc(n * sizeof(*st)), *du[3] = {NULL, NULL, NULL};
	struct calltree_sink sink;
	struct calltree_row row;
	struct calltree *t;
	struct got g;
	size_t i, k, zeros;
	int sc;

	(void)state;
	assert_non_null(st);
	for (sc = 0; sc < 2; sc++) {
		for (k = 0; k < 3; k++) {
			assert_int_equal(
			    posix_memalign((void **)&du[k], 4096, len[k] * sizeof(*du[k])), 0);
			for (i = 0; i < len[k]; i++)
				du[k][i] = 5;
		}
		t = begin(&g, nm);
		calltree_set_drop(t, sc == 0 ? 2 * n : n + n3);
		sink = got_sink(&g);
		memset(&row, 0, sizeof(row));
		row.has_events = 1;
		row.starts = st;
		row.exclusive = -1;
		row.durations_own = 1;
		for (k = 0; k < 3; k++) {
			if (sc == 1 && k == 1)
				continue; /* A, then Z */
			row.region = k == 0 ? A : k == 1 ? B : Z;
			row.calls = len[k];
			row.durations = du[k];
			row.rank_last = k == 2;
			/* each row's calls after the last's: no overlap */
			for (i = 0; i < len[k]; i++)
				st[i] = (int64_t)(k * n + i) * 10;
			assert_int_equal(calltree_add(t, &row, &sink), 0);
		}
		calltree_free(t);
		assert_int_equal(g.ranks[0].status, CALLTREE_OK);
		check_path(&g, 0, "A", n, 0, (int64_t)n * 5, (int64_t)n * 5);
		check_path(&g, 0, "Z", n3, 0, (int64_t)n3 * 5, (int64_t)n3 * 5);
		for (k = 0; k < 3; k++) {
			for (i = 0, zeros = 0; i < len[k]; i++)
				zeros += du[k][i] == 0;
			if (k < 2)
				assert_int_equal(zeros, 0);
			else
				assert_true(zeros > n3 / 2);
			free(du[k]);
		}
	}
	free(st);
}

/* ---- the real profiles ---- */

struct realctx {
	struct calltree *t;
	struct calltree_sink sink;
};

static int real_row(void *ctx, const struct h5prof_row *row)
{
	struct realctx *c = ctx;
	struct calltree_row r;

	ingest_child_tree_row(&r, row);
	return calltree_add(c->t, &r, &c->sink);
}

/* Build on the worker thread in run_file() (test_threaded). */
static int use_thread;

/* Read path through h5prof and the builder. */
static void run_file(const char *path, struct got *g)
{
	struct h5prof *p;
	struct realctx c;

	memset(g, 0, sizeof(*g));
	assert_int_equal(h5prof_open(&p, path), 0);
	g->names = (const char *const *)h5prof_info(p)->region_names;
	assert_int_equal(calltree_new(&c.t), 0);
	tune(c.t);
	if (use_thread)
		calltree_set_threaded(c.t);
	c.sink = got_sink(g);
	assert_int_equal(h5prof_read(p, real_row, &c), 0);
	assert_int_equal(calltree_finish(c.t, &c.sink), 0);
	calltree_free(c.t);
	/* names are used after the read: copy them out of the handle */
	{
		size_t i, n = h5prof_info(p)->num_regions;
		char **names = calloc(n, sizeof(*names));

		assert_non_null(names);
		for (i = 0; i < n; i++)
			names[i] = strdup(g->names[i]);
		g->names = (const char *const *)names;
	}
	h5prof_free(p);
}

/* Read tests/data/real/NAME through h5prof and the builder. */
static void run_real(const char *name, struct got *g)
{
	char rel[200];

	snprintf(rel, sizeof(rel), "real/%s", name);
	run_file(tu_fixture(rel), g);
}

static void free_names(struct got *g, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free((char *)g->names[i]);
	free((char **)g->names);
}

/* fib-recursive.h5: by name fibonacci sums to 66.8 ms over 41 calls, but
 * main > fibonacci is 1 call of 12.013 ms, all its own; main keeps
 * 0.017 ms. */
static void test_real_fib(void **state)
{
	struct got g;
	int64_t all = 0;
	size_t i;

	(void)state;
	run_real("fib-recursive.h5", &g);
	assert_int_equal(g.nranks, 1);
	assert_int_equal(g.ranks[0].status, CALLTREE_OK);
	assert_int_equal(g.ranks[0].calls, 42);
	assert_int_equal(g.npaths, 2);
	check_path(&g, 0, "main > fibonacci", 1, 40, 12013246, 12013246);
	check_path(&g, 0, "main", 1, 0, 12030479, 17233);
	assert_int_equal(self_of(&g, 0, "fibonacci", NULL), 12013246);
	assert_int_equal(self_of(&g, 0, "main", NULL), 17233);
	for (i = 0; i < g.nselfs; i++)
		all += g.selfs[i].self;
	assert_int_equal(all, 12030479); /* self times add up to the root */
	free_names(&g, 2);
}

/* nested-base.h5: main > solve 72.7 ms, 2.89 ms of it its own. */
static void test_real_nested(void **state)
{
	struct got g;
	const struct gpath *p;

	(void)state;
	run_real("nested-base.h5", &g);
	assert_int_equal(g.ranks[0].status, CALLTREE_OK);
	p = find_path(&g, 0, "main > solve");
	assert_int_equal(p->calls, 30);
	assert_int_equal(p->nested, 0);
	assert_true(p->total >= 72650000 && p->total < 72750000);
	assert_true(p->self >= 2885000 && p->self < 2895000);
	find_path(&g, 0, "main > solve > assemble");
	find_path(&g, 0, "main > solve > factorize");
	find_path(&g, 0, "main > io");
	assert_int_equal(g.npaths, 5);
	free_names(&g, 5);
}

/* mpi2-base.h5: two ranks, each with main > refine (recursive, depth 3)
 * and main > timestep > solve > precondition. */
static void test_real_mpi2(void **state)
{
	struct got g;
	uint32_t rank;

	(void)state;
	run_real("mpi2-base.h5", &g);
	assert_int_equal(g.nranks, 2);
	for (rank = 0; rank < 2; rank++) {
		const struct gpath *p = find_path(&g, rank, "main > refine");

		assert_int_equal(rank_info(&g, rank)->status, CALLTREE_OK);
		assert_int_equal(p->calls, 1);
		assert_int_equal(p->nested, 3);
		assert_int_equal(p->total, p->self);
		p = find_path(&g, rank, "main > timestep");
		assert_int_equal(p->calls, 25);
		find_path(&g, rank, "main > timestep > solve > precondition");
		find_path(&g, rank, "main > timestep > halo_exchange");
	}
	free_names(&g, 9);
}

/* ---- generated files: the reader and the builder together ---- */

/* Rank 0: main [0, 1000] > A [100, 900] > A [200, 400] > B [250, 300],
 * main > Z [950, 950] (zero-length), and on thread 1 a root B [150, 160];
 * rank 1: main [0, 500] > B [10, 20], its ids 0 and 1 as on rank 0. */
static void gen_rows(struct h5write_row rows[6])
{
	static const int64_t s0[] = {0}, e0[] = {1000}, c0[] = {0}, p0[] = {-1}, t0[] = {-1};
	static const int64_t s1[] = {100, 200}, e1[] = {900, 400}, c1[] = {1, 2}, p1[] = {0, 1},
			     t1[] = {-1, -1};
	static const int64_t s2[] = {250, 150}, e2[] = {300, 160}, c2[] = {3, 5}, p2[] = {2, -1},
			     t2[] = {-1, 1};
	static const int64_t s3[] = {950}, e3[] = {950}, c3[] = {4}, p3[] = {0}, t3[] = {-1};
	static const int64_t s4[] = {0}, e4[] = {500}, c4[] = {0}, p4[] = {-1};
	static const int64_t s5[] = {10}, e5[] = {20}, c5[] = {1}, p5[] = {0};
	const struct {
		uint32_t rank;
		const char *region;
		size_t calls;
		const int64_t *s, *e, *c, *p, *t;
	} v[6] = {{0, "main", 1, s0, e0, c0, p0, t0},	{0, "A", 2, s1, e1, c1, p1, t1},
		  {0, "B", 2, s2, e2, c2, p2, t2},	{0, "Z", 1, s3, e3, c3, p3, t3},
		  {1, "main", 1, s4, e4, c4, p4, NULL}, {1, "B", 1, s5, e5, c5, p5, NULL}};
	size_t i;

	for (i = 0; i < 6; i++)
		rows[i] = (struct h5write_row){.rank = v[i].rank,
					       .region = v[i].region,
					       .calls = v[i].calls,
					       .starts = v[i].s,
					       .ends = v[i].e,
					       .source_line = -1,
					       .call_ids = v[i].c,
					       .parent_ids = v[i].p,
					       .thread_ids = v[i].t};
}

/* The same tree from every layout, with ids or from containment. */
static void test_generated(void **state)
{
	struct h5write_row rows[6];
	struct h5write_profile prof = {rows, 6, NULL, 0};
	int schema, ids;

	(void)state;
	gen_rows(rows);
	for (schema = 1; schema <= 3; schema++) {
		for (ids = 0; ids <= 1; ids++) {
			struct h5write_opts o = tu_h5_opts(schema, 0);
			const char *path = tu_path("gen.h5");
			struct got g;

			o.ids = ids;
			o.lanes = 1;
			assert_int_equal(h5write_file(path, &prof, &o), 0);
			run_file(path, &g);
			assert_int_equal(g.nranks, 2);
			assert_int_equal(rank_info(&g, 0)->method,
					 ids ? CALLTREE_IDS : CALLTREE_CONTAINMENT);
			assert_int_equal(rank_info(&g, 0)->lanes, 2);
			check_path(&g, 0, "main", 1, 0, 1000, 1000 - 800 - 0);
			check_path(&g, 0, "main > A", 1, 1, 800, 800 - 50);
			check_path(&g, 0, "main > A > B", 1, 0, 50, 50);
			check_path(&g, 0, "main > Z", 1, 0, 0, 0);
			check_path(&g, 0, "B", 1, 0, 10, 10);
			check_path(&g, 1, "main", 1, 0, 500, 490);
			check_path(&g, 1, "main > B", 1, 0, 10, 10);
			assert_int_equal(g.npaths, 7);
			/* the paths shared by both ranks are one node each */
			assert_int_equal(g.nnodes, 6);
			assert_int_equal(self_of(&g, 0, "B", NULL), 60);
			free_names(&g, 4);
		}
	}
}

/* The same results, in the same order, with the trees built on the
 * worker thread. */
static void test_threaded(void **state)
{
	static const char *const files[] = {"real/mpi2-base.h5", "real/fib-recursive.h5"};
	struct h5write_row rows[6];
	struct h5write_profile prof = {rows, 6, NULL, 0};
	struct h5write_opts o = tu_h5_opts(3, 0);
	struct got *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	size_t i, f;

	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	gen_rows(rows);
	o.ids = o.lanes = 1;
	assert_int_equal(h5write_file(tu_path("thr.h5"), &prof, &o), 0);
	for (f = 0; f < 3; f++) {
		const char *path = f < 2 ? tu_fixture(files[f]) : tu_path("thr.h5");

		use_thread = 0;
		run_file(path, a);
		use_thread = 1;
		run_file(path, b);
		use_thread = 0;
		assert_int_equal(a->nranks, b->nranks);
		assert_memory_equal(a->ranks, b->ranks, a->nranks * sizeof(a->ranks[0]));
		assert_int_equal(a->nnodes, b->nnodes);
		assert_memory_equal(a->nodes, b->nodes, a->nnodes * sizeof(a->nodes[0]));
		assert_int_equal(a->npaths, b->npaths);
		assert_memory_equal(a->paths, b->paths, a->npaths * sizeof(a->paths[0]));
		assert_int_equal(a->nselfs, b->nselfs);
		assert_memory_equal(a->selfs, b->selfs, a->nselfs * sizeof(a->selfs[0]));
		for (i = 0; i < 2; i++)
			free_names(i ? b : a, f == 0 ? 9 : f == 1 ? 2 : 4);
	}
	free(a);
	free(b);
}

/* Test f run again with the builders tuned by tune_HOW: named f_HOW. */
#define TUNED(f, how)                                                                              \
	{                                                                                          \
#f "_" #how, f, tune_##how, tune_reset, NULL                                       \
	}

TU_MAIN(NULL, NULL,
	{
	    cmocka_unit_test(test_containment),
	    cmocka_unit_test(test_recursion),
	    cmocka_unit_test(test_a_b_a),
	    cmocka_unit_test(test_zero_length),
	    cmocka_unit_test(test_identical),
	    cmocka_unit_test(test_lane_offsets),
	    cmocka_unit_test(test_big_rank),
	    cmocka_unit_test(test_wide_span),
	    cmocka_unit_test(test_rank_calls_past_budget),
	    cmocka_unit_test(test_overlap),
	    cmocka_unit_test(test_overlap_late_lane),
	    cmocka_unit_test(test_durations_given_back),
	    cmocka_unit_test(test_durations_given_back_rank),
	    cmocka_unit_test(test_lanes),
	    cmocka_unit_test(test_roots),
	    cmocka_unit_test(test_ids),
	    cmocka_unit_test(test_ids_issues),
	    cmocka_unit_test(test_ids_sparse),
	    cmocka_unit_test(test_budget),
	    cmocka_unit_test(test_aggregate),
	    cmocka_unit_test(test_too_deep),
	    cmocka_unit_test(test_real_fib),
	    cmocka_unit_test(test_real_nested),
	    cmocka_unit_test(test_real_mpi2),
	    cmocka_unit_test(test_generated),
	    cmocka_unit_test(test_threaded),
	    /* again, every lane sorted; then every lane merged (up to 256
	     * runs) and each rank's calls given back once sorted */
	    TUNED(test_containment, sorted),
	    TUNED(test_recursion, sorted),
	    TUNED(test_a_b_a, sorted),
	    TUNED(test_zero_length, sorted),
	    TUNED(test_identical, sorted),
	    TUNED(test_lane_offsets, sorted),
	    TUNED(test_big_rank, sorted),
	    TUNED(test_wide_span, sorted),
	    TUNED(test_overlap, sorted),
	    TUNED(test_lanes, sorted),
	    TUNED(test_roots, sorted),
	    TUNED(test_ids, sorted),
	    TUNED(test_ids_issues, sorted),
	    TUNED(test_ids_sparse, sorted),
	    TUNED(test_budget, sorted),
	    TUNED(test_aggregate, sorted),
	    TUNED(test_too_deep, sorted),
	    TUNED(test_real_fib, sorted),
	    TUNED(test_real_nested, sorted),
	    TUNED(test_real_mpi2, sorted),
	    TUNED(test_generated, sorted),
	    TUNED(test_threaded, sorted),
	    TUNED(test_containment, merged),
	    TUNED(test_recursion, merged),
	    TUNED(test_a_b_a, merged),
	    TUNED(test_zero_length, merged),
	    TUNED(test_identical, merged),
	    TUNED(test_lane_offsets, merged),
	    TUNED(test_big_rank, merged),
	    TUNED(test_wide_span, merged),
	    TUNED(test_overlap, merged),
	    TUNED(test_lanes, merged),
	    TUNED(test_roots, merged),
	    TUNED(test_ids, merged),
	    TUNED(test_ids_issues, merged),
	    TUNED(test_ids_sparse, merged),
	    TUNED(test_budget, merged),
	    TUNED(test_aggregate, merged),
	    TUNED(test_too_deep, merged),
	    TUNED(test_real_fib, merged),
	    TUNED(test_real_nested, merged),
	    TUNED(test_real_mpi2, merged),
	    TUNED(test_generated, merged),
	    TUNED(test_threaded, merged),
	})
