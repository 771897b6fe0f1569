/*
 * hostile_json.c - the hostile JSON profiles of hostile_json.h.  Each case
 * is a text built here (a valid document with one thing wrong, mostly),
 * written plain or through zlib's gzip writer.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include "hostile_json.h"
#include "scopedb/util.h"

#define HDR "{\"format\": \"scope-profiler-profile\", \"format_version\": 1, \"num_ranks\": 1, "
#define ROW(fields) "{\"name\": \"solve\", \"rank\": 0, " fields "}"
#define DOC(rows) HDR "\"regions\": [" rows "]}"
#define GOOD_ROW ROW("\"start_times_ns\": [10, 20], \"end_times_ns\": [15, 33]")

const struct hostile_json_case hostile_json_cases[] = {
    {"empty", 0, "not a JSON profile (the file is empty)"},
    {"not-json", 0, "not a JSON profile (it starts with neither '{' nor gzip data)"},
    {"not-profile", 0, "not a scope-profiler profile (no \"format\""},
    {"other-format", 0, "not a scope-profiler profile (its format is 'speedscope'"},
    {"newer-version", 0, "JSON profile format version 2 is newer than this scopedb reads (1)"},
    {"regions-first", 0, "before its \"regions\""},
    {"no-regions", 0, "not a scope-profiler profile (no regions found)"},
    {"time-unit", 0, "unsupported time_unit 'seconds'; supported: nanoseconds"},
    {"time-unit-empty", 0, "unsupported time_unit ''; supported: nanoseconds"},
    {"num-ranks-range", 0, "\"num_ranks\" is out of range (4294967296)"},
    {"mismatched", 0, "\"end_times_ns\" has 2 values but \"start_times_ns\" has 3"},
    {"gpu-mismatched", 0, "\"gpu_durations_ns\" has 1 values but \"start_times_ns\" has 2"},
    {"ends-only", 0, "has \"end_times_ns\" but no \"start_times_ns\""},
    {"float-time", 0, "end_times_ns is not an integer"},
    {"int-2p63", 0, "end_times_ns is out of range (a 64-bit integer)"},
    {"num-1e400", 0, "start_times_ns is not an integer"},
    {"mean-1e400", 0, "aggregate.mean is out of range (1e400)"},
    {"leading-zero", 0, "invalid number (a leading zero)"},
    {"negative-duration", 0, "call 1: negative duration (start 20 ns, end 5 ns)"},
    {"duration-overflow", 0,
     "call 0: its duration overflows 64 bits (start -9223372036854775808 ns, end 5 ns)"},
    {"wrong-type", 0, "a region's \"rank\" is a string, not an integer"},
    {"tags-type", 0, "\"tags\" holds a value that is not a string"},
    {"no-name", 0, "regions[0] has no \"name\""},
    {"rank-range", 0, "the rank is out of range (0 to 4294967294)"},
    {"duplicate-key", 0, "duplicate key 'rank' in a region row"},
    {"duplicate-meta", 0, "duplicate key 'label' in \"metadata\""},
    {"duplicate-row", 0, "rank 0 of region 'solve' appears twice"},
    {"both", 0, "has both \"aggregate\" and \"start_times_ns\""},
    {"agg-negative", 0, "the aggregate has a negative time"},
    {"agg-count", 0, "aggregate.count is negative (-1)"},
    {"deep", 0, "the document is nested deeper than 64 levels"},
    {"huge-string", 0, "a string is longer than 16 MiB"},
    {"nul-escape", 0, "a string holds a NUL character (\\u0000)"},
    {"nul-byte", 0, "a string holds a NUL byte"},
    {"bad-utf8", 0, "a string is not valid UTF-8"},
    {"lone-surrogate", 0, "a string holds a lone UTF-16 surrogate"},
    {"truncated", 0, "found the end of the document"},
    {"trailing-data", 0, "data follows the JSON document"},
    {"gz-truncated", 1, "the gzip stream is truncated"},
    {"gz-damaged", 1, "the gzip stream is damaged (incorrect data check)"},
    {"gz-trailing", 1, "data follows the gzip stream"},
    {"gz-bomb", 1, "times its size"},
    {"gz-hdf5", 1, "a gzip-compressed HDF5 file; decompress it first (gunzip)"},
};
const size_t hostile_json_ncases = sizeof(hostile_json_cases) / sizeof(hostile_json_cases[0]);

const struct hostile_json_case *hostile_json_find(const char *kind)
{
	size_t i;

	for (i = 0; i < hostile_json_ncases; i++)
		if (!strcmp(hostile_json_cases[i].kind, kind))
			return &hostile_json_cases[i];
	return NULL;
}

/* The text of case kind into b (plain, before any gzip). */
static int hj_text(const char *kind, struct buf *b)
{
	static const struct {
		const char *kind, *text;
	} fixed[] = {
	    {"empty", ""},
	    {"not-json", "[1, 2, 3]"},
	    {"not-profile", "{\"traceEvents\": [], \"regions\": []}"},
	    {"other-format", "{\"format\": \"speedscope\", \"regions\": []}"},
	    {"newer-version",
	     "{\"format\": \"scope-profiler-profile\", \"format_version\": 2, \"regions\": []}"},
	    {"regions-first",
	     "{\"regions\": [" GOOD_ROW "], \"format\": \"scope-profiler-profile\"}"},
	    {"no-regions", DOC("")},
	    {"time-unit", HDR "\"time_unit\": \"seconds\", \"regions\": [" GOOD_ROW "]}"},
	    {"time-unit-empty", HDR "\"time_unit\": \"\", \"regions\": [" GOOD_ROW "]}"},
	    {"num-ranks-range", "{\"format\": \"scope-profiler-profile\", \"format_version\": 1, "
				"\"num_ranks\": 4294967296, \"regions\": [" GOOD_ROW "]}"},
	    {"mismatched", DOC(ROW("\"start_times_ns\": [1, 2, 3], \"end_times_ns\": [2, 3]"))},
	    {"gpu-mismatched",
	     DOC(ROW("\"start_times_ns\": [1, 2], \"end_times_ns\": [2, 3], \"gpu_durations_ns\": "
		     "[1]"))},
	    {"ends-only", DOC(ROW("\"end_times_ns\": [2, 3]"))},
	    {"float-time", DOC(ROW("\"start_times_ns\": [1], \"end_times_ns\": [2.5]"))},
	    {"int-2p63",
	     DOC(ROW("\"start_times_ns\": [0], \"end_times_ns\": [9223372036854775808]"))},
	    {"num-1e400", DOC(ROW("\"start_times_ns\": [1e400], \"end_times_ns\": [2]"))},
	    {"mean-1e400", DOC(ROW("\"aggregate\": {\"count\": 1, \"total\": 5, \"minimum\": 5, "
				   "\"maximum\": 5, \"mean\": 1e400}"))},
	    {"leading-zero", DOC(ROW("\"start_times_ns\": [01], \"end_times_ns\": [2]"))},
	    {"negative-duration",
	     DOC(ROW("\"start_times_ns\": [10, 20], \"end_times_ns\": [15, 5]"))},
	    {"duration-overflow",
	     DOC(ROW("\"start_times_ns\": [-9223372036854775808], \"end_times_ns\": [5]"))},
	    {"wrong-type", DOC("{\"name\": \"solve\", \"rank\": \"0\", \"start_times_ns\": [], "
			       "\"end_times_ns\": []}")},
	    {"tags-type", DOC(ROW("\"tags\": [\"a\", 1], \"start_times_ns\": [], "
				  "\"end_times_ns\": []"))},
	    {"no-name", DOC("{\"rank\": 0, \"start_times_ns\": [1], \"end_times_ns\": [2]}")},
	    {"rank-range", DOC("{\"name\": \"solve\", \"rank\": 4294967295, \"start_times_ns\": "
			       "[1], \"end_times_ns\": [2]}")},
	    {"duplicate-key", DOC("{\"name\": \"solve\", \"rank\": 0, \"rank\": 1, "
				  "\"start_times_ns\": [1], \"end_times_ns\": [2]}")},
	    {"duplicate-meta", HDR
	     "\"metadata\": {\"label\": \"a\", \"label\": \"b\"}, \"regions\": [" GOOD_ROW "]}"},
	    {"duplicate-row", DOC(GOOD_ROW ", " GOOD_ROW)},
	    {"both", DOC(ROW("\"aggregate\": {\"count\": 1, \"total\": 5, \"minimum\": 5, "
			     "\"maximum\": 5}, \"start_times_ns\": [1], \"end_times_ns\": [6]"))},
	    {"agg-negative", DOC(ROW("\"aggregate\": {\"count\": 2, \"total\": -5, \"minimum\": "
				     "1, \"maximum\": 3}"))},
	    {"agg-count", DOC(ROW("\"aggregate\": {\"count\": -1, \"total\": 5, \"minimum\": 1, "
				  "\"maximum\": 3}"))},
	    {"nul-escape", DOC("{\"name\": \"a\\u0000b\", \"rank\": 0, \"start_times_ns\": [1], "
			       "\"end_times_ns\": [2]}")},
	    {"bad-utf8", DOC("{\"name\": \"a\xc3\x28\", \"rank\": 0, \"start_times_ns\": [1], "
			     "\"end_times_ns\": [2]}")},
	    {"lone-surrogate",
	     DOC("{\"name\": \"a\\ud800x\", \"rank\": 0, \"start_times_ns\": [1], "
		 "\"end_times_ns\": [2]}")},
	    {"trailing-data", DOC(GOOD_ROW) " x"},
	};
	size_t i;

	b->len = 0;
	if (buf_grow(b, 0))
		return -1;
	b->data[0] = '\0';
	for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		if (!strcmp(fixed[i].kind, kind))
			return buf_puts(b, fixed[i].text) ? -1 : 0;
	if (!strcmp(kind, "deep")) {
		if (buf_puts(b, HDR "\"likwid\": "))
			return -1;
		for (i = 0; i < 100; i++)
			if (buf_putc(b, '['))
				return -1;
		for (i = 0; i < 100; i++)
			if (buf_putc(b, ']'))
				return -1;
		return buf_puts(b, ", \"regions\": [" GOOD_ROW "]}") ? -1 : 0;
	}
	if (!strcmp(kind, "huge-string")) {
		size_t n = ((size_t)16 << 20) + 10;

		if (buf_puts(b, HDR "\"regions\": [{\"name\": \"") || buf_grow(b, n))
			return -1;
		memset(b->data + b->len, 'a', n);
		b->len += n;
		b->data[b->len] = '\0';
		return buf_puts(b, "\", \"rank\": 0}]}") ? -1 : 0;
	}
	if (!strcmp(kind, "nul-byte")) {
		static const char t[] =
		    DOC("{\"name\": \"a_b\", \"rank\": 0, \"start_times_ns\": [1], "
			"\"end_times_ns\": [2]}");
		char *p;

		if (buf_add(b, t, sizeof(t) - 1))
			return -1;
		p = strstr(b->data, "a_b");
		p[1] = '\0';
		return 0;
	}
	if (!strcmp(kind, "truncated")) {
		static const char t[] = DOC(GOOD_ROW);

		return buf_add(b, t, (sizeof(t) - 1) / 2) ? -1 : 0;
	}
	if (!strcmp(kind, "gz-truncated") || !strcmp(kind, "gz-damaged") ||
	    !strcmp(kind, "gz-trailing"))
		return buf_puts(b, DOC(GOOD_ROW)) ? -1 : 0;
	if (!strcmp(kind, "gz-hdf5"))
		return buf_add(b, "\x89HDF\r\n\x1a\n\0\0\0\0", 12) ? -1 : 0;
	return -1;
}

/* Write n bytes of data gzip-compressed to path (deterministic header). */
static int hj_gzip_to(const char *path, const void *data, size_t n, size_t spaces, const char *tail)
{
	gzFile gz = gzopen(path, "wb9");
	char block[65536];
	int ok;

	if (!gz)
		return -1;
	ok = n == 0 || gzwrite(gz, data, (unsigned)n) == (int)n;
	memset(block, ' ', sizeof(block));
	while (ok && spaces) {
		unsigned k = spaces < sizeof(block) ? (unsigned)spaces : (unsigned)sizeof(block);

		ok = gzwrite(gz, block, k) == (int)k;
		spaces -= k;
	}
	if (ok && tail)
		ok = gzputs(gz, tail) >= 0;
	return gzclose(gz) == Z_OK && ok ? 0 : -1;
}

/* Cut, damage or extend the gzip file at path as case kind asks. */
static int hj_gzip_damage(const char *kind, const char *path)
{
	FILE *f = fopen(path, "r+b");
	long size;
	int rc = 0;

	if (!f)
		return -1;
	if (fseek(f, 0, SEEK_END) || (size = ftell(f)) < 20) {
		fclose(f);
		return -1;
	}
	if (!strcmp(kind, "gz-truncated")) {
		rc = ftruncate(fileno(f), size - 12);
	} else if (!strcmp(kind, "gz-damaged")) {
		/* the CRC-32 of the trailer */
		rc = fseek(f, size - 8, SEEK_SET) || fputc(0x5a, f) == EOF;
	} else if (!strcmp(kind, "gz-trailing")) {
		rc = fputs("garbage after the stream\n", f) == EOF;
	}
	if (fclose(f))
		rc = -1;
	return rc ? -1 : 0;
}

int hostile_json_write(const char *kind, const char *path)
{
	const struct hostile_json_case *c = hostile_json_find(kind);
	struct buf b = BUF_INIT;
	FILE *f;
	int rc = -1;

	if (!c)
		return -1;
	if (!strcmp(kind, "gz-bomb")) {
		/* 128 MiB of blanks inside an unfinished document: about
		 * 1000:1 under deflate */
		static const char head[] = HDR "\"regions\": [";

		return hj_gzip_to(path, head, sizeof(head) - 1, (size_t)128 << 20, "]}");
	}
	if (hj_text(kind, &b))
		goto out;
	if (c->gzip) {
		rc = hj_gzip_to(path, b.data, b.len, 0, NULL);
		if (!rc)
			rc = hj_gzip_damage(kind, path);
		goto out;
	}
	f = fopen(path, "wb");
	if (!f)
		goto out;
	rc = fwrite(b.data, 1, b.len, f) == b.len ? 0 : -1;
	if (fclose(f))
		rc = -1;
out:
	buf_release(&b);
	return rc;
}
