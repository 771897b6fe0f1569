/*
 * select.h - the run selector grammar shared by every command that takes a
 * run: parsing only, no store access (store_resolve() in store.h turns a
 * parsed selector into a run id).
 *
 *     42               run id
 *     latest           the newest run; latest~N the N-th before it
 *     tag:NAME[~N]     newest run carrying tag NAME (N-th before it)
 *     commit:PREFIX    newest run whose commit starts with PREFIX
 *     branch:NAME[~N]  newest run of a branch
 *     label:NAME[~N]   newest run with that label
 *     pin:NAME         the run pinned as NAME
 *
 * "Newest" orders runs by recorded time (the profile's timestamp, else the
 * ingest time), then by id.  A trailing "~N" is only taken as a back count
 * when N is all digits, so "tag:a~b" names the tag "a~b".  Whether an
 * argument is a path to a profile file is decided by the caller (an
 * argument that is a valid selector is always a selector; "./latest" names
 * the file).
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
};

struct select_spec {
	enum select_kind kind;
	char *text;   /* the selector as given, for messages */
	int64_t id;   /* SELECT_ID */
	char *name;   /* tag, commit prefix, branch, label or pin; NULL otherwise */
	int64_t back; /* the N of ~N (0 = the newest match) */
};

/*
 * Parse text.  Fails with ERR_USAGE and a message quoting text and listing
 * the grammar when it is not a selector (*out is then zeroed).
 */
int select_parse(struct select_spec *out, const char *text);

void select_release(struct select_spec *s);

/*
 * Check a pin name: 1 to 64 characters among letters, digits and . _ - /
 * (so that "pin:NAME" never needs quoting).  ERR_USAGE naming it otherwise.
 */
int select_check_pin_name(const char *name);

#endif
