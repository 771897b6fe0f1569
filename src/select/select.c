/*
 * select.c - parsing run selectors (see select.h), with git's spellings:
 * ancestry suffixes (~N, ~, ^) on every form and a bare commit hash.  Pure
 * string handling:
 * what a selector means against the stored runs is store_resolve()'s job.
 */
#include <stdlib.h>
#include <string.h>

#include "scopedb/err.h"
#include "scopedb/select.h"
#include "scopedb/util.h"
#include "util/suggest.h"

/* The grammar in the message of a text that is no selector: the stored
 * runs' forms, then what only the commands that compare runs take. */
#define SELECT_GRAMMAR_STORED                                                                      \
	"expected ID, latest, tag:NAME, commit:PREFIX, a commit hash, branch:NAME, label:NAME or " \
	"pin:NAME (each may end in ~N or ^)"
#define SELECT_GRAMMAR SELECT_GRAMMAR_STORED ", base:REF, or the path of an existing file"

/* Decimal digits s[0..n) as a non-negative int64; -1 when empty, not all
 * digits or too large. */
static int64_t select_number(const char *s, size_t n)
{
	int64_t v = 0;
	size_t i;

	if (n == 0)
		return -1;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		if (v > (INT64_MAX - (s[i] - '0')) / 10)
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

/*
 * Strip git's ancestry suffixes from the end of s[0..*len): "~N", "~" (=
 * ~1) and "^" (= ~1), in any number ("X^^" = "X~2", "X~2^" = "X~3"),
 * adding them up in *back.  A '~' not followed by digits only (or by
 * nothing) ends the suffix: "tag:a~b" names the tag "a~b", "^2" is part of
 * the name.  -1 when a count or the sum overflows int64.
 */
static int select_strip_back(size_t *len, int64_t *back, const char *s)
{
	int64_t n;
	size_t j;

	*back = 0;
	while (*len > 0) {
		if (s[*len - 1] == '^') {
			n = 1;
			--*len;
		} else {
			for (j = *len; j > 0 && s[j - 1] >= '0' && s[j - 1] <= '9'; j--)
				;
			if (j == 0 || s[j - 1] != '~')
				break;
			n = j == *len ? 1 : select_number(s + j, *len - j);
			if (n < 0)
				return -1;
			*len = j - 1;
		}
		if (*back > INT64_MAX - n)
			return -1;
		*back += n;
	}
	return 0;
}

/* 1 when s[0..n) is a bare commit hash: 4 or more hex digits in any case
 * (git takes BB02 for bb02), at least one of them a letter (all digits is
 * a run id). */
static int select_is_hash(const char *s, size_t n)
{
	size_t i;
	int letter = 0;

	if (n < 4)
		return 0;
	for (i = 0; i < n; i++) {
		if ((s[i] >= 'a' && s[i] <= 'f') || (s[i] >= 'A' && s[i] <= 'F'))
			letter = 1;
		else if (s[i] < '0' || s[i] > '9')
			return 0;
	}
	return letter;
}

/* out->name = s[0..n); ERR_NOMEM. */
static int select_set_name(struct select_spec *out, const char *s, size_t n)
{
	out->name = malloc(n + 1);
	if (!out->name)
		return err_nomem();
	memcpy(out->name, s, n);
	out->name[n] = '\0';
	return 0;
}

/*
 * The selector text[0..len) (ancestry suffix text + len) as the user
 * probably meant it, in *hint as "; did you mean 'X'?": a mistyped kind
 * ("tags:v1" is tag:v1, "brnch:main" branch:main) or latest ("lastest",
 * "Latest~2"); nothing when none is close.  base: only where the command
 * takes it (stored: it does not).  0 or ERR_NOMEM.
 */
static int select_hint(struct buf *hint, const char *text, size_t len, int stored)
{
	static const char *const kinds[] = {"tag", "commit", "branch", "label", "pin", "base"};
	static const char *const words[] = {"latest"};
	const char *colon = memchr(text, ':', len), *best;
	char word[16];
	size_t k = colon ? (size_t)(colon - text) : len;

	if (k == 0 || k >= sizeof(word))
		return 0;
	memcpy(word, text, k);
	word[k] = '\0';
	best = colon
		   ? suggest_best(word, kinds, sizeof(kinds) / sizeof(kinds[0]) - (stored ? 1 : 0))
		   : suggest_best(word, words, 1);
	if (!best)
		return 0;
	return buf_printf(hint, "; did you mean '%s%s'?", best, text + k);
}

/* select_parse(), its message listing grammar; stored: a command of stored
 * runs only (no base:REF suggested). */
static int select_parse_as(struct select_spec *out, const char *text, const char *grammar,
			   int stored)
{
	static const struct {
		const char *prefix;
		enum select_kind kind;
		const char *what;
	} kinds[] = {
	    {"tag:", SELECT_TAG, "tag"},	  {"commit:", SELECT_COMMIT, "commit prefix"},
	    {"branch:", SELECT_BRANCH, "branch"}, {"label:", SELECT_LABEL, "label"},
	    {"pin:", SELECT_PIN, "pin name"},
	};
	struct buf hint = BUF_INIT;
	size_t i, len = strlen(text), plen;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	out->text = util_strdup(text);
	if (!out->text)
		return ERR_NOMEM;
	if (!strncmp(text, "base:", 5)) {
		/* REF is git's revision, suffixes and all: git reads "~2" */
		out->kind = SELECT_BASE;
		if (!text[5])
			rc = err_set(ERR_USAGE, "invalid run selector '%s': empty git revision",
				     text);
		else
			rc = select_set_name(out, text + 5, len - 5);
		goto out;
	}
	if (select_strip_back(&len, &out->back, text)) {
		rc = err_set(ERR_USAGE,
			     "invalid run selector '%s': ~N is too large (at most %lld runs back)",
			     text, (long long)INT64_MAX);
		goto out;
	}
	if (text[0] >= '0' && text[0] <= '9' && select_number(text, len) >= 0) {
		out->kind = SELECT_ID;
		out->id = select_number(text, len);
		goto out;
	}
	if (select_is_hash(text, len)) {
		out->kind = SELECT_COMMIT;
		out->bare = 1;
		rc = select_set_name(out, text, len);
		goto out;
	}
	if (len == 6 && !strncmp(text, "latest", 6)) {
		out->kind = SELECT_LATEST;
		goto out;
	}
	if (!strncmp(text, "latest", 6) && (text[6] == '~' || text[6] == '^')) {
		rc = err_set(ERR_USAGE,
			     "invalid run selector '%s': ~N needs a non-negative integer", text);
		goto out;
	}
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		plen = strlen(kinds[i].prefix);
		if (strncmp(text, kinds[i].prefix, plen))
			continue;
		out->kind = kinds[i].kind;
		if (len <= plen) {
			rc = err_set(ERR_USAGE, "invalid run selector '%s': empty %s", text,
				     kinds[i].what);
			goto out;
		}
		rc = select_set_name(out, text + plen, len - plen);
		goto out;
	}
	if (select_hint(&hint, text, len, stored))
		rc = err_nomem();
	else if (hint.len)
		rc = err_set(ERR_USAGE, "invalid run selector '%s'%s", text, hint.data);
	else
		rc = err_set(ERR_USAGE, "invalid run selector '%s': %s", text, grammar);
out:
	buf_release(&hint);
	if (rc)
		select_release(out);
	return rc;
}

int select_parse(struct select_spec *out, const char *text)
{
	return select_parse_as(out, text, SELECT_GRAMMAR, 0);
}

int select_parse_stored(struct select_spec *out, const char *text)
{
	return select_parse_as(out, text, SELECT_GRAMMAR_STORED, 1);
}

void select_release(struct select_spec *s)
{
	if (!s)
		return;
	free(s->text);
	free(s->name);
	memset(s, 0, sizeof(*s));
}

int select_check_pin_name(const char *name)
{
	size_t i, n = strlen(name);
	char q[160];

	if (n == 0 || n > 64)
		goto bad;
	for (i = 0; i < n; i++) {
		char c = name[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '.' || c == '_' || c == '-' || c == '/'))
			goto bad;
	}
	return 0;
bad:
	/* quoted to 120 bytes, so the rule after it is never cut off */
	return err_set(ERR_USAGE,
		       "invalid pin name '%s': use 1 to 64 letters, digits, '.', '_', '-' or '/'",
		       util_quote_msg_buf(q, sizeof(q), 120, name));
}
