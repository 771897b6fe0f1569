/*
 * uri.h - which --db values are PostgreSQL's, and their passwords kept out
 * of messages (private to src/store/).
 *
 * Built whether or not the PostgreSQL backend is (it needs no libpq): the
 * registry recognizes PostgreSQL's --db values in every build
 * (backends.h), so that a build without the backend refuses them rather
 * than taking them for file names.
 *
 * Ownership: postgres_mask() and postgres_scrub() return malloc'ed
 * strings the caller frees; a struct pg_secrets points into the --db
 * value it was filled from.
 */
#ifndef SCOPEDB_STORE_POSTGRES_URI_H
#define SCOPEDB_STORE_POSTGRES_URI_H

#include <stddef.h>

/* 1 for a postgresql:// or postgres:// URI, or a key=value connection
 * string whose first word is a libpq keyword. */
int postgres_accepts(const char *loc);

/* Where the passwords of a --db value are (spans of it), for
 * postgres_scrub(). */
#define PG_SECRETS 32
struct pg_secrets {
	struct {
		const char *p;
		size_t n;
	} v[PG_SECRETS];
	size_t n;
};

/*
 * loc for messages, with its password replaced by "***" (the URI's
 * user:password@ and ?password=... parameter, a password=... word):
 * messages and outputs end up in CI logs.  The passwords' spans in loc go
 * to secrets (NULL: not wanted).  NULL when memory ran out.
 */
char *postgres_mask(const char *loc, struct pg_secrets *secrets);

/*
 * msg[0..len) with the --db value loc in it as masked (postgres_mask())
 * and every other password of secrets as "***" where it stands as a whole
 * token, not inside a longer word (NULL when memory ran out): libpq quotes
 * a malformed URI whole in its connection errors, and a bad token of it,
 * which may be the password; a one-letter password leaves the rest of
 * the message as it is.
 */
char *postgres_scrub(const char *msg, size_t len, const char *loc, const char *masked,
		     const struct pg_secrets *secrets);

#endif
