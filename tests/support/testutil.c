/*
 * testutil.c - temporary directories, fixture paths and whole files for the
 * tests, and the choice of which cases a test program runs (its arguments
 * or UNIT_CASES, glob patterns of case names).
 */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"

static char tu_dir[256];

static void tu_cleanup(void)
{
	char cmd[300];

	if (!tu_dir[0] || getenv("SCOPEDB_KEEP_TMP"))
		return;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tu_dir);
	if (system(cmd) != 0)
		fprintf(stderr, "warning: could not remove %s\n", tu_dir);
}

const char *tu_tmpdir(void)
{
	if (!tu_dir[0]) {
		const char *base = getenv("TMPDIR");

		snprintf(tu_dir, sizeof(tu_dir), "%s/scopedb-test-XXXXXX", base ? base : "/tmp");
		if (!mkdtemp(tu_dir)) {
			perror("mkdtemp");
			exit(1);
		}
		atexit(tu_cleanup);
	}
	return tu_dir;
}

const char *tu_git_sandbox(void)
{
	const char *top = tu_tmpdir();
	char parent[sizeof(tu_dir)];

	snprintf(parent, sizeof(parent), "%s", top);
	*strrchr(parent, '/') = '\0';
	setenv("GIT_CEILING_DIRECTORIES", parent, 1);
	setenv("GIT_CONFIG_NOSYSTEM", "1", 1);
	setenv("HOME", top, 1);
	return top;
}

const char *tu_path(const char *name)
{
	static char bufs[8][512];
	static unsigned slot;
	char *b = bufs[slot++ % 8];

	snprintf(b, 512, "%s/%s", tu_tmpdir(), name);
	return b;
}

const char *tu_fixture(const char *name)
{
	static char bufs[8][512];
	static unsigned slot;
	char *b = bufs[slot++ % 8];

	snprintf(b, 512, "%s/%s", SCOPEDB_FIXTURES, name);
	return b;
}

long tu_file_size(const char *path)
{
	struct stat sb;

	assert_int_equal(stat(path, &sb), 0);
	return (long)sb.st_size;
}

int tu_file_exists(const char *path)
{
	struct stat sb;

	return stat(path, &sb) == 0;
}

unsigned char *tu_read_file(const char *path, long *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *b;

	assert_non_null(f);
	*len = tu_file_size(path);
	b = malloc((size_t)(*len ? *len : 1));
	assert_non_null(b);
	assert_int_equal(fread(b, 1, (size_t)*len, f), (size_t)*len);
	fclose(f);
	return b;
}

void tu_write_file(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	if (len)
		assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
}

/* ---- which cases run ------------------------------------------------------------------------ */

static const char *tu_prog = "test";
static char **tu_patterns; /* the patterns that choose cases; none: every case */
static size_t tu_npatterns;
static char *tu_env_cases; /* UNIT_CASES's copy, cut at its spaces into patterns */

const char *tu_program(void)
{
	return tu_prog;
}

static void tu_usage(FILE *f)
{
	fprintf(f,
		"usage: %s [--list] [--] [PATTERN...]\n"
		"Runs the cases whose names match a glob PATTERN, every case with none.  With no\n"
		"PATTERN, UNIT_CASES gives them (separated by spaces), as E2E_CASES does for the\n"
		"end-to-end scripts: UNIT_CASES='test_a*' ctest -R %s.  --list names the cases\n"
		"chosen; CMOCKA_MESSAGE_OUTPUT=TAP (or XML, SUBUNIT) sets cmocka's output.\n",
		tu_prog, tu_prog);
}

/* 1 if the case called name is chosen. */
static int tu_chosen(const char *name)
{
	size_t i;

	if (!tu_npatterns)
		return 1;
	for (i = 0; i < tu_npatterns; i++)
		if (fnmatch(tu_patterns[i], name, 0) == 0)
			return 1;
	return 0;
}

/* The cases' names on one line, for the message of a pattern that matches none. */
static void tu_print_names(FILE *f, const struct CMUnitTest *tests, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		fprintf(f, " %s", tests[i].name);
	fputc('\n', f);
}

int tu_choose(int argc, char **argv, const struct CMUnitTest *tests, size_t n)
{
	const char *env = getenv("UNIT_CASES");
	size_t i, k, room;
	int list = 0, options = 1;

	if (argc > 0 && argv[0] && argv[0][0]) {
		const char *slash = strrchr(argv[0], '/');

		tu_prog = slash ? slash + 1 : argv[0];
	}
	room = (size_t)(argc > 0 ? argc : 0) + (env ? strlen(env) / 2 + 1 : 0);
	tu_patterns = calloc(room ? room : 1, sizeof(*tu_patterns));
	if (!tu_patterns) {
		fprintf(stderr, "%s: out of memory\n", tu_prog);
		return 1;
	}
	for (i = 1; i < (size_t)(argc > 0 ? argc : 0); i++) {
		if (!options || argv[i][0] != '-') {
			tu_patterns[tu_npatterns++] = argv[i];
		} else if (!strcmp(argv[i], "--")) {
			options = 0; /* patterns only from here */
		} else if (!strcmp(argv[i], "--list")) {
			list = 1;
		} else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			tu_usage(stdout);
			return 0;
		} else {
			fprintf(stderr, "%s: unknown option '%s'\n", tu_prog, argv[i]);
			tu_usage(stderr);
			return 2;
		}
	}
	if (!tu_npatterns && env) {
		char *save = NULL, *p;

		tu_env_cases = strdup(env);
		if (!tu_env_cases) {
			fprintf(stderr, "%s: out of memory\n", tu_prog);
			return 1;
		}
		for (p = strtok_r(tu_env_cases, " \t\n", &save); p;
		     p = strtok_r(NULL, " \t\n", &save))
			tu_patterns[tu_npatterns++] = p;
	}
	for (k = 0; k < tu_npatterns; k++) {
		for (i = 0; i < n && fnmatch(tu_patterns[k], tests[i].name, 0) != 0; i++)
			;
		if (i == n) {
			fprintf(stderr, "%s: no case matches '%s'; the cases are:", tu_prog,
				tu_patterns[k]);
			tu_print_names(stderr, tests, n);
			return 2;
		}
	}
	if (!list)
		return -1;
	for (i = 0; i < n; i++)
		if (tu_chosen(tests[i].name))
			printf("%s\n", tests[i].name);
	return 0;
}

int tu_run_group(const char *name, const struct CMUnitTest *tests, size_t n,
		 CMFixtureFunction setup, CMFixtureFunction teardown)
{
	struct CMUnitTest *chosen = malloc((n ? n : 1) * sizeof(*chosen));
	size_t i, k = 0;
	int failed = 0;

	if (!chosen) {
		fprintf(stderr, "%s: out of memory\n", tu_prog);
		return 1;
	}
	for (i = 0; i < n; i++)
		if (tu_chosen(tests[i].name))
			chosen[k++] = tests[i];
	if (k)
		failed = _cmocka_run_group_tests(name, chosen, k, setup, teardown);
	free(chosen);
	return failed;
}
