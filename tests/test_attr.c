/*
 * test_attr.c - attribution (src/analysis/compare_attr.c, docs/calltree.md)
 * through compare_runs() on small one-rank profiles whose trees and
 * numbers are computed by hand in the table below: by name (a name's
 * paths; a > b > a counted once, under its outermost a; one name on two
 * paths whose children move in opposite directions, shares summing to
 * more than 1), by path, for the self metric (the name's paths
 * themselves), for another time metric (explained through the total),
 * none for calls and none by name for runs without nesting, and in a
 * check only for the violations.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "scopedb/compare.h"
#include "scopedb/util.h"
#include "testutil.h"

/* One call of rank 0: its region and its start and end in ns. */
struct call {
	const char *name;
	int64_t start, end;
};

#define MAXCALLS 8

/* A profile: the calls, ended by a NULL name. */
struct prof {
	struct call c[MAXCALLS];
};

struct cause {
	const char *path; /* joined, NULL ends the list */
	int64_t delta_self;
	double share;
};

struct acase {
	const char *title;
	const struct prof *a, *b;
	int by_path;
	enum stats_metric metric;
	double budget; /* > 0: a check with this budget */
	const char *row;
	int want;	  /* -1: no attribution at all, 0: none for row, 1: one */
	const char *what; /* what is decomposed: "total" or "self" */
	int64_t delta;	  /* its growth, ns */
	int covers, same; /* compare_attr's */
	struct cause want_c[4];
};

/* main > solve grows by itself, main > io shrinks: main's self stays 300 */
static const struct prof nest_a = {{{"main", 0, 1000}, {"solve", 100, 600}, {"io", 700, 900}}};
static const struct prof nest_b = {{{"main", 0, 1500}, {"solve", 100, 1200}, {"io", 1300, 1400}}};
/* a > b > a: paths a (total 1000 -> 1400, self 200 -> 200), a > b (800 ->
 * 1200, self 300 -> 400) and a > b > a (500 -> 800, self 500 -> 800); by
 * name a totals 1500 -> 2200, counting the inner a again */
static const struct prof rec_a = {{{"a", 0, 1000}, {"b", 100, 900}, {"a", 200, 700}}};
static const struct prof rec_b = {{{"a", 0, 1400}, {"b", 100, 1300}, {"a", 200, 1000}}};
/* s under x and under y, self 300 and 200 on both sides: x > s > c1 grows
 * by 400, y > s > c2 shrinks by 300, so s grows by 100 */
static const struct prof two_a = {{{"x", 0, 2000},
				   {"s", 100, 600},
				   {"c1", 200, 400},
				   {"y", 3000, 4000},
				   {"s", 3100, 3900},
				   {"c2", 3200, 3800}}};
static const struct prof two_b = {{{"x", 0, 2000},
				   {"s", 100, 1000},
				   {"c1", 200, 800},
				   {"y", 3000, 4000},
				   {"s", 3100, 3600},
				   {"c2", 3200, 3500}}};
/* no nesting at all */
static const struct prof flat_a = {{{"p", 0, 100}, {"q", 200, 300}}};
static const struct prof flat_b = {{{"p", 0, 150}, {"q", 200, 300}}};

/* One case a line or two: a table. */
/* clang-format off */
static const struct acase cases[] = {
    /* title, a, b, by_path, metric, budget, row,
     *   want, what, delta, covers, same, causes */
    {"by name: main's growth is solve's own", &nest_a, &nest_b, 0, STATS_TOTAL, 0, "main",
     1, "total", 500, 1, 1, {{"main > solve", 600, 1.2}}},
    {"by name: solve", &nest_a, &nest_b, 0, STATS_TOTAL, 0, "solve",
     1, "total", 600, 1, 1, {{"main > solve", 600, 1.0}}},
    {"by path: the same", &nest_a, &nest_b, 1, STATS_TOTAL, 0, "main",
     1, "total", 500, 1, 1, {{"main > solve", 600, 1.2}}},
    {"by name: io shrank", &nest_a, &nest_b, 0, STATS_TOTAL, 0, "io",
     0, NULL, 0, 0, 0, {{0}}},
    {"a > b > a: the outermost a only", &rec_a, &rec_b, 0, STATS_TOTAL, 0, "a",
     1, "total", 400, 0, 0, {{"a > b > a", 300, 0.75}, {"a > b", 100, 0.25}}},
    {"a > b > a: b", &rec_a, &rec_b, 0, STATS_TOTAL, 0, "b",
     1, "total", 400, 1, 1, {{"a > b > a", 300, 0.75}, {"a > b", 100, 0.25}}},
    {"a > b > a: self, both paths of a", &rec_a, &rec_b, 0, STATS_SELF, 0, "a",
     1, "self", 300, 1, 1, {{"a > b > a", 300, 1.0}}},
    {"two paths, opposite directions: shares sum to 4", &two_a, &two_b, 0, STATS_TOTAL, 0, "s",
     1, "total", 100, 1, 1, {{"x > s > c1", 400, 4.0}}},
    {"max: explained through the total", &nest_a, &nest_b, 0, STATS_MAX, 0, "solve",
     1, "total", 600, 1, 0, {{"main > solve", 600, 1.0}}},
    {"self by path: the path itself", &nest_a, &nest_b, 1, STATS_SELF, 0, "main > solve",
     1, "self", 600, 1, 1, {{"main > solve", 600, 1.0}}},
    {"calls: none", &nest_a, &nest_b, 0, STATS_CALLS, 0, "main",
     -1, NULL, 0, 0, 0, {{0}}},
    {"no nesting, by name: none", &flat_a, &flat_b, 0, STATS_TOTAL, 0, "p",
     -1, NULL, 0, 0, 0, {{0}}},
    {"no nesting, by path: the path", &flat_a, &flat_b, 1, STATS_TOTAL, 0, "p",
     1, "total", 50, 1, 1, {{"p", 50, 1.0}}},
    {"check: a violation", &nest_a, &nest_b, 0, STATS_TOTAL, 100, "solve",
     1, "total", 600, 1, 1, {{"main > solve", 600, 1.0}}},
    {"check: within the budget", &nest_a, &nest_b, 0, STATS_TOTAL, 100, "main",
     0, NULL, 0, 0, 0, {{0}}},
};
/* clang-format on */

/* p as a scope-profiler JSON profile (one rank) at path. */
static void write_prof(const char *path, const struct prof *p)
{
	struct buf b = BUF_INIT;
	size_t i, j;
	int rc = buf_puts(&b, "{\"format\": \"scope-profiler-profile\", \"format_version\": 1, "
			      "\"time_unit\": \"nanoseconds\", \"num_ranks\": 1, "
			      "\"event_data_available\": true, \"metadata\": {\"mpi_size\": 1}, "
			      "\"regions\": [");
	int first = 1;

	for (i = 0; i < MAXCALLS && p->c[i].name; i++) {
		const char *name = p->c[i].name;
		int seen = 0, k;

		for (j = 0; j < i; j++)
			seen |= !strcmp(p->c[j].name, name);
		if (seen)
			continue;
		rc |= buf_printf(&b, "%s{\"name\": \"%s\", \"rank\": 0", first ? "" : ", ", name);
		for (k = 0; k < 2; k++) {
			int n = 0;

			rc |= buf_puts(&b, k ? ", \"end_times_ns\": [" : ", \"start_times_ns\": [");
			for (j = i; j < MAXCALLS && p->c[j].name; j++)
				if (!strcmp(p->c[j].name, name))
					rc |= buf_printf(
					    &b, "%s%lld", n++ ? ", " : "",
					    (long long)(k ? p->c[j].end : p->c[j].start));
			rc |= buf_puts(&b, "]");
		}
		rc |= buf_puts(&b, "}");
		first = 0;
	}
	rc |= buf_puts(&b, "]}\n");
	assert_int_equal(rc, 0);
	tu_write_file(path, b.data, b.len);
	buf_release(&b);
}

static void check_case(const struct acase *t)
{
	struct compare_opts o;
	struct compare_result r;
	const struct compare_attr *at = NULL;
	char pa[512], pb[512];
	size_t i, n;

	snprintf(pa, sizeof(pa), "%s", tu_path("a.json"));
	snprintf(pb, sizeof(pb), "%s", tu_path("b.json"));
	write_prof(pa, t->a);
	write_prof(pb, t->b);
	memset(&o, 0, sizeof(o));
	o.metric = t->metric;
	o.by_path = t->by_path;
	o.check = t->budget > 0.0;
	o.max_regression = t->budget;
	if (compare_runs(&r, pa, pb, &o))
		fail_msg("%s: compare_runs failed", t->title);
	if (t->want < 0) {
		if (r.attr)
			fail_msg("%s: an attribution", t->title);
		compare_release(&r);
		return;
	}
	if (!r.attr)
		fail_msg("%s: no attribution", t->title);
	for (i = 0; i < r.nrows; i++)
		if (!strcmp(r.rows[i].name, t->row))
			at = &r.attr[i];
	if (!at)
		fail_msg("%s: no row '%s'", t->title, t->row);
	if (!t->want) {
		if (at->n)
			fail_msg("%s: causes for %s", t->title, t->row);
		compare_release(&r);
		return;
	}
	for (n = 0; t->want_c[n].path; n++)
		;
	if (at->n != n)
		fail_msg("%s: %zu causes, want %zu", t->title, at->n, n);
	if (strcmp(stats_metric_name(at->metric), t->what) || at->covers != t->covers ||
	    at->same != t->same || fabs(at->delta - (double)t->delta / 1e9) > 1e-15)
		fail_msg("%s: decomposes %s %g (covers %d, same %d), want %s %g (%d, %d)", t->title,
			 stats_metric_name(at->metric), at->delta, at->covers, at->same, t->what,
			 (double)t->delta / 1e9, t->covers, t->same);
	for (i = 0; i < n; i++) {
		const struct compare_cause *c = &at->causes[i];

		if (strcmp(c->path->name, t->want_c[i].path) ||
		    fabs(c->delta_self - (double)t->want_c[i].delta_self / 1e9) > 1e-15 ||
		    fabs(c->share - t->want_c[i].share) > 1e-9)
			fail_msg("%s: cause %zu is %s %g (%g), want %s", t->title, i, c->path->name,
				 c->delta_self, c->share, t->want_c[i].path);
	}
	compare_release(&r);
}

static void test_cases(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		check_case(&cases[i]);
}

TU_MAIN(NULL, NULL, {cmocka_unit_test(test_cases)})
