/*
 * ingest_opts.h - the options of an ingest, for ingest.c (not a public
 * header; ingest_opts_check() and the limits are scopedb/ingest.h's):
 * checked by the text rule, and stored with a run.
 *
 * Ownership: nothing here keeps what it is given; a store_run read by the
 * caller stays the caller's.
 */
#ifndef SCOPEDB_INGEST_OPTS_H
#define SCOPEDB_INGEST_OPTS_H

#include <stddef.h>

#include "scopedb/h5prof.h"
#include "scopedb/ingest.h"
#include "scopedb/store.h"

/* The path and opts of a file to ingest, by the text rule: 0 or ERR_USAGE
 * naming the path or the option. */
int ingest_text_check(const char *path, const struct ingest_opts *o);

/* Tags of opts added to run_id; *out counts the new ones. */
int ingest_add_tags(int *out, struct store *st, int64_t run_id, const struct ingest_opts *opts);

/* Store /metadata of info and then the --meta overrides of opts with the
 * new run run_id. */
int ingest_store_meta(struct store *st, int64_t run_id, const struct h5prof_info *info,
		      const struct ingest_opts *opts);

/* INGEST_KEPT_* of the options that differ from the stored run old. */
unsigned ingest_kept(const struct store_run *old, const struct ingest_opts *opts);

/* The value of the last --meta KEY=VALUE of opts for key (it overrides
 * the file's), or NULL: a pointer into opts->meta. */
const char *ingest_opts_meta(const struct ingest_opts *opts, const char *key);

/* The first --meta of opts whose key the stored metadata m lacks or holds
 * with another value, as its index in opts->meta (*stored: m's value of
 * the key, NULL when it lacks it); -1 when none. */
ptrdiff_t ingest_meta_kept(const struct store_meta *m, const struct ingest_opts *opts,
			   const char **stored);

#endif
