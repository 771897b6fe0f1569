/*
 * uri.c - which --db values are PostgreSQL's (postgres_accepts(), the
 * registry's test) and their passwords masked in every message (see
 * uri.h).  No libpq here: built in every build.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "scopedb/util.h"
#include "store/postgres/uri.h"

/* The libpq keywords that make a key=value connection string: every
 * parameter of PostgreSQL 15's libpq (its documentation, section 34.1.2),
 * so that no connection string is taken for a file's name. */
static const char *const postgres_keywords[] = {"host",
						"hostaddr",
						"port",
						"dbname",
						"user",
						"password",
						"passfile",
						"channel_binding",
						"connect_timeout",
						"client_encoding",
						"options",
						"application_name",
						"fallback_application_name",
						"keepalives",
						"keepalives_idle",
						"keepalives_interval",
						"keepalives_count",
						"tcp_user_timeout",
						"replication",
						"gssencmode",
						"sslmode",
						"requiressl",
						"sslcompression",
						"sslcert",
						"sslkey",
						"sslpassword",
						"sslrootcert",
						"sslcrl",
						"sslcrldir",
						"sslsni",
						"requirepeer",
						"ssl_min_protocol_version",
						"ssl_max_protocol_version",
						"krbsrvname",
						"gsslib",
						"service",
						"target_session_attrs",
						NULL};

int postgres_accepts(const char *loc)
{
	size_t i, k;

	if (!strncmp(loc, "postgresql://", 13) || !strncmp(loc, "postgres://", 11))
		return 1;
	while (isspace((unsigned char)*loc))
		loc++;
	k = strcspn(loc, "= \t");
	if (loc[k] != '=' && loc[k] != ' ' && loc[k] != '\t')
		return 0;
	for (i = 0; postgres_keywords[i]; i++)
		if (strlen(postgres_keywords[i]) == k && !strncmp(loc, postgres_keywords[i], k)) {
			loc += k;
			while (*loc == ' ' || *loc == '\t')
				loc++;
			return *loc == '=';
		}
	return 0;
}

static void pg_secret_add(struct pg_secrets *s, const char *p, size_t n)
{
	if (s && n && s->n < PG_SECRETS) {
		s->v[s->n].p = p;
		s->v[s->n++].n = n;
	}
}

/*
 * The password span [colon + 1, at) of a URI is a secret, and so is each
 * piece of it between the '/', '?' and '@' where libpq may cut it: libpq
 * ends user info at the first '@' before the first '/', and quotes the
 * token it chokes on ("pa" of u:pa/ss@h read as a port, "ss@h" of
 * u:p@ss@h read as a host).
 */
static void pg_secret_add_password(struct pg_secrets *s, const char *p, const char *end)
{
	const char *q;

	pg_secret_add(s, p, (size_t)(end - p));
	for (q = p; q < end && !strchr("/?@", *q); q++)
		;
	while (q < end) { /* more than one piece */
		for (q = p; q < end && !strchr("/?@", *q); q++)
			;
		pg_secret_add(s, p, (size_t)(q - p));
		p = q + 1;
	}
}

/* 1 when p[0..n) is a port number (digits only, at least one). */
static int pg_uri_port(const char *p, size_t n)
{
	return n > 0 && strspn(p, "0123456789") >= n;
}

/*
 * The '@' that ends the user info of the URI authority at p (just after
 * "://"), NULL when there is none.  A password may hold an unescaped '@',
 * '=', '?' or '/' and must not leak its tail, so with a password (a ':'
 * before the first '@' and the first '/', not a host's port as in
 * h:5432/db@x) the user info ends at the last '@' before the first '='
 * of the query (u:p@ss/w?rd@h, u:c2Vj==@h; postgresql://u:pw@h/db?user=a@b
 * keeps the query's), else at the last '@' before the first '/'.  That
 * may mask more than the password (a database named with an '@'), never
 * less.  Without a password: the last '@' before the first '/'.
 */
static const char *pg_uri_at(const char *p)
{
	const char *slash = p + strcspn(p, "/"), *first = strchr(p, '@'), *query = strchr(p, '?');
	const char *end = first && first < slash ? first : slash;
	const char *colon = memchr(p, ':', (size_t)(end - p)), *lim, *at = NULL, *q;

	for (q = p; q < slash; q++)
		if (*q == '@')
			at = q;
	if (!colon || !first || (!at && pg_uri_port(colon + 1, (size_t)(slash - colon - 1))))
		return at;
	lim = query ? query + strcspn(query, "=") : p + strlen(p);
	for (q = p; q < lim; q++)
		if (*q == '@')
			at = q;
	return at;
}

/* 1 when the key p[0..n) of a connection parameter names a secret: any
 * spelling with "pass" in it (password, and the Password, PASSWORD or
 * passwd libpq refuses while quoting the whole string back) but passfile,
 * a path. */
static int pg_secret_key(const char *p, size_t n)
{
	size_t i;

	if (n == 8 && !strncmp(p, "passfile", 8))
		return 0;
	for (i = 0; i + 4 <= n; i++)
		if (!strncasecmp(p + i, "pass", 4))
			return 1;
	return 0;
}

/* pg_secret_key() of a URI query key p[0..n), percent-decoded as libpq
 * decodes it (p%61ssword is password). */
static int pg_secret_uri_key(const char *p, size_t n)
{
	char key[128];
	size_t i, k = 0;

	for (i = 0; i < n && k < sizeof(key); i++) {
		if (p[i] == '%' && i + 2 < n && isxdigit((unsigned char)p[i + 1]) &&
		    isxdigit((unsigned char)p[i + 2])) {
			char hex[3] = {p[i + 1], p[i + 2], '\0'};

			key[k++] = (char)strtol(hex, NULL, 16);
			i += 2;
		} else {
			key[k++] = p[i];
		}
	}
	return k < sizeof(key) ? pg_secret_key(key, k) : pg_secret_key(p, n);
}

char *postgres_mask(const char *loc, struct pg_secrets *secrets)
{
	struct buf b = BUF_INIT;
	const char *p, *q, *at, *colon;
	int rc = 0;

	p = strstr(loc, "://");
	if (p) {
		p += 3;
		at = pg_uri_at(p);
		colon = at ? memchr(p, ':', (size_t)(at - p)) : NULL;
		if (colon) {
			rc = buf_add(&b, loc, (size_t)(colon + 1 - loc));
			rc = rc || buf_puts(&b, "***");
			pg_secret_add_password(secrets, colon + 1, at);
			p = at;
		} else {
			rc = buf_add(&b, loc, (size_t)(p - loc));
		}
		/* and the query's password=... parameter */
		for (q = p; *q && !rc;) {
			size_t n = strcspn(q, "=&");

			if ((q[-1] == '?' || q[-1] == '&') && q[n] == '=' &&
			    pg_secret_uri_key(q, n)) {
				rc = buf_add(&b, q, n + 1) || buf_puts(&b, "***");
				pg_secret_add(secrets, q + n + 1, strcspn(q + n + 1, "&"));
				q += strcspn(q, "&");
				continue;
			}
			rc = buf_putc(&b, *q++);
		}
		return buf_finish(&b, rc || buf_puts(&b, ""));
	}
	for (p = loc; *p && !rc;) {
		size_t n = strcspn(p, "= \t\n\r\f\v");

		if ((p == loc || isspace((unsigned char)p[-1])) && pg_secret_key(p, n) &&
		    p[n + strspn(p + n, " \t")] == '=') {
			const char *v = p + n + strspn(p + n, " \t") + 1;

			v += strspn(v, " \t");
			rc = buf_add(&b, p, (size_t)(v - p));
			rc = rc || buf_puts(&b, "***");
			if (*v == '\'') {
				const char *start = ++v;

				for (; *v && *v != '\''; v++)
					if (*v == '\\' && v[1])
						v++;
				pg_secret_add(secrets, start, (size_t)(v - start));
				v += *v == '\'';
			} else {
				/* unquoted: a backslash escapes a blank */
				const char *start = v;

				for (; *v && !isspace((unsigned char)*v); v++)
					if (*v == '\\' && v[1])
						v++;
				pg_secret_add(secrets, start, (size_t)(v - start));
			}
			p = v;
			continue;
		}
		rc = buf_putc(&b, *p++);
	}
	return buf_finish(&b, rc || buf_puts(&b, ""));
}

/* A byte of a word: a letter, a digit or part of a UTF-8 character. */
static int pg_word_byte(unsigned char c)
{
	return isalnum(c) || c >= 0x80;
}

/*
 * 1 when the secret s stands at msg[i] as a whole token: not inside a
 * longer word (a one-letter password 'e' is not the 'e's of
 * "connection").  libpq quotes or delimits what it echoes of a --db
 * value ('"', ':', '@', '/', '=', '&', blanks), so an echoed password is
 * always a whole token.
 */
static int pg_secret_at(const char *msg, size_t len, size_t i, const char *s, size_t n)
{
	if (n > len - i || memcmp(msg + i, s, n))
		return 0;
	if (i > 0 && pg_word_byte((unsigned char)s[0]) && pg_word_byte((unsigned char)msg[i - 1]))
		return 0;
	if (i + n < len && pg_word_byte((unsigned char)s[n - 1]) &&
	    pg_word_byte((unsigned char)msg[i + n]))
		return 0;
	return 1;
}

char *postgres_scrub(const char *msg, size_t len, const char *loc, const char *masked,
		     const struct pg_secrets *secrets)
{
	struct buf b = BUF_INIT;
	size_t i = 0, k, n = strlen(loc);
	int rc = 0;

	while (i < len && !rc) {
		if (n <= len - i && !memcmp(msg + i, loc, n)) {
			rc = buf_puts(&b, masked);
			i += n;
			continue;
		}
		for (k = 0; k < secrets->n; k++)
			if (pg_secret_at(msg, len, i, secrets->v[k].p, secrets->v[k].n))
				break;
		if (k < secrets->n) {
			rc = buf_puts(&b, "***");
			i += secrets->v[k].n;
		} else {
			rc = buf_putc(&b, msg[i++]);
		}
	}
	return buf_finish(&b, rc || buf_puts(&b, ""));
}
