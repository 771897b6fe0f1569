/*
 * test_util.c - buffers, the int64 sort, ISO-8601 dates, SHA-256 test
 * vectors and aligned tables.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scopedb/err.h"
#include "util/sha256.h"
#include "render/table.h"
#include "scopedb/util.h"
#include "testutil.h"

static void test_buf(void **state)
{
	struct buf b = BUF_INIT;
	char *s;
	int i;

	(void)state;
	for (i = 0; i < 1000; i++)
		assert_int_equal(buf_printf(&b, "%d,", i), 0);
	assert_int_equal(strncmp(b.data, "0,1,2,", 6), 0);
	assert_int_equal(b.len, strlen(b.data));
	s = buf_detach(&b);
	assert_null(b.data);
	assert_int_equal(strlen(s), 3890);
	free(s);
	s = buf_detach(&b);
	assert_string_equal(s, "");
	free(s);
}

static int cmp64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* util_grow(): a first of 0 counts as 1 (it used to loop forever). */
static void test_grow(void **state)
{
	int *a = NULL;
	size_t cap = 0;

	(void)state;
	assert_int_equal(util_grow(&a, &cap, 1, sizeof(*a), 0), 0);
	assert_int_equal(cap, 1);
	assert_int_equal(util_grow(&a, &cap, 5, sizeof(*a), 0), 0);
	assert_int_equal(cap, 8);
	a[7] = 7;
	assert_int_equal(util_grow(&a, &cap, 3, sizeof(*a), 0), 0);
	assert_int_equal(cap, 8);
	free(a);
}

static void test_sort(void **state)
{
	static int64_t a[100000], b[100000];
	uint64_t x = 88172645463325252ull;
	size_t n, i;

	(void)state;
	for (n = 0; n <= 100000; n = n ? n * 10 : 1) {
		for (i = 0; i < n; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			a[i] = (int64_t)x >> (i % 3 ? 20 : 0); /* negative and large values */
			b[i] = a[i];
		}
		util_sort_i64(a, n);
		qsort(b, n, sizeof(*b), cmp64);
		assert_memory_equal(a, b, n * sizeof(*a) + (n == 0));
	}
}

/* util_sort_i64_to() and util_sort_i64() of a large array deal the values
 * into parts first (lowered to 64 values here), out of place and in place:
 * every shape of data comes out as qsort sorts it, and a copy's input
 * stays as it was; the shapes spread over many buckets are dealt into
 * parts (a far outlier above or below the rest among them), a single
 * value with one far one is not (it sorts as before). */
static int reset_sort_parts(void **state)
{
	(void)state;
	util_sort_testing_parts(0);
	return 0;
}

static void test_sort_parts(void **state)
{
	static int64_t in[200000], copy[200000], out[200000], want[200000];
	static const size_t sizes[] = {64, 65, 1000, 4097, 70000, 200000};
	uint64_t x = 0x9E3779B97F4A7C15ull;
	size_t k, shape, i, done;

	(void)state;
	util_sort_testing_parts(64);
	for (shape = 0; shape < 10; shape++) {
		for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
			size_t n = sizes[k];

			for (i = 0; i < n; i++) {
				x ^= x << 13;
				x ^= x >> 7;
				x ^= x << 17;
				switch (shape) {
				case 0: /* anything, negative too */
					in[i] = (int64_t)x;
					break;
				case 1: /* durations: many small, a long tail */
					in[i] = (int64_t)((x & 0xfff) << (x >> 60));
					break;
				case 2: /* four values and one far one */
					in[i] = i == n / 2 ? INT64_MAX : 1000 + (int64_t)(x & 3);
					break;
				case 7: /* one value and one far one: not dealt */
					in[i] = i == n / 2 ? INT64_MAX : 1000;
					break;
				case 8: /* calls of 0.5-2.5 us and one of 1 s */
					in[i] = i == n / 3 ? 1000000000 : 500 + (int64_t)(x % 2000);
					break;
				case 9: /* calls of 1 s and 0.2 ms, and one of 100 ns */
					in[i] =
					    i == n / 3 ? 100 : 1000000000 + (int64_t)(x % 200000);
					break;
				case 3: /* a range under 2^16: a bucket a value */
					in[i] = -500 + (int64_t)(x % 40000);
					break;
				case 4: /* all the same */
					in[i] = 42;
					break;
				case 5: /* two values, the extremes */
					in[i] = x & 1 ? INT64_MAX : INT64_MIN;
					break;
				default: /* sorted backwards */
					in[i] = (int64_t)(n - i) * 1000;
					break;
				}
				copy[i] = want[i] = in[i];
			}
			qsort(want, n, sizeof(*want), cmp64);
			util_sort_i64_to(out, in, n);
			assert_memory_equal(out, want, n * sizeof(*out));
			assert_memory_equal(in, copy, n * sizeof(*in));
			util_sort_i64(copy, n);
			assert_memory_equal(copy, want, n * sizeof(*copy));
			done = util_sort_testing_parts(64);
			if (shape == 4 || shape == 7)
				assert_int_equal(done, 0);
			else if (shape != 5)
				assert_int_equal(done, 2);
		}
	}
}

/* qsort comparator of pointers to ints, for util_sorted_ptrs(). */
static int cmp_int_ptr(const void *a, const void *b)
{
	int x = **(const int *const *)a, y = **(const int *const *)b;

	return (x > y) - (x < y);
}

/* util_sorted_ptrs(): pointers into the array, in order; the array as it was. */
static void test_sorted_ptrs(void **state)
{
	const int v[] = {5, -2, 9, 0, 5};
	const int **p;

	(void)state;
	p = util_sorted_ptrs(v, 5, sizeof(v[0]), cmp_int_ptr);
	assert_non_null(p);
	assert_ptr_equal(p[0], &v[1]);
	assert_ptr_equal(p[1], &v[3]);
	assert_int_equal(*p[2], 5);
	assert_int_equal(*p[3], 5);
	assert_ptr_equal(p[4], &v[2]);
	assert_int_equal(v[0], 5);
	assert_int_equal(v[1], -2);
	free(p);
	p = util_sorted_ptrs(v, 0, sizeof(v[0]), cmp_int_ptr);
	assert_non_null(p);
	free(p);
}

static void test_iso(void **state)
{
	static const struct {
		const char *in;
		long long epoch;
	} ok[] = {
	    {"1970-01-01", 0},
	    {"2026-11-30", 1795996800},
	    {"2026-11-30T02:00:00Z", 1796004000},
	    {"2026-11-30T02:00:00", 1796004000},
	    {"2026-11-30 02:00", 1796004000},
	    {"2026-11-30T03:00:00+01:00", 1796004000},
	    {"2026-11-29T21:00:00.123456-05:00", 1796004000},
	    {"2026-11-30T02:00:00.5+0000", 1796004000},
	    {"2000-02-29T00:00:00Z", 951782400}, /* divisible by 400: a leap year */
	    {"2024-02-29T12:00:00Z", 1709208000},
	    {"1969-12-31T23:59:59Z", -1},
	};
	static const char *const bad[] = {"",
					  "2026",
					  "2026-13-01",
					  "2026-02-30",
					  "2026-02-29", /* common years: no 29 February */
					  "1900-02-29T00:00:00Z",
					  "2100-02-29",
					  "yesterday",
					  "2026-11-30T25:00",
					  "2026-11-30T02:00:00+",
					  "7d",
					  "2026-11-30T02:00:00Zjunk",
					  "2026-11-30T"};
	char out[32];
	size_t i;
	int64_t e;

	(void)state;
	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		assert_int_equal(util_parse_iso(&e, ok[i].in), 0);
		assert_int_equal(e, ok[i].epoch);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(util_parse_iso(&e, bad[i]), ERR_USAGE);
	util_format_iso(out, sizeof(out), 1796004000);
	assert_string_equal(out, "2026-11-30T02:00:00Z");
	util_format_iso(out, sizeof(out), -1);
	assert_string_equal(out, "1969-12-31T23:59:59Z");
	util_format_iso(out, sizeof(out), 951782400);
	assert_string_equal(out, "2000-02-29T00:00:00Z");
}

static void test_sha256(void **state)
{
	struct sha256 s;
	char hex[65];
	static char big[1000000];
	FILE *f;

	(void)state;
	sha256_init(&s);
	sha256_hex(hex, &s);
	assert_string_equal(hex,
			    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	sha256_init(&s);
	sha256_update(&s, "abc", 3);
	sha256_hex(hex, &s);
	assert_string_equal(hex,
			    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	sha256_init(&s);
	sha256_update(&s, "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56);
	sha256_hex(hex, &s);
	assert_string_equal(hex,
			    "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	memset(big, 'a', sizeof(big));
	f = fopen(tu_path("a.bin"), "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(big, 1, sizeof(big), f), sizeof(big));
	fclose(f);
	assert_int_equal(sha256_file(hex, tu_path("a.bin")), 0);
	assert_string_equal(hex,
			    "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	assert_int_equal(sha256_file(hex, tu_path("missing.bin")), ERR_IO);
	assert_non_null(strstr(err_msg(), "missing.bin"));
}

/* sha256_fd_until(): the whole file while stop is clear, given up
 * (ECANCELED) once it is set (ingest's hash of a file that failed). */
static void test_sha256_until(void **state)
{
	static char big[300000];
	atomic_int stop;
	char hex[65];
	FILE *f;
	int fd;

	(void)state;
	memset(big, 'a', sizeof(big));
	f = fopen(tu_path("b.bin"), "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(big, 1, sizeof(big), f), sizeof(big));
	fclose(f);
	fd = open(tu_path("b.bin"), O_RDONLY);
	assert_true(fd >= 0);
	atomic_init(&stop, 0);
	assert_int_equal(sha256_fd_until(hex, fd, &stop), 0);
	/* python3 -c 'import hashlib; print(hashlib.sha256(b"a"*300000).hexdigest())' */
	assert_string_equal(hex,
			    "12e1b9b179b29a4f7e5889b185d7ac71bff0ad1f49a7b391d0911b737a0f5381");
	atomic_store(&stop, 1);
	assert_int_equal(sha256_fd_until(hex, fd, &stop), ECANCELED);
	close(fd);
}

/* UTF-8 as RFC 3629 and PostgreSQL define it (the store's text rule). */
static void test_utf8(void **state)
{
	static const char *const good[] = {"",	       "solve",	       "précondition",
					   "größe_λ",  "求解器",       "🚀",
					   "\x7f\x01", "\xef\xbf\xbf", "\xf4\x8f\xbf\xbf"};
	static const struct {
		const char *s;
		size_t at;
	} bad[] = {
	    {"bad\xffname", 3},	     /* never a UTF-8 byte */
	    {"\xc3", 0},	     /* cut */
	    {"a\xc3(", 1},	     /* not a continuation */
	    {"\xc0\xaf", 0},	     /* overlong '/' */
	    {"\xe0\x80\xaf", 0},     /* overlong */
	    {"\xed\xa0\x80", 0},     /* a surrogate, U+D800 */
	    {"\xf4\x90\x80\x80", 0}, /* past U+10FFFF */
	    {"ok\x80", 2},	     /* a lone continuation */
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		assert_null(util_utf8_bad(good[i]));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_ptr_equal(util_utf8_bad(bad[i].s), bad[i].s + bad[i].at);
	assert_int_equal(util_utf8_len("\xf0\x9f\x9a\x80"), 4);
	assert_int_equal(util_utf8_len("\xce\xbb"), 2);
	assert_int_equal(util_utf8_len("\xed\x9f\xbf"), 3); /* U+D7FF */
	assert_int_equal(util_utf8_len("\xff"), 0);
	{
		unsigned cp = 7;

		assert_int_equal(util_utf8_decode("\xf0\x9f\x9a\x80", &cp), 4);
		assert_int_equal(cp, 0x1f680);
		assert_int_equal(util_utf8_decode("\xce\xbb", &cp), 2);
		assert_int_equal(cp, 0x3bb);
		assert_int_equal(util_utf8_decode("A", &cp), 1);
		assert_int_equal(cp, 'A');
		assert_int_equal(util_utf8_decode("\xef\xbf\xbd", &cp), 3);
		assert_int_equal(cp, 0xfffd);
		/* not valid: *cp left as it was */
		assert_int_equal(util_utf8_decode("\xc0\xaf", &cp), 0); /* overlong '/' */
		assert_int_equal(cp, 0xfffd);
	}
}

/* A name as it stands in a joined path: " > " and backslashes escaped,
 * so that no two paths' joined names are alike. */
static void test_path_name(void **state)
{
	static const struct {
		const char *name, *want;
	} cases[] = {{"solve", "solve"},
		     {"a > b", "a \\> b"},
		     {"operator>", "operator>"},
		     {"a >b", "a >b"},
		     {"vector<int> >", "vector<int> \\>"},
		     {"> y", "\\> y"},
		     {">", "\\>"},
		     {">>", ">>"},
		     {"x > > y", "x \\> \\> y"},
		     {"a \\> b", "a \\\\> b"},
		     {"C:\\dir", "C:\\\\dir"},
		     {"", ""}};
	char out[64], *end;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		end = util_path_name_put(out, cases[i].name);
		*end = '\0';
		assert_string_equal(out, cases[i].want);
		assert_int_equal(util_path_name_len(cases[i].name), strlen(cases[i].want));
	}
}

/* The joined name of the path names[0..n) into out (NUL-terminated). */
static void join_path(char *out, const char *const *names, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (i) {
			memcpy(out, " > ", 3);
			out += 3;
		}
		out = util_path_name_put(out, names[i]);
	}
	*out = '\0';
}

/* util_path_split() of the joined name gives names[0..n) back. */
static void split_back(const char *joined, const char *const *names, size_t n)
{
	char **got;
	size_t k, i;

	assert_int_equal(util_path_split(joined, &got, &k), 0);
	if (k != n)
		fail_msg("'%s' split into %zu names, not %zu", joined, k, n);
	for (i = 0; i < n; i++)
		assert_string_equal(got[i], names[i]);
	free(got);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* No two paths read alike: every path of one to three names made of
 * 'a', ' ', '>' and '\\' (names of up to 3 bytes for paths of one and
 * two names, up to 2 for three) has a joined name of its own, which
 * util_path_split() splits back into its names. */
static void test_path_name_unique(void **state)
{
	static const char abc[] = "a >\\";
	char names[84][4], **joined;
	size_t nn = 0, nj = 0, len, i, j, k, c, cap = 84 + 84 * 84 + 20 * 20 * 20;
	const char *p[3];

	(void)state;
	for (len = 1; len <= 3; len++) {
		size_t total = len == 1 ? 4 : len == 2 ? 16 : 64;

		for (i = 0; i < total; i++) {
			for (c = 0, k = i; c < len; c++, k /= 4)
				names[nn][c] = abc[k % 4];
			names[nn++][len] = '\0';
		}
	}
	joined = malloc(cap * sizeof(*joined));
	assert_non_null(joined);
	for (i = 0; i < nn; i++) {
		p[0] = names[i];
		joined[nj] = malloc(8);
		join_path(joined[nj], p, 1);
		split_back(joined[nj++], p, 1);
		for (j = 0; j < nn; j++) {
			p[1] = names[j];
			joined[nj] = malloc(20);
			join_path(joined[nj], p, 2);
			split_back(joined[nj++], p, 2);
		}
	}
	/* names of up to 2 bytes: the first 20 */
	for (i = 0; i < 20; i++)
		for (j = 0; j < 20; j++)
			for (k = 0; k < 20; k++) {
				p[0] = names[i];
				p[1] = names[j];
				p[2] = names[k];
				joined[nj] = malloc(24);
				join_path(joined[nj], p, 3);
				split_back(joined[nj++], p, 3);
			}
	assert_int_equal(nj, cap);
	qsort(joined, nj, sizeof(*joined), cmp_str);
	for (i = 1; i < nj; i++)
		if (!strcmp(joined[i - 1], joined[i]))
			fail_msg("two paths read '%s'", joined[i]);
	for (i = 0; i < nj; i++)
		free(joined[i]);
	free(joined);
}

/* i64vec_reserve_exact(): the room asked for, not doubled; what the vector
 * held stays; a vector with room enough is left as it is. */
static void test_i64vec_reserve_exact(void **state)
{
	struct i64vec a;

	(void)state;
	i64vec_init(&a);
	assert_int_equal(i64vec_reserve_exact(&a, 1000003), 0);
	assert_int_equal(a.cap, 1000003);
	assert_int_equal(i64vec_push(&a, 7), 0);
	assert_int_equal(i64vec_reserve_exact(&a, 10), 0);
	assert_int_equal(a.cap, 1000003);
	assert_int_equal(i64vec_reserve_exact(&a, 2000001), 0);
	assert_int_equal(a.cap, 2000001);
	assert_int_equal(a.len, 1);
	assert_int_equal(a.v[0], 7);
	assert_int_not_equal(i64vec_reserve_exact(&a, SIZE_MAX / 4), 0);
	assert_int_equal(a.cap, 2000001);
	i64vec_release(&a);
}

/* i64vec_unique(): sorted, each value once; an empty vector stays so. */
static void test_i64vec_unique(void **state)
{
	static const int64_t in[] = {5, -1, 5, 3, -1, 9, 3, 3};
	struct i64vec v;
	size_t i;

	(void)state;
	i64vec_init(&v);
	assert_int_equal(i64vec_unique(&v), 0);
	for (i = 0; i < sizeof(in) / sizeof(in[0]); i++)
		assert_int_equal(i64vec_push(&v, in[i]), 0);
	assert_int_equal(i64vec_unique(&v), 4);
	assert_int_equal(v.len, 4);
	assert_true(v.v[0] == -1 && v.v[1] == 3 && v.v[2] == 5 && v.v[3] == 9);
	i64vec_release(&v);
}

/* util_field(): every field in order, empty ones between separators
 * included, an empty last one not. */
static void test_field(void **state)
{
	/* a list and its fields as the loop below prints them */
	static const char *const cases[][2] = {
	    {"", ""},
	    {"a", "[a]"},
	    {"/usr/bin:/bin", "[/usr/bin][/bin]"},
	    {"a::b:", "[a][][b]"},
	    {":", "[]"},
	    {"::x", "[][][x]"},
	};
	size_t c, len;

	(void)state;
	for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		const char *p = cases[c][0], *f;
		struct buf b = BUF_INIT;

		assert_int_equal(buf_puts(&b, ""), 0);
		while ((f = util_field(&p, ':', &len)))
			assert_int_equal(buf_printf(&b, "[%.*s]", (int)len, f), 0);
		assert_string_equal(b.data, cases[c][1]);
		assert_int_equal(*p, '\0');
		buf_release(&b);
	}
}

static void test_table(void **state)
{
	static const char *const hdr[] = {"name", "value"};
	static const enum table_align al[] = {TABLE_LEFT, TABLE_RIGHT};
	static const char *const r1[] = {"größe", "1.5"};
	static const char *const r2[] = {"a\nb", "100"};
	struct table t;
	char got[256];
	FILE *f;
	size_t n;

	(void)state;
	assert_int_equal(table_init(&t, 2, hdr, al), 0);
	assert_int_equal(table_add_row(&t, r1), 0);
	assert_int_equal(table_add_row(&t, r2), 0);
	f = tmpfile();
	assert_non_null(f);
	assert_int_equal(table_print(&t, f, 1), 0);
	rewind(f);
	n = fread(got, 1, sizeof(got) - 1, f);
	got[n] = '\0';
	fclose(f);
	table_release(&t);
	assert_string_equal(got, "name   value\n"
				 "-----  -----\n"
				 "größe    1.5\n"
				 "a?b      100\n");
}

TU_MAIN(NULL, NULL,
	{
	    cmocka_unit_test(test_buf),
	    cmocka_unit_test(test_grow),
	    cmocka_unit_test(test_sort),
	    cmocka_unit_test_teardown(test_sort_parts, reset_sort_parts),
	    cmocka_unit_test(test_i64vec_reserve_exact),
	    cmocka_unit_test(test_sorted_ptrs),
	    cmocka_unit_test(test_iso),
	    cmocka_unit_test(test_sha256),
	    cmocka_unit_test(test_sha256_until),
	    cmocka_unit_test(test_field),
	    cmocka_unit_test(test_table),
	    cmocka_unit_test(test_utf8),
	    cmocka_unit_test(test_path_name),
	    cmocka_unit_test(test_path_name_unique),
	    cmocka_unit_test(test_i64vec_unique),
	})
