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
 * may have stored the same run since we looked.  A run is the unit of
 * failure: one that cannot be read (verify.h calls it damaged) or holds
 * text a store refuses (not UTF-8: verify_text(), checked before anything
 * of it is written) is skipped with its reason and the next one is
 * copied; an error of the destination, or a store failing as a whole (out
 * of memory, I/O, a lost connection), stops the transfer.
 * transfer_check() reads the runs the same way, writing nothing, until one
 * passes, so that a command can refuse a source with nothing to copy
 * before it creates a destination store.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scopedb/err.h"
#include "scopedb/store.h"
#include "scopedb/transfer.h"
#include "scopedb/util.h"
#include "store/verify.h"

/* A transaction of the destination holds at most this many runs, and is
 * committed after about this much time (transfer_batch()). */
#define TRANSFER_BATCH_RUNS 64
#define TRANSFER_BATCH_MS 200

/* The destination side of store_scan_timings(). */
struct transfer_ctx {
	struct store *dst;
	int64_t run_id;
	int dst_failed; /* a call of dst failed (not the run's text) */
};

/* A failure of a store itself rather than of one run's content: out of
 * memory, an I/O error or a lost connection, a lock not given. */
static int transfer_fatal(int code)
{
	return code == ERR_NOMEM || code == ERR_IO || code == ERR_BUSY;
}

/* store_scan_timings() callback of transfer_check(): the row it hands
 * over has been checked (verify_timing(), its durations decoded); its
 * text is checked here. */
static int transfer_read_only(void *arg, const struct store_timing *t, const char *region)
{
	int ret = verify_text("region name", region);

	(void)arg;
	return ret ? ret : verify_timing_text(t);
}

/* ret of a call of the destination, noted in x->dst_failed: a failure of
 * dst, not of the run's content. */
static int transfer_dst(struct transfer_ctx *x, int ret)
{
	x->dst_failed = ret != 0;
	return ret;
}

static int transfer_timing(void *arg, const struct store_timing *t, const char *region)
{
	struct transfer_ctx *x = arg;
	struct store_timing copy = *t;
	/* the text rule first: the run's fault, not the destination's */
	int ret = transfer_read_only(NULL, t, region);

	if (ret)
		return ret;
	copy.run_id = x->run_id;
	ret = transfer_dst(x, store_region_id(x->dst, &copy.region_id, region));
	return ret ? ret : transfer_dst(x, store_add_timing(x->dst, &copy));
}

/* The destination side of store_scan_paths(): a path (its region's name
 * checked as the timings rows' are) and a (path, rank) row. */
static int transfer_path(void *arg, const struct store_path *p, const char *region)
{
	struct transfer_ctx *x = arg;
	struct store_path copy = *p;
	int ret = verify_text("region name", region);

	if (ret)
		return ret;
	copy.run_id = x->run_id;
	ret = transfer_dst(x, store_region_id(x->dst, &copy.region_id, region));
	return ret ? ret : transfer_dst(x, store_add_path(x->dst, &copy));
}

static int transfer_path_rank(void *arg, const struct store_path_rank *r)
{
	struct transfer_ctx *x = arg;
	struct store_path_rank copy = *r;

	copy.run_id = x->run_id;
	return transfer_dst(x, store_add_path_rank(x->dst, &copy));
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
	return ret ? ret : transfer_dst(x, store_put_nesting(x->dst, x->run_id, &n));
}

/* The metadata of run src_id, read and checked against the text rule;
 * *meta is released by the caller. */
static int transfer_get_meta(struct store_meta *meta, struct store *src, int64_t id)
{
	char what[160];
	size_t i;
	int ret = store_get_meta(src, meta, id);

	for (i = 0; !ret && i < meta->n; i++) {
		ret = verify_key("metadata key", meta->keys[i], 1);
		snprintf(what, sizeof(what), "metadata '%.100s' value", meta->keys[i]);
		if (!ret)
			ret = verify_text(what, meta->values[i]);
	}
	return ret;
}

static void transfer_run_release(struct transfer_run *r)
{
	size_t i;

	free(r->source_path);
	free(r->error);
	for (i = 0; i < TRANSFER_KEPT_N; i++) {
		free(r->kept_value[i]);
		free(r->given_value[i]);
	}
	memset(r, 0, sizeof(*r));
}

/* run is stored in dst as run existing: note in r which of its commit,
 * branch and label that run has otherwise (they are not copied over, as
 * ingest keeps a stored run's own). */
static int transfer_kept(struct transfer_run *r, struct store *dst, int64_t existing,
			 const struct store_run *run)
{
	struct store_run d;
	const char *given[TRANSFER_KEPT_N] = {run->commit, run->branch, run->label};
	const char *kept[TRANSFER_KEPT_N];
	size_t i;
	int ret = store_get_run(dst, &d, existing);

	if (ret)
		return ret;
	kept[0] = d.commit;
	kept[1] = d.branch;
	kept[2] = d.label;
	for (i = 0; !ret && i < TRANSFER_KEPT_N; i++) {
		if (!given[i] || (kept[i] && !strcmp(given[i], kept[i])))
			continue;
		r->kept |= 1u << i;
		r->given_value[i] = util_strdup(given[i]);
		r->kept_value[i] = kept[i] ? util_strdup(kept[i]) : NULL;
		if (!r->given_value[i] || (kept[i] && !r->kept_value[i]))
			ret = err_nomem();
	}
	store_run_release(&d);
	return ret;
}

/* Copy run id of src to dst unless dst has its content (r says which).
 * *fault: the error is the run's own (a damaged row, text that is not
 * UTF-8), not the stores'.  In its own transaction, or with batch in the
 * one the caller holds open (then nothing is committed or rolled back
 * here: on an error the caller rolls the whole batch back). */
static int transfer_one(struct transfer_run *r, int *fault, struct store *dst, struct store *src,
			int64_t id, int batch)
{
	struct transfer_ctx x;
	struct store_run run;
	struct store_meta meta;
	int64_t existing = 0;
	size_t i;
	int in_txn = 0, added, ret;

	memset(r, 0, sizeof(*r));
	memset(&meta, 0, sizeof(meta));
	memset(&run, 0, sizeof(run));
	r->src_id = id;
	*fault = 0;
	/* the run, its texts and metadata, read before dst is touched */
	ret = store_get_run(src, &run, id);
	if (!ret) {
		r->source_path = util_strdup(run.source_path);
		if (!r->source_path)
			ret = ERR_NOMEM;
	}
	if (!ret)
		ret = verify_run_text(&run, 1);
	if (!ret)
		ret = transfer_get_meta(&meta, src, id);
	/* a run the destination has already is not written: what a store
	 * would refuse of it (a name a newer text rule holds too long) is
	 * no reason not to skip it */
	if (ret && !transfer_fatal(ret) && run.sha256) {
		char why[1024];
		int found;

		snprintf(why, sizeof(why), "%s", err_msg());
		found = store_find_sha(dst, &existing, run.sha256);
		if (found) { /* the destination failed: fatal, as any write */
			ret = found;
			goto out;
		}
		if (existing) {
			err_clear();
			ret = transfer_kept(r, dst, existing, &run);
			goto out;
		}
		ret = err_set(ret, "%s", why);
	}
	if (ret) {
		*fault = !transfer_fatal(ret);
		goto out;
	}
	ret = batch ? 0 : store_begin(dst);
	in_txn = !batch && ret == 0;
	if (!ret)
		ret = store_find_sha(dst, &existing, run.sha256);
	if (!ret && existing)
		ret = transfer_kept(r, dst, existing, &run);
	if (ret || existing)
		goto out;
	ret = store_insert_run(dst, &r->dst_id, &run);
	if (!ret)
		ret = store_set_metas(dst, r->dst_id, meta.keys, meta.values, meta.n);
	for (i = 0; !ret && i < run.ntags; i++)
		ret = store_add_tag(dst, &added, r->dst_id, run.tags[i]);
	if (ret)
		goto out;
	x.dst = dst;
	x.run_id = r->dst_id;
	x.dst_failed = 0;
	ret = store_scan_timings(src, id, transfer_timing, &x);
	if (!ret)
		ret = transfer_paths(&x, src, id);
	if (ret) {
		*fault = !x.dst_failed && !transfer_fatal(ret);
		goto out;
	}
	ret = store_finish_run(dst, r->dst_id);
	if (!ret && in_txn) {
		in_txn = 0;
		ret = store_commit(dst);
	}
	r->copied = ret == 0;
out:
	if (in_txn)
		store_rollback(dst);
	if (!ret && existing)
		r->dst_id = existing;
	if (ret)
		r->dst_id = 0;
	store_meta_release(&meta);
	store_run_release(&run);
	return ret;
}

/* Read and check run id of src as transfer_one() would copy it (r: its
 * id and path, for transfer_failed()). */
static int transfer_read(struct transfer_run *r, struct store *src, int64_t id)
{
	struct store_run run;
	struct store_meta meta;
	int ret;

	memset(r, 0, sizeof(*r));
	memset(&meta, 0, sizeof(meta));
	r->src_id = id;
	ret = store_get_run(src, &run, id);
	if (ret)
		return ret;
	r->source_path = util_strdup(run.source_path);
	ret = r->source_path ? verify_run_text(&run, 1) : ERR_NOMEM;
	store_run_release(&run);
	if (!ret)
		ret = transfer_get_meta(&meta, src, id);
	store_meta_release(&meta);
	if (!ret)
		ret = store_scan_timings(src, id, transfer_read_only, NULL);
	if (!ret)
		ret = store_scan_paths(src, id, NULL, NULL, NULL);
	return ret;
}

static int cmp_id(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* The run ids to copy, ascending and each once: ids[0..n) or, ids NULL,
 * every run of src; *out malloc'ed (never NULL on success). */
static int transfer_order(int64_t **out, size_t *nout, struct store *src, const int64_t *ids,
			  size_t n)
{
	int64_t *order;
	size_t i, k;
	int ret;

	*out = NULL;
	*nout = 0;
	if (!ids) {
		/* every run's id, unchecked: a damaged run is refused alone */
		ret = store_list_run_ids(src, &order, &n);
		if (ret)
			return ret;
		if (!order && !(order = malloc(sizeof(*order))))
			return err_nomem();
	} else {
		order = malloc((n ? n : 1) * sizeof(*order));
		if (!order)
			return err_nomem();
		memcpy(order, ids, n * sizeof(*order));
	}
	qsort(order, n, sizeof(*order), cmp_id);
	/* a run named twice is copied once */
	for (i = k = 0; i < n; i++)
		if (k == 0 || order[i] != order[k - 1])
			order[k++] = order[i];
	*out = order;
	*nout = k;
	return 0;
}

/* r's error: "run N (PATH) not copied: WHY" from the message set. */
static int transfer_failed(struct transfer_run *r)
{
	struct buf b = BUF_INIT;

	if (r->source_path)
		buf_printf(&b, "run %lld (%s) not copied: %s", (long long)r->src_id, r->source_path,
			   err_msg());
	else
		buf_printf(&b, "run %lld not copied: %s", (long long)r->src_id, err_msg());
	r->error = buf_detach(&b);
	return r->error ? 0 : err_nomem();
}

int transfer_check(struct store *src, const int64_t *ids, size_t n, size_t *nruns)
{
	struct transfer_run r, first;
	int64_t *order = NULL;
	size_t norder = 0, i;
	int code = 0, ret;

	memset(&first, 0, sizeof(first));
	ret = transfer_order(&order, &norder, src, ids, n);
	if (nruns)
		*nruns = norder;
	for (i = 0; !ret && i < norder; i++) {
		ret = transfer_read(&r, src, order[i]);
		if (!ret || transfer_fatal(ret)) {
			free(r.source_path);
			break;
		}
		/* a bad run: the first one's error is the answer unless a
		 * later run reads */
		if (!code) {
			code = ret;
			first = r;
			ret = transfer_failed(&first);
		} else {
			free(r.source_path);
			ret = 0;
		}
	}
	if (!ret && code && i == norder)
		ret = err_set(code, "%s", first.error);
	free(first.source_path);
	free(first.error);
	free(order);
	return ret;
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
		ret = store_pin_copy(dst, &prev, pins[i].name, to, pins[i].pinned_at);
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

/* Forget the runs out->runs[from..nruns) (their batch was rolled back). */
static void transfer_forget(struct transfer_result *out, size_t from)
{
	while (out->nruns > from)
		transfer_run_release(&out->runs[--out->nruns]);
}

/*
 * Copy order[*next..norder) in one destination transaction, at most
 * TRANSFER_BATCH_RUNS runs and about TRANSFER_BATCH_MS of work (so that
 * the store's write lock is never held long), advancing *next past the
 * runs committed.  A transaction per run costs a server a BEGIN with the
 * lock, a COMMIT and a read of the region names each time (a push of
 * 1,000 small runs is mostly such round trips), and SQLite a sync each
 * time.  When a run of the batch cannot be copied for what it holds, the
 * batch is rolled back and *retry set: the caller copies those runs one
 * by one, so that the bad run is skipped alone, as without batches.
 */
static int transfer_batch(struct transfer_result *out, int *retry, size_t *next, struct store *dst,
			  struct store *src, const int64_t *order, size_t norder)
{
	size_t from = out->nruns, i = *next;
	int64_t t0 = util_now_ms();
	int fault = 0, ret = store_begin(dst);

	*retry = 0;
	while (!ret && i < norder && i - *next < TRANSFER_BATCH_RUNS) {
		ret = transfer_one(&out->runs[out->nruns++], &fault, dst, src, order[i++], 1);
		if (util_now_ms() - t0 >= TRANSFER_BATCH_MS)
			break;
	}
	if (!ret)
		ret = store_commit(dst);
	else
		store_rollback(dst);
	if (ret) {
		transfer_forget(out, from);
		*retry = fault;
		return fault ? 0 : ret;
	}
	*next = i;
	return 0;
}

int transfer_runs(struct transfer_result *out, struct store *dst, struct store *src,
		  const int64_t *ids, size_t n, int pins)
{
	return transfer_runs_each(out, dst, src, ids, n, pins, NULL, NULL);
}

int transfer_runs_each(struct transfer_result *out, struct store *dst, struct store *src,
		       const int64_t *ids, size_t n, int pins, transfer_run_fn fn, void *ctx)
{
	int64_t *order = NULL;
	size_t norder = 0, i = 0, said = 0, end, stop;
	int bad, fault, retry, ret;

	memset(out, 0, sizeof(*out));
	ret = transfer_order(&order, &norder, src, ids, n);
	out->nselected = norder;
	if (!ret) {
		out->runs = calloc(norder ? norder : 1, sizeof(*out->runs));
		if (!out->runs)
			ret = err_nomem();
	}
	while (!ret && i < norder) {
		/* the runs done so far, each once: committed, or not copied */
		for (; fn && said < out->nruns; said++)
			fn(ctx, &out->runs[said]);
		ret = transfer_batch(out, &retry, &i, dst, src, order, norder);
		if (ret || !retry)
			continue;
		/* a run of the batch is bad: the batch's runs one by one,
		 * each in its own transaction, up to and including it */
		stop = i + TRANSFER_BATCH_RUNS < norder ? i + TRANSFER_BATCH_RUNS : norder;
		for (end = i, bad = 0; end < stop && !ret && !bad; end++) {
			struct transfer_run *r = &out->runs[out->nruns];

			ret = transfer_one(r, &fault, dst, src, order[end], 0);
			bad = ret && fault;
			if (bad) {
				ret = transfer_failed(r);
				out->nfailed++;
			}
			if (!ret)
				out->nruns++;
			else
				transfer_run_release(r);
			i = end + 1;
		}
	}
	for (; fn && said < out->nruns; said++)
		fn(ctx, &out->runs[said]);
	if (!ret && pins)
		ret = transfer_pins(out, dst, src);
	free(order);
	return ret;
}

void transfer_result_release(struct transfer_result *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->nruns; i++)
		transfer_run_release(&r->runs[i]);
	for (i = 0; i < r->npins; i++)
		free(r->pins[i].name);
	free(r->runs);
	free(r->pins);
	memset(r, 0, sizeof(*r));
}
