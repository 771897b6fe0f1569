/*
 * ingest_opts.c - what an ingest takes besides the file (ingest_opts.h):
 * the default limits of its readers, the checks of its options by the
 * text rule (docs/text.md), its tags and metadata stored with a new run,
 * and what of the given identity a duplicate keeps.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "ingest/ingest_opts.h"
#include "scopedb/err.h"
#include "scopedb/identity.h"
#include "scopedb/util.h"

/* Limits of every read whose options give none (ingest_set_default_limits). */
static struct ingest_limits ingest_defaults = {INGEST_DEFAULT_TIMEOUT_S, INGEST_DEFAULT_MEMORY_MIB};

void ingest_set_default_limits(const struct ingest_limits *lim)
{
	ingest_defaults = *lim;
}

const struct ingest_limits *ingest_default_limits(void)
{
	return &ingest_defaults;
}

/* ERR_USAGE "invalid WHAT 'S': ..." when text s (len bytes of it: a
 * --meta's key, part "its key ") breaks the text rule (docs/text.md): not
 * UTF-8, or a name past STORE_NAME_MAX (quoted to 120 bytes); else 0. */
static int ingest_opt_text(const char *what, const char *s, size_t len, const char *part)
{
	char q[160];

	if (util_utf8_bad(s))
		return err_set(ERR_USAGE,
			       "invalid %s '%s': not valid UTF-8 (a store holds UTF-8 text only)",
			       what, s);
	if (len <= STORE_NAME_MAX)
		return 0;
	return err_set(ERR_USAGE,
		       "invalid %s '%s': %stoo long (%zu bytes; a store indexes names of at most "
		       "%d)",
		       what, util_quote_msg_buf(q, sizeof(q), 120, s), part, len, STORE_NAME_MAX);
}

int ingest_meta_check(const char *kv)
{
	const char *eq = strchr(kv, '=');

	if (!eq || eq == kv)
		return err_set(ERR_USAGE, "invalid --meta '%s': expected KEY=VALUE", kv);
	return ingest_opt_text("--meta", kv, (size_t)(eq - kv), "its key is ");
}

int ingest_opts_check(const struct ingest_opts *o)
{
	const char *const what[] = {"--label", "commit", "branch"};
	const char *const s[] = {o->label, o->commit, o->branch};
	const char *label, *ts;
	int64_t epoch;
	size_t i;
	int rc = 0;

	for (i = 0; !rc && i < 3; i++)
		rc = s[i] ? ingest_opt_text(what[i], s[i], strlen(s[i]), "") : 0;
	for (i = 0; !rc && i < o->ntags; i++) {
		if (!o->tags[i][0])
			return err_set(ERR_USAGE, "invalid --tag '': empty tag (a tag names runs: "
						  "give it a name)");
		rc = ingest_opt_text("--tag", o->tags[i], strlen(o->tags[i]), "");
	}
	for (i = 0; !rc && i < o->nmeta; i++)
		rc = ingest_meta_check(o->meta[i]);
	/* a --meta label is the run's label (without --label): a name, as
	 * --label is (the "label=" before it is the --meta word's) */
	if (!rc && !o->label && (label = ingest_opts_meta(o, "label")))
		rc = ingest_opt_text("--meta", label - strlen("label="), strlen(label),
				     "its label is ");
	/* and a --meta timestamp the run's recorded time: a time, or refused
	 * (a file's that is none is warned of, the run then recorded when
	 * ingested; the command line's is the user's to mend) */
	if (!rc && (ts = ingest_opts_meta(o, "timestamp")) && util_parse_iso(&epoch, ts))
		rc = err_set(ERR_USAGE,
			     "invalid --meta 'timestamp=%s': not an ISO-8601 time (such as "
			     "2024-01-31T02:00:00Z)",
			     ts);
	return rc;
}

/* The path and opts of a file to ingest, by the text rule. */
int ingest_text_check(const char *path, const struct ingest_opts *o)
{
	if (util_utf8_bad(path))
		return err_set(ERR_USAGE,
			       "cannot read '%s': its path is not valid UTF-8 (a store holds UTF-8 "
			       "text only); rename the file",
			       path);
	return ingest_opts_check(o);
}

/* Tags of opts added to run_id; *out counts the new ones. */
int ingest_add_tags(int *out, struct store *st, int64_t run_id, const struct ingest_opts *opts)
{
	size_t i;
	int rc;

	*out = 0;
	for (i = 0; i < opts->ntags; i++) {
		int added = 0;

		rc = store_add_tag(st, &added, run_id, opts->tags[i]);
		if (rc)
			return rc;
		*out += added;
	}
	return 0;
}

/* Store /metadata and then the --meta overrides of a new run. */
int ingest_store_meta(struct store *st, int64_t run_id, const struct h5prof_info *info,
		      const struct ingest_opts *opts)
{
	size_t i;
	int rc = 0;

	for (i = 0; i < info->num_meta; i++) {
		rc = store_set_meta(st, run_id, info->meta[i].key, info->meta[i].value);
		if (rc)
			return rc;
	}
	for (i = 0; i < opts->nmeta; i++) {
		const char *eq = strchr(opts->meta[i], '=');
		char *key;

		rc = ingest_meta_check(opts->meta[i]);
		if (rc)
			return rc;
		key = malloc((size_t)(eq - opts->meta[i]) + 1);
		if (!key)
			return err_nomem();
		memcpy(key, opts->meta[i], (size_t)(eq - opts->meta[i]));
		key[eq - opts->meta[i]] = '\0';
		rc = store_set_meta(st, run_id, key, eq + 1);
		free(key);
		if (rc)
			return rc;
	}
	return 0;
}

const char *ingest_opts_meta(const struct ingest_opts *opts, const char *key)
{
	size_t i, n = strlen(key);
	const char *v = NULL;

	for (i = 0; i < opts->nmeta; i++)
		if (!strncmp(opts->meta[i], key, n) && opts->meta[i][n] == '=')
			v = opts->meta[i] + n + 1;
	return v;
}

ptrdiff_t ingest_meta_kept(const struct store_meta *m, const struct ingest_opts *opts,
			   const char **stored)
{
	size_t i, j, n;

	for (i = 0; i < opts->nmeta; i++) {
		const char *eq = strchr(opts->meta[i], '=');

		if (!eq)
			continue;
		n = (size_t)(eq - opts->meta[i]);
		/* (only the last --meta of a key counts, as when stored) */
		for (j = i + 1; j < opts->nmeta; j++)
			if (!strncmp(opts->meta[j], opts->meta[i], n + 1))
				break;
		if (j < opts->nmeta)
			continue;
		for (j = 0; j < m->n; j++)
			if (strlen(m->keys[j]) == n && !memcmp(m->keys[j], opts->meta[i], n))
				break;
		if (j == m->n || strcmp(m->values[j], eq + 1) != 0) {
			*stored = j < m->n ? m->values[j] : NULL;
			return (ptrdiff_t)i;
		}
	}
	*stored = NULL;
	return -1;
}

/* Whether a given commit differs from the stored one: the same commit
 * abbreviated (one a prefix of the other, both hex) does not. */
static int ingest_commit_differs(const char *given, const char *stored)
{
	size_t a, b;

	if (!stored)
		return 1;
	a = strlen(given);
	b = strlen(stored);
	if (identity_is_hex(given, 4, 64) && identity_is_hex(stored, 4, 64))
		return strncasecmp(given, stored, a < b ? a : b) != 0;
	return strcmp(given, stored) != 0;
}

/* INGEST_KEPT_* of the options that differ from the stored run old. */
unsigned ingest_kept(const struct store_run *old, const struct ingest_opts *opts)
{
	unsigned kept = 0;

	if (opts->commit && ingest_commit_differs(opts->commit, old->commit))
		kept |= INGEST_KEPT_COMMIT;
	if (opts->branch && (!old->branch || strcmp(opts->branch, old->branch)))
		kept |= INGEST_KEPT_BRANCH;
	if (opts->label && (!old->label || strcmp(opts->label, old->label)))
		kept |= INGEST_KEPT_LABEL;
	return kept;
}
