/*
 * select.c - parsing run selectors (see select.h).  Pure string handling:
 * what a selector means against the stored runs is store_resolve()'s job.
 */
#include <stdlib.h>
#include <string.h>

#include "scopedb/err.h"
#include "scopedb/select.h"
#include "scopedb/util.h"

#define SELECT_GRAMMAR                                                                             \
	"expected ID, latest[~N], tag:NAME[~N], commit:PREFIX, branch:NAME[~N], "                  \
	"label:NAME[~N], pin:NAME or the path of an existing file"

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
 * Split "NAME~N" at its last '~' when N is all digits: *out_back = N and the
 * name length is returned; otherwise the whole string is the name.  A "~"
 * followed by digits that overflow int64 is reported as an error (-1).
 */
static int select_split_back(size_t *out_len, int64_t *out_back, const char *s)
{
	const char *tilde = strrchr(s, '~');
	size_t len = strlen(s);
	size_t k;

	*out_len = len;
	*out_back = 0;
	if (!tilde || !tilde[1])
		return 0;
	for (k = 1; tilde[k]; k++)
		if (tilde[k] < '0' || tilde[k] > '9')
			return 0;
	*out_back = select_number(tilde + 1, strlen(tilde + 1));
	if (*out_back < 0)
		return -1;
	*out_len = (size_t)(tilde - s);
	return 0;
}

int select_parse(struct select_spec *out, const char *text)
{
	static const struct {
		const char *prefix;
		enum select_kind kind;
		const char *what;
		int back; /* ~N allowed */
	} kinds[] = {
	    {"tag:", SELECT_TAG, "tag", 1},	     {"commit:", SELECT_COMMIT, "commit prefix", 0},
	    {"branch:", SELECT_BRANCH, "branch", 1}, {"label:", SELECT_LABEL, "label", 1},
	    {"pin:", SELECT_PIN, "pin name", 0},
	};
	const char *rest;
	size_t i, len;
	int64_t back;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	out->text = util_strdup(text);
	if (!out->text)
		return ERR_NOMEM;

	if (text[0] >= '0' && text[0] <= '9') {
		out->kind = SELECT_ID;
		out->id = select_number(text, strlen(text));
		if (out->id < 0)
			rc = err_set(ERR_USAGE, "invalid run selector '%s': %s", text,
				     SELECT_GRAMMAR);
		goto out;
	}
	if (!strncmp(text, "latest", 6) && (text[6] == '\0' || text[6] == '~')) {
		out->kind = SELECT_LATEST;
		if (text[6] == '~') {
			out->back = select_number(text + 7, strlen(text + 7));
			if (out->back < 0)
				rc = err_set(ERR_USAGE,
					     "invalid run selector '%s': ~N needs a non-negative "
					     "integer",
					     text);
		}
		goto out;
	}
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		size_t plen = strlen(kinds[i].prefix);

		if (strncmp(text, kinds[i].prefix, plen))
			continue;
		rest = text + plen;
		out->kind = kinds[i].kind;
		if (kinds[i].back) {
			if (select_split_back(&len, &back, rest)) {
				rc = err_set(ERR_USAGE,
					     "invalid run selector '%s': ~N needs a non-negative "
					     "integer",
					     text);
				goto out;
			}
		} else {
			len = strlen(rest);
			back = 0;
			if (memchr(rest, '~', len)) {
				rc = err_set(ERR_USAGE, "invalid run selector '%s': %s takes no ~N",
					     text, kinds[i].prefix);
				goto out;
			}
		}
		if (len == 0) {
			rc = err_set(ERR_USAGE, "invalid run selector '%s': empty %s", text,
				     kinds[i].what);
			goto out;
		}
		out->back = back;
		out->name = malloc(len + 1);
		if (!out->name) {
			rc = err_nomem();
			goto out;
		}
		memcpy(out->name, rest, len);
		out->name[len] = '\0';
		goto out;
	}
	rc = err_set(ERR_USAGE, "invalid run selector '%s': %s", text, SELECT_GRAMMAR);
out:
	if (rc)
		select_release(out);
	return rc;
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
	return err_set(ERR_USAGE,
		       "invalid pin name '%s': use 1 to 64 letters, digits, '.', '_', '-' or '/'",
		       name);
}
