/*
 * ingest.h - importing one scope-profiler file (HDF5 or JSON) into the
 * store.
 *
 * ingest_file() reads the file in a child process under the limits of
 * struct ingest_limits (validating it with the reader its content calls
 * for, profile.h; hashing its content
 * and preparing every row), then inside one short store transaction inserts
 * the run, its tags and metadata and one timings row (summary +
 * sorted-durations blob) per (rank, region).  A crash, timeout or memory
 * failure of the reader is an error naming the file.  On any error nothing
 * of the file is stored.  A file whose content is already stored is not stored again: the
 * existing run gets any new tags and the result says duplicate, and which
 * of the given commit, branch and label differ from the ones it keeps.
 *
 * Ownership: the options are only read; the result owns the stored values
 * of a duplicate's kept fields (kept_*; NULL otherwise): release it with
 * ingest_result_release() (also after an error; it is zeroed then).
 */
#ifndef SCOPEDB_INGEST_H
#define SCOPEDB_INGEST_H

#include <stddef.h>
#include <stdint.h>

#include "scopedb/store.h"

/* Called after each row with the events read so far and the file's total. */
typedef void (*ingest_progress_fn)(void *ctx, uint64_t done, uint64_t total);

/* Limits of the process that reads one file (issue 13). */
struct ingest_limits {
	unsigned timeout_s;	 /* wall-clock seconds per file; 0 = none */
	uint64_t max_memory_mib; /* the reader's address space; 0 = none */
};

#define INGEST_DEFAULT_TIMEOUT_S 600
#define INGEST_DEFAULT_MEMORY_MIB 4096

/* The limits used when ingest_opts.limits is NULL (also by runarg.h's
 * files): the defaults above until set.  Process-wide; *lim is copied. */
void ingest_set_default_limits(const struct ingest_limits *lim);
const struct ingest_limits *ingest_default_limits(void);

struct ingest_opts {
	const char *const *tags; /* --tag values */
	size_t ntags;
	const char *label;	 /* NULL: the file's metadata label */
	const char *commit;	 /* NULL: unset; hex digits are stored lower case */
	const char *branch;	 /* NULL: unset */
	const char *const *meta; /* "KEY=VALUE" strings (validated by ingest_meta_check) */
	size_t nmeta;
	ingest_progress_fn progress; /* may be NULL */
	void *progress_ctx;
	const struct ingest_limits *limits; /* NULL: ingest_default_limits() */
};

/* What a duplicate kept of its stored identity (ingest_result.kept). */
#define INGEST_KEPT_COMMIT 1u
#define INGEST_KEPT_BRANCH 2u
#define INGEST_KEPT_LABEL 4u
#define INGEST_KEPT_META 8u /* a --meta KEY=VALUE (kept_meta_key) */

struct ingest_result {
	int64_t run_id;
	int duplicate;	/* content was already stored as run_id */
	int tags_added; /* new tags added to a duplicate */
	unsigned kept;	/* duplicate: INGEST_KEPT_* of the options that differ
			 * from the stored run, which keeps its own */
	/* duplicate: the stored run's value of each kept field (NULL: the
	 * field is not kept, or the run has none) */
	char *kept_commit;
	char *kept_branch;
	char *kept_label;
	/* duplicate, INGEST_KEPT_META: the first --meta key the run lacks or
	 * holds with another value (kept_meta: that value, NULL when it has
	 * none; kept_meta_given: the value asked for) */
	char *kept_meta_key;
	char *kept_meta;
	char *kept_meta_given;
	int64_t num_ranks;
	int64_t num_regions;
	uint64_t num_calls;
	/* a stored file's one warning about its ranks without a call tree or
	 * without paths (docs/format.md section 10.6; names the file, the
	 * first such rank and why), "" when there is none */
	char warning[1024];
	/* a new run's warning about a metadata timestamp that is not a time
	 * (the run then counts as recorded when it was ingested), "" when none */
	char time_warning[512];
};

int ingest_file(struct ingest_result *out, struct store *st, const char *path,
		const struct ingest_opts *opts);

/*
 * ingest_file() in two steps, for a caller that should create its store
 * only for a file that reads (ingest into a new store): ingest_read() runs
 * the reader child on path and keeps what it sent in *out (NULL on error:
 * the error ingest_file() reports for the file); st may be NULL, else a
 * content already stored stops the read early.  ingest_write() then stores
 * it in st as ingest_file() does (once per pending file; the result as
 * ingest_file()'s).  opts and path are borrowed until the pending file is
 * freed with ingest_pending_free() (NULL accepted).
 */
struct ingest_pending;
int ingest_read(struct ingest_pending **out, struct store *st, const char *path,
		const struct ingest_opts *opts);
int ingest_write(struct ingest_result *out, struct store *st, struct ingest_pending *p);
void ingest_pending_free(struct ingest_pending *p);
/* 0 when a store can index the names of read file p with opts o (its
 * label and metadata keys, at most STORE_NAME_MAX bytes), else ERR_FORMAT
 * "cannot read 'F': label '...' is too long ...": checked before a new
 * store is made for it, which would be left empty. */
int ingest_pending_names(const struct ingest_pending *p, const struct ingest_opts *o);

/*
 * The files of one command read ahead (ingest_queue.c): the reader
 * processes of the next files run while the caller stores the ones before,
 * within bounds of files and bytes, all from the caller's thread.  *st is
 * the caller's store, NULL until it is open: a file whose read begins once
 * it is open is looked up there by its hash, as ingest_read() does, and
 * its reader stopped when the content is stored already; a file the
 * command itself stores later is found by ingest_write().
 * ingest_queue_next() waits for files[i], to be taken in order (i = 0, 1,
 * ...): *out is the file's pending read, the caller's to ingest_write()
 * and ingest_pending_free() before it takes the next file; or NULL and the file's error, as
 * ingest_read() gives it.  progress (may be NULL) hears of files[i] only.
 * ingest_queue_free() (NULL accepted) kills the readers still running and
 * frees what was read and not taken.  files and opts are borrowed until
 * then.
 */
struct ingest_queue;
int ingest_queue_start(struct ingest_queue **out, char *const *files, int n,
		       const struct ingest_opts *opts, struct store *const *st);
int ingest_queue_next(struct ingest_queue *q, int i, struct ingest_pending **out,
		      ingest_progress_fn progress, void *progress_ctx);
void ingest_queue_free(struct ingest_queue *q);

/* Free the kept_* strings of r (NULL accepted) and zero it. */
void ingest_result_release(struct ingest_result *r);

/* Check a --meta argument: ERR_USAGE unless it is KEY=VALUE with a
 * non-empty KEY, in UTF-8 (a store holds UTF-8 text only: docs/text.md). */
int ingest_meta_check(const char *kv);

/* Check what opts give every run (label, commit, branch, tags, --meta)
 * against the store's text rule: ERR_USAGE naming the first that is not
 * UTF-8 ("invalid --tag 'x': not valid UTF-8 ...").  ingest_read() checks
 * it too (and the file's path); a command checks it once, before any
 * file. */
int ingest_opts_check(const struct ingest_opts *opts);

#endif
