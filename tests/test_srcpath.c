/*
 * test_srcpath.c - a region's source file as a path of the repository
 * (src/analysis/srcpath.c), where check's GitHub and GitLab findings
 * point: the checkout's top level or the run's working directory
 * stripped, "." and ".." resolved, a path outside the repository none.
 */
#include <stdlib.h>
#include <string.h>

#include "analysis/srcpath.h"
#include "testutil.h"

/* srcpath_relative(file, workdir, top) is want (NULL: no location). */
static void expect_rel(const char *file, const char *workdir, const char *top, const char *want)
{
	char *got = (char *)"unset";

	assert_int_equal(srcpath_relative(&got, file, workdir, top), 0);
	if (!want) {
		if (got)
			fail_msg("'%s' (workdir %s, top %s): got '%s', want none", file,
				 workdir ? workdir : "-", top ? top : "-", got);
	} else {
		if (!got || strcmp(got, want))
			fail_msg("'%s' (workdir %s, top %s): got '%s', want '%s'", file,
				 workdir ? workdir : "-", top ? top : "-", got ? got : "(none)",
				 want);
	}
	free(got);
}

static void test_absolute(void **state)
{
	(void)state;
	/* under the checkout's top level */
	expect_rel("/ci/repo/src/solver.py", NULL, "/ci/repo", "src/solver.py");
	expect_rel("/ci/repo/src/solver.py", "/ci/repo/build", "/ci/repo", "src/solver.py");
	expect_rel("/ci/repo/build/gen.py", "/ci/repo/build", "/ci/repo", "build/gen.py");
	expect_rel("/ci/repo/src/solver.py", NULL, "/ci/repo/", "src/solver.py");
	/* made in another checkout: its working directory is the top */
	expect_rel("/home/alice/stencil/solver.py", "/home/alice/stencil", "/ci/repo", "solver.py");
	expect_rel("/home/alice/stencil/a/./b//c.py", "/home/alice/stencil", NULL, "a/b/c.py");
	/* outside both: no location */
	expect_rel("/usr/lib/python3/threading.py", "/home/alice/stencil", "/ci/repo", NULL);
	expect_rel("/ci/repository/x.py", NULL, "/ci/repo", NULL);
	expect_rel("/ci/repo/../etc/passwd", NULL, "/ci/repo", NULL);
	expect_rel("/ci/repo/src/../../x.py", NULL, "/ci/repo", NULL);
	expect_rel("/ci/repo/src/../x.py", NULL, "/ci/repo", "x.py");
	expect_rel("/ci/repo", NULL, "/ci/repo", NULL);
	expect_rel("/ci/repo/", NULL, "/ci/repo", NULL);
	expect_rel("/x.py", NULL, NULL, NULL);
	/* a relative root is none */
	expect_rel("/x/y.py", "x", "ci", NULL);
}

static void test_relative(void **state)
{
	(void)state;
	/* from the working directory, placed in the checkout */
	expect_rel("solver.py", "/ci/repo/src", "/ci/repo", "src/solver.py");
	expect_rel("../lib/a.py", "/ci/repo/src", "/ci/repo", "lib/a.py");
	expect_rel("./solver.py", "/ci/repo", "/ci/repo", "solver.py");
	/* a working directory elsewhere, or none: from the top */
	expect_rel("src/solver.py", "/home/alice/stencil", "/ci/repo", "src/solver.py");
	expect_rel("src/solver.py", NULL, NULL, "src/solver.py");
	expect_rel("example.py", NULL, "/ci/repo", "example.py");
	/* climbing out, or nothing left */
	expect_rel("../../x.py", "/ci/repo/src", "/ci/repo", NULL);
	expect_rel("../x.py", NULL, "/ci/repo", NULL);
	expect_rel(".", NULL, "/ci/repo", NULL);
	expect_rel("", "/ci/repo", "/ci/repo", NULL);
	expect_rel(NULL, "/ci/repo", "/ci/repo", NULL);
	/* names are kept as they are: escaping is the renderer's */
	expect_rel("a,b:c%d\nx.py", NULL, NULL, "a,b:c%d\nx.py");
}

TU_MAIN(NULL, NULL,
	{
	    cmocka_unit_test(test_absolute),
	    cmocka_unit_test(test_relative),
	})
