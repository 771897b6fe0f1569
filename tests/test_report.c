/*
 * test_report.c - the four output formats of diff and check on a hand-made
 * comparison (its document, report_doc(), through each renderer): upstream's cell formatting (.6g,
 * signed delta, .4g percent,
 * "-" for None, integer calls), CSV quoting, markdown escaping, the exact
 * JSON shape and the shortest round-trip numbers.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scopedb/err.h"
#include "render/format.h"
#include "render/render.h"
#include "render/report.h"
#include "testutil.h"
#include "testutil_stats.h"

static char *tags_a[] = {(char *)"nightly", (char *)"x"};
static char *regions_a[] = {(char *)"gone", (char *)"io,\"x\"", (char *)"solve"};
static char *regions_b[] = {(char *)"new|pipe", (char *)"solve"};
static const char *only_a[] = {"gone"};
static const char *only_b[] = {"new|pipe"};

/* A diff of stored run 7 with the file b.h5 (metric total). */
static void make(struct compare_result *r, struct stats_row *rows)
{
	const struct stats_row rr[3] = {
	    {"solve", TU_V(1.5), TU_V(2.25), 0.75, TU_V(50.0), 0, 0},
	    {"io,\"x\"", TU_V(0.1), TU_NONE, -0.1, TU_V(-100.0), 0, 0},
	    {"new|pipe", TU_NONE, TU_V(3e-05), 3e-05, TU_NONE, 0, 0},
	};

	memcpy(rows, rr, sizeof(rr));
	memset(r, 0, sizeof(*r));
	r->a.run.id = 7;
	r->a.run.source_path = (char *)"/data/a.h5";
	r->a.run.label = (char *)"nightly-41";
	r->a.run.commit = (char *)"1a2b3c4d5e6f7a8b9c0d";
	r->a.run.branch = (char *)"main";
	r->a.run.recorded_at = (char *)"2024-05-01T02:00:00Z";
	r->a.run.tags = tags_a;
	r->a.run.ntags = 2;
	r->a.run.num_ranks = 4;
	r->a.regions = regions_a;
	r->a.nregions = 3;
	r->b.is_file = 1;
	r->b.run.source_path = (char *)"b.h5";
	r->b.run.num_ranks = 1;
	r->b.regions = regions_b;
	r->b.nregions = 2;
	r->rows = rows;
	r->nrows = 3;
	r->only_a = only_a;
	r->nonly_a = 1;
	r->only_b = only_b;
	r->nonly_b = 1;
}

static void make_opts(struct compare_opts *o, int check)
{
	memset(o, 0, sizeof(*o));
	o->metric = STATS_TOTAL;
	o->check = check;
	o->max_regression = 5.0;
}

typedef int (*render_fn)(struct buf *, const struct compare_result *, const struct compare_opts *);

static void expect_render(render_fn fn, const struct compare_result *r,
			  const struct compare_opts *o, const char *want)
{
	struct buf b = BUF_INIT;

	assert_int_equal(fn(&b, r, o), 0);
	if (strcmp(b.data, want))
		fail_msg("got:\n%s\nwant:\n%s", b.data, want);
	buf_release(&b);
}

/* The comparison's document (its verdict from the rows' violation marks)
 * rendered as format. */
static int render(struct buf *b, const char *format, const struct compare_result *r,
		  const struct compare_opts *o, int color)
{
	struct compare_result c = *r;
	struct render_opts ro = {color, 0, FORMAT_UNIT_AUTO, 0};
	struct doc d;
	int rc;

	doc_init(&d);
	if (o->check)
		assert_int_equal(stats_verdict(&c.verdict, r->rows, r->nrows), 0);
	report_doc(&d, &c, o);
	rc = render_doc(b, format, &d, &ro);
	doc_release(&d);
	verdict_release(&c.verdict);
	return rc;
}

static int table_plain(struct buf *b, const struct compare_result *r, const struct compare_opts *o)
{
	return render(b, "table", r, o, 0);
}

static int table_color(struct buf *b, const struct compare_result *r, const struct compare_opts *o)
{
	return render(b, "table", r, o, 1);
}

static int report_markdown(struct buf *b, const struct compare_result *r,
			   const struct compare_opts *o)
{
	return render(b, "markdown", r, o, 0);
}

static int report_csv(struct buf *b, const struct compare_result *r, const struct compare_opts *o)
{
	return render(b, "csv", r, o, 0);
}

static int report_json(struct buf *b, const struct compare_result *r, const struct compare_opts *o)
{
	return render(b, "json", r, o, 0);
}

/* The formatters of format.h: a value cell, a delta cell, a percentage
 * cell and the shortest round-trip number. */
enum cell { CELL_VALUE, CELL_DELTA, CELL_PCT, CELL_NUMBER };

/* What the formatter kind makes of the value (none, v), with integer
 * formatting where asked, must be want (a delta and a number are never
 * None; a percentage has no integer form). */
static void expect_cell(enum cell kind, int none, double v, int integer, const char *want)
{
	char s[64];

	switch (kind) {
	case CELL_VALUE:
		format_value(s, sizeof(s), none, v, integer);
		break;
	case CELL_DELTA:
		format_delta(s, sizeof(s), v, integer);
		break;
	case CELL_PCT:
		format_pct(s, sizeof(s), none, v);
		break;
	case CELL_NUMBER:
		format_number(s, sizeof(s), v, integer);
		break;
	}
	assert_string_equal(s, want);
}

/* A percentage beside a budget shows the digits that say its side:
 * +5.0000216% against +5% is a violation, +4.99999917% is not. */
static void test_pct_edge(void **state)
{
	char s[64];

	(void)state;
	format_pct_edge(s, sizeof(s), 0, 5.0000216, 5.0);
	assert_string_equal(s, "+5.00002%");
	format_pct_edge(s, sizeof(s), 0, 4.99999917, 5.0);
	assert_string_equal(s, "+4.999999%");
	/* on the edge itself, and far from it: three digits */
	format_pct_edge(s, sizeof(s), 0, 5.0, 5.0);
	assert_string_equal(s, "+5%");
	format_pct_edge(s, sizeof(s), 0, 12.345, 5.0);
	assert_string_equal(s, "+12.3%");
	format_pct_edge(s, sizeof(s), 0, -5.0000216, -5.0);
	assert_string_equal(s, "-5.00002%");
	/* no edge (NaN): format_pct() */
	format_pct_edge(s, sizeof(s), 0, 5.0000216, NAN);
	assert_string_equal(s, "+5%");
	format_pct_edge(s, sizeof(s), 1, 5.0000216, 5.0);
	assert_string_equal(s, "-");
	/* as many digits as it takes, up to a double's 17: upstream's
	 * float pct decides (5.000000000000004 is over a budget of 5) */
	format_pct_edge(s, sizeof(s), 0, 5.0 + 1e-12, 5.0);
	assert_string_equal(s, "+5.000000000001%");
	/* (b - a) / a * 100 of 0.3 s and 0.315 s, of 1 ms and 1.05 ms */
	format_pct_edge(s, sizeof(s), 0, (0.315 - 0.3) / 0.3 * 100, 5.0);
	assert_string_equal(s, "+5.000000000000004%");
	format_pct_edge(s, sizeof(s), 0, (0.00105 - 0.001) / 0.001 * 100, 5.0);
	assert_string_equal(s, "+4.99999999999999%");
	/* below 10% as well: 1.0000000000000002 over a budget of 1 */
	format_pct_edge(s, sizeof(s), 0, 1.0000000000000002, 1.0);
	assert_string_equal(s, "+1.0000000000000002%");
	format_pct_edge(s, sizeof(s), 0, 0.0010000000000000002, 0.001);
	assert_string_equal(s, "+0.0010000000000000002%");
	/* -100% is a region gone: a drop that is not all shows its digits */
	format_pct(s, sizeof(s), 0, -99.988);
	assert_string_equal(s, "-99.99%");
	format_pct(s, sizeof(s), 0, -99.9999999);
	assert_string_equal(s, "-99.9999999%");
}

static void test_cells(void **state)
{
	struct stats_val none = TU_NONE;

	(void)state;
	expect_cell(CELL_VALUE, none.none, none.v, 0, "-");
	expect_cell(CELL_VALUE, 0, 123456789.0, 0, "1.23457e+08");
	expect_cell(CELL_VALUE, 0, 0.0001234567, 0, "0.000123457");
	expect_cell(CELL_VALUE, 0, 2.0, 0, "2");
	expect_cell(CELL_VALUE, 0, 1234567.0, 1, "1,234,567");
	expect_cell(CELL_VALUE, 0, 999.0, 1, "999");
	expect_cell(CELL_VALUE, 0, 1000.0, 1, "1,000");
	/* a count from a statistical location (exp of a mean of logs) is
	 * rounded, not cut: 399.99999999999994 is 400 */
	expect_cell(CELL_VALUE, 0, exp(log(400.0)), 1, "400");
	expect_cell(CELL_VALUE, 0, 399.99999999999994, 1, "400");
	expect_cell(CELL_DELTA, 0, -0.9999999, 1, "-1");
	/* ...but a count that falls between two (the median of 10 and 11
	 * calls over repetitions, a geometric mean) shows as it is
	 * compared, its pct of the same number */
	expect_cell(CELL_VALUE, 0, 400.4, 1, "400.4");
	expect_cell(CELL_VALUE, 0, 10.5, 1, "10.5");
	expect_cell(CELL_VALUE, 0, 1234567.25, 1, "1,234,567.25");
	expect_cell(CELL_DELTA, 0, 0.5, 1, "+0.5");
	expect_cell(CELL_DELTA, 0, -0.5, 1, "-0.5");
	expect_cell(CELL_DELTA, 0, -1234.5, 1, "-1,234.5");
	expect_cell(CELL_NUMBER, 0, 10.5, 1, "10.5");
	expect_cell(CELL_NUMBER, 0, 399.99999999999994, 1, "400");
	expect_cell(CELL_NUMBER, 0, 1234.0, 1, "1234");
	expect_cell(CELL_DELTA, 0, 0.0, 0, "+0");
	expect_cell(CELL_DELTA, 0, 0.0, 1, "+0");
	expect_cell(CELL_DELTA, 0, -3.0, 1, "-3");
	expect_cell(CELL_DELTA, 0, -1234.0, 1, "-1,234");
	expect_cell(CELL_DELTA, 0, 12345.0, 1, "+12,345");
	expect_cell(CELL_DELTA, 0, 1e-05, 0, "+1e-05");
	expect_cell(CELL_DELTA, 0, -1.5e-9, 0, "-1.5e-09");
	expect_cell(CELL_PCT, none.none, none.v, 0, "-");
	expect_cell(CELL_PCT, 0, 50.0, 0, "+50%");
	expect_cell(CELL_PCT, 0, -100.0, 0, "-100%");
	/* signed, at most three significant digits, trailing zeros dropped */
	expect_cell(CELL_PCT, 0, 100.0 / 3.0, 0, "+33.3%");
	expect_cell(CELL_PCT, 0, 0.0, 0, "+0%");
	expect_cell(CELL_PCT, 0, 34.98, 0, "+35%");
	expect_cell(CELL_PCT, 0, 4.791, 0, "+4.79%");
	expect_cell(CELL_PCT, 0, -0.7914, 0, "-0.791%");
	expect_cell(CELL_PCT, 0, 111.1, 0, "+111%");
	expect_cell(CELL_PCT, 0, 9.996, 0, "+10%");
	expect_cell(CELL_PCT, 0, -0.0207, 0, "-0.0207%");
	expect_cell(CELL_PCT, 0, 12345.0, 0, "+12300%");
	expect_cell(CELL_PCT, 0, 1.2345e10, 0, "+12300000000%");
}

/* format_duration() of secs in unit u (signed when sign), UTF-8 or not. */
static void expect_duration(double secs, enum format_unit u, int sign, int utf8, const char *want)
{
	char s[64];

	format_duration(s, sizeof(s), secs, u, sign, utf8);
	assert_string_equal(s, want);
}

/* Durations as hyperfine prints them: three significant digits and the
 * unit a column's largest value picks. */
static void test_durations(void **state)
{
	/* the unit of a column's largest value */
	static const struct {
		double v;
		enum format_unit u;
	} picks[] = {{0.0, FORMAT_UNIT_S},   {1.0, FORMAT_UNIT_S},	{0.999, FORMAT_UNIT_MS},
		     {1e-3, FORMAT_UNIT_MS}, {9.99e-4, FORMAT_UNIT_US}, {9.99e-7, FORMAT_UNIT_NS}};
	/* --units names, any case */
	static const struct {
		const char *name;
		enum format_unit u;
	} names[] = {
	    {"MS", FORMAT_UNIT_MS}, {"\u00b5s", FORMAT_UNIT_US}, {"auto", FORMAT_UNIT_AUTO}};
	enum format_unit u;
	size_t i;

	(void)state;
	expect_duration(0.0187, format_unit_pick(0.0187), 0, 1, "18.7 ms");
	expect_duration(0.000412, format_unit_pick(0.000412), 0, 1, "412 \u00b5s");
	expect_duration(0.000412, format_unit_pick(0.000412), 0, 0, "412 us");
	expect_duration(1.25, format_unit_pick(1.25), 0, 1, "1.25 s");
	expect_duration(3.3e-8, format_unit_pick(3.3e-8), 0, 1, "33.0 ns");
	expect_duration(0.000179519, FORMAT_UNIT_MS, 1, 1, "+0.180 ms");
	expect_duration(-0.00524417, FORMAT_UNIT_MS, 1, 1, "-5.24 ms");
	expect_duration(0.0, FORMAT_UNIT_MS, 1, 1, "+0 ms");
	expect_duration(0.0, FORMAT_UNIT_MS, 0, 1, "0 ms");
	expect_duration(0.09996, FORMAT_UNIT_MS, 0, 1, "100 ms"); /* not "100.0" */
	expect_duration(12.3456, FORMAT_UNIT_MS, 0, 1, "12346 ms");
	expect_duration(0.0347942, FORMAT_UNIT_S, 0, 1, "0.0348 s");
	expect_duration(0.0347942, FORMAT_UNIT_US, 0, 1, "34794 \u00b5s");
	expect_duration(0.0347942, FORMAT_UNIT_NS, 0, 0, "34794200 ns");
	for (i = 0; i < sizeof(picks) / sizeof(picks[0]); i++)
		assert_int_equal(format_unit_pick(picks[i].v), picks[i].u);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		assert_int_equal(format_unit_parse(&u, names[i].name), 0);
		assert_int_equal(u, names[i].u);
	}
	assert_int_equal(format_unit_parse(&u, "min"), -1);
}

static void test_numbers(void **state)
{
	char s[64];
	double x = 1.0;
	int i;

	(void)state;
	expect_cell(CELL_NUMBER, 0, 1.0, 0, "1.0");
	expect_cell(CELL_NUMBER, 0, 100.0, 0, "100.0");
	expect_cell(CELL_NUMBER, 0, 0.1, 0, "0.1");
	expect_cell(CELL_NUMBER, 0, 1.0 / 3.0, 0, "0.3333333333333333");
	expect_cell(CELL_NUMBER, 0, 0.1 + 0.2, 0, "0.30000000000000004");
	expect_cell(CELL_NUMBER, 0, 1e-05, 0, "1e-05");
	expect_cell(CELL_NUMBER, 0, -2.5e-9, 0, "-2.5e-09");
	expect_cell(CELL_NUMBER, 0, 0.0, 0, "0.0");
	expect_cell(CELL_NUMBER, 0, 42.0, 1, "42");
	expect_cell(CELL_NUMBER, 0, -7.0, 1, "-7");
	/* Every double survives the trip. */
	for (i = 0; i < 2000; i++) {
		x = x * 1.37 + 1e-7;
		if (x > 1e12)
			x /= 1e15;
		format_number(s, sizeof(s), x, 0);
		assert_true(strtod(s, NULL) == x);
	}
}

/* The descriptions of the two sides of make(). */
#define DESC_A                                                                                     \
	"run 7 (label nightly-41, commit 1a2b3c4d5e6f, branch main, tags nightly,x, recorded "     \
	"2024-05-01T02:00:00Z, 4 ranks)"
#define DESC_B "b.h5 (file, 1 rank)"

/* The terminal rows of make() (durations with a unit per column, aligned
 * on the decimal point) and the lists after them. */
#define TABLE_LISTS                                                                                \
	"\n"                                                                                       \
	"Only in a: gone\n"                                                                        \
	"Only in b: new|pipe\n"
#define TABLE_ROWS                                                                                 \
	"region          a            b         delta  delta %\n"                                  \
	"solve     1.50 s   2.25 s       +750 ms          +50%\n"                                  \
	"io,\"x\"    0.100 s  -            -100 ms         -100%\n"                                \
	"new|pipe  -        0.0000300 s    +0.0300 ms        -\n" TABLE_LISTS
/* The same in a check: the columns say baseline and candidate. */
#define CHECK_ROWS                                                                                 \
	"region    baseline    candidate         delta  delta %\n"                                 \
	"solve      1.50 s   2.25 s       +750 ms          +50%\n"                                 \
	"io,\"x\"     0.100 s  -            -100 ms         -100%\n"                               \
	"new|pipe   -        0.0000300 s    +0.0300 ms        -\n" TABLE_LISTS

/* The markdown rows of make() (name: the first row's region cell; a, b:
 * the titles of the value columns) and the lists after them. */
#define MD_ROWS(name, a, b)                                                                        \
	"\n"                                                                                       \
	"| region | " a " | " b " | delta | delta % |\n"                                           \
	"| :--- | ---: | ---: | ---: | ---: |\n"                                                   \
	"| " name " | 1.50 s | 2.25 s | +750 ms | +50% |\n"                                        \
	"| io,\"x\" | 0.100 s | - | -100 ms | -100% |\n"                                           \
	"| new\\|pipe | - | 0.0000300 s | +0.0300 ms | - |\n"                                      \
	"\n"                                                                                       \
	"Only in a: gone\n"                                                                        \
	"\n"                                                                                       \
	"Only in b: new\\|pipe\n"

/* The JSON of make() up to "rows" (metric: its name). */
#define JSON_HEAD(metric)                                                                          \
	"{\"metric\": \"" metric "\", \"a\": {\"id\": 7, \"path\": \"/data/a.h5\", \"label\": "    \
	"\"nightly-41\", \"commit\": \"1a2b3c4d5e6f7a8b9c0d\", \"branch\": \"main\", \"tags\": "   \
	"[\"nightly\",\"x\"], \"recorded_at\": \"2024-05-01T02:00:00Z\", \"num_ranks\": 4}, "      \
	"\"b\": {\"id\": null, \"path\": \"b.h5\", \"label\": null, \"commit\": null, "            \
	"\"branch\": null, \"tags\": [], \"recorded_at\": null, \"num_ranks\": 1}, \"rows\": "

/* make()'s comparison with its options. */
struct fixture {
	struct compare_result r;
	struct compare_opts o;
	struct stats_row rows[3];
};

/* Per-test setup of the rendering tests: *state is a fresh fixture, a
 * diff (not a check). */
static int setup(void **state)
{
	static struct fixture f;

	make(&f.r, f.rows);
	make_opts(&f.o, 0);
	*state = &f;
	return 0;
}

static void test_table(void **state)
{
	struct fixture *f = *state;
	int64_t ranks[] = {0, 1, 2, 3, 8};

	expect_render(table_plain, &f->r, &f->o,
		      "a: " DESC_A "\nb: " DESC_B "\nMetric: total (seconds)\n\n" TABLE_ROWS);
	/* Colour: red regressions, green improvements, nothing on +0. */
	expect_render(
	    table_color, &f->r, &f->o,
	    "a: " DESC_A "\nb: " DESC_B "\nMetric: total (seconds)\n"
	    "\n"
	    "region          a            b         delta  delta %\n"
	    "solve     1.50 s   2.25 s       \033[31m+750 ms\033[0m       \033[31m   +50%\033[0m\n"
	    "io,\"x\"    0.100 s  -            \033[32m-100 ms\033[0m       \033[32m  "
	    "-100%\033[0m\n"
	    "new|pipe  -        0.0000300 s    +0.0300 ms        -\n" TABLE_LISTS);
	/* within the threshold: no colour */
	f->o.has_threshold = 1;
	f->o.threshold = 100.0;
	expect_render(table_color, &f->r, &f->o,
		      "a: " DESC_A "\nb: " DESC_B "\nMetric: total (seconds)\n\n" TABLE_ROWS);
	/* check: budget, verdict, violations after the table; rank line. */
	make_opts(&f->o, 1);
	f->o.ranks = ranks;
	f->o.nranks = 5;
	f->rows[0].violation = 1;
	f->rows[2].violation = 1;
	expect_render(table_plain, &f->r, &f->o,
		      "Baseline: " DESC_A "\nCandidate: " DESC_B "\n"
		      "Ranks: 0-3,8\n"
		      "Regression budget: +5% (total)\n"
		      "Regression check: FAIL\n"
		      "\n" CHECK_ROWS "Budget violations: solve, new|pipe\n");
	/* PASS with nothing to list, no rows at all. */
	f->r.nrows = 0;
	f->r.nonly_a = f->r.nonly_b = 0;
	f->o.ranks = NULL;
	f->o.max_regression = 2.5;
	f->o.metric = STATS_P95;
	expect_render(table_plain, &f->r, &f->o,
		      "Baseline: " DESC_A "\nCandidate: " DESC_B "\n"
		      "Regression budget: +2.5% (p95)\n"
		      "Regression check: PASS\n"
		      "\n"
		      "No regions to compare.\n");
}

static void test_table_hostile(void **state)
{
	static const char *only[] = {"a\nb"};
	struct fixture *f = *state;

	f->r.a.run.label = (char *)"x\033[2Jy";
	f->r.nrows = 1;
	f->rows[0].name = "s\r\nt";
	f->r.only_a = only;
	f->r.nonly_b = 0;
	f->o.metric = STATS_CALLS;
	f->rows[0].a.v = 3;
	f->rows[0].b.v = 5;
	f->rows[0].delta = 2;
	expect_render(table_plain, &f->r, &f->o,
		      "a: run 7 (label x?[2Jy, commit 1a2b3c4d5e6f, branch main, tags nightly,x, "
		      "recorded 2024-05-01T02:00:00Z, 4 ranks)\n"
		      "b: " DESC_B "\n"
		      "Metric: calls (calls)\n"
		      "\n"
		      "region  a  b  delta  delta %\n"
		      "s??t    3  5     +2     +50%\n"
		      "\n"
		      "Only in a: a?b\n");
}

static void test_markdown(void **state)
{
	struct fixture *f = *state;

	expect_render(report_markdown, &f->r, &f->o,
		      "- **a:** " DESC_A "\n- **b:** " DESC_B
		      "\n- **Metric:** total (seconds)\n" MD_ROWS("solve", "a", "b"));
	make_opts(&f->o, 1);
	f->rows[0].violation = 1;
	f->r.a.run.label = (char *)"*bold* <b>";
	expect_render(
	    report_markdown, &f->r, &f->o,
	    "### Regression check: FAIL\n"
	    "\n"
	    "Budget: +5% (total); budget violations: solve\n"
	    "\n"
	    "- **Baseline:** run 7 (label \\*bold\\* \\<b\\>, commit 1a2b3c4d5e6f, branch "
	    "main, tags nightly,x, recorded 2024-05-01T02:00:00Z, 4 ranks)\n"
	    "- **Candidate:** " DESC_B "\n"
	    "- **Metric:** total (seconds)\n" MD_ROWS("**solve**", "baseline", "candidate"));
}

static void test_csv(void **state)
{
	struct fixture *f = *state;

	expect_render(report_csv, &f->r, &f->o,
		      "region,a,b,delta,pct\n"
		      "solve,1.5,2.25,0.75,50.0\n"
		      "\"io,\"\"x\"\"\",0.1,,-0.1,-100.0\n"
		      "new|pipe,,3e-05,3e-05,\n");
	f->o.metric = STATS_CALLS;
	f->r.nrows = 1;
	f->rows[0].name = "line\nbreak";
	f->rows[0].a.v = 3;
	f->rows[0].b.v = 4;
	f->rows[0].delta = 1;
	f->rows[0].pct.v = 100.0 / 3.0;
	expect_render(report_csv, &f->r, &f->o,
		      "region,a,b,delta,pct\n"
		      "\"line\nbreak\",3,4,1,33.333333333333336\n");
}

static void test_json(void **state)
{
	struct fixture *f = *state;

	expect_render(
	    report_json, &f->r, &f->o,
	    JSON_HEAD(
		"total") "[\n"
			 "  {\"name\": \"solve\", \"a\": 1.5, \"b\": 2.25, \"delta\": 0.75, "
			 "\"pct\": "
			 "50.0},\n"
			 "  {\"name\": \"io,\\\"x\\\"\", \"a\": 0.1, \"b\": null, \"delta\": -0.1, "
			 "\"pct\": -100.0},\n"
			 "  {\"name\": \"new|pipe\", \"a\": null, \"b\": 3e-05, \"delta\": 3e-05, "
			 "\"pct\": null}\n"
			 "], \"missing\": [\"gone\"], \"new\": [\"new|pipe\"], "
			 "\"metadata_changes\": []}\n");
	make_opts(&f->o, 1);
	f->o.fail_on_new = 1;
	f->o.metric = STATS_CALLS;
	f->r.nrows = 1;
	f->rows[0].violation = 1;
	f->rows[0].a.v = 2;
	f->rows[0].b.v = 3;
	f->rows[0].delta = 1;
	expect_render(
	    report_json, &f->r, &f->o,
	    JSON_HEAD("calls") "[\n"
			       "  {\"name\": \"solve\", \"a\": 2, \"b\": 3, \"delta\": 1, \"pct\": "
			       "50.0}\n"
			       "], \"missing\": [\"gone\"], \"new\": [\"new|pipe\"], "
			       "\"max_regression\": 5.0, \"fail_on_new\": true, "
			       "\"fail_on_missing\": false, "
			       "\"status\": \"FAIL\", \"violations\": [\"solve\"], "
			       "\"metadata_changes\": []}\n");
	f->r.nrows = 0;
	f->o.fail_on_new = 0;
	expect_render(
	    report_json, &f->r, &f->o,
	    JSON_HEAD(
		"calls") "[], \"missing\": [\"gone\"], \"new\": [\"new|pipe\"], "
			 "\"max_regression\": 5.0, \"fail_on_new\": false, \"fail_on_missing\": "
			 "false, "
			 "\"status\": \"PASS\", \"violations\": [], \"metadata_changes\": []}\n");
}

static int report_junit(struct buf *b, const struct compare_result *r, const struct compare_opts *o)
{
	return render(b, "junit", r, o, 0);
}

/* JUnit: a testcase per row, a failure per violation (typed regression,
 * missing or new by the rule it broke), names escaped. */
static void test_junit(void **state)
{
	struct fixture *f = *state;

	make_opts(&f->o, 1);
	f->rows[0].violation = 1;
	f->rows[1].name = "io<&>\"'\x01\xff";
	f->rows[1].violation = 1; /* no b: --fail-on-missing */
	f->rows[2].violation = 1; /* no a: --fail-on-new */
	expect_render(
	    report_junit, &f->r, &f->o,
	    "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	    "<testsuite name=\"scopedb.check\" tests=\"3\" failures=\"3\" errors=\"0\" "
	    "skipped=\"0\">\n"
	    "  <testcase name=\"solve\" classname=\"scopedb.check.total\">\n"
	    "    <failure type=\"regression\" message=\"baseline: 1.50 s, candidate: 2.25 s, "
	    "delta: "
	    "+750 ms, delta %: +50%\">baseline: 1.50 s, candidate: 2.25 s, delta: +750 ms, "
	    "delta %: +50%</failure>\n"
	    "  </testcase>\n"
	    "  <testcase name=\"io&lt;&amp;&gt;&quot;&apos;??\" "
	    "classname=\"scopedb.check.total\">\n"
	    "    <failure type=\"missing\" message=\"baseline: 100 ms, candidate: -, delta: -100 "
	    "ms, "
	    "delta %: -100%\">baseline: 100 ms, candidate: -, delta: -100 ms, delta %: "
	    "-100%</failure>\n"
	    "  </testcase>\n"
	    "  <testcase name=\"new|pipe\" classname=\"scopedb.check.total\">\n"
	    "    <failure type=\"new\" message=\"baseline: -, candidate: 30.0 µs, delta: +30.0 µs, "
	    "delta %: -\">baseline: -, candidate: 30.0 µs, delta: +30.0 µs, delta %: -</failure>\n"
	    "  </testcase>\n"
	    "</testsuite>\n");
	make_opts(&f->o, 0);
	f->r.nrows = 0;
	expect_render(report_junit, &f->r, &f->o,
		      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		      "<testsuite name=\"scopedb.diff\" tests=\"0\" failures=\"0\" errors=\"0\" "
		      "skipped=\"0\">\n"
		      "</testsuite>\n");
}

TU_MAIN(NULL, NULL,
	{
	    cmocka_unit_test(test_cells),
	    cmocka_unit_test(test_pct_edge),
	    cmocka_unit_test(test_numbers),
	    cmocka_unit_test(test_durations),
	    cmocka_unit_test_setup(test_table, setup),
	    cmocka_unit_test_setup(test_table_hostile, setup),
	    cmocka_unit_test_setup(test_markdown, setup),
	    cmocka_unit_test_setup(test_csv, setup),
	    cmocka_unit_test_setup(test_json, setup),
	    cmocka_unit_test_setup(test_junit, setup),
	})
