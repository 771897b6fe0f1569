/*
 * store.c - the store front end: the backend registry, opening and
 * closing, transactions, running statements, run filters, and releasing
 * result structures (see store.h, backend.h and front.h).
 *
 * store_open() picks a backend from the registry (backends.h) by the --db
 * value, checks that its table of primitives is complete and opens it.
 * Every store_* call is then the front end's own, on those primitives:
 * runs, tags, metadata and pins in runs.c, regions and their rows in
 * regions.c, a region across runs in history.c, the selectors in
 * resolve.c, the read-ahead of a read snapshot in ahead.c, the finish
 * pipeline in finish.c.  Their statements are those of statements.h, in
 * the backend's spelling (backend->sql), run through store_sql_*() here.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scopedb/err.h"
#include "scopedb/store.h"
#include "scopedb/util.h"
#include "store/backend.h"
#include "store/front.h"

#define STORE_BACKEND(name) extern const struct store_backend name##_store_backend;
#define STORE_BACKEND_ABSENT(name, label, why) int name##_accepts(const char *location);
#include "store/backends.h"
#undef STORE_BACKEND
#undef STORE_BACKEND_ABSENT

/* A line of the registry: a backend, or one left out of this build (be
 * NULL) with what still recognizes its --db values. */
struct store_registered {
	const struct store_backend *be;
	int (*accepts)(const char *location);
	const char *label, *why;
};

/* The registered backends, in the order they are asked (backends.h). */
static const struct store_registered store_backends[] = {
#define STORE_BACKEND(name) {&name##_store_backend, NULL, NULL, NULL},
#define STORE_BACKEND_ABSENT(name, label, why) {NULL, name##_accepts, label, why},
#include "store/backends.h"
#undef STORE_BACKEND
#undef STORE_BACKEND_ABSENT
};

#define STORE_NBACKENDS (sizeof(store_backends) / sizeof(store_backends[0]))

/* The flags of each statement (statements.h). */
static const unsigned store_sql_flags[SQL_COUNT] = {
#define SQL(name, flags, text) flags,
#include "store/statements.h"
#undef SQL
};

/* The line of the registry for location: the first that claims it, else
 * the last (SQLite, which takes any path). */
static const struct store_registered *store_registered_for(const char *location)
{
	const struct store_registered *r;
	size_t i;

	for (i = 0; i + 1 < STORE_NBACKENDS; i++) {
		r = &store_backends[i];
		if (r->be ? r->be->accepts && r->be->accepts(location) : r->accepts(location))
			return r;
	}
	return &store_backends[STORE_NBACKENDS - 1];
}

int store_backend_check(const struct store_backend *be)
{
	const char *name = be && be->name ? be->name : "?";
	const char *missing = NULL;

	if (!be)
		return err_set(ERR_STORE, "no store backend");
	if (be->version != STORE_BACKEND_VERSION)
		return err_set(ERR_STORE,
			       "store backend '%s' has interface version %u; this scopedb "
			       "understands %u",
			       name, be->version, STORE_BACKEND_VERSION);
#define STORE_NEED(p, f)                                                                           \
	do {                                                                                       \
		if (!missing && !be->f)                                                            \
			missing = #f;                                                              \
	} while (0);
	STORE_NEED(_, name)
	STORE_NEED(_, sql)
	STORE_PRIMITIVES(STORE_NEED, _)
#undef STORE_NEED
	if (missing)
		return err_set(ERR_STORE, "store backend '%s' is incomplete: it has no %s", name,
			       missing);
	return 0;
}

const struct store_backend *store_backend_for(const char *location)
{
	size_t i;

	for (i = 0; i + 1 < STORE_NBACKENDS; i++)
		if (store_backends[i].be && store_backends[i].be->accepts &&
		    store_backends[i].be->accepts(location))
			return store_backends[i].be;
	return store_backends[STORE_NBACKENDS - 1].be;
}

void store_set_conn(struct store *st, struct store_conn *c, const char *location)
{
	st->conn = c;
	st->location = location;
}

int store_migrate(struct store_conn *c, const struct store_migration *m)
{
	int64_t version = 0;
	int fresh, ret;

	for (;;) {
		ret = m->run(c, m->lock);
		if (!ret)
			ret = m->identify(c, &version);
		if (ret)
			break;
		if (version >= m->count)
			return m->run(c, "COMMIT");
		fresh = version == 0;
		do
			ret = m->apply(c, version++);
		while (!ret && fresh && version < m->count);
		if (!ret)
			ret = m->run(c, "COMMIT");
		if (ret)
			break;
	}
	m->abort(c);
	return ret;
}

/* Open location (NULL: a temporary store) with backend be, checked first. */
static int store_start(struct store **out, const struct store_backend *be, const char *location,
		       int flags)
{
	struct store *st = NULL;
	int ret;

	*out = NULL;
	ret = store_backend_check(be);
	if (ret)
		return ret;
	st = calloc(1, sizeof(*st));
	if (!st)
		return err_nomem();
	st->be = be;
	st->tots_run = -1;
	strmap_init(&st->names);
	i64vec_init(&st->ids);
	buf_init(&st->blobs.arena);
	ret = be->open(st, location, flags);
	if (ret) {
		store_close(st);
		return ret;
	}
	*out = st;
	return 0;
}

int store_open_with(struct store **out, const struct store_backend *be, const char *location,
		    int flags)
{
	return store_start(out, be, location, flags);
}

/*
 * Refuse a path no store can live at, before a backend opens it (issue 13):
 * "" (an unset variable: SQLite would make a private database that
 * vanishes), in-memory databases (which keep nothing; store_open_temporary()
 * is the way to a scratch store), a directory, and anything that is not a
 * regular file: opening a FIFO would block until someone writes to it.
 * stat() never blocks, whatever the path is.  The first two are
 * store_check_location()'s, which push and pull also call for --to and
 * --from, naming them.
 */
int store_check_location(const char *location, const char *option)
{
	if (!*location)
		return err_set(ERR_USAGE, "%s '': empty store path (is a variable unset?)", option);
	if (!store_is_file(location))
		return 0;
	if (!strcmp(location, ":memory:") ||
	    (!strncmp(location, "file:", 5) &&
	     (!strncmp(location + 5, ":memory:", 8) || strstr(location, "mode=memory"))))
		return err_set(ERR_USAGE,
			       "%s '%s': an in-memory store keeps nothing; give a file path",
			       option, location);
	return 0;
}

/* store_check_location() as --db's, then the file at path. */
static int store_check_path(const char *path)
{
	struct stat sb;
	int rc = store_check_location(path, "--db");

	if (rc)
		return rc;
	if (stat(path, &sb) != 0)
		return 0; /* missing: the backend creates it or says so */
	if (S_ISDIR(sb.st_mode))
		return err_set(ERR_IO, "cannot open store '%s': is a directory", path);
	if (!S_ISREG(sb.st_mode))
		return err_set(ERR_IO, "cannot open store '%s': not a regular file", path);
	return 0;
}

int store_is_file(const char *location)
{
	return store_registered_for(location) == &store_backends[STORE_NBACKENDS - 1];
}

int store_open(struct store **out, const char *path, int flags)
{
	const struct store_registered *r = store_registered_for(path);
	int rc = 0;

	*out = NULL;
	if (!r->be)
		return err_set(ERR_USAGE,
			       "cannot open store '%s': this scopedb was built without the %s "
			       "backend (%s)",
			       path, r->label, r->why);
	if (r == &store_backends[STORE_NBACKENDS - 1])
		rc = store_check_path(path);
	return rc ? rc : store_start(out, r->be, path, flags);
}

int store_open_temporary(struct store **out)
{
	size_t i;

	for (i = 0; i < STORE_NBACKENDS; i++)
		if (store_backends[i].be && (store_backends[i].be->caps & STORE_CAN_TEMPORARY)) {
			int rc = store_start(out, store_backends[i].be, NULL, 0);

			if (!rc)
				(*out)->temporary = 1;
			return rc;
		}
	*out = NULL;
	return err_set(ERR_USAGE, "no store backend has temporary stores");
}

/* Forget the region ids of the transaction (they may be rolled back), and
 * the paths and region totals it held for the run's finish. */
static void store_forget_regions(struct store *st)
{
	strmap_release(&st->names);
	strmap_init(&st->names);
	st->ids.len = 0;
	st->next_region = 0;
	st->all_regions = 0;
	st->npaths = 0;
	store_totals_forget(st);
}

void store_close(struct store *st)
{
	if (!st)
		return;
	if (st->conn)
		st->be->close(st->conn);
	ahead_drop(st);
	buf_release(&st->blobs.arena);
	strmap_release(&st->names);
	i64vec_release(&st->ids);
	free(st->paths);
	free(st->tots);
	free(st->totslots);
	free(st->file_note);
	free(st);
}

int store_set_file_note(struct store *st, const char *warning)
{
	const char *why = warning;

	if (!st->temporary || !warning || !*warning)
		return 0;
	/* "'x.json': rank 0: ...": the file is named by the message */
	if (*warning == '\'' && strstr(warning + 1, "': "))
		why = strstr(warning + 1, "': ") + 3;
	free(st->file_note);
	st->file_note = util_strdup(why);
	return st->file_note ? 0 : err_nomem();
}

int store_file_missing(const char *location)
{
	struct stat sb;

	return store_is_file(location) && lstat(location, &sb) != 0 && errno == ENOENT;
}

const char *store_location(const struct store *st)
{
	return st->location;
}

int store_schema_version(void)
{
	return store_backends[STORE_NBACKENDS - 1].be->schema_version();
}

void store_set_busy_timeout(struct store *st, int ms)
{
	st->be->set_busy_timeout(st->conn, ms);
}

/* ---- transactions ---------------------------------------------------- */

int store_begin(struct store *st)
{
	int ret = st->be->begin(st->conn);

	if (ret)
		return ret;
	store_forget_regions(st);
	ahead_drop(st);
	st->reading = 0;
	st->writing = 1;
	return 0;
}

int store_commit(struct store *st)
{
	int ret;

	if (st->npaths) {
		/* they are written only by the run's finish: never lose them */
		ret = err_set(ERR_USAGE,
			      "internal error: the paths of run %lld were added but the run was "
			      "not finished",
			      (long long)st->paths[0].p.run_id);
		store_rollback(st);
		return ret;
	}
	ret = st->be->commit(st->conn);

	st->writing = 0;
	store_forget_regions(st);
	return ret;
}

void store_rollback(struct store *st)
{
	if (!st || !st->conn)
		return;
	st->be->rollback(st->conn);
	st->writing = 0;
	st->reading = 0;
	store_forget_regions(st);
	ahead_drop(st);
}

int store_read_begin(struct store *st, int *started)
{
	int ret = st->be->read_begin(st->conn, started);

	ahead_drop(st);
	st->reading = !ret && *started;
	return ret;
}

void store_read_end(struct store *st)
{
	if (!st || !st->conn)
		return;
	ahead_drop(st);
	st->reading = 0;
	st->be->read_end(st->conn);
}

int store_snapshot_begin(struct store *st, int *own)
{
	return st->be->read_begin(st->conn, own);
}

void store_snapshot_end(struct store *st, int own)
{
	if (own)
		st->be->read_end(st->conn);
}

/* ---- statements -------------------------------------------------------- */

int store_sql_run(struct store *st, enum sql_id id, const struct store_value *v, size_t n,
		  store_row_fn fn, void *ctx, int64_t *changed)
{
	struct store_stmt s = {(int)id, st->be->sql->text[id], store_sql_flags[id], v, n};

	return st->be->exec(st->conn, &s, fn, ctx, changed);
}

/* store_sql_int(): the first row's column 0. */
struct store_int_row {
	int64_t v;
	int found;
};

static int store_int_row(void *ctx, const struct rows_row *r)
{
	struct store_int_row *x = ctx;

	if (!x->found && !r->ops->null(r, 0)) {
		x->v = r->ops->i64(r, 0);
		x->found = 1;
	}
	return 0;
}

int store_sql_int(struct store *st, int64_t *out, int *found, enum sql_id id,
		  const struct store_value *v, size_t n)
{
	struct store_int_row x = {0, 0};
	int ret = store_sql_run(st, id, v, n, store_int_row, &x, NULL);

	*out = ret ? 0 : x.v;
	if (found)
		*found = !ret && x.found;
	return ret;
}

int store_row_int(void *ctx, const struct rows_row *r)
{
	*(int64_t *)ctx = r->ops->null(r, 0) ? 0 : r->ops->i64(r, 0);
	return 0;
}

int store_rows_push(void *rows, const struct rows_row *r)
{
	struct store_rows *x = rows;
	void *elem = util_push(&x->v, &x->cap, &x->n, x->size);
	int ret;

	if (!elem)
		return ERR_NOMEM;
	ret = x->decode(x->ctx, elem, r);
	if (ret == STORE_ROW_SKIP) {
		x->n--;
		return 0;
	}
	return ret;
}

/* ---- SQL put together at run time --------------------------------------- */

void store_query_init(struct store_query *q)
{
	memset(q, 0, sizeof(*q));
	buf_init(&q->sql);
}

void store_query_release(struct store_query *q)
{
	buf_release(&q->sql);
	free(q->v);
	free(q->folded[0]);
	free(q->folded[1]);
	store_query_init(q);
}

void store_query_put(struct store *st, struct store_query *q, enum sql_id piece)
{
	if (buf_puts(&q->sql, st->be->sql->text[piece]))
		q->nomem = 1;
}

void store_query_value(struct store_query *q, struct store_value v)
{
	struct store_value *slot = util_push(&q->v, &q->cap, &q->n, sizeof(*q->v));

	if (slot)
		*slot = v;
	else
		q->nomem = 1;
}

void store_query_param(struct store *st, struct store_query *q, struct store_value v)
{
	store_query_value(q, v);
	if (buf_printf(&q->sql, "%c%zu", st->be->sql->param, q->n))
		q->nomem = 1;
}

/* s with its ASCII letters in upper case (upper) or lower case, malloc'ed. */
static char *fold_ascii(const char *s, int upper)
{
	char *out = strdup(s), *p;

	for (p = out; p && *p; p++) {
		if (upper && *p >= 'a' && *p <= 'z')
			*p = (char)(*p - 'a' + 'A');
		else if (!upper && *p >= 'A' && *p <= 'Z')
			*p = (char)(*p - 'A' + 'a');
	}
	return out;
}

int store_fold_prefix(char *folded[2], const char *prefix)
{
	folded[0] = fold_ascii(prefix, 0);
	folded[1] = fold_ascii(prefix, 1);
	if (folded[0] && folded[1])
		return 0;
	free(folded[0]);
	free(folded[1]);
	folded[0] = folded[1] = NULL;
	return err_nomem();
}

void store_where(struct store *st, struct store_query *q, const struct filter *f)
{
	size_t i;

	if (!f)
		return;
	for (i = 0; i < f->ntags; i++) {
		store_query_put(st, q, SQL_W_TAG);
		store_query_param(st, q, sql_str(f->tags[i]));
		store_query_put(st, q, SQL_W_END);
	}
	if (f->branch) {
		store_query_put(st, q, SQL_W_BRANCH);
		store_query_param(st, q, sql_str(f->branch));
	}
	if (f->commit) {
		/* (a second filter on one query is a caller's bug: it fails) */
		if (q->folded[0] || store_fold_prefix(q->folded, f->commit))
			q->nomem = 1;
		store_query_put(st, q, SQL_W_COMMIT);
		store_query_param(st, q, sql_prefix(q->folded[0]));
		store_query_put(st, q, SQL_W_COMMIT_OR);
		store_query_param(st, q, sql_prefix(q->folded[1]));
		store_query_put(st, q, SQL_W_COMMIT_OR);
		store_query_param(st, q, sql_prefix(f->commit));
		store_query_put(st, q, SQL_W_END);
	}
	if (f->label) {
		store_query_put(st, q, SQL_W_LABEL);
		store_query_param(st, q, sql_str(f->label));
	}
	if (f->since[0]) {
		store_query_put(st, q, SQL_W_SINCE);
		store_query_param(st, q, sql_str(f->since));
	}
	if (f->until[0]) {
		store_query_put(st, q, SQL_W_UNTIL);
		store_query_param(st, q, sql_str(f->until));
	}
	for (i = 0; i < f->nmeta; i++) {
		int any = f->meta[i].or_absent;

		store_query_put(st, q, any ? SQL_W_META_NO_OTHER : SQL_W_META);
		store_query_param(st, q, sql_str(f->meta[i].key));
		store_query_put(st, q, any ? SQL_W_META_OTHER_VALUE : SQL_W_META_VALUE);
		store_query_param(st, q, sql_str(f->meta[i].value));
		store_query_put(st, q, SQL_W_END);
	}
}

void store_query_filtered(struct store *st, struct store_query *q, enum sql_id head,
			  const struct filter *f, enum sql_id tail)
{
	store_query_value(q, f && f->limit > 0 ? sql_int(f->limit) : sql_null());
	store_query_put(st, q, head);
	store_where(st, q, f);
	store_query_put(st, q, tail);
}

int store_query_run(struct store *st, const struct store_query *q, unsigned flags, store_row_fn fn,
		    void *ctx)
{
	struct store_stmt s = {-1, q->sql.data, flags, q->v, q->n};

	if (q->nomem || !q->sql.data)
		return err_nomem();
	return st->be->exec(st->conn, &s, fn, ctx, NULL);
}

/* ---- upkeep ---------------------------------------------------------- */

int store_vacuum(struct store *st, int64_t *before, int64_t *after)
{
	*before = *after = 0;
	if (st->writing || st->reading)
		return err_set(ERR_USAGE, "internal error: vacuum inside a transaction");
	return st->be->compact(st->conn, before, after);
}

int store_used_bytes(struct store *st, int64_t *out)
{
	return st->be->used_bytes(st->conn, out);
}

/* ---- releasing results ------------------------------------------------- */

/* release() each of the n elements of size bytes at v, then free v. */
static void store_free_each(void *v, size_t n, size_t size, void (*release)(void *elem))
{
	size_t i;

	for (i = 0; v && i < n; i++)
		release((char *)v + i * size);
	free(v);
}

void store_run_release(struct store_run *run)
{
	size_t i;

	if (!run)
		return;
	free(run->sha256);
	free(run->source_path);
	free(run->ingested_at);
	free(run->recorded_at);
	free(run->label);
	free(run->commit);
	free(run->branch);
	free(run->layout);
	for (i = 0; i < run->ntags; i++)
		free(run->tags[i]);
	free(run->tags);
	memset(run, 0, sizeof(*run));
}

static void store_run_release_elem(void *run)
{
	store_run_release(run);
}

void store_runs_free(struct store_run *runs, size_t n)
{
	store_free_each(runs, n, sizeof(*runs), store_run_release_elem);
}

void store_meta_release(struct store_meta *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; i < m->n; i++) {
		free(m->keys[i]);
		free(m->values[i]);
	}
	free(m->keys);
	free(m->values);
	memset(m, 0, sizeof(*m));
}

static void store_pin_release(void *elem)
{
	struct store_pin *pin = elem;

	free(pin->name);
	free(pin->pinned_at);
}

void store_pins_free(struct store_pin *pins, size_t n)
{
	store_free_each(pins, n, sizeof(*pins), store_pin_release);
}

static void store_stats_release(void *elem)
{
	free(((struct store_region_stats *)elem)->name);
	free(((struct store_region_stats *)elem)->path); /* one block */
}

void store_region_stats_free(struct store_region_stats *regs, size_t n)
{
	store_free_each(regs, n, sizeof(*regs), store_stats_release);
}

static void store_point_release(void *elem)
{
	struct store_history_point *p = elem;

	free(p->stats.name);
	free(p->stats.path); /* by path (pathhist.c): one block */
	free(p->time);
	free(p->commit);
	free(p->label);
	i64vec_release(&p->durations);
}

void store_history_free(struct store_history_point *p, size_t n)
{
	store_free_each(p, n, sizeof(*p), store_point_release);
}

static void store_series_run_release(void *elem)
{
	struct store_series_run *run = elem;

	free(run->time);
	free(run->commit);
	free(run->label);
	free(run->branch);
}

static void store_name_release(void *elem)
{
	free(*(char **)elem);
}

void store_series_release(struct store_series *s)
{
	store_free_each(s->runs, s->nruns, sizeof(*s->runs), store_series_run_release);
	store_free_each(s->names, s->nregions, sizeof(*s->names), store_name_release);
	free(s->cells);
	memset(s, 0, sizeof(*s));
}
