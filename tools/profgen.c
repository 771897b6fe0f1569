/*
 * profgen.c - random valid profiles from a seed (see profgen.h).
 *
 * Two random streams: the structure stream (seeded by the seed alone)
 * decides everything but time: the layout, sizes, names, rows, call trees,
 * which rows have GPU times, the metadata; the time stream (seeded by the
 * seed and the variant) draws durations, gaps and GPU times, in an order
 * the structure fixes.  So a variant has its seed's structure.
 *
 * The calls of a rank are drawn per (rank, region) row first, then dealt
 * to the rank's lanes and arranged per lane as a random forest: each call
 * becomes a root or the child of an earlier call (often one of its own
 * region: recursion), at most PG_MAX_DEPTH deep.  Times are laid out from
 * the forest so that nesting is unambiguous both ways upstream reads it
 * (from the ids, or from containment: the nesting section of
 * scope-profiler's format contract): a child lies inside its parent and is never
 * the whole of it, siblings and roots are at least 1 ns apart, and a
 * zero-length call is a leaf.  Ids are given in pre-order, so a parent's
 * id is below its children's, per rank.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "h5write.h"
#include "jsonwrite.h"
#include "profgen.h"
#include "scopedb/err.h"
#include "util/json.h"
#include "util/strmap.h"

#define PG_MAX_DEPTH 6
/* The most calls of a profile: the fast tier's budget per file. */
#define PG_MAX_CALLS 30000

/* ---- random numbers ---------------------------------------------------- */

static uint64_t pg_mix(uint64_t x)
{
	x += UINT64_C(0x9e3779b97f4a7c15);
	x = (x ^ (x >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	x = (x ^ (x >> 27)) * UINT64_C(0x94d049bb133111eb);
	return x ^ (x >> 31);
}

static uint64_t pg_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * UINT64_C(2685821657736338717);
}

/* Uniform in [0, n) (n > 0). */
static uint64_t pg_below(uint64_t *s, uint64_t n)
{
	return pg_next(s) % n;
}

/* Uniform in [0, 1). */
static double pg_unit(uint64_t *s)
{
	return (double)(pg_next(s) >> 11) * (1.0 / 9007199254740992.0);
}

static int pg_chance(uint64_t *s, double p)
{
	return pg_unit(s) < p;
}

/* About normal (0, 1): a sum of four uniforms. */
static double pg_normal(uint64_t *s)
{
	return (pg_unit(s) + pg_unit(s) + pg_unit(s) + pg_unit(s) - 2.0) * 1.7320508075688772;
}

/* ---- allocation --------------------------------------------------------- */

/* The state of one draw: the model, the streams, a failure. */
struct pg {
	struct profgen *g;
	uint64_t st; /* structure */
	uint64_t tm; /* time */
	int failed;
};

static void *pg_alloc(struct pg *p, size_t n, size_t size)
{
	void *v;

	if (p->failed)
		return NULL;
	v = calloc(n ? n : 1, size);
	if (!v)
		p->failed = 1;
	return v;
}

static char *pg_strdup(struct pg *p, const char *s)
{
	char *d = pg_alloc(p, strlen(s) + 1, 1);

	if (d)
		memcpy(d, s, strlen(s) + 1);
	return d;
}

/* ---- names ---------------------------------------------------------------- */

static const char *const pg_words[] = {
    "solve",	 "assemble", "factorize", "precondition", "io",	       "halo_exchange",
    "allreduce", "main",     "timestep",  "refine",	  "kernel",    "compute_flux",
    "update",	 "init",     "finalize",  "write_output", "read_mesh", "mpi_wait",
    "gemm",	 "fft",	     "sort",	  "reduce",	  "scatter",   "gather",
};

static const char *const pg_special[] = {
    "précondition",
    "größe_λ",
    "решатель",
    "求解器",
    "🚀 launch",
    "ｆｕｌｌｗｉｄｔｈ",
    "naïve café",
    "Ωmega::step<double>",
    "std::vector<int>::push_back",
    "halo exchange (x, y)",
    "a,b;c\"d'e",
    "back\\slash",
    "pipe|md*_`~#",
    "<b>bold</b> &amp; <script>x</script>",
    "=cmd|' /C calc'!A0",
    "@mention +plus -minus",
    "tab\there",
    "esc\033[31mred\033[0m",
    "new\nline",
    "del\x7f",
    "c1\xc2\x9b"
    "31m",
    "zero\xe2\x80\x8bwidth",
    "mixed Ünïcödé ✓",
    "trailing.dot.",
    " leading space",
};

/* Append a 200-byte name (UTF-8, never cut in a character) made of base. */
static void pg_long_name(char *out, size_t cap, const char *base, unsigned k)
{
	size_t n = 0, len = strlen(base);
	char tail[16];

	snprintf(tail, sizeof(tail), "_%u", k);
	while (n + len + 1 + strlen(tail) < 200 && n + len + 1 < cap) {
		memcpy(out + n, base, len);
		n += len;
		out[n++] = '_';
	}
	while (n + strlen(tail) < 200 && n + 1 < cap)
		out[n++] = 'x';
	memcpy(out + n, tail, strlen(tail) + 1);
}

/* One candidate name (in buf); variants of earlier names[0..have). */
static void pg_one_name(struct pg *p, char *buf, size_t cap, char **have, size_t nhave, int slash)
{
	uint64_t *s = &p->st;
	unsigned u = (unsigned)pg_below(s, 100);
	const char *w = pg_words[pg_below(s, sizeof(pg_words) / sizeof(pg_words[0]))];
	size_t i;

	if (u < 40) {
		snprintf(buf, cap, "%s", w);
	} else if (u < 55) {
		snprintf(buf, cap, "%s_%u", w, (unsigned)pg_below(s, 1000));
	} else if (u < 65) {
		snprintf(buf, cap, "%s",
			 pg_special[pg_below(s, sizeof(pg_special) / sizeof(pg_special[0]))]);
	} else if (u < 70) {
		pg_long_name(buf, cap, pg_below(s, 2) ? w : "größe", (unsigned)pg_below(s, 100));
	} else if (u < 78 && nhave) {
		/* the same but for case */
		snprintf(buf, cap, "%s", have[pg_below(s, nhave)]);
		for (i = 0; buf[i]; i++) {
			unsigned char c = (unsigned char)buf[i];

			if (c >= 'a' && c <= 'z' && pg_chance(s, 0.5))
				buf[i] = (char)(c - 32);
			else if (c >= 'A' && c <= 'Z')
				buf[i] = (char)(c + 32);
		}
	} else if (u < 85 && nhave) {
		/* the same but for a trailing space */
		snprintf(buf, cap, "%s ", have[pg_below(s, nhave)]);
	} else if (u < 90) {
		snprintf(buf, cap, "%s.%s.%s", pg_words[pg_below(s, 8)], w,
			 pg_words[pg_below(s, 24)]);
	} else if (u < 95 && slash) {
		snprintf(buf, cap, "comm/%s/%u", w, (unsigned)pg_below(s, 50));
	} else {
		snprintf(buf, cap, "%s%u", w, (unsigned)pg_below(s, 100000));
	}
}

/* nnames distinct names; a schema-1 name is a group name (no '/', not "."
 * or ".."). */
static void pg_names(struct pg *p, size_t n)
{
	struct profgen *g = p->g;
	struct strmap seen;
	char buf[512];
	size_t id, tries = 0;

	strmap_init(&seen);
	g->names = pg_alloc(p, n, sizeof(*g->names));
	while (!p->failed && g->nnames < n) {
		pg_one_name(p, buf, sizeof(buf), g->names, g->nnames, g->schema > 1);
		if (++tries > 50 * n + 100)
			snprintf(buf, sizeof(buf), "region_%zu", g->nnames);
		if (!buf[0] || (g->schema == 1 &&
				(strchr(buf, '/') || !strcmp(buf, ".") || !strcmp(buf, ".."))))
			continue;
		if (strmap_find(&seen, buf) != STRMAP_NONE)
			continue;
		if (strmap_intern(&id, &seen, buf)) {
			p->failed = 1;
			break;
		}
		g->names[g->nnames] = pg_strdup(p, buf);
		if (g->names[g->nnames])
			g->nnames++;
	}
	strmap_release(&seen);
}

/* ---- the call forest of one lane --------------------------------------- */

struct pg_call {
	size_t row;    /* its (rank, region) row */
	size_t parent; /* index of the parent call, SIZE_MAX: a root */
	size_t first;  /* first child, SIZE_MAX: none */
	size_t next;   /* next sibling, SIZE_MAX: none */
	size_t last;   /* last child (for appending) */
	int depth;     /* 0 for a root */
	int zero;      /* a zero-length leaf */
	int64_t start, end;
	int64_t id, parent_id, thread, task;
	size_t slot; /* its place in the row's arrays */
};

/* The base duration of each region (ns), drawn from the time stream. */
struct pg_lane {
	int64_t thread, task;
};

/* Lay out call c and its subtree from start; returns its end. */
static int64_t pg_layout(struct pg *p, struct pg_call *calls, size_t c, int64_t start,
			 const double *base, const struct profgen_row *rows)
{
	uint64_t *t = &p->tm;
	struct pg_call *x = &calls[c];
	double b = base[rows[x->row].region];
	int64_t now = start, pre = 0, post, self;
	size_t k;

	x->start = start;
	if (x->zero) {
		x->end = start;
		return start;
	}
	if (x->first != SIZE_MAX) {
		pre = pg_chance(t, 0.3) ? 0 : 1 + (int64_t)pg_below(t, 500);
		now += pre;
		for (k = x->first; k != SIZE_MAX; k = calls[k].next) {
			now = pg_layout(p, calls, k, now, base, rows);
			if (calls[k].next != SIZE_MAX)
				now += 1 + (int64_t)pg_below(t, 1000);
		}
	}
	post = pg_chance(t, 0.3) ? 0 : (int64_t)pg_below(t, 500);
	self = (int64_t)llround(b * exp(0.6 * pg_normal(t)) * (x->first != SIZE_MAX ? 0.2 : 1.0));
	if (self < 0)
		self = 0;
	/* a parent is never the whole of its only child */
	if (x->first != SIZE_MAX && pre + post + self == 0)
		post = 1;
	x->end = now + post + self;
	return x->end;
}

/* Give ids in pre-order from *next (per rank), parents first. */
static void pg_ids(struct pg_call *calls, size_t c, int64_t *next)
{
	size_t k;

	calls[c].id = (*next)++;
	calls[c].parent_id = calls[c].parent == SIZE_MAX ? -1 : calls[calls[c].parent].id;
	for (k = calls[c].first; k != SIZE_MAX; k = calls[k].next)
		pg_ids(calls, k, next);
}

/* ---- the model ------------------------------------------------------------- */

/* The number of calls of a row: skewed (most rows few, some many). */
static size_t pg_row_calls(struct pg *p, size_t max, double p_zero)
{
	uint64_t *s = &p->st;
	double u;

	if (pg_chance(s, p_zero))
		return 0;
	u = pg_unit(s);
	return 1 + (size_t)((double)(max > 1 ? max - 1 : 0) * u * u * u);
}

/* -1, 0 or 1 as x is below, equal to or above y: the comparators' order. */
static int pg_sign(int64_t x, int64_t y)
{
	return (x > y) - (x < y);
}

static int cmp_i64(const void *a, const void *b)
{
	return pg_sign(*(const int64_t *)a, *(const int64_t *)b);
}

/* Sort the calls of a row into the order the file stores them. */
struct pg_order {
	int64_t key, tie;
	size_t call;
};

static int cmp_order(const void *a, const void *b)
{
	const struct pg_order *x = a, *y = b;

	return x->key != y->key ? pg_sign(x->key, y->key) : pg_sign(x->tie, y->tie);
}

/* Rows, call forests and times of every rank. */
static void pg_rows(struct pg *p, uint32_t nranks, size_t max_calls, double p_zero,
		    double p_present, double p_busy)
{
	struct profgen *g = p->g;
	uint64_t *s = &p->st;
	size_t cap = (size_t)nranks * g->nnames, r, i, k, budget = PG_MAX_CALLS;
	uint32_t rank;
	double *base;
	double p_root = 0.15 + 0.7 * pg_unit(s);
	int64_t id_base = (int64_t)pg_below(s, 3) * 500;

	g->rows = pg_alloc(p, cap, sizeof(*g->rows));
	base = pg_alloc(p, g->nnames, sizeof(*base));
	if (p->failed)
		goto out;
	for (i = 0; i < g->nnames; i++)
		base[i] = pow(10.0, 1.0 + 5.0 * pg_unit(&p->tm));
	for (rank = 0; rank < nranks && !p->failed; rank++) {
		size_t first_row = g->nrows, ncalls = 0, nlanes = 1, c, n;
		struct pg_call *calls;
		struct pg_lane lanes[3];
		size_t *lane_of = NULL, *order = NULL;
		int64_t next_id = id_base;

		if (rank > 0 && !pg_chance(s, p_busy))
			continue; /* a rank without rows */
		for (i = 0; i < g->nnames; i++) {
			struct profgen_row *row;

			if (!pg_chance(s, p_present) && !(i == 0 && rank == 0))
				continue;
			row = &g->rows[g->nrows++];
			row->rank = rank;
			row->region = (uint32_t)i;
			/* schema 1 has no rows of no calls */
			row->ncalls = pg_row_calls(p, max_calls, g->schema == 1 ? 0.0 : p_zero);
			if (row->ncalls > budget)
				row->ncalls = budget ? budget : (g->schema == 1 ? 1 : 0);
			budget -= row->ncalls < budget ? row->ncalls : budget;
			ncalls += row->ncalls;
		}
		if (g->nrows == first_row)
			continue;
		/* lanes: (thread, task) pairs of this rank */
		lanes[0].thread = -1;
		lanes[0].task = -1;
		if (g->lanes) {
			nlanes = 1 + (size_t)pg_below(s, 3);
			for (k = 1; k < nlanes; k++) {
				lanes[k].thread = (int64_t)k;
				lanes[k].task = pg_chance(s, 0.5) ? -1 : (int64_t)(10 * k);
			}
		}
		calls = pg_alloc(p, ncalls, sizeof(*calls));
		lane_of = pg_alloc(p, ncalls, sizeof(*lane_of));
		order = pg_alloc(p, ncalls, sizeof(*order));
		if (p->failed) {
			free(calls);
			free(lane_of);
			free(order);
			break;
		}
		for (c = 0, r = first_row; r < g->nrows; r++)
			for (k = 0; k < g->rows[r].ncalls; k++, c++) {
				calls[c].row = r;
				calls[c].slot = k;
				calls[c].parent = calls[c].first = calls[c].next = SIZE_MAX;
				calls[c].last = SIZE_MAX;
				lane_of[c] = (size_t)pg_below(s, nlanes);
			}
		/* per lane: a random forest over its calls in a random order */
		for (k = 0; k < nlanes; k++) {
			int64_t t0 =
			    1000000 + 1000 * (int64_t)rank + (int64_t)pg_below(&p->tm, 5000);
			size_t prev_root = SIZE_MAX;

			for (c = n = 0; c < ncalls; c++)
				if (lane_of[c] == k)
					order[n++] = c;
			for (i = n; i > 1; i--) {
				size_t j = (size_t)pg_below(s, i), tmp = order[i - 1];

				order[i - 1] = order[j];
				order[j] = tmp;
			}
			for (i = 0; i < n; i++) {
				struct pg_call *x = &calls[order[i]];
				size_t par = SIZE_MAX, j, tries;

				x->thread = lanes[k].thread;
				x->task = lanes[k].task;
				if (i > 0 && !pg_chance(s, p_root)) {
					/* often an earlier call of the same region */
					if (pg_chance(s, 0.3))
						for (j = i; j-- > 0 && par == SIZE_MAX;)
							if (calls[order[j]].row == x->row &&
							    calls[order[j]].depth < PG_MAX_DEPTH &&
							    !calls[order[j]].zero)
								par = order[j];
					for (tries = 0; par == SIZE_MAX && tries < 4; tries++) {
						j = order[pg_below(s, i)];
						if (calls[j].depth < PG_MAX_DEPTH && !calls[j].zero)
							par = j;
					}
				}
				x->parent = par;
				if (par != SIZE_MAX) {
					x->depth = calls[par].depth + 1;
					if (calls[par].first == SIZE_MAX)
						calls[par].first = order[i];
					else
						calls[calls[par].last].next = order[i];
					calls[par].last = order[i];
				} else {
					if (prev_root != SIZE_MAX)
						calls[prev_root].next = order[i];
					prev_root = order[i];
				}
				/* zero-length calls are leaves: decided now, kept
				 * childless by the parent choice above */
				x->zero = pg_chance(s, 0.04);
			}
			/* lay the roots out one after another */
			for (i = 0; i < n; i++) {
				size_t c0 = order[i];

				if (calls[c0].parent != SIZE_MAX)
					continue;
				t0 = pg_layout(p, calls, c0, t0, base, g->rows) + 1 +
				     (int64_t)pg_below(&p->tm, 20000);
			}
			for (i = 0; i < n; i++)
				if (calls[order[i]].parent == SIZE_MAX)
					pg_ids(calls, order[i], &next_id);
		}
		/* the rows' arrays, in the file's order of calls */
		for (r = first_row; r < g->nrows && !p->failed; r++) {
			struct profgen_row *row = &g->rows[r];
			struct pg_order *ord = pg_alloc(p, row->ncalls, sizeof(*ord));
			size_t m = 0;
			int gpu_mode = g->gpu ? (int)pg_below(s, 3) : 0; /* none, all, some */

			row->starts = pg_alloc(p, row->ncalls, sizeof(int64_t));
			row->ends = pg_alloc(p, row->ncalls, sizeof(int64_t));
			if (gpu_mode)
				row->gpu = pg_alloc(p, row->ncalls, sizeof(int64_t));
			if (g->ids) {
				row->call_ids = pg_alloc(p, row->ncalls, sizeof(int64_t));
				row->parent_ids = pg_alloc(p, row->ncalls, sizeof(int64_t));
			}
			if (g->lanes) {
				row->thread_ids = pg_alloc(p, row->ncalls, sizeof(int64_t));
				row->task_ids = pg_alloc(p, row->ncalls, sizeof(int64_t));
			}
			if (p->failed) {
				free(ord);
				break;
			}
			for (c = 0; c < ncalls; c++) {
				if (calls[c].row != r)
					continue;
				ord[m].key = g->by_end ? calls[c].end : calls[c].start;
				ord[m].tie = calls[c].id;
				ord[m++].call = c;
			}
			qsort(ord, m, sizeof(*ord), cmp_order);
			row->exclusive = 0;
			for (i = 0; i < m; i++) {
				struct pg_call *x = &calls[ord[i].call];
				int64_t self = x->end - x->start;

				for (k = x->first; k != SIZE_MAX; k = calls[k].next)
					self -= calls[k].end - calls[k].start;
				row->exclusive += self;
				row->starts[i] = x->start;
				row->ends[i] = x->end;
				if (row->call_ids) {
					row->call_ids[i] = x->id;
					row->parent_ids[i] = x->parent_id;
				}
				if (row->thread_ids) {
					row->thread_ids[i] = x->thread;
					row->task_ids[i] = x->task;
				}
				if (row->gpu) {
					int64_t d = x->end - x->start;

					row->gpu[i] =
					    gpu_mode == 2 && pg_chance(&p->tm, 0.4)
						? -1
						: (int64_t)pg_below(&p->tm, (uint64_t)(2 * d + 1));
				}
			}
			free(ord);
		}
		free(calls);
		free(lane_of);
		free(order);
	}
out:
	free(base);
}

/* Source information and tags of each row. */
static void pg_row_strings(struct pg *p)
{
	static const char *const files[] = {
	    "solver.py", "src/kernels/flux.cpp", "módulo/ñ.f90", "/abs/path with space/x.c", "",
	    "a\"b.py"};
	static const char *const texts[] = {
	    "x = solve(A, b)", "for i in range(n):", "call mpi_allreduce(…)", "λ = α·β", "",
	    "if (a < b && c)"};
	static const char *const tags[] = {"golden", "io", "größe", "b \"q\"\n", "a\\b",
					   "gpu",    "",   "λ",	    "<tag>",	 "comm"};
	struct profgen *g = p->g;
	uint64_t *s = &p->st;
	size_t r, k, ntf = sizeof(files) / sizeof(files[0]);
	size_t ntt = sizeof(texts) / sizeof(texts[0]);

	for (r = 0; r < g->nrows && !p->failed; r++) {
		struct profgen_row *row = &g->rows[r];

		row->source_file = pg_strdup(p, pg_chance(s, 0.3) ? "" : files[pg_below(s, ntf)]);
		row->source_text = pg_strdup(p, pg_chance(s, 0.5) ? "" : texts[pg_below(s, ntt)]);
		row->source_line = pg_chance(s, 0.3) ? -1 : (int64_t)pg_below(s, 5000);
		row->has_exclusive = pg_chance(s, 0.5);
		row->ntags = pg_chance(s, 0.5) ? 0 : 1 + (size_t)pg_below(s, 3);
		row->tags = pg_alloc(p, row->ntags, sizeof(*row->tags));
		for (k = 0; k < row->ntags && !p->failed; k++)
			row->tags[k] =
			    pg_strdup(p, tags[pg_below(s, sizeof(tags) / sizeof(tags[0]))]);
	}
}

/* Metadata of every type. */
static void pg_meta(struct pg *p)
{
	static const char *const modules[] = {"gcc/12.2", "openmpi/4.1.5", "hdf5/1.14", "λ-mod"};
	struct profgen *g = p->g;
	uint64_t *s = &p->st;
	struct profgen_meta *m;
	char buf[1200];
	size_t k;

	g->meta = pg_alloc(p, 24, sizeof(*g->meta));
	if (p->failed)
		return;
#define PG_META(KEY, KIND) (m = &g->meta[g->nmeta++], m->key = pg_strdup(p, KEY), m->kind = KIND, m)
	if (g->mpi_size > 0) {
		unsigned t = (unsigned)pg_below(s, 3);

		PG_META("mpi_size", t == 0   ? PROFGEN_META_INT
				    : t == 1 ? PROFGEN_META_INT32
					     : PROFGEN_META_UINT)
		    ->i = g->mpi_size;
	}
	if (pg_chance(s, 0.8)) {
		snprintf(buf, sizeof(buf), "%s", pg_chance(s, 0.2) ? "run «λ» #7" : "nightly");
		PG_META("label", PROFGEN_META_STR)->str = pg_strdup(p, buf);
	}
	if (pg_chance(s, 0.8)) {
		unsigned day = 1 + (unsigned)pg_below(s, 8);

		switch (pg_below(s, 4)) {
		case 0:
			snprintf(buf, sizeof(buf), "2026-01-0%uT12:00:00Z", day);
			break;
		case 1:
			snprintf(buf, sizeof(buf), "2026-02-1%uT08:30:00+01:00", day);
			break;
		case 2:
			snprintf(buf, sizeof(buf), "2025-12-2%u", day);
			break;
		default:
			snprintf(buf, sizeof(buf), "not a date %u", day);
		}
		PG_META("timestamp", PROFGEN_META_STR)->str = pg_strdup(p, buf);
	}
	if (pg_chance(s, 0.7))
		PG_META("platform", PROFGEN_META_STR)->str = pg_strdup(p, "linux-x86_64");
	if (pg_chance(s, 0.6))
		PG_META("omp_num_threads", PROFGEN_META_INT)->i = 1 + (int64_t)pg_below(s, 64);
	if (pg_chance(s, 0.4))
		PG_META("total_cores", PROFGEN_META_UINT)->i = (int64_t)pg_below(s, 100000);
	if (pg_chance(s, 0.4))
		PG_META("num_nodes", PROFGEN_META_INT32)->i = 1 + (int64_t)pg_below(s, 512);
	if (pg_chance(s, 0.5)) {
		double f[] = {0.1, 1e300, -0.0, 3.141592653589793};

		PG_META("start_time_ns", PROFGEN_META_FLOAT)->f = f[pg_below(s, 4)];
	}
	if (pg_chance(s, 0.3)) {
		static const double fl[] = {1.5, NAN, INFINITY, -2e-300, 0.0};

		m = PG_META("freqs_ghz", PROFGEN_META_FLOATS);
		m->n = (size_t)pg_below(s, 6);
		m->floats = pg_alloc(p, m->n, sizeof(double));
		for (k = 0; m->floats && k < m->n; k++)
			m->floats[k] = fl[pg_below(s, 5)];
	}
	if (pg_chance(s, 0.3)) {
		m = PG_META("cpu_ids", PROFGEN_META_INTS);
		m->n = 1 + (size_t)pg_below(s, 5);
		m->ints = pg_alloc(p, m->n, sizeof(int64_t));
		for (k = 0; m->ints && k < m->n; k++)
			m->ints[k] = (int64_t)pg_below(s, 1000) - 10;
	}
	if (pg_chance(s, 0.5)) {
		m = PG_META("modules", PROFGEN_META_STRS);
		m->n = 1 + (size_t)pg_below(s, 4);
		m->strs = pg_alloc(p, m->n, sizeof(char *));
		for (k = 0; m->strs && k < m->n; k++)
			m->strs[k] = pg_strdup(p, modules[pg_below(s, 4)]);
	}
	if (pg_chance(s, 0.3))
		PG_META("clé ünïcode", PROFGEN_META_STR)->str = pg_strdup(p, "valeur «λ»");
	if (pg_chance(s, 0.2))
		PG_META("SLURM_JOB_ID", PROFGEN_META_STR)->str = pg_strdup(p, "123456");
	if (pg_chance(s, 0.2))
		PG_META("hostile", PROFGEN_META_STR)->str =
		    pg_strdup(p, "a\nb\033[2J<script>\"x\"</script>,=1+1");
	if (pg_chance(s, 0.15)) {
		memset(buf, 'v', 1000);
		buf[1000] = '\0';
		PG_META("long value", PROFGEN_META_STR)->str = pg_strdup(p, buf);
	}
	if (pg_chance(s, 0.2))
		PG_META("empty", PROFGEN_META_STR)->str = pg_strdup(p, "");
#undef PG_META
}

/* The rank set of --ranks checks: some ranks of the run, some beyond. */
static void pg_selection(struct pg *p)
{
	struct profgen *g = p->g;
	uint64_t *s = &p->st;
	size_t want = 1 + (size_t)pg_below(s, 4), i, k, n = 0;
	struct buf b = BUF_INIT;
	int64_t lim = (int64_t)g->num_ranks + 2;

	g->sel = pg_alloc(p, want, sizeof(*g->sel));
	if (p->failed)
		return;
	for (i = 0; i < want; i++)
		g->sel[n++] = (int64_t)pg_below(s, (uint64_t)lim);
	qsort(g->sel, n, sizeof(*g->sel), cmp_i64);
	for (i = k = 0; i < n; i++)
		if (k == 0 || g->sel[k - 1] != g->sel[i])
			g->sel[k++] = g->sel[i];
	g->nsel = k;
	for (i = 0; i < k; i++) {
		size_t j = i;

		while (j + 1 < k && g->sel[j + 1] == g->sel[j] + 1)
			j++;
		if (j > i)
			buf_printf(&b, "%s%lld-%lld", b.len ? "," : "", (long long)g->sel[i],
				   (long long)g->sel[j]);
		else
			buf_printf(&b, "%s%lld", b.len ? "," : "", (long long)g->sel[i]);
		i = j;
	}
	g->sel_spec = buf_detach(&b);
	if (!g->sel_spec)
		p->failed = 1;
}

/* The size classes of profgen_new(): a class is drawn when a draw in
 * [0, 100) is below its bound (and not the previous ones'); its ranks and
 * regions are at least the base and fewer than base + more. */
static const struct pg_size {
	unsigned below;
	uint32_t ranks, more_ranks;
	size_t regions, more_regions, max_calls;
} pg_sizes[] = {
    {60, 1, 4, 1, 12, 20},     /* small */
    {85, 1, 16, 1, 60, 40},    /* medium */
    {93, 32, 993, 1, 4, 4},    /* wide */
    {98, 1, 3, 300, 1701, 3},  /* tall */
    {100, 1, 64, 1, 200, 100}, /* large */
};

int profgen_new(struct profgen **out, uint64_t seed, unsigned variant)
{
	const struct pg_size *sz;
	struct pg p;
	struct profgen *g;
	uint64_t *s;
	uint32_t nranks, maxrank = 0;
	size_t nregions, max_calls, r, nbusy = 0;
	double p_zero, p_present, p_busy;
	unsigned u;
	struct buf d = BUF_INIT;
	static const char *const storages[] = {"contiguous", "chunked"};

	*out = NULL;
	memset(&p, 0, sizeof(p));
	p.st = pg_mix(seed) | 1;
	p.tm = pg_mix(pg_mix(seed) ^ (0x5bd1e995u * (uint64_t)(variant + 1))) | 1;
	g = p.g = calloc(1, sizeof(*g));
	if (!g)
		return err_nomem();
	s = &p.st;
	g->seed = seed;
	g->variant = variant;
	/* the layout */
	u = (unsigned)pg_below(s, 100);
	g->schema = u < 25 ? 1 : u < 60 ? 2 : 3;
	g->aggregate = g->schema > 1 && pg_chance(s, 0.2);
	g->fixed_strings = pg_chance(s, 0.3);
	u = (unsigned)pg_below(s, 100);
	g->chunked = u >= 30;
	if (u >= 50)
		g->filters |= PROFGEN_SHUFFLE;
	if (u >= 65 && u < 95)
		g->filters |= PROFGEN_DEFLATE;
	if (u >= 90)
		g->filters |= PROFGEN_FLETCHER32;
	if (!g->filters && u >= 40 && u < 50)
		g->filters = PROFGEN_DEFLATE;
	g->gzip_level = 1 + (int)pg_below(s, 9);
	g->chunk = g->chunked && pg_chance(s, 0.5) ? 1 + (size_t)pg_below(s, 300) : 0;
	g->summary = g->schema > 1 && !g->aggregate && pg_chance(s, 0.3);
	g->gpu = !g->aggregate && pg_chance(s, 0.4);
	g->ids = !g->aggregate && pg_chance(s, 0.4);
	g->lanes = g->schema > 1 && !g->aggregate && pg_chance(s, 0.3);
	g->by_end = pg_chance(s, 0.6);
	/* the sizes: mostly small, sometimes wide or tall */
	u = (unsigned)pg_below(s, 100);
	sz = pg_sizes;
	while (u >= sz->below)
		sz++;
	nranks = sz->ranks + (uint32_t)pg_below(s, sz->more_ranks);
	nregions = sz->regions + (size_t)pg_below(s, sz->more_regions);
	max_calls = sz->max_calls;
	p_zero = g->schema > 1 ? 0.15 * pg_unit(s) : 0.0;
	p_present = 0.3 + 0.7 * pg_unit(s);
	p_busy = 0.6 + 0.4 * pg_unit(s);
	pg_names(&p, nregions);
	pg_rows(&p, nranks, max_calls, p_zero, p_present, p_busy);
	if (p.failed)
		goto out;
	for (r = 0; r < g->nrows; r++) {
		g->ncalls += g->rows[r].ncalls;
		if (g->rows[r].rank > maxrank)
			maxrank = g->rows[r].rank;
		if (r == 0 || g->rows[r].rank != g->rows[r - 1].rank)
			nbusy++;
	}
	/* mpi_size: none, the ranks, fewer (rows beyond it), more (ranks of
	 * no rows at the end) */
	u = (unsigned)pg_below(s, 100);
	if (g->schema == 1 || u < 20)
		g->mpi_size = g->schema == 1 && pg_chance(s, 0.5) ? maxrank + 1 : 0;
	else if (u < 70)
		g->mpi_size = maxrank + 1;
	else if (u < 85)
		g->mpi_size = 1 + (int64_t)pg_below(s, maxrank + 1);
	else
		g->mpi_size = maxrank + 1 + 1 + (int64_t)pg_below(s, 8);
	if (g->schema == 1) {
		/* rank groups without regions: some of the ranks between, and
		 * up to two after the last (h5hier.c counts the groups, or the
		 * highest rank + 1 when they skip one) */
		uint32_t rk, top = maxrank;

		g->empty_ranks = pg_alloc(&p, (size_t)maxrank + 3, sizeof(*g->empty_ranks));
		for (rk = 0, r = 0; g->empty_ranks && rk < maxrank; rk++) {
			while (r < g->nrows && g->rows[r].rank < rk)
				r++;
			if (g->rows[r].rank != rk && pg_chance(s, 0.5))
				g->empty_ranks[g->nempty++] = rk;
		}
		for (rk = 0; g->empty_ranks && rk < (uint32_t)pg_below(s, 3); rk++)
			g->empty_ranks[g->nempty++] = top = maxrank + 1 + rk;
		g->num_ranks = top + 1;
		(void)nbusy;
	} else
		g->num_ranks =
		    (uint32_t)(g->mpi_size > (int64_t)maxrank + 1 ? g->mpi_size : maxrank + 1);
	pg_row_strings(&p);
	pg_meta(&p);
	pg_selection(&p);
	if (p.failed)
		goto out;
	buf_printf(
	    &d,
	    "seed %llu%s%.0u: schema %d, %s, %s strings, %s%s%s%s, %u ranks (mpi_size %lld), "
	    "%zu regions, %zu rows, %llu calls%s%s%s%s, --ranks %s",
	    (unsigned long long)seed, variant ? " variant " : "", variant, g->schema,
	    g->aggregate     ? "aggregate"
	    : g->schema == 1 ? "hierarchical"
			     : "columnar",
	    g->fixed_strings ? "fixed" : "variable", storages[g->chunked],
	    g->filters & PROFGEN_SHUFFLE ? "+shuffle" : "",
	    g->filters & PROFGEN_DEFLATE ? "+gzip" : "",
	    g->filters & PROFGEN_FLETCHER32 ? "+fletcher32" : "", g->num_ranks,
	    (long long)g->mpi_size, g->nnames, g->nrows, (unsigned long long)g->ncalls,
	    g->gpu ? ", gpu" : "", g->ids ? ", call ids" : "", g->lanes ? ", lanes" : "",
	    g->summary ? ", summary" : "", g->sel_spec);
	g->describe = buf_detach(&d);
	if (!g->describe)
		p.failed = 1;
out:
	if (p.failed) {
		profgen_free(g);
		return err_nomem();
	}
	*out = g;
	return 0;
}

/* Free the n strings of array s, then s (NULL: nothing). */
static void pg_free_strs(char **s, size_t n)
{
	size_t i;

	for (i = 0; s && i < n; i++)
		free(s[i]);
	free(s);
}

void profgen_free(struct profgen *g)
{
	size_t i;

	if (!g)
		return;
	for (i = 0; g->rows && i < g->nrows; i++) {
		struct profgen_row *r = &g->rows[i];

		free(r->starts);
		free(r->ends);
		free(r->gpu);
		free(r->call_ids);
		free(r->parent_ids);
		free(r->thread_ids);
		free(r->task_ids);
		free(r->source_file);
		free(r->source_text);
		pg_free_strs(r->tags, r->ntags);
	}
	free(g->rows);
	pg_free_strs(g->names, g->nnames);
	for (i = 0; g->meta && i < g->nmeta; i++) {
		struct profgen_meta *m = &g->meta[i];

		free(m->key);
		free(m->str);
		pg_free_strs(m->strs, m->n);
		free(m->ints);
		free(m->floats);
	}
	free(g->meta);
	free(g->empty_ranks);
	free(g->sel);
	free(g->sel_spec);
	free(g->describe);
	free(g);
}

/* ---- the HDF5 writer ---------------------------------------------------------- */

/* The model g as the fixture writers' description: rows (schema 1's empty
 * rank groups as rows of no calls), metadata and options, pointing into g;
 * free prof->rows and prof->meta. */
static int pg_describe(const struct profgen *g, struct h5write_profile *prof,
		       struct h5write_opts *o)
{
	struct h5write_row *rows;
	struct h5write_meta *meta;
	size_t i, n = g->nrows, nempty = g->nempty;

	rows = calloc(n + nempty + 1, sizeof(*rows));
	meta = calloc(g->nmeta + 1, sizeof(*meta));
	if (!rows || !meta) {
		free(rows);
		free(meta);
		return err_nomem();
	}
	for (i = 0; i < n; i++) {
		const struct profgen_row *r = &g->rows[i];
		struct h5write_row *w = &rows[i];

		w->rank = r->rank;
		w->region = g->names[r->region];
		w->calls = r->ncalls;
		w->starts = r->starts;
		w->ends = r->ends;
		w->gpu = r->gpu;
		w->source_file = r->source_file;
		w->source_line = r->source_line;
		w->source_text = r->source_text;
		w->tags = (const char *const *)r->tags;
		w->ntags = r->ntags;
		w->has_exclusive = r->has_exclusive;
		w->exclusive = r->exclusive;
		w->call_ids = r->call_ids;
		w->parent_ids = r->parent_ids;
		w->thread_ids = r->thread_ids;
		w->task_ids = r->task_ids;
	}
	/* schema 1: a rank group without regions (a row of no calls makes
	 * the writer create the group, and nothing in it) */
	for (i = 0; i < nempty; i++) {
		rows[n + i].rank = g->empty_ranks[i];
		rows[n + i].region = g->names[0];
		rows[n + i].source_line = -1;
	}
	for (i = 0; i < g->nmeta; i++) {
		const struct profgen_meta *m = &g->meta[i];
		struct h5write_meta *w = &meta[i];
		static const enum h5write_meta_kind kinds[] = {
		    [PROFGEN_META_STR] = H5WRITE_META_STR,
		    [PROFGEN_META_INT] = H5WRITE_META_INT,
		    [PROFGEN_META_UINT] = H5WRITE_META_UINT,
		    [PROFGEN_META_INT32] = H5WRITE_META_INT32,
		    [PROFGEN_META_FLOAT] = H5WRITE_META_FLOAT,
		    [PROFGEN_META_STRS] = H5WRITE_META_STRARRAY,
		    [PROFGEN_META_INTS] = H5WRITE_META_INTARRAY,
		    [PROFGEN_META_FLOATS] = H5WRITE_META_FLOATARRAY,
		};

		w->key = m->key;
		w->kind = kinds[m->kind];
		w->str = m->str;
		w->i = m->i;
		w->f = m->f;
		w->strs = (const char *const *)m->strs;
		w->nstrs = m->n;
		w->ints = m->ints;
		w->floats = m->floats;
		w->n = m->n;
	}
	memset(o, 0, sizeof(*o));
	o->schema = g->schema;
	o->aggregate = g->aggregate;
	o->chunked = g->chunked;
	o->filters = g->filters;
	o->gzip_level = g->gzip_level;
	o->chunk = g->chunk;
	o->fixed_strings = g->fixed_strings;
	o->gpu = g->gpu;
	o->summary = g->summary;
	o->ids = g->ids;
	o->lanes = g->lanes;
	o->mpi_size = 0; /* in the metadata, with its own type */
	prof->rows = rows;
	prof->nrows = n + nempty;
	prof->meta = meta;
	prof->nmeta = g->nmeta;
	return 0;
}

/* Write g at path: HDF5, or (jo) its JSON twin. */
static int pg_write(const struct profgen *g, const char *path, const struct jsonwrite_opts *jo)
{
	struct h5write_profile prof;
	struct h5write_opts o;
	int rc = pg_describe(g, &prof, &o);

	if (rc)
		return rc;
	rc = jo ? jsonwrite_file(path, &prof, &o, jo) : h5write_file(path, &prof, &o);
	free((void *)prof.rows);
	free((void *)prof.meta);
	return rc;
}

int profgen_write_h5(const struct profgen *g, const char *path)
{
	return pg_write(g, path, NULL);
}

int profgen_write_json(const struct profgen *g, const char *path, int gzip)
{
	struct jsonwrite_opts jo = {gzip, 0};

	return pg_write(g, path, &jo);
}

/* ---- the reference numbers ------------------------------------------------------ */

static int cmp_i64_sort(const void *a, const void *b)
{
	return cmp_i64(a, b);
}

/* numpy's default (linear) percentile q of sorted d[0..n), n > 0. */
static double pg_percentile(const int64_t *d, size_t n, double q)
{
	double pos = q / 100.0 * (double)(n - 1), lo = floor(pos);
	size_t i = (size_t)lo;

	if (i + 1 >= n)
		return (double)d[n - 1];
	return (double)d[i] + (double)(d[i + 1] - d[i]) * (pos - lo);
}

static int pg_in(const int64_t *ranks, size_t n, int64_t r)
{
	size_t i;

	if (!ranks)
		return 1;
	for (i = 0; i < n; i++)
		if (ranks[i] == r)
			return 1;
	return 0;
}

static void pg_num(struct buf *out, const char *key, int none, double v)
{
	if (none)
		buf_printf(out, ", \"%s\": null", key);
	else
		buf_printf(out, ", \"%s\": %.17g", key, v);
}

int profgen_reference(struct buf *out, const struct profgen *g, const int64_t *ranks, size_t n)
{
	int64_t *d = NULL, *rank_tot = NULL;
	size_t reg, r, k, cap = (size_t)g->ncalls + 1, nd, nrt;
	int rc = 0, first = 1;

	d = malloc(cap * sizeof(*d));
	rank_tot = malloc((g->nrows + 1) * sizeof(*rank_tot));
	if (!d || !rank_tot) {
		rc = err_nomem();
		goto out;
	}
	rc = buf_puts(out, "[");
	for (reg = 0; !rc && reg < g->nnames; reg++) {
		int64_t total = 0, mn = 0, mx = 0, gpu_total = 0;
		uint64_t calls = 0, gpu_count = 0, nrows = 0, present = 0;
		long double mean, ss = 0;
		int none;

		nd = nrt = 0;
		for (r = 0; r < g->nrows; r++) {
			const struct profgen_row *row = &g->rows[r];
			int64_t rt = 0;

			if (row->region != reg)
				continue;
			present++;
			if (!pg_in(ranks, n, row->rank))
				continue;
			nrows++;
			calls += row->ncalls;
			for (k = 0; k < row->ncalls; k++) {
				int64_t dur = row->ends[k] - row->starts[k];

				d[nd++] = dur;
				rt += dur;
				if (row->gpu && row->gpu[k] >= 0) {
					gpu_count++;
					gpu_total += row->gpu[k];
				}
			}
			total += rt;
			rank_tot[nrt++] = rt;
		}
		if (!present)
			continue;
		qsort(d, nd, sizeof(*d), cmp_i64_sort);
		if (nd) {
			mn = d[0];
			mx = d[nd - 1];
		}
		none = calls == 0;
		buf_printf(out, "%s\n{\"name\": ", first ? "" : ",");
		first = 0;
		rc = json_buf_string(out, g->names[reg]);
		buf_printf(out, ", \"ranks\": %llu, \"calls\": %llu", (unsigned long long)nrows,
			   (unsigned long long)calls);
		pg_num(out, "total", none, (double)total / 1e9);
		pg_num(out, "avg", none, (double)total / (double)calls / 1e9);
		pg_num(out, "min", none, (double)mn / 1e9);
		pg_num(out, "max", none, (double)mx / 1e9);
		mean = nd ? (long double)total / (long double)nd : 0;
		for (k = 0; k < nd; k++)
			ss += ((long double)d[k] - mean) * ((long double)d[k] - mean);
		pg_num(out, "std", none || g->aggregate,
		       (double)(sqrtl(ss / (nd ? nd : 1)) / 1e9L));
		pg_num(out, "p50", none || g->aggregate, nd ? pg_percentile(d, nd, 50) / 1e9 : 0);
		pg_num(out, "p95", none || g->aggregate, nd ? pg_percentile(d, nd, 95) / 1e9 : 0);
		pg_num(out, "p99", none || g->aggregate, nd ? pg_percentile(d, nd, 99) / 1e9 : 0);
		{
			/* per-rank totals above 0: (max / mean - 1) * 100 */
			int64_t busy_max = 0, busy_sum = 0;
			size_t busy = 0;
			double imb = 0;

			for (k = 0; k < nrt; k++)
				if (rank_tot[k] > 0) {
					busy++;
					busy_sum += rank_tot[k];
					if (rank_tot[k] > busy_max)
						busy_max = rank_tot[k];
				}
			if (busy >= 2)
				imb = ((double)busy_max / ((double)busy_sum / (double)busy) - 1.0) *
				      100.0;
			pg_num(out, "imbalance", 0, imb);
		}
		pg_num(out, "gpu_total", none || g->aggregate || !gpu_count,
		       (double)gpu_total / 1e9);
		pg_num(out, "gpu_avg", none || g->aggregate || !gpu_count,
		       gpu_count ? (double)gpu_total / (double)gpu_count / 1e9 : 0);
		rc = buf_puts(out, "}");
	}
	if (!rc)
		rc = buf_puts(out, "\n]\n");
out:
	free(d);
	free(rank_tot);
	return rc ? err_nomem() : 0;
}
