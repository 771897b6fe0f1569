/*
 * runs.c - runs, their tags and metadata, pins, listings and removal: the
 * store.h calls on runs, in the front end over any backend (see front.h).
 *
 * Every run read is checked (verify_run()) before the caller sees it.
 * Inside the read snapshot of a backend that reads ahead (ahead.c), a run
 * comes with its tags and metadata in one statement, and its metadata is
 * then served from there.
 */
#include <stdlib.h>
#include <string.h>

#include "scopedb/err.h"
#include "scopedb/store.h"
#include "scopedb/util.h"
#include "store/front.h"
#include "store/rows.h"
#include "store/verify.h"

/* ---- ingest ---------------------------------------------------------- */

int store_find_sha(struct store *st, int64_t *out, const char *sha256)
{
	struct store_args a;
	int ret;

	store_args_init(&a);
	store_arg_text(&a, sha256);
	ret = store_sql_int(st, out, NULL, SQL_RUN_FIND_SHA, &a);
	store_args_release(&a);
	return ret;
}

int store_insert_run(struct store *st, int64_t *out, const struct store_run *run)
{
	struct store_args a;
	char now[32];
	int found, ret;

	*out = 0;
	if (!run->ingested_at)
		util_now_iso(now, sizeof(now));
	store_args_init(&a);
	store_arg_text(&a, run->sha256);
	store_arg_text(&a, run->source_path);
	store_arg_text(&a, run->ingested_at ? run->ingested_at : now);
	store_arg_text_or_null(&a, run->recorded_at);
	store_arg_text_or_null(&a, run->label);
	store_arg_text_or_null(&a, run->commit);
	store_arg_text_or_null(&a, run->branch);
	store_arg_int(&a, run->schema);
	store_arg_text(&a, run->layout);
	store_arg_int(&a, run->num_ranks);
	ret = store_sql_int(st, out, &found, SQL_RUN_INSERT, &a);
	if (!ret && !found)
		ret = err_set(ERR_STORE, "cannot update store '%s': no run id returned",
			      st->location);
	store_args_release(&a);
	return ret;
}

/* Run the write id of (run_id, text) and set *changed to its rows. */
static int store_run_write(struct store *st, int64_t *changed, enum sql_id id, int64_t run_id,
			   const char *text)
{
	struct store_args a;
	int ret;

	store_args_init(&a);
	store_arg_int(&a, run_id);
	store_arg_text(&a, text);
	ret = store_sql_run(st, id, &a, NULL, NULL, changed);
	store_args_release(&a);
	return ret;
}

int store_set_run_sha(struct store *st, int64_t run_id, const char *sha256)
{
	int64_t changed = 0;
	int ret = store_run_write(st, &changed, SQL_RUN_SET_SHA, run_id, sha256);

	if (!ret && changed == 0)
		ret = err_set(ERR_NOTFOUND, "cannot update store '%s': no run %lld", st->location,
			      (long long)run_id);
	return ret;
}

/* ---- tags and metadata ------------------------------------------------- */

int store_add_tag(struct store *st, int *added, int64_t run_id, const char *tag)
{
	int64_t changed = 0;
	int ret = store_run_write(st, &changed, SQL_TAG_ADD, run_id, tag);

	if (added)
		*added = !ret && changed > 0;
	return ret;
}

int store_remove_tag(struct store *st, int *removed, int64_t run_id, const char *tag)
{
	int64_t changed = 0;
	int ret = store_run_write(st, &changed, SQL_TAG_REMOVE, run_id, tag);

	*removed = !ret && changed > 0;
	return ret;
}

int store_set_meta(struct store *st, int64_t run_id, const char *key, const char *value)
{
	struct store_args a;
	int ret;

	store_args_init(&a);
	store_arg_int(&a, run_id);
	store_arg_text(&a, key);
	store_arg_text(&a, value);
	ret = store_sql_run(st, SQL_META_SET, &a, NULL, NULL, NULL);
	store_args_release(&a);
	return ret;
}

/* A row (key, value) of the metadata into the store_meta at ctx. */
static int meta_row(void *ctx, const struct rows_row *r)
{
	struct store_meta *m = ctx;
	char **k, **v;

	k = realloc(m->keys, (m->n + 1) * sizeof(*k));
	if (!k)
		return err_nomem();
	m->keys = k;
	v = realloc(m->values, (m->n + 1) * sizeof(*v));
	if (!v)
		return err_nomem();
	m->values = v;
	k[m->n] = NULL;
	v[m->n] = NULL;
	m->n++;
	return rows_text(&k[m->n - 1], r, 0) || rows_text(&v[m->n - 1], r, 1) ? ERR_NOMEM : 0;
}

int store_get_meta(struct store *st, struct store_meta *out, int64_t run_id)
{
	struct store_args a;
	int ret;

	memset(out, 0, sizeof(*out));
	if (ahead_take(st, NULL, out, run_id))
		return 0;
	store_args_init(&a);
	store_arg_int(&a, run_id);
	ret = store_sql_run(st, SQL_RUN_META, &a, meta_row, out, NULL);
	store_args_release(&a);
	if (ret)
		store_meta_release(out);
	return ret;
}

/* ---- runs -------------------------------------------------------------- */

/* The runs being read and their index by id, for their tags' rows. */
struct run_tags {
	struct store_run *runs;
	struct rows_run_pos *byid;
	size_t n;
};

static int run_tag_row(void *ctx, const struct rows_row *r)
{
	struct run_tags *x = ctx;
	struct store_run *run = rows_run_find(x->runs, x->byid, x->n, r->ops->i64(r, 0));
	const char *tag;

	if (!run)
		return 0;
	tag = r->ops->text(r, 1);
	return tag ? rows_add_tag(run, tag) : err_nomem();
}

/* Attach the tags of runs[0..n) with one statement (in run and tag order,
 * so each run's tags arrive sorted). */
static int attach_tags(struct store *st, struct store_run *runs, size_t n)
{
	struct run_tags x = {runs, NULL, n};
	struct store_args a;
	int64_t *ids = NULL;
	size_t i;
	int ret;

	if (!n)
		return 0;
	x.byid = rows_run_index(runs, n);
	ids = malloc(n * sizeof(*ids));
	if (!x.byid || !ids) {
		free(x.byid);
		free(ids);
		return err_nomem();
	}
	for (i = 0; i < n; i++)
		ids[i] = runs[i].id;
	store_args_init(&a);
	store_arg_ids(&a, ids, n);
	ret = store_sql_run(st, SQL_RUN_TAGS, &a, run_tag_row, &x, NULL);
	store_args_release(&a);
	free(x.byid);
	free(ids);
	return ret;
}

/* The run row into the store_run at ctx (found: its has_run). */
struct run_row {
	struct store_run *run;
	int found;
};

static int run_row(void *ctx, const struct rows_row *r)
{
	struct run_row *x = ctx;

	x->found = 1;
	return rows_run(x->run, r);
}

/* store_get_run() with a statement for the run and one for its tags. */
static int get_run_plain(struct store *st, struct store_run *out, int64_t id)
{
	struct run_row x = {out, 0};
	struct store_args a;
	int ret;

	store_args_init(&a);
	store_arg_int(&a, id);
	ret = store_sql_run(st, SQL_RUN_GET, &a, run_row, &x, NULL);
	store_args_release(&a);
	if (!ret && !x.found)
		ret =
		    err_set(ERR_NOTFOUND, "no run %lld in store '%s'", (long long)id, st->location);
	if (!ret)
		ret = attach_tags(st, out, 1);
	return ret;
}

int store_read_run(struct store *st, struct store_run *out, int64_t id)
{
	struct store_meta meta;
	int found, ret;

	memset(out, 0, sizeof(*out));
	if (ahead_take(st, out, NULL, id))
		return 0;
	if (!(st->be->caps & STORE_READ_AHEAD))
		ret = get_run_plain(st, out, id);
	else {
		/* with its metadata, kept for store_get_meta() */
		ret = ahead_fetch_run(st, out, &meta, &found, id);
		if (!ret && !found)
			ret = err_set(ERR_NOTFOUND, "no run %lld in store '%s'", (long long)id,
				      st->location);
		if (!ret)
			ahead_keep(st, id, NULL, &meta);
	}
	if (ret)
		store_run_release(out);
	return ret;
}

int store_get_run(struct store *st, struct store_run *out, int64_t id)
{
	int ret = store_read_run(st, out, id);

	if (!ret && (ret = verify_run(out, st->location)))
		store_run_release(out);
	return ret;
}

/* The runs of store_find_runs(), as they come. */
struct run_list {
	struct store_run *runs;
	size_t n, cap;
};

static int run_list_row(void *ctx, const struct rows_row *r)
{
	struct run_list *x = ctx;
	struct store_run *run = util_push(&x->runs, &x->cap, &x->n, sizeof(*run));

	return run ? rows_run(run, r) : ERR_NOMEM;
}

int store_find_runs(struct store *st, struct store_run **out, size_t *n, const struct filter *f)
{
	struct run_list x = {NULL, 0, 0};
	struct store_args a;
	struct buf sql = BUF_INIT;
	size_t i;
	int own = 0, ret;

	*out = NULL;
	*n = 0;
	store_args_init(&a);
	if (f && f->limit > 0)
		store_arg_int(&a, f->limit);
	else
		store_arg_null(&a);
	ret = store_sql_put(st, &sql, SQL_RUN_FIND_HEAD) ? ERR_NOMEM : 0;
	if (!ret)
		ret = store_where(st, &sql, &a, f);
	if (!ret && store_sql_put(st, &sql, SQL_RUN_FIND_TAIL))
		ret = ERR_NOMEM;
	/* one snapshot for the runs and their tags */
	if (!ret)
		ret = store_snapshot_begin(st, &own);
	if (!ret)
		ret = store_sql_text(st, sql.data, 0, &a, run_list_row, &x);
	if (!ret)
		ret = attach_tags(st, x.runs, x.n);
	store_snapshot_end(st, own);
	for (i = 0; !ret && i < x.n; i++)
		ret = verify_run(&x.runs[i], st->location);
	store_args_release(&a);
	buf_release(&sql);
	if (ret) {
		store_runs_free(x.runs, x.n);
		return ret;
	}
	*out = x.runs;
	*n = x.n;
	return 0;
}

int store_list_runs(struct store *st, struct store_run **out, size_t *n)
{
	return store_find_runs(st, out, n, NULL);
}

/* ---- pins -------------------------------------------------------------- */

/* store_pin_set() and store_pin_add() (keep: leave an existing pin), in
 * one transaction. */
static int pin_set(struct store *st, int64_t *prev, const char *name, int64_t run_id, int keep)
{
	struct store_args a;
	char now[32];
	int64_t found = 0;
	int ret;

	*prev = 0;
	ret = store_begin(st);
	if (ret)
		return ret;
	store_args_init(&a);
	store_arg_text(&a, name);
	ret = store_sql_int(st, prev, NULL, SQL_PIN_GET, &a);
	if (ret || *prev == run_id || (keep && *prev))
		goto out;
	store_args_release(&a);
	store_arg_int(&a, run_id);
	ret = store_sql_int(st, &found, NULL, SQL_RUN_EXISTS, &a);
	if (!ret && !found)
		ret = err_set(ERR_NOTFOUND, "no run with id %lld", (long long)run_id);
	if (ret)
		goto out;
	util_now_iso(now, sizeof(now));
	store_args_release(&a);
	store_arg_text(&a, name);
	store_arg_int(&a, run_id);
	store_arg_text(&a, now);
	ret = store_sql_run(st, SQL_PIN_PUT, &a, NULL, NULL, NULL);
out:
	store_args_release(&a);
	if (ret) {
		store_rollback(st);
		*prev = 0;
		return ret;
	}
	return store_commit(st);
}

int store_pin_set(struct store *st, int64_t *prev, const char *name, int64_t run_id)
{
	return pin_set(st, prev, name, run_id, 0);
}

int store_pin_add(struct store *st, int64_t *prev, const char *name, int64_t run_id)
{
	return pin_set(st, prev, name, run_id, 1);
}

int store_pin_remove(struct store *st, int64_t *prev, const char *name)
{
	struct store_args a;
	int ret;

	store_args_init(&a);
	store_arg_text(&a, name);
	ret = store_sql_int(st, prev, NULL, SQL_PIN_REMOVE, &a);
	store_args_release(&a);
	if (!ret && *prev == 0) /* with the nearest pin */
		ret = rows_no_pin(store_names_ctx(st), store_names, name);
	if (ret)
		*prev = 0;
	return ret;
}

/* The pins of store_list_pins(), as they come. */
struct pin_list {
	struct store_pin *pins;
	size_t n, cap;
};

static int pin_row(void *ctx, const struct rows_row *r)
{
	struct pin_list *x = ctx;
	struct store_pin *p = util_push(&x->pins, &x->cap, &x->n, sizeof(*p));

	return p ? rows_pin(p, r) : ERR_NOMEM;
}

int store_list_pins(struct store *st, struct store_pin **out, size_t *n)
{
	struct pin_list x = {NULL, 0, 0};
	int ret = store_sql_run(st, SQL_PIN_LIST, NULL, pin_row, &x, NULL);

	*out = NULL;
	*n = 0;
	if (ret) {
		store_pins_free(x.pins, x.n);
		return ret;
	}
	*out = x.pins;
	*n = x.n;
	return 0;
}

/* ---- removal ------------------------------------------------------------ */

/* A pin name of the run into the comma-separated list at ctx. */
static int pin_name_row(void *ctx, const struct rows_row *r)
{
	struct buf *names = ctx;
	const char *name = r->ops->text(r, 0);

	if (!name || buf_printf(names, "%s%s", names->len ? ", " : "", name))
		return err_nomem();
	return 0;
}

int store_remove_run(struct store *st, char **unpinned, int64_t run_id, int force)
{
	/* the bulk tables have no foreign keys in every backend: each goes
	 * first, then the run with what cascades */
	static const enum sql_id steps[] = {SQL_RUN_REMOVE_DURATIONS, SQL_RUN_REMOVE_TIMINGS,
					    SQL_RUN_REMOVE_TOTALS, SQL_RUN_REMOVE};
	struct buf names = BUF_INIT;
	struct store_args a;
	int64_t changed = 0;
	size_t i;
	int ret;

	*unpinned = NULL;
	if (!st->writing)
		return err_set(ERR_USAGE, "internal error: removing a run outside a transaction");
	store_args_init(&a);
	store_arg_int(&a, run_id);
	ret = store_sql_run(st, SQL_PIN_OF_RUN, &a, pin_name_row, &names, NULL);
	if (ret)
		goto out;
	if (names.len && !force) {
		ret = err_set(ERR_USAGE, "run %lld is pinned as '%s': unpin it or use --force",
			      (long long)run_id, names.data);
		goto out;
	}
	if (names.len)
		ret = store_sql_run(st, SQL_PIN_DROP_RUN, &a, NULL, NULL, NULL);
	for (i = 0; !ret && i < sizeof(steps) / sizeof(steps[0]); i++)
		ret = store_sql_run(st, steps[i], &a, NULL, NULL, &changed);
	if (!ret && changed == 0)
		ret = err_set(ERR_NOTFOUND, "no run with id %lld", (long long)run_id);
	if (!ret && names.len)
		*unpinned = buf_detach(&names);
out:
	store_args_release(&a);
	buf_release(&names);
	return ret;
}
