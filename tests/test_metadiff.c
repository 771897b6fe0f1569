/*
 * test_metadiff.c - the metadata differences of two runs (metadiff.c):
 * changed, added and removed keys, volatile keys left out unless asked
 * for, and the text (aligned, cut, control characters), markdown and JSON
 * renderings (report_meta_*() in src/render/report.c).
 */
#include <stdlib.h>
#include <string.h>

#include "render/render.h"
#include "render/report.h"
#include "scopedb/err.h"
#include "scopedb/metadiff.h"
#include "scopedb/store.h"
#include "testutil.h"

static const char *const ka[] = {"SLURM_JOB_ID", "hostname", "modules", "mpi_size", "timestamp"};
static const char *const va[] = {"11", "node1", "[\"gcc/13\"]", "4", "2026-01-01T00:00:00Z"};
static const char *const kb[] = {"SLURM_JOB_ID", "mpi_size", "omp_num_threads", "timestamp"};
static const char *const vb[] = {"12", "8", "2", "2026-01-02T00:00:00Z"};

/* A struct store_meta owning copies of k/v (release with
 * store_meta_release()). */
static struct store_meta mk(const char *const *k, const char *const *v, size_t n)
{
	struct store_meta m;
	size_t i;

	m.n = n;
	m.keys = calloc(n, sizeof(*m.keys));
	m.values = calloc(n, sizeof(*m.values));
	assert_non_null(m.keys);
	assert_non_null(m.values);
	for (i = 0; i < n; i++) {
		m.keys[i] = util_strdup(k[i]);
		m.values[i] = util_strdup(v[i]);
	}
	return m;
}

/*
 * The changes' document (report_meta_*()) rendered as format must be want;
 * of JSON only the array is compared (it is rendered as a member of
 * {"m": ...}, which is cut off).
 */
static void expect_render(const char *format, const struct metadiff_change *c, size_t n,
			  const char *indent, size_t maxw, const char *want)
{
	struct buf out = BUF_INIT;
	struct doc d;

	doc_init(&d);
	if (!strcmp(format, "table"))
		report_meta_text(&d, c, n, indent, maxw);
	else if (!strcmp(format, "markdown"))
		report_meta_md(&d, c, n, maxw);
	else
		report_meta_json(&d, doc_json_root(&d, DOC_V_OBJ, JSONW_INLINE), "m", c, n);
	assert_int_equal(render_doc(&out, format, &d, NULL), 0);
	doc_release(&d);
	if (!strcmp(format, "json")) {
		assert_true(out.len >= 8);
		memmove(out.data, out.data + 6, out.len - 8);
		out.len -= 8;
		out.data[out.len] = '\0';
	}
	assert_string_equal(out.data, want);
	buf_release(&out);
}

/* The changes from a to b (volatile keys too when all): there must be
 * want_n of them; the caller frees them with metadiff_free(). */
static struct metadiff_change *changes(const struct store_meta *a, const struct store_meta *b,
				       int all, size_t want_n)
{
	struct metadiff_change *c = NULL;
	size_t n = 0;

	assert_int_equal(metadiff_compute(&c, &n, a, b, all), 0);
	assert_int_equal(n, want_n);
	return c;
}

static void test_compute(void **state)
{
	struct store_meta a = mk(ka, va, 5), b = mk(kb, vb, 4);
	struct metadiff_change *c;

	(void)state;
	c = changes(&a, &b, 0, 4);
	assert_string_equal(c[0].key, "hostname");
	assert_string_equal(c[0].a, "node1");
	assert_null(c[0].b);
	assert_string_equal(c[2].key, "mpi_size");
	assert_string_equal(c[3].key, "omp_num_threads");
	assert_null(c[3].a);
	expect_render("table", c, 4, "  ", 0,
		      "  hostname         node1 -> (unset)\n"
		      "  modules          [\"gcc/13\"] -> (unset)\n"
		      "  mpi_size         4 -> 8\n"
		      "  omp_num_threads  (unset) -> 2\n");
	expect_render("json", c, 1, NULL, 0,
		      "[{\"key\": \"hostname\", \"a\": \"node1\", \"b\": null}]");
	expect_render("markdown", c + 2, 1, NULL, 0, "- mpi\\_size: 4 → 8\n");
	metadiff_free(c, 4);

	c = changes(&a, &b, 1, 6);
	assert_string_equal(c[0].key, "SLURM_JOB_ID");
	assert_string_equal(c[5].key, "timestamp");
	metadiff_free(c, 6);

	/* identical runs: nothing */
	c = changes(&a, &a, 1, 0);
	assert_null(c);
	expect_render("json", c, 0, NULL, 0, "[]");
	store_meta_release(&a);
	store_meta_release(&b);
}

static void test_cut(void **state)
{
	static const char *const k[] = {"PATH"}, *const v1[] = {"/usr/bin:/bïn\n"},
				 *const v2[] = {"x"};
	struct store_meta a = mk(k, v1, 1), b = mk(k, v2, 1);
	struct metadiff_change *c;

	(void)state;
	c = changes(&a, &b, 0, 1);
	expect_render("table", c, 1, "", 11, "PATH  /usr/bin:/b... -> x\n");
	expect_render("table", c, 1, "", 0, "PATH  /usr/bin:/bïn? -> x\n");
	metadiff_free(c, 1);
	assert_true(metadiff_is_volatile("start_time_ns"));
	assert_false(metadiff_is_volatile("SLURM_NTASKS"));
	store_meta_release(&a);
	store_meta_release(&b);
}

TU_MAIN(NULL, NULL,
	{
	    cmocka_unit_test(test_compute),
	    cmocka_unit_test(test_cut),
	})
