/*
 * jsonparse.c - the JSON parser comparison of issue 25 (bench/RESULTS.md):
 * one program, built once per parser, that reads a JSON profile (format
 * scope-profiler-profile) and does the work every reader must: for each
 * element of "regions", its start_times_ns and end_times_ns as int64, the
 * sum of end - start, and the number of calls.  It prints
 * "PARSER calls total_ns" so the runs can be checked against each other;
 * time and peak memory are measured around the whole process (bench/run
 * prints the commands).
 *
 *   bench_jsonparse_scopedb FILE   scopedb's reader (src/jsonprof/)
 *   bench_jsonparse_jansson FILE   jansson (libjansson-dev), when installed
 *   bench_jsonparse_jsonc FILE     json-c (libjson-c-dev), when installed
 *
 * The library versions read the file with their own loaders (both build
 * the whole document in memory first; neither has a streaming API) and
 * are asked for the same strictness where they offer it: jansson rejects
 * duplicate keys; json-c gets a 64-level depth limit and strict mode.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static uint64_t g_calls;
static int64_t g_total;

#if defined(JSONBENCH_JANSSON)
#include <jansson.h>

static int run(const char *path)
{
	json_error_t e;
	json_t *doc = json_load_file(path, JSON_REJECT_DUPLICATES, &e), *regions, *row;
	size_t i, k;

	if (!doc) {
		fprintf(stderr, "jansson: %s (line %d)\n", e.text, e.line);
		return 1;
	}
	regions = json_object_get(doc, "regions");
	json_array_foreach(regions, i, row)
	{
		json_t *s = json_object_get(row, "start_times_ns");
		json_t *t = json_object_get(row, "end_times_ns");

		if (json_array_size(s) != json_array_size(t))
			return 1;
		for (k = 0; k < json_array_size(s); k++) {
			json_t *a = json_array_get(s, k), *b = json_array_get(t, k);

			if (!json_is_integer(a) || !json_is_integer(b))
				return 1;
			g_total += (int64_t)(json_integer_value(b) - json_integer_value(a));
			g_calls++;
		}
	}
	json_decref(doc);
	printf("jansson %" PRIu64 " %" PRId64 "\n", g_calls, g_total);
	return 0;
}
#elif defined(JSONBENCH_JSONC)
#include <json-c/json.h>

static int run(const char *path)
{
	struct json_tokener *tok = json_tokener_new_ex(64);
	struct json_object *doc, *regions;
	struct stat st;
	char *text;
	size_t i, k, n;
	int fd = open(path, O_RDONLY);

	if (fd < 0 || fstat(fd, &st) || !tok)
		return 1;
	text = malloc((size_t)st.st_size);
	if (!text || read(fd, text, (size_t)st.st_size) != st.st_size)
		return 1;
	close(fd);
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	doc = json_tokener_parse_ex(tok, text, (int)st.st_size);
	free(text);
	if (!doc) {
		fprintf(stderr, "json-c: %s\n",
			json_tokener_error_desc(json_tokener_get_error(tok)));
		return 1;
	}
	if (!json_object_object_get_ex(doc, "regions", &regions))
		return 1;
	n = json_object_array_length(regions);
	for (i = 0; i < n; i++) {
		struct json_object *row = json_object_array_get_idx(regions, i), *s, *t;

		if (!json_object_object_get_ex(row, "start_times_ns", &s) ||
		    !json_object_object_get_ex(row, "end_times_ns", &t) ||
		    json_object_array_length(s) != json_object_array_length(t))
			return 1;
		for (k = 0; k < json_object_array_length(s); k++) {
			struct json_object *a = json_object_array_get_idx(s, k);
			struct json_object *b = json_object_array_get_idx(t, k);

			if (!json_object_is_type(a, json_type_int) ||
			    !json_object_is_type(b, json_type_int))
				return 1;
			g_total += json_object_get_int64(b) - json_object_get_int64(a);
			g_calls++;
		}
	}
	json_object_put(doc);
	json_tokener_free(tok);
	printf("json-c %" PRIu64 " %" PRId64 "\n", g_calls, g_total);
	return 0;
}
#else
#include "scopedb/err.h"
#include "jsonprof/jsonprof.h"

static int row_fn(void *ctx, const struct h5prof_row *row)
{
	uint64_t i;

	(void)ctx;
	for (i = 0; row->has_events && i < row->calls; i++)
		g_total += row->durations[i];
	g_calls += row->calls;
	return 0;
}

static int run(const char *path)
{
	struct jsonprof *j = NULL;
	struct stat st;
	int fd = open(path, O_RDONLY), rc;

	if (fd < 0 || fstat(fd, &st))
		return 1;
	rc = jsonprof_open(&j, path, fd, &st);
	if (!rc)
		rc = jsonprof_read(j, row_fn, NULL);
	jsonprof_free(j);
	close(fd);
	if (rc) {
		fprintf(stderr, "scopedb: %s\n", err_msg());
		return 1;
	}
	printf("scopedb %" PRIu64 " %" PRId64 "\n", g_calls, g_total);
	return 0;
}
#endif

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s FILE.json\n", argv[0]);
		return 2;
	}
	return run(argv[1]);
}
