/*
 * ingest.c - one profile file into the store, in one transaction.
 *
 * The HDF5 index is validated before anything is written; events are then
 * streamed row by row (h5prof_read), each row summarised (rowstat), its
 * durations sorted and encoded (blob) and inserted with its summary; at the
 * end store_finish_run() (store.h) adds the run's all-ranks totals and
 * percentiles.  Any failure rolls the whole file back.
 *
 * Speed (issue 6): the content SHA-256, which decides whether the file is
 * already stored, needs a second full read of the file.  It runs on a
 * hashing thread while this thread reads and inserts the rows.  The run is
 * inserted first under a provisional hash (INGEST_PENDING_SHA) and gets its
 * real one as soon as the thread has it; if the content turns out to be
 * stored already, the read stops, the transaction is rolled back and the
 * duplicate is reported (with its tags added) in a transaction of its own.
 * The hashing thread only reads the file and hashes: it never calls
 * libhdf5, the store or err_set(), which are used by this thread alone.  When
 * no thread can be started, the file is hashed first.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "store/blob.h"
#include "scopedb/err.h"
#include "scopedb/h5prof.h"
#include "scopedb/identity.h"
#include "scopedb/ingest.h"
#include "ingest/rowstat.h"
#include "util/sha256.h"
#include "scopedb/util.h"

/* The sha256 of a run until its hash is known: not a hex digest, so it
 * never matches a file, and only ever seen inside the ingest transaction. */
#define INGEST_PENDING_SHA "pending"
/* h5prof_read() stop code: the hash says the file is already stored. */
#define INGEST_STOP_DUPLICATE 1

/* The hashing thread's job. */
struct ingest_hash {
	const char *path;
	pthread_t thread;
	int started;
	atomic_int done; /* result below is ready */
	int err;	 /* errno of a failed read, 0 = ok */
	char hex[65];
};

struct ingest_ctx {
	struct store *st;
	struct h5prof *p;
	const struct h5prof_info *info;
	const struct ingest_opts *opts;
	struct ingest_result *out;
	struct ingest_hash *hash;
	int64_t run_id;	      /* the new run (under INGEST_PENDING_SHA) */
	int resolved;	      /* the run has its real hash */
	int64_t duplicate;    /* the run that already holds the content */
	int64_t *region_ids;  /* file region id -> store region id, 0 = not yet */
	unsigned char *seen;  /* region has at least one row */
	struct i64vec sorted; /* scratch: the row's durations, sorted */
	struct buf blob;      /* scratch: the encoded row */
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

/* Insert one row (run and region ids resolved here). */
static int ingest_insert(struct ingest_ctx *c, struct store_timing *t, uint32_t region)
{
	int rc;

	if (!c->region_ids[region]) {
		rc = store_region_id(c->st, &c->region_ids[region], c->info->region_names[region]);
		if (rc)
			return rc;
	}
	t->run_id = c->run_id;
	t->region_id = c->region_ids[region];
	return store_add_timing(c->st, t);
}

/*
 * The hash is known: if the content is already stored, remember that run
 * and return INGEST_STOP_DUPLICATE (the caller rolls back); otherwise give
 * the new run its hash.
 */
static int ingest_resolve(struct ingest_ctx *c)
{
	int64_t existing = 0;
	int rc;

	if (c->hash->started) {
		pthread_join(c->hash->thread, NULL);
		c->hash->started = 0;
	}
	c->resolved = 1;
	if (c->hash->err)
		return err_set(ERR_IO, "cannot read '%s': %s", c->hash->path,
			       strerror(c->hash->err));
	rc = store_find_sha(c->st, &existing, c->hash->hex);
	if (rc)
		return rc;
	if (existing) {
		c->duplicate = existing;
		return INGEST_STOP_DUPLICATE;
	}
	return store_set_run_sha(c->st, c->run_id, c->hash->hex);
}

/* The per-row callback of h5prof_read: summarise, encode, insert; once the
 * hashing thread is done, check the hash (which may stop the read). */
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
	memset(&t, 0, sizeof(t));
	c->blob.len = 0;
	if (row->has_events) {
		c->sorted.len = 0;
		if (i64vec_reserve(&c->sorted, (size_t)row->calls))
			return ERR_NOMEM;
		c->sorted.len = (size_t)row->calls;
		util_sort_i64_to(c->sorted.v, row->durations, c->sorted.len);
		rc = blob_encode(&c->blob, c->sorted.v, c->sorted.len);
		if (rc)
			return rc;
		t.durations = c->blob.data;
		t.durations_len = c->blob.len;
	}
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
	rc = ingest_insert(c, &t, row->region);
	if (rc)
		return rc;
	if (!c->resolved && atomic_load(&c->hash->done)) {
		rc = ingest_resolve(c);
		if (rc)
			return rc;
	}
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

/* Hash the file (the hashing thread's body; see the top of the file). */
static void *ingest_hash_main(void *arg)
{
	struct ingest_hash *h = arg;

	h->err = sha256_path(h->hex, h->path);
	atomic_store(&h->done, 1);
	return NULL;
}

/* Start hashing in the background, or hash now when no thread starts. */
static int ingest_hash_start(struct ingest_hash *h, const char *path)
{
	memset(h, 0, sizeof(*h));
	h->path = path;
	atomic_init(&h->done, 0);
	if (pthread_create(&h->thread, NULL, ingest_hash_main, h) == 0) {
		h->started = 1;
		return 0;
	}
	h->err = 0;
	if (sha256_file(h->hex, path))
		return ERR_IO;
	atomic_store(&h->done, 1);
	return 0;
}

/* Whether a given commit differs from the stored one: the same commit
 * abbreviated (one a prefix of the other, both hex) does not. */
static int ingest_commit_differs(const char *given, const char *stored)
{
	size_t a, b;

	if (!stored)
		return 1;
	a = strlen(given);
	b = strlen(stored);
	if (identity_is_hex(given, 4, 64) && identity_is_hex(stored, 4, 64))
		return strncasecmp(given, stored, a < b ? a : b) != 0;
	return strcmp(given, stored) != 0;
}

/* INGEST_KEPT_* of the options that differ from the stored run old. */
static unsigned ingest_kept(const struct store_run *old, const struct ingest_opts *opts)
{
	unsigned kept = 0;

	if (opts->commit && ingest_commit_differs(opts->commit, old->commit))
		kept |= INGEST_KEPT_COMMIT;
	if (opts->branch && (!old->branch || strcmp(opts->branch, old->branch)))
		kept |= INGEST_KEPT_BRANCH;
	if (opts->label && (!old->label || strcmp(opts->label, old->label)))
		kept |= INGEST_KEPT_LABEL;
	return kept;
}

/* The content is already stored as run existing: report it (with what of
 * the given identity it keeps), add tags. */
static int ingest_duplicate(struct ingest_ctx *c, int64_t existing)
{
	struct store_run old;
	int rc;

	rc = ingest_add_tags(&c->out->tags_added, c->st, existing, c->opts);
	if (rc)
		return rc;
	rc = store_get_run(c->st, &old, existing);
	if (rc)
		return rc;
	c->out->run_id = existing;
	c->out->duplicate = 1;
	c->out->kept = ingest_kept(&old, c->opts);
	/* the stored values the caller's warning shows: moved, not re-read */
	if (c->out->kept & INGEST_KEPT_COMMIT) {
		c->out->kept_commit = old.commit;
		old.commit = NULL;
	}
	if (c->out->kept & INGEST_KEPT_BRANCH) {
		c->out->kept_branch = old.branch;
		old.branch = NULL;
	}
	if (c->out->kept & INGEST_KEPT_LABEL) {
		c->out->kept_label = old.label;
		old.label = NULL;
	}
	c->out->num_ranks = old.num_ranks;
	c->out->num_regions = old.num_regions;
	c->out->num_calls = (uint64_t)old.num_calls;
	store_run_release(&old);
	return 0;
}

/* Insert the run of a new file with its metadata and tags; sets run_id. */
static int ingest_new_run(struct ingest_ctx *c, const char *sha)
{
	struct store_run run;
	char now[32], recorded[32];
	const char *ts;
	int64_t epoch;
	int rc;

	memset(&run, 0, sizeof(run));
	util_now_iso(now, sizeof(now));
	run.sha256 = (char *)sha;
	run.source_path = (char *)c->info->path;
	run.ingested_at = now;
	run.recorded_at = recorded;
	ts = h5prof_meta_get(c->p, "timestamp");
	if (ts && !util_parse_iso(&epoch, ts))
		util_format_iso(recorded, sizeof(recorded), epoch);
	else
		run.recorded_at = NULL;
	run.label = (char *)(c->opts->label ? c->opts->label : h5prof_meta_get(c->p, "label"));
	run.commit = (char *)c->opts->commit;
	run.branch = (char *)c->opts->branch;
	run.schema = c->info->schema;
	run.layout = (char *)h5prof_layout_name(c->info->layout);
	run.num_ranks = c->info->num_ranks;
	rc = store_insert_run(c->st, &c->run_id, &run);
	if (rc)
		return rc;
	rc = ingest_meta(c->st, c->run_id, c->info, c->opts);
	if (rc)
		return rc;
	return ingest_add_tags(&c->out->tags_added, c->st, c->run_id, c->opts);
}

void ingest_result_release(struct ingest_result *r)
{
	if (!r)
		return;
	free(r->kept_commit);
	free(r->kept_branch);
	free(r->kept_label);
	memset(r, 0, sizeof(*r));
}

/* Open path as ingest reads it: a profile with at least one (rank, region)
 * row, since a readable HDF5 file without one is not a profile (storing it
 * would make every later check pass on nothing). */
static int ingest_open(struct h5prof **out, const char *path)
{
	const struct h5prof_info *info;
	int rc = h5prof_open(out, path);

	if (rc)
		return rc;
	info = h5prof_info(*out);
	if (info->num_regions == 0 || info->num_rows == 0) {
		h5prof_free(*out);
		*out = NULL;
		return err_set(ERR_FORMAT, "'%s': not a scope-profiler profile (no regions found)",
			       path);
	}
	return 0;
}

int ingest_check(const char *path)
{
	struct h5prof *p = NULL;
	int rc = ingest_open(&p, path);

	h5prof_free(p);
	return rc;
}

int ingest_file(struct ingest_result *out, struct store *st, const char *path,
		const struct ingest_opts *opts)
{
	struct ingest_ctx c;
	struct ingest_hash hash;
	int in_tx = 0, rc;

	memset(out, 0, sizeof(*out));
	memset(&c, 0, sizeof(c));
	memset(&hash, 0, sizeof(hash));
	i64vec_init(&c.sorted);
	buf_init(&c.blob);
	rc = ingest_open(&c.p, path);
	if (rc)
		goto out;
	c.info = h5prof_info(c.p);
	c.st = st;
	c.opts = opts;
	c.out = out;
	c.hash = &hash;
	c.region_ids = calloc(c.info->num_regions + 1, sizeof(*c.region_ids));
	c.seen = calloc(c.info->num_regions + 1, 1);
	if (!c.region_ids || !c.seen) {
		rc = err_nomem();
		goto out;
	}
	rc = ingest_hash_start(&hash, path);
	if (rc)
		goto out;
	rc = store_begin(st);
	if (rc)
		goto out;
	in_tx = 1;
	rc = ingest_new_run(&c, INGEST_PENDING_SHA);
	if (!rc && atomic_load(&hash.done))
		rc = ingest_resolve(&c); /* hashed without a thread */
	if (!rc)
		rc = h5prof_read(c.p, ingest_row, &c);
	if (!rc && !c.resolved)
		rc = ingest_resolve(&c);
	if (rc == INGEST_STOP_DUPLICATE) {
		/* Nothing of this file is kept: the run and its rows go. */
		store_rollback(st);
		in_tx = 0;
		c.out->tags_added = 0;
		rc = store_begin(st);
		if (rc)
			goto out;
		in_tx = 1;
		rc = ingest_duplicate(&c, c.duplicate);
		if (rc)
			goto out;
		goto commit;
	}
	if (rc)
		goto out;
	rc = store_finish_run(st, c.run_id);
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
	if (hash.started)
		pthread_join(hash.thread, NULL);
	if (rc && in_tx)
		store_rollback(st);
	if (rc)
		ingest_result_release(out);
	free(c.region_ids);
	free(c.seen);
	i64vec_release(&c.sorted);
	buf_release(&c.blob);
	h5prof_free(c.p);
	return rc;
}
