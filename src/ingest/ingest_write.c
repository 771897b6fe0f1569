/*
 * ingest_write.c - the store's side of an ingest, once the reader child has
 * sent a whole file (ingest.c collected and checked its frames): the run
 * written from the frames in one short write transaction (ingest_write()),
 * or, when its content is stored already, the duplicate reported with its
 * tags added.  The rows go in region by region (ingest_row_order()), each
 * with its self time from the call trees' frames; the paths and the run's
 * percentiles are taken from the frames too, never read back
 * (store_finish_run_from()).  The names the store's text rule bounds (the
 * label, metadata keys) are checked before a store is created for the file
 * (ingest_pending_names()).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scopedb/err.h"
#include "scopedb/identity.h"
#include "scopedb/ingest.h"
#include "scopedb/store.h"
#include "ingest/ingest_ctx.h"
#include "ingest/ingest_opts.h"
#include "ingest/ingest_quant.h"
#include "scopedb/util.h"

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
	rc = store_add_timing(c->st, t);
	if (rc == ERR_FORMAT) { /* the region's totals over its ranks overflow */
		char why[256];

		snprintf(why, sizeof(why), "%s", err_msg());
		rc = err_set(ERR_FORMAT, "cannot store '%s': %s: region '%s'",
			     util_quote_msg(c->path), why,
			     util_quote_msg(c->info->region_names[region]));
	}
	return rc;
}

/* A duplicate's first --meta that the stored run existing lacks or holds
 * with another value, for the caller's warning (the run keeps its own). */
static int ingest_duplicate_meta(struct ingest_ctx *c, int64_t existing)
{
	struct store_meta m;
	struct ingest_result *out = c->out;
	const char *kv, *eq, *stored;
	ptrdiff_t i;
	int rc = store_get_meta(c->st, &m, existing);

	if (rc)
		return rc;
	i = ingest_meta_kept(&m, c->opts, &stored);
	if (i >= 0) {
		kv = c->opts->meta[i];
		eq = strchr(kv, '=');
		out->kept |= INGEST_KEPT_META;
		out->kept_meta_key = strndup(kv, (size_t)(eq - kv));
		out->kept_meta_given = util_strdup(eq + 1);
		if (stored)
			out->kept_meta = util_strdup(stored);
		if (!out->kept_meta_key || !out->kept_meta_given || (stored && !out->kept_meta))
			rc = err_nomem();
	}
	store_meta_release(&m);
	return rc;
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
	return c->opts->nmeta ? ingest_duplicate_meta(c, existing) : 0;
}

/* An ERR_FORMAT of the store's text rule (docs/text.md: a label past
 * STORE_NAME_MAX) about what came from file path: said of the file. */
int ingest_of_file(const char *path)
{
	char why[512], qp[160];

	snprintf(why, sizeof(why), "%s", err_msg());
	return err_set(ERR_FORMAT, "cannot read '%s': %s",
		       util_quote_msg_buf(qp, sizeof(qp), 120, path), why);
}

/* The value of /metadata attribute key, or NULL. */
static const char *ingest_meta_get(const struct h5prof_info *info, const char *key)
{
	size_t i;

	for (i = 0; i < info->num_meta; i++)
		if (!strcmp(info->meta[i].key, key))
			return info->meta[i].value;
	return NULL;
}

/* The run's label: --label, else a --meta label, else the file's (or NULL). */
static const char *ingest_run_label(const struct ingest_opts *o, const struct h5prof_info *info)
{
	const char *label = o->label ? o->label : ingest_opts_meta(o, "label");

	return label ? label : ingest_meta_get(info, "label");
}

/* Insert the run of a new file with its metadata and tags; sets run_id.
 * A commit of 4 to 64 hex digits is stored lower case (as git prints it;
 * commit prefixes match in any case). */
static int ingest_new_run(struct ingest_ctx *c, const char *sha)
{
	struct store_run run;
	char now[32], recorded[32], commit[65];
	const char *ts;
	int64_t epoch;
	int rc;

	memset(&run, 0, sizeof(run));
	util_now_iso(now, sizeof(now));
	run.sha256 = (char *)sha;
	run.source_path = (char *)c->info->path;
	run.ingested_at = now;
	run.recorded_at = recorded;
	/* a --meta timestamp or label overrides the file's, as in the
	 * metadata stored (--label before either) */
	ts = ingest_opts_meta(c->opts, "timestamp");
	if (!ts)
		ts = ingest_meta_get(c->info, "timestamp");
	if (ts && !util_parse_iso(&epoch, ts))
		util_format_iso(recorded, sizeof(recorded), epoch);
	else
		run.recorded_at = NULL;
	if (ts && !run.recorded_at) {
		char qp[160], qt[120];

		snprintf(
		    c->out->time_warning, sizeof(c->out->time_warning),
		    "'%s': its metadata timestamp '%s' is not a valid ISO-8601 time, so the run "
		    "counts as recorded when it was ingested",
		    util_quote_msg_buf(qp, sizeof(qp), 120, c->info->path),
		    util_quote_msg_buf(qt, sizeof(qt), 80, ts));
	}
	run.label = (char *)ingest_run_label(c->opts, c->info);
	run.commit = (char *)c->opts->commit;
	if (run.commit && identity_is_hex(run.commit, 4, 64)) {
		size_t i;

		for (i = 0; run.commit[i]; i++)
			commit[i] = (char)tolower((unsigned char)run.commit[i]);
		commit[i] = '\0';
		run.commit = commit;
	}
	run.branch = (char *)c->opts->branch;
	run.schema = c->info->schema;
	run.layout = (char *)h5prof_layout_name(c->info->layout);
	run.num_ranks = c->info->num_ranks;
	rc = store_insert_run(c->st, &c->run_id, &run);
	if (!rc)
		rc = ingest_store_meta(c->st, c->run_id, c->info, c->opts);
	if (!rc)
		rc = ingest_add_tags(&c->out->tags_added, c->st, c->run_id, c->opts);
	return rc == ERR_FORMAT ? ingest_of_file(c->info->path) : rc;
}

void ingest_result_release(struct ingest_result *r)
{
	if (!r)
		return;
	free(r->kept_commit);
	free(r->kept_branch);
	free(r->kept_label);
	free(r->kept_meta_key);
	free(r->kept_meta);
	free(r->kept_meta_given);
	memset(r, 0, sizeof(*r));
}

/* The i-th row of c->frames in the order it is stored (c->order),
 * decoded into *t and *region. */
static int ingest_stored_row(const struct ingest_ctx *c, size_t i, struct store_timing *t,
			     uint32_t *region)
{
	size_t pos = c->order[i];
	struct wire_frame f;

	if (!wire_next(c->frames.data, c->frames.len, &pos, &f))
		return err_set(ERR_GENERIC, "internal error: a row frame moved");
	return wire_get_row(t, region, &f, c->info->num_regions);
}

/* struct store_blob_source's scan over the rows the child sent, once
 * ingest_store() has stored them all (every region has its store id):
 * the blobs as they were stored, in that order, noted then (c->blobs). */
static int ingest_scan_blobs(void *ctx, store_blob_fn fn, void *arg)
{
	struct ingest_ctx *c = ctx;
	size_t i;
	int rc = 0;

	for (i = 0; !rc && i < c->nblobs; i++) {
		const struct ingest_blobrec *b = &c->blobs[i];

		rc = fn(arg, c->region_ids[b->region], b->rank, b->data, b->len);
	}
	return rc;
}

/* Note the blob of a stored row (ingest_scan_blobs()); c->blobs has room
 * for a blob a row. */
static void ingest_note_blob(struct ingest_ctx *c, const struct store_timing *t, uint32_t region)
{
	c->blobs[c->nblobs++] = (struct ingest_blobrec){t->durations, (uint32_t)t->durations_len,
							region, (uint32_t)t->rank};
}

/* struct store_blob_source's quantiles(): those ingest_store() computed
 * while it wrote the rows (ingest_quant.h). */
static int ingest_quantiles(void *ctx, store_quantile_fn fn, void *arg)
{
	const struct ingest_ctx *c = ctx;

	return c->quant ? ingest_quant_each(c->quant, fn, arg) : 0;
}

/*
 * The places in c->frames of its WIRE_ROW frames, region by region (in
 * file order within a region: ranks ascending for the columnar layout,
 * whose frames come rank by rank), into *order[0..*n).  Stored in this
 * order, a run's timings rows reach each index (run, region, rank) and
 * (region, run) at one place at a time instead of at every region's for
 * each rank: with 4,096 ranks x 256 regions, rank by rank, the indexes'
 * hot pages outgrew SQLite's cache and the ingest took 3x as long.  A
 * counting sort of the places and regions noted as the frames came
 * (ingest_note_row()), which are freed: 8 bytes a row, no pass over the
 * frames (two passes took 28 ms of a 16M-call ingest).
 */
static int ingest_row_order(struct ingest_ctx *c, size_t **order, size_t *n)
{
	size_t nreg = c->info->num_regions, *at = calloc(nreg + 1, sizeof(*at)), *v = NULL;
	size_t rows = c->nrows, i;
	int rc = 0;

	if (!at)
		return err_nomem();
	for (i = 0; !rc && i < rows; i++) {
		if (c->row_region[i] >= nreg) {
			/* a JSON profile's row past its regions: wire_row_key() says so */
			struct wire_frame f;
			uint32_t rank, region;
			size_t pos = c->row_pos[i];

			if (!wire_next(c->frames.data, c->frames.len, &pos, &f))
				rc = err_set(ERR_GENERIC, "internal error: a row frame moved");
			else
				rc = wire_row_key(&rank, &region, &f, nreg);
			if (!rc)
				rc = err_set(ERR_GENERIC, "internal error: a row's region changed");
			break;
		}
		at[c->row_region[i] + 1]++;
	}
	if (!rc && !(v = malloc((rows ? rows : 1) * sizeof(*v))))
		rc = err_nomem();
	for (i = 1; !rc && i <= nreg; i++)
		at[i] += at[i - 1];
	for (i = 0; !rc && i < rows; i++)
		v[at[c->row_region[i]]++] = c->row_pos[i];
	free(at);
	free(c->row_pos);
	free(c->row_region);
	c->row_pos = NULL;
	c->row_region = NULL;
	c->nrows = c->rows_cap = c->regions_cap = 0;
	if (rc) {
		free(v);
		return rc;
	}
	*order = v;
	*n = rows;
	return 0;
}

/*
 * The places of the call-tree frames in the order they are stored
 * (*out, c->nnest of them): the WIRE_NEST and _NODE frames as they came,
 * then the _PATH frames path by path (a counting sort by node; ranks in
 * the order they came).  path_ranks is keyed by (run, path, rank): in
 * that order its rows are appended at one place instead of at every
 * path's for each rank, where SQLite splits pages in the middle (262,144
 * rows: 0.31 s against 0.51 s).
 */
static int ingest_nest_order(const struct ingest_ctx *c, size_t **out)
{
	size_t nodes = c->nest.nodes, *at = calloc(nodes + 2, sizeof(*at)), *v, i;

	v = malloc((c->nnest ? c->nnest : 1) * sizeof(*v));
	if (!at || !v) {
		free(at);
		free(v);
		return err_nomem();
	}
	/* slot 0: the other frames; slot node + 1: that node's paths */
	for (i = 0; i < c->nnest; i++)
		at[c->nest_node[i] == UINT32_MAX ? 0 : (size_t)c->nest_node[i] + 1]++;
	for (i = 1; i < nodes + 2; i++)
		at[i] += at[i - 1];
	for (i = c->nnest; i-- > 0;)
		v[--at[c->nest_node[i] == UINT32_MAX ? 0 : (size_t)c->nest_node[i] + 1]] =
		    c->nest_pos[i];
	free(at);
	*out = v;
	return 0;
}

/* Store what the child sent as a new run (the write transaction is open);
 * the regions' percentiles are computed on a second thread meanwhile. */
static int ingest_store(struct ingest_ctx *c)
{
	struct store_blob_source blobs = {ingest_scan_blobs, ingest_quantiles, c};
	struct ingest_quant quant;
	struct ingest_rowmap mins = INGEST_ROWMAP_INIT, maxs = INGEST_ROWMAP_INIT;
	struct store_timing t;
	size_t *nest_order = NULL;
	uint32_t region;
	uint64_t self;
	size_t i;
	int rc;

	c->region_ids = calloc(c->info->num_regions + 1, sizeof(*c->region_ids));
	c->seen = calloc(c->info->num_regions + 1, 1);
	if (!c->region_ids || !c->seen)
		return err_nomem();
	rc = ingest_row_order(c, &c->order, &c->norder);
	if (!rc) {
		c->blobs = malloc((c->norder ? c->norder : 1) * sizeof(*c->blobs));
		c->nblobs = 0;
		if (!c->blobs)
			rc = err_nomem();
	}
	memset(&quant, 0, sizeof(quant));
	if (!rc) {
		ingest_quant_start(&quant, c);
		c->quant = &quant;
	}
	/* the (rank, region) maps in arrays for a run whose rows fill its grid */
	ingest_rowmap_grid(&mins, c->info->num_ranks, c->info->num_regions, c->norder);
	ingest_rowmap_grid(&maxs, c->info->num_ranks, c->info->num_regions, c->norder);
	if (!rc)
		rc = ingest_nest_self_check(&c->nest, c->info->num_regions);
	if (!rc)
		rc = ingest_new_run(c, c->hex);
	for (i = 0; !rc && i < c->norder; i++) {
		rc = ingest_stored_row(c, i, &t, &region);
		/* timings.exclusive_ns keeps the self time: the tree's, else
		 * the file's (which the child sends too), else unknown; a row
		 * of no call has none (upstream writes -1 there too) */
		if (!rc && ingest_rowmap_get(&c->nest.self_ns, (uint32_t)t.rank, region, &self))
			t.exclusive = (int64_t)self;
		else if (!rc)
			t.exclusive = t.calls == 0 ? 0 : -1;
		if (!rc)
			rc = ingest_insert(c, &t, region);
		if (!rc && t.durations)
			ingest_note_blob(c, &t, region);
		if (!rc && t.has_events && t.calls > 0)
			rc = ingest_rowmap_put(&mins, (uint32_t)t.rank, region, (uint64_t)t.min);
		if (!rc && t.has_events && t.calls > 0)
			rc = ingest_rowmap_put(&maxs, (uint32_t)t.rank, region, (uint64_t)t.max);
		if (rc)
			break;
		if (!c->seen[region]) {
			c->seen[region] = 1;
			c->regions++;
		}
		c->calls += t.calls;
	}
	if (!rc)
		rc = ingest_nest_order(c, &nest_order);
	if (!rc) {
		struct ingest_nest_run nr = {c->st,
					     c->run_id,
					     c->frames.data,
					     c->frames.len,
					     nest_order,
					     c->nnest,
					     c->info->num_regions,
					     (const char *const *)c->info->region_names,
					     c->region_ids};

		rc = ingest_nest_store(&nr, &c->nest, &mins, &maxs);
	}
	free(nest_order);
	ingest_rowmap_release(&mins);
	ingest_rowmap_release(&maxs);
	/* the percentiles from the blobs in c->frames, not read back: those
	 * computed meanwhile taken, any other computed now */
	ingest_quant_join(&quant, rc != 0);
	if (!rc)
		rc = store_finish_run_from(c->st, c->run_id, &blobs);
	ingest_quant_release(&quant);
	c->quant = NULL;
	free(c->order);
	c->order = NULL;
	c->norder = 0;
	free(c->blobs);
	c->blobs = NULL;
	c->nblobs = 0;
	if (rc)
		return rc;
	c->out->run_id = c->run_id;
	c->out->num_ranks = c->info->num_ranks;
	c->out->num_regions = c->regions;
	c->out->num_calls = c->calls;
	ingest_nest_warning(c->out->warning, sizeof(c->out->warning), c->path, &c->nest,
			    (const char *const *)c->info->region_names, c->info->num_regions);
	return 0;
}

int ingest_pending_names(const struct ingest_pending *p, const struct ingest_opts *o)
{
	const struct h5prof_info *info = p->c.info;
	size_t i;
	int rc = store_check_name("label", ingest_run_label(o, info));

	for (i = 0; !rc && i < info->num_meta; i++)
		rc = store_check_name("metadata key", info->meta[i].key);
	return rc ? ingest_of_file(info->path) : 0;
}

int ingest_write(struct ingest_result *out, struct store *st, struct ingest_pending *p)
{
	struct ingest_ctx *c = &p->c;
	int in_tx = 0, rc;

	memset(out, 0, sizeof(*out));
	c->st = st;
	c->out = out;
	/* the write lock from here on only: the file is read */
	rc = store_begin(st);
	if (rc)
		goto out;
	in_tx = 1;
	if (!c->duplicate) {
		/* another job may have stored it since the child sent the hash */
		rc = store_find_sha(st, &c->duplicate, c->hex);
		if (rc)
			goto out;
	}
	if (c->duplicate)
		rc = ingest_duplicate(c, c->duplicate);
	else
		rc = ingest_store(c);
	if (rc)
		goto out;
	rc = store_commit(st);
	if (!rc)
		in_tx = 0;
out:
	if (rc && in_tx)
		store_rollback(st);
	if (rc)
		ingest_result_release(out);
	c->out = NULL;
	return rc;
}
