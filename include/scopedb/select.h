/*
 * select.h - the run selector grammar shared by every command that takes a
 * run: parsing only, no store access (store_resolve() in store.h turns a
 * parsed selector into a run id).
 *
 *     42               run id
 *     latest           the newest run
 *     tag:NAME         newest run carrying tag NAME
 *     commit:PREFIX    newest run whose commit starts with PREFIX, in any
 *                      case (ASCII: git takes BB02 for bb02)
 *     1a2b3c4          the same: a bare hash (4+ hex digits in any case,
 *                      at least one a letter; all digits is a run id)
 *     branch:NAME      newest run of a branch
 *     label:NAME       newest run with that label
 *     pin:NAME         the run pinned as NAME
 *     base:REF         the newest stored run on the first-parent ancestry
 *                      of the merge base of HEAD and the git revision REF
 *                      (resolved by runarg_resolve(), which runs git:
 *                      ancestry.h); REF is handed to git whole, so that
 *                      "base:origin/main~2" is git's own suffix
 *
 * Each may end in git's ancestry suffixes: ~N, ~ (= ~1) and ^ (= ~1), in
 * any number (X^^ = X~2).  For the forms naming a set of runs (latest,
 * tag, branch, label) ~N is the N-th run of the set before the newest; for
 * the forms naming one run (ID, commit, pin) it is the N-th run recorded
 * before the first run of that run's commit (for ID and pin: of its runs
 * just before it), on its branch, or among all runs when it has none.
 *
 * "Newest" orders runs by recorded time (the profile's timestamp, else the
 * ingest time), then by id.  A trailing "~" is only an ancestry suffix when
 * followed by digits or nothing, so "tag:a~b" names the tag "a~b".
 * Whether an argument is a path to a profile file is decided by the caller
 * (an argument that is a valid selector is a selector, "./latest" names the
 * file; except that a bare hash naming an existing file is that file:
 * see bare).
 *
 * Ownership: struct select_spec owns its strings; select_release() frees
 * them and accepts a zeroed structure.
 */
#ifndef SCOPEDB_SELECT_H
#define SCOPEDB_SELECT_H

#include <stdint.h>

enum select_kind {
	SELECT_ID,
	SELECT_LATEST,
	SELECT_TAG,
	SELECT_COMMIT,
	SELECT_BRANCH,
	SELECT_LABEL,
	SELECT_PIN,
	SELECT_BASE,
};

struct select_spec {
	enum select_kind kind;
	char *text;   /* the selector as given, for messages */
	int64_t id;   /* SELECT_ID */
	char *name;   /* tag, commit prefix, branch, label, pin or REF; NULL otherwise */
	int64_t back; /* the N of ~N (0 = the newest match) */
	int bare;     /* SELECT_COMMIT spelled as a bare hash ("1a2b3c4") */
};

/*
 * Parse text.  Fails with ERR_USAGE and a message quoting text and listing
 * the grammar when it is not a selector (*out is then zeroed).
 */
int select_parse(struct select_spec *out, const char *text);

/* select_parse() for a command that takes stored runs only (rm, tag, pin,
 * export, push, pull): its message lists no base:REF and no file, which
 * such a command refuses. */
int select_parse_stored(struct select_spec *out, const char *text);

void select_release(struct select_spec *s);

/*
 * Check a pin name: 1 to 64 characters among letters, digits and . _ - /
 * (so that "pin:NAME" never needs quoting).  ERR_USAGE naming it otherwise.
 */
int select_check_pin_name(const char *name);

#endif
