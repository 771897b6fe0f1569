/*
 * store.c - the store front end (see store.h and backend.h).
 *
 * Picks a backend from the registry (backends.h) by the --db value, checks
 * that its table of functions is complete, and dispatches every public
 * store_* call to it.  What does not depend on the backend lives here: the
 * release functions of the result structures and the final sort of
 * store_region_durations().  The finish pipeline, store_finish_run(), is
 * the rest of the front end (finish.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scopedb/err.h"
#include "scopedb/store.h"
#include "scopedb/util.h"
#include "store/backend.h"
#include "store/verify.h"

#define STORE_BACKEND(name) extern const struct store_backend name##_store_backend;
#include "store/backends.h"
#undef STORE_BACKEND

/* The registered backends, in the order they are asked (backends.h). */
static const struct store_backend *const store_backends[] = {
#define STORE_BACKEND(name) &name##_store_backend,
#include "store/backends.h"
#undef STORE_BACKEND
};

#define STORE_NBACKENDS (sizeof(store_backends) / sizeof(store_backends[0]))

/* The backend that takes any path and makes temporary stores: the last. */
static const struct store_backend *store_backend_default(void)
{
	return store_backends[STORE_NBACKENDS - 1];
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
#define STORE_NEED(f)                                                                              \
	do {                                                                                       \
		if (!missing && !be->f)                                                            \
			missing = #f;                                                              \
	} while (0)
	STORE_NEED(name);
	STORE_NEED(accepts);
	STORE_NEED(schema_version);
	STORE_NEED(open);
	STORE_NEED(open_temporary);
	STORE_NEED(close);
	STORE_NEED(location);
	STORE_NEED(set_busy_timeout);
	STORE_NEED(begin);
	STORE_NEED(commit);
	STORE_NEED(rollback);
	STORE_NEED(read_begin);
	STORE_NEED(read_end);
	STORE_NEED(find_sha);
	STORE_NEED(insert_run);
	STORE_NEED(set_run_sha);
	STORE_NEED(region_id);
	STORE_NEED(add_timing);
	STORE_NEED(put_region_totals);
	STORE_NEED(percentile_regions);
	STORE_NEED(scan_blobs);
	STORE_NEED(put_region_quantiles);
	STORE_NEED(add_tag);
	STORE_NEED(remove_tag);
	STORE_NEED(set_meta);
	STORE_NEED(get_meta);
	STORE_NEED(pin_set);
	STORE_NEED(pin_remove);
	STORE_NEED(list_pins);
	STORE_NEED(resolve);
	STORE_NEED(find_runs);
	STORE_NEED(get_run);
	STORE_NEED(region_stats);
	STORE_NEED(region_durations);
	STORE_NEED(region_history);
	STORE_NEED(scan_timings);
	STORE_NEED(region_series);
	STORE_NEED(remove_run);
	STORE_NEED(compact);
	STORE_NEED(used_bytes);
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
		if (store_backends[i]->accepts && store_backends[i]->accepts(location))
			return store_backends[i];
	return store_backend_default();
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
	ret = location ? be->open(st, location, flags) : be->open_temporary(st);
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
 * stat() never blocks, whatever the path is.
 */
static int store_check_path(const char *path)
{
	struct stat sb;

	if (!*path)
		return err_set(ERR_USAGE, "--db '': empty store path (is a variable unset?)");
	if (!strcmp(path, ":memory:") ||
	    (!strncmp(path, "file:", 5) &&
	     (!strncmp(path + 5, ":memory:", 8) || strstr(path, "mode=memory"))))
		return err_set(ERR_USAGE,
			       "--db '%s': an in-memory store keeps nothing; give a file path",
			       path);
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
	if (!strncmp(location, "postgresql://", 13) || !strncmp(location, "postgres://", 11))
		return 0;
	return store_backend_for(location) == store_backend_default();
}

int store_open(struct store **out, const char *path, int flags)
{
	int rc = store_is_file(path) ? store_check_path(path) : 0;

	if (rc) {
		*out = NULL;
		return rc;
	}
	return store_start(out, store_backend_for(path), path, flags);
}

int store_open_temporary(struct store **out)
{
	return store_start(out, store_backend_default(), NULL, 0);
}

void store_close(struct store *st)
{
	if (!st)
		return;
	if (st->conn)
		st->be->close(st->conn);
	free(st);
}

int store_file_missing(const char *location)
{
	struct stat sb;

	return store_is_file(location) && lstat(location, &sb) != 0 && errno == ENOENT;
}

const char *store_location(const struct store *st)
{
	return st->be->location(st->conn);
}

int store_schema_version(void)
{
	return store_backend_default()->schema_version();
}

void store_set_busy_timeout(struct store *st, int ms)
{
	st->be->set_busy_timeout(st->conn, ms);
}

/* ---- transactions ---------------------------------------------------- */

int store_begin(struct store *st)
{
	return st->be->begin(st->conn);
}

int store_commit(struct store *st)
{
	return st->be->commit(st->conn);
}

void store_rollback(struct store *st)
{
	if (st && st->conn)
		st->be->rollback(st->conn);
}

int store_read_begin(struct store *st, int *started)
{
	return st->be->read_begin(st->conn, started);
}

void store_read_end(struct store *st)
{
	if (st && st->conn)
		st->be->read_end(st->conn);
}

/* ---- ingest ---------------------------------------------------------- */

int store_find_sha(struct store *st, int64_t *out, const char *sha256)
{
	return st->be->find_sha(st->conn, out, sha256);
}

int store_insert_run(struct store *st, int64_t *out, const struct store_run *run)
{
	int ret = verify_run_text(run);

	return ret ? ret : st->be->insert_run(st->conn, out, run);
}

int store_set_run_sha(struct store *st, int64_t run_id, const char *sha256)
{
	return st->be->set_run_sha(st->conn, run_id, sha256);
}

int store_region_id(struct store *st, int64_t *out, const char *name)
{
	int ret = verify_text("region name", name);

	return ret ? ret : st->be->region_id(st->conn, out, name);
}

int store_add_timing(struct store *st, const struct store_timing *t)
{
	int ret = verify_timing_text(t);

	return ret ? ret : st->be->add_timing(st->conn, t);
}

int store_put_region_totals(struct store *st, int64_t run_id)
{
	return st->be->put_region_totals(st->conn, run_id);
}

int store_percentile_regions(struct store *st, struct store_region_calls **out, size_t *n,
			     int64_t run_id)
{
	return st->be->percentile_regions(st->conn, out, n, run_id);
}

int store_scan_blobs(struct store *st, int64_t run_id, store_blob_fn fn, void *ctx)
{
	return st->be->scan_blobs(st->conn, run_id, fn, ctx);
}

int store_put_region_quantiles(struct store *st, int64_t run_id, int64_t region_id,
			       const double q[3])
{
	return st->be->put_region_quantiles(st->conn, run_id, region_id, q);
}

/* ---- tags, metadata, pins ---------------------------------------------- */

int store_add_tag(struct store *st, int *added, int64_t run_id, const char *tag)
{
	int ret = verify_text("tag", tag);

	return ret ? ret : st->be->add_tag(st->conn, added, run_id, tag);
}

int store_remove_tag(struct store *st, int *removed, int64_t run_id, const char *tag)
{
	return st->be->remove_tag(st->conn, removed, run_id, tag);
}

int store_set_meta(struct store *st, int64_t run_id, const char *key, const char *value)
{
	char what[160];
	int ret = verify_text("metadata key", key);

	snprintf(what, sizeof(what), "metadata '%.100s' value", key ? key : "");
	if (!ret)
		ret = verify_text(what, value);
	return ret ? ret : st->be->set_meta(st->conn, run_id, key, value);
}

int store_get_meta(struct store *st, struct store_meta *out, int64_t run_id)
{
	return st->be->get_meta(st->conn, out, run_id);
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

int store_pin_set(struct store *st, int64_t *prev, const char *name, int64_t run_id)
{
	int ret = verify_text("pin name", name);

	return ret ? ret : st->be->pin_set(st->conn, prev, name, run_id, 0);
}

int store_pin_add(struct store *st, int64_t *prev, const char *name, int64_t run_id)
{
	int ret = verify_text("pin name", name);

	return ret ? ret : st->be->pin_set(st->conn, prev, name, run_id, 1);
}

int store_pin_remove(struct store *st, int64_t *prev, const char *name)
{
	return st->be->pin_remove(st->conn, prev, name);
}

int store_list_pins(struct store *st, struct store_pin **out, size_t *n)
{
	return st->be->list_pins(st->conn, out, n);
}

void store_pins_free(struct store_pin *pins, size_t n)
{
	size_t i;

	if (!pins)
		return;
	for (i = 0; i < n; i++) {
		free(pins[i].name);
		free(pins[i].pinned_at);
	}
	free(pins);
}

/* ---- queries --------------------------------------------------------- */

int store_resolve(struct store *st, int64_t *out, const struct select_spec *sel)
{
	return st->be->resolve(st->conn, out, sel);
}

int store_find_runs(struct store *st, struct store_run **out, size_t *n, const struct filter *f)
{
	size_t i;
	int ret = st->be->find_runs(st->conn, out, n, f);

	if (ret)
		return ret;
	for (i = 0; !ret && i < *n; i++)
		ret = verify_run(&(*out)[i], store_location(st));
	if (ret) {
		store_runs_free(*out, *n);
		*out = NULL;
		*n = 0;
	}
	return ret;
}

int store_list_runs(struct store *st, struct store_run **out, size_t *n)
{
	return store_find_runs(st, out, n, NULL);
}

int store_list_run_ids(struct store *st, int64_t **out, size_t *n)
{
	struct store_run *runs = NULL;
	size_t nruns = 0, i;
	int ret = st->be->find_runs(st->conn, &runs, &nruns, NULL);

	*out = NULL;
	*n = 0;
	if (!ret && nruns && !(*out = malloc(nruns * sizeof(**out))))
		ret = err_nomem();
	for (i = 0; !ret && i < nruns; i++) {
		(*out)[i] = runs[i].id;
		if (runs[i].id <= 0)
			ret = verify_run(&runs[i], store_location(st));
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

int store_get_run(struct store *st, struct store_run *out, int64_t id)
{
	int ret = st->be->get_run(st->conn, out, id);

	if (!ret && (ret = verify_run(out, store_location(st))))
		store_run_release(out);
	return ret;
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

void store_runs_free(struct store_run *runs, size_t n)
{
	size_t i;

	if (!runs)
		return;
	for (i = 0; i < n; i++)
		store_run_release(&runs[i]);
	free(runs);
}

int store_region_stats(struct store *st, struct store_region_stats **out, size_t *n, int64_t run_id,
		       const int64_t *ranks, size_t nranks, store_region_filter filter, void *ctx)
{
	size_t i;
	int ret = st->be->region_stats(st->conn, out, n, run_id, ranks, nranks, filter, ctx);

	if (ret)
		return ret;
	for (i = 0; !ret && i < *n; i++)
		ret = verify_stats(&(*out)[i], run_id, store_location(st));
	if (ret) {
		store_region_stats_free(*out, *n);
		*out = NULL;
		*n = 0;
	}
	return ret;
}

/* store_rank_totals() through a backend's rank_totals: each row checked
 * against the run's rank count before the caller's fn sees it. */
struct store_rank_check {
	store_rank_total_fn fn;
	void *ctx;
	int64_t run_id, num_ranks;
	const char *location;
};

static int store_rank_checked(void *ctx, const char *region, int64_t rank, int64_t total_ns)
{
	struct store_rank_check *c = ctx;
	int ret = verify_rank_total(rank, total_ns, region, c->run_id, c->num_ranks, c->location);

	return ret ? ret : c->fn(c->ctx, region, rank, total_ns);
}

int store_rank_totals(struct store *st, int64_t run_id, store_rank_total_fn fn, void *ctx)
{
	struct store_region_stats *g = NULL;
	struct store_rank_check check = {fn, ctx, run_id, 0, store_location(st)};
	struct store_run run;
	size_t n = 0, i;
	int64_t rank;
	int rc;

	rc = store_get_run(st, &run, run_id);
	if (!rc && st->be->rank_totals) {
		check.num_ranks = run.num_ranks;
		store_run_release(&run);
		return st->be->rank_totals(st->conn, run_id, store_rank_checked, &check);
	}
	/* a backend without the query: one pooled query per rank */
	for (rank = 0; !rc && rank < run.num_ranks; rank++) {
		rc = store_region_stats(st, &g, &n, run_id, &rank, 1, NULL, NULL);
		for (i = 0; !rc && i < n; i++)
			if (g[i].nranks)
				rc = fn(ctx, g[i].name, rank, g[i].total);
		store_region_stats_free(g, n);
		g = NULL;
		n = 0;
	}
	store_run_release(&run);
	return rc;
}

void store_region_stats_free(struct store_region_stats *regs, size_t n)
{
	size_t i;

	if (!regs)
		return;
	for (i = 0; i < n; i++)
		free(regs[i].name);
	free(regs);
}

int store_region_durations(struct store *st, struct i64vec *out, int64_t run_id, int64_t region_id,
			   const int64_t *ranks, size_t nranks)
{
	size_t start = out->len;
	int ret;

	/* The backend's per-row runs, sorted together here. */
	ret = st->be->region_durations(st->conn, out, NULL, run_id, region_id, ranks, nranks);
	if (!ret)
		util_sort_i64(out->v + start, out->len - start);
	return ret;
}

int store_region_duration_runs(struct store *st, struct i64vec *out, struct i64vec *ends,
			       int64_t run_id, int64_t region_id, const int64_t *ranks,
			       size_t nranks)
{
	return st->be->region_durations(st->conn, out, ends, run_id, region_id, ranks, nranks);
}

int store_region_history(struct store *st, struct store_history_point **out, size_t *n,
			 const struct store_history_query *q)
{
	size_t i;
	int ret = st->be->region_history(st->conn, out, n, q);

	if (ret)
		return ret;
	for (i = 0; !ret && i < *n; i++)
		ret = verify_stats(&(*out)[i].stats, (*out)[i].run_id, store_location(st));
	if (ret) {
		store_history_free(*out, *n);
		*out = NULL;
		*n = 0;
	}
	return ret;
}

void store_history_free(struct store_history_point *p, size_t n)
{
	size_t i;

	if (!p)
		return;
	for (i = 0; i < n; i++) {
		free(p[i].stats.name);
		free(p[i].time);
		free(p[i].commit);
		free(p[i].label);
		i64vec_release(&p[i].durations);
	}
	free(p);
}

/* store_scan_timings(): each row checked before the caller's fn sees it. */
struct store_timing_check {
	store_timing_fn fn;
	void *ctx;
	int64_t num_ranks;
	const char *location;
};

static int store_timing_checked(void *ctx, const struct store_timing *t, const char *region)
{
	struct store_timing_check *c = ctx;
	int ret = verify_timing(t, region, c->num_ranks, c->location);

	return ret ? ret : c->fn(c->ctx, t, region);
}

int store_scan_timings(struct store *st, int64_t run_id, store_timing_fn fn, void *ctx)
{
	struct store_timing_check check = {fn, ctx, 0, store_location(st)};
	struct store_run run;
	int ret = store_get_run(st, &run, run_id);

	if (ret)
		return ret;
	check.num_ranks = run.num_ranks;
	store_run_release(&run);
	return st->be->scan_timings(st->conn, run_id, store_timing_checked, &check);
}

int store_region_series(struct store *st, struct store_series *out, const struct filter *f,
			store_region_filter filter, void *ctx)
{
	size_t i;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = st->be->region_series(st->conn, out, f, filter, ctx);
	for (i = 0; !rc && i < out->ncells; i++)
		rc = out->cells[i].run < out->nruns && out->cells[i].region < out->nregions
			 ? verify_stats(&out->cells[i].stats, out->runs[out->cells[i].run].id,
					store_location(st))
			 : err_set(ERR_STORE, "internal error: a series cell out of range");
	if (rc)
		store_series_release(out);
	return rc;
}

void store_series_release(struct store_series *s)
{
	size_t i;

	for (i = 0; s->runs && i < s->nruns; i++) {
		free(s->runs[i].time);
		free(s->runs[i].commit);
		free(s->runs[i].label);
	}
	for (i = 0; s->names && i < s->nregions; i++)
		free(s->names[i]);
	free(s->runs);
	free(s->names);
	free(s->cells);
	memset(s, 0, sizeof(*s));
}

/* ---- maintenance ----------------------------------------------------- */

int store_remove_run(struct store *st, char **unpinned, int64_t run_id, int force)
{
	return st->be->remove_run(st->conn, unpinned, run_id, force);
}

int store_vacuum(struct store *st, int64_t *before, int64_t *after)
{
	return st->be->compact(st->conn, before, after);
}

int store_used_bytes(struct store *st, int64_t *out)
{
	return st->be->used_bytes(st->conn, out);
}
