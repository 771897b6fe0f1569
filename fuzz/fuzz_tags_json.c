/*
 * fuzz_tags_json.c - libFuzzer target for the tags JSON parser
 * (json_parse_strarray), which reads the JSON text of profile files and of
 * the store.
 *
 * Any input (NUL-terminated copy) must parse or fail cleanly; a parsed
 * array, written back with json_buf_strarray() and parsed again, must give
 * the same strings.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scopedb/err.h"
#include "util/json.h"
#include "scopedb/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), **a = NULL, **b = NULL;
	size_t na = 0, nb = 0, i;
	struct buf out;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	buf_init(&out);
	if (json_parse_strarray(&a, &na, text) == 0) {
		if (json_buf_strarray(&out, (const char *const *)a, na) != 0)
			abort();
		if (json_parse_strarray(&b, &nb, out.data) != 0 || nb != na)
			abort();
		for (i = 0; i < na; i++)
			if (strcmp(a[i], b[i]) != 0)
				abort();
	}
	json_strarray_free(a, na);
	json_strarray_free(b, nb);
	buf_release(&out);
	free(text);
	return 0;
}
