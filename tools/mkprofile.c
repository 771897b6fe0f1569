/*
 * mkprofile.c - writes deterministic example scope-profiler profiles for
 * the examples, the end-to-end tests and the benchmarks.
 *
 * Every (rank, region) row gets --calls calls whose durations come from a
 * xorshift64* generator seeded from (--seed, rank, region), shaped into a
 * skewed (log-normal-like) distribution around a per-region base duration
 * with a small per-rank imbalance, and multiplied by --scale (so a
 * "slower" candidate run is the same command with --scale 1.1).  The same
 * arguments always give the same events.  Columnar non-aggregate files are
 * written with the streaming writer, so memory stays bounded for large
 * benchmark profiles.
 *
 * --random SEED[/VARIANT] writes instead the random valid profile of
 * profgen.h (any layout, ranks, names, nesting, metadata; its JSON twin
 * to OUT.json or OUT.json.gz), with
 * --reference FILE the numbers `scopedb show` must print for it and
 * --describe its one-line description (docs/testing.md).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scopedb/err.h"
#include "scopedb/util.h"
#include "util/json.h"
#include "h5write.h"
#include "jsonwrite.h"
#include "profgen.h"
#include "toolutil.h"

const char *const toolutil_name = "mkprofile";

#define MK_MAX_REGIONS 100000

/* How many --slow a command line may give. */
#define MK_SLOW_MAX 16

struct mkopts {
	int schema, aggregate, gzip, gpu;
	int summary_only; /* --summary-only (JSON output) */
	uint64_t ranks, calls, seed;
	uint64_t chunk; /* --chunk, 0 = the writer's default */
	double scale;
	/* --slow NAME=F (repeatable): that region F times slower */
	const char *slow_name[MK_SLOW_MAX];
	double slow_factor[MK_SLOW_MAX];
	size_t nslow;
	const char *idle; /* --idle NAME: no calls but on rank 0 */
	int flip;	  /* --flip S: damage the file with seed S (-1: no) */
	const char *regions, *label, *timestamp, *out;
	const char *random;    /* --random SEED[/VARIANT] */
	const char *reference; /* --reference FILE */
	int describe;	       /* --describe */
};

static void mk_usage(FILE *f)
{
	fputs("usage: mkprofile [options] OUT.h5|OUT.json|OUT.json.gz\n"
	      "Write a deterministic example scope-profiler profile: HDF5, or its JSON\n"
	      "twin when OUT ends in .json (.json.gz: gzip-compressed).\n"
	      "  --schema 1|2|3    file layout version (default 3)\n"
	      "  --aggregate       aggregate-only layout (schema 2 or 3)\n"
	      "  --gzip            chunked datasets with shuffle + gzip (JSON: gzip)\n"
	      "  --summary-only    JSON: rows as upstream exports a summary-only read\n"
	      "  --chunk N         chunk length of chunked datasets (default 65536)\n"
	      "  --gpu             GPU durations for every other region (-1 elsewhere)\n"
	      "  --ranks N         number of MPI ranks (default 4; 0: no (rank, region)\n"
	      "                    row at all, a file that is not a profile)\n"
	      "  --regions LIST    comma-separated region names\n"
	      "                    (default main,solve,assemble,io,halo_exchange)\n"
	      "  --calls N         calls per rank and region (default 100)\n"
	      "  --seed S          random seed (default 1)\n"
	      "  --scale F         multiply every duration by F (default 1)\n"
	      "  --slow NAME=F     multiply the durations of region NAME by F as well\n"
	      "                    (repeatable; a region named twice gets both)\n"
	      "  --idle NAME       region NAME has calls on rank 0 only: an index row of no\n"
	      "                    calls on every other rank (schemas 2 and 3)\n"
	      "  --label L         metadata label (default \"example\")\n"
	      "  --timestamp ISO   metadata timestamp (default 2024-01-01T00:00:00Z)\n"
	      "  --flip S          damage the written file: 1 + S %% 5 seeded byte flips,\n"
	      "                    every other one in the first 4 KiB (tests)\n"
	      "  --random SEED[/V] write the random valid profile of SEED (its variant V:\n"
	      "                    the same structure, other durations) instead, or its\n"
	      "                    JSON twin; the options above are then refused\n"
	      "                    (docs/testing.md)\n"
	      "  --reference FILE  with --random: the numbers 'scopedb show' must print,\n"
	      "                    as JSON (all ranks, and the ranks of --describe)\n"
	      "  --describe        with --random: print the profile's description\n"
	      "  --help            show this help\n",
	      f);
}

static void mk_parse(struct mkopts *o, int argc, char **argv)
{
	const struct toolutil_flag flags[] = {{"--aggregate", &o->aggregate},
					      {"--gzip", &o->gzip},
					      {"--summary-only", &o->summary_only},
					      {"--gpu", &o->gpu},
					      {"--describe", &o->describe}};
	int i;

	o->schema = 3;
	o->ranks = 4;
	o->calls = 100;
	o->seed = 1;
	o->scale = 1.0;
	o->regions = "main,solve,assemble,io,halo_exchange";
	o->flip = -1;
	o->label = "example";
	o->timestamp = "2024-01-01T00:00:00Z";
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (toolutil_flag(a, flags, sizeof(flags) / sizeof(flags[0]), mk_usage))
			continue;
		if (strcmp(a, "--random") == 0 || strcmp(a, "--reference") == 0) {
			if (!v)
				toolutil_die("%s needs a value", a);
			if (a[2] == 'r' && a[3] == 'a')
				o->random = v;
			else
				o->reference = v;
			i++;
		} else if (strcmp(a, "--chunk") == 0) {
			if (!v)
				toolutil_die("%s needs a value", a);
			o->chunk = toolutil_u64(a, v, 1, UINT64_C(1) << 28);
			i++;
		} else if (strcmp(a, "--schema") == 0 || strcmp(a, "--ranks") == 0 ||
			   strcmp(a, "--regions") == 0 || strcmp(a, "--calls") == 0 ||
			   strcmp(a, "--seed") == 0 || strcmp(a, "--scale") == 0 ||
			   strcmp(a, "--slow") == 0 || strcmp(a, "--label") == 0 ||
			   strcmp(a, "--idle") == 0 || strcmp(a, "--timestamp") == 0 ||
			   strcmp(a, "--flip") == 0) {
			if (!v)
				toolutil_die("%s needs a value", a);
			i++;
			if (strcmp(a, "--schema") == 0) {
				o->schema = (int)toolutil_u64(a, v, 1, 3);
			} else if (strcmp(a, "--ranks") == 0) {
				o->ranks = toolutil_u64(a, v, 0, 1000000);
			} else if (strcmp(a, "--calls") == 0) {
				o->calls = toolutil_u64(a, v, 0, UINT64_C(1) << 32);
			} else if (strcmp(a, "--seed") == 0) {
				o->seed = toolutil_u64(a, v, 0, UINT64_MAX);
			} else if (strcmp(a, "--scale") == 0) {
				o->scale = toolutil_f64(a, v, 1e6, " (expected a number above 0)");
			} else if (strcmp(a, "--slow") == 0) {
				const char *eq = strrchr(v, '=');
				double f;
				char *end;

				errno = 0;
				f = eq ? strtod(eq + 1, &end) : 0.0;
				if (!eq || eq == v || !eq[1] || *end || errno || !(f > 0) ||
				    f > 1e6)
					toolutil_die(
					    "invalid value '%s' for --slow (expected NAME=FACTOR)",
					    v);
				if (o->nslow == MK_SLOW_MAX)
					toolutil_die("too many --slow (at most %d)", MK_SLOW_MAX);
				o->slow_name[o->nslow] = v;
				o->slow_factor[o->nslow++] = f;
			} else if (strcmp(a, "--regions") == 0) {
				o->regions = v;
			} else if (strcmp(a, "--idle") == 0) {
				o->idle = v;
			} else if (strcmp(a, "--label") == 0) {
				o->label = v;
			} else if (strcmp(a, "--flip") == 0) {
				o->flip = (int)toolutil_u64(a, v, 0, 1000000);
			} else {
				o->timestamp = v;
			}
		} else if (a[0] == '-' && a[1]) {
			toolutil_die("unknown option '%s' (see --help)", a);
		} else {
			toolutil_output(&o->out, a, "output file");
		}
	}
	if (!o->out)
		toolutil_die("no output file given (see --help)");
	if ((o->reference || o->describe) && !o->random)
		toolutil_die("--reference and --describe need --random");
	if (o->aggregate && o->schema < 2)
		toolutil_die("--aggregate needs --schema 2 or 3");
}

/* xorshift64*, the generator of the byte flips. */
static uint64_t mk_rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * UINT64_C(2685821657736338717);
}

/*
 * Damage path with seed: 1 + seed % 5 bytes XORed with a non-zero value,
 * every even-numbered one within the first 4 KiB where HDF5 keeps most of
 * its metadata (the scheme of tests/test_hostile.c's byte-flip corpus).
 */
static void mk_flip(const char *path, int seed)
{
	uint64_t s = UINT64_C(0x9e3779b97f4a7c15) ^ (uint64_t)(seed + 1) * 7919;
	int k, n = 1 + seed % 5;
	FILE *f = fopen(path, "r+b");
	long len;

	if (!f || fseek(f, 0, SEEK_END) || (len = ftell(f)) <= 0)
		toolutil_die("cannot damage '%s': %s", path, strerror(errno));
	for (k = 0; k < n; k++) {
		long span = k % 2 == 0 && len > 4096 ? 4096 : len;
		long pos = (long)(mk_rnd(&s) % (uint64_t)span);
		int c;

		if (fseek(f, pos, SEEK_SET) || (c = fgetc(f)) == EOF || fseek(f, pos, SEEK_SET) ||
		    fputc(c ^ (int)(1 + mk_rnd(&s) % 255), f) == EOF)
			toolutil_die("cannot damage '%s': %s", path, strerror(errno));
	}
	if (fclose(f))
		toolutil_die("cannot damage '%s': %s", path, strerror(errno));
}

/* Split the comma-separated list into names (pointers into a copy). */
static char **mk_regions(const char *list, size_t *n, char **copy)
{
	char **v;
	char *s, *p;
	const char *q;
	size_t cap = 1, i, j;

	for (q = list; *q; q++)
		cap += *q == ',';
	*copy = s = strdup(list);
	v = calloc(cap, sizeof(*v));
	if (!s || !v)
		toolutil_die("out of memory");
	*n = 0;
	for (p = s;;) {
		char *c = strchr(p, ',');

		if (c)
			*c = '\0';
		if (!*p)
			toolutil_die("empty region name in --regions '%s'", list);
		v[(*n)++] = p;
		if (!c)
			break;
		p = c + 1;
	}
	if (*n > MK_MAX_REGIONS)
		toolutil_die("too many regions (at most %d)", MK_MAX_REGIONS);
	for (i = 0; i < *n; i++)
		for (j = 0; j < i; j++)
			if (strcmp(v[i], v[j]) == 0)
				toolutil_die("region '%s' is listed twice", v[i]);
	return v;
}

static double mk_uniform(uint64_t *s)
{
	return (double)(toolutil_next(s) >> 11) * (1.0 / 9007199254740992.0);
}

/*
 * Fill the row's calls for (rank, region index ri): durations log-normal
 * around the region's base, back-to-back calls separated by small gaps,
 * from *clock on; *clock becomes the time after the last call, so that a
 * rank's regions follow one another and its calls never overlap (each
 * call is a root of the rank's call tree: docs/format.md section 10.3).
 */
static void mk_row(const struct mkopts *o, uint64_t rank, size_t ri, const char *name,
		   int64_t *starts, int64_t *ends, int64_t *gpu, int64_t *clock)
{
	double factor = o->scale;
	size_t k;
	uint64_t st = toolutil_splitmix(o->seed ^ toolutil_splitmix(rank * UINT64_C(0x10001) + ri));
	double base = 20000.0 * (double)(1 + 3 * (ri % 7)) * (ri % 2 ? 1.0 : 2.5);
	double imbalance = 1.0 + 0.03 * (double)(rank % 8);
	int64_t t = *clock;
	uint64_t c;

	for (k = 0; k < o->nslow; k++) {
		size_t len = (size_t)(strrchr(o->slow_name[k], '=') - o->slow_name[k]);

		if (strlen(name) == len && !strncmp(name, o->slow_name[k], len))
			factor *= o->slow_factor[k];
	}
	if (!st)
		st = 1;
	for (c = 0; c < o->calls; c++) {
		double z =
		    (mk_uniform(&st) + mk_uniform(&st) + mk_uniform(&st) + mk_uniform(&st) - 2.0) *
		    1.7320508075688772;
		double d = base * imbalance * exp(0.35 * z) * factor;
		int64_t dn = d < 1.0 ? 1 : (int64_t)llround(d);

		starts[c] = t;
		ends[c] = t + dn;
		if (gpu)
			gpu[c] = (int64_t)llround((double)dn * 0.6);
		t = ends[c] + 500 + (int64_t)(toolutil_next(&st) % 2000);
	}
	*clock = t;
}

/* Write the JSON of rows to path ("-": stdout). */
static void mk_put(const char *path, const struct buf *b)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "w") : stdout;

	if (!f || fwrite(b->data, 1, b->len, f) != b->len || (f != stdout && fclose(f)))
		toolutil_die("cannot write '%s': %s", path, strerror(errno));
}

/* --random SEED[/VARIANT]: the profile of profgen.h (its JSON twin with
 * jo), and what was asked about it; argc/argv: no option of the
 * deterministic example may come with it. */
static int mk_random(const struct mkopts *o, int argc, char **argv, const struct jsonwrite_opts *jo)
{
	struct profgen *g = NULL;
	struct buf b = BUF_INIT;
	const char *slash = strchr(o->random, '/');
	char seed[32];
	uint64_t variant = 0;
	int i, rc;

	for (i = 1; i < argc; i++)
		if (argv[i][0] == '-' && argv[i][1] && strcmp(argv[i], "--random") &&
		    strcmp(argv[i], "--reference") && strcmp(argv[i], "--describe") &&
		    (i == 1 ||
		     (strcmp(argv[i - 1], "--random") && strcmp(argv[i - 1], "--reference"))))
			toolutil_die("%s cannot be combined with --random", argv[i]);
	if (slash) {
		if ((size_t)(slash - o->random) >= sizeof(seed))
			toolutil_die("invalid value '%s' for --random", o->random);
		memcpy(seed, o->random, (size_t)(slash - o->random));
		seed[slash - o->random] = '\0';
		variant = toolutil_u64("--random", slash + 1, 0, 1000000);
	} else {
		snprintf(seed, sizeof(seed), "%s", o->random);
	}
	rc = profgen_new(&g, toolutil_u64("--random", seed, 0, UINT64_MAX), (unsigned)variant);
	if (!rc)
		rc = jo ? profgen_write_json(g, o->out, jo->gzip) : profgen_write_h5(g, o->out);
	if (!rc && o->reference) {
		rc = buf_puts(&b, "{\"describe\": ");
		rc = rc || json_buf_string(&b, g->describe);
		rc = rc || buf_printf(&b, ", \"num_ranks\": %u, \"ranks\": ", g->num_ranks);
		rc = rc || json_buf_string(&b, g->sel_spec);
		rc = rc || buf_puts(&b, ", \"all\": ");
		rc = rc || profgen_reference(&b, g, NULL, 0);
		rc = rc || buf_puts(&b, ", \"selected\": ");
		rc = rc || profgen_reference(&b, g, g->sel, g->nsel);
		rc = rc || buf_puts(&b, "}\n");
		if (!rc)
			mk_put(o->reference, &b);
	}
	if (!rc && o->describe)
		printf("%s\n", g->describe);
	buf_release(&b);
	if (rc)
		toolutil_die("%s (%s)", err_msg(), g ? g->describe : o->random);
	profgen_free(g);
	return 0;
}

int main(int argc, char **argv)
{
	struct mkopts o;
	struct h5write_opts wo;
	struct h5write_meta meta[5];
	struct h5write_row *rows = NULL;
	struct h5write_stream *s = NULL;
	struct jsonwrite_stream *js = NULL;
	struct jsonwrite_opts jo;
	static const char *tags[] = {"example"};
	char **names, *copy;
	size_t nreg, ri, nrows, k = 0;
	int64_t *ev = NULL;
	uint64_t rank;
	int rc = 0, stream, json;
	size_t outlen;

	memset(&o, 0, sizeof(o));
	mk_parse(&o, argc, argv);
	outlen = strlen(o.out);
	json = (outlen > 5 && !strcmp(o.out + outlen - 5, ".json")) ||
	       (outlen > 8 && !strcmp(o.out + outlen - 8, ".json.gz"));
	memset(&jo, 0, sizeof(jo));
	jo.gzip = o.gzip || (json && !strcmp(o.out + outlen - 3, ".gz"));
	if (o.random)
		return mk_random(&o, argc, argv, json ? &jo : NULL);
	jo.summary_only = o.summary_only;
	if (o.summary_only && (!json || o.schema < 2 || o.aggregate))
		toolutil_die("--summary-only needs a .json output of a columnar schema 2 or 3");
	if (json && o.flip >= 0)
		toolutil_die("--flip damages HDF5 files only");
	names = mk_regions(o.regions, &nreg, &copy);
	memset(&wo, 0, sizeof(wo));
	wo.schema = o.schema;
	wo.aggregate = o.aggregate;
	wo.gzip = o.gzip;
	wo.chunk = (size_t)o.chunk;
	wo.gpu = o.gpu;
	wo.mpi_size = (int64_t)o.ranks;
	memset(meta, 0, sizeof(meta));
	meta[0].key = "label";
	meta[0].str = o.label;
	meta[1].key = "timestamp";
	meta[1].str = o.timestamp;
	meta[2].key = "platform";
	meta[2].str = "linux-x86_64";
	meta[3].key = "scope_profiler_version";
	meta[3].str = "0.7.0";
	meta[4].key = "omp_num_threads";
	meta[4].kind = H5WRITE_META_INT;
	meta[4].i = 1;

	if (o.ranks * nreg > SIZE_MAX / sizeof(*rows) / 4)
		toolutil_die("too many rows");
	nrows = (size_t)(o.ranks * nreg);
	stream = json || (o.schema >= 2 && !o.aggregate);
	if (!stream && o.calls && nrows > SIZE_MAX / 3 / sizeof(int64_t) / o.calls)
		toolutil_die("profile too large for --schema %d%s; use --schema 3", o.schema,
			     o.aggregate ? " --aggregate" : "");
	ev = malloc((size_t)((stream || !nrows ? 1 : nrows) * (o.calls ? o.calls : 1)) * 3 *
		    sizeof(*ev));
	rows = calloc(stream || !nrows ? 1 : nrows, sizeof(*rows));
	if (!ev || !rows)
		toolutil_die("out of memory");
	if (json) {
		/* every rank has rows (or rank groups): num_ranks = --ranks */
		rc = jsonwrite_stream_open(&js, o.out, &wo, &jo, nreg ? o.ranks : 0, meta, 5);
	} else if (stream) {
		rc = h5write_stream_open(&s, o.out, (const char *const *)names, nreg, &wo);
		if (!rc)
			rc = h5write_stream_meta(s, meta, 5);
	}
	for (rank = 0; rank < o.ranks && !rc; rank++) {
		int64_t clock = (int64_t)(1000000 + 1000 * rank);

		for (ri = 0; ri < nreg && !rc; ri++) {
			struct h5write_row *r = &rows[stream ? 0 : k];
			int64_t *base = ev + (size_t)(stream ? 0 : k) * (size_t)o.calls * 3;
			int64_t *gpu = o.gpu && ri % 2 == 0 ? base + 2 * o.calls : NULL;

			r->rank = (uint32_t)rank;
			r->region = names[ri];
			r->calls = (size_t)o.calls;
			if (rank > 0 && o.idle && !strcmp(o.idle, names[ri]))
				r->calls = 0;
			r->starts = base;
			r->ends = base + o.calls;
			r->gpu = gpu;
			r->source_file = "example.py";
			r->source_line = (int64_t)(10 + 7 * ri);
			r->tags = tags;
			r->ntags = 1;
			mk_row(&o, rank, ri, names[ri], base, base + o.calls, gpu, &clock);
			if (json)
				rc = jsonwrite_stream_row(js, r);
			else if (stream)
				rc = h5write_stream_row(s, r);
			k++;
		}
	}
	if (json) {
		int crc = jsonwrite_stream_close(js);

		if (!rc)
			rc = crc;
	} else if (stream) {
		int crc = h5write_stream_close(s);

		if (!rc)
			rc = crc;
	} else {
		struct h5write_profile prof = {rows, nrows, meta, 5};

		rc = h5write_file(o.out, &prof, &wo);
	}
	free(ev);
	free(rows);
	free(names);
	free(copy);
	if (rc)
		toolutil_die("%s", err_msg());
	if (o.flip >= 0)
		mk_flip(o.out, o.flip);
	return 0;
}
