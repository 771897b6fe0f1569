/*
 * cli.c - shared command-line plumbing: store path resolution, --format
 * parsing, terminal and NO_COLOR handling, error printing, checking that
 * stdout was really written before exiting, and the callbacks of the
 * options several commands share (cli.h).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <inttypes.h>
#include <langinfo.h>
#include <locale.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "render/escape.h"
#include "render/render.h"
#include "scopedb/compare.h"
#include "scopedb/err.h"
#include "scopedb/filter.h"
#include "scopedb/ingest.h"
#include "scopedb/netfs.h"
#include "scopedb/stats.h"
#include "scopedb/util.h"
#include "select/match.h"
#include "util/suggest.h"

const char *cli_db_path(const char *flag)
{
	const char *env;

	if (flag)
		return flag;
	env = getenv("SCOPEDB_DB");
	if (env && *env)
		return env;
	return "scopedb.sqlite";
}

void cli_warn_network_fs(const char *db, int allow)
{
	const char *fs = allow ? NULL : netfs_store(db);

	if (fs)
		cli_print_errorf(
		    "warning: store '%s' is on a network file system (%s), where SQLite's locking "
		    "is unreliable and concurrent writers can corrupt it: use a PostgreSQL store "
		    "(--db postgresql://...) or pass --allow-network-fs",
		    db, fs);
}

int cli_format_is(const char *fmt, const char *name)
{
	return fmt && !strcmp(fmt, name);
}

/* 1 if name is one of the space-separated words of list. */
static int cli_word_in(const char *list, const char *name)
{
	size_t len = strlen(name), k;

	while (list && *list) {
		k = strcspn(list, " ");
		if (k == len && !strncmp(list, name, len))
			return 1;
		list += k;
		list += *list == ' ';
	}
	return 0;
}

int cli_format_choices(struct buf *out, const char *allowed)
{
	const struct renderer *r;
	size_t i;
	int first = 1;

	for (i = 0; (r = render_at(i)) != NULL; i++) {
		if (!cli_word_in(allowed, r->name))
			continue;
		if (buf_printf(out, "%s%s", first ? "" : ", ", r->name))
			return err_nomem();
		first = 0;
	}
	return 0;
}

int cli_parse_format(const char **out, const char *arg, const char *allowed)
{
	const struct renderer *r;
	struct buf choices = BUF_INIT, hint = BUF_INIT;
	/* any case; "md" is markdown */
	const char *name = !strcasecmp(arg, "md") ? "markdown" : arg;
	size_t i;
	int rc;

	for (i = 0; (r = render_at(i)) != NULL; i++) {
		if (cli_word_in(allowed, r->name) && !strcasecmp(name, r->name)) {
			*out = r->name;
			return 0;
		}
	}
	rc = cli_format_choices(&choices, allowed);
	if (!rc)
		rc = suggest_hint_words(&hint, arg, allowed);
	if (!rc)
		rc = err_set(ERR_USAGE, "invalid --format '%s': choose from %s%s", arg,
			     choices.data ? choices.data : "", hint.data ? hint.data : "");
	buf_release(&choices);
	buf_release(&hint);
	return rc;
}

/* One list of cli_formats_all(), kept for the process. */
struct cli_format_list {
	struct cli_format_list *next;
	const char *fmts;
	unsigned kinds;
	char *all;
};

const char *cli_formats_all(const char *fmts, unsigned kinds)
{
	/* One list per (fmts, kinds), built on first use: commands pass a
	 * handful of distinct literals.  Reachable from lists until exit. */
	static struct cli_format_list *lists;
	struct cli_format_list *l;
	struct buf all = BUF_INIT;
	const struct renderer *r;
	size_t i;
	int rc;

	for (l = lists; l; l = l->next)
		if (l->kinds == kinds && !strcmp(l->fmts, fmts))
			return l->all;
	l = malloc(sizeof(*l));
	rc = !l || buf_printf(&all, "%s", fmts);
	for (i = 0; !rc && (r = render_at(i)) != NULL; i++) {
		if ((r->needs & ~kinds) || cli_word_in(fmts, r->name))
			continue;
		rc = buf_printf(&all, " %s", r->name);
	}
	if (rc) {
		/* out of memory: offer fmts alone rather than fail */
		free(l);
		buf_release(&all);
		return fmts;
	}
	l->all = buf_detach(&all);
	if (!l->all) {
		free(l);
		return fmts;
	}
	l->fmts = fmts;
	l->kinds = kinds;
	l->next = lists;
	lists = l;
	return l->all;
}

int cli_isatty(FILE *f)
{
	return isatty(fileno(f));
}

/* --color: -1 auto, 0 never, 1 always; --units.  Process-wide like the
 * locale: every document this process renders shows them. */
static int cli_color_flag = -1;
static enum format_unit cli_units_flag = FORMAT_UNIT_AUTO;

/* 1 if environment variable name is set to something other than "" or
 * "0" (FORCE_COLOR, CLICOLOR_FORCE). */
static int cli_env_on(const char *name)
{
	const char *v = getenv(name);

	return v && *v && strcmp(v, "0") != 0;
}

int cli_use_color(FILE *f)
{
	const char *nc = getenv("NO_COLOR"), *term = getenv("TERM");

	if (cli_color_flag >= 0)
		return cli_color_flag;
	if (nc && *nc)
		return 0;
	if (cli_env_on("FORCE_COLOR") || cli_env_on("CLICOLOR_FORCE"))
		return 1;
	if (term && !strcmp(term, "dumb"))
		return 0;
	return cli_isatty(f);
}

/* 1 if a locale name or character set names UTF-8 ("C.UTF-8",
 * "en_US.utf8"). */
static int cli_names_utf8(const char *s)
{
	return s &&
	       (strstr(s, "UTF-8") || strstr(s, "utf-8") || strstr(s, "UTF8") || strstr(s, "utf8"));
}

int cli_utf8(void)
{
	static int known = -1;
	const char *env = NULL, *names[] = {"LC_ALL", "LC_CTYPE", "LANG"};
	char *prev;
	size_t i;

	if (known >= 0)
		return known;
	/* the locale as the C library reads it, when it is installed */
	prev = setlocale(LC_CTYPE, NULL);
	prev = prev ? util_strdup(prev) : NULL;
	if (setlocale(LC_CTYPE, "")) {
		known = cli_names_utf8(nl_langinfo(CODESET));
	} else {
		/* not installed: what the variables say (the first set) */
		for (i = 0; i < sizeof(names) / sizeof(names[0]) && !(env && *env); i++)
			env = getenv(names[i]);
		known = env && *env && cli_names_utf8(env);
	}
	setlocale(LC_CTYPE, prev ? prev : "C");
	free(prev);
	return known;
}

enum format_unit cli_units(void)
{
	return cli_units_flag;
}

/* "invalid OPT 'ARG': choose from a, b, c; did you mean 'b'?" for the
 * space-separated choices words. */
static int cli_bad_choice(const char *opt, const char *arg, const char *words)
{
	struct buf hint = BUF_INIT, list = BUF_INIT;
	size_t k;
	int rc = suggest_hint_words(&hint, arg, words);

	for (k = 0; !rc && words[k]; k++)
		rc = words[k] == ' ' ? buf_puts(&list, ", ") : buf_putc(&list, words[k]);
	if (!rc)
		rc = err_set(ERR_USAGE, "invalid %s '%s': choose from %s%s", opt, arg, list.data,
			     hint.data ? hint.data : "");
	else
		rc = err_nomem();
	buf_release(&hint);
	buf_release(&list);
	return rc;
}

int cli_opt_units(const struct opt *opt, const char *arg)
{
	(void)opt;
	if (!format_unit_parse(&cli_units_flag, arg))
		return 0;
	return cli_bad_choice("--units", arg, FORMAT_UNIT_WORDS);
}

int cli_opt_color(const struct opt *opt, const char *arg)
{
	(void)opt;
	if (!strcasecmp(arg, "auto"))
		cli_color_flag = -1;
	else if (!strcasecmp(arg, "always"))
		cli_color_flag = 1;
	else if (!strcasecmp(arg, "never"))
		cli_color_flag = 0;
	else
		return cli_bad_choice("--color", arg, "auto always never");
	return 0;
}

/* s (NULL: "") escaped by esc into b, emptied first; "?" when out of memory.
 * What cli_msgq() and cli_outq() share. */
static const char *cli_quote(struct buf *b, const char *s, int (*esc)(struct buf *, const char *))
{
	b->len = 0;
	if (b->data)
		b->data[0] = '\0';
	if (esc(b, s ? s : ""))
		return "?";
	return b->len ? b->data : "";
}

/* Each component of path's parent in turn, an existing one left as it is. */
int cli_store_mkdirs(const char *path)
{
	char *dir = util_strdup(path), *p, c;
	int rc = 0;

	if (!dir)
		return err_nomem();
	p = strrchr(dir, '/');
	if (p)
		*p = '\0';
	for (p = p ? dir : NULL; p && *p && !rc; p++) {
		if (p[1] != '/' && p[1])
			continue;
		/* dir[0..p] is one more component */
		c = p[1];
		p[1] = '\0';
		if (mkdir(dir, 0777) && errno != EEXIST)
			rc = err_set(ERR_IO, "cannot create directory '%s' for store '%s': %s", dir,
				     path, util_strerror_lc(errno));
		p[1] = c;
	}
	free(dir);
	return rc;
}

const char *cli_msgq(struct buf *b, const char *s)
{
	return cli_quote(b, s, escape_msg);
}

const char *cli_outq(struct buf *b, const char *s)
{
	return cli_quote(b, s, escape_plain);
}

void cli_warn_kept(const char *who, int64_t run_id, const char *const *names,
		   const char *const *stored, const char *const *given, size_t n, unsigned mask)
{
	const char *sep = "";
	struct buf q = BUF_INIT, q2 = BUF_INIT;
	size_t i;

	fflush(stdout);
	fprintf(stderr, "scopedb: warning: %s already stored as run %" PRId64 " with ", who,
		run_id);
	for (i = 0; i < n; i++) {
		if (!(mask & (1u << i)))
			continue;
		if (stored[i])
			fprintf(stderr, "%s%s %s, not %s", sep, names[i], cli_msgq(&q, stored[i]),
				cli_msgq(&q2, given[i]));
		else
			fprintf(stderr, "%sno %s, not %s", sep, names[i], cli_msgq(&q2, given[i]));
		sep = ", ";
	}
	fputs("; keeping it\n", stderr);
	buf_release(&q);
	buf_release(&q2);
}

void cli_print_error(const char *msg)
{
	struct buf b = BUF_INIT;

	fprintf(stderr, "scopedb: %s\n", cli_msgq(&b, msg));
	buf_release(&b);
}

void cli_print_errorv(const char *fmt, va_list ap)
{
	char small[512], *msg = small;
	va_list again;
	int n;

	va_copy(again, ap);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	if (n >= (int)sizeof(small) && (msg = malloc((size_t)n + 1)) != NULL)
		vsnprintf(msg, (size_t)n + 1, fmt, again);
	va_end(again);
	cli_print_error(msg ? msg : small);
	if (msg != small)
		free(msg);
}

void cli_print_errorf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	cli_print_errorv(fmt, ap);
	va_end(ap);
}

int cli_error(void)
{
	cli_print_error(err_msg());
	return CLI_EXIT_ERROR;
}

void cli_bytes(char *s, size_t len, int64_t bytes)
{
	if (bytes < 1024)
		snprintf(s, len, "%" PRId64 " bytes", bytes);
	else if (bytes < 1024 * 1024)
		snprintf(s, len, "%.1f KiB", (double)bytes / 1024.0);
	else
		snprintf(s, len, "%.1f MiB", (double)bytes / (1024.0 * 1024.0));
}

/* The cause of the first failed write to stdout (0: none yet). */
static int cli_stdout_errno;

/* 0 when stdout is written and flushed, else its error's errno (EIO when
 * the stream only says it failed). */
static int cli_stdout_failed(void)
{
	if (fflush(stdout) != 0 && !cli_stdout_errno)
		cli_stdout_errno = errno ? errno : EIO;
	if (ferror(stdout) && !cli_stdout_errno)
		cli_stdout_errno = EIO;
	return cli_stdout_errno;
}

int cli_write_stdout(const void *data, size_t len)
{
	errno = 0;
	if (len && fwrite(data, 1, len, stdout) != len && !cli_stdout_errno)
		cli_stdout_errno = errno ? errno : EIO;
	if (cli_stdout_failed())
		return err_set(ERR_IO, "cannot write to standard output: %s",
			       util_strerror_lc(cli_stdout_errno));
	return 0;
}

int cli_finish(int code)
{
	if (cli_stdout_failed()) {
		fprintf(stderr, "scopedb: cannot write to standard output: %s\n",
			util_strerror_lc(cli_stdout_errno));
		return CLI_EXIT_ERROR;
	}
	return code;
}

int cli_opt_format(const struct opt *opt, const char *arg)
{
	return cli_parse_format(opt->value, arg, opt->choices);
}

int cli_opt_by(const struct opt *opt, const char *arg)
{
	if (!strcasecmp(arg, "name"))
		*(int *)opt->value = 0;
	else if (!strcasecmp(arg, "path"))
		*(int *)opt->value = 1;
	else
		return cli_bad_choice("--by", arg, "name path");
	return 0;
}

int cli_tree_by(const struct opt_cmd *self, const struct opt *opts, int *by_path, int tree,
		int *code)
{
	if (tree && *by_path == 0) {
		*code = opt_usage_error(self, opts,
					"--tree shows the call tree's paths: it cannot be given "
					"with --by name");
		return -1;
	}
	*by_path = tree || *by_path > 0;
	return 0;
}

int cli_opt_metric(const struct opt *opt, const char *arg)
{
	return stats_metric_parse(opt->value, arg);
}

int cli_opt_window(const struct opt *opt, const char *arg)
{
	struct compare_opts *co = opt->value;
	long v;
	int rc = opt_parse_int(&v, opt, arg, 1, 1000, "runs");

	if (!rc) {
		*(opt->defval ? &co->candidate_window : &co->baseline_window) = (size_t)v;
		co->stat = 1;
	}
	return rc;
}

void cli_regions_release(struct cli_regions *r)
{
	opt_list_release(&r->include);
	opt_list_release(&r->exclude);
}

const char *cli_metric_words(int help)
{
	static struct buf words[2]; /* kept for the process */
	size_t i;
	int rc = 0;

	if (!words[1].data) {
		for (i = 0; i < STATS_NMETRICS; i++)
			rc |= buf_printf(&words[0], "%s%s", i ? " " : "",
					 stats_metric_name((enum stats_metric)i));
		rc |= buf_printf(&words[1], "%s (default %s)", words[0].data,
				 stats_metric_name(STATS_TOTAL));
		if (rc) {
			buf_release(&words[0]);
			buf_release(&words[1]);
			return "total"; /* out of memory: the default alone */
		}
	}
	return words[help != 0].data;
}

int cli_opt_ranks(const struct opt *opt, const char *arg)
{
	return match_ranks_parse(opt->value, arg);
}

int cli_opt_date(const struct opt *opt, const char *arg)
{
	char name[64];

	snprintf(name, sizeof(name), "--%s", opt->long_name);
	return filter_parse_date(opt->value, (size_t)opt->defval, name, arg, (int64_t)time(NULL));
}

int cli_opt_positive(const struct opt *opt, const char *arg)
{
	return opt_parse_int(opt->value, opt, arg, 1, LONG_MAX, (const char *)opt->defval);
}

int cli_opt_limit(const struct opt *opt, const char *arg)
{
	struct ingest_limits lim = *ingest_default_limits();
	/* MiB stay under 2^40 so that bytes fit in 64 bits; seconds in an unsigned */
	long max = opt->defval ? (long)1 << 40 : (long)(UINT_MAX < LONG_MAX ? UINT_MAX : LONG_MAX);
	long v;
	int rc;

	rc = opt_parse_int(&v, opt, arg, 0, max,
			   opt->defval ? "MiB; 0 = no limit" : "seconds; 0 = no limit");
	if (rc)
		return rc;
	if (opt->defval)
		lim.max_memory_mib = (uint64_t)v;
	else
		lim.timeout_s = (unsigned)v;
	ingest_set_default_limits(&lim);
	return 0;
}

int cli_opt_percent(const struct opt *opt, const char *arg)
{
	char name[64];

	snprintf(name, sizeof(name), "--%s", opt->long_name);
	return stats_parse_percent(opt->value, name, arg, (int)opt->defval);
}

int cli_same_spec(struct cli_same *c)
{
	size_t i;
	int rc = 0;

	memset(&c->spec, 0, sizeof(c->spec));
	for (i = 0; i < c->keys.n; i++)
		if (!*c->keys.v[i])
			return err_set(ERR_USAGE, "invalid --same '': expected a metadata key");
	if (c->keys.n) {
		c->spec.keys = c->keys.v;
		c->spec.nkeys = c->keys.n;
	} else if (!c->no) {
		rc = same_env_keys(&c->env, &c->nenv, getenv("SCOPEDB_SAME"));
		c->spec.keys = (const char *const *)c->env;
		c->spec.nkeys = c->nenv;
		c->spec.from_env = 1;
	}
	return rc;
}

/* Mark in differs[] the runs of listed[0..n) that the condition "key =
 * the value of run ref" (runs without the key count as alike) leaves out
 * of fs; *any = 1 when it left one out, and then the condition
 * ("mpi_size = 16") is appended to describe. */
static int cli_same_key(int *any, char *differs, struct buf *describe, struct store *st,
			const struct filter *fs, int64_t ref, const char *key,
			const int64_t *listed, size_t n)
{
	struct same_spec spec;
	struct same s;
	struct filter f2;
	struct filter_meta *conds = NULL;
	struct store_run *kept = NULL;
	size_t nkept = 0, i, k;
	int rc;

	*any = 0;
	memset(&spec, 0, sizeof(spec));
	spec.implied = &key;
	spec.nimplied = 1;
	rc = same_resolve(&s, st, ref, &spec);
	if (!rc && !s.ncond) /* the reference has no such key */
		goto out;
	if (!rc)
		rc = same_filter(&f2, &conds, fs, &s);
	if (!rc) {
		f2.limit = 0;
		rc = store_find_runs(st, &kept, &nkept, &f2);
	}
	for (i = 0; !rc && i < n; i++) {
		for (k = 0; k < nkept && kept[k].id != listed[i]; k++)
			;
		if (k == nkept)
			differs[i] = 1, *any = 1;
	}
	if (!rc && *any) {
		s.implied_left = 1;
		rc = buf_puts(describe, describe->len ? ", " : "") || same_describe(describe, &s);
	}
out:
	free(conds);
	same_release(&s);
	store_runs_free(kept, nkept);
	return rc;
}

int cli_same_note(struct store *st, const struct filter *fs, const int64_t *listed, size_t n)
{
	struct buf b = BUF_INIT, q = BUF_INIT, k = BUF_INIT, o = BUF_INIT;
	struct store_run *all = NULL;
	struct filter fa = *fs;
	char *differs = NULL;
	size_t i, nall = 0, nkeys = 0, left = 0;
	int64_t ref = 0;
	int rc, any;

	/* the reference: the newest of the runs listed */
	fa.limit = 0;
	rc = n ? store_find_runs(st, &all, &nall, &fa) : 0;
	for (i = 0; !rc && !ref && i < nall; i++)
		for (size_t j = 0; !ref && j < n; j++)
			if (listed[j] == all[i].id)
				ref = all[i].id;
	if (!rc && ref && !(differs = calloc(n, 1)))
		rc = err_nomem();
	for (i = 0; !rc && ref && compare_same_keys[i]; i++) {
		rc = cli_same_key(&any, differs, &b, st, fs, ref, compare_same_keys[i], listed, n);
		if (!rc && any) {
			rc = buf_printf(&k, "%s%s", nkeys ? " or " : "", compare_same_keys[i]) ||
			     buf_printf(&o, "%s--same %s", nkeys ? " " : "", compare_same_keys[i]);
			nkeys++;
		}
	}
	for (i = 0; differs && i < n; i++)
		left += differs[i] != 0;
	if (!rc && left)
		fprintf(stderr,
			"scopedb: note: %zu of these runs %s from the newest in %s (the "
			"newest: %s): a change of level across them may be theirs, not the code's; "
			"%s keeps the runs like the newest\n",
			left, left == 1 ? "differs" : "differ", k.data, cli_msgq(&q, b.data),
			o.data);
	free(differs);
	store_runs_free(all, nall);
	buf_release(&b);
	buf_release(&q);
	buf_release(&k);
	buf_release(&o);
	return rc;
}

void cli_same_release(struct cli_same *c)
{
	opt_list_release(&c->keys);
	same_keys_free(c->env, c->nenv);
	c->env = NULL;
	c->nenv = 0;
}

int cli_no_change_points(char *out, size_t len, size_t nruns,
			 const char *(*commit)(const void *ctx, size_t i), const void *ctx,
			 size_t min_runs)
{
	size_t i, j, npoints = 0;
	char of[48];

	for (i = 0; i < nruns && npoints < min_runs; i++) {
		const char *c = commit(ctx, i);

		for (j = 0; c && j < i; j++)
			if (commit(ctx, j) && !strcmp(commit(ctx, j), c))
				break;
		npoints += !c || j == i;
	}
	if (npoints >= min_runs) {
		snprintf(out, len, "no change points");
		return 0;
	}
	/* not "nothing changed": nothing could have been seen */
	if (npoints < nruns)
		snprintf(of, sizeof(of), " of %zu commit%s", npoints, npoints == 1 ? "" : "s");
	else
		of[0] = '\0';
	snprintf(out, len,
		 "no change points: %zu run%s%s, too few (a change point needs %zu commits, %zu on "
		 "each side of it)",
		 nruns, nruns == 1 ? "" : "s", of, min_runs, min_runs / 2);
	return 1;
}
