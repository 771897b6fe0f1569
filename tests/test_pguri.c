/*
 * test_pguri.c - PostgreSQL --db values (store/postgres/uri.c, built in
 * every build): which values are PostgreSQL's, their passwords masked in
 * the value, and in libpq's messages only where a password stands whole.
 */
#include <stdlib.h>
#include <string.h>

#include "store/postgres/uri.h"
#include "testutil.h"

/* URIs and key=value strings are PostgreSQL's; a file name is not, even
 * one that starts like a keyword. */
static void test_accepts(void **state)
{
	static const struct {
		const char *loc;
		int yes;
	} cases[] = {
	    {"postgresql:///db", 1},
	    {"postgres://u@h/db", 1},
	    {"host=/tmp dbname=x", 1},
	    {"  dbname = x", 1},
	    {"store.sqlite", 0},
	    {"hostname=x", 0},
	    {"postgresql.sqlite", 0},
	    {"host", 0},
	    /* every libpq 15 keyword: these two were taken for file names,
	     * and an SQLite file of that name made */
	    {"keepalives=1 host=db", 1},
	    {"sslcert=/x password=y", 1},
	    {"ssl_max_protocol_version=TLSv1.3", 1},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_int_equal(postgres_accepts(cases[i].loc), cases[i].yes);
}

/* mask loc, then scrub msg with it: the result, or NULL */
static char *scrub(const char *loc, const char *msg)
{
	struct pg_secrets s = {0};
	char *masked = postgres_mask(loc, &s), *out;

	assert_non_null(masked);
	out = postgres_scrub(msg, strlen(msg), loc, masked, &s);
	free(masked);
	assert_non_null(out);
	return out;
}

static void test_mask(void **state)
{
	static const char *const cases[][2] = {
	    {"postgresql://u:hunter2@h/db", "postgresql://u:***@h/db"},
	    {"postgresql:///db?host=/tmp&password=hunter2&user=u",
	     "postgresql:///db?host=/tmp&password=***&user=u"},
	    {"host=/tmp password=hunter2 user=u", "host=/tmp password=*** user=u"},
	    {"host=/tmp password = 'hun ter2'", "host=/tmp password = ***"},
	    {"postgresql://u@h/db", "postgresql://u@h/db"},
	    /* a mistyped key libpq refuses, quoting the whole string back */
	    {"host=/tmp Password=hunter2 user=u", "host=/tmp Password=*** user=u"},
	    {"host=/tmp PASSWORD=hunter2", "host=/tmp PASSWORD=***"},
	    {"host=/tmp passwd=hunter2", "host=/tmp passwd=***"},
	    {"postgresql:///db?Password=hunter2&user=u", "postgresql:///db?Password=***&user=u"},
	    /* a key libpq percent-decodes */
	    {"postgresql:///db?p%61ssword=hunter2&user=u",
	     "postgresql:///db?p%61ssword=***&user=u"},
	    /* a password holding '@' before a '/', '?' or another '@' */
	    {"postgresql://ci:p@ssw0rd/Tr0ub4dor@127.0.0.1:1/perf",
	     "postgresql://ci:***@127.0.0.1:1/perf"},
	    {"postgres://u:p@ss/w?rd@127.0.0.1:1/db", "postgres://u:***@127.0.0.1:1/db"},
	    {"postgresql://u:hun/t@er2@h/db", "postgresql://u:***@h/db"},
	    {"postgresql://u:p@ss@h/db?user=a@b", "postgresql://u:***@h/db?user=a@b"},
	    /* a password holding '=' (base64) */
	    {"postgresql://u:c2VjcmV0cGFzcw==@127.0.0.1:1/db", "postgresql://u:***@127.0.0.1:1/db"},
	    {"postgresql://ci:tok=en@h/perf", "postgresql://ci:***@h/perf"},
	    {"postgresql://u:x@y=z@127.0.0.1:1/db", "postgresql://u:***@127.0.0.1:1/db"},
	    {"postgresql://u:p?a=b@h/db?user=x@y", "postgresql://u:***@h/db?user=x@y"},
	    /* a query's '@' is not the user info's, nor a port a password */
	    {"postgresql://h:1/db?user=a@b", "postgresql://h:1/db?user=a@b"},
	    {"postgresql://127.0.0.1:1/d@b", "postgresql://127.0.0.1:1/d@b"},
	    {"postgresql://u@h:5432/d@b", "postgresql://u@h:5432/d@b"},
	    {"postgresql://us@er@h/db@x", "postgresql://us@er@h/db@x"},
	    /* a path, not a secret */
	    {"host=/tmp passfile=/home/u/.pgpass", "host=/tmp passfile=/home/u/.pgpass"},
	};
	struct pg_secrets s;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *m;

		memset(&s, 0, sizeof(s));
		m = postgres_mask(cases[i][0], &s);
		assert_non_null(m);
		assert_string_equal(m, cases[i][1]);
		free(m);
	}
}

/* A password is starred where libpq echoes it (quoted, or delimited as
 * in the value), and only there: a one-letter password leaves the other
 * words of the message whole. */
static void test_scrub(void **state)
{
	static const char *const cases[][3] = {
	    /* the value echoed whole, and a token of it */
	    {"postgresql://u:e@h/db", "cannot parse 'postgresql://u:e@h/db'",
	     "cannot parse 'postgresql://u:***@h/db'"},
	    {"postgresql://u:e@h/db", "invalid port number: \"e\"", "invalid port number: \"***\""},
	    /* the same letter inside words is not the password */
	    {"postgresql://u:e@h/db",
	     "connection to server on socket \"/tmp/.s.PGSQL.5432\" failed: FATAL:  database "
	     "\"nosuch\" does not exist",
	     "connection to server on socket \"/tmp/.s.PGSQL.5432\" failed: FATAL:  database "
	     "\"nosuch\" does not exist"},
	    {"host=/tmp password=ion", "connection refused (ion)", "connection refused (***)"},
	    {"host=/tmp password=x1", "x1x1 x1", "x1x1 ***"},
	    /* a password that starts or ends with a delimiter */
	    {"host=/tmp password=@a", "token b@a: '@a'", "token b***: '***'"},
	    /* the pieces of a password libpq may cut at '/', '?' or '@' */
	    {"postgresql://u:pa/ss@h/db", "invalid port number: \"pa\"",
	     "invalid port number: \"***\""},
	    {"postgresql://u:p@ss@h/db", "could not translate host name \"ss@h\" to address",
	     "could not translate host name \"***@h\" to address"},
	    {"postgresql://ci:hun@ter2/xyz@127.0.0.1:1/perf",
	     "could not translate host name \"ter2\" to address",
	     "could not translate host name \"***\" to address"},
	    /* long passwords as before */
	    {"postgresql:///db?password=hunter2", "invalid percent-encoded token: \"hunter2\"",
	     "invalid percent-encoded token: \"***\""},
	    /* a UTF-8 word holds its bytes */
	    {"host=/tmp password=\xc3\xa9", "caf\xc3\xa9 \xc3\xa9", "caf\xc3\xa9 ***"},
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = scrub(cases[i][0], cases[i][1]);

		assert_string_equal(got, cases[i][2]);
		free(got);
	}
}

TU_MAIN(NULL, NULL,
	{
	    cmocka_unit_test(test_accepts),
	    cmocka_unit_test(test_mask),
	    cmocka_unit_test(test_scrub),
	})
