/*
 * transfer.c - copying runs between two stores (see scopedb/transfer.h),
 * through the public store_* calls only, so that it works between any two
 * backends.
 *
 * A run is read from the source (store_get_run(), store_get_meta(),
 * store_scan_timings(), store_scan_paths()) and written to the destination
 * as ingest writes it (store_insert_run(), store_add_timing(), its call
 * tree, store_finish_run()) in one
 * transaction, in which the content hash is checked again: another writer
 * may have stored the same run since we looked.  transfer_check() reads
 * the first of them the same way, writing nothing, so that a command can
 * refuse a damaged source before it creates a destination store.
 */
#include <stdlib.h>
#include <string.h>

#include "scopedb/err.h"
#include "scopedb/store.h"
#include "scopedb/transfer.h"
#include "scopedb/util.h"

/* The destination side of store_scan_timings(). */
struct transfer_ctx {
	struct store *dst;
	int64_t run_id;
};

static int transfer_timing(void *arg, const struct store_timing *t, const char *region)
{
	struct transfer_ctx *x = arg;
	struct store_timing copy = *t;
	int ret;

	copy.run_id = x->run_id;
	ret = store_region_id(x->dst, &copy.region_id, region);
	return ret ? ret : store_add_timing(x->dst, &copy);
}

/* The destination side of store_scan_paths(). */
static int transfer_path(void *arg, const struct store_path *p, const char *region)
{
	struct transfer_ctx *x = arg;
	struct store_path copy = *p;
	int ret;

	copy.run_id = x->run_id;
	ret = store_region_id(x->dst, &copy.region_id, region);
	return ret ? ret : store_add_path(x->dst, &copy);
}

static int transfer_path_rank(void *arg, const struct store_path_rank *r)
{
	struct transfer_ctx *x = arg;
	struct store_path_rank copy = *r;

	copy.run_id = x->run_id;
	return store_add_path_rank(x->dst, &copy);
}

/* The call tree of run id of src to x's run, when it has one (a run stored
 * before scopedb read nesting has none, and stays so). */
static int transfer_paths(struct transfer_ctx *x, struct store *src, int64_t id)
{
	struct store_nesting n;
	int found, ret = store_get_nesting(src, id, &n, &found);

	if (ret || !found)
		return ret;
	ret = store_scan_paths(src, id, transfer_path, transfer_path_rank, x);
	return ret ? ret : store_put_nesting(x->dst, x->run_id, &n);
}

/* Copy the metadata and tags of run src_id to dst's run dst_id. */
static int transfer_labels(struct store *dst, int64_t dst_id, struct store *src,
			   const struct store_run *run)
{
	struct store_meta meta;
	size_t i;
	int added, ret;

	ret = store_get_meta(src, &meta, run->id);
	for (i = 0; !ret && i < meta.n; i++)
		ret = store_set_meta(dst, dst_id, meta.keys[i], meta.values[i]);
	store_meta_release(&meta);
	for (i = 0; !ret && i < run->ntags; i++)
		ret = store_add_tag(dst, &added, dst_id, run->tags[i]);
	return ret;
}

/* Copy run id of src to dst unless dst has its content (r says which). */
static int transfer_one(struct transfer_run *r, struct store *dst, struct store *src, int64_t id)
{
	struct transfer_ctx x;
	struct store_run run;
	int64_t existing = 0;
	int in_txn = 0, ret;

	memset(r, 0, sizeof(*r));
	r->src_id = id;
	ret = store_get_run(src, &run, id);
	if (ret)
		return ret;
	r->source_path = util_strdup(run.source_path);
	if (!r->source_path) {
		ret = ERR_NOMEM;
		goto out;
	}
	ret = store_begin(dst);
	in_txn = ret == 0;
	if (!ret)
		ret = store_find_sha(dst, &existing, run.sha256);
	if (ret || existing)
		goto out;
	ret = store_insert_run(dst, &r->dst_id, &run);
	if (!ret)
		ret = transfer_labels(dst, r->dst_id, src, &run);
	x.dst = dst;
	x.run_id = r->dst_id;
	if (!ret)
		ret = store_scan_timings(src, id, transfer_timing, &x);
	if (!ret)
		ret = transfer_paths(&x, src, id);
	if (!ret)
		ret = store_finish_run(dst, r->dst_id);
	if (!ret) {
		in_txn = 0;
		ret = store_commit(dst);
	}
	r->copied = ret == 0;
out:
	if (in_txn)
		store_rollback(dst);
	if (!ret && existing)
		r->dst_id = existing;
	store_run_release(&run);
	return ret;
}

/* store_scan_timings() callback of transfer_check(): the row it hands
 * over has been checked (verify_timing(), its durations decoded). */
static int transfer_read_only(void *arg, const struct store_timing *t, const char *region)
{
	(void)arg;
	(void)t;
	(void)region;
	return 0;
}

int transfer_check(struct store *src, const int64_t *ids, size_t n)
{
	struct store_run *runs = NULL;
	struct store_run run;
	struct store_meta meta;
	size_t nruns = 0, i;
	int64_t first = 0;
	int ret = 0;

	if (!ids) {
		ret = store_list_runs(src, &runs, &nruns);
		for (i = 0; !ret && i < nruns; i++)
			if (!first || runs[i].id < first)
				first = runs[i].id;
	}
	for (i = 0; ids && i < n; i++)
		if (!first || ids[i] < first)
			first = ids[i];
	if (ret || !first)
		goto out;
	ret = store_get_run(src, &run, first);
	if (ret)
		goto out;
	store_run_release(&run);
	ret = store_get_meta(src, &meta, first);
	store_meta_release(&meta);
	if (!ret)
		ret = store_scan_timings(src, first, transfer_read_only, NULL);
	if (!ret)
		ret = store_scan_paths(src, first, NULL, NULL, NULL);
out:
	store_runs_free(runs, nruns);
	return ret;
}

static int cmp_id(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* The destination id of source run id, or 0 when it was not transferred. */
static int64_t transfer_dst_id(const struct transfer_result *out, int64_t id)
{
	size_t i;

	for (i = 0; i < out->nruns; i++)
		if (out->runs[i].src_id == id)
			return out->runs[i].dst_id;
	return 0;
}

/* The pins of src naming transferred runs, made in dst where absent. */
static int transfer_pins(struct transfer_result *out, struct store *dst, struct store *src)
{
	struct store_pin *pins = NULL;
	struct transfer_pin *p;
	size_t n = 0, i;
	int64_t to, prev;
	int ret;

	ret = store_list_pins(src, &pins, &n);
	if (!ret && n) {
		out->pins = calloc(n, sizeof(*out->pins));
		if (!out->pins)
			ret = err_nomem();
	}
	for (i = 0; !ret && i < n; i++) {
		to = transfer_dst_id(out, pins[i].run_id);
		if (!to)
			continue;
		ret = store_pin_add(dst, &prev, pins[i].name, to);
		if (ret)
			break;
		p = &out->pins[out->npins++];
		p->dst_id = to;
		p->state = !prev	? TRANSFER_PIN_SET
			   : prev == to ? TRANSFER_PIN_SAME
					: TRANSFER_PIN_ELSEWHERE;
		p->other = prev;
		p->name = util_strdup(pins[i].name);
		if (!p->name)
			ret = ERR_NOMEM;
	}
	store_pins_free(pins, n);
	return ret;
}

int transfer_runs(struct transfer_result *out, struct store *dst, struct store *src,
		  const int64_t *ids, size_t n, int pins)
{
	struct store_run *runs = NULL;
	int64_t *order = NULL;
	size_t nruns = 0, i, k;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	if (!ids) {
		ret = store_list_runs(src, &runs, &nruns);
		n = nruns;
	}
	order = ret ? NULL : malloc((n ? n : 1) * sizeof(*order));
	if (!ret && !order)
		ret = err_nomem();
	if (ret)
		goto out;
	for (i = 0; i < n; i++)
		order[i] = ids ? ids[i] : runs[i].id;
	qsort(order, n, sizeof(*order), cmp_id);
	out->runs = calloc(n ? n : 1, sizeof(*out->runs));
	if (!out->runs) {
		ret = err_nomem();
		goto out;
	}
	for (i = 0; i < n && !ret; i++) {
		for (k = 0; k < out->nruns && out->runs[k].src_id != order[i]; k++)
			;
		if (k < out->nruns)
			continue; /* named twice */
		ret = transfer_one(&out->runs[out->nruns], dst, src, order[i]);
		if (!ret)
			out->nruns++;
		else
			free(out->runs[out->nruns].source_path);
	}
	if (!ret && pins)
		ret = transfer_pins(out, dst, src);
out:
	store_runs_free(runs, nruns);
	free(order);
	return ret;
}

void transfer_result_release(struct transfer_result *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->nruns; i++)
		free(r->runs[i].source_path);
	for (i = 0; i < r->npins; i++)
		free(r->pins[i].name);
	free(r->runs);
	free(r->pins);
	memset(r, 0, sizeof(*r));
}
