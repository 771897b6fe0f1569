/*
 * runs.c - runs, their tags and metadata, pins, listings and removal: the
 * store.h calls on runs, in the front end over any backend (see front.h).
 *
 * Every run read is checked (verify_run()) before the caller sees it.
 * Inside the read snapshot of a backend that reads ahead (ahead.c), a run
 * comes with its tags and metadata in one statement, and its metadata is
 * then served from there.
 */
#include <stdio.h>
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
	struct store_value v = sql_str(sha256);

	return store_sql_int(st, out, NULL, SQL_RUN_FIND_SHA, &v, 1);
}

int store_insert_run(struct store *st, int64_t *out, const struct store_run *run)
{
	char now[32];
	int found, ret = verify_run_text(run, !st->temporary);

	if (ret)
		return ret;
	if (!run->ingested_at)
		util_now_iso(now, sizeof(now));
	{
		struct store_value v[] = {sql_str(run->sha256),
					  sql_str(run->source_path),
					  sql_str(run->ingested_at ? run->ingested_at : now),
					  sql_str_or_null(run->recorded_at),
					  sql_str_or_null(run->label),
					  sql_str_or_null(run->commit),
					  sql_str_or_null(run->branch),
					  sql_int(run->schema),
					  sql_str(run->layout),
					  sql_int(run->num_ranks)};

		ret = store_sql_int(st, out, &found, SQL_RUN_INSERT, v, 10);
	}
	if (!ret && !found)
		ret = err_set(ERR_STORE, "cannot update store '%s': no run id returned",
			      st->location);
	return ret;
}

/* Run the write id with values (run_id, text); *changed = its rows. */
static int run_write(struct store *st, int64_t *changed, enum sql_id id, int64_t run_id,
		     const char *text)
{
	struct store_value v[] = {sql_int(run_id), sql_str(text)};

	*changed = 0;
	return store_sql_run(st, id, v, 2, NULL, NULL, changed);
}

int store_set_run_sha(struct store *st, int64_t run_id, const char *sha256)
{
	int64_t changed;
	int ret = run_write(st, &changed, SQL_RUN_SET_SHA, run_id, sha256);

	if (!ret && changed == 0)
		ret = err_set(ERR_NOTFOUND, "cannot update store '%s': no run %lld", st->location,
			      (long long)run_id);
	return ret;
}

/* ---- tags and metadata ------------------------------------------------- */

int store_add_tag(struct store *st, int *added, int64_t run_id, const char *tag)
{
	int64_t changed;
	int ret = verify_key("tag", tag, !st->temporary);

	if (!ret)
		ret = run_write(st, &changed, SQL_TAG_ADD, run_id, tag);
	if (added)
		*added = !ret && changed > 0;
	return ret;
}

int store_remove_tag(struct store *st, int *removed, int64_t run_id, const char *tag)
{
	int64_t changed;
	int ret = run_write(st, &changed, SQL_TAG_REMOVE, run_id, tag);

	*removed = !ret && changed > 0;
	return ret;
}

int store_set_meta(struct store *st, int64_t run_id, const char *key, const char *value)
{
	struct store_value v[] = {sql_int(run_id), sql_str(key), sql_str(value)};
	char what[160];
	int ret = verify_key("metadata key", key, !st->temporary);

	snprintf(what, sizeof(what), "metadata '%.100s' value", key ? key : "");
	if (!ret)
		ret = verify_text(what, value);
	return ret ? ret : store_sql_run(st, SQL_META_SET, v, 3, NULL, NULL, NULL);
}

int store_set_metas(struct store *st, int64_t run_id, char *const *keys, char *const *values,
		    size_t n)
{
	struct store_query sql;
	char what[160];
	size_t i;
	int ret = 0;

	if (n < 2)
		return n ? store_set_meta(st, run_id, keys[0], values[0]) : 0;
	for (i = 0; !ret && i < n; i++) {
		ret = verify_key("metadata key", keys[i], !st->temporary);
		snprintf(what, sizeof(what), "metadata '%.100s' value", keys[i] ? keys[i] : "");
		if (!ret)
			ret = verify_text(what, values[i]);
	}
	if (ret)
		return ret;
	store_query_init(&sql);
	store_query_value(&sql, sql_int(run_id));
	store_query_put(st, &sql, SQL_META_SETS_HEAD);
	for (i = 0; i < n; i++) {
		if (i)
			store_query_put(st, &sql, SQL_META_NEXT);
		store_query_put(st, &sql, SQL_META_ROW);
		store_query_param(st, &sql, sql_str(keys[i]));
		store_query_put(st, &sql, SQL_META_ROW_MID);
		store_query_param(st, &sql, sql_str(values[i]));
		store_query_put(st, &sql, SQL_META_ROW_END);
	}
	store_query_put(st, &sql, SQL_META_SETS_TAIL);
	ret = store_query_run(st, &sql, SQL_WRITE, NULL, NULL);
	store_query_release(&sql);
	return ret;
}

int store_meta_add(struct store_meta *m, const char *key, const char *value)
{
	char **k, **v;

	k = realloc(m->keys, (m->n + 1) * sizeof(*k));
	if (!k)
		return err_nomem();
	m->keys = k;
	v = realloc(m->values, (m->n + 1) * sizeof(*v));
	if (!v)
		return err_nomem();
	m->values = v;
	k[m->n] = util_strdup(key);
	v[m->n] = util_strdup(value);
	m->n++;
	return k[m->n - 1] && v[m->n - 1] ? 0 : err_nomem();
}

/* Text column col of r, "" for NULL; NULL when memory ran out. */
static const char *text_or_empty(const struct rows_row *r, int col)
{
	return r->ops->null(r, col) ? "" : r->ops->text(r, col);
}

int store_meta_row(struct store_meta *m, const struct rows_row *r, int col)
{
	const char *key = text_or_empty(r, col), *value = text_or_empty(r, col + 1);

	return key && value ? store_meta_add(m, key, value) : err_nomem();
}

/* A row (key, value) of a run's metadata into the store_meta at ctx. */
static int meta_row(void *ctx, const struct rows_row *r)
{
	return store_meta_row(ctx, r, 0);
}

int store_get_meta(struct store *st, struct store_meta *out, int64_t run_id)
{
	struct store_value v = sql_int(run_id);
	int ret;

	memset(out, 0, sizeof(*out));
	if (ahead_take(st, NULL, out, run_id))
		return 0;
	ret = store_sql_run(st, SQL_RUN_META, &v, 1, meta_row, out, NULL);
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
	struct store_value v;
	int64_t *ids = NULL;
	size_t i;
	int ret;

	if (!n)
		return 0;
	x.byid = rows_run_index(runs, n);
	ids = malloc(n * sizeof(*ids));
	if (!x.byid || !ids) {
		ret = err_nomem();
		goto out;
	}
	for (i = 0; i < n; i++)
		ids[i] = runs[i].id;
	v = sql_ids(ids, n);
	ret = store_sql_run(st, SQL_RUN_TAGS, &v, 1, run_tag_row, &x, NULL);
out:
	free(x.byid);
	free(ids);
	return ret;
}

/* A run row into a struct store_run (store_rows). */
static int run_decode(void *ctx, void *elem, const struct rows_row *r)
{
	(void)ctx;
	return rows_run(elem, r);
}

int store_read_run(struct store *st, struct store_run *out, int64_t id)
{
	struct store_rows x = STORE_ROWS(struct store_run, run_decode, NULL);
	struct store_value v = sql_int(id);
	struct store_meta meta;
	int found = 0, ret;

	memset(out, 0, sizeof(*out));
	if (ahead_take(st, out, NULL, id))
		return 0;
	if (st->be->caps & STORE_READ_AHEAD) {
		/* with its metadata, kept for store_get_meta() */
		ret = ahead_fetch_run(st, out, &meta, &found, id);
		if (!ret && found)
			ahead_keep(st, id, NULL, &meta);
	} else {
		ret = store_sql_run(st, SQL_RUN_GET, &v, 1, store_rows_push, &x, NULL);
		found = x.n > 0;
		if (found)
			*out = *(struct store_run *)x.v;
		free(x.v);
		if (!ret && found)
			ret = attach_tags(st, out, 1);
	}
	if (!ret && !found)
		ret =
		    err_set(ERR_NOTFOUND, "no run %lld in store '%s'", (long long)id, st->location);
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

/* The runs of filter f as stored, not verified (verify_runs: each checked,
 * as store_find_runs() does; store_list_run_ids() wants the ids of damaged
 * runs too, so that a copy names them and goes on). */
static int find_runs(struct store *st, struct store_run **out, size_t *n, const struct filter *f,
		     int verify_runs)
{
	struct store_rows x = STORE_ROWS(struct store_run, run_decode, NULL);
	struct store_query q;
	size_t i;
	int own = 0, ret;

	*out = NULL;
	*n = 0;
	store_query_init(&q);
	store_query_filtered(st, &q, SQL_RUN_FIND_HEAD, f, SQL_RUN_FIND_TAIL);
	/* one snapshot for the runs and their tags */
	ret = store_snapshot_begin(st, &own);
	if (!ret)
		ret = store_query_run(st, &q, 0, store_rows_push, &x);
	if (!ret)
		ret = attach_tags(st, x.v, x.n);
	store_snapshot_end(st, own);
	for (i = 0; !ret && verify_runs && i < x.n; i++)
		ret = verify_run((struct store_run *)x.v + i, st->location);
	store_query_release(&q);
	if (ret) {
		store_runs_free(x.v, x.n);
		return ret;
	}
	*out = x.v;
	*n = x.n;
	return 0;
}

int store_find_runs(struct store *st, struct store_run **out, size_t *n, const struct filter *f)
{
	return find_runs(st, out, n, f, 1);
}

int store_list_runs(struct store *st, struct store_run **out, size_t *n)
{
	return store_find_runs(st, out, n, NULL);
}

int store_list_run_ids(struct store *st, int64_t **out, size_t *n)
{
	struct store_run *runs = NULL;
	size_t nruns = 0, i;
	int ret = find_runs(st, &runs, &nruns, NULL, 0);

	*out = NULL;
	*n = 0;
	if (!ret && nruns && !(*out = malloc(nruns * sizeof(**out))))
		ret = err_nomem();
	for (i = 0; !ret && i < nruns; i++) {
		(*out)[i] = runs[i].id;
		if (runs[i].id <= 0)
			ret = verify_run(&runs[i], st->location);
	}
	if (!ret)
		*n = nruns;
	else {
		free(*out);
		*out = NULL;
	}
	store_runs_free(runs, nruns);
	return ret;
}

/* ---- pins -------------------------------------------------------------- */

/* store_pin_set(), store_pin_add() and store_pin_copy() (keep: leave an
 * existing pin; at: the time it was pinned, NULL for now), in one
 * transaction. */
static int pin_set(struct store *st, int64_t *prev, const char *name, int64_t run_id, int keep,
		   const char *at)
{
	struct store_value v[] = {sql_str(name), sql_int(run_id), sql_null()};
	char now[32];
	int64_t found = 0;
	int ret;

	*prev = 0;
	ret = verify_key("pin name", name, !st->temporary);
	if (!ret)
		ret = store_begin(st);
	if (ret)
		return ret;
	ret = store_sql_int(st, prev, NULL, SQL_PIN_GET, v, 1);
	if (ret || *prev == run_id || (keep && *prev))
		goto out;
	ret = store_sql_int(st, &found, NULL, SQL_RUN_EXISTS, v + 1, 1);
	if (!ret && !found)
		ret = err_set(ERR_NOTFOUND, "no run with id %lld", (long long)run_id);
	if (ret)
		goto out;
	util_now_iso(now, sizeof(now));
	v[2] = sql_str(at ? at : now);
	ret = store_sql_run(st, SQL_PIN_PUT, v, 3, NULL, NULL, NULL);
out:
	if (ret) {
		store_rollback(st);
		*prev = 0;
		return ret;
	}
	return store_commit(st);
}

int store_pin_set(struct store *st, int64_t *prev, const char *name, int64_t run_id)
{
	return pin_set(st, prev, name, run_id, 0, NULL);
}

int store_pin_add(struct store *st, int64_t *prev, const char *name, int64_t run_id)
{
	return pin_set(st, prev, name, run_id, 1, NULL);
}

int store_pin_copy(struct store *st, int64_t *prev, const char *name, int64_t run_id,
		   const char *pinned_at)
{
	return pin_set(st, prev, name, run_id, 1, pinned_at);
}

int store_pin_remove(struct store *st, int64_t *prev, const char *name)
{
	struct store_value v = sql_str(name);
	int ret = store_sql_int(st, prev, NULL, SQL_PIN_REMOVE, &v, 1);

	if (!ret && *prev == 0) /* with the nearest pin */
		ret = rows_no_pin(store_names_ctx(st), store_names, name);
	if (ret)
		*prev = 0;
	return ret;
}

/* A pin row into a struct store_pin (store_rows). */
static int pin_decode(void *ctx, void *elem, const struct rows_row *r)
{
	(void)ctx;
	return rows_pin(elem, r);
}

int store_list_pins(struct store *st, struct store_pin **out, size_t *n)
{
	struct store_rows x = STORE_ROWS(struct store_pin, pin_decode, NULL);
	int ret = store_sql_run(st, SQL_PIN_LIST, NULL, 0, store_rows_push, &x, NULL);

	*out = ret ? NULL : x.v;
	*n = ret ? 0 : x.n;
	if (ret)
		store_pins_free(x.v, x.n);
	return ret;
}

/* ---- removal ------------------------------------------------------------ */

/* The pin names of a run being removed, and the store's name. */
struct pin_names {
	struct buf names; /* comma-separated */
	const char *location;
};

/* A pin name of the run into the list at ctx; a pin without a name (its
 * table edited by hand) is damage. */
static int pin_name_row(void *ctx, const struct rows_row *r)
{
	struct pin_names *p = ctx;
	const char *name = r->ops->text(r, 0);

	if (!name && r->ops->null(r, 0))
		return err_set(ERR_STORE, "store '%s' is damaged: a pin has no name", p->location);
	if (!name || buf_printf(&p->names, "%s%s", p->names.len ? ", " : "", name))
		return err_nomem();
	return 0;
}

/* The error for removing run_id, pinned as p's names: each quoted ("run 1
 * is pinned as 'also' and 'base'", not one name 'also, base'; a pin name
 * has no comma). */
static int pin_names_refuse(const struct pin_names *p, int64_t run_id)
{
	struct buf b = BUF_INIT;
	const char *s = p->names.data, *e;
	int rc = 0;

	while (!rc) {
		e = strstr(s, ", ");
		rc = buf_printf(&b, "%s'%.*s'",
				s == p->names.data ? ""
				: e		   ? ", "
						   : " and ",
				(int)(e ? (size_t)(e - s) : strlen(s)), s);
		if (!e)
			break;
		s = e + 2;
	}
	rc = rc ? err_nomem()
		: err_set(ERR_USAGE, "run %lld is pinned as %s: unpin it or use --force",
			  (long long)run_id, b.data);
	buf_release(&b);
	return rc;
}

int store_remove_run(struct store *st, char **unpinned, int64_t run_id, int force)
{
	/* the bulk tables have no foreign keys in every backend: each goes
	 * first, then the run with what cascades */
	static const enum sql_id steps[] = {SQL_RUN_REMOVE_DURATIONS,
					    SQL_RUN_REMOVE_TIMINGS,
					    SQL_RUN_REMOVE_TOTALS,
					    SQL_RUN_REMOVE_PATH_RANKS,
					    SQL_RUN_REMOVE_PATHS,
					    SQL_RUN_REMOVE_NESTING,
					    SQL_RUN_REMOVE};
	struct store_value v = sql_int(run_id);
	struct pin_names pins = {BUF_INIT, st->location};
	int64_t changed = 0;
	size_t i;
	int ret;

	*unpinned = NULL;
	if (!st->writing)
		return err_set(ERR_USAGE, "internal error: removing a run outside a transaction");
	ret = store_sql_run(st, SQL_PIN_OF_RUN, &v, 1, pin_name_row, &pins, NULL);
	if (!ret && pins.names.len && !force)
		ret = pin_names_refuse(&pins, run_id);
	if (!ret && pins.names.len)
		ret = store_sql_run(st, SQL_PIN_DROP_RUN, &v, 1, NULL, NULL, NULL);
	for (i = 0; !ret && i < sizeof(steps) / sizeof(steps[0]); i++)
		ret = store_sql_run(st, steps[i], &v, 1, NULL, NULL, &changed);
	if (!ret && changed == 0)
		ret = err_set(ERR_NOTFOUND, "no run with id %lld", (long long)run_id);
	if (!ret && pins.names.len)
		*unpinned = buf_detach(&pins.names);
	buf_release(&pins.names);
	return ret;
}
