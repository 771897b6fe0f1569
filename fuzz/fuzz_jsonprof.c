/*
 * fuzz_jsonprof.c - libFuzzer target for the JSON profile reader
 * (src/jsonprof/: the streaming tokenizer, gzip, the document's checks),
 * which reads untrusted JSON profiles (issue 25).
 *
 * Any input is read from memory (gzip when it starts with the gzip magic)
 * and must be read or refused cleanly, with a one-line message naming the
 * document.  Every row handed out must keep the reader's promises: region
 * ids below the number of names, durations >= 0, per-call arrays present
 * exactly when the row has calls and events, normalized tags, and a total
 * of calls equal to the info's num_events.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scopedb/err.h"
#include "jsonprof/jsonprof.h"
#include "util/json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct fz_state {
	uint64_t calls;
	size_t rows;
};

static int fz_row(void *ctx, const struct h5prof_row *row)
{
	struct fz_state *s = ctx;
	uint64_t i;

	if (row->has_events && row->calls && (!row->starts || !row->durations))
		abort();
	for (i = 0; row->has_events && i < row->calls; i++)
		if (row->durations[i] < 0)
			abort();
	if (!row->tags_json || row->tags_json[0] != '[' || !row->source_file || !row->source_text)
		abort();
	s->calls += row->calls;
	s->rows++;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct jsonprof *j = NULL;
	struct fz_state s = {0, 0};
	const struct h5prof_info *info;
	int rc;

	if (jsonprof_open_mem(&j, "fuzz.json", data, size) != 0)
		return 0;
	rc = jsonprof_read(j, fz_row, &s);
	info = jsonprof_info(j);
	if (rc == 0) {
		if (s.calls != info->num_events || s.rows != info->num_rows)
			abort();
		if (info->num_rows && info->num_ranks == 0)
			abort();
	} else if (!strstr(err_msg(), "'fuzz.json'") || strchr(err_msg(), '\n')) {
		abort();
	}
	jsonprof_free(j);
	return 0;
}
