/*
 * ingest.c - one profile file into the store, in one transaction.
 *
 * The HDF5 index is validated before anything is written; events are then
 * streamed row by row (h5prof_read), each row summarised (rowstat), its
 * durations sorted and encoded (blob) and inserted with its summary.  Any
 * failure rolls the whole file back.
 */
#include <stdlib.h>
#include <string.h>

#include "scopedb/blob.h"
#include "scopedb/err.h"
#include "scopedb/h5prof.h"
#include "scopedb/ingest.h"
#include "scopedb/rowstat.h"
#include "scopedb/sha256.h"
#include "scopedb/util.h"

struct ingest_ctx {
	struct store *st;
	const struct h5prof_info *info;
	const struct ingest_opts *opts;
	int64_t run_id;
	int64_t *region_ids;   /* file region id -> store region id, 0 = not yet */
	unsigned char *seen;   /* region has at least one row */
	struct i64vec sorted;  /* scratch: the row's durations, sorted */
	struct buf blob;       /* scratch: the encoded row */
	uint64_t events_done;
	uint64_t calls;
	int64_t regions;
};

int ingest_meta_check(const char *kv)
{
	const char *eq = strchr(kv, '=');

	if (!eq || eq == kv)
		return err_set(ERR_USAGE, "invalid --meta '%s': expected KEY=VALUE", kv);
	return 0;
}

void ingest_ci_env(const char **out_commit, const char **out_branch)
{
	static const char *const vars[][2] = {
		{"GITHUB_SHA", "GITHUB_REF_NAME"},
		{"CI_COMMIT_SHA", "CI_COMMIT_REF_NAME"},
		{"GIT_COMMIT", "GIT_BRANCH"},
	};
	size_t i;

	*out_commit = NULL;
	*out_branch = NULL;
	for (i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		const char *c = getenv(vars[i][0]), *b = getenv(vars[i][1]);

		if (!*out_commit && c && *c)
			*out_commit = c;
		if (!*out_branch && b && *b)
			*out_branch = b;
	}
}

/* The per-row callback of h5prof_read: summarise, encode, insert. */
static int ingest_row(void *arg, const struct h5prof_row *row)
{
	struct ingest_ctx *c = arg;
	const char *name = c->info->region_names[row->region];
	struct store_timing t;
	struct rowstat rs;
	int rc;

	rc = rowstat_compute(&rs, row, c->info->path, name);
	if (rc)
		return rc;
	if (!c->region_ids[row->region]) {
		rc = store_region_id(c->st, &c->region_ids[row->region], name);
		if (rc)
			return rc;
	}
	memset(&t, 0, sizeof(t));
	c->blob.len = 0;
	if (row->has_events) {
		c->sorted.len = 0;
		if (i64vec_reserve(&c->sorted, (size_t)row->calls))
			return ERR_NOMEM;
		if (row->calls)
			memcpy(c->sorted.v, row->durations, (size_t)row->calls * sizeof(int64_t));
		c->sorted.len = (size_t)row->calls;
		util_sort_i64(c->sorted.v, c->sorted.len);
		rc = blob_encode(&c->blob, c->sorted.v, c->sorted.len);
		if (rc)
			return rc;
		t.durations = c->blob.data;
		t.durations_len = c->blob.len;
	}
	t.run_id = c->run_id;
	t.region_id = c->region_ids[row->region];
	t.rank = row->rank;
	t.has_events = row->has_events;
	t.calls = rs.calls;
	t.total = rs.total;
	t.min = rs.min;
	t.max = rs.max;
	t.first = rs.first;
	t.last = rs.last;
	t.start_min = rs.start_min;
	t.end_max = rs.end_max;
	t.mean = rs.mean;
	t.m2 = rs.m2;
	t.exclusive = row->exclusive;
	t.gpu_count = rs.gpu_count;
	t.gpu_total = rs.gpu_total;
	t.source_file = row->source_file;
	t.source_line = row->source_line;
	t.source_text = row->source_text;
	t.tags_json = row->tags_json;
	rc = store_add_timing(c->st, &t);
	if (rc)
		return rc;
	if (!c->seen[row->region]) {
		c->seen[row->region] = 1;
		c->regions++;
	}
	c->calls += row->calls;
	c->events_done += row->calls;
	if (c->opts->progress)
		c->opts->progress(c->opts->progress_ctx, c->events_done, c->info->num_events);
	return 0;
}

/* Tags of opts added to run_id; *out counts the new ones. */
static int ingest_add_tags(int *out, struct store *st, int64_t run_id,
			   const struct ingest_opts *opts)
{
	size_t i;
	int rc;

	*out = 0;
	for (i = 0; i < opts->ntags; i++) {
		int added = 0;

		rc = store_add_tag(st, &added, run_id, opts->tags[i]);
		if (rc)
			return rc;
		*out += added;
	}
	return 0;
}

/* Store /metadata and then the --meta overrides of a new run. */
static int ingest_meta(struct store *st, int64_t run_id, const struct h5prof_info *info,
		       const struct ingest_opts *opts)
{
	size_t i;
	int rc = 0;

	for (i = 0; i < info->num_meta; i++) {
		rc = store_set_meta(st, run_id, info->meta[i].key, info->meta[i].value);
		if (rc)
			return rc;
	}
	for (i = 0; i < opts->nmeta; i++) {
		const char *eq = strchr(opts->meta[i], '=');
		char *key;

		rc = ingest_meta_check(opts->meta[i]);
		if (rc)
			return rc;
		key = malloc((size_t)(eq - opts->meta[i]) + 1);
		if (!key)
			return err_nomem();
		memcpy(key, opts->meta[i], (size_t)(eq - opts->meta[i]));
		key[eq - opts->meta[i]] = '\0';
		rc = store_set_meta(st, run_id, key, eq + 1);
		free(key);
		if (rc)
			return rc;
	}
	return 0;
}

int ingest_file(struct ingest_result *out, struct store *st, const char *path,
		const struct ingest_opts *opts)
{
	struct ingest_ctx c;
	struct h5prof *p = NULL;
	struct store_run run;
	char sha[65], now[32], recorded[32];
	const char *ts;
	int64_t existing = 0, epoch;
	int in_tx = 0, rc;

	memset(out, 0, sizeof(*out));
	memset(&c, 0, sizeof(c));
	i64vec_init(&c.sorted);
	buf_init(&c.blob);
	rc = h5prof_open(&p, path);
	if (rc)
		goto out;
	c.info = h5prof_info(p);
	rc = sha256_file(sha, path);
	if (rc)
		goto out;
	rc = store_begin(st);
	if (rc)
		goto out;
	in_tx = 1;
	rc = store_find_sha(st, &existing, sha);
	if (rc)
		goto out;
	if (existing) {
		struct store_run old;

		rc = ingest_add_tags(&out->tags_added, st, existing, opts);
		if (rc)
			goto out;
		rc = store_get_run(st, &old, existing);
		if (rc)
			goto out;
		out->run_id = existing;
		out->duplicate = 1;
		out->num_ranks = old.num_ranks;
		out->num_regions = old.num_regions;
		out->num_calls = (uint64_t)old.num_calls;
		store_run_release(&old);
		goto commit;
	}

	memset(&run, 0, sizeof(run));
	util_now_iso(now, sizeof(now));
	run.sha256 = sha;
	run.source_path = (char *)path;
	run.ingested_at = now;
	run.recorded_at = recorded;
	ts = h5prof_meta_get(p, "timestamp");
	if (ts && !util_parse_iso(&epoch, ts))
		util_format_iso(recorded, sizeof(recorded), epoch);
	else
		run.recorded_at = NULL;
	run.label = (char *)(opts->label ? opts->label : h5prof_meta_get(p, "label"));
	run.commit = (char *)opts->commit;
	run.branch = (char *)opts->branch;
	run.schema = c.info->schema;
	run.layout = (char *)h5prof_layout_name(c.info->layout);
	run.num_ranks = c.info->num_ranks;
	rc = store_insert_run(st, &c.run_id, &run);
	if (rc)
		goto out;
	rc = ingest_meta(st, c.run_id, c.info, opts);
	if (rc)
		goto out;
	rc = ingest_add_tags(&out->tags_added, st, c.run_id, opts);
	if (rc)
		goto out;

	c.st = st;
	c.opts = opts;
	c.region_ids = calloc(c.info->num_regions + 1, sizeof(*c.region_ids));
	c.seen = calloc(c.info->num_regions + 1, 1);
	if (!c.region_ids || !c.seen) {
		rc = err_nomem();
		goto out;
	}
	rc = h5prof_read(p, ingest_row, &c);
	if (rc)
		goto out;
	rc = store_set_run_counts(st, c.run_id, c.regions, (int64_t)c.calls);
	if (rc)
		goto out;
	out->run_id = c.run_id;
	out->num_ranks = c.info->num_ranks;
	out->num_regions = c.regions;
	out->num_calls = c.calls;
commit:
	rc = store_commit(st);
	if (!rc)
		in_tx = 0;
out:
	if (rc && in_tx)
		store_rollback(st);
	if (rc)
		memset(out, 0, sizeof(*out));
	free(c.region_ids);
	free(c.seen);
	i64vec_release(&c.sorted);
	buf_release(&c.blob);
	h5prof_free(p);
	return rc;
}
