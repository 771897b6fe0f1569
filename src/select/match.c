/*
 * match.c - --include/--exclude patterns (PCRE2, Python re.match semantics)
 * and --ranks specs (see match.h).
 *
 * Python's re dialect is close to PCRE2's; the differences that matter
 * for region filters are rewritten before compiling: "\Z" (end of string in
 * Python, "\z" in PCRE2), the open-lower-bound quantifier "{,N}" (which
 * PCRE2 10.42 reads as literal text), the escapes "\uXXXX" and
 * "\UXXXXXXXX" (PCRE2's "\x{...}"), and a '[' inside a set or a ':', '.'
 * or '=' opening one (members in Python, where PCRE2 reads "[:alpha:]",
 * "[.a.]" and "[=a=]" as POSIX syntax).  Compile error offsets are mapped
 * back to the pattern the user wrote.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <stdlib.h>
#include <string.h>

#include "scopedb/err.h"
#include "select/match.h"

struct match_pat {
	char *text;	 /* as given, for messages */
	const char *opt; /* "--include" or "--exclude" */
	pcre2_code *code;
};

struct match {
	struct match_pat *inc, *exc;
	size_t ninc, nexc;
	pcre2_match_data *md;
};

/* The hex digits of Python's escape "\uXXXX" (4) or "\UXXXXXXXX" (8) at
 * pat[i], n = strlen(pat); 0 when there is none. */
static size_t match_hex_escape(const char *pat, size_t i, size_t n)
{
	size_t hex = 0, k;

	if (i + 1 < n && pat[i] == '\\')
		hex = pat[i + 1] == 'u' ? 4 : pat[i + 1] == 'U' ? 8 : 0;
	for (k = 0; hex && k < hex; k++)
		if (i + 2 + k >= n || !strchr("0123456789abcdefABCDEF", pat[i + 2 + k]))
			hex = 0;
	return hex;
}

/*
 * Translate Python-only syntax of pat into out (malloc'ed, NUL-terminated);
 * map[j] is the index in pat of out's byte j (map[len] = strlen(pat)).
 */
static int match_translate(char **out, size_t **out_map, const char *pat)
{
	size_t n = strlen(pat), i = 0, j = 0;
	/* Each input byte becomes at most two output bytes ("{," -> "{0,"). */
	char *t = malloc(2 * n + 1);
	size_t *map = malloc((2 * n + 1) * sizeof(*map));
	int in_class = 0;

	if (!t || !map) {
		free(t);
		free(map);
		return err_nomem();
	}
	while (i < n) {
		size_t hex = match_hex_escape(pat, i, n), k;

		if (hex) {
			map[j] = i;
			t[j++] = '\\';
			map[j] = i + 1;
			t[j++] = 'x';
			map[j] = i + 1;
			t[j++] = '{';
			for (k = 0; k < hex; k++) {
				map[j] = i + 2 + k;
				t[j++] = pat[i + 2 + k];
			}
			map[j] = i + 1 + hex;
			t[j++] = '}';
			i += 2 + hex;
			continue;
		}
		if (pat[i] == '\\' && i + 1 < n) {
			map[j] = i;
			t[j++] = '\\';
			map[j] = i + 1;
			t[j++] = (!in_class && pat[i + 1] == 'Z') ? 'z' : pat[i + 1];
			i += 2;
			continue;
		}
		if (in_class) {
			if (pat[i] == ']')
				in_class = 0;
			if (pat[i] == '[') {
				/* a member in Python ("[[:alpha:]]" is the set of
				 * '[', ':', 'a', 'l', 'p', 'h' then ']'), a POSIX
				 * class or an error in PCRE2 */
				map[j] = i;
				t[j++] = '\\';
			}
		} else if (pat[i] == '[') {
			/* A ']' right after '[' or '[^' is a literal member. */
			map[j] = i;
			t[j++] = pat[i++];
			if (i < n && pat[i] == '^') {
				map[j] = i;
				t[j++] = pat[i++];
			}
			if (i < n && pat[i] == ']') {
				map[j] = i;
				t[j++] = pat[i++];
			}
			/* "[:alpha:]", "[.a.]", "[=a=]": sets of those
			 * characters in Python, POSIX syntax PCRE2 refuses */
			if (i < n && (pat[i] == ':' || pat[i] == '.' || pat[i] == '=')) {
				map[j] = i;
				t[j++] = '\\';
				map[j] = i;
				t[j++] = pat[i++];
			}
			in_class = 1;
			continue;
		} else if (pat[i] == '{' && i + 1 < n && pat[i + 1] == ',') {
			k = i + 2;
			while (k < n && pat[k] >= '0' && pat[k] <= '9')
				k++;
			if (k > i + 2 && k < n && pat[k] == '}') {
				map[j] = i;
				t[j++] = '{';
				map[j] = i + 1;
				t[j++] = '0';
				i++;
				continue; /* the ',' and the rest are copied below */
			}
		}
		map[j] = i;
		t[j++] = pat[i++];
	}
	map[j] = n;
	t[j] = '\0';
	*out = t;
	*out_map = map;
	return 0;
}

/* Compile one pattern (anchored at the start, UTF, Unicode classes). */
static int match_compile(struct match_pat *p, const char *opt, const char *pat)
{
	char *t = NULL;
	size_t *map = NULL;
	int errcode, rc;
	PCRE2_SIZE erroff;

	p->opt = opt;
	p->text = util_strdup(pat);
	if (!p->text)
		return ERR_NOMEM;
	rc = match_translate(&t, &map, pat);
	if (rc)
		goto out;
	p->code = pcre2_compile((PCRE2_SPTR)t, PCRE2_ZERO_TERMINATED,
				PCRE2_ANCHORED | PCRE2_UTF | PCRE2_UCP | PCRE2_MATCH_INVALID_UTF,
				&errcode, &erroff, NULL);
	if (!p->code) {
		PCRE2_UCHAR msg[256];

		if (pcre2_get_error_message(errcode, msg, sizeof(msg)) < 0)
			strcpy((char *)msg, "cannot compile");
		rc = err_set(ERR_USAGE, "invalid %s pattern '%s': %s at offset %zu", opt, pat,
			     (const char *)msg, erroff <= strlen(t) ? map[erroff] : strlen(pat));
		goto out;
	}
out:
	free(t);
	free(map);
	return rc;
}

/* match_new() with inc_opt the option its includes came from, for the
 * message of one that does not compile. */
static int match_build(struct match **out, const char *inc_opt, const char *const *includes,
		       size_t ninclude, const char *const *excludes, size_t nexclude)
{
	struct match *m;
	size_t i;
	int rc = 0;

	m = calloc(1, sizeof(*m));
	if (!m)
		return err_nomem();
	m->inc = calloc(ninclude + 1, sizeof(*m->inc));
	m->exc = calloc(nexclude + 1, sizeof(*m->exc));
	m->md = pcre2_match_data_create(1, NULL);
	if (!m->inc || !m->exc || !m->md) {
		rc = err_nomem();
		goto out;
	}
	/* Counts set only once the (zeroed) arrays exist: match_free() frees
	 * what was compiled so far. */
	m->ninc = ninclude;
	m->nexc = nexclude;
	for (i = 0; i < ninclude && !rc; i++)
		rc = match_compile(&m->inc[i], inc_opt, includes[i]);
	for (i = 0; i < nexclude && !rc; i++)
		rc = match_compile(&m->exc[i], "--exclude", excludes[i]);
out:
	if (rc) {
		match_free(m);
		return rc;
	}
	*out = m;
	return 0;
}

int match_new(struct match **out, const char *const *includes, size_t ninclude,
	      const char *const *excludes, size_t nexclude)
{
	return match_build(out, "--include", includes, ninclude, excludes, nexclude);
}

int match_new_option(struct match **out, const char *option, const char *pattern)
{
	return match_build(out, option, &pattern, 1, NULL, 0);
}

/* 1 if p matches at the start of name, 0 if not, or an error code. */
static int match_one(struct match *m, const struct match_pat *p, const char *name)
{
	int r = pcre2_match(p->code, (PCRE2_SPTR)name, strlen(name), 0, 0, m->md, NULL);
	PCRE2_UCHAR msg[256];

	if (r >= 0)
		return 1;
	if (r == PCRE2_ERROR_NOMATCH)
		return 0;
	if (pcre2_get_error_message(r, msg, sizeof(msg)) < 0)
		strcpy((char *)msg, "matching failed");
	return err_set(ERR_USAGE, "%s pattern '%s' on region '%s': %s", p->opt, p->text, name,
		       (const char *)msg);
}

int match_name(int *out, struct match *m, const char *name)
{
	size_t i;
	int r, sel = m->ninc == 0;

	*out = 0;
	for (i = 0; i < m->ninc && !sel; i++) {
		r = match_one(m, &m->inc[i], name);
		if (r < 0)
			return r;
		sel = r;
	}
	for (i = 0; i < m->nexc && sel; i++) {
		r = match_one(m, &m->exc[i], name);
		if (r < 0)
			return r;
		sel = !r;
	}
	*out = sel;
	return 0;
}

/* 1 when pattern p matches joined or last, 0, or an error. */
static int match_either(struct match *m, const struct match_pat *p, const char *joined,
			const char *last)
{
	int r = match_one(m, p, joined);

	return r ? r : match_one(m, p, last);
}

int match_path(int *out, struct match *m, const char *joined, const char *last)
{
	size_t i;
	int r, sel = m->ninc == 0;

	*out = 0;
	for (i = 0; i < m->ninc && !sel; i++) {
		r = match_either(m, &m->inc[i], joined, last);
		if (r < 0)
			return r;
		sel = r;
	}
	for (i = 0; i < m->nexc && sel; i++) {
		r = match_either(m, &m->exc[i], joined, last);
		if (r < 0)
			return r;
		sel = !r;
	}
	*out = sel;
	return 0;
}

void match_free(struct match *m)
{
	size_t i;

	if (!m)
		return;
	for (i = 0; m->inc && i < m->ninc; i++) {
		free(m->inc[i].text);
		pcre2_code_free(m->inc[i].code);
	}
	for (i = 0; m->exc && i < m->nexc; i++) {
		free(m->exc[i].text);
		pcre2_code_free(m->exc[i].code);
	}
	free(m->inc);
	free(m->exc);
	pcre2_match_data_free(m->md);
	free(m);
}

/* Parse a rank number at *p (advancing it); -1 when there is none or it
 * exceeds the uint32 range of rank numbers in profiles. */
static int64_t match_rank_number(const char **p)
{
	int64_t v = 0;
	const char *s = *p;

	if (*s < '0' || *s > '9')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		v = v * 10 + (*s - '0');
		if (v > UINT32_MAX)
			return -1;
	}
	*p = s;
	return v;
}

/* The message for a spec that does not parse. */
static int match_ranks_bad(const char *spec)
{
	return err_set(ERR_USAGE,
		       "invalid --ranks '%s': expected comma-separated ranks N or ranges A-B, "
		       "e.g. 0-3,8",
		       spec);
}

int match_ranks_parse(struct i64vec *out, const char *spec)
{
	const char *p = spec;
	size_t start_len = out->len;
	int rc = 0;

	/* Parts are separated by ',' or by spaces ("0 2" as upstream's nargs). */
	for (;;) {
		int64_t a, b, r;

		while (*p == ' ')
			p++;
		a = match_rank_number(&p);
		if (a < 0) {
			rc = match_ranks_bad(spec);
			goto out;
		}
		b = a;
		if (*p == '-') {
			p++;
			b = match_rank_number(&p);
			if (b < 0) {
				rc = match_ranks_bad(spec);
				goto out;
			}
			if (b < a) {
				rc = err_set(ERR_USAGE,
					     "invalid --ranks '%s': range %lld-%lld ends before it "
					     "starts",
					     spec, (long long)a, (long long)b);
				goto out;
			}
		}
		if (out->len >= MATCH_MAX_RANKS ||
		    (uint64_t)(b - a) + 1 > (uint64_t)(MATCH_MAX_RANKS - out->len)) {
			rc = err_set(ERR_USAGE, "invalid --ranks '%s': more than %d ranks", spec,
				     MATCH_MAX_RANKS);
			goto out;
		}
		rc = i64vec_reserve(out, out->len + (size_t)(b - a) + 1);
		if (rc)
			goto out;
		for (r = a; r <= b; r++)
			out->v[out->len++] = r;
		while (*p == ' ')
			p++;
		if (*p == '\0')
			break;
		if (*p == ',') {
			p++;
		} else if (p[-1] != ' ') {
			rc = match_ranks_bad(spec);
			goto out;
		}
	}
out:
	if (rc)
		out->len = start_len;
	return rc;
}

void match_ranks_finish(struct i64vec *ranks)
{
	size_t i, j = 0;

	util_sort_i64(ranks->v, ranks->len);
	for (i = 0; i < ranks->len; i++)
		if (j == 0 || ranks->v[i] != ranks->v[j - 1])
			ranks->v[j++] = ranks->v[i];
	ranks->len = j;
}

int match_ranks_format(struct buf *out, const int64_t *ranks, size_t n)
{
	size_t i = 0, j;
	int rc = 0;

	while (i < n && !rc) {
		j = i;
		while (j + 1 < n && ranks[j + 1] == ranks[j] + 1)
			j++;
		if (j == i)
			rc = buf_printf(out, "%s%lld", i ? "," : "", (long long)ranks[i]);
		else
			rc = buf_printf(out, "%s%lld-%lld", i ? "," : "", (long long)ranks[i],
					(long long)ranks[j]);
		i = j + 1;
	}
	if (!rc && n == 0)
		rc = buf_puts(out, "");
	return rc;
}
