/*
 * gen.c - benchmark profile generator: large, realistic schema-3 profiles
 * of R ranks x G regions x C calls per (rank, region), written with the
 * core's streaming writer (h5write_stream_*) so memory stays bounded even
 * for the large size (67M calls, ~1 GB).
 *
 * Durations are skewed the way instrumented HPC regions are: each region
 * has its own median, log-uniform between 1 us and 5 ms; calls are
 * log-normal around it (sigma 0.3) with a 3 % heavy tail (Pareto, alpha
 * 1.5, capped at 50x) and a per-rank load imbalance of up to 10 %.  All
 * values are integer nanoseconds from a seeded xorshift64* generator, so
 * the same arguments always give the same file.  --gpu adds a GPU column
 * (every fourth region, -1 elsewhere); --gzip writes shuffle + deflate.
 *
 * An OUT ending in .json (or .json.gz) gets the JSON twin of the same run
 * instead (tools/jsonwrite.h; gzip-compressed for .json.gz).
 *
 * --count N writes N files DIR/run-0000.h5 ... (OUT is then a directory)
 * with seeds S, S+1, ... and timestamps one day apart: the filler runs of
 * the history benchmarks.
 *
 * --nested lays each rank's calls out as a call tree (issue 22): region 0
 * is the root and region i > 0 is called from region (i - 1) / 4, so the
 * regions form a 4-ary tree; every iteration calls each region once,
 * children one after another inside their parent; the durations drawn as
 * above are each call's own time, to which its children's are added.
 * Without it every region's calls start at the same time (the calls of
 * different regions overlap: no call tree).  --ids adds call_ids and
 * parent_ids (per rank, in start order) to a nested file.
 */
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scopedb/err.h"
#include "h5write.h"
#include "jsonwrite.h"
#include "toolutil.h"

const char *const toolutil_name = "gen";

struct genopts {
	uint64_t ranks, regions, calls, seed, count;
	double scale;
	int gzip, gpu, nested, ids;
	const char *label, *out;
	int64_t day; /* timestamp day offset from 2024-01-01 */
};

static void gen_usage(FILE *f)
{
	fputs("usage: gen [options] OUT.h5|OUT.json|OUT.json.gz\n"
	      "Write a synthetic schema-3 scope-profiler profile for the benchmarks.\n"
	      "  --size S        small (4x32x1000), medium (64x256x1000) or\n"
	      "                  large (1024x256x256) ranks x regions x calls\n"
	      "  --ranks N       MPI ranks (default 4)\n"
	      "  --regions N     regions per rank (default 32)\n"
	      "  --calls N       calls per rank and region (default 1000, at most 2^28)\n"
	      "  --gpu           add a GPU duration column\n"
	      "  --gzip          chunked datasets with shuffle + gzip\n"
	      "  --nested        each rank's calls form a call tree of the regions\n"
	      "  --ids           with --nested: write call_ids and parent_ids\n"
	      "  --seed S        random seed (default 1)\n"
	      "  --scale F       multiply every duration by F (default 1)\n"
	      "  --label L       metadata label (default \"bench\")\n"
	      "  --day N         timestamp = 2024-01-01 + N days (default 0)\n"
	      "  --count N       write N files OUT/run-NNNN.h5 (seeds and days counting up)\n",
	      f);
}

static void gen_size(struct genopts *o, const char *s)
{
	static const struct {
		const char *name;
		uint64_t ranks, regions, calls;
	} sizes[] = {{"small", 4, 32, 1000}, {"medium", 64, 256, 1000}, {"large", 1024, 256, 256}};
	size_t i;

	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		if (strcmp(s, sizes[i].name) == 0) {
			o->ranks = sizes[i].ranks;
			o->regions = sizes[i].regions;
			o->calls = sizes[i].calls;
			return;
		}
	}
	toolutil_die("unknown size '%s' (expected small, medium or large)", s);
}

static void gen_parse(struct genopts *o, int argc, char **argv)
{
	const struct toolutil_flag flags[] = {
	    {"--gzip", &o->gzip}, {"--gpu", &o->gpu}, {"--nested", &o->nested}, {"--ids", &o->ids}};
	int i;

	*o = (struct genopts){
	    .ranks = 4, .regions = 32, .calls = 1000, .seed = 1, .scale = 1.0, .label = "bench"};
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (toolutil_flag(a, flags, sizeof(flags) / sizeof(flags[0]), gen_usage))
			continue;
		if (a[0] == '-' && a[1] == '-') {
			if (!v)
				toolutil_die("%s needs a value", a);
			i++;
			if (strcmp(a, "--size") == 0) {
				gen_size(o, v);
			} else if (strcmp(a, "--ranks") == 0) {
				o->ranks = toolutil_u64(a, v, 1, 1u << 20);
			} else if (strcmp(a, "--regions") == 0) {
				o->regions = toolutil_u64(a, v, 1, 100000);
			} else if (strcmp(a, "--calls") == 0) {
				o->calls = toolutil_u64(a, v, 0, 1u << 28);
			} else if (strcmp(a, "--seed") == 0) {
				o->seed = toolutil_u64(a, v, 0, UINT64_MAX / 2);
			} else if (strcmp(a, "--count") == 0) {
				o->count = toolutil_u64(a, v, 1, 100000);
			} else if (strcmp(a, "--day") == 0) {
				o->day = (int64_t)toolutil_u64(a, v, 0, 100000);
			} else if (strcmp(a, "--label") == 0) {
				o->label = v;
			} else if (strcmp(a, "--scale") == 0) {
				o->scale = toolutil_f64(a, v, 1e6, "");
			} else {
				toolutil_die("unknown option '%s' (see --help)", a);
			}
		} else {
			toolutil_output(&o->out, a, "output");
		}
	}
	if (!o->out)
		toolutil_die("no output given (see --help)");
	if (o->ids && !o->nested)
		toolutil_die("--ids needs --nested");
}

/* Uniform in (0, 1). */
static double gen_uniform(uint64_t *s)
{
	return ((double)(toolutil_next(s) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

/* The events of row (rank, region ri): see the top of the file.  The calls
 * start at *clock (NULL: at the rank's start) and run back to back; *clock
 * becomes the time after the last, so that the regions of a flat rank
 * follow one another instead of overlapping (docs/format.md section 10.3). */
static void gen_row(const struct genopts *o, uint64_t rank, uint64_t ri, int64_t *starts,
		    int64_t *ends, int64_t *gpu, int64_t *clock)
{
	uint64_t st = toolutil_splitmix(o->seed * UINT64_C(0x100000001b3) ^
					toolutil_splitmix((rank << 20) + ri));
	double frac = fmod((double)ri * 0.6180339887498949, 1.0);
	double median = 1000.0 * pow(5000.0, frac);
	double imbalance = 1.0 + 0.1 * (double)rank / (double)o->ranks;
	int64_t t = clock ? *clock : (int64_t)(1000000 + 997 * rank);
	uint64_t c;

	if (!st)
		st = 1;
	for (c = 0; c < o->calls; c++) {
		/* approximately standard normal: Irwin-Hall of 4 uniforms */
		double z = (gen_uniform(&st) + gen_uniform(&st) + gen_uniform(&st) +
			    gen_uniform(&st) - 2.0) *
			   1.7320508075688772;
		double d = median * imbalance * exp(0.3 * z) * o->scale;
		int64_t dn;

		if (gen_uniform(&st) < 0.03) {
			double tail = pow(gen_uniform(&st), -1.0 / 1.5);

			d *= tail < 50.0 ? tail : 50.0;
		}
		dn = d < 1.0 ? 1 : (int64_t)llround(d);
		starts[c] = t;
		ends[c] = t + dn;
		if (gpu)
			gpu[c] = (int64_t)llround((double)dn * 0.7);
		t = ends[c] + 200 + (int64_t)(toolutil_next(&st) % 1000);
	}
	if (clock)
		*clock = t;
}

/*
 * The calls of one rank laid out as a call tree (--nested): own[ri][c] is
 * the own time of call c of region ri (drawn by gen_row); the tree of one
 * iteration is laid out depth first from region 0, region i > 0 called
 * from (i - 1) / 4, 100 ns of its own before its first child and 50 ns
 * between children, its drawn own time after the last.  Writes st and en
 * (regions x calls each) and, with ids, the call ids in start order.
 */
static void gen_nest(const struct genopts *o, uint64_t rank, const int64_t *own, int64_t *st,
		     int64_t *en, int64_t *ids, int64_t *pids)
{
	uint64_t n = o->regions, c;
	int64_t t = (int64_t)(1000000 + 997 * rank), id = 0;
	uint64_t *stack = malloc((size_t)n * sizeof(*stack));
	uint64_t *next = malloc((size_t)n * sizeof(*next));

	if (!stack || !next)
		toolutil_die("out of memory");
	for (c = 0; c < o->calls; c++) {
		size_t top = 0;

		/* an explicit depth-first walk: next[i] is region i's next child */
		stack[top++] = 0;
		next[0] = 1;
		st[c] = t;
		t += 100;
		if (ids) {
			ids[c] = id++;
			pids[c] = -1;
		}
		while (top) {
			uint64_t i = stack[top - 1], k = next[i];

			if (k <= 4 && 4 * i + k < n) {
				uint64_t ch = 4 * i + k;

				next[i]++;
				st[ch * o->calls + c] = t;
				if (ids) {
					ids[ch * o->calls + c] = id++;
					pids[ch * o->calls + c] = ids[i * o->calls + c];
				}
				t += 100;
				stack[top++] = ch;
				next[ch] = 1;
				continue;
			}
			t += own[i * o->calls + c];
			en[i * o->calls + c] = t;
			t += 50;
			top--;
		}
	}
	free(stack);
	free(next);
}

static int gen_file(const struct genopts *o, const char *path, char *const *names)
{
	struct h5write_opts wo = {.schema = 3,
				  .gzip = o->gzip,
				  .gpu = o->gpu,
				  .ids = o->ids,
				  .mpi_size = (int64_t)o->ranks};
	char ts[80];
	struct h5write_meta meta[4] = {{.key = "label", .str = o->label},
				       {.key = "timestamp", .str = ts},
				       {.key = "platform", .str = "linux-x86_64"},
				       {.key = "scope_profiler_version", .str = "0.7.0"}};
	struct h5write_stream *s = NULL;
	struct jsonwrite_stream *js = NULL;
	struct jsonwrite_opts jo = {0, 0};
	struct h5write_row r;
	size_t plen = strlen(path);
	int json = (plen > 5 && !strcmp(path + plen - 5, ".json")) ||
		   (plen > 8 && !strcmp(path + plen - 8, ".json.gz"));
	int64_t *ev, *own = NULL, *nst = NULL, *nen = NULL, *nid = NULL, *npid = NULL;
	uint64_t rank, ri;
	int64_t y = 2024, m = 1, d = 1 + o->day;
	static const int64_t mdays[12] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	size_t all = (size_t)(o->regions * (o->calls ? o->calls : 1));
	int rc, crc;

	/* 2024 is a leap year; later years are treated as 365 days (fine for
	 * ordering a few thousand runs). */
	while (d > (y == 2024 ? mdays[m - 1] : (m == 2 ? 28 : mdays[m - 1]))) {
		d -= y == 2024 ? mdays[m - 1] : (m == 2 ? 28 : mdays[m - 1]);
		if (++m > 12) {
			m = 1;
			y++;
		}
	}
	snprintf(ts, sizeof(ts), "%04lld-%02lld-%02lldT02:00:00Z", (long long)y, (long long)m,
		 (long long)d);
	ev = malloc((size_t)(o->calls ? o->calls : 1) * 3 * sizeof(*ev));
	if (o->nested) {
		own = malloc(all * sizeof(*own));
		nst = malloc(all * sizeof(*nst));
		nen = malloc(all * sizeof(*nen));
		if (!own || !nst || !nen)
			toolutil_die("out of memory");
		if (o->ids) {
			nid = malloc(all * sizeof(*nid));
			npid = malloc(all * sizeof(*npid));
			if (!nid || !npid)
				toolutil_die("out of memory");
		}
	}
	if (!ev)
		toolutil_die("out of memory");
	jo.gzip = json && !strcmp(path + plen - 3, ".gz");
	if (json) {
		rc = jsonwrite_stream_open(&js, path, &wo, &jo, o->ranks, meta, 4);
	} else {
		rc = h5write_stream_open(&s, path, (const char *const *)names, (size_t)o->regions,
					 &wo);
		if (!rc)
			rc = h5write_stream_meta(s, meta, 4);
	}
	for (rank = 0; rank < o->ranks && !rc; rank++) {
		int64_t clock = (int64_t)(1000000 + 997 * rank);

		if (o->nested) {
			uint64_t c;

			for (ri = 0; ri < o->regions; ri++) {
				gen_row(o, rank, ri, ev, ev + o->calls, NULL, NULL);
				for (c = 0; c < o->calls; c++)
					own[ri * o->calls + c] = ev[o->calls + c] - ev[c];
			}
			gen_nest(o, rank, own, nst, nen, nid, npid);
		}
		for (ri = 0; ri < o->regions && !rc; ri++) {
			int64_t *g = o->gpu && ri % 4 == 0 ? ev + 2 * o->calls : NULL;
			size_t at = (size_t)(ri * o->calls);

			r = (struct h5write_row){.rank = (uint32_t)rank,
						 .region = names[ri],
						 .calls = (size_t)o->calls,
						 .starts = o->nested ? nst + at : ev,
						 .ends = o->nested ? nen + at : ev + o->calls,
						 .gpu = g,
						 .source_file = "solver.py",
						 .source_line = (int64_t)(10 + 3 * ri),
						 .call_ids = nid ? nid + at : NULL,
						 .parent_ids = npid ? npid + at : NULL};
			gen_row(o, rank, ri, ev, ev + o->calls, g, &clock);
			rc = json ? jsonwrite_stream_row(js, &r) : h5write_stream_row(s, &r);
		}
	}
	crc = s ? h5write_stream_close(s) : js ? jsonwrite_stream_close(js) : 0;
	free(ev);
	free(own);
	free(nst);
	free(nen);
	free(nid);
	free(npid);
	return rc ? rc : crc;
}

int main(int argc, char **argv)
{
	struct genopts o;
	char **names;
	char path[4096];
	uint64_t i;
	int rc = 0;

	memset(&o, 0, sizeof(o));
	gen_parse(&o, argc, argv);
	names = calloc((size_t)o.regions, sizeof(*names));
	if (!names)
		toolutil_die("out of memory");
	for (i = 0; i < o.regions; i++) {
		names[i] = malloc(48);
		if (!names[i])
			toolutil_die("out of memory");
		/* a few levels of nesting, as real profiles have */
		snprintf(names[i], 48, "%s/region_%03llu",
			 i % 3 == 0   ? "solve"
			 : i % 3 == 1 ? "assemble"
				      : "io",
			 (unsigned long long)i);
	}
	if (!o.count) {
		rc = gen_file(&o, o.out, names);
	} else {
		struct genopts one = o;

		for (i = 0; i < o.count && !rc; i++) {
			snprintf(path, sizeof(path), "%s/run-%04llu.h5", o.out,
				 (unsigned long long)i);
			one.seed = o.seed + i;
			one.day = o.day + (int64_t)i;
			rc = gen_file(&one, path, names);
		}
	}
	for (i = 0; i < o.regions; i++)
		free(names[i]);
	free(names);
	if (rc)
		toolutil_die("%s", err_msg());
	return 0;
}
