/*
 * runarg.h - one argument naming a run, as every command that reads a run
 * takes it (diff, check, show, meta): a selector (select.h) resolved in the
 * shared store, or the path of a profile file, ingested into a private
 * in-memory store so that files and stored runs share every line of the
 * code that reads them.
 *
 * The order, the same everywhere:
 *   1. a valid selector is a selector ("./latest" names the file latest),
 *      except a bare commit hash ("1a2b3c4") that names an existing file;
 *   2. an existing regular file is a file;
 *   3. an argument that looks like a path (a '/', ".h5", ".hdf5", ".json",
 *      ".json.gz") is
 *      "cannot read 'x': no such file";
 *   4. anything else is the selector's error, listing the grammar.
 *
 * The shared store (struct runarg_db) is opened read-only on first use and
 * read in one snapshot by every argument resolved through it, so that two
 * sides of a comparison see the same data while other processes write.
 *
 * Ownership: struct runarg_db owns the store it opened (not one it was
 * given); struct runarg owns its in-memory store.  Release both with their
 * _release() functions (zeroed structures are accepted).
 */
#ifndef SCOPEDB_RUNARG_H
#define SCOPEDB_RUNARG_H

#include <stdint.h>

struct ancestry;
struct select_spec;
struct store;
struct store_run;

struct runarg_db {
	const char *path;     /* store to open when st is NULL (borrowed) */
	struct store *st;     /* the shared store: given, or opened */
	struct store *opened; /* owned when we opened it */
	int began;	      /* we started the read snapshot */
	int ready;	      /* st is open and read in a snapshot */
	size_t ancestry_want; /* base:REF: how many runs of its ancestry to
			       * find (0: 1, the baseline alone) */
};

struct runarg {
	struct store *st;  /* where the run lives: db->st, or mem */
	struct store *mem; /* a file's private in-memory store (owned) */
	int64_t run_id;	   /* in st */
	int is_file;
	/* base:REF only (else NULL, owned): the stored runs along the merge
	 * base's first-parent ancestry, run_id first (analysis/ancestry.h) */
	struct ancestry *anc;
	/* a file and its repetitions (runarg_add_file()): the run ids of
	 * every file in mem, run_id first; NULL for a single file */
	int64_t *reps;
	size_t nreps;
};

/* db reads the store st when not NULL (borrowed), else opens path. */
void runarg_db_init(struct runarg_db *db, struct store *st, const char *path);
void runarg_db_release(struct runarg_db *db);

/*
 * Resolve arg (the order above) into *out; base:REF runs git
 * (analysis/ancestry.h) and keeps its runs in out->anc.  Errors: the selector's
 * (ERR_USAGE, ERR_NOTFOUND), the store's, the file's (ingest), ERR_IO for
 * a path that cannot be read.  *out needs runarg_release() either way.
 */
int runarg_resolve(struct runarg *out, struct runarg_db *db, const char *arg);
void runarg_release(struct runarg *a);

/*
 * Ingest path into the private store of a, a resolved file (ERR_USAGE
 * otherwise), as one more repetition of the same candidate: a->reps then
 * lists every file's run.  Nothing is stored anywhere else.  Errors: the
 * file's, ERR_IO "cannot read 'x': no such file".
 */
int runarg_add_file(struct runarg *a, const char *path);

/* The run of a: store_get_run(), and for a file run id 0 and source_path
 * = arg as given (how commands name a file); store_run_release() it. */
int runarg_get_run(struct store_run *out, const struct runarg *a, const char *arg);

/*
 * For the commands that change stored runs (tag, untag, pin, rm): parse
 * arg as a selector only; an existing file is refused as such, naming
 * cmd ("'run.h5' is a file, not a stored run: tag changes stored runs
 * only (ingest the file first)").  select_release() *sel.
 */
int runarg_parse_stored(struct select_spec *sel, const char *arg, const char *cmd);

/* 1 when arg names an existing regular file (following symlinks). */
int runarg_is_file(const char *arg);

/* 0 when st holds a run, else ERR_NOTFOUND "no runs stored in 'X'" (the
 * selector latest's message): what a command with nothing to show says
 * of an empty store, rather than that its filters matched nothing. */
int runarg_any_run(struct store *st);

/* 1 when arg looks like a path rather than a mistyped selector. */
int runarg_looks_like_path(const char *arg);

#endif
