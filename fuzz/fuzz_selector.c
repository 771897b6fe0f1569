/*
 * fuzz_selector.c - libFuzzer target for the run selector parser
 * (select_parse) and the pin name check, which take command-line text.
 *
 * Any input must parse or fail with ERR_USAGE (or ERR_NOMEM); a parsed
 * selector must be self-consistent (a non-empty name set exactly for the
 * named kinds, back >= 0 (the sum of the ~N and ^ suffixes), id >= 0 for
 * SELECT_ID and 0 otherwise, bare only for a commit) and release cleanly.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scopedb/err.h"
#include "scopedb/select.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct select_spec s;
	char *text = malloc(size + 1);
	int rc;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	memset(&s, 0, sizeof(s));
	rc = select_parse(&s, text);
	if (rc == 0) {
		int named = s.kind == SELECT_TAG || s.kind == SELECT_COMMIT ||
			    s.kind == SELECT_BRANCH || s.kind == SELECT_LABEL ||
			    s.kind == SELECT_PIN || s.kind == SELECT_BASE;

		if (s.back < 0 || (named && !s.name) || (!named && s.name) ||
		    (s.kind == SELECT_ID && s.id < 0) || (s.kind != SELECT_ID && s.id != 0) ||
		    (s.bare && s.kind != SELECT_COMMIT) || (s.name && !*s.name))
			abort();
		select_release(&s);
	} else if (rc != ERR_USAGE && rc != ERR_NOMEM && rc != ERR_NOTFOUND) {
		abort();
	}
	(void)select_check_pin_name(text);
	free(text);
	return 0;
}
