/*
 * runarg.c - resolving a run argument, a selector or a profile file (see
 * runarg.h): the one place that decides between the two, for diff, check,
 * show and meta.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis/ancestry.h"
#include "scopedb/err.h"
#include "scopedb/ingest.h"
#include "scopedb/profile.h"
#include "scopedb/runarg.h"
#include "scopedb/select.h"
#include "scopedb/store.h"
#include "scopedb/util.h"

void runarg_db_init(struct runarg_db *db, struct store *st, const char *path)
{
	memset(db, 0, sizeof(*db));
	db->st = st;
	db->path = path;
}

void runarg_db_release(struct runarg_db *db)
{
	if (!db)
		return;
	if (db->began)
		store_read_end(db->st);
	store_close(db->opened);
	memset(db, 0, sizeof(*db));
}

void runarg_release(struct runarg *a)
{
	if (!a)
		return;
	store_close(a->mem);
	ancestry_release(a->anc);
	free(a->anc);
	free(a->reps);
	memset(a, 0, sizeof(*a));
}

int runarg_is_file(const char *arg)
{
	struct stat sb;

	return stat(arg, &sb) == 0 && S_ISREG(sb.st_mode);
}

/* 1 when something (of any type) is at path arg. */
static int runarg_exists(const char *arg)
{
	struct stat sb;

	return stat(arg, &sb) == 0;
}

int runarg_any_run(struct store *st)
{
	struct select_spec sel;
	int64_t id;
	int rc = select_parse(&sel, "latest");

	if (!rc)
		rc = store_resolve(st, &id, &sel);
	select_release(&sel);
	return rc;
}

int runarg_looks_like_path(const char *arg)
{
	size_t n = strlen(arg);

	return strchr(arg, '/') || (n > 3 && !strcmp(arg + n - 3, ".h5")) ||
	       (n > 5 && !strcmp(arg + n - 5, ".hdf5")) || profile_name_is_json(arg);
}

/* The shared store, opened read-only and its snapshot begun on first use. */
static int runarg_db_get(struct runarg_db *db)
{
	int rc = 0;

	if (db->ready)
		return 0;
	if (!db->st) {
		rc = store_open(&db->opened, db->path, STORE_READONLY);
		if (rc)
			return rc;
		db->st = db->opened;
	}
	rc = store_read_begin(db->st, &db->began);
	db->ready = !rc;
	return rc;
}

/* "cannot read 'x': no such file" for an argument that looks like a path. */
static int runarg_cannot_read(const char *arg)
{
	struct stat sb;
	int e = stat(arg, &sb) ? errno : EISDIR;
	const char *why = e == ENOENT			       ? "no such file"
			  : e == EISDIR && S_ISDIR(sb.st_mode) ? "is a directory"
			  : e == EISDIR			       ? "not a regular file"
							       : util_strerror_lc(e);

	return err_set(ERR_IO, "cannot read '%s': %s", arg, why);
}

int runarg_resolve(struct runarg *out, struct runarg_db *db, const char *arg)
{
	struct select_spec sel;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = select_parse(&sel, arg);
	if (!rc && !(sel.bare && runarg_is_file(arg))) {
		rc = runarg_db_get(db);
		out->st = db->st;
		if (!rc && sel.kind == SELECT_BASE) {
			out->anc = calloc(1, sizeof(*out->anc));
			rc = out->anc
				 ? ancestry_runs(out->anc, out->st, sel.name, db->ancestry_want)
				 : err_nomem();
			if (!rc)
				out->run_id = out->anc->runs[0];
		} else if (!rc) {
			rc = store_resolve(out->st, &out->run_id, &sel);
		}
		select_release(&sel);
		return rc;
	}
	select_release(&sel);
	if (runarg_is_file(arg)) {
		struct ingest_opts io;
		struct ingest_result res;

		err_clear();
		memset(&io, 0, sizeof(io));
		rc = store_open_temporary(&out->mem);
		if (!rc)
			rc = ingest_file(&res, out->mem, arg, &io);
		if (rc)
			return rc;
		out->st = out->mem;
		out->run_id = res.run_id;
		/* why ranks have no tree, for a read by path to say */
		rc = store_set_file_note(out->mem, res.warning);
		ingest_result_release(&res);
		if (rc)
			return rc;
		out->is_file = 1;
		return 0;
	}
	/* a path, or a name no selector has that exists (a directory, a
	 * FIFO): why it cannot be read, not the selector grammar */
	if (runarg_looks_like_path(arg) || (rc && runarg_exists(arg)))
		return runarg_cannot_read(arg);
	return rc; /* the selector message */
}

int runarg_add_file(struct runarg *a, const char *path)
{
	struct ingest_opts io;
	struct ingest_result res;
	int64_t *v;
	int rc;

	if (!a->is_file)
		return err_set(ERR_USAGE,
			       "'%s': repetitions of a candidate are files, and the first one is "
			       "a stored run (use --candidate-window for stored runs)",
			       path);
	if (!runarg_is_file(path) && runarg_looks_like_path(path))
		return runarg_cannot_read(path);
	if (!runarg_is_file(path))
		return err_set(ERR_USAGE,
			       "'%s' is not a file: the repetitions of a candidate file are "
			       "files too",
			       path);
	v = realloc(a->reps, (a->nreps + 2) * sizeof(*v));
	if (!v)
		return err_nomem();
	a->reps = v;
	if (!a->nreps)
		a->reps[a->nreps++] = a->run_id;
	memset(&io, 0, sizeof(io));
	rc = ingest_file(&res, a->mem, path, &io);
	if (!rc && res.duplicate)
		rc = err_set(ERR_USAGE,
			     "'%s' has the same content as an earlier candidate file: repetitions "
			     "are separate runs",
			     path);
	if (!rc)
		a->reps[a->nreps++] = res.run_id;
	ingest_result_release(&res);
	return rc;
}

int runarg_get_run(struct store_run *out, const struct runarg *a, const char *arg)
{
	int rc = store_get_run(a->st, out, a->run_id);

	if (!rc && a->is_file) {
		/* a file is named as given, and has no run id */
		free(out->source_path);
		out->source_path = util_strdup(arg);
		out->id = 0;
		if (!out->source_path)
			rc = err_nomem();
	}
	return rc;
}

int runarg_parse_stored(struct select_spec *sel, const char *arg, const char *cmd)
{
	int rc = select_parse_stored(sel, arg);
	struct stat sb;

	if (rc != ERR_USAGE || stat(arg, &sb) != 0)
		return rc;
	if (!S_ISREG(sb.st_mode))
		rc = runarg_cannot_read(arg); /* a directory, a FIFO */
	else
		rc = err_set(ERR_USAGE,
			     "'%s' is a file, not a stored run: %s takes stored runs only "
			     "(ingest the file first)",
			     arg, cmd);
	return rc;
}
