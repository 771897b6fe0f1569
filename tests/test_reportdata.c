/*
 * test_reportdata.c - the pieces of "scopedb report" that need no store:
 * the recent change a trend grid is sorted by (reportdata_recent()), and
 * the page render_html_report() draws from a hand-made struct reportdata:
 * escaping of hostile names, no URL, one chart per region in the order of
 * the largest recent change, and the downsampling of long trends (line
 * vertices and hover points capped, whatever the number of runs).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/reportdata.h"
#include "render/escape.h"
#include "render/render_html.h"
#include "testutil.h"

static void test_recent(void **state)
{
	const double flat[] = {10, 10, 10, 12};
	const double gaps[] = {NAN, 8, NAN, 12, 10, 11};
	double many[30];
	size_t i;

	(void)state;
	assert_true(fabs(reportdata_recent(flat, 4) - 20.0) < 1e-12);
	/* median of 8, 12, 10 is 10 */
	assert_true(fabs(reportdata_recent(gaps, 6) - 10.0) < 1e-12);
	assert_true(isnan(reportdata_recent(flat, 1)));
	{
		const double last_none[] = {1, 2, NAN};
		const double zero[] = {0, 0, 5};

		assert_true(isnan(reportdata_recent(last_none, 3)));
		assert_true(isnan(reportdata_recent(zero, 3)));
	}
	/* only the REPORTDATA_RECENT values before the last count */
	for (i = 0; i < 30; i++)
		many[i] = i < 15 ? 1000.0 : 4.0;
	many[29] = 5.0;
	assert_true(fabs(reportdata_recent(many, 30) - 25.0) < 1e-12);
}

static void test_escape_html(void **state)
{
	struct buf b = BUF_INIT;

	(void)state;
	assert_int_equal(escape_html(&b, "<a href=\"x\">&'</a>"), 0);
	assert_string_equal(b.data, "&lt;a href=&quot;x&quot;&gt;&amp;&apos;&lt;/a&gt;");
	buf_release(&b);
}

/* How many times needle occurs in hay. */
static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	while ((hay = strstr(hay, needle)) != NULL) {
		n++;
		hay += strlen(needle);
	}
	return n;
}

/* A report of nreg regions with npts runs each (no comparison). */
static void fill(struct reportdata *rd, size_t nreg, size_t npts)
{
	size_t i, j;

	memset(rd, 0, sizeof(*rd));
	rd->metric = STATS_TOTAL;
	rd->scope = strdup("branch 'main'");
	rd->generated = strdup("2026-01-01T00:00:00Z");
	rd->regions = calloc(nreg, sizeof(*rd->regions));
	assert_non_null(rd->regions);
	rd->nregions = nreg;
	for (i = 0; i < nreg; i++) {
		struct reportdata_region *r = &rd->regions[i];
		char name[64];

		snprintf(name, sizeof(name), i == 0 ? "<img src=x onerror=alert(%zu)>" : "r%03zu",
			 i);
		r->name = strdup(name);
		r->pts = calloc(npts, sizeof(*r->pts));
		assert_non_null(r->pts);
		r->npts = npts;
		for (j = 0; j < npts; j++) {
			r->pts[j].run_id = (int64_t)j + 1;
			r->pts[j].v = 0.001 * (double)(1 + (j * 7 + i) % 5);
			r->pts[j].time = strdup("2026-01-01T00:00:00Z");
			r->pts[j].commit = strdup("<b>c0ffee</b>");
		}
		r->recent = (double)i; /* the last region has the largest change */
	}
}

/* The page of rd with the default options, appended to b (which must
 * succeed). */
static void render_page(struct buf *b, const struct reportdata *rd)
{
	struct compare_opts co;

	memset(&co, 0, sizeof(co));
	assert_int_equal(render_html_report(b, rd, &co), 0);
}

/* A test's report and its page, released after it whatever the outcome. */
struct page {
	struct reportdata rd;
	struct buf b;
};

/* A page fixture with nothing in it yet. */
static int page_setup(void **state)
{
	struct page *pg = calloc(1, sizeof(*pg));
	const struct buf empty = BUF_INIT;

	if (!pg)
		return -1;
	pg->b = empty;
	*state = pg;
	return 0;
}

/* The page fixture's report and page freed. */
static int page_teardown(void **state)
{
	struct page *pg = *state;

	buf_release(&pg->b);
	reportdata_release(&pg->rd);
	free(pg);
	return 0;
}

static void test_page(void **state)
{
	struct page *pg = *state;
	const char *first, *last;

	fill(&pg->rd, 3, 20);
	render_page(&pg->b, &pg->rd);
	assert_non_null(strstr(pg->b.data, "<!DOCTYPE html>"));
	assert_int_equal(count(pg->b.data, "<img"), 0);
	assert_int_equal(count(pg->b.data, "<b>c0ffee"), 0);
	assert_non_null(strstr(pg->b.data, "&lt;img src=x onerror=alert(0)&gt;"));
	assert_int_equal(count(pg->b.data, "http:"), 0);
	assert_int_equal(count(pg->b.data, "https:"), 0);
	assert_int_equal(count(pg->b.data, "<svg class=\"chart trend\""), 3);
	/* sorted by the largest recent change: r002 first */
	first = strstr(pg->b.data, "<span class=\"rn\">r002");
	last = strstr(pg->b.data, "<span class=\"rn\">&lt;img");
	assert_true(first && last && first < last);
	/* 20 runs: every run is a hover point */
	assert_int_equal(count(pg->b.data, "<circle"), 3 * 20);
}

/* Issue 29: a stored time is text from the store like any other (its first
 * 10 bytes, escaped); the page says what may run (a Content-Security-Policy
 * before anything else); a 0 ns call (log: -inf) or a NaN on the log axis
 * of the distributions is clamped, never "-inf" or "nan" in the SVG. */
static void test_hostile_page(void **state)
{
	struct page *pg = *state;
	const char *csp, *style;
	size_t i;

	fill(&pg->rd, 2, 5);
	for (i = 0; i < 5; i++) {
		free(pg->rd.regions[0].pts[i].time);
		pg->rd.regions[0].pts[i].time = strdup("<img src=x onerror=alert(1)>");
	}
	pg->rd.compared = 1;
	for (i = 0; i < 2; i++) {
		struct reportdata_dist d0 = {1, 4, 0.0, 1e-6, 2e-6, 3e-6, 4e-6, 1.5e-6};
		struct reportdata_dist d1 = {1, 4, NAN, 1e-6, 2e-6, 3e-6, 1e-3, NAN};

		pg->rd.regions[i].dist[0] = d0;
		pg->rd.regions[i].dist[1] = d1;
	}
	render_page(&pg->b, &pg->rd);
	assert_int_equal(count(pg->b.data, "<img"), 0);
	assert_non_null(strstr(pg->b.data, ", &lt;img src=x: "));
	assert_int_equal(count(pg->b.data, "inf\""), 0);
	assert_int_equal(count(pg->b.data, "nan\""), 0);
	assert_int_equal(count(pg->b.data, "<g class=\"box m"), 4);
	csp =
	    strstr(pg->b.data, "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src "
			       "'none'; style-src 'sha256-");
	style = strstr(pg->b.data, "<style>");
	assert_non_null(csp);
	assert_true(style && csp < style);
	assert_non_null(strstr(csp, "'; script-src 'sha256-"));
	assert_int_equal(count(pg->b.data, "Content-Security-Policy"), 1);
}

static void test_downsampled(void **state)
{
	struct page *pg = *state;
	const char *p, *end;
	size_t vertices = 0;

	fill(&pg->rd, 256, 1000);
	render_page(&pg->b, &pg->rd);
	assert_int_equal(count(pg->b.data, "<svg class=\"chart trend\""), 256);
	assert_int_equal(count(pg->b.data, "<circle"), 256 * html_hover_points(256));
	p = strstr(pg->b.data, "<path class=\"line\" d=\"");
	assert_non_null(p);
	end = strchr(p + 22, '"');
	for (; p < end; p++)
		vertices += *p == 'M' || *p == 'L';
	assert_true(vertices <= 2 * HTML_LINE_BUCKETS);
	assert_true(vertices >= HTML_LINE_BUCKETS);
	/* far under the 1 MB of a whole report with its other sections */
	assert_true(pg->b.len < 800 * 1000);
}

TU_MAIN(NULL, NULL,
	{
	    cmocka_unit_test(test_recent),
	    cmocka_unit_test(test_escape_html),
	    cmocka_unit_test_setup_teardown(test_page, page_setup, page_teardown),
	    cmocka_unit_test_setup_teardown(test_hostile_page, page_setup, page_teardown),
	    cmocka_unit_test_setup_teardown(test_downsampled, page_setup, page_teardown),
	})
